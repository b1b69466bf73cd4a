"""Tree reuse: find the node that holds the new root, and keep only its subtree (one rule).

A search that keeps its tree between moves continues from the most visited expanded node holding
the actual position within :data:`REUSE_MOVES` moves of the last root, a pass not counted as a
move (it leaves the board as it is): one's own move and the opponent's reply, whatever passes
came between. That node's subtree moves to the front of its row, in breadth-first order, so
every block of children stays a block and the rest of the row is free again (for every thread).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.search.tree import NO_NODE, nodes_used, share_free_nodes

__all__ = ["PASS_CELL", "REUSE_MOVES", "keep_subtree", "nodes_within", "subtree_order"]

REUSE_MOVES = 2
PASS_CELL = -1  # the ``cell`` of a pass (games outside the catalog mark their moves -2)


@njit(cache=True, nogil=True)
def nodes_within(tree, b, max_moves):
    """The nodes of row ``b`` at most ``max_moves`` moves below the root (passes not counted),
    breadth first."""
    found = np.empty(nodes_used(tree, b), dtype=np.int64)
    moves = np.empty(found.shape[0], dtype=np.int64)
    found[0] = 0
    moves[0] = 0
    size = 1
    done = 0
    while done < size:
        node = found[done]
        below = moves[done]
        done += 1
        first = tree.first_child[b, node]
        if first == NO_NODE:
            continue
        for child in range(first, first + tree.num_expanded[b, node]):
            step = 0 if tree.cell[b, child] == PASS_CELL else 1
            if below + step <= max_moves:
                found[size] = child
                moves[size] = below + step
                size += 1
    return found[:size]


@njit(cache=True, nogil=True)
def find_position(tree, b, s0, s1, player, max_moves):
    """The most visited expanded node of row ``b`` holding ``(s0, s1, player)`` within
    ``max_moves`` moves of the root, or NO_NODE."""
    best = NO_NODE
    best_visits = -1
    for node in nodes_within(tree, b, max_moves):
        if tree.first_child[b, node] == NO_NODE or tree.terminal[b, node]:
            continue
        if tree.s0[b, node] != s0 or tree.s1[b, node] != s1 or tree.player[b, node] != player:
            continue
        if tree.visits[b, node] > best_visits:
            best = node
            best_visits = tree.visits[b, node]
    return best


@njit(cache=True, nogil=True)
def subtree_order(tree, b, root):
    """``root``'s subtree breadth first: the old ids, and each node's new parent and first child.

    Every child of an expanded node is kept (open or not), so blocks stay contiguous.
    """
    count = nodes_used(tree, b)
    origin = np.empty(count, dtype=np.int64)
    parent = np.empty(count, dtype=np.int32)
    first_child = np.empty(count, dtype=np.int32)
    origin[0] = root
    parent[0] = NO_NODE
    used = 1
    done = 0
    while done < used:
        first = tree.first_child[b, origin[done]]
        if first == NO_NODE:
            first_child[done] = NO_NODE
        else:
            first_child[done] = used
            for i in range(tree.num_children[b, origin[done]]):
                origin[used + i] = first + i
                parent[used + i] = done
            used += tree.num_children[b, origin[done]]
        done += 1
    return origin[:used], parent[:used], first_child[:used]


@njit(cache=True, nogil=True, inline="always")
def _move(row, origin):
    kept = origin.shape[0]
    row[:kept] = row[origin]


@njit(cache=True, nogil=True)
def keep_subtree(tree, b, node):
    """Make ``node`` the root of row ``b``, keeping its subtree; return the nodes kept.

    ``parent`` and ``first_child`` are rewritten for the new places, every other field moves as
    it is; the root's prior becomes 1 and its action and log-prior none. The free part of the
    row is shared out among the threads again.
    """
    origin, parent, first_child = subtree_order(tree, b, node)
    kept = origin.shape[0]
    _move(tree.s0[b], origin)
    _move(tree.s1[b], origin)
    _move(tree.player[b], origin)
    _move(tree.terminal[b], origin)
    _move(tree.pess[b], origin)
    _move(tree.opt[b], origin)
    _move(tree.visits[b], origin)
    _move(tree.pending[b], origin)
    _move(tree.value[b], origin)
    _move(tree.prior[b], origin)
    _move(tree.num_children[b], origin)
    _move(tree.num_expanded[b], origin)
    _move(tree.action[b], origin)
    _move(tree.cell[b], origin)
    _move(tree.amaf_value[b], origin)
    _move(tree.amaf_visits[b], origin)
    _move(tree.heur[b], origin)
    _move(tree.mm[b], origin)
    _move(tree.raw_value[b], origin)
    _move(tree.logp[b], origin)
    tree.parent[b, :kept] = parent
    tree.first_child[b, :kept] = first_child
    tree.action[b, 0] = -1
    tree.prior[b, 0] = 1.0
    tree.logp[b, 0] = 0.0
    share_free_nodes(tree, b, kept)
    return kept
