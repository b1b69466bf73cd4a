"""Reversi's exact endgame solver, compiled: the final disc difference with perfect play.

Scores are as Othello counts them (and the FFO positions, Edax and Zebra report them): the final
disc difference, the empty squares of a game that ends before the board is full going to the
winner. The search is negamax with alpha-beta over the position seen from the side to move
(``own``, ``opp``), in the way of the strong endgame programs (Edax, Zebra):

- many empties (more than :data:`SHALLOW_EMPTIES`): a transposition table (both bitboards as the
  key, lower and upper bounds, the best move, replaced by depth), enhanced transposition cutoffs
  (a child the table already refutes) from :data:`ETC_EMPTIES` empties, principal-variation
  search (null windows after the first move), moves ordered by the table's move, then fastest
  first: the opponent's mobility after the move, its corner moves above all, a corner taken, and
  the opponent's potential mobility (weights tuned on FFO #41-#47 by the nodes searched);
- few empties (down to 5): no table; moves in the odd regions of the board first (parity: the
  quadrants with an odd number of empties), then fastest first;
- the last four empties: loops over the empty squares themselves (no move generation), odd
  regions first, the last one counting flips only.

An exact solve is a win/draw/loss solve (the window ``(-1, 1)``) and then null-window searches
stepping from its bound to the score (MTD(f)), each reusing what the table learnt: on FFO #41 a
third of the nodes of one full-window search. Boards of 4x4 and 6x6 use the same 8x8 layout
(``valid`` masks the squares that exist), as :mod:`boardzoo.games.reversi_kernels` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, lowest_bit_index, popcount
from boardzoo.games.reversi_kernels import flips, legal_moves

__all__ = [
    "ABORTED",
    "BUDGET",
    "MAX_EMPTIES",
    "NODES",
    "NUM_COUNTERS",
    "SCORE_LIMIT",
    "SHALLOW_EMPTIES",
    "new_table",
    "solve",
    "solve_position",
]

SHALLOW_EMPTIES = 6  # at most this many empties: no table, parity ordering
ETC_EMPTIES = 12  # from this many empties: enhanced transposition cutoffs
LAST_EMPTIES = 4  # at most this many: loops over the empty squares
MAX_PLY = 136  # passes included, longer than any game
NODES, BUDGET, ABORTED = 0, 1, 2  # counters[...]: nodes, node budget, gave up at the budget
NUM_COUNTERS = 3
SCORE_BOUND = 65  # beyond any score
NO_PASS, PASSED = 0, 1  # whether the move before was a pass (an int: numba caches recursion so)

# The table: one entry per slot, the bitboards themselves as the key.
T_OWN, T_OPP = 0, 1  # uint64 keys
T_LOWER, T_UPPER, T_MOVE, T_EMPTIES = 0, 1, 2, 3  # int8 data
_HASH_OWN = np.uint64(0x9E3779B97F4A7C15)
_HASH_OPP = np.uint64(0xC2B2AE3D27D4EB4F)
_S29 = np.uint64(29)
_S32 = np.uint64(32)

# Fastest first: the opponent's moves weigh most, corners taken help, potential mobility least.
CORNERS = np.uint64(0x8100000000000081)
W_MOBILITY = 16
W_CORNER = 60
W_POTENTIAL = 1
W_TAKE_CORNER = 15

# The four quadrants of the 8x8 layout, for parity.
QUADRANTS = np.array(
    [0x000000000F0F0F0F, 0x00000000F0F0F0F0, 0x0F0F0F0F00000000, 0xF0F0F0F000000000],
    dtype=np.uint64,
)


def _neighbours() -> np.ndarray:
    """For each square of the 8x8 layout, the squares around it."""
    table = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        row, col = divmod(square, 8)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = row + dr, col + dc
                if (dr or dc) and 0 <= r < 8 and 0 <= c < 8:
                    table[square] |= np.uint64(1 << (r * 8 + c))
    return table


NEIGHBOURS = _neighbours()


def new_table(bits: int = 21) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table of ``2**bits`` entries: ``(keys, data)``."""
    keys = np.zeros((1 << bits, 2), dtype=np.uint64)
    data = np.zeros((1 << bits, 4), dtype=np.int8)
    data[:, T_EMPTIES] = -1  # no entry
    return keys, data


