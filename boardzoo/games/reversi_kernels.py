"""Compiled Reversi kernels on 64-bit bitboards.

Layout: bit ``row * 8 + col`` is the square on ``row`` (0 is the top row, rank 1) and ``col``
(0 is file a). Boards of size 4 and 6 use the top-left corner of the same 8x8 layout, so one set
of kernels serves every size: ``valid`` masks the squares that exist. Bits outside ``valid`` are
never set, which is also what stops a smaller board from wrapping around.

All kernels see the position from the side to move: ``own`` are its discs, ``opp`` the
opponent's. They are pure functions of their arguments (no globals are written), compiled with
``cache=True, nogil=True`` so threads can run them in parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.games.bits import U0, U1, next_rng, popcount, random_set_bit, rng_output

# Discs that may be flipped by a horizontal or diagonal run are never on file a or file h
# (a bracketed run has a disc on both sides), so masking the opponent with the inner files
# stops the shifts from wrapping from file h to file a of the next row and back.
INNER_FILES = np.uint64(0x7E7E7E7E7E7E7E7E)
ALL_SQUARES = np.uint64(0xFFFFFFFFFFFFFFFF)
_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_S14 = np.uint64(14)
_S16 = np.uint64(16)
_S18 = np.uint64(18)


def valid_mask(size: int) -> int:
    """Bitboard of the squares of a ``size`` x ``size`` board in the 8x8 layout."""
    row = (1 << size) - 1
    return sum(row << (8 * r) for r in range(size))


@njit("u8(u8, u8, u8, u8)", cache=True, nogil=True, inline="always")
def _moves_along(own, mask, shift, shift2):
    """Empty-or-not squares that end a run of ``mask`` discs starting next to ``own``, both ways.

    Kogge-Stone style: two single steps, then two double steps cover runs of up to six discs.
    """
    left = mask & (own << shift)
    right = mask & (own >> shift)
    left |= mask & (left << shift)
    right |= mask & (right >> shift)
    mask_left = mask & (mask << shift)
    mask_right = mask & (mask >> shift)
    left |= mask_left & (left << shift2)
    right |= mask_right & (right >> shift2)
    left |= mask_left & (left << shift2)
    right |= mask_right & (right >> shift2)
    return (left << shift) | (right >> shift)


@njit("u8(u8, u8, u8)", cache=True, nogil=True)
def legal_moves(own, opp, valid):
    """Bitboard of the squares where the side to move may place a disc."""
    inner = opp & INNER_FILES
    moves = (
        _moves_along(own, inner, _S1, np.uint64(2))
        | _moves_along(own, opp, _S8, _S16)
        | _moves_along(own, inner, _S7, _S14)
        | _moves_along(own, inner, _S9, _S18)
    )
    return moves & valid & ~(own | opp)


@njit("u8(u8, u8, u8, u8)", cache=True, nogil=True, inline="always")
def _flips_left(move, own, mask, shift):
    """Discs of ``mask`` flipped in the direction of a left shift by placing on ``move``."""
    run = mask & (move << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    run |= mask & (run << shift)
    return run if (run << shift) & own else U0


@njit("u8(u8, u8, u8, u8)", cache=True, nogil=True, inline="always")
def _flips_right(move, own, mask, shift):
    """Discs of ``mask`` flipped in the direction of a right shift by placing on ``move``."""
    run = mask & (move >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    run |= mask & (run >> shift)
    return run if (run >> shift) & own else U0


@njit("u8(u8, u8, i8)", cache=True, nogil=True)
def flips(own, opp, square):
    """Bitboard of the opponent discs flipped when the side to move places on ``square``.

    Only the discs bracketed in a straight line count: a run that ends on an empty square or the
    edge flips nothing. The caller checks that ``square`` is a legal move.
    """
    move = U1 << np.uint64(square)
    inner = opp & INNER_FILES
    return (
        _flips_left(move, own, inner, _S1)
        | _flips_right(move, own, inner, _S1)
        | _flips_left(move, own, opp, _S8)
        | _flips_right(move, own, opp, _S8)
        | _flips_left(move, own, inner, _S7)
        | _flips_right(move, own, inner, _S7)
        | _flips_left(move, own, inner, _S9)
        | _flips_right(move, own, inner, _S9)
    )


@njit("UniTuple(u8, 4)(u8, u8, u8, i8)", cache=True, nogil=True)
def play(own, opp, valid, square):
    """Place on ``square`` (or pass when ``square`` < 0) and hand the turn over.

    Returns ``(next_own, next_opp, next_moves, next_opp_moves)`` from the point of view of the
    player who moves next: its discs, its opponent's, its legal placements and its opponent's.
    """
    if square >= 0:
        flipped = flips(own, opp, square)
        own = own | flipped | (U1 << np.uint64(square))
        opp = opp & ~flipped
    return opp, own, legal_moves(opp, own, valid), legal_moves(own, opp, valid)


@njit("Tuple((i8, u8))(u8, u8, u8, u8)", cache=True, nogil=True)
def random_playout(own, opp, valid, rng):
    """Play uniformly random legal moves to the end of the game.

    Returns the final disc difference from the point of view of the side that was to move at the
    start (positive: it won) and the next RNG state.
    """
    sign = 1
    passed = False
    while True:
        moves = legal_moves(own, opp, valid)
        if moves:
            square, rng = random_set_bit(moves, rng)
            flipped = flips(own, opp, square)
            own, opp = opp & ~flipped, own | flipped | (U1 << np.uint64(square))
            passed = False
        elif passed:
            break  # neither side can move: the game is over
        else:
            own, opp = opp, own
            passed = True
        sign = -sign
    # ``own`` is the side that would move next; ``sign`` is +1 when that is the starting side.
    return sign * (np.int64(popcount(own)) - np.int64(popcount(opp))), rng


# --- the game contract's kernels (see boardzoo.games.spec) ----------------------------------------

# params slots: the valid squares, all four corners, the X-squares, the board size, then corner i
# and the X-square diagonally next to it.
P_VALID, P_CORNERS, P_X_SQUARES, P_SIZE, P_CORNER_0, P_X_SQUARE_0 = 0, 1, 2, 3, 4, 8
NUM_PARAMS = 12
# Evaluation weights: legal moves, corners, X-squares next to an empty corner, discs.
W_MOBILITY = 8
W_CORNER = 30
W_X_SQUARE = -12
W_DISC = 1
WIN_SCORE = 1_000_000  # boardzoo.games.spec.WIN_SCORE (numba reads module constants)
# Move ordering: with this many plies left or more and this many empty squares or more, moves
# with the fewest replies for the opponent come first ("fastest first").
ORDER_BY_MOBILITY_DEPTH = 3
ORDER_BY_MOBILITY_EMPTIES = np.uint64(6)
ROLLOUT_HEURISTIC = 1


def square_kind(size: int, row: int, col: int) -> str:
    """``"corner"``, ``"x"``, ``"c"``, ``"edge"`` or ``"inner"``: the role of a Reversi square.

    X-squares touch a corner diagonally, C-squares touch it along an edge. On 4x4 the four centre
    squares are X-squares and every other edge square is a C-square.
    """
    dr, dc = min(row, size - 1 - row), min(col, size - 1 - col)
    if dr == 0 and dc == 0:
        return "corner"
    if dr == 1 and dc == 1:
        return "x"
    if (dr, dc) in ((0, 1), (1, 0)):
        return "c"
    if dr == 0 or dc == 0:
        return "edge"
    return "inner"


# Greedy: weight of each kind of square, added to the number of discs flipped ("weighted squares",
# Norvig, *Paradigms of AI Programming*, 1992, ch. 18). Alpha-beta: static ordering key.
POSITION_WEIGHTS = {"corner": 25, "x": -12, "c": -5, "edge": 2, "inner": 0}
ORDER_KEYS = {"corner": -40, "edge": 0, "inner": 4, "c": 12, "x": 40}


def _square_table(values: dict[str, int]) -> np.ndarray:
    """``table[size // 2 - 2, row * 8 + col]``: ``values`` of each square's kind, sizes 4, 6, 8."""
    table = np.zeros((3, 64), dtype=np.int64)
    for index, size in enumerate((4, 6, 8)):
        for row in range(size):
            for col in range(size):
                table[index, row * 8 + col] = values[square_kind(size, row, col)]
    return table


WEIGHT_TABLE = _square_table(POSITION_WEIGHTS)
ORDER_KEY_TABLE = _square_table(ORDER_KEYS)


def make_params(size: int) -> np.ndarray:
    """The kernels' parameters for a ``size`` x ``size`` board."""
    params = np.zeros(NUM_PARAMS, dtype=np.uint64)
    far = size - 1
    corners = ((0, 0), (0, far), (far, 0), (far, far))
    x_squares = ((1, 1), (1, far - 1), (far - 1, 1), (far - 1, far - 1))
    params[P_VALID] = valid_mask(size)
    params[P_SIZE] = size
    for i, ((cr, cc), (xr, xc)) in enumerate(zip(corners, x_squares, strict=True)):
        params[P_CORNER_0 + i] = 1 << (cr * 8 + cc)
        params[P_CORNERS] |= params[P_CORNER_0 + i]
        if size > 4:  # on 4x4 the X-squares are the centre, taken from the start
            params[P_X_SQUARE_0 + i] = 1 << (xr * 8 + xc)
            params[P_X_SQUARES] |= params[P_X_SQUARE_0 + i]
    return params


@njit(cache=True, nogil=True, inline="always")
def _own_opp(s0, s1, player):
    return (s0, s1) if player == 0 else (s1, s0)


@njit(cache=True, nogil=True)
def placements(s0, s1, player, params):
    """Squares where the player to move may place a disc."""
    own, opp = _own_opp(s0, s1, player)
    return legal_moves(own, opp, params[P_VALID])


@njit(cache=True, nogil=True)
def place(s0, s1, player, cell, params):
    """The bitboards after the player to move places on ``cell`` (``cell < 0``: passes)."""
    if cell < 0:
        return s0, s1
    bit = U1 << np.uint64(cell)
    if player == 0:
        flipped = flips(s0, s1, cell)
        return s0 | flipped | bit, s1 & ~flipped
    flipped = flips(s1, s0, cell)
    return s0 & ~flipped, s1 | flipped | bit


@njit(cache=True, nogil=True)
def outcome(s0, s1, player, params):
    """Over when neither side can place; more discs wins."""
    valid = params[P_VALID]
    if legal_moves(s0, s1, valid) or legal_moves(s1, s0, valid):
        return False, 1
    black, white = popcount(s0), popcount(s1)
    if black > white:
        return True, 2
    if black < white:
        return True, 0
    return True, 1


@njit(cache=True, nogil=True)
def cell_action(cell, params):
    """Action ``row * size + col`` of square ``row * 8 + col``; the pass is ``size * size``."""
    size = np.int64(params[P_SIZE])
    if cell < 0:
        return size * size
    return (cell // 8) * size + cell % 8


@njit(cache=True, nogil=True)
def _heuristic_playout(own, opp, corners, x_squares, valid, rng):
    """Take a corner when one is legal, else avoid the X-squares, 1 move in 8 at random.

    Returns the final disc difference for the starting side and the RNG state.
    """
    sign = 1
    passed = False
    while True:
        moves = legal_moves(own, opp, valid)
        if moves:
            rng = next_rng(rng)
            if rng_output(rng) & np.uint64(7):
                if moves & corners:
                    moves &= corners
                elif moves & ~x_squares:
                    moves &= ~x_squares
            square, rng = random_set_bit(moves, rng)
            flipped = flips(own, opp, square)
            own, opp = opp & ~flipped, own | flipped | (U1 << np.uint64(square))
            passed = False
        elif passed:
            break
        else:
            own, opp = opp, own
            passed = True
        sign = -sign
    return sign * (np.int64(popcount(own)) - np.int64(popcount(opp))), rng


@njit(cache=True, nogil=True)
def rollout(s0, s1, player, params, policy, rng):
    """Play to the end (random, or the corner heuristic with ``policy`` 1); player 0's score."""
    own, opp = _own_opp(s0, s1, player)
    if policy == ROLLOUT_HEURISTIC:
        diff, rng = _heuristic_playout(
            own, opp, params[P_CORNERS], params[P_X_SQUARES], params[P_VALID], rng
        )
    else:
        diff, rng = random_playout(own, opp, params[P_VALID], rng)
    if diff == 0:
        return 0.5, rng
    return (1.0 if (diff > 0) == (player == 0) else 0.0), rng


@njit(cache=True, nogil=True)
def evaluate(s0, s1, player, moves, params):
    """Mobility, corners, X-squares next to an empty corner, and discs, for the player to move."""
    own, opp = _own_opp(s0, s1, player)
    mobility = np.int64(popcount(moves)) - np.int64(
        popcount(legal_moves(opp, own, params[P_VALID]))
    )
    corners = params[P_CORNERS]
    corner_diff = np.int64(popcount(own & corners)) - np.int64(popcount(opp & corners))
    x_diff = 0
    taken = own | opp
    for i in range(4):
        if not taken & params[P_CORNER_0 + i]:
            x_square = params[P_X_SQUARE_0 + i]
            if own & x_square:
                x_diff += 1
            elif opp & x_square:
                x_diff -= 1
    discs = np.int64(popcount(own)) - np.int64(popcount(opp))
    return W_MOBILITY * mobility + W_CORNER * corner_diff + W_X_SQUARE * x_diff + W_DISC * discs


@njit(cache=True, nogil=True)
def final_score(s0, s1, player, params):
    """Wins dominate, then the disc difference, for the player to move."""
    own, opp = _own_opp(s0, s1, player)
    diff = np.int64(popcount(own)) - np.int64(popcount(opp))
    if diff > 0:
        return WIN_SCORE + diff
    if diff < 0:
        return -WIN_SCORE + diff
    return 0


@njit(cache=True, nogil=True)
def order_key(s0, s1, player, cell, depth, params):
    """Corners first, X-squares last; deep enough, the opponent's fewest replies first."""
    key = ORDER_KEY_TABLE[np.int64(params[P_SIZE]) // 2 - 2, cell]
    if depth < ORDER_BY_MOBILITY_DEPTH:
        return key
    own, opp = _own_opp(s0, s1, player)
    valid = params[P_VALID]
    if popcount(valid & ~(own | opp)) < ORDER_BY_MOBILITY_EMPTIES:
        return key
    bit = U1 << np.uint64(cell)
    flipped = flips(own, opp, cell)
    return key + 4 * np.int64(popcount(legal_moves(opp & ~flipped, own | flipped | bit, valid)))


@njit(cache=True, nogil=True)
def greedy_score(s0, s1, player, cell, params):
    """Discs flipped plus the square's positional weight."""
    own, opp = _own_opp(s0, s1, player)
    weight = WEIGHT_TABLE[np.int64(params[P_SIZE]) // 2 - 2, cell]
    return np.int64(popcount(flips(own, opp, cell))) + weight


def positional_weights(size: int) -> tuple[int, ...]:
    """The greedy weight of each placement action ``row * size + col`` on a ``size`` board."""
    row_major = WEIGHT_TABLE[size // 2 - 2]
    return tuple(int(row_major[r * 8 + c]) for r in range(size) for c in range(size))
