"""The one simulation loop: descend, expand, evaluate, back up; compiled per game and rule set.

:func:`simulate` is every MCTS of the package: which child a simulation walks into
(:mod:`~boardzoo.search.select`), how a leaf's children are made (:mod:`~boardzoo.search.expand`),
what a leaf is worth (:mod:`~boardzoo.search.evaluate`) and what the result changes on the way
up (:mod:`~boardzoo.search.backup`) are rules composed into it. :func:`compiled_loop` compiles
one copy per game (its kernels inlined) and per set of switches (:class:`~boardzoo.search.
options.Rules`), cached on disk, so a rule that is off costs nothing.

Several threads may run :func:`simulate` on one row at once (tree parallelism, Enzenberger &
Müller 2009): each takes new nodes from its own range (``Tree.alloc``), publishes a node's
children by writing ``first_child`` last, and adds statistics without locks (a rare lost update
costs a visit, never the tree's shape). A virtual loss (``N_VIRTUAL_LOSS`` visits counted as
lost while a simulation is below a node) steers the other threads elsewhere.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.search import backup as backup_rules
from boardzoo.search import evaluate as leaf_evaluators
from boardzoo.search import expand as expansion
from boardzoo.search.backup import backup, update_amaf
from boardzoo.search.evaluate import evaluate_leaf
from boardzoo.search.expand import expand, new_scratch
from boardzoo.search.memory import update_criticality, update_replies
from boardzoo.search.options import N_VIRTUAL_LOSS, N_WIDEN_ALPHA, N_WIDEN_K, Rules
from boardzoo.search.select import select_uct
from boardzoo.search.tree import NO_NODE, is_solved, score_for

__all__ = ["MAX_SEQUENCE", "compiled_loop", "descend", "generic_steps", "open_first", "simulate"]

MAX_SEQUENCE = 512  # moves of one simulation (tree and playout) that are remembered

# Compile-time switches (fixed per compiled copy).
SOLVER = False
PARALLEL = False
WIDENING = False
RAVE = False
LGRF = False
CRITICALITY = False
RECORDS = False


def descend(tree, b, path, cells, players, numbers, memory):
    """Walk row ``b`` from the root to where this simulation leaves the tree.

    Fills ``path`` (and, when moves are recorded, ``cells`` and ``players``) and returns
    ``(depth, expandable)``: the path's length, and whether its last node is a leaf in play to
    expand now (visited before, or the root). A node opens one child a visit (with progressive
    widening at most ``ceil(k * n ** alpha)``); the child just opened ends the walk.
    """
    loss = np.int32(numbers[N_VIRTUAL_LOSS])
    node = 0
    path[0] = 0
    depth = 1
    while depth < MAX_SEQUENCE:
        if tree.terminal[b, node] or (SOLVER and is_solved(tree, b, node)):
            return depth, False
        first = tree.first_child[b, node]
        if first == NO_NODE:
            return depth, tree.visits[b, node] > 0 or node == 0
        opened = tree.num_expanded[b, node]
        limit = np.int64(tree.num_children[b, node])
        if WIDENING:
            visits = max(tree.visits[b, node], 1)
            widened = np.ceil(numbers[N_WIDEN_K] * visits ** numbers[N_WIDEN_ALPHA])
            limit = min(limit, max(1, np.int64(widened)))
        if opened < limit:
            tree.num_expanded[b, node] = opened + 1
            child = first + opened
        else:
            child = select_uct(tree, b, node, numbers, memory)
            if child == NO_NODE:
                return depth, False  # the bounds have settled everything below
        if RECORDS:
            cells[depth - 1] = tree.cell[b, child]
            players[depth - 1] = tree.player[b, node]
        if PARALLEL:
            tree.visits[b, child] += loss
        path[depth] = child
        depth += 1
        node = child
        if opened < limit:
            return depth, False  # the child just opened is this simulation's leaf
    return depth, False


def open_first(tree, b, path, depth, cells, players, numbers):
    """Open the first child of the just expanded leaf ``path[depth - 1]``; return the depth."""
    node = path[depth - 1]
    child = tree.first_child[b, node]
    tree.num_expanded[b, node] = 1
    if RECORDS:
        cells[depth - 1] = tree.cell[b, child]
        players[depth - 1] = tree.player[b, node]
    if PARALLEL:
        tree.visits[b, child] += np.int32(numbers[N_VIRTUAL_LOSS])
    path[depth] = child
    return depth + 1


def simulate(tree, b, thread, count, numbers, memory, params, net, rng):
    """Run up to ``count`` simulations in row ``b`` as thread ``thread``; return (ran, rng).

    Each simulation: :func:`descend` to a leaf (expanding it on its second visit, the root on
    its first, and opening its first child); the leaf's score from the evaluator; backup.
    Stops early once the root is proven.
    """
    path = np.empty(MAX_SEQUENCE, dtype=np.int64)
    cells = np.empty(MAX_SEQUENCE, dtype=np.int64)
    players = np.empty(MAX_SEQUENCE, dtype=np.int64)
    scratch = new_scratch()
    done = 0
    while done < count:
        if SOLVER and is_solved(tree, b, 0):
            break
        depth, expandable = descend(tree, b, path, cells, players, numbers, memory)
        if expandable:
            expanded, rng = expand(
                tree, b, path[depth - 1], thread, scratch, params, numbers, net, rng
            )
            if expanded:
                depth = open_first(tree, b, path, depth, cells, players, numbers)
        leaf = path[depth - 1]
        length = depth - 1
        finished = True
        f0, f1 = tree.s0[b, leaf], tree.s1[b, leaf]
        if tree.terminal[b, leaf] or (SOLVER and is_solved(tree, b, leaf)):
            score0 = score_for(tree.pess[b, leaf], 0)
            finished = tree.terminal[b, leaf] != 0
        else:
            score0, finished, f0, f1, length, rng = evaluate_leaf(
                f0, f1, tree.player[b, leaf], params, numbers, memory, net, cells, players,
                length, rng,
            )  # fmt: skip
        backup(tree, b, path, depth, score0, numbers)
        if RAVE:
            update_amaf(tree, b, path, depth, cells, players, length, score0)
        if LGRF:
            update_replies(memory, cells, players, length, score0)
        if CRITICALITY and finished:
            update_criticality(memory, f0, f1, score0)
        done += 1
    return done, rng


_TEMPLATES = (
    simulate,
    descend,
    open_first,
    select_uct,
    backup_rules.update_minimax,
    backup,
    update_amaf,
    expansion.next_child,
    expand,
    leaf_evaluators.evaluation,
    leaf_evaluators.child_heuristic,
    leaf_evaluators.playout,
    evaluate_leaf,
)


# Small and called once a simulation or once a level: inlined, so no call passes the tree's arrays.
_INLINE = ("descend", "open_first", "select_uct", "update_minimax", "backup")


@cache
def _compiled(game: Game, switches: tuple[tuple[str, bool], ...]) -> Any:
    return specialise(_TEMPLATES, game.kernels, constants=dict(switches), inline=_INLINE)


def compiled_loop(game: Game, rules: Rules) -> Any:
    """:func:`simulate` compiled for ``game``'s kernels and ``rules``' switches (cached)."""
    return _compiled(game, tuple(sorted(rules.constants().items())))["simulate"]


@cache
def _generic(switches: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
    return specialise(
        (descend, open_first, select_uct, backup_rules.update_minimax, backup),
        None,
        constants=dict(switches),
    )


def generic_steps(rules: Rules) -> dict[str, Any]:
    """:func:`descend`, :func:`open_first` and :func:`backup` compiled for ``rules`` without a
    game's kernels: the steps of the loop for games outside the catalog, driven from Python."""
    return _generic(tuple(sorted(rules.constants().items())))
