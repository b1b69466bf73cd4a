"""Whether a window can be shown, checked before pygame opens anything.

Without a display, SDL does not fail: it falls back to its ``offscreen`` video driver and "opens"
a window nobody can see, which then waits forever for a click or a close that cannot come. The
window interfaces therefore ask :func:`display_problem` first and raise :class:`NoDisplayError`
instead of starting, and check the driver SDL really chose once it is running (see
:func:`headless_driver`).

    problem = display_problem()
    if problem is not None:
        print(f"{problem}: playing in the terminal instead")
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from boardzoo.errors import BoardzooError

__all__ = ["HEADLESS_DRIVERS", "NoDisplayError", "display_problem", "headless_driver"]

#: SDL video drivers that draw no window anyone can see.
HEADLESS_DRIVERS = ("dummy", "offscreen")


class NoDisplayError(BoardzooError, RuntimeError):
    """A window was asked for where none can be shown (no display, or a headless SDL driver).

    ``reason`` is the short reason given by :func:`display_problem`.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"cannot open a window: {reason}")
        self.reason = reason

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from the reason (not the message), so a pickled one reads the same.
        return type(self), (self.reason,)


def display_problem(
    environ: Mapping[str, str] | None = None, platform: str | None = None
) -> str | None:
    """Why no window can be shown here, or ``None`` when one can.

    A cheap check of the environment, made before pygame is imported: ``SDL_VIDEODRIVER`` set to
    ``dummy`` or ``offscreen`` (SDL's drivers without a window) is a problem everywhere; on Linux
    and the other Unix systems, so is having neither ``DISPLAY`` (X11) nor ``WAYLAND_DISPLAY``.
    macOS and Windows always have a display to offer.

    Args:
        environ: the environment variables to read (default ``os.environ``).
        platform: the platform as ``sys.platform`` names it (default this one).

    Returns:
        ``None``, or a short reason such as ``"no display: DISPLAY and WAYLAND_DISPLAY are not
        set"``.
    """
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    drivers = [d.strip().lower() for d in env.get("SDL_VIDEODRIVER", "").split(",") if d.strip()]
    if drivers and all(driver in HEADLESS_DRIVERS for driver in drivers):
        return f"no display: SDL_VIDEODRIVER={env['SDL_VIDEODRIVER']} shows no window"
    if drivers or platform in ("darwin", "win32", "cygwin"):
        return None  # a driver chosen by hand (it fails loudly if it cannot start), or a desktop
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return "no display: DISPLAY and WAYLAND_DISPLAY are not set"
    return None


def headless_driver(pygame: Any) -> str | None:
    """The name of the video driver pygame runs, if it shows no window (``"offscreen"``...).

    ``None`` when ``pygame.display`` is not initialised or its driver shows windows. SDL picks
    ``offscreen`` by itself when it finds no display, so this catches what
    :func:`display_problem` could not see from the environment (a ``DISPLAY`` naming a server
    that is not there, say).
    """
    if not pygame.display.get_init():
        return None
    driver = str(pygame.display.get_driver()).lower()
    return driver if driver in HEADLESS_DRIVERS else None
