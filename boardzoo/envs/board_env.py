"""The AEC environment shared by every board game: PettingZoo's classic conventions, once.

A game plugs in through its :class:`~boardzoo.games.spec.Game` (from the catalog) and the
:class:`~boardzoo.games.state.BoardState` contract: the agents, the spaces, the start position,
the observation planes and the masks all come from them. This module adds the AEC loop, rewards,
rendering, snapshots and pickling; it has no code for any one game. The per-game modules
(``reversi_v0`` and the others) only give the game, their metadata and their documentation.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from boardzoo.envs.env_render import EnvRenderer
from boardzoo.errors import InvalidTypeError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = ["BoardGameEnv"]


class BoardGameEnv(AECEnv):
    """A two-player board game as a PettingZoo AEC environment.

    Subclasses set ``metadata`` (``name``, ``render_modes``, ``render_fps``,
    ``is_parallelizable``) and pass their :class:`Game` to ``__init__``. The agents are the
    game's (``game.spec.agents``, player 0 first); actions are ``Discrete(game.num_actions)``;
    observations are ``{"observation": Box(0, 1, (rows, cols, 2), int8), "action_mask":
    Box(0, 1, (num_actions,), int8)}`` with plane 0 the observing agent's pieces. The mask is
    int8 as in PettingZoo's classic envs, the same dtype as the single-agent env's masks.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "board_game_v0",
        "render_modes": ["human", "rgb_array", "ansi"],
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(self, game: Game, render_mode: str | None = None, screen_size: int = 512) -> None:
        super().__init__()
        if not isinstance(game, Game):
            raise InvalidTypeError(
                f"game must be a Game from the catalog (make_game), got {game!r}"
            )
        self._view = EnvRenderer(
            render_mode, screen_size, self.metadata["name"], self.metadata["render_fps"]
        )
        self.game = game
        self._game_state: BoardState = game.initial_state()
        self.render_mode = render_mode
        self.screen_size = screen_size
        self.last_action: int | None = None

        self.possible_agents = list(game.spec.agents)
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.observation_spaces = {a: self._observation_space() for a in self.possible_agents}
        self._sync_with_state()

    def _observation_space(self) -> spaces.Dict:
        game = self.game
        return spaces.Dict(
            {
                "observation": spaces.Box(0, 1, shape=(game.rows, game.cols, 2), dtype=np.int8),
                "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
            }
        )

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
        self._game_state = self.game.initial_state()
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
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": state.planes(player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to move; raises ``IllegalMoveError`` if it is illegal.

        Wrapped by :func:`wrap_classic`, an illegal action ends the game with -1 instead.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._game_state = self._game_state.apply(action)  # type: ignore[arg-type]  # (AECEnv's step takes ActionType; checked by apply)
        self.last_action = int(action)  # type: ignore[arg-type]  # (the same action, legal by now)
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
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[state.current_player]

    # --- snapshots ----------------------------------------------------------------------------

    def get_state(self) -> BoardState:
        """The current game state: an immutable value, so keeping it costs nothing."""
        return self._game_state

    def set_state(self, state: BoardState) -> None:
        """Continue from ``state`` (from :meth:`get_state` or built with the game's state class).

        The state must be a position of this env's game and options (``state.game is
        self.game``), else a ``TypeError`` names both. Agents, the agent to move, terminations
        and, for a finished game, the rewards are derived from it. Call ``last()`` or
        ``observe()`` before the next ``step()`` so that wrappers see the new action mask.
        """
        game = getattr(state, "game", None)
        if game is not self.game:
            theirs = game.label if isinstance(game, Game) else "no catalog game"
            raise InvalidTypeError(
                f"set_state expects a position of {self.game.label}, got one of {theirs}: {state!r}"
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
