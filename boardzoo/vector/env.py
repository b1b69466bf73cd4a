"""Batched single-agent board games: a Gymnasium ``VectorEnv`` stepped in one compiled call.

| Ids         | every catalog game's `gym_id`, with `gymnasium.make_vec(id, num_envs,            |
|             | vectorization_mode="vector_entry_point", ...)`: `boardzoo/Reversi-v0`,           |
|             | `boardzoo/TicTacToe-v0`, `boardzoo/ConnectFour-v0`                               |
|-------------|----------------------------------------------------------------------------------|
| Actions     | `MultiDiscrete([num_actions] * num_envs)`; each sub-env's `Discrete(num_actions)`|
| Observation | `Box(0, 1, (num_envs, rows, cols, 2), int8)`: plane 0 the learner's pieces       |
| Action mask | `info["action_mask"]` and `envs.action_masks()`: int8 `(num_envs, num_actions)`  |

Each sub-env is :class:`~boardzoo.envs.single_agent.BoardGameSingleAgentEnv` (same actions,
observations, masks, rewards and episode ends), but every sub-env's step (the learner's move, the
opponent's reply, the check for the end of the game, the observation and the mask) runs in one
compiled call over arrays of bitboards: no Python per sub-env.

### Opponents
``"random"`` (uniform over the legal moves), ``"greedy"`` (the game's one-ply greedy rule,
:class:`~boardzoo.agents.greedy.GreedyAgent`'s, ties broken at random) and
``"alphabeta:depth=N"`` (N from 1 to 4: :class:`~boardzoo.agents.AlphaBetaAgent`'s negamax
search to that depth with the game's evaluation, ties broken at random; unlike the agent, it does
not solve endgames exactly: ``exact_empties=0``) play inside the compiled step. A policy, any
callable from the observations and masks of the sub-envs where it is to move (from its side) to
one legal action each, such as :class:`~boardzoo.vector.policies.TorchPolicy` around a network,
is called once a step for all of them. A list of these is a pool: each
episode draws its opponent (self-play against past snapshots, leagues). Each sub-env draws its
side when ``learner_color="random"``, then its opponent from a pool, and the compiled opponents'
moves, from a random stream of its own (xorshift64*, seeded by ``reset(seed=...)``).

### Rewards, episode end, autoreset
+1 for a win, -1 for a loss, 0 for a draw, at the end of the game only; an illegal action ends
the sub-env's episode at once with -1 (``info["illegal_action"]``). Episodes terminate, never
truncate. Autoreset follows Gymnasium 1.x's default ``AutoresetMode.NEXT_STEP``: the step that
ends an episode returns its last observation; the sub-env's next step ignores its action, starts
a new episode and returns its first observation with reward 0.

### Info
Arrays over the sub-envs, each with its Gymnasium ``"_key"`` mask: ``"action_mask"`` (int8
``(num_envs, num_actions)``), ``"learner"`` (the learner's side, 0 moves first), and
``"illegal_action"`` (set, with its mask, only where an illegal action ended the episode).

### Arguments
``gymnasium.make_vec("boardzoo/Reversi-v0", num_envs=1024,
vectorization_mode="vector_entry_point", opponent="greedy", learner_color="random",
board_size=8)``, or ``BoardGameVectorEnv(game, num_envs, ...)`` for any catalog game.

- ``num_envs``: the number of sub-envs (at least 1).
- ``opponent``: ``"random"``, ``"greedy"``, ``"alphabeta:depth=N"``, a policy, or a list of
  these (a pool).
- ``learner_color``: ``"first"`` / ``"second"``, a side of the game (any case) or ``"random"``.
- the game's options (``board_size`` for Reversi: 4, 6 or 8).

### Seeding
``reset(seed=s)`` seeds sub-env ``i`` with ``s + i`` (a list gives each its own seed); the same
seeds and actions give the same observations. ``reset()`` without a seed keeps each sub-env's
random stream going, as the single env's ``np_random`` does.
``reset(options={"reset_mask": mask})`` starts new episodes in the masked sub-envs only.

### Version History
* v0: Initial release.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, ClassVar, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from boardzoo.agents.compiling import compile_notice
from boardzoo.envs.single_agent import learner_side
from boardzoo.errors import InvalidValueError
from boardzoo.games.bits import seed_rng
from boardzoo.games.catalog import game_of
from boardzoo.games.spec import Game
from boardzoo.vector.kernels import compiled_vector
from boardzoo.vector.opponents import COMPILED_OPPONENTS, POLICY, compiled_opponent_code

__all__ = ["BoardGameVectorEnv"]

_NO_SQUARE = -1

# A policy opponent: the observations (k, rows, cols, 2) and masks (k, num_actions) of the k
# sub-envs where it is to move, from its side, in; one legal action per sub-env out.
OpponentPolicy = Callable[[np.ndarray, np.ndarray], Any]
Opponent = str | OpponentPolicy


def _opponent_kind(member: object) -> int:
    """The compiled step's code of a pool member: a compiled opponent's, or ``POLICY``."""
    if isinstance(member, str):
        try:
            return compiled_opponent_code(member)
        except ValueError:
            raise InvalidValueError(
                f"opponent must be {COMPILED_OPPONENTS}, or a policy (a callable from "
                f"observations and masks to actions) in a batched env, got {member!r}; other "
                "agents play in copies of the single env: gymnasium.make_vec(id, num_envs, "
                "vectorization_mode='sync', opponent=...)"
            ) from None
    if callable(member):
        return POLICY
    raise InvalidValueError(
        f"opponent must be {COMPILED_OPPONENTS}, a policy (a callable from observations and "
        f"masks to actions), or a list of these; got {member!r}"
    )


def _check_replies(policy: object, replies: np.ndarray, mask: np.ndarray) -> None:
    """A ``ValueError`` if the policy did not answer one legal action per sub-env."""
    if replies.shape != (mask.shape[0],):
        raise InvalidValueError(
            f"the opponent policy {policy!r} returned {replies.shape[0]} actions for "
            f"{mask.shape[0]} observations"
        )
    inside = (replies >= 0) & (replies < mask.shape[1])
    legal = inside & (mask[np.arange(len(replies)), np.clip(replies, 0, mask.shape[1] - 1)] == 1)
    if not legal.all():
        bad = int(replies[np.flatnonzero(~legal)[0]])
        raise InvalidValueError(
            f"the opponent policy {policy!r} chose the illegal action {bad}: a policy must "
            "choose among the actions its mask allows"
        )


def _cell_squares(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """For each of the 64 cells of the kernels' bitboards, its row and column on the board
    (-1 for a cell that is not a square), from the game's :attr:`~Game.layout`."""
    rows = np.full(64, _NO_SQUARE, dtype=np.int64)
    cols = np.full(64, _NO_SQUARE, dtype=np.int64)
    row_stride, col_stride, offset = game.layout
    for row in range(game.rows):
        for col in range(game.cols):
            cell = offset + row * row_stride + col * col_stride
            rows[cell], cols[cell] = row, col
    return rows, cols


