"""The depth-first search compiled for one game and one choice of ideas.

:func:`compiled_tree` makes (or loads from numba's cache) the copy of the search
(:mod:`boardzoo.gametree.template`) for a game's kernels, the ideas of a
:class:`~boardzoo.gametree.settings.TreeSettings` and a plug-in's hooks (the defaults of
:mod:`boardzoo.gametree.hooks` where the plug-in has none); :func:`compiled_solver` the exact
mode's for a game, with the plug-in its spec names (:attr:`~boardzoo.games.spec.GameSpec.
tree_plugin`).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.gametree import exact_mode, hooks, template
from boardzoo.gametree.settings import EXACT, TreeSettings

__all__ = ["NET_TYPES", "compiled_solver", "compiled_tree", "tree_plugin"]

NET_TYPES = {"none": "none", "learned": "Tuple((i8[:, ::1], i8[::1], f4[:, :, ::1]))"}
_NODE = "i8(u8, u8, i8, u8, u8[::1], i8, i8, i8, i8, i8, i8[::1], i8[:, :, ::1], u8[:, ::1], {net})"


def tree_plugin(game: Game) -> ModuleType | None:
    """The module of the game's depth-first plug-in, or ``None``: the hooks' defaults."""
    name = game.spec.tree_plugin
    return importlib.import_module(name) if name is not None else None


def compiled_tree(
    game: Game, settings: TreeSettings, plugin: ModuleType | None = None
) -> dict[str, Any]:
    """The search's functions (``node``, ``search_root``, ``search_root_plain``, ``root_order``;
    with exact settings ``solve``, ``solve_net`` and ``solve_window`` too) compiled for ``game``
    with ``settings`` and ``plugin``'s hooks. ``node`` is typed for both evaluations at the
    horizon (``net`` ``None``: the game's; an n-tuple net's arrays: the learned one), or, in the
    exact mode, for those the plug-in orders moves with (its ``ORDER_NETS``; no evaluation by
    default)."""
    nets = tuple(NET_TYPES)
    if settings.exact:
        nets = getattr(plugin, "ORDER_NETS", ("none",))
    hook_functions = dict(hooks.HOOKS)
    constants: dict[str, Any] = settings.constants()
    if plugin is not None:
        hook_functions.update(
            {name: getattr(plugin, name) for name in hooks.HOOK_NAMES if hasattr(plugin, name)}
        )
        constants.update(plugin.CONSTANTS)
    templates = [
        template.count_node, template.scratch, template.order_moves, template.table_cut,
        template.etc_cut, template.node,
        template.search_root, template.search_root_plain, template.root_order,
        *hook_functions.values(),
    ]  # fmt: skip
    if settings.exact:
        templates += [
            exact_mode.solve_window, exact_mode.solve, exact_mode.solve_net, exact_mode._half,
        ]  # fmt: skip
    inline = ["count_node", "order_moves", "table_cut", "etc_cut"]
    inline += [name for name in hook_functions if name != "tree_horizon"]
    copies = specialise(templates, game.kernels, constants=constants, inline=inline)
    recursive = copies["node"]
    signatures = [_NODE.format(net=NET_TYPES[net]) for net in nets]
    if len(recursive.signatures) < len(signatures):
        for signature in signatures:
            recursive.compile(signature)
        recursive.disable_compile()  # calls of other types convert, never compile lazily
    return copies


def compiled_solver(game: Game) -> dict[str, Any]:
    """The game's exact solve (:func:`boardzoo.gametree.exact_mode.solve` and ``solve_net``),
    compiled with its plug-in."""
    return compiled_tree(game, EXACT, tree_plugin(game))
