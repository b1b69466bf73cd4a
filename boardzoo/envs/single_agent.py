"""Gymnasium single-agent versions of the games: a learner against an opponent agent.

| Ids          | `boardzoo/Reversi-v0`, `boardzoo/TicTacToe-v0` (registered on `import boardzoo`) |
|--------------|-------------------------------------------------------------------------------|
| Actions      | `Discrete(n * n + 1)` (Reversi; `n * n` passes), `Discrete(9)` (TicTacToe)     |
| Observation  | `Box(0, 1, (n, n, 2), int8)`: plane 0 the learner's pieces, plane 1 the other's |
| Action mask  | `info["action_mask"]` and `env.action_masks()` (as MaskablePPO expects)         |

The learner plays one colour (``learner_color``: fixed, or drawn at random each episode) against
``opponent``, which moves inside :meth:`step`, so every observation and reward belongs to the
learner.

### Rewards
+1 for a win, -1 for a loss, 0 for a draw, at the end of the game only. An illegal action ends
the episode at once with -1 (``info["illegal_action"] = True``), so algorithms without action
masking can train too.

### Episode End
The episode terminates when the game is over or after an illegal action. It is never truncated.

### Arguments
``gymnasium.make("boardzoo/Reversi-v0", opponent="random", board_size=8, learner_color="random",
render_mode=None)``

- ``opponent``: an agent spec (``"random"``, ``"greedy"``, ``"alphabeta:depth=2"``,
  ``"mcts:simulations=100"``), an :class:`~boardzoo.agents.Agent`, or a list of these (a pool: one
  is drawn per episode, e.g. past snapshots of the learner for self-play). Specs are rebuilt each
  episode with a seed drawn from the env's ``np_random``, so the same ``reset(seed=...)`` gives the
  same games.
- ``learner_color``: ``"first"`` / ``"second"`` (also ``"black"`` / ``"white"``, ``"x"`` / ``"o"``)
  or ``"random"``.
- ``render_mode``: ``"human"``, ``"rgb_array"`` or ``"ansi"``, drawn by the AEC envs' renderer.

### Version History
* v0: Initial release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from boardzoo.agents.base import Agent
from boardzoo.envs.env_render import RENDER_MODES, EnvRenderer
from boardzoo.games.catalog import check_game, initial_state
from boardzoo.games.state import GameState

Opponent = str | Agent
_COLOURS = {
    "first": 0, "black": 0, "x": 0,
    "second": 1, "white": 1, "o": 1,
}  # fmt: skip


def _learner_colour(value: str) -> int | None:
    """0 or 1 for a fixed colour, ``None`` for a random one each episode."""
    if value == "random":
        return None
    if value not in _COLOURS:
        allowed = ", ".join(["random", *_COLOURS])
        raise ValueError(f"learner_color must be one of {allowed}; got {value!r}")
    return _COLOURS[value]


class BoardGameSingleAgentEnv(gymnasium.Env):
    """A two-player board game seen by one learner; the opponent moves inside ``step``."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        game: str,
        opponent: Opponent | Sequence[Opponent] = "random",
        board_size: int = 8,
        learner_color: str = "random",
        render_mode: str | None = None,
    ) -> None:
        self.game = check_game(game)
        self.board_size = board_size
        start = initial_state(game, board_size)  # checks the size
        self._start = start
        self.learner_color = learner_color
        self._fixed_colour = _learner_colour(learner_color)
        pool = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        if not pool:
            raise ValueError("opponent pool is empty: give at least one agent or spec")
        for member in pool:
            if isinstance(member, str):
                from boardzoo.agents.registry import parse_spec

                parse_spec(member)  # fail now on a bad spec, not in the first episode
            elif not isinstance(member, Agent):
                raise ValueError(f"opponent must be an agent spec or an Agent, got {member!r}")
        self.opponent_pool = pool
        self.render_mode = render_mode
        size = start.size
        self.action_space = spaces.Discrete(start.num_actions)
        self.observation_space = spaces.Box(0, 1, shape=(size, size, 2), dtype=np.int8)
        self.state: GameState = start
        self.learner = 0
        self.opponent: Agent | None = None
        self.last_action: int | None = None
        self._view = EnvRenderer(
            render_mode, caption=f"boardzoo {self.game}", fps=self.metadata["render_fps"]
        )

    # --- gymnasium API ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self.learner = int(rng.integers(2)) if self._fixed_colour is None else self._fixed_colour
        member = self.opponent_pool[int(rng.integers(len(self.opponent_pool)))]
        self.opponent = self._build_opponent(member, int(rng.integers(2**63)))
        self.state = self._start
        self.last_action = None
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state.is_terminal():
            raise RuntimeError("step() called after the episode ended; call reset()")
        try:
            legal = self.state.is_legal(int(action))
        except (TypeError, ValueError):
            legal = False
        if not legal:
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self.state = self.state.apply(int(action))
        self.last_action = int(action)
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        terminated = self.state.is_terminal()
        reward = float(self.state.returns()[self.learner]) if terminated else 0.0
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as booleans (sb3-contrib's MaskablePPO calls this)."""
        return self.state.legal_action_mask().astype(bool)

    def render(self) -> np.ndarray | str | None:
        return self._view.render(self.state, self.last_action)

    def close(self) -> None:
        self._view.close()

    # --- helpers --------------------------------------------------------------------------------

    @staticmethod
    def _build_opponent(member: Opponent, seed: int) -> Agent:
        if isinstance(member, str):
            from boardzoo.agents.registry import make_agent

            return make_agent(member, seed=seed)
        member.reset()
        return member

    def _opponent_moves(self) -> None:
        """Let the opponent play until it is the learner's turn or the game is over."""
        assert self.opponent is not None
        while not self.state.is_terminal() and self.state.current_player != self.learner:
            action = self.opponent.act(self.state)
            self.state = self.state.apply(action)
            self.last_action = action

    def _observation(self) -> np.ndarray:
        return self.state.planes(self.learner)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.state.legal_action_mask(), "learner": self.learner}


class ReversiSingleAgentEnv(BoardGameSingleAgentEnv):
    """``boardzoo/Reversi-v0``: Reversi against an opponent (see the module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("reversi", **kwargs)


class TicTacToeSingleAgentEnv(BoardGameSingleAgentEnv):
    """``boardzoo/TicTacToe-v0``: TicTacToe against an opponent (see the module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("board_size", None)
        super().__init__("tictactoe", board_size=3, **kwargs)
