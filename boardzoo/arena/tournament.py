"""Round-robin tournaments: every pair of agents plays a match, then Elo ratings for all.

Each pair plays ``games`` games under the match rules of :mod:`boardzoo.arena.referee`
(colours alternate within the pair; with an odd number, which agent of a pair gets the extra
first move alternates from pair to pair). A pair's match seed is derived from the tournament
seed and the two specs, so adding agents to a tournament and resuming it replays nothing. All
games go to one JSONL file; ratings are fitted by :func:`~boardzoo.arena.ratings.fit_elo` over
all games and written as CSV, Markdown and a PNG plot.

Files in the folder ``out``: ``games.jsonl``, ``ratings.csv``, ``ratings.md``, ``ratings.png``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.arena.agent_identity import agent_config, agent_label
from boardzoo.arena.agent_stats import AgentStats
from boardzoo.arena.match import check_specs
from boardzoo.arena.progress import TournamentProgress
from boardzoo.arena.ratings import fit_elo_totals
from boardzoo.arena.record_reading import IndexSet
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.results import (
    MatchTotals,
    RecordSource,
    TournamentResult,
    records_to_keep,
)
from boardzoo.arena.runner import RecordedRun
from boardzoo.arena.seeds import derive_seed
from boardzoo.arena.settings import (
    ArenaSettings,
    GameTask,
    MatchSettings,
    make_settings,
    match_options,
)
from boardzoo.arena.tournament_report import plot_ratings, ratings_csv, render_tournament
from boardzoo.errors import InvalidTypeError, InvalidValueError, NotAFolderError
from boardzoo.games.catalog import make_game

__all__ = ["TOURNAMENT_FILES", "TournamentTotals", "pair_seed", "round_robin", "tournament"]

# The files a tournament writes in its folder.
TOURNAMENT_FILES = {
    "games": "games.jsonl",
    "csv": "ratings.csv",
    "markdown": "ratings.md",
    "plot": "ratings.png",
}


def round_robin(agents: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of agents once, oriented so that first moves balance out.

    Pairs are listed by their later agent (``(a0, a1), (a0, a2), (a1, a2), (a0, a3), ...``), so
    agents added at the end of the list only add pairs at the end; every other pair is swapped,
    so that with an odd number of games per pair no agent gets all the extra first moves.
    """
    pairs: list[tuple[str, str]] = []
    for j in range(1, len(agents)):
        for i in range(j):
            pairs.append((agents[i], agents[j]) if len(pairs) % 2 == 0 else (agents[j], agents[i]))
    return pairs


def pair_seed(seed: int, pair: tuple[str, str]) -> int:
    """The match seed of a pair: from the tournament seed and the two specs, in order."""
    digest = hashlib.sha256("\0".join(pair).encode("utf-8")).digest()
    words = np.frombuffer(digest, dtype=np.uint32)
    return derive_seed(seed, *(int(w) for w in words))


