"""Compiled moves, results and rollouts of the built-in games, for the compiled search.

A position is ``(s0, s1, player)``: player 0's bitboard (black / X), player 1's (white / O), and
the player to move. Children are stored under the env's action numbers (``row * size + col``;
Reversi's pass is ``size * size``), so the compiled and the Python searches share one tree format.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.agents.mcts.tree import DRAW, LOSS, WIN, reserve_children, set_child
from boardzoo.games._bits import U0, U1, next_rng, popcount, random_set_bit, rng_output
from boardzoo.games.reversi_kernels import flips, legal_moves, random_playout
from boardzoo.games.tictactoe_kernels import TTT_FULL, has_line

TICTACTOE = 0
REVERSI = 1
ROLLOUT_RANDOM = 0
ROLLOUT_HEURISTIC = 1


@njit(cache=True, nogil=True)
def outcome(game, s0, s1, player, valid):
    """``(terminal, result)``: whether the game is over and, if so, player 0's result code."""
    if game == REVERSI:
        if legal_moves(s0, s1, valid) or legal_moves(s1, s0, valid):
            return False, DRAW
        black, white = popcount(s0), popcount(s1)
        if black > white:
            return True, WIN
        if black < white:
            return True, LOSS
        return True, DRAW
    if has_line(s0):
        return True, WIN
    if has_line(s1):
        return True, LOSS
    if (s0 | s1) == TTT_FULL:
        return True, DRAW
    return False, DRAW


@njit(cache=True, nogil=True, inline="always")
def _placements(game, s0, s1, player, valid):
    """Squares the player to move may place on (the caller knows the game is not over)."""
    if game == REVERSI:
        if player == 0:
            return legal_moves(s0, s1, valid)
        return legal_moves(s1, s0, valid)
    return TTT_FULL & ~(s0 | s1)


@njit(cache=True, nogil=True, inline="always")
def _play(game, s0, s1, player, square):
    """The position after placing on bitboard ``square`` (or passing if ``square`` < 0)."""
    if square >= 0:
        bit = U1 << np.uint64(square)
        if game == REVERSI:
            if player == 0:
                flipped = flips(s0, s1, square)
                s0, s1 = s0 | flipped | bit, s1 & ~flipped
            else:
                flipped = flips(s1, s0, square)
                s1, s0 = s1 | flipped | bit, s0 & ~flipped
        elif player == 0:
            s0 |= bit
        else:
            s1 |= bit
    return s0, s1, 1 - player


@njit(cache=True, nogil=True)
def expand(tree, node, game, size, valid, rng):
    """Reserve and fill ``node``'s children in a random order; return (ok, rng).

    ``ok`` is False when the tree is full (the node stays a leaf).
    """
    s0, s1, player = tree.s0[node], tree.s1[node], tree.player[node]
    squares = _placements(game, s0, s1, player, valid)
    count = np.int64(popcount(squares))
    passing = count == 0  # only Reversi gets here without a placement: the pass
    if passing:
        count = 1
    if reserve_children(tree, node, count) < 0:
        return False, rng
    order = np.arange(count)
    for i in range(count - 1, 0, -1):  # Fisher-Yates: the order in which UCT adds them
        rng = next_rng(rng)
        j = np.int64(rng_output(rng) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
    stride = 8 if game == REVERSI else size
    prior = 1.0 / count
    for i in range(count):
        if passing:
            square, action = -1, size * size
        else:
            square = np.int64(popcount((squares & (~squares + U1)) - U1))
            squares &= squares - U1
            action = (square // stride) * size + square % stride
        c0, c1, next_player = _play(game, s0, s1, player, square)
        terminal, result = outcome(game, c0, c1, next_player, valid)
        set_child(tree, node, order[i], action, c0, c1, next_player, terminal, result, prior)
    return True, rng


@njit(cache=True, nogil=True)
def _heuristic_playout(own, opp, valid, corners, x_squares, rng):
    """Reversi playout: take a corner when one is legal, else avoid the squares diagonally next
    to corners, 1 move in 8 uniformly at random. Returns the final disc difference for the
    starting side and the RNG state."""
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
def rollout(game, s0, s1, player, valid, policy, corners, x_squares, rng):
    """Play to the end with the rollout policy; return player 0's score (1, 0.5, 0) and the RNG."""
    if game == REVERSI:
        own, opp = (s0, s1) if player == 0 else (s1, s0)
        if policy == ROLLOUT_HEURISTIC:
            diff, rng = _heuristic_playout(own, opp, valid, corners, x_squares, rng)
        else:
            diff, rng = random_playout(own, opp, valid, rng)
        if diff == 0:
            return 0.5, rng
        return (1.0 if (diff > 0) == (player == 0) else 0.0), rng
    while True:
        if has_line(s0):
            return 1.0, rng
        if has_line(s1):
            return 0.0, rng
        empty = TTT_FULL & ~(s0 | s1)
        if empty == U0:
            return 0.5, rng
        square, rng = random_set_bit(empty, rng)
        s0, s1, player = _play(game, s0, s1, player, square)
