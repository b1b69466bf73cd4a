"""Compiled Reversi kernels on 64-bit bitboards.

Layout: bit ``row * 8 + col`` is the square on ``row`` (0 is the top row, rank 1) and ``col``
(0 is file a). Boards of size 4 and 6 use the top-left corner of the same 8x8 layout, so one set
of kernels serves every size: ``valid`` masks the squares that exist. Bits outside ``valid`` are
never set, which is also what stops a smaller board from wrapping around.

All kernels see the position from the side to move: ``own`` are its discs, ``opp`` the
opponent's. They are pure functions of their arguments (no globals are written), compiled with
``cache=True, nogil=True`` so threads can run them in parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games._bits import U0, U1, popcount, random_set_bit, seed_rng

# Discs that may be flipped by a horizontal or diagonal run are never on file a or file h
# (a bracketed run has a disc on both sides), so masking the opponent with the inner files
# stops the shifts from wrapping from file h to file a of the next row and back.
INNER_FILES = np.uint64(0x7E7E7E7E7E7E7E7E)
ALL_SQUARES = np.uint64(0xFFFFFFFFFFFFFFFF)
_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_S14 = np.uint64(14)
_S16 = np.uint64(16)
_S18 = np.uint64(18)


def valid_mask(size: int) -> int:
    """Bitboard of the squares of a ``size`` x ``size`` board in the 8x8 layout."""
    row = (1 << size) - 1
    return sum(row << (8 * r) for r in range(size))


@njit("u8(u8, u8, u8, u8)", cache=True, nogil=True, inline="always")
def _moves_along(own, mask, shift, shift2):
    """Empty-or-not squares that end a run of ``mask`` discs starting next to ``own``, both ways.

    Kogge-Stone style: two single steps, then two double steps cover runs of up to six discs.
    """
    left = mask & (own << shift)
    right = mask & (own >> shift)
    left |= mask & (left << shift)
    right |= mask & (right >> shift)
    mask_left = mask & (mask << shift)
    mask_right = mask & (mask >> shift)
    left |= mask_left & (left << shift2)
    right |= mask_right & (right >> shift2)
    left |= mask_left & (left << shift2)
    right |= mask_right & (right >> shift2)
    return (left << shift) | (right >> shift)


@njit("u8(u8, u8, u8)", cache=True, nogil=True)
def legal_moves(own, opp, valid):
    """Bitboard of the squares where the side to move may place a disc."""
    inner = opp & INNER_FILES
    moves = (
        _moves_along(own, inner, _S1, np.uint64(2))
        | _moves_along(own, opp, _S8, _S16)
        | _moves_along(own, inner, _S7, _S14)
        | _moves_along(own, inner, _S9, _S18)
    )
    return moves & valid & ~(own | opp)


@njit("u8(u8, u8, u8, u8)", cache=True, nogil=True, inline="always")
def _flips_left(move, own, mask, shift):
    """Discs of ``mask`` flipped in the direction of a left shift by placing on ``move``."""
    run = mask & (move << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    return run if (run << shift) & own else U0


@njit("u8(u8, u8, u8, u8)", cache=True, nogil=True, inline="always")
def _flips_right(move, own, mask, shift):
    """Discs of ``mask`` flipped in the direction of a right shift by placing on ``move``."""
    run = mask & (move >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    return run if (run >> shift) & own else U0


@njit("u8(u8, u8, i8)", cache=True, nogil=True)
def flips(own, opp, square):
    """Bitboard of the opponent discs flipped when the side to move places on ``square``.

    Only the discs bracketed in a straight line count: a run that ends on an empty square or the
    edge flips nothing. The caller checks that ``square`` is a legal move.
    """
    move = U1 << np.uint64(square)
    inner = opp & INNER_FILES
    return (
        _flips_left(move, own, inner, _S1)
        | _flips_right(move, own, inner, _S1)
        | _flips_left(move, own, opp, _S8)
        | _flips_right(move, own, opp, _S8)
        | _flips_left(move, own, inner, _S7)
        | _flips_right(move, own, inner, _S7)
        | _flips_left(move, own, inner, _S9)
        | _flips_right(move, own, inner, _S9)
    )


@njit("UniTuple(u8, 4)(u8, u8, u8, i8)", cache=True, nogil=True)
def play(own, opp, valid, square):
    """Place on ``square`` (or pass when ``square`` < 0) and hand the turn over.

    Returns ``(next_own, next_opp, next_moves, next_opp_moves)`` from the point of view of the
    player who moves next: its discs, its opponent's, its legal placements and its opponent's.
    """
    if square >= 0:
        flipped = flips(own, opp, square)
        own = own | flipped | (U1 << np.uint64(square))
        opp = opp & ~flipped
    return opp, own, legal_moves(opp, own, valid), legal_moves(own, opp, valid)


@njit("i8(u8, u8, u8, i8)", cache=True, nogil=True)
def perft(own, opp, valid, depth):
    """Leaf count of the game tree ``depth`` plies deep; a forced pass is a ply.

    A finished game reached before ``depth`` counts as one leaf.
    """
    moves = legal_moves(own, opp, valid)
    if depth == 1:
        if moves:
            return np.int64(popcount(moves))
        return 1  # a pass, or the end of the game: either way one leaf
    if not moves:
        if not legal_moves(opp, own, valid):
            return 1
        return perft(opp, own, valid, depth - 1)
    total = 0
    while moves:
        move = moves & (~moves + U1)  # lowest set bit
        moves ^= move
        square = np.int64(popcount(move - U1))
        flipped = flips(own, opp, square)
        total += perft(opp & ~flipped, own | flipped | move, valid, depth - 1)
    return total


@njit("Tuple((i8, u8))(u8, u8, u8, u8)", cache=True, nogil=True)
def random_playout(own, opp, valid, rng):
    """Play uniformly random legal moves to the end of the game.

    Returns the final disc difference from the point of view of the side that was to move at the
    start (positive: it won) and the next RNG state.
    """
    sign = 1
    passed = False
    while True:
        moves = legal_moves(own, opp, valid)
        if moves:
            square, rng = random_set_bit(moves, rng)
            flipped = flips(own, opp, square)
            own, opp = opp & ~flipped, own | flipped | (U1 << np.uint64(square))
            passed = False
        elif passed:
            break  # neither side can move: the game is over
        else:
            own, opp = opp, own
            passed = True
        sign = -sign
    # ``own`` is the side that would move next; ``sign`` is +1 when that is the starting side.
    return sign * (np.int64(popcount(own)) - np.int64(popcount(opp))), rng


@njit("i8[:](u8, u8, u8, i8, u8)", cache=True, nogil=True)
def random_playouts(own, opp, valid, count, seed):
    """Run ``count`` random playouts from one position; return the wins, draws and losses.

    The counts are from the point of view of the side to move. Used by the benchmark and the tests.
    """
    rng = seed_rng(seed)
    outcome = np.zeros(3, dtype=np.int64)
    for _ in range(count):
        diff, rng = random_playout(own, opp, valid, rng)
        if diff > 0:
            outcome[0] += 1
        elif diff == 0:
            outcome[1] += 1
        else:
            outcome[2] += 1
    return outcome
