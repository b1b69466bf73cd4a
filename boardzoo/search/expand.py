"""Expansion in the one loop: a leaf's children added to the tree in one block.

A template module (see :func:`boardzoo.search.loop.compiled_loop`). For UCT (:func:`expand`)
children are made in random order (the order in which UCT opens them, one a visit), or best
evaluation first with progressive widening (Chaslot et al. 2008), the random order breaking
ties; with an evaluation in use (progressive bias, widening, implicit minimax) every child is
evaluated here. For AlphaZero (:func:`expand_priors`) children are made sorted by action, all
open at once, with the softmax of the network's logits over the legal actions as priors.
"""

from __future__ import annotations

import types
from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.games.bits import U1, lowest_bit_index, next_rng, popcount, rng_output
from boardzoo.search.leaf_values import child_heuristic
from boardzoo.search.tree import MAX_CHILDREN, init_node, reserve

# Replaced by the game's kernel module in each compiled copy.
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")

# Compile-time switches (fixed per compiled copy).
EVALUATES = False
WIDENING = False
RAVE = False
PENDING = False


class Scratch(NamedTuple):
    """One thread's room for a node's children while they are ordered."""

    heur: np.ndarray  # float64: each child's evaluation, in cell order
    order: np.ndarray  # int64: each child's slot in the block
    ranked: np.ndarray  # int64: the children, best first


@njit(cache=True, nogil=True)
def new_scratch():
    """Empty :class:`Scratch` for one thread."""
    return Scratch(
        np.empty(MAX_CHILDREN, dtype=np.float64),
        np.empty(MAX_CHILDREN, dtype=np.int64),
        np.empty(MAX_CHILDREN, dtype=np.int64),
    )


def next_child(s0, s1, player, placed, params):
    """The child that fills the lowest cell of ``placed`` (the pass when ``placed`` is 0).

    Returns the cell (-1: the pass), the cells left, the child's bitboards, whether its game is
    over and player 0's result code there.
    """
    cell = np.int64(-1)
    if placed:
        cell = lowest_bit_index(placed)
        placed &= placed - U1
    c0, c1 = kernels.place(s0, s1, player, cell, params)
    terminal, result = kernels.outcome(c0, c1, 1 - player, params)
    return cell, placed, c0, c1, terminal, result


def expand(tree, b, node, thread, scratch, params, numbers, net, rng):
    """Fill ``node``'s children in ``thread``'s free range and publish them; return (ok, rng).

    ``ok`` is False when the range is full (the node stays a leaf). A position in play without
    a placement gets a single child, the pass. The block is published by writing
    ``first_child`` last, so other threads never see a half-made block.
    """
    s0, s1, player = tree.s0[b, node], tree.s1[b, node], tree.player[b, node]
    cells = kernels.placements(s0, s1, player, params)
    count = np.int64(1) if cells == 0 else np.int64(popcount(cells))
    start = reserve(tree, b, thread, count)
    if start < 0:
        return False, rng
    next_player = 1 - player
    order = scratch.order  # child i (in cell order) goes to slot start + order[i]
    for i in range(count):
        order[i] = i
    for i in range(count - 1, 0, -1):  # Fisher-Yates: the order in which UCT opens them
        rng = next_rng(rng)
        j = np.int64(rng_output(rng) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
    if WIDENING:  # best evaluation first; the random order breaks ties
        placed = cells
        for i in range(count):
            _, placed, c0, c1, terminal, result = next_child(s0, s1, player, placed, params)
            scratch.heur[i] = child_heuristic(
                c0, c1, next_player, terminal, result, player, params, numbers, net
            )
        ranked = scratch.ranked
        for i in range(count):
            ranked[order[i]] = i
        for r in range(1, count):  # stable insertion sort, best first
            k = ranked[r]
            j = r
            while j > 0 and scratch.heur[ranked[j - 1]] < scratch.heur[k]:
                ranked[j] = ranked[j - 1]
                j -= 1
            ranked[j] = k
        for r in range(count):
            order[ranked[r]] = r
    prior = 1.0 / count
    placed = cells
    for i in range(count):
        cell, placed, c0, c1, terminal, result = next_child(s0, s1, player, placed, params)
        slot = start + order[i]
        action = kernels.cell_action(cell, params)
        init_node(tree, b, slot, node, action, cell, c0, c1, next_player, terminal, result, prior)
        if PENDING:
            tree.pending[b, slot] = 0
        if RAVE:
            tree.amaf_value[b, slot] = 0.0
            tree.amaf_visits[b, slot] = 0
        if EVALUATES:
            if WIDENING:
                heur = scratch.heur[i]
            else:
                heur = child_heuristic(
                    c0, c1, next_player, terminal, result, player, params, numbers, net
                )
            tree.heur[b, slot] = heur
            tree.mm[b, slot] = heur
    tree.num_children[b, node] = count
    tree.num_expanded[b, node] = 0
    tree.first_child[b, node] = start  # published last: other threads read the block after this
    return True, rng


def expand_priors(tree, b, node, logits, e, params):
    """Add ``node``'s children, sorted by action, with the softmax of ``logits[e]`` as priors.

    A position in play without a placement gets one child, the pass. Returns False (and adds
    nothing) when the tree is full.
    """
    s0 = tree.s0[b, node]
    s1 = tree.s1[b, node]
    player = tree.player[b, node]
    cells = kernels.placements(s0, s1, player, params)
    moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    actions = np.empty(MAX_CHILDREN, dtype=np.int64)
    count = 0
    if cells == 0:
        moves[0] = -1
        actions[0] = kernels.cell_action(-1, params)
        count = 1
    while cells:
        cell = lowest_bit_index(cells)
        cells &= cells - U1
        action = kernels.cell_action(cell, params)
        i = count
        while i > 0 and actions[i - 1] > action:  # insertion sort by action
            actions[i] = actions[i - 1]
            moves[i] = moves[i - 1]
            i -= 1
        actions[i] = action
        moves[i] = cell
        count += 1
    first = reserve(tree, b, 0, count)
    if first < 0:
        return False
    top = -np.inf
    for i in range(count):
        top = max(top, np.float64(logits[e, actions[i]]))
    total = 0.0
    for i in range(count):
        total += np.exp(np.float64(logits[e, actions[i]]) - top)
    log_total = np.log(total)
    next_player = 1 - player
    for i in range(count):
        child = first + i
        c0, c1 = kernels.place(s0, s1, player, moves[i], params)
        over, result = kernels.outcome(c0, c1, next_player, params)
        logit = np.float64(logits[e, actions[i]]) - top
        prior = np.exp(logit) / total
        init_node(
            tree, b, child, node, actions[i], moves[i], c0, c1, next_player, over, result, prior
        )
        tree.pending[b, child] = 0
        tree.raw_value[b, child] = 0.0
        tree.logp[b, child] = logit - log_total
    tree.num_children[b, node] = count
    tree.num_expanded[b, node] = count
    tree.first_child[b, node] = first
    return True
