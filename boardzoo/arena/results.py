"""What matches and tournaments come to: tallies, each agent's statistics, forfeits, ratings.

Everything here is computed from game records (:mod:`boardzoo.arena.records`) alone, so a result
can be rebuilt from a record file at any time (``boardzoo report``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardzoo.arena.openings import OpeningSuite
from boardzoo.arena.ratings import EloFit, elo_interval, score_interval
from boardzoo.arena.records import GameRecord
from boardzoo.arena.referee import FORFEIT_REASONS
from boardzoo.arena.settings import MatchSettings, settings_of
from boardzoo.arena.sprt import SPRT, SequentialTest, SPRTResult, parse_sprt
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game

__all__ = [
    "NOTE_LENGTH",
    "AgentStats",
    "ForfeitNote",
    "MatchResult",
    "Tally",
    "TournamentResult",
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


@dataclass(frozen=True)
class MatchResult:
    """The outcome of a match, from its records.

    Attributes:
        settings: the match.
        records: the games' records, by game index.
        stats: the two agents' results, in match order.
        score: ``agents[0]``'s mean score (draws half).
        score_interval: its 95% Wilson interval.
        elo: ``agents[0]``'s Elo difference to ``agents[1]`` (clipped at ±1000).
        elo_interval: its 95% interval.
        out: the record file, if any.
        sprt: the sequential test, for a match played with one (``None`` otherwise).
    """

    settings: MatchSettings
    records: tuple[GameRecord, ...]
    stats: tuple[AgentStats, AgentStats]
    score: float
    score_interval: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]
    out: Path | None = None
    sprt: SPRTResult | None = None

    @property
    def agents(self) -> tuple[str, str]:
        """The two agents' labels."""
        return self.settings.agents

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)

    @property
    def forfeits(self) -> dict[str, int]:
        """Games lost by forfeit, by cause, both agents together."""
        return {r: sum(s.forfeits[r] for s in self.stats) for r in FORFEIT_REASONS}

    @classmethod
    def from_records(
        cls,
        records: Sequence[GameRecord],
        settings: MatchSettings | None = None,
        out: Any = None,
        sprt: SPRT | str | None = None,
    ) -> MatchResult:
        """Summarise the records of one match (settings default to the first record's).

        ``sprt`` runs the sequential test over the records' game pairs, in order (see
        :class:`~boardzoo.arena.sprt.SequentialTest`).
        """
        test = None if sprt is None else SequentialTest(parse_sprt(sprt))
        if settings is None:
            if not records:
                raise ValueError("no records: pass the match settings to summarise zero games")
            settings = settings_of(records[0])
        records = tuple(sorted(records, key=lambda r: r["game_index"]))
        stats = tuple(_agent_stats(settings, records, agent) for agent in (0, 1))
        total = stats[0].total
        score, low, high = score_interval(total.wins, total.draws, total.losses)
        elo, elo_low, elo_high = elo_interval(total.wins, total.draws, total.losses)
        if test is not None:
            for record in records:
                test.add(record["game_index"], record["scores"][0])
        return cls(
            settings=settings,
            records=records,
            stats=stats,  # type: ignore[arg-type]
            score=score,
            score_interval=(low, high),
            elo=elo,
            elo_interval=(elo_low, elo_high),
            out=None if out is None else Path(out),
            sprt=None if test is None else test.result(),
        )


def _agent_stats(settings: MatchSettings, records: Sequence[GameRecord], agent: int) -> AgentStats:
    total, as_first, as_second = Tally(), Tally(), Tally()
    moves, seconds, slowest, illegal = 0, 0.0, 0.0, 0
    forfeits = dict.fromkeys(FORFEIT_REASONS, 0)
    notes: list[ForfeitNote] = []
    for record in records:
        score = record["scores"][agent]
        total = total.add(score)
        if record["first"] == agent:
            as_first = as_first.add(score)
        else:
            as_second = as_second.add(score)
        if record["forfeit"] == agent:
            forfeits[record["reason"]] += 1
            waited = record.get("forfeit_time")
            notes.append(
                ForfeitNote(
                    record["reason"], _note_text(record.get("error")), 1, record["game_index"],
                    settings.agents[1 - agent],
                    waited if isinstance(waited, (int, float)) else None,
                )
            )  # fmt: skip
        illegal += sum(1 for a in record["illegal_attempts"] if a["agent"] == agent)
        for mover, time in zip(record["move_agents"], record["move_times"], strict=True):
            if mover == agent and time is not None:
                moves += 1
                seconds += time
                slowest = max(slowest, time)
    return AgentStats(
        agent=settings.agents[agent],
        total=total,
        as_first=as_first,
        as_second=as_second,
        moves=moves,
        seconds=seconds,
        max_move_seconds=slowest,
        forfeits=forfeits,
        illegal_attempts=illegal,
        forfeit_notes=_merge_notes(notes),
    )


@dataclass(frozen=True)
class TournamentResult:
    """The outcome of a round robin.

    Attributes:
        game: the game played (its catalog name).
        options: every option of the game with its value.
        agents: the agents' labels (specs), as given.
        games_per_pair: games each pair plays.
        seed: the tournament seed.
        time_limit: seconds per move.
        records: every game, pair by pair, by game index.
        matches: each pair's :class:`~boardzoo.arena.match.MatchResult`, keyed by the pair.
        stats: each agent's results over the whole tournament.
        elo: the fitted ratings with intervals (``None`` if nothing was played).
        out_dir: the folder written to, if any.
        files: the files written, by kind (see :data:`TOURNAMENT_FILES`).
        openings: the suite of openings every pair played from, if any.
    """

    game: str
    options: Mapping[str, int]
    agents: tuple[str, ...]
    games_per_pair: int
    seed: int
    time_limit: float | None
    records: tuple[GameRecord, ...]
    matches: dict[tuple[str, str], MatchResult]
    stats: dict[str, AgentStats]
    elo: EloFit | None
    out_dir: Path | None = None
    files: dict[str, Path] | None = None
    openings: OpeningSuite | None = None

    def make_game(self) -> Game:
        """The game played, with its options."""
        return make_game(self.game, **self.options)

    def standings(self) -> list[str]:
        """The agents from the best rating to the worst (by points without ratings)."""
        if self.elo is not None:
            return self.elo.ranking()
        return sorted(self.agents, key=lambda a: -self.stats[a].total.points)
