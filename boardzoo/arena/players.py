"""The arena's side of an agent: ask for a move with a time limit, survive whatever comes back.

A :class:`Player` is one agent seen from the arena: built fresh for each game, asked for moves,
and answering with an :class:`Answer` (a move, an error, a timeout or a dead process) rather than
raising. Before each game, in the set-up time (``setup_timeout``, not the move clock), the agent
is built and :meth:`Agent.prepare <boardzoo.agents.base.Agent.prepare>` is called with the game:
the first move is timed like any other.

:class:`LocalPlayer` calls the agent in the arena's own process: no start-up cost and any
:class:`~boardzoo.agents.Agent` object works, but a hanging agent hangs the arena (a slow move
is still caught, after it returns). :class:`~boardzoo.arena.process_player.ProcessPlayer` runs it
in a process of its own.

Time is measured by the arena from sending the position to receiving the answer.
"""

from __future__ import annotations

import operator
import time
import traceback as traceback_module
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from boardzoo.agents.base import Agent
from boardzoo.agents.registry import make_agent
from boardzoo.arena.agent_identity import agent_label
from boardzoo.games.spec import Game

__all__ = [
    "SETUP_TIMEOUT",
    "Answer",
    "LocalPlayer",
    "Player",
    "move_answer",
]

# Seconds allowed to start an agent's process, and again to build and prepare the agent for a
# game (the first time: load or compile the game's rules and the agent's compiled search).
SETUP_TIMEOUT = 300.0


@dataclass(frozen=True)
class Answer:
    """What an agent answered when asked for a move (or to get ready for a game).

    Attributes:
        kind: ``"move"`` (``action`` holds it; ``None`` if the agent returned something that is
            not an integer, described in ``text``), ``"ready"`` (the agent is built and
            prepared), ``"error"`` (it raised: ``text`` and ``traceback``), ``"time"`` (no
            answer in time; the process was killed) or ``"died"`` (its process ended).
        action: the action returned, as an int.
        seconds: how long the arena waited for the answer.
        text: the error message, or the repr of a non-integer answer.
        traceback: the formatted traceback of an exception raised by the agent.
    """

    kind: Literal["move", "ready", "error", "time", "died"]
    action: int | None = None
    seconds: float = 0.0
    text: str | None = None
    traceback: str | None = None


class Player(ABC):
    """One agent seen from the arena: built fresh for each game, asked for moves."""

    label: str

    @abstractmethod
    def request_game(
        self, seed: int, game: Game | None = None, move_limit: float | None = None
    ) -> None:
        """Start building a fresh agent for a new game and preparing it for ``game`` (may return
        before it is ready); ``move_limit``: the referee's seconds a move, told to the agent
        (:meth:`~boardzoo.agents.Agent.set_move_limit`)."""

    @abstractmethod
    def wait_game(self) -> Answer:
        """Wait until the agent asked for by :meth:`request_game` is ready: a ``"ready"`` answer,
        or the ``"error"``/``"time"``/``"died"`` that stopped it."""

    @abstractmethod
    def act(self, state: Any, time_limit: float | None) -> Answer:
        """Ask for the move in ``state``, waiting at most ``time_limit`` seconds (``None``: no
        limit)."""

    def kill(self) -> None:  # noqa: B027 (nothing to kill by default)
        """Stop the agent at once if it runs elsewhere (used when a run is interrupted)."""

    def close(self) -> None:  # noqa: B027 (nothing to release by default)
        """Release the agent's resources."""


class LocalPlayer(Player):
    """An agent called in the arena's own process (no isolation: a hang hangs the arena).

    Args:
        agent: a spec (built fresh for each game with the game's seed) or an Agent object (used
            for every game, ``reset()`` before each).
    """

    def __init__(self, agent: str | Agent) -> None:
        self.agent_or_spec = agent
        self.label = agent_label(agent)
        self._agent: Agent | None = None if isinstance(agent, str) else agent
        self._pending: Answer | None = None

    def request_game(
        self, seed: int, game: Game | None = None, move_limit: float | None = None
    ) -> None:
        start = time.perf_counter()
        try:
            if isinstance(self.agent_or_spec, str):
                self._agent = make_agent(self.agent_or_spec, seed=seed)
            assert self._agent is not None
            self._agent.reset()
            self._agent.set_move_limit(move_limit)
            if game is not None:
                self._agent.prepare(game)
            self._pending = Answer("ready", seconds=time.perf_counter() - start)
        except Exception as error:
            self._pending = _error_answer(error, time.perf_counter() - start)

    def wait_game(self) -> Answer:
        answer, self._pending = self._pending, None
        return answer if answer is not None else Answer("error", text="no game was requested")

    def act(self, state: Any, time_limit: float | None) -> Answer:
        assert self._agent is not None, "request_game() first"
        start = time.perf_counter()
        try:
            action = self._agent.act(state)
        except Exception as error:
            return _error_answer(error, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        if time_limit is not None and seconds > time_limit:
            return Answer("time", seconds=seconds)
        return move_answer(action, seconds)


def _error_answer(error: BaseException, seconds: float) -> Answer:
    return Answer(
        "error",
        seconds=seconds,
        text=f"{type(error).__name__}: {error}",
        traceback="".join(traceback_module.format_exception(error)),
    )


def move_answer(action: object, seconds: float) -> Answer:
    """What an agent's ``act`` returned as a ``"move"`` answer (``action`` ``None`` and the repr
    in ``text`` if it is not an integer)."""
    try:
        index = operator.index(action)  # type: ignore[arg-type]  # (any object an agent returned; TypeError caught)
    except TypeError:
        return Answer("move", action=None, seconds=seconds, text=repr(action)[:200])
    return Answer("move", action=int(index), seconds=seconds)
