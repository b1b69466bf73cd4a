"""An agent in a process of its own: :class:`ProcessPlayer` at the arena's end of a pipe, and
the loop that builds the agent and answers at the other end, in the child.

:class:`ProcessPlayer` runs the agent in its own process (``multiprocessing``, ``spawn`` start
method): the child builds the agent from its spec (or unpacks a fresh copy of an agent object,
:func:`~boardzoo.arena.agent_identity.pack_agent`), then answers ``act(state)`` requests sent
down a pipe (states are small immutable picklable values, so a move costs one pipe round trip).
The arena waits at most ``time_limit`` seconds for the answer; an agent that hangs, loops or
crashes its interpreter is killed and its process is started again for the next game. An
exception inside ``act`` is caught in the child and reported with its traceback.

In the set-up time before each game (see :mod:`boardzoo.arena.players`), the child also loads
the game's compiled rules (or compiles them, the first time), so that the first move is timed
like any other.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
import traceback as traceback_module
from multiprocessing.connection import Connection
from typing import Any

from boardzoo.agents import registry
from boardzoo.agents.base import Agent
from boardzoo.agents.registry import make_agent
from boardzoo.arena.agent_identity import PackedAgent, agent_label, pack_agent
from boardzoo.arena.players import SETUP_TIMEOUT, Answer, Player, move_answer
from boardzoo.errors import InvalidTypeError
from boardzoo.games.spec import Game

__all__ = ["ProcessPlayer"]

_QUIT_WAIT = 2.0  # seconds a process has to quit when asked, before it is killed


class ProcessPlayer(Player):
    """An agent in its own process, answering over a pipe; killed when it runs out of time.

    The process is started on the first game and kept for the next ones (each game builds a
    fresh agent in it); after a timeout or a crash a new one is started for the next game.

    Args:
        agent: the agent spec (``name:key=value,...``; names registered with
            :func:`~boardzoo.agents.registry.register_agent` in this process are known in the
            child too, provided their module can be imported there), an agent object packed by
            :func:`~boardzoo.arena.agent_identity.pack_agent` (each game unpacks a fresh copy),
            or an agent object (packed here;
            :class:`~boardzoo.arena.agent_identity.AgentNotPicklableError` if it cannot be).
        setup_timeout: seconds allowed to start the process, and again to build and prepare the
            agent for a game.
    """

    def __init__(
        self, agent: str | Agent | PackedAgent, setup_timeout: float = SETUP_TIMEOUT
    ) -> None:
        if isinstance(agent, Agent):
            agent = pack_agent(agent)
        if not isinstance(agent, (str, PackedAgent)):
            raise InvalidTypeError(
                f"a ProcessPlayer plays an agent spec or an Agent object, got "
                f"{type(agent).__name__}"
            )
        self.label = agent_label(agent)
        self.spec: str | PackedAgent = self.label if isinstance(agent, str) else agent
        self.setup_timeout = setup_timeout
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._conn: Connection | None = None
        self._started_at = 0.0
        self._lock = threading.Lock()

    # --- the process ----------------------------------------------------------------------------

    def _ensure_process(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._discard()
        parent, child = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=_serve,
            args=(child, dict(registry.AGENT_CLASSES), os.getpid()),
            name=f"boardzoo-agent[{self.label}]",
            daemon=False,  # so that agents may start processes of their own
        )
        with self._lock:
            process.start()
            self._process, self._conn = process, parent
        child.close()
        self._expect_ready = True

    def _discard(self) -> None:
        with self._lock:
            process, conn = self._process, self._conn
            self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join(5.0)
            if not process.is_alive():
                process.close()

    def kill(self) -> None:
        """Kill the agent's process now (a later game starts a new one)."""
        with self._lock:
            process = self._process
        if process is not None and process.is_alive():
            process.kill()

    def close(self) -> None:
        """Ask the process to quit, kill it if it does not."""
        with self._lock:
            process, conn = self._process, self._conn
        if process is not None and conn is not None and process.is_alive():
            with contextlib.suppress(OSError, ValueError):
                conn.send(("quit",))
            process.join(_QUIT_WAIT)
        self._discard()

    def _receive(self, timeout: float | None, started: float) -> tuple[Any, float] | Answer:
        """The next message within ``timeout`` seconds of ``started``, or the Answer saying why
        none came (the process is killed on a timeout)."""
        conn = self._conn
        assert conn is not None
        remaining = None if timeout is None else max(0.0, timeout - (time.perf_counter() - started))
        try:
            arrived = conn.poll(remaining)
            seconds = time.perf_counter() - started
            if not arrived:
                self._discard()
                return Answer("time", seconds=seconds)
            return conn.recv(), time.perf_counter() - started
        except (EOFError, OSError):
            return self._died(time.perf_counter() - started)

    def _died(self, seconds: float) -> Answer:
        process = self._process
        code = None
        if process is not None:
            process.join(1.0)
            code = process.exitcode
        self._discard()
        if code is None:
            how = "its pipe closed"
        else:
            how = f"exit code {code}" if code >= 0 else f"killed by signal {-code}"
        return Answer("died", seconds=seconds, text=f"the agent's process ended ({how})")

    # --- the Player interface -------------------------------------------------------------------

    def request_game(
        self, seed: int, game: Game | None = None, move_limit: float | None = None
    ) -> None:
        self._started_at = time.perf_counter()
        self._expect_ready = False
        self._ensure_process()
        assert self._conn is not None
        with contextlib.suppress(OSError, ValueError):  # a dead process: wait_game says so
            self._conn.send(("new", self.spec, seed, game, move_limit))

    def wait_game(self) -> Answer:
        """Wait for the agent to be built (see :meth:`Player.wait_game`).

        Raises:
            ChildProcessError: a new process could not start (before any agent code runs: the
                environment, not the agent, is at fault).
        """
        if self._conn is None:
            return Answer("died", text="the agent's process ended")
        if self._expect_ready:
            message = self._receive(self.setup_timeout, self._started_at)
            if isinstance(message, Answer):
                failure = _setup_failure(message, self.setup_timeout)
                raise ChildProcessError(
                    f"could not start a process for agent {self.label!r}: {failure.text}. "
                    "Agents run in processes started with the 'spawn' method, which imports the "
                    "main module again: a script that runs a match must do so under "
                    "`if __name__ == '__main__':`"
                )
            self._expect_ready = False
            self._started_at = time.perf_counter()  # building the agent has its own set-up time
        message = self._receive(self.setup_timeout, self._started_at)
        if isinstance(message, Answer):
            return _setup_failure(message, self.setup_timeout)
        (kind, *payload), seconds = message
        if kind == "error":
            return Answer("error", seconds=seconds, text=payload[0], traceback=payload[1])
        return Answer("ready", seconds=seconds)

    def act(self, state: Any, time_limit: float | None) -> Answer:
        if self._conn is None:
            return Answer("died", text="the agent's process ended")
        started = time.perf_counter()
        try:
            self._conn.send(("act", state))
        except (OSError, ValueError):
            return self._died(time.perf_counter() - started)
        message = self._receive(time_limit, started)
        if isinstance(message, Answer):
            return message
        (kind, *payload), seconds = message
        if kind == "error":
            return Answer("error", seconds=seconds, text=payload[0], traceback=payload[1])
        if time_limit is not None and seconds > time_limit:
            return Answer("time", seconds=seconds)
        action, text = payload
        return Answer("move", action=action, seconds=seconds, text=text)


