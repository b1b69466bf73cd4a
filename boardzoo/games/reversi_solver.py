"""Reversi's exact endgame solver, compiled: the final disc difference with perfect play.

Scores are as Othello counts them (and the FFO positions, Edax and Zebra report them): the final
disc difference, the empty squares of a game that ends before the board is full going to the
winner. The search is negamax with alpha-beta over the position seen from the side to move
(``own``, ``opp``), in the way of the strong endgame programs (Edax, Zebra):

- many empties (more than :data:`SHALLOW_EMPTIES`): principal-variation search (null windows
  after the first move), moves ordered by the table's move, then fastest first: the opponent's
  mobility after the move, its corner moves above all, a corner taken, and the opponent's
  potential mobility (weights tuned on FFO #41-#47 by the nodes searched); a stability cut-off
  (:mod:`boardzoo.games.reversi_stability`: the opponent's stable discs bound the score);
- from :data:`TABLE_EMPTIES` empties a transposition table: buckets of two entries in one cache
  line (both bitboards as the key, lower and upper bounds, the best move), the entry solved
  from fewer empties replaced; below that a probe (a cache miss) costs more than it saves;
- from :data:`ETC_EMPTIES` empties, enhanced transposition cutoffs (a child the table refutes);
- few empties (:mod:`boardzoo.games.reversi_last`): no table, no move generation, loops over
  the empty squares, odd regions first (parity), hand-written code for the last three, the
  last move counting flips only.

An exact solve is a win/draw/loss solve (the window ``(-1, 1)``) and then null-window searches
stepping from its bound to the score (MTD(f)), each reusing what the table learnt: on FFO #41 a
third of the nodes of one full-window search. Boards of 4x4 and 6x6 use the same 8x8 layout
(``valid`` masks the squares that exist), as :mod:`boardzoo.games.reversi_kernels` does.
Every position visited counts one node, the last empties' ones included, as Edax counts them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.budget import ABORTED, BUDGET, DEADLINE, NODES, SHARED, past_deadline
from boardzoo.games.bits import U0, U1, lowest_bit_index, popcount
from boardzoo.games.reversi_kernels import legal_moves
from boardzoo.games.reversi_last import final_score, flips, solve_few
from boardzoo.games.reversi_stability import stability_cut

__all__ = [
    "ABORTED",
    "BUDGET",
    "DEADLINE",
    "MAX_EMPTIES",
    "NODES",
    "NUM_COUNTERS",
    "SCORE_LIMIT",
    "SHALLOW_EMPTIES",
    "TAKEOVER_EMPTIES",
    "TREE_EMPTIES",
    "new_table",
    "solve",
    "solve_position",
]

SHALLOW_EMPTIES = 6  # at most this many empties: reversi_last's search
ETC_EMPTIES = 12  # from this many empties: enhanced transposition cutoffs
TABLE_EMPTIES = 8  # from this many empties: the transposition table
MAX_PLY = 136  # passes included, longer than any game
# counters[...]: the budget's slots (boardzoo.budget), then the node count at which the budget and
# the clock are next looked at (every CLOCK_EVERY nodes: one comparison a node).
CHECK_AT = SHARED
NUM_COUNTERS = SHARED + 1
CLOCK_EVERY = 4096  # nodes (about half a millisecond) between two readings of the clock
SCORE_BOUND = 65  # beyond any score
NO_PASS, PASSED = 0, 1  # whether the move before was a pass (an int: numba caches recursion so)


# The table: one entry per row of ``t_keys`` (four words, 32 bytes; two rows, a bucket, fill one
# cache line, so a probe reads one line): the bitboards themselves as the key, then a word
# packing the lower and upper bounds (plus 128), the best move and the empties (plus 1; 0: no
# entry), a byte each; the fourth word is padding.
T_OWN, T_OPP, T_PACKED = 0, 1, 2
_B8, _B16, _B24, _BYTE = np.uint64(8), np.uint64(16), np.uint64(24), np.uint64(0xFF)
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


def new_table(bits: int = 21) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table of ``2**bits`` entries: ``(keys, data)``, the entries all in
    ``keys`` (its rows start on a cache line), ``data`` unused (the solver contract has it).
    Its memory is written here, so a solve on a clock does not pay for the first touches."""
    raw = np.empty(((1 << bits) + 2) * 4, dtype=np.uint64)
    raw.fill(0)
    start = (-raw.ctypes.data % 64) // 8
    keys = raw[start : start + (1 << bits) * 4].reshape(1 << bits, 4)
    return keys, np.zeros((1, 4), dtype=np.int8)


