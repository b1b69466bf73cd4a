"""The compiled batched step: every sub-env of a vector env advanced in one call.

Templates written once against the game contract's kernels (``kernels.placements``, ``place``,
``outcome``, ``cell_action``, ``greedy_score``; see :mod:`boardzoo.games.spec`) and compiled per
game by :func:`compiled_vector`. A sub-env is a learner playing one side against a compiled
opponent; its position is ``s0``, ``s1`` (the kernels' bitboards) and ``player`` to move, and its
random stream is one xorshift64* state (:mod:`boardzoo.games._bits`), seeded from the sub-env's
seed, which draws the learner's side (``learner_color="random"``) and the opponent's moves.

Rules of one sub-env's step, those of
:class:`~boardzoo.envs.single_agent.BoardGameSingleAgentEnv`: the learner's action is played
(an illegal one ends the episode with reward -1), then the opponent replies once (a pass is a
move: with explicit passes the learner is to move again after one reply), and a finished game
pays +1, 0 or -1 to the learner. A sub-env whose episode ended is reset at its next step (its
action ignored, reward 0): Gymnasium's "next step" autoreset.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from boardzoo.games._bits import U1, lowest_bit_index, next_rng, random_set_bit, rng_output
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise

__all__ = ["OPPONENT_KINDS", "compiled_vector"]

# The opponents played inside the compiled step, by code.
OPPONENT_KINDS = {"random": 0, "greedy": 1}
_RANDOM, _GREEDY = 0, 1
_WIN_CODE = 2  # kernels.outcome's code of a game player 0 won (0 lost, 1 drawn)

kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def status(s0, s1, player, params):  # type: ignore[no-untyped-def]
    """The placements of the player to move, whether the game is over, and player 0's result
    code (0 lost, 1 drawn, 2 won; 1 while in play)."""
    moves = kernels.placements(s0, s1, player, params)
    if moves:
        return moves, False, 1
    over, code = kernels.outcome(s0, s1, player, params)
    return moves, over, code


def opponent_cell(s0, s1, player, moves, kind, params, rng):  # type: ignore[no-untyped-def]
    """The cell the opponent fills (``moves`` non-zero) and the next random state: uniform
    (random), or uniform among the best ``greedy_score`` (greedy)."""
    if kind == _GREEDY:
        best = np.int64(-(1 << 62))
        ties = moves & np.uint64(0)
        rest = moves
        while rest:
            cell = lowest_bit_index(rest)
            bit = U1 << np.uint64(cell)
            rest ^= bit
            score = kernels.greedy_score(s0, s1, player, cell, params)
            if score > best:
                best = score
                ties = bit
            elif score == best:
                ties |= bit
        return random_set_bit(ties, rng)
    return random_set_bit(moves, rng)


def opponent_moves(s0, s1, player, kind, params, rng):  # type: ignore[no-untyped-def]
    """The opponent's one move (a pass when it has no placement): the new position and state."""
    moves = kernels.placements(s0, s1, player, params)
    cell = -1
    if moves:
        cell, rng = opponent_cell(s0, s1, player, moves, kind, params, rng)
    s0, s1 = kernels.place(s0, s1, player, cell, params)
    return s0, s1, 1 - player, rng


def learner_cell(moves, action, pass_action, params):  # type: ignore[no-untyped-def]
    """The cell ``action`` fills, -1 for a legal pass, -2 for an illegal action."""
    if action == pass_action:
        return -1 if moves == 0 else -2
    rest = moves
    while rest:
        cell = lowest_bit_index(rest)
        rest ^= U1 << np.uint64(cell)
        if kernels.cell_action(cell, params) == action:
            return cell
    return -2


