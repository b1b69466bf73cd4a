"""The catalog: every game by name. Adding a game to boardzoo adds one entry here.

from boardzoo.games.catalog import get_game, make_game
spec = get_game("connect_four")            # the GameSpec: names, sides, options
game = make_game("reversi", board_size=6)  # the Game: shape, action names, kernels, start

A game outside the package joins the catalog at run time, as a Gymnasium env joins
``gymnasium.registry``: ``register_game("mypackage.mygame")`` names the module that holds its
:class:`GameSpec` as ``SPEC``. From then on every part of boardzoo plays it: the envs (registered
with PettingZoo and Gymnasium), the agents, the arena, replays and the warm-up. The module's name
goes into the environment variable :data:`GAMES_VARIABLE` as well, so processes started from
this one (the arena's workers, a ``boardzoo`` command) know the game too; setting that variable
before running ``boardzoo`` (``BOARDZOO_GAMES=mypackage.mygame boardzoo arena mygame ...``) does
the same for the command line.
"""

from __future__ import annotations

import copyreg
import importlib
import os
from collections.abc import Callable
from typing import Any

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import KERNEL_FUNCTIONS, Game, GameSpec
from boardzoo.games.state import BoardState

# name -> the module holding its GameSpec as ``SPEC``: the games that come with boardzoo, first
# the one that commands and experiments play when none is named.
CATALOG: dict[str, str] = {
    "reversi": "boardzoo.games.reversi",
    "tictactoe": "boardzoo.games.tictactoe",
    "connect_four": "boardzoo.games.connect_four",
}
# Modules of games registered at run time, separated by commas (see the module docstring).
GAMES_VARIABLE = "BOARDZOO_GAMES"
# Called with each game registered at run time: ``import boardzoo`` adds the registration of
# its envs with PettingZoo and Gymnasium (:mod:`boardzoo._registration`).
REGISTER_HOOKS: list[Callable[[GameSpec], None]] = []


def _registered_modules() -> list[str]:
    return [m for m in os.environ.get(GAMES_VARIABLE, "").split(",") if m.strip()]


def _load_registered() -> None:
    """Register the games that :data:`GAMES_VARIABLE` names and the catalog lacks."""
    for module in _registered_modules():
        if module.strip() not in CATALOG.values():
            register_game(module.strip())


def game_names() -> tuple[str, ...]:
    """Every game's catalog name, boardzoo's own first, then those registered at run time."""
    _load_registered()
    return tuple(CATALOG)


def default_game() -> str:
    """The game that commands and experiments play when none is named (the catalog's first)."""
    return next(iter(CATALOG))


def check_game(name: str) -> str:
    """``name`` if it is a known game, else a ``ValueError`` listing the games."""
    if name not in CATALOG:
        _load_registered()
    if name not in CATALOG:
        raise InvalidValueError(f"unknown game {name!r}; games: {', '.join(CATALOG)}")
    return name


def register_game(module: str) -> GameSpec:
    """Add the game whose :class:`GameSpec` module ``module`` holds as ``SPEC``; return it.

    The spec's kernel module must define every function of the game contract
    (:data:`~boardzoo.games.spec.KERNEL_FUNCTIONS`). Registering the same module again changes
    nothing; another module with a name already in the catalog is a ``ValueError``. The envs
    are registered with PettingZoo and Gymnasium at once if a program has imported them (and
    otherwise when it does), and ``module`` is added to :data:`GAMES_VARIABLE` for processes
    started from this one.
    """
    try:
        spec = importlib.import_module(module).SPEC
    except (ImportError, AttributeError) as error:
        raise InvalidValueError(f"cannot register game module {module!r}: {error}") from None
    if not isinstance(spec, GameSpec):
        raise InvalidValueError(f"{module}.SPEC must be a GameSpec, got {type(spec).__name__}")
    if CATALOG.get(spec.name, module) != module:
        raise InvalidValueError(
            f"game {spec.name!r} of {module} is already in the catalog, from {CATALOG[spec.name]}"
        )
    kernels = importlib.import_module(spec.kernels)
    missing = [name for name in KERNEL_FUNCTIONS if not hasattr(kernels, name)]
    if missing:
        raise InvalidValueError(f"{spec.kernels} lacks kernels {missing} of the game contract")
    CATALOG[spec.name] = module
    if module not in _registered_modules():
        os.environ[GAMES_VARIABLE] = ",".join([*_registered_modules(), module])
    for hook in REGISTER_HOOKS:
        hook(spec)
    return spec


def get_game(name: str) -> GameSpec:
    """The catalog entry of game ``name`` (a ``ValueError`` listing the games if unknown)."""
    spec: GameSpec = importlib.import_module(CATALOG[check_game(name)]).SPEC
    return spec


def all_games() -> list[GameSpec]:
    """Every game of the catalog, in catalog order."""
    return [get_game(name) for name in game_names()]


def make_game(name: str, **options: Any) -> Game:
    """Game ``name`` with ``options`` (each checked; the others at their defaults)."""
    return get_game(name).make(**options)


def game_of(game: str | Game, **options: Any) -> Game:
    """``game`` itself if it is a :class:`Game` (its options are chosen: giving more is a
    ``ValueError``), else :func:`make_game` of that name with ``options``."""
    if isinstance(game, Game):
        if options:
            raise InvalidValueError(f"options {options} given with a Game: its options are chosen")
        return game
    return make_game(game, **options)


def initial_state(name: str, **options: Any) -> BoardState:
    """The start position of game ``name`` with ``options``."""
    return make_game(name, **options).initial_state()


def _catalog_game(name: str, options: dict[str, int], module: str = "") -> Game:
    """The catalog's game ``name`` with ``options`` (how a pickled :class:`Game` comes back),
    registering ``module`` first in a process that does not know the game yet."""
    if module and name not in CATALOG:
        register_game(module)
    return make_game(name, **options)


def _pickle_game(game: Game) -> tuple[Any, ...]:
    """How a :class:`Game` pickles: by name, options and catalog module, so a copy in another
    process is that process's catalog object."""
    return _catalog_game, (game.spec.name, dict(game.options), CATALOG[game.spec.name])


copyreg.pickle(Game, _pickle_game)


__all__ = [
    "CATALOG",
    "GAMES_VARIABLE",
    "REGISTER_HOOKS",
    "all_games",
    "check_game",
    "default_game",
    "game_names",
    "game_of",
    "get_game",
    "initial_state",
    "make_game",
    "register_game",
]
