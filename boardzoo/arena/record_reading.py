"""Reading game record files (one record a line; :mod:`boardzoo.arena.record_schema`), whole or
as a stream, and finding games in them.

Files are read as JSON only: no pickle, no eval. :func:`read_records` needs only ``game`` and
``moves`` on each line (enough to replay a game; moves may be action numbers or names such as
``"d3"``); the arena checks its own fields when it resumes. A last line cut short (a run killed
while writing it: no newline, not valid JSON) is skipped with a :class:`RecordWarning`; a resumed
run removes it. :func:`find_game` picks a game by the ``game_index`` it was recorded with.

:class:`IndexSet` keeps which games of a run are read (played) already, in flat memory.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from boardzoo.arena.record_schema import (
    GameRecord,
    RecordError,
    RecordWarning,
    parse_record,
    record_index,
)

__all__ = [
    "IndexSet",
    "RecordScan",
    "RecordStream",
    "find_game",
    "index_ranges",
    "os_reason",
    "read_records",
    "scan_records",
]


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
            raise RecordError(f"cannot read records from {path}: {os_reason(error)}") from None
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
                    record = parse_record(raw.decode("utf-8"), where)
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
        raise RecordError(f"cannot read records from {path}: {os_reason(error)}") from None


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


def os_reason(error: OSError) -> str:
    """An OS error in words, without its ``[Errno N]`` prefix."""
    return (error.strerror or type(error).__name__).lower()


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
