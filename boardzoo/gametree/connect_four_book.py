"""Connect Four's opening book: the exact score of every position of the first moves.

The search takes longest near the empty board (the empty board itself takes hours), so the
first ``depth`` moves are answered from a table instead: every position with at most ``depth``
discs, each with its exact score in the solver's convention
(:mod:`boardzoo.gametree.connect_four`). A position and its mirror image have the same
score, so one key stands for both: :func:`canonical_key`, the smaller of the two positions'
keys (``own + mask + bottom``, one per position).

The book is made by ``python scripts/make_connect_four_book.py``: every position with exactly
``depth`` discs is solved by the search (the long part, resumable), and the shallower ones
follow from them by negamax (:func:`complete_book`); with ``--moves``, a best move of each
position with ``depth`` discs too (its children are beyond the book, so its score alone does
not say which move keeps it). The shipped file (``boardzoo/gametree/data/connect_four_book.npz``,
with a JSON file beside it naming the command, depth and time that made it) holds sorted keys,
scores and those moves, read with ``allow_pickle=False``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from boardzoo.errors import InvalidFileError
from boardzoo.games.connect_four import BOTTOM, COLS, HEIGHT, ConnectFourState

__all__ = [
    "BOOK_PATH",
    "Book",
    "canonical_key",
    "complete_book",
    "load_book",
    "mirror",
    "position_key",
    "positions_at",
    "save_book",
    "shipped_book",
    "terminal_score",
]

BOOK_PATH = Path(__file__).with_name("data") / "connect_four_book.npz"
_COLUMN_BITS = (1 << HEIGHT) - 1
CELLS = 42


def mirror(bits: int) -> int:
    """A bitboard (or key) reflected left to right: column ``c`` becomes ``6 - c``."""
    out = 0
    for column in range(COLS):
        out |= ((bits >> (column * HEIGHT)) & _COLUMN_BITS) << ((COLS - 1 - column) * HEIGHT)
    return out


def position_key(state: ConnectFourState) -> int:
    """The position's key, as the solver's table keys it: the mover's discs plus all discs
    plus the bottom row (a column's sum never carries into the next column)."""
    own = state.red if state.current_player == 0 else state.yellow
    return own + (state.red | state.yellow) + BOTTOM


def canonical_key(state: ConnectFourState) -> int:
    """The key shared by a position and its mirror image: the smaller of their keys."""
    key = position_key(state)
    return min(key, mirror(key))


def terminal_score(state: ConnectFourState) -> int:
    """The score of a finished game for the player to move: ``0`` a draw, else the loss to the
    winner's last disc (``s - 22`` for a win with the ``s``-th disc)."""
    if state.winner is None:
        return 0
    discs = (state.red | state.yellow).bit_count()
    return (discs + 1) // 2 - 22


@dataclass(frozen=True)
class Book:
    """Exact scores of the positions with at most :attr:`depth` discs.

    Attributes:
        keys: uint64, sorted: the positions' :func:`canonical_key`.
        scores: int8, the score of each position for its player to move.
        depth: the most discs of a position in the book.
        meta: how the book was made (command, seconds, counts).
        moves: int8, a column that reaches each position's score, for the orientation its key
            stands for (the position whose key is the smaller), ``-1`` where the book holds
            none: the positions with :attr:`depth` discs have one when the book was made with
            ``--moves``; the shallower ones have their children in the book instead.
    """

    keys: np.ndarray
    scores: np.ndarray
    depth: int
    meta: Mapping[str, object]
    moves: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)

    def _index(self, state: ConnectFourState) -> int | None:
        """Where ``state`` (or its mirror image) is in the book, ``None`` if it is not."""
        if state.is_terminal() or (state.red | state.yellow).bit_count() > self.depth:
            return None
        key = np.uint64(canonical_key(state))
        index = int(np.searchsorted(self.keys, key))
        return index if index < len(self.keys) and self.keys[index] == key else None

    def score(self, state: ConnectFourState) -> int | None:
        """The exact score of ``state`` for its player to move, ``None`` if it is not in the
        book (more than :attr:`depth` discs, or a finished game)."""
        index = self._index(state)
        return None if index is None else int(self.scores[index])

    def best_move(self, state: ConnectFourState) -> int | None:
        """A column (the action) that keeps ``state``'s score, where the book holds one,
        else ``None``."""
        index = self._index(state)
        if index is None or self.moves[index] < 0:
            return None
        column = int(self.moves[index])
        return column if position_key(state) == canonical_key(state) else COLS - 1 - column

    def move_scores(self, state: ConnectFourState) -> dict[int, int] | None:
        """The exact score of every legal move for the player making it, if every child is in
        the book or finished (``None`` otherwise: the position has :attr:`depth` discs or
        more)."""
        scores: dict[int, int] = {}
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                scores[action] = -terminal_score(child)
                continue
            value = self.score(child)
            if value is None:
                return None
            scores[action] = -value
        return scores


