"""The runner behind matches, tournaments and experiments: games on a backend, records on disk.

:func:`run_games` keeps a backend's slots busy with games taken lazily from any iterable of
:class:`~boardzoo.arena.settings.GameTask`, hands each record to the caller's thread as soon as
its game ends, and stops taking games when asked. :class:`RecordedRun` adds what every run needs
around it: the record file opened (or resumed), one writer appending and fsyncing each record,
and the progress bar. Neither keeps the records of a run (the caller keeps what it needs of
each, :class:`~boardzoo.arena.results.MatchTotals`): a run of any length takes flat memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path

from boardzoo.arena.backends import Backend, LocalBackend
from boardzoo.arena.progress import ProgressBar
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.record_writing import RecordWriter, open_records
from boardzoo.arena.settings import ArenaSettings, GameTask

__all__ = ["RecordedRun", "make_backend", "run_games"]


def run_games(
    tasks: Iterable[GameTask],
    backend: Backend,
    on_record: Callable[[GameRecord], None] | None = None,
    stop_when: Callable[[], bool] | None = None,
    keep: bool = True,
) -> list[GameRecord]:
    """Play ``tasks`` on ``backend``, ``backend.slots`` at a time, and close it.

    ``tasks`` is consumed lazily: at most ``2 * slots`` games are taken ahead of the games
    finished, so a generator of any length costs no memory up front.

    Args:
        tasks: the games (any iterable, a generator included).
        backend: where they are played (closed on return).
        on_record: called in this thread with each record as soon as its game ends (games that
            end together: the one started first first).
        stop_when: asked (in this thread) before each game is started: ``True`` starts no more
            games; those in play finish and their records are kept. With it, only ``slots``
            games are taken ahead, so that stopping wastes no queued game.
        keep: ``False`` hands the records to ``on_record`` only and returns none, so that a run
            of any length takes flat memory.

    Returns:
        The records, in the order the games finished (none without ``keep``). If interrupted
        (KeyboardInterrupt or an error), the backend's agents are killed and games in progress
        are dropped.
    """
    records: list[GameRecord] = []
    pending: dict[Future[GameRecord | None], None] = {}  # in the order the games started
    upcoming = iter(tasks)
    ahead = 2 * backend.slots if stop_when is None else backend.slots

    def submit() -> None:
        """Keep ``ahead`` games queued or in play (a new one starts as one ends)."""
        while len(pending) < ahead:
            if stop_when is not None and stop_when():
                return
            task = next(upcoming, None)
            if task is None:
                return
            pending[backend.submit(task)] = None

    try:
        submit()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in [f for f in pending if f in finished]:  # the earliest game first
                del pending[future]
                record = future.result()
                if record is not None:
                    if keep:
                        records.append(record)
                    if on_record is not None:
                        on_record(record)
            submit()
    except BaseException:
        for future in pending:
            future.cancel()
        backend.kill()
        raise
    finally:
        backend.close()
    return records


class RecordedRun:
    """One run of games whose records go to a file when there is one.

    Opening the run reads what the file holds already (``resume``) and checks that it belongs
    to this run; :meth:`play` then plays the tasks on the settings' backend, and each finished
    game is appended to the file (fsynced; this thread is the only writer), handed to the
    caller and to the progress display. No record is kept here: the caller keeps what it needs
    of each (the file holds them all).

    Args:
        settings: how the games are run (backend, workers, resume).
        path: the record file; ``None`` writes none.
        belongs: ``record -> None`` if a record of the file belongs to this run, else why not.
        on_existing: given, each record the file holds already (the first of each game) is
            handed to it as the file is read, instead of being kept in :attr:`existing`.

    Attributes:
        existing: the records the file held already (empty with ``on_existing``).
        played: games played (and recorded) by :meth:`play`.

    Raises:
        FileExistsError: the file holds games and ``settings.resume`` is not set.
        MatchSettingsError: a record of the file belongs to another run.
    """

    def __init__(
        self,
        settings: ArenaSettings,
        path: Path | None,
        belongs: Callable[[GameRecord], str | None],
        on_existing: Callable[[GameRecord], None] | None = None,
    ) -> None:
        self.settings = settings
        self.path = path
        self.existing: list[GameRecord] = []
        self.played = 0
        self._writer: RecordWriter | None = None
        if path is not None:
            self.existing, self._writer = open_records(path, settings.resume, belongs, on_existing)

    def play(
        self,
        tasks: Iterable[GameTask],
        progress: ProgressBar,
        on_record: Callable[[GameRecord], None] | None = None,
        stop_when: Callable[[], bool] | None = None,
    ) -> int:
        """Play ``tasks`` (see :func:`run_games`), handing each record to ``on_record``; return
        the games played. The file is closed on return."""

        def finished(record: GameRecord) -> None:
            if self._writer is not None:
                self._writer.append(record)
            self.played += 1
            if on_record is not None:
                on_record(record)
            progress.update(record)

        try:
            with progress:
                run_games(tasks, make_backend(self.settings), finished, stop_when, keep=False)
        finally:
            if self._writer is not None:
                self._writer.close()
        return self.played


def make_backend(settings: ArenaSettings) -> Backend:
    """The backend ``settings`` ask for.

    Raises:
        ImportError: ``backend="ray"`` without Ray installed (the message says what to install).
    """
    if settings.backend == "ray":
        from boardzoo.arena.ray_backend import RayBackend  # (ray, an optional dependency)

        return RayBackend(
            settings.workers, settings.isolate, settings.setup_timeout, settings.address
        )
    return LocalBackend(settings.workers, settings.isolate, settings.setup_timeout)
