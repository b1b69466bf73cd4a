"""The agents' work in background threads, while the window keeps drawing.

:class:`PrepareJob` runs the agents' :meth:`~boardzoo.agents.Agent.prepare` (compiling or loading
their search) when the window opens; :class:`AIJob` runs one ``act()`` (the compiled searches
release the GIL). :class:`AIMoves` is the window's part that starts them, collects their moves
and keeps the analysis of the last search.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from boardzoo.agents.base import Agent
from boardzoo.games.state import BoardState
from boardzoo.ui.gui_base import WindowBase
from boardzoo.ui.players import GameSession

__all__ = ["AIJob", "AIMoves", "Analysis", "BackgroundJob", "PrepareJob"]


class BackgroundJob:
    """Work running in a background thread: the main thread polls ``done`` (it keeps drawing
    meanwhile) and raises ``error`` if the work failed."""

    thread_name = "boardzoo-job"

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.error: BaseException | None = None
        self.done = threading.Event()

    def work(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        threading.Thread(target=self._run, name=self.thread_name, daemon=True).start()

    def _run(self) -> None:
        try:
            self.work()
        except BaseException as error:  # handed to the main thread, which raises it
            self.error = error
        finally:
            self.done.set()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started


class AIJob(BackgroundJob):
    """One call of an agent's ``act()``."""

    thread_name = "boardzoo-ai"

    def __init__(self, agent: Agent, state: BoardState, generation: int) -> None:
        super().__init__()
        self.agent, self.state, self.generation = agent, state, generation
        self.action: int | None = None

    def work(self) -> None:
        self.action = int(self.agent.act(self.state))


class PrepareJob(BackgroundJob):
    """The agents' :meth:`~boardzoo.agents.Agent.prepare`, before their first move."""

    thread_name = "boardzoo-prepare"

    def __init__(self, session: GameSession, who: str) -> None:
        super().__init__()
        self.session = session
        self.who = who  # "White (mcts:time_limit=1)", for the panel

    def work(self) -> None:
        self.session.prepare()


@dataclass(frozen=True)
class Analysis:
    """An agent's root statistics for the position before its move ``ply``."""

    ply: int  # the analysed position is states[ply]; the agent's move leads to states[ply + 1]
    player: int
    moves: tuple[Any, ...]  # MoveStats: action, visits, mean_value, proven


class AIMoves(WindowBase):
    """The window's part that moves for the agents: once they are prepared, a search in the
    background whenever an agent is to move, its move played when it is done."""

    @property
    def preparing(self) -> bool:
        """Whether the agents are still getting ready (no agent moves until they are)."""
        prepare = self._prepare
        if prepare is None:
            return False
        if not prepare.done.is_set():
            return True
        self._prepare = None
        if prepare.error is not None:
            raise RuntimeError(f"preparing {prepare.who} failed") from prepare.error
        return False

    def _update_ai(self) -> None:
        """Collect a finished search, or start one when an agent is to move (once prepared)."""
        if self.preparing:
            return
        job = self._job
        if job is not None and job.done.is_set():
            self._job = None
            if job.error is not None:
                raise RuntimeError(f"{job.agent!r} failed to choose a move") from job.error
            if job.generation == self._generation and job.state is self.session.state:
                self._agent_moved(job)
        agent = self.session.agent_to_move()
        if agent is None or self._job is not None:
            return
        if not self.session.has_human():
            waited = time.perf_counter() - self._position_shown_at
            if waited < self.watch_delay:
                return
        self._job = AIJob(agent, self.session.state, self._generation)
        self._job.start()

    def _agent_moved(self, job: AIJob) -> None:
        session = self.session
        assert job.action is not None
        ply, player = session.ply, session.mover
        moves = getattr(getattr(job.agent, "last_search", None), "moves", None)
        self._analysis = Analysis(ply, player, tuple(moves)) if moves else None
        session.play(job.action)
        self._position_changed()
        self.message = ""

    @property
    def thinking(self) -> bool:
        """Whether an agent's search is running."""
        return self._job is not None
