"""The depth-first search: one negamax written once, every idea a switch, every game a plug-in.

:func:`node` is fail-soft negamax alpha-beta over a position ``(x, y, player)`` whose meaning is
the plug-in's (:mod:`boardzoo.gametree.hooks`: the game's bitboards and the side to move, or the
mover's and the opponent's discs). It reaches the game only through the hooks (``tree_moves``,
``tree_child``, ``tree_over``, ``tree_final``, ``tree_horizon``, ``tree_order_key`` and the
optional ones) and the search's ideas are module constants that :func:`boardzoo.gametree.compile`
freezes per copy (:class:`boardzoo.gametree.settings.TreeSettings` names them), so an idea that is
off compiles to nothing:

- ``TABLE``: the transposition table (:mod:`boardzoo.gametree.table`): its move first, its
  bounds cut or narrow the window, where ``tree_table_worthy`` says the position is worth it;
- ``PVS``: principal-variation search: every move after the first with a null window first;
- ``ETC``: enhanced transposition cut-offs: a child the table refutes cuts at once;
- ``KILLERS``: two killer moves a ply (the last that cut off there) are tried early;
- ``HISTORY``: the history heuristic: a cut-off move earns ``depth**2``, which breaks ties;
- ``VALUE_ORDER``: with :data:`SORT_DEPTH` plies or more to go, moves by the child's evaluation;
- ``PROBCUT``: multi-ProbCut (Buro 1997): a shallow null-window search clearing the bound by a
  calibrated margin cuts the node (:mod:`boardzoo.gametree.probcut`);
- ``PASS_IS_PLY``: a pass uses a ply of the depth (plain alpha-beta's rule), else it is free;
- ``EXACT``: no depth: every line to the end of the game, the plug-in's exact scores;
- ``CHILD_ORDER``: the plug-in orders with the child at hand (``tree_ordered_child``: its key,
  the child and the child's moves, kept for the search);
- ``LEAF``: the plug-in's own code for the last plies (``tree_leaf``: Reversi's last empties);
- ``BOUNDS``: the plug-in's bounds of a score (``tree_bounds``: stable discs, discs left) cut
  or narrow the window.

Every search counts its nodes in ``counters`` (:mod:`boardzoo.budget`) and gives up past the budget
or the deadline (:func:`count_node`: looked at on the first node, then every ``CLOCK_MASK + 1``
nodes): ``counters[ABORTED]`` is then set, every caller returns at once and nothing more is stored.
``counters[HORIZON]`` counts positions scored by an evaluation (0 after a search: its score is
exact) and ``counters[SELDEPTH]`` the deepest ply reached.

The scratch rows (``work``, :func:`scratch`) hold each ply's ordered moves, their keys and
children, the killers and the history; ``counters`` also the table's age and, past
:data:`NUM_COUNTERS`, multi-ProbCut's margins (:func:`probcut_counters`); ``net`` a learned
evaluation's arrays or ``None``. Every array the recursive search passes on costs at each node,
so there are four.
"""

from __future__ import annotations

import numpy as np

from boardzoo.budget import ABORTED, BUDGET, DEADLINE, NODES, SHARED
from boardzoo.clock import monotonic_ns
from boardzoo.games.bits import U1, lowest_bit_index, popcount
from boardzoo.games.spec import WIN_SCORE
from boardzoo.gametree.hooks import (  # the defaults: each compiled copy has its plug-in's
    tree_bounds,
    tree_child,
    tree_draft,
    tree_etc_worthy,
    tree_final,
    tree_horizon,
    tree_leaf,
    tree_moves,
    tree_order_key,
    tree_ordered_child,
    tree_over,
    tree_table_worthy,
)
from boardzoo.gametree.table import bucket_of, probe, store

__all__ = [
    "AGE",
    "HORIZON",
    "INFINITY",
    "LOOK_AT",
    "MAX_MOVES",
    "MAX_PLY",
    "NUM_COUNTERS",
    "P_AGE",
    "P_CUT",
    "P_SIGMAS",
    "P_STAGES",
    "SELDEPTH",
    "UNKNOWN",
    "no_probcut",
    "probcut_counters",
    "scratch",
]

