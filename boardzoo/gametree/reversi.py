"""Reversi's depth-first knowledge: the plug-in of its exact endgame solve.

Scores are as Othello counts them (and the FFO positions, Edax and Zebra report them): the final
disc difference, the empty squares of a game that ends before the board is full going to the
winner. A position is seen from the side to move (``x``: its discs, ``y``: the opponent's), in
the way of the strong endgame programs (Edax, Zebra); with the search's switches
(:data:`boardzoo.gametree.settings.EXACT`) the solve is:

- many empties: principal-variation search, moves ordered by the table's move, then fastest
  first (:func:`tree_ordered_child`: the opponent's mobility after the move, its corner moves
  above all, a corner taken, and the opponent's potential mobility; weights tuned on FFO
  #41-#47 by the nodes searched), and, with :data:`EVAL_ORDER_EMPTIES` empties or more after
  the move, the learned evaluation of the position it leaves (as Edax orders by its evaluation
  there; on FFO #41-#44 and #47 the solve searches half the nodes), each move's child and the
  opponent's replies worked out once;
  a stability cut-off (:mod:`boardzoo.gametree.reversi_stability`: the opponent's stable discs
  bound the score);
- from :data:`TABLE_EMPTIES` empties the transposition table, the entry solved from fewer
  empties replaced; below that a probe (a cache miss) costs more than it saves; from
  :data:`ETC_EMPTIES` empties, enhanced transposition cut-offs;
- :data:`LEAF_EMPTIES` empties or fewer (:mod:`boardzoo.gametree.reversi_last`): no table, no
  move generation, loops over the empty squares, odd regions first (parity), hand-written code
  for the last three, the last move counting flips only.

An exact solve is a win/draw/loss solve (the window ``(-1, 1)``) and then null-window searches
stepping from its bound to the score (MTD(f)), each reusing what the table learnt. Boards of 4x4
and 6x6 use the same 8x8 layout (``params[0]`` masks the squares that exist). Every position
visited counts one node, the last empties' ones included, as Edax counts them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, popcount
from boardzoo.games.reversi_kernels import legal_moves
from boardzoo.gametree.reversi_last import final_score, flips, solve_few
from boardzoo.gametree.reversi_stability import stability_cut
from boardzoo.learned.ntuple import ntuple_value_arrays

__all__ = [
    "CONSTANTS",
    "ETC_EMPTIES",
    "LEAF_EMPTIES",
    "MAX_EMPTIES",
    "SCORE_LIMIT",
    "TABLE_EMPTIES",
    "TAKEOVER_EMPTIES",
    "TREE_EMPTIES",
]

LEAF_EMPTIES = 7  # at most this many empties: reversi_last's search
ETC_EMPTIES = 10  # from this many empties: enhanced transposition cutoffs
TABLE_EMPTIES = 8  # from this many empties: the transposition table
SCORE_LIMIT = 64  # no score is beyond it: the window (-SCORE_LIMIT, SCORE_LIMIT) is exact
# What a solve is allowed by default: FFO #49 (26 empties) takes a few minutes here.
MAX_EMPTIES = 30
# Where searches hand over to the solver (boardzoo.search.handover). At the root: positions of
# real games with 20 empties are solved win/draw/loss in 0.08 s (median; 90th percentile 0.23 s)
# and exactly in 0.4 s (1.0 s), so a 1 s move solves them
# (benchmarks/bench_solve_reach.py). Inside the tree: 12 empties, a few hundred microseconds a
# solve.
TAKEOVER_EMPTIES = 20
TREE_EMPTIES = 12
# The search's switches this plug-in needs (boardzoo.gametree.compile freezes them).
CONSTANTS = {
    "CHILD_ORDER": True,
    "LEAF": True,
    "BOUNDS": True,
    "ZOOM": 1,  # MTD(f) from the win/draw/loss solve
    "SCORE_LIMIT": SCORE_LIMIT,
    "CLOCK_MASK": 4095,
}

SCORE_BOUND = 65  # beyond any score
# Fastest first: the opponent's moves weigh most, corners taken help, potential mobility least.
CORNERS = np.uint64(0x8100000000000081)
W_MOBILITY = 16
W_CORNER = 60
W_POTENTIAL = 1
W_TAKE_CORNER = 15
# With this many empties or more left after the move, the learned evaluation of the child helps
# order the moves (Edax orders by its evaluation from about 15 empties), weighing W_EVAL per unit
# of value in (-1, 1): on FFO #41-#44 and #47, 12-18 empties and weights 64-512 tried, 14 and 128
# searched the fewest nodes (182 M against 364 M without); a search one ply deeper to order the
# moves of 20 empties or more searched more.
EVAL_ORDER_EMPTIES = 14
W_EVAL = 128
ORDER_NETS = ("none", "learned")  # the exact solve is compiled without and with the ordering net
_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
_S1 = np.uint64(1)
_S8 = np.uint64(8)


@njit("i8(u8, u8)", cache=True, nogil=True, inline="always")
def _potential(own, opp):
    """Empty squares next to ``opp``'s discs: where ``own`` may one day move."""
    empty = ~(own | opp)
    around = ((opp << _S1) & _NOT_A) | ((opp >> _S1) & _NOT_H) | (opp << _S8) | (opp >> _S8)
    return np.int64(popcount(around & empty))


