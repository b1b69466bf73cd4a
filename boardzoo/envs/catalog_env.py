"""The PettingZoo env of any catalog game, made from its catalog entry alone.

A game needs no env module of its own: ``env("mygame", size=4)`` is its AEC env with
PettingZoo's classic wrappers, and ``raw_env("mygame", size=4)`` the env without them. The
keywords are the game's options (each checked against its :class:`~boardzoo.games.spec.GameSpec`)
and the env's ``render_mode`` and ``screen_size``. The game's ``pettingzoo.make`` id
(``spec.aec_id``) points here, with the game's name as a keyword, when its spec names no
``env_module`` (:mod:`boardzoo.envs.registration`). Everything else (agents, spaces,
observations, masks, rewards, rendering, snapshots) is :class:`BoardGameEnv`'s, as for the games
that come with an env module.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from boardzoo.envs.board_env import BoardGameEnv
from boardzoo.envs.env_render import RENDER_MODES
from boardzoo.envs.wrappers import wrap_classic
from boardzoo.games.catalog import make_game

__all__ = ["env", "raw_env"]


def env(game: str, **kwargs: Any) -> AECEnv:
    """Catalog game ``game``'s env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(game, **kwargs))


class raw_env(BoardGameEnv):  # noqa: N801 (PettingZoo's naming)
    """Catalog game ``game`` without wrappers: an illegal action raises ``IllegalMoveError``.

    Its ``metadata["name"]`` is ``"<game>_v0"``.
    """

    def __init__(
        self,
        game: str,
        render_mode: str | None = None,
        screen_size: int = 512,
        **options: Any,
    ) -> None:
        made = make_game(game, **options)  # checks the game and its options
        self.metadata = {  # type: ignore[misc]  # (PettingZoo reads it from the instance; it is per game here)
            "name": f"{made.name}_v0",
            "render_modes": list(RENDER_MODES),
            "render_fps": 2,
            "is_parallelizable": False,
        }
        super().__init__(made, render_mode=render_mode, screen_size=screen_size)
