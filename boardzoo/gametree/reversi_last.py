"""The last empties of Reversi's exact endgame solver, compiled: no table, no move generation.

With few empty squares left most of a solve's positions are here, so this code is written for
speed in the way of Edax's ``solve_4`` .. ``board_score_1``:

- the last empty square: the disc difference after the move, from the number of discs it flips
  alone (:func:`last_flip_count`: with one square left, every other square is taken, so along
  each line the flipped discs are those before the mover's nearest disc);
- two and three empties: each square tried in turn, no loop over a list, no recursion but a pass;
  at three, the square alone in its quadrant first (parity);
- four empties: the odd quadrants' squares first; a few more (:func:`search_shallow`, with the
  stability cut-off of :mod:`boardzoo.gametree.reversi_stability`): a loop over the empty squares
  themselves, those of the quadrants with an odd number of empties first (parity), corners first
  and the squares next to them last within each (no mobility ordering: it costs more than the
  nodes it saves this near the end).

Every position visited counts one node (the one-empty positions included), as Edax counts them.
Scores are as Othello counts them: the disc difference, the empty squares going to the winner.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from boardzoo.games.bits import U0, U1, lowest_bit_index, popcount
from boardzoo.gametree.reversi_stability import stability_cut

__all__ = [
    "NEIGHBOURS",
    "final_score",
    "flips",
    "last_flip_count",
    "score_1",
    "search_shallow",
    "solve_2",
    "solve_3",
    "solve_4",
    "solve_few",
]

SCORE_BOUND = 65  # beyond any score
NO_PASS, PASSED = 0, 1  # whether the move before was a pass
NODES = 0  # counters[NODES]: the nodes searched
SHALLOW_LIMIT = 8  # what search_shallow is meant for: the exact solve uses it up to 7 empties
_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))  # the first four
# go towards higher bits


def _rays() -> np.ndarray:
    """For each square and direction, the squares from it (excluded) to the edge."""
    rays = np.zeros((64, 8), dtype=np.uint64)
    for square in range(64):
        for d, (dr, dc) in enumerate(_STEPS):
            r, c = divmod(square, 8)
            r, c = r + dr, c + dc
            while 0 <= r < 8 and 0 <= c < 8:
                rays[square, d] |= np.uint64(1 << (r * 8 + c))
                r, c = r + dr, c + dc
    return rays


def _neighbours() -> np.ndarray:
    """For each square, the squares around it."""
    near = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        for dr, dc in _STEPS:
            r, c = divmod(square, 8)
            if 0 <= r + dr < 8 and 0 <= c + dc < 8:
                near[square] |= np.uint64(1 << ((r + dr) * 8 + c + dc))
    return near


RAYS = _rays()
NEIGHBOURS = _neighbours()
# The quadrant of each square (for parity), and the quadrants' squares.
QUADRANT_OF = np.array([(s // 32) * 2 + (s % 8) // 4 for s in range(64)], dtype=np.int64)
QUADRANTS = np.array(
    [0x000000000F0F0F0F, 0x00000000F0F0F0F0, 0x0F0F0F0F00000000, 0xF0F0F0F000000000],
    dtype=np.uint64,
)
# Squares in the order tried within a parity class: corners, then the rest, the squares next to
# a corner (C and X squares) last.
_CORNERS, _NEXT_TO_CORNERS = 0x8100000000000081, 0x42C300000000C342
PRIORITY = np.array(
    [_CORNERS, ~(_CORNERS | _NEXT_TO_CORNERS) & (1 << 64) - 1, _NEXT_TO_CORNERS], dtype=np.uint64
)


@njit("u8(u8, u8, i8)", cache=True, nogil=True)
def flips(own, opp, square):
    """The discs of ``opp`` that ``own`` flips by placing on ``square`` (empty).

    Along each of the eight rays from the square, the first square that is not ``opp``'s ends
    the run: the run flips if that square is ``own``'s. Found with a bit scan per ray, the
    lowest bit for the rays towards higher bits, the highest for the others (with bit 0 as a
    sentinel: it counts only if it is ``own``'s and on the ray), all without branches.
    """
    flipped = U0
    for d in range(4):
        ray = RAYS[square, d]
        blocker = ray & ~opp
        first = blocker & (U0 - blocker)
        flipped |= (ray & (first - U1)) if first & own else U0
    for d in range(4, 8):
        ray = RAYS[square, d]
        blocker = (ray & ~opp) | U1
        first = U1 << np.uint64(63 - leading_zeros(blocker))
        flipped |= (ray & ~(first | (first - U1))) if first & own & ray else U0
    return flipped


@njit("i8(u8, u8, u8)", cache=True, nogil=True, inline="always")
def final_score(own, opp, valid):
    """The disc difference of a finished game, the empty squares going to the winner."""
    mine = np.int64(popcount(own))
    theirs = np.int64(popcount(opp))
    empties = np.int64(popcount(valid & ~(own | opp)))
    if mine > theirs:
        return mine - theirs + empties
    if mine < theirs:
        return mine - theirs - empties
    return np.int64(0)


@njit("i8(u8, i8, u8)", cache=True, nogil=True)
def last_flip_count(own, square, valid):
    """The discs flipped by ``own`` placing on ``square``, the last empty square of ``valid``."""
    count = U0
    for d in range(4):  # towards higher bits: the nearest own disc is the lowest one
        ray = RAYS[square, d] & valid
        mine = own & ray
        if mine:
            count += popcount(ray & (mine ^ (mine - U1))) - U1
    for d in range(4, 8):  # towards lower bits: the highest one
        ray = RAYS[square, d] & valid
        mine = own & ray
        if mine:
            top = U1 << np.uint64(63 - leading_zeros(mine))
            count += popcount(ray & ~(top | (top - U1)))
    return np.int64(count)


@njit("i8(u8, u8, u8, i8)", cache=True, nogil=True)
def score_1(own, opp, valid, square):
    """The final score with one empty square left, ``square``: the side to move places there if
    it can, else the opponent does, else it stays empty."""
    squares = np.int64(popcount(valid))
    mine = np.int64(popcount(own))
    if NEIGHBOURS[square] & opp:
        flipped = last_flip_count(own, square, valid)
        if flipped:
            return 2 * (mine + flipped + 1) - squares
    if NEIGHBOURS[square] & own:
        flipped = last_flip_count(opp, square, valid)
        if flipped:
            return 2 * (mine - flipped) - squares
    diff = 2 * mine - squares + 1
    if diff > 0:
        return diff + 1
    if diff < 0:
        return diff - 1
    return np.int64(0)


@njit("i8(u8, u8, u8, i8, i8, i8, i8, i8, i8[::1])", cache=True, nogil=True)
def solve_2(own, opp, valid, x1, x2, alpha, beta, passed, counters):
    """The score with two empty squares left, ``x1`` and ``x2``."""
    counters[NODES] += 1
    best = -SCORE_BOUND
    if NEIGHBOURS[x1] & opp:
        flipped = flips(own, opp, x1)
        if flipped:
            counters[NODES] += 1
            best = -score_1(opp & ~flipped, own | flipped | (U1 << np.uint64(x1)), valid, x2)
            if best >= beta:
                return best
    if NEIGHBOURS[x2] & opp:
        flipped = flips(own, opp, x2)
        if flipped:
            counters[NODES] += 1
            score = -score_1(opp & ~flipped, own | flipped | (U1 << np.uint64(x2)), valid, x1)
            return max(best, score)
    if best > -SCORE_BOUND:
        return best
    if passed:
        return final_score(own, opp, valid)
    return -solve_2(opp, own, valid, x1, x2, -beta, -alpha, np.int64(PASSED), counters)


@njit("i8(u8, u8, u8, i8, i8, i8, i8, i8, i8[::1])", cache=True, nogil=True, inline="always")
def _try_3(own, opp, valid, x, y, z, alpha, beta, counters):
    """The score of placing on ``x`` with three empties ``x``, ``y``, ``z`` (no move there:
    ``-SCORE_BOUND``)."""
    if NEIGHBOURS[x] & opp:
        flipped = flips(own, opp, x)
        if flipped:
            child_own = opp & ~flipped
            child_opp = own | flipped | (U1 << np.uint64(x))
            return -solve_2(
                child_own, child_opp, valid, y, z, -beta, -alpha, np.int64(NO_PASS), counters
            )
    return np.int64(-SCORE_BOUND)


@njit("i8(u8, u8, u8, i8, i8, i8, i8, i8, i8, i8[::1])", cache=True, nogil=True)
def solve_3(own, opp, valid, x1, x2, x3, alpha, beta, passed, counters):
    """The score with three empty squares left; the one alone in its quadrant first."""
    counters[NODES] += 1
    q1, q2, q3 = QUADRANT_OF[x1], QUADRANT_OF[x2], QUADRANT_OF[x3]
    if q1 == q2 and q3 != q1:
        x1, x2, x3 = x3, x1, x2
    elif q1 == q3 and q2 != q1:
        x1, x2 = x2, x1
    best = _try_3(own, opp, valid, x1, x2, x3, alpha, beta, counters)
    if best >= beta:
        return best
    score = _try_3(own, opp, valid, x2, x1, x3, max(alpha, best), beta, counters)
    if score > best:
        best = score
        if best >= beta:
            return best
    score = _try_3(own, opp, valid, x3, x1, x2, max(alpha, best), beta, counters)
    if score > best:
        return score
    if best > -SCORE_BOUND:
        return best
    if passed:
        return final_score(own, opp, valid)
    return -solve_3(opp, own, valid, x1, x2, x3, -beta, -alpha, np.int64(PASSED), counters)


@njit("i8(u8, u8, u8, u8, i8, i8, i8, i8[::1])", cache=True, nogil=True)
def solve_4(own, opp, valid, empty, alpha, beta, passed, counters):
    """The score with the four ``empty`` squares left; those of odd quadrants first."""
    counters[NODES] += 1
    squares = np.empty(4, dtype=np.int64)
    parity = 0
    bits = empty
    for i in range(4):
        squares[i] = lowest_bit_index(bits)
        bits &= bits - U1
        parity ^= 1 << QUADRANT_OF[squares[i]]
    order = np.empty(4, dtype=np.int64)
    n = 0
    for i in range(4):
        if parity & (1 << QUADRANT_OF[squares[i]]):
            order[n] = squares[i]
            n += 1
    for i in range(4):
        if not parity & (1 << QUADRANT_OF[squares[i]]):
            order[n] = squares[i]
            n += 1
    best = -SCORE_BOUND
    for i in range(4):
        x = order[i]
        if NEIGHBOURS[x] & opp == U0:
            continue
        flipped = flips(own, opp, x)
        if flipped == U0:
            continue
        a, b, c = order[(i + 1) & 3], order[(i + 2) & 3], order[(i + 3) & 3]
        score = -solve_3(
            opp & ~flipped, own | flipped | (U1 << np.uint64(x)), valid, a, b, c,
            -beta, -max(alpha, best), np.int64(NO_PASS), counters,
        )  # fmt: skip
        if score > best:
            best = score
            if best >= beta:
                return best
    if best > -SCORE_BOUND:
        return best
    if passed:
        return final_score(own, opp, valid)
    return -solve_4(opp, own, valid, empty, -beta, -alpha, np.int64(PASSED), counters)


@njit("i8(u8, u8, u8, u8, i8, i8, i8, i8[::1])", cache=True, nogil=True)
def search_shallow(own, opp, valid, empty, alpha, beta, passed, counters):
    """Negamax over the ``empty`` squares (a few more than four), trying each in turn: the odd
    quadrants' first, corners first and the squares next to them last within each."""
    counters[NODES] += 1
    bound = stability_cut(own, opp, valid, np.int64(popcount(empty)), alpha)
    if bound <= alpha:
        return bound
    odd = U0
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & U1:
            odd |= QUADRANTS[q]
    best = -SCORE_BOUND
    five = popcount(empty) == 5
    for k in range(6):
        squares = empty & PRIORITY[k % 3] & (odd if k < 3 else ~odd)
        while squares:
            x = lowest_bit_index(squares)
            squares &= squares - U1
            if NEIGHBOURS[x] & opp == U0:
                continue
            flipped = flips(own, opp, x)
            if flipped == U0:
                continue
            bit = U1 << np.uint64(x)
            child_own = opp & ~flipped
            child_opp = own | flipped | bit
            if five:
                score = -solve_4(
                    child_own, child_opp, valid, empty & ~bit, -beta, -max(alpha, best),
                    np.int64(NO_PASS), counters,
                )  # fmt: skip
            else:
                score = -search_shallow(
                    child_own, child_opp, valid, empty & ~bit, -beta, -max(alpha, best),
                    np.int64(NO_PASS), counters,
                )  # fmt: skip
            if score > best:
                best = score
                if best >= beta:
                    return best
    if best > -SCORE_BOUND:
        return best
    if passed:
        return final_score(own, opp, valid)
    return -search_shallow(opp, own, valid, empty, -beta, -alpha, np.int64(PASSED), counters)


@njit("i8(u8, u8, u8, u8, i8, i8, i8, i8[::1])", cache=True, nogil=True)
def solve_few(own, opp, valid, empty, alpha, beta, passed, counters):
    """The score with at most :data:`SHALLOW_LIMIT` ``empty`` squares left, by their count."""
    empties = popcount(empty)
    if empties > 4:
        return search_shallow(own, opp, valid, empty, alpha, beta, passed, counters)
    if empties == 4:
        return solve_4(own, opp, valid, empty, alpha, beta, passed, counters)
    x1 = lowest_bit_index(empty)
    rest = empty & (empty - U1)
    if empties == 3:
        x2 = lowest_bit_index(rest)
        x3 = lowest_bit_index(rest & (rest - U1))
        return solve_3(own, opp, valid, x1, x2, x3, alpha, beta, passed, counters)
    if empties == 2:
        return solve_2(own, opp, valid, x1, lowest_bit_index(rest), alpha, beta, passed, counters)
    counters[NODES] += 1
    if empties == 1:
        return score_1(own, opp, valid, x1)
    return final_score(own, opp, valid)
