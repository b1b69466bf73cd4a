"""The whole UCT simulation loop, compiled, for the built-in games; and subtree re-rooting."""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.agents.mcts.game_ops import expand, rollout
from boardzoo.agents.mcts.tree import (
    NO_NODE,
    NODE_COUNT,
    ROOT,
    backup,
    descend,
    is_solved,
    score_for,
)


@njit(cache=True, nogil=True)
def run_simulations(tree, count, c, solver, game, size, valid, policy, corners, x_squares, rng):
    """Run up to ``count`` UCT simulations; return how many ran and the RNG state.

    Each simulation: selection by UCT down to a leaf; expansion of one untried child (the node's
    children are reserved, in random order, on its second visit; on the root's first); a rollout
    to the end of the game; backup of both players' results. Stops early once the root is proven.
    """
    root = tree.meta[ROOT]
    done = 0
    while done < count:
        if solver and is_solved(tree, root):
            break
        leaf = descend(tree, c, False, 0.0, solver)
        settled = tree.terminal[leaf] or (solver and is_solved(tree, leaf))
        if (
            not settled
            and tree.first_child[leaf] == NO_NODE
            and (tree.visits[leaf] > 0 or leaf == root)
        ):
            expanded, rng = expand(tree, leaf, game, size, valid, rng)
            if expanded:
                tree.num_expanded[leaf] = 1
                leaf = tree.first_child[leaf]
                settled = tree.terminal[leaf] != 0
        if settled:
            score0 = score_for(tree.pess[leaf], 0)
        else:
            score0, rng = rollout(
                game,
                tree.s0[leaf],
                tree.s1[leaf],
                tree.player[leaf],
                valid,
                policy,
                corners,
                x_squares,
                rng,
            )
        backup(tree, leaf, score0, solver)
        done += 1
    return done, rng


@njit(cache=True, nogil=True)
def copy_subtree(src, dst, new_root):
    """Copy the subtree of ``src`` under ``new_root`` into the empty tree ``dst`` (as its root).

    Children blocks stay contiguous; returns the mapping from ``dst`` node ids to ``src`` ids.
    """
    count = src.meta[NODE_COUNT]
    origin = np.empty(count, dtype=np.int64)
    origin[0] = new_root
    used = 1
    done = 0
    while done < used:
        s = origin[done]
        d = done
        dst.s0[d] = src.s0[s]
        dst.s1[d] = src.s1[s]
        dst.value[d] = src.value[s]
        dst.visits[d] = src.visits[s]
        dst.prior[d] = src.prior[s]
        dst.action[d] = src.action[s]
        dst.player[d] = src.player[s]
        dst.pess[d] = src.pess[s]
        dst.opt[d] = src.opt[s]
        dst.terminal[d] = src.terminal[s]
        dst.num_children[d] = src.num_children[s]
        dst.num_expanded[d] = src.num_expanded[s]
        first = src.first_child[s]
        if first == NO_NODE:
            dst.first_child[d] = NO_NODE
        else:
            dst.first_child[d] = used
            for i in range(src.num_children[s]):
                origin[used + i] = first + i
                dst.parent[used + i] = d
            used += src.num_children[s]
        done += 1
    dst.parent[0] = NO_NODE
    dst.meta[NODE_COUNT] = used
    dst.meta[ROOT] = 0
    return origin[:used]
