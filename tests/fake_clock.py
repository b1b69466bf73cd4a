"""Clocks a test sets by hand, read by the code under test instead of the machine's.

A test that times a search with the wall clock passes or fails with the machine's load. Where the
code reads its clock from Python, a test gives it one of these instead:

- :class:`FakeTime` stands in for the ``time`` module of the modules under test
  (:meth:`FakeTime.install`): their ``time.perf_counter()`` and ``time.monotonic()`` read
  ``now``, which moves only when the test moves it (:meth:`FakeTime.advance`, or ``tick`` at
  each reading); the rest of ``time`` is the real module.
- :func:`shifted_ns` stands in for :func:`boardzoo.clock.monotonic_ns` where Python reads it to
  set the deadline of a compiled search (which itself reads the real clock): the real clock moved
  by a number of seconds, so that the deadline is long past (a negative shift) or never comes (a
  positive one), whatever the machine's speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from boardzoo.clock import monotonic_ns

HOUR = 3600.0


class FakeTime:
    """A ``time`` module whose clock (``perf_counter``, ``monotonic``) is ``now``.

    Args:
        now: the first reading (a power of two: sums of binary fractions stay exact).
        tick: seconds ``now`` moves on after each reading (0: only :meth:`advance` moves it).
    """

    def __init__(self, now: float = 1024.0, tick: float = 0.0) -> None:
        self.now = now
        self.tick = tick
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        value = self.now
        self.now += self.tick
        return value

    monotonic = perf_counter

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def install(self, monkeypatch: pytest.MonkeyPatch, *modules: ModuleType) -> FakeTime:
        """Make ``modules`` read this clock (each must ``import time``); undone after the test."""
        for module in modules:
            assert isinstance(getattr(module, "time", None), (ModuleType, FakeTime)), module
            monkeypatch.setattr(module, "time", self)
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def shifted_ns(seconds: float) -> Callable[[], int]:
    """:func:`~boardzoo.clock.monotonic_ns` moved by ``seconds`` (negative: into the past)."""
    shift = int(seconds * 1e9)
    return lambda: monotonic_ns() + shift
