"""Game records: the schema of one line of a record file, and the checks of a record.

A record written by the arena holds everything needed to replay, audit and re-score a game::

    {"format": 2, "boardzoo_version": "0.1.0", "timestamp": "2024-05-01T12:00:00+00:00",
     "game": "reversi", "options": {"board_size": 8}, "agents": ["mcts:simulations=50", "greedy"],
     "agent_configs": [{"name": "mcts", "class": "...", "options": {...}}, ...],
     "match_seed": 0, "game_index": 3, "seed": 8731..., "agent_seeds": [..., ...],
     "time_limit": 60.0, "opening_plies": 0, "pair_openings": false,
     "first": 1, "colours": ["white", "black"],
     "moves": [19, 18, ...], "move_names": ["d3", "c3", ...], "move_times": [0.012, ...],
     "move_agents": [1, 0, ...],
     "illegal_attempts": [{"ply": 7, "agent": 0, "action": 0, "name": "a1", "time": 0.001}],
     "result": "1-0", "scores": [0.0, 1.0], "winner": 1, "discs": [40, 24],
     "reason": "normal", "forfeit": null, "error": null, "traceback": null,
     "forfeit_time": null}

``game`` is a catalog name and ``options`` every option of that game (``{}`` for games without
options); :func:`record_game` turns the two into the :class:`~boardzoo.games.spec.Game`.
``agents``, ``scores``, ``winner``, ``forfeit`` and ``illegal_attempts[].agent`` use the match's
agent order; ``first`` is the agent that moved first (``colours`` names each agent's side, from
the game's ``sides``) and ``result`` is written from the first player's side, as in PGN.
``move_names`` come from :meth:`Game.action_name <boardzoo.games.spec.Game.action_name>`;
``discs`` counts each player's pieces on the final board (player 0 first). ``move_times`` holds
the seconds the arena waited for each move and ``move_agents`` the agent who made it (both
``null`` for the random opening plies). ``forfeit_time`` is the seconds the arena waited for the
answer that lost a game on time (``null`` otherwise; older records lack it). Tournament records add
``tournament_seed``. Games played from a suite of openings (:mod:`boardzoo.arena.openings`) add
``openings`` (the suite's source: a file name or ``"balanced"``), ``openings_sha256`` (its digest,
which a resumed run compares), ``opening`` (the game's opening, its moves' names concatenated:
``"f5d6c4d3"``) and ``opening_index`` (its place in the suite); their opening plies are recorded
like random ones. Records without these fields (random or no openings, older files) read as before.

Format 1 (before game options) wrote the one option it knew as a field of the record
(``"board_size": N``) instead of ``"options"``; such records are still read: :func:`record_options`
takes the fields that are options of the record's game, and ignores the others (TicTacToe's
records said ``"board_size": 3``, and TicTacToe has no options).

A line is checked by :func:`parse_record` when it is read (:mod:`boardzoo.arena.record_reading`);
records are written by :mod:`boardzoo.arena.record_writing`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.catalog import get_game

if TYPE_CHECKING:
    from collections.abc import Mapping

    from boardzoo.games.spec import Game

__all__ = [
    "RECORD_FORMAT",
    "TIMING_FIELDS",
    "GameRecord",
    "IllegalAttempt",
    "MatchSettingsError",
    "RecordError",
    "RecordWarning",
    "parse_record",
    "record_game",
    "record_index",
    "record_options",
    "without_timing",
]

# 2: "options" (every option of the game) replaced format 1's "board_size".
RECORD_FORMAT = 2
# Fields that differ between two runs of the same match (wall-clock measurements).
TIMING_FIELDS = ("timestamp", "move_times", "forfeit_time")


class RecordError(InvalidFileError):
    """A record file that cannot be read, or a line in it that is not a valid record."""


class RecordWarning(UserWarning):
    """A record file that can be read, with something skipped (a last line cut short)."""


class MatchSettingsError(InvalidValueError):
    """A record file that belongs to a different match than the one asked to resume."""


class IllegalAttempt(TypedDict):
    """An illegal answer of an agent; it was asked again (three in a row lose)."""

    ply: int
    agent: int
    action: int | None
    name: str | None
    time: float


class GameRecord(TypedDict, total=False):
    """One finished game, as stored on one line of a JSONL file (see the module docstring)."""

    format: int
    boardzoo_version: str
    timestamp: str
    game: str
    options: dict[str, int]
    board_size: int  # format 1 only (see record_options)
    agents: list[str]
    agent_configs: list[dict[str, Any]]
    match_seed: int
    tournament_seed: int
    game_index: int
    seed: int
    agent_seeds: list[int]
    time_limit: float | None
    opening_plies: int
    pair_openings: bool
    openings: str
    openings_sha256: str
    opening: str
    opening_index: int
    first: int
    colours: list[str]
    moves: list[int]
    move_names: list[str]
    move_times: list[float | None]
    move_agents: list[int | None]
    illegal_attempts: list[IllegalAttempt]
    result: str
    scores: list[float]
    winner: int | None
    discs: list[int] | None
    reason: str
    forfeit: int | None
    error: str | None
    traceback: str | None
    forfeit_time: float | None


def _reject_constant(name: str) -> None:
    raise InvalidValueError(f"{name} is not a JSON number")


def parse_record(text: str, where: str) -> GameRecord:
    """One line of a record file as a record, checked for what replaying it needs: a JSON
    object (strict: no NaN or infinity) with a ``game`` name, a list of ``moves`` (action
    numbers or names) and integer ``options``.

    Raises:
        RecordError: the line is not such a record; the message starts with ``where``.
    """
    try:
        record = json.loads(text, parse_constant=_reject_constant)
    except ValueError as error:
        raise RecordError(f"{where}: not valid JSON ({error})") from None
    if not isinstance(record, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if not isinstance(record.get("game"), str):
        raise RecordError(f"{where}: a record needs a 'game' name")
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(
        isinstance(m, (int, str)) and not isinstance(m, bool) for m in moves
    ):
        raise RecordError(f"{where}: 'moves' must be a list of actions (integers or names)")
    options = record.get("options", {})
    if not isinstance(options, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in options.values()
    ):
        raise RecordError(f"{where}: 'options' must map option names to integers, got {options!r}")
    return record  # type: ignore[return-value]  # (checked field by field above: a GameRecord)


def record_options(record: Mapping[str, Any]) -> dict[str, int]:
    """The game options a record was played with, whatever its format.

    A record of the current format has them in ``"options"``. A format-1 record has them as
    fields of its own: those that are options of the record's game are taken, the others
    ignored (see the module docstring). The values are not checked here (:func:`record_game`
    checks them).
    """
    if "options" in record:
        return dict(record["options"])
    spec = get_game(record["game"])
    return {option.name: record[option.name] for option in spec.options if option.name in record}


def record_game(record: Mapping[str, Any]) -> Game:
    """The game a record was played in: its catalog game with its options (any format).

    Raises:
        RecordError: the record names no game, an unknown game, or options that game does not
            have or allow.
    """
    name = record.get("game")
    if not isinstance(name, str):
        raise RecordError(f"a record needs a 'game' name, got {name!r}")
    try:
        return get_game(name).make(**record_options(record))
    except ValueError as error:
        raise RecordError(f"record of game {name!r}: {error}") from None


def record_index(record: GameRecord, position: int) -> int:
    """The index a record is known by: its ``game_index``, or (a bare record without one) its
    position among the file's records."""
    index = record.get("game_index")
    return index if isinstance(index, int) and not isinstance(index, bool) else position


def without_timing(record: GameRecord) -> dict[str, Any]:
    """``record`` without its wall-clock fields, to compare two runs of the same match.

    Drops :data:`TIMING_FIELDS` and the ``time`` of each illegal attempt.
    """
    stripped: dict[str, Any] = {k: v for k, v in record.items() if k not in TIMING_FIELDS}
    if "illegal_attempts" in stripped:
        stripped["illegal_attempts"] = [
            {k: v for k, v in attempt.items() if k != "time"}
            for attempt in stripped["illegal_attempts"]
        ]
    return stripped
