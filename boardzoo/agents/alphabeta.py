"""Negamax alpha-beta player for every catalog game, compiled with numba.

The depth-first search of :mod:`boardzoo.gametree` with every idea off
(:data:`boardzoo.gametree.settings.PLAIN`), compiled per game: a fixed-depth negamax (a pass is a
ply) with the game's move ordering and evaluation (Reversi: corners first, X-squares last and, with
3 or more plies left, fewest replies for the opponent first, the "fastest-first" rule of endgame
solvers; an evaluation of mobility, corners, X-squares next to an empty corner and discs. Connect
Four: centre columns first; threats and centre control), or, with ``eval="learned"``, the game's
learned n-tuple evaluation (:mod:`boardzoo.learned`) at the horizon. Positions with few empty
squares are solved exactly to the end of the game, so TicTacToe is always played perfectly. With a
time limit, iterative deepening runs until the compiled search, which reads the clock itself,
reaches the deadline. Equally good root moves are told apart by a seeded shuffle of the root moves.

References: Knuth & Moore, "An analysis of alpha-beta pruning" (1975); Slate & Atkin, "CHESS 4.5:
the Northwestern University chess program" (1977) for iterative deepening; Rosenbloom, "A
world-championship-level Othello program" (1982) for mobility and corners in the evaluation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.agents.compiling import compile_notice
from boardzoo.checks import check_int, check_optional_int, check_optional_number
from boardzoo.clock import monotonic_ns
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState, GameState
from boardzoo.gametree.deepening import Deepening, IterativeDeepening
from boardzoo.gametree.settings import PLAIN
from boardzoo.gametree.template import WIN as _WIN
from boardzoo.learned.ntuple import load_net

__all__ = ["WIN", "AlphaBetaAgent", "AlphaBetaInfo"]

WIN = _WIN  # a finished Reversi game scores WIN + disc difference for the winner
UNBOUNDED_DEPTH = 1_000  # deeper than any game: the search only stops at the end of the game

# Static move-ordering key of each kind of square: lowest is searched first.
_ORDER_KEYS = {"corner": -40, "edge": 0, "inner": 4, "c": 12, "x": 40}


@dataclass(frozen=True)
class AlphaBetaInfo:
    """What the last search did (``AlphaBetaAgent.last_search``).

    ``score`` is from the point of view of the player to move: the game's ``final_score`` for a
    finished game (:data:`WIN` plus a margin for a win: Reversi's disc difference, TicTacToe's and
    Connect Four's empty squares; 0 for a draw; negative for a loss), otherwise the game's
    heuristic evaluation (with ``eval="learned"``: 10000 times the learned value, in (-10000,
    10000)), far below :data:`WIN`.
    """

    action: int
    score: int
    depth: int  # plies of the last completed iteration (exact searches: of their longest line)
    nodes: int  # all iterations, an aborted one included
    seconds: float
    exact: bool  # the score is the game-theoretic value: the search saw the end of every line

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("inf")

    @property
    def outcome(self) -> str | None:
        """``"win"``, ``"draw"`` or ``"loss"`` for the player to move once proven, else ``None``."""
        if not self.exact:
            return None
        return "win" if self.score > 0 else "loss" if self.score < 0 else "draw"


def _cells(bits: int) -> list[int]:
    """The set bits of ``bits``, lowest first."""
    return [i for i in range(bits.bit_length()) if bits >> i & 1]


EVALS = ("hand", "learned")


def _net_arrays(game: Game, evaluation: str) -> tuple[np.ndarray, ...] | None:
    """What the compiled search gets for ``evaluation``: the arrays of the game's learned net,
    or ``None`` for the game's own evaluation."""
    return tuple(load_net(game)) if evaluation == "learned" else None


# (Kernel module, evaluation) of the searches this process has loaded or compiled and run once.
_PREPARED: set[tuple[str, str]] = set()


def _driver(game: Game) -> IterativeDeepening:
    """The game's plain search (compiled, or loaded from numba's cache, the first time)."""
    if game not in _DRIVERS:
        _DRIVERS[game] = IterativeDeepening(game, PLAIN, Deepening())
    return _DRIVERS[game]


_DRIVERS: dict[Game, IterativeDeepening] = {}


def _exercise_search(game: Game, evaluation: str) -> None:
    """Load or compile ``game``'s search with ``evaluation`` and run every compiled piece it uses
    once, with the argument types of a real search (so nothing is compiled later)."""
    kernels, params = game.kernels, game.params
    state = game.initial_state()
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = state.current_player
    cells = _cells(int(kernels.placements(s0, s1, player, params))) or [-1]
    keys = [kernels.order_key(s0, s1, player, c, 0, params) if c >= 0 else 0 for c in cells]
    root = np.array([c for _, c in sorted(zip(keys, cells, strict=True))], dtype=np.int64)
    result = _driver(game).search(s0, s1, player, root, [2], net=_net_arrays(game, evaluation))
    kernels.cell_action(result.cell, params)


class AlphaBetaAgent(Agent):
    """Negamax alpha-beta search to a fixed depth or within a time limit; solves endgames.

    Args:
        depth: plies searched (a pass is a ply; 1 to 999), or ``None`` for no limit but the
            time.
        time_limit: seconds per move (a number > 0), or ``None``. Searches then deepen one ply
            at a time and keep the move of the last completed depth; with ``depth`` too,
            whichever comes first.
        exact_empties: positions with at most this many empty squares (0 to 64) are solved to
            the end of the game (so TicTacToe, with 9 squares, is always solved by default).
        eval: the evaluation at the horizon: ``hand``, the game's hand-made one, or
            ``learned``, its n-tuple network trained by self-play (Reversi and Connect Four),
            scaled to ``10000 * value``.
        seed: seed of the tie-breaking between equally good moves (an int, a NumPy
            ``Generator`` or ``None``).
    """

    name = "alphabeta"

    def __init__(
        self,
        depth: int | None = 4,
        time_limit: float | None = None,
        exact_empties: int = 10,
        eval: Literal["hand", "learned"] = "hand",
        seed: Seed = None,
    ) -> None:
        depth = check_optional_int("depth", depth, 1, UNBOUNDED_DEPTH - 1)
        time_limit = check_optional_number("time_limit", time_limit)
        if depth is None and time_limit is None:
            raise InvalidValueError(
                "depth=none is not allowed without a time_limit: give a depth, a time limit or both"
            )
        exact_empties = check_int("exact_empties", exact_empties, 0, 64)
        if eval not in EVALS:
            raise InvalidValueError(f"eval must be one of {', '.join(EVALS)}, got {eval!r}")
        self.eval = eval
        self.depth = int(depth) if depth is not None else None
        self.time_limit = float(time_limit) if time_limit is not None else None
        self.exact_empties = int(exact_empties)
        self.seed = seed
        self._rng = make_rng(seed)
        self.last_search: AlphaBetaInfo | None = None

    # --- the Agent interface -------------------------------------------------------------------

    def prepare(self, game: Game) -> None:
        """Get ready to search ``game`` before any clock runs.

        Loads the game's compiled search from numba's cache, or compiles it (the first run only,
        with a notice on stderr), and runs it once. Draws nothing from the agent's random
        stream, so a prepared agent plays the same moves as an unprepared one. A search of a
        game not prepared yet prepares it first, before its own clock starts.

        Args:
            game: the catalog game (with its options) that will be searched.

        Raises:
            ValueError: ``eval="learned"`` and ``game`` has no learned evaluation.
        """
        if self.eval == "learned":
            load_net(game)  # a clear error for a game without a net, before any notice
        key = (game.spec.kernels, self.eval)
        if key not in _PREPARED:
            with compile_notice(f"the alpha-beta search for {game.name}", 5):
                _exercise_search(game, self.eval)
            _PREPARED.add(key)

    def act(self, env: Any) -> int:
        """Search from ``env``'s position (never changed) and return the chosen action."""
        return self.search(env_state(env)).action

    def search(self, state: GameState) -> AlphaBetaInfo:
        """Search a game state directly; returns (and stores) :attr:`last_search`."""
        info = self._search(board_state(state, "AlphaBetaAgent"))
        self.last_search = info
        return info

    def _search(self, state: BoardState) -> AlphaBetaInfo:
        legal_or_raise(state)
        game = state.game
        if (game.spec.kernels, self.eval) not in _PREPARED:
            self.prepare(game)
        net = _net_arrays(game, self.eval)
        start = time.perf_counter()
        params, player = game.params, state.current_player
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        cells = _cells(int(game.kernels.placements(s0, s1, player, params))) or [-1]
        shuffled = [cells[i] for i in self._rng.permutation(len(cells))]
        order_key = game.kernels.order_key
        keys = {c: order_key(s0, s1, player, c, 0, params) if c >= 0 else 0 for c in cells}
        root = np.array(sorted(shuffled, key=keys.__getitem__), dtype=np.int64)
        empties = (int(params[0]) & ~(int(s0) | int(s1))).bit_count()
        solve = empties <= self.exact_empties

        if self.time_limit is None:
            assert self.depth is not None  # the constructor allows no depth only with a time
            plan = [UNBOUNDED_DEPTH if solve else self.depth]
        elif solve:
            # Cheap shallow iterations first, as a fallback should the exact solve run out of time.
            shallow = min(self.depth or 4, max(1, empties - 2))
            plan = [*range(1, shallow + 1), UNBOUNDED_DEPTH]
        else:
            plan = list(range(1, (self.depth or UNBOUNDED_DEPTH - 1) + 1))
        # The deadline on the monotonic clock that the compiled search reads (0: none).
        deadline = 0 if self.time_limit is None else monotonic_ns() + int(self.time_limit * 1e9)
        found = _driver(game).search(s0, s1, player, root, plan, deadline, net=net)
        return AlphaBetaInfo(
            action=int(game.kernels.cell_action(found.cell, params)),
            score=found.score,
            depth=found.seldepth if found.exact else found.depth,
            nodes=found.nodes,
            seconds=time.perf_counter() - start,
            exact=found.exact,
        )

    def __repr__(self) -> str:
        return (
            f"AlphaBetaAgent(depth={self.depth}, time_limit={self.time_limit}, "
            f"exact_empties={self.exact_empties}, eval={self.eval!r})"
        )
