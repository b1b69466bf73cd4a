"""Stable-baselines3's view of a batched env: ``SB3VecEnv(envs)`` for PPO, MaskablePPO, DQN.

SB3 algorithms take their own ``VecEnv`` type, whose conventions differ from Gymnasium's vector
envs: ``reset()`` returns the observations only, ``step_wait()`` returns a list of info dicts,
and a finished episode is reset in the same step (the new episode's first observation is
returned, the last one of the old episode is in ``info["terminal_observation"]``). The adapter
translates: after a step in which sub-envs ended, it resets just those
(``reset(options={"reset_mask": ...})``) before returning. sb3-contrib's MaskablePPO reads the
legal actions through ``env_method("action_masks")``, which answers with each sub-env's mask.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from boardzoo.errors import InvalidTypeError
from boardzoo.vector.env import BoardGameVectorEnv

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """A :class:`~boardzoo.vector.env.BoardGameVectorEnv` as a stable-baselines3 ``VecEnv``.

    Args:
        envs: the batched env (``gymnasium.make_vec(..., vectorization_mode=
            "vector_entry_point")``, or its ``unwrapped``).
    """

    def __init__(self, envs: Any) -> None:
        batched = getattr(envs, "unwrapped", envs)
        if not isinstance(batched, BoardGameVectorEnv):
            raise InvalidTypeError(
                f"SB3VecEnv wraps a boardzoo batched env (BoardGameVectorEnv), got "
                f"{type(batched).__name__}: make one with gymnasium.make_vec(id, num_envs, "
                "vectorization_mode='vector_entry_point')"
            )
        self.envs = batched
        self._actions = np.zeros(batched.num_envs, dtype=np.int64)
        self._masks = np.zeros((batched.num_envs, batched.game.num_actions), dtype=np.int8)
        super().__init__(
            batched.num_envs, batched.single_observation_space, batched.single_action_space
        )

    # --- the VecEnv interface -------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start every sub-env's episode (with the seeds of :meth:`seed`, if given)."""
        seeds = None if self._seeds[0] is None else [int(s) for s in self._seeds]
        obs, info = self.envs.reset(seed=seeds)
        self._reset_seeds()
        self._masks = info["action_mask"]
        self.reset_infos = [{"learner": int(side)} for side in info["learner"]]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, info = self.envs.step(self._actions)
        dones = terminated | truncated
        illegal = info.get("illegal_action", np.zeros(self.num_envs, dtype=np.bool_))
        infos: list[dict[str, Any]] = [
            {"TimeLimit.truncated": False, "illegal_action": bool(bad)} for bad in illegal
        ]
        masks = info["action_mask"]
        if dones.any():
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = obs[i].copy()
            fresh, reset_info = self.envs.reset(options={"reset_mask": dones})
            obs = np.where(dones[:, None, None, None], fresh, obs)
            masks = reset_info["action_mask"]
        self._masks = masks
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.envs.close()

    def action_masks(self) -> np.ndarray:
        """Every sub-env's legal actions now: int8 ``(num_envs, num_actions)``."""
        return cast("np.ndarray", self._masks.copy())

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The batched env's attribute ``attr_name``, once per sub-env of ``indices``."""
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._indices(indices))
        value = getattr(self.envs, attr_name)  # AttributeError: SB3's has_attr says False
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set ``attr_name`` on the batched env (shared by every sub-env)."""
        setattr(self.envs, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks``: each sub-env's mask (what MaskablePPO asks for); other methods are
        called once on the batched env and their result given to each sub-env."""
        chosen = self._indices(indices)
        if method_name == "action_masks":
            return list(self._masks[chosen])
        result = getattr(self.envs, method_name)(*method_args, **method_kwargs)
        return [result] * len(chosen)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        assert isinstance(indices, Iterable)
        return list(indices)
