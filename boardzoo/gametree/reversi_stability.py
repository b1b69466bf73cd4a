"""Stable discs of 8x8 Reversi, compiled: discs that no sequence of moves can ever flip.

The exact endgame solver cuts a search short with them (as Edax's stability cut-off does): if
the opponent of the side to move has ``s`` stable discs, the side to move ends with at most
``64 - 2 * s``, so a window whose ``alpha`` is already there fails low at once.

A disc is found stable (a subset of the truly stable discs, never more) when

- it is on an edge and stable within that edge: :data:`EDGE_STABLE` holds, for every pattern of
  one edge's eight squares, the discs that no sequence of placements on that edge (by either
  side, legal or not, each flipping what it brackets along the edge) flips;
- or each of its four lines (horizontal, vertical, both diagonals) is full, or holds a stable
  disc of the same side next to it: a disc between a stable one of its side and anything can
  never be bracketed along that line. The search repeats this until nothing more is found.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, popcount

__all__ = ["EDGE_STABLE", "STABILITY_ALPHA", "edge_stable_discs", "stability_cut", "stable_discs"]

_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)  # every square but those of file a
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
_ROW_STARTS = np.uint64(0x0101010101010101)
_FIRST_ROW = np.uint64(0xFF)
_FILE_A = np.uint64(0x0101010101010101)
_COLUMN_GATHER = np.uint64(0x0102040810204080)  # file a's bit 8k goes to bit 56 + k
_CENTRAL = np.uint64(0x007E7E7E7E7E7E00)  # the squares on no edge
_FULL_BOARD = np.uint64(0xFFFFFFFFFFFFFFFF)
# The cut-off is tried where alpha is at least this (by empties, as Edax's): below, too few
# stable discs are likely to be found to be worth looking for them.
STABILITY_ALPHA = np.array(
    [99] * 4 + [6, 8, 10, 12, 14, 16] + list(range(20, 48, 2)) + [48, 48, 50, 50, 52, 52]
    + [54, 54, 56, 56, 58, 58, 60, 60, 62, 62] + [64] * 25,
    dtype=np.int64,
)  # fmt: skip


def _line_placements(own: int, opp: int, square: int) -> int:
    """The discs of ``opp`` flipped along an 8-square line by ``own`` placing on ``square``."""
    flipped = 0
    for step in (-1, 1):
        run = 0
        x = square + step
        while 0 <= x < 8 and opp >> x & 1:
            run |= 1 << x
            x += step
        if 0 <= x < 8 and own >> x & 1:
            flipped |= run
    return flipped


@cache
def _edge_stable(own: int, opp: int) -> int:
    """The discs of ``own`` that stay ``own``'s whatever is placed on the line's empties."""
    stable = own
    for square in range(8):
        if (own | opp) >> square & 1:
            continue
        bit = 1 << square
        flipped = _line_placements(own, opp, square)
        stable &= _edge_stable(own | bit | flipped, opp & ~flipped)
        flipped = _line_placements(opp, own, square)
        stable &= _edge_stable(own & ~flipped, opp | bit | flipped)
        if not stable:
            break
    return stable


def _edge_table() -> np.ndarray:
    """:func:`_edge_stable` for every pattern, indexed ``own * 256 + opp``."""
    table = np.zeros(256 * 256, dtype=np.uint8)
    for own in range(256):
        for opp in range(256):
            if not own & opp:
                table[own * 256 + opp] = _edge_stable(own, opp)
    return table


def _unpack_file_table() -> np.ndarray:
    """For each 8-bit pattern, the squares of file a it stands for (bit k: row k)."""
    return np.array(
        [sum(1 << (8 * k) for k in range(8) if p >> k & 1) for p in range(256)], dtype=np.uint64
    )


EDGE_STABLE = _edge_table()
_UNPACK_FILE = _unpack_file_table()


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def _file_a(x):
    """File a's squares of ``x`` as 8 bits (bit k: row k)."""
    return ((x & _FILE_A) * _COLUMN_GATHER) >> np.uint64(56)


