"""The engine's compiled search: principal-variation alpha-beta with a transposition table.

Written once over the game contract's kernels (``placements``, ``place``, ``outcome``,
``final_score``, ``evaluate``, ``order_key``; see :mod:`boardzoo.games.spec`) and compiled per
game by :func:`compiled_engine`, as :mod:`boardzoo.agents.alphabeta_kernels` is; the evaluation
at the horizon is the same (:func:`~boardzoo.agents.alphabeta_kernels.horizon_value`: the game's,
or a learned net's). What the engine adds is what strong game programs (Chess 4.5, Logistello,
Edax) search with:

- a transposition table: both bitboards and the player as the key, lower and upper bounds of the
  score, the depth they hold for, the best move; an entry of an older search, or of a shallower
  one, is replaced. Bounds proven to the end of the game hold at any depth.
- principal-variation search: every move after the first is tried with a null window first.
- move ordering: the table's move, then, with :data:`SORT_DEPTH` plies or more to go, the
  children's evaluation (the cheapest "shallow search"), else the game's ``order_key``; killer
  moves (two a ply, the last moves that cut off there) and the history heuristic (a cut-off move
  earns ``depth**2``) break the game's ties.
- multi-ProbCut (Buro, "Experiments with Multi-ProbCut and a new high-quality evaluation function
  for Othello", 1997), when ``cut_sigma`` is given: with :data:`PROBCUT_MIN_DEPTH` plies or more
  to go, a shallow search ``depth // 4 * 2 + depth % 2`` plies deep that clears ``beta`` (or
  fails below ``alpha``) by ``cut_sigma`` times its standard error as an estimate of the
  ``depth``-ply score, measured per evaluation and per stage of the game
  (:mod:`boardzoo.learned.probcut`), cuts the node.

The search counts its nodes in ``counters`` (:mod:`boardzoo.budget`), reads the clock every 1024
nodes and gives up past ``counters[DEADLINE]`` (nanoseconds of the monotonic clock; 0: none) or
``counters[BUDGET]`` nodes: it then sets ``counters[ABORTED]`` and stores nothing more. Scores are
``int64`` for the player to move: :data:`WIN` plus the game's margin for a win, the evaluation
(far below :data:`WIN`) otherwise.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.agents.alphabeta_kernels import horizon_value
from boardzoo.budget import ABORTED, BUDGET, DEADLINE, NODES, SHARED, count_node
from boardzoo.games.bits import U1, lowest_bit_index, popcount
from boardzoo.games.spec import WIN_SCORE, Game
from boardzoo.games.specialise import specialise

__all__ = [
    "ABORTED",
    "BUDGET",
    "DEADLINE",
    "HORIZON",
    "NODES",
    "NUM_COUNTERS",
    "P_AGE",
    "P_CUT",
    "P_SIGMAS",
    "P_STAGES",
    "SELDEPTH",
    "Tables",
    "compiled_engine",
    "new_tables",
]

# counters[...]: the budget's slots (boardzoo.budget), then the search's own: positions scored at
# the horizon (0: the score is exact) and the deepest ply reached.
HORIZON, SELDEPTH = SHARED, SHARED + 1
NUM_COUNTERS = SHARED + 2
CLOCK_MASK = 1023  # the clock is read when NODES & CLOCK_MASK == 0

MAX_PLY = 136  # longer than any game (Reversi: 2 * 60 plies and passes)
MAX_MOVES = 64
EXACT_DEPTH = 10_000  # a table depth: the bounds hold at any depth (proven to the game's end)
INFINITY = 1 << 40
WIN = WIN_SCORE
SORT_DEPTH = 3  # with this many plies to go or more, moves are ordered by the child's value
KILLER_BONUS = 1 << 20
PROBCUT_MIN_DEPTH = 3
HISTORY_SHIFT = 4  # history scores are divided by 2**HISTORY_SHIFT in the game's order keys
P_AGE, P_CUT, P_STAGES, P_SIGMAS = 0, 1, 2, 3  # slots of the probcut array (see pvs)

# The table: keys (uint64 [entries, 2]: the bitboards) and data (int32 [entries, 6]).
T_LOWER, T_UPPER, T_DEPTH, T_MOVE, T_PLAYER, T_AGE = 0, 1, 2, 3, 4, 5
T_FIELDS = 6
_HASH_0 = np.uint64(0x9E3779B97F4A7C15)
_HASH_1 = np.uint64(0xC2B2AE3D27D4EB4F)
_S29 = np.uint64(29)

Tables = tuple[np.ndarray, ...]  # (keys, data, cells_at, keys_at, killers, history)

# Replaced by the game's kernel module in each compiled copy (see compiled_engine).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def new_tables(bits: int) -> Tables:
    """A fresh table of ``2**bits`` entries and the search's scratch arrays."""
    data = np.zeros((1 << bits, T_FIELDS), dtype=np.int32)
    data[:, T_PLAYER] = -1  # no entry
    return (
        np.zeros((1 << bits, 2), dtype=np.uint64),
        data,
        np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),  # moves of each ply, ordered
        np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),  # their ordering keys
        np.full((MAX_PLY, 2), -2, dtype=np.int64),  # killer moves of each ply
        np.zeros((2, 64), dtype=np.int64),  # history scores by player and cell
    )


