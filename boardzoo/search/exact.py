"""The exact negamax of any catalog game: win, draw or loss with perfect play, compiled per game.

For games without an exact solver of their own (:attr:`~boardzoo.games.spec.GameSpec.solver`):
fail-soft alpha-beta over the contract's kernels (``placements``, ``place``, ``outcome``) to the
end of the game, no evaluation, no depth limit. Scores are ``1`` (the player to move wins),
``0`` (a draw) and ``-1``, so the window ``(-1, 1)`` is exact. It is what
:func:`boardzoo.search.solver.solve` uses for TicTacToe, Connect Four near its end and games
registered at run time.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.budget import ABORTED, BUDGET, DEADLINE, NODES, SHARED, count_node
from boardzoo.games.bits import U0, U1, lowest_bit_index
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise

__all__ = [
    "ABORTED",
    "BUDGET",
    "DEADLINE",
    "MAX_EMPTIES",
    "NODES",
    "NUM_COUNTERS",
    "SCORE_LIMIT",
    "compiled_exact",
]

SCORE_LIMIT = 1
# What a solve is allowed by default: no table and no ordering, so the tree grows as the
# branching factor to the power of the empties (TicTacToe's 9 take a tenth of a second).
MAX_EMPTIES = 14
# counters[...]: the budget's slots alone (boardzoo.budget); the clock is read every 1024 nodes.
NUM_COUNTERS = SHARED
CLOCK_MASK = 1023
NEGAMAX_SIGNATURE = "i8(u8, u8, i8, u8[::1], i8, i8, i8[::1])"
# Replaced by the game's kernel module in each compiled copy (see compiled_exact).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def exact_negamax(s0, s1, player, params, alpha, beta, counters):
    """The exact result for the player to move: 1 a win, 0 a draw, -1 a loss (fail-soft);
    meaningless once ``counters[ABORTED]`` is set (more nodes than ``counters[BUDGET]``, or
    past ``counters[DEADLINE]``)."""
    if count_node(counters, CLOCK_MASK):
        return np.int64(0)
    cells = kernels.placements(s0, s1, player, params)
    if cells == U0:
        over, code = kernels.outcome(s0, s1, player, params)
        if over:
            result = np.int64(code) - 1  # player 0's: 1 win, 0 draw, -1 loss
            return result if player == 0 else -result
        n0, n1 = kernels.place(s0, s1, player, np.int64(-1), params)
        return -exact_negamax(n0, n1, np.int64(1 - player), params, -beta, -alpha, counters)
    best = np.int64(-2)
    while cells:
        cell = lowest_bit_index(cells)
        cells &= cells - U1
        n0, n1 = kernels.place(s0, s1, player, cell, params)
        value = -exact_negamax(n0, n1, np.int64(1 - player), params, -beta, -alpha, counters)
        if counters[ABORTED]:
            return np.int64(0)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def exact_root(s0, s1, player, params, alpha, beta, table_keys, table_data, counters):
    """The solver's contract (:attr:`~boardzoo.games.spec.GameSpec.solver`): the score within
    ``(alpha, beta)`` and a best cell (``-1``: none to fill). The table is not used."""
    cells = kernels.placements(s0, s1, player, params)
    if cells == U0:
        return exact_negamax(s0, s1, player, params, alpha, beta, counters), np.int64(-1)
    best, best_cell = np.int64(-2), np.int64(-1)
    while cells:
        cell = lowest_bit_index(cells)
        cells &= cells - U1
        n0, n1 = kernels.place(s0, s1, player, cell, params)
        value = -exact_negamax(n0, n1, np.int64(1 - player), params, -beta, -alpha, counters)
        if counters[ABORTED]:
            break
        if value > best:
            best, best_cell = value, cell
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best, best_cell


def new_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """No table (the contract's placeholder arrays)."""
    return np.zeros((1, 2), dtype=np.uint64), np.zeros((1, 4), dtype=np.int8)


def compiled_exact(game: Game) -> dict[str, Any]:
    """``exact_negamax`` and ``exact_root`` compiled for ``game``'s kernels."""
    copies = specialise((exact_negamax, exact_root), game.kernels)
    recursive = copies["exact_negamax"]
    if not recursive.signatures:
        recursive.compile(NEGAMAX_SIGNATURE)
        recursive.disable_compile()  # calls of other types convert, never compile lazily
    return copies