def tournament(
    game: str,
    agents: Sequence[str],
    settings: ArenaSettings | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    anchor: str | None = None,
    **changes: Any,
) -> TournamentResult:
    """Play a round robin between ``agents`` and rate them.

    Args:
        game: a catalog game (``"reversi"``, ``"tictactoe"``, ``"connect_four"``, ...).
        agents: two or more distinct agent specs.
        settings: how the games are played and run (:class:`ArenaSettings`): ``games`` is the
            games of each pair (even numbers balance colours exactly), ``seed`` the
            tournament's, ``out`` the folder for ``games.jsonl`` and the ratings files
            (``None``: write nothing), ``resume`` continues that folder (same settings; more
            agents or games per pair are fine), ``openings`` are played by every pair (opening
            ``i`` in its games ``2i`` and ``2i + 1``, colours swapped), ``workers`` play games
            across pairs. ``sprt`` is for matches only.
        options: the game's options (``{"board_size": 6}``; the others at their defaults).
        anchor: the agent rated ``0`` (default: the first).
        **changes: settings to change (``games=20, time_limit=1.0, out="runs/t", ...``).

    Returns:
        A :class:`TournamentResult`.

    Every spec is built once before anything starts (no folder is created before).

    Raises:
        AgentSpecError: a spec names an unknown agent or option, or a value its agent refuses.
        FileExistsError: ``out`` already holds games and ``resume`` is not set.
        MatchSettingsError: resuming a folder of another tournament (other openings included).
        ValueError: a bad argument (a bad openings file names the line and the move).
    """
    arena = (settings or ArenaSettings()).with_changes(**changes)
    if isinstance(agents, str) or any(not isinstance(a, str) for a in agents):
        raise InvalidTypeError("a tournament takes a list of agent specs (strings)")
    if arena.sprt is not None:
        raise InvalidValueError("sprt is for matches (play_match), not tournaments")
    chosen = match_options(game, options)
    labels = [agent_label(a) for a in agents]
    if len(labels) < 2:
        raise InvalidValueError(f"a tournament needs at least two agents, got {labels}")
    duplicates = sorted({a for a in labels if labels.count(a) > 1})
    if duplicates:
        raise InvalidValueError(f"agents must be distinct; given more than once: {duplicates}")
    if anchor is not None and agent_label(anchor) not in labels:
        raise InvalidValueError(f"anchor {anchor!r} is not one of the agents {labels}")
    pairs = round_robin(labels)
    settings_of_pair = {
        pair: make_settings(
            game,
            pair,
            chosen,
            arena,
            seed=pair_seed(arena.seed, pair),
            tournament_seed=int(arena.seed),
        )
        for pair in pairs
    }
    check_specs(labels, make_game(game, **chosen))  # built once, before any file or game
    configs = {a: agent_config(a) for a in labels}

    folder = None if arena.out is None else Path(arena.out)
    if folder is not None:
        if folder.exists() and not folder.is_dir():
            raise NotAFolderError(f"{folder} is a file: a tournament writes to a folder")
        folder.mkdir(parents=True, exist_ok=True)
    path = None if folder is None else folder / TOURNAMENT_FILES["games"]
    # the driver keeps running totals, not the games: those go to the file as they end
    totals = TournamentTotals(pairs, settings_of_pair)
    done = {pair: IndexSet() for pair in pairs}

    def resumed(record: GameRecord) -> None:  # a resumed run: the totals go on from the file
        if record["game_index"] < arena.games:
            done[tuple(record["agents"])].add(record["game_index"])  # type: ignore[index]  # (a checked record's agents are a pair)
            totals.add(record)

    run = RecordedRun(arena, path, _belongs(settings_of_pair), on_existing=resumed)
    tasks = (
        GameTask(settings_of_pair[pair], index, pair, (configs[pair[0]], configs[pair[1]]))
        for pair in pairs
        for index in range(arena.games)
        if index not in done[pair]
    )
    total = len(pairs) * arena.games
    bar = TournamentProgress(labels, total, totals.games, totals.points(), enabled=arena.progress)
    run.play(tasks, bar, totals.add)
    result = totals.result(labels, arena.games, anchor, folder, path)
    if folder is not None:
        result = write_tournament_files(result, folder)
    return result


def _belongs(
    settings: dict[tuple[str, str], MatchSettings],
) -> Callable[[GameRecord], str | None]:
    """``record -> None`` if the record belongs to one of the pairs, else why not."""

    def check(record: GameRecord) -> str | None:
        pair = tuple(record["agents"])
        if pair not in settings:
            return f"agents={list(pair)!r}, not a pair of this tournament"
        return settings[pair].mismatch(record)

    return check


