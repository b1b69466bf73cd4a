"""How a compiled batched search calls its evaluator, a Python object, from inside its loop.

The loop of steps (:func:`boardzoo.search.loop.run_steps`) runs compiled from the first step to
the last; at each step it leaves the compiled code once, through numba's object mode
(:func:`call_evaluator`, a function of its own, so the loop's machine code is cached as plain
code), to call :func:`evaluate_step` with the key of the search that runs it. The search
registers what to call under that key for the time it runs (:func:`running`). One call per step
costs a few microseconds, where a compiled call per half step from Python would unpack the whole
tree's arrays twice a step.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from numba import njit, objmode
from numba.core.errors import NumbaWarning

__all__ = ["StepEvaluation", "call_evaluator", "evaluate_step", "running"]

# (leaves found, rows written) -> (logits float32 [rows, A], values float32 [rows], stop now)
StepEvaluation = Callable[[int, int], tuple[np.ndarray, np.ndarray, bool]]

_RUNNING: dict[int, StepEvaluation] = {}
_KEYS = itertools.count(1)


def evaluate_step(key: int, found: int, rows: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """The evaluation of a step of the search registered under ``key`` (called by the loop)."""
    return _RUNNING[key](found, rows)


# The call of the evaluator holds the GIL, as it must; the loop around it does not.
warnings.filterwarnings(
    "ignore", message=".*Code running in object mode won't allow", category=NumbaWarning
)


@njit(cache=True, nogil=True)
def call_evaluator(key, found, rows):  # type: ignore[no-untyped-def]
    """:func:`evaluate_step` called from compiled code: ``(logits, values, stop)``."""
    with objmode(logits="float32[:, ::1]", values="float32[::1]", stop="boolean"):
        logits, values, stop = evaluate_step(key, found, rows)
    return logits, values, stop


@contextmanager
def running(evaluation: StepEvaluation) -> Iterator[int]:
    """Register ``evaluation`` for the time a search runs; yields its key for the loop."""
    key = next(_KEYS)
    _RUNNING[key] = evaluation
    try:
        yield key
    finally:
        del _RUNNING[key]
