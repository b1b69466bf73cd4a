"""A single search tree, the one ``_python_puct_loop.py`` uses (not the library's code).

The tree of the frozen baseline of ``bench_az_search.py``; the library's search core is
``boardzoo.search``. Its description follows.

The search tree: preallocated struct-of-arrays, one slot per node, compiled operations.

Nodes live in flat arrays indexed by node id (no Python object per node), so the whole search
compiles and its memory is known up front: :data:`BYTES_PER_NODE` bytes a node. The children of a
node occupy one contiguous block ``first_child .. first_child + num_children - 1``, reserved the
first time the node is expanded.

Values are stored from the point of view of the player who moved into the node (the parent's
``player``): ``value`` sums that player's results, 1 for a win, 0.5 for a draw, 0 for a loss.
Backup adds each player's own return, so passes (which break strict alternation in other
encodings) need no special case.

Solver (score-bounded MCTS, Cazenave & Saffidine 2010, which extends MCTS-Solver to draws): each
node keeps a pessimistic and an optimistic bound on player 0's result, as codes ``LOSS`` (0),
``DRAW`` (1) and ``WIN`` (2). A finished game has both bounds equal to its result; a node takes the
best bounds of its children for the player to move (an unexpanded child could be anything). A node
is proven (solved) when its bounds meet. Selection skips children that cannot change their
parent's result.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.games.spec import LOSS, WIN  # results for player 0; its score = code / 2

NO_NODE = -1
# meta slots
NODE_COUNT = 0
ROOT = 1


class Tree(NamedTuple):
    """Struct-of-arrays search tree (every field has shape ``(max_nodes,)``)."""

    s0: np.ndarray  # uint64: catalog games' bitboard of player 0 (its kernels' layout)
    s1: np.ndarray  # uint64: player 1's bitboard
    value: np.ndarray  # float64: sum of results for the player who moved into the node
    visits: np.ndarray  # int32
    parent: np.ndarray  # int32, NO_NODE for the root
    first_child: np.ndarray  # int32, NO_NODE until expanded
    prior: np.ndarray  # float32: the parent's prior probability of this node's action
    num_children: np.ndarray  # int16
    num_expanded: np.ndarray  # int16: children added to the tree so far (UCT adds one a visit)
    action: np.ndarray  # int16: the action that led here
    player: np.ndarray  # int8: player to move here
    pess: np.ndarray  # int8: lower bound of player 0's result (LOSS, DRAW, WIN)
    opt: np.ndarray  # int8: upper bound of player 0's result
    terminal: np.ndarray  # int8: 1 if the game is over here
    meta: np.ndarray  # int64[2]: node count, root id


_FIELDS = (
    ("s0", np.uint64),
    ("s1", np.uint64),
    ("value", np.float64),
    ("visits", np.int32),
    ("parent", np.int32),
    ("first_child", np.int32),
    ("prior", np.float32),
    ("num_children", np.int16),
    ("num_expanded", np.int16),
    ("action", np.int16),
    ("player", np.int8),
    ("pess", np.int8),
    ("opt", np.int8),
    ("terminal", np.int8),
)
BYTES_PER_NODE = sum(np.dtype(dtype).itemsize for _, dtype in _FIELDS)
# The root and all its children must fit: a catalog position (two 64-bit bitboards) has at most
# 64 moves. Node ids are int32.
MIN_NODES = 1 + 64
MAX_NODES = 2**31 - 1


def new_tree(max_nodes: int) -> Tree:
    """An empty tree with room for ``max_nodes`` nodes (pages are touched only when used)."""
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 2:
        raise ValueError(f"max_nodes={max_nodes!r} is not allowed: it must be an integer >= 2")
    arrays = {name: np.zeros(max_nodes, dtype=dtype) for name, dtype in _FIELDS}
    return Tree(**arrays, meta=np.zeros(2, dtype=np.int64))


@njit(cache=True, nogil=True)
def init_root(tree, s0, s1, player, terminal, result):
    """Forget every node and make a fresh root for the given position.

    ``result`` is player 0's result code if the game is over (``terminal``), else ignored.
    """
    tree.meta[NODE_COUNT] = 1
    tree.meta[ROOT] = 0
    init_node(tree, 0, NO_NODE, -1, s0, s1, player, terminal, result, 1.0)


@njit(cache=True, nogil=True, inline="always")
def init_node(tree, node, parent, action, s0, s1, player, terminal, result, prior):
    """Fill slot ``node`` as a fresh node (no visits, no children, bounds from the result)."""
    tree.s0[node] = s0
    tree.s1[node] = s1
    tree.value[node] = 0.0
    tree.visits[node] = 0
    tree.parent[node] = parent
    tree.first_child[node] = NO_NODE
    tree.prior[node] = prior
    tree.num_children[node] = 0
    tree.num_expanded[node] = 0
    tree.action[node] = action
    tree.player[node] = player
    tree.pess[node] = result if terminal else LOSS
    tree.opt[node] = result if terminal else WIN
    tree.terminal[node] = terminal


@njit(cache=True, nogil=True)
def reserve_children(tree, node, count):
    """Reserve a block of ``count`` child slots for ``node``; -1 if the tree is full."""
    start = tree.meta[NODE_COUNT]
    if start + count > tree.value.shape[0]:
        return NO_NODE
    tree.meta[NODE_COUNT] = start + count
    tree.first_child[node] = start
    tree.num_children[node] = count
    tree.num_expanded[node] = 0
    return start


@njit(cache=True, nogil=True)
def set_child(tree, node, index, action, s0, s1, player, terminal, result, prior):
    """Fill child slot ``index`` (0-based within ``node``'s block)."""
    init_node(
        tree, tree.first_child[node] + index, node, action, s0, s1, player, terminal, result, prior
    )


@njit(cache=True, nogil=True, inline="always")
def score_for(result, player):
    """A result code as a score for ``player``: 1, 0.5 or 0."""
    score0 = result * 0.5
    return score0 if player == 0 else 1.0 - score0


@njit(cache=True, nogil=True, inline="always")
def is_solved(tree, node):
    return tree.pess[node] == tree.opt[node]


@njit(cache=True, nogil=True)
def select_child(tree, node, c, use_prior, c_base, solver):
    """The child of a fully expanded ``node`` that maximises UCT (or PUCT with priors).

    UCT: Q + c * sqrt(ln N_parent / N) with Q in [0, 1]. PUCT: Q + C * P * sqrt(N_parent) / (1 + N)
    with Q in [-1, 1] (0 for unvisited children) and C = c, or with ``c_base > 0`` AlphaZero's
    schedule C = c + log((1 + N_parent + c_base) / c_base). With the solver, children whose
    bounds cannot improve the parent's are skipped, and solved children count with their exact
    value. Returns NO_NODE if every child is skipped.
    """
    first = tree.first_child[node]
    count = tree.num_expanded[node]
    mover = tree.player[node]
    parent_visits = max(tree.visits[node], 1)
    if use_prior:
        scale = c
        if c_base > 0.0:
            scale = c + np.log((1.0 + parent_visits + c_base) / c_base)
        scale *= np.sqrt(parent_visits)
    else:
        log_visits = np.log(parent_visits)
    best = NO_NODE
    best_score = -np.inf
    for child in range(first, first + count):
        visits = tree.visits[child]
        if solver:
            # Skip children that cannot improve on what the player to move has secured.
            if mover == 0 and tree.opt[child] <= tree.pess[node]:
                continue
            if mover == 1 and tree.pess[child] >= tree.opt[node]:
                continue
        if solver and is_solved(tree, child):
            q = score_for(tree.pess[child], mover)
        elif visits > 0:
            q = tree.value[child] / visits
        else:
            q = 0.5
        if use_prior:
            score = (2.0 * q - 1.0) + scale * tree.prior[child] / (1.0 + visits)
        else:
            score = q + c * np.sqrt(log_visits / max(visits, 1))
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True, nogil=True)
def descend(tree, c, use_prior, c_base, solver):
    """Walk from the root to the node where this simulation leaves the tree.

    Returns a node that is terminal, proven (with the solver), not yet expanded
    (``first_child == NO_NODE``), or, in UCT mode, the child just added to the tree (one new child
    a visit, in the block's order).
    """
    node = tree.meta[ROOT]
    while True:
        if tree.terminal[node] or (solver and is_solved(tree, node)):
            return node
        first = tree.first_child[node]
        if first == NO_NODE:
            return node
        expanded = tree.num_expanded[node]
        if expanded < tree.num_children[node]:
            tree.num_expanded[node] = expanded + 1
            return first + expanded
        child = select_child(tree, node, c, use_prior, c_base, solver)
        if child == NO_NODE:
            return node  # nothing left to learn below (the bounds have settled it)
        node = child


