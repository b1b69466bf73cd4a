"""Matches between two agents under tournament rules, reproducible game by game.

:func:`play_match` checks everything, then plays the games on the runner
(:mod:`boardzoo.arena.runner`) under the rules of :mod:`boardzoo.arena.referee`, writing each
record as its game ends, and summarises them (:class:`~boardzoo.arena.results.MatchResult`).
How the games are run (games, seed, clock, openings, sequential test, workers, backend, file,
resume) is one :class:`~boardzoo.arena.settings.ArenaSettings`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from boardzoo.agents import registry
from boardzoo.agents.base import Agent
from boardzoo.arena.agent_identity import PackedAgent, agent_config, pack_agent
from boardzoo.arena.progress import MatchProgress
from boardzoo.arena.record_reading import IndexSet
from boardzoo.arena.record_schema import GameRecord
from boardzoo.arena.results import MatchResult, MatchTotals, RecordSource
from boardzoo.arena.runner import RecordedRun
from boardzoo.arena.settings import ArenaSettings, GameTask, make_settings, match_options
from boardzoo.arena.sprt import SequentialTest, parse_sprt
from boardzoo.errors import InvalidTypeError, InvalidValueError
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game

__all__ = ["check_specs", "play_match", "prepare_agents"]

AgentLike = str | Agent


def check_specs(agents: Iterable[str | Agent], game: Game | None = None) -> None:
    """Build every spec among ``agents`` once, before anything starts, and ask each agent
    whether it can play ``game`` (:meth:`~boardzoo.agents.base.Agent.check_game`; not without
    a game): a bad spec, or an agent that cannot play the game, raises
    :class:`~boardzoo.agents.registry.AgentSpecError` naming it."""
    for agent in agents:
        built = registry.make_agent(agent, seed=0) if isinstance(agent, str) else agent
        if game is None:
            continue
        try:
            built.check_game(game)
        except ValueError as error:
            name = agent if isinstance(agent, str) else repr(agent)
            raise registry.AgentSpecError(f"{name} cannot play {game.label}: {error}") from None


def prepare_agents(
    agents: Sequence[AgentLike], settings: ArenaSettings, game: Game | None = None
) -> tuple[str | Agent | PackedAgent, ...]:
    """The agents as the backend plays them: specs checked (built once) and every agent asked
    whether it can play ``game`` (:func:`check_specs`), agent objects packed for their own
    processes when ``settings.isolate``.

    Raises:
        TypeError: an agent that is neither a spec string nor an :class:`Agent`.
        AgentSpecError: a bad spec.
        AgentNotPicklableError: an object that cannot go to its own process (the message says
            how to make it a spec, or to set ``isolate=False``).
        ValueError: agent objects with ``isolate=False`` and several workers (they would be
            shared by games played at once), or on the Ray backend.
    """
    if any(not isinstance(a, (str, Agent)) for a in agents):
        kinds = [type(a).__name__ for a in agents if not isinstance(a, (str, Agent))]
        raise InvalidTypeError(
            f"agents must be spec strings or boardzoo Agent objects, got {kinds}"
        )
    check_specs(agents, game)
    objects = [a for a in agents if isinstance(a, Agent)]
    if objects and not settings.isolate:
        if settings.workers != 1 or settings.backend != "local":
            raise InvalidValueError(
                "agent objects played in this process (isolate=False) are shared by every "
                "game: use workers=1 and the local backend, or let them run in their own "
                "processes (isolate=True, the default)"
            )
        return tuple(a.strip() if isinstance(a, str) else a for a in agents)
    return tuple(a.strip() if isinstance(a, str) else pack_agent(a) for a in agents)


def play_match(
    game: str,
    agents: Sequence[AgentLike],
    settings: ArenaSettings | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    **changes: Any,
) -> MatchResult:
    """Play a match of ``games`` games between two agents under tournament rules.

    Args:
        game: a catalog game (``"reversi"``, ``"tictactoe"``, ``"connect_four"``, ...).
        agents: two agents: specs (``"mcts:simulations=1000"``, ``"greedy"``; see
            :func:`~boardzoo.agents.make_agent`), built fresh for each game in their own
            processes, or :class:`~boardzoo.agents.Agent` objects, sent to their own processes
            too (each game starts from a fresh copy of the object as it was when the match
            started; an object that cannot be pickled is refused unless ``isolate=False``).
        settings: how the games are played and run (:class:`ArenaSettings`; its defaults
            without it).
        options: the game's options (``{"board_size": 6}``); those not given take the game's
            defaults, and the record holds them all.
        **changes: settings to change (``games=100, time_limit=1.0, workers=2, out="m.jsonl",
            openings="balanced", sprt="elo0=0,elo1=20", backend="ray", ...``; every field of
            :class:`ArenaSettings`).

    Returns:
        A :class:`MatchResult` over games ``0 .. games - 1`` (resumed ones included). The match
        keeps running totals, not its games, so that it runs in flat memory however many games
        it plays: each game goes to ``out`` as it ends, and the result's ``records`` are kept in
        memory up to :data:`~boardzoo.arena.results.KEEP_RECORDS` games, read back from ``out``
        beyond (see :attr:`MatchResult.records`).

    Games are seeded from the match seed and their index, so a match gives the same games
    with any number of workers and on either backend. With ``sprt`` the match stops as soon as
    the test decides, checked after each game pair, in index order (games in play when it
    decides are recorded, not counted); a resumed run continues the test from its records.
    Every spec is built once before anything starts (no file is written, no process started),
    so that a bad value stops the match at once.

    Raises:
        AgentSpecError: a spec names an unknown agent or option, or a value its agent refuses
            (the message names the key, the value and what is allowed).
        AgentNotPicklableError: an agent object that cannot go to its own process.
        FileExistsError: ``out`` already holds games and ``resume`` is not set.
        MatchSettingsError: resuming a file of another match (other openings included).
        RecordError: ``out`` cannot be read or written, or holds malformed lines.
        ValueError: a bad setting (named with what is allowed): an unreadable openings file or
            a bad opening in it (named with its line, the move and the legal moves), bad
            ``sprt`` settings, ...
    """
    arena = (settings or ArenaSettings()).with_changes(**changes)
    if isinstance(agents, str):
        raise InvalidValueError(
            "agents must be a pair of specs, e.g. ('mcts', 'greedy'), not one string"
        )
    chosen = match_options(game, options)
    match = make_settings(game, agents, chosen, arena)
    played = prepare_agents(agents, arena, make_game(game, **chosen))
    configs = (agent_config(played[0]), agent_config(played[1]))
    test = None if arena.sprt is None else SequentialTest(parse_sprt(arena.sprt))

    # the driver keeps running totals, not the games: those go to the file as they end
    totals = MatchTotals(match, test)
    done = IndexSet()

    def resumed(record: GameRecord) -> None:  # a resumed run: the totals go on from the file
        if record["game_index"] < arena.games:
            done.add(record["game_index"])
            totals.add(record)

    path = None if arena.out is None else Path(arena.out)
    run = RecordedRun(arena, path, match.mismatch, on_existing=resumed)
    tasks = (
        GameTask(match, i, (played[0], played[1]), configs)
        for i in range(arena.games)
        if i not in done
    )
    bar = MatchProgress(
        match, arena.games, totals.games, totals.points, enabled=arena.progress, test=test
    )
    run.play(tasks, bar, totals.add, stop_when=None if test is None else (lambda: test.decided))
    source = None if path is None else RecordSource(path, (match.agents,), arena.games)
    return totals.result(arena.out, source)
