"""The one search tree: ``B`` trees as one struct of arrays ``[B, N]``, and its basic operations.

As in mctx, every node field is an array of shape ``[B, N]``: row ``b`` is one tree (a single
game's search is ``B = 1``; the batched AlphaZero search grows a tree per self-play game), column
``node`` one node, so no Python object exists per node, the whole search compiles, and its memory
is known up front. The root of every row is node 0. The children of a node occupy one contiguous
block ``first_child .. first_child + num_children - 1``, reserved when the node is expanded.

Values are stored from the point of view of the player who moved into the node (the parent's
``player``): ``value`` sums that player's scores, 1 for a win, 0.5 for a draw, 0 for a loss, so
passes (which break strict alternation) need no special case.

Solver (score-bounded MCTS, Cazenave & Saffidine 2010, which extends MCTS-Solver to draws): each
node keeps a pessimistic and an optimistic bound on player 0's result, as codes ``LOSS`` (0),
``DRAW`` (1) and ``WIN`` (2). A finished game has both bounds equal to its result; a node takes
the best bounds of its children for the player to move (a child not yet in the tree could be
anything). A node is proven (solved) when its bounds meet.

Nodes are taken from per-thread ranges of a row (``alloc``), so several threads can grow one
tree without locks (tree parallelism); a search with one thread has one range, the whole free
part of the row.

Fields that only some rules read (AMAF statistics, evaluations, the network's value and
log-priors) are written only by the rules that need them; numpy's zeroed allocation touches a
page only when it is first written, so a field no rule uses costs no memory.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import LOSS, WIN  # results for player 0; its score = code / 2

__all__ = [
    "BYTES_PER_NODE",
    "MAX_CHILDREN",
    "MAX_NODES",
    "MIN_NODES",
    "NO_NODE",
    "Tree",
    "init_node",
    "init_root",
    "init_roots",
    "is_solved",
    "most_visited_line",
    "new_tree",
    "nodes_used",
    "reserve",
    "rows_used",
    "score_for",
    "share_free_nodes",
    "update_bounds",
]

NO_NODE = -1
MAX_CHILDREN = 64  # a catalog position (two 64-bit bitboards) has at most 64 moves
# The root and all its children must fit. Node ids are int32.
MIN_NODES = 1 + MAX_CHILDREN
MAX_NODES = 2**31 - 1
# Columns of a thread's row of ``alloc``: next free slot, end of its range, start of its range;
# column KEPT of thread 0 holds the nodes kept before the ranges were shared out. A row is 8
# int64 wide so each thread's counters fill a 64-byte cache line of their own.
NEXT, END, START, KEPT = 0, 1, 2, 3
ALLOC_ROW = 8


class Tree(NamedTuple):
    """``B`` search trees as a struct of arrays (node fields ``[B, N]``)."""

    s0: np.ndarray  # uint64: catalog games' bitboard of player 0 (its kernels' layout)
    s1: np.ndarray  # uint64: player 1's bitboard
    player: np.ndarray  # int8: player to move here
    terminal: np.ndarray  # int8: 1 if the game is over here
    pess: np.ndarray  # int8: lower bound of player 0's result (LOSS, DRAW, WIN)
    opt: np.ndarray  # int8: upper bound of player 0's result
    visits: np.ndarray  # int32
    pending: np.ndarray  # int32: simulations below the node now (virtual loss)
    value: np.ndarray  # float64: sum of scores of the player who moved into the node
    prior: np.ndarray  # float32: the parent's prior probability of this node's action
    parent: np.ndarray  # int32, NO_NODE for the root
    first_child: np.ndarray  # int32, NO_NODE until expanded
    num_children: np.ndarray  # int16
    num_expanded: np.ndarray  # int16: children open to selection (UCT adds one a visit)
    action: np.ndarray  # int16: the action that led here
    cell: np.ndarray  # int8: the cell that action filled (-1: a pass)
    amaf_value: np.ndarray  # float64: RAVE: all-moves-as-first score sum of the move into it
    amaf_visits: np.ndarray  # int32
    heur: np.ndarray  # float32: the evaluation for the player who moved in, in [0, 1]
    mm: np.ndarray  # float32: implicit minimax value, same view
    raw_value: np.ndarray  # float32: a network's value here, for the player to move
    logp: np.ndarray  # float32: log of the prior before root noise (Gumbel's logits)
    alloc: np.ndarray  # int64 [B, threads, ALLOC_ROW]: each thread's range of free nodes


_FIELDS = (
    ("s0", np.uint64),
    ("s1", np.uint64),
    ("player", np.int8),
    ("terminal", np.int8),
    ("pess", np.int8),
    ("opt", np.int8),
    ("visits", np.int32),
    ("pending", np.int32),
    ("value", np.float64),
    ("prior", np.float32),
    ("parent", np.int32),
    ("first_child", np.int32),
    ("num_children", np.int16),
    ("num_expanded", np.int16),
    ("action", np.int16),
    ("cell", np.int8),
    ("amaf_value", np.float64),
    ("amaf_visits", np.int32),
    ("heur", np.float32),
    ("mm", np.float32),
    ("raw_value", np.float32),
    ("logp", np.float32),
)
NODE_FIELDS = tuple(name for name, _ in _FIELDS)
# What plain UCT writes and reads per node (the fields of the other rules stay untouched).
BYTES_PER_NODE = sum(
    np.dtype(dtype).itemsize
    for name, dtype in _FIELDS
    if name not in ("amaf_value", "amaf_visits", "heur", "mm", "raw_value", "logp", "pending")
)


def new_tree(max_nodes: int, rows: int = 1, threads: int = 1) -> Tree:
    """``rows`` empty trees of ``max_nodes`` nodes each, grown by ``threads`` threads.

    Memory pages are touched only when used.
    """
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 2:
        raise InvalidValueError(
            f"max_nodes={max_nodes!r} is not allowed: it must be an integer >= 2"
        )
    arrays = {name: np.zeros((rows, max_nodes), dtype=dtype) for name, dtype in _FIELDS}
    return Tree(**arrays, alloc=np.zeros((rows, threads, ALLOC_ROW), dtype=np.int64))


@njit(cache=True, nogil=True, inline="always")
def init_node(tree, b, node, parent, action, cell, s0, s1, player, terminal, result, prior):
    """Fill slot ``node`` of row ``b`` as a fresh node (no visits, no children)."""
    tree.s0[b, node] = s0
    tree.s1[b, node] = s1
    tree.player[b, node] = player
    tree.terminal[b, node] = terminal
    tree.pess[b, node] = result if terminal else LOSS
    tree.opt[b, node] = result if terminal else WIN
    tree.visits[b, node] = 0
    tree.value[b, node] = 0.0
    tree.prior[b, node] = prior
    tree.parent[b, node] = parent
    tree.first_child[b, node] = NO_NODE
    tree.num_children[b, node] = 0
    tree.num_expanded[b, node] = 0
    tree.action[b, node] = action
    tree.cell[b, node] = cell


@njit(cache=True, nogil=True)
def share_free_nodes(tree, b, kept):
    """Split row ``b``'s slots after its first ``kept`` evenly among the threads' ranges."""
    threads = tree.alloc.shape[1]
    free = tree.s0.shape[1] - kept
    for t in range(threads):
        tree.alloc[b, t, NEXT] = kept + free * t // threads
        tree.alloc[b, t, END] = kept + free * (t + 1) // threads
        tree.alloc[b, t, START] = tree.alloc[b, t, NEXT]
    tree.alloc[b, 0, KEPT] = kept


@njit(cache=True, nogil=True)
def init_root(tree, b, s0, s1, player, terminal, result):
    """Forget row ``b``'s nodes and make node 0 a fresh root for the given position.

    ``result`` is player 0's result code if the game is over (``terminal``), else ignored.
    """
    init_node(tree, b, 0, NO_NODE, -1, -1, s0, s1, player, terminal, result, 1.0)
    tree.pending[b, 0] = 0
    share_free_nodes(tree, b, 1)


@njit(cache=True, nogil=True)
def init_roots(tree, rows, s0, s1, player):
    """:func:`init_root` for each row ``rows[i]`` with the position in play ``(s0[i], s1[i])``,
    ``player[i]`` to move (the batched search's fresh trees)."""
    for i in range(rows.shape[0]):
        b = rows[i]
        init_root(tree, b, s0[i], s1[i], player[i], 0, 0)
        tree.raw_value[b, 0] = 0.0
        tree.logp[b, 0] = 0.0


def rows_used(tree: Tree, rows: int) -> np.ndarray:
    """:func:`nodes_used` of the first ``rows`` rows at once (int64, computed by numpy)."""
    alloc = tree.alloc[:rows]
    grown = (alloc[:, :, NEXT] - alloc[:, :, START]).sum(axis=1)
    return np.asarray(alloc[:, 0, KEPT] + grown, dtype=np.int64)


def most_visited_line(tree: Tree, b: int, node: int = 0, max_length: int = 64) -> list[int]:
    """The actions of the most visited line of row ``b`` below ``node``: each step takes the
    most visited expanded child (the first on ties) and stops at a node without visited
    children, or after ``max_length`` actions."""
    line: list[int] = []
    while len(line) < max_length and node != NO_NODE and int(tree.num_expanded[b, node]) > 0:
        first = int(tree.first_child[b, node])
        visits = tree.visits[b, first : first + int(tree.num_expanded[b, node])]
        if visits.max() <= 0:
            break
        node = first + int(np.argmax(visits))
        line.append(int(tree.action[b, node]))
    return line


@njit(cache=True, nogil=True)
def nodes_used(tree, b):
    """Nodes in row ``b``: those kept when the ranges were shared out, and each thread's since."""
    used = tree.alloc[b, 0, KEPT]
    for t in range(tree.alloc.shape[1]):
        used += tree.alloc[b, t, NEXT] - tree.alloc[b, t, START]
    return used


@njit(cache=True, nogil=True, inline="always")
def reserve(tree, b, thread, count):
    """The first of ``count`` free slots of ``thread``'s range in row ``b``; NO_NODE if full."""
    start = tree.alloc[b, thread, NEXT]
    if start + count > tree.alloc[b, thread, END]:
        return NO_NODE
    tree.alloc[b, thread, NEXT] = start + count
    return start


@njit(cache=True, nogil=True, inline="always")
def score_for(result, player):
    """A result code as a score for ``player``: 1, 0.5 or 0."""
    score0 = result * 0.5
    return score0 if player == 0 else 1.0 - score0


@njit(cache=True, nogil=True, inline="always")
def is_solved(tree, b, node):
    """Whether the node's result is proven (its bounds have met)."""
    return tree.pess[b, node] == tree.opt[b, node]


@njit(cache=True, nogil=True, inline="always")
def update_bounds(tree, b, node):
    """Recompute ``node``'s bounds from its children; return whether they changed.

    The player to move picks the best child for itself: player 0 the highest result, player 1
    the lowest. Children not yet open could be anything, so they keep a bound open.
    """
    first = tree.first_child[b, node]
    if first == NO_NODE:
        return False
    count = tree.num_expanded[b, node]
    complete = count == tree.num_children[b, node]
    if tree.player[b, node] == 0:
        pess = LOSS
        opt = LOSS if complete else WIN
        for child in range(first, first + count):
            pess = max(pess, tree.pess[b, child])
            opt = max(opt, tree.opt[b, child])
    else:
        pess = WIN if complete else LOSS
        opt = WIN
        for child in range(first, first + count):
            pess = min(pess, tree.pess[b, child])
            opt = min(opt, tree.opt[b, child])
    if pess == tree.pess[b, node] and opt == tree.opt[b, node]:
        return False
    tree.pess[b, node] = pess
    tree.opt[b, node] = opt
    return True
