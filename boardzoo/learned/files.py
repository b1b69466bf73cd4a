"""Atomic file writes: a temporary file in the same folder, synced, then ``os.replace``.

A run killed while writing leaves the old file (or none), never a half-written one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["atomic_write", "atomic_write_text"]


def atomic_write(path: str | os.PathLike[str], write: Callable[[Any], object], mode: str) -> None:
    """Call ``write(file)`` on a temporary file opened with ``mode``, then move it to ``path``
    (its folder is created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, mode) as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def atomic_write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write(path, lambda file: file.write(text), "w")
