"""How a compiled batched search calls its evaluator, a Python object, from inside its loop.

The loop of steps (:func:`boardzoo.search.loop.run_steps`) runs compiled from the first step to
the last; at each step it leaves the compiled code once, through numba's object mode, to call
:func:`evaluate_step` with the key of the search that runs it. The search registers what to call
under that key for the time it runs (:func:`running`). One call per step costs a few
microseconds, where a compiled call per half step from Python would unpack the whole tree's
arrays twice a step.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["StepEvaluation", "evaluate_step", "running"]

# (leaves found, rows written) -> (logits float32 [rows, A], values float32 [rows], stop now)
StepEvaluation = Callable[[int, int], tuple[np.ndarray, np.ndarray, bool]]

_RUNNING: dict[int, StepEvaluation] = {}
_KEYS = itertools.count(1)


def evaluate_step(key: int, found: int, rows: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """The evaluation of a step of the search registered under ``key`` (called by the loop)."""
    return _RUNNING[key](found, rows)


@contextmanager
def running(evaluation: StepEvaluation) -> Iterator[int]:
    """Register ``evaluation`` for the time a search runs; yields its key for the loop."""
    key = next(_KEYS)
    _RUNNING[key] = evaluation
    try:
        yield key
    finally:
        del _RUNNING[key]
