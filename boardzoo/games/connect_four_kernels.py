"""Compiled Connect Four kernels: the game contract's functions (see :mod:`boardzoo.games.spec`)
and the line test they share (perft runs on them: :func:`boardzoo.speed.perft`).

Layout (:mod:`boardzoo.games.connect_four`): bit ``col * 7 + r`` is the cell of column ``col`` at
height ``r`` (0 the bottom); bit ``col * 7 + 6`` is a sentinel that is never set, so lines found
by shifting never wrap from one column into the next. A cell is a landing cell, and its action
is its column, ``cell // 7``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, popcount, random_set_bit
from boardzoo.games.connect_four import BOARD, BOTTOM, COLS, HEIGHT, ROWS

C4_BOARD = np.uint64(BOARD)
C4_BOTTOM = np.uint64(BOTTOM)
CENTRE_COLUMN = np.uint64(((1 << ROWS) - 1) << (HEIGHT * (COLS // 2)))
_D1 = np.uint64(1)  # vertical
_D6 = np.uint64(HEIGHT - 1)  # falling diagonal (next column, one lower)
_D7 = np.uint64(HEIGHT)  # horizontal
_D8 = np.uint64(HEIGHT + 1)  # rising diagonal (next column, one higher)
WIN_SCORE = 1_000_000  # boardzoo.games.spec.WIN_SCORE
# evaluate: the weight of a 4-cell window free of the opponent's discs, added once for each of
# "holds at least 1 / 2 / 3 of the player's discs" (so 1, 5 and 21 in all), and of a disc in
# the centre column (it is part of the most windows).
W_WINDOW_1 = 1
W_WINDOW_2 = 4
W_WINDOW_3 = 16
W_CENTRE = 3
# evaluate: the player to move wins with its next drop (or cannot stop the opponent's): more than
# any sum of windows (69 windows of at most 21), far below WIN_SCORE.
W_WIN_NEXT = 5_000
# greedy_score: win at once, else block the opponent's win on that cell, else prefer the centre,
# and avoid a cell whose cell above would give the opponent four.
GREEDY_WIN = 100
GREEDY_BLOCK = 50


@njit("b1(u8, u8)", cache=True, nogil=True, inline="always")
def _four_along(discs, shift):
    pairs = discs & (discs >> shift)
    return (pairs & (pairs >> (shift + shift))) != U0


@njit("b1(u8)", cache=True, nogil=True)
def has_four(discs):
    """Whether ``discs`` hold four in a row, horizontally, vertically or diagonally."""
    return (
        _four_along(discs, _D1)
        or _four_along(discs, _D7)
        or _four_along(discs, _D6)
        or _four_along(discs, _D8)
    )


@njit("u8(u8, u8)", cache=True, nogil=True, inline="always")
def landing_cells(s0, s1):
    """The lowest empty cell of every column that is not full."""
    return ((s0 | s1) + C4_BOTTOM) & C4_BOARD


@njit(cache=True, nogil=True, inline="always")
def _own_opp(s0, s1, player):
    return (s0, s1) if player == 0 else (s1, s0)


@njit(cache=True, nogil=True)
def placements(s0, s1, player, params):
    """The landing cell of each column that is not full; none once the game is won."""
    if has_four(s0) or has_four(s1):
        return U0
    return landing_cells(s0, s1)


@njit(cache=True, nogil=True)
def place(s0, s1, player, cell, params):
    """Drop the disc of the player to move into landing cell ``cell``."""
    if cell < 0:
        return s0, s1
    bit = U1 << np.uint64(cell)
    if player == 0:
        return s0 | bit, s1
    return s0, s1 | bit


@njit(cache=True, nogil=True)
def outcome(s0, s1, player, params):
    """Four in a row wins; a full board without one is a draw."""
    if has_four(s0):
        return True, 2
    if has_four(s1):
        return True, 0
    if (s0 | s1) == C4_BOARD:
        return True, 1
    return False, 1


@njit(cache=True, nogil=True)
def cell_action(cell, params):
    """The column of ``cell``."""
    if cell < 0:
        return -1
    return cell // HEIGHT


@njit(cache=True, nogil=True)
def rollout(s0, s1, player, params, policy, rng):
    """Uniformly random drops to the end (``policy`` is ignored); player 0's score."""
    done, code = outcome(s0, s1, player, params)
    if done:
        return code * 0.5, rng
    while True:
        cell, rng = random_set_bit(landing_cells(s0, s1), rng)
        bit = U1 << np.uint64(cell)
        if player == 0:
            s0 |= bit
            if has_four(s0):
                return 1.0, rng
        else:
            s1 |= bit
            if has_four(s1):
                return 0.0, rng
        if (s0 | s1) == C4_BOARD:
            return 0.5, rng
        player = 1 - player


