"""A :class:`~boardzoo.games.GameState` view of any two-player PettingZoo AEC env.

The search clones the env with ``copy.deepcopy`` for every move it simulates, so it only works
with envs whose deepcopy keeps the game in progress, and it is much slower than the compiled
search of the built-in games (a deepcopy per tree node). Rewards are summed per agent; the sign of
the total decides the result.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from boardzoo.games.state import checked_action


class AECGameState:
    """An immutable snapshot of a two-player AEC env, playable through the GameState contract."""

    def __init__(self, env: Any, totals: dict[str, float] | None = None) -> None:
        agents = list(env.possible_agents)
        if len(agents) != 2:
            raise ValueError(f"the AEC adapter needs a two-player env, got agents {agents}")
        self._env = env
        self._agents = agents
        self._totals = totals if totals is not None else {a: 0.0 for a in agents}
        over = not env.agents or all(
            env.terminations.get(a, True) or env.truncations.get(a, True) for a in env.agents
        )
        self._terminal = over
        self._mask: np.ndarray | None = None

    @classmethod
    def from_env(cls, env: Any) -> AECGameState:
        """Snapshot ``env`` (a deepcopy: the env itself is left alone)."""
        clone = copy.deepcopy(env)
        totals = {a: float(clone._cumulative_rewards.get(a, 0.0)) for a in clone.possible_agents}
        return cls(clone, totals)

    @property
    def game(self) -> None:
        """A foreign game: not in boardzoo's catalog, so searched by the Python loop."""
        return None

    @property
    def num_actions(self) -> int:
        return int(self._env.action_space(self._agents[0]).n)

    @property
    def current_player(self) -> int:
        return self._agents.index(self._env.agent_selection)

    def legal_action_mask(self) -> np.ndarray:
        if self._terminal:
            return np.zeros(self.num_actions, dtype=np.int8)
        if self._mask is None:
            agent = self._env.agent_selection
            observation = self._env.observe(agent)
            if isinstance(observation, dict) and "action_mask" in observation:
                mask = observation["action_mask"]
            else:
                mask = self._env.infos[agent].get("action_mask")
            if mask is None:
                mask = np.ones(self.num_actions)
            self._mask = np.asarray(mask, dtype=np.int8)
        return self._mask.copy()

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def is_legal(self, action: int) -> bool:
        return 0 <= action < self.num_actions and bool(self.legal_action_mask()[action])

    def apply(self, action: int) -> AECGameState:
        action = checked_action(self, action)
        env = copy.deepcopy(self._env)
        totals = dict(self._totals)
        env.step(action)
        for agent, reward in env.rewards.items():
            totals[agent] = totals.get(agent, 0.0) + float(reward)
        return AECGameState(env, totals)

    def is_terminal(self) -> bool:
        return self._terminal

    def returns(self) -> tuple[float, float]:
        if not self._terminal:
            return 0.0, 0.0
        first, second = (self._totals[a] for a in self._agents)
        if first == second:
            return 0.0, 0.0
        return (1.0, -1.0) if first > second else (-1.0, 1.0)

    @property
    def winner(self) -> int | None:
        first, _ = self.returns()
        return None if first == 0 else (0 if first > 0 else 1)

    def __repr__(self) -> str:
        return f"AECGameState({self._env}, to_move={self._env.agent_selection!r})"


__all__ = ["AECGameState"]
