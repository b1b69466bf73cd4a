"""Speed and memory of the MCTS agent; prints medians of several runs.

    python benchmarks/bench_mcts.py            # full run (a few minutes)
    python benchmarks/bench_mcts.py --quick    # a smoke run

Figures (results, with the machine and date: ``docs/guides/benchmarks.md``):
- Reversi 8x8 from the start, one core, UCT with random rollouts: simulations per second over
  searches of 100,000 simulations, next to the raw compiled random playout rate measured in the
  same run (the difference is the tree's overhead).
- TicTacToe from the empty board: simulations per second.
- Time limits: how far searches with ``time_limit`` overrun it.
- Memory: bytes per node, and the RSS of a fresh process before and after a 1,000,000-simulation
  Reversi search (the difference is that search's tree).
- ``workers=2``: simulations per second under a time limit, next to one worker in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from boardzoo.agents import BYTES_PER_NODE, MCTSAgent
from boardzoo.agents.settings import Budget, TreeSettings
from boardzoo.games import ReversiState
from boardzoo.games.catalog import make_game
from boardzoo.speed import game_playouts_per_second, mcts_simulations_per_second


def time_limit_overruns(limit: float, searches: int) -> list[float]:
    agent = MCTSAgent(budget=Budget(time_limit=limit), seed=0)
    state = ReversiState.initial(8)
    agent.search(state)
    return [agent.search(state).seconds / limit - 1.0 for _ in range(searches)]


def peak_rss_of_search(simulations: int) -> dict[str, float]:
    """Run one search in a fresh interpreter; report its nodes and peak RSS (MiB)."""
    code = f"""
import json
from boardzoo.agents import Budget, MCTSAgent, TreeSettings
from boardzoo.games import ReversiState

def status_mib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024

agent = MCTSAgent(Budget(simulations=1000), seed=0)
agent.search(ReversiState.initial(8))  # load the compiled code first
before = status_mib("VmRSS:")
agent = MCTSAgent(Budget(simulations={simulations}), tree=TreeSettings(max_nodes=8_000_000), seed=0)
info = agent.search(ReversiState.initial(8))
print(json.dumps({{"nodes": info.tree_nodes, "seconds": info.seconds,
                  "rss_before_mib": before, "rss_peak_mib": status_mib("VmHWM:"),
                  "rss_after_mib": status_mib("VmRSS:")}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def workers_speedup(seconds: float, repeats: int) -> tuple[float, float]:
    state = ReversiState.initial(8)
    rates: dict[int, list[float]] = {1: [], 2: []}
    agents = {
        k: MCTSAgent(budget=Budget(time_limit=seconds), tree=TreeSettings(workers=k), seed=0)
        for k in rates
    }
    for agent in agents.values():
        agent.search(state)
    for _ in range(repeats):  # interleaved, so that machine noise hits both alike
        for k, agent in agents.items():
            rates[k].append(agent.search(state).simulations_per_second)
    return statistics.median(rates[1]), statistics.median(rates[2])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 7
    sims = 10_000 if args.quick else 100_000

    print(f"median of {repeats} runs; {BYTES_PER_NODE} bytes per node")
    reversi = make_game("reversi", board_size=8)
    playouts = game_playouts_per_second(reversi, 20_000 if args.quick else 200_000, repeats)
    rate, nodes = mcts_simulations_per_second("reversi", sims, repeats)
    print(
        f"reversi 8x8 UCT, {sims:,} simulations: {rate:,.0f} sims/s ({nodes:,} nodes)"
        f"; raw random playouts {playouts:,.0f} /s in the same run"
    )
    rate, _ = mcts_simulations_per_second("reversi", sims, repeats, rollout="heuristic")
    print(f"reversi 8x8 UCT, heuristic rollouts: {rate:,.0f} sims/s")
    rate, nodes = mcts_simulations_per_second("tictactoe", sims, repeats)
    print(f"tictactoe UCT, {sims:,} simulations: {rate:,.0f} sims/s")

    overruns = time_limit_overruns(0.1, 5 if args.quick else 30)
    print(
        f"time_limit=0.1 s: overrun median {statistics.median(overruns):+.1%}, "
        f"max {max(overruns):+.1%}"
    )

    one, two = workers_speedup(0.2 if args.quick else 1.0, repeats)
    print(f"workers=2: {two:,.0f} sims/s vs {one:,.0f} with 1 worker: {two / one:.2f}x")

    big = 100_000 if args.quick else 1_000_000
    memory = peak_rss_of_search(big)
    print(
        f"{big:,}-simulation search: {memory['nodes']:,} nodes "
        f"({memory['nodes'] * BYTES_PER_NODE / 2**20:,.0f} MiB of tree), RSS "
        f"{memory['rss_before_mib']:,.0f} MiB before the search, "
        f"{memory['rss_after_mib']:,.0f} MiB after; {memory['seconds']:.1f} s"
    )


if __name__ == "__main__":
    main()
