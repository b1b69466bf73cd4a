"""A :class:`~boardzoo.games.GameState` view of any two-player PettingZoo AEC env.

Search tries moves on clones of the env's game. The adapter clones ``env.unwrapped`` (wrappers
only check the moves, and the search plays legal ones) through the first of these that keeps
the game:

1. a ``get_state()``/``set_state(state)`` pair, on ``env.unwrapped`` or on ``env``: positions are
   the states it hands out, and one private copy of the env is set to a position's state before
   a move is tried from there;
2. ``copy.deepcopy``, one clone per position;
3. a deepcopy of the env's attributes into a new instance of its class, for envs whose pickling
   rebuilds them from their constructor arguments (gymnasium's ``EzPickle``, which PettingZoo's
   classic games use: their ``copy.deepcopy`` is a fresh env that was never reset).

Each way is checked before it is used: the clone must match the env (agents, agent to move,
terminations, truncations, every agent's observation and the action mask), a trial move from it
must leave the env and the clone alone, and the position that move reaches must clone too. An
env that no way clones is refused with a one-line ``ValueError`` that names its class and what
it must offer.

Clones share the env's gymnasium spaces (the search never samples them) and its pygame objects,
and never render. The search is much slower than the compiled search of the built-in games (a
clone per tree node and playout move). Rewards are summed per agent; the sign of the total
decides the result.
"""

from __future__ import annotations

import copy
import reprlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import numpy as np

from boardzoo.games.state import checked_action

__all__ = ["AECGameState"]

_OFFER = (
    "to be searched it must offer get_state() and set_state(state), "
    "or a copy.deepcopy that keeps the game"
)
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40


def _one_line(text: str) -> str:
    """``text`` with its whitespace runs (newlines included) collapsed into single spaces."""
    return " ".join(text.split())


def _class_name(env: Any) -> str:
    """The module-qualified name of ``env``'s class."""
    cls = type(env)
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass(frozen=True)
class _Turn:
    """What an env says about its position: who moves, what is legal, over, last rewards."""

    agent: str
    mask: np.ndarray
    over: bool
    rewards: dict[str, float]


def _read(env: Any, num_actions: int) -> _Turn:
    """The :class:`_Turn` of ``env`` (the mask from the observation, else the agent's info)."""
    agent = env.agent_selection
    over = not env.agents or all(
        env.terminations.get(a, True) or env.truncations.get(a, True) for a in env.agents
    )
    if over:
        mask = np.zeros(num_actions, dtype=np.int8)
    else:
        observation = env.observe(agent)
        if isinstance(observation, dict) and "action_mask" in observation:
            found = observation["action_mask"]
        else:
            found = env.infos.get(agent, {}).get("action_mask")
        mask = np.ones(num_actions, np.int8) if found is None else np.array(found, np.int8)
    rewards = {a: float(r) for a, r in env.rewards.items()}
    return _Turn(agent, mask, over, rewards)


def _facts(env: Any, num_actions: int) -> dict[str, Any]:
    """What a clone of ``env`` must reproduce, as independent copies."""
    facts = {
        "agents": list(env.agents),
        "agent_selection": env.agent_selection,
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "action mask": _read(env, num_actions).mask,
    }
    for agent in env.agents:
        facts[f"observe({agent!r})"] = env.observe(agent)
    return copy.deepcopy(facts)


def _difference(expected: dict[str, Any], env: Any, num_actions: int) -> str | None:
    """The first way ``env`` differs from the ``expected`` facts, or ``None``."""
    try:
        found = _facts(env, num_actions)
    except Exception as error:  # a clone that lost the game breaks in any way
        return f"reading it raised {type(error).__name__}: {error}"
    for key, value in expected.items():
        if key not in found:
            return f"{key} is missing"
        try:
            np.testing.assert_equal(found[key], value)
        except AssertionError:
            if isinstance(value, str):
                return f"{key} is {_short.repr(found[key])}, not {_short.repr(value)}"
            return f"{key} differs"
    return None


