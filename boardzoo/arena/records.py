"""Game records: one JSON object per line (JSONL), appended and flushed as each game ends.

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

Format 1 (before game options) wrote ``"board_size": N`` instead of ``"options"``; such records
are still read: :func:`record_options` gives ``{"board_size": N}`` for a game that has that option
(Reversi) and ``{}`` for the others (TicTacToe's records said ``"board_size": 3``).

Files are read as JSON only: no pickle, no eval. :func:`read_records` needs only ``game`` and
``moves`` on each line (enough to replay a game; moves may be action numbers or names such as
``"d3"``); the arena checks its own fields when it resumes. A last line cut short (a run killed
while writing it: no newline, not valid JSON) is skipped with a :class:`RecordWarning`; a resumed
run removes it. :func:`find_game` picks a game by the ``game_index`` it was recorded with.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO, TypedDict

from boardzoo.games.catalog import get_game

if TYPE_CHECKING:
    from collections.abc import Mapping

    from boardzoo.games.spec import Game

__all__ = [
    "RECORD_FORMAT",
    "TIMING_FIELDS",
    "GameRecord",
    "IndexSet",
    "MatchSettingsError",
    "RecordError",
    "RecordScan",
    "RecordStream",
    "RecordWarning",
    "RecordWriter",
    "find_game",
    "index_ranges",
    "open_records",
    "read_records",
    "record_game",
    "record_index",
    "record_options",
    "scan_records",
    "without_timing",
]

# 2: "options" (every option of the game) replaced format 1's "board_size".
RECORD_FORMAT = 2
# Fields that differ between two runs of the same match (wall-clock measurements).
TIMING_FIELDS = ("timestamp", "move_times", "forfeit_time")


class RecordError(ValueError):
    """A record file that cannot be read, or a line in it that is not a valid record."""


class RecordWarning(UserWarning):
    """A record file that can be read, with something skipped (a last line cut short)."""


class MatchSettingsError(ValueError):
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
    raise ValueError(f"{name} is not a JSON number")


def _parse_line(text: str, where: str) -> GameRecord:
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

    A record of the current format has them in ``"options"``. A format-1 record has only
    ``"board_size"``: it becomes ``{"board_size": N}`` when the record's game has that option,
    and ``{}`` otherwise (TicTacToe's format-1 records said ``"board_size": 3``). The values are
    not checked here (:func:`record_game` checks them).
    """
    if "options" in record:
        return dict(record["options"])
    if "board_size" in record:
        spec = get_game(record["game"])
        if any(option.name == "board_size" for option in spec.options):
            return {"board_size": record["board_size"]}
    return {}


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


@dataclass(frozen=True)
class RecordScan:
    """What :func:`scan_records` found in a file.

    Attributes:
        records: ``(line number, record)`` of every record, in file order.
        truncated_at: the byte offset where a last line cut short starts (``None`` if there is
            none): a resumed run cuts the file there before appending.
        truncated_line: that line's number.
        note: a sentence about what was skipped (``None`` if nothing was).
    """

    records: list[tuple[int, GameRecord]]
    truncated_at: int | None = None
    truncated_line: int | None = None
    note: str | None = None


def read_records(
    path: str | os.PathLike[str],
    *,
    require_games: bool = False,
    notes: list[str] | None = None,
    allow_truncated_end: bool = True,
) -> list[GameRecord]:
    """Read the game records of a JSONL file, in file order.

    A last line cut short (no newline at its end and not a valid record: what a run killed while
    writing leaves behind) is skipped: it is reported by a :class:`RecordWarning`, or appended to
    ``notes`` when a list is given (for a caller that shows it its own way).

    Args:
        path: the file (written by :func:`~boardzoo.arena.play_match` or a tournament).
        require_games: a file without any game is an error ("holds no games yet").
        notes: receives what was skipped instead of a warning.
        allow_truncated_end: ``False`` makes a cut last line an error instead (kept for callers
            of earlier versions, where that was the default).

    Returns:
        One dict per record line.

    Raises:
        RecordError: the file cannot be read, a line before the last is not a JSON object with a
            ``game`` and a list of ``moves`` (ints or names), or (``require_games``) the file
            holds no game; the message names the file and the line.
    """
    scan = scan_records(path)
    if scan.note is not None:
        if not allow_truncated_end:
            raise RecordError(scan.note.replace("skipped an incomplete", "an incomplete"))
        if notes is not None:
            notes.append(scan.note)
        else:
            warnings.warn(scan.note, RecordWarning, stacklevel=2)
    if require_games and not scan.records:
        raise RecordError(_no_games(Path(path), scan))
    return [record for _, record in scan.records]