def _setup_failure(answer: Answer, timeout: float) -> Answer:
    if answer.kind == "time":
        return Answer("time", seconds=answer.seconds, text=f"not ready within {timeout:g} s")
    return answer


# --- the child process ----------------------------------------------------------------------------


def _watch_parent(parent_pid: int) -> None:
    """End this process soon after the arena's process is gone (even while the agent hangs)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            os._exit(1)


def _warm_up(game: Game) -> None:
    """Load the game's compiled rules (compile them on a cold cache) by playing one game through
    every rules kernel the agents call."""
    state = game.initial_state()
    while not state.is_terminal():
        state.legal_action_mask()
        state.planes(state.current_player)
        state = state.apply(int(state.legal_actions()[0]))
    state.returns()


def _serve(conn: Connection, agent_classes: dict[str, str], parent_pid: int) -> None:
    """The child's loop: build agents and answer move requests until told to quit."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the arena's to handle
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    registry.AGENT_CLASSES.update(agent_classes)
    conn.send(("ready",))
    agent: Agent | None = None
    warm: set[Game] = set()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "quit":
            return
        try:
            if kind == "new":
                _, spec, seed, game, move_limit = message
                agent = None
                if game is not None and game not in warm:
                    _warm_up(game)
                    warm.add(game)
                agent = (
                    spec.unpack() if isinstance(spec, PackedAgent) else make_agent(spec, seed=seed)
                )
                agent.reset()
                agent.set_move_limit(move_limit)
                if game is not None:
                    agent.prepare(game)
                conn.send(("ok",))
            elif kind == "act":
                if agent is None:
                    raise RuntimeError("no agent: the game was not started")
                answer = move_answer(agent.act(message[1]), 0.0)
                conn.send(("move", answer.action, answer.text))
        except BaseException as error:  # report everything, SystemExit included
            conn.send(
                (
                    "error",
                    f"{type(error).__name__}: {error}",
                    "".join(traceback_module.format_exception(error)),
                )
            )