def slot_of(s0, s1, player, t_keys):
    """The table slot of a position."""
    h = s0 * _HASH_0 ^ s1 * _HASH_1 ^ np.uint64(player)
    h ^= h >> _S29
    return np.int64(h & np.uint64(t_keys.shape[0] - 1))


def order_moves(s0, s1, player, params, moves, depth, ply, hash_move, tables, net):
    """Sort ``moves`` into row ``ply`` of the scratch arrays, best first; returns the count."""
    cells_at, keys_at, killers, history = tables[2], tables[3], tables[4], tables[5]
    count = 0
    while moves:
        cell = lowest_bit_index(moves)
        moves &= moves - U1
        if cell == hash_move:
            key = -INFINITY
        elif depth >= SORT_DEPTH:
            c0, c1 = kernels.place(s0, s1, player, cell, params)
            replies = kernels.placements(c0, c1, 1 - player, params)
            key = horizon_value(c0, c1, 1 - player, params, replies, net)  # the opponent's
        else:
            key = kernels.order_key(s0, s1, player, cell, depth, params) << HISTORY_SHIFT
            key -= history[player, cell] >> HISTORY_SHIFT
        if cell == killers[ply, 0] or cell == killers[ply, 1]:
            key -= KILLER_BONUS
        i = count
        while i > 0 and keys_at[ply, i - 1] > key:
            cells_at[ply, i] = cells_at[ply, i - 1]
            keys_at[ply, i] = keys_at[ply, i - 1]
            i -= 1
        cells_at[ply, i] = cell
        keys_at[ply, i] = key
        count += 1
    return count


def store(s0, s1, player, depth, alpha, beta, best, move, exact, age, tables):
    """Keep what a search of ``depth`` plies in the window ``(alpha, beta)`` found."""
    t_keys, t_data = tables[0], tables[1]
    slot = slot_of(s0, s1, player, t_keys)
    depth = EXACT_DEPTH if exact else depth
    if t_data[slot, T_AGE] == age and t_data[slot, T_DEPTH] > depth:
        return  # a deeper entry of this search keeps the slot
    same = t_keys[slot, 0] == s0 and t_keys[slot, 1] == s1 and t_data[slot, T_PLAYER] == player
    if not same or t_data[slot, T_DEPTH] != depth:
        t_data[slot, T_LOWER] = -INFINITY >> 12  # the widest bounds an int32 holds
        t_data[slot, T_UPPER] = INFINITY >> 12
    t_keys[slot, 0] = s0
    t_keys[slot, 1] = s1
    if best <= alpha:
        t_data[slot, T_UPPER] = min(best, t_data[slot, T_UPPER])
    elif best >= beta:
        t_data[slot, T_LOWER] = max(best, t_data[slot, T_LOWER])
    else:
        t_data[slot, T_LOWER] = best
        t_data[slot, T_UPPER] = best
    t_data[slot, T_DEPTH] = depth
    t_data[slot, T_MOVE] = move
    t_data[slot, T_PLAYER] = player
    t_data[slot, T_AGE] = age


