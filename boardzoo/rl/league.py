"""A league of past copies of a learner: frozen snapshots that play as a batched env's opponents.

Self-play against the learner's own past copies, refreshed in turn, keeps the opponents close to
the learner's strength without chasing its latest weights. Each slot of a
:class:`SnapshotLeague` is an :class:`~boardzoo.learned.network.AZNet` of the learner's shape
whose moves are sampled from its policy (:class:`~boardzoo.vector.policies.TorchPolicy` through
the fused inference copy, :class:`PolicyLogits`); the slots' :attr:`SnapshotLeague.policies` go
into the env's opponent pool beside fixed opponents (``BoardGameVectorEnv(...,
opponent=[*fixed, *league.policies])``), which draws one per episode.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import torch
from torch import nn

from boardzoo.learned.network import AZNet
from boardzoo.learned.torch_evaluator import TorchEvaluator
from boardzoo.vector.policies import TorchPolicy

__all__ = ["PolicyLogits", "SnapshotLeague"]


class PolicyLogits:
    """A network's policy logits for board planes in the env's layout, through an evaluator.

    A :class:`~boardzoo.vector.policies.TorchPolicy` network: called with float planes
    ``(k, rows, cols, 2)``, it returns the logits ``(k, num_actions)`` of the evaluator's network
    (its fused inference copy, which follows the network's weights).

    Args:
        evaluator: the network's evaluator.
    """

    def __init__(self, evaluator: TorchEvaluator) -> None:
        self.evaluator = evaluator

    def __call__(self, planes: torch.Tensor) -> torch.Tensor:
        obs = planes.permute(0, 3, 1, 2).numpy()
        everything = np.ones((obs.shape[0], self.evaluator.num_actions), dtype=np.bool_)
        logits, _ = self.evaluator(obs, everything)
        return torch.from_numpy(logits)


class SnapshotLeague:
    """``size`` frozen copies of a learner, each an opponent that samples its moves.

    Every slot starts as a copy of ``learner``; :meth:`refresh` overwrites the slots in turn.

    Args:
        learner: the network the slots copy (their shape is its settings).
        size: the number of slots (0: an empty league).
        seed: slot ``k``'s moves are drawn from seed ``seed + 1 + k``.

    Attributes:
        nets: the slots' networks, in eval mode.
        policies: the slots as opponents of a batched env, in the order of :attr:`nets`.
        next_slot: the slot that the next :meth:`refresh` overwrites.
    """

    def __init__(self, learner: AZNet, size: int, seed: int) -> None:
        self.nets = [AZNet(learner.config).eval() for _ in range(size)]
        self.fill(learner)
        # (TorchPolicy runs any callable on tensors, a module or not)
        self.policies = [
            TorchPolicy(
                cast(nn.Module, PolicyLogits(TorchEvaluator(net))), deterministic=False,
                seed=seed + 1 + k,
            )
            for k, net in enumerate(self.nets)
        ]  # fmt: skip
        self.next_slot = 0

    def __len__(self) -> int:
        return len(self.nets)

    def fill(self, learner: AZNet) -> None:
        """Copy ``learner``'s weights into every slot (the evaluators see the new weights)."""
        for net in self.nets:
            net.load_state_dict(learner.state_dict())

    def refresh(self, learner: AZNet) -> None:
        """Copy ``learner`` into the next slot, then move on to the one after (a no-op when the
        league is empty)."""
        if self.nets:
            self.nets[self.next_slot].load_state_dict(learner.state_dict())
            self.next_slot = (self.next_slot + 1) % len(self.nets)
