"""What a search remembers beside its tree: last good replies and criticality counts.

One :class:`Memory` per search, shared by its threads (a rare lost update from two threads
costs a count, never correctness); it is cleared when a new search starts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.games.bits import U1, lowest_bit_index

__all__ = ["Memory", "criticality", "new_memory"]

PASS_SLOT = 64  # the last-good-reply table's row for "the previous move was a pass"
NO_REPLY = -1
MIN_CRITICALITY_PLAYOUTS = 32  # criticality counts once this many playouts have finished
# Rows of Memory.crit: cells owned by player 0 / player 1 at the end, and owned by the winner;
# row CRIT_TOTALS holds [playouts, player 0's score sum, player 1's score sum].
CRIT_OWN0, CRIT_OWN1, CRIT_WINNER, CRIT_TOTALS = 0, 1, 2, 3


class Memory(NamedTuple):
    """``lgr[player, previous cell]``: that player's last good reply (LGRF-1; row
    ``PASS_SLOT`` after a pass); ``crit``: the criticality counts (``CRIT_*`` rows)."""

    lgr: np.ndarray  # int64[2, 65]
    crit: np.ndarray  # float64[4, 64]


def new_memory() -> Memory:
    """An empty memory."""
    return Memory(
        lgr=np.full((2, PASS_SLOT + 1), NO_REPLY, dtype=np.int64),
        crit=np.zeros((4, 64), dtype=np.float64),
    )


@njit(cache=True, nogil=True)
def clear_memory(memory):
    """Forget the last good replies and the criticality counts (a new search starts)."""
    memory.lgr[:] = NO_REPLY
    memory.crit[:] = 0.0


@njit(cache=True, nogil=True, inline="always")
def criticality(memory, cell):
    """Coulom's criticality of ``cell``: how much owning it at the end goes with winning.

    ``P(owner wins) - (P(player 0 owns) P(player 0 wins) + P(player 1 owns) P(player 1 wins))``
    over the finished playouts of the search; 0 before ``MIN_CRITICALITY_PLAYOUTS`` of them.
    """
    crit = memory.crit
    playouts = crit[CRIT_TOTALS, 0]
    if cell < 0 or playouts < MIN_CRITICALITY_PLAYOUTS:
        return 0.0
    win0 = crit[CRIT_TOTALS, 1] / playouts
    win1 = crit[CRIT_TOTALS, 2] / playouts
    own0 = crit[CRIT_OWN0, cell] / playouts
    own1 = crit[CRIT_OWN1, cell] / playouts
    return crit[CRIT_WINNER, cell] / playouts - (own0 * win0 + own1 * win1)


@njit(cache=True, nogil=True)
def update_replies(memory, cells, players, length, score0):
    """LGRF-1: the winner's replies are remembered, the loser's forgotten (draws change nothing)."""
    if score0 == 0.5:
        return
    winner = 0 if score0 > 0.5 else 1
    for j in range(1, length):
        cell = cells[j]
        if cell < 0:
            continue
        prev = cells[j - 1]
        row = prev if prev >= 0 else PASS_SLOT
        player = players[j]
        if player == winner:
            memory.lgr[player, row] = cell
        elif memory.lgr[player, row] == cell:
            memory.lgr[player, row] = NO_REPLY


@njit(cache=True, nogil=True)
def update_criticality(memory, s0, s1, score0):
    """Count a finished playout's final owners and result."""
    crit = memory.crit
    crit[CRIT_TOTALS, 0] += 1.0
    crit[CRIT_TOTALS, 1] += score0
    crit[CRIT_TOTALS, 2] += 1.0 - score0
    bits = s0
    while bits:
        cell = lowest_bit_index(bits)
        bits &= bits - U1
        crit[CRIT_OWN0, cell] += 1.0
        crit[CRIT_WINNER, cell] += score0
    bits = s1
    while bits:
        cell = lowest_bit_index(bits)
        bits &= bits - U1
        crit[CRIT_OWN1, cell] += 1.0
        crit[CRIT_WINNER, cell] += 1.0 - score0
