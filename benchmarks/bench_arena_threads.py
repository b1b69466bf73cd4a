"""Network agents in games played at once: the arena's core sharing against every agent on
every core.

    python benchmarks/bench_arena_threads.py                     # AlphaZero at 100 simulations
    python benchmarks/bench_arena_threads.py --agent az:simulations=400 --games 4 --repeats 5

With ``--workers 2`` or more the local arena gives each worker process's agents
``OMP_NUM_THREADS`` = cores / workers (:attr:`boardzoo.arena.LocalBackend.threads_a_game`). This
script plays the same match (``--agent`` against itself, ``--games`` games on ``--workers``
workers, ``boardzoo arena``) with that default ("shared") and with ``OMP_NUM_THREADS`` set to the
number of cores ("every core", how the arena ran before), the two taking turns ``--repeats``
times. Printed, nothing asserted: the median seconds of thinking a game (both agents' moves, from
the records) and of the whole command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def play(
    agent: str, game: str, games: int, workers: int, threads: str | None
) -> tuple[float, float]:
    """One match in a new process: (median thinking seconds a game, wall seconds)."""
    environment = dict(os.environ)
    environment.pop("OMP_NUM_THREADS", None)
    if threads is not None:
        environment["OMP_NUM_THREADS"] = threads
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "games.jsonl"
        command = [sys.executable, "-m", "boardzoo", "arena", game, agent, agent,
                   "--games", str(games), "--workers", str(workers), "--no-progress",
                   "--out", str(out)]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if done.returncode:
            raise SystemExit(f"the match failed:\n{done.stderr[-2000:]}")
        records = [json.loads(line) for line in out.read_text().splitlines()]
    thinking = [sum(t for t in record["move_times"] if t) for record in records]
    return statistics.median(thinking), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--agent", default="az:simulations=100",
        help="the agent spec playing itself (default: az:simulations=100)",
    )  # fmt: skip
    parser.add_argument("--game", default="reversi", help="a catalog game (default: reversi)")
    parser.add_argument("--games", type=int, default=2, help="games a match (default: 2)")
    parser.add_argument("--workers", type=int, default=2, help="arena workers (default: 2)")
    parser.add_argument("--repeats", type=int, default=3, help="matches each way (default: 3)")
    args = parser.parse_args()
    for name in ("games", "workers", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    cores = str(os.cpu_count() or 1)
    ways = {"shared": None, "every core": cores}
    figures: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    for _ in range(args.repeats):
        for way, threads in ways.items():
            figures[way].append(play(args.agent, args.game, args.games, args.workers, threads))
    print(f"{args.agent} vs itself, {args.game}, {args.games} games on {args.workers} workers, "
          f"{cores} cores; medians of {args.repeats} matches, taking turns")  # fmt: skip
    print(f"{'threads':>12} {'thinking s/game':>16} {'wall s':>8}")
    for way, runs in figures.items():
        thinking = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{way:>12} {thinking:>16.2f} {wall:>8.2f}")


if __name__ == "__main__":
    main()