def _is_space(value: Any) -> bool:
    """Whether ``value`` is a gymnasium space (told by its classes, so gymnasium is not
    imported here: the agents layer loads no framework)."""
    return any(cls.__module__.startswith("gymnasium.spaces") for cls in type(value).__mro__)


def _shared(env: Any) -> dict[int, Any]:
    """A deepcopy memo that shares ``env``'s gymnasium spaces (and dicts of them), which the
    search never samples, and its pygame objects (screen, clock), which clones never use."""
    memo: dict[int, Any] = {}
    for value in getattr(env, "__dict__", {}).values():
        members = list(value.values()) if isinstance(value, dict) else [value]
        if type(value).__module__.partition(".")[0] == "pygame" or (
            members and all(_is_space(member) for member in members)
        ):
            memo[id(value)] = value
            memo.update((id(member), member) for member in members)
    return memo


def _deepcopy(env: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy(env)``, sharing what ``memo`` maps."""
    return copy.deepcopy(env, memo)


def _copy_attributes(env: Any, memo: dict[int, Any]) -> Any:
    """A new instance of ``env``'s class with a deepcopy of its attributes.

    Bypasses ``__getstate__``/``__setstate__``, which ``EzPickle`` makes rebuild the env from
    its constructor arguments instead of copying it.
    """
    clone = object.__new__(type(env))
    memo[id(env)] = clone
    vars(clone).update(copy.deepcopy(vars(env), memo))
    return clone


_Copier = Callable[[Any, dict[int, Any]], Any]
_COPIERS: tuple[tuple[str, _Copier], ...] = (
    ("copy.deepcopy of it", _deepcopy),
    ("a deepcopy of its attributes", _copy_attributes),
)


class _Clones(ABC):
    """How the positions of one game are cloned and played on; shared by all its states."""

    label: str  # how the clones are made, as the error message says it

    def __init__(self, agents: list[str], num_actions: int, name: str) -> None:
        self.agents = agents
        self.num_actions = num_actions
        self.name = name

    @abstractmethod
    def step(self, position: Any, action: int) -> tuple[Any, _Turn]:
        """The position after ``action`` (legal) from ``position``, and what its env says."""

    @abstractmethod
    def read(self, position: Any) -> _Turn:
        """What the env of ``position`` says."""

    @abstractmethod
    def problem(self, env: Any, position: Any, expected: dict[str, Any]) -> str | None:
        """How ``position``, cloned from ``env`` with its ``expected`` facts, fails, or None.

        Compares the clone with ``expected``, plays the first legal move from it (which must
        leave ``env`` and the clone alone) and clones the position reached (which must keep it).
        """


def _first_legal(env: Any, num_actions: int) -> int | None:
    """The first legal action of ``env``'s agent to move; ``None`` once the game is over."""
    turn = _read(env, num_actions)
    legal = np.flatnonzero(turn.mask)
    return None if turn.over or legal.size == 0 else int(legal[0])


class _CopyClones(_Clones):
    """Positions are private clones of the raw env, one per position, made by a copier."""

    def __init__(
        self,
        agents: list[str],
        num_actions: int,
        name: str,
        label: str,
        copier: _Copier,
        shared: dict[int, Any],
    ) -> None:
        super().__init__(agents, num_actions, name)
        self.label = label
        self._copier = copier
        self._shared = shared

    def clone(self, env: Any) -> Any:
        """A clone of ``env`` (which is left as it is) that does not render."""
        return _quiet(self._copier(env, dict(self._shared)))

    def step(self, position: Any, action: int) -> tuple[Any, _Turn]:
        env = self.clone(position)
        env.step(action)
        return env, _read(env, self.num_actions)

    def read(self, position: Any) -> _Turn:
        return _read(position, self.num_actions)

    def problem(self, env: Any, position: Any, expected: dict[str, Any]) -> str | None:
        n = self.num_actions
        why = _difference(expected, position, n)
        if why is not None:
            return f"loses the game ({why})"
        action = _first_legal(position, n)
        if action is None:
            return None
        child, _ = self.step(position, action)
        why = _difference(expected, position, n) or _difference(expected, env, n)
        if why is not None:
            return f"shares the game: a move on a copy changes it ({why})"
        why = _difference(_facts(child, n), self.clone(child), n)
        return None if why is None else f"loses the game after a move ({why})"


class _StateClones(_Clones):
    """Positions are the env's own states; one private copy of the env plays every move."""

    label = "set_state(get_state()) on a copy of it"

    def __init__(self, agents: list[str], num_actions: int, name: str, scratch: Any) -> None:
        super().__init__(agents, num_actions, name)
        self.scratch = scratch
        self.raw = _unwrap(scratch)
        self._lock = threading.Lock()  # search workers are threads sharing the scratch env

    def load(self, position: Any) -> Any:
        """The raw scratch env, set to ``position``."""
        self.scratch.set_state(position)
        return self.raw

    def step(self, position: Any, action: int) -> tuple[Any, _Turn]:
        with self._lock:
            self.load(position)
            self.scratch.step(action)
            return self.scratch.get_state(), _read(self.raw, self.num_actions)

    def read(self, position: Any) -> _Turn:
        with self._lock:
            return _read(self.load(position), self.num_actions)

    def problem(self, env: Any, position: Any, expected: dict[str, Any]) -> str | None:
        n = self.num_actions
        try:
            why = _difference(expected, self.load(position), n)
            if why is not None:
                return f"does not restore the game ({why})"
            action = _first_legal(self.raw, n)
            if action is None:
                return None
            child, _ = self.step(position, action)
            child_facts = _facts(self.raw, n)
            why = _difference(expected, self.load(position), n) or _difference(expected, env, n)
            if why is None:
                why = _difference(child_facts, self.load(child), n)
            return None if why is None else f"does not restore the game after a move ({why})"
        finally:
            self.load(position)


def _quiet(env: Any) -> Any:
    """``env`` with rendering switched off (a clone's moves must not draw)."""
    if getattr(env, "render_mode", None) is not None:
        env.render_mode = None
    return env


def _unwrap(env: Any) -> Any:
    """``env.unwrapped``, or ``env`` itself where it has none."""
    return getattr(env, "unwrapped", env)


def _has_state_pair(env: Any) -> bool:
    return callable(getattr(env, "get_state", None)) and callable(getattr(env, "set_state", None))


def _scratch_copy(holder: Any) -> Any:
    """A copy of ``holder`` for set_state to fill: any copy will do, lost game or not."""
    failure: Exception | None = None
    for _, copier in _COPIERS:
        try:
            return _quiet(copier(holder, _shared(holder)))
        except Exception as error:
            failure = error
    raise failure or TypeError("no copier")


def _first_copy(clones: _CopyClones, raw: Any) -> tuple[_Clones, Any]:
    return clones, clones.clone(raw)


def _clone(
    env: Any, agents: list[str], num_actions: int, expected: dict[str, Any]
) -> tuple[_Clones, Any] | list[str]:
    """The clones of ``env``'s game by the first way that keeps it, else why the ways fail.

    The reasons name only what the env offers (its get_state/set_state pair, its deepcopy), not
    this module's own fallback of copying the env's attributes.
    """
    raw = _unwrap(env)
    name = _class_name(raw)
    ways: list[tuple[str, bool, Callable[[], tuple[_Clones, Any]]]] = []
    holder = next((e for e in (raw, env) if _has_state_pair(e)), None)
    if holder is not None:  # the raw env's pair, else a wrapper's own
        ways.append(
            (
                _StateClones.label,
                True,
                lambda: (
                    _StateClones(agents, num_actions, name, _scratch_copy(holder)),
                    holder.get_state(),
                ),
            )
        )
    shared = _shared(raw)
    for index, (label, copier) in enumerate(_COPIERS):
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


class AECGameState:
    """An immutable position of a two-player AEC env, playable through the GameState contract.

    Build it with :meth:`from_env`, which clones the env's game and checks the clone; the env
    itself is never changed.
    """

    def __init__(
        self, clones: _Clones, position: Any, turn: _Turn, totals: dict[str, float]
    ) -> None:
        self._clones = clones
        self._position = position
        self._turn = turn
        self._totals = totals
        self._legal = np.flatnonzero(turn.mask).tolist()

    @classmethod
    def from_env(cls, env: Any) -> AECGameState:
        """Snapshot the game of ``env`` (left as it is).

        Args:
            env: a two-player PettingZoo AEC env, wrapped or not.

        Returns:
            The position of ``env``'s game, with the agent to move of ``env``.

        Raises:
            ValueError: ``env`` has not two agents, or none of the ways in the module's
                docstring clones its game (one line naming its class and what it must offer).
        """
        raw = _unwrap(env)
        agents = list(raw.possible_agents)
        if len(agents) != 2:
            raise ValueError(f"the AEC adapter needs a two-player env, got agents {agents}")
        num_actions = int(raw.action_space(agents[0]).n)
        expected = _facts(raw, num_actions)
        totals = {
            a: float((getattr(raw, "_cumulative_rewards", None) or {}).get(a, 0.0)) for a in agents
        }
        found = _clone(env, agents, num_actions, expected)
        if isinstance(found, list):
            raise ValueError(
                _one_line(
                    f"{_class_name(raw)} cannot be cloned for search: {'; '.join(found)}; {_OFFER}"
                )
            )
        clones, position = found
        return cls(clones, position, clones.read(position), totals)

    @property
    def game(self) -> None:
        """A foreign game: not in boardzoo's catalog, so searched by the Python loop."""
        return None

    @property
    def num_actions(self) -> int:
        """Size of the env's action space (every action, legal or not)."""
        return self._clones.num_actions

    @property
    def current_player(self) -> int:
        """0 or 1: the index in ``possible_agents`` of the agent to move."""
        return self._clones.agents.index(self._turn.agent)

    def legal_action_mask(self) -> np.ndarray:
        """A fresh int8 array: the action mask of the agent to move (zeros once over)."""
        return cast("np.ndarray", self._turn.mask.copy())

    def legal_actions(self) -> list[int]:
        """The legal actions in increasing order; empty once the game is over."""
        return list(self._legal)

    def is_legal(self, action: int) -> bool:
        """Whether the integer ``action`` is legal here."""
        return 0 <= action < self.num_actions and bool(self._turn.mask[action])

    def apply(self, action: int) -> AECGameState:
        """The position after the legal ``action``; ``IllegalMoveError`` otherwise."""
        action = checked_action(self, action)
        position, turn = self._clones.step(self._position, action)
        totals = dict(self._totals)
        for agent, reward in turn.rewards.items():
            totals[agent] = totals.get(agent, 0.0) + reward
        return AECGameState(self._clones, position, turn, totals)

    def is_terminal(self) -> bool:
        """Whether the game is over: no agents left, or all terminated or truncated."""
        return self._turn.over

    def returns(self) -> tuple[float, float]:
        """+1 for the agent with the larger reward total, -1 for the other (0 while in play)."""
        if not self._turn.over:
            return 0.0, 0.0
        first, second = (self._totals[a] for a in self._clones.agents)
        if first == second:
            return 0.0, 0.0
        return (1.0, -1.0) if first > second else (-1.0, 1.0)

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is won, ``None`` for a draw or a game in progress."""
        first, _ = self.returns()
        return None if first == 0 else (0 if first > 0 else 1)

    def __repr__(self) -> str:
        return f"AECGameState({self._clones.name}, to_move={self._turn.agent!r})"
