"""Play a saved stable-baselines3 model: ``SB3Agent(path)``, spec ``sb3:path=model.zip``.

The model sees what the single-agent envs give a learner: the ``(n, n, 2)`` int8 planes from the
side to move. Illegal actions are masked: MaskablePPO gets the mask directly; for other policies
the action probabilities (or DQN's Q-values) are restricted to the legal actions.

Warning: a saved SB3 model is a zip of pickled Python objects, and loading it runs that code.
Only load model files you trust.

:meth:`SB3Agent.prior` and :meth:`SB3Agent.value` plug a trained policy into MCTS's PUCT:
``MCTSAgent(prior_fn=agent.prior, value_fn=agent.value)``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.games import GameState

# Algorithms tried, in order, when ``algo="auto"``: (module, class).
ALGORITHMS = {
    "maskable_ppo": ("sb3_contrib", "MaskablePPO"),
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
}


def load_model(path: str | Path, algo: str = "auto") -> Any:
    """Load a saved SB3 model (runs pickled code: trusted files only)."""
    path = Path(path)
    if not path.exists() and not path.with_suffix(".zip").exists():
        raise FileNotFoundError(f"no SB3 model at {str(path)!r}")
    if algo != "auto" and algo not in ALGORITHMS:
        raise ValueError(f"algo must be 'auto' or one of {list(ALGORITHMS)}, got {algo!r}")
    names = list(ALGORITHMS) if algo == "auto" else [algo]
    errors = []
    for name in names:
        module_name, class_name = ALGORITHMS[name]
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except ImportError:
            raise ImportError(
                "SB3Agent needs stable-baselines3 and sb3-contrib: pip install 'boardzoo[rl]'"
            ) from None
        try:
            return cls.load(str(path), device="cpu")
        except (ValueError, KeyError, TypeError, AssertionError) as error:
            errors.append(f"{class_name}: {error}")
    raise ValueError(f"{str(path)!r} is not a model of {', '.join(names)}: " + "; ".join(errors))


class SB3Agent(Agent):
    """A trained stable-baselines3 policy as a player.

    Args:
        path: the ``.zip`` written by ``model.save`` (pickled code: load trusted files only).
        deterministic: play the most likely legal action; else sample from the masked policy.
        algo: ``"auto"`` (try MaskablePPO, PPO, A2C, DQN) or one of those names.
        seed: seed for sampling when ``deterministic`` is False.
    """

    name = "sb3"

    def __init__(
        self, path: str, deterministic: bool = True, algo: str = "auto", seed: Seed = None
    ) -> None:
        self.path = str(path)
        self.deterministic = bool(deterministic)
        self.model = load_model(path, algo)
        self._rng = make_rng(seed)

    @classmethod
    def from_model(cls, model: Any, deterministic: bool = True, seed: Seed = None) -> SB3Agent:
        """Wrap a model object in memory (no file), e.g. during training."""
        agent = cls.__new__(cls)
        agent.path = "<in memory>"
        agent.deterministic = bool(deterministic)
        agent.model = model
        agent._rng = make_rng(seed)
        return agent

    def act(self, env: Any) -> int:
        state = env_state(env)
        legal = legal_or_raise(state)
        probabilities = self.prior(state)
        if self.deterministic:
            return int(max(legal, key=lambda a: probabilities[a]))
        weights = probabilities[legal]
        return int(self._rng.choice(legal, p=weights / weights.sum()))

    def _observation(self, state: GameState) -> Any:
        """The planes of the side to move as a batch of one (preprocessed by the networks)."""
        import torch

        board = board_state(state, "SB3Agent")
        return torch.as_tensor(board.planes(board.current_player)[None])

    def prior(self, state: GameState) -> np.ndarray:
        """The policy's probabilities over all actions, restricted to the legal ones.

        Calls the networks directly (features, actor head) rather than through
        ``policy.get_distribution``: the same numbers, about 2.7 times faster
        (``benchmarks/bench_puct.py``), which matters when PUCT asks for a prior at every
        expansion.
        """
        import torch

        mask = state.legal_action_mask().astype(bool)
        policy = self.model.policy
        with torch.no_grad():
            observation = self._observation(state)
            if hasattr(self.model, "q_net"):  # DQN: a softmax of the Q-values
                scores = self.model.q_net(observation)[0]
            else:  # actor-critic: the action logits
                features = policy.extract_features(observation, policy.pi_features_extractor)
                scores = policy.action_net(policy.mlp_extractor.forward_actor(features))[0]
        scores = scores.cpu().numpy().astype(np.float64)
        scores = np.where(mask, np.exp(scores - scores[mask].max()), 0.0)
        return scores / scores.sum()

    def value(self, state: GameState) -> float:
        """The value head's estimate for the player to move, clipped to [-1, 1]."""
        import torch

        policy = self.model.policy
        if not hasattr(policy, "value_net"):
            raise ValueError(f"{type(self.model).__name__} has no value head")
        with torch.no_grad():
            features = policy.extract_features(
                self._observation(state), policy.vf_features_extractor
            )
            value = float(policy.value_net(policy.mlp_extractor.forward_critic(features))[0, 0])
        return max(-1.0, min(1.0, value))

    def __repr__(self) -> str:
        return f"SB3Agent(path={self.path!r}, deterministic={self.deterministic})"
