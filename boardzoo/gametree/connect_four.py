"""Connect Four's depth-first knowledge: the plug-in of its exact solve, and its opening book.

Scores are those of the Connect 4 Game Solver (Pascal Pons' solver and its documentation): for
the player to move, ``22 - s`` when it wins with its ``s``-th disc (so ``1`` wins with its last,
21st disc), ``0`` for a draw, and ``s - 22`` when the opponent wins with its ``s``-th disc. With
perfect play the winner wins as soon as it can and the loser loses as late as it can; a move's
score for the player who made it is minus its score for the opponent. ``4455`` (moves as columns
1-7) scores 18: red wins with its 4th disc.

A position is seen from the side to move (``x``: the mover's discs; ``y``: every disc), on the
bitboards of :mod:`boardzoo.games.connect_four`, in the way the strongest published solvers work:

- the player to move never wins in one move inside the search (that is checked before a move is
  played, so a position's score bounds are known from the number of discs alone and clamp the
  window: :func:`tree_bounds`);
- moves that lose at once are never searched (:func:`tree_moves`): a move must block an
  opponent's four, there can be only one such block (two threats: the position is lost), and a
  move is not played under a cell that would give the opponent four;
- moves are ordered by the number of fours they threaten, the centre columns first among equals;
- the table, with enhanced transposition cut-offs up to :data:`ETC_DISCS` discs;
- an exact solve is a sequence of null-window searches that halve the range of possible scores
  (biased towards the draw, where most positions are), each reusing the table.

An opening book (:mod:`boardzoo.gametree.connect_four_book`) answers the first moves, where the
search would take longest: :func:`book_scores` and :func:`book_move`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, lowest_bit_index, popcount
from boardzoo.games.connect_four import BOARD, BOTTOM, COLS, HEIGHT, ROWS, ConnectFourState
from boardzoo.games.connect_four_kernels import has_four
from boardzoo.gametree.connect_four_book import shipped_book

__all__ = [
    "CONSTANTS",
    "MAX_EMPTIES",
    "SCORE_LIMIT",
    "TAKEOVER_EMPTIES",
    "TREE_EMPTIES",
    "book_move",
    "book_scores",
    "playable",
    "safe_moves",
    "winning_cells",
]

CELLS = ROWS * COLS  # 42
SCORE_LIMIT = 22  # beyond any score: the window (-SCORE_LIMIT, SCORE_LIMIT) is exact
# What a solve is allowed by default: positions with 4 discs take about 30 s here, fewer far
# longer; the opening book answers those (boardzoo.gametree.connect_four_book).
MAX_EMPTIES = 38
# Where searches hand over to the solver (boardzoo.search.handover), measured on the labelled
# set's positions (from games of every strength): at the root, positions with 34 empty cells are
# solved exactly in 0.5 s (median; 30 empty cells 0.04 s), and a solve that cannot finish within
# the move's clock gives the move back to the search: on the labelled positions with 28-35 empty
# cells `az:time_limit=0.1` missed the result in 23 of 432 with the root from 30 and the tree
# from 20, 13 from 34 and 20, 7 from 34 and 22 (both cores busy); inside the tree, 20-22 empty
# cells take a few hundred nodes (90th percentile 0.2 ms at 20), a simulation's cost.
TAKEOVER_EMPTIES = 34
TREE_EMPTIES = 22
ETC_DISCS = 34  # up to this many discs: enhanced transposition cut-offs
# The search's switches this plug-in needs (boardzoo.gametree.compile freezes them).
CONSTANTS = {"BOUNDS": True, "ZOOM": 2, "SCORE_LIMIT": SCORE_LIMIT, "CLOCK_MASK": 4095}

_BOARD = np.uint64(BOARD)
_BOTTOM = np.uint64(BOTTOM)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S3 = np.uint64(3)
_DIRECTIONS = (np.uint64(HEIGHT), np.uint64(HEIGHT - 1), np.uint64(HEIGHT + 1))
# Among equally threatening moves, the centre column first, then outwards.
_CENTRE_RANK = np.array([abs(2 * c - (COLS - 1)) for c in range(COLS)], dtype=np.int64)


@njit("u8(u8, u8)", cache=True, nogil=True, inline="always")
def winning_cells(discs, mask):
    """The empty cells (playable now or not) that would complete a four of ``discs``."""
    # vertical: three discs right below
    cells = (discs << _S1) & (discs << _S2) & (discs << _S3)
    for shift in _DIRECTIONS:  # horizontal and the two diagonals: the gap at any of 4 places
        s2 = shift + shift
        s3 = s2 + shift
        pair = (discs << shift) & (discs << s2)
        cells |= pair & (discs << s3)
        cells |= pair & (discs >> shift)
        pair = (discs >> shift) & (discs >> s2)
        cells |= pair & (discs << shift)
        cells |= pair & (discs >> s3)
    return cells & (_BOARD ^ mask)


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def playable(mask):
    """The lowest empty cell of every column that is not full."""
    return (mask + _BOTTOM) & _BOARD


@njit("u8(u8, u8)", cache=True, nogil=True, inline="always")
def safe_moves(own, mask):
    """The moves that do not lose at once: the one forced block if the opponent threatens four
    (none if it threatens two), never a cell right under an opponent's four."""
    moves = playable(mask)
    threats = winning_cells(own ^ mask, mask)
    forced = moves & threats
    if forced:
        if forced & (forced - U1):
            return U0  # two threats: lost
        moves = forced
    return moves & ~(threats >> _S1)


