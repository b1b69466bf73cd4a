"""Self-play for stable-baselines3: the learner's past snapshots join its env's opponent pool.

:class:`SnapshotPool` is an SB3 callback for a learner trained on a
:class:`~boardzoo.envs.single_agent.BoardGameSingleAgentEnv`, whose ``opponent_pool`` supplies
one opponent per episode. Every ``every`` steps it saves the learner and adds the saved model to
the pool as an :class:`~boardzoo.agents.sb3_agent.SB3Agent` that samples its moves, keeping the
pool's first member (the ``random`` player the env starts with, say) and the ``keep`` newest
snapshots.
"""

from __future__ import annotations

from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

from boardzoo.agents.sb3_agent import SB3Agent
from boardzoo.envs.single_agent import BoardGameSingleAgentEnv

__all__ = ["SnapshotPool"]


class SnapshotPool(BaseCallback):
    """An SB3 callback that adds the learner's snapshots to its env's opponent pool.

    Args:
        env: the learner's env.
        folder: where the snapshots are saved, as ``snapshot_<step>.zip``.
        every: steps between snapshots (taken when the step count is a multiple).
        keep: the most snapshots kept in the pool, beside its first member.
        seed: snapshot ``snapshot_<step>`` samples its moves from seed ``seed + step``.
    """

    def __init__(
        self, env: BoardGameSingleAgentEnv, folder: Path, every: int, keep: int, seed: int
    ) -> None:
        super().__init__()
        self.env, self.folder, self.every, self.keep, self.seed = env, folder, every, keep, seed

    def _on_step(self) -> bool:
        step = self.num_timesteps
        if step % self.every == 0:
            path = self.folder / f"snapshot_{step}.zip"
            self.model.save(path)
            pool = self.env.opponent_pool
            pool.append(SB3Agent(str(path), deterministic=False, seed=self.seed + step))
            del pool[1 : max(1, len(pool) - self.keep)]  # the first member and the newest
        return True
