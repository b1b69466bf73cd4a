"""Masked PPO on a batched env: a rollout of every sub-env, then PPO's clipped update.

The learner is a policy-value network (:class:`~boardzoo.learned.network.AZNet`). A rollout
(:func:`collect_rollout`) plays ``num_steps`` moves of every sub-env of a
:class:`~boardzoo.vector.env.BoardGameVectorEnv`, each sampled from the network's policy over the
legal moves only (illegal actions get no probability), on the board as
:class:`~boardzoo.rl.augment.BoardSymmetries` shows it; the advantages are generalized advantage
estimates. :func:`ppo_update` then takes ``epochs`` passes over the rollout in ``minibatches``
random minibatches, with the clipped objective, a value loss and an entropy bonus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from boardzoo.errors import InvalidValueError
from boardzoo.learned.network import AZNet
from boardzoo.learned.torch_evaluator import TorchEvaluator
from boardzoo.rl.augment import BoardSymmetries
from boardzoo.vector.env import BoardGameVectorEnv

__all__ = ["PPOSettings", "Rollout", "collect_rollout", "ppo_update"]

_MAX_GRAD_NORM = 0.5


@dataclass(frozen=True)
class PPOSettings:
    """PPO's settings.

    Args:
        num_steps: moves of each sub-env per rollout.
        epochs: passes over each rollout.
        minibatches: minibatches a pass.
        gamma: the discount.
        gae_lambda: the lambda of generalized advantage estimation.
        clip: the clip range of the probability ratio.
        entropy: the weight of the entropy bonus.
        value_coef: the weight of the value loss.

    Raises:
        InvalidValueError: ``num_steps``, ``epochs`` or ``minibatches`` below 1.
    """

    num_steps: int = 32
    epochs: int = 4
    minibatches: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5

    def __post_init__(self) -> None:
        for name in ("num_steps", "epochs", "minibatches"):
            if getattr(self, name) < 1:
                raise InvalidValueError(f"{name} must be at least 1, got {getattr(self, name)}")


@dataclass
class Rollout:
    """What one rollout gathered, flattened for the update (autoreset steps left out), and the
    observations and masks the next rollout starts from.

    Attributes:
        obs: float32 ``(m, planes, rows, cols)``: the boards the learner saw.
        mask: bool ``(m, num_actions)``: their legal moves.
        actions: int64 ``(m,)``: the moves it sampled there.
        logprobs: float32 ``(m,)``: their log-probabilities.
        advantages: float32 ``(m,)``: generalized advantage estimates.
        targets: float32 ``(m,)``: the value targets (advantage plus value).
        next_obs: the env's observations after the rollout.
        next_mask: the env's legal masks after the rollout.
        returns: the rewards of the episodes that ended during the rollout.
    """

    obs: torch.Tensor
    mask: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    advantages: torch.Tensor
    targets: torch.Tensor
    next_obs: np.ndarray
    next_mask: np.ndarray
    returns: list[float]


def collect_rollout(
    net: AZNet,
    evaluator: TorchEvaluator,
    envs: BoardGameVectorEnv,
    symmetries: BoardSymmetries,
    obs: np.ndarray,
    mask: np.ndarray,
    settings: PPOSettings,
) -> Rollout:
    """``settings.num_steps`` moves of every sub-env sampled from the learner's policy, with
    their advantages (GAE) and value targets.

    Args:
        net: the learner (put in eval mode).
        evaluator: ``net``'s evaluator (its fused inference copy plays the moves).
        envs: the batched env, reset.
        symmetries: the boards as the learner sees them.
        obs: the env's current observations ``(n, rows, cols, planes)``.
        mask: the env's current legal masks ``(n, num_actions)``.
        settings: the rollout's length and the discounts.

    Returns:
        The rollout, flattened (the steps of sub-envs that were being reset left out).
    """
    n, steps = obs.shape[0], settings.num_steps
    buffer_obs = np.empty((steps, *obs.shape), dtype=np.int8)
    buffer_mask = np.empty((steps, *mask.shape), dtype=np.bool_)
    actions = np.empty((steps, n), dtype=np.int64)
    logprobs = np.empty((steps, n), dtype=np.float32)
    values = np.empty((steps + 1, n), dtype=np.float32)
    rewards = np.empty((steps, n), dtype=np.float32)
    dones = np.empty((steps, n), dtype=np.float32)
    valid = np.empty((steps, n), dtype=np.bool_)  # False: an autoreset step, its action ignored
    returns_seen: list[float] = []
    legal = np.ones_like(mask, dtype=np.bool_)
    net.eval()
    with torch.inference_mode():
        for t in range(steps):
            legal = mask.astype(np.bool_)
            valid[t] = legal.any(axis=1)
            legal[~valid[t]] = True  # the action of an autoreset step is ignored: any will do
            seen, legal, to_env = symmetries.transform(obs, legal)
            raw, value = evaluator(seen.transpose(0, 3, 1, 2), legal)
            logits = torch.from_numpy(raw).masked_fill_(~torch.from_numpy(legal), -1e9)
            log_policy = torch.log_softmax(logits, dim=1)
            action = torch.multinomial(log_policy.exp(), 1)
            buffer_obs[t], buffer_mask[t] = seen, legal
            actions[t] = action.squeeze(1).numpy()
            logprobs[t] = log_policy.gather(1, action).squeeze(1).numpy()
            values[t] = value
            obs, reward, terminated, truncated, info = envs.step(to_env(actions[t]))
            mask = info["action_mask"]
            rewards[t], dones[t] = reward, terminated | truncated
            returns_seen.extend(reward[terminated].tolist())
        _, values[steps] = evaluator(obs.transpose(0, 3, 1, 2), np.ones_like(legal))
    advantages = np.zeros((steps, n), dtype=np.float32)
    running = np.zeros(n, dtype=np.float32)
    for t in reversed(range(steps)):
        carry = 1.0 - dones[t]
        delta = rewards[t] + settings.gamma * values[t + 1] * carry - values[t]
        running = delta + settings.gamma * settings.gae_lambda * carry * running
        advantages[t] = running
    targets = advantages + values[:steps]

    keep = valid.reshape(-1)
    flat_obs = torch.as_tensor(buffer_obs.reshape(-1, *obs.shape[1:])[keep], dtype=torch.float32)
    return Rollout(
        obs=flat_obs.permute(0, 3, 1, 2),
        mask=torch.as_tensor(buffer_mask.reshape(-1, mask.shape[1])[keep]),
        actions=torch.as_tensor(actions.reshape(-1)[keep]),
        logprobs=torch.as_tensor(logprobs.reshape(-1)[keep]),
        advantages=torch.as_tensor(advantages.reshape(-1)[keep]),
        targets=torch.as_tensor(targets.reshape(-1)[keep]),
        next_obs=obs,
        next_mask=mask,
        returns=returns_seen,
    )


def ppo_update(
    net: AZNet, optimizer: torch.optim.Optimizer, batch: Rollout, settings: PPOSettings
) -> dict[str, float]:
    """PPO's clipped update of ``net`` over ``batch``: ``settings.epochs`` passes in
    ``settings.minibatches`` random minibatches (torch's generator draws them).

    Args:
        net: the learner (put in train mode).
        optimizer: the optimizer of ``net``'s parameters.
        batch: the rollout to learn from.
        settings: the passes, the clip range and the losses' weights.

    Returns:
        The means over the minibatches of ``"policy"`` (the clipped policy loss), ``"value"``
        (the value loss), ``"entropy"`` and ``"kl"`` (the approximate KL divergence from the
        rollout's policy).
    """
    size = batch.actions.shape[0]
    net.train()
    figures: dict[str, list[float]] = {"policy": [], "value": [], "entropy": [], "kl": []}
    for _ in range(settings.epochs):
        for chosen in torch.tensor_split(torch.randperm(size), settings.minibatches):
            if len(chosen) < 2:  # (a rollout of autoreset steps only)
                continue
            logits, value = net(batch.obs[chosen])
            log_policy = torch.log_softmax(logits.masked_fill(~batch.mask[chosen], -1e9), dim=1)
            new_logprob = log_policy.gather(1, batch.actions[chosen, None]).squeeze(1)
            ratio = (new_logprob - batch.logprobs[chosen]).exp()
            advantage = batch.advantages[chosen]
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            clipped = ratio.clamp(1 - settings.clip, 1 + settings.clip)
            policy_loss = torch.max(-advantage * ratio, -advantage * clipped).mean()
            value_loss = 0.5 * ((value - batch.targets[chosen]) ** 2).mean()
            entropy = -(log_policy.exp() * log_policy).sum(dim=1).mean()
            loss = policy_loss + settings.value_coef * value_loss - settings.entropy * entropy
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), _MAX_GRAD_NORM)
            optimizer.step()
            with torch.no_grad():
                figures["kl"].append(float(((ratio - 1) - ratio.log()).mean()))
            figures["policy"].append(policy_loss.item())
            figures["value"].append(value_loss.item())
            figures["entropy"].append(entropy.item())
    return {key: float(np.mean(values)) for key, values in figures.items()}
