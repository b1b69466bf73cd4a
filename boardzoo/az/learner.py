"""The learner: one optimisation step of the network on a batch from the replay buffer.

The loss is AlphaZero's: the cross-entropy between the search's policy target and the softmax
of the network's logits over the legal actions, plus ``value_weight`` times the mean squared
error between the value and the game's result. Weight decay is the optimiser's (L2). Every batch
is augmented by the board's symmetries (:mod:`boardzoo.games.symmetry`): each sample is replaced by
a transform of itself, chosen at random from a seeded generator, observations, policy targets
and masks transformed together.

:meth:`Learner.state_dict` holds the network, the optimiser, the step count and the generator's
state as tensors and plain values, so :func:`save_learner`/:func:`load_learner` round-trip it
through ``torch.save`` and ``torch.load(weights_only=True)``, and a resumed run takes the same
steps as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

from boardzoo.az.replay import Batch
from boardzoo.checks import check_int, check_number
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.symmetry import symmetries
from boardzoo.learned.model_io import atomic_torch_save
from boardzoo.learned.network import AZNet

__all__ = ["OPTIMIZERS", "Learner", "load_learner", "save_learner"]

OPTIMIZERS = ("sgd", "adam", "adamw")
_FORMAT = "boardzoo-az-learner-1"


class Learner:
    """Trains an :class:`AZNet` one batch at a time, with symmetry augmentation.

    Args:
        net: the network (trained in place, on the device it is on).
        lr: the learning rate (> 0).
        weight_decay: L2 weight decay of the optimiser.
        optimizer: ``"sgd"`` (with ``momentum``, Nesterov when momentum > 0), ``"adam"`` or
            ``"adamw"``.
        momentum: SGD's momentum, in ``[0, 1)``.
        value_weight: the weight of the value loss against the policy loss.
        augment: transform each sample by a random board symmetry.
        seed: seeds the choice of symmetries.

    Attributes:
        net: the network.
        optimizer: the torch optimiser.
        steps: the number of steps taken.
    """

    def __init__(
        self,
        net: AZNet,
        lr: float = 0.01,
        weight_decay: float = 1e-4,
        optimizer: str = "sgd",
        momentum: float = 0.9,
        value_weight: float = 1.0,
        augment: bool = True,
        seed: int = 0,
    ) -> None:
        if not isinstance(net, AZNet):
            raise InvalidValueError(f"Learner needs an AZNet, got {type(net).__name__}")
        lr = check_number("lr", lr, 0.0, None, False)
        if lr == 0:
            raise InvalidValueError(f"lr must be > 0, got {lr!r}")
        weight_decay = check_number("weight_decay", weight_decay, 0.0, None, False)
        momentum = check_number("momentum", momentum, 0.0, None, False)
        if momentum >= 1:
            raise InvalidValueError(f"momentum must be in [0, 1), got {momentum!r}")
        self.value_weight = check_number("value_weight", value_weight, 0.0, None, False)
        if optimizer not in OPTIMIZERS:
            raise InvalidValueError(
                f"optimizer must be one of {list(OPTIMIZERS)}, got {optimizer!r}"
            )
        seed = check_int("seed", seed, 0)
        self.net = net
        self.optimizer_name = optimizer
        params = list(net.parameters())
        self.optimizer: torch.optim.Optimizer
        if optimizer == "sgd":
            self.optimizer = torch.optim.SGD(
                params, lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=momentum > 0
            )
        elif optimizer == "adam":
            self.optimizer = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
        else:
            self.optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
        self.augment = bool(augment)
        self.symmetries = symmetries(net.game)
        self._rng = np.random.default_rng(int(seed))
        self.steps = 0

    @property
    def device(self) -> torch.device:
        """The device of the network's weights."""
        return next(self.net.parameters()).device

    def set_lr(self, lr: float) -> None:
        """Change the learning rate (schedules), kept in the optimiser's state."""
        lr = check_number("lr", lr, 0.0, None, False)
        if lr == 0:
            raise InvalidValueError(f"lr must be > 0, got {lr!r}")
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def augmented(self, batch: Batch) -> Batch:
        """``batch`` with each sample transformed by a symmetry drawn from the generator.

        Draws one symmetry per sample even when there is only the identity, so the generator's
        sequence does not depend on the game. Returns ``batch`` itself when ``augment`` is off.
        """
        if not self.augment:
            return batch
        choice = self._rng.integers(0, len(self.symmetries), size=len(batch))
        obs, policy, mask = batch.obs.copy(), batch.policy.copy(), batch.mask.copy()
        for index, symmetry in enumerate(self.symmetries):
            rows = np.flatnonzero(choice == index)
            if rows.size and not symmetry.is_identity:
                obs[rows] = symmetry.apply_obs(batch.obs[rows])
                policy[rows] = symmetry.apply_policy(batch.policy[rows])
                mask[rows] = symmetry.apply_policy(batch.mask[rows])
        return Batch(obs=obs, policy=policy, value=batch.value, mask=mask)

    def losses(
        self, batch: Batch, train: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(loss, policy_loss, value_loss)`` of ``batch`` as it is (no augmentation).

        Args:
            batch: the samples.
            train: evaluate in train mode (batch statistics) with gradients; else eval mode
                without.
        """
        device = self.device
        obs = torch.from_numpy(np.ascontiguousarray(batch.obs, dtype=np.float32)).to(device)
        target = torch.from_numpy(np.ascontiguousarray(batch.policy, dtype=np.float32)).to(device)
        value = torch.from_numpy(np.ascontiguousarray(batch.value, dtype=np.float32)).to(device)
        mask = torch.from_numpy(np.ascontiguousarray(batch.mask, dtype=np.bool_)).to(device)
        self.net.train(train)
        with torch.set_grad_enabled(train):
            logits, predicted = self.net(obs)
            # Illegal actions get a very low logit, not -inf, so 0 * log p stays 0.
            masked = logits.masked_fill(~mask, -1e9)
            policy_loss = -(target * F.log_softmax(masked, dim=1)).sum(dim=1).mean()
            value_loss = F.mse_loss(predicted, value)
            loss = policy_loss + self.value_weight * value_loss
        return loss, policy_loss, value_loss

    def step(self, batch: Batch) -> dict[str, float]:
        """One optimiser step on ``batch`` (augmented by symmetries when ``augment`` is on).

        Args:
            batch: the samples (for example ``ReplayBuffer.sample(batch_size)``).

        Returns:
            ``{"loss", "policy_loss", "value_loss"}`` before the step, as floats.

        Raises:
            ValueError: when the batch's shapes do not fit the network, or it is empty.
        """
        game = self.net.game
        n = len(batch)
        if n == 0:
            raise InvalidValueError("cannot train on an empty batch")
        if batch.obs.shape != (n, *self.net.obs_shape):
            raise InvalidValueError(
                f"batch obs must be [{n}, {self.net.obs_shape}], got {batch.obs.shape}"
            )
        if batch.policy.shape != (n, game.num_actions) or batch.mask.shape != (n, game.num_actions):
            raise InvalidValueError(
                f"batch policy and mask must be [{n}, {game.num_actions}], got "
                f"{batch.policy.shape} and {batch.mask.shape}"
            )
        loss, policy_loss, value_loss = self.losses(self.augmented(batch), train=True)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()  # type: ignore[no-untyped-call]  # (torch's Tensor.backward is unannotated)
        self.optimizer.step()
        self.steps += 1
        return {
            "loss": float(loss.detach()),
            "policy_loss": float(policy_loss.detach()),
            "value_loss": float(value_loss.detach()),
        }

    def state_dict(self) -> dict[str, Any]:
        """The learner's state: tensors and plain values only (``weights_only`` loads it)."""
        return {
            "format": _FORMAT,
            "optimizer_name": self.optimizer_name,
            "net": {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()},
            "optimizer": self.optimizer.state_dict(),
            "steps": self.steps,
            "rng": json.dumps(self._rng.bit_generator.state),
            "augment": self.augment,
            "value_weight": self.value_weight,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s state (network, optimiser, steps, generator).

        Raises:
            ValueError: a state of another format or optimiser, or weights that do not fit.
        """
        if not isinstance(state, dict) or state.get("format") != _FORMAT:
            raise InvalidValueError(f"not a learner state (format {_FORMAT!r})")
        if state.get("optimizer_name") != self.optimizer_name:
            raise InvalidValueError(
                f"the state is of optimizer {state.get('optimizer_name')!r}, this learner "
                f"uses {self.optimizer_name!r}"
            )
        try:
            self.net.load_state_dict(state["net"])
        except RuntimeError as error:
            raise InvalidValueError(
                f"the state's weights do not fit the network: {error}"
            ) from None
        self.optimizer.load_state_dict(state["optimizer"])
        self.steps = int(state["steps"])
        self._rng.bit_generator.state = json.loads(state["rng"])
        self.augment = bool(state["augment"])
        self.value_weight = float(state["value_weight"])


def save_learner(learner: Learner, path: str | os.PathLike[str]) -> None:
    """Write ``learner.state_dict()`` to ``path`` atomically (``torch.save``)."""
    atomic_torch_save(learner.state_dict(), Path(path))


def load_learner(learner: Learner, path: str | os.PathLike[str]) -> None:
    """Restore ``learner`` from a file of :func:`save_learner` (``weights_only=True``).

    Raises:
        ValueError: a missing file, a file with anything but tensors and plain values, or a
            state that does not fit ``learner``.
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidFileError(f"{path}: no such learner state file")
    try:
        state = torch.load(path, map_location=learner.device, weights_only=True)
    except Exception as error:
        reason = " ".join(str(error).split())[:200]
        raise InvalidFileError(f"{path}: not a learner state of plain values ({reason})") from None
    learner.load_state_dict(state)
