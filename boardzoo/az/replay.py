"""The replay buffer of self-play positions: a numpy ring buffer that saves and resumes exactly.

Each entry is one position seen in self-play: its observation (int8 planes ``[2, rows, cols]``,
the player to move first), the search's policy target, the game's final result from the mover's
point of view (the value target) and the legal-action mask. When full, new entries overwrite the
oldest. Sampling is uniform with replacement from a seeded generator; :meth:`ReplayBuffer.save`
writes the entries, the ring position, the counters and the generator's state with
``np.savez`` (no pickle), so a buffer loaded from it samples the same batches as one that was
never interrupted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.checks import check_int
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.learned.files import atomic_write

__all__ = ["Batch", "ReplayBuffer"]

_FORMAT = "boardzoo-az-replay-1"


@dataclass(frozen=True)
class Batch:
    """A batch of training samples (numpy arrays, batch axis first).

    Attributes:
        obs: float32 ``[B, 2, rows, cols]`` observations.
        policy: float32 ``[B, num_actions]`` policy targets (each row sums to 1, zero where
            illegal).
        value: float32 ``[B]`` value targets in ``[-1, 1]`` for the player to move.
        mask: bool ``[B, num_actions]`` legal actions.
    """

    obs: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    mask: np.ndarray

    def __len__(self) -> int:
        return int(self.value.shape[0])


class ReplayBuffer:
    """A ring buffer of ``capacity`` training samples with seeded uniform sampling.

    Args:
        capacity: the most entries kept; older ones are overwritten.
        obs_shape: one observation's shape, ``(2, rows, cols)``.
        num_actions: the game's number of actions.
        seed: seeds the sampling generator (same seed and adds, same batches).

    Attributes:
        capacity: the most entries kept.
        obs_shape: one observation's shape.
        num_actions: the number of actions.
        added: how many entries were ever added (also counts overwritten ones).
    """

    def __init__(
        self, capacity: int, obs_shape: Sequence[int], num_actions: int, seed: int = 0
    ) -> None:
        self.capacity = check_int("capacity", capacity, 1)
        shape = tuple(obs_shape)
        if not shape or not all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1 for n in shape
        ):
            raise InvalidValueError(f"obs_shape must be positive integers, got {obs_shape!r}")
        self.obs_shape: tuple[int, ...] = tuple(int(n) for n in shape)
        self.num_actions = check_int("num_actions", num_actions, 1)
        self.seed = check_int("seed", seed, 0)
        self._obs = np.zeros((self.capacity, *self.obs_shape), dtype=np.int8)
        self._policy = np.zeros((self.capacity, self.num_actions), dtype=np.float32)
        self._value = np.zeros(self.capacity, dtype=np.float32)
        self._mask = np.zeros((self.capacity, self.num_actions), dtype=bool)
        self._position = 0  # where the next entry goes
        self._size = 0
        self.added = 0
        self._rng = np.random.default_rng(self.seed)

    def __len__(self) -> int:
        return self._size

    @property
    def position(self) -> int:
        """The ring index that the next entry overwrites."""
        return self._position

    def add(self, obs: np.ndarray, policy: np.ndarray, value: np.ndarray, mask: np.ndarray) -> None:
        """Append a batch of entries (the oldest are overwritten once full).

        Args:
            obs: ``[n, *obs_shape]`` observations of 0s and 1s (stored as int8).
            policy: float ``[n, num_actions]`` policy targets.
            value: float ``[n]`` value targets in ``[-1, 1]``.
            mask: ``[n, num_actions]`` legal actions (bool or 0/1).

        Raises:
            ValueError: for shapes that do not agree, observations other than 0/1, values out of
                ``[-1, 1]`` or non-finite, or policies with negative entries.
        """
        obs = np.asarray(obs)
        policy = np.asarray(policy, dtype=np.float32)
        value = np.asarray(value, dtype=np.float32).reshape(-1)
        mask = np.asarray(mask)
        n = value.shape[0]
        if obs.shape != (n, *self.obs_shape):
            raise InvalidValueError(
                f"obs must be [{n}, {', '.join(map(str, self.obs_shape))}], got {obs.shape}"
            )
        if policy.shape != (n, self.num_actions) or mask.shape != (n, self.num_actions):
            raise InvalidValueError(
                f"policy and mask must be [{n}, {self.num_actions}], got {policy.shape} and "
                f"{mask.shape}"
            )
        if n and not np.isin(obs, (0, 1)).all():
            raise InvalidValueError("obs must hold 0s and 1s only (piece planes)")
        if not (np.isfinite(value).all() and (np.abs(value) <= 1).all()):
            raise InvalidValueError(
                f"values must be finite and in [-1, 1], got {value[:8].tolist()}..."
            )
        if not np.isfinite(policy).all() or (policy < 0).any():
            raise InvalidValueError("policy targets must be finite and non-negative")
        if n > self.capacity:  # only the last `capacity` entries would survive
            skip = n - self.capacity
            obs, policy, value, mask = obs[skip:], policy[skip:], value[skip:], mask[skip:]
            self.added += skip
            self._position = (self._position + skip) % self.capacity
            n = self.capacity
        index = (self._position + np.arange(n)) % self.capacity
        self._obs[index] = obs
        self._policy[index] = policy
        self._value[index] = value
        self._mask[index] = mask.astype(bool)
        self._position = int((self._position + n) % self.capacity)
        self._size = min(self.capacity, self._size + n)
        self.added += n

    def sample(self, batch_size: int) -> Batch:
        """A batch drawn uniformly with replacement (the generator advances).

        Args:
            batch_size: the number of samples.

        Returns:
            A :class:`Batch` of copies (observations as float32).

        Raises:
            ValueError: for a batch size below 1 or an empty buffer.
        """
        batch_size = check_int("batch_size", batch_size, 1)
        if self._size == 0:
            raise InvalidValueError("cannot sample from an empty replay buffer")
        index = self._rng.integers(0, self._size, size=batch_size)
        return Batch(
            obs=self._obs[index].astype(np.float32),
            policy=self._policy[index].copy(),
            value=self._value[index].copy(),
            mask=self._mask[index].copy(),
        )

    def entries(self) -> Batch:
        """Every entry the buffer holds, as one :class:`Batch` of copies (observations as
        float32), in ring order."""
        size = self._size
        return Batch(
            obs=self._obs[:size].astype(np.float32),
            policy=self._policy[:size].copy(),
            value=self._value[:size].copy(),
            mask=self._mask[:size].copy(),
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the buffer to ``path`` (an ``.npz``) atomically: entries, ring, counters, RNG.

        Args:
            path: the file to write (``np.savez`` adds no suffix to an open file).
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": _FORMAT,
            "capacity": self.capacity,
            "obs_shape": list(self.obs_shape),
            "num_actions": self.num_actions,
            "seed": self.seed,
            "position": self._position,
            "size": self._size,
            "added": self.added,
            "rng": self._rng.bit_generator.state,
        }
        arrays: dict[str, Any] = {
            "meta": np.array(json.dumps(meta)),
            "obs": self._obs[: self._size],
            "policy": self._policy[: self._size],
            "value": self._value[: self._size],
            "mask": self._mask[: self._size],
        }
        atomic_write(path, lambda file: np.savez(file, **arrays), "wb")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ReplayBuffer:
        """A buffer written by :meth:`save`, in the same state (``allow_pickle=False``).

        Args:
            path: the file.

        Returns:
            The buffer.

        Raises:
            ValueError: a missing file, a file that is not a replay buffer, or arrays that do not
                agree with its header.
        """
        path = Path(path)
        if not path.is_file():
            raise InvalidFileError(f"{path}: no such replay buffer file")
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"][()]))
                arrays = {name: data[name] for name in ("obs", "policy", "value", "mask")}
        except (OSError, KeyError, ValueError) as error:
            reason = " ".join(str(error).split())[:160]
            raise InvalidFileError(f"{path}: not a replay buffer file ({reason})") from None
        if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
            raise InvalidFileError(f"{path}: not a replay buffer file (format {_FORMAT!r})")
        buffer = cls(meta["capacity"], meta["obs_shape"], meta["num_actions"], meta["seed"])
        size, position = int(meta["size"]), int(meta["position"])
        if not (0 <= size <= buffer.capacity and 0 <= position < buffer.capacity):
            raise InvalidFileError(f"{path}: ring size {size} / position {position} out of range")
        expected = {
            "obs": ((size, *buffer.obs_shape), np.int8),
            "policy": ((size, buffer.num_actions), np.float32),
            "value": ((size,), np.float32),
            "mask": ((size, buffer.num_actions), np.bool_),
        }
        for name, (shape, dtype) in expected.items():
            if arrays[name].shape != shape or arrays[name].dtype != dtype:
                raise InvalidFileError(
                    f"{path}: {name} is {arrays[name].dtype}{list(arrays[name].shape)}, "
                    f"expected {np.dtype(dtype)}{list(shape)}"
                )
        buffer._obs[:size] = arrays["obs"]
        buffer._policy[:size] = arrays["policy"]
        buffer._value[:size] = arrays["value"]
        buffer._mask[:size] = arrays["mask"]
        buffer._size, buffer._position, buffer.added = size, position, int(meta["added"])
        buffer._rng.bit_generator.state = meta["rng"]
        return buffer