def write_view(
    i, s0, s1, player, learner, over, pass_action, params, cell_row, cell_col, obs, mask
):  # type: ignore[no-untyped-def]
    """Sub-env ``i``'s observation (the learner's pieces in plane 0) and legal-action mask."""
    own, other = (s0, s1) if learner == 0 else (s1, s0)
    obs[i] = 0
    mask[i] = 0
    rest = own
    while rest:
        cell = lowest_bit_index(rest)
        rest ^= U1 << np.uint64(cell)
        obs[i, cell_row[cell], cell_col[cell], 0] = 1
    rest = other
    while rest:
        cell = lowest_bit_index(rest)
        rest ^= U1 << np.uint64(cell)
        obs[i, cell_row[cell], cell_col[cell], 1] = 1
    if over:
        return
    moves = kernels.placements(s0, s1, player, params)
    if moves == 0 and pass_action >= 0:
        mask[i, pass_action] = 1
    while moves:
        cell = lowest_bit_index(moves)
        moves ^= U1 << np.uint64(cell)
        mask[i, kernels.cell_action(cell, params)] = 1


def start_episode(i, state, learner, rng, colour, kind, initial, params):  # type: ignore[no-untyped-def]
    """Reset sub-env ``i``: the start position, the learner's side (``colour`` -1: drawn), and
    the opponent's first move when it moves first."""
    s0, s1, player = initial[0], initial[1], np.int64(initial[2])
    r = rng[i]
    side = colour
    if colour < 0:
        r = next_rng(r)
        side = np.int64(rng_output(r) & U1)
    if side != player:
        s0, s1, player, r = opponent_moves(s0, s1, player, kind, params, r)
    state[i, 0], state[i, 1], state[i, 2] = s0, s1, np.uint64(player)
    learner[i] = side
    rng[i] = r


def reset_all(
    state, learner, rng, colour, kind, initial, params, pass_action, cell_row, cell_col, obs, mask
):  # type: ignore[no-untyped-def]
    """Start every sub-env's episode and write the first observations and masks."""
    for i in range(state.shape[0]):
        start_episode(i, state, learner, rng, colour, kind, initial, params)
        s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
        write_view(
            i, s0, s1, player, learner[i], False, pass_action, params, cell_row, cell_col, obs, mask
        )


def step_all(
    state,
    learner,
    rng,
    ended,
    actions,
    colour,
    kind,
    initial,
    params,
    pass_action,
    cell_row,
    cell_col,
    obs,
    mask,
    reward,
    terminated,
    illegal,
):  # type: ignore[no-untyped-def]
    """One step of every sub-env (see the module docstring); outputs written in place."""
    for i in range(state.shape[0]):
        reward[i] = 0.0
        terminated[i] = False
        illegal[i] = False
        if ended[i]:
            start_episode(i, state, learner, rng, colour, kind, initial, params)
            ended[i] = False
            s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
            write_view(
                i,
                s0,
                s1,
                player,
                learner[i],
                False,
                pass_action,
                params,
                cell_row,
                cell_col,
                obs,
                mask,
            )
            continue
        s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
        moves = kernels.placements(s0, s1, player, params)
        cell = learner_cell(moves, actions[i], pass_action, params)
        over = False
        if cell == -2:
            reward[i] = -1.0
            illegal[i] = True
            terminated[i] = True
        else:
            s0, s1 = kernels.place(s0, s1, player, cell, params)
            player = 1 - player
            moves, over, code = status(s0, s1, player, params)
            if not over:
                r = rng[i]
                s0, s1, player, r = opponent_moves(s0, s1, player, kind, params, r)
                rng[i] = r
                moves, over, code = status(s0, s1, player, params)
            if over:
                terminated[i] = True
                if code != 1:
                    reward[i] = 1.0 if (code == _WIN_CODE) == (learner[i] == 0) else -1.0
            state[i, 0], state[i, 1], state[i, 2] = s0, s1, np.uint64(player)
        ended[i] = terminated[i]
        write_view(
            i, s0, s1, player, learner[i], over, pass_action, params, cell_row, cell_col, obs, mask
        )


def compiled_vector(game: Game) -> dict[str, Any]:
    """``reset_all`` and ``step_all`` compiled for ``game`` (cached on disk by numba)."""
    return specialise(
        (
            status,
            opponent_cell,
            opponent_moves,
            learner_cell,
            write_view,
            start_episode,
            reset_all,
            step_all,
        ),
        game.kernels,
    )
