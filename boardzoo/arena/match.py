"""Matches between two agents under tournament rules, reproducible game by game.

Rules (those of a Reversi course tournament):

- Colours alternate: in even-numbered games ``agents[0]`` moves first (the game's first side:
  black, X, red), in odd ones ``agents[1]`` does.
- A move that takes longer than ``time_limit`` seconds loses the game (reason ``"time"``); an
  agent that hangs is killed, so it cannot hang the match.
- An illegal answer (an illegal action, or something that is not an integer) is recorded and the
  agent is asked again; three in a row lose the game (``"illegal"``).
- An agent that raises loses the game (``"error"``); the error text is recorded.
- Whatever happens to one game, the match goes on.

Openings: with ``pair_openings`` games ``2i`` and ``2i + 1`` start from the same opening with
colours swapped: ``opening_plies`` random plies, or opening ``i`` of a suite (``openings``: a file,
``"balanced"`` or a list; see :mod:`boardzoo.arena.openings`). Opening plies are recorded with
``move_agents`` and ``move_times`` ``null``.

Sequential testing: with ``sprt`` (see :mod:`boardzoo.arena.sprt`) the match plays game pairs
until the test accepts a hypothesis or ``games`` is reached, whichever comes first.

Reproducibility: game ``i`` gets the seed ``SeedSequence([seed, i])``; each agent is built fresh
for every game from its spec, seeded from the game seed, so every game depends only on the
match settings and its index: a match gives the same records (except timing) with 1 or k
workers, and a resumed match the same as an uninterrupted one.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

import boardzoo
from boardzoo.agents import registry
from boardzoo.agents.base import Agent
from boardzoo.arena.openings import OpeningsSource, OpeningSuite, match_openings
from boardzoo.arena.players import (
    SETUP_TIMEOUT,
    Answer,
    LocalPlayer,
    Player,
    ProcessPlayer,
    agent_config,
    agent_label,
)
from boardzoo.arena.ratings import elo_interval, score_interval
from boardzoo.arena.records import (
    RECORD_FORMAT,
    GameRecord,
    MatchSettingsError,
    RecordWriter,
    open_records,
    record_options,
)
from boardzoo.arena.sprt import SPRT, SequentialTest, SPRTResult, parse_sprt
from boardzoo.games.catalog import get_game, make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = [
    "FORFEIT_REASONS",
    "MAX_ILLEGAL",
    "AgentStats",
    "ForfeitNote",
    "MatchResult",
    "MatchSettings",
    "MatchSettingsError",
    "Tally",
    "game_seed",
    "match_options",
    "play_game",
    "play_match",
]

MAX_ILLEGAL = 3  # illegal answers in a row that lose the game
FORFEIT_REASONS = ("time", "illegal", "error")
REASONS = ("normal", *FORFEIT_REASONS)
_OPENING = 0x6F70656E  # "open": keeps the opening's random stream apart from the agents'
_DEFAULT_PAIRED_OPENING = 4


# --- seeds, names -------------------------------------------------------------------------------


def derive_seed(*words: int) -> int:
    """A 63-bit seed from ``numpy.random.SeedSequence(words)``."""
    low, high = np.random.SeedSequence(list(words)).generate_state(2, np.uint32)
    return (int(high) << 32 | int(low)) & (2**63 - 1)


def game_seed(match_seed: int, index: int) -> int:
    """The seed of game ``index`` of a match: from ``SeedSequence([match_seed, index])``."""
    return derive_seed(match_seed, index)


def _action_name(game: Game, action: int) -> str | None:
    """The game's name of ``action`` (``"d3"``, ``"pass"``); ``None`` outside the action range."""
    if not 0 <= action < game.num_actions:
        return None
    return game.action_name(action)


# --- settings -----------------------------------------------------------------------------------


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