@njit("i8(u8, u8, u8)", cache=True, nogil=True, inline="always")
def final_score(own, opp, valid):
    """The disc difference of a finished game, the empty squares going to the winner."""
    mine = np.int64(popcount(own))
    theirs = np.int64(popcount(opp))
    empties = np.int64(popcount(valid & ~(own | opp)))
    if mine > theirs:
        return mine - theirs + empties
    if mine < theirs:
        return mine - theirs - empties
    return np.int64(0)


@njit("i8(u8, u8, u8, i8)", cache=True, nogil=True)
def _last_one(own, opp, valid, square):
    """The score with one empty square left, ``square``."""
    bit = U1 << np.uint64(square)
    flipped = flips(own, opp, square) if NEIGHBOURS[square] & opp else U0
    if flipped:
        return final_score(own | flipped | bit, opp & ~flipped, valid)
    flipped = flips(opp, own, square) if NEIGHBOURS[square] & own else U0
    if flipped:
        return final_score(own & ~flipped, opp | flipped | bit, valid)
    return final_score(own, opp, valid)


@njit("i8(u8, u8, u8, u8, i8, i8, i8, i8[::1])", cache=True, nogil=True)
def _search_last(own, opp, valid, empty, alpha, beta, passed, counters):
    """Negamax over the few ``empty`` squares left, trying each square in turn."""
    counters[NODES] += 1
    if empty == U0:
        return final_score(own, opp, valid)
    if (empty & (empty - U1)) == U0:
        return _last_one(own, opp, valid, lowest_bit_index(empty))
    best = -SCORE_BOUND
    odd = U0  # parity: the squares of regions with an odd number of empties first
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & U1:
            odd |= QUADRANTS[q]
    squares = empty & odd
    later = empty & ~odd
    while squares or later:
        if squares == U0:
            squares, later = later, U0
        square = lowest_bit_index(squares)
        squares &= squares - U1
        if NEIGHBOURS[square] & opp == U0:
            continue  # no opponent disc next to it: nothing to flip
        flipped = flips(own, opp, square)
        if flipped == U0:
            continue
        bit = U1 << np.uint64(square)
        score = -_search_last(
            opp & ~flipped,
            own | flipped | bit,
            valid,
            empty & ~bit,
            -beta,
            -alpha,
            np.int64(NO_PASS),
            counters,
        )
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    return best
    if best == -SCORE_BOUND:  # no move: pass, or the game is over
        if passed:
            return final_score(own, opp, valid)
        return -_search_last(opp, own, valid, empty, -beta, -alpha, np.int64(PASSED), counters)
    return best


@njit("i8(u8, u8)", cache=True, nogil=True, inline="always")
def _potential(own, opp):
    """Empty squares next to ``opp``'s discs: where ``own`` may one day move."""
    empty = ~(own | opp)
    around = (
        ((opp << np.uint64(1)) & np.uint64(0xFEFEFEFEFEFEFEFE))
        | ((opp >> np.uint64(1)) & np.uint64(0x7F7F7F7F7F7F7F7F))
        | (opp << np.uint64(8))
        | (opp >> np.uint64(8))
    )
    return np.int64(popcount(around & empty))


@njit("i8(u8, u8, u8[:, ::1])", cache=True, nogil=True, inline="always")
def _slot(own, opp, t_keys):
    """The table slot of a position."""
    h = own * _HASH_OWN ^ opp * _HASH_OPP
    h ^= h >> _S29
    return np.int64(h & np.uint64(t_keys.shape[0] - 1))


