"""The torch device a network runs on: CUDA when present, else the CPU with every core.

``OMP_NUM_THREADS``, when set, caps the CPU threads (to share the machine with other work).
"""

from __future__ import annotations

import os

import torch

from boardzoo.errors import InvalidValueError

__all__ = ["pick_device"]


def _cpu_threads() -> int:
    """``OMP_NUM_THREADS`` when it is a positive integer, else the number of cores."""
    given = os.environ.get("OMP_NUM_THREADS", "").strip()
    if given.isdigit() and int(given) > 0:
        return int(given)
    return max(1, os.cpu_count() or 1)


def pick_device(device: str = "auto", set_threads: bool = True) -> torch.device:
    """The torch device for ``"auto"`` (CUDA when present, else CPU), ``"cpu"`` or ``"cuda"``.

    On the CPU, torch is told to use every core (``torch.set_num_threads``) unless
    ``set_threads`` is false, or as many threads as the environment variable
    ``OMP_NUM_THREADS`` says when it is set (to share the machine with other work).

    Args:
        device: ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
        set_threads: on the CPU, set torch's thread count to the number of cores.

    Returns:
        The device.

    Raises:
        ValueError: an unknown name, or CUDA asked for where there is none.
    """
    if not isinstance(device, str):
        raise InvalidValueError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}")
    name = device.strip().lower()
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        if set_threads:
            torch.set_num_threads(_cpu_threads())
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise InvalidValueError(f"device {device!r} asked for, but CUDA is not available here")
        return torch.device(name)
    raise InvalidValueError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}")