# counters[...]: the budget's slots, then positions scored by an evaluation, the deepest ply, the
# node count at which the budget and the clock are looked at next (0: at the next node) and the
# age of the search (what the table's entries are marked with); past NUM_COUNTERS, multi-ProbCut's
# stages and margins, if on (probcut_counters).
HORIZON, SELDEPTH, LOOK_AT, AGE = SHARED, SHARED + 1, SHARED + 2, SHARED + 3
NUM_COUNTERS = SHARED + 4
MAX_PLY = 136  # longer than any game from any position (Reversi: 2 * 60 + 1 plies with passes)
MAX_MOVES = 64  # cells of a 64-bit board
INFINITY = np.int64(1) << 40
WIN = WIN_SCORE
UNKNOWN = np.uint64(0xFFFFFFFFFFFFFFFF)  # a position's moves not worked out yet
SORT_DEPTH = 3  # VALUE_ORDER: with this many plies to go or more, moves by the child's value
KILLER_BONUS = 1 << 20
HISTORY_SHIFT = 4  # history scores are divided by 2**HISTORY_SHIFT in the game's order keys
PROBCUT_MIN_DEPTH = 3
P_AGE, P_CUT, P_STAGES, P_SIGMAS = 0, 1, 2, 3  # slots of a calibration's array (probcut_counters)
CUT_KEY = -(np.int64(1) << 50)  # the table's move: searched first
KILLER = MAX_MOVES  # orders[ply, ORDER_CELL, KILLER:]: the ply's two killer moves
ORDER_CELL, ORDER_KEY, ORDER_X, ORDER_Y, ORDER_MOVES = 0, 1, 2, 3, 4  # rows of a ply's orders
_ZERO, _ONE = np.int64(0), np.int64(1)  # typed: the recursive node has one signature

# The ideas, switched per compiled copy (boardzoo.gametree.compile freezes them).
TABLE = PVS = ETC = KILLERS = HISTORY = VALUE_ORDER = PROBCUT = True
PASS_IS_PLY = EXACT = CHILD_ORDER = LEAF = BOUNDS = False
CLOCK_MASK = 1023


def scratch() -> np.ndarray:
    """Fresh scratch rows ``orders`` (plain NumPy: called from Python, and compiled into the
    searches that make their own): ``orders[ply, ORDER_CELL, :MAX_MOVES]`` holds a ply's moves in
    order, ``orders[ply, ORDER_KEY]`` their keys, ``orders[ply, ORDER_X]``, ``ORDER_Y`` and
    ``ORDER_MOVES`` each move's child (its bitboards and moves, as int64 bit patterns);
    ``orders[ply, ORDER_CELL, KILLER:]`` the ply's two killer moves, and the last two rows
    ``orders[MAX_PLY + player, ORDER_CELL, cell]`` the history."""
    orders = np.zeros((MAX_PLY + 2, 5, MAX_MOVES + 2), dtype=np.int64)
    orders[:MAX_PLY, ORDER_CELL, KILLER:] = -2
    return orders


def no_probcut(age: int = 0) -> np.ndarray:
    """A calibration's array for a search without multi-ProbCut (see :func:`probcut_counters`)."""
    return np.array([float(age), 0.0, 1.0, 0.0], dtype=np.float64)


def probcut_counters(probcut: np.ndarray) -> np.ndarray:
    """What follows :data:`NUM_COUNTERS` in a search's counters for multi-ProbCut's calibration
    ``probcut`` (float64: the age, unused here, the threshold ``P_CUT`` in standard errors, 0
    off; the number of game stages ``P_STAGES``; from ``P_SIGMAS``, for each stage and each depth
    ``d`` from 0, the last serving deeper ones, the standard error of the shallow search's score
    as an estimate of the depth-``d`` score): nothing when it is off, else the number of stages
    and each margin, the threshold times the error, in the evaluation's units (truncated)."""
    cut = float(probcut[P_CUT])
    if cut <= 0:
        return np.zeros(0, dtype=np.int64)
    margins = (cut * probcut[P_SIGMAS:]).astype(np.int64)
    return np.concatenate(([np.int64(probcut[P_STAGES])], margins))