def tree_root_position(s0, s1, player, params):
    return (s0 if player == 0 else s1), s0 | s1, np.int64(0)


def tree_moves(x, y, player, params):
    return safe_moves(x, y)


def tree_child(x, y, player, cell, params):
    return x ^ y, y | (U1 << np.uint64(cell))


def tree_over(x, y, player, params, passed):
    return True, U0  # no safe move: the opponent wins with its next disc (or the board is full)


def tree_final(x, y, player, params):
    discs = np.int64(popcount(y))
    return np.int64(0) if discs == CELLS else -((CELLS - discs) // 2)


def tree_order_key(x, y, player, cell, depth, params):
    threats = np.int64(popcount(winning_cells(x | (U1 << np.uint64(cell)), y)))
    return -8 * threats + _CENTRE_RANK[cell // HEIGHT]


def tree_bounds(x, y, player, moves, params, alpha, ply):
    discs = np.int64(popcount(y))
    if discs >= CELLS - 2:
        return np.int64(0), np.int64(0)  # the opponent cannot win with the last disc: a draw
    low = -((CELLS - 2 - discs) // 2)  # the opponent cannot win with its next disc
    high = (CELLS - 1 - discs) // 2  # the mover cannot win with its next disc
    return low, high


def tree_etc_worthy(x, y, params, depth):
    return popcount(y) <= ETC_DISCS


def tree_settled(x, y, player, params):
    discs = np.int64(popcount(y))
    if has_four(x ^ y):
        return True, (discs + 1) // 2 - 22, np.int64(-1)  # the last move won
    if y == _BOARD:
        return True, np.int64(0), np.int64(-1)
    wins = playable(y) & winning_cells(x, y)
    if wins:
        return True, (CELLS + 1 - discs) // 2, np.int64(lowest_bit_index(wins))
    if safe_moves(x, y) == U0:
        return True, -((CELLS - discs) // 2), np.int64(lowest_bit_index(playable(y)))
    return False, np.int64(0), np.int64(-1)


def tree_score_range(x, y, player, params):
    discs = np.int64(popcount(y))
    return -((CELLS - discs) // 2), (CELLS + 1 - discs) // 2


def book_scores(state: ConnectFourState) -> tuple[int, dict[int, int]] | None:
    """The opening book's answer for ``state`` (:mod:`boardzoo.gametree.connect_four_book`): its
    exact score and every move's (``{}`` when its children are beyond the book), ``None`` when
    the position is not in the book or no book is shipped. Asked first by
    :func:`boardzoo.gametree.solve.solve`."""
    book = shipped_book()
    score = None if book is None else book.score(state)
    if book is None or score is None:
        return None
    return score, book.move_scores(state) or {}


def book_move(state: ConnectFourState) -> int | None:
    """A move (a column) that keeps ``state``'s book score, where the shipped book holds one
    for a position whose children are beyond it (its positions with the most discs); ``None``
    otherwise. Asked by :func:`boardzoo.gametree.solve.solve` when :func:`book_scores` has no
    move's score."""
    book = shipped_book()
    return None if book is None else book.best_move(state)