def match_options(
    game: str, options: Mapping[str, Any] | None = None, board_size: int | None = None
) -> dict[str, int]:
    """Every option of ``game`` for a match: ``options`` checked, defaults filled in.

    ``board_size`` is a shorthand for ``options={"board_size": ...}`` (an error for a game
    without that option, or when ``options`` sets it too).

    Raises:
        ValueError: an unknown game, an option the game does not have, or a value it does not
            allow; the message names the value and what is allowed.
    """
    spec = get_game(game)
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict of game options, got {options!r}")
    chosen = dict(options or {})
    if board_size is not None:
        spec.option("board_size")  # the game's options, if it has no board size
        if "board_size" in chosen and chosen["board_size"] != board_size:
            raise ValueError(
                f"board_size={board_size!r} and options['board_size']="
                f"{chosen['board_size']!r} disagree: give the board size once"
            )
        chosen["board_size"] = board_size
    return spec.check_options(chosen)


def make_settings(
    game: str,
    agents: Sequence[str | Agent],
    seed: int,
    options: Mapping[str, Any] | None,
    time_limit: float | None,
    opening_plies: int | None,
    pair_openings: bool,
    tournament_seed: int | None = None,
    openings: OpeningsSource | None = None,
) -> MatchSettings:
    """Check the arguments of a match and return its settings (a suite of ``openings`` is
    loaded and checked here, and pairs the games)."""
    checked = match_options(game, options)
    if len(agents) != 2:
        raise ValueError(f"a match needs exactly two agents, got {len(agents)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if time_limit is not None and (
        isinstance(time_limit, bool) or not time_limit > 0 or math.isinf(time_limit)
    ):
        raise ValueError(
            f"time_limit must be a positive number of seconds or None, got {time_limit!r}"
        )
    suite = match_openings(openings, opening_plies, make_game(game, **checked))
    if suite is not None:
        opening_plies, pair_openings = 0, True
    if opening_plies is None:
        opening_plies = _DEFAULT_PAIRED_OPENING if pair_openings else 0
    if isinstance(opening_plies, bool) or not isinstance(opening_plies, int) or opening_plies < 0:
        raise ValueError(f"opening_plies must be an int >= 0, got {opening_plies!r}")
    labels = (agent_label(agents[0]), agent_label(agents[1]))
    return MatchSettings(
        game=game,
        options=checked,
        agents=labels,
        seed=int(seed),
        time_limit=None if time_limit is None else float(time_limit),
        opening_plies=opening_plies,
        pair_openings=bool(pair_openings),
        tournament_seed=tournament_seed,
        openings=suite,
    )


# --- one game -----------------------------------------------------------------------------------


@dataclass
class _Referee:
    """Book-keeping of one game in progress."""

    game: Game
    agent_of: tuple[int, int]  # agent index of player 0 and player 1
    moves: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    movers: list[int | None] = field(default_factory=list)
    illegal: list[dict[str, Any]] = field(default_factory=list)

    def play(self, state: BoardState, action: int, seconds: float | None) -> BoardState:
        """Record ``action`` (by the player to move; an opening ply if ``seconds`` is None)."""
        opening = seconds is None
        self.movers.append(None if opening else self.agent_of[state.current_player])
        self.moves.append(action)
        self.names.append(_action_name(self.game, action) or "?")
        self.times.append(None if seconds is None else round(seconds, 6))
        return state.apply(action)


