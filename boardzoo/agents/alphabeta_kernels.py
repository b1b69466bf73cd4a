"""Compiled negamax alpha-beta searches for Reversi (bitboards of any size) and TicTacToe.

Every search counts its nodes in ``counters`` and gives up once they pass ``counters[BUDGET]``
(numba cannot read the clock, so the caller turns its time limit into a node budget): it then sets
``counters[ABORTED]``, and only the root moves it finished count. All bitboards are ``uint64``;
scores are ``int64`` from the point of view of the side to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games._bits import U1, popcount
from boardzoo.games.reversi_kernels import flips, legal_moves
from boardzoo.games.tictactoe_kernels import TTT_FULL, has_line

# counters[...] slots
NODES, BUDGET, ABORTED, HORIZON, SELDEPTH = 0, 1, 2, 3, 4
NUM_COUNTERS = 5

# geometry[...] slots (uint64): the valid squares, the corners, then corner i and its X-square
VALID, CORNERS, CORNER_0, X_SQUARE_0 = 0, 1, 2, 6
GEOMETRY_SIZE = 10

MAX_PLY = 136  # a Reversi game lasts at most 2 * 60 + 1 plies from any position (passes included)
MAX_MOVES = 64
UNBOUNDED_DEPTH = 1_000  # deeper than any game: the search only stops at the end of the game

# A finished game scores WIN + disc difference (won), 0 (drawn) or -WIN + disc difference (lost):
# any win beats any evaluation, which stays far below WIN.
WIN = 1_000_000
INFINITY = 1 << 40

# Evaluation weights (Reversi): legal moves, corners, X-squares next to an empty corner, discs.
W_MOBILITY = 8
W_CORNER = 30
W_X_SQUARE = -12
W_DISC = 1

# Move ordering: with this many plies left or more and this many empty squares or more, children
# are sorted by the opponent's mobility after the move (fewest first) plus the static key; else by
# the static key only (near the leaves sorting costs more than it saves).
ORDER_BY_MOBILITY_DEPTH = 3
ORDER_BY_MOBILITY_EMPTIES = np.uint64(6)


@njit("i8(u8, u8)", cache=True, nogil=True)
def final_score(own, opp):
    """Score of a finished game for the side to move: wins dominate, then the disc difference."""
    diff = np.int64(popcount(own)) - np.int64(popcount(opp))
    if diff > 0:
        return WIN + diff
    if diff < 0:
        return -WIN + diff
    return 0


@njit("i8(u8, u8, u8, u8, u8[:])", cache=True, nogil=True)
def evaluate(own, opp, own_moves, opp_moves, geometry):
    """Heuristic score of a position in play: mobility, corners, risky X-squares and discs."""
    mobility = np.int64(popcount(own_moves)) - np.int64(popcount(opp_moves))
    corners = geometry[CORNERS]
    corner_diff = np.int64(popcount(own & corners)) - np.int64(popcount(opp & corners))
    x_diff = 0
    taken = own | opp
    for i in range(4):
        if not taken & geometry[CORNER_0 + i]:
            x_square = geometry[X_SQUARE_0 + i]
            if own & x_square:
                x_diff += 1
            elif opp & x_square:
                x_diff -= 1
    discs = np.int64(popcount(own)) - np.int64(popcount(opp))
    return W_MOBILITY * mobility + W_CORNER * corner_diff + W_X_SQUARE * x_diff + W_DISC * discs


@njit(
    "i8(u8, u8, u8[:], i8[:], i8, i8, i8, i8, i8[:], i8[:, :], i8[:, :])",
    cache=True,
    nogil=True,
)
def negamax(own, opp, geometry, order_key, depth, alpha, beta, ply, counters, squares, keys):
    """Fail-soft alpha-beta value of the position, searched ``depth`` plies (a pass is a ply).

    ``squares`` and ``keys`` are scratch rows for move ordering, one row per ply.
    """
    counters[NODES] += 1
    if counters[NODES] > counters[BUDGET]:
        counters[ABORTED] = 1
        return 0
    if ply > counters[SELDEPTH]:
        counters[SELDEPTH] = ply
    valid = geometry[VALID]
    moves = legal_moves(own, opp, valid)
    if not moves:
        opp_moves = legal_moves(opp, own, valid)
        if not opp_moves:
            return final_score(own, opp)
        if depth <= 0:
            counters[HORIZON] += 1
            return evaluate(own, opp, moves, opp_moves, geometry)
        value = -negamax(
            opp, own, geometry, order_key, depth - 1, -beta, -alpha, ply + 1, counters, squares,
            keys,
        )  # fmt: skip
        return 0 if counters[ABORTED] else value
    if depth <= 0:
        counters[HORIZON] += 1
        return evaluate(own, opp, moves, legal_moves(opp, own, valid), geometry)

    # Order the moves: insertion sort on the key, lowest first.
    count = 0
    by_mobility = (
        depth >= ORDER_BY_MOBILITY_DEPTH
        and popcount(valid & ~(own | opp)) >= ORDER_BY_MOBILITY_EMPTIES
    )
    while moves:
        bit = moves & (~moves + U1)
        moves ^= bit
        square = np.int64(popcount(bit - U1))
        key = order_key[square]
        if by_mobility:
            flipped = flips(own, opp, square)
            key += 4 * np.int64(popcount(legal_moves(opp & ~flipped, own | flipped | bit, valid)))
        i = count
        while i > 0 and keys[ply, i - 1] > key:
            squares[ply, i] = squares[ply, i - 1]
            keys[ply, i] = keys[ply, i - 1]
            i -= 1
        squares[ply, i] = square
        keys[ply, i] = key
        count += 1

    best = -INFINITY
    for i in range(count):
        square = squares[ply, i]
        bit = U1 << np.uint64(square)
        flipped = flips(own, opp, square)
        value = -negamax(
            opp & ~flipped, own | flipped | bit, geometry, order_key, depth - 1, -beta, -alpha,
            ply + 1, counters, squares, keys,
        )  # fmt: skip
        if counters[ABORTED]:
            return 0
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


@njit("UniTuple(i8, 3)(u8, u8, u8[:], i8[:], i8[:], i8, i8[:])", cache=True, nogil=True)
def search_root(own, opp, geometry, order_key, root_squares, depth, counters):
    """Search the root moves in the given order (``-1`` is a pass).

    Returns the index of the best move, its value and how many root moves were fully searched.
    The first of equally good moves wins, so the caller breaks ties by the order it passes. When
    the budget runs out ``counters[ABORTED]`` is set: the best of the moves searched so far is
    still returned (its value is only comparable with theirs).
    """
    squares = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    keys = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    alpha, beta = -INFINITY, INFINITY
    best_index, best = 0, -INFINITY
    counters[NODES] += 1
    for i in range(root_squares.shape[0]):
        square = root_squares[i]
        if square < 0:
            child_own, child_opp = opp, own
        else:
            bit = U1 << np.uint64(square)
            flipped = flips(own, opp, square)
            child_own, child_opp = opp & ~flipped, own | flipped | bit
        value = -negamax(
            child_own, child_opp, geometry, order_key, depth - 1, -beta, -alpha, 1, counters,
            squares, keys,
        )  # fmt: skip
        if counters[ABORTED]:
            return best_index, best, i
        if value > best:
            best_index, best = i, value
            if value > alpha:
                alpha = value
    return best_index, best, root_squares.shape[0]


# --- TicTacToe ------------------------------------------------------------------------------------


@njit("i8(u8, u8, i8, i8, i8[:])", cache=True, nogil=True)
def ttt_negamax(own, opp, alpha, beta, counters):
    """Exact value for the side to move: ``1 + empties`` for a win (sooner is better), 0 a draw."""
    counters[NODES] += 1
    empty = TTT_FULL & ~(own | opp)
    if has_line(opp):  # the opponent's last mark made a line
        return -(1 + np.int64(popcount(empty)))
    if not empty:
        return 0
    best = -INFINITY
    for square in range(9):
        bit = U1 << np.uint64(square)
        if empty & bit:
            value = -ttt_negamax(opp, own | bit, -beta, -alpha, counters)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
    return best


@njit("UniTuple(i8, 2)(u8, u8, i8[:], i8[:])", cache=True, nogil=True)
def ttt_search_root(own, opp, root_squares, counters):
    """Best root move index and its exact value; the first of equally good moves wins."""
    alpha, beta = -INFINITY, INFINITY
    best_index, best = 0, -INFINITY
    counters[NODES] += 1
    for i in range(root_squares.shape[0]):
        value = -ttt_negamax(opp, own | (U1 << np.uint64(root_squares[i])), -beta, -alpha, counters)
        if value > best:
            best_index, best = i, value
            if value > alpha:
                alpha = value
    return best_index, best


__all__ = [
    "ABORTED",
    "BUDGET",
    "GEOMETRY_SIZE",
    "HORIZON",
    "NODES",
    "NUM_COUNTERS",
    "SELDEPTH",
    "UNBOUNDED_DEPTH",
    "WIN",
    "evaluate",
    "final_score",
    "negamax",
    "search_root",
    "ttt_negamax",
    "ttt_search_root",
]
