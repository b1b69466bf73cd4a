"""Compile generic code once per game: templates that call ``kernels.<name>(...)``.

The compiled search, alpha-beta and greedy are plain Python functions (templates) that reach the
game through a module global called ``kernels``: ``kernels.placements(s0, s1, player, params)``
and the other functions of the game contract (:mod:`boardzoo.games.spec`). :func:`specialise`
makes a copy of the templates whose ``kernels`` is a given game's kernel module, compiles it with
numba (``cache=True``, ``nogil=True``) and remembers it, so every game gets its own machine code
with the game's kernels inlined, and no branch on the game is left in the generic code.

Templates may come from several modules (the search core's loop and its rules), and
``constants`` freezes module-level names of theirs at compile time: ``if RAVE:`` with
``constants={"RAVE": False}`` compiles to nothing, so an option that is off costs nothing in
that copy.

Each copy is named after the template, the game's kernel module and a digest of that module's
source file (and of the names and sources of any ``linked`` compiled functions it calls, and of
the ``constants``), so numba's on-disk cache keeps one entry per game and combination and drops
it when the kernels change.
"""

from __future__ import annotations

import hashlib
import inspect
import types
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from numba import njit

from boardzoo.errors import InvalidValueError

__all__ = ["specialise"]

Constant = bool | int | float
# (templates' modules, their names, the kernel module, the linked functions by name, the
# constants) -> copies
_SPECIALISED: dict[tuple[Any, ...], dict[str, Any]] = {}


def _digest(files: Sequence[str | None], names: Sequence[str] = ()) -> str:
    sources = b"".join(Path(file).read_bytes() for file in files if file)
    return hashlib.sha1(sources + "\n".join(names).encode()).hexdigest()[:10]


def _dependencies(templates: Sequence[Callable[..., Any]]) -> list[str]:
    """The source files of the compiled functions the templates call by a global name.

    Numba's cache checks only the file of the function it compiled, while the machine code of
    a copy holds its callees too: their files go into the copies' names, so a change to any of
    them makes new copies rather than loading stale ones.
    """
    files = set()
    for template in templates:
        for value in template.__globals__.values():
            python = getattr(value, "py_func", None)
            if python is not None:
                files.add(inspect.getsourcefile(python) or "")
    return sorted(file for file in files if file)


def _qualified(function: Any) -> str:
    """A compiled function's module and (specialised, so per-game) qualified name."""
    python = getattr(function, "py_func", function)
    return f"{python.__module__}.{python.__qualname__}"


def specialise(
    templates: Sequence[Callable[..., Any]],
    kernels: types.ModuleType | None,
    signatures: Mapping[str, str] | None = None,
    linked: Mapping[str, Any] | None = None,
    constants: Mapping[str, Constant] | None = None,
    inline: Collection[str] = (),
) -> dict[str, Any]:
    """Compiled copies of ``templates`` that call ``kernels`` (``None``: they call none).

    Templates may call each other by name, across their modules: each copy calls the other
    copies (so their names must differ). ``signatures``
    gives numba signatures by template name, compiled at once and only those; a recursive
    template needs one (numba's cache cannot reload a recursive function typed lazily).
    ``linked`` gives compiled functions (numba dispatchers, e.g. another specialised copy for
    the same game) the templates call by these names. ``constants`` gives module-level names
    of the templates (flags, sizes) a fixed value in these copies. Templates named in ``inline``
    are inlined into their callers by numba (no call: a small hot function taking a struct of
    many arrays would otherwise pass every array's fields on each call).
    Returns the copies by template name; the same arguments return the same copies.
    """
    signatures = signatures or {}
    modules = tuple(dict.fromkeys(t.__module__ for t in templates))
    names = tuple(t.__name__ for t in templates)
    if len(set(names)) != len(names):
        raise InvalidValueError(f"templates must have different names: {', '.join(names)}")
    linked = dict(linked or {})
    fixed = tuple(sorted((constants or {}).items()))
    inlined = tuple(sorted(inline))
    links = tuple(sorted((name, _qualified(function)) for name, function in linked.items()))
    kernels_name = kernels.__name__ if kernels is not None else "generic"
    key = (",".join(modules), ",".join(names), kernels_name, links, fixed, inlined)
    if key in _SPECIALISED:
        return _SPECIALISED[key]
    kernels_file = kernels.__file__ if kernels is not None else None
    files = [kernels_file, *(inspect.getsourcefile(f.py_func) for f in linked.values())]
    files += _dependencies(templates)
    files += sorted({inspect.getsourcefile(t) or "" for t in templates})  # copies call each other
    labels = [f"{name}={qualified}" for name, qualified in links]
    labels += [f"{name}={value!r}" for name, value in fixed]
    labels += [f"inline:{name}" for name in inlined]
    tag = f"{kernels_name.rpartition('.')[2]}_{_digest(files, labels)}"
    namespaces: dict[str, dict[str, Any]] = {}
    for template in templates:  # one namespace per module: its own globals, then what is shared
        if template.__module__ not in namespaces:
            namespace = dict(template.__globals__)
            if kernels is not None:
                namespace["kernels"] = kernels
            namespace.update(linked)
            namespace.update(fixed)
            namespaces[template.__module__] = namespace
    copies: dict[str, Any] = {}
    for template in templates:
        copy = types.FunctionType(
            template.__code__,
            namespaces[template.__module__],
            f"{template.__name__}__{tag}",
            template.__defaults__,
        )
        copy.__qualname__ = f"{template.__qualname__}__{tag}"
        copy.__module__ = template.__module__
        copy.__doc__ = template.__doc__
        how = "always" if template.__name__ in inlined else "never"
        copies[template.__name__] = njit(cache=True, nogil=True, inline=how)(copy)
    for namespace in namespaces.values():  # before compiling: a copy calls the others by name
        namespace.update(copies)
    for name, signature in signatures.items():
        copies[name].compile(signature)
        copies[name].disable_compile()  # calls of other types convert, never compile lazily
    _SPECIALISED[key] = copies
    return copies
