"""Solve a position: its exact score with perfect play, a best move, and how long it took.

    from boardzoo.gametree import solve
    result = solve(state)            # SolveResult(score=38, best_moves=(8,), nodes=..., ...)
    solve(state, exact=False)        # win, draw or loss only: a fraction of the time
    solve(state, all_moves=True)     # the exact score of every legal move

The depth-first search in its exact mode (:mod:`boardzoo.gametree.exact_mode`) solves every
game, with the knowledge of the game's plug-in (:attr:`~boardzoo.games.spec.GameSpec.
tree_plugin`) where it has one: Reversi's (:mod:`boardzoo.gametree.reversi`) scores the final
disc difference, the empty squares going to the winner, as FFO and Edax count it; Connect
Four's (:mod:`boardzoo.gametree.connect_four`) scores how soon the game is won, as the Connect 4
Game Solver does (``22 - s`` for a win with the mover's ``s``-th disc, 0 a draw, ``s - 22`` a
loss to the opponent's ``s``-th disc), its first moves answered by its opening book. Any other
game scores 1 (the player to move wins), 0 or -1. It runs compiled, to the end of the game;
``time_limit`` (or ``max_nodes``) makes it give up instead (``complete`` false): the solve reads
the clock every few thousand positions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, cast

import numpy as np

from boardzoo.budget import ABORTED, NODES, new_counters
from boardzoo.checks import check_int, check_number
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.compile import compiled_solver, tree_plugin
from boardzoo.gametree.table import new_table
from boardzoo.gametree.template import NUM_COUNTERS
from boardzoo.interop import catalog_position, known_elsewhere
from boardzoo.learned.ntuple import has_net, load_net

__all__ = [
    "GameSolver",
    "SolveResult",
    "book_answer",
    "empties_of",
    "forget_tables",
    "game_solver",
    "move_reaching",
    "solvable",
    "solve",
]

# What an exact solve is allowed by default without a plug-in's own limit: no game knowledge,
# so the tree grows about as the branching factor to the power of the empties (TicTacToe's 9
# take a few milliseconds).
DEFAULT_MAX_EMPTIES = 14


@dataclass(frozen=True)
class GameSolver:
    """A game's compiled exact solve and what its plug-in says of it.

    Attributes:
        game: the game.
        score_limit: no score is beyond it: the window ``(-score_limit, score_limit)`` is exact.
        max_empties: what a solve is allowed by default (about what it finishes in minutes).
        takeover_empties: where a search hands the root to the solve (0: never, by default).
        tree_empties: where a search solves positions inside its tree (0: never, by default).
        book_scores: the opening book's exact score of a position and of its moves, or ``None``.
        book_move: the book's stored best move of a position, or ``None``.
    """

    game: Game
    score_limit: int
    max_empties: int
    takeover_empties: int = 0
    tree_empties: int = 0
    book_scores: Callable[[BoardState], tuple[int, dict[int, int]] | None] | None = None
    book_move: Callable[[BoardState], int | None] | None = None

    num_counters = NUM_COUNTERS

    @cached_property
    def solve(self) -> Any:
        """``solve(s0, s1, player, params, alpha, beta, table_keys, table_data, counters) ->
        (score, cell)`` (:func:`boardzoo.gametree.exact_mode.solve`), compiled (or loaded from
        numba's cache) on first use."""
        return compiled_solver(self.game)["solve"]

    @cached_property
    def ordering_net(self) -> tuple[np.ndarray, ...] | None:
        """The arrays of the learned evaluation that the plug-in orders moves with, where it
        asks for one (``ORDER_NETS``) and the game ships one; else ``None``."""
        if "learned" not in getattr(tree_plugin(self.game), "ORDER_NETS", ()):
            return None
        return tuple(load_net(self.game)) if has_net(self.game) else None

    def runner(self) -> Callable[..., tuple[int, int]]:
        """:attr:`solve`, with the ordering net where there is one
        (:func:`boardzoo.gametree.exact_mode.solve_net`)."""
        net = self.ordering_net
        if net is None:
            return cast("Callable[..., tuple[int, int]]", self.solve)
        solve_net = compiled_solver(self.game)["solve_net"]
        return lambda *args: cast("tuple[int, int]", solve_net(*args, net))

    @staticmethod
    def new_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
        """An empty table for the solve (:func:`boardzoo.gametree.table.new_table`)."""
        return new_table(bits)


@cache
def game_solver(game: Game) -> GameSolver:
    """The game's exact solve and its plug-in's limits and book."""
    plugin = tree_plugin(game)
    return GameSolver(
        game=game,
        score_limit=int(getattr(plugin, "SCORE_LIMIT", 1)),
        max_empties=int(getattr(plugin, "MAX_EMPTIES", DEFAULT_MAX_EMPTIES)),
        takeover_empties=int(getattr(plugin, "TAKEOVER_EMPTIES", 0)),
        tree_empties=int(getattr(plugin, "TREE_EMPTIES", 0)),
        book_scores=getattr(plugin, "book_scores", None),
        book_move=getattr(plugin, "book_move", None),
    )


_TABLES: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}


