"""What a tree search reports: :class:`SearchInfo` and the :class:`MoveStats` of each root move.

``MCTSAgent.last_search`` and ``AlphaZeroAgent.last_search`` are both :class:`SearchInfo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["MoveStats", "SearchInfo"]


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
        extra: anything else the agent reports (AlphaZero: the root value and search kind).
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
