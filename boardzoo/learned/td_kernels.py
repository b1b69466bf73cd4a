"""TD(λ) self-play of n-tuple networks, compiled with numba, one trainer for all games.

The templates below reach the game through the contract's kernels (``kernels.placements``,
``place``, ``outcome``, ``greedy_score``; see :mod:`boardzoo.games.spec`) and are compiled per
game by :func:`compiled_learned` (:mod:`boardzoo.games.specialise`); the runs that drive them
(settings, checkpoints, measuring a net) are in :mod:`boardzoo.learned.td`.

Self-play: both sides play the move whose resulting position the net values best (1 ply; a
finished game is valued by its result, and a position where the opponent must pass is valued for
the mover again), and a uniformly random move with probability ``epsilon``. After each game every
position ``p_t`` the mover had a choice in is moved towards its λ-return, computed backwards
(the offline forward view of TD(λ), Sutton & Barto, *Reinforcement Learning*, ch. 12):

    G_t = b_t                                  after a random move,
    G_t = (1 - λ) b_t + λ ± G_{t+1}            otherwise (the final result after the last move),

where ``b_t`` is the best one-ply value the mover saw in ``p_t`` (its backed-up value) and ``±``
turns ``G_{t+1}`` to the point of view of ``p_t``'s mover. The update is gradient descent on the
squared error of ``tanh``: every weight the position reads moves by
``rate * (G_t - v) * (1 - v**2)``, with ``rate = lr / instances``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.games.bits import U1, lowest_bit_index, next_rng, random_set_bit, rng_output
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.learned.ntuple import (
    instance_index,
    ntuple_value_arrays,
    stage_of,
)

__all__ = ["OPPONENT_GREEDY", "OPPONENT_RANDOM", "compiled_learned", "duel", "train_games"]

MAX_PLIES = 256  # more moves than any game of the catalog has
OPPONENT_RANDOM, OPPONENT_GREEDY = 0, 1
_TWO_32 = 4294967296.0

# Replaced by the game's kernel module in each compiled copy (see compiled_learned).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def afterstate_value(s0, s1, player, params, cells, table, weights):
    """The value for ``player``, who has just moved, of the position ``s0``, ``s1``.

    The result (1, 0, -1) of a finished game; else minus the net's value for the opponent, or,
    when the opponent must pass, the net's value for ``player``, who moves again.
    """
    other = 1 - player
    if kernels.placements(s0, s1, other, params):
        return -ntuple_value_arrays(s0, s1, other, params, cells, table, weights)
    over, code = kernels.outcome(s0, s1, other, params)
    if over:
        result = np.float64(code - 1)  # player 0's point of view
        return result if player == 0 else -result
    return ntuple_value_arrays(s0, s1, player, params, cells, table, weights)


def move_values(s0, s1, player, params, cells, table, weights):
    """The placements of the player to move (lowest cell first) and the value of each for it."""
    moves = kernels.placements(s0, s1, player, params)
    out_cells = np.empty(64, dtype=np.int64)
    out_values = np.empty(64, dtype=np.float64)
    count = 0
    while moves:
        cell = lowest_bit_index(moves)
        moves &= moves - U1
        c0, c1 = kernels.place(s0, s1, player, cell, params)
        out_cells[count] = cell
        out_values[count] = afterstate_value(c0, c1, player, params, cells, table, weights)
        count += 1
    return out_cells[:count], out_values[:count]


def to_move(s0, s1, player, params):
    """Who moves after any forced pass, and where: ``(placements, player, code)``; no
    placements means the game is over with result ``code`` for player 0 (0 loss, 1 draw, 2
    win)."""
    moves = kernels.placements(s0, s1, player, params)
    if moves:
        return moves, player, 1
    over, code = kernels.outcome(s0, s1, player, params)
    if over:
        return moves, player, code
    return kernels.placements(s0, s1, 1 - player, params), 1 - player, 1


def keep_best(score, cell, best, best_cell, ties, rng):
    """One step of a running maximum with ties broken uniformly at random: the new
    ``(best, best_cell, ties, rng)`` after seeing ``cell`` score ``score``."""
    if score > best:
        return score, cell, 1, rng
    if score == best:
        ties += 1
        rng = next_rng(rng)
        if rng_output(rng) % np.uint64(ties) == 0:
            best_cell = cell
    return best, best_cell, ties, rng


def best_move(s0, s1, player, params, moves, cells, table, weights, rng):
    """The placement among ``moves`` with the best value (ties at random), its value, and the
    next RNG state."""
    best, best_cell, ties = -np.inf, -1, 0
    while moves:
        cell = lowest_bit_index(moves)
        moves &= moves - U1
        c0, c1 = kernels.place(s0, s1, player, cell, params)
        value = afterstate_value(c0, c1, player, params, cells, table, weights)
        best, best_cell, ties, rng = keep_best(value, cell, best, best_cell, ties, rng)
    return best_cell, best, rng


def greedy_move(s0, s1, player, params, moves, rng):
    """The placement the game's greedy rule scores best (ties at random), and the RNG state."""
    best, best_cell, ties = np.int64(-(1 << 62)), -1, 0
    while moves:
        cell = lowest_bit_index(moves)
        moves &= moves - U1
        score = kernels.greedy_score(s0, s1, player, cell, params)
        best, best_cell, ties, rng = keep_best(score, cell, best, best_cell, ties, rng)
    return best_cell, rng


