"""AlphaZero agent: the batched compiled PUCT (or Gumbel) search guided by a trained network.

    agent = AlphaZeroAgent("runs/az8/model.pt", Budget(time_limit=1.0))
    agent.act(env); agent.last_search

The network comes from a model file written by :func:`boardzoo.learned.model_io.save_model` (plain
tensors and a JSON config, loaded with ``torch.load(weights_only=True)``: loading one never runs
code), or from the models shipped inside the package, by name (``"reversi-8x8"``), or chosen by
the game being played when no model is given. torch is imported when the agent first prepares
or moves, not when it is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from boardzoo import checks
from boardzoo.agents.base import Seed
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.settings import (
    SOLVER_THRESHOLDS,
    Budget,
    Endgame,
    PUCTSettings,
    TreeSettings,
)
from boardzoo.errors import InvalidValueError, require_module
from boardzoo.games.spec import Game
from boardzoo.learned.ntuple import has_net, load_net
from boardzoo.search.evaluators import Evaluator
from boardzoo.search.mixed_value import MixedValueEvaluator

__all__ = [
    "SHIPPED_MODELS_DIR",
    "AlphaZeroAgent",
    "model_value_mix",
    "shipped_model",
    "shipped_name",
]

# The models shipped with the package: <name>.pt and <name>.json, named by shipped_name(game).
SHIPPED_MODELS_DIR = Path(__file__).resolve().parent.parent / "learned" / "models"
_SEARCHES = ("puct", "gumbel")
_INSTALL_TORCH = "pip install torch (the CPU build will do)"


def shipped_name(game: Game) -> str:
    """The name of ``game``'s shipped model: ``"reversi-8x8"``, ``"tictactoe"``, ..."""
    return game.file_stem


def shipped_model(name: str) -> Path | None:
    """The file of the shipped model ``name``, or ``None`` if the package has none by that name."""
    path = SHIPPED_MODELS_DIR / f"{name}.pt"
    return path if path.is_file() else None


def _shipped_names() -> list[str]:
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted(p.stem for p in SHIPPED_MODELS_DIR.glob("*.pt"))


def model_value_mix(metadata: Mapping[str, Any], where: str) -> float:
    """The share of the learned evaluation that a model's values are mixed with by default: its
    metadata's ``"value_mix"`` (a number in [0, 1], set where it was measured), else 0.

    Raises:
        ValueError: a ``value_mix`` in the metadata that is not a number in [0, 1] (the message
            starts with ``where``, the model's file).
    """
    value = metadata.get("value_mix", 0.0)
    try:
        return checks.check_number("value_mix", value, 0.0, 1.0, False)
    except ValueError as error:
        raise InvalidValueError(f"{where}: {error}") from None


class AlphaZeroAgent(PUCTAgent):
    """AlphaZero search (PUCT or Gumbel) with a trained policy-value network.

    Args:
        model: a model file (``runs/az8/model.pt``, with its ``.json`` beside it), the name of
            a shipped model (``reversi-8x8``), or empty: the shipped model of the game played.
        budget: simulations and seconds per move (200 simulations when neither is given).
        puct: the search rule (PUCT or Gumbel), its constants and root noise.
        tree: workers, nodes per tree, tree reuse between moves (on by default; PUCT only) and
            the final-move rule.
        device: where the network runs: ``cpu``, ``cuda`` or ``auto``.
        value_mix: the share of the game's learned n-tuple evaluation in each leaf's value,
            beside the network's (AlphaGo's mixing: ``(1 - value_mix) * network +
            value_mix * evaluation``), in [0, 1]. None: the model's own (its file's metadata
            ``"value_mix"``, :func:`model_value_mix`: the shipped Reversi 8x8 model's is 1,
            measured), else 0.
        endgame: the handover to the game's exact solver, at the root and at the leaves: on by
            default at the game's own solver's thresholds (Reversi: the root from 20 empties,
            the leaves from 12).
        seed: seed of the search's randomness (ties, root noise).
    """

    name = "az"

    def __init__(
        self,
        model: str = "",
        budget: Budget = Budget(),
        puct: PUCTSettings = PUCTSettings(),
        tree: TreeSettings = TreeSettings(reuse_tree=True),
        device: Literal["cpu", "cuda", "auto"] = "cpu",
        value_mix: float | None = None,
        endgame: Endgame = Endgame(),
        seed: Seed = None,
    ) -> None:
        if not isinstance(model, str):
            raise checks.not_allowed("model", model, "a model file or a shipped model's name")
        self.model = model.strip()
        if self.model and shipped_model(self.model) is None:
            path = Path(self.model)
            if not path.is_file():
                shipped = ", ".join(_shipped_names()) or "none yet"
                raise InvalidValueError(
                    f"model={self.model!r} is neither a file nor a shipped model "
                    f"(shipped: {shipped})"
                )
        self.device = checks.check_choice("device", device, ("cpu", "cuda", "auto"))
        self.value_mix = checks.check_optional_number("value_mix", value_mix, 0.0, 1.0, False)
        self._setup(budget, puct, tree, "random", endgame, seed)

    def _endgame(self, game: Game) -> tuple[int, int]:
        """The handover's thresholds: the game's own solver's unless set."""
        return self.endgame.for_game(game, SOLVER_THRESHOLDS)

    def _model_file(self, game: Game) -> Path:
        if not self.model:
            path = shipped_model(shipped_name(game))
            if path is None:
                shipped = ", ".join(_shipped_names()) or "none yet"
                raise InvalidValueError(
                    f"az: no shipped model for {game.label} (shipped: {shipped}); give "
                    "model=PATH, a model trained with `boardzoo train`"
                )
            return path
        return shipped_model(self.model) or Path(self.model)

    def _make_evaluator(self, game: Game, seed: int) -> Evaluator:
        """The network of ``game``, loaded from its model file."""
        require_module("torch", "az", _INSTALL_TORCH)
        from boardzoo.learned.devices import pick_device  # (torch)
        from boardzoo.learned.model_io import load_model  # (torch, optional)
        from boardzoo.learned.torch_evaluator import TorchEvaluator  # (torch)

        net, _, metadata = load_model(
            self._model_file(game), device=pick_device(self.device, set_threads=False), game=game
        )
        network = TorchEvaluator(net, device=next(net.parameters()).device)
        weight = self._value_mix(game, metadata)
        if weight == 0.0:
            return network
        return MixedValueEvaluator(network, game, load_net(game), weight)

    def _value_mix(self, game: Game, metadata: Mapping[str, Any]) -> float:
        """The share of the learned evaluation: the agent's, else the model's (``metadata``);
        a ``ValueError`` where it is not 0 and ``game`` has no learned evaluation."""
        from boardzoo.learned.model_io import config_path  # (torch, optional)

        weight = self.value_mix
        if weight is None:
            weight = model_value_mix(metadata, str(config_path(self._model_file(game))))
        if weight != 0.0 and not has_net(game):
            raise InvalidValueError(
                f"value_mix={weight} needs a learned evaluation, and {game.label} has none: "
                "leave value_mix unset or 0"
            )
        return weight

    def check_game(self, game: Game) -> None:
        """The model for ``game`` is there and plays it, and the value mix fits the game (the
        model's config is read, not its weights)."""
        require_module("torch", "az", _INSTALL_TORCH)
        from boardzoo.learned.model_io import read_model_for  # (torch, optional)

        _, metadata = read_model_for(self._model_file(game), game)
        self._value_mix(game, metadata)

    def __repr__(self) -> str:
        budget = self.budget.text(self.default_simulations)
        return f"AlphaZeroAgent(model={self.model!r}, {budget}, search={self.puct.search!r})"
