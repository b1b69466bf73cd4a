"""Gymnasium single-agent versions of the games: a learner against an opponent agent.

| Ids         | every catalog game's `gym_id`: `boardzoo/Reversi-v0`, `boardzoo/TicTacToe-v0`, |
|             | `boardzoo/ConnectFour-v0` (registered on `import boardzoo`; or make            |
|             | `"boardzoo:boardzoo/Reversi-v0"`, and Gymnasium imports boardzoo itself)       |
|-------------|--------------------------------------------------------------------------------|
| Actions     | `Discrete(num_actions)`, the game's actions: Reversi `n * n + 1` (the last     |
|             | passes), TicTacToe 9, Connect Four 7                                           |
| Observation | `Box(0, 1, (rows, cols, 2), int8)`: plane 0 the learner's pieces, plane 1 the  |
|             | other's                                                                        |
| Action mask | `info["action_mask"]` and `env.action_masks()`: the same int8 vector of length |
|             | `num_actions`, 1 where the action is legal                                     |

The learner plays one side (``learner_color``: fixed, or drawn at random each episode) against
``opponent``, which moves inside :meth:`step`, so every observation and reward belongs to the
learner.

### Action Mask
Every mask boardzoo hands out is an ``int8`` array of 0 and 1: ``info["action_mask"]`` and
``env.action_masks()`` here, and the ``"action_mask"`` of the AEC envs' observations (PettingZoo's
classic convention). That is the dtype Gymnasium's ``Discrete.sample(mask=...)`` requires, so
``env.action_space.sample(mask=info["action_mask"])`` samples a legal action, and sb3-contrib's
``MaskablePPO`` (which calls ``action_masks()``) converts any 0/1 array to booleans itself. Use
``mask.astype(bool)`` where booleans are needed. Each call returns a fresh array.

### Rewards
+1 for a win, -1 for a loss, 0 for a draw, at the end of the game only. An illegal action ends
the episode at once with -1 (``info["illegal_action"] = True``), so algorithms without action
masking can train too.

### Episode End
The episode terminates when the game is over or after an illegal action. It is never truncated.
Calling :meth:`step` before the first :meth:`reset`, or after the episode has ended, raises
``gymnasium.error.ResetNeeded`` (the error Gymnasium's ``OrderEnforcing`` wrapper raises for a
step before reset) with a message saying to call ``reset()``: a finished game has no next move.

### Arguments
``gymnasium.make("boardzoo/Reversi-v0", opponent="random", learner_color="random",
render_mode=None, board_size=8)``, or ``BoardGameSingleAgentEnv(game, ...)`` for any catalog game.

- ``opponent``: an agent spec (``"random"``, ``"greedy"``, ``"alphabeta:depth=2"``,
  ``"mcts:simulations=100"``), an :class:`~boardzoo.agents.Agent`, or a list of these (a pool: one
  is drawn per episode, e.g. past snapshots of the learner for self-play). Every spec is checked
  when the env is made (:func:`~boardzoo.agents.registry.check_spec`): a bad one raises
  :class:`~boardzoo.agents.registry.AgentSpecError` then, with a one-line message naming the key,
  the value and what is allowed. Specs are rebuilt each episode with a seed drawn from the env's
  ``np_random``, so the same ``reset(seed=...)`` gives the same games. The episode's opponent is
  prepared for the game (:meth:`~boardzoo.agents.Agent.prepare`: compiled search loaded or
  compiled) inside :meth:`reset`, so no compiling happens in the middle of an episode.
- ``learner_color``: ``"first"`` / ``"second"``, a side of the game (``"black"`` / ``"white"``,
  ``"x"`` / ``"o"``, ``"red"`` / ``"yellow"``, any case) or ``"random"``.
- ``render_mode``: ``"human"``, ``"rgb_array"`` or ``"ansi"``, drawn by the AEC envs' renderer.
- the game's options (``board_size`` for Reversi: 4, 6 or 8); other games have none.

### Version History
* v0: Initial release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from boardzoo.agents.base import Agent
from boardzoo.agents.registry import check_spec, make_agent
from boardzoo.envs.env_render import RENDER_MODES, EnvRenderer
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import game_of
from boardzoo.games.spec import Game, GameSpec
from boardzoo.games.state import BoardState

__all__ = [
    "BoardGameSingleAgentEnv",
    "learner_side",
]

Opponent = str | Agent
_ORDER = {"first": 0, "second": 1}


def learner_side(spec: GameSpec, value: str) -> int | None:
    """0 or 1 for a fixed side, ``None`` for ``"random"`` (a side drawn each episode).

    ``value`` is ``"first"``, ``"second"``, ``"random"`` or one of the game's sides, any case;
    anything else is a ``ValueError`` listing what is allowed.
    """
    if not isinstance(value, str):
        raise InvalidValueError(f"learner_color must be a string, got {value!r}")
    lowered = value.lower()
    if lowered == "random":
        return None
    if lowered in _ORDER:
        return _ORDER[lowered]
    try:
        return spec.side_index(value)
    except ValueError:
        allowed = ", ".join(["random", *_ORDER, *spec.sides])
        raise InvalidValueError(
            f"learner_color must be one of {allowed} for {spec.name}; got {value!r}"
        ) from None


class BoardGameSingleAgentEnv(gymnasium.Env):
    """A two-player board game seen by one learner; the opponent moves inside ``step``.

    Args:
        game: a catalog game's name (``"connect_four"``) or a :class:`Game` (options chosen).
        opponent: an agent spec, an :class:`Agent`, or a pool of them (see the module
            docstring).
        learner_color: ``"first"``, ``"second"``, one of the game's sides, or ``"random"``.
        render_mode: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.
        **options: the game's options (``board_size=6`` for Reversi), each checked.
    """

    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]  # gymnasium's Env declares it
        "render_modes": list(RENDER_MODES),
        "render_fps": 2,
    }

    def __init__(
        self,
        game: str | Game,
        opponent: Opponent | Sequence[Opponent] = "random",
        learner_color: str = "random",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        rules = game_of(game, **options)
        self.game = rules
        self.options = dict(rules.options)
        self.learner_color = learner_color
        self._fixed_colour = learner_side(rules.spec, learner_color)
        pool: list[Opponent] = (
            list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]  # type: ignore[list-item]  # (a spec, an Agent, or a sequence of them)
        )
        if not pool:
            raise InvalidValueError("opponent pool is empty: give at least one agent or spec")
        for member in pool:
            if isinstance(member, str):
                check_spec(member)  # a bad spec fails here, not in the first episode
            elif not isinstance(member, Agent):
                raise InvalidValueError(
                    f"opponent must be an agent spec (e.g. 'random', 'mcts:simulations=100') "
                    f"or an Agent, got {member!r}"
                )
        self.opponent_pool = pool
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(rules.num_actions)
        self.observation_space = spaces.Box(0, 1, shape=(rules.rows, rules.cols, 2), dtype=np.int8)
        self.state: BoardState = rules.initial_state()
        self.learner = 0
        self.opponent: Agent | None = None
        self.last_action: int | None = None
        # Why step() must wait for reset(), or "" while an episode runs.
        self._reset_needed = "step() was called before reset()"
        self._view = EnvRenderer(
            render_mode, caption=f"boardzoo {rules.label}", fps=self.metadata["render_fps"]
        )

    # --- gymnasium API ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: draw the learner's side and the opponent, and let the opponent
        open if it moves first.

        Args:
            seed: seeds ``np_random``, which draws the side, the opponent and its seed.
            options: unused.

        Returns:
            The learner's first observation and the info (``"action_mask"``, ``"learner"``).
        """
        super().reset(seed=seed)
        rng = self.np_random
        self.learner = int(rng.integers(2)) if self._fixed_colour is None else self._fixed_colour
        member = self.opponent_pool[int(rng.integers(len(self.opponent_pool)))]
        self.opponent = self._build_opponent(member, int(rng.integers(2**63)))
        self.opponent.prepare(self.game)  # compile or load its search now, not mid-episode
        self.state = self.game.initial_state()
        self.last_action = None
        self._opponent_moves()
        self._reset_needed = ""
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponent's replies until it is the learner's
        turn again or the game is over.

        Args:
            action: one of the game's actions; an illegal one ends the episode with -1.

        Returns:
            The observation, the reward, ``terminated``, ``truncated`` (always ``False``) and the
            info (``"action_mask"``, ``"learner"``, and ``"illegal_action"`` after one).

        Raises:
            gymnasium.error.ResetNeeded: before the first :meth:`reset`, or once the episode has
                ended.
        """
        if self._reset_needed:
            raise ResetNeeded(f"{self._reset_needed}; call env.reset() to start a new episode")
        try:
            legal = self.state.is_legal(int(action))
        except (TypeError, ValueError):
            legal = False
        if not legal:
            self._reset_needed = (
                "step() was called after the episode ended (terminated by an illegal action)"
            )
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self.state = self.state.apply(int(action))
        self.last_action = int(action)
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        terminated = self.state.is_terminal()
        if terminated:
            self._reset_needed = "step() was called after the episode ended (the game is over)"
        reward = float(self.state.returns()[self.learner]) if terminated else 0.0
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions: a fresh int8 array of length ``num_actions``, 1 where
        legal, equal to ``info["action_mask"]`` (sb3-contrib's MaskablePPO calls this)."""
        return self.state.legal_action_mask()

    def render(self) -> np.ndarray | str | None:
        """Draw the game as the AEC envs do: a window, an RGB array or text (``render_mode``)."""
        return self._view.render(self.state, self.last_action)

    def close(self) -> None:
        """Release the window, if any; safe to call more than once."""
        self._view.close()

    # --- helpers --------------------------------------------------------------------------------

    @staticmethod
    def _build_opponent(member: Opponent, seed: int) -> Agent:
        if isinstance(member, str):
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
