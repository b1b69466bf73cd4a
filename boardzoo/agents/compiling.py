"""A visible line on stderr while compiled code is being compiled rather than loaded.

Loading a game's compiled search from numba's on-disk cache takes a few hundredths of a second;
compiling it (the first run after installing, or after the code changed) takes seconds. A step
wrapped in :func:`compile_notice` that is still running after :data:`NOTICE_AFTER` seconds is
compiling, so it prints ``boardzoo: compiling the MCTS search for reversi (first run only, about
10 s)...`` and, when it ends, ``done in 9.8 s``. A step served from the cache prints nothing.

Timing, rather than reading numba's cache index, works whichever part of the code (the search,
the tree operations, the game's kernels) needs compiling, and with any numba version.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["NOTICE_AFTER", "compile_notice", "notices_enabled", "set_notices"]

# Loading from the cache takes well under a tenth of this, even on a busy machine.
NOTICE_AFTER = 1.0

_enabled = True


def set_notices(enabled: bool) -> None:
    """Turn the compile notices on or off (:mod:`boardzoo.warmup` shows its own progress)."""
    global _enabled
    _enabled = bool(enabled)


def notices_enabled() -> bool:
    """Whether :func:`compile_notice` prints."""
    return _enabled


@contextmanager
def compile_notice(what: str, about_seconds: int) -> Iterator[None]:
    """Print a line on stderr if the body runs longer than :data:`NOTICE_AFTER` (compiling).

    Args:
        what: what is compiled, e.g. ``"the MCTS search for reversi"``.
        about_seconds: the usual compile time, shown in the notice.
    """
    if not _enabled:
        yield
        return
    start = time.perf_counter()
    lock = threading.Lock()
    state = {"printed": False, "finished": False}

    def announce() -> None:
        with lock:
            if state["finished"]:
                return
            state["printed"] = True
            print(
                f"boardzoo: compiling {what} (first run only, about {about_seconds} s)...",
                end="",
                file=sys.stderr,
                flush=True,
            )

    timer = threading.Timer(NOTICE_AFTER, announce)
    timer.daemon = True
    timer.start()
    outcome = "failed"
    try:
        yield
        outcome = "done"
    finally:
        timer.cancel()
        with lock:
            state["finished"] = True
            if state["printed"]:
                seconds = time.perf_counter() - start
                print(f" {outcome} in {seconds:.1f} s", file=sys.stderr, flush=True)
