"""Round-robin tournaments: every pair of agents plays a match, then Elo ratings for all.

Each pair plays ``games_per_pair`` games under the match rules of :mod:`boardzoo.arena.match`
(colours alternate within the pair; with an odd number, which agent of a pair gets the extra
first move alternates from pair to pair). A pair's match seed is derived from the tournament
seed and the two specs, so adding agents to a tournament and resuming it replays nothing. All
games go to one JSONL file; ratings are fitted by :func:`~boardzoo.arena.ratings.fit_elo` over
all games and written as CSV, Markdown and a PNG plot.

Files in ``out_dir``: ``games.jsonl``, ``ratings.csv``, ``ratings.md``, ``ratings.png``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from boardzoo.arena.match import (
    AgentStats,
    GameTask,
    MatchResult,
    MatchSettings,
    check_specs,
    derive_seed,
    make_settings,
    match_options,
    open_records,
    run_games,
)
from boardzoo.arena.openings import OpeningsSource, OpeningSuite, match_openings
from boardzoo.arena.players import SETUP_TIMEOUT, agent_config, agent_label
from boardzoo.arena.ratings import EloFit, fit_elo
from boardzoo.arena.records import GameRecord, RecordWriter
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game

__all__ = ["TOURNAMENT_FILES", "TournamentResult", "pair_seed", "round_robin", "tournament"]

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


def tournament(
    game: str,
    agents: Sequence[str],
    games_per_pair: int = 10,
    seed: int = 0,
    board_size: int | None = None,
    time_limit: float | None = 60.0,
    workers: int = 1,
    out_dir: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool = True,
    pair_openings: bool = False,
    *,
    options: Mapping[str, int] | None = None,
    opening_plies: int | None = None,
    openings: OpeningsSource | None = None,
    anchor: str | None = None,
    isolate: bool = True,
    setup_timeout: float = SETUP_TIMEOUT,
) -> TournamentResult:
    """Play a round robin between ``agents`` and rate them.

    Args:
        game: a catalog game (``"reversi"``, ``"tictactoe"``, ``"connect_four"``, ...).
        agents: two or more distinct agent specs.
        games_per_pair: games each pair plays (even numbers balance colours exactly).
        seed: the tournament seed.
        board_size: shorthand for ``options={"board_size": board_size}``, for games with that
            option (Reversi: 4, 6, 8); an error for the others.
        time_limit: seconds per move (a slower move loses); ``None`` for no limit.
        workers: games played at once, across pairs.
        out_dir: folder for ``games.jsonl`` and the ratings files; ``None``: write nothing.
        resume: continue the run in ``out_dir``: play only the games missing from its
            ``games.jsonl`` (same settings; more agents or games per pair are fine).
        progress: show a progress bar (only on a terminal).
        pair_openings: paired random openings with colours swapped (see
            :func:`~boardzoo.arena.play_match`).
        opening_plies: random plies before the agents play (default 4 with ``pair_openings``).
        openings: a suite of openings instead (a file, ``"balanced"`` or a list of move
            strings; see :func:`~boardzoo.arena.play_match`): each pair plays opening ``i`` in
            its games ``2i`` and ``2i + 1``, colours swapped.
        anchor: the agent rated ``0`` (default: the first).
        isolate: run the agents in their own processes.
        setup_timeout: seconds to start an agent's process, and again to build and prepare the
            agent for a game.
        options: the game's options (``{"board_size": 6}``; the others at their defaults).

    Returns:
        A :class:`TournamentResult`.

    Every spec is built once before anything starts (no folder is created before).

    Raises:
        AgentSpecError: a spec names an unknown agent or option, or a value its agent refuses.
        FileExistsError: ``out_dir`` already holds games and ``resume`` is not set.
        MatchSettingsError: resuming a folder of another tournament (other openings included).
        ValueError: a bad argument (a bad openings file names the line and the move).
    """
    if isinstance(agents, str) or any(not isinstance(a, str) for a in agents):
        raise TypeError("a tournament takes a list of agent specs (strings)")
    chosen = match_options(game, options, board_size)
    labels = [agent_label(a) for a in agents]
    if len(labels) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {labels}")
    duplicates = sorted({a for a in labels if labels.count(a) > 1})
    if duplicates:
        raise ValueError(f"agents must be distinct; given more than once: {duplicates}")
    if anchor is not None and agent_label(anchor) not in labels:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {labels}")
    if (
        isinstance(games_per_pair, bool)
        or not isinstance(games_per_pair, int)
        or games_per_pair < 1
    ):
        raise ValueError(f"games_per_pair must be a positive int, got {games_per_pair!r}")
    if resume and out_dir is None:
        raise ValueError("resume=True needs the folder (out_dir) of the tournament to resume")
    suite = match_openings(openings, opening_plies, make_game(game, **chosen))
    check_specs(labels)  # every agent built once, before any file or game
    configs = {a: agent_config(a) for a in labels}
    pairs = round_robin(labels)
    settings = {
        pair: make_settings(
            game,
            pair,
            pair_seed(seed, pair),
            chosen,
            time_limit,
            opening_plies,
            pair_openings,
            tournament_seed=int(seed),
            openings=suite,
        )
        for pair in pairs
    }

    existing: list[GameRecord] = []
    writer: RecordWriter | None = None
    folder = None if out_dir is None else Path(out_dir)
    if folder is not None:
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{folder} is a file: a tournament writes to a folder")
        folder.mkdir(parents=True, exist_ok=True)
        existing, writer = open_records(
            folder / TOURNAMENT_FILES["games"], resume, _belongs(settings)
        )
    done = {
        (tuple(r["agents"]), r["game_index"]) for r in existing if r["game_index"] < games_per_pair
    }
    records = [r for r in existing if r["game_index"] < games_per_pair]
    tasks = (
        GameTask(settings[pair], index, pair, (configs[pair[0]], configs[pair[1]]))
        for pair in pairs
        for index in range(games_per_pair)
        if (pair, index) not in done
    )

    from boardzoo.arena.report import TournamentProgress

    try:
        total = len(pairs) * games_per_pair
        with TournamentProgress(labels, total, records, enabled=progress) as bar:

            def finished(record: GameRecord) -> None:
                if writer is not None:
                    writer.append(record)
                records.append(record)
                bar.update(record)

            run_games(
                tasks,
                workers=workers,
                isolate=isolate,
                on_record=finished,
                setup_timeout=setup_timeout,
            )
    finally:
        if writer is not None:
            writer.close()
    result = summarize_tournament(labels, pairs, settings, records, games_per_pair, anchor, folder)
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
        return settings[pair].mismatch(record)  # type: ignore[index]

    return check


def summarize_tournament(
    agents: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    settings: dict[tuple[str, str], MatchSettings],
    records: Sequence[GameRecord],
    games_per_pair: int,
    anchor: str | None = None,
    out_dir: Path | None = None,
) -> TournamentResult:
    """Results per pair and per agent, and the Elo fit, from a tournament's records."""
    ordered = sorted(
        records,
        key=lambda r: (pairs.index(tuple(r["agents"])), r["game_index"]),  # type: ignore[arg-type]
    )
    matches = {
        pair: MatchResult.from_records(
            [r for r in ordered if tuple(r["agents"]) == pair], settings[pair]
        )
        for pair in pairs
    }
    stats = {}
    for agent in agents:
        parts = [m.stats[pair.index(agent)] for pair, m in matches.items() if agent in pair]
        stats[agent] = AgentStats.combine(agent, parts)
    results = [(r["agents"][0], r["agents"][1], r["scores"][0]) for r in ordered]
    played = [a for a in agents if stats[a].total.games > 0]
    elo = None
    if len(played) >= 2:
        first = anchor if anchor is not None and anchor in played else played[0]
        elo = fit_elo(results, agents=played, anchor=first)
    some = next(iter(settings.values()))
    return TournamentResult(
        game=some.game,
        options=dict(some.options),
        agents=tuple(agents),
        games_per_pair=games_per_pair,
        seed=some.tournament_seed if some.tournament_seed is not None else 0,
        time_limit=some.time_limit,
        records=tuple(ordered),
        matches=matches,
        stats=stats,
        elo=elo,
        out_dir=out_dir,
        openings=some.openings,
    )


def write_tournament_files(result: TournamentResult, out_dir: Path) -> TournamentResult:
    """Write the ratings as CSV, Markdown and a PNG plot next to the games.

    Returns:
        ``result`` with ``files`` filled in.
    """
    from dataclasses import replace

    from boardzoo.arena.report import plot_ratings, ratings_csv, render_tournament

    files = {kind: out_dir / name for kind, name in TOURNAMENT_FILES.items()}
    files["csv"].write_text(ratings_csv(result), encoding="utf-8")
    files["markdown"].write_text(render_tournament(result, markdown=True), encoding="utf-8")
    plot_ratings(result, files["plot"])
    return replace(result, files=files, out_dir=out_dir)
