"""What every experiment script shares (CleanRL style): arguments from a dataclass, one seeding
block, and a run folder named after the experiment, game, seed and time."""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import time
import typing
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def _field_type(annotation: Any) -> tuple[Any, bool]:
    """(element type, is_sequence) of a dataclass field annotation."""
    origin = typing.get_origin(annotation)
    if origin in (tuple, list):
        return typing.get_args(annotation)[0], True
    return annotation, False


def parse_args(cls: type[T], argv: list[str] | None = None, description: str = "") -> T:
    """Build ``cls`` (a dataclass) from the command line; field docs become ``--help`` text.

    Field ``x_y`` becomes ``--x-y``; booleans are flags; tuple fields take several values.
    """
    hints = typing.get_type_hints(cls)
    parser = argparse.ArgumentParser(description=description)
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        flag = "--" + field.name.replace("_", "-")
        kind, many = _field_type(hints[field.name])
        default = field.default
        shown = " ".join(map(str, default)) if many else default
        help_text = f"{field.metadata.get('help', '')} (default: {shown})"
        if kind is bool:
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=default, help=help_text
            )
        else:
            nargs = "+" if many else None
            parser.add_argument(flag, type=kind, nargs=nargs, default=default, help=help_text)
    values = vars(parser.parse_args(argv))
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if isinstance(values[field.name], list):
            values[field.name] = tuple(values[field.name])
    return cls(**values)


def arg(default: Any, help: str) -> Any:
    """A dataclass field with its ``--help`` text."""
    return dataclasses.field(default=default, metadata={"help": help})


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and, if installed, PyTorch: the one seeding block."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:
        pass


def run_folder(root: str | Path, experiment: str, game: str, seed: int, args: Any) -> Path:
    """``root/<experiment>-<game>-seed<seed>-<YYYYmmdd-HHMMSS>``, created, with ``args.json``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = Path(root) / f"{experiment}-{game}-seed{seed}-{stamp}"
    folder.mkdir(parents=True, exist_ok=False)
    (folder / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2) + "\n")
    return folder
