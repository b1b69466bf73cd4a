"""The clones of a two-player PettingZoo AEC env's game that search plays on, each way checked.

:func:`clone_game` clones ``env.unwrapped`` (wrappers only check the moves, and the search plays
legal ones) through the first of these that keeps the game:

1. a ``get_state()``/``set_state(state)`` pair, on ``env.unwrapped`` or on ``env``: positions are
   the states it hands out, and one private copy of the env is set to a position's state before
   a move is tried from there;
2. ``copy.deepcopy``, one clone per position;
3. a deepcopy of the env's attributes into a new instance of its class, for envs whose pickling
   rebuilds them from their constructor arguments (gymnasium's ``EzPickle``, which PettingZoo's
   classic games use: their ``copy.deepcopy`` is a fresh env that was never reset).

The copies are made by :mod:`boardzoo.agents.aec_copying`. Each way is checked before it is
used: the clone must match the env (agents, agent to move, terminations, truncations, every
agent's observation and the action mask), a trial move from it must leave the env and the clone
alone, and the position that move reaches must clone too. The way found is a :class:`Clones`,
shared by all the positions of the game.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import partial
from typing import Any

from boardzoo.agents.aec_copying import COPIERS, Copier, quiet, scratch_copy, shared_memo
from boardzoo.agents.aec_reading import (
    Turn,
    class_name,
    difference,
    env_facts,
    first_legal,
    read_turn,
    unwrap,
)

__all__ = ["Clones", "clone_game"]


class Clones(ABC):
    """How the positions of one game are cloned and played on; shared by all its states."""

    label: str  # how the clones are made, as the error message says it

    def __init__(self, agents: list[str], num_actions: int, name: str) -> None:
        self.agents = agents
        self.num_actions = num_actions
        self.name = name

    @abstractmethod
    def step(self, position: Any, action: int) -> tuple[Any, Turn]:
        """The position after ``action`` (legal) from ``position``, and what its env says."""

    @abstractmethod
    def read(self, position: Any) -> Turn:
        """What the env of ``position`` says."""

    @abstractmethod
    def problem(self, env: Any, position: Any, expected: dict[str, Any]) -> str | None:
        """How ``position``, cloned from ``env`` with its ``expected`` facts, fails, or None.

        Compares the clone with ``expected``, plays the first legal move from it (which must
        leave ``env`` and the clone alone) and clones the position reached (which must keep it).
        """


class _CopyClones(Clones):
    """Positions are private clones of the raw env, one per position, made by a copier."""

    def __init__(
        self,
        agents: list[str],
        num_actions: int,
        name: str,
        label: str,
        copier: Copier,
        shared: dict[int, Any],
    ) -> None:
        super().__init__(agents, num_actions, name)
        self.label = label
        self._copier = copier
        self._shared = shared

    def clone(self, env: Any) -> Any:
        """A clone of ``env`` (which is left as it is) that does not render."""
        return quiet(self._copier(env, dict(self._shared)))

    def step(self, position: Any, action: int) -> tuple[Any, Turn]:
        env = self.clone(position)
        env.step(action)
        return env, read_turn(env, self.num_actions)

    def read(self, position: Any) -> Turn:
        return read_turn(position, self.num_actions)

    def problem(self, env: Any, position: Any, expected: dict[str, Any]) -> str | None:
        n = self.num_actions
        why = difference(expected, position, n)
        if why is not None:
            return f"loses the game ({why})"
        action = first_legal(position, n)
        if action is None:
            return None
        child, _ = self.step(position, action)
        why = difference(expected, position, n) or difference(expected, env, n)
        if why is not None:
            return f"shares the game: a move on a copy changes it ({why})"
        why = difference(env_facts(child, n), self.clone(child), n)
        return None if why is None else f"loses the game after a move ({why})"


class _StateClones(Clones):
    """Positions are the env's own states; one private copy of the env plays every move."""

    label = "set_state(get_state()) on a copy of it"

    def __init__(self, agents: list[str], num_actions: int, name: str, scratch: Any) -> None:
        super().__init__(agents, num_actions, name)
        self.scratch = scratch
        self.raw = unwrap(scratch)
        self._lock = threading.Lock()  # search workers are threads sharing the scratch env

    def load(self, position: Any) -> Any:
        """The raw scratch env, set to ``position``."""
        self.scratch.set_state(position)
        return self.raw

    def step(self, position: Any, action: int) -> tuple[Any, Turn]:
        with self._lock:
            self.load(position)
            self.scratch.step(action)
            return self.scratch.get_state(), read_turn(self.raw, self.num_actions)

    def read(self, position: Any) -> Turn:
        with self._lock:
            return read_turn(self.load(position), self.num_actions)

    def problem(self, env: Any, position: Any, expected: dict[str, Any]) -> str | None:
        n = self.num_actions
        try:
            why = difference(expected, self.load(position), n)
            if why is not None:
                return f"does not restore the game ({why})"
            action = first_legal(self.raw, n)
            if action is None:
                return None
            child, _ = self.step(position, action)
            child_facts = env_facts(self.raw, n)
            why = difference(expected, self.load(position), n) or difference(expected, env, n)
            if why is None:
                why = difference(child_facts, self.load(child), n)
            return None if why is None else f"does not restore the game after a move ({why})"
        finally:
            self.load(position)


def _has_state_pair(env: Any) -> bool:
    return callable(getattr(env, "get_state", None)) and callable(getattr(env, "set_state", None))


def _first_copy(clones: _CopyClones, raw: Any) -> tuple[Clones, Any]:
    return clones, clones.clone(raw)


def clone_game(
    env: Any, agents: list[str], num_actions: int, expected: dict[str, Any]
) -> tuple[Clones, Any] | list[str]:
    """The clones of ``env``'s game by the first way that keeps it, else why the ways fail.

    The reasons name only what the env offers (its get_state/set_state pair, its deepcopy), not
    boardzoo's own fallback of copying the env's attributes.
    """
    raw = unwrap(env)
    name = class_name(raw)
    ways: list[tuple[str, bool, Callable[[], tuple[Clones, Any]]]] = []
    holder = next((e for e in (raw, env) if _has_state_pair(e)), None)
    if holder is not None:  # the raw env's pair, else a wrapper's own
        ways.append(
            (
                _StateClones.label,
                True,
                lambda: (
                    _StateClones(agents, num_actions, name, scratch_copy(holder)),
                    holder.get_state(),
                ),
            )
        )
    shared = shared_memo(raw)
    for index, (label, copier) in enumerate(COPIERS):
        copies = _CopyClones(agents, num_actions, name, label, copier, shared)
        ways.append((label, index == 0, partial(_first_copy, copies, raw)))
    reasons = []
    for label, tell, make in ways:
        try:
            clones, position = make()
            why = clones.problem(raw, position, expected)
        except Exception as error:
            why = f"raised {type(error).__name__}: {error}"
        if why is None:
            return clones, position
        if tell:
            reasons.append(f"{label} {why}")
    return reasons
