"""A :class:`~boardzoo.games.GameState` view of any two-player PettingZoo AEC env.

Search tries moves on clones of the env's game: :mod:`boardzoo.agents.aec_clones` makes them by
the first way that keeps the game (a ``get_state()``/``set_state(state)`` pair, ``copy.deepcopy``,
or a deepcopy of the env's attributes) and checks each way before it is used. An env that no way
clones is refused with a one-line ``ValueError`` that names its class and what it must offer.

Clones share the env's gymnasium spaces (the search never samples them) and its pygame objects,
and never render. The search is much slower than the compiled search of the built-in games (a
clone per tree node and playout move). Rewards are summed per agent; the sign of the total
decides the result.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from boardzoo.agents.aec_clones import Clones, clone_game
from boardzoo.agents.aec_reading import Turn, class_name, env_facts, unwrap
from boardzoo.errors import InvalidValueError
from boardzoo.games.state import checked_action

__all__ = ["AECGameState"]

_OFFER = (
    "to be searched it must offer get_state() and set_state(state), "
    "or a copy.deepcopy that keeps the game"
)


def _one_line(text: str) -> str:
    """``text`` with its whitespace runs (newlines included) collapsed into single spaces."""
    return " ".join(text.split())


class AECGameState:
    """An immutable position of a two-player AEC env, playable through the GameState contract.

    Build it with :meth:`from_env`, which clones the env's game and checks the clone; the env
    itself is never changed.
    """

    def __init__(self, clones: Clones, position: Any, turn: Turn, totals: dict[str, float]) -> None:
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
            ValueError: ``env`` has not two agents, or none of the ways of
                :mod:`boardzoo.agents.aec_clones` clones its game (one line naming its class and
                what it must offer).
        """
        raw = unwrap(env)
        agents = list(raw.possible_agents)
        if len(agents) != 2:
            raise InvalidValueError(f"the AEC adapter needs a two-player env, got agents {agents}")
        num_actions = int(raw.action_space(agents[0]).n)
        expected = env_facts(raw, num_actions)
        totals = {
            a: float((getattr(raw, "_cumulative_rewards", None) or {}).get(a, 0.0)) for a in agents
        }
        found = clone_game(env, agents, num_actions, expected)
        if isinstance(found, list):
            raise InvalidValueError(
                _one_line(
                    f"{class_name(raw)} cannot be cloned for search: {'; '.join(found)}; {_OFFER}"
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