@njit(cache=True, nogil=True)
def _order(own, opp, moves, valid, empty, deep, hash_move, ply, squares_at, keys_at, bits_at):
    """Sort ``moves`` into row ``ply`` of the scratch arrays, best first: the table's move,
    then (few empties) the odd regions, then fastest first. Each move's flips and the
    opponent's replies after it go into ``bits_at`` for the search. Returns the count."""
    count = 0
    odd = U0
    if not deep:
        for q in range(4):
            if popcount(empty & QUADRANTS[q]) & U1:
                odd |= QUADRANTS[q]
    bits = moves
    while bits:
        square = lowest_bit_index(bits)
        bits &= bits - U1
        bit = U1 << np.uint64(square)
        flipped = flips(own, opp, square)
        child_own = opp & ~flipped
        child_opp = own | flipped | bit
        replies = legal_moves(child_own, child_opp, valid)
        if square == hash_move:
            key = np.int64(-(1 << 30))
        else:
            key = W_MOBILITY * np.int64(popcount(replies)) + W_CORNER * np.int64(
                popcount(replies & CORNERS)
            )
            if deep:
                key += W_POTENTIAL * _potential(child_own, child_opp)
                if bit & CORNERS:
                    key -= W_TAKE_CORNER
            elif bit & odd:
                key -= 1 << 20
        i = count
        while i > 0 and keys_at[ply, i - 1] > key:
            keys_at[ply, i] = keys_at[ply, i - 1]
            squares_at[ply, i] = squares_at[ply, i - 1]
            bits_at[ply, i, 0] = bits_at[ply, i - 1, 0]
            bits_at[ply, i, 1] = bits_at[ply, i - 1, 1]
            i -= 1
        keys_at[ply, i] = key
        squares_at[ply, i] = square
        bits_at[ply, i, 0] = flipped
        bits_at[ply, i, 1] = replies
        count += 1
    return count


_SEARCH_SIGNATURE = (
    "i8(u8, u8, u8, u8, i8, i8, i8, i8, i8[:, ::1], i8[:, ::1], u8[:, :, ::1], u8[:, ::1], "
    "i1[:, ::1], i8[::1])"
)


