"""The search core (``boardzoo.search``): its layering, tree reuse and its one-rule re-rooting.

Oracles: the set of modules a fresh interpreter has loaded; positions reached by playing the
actions along a path with the rules (never the tree's own bookkeeping alone).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.search import Rules, TreeSearch
from boardzoo.search import tree as tr
from boardzoo.search.reroot import REUSE_MOVES, nodes_within

HEAVY = ("gymnasium", "pettingzoo", "torch", "pygame", "stable_baselines3", "ray")


@pytest.mark.parametrize("module", ["boardzoo.games", "boardzoo.search", "boardzoo.agents"])
def test_the_lower_layers_load_no_framework(module):
    code = f"import sys, {module}; print([m for m in {HEAVY!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]", f"{module} loads {out.stdout.strip()}"


def subtree_by_actions(tree: tr.Tree, node: int, line: tuple[int, ...] = ()) -> dict:
    """Every node below ``node`` keyed by the actions that lead there from it."""
    found = {line: (int(tree.visits[0, node]), float(tree.value[0, node]))}
    first = int(tree.first_child[0, node])
    if first != tr.NO_NODE:
        for child in range(first, first + int(tree.num_expanded[0, node])):
            action = int(tree.action[0, child])
            found.update(subtree_by_actions(tree, child, (*line, action)))
    return found


def position_of(state, tree: tr.Tree, node: int):
    """The position of ``node``, by playing the actions of its path from ``state``."""
    actions = []
    while int(tree.parent[0, node]) != tr.NO_NODE:
        actions.append(int(tree.action[0, node]))
        node = int(tree.parent[0, node])
    for action in reversed(actions):
        state = state.apply(action)
    return state


@pytest.mark.parametrize("threads", [1, 2])
def test_every_node_holds_the_position_its_path_reaches(threads):
    state = ReversiState.initial(6)
    search = TreeSearch(Rules(threads=threads), 50_000, seed=3)
    search.set_root(state, reuse=False)
    search.run(3000, None)
    tree = search.tree
    for node in nodes_within(tree, 0, 3):
        reached = position_of(state, tree, int(node))
        s0, s1 = reached.bitboards()
        assert int(tree.s0[0, node]) == s0 and int(tree.s1[0, node]) == s1
        assert int(tree.player[0, node]) == reached.current_player


@pytest.mark.parametrize("threads", [1, 2])
def test_reuse_keeps_exactly_the_subtree_of_the_position_played(threads):
    state = TicTacToeState()
    search = TreeSearch(Rules(solver=True, threads=threads), 100_000, seed=1)
    search.set_root(state, reuse=False)
    search.run(4000, None)
    tree = search.tree
    # Two plies down the most visited line: the agent's move and the opponent's reply.
    first = max(search.root_children(), key=lambda c: c.visits).action
    node = search._child_with_action(0, first)
    grand_first = int(tree.first_child[0, node])
    reply_node = max(
        range(grand_first, grand_first + int(tree.num_expanded[0, node])),
        key=lambda c: int(tree.visits[0, c]),
    )
    reply = int(tree.action[0, reply_node])
    before = subtree_by_actions(tree, reply_node)
    played = state.apply(first).apply(reply)
    assert search.set_root(played, reuse=True)
    after = subtree_by_actions(search.tree, 0)
    assert after == before
    assert search.nodes_used() < 4000 + 10
    # The kept tree is a tree of the position played: every node's path reaches its position.
    for kept in nodes_within(search.tree, 0, 2):
        reached = position_of(played, search.tree, int(kept))
        s0, s1 = reached.bitboards()
        assert int(search.tree.s0[0, kept]) == s0 and int(search.tree.s1[0, kept]) == s1
    ran = search.run(500, None)  # and the search goes on from there (until the root is proven)
    added = int(search.tree.visits[0, 0]) - before[()][0]
    assert ran > 0
    if threads == 1:
        assert added == ran
    else:  # lock-free updates from two threads lose a few visits at the busy root
        assert 0.95 * ran <= added <= ran


def test_a_position_deeper_than_the_reuse_rule_starts_a_new_tree():
    state = TicTacToeState()
    search = TreeSearch(Rules(), 100_000, seed=0)
    search.set_root(state, reuse=False)
    search.run(20_000, None)
    deeper = state
    for _ in range(REUSE_MOVES + 1):
        deeper = deeper.apply(deeper.legal_actions()[0])
    assert not search.set_root(deeper, reuse=True)
    assert int(search.tree.visits[0, 0]) == 0 and search.nodes_used() == 1


def test_a_full_tree_goes_on_from_its_leaves():
    search = TreeSearch(Rules(), tr.MIN_NODES, seed=0)
    search.set_root(ReversiState.initial(8), reuse=False)
    assert search.run(2000, None) == 2000
    assert int(search.tree.visits[0, 0]) == 2000
    assert search.nodes_used() <= tr.MIN_NODES
    assert np.all(search.tree.visits[0, : search.nodes_used()] >= 0)


def _subpackage_imports() -> dict[str, set[str]]:
    """Which subpackages (or top-level modules) of boardzoo each one imports, at module level or
    inside functions, read from the source (the facts: the files as written)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "boardzoo"
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts == ("__init__",):
            continue  # the package root: it imports the games and the registration hook only
        own = parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                pieces = name.split(".")
                if pieces[0] == "boardzoo" and len(pieces) > 1 and pieces[1] != own:
                    graph.setdefault(own, set()).add(pieces[1])
    return graph


def test_no_subpackage_imports_one_that_imports_it_back():
    graph = _subpackage_imports()

    def reaches(start: str, goal: str) -> bool:
        seen, stack = set(), [start]
        while stack:
            node = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return False

    cycles = sorted(name for name in graph if reaches(name, name))
    assert not cycles, f"import cycles through {cycles}: {graph}"
    # The search core sits below the agents and AlphaZero's training, and imports neither; the
    # depth-first search (the exact solves the core hands endgames to) sits below it, and the
    # reading of other libraries' positions (interop) below both.
    below_search = {
        "budget", "checks", "clock", "errors", "games", "interop", "learned", "gametree",
    }  # fmt: skip
    assert graph["gametree"] <= below_search - {"gametree"}
    assert graph["search"] <= below_search
    assert graph["agents"] <= below_search | {"search"}
