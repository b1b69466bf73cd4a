"""The window's part that plays the agents' moves: :class:`AIMoves` starts the background jobs
(:mod:`boardzoo.ui.background_jobs`), collects their moves and keeps the analysis of the last
search."""

from __future__ import annotations

import time

from boardzoo.ui.background_jobs import AIJob, Analysis
from boardzoo.ui.gui_base import WindowBase

__all__ = ["AIMoves"]


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
