"""The package's one family of errors: :class:`BoardzooError` and its general kinds.

Everything boardzoo refuses (a bad agent spec, a file it cannot read, an option or value out of
range, an illegal move) raises a :class:`BoardzooError`, so a caller catches the lot with one
``except boardzoo.BoardzooError``. Each class also derives from the builtin it stands for, so an
``except ValueError`` (or ``TypeError``, ``RuntimeError``, ``OSError``) written for the builtin
still catches it::

    BoardzooError                                  anything the package refuses
        InvalidValueError (a ValueError)           a value, option, setting or spec not allowed
            InvalidFileError                       a file that cannot be used
                RecordError, ReplayError, ModelFileError
            IllegalMoveError                       a move against the rules
            AgentSpecError, AgentNotPicklableError, MatchSettingsError
        InvalidTypeError (a TypeError)             an argument of the wrong type
        OutputExistsError (a FileExistsError)      an output that already holds results
        NotAFolderError (a NotADirectoryError)     a file where a folder is wanted
        BudgetError (a RuntimeError)               a search budget too small to search at all
        MissingDependencyError (an ImportError)    an optional dependency that is not installed
        UserError                                  a mistake on the command line
        NoDisplayError (a RuntimeError)            a window asked for where none can be shown
        WorkerDiedError (a ChildProcessError)      an arena worker process that ended

The specific classes live beside the code that raises them (:mod:`boardzoo.games.errors`,
:mod:`boardzoo.agents.registry`, ...). This module imports nothing of the package, so every
layer may import it. New code raises these classes rather than the bare builtins.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = [
    "BoardzooError",
    "BudgetError",
    "InvalidFileError",
    "InvalidTypeError",
    "InvalidValueError",
    "MissingDependencyError",
    "NotAFolderError",
    "OutputExistsError",
    "require_module",
]


class BoardzooError(Exception):
    """Anything boardzoo refuses: the root of the package's errors."""


class InvalidValueError(BoardzooError, ValueError):
    """A value the package refuses: an option, argument, setting or spec that is not allowed."""


class InvalidTypeError(BoardzooError, TypeError):
    """An argument of a type the package cannot use."""


class InvalidFileError(InvalidValueError):
    """A file the package cannot use: not of its format, damaged, or made for another game."""


class OutputExistsError(BoardzooError, FileExistsError):
    """An output file that already holds results, where the run was not asked to resume."""


class NotAFolderError(BoardzooError, NotADirectoryError):
    """A file where the package writes a folder."""


class BudgetError(BoardzooError, RuntimeError):
    """A search budget (simulations, nodes) too small for the search to look at any move."""


class MissingDependencyError(BoardzooError, ImportError):
    """An optional dependency that a feature needs and that is not installed; the message says
    how to install it (``az needs torch, an optional dependency: pip install torch``)."""


def require_module(name: str, feature: str, install: str) -> ModuleType:
    """Import ``name`` for ``feature``, or raise :class:`MissingDependencyError` saying how to
    install it.

    Args:
        name: the module (``"torch"``, ``"stable_baselines3"``).
        feature: what needs it, as the user named it (``"az"``, ``"backend='ray'"``).
        install: the command that installs it (``"pip install 'boardzoo[rl]'"``).

    Returns:
        The module.

    Raises:
        MissingDependencyError: ``name`` (or a module it needs) is not installed.
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        raise MissingDependencyError(
            f"{feature} needs {name.partition('.')[0]}, an optional dependency: {install}"
        ) from error
