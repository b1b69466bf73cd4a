"""What matches and tournaments come to: a match's running totals and its result (each agent's
statistics, the score and Elo difference with their intervals, the sequential test), a
tournament's result, and the records a result keeps or reads back.

Everything here is computed from game records (:mod:`boardzoo.arena.record_schema`) alone, so a
result can be rebuilt from a record file at any time (``boardzoo report``). Each agent's part is
counted by :mod:`boardzoo.arena.agent_stats`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardzoo.arena.agent_stats import AgentStats, AgentTotals
from boardzoo.arena.openings import OpeningSuite
from boardzoo.arena.ratings import EloFit, elo_interval, score_interval
from boardzoo.arena.record_reading import IndexSet, RecordStream
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.referee import FORFEIT_REASONS
from boardzoo.arena.settings import MatchSettings, settings_of
from boardzoo.arena.sprt import SPRT, SequentialTest, SPRTResult, parse_sprt
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game

__all__ = [
    "KEEP_RECORDS",
    "MatchResult",
    "MatchTotals",
    "RecordSource",
    "TournamentResult",
    "records_to_keep",
]


# Records a result keeps in memory: a run of more games keeps none of them, and its result reads
# them back from the record file when asked (MatchResult.records, TournamentResult.records).
KEEP_RECORDS = 1000


def records_to_keep(keep: int | None) -> int | None:
    """``keep`` as the totals take it: a negative number means :data:`KEEP_RECORDS` (as it is
    now, so that a test can lower it)."""
    return KEEP_RECORDS if keep is not None and keep < 0 else keep


@dataclass(frozen=True)
class RecordSource:
    """Where the records of a result are read back from when they were not kept in memory.

    Attributes:
        path: the record file.
        pairs: the pairs of agents whose games are wanted, in the order the result lists them.
        games: games ``0 .. games - 1`` of each pair (the others in the file are left out).
    """

    path: Path
    pairs: tuple[tuple[str, str], ...]
    games: int

    def read(self) -> tuple[GameRecord, ...]:
        """The records, as a run kept them: the first of each game, by pair, by game index."""
        order = {pair: i for i, pair in enumerate(self.pairs)}
        seen = {pair: IndexSet() for pair in self.pairs}
        found = []
        for _, record in RecordStream(self.path):
            pair = tuple(record.get("agents") or ())
            index = record.get("game_index")
            if pair not in order or not isinstance(index, int) or not 0 <= index < self.games:
                continue
            if index not in seen[pair]:
                seen[pair].add(index)
                found.append(record)
        found.sort(key=lambda r: (order[tuple(r["agents"])], r["game_index"]))  # type: ignore[index]  # (a checked record's agents are a pair)
        return tuple(found)


def _records_of(
    kept: tuple[GameRecord, ...] | None, source: RecordSource | None, games: int, what: str
) -> tuple[GameRecord, ...]:
    if kept is not None:
        return kept
    if source is not None:
        return source.read()
    raise InvalidValueError(
        f"the {games} games of this {what} were not kept: a result keeps its records in memory "
        f"up to {KEEP_RECORDS} games, and reads a longer run's back from its record file; "
        "this one had none (play it with out=FILE to keep every game)"
    )


@dataclass(frozen=True)
class MatchResult:
    """The outcome of a match, from its records.

    Attributes:
        settings: the match.
        stats: the two agents' results, in match order.
        score: ``agents[0]``'s mean score (draws half).
        score_interval: its 95% Wilson interval.
        elo: ``agents[0]``'s Elo difference to ``agents[1]`` (clipped at ±1000).
        elo_interval: its 95% interval.
        out: the record file, if any.
        sprt: the sequential test, for a match played with one (``None`` otherwise).
        kept: the records held in memory (by game index), if they were kept: see
            :attr:`records`.
        source: where :attr:`records` reads them from otherwise.
    """

    settings: MatchSettings
    stats: tuple[AgentStats, AgentStats]
    score: float
    score_interval: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]
    out: Path | None = None
    sprt: SPRTResult | None = None
    kept: tuple[GameRecord, ...] | None = field(default=None, repr=False)
    source: RecordSource | None = field(default=None, repr=False)

    @property
    def records(self) -> tuple[GameRecord, ...]:
        """The games' records, by game index.

        A match of up to :data:`KEEP_RECORDS` games keeps them in memory; a longer one keeps
        only its totals while it runs (its memory stays flat however many games it plays), and
        its records are read back from the record file on each access.

        Raises:
            ValueError: a match of more than :data:`KEEP_RECORDS` games played without a
                record file (``out=None``): its games were not kept anywhere.
            RecordError: the record file cannot be read any more.
        """
        return _records_of(self.kept, self.source, self.games, "match")

    @property
    def agents(self) -> tuple[str, str]:
        """The two agents' labels."""
        return self.settings.agents

    @property
    def games(self) -> int:
        """Games played."""
        return self.stats[0].total.games

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
        :class:`~boardzoo.arena.sprt.SequentialTest`). The result keeps every record given.
        """
        if settings is None:
            if not records:
                raise InvalidValueError(
                    "no records: pass the match settings to summarise zero games"
                )
            settings = settings_of(records[0])
        totals = MatchTotals(settings, sprt, keep=None)
        for record in sorted(records, key=lambda r: r["game_index"]):
            totals.add(record)
        return totals.result(out)


class MatchTotals:
    """A match's running totals, fed one record at a time as its games end: everything its
    :class:`MatchResult` needs (tallies per agent and colour, moves and their times, forfeits and
    their causes, the sequential test), in memory that does not grow with the games.

    Records are kept too, up to ``keep`` of them (beyond that none is kept: the result reads
    them back from the record file, see :attr:`MatchResult.records`).

    Args:
        settings: the match.
        sprt: its sequential test (settings, or a :class:`SequentialTest` fed here), if any.
        keep: records kept in memory at most (``None``: every one; 0: none; negative, the
            default: :data:`KEEP_RECORDS`, as it is when the totals are made).
    """

    def __init__(
        self,
        settings: MatchSettings,
        sprt: SPRT | str | SequentialTest | None = None,
        keep: int | None = -1,
    ) -> None:
        self.settings = settings
        keep = records_to_keep(keep)
        if sprt is None or isinstance(sprt, SequentialTest):
            self.test = sprt
        else:
            self.test = SequentialTest(parse_sprt(sprt))
        self.keep = keep
        self.kept: list[GameRecord] | None = [] if keep is None or keep > 0 else None
        self._agents = (AgentTotals(0), AgentTotals(1))

    @property
    def games(self) -> int:
        """Games counted."""
        return self._agents[0].total.games

    @property
    def points(self) -> tuple[float, float]:
        """Each agent's points (wins plus half the draws)."""
        return self._agents[0].total.points, self._agents[1].total.points

    def add(self, record: GameRecord) -> None:
        """Count one finished game."""
        for agent in self._agents:
            agent.add(record)
        if self.test is not None:
            self.test.add(record["game_index"], record["scores"][0])
        if self.kept is not None:
            self.kept.append(record)
            if self.keep is not None and len(self.kept) > self.keep:
                self.kept = None  # a long run: its records stay in the file

    def stats(self) -> tuple[AgentStats, AgentStats]:
        """The two agents' results so far."""
        return self._agents[0].stats(self.settings), self._agents[1].stats(self.settings)

    def result(
        self,
        out: Any = None,
        source: RecordSource | None = None,
        records: Sequence[GameRecord] | None = None,
    ) -> MatchResult:
        """The result so far.

        Args:
            out: the record file, named by the result.
            source: where the result reads its records from if they were not kept.
            records: the match's records, kept by the caller instead (a tournament).
        """
        stats = self.stats()
        total = stats[0].total
        score, low, high = score_interval(total.wins, total.draws, total.losses)
        elo, elo_low, elo_high = elo_interval(total.wins, total.draws, total.losses)
        if records is None and self.kept is not None:
            records = self.kept
        return MatchResult(
            settings=self.settings,
            stats=stats,
            score=score,
            score_interval=(low, high),
            elo=elo,
            elo_interval=(elo_low, elo_high),
            out=None if out is None else Path(out),
            sprt=None if self.test is None else self.test.result(),
            kept=None if records is None else tuple(sorted(records, key=_game_index)),
            source=source,
        )


