"""Rendering as an env needs it: one object shared by the AEC and the single-agent envs.

Any catalog game's state can be drawn: the pictures read only its contract (see
:mod:`boardzoo.envs.text_render` and :mod:`boardzoo.envs.pygame_render`).

It checks the render mode, answers ``"ansi"`` with text, opens a pygame :class:`BoardRenderer`
only on the first ``"human"`` / ``"rgb_array"`` render, and pickles without its window (a copy
reopens one on demand).
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np

from boardzoo.envs.pygame_render import BoardRenderer
from boardzoo.envs.text_render import ansi_board
from boardzoo.errors import InvalidValueError
from boardzoo.games.state import BoardState

RENDER_MODES = ("human", "rgb_array", "ansi")


class EnvRenderer:
    """Draws a game state in an env's ``render_mode`` (``None`` draws nothing, with a warning)."""

    def __init__(
        self,
        render_mode: str | None,
        screen_size: int = 512,
        caption: str = "boardzoo",
        fps: int = 2,
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            allowed = [None, *RENDER_MODES]
            raise InvalidValueError(f"render_mode must be one of {allowed}, got {render_mode!r}")
        if isinstance(screen_size, bool) or not isinstance(screen_size, int) or screen_size < 64:
            raise InvalidValueError(
                f"screen_size must be an int >= 64 (pixels), got {screen_size!r}"
            )
        self.render_mode = render_mode
        self.screen_size = screen_size
        self.caption = caption
        self.fps = fps
        self._window: Any = None  # the pygame renderer, opened on the first pygame render

    def render(self, state: BoardState, last_action: int | None) -> np.ndarray | str | None:
        """A window frame ("human", returns None), an RGB array, or text ("ansi")."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        if self.render_mode == "ansi":
            return ansi_board(state, last_action)
        if self._window is None:
            self._window = BoardRenderer(
                self.render_mode, screen_size=self.screen_size, caption=self.caption, fps=self.fps
            )
        return cast("np.ndarray", self._window.render(state, last_action))

    def close(self) -> None:
        """Release the window, if any; safe to call more than once."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_window"] = None  # pygame surfaces do not copy; a new window opens on demand
        return data
