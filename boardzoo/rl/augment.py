"""Random board symmetries for on-policy rollouts: the learner sees each position transformed.

A batched env (:mod:`boardzoo.vector`) hands the learner observations ``(n, rows, cols, planes)``
and legal masks ``(n, actions)``. :class:`BoardSymmetries` draws one of the game's symmetries
(:func:`boardzoo.games.symmetry.symmetries`: 8 for Reversi and TicTacToe, the mirror for Connect
Four) per sub-env and move, transforms the observation and the mask, and maps the move sampled on
the transformed board back to the env's board. A rollout that keeps what the learner saw stays
on-policy while it covers the symmetric positions too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardzoo.games.spec import Game
from boardzoo.games.symmetry import symmetries

__all__ = ["ActionsToEnv", "BoardSymmetries"]

# Maps the learner's actions (one per sub-env, on the boards it saw) to the env's.
ActionsToEnv = Callable[[np.ndarray], np.ndarray]


class BoardSymmetries:
    """A random symmetry of the game's board for each sub-env and move.

    Args:
        game: the game whose symmetries are drawn.
        enabled: draw among all the game's symmetries; ``False`` keeps the identity alone (the
            boards as they are).
        seed: seeds the draws (``rng``, a numpy generator, can be replaced, as a resumed run
            does).
    """

    def __init__(self, game: Game, enabled: bool, seed: int) -> None:
        found = symmetries(game) if enabled else symmetries(game)[:1]  # the identity first
        self.squares = np.stack([symmetry.square_source for symmetry in found])
        self.actions = np.stack([symmetry.action_source for symmetry in found])
        self.rng = np.random.default_rng([seed, 7])

    def transform(
        self, obs: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, ActionsToEnv]:
        """The observations and masks as the learner sees them, and the way back for its moves.

        Args:
            obs: ``(n, rows, cols, planes)`` observations of the sub-envs.
            mask: ``(n, actions)`` legal masks of the sub-envs.

        Returns:
            ``(obs, mask, to_env)``: each sub-env's observation and mask under the symmetry drawn
            for it (the arrays given, untouched, when the identity is the only one), and the
            function from the learner's actions (``(n,)``, one per sub-env, on the boards it
            saw) to the env's.
        """
        if len(self.squares) == 1:
            return obs, mask, lambda actions: actions
        n, rows, cols, planes = obs.shape
        drawn = self.rng.integers(0, len(self.squares), size=n)
        every = np.arange(n)[:, None]
        flat = obs.reshape(n, rows * cols, planes)[every, self.squares[drawn]]
        sources = self.actions[drawn]

        def to_env(actions: np.ndarray) -> np.ndarray:
            return np.asarray(sources[np.arange(n), actions])

        return flat.reshape(obs.shape), mask[every, sources], to_env
