"""The perfect player: every move from the game's exact solver.

``solver`` plays a move with the best exact score (:func:`boardzoo.search.solver.solve`): it never
loses a position that can be held and wins every position that can be won, as fast as it can
(and loses as late as it can). Where the solver reaches every position of the game it is perfect
from the first move: TicTacToe, Connect Four (its opening book answers the first moves, the search
the rest) and Reversi 4x4. Reversi 6x6 and 8x8 start far beyond an exact solve (32 and 60 empty
squares): there ``solver`` is the endgame solver, and a position with more empty squares than
``max_empties`` is refused with an error naming it, or, with ``fallback=engine``, played by the
alpha-beta engine (:class:`~boardzoo.agents.engine.EngineAgent`) until the solver takes over.
"""

from __future__ import annotations

from typing import Any, Literal

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.agents.engine import EngineAgent
from boardzoo.checks import check_optional_int, check_optional_number
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.handover import prepare_solver
from boardzoo.search.solver import SolveResult, empties_of, game_solver, solvable, solve

__all__ = ["SolverAgent"]

FALLBACKS = ("none", "engine")
TIES = ("first", "random")


class SolverAgent(Agent):
    """Plays perfectly: a move with the best exact score, from the game's exact solver (with a
    fallback to the engine where a position is beyond it).

    Args:
        time_limit: seconds a move may take; a solve that does not finish in time falls back (or
            raises with ``fallback=none``). ``None``: no clock, every solve runs to its end.
        max_empties: positions with more empty squares are beyond the solver (its opening book
            aside); ``None``: the solver's own limit, what it finishes in about a minute
            (Reversi 30, Connect Four 38 beyond its book, other games 14).
        fallback: ``none``, a position beyond the solver (or a solve past the clock) is an
            error; ``engine``, the alpha-beta engine plays it (with a ``time_limit``, the solve
            has half of it and the engine the other half; without, the engine has 1 s).
        ties: ``first``, the solver's first best move (one solve, fastest); ``random``, any
            best move at random (every move solved; seeded).
        seed: seed of the ties and of the engine: an int, a NumPy ``Generator`` or ``None``.
    """

    name = "solver"

    def __init__(
        self,
        time_limit: float | None = None,
        max_empties: int | None = None,
        fallback: Literal["none", "engine"] = "none",
        ties: Literal["first", "random"] = "first",
        seed: Seed = None,
    ) -> None:
        self.time_limit = check_optional_number("time_limit", time_limit)
        self.max_empties = check_optional_int("max_empties", max_empties, 0, 64)
        if fallback not in FALLBACKS:
            raise InvalidValueError(
                f"fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}"
            )
        if ties not in TIES:
            raise InvalidValueError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
        self.fallback = fallback
        self.ties = ties
        self.seed = seed
        self._rng = make_rng(seed)
        self._engine: EngineAgent | None = None
        self.last_result: SolveResult | None = None

    def check_game(self, game: Game) -> None:
        """Without a fallback, the game's start must be within the solver's reach."""
        start = game.initial_state()
        if self.fallback == "none" and not solvable(start, self.max_empties):
            raise InvalidValueError(f"its start has {self._beyond(start)}")

    def prepare(self, game: Game) -> None:
        """Load the game's solver (and the engine, with ``fallback=engine``) before any clock."""
        prepare_solver(game)
        if self.fallback == "engine":
            self._fallback_engine().prepare(game)

    def reset(self) -> None:
        if self._engine is not None:
            self._engine.reset()

    def act(self, env: Any) -> int:
        """The best move by the exact solver in ``env``'s position (``env`` is not changed)."""
        state = board_state(env_state(env), "SolverAgent")
        legal_or_raise(state)
        self.last_result = None
        if solvable(state, self.max_empties):
            result = solve(
                state,
                all_moves=self.ties == "random",
                max_empties=self.max_empties,
                time_limit=self._solve_clock(),
            )
            if result.complete:
                self.last_result = result
                if self.ties == "random" and len(result.best_moves) > 1:
                    return int(self._rng.choice(result.best_moves))
                return result.best_moves[0]
            if self.fallback == "none":
                raise InvalidValueError(
                    f"solver: the solve of this {state.game.label} position did not finish "
                    f"within time_limit={self.time_limit} s; give more time or fallback=engine"
                )
        elif self.fallback == "none":
            raise InvalidValueError(
                f"solver: this {state.game.label} position has {self._beyond(state)}"
            )
        return self._fallback_engine().act(env)

    def _solve_clock(self) -> float | None:
        """The solve's time: all of the move's, or half with a fallback (the engine's half)."""
        if self.time_limit is None or self.fallback == "none":
            return self.time_limit
        return self.time_limit / 2

    def _fallback_engine(self) -> EngineAgent:
        if self._engine is None:
            clock = 1.0 if self.time_limit is None else self.time_limit / 2
            self._engine = EngineAgent(time_limit=clock, seed=self._rng)
        return self._engine

    def _beyond(self, state: BoardState) -> str:
        """Why ``state`` is beyond the solver, and what to do."""
        module, _ = game_solver(state.game)
        limit = module.MAX_EMPTIES if self.max_empties is None else self.max_empties
        return (
            f"{empties_of(state)} empty squares, more than max_empties={limit} (what the exact "
            "solver finishes in about a minute): give fallback=engine to let the engine play "
            "until the solver can"
        )

    def __repr__(self) -> str:
        return (
            f"SolverAgent(time_limit={self.time_limit}, max_empties={self.max_empties}, "
            f"fallback={self.fallback!r}, ties={self.ties!r})"
        )
