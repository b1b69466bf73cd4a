"""The handover from search to the game's exact solver, written once for every searcher.

Two places hand a position to the solver (:mod:`boardzoo.gametree.solve`):

- the root: a position with at most ``exact_empties`` empty squares is solved before any search,
  within the move's clock (:func:`solve_root`): win/draw/loss first, then the exact score with
  what time is left. A solve that cannot finish in time gives the move back to the search. The
  MCTS agents, AlphaZero and the engine all call it.
- inside the tree: the one loop (:mod:`boardzoo.search.loop`) solves a node with at most
  ``solve_empties`` empty squares when a simulation first reaches it, and backs its result up as
  proven (MCTS-Solver's bounds: win, draw or loss) instead of a playout's or a network's guess.
  Each thread solves with a table of its own (:func:`solver_tables`).

The defaults come from the game's depth-first plug-in (``TAKEOVER_EMPTIES``: what its exact
solve finishes in about a second; ``TREE_EMPTIES``: what it finishes in well under a millisecond,
about a simulation's cost): :func:`default_empties`. A game without a plug-in is solved with the
hooks' defaults, which these defaults leave off.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from boardzoo.budget import SHARED, new_counters
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import SolveResult, book_answer, empties_of, game_solver, solve

__all__ = [
    "SolverTables",
    "default_empties",
    "empties_of",
    "no_solver_tables",
    "prepare_solver",
    "solve_root",
    "solver_tables",
]

TREE_TABLE_BITS = 16  # each thread's table for the solves inside the tree (1 MiB)
WLD_SHARE = 0.6  # of the time left: the win/draw/loss solve's; the rest is the search's if it fails


class SolverTables(NamedTuple):
    """The solver's tables of a search's threads (the compiled loop reads them).

    Attributes:
        keys: uint64 ``[threads, entries, k]``: each thread's table (its solver's layout).
        data: int8 ``[threads, n, 4]``: each thread's table data (where its solver has any).
        counters: int64 ``[threads, counters]``: each thread's solver counters (nodes, budget,
            aborted).
    """

    keys: np.ndarray
    data: np.ndarray
    counters: np.ndarray


def solver_tables(game: Game, threads: int, bits: int = TREE_TABLE_BITS) -> SolverTables:
    """Empty solver tables of ``game``'s solver for ``threads`` threads."""
    solver = game_solver(game)
    tables = [solver.new_table(bits) for _ in range(threads)]
    # no budget and no deadline: these solves are small
    counters = np.stack([new_counters(solver.num_counters) for _ in range(threads)])
    return SolverTables(
        np.stack([keys for keys, _ in tables]), np.stack([data for _, data in tables]), counters
    )


def no_solver_tables(threads: int = 1) -> SolverTables:
    """Placeholder tables for a search that solves nothing inside its tree."""
    return SolverTables(
        np.zeros((threads, 1, 2), dtype=np.uint64),
        np.zeros((threads, 1, 4), dtype=np.int8),
        np.stack([new_counters(SHARED) for _ in range(threads)]),
    )


def default_empties(game: Game) -> tuple[int, int]:
    """``(exact_empties, solve_empties)`` by default for ``game``: its plug-in's
    ``TAKEOVER_EMPTIES`` and ``TREE_EMPTIES``; ``(0, 0)`` for a game without one."""
    solver = game_solver(game)
    return solver.takeover_empties, solver.tree_empties


def solve_root(state: BoardState, exact_empties: int, deadline: float | None) -> SolveResult | None:
    """The solver's answer for the root, if it has at most ``exact_empties`` empty squares and
    the solver finishes before ``deadline`` (``time.perf_counter``; ``None``: no clock), or if
    the game's opening book answers it and all its moves (at once, however many empty squares:
    Connect Four's first moves).

    Win/draw/loss is solved first, in at most :data:`WLD_SHARE` of the time left (so a solve
    that fails leaves the search time to play); then the exact score with the time left.
    Returns the exact solve when it finished, else the win/draw/loss one when it proved a win
    or a draw (its move keeps it), else ``None``: the search plays (a proven loss is best
    fought by the search's move, which counts on the opponent's mistakes, when no exact score
    is known).
    """
    if exact_empties <= 0 or state.is_terminal():
        return None
    if empties_of(state) > exact_empties:
        return book_answer(state)
    wld = solve(state, exact=False, time_limit=_time_left(deadline, WLD_SHARE), max_empties=64)
    if not wld.complete:
        return None
    full = solve(state, exact=True, time_limit=_time_left(deadline, 1.0), max_empties=64)
    total = wld.nodes + full.nodes
    seconds = wld.seconds + full.seconds
    if full.complete:
        return replace(full, nodes=total, seconds=seconds)
    if wld.score < 0:
        return None
    return replace(wld, nodes=total, seconds=seconds)


def _time_left(deadline: float | None, share: float) -> float | None:
    """``share`` of the seconds left before ``deadline`` (``None``: no clock)."""
    if deadline is None:
        return None
    return max(1e-6, share * (deadline - time.perf_counter()))


def prepare_solver(game: Game) -> None:
    """Load ``game``'s solver (compiled as it loads) and make its table, before any clock."""
    solve(game.initial_state(), max_nodes=1, max_empties=64)