def play_game(
    settings: MatchSettings,
    index: int,
    players: tuple[Player, Player],
    configs: Sequence[dict[str, Any]] | None = None,
) -> GameRecord:
    """Play game ``index`` of a match and return its record.

    Args:
        settings: the match.
        index: the game's index (sets its seed and who moves first).
        players: the players of ``settings.agents[0]`` and ``settings.agents[1]``.
        configs: the agents' configurations, copied into the record.

    Returns:
        The finished game's record (see :mod:`boardzoo.arena.records`).
    """
    seed = game_seed(settings.seed, index)
    agent_seeds = [derive_seed(seed, 1), derive_seed(seed, 2)]
    first = index % 2
    game = settings.make_game()
    referee = _Referee(game, (first, 1 - first))
    state = game.initial_state()
    outcome: tuple[str, int, Answer] | None = None  # (reason, agent who forfeits, answer)

    opening = settings.opening(index)
    if opening is not None:
        for move in opening[1]:  # checked legal when the suite was loaded
            state = referee.play(state, move, None)
    opening_key = index // 2 if settings.pair_openings else index
    rng = np.random.default_rng(derive_seed(settings.seed, opening_key, _OPENING))
    for _ in range(settings.opening_plies):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state = referee.play(state, int(legal[int(rng.integers(len(legal)))]), None)

    for agent in (0, 1):  # both build and prepare at once, in their own processes
        players[agent].request_game(agent_seeds[agent], game)
    for agent in referee.agent_of:  # the first player's failure counts first
        answer = players[agent].wait_game()
        if answer.kind != "ready" and outcome is None:
            outcome = ("time" if answer.kind == "time" else "error", agent, answer)

    while outcome is None and not state.is_terminal():
        agent = referee.agent_of[state.current_player]
        strikes = 0
        while True:
            answer = players[agent].act(state, settings.time_limit)
            if answer.kind in ("time", "error", "died"):
                outcome = ("time" if answer.kind == "time" else "error", agent, answer)
                break
            action = answer.action
            if action is not None and 0 <= action < state.num_actions and state.is_legal(action):
                state = referee.play(state, action, answer.seconds)
                break
            name = None if action is None else _action_name(game, action)
            referee.illegal.append(
                {
                    "ply": len(referee.moves),
                    "agent": agent,
                    "action": action,
                    "name": name if action is not None else answer.text,
                    "time": round(answer.seconds, 6),
                }
            )
            strikes += 1
            if strikes == MAX_ILLEGAL:
                outcome = ("illegal", agent, answer)
                break
    return _record(settings, index, seed, agent_seeds, referee, state, outcome, configs)


def _forfeit_text(reason: str, answer: Answer, settings: MatchSettings) -> str:
    if reason == "illegal":
        return f"{MAX_ILLEGAL} illegal moves in a row"
    if reason == "time":
        return answer.text or f"no move within the time limit of {settings.time_limit:g} s"
    return answer.text or "the agent failed"


def _record(
    settings: MatchSettings,
    index: int,
    seed: int,
    agent_seeds: list[int],
    referee: _Referee,
    state: BoardState,
    outcome: tuple[str, int, Answer] | None,
    configs: Sequence[dict[str, Any]] | None,
) -> GameRecord:
    first = referee.agent_of[0]
    forfeit_time = None
    if outcome is None:
        reason, forfeit, error, trace = "normal", None, None, None
        winner_player = state.winner
        winner = None if winner_player is None else referee.agent_of[winner_player]
    else:
        reason, forfeit, answer = outcome
        error = _forfeit_text(reason, answer, settings)
        trace = answer.traceback
        winner = 1 - forfeit
        if reason == "time":
            forfeit_time = round(answer.seconds, 6)
    scores = [0.5, 0.5] if winner is None else [1.0 if a == winner else 0.0 for a in (0, 1)]
    result = "1/2-1/2" if winner is None else ("1-0" if winner == first else "0-1")
    names = referee.game.spec.sides
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "boardzoo_version": boardzoo.__version__,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **settings.fields(),
        "agent_configs": list(configs) if configs is not None else None,
        "game_index": index,
        "seed": seed,
        "agent_seeds": agent_seeds,
        **_opening_fields(settings, index),
        "first": first,
        "colours": [names[0] if a == first else names[1] for a in (0, 1)],
        "moves": referee.moves,
        "move_names": referee.names,
        "move_times": referee.times,
        "move_agents": referee.movers,
        "illegal_attempts": referee.illegal,
        "result": result,
        "scores": scores,
        "winner": winner,
        "discs": list(state.disc_counts()),
        "reason": reason,
        "forfeit": forfeit,
        "error": error,
        "traceback": trace,
        "forfeit_time": forfeit_time,
    }
    return record  # type: ignore[return-value]


