"""The batched AlphaZero search's own CPU time, with a network that costs nothing.

    python benchmarks/bench_batched_search.py                    # this checkout
    python benchmarks/bench_batched_search.py --baseline /tmp/old  # and an older one, in turns

``bench_az_search.py`` measures the search next to a real network, where the network's time
dominates and machine noise hides the search's share. Here the evaluator returns zeros at once,
so what is timed (wall time minus the time inside the evaluator) is the search alone: 128 trees
(``--trees``) of 32 simulations (``--simulations``) from random 6-ply openings, PUCT and Gumbel
AlphaZero with root noise, the median of ``--repeats`` searches after a warm-up one. With
``--baseline DIR`` (a checkout from before the search core, e.g. ``git worktree add /tmp/old
7b3ef05``) each figure is measured in fresh processes, both trees in turns.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
# Runs in a fresh interpreter against either tree: the batched search moved from boardzoo.az
# to boardzoo.search with the search core, and its settings were called PUCTConfig before.
_MEASURE = """
import json, os, statistics, sys, time
import numpy as np
if os.path.exists(os.path.join(os.getcwd(), "boardzoo", "az", "search.py")):
    import boardzoo.az.search as searching
else:
    import boardzoo.search as searching
BatchedSearch = searching.BatchedSearch
BatchedSearchSettings = getattr(searching, "BatchedSearchSettings", None) or searching.PUCTConfig
from boardzoo.games.catalog import make_game
name, trees, simulations, repeats = sys.argv[1], *map(int, sys.argv[2:5])
game = make_game(name, **({"board_size": 8} if name == "reversi" else {}))
rng = np.random.default_rng(0)
roots = []
for _ in range(trees):
    state = game.initial_state()
    for _ in range(6):
        actions = state.legal_actions()
        state = state.apply(actions[int(rng.integers(len(actions)))])
    roots.append(state)

def free(observations, masks):
    return np.zeros(masks.shape, np.float32), np.zeros(len(observations), np.float32)

result = {}
for gumbel in (False, True):
    search = BatchedSearch(game, trees, BatchedSearchSettings(gumbel=gumbel), seed=0)
    search.search(roots, free, simulations=simulations, add_noise=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = search.search(roots, free, simulations=simulations, add_noise=True)
        times.append(time.perf_counter() - start - done.network_seconds)
    result["gumbel" if gumbel else "puct"] = statistics.median(times) * 1000
print(json.dumps(result))
"""


def measure(tree: Path, game: str, trees: int, simulations: int, repeats: int) -> dict:
    """Milliseconds a search (PUCT and Gumbel) in a fresh process importing boardzoo from
    ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, game, str(trees), str(simulations), str(repeats)],
        capture_output=True, text=True, check=True, env=env, cwd=tree,
    ).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["reversi", "connect_four"])
    parser.add_argument("--trees", type=int, default=128)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--turns", type=int, default=2, help="turns of both trees (baseline)")
    parser.add_argument("--baseline", type=Path, help="an older checkout to measure in turns")
    args = parser.parse_args()
    if args.baseline is not None and not (args.baseline / "boardzoo").is_dir():
        parser.error(f"--baseline {args.baseline} holds no boardzoo package")
    trees = {"this": _ROOT} if args.baseline is None else {"old": args.baseline, "new": _ROOT}
    turns = 1 if args.baseline is None else args.turns
    print(f"{args.trees} trees x {args.simulations} simulations, median of {args.repeats}")
    for game in args.games:
        for turn in range(turns):
            for label, tree in trees.items():
                ms = measure(tree, game, args.trees, args.simulations, args.repeats)
                print(
                    f"{game:<13} {label:<4} turn {turn + 1}: PUCT {ms['puct']:.1f} ms, "
                    f"Gumbel {ms['gumbel']:.1f} ms a search (the search alone)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
