"""The package's layers at a glance, from the ground up; each imports only its own layer or lower.

``LAYERS`` is the table, lowest first. Its members are the package's top-level modules and
subpackages (a subpackage with everything under it). Every import statement of every module under
``boardzoo/`` is read with ``ast`` (nothing is run), at any depth: at the top, inside functions,
under ``if TYPE_CHECKING:``, in ``try`` blocks, and ``importlib.import_module("boardzoo...")``
with a literal name. An import may go to

- a lower layer;
- the importer's own member (``boardzoo.search.loop`` imports ``boardzoo.search.tree``);
- another member of the same layer only where ``SAME_LAYER`` allows that pair, in that
  direction: members of one layer are peers, so ``ui`` importing ``rl`` is reported like an import
  upwards unless the table says otherwise.

Anything else is a violation, reported with its file, line and import. ``KNOWN_VIOLATIONS`` lists
the ones the code has now, each with why; the test fails on any other, and on an entry that no
longer happens (remove it then).

Not imports, so not checked: module names held in strings and loaded later by name, such as the
games' specs naming their env modules (``env_module="boardzoo.envs.reversi_v0"``), the agents'
registry (``"boardzoo.agents.mcts:MCTSAgent"``) and Gymnasium's entry points in
``boardzoo.envs.registration`` (``"boardzoo.vector.env:BoardGameVectorEnv"``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

import boardzoo

PACKAGE_DIR = Path(boardzoo.__file__).parent

# (layer, its members), from the ground up.
LAYERS: list[tuple[str, list[str]]] = [
    # The package's errors (BoardzooError and its general kinds): every layer raises them, so
    # they sit below all and import nothing of the package.
    ("errors", ["boardzoo.errors"]),
    # The rules. The package root belongs here: every ``import boardzoo.x`` runs it first, it
    # re-exports the games, and lower layers read ``boardzoo.__version__`` (learned's model
    # files, the arena's records). ``_registration`` is the root's hook that registers the envs
    # once gymnasium or pettingzoo is imported (see KNOWN_VIOLATIONS).
    (
        "games",
        [
            "boardzoo",
            "boardzoo._registration",
            "boardzoo.budget",
            "boardzoo.checks",
            "boardzoo.clock",
            "boardzoo.settings_history",
            "boardzoo.games",
        ],
    ),
    # Other libraries' games (PettingZoo's classic envs, OpenSpiel's states) read as the
    # catalog's positions: what the solve, the agents and the accuracy measures take.
    ("interop", ["boardzoo.interop"]),
    ("learned", ["boardzoo.learned"]),
    ("gametree", ["boardzoo.gametree"]),
    ("search", ["boardzoo.search"]),
    ("agents", ["boardzoo.agents"]),
    ("envs and vector", ["boardzoo.envs", "boardzoo.vector"]),
    ("arena", ["boardzoo.arena"]),
    # Agents measured against the exact solver's labels (training reports it, so below az).
    ("accuracy", ["boardzoo.accuracy"]),
    (
        "ui, rl, az and fit (training)",
        ["boardzoo.ui", "boardzoo.rl", "boardzoo.az", "boardzoo.fit"],
    ),
    # The command line and the programs behind its commands and entry points: ``boardzoo bench``
    # (bench: also used by the scripts in benchmarks/), ``boardzoo demo`` and
    # ``python -m boardzoo.warmup``; no module of the package imports them but cli.
    (
        "cli",
        [
            "boardzoo.cli",
            "boardzoo.__main__",
            "boardzoo.speed",
            "boardzoo.demo",
            "boardzoo.warmup",
        ],
    ),
    ("experiments", ["boardzoo.experiment_kit"]),
]

# Imports allowed between different members of one layer: (importer, imported) -> why.
SAME_LAYER: dict[tuple[str, str], str] = {
    ("boardzoo", "boardzoo.games"): "the root re-exports the game states and errors",
    ("boardzoo", "boardzoo._registration"): "import boardzoo installs the registration hook",
    ("boardzoo._registration", "boardzoo.games"): "a game registered at run time gets its envs "
    "registered too (the catalog calls the hook it is given)",
    ("boardzoo.budget", "boardzoo.clock"): "the budget's deadline is a time of the monotonic clock",
    ("boardzoo.vector", "boardzoo.envs"): "the batched env reads learner_color as the "
    "single-agent env does (envs never imports vector)",
    ("boardzoo.__main__", "boardzoo.cli"): "python -m boardzoo is the boardzoo command",
    ("boardzoo.cli", "boardzoo.speed"): "boardzoo bench",
    ("boardzoo.cli", "boardzoo.demo"): "boardzoo demo",
}

# Violations the code has now: (file relative to boardzoo/, imported module) -> why. Each is a
# place to fix, not a rule: delete the entry with the fix.
KNOWN_VIOLATIONS: dict[tuple[str, str], str] = {
    ("_registration.py", "boardzoo.envs.registration"): "the root's hook registers the envs "
    "when gymnasium or pettingzoo is imported (a deferred import inside a function): games -> "
    "envs and vector",
}


@dataclass(frozen=True)
class Violation:
    """An import that the layer table does not allow."""

    file: Path
    line: int
    importer: str
    imported: str
    why: str

    def __str__(self) -> str:
        what = f"{self.importer} imports {self.imported}" if self.imported else self.importer
        return f"{self.file.as_posix()}:{self.line}: {what}: {self.why}"


def module_names(package_dir: Path) -> dict[str, Path]:
    """Every module under ``package_dir`` by dotted name (``__init__`` named as its package)."""
    package = package_dir.name
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = [package, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(
    path: Path, module: str, known: Iterable[str], package: str
) -> list[tuple[int, str]]:
    """``(line, module)`` of the file's imports of ``package``'s modules, at any depth, sorted.

    ``from a import b`` imports ``a.b`` when that is a module in ``known``, else ``a``; relative
    imports are resolved against ``module`` (the dotted name of ``path``).
    """
    known = set(known)
    here = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append((node.lineno, submodule if submodule in known else source))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in ("import_module", "__import__")
                )
            )
        ):
            found.append((node.lineno, node.args[0].value))
    ours = [(line, name) for line, name in found if name.partition(".")[0] == package]
    return sorted(set(ours))  # one per line and module: ``from a import (b, c)`` is one import


def member_of(module: str) -> str:
    """The table's unit a module belongs to: the root itself, or a top-level module/subpackage."""
    parts = module.split(".")
    return module if len(parts) == 1 else ".".join(parts[:2])


