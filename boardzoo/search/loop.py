"""The one simulation loop: descend, expand, evaluate, back up; compiled per game and rule set.

Every MCTS of the package is this loop: which child a simulation walks into
(:mod:`~boardzoo.search.select`), how a leaf's children are made (:mod:`~boardzoo.search.expand`),
what a leaf is worth (:mod:`~boardzoo.search.leaf_values`) and what the result changes on the way
up (:mod:`~boardzoo.search.backup`) are rules composed into it, switched at compile time
(:class:`~boardzoo.search.options.Rules`, and ``GUMBEL`` for AlphaZero's choice), so one
copy is compiled per game (its kernels inlined) and per set of switches, cached on disk, and a
rule that is off costs nothing.

A simulation is :func:`descend` (selection down to a leaf), expansion, the leaf's evaluation and
:func:`~boardzoo.search.backup.backup`. Where the evaluator is compiled (rollouts, the game's
evaluation, its n-tuple network) :func:`simulate` runs whole simulations in one call. Where it
is a network called from Python on a batch, a step of the loop is cut at the evaluation:
:func:`select_leaves` descends every tree of the batch and writes each leaf's input, the network
evaluates them all at once, and :func:`expand_and_backup` expands the leaves with its priors and
backs its values up (Finished games are scored exactly, without the network).

Several threads may run :func:`simulate` on one row at once (tree parallelism, Enzenberger &
Müller 2009): each takes new nodes from its own range (``Tree.alloc``), publishes a node's
children by writing ``first_child`` last, and adds statistics without locks (a rare lost update
costs a few visits, never the tree's shape). A virtual loss (each pending descent below a node
counts as ``N_VIRTUAL_LOSS`` lost visits) steers the other threads, or the other leaves of a
batched step, elsewhere.
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast

import numpy as np

from boardzoo.games.bits import popcount
from boardzoo.games.spec import DRAW, LOSS, WIN, Game
from boardzoo.games.specialise import specialise
from boardzoo.gametree.solve import game_solver
from boardzoo.search import backup as backup_rules
from boardzoo.search import expand as expansion
from boardzoo.search import leaf_values as leaf_evaluators
from boardzoo.search.backup import backup, update_amaf
from boardzoo.search.expand import expand, expand_priors, new_scratch
from boardzoo.search.leaf_values import evaluate_leaf, write_leaf
from boardzoo.search.memory import update_criticality, update_replies
from boardzoo.search.options import (
    N_SOLVE_EMPTIES,
    N_WIDEN_ALPHA,
    N_WIDEN_K,
    Rules,
)
from boardzoo.search.python_bridge import call_evaluator
from boardzoo.search.select import select_az, select_uct
from boardzoo.search.tree import NO_NODE, is_solved, score_for

__all__ = [
    "MAX_SEQUENCE",
    "compiled_loop",
    "compiled_steps",
    "descend",
    "expand_and_backup",
    "generic_steps",
    "open_first",
    "select_leaves",
    "simulate",
]

MAX_SEQUENCE = 512  # moves of one simulation (tree and playout) that are remembered

# Compile-time switches (fixed per compiled copy).
SOLVER = False
PENDING = False
WIDENING = False
RAVE = False
LGRF = False
CRITICALITY = False
RECORDS = False
SOLVE = False

SOLVED = 2  # ``tree.terminal`` of a node the solver proved (1: the game is over there)


def exact_solve(s0, s1, player, params, alpha, beta, table_keys, table_data, counters):
    """Placeholder for the game's exact solver (:func:`boardzoo.gametree.exact_mode.solve`),
    linked into the copies that solve inside the tree (``SOLVE``)."""
    raise NotImplementedError("linked per game by compiled_loop")


def solve_leaf(tree, b, node, thread, params, numbers, solver):
    """Solve ``node`` (not the root) if it has at most ``numbers[N_SOLVE_EMPTIES]`` empty
    squares: its bounds become the proven result and it counts as finished (``SOLVED``).
    Returns whether it did."""
    s0, s1 = tree.s0[b, node], tree.s1[b, node]
    if node == 0 or popcount(params[0] & ~(s0 | s1)) > numbers[N_SOLVE_EMPTIES]:
        return False
    player = tree.player[b, node]
    score, _ = exact_solve(
        s0, s1, player, params, np.int64(-1), np.int64(1), solver.keys[thread],
        solver.data[thread], solver.counters[thread],
    )  # fmt: skip
    if score == 0:
        code = DRAW
    elif (score > 0) == (player == 0):
        code = WIN
    else:
        code = LOSS
    tree.pess[b, node] = code
    tree.opt[b, node] = code
    tree.terminal[b, node] = SOLVED
    return True


def descend(tree, b, path, cells, players, numbers, memory):
    """Walk row ``b`` from the root to where this simulation leaves the tree.

    Returns ``(leaf, depth, expandable)``: the node reached, the length of the path to it, and
    whether it is a leaf in play to expand now. UCT opens one child a visit (with progressive
    widening at most ``ceil(k * n ** alpha)``), the child just opened ending the walk, and
    expands a leaf on its second visit (the root on its first). The path is kept in ``path``
    (and the moves in ``cells`` and ``players``) only where a rule reads it (RAVE).

    With virtual loss (threads) every node of the path counts the walk as pending from the
    moment the walk enters it, so a thread racing down the same path sees it at once.
    AlphaZero's rules, which open every child at once and expand a leaf on its first visit, walk
    in :func:`select_leaves`.
    """
    node = 0
    path[0] = 0
    depth = 1
    expandable = False
    if PENDING:
        tree.pending[b, 0] += 1
    while depth < MAX_SEQUENCE:
        if tree.terminal[b, node] or (SOLVER and is_solved(tree, b, node)):
            break
        first = tree.first_child[b, node]
        if first == NO_NODE:
            expandable = tree.visits[b, node] > 0 or node == 0
            break
        opened = np.int64(tree.num_expanded[b, node])
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
                break  # the bounds have settled everything below
        depth = step_into(tree, b, node, child, depth, path, cells, players)
        node = child
        if opened < limit:
            break  # the child just opened is this simulation's leaf
    return node, depth, expandable


def step_into(tree, b, node, child, depth, path, cells, players):
    """Go from ``node`` down to ``child``: record the move where a rule reads it, count the
    walk as pending below it (threads), and return the new depth."""
    if RECORDS:
        cells[depth - 1] = tree.cell[b, child]
        players[depth - 1] = tree.player[b, node]
    if PENDING:
        tree.pending[b, child] += 1
    if RAVE:
        path[depth] = child
    return depth + 1


def open_first(tree, b, node, depth, path, cells, players):
    """Open the first child of the just expanded leaf ``node``; return it and the depth."""
    child = tree.first_child[b, node]
    tree.num_expanded[b, node] = 1
    return child, step_into(tree, b, node, child, depth, path, cells, players)


def simulate(tree, b, thread, count, numbers, memory, params, net, rng, solver):
    """Run up to ``count`` simulations in row ``b`` as thread ``thread``; return (ran, rng).

    ``solver``: the solver's tables of the search's threads (``SOLVE``: nodes with few empty
    squares are solved as a simulation first reaches them; see
    :class:`~boardzoo.search.handover.SolverTables`).

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
        leaf, depth, expandable = descend(tree, b, path, cells, players, numbers, memory)
        if expandable:
            expanded, rng = expand(tree, b, leaf, thread, scratch, params, numbers, net, rng)
            if expanded:
                leaf, depth = open_first(tree, b, leaf, depth, path, cells, players)
        length = depth - 1
        finished = True
        f0, f1 = tree.s0[b, leaf], tree.s1[b, leaf]
        if SOLVE and not tree.terminal[b, leaf]:
            solve_leaf(tree, b, leaf, thread, params, numbers, solver)
        if tree.terminal[b, leaf] or (SOLVER and is_solved(tree, b, leaf)):
            score0 = score_for(tree.pess[b, leaf], 0)
            finished = tree.terminal[b, leaf] == 1
        else:
            score0, finished, f0, f1, length, rng = evaluate_leaf(
                f0, f1, tree.player[b, leaf], params, numbers, memory, net, cells, players,
                length, rng,
            )  # fmt: skip
        backup(tree, b, leaf, score0)
        if RAVE:
            update_amaf(tree, b, path, depth, cells, players, length, score0)
        if LGRF:
            update_replies(memory, cells, players, length, score0)
        if CRITICALITY and finished:
            update_criticality(memory, f0, f1, score0)
        done += 1
    return done, rng


