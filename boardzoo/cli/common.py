"""What the commands share: the help layout, a command's parser, the ``game`` argument and its
options (``--option NAME=VALUE``, and the flags games declare for theirs, as Reversi's
``--size``) with their reading, the checks of agent specs and of ``--backend``/``--address``, and
where a run goes when no ``--out`` is given."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from boardzoo.agents.registry import check_spec
from boardzoo.cli.errors import UserError
from boardzoo.errors import InvalidTypeError
from boardzoo.games.catalog import all_games, game_names, get_game
from boardzoo.games.spec import Game, GameSpec

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
    parser.add_argument("game", choices=game_names(), help="the game: " + ", ".join(game_names()))


def declared_option_flags() -> dict[str, tuple[str, list[int], list[str]]]:
    """Each flag a catalog game declares for one of its options (``--size``): the option's
    name, every value it takes in some game, and the games that have it."""
    flags: dict[str, tuple[str, list[int], list[str]]] = {}
    for spec in all_games():
        for option in spec.options:
            for flag in option.flags:
                name, values, games = flags.setdefault(flag, (option.name, [], []))
                if name != option.name:
                    raise InvalidTypeError(f"{flag} names two options: {name} and {option.name}")
                values.extend(v for v in option.allowed if v not in values)
                games.append(spec.name)
    return flags


def _dest(option: str) -> str:
    return f"option_{option}"


def _options_text() -> str:
    """Every catalog game's options with their values: ``"reversi: board_size=4|6|8"``."""
    games = [
        f"{spec.name}: "
        + ", ".join(f"{o.name}={'|'.join(map(str, o.allowed))}" for o in spec.options)
        for spec in all_games()
        if spec.options
    ]
    return "; ".join(games) or "none"


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--option NAME=VALUE`` (any option of the game, repeatable) and the shorter flags the
    catalog's games declare for their options (``--size``), read by :func:`game_options`."""
    parser.add_argument(
        "--option",
        dest="game_option",
        action="append",
        default=None,
        metavar="NAME=VALUE",
        help="an option of the game (repeat for several); the options: " + _options_text(),
    )
    declared = declared_option_flags()
    seen: set[str] = set()
    for name, values, games in declared.values():
        if name in seen:
            continue  # the option's other flags are aliases of the first
        seen.add(name)
        aliases = [flag for flag, (other, _, _) in declared.items() if other == name]
        parser.add_argument(
            *aliases,
            dest=_dest(name),
            type=int,
            default=None,
            choices=sorted(values),
            help=f"the {name} option, for games that have one ({', '.join(games)}) "
            "(default: the game's own)",
        )


def options_given(args: argparse.Namespace) -> bool:
    """Whether the command line sets any option of the game."""
    flags = declared_option_flags().values()
    given = [getattr(args, _dest(name), None) for name, _, _ in flags]
    return bool(getattr(args, "game_option", None)) or any(v is not None for v in given)


def game_options(args: argparse.Namespace) -> dict[str, int]:
    """The game's options from the command line (``--option`` and declared flags), checked;
    defaults filled in."""
    spec: GameSpec = get_game(args.game)
    have = ", ".join(option.name for option in spec.options) or "none"
    names = {option.name for option in spec.options}
    chosen: dict[str, int] = {}
    for text in getattr(args, "game_option", []) or []:
        name, equals, value = text.partition("=")
        name = name.strip()
        if not equals or not value.strip().lstrip("-").isdigit():
            example = f"{spec.options[0].name}={spec.options[0].default}" if spec.options else "1"
            raise UserError(f"--option {text!r} is not allowed: write NAME=VALUE, e.g. {example}")
        if name not in names:
            raise UserError(
                f"--option {name}: {spec.name} has no option {name!r} (its options: {have})"
            )
        chosen[name] = int(value)
    for flag, (name, _, _) in declared_option_flags().items():
        value = getattr(args, _dest(name), None)
        if value is None or (name in chosen and chosen[name] == value):
            continue
        if name not in names:
            raise UserError(
                f"{flag} sets the {name} option, and {spec.name} has none (its options: {have})"
            )
        if name in chosen:
            raise UserError(f"{name} is given twice, as {chosen[name]} and {value}: give it once")
        chosen[name] = value
    try:
        return spec.check_options(chosen)
    except ValueError as error:
        raise UserError(str(error)) from None


def check_specs(specs: Sequence[str], game: Game | None = None) -> None:
    """Build every agent spec once and ask each agent whether it can play ``game`` (``None``:
    no such check), so that a mistake fails before any game starts."""
    agents = [spec for spec in specs if spec != "human"]
    if game is None:
        for spec in agents:
            check_spec(spec)
    else:
        from boardzoo.arena.match import check_specs as check_agents

        check_agents(agents, game)


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