def layer_violations(
    package_dir: Path,
    layers: Sequence[tuple[str, Sequence[str]]],
    same_layer: Iterable[tuple[str, str]] = (),
) -> list[Violation]:
    """Every import under ``package_dir`` that goes up the table, sideways between members of one
    layer without ``same_layer`` allowing it, or from or to a member the table lacks."""
    package = package_dir.name
    level = {member: i for i, (_, members) in enumerate(layers) for member in members}
    names = [name for name, _ in layers]
    allowed = set(same_layer)
    modules = module_names(package_dir)
    found = []
    for module, path in modules.items():
        source = member_of(module)
        file = path.relative_to(package_dir.parent)
        if source not in level:
            found.append(Violation(file, 1, module, "", f"{source} is in no layer of the table"))
            continue
        for line, imported in imports_of(path, module, modules, package):
            target = member_of(imported)
            if target == source:
                continue
            if target not in level:
                why = f"{target} is in no layer of the table"
            elif level[target] > level[source]:
                why = f"layer {names[level[source]]!r} imports the higher {names[level[target]]!r}"
            elif level[target] == level[source] and (source, target) not in allowed:
                why = (
                    f"{source} and {target} are both in layer {names[level[source]]!r}, and the "
                    "table does not let the first import the second"
                )
            else:
                continue
            found.append(Violation(file, line, module, imported, why))
    return found


