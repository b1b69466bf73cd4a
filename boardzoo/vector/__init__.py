"""Batched environments: every sub-env of a Gymnasium vector env stepped in one compiled call.

See :class:`~boardzoo.vector.env.BoardGameVectorEnv`, registered as the ``vector_entry_point``
of every single-agent id (``gymnasium.make_vec("boardzoo/Reversi-v0", num_envs=1024,
vectorization_mode="vector_entry_point")``), and :class:`~boardzoo.vector.policies.TorchPolicy`
for networks as opponents (imported on first use: it needs torch).
"""

from typing import Any

from boardzoo.vector.env import BoardGameVectorEnv, OpponentPolicy
from boardzoo.vector.opponents import COMPILED_OPPONENTS, OPPONENT_KINDS, compiled_opponent_code

__all__ = [
    "COMPILED_OPPONENTS",
    "OPPONENT_KINDS",
    "BoardGameVectorEnv",
    "OpponentPolicy",
    "TorchPolicy",
    "compiled_opponent_code",
]


def __getattr__(name: str) -> Any:
    if name == "TorchPolicy":
        from boardzoo.vector.policies import TorchPolicy  # (torch, an optional dependency)

        return TorchPolicy
    raise AttributeError(f"module 'boardzoo.vector' has no attribute {name!r}")
