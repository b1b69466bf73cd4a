"""Reinforcement learning on boardzoo's games (install ``boardzoo[rl]``).

Helpers for stable-baselines3 (:class:`SB3VecEnv`, :class:`BoardCNN`, :func:`evaluate_policy_vs`,
and :class:`SnapshotPool` for self-play against past snapshots), and masked PPO by self-play on
the batched env: the algorithm (:mod:`~boardzoo.rl.ppo`), the board symmetries the learner sees
(:mod:`~boardzoo.rl.augment`), the league of its past copies (:mod:`~boardzoo.rl.league`) and a
run's training state (:mod:`~boardzoo.rl.ppo_selfplay`).
Every name is imported from its module on first use, so ``import boardzoo.rl.ppo`` needs torch
but not stable-baselines3.
"""

from typing import Any

# Exported names, imported from their module on first use (torch, stable-baselines3).
_LAZY = {
    "ActionsToEnv": "boardzoo.rl.augment",
    "BoardSymmetries": "boardzoo.rl.augment",
    "BoardCNN": "boardzoo.rl.features",
    "PPOSelfPlayRun": "boardzoo.rl.ppo_selfplay",
    "PPOSettings": "boardzoo.rl.ppo",
    "PolicyLogits": "boardzoo.rl.league",
    "Rollout": "boardzoo.rl.ppo",
    "SB3VecEnv": "boardzoo.rl.sb3_vec_env",
    "SnapshotLeague": "boardzoo.rl.league",
    "SnapshotPool": "boardzoo.rl.snapshot_pool",
    "collect_rollout": "boardzoo.rl.ppo",
    "evaluate_policy_vs": "boardzoo.rl.evaluation",
    "ppo_update": "boardzoo.rl.ppo",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'boardzoo.rl' has no attribute {name!r}")


__all__ = [
    "ActionsToEnv",
    "BoardCNN",
    "BoardSymmetries",
    "PPOSelfPlayRun",
    "PPOSettings",
    "PolicyLogits",
    "Rollout",
    "SB3VecEnv",
    "SnapshotLeague",
    "SnapshotPool",
    "collect_rollout",
    "evaluate_policy_vs",
    "ppo_update",
]
