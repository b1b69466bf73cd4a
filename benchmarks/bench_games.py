"""Speed of the rules layer and the environments; prints medians of several runs.

    python benchmarks/bench_games.py            # full run (about a minute)
    python benchmarks/bench_games.py --quick    # a smoke run

Figures:
- Reversi perft(9) from the start (3,005,288 leaves): seconds and leaves per second.
- Random Reversi playouts per second on one core: the compiled kernel, 8x8 start position.
- Steps per second of the wrapped ``env()`` for both boardzoo envs, random legal moves through
  ``agent_iter`` / ``last`` / ``step``, next to PettingZoo's own ``tictactoe_v3`` measured the same
  way in the same run, and the ratio of our Reversi env to it.
Targets (issue 2): perft(9) < 0.3 s; >= 150,000 playouts/s; Reversi env >= 1.5x tictactoe_v3.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np

from boardzoo.envs import reversi_v0, tictactoe_v0
from boardzoo.games import ReversiState
from boardzoo.games import reversi_kernels as kernels

PERFT_9 = 3_005_288


def median_time(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``run`` (after one warm-up call)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_perft(repeats: int) -> tuple[float, float]:
    start = ReversiState.initial(8)
    valid = kernels.valid_mask(8)
    assert kernels.perft(start.black, start.white, valid, 9) == PERFT_9
    seconds = median_time(lambda: kernels.perft(start.black, start.white, valid, 9), repeats)
    return seconds, PERFT_9 / seconds


def bench_playouts(count: int, repeats: int) -> float:
    start = ReversiState.initial(8)
    valid = kernels.valid_mask(8)
    seeds = iter(range(10_000))
    seconds = median_time(
        lambda: kernels.random_playouts(start.black, start.white, valid, count, next(seeds)),
        repeats,
    )
    return count / seconds


def run_env_games(make_env: Callable[[], object], steps: int, seed: int) -> int:
    """Play random legal moves through the AEC loop until ``steps`` steps; return the count."""
    picker = random.Random(seed)
    env = make_env()
    done = 0
    game = 0
    while done < steps:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(picker.random() * len(legal))])
            env.step(action)
            done += 1
    env.close()
    return done


def bench_env(make_env: Callable[[], object], steps: int, repeats: int) -> float:
    rates = []
    run_env_games(make_env, steps // 10, seed=0)  # warm-up
    for repeat in range(repeats):
        start = time.perf_counter()
        done = run_env_games(make_env, steps, seed=repeat)
        rates.append(done / (time.perf_counter() - start))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    parser.add_argument("--repeats", type=int, default=None, help="runs per figure (median)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 7)
    playouts = 20_000 if args.quick else 200_000
    steps = 5_000 if args.quick else 100_000

    from pettingzoo.classic import tictactoe_v3

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, median of {repeats} runs")
    seconds, rate = bench_perft(repeats)
    print(f"reversi perft(9): {seconds:.4f} s  ({rate:,.0f} leaves/s)   target < 0.3 s")
    rate = bench_playouts(playouts, repeats)
    print(f"reversi random playouts, 1 core: {rate:,.0f} /s   target >= 150,000 /s")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tictactoe_v3's import prints a deprecation warning
        envs = {
            "boardzoo reversi_v0 (8x8)": reversi_v0.env,
            "boardzoo tictactoe_v0": tictactoe_v0.env,
            "pettingzoo tictactoe_v3": tictactoe_v3.env,
        }
        # Interleave the envs so that machine noise hits them alike.
        rates: dict[str, list[float]] = {name: [] for name in envs}
        for _ in range(repeats):
            for name, make_env in envs.items():
                rates[name].append(bench_env(make_env, steps, repeats=1))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, value in medians.items():
        print(f"env steps/s, {name}: {value:,.0f}")
    ratio = medians["boardzoo reversi_v0 (8x8)"] / medians["pettingzoo tictactoe_v3"]
    print(f"reversi_v0 / pettingzoo tictactoe_v3: {ratio:.2f}x   target >= 1.5x")


if __name__ == "__main__":
    main()
