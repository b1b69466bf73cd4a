"""The :class:`~boardzoo.agents.mcts.SearchInfo` of a batched AlphaZero search's result.

``AlphaZeroAgent`` and ``MCTSAgent`` with prior or value functions both search one position with
:class:`~boardzoo.search.batched.BatchedSearch` (one tree, or one tree per MCTS worker, all
rooted at that position) and report it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from boardzoo.agents.mcts.info import MoveStats, SearchInfo

if TYPE_CHECKING:
    from boardzoo.search.batched import SearchResult

__all__ = ["root_moves", "search_info"]


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
