"""Speed of the rules layer and the environments; prints medians of several runs.

    python benchmarks/bench_games.py            # full run (about a minute)
    python benchmarks/bench_games.py --quick    # a smoke run

Figures:
- Reversi perft(9) from the start (3,005,288 leaves): seconds and leaves per second.
- Random Reversi playouts per second on one core: the compiled kernel, 8x8 start position.
- Steps per second of the wrapped ``env()`` for both boardzoo envs, random legal moves through
  ``agent_iter`` / ``last`` / ``step``, next to PettingZoo's own ``tictactoe_v3`` measured the same
  way in the same run (interleaved), and the ratio of our Reversi env to it.
Targets (issue 2): perft(9) < 0.3 s; >= 150,000 playouts/s; Reversi env >= 1.5x tictactoe_v3.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from boardzoo.bench import PERFT_9, env_steps_per_second, perft_seconds, playouts_per_second


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    parser.add_argument("--repeats", type=int, default=None, help="runs per figure (median)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 7)

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, median of {repeats} runs")
    seconds = perft_seconds(repeats)
    print(
        f"reversi perft(9): {seconds:.4f} s  ({PERFT_9 / seconds:,.0f} leaves/s)   target < 0.3 s"
    )
    rate = playouts_per_second(20_000 if args.quick else 200_000, repeats)
    print(f"reversi random playouts, 1 core: {rate:,.0f} /s   target >= 150,000 /s")
    rates = env_steps_per_second(5_000 if args.quick else 100_000, repeats)
    for name, value in rates.items():
        print(f"env steps/s, {name}: {value:,.0f}")
    ratio = rates["boardzoo reversi_v0 (8x8)"] / rates["pettingzoo tictactoe_v3"]
    print(f"reversi_v0 / pettingzoo tictactoe_v3: {ratio:.2f}x   target >= 1.5x")


if __name__ == "__main__":
    main()