@dataclass(frozen=True)
class SolveResult:
    """What :func:`solve` found.

    Attributes:
        score: the exact score for the player to move (a lower or upper bound when ``exact`` is
            false: only its sign is sure): Reversi's final disc difference, else 1, 0 or -1.
        best_moves: the actions that keep ``score`` (every one of them with ``all_moves``, else
            the first found); empty when the game is over, ``(pass,)`` when the player must pass.
        move_scores: with ``all_moves``, the exact score of each legal action; else empty.
        nodes: positions searched.
        seconds: wall time of the search.
        exact: whether ``score`` is exact (``False``: a win/draw/loss solve).
        complete: whether the solve finished; ``False``: it gave up at ``max_nodes`` or
            ``time_limit``, and ``score``, ``best_moves`` and ``move_scores`` say nothing.
    """

    score: int
    best_moves: tuple[int, ...]
    nodes: int
    seconds: float
    exact: bool = True
    move_scores: dict[int, int] = field(default_factory=dict)
    complete: bool = True

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def _table(game: Game, solver: GameSolver, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The solver's table for ``game``, kept between calls: what it holds are facts about
    positions (bounds of their scores), true in any later solve of the same game."""
    key = (game.file_stem, bits)
    if key not in _TABLES:
        _TABLES.clear()  # one table at a time: they are large
        _TABLES[key] = solver.new_table(bits)
    return _TABLES[key]


def forget_tables() -> None:
    """Drop the transposition tables that :func:`solve` keeps between calls (their memory, and
    what they know: the next solve starts from nothing, as a benchmark's should)."""
    _TABLES.clear()


def solve(
    state: BoardState | Any,
    *,
    exact: bool = True,
    all_moves: bool = False,
    table_bits: int = 22,
    max_empties: int | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
) -> SolveResult:
    """The score of ``state`` with perfect play by both sides, and its best moves.

    Args:
        state: a position of a catalog game, PettingZoo's own ``connect_four_v3`` or
            ``tictactoe_v3`` env, or an OpenSpiel ``tic_tac_toe``, ``connect_four`` or
            ``othello`` state (read by :mod:`boardzoo.interop`; the best moves are their
            actions).
        exact: the exact score; ``False``: only win, draw or loss (a null-window solve around
            0), much faster.
        all_moves: also score every legal move exactly (every best move is then listed).
        table_bits: the solver's transposition table holds ``2**table_bits`` entries.
        max_empties: refuse positions with more empty squares than this; ``None``: the
            plug-in's ``MAX_EMPTIES``, about what it finishes in minutes (Reversi's: 30;
            without a plug-in: 14): a position far beyond that would run for days.
        max_nodes: give up after about this many positions (a result with ``complete``
            false); ``None``: no limit.
        time_limit: give up after this many seconds (within a millisecond or so; a result with
            ``complete`` false); ``None``: no clock.

    Raises:
        ValueError: ``state`` is not a position of a catalog game, ``table_bits`` is outside
            10..26, ``max_nodes`` is below 1, or the position has more than ``max_empties``
            empty squares; before any search.
    """
    state = catalog_position(state) or state
    game = getattr(state, "game", None)
    if not isinstance(game, Game):
        raise InvalidValueError(
            f"solve needs a position of a catalog game or one of {known_elsewhere()}, got {state!r}"
        )
    check_int("table_bits", table_bits, 10, 26)
    if max_nodes is not None:
        check_int("max_nodes", max_nodes, 1)
    if time_limit is not None:
        check_number("time_limit", time_limit)
    solver = game_solver(game)
    run = solver.runner()
    limit_empties = solver.max_empties if max_empties is None else max_empties
    check_int("max_empties", limit_empties, 0)
    answer = _book_answer(solver, state)
    if answer is not None and (answer[1] or not all_moves):
        return _from_book(state, solver, answer, all_moves, table_bits, max_nodes, time_limit)
    empties = empties_of(state)
    if empties > limit_empties:
        raise InvalidValueError(
            f"this {game.label} position has {empties} empty squares, more than max_empties="
            f"{limit_empties}, which the solver finishes in minutes: a solve has no clock and "
            "could run for days; raise max_empties to try anyway"
        )
    limit = solver.score_limit
    keys, data = _table(game, solver, table_bits)
    counters = new_counters(solver.num_counters, max_nodes, time_limit)
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = np.int64(state.current_player)
    window = (-limit, limit) if exact else (-1, 1)
    start = time.perf_counter()
    if state.is_terminal():
        score, _ = run(s0, s1, player, game.params, -limit, limit, keys, data, counters)
        return SolveResult(int(score), (), int(counters[NODES]), time.perf_counter() - start, True)
    if not all_moves:
        score, cell = run(s0, s1, player, game.params, *window, keys, data, counters)
        seconds = time.perf_counter() - start
        if counters[ABORTED]:
            return SolveResult(0, (), int(counters[NODES]), seconds, exact, complete=False)
        action = _action(game, state, int(cell))
        return SolveResult(int(score), (action,), int(counters[NODES]), seconds, exact)
    scores: dict[int, int] = {}
    for action in state.legal_actions():
        child = state.apply(action)
        c0, c1 = (np.uint64(b) for b in child.bitboards())
        value, _ = run(c0, c1, np.int64(child.current_player), game.params, -limit, limit,
                       keys, data, counters)  # fmt: skip
        if counters[ABORTED]:
            seconds = time.perf_counter() - start
            return SolveResult(0, (), int(counters[NODES]), seconds, True, complete=False)
        scores[action] = int(value) if child.current_player == state.current_player else -int(value)
    best = max(scores.values())
    moves = tuple(a for a, v in scores.items() if v == best)
    return SolveResult(best, moves, int(counters[NODES]), time.perf_counter() - start, True, scores)


def solvable(state: BoardState, max_empties: int | None = None) -> bool:
    """Whether :func:`solve` takes ``state`` (its game's opening book has it, or it has at most
    ``max_empties`` empty squares; ``None``: the solver's own ``MAX_EMPTIES``)."""
    solver = game_solver(state.game)
    limit = solver.max_empties if max_empties is None else max_empties
    return empties_of(state) <= limit or _book_answer(solver, state) is not None


def empties_of(state: BoardState) -> int:
    """The empty squares of a position."""
    s0, s1 = state.bitboards()
    return (int(state.game.params[0]) & ~(s0 | s1)).bit_count()


def book_answer(state: BoardState) -> SolveResult | None:
    """The game's opening book's answer, at once: the exact score of ``state`` and of every
    legal move (all best moves listed), where the book holds the position and all its children;
    the score and the one best move it stores, for a position whose children are beyond it;
    ``None`` otherwise (a game without a book, a position beyond it, or one with no move
    stored: :func:`solve` then has to search)."""
    solver = game_solver(state.game)
    answer = _book_answer(solver, state)
    if answer is None:
        return None
    score, moves = answer
    if moves:
        return SolveResult(score, _best_of(score, moves), 0, 0.0, True, dict(moves))
    stored = _book_move(solver, state)
    return None if stored is None else SolveResult(score, (stored,), 0, 0.0, True)


def _best_of(score: int, moves: dict[int, int]) -> tuple[int, ...]:
    """The moves whose book score is the position's ``score``, in the book's order."""
    return tuple(action for action, value in moves.items() if value == score)


def _book_answer(solver: GameSolver, state: BoardState) -> tuple[int, dict[int, int]] | None:
    """The game's opening book's score of ``state`` and its moves' (``{}``: beyond the book),
    ``None`` if the game has no book or the book not the position."""
    if solver.book_scores is None or state.is_terminal():
        return None
    return solver.book_scores(state)


def _book_move(solver: GameSolver, state: BoardState) -> int | None:
    """A best move the game's opening book stores for ``state`` (where it has no move's
    score), ``None`` if it has none or the game no book."""
    return None if solver.book_move is None else solver.book_move(state)


def _from_book(
    state: BoardState,
    solver: GameSolver,
    answer: tuple[int, dict[int, int]],
    all_moves: bool,
    table_bits: int,
    max_nodes: int | None,
    time_limit: float | None,
) -> SolveResult:
    """A solve answered by the game's opening book: the score, and the moves' scores where the
    book has the children too; else the best move the book stores; else a move that the solver
    proves to reach the score (:func:`move_reaching`).

    Raises:
        RuntimeError: no move reaches the book's score (the book is wrong).
    """
    start = time.perf_counter()
    score, moves = answer
    if moves:
        best = _best_of(score, moves)
        if all_moves:
            return SolveResult(score, best, 0, time.perf_counter() - start, True, dict(moves))
        return SolveResult(score, best[:1], 0, time.perf_counter() - start, True)
    stored = _book_move(solver, state)
    if stored is not None:
        return SolveResult(score, (stored,), 0, time.perf_counter() - start, True)
    return move_reaching(state, score, table_bits=table_bits, max_nodes=max_nodes,
                         time_limit=time_limit)  # fmt: skip


def move_reaching(
    state: BoardState,
    score: int,
    *,
    table_bits: int = 22,
    max_nodes: int | None = None,
    time_limit: float | None = None,
) -> SolveResult:
    """A move of ``state``, whose exact score is known to be ``score``, that keeps it: one
    null-window search at the root (is the score at least ``score``?), which tries the moves in
    the solver's own order and stops at the first that reaches it. How an opening book's
    deepest positions get their move.

    Raises:
        RuntimeError: no move reaches ``score`` (it is not the position's score).
    """
    game = state.game
    solver = game_solver(game)
    run = solver.runner()
    keys, data = _table(game, solver, table_bits)
    counters = new_counters(solver.num_counters, max_nodes, time_limit)
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = np.int64(state.current_player)
    start = time.perf_counter()
    value, cell = run(s0, s1, player, game.params, score - 1, score, keys, data, counters)
    seconds = time.perf_counter() - start
    if counters[ABORTED]:
        return SolveResult(0, (), int(counters[NODES]), seconds, True, complete=False)
    if value < score:
        raise RuntimeError(f"no move reaches the score {score} of {state!r}")
    action = _action(game, state, int(cell))
    return SolveResult(score, (action,), int(counters[NODES]), seconds, True)


def _action(game: Game, state: BoardState, cell: int) -> int:
    """The action that fills ``cell`` (``-1``: the pass, or the first legal action)."""
    if cell < 0:
        return state.legal_actions()[0]
    return int(game.kernels.cell_action(np.int64(cell), game.params))