@njit(_SEARCH_SIGNATURE, cache=True, nogil=True)
def _search(
    own, opp, moves, valid, alpha, beta, passed, ply, squares_at, keys_at, bits_at, t_keys,
    t_data, counters,
):  # fmt: skip
    """Negamax with the table above :data:`SHALLOW_EMPTIES` empties, parity below; ``moves``
    are ``own``'s legal moves (the parent computed them to order its moves)."""
    empty = valid & ~(own | opp)
    empties = np.int64(popcount(empty))
    if empties <= LAST_EMPTIES:
        return _search_last(own, opp, valid, empty, alpha, beta, passed, counters)
    counters[NODES] += 1
    if moves == U0:
        replies = legal_moves(opp, own, valid)
        if passed or replies == U0:
            return final_score(own, opp, valid)
        return -_search(
            opp, own, replies, valid, -beta, -alpha, np.int64(PASSED), ply + 1, squares_at,
            keys_at, bits_at, t_keys, t_data, counters,
        )  # fmt: skip
    deep = empties > SHALLOW_EMPTIES
    if deep and counters[NODES] > counters[BUDGET]:
        counters[ABORTED] = 1  # given up: every caller returns at once, storing nothing
        return np.int64(0)
    slot = 0
    hash_move = -1
    original_alpha = alpha
    if deep:
        slot = _slot(own, opp, t_keys)
        if t_keys[slot, T_OWN] == own and t_keys[slot, T_OPP] == opp and t_data[slot, 3] >= 0:
            lower = np.int64(t_data[slot, T_LOWER])
            upper = np.int64(t_data[slot, T_UPPER])
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower == upper:
                return lower
            alpha = max(alpha, lower)
            beta = min(beta, upper)
            hash_move = np.int64(t_data[slot, T_MOVE])
    count = _order(
        own, opp, moves, valid, empty, deep, hash_move, ply, squares_at, keys_at, bits_at
    )
    if empties >= ETC_EMPTIES:  # enhanced transposition cutoff: a child the table refutes
        for i in range(count):
            flipped = bits_at[ply, i, 0]
            child_own = opp & ~flipped
            child_opp = own | flipped | (U1 << np.uint64(squares_at[ply, i]))
            child = _slot(child_own, child_opp, t_keys)
            if (
                t_keys[child, T_OWN] == child_own
                and t_keys[child, T_OPP] == child_opp
                and t_data[child, T_EMPTIES] >= 0
                and -np.int64(t_data[child, T_UPPER]) >= beta
            ):
                return -np.int64(t_data[child, T_UPPER])
    best = -SCORE_BOUND
    best_move = -1
    for i in range(count):
        square = squares_at[ply, i]
        flipped = bits_at[ply, i, 0]
        child_own = opp & ~flipped
        child_opp = own | flipped | (U1 << np.uint64(square))
        child_moves = bits_at[ply, i, 1]
        if i == 0:
            score = -_search(
                child_own, child_opp, child_moves, valid, -beta, -alpha, np.int64(NO_PASS),
                ply + 1, squares_at, keys_at, bits_at, t_keys, t_data, counters,
            )  # fmt: skip
        else:  # a null window first: is the move better than the best so far?
            score = -_search(
                child_own, child_opp, child_moves, valid, -alpha - 1, -alpha, np.int64(NO_PASS),
                ply + 1, squares_at, keys_at, bits_at, t_keys, t_data, counters,
            )  # fmt: skip
            if alpha < score < beta:
                score = -_search(
                    child_own, child_opp, child_moves, valid, -beta, -score, np.int64(NO_PASS),
                    ply + 1, squares_at, keys_at, bits_at, t_keys, t_data, counters,
                )  # fmt: skip
        if counters[ABORTED]:
            return np.int64(0)
        if score > best:
            best = score
            best_move = square
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    if deep:  # store, unless another position solved from more empties holds the slot
        same = t_keys[slot, T_OWN] == own and t_keys[slot, T_OPP] == opp
        if same or t_data[slot, T_EMPTIES] <= empties:
            if not same:
                t_data[slot, T_LOWER] = -SCORE_BOUND + 1
                t_data[slot, T_UPPER] = SCORE_BOUND - 1
            t_keys[slot, T_OWN] = own
            t_keys[slot, T_OPP] = opp
            if best <= original_alpha:
                t_data[slot, T_UPPER] = min(best, np.int64(t_data[slot, T_UPPER]))
            elif best >= beta:
                t_data[slot, T_LOWER] = max(best, np.int64(t_data[slot, T_LOWER]))
            else:
                t_data[slot, T_LOWER] = best
                t_data[slot, T_UPPER] = best
            t_data[slot, T_MOVE] = best_move
            t_data[slot, T_EMPTIES] = empties
    return best


