"""Where games are played: the backends of the runner.

A :class:`Backend` takes one :class:`~boardzoo.arena.settings.GameTask` at a time and returns a
future of its record; :func:`~boardzoo.arena.runner.run_games` keeps ``slots`` of them in play.

- :class:`LocalBackend` (``backend="local"``, the default): worker threads in this process, each
  driving its own agent processes (:class:`~boardzoo.arena.players.ProcessPlayer`), kept from game
  to game.
- :class:`~boardzoo.arena.ray_backend.RayBackend` (``backend="ray"``): Ray actors on a cluster,
  each playing whole games the way a local worker does (``pip install boardzoo[ray]``).

:func:`make_backend` picks one from :class:`~boardzoo.arena.settings.ArenaSettings`.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from boardzoo.agents.base import Agent
from boardzoo.arena.players import (
    LocalPlayer,
    PackedAgent,
    Player,
    ProcessPlayer,
    player_key,
)
from boardzoo.arena.records import GameRecord
from boardzoo.arena.referee import play_game
from boardzoo.arena.settings import ArenaSettings, GameTask

__all__ = ["Backend", "GameWorker", "LocalBackend", "make_backend"]


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


class GameWorker:
    """Plays games one after the other, keeping its players (agent processes) between games.

    Two copies of the same agent (self-play) get two players. At most ``capacity`` players are
    kept; the least recently used is closed.

    Args:
        isolate: agents in their own processes (:class:`ProcessPlayer`); ``False``: in this one.
        setup_timeout: see :class:`~boardzoo.arena.settings.ArenaSettings`.
        capacity: players kept.
    """

    def __init__(self, isolate: bool, setup_timeout: float, capacity: int = 4) -> None:
        self.isolate = isolate
        self.setup_timeout = setup_timeout
        self.capacity = capacity
        self.players: OrderedDict[tuple[Any, int], Player] = OrderedDict()
        self.lock = threading.Lock()

    def player(self, agent: str | Agent | PackedAgent, copy: int) -> Player:
        """The player of ``agent`` (``copy`` 1: a second one, for self-play)."""
        key = (player_key(agent), copy)
        with self.lock:
            player = self.players.pop(key, None)
        if player is None:
            if self.isolate and not isinstance(agent, Agent):
                player = ProcessPlayer(agent, setup_timeout=self.setup_timeout)
            elif isinstance(agent, PackedAgent):
                player = LocalPlayer(agent.unpack())
            else:
                player = LocalPlayer(agent)
        with self.lock:
            self.players[key] = player
            extra = len(self.players) - self.capacity
            retired = [self.players.popitem(last=False)[1] for _ in range(max(0, extra))]
        for old in retired:
            old.close()
        return player

    def play(self, task: GameTask) -> GameRecord:
        """Play one game and return its record."""
        first, second = task.agents
        copy = 1 if player_key(first) == player_key(second) else 0
        players = (self.player(first, 0), self.player(second, copy))
        return play_game(task.settings, task.index, players, task.configs)

    def kill(self) -> None:
        """Kill every agent process now."""
        with self.lock:
            players = list(self.players.values())
        for player in players:
            player.kill()

    def close(self) -> None:
        """Close every player."""
        with self.lock:
            players = list(self.players.values())
            self.players.clear()
        for player in players:
            player.close()


class LocalBackend(Backend):
    """Games on ``workers`` threads of this process, each a :class:`GameWorker`."""

    def __init__(self, workers: int, isolate: bool, setup_timeout: float) -> None:
        self.slots = workers
        self.isolate = isolate
        self.setup_timeout = setup_timeout
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boardzoo-arena")
        self._local = threading.local()
        self._workers: list[GameWorker] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def _worker(self) -> GameWorker:
        worker = getattr(self._local, "worker", None)
        if worker is None:
            worker = self._local.worker = GameWorker(self.isolate, self.setup_timeout)
            with self._lock:
                self._workers.append(worker)
        return worker

    def _play(self, task: GameTask) -> GameRecord | None:
        if self._stop.is_set():
            return None
        record = self._worker().play(task)
        return None if self._stop.is_set() else record

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


def make_backend(settings: ArenaSettings) -> Backend:
    """The backend ``settings`` ask for.

    Raises:
        ImportError: ``backend="ray"`` without Ray installed (the message says what to install).
    """
    if settings.backend == "ray":
        # Ray is an optional dependency: imported only by the runs that ask for it.
        from boardzoo.arena.ray_backend import RayBackend

        return RayBackend(
            settings.workers, settings.isolate, settings.setup_timeout, settings.address
        )
    return LocalBackend(settings.workers, settings.isolate, settings.setup_timeout)