def positions_at(discs: int) -> Iterator[ConnectFourState]:
    """Every position in play with ``discs`` discs, one per mirror pair (its first found),
    in a fixed order (depth first, the columns left to right)."""
    level = {canonical_key(ConnectFourState.initial()): ConnectFourState.initial()}
    for _ in range(discs):
        following: dict[int, ConnectFourState] = {}
        for state in level.values():
            for action in state.legal_actions():
                child = state.apply(action)
                if child.is_terminal():
                    continue
                following.setdefault(canonical_key(child), child)
        level = following
    yield from level.values()


def complete_book(
    leaves: Mapping[int, int], depth: int, root: ConnectFourState | None = None
) -> dict[int, int]:
    """Every position with at most ``depth`` discs (below ``root``, the empty board by
    default), scored by negamax from ``leaves``: the scores of the positions with exactly
    ``depth`` discs, by :func:`canonical_key`.

    Raises:
        KeyError: a position with ``depth`` discs is missing from ``leaves``.
    """
    scores = dict(leaves)

    def score(state: ConnectFourState) -> int:
        key = canonical_key(state)
        if key in scores:
            return scores[key]
        if (state.red | state.yellow).bit_count() >= depth:
            raise KeyError(f"a position with {depth} discs is not among the leaves")
        best = -CELLS
        for action in state.legal_actions():
            child = state.apply(action)
            best = max(best, -terminal_score(child) if child.is_terminal() else -score(child))
        scores[key] = best
        return best

    score(ConnectFourState.initial() if root is None else root)
    return scores


def save_book(
    path: Path,
    scores: Mapping[int, int],
    depth: int,
    meta: Mapping[str, object],
    moves: Mapping[int, int] | None = None,
) -> None:
    """Write a book: ``path`` (``.npz``: sorted keys, scores and the best column of the
    positions in ``moves``, ``-1`` for the others) and its JSON beside it."""
    keys = np.array(sorted(scores), dtype=np.uint64)
    values = np.array([scores[int(key)] for key in keys], dtype=np.int8)
    moves = moves or {}
    columns = np.array([moves.get(int(key), -1) for key in keys], dtype=np.int8)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, keys=keys, scores=values, moves=columns)
    info = {"depth": depth, "positions": len(keys), **meta}
    path.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n")


def load_book(path: Path) -> Book:
    """Read a book written by :func:`save_book`.

    Raises:
        ValueError: the file is not a book (no ``keys`` and ``scores`` of one length, keys not
            sorted, moves other than columns or ``-1``, or no depth in its JSON).
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, scores = data["keys"], data["scores"]
            moves = data["moves"] if "moves" in data else np.full(len(keys), -1, dtype=np.int8)
        info = json.loads(path.with_suffix(".json").read_text())
        depth = int(info["depth"])
    except (OSError, KeyError, ValueError, TypeError) as error:
        raise InvalidFileError(f"{path}: not a Connect Four book ({error})") from None
    if keys.dtype != np.uint64 or scores.dtype != np.int8 or keys.shape != scores.shape:
        raise InvalidFileError(
            f"{path}: not a Connect Four book (keys uint64, scores int8, one each)"
        )
    if len(keys) > 1 and not bool(np.all(keys[1:] > keys[:-1])):
        raise InvalidFileError(f"{path}: the book's keys are not sorted")
    if (
        moves.dtype != np.int8
        or moves.shape != keys.shape
        or not bool(np.all((moves >= -1) & (moves < COLS)))
    ):
        raise InvalidFileError(f"{path}: not a Connect Four book (moves int8, a column or -1 each)")
    return Book(keys, scores, depth, info, moves)


@cache
def shipped_book() -> Book | None:
    """The book shipped with boardzoo, ``None`` if there is none."""
    return load_book(BOOK_PATH) if BOOK_PATH.is_file() else None
