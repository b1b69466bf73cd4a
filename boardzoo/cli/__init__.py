"""The ``boardzoo`` command line.

    boardzoo play reversi --black human --white mcts:time_limit=1      # pygame window
    boardzoo play tictactoe --x mcts --o human --ui text               # terminal
    boardzoo play connect_four --first human --second mcts:time_limit=1 --ui text
    boardzoo arena reversi mcts:simulations=1000 greedy --games 200 --workers 2 --out runs/m1.jsonl
    boardzoo arena reversi mcts:time_limit=0.1 alphabeta:depth=4 --openings xot.txt --games 200
    boardzoo arena tictactoe mcts:simulations=200 random --sprt elo0=0,elo1=100 --games 1000
    boardzoo tournament reversi random greedy alphabeta:depth=4 --games 50 --out runs/t1
    boardzoo replay runs/m1.jsonl --game 3 [--gif game3.gif]
    boardzoo solve reversi --position "O--OOOOX-OOOOOOXOOXXOOOX...--- X"   # exact score, best move
    boardzoo probcut reversi --size 8 --evaluation learned --max-depth 10   # multi-ProbCut's fits
    boardzoo agents [mcts]                                             # agents and their options
    boardzoo bench
    boardzoo demo --game connect_four                                  # a random game as text
    boardzoo --version

The games, their sides (``play``'s ``--black``/``--white``, ``--x``/``--o``, ``--red``/``--yellow``)
and their options (``--size``: the ``board_size`` option, where a game has one) all come from the
catalog (:mod:`boardzoo.games.catalog`). A mistake in the arguments (an unknown game or agent, a
bad value, an unreadable file) prints one line naming it and exits with status 2; it never shows a
traceback (``BOARDZOO_DEBUG=1`` shows it). Every agent spec is built once before anything starts,
so a bad value fails at once rather than as forfeited games.

The user interfaces and the demo load gymnasium and pettingzoo, so only the commands that use
them import them: every other command (and ``--help``) starts without.

Each command is a module of this package with ``add_parser(commands)`` (its flags and help) and
``run(args) -> int``; :mod:`~boardzoo.cli.common` holds what they share,
:mod:`~boardzoo.cli.match_options` the flags of ``arena`` and ``tournament``, and
:mod:`~boardzoo.cli.errors` how a mistake is reported.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from boardzoo import __version__
from boardzoo.cli import (
    agents,
    arena,
    bench,
    demo,
    play,
    probcut,
    replay,
    solve,
    tournament,
    train,
)
from boardzoo.cli.common import HelpFormatter
from boardzoo.cli.errors import UserError, cli_words, error_text, os_error_text
from boardzoo.errors import BoardzooError

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands

__all__ = ["COMMANDS", "UserError", "build_parser", "cli_words", "main", "os_error_text"]


class Command(Protocol):
    """A command's module."""

    def add_parser(self, commands: Commands) -> argparse.ArgumentParser: ...

    def run(self, args: argparse.Namespace) -> int: ...


# The commands, in the order ``boardzoo --help`` lists them.
COMMANDS: dict[str, Command] = {
    "play": play,
    "arena": arena,
    "tournament": tournament,
    "replay": replay,
    "train": train,
    "solve": solve,
    "probcut": probcut,
    "agents": agents,
    "bench": bench,
    "demo": demo,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardzoo",
        description="Board games, MCTS agents and matches between them.",
        epilog="Agent specs: NAME[:KEY=VALUE,...], e.g. mcts:simulations=1000,c=1.4 or "
        "alphabeta:depth=4; `boardzoo agents` lists every agent and its options.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"boardzoo {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command].run(args)
    except KeyboardInterrupt:
        print("boardzoo: interrupted", file=sys.stderr)
        return 130
    except (BoardzooError, ValueError, OSError) as error:
        # BoardzooError covers everything the package refuses (UserError, AgentSpecError,
        # RecordError, IllegalMoveError, ...); ValueError what the libraries under it refuse;
        # OSError missing and unreadable files. BOARDZOO_DEBUG=1 shows the traceback instead.
        if os.environ.get("BOARDZOO_DEBUG"):
            raise
        print(f"boardzoo {args.command}: error: {error_text(error)}", file=sys.stderr)
        return 2
