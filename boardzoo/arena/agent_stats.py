"""One agent's results in a match or over a tournament: wins, draws and losses overall and by
colour, its moves and their times, and the games it forfeited, with why.

:class:`AgentTotals` counts them from game records (:mod:`boardzoo.arena.record_schema`) one at a
time, in memory that does not grow with the games; :class:`AgentStats` is what they come to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.referee import FORFEIT_REASONS
from boardzoo.arena.settings import MatchSettings

__all__ = [
    "MAX_NOTES",
    "NOTE_LENGTH",
    "OTHER_CAUSES",
    "AgentStats",
    "AgentTotals",
    "ForfeitNote",
    "Tally",
]


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses of one agent (overall or with one colour)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2.0

    @property
    def score(self) -> float:
        """Mean score (NaN without games)."""
        return self.points / self.games if self.games else math.nan

    def add(self, score: float) -> Tally:
        """This tally with one more game scored ``score`` (1, 1/2 or 0)."""
        if score == 1.0:
            return Tally(self.wins + 1, self.draws, self.losses)
        if score == 0.0:
            return Tally(self.wins, self.draws, self.losses + 1)
        return Tally(self.wins, self.draws + 1, self.losses)

    def __str__(self) -> str:
        return f"{self.wins}-{self.draws}-{self.losses}"


@dataclass(frozen=True)
class ForfeitNote:
    """The games an agent lost by forfeit for one reason and with one cause.

    Attributes:
        reason: ``"time"``, ``"illegal"`` or ``"error"``.
        text: the cause: the first line of the recorded error, shortened to
            :data:`NOTE_LENGTH` characters.
        games: how many games.
        first_game: the game index of the first of them.
        opponent: the agent it played in that game.
        slowest: for time forfeits, the longest wait for a move (``None`` if not recorded).
    """

    reason: str
    text: str
    games: int
    first_game: int
    opponent: str
    slowest: float | None = None


NOTE_LENGTH = 100  # characters of an error text kept in a ForfeitNote


def _note_text(error: Any) -> str:
    lines = str(error).strip().splitlines() if error else []
    text = lines[0].strip() if lines else "no reason recorded"
    return text if len(text) <= NOTE_LENGTH else text[: NOTE_LENGTH - 3].rstrip() + "..."


def _merge_notes(notes: Iterable[ForfeitNote]) -> tuple[ForfeitNote, ...]:
    """Notes of the same reason and text as one (counts added, the earliest first game kept)."""
    merged: dict[tuple[str, str], ForfeitNote] = {}
    for note in notes:
        key = (note.reason, note.text)
        old = merged.get(key)
        if old is None:
            merged[key] = note
            continue
        times = [t for t in (old.slowest, note.slowest) if t is not None]
        merged[key] = ForfeitNote(
            note.reason, note.text, old.games + note.games, old.first_game, old.opponent,
            max(times) if times else None,
        )  # fmt: skip
    order = {reason: i for i, reason in enumerate(FORFEIT_REASONS)}
    return tuple(sorted(merged.values(), key=lambda n: (order.get(n.reason, 9), -n.games)))


@dataclass(frozen=True)
class AgentStats:
    """One agent's results in a match.

    Attributes:
        agent: its label (spec).
        total: wins, draws, losses overall.
        as_first: ... when moving first (black, X).
        as_second: ... when moving second (white, O).
        moves: moves it played (opening plies excluded).
        seconds: time it took for them.
        max_move_seconds: its slowest move.
        forfeits: games it lost by forfeit, by cause (time, illegal, error).
        illegal_attempts: illegal answers it gave (forfeited or not).
        forfeit_notes: why it forfeited: one :class:`ForfeitNote` per reason and error text.
    """

    agent: str
    total: Tally
    as_first: Tally
    as_second: Tally
    moves: int
    seconds: float
    max_move_seconds: float
    forfeits: dict[str, int]
    illegal_attempts: int
    forfeit_notes: tuple[ForfeitNote, ...] = ()

    @property
    def mean_move_seconds(self) -> float:
        """Average seconds per move (NaN before the first move)."""
        return self.seconds / self.moves if self.moves else math.nan

    @classmethod
    def combine(cls, agent: str, parts: Sequence[AgentStats]) -> AgentStats:
        """One agent's results over several matches (a tournament)."""

        def tally(pick: Callable[[AgentStats], Tally]) -> Tally:
            tallies = [pick(p) for p in parts]
            return Tally(
                sum(t.wins for t in tallies),
                sum(t.draws for t in tallies),
                sum(t.losses for t in tallies),
            )

        return cls(
            agent=agent,
            total=tally(lambda p: p.total),
            as_first=tally(lambda p: p.as_first),
            as_second=tally(lambda p: p.as_second),
            moves=sum(p.moves for p in parts),
            seconds=sum(p.seconds for p in parts),
            max_move_seconds=max((p.max_move_seconds for p in parts), default=0.0),
            forfeits={r: sum(p.forfeits[r] for p in parts) for r in FORFEIT_REASONS},
            illegal_attempts=sum(p.illegal_attempts for p in parts),
            forfeit_notes=_merge_notes(note for p in parts for note in p.forfeit_notes),
        )