def _no_games(path: Path, scan: RecordScan) -> str:
    if scan.truncated_line is not None:
        return (
            f"{path} holds no complete game yet: its only record was cut short (a run stopped "
            "while writing it)"
        )
    return f"{path} holds no games yet"


def scan_records(path: str | os.PathLike[str]) -> RecordScan:
    """Read a record file line by line (see :func:`read_records`), keeping each record's line
    number, and where a last line cut short starts.

    Raises:
        RecordError: the file cannot be read, or a line that is not the last is not a valid
            record (the message names the file and the line).
    """
    stream = RecordStream(path)
    records = list(stream)
    return RecordScan(records, stream.truncated_at, stream.truncated_line, stream.note)


class RecordStream:
    """The records of a file, read one line at a time as they are iterated (what
    :func:`scan_records` reads, without holding the file or its records in memory).

    Iterating gives ``(line number, record)`` in file order; once done, :attr:`truncated_at`,
    :attr:`truncated_line` and :attr:`note` tell of a last line cut short, as
    :class:`RecordScan` does. Each iteration reads the file again.

    Raises (while iterating):
        RecordError: the file cannot be read, or a line that is not the last is not a valid
            record (the message names the file and the line).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.truncated_at: int | None = None
        self.truncated_line: int | None = None
        self.note: str | None = None

    def __iter__(self) -> Iterator[tuple[int, GameRecord]]:
        path = self.path
        self.truncated_at = self.truncated_line = self.note = None
        try:
            source = open(path, "rb")  # noqa: SIM115 (closed below, also on an error)
        except FileNotFoundError:
            raise RecordError(f"cannot read records: {path} does not exist") from None
        except IsADirectoryError:
            folder = f"cannot read records: {path} is a folder, not a JSONL file"
            raise RecordError(folder) from None
        except OSError as error:
            raise RecordError(f"cannot read records from {path}: {_reason(error)}") from None
        with source:
            offset = 0
            for number, raw in enumerate(_lines(source, path), start=1):
                start, offset = offset, offset + len(raw)
                last = not raw.endswith(b"\n")  # no newline after it: the file's end
                if not last:
                    raw = raw[:-1]
                if not raw.strip():
                    continue
                where = f"{path}, line {number}"
                try:
                    record = _parse_line(raw.decode("utf-8"), where)
                except (UnicodeDecodeError, RecordError) as error:
                    if last:  # the write was cut short
                        self.note = (
                            f"{where}: skipped an incomplete last line (a run stopped while "
                            "writing it); resuming the run removes it"
                        )
                        self.truncated_at, self.truncated_line = start, number
                        return
                    if isinstance(error, UnicodeDecodeError):
                        raise RecordError(f"{where}: not UTF-8 text") from None
                    raise
                yield number, record


def _lines(source: BinaryIO, path: Path) -> Iterator[bytes]:
    """The lines of an open file, each with its newline (the last one maybe without)."""
    try:
        yield from source
    except OSError as error:
        raise RecordError(f"cannot read records from {path}: {_reason(error)}") from None


class IndexSet:
    """A set of game indices (integers >= 0) in memory that stays flat when they come roughly
    in order: those below a frontier are one count, the others a set.

    Used to know which games of a run are played already, however many there are.
    """

    def __init__(self, indices: Iterable[int] = ()) -> None:
        self._below = 0  # every index below this is in the set
        self._above: set[int] = set()
        for index in indices:
            self.add(index)

    def add(self, index: int) -> None:
        """Put ``index`` in the set."""
        if isinstance(index, int) and 0 <= index < self._below:
            return
        self._above.add(index)
        while self._below in self._above:
            self._above.remove(self._below)
            self._below += 1

    def __contains__(self, index: object) -> bool:
        if isinstance(index, int) and 0 <= index < self._below:
            return True
        return index in self._above

    def __len__(self) -> int:
        return self._below + len(self._above)


def _make_folder(folder: Path) -> None:
    """Create ``folder`` and its parents; a :class:`RecordError` naming the file in the way."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (folder, *folder.parents) if p.is_file()), folder)
        raise RecordError(f"cannot create {folder}: {blocker} is a file, not a folder") from None


