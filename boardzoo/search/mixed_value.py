"""A network's priors with its values mixed with the game's learned n-tuple evaluation.

AlphaGo (Silver et al., "Mastering the game of Go with deep neural networks and tree search",
2016) scored each leaf as ``(1 - λ) v + λ z``: its value network's ``v`` and a fast second
opinion ``z`` (there a playout), and played best with both (``λ = 0.5``). Here the second opinion
is the game's learned n-tuple evaluation (:mod:`boardzoo.learned.ntuple`, the one
``mcts:eval=learned`` and the engine use), which costs about a microsecond a position next to the
network's hundreds: :class:`MixedValueEvaluator` wraps any evaluator, keeps its logits, and
mixes its values with the evaluation's of the same positions.

The positions are read back from the observations (the planes of the player to move and of the
opponent, :mod:`boardzoo.search.evaluators`) with the game's map from squares to kernel cells. A
player with no placement to make (Reversi's pass) is scored as the opponent's position negated,
as the engine does at its horizon: the evaluation learnt positions with a move to make.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.checks import check_number
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.learned.ntuple import NTupleNet, check_net_fits, ntuple_value_arrays
from boardzoo.search.evaluators import Evaluator, cell_squares

__all__ = ["MixedValueEvaluator", "ntuple_values"]

# Replaced by the game's kernel module in each compiled copy (see _compiled).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def ntuple_values(own, opp, params, cells, table, weights):  # type: ignore[no-untyped-def]
    """The evaluation of each position ``(own[i], opp[i])`` for its player to move, the owner of
    ``own`` (float32 ``[B]`` in (-1, 1)); a player who must pass gets minus the opponent's."""
    values = np.empty(own.shape[0], dtype=np.float32)
    for i in range(own.shape[0]):
        if kernels.placements(own[i], opp[i], 0, params):
            values[i] = ntuple_value_arrays(own[i], opp[i], 0, params, cells, table, weights)
        else:
            values[i] = -ntuple_value_arrays(own[i], opp[i], 1, params, cells, table, weights)
    return values


def _compiled(game: Game) -> Any:
    return specialise((ntuple_values,), game.kernels)["ntuple_values"]


class MixedValueEvaluator:
    """An evaluator whose values are ``(1 - weight) * inner's + weight * the evaluation's``.

    Args:
        inner: the evaluator whose logits are kept and whose values are mixed (a network's).
        game: the game of the positions.
        net: the learned n-tuple evaluation of ``game`` (:func:`boardzoo.learned.load_net`).
        weight: the evaluation's share of the value, in [0, 1] (0: the inner values alone,
            1: the evaluation's alone).

    Raises:
        ValueError: a weight outside [0, 1], or a net that reads cells outside ``game``'s board.
    """

    def __init__(self, inner: Evaluator, game: Game, net: NTupleNet, weight: float) -> None:
        self.inner = inner
        self.game = game
        self.net = check_net_fits(net, game)
        self.weight = check_number("value_mix", weight, 0.0, 1.0, False)
        squares = cell_squares(game)
        cells = np.flatnonzero(squares >= 0)
        self._squares = squares[cells]
        self._bits = np.left_shift(np.uint64(1), cells.astype(np.uint64))
        self._values = _compiled(game)
        self.needs_states = bool(getattr(inner, "needs_states", False))

    def bitboards(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pieces of the player to move and of the opponent, as the game's bitboards
        (uint64 ``[B]`` each), read from ``observations`` (float32 ``[B, 2, rows, cols]``)."""
        flat = observations.reshape(len(observations), 2, -1)[:, :, self._squares] > 0.5
        own = np.bitwise_or.reduce(np.where(flat[:, 0], self._bits, np.uint64(0)), axis=1)
        opp = np.bitwise_or.reduce(np.where(flat[:, 1], self._bits, np.uint64(0)), axis=1)
        return own, opp

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray, **kwargs: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """The inner evaluator's logits and the mixed values (float32 ``[B, num_actions]`` and
        ``[B]``); ``kwargs`` (the positions, for an inner evaluator that needs them) go to the
        inner evaluator."""
        logits, values = self.inner(observations, masks, **kwargs)
        if len(observations) == 0 or self.weight == 0.0:
            return logits, values
        own, opp = self.bitboards(observations)
        net = self.net
        learned = self._values(own, opp, self.game.params, net.cells, net.table, net.weights)
        mixed = (1.0 - self.weight) * np.asarray(values, np.float32) + self.weight * learned
        return logits, mixed.astype(np.float32)
