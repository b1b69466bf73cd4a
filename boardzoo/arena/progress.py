"""Progress bars of matches and tournaments (rich, on stderr; nothing when it is not a terminal).

rich is imported when a bar is shown, so that a run without a terminal does not load it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.settings import MatchSettings
from boardzoo.arena.sprt import SequentialTest

__all__ = ["MatchProgress", "ProgressBar", "TournamentProgress"]


_P = TypeVar("_P", bound="ProgressBar")


class ProgressBar:
    """A rich progress bar on stderr, or nothing when disabled or stderr is not a terminal."""

    def __init__(
        self, total: int, completed: int, enabled: bool, describe: Callable[[], str]
    ) -> None:
        self.describe = describe
        self._progress: Any = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._task = self._progress.add_task(describe(), total=total, completed=completed)

    def __enter__(self: _P) -> _P:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, record: GameRecord) -> None:
        """Count a finished game."""
        self.advance()

    def advance(self) -> None:
        """One more game done: move the bar, refresh its description."""
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=self.describe())


class MatchProgress(ProgressBar):
    """The progress of a match, with the live score (points of each agent).

    Args:
        settings: the match.
        total: games to reach.
        completed: games played already (a resumed run).
        points: each agent's points in them.
        enabled: ``False`` shows nothing (also off when stderr is not a terminal).
        test: the match's sequential test, whose LLR is shown too.
    """

    def __init__(
        self,
        settings: MatchSettings,
        total: int,
        completed: int = 0,
        points: Sequence[float] = (0.0, 0.0),
        enabled: bool = True,
        test: SequentialTest | None = None,
    ) -> None:
        self.settings = settings
        self.test = test
        self.points = [float(points[0]), float(points[1])]
        super().__init__(total, completed, enabled, self._describe)

    def _describe(self) -> str:
        a, b = self.settings.agents
        text = f"{a} {self.points[0]:g} - {self.points[1]:g} {b}"
        if self.test is not None:
            lower, upper = self.test.settings.bounds
            text += f", LLR {self.test.llr:.2f} ({lower:.2f}, {upper:.2f})"
        return text

    def update(self, record: GameRecord) -> None:
        """Count a finished game."""
        for agent in (0, 1):
            self.points[agent] += record["scores"][agent]
        self.advance()


class TournamentProgress(ProgressBar):
    """The progress of a tournament, showing the leader on points.

    Args:
        agents: the agents.
        total: games to reach.
        completed: games played already (a resumed run).
        points: each agent's points in them.
        enabled: ``False`` shows nothing (also off when stderr is not a terminal).
    """

    def __init__(
        self,
        agents: Sequence[str],
        total: int,
        completed: int = 0,
        points: Mapping[str, float] | None = None,
        enabled: bool = True,
    ) -> None:
        self.points = dict.fromkeys(agents, 0.0)
        self.points.update(points or {})
        super().__init__(total, completed, enabled, self._describe)

    def _count(self, record: GameRecord) -> None:
        for agent, score in zip(record["agents"], record["scores"], strict=True):
            self.points[agent] = self.points.get(agent, 0.0) + score

    def _describe(self) -> str:
        leader = max(self.points, key=lambda a: self.points[a])
        return f"leader {leader} ({self.points[leader]:g} points)"

    def update(self, record: GameRecord) -> None:
        """Count a finished game."""
        self._count(record)
        self.advance()
