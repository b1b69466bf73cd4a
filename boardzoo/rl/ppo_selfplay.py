"""Self-play PPO's training state: the learner, its optimizer, its league and the batched env.

:class:`PPOSelfPlayRun` puts together what masked PPO by self-play trains with: the learner (an
:class:`~boardzoo.learned.network.AZNet`) and its Adam optimizer, a
:class:`~boardzoo.rl.league.SnapshotLeague` of its past copies, a
:class:`~boardzoo.vector.env.BoardGameVectorEnv` whose opponent pool is the fixed opponents and
the league (the learner's side drawn per episode), and the board symmetries the learner sees
(:class:`~boardzoo.rl.augment.BoardSymmetries`). Its :meth:`~PPOSelfPlayRun.rollout` and
:meth:`~PPOSelfPlayRun.learn` are :mod:`boardzoo.rl.ppo`'s, and a checkpoint in a run folder
(:meth:`~PPOSelfPlayRun.save`, :meth:`~PPOSelfPlayRun.load`) holds everything a resumed run needs.
``experiments/ppo_selfplay.py`` is the experiment built on it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardzoo.learned.model_io import atomic_torch_save, load_model, save_model
from boardzoo.learned.network import AZNet, NetworkSettings
from boardzoo.learned.torch_evaluator import TorchEvaluator
from boardzoo.rl.augment import BoardSymmetries
from boardzoo.rl.league import SnapshotLeague
from boardzoo.rl.ppo import PPOSettings, Rollout, collect_rollout, ppo_update
from boardzoo.vector.env import BoardGameVectorEnv

__all__ = ["CHECKPOINT", "PPOSelfPlayRun"]

CHECKPOINT = "checkpoint.pt"  # the training state's file in a run folder


class PPOSelfPlayRun:
    """The learner, its optimizer, the league and the batched env of one self-play PPO run.

    The learner's weights are drawn from torch's generator: seed it before building a run.

    Args:
        network: the learner's network (its game and options are the env's).
        num_envs: games played at once.
        league: the fixed opponents of the env's pool (compiled: ``random``, ``greedy``,
            ``alphabeta:depth=N``).
        snapshots: league slots that hold past copies of the learner.
        learning_rate: Adam's step size (change it with :meth:`set_learning_rate`).
        augment: show the learner each position in a random symmetry of the board.
        seed: seeds the symmetries and the snapshots' moves.
        ppo: the rollouts' length and the updates' settings.

    Attributes:
        net: the learner.
        evaluator: the learner's fused inference copy, which plays the rollouts.
        optimizer: the learner's optimizer.
        league: the past copies of the learner.
        envs: the batched env.
        symmetries: the symmetries the learner sees.
        update: the updates done.
        steps: the training steps done (moves of the learner, one per sub-env and rollout step).
        seconds: the training time so far (kept by the caller, saved in the checkpoint).
        evaluated_at: the training seconds at the last evaluation (kept by the caller, saved).
    """

    def __init__(
        self,
        network: NetworkSettings,
        num_envs: int,
        league: Sequence[str] = ("random",),
        snapshots: int = 0,
        *,
        learning_rate: float = 5e-4,
        augment: bool = True,
        seed: int = 0,
        ppo: PPOSettings | None = None,
    ) -> None:
        self.ppo = ppo or PPOSettings()
        self.seed = seed
        self.net = AZNet(network)
        self.evaluator = TorchEvaluator(self.net)  # fused inference, remade after each update
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=learning_rate, eps=1e-5)
        self.league = SnapshotLeague(self.net, snapshots, seed)
        self.envs = BoardGameVectorEnv(
            self.net.game, num_envs, opponent=[*league, *self.league.policies],
            learner_color="random",
        )  # fmt: skip
        self.symmetries = BoardSymmetries(self.net.game, augment, seed=seed)
        self.update = 0
        self.steps = 0
        self.seconds = 0.0
        self.evaluated_at = 0.0

    def set_learning_rate(self, learning_rate: float) -> None:
        """Set the optimizer's step size (a schedule's)."""
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def rollout(self, obs: np.ndarray, mask: np.ndarray) -> Rollout:
        """:func:`~boardzoo.rl.ppo.collect_rollout` of the learner from the env's ``obs`` and
        ``mask``."""
        return collect_rollout(
            self.net, self.evaluator, self.envs, self.symmetries, obs, mask, self.ppo
        )

    def learn(self, batch: Rollout) -> dict[str, float]:
        """:func:`~boardzoo.rl.ppo.ppo_update` of the learner over ``batch``."""
        return ppo_update(self.net, self.optimizer, batch, self.ppo)

    def refresh_snapshot(self) -> None:
        """Copy the learner into the league's next slot."""
        self.league.refresh(self.net)

    def start_from(self, path: str | os.PathLike[str]) -> None:
        """Load the weights of the model file ``path`` into the learner and every league slot."""
        net, _, _ = load_model(path)
        self.net.load_state_dict(net.state_dict())  # (the evaluators see the new weights)
        self.league.fill(net)

    def save(self, folder: Path, metadata: Mapping[str, Any]) -> Path:
        """Write the learner as a model file, ``models/model_<update>.pt`` and ``model.pt``, with
        ``metadata``, and the training state to ``checkpoint.pt`` in ``folder``.

        Returns:
            The path of ``models/model_<update>.pt``.
        """
        path = save_model(folder / "models" / f"model_{self.update}.pt", self.net,
                          metadata=metadata)  # fmt: skip
        save_model(folder / "model.pt", self.net, metadata=metadata)
        state = {
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "slots": [slot.state_dict() for slot in self.league.nets],
            "torch_rng": torch.get_rng_state(),
            "numbers": torch.tensor([self.update, self.steps, self.league.next_slot]),
            "seconds": torch.tensor([self.seconds, self.evaluated_at], dtype=torch.float64),
        }
        atomic_torch_save(state, folder / CHECKPOINT)
        return path

    def load(self, folder: Path) -> None:
        """Go on from the training state that :meth:`save` wrote to ``folder``: weights,
        optimizer, league, counters, torch's generator; the symmetries are drawn anew from the
        seed and the update."""
        state = torch.load(folder / CHECKPOINT, weights_only=True)
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        for slot, weights in zip(self.league.nets, state["slots"], strict=True):
            slot.load_state_dict(weights)
        torch.set_rng_state(state["torch_rng"])
        self.update, self.steps, self.league.next_slot = (int(v) for v in state["numbers"])
        self.seconds, self.evaluated_at = (float(v) for v in state["seconds"])
        self.symmetries.rng = np.random.default_rng([self.seed, 7, self.update])
