"""Simulations per second of each MCTS enhancement, and of tree parallelism; prints medians.

    python benchmarks/bench_mcts_enhancements.py            # Reversi 8x8 and Connect Four
    python benchmarks/bench_mcts_enhancements.py --quick    # a smoke run

Every variant searches the start position with ``--simulations`` simulations per search (or
``--seconds`` per search, for the parallel rows); the variants take turns, round after round,
so the machine's noise falls on all of them alike, and each figure is the median of
``--rounds`` rounds. Rows:

- ``plain``: plain UCT (``mcts``): the one loop with every rule off.
- each option alone, as ``mcts:<option>``: the one loop compiled with that rule on.
- ``threads=2`` (one shared tree, two threads), ``workers=2`` (two trees) and one thread, under
  the same time limit; and ``threads=2`` against one thread with the same rules (with
  ``minimax_weight=0.3``, with ``rave=true``); on a machine with two free cores the ratio can
  reach 2x.
"""

from __future__ import annotations

import argparse
import statistics

from boardzoo.agents.registry import make_agent
from boardzoo.games.catalog import make_game

OPTIONS = (
    "rave=true",
    "progressive_bias=1",
    "progressive_widening=true",
    "rollout=lgrf",
    "criticality=1",
    "cutoff=8",
    "minimax_weight=0.3",
    "minimax_weight=0.3,eval=learned",
)
PARALLEL = ("threads=1", "threads=2", "workers=2")
# Tree parallelism against one thread of the same (enhanced) loop: the option, then with threads=2.
SAME_LOOP = ("minimax_weight=0.3", "rave=true")


def agent_rate(agent, game) -> float:
    info = agent.search(game.initial_state())
    return info.simulations / info.seconds


def measure(game, simulations: int, seconds: float, rounds: int) -> dict[str, list[float]]:
    agents = {"plain": make_agent(f"mcts:simulations={simulations}", seed=0)}
    for option in OPTIONS:
        try:
            agents[option] = make_agent(f"mcts:simulations={simulations},{option}", seed=0)
            agents[option].search(game.initial_state())  # compile, load nets
        except ValueError as error:
            print(f"  {option}: skipped ({error})")
            agents.pop(option, None)
    for option in PARALLEL:
        extra = "" if option == "threads=1" else f",{option}"
        agents[option] = make_agent(f"mcts:time_limit={seconds}{extra}", seed=0)
    for option in SAME_LOOP:
        for threads in ("", ",threads=2"):
            name = f"{option}{threads} (timed)"
            agents[name] = make_agent(f"mcts:time_limit={seconds},{option}{threads}", seed=0)
    rates: dict[str, list[float]] = {name: [] for name in agents}
    for agent in agents.values():
        agent.search(game.initial_state())
    for _ in range(rounds):
        for name, agent in agents.items():
            rates[name].append(agent_rate(agent, game))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--simulations", type=int, default=50_000)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.quick:
        args.simulations, args.seconds, args.rounds = 2000, 0.1, 2
    for name, options in (("reversi", {"board_size": 8}), ("connect_four", {})):
        game = make_game(name, **options)
        print(f"\n{game.name} {options or ''}: median of {args.rounds} rounds")
        rates = measure(game, args.simulations, args.seconds, args.rounds)
        plain = statistics.median(rates["plain"])
        one = statistics.median(rates["threads=1"])
        print(f"{'variant':<36} {'simulations/s':>14} {'vs plain':>9}")
        for variant, values in rates.items():
            rate = statistics.median(values)
            print(f"{variant:<36} {rate:>14,.0f} {rate / plain:>8.2f}x")
        two = statistics.median(rates["threads=2"])
        print(f"threads=2 / plain UCT, one thread: {two / one:.2f}x")
        for option in SAME_LOOP:
            single = statistics.median(rates[f"{option} (timed)"])
            double = statistics.median(rates[f"{option},threads=2 (timed)"])
            print(f"{option}: threads=2 / one thread of the same loop: {double / single:.2f}x")


if __name__ == "__main__":
    main()
