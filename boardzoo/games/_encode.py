"""Compiled conversions from bitboards to the numpy arrays that environments hand out.

A board of ``size`` x ``size`` squares lives in a bitboard whose bit ``row * stride + col`` is the
square at ``row``, ``col`` (stride 8 for Reversi, 3 for TicTacToe).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games._bits import U1


@njit("i1[:, :, :](u8, u8, i8, i8)", cache=True, nogil=True)
def board_planes(own, opp, size, stride):
    """An int8 ``(size, size, 2)`` array: plane 0 holds ``own``'s squares, plane 1 ``opp``'s."""
    planes = np.zeros((size, size, 2), dtype=np.int8)
    for row in range(size):
        for col in range(size):
            bit = U1 << np.uint64(row * stride + col)
            if own & bit:
                planes[row, col, 0] = 1
            elif opp & bit:
                planes[row, col, 1] = 1
    return planes


@njit("i1[:](u8, i8, i8, i8, b1)", cache=True, nogil=True)
def action_mask(legal, size, stride, num_actions, last_action_legal):
    """An int8 mask of length ``num_actions``: square actions ``row * size + col`` from ``legal``.

    ``last_action_legal`` sets the entry after the squares (Reversi's pass), if there is one.
    """
    mask = np.zeros(num_actions, dtype=np.int8)
    for row in range(size):
        for col in range(size):
            if legal & (U1 << np.uint64(row * stride + col)):
                mask[row * size + col] = 1
    if last_action_legal:
        mask[size * size] = 1
    return mask
