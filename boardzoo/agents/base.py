"""What every agent offers, and how agents read an env's position."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, cast

import numpy as np

from boardzoo.agents.adapter import AECGameState
from boardzoo.errors import InvalidTypeError, InvalidValueError
from boardzoo.games.catalog import game_names
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState, GameState
from boardzoo.interop import catalog_position, known_elsewhere

Seed = int | np.random.Generator | None


def env_state(env: Any) -> GameState:
    """The game state of ``env`` at its agent's turn, without changing the env.

    boardzoo envs hand out their immutable state (``get_state()``); PettingZoo's own
    ``connect_four_v3`` and ``tictactoe_v3`` envs and OpenSpiel's ``tic_tac_toe``,
    ``connect_four`` and ``othello`` states are read as the catalog's positions
    (:mod:`boardzoo.interop`: the same games, with the same action numbers); any other
    two-player PettingZoo AEC env is cloned through :class:`AECGameState` (by its own
    ``get_state`` / ``set_state`` pair where it has one, else by a checked deep copy).
    Plain :class:`~boardzoo.games.GameState` objects are accepted as they are.
    """
    known = known_state(env)
    return known if known is not None else AECGameState.from_env(env)


def known_state(env: Any) -> GameState | None:
    """The game state of ``env`` where it is a game state, a boardzoo env, or one of the other
    libraries' games boardzoo reads (:func:`env_state`'s first ways); ``None`` otherwise."""
    if isinstance(env, GameState):
        return env
    raw = getattr(env, "unwrapped", env)
    get_state = getattr(raw, "get_state", None)
    if callable(get_state):
        state = get_state()
        if isinstance(state, GameState):
            return state
    return catalog_position(env)


def make_rng(seed: Seed) -> np.random.Generator:
    """A NumPy generator from a seed, a generator (used as is) or ``None`` (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise InvalidValueError(
            f"seed={seed!r} is not allowed: it must be an integer, a numpy Generator or None"
        )
    return np.random.default_rng(seed)


class Agent(ABC):
    """A player: ``act(env)`` returns the action for the agent to move and leaves ``env`` as is."""

    name: str = "agent"

    @abstractmethod
    def act(self, env: Any) -> int:
        """The action to play in ``env`` (at this agent's turn, the game not over)."""

    def reset(self) -> None:  # noqa: B027 (optional hook, empty by default)
        """Forget everything about the current game (called before a new one)."""

    def prepare(self, game: Game) -> None:  # noqa: B027 (optional hook, empty by default)
        """Get ready to play ``game`` before any clock runs: compile or load compiled code,
        calibrate, load models. Called once per game by the arena (inside the set-up time, not
        the move clock), the UIs and :mod:`boardzoo.warmup`. Must not change what the agent
        plays: a prepared agent plays the same moves as an unprepared one with the same seed."""

    def set_move_limit(self, seconds: float | None) -> None:  # noqa: B027 (optional hook)
        """The longest a move may take in the coming games (``None``: no limit), as a match's
        referee enforces it (a slower move loses). Called by the arena before each game, before
        :meth:`prepare`. An agent with a clock of its own keeps it; one without may play
        within this instead (``solver`` does, falling back to the engine where a solve cannot
        finish), so that it never loses on time."""

    def check_game(self, game: Game) -> None:  # noqa: B027 (optional hook, empty by default)
        """Raise ``ValueError`` naming what is missing if this agent cannot play ``game`` (a
        model or an evaluation the game lacks). Cheap, nothing compiled: the arena calls it
        before any game starts, so that such a match stops at once instead of forfeiting."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def board_state(state: GameState, agent: str) -> BoardState:
    """``state`` as a catalog game's position; a ``TypeError`` naming ``agent`` for other games."""
    if state.game is None:
        raise InvalidTypeError(
            f"{agent} plays the catalog's games ({', '.join(game_names())}) in boardzoo's envs "
            f"and in {known_elsewhere()}, got {state!r}"
        )
    return cast(BoardState, state)


def legal_or_raise(state: GameState) -> list[int]:
    """The legal actions of ``state``; a clear error if the game is already over."""
    actions = state.legal_actions()
    if not actions:
        raise InvalidValueError("the game is over: there is no move to choose")
    return actions
