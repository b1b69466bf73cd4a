"""Connect Four's exact solver, compiled: how soon the game is won with perfect play.

Scores are those of the Connect 4 Game Solver (Pascal Pons' solver and its documentation): for
the player to move, ``22 - s`` when it wins with its ``s``-th disc (so ``1`` wins with its last,
21st disc), ``0`` for a draw, and ``s - 22`` when the opponent wins with its ``s``-th disc. With
perfect play the winner wins as soon as it can and the loser loses as late as it can; a move's
score for the player who made it is minus its score for the opponent. ``4455`` (moves as columns
1-7) scores 18: red wins with its 4th disc.

The search is negamax with alpha-beta over the position seen from the side to move (``own``: the
mover's discs; ``mask``: every disc), on the bitboards of :mod:`boardzoo.games.connect_four`, in
the way the strongest published solvers work:

- the player to move never wins in one move inside the search (that is checked before a move is
  played, so a position's score bounds are known from the number of discs alone and clamp the
  window);
- moves that lose at once are never searched: a move must block an opponent's four, there can be
  only one such block (two threats: the position is lost), and a move is not played under a cell
  that would give the opponent four;
- moves are ordered by the number of fours they threaten, the centre columns first among equals;
- a transposition table of both bounds, the full key (``own + mask + bottom``: one per position)
  and one entry per slot, always replaced;
- an exact solve is a sequence of null-window searches that halve the range of possible scores
  (biased towards the draw, where most positions are), each reusing the table.

An opening book (:mod:`boardzoo.games.connect_four_book`) answers the first moves, where the search
would take longest.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.budget import ABORTED, SHARED, count_node
from boardzoo.games.bits import U0, U1, lowest_bit_index, popcount
from boardzoo.games.connect_four import BOARD, BOTTOM, COLS, HEIGHT, ROWS, ConnectFourState
from boardzoo.games.connect_four_book import shipped_book
from boardzoo.games.connect_four_kernels import has_four

__all__ = [
    "MAX_EMPTIES",
    "NUM_COUNTERS",
    "SCORE_LIMIT",
    "TAKEOVER_EMPTIES",
    "TREE_EMPTIES",
    "book_move",
    "book_scores",
    "new_table",
    "solve",
    "solve_position",
]

CELLS = ROWS * COLS  # 42
SCORE_LIMIT = 22  # beyond any score: the window (-SCORE_LIMIT, SCORE_LIMIT) is exact
# What a solve is allowed by default: positions with 4 discs take about 30 s here, fewer far
# longer; the opening book answers those (boardzoo.games.connect_four_book).
MAX_EMPTIES = 38
# Where searches hand over to the solver (boardzoo.search.handover), measured on the labelled
# set's positions (from games of every strength): at the root, positions with 34 empty cells are
# solved exactly in 0.5 s (median; 30 empty cells 0.04 s), and a solve that cannot finish within
# the move's clock gives the move back to the search: on the labelled positions with 28-35 empty
# cells `az:time_limit=0.1` missed the result in 23 of 432 with the root from 30 and the tree
# from 20, 13 from 34 and 20, 7 from 34 and 22 (both cores busy); inside the tree, 20-22 empty
# cells take a few hundred nodes (90th percentile 0.2 ms at 20), a simulation's cost.
TAKEOVER_EMPTIES = 34
TREE_EMPTIES = 22
NUM_COUNTERS = SHARED  # the budget's slots alone (boardzoo.budget)
CLOCK_MASK = 4095  # the clock is read every 4096 nodes
ETC_MOVES = 34  # up to this many discs: enhanced transposition cut-offs

_BOARD = np.uint64(BOARD)
_BOTTOM = np.uint64(BOTTOM)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S3 = np.uint64(3)
_S32 = np.uint64(32)
_HASH = np.uint64(0x9E3779B97F4A7C15)
_DIRECTIONS = (np.uint64(HEIGHT), np.uint64(HEIGHT - 1), np.uint64(HEIGHT + 1))
# The search's column order: the centre first, then outwards (the centre is in the most lines).
_ORDER = np.array([COLS // 2 + (i + 1) // 2 * (1 if i % 2 else -1) for i in range(COLS)])
_COLUMN = np.array([((1 << ROWS) - 1) << (HEIGHT * c) for c in range(COLS)], dtype=np.uint64)
LOWER, UPPER, MOVE, EMPTIES = 0, 1, 2, 3  # the table's data: bounds, best column, empties


@njit("u8(u8, u8)", cache=True, nogil=True, inline="always")
def winning_cells(discs, mask):
    """The empty cells (playable now or not) that would complete a four of ``discs``."""
    # vertical: three discs right below
    cells = (discs << _S1) & (discs << _S2) & (discs << _S3)
    for shift in _DIRECTIONS:  # horizontal and the two diagonals: the gap at any of 4 places
        s2 = shift + shift
        s3 = s2 + shift
        pair = (discs << shift) & (discs << s2)
        cells |= pair & (discs << s3)
        cells |= pair & (discs >> shift)
        pair = (discs >> shift) & (discs >> s2)
        cells |= pair & (discs << shift)
        cells |= pair & (discs >> s3)
    return cells & (_BOARD ^ mask)


@njit("u8(u8)", cache=True, nogil=True, inline="always")
def playable(mask):
    """The lowest empty cell of every column that is not full."""
    return (mask + _BOTTOM) & _BOARD


@njit("u8(u8, u8)", cache=True, nogil=True, inline="always")
def safe_moves(own, mask):
    """The moves that do not lose at once: the one forced block if the opponent threatens four
    (none if it threatens two), never a cell right under an opponent's four."""
    moves = playable(mask)
    threats = winning_cells(own ^ mask, mask)
    forced = moves & threats
    if forced:
        if forced & (forced - U1):
            return U0  # two threats: lost
        moves = forced
    return moves & ~(threats >> _S1)


