"""The transposition table of every depth-first search: what a search learnt of a position.

One entry is four ``uint64`` words (32 bytes; two entries, a bucket, fill one 64-byte cache
line, so a probe reads one line):

- words 0 and 1: the position's two bitboards themselves, the key (no hash collision can give
  a wrong answer);
- word 2: the lower and the upper bound of its score, each an ``int32`` plus ``2**31``;
- word 3: its best move plus 2 (8 bits; 0: none known), the draft plus 1 (16 bits; 0: no
  entry), whether the bounds are exact (proven to the end of the game: they hold at any
  draft), the side to move (1 bit) and the age of the search that wrote it (the bits above).

The draft is the depth the bounds were searched to, or, for an exact solve, the empty squares
(what the entry cost: the one to keep). A position's bucket is chosen by a hash of its key;
:func:`store` writes over the entry of the same position, else an entry of an older search,
else the one with the smaller draft. :func:`new_table` writes the memory once, so a solve on a
clock does not pay for the first touches. The exact solvers keep the contract's
``(keys, data)`` pair: ``data`` is an unused placeholder.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "ABSENT",
    "EXACT_DRAFT",
    "NO_BOUND",
    "Probe",
    "bucket_of",
    "new_table",
    "probe",
    "store",
]

_HASH_X = np.uint64(0x9E3779B97F4A7C15)
_HASH_Y = np.uint64(0xC2B2AE3D27D4EB4F)
_S29 = np.uint64(29)
_S32 = np.uint64(32)
_S8 = np.uint64(8)
_S24 = np.uint64(24)
_S25 = np.uint64(25)
_S26 = np.uint64(26)
_BYTE = np.uint64(0xFF)
_WORD16 = np.uint64(0xFFFF)
_LOW32 = np.uint64(0xFFFFFFFF)
_BIAS = np.int64(1 << 31)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
KEY_X, KEY_Y, BOUNDS, INFO = 0, 1, 2, 3
EXACT_DRAFT = 60_000  # a draft above any depth: exact bounds hold at any depth
ABSENT = np.int64(1) << 40  # the "bound" of an unknown position: beyond any score
NO_BOUND = np.int64((1 << 31) - 1)  # a stored entry's missing bound (int32's): beyond any score

Probe = tuple[bool, int, int, int, int, bool]  # found, lower, upper, move, draft, exact


def new_table(bits: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``2**bits`` entries, its rows aligned to cache lines: ``(keys,
    data)``, the entries all in ``keys`` (``uint64 [2**bits, 4]``), ``data`` a placeholder."""
    raw = np.empty(((1 << bits) + 2) * 4, dtype=np.uint64)
    raw.fill(0)  # touched now: zeros from the system would be paged in during the search
    start = (-raw.ctypes.data % 64) // 8
    keys = raw[start : start + (1 << bits) * 4].reshape(1 << bits, 4)
    return keys, np.zeros((1, 4), dtype=np.int8)


@njit(cache=True, nogil=True, inline="always")
def bucket_of(x, y, player, table):
    """The first row of a position's bucket of two (``player``: the side to move)."""
    h = x * _HASH_X ^ y * _HASH_Y ^ np.uint64(player)
    h ^= h >> _S29
    return np.int64(h & np.uint64(table.shape[0] - 2))


@njit(cache=True, nogil=True, inline="always")
def _row_of(x, y, player, bucket, table):
    """The row holding the position in its bucket, or -1."""
    for row in range(bucket, bucket + 2):
        info = table[row, INFO]
        if (
            table[row, KEY_X] == x
            and table[row, KEY_Y] == y
            and (info >> _S8) & _WORD16 != _ZERO
            and np.int64((info >> _S25) & _ONE) == player
        ):
            return np.int64(row)
    return np.int64(-1)


@njit(cache=True, nogil=True, inline="always")
def probe(x, y, player, bucket, table):
    """What the table knows of a position: ``(found, lower, upper, move, draft, exact)``; an
    unknown one has bounds of -:data:`ABSENT` and :data:`ABSENT` and move -2."""
    row = _row_of(x, y, player, bucket, table)
    if row < 0:
        return False, -ABSENT, ABSENT, np.int64(-2), np.int64(-1), False
    bounds = table[row, BOUNDS]
    info = table[row, INFO]
    lower = np.int64(bounds & _LOW32) - _BIAS
    upper = np.int64(bounds >> _S32) - _BIAS
    move = np.int64(info & _BYTE) - 2
    draft = np.int64((info >> _S8) & _WORD16) - 1
    exact = (info >> _S24) & _ONE != _ZERO
    return True, lower, upper, move, draft, exact


@njit(cache=True, nogil=True, inline="always")
def store(x, y, player, bucket, draft, exact, alpha, beta, best, move, age, table):
    """Keep what a search of the window ``(alpha, beta)`` found: ``best`` (a fail-soft score:
    an upper bound at or below ``alpha``, a lower one at or above ``beta``, else exact) and the
    best move (-1: none), searched to ``draft`` (``exact``: to the end of the game) by the
    search of ``age``. The bounds of the same position at the same draft are narrowed."""
    row = _row_of(x, y, player, bucket, table)
    lower, upper = -ABSENT, ABSENT
    if row >= 0:
        info = table[row, INFO]
        old_draft = np.int64((info >> _S8) & _WORD16) - 1
        old_exact = (info >> _S24) & _ONE != _ZERO
        old_age = np.int64(info >> _S26)
        if old_age == age and ((old_exact and not exact) or (old_draft > draft and not exact)):
            return  # a deeper entry of this search keeps its place
        if old_exact == exact and (exact or old_draft == draft):
            bounds = table[row, BOUNDS]
            lower = np.int64(bounds & _LOW32) - _BIAS
            upper = np.int64(bounds >> _S32) - _BIAS
            if move < 0:
                move = np.int64(info & _BYTE) - 2
    else:
        row = bucket
        first, second = table[bucket, INFO], table[bucket + 1, INFO]
        if (second >> _S8) & _WORD16 == _ZERO:
            row = bucket + 1
        elif (first >> _S8) & _WORD16 != _ZERO:
            first_age, second_age = np.int64(first >> _S26), np.int64(second >> _S26)
            if first_age == second_age:
                if (second >> _S8) & _WORD16 < (first >> _S8) & _WORD16:
                    row = bucket + 1
            elif first_age == age:
                row = bucket + 1  # the other is of an older search
    if best <= alpha:
        upper = min(best, upper)
    elif best >= beta:
        lower = max(best, lower)
    else:
        lower = best
        upper = best
    lower = max(lower, -NO_BOUND)
    upper = min(upper, NO_BOUND)
    table[row, KEY_X] = x
    table[row, KEY_Y] = y
    table[row, BOUNDS] = np.uint64(lower + _BIAS) | (np.uint64(upper + _BIAS) << _S32)
    table[row, INFO] = (
        np.uint64(move + 2)
        | (np.uint64(min(draft, EXACT_DRAFT) + 1) << _S8)
        | (np.uint64(1 if exact else 0) << _S24)
        | (np.uint64(player) << _S25)
        | (np.uint64(age) << _S26)
    )
