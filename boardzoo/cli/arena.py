"""``boardzoo arena``: a match between two agents, its games recorded to a JSONL file."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from boardzoo.arena import play_match, render_match
from boardzoo.cli.common import RUNS_DIR, add_command, add_game, new_path
from boardzoo.cli.match_options import add_match_options, add_sprt, match_settings

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "arena", "a match between two agents")
    add_game(parser)
    parser.add_argument(
        "agents", nargs=2, metavar="SPEC", help="two agent specs, e.g. mcts:simulations=100 greedy"
    )
    parser.add_argument(
        "--out",
        help=f"JSONL file of game records (default: a new file under {RUNS_DIR}/, named after "
        "the game and agents)",
    )
    add_match_options(parser)
    add_sprt(parser)
    return parser


def _slug(text: str) -> str:
    """``text`` as a file-name part: letters, digits and ``._=-``, the rest ``_``."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("_") or "agent"


def run(args: argparse.Namespace) -> int:
    settings = match_settings(args)
    out = args.out
    if out is None:
        out = new_path(f"{args.game}-{_slug(args.agents[0])}-vs-{_slug(args.agents[1])}", ".jsonl")
        out.parent.mkdir(parents=True, exist_ok=True)
    print(f"boardzoo arena: writing the games to {out}", file=sys.stderr)
    result = play_match(args.game, tuple(args.agents), games=args.games, out=out, **settings)
    print(render_match(result))
    return 0