def _unexpected(
    violations: Sequence[Violation], known: Mapping[tuple[str, str], str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """The violations not in ``known`` (as messages), and the ``known`` entries that no longer
    happen."""
    keys = [(v.file.relative_to(v.file.parts[0]).as_posix(), v.imported) for v in violations]
    new = [str(v) for v, key in zip(violations, keys, strict=True) if key not in known]
    return new, sorted(set(known) - set(keys))


# --- the package --------------------------------------------------------------------------------


def test_the_table_names_every_member_of_the_package_once():
    members = [member for _, layer in LAYERS for member in layer]
    assert len(members) == len(set(members))
    in_package = {member_of(module) for module in module_names(PACKAGE_DIR)}
    assert set(members) == in_package
    assert [name for name, _ in LAYERS] == [
        "errors", "games", "interop", "learned", "gametree", "search", "agents", "envs and vector",
        "arena",
        "accuracy",
        "ui, rl, az and fit (training)", "cli", "experiments",
    ]  # fmt: skip
    level = {member: i for i, (_, layer) in enumerate(LAYERS) for member in layer}
    for importer, imported in SAME_LAYER:
        assert level[importer] == level[imported], (importer, imported)


def test_every_import_goes_to_the_same_layer_or_a_lower_one():
    new, gone = _unexpected(layer_violations(PACKAGE_DIR, LAYERS, SAME_LAYER), KNOWN_VIOLATIONS)
    assert not new, "imports against the layer table:\n" + "\n".join(new)
    assert not gone, f"known violations that no longer happen (remove them): {gone}"


# --- the checker, on a package made here ---------------------------------------------------------

TINY_LAYERS = [("low", ["pkg", "pkg.low"]), ("mid", ["pkg.a", "pkg.b"]), ("high", ["pkg.high"])]


def write_package(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in {"__init__.py": "", **files}.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def messages(package: Path, same_layer: Iterable[tuple[str, str]] = ()) -> list[str]:
    return sorted(str(v) for v in layer_violations(package, TINY_LAYERS, same_layer))


def test_imports_downwards_and_within_a_member_pass(tmp_path):
    package = write_package(
        tmp_path,
        {
            "low/__init__.py": "",
            "low/rules.py": "from pkg.low import other\nfrom . import other as again\n",
            "low/other.py": "",
            "a/__init__.py": "from pkg.low.rules import x\nfrom ..low import rules\n",
            "b.py": "import pkg\nimport pkg.low.rules\n",
            "high/__init__.py": "from pkg import a, b, low\n",
        },
    )
    assert messages(package) == []


def test_an_import_upwards_is_reported_wherever_it_hides(tmp_path):
    package = write_package(
        tmp_path,
        {
            "low/__init__.py": "",
            "low/rules.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from pkg.high import thing\n"
                "def later():\n"
                "    import pkg.a.deep\n"
                "class Lazy:\n"
                "    def load(self):\n"
                "        import importlib\n"
                "        return importlib.import_module('pkg.high')\n"
            ),
            "a/__init__.py": "",
            "a/deep.py": "try:\n    from ..high import x\nexcept ImportError:\n    pass\n",
            "b.py": "",
            "high/__init__.py": "",
        },
    )
    up = "imports the higher"
    assert messages(package) == [
        f"pkg/a/deep.py:2: pkg.a.deep imports pkg.high: layer 'mid' {up} 'high'",
        f"pkg/low/rules.py:3: pkg.low.rules imports pkg.high: layer 'low' {up} 'high'",
        f"pkg/low/rules.py:5: pkg.low.rules imports pkg.a.deep: layer 'low' {up} 'mid'",
        f"pkg/low/rules.py:9: pkg.low.rules imports pkg.high: layer 'low' {up} 'high'",
    ]


def test_the_root_is_a_member_of_its_own_and_from_root_import_resolves_submodules(tmp_path):
    package = write_package(
        tmp_path,
        {
            "__init__.py": "VERSION = '1'\n",
            "low/__init__.py": "",
            "a/__init__.py": "from pkg import VERSION\nfrom pkg import high\n",
            "b.py": "",
            "high/__init__.py": "",
        },
    )
    assert messages(package) == [
        "pkg/a/__init__.py:2: pkg.a imports pkg.high: layer 'mid' imports the higher 'high'"
    ]


def test_peers_in_one_layer_need_the_table_to_allow_them(tmp_path):
    package = write_package(
        tmp_path,
        {
            "low/__init__.py": "",
            "a/__init__.py": "def f():\n    from pkg.b import g\n",
            "b.py": "from pkg.a import f\n",
            "high/__init__.py": "",
        },
    )
    peers = "are both in layer 'mid', and the table does not let the first import the second"
    assert messages(package) == [
        f"pkg/a/__init__.py:2: pkg.a imports pkg.b: pkg.a and pkg.b {peers}",
        f"pkg/b.py:1: pkg.b imports pkg.a: pkg.b and pkg.a {peers}",
    ]
    assert messages(package, [("pkg.a", "pkg.b")]) == [
        f"pkg/b.py:1: pkg.b imports pkg.a: pkg.b and pkg.a {peers}"
    ]


def test_a_module_outside_the_table_is_reported(tmp_path):
    package = write_package(
        tmp_path,
        {
            "low/__init__.py": "import pkg.stray\n",
            "a/__init__.py": "",
            "b.py": "",
            "high/__init__.py": "",
            "stray.py": "",
        },
    )
    assert messages(package) == [
        "pkg/low/__init__.py:1: pkg.low imports pkg.stray: pkg.stray is in no layer of the table",
        "pkg/stray.py:1: pkg.stray: pkg.stray is in no layer of the table",
    ]


def test_the_package_check_fails_on_a_new_import_upwards(monkeypatch):
    """The real table and package, with one fake import added to the games' rules."""
    real = imports_of
    fake_target = "boardzoo.arena.match"

    def with_a_fake(path, module, known, package):
        found = real(path, module, known, package)
        return [*found, (7, fake_target)] if module == "boardzoo.games.reversi" else found

    monkeypatch.setitem(globals(), "imports_of", with_a_fake)
    with pytest.raises(AssertionError, match=r"boardzoo/games/reversi\.py:7: boardzoo\.games\."
                       r"reversi imports boardzoo\.arena\.match: layer 'games' imports the "
                       r"higher 'arena'"):  # fmt: skip
        test_every_import_goes_to_the_same_layer_or_a_lower_one()


def test_the_rules_import_nothing_but_the_rules_and_the_error_family():
    """``boardzoo.games`` holds rules only: the depth-first knowledge of a game (its solver, its
    book, its endgame code) is its plug-in under ``boardzoo.gametree``, named by a string."""
    known = module_names(PACKAGE_DIR)
    outside = [
        f"{path.relative_to(PACKAGE_DIR.parent).as_posix()}:{line}: {name}"
        for module, path in known.items()
        if module.startswith("boardzoo.games")
        for line, name in imports_of(path, module, known, "boardzoo")
        if not (name == "boardzoo.errors" or name.startswith("boardzoo.games"))
    ]
    assert not outside, outside
