"""Games on a Ray cluster (``backend="ray"``): Ray actors play whole games, the driver records.

Each of the ``workers`` actors is a :class:`~boardzoo.arena.game_worker.GameWorker`: it plays one
game at a time under the referee's rules, its agents in processes of their own on the actor's
node (built, prepared and compiled there before any clock runs), kept from game to game. The
driver hands games to idle actors, takes each record back and is the only writer of the record
file. Games that come back are handled on a thread of the backend's own, never on the Ray thread
that reports them: a blocking Ray call there (``ray.kill``, creating an actor) waits for that
very thread, and the run would hang.

Faults: a game whose actor dies (its process, or its whole node) is played again from the start
by a new actor, with a warning on the ``boardzoo.arena.ray_backend`` logger, and recorded once,
since a dead actor never returns a record; after :data:`MAX_REPLAYS` deaths in the same game the
run stops with the error. Games depend only on the match seed and their index
(:mod:`boardzoo.arena.seeds`), so a replayed game is the game it replaces, and a run gives the
same games as the local backend.

Requires Ray (``pip install boardzoo[ray]``). ``address`` joins a running cluster (``"auto"`` or
``"host:port"``, as :func:`ray.init` takes it); without one, a Ray instance is started on this
machine for the run and stopped after it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any

from boardzoo.arena.backends import MAX_REPLAYS, Backend, GameWorker
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.settings import GameTask
from boardzoo.errors import require_module

require_module("ray", "backend='ray'", "pip install 'boardzoo[ray]'")  # say how to get it

import ray  # noqa: E402
from ray.exceptions import NodeDiedError, RayActorError, WorkerCrashedError  # noqa: E402

__all__ = ["MAX_REPLAYS", "WORKER_LOST", "RayBackend", "join_ray"]

# What a call on an actor raises when the actor, its process or its node is gone (or cut off:
# ActorUnavailableError, a RayActorError, "may or may not have been executed").
WORKER_LOST = (RayActorError, NodeDiedError, WorkerCrashedError)

LOGGER = logging.getLogger(__name__)
_CLOSE_WAIT = 10.0  # seconds an actor has to close its agents before it is killed

# A game that came back: its actor, task, future, earlier deaths, and the Ray call's future.
_Returned = tuple[Any, GameTask, Future[GameRecord | None], int, Future[Any]]


def join_ray(address: str | None) -> bool:
    """Connect this process to Ray: the cluster at ``address`` (``"auto"``, ``"host:port"``), or
    a new local instance for ``None``; nothing when Ray already runs here. Returns whether it
    connected (so the caller shuts Ray down when done)."""
    if ray.is_initialized():
        return False
    ray.init(address=address, include_dashboard=False, configure_logging=False, log_to_driver=False)
    return True


class RayBackend(Backend):
    """``workers`` Ray actors playing games, each one game at a time.

    Args:
        workers: actors, so games played at once (each actor asks Ray for ``num_cpus`` CPUs).
        isolate: agents in processes of their own inside each actor's node (see
            :class:`~boardzoo.arena.game_worker.GameWorker`).
        setup_timeout: seconds to start an agent's process, and again to prepare it for a game.
        address: the cluster to join; ``None``: start one here (unless Ray is running already in
            this process, which is then used as it is).
        num_cpus: CPUs Ray reserves for each actor.

    Attributes:
        replayed: games played again because their actor died.
    """

    def __init__(
        self,
        workers: int,
        isolate: bool,
        setup_timeout: float,
        address: str | None = None,
        num_cpus: float = 1.0,
    ) -> None:
        self.slots = workers
        self.replayed = 0
        self._started_ray = join_ray(address)
        self._actor_class = ray.remote(num_cpus=num_cpus, max_restarts=0, max_task_retries=0)(
            GameWorker
        )
        self._isolate = isolate
        self._setup_timeout = setup_timeout
        self._lock = threading.Lock()
        self._queue: deque[tuple[GameTask, Future[GameRecord | None], int]] = deque()
        self._idle: list[Any] = []
        self._actors: list[Any] = []
        self._stopping = False
        # games that came back, from Ray's thread to the handler's (None: stop)
        self._returns: queue.SimpleQueue[_Returned | None] = queue.SimpleQueue()
        self._handler = threading.Thread(
            target=self._handle_returns, name="boardzoo-ray-returns", daemon=True
        )
        self._handler.start()

    def _new_actor(self) -> Any:
        actor = self._actor_class.remote(self._isolate, self._setup_timeout)
        self._actors.append(actor)
        return actor

    def submit(self, task: GameTask) -> Future[GameRecord | None]:
        future: Future[GameRecord | None] = Future()
        with self._lock:
            self._queue.append((task, future, 0))
        self._dispatch()
        return future

    def _dispatch(self) -> None:
        """Hand queued games to idle actors (new ones while fewer than ``slots`` exist)."""
        while True:
            with self._lock:
                if self._stopping or not self._queue:
                    return
                if self._idle:
                    actor = self._idle.pop()
                elif len(self._actors) < self.slots:
                    actor = self._new_actor()
                else:
                    return
                task, future, deaths = self._queue.popleft()
            # a first try starts the future (unless it was cancelled while queued); a replay's
            # is running already
            if deaths == 0 and not future.set_running_or_notify_cancel():
                with self._lock:
                    self._idle.append(actor)
                continue
            reference = actor.play.remote(task)
            reference.future().add_done_callback(
                lambda done, a=actor, t=task, f=future, d=deaths: self._returns.put(
                    (a, t, f, d, done)
                )
            )

    def _handle_returns(self) -> None:
        """Handle the games that came back, one after the other, until :meth:`close`."""
        while (returned := self._returns.get()) is not None:
            try:
                self._finished(*returned)
            except BaseException as error:  # a game's future is never left unresolved
                future = returned[2]
                if not future.done():
                    future.set_exception(error)

    def _finished(
        self,
        actor: Any,
        task: GameTask,
        future: Future[GameRecord | None],
        deaths: int,
        done: Future[Any],
    ) -> None:
        """A game came back: its record, the agent's error, or the news that its actor died."""
        error = done.exception()
        if self._stopping:  # the run was interrupted (kill): the game is dropped, not replayed
            future.set_result(None)
            return
        if isinstance(error, WORKER_LOST):  # the actor or its node died: replay the game
            with self._lock:
                self._actors = [a for a in self._actors if a != actor]
            ray.kill(actor, no_restart=True)
            if deaths + 1 > MAX_REPLAYS:
                future.set_exception(
                    RuntimeError(
                        f"game {task.index} of {' vs '.join(task.settings.agents)}: its Ray "
                        f"worker died {deaths + 1} times ({error})"
                    )
                )
            else:
                LOGGER.warning(
                    "game %d of %s: its Ray worker died (%s); playing it again from the start",
                    task.index, " vs ".join(task.settings.agents), type(error).__name__,
                )  # fmt: skip
                with self._lock:
                    self.replayed += 1
                    self._queue.appendleft((task, future, deaths + 1))
        else:
            with self._lock:
                self._idle.append(actor)
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(None if self._stopping else done.result())
        self._dispatch()

    def kill(self) -> None:
        with self._lock:
            self._stopping = True
            actors = list(self._actors)
        for actor in actors:
            ray.kill(actor, no_restart=True)

    def close(self) -> None:
        with self._lock:
            self._stopping = True
            actors, self._actors, self._idle = list(self._actors), [], []
        closing = [actor.close.remote() for actor in actors]
        if closing:
            ray.wait(closing, num_returns=len(closing), timeout=_CLOSE_WAIT)
        for actor in actors:
            ray.kill(actor, no_restart=True)
        self._returns.put(None)
        self._handler.join(timeout=_CLOSE_WAIT)
        if self._started_ray:
            ray.shutdown()
