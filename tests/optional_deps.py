"""The optional dependencies some tests need: one pytest marker each (registered in
pyproject.toml), skipped with the way to install it when it is missing.

``pip install -e ".[test]"`` installs the core (numpy, numba, gymnasium, pettingzoo, pygame-ce,
...) and the test tools: the tests marked here are then skipped, each with its reason. A test
marked ``torch`` (or a module with ``pytestmark = pytest.mark.torch``) is skipped by the hook
in ``conftest.py``; a module that imports the dependency at its top also calls
:func:`require` before those imports, so that it skips, rather than fails, at collection.
"""

from __future__ import annotations

import functools
import importlib.util

import pytest

#: marker -> (the modules it needs, the reason to skip without them)
NEEDS: dict[str, tuple[tuple[str, ...], str]] = {
    "torch": (("torch",), "needs torch: pip install torch (the CPU build will do)"),
    "rl": (
        ("stable_baselines3", "sb3_contrib"),
        "needs the 'rl' extra (stable-baselines3, sb3-contrib): pip install -e '.[rl]'",
    ),
    "ray": (("ray",), "needs the 'ray' extra: pip install -e '.[ray]'"),
    "tianshou": (
        ("tianshou",),
        "needs Tianshou (the 'examples' extra): pip install -e '.[examples]'",
    ),
    "openspiel": (
        ("pyspiel",),
        "needs the 'openspiel' extra (OpenSpiel): pip install -e '.[openspiel]'",
    ),
    "openspiel_alphazero": (
        ("pyspiel", "jax", "flax", "optax", "orbax.checkpoint", "chex"),
        "needs the 'openspiel-alphazero' extra (OpenSpiel, JAX, Flax, Optax, Orbax, Chex): "
        "pip install -e '.[openspiel-alphazero]'",
    ),
    "docs": (
        ("mkdocs", "material", "mkdocstrings_handlers.python"),
        "needs the 'docs' extra (mkdocs, mkdocs-material, mkdocstrings): pip install -e '.[docs]'",
    ),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return False


@functools.cache
def missing(marker: str) -> str | None:
    """The reason to skip a test marked ``marker`` here, or None if all it needs is installed."""
    modules, reason = NEEDS[marker]
    return None if all(_installed(m) for m in modules) else reason


def require(*markers: str) -> None:
    """Skip the calling test module, at its import, unless every marker's dependency is there:
    for modules that import it at their top (call it before those imports)."""
    __tracebackhide__ = True  # the skip is reported at the caller's line
    for marker in markers:
        reason = missing(marker)
        if reason is not None:
            pytest.skip(reason, allow_module_level=True)
