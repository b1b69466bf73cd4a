"""What a tree search reports: :class:`SearchInfo` and the :class:`MoveStats` of each root move.

``MCTSAgent.last_search`` and ``AlphaZeroAgent.last_search`` are both :class:`SearchInfo`;
:func:`root_moves` and :func:`search_info` make them from a batched AlphaZero search's result
(``AlphaZeroAgent`` and ``MCTSAgent`` with prior or value functions both search one position with
:class:`~boardzoo.search.batched.BatchedSearch`: one tree, or one tree per MCTS worker, all
rooted at that position).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardzoo.errors import BudgetError
from boardzoo.gametree.solve import SolveResult
from boardzoo.search.batched import SearchResult

__all__ = [
    "PROVEN_NAMES",
    "MoveStats",
    "SearchInfo",
    "choose_move",
    "root_moves",
    "search_info",
    "solved_info",
]

# A proven result as a score of the player to move, by name.
PROVEN_NAMES = {1.0: "win", 0.5: "draw", 0.0: "loss"}


@dataclass(frozen=True)
class MoveStats:
    """Root statistics of one candidate move, from the point of view of the player to move.

    Attributes:
        action: the move.
        visits: simulations through it.
        mean_value: its average score (1 win, 0.5 draw, 0 loss); ``nan`` for an unvisited move
            of the batched PUCT search, 0 for one of the UCT search.
        prior: the prior the search gave it (uniform for UCT; with root noise, after the noise).
        proven: ``"win"``, ``"draw"`` or ``"loss"`` once the solver has proven it.
    """

    action: int
    visits: int
    mean_value: float
    prior: float
    proven: str | None = None


@dataclass(frozen=True)
class SearchInfo:
    """What the last search did (``MCTSAgent.last_search``, ``AlphaZeroAgent.last_search``).

    Attributes:
        action: the move chosen.
        moves: root statistics, most visited first.
        principal_variation: the chosen move, then the most visited line below it.
        simulations: simulations run (all trees together).
        seconds: wall time of the search.
        tree_nodes: nodes in use, all trees together.
        reused_tree: whether the search started from the subtree of an earlier search.
        proven: the root's proven result for the player to move (solver only).
        workers: trees searched (MCTS's root parallelisation).
        extra: anything else the agent reports (AlphaZero: the root value and search kind;
            a move the solver chose: ``solved`` (``"exact"`` or ``"wld"``), ``score`` and
            ``solver_nodes``).
    """

    action: int
    moves: list[MoveStats]
    principal_variation: list[int]
    simulations: int
    seconds: float
    tree_nodes: int
    reused_tree: bool
    proven: str | None = None
    workers: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")

    @property
    def value(self) -> float:
        """Expected score of the player to move after the chosen move (its mean value)."""
        for move in self.moves:
            if move.action == self.action:
                return move.mean_value
        return float("nan")

    def visit_distribution(self, num_actions: int) -> np.ndarray:
        """The root visits as a distribution over all ``num_actions`` actions (sums to 1)."""
        policy = np.zeros(num_actions, dtype=np.float64)
        for move in self.moves:
            policy[move.action] = move.visits
        total = policy.sum()
        return policy / total if total > 0 else policy


def choose_move(moves: Sequence[MoveStats], final: str, solver: bool = False) -> int:
    """The move to play from the root statistics.

    Args:
        moves: every root move's statistics.
        final: ``"robust"``: the most visited (ties: the best mean value, then the lower
            action); ``"max"``: the best mean value (ties: the most visited).
        solver: a proven win is played at once and proven losses only when nothing else is
            left; a proven draw beats an unproven move whose mean value is below a draw.

    Raises:
        BudgetError: no move was searched (a RuntimeError).
    """
    if not moves:
        raise BudgetError("the search ran no simulation; raise the budget or max_nodes")
    candidates = list(moves)
    if solver:
        wins = [m for m in moves if m.proven == "win"]
        not_lost = [m for m in moves if m.proven != "loss"]
        candidates = wins or not_lost or candidates
    visited = [m for m in candidates if m.visits > 0] or candidates

    def mean(move: MoveStats) -> float:
        return -1.0 if np.isnan(move.mean_value) else move.mean_value

    if final == "robust":
        best = max(visited, key=lambda m: (m.visits, mean(m), -m.action))
    else:
        best = max(visited, key=lambda m: (mean(m), m.visits, -m.action))
    draws = [m for m in candidates if m.proven == "draw"]
    if draws and best.proven is None and best.mean_value < 0.5:
        best = max(draws, key=lambda m: m.visits)  # a sure draw beats a likely loss
    return best.action


def root_moves(result: SearchResult, legal: Sequence[int]) -> list[MoveStats]:
    """The root statistics of every legal move, all trees of ``result`` together.

    Visits are added up; the mean value is the visit-weighted mean of the trees' values
    (``nan`` where no tree visited the move); the prior is the trees' mean prior.

    Args:
        result: a search whose roots are all one position.
        legal: that position's legal actions.

    Returns:
        One :class:`MoveStats` per legal action, most visited first (ties: lower action).
    """
    moves = []
    for a in legal:
        visits = result.visits[:, a].astype(np.int64)
        total = int(visits.sum())
        if total > 0:
            seen = visits > 0
            q = float(np.dot(visits[seen], result.q[seen, a].astype(np.float64))) / total
            mean_value = (q + 1.0) / 2.0
        else:
            mean_value = float("nan")
        moves.append(
            MoveStats(
                action=int(a),
                visits=total,
                mean_value=mean_value,
                prior=float(np.mean(result.prior[:, a], dtype=np.float64)),
            )
        )
    moves.sort(key=lambda m: (-m.visits, m.action))
    return moves


def search_info(
    result: SearchResult,
    moves: list[MoveStats],
    action: int,
    principal_variation: list[int],
    seconds: float,
    extra: dict[str, Any] | None = None,
    reused: bool = False,
) -> SearchInfo:
    """The :class:`SearchInfo` of a batched search of one position.

    Args:
        result: the search's result (one row per tree).
        moves: :func:`root_moves` of it.
        action: the move chosen.
        principal_variation: the most visited line of one tree; kept if it starts with
            ``action``, else replaced by ``[action]``.
        seconds: the wall time the agent spent.
        extra: anything else to report.
        reused: whether the search continued a tree kept from the previous move.

    Returns:
        The search's description: simulations and nodes of all trees together.
    """
    line = principal_variation if principal_variation[:1] == [action] else [action]
    trees = len(result.action)
    return SearchInfo(
        action=action,
        moves=moves,
        principal_variation=line,
        simulations=int(result.simulations) * trees,
        seconds=seconds,
        tree_nodes=int(np.sum(result.nodes)),
        reused_tree=reused,
        workers=trees,
        extra=dict(extra or {}),
    )


def solved_info(result: SolveResult, seconds: float) -> SearchInfo:
    """What a search reports when the solver chose the move at the root
    (:func:`~boardzoo.search.handover.solve_root`): no simulation, the move proven."""
    action = result.best_moves[0]
    proven = "win" if result.score > 0 else "loss" if result.score < 0 else "draw"
    value = {"win": 1.0, "draw": 0.5, "loss": 0.0}[proven]
    return SearchInfo(
        action=action,
        moves=[MoveStats(action, 0, value, 1.0, proven)],
        principal_variation=[action],
        simulations=0,
        seconds=seconds,
        tree_nodes=0,
        reused_tree=False,
        proven=proven,
        extra={
            "solved": "exact" if result.exact else "wld",
            "score": result.score,
            "solver_nodes": result.nodes,
        },
    )
