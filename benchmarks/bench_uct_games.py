"""UCT simulations per second on every catalog game, optionally next to an older checkout.

    python benchmarks/bench_uct_games.py                        # every game, median of 7
    python benchmarks/bench_uct_games.py --baseline /tmp/old    # also an older checkout, A/B

Each figure is the median simulations/s of searches of ``--simulations`` simulations from the
start position (one core, random rollouts, a warm-up search first, so compilation is not timed).

With ``--baseline DIR`` (a checkout of an earlier boardzoo, e.g. ``git worktree add /tmp/old
<commit>``), Reversi 8x8 and TicTacToe are also measured with that code: the two trees run in
turns, each turn a fresh process doing one warm-up and one timed search, so machine noise hits
both alike; the ratio is taken turn by turn and its median printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from boardzoo.agents.settings import Budget

_ROOT = Path(__file__).resolve().parents[1]
# Runs in a fresh interpreter against either tree: only API that both trees have.
_MEASURE = """
import json, sys
from boardzoo.agents import make_agent
from boardzoo.games import ReversiState, TicTacToeState
game, simulations, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
state = ReversiState.initial(8) if game == "reversi" else TicTacToeState.initial()
agent = make_agent(f"mcts:simulations={simulations}", seed=0)
agent.search(state)
print(json.dumps([agent.search(state).simulations_per_second for _ in range(repeats)]))
"""


def measure(tree: Path, game: str, simulations: int, repeats: int) -> list[float]:
    """Simulations/s of ``repeats`` searches in a fresh process importing boardzoo from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, game, str(simulations), str(repeats)],
        capture_output=True, text=True, check=True, env=env, cwd=tree,
    ).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def catalog_rates(simulations: int, repeats: int) -> dict[str, float]:
    """Median simulations/s from the start of every catalog game (default options)."""
    from boardzoo.agents import MCTSAgent
    from boardzoo.games.catalog import all_games

    rates = {}
    for spec in all_games():
        game = spec.make()
        agent = MCTSAgent(budget=Budget(simulations=simulations), seed=0)
        state = game.initial_state()
        agent.search(state)  # warm-up: compilation (or the cache) and page faults
        rates[game.label] = statistics.median(
            agent.search(state).simulations_per_second for _ in range(repeats)
        )
    return rates


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=100_000, help="per search")
    parser.add_argument("--repeats", type=int, default=7, help="searches (or turns) per figure")
    parser.add_argument("--baseline", type=Path, help="an older checkout to compare with")
    args = parser.parse_args(argv)
    if args.simulations <= 0 or args.repeats <= 0:
        parser.error("--simulations and --repeats must be positive")
    if args.baseline is not None and not (args.baseline / "boardzoo").is_dir():
        parser.error(f"--baseline {args.baseline} holds no boardzoo package")

    print(f"UCT, random rollouts, {args.simulations:,} simulations a search, median of "
          f"{args.repeats}")  # fmt: skip
    for label, rate in catalog_rates(args.simulations, args.repeats).items():
        print(f"  {label:<20} {rate:>12,.0f} sims/s")
    if args.baseline is None:
        return
    print(f"this tree (A) against {args.baseline} (B), in turns, fresh processes:")
    for game in ("reversi", "tictactoe"):
        new, old = [], []
        for _ in range(args.repeats):
            new += measure(_ROOT, game, args.simulations, 1)
            old += measure(args.baseline, game, args.simulations, 1)
        ratios = [a / b for a, b in zip(new, old, strict=True)]
        print(
            f"  {game:<12} A {statistics.median(new):>10,.0f}  B {statistics.median(old):>10,.0f}"
            f"  A/B median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, "
            f"max {max(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
