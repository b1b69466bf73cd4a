"""Registers the environments with PettingZoo and Gymnasium (done on ``import boardzoo``).

Every game of the catalog gets its AEC id (``spec.aec_id``: its env module's ``env``, or the env
made from the catalog, :mod:`boardzoo.envs.catalog_env`, for a game without one) and its
Gymnasium id (``spec.gym_id``, the generic single-agent env with ``game`` set; its
``vector_entry_point`` is the batched env, :mod:`boardzoo.vector`). Nothing here
imports pygame or torch.

How a program reaches the ids:

- ``pettingzoo.make("aec", "boardzoo/reversi-v0")`` needs ``import boardzoo`` once first.
  PettingZoo's registry (``pettingzoo.env_registry``, PettingZoo 1.27) is a dict filled by
  ``register`` calls: ``import pettingzoo`` registers its own envs, and ``make`` looks ids up
  in that dict only. It reads no package entry points and takes no ``"module:id"`` prefix, so
  a package's envs exist only once the package has been imported.
- ``gymnasium.make("boardzoo:boardzoo/Reversi-v0")`` works without the import: Gymnasium imports
  the module named before the colon. Gymnasium 1.x no longer loads plugin entry points
  (``gymnasium.envs``), so plain ``gymnasium.make("boardzoo/Reversi-v0")`` also needs
  ``import boardzoo`` first.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium
import pettingzoo
from pettingzoo import AECEnv

from boardzoo.games.catalog import all_games, get_game

__all__ = ["ENV_ARGUMENTS", "aec_envs", "gymnasium_envs", "make_env", "register_envs"]

SINGLE_AGENT_ENTRY_POINT = "boardzoo.envs.single_agent:BoardGameSingleAgentEnv"
VECTOR_ENTRY_POINT = "boardzoo.vector.env:BoardGameVectorEnv"
CATALOG_ENV_MODULE = "boardzoo.envs.catalog_env"
# Keywords of every env's ``env()`` that are no game options.
ENV_ARGUMENTS = ("render_mode", "screen_size")


def aec_envs() -> dict[str, dict[str, Any]]:
    """AEC id -> the ``pettingzoo.register`` arguments, one per catalog game: its env module's
    ``env``, or the env made from the catalog with the game's name as a keyword."""
    return {
        spec.aec_id: (
            {"entry_point": f"{spec.env_module}:env"}
            if spec.env_module
            else {"entry_point": f"{CATALOG_ENV_MODULE}:env", "kwargs": {"game": spec.name}}
        )
        for spec in all_games()
    }


def gymnasium_envs() -> dict[str, dict[str, Any]]:
    """Gymnasium id -> the ``gymnasium.register`` arguments, one per catalog game: the
    single-agent env, and the batched env as its ``vector_entry_point``."""
    return {
        spec.gym_id: {
            "entry_point": SINGLE_AGENT_ENTRY_POINT,
            "vector_entry_point": VECTOR_ENTRY_POINT,
            "kwargs": {"game": spec.name},
        }
        for spec in all_games()
    }


def register_envs() -> None:
    """Add the catalog's AEC envs to ``pettingzoo.make`` and its single-agent envs to
    ``gymnasium.make``; calling it again adds only the games registered since."""
    for env_id, arguments in aec_envs().items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, **arguments)
    for env_id, arguments in gymnasium_envs().items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, **arguments)


def make_env(game: str, **kwargs: Any) -> AECEnv:
    """The wrapped AEC env of catalog game ``game``.

    ``kwargs`` are the game's options (``board_size=6`` for Reversi) and the env's arguments
    (``render_mode``, ``screen_size``); an option the game does not have is a ``ValueError``
    naming the game's options.
    """
    spec = get_game(game)
    options = {k: v for k, v in kwargs.items() if k not in ENV_ARGUMENTS}
    spec.check_options(options)
    if spec.env_module is None:
        kwargs = {"game": game, **kwargs}
    module = importlib.import_module(spec.env_module or CATALOG_ENV_MODULE)
    env: AECEnv = module.env(**kwargs)
    return env
