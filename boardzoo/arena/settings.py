"""What a run of games is: the match (game, agents, seed, clock, openings) and how it is run.

:class:`MatchSettings` is what makes two runs the same match (a record file is resumable by a
run with the same settings); :class:`ArenaSettings` is the one object that says how matches and
tournaments are played and run (games, seed, time control, openings, sequential test, workers,
backend, record file, resume, isolation), shared by :func:`~boardzoo.arena.play_match`,
:func:`~boardzoo.arena.tournament` and the experiments; :class:`GameTask` is one game to play.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from boardzoo.agents.base import Agent
from boardzoo.arena.agent_identity import PackedAgent, agent_label
from boardzoo.arena.openings import OpeningsSource, OpeningSuite, match_openings
from boardzoo.arena.players import SETUP_TIMEOUT
from boardzoo.arena.record_schema import GameRecord, record_options
from boardzoo.arena.sprt import SPRT, parse_sprt
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import get_game, make_game
from boardzoo.games.spec import Game

__all__ = [
    "BACKENDS",
    "ArenaSettings",
    "GameTask",
    "MatchSettings",
    "make_settings",
    "match_options",
    "settings_of",
]

BACKENDS = ("local", "ray")  # where games are played: this machine's processes, or a Ray cluster
_DEFAULT_PAIRED_OPENING = 4  # random plies of a paired opening when none are given


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidValueError(f"{name} must be a positive int, got {value!r}")


@dataclass(frozen=True)
class ArenaSettings:
    """How games are played and run: one settings object for matches, tournaments, experiments.

    Every field has a default; :meth:`with_changes` makes a copy with some changed (unknown
    names are refused with the list of known ones). The values are checked when the object is
    made, before any game starts.

    Attributes:
        games: games of a match (of each pair, in a tournament); with ``sprt``, the most.
        seed: the match seed (the tournament's): game ``i`` is seeded from ``(seed, i)``.
        time_limit: seconds a move (a slower move loses the game); ``None``: no limit.
        openings: a suite of openings to start from: a file with one opening per line
            (``"f5d6c4d3"``), ``"balanced"`` (the suite shipped for the game) or a list of move
            strings; games ``2i`` and ``2i + 1`` play opening ``i`` with colours swapped.
        opening_plies: random plies before the agents play (default 4 with ``pair_openings``,
            else 0); not with ``openings``.
        pair_openings: games ``2i`` and ``2i + 1`` start from the same random opening, colours
            swapped (cancels the luck of the opening).
        sprt: a sequential probability ratio test (``"elo0=0,elo1=20"`` or an
            :class:`~boardzoo.arena.sprt.SPRT`) that stops a match once it decides (matches
            only).
        workers: games played at once.
        backend: ``"local"`` (processes on this machine) or ``"ray"`` (Ray actors on a
            cluster; ``pip install boardzoo[ray]``).
        address: the Ray cluster to join (``"auto"``, ``"10.0.0.5:6379"``); ``None`` starts a
            local one (``backend="ray"`` only).
        out: where records go as games end: a JSONL file for a match, a folder for a
            tournament; ``None`` keeps them in memory.
        resume: continue ``out``, playing only the games missing from it.
        progress: show a progress bar (only on a terminal).
        isolate: run each agent in its own process (Ray actor), so that a hang or a crash
            loses a game, not the match; agent objects are sent there too (they must pickle).
            ``False`` plays in this process: faster to start, but a hanging agent hangs the
            match.
        setup_timeout: seconds to start an agent's process, and again to build and prepare
            the agent for a game (compiling included; the move clock starts after).
    """

    games: int = 10
    seed: int = 0
    time_limit: float | None = 60.0
    openings: OpeningsSource | None = None
    opening_plies: int | None = None
    pair_openings: bool = False
    sprt: SPRT | str | None = None
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    out: str | os.PathLike[str] | None = None
    resume: bool = False
    progress: bool = True
    isolate: bool = True
    setup_timeout: float = SETUP_TIMEOUT

    def __post_init__(self) -> None:
        _positive_int("games", self.games)
        _positive_int("workers", self.workers)
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise InvalidValueError(f"seed must be a non-negative int, got {self.seed!r}")
        if self.seed < 0:
            raise InvalidValueError(f"seed must be a non-negative int, got {self.seed!r}")
        limit = self.time_limit
        if limit is not None and (
            isinstance(limit, bool)
            or not isinstance(limit, (int, float))
            or not limit > 0
            or math.isinf(limit)
        ):
            raise InvalidValueError(
                f"time_limit must be a positive number of seconds or None, got {limit!r}"
            )
        if self.backend not in BACKENDS:
            raise InvalidValueError(
                f"backend={self.backend!r} is not allowed: use one of {list(BACKENDS)}"
            )
        if self.address is not None and self.backend != "ray":
            raise InvalidValueError(f"address={self.address!r} is for backend='ray' only")
        if self.resume and self.out is None:
            raise InvalidValueError("resume=True needs the records (out) of the run to resume")
        timeout = self.setup_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise InvalidValueError(
                f"setup_timeout must be a positive number of seconds, got {timeout!r}"
            )
        if self.sprt is not None:
            parse_sprt(self.sprt)  # a bad test is refused here, before any game

    def with_changes(self, **changes: Any) -> ArenaSettings:
        """A copy with ``changes`` applied (checked like a new object).

        Raises:
            ValueError: a name that is not a setting (the message lists the settings), or a
                value a setting does not allow.
        """
        known = [f.name for f in fields(self)]
        unknown = sorted(set(changes) - set(known))
        if unknown:
            raise InvalidValueError(f"unknown arena settings {unknown}: the settings are {known}")
        return replace(self, **changes)


@dataclass(frozen=True)
class MatchSettings:
    """What makes two runs the same match (and a record file resumable by a run).

    Attributes:
        game: the catalog name of the game (``"reversi"``, ``"connect_four"``, ...).
        options: every option of the game with its value (``{"board_size": 8}``; ``{}`` for
            games without options).
        agents: the two agents' labels (their specs), in match order.
        seed: the match seed.
        time_limit: seconds per move, or ``None`` for no limit.
        opening_plies: random plies played before the agents take over.
        pair_openings: games ``2i`` and ``2i + 1`` share their opening (colours swapped).
        tournament_seed: the tournament's seed, for matches that are part of one.
        openings: the suite the games start from (paired: games ``2i`` and ``2i + 1`` play
            opening ``i``), or ``None`` (random opening plies, if any).
    """

    game: str
    options: Mapping[str, int]
    agents: tuple[str, str]
    seed: int
    time_limit: float | None
    opening_plies: int = 0
    pair_openings: bool = False
    tournament_seed: int | None = None
    openings: OpeningSuite | None = None

    def make_game(self) -> Game:
        """The game played, with its options."""
        return make_game(self.game, **self.options)

    def fields(self) -> dict[str, Any]:
        """The settings as record fields."""
        fields: dict[str, Any] = {
            "game": self.game,
            "options": dict(self.options),
            "agents": list(self.agents),
            "match_seed": self.seed,
            "time_limit": self.time_limit,
            "opening_plies": self.opening_plies,
            "pair_openings": self.pair_openings,
        }
        if self.openings is not None:
            fields["openings"] = self.openings.source
            fields["openings_sha256"] = self.openings.sha256
        if self.tournament_seed is not None:
            fields["tournament_seed"] = self.tournament_seed
        return fields

    def mismatch(self, record: GameRecord) -> str | None:
        """How ``record`` differs from these settings (``None`` if it belongs to this match)."""
        # Openings first (they decide the other opening settings). A suite is known by its
        # digest: the file may have moved, its openings may not have changed.
        digest = record.get("openings_sha256")
        if self.openings is None and digest is not None:
            return f"{_openings_words(record)} where this run has none"
        if self.openings is not None and digest != self.openings.sha256:
            played = "no suite of openings" if digest is None else _openings_words(record)
            return f"{played} where this run has {_openings_words(self)}"
        for key, wanted in self.fields().items():
            if key in ("openings", "openings_sha256"):
                continue
            found = record_options(record) if key == "options" else record.get(key)
            if found != wanted:
                return f"{key}={found!r} where this run has {key}={wanted!r}"
        if self.tournament_seed is None and "tournament_seed" in record:
            return "it is a tournament's game"
        return None

    def opening(self, index: int) -> tuple[int, tuple[int, ...]] | None:
        """The suite's opening that game ``index`` starts from, as ``(its index, its
        actions)``; ``None`` without a suite."""
        if self.openings is None:
            return None
        number = self.openings.index_of_game(index)
        return number, self.openings.moves[number]


def _openings_words(where: MatchSettings | Mapping[str, Any]) -> str:
    """``openings from xot.txt (sha256 1a2b3c4d...)``, of settings or of a record."""
    source: Any
    digest: Any
    if isinstance(where, MatchSettings):
        assert where.openings is not None
        source, digest = where.openings.source, where.openings.sha256
    else:
        source, digest = where.get("openings"), where.get("openings_sha256")
    return f"openings from {source} (sha256 {str(digest)[:12]}...)"


def match_options(game: str, options: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Every option of ``game`` for a match: ``options`` checked, defaults filled in.

    Raises:
        ValueError: an unknown game, an option the game does not have, or a value it does not
            allow; the message names the value and what is allowed.
    """
    spec = get_game(game)
    if options is not None and not isinstance(options, Mapping):
        raise InvalidValueError(f"options must be a dict of game options, got {options!r}")
    return spec.check_options(dict(options or {}))


