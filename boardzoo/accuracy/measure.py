"""How often an agent plays a perfect player's move, on a labelled set.

Two shares, each with its 95% Wilson interval, over the positions of a set
(:mod:`boardzoo.accuracy.labelled`):

- ``keeps``: the move keeps the game's result (a won position stays won, a drawn one drawn; in
  a lost position every move does);
- ``best``: the move has the best exact score (the fastest win, the slowest loss);

and ``score_lost``, the mean of the best score less the move's (Reversi: discs given away).

Both are also given over the *critical* positions alone, those where some move changes the
result: the positions where a mistake is possible. The agent starts afresh at every position
(``reset``), so nothing carries from one to the next.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from boardzoo.accuracy.labelled import LabelledSet, result_of
from boardzoo.agents.base import Agent
from boardzoo.arena.ratings import wilson_interval
from boardzoo.checks import check_int
from boardzoo.errors import InvalidValueError
from boardzoo.search.evaluators import Evaluator, encode

__all__ = ["Accuracy", "Share", "measure_accuracy", "measure_policy", "score_moves"]


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
        score_lost: mean of the best score less the move's, over every position.
    """

    keeps: Share
    best: Share
    keeps_critical: Share
    best_critical: Share
    seconds: float
    score_lost: float


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
    moves = []
    start = time.perf_counter()
    for number, position in enumerate(positions, start=1):
        agent.reset()
        moves.append(agent.act(position.state(game)))
        if progress is not None:
            progress(number, len(positions))
    seconds = (time.perf_counter() - start) / max(len(positions), 1)
    return score_moves([p.scores for p in positions], moves, seconds, repr(agent))


def measure_policy(
    evaluator: Evaluator, labelled: LabelledSet, limit: int | None = None, batch: int = 512
) -> Accuracy:
    """The network's policy alone on ``labelled`` (the first ``limit`` positions), scored: in
    every position the legal action of the highest logit (the lowest action on a tie), one
    batched call of ``evaluator`` per ``batch`` positions. The same moves as
    ``az:simulations=1,exact_empties=0,solve_empties=0`` with that network, without an agent's
    cost per position.

    Raises:
        ValueError: ``batch`` below 1.
    """
    batch = check_int("batch", batch, 1)
    game = labelled.game
    positions = labelled.positions[:limit] if limit is not None else labelled.positions
    moves: list[int] = []
    start = time.perf_counter()
    for first in range(0, len(positions), batch):
        states = [position.state(game) for position in positions[first : first + batch]]
        observations, masks = encode(game, states)
        logits, _ = evaluator(observations, masks)
        masked = np.where(masks, np.asarray(logits, dtype=np.float64), -np.inf)
        moves.extend(int(move) for move in np.argmax(masked, axis=1))
    seconds = (time.perf_counter() - start) / max(len(positions), 1)
    return score_moves([p.scores for p in positions], moves, seconds, "the policy")


def score_moves(
    scores: Sequence[Mapping[int, int]],
    moves: Sequence[int],
    seconds: float = 0.0,
    who: str = "the agent",
) -> Accuracy:
    """The accuracy of ``moves``, one a position, against each position's exact ``scores``
    (every legal action's exact score for the player making it).

    Raises:
        ValueError: a move that is not one of its position's actions (naming the position).
    """
    keeps = best = keeps_critical = best_critical = critical = lost = 0
    for number, (position, move) in enumerate(zip(scores, moves, strict=True), start=1):
        if move not in position:
            raise InvalidValueError(
                f"{who} played {move} in position {number}, not a legal action ({sorted(position)})"
            )
        top_score = max(position.values())
        kept = result_of(position[move]) == result_of(top_score)
        top = position[move] == top_score
        keeps += kept
        best += top
        lost += top_score - position[move]
        if any(result_of(v) != result_of(top_score) for v in position.values()):
            critical += 1
            keeps_critical += kept
            best_critical += top
    total = len(scores)
    return Accuracy(
        Share(keeps, total),
        Share(best, total),
        Share(keeps_critical, critical),
        Share(best_critical, critical),
        seconds,
        lost / total if total else 0.0,
    )
