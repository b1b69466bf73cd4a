"""What the AlphaZero search asks of a network: an evaluator of batches of positions.

An :class:`Evaluator` takes a batch of positions as the search hands them over (the planes of the
player to move and of the opponent, and the legal actions) and returns the policy's logits and
the value of each position for the player to move. :func:`encode` makes that input from
:class:`~boardzoo.games.BoardState` objects; the compiled search makes exactly the same arrays
from its bitboards (with :func:`cell_squares`, the game's map from kernel cells to squares).

:class:`UniformEvaluator` needs no network (equal logits, value 0). The network itself, a torch
module, is in :mod:`boardzoo.learned.network`, and the evaluator that runs it in
:mod:`boardzoo.learned.torch_evaluator` (this module imports no torch).

Evaluators from knowledge other than a network ask the search for the positions themselves
(``needs_states = True``: the search then passes ``states=[BoardState, ...]``, one per row).
:class:`CallbackEvaluator` calls ``prior_fn(state)`` / ``value_fn(state)`` per position (the
evaluator of ``PUCTAgent(prior_fn, value_fn)``); :class:`SB3Evaluator` runs a stable-baselines3
policy once per batch (``SB3PUCTAgent``). Without a value function both score a position by
:class:`Playouts`: one playout to the end with the game's compiled rollout policy, as UCT does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.leaf_values import compiled_rollouts
from boardzoo.search.options import ROLLOUT_POLICIES

__all__ = [
    "BatchPolicy",
    "CallbackEvaluator",
    "Evaluator",
    "Playouts",
    "PriorFn",
    "SB3Evaluator",
    "UniformEvaluator",
    "ValueFn",
    "cell_squares",
    "encode",
]


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
            raise InvalidValueError(f"states[{i}] is a position of {state.game!r}, not of {game!r}")
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


PriorFn = Callable[[BoardState], np.ndarray]
ValueFn = Callable[[BoardState], float]
# A logit low enough that its softmax share is exactly 0 next to any probability's logarithm.
_NO_PRIOR = -1.0e4


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidValueError(f"seed={seed!r} is not allowed: it must be an integer >= 0")
    return int(seed)


def _rollout_policy(rollout: Any) -> int:
    if not isinstance(rollout, str) or rollout not in ROLLOUT_POLICIES:
        allowed = ", ".join(ROLLOUT_POLICIES)
        raise InvalidValueError(f"rollout={rollout!r} is not allowed: it must be one of {allowed}")
    return ROLLOUT_POLICIES[rollout]


def _states_of(states: Sequence[BoardState] | None, rows: int, who: str) -> Sequence[BoardState]:
    if states is None:
        raise InvalidValueError(
            f"{who} needs the positions (states=[...], one per row); BatchedSearch passes them "
            "to evaluators whose needs_states is True"
        )
    if len(states) != rows:
        raise InvalidValueError(f"{who} got {len(states)} states for {rows} rows")
    return states


class Playouts:
    """Values of positions by one playout each with the game's compiled rollout policy.

    The playouts are those of UCT's simulations (``kernels.rollout`` of the game, random or the
    game's heuristic, compiled once per game), run for a whole batch in one compiled call.

    Args:
        rollout: ``"random"`` or ``"heuristic"`` (for games with a heuristic rollout policy).
        seed: seed of the playouts (an integer >= 0).

    Raises:
        ValueError: a bad ``rollout`` or ``seed``.
    """

    def __init__(self, rollout: str = "random", seed: int = 0) -> None:
        self.rollout = rollout
        self._policy = _rollout_policy(rollout)
        self._rng = np.random.SeedSequence(_seed(seed)).generate_state(1, np.uint64)[0]

    def __call__(self, states: Sequence[BoardState]) -> np.ndarray:
        """One playout of each position: float32 ``[len(states)]`` in ``{-1, 0, 1}``.

        Args:
            states: positions of one catalog game (in play or finished).

        Returns:
            Each playout's result for the player to move in its position.

        Raises:
            ValueError: positions of several games, or a heuristic rollout for a game without.
        """
        count = len(states)
        if count == 0:
            return np.zeros(0, np.float32)
        game = states[0].game
        if not isinstance(game, Game) or any(state.game is not game for state in states):
            raise InvalidValueError("Playouts needs positions of one catalog game")
        if self._policy == ROLLOUT_POLICIES["heuristic"] and not game.spec.heuristic_rollout:
            raise InvalidValueError(f"{game.name} has no heuristic rollout: use rollout=random")
        bits = np.array([state.bitboards() for state in states], dtype=np.uint64).reshape(count, 2)
        players = np.array([state.current_player for state in states], dtype=np.int64)
        scores = np.zeros(count, dtype=np.float64)
        self._rng = np.uint64(
            compiled_rollouts(game)(
                bits[:, 0], bits[:, 1], players, count, game.params, self._policy, self._rng,
                scores,
            )
        )  # fmt: skip
        mover = np.where(players == 0, scores, 1.0 - scores)
        return (2.0 * mover - 1.0).astype(np.float32)


def _prior_logits(prior_fn: PriorFn, state: BoardState, legal: np.ndarray) -> np.ndarray:
    """Log-probabilities of ``prior_fn(state)`` over the legal actions (checked)."""
    probabilities = np.asarray(prior_fn(state), dtype=np.float64)
    if probabilities.shape != (state.num_actions,):
        raise InvalidValueError(
            f"prior_fn must return {state.num_actions} probabilities, one per action; "
            f"got shape {probabilities.shape}"
        )
    bad = np.flatnonzero(~np.isfinite(probabilities) | (probabilities < 0))
    if bad.size:
        action = int(bad[0])
        raise InvalidValueError(
            f"prior_fn must return finite probabilities >= 0; got {float(probabilities[action])} "
            f"for action {action} in the position\n{state}"
        )
    legal_probabilities = np.where(legal, probabilities, 0.0)
    total = legal_probabilities.sum()
    if total <= 0:  # no mass on a legal move: a uniform prior over them
        return np.where(legal, 0.0, _NO_PRIOR)
    shares = legal_probabilities / total
    with np.errstate(divide="ignore"):
        return np.where(shares > 0, np.log(shares), _NO_PRIOR)


def _value(value_fn: ValueFn, state: BoardState) -> float:
    value = value_fn(state)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise InvalidValueError(
            f"value_fn must return a finite number in [-1, 1] (for the player to move), got "
            f"{value!r} in the position\n{state}"
        )
    return min(1.0, max(-1.0, number))


class CallbackEvaluator:
    """An evaluator made of per-position functions: a prior and a value (or playouts).

    The batched search hands it the positions of its leaves (``needs_states``); each row's
    logits are the logarithms of ``prior_fn(state)`` (so the search's softmax over the legal
    actions gives back the probabilities, renormalised over the legal actions; uniform if they
    hold no mass), and its value is ``value_fn(state)`` clipped to ``[-1, 1]``, or without
    ``value_fn`` one playout of the position (:class:`Playouts`).

    Args:
        prior_fn: ``state -> probabilities over all actions`` (``num_actions`` finite numbers
            >= 0), or ``None`` for a uniform prior over the legal actions.
        value_fn: ``state -> value in [-1, 1]`` for the player to move, or ``None``.
        rollout: the playouts' policy without ``value_fn``: ``"random"`` or ``"heuristic"``.
        seed: seed of the playouts (an integer >= 0).

    Raises:
        ValueError: a bad ``rollout`` or ``seed``.
    """

    needs_states = True

    def __init__(
        self,
        prior_fn: PriorFn | None,
        value_fn: ValueFn | None = None,
        rollout: str = "random",
        seed: int = 0,
    ) -> None:
        self.prior_fn = prior_fn
        self.value_fn = value_fn
        self.playouts = Playouts(rollout, seed)

    def __call__(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        states: Sequence[BoardState] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values of a batch of positions.

        Args:
            observations: float32 ``[B, 2, rows, cols]`` (only its length is read).
            masks: bool ``[B, num_actions]``: the legal actions.
            states: the ``B`` positions (required).

        Returns:
            ``(logits, values)``: float32 ``[B, num_actions]`` and ``[B]``.

        Raises:
            ValueError: no states, or a ``prior_fn`` / ``value_fn`` result that is not allowed
                (wrong shape, not finite, negative), naming it and the position.
        """
        masks = np.asarray(masks, dtype=bool)
        rows = len(masks)
        states = _states_of(states, rows, "CallbackEvaluator")
        logits = np.zeros(masks.shape, dtype=np.float32)
        if self.prior_fn is not None:
            for i, state in enumerate(states):
                logits[i] = _prior_logits(self.prior_fn, state, masks[i])
        if self.value_fn is not None:
            values = np.array([_value(self.value_fn, s) for s in states], dtype=np.float32)
        else:
            values = self.playouts(states)
        return logits, values