@njit("i8(i8)", cache=True, nogil=True, inline="always")
def _half(x):
    """``x / 2`` rounded towards zero."""
    return -((-x) // 2) if x < 0 else x // 2


def new_table(bits: int = 22) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``2**bits`` entries in buckets of two: uint64 keys ``[n, 1]`` (0: empty)
    and int8 data ``[n, 4]`` (lower and upper bound, best column, empties)."""
    return np.zeros((1 << bits, 1), dtype=np.uint64), np.zeros((1 << bits, 4), dtype=np.int8)


@njit("i8(u8, u8[:, ::1])", cache=True, nogil=True, inline="always")
def _find(key, t_keys):
    """The slot of ``key`` in its bucket of two, else the one to replace (an empty one, else
    the one whose position had fewer empties: it cost less to search)."""
    first = np.int64(((key * _HASH) >> _S32) & np.uint64(t_keys.shape[0] - 2))
    if t_keys[first, 0] == key:
        return first
    if t_keys[first + 1, 0] == key:
        return first + 1
    return first


@njit("i8(u8, i8, u8[:, ::1], i1[:, ::1])", cache=True, nogil=True, inline="always")
def _victim(key, first, t_keys, t_data):
    """Where to store ``key`` whose bucket starts at ``first`` (see :func:`_find`)."""
    if t_keys[first, 0] == key or t_keys[first, 0] == U0:
        return first
    if t_keys[first + 1, 0] == key or t_keys[first + 1, 0] == U0:
        return first + 1
    return first if t_data[first, EMPTIES] <= t_data[first + 1, EMPTIES] else first + 1


@njit(
    "void(u8, i8, i8, i8, i8, i8, u8[:, ::1], i1[:, ::1])", cache=True, nogil=True, inline="always"
)
def _store(key, first, empties, lower, upper, column, t_keys, t_data):
    """Keep the bounds ``[lower, upper]`` of position ``key`` and its best column (``-1``: none),
    tightening any bounds it has."""
    slot = _victim(key, first, t_keys, t_data)
    if t_keys[slot, 0] == key:
        lower = max(lower, np.int64(t_data[slot, LOWER]))
        upper = min(upper, np.int64(t_data[slot, UPPER]))
        if column < 0:
            column = np.int64(t_data[slot, MOVE])
    t_keys[slot, 0] = key
    t_data[slot, LOWER] = lower
    t_data[slot, UPPER] = upper
    t_data[slot, MOVE] = column
    t_data[slot, EMPTIES] = empties


@njit("i8(u8, u8, i8, i8, i8, u8[:, ::1], i1[:, ::1], i8[::1], u8[:, ::1])", cache=True, nogil=True)
def negamax(own, mask, moves, alpha, beta, t_keys, t_data, counters, work):
    """The score of a position whose mover cannot win at once, within ``(alpha, beta)``
    (fail-hard: at most ``alpha`` is an upper bound, at least ``beta`` a lower bound);
    meaningless once ``counters[ABORTED]`` is set."""
    if count_node(counters, CLOCK_MASK):
        return np.int64(0)
    candidates = safe_moves(own, mask)
    if candidates == U0:
        return -((CELLS - moves) // 2)  # the opponent wins with its next disc
    if moves >= CELLS - 2:
        return np.int64(0)  # the opponent cannot win with the last disc: a draw
    low = -((CELLS - 2 - moves) // 2)  # the opponent cannot win with its next disc
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (CELLS - 1 - moves) // 2  # the mover cannot win with its next disc
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    key = own + mask + _BOTTOM
    slot = _find(key, t_keys)
    first = slot & ~np.int64(1)
    hash_column = np.int64(-1)
    if t_keys[slot, 0] == key:
        lower, upper = np.int64(t_data[slot, LOWER]), np.int64(t_data[slot, UPPER])
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        alpha = max(alpha, lower)
        beta = min(beta, upper)
        hash_column = np.int64(t_data[slot, MOVE])
    # order: the table's move, then most fours threatened, the centre first among equals
    order = work[moves]  # the moves, then their scores: no allocation a node
    count = 0
    for i in range(COLS):
        move = candidates & _COLUMN[_ORDER[i]]
        if move:
            score = popcount(winning_cells(own | move, mask))
            if _ORDER[i] == hash_column:
                score = np.uint64(64)
            j = count
            while j > 0 and order[COLS + j - 1] < score:
                order[j] = order[j - 1]
                order[COLS + j] = order[COLS + j - 1]
                j -= 1
            order[j] = move
            order[COLS + j] = score
            count += 1
    if moves <= ETC_MOVES:  # enhanced transposition cut-offs: a child the table refutes
        for i in range(count):
            child_mask = mask | order[i]
            child_key = (own ^ mask) + child_mask + _BOTTOM
            child = _find(child_key, t_keys)
            if t_keys[child, 0] == child_key and -np.int64(t_data[child, UPPER]) >= beta:
                return -np.int64(t_data[child, UPPER])
    alpha0 = alpha
    best_column = np.int64(-1)
    for i in range(count):
        value = -negamax(own ^ mask, mask | order[i], moves + 1, -beta, -alpha, t_keys, t_data,
                         counters, work)  # fmt: skip
        if counters[ABORTED]:
            return np.int64(0)
        if value >= beta:
            column = lowest_bit_index(order[i]) // HEIGHT
            _store(key, first, CELLS - moves, value, SCORE_LIMIT, column, t_keys, t_data)
            return value
        if value > alpha:
            alpha = value
            best_column = lowest_bit_index(order[i]) // HEIGHT
    if alpha > alpha0:
        _store(key, first, CELLS - moves, alpha, alpha, best_column, t_keys, t_data)
    else:
        _store(key, first, CELLS - moves, -SCORE_LIMIT, alpha, -1, t_keys, t_data)
    return alpha


@njit(
    "Tuple((i8, i8))(u8, u8, i8, i8, i8, u8[:, ::1], i1[:, ::1], i8[::1], u8[:, ::1])",
    cache=True,
    nogil=True,
)
def _root(own, mask, moves, alpha, beta, t_keys, t_data, counters, work):
    """The score within ``(alpha, beta)`` of a position whose mover cannot win at once and has
    a safe move, and the cell of a move that reaches it (one that proves a score of at least
    ``beta`` when it fails high)."""
    candidates = safe_moves(own, mask)
    best, best_cell = np.int64(-SCORE_LIMIT - 1), np.int64(-1)
    for i in range(COLS):
        move = candidates & _COLUMN[_ORDER[i]]
        if move == U0:
            continue
        value = -negamax(own ^ mask, mask | move, moves + 1, -beta, -alpha, t_keys, t_data,
                         counters, work)  # fmt: skip
        if counters[ABORTED]:
            break
        if value > best:
            best, best_cell = value, lowest_bit_index(move)
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best, best_cell


@njit(
    "Tuple((i8, i8))(u8, u8, i8, i8, u8[:, ::1], i1[:, ::1], i8[::1])",
    cache=True,
    nogil=True,
)
def solve_position(own, mask, alpha, beta, t_keys, t_data, counters):
    """The score of the position (``own``: the mover's discs, ``mask``: all discs) within
    ``(alpha, beta)``, and a best cell (``-1``: the game is over).

    The window ``(-SCORE_LIMIT, SCORE_LIMIT)`` gives the exact score, found by null-window
    searches; a narrower one a bound outside it (``(-1, 1)``: win, draw or loss)."""
    moves = np.int64(popcount(mask))
    opponent = own ^ mask
    if has_four(opponent):
        return (moves + 1) // 2 - 22, np.int64(-1)  # the last move won
    if mask == _BOARD:
        return np.int64(0), np.int64(-1)
    wins = playable(mask) & winning_cells(own, mask)
    if wins:
        return (CELLS + 1 - moves) // 2, lowest_bit_index(wins)
    if safe_moves(own, mask) == U0:
        return -((CELLS - moves) // 2), lowest_bit_index(playable(mask))
    if alpha > -SCORE_LIMIT or beta < SCORE_LIMIT:
        work = np.zeros((CELLS + 1, 2 * COLS), dtype=np.uint64)
        return _root(own, mask, moves, alpha, beta, t_keys, t_data, counters, work)
    work = np.zeros((CELLS + 1, 2 * COLS), dtype=np.uint64)  # negamax's move lists
    low = -((CELLS - moves) // 2)
    high = (CELLS + 1 - moves) // 2
    best_cell = np.int64(-1)
    while low < high and not counters[ABORTED]:
        middle = low + (high - low) // 2  # halve the range, towards the draw
        if middle <= 0 and _half(low) < middle:
            middle = _half(low)
        elif middle >= 0 and _half(high) > middle:
            middle = _half(high)
        value, cell = _root(own, mask, moves, middle, middle + 1, t_keys, t_data, counters, work)
        if value <= middle:
            high = value
        else:
            low, best_cell = value, cell
    if best_cell < 0 and not counters[ABORTED]:  # never failed high: a move that reaches low
        _, best_cell = _root(own, mask, moves, low - 1, low, t_keys, t_data, counters, work)
    return low, best_cell


@njit(
    "Tuple((i8, i8))(u8, u8, i8, u8[::1], i8, i8, u8[:, ::1], i1[:, ::1], i8[::1])",
    cache=True,
    nogil=True,
)
def solve(s0, s1, player, params, alpha, beta, t_keys, t_data, counters):
    """:func:`solve_position` for the game contract's arguments (red's and yellow's discs, the
    player to move, the kernels' ``params``): the game's exact solver, as
    :attr:`boardzoo.games.spec.GameSpec.solver` names it."""
    own = s0 if player == 0 else s1
    return solve_position(own, s0 | s1, alpha, beta, t_keys, t_data, counters)


def book_scores(state: ConnectFourState) -> tuple[int, dict[int, int]] | None:
    """The opening book's answer for ``state`` (:mod:`boardzoo.games.connect_four_book`): its
    exact score and every move's (``{}`` when its children are beyond the book), ``None`` when
    the position is not in the book or no book is shipped. The solver's optional ``book_scores``
    (:func:`boardzoo.search.solver.solve` asks it first)."""
    book = shipped_book()
    score = None if book is None else book.score(state)
    if book is None or score is None:
        return None
    return score, book.move_scores(state) or {}


def book_move(state: ConnectFourState) -> int | None:
    """A move (a column) that keeps ``state``'s book score, where the shipped book holds one
    for a position whose children are beyond it (its positions with the most discs); ``None``
    otherwise. The solver's optional ``book_move`` (:func:`boardzoo.search.solver.solve` asks it
    when :func:`book_scores` has no move's score)."""
    book = shipped_book()
    return None if book is None else book.best_move(state)
