"""AlphaZero training for boardzoo's games: the network and its files, self-play, the learner.

The search it trains with is the search core's batched AlphaZero search
(:mod:`boardzoo.search.batched`, with what it asks of a network in
:mod:`boardzoo.search.evaluators`). This package's root imports no torch: the torch parts (the
network :class:`AZNet`, :class:`TorchEvaluator`, the model files, the :class:`Learner`) are
exported, but torch is imported only when one of them is first used.
"""

from typing import Any

from boardzoo.az.replay import Batch, ReplayBuffer
from boardzoo.az.selfplay import SelfPlayConfig, SelfPlayGames, play_games
from boardzoo.az.symmetry import Symmetry, symmetries
from boardzoo.az.train import TrainSettings, TrainSummary, train

# Exported names that need torch: imported from their module on first use.
_LAZY = {
    "AZNet": "network",
    "NetConfig": "network",
    "TorchEvaluator": "network",
    "pick_device": "network",
    "ModelFileError": "model_io",
    "load_model": "model_io",
    "save_model": "model_io",
    "Learner": "learner",
    "load_learner": "learner",
    "save_learner": "learner",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"boardzoo.az.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'boardzoo.az' has no attribute {name!r}")


__all__ = [
    "AZNet",
    "Batch",
    "Learner",
    "ModelFileError",
    "NetConfig",
    "ReplayBuffer",
    "SelfPlayConfig",
    "SelfPlayGames",
    "Symmetry",
    "TorchEvaluator",
    "TrainSettings",
    "TrainSummary",
    "load_learner",
    "load_model",
    "pick_device",
    "play_games",
    "save_learner",
    "save_model",
    "symmetries",
    "train",
]
