"""Copies of a PettingZoo AEC env for search: what they share with it, how they are made.

The copiers in :data:`COPIERS`, in the order they are tried, are ``copy.deepcopy`` and a deepcopy
of the env's attributes into a new instance of its class (for envs whose pickling rebuilds them
from their constructor arguments: gymnasium's ``EzPickle``, which PettingZoo's classic games
use). Both share what :func:`shared_memo` maps, the env's gymnasium spaces (the search never
samples them) and its pygame objects; a copy for search is made :func:`quiet` (it never renders).
Whether a copy keeps the game is checked by :mod:`boardzoo.agents.aec_clones`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

__all__ = ["COPIERS", "Copier", "quiet", "scratch_copy", "shared_memo"]


def _is_space(value: Any) -> bool:
    """Whether ``value`` is a gymnasium space (told by its classes, so gymnasium is not
    imported here: the agents layer loads no framework)."""
    return any(cls.__module__.startswith("gymnasium.spaces") for cls in type(value).__mro__)


def shared_memo(env: Any) -> dict[int, Any]:
    """A deepcopy memo that shares ``env``'s gymnasium spaces (and dicts of them), which the
    search never samples, and its pygame objects (screen, clock), which clones never use."""
    memo: dict[int, Any] = {}
    for value in getattr(env, "__dict__", {}).values():
        members = list(value.values()) if isinstance(value, dict) else [value]
        if type(value).__module__.partition(".")[0] == "pygame" or (
            members and all(_is_space(member) for member in members)
        ):
            memo[id(value)] = value
            memo.update((id(member), member) for member in members)
    return memo


def _deepcopy(env: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy(env)``, sharing what ``memo`` maps."""
    return copy.deepcopy(env, memo)


def _copy_attributes(env: Any, memo: dict[int, Any]) -> Any:
    """A new instance of ``env``'s class with a deepcopy of its attributes.

    Bypasses ``__getstate__``/``__setstate__``, which ``EzPickle`` makes rebuild the env from
    its constructor arguments instead of copying it.
    """
    clone = object.__new__(type(env))
    memo[id(env)] = clone
    vars(clone).update(copy.deepcopy(vars(env), memo))
    return clone


Copier = Callable[[Any, dict[int, Any]], Any]
COPIERS: tuple[tuple[str, Copier], ...] = (
    ("copy.deepcopy of it", _deepcopy),
    ("a deepcopy of its attributes", _copy_attributes),
)


def quiet(env: Any) -> Any:
    """``env`` with rendering switched off (a clone's moves must not draw)."""
    if getattr(env, "render_mode", None) is not None:
        env.render_mode = None
    return env


def scratch_copy(holder: Any) -> Any:
    """A copy of ``holder`` for set_state to fill: any copy will do, lost game or not."""
    failure: Exception | None = None
    for _, copier in COPIERS:
        try:
            return quiet(copier(holder, shared_memo(holder)))
        except Exception as error:
            failure = error
    raise failure or TypeError("no copier")
