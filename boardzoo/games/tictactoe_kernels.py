"""Compiled TicTacToe helpers on 9-bit boards (bit ``row * 3 + col``), for the compiled searches."""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.tictactoe import FULL_BOARD, WINNING_LINES

TTT_FULL = np.uint64(FULL_BOARD)
TTT_LINES = np.array(WINNING_LINES, dtype=np.uint64)


@njit("b1(u8)", cache=True, nogil=True)
def has_line(marks):
    """Whether ``marks`` hold three in a row."""
    for line in TTT_LINES:  # noqa: SIM110 (numba compiles loops, not generator expressions)
        if (marks & line) == line:
            return True
    return False
