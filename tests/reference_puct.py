"""A plain Python PUCT search: the slow, independent reference for the batched AlphaZero search.

One :class:`Node` object per position, positions made by ``BoardState.apply``, priors and values
from per-position functions. The rules are the ones :mod:`boardzoo.search.batched` documents,
written out here without any of its code:

* the root is evaluated first (its prior and value) and expanded; ``simulations`` then counts the
  simulations below it;
* a simulation walks down from the root by AlphaZero's PUCT,
  ``(2q - 1) + C(N) * P * sqrt(max(N, 1)) / (1 + n)`` with ``q`` the child's mean score in
  ``[0, 1]`` (0.5 when unvisited), ``C(N) = c_init + log((1 + N + c_base) / c_base)`` (just
  ``c_init`` when ``c_base`` is 0), the first child in action order winning ties; it stops at a
  finished game (scored exactly) or at a position not expanded yet, which is evaluated and
  expanded with the prior over its legal actions (renormalised; stored, like the search's, as a
  float32);
* the value (for the player to move, clipped to ``[-1, 1]``) is backed up as a score in
  ``[0, 1]`` to every node of the path, from the point of view of the player who moved into it;
* the move played is the most visited one (ties: the higher mean score, then the lower action).

``benchmarks/bench_az_search.py`` may import it as "the Python PUCT loop" to time against.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from boardzoo.games import BoardState

__all__ = ["Node", "ReferenceResult", "puct_search"]

PriorFn = Callable[[BoardState], np.ndarray]
ValueFn = Callable[[BoardState], float]


@dataclass
class Node:
    """One position of the tree."""

    state: BoardState
    mover_into: int  # the player who moved into this position (for the root: the other one)
    action: int = -1
    prior: float = 1.0
    visits: int = 0
    value: float = 0.0  # sum of scores in [0, 1] of ``mover_into``
    children: list[Node] = field(default_factory=list)
    expanded: bool = False


@dataclass(frozen=True)
class ReferenceResult:
    """The root's statistics: float64 / int64 arrays over all actions."""

    visits: np.ndarray
    q: np.ndarray  # mean value in [-1, 1] for the root's player to move; nan when unvisited
    prior: np.ndarray
    action: int
    simulations: int
    seconds: float

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else math.inf


def _score0(state: BoardState) -> float:
    """Player 0's score of a finished game."""
    first, _ = state.returns()
    return 1.0 if first > 0 else 0.0 if first < 0 else 0.5


def _evaluate(node: Node, prior_fn: PriorFn, value_fn: ValueFn) -> float:
    """Expand ``node`` with ``prior_fn``'s prior; return player 0's score by ``value_fn``."""
    state = node.state
    actions = state.legal_actions()  # ascending
    probabilities = np.asarray(prior_fn(state), dtype=np.float64)
    legal = np.clip(probabilities[actions], 0.0, None)
    total = float(legal.sum())
    shares = legal / total if total > 0 else np.full(len(actions), 1.0 / len(actions))
    node.children = [
        Node(state.apply(a), state.current_player, a, float(np.float32(p)))
        for a, p in zip(actions, shares, strict=True)
    ]
    node.expanded = True
    value = min(1.0, max(-1.0, float(value_fn(state))))
    score = (value + 1.0) / 2.0
    return score if state.current_player == 0 else 1.0 - score


def _select(node: Node, c_init: float, c_base: float) -> Node:
    parent_visits = float(max(node.visits, 1))
    scale = c_init
    if c_base > 0.0:
        scale = c_init + math.log((1.0 + parent_visits + c_base) / c_base)
    scale *= math.sqrt(parent_visits)
    best, best_score = node.children[0], -math.inf
    for child in node.children:
        q = child.value / child.visits if child.visits > 0 else 0.5
        score = (2.0 * q - 1.0) + scale * child.prior / (1.0 + child.visits)
        if score > best_score:
            best, best_score = child, score
    return best


def _backup(path: list[Node], score0: float) -> None:
    for node in path:
        node.visits += 1
        node.value += score0 if node.mover_into == 0 else 1.0 - score0


def puct_search(
    state: BoardState,
    prior_fn: PriorFn,
    value_fn: ValueFn,
    simulations: int | None = None,
    seconds: float | None = None,
    c_init: float = 1.25,
    c_base: float = 0.0,
) -> ReferenceResult:
    """Search ``state`` with ``simulations`` simulations below the root, or for ``seconds``.

    Args:
        state: a position in play.
        prior_fn: ``state -> probabilities over all actions``.
        value_fn: ``state -> value in [-1, 1]`` for the player to move.
        simulations: the budget below the root; ``None``: until ``seconds`` have passed.
        seconds: a time limit (checked before each simulation), or ``None``.
        c_init: PUCT's exploration constant.
        c_base: AlphaZero's schedule (0: constant ``c_init``).

    Returns:
        The root's statistics and the move played.
    """
    if simulations is None and seconds is None:
        raise ValueError("give simulations, seconds, or both")
    start = time.perf_counter()
    deadline = math.inf if seconds is None else start + seconds
    budget = math.inf if simulations is None else simulations
    root = Node(state, 1 - state.current_player)
    _backup([root], _evaluate(root, prior_fn, value_fn))
    done = 0
    while done < budget and (done == 0 or time.perf_counter() < deadline):
        path = [root]
        node = root
        while node.expanded and not node.state.is_terminal():
            node = _select(node, c_init, c_base)
            path.append(node)
        if node.state.is_terminal():
            score0 = _score0(node.state)
        else:
            score0 = _evaluate(node, prior_fn, value_fn)
        _backup(path, score0)
        done += 1
    num_actions = state.num_actions
    visits = np.zeros(num_actions, dtype=np.int64)
    q = np.full(num_actions, np.nan)
    prior = np.zeros(num_actions)
    for child in root.children:
        visits[child.action] = child.visits
        prior[child.action] = child.prior
        if child.visits:
            q[child.action] = 2.0 * child.value / child.visits - 1.0
    best = max(
        root.children,
        key=lambda c: (c.visits, c.value / c.visits if c.visits else -1.0, -c.action),
    )
    return ReferenceResult(visits, q, prior, best.action, done, seconds=time.perf_counter() - start)
