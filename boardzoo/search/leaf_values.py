"""Leaf evaluators of the one loop: the score a simulation backs up from where it left the tree.

A template module (see :func:`boardzoo.search.loop.compiled_loop`): it reaches the game only
through the contract's kernels (``kernels.rollout``, ``kernels.evaluate``, ``kernels.place``, ...)
and its switches are fixed per compiled copy:

- the game's own rollout (random, or its heuristic policy) when nothing needs the moves;
- a recorded playout when RAVE, last-good-reply (LGRF-1, Baier & Drake 2010) or criticality
  read the moves, or a cut-off stops it after some plies and scores it by the evaluation;
- the evaluation: the game's hand-made one as ``tanh(v / scale)``, or its learned n-tuple
  network (:mod:`boardzoo.learned`).
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.games.bits import U1, lowest_bit_index, random_set_bit
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.learned.ntuple import ntuple_value
from boardzoo.search.memory import PASS_SLOT
from boardzoo.search.options import N_CUTOFF, N_EVAL_SCALE, N_POLICY
from boardzoo.search.tree import score_for

# Replaced by the game's kernel module in each compiled copy.
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")

# Compile-time switches (fixed per compiled copy).
LEARNED = False
LGRF = False
RECORDS = False


def evaluation(s0, s1, player, moves, params, numbers, net):
    """The value of a position in play for the player to move, in (-1, 1)."""
    if LEARNED:
        return ntuple_value(s0, s1, player, params, net)
    return np.tanh(kernels.evaluate(s0, s1, player, moves, params) / numbers[N_EVAL_SCALE])


def child_heuristic(c0, c1, next_player, terminal, result, mover, params, numbers, net):
    """The evaluation of a child position for ``mover``, the player who moved into it, in [0, 1]."""
    if terminal:
        return score_for(result, mover)
    moves = kernels.placements(c0, c1, next_player, params)
    value = evaluation(c0, c1, next_player, moves, params, numbers, net)
    return 0.5 + 0.5 * value if next_player == mover else 0.5 - 0.5 * value


def playout(s0, s1, player, prev_cell, params, numbers, memory, net, cells, players, length, rng):
    """Play on from a leaf, recording the moves; return (score0, finished, s0, s1, length, rng).

    Moves are uniformly random, or the player's last good reply to the previous move when it is
    legal (LGRF). With a cut-off the playout stops after that many plies and is scored by the
    evaluation (``finished`` False); otherwise it ends with the game.
    """
    cutoff = np.int64(numbers[N_CUTOFF])
    plies = 0
    while True:
        moves = kernels.placements(s0, s1, player, params)
        if moves == 0:
            over, code = kernels.outcome(s0, s1, player, params)
            if over:
                return code * 0.5, True, s0, s1, length, rng
            cell = np.int64(-1)
        elif cutoff >= 0 and plies >= cutoff:
            value = evaluation(s0, s1, player, moves, params, numbers, net)
            mover_score = 0.5 + 0.5 * value
            return (mover_score if player == 0 else 1.0 - mover_score), False, s0, s1, length, rng
        else:
            cell = np.int64(-1)
            if LGRF and prev_cell >= -1:
                row = np.int64(prev_cell) if prev_cell >= 0 else np.int64(PASS_SLOT)
                reply = memory.lgr[player, row]
                if reply >= 0 and (moves >> np.uint64(reply)) & U1:
                    cell = reply
            if cell < 0:
                cell, rng = random_set_bit(moves, rng)
        s0, s1 = kernels.place(s0, s1, player, cell, params)
        if length < cells.shape[0]:
            cells[length] = cell
            players[length] = player
            length += 1
        prev_cell = np.int64(cell)
        player = 1 - player
        plies += 1


def evaluate_leaf(s0, s1, player, params, numbers, memory, net, cells, players, length, rng):
    """Player 0's score of a leaf in play; return (score0, finished, s0, s1, length, rng).

    ``finished``, ``s0`` and ``s1`` say whether and where a playout ended (criticality counts
    the final owners); ``length`` is the moves recorded so far (the tree's, then the playout's).
    """
    if RECORDS:
        prev = cells[length - 1] if length > 0 else np.int64(-2)
        return playout(
            s0, s1, player, prev, params, numbers, memory, net, cells, players, length, rng
        )
    score0, rng = kernels.rollout(s0, s1, player, params, np.int64(numbers[N_POLICY]), rng)
    return score0, True, s0, s1, length, rng


def rollouts(s0, s1, player, count, params, policy, rng, scores):
    """Play the first ``count`` positions out with the game's rollout policy; return the RNG state.

    Position ``i`` is ``(s0[i], s1[i])`` with ``player[i]`` to move; ``scores[i]`` receives
    player 0's score of its playout (1 win, 0.5 draw, 0 loss): the leaf evaluator of searches
    whose other leaves a network evaluates in batches.
    """
    for i in range(count):
        scores[i], rng = kernels.rollout(s0[i], s1[i], player[i], params, policy, rng)
    return rng


def compiled_rollouts(game: Game) -> Any:
    """:func:`rollouts` compiled for ``game``'s kernels."""
    return specialise((rollouts,), game.kernels)["rollouts"]


def write_leaf(tree, b, node, params, squares, cols, observations, masks, e):
    """Write the observation planes and legal mask of node ``node`` of tree ``b`` into row ``e``:
    the input of a network evaluator, exactly as :func:`boardzoo.search.evaluators.encode` makes
    it from a position (``squares`` maps the kernels' cells to squares, see
    :func:`~boardzoo.search.evaluators.cell_squares`)."""
    s0 = tree.s0[b, node]
    s1 = tree.s1[b, node]
    player = tree.player[b, node]
    own = s0 if player == 0 else s1
    opp = s1 if player == 0 else s0
    observations[e] = 0.0
    while own:
        square = squares[lowest_bit_index(own)]
        own &= own - U1
        if square >= 0:
            observations[e, 0, square // cols, square % cols] = 1.0
    while opp:
        square = squares[lowest_bit_index(opp)]
        opp &= opp - U1
        if square >= 0:
            observations[e, 1, square // cols, square % cols] = 1.0
    masks[e] = False
    cells = kernels.placements(s0, s1, player, params)
    if cells == 0:
        masks[e, kernels.cell_action(-1, params)] = True
    while cells:
        cell = lowest_bit_index(cells)
        cells &= cells - U1
        masks[e, kernels.cell_action(cell, params)] = True
