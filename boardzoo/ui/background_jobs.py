"""The agents' work in background threads, while the window keeps drawing.

:class:`PrepareJob` runs the agents' :meth:`~boardzoo.agents.Agent.prepare` (compiling or loading
their search) when the window opens; :class:`AIJob` runs one ``act()`` (the compiled searches
release the GIL); :class:`Analysis` keeps what the last search found.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from boardzoo.agents.base import Agent
from boardzoo.games.state import BoardState
from boardzoo.ui.game_session import GameSession

__all__ = ["AIJob", "Analysis", "BackgroundJob", "PrepareJob"]


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
