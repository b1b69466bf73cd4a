"""``boardzoo demo``: a game between random players, printed as text."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from boardzoo.cli.common import add_command, add_game_options, game_options
from boardzoo.games.catalog import default_game, game_names

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "demo", "a game between random players, printed as text")
    parser.add_argument("--game", choices=game_names(), default=default_game(), help="the game")
    add_game_options(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random players")
    parser.add_argument("--quiet", action="store_true", help="print the final position only")
    return parser


def run(args: argparse.Namespace) -> int:
    from boardzoo.demo import play_random_game  # (gymnasium, pettingzoo)

    play_random_game(args.game, options=game_options(args), seed=args.seed, quiet=args.quiet)
    return 0
