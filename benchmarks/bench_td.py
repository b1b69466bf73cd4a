"""Speed of TD(lambda) self-play training (positions learnt a second), optionally against an
older checkout, in one run.

    python benchmarks/bench_td.py                          # this tree: Reversi 8x8, C4, 6x6
    python benchmarks/bench_td.py --baseline /tmp/old      # and an older checkout, in turns
    python benchmarks/bench_td.py --games 2000 --turns 5

Each measurement runs in a fresh interpreter importing boardzoo from one tree (``PYTHONPATH``):
it compiles the trainer and plays a few warm-up games (not timed), then times ``--games``
self-play games of the compiled trainer (``boardzoo.learned.td_kernels``'s ``train_games``,
what ``scripts/train_eval.py td`` runs in chunks) from a fresh net of the game's design, and
prints positions/s. With ``--baseline DIR`` the two trees take turns, which goes first
alternating, so machine noise hits both alike; the table shows each tree's median and the
median of the per-turn ratios new/old.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = {
    "reversi8": ("reversi", 8),
    "reversi6": ("reversi", 6),
    "connect_four": ("connect_four", 0),
}

CHILD = """
import sys, time
import numpy as np
from boardzoo.games.catalog import make_game
from boardzoo.learned.td import new_net, seed_rng
from boardzoo.learned.td_kernels import compiled_learned
name, size, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
game = make_game(name, **({"board_size": size} if size else {}))
net = new_net(game)
train = compiled_learned(game)["train_games"]
state = game.initial_state()
s0, s1 = (np.uint64(bits) for bits in state.bitboards())
player = int(state.current_player)
rng = np.uint64(seed_rng(0))
rng, _ = train(s0, s1, player, game.params, *net, 20, 0.01, 0.5, 0.1, rng)
start = time.perf_counter()
rng, positions = train(s0, s1, player, game.params, *net, games, 0.01, 0.5, 0.1, rng)
print(positions / (time.perf_counter() - start))
"""


def measure(tree: Path, game: str, games: int) -> float:
    """Positions/s of one timed run in a fresh interpreter importing boardzoo from ``tree``."""
    name, size = GAMES[game]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(size), str(games)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {done.stderr.strip().splitlines()[-1]}")
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--baseline", type=Path, default=None, help="an older checkout")
    parser.add_argument("--games", type=int, default=1000, help="timed games a measurement")
    parser.add_argument("--turns", type=int, default=3, help="measurements a tree and game")
    parser.add_argument("--rows", nargs="+", choices=sorted(GAMES), default=sorted(GAMES))
    args = parser.parse_args(argv)
    trees = [("this tree", ROOT)] + ([("baseline", args.baseline)] if args.baseline else [])
    print(f"{'game':<14} " + " ".join(f"{label + ' pos/s':>18}" for label, _ in trees)
          + ("  new/old" if args.baseline else ""))  # fmt: skip
    for game in args.rows:
        figures: dict[str, list[float]] = {label: [] for label, _ in trees}
        ratios = []
        for turn in range(args.turns):
            order = trees if turn % 2 == 0 else trees[::-1]
            this_turn = {label: measure(tree, game, args.games) for label, tree in order}
            for label, value in this_turn.items():
                figures[label].append(value)
            if args.baseline:
                ratios.append(this_turn["this tree"] / this_turn["baseline"])
        line = f"{game:<14} " + " ".join(
            f"{statistics.median(figures[label]):>18,.0f}" for label, _ in trees
        )
        if ratios:
            line += f"  {statistics.median(ratios):7.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