def _game_index(record: GameRecord) -> int:
    return record["game_index"]


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
        matches: each pair's :class:`~boardzoo.arena.match.MatchResult`, keyed by the pair.
        stats: each agent's results over the whole tournament.
        elo: the fitted ratings with intervals (``None`` if nothing was played).
        out_dir: the folder written to, if any.
        files: the files written, by kind (see :data:`TOURNAMENT_FILES`).
        openings: the suite of openings every pair played from, if any.
        kept: every game's record (pair by pair, by game index), if they were kept: see
            :attr:`records`.
        source: where :attr:`records` reads them from otherwise.
    """

    game: str
    options: Mapping[str, int]
    agents: tuple[str, ...]
    games_per_pair: int
    seed: int
    time_limit: float | None
    matches: dict[tuple[str, str], MatchResult]
    stats: dict[str, AgentStats]
    elo: EloFit | None
    out_dir: Path | None = None
    files: dict[str, Path] | None = None
    openings: OpeningSuite | None = None
    kept: tuple[GameRecord, ...] | None = field(default=None, repr=False)
    source: RecordSource | None = field(default=None, repr=False)

    @property
    def records(self) -> tuple[GameRecord, ...]:
        """Every game's record, pair by pair, by game index: kept in memory up to
        :data:`KEEP_RECORDS` games in all, read back from ``games.jsonl`` on each access for a
        longer tournament (see :attr:`MatchResult.records`).

        Raises:
            ValueError: more than :data:`KEEP_RECORDS` games played without a folder.
        """
        games = sum(match.games for match in self.matches.values())
        return _records_of(self.kept, self.source, games, "tournament")

    def make_game(self) -> Game:
        """The game played, with its options."""
        return make_game(self.game, **self.options)

    def standings(self) -> list[str]:
        """The agents from the best rating to the worst (by points without ratings)."""
        if self.elo is not None:
            return self.elo.ranking()
        return sorted(self.agents, key=lambda a: -self.stats[a].total.points)
