"""AlphaZero for boardzoo's games: the batched compiled search, the network and self-play.

This package's root imports no torch: :mod:`boardzoo.az.evaluator` (what the search asks of a
network) and :mod:`boardzoo.az.search` (the batched PUCT / Gumbel AlphaZero search) need only
numpy and numba. The torch parts (the network :class:`AZNet`, :class:`TorchEvaluator`, the model
files, the :class:`Learner`) are exported too, but torch is imported only when one of them is
first used.
"""

from typing import Any

from boardzoo.az.evaluator import (
    CallbackEvaluator,
    Evaluator,
    OracleEvaluator,
    Playouts,
    SB3Evaluator,
    UniformEvaluator,
    cell_squares,
    encode,
)
from boardzoo.az.replay import Batch, ReplayBuffer
from boardzoo.az.search import BatchedSearch, PUCTConfig, SearchResult
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
    "BatchedSearch",
    "CallbackEvaluator",
    "Evaluator",
    "Learner",
    "ModelFileError",
    "NetConfig",
    "OracleEvaluator",
    "PUCTConfig",
    "Playouts",
    "ReplayBuffer",
    "SB3Evaluator",
    "SearchResult",
    "SelfPlayConfig",
    "SelfPlayGames",
    "Symmetry",
    "TorchEvaluator",
    "TrainSettings",
    "TrainSummary",
    "UniformEvaluator",
    "cell_squares",
    "encode",
    "load_learner",
    "load_model",
    "pick_device",
    "play_games",
    "save_learner",
    "save_model",
    "symmetries",
    "train",
]
