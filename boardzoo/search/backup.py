"""Backup rules of the one loop: what a simulation's result changes on its way up.

A template module (see :func:`boardzoo.search.loop.compiled_loop`); its switches are fixed per
compiled copy. Every node from the leaf up to the root gets a visit and the score of the player
who moved into it (the root: of its opponent, so its mean is its value for that side); composed
with that:

- the solver: bounds recomputed upwards for as long as they change;
- implicit minimax (Lanctot et al. 2014): each node's ``mm`` becomes its best child's, for the
  player who moved in;
- virtual loss (tree parallelism, and several leaves a step of the batched search): the pending
  descent counted on the way down is taken back;
- RAVE (Gelly & Silver 2007): every child, along the path, whose move its player made later in
  the simulation gets an all-moves-as-first visit and that player's score.
"""

from __future__ import annotations

import numpy as np

from boardzoo.games.bits import U1
from boardzoo.search.tree import NO_NODE, update_bounds

# Compile-time switches (fixed per compiled copy).
SOLVER = False
MINIMAX = False
PENDING = False


def update_minimax(tree, b, node):
    """Implicit minimax: ``node``'s value is its best child's, for the player who moved in."""
    first = tree.first_child[b, node]
    parent = tree.parent[b, node]
    if first == NO_NODE or parent == NO_NODE:
        return
    best = 0.0
    for child in range(first, first + tree.num_children[b, node]):
        best = max(best, tree.mm[b, child])
    same = tree.player[b, parent] == tree.player[b, node]
    tree.mm[b, node] = best if same else 1.0 - best


def backup(tree, b, leaf, score0):
    """Add player 0's score ``score0`` (its opponent's is ``1 - score0``) from ``leaf`` up."""
    updating = SOLVER
    node = leaf
    while True:
        tree.visits[b, node] += 1
        if PENDING:
            tree.pending[b, node] -= 1
        parent = tree.parent[b, node]
        mover = tree.player[b, parent] if parent != NO_NODE else 1 - tree.player[b, node]
        tree.value[b, node] += score0 if mover == 0 else 1.0 - score0
        if parent == NO_NODE:
            break
        if MINIMAX:
            update_minimax(tree, b, node)
        if SOLVER and updating:
            updating = update_bounds(tree, b, parent)
        node = parent


def update_amaf(tree, b, path, depth, cells, players, length, score0):
    """RAVE: credit every child whose move its player made later in this simulation.

    Walking up from the leaf, ``seen[p]`` holds the cells player ``p`` filled from that node on
    (the tree's moves below it and the playout's); each path node's children (all of them, not
    only those open to UCT) whose cell its mover filled get an AMAF visit and the mover's score.
    """
    seen0 = np.uint64(0)
    seen1 = np.uint64(0)
    for j in range(depth - 1, length):  # the playout's moves, after the tree's
        if cells[j] >= 0:
            bit = U1 << np.uint64(cells[j])
            if players[j] == 0:
                seen0 |= bit
            else:
                seen1 |= bit
    for i in range(depth - 1, -1, -1):
        node = path[i]
        if i < depth - 1 and cells[i] >= 0:  # the tree's move out of this node
            bit = U1 << np.uint64(cells[i])
            if players[i] == 0:
                seen0 |= bit
            else:
                seen1 |= bit
        first = tree.first_child[b, node]
        if first == NO_NODE:
            continue
        mover = tree.player[b, node]
        seen = seen0 if mover == 0 else seen1
        score = score0 if mover == 0 else 1.0 - score0
        for child in range(first, first + tree.num_children[b, node]):
            cell = tree.cell[b, child]
            if cell >= 0 and (seen >> np.uint64(cell)) & U1:
                tree.amaf_visits[b, child] += 1
                tree.amaf_value[b, child] += score
