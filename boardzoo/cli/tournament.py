"""``boardzoo tournament``: a round robin between agents, with Elo ratings."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from boardzoo.arena import render_tournament, tournament
from boardzoo.cli.common import RUNS_DIR, add_command, add_game, new_path
from boardzoo.cli.errors import UserError
from boardzoo.cli.match_options import add_match_options, match_settings

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "tournament", "a round robin with Elo ratings")
    add_game(parser)
    parser.add_argument("agents", nargs="+", metavar="SPEC", help="two or more agent specs")
    parser.add_argument(
        "--out",
        help=f"folder for records, tables and plot (default: a new folder under {RUNS_DIR}/)",
    )
    add_match_options(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    if len(args.agents) < 2:
        raise UserError("a tournament needs at least two agents")
    settings = match_settings(args)
    out = args.out if args.out is not None else new_path(f"tournament-{args.game}", "")
    print(f"boardzoo tournament: writing records, tables and plot to {out}/", file=sys.stderr)
    result = tournament(args.game, args.agents, games=args.games, out=out, **settings)
    print(render_tournament(result))
    print(f"records, tables and plot: {out}/")
    return 0