def pvs(s0, s1, player, params, depth, alpha, beta, ply, counters, tables, probcut, net):
    """Fail-soft principal-variation value of the position, ``depth`` plies deep (a pass is no
    ply: it changes nothing on the board). ``probcut`` (float64): the table's age
    (``P_AGE``), multi-ProbCut's threshold (``P_CUT``, 0: off), the number of game stages
    (``P_STAGES``: bands of the pieces on the board) and, from ``P_SIGMAS``, for each stage
    and each depth ``d`` (from 0; the last serves deeper ones), the standard error of the
    shallow search's score as an estimate of the depth-``d`` score."""
    if count_node(counters, CLOCK_MASK):
        return np.int64(0)
    if ply > counters[SELDEPTH]:
        counters[SELDEPTH] = ply
    moves = kernels.placements(s0, s1, player, params)
    if not moves:
        over, _ = kernels.outcome(s0, s1, player, params)
        if over:
            return kernels.final_score(s0, s1, player, params)
        n0, n1 = kernels.place(s0, s1, player, np.int64(-1), params)
        value = -pvs(
            n0, n1, 1 - player, params, depth, -beta, -alpha, ply + 1, counters, tables,
            probcut, net,
        )  # fmt: skip
        return np.int64(0) if counters[ABORTED] else value
    if depth <= 0:
        counters[HORIZON] += 1
        return horizon_value(s0, s1, player, params, moves, net)

    t_keys, t_data = tables[0], tables[1]
    slot = slot_of(s0, s1, player, t_keys)
    hash_move = np.int64(-2)
    if t_keys[slot, 0] == s0 and t_keys[slot, 1] == s1 and t_data[slot, T_PLAYER] == player:
        hash_move = np.int64(t_data[slot, T_MOVE])
        stored = t_data[slot, T_DEPTH]
        if stored >= depth:
            lower = np.int64(t_data[slot, T_LOWER])
            upper = np.int64(t_data[slot, T_UPPER])
            cut = lower >= beta or upper <= alpha or lower == upper
            if cut:
                if stored < EXACT_DEPTH:
                    counters[HORIZON] += 1  # the value rests on an evaluation
                if lower >= beta or lower == upper:
                    return lower
                return upper

    horizons_before = counters[HORIZON]
    cut_sigma = probcut[P_CUT]
    if cut_sigma > 0 and depth >= PROBCUT_MIN_DEPTH and beta - alpha == 1:
        shallow = depth // 4 * 2 + (depth & 1)  # Edax's: 3 -> 1, 4 -> 2, 5 -> 3, 6 -> 2, ...
        stages = np.int64(probcut[P_STAGES])
        per_stage = (probcut.shape[0] - P_SIGMAS) // stages
        pieces = np.int64(popcount(s0 | s1))
        stage = min(stages - 1, pieces * stages // np.int64(popcount(params[0])))
        at = P_SIGMAS + stage * per_stage + min(depth, per_stage - 1)
        margin = np.int64(cut_sigma * probcut[at])
        if beta < WIN - 100 and alpha > -WIN + 100:
            bound = beta + margin
            value = pvs(
                s0, s1, player, params, shallow, bound - 1, bound, ply, counters, tables,
                probcut, net,
            )  # fmt: skip
            if counters[ABORTED]:
                return np.int64(0)
            if value >= bound:
                counters[HORIZON] += 1
                return beta
            bound = alpha - margin
            value = pvs(
                s0, s1, player, params, shallow, bound, bound + 1, ply, counters, tables,
                probcut, net,
            )  # fmt: skip
            if counters[ABORTED]:
                return np.int64(0)
            if value <= bound:
                counters[HORIZON] += 1
                return alpha

    count = order_moves(s0, s1, player, params, moves, depth, ply, hash_move, tables, net)
    cells_at, killers, history = tables[2], tables[4], tables[5]
    original_alpha = alpha
    best = -INFINITY
    best_move = np.int64(-1)
    for i in range(count):
        cell = cells_at[ply, i]
        c0, c1 = kernels.place(s0, s1, player, cell, params)
        if i == 0:
            value = -pvs(
                c0, c1, 1 - player, params, depth - 1, -beta, -alpha, ply + 1, counters,
                tables, probcut, net,
            )  # fmt: skip
        else:
            value = -pvs(
                c0, c1, 1 - player, params, depth - 1, -alpha - 1, -alpha, ply + 1, counters,
                tables, probcut, net,
            )  # fmt: skip
            if alpha < value < beta and not counters[ABORTED]:
                value = -pvs(
                    c0, c1, 1 - player, params, depth - 1, -beta, -value, ply + 1, counters,
                    tables, probcut, net,
                )  # fmt: skip
        if counters[ABORTED]:
            return np.int64(0)
        if value > best:
            best = value
            best_move = cell
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    if killers[ply, 0] != cell:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = cell
                    history[player, cell] += depth * depth
                    break
    exact = counters[HORIZON] == horizons_before
    age = np.int64(probcut[P_AGE])
    store(s0, s1, player, depth, original_alpha, beta, best, best_move, exact, age, tables)
    return best


def search_root(s0, s1, player, params, root_cells, depth, alpha, beta, counters, tables,
                probcut, net):  # fmt: skip
    """Search the root moves in the given order (``-1`` is a pass) within ``(alpha, beta)``.

    Returns the index of the best move, its value, and how many root moves were searched to the
    end. The first of equally good moves wins, so the caller breaks ties by the order. When the
    budget or the clock runs out ``counters[ABORTED]`` is set: the best of the moves searched so
    far is returned (its value is only comparable with theirs).
    """
    best_index, best = 0, -INFINITY
    counters[NODES] += 1
    for i in range(root_cells.shape[0]):
        c0, c1 = kernels.place(s0, s1, player, root_cells[i], params)
        if i == 0:
            value = -pvs(
                c0, c1, 1 - player, params, depth - 1, -beta, -alpha, 1, counters, tables,
                probcut, net,
            )  # fmt: skip
        else:
            value = -pvs(
                c0, c1, 1 - player, params, depth - 1, -alpha - 1, -alpha, 1, counters, tables,
                probcut, net,
            )  # fmt: skip
            if alpha < value < beta and not counters[ABORTED]:
                value = -pvs(
                    c0, c1, 1 - player, params, depth - 1, -beta, -value, 1, counters, tables,
                    probcut, net,
                )  # fmt: skip
        if counters[ABORTED]:
            return best_index, best, i
        if value > best:
            best_index, best = i, value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    return best_index, best, i + 1
    return best_index, best, root_cells.shape[0]


_TABLES = "Tuple((u8[:, ::1], i4[:, ::1], i8[:, ::1], i8[:, ::1], i8[:, ::1], i8[:, ::1]))"
_NET = "Tuple((i8[:, ::1], i8[::1], f4[:, :, ::1]))"
PVS_SIGNATURES = tuple(
    f"i8(u8, u8, i8, u8[::1], i8, i8, i8, i8, i8[::1], {_TABLES}, f8[::1], {net})"
    for net in ("none", _NET)
)


def compiled_engine(game: Game) -> dict[str, Any]:
    """The engine's search compiled for ``game``'s kernels (``search_root`` and its callees)."""
    copies = specialise(
        (horizon_value, order_moves, store, slot_of, pvs, search_root),
        game.kernels,
    )
    recursive = copies["pvs"]
    if len(recursive.signatures) < len(PVS_SIGNATURES):
        for signature in PVS_SIGNATURES:
            recursive.compile(signature)
        recursive.disable_compile()  # calls of other types convert, never compile lazily
    return copies
