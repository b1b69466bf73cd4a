"""The game of an experiment and its options, from its arguments' ``game`` and ``options``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import get_game

__all__ = [
    "OPTIONS_HELP",
    "game_label",
    "game_options",
    "parse_option_texts",
    "resolve_game",
    "with_format_1_options",
]

T = TypeVar("T")

OPTIONS_HELP = (
    "the game's options, NAME=VALUE each (default: the script's, else the game's; a trained "
    "model's options too)"
)


def parse_option_texts(texts: tuple[str, ...] | list[str]) -> dict[str, int]:
    """``("board_size=6",)`` -> ``{"board_size": 6}``; a ``ValueError`` for a malformed entry."""
    options: dict[str, int] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        try:
            number = int(value)
        except ValueError:
            number = None
        if not equals or not name.strip() or number is None:
            raise InvalidValueError(
                f"game options are NAME=VALUE with an integer VALUE, got {text!r}"
            )
        options[name.strip()] = number
    return options


def game_options(args: Any) -> dict[str, int]:
    """Every option of ``args.game`` from ``args.options``, checked; options not given take the
    game's defaults.

    Raises:
        SystemExit: an unknown game, option or value, with a one-line message (an option the
            game does not have names the game's options).
    """
    try:
        return get_game(args.game).check_options(parse_option_texts(args.options))
    except ValueError as error:
        raise SystemExit(f"--game {args.game}: {error}") from None


def game_label(args: Any) -> str:
    """The game of ``args`` and its options for titles: ``"reversi 8x8"``, ``"connect_four"``."""
    return get_game(args.game).make(**game_options(args)).label


def resolve_game(args: T, defaults: Mapping[str, int] | None = None) -> T:
    """``args`` with the game checked and every one of its options written out in
    ``args.options``: those given, else the script's ``defaults`` for options the game has
    (``{"board_size": 6}`` for a quick run), else the game's; so ``args.json`` shows the game
    played.

    Raises:
        SystemExit: a bad game or option, with a one-line message.
    """
    current: Any = args
    try:
        spec = get_game(current.game)
    except ValueError as error:
        raise SystemExit(f"--game: {error}") from None
    try:
        given = parse_option_texts(current.options)
    except ValueError as error:
        raise SystemExit(f"--game {current.game}: {error}") from None
    have = {option.name for option in spec.options}
    chosen = {k: v for k, v in (defaults or {}).items() if k in have} | given
    texts = tuple(f"{k}={v}" for k, v in chosen.items())
    options = game_options(dataclasses.replace(current, options=texts))
    return dataclasses.replace(current, options=tuple(f"{k}={v}" for k, v in options.items()))  # type: ignore[no-any-return]  # (dataclasses.replace of a T is a T)


def with_format_1_options(saved: dict[str, Any]) -> dict[str, Any]:
    """A run's saved settings with its game's options in ``options``: runs saved before the
    game options were one setting wrote each as a setting of its own."""
    try:
        names = [option.name for option in get_game(str(saved.get("game"))).options]
    except ValueError:
        return saved
    texts = list(saved.get("options", []))
    for name in names:
        value = saved.get(name)
        if value is not None and not any(t.startswith(f"{name}=") for t in texts):
            texts.append(f"{name}={value}")
    return {**saved, "options": texts} if names else saved
