"""Compiled TicTacToe kernels on 9-bit boards (bit ``row * 3 + col``): the game contract's
functions (see :mod:`boardzoo.games.spec`) and the line test they share."""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, popcount, random_set_bit
from boardzoo.games.tictactoe import FULL_BOARD, WINNING_LINES

TTT_FULL = np.uint64(FULL_BOARD)
TTT_LINES = np.array(WINNING_LINES, dtype=np.uint64)
WIN_SCORE = 1_000_000  # boardzoo.games.spec.WIN_SCORE
# Greedy: a move that wins at once, else one that blocks the opponent's win, else any.
GREEDY_WIN = 2
GREEDY_BLOCK = 1


@njit("b1(u8)", cache=True, nogil=True)
def has_line(marks):
    """Whether ``marks`` hold three in a row."""
    for line in TTT_LINES:  # noqa: SIM110 (numba compiles loops, not generator expressions)
        if (marks & line) == line:
            return True
    return False


@njit(cache=True, nogil=True)
def placements(s0, s1, player, params):
    """The empty squares, none once a line is made."""
    if has_line(s0) or has_line(s1):
        return U0
    return TTT_FULL & ~(s0 | s1)


@njit(cache=True, nogil=True)
def place(s0, s1, player, cell, params):
    """Mark ``cell`` for the player to move."""
    bit = U1 << np.uint64(cell)
    if player == 0:
        return s0 | bit, s1
    return s0, s1 | bit


@njit(cache=True, nogil=True)
def outcome(s0, s1, player, params):
    """Three in a row wins; a full board without one is a draw."""
    if has_line(s0):
        return True, 2
    if has_line(s1):
        return True, 0
    if (s0 | s1) == TTT_FULL:
        return True, 1
    return False, 1


@njit(cache=True, nogil=True)
def cell_action(cell, params):
    """Squares are actions."""
    return cell


@njit(cache=True, nogil=True)
def rollout(s0, s1, player, params, policy, rng):
    """Uniformly random marks to the end; player 0's score."""
    while True:
        if has_line(s0):
            return 1.0, rng
        if has_line(s1):
            return 0.0, rng
        empty = TTT_FULL & ~(s0 | s1)
        if empty == U0:
            return 0.5, rng
        square, rng = random_set_bit(empty, rng)
        s0, s1 = place(s0, s1, player, square, params)
        player = 1 - player


@njit(cache=True, nogil=True)
def evaluate(s0, s1, player, moves, params):
    """No heuristic: alpha-beta solves TicTacToe to the end."""
    return 0


@njit(cache=True, nogil=True)
def final_score(s0, s1, player, params):
    """``WIN_SCORE`` plus the empty squares for a win (sooner is better), 0 for a draw."""
    empties = np.int64(popcount(TTT_FULL & ~(s0 | s1)))
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    if has_line(own):
        return WIN_SCORE + empties
    if has_line(opp):
        return -WIN_SCORE - empties
    return 0


@njit(cache=True, nogil=True)
def order_key(s0, s1, player, cell, depth, params):
    """Squares in order."""
    return 0


@njit(cache=True, nogil=True)
def greedy_score(s0, s1, player, cell, params):
    """Win at once, else block the opponent's line, else anything."""
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    bit = U1 << np.uint64(cell)
    if has_line(own | bit):
        return GREEDY_WIN
    if has_line(opp | bit):
        return GREEDY_BLOCK
    return 0
