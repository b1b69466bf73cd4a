"""Compiled negamax alpha-beta, written once for every game and compiled per game.

:func:`negamax` and :func:`search_root` are templates that reach the game through the contract's
kernels (``kernels.placements``, ``place``, ``outcome``, ``evaluate``, ``final_score`` and
``order_key``; see :mod:`boardzoo.games.spec`); :func:`compiled_alphabeta` compiles a copy per
game. Every search counts its nodes in ``counters`` and gives up once they pass
``counters[BUDGET]`` (numba cannot read the clock, so the caller turns its time limit into a node
budget): it then sets ``counters[ABORTED]``, and only the root moves it finished count. Scores are
``int64`` from the point of view of the player to move.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.games._bits import U1, lowest_bit_index
from boardzoo.games.spec import WIN_SCORE, Game
from boardzoo.games.specialise import specialise

# counters[...] slots
NODES, BUDGET, ABORTED, HORIZON, SELDEPTH = 0, 1, 2, 3, 4
NUM_COUNTERS = 5

MAX_PLY = 136  # longer than any game from any position (Reversi: 2 * 60 + 1 plies with passes)
MAX_MOVES = 64  # cells of a 64-bit board
UNBOUNDED_DEPTH = 1_000  # deeper than any game: the search only stops at the end of the game
WIN = WIN_SCORE
INFINITY = 1 << 40

# negamax is recursive: numba's cache needs its types up front.
NEGAMAX_SIGNATURE = "i8(u8, u8, i8, u8[::1], i8, i8, i8, i8, i8[::1], i8[:, ::1], i8[:, ::1])"
# Replaced by the game's kernel module in each compiled copy (see compiled_alphabeta).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def negamax(s0, s1, player, params, depth, alpha, beta, ply, counters, cells, keys):
    """Fail-soft alpha-beta value of the position, searched ``depth`` plies (a pass is a ply).

    ``cells`` and ``keys`` are scratch rows for move ordering, one row per ply.
    """
    counters[NODES] += 1
    if counters[NODES] > counters[BUDGET]:
        counters[ABORTED] = 1
        return 0
    if ply > counters[SELDEPTH]:
        counters[SELDEPTH] = ply
    moves = kernels.placements(s0, s1, player, params)
    if not moves:
        over, _ = kernels.outcome(s0, s1, player, params)
        if over:
            return kernels.final_score(s0, s1, player, params)
        if depth <= 0:
            counters[HORIZON] += 1
            return kernels.evaluate(s0, s1, player, moves, params)
        value = -negamax(
            s0, s1, 1 - player, params, depth - 1, -beta, -alpha, ply + 1, counters, cells, keys
        )
        return 0 if counters[ABORTED] else value
    if depth <= 0:
        counters[HORIZON] += 1
        return kernels.evaluate(s0, s1, player, moves, params)

    # Order the moves: insertion sort on the game's key, lowest first.
    count = 0
    while moves:
        cell = lowest_bit_index(moves)
        moves &= moves - U1
        key = kernels.order_key(s0, s1, player, cell, depth, params)
        i = count
        while i > 0 and keys[ply, i - 1] > key:
            cells[ply, i] = cells[ply, i - 1]
            keys[ply, i] = keys[ply, i - 1]
            i -= 1
        cells[ply, i] = cell
        keys[ply, i] = key
        count += 1

    best = -INFINITY
    for i in range(count):
        c0, c1 = kernels.place(s0, s1, player, cells[ply, i], params)
        value = -negamax(
            c0, c1, 1 - player, params, depth - 1, -beta, -alpha, ply + 1, counters, cells, keys
        )
        if counters[ABORTED]:
            return 0
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def search_root(s0, s1, player, params, root_cells, depth, counters):
    """Search the root moves in the given order (``-1`` is a pass).

    Returns the index of the best move, its value and how many root moves were fully searched.
    The first of equally good moves wins, so the caller breaks ties by the order it passes. When
    the budget runs out ``counters[ABORTED]`` is set: the best of the moves searched so far is
    still returned (its value is only comparable with theirs).
    """
    cells = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    keys = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    alpha, beta = -INFINITY, INFINITY
    best_index, best = 0, -INFINITY
    counters[NODES] += 1
    for i in range(root_cells.shape[0]):
        c0, c1 = kernels.place(s0, s1, player, root_cells[i], params)
        value = -negamax(
            c0, c1, 1 - player, params, depth - 1, -beta, -alpha, 1, counters, cells, keys
        )
        if counters[ABORTED]:
            return best_index, best, i
        if value > best:
            best_index, best = i, value
            if value > alpha:
                alpha = value
    return best_index, best, root_cells.shape[0]


def compiled_alphabeta(game: Game) -> dict[str, Any]:
    """``negamax`` and ``search_root`` compiled for ``game``'s kernels."""
    return specialise((negamax, search_root), game.kernels, {"negamax": NEGAMAX_SIGNATURE})


__all__ = [
    "ABORTED",
    "BUDGET",
    "HORIZON",
    "NODES",
    "NUM_COUNTERS",
    "SELDEPTH",
    "UNBOUNDED_DEPTH",
    "WIN",
    "compiled_alphabeta",
]
