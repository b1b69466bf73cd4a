"""The referee: one game between two players under tournament rules, and its record.

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
colours swapped: ``opening_plies`` random plies, or opening ``i`` of a suite (see
:mod:`boardzoo.arena.openings`). Opening plies are recorded with ``move_agents`` and
``move_times`` ``null``.

Game ``i`` gets the seed ``SeedSequence([seed, i])`` (:mod:`boardzoo.arena.seeds`); each agent is
built fresh for every game, seeded from the game seed, so every game depends only on the match
settings and its index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

import boardzoo
from boardzoo.arena.players import Answer, Player
from boardzoo.arena.record_schema import RECORD_FORMAT, GameRecord
from boardzoo.arena.seeds import derive_seed, game_seed
from boardzoo.arena.settings import MatchSettings
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = ["FORFEIT_REASONS", "MAX_ILLEGAL", "REASONS", "play_game"]

MAX_ILLEGAL = 3  # illegal answers in a row that lose the game
FORFEIT_REASONS = ("time", "illegal", "error")
REASONS = ("normal", *FORFEIT_REASONS)
_OPENING = 0x6F70656E  # "open": keeps the opening's random stream apart from the agents'


def _action_name(game: Game, action: int) -> str | None:
    """The game's name of ``action`` (``"d3"``, ``"pass"``); ``None`` outside the action range."""
    if not 0 <= action < game.num_actions:
        return None
    return game.action_name(action)


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
        The finished game's record (see :mod:`boardzoo.arena.record_schema`).
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
        players[agent].request_game(agent_seeds[agent], game, settings.time_limit)
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
    return record  # type: ignore[return-value]  # (every GameRecord key is set above)


def _opening_fields(settings: MatchSettings, index: int) -> dict[str, Any]:
    """``opening`` (its moves' names) and ``opening_index`` of a game played from a suite."""
    if settings.openings is None:
        return {}
    number = settings.openings.index_of_game(index)
    return {"opening": settings.openings.texts[number], "opening_index": number}
