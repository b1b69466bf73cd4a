"""The arena's modules: one job each, imports at the top, no import cycle.

Read from the source with ``ast`` (nothing is run), so the test fails on the line that adds a
cycle or hides an import inside a function to dodge one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import boardzoo.arena

ARENA = Path(boardzoo.arena.__file__).parent
PACKAGE = "boardzoo.arena"
# Imports allowed inside functions: optional dependencies, loaded only by the runs that use them.
OPTIONAL = {"boardzoo.arena.ray_backend", "rich", "matplotlib"}


def _modules() -> dict[str, ast.Module]:
    return {
        f"{PACKAGE}.{path.stem}": ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(ARENA.glob("*.py"))
        if path.stem != "__init__"
    }


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module is not None:
        return [node.module]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return []


def _top_level_arena_imports(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If):  # if TYPE_CHECKING: ...
            continue
        found.update(m for m in _imported(node) if m.startswith(PACKAGE + "."))
    return found


def test_the_arena_is_split_into_modules_with_one_job_each():
    expected = {
        "agent_identity", "agent_stats", "backends", "game_worker", "match", "match_report",
        "openings", "players", "process_player", "progress", "ratings", "ray_backend",
        "record_reading", "record_schema", "record_writing", "referee", "report", "results",
        "runner", "seeds", "settings", "sprt", "tournament", "tournament_report",
    }  # fmt: skip
    assert {name.rsplit(".", 1)[1] for name in _modules()} == expected
    lines = {
        name: len((ARENA / f"{name.rsplit('.', 1)[1]}.py").read_text().splitlines())
        for name in _modules()
    }
    assert max(lines.values()) < 700, lines
    # Over 400 lines only where the module still does one job, named here with it (none now).
    one_job: dict[str, str] = {}
    long = {name.rsplit(".", 1)[1] for name, count in lines.items() if count > 400}
    assert long <= set(one_job), {name: lines[f"{PACKAGE}.{name}"] for name in long - set(one_job)}


def test_no_import_hides_inside_a_function():
    hidden = []
    for name, tree in _modules().items():
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                for module in _imported(node):
                    if module.startswith("boardzoo") and module not in OPTIONAL:
                        hidden.append(f"{name}.{function.name} imports {module}")
    assert hidden == []


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (module -> modules it imports) as a path, or ``None``."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done or module not in graph:
            return None
        path.append(module)
        for imported in sorted(graph[module]):
            cycle = visit(imported)
            if cycle is not None:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module)
        if cycle is not None:
            return cycle
    return None


def test_the_arena_modules_import_each_other_without_a_cycle():
    graph = {name: _top_level_arena_imports(tree) for name, tree in _modules().items()}
    # the graph is read
    assert "boardzoo.arena.results" in graph["boardzoo.arena.match_report"]
    assert "boardzoo.arena.report" in graph["boardzoo.arena.tournament_report"]
    assert find_cycle(graph) is None


def test_the_cycle_check_finds_a_cycle():
    sources = {
        "boardzoo.arena.a": "from boardzoo.arena.b import x\n",
        "boardzoo.arena.b": "import numpy\nfrom boardzoo.arena.c import y\n",
        "boardzoo.arena.c": "from boardzoo.arena.a import z\n",
    }
    graph = {name: _top_level_arena_imports(ast.parse(code)) for name, code in sources.items()}
    assert find_cycle(graph) == [
        "boardzoo.arena.a", "boardzoo.arena.b", "boardzoo.arena.c", "boardzoo.arena.a"
    ]  # fmt: skip
    del graph["boardzoo.arena.c"]
    assert find_cycle(graph) is None
