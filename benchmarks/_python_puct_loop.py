"""A PUCT loop in Python, one simulation at a time: the baseline of ``bench_az_search.py``.

The loop runs one simulation at a time, in Python, with the compiled operations of a single tree
(``_old_tree.py``), calling the prior and value functions once per new leaf; the batched
AlphaZero search (:mod:`boardzoo.search.batched`) is timed against it. It has that path only (no
UCT, no solver, no tree reuse, no root noise). The code is an earlier
``boardzoo/agents/mcts/search.py``'s (``Searcher._simulate_python`` and what it calls) and, for
PUCT selection, ``tree.select_child`` / ``tree.descend``'s, unchanged but for the branches this
path never takes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import cast

import _old_tree as tr
import numpy as np
from numba import njit

from boardzoo.games.spec import DRAW, LOSS, WIN
from boardzoo.games.state import BoardState, GameState

__all__ = ["PythonPUCTLoop"]

PriorFn = Callable[[GameState], np.ndarray]
ValueFn = Callable[[GameState], float]


@njit(cache=True, nogil=True)
def _select_child(tree, node, c, c_base):
    """The child maximising PUCT ``Q + C * P * sqrt(N_parent) / (1 + N)``, ``Q`` in [-1, 1] (0
    for unvisited children), ``C = c`` or AlphaZero's ``c + log((1 + N_parent + c_base) /
    c_base)`` with ``c_base > 0``."""
    first = tree.first_child[node]
    count = tree.num_expanded[node]
    parent_visits = max(tree.visits[node], 1)
    scale = c
    if c_base > 0.0:
        scale = c + np.log((1.0 + parent_visits + c_base) / c_base)
    scale *= np.sqrt(parent_visits)
    best = tr.NO_NODE
    best_score = -np.inf
    for child in range(first, first + count):
        visits = tree.visits[child]
        q = tree.value[child] / visits if visits > 0 else 0.5
        score = (2.0 * q - 1.0) + scale * tree.prior[child] / (1.0 + visits)
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True, nogil=True)
def _descend(tree, c, c_base):
    """Walk from the root to the node where this simulation leaves the tree: a finished game or
    a node not expanded yet."""
    node = tree.meta[tr.ROOT]
    while True:
        if tree.terminal[node]:
            return node
        if tree.first_child[node] == tr.NO_NODE:
            return node
        node = _select_child(tree, node, c, c_base)


def _bitboards(state: GameState) -> tuple[np.uint64, np.uint64]:
    s0, s1 = cast(BoardState, state).bitboards()
    return np.uint64(s0), np.uint64(s1)


def _result_of(state: GameState) -> int:
    first, _ = state.returns()
    if first > 0:
        return WIN
    return LOSS if first < 0 else DRAW


class PythonPUCTLoop:
    """One PUCT tree grown one simulation at a time in Python, with prior and value callbacks.

    Args:
        prior_fn: ``state -> probabilities over all actions``.
        value_fn: ``state -> value in [-1, 1] for the player to move``.
        c: PUCT's exploration constant.
        c_base: AlphaZero's schedule (0: constant ``c``).
        max_nodes: nodes the tree may hold.
    """

    def __init__(
        self,
        prior_fn: PriorFn,
        value_fn: ValueFn,
        c: float = 1.25,
        c_base: float = 19652.0,
        max_nodes: int = 1_000_000,
    ) -> None:
        self.prior_fn = prior_fn
        self.value_fn = value_fn
        self.c = c
        self.c_base = c_base
        self.tree = tr.new_tree(max_nodes)
        self.states: list[GameState | None] = []

    def search(
        self, state: GameState, seconds: float = math.inf, simulations: int = 2**62
    ) -> tuple[int, float]:
        """Simulate from ``state`` (a fresh tree) for ``seconds`` or ``simulations``, whichever
        ends first (the first simulation evaluates the root); return the simulations run and the
        seconds taken."""
        start = time.perf_counter()
        deadline = start + seconds
        s0, s1 = _bitboards(state)
        tr.init_root(self.tree, s0, s1, state.current_player, False, DRAW)
        self.states = [state]
        done = 0
        while done < simulations and time.perf_counter() < deadline:
            self._simulate()
            done += 1
        return done, time.perf_counter() - start

    def root_visits(self) -> dict[int, int]:
        """The visits of each root action of the last search."""
        tree = self.tree
        first, count = int(tree.first_child[0]), int(tree.num_children[0])
        if first == tr.NO_NODE:
            return {}
        return {int(tree.action[i]): int(tree.visits[i]) for i in range(first, first + count)}

    def _simulate(self) -> None:
        tree = self.tree
        leaf = int(_descend(tree, self.c, self.c_base))
        settled = bool(tree.terminal[leaf])
        if not settled and int(tree.first_child[leaf]) == tr.NO_NODE:
            self._expand(leaf)  # AlphaZero: the leaf is evaluated where it stands
        score0 = float(tr.score_for(int(tree.pess[leaf]), 0)) if settled else self._evaluate(leaf)
        tr.backup(tree, leaf, score0, False)

    def _state(self, node: int) -> GameState:
        state = self.states[node]
        assert state is not None
        return state

    def _expand(self, node: int) -> bool:
        """Reserve and fill ``node``'s children; False if the tree is full."""
        tree, state = self.tree, self._state(node)
        actions = state.legal_actions()
        first = int(tr.reserve_children(tree, node, len(actions)))
        if first == tr.NO_NODE:
            return False
        priors = self._priors(state, actions)
        tree.num_expanded[node] = len(actions)
        if len(self.states) < first + len(actions):
            self.states.extend([None] * (first + len(actions) - len(self.states)))
        for index, action in enumerate(actions):
            child = state.apply(action)
            s0, s1 = _bitboards(child)
            terminal = child.is_terminal()
            result = _result_of(child) if terminal else DRAW
            tr.set_child(
                tree, node, index, action, s0, s1, child.current_player, terminal, result,
                float(priors[index]),
            )  # fmt: skip
            self.states[first + index] = child
        return True

    def _priors(self, state: GameState, actions: list[int]) -> np.ndarray:
        probabilities = np.asarray(self.prior_fn(state), dtype=np.float64)
        if probabilities.shape != (state.num_actions,):
            raise ValueError(
                f"prior_fn must return {state.num_actions} probabilities, one per action; "
                f"got shape {probabilities.shape}"
            )
        legal = np.clip(probabilities[actions], 0.0, None)
        total = legal.sum()
        return legal / total if total > 0 else np.full(len(actions), 1.0 / len(actions))

    def _evaluate(self, node: int) -> float:
        """Player 0's expected score from ``node``, by the value function."""
        state = self._state(node)
        value = float(self.value_fn(state))  # for the player to move, in [-1, 1]
        value = min(1.0, max(-1.0, value))
        score = (value + 1.0) / 2.0
        return score if state.current_player == 0 else 1.0 - score
