"""One family of errors: everything boardzoo refuses is a ``boardzoo.BoardzooError``.

Every exception class the package defines derives from the root (found by importing every
module, so a new class without it fails here), each refusal keeps its message and its builtin
(``except ValueError`` still works), and the command line reports any of them in one line.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import pickle
import pkgutil
from pathlib import Path

import pytest

import boardzoo
from boardzoo import BoardzooError, IllegalMoveError, InvalidFileError, InvalidValueError
from boardzoo.errors import InvalidTypeError

PACKAGE_DIR = Path(boardzoo.__file__).parent
NOT_IMPORTED = {"boardzoo.__main__"}  # runs the command line when imported


def _subclasses(cls: type[BaseException]) -> set[type[BaseException]]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def _builtin_errors() -> set[str]:
    return {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and not issubclass(value, Warning)
    }


def _without_the_root(path: Path) -> list[str]:
    """Classes of the file at ``path`` whose bases are builtin exceptions only (read, not run)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            bases = {base.id for base in node.bases if isinstance(base, ast.Name)}
            if bases and bases <= _builtin_errors():
                found.append(f"{path.name}: {node.name}")
    return found


def _package_errors() -> tuple[set[type[BaseException]], list[str]]:
    """The exception classes the package defines (warnings aside), importing every module; and
    those, in modules that cannot be imported here (an optional dependency is missing), whose
    bases are builtin exceptions only."""
    unchecked = []
    for module in pkgutil.walk_packages(boardzoo.__path__, "boardzoo."):
        if module.name in NOT_IMPORTED:
            continue
        try:
            importlib.import_module(module.name)
        except ImportError as error:  # a missing module, or a module's own word that one is
            missing = error if isinstance(error, ModuleNotFoundError) else error.__cause__
            if not isinstance(missing, ModuleNotFoundError):
                raise
            if (missing.name or "").partition(".")[0] == "boardzoo":
                raise
            path = PACKAGE_DIR.joinpath(*module.name.split(".")[1:])
            path = path / "__init__.py" if module.ispkg else path.with_suffix(".py")
            unchecked.extend(_without_the_root(path))
    ours = {
        cls
        for cls in _subclasses(BaseException)
        if cls.__module__.partition(".")[0] == "boardzoo" and not issubclass(cls, Warning)
    }
    return ours, unchecked


def test_every_error_class_of_the_package_derives_from_boardzoo_error():
    classes, unchecked = _package_errors()
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in classes}
    assert {  # the walk finds them: a few from different layers
        "boardzoo.games.errors.IllegalMoveError",
        "boardzoo.agents.registry.AgentSpecError",
        "boardzoo.arena.record_schema.RecordError",
        "boardzoo.cli.errors.UserError",
    } <= names
    outside = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in classes
        if not issubclass(cls, BoardzooError)
    )
    assert not outside, f"error classes outside the family (derive from BoardzooError): {outside}"
    assert not unchecked, f"error classes outside the family: {unchecked}"


def _compiled(function: ast.FunctionDef) -> bool:
    """Whether numba compiles ``function`` (``@njit``, ``@njit(...)``, ``@numba.njit``)."""
    return any("jit" in ast.unparse(decorator) for decorator in function.decorator_list)


def _bare_raises(path: Path) -> list[str]:
    """``raise ValueError(...)`` / ``TypeError(...)`` of the file, outside compiled functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    compiled: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and _compiled(node):
            compiled |= set(ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            made = node.exc
        elif isinstance(node, ast.Return):  # a helper that makes the error for its callers
            made = node.value
        else:
            continue
        if (
            isinstance(made, ast.Call)
            and isinstance(made.func, ast.Name)
            and made.func.id in ("ValueError", "TypeError")
            and node not in compiled
        ):
            found.append(f"{path.relative_to(PACKAGE_DIR.parent).as_posix()}:{node.lineno}")
    return found


def test_the_package_raises_no_bare_value_or_type_error():
    """A refusal is one of the family (numba's compiled code aside: it raises builtins only)."""
    found = [site for path in sorted(PACKAGE_DIR.rglob("*.py")) for site in _bare_raises(path)]
    assert not found, f"raise InvalidValueError or InvalidTypeError (boardzoo.errors): {found}"


def test_the_general_kinds_are_also_the_builtins_they_stand_for():
    assert issubclass(InvalidValueError, ValueError)
    assert issubclass(InvalidFileError, InvalidValueError)
    assert issubclass(InvalidTypeError, TypeError)
    assert issubclass(IllegalMoveError, InvalidValueError)
    for name in ("BoardzooError", "InvalidValueError", "InvalidTypeError", "InvalidFileError"):
        assert name in boardzoo.__all__


def test_the_family_survives_pickling():
    """Errors cross process boundaries (the arena's and self-play's workers) unchanged."""
    from boardzoo.games import make_game

    state = make_game("tictactoe").initial_state().apply(4)
    with pytest.raises(BoardzooError) as caught:
        state.apply(4)
    error = caught.value
    assert isinstance(error, IllegalMoveError)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is IllegalMoveError and str(again) == str(error)
    assert again.legal_actions == error.legal_actions and again.player == error.player
    from boardzoo.ui.display import NoDisplayError

    for error in (
        InvalidValueError("x=1 is not allowed"),
        InvalidFileError("runs/x.jsonl: not a record"),
        InvalidTypeError("not a Game"),
        NoDisplayError("no display"),
    ):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)


