"""A perfect network for tests: the exact value of every position by a complete alpha-beta.

Used by the AlphaZero search's tests as an evaluator whose answers are known to be right
(TicTacToe, 4x4 Reversi, late positions).
"""

from __future__ import annotations

import numpy as np

from boardzoo.budget import BUDGET
from boardzoo.games.spec import Game
from boardzoo.gametree.compile import compiled_tree
from boardzoo.gametree.settings import PLAIN
from boardzoo.gametree.template import NUM_COUNTERS, UNKNOWN, scratch
from boardzoo.search.evaluators import cell_squares


class OracleEvaluator:
    """The exact value of every position, by a complete alpha-beta search: a perfect network.

    Games are symmetric between the players (the rules do not depend on the colour), so a
    position is searched with the player to move as player 0: channel 0 of the observation
    becomes player 0's pieces. The value is the game's result under perfect play (1 win, 0 draw,
    -1 loss, for the player to move); the logits are ``prior_weight`` times the exact value of
    each legal action (0: a uniform prior; large: all the prior on the best actions). Results are
    cached. Only for games small enough to solve (TicTacToe, 4x4 Reversi, late positions).

    Args:
        game: the game.
        prior_weight: how strongly the logits favour the best actions (a number >= 0).

    Raises:
        ValueError: a negative or non-finite ``prior_weight``.
    """

    def __init__(self, game: Game, prior_weight: float = 0.0) -> None:
        if isinstance(prior_weight, bool) or not np.isfinite(prior_weight) or prior_weight < 0:
            raise ValueError(f"prior_weight must be a number >= 0, got {prior_weight!r}")
        self.game = game
        self.prior_weight = float(prior_weight)
        self._negamax = compiled_tree(game, PLAIN)["node"]
        self._counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        self._work = scratch()
        self._table = np.zeros((2, 4), dtype=np.uint64)  # the plain search keeps no table
        table = cell_squares(game)
        self._square_bits = np.zeros(game.rows * game.cols, dtype=np.uint64)
        for cell in np.flatnonzero(table >= 0):
            self._square_bits[table[cell]] = np.uint64(1) << np.uint64(cell)
        self._values: dict[tuple[int, int, int], int] = {}

    def value(self, own: int, opp: int, player: int = 0) -> int:
        """The exact result (1, 0, -1) for the player to move of bitboards ``own`` and ``opp``.

        Args:
            own: the bitboard of player ``player``, the player to move.
            opp: the other player's bitboard.
            player: which player ``own`` is (the rules are colour-blind, so 0 serves for all).

        Returns:
            1 won, 0 drawn, -1 lost with perfect play.
        """
        key = (own, opp, player)
        if key not in self._values:
            s0, s1 = (own, opp) if player == 0 else (opp, own)
            self._counters[:] = 0
            self._counters[BUDGET] = 2**62
            score = self._negamax(
                np.uint64(s0), np.uint64(s1), player, UNKNOWN, self.game.params, 1000, -1, 1, 0,
                0, self._counters, self._work, self._table, None,
            )  # fmt: skip
            self._values[key] = int(np.sign(score))
        return self._values[key]

    def action_values(self, own: int, opp: int) -> dict[int, int]:
        """The exact result for the player to move (as player 0) after each legal action."""
        kernels, params = self.game.kernels, self.game.params
        s0, s1 = np.uint64(own), np.uint64(opp)
        cells = int(kernels.placements(s0, s1, 0, params))
        moves = [c for c in range(64) if cells >> c & 1] or [-1]
        result = {}
        for cell in moves:
            c0, c1 = kernels.place(s0, s1, 0, cell, params)
            over, code = kernels.outcome(c0, c1, 1, params)
            value = int(code) - 1 if over else -self.value(int(c1), int(c0))
            result[int(kernels.cell_action(cell, params))] = value
        return result

    def _bitboards(self, observation: np.ndarray) -> tuple[int, int]:
        own = self._square_bits[observation[0].reshape(-1) > 0.5]
        opp = self._square_bits[observation[1].reshape(-1) > 0.5]
        return int(np.bitwise_or.reduce(own, initial=0)), int(np.bitwise_or.reduce(opp, initial=0))

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact values and logits favouring the best actions, for a batch of positions.

        Args:
            observations: float32 ``[B, 2, rows, cols]``.
            masks: bool ``[B, num_actions]``.

        Returns:
            ``(logits, values)``, float32.
        """
        batch = len(observations)
        logits = np.zeros((batch, self.game.num_actions), np.float32)
        values = np.zeros(batch, np.float32)
        for i in range(batch):
            own, opp = self._bitboards(observations[i])
            values[i] = self.value(own, opp)
            if self.prior_weight:
                for action, value in self.action_values(own, opp).items():
                    logits[i, action] = self.prior_weight * value
        return logits, values