class TournamentTotals:
    """A tournament's running totals, fed one record at a time as its games end: each pair's
    :class:`~boardzoo.arena.results.MatchTotals` (all the standings, the crosstable and the
    ratings need), in memory that does not grow with the games. Records are kept too, up to
    ``keep`` in all (see :attr:`TournamentResult.records`).

    Args:
        pairs: the pairs, in the order of the round robin.
        settings: each pair's match.
        keep: records kept in memory at most (``None``: every one; 0: none; negative, the
            default: :data:`~boardzoo.arena.results.KEEP_RECORDS`, as it is then).
    """

    def __init__(
        self,
        pairs: Sequence[tuple[str, str]],
        settings: Mapping[tuple[str, str], MatchSettings],
        keep: int | None = -1,
    ) -> None:
        self.pairs = tuple(pairs)
        self.matches = {pair: MatchTotals(settings[pair], keep=0) for pair in self.pairs}
        self.keep = records_to_keep(keep)
        self.kept: list[GameRecord] | None = [] if self.keep is None or self.keep > 0 else None

    @property
    def games(self) -> int:
        """Games counted."""
        return sum(match.games for match in self.matches.values())

    def points(self) -> dict[str, float]:
        """Each agent's points so far."""
        points: dict[str, float] = {}
        for pair, match in self.matches.items():
            for agent, scored in zip(pair, match.points, strict=True):
                points[agent] = points.get(agent, 0.0) + scored
        return points

    def add(self, record: GameRecord) -> None:
        """Count one finished game."""
        self.matches[tuple(record["agents"])].add(record)  # type: ignore[index]  # (the same)
        if self.kept is not None:
            self.kept.append(record)
            if self.keep is not None and len(self.kept) > self.keep:
                self.kept = None  # a long run: its records stay in the file

    def result(
        self,
        agents: Sequence[str],
        games_per_pair: int,
        anchor: str | None = None,
        out_dir: Path | None = None,
        path: Path | None = None,
    ) -> TournamentResult:
        """Results per pair and per agent, and the Elo fit, so far.

        Args:
            agents: the agents.
            games_per_pair: games each pair plays.
            anchor: the agent rated 0 (default: the first that played).
            out_dir: the folder written to.
            path: the record file, where the result reads its records from if they were
                not kept.
        """
        order = {pair: i for i, pair in enumerate(self.pairs)}
        kept = None
        if self.kept is not None:
            kept = tuple(
                sorted(self.kept, key=lambda r: (order[tuple(r["agents"])], r["game_index"]))  # type: ignore[index]  # (the same)
            )
        matches = {
            pair: totals.result(
                source=None if path is None else RecordSource(path, (pair,), games_per_pair),
                records=None if kept is None else [r for r in kept if tuple(r["agents"]) == pair],
            )
            for pair, totals in self.matches.items()
        }
        stats = {}
        for agent in agents:
            parts = [m.stats[pair.index(agent)] for pair, m in matches.items() if agent in pair]
            stats[agent] = AgentStats.combine(agent, parts)
        played = [a for a in agents if stats[a].total.games > 0]
        elo = None
        if len(played) >= 2:
            first = anchor if anchor is not None and anchor in played else played[0]
            pair_totals = [
                (pair[0], pair[1], m.games, m.stats[0].total.points)
                for pair, m in matches.items()
                if m.games
            ]
            elo = fit_elo_totals(pair_totals, agents=played, anchor=first)
        some = next(iter(self.matches.values())).settings
        return TournamentResult(
            game=some.game,
            options=dict(some.options),
            agents=tuple(agents),
            games_per_pair=games_per_pair,
            seed=some.tournament_seed if some.tournament_seed is not None else 0,
            time_limit=some.time_limit,
            matches=matches,
            stats=stats,
            elo=elo,
            out_dir=out_dir,
            openings=some.openings,
            kept=kept,
            source=None if path is None else RecordSource(path, self.pairs, games_per_pair),
        )


def summarize_tournament(
    agents: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    settings: dict[tuple[str, str], MatchSettings],
    records: Sequence[GameRecord],
    games_per_pair: int,
    anchor: str | None = None,
    out_dir: Path | None = None,
) -> TournamentResult:
    """Results per pair and per agent, and the Elo fit, from a tournament's records (the
    result keeps them all)."""
    totals = TournamentTotals(pairs, settings, keep=None)
    for record in sorted(records, key=lambda r: r["game_index"]):
        totals.add(record)
    return totals.result(agents, games_per_pair, anchor, out_dir)


def write_tournament_files(result: TournamentResult, out_dir: Path) -> TournamentResult:
    """Write the ratings as CSV, Markdown and a PNG plot next to the games.

    Returns:
        ``result`` with ``files`` filled in.
    """
    files = {kind: out_dir / name for kind, name in TOURNAMENT_FILES.items()}
    files["csv"].write_text(ratings_csv(result), encoding="utf-8")
    files["markdown"].write_text(render_tournament(result, markdown=True), encoding="utf-8")
    plot_ratings(result, files["plot"])
    return replace(result, files=files, out_dir=out_dir)
