"""One step's leaves of a batched search, and the evaluator's call on them.

Each step of a :class:`~boardzoo.search.batched.BatchedSearch` writes its leaves into a
:class:`LeafBatch`: for each leaf found, its tree, its node and its row of the batch (``-1`` for
a finished game, which needs no network), and for each row the leaf's observation planes and
legal-action mask. :meth:`LeafBatch.evaluation` is what the step then calls
(:mod:`boardzoo.search.python_bridge`): the evaluator on the rows written (given the rows'
positions too when it asks for them), timed, its output checked, and whether the deadline has
passed.
"""

from __future__ import annotations

import time

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.evaluators import Evaluator
from boardzoo.search.python_bridge import StepEvaluation
from boardzoo.search.tree import Tree

__all__ = ["LeafBatch"]


class LeafBatch:
    """Room for ``rows`` leaves of ``game`` a step, and the evaluator's time on them.

    Args:
        game: the game searched.
        rows: most leaves a step (trees times leaves a tree).
    """

    def __init__(self, game: Game, rows: int) -> None:
        self.game = game
        self.tree = np.zeros(rows, dtype=np.int64)
        self.node = np.zeros(rows, dtype=np.int64)
        self.row = np.zeros(rows, dtype=np.int64)
        self.observations = np.zeros((rows, 2, game.rows, game.cols), dtype=np.float32)
        self.masks = np.zeros((rows, game.num_actions), dtype=bool)
        self.network_seconds = 0.0  # time spent in the evaluator since the search reset it

    def evaluation(
        self, forest: Tree, evaluator: Evaluator, deadline: float | None
    ) -> StepEvaluation:
        """What each step calls: the evaluator on the rows written, timed, its output checked,
        and whether the deadline has passed."""
        needs_states = bool(getattr(evaluator, "needs_states", False))
        num_actions = self.game.num_actions

        def evaluate(found: int, rows: int) -> tuple[np.ndarray, np.ndarray, bool]:
            if rows:
                start = time.perf_counter()
                observations, masks = self.observations[:rows], self.masks[:rows]
                if needs_states:
                    states = self._leaf_states(forest, found)
                    logits, values = evaluator(observations, masks, states=states)  # type: ignore[call-arg]  # (evaluators with needs_states take states)
                else:
                    logits, values = evaluator(observations, masks)
                self.network_seconds += time.perf_counter() - start
                logits = np.ascontiguousarray(logits, dtype=np.float32)
                values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
                if logits.shape != (rows, num_actions) or values.shape != (rows,):
                    raise InvalidValueError(
                        f"the evaluator must return logits [{rows}, {num_actions}] and values "
                        f"[{rows}], got {logits.shape} and {values.shape}"
                    )
            else:
                logits = np.zeros((0, num_actions), np.float32)
                values = np.zeros(0, np.float32)
            stop = deadline is not None and time.perf_counter() >= deadline
            return logits, values, stop

        return evaluate

    def _leaf_states(self, forest: Tree, found: int) -> list[BoardState]:
        """The positions of this step's rows, for evaluators that ask for them."""
        make = self.game.state_from_bitboards
        states = []
        for j in range(found):
            if self.row[j] >= 0:
                tree, node = self.tree[j], self.node[j]
                states.append(
                    make(int(forest.s0[tree, node]), int(forest.s1[tree, node]),
                         int(forest.player[tree, node]))
                )  # fmt: skip
        return states