@njit("u8(u8, u8)", cache=True, nogil=True)
def edge_stable_discs(own, opp):
    """``own``'s discs stable within one of the four edges."""
    s56, s7 = np.uint64(56), np.uint64(7)
    stable = np.uint64(EDGE_STABLE[(own & _FIRST_ROW) * np.uint64(256) + (opp & _FIRST_ROW)])
    stable |= np.uint64(EDGE_STABLE[(own >> s56) * np.uint64(256) + (opp >> s56)]) << s56
    stable |= _UNPACK_FILE[EDGE_STABLE[_file_a(own) * np.uint64(256) + _file_a(opp)]]
    right = _UNPACK_FILE[EDGE_STABLE[_file_a(own >> s7) * np.uint64(256) + _file_a(opp >> s7)]]
    return stable | (right << s7)


@njit("u8(u8, u8, u8)", cache=True, nogil=True, inline="always")
def _fill_up(gen, shift, pro):
    """``gen`` spread towards higher bits by steps of ``shift`` over the squares of ``pro``."""
    gen |= pro & (gen << shift)
    pro &= pro << shift
    gen |= pro & (gen << (shift + shift))
    pro &= pro << (shift + shift)
    return gen | (pro & (gen << (np.uint64(4) * shift)))


@njit("u8(u8, u8, u8)", cache=True, nogil=True, inline="always")
def _fill_down(gen, shift, pro):
    """``gen`` spread towards lower bits by steps of ``shift`` over the squares of ``pro``."""
    gen |= pro & (gen >> shift)
    pro &= pro >> shift
    gen |= pro & (gen >> (shift + shift))
    pro &= pro >> (shift + shift)
    return gen | (pro & (gen >> (np.uint64(4) * shift)))


@njit("UniTuple(u8, 4)(u8)", cache=True, nogil=True)
def full_lines(discs):
    """The squares whose horizontal, vertical, a1-h8 and h1-a8 diagonal lines are full."""
    row = discs & (discs >> np.uint64(4))
    row &= row >> np.uint64(2)
    row &= row >> np.uint64(1)
    row = (row & _ROW_STARTS) * _FIRST_ROW
    column = discs & (discs >> np.uint64(32))
    column &= column >> np.uint64(16)
    column &= column >> np.uint64(8)
    column = (column & _FIRST_ROW) * _ROW_STARTS
    empty = ~discs
    s7, s9 = np.uint64(7), np.uint64(9)
    down_right = ~(_fill_up(empty, s9, _NOT_A) | _fill_down(empty, s9, _NOT_H))
    down_left = ~(_fill_up(empty, s7, _NOT_H) | _fill_down(empty, s7, _NOT_A))
    return row, column, down_right, down_left


@njit("u8(u8, u8)", cache=True, nogil=True)
def stable_discs(own, opp):
    """``own``'s discs found stable (see the module's description)."""
    row, column, down_right, down_left = full_lines(own | opp)
    stable = edge_stable_discs(own, opp) | (own & row & column & down_right & down_left)
    if stable == U0:
        return U0
    central = own & _CENTRAL
    s1, s7, s8, s9 = np.uint64(1), np.uint64(7), np.uint64(8), np.uint64(9)
    while True:
        more = (
            central
            & ((stable >> s1) | (stable << s1) | row)
            & ((stable >> s8) | (stable << s8) | column)
            & ((stable >> s9) | (stable << s9) | down_right)
            & ((stable >> s7) | (stable << s7) | down_left)
        )
        if more & ~stable == U0:
            return stable
        stable |= more


@njit("i8(u8, u8, u8, i8, i8)", cache=True, nogil=True)
def stability_cut(own, opp, valid, empties, alpha):
    """An upper bound of the score of the side to move (``own``) at or below ``alpha``, from
    the opponent's stable discs, if there is one (8x8 only); else ``SCORE_BOUND``, 65."""
    if alpha < STABILITY_ALPHA[empties] or valid != _FULL_BOARD:
        return np.int64(65)
    bound = 64 - 2 * np.int64(popcount(stable_discs(opp, own)))
    return bound if bound <= alpha else np.int64(65)