def select_leaves(tree, trees, leaves, active, numbers, choice, params, squares, cols,
                  leaf_tree, leaf_node, leaf_row, observations, masks, solver):  # fmt: skip
    """The first half of a batched step: walk each of the first ``trees`` trees with
    ``active[b]`` set down to ``leaves`` leaves; write the input of those to evaluate.

    Leaf ``j`` is node ``leaf_node[j]`` of tree ``leaf_tree[j]``; ``leaf_row[j]`` is its row in
    ``observations`` / ``masks``, or -1 for a finished game or one the solver proves (``SOLVE``,
    with ``solver``'s tables: scored exactly). The descents stay
    pending until :func:`expand_and_backup`, so the later descents of the step see them as
    virtual losses. Returns the number of leaves and of rows written.
    """
    found = 0
    rows = 0
    for b in range(trees):
        if not active[b]:
            continue
        for _ in range(leaves):
            # The walk of AlphaZero's rules: every child is open (made at once with the
            # network's priors), nothing is recorded, and the descent is marked pending along
            # the parent links once it ends, so it sees only the other walks of its step.
            node = 0
            while tree.terminal[b, node] == 0 and tree.first_child[b, node] != NO_NODE:
                node = select_az(tree, b, node, numbers, choice)
            up = node
            while up != NO_NODE:
                tree.pending[b, up] += 1
                up = tree.parent[b, up]
            leaf_tree[found] = b
            leaf_node[found] = node
            if SOLVE and not tree.terminal[b, node] and tree.first_child[b, node] == NO_NODE:
                solve_leaf(tree, b, node, 0, params, numbers, solver)
            if tree.terminal[b, node]:
                leaf_row[found] = -1
            else:
                leaf_row[found] = rows
                write_leaf(tree, b, node, params, squares, cols, observations, masks, rows)
                rows += 1
            found += 1
    return found, rows