class BatchPolicy(Protocol):
    """A policy evaluated for a whole batch at once (``SB3Agent`` is one)."""

    def evaluate_batch(
        self, observations: np.ndarray, value_head: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Scores ``[B, num_actions]`` whose softmax over the legal actions is the prior, and
        values ``[B]`` for the player to move when ``value_head`` (else ``None``)."""
        ...


class SB3Evaluator:
    """A stable-baselines3 policy as the search's evaluator: one forward call per batch.

    Priors are the policy's action probabilities restricted to the legal actions (DQN: the
    softmax of its Q-values): its action logits go to the search as they are. Values come from
    the policy's value head with ``value_head``, else from one playout per position
    (:class:`Playouts`, which is why the evaluator then asks for the positions).

    Args:
        policy: the model, e.g. an :class:`~boardzoo.agents.sb3_agent.SB3Agent`.
        value_head: score positions with the value head instead of playouts.
        rollout: the playouts' policy without ``value_head``: ``"random"`` or ``"heuristic"``.
        seed: seed of the playouts (an integer >= 0).

    Raises:
        ValueError: a bad ``rollout`` or ``seed``.
    """

    def __init__(
        self, policy: BatchPolicy, value_head: bool = False, rollout: str = "random", seed: int = 0
    ) -> None:
        self.policy = policy
        self.value_head = bool(value_head)
        self.needs_states = not self.value_head
        self.playouts = Playouts(rollout, seed)

    def __call__(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        states: Sequence[BoardState] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors (as logits) and values of a batch of positions.

        Args:
            observations: float32 ``[B, 2, rows, cols]``: the planes of the player to move and
                of the opponent (what the SB3 model sees, channels first).
            masks: bool ``[B, num_actions]``: the legal actions.
            states: the ``B`` positions (required without ``value_head``).

        Returns:
            ``(logits, values)``: float32 ``[B, num_actions]`` and ``[B]``.
        """
        scores, values = self.policy.evaluate_batch(observations, self.value_head)
        if values is None:
            values = self.playouts(_states_of(states, len(masks), "SB3Evaluator"))
        return np.asarray(scores, dtype=np.float32), np.asarray(values, dtype=np.float32)