@njit("i8(u8, u8, u8)", cache=True, nogil=True, inline="always")
def _windows_along(own, free, shift):
    """Weighted count of the windows along ``shift`` made of ``free`` cells, by ``own``'s discs.

    Bit-parallel: bit ``c`` of each mask speaks of the window ``c, c + shift, c + 2 * shift,
    c + 3 * shift``.
    """
    shift2 = shift + shift
    shift3 = shift2 + shift
    windows = free & (free >> shift) & (free >> shift2) & (free >> shift3)
    a, b, c, d = own, own >> shift, own >> shift2, own >> shift3
    at_least_1 = a | b | c | d
    at_least_2 = (a & b) | (c & d) | ((a | b) & (c | d))
    at_least_3 = (a & b & (c | d)) | (c & d & (a | b))
    return (
        W_WINDOW_1 * np.int64(popcount(windows & at_least_1))
        + W_WINDOW_2 * np.int64(popcount(windows & at_least_2))
        + W_WINDOW_3 * np.int64(popcount(windows & at_least_3))
    )


@njit("i8(u8, u8)", cache=True, nogil=True)
def _threats(own, opp):
    """Weighted windows of four cells that ``own`` can still fill (no ``opp`` disc in them)."""
    free = C4_BOARD & ~opp
    return (
        _windows_along(own, free, _D1)
        + _windows_along(own, free, _D7)
        + _windows_along(own, free, _D6)
        + _windows_along(own, free, _D8)
    )


@njit("i8(u8, u8)", cache=True, nogil=True)
def _count_wins(discs, moves):
    """How many of the landing cells ``moves`` would give ``discs`` four in a row."""
    wins = 0
    while moves:
        bit = moves & (~moves + U1)
        moves ^= bit
        if has_four(discs | bit):
            wins += 1
    return wins


@njit(cache=True, nogil=True)
def evaluate(s0, s1, player, moves, params):
    """Open windows weighted by the discs in them and centre discs, for the player to move
    (whose drops are ``moves``), with the tempo: a drop that wins at once is as good as won, and
    two of the opponent's that cannot both be blocked are as good as lost."""
    own, opp = _own_opp(s0, s1, player)
    if _count_wins(own, moves):
        return W_WIN_NEXT
    if _count_wins(opp, moves) >= 2:
        return -W_WIN_NEXT
    centre = np.int64(popcount(own & CENTRE_COLUMN)) - np.int64(popcount(opp & CENTRE_COLUMN))
    return _threats(own, opp) - _threats(opp, own) + W_CENTRE * centre


@njit(cache=True, nogil=True)
def final_score(s0, s1, player, params):
    """``WIN_SCORE`` plus the empty cells for a win (sooner is better), 0 for a draw."""
    empties = np.int64(popcount(C4_BOARD & ~(s0 | s1)))
    own, opp = _own_opp(s0, s1, player)
    if has_four(own):
        return WIN_SCORE + empties
    if has_four(opp):
        return -WIN_SCORE - empties
    return 0


@njit(cache=True, nogil=True)
def order_key(s0, s1, player, cell, depth, params):
    """A winning drop first, then a drop that blocks the opponent's four, then centre first."""
    own, opp = _own_opp(s0, s1, player)
    bit = U1 << np.uint64(cell)
    key = abs(cell // HEIGHT - COLS // 2)
    if has_four(own | bit):
        return key - 2 * COLS
    if has_four(opp | bit):
        return key - COLS
    return key


@njit(cache=True, nogil=True)
def greedy_score(s0, s1, player, cell, params):
    """Win at once, else block the opponent's four, else the centre, not under a loss."""
    own, opp = _own_opp(s0, s1, player)
    bit = U1 << np.uint64(cell)
    if has_four(own | bit):
        return GREEDY_WIN
    if has_four(opp | bit):
        return GREEDY_BLOCK
    above = (bit << _D1) & C4_BOARD
    if above and has_four(opp | above):
        return 0  # the opponent would win on the cell this drop opens
    return 1 + COLS // 2 - abs(cell // HEIGHT - COLS // 2)
