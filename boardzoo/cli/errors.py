"""How the command line reports a mistake: :class:`UserError` (a
:class:`~boardzoo.errors.BoardzooError`), and any error as one line in the command line's words
(``cannot use runs/x.jsonl: permission denied``, ``--seed 3``)."""

from __future__ import annotations

import errno
import re

from boardzoo.arena.record_schema import MatchSettingsError
from boardzoo.errors import BoardzooError


class UserError(BoardzooError):
    """A mistake of the user's: reported in one line, exit status 2."""


def os_error_text(error: OSError) -> str:
    """An ``OSError`` in plain words: ``cannot write runs/x.jsonl: permission denied``."""
    reasons = {
        errno.ENOENT: "no such file or folder",
        errno.EACCES: "permission denied",
        errno.EISDIR: "it is a folder",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.ENOSPC: "no space left on the disk",
        errno.EEXIST: "it already exists",
    }
    reason = reasons.get(error.errno or -1, (error.strerror or "").lower())
    if error.filename is None:
        text = str(error.args[0]) if error.args and error.errno is None else reason
        return text or type(error).__name__
    return f"cannot use {error.filename}: {reason or 'the system refused'}"


# The arena's Python words for its settings, and what they are called on the command line.
_FLAG_WORDS = (
    (re.compile(r"\bresume=True, "), ""),
    (re.compile(r"\bmatch_seed="), "--seed "),
    (re.compile(r"\btime_limit="), "--time-limit "),
    (re.compile(r"\bopening_plies="), "opening plies "),
    (re.compile(r"\bpair_openings="), "paired openings "),
    (re.compile(r"\bagents="), "agents "),
    (re.compile(r"\boptions="), "game options "),
)


def cli_words(text: str) -> str:
    """An error of the Python API in the command line's words (``match_seed=3`` -> ``--seed 3``)."""
    for pattern, words in _FLAG_WORDS:
        text = pattern.sub(words, text)
    return text


def _in_python_words(error: BaseException) -> bool:
    """Whether ``error`` speaks of the arena's settings as the Python API names them (a record
    file of another run, or one that already holds games), not of an agent's own keys."""
    return isinstance(error, (MatchSettingsError, FileExistsError))


def error_text(error: Exception) -> str:
    """The one line that reports ``error`` (a :class:`~boardzoo.errors.BoardzooError`, such as
    :class:`UserError`, a ``ValueError`` or an ``OSError``) to the user."""
    text = os_error_text(error) if isinstance(error, OSError) else str(error)
    if _in_python_words(error):
        text = cli_words(text)
    return text.splitlines()[0]
