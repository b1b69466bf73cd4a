"""Compiled conversions from bitboards to the numpy arrays that environments hand out.

A board of ``rows`` x ``cols`` squares lives in a bitboard whose bit
``offset + row * row_stride + col * col_stride`` is the square at ``row``, ``col`` (row 0 at the
top): Reversi's layout is ``(8, 1, 0)``, TicTacToe's ``(3, 1, 0)``, Connect Four's column-major
``(-1, 7, 5)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U1


@njit("i1[:, :, :](u8, u8, i8, i8, i8, i8, i8)", cache=True, nogil=True)
def board_planes(own, opp, rows, cols, row_stride, col_stride, offset):
    """An int8 ``(rows, cols, 2)`` array: plane 0 holds ``own``'s squares, plane 1 ``opp``'s."""
    planes = np.zeros((rows, cols, 2), dtype=np.int8)
    for row in range(rows):
        for col in range(cols):
            bit = U1 << np.uint64(offset + row * row_stride + col * col_stride)
            if own & bit:
                planes[row, col, 0] = 1
            elif opp & bit:
                planes[row, col, 1] = 1
    return planes


@njit("i1[:](u8, i8, i8, i8, b1)", cache=True, nogil=True)
def action_mask(legal, size, stride, num_actions, last_action_legal):
    """An int8 mask of length ``num_actions``: square actions ``row * size + col`` from ``legal``.

    For square boards whose action ``row * size + col`` fills bit ``row * stride + col``.
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
