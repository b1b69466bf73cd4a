"""Networks as opponents of a batched env: one forward call a step for all the sub-envs they
play (self-play against frozen snapshots, leagues)."""

from __future__ import annotations

from typing import cast

import numpy as np
import torch
from torch import nn

__all__ = ["TorchPolicy"]


class TorchPolicy:
    """A torch network as a :class:`~boardzoo.vector.env.BoardGameVectorEnv` opponent.

    Called with the observations (int8 ``(k, rows, cols, 2)``, the opponent's pieces in plane 0)
    and masks (int8 ``(k, num_actions)``) of the ``k`` sub-envs where it is to move, it runs the
    network once on them (as float32) and returns one legal action per sub-env: the best masked
    logit (``deterministic``), or a draw from the masked softmax with its own seeded generator.

    Args:
        network: maps a float tensor ``(k, rows, cols, 2)`` to logits ``(k, num_actions)``
            (a module, or any callable on tensors); used in inference mode.
        deterministic: the best legal action, rather than a sample.
        seed: seeds the sampling.
        device: where the network runs.
    """

    def __init__(
        self,
        network: nn.Module,
        deterministic: bool = True,
        seed: int = 0,
        device: str | torch.device = "cpu",
    ) -> None:
        self.network = network
        self.deterministic = deterministic
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device).manual_seed(seed)

    @torch.inference_mode()
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        inputs = torch.as_tensor(obs, dtype=torch.float32, device=self.device)
        legal = torch.as_tensor(mask, device=self.device).bool()
        logits = self.network(inputs).float().masked_fill(~legal, -torch.inf)
        if self.deterministic:
            actions = logits.argmax(dim=1)
        else:
            probabilities = torch.softmax(logits, dim=1)
            actions = torch.multinomial(probabilities, 1, generator=self.generator).squeeze(1)
        return cast("np.ndarray", actions.cpu().numpy())

    def __repr__(self) -> str:
        return f"TorchPolicy({type(self.network).__name__}, deterministic={self.deterministic})"