# Causes of forfeit (reason and error text) told apart per agent; others count as OTHER_CAUSES.
MAX_NOTES = 50
OTHER_CAUSES = f"other causes (more than {MAX_NOTES} different ones)"


class AgentTotals:
    """One agent's running results in a match: what its :class:`AgentStats` needs.

    Args:
        agent: its place in the match (0 or 1).
    """

    def __init__(self, agent: int) -> None:
        self.agent = agent
        self.total, self.as_first, self.as_second = Tally(), Tally(), Tally()
        self.moves, self.seconds, self.slowest, self.illegal = 0, 0.0, 0.0, 0
        self.forfeits = dict.fromkeys(FORFEIT_REASONS, 0)
        # (reason, text) -> [games, first game, slowest wait or None]
        self.notes: dict[tuple[str, str], list[Any]] = {}

    def add(self, record: GameRecord) -> None:
        """Count one finished game."""
        agent = self.agent
        score = record["scores"][agent]
        self.total = self.total.add(score)
        if record["first"] == agent:
            self.as_first = self.as_first.add(score)
        else:
            self.as_second = self.as_second.add(score)
        if record["forfeit"] == agent:
            self._forfeit(record)
        self.illegal += sum(1 for a in record["illegal_attempts"] if a["agent"] == agent)
        for mover, time in zip(record["move_agents"], record["move_times"], strict=True):
            if mover == agent and time is not None:
                self.moves += 1
                self.seconds += time
                self.slowest = max(self.slowest, time)

    def _forfeit(self, record: GameRecord) -> None:
        reason = record["reason"]
        self.forfeits[reason] += 1
        key = (reason, _note_text(record.get("error")))
        if key not in self.notes and len(self.notes) >= MAX_NOTES:
            key = (reason, OTHER_CAUSES)
        waited = record.get("forfeit_time")
        slowest = waited if isinstance(waited, (int, float)) else None
        note = self.notes.get(key)
        if note is None:
            self.notes[key] = [1, record["game_index"], slowest]
            return
        note[0] += 1
        note[1] = min(note[1], record["game_index"])
        if slowest is not None:
            note[2] = slowest if note[2] is None else max(note[2], slowest)

    def stats(self, settings: MatchSettings) -> AgentStats:
        """The agent's results so far, in the match ``settings`` describe."""
        opponent = settings.agents[1 - self.agent]
        by_first_game = sorted(self.notes.items(), key=lambda item: item[1][1])
        notes = (
            ForfeitNote(reason, text, games, first, opponent, slowest)
            for (reason, text), (games, first, slowest) in by_first_game
        )
        return AgentStats(
            agent=settings.agents[self.agent],
            total=self.total,
            as_first=self.as_first,
            as_second=self.as_second,
            moves=self.moves,
            seconds=self.seconds,
            max_move_seconds=self.slowest,
            forfeits=dict(self.forfeits),
            illegal_attempts=self.illegal,
            forfeit_notes=_merge_notes(notes),
        )