def tree_root_position(s0, s1, player, params):
    if player == 0:
        return s0, s1, np.int64(0)
    return s1, s0, np.int64(0)


def tree_moves(x, y, player, params):
    return legal_moves(x, y, params[0])


def tree_child(x, y, player, cell, params):
    if cell < 0:
        return y, x
    flipped = flips(x, y, cell)
    return y & ~flipped, x | flipped | (U1 << np.uint64(cell))


def tree_over(x, y, player, params, passed):
    if passed:
        return True, U0
    replies = legal_moves(y, x, params[0])
    return replies == U0, replies


def tree_final(x, y, player, params):
    return final_score(x, y, params[0])


def tree_order_key(x, y, player, cell, depth, params):
    return tree_ordered_child(x, y, player, cell, params, None)[0]


def tree_ordered_child(x, y, player, cell, params, net):
    bit = U1 << np.uint64(cell)
    flipped = flips(x, y, cell)
    child_x = y & ~flipped
    child_y = x | flipped | bit
    replies = legal_moves(child_x, child_y, params[0])
    key = (
        W_MOBILITY * np.int64(popcount(replies))
        + W_CORNER * np.int64(popcount(replies & CORNERS))
        + W_POTENTIAL * _potential(child_x, child_y)
    )
    if bit & CORNERS:
        key -= W_TAKE_CORNER
    if net is not None and popcount(params[0] & ~(child_x | child_y)) >= EVAL_ORDER_EMPTIES:
        cells, table, weights = net  # the opponent's value after the move: lowest first
        key += np.int64(W_EVAL * ntuple_value_arrays(child_x, child_y, 0, params, cells, table,
                                                     weights))  # fmt: skip
    return key, child_x, child_y, replies


def tree_leaf(x, y, player, params, alpha, beta, passed, counters):
    empty = params[0] & ~(x | y)
    if popcount(empty) <= LEAF_EMPTIES:
        return True, solve_few(x, y, params[0], empty, alpha, beta, passed, counters)
    return False, np.int64(0)


def tree_bounds(x, y, player, moves, params, alpha, ply):
    empties = np.int64(popcount(params[0] & ~(x | y)))
    return np.int64(-SCORE_BOUND), stability_cut(x, y, params[0], empties, alpha)


def tree_table_worthy(x, y, params, depth):
    return popcount(params[0] & ~(x | y)) >= TABLE_EMPTIES


def tree_etc_worthy(x, y, params, depth):
    return popcount(params[0] & ~(x | y)) >= ETC_EMPTIES


def tree_score_range(x, y, player, params):
    return np.int64(-SCORE_LIMIT), np.int64(SCORE_LIMIT)
