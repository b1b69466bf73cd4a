"""Tree reuse: find the node that holds the new root, and keep only its subtree (one rule).

A search that keeps its tree between moves continues from the most visited node holding the
actual position within :data:`REUSE_PLIES` plies of the last root (passes count as plies): the
opponent's reply and one's own move, with room for passes. That node's subtree moves to the
front of its row, in breadth-first order, so every block of children stays a block and the rest
of the row is free again. The move is done in place, one field at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from boardzoo.search.tree import NO_NODE, Tree, nodes_used, share_free_nodes

__all__ = ["REUSE_PLIES", "keep_subtree", "nodes_within"]

REUSE_PLIES = 4


@njit(cache=True, nogil=True)
def nodes_within(tree, b, max_plies):
    """The nodes of row ``b`` at most ``max_plies`` moves below the root, breadth first."""
    found = np.empty(nodes_used(tree, b), dtype=np.int64)
    found[0] = 0
    size = 1
    level_start = 0
    for _ in range(max_plies):
        level_end = size
        for i in range(level_start, level_end):
            node = found[i]
            first = tree.first_child[b, node]
            if first == NO_NODE:
                continue
            for child in range(first, first + tree.num_expanded[b, node]):
                found[size] = child
                size += 1
        level_start = level_end
    return found[:size]


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


def keep_subtree(tree: Tree, b: int, node: int, fields: Sequence[str]) -> int:
    """Make ``node`` the root of row ``b``, keeping its subtree's ``fields``; return its size.

    ``parent`` and ``first_child`` are rewritten for the new places; the other fields named are
    moved as they are. The free part of the row is shared out among the threads again.
    """
    origin, parent, first_child = subtree_order(tree, b, node)
    kept = len(origin)
    for name in fields:
        row = getattr(tree, name)[b]
        row[:kept] = row[origin]
    tree.parent[b, :kept] = parent
    tree.first_child[b, :kept] = first_child
    tree.action[b, 0] = -1
    tree.prior[b, 0] = 1.0
    share_free_nodes(tree, b, kept)
    return kept
