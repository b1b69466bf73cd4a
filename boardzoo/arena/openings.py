"""Opening suites: the positions that the games of a match start from.

A suite is a list of openings, each a sequence of moves from the start position. In a match
(``play_match(..., openings=...)``, ``boardzoo arena ... --openings FILE``) games ``2i`` and
``2i + 1`` both start with opening ``i`` (cycling through the suite when there are more games),
with colours swapped: whatever one side gains from the opening, each agent gets it once. Its moves
are recorded as opening plies (``move_agents`` and ``move_times`` ``null``), and each record names
its opening (``"opening": "f5d6c4d3"``, ``"opening_index": i``).

An openings file holds one opening per line, written in the game's own move names
(:meth:`Game.action_name <boardzoo.games.spec.Game.action_name>`), concatenated as in the XOT
files of the Othello community or separated by spaces or commas::

    # Reversi: cells a1..h8 (column letter, row number), "pass" when a side must pass
    f5d6c4d3c2b3b4b5
    f5 f6 e6 f4
    # Connect Four: the columns a..g;  TicTacToe: the cells a1..c3
    dddcce

Any case is read. Blank lines and lines starting with ``#`` are skipped. The file is only parsed,
never executed, and every move is checked while the opening is replayed from the start
position: a move that cannot be read or is not legal is a ``ValueError`` naming the file, the
line, the move and the legal moves at that point. An opening may not end the game.

``"balanced"`` names the suite boardzoo ships for the game (and board size): random short
openings that a fixed-depth alpha-beta search with the hand-made evaluation judges close to even
(TicTacToe: the two-ply openings that are draws with perfect play). Each file's header says how
it was made (``scripts/make_openings.py``) and what was kept.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.catalog import get_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = [
    "BALANCED",
    "BALANCED_DIR",
    "OpeningSuite",
    "OpeningsSource",
    "balanced_file",
    "load_openings",
    "match_openings",
    "opening_text",
    "parse_opening",
]

BALANCED = "balanced"
# The suites that ship with boardzoo, one file per game and board size.
BALANCED_DIR = Path(__file__).resolve().parent / "balanced"
_SEPARATORS = re.compile(r"[\s,]+")
_SHOWN = 12  # characters of an unreadable move shown in an error

OpeningsSource = Union["OpeningSuite", str, "os.PathLike[str]", Sequence[str]]


@dataclass(frozen=True)
class OpeningSuite:
    """A list of openings, checked against one game.

    Attributes:
        source: where they come from: the file's name as given, ``"balanced"``, or ``"list"``
            (openings passed as strings).
        texts: each opening as its moves' names, lower case and concatenated (``"f5d6c4d3"``).
        moves: each opening as actions.
        sha256: the hex SHA-256 of the texts, one per line: what identifies the suite when a run
            is resumed (the file may move; its openings may not change).

    A suite read back from records (:func:`~boardzoo.arena.match.settings_of`) knows its source
    and digest only: its ``texts`` and ``moves`` are empty.
    """

    source: str
    texts: tuple[str, ...]
    moves: tuple[tuple[int, ...], ...]
    sha256: str

    def __len__(self) -> int:
        return len(self.texts)

    def index_of_game(self, game_index: int) -> int:
        """The opening that game ``game_index`` starts from: ``(game_index // 2) % len(self)``."""
        if not self.moves:
            raise InvalidValueError(
                f"the openings {self.source!r} are known by name only here: load them "
                "(load_openings) to play from them"
            )
        return (game_index // 2) % len(self.moves)

    def describe(self) -> str:
        """``"xot.txt (100 openings)"``, for titles."""
        if not self.texts:
            return self.source
        count = len(self.texts)
        return f"{self.source} ({count} opening{'s' if count != 1 else ''})"


def _digest(texts: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()


def opening_text(game: Game, moves: Sequence[int]) -> str:
    """An opening as its moves' names, lower case and concatenated (``"f5d6c4d3"``)."""
    return "".join(game.action_name(int(action)).lower() for action in moves)


def _legal_names(state: BoardState) -> list[str]:
    return [state.game.action_name(a).lower() for a in state.legal_actions()]


def parse_opening(game: Game, text: str, where: str = "opening") -> tuple[int, ...]:
    """The actions of one opening, each checked legal as it is replayed from the start.

    Args:
        game: the game (with its options).
        text: move names, concatenated (``"f5d6c4d3"``) or separated by spaces or commas; any
            case.
        where: how errors name the opening (``"xot.txt, line 3"``).

    Returns:
        The actions, in order.

    Raises:
        ValueError: no moves, a move that cannot be read or is not legal where it is played, or
            an opening that ends the game; the message names ``where``, the move and the legal
            moves at that point.
    """
    names = sorted({name.lower() for name in game.action_names}, key=len, reverse=True)
    by_name = {name.lower(): action for action, name in enumerate(game.action_names)}
    state = game.initial_state()
    moves: list[int] = []

    def after() -> str:
        if not moves:
            return "at the start"
        return f"after {opening_text(game, moves)}"

    for chunk in _SEPARATORS.split(str(text).strip().lower()):
        position = 0
        while position < len(chunk):
            if state.is_terminal():
                raise InvalidValueError(
                    f"{where}: the game is over {after()}, but the opening goes on with "
                    f"{chunk[position : position + _SHOWN]!r}"
                )
            legal = _legal_names(state)
            name = next((n for n in names if chunk.startswith(n, position)), None)
            if name is None:
                shown = chunk[position : position + _SHOWN]
                raise InvalidValueError(
                    f"{where}: cannot read move {len(moves) + 1} {shown!r} {after()}: "
                    f"{game.label} moves are named like {game.action_names[0]}; legal moves "
                    f"there: {', '.join(legal)}"
                )
            action = by_name[name]
            if not state.is_legal(action):
                raise InvalidValueError(
                    f"{where}: move {len(moves) + 1} {name!r} is not legal {after()}; legal "
                    f"moves there: {', '.join(legal)}"
                )
            state = state.apply(action)
            moves.append(action)
            position += len(name)
    if not moves:
        raise InvalidValueError(f"{where}: no moves")
    if state.is_terminal():
        raise InvalidValueError(
            f"{where}: the opening {opening_text(game, moves)} ends the game: an opening must "
            "leave a game to play"
        )
    return tuple(moves)


def balanced_file(game: Game) -> Path:
    """The shipped balanced suite of ``game``: ``<file stem>.txt`` (``reversi-8x8.txt``,
    ``tictactoe.txt``; :attr:`~boardzoo.games.spec.Game.file_stem`).

    Raises:
        ValueError: none ships for this game or board size (the message lists those that do).
    """
    path = BALANCED_DIR / f"{game.file_stem}.txt"
    if not path.is_file():
        have = ", ".join(sorted(p.stem for p in BALANCED_DIR.glob("*.txt"))) or "none"
        raise InvalidValueError(
            f"no balanced openings ship for {game.label} (those that do: {have}); make some "
            "with scripts/make_openings.py and pass the file"
        )
    return path


def _read_file(path: Path, source: str, game: Game) -> OpeningSuite:
    """The suite in file ``path``; ``source`` is what the suite (and the records) call it."""
    shown = source if source != BALANCED else os.fspath(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidFileError(f"cannot read openings: {shown} does not exist") from None
    except IsADirectoryError:
        raise InvalidFileError(f"cannot read openings: {shown} is a folder, not a file") from None
    except OSError as error:
        reason = (error.strerror or type(error).__name__).lower()
        raise InvalidFileError(f"cannot read openings from {shown}: {reason}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidFileError(f"cannot read openings from {shown}: not UTF-8 text") from None
    texts: list[str] = []
    moves: list[tuple[int, ...]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        actions = parse_opening(game, stripped, f"{shown}, line {number}")
        moves.append(actions)
        texts.append(opening_text(game, actions))
    if not texts:
        raise InvalidFileError(
            f"{shown} holds no openings: write one per line, as move names (e.g. "
            f"{_example(game)}); lines starting with # are comments"
        )
    return OpeningSuite(source, tuple(texts), tuple(moves), _digest(texts))


def _example(game: Game) -> str:
    state = game.initial_state()
    moves: list[int] = []
    for _ in range(4):
        legal = state.legal_actions()
        if state.is_terminal() or not legal:
            break
        moves.append(legal[0])
        state = state.apply(legal[0])
    return opening_text(game, moves)


def load_openings(openings: OpeningsSource, game: Game | str) -> OpeningSuite:
    """A suite of openings for ``game``, each checked legal.

    Args:
        openings: a file (path) of openings, one per line; ``"balanced"`` for the suite shipped
            for the game; a list of openings as strings (``["f5d6", "f5f6"]``); or an
            :class:`OpeningSuite` (checked again against ``game``).
        game: the game with its options (or a catalog name, for its default options).

    Returns:
        The suite, in file (or list) order.

    Raises:
        ValueError: an unreadable or empty file, an empty list, or a bad opening: the message
            names the file and line (or the list item), the move, and the legal moves there.
    """
    if isinstance(game, str):
        game = get_game(game).make()
    if isinstance(openings, OpeningSuite):
        if not openings.moves:
            raise InvalidValueError(f"the openings {openings.source!r} are known by name only")
        moves = tuple(
            parse_opening(game, text, f"{openings.source}, opening {i + 1}")
            for i, text in enumerate(openings.texts)
        )
        texts = tuple(opening_text(game, actions) for actions in moves)
        return OpeningSuite(openings.source, texts, moves, _digest(texts))
    if isinstance(openings, str) and openings.strip().lower() == BALANCED:
        return _read_file(balanced_file(game), BALANCED, game)
    if isinstance(openings, (str, os.PathLike)):
        shown = os.fspath(openings)
        if isinstance(shown, bytes):
            shown = shown.decode()
        return _read_file(Path(shown), shown, game)
    if isinstance(openings, Sequence) and all(isinstance(o, str) for o in openings):
        if not openings:
            raise InvalidValueError("openings: the list is empty; give at least one opening")
        parsed = [
            parse_opening(game, text, f"openings[{i}] {text!r}") for i, text in enumerate(openings)
        ]
        texts = tuple(opening_text(game, actions) for actions in parsed)
        return OpeningSuite("list", texts, tuple(parsed), _digest(texts))
    raise InvalidValueError(
        f"openings must be a file, 'balanced' or a list of move strings, got {openings!r}"
    )


def match_openings(
    openings: OpeningsSource | None, opening_plies: int | None, game: Game
) -> OpeningSuite | None:
    """The suite a match or tournament starts its games from (``None`` without ``openings``).

    Raises:
        ValueError: ``openings`` together with random ``opening_plies`` (both choose how games
            start), or a bad suite (see :func:`load_openings`).
    """
    if openings is None:
        return None
    if opening_plies not in (None, 0):
        raise InvalidValueError(
            f"openings and opening_plies={opening_plies!r} both choose how games start: the "
            "openings of a suite or random plies; give one of them"
        )
    return load_openings(openings, game)
