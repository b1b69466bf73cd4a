"""What the AlphaZero search asks of a network: an evaluator of batches of positions.

An :class:`Evaluator` takes a batch of positions as the search hands them over (the planes of the
player to move and of the opponent, and the legal actions) and returns the policy's logits and
the value of each position for the player to move. :func:`encode` makes that input from
:class:`~boardzoo.games.BoardState` objects; the compiled search makes exactly the same arrays
from its bitboards (with :func:`cell_squares`, the game's map from kernel cells to squares).

:class:`UniformEvaluator` needs no network (equal logits, value 0). The network itself, a torch
module, is in :mod:`boardzoo.learned.network`, and the evaluator that runs it in
:mod:`boardzoo.learned.torch_evaluator` (this module imports no torch).

Evaluators that guide the search with other knowledge (prior and value functions, playouts, an
SB3 policy) are in :mod:`boardzoo.search.function_evaluators`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Protocol, runtime_checkable

import numpy as np

from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = ["Evaluator", "UniformEvaluator", "cell_squares", "encode"]


@runtime_checkable
class Evaluator(Protocol):
    """A network as the search sees it: a batch of positions in, logits and values out.

    An evaluator whose attribute ``needs_states`` is true is also given the positions, as the
    keyword argument ``states`` (one :class:`~boardzoo.games.BoardState` per row).
    """

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Evaluate a batch of positions.

        Args:
            observations: float32 ``[B, 2, rows, cols]``: channel 0 the pieces of the player to
                move, channel 1 the opponent's (``BoardState.planes(current_player)`` moved to
                channels-first).
            masks: bool ``[B, num_actions]``: the legal actions.

        Returns:
            ``(logits, values)``: float32 ``[B, num_actions]`` (entries of illegal actions are
            ignored) and float32 ``[B]`` in ``[-1, 1]`` from the point of view of the player to
            move.
        """
        ...


def encode(game: Game, states: Sequence[BoardState]) -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks of ``states``, exactly as the search hands them to an evaluator.

    Args:
        game: the game of every state.
        states: positions of ``game`` (a finished one gets an all-False mask).

    Returns:
        ``(observations, masks)``: float32 ``[len(states), 2, rows, cols]`` and bool
        ``[len(states), num_actions]``.

    Raises:
        ValueError: a state of another game.
    """
    observations = np.zeros((len(states), 2, game.rows, game.cols), dtype=np.float32)
    masks = np.zeros((len(states), game.num_actions), dtype=bool)
    for i, state in enumerate(states):
        if state.game is not game:
            raise ValueError(f"states[{i}] is a position of {state.game!r}, not of {game!r}")
        observations[i] = np.moveaxis(state.planes(state.current_player), 2, 0)
        masks[i] = state.legal_action_mask().astype(bool)
    return observations, masks


@cache
def cell_squares(game: Game) -> np.ndarray:
    """The square ``row * cols + col`` of each kernel cell (bit) of ``game``, -1 for no square.

    The game contract leaves the layout of the bitboards to each game; this reads it off the
    game's own positions: random games (fixed seed) are played until every cell of the board
    (``params[0]``) has been matched to exactly one square by comparing each position's
    bitboards with its :meth:`~boardzoo.games.BoardState.planes`.

    Args:
        game: the game.

    Returns:
        int64 ``[64]``.

    Raises:
        RuntimeError: if the layout cannot be read off (a game whose planes do not follow its
            bitboards).
    """
    board = int(game.params[0])
    cells = [cell for cell in range(64) if board >> cell & 1]
    squares = game.rows * game.cols
    candidates = {cell: set(range(squares)) for cell in cells}
    rng = np.random.default_rng(12345)
    for _ in range(5000):
        state = game.initial_state()
        while True:
            s0, s1 = state.bitboards()
            planes = state.planes(0)
            owner = np.full(squares, -1, dtype=np.int64)
            owner[planes[:, :, 0].reshape(-1) == 1] = 0
            owner[planes[:, :, 1].reshape(-1) == 1] = 1
            for cell in cells:
                have = 0 if s0 >> cell & 1 else 1 if s1 >> cell & 1 else -1
                candidates[cell] &= set(np.flatnonzero(owner == have).tolist())
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state = state.apply(actions[int(rng.integers(len(actions)))])
        if all(len(found) <= 1 for found in candidates.values()):
            break
    table = np.full(64, -1, dtype=np.int64)
    for cell, found in candidates.items():
        if len(found) != 1:
            raise RuntimeError(f"cannot tell the square of cell {cell} of {game!r}: {found}")
        table[cell] = found.pop()
    if len(set(table[cells].tolist())) != len(cells):
        raise RuntimeError(f"two cells of {game!r} map to one square")
    return table


class UniformEvaluator:
    """Equal logits for every action and value 0 for every position: a search without knowledge.

    The search then spreads its visits by the PUCT bonus alone; it is the evaluator of a network
    that has learned nothing, and a stand-in for timing the search without a network.
    """

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Zero logits ``[B, num_actions]`` and zero values ``[B]`` (float32).

        Args:
            observations: ``[B, 2, rows, cols]`` (only its length is read).
            masks: ``[B, num_actions]`` (only its shape is read).

        Returns:
            ``(logits, values)``.
        """
        batch, actions = np.shape(masks)
        return np.zeros((batch, actions), np.float32), np.zeros(batch, np.float32)
