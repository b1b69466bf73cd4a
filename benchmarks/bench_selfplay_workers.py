"""Self-play games a second with 1 and 2 workers: in the learner's process, local worker
processes, and Ray actors (on a Ray instance kept on loopback); prints medians.

    python benchmarks/bench_selfplay_workers.py            # Connect Four, the training defaults
    python benchmarks/bench_selfplay_workers.py --quick    # a smoke run
    python benchmarks/bench_selfplay_workers.py --no-ray   # without the Ray rows

Each row plays one iteration's self-play (``--games`` games, ``--simulations`` a move, the
network of ``boardzoo train``'s defaults with random weights) ``--rounds`` times, the rows taking
turns; the pools are started and warmed up (one iteration) before timing, so the figures are the
steady state of a training run. Ray runs inside a private network namespace with only loopback
(tests/raycluster.py): the benchmark starts itself again there for the Ray rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from boardzoo.az.selfplay import SelfPlaySettings
from boardzoo.az.selfplay_pool import (
    ProcessSelfPlayPool,
    RaySelfPlayPool,
    SelfPlayJob,
    SelfPlayPool,
    play_job,
    split_games,
    weights_of,
)
from boardzoo.games.catalog import make_game
from boardzoo.learned.network import AZNet, NetworkSettings
from boardzoo.search.batched import BatchedSearchSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import raycluster


def jobs_for(workers: int, games: int, simulations: int, game_name: str) -> list[SelfPlayJob]:
    config = NetworkSettings.for_game(make_game(game_name), channels=64, blocks=4, value_hidden=64)
    return [
        SelfPlayJob(
            config,
            BatchedSearchSettings(gumbel=True, gumbel_k=16),
            SelfPlaySettings(simulations=simulations),
            parallel_games=min(64, share),
            games=share,
            search_seed=k,
            move_seed=100 + k,
        )
        for k, share in enumerate(split_games(games, workers))
    ]


def timed(pool: SelfPlayPool | None, jobs: list[SelfPlayJob], weights: dict) -> float:
    start = time.perf_counter()
    if pool is None:
        for job in jobs:
            play_job(job, weights)
    else:
        pool.play(jobs, weights)
    return time.perf_counter() - start


def measure(args: argparse.Namespace, ray_address: str | None) -> dict[str, list[float]]:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = NetworkSettings.for_game(make_game(args.game), channels=64, blocks=4, value_hidden=64)
    weights = weights_of(AZNet(config).eval())

    def jobs(workers: int) -> list[SelfPlayJob]:
        return jobs_for(workers, args.games, args.simulations, args.game)

    rows: dict[str, tuple[SelfPlayPool | None, list[SelfPlayJob]]] = {}
    if ray_address is None:
        rows["in the learner's process (1 worker)"] = (None, jobs(1))
        rows["local processes, 2 workers"] = (ProcessSelfPlayPool(2), jobs(2))
    else:
        rows["Ray actors, 1 worker"] = (RaySelfPlayPool(1, ray_address), jobs(1))
        rows["Ray actors, 2 workers"] = (RaySelfPlayPool(2, ray_address), jobs(2))
    for pool, jobs in rows.values():
        timed(pool, jobs, weights)  # start-up and compilation, not timed
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.rounds):
        for name, (pool, jobs) in rows.items():
            rates[name].append(args.games / timed(pool, jobs, weights))
    for pool, _ in rows.values():
        if pool is not None:
            pool.close()
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray rows")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.games, args.simulations, args.rounds = 8, 4, 1
    if args.inside:  # the Ray rows, inside the loopback namespace
        address = raycluster.start_head(num_cpus=3)  # a CPU for each actor of both Ray rows
        try:
            import ray

            ray.init(address=address, logging_level="WARNING")
            print("RESULT " + json.dumps(measure(args, address)), flush=True)
            ray.shutdown()
        finally:
            raycluster.stop_all()
        return
    print(f"{args.game}: {args.games} games a round, {args.simulations} simulations a move, "
          f"median of {args.rounds} rounds (games/s)")  # fmt: skip
    rates = measure(args, None)
    if not args.no_ray:
        reason = raycluster.namespace_unavailable()
        if reason is not None:
            print(f"Ray rows skipped: {reason}")
        else:
            argv = [sys.executable, __file__, "--inside", "--game", args.game, "--games",
                    str(args.games), "--simulations", str(args.simulations), "--rounds",
                    str(args.rounds)]  # fmt: skip
            done = raycluster.run_in_loopback_namespace(argv, timeout=1800)
            lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
            if not lines:
                print(f"Ray rows failed:\n{done.stdout}\n{done.stderr}")
            else:
                rates |= json.loads(lines[-1].removeprefix("RESULT "))
    base = statistics.median(next(iter(rates.values())))
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"{name:<40} {rate:>8.2f} games/s  {rate / base:.2f}x")


if __name__ == "__main__":
    main()
