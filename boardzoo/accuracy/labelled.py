"""Labelled positions: positions of a game, each with the exact score of every legal move.

The fixed sets a learner is measured on (:mod:`boardzoo.accuracy.measure`), as the field measures
learners on solved games: the share of positions where its move is a perfect player's. A set is
a JSON-lines file: a first line saying what it is, then one line a position::

    {"game": "connect_four", "options": {}, "command": "...", "made": "2026-11-26", ...}
    {"moves": [3, 3, 4], "source": "greedy-random", "game_index": 17, "scores": {"0": -2, ...}}

``moves`` are the actions from the game's start, ``scores`` the exact score of each legal action
for the player to move (:func:`boardzoo.gametree.solve.solve`'s convention: Reversi's final disc
difference, Connect Four's how soon the game is won, 1/0/-1 for the others). Files are parsed,
never executed. The shipped sets are in ``boardzoo/games/data`` (:func:`shipped_set_path`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardzoo.errors import InvalidFileError
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = [
    "LabelledPosition",
    "LabelledSet",
    "append_positions",
    "read_labelled",
    "result_of",
    "shipped_set_path",
    "write_header",
]

DATA = Path(__file__).resolve().parents[1] / "games" / "data"


def result_of(score: int) -> int:
    """The game's result a score means for the player to move: 1 a win, 0 a draw, -1 a loss."""
    return (score > 0) - (score < 0)


@dataclass(frozen=True)
class LabelledPosition:
    """A position and the exact score of each of its legal moves.

    Attributes:
        moves: the actions from the game's start that reach it.
        scores: the exact score of each legal action, for the player making it.
        source: which players' game it comes from (``"greedy-random"``).
        game_index: the number of the game it comes from (the generation resumes by it).
    """

    moves: tuple[int, ...]
    scores: Mapping[int, int]
    source: str = ""
    game_index: int = 0

    @property
    def best(self) -> int:
        """The position's exact score: its best move's."""
        return max(self.scores.values())

    @property
    def critical(self) -> bool:
        """Whether some move changes the result (gives away a win or a draw)."""
        return any(result_of(v) != result_of(self.best) for v in self.scores.values())

    def state(self, game: Game) -> BoardState:
        """The position, replayed from ``game``'s start."""
        state = game.initial_state()
        for action in self.moves:
            state = state.apply(action)
        return state

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": list(self.moves),
            "source": self.source,
            "game_index": self.game_index,
            "scores": {str(action): score for action, score in sorted(self.scores.items())},
        }


@dataclass(frozen=True)
class LabelledSet:
    """A game's labelled positions and how they were made.

    Attributes:
        game: the game, with its options.
        positions: the positions.
        header: the file's first line (game, options, the command that made it, ...).
    """

    game: Game
    positions: Sequence[LabelledPosition]
    header: Mapping[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.positions)


def shipped_set_path(game: Game) -> Path:
    """Where the set shipped for ``game`` lives (``labelled-reversi-6x6.jsonl``)."""
    return DATA / f"labelled-{game.file_stem}.jsonl"


def write_header(path: Path, game: Game, info: Mapping[str, Any]) -> None:
    """Start a set file: its first line (the game, its options and ``info``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"game": game.name, "options": dict(game.options), **info}
    path.write_text(json.dumps(header) + "\n")


def append_positions(path: Path, positions: Iterable[LabelledPosition]) -> None:
    """Add positions to a set file (one line each, written at once: a run can stop anywhere)."""
    with path.open("a") as out:
        for position in positions:
            out.write(json.dumps(position.to_json()) + "\n")


def read_labelled(path: Path) -> LabelledSet:
    """Read a set file, checking every line.

    Raises:
        ValueError: the file is missing, or a line is not what a set holds (naming the line):
            the header without a known game, a position whose moves are illegal, or whose
            scores are not exactly its legal moves'.
    """
    if not path.is_file():
        raise InvalidFileError(f"{path}: no such labelled set")
    lines = path.read_text().splitlines()
    try:
        header: dict[str, Any] = json.loads(lines[0]) if lines else {}
        game = make_game(header["game"], **header.get("options", {}))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise InvalidFileError(f"{path}, line 1: not a labelled set's header ({error})") from None
    positions = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            position = LabelledPosition(
                tuple(int(a) for a in row["moves"]),
                {int(a): int(v) for a, v in row["scores"].items()},
                str(row.get("source", "")),
                int(row.get("game_index", 0)),
            )
            legal = set(position.state(game).legal_actions())
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as error:
            raise InvalidFileError(
                f"{path}, line {number}: not a labelled position ({error})"
            ) from None
        if set(position.scores) != legal or not legal:
            raise InvalidFileError(
                f"{path}, line {number}: scores for actions {sorted(position.scores)}, but the "
                f"legal actions there are {sorted(legal)}"
            )
        positions.append(position)
    return LabelledSet(game, positions, header)
