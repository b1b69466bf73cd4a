"""Register the envs with PettingZoo and Gymnasium once those are imported, not before.

``import boardzoo`` (and so ``import boardzoo.games``, which runs it first) must not pull
gymnasium and pettingzoo into the rules layer or into agent processes. So the envs are
registered at once if a framework is already imported, and otherwise as soon as the program
imports one: a finder on ``sys.meta_path`` wraps the loading of ``gymnasium`` and ``pettingzoo``
and registers after it (after the outer one, when pettingzoo imports gymnasium).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

from boardzoo.games import catalog
from boardzoo.games.spec import GameSpec

_FRAMEWORKS = ("gymnasium", "pettingzoo")


def _loading(name: str) -> bool:
    """Whether module ``name`` is being imported right now (its code still running)."""
    module = sys.modules.get(name)
    return module is not None and bool(getattr(module.__spec__, "_initializing", False))


def _register_if_ready(just_loaded: str = "") -> bool:
    """Register the envs unless a framework other than ``just_loaded`` (whose code has just run)
    is half imported; return whether it was done."""
    if any(_loading(name) for name in _FRAMEWORKS if name != just_loaded):
        return False
    from boardzoo.envs.registration import register_envs  # (gymnasium, pettingzoo: once imported)

    register_envs()
    return True


class _LoadThenRegister(importlib.abc.Loader):
    """Runs a framework's own loader, then registers the envs."""

    def __init__(self, loader: importlib.abc.Loader, finder: _FrameworkFinder) -> None:
        self.loader, self.finder = loader, finder

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        module.__loader__ = self.loader
        self.finder.loaded(module.__name__)


class _FrameworkFinder(importlib.abc.MetaPathFinder):
    """Finds gymnasium and pettingzoo through the other finders and wraps their loaders."""

    def __init__(self) -> None:
        self._finding = False

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _FRAMEWORKS or self._finding:
            return None
        self._finding = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return None
        spec.loader = _LoadThenRegister(spec.loader, self)
        return spec

    def loaded(self, name: str) -> None:
        if _register_if_ready(name) and self in sys.meta_path:
            sys.meta_path.remove(self)


def _game_registered(spec: GameSpec) -> None:
    register_on_framework_import()


def register_on_framework_import() -> None:
    """Register now if a framework is already imported, else when the first one is; and again
    for each game added to the catalog later (:func:`~boardzoo.games.catalog.register_game`)."""
    if _game_registered not in catalog.REGISTER_HOOKS:
        catalog.REGISTER_HOOKS.append(_game_registered)
    if any(name in sys.modules for name in _FRAMEWORKS) and _register_if_ready():
        return
    if not any(isinstance(finder, _FrameworkFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _FrameworkFinder())