@njit(
    "Tuple((i8, i8))(u8, u8, u8, i8, i8, u8[:, ::1], i1[:, ::1], i8[::1])",
    cache=True,
    nogil=True,
)
def solve_position(own, opp, valid, alpha, beta, t_keys, t_data, counters):
    """The score of the side to move within ``(alpha, beta)`` and a best move (``-1``: it
    must pass, or the game is over).

    A score at or below ``alpha`` is an upper bound of the true score, one at or above ``beta``
    a lower bound; inside the window it is exact.
    """
    squares_at = np.zeros((MAX_PLY, 64), dtype=np.int64)
    keys_at = np.zeros((MAX_PLY, 64), dtype=np.int64)
    bits_at = np.zeros((MAX_PLY, 64, 2), dtype=np.uint64)
    moves = legal_moves(own, opp, valid)
    if moves == U0:
        score = _search(
            own, opp, moves, valid, alpha, beta, np.int64(NO_PASS), np.int64(0), squares_at,
            keys_at, bits_at, t_keys, t_data, counters,
        )  # fmt: skip
        return score, np.int64(-1)
    count = _order(
        own, opp, moves, valid, valid & ~(own | opp), True, np.int64(-1), np.int64(0),
        squares_at, keys_at, bits_at,
    )  # fmt: skip
    roots = squares_at[0, :count].copy()
    root_bits = bits_at[0, :count].copy()
    best = -SCORE_BOUND
    best_move = np.int64(-1)
    for i in range(count):
        flipped = root_bits[i, 0]
        child_own = opp & ~flipped
        child_opp = own | flipped | (U1 << np.uint64(roots[i]))
        child_moves = root_bits[i, 1]
        if i == 0:
            score = -_search(
                child_own, child_opp, child_moves, valid, -beta, -alpha, np.int64(NO_PASS),
                np.int64(1), squares_at, keys_at, bits_at, t_keys, t_data, counters,
            )  # fmt: skip
        else:
            score = -_search(
                child_own, child_opp, child_moves, valid, -alpha - 1, -alpha, np.int64(NO_PASS),
                np.int64(1), squares_at, keys_at, bits_at, t_keys, t_data, counters,
            )  # fmt: skip
            if alpha < score < beta:
                score = -_search(
                    child_own, child_opp, child_moves, valid, -beta, -score, np.int64(NO_PASS),
                    np.int64(1), squares_at, keys_at, bits_at, t_keys, t_data, counters,
                )  # fmt: skip
        if counters[ABORTED]:
            break
        if score > best:
            best = score
            best_move = roots[i]
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best, best_move


SCORE_LIMIT = 64  # no score is beyond it: the window (-SCORE_LIMIT, SCORE_LIMIT) is exact
# What a solve is allowed by default: FFO #49 (26 empties) takes about 6 minutes here.
MAX_EMPTIES = 30


@njit(
    "Tuple((i8, i8))(u8, u8, i8, u8[::1], i8, i8, u8[:, ::1], i1[:, ::1], i8[::1])",
    cache=True,
    nogil=True,
)
def solve(s0, s1, player, params, alpha, beta, t_keys, t_data, counters):
    """:func:`solve_position` for the game contract's arguments (player 0's and player 1's
    bitboards, the player to move, the kernels' ``params``): the game's exact solver, as
    :attr:`boardzoo.games.spec.GameSpec.solver` names it.

    An exact solve (the window ``(-SCORE_LIMIT, SCORE_LIMIT)``) is a win/draw/loss solve first,
    then null-window searches stepping from its bound to the score (MTD(f)): each search reuses
    the table the previous ones filled, so the tree is far smaller than one full-window search.
    """
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    valid = params[0]
    if alpha > -SCORE_LIMIT or beta < SCORE_LIMIT:
        return solve_position(own, opp, valid, alpha, beta, t_keys, t_data, counters)
    guess, move = solve_position(own, opp, valid, -1, 1, t_keys, t_data, counters)
    if guess == 0:
        return guess, move  # a draw, exactly
    low, high = -SCORE_LIMIT, SCORE_LIMIT
    best_move = np.int64(-1)
    if guess > 0:
        low, best_move = guess, move
    else:
        high = guess
    while low < high and not counters[ABORTED]:
        bound = guess + 1 if guess == low else guess
        guess, move = solve_position(own, opp, valid, bound - 1, bound, t_keys, t_data, counters)
        if guess < bound:
            high = guess
        else:
            low, best_move = guess, move
    if (
        best_move < 0 and not counters[ABORTED]
    ):  # every search failed low: find a move that reaches the score
        _, best_move = solve_position(own, opp, valid, low - 1, low, t_keys, t_data, counters)
    return low, best_move
