"""Compiled kernels of the test game of ``tests/line_game.py``: three in a row on an n x n board.

``params[0]`` is every cell of the board (bit ``row * size + col``), ``params[1:]`` the lines of
three. Written for the contract tests only, from the game contract's table in
:mod:`boardzoo.games.spec`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, popcount, random_set_bit

WIN_SCORE = 1_000_000  # boardzoo.games.spec.WIN_SCORE


@njit(cache=True, nogil=True)
def has_line(marks, params):
    for i in range(1, params.shape[0]):  # noqa: SIM110 (numba compiles loops, not generators)
        if (marks & params[i]) == params[i]:
            return True
    return False


@njit(cache=True, nogil=True)
def placements(s0, s1, player, params):
    if has_line(s0, params) or has_line(s1, params):
        return U0
    return params[0] & ~(s0 | s1)


@njit(cache=True, nogil=True)
def place(s0, s1, player, cell, params):
    bit = U1 << np.uint64(cell)
    if player == 0:
        return s0 | bit, s1
    return s0, s1 | bit


@njit(cache=True, nogil=True)
def outcome(s0, s1, player, params):
    if has_line(s0, params):
        return True, 2
    if has_line(s1, params):
        return True, 0
    if (s0 | s1) == params[0]:
        return True, 1
    return False, 1


@njit(cache=True, nogil=True)
def cell_action(cell, params):
    return cell


@njit(cache=True, nogil=True)
def rollout(s0, s1, player, params, policy, rng):
    while True:
        over, code = outcome(s0, s1, player, params)
        if over:
            return code / 2.0, rng
        cell, rng = random_set_bit(params[0] & ~(s0 | s1), rng)
        s0, s1 = place(s0, s1, player, cell, params)
        player = 1 - player


@njit(cache=True, nogil=True)
def evaluate(s0, s1, player, moves, params):
    """Lines still open to the mover minus those open to the opponent."""
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    score = 0
    for i in range(1, params.shape[0]):
        if params[i] & opp == U0:
            score += 1
        if params[i] & own == U0:
            score -= 1
    return score


@njit(cache=True, nogil=True)
def final_score(s0, s1, player, params):
    empties = np.int64(popcount(params[0] & ~(s0 | s1)))
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    if has_line(own, params):
        return WIN_SCORE + empties
    if has_line(opp, params):
        return -WIN_SCORE - empties
    return 0


@njit(cache=True, nogil=True)
def order_key(s0, s1, player, cell, depth, params):
    return 0


@njit(cache=True, nogil=True)
def greedy_score(s0, s1, player, cell, params):
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    bit = U1 << np.uint64(cell)
    if has_line(own | bit, params):
        return 2
    if has_line(opp | bit, params):
        return 1
    return 0
