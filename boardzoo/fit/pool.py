"""Tasks on all cores: the games of a data run, the games of a chunk to relabel.

:func:`map_tasks` runs a function over tasks in worker processes (``spawn``: each imports
boardzoo afresh and loads numba's cached kernels) and returns the results in the tasks' order,
so a result never depends on how many workers computed it. One pool per worker count is kept
for the life of the process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any, TypeVar

from boardzoo.errors import InvalidValueError

__all__ = ["map_tasks"]

T = TypeVar("T")
R = TypeVar("R")


@cache
def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def map_tasks(function: Callable[[T], R], tasks: Sequence[T], workers: int = 1) -> list[R]:
    """``[function(task) for task in tasks]``, on ``workers`` processes (1: in this one).

    ``function`` must be a module-level function and the tasks picklable."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidValueError(f"workers must be an int >= 1, got {workers!r}")
    if workers == 1 or len(tasks) <= 1:
        return [function(task) for task in tasks]
    results: list[Any] = list(_pool(workers).map(function, tasks))
    return results
