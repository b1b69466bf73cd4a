"""The whole UCT simulation loop, compiled once per game; batches of rollouts; re-rooting.

:func:`expand`, :func:`run_simulations` and :func:`rollouts` are templates: they reach the game
through the contract's kernels (``kernels.placements``, ``kernels.place``, ``kernels.outcome``,
``kernels.cell_action``, ``kernels.rollout``; see :mod:`boardzoo.games.spec`), and
:func:`compiled_search` and :func:`compiled_rollouts` compile a copy of them per game
(:mod:`boardzoo.games.specialise`). There is no branch on the game here.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from numba import njit

from boardzoo.agents.mcts.tree import (
    NO_NODE,
    NODE_COUNT,
    ROOT,
    backup,
    descend,
    is_solved,
    reserve_children,
    score_for,
    set_child,
)
from boardzoo.games._bits import U1, lowest_bit_index, next_rng, popcount, rng_output
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise

__all__ = ["compiled_rollouts", "compiled_search", "copy_subtree"]

# Replaced by the game's kernel module in each compiled copy (see compiled_search).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def expand(tree, node, params, rng):
    """Reserve and fill ``node``'s children in a random order; return (ok, rng).

    ``ok`` is False when the tree is full (the node stays a leaf). A position in play without a
    placement gets a single child, the pass.
    """
    s0, s1, player = tree.s0[node], tree.s1[node], tree.player[node]
    cells = kernels.placements(s0, s1, player, params)
    count = np.int64(popcount(cells))
    passing = count == 0
    if passing:
        count = np.int64(1)
    if reserve_children(tree, node, count) < 0:
        return False, rng
    order = np.arange(count)
    for i in range(count - 1, 0, -1):  # Fisher-Yates: the order in which UCT adds them
        rng = next_rng(rng)
        j = np.int64(rng_output(rng) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
    prior = 1.0 / count
    next_player = 1 - player
    for i in range(count):
        cell = -1
        if not passing:
            cell = lowest_bit_index(cells)
            cells &= cells - U1
        c0, c1 = kernels.place(s0, s1, player, cell, params)
        terminal, result = kernels.outcome(c0, c1, next_player, params)
        action = kernels.cell_action(cell, params)
        set_child(tree, node, order[i], action, c0, c1, next_player, terminal, result, prior)
    return True, rng


def run_simulations(tree, count, c, solver, params, policy, rng):
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
            expanded, rng = expand(tree, leaf, params, rng)
            if expanded:
                tree.num_expanded[leaf] = 1
                leaf = tree.first_child[leaf]
                settled = tree.terminal[leaf] != 0
        if settled:
            score0 = score_for(tree.pess[leaf], 0)
        else:
            score0, rng = kernels.rollout(
                tree.s0[leaf], tree.s1[leaf], tree.player[leaf], params, policy, rng
            )
        backup(tree, leaf, score0, solver)
        done += 1
    return done, rng


def rollouts(s0, s1, player, count, params, policy, rng, scores):
    """Play the first ``count`` positions out with the game's rollout policy; return the RNG state.

    Position ``i`` is ``(s0[i], s1[i])`` with ``player[i]`` to move; ``scores[i]`` receives
    player 0's score of its playout (1 win, 0.5 draw, 0 loss), as in UCT's simulations.
    """
    for i in range(count):
        scores[i], rng = kernels.rollout(s0[i], s1[i], player[i], params, policy, rng)
    return rng


def compiled_search(game: Game) -> dict[str, Any]:
    """``expand`` and ``run_simulations`` compiled for ``game``'s kernels."""
    return specialise((expand, run_simulations), game.kernels)


def compiled_rollouts(game: Game) -> Any:
    """:func:`rollouts` compiled for ``game``'s kernels."""
    return specialise((rollouts,), game.kernels)["rollouts"]


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
