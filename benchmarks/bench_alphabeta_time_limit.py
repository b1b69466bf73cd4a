"""The alpha-beta agent under a time limit: how long ``act`` takes and how deep it gets.

    python benchmarks/bench_alphabeta_time_limit.py            # full run (about a minute)
    python benchmarks/bench_alphabeta_time_limit.py --quick    # a smoke run

Figures (the wall-clock side of tests/test_baseline_agents.py, whose tests check only behaviour):
- Reversi 8x8 middlegame (20 random plies), ``depth=None, time_limit=0.2``: the wall time of
  ``act`` over the limit, and the depth reached. Was asserted: under 0.5 s, depth >= 4.
- The same position with ``depth=3, time_limit=10``: the wall time (the depth ends it).
  Was asserted: under 1 s.
- Reversi 8x8 endgame (48 random plies: 12 empties), ``time_limit=0.5, exact_empties=12``: the
  wall time of ``act`` over the limit, and how many searches finished the exact solve. Was
  asserted: under 0.55 s, exact.

Each figure is measured from outside the agent (``time.perf_counter`` around ``act``), after
:meth:`~boardzoo.agents.AlphaBetaAgent.prepare` has loaded the search and measured its speed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.agents.random_agent import RandomAgent
from boardzoo.games import ReversiState


def random_position(plies: int, seed: int) -> ReversiState:
    """Reversi 8x8 after ``plies`` random moves, or fewer if the game ends (seeds 3 and 4 give
    the tests' positions)."""
    rng = RandomAgent(seed)
    state = ReversiState.initial(8)
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.act(state))
    return state


def timed_acts(
    agent: AlphaBetaAgent, state: ReversiState, searches: int
) -> list[tuple[float, int, bool]]:
    """``(wall seconds, depth, exact)`` of ``searches`` calls of ``agent.act(state)``."""
    agent.prepare(state.game)
    found = []
    for _ in range(searches):
        start = time.perf_counter()
        agent.act(state)
        seconds = time.perf_counter() - start
        found.append((seconds, agent.last_search.depth, agent.last_search.exact))
    return found


def describe(label: str, limit: float, runs: list[tuple[float, int, bool]]) -> str:
    seconds = [s for s, _, _ in runs]
    depths = [d for _, d, _ in runs]
    exact = sum(e for _, _, e in runs)
    return (
        f"{label}: {len(runs)} searches, wall median {statistics.median(seconds) * 1e3:.1f} ms "
        f"({statistics.median(seconds) / limit - 1:+.1%} over the limit), "
        f"max {max(seconds) * 1e3:.1f} ms ({max(seconds) / limit - 1:+.1%}); "
        f"depth median {statistics.median(depths):g}, "
        f"min {min(depths)}; exact {exact}/{len(runs)}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer searches, for a smoke run")
    args = parser.parse_args(argv)
    searches = 3 if args.quick else 20
    seeds = [3] if args.quick else [3, 5, 6, 7, 8]

    middle: list[tuple[float, int, bool]] = []
    by_depth: list[tuple[float, int, bool]] = []
    for seed in seeds:
        state = random_position(20, seed)
        middle += timed_acts(AlphaBetaAgent(depth=None, time_limit=0.2, seed=0), state, searches)
        agent = AlphaBetaAgent(depth=3, time_limit=10.0, seed=0)
        by_depth += timed_acts(agent, state, searches)
    print(describe("middlegame, depth=None, time_limit=0.2", 0.2, middle))
    print(describe("middlegame, depth=3, time_limit=10", 10.0, by_depth))

    endgame: list[tuple[float, int, bool]] = []
    for seed in [4] if args.quick else [4, 9, 10, 11, 12]:
        state = random_position(48, seed)
        if state.is_terminal() or 64 - sum(state.disc_counts()) > 12:
            continue  # a pass on the way: more than 12 empties
        agent = AlphaBetaAgent(depth=None, time_limit=0.5, exact_empties=12, seed=0)
        endgame += timed_acts(agent, state, searches)
    print(describe("endgame (12 empties), time_limit=0.5, exact_empties=12", 0.5, endgame))


if __name__ == "__main__":
    main()