def _reason(error: OSError) -> str:
    """An OS error in words, without its ``[Errno N]`` prefix."""
    return (error.strerror or type(error).__name__).lower()


def record_index(record: GameRecord, position: int) -> int:
    """The index a record is known by: its ``game_index``, or (a bare record without one) its
    position among the file's records."""
    index = record.get("game_index")
    return index if isinstance(index, int) and not isinstance(index, bool) else position


def index_ranges(indices: Iterable[int]) -> str:
    """``[0, 1, 2, 3, 5, 8, 9]`` as ``"0-3, 5, 8-9"``."""
    ordered = sorted(set(indices))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(parts)


def find_game(
    records: Sequence[GameRecord],
    game_index: int,
    source: str | os.PathLike[str] | None = None,
    agents: Sequence[str] | None = None,
) -> GameRecord:
    """The record of game ``game_index`` (its recorded ``game_index``, not its line).

    Records without a ``game_index`` (bare ``game`` and ``moves`` lines) are numbered by their
    position among the records. A tournament's file holds a game ``N`` for every pair: ``agents``
    (the two agents' labels, in either order) chooses one.

    Args:
        records: from :func:`read_records`.
        game_index: the game wanted.
        source: the file they come from, named in messages.
        agents: only a game between these two agents.

    Raises:
        RecordError: no such game (the message lists the indices there are), no games at all,
            or several games of that index between different agents.
    """
    name = "the records" if source is None else str(source)
    if isinstance(game_index, bool) or not isinstance(game_index, int) or game_index < 0:
        raise RecordError(f"game {game_index!r} is not a game index: indices are integers >= 0")
    if not records:
        raise RecordError(f"{name} holds no games yet")
    pair = None if agents is None else [str(a) for a in agents]
    chosen = [
        (position, record)
        for position, record in enumerate(records)
        if pair is None or sorted(map(str, record.get("agents") or [])) == sorted(pair)
    ]
    if not chosen:
        raise RecordError(f"{name} holds no game between {' and '.join(pair or [])}")
    found = [record for position, record in chosen if record_index(record, position) == game_index]
    if not found:
        held = index_ranges(record_index(record, position) for position, record in chosen)
        between = "" if pair is None else f" between {' and '.join(pair)}"
        raise RecordError(f"game {game_index} is not in {name}: it holds games {held}{between}")
    pairs = []
    for record in found:
        agents_of = record.get("agents")
        if agents_of not in pairs:
            pairs.append(agents_of)
    if len(pairs) > 1:
        listed = "; ".join(" vs ".join(map(str, p)) if p else "?" for p in pairs)
        raise RecordError(
            f"{name} holds {len(pairs)} games with index {game_index}, one per pair of agents "
            f"({listed}): choose the pair too"
        )
    return found[0]


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


def record_line(record: GameRecord) -> str:
    """``record`` as one line of strict JSON (no NaN or infinity), ending in a newline."""
    return json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n"


