"""AlphaZero training for boardzoo's games: the network and its files, self-play, the learner.

The search it trains with is the search core's batched AlphaZero search
(:mod:`boardzoo.search.batched`, with what it asks of a network in
:mod:`boardzoo.search.evaluators`). This package's root imports no torch: the torch parts (the
network :class:`AZNet`, :class:`TorchEvaluator`, the model files, the :class:`Learner`) are
exported, but torch is imported only when one of them is first used. The network and its model
files live in :mod:`boardzoo.learned` (:mod:`~boardzoo.learned.network`,
:mod:`~boardzoo.learned.model_io`) beside the n-tuple nets, so the ``az`` agent reads them
without importing this training package. Training on a perfect player's labels rather than
self-play's targets takes its examples from :mod:`~boardzoo.az.solver_targets`, and
:func:`~boardzoo.az.deepen.deepened` grows a network by blocks that start as the identity.
"""

from typing import Any

from boardzoo.az.replay import Batch, ReplayBuffer
from boardzoo.az.selfplay import SelfPlayGames, SelfPlaySettings, play_games
from boardzoo.az.solver_targets import buffer_openings, draw_batch, load_examples, solver_targets
from boardzoo.az.train import TrainSettings, TrainSummary, train

# Exported names that need torch: imported from their module on first use.
_LAZY = {
    "AZNet": "boardzoo.learned.network",
    "NetworkSettings": "boardzoo.learned.network",
    "TorchEvaluator": "boardzoo.learned.torch_evaluator",
    "pick_device": "boardzoo.learned.devices",
    "ModelFileError": "boardzoo.learned.model_io",
    "load_model": "boardzoo.learned.model_io",
    "save_model": "boardzoo.learned.model_io",
    "Learner": "boardzoo.az.learner",
    "load_learner": "boardzoo.az.learner",
    "save_learner": "boardzoo.az.learner",
    "deepened": "boardzoo.az.deepen",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'boardzoo.az' has no attribute {name!r}")


__all__ = [
    "AZNet",
    "Batch",
    "Learner",
    "ModelFileError",
    "NetworkSettings",
    "ReplayBuffer",
    "SelfPlayGames",
    "SelfPlaySettings",
    "TorchEvaluator",
    "TrainSettings",
    "TrainSummary",
    "buffer_openings",
    "deepened",
    "draw_batch",
    "load_examples",
    "load_learner",
    "load_model",
    "pick_device",
    "play_games",
    "save_learner",
    "save_model",
    "solver_targets",
    "train",
]
