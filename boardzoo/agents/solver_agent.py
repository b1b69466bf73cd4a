"""The perfect player: every move from the game's exact solver.

``solver`` plays a move with the best exact score (:func:`boardzoo.gametree.solve.solve`): it never
loses a position that can be held and wins every position that can be won, as fast as it can
(and loses as late as it can) where the game's score counts it (Reversi's disc difference,
Connect Four's moves to the win; TicTacToe's scores are win, draw or loss only). Where the
solver reaches every position of the game it is perfect from the first move: TicTacToe, Connect
Four (its opening book answers the first moves, the search the rest) and Reversi 4x4. Reversi
6x6 and 8x8 start far beyond an exact solve (32 and 60 empty squares): there ``solver`` is the
endgame solver.

It never raises in the middle of a game. What it does where the solver cannot answer is
``fallback``:

- ``auto`` (the default; ``engine`` is the same): the alpha-beta engine
  (:class:`~boardzoo.agents.engine.EngineAgent`) plays a position with more empty squares than
  ``max_empties``, and, with a ``time_limit``, a position whose solve the clock cuts. Without a
  clock every position within ``max_empties`` is solved to the end, however long it takes.
- ``none``: the solver alone, a perfect player or none. It cannot promise a move within a clock,
  so ``time_limit`` with ``fallback=none`` is refused when the agent is made, and a game with
  positions beyond ``max_empties`` when a match starts (:meth:`SolverAgent.check_game`).

:attr:`SolverAgent.last_search` says who chose the last move (``source``) and why the engine did.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.agents.engine import EngineAgent, EngineInfo
from boardzoo.checks import (
    check_choice,
    check_number,
    check_optional_int,
    check_optional_number,
    show,
)
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import SolveResult, empties_of, game_solver, solvable, solve
from boardzoo.search.handover import prepare_solver

__all__ = ["SolverAgent", "SolverInfo"]

FALLBACKS = ("auto", "engine", "none")
TIES = ("first", "random")
SOLVE_SHARE = 0.5  # of a move's time_limit: the solve's; the engine has the rest if it is cut
UNCLOCKED_ENGINE_SECONDS = 1.0  # the engine's time for a position beyond the solver, no clock
# Of a match's move limit (the referee's: a slower move loses), what an unclocked solver plays
# within: the rest is a margin for the messages between the arena and the agent's process.
MOVE_LIMIT_SHARE = 0.8


@dataclass(frozen=True)
class SolverInfo:
    """Who chose the last move and how (``SolverAgent.last_search``): the solver, or the engine
    in its place. The fields :class:`~boardzoo.agents.engine.EngineInfo` has mean the same here.

    Attributes:
        action: the move played.
        score: the solver's exact score for the player to move when ``source`` is ``"solver"``
            (Reversi: the final disc difference; Connect Four: ``22 - s`` for a win with the
            mover's ``s``-th disc); else the engine's score (its evaluation's units).
        depth: the engine's plies (0 when the solver chose the move).
        nodes: positions searched, by the solve and the engine.
        seconds: wall time of the move, the solve's and the engine's.
        exact: the score is the game-theoretic value.
        solved: ``"exact"`` when the solver chose the move, else ``None``.
        source: ``"solver"`` (an exact solve, or the game's opening book) or ``"engine"``.
        reason: why the engine played: ``"clock"`` (the solve did not finish within its share of
            ``time_limit``) or ``"beyond"`` (more empty squares than ``max_empties``); ``None``
            when the solver chose the move.
        result: the solve (``complete`` false when the clock cut it); ``None`` when the position
            was beyond the solver.
        engine: the engine's search when it played, else ``None``.
    """

    action: int
    score: int
    depth: int
    nodes: int
    seconds: float
    exact: bool
    solved: Literal["exact"] | None
    source: Literal["solver", "engine"]
    reason: Literal["clock", "beyond"] | None = None
    result: SolveResult | None = None
    engine: EngineInfo | None = None


class SolverAgent(Agent):
    """Plays perfectly: a move with the best exact score, from the game's exact solver (the engine
    plays where the solver cannot: beyond max_empties, or past the clock).

    Args:
        time_limit: seconds a move may take: the solve has half of it, and if it does not finish
            the engine plays with the other half (a position beyond the solver: the engine with
            all of it; ``fallback=none`` is refused). ``None``: no clock, every solve runs to its
            end (seconds to minutes: Connect Four just past its opening book, Reversi near
            ``max_empties``). In a match whose referee limits a move (the arena's ``time_limit``),
            an unclocked solver plays within 80% of that limit the same way, so that it never
            loses on time (with ``fallback=none``, it does not: the solver alone).
        max_empties: positions with more empty squares are beyond the solver (its opening book
            aside); ``None``: the solver's own limit, what it finishes in about a minute
            (Reversi 30, Connect Four 38 beyond its book, other games 14).
        fallback: ``auto`` (``engine`` is the same): the alpha-beta engine plays a position
            beyond the solver (1 s a move without a clock), and one whose solve the clock cuts;
            ``none``: the solver alone: refused with a ``time_limit``, and before a match of a
            game with positions beyond ``max_empties``.
        ties: ``first``, the solver's first best move (one solve, fastest); ``random``, any
            best move at random (every move solved; seeded).
        seed: seed of the ties and of the engine: an int, a NumPy ``Generator`` or ``None``.
    """

    name = "solver"

    def __init__(
        self,
        time_limit: float | None = None,
        max_empties: int | None = None,
        fallback: Literal["auto", "engine", "none"] = "auto",
        ties: Literal["first", "random"] = "first",
        seed: Seed = None,
    ) -> None:
        self.time_limit = check_optional_number("time_limit", time_limit)
        self.max_empties = check_optional_int("max_empties", max_empties, 0, 64)
        self.fallback = check_choice("fallback", fallback, FALLBACKS)
        self.ties = check_choice("ties", ties, TIES)
        if self.fallback == "none" and self.time_limit is not None:
            raise InvalidValueError(
                f"fallback='none' with time_limit={show(self.time_limit)} is not allowed: the "
                "solver alone cannot promise a move within a clock (a solve may take minutes); "
                "give fallback=auto (the engine plays when the clock cuts a solve) or no "
                "time_limit"
            )
        self.seed = seed
        self._rng = make_rng(seed)
        self._engine: EngineAgent | None = None
        self._move_limit: float | None = None  # the referee's, while no time_limit is given
        self.last_search: SolverInfo | None = None

    @property
    def last_result(self) -> SolveResult | None:
        """The solve that chose the last move; ``None`` when the engine chose it."""
        info = self.last_search
        return info.result if info is not None and info.source == "solver" else None

    def check_game(self, game: Game) -> None:
        """With ``fallback=none``, every position of the game must be within the solver's reach;
        else, where the engine may play, that it can play ``game``."""
        if self.fallback == "none":
            beyond = self._beyond_game(game)
            if beyond:
                raise InvalidValueError(beyond)
        elif self._engine_may_play(game):
            self._fallback_engine().check_game(game)

    def set_move_limit(self, seconds: float | None) -> None:
        """Play within 80% of a match's move limit while no ``time_limit`` is given (the solve
        half of it, the engine the rest where the solve does not finish); not with
        ``fallback=none``."""
        self._move_limit = None
        if seconds is not None and self.fallback != "none":
            self._move_limit = check_number("move limit", seconds) * MOVE_LIMIT_SHARE

    @property
    def _clock(self) -> float | None:
        """The seconds a move may take: ``time_limit``, else the match's share, else none."""
        return self.time_limit if self.time_limit is not None else self._move_limit

    def prepare(self, game: Game) -> None:
        """Load the game's solver (and the engine, where it may play) before any clock."""
        prepare_solver(game)
        if self.fallback != "none" and self._engine_may_play(game):
            self._fallback_engine().prepare(game)

    def reset(self) -> None:
        if self._engine is not None:
            self._engine.reset()

    def act(self, env: Any) -> int:
        """The best move by the exact solver in ``env``'s position, or the engine's where the
        solver cannot answer (``env`` is not changed); :attr:`last_search` says which."""
        state = board_state(env_state(env), "SolverAgent")
        legal_or_raise(state)
        self.last_search = None
        start = time.perf_counter()
        result: SolveResult | None = None
        reason: Literal["clock", "beyond"]
        if solvable(state, self.max_empties):
            result = solve(
                state,
                all_moves=self.ties == "random",
                max_empties=self.max_empties,
                time_limit=None if self._clock is None else self._clock * SOLVE_SHARE,
            )
            if result.complete:
                action = result.best_moves[0]
                if self.ties == "random" and len(result.best_moves) > 1:
                    action = int(self._rng.choice(result.best_moves))
                self.last_search = SolverInfo(
                    action, result.score, 0, result.nodes, time.perf_counter() - start,
                    True, "exact", "solver", None, result,
                )  # fmt: skip
                return action
            reason = "clock"  # only with a clock, which fallback=none never has
        elif self.fallback == "none":
            raise InvalidValueError(
                f"solver: this {state.game.label} position has {self._beyond(state)}"
            )
        else:
            reason = "beyond"
        engine = self._fallback_engine()
        engine.time_limit = self._engine_clock(reason)
        info = engine.search(state)
        self.last_search = SolverInfo(
            info.action, info.score, info.depth, info.nodes + (result.nodes if result else 0),
            time.perf_counter() - start, info.exact, None, "engine", reason, result, info,
        )  # fmt: skip
        return info.action

    def _engine_clock(self, reason: Literal["clock", "beyond"]) -> float:
        """The engine's seconds: what the cut solve left of the move's, all of them where no
        solve was tried, 1 s without a clock."""
        clock = self._clock
        if clock is None:
            return UNCLOCKED_ENGINE_SECONDS
        return clock * (1 - SOLVE_SHARE) if reason == "clock" else clock

    def _fallback_engine(self) -> EngineAgent:
        if self._engine is None:
            self._engine = EngineAgent(time_limit=UNCLOCKED_ENGINE_SECONDS, seed=self._rng)
        return self._engine

    def _engine_may_play(self, game: Game) -> bool:
        """Whether the engine may play a move of ``game``: with a clock, or where the game has
        positions beyond the solver."""
        return self._clock is not None or bool(self._beyond_game(game))

    def _limit(self, game: Game) -> int:
        return game_solver(game).max_empties if self.max_empties is None else self.max_empties

    def _beyond_game(self, game: Game) -> str:
        """Why some positions of ``game`` are beyond the solver (``""`` if none is): the start,
        or the first positions past the game's opening book, has more than ``max_empties``
        empty squares. No move empties a square, so these have the most empty squares of the
        positions the solver has to search: the book holds every position up to its depth, and
        one line of play through it (the first legal move each time) finds its edge."""
        state = game.initial_state()
        where = "its start"
        while not state.is_terminal() and solvable(state, max_empties=0):  # the book holds it
            state = state.apply(state.legal_actions()[0])
            where = "its positions past the opening book"
        if state.is_terminal() or empties_of(state) <= self._limit(game):
            return ""
        return f"{where} {'has' if where == 'its start' else 'have'} {self._beyond(state)}"

    def _beyond(self, state: BoardState) -> str:
        """Why ``state`` is beyond the solver, and what to do."""
        own = " (the solver's own, what it finishes in about a minute)"
        return (
            f"{empties_of(state)} empty squares, more than max_empties={self._limit(state.game)}"
            f"{own if self.max_empties is None else ''}: give fallback=auto to let the engine "
            "play until the solver can"
        )

    def __repr__(self) -> str:
        return (
            f"SolverAgent(time_limit={self.time_limit}, max_empties={self.max_empties}, "
            f"fallback={self.fallback!r}, ties={self.ties!r})"
        )
