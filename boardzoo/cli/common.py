"""What the commands share: the help layout, a command's parser, the ``game`` argument and
``--size`` (the ``board_size`` option) with their reading, the checks of agent specs and of
``--backend``/``--address``, and where a run goes when no ``--out`` is given."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from boardzoo.agents.registry import check_spec
from boardzoo.cli.errors import UserError
from boardzoo.games.catalog import GAME_NAMES, all_games, get_game
from boardzoo.games.spec import GameSpec

if TYPE_CHECKING:
    from typing import TypeAlias

    # What ``build_parser`` hands each command's ``add_parser``: the ``COMMAND`` choices.
    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]

# Where ``arena``, ``tournament`` and ``train`` write when no ``--out`` is given.
RUNS_DIR = Path("runs")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help text that shows each option's default (where it has a meaningful one)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or "default" in text
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


def add_command(commands: Commands, name: str, summary: str) -> argparse.ArgumentParser:
    """The parser of command ``name``; ``summary`` is its line in ``boardzoo --help`` and, as a
    sentence, its own help's description."""
    return commands.add_parser(
        name, help=summary, description=summary[0].upper() + summary[1:] + ".",
        formatter_class=HelpFormatter,
    )  # fmt: skip


def add_game(parser: argparse.ArgumentParser) -> None:
    """The ``game`` argument: a catalog game."""
    parser.add_argument("game", choices=GAME_NAMES, help="the game: " + ", ".join(GAME_NAMES))


def _board_sizes() -> list[int]:
    """Every value the ``board_size`` option takes in some catalog game."""
    sizes = {
        size
        for spec in all_games()
        for option in spec.options
        if option.name == "board_size"
        for size in option.allowed
    }
    return sorted(sizes)


def add_size(parser: argparse.ArgumentParser) -> None:
    """``--size``: the ``board_size`` option, read by :func:`game_options`."""
    games = [spec.name for spec in all_games() if any(o.name == "board_size" for o in spec.options)]
    parser.add_argument(
        "--size",
        "--board-size",
        dest="size",
        type=int,
        default=None,
        choices=_board_sizes(),
        help=f"board size, for games with a board_size option ({', '.join(games)}) "
        "(default: the game's own, 8 for reversi)",
    )


def game_options(args: argparse.Namespace) -> dict[str, int]:
    """The game's options from the command line (``--size``), checked; defaults filled in."""
    spec: GameSpec = get_game(args.game)
    chosen: dict[str, int] = {}
    if args.size is not None:
        if not any(option.name == "board_size" for option in spec.options):
            have = ", ".join(option.name for option in spec.options) or "none"
            raise UserError(
                f"--size sets the board_size option, and {spec.name} has none (its options: {have})"
            )
        chosen["board_size"] = args.size
    return spec.check_options(chosen)


def check_specs(specs: Sequence[str]) -> None:
    """Build every agent spec once, so that a mistake fails before any game starts."""
    for spec in specs:
        if spec != "human":
            check_spec(spec)


def check_backend(args: argparse.Namespace) -> None:
    """``--backend ray`` needs Ray installed, and ``--address`` needs ``--backend ray``."""
    if args.address is not None and args.backend != "ray":
        raise UserError(f"--address {args.address} is for --backend ray")
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise UserError(
            "--backend ray needs Ray, an optional dependency: pip install 'boardzoo[ray]'"
        )


def new_path(stem: str, suffix: str) -> Path:
    """``runs/<stem><suffix>``, or ``runs/<stem>-2<suffix>``, ... : the first that is free."""
    path = RUNS_DIR / f"{stem}{suffix}"
    number = 2
    while path.exists():
        path = RUNS_DIR / f"{stem}-{number}{suffix}"
        number += 1
    return path