class BoardGameVectorEnv(VectorEnv):
    """``num_envs`` learners of one catalog game against a compiled opponent, stepped at once.

    Args:
        game: a catalog game's name (``"reversi"``) or a :class:`Game` (options chosen).
        num_envs: the number of sub-envs.
        opponent: ``"random"``, ``"greedy"``, a policy (see the module docstring), or a list
            of these: a pool, one drawn per episode.
        learner_color: ``"first"``, ``"second"``, one of the game's sides, or ``"random"``.
        render_mode: only ``None`` (batched envs are not drawn; use the single env to watch).
        **options: the game's options (``board_size=6`` for Reversi), each checked.
    """

    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]  # (gymnasium's VectorEnv declares metadata without ClassVar)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        game: str | Game,
        num_envs: int,
        opponent: Opponent | Sequence[Opponent] = "random",
        learner_color: str = "random",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        rules = game_of(game, **options)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise InvalidValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if num_envs < 1:
            raise InvalidValueError(f"num_envs must be at least 1, got {num_envs}")
        pool = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        if not pool:
            raise InvalidValueError("opponent pool is empty: give at least one opponent")
        kinds = [_opponent_kind(member) for member in pool]
        if render_mode is not None:
            raise InvalidValueError(
                f"render_mode must be None for a batched env, got {render_mode!r}: draw one "
                "game with the single env (gymnasium.make) instead"
            )
        side = learner_side(rules.spec, learner_color)
        self.game = rules
        self.num_envs = int(num_envs)
        self.opponent = opponent
        self.learner_color = learner_color
        self.render_mode = None
        self.single_action_space = spaces.Discrete(rules.num_actions)
        self.single_observation_space = spaces.Box(
            0, 1, shape=(rules.rows, rules.cols, 2), dtype=np.int8
        )
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

        self._kernels = compiled_vector(rules)
        self._pool_kinds = np.array(kinds, dtype=np.int64)
        self._policies: dict[int, OpponentPolicy] = {
            j: member  # type: ignore[misc]  # a POLICY member is callable
            for j, member in enumerate(pool)
            if kinds[j] == POLICY
        }
        self._colour = -1 if side is None else side
        start = rules.initial_state()
        self._initial = np.array([*start.bitboards(), start.current_player], dtype=np.uint64)
        self._pass = -1 if rules.pass_action is None else rules.pass_action
        self._cell_row, self._cell_col = _cell_squares(rules)
        n = self.num_envs
        self._state = np.zeros((n, 3), dtype=np.uint64)  # s0, s1, player to move
        self._learner = np.zeros(n, dtype=np.int64)
        self._rng = np.zeros(n, dtype=np.uint64)
        self._ended = np.zeros(n, dtype=np.bool_)
        self._opp = np.zeros(n, dtype=np.int64)  # each sub-env's opponent in the pool
        self._obs_shape = (n, rules.rows, rules.cols, 2)
        self._last_obs = np.zeros(self._obs_shape, dtype=np.int8)
        self._mask = np.zeros((n, rules.num_actions), dtype=np.int8)
        self._started = False
        self._called: set[str] = set()  # kernels called once (compiled or loaded by then)

    # --- gymnasium API ------------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new episodes in every sub-env (or those of ``options["reset_mask"]``).

        Args:
            seed: an int (sub-env ``i`` gets ``seed + i``), one seed per sub-env, or ``None``:
                each sub-env's random stream goes on (fresh entropy at the first reset).
            options: ``{"reset_mask": bool array (num_envs,)}`` resets only those sub-envs.

        Returns:
            The observations and the info (see the module docstring).
        """
        super().reset(seed=seed if isinstance(seed, (int, np.integer)) else None)
        which = self._reset_mask(options)
        if seed is not None or not self._started:  # else each sub-env's stream goes on
            seeds = self._seeds(seed)
            for i in np.flatnonzero(which):
                self._rng[i] = seed_rng(np.uint64(seeds[i]))
        self._ended[which] = True  # a step of these sub-envs starts their episodes
        nothing = np.zeros(self.num_envs, dtype=np.int64)
        obs, _, _, illegal = self._advance(nothing, which)
        self._started = True
        return obs, self._info(illegal)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play every sub-env's action, then its opponent's reply (see the module docstring).

        Args:
            actions: an integer array of shape ``(num_envs,)``.

        Returns:
            Observations, rewards (float64), terminated, truncated (always False) and info.

        Raises:
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
            ValueError: ``actions`` of another shape, or not integers.
        """
        if not self._started:
            raise gymnasium.error.ResetNeeded(
                "step() was called before reset(); call envs.reset() to start the episodes"
            )
        moves = np.asarray(actions)
        if moves.shape != (self.num_envs,) or not np.issubdtype(moves.dtype, np.integer):
            raise InvalidValueError(
                f"actions must be an integer array of shape ({self.num_envs},), got "
                f"{moves.dtype} of shape {moves.shape}"
            )
        everyone = np.ones(self.num_envs, dtype=np.bool_)
        obs, reward, terminated, illegal = self._advance(moves.astype(np.int64), everyone)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return obs, reward, terminated, truncated, self._info(illegal)

    def action_masks(self) -> np.ndarray:
        """The legal actions of every sub-env's learner: a fresh int8 ``(num_envs,
        num_actions)`` array, equal to the last ``info["action_mask"]``."""
        return cast("np.ndarray", self._mask.copy())

    # --- helpers --------------------------------------------------------------------------------

    def _advance(
        self, actions: np.ndarray, active: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Step the ``active`` sub-envs: the compiled step, then one call of each policy in
        the pool for the sub-envs where it is to move. Returns the observations, rewards,
        terminations and illegal-action flags (the other sub-envs keep their observations)."""
        n = self.num_envs
        obs, mask = self._last_obs.copy(), self._mask.copy()
        reward = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=np.bool_)
        illegal = np.zeros(n, dtype=np.bool_)
        waiting = np.zeros(n, dtype=np.bool_)
        tables = (self._pass, self.game.params, self._cell_row, self._cell_col)
        with self._compiling("step_some"):
            self._kernels["step_some"](
                active, actions, self._state, self._learner, self._rng, self._ended, self._opp,
                self._colour, self._pool_kinds, self._initial, self.game.params, self._pass,
                self._cell_row, self._cell_col, obs, mask, reward, terminated, illegal, waiting,
            )  # fmt: skip
        for member, policy in self._policies.items():
            rows = np.flatnonzero(waiting & (self._opp == member))
            if len(rows) == 0:
                continue
            their_obs = np.empty((len(rows), *self._obs_shape[1:]), dtype=np.int8)
            their_mask = np.empty((len(rows), self.game.num_actions), dtype=np.int8)
            with self._compiling("policy_views"):
                self._kernels["policy_views"](
                    rows, self._state, self._learner, *tables, their_obs, their_mask
                )
            replies = np.asarray(policy(their_obs, their_mask), dtype=np.int64).reshape(-1)
            _check_replies(policy, replies, their_mask)
            with self._compiling("policy_replies"):
                self._kernels["policy_replies"](
                    rows, replies, self._state, self._learner, self._ended, *tables, obs, mask,
                    reward, terminated, illegal,
                )  # fmt: skip
        self._last_obs, self._mask = obs, mask
        return obs, reward, terminated, illegal

    def _compiling(self, kernel: str) -> AbstractContextManager[None]:
        """A notice on stderr if the first call of ``kernel`` compiles it (numba's on-disk
        cache makes that the first run after installing only)."""
        if kernel in self._called:
            return nullcontext()
        self._called.add(kernel)
        return compile_notice(f"the batched env's {kernel} for {self.game.label}", 5)

    def _info(self, illegal: np.ndarray) -> dict[str, Any]:
        everyone = np.ones(self.num_envs, dtype=np.bool_)
        info: dict[str, Any] = {
            "action_mask": self._mask.copy(),
            "_action_mask": everyone,
            "learner": self._learner.copy(),
            "_learner": everyone.copy(),
        }
        if illegal.any():
            info["illegal_action"] = illegal
            info["_illegal_action"] = illegal.copy()
        return info

    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray:
        if not options or options.get("reset_mask") is None:
            return np.ones(self.num_envs, dtype=np.bool_)
        mask = np.asarray(options["reset_mask"])
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise InvalidValueError(
                f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), got "
                f"{mask.dtype} of shape {mask.shape}"
            )
        if not self._started and not mask.all():
            raise InvalidValueError(
                "the first reset() must start every sub-env: give no reset_mask"
            )
        return mask

    def _seeds(self, seed: int | Sequence[int] | None) -> np.ndarray:
        """One seed per sub-env (a uint64 each)."""
        n = self.num_envs
        if seed is None:
            entropy = np.random.SeedSequence().generate_state(n, dtype=np.uint64)
            return np.asarray(entropy, dtype=np.uint64)
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            if seed < 0:
                raise InvalidValueError(f"seed must be a non-negative integer, got {seed}")
            return cast(
                "np.ndarray", (np.arange(n, dtype=np.uint64) + np.uint64(seed)).astype(np.uint64)
            )
        seeds = list(seed) if isinstance(seed, Sequence) else [seed]
        if len(seeds) != n or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in seeds
        ):
            raise InvalidValueError(
                f"seed must be a non-negative int or a list of {n} of them, got {seed!r}"
            )
        return np.array(seeds, dtype=np.uint64)
