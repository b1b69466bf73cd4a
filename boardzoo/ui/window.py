"""The pygame window loop shared by the game window and the replay viewer.

:class:`WindowLoop` opens one window (initialising only ``pygame.display`` and ``pygame.font``:
``pygame.init()`` would also open the audio device), polls its events, closes on the window's
close button, **Esc** or **Q**, and hands every other event to a :class:`WindowHandler`; each
frame the handler then moves on (:meth:`WindowHandler.update`) and draws
(:meth:`WindowHandler.draw_frame`), and the loop flips the window when something was drawn and
waits to keep ``fps`` frames a second.

    loop = WindowLoop((640, 700), "boardzoo", fps=30)
    loop.run(handler, max_frames=None)  # until the window is closed

Without ``max_frames`` the window must be one a person can see and close: under SDL's ``dummy``
or ``offscreen`` driver :meth:`WindowLoop.run` closes the handler again and raises
:class:`~boardzoo.ui.display.NoDisplayError`, rather than waiting forever for events that cannot
come.
"""

from __future__ import annotations

from typing import Any, Protocol

from boardzoo.envs.pygame_render import import_pygame
from boardzoo.ui.display import NoDisplayError, headless_driver

__all__ = ["WindowHandler", "WindowLoop"]


class WindowHandler(Protocol):
    """What a window shows and how it reacts: the part that differs between windows."""

    def handle_event(self, event: Any) -> None:
        """React to one pygame event other than closing the window (a click, a key)."""

    def update(self) -> None:
        """Move on by one frame (collect an AI's move, advance a replay...)."""

    def draw_frame(self) -> bool:
        """Draw what changed on the loop's screen; ``True`` when the window is to be flipped."""

    def close(self) -> None:
        """Close the window (through :meth:`WindowLoop.close`) and release what it holds."""


class WindowLoop:
    """One pygame window and its frame loop, for a :class:`WindowHandler`.

    ``screen`` is the window's surface, ``frames`` counts the frames drawn and ``running`` turns
    false once the window is to close (a handler may set it to stop the loop).
    """

    def __init__(self, size: tuple[int, int], caption: str, fps: int = 30) -> None:
        self.pg = import_pygame()
        pg = self.pg
        self.fps = fps
        self.frames = 0
        self.running = True
        self._owns_display = not pg.display.get_init()
        if self._owns_display:
            pg.display.init()
        if not pg.font.get_init():
            pg.font.init()
        self.screen: Any = pg.display.set_mode(size)
        pg.display.set_caption(caption)
        self._clock = pg.time.Clock()

    def closes(self, event: Any) -> bool:
        """Whether ``event`` closes the window: its close button, **Esc** or **Q**."""
        pg = self.pg
        if event.type == pg.QUIT:
            return True
        return bool(event.type == pg.KEYDOWN and event.key in (pg.K_ESCAPE, pg.K_q))

    def step(self, handler: WindowHandler) -> bool:
        """Handle pending events, move on, draw one frame; ``False`` once closing.

        An event that closes the window ends the frame at once (nothing more is drawn).
        """
        for event in self.pg.event.get():
            if self.closes(event):
                self.running = False
            else:
                handler.handle_event(event)
            if not self.running:
                return False
        handler.update()
        if handler.draw_frame():
            self.pg.display.flip()
        self._clock.tick(self.fps)
        self.frames += 1
        return self.running

    def run(self, handler: WindowHandler, max_frames: int | None = None) -> None:
        """Step until the window is closed (or ``max_frames`` frames), then close the handler.

        Without ``max_frames``, under SDL's ``dummy`` or ``offscreen`` driver (no window anyone
        can see or close) the handler is closed again and :class:`NoDisplayError` raised.
        """
        driver = headless_driver(self.pg)
        if max_frames is None and driver is not None:
            handler.close()
            raise NoDisplayError(f"no display: SDL found none and runs its {driver!r} driver")
        try:
            while self.running and (max_frames is None or self.frames < max_frames):
                self.step(handler)
        finally:
            handler.close()

    def close(self) -> None:
        """Close the window (quitting ``pygame.display`` if this loop started it); safe twice."""
        if self._owns_display and self.pg.display.get_init():
            self.pg.display.quit()
        self._owns_display = False
        self.running = False
