"""How often an agent plays a perfect player's move, on a labelled set.

Two shares, each with its 95% Wilson interval, over the positions of a set
(:mod:`boardzoo.accuracy.labelled`):

- ``keeps``: the move keeps the game's result (a won position stays won, a drawn one drawn; in
  a lost position every move does);
- ``best``: the move has the best exact score (the fastest win, the slowest loss).

Both are also given over the *critical* positions alone, those where some move changes the
result: the positions where a mistake is possible. The agent starts afresh at every position
(``reset``), so nothing carries from one to the next.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from boardzoo.accuracy.labelled import LabelledSet, result_of
from boardzoo.agents.base import Agent
from boardzoo.arena.ratings import wilson_interval

__all__ = ["Accuracy", "Share", "measure_accuracy"]


@dataclass(frozen=True)
class Share:
    """A share of positions with its 95% Wilson interval.

    Attributes:
        hits: positions where the move counts.
        total: positions measured.
    """

    hits: int
    total: int

    @property
    def value(self) -> float:
        return self.hits / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.value, self.total)

    def __str__(self) -> str:
        low, high = self.interval
        return f"{100 * self.value:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


@dataclass(frozen=True)
class Accuracy:
    """An agent's accuracy on a labelled set.

    Attributes:
        keeps: share of positions where its move keeps the game's result.
        best: share where its move has the best exact score.
        keeps_critical: ``keeps`` over the critical positions (a mistake possible).
        best_critical: ``best`` over the critical positions.
        seconds: mean seconds a move.
    """

    keeps: Share
    best: Share
    keeps_critical: Share
    best_critical: Share
    seconds: float


def measure_accuracy(
    agent: Agent,
    labelled: LabelledSet,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Accuracy:
    """The agent's move in every position of ``labelled`` (the first ``limit``), scored.

    Raises:
        ValueError: the agent cannot play the set's game (:meth:`Agent.check_game`), or it
            plays an illegal move (naming the position).
    """
    game = labelled.game
    agent.check_game(game)
    agent.prepare(game)
    positions = labelled.positions[:limit] if limit is not None else labelled.positions
    keeps = best = keeps_critical = best_critical = critical = 0
    start = time.perf_counter()
    for number, position in enumerate(positions, start=1):
        agent.reset()
        move = agent.act(position.state(game))
        if move not in position.scores:
            raise ValueError(
                f"{agent!r} played {move} in position {number} (moves {list(position.moves)}), "
                f"not a legal action ({sorted(position.scores)})"
            )
        kept = result_of(position.scores[move]) == result_of(position.best)
        top = position.scores[move] == position.best
        keeps += kept
        best += top
        if position.critical:
            critical += 1
            keeps_critical += kept
            best_critical += top
        if progress is not None:
            progress(number, len(positions))
    total = len(positions)
    seconds = (time.perf_counter() - start) / max(total, 1)
    return Accuracy(
        Share(keeps, total),
        Share(best, total),
        Share(keeps_critical, critical),
        Share(best_critical, critical),
        seconds,
    )