def make_settings(
    game: str,
    agents: Sequence[str | Agent],
    options: Mapping[str, int],
    arena: ArenaSettings,
    seed: int | None = None,
    tournament_seed: int | None = None,
) -> MatchSettings:
    """The settings of one match of ``agents`` at ``game`` (``options`` checked by
    :func:`match_options`), played under ``arena`` (``seed`` replaces its seed: a tournament's
    pairs each have their own). A suite of openings is loaded and checked here, and pairs the
    games; so does a sequential test."""
    if len(agents) != 2:
        raise InvalidValueError(f"a match needs exactly two agents, got {len(agents)}")
    suite = match_openings(arena.openings, arena.opening_plies, make_game(game, **options))
    opening_plies = arena.opening_plies
    pair_openings = arena.pair_openings or arena.sprt is not None
    if suite is not None:
        opening_plies, pair_openings = 0, True
    if opening_plies is None:
        opening_plies = _DEFAULT_PAIRED_OPENING if pair_openings else 0
    if isinstance(opening_plies, bool) or not isinstance(opening_plies, int) or opening_plies < 0:
        raise InvalidValueError(f"opening_plies must be an int >= 0, got {opening_plies!r}")
    return MatchSettings(
        game=game,
        options=dict(options),
        agents=(agent_label(agents[0]), agent_label(agents[1])),
        seed=int(arena.seed if seed is None else seed),
        time_limit=None if arena.time_limit is None else float(arena.time_limit),
        opening_plies=opening_plies,
        pair_openings=bool(pair_openings),
        tournament_seed=tournament_seed,
        openings=suite,
    )


def settings_of(record: GameRecord) -> MatchSettings:
    """The match settings a record was played under (its suite of openings, if any, by name and
    digest only)."""
    openings = None
    if "openings_sha256" in record:
        openings = OpeningSuite(str(record.get("openings")), (), (), record["openings_sha256"])
    return MatchSettings(
        game=record["game"],
        options=record_options(record),
        agents=tuple(record["agents"]),  # type: ignore[arg-type]  # (a checked record holds two specs)
        seed=record["match_seed"],
        time_limit=record["time_limit"],
        opening_plies=record.get("opening_plies", 0),
        pair_openings=record.get("pair_openings", False),
        tournament_seed=record.get("tournament_seed"),
        openings=openings,
    )


@dataclass(frozen=True)
class GameTask:
    """One game to play: its match, its index, the two agents and their configurations."""

    settings: MatchSettings
    index: int
    agents: tuple[str | Agent | PackedAgent, str | Agent | PackedAgent]
    configs: tuple[dict[str, Any], dict[str, Any]]