@njit("u8(u8, u8, i8, u8[:, ::1])", cache=True, nogil=True, inline="always")
def _entry(own, opp, slot, t_keys):
    """The packed word of the table's entry for a position (0: none), in the bucket of two
    from ``slot``."""
    if t_keys[slot, T_OWN] == own and t_keys[slot, T_OPP] == opp:
        return t_keys[slot, T_PACKED]
    if t_keys[slot + 1, T_OWN] == own and t_keys[slot + 1, T_OPP] == opp:
        return t_keys[slot + 1, T_PACKED]
    return U0


@njit("i8(u8)", cache=True, nogil=True, inline="always")
def _upper(word):
    """The upper bound of a packed entry."""
    return np.int64((word >> _B8) & _BYTE) - 128


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
    """The first slot of a position's bucket in the table (two slots, one cache line)."""
    h = own * _HASH_OWN ^ opp * _HASH_OPP
    h ^= h >> _S29
    return np.int64(h & np.uint64(t_keys.shape[0] - 2))


@njit(cache=True, nogil=True)
def _order(own, opp, moves, valid, hash_move, ply, squares_at, keys_at, bits_at):
    """Sort ``moves`` into row ``ply`` of the scratch arrays, best first: the table's move,
    then fastest first. Each move's flips and the opponent's replies after it go into
    ``bits_at`` for the search. Returns the count."""
    count = 0
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
            key = (
                W_MOBILITY * np.int64(popcount(replies))
                + W_CORNER * np.int64(popcount(replies & CORNERS))
                + W_POTENTIAL * _potential(child_own, child_opp)
            )
            if bit & CORNERS:
                key -= W_TAKE_CORNER
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


@njit("UniTuple(i8, 3)(u8, u8, i8, u8[:, ::1])", cache=True, nogil=True)
def _probe(own, opp, slot, t_keys):
    """What the table knows of a position: a lower and an upper bound of its score and its
    best move (no entry: no bounds, ``-1``)."""
    word = _entry(own, opp, slot, t_keys)
    if word == U0:
        return np.int64(-SCORE_BOUND), np.int64(SCORE_BOUND), np.int64(-1)
    lower = np.int64(word & _BYTE) - 128
    return lower, _upper(word), np.int64((word >> _B16) & _BYTE) - 1


@njit("void(u8, u8, i8, i8, i8, i8, i8, i8, u8[:, ::1])", cache=True, nogil=True)
def _store(own, opp, slot, empties, alpha, beta, best, move, t_keys):
    """Record what a search of the window ``(alpha, beta)`` found (``best``, ``move``) in the
    position's bucket: over its old entry, else over the one solved from fewer empties."""
    same = False
    for i in range(2):
        if t_keys[slot + i, T_OWN] == own and t_keys[slot + i, T_OPP] == opp:
            same = t_keys[slot + i, T_PACKED] != U0
            slot += i
            break
    else:
        if t_keys[slot + 1, T_PACKED] >> _B24 < t_keys[slot, T_PACKED] >> _B24:
            slot += 1
    word = t_keys[slot, T_PACKED]
    lower, upper = -SCORE_BOUND + 1, SCORE_BOUND - 1
    if same:
        lower, upper = np.int64(word & _BYTE) - 128, _upper(word)
    if best <= alpha:
        upper = min(best, upper)
    elif best >= beta:
        lower = max(best, lower)
    else:
        lower = upper = best
    t_keys[slot, T_OWN] = own
    t_keys[slot, T_OPP] = opp
    t_keys[slot, T_PACKED] = (
        np.uint64(lower + 128)
        | (np.uint64(upper + 128) << _B8)
        | (np.uint64(move + 1) << _B16)
        | (np.uint64(empties + 1) << _B24)
    )


