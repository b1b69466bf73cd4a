"""Batched environments: every sub-env of a Gymnasium vector env stepped in one compiled call.

See :class:`~boardzoo.vector.env.BoardGameVectorEnv`, registered as the ``vector_entry_point``
of every single-agent id (``gymnasium.make_vec("boardzoo/Reversi-v0", num_envs=1024,
vectorization_mode="vector_entry_point")``).
"""

from boardzoo.vector.env import BoardGameVectorEnv
from boardzoo.vector.kernels import OPPONENT_KINDS

__all__ = ["OPPONENT_KINDS", "BoardGameVectorEnv"]
