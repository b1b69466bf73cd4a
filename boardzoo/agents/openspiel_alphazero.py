"""OpenSpiel's AlphaZero checkpoints, read by OpenSpiel's own loader.

    boardzoo arena tictactoe openspiel:bot=az,checkpoint=runs/az-ttt/checkpoint-25 random

OpenSpiel's AlphaZero (``open_spiel.python.algorithms.alpha_zero``, JAX) writes a run directory:
``config.json`` (the game, the network's shape and API, the search's ``uct_c`` and
``max_simulations``) and ``checkpoint-N`` directories (orbax) beside it, ``checkpoint--1`` the
latest. :func:`load_checkpoint` reads the config as JSON (nothing in it is executed), builds the
network with OpenSpiel's model library and restores the weights with its ``load_checkpoint``;
:func:`alphazero_bot` is the MCTS bot OpenSpiel's own evaluation plays with it (Python
``MCTSBot`` with PUCT and the ``AlphaZeroEvaluator``, no noise).

JAX, Flax, Optax, Orbax and Chex are optional (``pip install 'boardzoo[openspiel-alphazero]'``):
without them the spec says so in one line.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import warnings
from pathlib import Path
from typing import Any

from boardzoo.errors import InvalidValueError

__all__ = ["OpenSpielCheckpoint", "alphazero_bot", "checkpoint_game", "load_checkpoint"]

_INSTALL = (
    "OpenSpiel's AlphaZero needs JAX, Flax, Optax, Orbax and Chex: "
    "pip install 'boardzoo[openspiel-alphazero]'"
)
_CHECKPOINT = re.compile(r"checkpoint-(-?\d+)")


@dataclasses.dataclass(frozen=True)
class OpenSpielCheckpoint:
    """A network OpenSpiel's AlphaZero trained, loaded.

    Attributes:
        game: the OpenSpiel game it was trained on (``config.json``'s ``game``).
        model: OpenSpiel's ``Model`` with the checkpoint's weights.
        uct_c: the search's exploration constant in training.
        max_simulations: the search's simulations a move in training.
        path: the checkpoint directory read.
    """

    game: str
    model: Any
    uct_c: float
    max_simulations: int
    path: Path


def _alphazero_modules() -> tuple[Any, Any]:
    """OpenSpiel's ``alpha_zero`` and ``alpha_zero.utils`` modules; a one-line error if the
    JAX side is not installed."""
    try:
        alpha_zero = importlib.import_module("open_spiel.python.algorithms.alpha_zero.alpha_zero")
        utils = importlib.import_module("open_spiel.python.algorithms.alpha_zero.utils")
    except ImportError:
        raise InvalidValueError(_INSTALL) from None
    return alpha_zero, utils


def _checkpoint_dir(checkpoint: str | Path) -> tuple[Path, str]:
    """The run directory and the step of ``checkpoint``: a ``checkpoint-N`` directory, or a
    run directory (its latest, ``checkpoint--1``, else the highest ``N``)."""
    path = Path(checkpoint)
    match = _CHECKPOINT.fullmatch(path.name)
    if match is not None and path.is_dir():
        return path.parent, match.group(1)
    if path.is_dir() and (path / "config.json").is_file():
        steps = sorted(
            int(m.group(1))
            for m in map(_CHECKPOINT.fullmatch, (p.name for p in path.iterdir() if p.is_dir()))
            if m is not None
        )
        if steps:
            return path, "-1" if -1 in steps else str(steps[-1])
    raise InvalidValueError(
        f"checkpoint={str(checkpoint)!r} is not allowed: it must be a checkpoint-N directory "
        "of an OpenSpiel AlphaZero run, or the run's directory (config.json and checkpoint-N)"
    )


def _read_config(run: Path, config_class: type) -> Any:
    """The run's ``config.json`` as OpenSpiel's ``Config``, its ``path`` the run directory."""
    config_file = run / "config.json"
    if not config_file.is_file():
        raise InvalidValueError(
            f"checkpoint: no config.json in {str(run)!r}: OpenSpiel's AlphaZero writes it "
            "beside its checkpoint-N directories, and the network's shape is read from it"
        )
    try:
        fields = json.loads(config_file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InvalidValueError(f"checkpoint: {str(config_file)!r} is not JSON: {error}") from None
    declared = dataclasses.fields(config_class)
    required = {f.name for f in declared if f.default is dataclasses.MISSING} - {"path"}
    missing = sorted(required - (set(fields) if isinstance(fields, dict) else set()))
    if missing:
        raise InvalidValueError(
            f"checkpoint: {str(config_file)!r} is not an OpenSpiel AlphaZero config: "
            f"it lacks {', '.join(missing)}"
        )
    fields = {f.name: fields[f.name] for f in declared if f.name in fields}
    fields["path"] = str(run)
    fields["observation_shape"] = tuple(fields["observation_shape"])
    return config_class(**fields)


def checkpoint_game(checkpoint: str | Path) -> str:
    """The OpenSpiel game a checkpoint was trained on, read from its run's ``config.json``
    (without loading the network or JAX)."""
    run, _ = _checkpoint_dir(checkpoint)
    config_file = run / "config.json"
    try:
        game = json.loads(config_file.read_text()).get("game")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        game = None
    if not isinstance(game, str):
        raise InvalidValueError(
            f"checkpoint: {str(config_file)!r} names no game: it is not an OpenSpiel "
            "AlphaZero config"
        )
    return game


def load_checkpoint(checkpoint: str | Path) -> OpenSpielCheckpoint:
    """Load an OpenSpiel AlphaZero checkpoint with OpenSpiel's own model library.

    Args:
        checkpoint: a ``checkpoint-N`` directory of an OpenSpiel AlphaZero run, or the run's
            directory (then its latest checkpoint).

    Raises:
        ValueError: no such checkpoint, no or a bad ``config.json``, or no JAX (one line).
    """
    run, step = _checkpoint_dir(checkpoint)
    alpha_zero, utils = _alphazero_modules()
    config = _read_config(run, alpha_zero.Config)
    with warnings.catch_warnings():  # its model modules warn which API they are, at import
        warnings.filterwarnings("ignore", "Pay attention that you've been using")
        model_library = utils.api_selector(config.nn_api_version)
    model = model_library.Model.build_model(
        config.nn_model,
        config.observation_shape,
        config.output_size,
        config.nn_width,
        config.nn_depth,
        config.weight_decay,
        config.learning_rate,
        config.path,
        decouple_weight_decay=config.decouple_weight_decay,
    )
    model.load_checkpoint(int(step))
    return OpenSpielCheckpoint(
        game=config.game,
        model=model,
        uct_c=float(config.uct_c),
        max_simulations=int(config.max_simulations),
        path=run / f"checkpoint-{step}",
    )


def alphazero_bot(
    spiel_game: Any, loaded: OpenSpielCheckpoint, simulations: int, c: float, seed: int
) -> Any:
    """OpenSpiel's AlphaZero bot as its evaluation plays it: Python ``MCTSBot``, PUCT child
    selection, the network's ``AlphaZeroEvaluator``, no root noise, no solving."""
    mcts = importlib.import_module("open_spiel.python.algorithms.mcts")
    evaluator = importlib.import_module("open_spiel.python.algorithms.alpha_zero.evaluator")
    import numpy as np

    return mcts.MCTSBot(
        spiel_game,
        c,
        simulations,
        evaluator.AlphaZeroEvaluator(spiel_game, loaded.model),
        solve=False,
        random_state=np.random.RandomState(seed),
        child_selection_fn=mcts.SearchNode.puct_value,
        dont_return_chance_node=True,
    )