class RecordWriter:
    """Appends records to a JSONL file, one line each, flushed to disk at once.

    Safe to share between threads. Use as a context manager or call :meth:`close`.

    Args:
        path: the file; created (with its folder) if missing, appended to otherwise.
        truncate_at: cut the file to this many bytes first (to drop a half-written last line).
    """

    def __init__(self, path: str | os.PathLike[str], truncate_at: int | None = None) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            _make_folder(self.path.parent)
            self._file = open(self.path, "ab")  # noqa: SIM115 (kept open: closed in close())
            if truncate_at is not None:
                self._file.truncate(truncate_at)
            elif self._file.tell() > 0 and not self._ends_with_newline():
                self._file.write(b"\n")
        except OSError as error:
            raise RecordError(f"cannot write records to {self.path}: {_reason(error)}") from None

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as existing:
            existing.seek(-1, os.SEEK_END)
            return existing.read(1) == b"\n"

    def append(self, record: GameRecord) -> None:
        """Write ``record`` as one line and flush it to disk."""
        line = record_line(record).encode("utf-8")
        with self._lock:
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())

    def extend(self, records: Iterable[GameRecord]) -> None:
        """Append several records."""
        for record in records:
            self.append(record)

    def close(self) -> None:
        """Close the file (a second call does nothing)."""
        with self._lock:
            self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


# The fields a resumed run reads from the games already played.
ARENA_FIELDS = (
    "game_index",
    "agents",
    "match_seed",
    "first",
    "scores",
    "reason",
    "forfeit",
    "move_times",
    "move_agents",
    "illegal_attempts",
)


def open_records(
    out: str | os.PathLike[str],
    resume: bool,
    belongs: Callable[[GameRecord], str | None],
    on_record: Callable[[GameRecord], None] | None = None,
) -> tuple[list[GameRecord], RecordWriter]:
    """Open a record file for a run: check it, read what a resumed run already has.

    A last line cut short (a run killed while writing) is cut off the file before the first new
    record is appended.

    Args:
        out: the JSONL file.
        resume: read the games already there (and play only the others); without it, the file
            must be missing, empty or blank.
        belongs: ``record -> None`` if the record belongs to this run, else why not.
        on_record: given, each record already there (first of each game) is handed to it as
            the file is read, and none is kept: the list returned is empty (a run of any length
            resumes in flat memory).

    Returns:
        The records already there (first of each game; none with ``on_record``) and a writer
        appending to the file.

    Raises:
        FileExistsError: the file holds something and ``resume`` is not set.
        RecordError: the file cannot be read or written, or a line is not an arena record.
        MatchSettingsError: a record of another match.
    """
    path = Path(out)
    if path.is_dir():
        raise RecordError(f"{path} is a folder: the records go to a JSONL file")
    existing: list[GameRecord] = []
    truncate_at = None
    if _holds_something(path):
        if not resume:
            raise FileExistsError(
                f"{path} already holds games: resume that run (resume=True, --resume) or "
                "choose another file"
            )
        stream = RecordStream(path)
        seen: dict[tuple[Any, ...], IndexSet] = {}
        for line, record in stream:
            missing = [key for key in ARENA_FIELDS if key not in record]
            if missing or not all(isinstance(m, int) for m in record["moves"]):
                what = f"no {', '.join(missing)}" if missing else "moves are not action numbers"
                raise RecordError(f"{path}, line {line}: not an arena record ({what})")
            why = belongs(record)
            if why is not None:
                raise MatchSettingsError(
                    f"cannot resume {path}: line {line} was played with {why}; resume with the "
                    "same settings, or write to another file"
                )
            played = seen.setdefault(tuple(record["agents"]), IndexSet())
            if record["game_index"] not in played:
                played.add(record["game_index"])
                if on_record is not None:
                    on_record(record)
                else:
                    existing.append(record)
        truncate_at = stream.truncated_at
    return existing, RecordWriter(path, truncate_at=truncate_at)


def _holds_something(path: Path) -> bool:
    """Whether ``path`` is a file with something other than blanks in it."""
    try:
        if not path.exists() or path.stat().st_size == 0:
            return False
        with open(path, "rb") as source:
            while chunk := source.read(1 << 20):
                if chunk.strip():
                    return True
    except OSError as error:
        raise RecordError(f"cannot read records from {path}: {_reason(error)}") from None
    return False
