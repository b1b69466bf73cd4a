"""The AEC environment shared by every board game: PettingZoo's classic conventions, once.

A game plugs in through the :class:`~boardzoo.games.GameState` contract; this module adds the
agents, spaces, rewards, rendering, snapshots and pickling. Subclasses only name their agents and
build their first state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from boardzoo.envs.env_render import EnvRenderer
from boardzoo.games import GameState


class BoardGameEnv(AECEnv):
    """A two-player board game as a PettingZoo AEC environment.

    Subclasses set ``metadata`` and call ``__init__`` with the agent names (player 0 first), a
    factory for the start position and the state class that :meth:`set_state` accepts.
    """

    def __init__(
        self,
        agent_names: tuple[str, str],
        initial_state: Callable[[], GameState],
        render_mode: str | None = None,
        screen_size: int = 512,
    ) -> None:
        super().__init__()
        self._view = EnvRenderer(
            render_mode, screen_size, self.metadata["name"], self.metadata["render_fps"]
        )
        self._initial_state = initial_state
        self._game_state: GameState = initial_state()
        self._state_type = type(self._game_state)
        self.render_mode = render_mode
        self.screen_size = screen_size
        self.last_action: int | None = None

        self.possible_agents = list(agent_names)
        self.agents = self.possible_agents[:]
        size, num_actions = self._game_state.size, self._game_state.num_actions
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, shape=(size, size, 2), dtype=np.int8),
                    "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._sync_with_state()

    # --- spaces -------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # --- the AEC loop -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game from the standard position.

        The games have no chance elements; ``seed`` still seeds ``self.np_random`` as Gymnasium
        does, for wrappers and agents that draw from it.
        """
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self._game_state = self._initial_state()
        self.last_action = None
        self._sync_with_state()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Planes from ``agent``'s side, and its mask (all zero unless it is to move)."""
        player = self.possible_agents.index(agent)
        state = self._game_state
        if agent == self.agent_selection and not state.is_terminal():
            mask = state.legal_action_mask()
        else:
            mask = np.zeros(state.num_actions, dtype=np.int8)
        return {"observation": state.planes(player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to move; raises ``IllegalMoveError`` if it is illegal.

        Wrapped by :func:`wrap_classic`, an illegal action ends the game with -1 instead.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._game_state = self._game_state.apply(action)
        self.last_action = int(action)
        self._sync_with_state()
        if self.render_mode == "human":
            self.render()

    def _sync_with_state(self) -> None:
        """Derive agents, selection, rewards and terminations from the game state."""
        state = self._game_state
        self.agents = self.possible_agents[:]
        over = state.is_terminal()
        # Rewards come only at the end (returns are 0 before), so what each agent has collected
        # so far equals this step's reward.
        self.rewards = dict(zip(self.agents, state.returns(), strict=True))
        self._cumulative_rewards = dict(self.rewards)
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[state.current_player]

    # --- snapshots ----------------------------------------------------------------------------

    def get_state(self) -> GameState:
        """The current game state: an immutable value, so keeping it costs nothing."""
        return self._game_state

    def set_state(self, state: GameState) -> None:
        """Continue from ``state`` (from :meth:`get_state` or built with the game's state class).

        Agents, the agent to move, terminations and, for a finished game, the rewards are derived
        from it. Call ``last()`` or ``observe()`` before the next ``step()`` so that wrappers see
        the new action mask.
        """
        if not isinstance(state, self._state_type) or state.size != self._game_state.size:
            raise TypeError(
                f"set_state expects a {self._state_type.__name__} of size "
                f"{self._game_state.size}, got {state!r}"
            )
        self._game_state = state
        self.last_action = None
        self._sync_with_state()

    # --- rendering ----------------------------------------------------------------------------

    def render(self) -> np.ndarray | str | None:
        """Draw the game: a window ("human"), an RGB array ("rgb_array") or text ("ansi")."""
        return self._view.render(self._game_state, self.last_action)

    def close(self) -> None:
        """Release the window, if any; safe to call more than once."""
        self._view.close()
