"""The budget of a compiled search: nodes and a deadline, kept in its array of counters.

Every compiled search of boardzoo (the exact solvers, alpha-beta, the engine) counts in an int64
array whose first four slots mean the same thing everywhere; a search keeps counters of its own
from slot :data:`SHARED` on.

- ``counters[NODES]``: the nodes searched so far.
- ``counters[BUDGET]``: the most nodes the search may visit.
- ``counters[ABORTED]``: set (1) by the search when it gave up, at its budget or its deadline;
  its result is then meaningless.
- ``counters[DEADLINE]``: when to give up, in nanoseconds of the monotonic clock
  (:func:`boardzoo.clock.monotonic_ns`); 0: no deadline.

:func:`count_node` is what a search calls at each node (it looks at the clock every so many
nodes); :func:`past_deadline` is the test alone, for searches that time their looks themselves.
:func:`new_counters` fills the budget from Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.clock import monotonic_ns

__all__ = [
    "ABORTED",
    "BUDGET",
    "DEADLINE",
    "NODES",
    "NO_LIMIT",
    "SHARED",
    "count_node",
    "new_counters",
    "past_deadline",
]

NODES, BUDGET, ABORTED, DEADLINE = 0, 1, 2, 3
SHARED = 4  # the slots every search shares; its own counters start here
NO_LIMIT = 1 << 62  # a node budget no search reaches


@njit(cache=True, nogil=True, inline="always")
def past_deadline(counters):
    """Whether the clock is past ``counters[DEADLINE]`` (never when it is 0)."""
    return counters[DEADLINE] != 0 and monotonic_ns() > counters[DEADLINE]


@njit(cache=True, nogil=True, inline="always")
def count_node(counters, clock_mask):
    """Count a node; ``True`` (and ``counters[ABORTED]`` set) once the search has given up: past
    the node budget or, looked at when ``counters[NODES] & clock_mask == 0`` (every
    ``clock_mask + 1`` nodes for a mask of ones), past the deadline."""
    counters[NODES] += 1
    if counters[NODES] > counters[BUDGET] or (
        counters[NODES] & clock_mask == 0 and past_deadline(counters)
    ):
        counters[ABORTED] = 1
    return counters[ABORTED] != 0


def new_counters(
    size: int, max_nodes: int | None = None, time_limit: float | None = None
) -> np.ndarray:
    """A search's counters: ``size`` slots (at least :data:`SHARED`), the budget set.

    Args:
        size: the slots of the search (its module's ``NUM_COUNTERS``).
        max_nodes: the node budget; ``None``: none.
        time_limit: seconds from now to the deadline; ``None``: none.

    Returns:
        int64 ``[size]``.
    """
    counters = np.zeros(max(size, SHARED), dtype=np.int64)
    counters[BUDGET] = NO_LIMIT if max_nodes is None else max_nodes
    if time_limit is not None:
        counters[DEADLINE] = monotonic_ns() + max(1, int(time_limit * 1e9))
    return counters
