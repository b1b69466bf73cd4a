"""Model files: plain tensors plus a JSON config, so loading a model never runs code.

A model is two files: ``model.pt``, the network's ``state_dict`` (tensors only) written by
``torch.save``, and ``model.json`` beside it (the same name with ``.json``): the
:class:`~boardzoo.learned.network.NetworkSettings` that rebuilds the network (under the key
``"config"``) and free-form metadata (the training command, iterations, games, date, boardzoo
version). Loading reads the tensors with ``torch.load(weights_only=True)``, which refuses any
pickled object other than tensors and plain containers, so a model file from a stranger cannot
execute anything, unlike pickled zips such as Stable-Baselines3's. Both files are written
atomically (a temporary file, then ``os.replace``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from boardzoo import __version__
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.learned.devices import pick_device
from boardzoo.learned.files import atomic_write, atomic_write_text
from boardzoo.learned.network import AZNet, NetworkSettings

__all__ = [
    "FORMAT",
    "ModelFileError",
    "atomic_torch_save",
    "atomic_write_text",
    "config_path",
    "load_model",
    "read_model_config",
    "read_model_for",
    "save_model",
]

FORMAT = "boardzoo-az-model"
_VERSION = 1


class ModelFileError(InvalidFileError):
    """A model file that cannot be loaded: missing, not plain tensors, inconsistent, or for
    another game. The message is one line naming the file and the reason."""


def config_path(path: str | os.PathLike[str]) -> Path:
    """The JSON file beside a model file: ``runs/az/model.pt`` -> ``runs/az/model.json``."""
    return Path(path).with_suffix(".json")


def atomic_torch_save(obj: object, path: str | os.PathLike[str]) -> None:
    """``torch.save(obj, path)`` atomically (temporary file and ``os.replace``)."""
    atomic_write(path, lambda file: torch.save(obj, file), "wb")


def _version() -> str:
    return str(__version__)


def save_model(
    path: str | os.PathLike[str],
    net: AZNet,
    config: NetworkSettings | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``net`` to ``path`` (tensors) and its config and metadata to ``path``'s ``.json``.

    Args:
        path: the model file, conventionally ``*.pt``; its folder is created.
        net: the network; its weights are saved from the CPU.
        config: the network's config (``None``: ``net.config``); must equal ``net.config``.
        metadata: JSON values about the model (training command, iterations, games, ...);
            ``boardzoo_version`` and ``saved_at`` (UTC, ISO 8601) are filled in when absent.

    Returns:
        The path of the model file.

    Raises:
        ValueError: when ``config`` is not the net's, or ``metadata`` is not JSON.
    """
    config = net.config if config is None else config
    if config != net.config:
        raise InvalidValueError(f"config {config} is not the network's config {net.config}")
    meta = dict(metadata or {})
    meta.setdefault("boardzoo_version", _version())
    meta.setdefault("saved_at", _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    document = {"format": FORMAT, "version": _VERSION, "config": config.to_dict(), "metadata": meta}
    try:
        text = json.dumps(document, indent=2, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InvalidValueError(f"metadata must hold JSON values only: {error}") from None
    path = Path(path)
    if path.suffix == ".json":
        raise InvalidValueError(f"the model file cannot be the .json config itself: {path}")
    weights = {name: tensor.detach().cpu().clone() for name, tensor in net.state_dict().items()}
    atomic_torch_save(weights, path)
    atomic_write_text(text + "\n", config_path(path))
    return path


def read_model_config(path: str | os.PathLike[str]) -> tuple[NetworkSettings, dict[str, Any]]:
    """The config and metadata of the model file ``path`` (its ``.json``), without the weights.

    Raises:
        ModelFileError: a missing or invalid JSON file.
    """
    json_path = config_path(path)
    try:
        text = json_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(f"{json_path}: the model's config file is missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ModelFileError(f"{json_path}: cannot read the model's config: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ModelFileError(f"{json_path}: not valid JSON ({error})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFileError(f"{json_path}: not a boardzoo model config (format {FORMAT!r})")
    if document.get("version") != _VERSION:
        raise ModelFileError(
            f"{json_path}: model format version {document.get('version')!r}, this boardzoo "
            f"reads {_VERSION}"
        )
    try:
        config = NetworkSettings.from_dict(document.get("config"))  # type: ignore[arg-type]  # (any JSON value: from_dict checks it)
    except (TypeError, ValueError) as error:
        raise ModelFileError(f"{json_path}: invalid network config: {error}") from None
    metadata = document.get("metadata", {})
    if not isinstance(metadata, dict):
        raise ModelFileError(f"{json_path}: metadata must be a JSON object")
    return config, metadata


def read_model_for(
    path: str | os.PathLike[str], game: Game | None = None
) -> tuple[NetworkSettings, dict[str, Any]]:
    """:func:`read_model_config` of the model file ``path``, which must exist and play ``game``
    (``None``: any game); a :class:`ModelFileError` naming the file otherwise."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    config, metadata = read_model_config(path)
    if game is not None and config.board_game is not game:
        raise ModelFileError(f"{path}: the model plays {config.board_game.label}, not {game.label}")
    return config, metadata


def load_model(
    path: str | os.PathLike[str],
    device: str | torch.device = "cpu",
    game: Game | None = None,
) -> tuple[AZNet, NetworkSettings, dict[str, Any]]:
    """Load a model written by :func:`save_model`, never unpickling anything but tensors.

    Args:
        path: the model file (its ``.json`` must lie beside it).
        device: where to put the network (a torch device or ``"cpu"``/``"cuda"``/``"auto"``).
        game: the game the model must play; ``None`` accepts any.

    Returns:
        ``(net, config, metadata)``; the net is in eval mode on ``device``.

    Raises:
        ModelFileError: (a ``ValueError``) a missing file, a missing or invalid JSON config, a
            file that is not plain tensors, weights that do not fit the config, or another game.
    """
    path = Path(path)
    config, metadata = read_model_for(path, game)
    try:
        weights = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # the unpickler refuses, or the file is not a torch file
        reason = " ".join(str(error).split())[:200]
        raise ModelFileError(f"{path}: not a file of plain tensors ({reason})") from None
    if not isinstance(weights, dict) or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in weights.items()
    ):
        raise ModelFileError(f"{path}: expected a dict of named tensors")
    net = AZNet(config)
    expected = net.state_dict()
    missing = sorted(set(expected) - set(weights))
    unexpected = sorted(set(weights) - set(expected))
    if missing or unexpected:
        raise ModelFileError(
            f"{path}: weights do not fit the config: missing {missing[:3]}, "
            f"unexpected {unexpected[:3]}"
        )
    for name, tensor in expected.items():
        if tuple(weights[name].shape) != tuple(tensor.shape):
            raise ModelFileError(
                f"{path}: shape mismatch for {name}: file {tuple(weights[name].shape)}, "
                f"config {tuple(tensor.shape)}"
            )
    net.load_state_dict(weights)
    target = device if isinstance(device, torch.device) else pick_device(device, set_threads=False)
    net.to(target).eval()
    return net, config, metadata
