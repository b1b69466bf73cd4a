"""Speed of the rules layer and the environments of every catalog game; prints medians.

    python benchmarks/bench_games.py                    # full run (a minute or two)
    python benchmarks/bench_games.py --quick            # a smoke run
    python benchmarks/bench_games.py --game connect_four

Figures, for every catalog game (or the ``--game`` ones) with its default options, measured the
same way through the game contract (:mod:`boardzoo.speed`):
- perft from the start on the game's compiled kernels: the depth, the leaves (checked against a
  count known from outside the code where there is one: Reversi 8x8 perft(9) = 3,005,288,
  TicTacToe perft(9) = 255,168 games, Connect Four perft(9) = 39,452,034), seconds and
  leaves/s;
- random playouts per second on one core (the game's compiled rollout kernel, start position);
- steps per second of each game's wrapped ``env()``, random legal moves through ``agent_iter`` /
  ``last`` / ``step``, next to PettingZoo's own ``tictactoe_v3`` and ``connect_four_v3`` measured
  the same way in the same run (interleaved), and each env's ratio to ``tictactoe_v3``.
Results, with the machine and date: ``docs/guides/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from boardzoo.games.catalog import game_names, get_game
from boardzoo.speed import (
    env_label,
    env_steps_per_second,
    game_playouts_per_second,
    peer_envs,
    perft_figure,
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    parser.add_argument("--repeats", type=int, default=None, help="runs per figure (median)")
    parser.add_argument(
        "--game", action="append", choices=game_names(), help="games to time (default: all)"
    )
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 7)
    games = [get_game(name).make() for name in (args.game or game_names())]

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, median of {repeats} runs")
    for game in games:
        depth, leaves, seconds = perft_figure(game, repeats)
        print(
            f"{game.label} perft({depth}): {seconds:.4f} s, {leaves:,} leaves "
            f"({leaves / seconds:,.0f} leaves/s)"
        )
        rate = game_playouts_per_second(game, 20_000 if args.quick else 200_000, repeats)
        print(f"{game.label} random playouts, 1 core: {rate:,.0f} /s")
    rates = env_steps_per_second(5_000 if args.quick else 100_000, repeats, games)
    for name, value in rates.items():
        print(f"env steps/s, {name}: {value:,.0f}")
    yardstick = next(iter(peer_envs()))  # the first peer env (PettingZoo's TicTacToe)
    for game in games:
        name = env_label(game)
        print(f"{name} / {yardstick}: {rates[name] / rates[yardstick]:.2f}x")


if __name__ == "__main__":
    main()