_SEARCH_SIGNATURE = (
    "i8(u8, u8, u8, u8, i8, i8, i8, i8, i8[:, ::1], i8[:, ::1], u8[:, :, ::1], u8[:, ::1], "
    "i1[:, ::1], i8[::1])"
)


@njit("b1(i8[::1])", cache=True, nogil=True)
def _out_of_time(counters):
    """Whether the solve is past its node budget or its deadline (then ``counters[ABORTED]``
    is set); else the next look is :data:`CLOCK_EVERY` nodes on, or at the budget."""
    if counters[NODES] > counters[BUDGET] or past_deadline(counters):
        counters[ABORTED] = 1
        return True
    counters[CHECK_AT] = min(counters[BUDGET], counters[NODES] + CLOCK_EVERY)
    return False


@njit(_SEARCH_SIGNATURE, cache=True, nogil=True)
def _search(
    own, opp, moves, valid, alpha, beta, passed, ply, squares_at, keys_at, bits_at, t_keys,
    t_data, counters,
):  # fmt: skip
    """Negamax with the table above :data:`SHALLOW_EMPTIES` empties, parity below; ``moves``
    are ``own``'s legal moves (the parent computed them to order its moves)."""
    empty = valid & ~(own | opp)
    empties = np.int64(popcount(empty))
    if empties <= SHALLOW_EMPTIES:
        return solve_few(own, opp, valid, empty, alpha, beta, passed, counters)
    counters[NODES] += 1
    if moves == U0:
        replies = legal_moves(opp, own, valid)
        if passed or replies == U0:
            return final_score(own, opp, valid)
        return -_search(
            opp, own, replies, valid, -beta, -alpha, np.int64(PASSED), ply + 1, squares_at,
            keys_at, bits_at, t_keys, t_data, counters,
        )  # fmt: skip
    if counters[NODES] > counters[CHECK_AT] and _out_of_time(counters):
        return np.int64(0)  # given up: every caller returns at once, storing nothing
    bound = stability_cut(own, opp, valid, empties, alpha)  # the opponent's stable discs
    if bound <= alpha:
        return bound
    original_alpha = alpha
    slot = _slot(own, opp, t_keys)
    hash_move = np.int64(-1)
    if empties >= TABLE_EMPTIES:
        lower, upper, hash_move = _probe(own, opp, slot, t_keys)
        if lower >= beta:
            return lower
        if upper <= alpha or lower == upper:
            return upper
        alpha = max(alpha, lower)
        beta = min(beta, upper)
    count = _order(own, opp, moves, valid, hash_move, ply, squares_at, keys_at, bits_at)
    if empties >= ETC_EMPTIES:  # enhanced transposition cutoff: a child the table refutes
        for i in range(count):
            flipped = bits_at[ply, i, 0]
            child_own = opp & ~flipped
            child_opp = own | flipped | (U1 << np.uint64(squares_at[ply, i]))
            child = _slot(child_own, child_opp, t_keys)
            word = _entry(child_own, child_opp, child, t_keys)
            if word != U0 and -_upper(word) >= beta:
                return -_upper(word)
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
    if empties >= TABLE_EMPTIES:
        _store(own, opp, slot, empties, original_alpha, beta, best, best_move, t_keys)
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
    a lower bound; inside the window it is exact. ``t_keys`` is a table of :func:`new_table`.
    """
    if t_keys.shape[0] < 2 or t_keys.shape[1] != 4:
        raise ValueError("the solver's table must come from new_table")
    counters[CHECK_AT] = counters[NODES]  # the budget and the clock are looked at first
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
    count = _order(own, opp, moves, valid, np.int64(-1), np.int64(0), squares_at, keys_at, bits_at)
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
# What a solve is allowed by default: FFO #49 (26 empties) takes about 5 minutes here.
MAX_EMPTIES = 30
# Where searches hand over to the solver (boardzoo.search.handover). At the root: positions of
# real games with 20 empties are solved win/draw/loss in 0.08 s (median; 90th percentile 0.23 s)
# and exactly in 0.4 s (1.0 s), so a 1 s move solves them
# (benchmarks/bench_solve_reach.py). Inside the tree: 12 empties, a few hundred microseconds a
# solve.
TAKEOVER_EMPTIES = 20
TREE_EMPTIES = 12


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
