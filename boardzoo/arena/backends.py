"""Where games are played: the backends of the runner.

A :class:`Backend` takes one :class:`~boardzoo.arena.settings.GameTask` at a time and returns a
future of its record; :func:`~boardzoo.arena.runner.run_games` keeps ``slots`` of them in play.

- :class:`LocalBackend` (``backend="local"``, the default): worker threads in this process, each
  driving a :class:`~boardzoo.arena.game_worker.GameWorker` (in a process of its own with two
  workers or more) and its agents' processes
  (:class:`~boardzoo.arena.process_player.ProcessPlayer`), kept from game to game.
- :class:`~boardzoo.arena.ray_backend.RayBackend` (``backend="ray"``): Ray actors on a cluster,
  each playing whole games the way a local worker does (``pip install boardzoo[ray]``).

:func:`~boardzoo.arena.runner.make_backend` picks one from the arena settings.
"""

from __future__ import annotations

import logging
import os
import threading
from abc import ABC, abstractmethod
from concurrent.futures import Future, ThreadPoolExecutor

from boardzoo.agents.base import Agent
from boardzoo.arena.game_worker import GameWorker, WorkerDiedError, WorkerProcess
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.settings import GameTask

__all__ = ["MAX_REPLAYS", "Backend", "GameWorker", "LocalBackend"]

LOGGER = logging.getLogger(__name__)
MAX_REPLAYS = 3  # deaths of the worker playing one game before the run gives up


class Backend(ABC):
    """Plays games: :meth:`submit` one, get a future of its record (``None``: dropped, the run
    being interrupted)."""

    slots: int  # games it plays at once

    @abstractmethod
    def submit(self, task: GameTask) -> Future[GameRecord | None]:
        """Start playing ``task`` (or queue it) and return the future of its record."""

    @abstractmethod
    def kill(self) -> None:
        """Stop every game in play now (the run is interrupted): agents are killed."""

    @abstractmethod
    def close(self) -> None:
        """Wait for the games in play, then release the workers and their agents."""


class LocalBackend(Backend):
    """Games on ``workers`` threads of this process, each driving workers of its own.

    With two workers or more, a game between agents given as specs (or agent objects packed to
    be played in processes of their own) is played by a
    :class:`~boardzoo.arena.game_worker.WorkerProcess`: the referee runs in a process of its
    own (with its agents' processes, or, with ``isolate=False``, the agents themselves), so
    that games played at once do not wait for each other on this process's interpreter lock.
    Otherwise (one worker, or agent objects played in this process) a
    :class:`~boardzoo.arena.game_worker.GameWorker` plays it in the thread. A game whose
    worker process dies is played again from the start by a new one (a warning on the
    ``boardzoo.arena.backends`` logger), at most :data:`MAX_REPLAYS` times. The cores are shared
    out among the games played at once: each worker process's agents may use
    :attr:`threads_a_game` threads (``OMP_NUM_THREADS``, unless set already), so that two torch
    agents thinking at once do not fight over the same cores.

    Attributes:
        replayed: games played again because their worker process died.
    """

    def __init__(self, workers: int, isolate: bool, setup_timeout: float) -> None:
        self.slots = workers
        self.isolate = isolate
        self.setup_timeout = setup_timeout
        self.replayed = 0
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boardzoo-arena")
        self._local = threading.local()
        self._workers: list[GameWorker | WorkerProcess] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()

    @property
    def threads_a_game(self) -> int:
        """The cores shared out among the games played at once (at least 1): the threads that
        the agents of each worker process may use."""
        return max(1, (os.cpu_count() or 1) // self.slots)

    def in_process_of_its_own(self, task: GameTask) -> bool:
        """Whether ``task`` is played by a worker process (see the class docstring)."""
        return self.slots >= 2 and not any(isinstance(a, Agent) for a in task.agents)

    def worker_pids(self) -> list[int]:
        """The process ids of the worker processes alive now (none while every game is played
        in this process's threads)."""
        with self._lock:
            workers = list(self._workers)
        return [w.pid for w in workers if isinstance(w, WorkerProcess) and w.pid is not None]

    def _worker(self, task: GameTask) -> GameWorker | WorkerProcess:
        """This thread's worker for ``task``: its worker process, or its in-thread worker."""
        kind = "process" if self.in_process_of_its_own(task) else "thread"
        worker: GameWorker | WorkerProcess | None = getattr(self._local, kind, None)
        if worker is None:
            if kind == "process":
                worker = WorkerProcess(self.isolate, self.setup_timeout, self.threads_a_game)
            else:
                worker = GameWorker(self.isolate, self.setup_timeout)
            setattr(self._local, kind, worker)
            with self._lock:
                self._workers.append(worker)
        return worker

    def _play(self, task: GameTask) -> GameRecord | None:
        deaths = 0
        while not self._stop.is_set():
            try:
                record = self._worker(task).play(task)
            except WorkerDiedError as error:
                if self._stop.is_set():
                    return None
                self._local.process = None  # the next try starts a new worker process
                deaths += 1
                if deaths > MAX_REPLAYS:
                    raise
                LOGGER.warning(
                    "game %d of %s: %s; playing it again from the start",
                    task.index, " vs ".join(task.settings.agents), error,
                )  # fmt: skip
                with self._lock:
                    self.replayed += 1
                continue
            return None if self._stop.is_set() else record
        return None

    def submit(self, task: GameTask) -> Future[GameRecord | None]:
        return self._pool.submit(self._play, task)

    def kill(self) -> None:
        self._stop.set()
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.kill()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        for worker in self._workers:
            worker.close()
