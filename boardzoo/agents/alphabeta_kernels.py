"""Compiled negamax alpha-beta, written once for every game and compiled per game.

:func:`negamax` and :func:`search_root` are templates that reach the game through the contract's
kernels (``kernels.placements``, ``place``, ``outcome``, ``evaluate``, ``final_score`` and
``order_key``; see :mod:`boardzoo.games.spec`); :func:`compiled_alphabeta` compiles a copy per
game. Every search counts its nodes in ``counters`` and gives up once they pass
``counters[BUDGET]`` or the monotonic clock (:mod:`boardzoo.clock`, read every 1024 nodes) passes
``counters[DEADLINE]`` (0: none): it then sets ``counters[ABORTED]``, and only the root moves it
finished count. Scores are
``int64`` from the point of view of the player to move.

The horizon evaluation is the game's ``evaluate`` kernel, or, when :func:`negamax_net` is given a
learned net's arrays (:mod:`boardzoo.learned.ntuple`; ``None`` means none), the net's value times
:data:`LEARNED_SCALE`, rounded. :func:`negamax` is the search with the game's evaluation.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.budget import ABORTED, BUDGET, DEADLINE, NODES, SHARED, count_node
from boardzoo.games.bits import U1, lowest_bit_index
from boardzoo.games.spec import WIN_SCORE, Game
from boardzoo.games.specialise import specialise
from boardzoo.learned.ntuple import ntuple_value_arrays

# counters[...]: the budget's slots (boardzoo.budget), then the search's own: positions scored at
# the horizon (0: the score is exact) and the deepest ply reached.
HORIZON, SELDEPTH = SHARED, SHARED + 1
NUM_COUNTERS = SHARED + 2
CLOCK_MASK = 1023  # the clock is read when NODES & CLOCK_MASK == 0

MAX_PLY = 136  # longer than any game from any position (Reversi: 2 * 60 + 1 plies with passes)
MAX_MOVES = 64  # cells of a 64-bit board
UNBOUNDED_DEPTH = 1_000  # deeper than any game: the search only stops at the end of the game
WIN = WIN_SCORE
INFINITY = 1 << 40

# A learned value in (-1, 1) scores this much times the value: far below WIN.
LEARNED_SCALE = 10_000.0

# negamax_net is recursive: numba's cache needs its types up front, one signature for the game's
# evaluation (net None) and one for a learned net's arrays. negamax's are fixed for its callers.
NEGAMAX_SIGNATURE = "i8(u8, u8, i8, u8[::1], i8, i8, i8, i8, i8[::1], i8[:, ::1], i8[:, ::1])"
NEGAMAX_NET_SIGNATURES = (
    NEGAMAX_SIGNATURE[:-1] + ", none)",
    NEGAMAX_SIGNATURE[:-1] + ", Tuple((i8[:, ::1], i8[::1], f4[:, :, ::1])))",
)
# Replaced by the game's kernel module in each compiled copy (see compiled_alphabeta).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def horizon_value(s0, s1, player, params, moves, net):
    """The evaluation of a position in play for the player to move (``moves``: its placements):
    the game's (``net`` is ``None``), or the learned value of ``net`` scaled (for a player who
    must pass, minus the opponent's value: the net learnt positions with a move to make)."""
    if net is None:
        return kernels.evaluate(s0, s1, player, moves, params)
    cells, table, weights = net
    if moves:
        value = ntuple_value_arrays(s0, s1, player, params, cells, table, weights)
    else:
        value = -ntuple_value_arrays(s0, s1, 1 - player, params, cells, table, weights)
    return np.int64(np.round(LEARNED_SCALE * value))


def negamax(s0, s1, player, params, depth, alpha, beta, ply, counters, cells, keys):
    """:func:`negamax_net` with the game's own evaluation."""
    return negamax_net(s0, s1, player, params, depth, alpha, beta, ply, counters, cells, keys, None)


def negamax_net(s0, s1, player, params, depth, alpha, beta, ply, counters, cells, keys, net):
    """Fail-soft alpha-beta value of the position, searched ``depth`` plies (a pass is a ply).

    ``cells`` and ``keys`` are scratch rows for move ordering, one row per ply. ``net``: the
    arrays ``(cells, table, weights)`` of a learned net for the horizon evaluation, or ``None``
    for the game's evaluation (numba compiles each case apart, so ``None`` costs nothing).
    """
    if count_node(counters, CLOCK_MASK):
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
            return horizon_value(s0, s1, player, params, moves, net)
        value = -negamax_net(
            s0, s1, 1 - player, params, depth - 1, -beta, -alpha, ply + 1, counters, cells, keys,
            net,
        )  # fmt: skip
        return 0 if counters[ABORTED] else value
    if depth <= 0:
        counters[HORIZON] += 1
        return horizon_value(s0, s1, player, params, moves, net)

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
        value = -negamax_net(
            c0, c1, 1 - player, params, depth - 1, -beta, -alpha, ply + 1, counters, cells, keys,
            net,
        )  # fmt: skip
        if counters[ABORTED]:
            return 0
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def search_root(s0, s1, player, params, root_cells, depth, counters, net):
    """Search the root moves in the given order (``-1`` is a pass), with the game's evaluation
    (``net`` is ``None``) or a learned net's (``net``: see :func:`negamax_net`).

    Returns the index of the best move, its value and how many root moves were fully searched.
    The first of equally good moves wins, so the caller breaks ties by the order it passes. When
    the budget or the time runs out ``counters[ABORTED]`` is set: the best of the moves searched
    so far is still returned (its value is only comparable with theirs).
    """
    cells = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    keys = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    alpha, beta = -INFINITY, INFINITY
    best_index, best = 0, -INFINITY
    counters[NODES] += 1
    for i in range(root_cells.shape[0]):
        c0, c1 = kernels.place(s0, s1, player, root_cells[i], params)
        value = -negamax_net(
            c0, c1, 1 - player, params, depth - 1, -beta, -alpha, 1, counters, cells, keys, net
        )
        if counters[ABORTED]:
            return best_index, best, i
        if value > best:
            best_index, best = i, value
            if value > alpha:
                alpha = value
    return best_index, best, root_cells.shape[0]


def compiled_alphabeta(game: Game) -> dict[str, Any]:
    """``negamax``, ``negamax_net`` and ``search_root`` compiled for ``game``'s kernels."""
    copies = specialise((horizon_value, negamax, negamax_net, search_root), game.kernels)
    recursive = copies["negamax_net"]
    if len(recursive.signatures) < len(NEGAMAX_NET_SIGNATURES):
        for signature in NEGAMAX_NET_SIGNATURES:
            recursive.compile(signature)
        recursive.disable_compile()  # calls of other types convert, never compile lazily
        copies["negamax"].compile(NEGAMAX_SIGNATURE)
        copies["negamax"].disable_compile()
    return copies


__all__ = [
    "ABORTED",
    "BUDGET",
    "DEADLINE",
    "HORIZON",
    "LEARNED_SCALE",
    "NODES",
    "NUM_COUNTERS",
    "SELDEPTH",
    "UNBOUNDED_DEPTH",
    "WIN",
    "compiled_alphabeta",
]
