"""``boardzoo play``: a game against the AI (or two agents watched), in a pygame window or the
terminal; the players come from ``--first``/``--second`` or the game's side flags (``--black``,
``--x``, ``--red``, ...)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from boardzoo.cli.common import add_command, add_game, add_game_options, check_specs, game_options
from boardzoo.cli.errors import UserError
from boardzoo.games.catalog import all_games, get_game, make_game

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands

# The defaults of ``play``: a person moves first against MCTS.
DEFAULT_PLAYERS = ("human", "mcts:time_limit=1")


def side_flag(side: str) -> str:
    """The ``play`` flag of a side: ``--black``, ``--x``, ``--red``."""
    return "--" + side.lower()


def _side_dest(side: str) -> str:
    return "side_" + side.lower()


def _all_sides() -> list[str]:
    """Every side name of every catalog game, lower case, each once, in catalog order."""
    sides: list[str] = []
    for spec in all_games():
        sides.extend(side.lower() for side in spec.sides if side.lower() not in sides)
    return sides


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "play", "play a game against the AI (or watch two agents)")
    add_game(parser)
    parser.add_argument(
        "--first",
        metavar="SPEC",
        help=f"the player who moves first: 'human' or an agent spec (default {DEFAULT_PLAYERS[0]})",
    )
    parser.add_argument(
        "--second",
        metavar="SPEC",
        help=f"the player who moves second (default {DEFAULT_PLAYERS[1]})",
    )
    for side in _all_sides():
        games = [s.name for s in all_games() if side in (n.lower() for n in s.sides)]
        parser.add_argument(
            side_flag(side),
            dest=_side_dest(side),
            metavar="SPEC",
            help=f"the {side} player in {', '.join(games)} (same as --first/--second)",
        )
    parser.add_argument(
        "--ui",
        choices=["window", "text"],
        default="window",
        help="a pygame window, or the terminal; without a display the terminal is used",
    )
    add_game_options(parser)
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the AI players (default: a random one)"
    )
    parser.add_argument(
        "--analysis", action="store_true", help="show the AI's analysis (window only)"
    )
    return parser


def _players(args: argparse.Namespace) -> tuple[str, str]:
    """The two players of ``play``, from ``--first``/``--second`` or the game's side flags."""
    spec = get_game(args.game)
    own = [side.lower() for side in spec.sides]
    flags = "/".join(side_flag(side) for side in own)
    for side in _all_sides():
        if side not in own and getattr(args, _side_dest(side)) is not None:
            raise UserError(
                f"{side_flag(side)} is not a {spec.name} player; use {flags} or --first/--second"
            )
    players = []
    for index, (order, side) in enumerate(zip(("first", "second"), own, strict=True)):
        by_order, by_side = getattr(args, order), getattr(args, _side_dest(side))
        if by_order is not None and by_side is not None:
            raise UserError(
                f"--{order} and {side_flag(side)} both name the {order} player of {spec.name}: "
                "give one of them"
            )
        chosen = by_order if by_order is not None else by_side
        players.append(chosen if chosen is not None else DEFAULT_PLAYERS[index])
    return players[0], players[1]


def run(args: argparse.Namespace) -> int:
    players = _players(args)
    options = game_options(args)
    check_specs(players, make_game(args.game, **options))
    ui = args.ui
    if ui == "window":
        from boardzoo.ui import display_problem  # (gymnasium, pettingzoo)

        problem = display_problem()
        if problem is not None:
            print(f"boardzoo play: {problem}; playing in the terminal (--ui text)", file=sys.stderr)
            ui = "text"
    if ui == "text":
        from boardzoo.ui import run_text_ui  # (gymnasium, pettingzoo)

        run_text_ui(args.game, players, options=options, seed=args.seed)
    else:
        from boardzoo.ui import NoDisplayError, run_gui, run_text_ui  # (gymnasium, pettingzoo)

        try:
            run_gui(args.game, players, options=options, seed=args.seed, analysis=args.analysis)
        except NoDisplayError as error:  # a display that is set but cannot be used
            print(
                f"boardzoo play: {error.reason}; playing in the terminal (--ui text)",
                file=sys.stderr,
            )
            run_text_ui(args.game, players, options=options, seed=args.seed)
    return 0
