"""The one loop's steps driven from Python, for games outside the catalog.

A game without bitboards (any :class:`~boardzoo.games.GameState`, e.g. a PettingZoo env through
:class:`~boardzoo.agents.adapter.AECGameState`) is searched on the same tree with the same
compiled selection and backup (:func:`~boardzoo.search.loop.generic_steps`); only what needs
the game runs in Python: a node's children are made by ``state.apply`` (kept in a list beside
the tree, indexed by node), and a leaf is scored by a uniformly random playout.
"""

from __future__ import annotations

import time
from typing import NamedTuple, cast

import numpy as np

from boardzoo.games.spec import DRAW
from boardzoo.games.state import GameState
from boardzoo.search import tree as tr
from boardzoo.search.loop import MAX_SEQUENCE, generic_steps
from boardzoo.search.memory import Memory
from boardzoo.search.options import Rules
from boardzoo.search.positions import result_code
from boardzoo.search.reroot import subtree_order

__all__ = ["ForeignTree", "run", "subtree_states"]

NO_CELL = -2  # a foreign game's move fills no known cell (and is never taken for a pass)


def subtree_states(tree: tr.Tree, node: int) -> np.ndarray:
    """The old node ids of ``node``'s subtree in the order :func:`keep_subtree` keeps them."""
    origin, _, _ = subtree_order(tree, 0, node)
    return cast("np.ndarray", origin)


class ForeignTree(NamedTuple):
    """What the Python-driven loop grows: row 0 of ``tree``, the position of each of its nodes
    (``states[node]``), the rules, the search memory, and the random stream of expansion orders
    and playouts."""

    tree: tr.Tree
    states: list[GameState | None]
    rules: Rules
    memory: Memory
    rng: np.random.Generator


def run(search: ForeignTree, simulations: int, deadline: float | None) -> int:
    """Run up to ``simulations`` simulations of a foreign game's tree; stop at ``deadline``."""
    steps = generic_steps(search.rules)
    descend, open_first, backup = steps["descend"], steps["open_first"], steps["backup"]
    tree, rules = search.tree, search.rules
    numbers = rules.numbers(1.0)
    path = np.empty(MAX_SEQUENCE, dtype=np.int64)
    cells = np.empty(MAX_SEQUENCE, dtype=np.int64)
    players = np.empty(MAX_SEQUENCE, dtype=np.int64)
    done = 0
    while done < simulations:
        if rules.solver and tr.is_solved(tree, 0, 0):
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
        leaf, depth, expandable = descend(tree, 0, path, cells, players, numbers, search.memory)
        if expandable and _expand(search, int(leaf)):
            leaf, depth = open_first(tree, 0, leaf, depth, path, cells, players)
        leaf = int(leaf)
        if tree.terminal[0, leaf] or (rules.solver and tr.is_solved(tree, 0, leaf)):
            score0 = float(tr.score_for(int(tree.pess[0, leaf]), 0))
        else:
            score0 = _playout(search, leaf)
        backup(tree, 0, leaf, score0)
        done += 1
    return done


def _state(search: ForeignTree, node: int) -> GameState:
    state = search.states[node]
    assert state is not None
    return state


def _expand(search: ForeignTree, node: int) -> bool:
    """Make ``node``'s children, in random order; False if the tree is full."""
    tree, state = search.tree, _state(search, node)
    actions = state.legal_actions()
    count = len(actions)
    first = int(tr.reserve(tree, 0, 0, count))
    if first == tr.NO_NODE:
        return False
    prior = 1.0 / count
    order = search.rng.permutation(count)
    states = search.states
    if len(states) < first + count:
        states.extend([None] * (first + count - len(states)))
    zero = np.uint64(0)  # foreign games have no bitboards
    for index, action in zip(order, actions, strict=True):
        child = state.apply(action)
        terminal = child.is_terminal()
        result = result_code(child) if terminal else DRAW
        tr.init_node(
            tree, 0, first + int(index), node, action, NO_CELL, zero, zero, child.current_player,
            terminal, result, prior,
        )  # fmt: skip
        states[first + int(index)] = child
    tree.num_children[0, node] = count
    tree.num_expanded[0, node] = 0
    tree.first_child[0, node] = first
    return True


def _playout(search: ForeignTree, node: int) -> float:
    """Player 0's score of one uniformly random playout from ``node``."""
    state = _state(search, node)
    rng = search.rng
    while not state.is_terminal():
        actions = state.legal_actions()
        state = state.apply(actions[int(rng.integers(len(actions)))])
    first, _ = state.returns()
    return 1.0 if first > 0 else 0.0 if first < 0 else 0.5
