"""Compile generic code once per game: templates that call ``kernels.<name>(...)``.

The compiled search, alpha-beta and greedy are plain Python functions (templates) that reach the
game through a module global called ``kernels``: ``kernels.placements(s0, s1, player, params)``
and the other functions of the game contract (:mod:`boardzoo.games.spec`). :func:`specialise`
makes a copy of the templates whose ``kernels`` is a given game's kernel module, compiles it with
numba (``cache=True``, ``nogil=True``) and remembers it, so every game gets its own machine code
with the game's kernels inlined, and no branch on the game is left in the generic code.

Each copy is named after the template, the game's kernel module and a digest of that module's
source file (and of the names and sources of any ``linked`` compiled functions it calls), so
numba's on-disk cache keeps one entry per game and drops it when the kernels change.
"""

from __future__ import annotations

import hashlib
import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from numba import njit

__all__ = ["specialise"]

# (templates' module, their names, the kernel module, the linked functions by name) -> copies
_SPECIALISED: dict[tuple[str, str, str, tuple[tuple[str, str], ...]], dict[str, Any]] = {}


def _digest(files: Sequence[str | None], names: Sequence[str] = ()) -> str:
    sources = b"".join(Path(file).read_bytes() for file in files if file)
    return hashlib.sha1(sources + "\n".join(names).encode()).hexdigest()[:10]


def _qualified(function: Any) -> str:
    """A compiled function's module and (specialised, so per-game) qualified name."""
    python = getattr(function, "py_func", function)
    return f"{python.__module__}.{python.__qualname__}"


def specialise(
    templates: Sequence[Callable[..., Any]],
    kernels: types.ModuleType,
    signatures: Mapping[str, str] | None = None,
    linked: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Compiled copies of ``templates`` (all from one module) that call ``kernels``.

    Templates may call each other by name: each copy calls the other copies. ``signatures``
    gives numba signatures by template name, compiled at once and only those; a recursive
    template needs one (numba's cache cannot reload a recursive function typed lazily).
    ``linked`` gives compiled functions (numba dispatchers, e.g. another specialised copy for
    the same game) the templates call by these names.
    Returns the copies by template name; the same arguments return the same copies.
    """
    signatures = signatures or {}
    module = templates[0].__module__
    names = tuple(t.__name__ for t in templates)
    linked = dict(linked or {})
    links = tuple(sorted((name, _qualified(function)) for name, function in linked.items()))
    key = (module, ",".join(names), kernels.__name__, links)
    if key in _SPECIALISED:
        return _SPECIALISED[key]
    files = [kernels.__file__, *(inspect.getsourcefile(f.py_func) for f in linked.values())]
    linked_names = [f"{name}={qualified}" for name, qualified in links]
    tag = f"{kernels.__name__.rpartition('.')[2]}_{_digest(files, linked_names)}"
    namespace = dict(templates[0].__globals__)
    namespace["kernels"] = kernels
    namespace.update(linked)
    copies: dict[str, Any] = {}
    for template in templates:
        if template.__module__ != module:
            raise ValueError(f"templates must come from one module: {template.__qualname__}")
        copy = types.FunctionType(
            template.__code__, namespace, f"{template.__name__}__{tag}", template.__defaults__
        )
        copy.__qualname__ = f"{template.__qualname__}__{tag}"
        copy.__module__ = module
        copy.__doc__ = template.__doc__
        copies[template.__name__] = njit(cache=True, nogil=True)(copy)
    namespace.update(copies)  # before compiling: a copy calls the others (or itself) by name
    for name, signature in signatures.items():
        copies[name].compile(signature)
        copies[name].disable_compile()  # calls of other types convert, never compile lazily
    _SPECIALISED[key] = copies
    return copies
