"""A run folder's checkpoint, swapped in whole: a run killed at any moment resumes from its
last complete iteration (``checkpoint.new/`` is written, then renamed over ``checkpoint/``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

__all__ = ["CHECKPOINT_FORMAT", "commit_checkpoint", "recover_checkpoint"]

CHECKPOINT_FORMAT = 1  # of checkpoint/state.json


def recover_checkpoint(out: Path) -> None:
    """Finish or undo a checkpoint swap that a kill interrupted."""
    current, new, old = out / "checkpoint", out / "checkpoint.new", out / "checkpoint.old"
    if not current.exists() and old.exists():
        old.rename(current)
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)


def commit_checkpoint(out: Path, write: Callable[[Path], None]) -> None:
    """Write a checkpoint with ``write(folder)``, then swap it in (never a half-written one)."""
    current, new, old = out / "checkpoint", out / "checkpoint.new", out / "checkpoint.old"
    if new.exists():
        shutil.rmtree(new)
    new.mkdir(parents=True)
    write(new)
    if current.exists():
        current.rename(old)
    new.rename(current)
    if old.exists():
        shutil.rmtree(old)
