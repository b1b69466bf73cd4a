"""``boardzoo.games.specialise``: one compiled copy per (templates, game, linked functions).

Oracle: plain arithmetic; each copy must call the linked function it was given, not the one
of a copy made earlier with the same templates and kernels."""

from __future__ import annotations

import sys
from typing import Any

from numba import njit

from boardzoo.games.specialise import specialise

helper: Any = None  # the name the template calls; each copy links its own


def add_helper(x: int) -> int:
    """The template: ``helper(x) + 1``."""
    return helper(x) + 1


@njit(cache=True)
def _double(x: int) -> int:
    return 2 * x


@njit(cache=True)
def _square(x: int) -> int:
    return x * x


def test_copies_with_other_linked_functions_are_other_copies():
    kernels = sys.modules[__name__]  # any module with a source file stands for a game's kernels
    doubled = specialise((add_helper,), kernels, linked={"helper": _double})["add_helper"]
    squared = specialise((add_helper,), kernels, linked={"helper": _square})["add_helper"]
    assert doubled(5) == 11 and squared(5) == 26
    again = specialise((add_helper,), kernels, linked={"helper": _double})["add_helper"]
    assert again is doubled