def _refused(call) -> BoardzooError:
    with pytest.raises(BoardzooError) as caught:
        call()
    return caught.value


def test_an_illegal_move_is_refused_in_the_family():
    from boardzoo.games import TicTacToeState

    error = _refused(lambda: TicTacToeState().apply(4).apply(4))
    assert isinstance(error, IllegalMoveError) and isinstance(error, ValueError)
    assert str(error).startswith("illegal move b2 (action 4) for O: b2 is taken; legal moves:")


def test_a_bad_agent_spec_is_refused_in_the_family():
    from boardzoo.agents.registry import AgentSpecError, make_agent

    error = _refused(lambda: make_agent("mcts:simulations=-5"))
    assert isinstance(error, AgentSpecError)
    assert str(error) == "mcts: simulations=-5 is not allowed: it must be an integer >= 1 or none"
    error = _refused(lambda: make_agent("minimax"))
    assert str(error).startswith("unknown agent 'minimax'; known agents: random")


def test_bad_game_options_and_out_of_range_settings_are_refused_in_the_family():
    from boardzoo.agents.settings import TreeSettings
    from boardzoo.arena.sprt import SPRT
    from boardzoo.games import make_game

    error = _refused(lambda: make_game("reversi", board_size=7))
    assert type(error) is InvalidValueError
    assert str(error) == "board_size must be one of [4, 6, 8], got 7"
    error = _refused(lambda: make_game("go"))
    assert str(error).startswith("unknown game 'go'; games: reversi")
    error = _refused(lambda: TreeSettings(max_nodes=1))
    assert str(error).startswith("max_nodes=1 is not allowed: it must be an integer in ")
    error = _refused(lambda: SPRT(elo0=10, elo1=0))
    assert str(error).startswith("sprt: elo1=0 must be greater than elo0=10")


def test_a_bad_record_file_is_refused_in_the_family(tmp_path):
    from boardzoo.arena.record_schema import RecordError, parse_record
    from boardzoo.gametree.probcut import load_probcut_file

    error = _refused(lambda: parse_record('{"game": 3}', "runs/x.jsonl, line 1"))
    assert isinstance(error, RecordError) and isinstance(error, InvalidFileError)
    assert str(error) == "runs/x.jsonl, line 1: a record needs a 'game' name"
    path = tmp_path / "x.probcut.json"
    path.write_text("[]")
    error = _refused(lambda: load_probcut_file(path))
    assert type(error) is InvalidFileError
    assert str(error) == f"{path}: not a ProbCut calibration file: the file must be a JSON object"


@pytest.mark.torch
def test_a_bad_model_file_is_refused_in_the_family(tmp_path):
    from boardzoo.learned.model_io import ModelFileError, read_model_config

    (tmp_path / "model.json").write_text("{")
    error = _refused(lambda: read_model_config(tmp_path / "model.pt"))
    assert isinstance(error, ModelFileError) and isinstance(error, InvalidFileError)
    assert str(error).startswith(f"{tmp_path / 'model.json'}: not valid JSON (")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (  # an AgentSpecError
            ["arena", "tictactoe", "random", "minimax", "--games", "2"],
            "boardzoo arena: error: unknown agent 'minimax'; known agents: random",
        ),
        (  # a UserError
            ["arena", "tictactoe", "random", "random", "--resume"],
            "boardzoo arena: error: --resume continues a run: give its --out too",
        ),
        (  # a UserError about a game option
            ["arena", "tictactoe", "random", "random", "--option", "board_size=3"],
            "boardzoo arena: error: --option board_size: tictactoe has no option 'board_size'",
        ),
    ],
)
def test_the_command_line_reports_a_refusal_in_one_line(args, line, capsys):
    from boardzoo.cli import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(line), err


def test_the_command_line_reports_any_member_of_the_family_in_one_line(monkeypatch, capsys):
    """Not only ValueErrors: a refusal that is a RuntimeError (no display) too."""
    import boardzoo.cli
    from boardzoo.ui.display import NoDisplayError

    def refuse(args):
        raise NoDisplayError("no display here")

    monkeypatch.setattr(boardzoo.cli.COMMANDS["demo"], "run", refuse)
    assert boardzoo.cli.main(["demo"]) == 2
    shown = capsys.readouterr().err
    assert shown == "boardzoo demo: error: cannot open a window: no display here\n"


def test_a_missing_optional_dependency_is_refused_in_the_family_with_how_to_install_it():
    from boardzoo.errors import MissingDependencyError, require_module

    with pytest.raises(BoardzooError) as caught:
        require_module("no_such_module_here.part", "az", "pip install torch")
    assert isinstance(caught.value, MissingDependencyError)
    assert isinstance(caught.value, ImportError)
    expected = "az needs no_such_module_here, an optional dependency: pip install torch"
    assert str(caught.value) == expected
    assert require_module("json", "json", "-").dumps(1) == "1"