def count_node(counters):
    """Count a node; ``True`` (and ``counters[ABORTED]`` set) once the search has given up: past
    its node budget or its deadline, looked at from the first node on and then every
    ``CLOCK_MASK + 1`` nodes (a plug-in's own code may count nodes in between)."""
    counters[NODES] += 1
    if counters[NODES] >= counters[LOOK_AT]:
        late = counters[DEADLINE] != 0 and monotonic_ns() > counters[DEADLINE]
        if counters[NODES] > counters[BUDGET] or late:
            counters[ABORTED] = 1
            return True
        counters[LOOK_AT] = min(counters[BUDGET] + 1, counters[NODES] + CLOCK_MASK + 1)
    return counters[ABORTED] != 0


def order_moves(x, y, player, params, moves, depth, ply, hash_move, work, net):
    """Sort ``moves`` into row ``ply`` of the scratch rows, best (lowest key) first; with
    ``CHILD_ORDER`` the children and their moves go along. Returns the count."""
    orders = work
    count = 0
    while moves:
        cell = lowest_bit_index(moves)
        moves &= moves - U1
        cx = cy = cm = UNKNOWN
        if CHILD_ORDER:
            key, cx, cy, cm = tree_ordered_child(x, y, player, cell, params, net)
        elif VALUE_ORDER and depth >= SORT_DEPTH:
            cx, cy = tree_child(x, y, player, cell, params)
            replies = tree_moves(cx, cy, 1 - player, params)
            key = tree_horizon(cx, cy, 1 - player, params, replies, net)
        else:
            key = tree_order_key(x, y, player, cell, depth, params)
            if HISTORY:
                earned = orders[MAX_PLY + player, ORDER_CELL, cell]
                key = (key << HISTORY_SHIFT) - (earned >> HISTORY_SHIFT)
        if TABLE and cell == hash_move:
            key = CUT_KEY
        if KILLERS and (cell == orders[ply, 0, KILLER] or cell == orders[ply, 0, KILLER + 1]):
            key -= KILLER_BONUS
        i = count
        while i > 0 and orders[ply, 1, i - 1] > key:
            orders[ply, 0, i] = orders[ply, 0, i - 1]
            orders[ply, 1, i] = orders[ply, 1, i - 1]
            if CHILD_ORDER:
                orders[ply, ORDER_X, i] = orders[ply, ORDER_X, i - 1]
                orders[ply, ORDER_Y, i] = orders[ply, ORDER_Y, i - 1]
                orders[ply, ORDER_MOVES, i] = orders[ply, ORDER_MOVES, i - 1]
            i -= 1
        orders[ply, 0, i] = cell
        orders[ply, 1, i] = key
        if CHILD_ORDER:
            orders[ply, ORDER_X, i] = np.int64(cx)
            orders[ply, ORDER_Y, i] = np.int64(cy)
            orders[ply, ORDER_MOVES, i] = np.int64(cm)
        count += 1
    return count


def table_cut(x, y, player, bucket, depth, alpha, beta, table, counters):
    """What the table says of a position to search ``depth`` plies within ``(alpha, beta)``:
    ``(done, value, alpha, beta, move)``: whether its bounds settle the search (then its value),
    the window they narrow it to (bounds proven to the end of the game narrow it at any depth)
    and the move to try first (-2: none)."""
    found, lower, upper, move, draft, exact = probe(x, y, player, bucket, table)
    if found and (exact or draft >= depth):
        if lower >= beta or upper <= alpha or lower == upper:
            if not exact:
                counters[HORIZON] += 1  # the value rests on an evaluation
            return True, lower if lower >= beta or lower == upper else upper, alpha, beta, move
        if exact:
            alpha = max(alpha, lower)
            beta = min(beta, upper)
    return False, np.int64(0), alpha, beta, move


def etc_cut(x, y, player, params, count, depth, beta, ply, counters, work, table):
    """Enhanced transposition cut-off: ``(True, value)`` when the table refutes one of the
    ``count`` moves ordered in row ``ply`` (its child scores at least ``beta`` for the side to
    move), else ``(False, 0)``."""
    orders = work
    for i in range(count):
        if CHILD_ORDER:
            cx, cy = np.uint64(orders[ply, ORDER_X, i]), np.uint64(orders[ply, ORDER_Y, i])
        else:
            cx, cy = tree_child(x, y, player, orders[ply, ORDER_CELL, i], params)
        at = bucket_of(cx, cy, 1 - player, table)
        found, _, upper, _, draft, exact = probe(cx, cy, 1 - player, at, table)
        if found and (exact or draft >= depth - 1) and -upper >= beta:
            if not exact:
                counters[HORIZON] += 1
            return True, -upper
    return False, np.int64(0)


