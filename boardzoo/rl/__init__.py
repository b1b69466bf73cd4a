"""Reinforcement-learning helpers for stable-baselines3 (install ``boardzoo[rl]``)."""

from boardzoo.rl.evaluation import evaluate_policy_vs
from boardzoo.rl.features import BoardCNN

__all__ = ["BoardCNN", "evaluate_policy_vs"]