def _opening_fields(settings: MatchSettings, index: int) -> dict[str, Any]:
    """``opening`` (its moves' names) and ``opening_index`` of a game played from a suite."""
    if settings.openings is None:
        return {}
    number = settings.openings.index_of_game(index)
    return {"opening": settings.openings.texts[number], "opening_index": number}


# --- many games, in parallel --------------------------------------------------------------------


@dataclass(frozen=True)
class GameTask:
    """One game to play: its match, its index, the two agents and their configurations."""

    settings: MatchSettings
    index: int
    agents: tuple[str | Agent, str | Agent]
    configs: tuple[dict[str, Any], dict[str, Any]]


def _key(agent: str | Agent) -> Any:
    return agent_label(agent) if isinstance(agent, str) else id(agent)


class _PlayerCache:
    """The players of one worker thread, kept from game to game (at most ``capacity``)."""

    def __init__(self, isolate: bool, setup_timeout: float, capacity: int = 4) -> None:
        self.isolate = isolate
        self.setup_timeout = setup_timeout
        self.capacity = capacity
        self.players: OrderedDict[tuple[Any, int], Player] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, agent: str | Agent, copy: int) -> Player:
        """The player of ``agent`` (``copy`` 1: a second one, for self-play)."""
        key = (_key(agent), copy)
        with self.lock:
            player = self.players.pop(key, None)
        if player is None:
            if isinstance(agent, str) and self.isolate:
                player = ProcessPlayer(agent, setup_timeout=self.setup_timeout)
            else:
                player = LocalPlayer(agent)
        with self.lock:
            self.players[key] = player
            extra = len(self.players) - self.capacity
            retired = [self.players.popitem(last=False)[1] for _ in range(max(0, extra))]
        for old in retired:
            old.close()
        return player

    def kill_all(self) -> None:
        with self.lock:
            players = list(self.players.values())
        for player in players:
            player.kill()

    def close_all(self) -> None:
        with self.lock:
            players = list(self.players.values())
            self.players.clear()
        for player in players:
            player.close()


