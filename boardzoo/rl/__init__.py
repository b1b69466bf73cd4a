"""Reinforcement-learning helpers for stable-baselines3 (install ``boardzoo[rl]``)."""

from boardzoo.rl.evaluation import evaluate_policy_vs
from boardzoo.rl.features import BoardCNN
from boardzoo.rl.sb3_vec_env import SB3VecEnv

__all__ = ["BoardCNN", "SB3VecEnv", "evaluate_policy_vs"]
