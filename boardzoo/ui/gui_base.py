"""What the parts of the game window share: its colours, its state and its text drawing.

:class:`~boardzoo.ui.gui.GameWindow` is built from the parts in :mod:`boardzoo.ui.gui_actions`
(moves, undo, new game, pass), :mod:`boardzoo.ui.ai_jobs` (the agents' moves in background
threads), :mod:`boardzoo.ui.gui_overlay` (what is drawn over the board) and
:mod:`boardzoo.ui.gui_panel` (the panel below it); :class:`WindowBase` declares the state they
read and write, which the window sets up.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from boardzoo.envs.board_geometry import BoardGeometry
from boardzoo.envs.pygame_render import BoardRenderer
from boardzoo.ui.game_session import GameSession

if TYPE_CHECKING:
    from boardzoo.ui.background_jobs import AIJob, Analysis, PrepareJob

__all__ = ["Color", "WindowBase", "value_colour"]

Color = tuple[int, int, int]

PANEL_BG: Color = (26, 28, 32)
PANEL_LINE: Color = (52, 56, 62)
TEXT: Color = (236, 236, 236)
DIM: Color = (150, 154, 162)
ERROR: Color = (255, 120, 104)
ACCENT: Color = (244, 196, 70)
BUTTON: Color = (244, 196, 70)
BUTTON_TEXT: Color = (30, 30, 30)
BAR_BG: Color = (60, 64, 72)
HOVER: Color = (255, 255, 255)
LOSS: Color = (255, 122, 108)
WIN: Color = (120, 224, 140)
MESSAGE_SECONDS = 4.0


def value_colour(value: float) -> Color:
    """Green for a likely win, red for a likely loss, amber around even (value in [0, 1])."""
    if value >= 0.55:
        return WIN
    if value <= 0.45:
        return LOSS
    return ACCENT


class WindowBase:
    """The state shared by the parts of :class:`~boardzoo.ui.gui.GameWindow`, and its text
    drawing (fonts cached by size, text shrunk to fit)."""

    session: GameSession
    analysis: bool
    watch_delay: float
    renderer: BoardRenderer
    pg: Any
    geometry: BoardGeometry
    size: tuple[int, int]
    panel_top: int
    panel_height: int
    message: str
    messages: list[str]
    thinking_frames: int
    banner_frames: int
    _panel_main: int
    _legend_height: int
    _message_error: bool
    _message_time: float
    _generation: int
    _job: AIJob | None
    _prepare: PrepareJob | None
    _analysis: Analysis | None
    _position_shown_at: float
    _board_surface: Any
    _board_key: tuple[int, int] | None
    _fonts: dict[int, Any]
    _screen: Any

    def _position_changed(self) -> None:
        self._board_key = None
        self._position_shown_at = time.perf_counter()

    def _font(self, size: int) -> Any:
        if size not in self._fonts:
            self._fonts[size] = self.pg.font.Font(None, size)
        return self._fonts[size]

    # --- text -----------------------------------------------------------------------------------

    def _render(self, font: Any, text: str, colour: Color) -> Any:
        return font.render(text, True, colour)

    def _fit(self, text: str, width: int, size: int, colour: Color, least: int = 12) -> Any:
        """``text`` at ``size`` pixels, or smaller (down to ``least``) so that it fits ``width``."""
        while True:
            image = self._render(self._font(size), text, colour)
            if image.get_width() <= width or size <= least:
                return image
            size -= 1

    def _segments(self, pieces: list[tuple[str, Color]], width: int, size: int) -> Any:
        """Pieces of text in their colours on one line, at ``size`` or smaller to fit ``width``."""
        while True:
            images = [self._render(self._font(size), text, colour) for text, colour in pieces]
            total = sum(image.get_width() for image in images)
            if total <= width or size <= 10:
                break
            size -= 1
        height = max(image.get_height() for image in images)
        line = self.pg.Surface((max(1, total), height), self.pg.SRCALPHA)
        x = 0
        for image in images:
            line.blit(image, (x, (height - image.get_height()) // 2))
            x += image.get_width()
        return line