def expand_and_backup(tree, found, leaf_tree, leaf_node, leaf_row, logits, values, params):
    """The second half of a batched step: expand the leaves with the network's priors and back
    its values (or the exact results of finished games) up."""
    for j in range(found):
        b = leaf_tree[j]
        node = leaf_node[j]
        row = leaf_row[j]
        if row < 0:
            score0 = tree.pess[b, node] * 0.5
        else:
            value = min(1.0, max(-1.0, np.float64(values[row])))
            score = (value + 1.0) / 2.0
            score0 = score if tree.player[b, node] == 0 else 1.0 - score
            if tree.first_child[b, node] == NO_NODE:
                tree.raw_value[b, node] = value
                expand_priors(tree, b, node, logits, row, params)
        backup(tree, b, node, score0)


def run_steps(tree, trees, leaves, budget, active, numbers, choice, params, squares, cols,
              leaf_tree, leaf_node, leaf_row, observations, masks, solver, key):  # fmt: skip
    """Batched steps until ``budget`` simulations a tree, or until the evaluator says stop.

    Each step selects ``leaves`` leaves in each tree with ``active[b]`` set
    (:func:`select_leaves`), leaves the compiled code once to have the search registered under
    ``key`` evaluate them (:func:`~boardzoo.search.python_bridge.call_evaluator`: the
    network, and the deadline), then expands them and backs the values up
    (:func:`expand_and_backup`). Returns the simulations run a tree.
    """
    done = 0
    while done < budget:
        step = min(leaves, budget - done)
        found, rows = select_leaves(
            tree, trees, step, active, numbers, choice, params, squares, cols, leaf_tree,
            leaf_node, leaf_row, observations, masks, solver,
        )  # fmt: skip
        logits, values, stop = call_evaluator(key, found, rows)
        expand_and_backup(tree, found, leaf_tree, leaf_node, leaf_row, logits, values, params)
        done += step
        if stop:
            break
    return done


_TEMPLATES = (
    simulate,
    solve_leaf,
    select_az,
    select_leaves,
    expand_and_backup,
    run_steps,
    descend,
    step_into,
    open_first,
    select_uct,
    backup_rules.update_minimax,
    backup,
    update_amaf,
    expansion.next_child,
    expand,
    expand_priors,
    write_leaf,
    leaf_evaluators.evaluation,
    leaf_evaluators.child_heuristic,
    leaf_evaluators.playout,
    evaluate_leaf,
)


# Small and called once a simulation or once a level: inlined, so no call passes the tree's arrays.
_INLINE = (
    "descend",
    "step_into",
    "open_first",
    "select_uct",
    "select_az",
    "update_minimax",
    "backup",
)
Switches = tuple[tuple[str, int | bool], ...]


@cache
def _compiled(game: Game, switches: Switches) -> Any:
    linked = {"exact_solve": game_solver(game).solve} if dict(switches).get("SOLVE") else {}
    return specialise(
        _TEMPLATES, game.kernels, constants=dict(switches), inline=_INLINE, linked=linked
    )


def compiled_loop(game: Game, rules: Rules) -> Any:
    """:func:`simulate` compiled for ``game``'s kernels and ``rules``' switches (cached)."""
    return _compiled(game, tuple(sorted(rules.constants().items())))["simulate"]


def compiled_steps(game: Game, gumbel: bool, solve: bool = False) -> dict[str, Any]:
    """:func:`select_leaves` and :func:`expand_and_backup` compiled for ``game`` with
    AlphaZero's rules, PUCT or Gumbel, solving leaves inside the tree if ``solve`` (cached):
    the halves of a batched step. Virtual loss is always on (several leaves a step)."""
    switches = (("GUMBEL", gumbel), ("PENDING", True), ("SOLVE", solve))
    return cast(dict[str, Any], _compiled(game, switches))


@cache
def _generic(switches: Switches) -> dict[str, Any]:
    return specialise(
        (descend, step_into, open_first, select_uct, backup_rules.update_minimax, backup),
        None,
        constants=dict(switches),
    )


def generic_steps(rules: Rules) -> dict[str, Any]:
    """:func:`descend`, :func:`open_first` and :func:`backup` compiled for ``rules`` without a
    game's kernels: the steps of the loop for games outside the catalog, driven from Python."""
    return _generic(tuple(sorted(rules.constants().items())))
