"""Writing game records: each game one line of strict JSON, appended and flushed to disk
(``fsync``) as it ends; and opening a run's record file, reading what a resumed run has already.

The lines are records of :mod:`boardzoo.arena.record_schema`, read back by
:mod:`boardzoo.arena.record_reading`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from boardzoo.arena.record_reading import IndexSet, RecordStream, os_reason
from boardzoo.arena.record_schema import GameRecord, MatchSettingsError, RecordError
from boardzoo.errors import OutputExistsError

__all__ = [
    "ARENA_FIELDS",
    "RecordWriter",
    "open_records",
    "record_line",
]


def _make_folder(folder: Path) -> None:
    """Create ``folder`` and its parents; a :class:`RecordError` naming the file in the way."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (folder, *folder.parents) if p.is_file()), folder)
        raise RecordError(f"cannot create {folder}: {blocker} is a file, not a folder") from None


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
            raise RecordError(f"cannot write records to {self.path}: {os_reason(error)}") from None

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
            raise OutputExistsError(
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
        raise RecordError(f"cannot read records from {path}: {os_reason(error)}") from None
    return False
