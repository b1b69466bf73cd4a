"""The catalog: every game by name. Adding a game adds one entry here.

from boardzoo.games.catalog import get_game, make_game
spec = get_game("connect_four")            # the GameSpec: names, sides, options
game = make_game("reversi", board_size=6)  # the Game: shape, action names, kernels, start
"""

from __future__ import annotations

import copyreg
import importlib
from typing import Any

from boardzoo.games.spec import Game, GameSpec
from boardzoo.games.state import BoardState

# name -> the module holding its GameSpec as ``SPEC``.
CATALOG: dict[str, str] = {
    "reversi": "boardzoo.games.reversi",
    "tictactoe": "boardzoo.games.tictactoe",
    "connect_four": "boardzoo.games.connect_four",
}
GAME_NAMES = tuple(CATALOG)


def check_game(name: str) -> str:
    """``name`` if it is a known game, else a ``ValueError`` listing the games."""
    if name not in CATALOG:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAME_NAMES)}")
    return name


def get_game(name: str) -> GameSpec:
    """The catalog entry of game ``name``."""
    spec: GameSpec = importlib.import_module(CATALOG[check_game(name)]).SPEC
    return spec


def all_games() -> list[GameSpec]:
    """Every game of the catalog, in catalog order."""
    return [get_game(name) for name in GAME_NAMES]


def make_game(name: str, **options: Any) -> Game:
    """Game ``name`` with ``options`` (each checked; the others at their defaults)."""
    return get_game(name).make(**options)


def game_of(game: str | Game, **options: Any) -> Game:
    """``game`` itself if it is a :class:`Game` (its options are chosen: giving more is a
    ``ValueError``), else :func:`make_game` of that name with ``options``."""
    if isinstance(game, Game):
        if options:
            raise ValueError(f"options {options} given with a Game: its options are chosen")
        return game
    return make_game(game, **options)


def initial_state(name: str, **options: Any) -> BoardState:
    """The start position of game ``name`` with ``options``."""
    return make_game(name, **options).initial_state()


def _catalog_game(name: str, options: dict[str, int]) -> Game:
    """The catalog's game ``name`` with ``options`` (how a pickled :class:`Game` comes back)."""
    return make_game(name, **options)


def _pickle_game(game: Game) -> tuple[Any, ...]:
    """How a :class:`Game` pickles: by name and options, so a copy in another process is the
    catalog's object."""
    return _catalog_game, (game.spec.name, dict(game.options))


copyreg.pickle(Game, _pickle_game)


__all__ = [
    "CATALOG",
    "GAME_NAMES",
    "all_games",
    "check_game",
    "game_of",
    "get_game",
    "initial_state",
    "make_game",
]