def run_games(
    tasks: Iterable[GameTask],
    *,
    workers: int = 1,
    isolate: bool = True,
    on_record: Callable[[GameRecord], None] | None = None,
    setup_timeout: float = SETUP_TIMEOUT,
    stop_when: Callable[[], bool] | None = None,
) -> list[GameRecord]:
    """Play ``tasks`` on ``workers`` threads, each driving its own agent processes.

    ``tasks`` is consumed lazily: at most ``2 * workers`` games are taken from it ahead of the
    games finished, so a generator of any length costs no memory up front.

    Args:
        tasks: the games (any iterable, a generator included).
        workers: games played at once.
        isolate: run spec agents in their own processes (agent objects always run here).
        on_record: called in the calling thread with each record as soon as its game ends.
        setup_timeout: seconds to start an agent process, and again to build and prepare the
            agent for a game.
        stop_when: asked (in the calling thread) before each game is started: ``True`` starts
            no more games; those in play finish and their records are kept. With it, only
            ``workers`` games are taken ahead, so that stopping wastes no queued game.

    Returns:
        The records, in the order the games finished. If interrupted (KeyboardInterrupt or an
        error), agent processes are killed and games in progress are dropped.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    caches: list[_PlayerCache] = []
    local = threading.local()
    stop = threading.Event()
    lock = threading.Lock()

    def play(task: GameTask) -> GameRecord | None:
        if stop.is_set():
            return None
        cache = getattr(local, "cache", None)
        if cache is None:
            cache = local.cache = _PlayerCache(isolate, setup_timeout)
            with lock:
                caches.append(cache)
        # the same agent on both sides (self-play) needs two players
        second = 1 if _key(task.agents[0]) == _key(task.agents[1]) else 0
        players = (cache.get(task.agents[0], 0), cache.get(task.agents[1], second))
        record = play_game(task.settings, task.index, players, task.configs)
        return None if stop.is_set() else record

    records: list[GameRecord] = []
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boardzoo-arena")
    pending: dict[Future[GameRecord | None], None] = {}  # in the order the games started
    upcoming = iter(tasks)

    ahead = 2 * workers if stop_when is None else workers

    def submit() -> None:
        """Keep ``ahead`` games queued or in play (a new one starts as one ends)."""
        while len(pending) < ahead:
            if stop_when is not None and stop_when():
                return
            task = next(upcoming, None)
            if task is None:
                return
            pending[pool.submit(play, task)] = None

    try:
        submit()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in [f for f in pending if f in finished]:  # the earliest game first
                del pending[future]
                record = future.result()
                if record is not None:
                    records.append(record)
                    if on_record is not None:
                        on_record(record)
            submit()
    except BaseException:
        stop.set()
        for future in pending:
            future.cancel()
        with lock:
            for cache in caches:
                cache.kill_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for cache in caches:
            cache.close_all()
    return records


# --- results ------------------------------------------------------------------------------------


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


def settings_of(record: GameRecord) -> MatchSettings:
    """The match settings a record was played under (its suite of openings, if any, by name and
    digest only)."""
    openings = None
    if "openings_sha256" in record:
        openings = OpeningSuite(str(record.get("openings")), (), (), record["openings_sha256"])
    return MatchSettings(
        game=record["game"],
        options=record_options(record),
        agents=tuple(record["agents"]),  # type: ignore[arg-type]
        seed=record["match_seed"],
        time_limit=record["time_limit"],
        opening_plies=record.get("opening_plies", 0),
        pair_openings=record.get("pair_openings", False),
        tournament_seed=record.get("tournament_seed"),
        openings=openings,
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


# --- the match ----------------------------------------------------------------------------------


def check_specs(agents: Iterable[str | Agent]) -> None:
    """Build every spec among ``agents`` once (agent objects are left alone), before anything
    starts: a bad one raises :class:`~boardzoo.agents.registry.AgentSpecError`."""
    for agent in agents:
        if isinstance(agent, str):
            registry.check_spec(agent)


def play_match(
    game: str,
    agents: Sequence[str | Agent],
    games: int = 10,
    seed: int = 0,
    board_size: int | None = None,
    time_limit: float | None = 60.0,
    workers: int = 1,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool = True,
    pair_openings: bool = False,
    *,
    options: Mapping[str, int] | None = None,
    opening_plies: int | None = None,
    openings: OpeningsSource | None = None,
    sprt: SPRT | str | None = None,
    isolate: bool = True,
    setup_timeout: float = SETUP_TIMEOUT,
) -> MatchResult:
    """Play a match of ``games`` games between two agents under tournament rules.

    Args:
        game: a catalog game (``"reversi"``, ``"tictactoe"``, ``"connect_four"``, ...).
        agents: two agent specs (``"mcts:simulations=1000"``, ``"greedy"``; see
            :func:`~boardzoo.agents.make_agent`). Specs are required for process isolation;
            :class:`~boardzoo.agents.Agent` objects are accepted for in-process use (they are
            ``reset()`` before each game, not rebuilt, so only ``workers=1`` is allowed).
        games: how many games.
        seed: the match seed (game ``i`` is seeded from ``(seed, i)``).
        board_size: shorthand for ``options={"board_size": board_size}``, for games with that
            option (Reversi: 4, 6, 8); an error for the others.
        time_limit: seconds allowed per move (a slower move loses); ``None`` for no limit.
        workers: games played at once (each with its own two agent processes).
        out: JSONL file to append each finished game to; ``None`` keeps records in memory.
        resume: continue ``out``: play only the game indices missing from it (its games must
            have been played with the same settings; ``games`` may differ).
        progress: show a progress bar with the live score (only on a terminal).
        pair_openings: games ``2i`` and ``2i + 1`` start from the same random opening with
            colours swapped (cancels the luck of the opening).
        opening_plies: random plies before the agents play (default 4 with ``pair_openings``,
            else 0).
        openings: a suite of openings to start from instead: a file with one opening per line
            (``"f5d6c4d3"``, see :mod:`boardzoo.arena.openings`), ``"balanced"`` (the suite
            shipped for the game and board size) or a list of openings as strings. Games ``2i``
            and ``2i + 1`` play opening ``i`` with colours swapped (``pair_openings`` is implied;
            ``opening_plies`` may not be given). Records name their opening.
        sprt: a sequential probability ratio test (``"elo0=0,elo1=20"`` or an
            :class:`~boardzoo.arena.sprt.SPRT`): the match stops as soon as it accepts a
            hypothesis about ``agents[0]``'s Elo advantage, checked after each game pair, and
            ``games`` is only the cap. Pairs games (random paired openings unless ``openings``
            are given). Pairs count in index order, so the verdict does not depend on the
            workers; with several, games in play when it decides (or of later pairs, ended
            first) are recorded, not counted. A resumed run continues the test from its records.
        isolate: run spec agents in their own processes (``False``: in this process, faster to
            start but a hanging agent hangs the match).
        setup_timeout: seconds to start an agent's process, and again to build and prepare the
            agent for a game (the first game compiles or loads compiled code; the move clock
            starts after).
        options: the game's options (``{"board_size": 6}``); those not given take the game's
            defaults, and the record holds them all.

    Returns:
        A :class:`MatchResult` over games ``0 .. games - 1`` (resumed ones included).

    Every spec is built once before anything starts (no file is written, no process started
    before), so that a bad value stops the match at once.

    Raises:
        AgentSpecError: a spec names an unknown agent or option, or a value its agent refuses
            (the message names the key, the value and what is allowed).
        FileExistsError: ``out`` already holds games and ``resume`` is not set.
        MatchSettingsError: resuming a file of another match (other openings included).
        RecordError: ``out`` cannot be read or written, or holds malformed lines.
        ValueError: a bad argument: an unreadable openings file or a bad opening in it (named
            with its line, the move and the legal moves), bad ``sprt`` settings, ...
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if isinstance(agents, str):
        raise ValueError("agents must be a pair of specs, e.g. ('mcts', 'greedy'), not one string")
    test = None if sprt is None else SequentialTest(parse_sprt(sprt))
    settings = make_settings(
        game,
        agents,
        seed,
        match_options(game, options, board_size),
        time_limit,
        opening_plies,
        pair_openings or test is not None,
        openings=openings,
    )
    agents = tuple(a.strip() if isinstance(a, str) else a for a in agents)
    if any(not isinstance(a, str) for a in agents):
        if any(not isinstance(a, (str, Agent)) for a in agents):
            raise TypeError("agents must be spec strings or boardzoo Agent objects")
        if workers != 1:
            raise ValueError(
                "Agent objects are played in this process and shared by all games: use "
                "workers=1, or pass specs to play games in parallel"
            )
    if resume and out is None:
        raise ValueError("resume=True needs the record file (out) of the run to resume")
    check_specs(agents)
    configs = (agent_config(agents[0]), agent_config(agents[1]))

    existing: list[GameRecord] = []
    writer: RecordWriter | None = None
    if out is not None:
        existing, writer = open_records(out, resume, settings.mismatch)
    done = {r["game_index"]: r for r in existing if r["game_index"] < games}
    pair: tuple[str | Agent, str | Agent] = (agents[0], agents[1])
    tasks = (GameTask(settings, i, pair, configs) for i in range(games) if i not in done)
    records = list(done.values())
    if test is not None:
        for record in records:  # a resumed run: the test goes on from the games played
            test.add(record["game_index"], record["scores"][0])

    from boardzoo.arena.report import MatchProgress

    try:
        with MatchProgress(settings, games, records, enabled=progress, test=test) as bar:

            def finished(record: GameRecord) -> None:
                if writer is not None:
                    writer.append(record)
                records.append(record)
                if test is not None:
                    test.add(record["game_index"], record["scores"][0])
                bar.update(record)

            run_games(
                tasks,
                workers=workers,
                isolate=isolate,
                on_record=finished,
                setup_timeout=setup_timeout,
                stop_when=None if test is None else (lambda: test.decided),
            )
    finally:
        if writer is not None:
            writer.close()
    return MatchResult.from_records(
        records, settings, out, sprt=None if test is None else test.settings
    )
