"""Who plays a game from start to end: a :class:`GameWorker`, here or in a process of its own.

A :class:`GameWorker` plays whole games one after the other under the referee's rules, keeping
its players (the agents' processes) from game to game. The backends run one per slot: the local
backend in a thread of the arena's process (one worker, or agent objects played in that
process), or in a process of its own (:class:`WorkerProcess`: two workers or more), where its
moves do not compete for the arena's interpreter lock; the Ray backend as an actor.

A worker process answers one message per game (the task in, the record out), ignores Ctrl-C
(the arena's to handle) and ends when the arena's process is gone. Its agents' processes are
in its process group, so :meth:`WorkerProcess.kill` stops them all at once.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
import traceback as traceback_module
from collections import OrderedDict
from multiprocessing.connection import Connection
from typing import Any

from boardzoo.agents import registry
from boardzoo.agents.base import Agent
from boardzoo.arena.agent_identity import PackedAgent, player_key
from boardzoo.arena.players import LocalPlayer, Player
from boardzoo.arena.process_player import ProcessPlayer
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.referee import play_game
from boardzoo.arena.settings import GameTask, MatchSettings
from boardzoo.errors import BoardzooError

__all__ = ["GameWorker", "WorkerDiedError", "WorkerProcess"]

_QUIT_WAIT = 10.0  # seconds a worker process has to close its agents before it is killed


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


class WorkerDiedError(BoardzooError, ChildProcessError):
    """A worker process ended while it played a game (its game can be played again)."""


class WorkerProcess:
    """A :class:`GameWorker` in a process of its own (``spawn``), playing one game per call.

    The process is started at once and imports the arena while the caller goes on; each
    :meth:`play` sends the task (the match settings only when they change) and waits for the
    record. Agents' errors, hangs and crashes are handled inside, as the referee's rules say;
    what comes back is always a record, unless the worker process itself fails.

    Args:
        isolate: agents in processes of their own (inside this worker's process otherwise).
        setup_timeout: see :class:`~boardzoo.arena.settings.ArenaSettings`.
        threads: the threads its agents' numeric libraries may use (``OMP_NUM_THREADS`` in the
            process and its agents' processes; torch and the AlphaZero agents read it), so that
            games played at once do not oversubscribe the cores; ``None``, or
            ``OMP_NUM_THREADS`` already set by the user: left as it is.
    """

    def __init__(self, isolate: bool, setup_timeout: float, threads: int | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe(duplex=True)
        arguments = (child, dict(registry.AGENT_CLASSES), os.getpid(), isolate, setup_timeout)
        self._process = context.Process(
            target=_serve_games,
            args=(*arguments, threads),
            name="boardzoo-arena-worker",
            daemon=False,  # it starts the agents' processes
        )
        self._process.start()
        child.close()
        self._sent: MatchSettings | None = None  # the settings the process holds

    @property
    def pid(self) -> int | None:
        """The process id, while the process is alive."""
        return self._process.pid if self._process.is_alive() else None

    def play(self, task: GameTask) -> GameRecord:
        """Play ``task`` in the worker process and return its record.

        Raises:
            WorkerDiedError: the process ended (killed, out of memory, or it could not start).
            RuntimeError: the referee failed in the process (its traceback in the message).
        """
        settings = None if task.settings is self._sent else task.settings
        try:
            self._conn.send(("play", settings, task.index, task.agents, task.configs))
            self._sent = task.settings
            kind, *payload = self._conn.recv()
        except (EOFError, OSError) as error:
            raise WorkerDiedError(self._death_text()) from error
        if kind == "error":
            raise RuntimeError(f"the arena's worker process failed:\n{payload[0]}")
        record: GameRecord = payload[0]
        return record

    def _death_text(self) -> str:
        self._process.join(1.0)
        code = self._process.exitcode
        how = (
            "its pipe closed"
            if code is None
            else (f"exit code {code}" if code >= 0 else f"killed by signal {-code}")
        )
        return (
            f"an arena worker process ended ({how}). If it could not start: worker processes "
            "use the 'spawn' method, which imports the main module again, so a script that "
            "runs a match must do so under `if __name__ == '__main__':`"
        )

    def kill(self) -> None:
        """Kill the process and its agents' processes now."""
        pid = self._process.pid
        if pid is not None and self._process.is_alive():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # its agents are in its process group
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # before it made its group, if it had not yet

    def close(self) -> None:
        """Ask the process to close its agents and quit; kill it if it does not."""
        if self._process.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self._conn.send(("quit",))
            self._process.join(_QUIT_WAIT)
        if self._process.is_alive():
            self.kill()
            self._process.join(_QUIT_WAIT)
        self._conn.close()


# --- the worker process -----------------------------------------------------------------------


def _watch_parent(parent_pid: int) -> None:
    """End this process (and its agents) soon after the arena's process is gone."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            with contextlib.suppress(OSError):
                os.killpg(0, signal.SIGKILL)
            os._exit(1)


def _serve_games(
    conn: Connection,
    agent_classes: dict[str, str],
    parent_pid: int,
    isolate: bool,
    setup_timeout: float,
    threads: int | None,
) -> None:
    """The worker process's loop: play the games it is sent until told to quit."""
    if threads is not None:  # before any agent imports torch; inherited by the agents' processes
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    os.setpgid(0, 0)  # its own process group, shared with the agents' processes it starts
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the arena's to handle
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    registry.AGENT_CLASSES.update(agent_classes)
    worker = GameWorker(isolate, setup_timeout)
    settings: MatchSettings | None = None
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if message[0] == "quit":
                return
            _, new_settings, index, agents, configs = message
            settings = new_settings if new_settings is not None else settings
            assert settings is not None
            try:
                record = worker.play(GameTask(settings, index, agents, configs))
            except Exception as error:
                conn.send(("error", "".join(traceback_module.format_exception(error))))
            else:
                conn.send(("record", record))
    finally:
        worker.close()
