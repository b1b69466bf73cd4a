"""Tasks on all cores, or on a Ray cluster: the games of a data run, of a chunk to relabel.

:func:`map_tasks` runs a function over tasks in worker processes (``spawn``: each imports
boardzoo afresh and loads numba's cached kernels), or as Ray tasks on a cluster (one CPU each,
wherever the cluster has one; a task whose worker or node dies is run again), and returns the
results in the tasks' order, so a result never depends on how many workers, or which nodes,
computed it. One pool per worker count is kept for the life of the process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any, TypeVar

from boardzoo.errors import InvalidValueError, require_module

__all__ = ["RAY_RETRIES", "join_cluster", "map_tasks"]

T = TypeVar("T")
R = TypeVar("R")

RAY_RETRIES = 3  # a Ray task whose worker or node dies is run again this many times at most


@cache
def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def join_cluster(address: str | None) -> None:
    """Connect this process to the Ray cluster at ``address`` (nothing for ``None``, or when
    connected already): a step calls it before any work, so that a wrong address or a missing
    Ray is said at once."""
    if address is None:
        return
    host, _, port = address.rpartition(":")
    if address != "auto" and not (host and port.isdigit()):
        raise InvalidValueError(f"ray={address!r} is not a cluster address: 'auto' or HOST:PORT")
    require_module("ray", "ray", "pip install 'boardzoo[ray]'")  # imported if asked for
    from boardzoo.arena.ray_backend import join_ray  # (ray, an optional dependency)

    try:
        join_ray(address)
    except ConnectionError as error:  # no cluster there
        raise InvalidValueError(f"cannot join the Ray cluster at {address!r}: {error}") from None


def _on_ray(function: Callable[[T], R], tasks: Sequence[T], address: str) -> list[R]:
    join_cluster(address)  # says a missing Ray or a wrong address first
    import ray

    remote = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(function)
    results: list[R] = ray.get([remote.remote(task) for task in tasks])
    return results


def map_tasks(
    function: Callable[[T], R], tasks: Sequence[T], workers: int = 1, ray: str | None = None
) -> list[R]:
    """``[function(task) for task in tasks]``, on ``workers`` processes (1: in this one), or
    on the Ray cluster at ``ray`` (``"auto"``, ``"host:port"``; ``workers`` is then not used:
    every task is a Ray task of one CPU).

    ``function`` must be a module-level function and the tasks picklable."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidValueError(f"workers must be an int >= 1, got {workers!r}")
    if ray is not None:
        return _on_ray(function, tasks, ray)
    if workers == 1 or len(tasks) <= 1:
        return [function(task) for task in tasks]
    results: list[Any] = list(_pool(workers).map(function, tasks))
    return results