def learn(s0, s1, player, params, cells, table, weights, target, rate):
    """Move the net's value of the position towards ``target`` (one gradient step on ``tanh``)."""
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    stage = stage_of(s0, s1, params, weights.shape[0])
    index = np.empty(cells.shape[0], dtype=np.int64)
    total = 0.0
    for i in range(cells.shape[0]):  # ntuple_sum_bits, each instance's index kept
        index[i] = instance_index(own, opp, cells, i)
        total += weights[stage, table[i], index[i]]
    value = np.tanh(total)
    step = rate * (target - value) * (1.0 - value * value)
    for i in range(cells.shape[0]):
        weights[stage, table[i], index[i]] += step


def train_games(s0, s1, player, params, cells, table, weights, games, rate, lam, epsilon, rng):
    """Play ``games`` self-play games from the position ``s0``, ``s1``, ``player`` to move and
    learn from each (``weights`` are updated in place). Returns the RNG state and the number of
    positions learnt from."""
    rec_s0 = np.empty(MAX_PLIES, dtype=np.uint64)
    rec_s1 = np.empty(MAX_PLIES, dtype=np.uint64)
    rec_player = np.empty(MAX_PLIES, dtype=np.int64)
    backup = np.empty(MAX_PLIES, dtype=np.float64)
    explored = np.empty(MAX_PLIES, dtype=np.bool_)
    positions = 0
    threshold = epsilon * _TWO_32
    for _ in range(games):
        b0, b1, mover, count, code = s0, s1, player, 0, 1
        while True:
            moves, mover, code = to_move(b0, b1, mover, params)
            if not moves:
                break
            cell, value, rng = best_move(b0, b1, mover, params, moves, cells, table, weights, rng)
            rng = next_rng(rng)
            explore = np.float64(rng_output(rng)) < threshold
            if explore:
                cell, rng = random_set_bit(moves, rng)
            rec_s0[count], rec_s1[count], rec_player[count] = b0, b1, mover
            backup[count], explored[count] = value, explore
            count += 1
            b0, b1 = kernels.place(b0, b1, mover, cell, params)
            mover = 1 - mover
        result = np.float64(code - 1)  # player 0's point of view
        following = 0.0
        for t in range(count - 1, -1, -1):
            if t == count - 1:
                ahead = result if rec_player[t] == 0 else -result
            else:
                ahead = following if rec_player[t + 1] == rec_player[t] else -following
            following = backup[t] if explored[t] else (1.0 - lam) * backup[t] + lam * ahead
            backup[t] = following  # the λ-return G_t
        for t in range(count):
            learn(
                rec_s0[t], rec_s1[t], rec_player[t], params, cells, table, weights, backup[t], rate
            )
        positions += count
    return rng, positions


def duel(s0, s1, player, params, cells, table, weights, opponent, games, opening_plies, rng):
    """The net's one-ply player against ``opponent`` (0 random, 1 the game's greedy rule).

    Games ``2i`` and ``2i + 1`` start with the same ``opening_plies`` random moves, the net
    playing player 0 in the first and player 1 in the second. Returns the net's score (1 a win,
    0.5 a draw) over ``games`` games and the next RNG state.
    """
    score = 0.0
    opening_rng = rng
    for game in range(games):
        learned = game % 2
        if learned == 0:
            rng = next_rng(rng)
            opening_rng = rng
        opening = opening_rng
        b0, b1, mover, ply, code = s0, s1, player, 0, 1
        while True:
            moves, mover, code = to_move(b0, b1, mover, params)
            if not moves:
                break
            if ply < opening_plies:
                cell, opening = random_set_bit(moves, opening)
            elif mover == learned:
                cell, _, rng = best_move(b0, b1, mover, params, moves, cells, table, weights, rng)
            elif opponent == OPPONENT_GREEDY:
                cell, rng = greedy_move(b0, b1, mover, params, moves, rng)
            else:
                cell, rng = random_set_bit(moves, rng)
            b0, b1 = kernels.place(b0, b1, mover, cell, params)
            mover = 1 - mover
            ply += 1
        score += 0.5 * (code if learned == 0 else 2 - code)
    return score, rng


def compiled_learned(game: Game) -> dict[str, Any]:
    """This module's templates compiled for ``game``'s kernels (each when first called)."""
    templates = (afterstate_value, move_values, to_move, keep_best, best_move, greedy_move)
    return specialise((*templates, learn, train_games, duel), game.kernels)