@njit(cache=True, nogil=True)
def update_bounds(tree, node):
    """Recompute ``node``'s bounds from its children; return whether they changed.

    The player to move picks the best child for itself: player 0 the highest result, player 1
    the lowest. Children not yet in the tree could be anything, so they keep a bound open.
    """
    first = tree.first_child[node]
    if first == NO_NODE:
        return False
    complete = tree.num_expanded[node] == tree.num_children[node]
    if tree.player[node] == 0:
        pess = LOSS
        opt = LOSS if complete else WIN
        for child in range(first, first + tree.num_expanded[node]):
            pess = max(pess, tree.pess[child])
            opt = max(opt, tree.opt[child])
    else:
        pess = WIN if complete else LOSS
        opt = WIN
        for child in range(first, first + tree.num_expanded[node]):
            pess = min(pess, tree.pess[child])
            opt = min(opt, tree.opt[child])
    if pess == tree.pess[node] and opt == tree.opt[node]:
        return False
    tree.pess[node] = pess
    tree.opt[node] = opt
    return True


@njit(cache=True, nogil=True)
def backup(tree, leaf, score0, solver):
    """Add one visit and player 0's score ``score0`` (its opponent gets ``1 - score0``) up the path.

    Each node is credited from the point of view of the player who moved into it. With the solver,
    bounds are recomputed upwards for as long as they change.
    """
    root = tree.meta[ROOT]
    updating = solver
    node = leaf
    while True:
        tree.visits[node] += 1
        parent = tree.parent[node]
        if node == root or parent == NO_NODE:
            break
        mover = tree.player[parent]
        tree.value[node] += score0 if mover == 0 else 1.0 - score0
        if updating:
            updating = update_bounds(tree, parent)
        node = parent