def node(x, y, player, moves, params, depth, alpha, beta, ply, passed, counters, work, table,
         net):  # fmt: skip
    """Fail-soft negamax value of the position within ``(alpha, beta)``, ``depth`` plies deep
    (``EXACT``: to the end of the game). ``moves``: the side to move's moves, or
    :data:`UNKNOWN`; ``passed``: 1 when the move before was a pass. Multi-ProbCut is on when
    ``counters`` goes on past :data:`NUM_COUNTERS` (:func:`probcut_counters`)."""
    if moves == UNKNOWN:
        moves = tree_moves(x, y, player, params)
    if LEAF:
        done, value = tree_leaf(x, y, player, params, alpha, beta, passed, counters)
        if done:
            return value
    if count_node(counters):
        return np.int64(0)
    if not EXACT and ply > counters[SELDEPTH]:
        counters[SELDEPTH] = ply
    if not moves:
        over, replies = tree_over(x, y, player, params, passed)
        if over:
            return tree_final(x, y, player, params)
        if not EXACT and PASS_IS_PLY and depth <= 0:
            counters[HORIZON] += 1
            return tree_horizon(x, y, player, params, moves, net)
        next_depth = depth - 1 if PASS_IS_PLY else depth
        cx, cy = tree_child(x, y, player, np.int64(-1), params)
        value = -node(
            cx, cy, 1 - player, replies, params, next_depth, -beta, -alpha, ply + 1, _ONE,
            counters, work, table, net,
        )  # fmt: skip
        return np.int64(0) if counters[ABORTED] else value
    if not EXACT and depth <= 0:
        counters[HORIZON] += 1
        return tree_horizon(x, y, player, params, moves, net)

    if BOUNDS:
        lower, upper = tree_bounds(x, y, player, moves, params, alpha, ply)
        if upper <= alpha or lower == upper:
            return upper
        if lower >= beta:
            return lower
        alpha = max(alpha, lower)
        beta = min(beta, upper)

    horizons_before = np.int64(0) if EXACT else counters[HORIZON]
    hash_move = np.int64(-2)
    bucket = np.int64(0)
    keep = False
    if TABLE:
        keep = tree_table_worthy(x, y, params, depth)
    if keep:
        bucket = bucket_of(x, y, player, table)
        done, value, alpha, beta, hash_move = table_cut(
            x, y, player, bucket, depth, alpha, beta, table, counters
        )
        if done:
            return value

    if PROBCUT and not EXACT:  # noqa: SIM102 (the switch alone: a copy without it has no code)
        if counters.shape[0] > NUM_COUNTERS and depth >= PROBCUT_MIN_DEPTH and beta - alpha == 1:
            shallow = depth // 4 * 2 + (depth & 1)  # Edax's: 3 -> 1, 4 -> 2, 5 -> 3, 6 -> 2
            stages = counters[NUM_COUNTERS]
            per_stage = (counters.shape[0] - NUM_COUNTERS - 1) // stages
            pieces = np.int64(popcount(x | y))
            stage = min(stages - 1, pieces * stages // np.int64(popcount(params[0])))
            margin = counters[NUM_COUNTERS + 1 + stage * per_stage + min(depth, per_stage - 1)]
            if beta < WIN - 100 and alpha > -WIN + 100:
                bound = beta + margin
                value = node(
                    x, y, player, moves, params, shallow, bound - 1, bound, ply, passed,
                    counters, work, table, net,
                )  # fmt: skip
                if counters[ABORTED]:
                    return np.int64(0)
                if value >= bound:
                    counters[HORIZON] += 1
                    return beta
                bound = alpha - margin
                value = node(
                    x, y, player, moves, params, shallow, bound, bound + 1, ply, passed,
                    counters, work, table, net,
                )  # fmt: skip
                if counters[ABORTED]:
                    return np.int64(0)
                if value <= bound:
                    counters[HORIZON] += 1
                    return alpha

    count = order_moves(x, y, player, params, moves, depth, ply, hash_move, work, net)
    orders = work
    if ETC and keep and tree_etc_worthy(x, y, params, depth):
        done, value = etc_cut(x, y, player, params, count, depth, beta, ply, counters, work, table)
        if done:
            return value

    original_alpha = alpha
    best = -INFINITY
    best_move = np.int64(-1)
    for i in range(count):
        cell = orders[ply, 0, i]
        if CHILD_ORDER:
            cx, cy = np.uint64(orders[ply, ORDER_X, i]), np.uint64(orders[ply, ORDER_Y, i])
            cm = np.uint64(orders[ply, ORDER_MOVES, i])
        else:
            cx, cy = tree_child(x, y, player, cell, params)
            cm = UNKNOWN
        if i == 0 or not PVS:
            value = -node(
                cx, cy, 1 - player, cm, params, depth - 1, -beta, -alpha, ply + 1, _ZERO,
                counters, work, table, net,
            )  # fmt: skip
        else:  # a null window first: is the move better than the best so far?
            value = -node(
                cx, cy, 1 - player, cm, params, depth - 1, -alpha - 1, -alpha, ply + 1, _ZERO,
                counters, work, table, net,
            )  # fmt: skip
            if alpha < value < beta and not counters[ABORTED]:
                value = -node(
                    cx, cy, 1 - player, cm, params, depth - 1, -beta, -value, ply + 1, _ZERO,
                    counters, work, table, net,
                )  # fmt: skip
        if counters[ABORTED]:
            return np.int64(0)
        if value > best:
            best = value
            best_move = cell
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    if KILLERS and orders[ply, 0, KILLER] != cell:
                        orders[ply, 0, KILLER + 1] = orders[ply, 0, KILLER]
                        orders[ply, 0, KILLER] = cell
                    if HISTORY:
                        orders[MAX_PLY + player, ORDER_CELL, cell] += depth * depth
                    break
    if keep:
        exact = EXACT or counters[HORIZON] == horizons_before
        draft = tree_draft(x, y, params, depth) if EXACT else depth
        age = counters[AGE]
        store(x, y, player, bucket, draft, exact, original_alpha, beta, best, best_move, age,
              table)  # fmt: skip
    return best


def search_root(x, y, player, params, root_cells, depth, alpha, beta, counters, work, table,
                net):  # fmt: skip
    """Search the root moves in the given order (``-1`` is a pass) within ``(alpha, beta)``.

    Returns the index of the best move, its value, and how many root moves were searched to
    the end. The first of equally good moves wins, so the caller breaks ties by the order. When
    the budget or the clock runs out ``counters[ABORTED]`` is set: the best of the moves
    searched so far is returned (its value is only comparable with theirs).
    """
    best_index, best = 0, -INFINITY
    counters[NODES] += 1
    for i in range(root_cells.shape[0]):
        cx, cy = tree_child(x, y, player, root_cells[i], params)
        passed = _ONE if root_cells[i] < 0 else _ZERO
        if i == 0 or not PVS:
            value = -node(
                cx, cy, 1 - player, UNKNOWN, params, depth - 1, -beta, -alpha, _ONE, passed,
                counters, work, table, net,
            )  # fmt: skip
        else:
            value = -node(
                cx, cy, 1 - player, UNKNOWN, params, depth - 1, -alpha - 1, -alpha, _ONE, passed,
                counters, work, table, net,
            )  # fmt: skip
            if alpha < value < beta and not counters[ABORTED]:
                value = -node(
                    cx, cy, 1 - player, UNKNOWN, params, depth - 1, -beta, -value, _ONE, passed,
                    counters, work, table, net,
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


def search_root_plain(x, y, player, params, root_cells, depth, counters, net):
    """:func:`search_root` with the full window, fresh scratch rows and no table (the plain
    search's, for compiled callers: the batched envs' alpha-beta opponents)."""
    table = np.zeros((2, 4), dtype=np.uint64)
    return search_root(
        x, y, player, params, root_cells, depth, -INFINITY, INFINITY, counters, scratch(), table,
        net,
    )  # fmt: skip


def root_order(x, y, player, params, depth, work, table, net):
    """The root's moves in the order a node searches them (the table's move first); a pass
    alone (``[-1]``) when the side to move must pass."""
    moves = tree_moves(x, y, player, params)
    if not moves:
        return np.full(1, -1, dtype=np.int64)
    hash_move = np.int64(-2)
    if TABLE:
        bucket = bucket_of(x, y, player, table)
        hash_move = probe(x, y, player, bucket, table)[3]
    count = order_moves(x, y, player, params, moves, depth, 0, hash_move, work, net)
    return work[0, ORDER_CELL, :count].copy()
