"""The hooks through which the depth-first search reaches a game: the defaults, over its kernels.

A position of the search is ``(x, y, player)``; with these defaults it is the game contract's
``(s0, s1, player)`` (:mod:`boardzoo.games.spec`) and every hook calls the game's compiled
kernels (``kernels``, replaced per game by :func:`boardzoo.gametree.compile.compiled_tree`). A
game's plug-in (:attr:`boardzoo.games.spec.GameSpec.tree_plugin`, e.g.
:mod:`boardzoo.gametree.reversi`) defines any of these names again, for its own representation of
a position and its own knowledge; the rest stay as here. Every hook is a template: it is compiled
into the search, never called from Python.

- ``tree_root_position(s0, s1, player, params)``: the search's position of a contract one;
- ``tree_moves(x, y, player, params) -> u8``: the cells the side to move may fill (0: it must
  pass, or the game is over);
- ``tree_child(x, y, player, cell, params) -> (u8, u8)``: the position after filling ``cell``
  (-1: a pass); the side to move is then ``1 - player``;
- ``tree_over(x, y, player, params, passed) -> (b1, u8)``: with no moves, whether the game is
  over, and the opponent's moves if known (``UNKNOWN``);
- ``tree_final(x, y, player, params) -> i8``: a finished game's score for the side to move;
- ``tree_horizon(x, y, player, params, moves, net) -> i8``: the evaluation at the horizon;
- ``tree_order_key(x, y, player, cell, depth, params) -> i8``: a move's key (lowest first);
- ``tree_ordered_child(x, y, player, cell, params, net)``: with ``CHILD_ORDER``, the key, the
  child and the child's moves (``net``: an evaluation's arrays to order with, or ``None``);
- ``tree_leaf(x, y, player, params, alpha, beta, passed, counters) -> (b1, i8)``: with
  ``LEAF``, whether the plug-in's own code scored the position, and the score;
- ``tree_bounds(x, y, player, moves, params, alpha, ply) -> (i8, i8)``: with ``BOUNDS``, a
  lower and an upper bound of the score;
- ``tree_table_worthy(x, y, params, depth) -> b1``: whether the table is worth a probe here;
- ``tree_etc_worthy(x, y, params, depth) -> b1``: whether enhanced transposition cut-offs are
  worth their probes here;
- ``tree_draft(x, y, params, depth) -> i8``: an exact entry's draft (its empty squares);
- ``tree_settled(x, y, player, params) -> (b1, i8, i8)``: an exact solve's answer before any
  search (a game already decided), and its cell;
- ``tree_score_range(x, y, player, params) -> (i8, i8)``: the exact scores possible here.

With these defaults an exact solve scores 1 (the side to move wins), 0 or -1.
"""

from __future__ import annotations

import types

import numpy as np

from boardzoo.games.bits import popcount
from boardzoo.learned.ntuple import ntuple_value_arrays

__all__ = ["HOOK_NAMES", "LEARNED_SCALE", "UNKNOWN"]

HOOK_NAMES = (
    "tree_root_position",
    "tree_moves",
    "tree_child",
    "tree_over",
    "tree_final",
    "tree_horizon",
    "tree_order_key",
    "tree_ordered_child",
    "tree_leaf",
    "tree_bounds",
    "tree_table_worthy",
    "tree_etc_worthy",
    "tree_draft",
    "tree_settled",
    "tree_score_range",
)
UNKNOWN = np.uint64(0xFFFFFFFFFFFFFFFF)
# A learned value in (-1, 1) scores this much times the value: far below a win's score.
LEARNED_SCALE = 10_000.0
EXACT = False  # frozen per compiled copy: exact scores (1, 0, -1) in place of final_score's
_INFINITY = np.int64(1) << 40
# Replaced by the game's kernel module in each compiled copy.
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def tree_root_position(s0, s1, player, params):
    return s0, s1, player


def tree_moves(x, y, player, params):
    return kernels.placements(x, y, player, params)


def tree_child(x, y, player, cell, params):
    return kernels.place(x, y, player, cell, params)


def tree_over(x, y, player, params, passed):
    over, _ = kernels.outcome(x, y, player, params)
    return over, UNKNOWN


def tree_final(x, y, player, params):
    if EXACT:
        _, code = kernels.outcome(x, y, player, params)
        result = np.int64(code) - 1  # player 0's: 1 win, 0 draw, -1 loss
        return result if player == 0 else -result
    return kernels.final_score(x, y, player, params)


def tree_horizon(x, y, player, params, moves, net):
    """The game's evaluation (``net`` is ``None``), or the learned value of ``net``'s arrays
    ``(cells, table, weights)`` times :data:`LEARNED_SCALE` (for a player who must pass, minus
    the opponent's value: the net learnt positions with a move to make)."""
    if net is None:
        return kernels.evaluate(x, y, player, moves, params)
    cells, table, weights = net
    if moves:
        value = ntuple_value_arrays(x, y, player, params, cells, table, weights)
    else:
        value = -ntuple_value_arrays(x, y, 1 - player, params, cells, table, weights)
    return np.int64(np.round(LEARNED_SCALE * value))


def tree_order_key(x, y, player, cell, depth, params):
    return kernels.order_key(x, y, player, cell, depth, params)


def tree_ordered_child(x, y, player, cell, params, net):
    cx, cy = kernels.place(x, y, player, cell, params)
    return kernels.order_key(x, y, player, cell, 0, params), cx, cy, UNKNOWN


def tree_leaf(x, y, player, params, alpha, beta, passed, counters):
    return False, np.int64(0)


def tree_bounds(x, y, player, moves, params, alpha, ply):
    return -_INFINITY, _INFINITY


def tree_table_worthy(x, y, params, depth):
    return True


def tree_etc_worthy(x, y, params, depth):
    return True


def tree_draft(x, y, params, depth):
    return np.int64(popcount(params[0] & ~(x | y)))


def tree_settled(x, y, player, params):
    return False, np.int64(0), np.int64(-1)


def tree_score_range(x, y, player, params):
    return np.int64(-1), np.int64(1)


HOOKS = {name: globals()[name] for name in HOOK_NAMES}
