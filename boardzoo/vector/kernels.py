"""The compiled batched step: every sub-env of a vector env advanced in one call.

Templates written once against the game contract's kernels (``kernels.placements``, ``place``,
``outcome``, ``cell_action``; see :mod:`boardzoo.games.spec`) and compiled per game by
:func:`compiled_vector`, together with the compiled opponents' templates
(:mod:`boardzoo.vector.opponents`) and the game's compiled alpha-beta root search
(the plain search of :mod:`boardzoo.gametree`) linked in for the alpha-beta opponents. A sub-env is
a learner playing one side against an opponent of a pool; its position is ``s0``, ``s1`` (the
kernels' bitboards) and ``player`` to move, and its random stream is one xorshift64* state
(:mod:`boardzoo.games.bits`), seeded from the sub-env's seed, which draws, at the start of each
episode, the learner's side (``learner_color="random"``) and then its opponent (a pool of more
than one), and the compiled opponents' moves. Opponents of kind :data:`POLICY` (a policy
network, say) are not played in compiled code: the step stops at their turn,
:func:`policy_views` writes their observations, the caller asks the policy (one call for all the
sub-envs it plays), and :func:`policy_replies` finishes the step.

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

from boardzoo.games.bits import U1, lowest_bit_index, next_rng, rng_output
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.gametree.compile import compiled_tree
from boardzoo.gametree.settings import PLAIN
from boardzoo.vector.opponents import POLICY, alphabeta_cell, opponent_cell

__all__ = ["compiled_vector"]

_WIN_CODE = 2  # kernels.outcome's code of a game player 0 won (0 lost, 1 drawn)

kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def status(s0, s1, player, params):
    """The placements of the player to move, whether the game is over, and player 0's result
    code (0 lost, 1 drawn, 2 won; 1 while in play)."""
    moves = kernels.placements(s0, s1, player, params)
    if moves:
        return moves, False, 1
    over, code = kernels.outcome(s0, s1, player, params)
    return moves, over, code


def learner_cell(moves, action, pass_action, params):
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
):
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


def begin(
    i,
    action,
    state,
    learner,
    rng,
    ended,
    opp,
    colour,
    pool_kinds,
    initial,
    params,
    pass_action,
    reward,
    terminated,
    illegal,
):
    """The first half of sub-env ``i``'s step: a new episode if the last one ended (its side,
    its opponent from the pool), else the learner's ``action``. Returns whether the opponent
    is to move now."""
    reward[i] = 0.0
    terminated[i] = False
    illegal[i] = False
    if ended[i]:
        r = rng[i]
        side = colour
        if colour < 0:
            r = next_rng(r)
            side = np.int64(rng_output(r) & U1)
        member = 0
        if pool_kinds.shape[0] > 1:
            r = next_rng(r)
            member = np.int64(rng_output(r) % np.uint64(pool_kinds.shape[0]))
        state[i, 0], state[i, 1], state[i, 2] = initial[0], initial[1], initial[2]
        learner[i], opp[i], rng[i], ended[i] = side, member, r, False
        return side != np.int64(initial[2])
    s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
    cell = learner_cell(kernels.placements(s0, s1, player, params), action, pass_action, params)
    if cell == -2:
        reward[i] = -1.0
        illegal[i] = True
        terminated[i] = True
        ended[i] = True
        return False
    s0, s1 = kernels.place(s0, s1, player, cell, params)
    state[i, 0], state[i, 1], state[i, 2] = s0, s1, np.uint64(1 - player)
    return not end_if_over(i, state, learner, ended, params, reward, terminated)


def end_if_over(i, state, learner, ended, params, reward, terminated):
    """End sub-env ``i``'s episode if its game is over (reward to the learner); whether it was."""
    s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
    _, over, code = status(s0, s1, player, params)
    if over:
        terminated[i] = True
        ended[i] = True
        if code != 1:
            reward[i] = 1.0 if (code == _WIN_CODE) == (learner[i] == 0) else -1.0
    return over


def reply(i, cell, state, learner, ended, params, reward, terminated):
    """The opponent of sub-env ``i`` fills ``cell`` (-1: passes); the episode ends if that
    ends the game."""
    s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
    s0, s1 = kernels.place(s0, s1, player, cell, params)
    state[i, 0], state[i, 1], state[i, 2] = s0, s1, np.uint64(1 - player)
    end_if_over(i, state, learner, ended, params, reward, terminated)


def compiled_reply(i, state, learner, rng, ended, opp, pool_kinds, params, reward, terminated):
    """Sub-env ``i``'s opponent, a compiled one, replies."""
    s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
    moves = kernels.placements(s0, s1, player, params)
    cell = -1
    if moves:
        cell, r = opponent_cell(s0, s1, player, moves, pool_kinds[opp[i]], params, rng[i])
        rng[i] = r
    reply(i, cell, state, learner, ended, params, reward, terminated)


def view(
    i, state, learner, terminated, illegal, pass_action, params, cell_row, cell_col, obs, mask
):
    """Sub-env ``i``'s observation and mask, from its learner's side."""
    s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
    over = terminated[i] and not illegal[i]
    write_view(
        i, s0, s1, player, learner[i], over, pass_action, params, cell_row, cell_col, obs, mask
    )


def step_some(
    active,
    actions,
    state,
    learner,
    rng,
    ended,
    opp,
    colour,
    pool_kinds,
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
    waiting,
):
    """Step the ``active`` sub-envs (see the module docstring). Opponents of kind ``POLICY``
    are not played here: their sub-envs are left ``waiting`` (the opponent to move; no view
    written yet), for :func:`policy_views` and :func:`policy_replies`."""
    for i in range(state.shape[0]):
        waiting[i] = False
        if not active[i]:
            continue
        if begin(
            i,
            actions[i],
            state,
            learner,
            rng,
            ended,
            opp,
            colour,
            pool_kinds,
            initial,
            params,
            pass_action,
            reward,
            terminated,
            illegal,
        ):
            if pool_kinds[opp[i]] == POLICY:
                waiting[i] = True
                continue
            compiled_reply(
                i, state, learner, rng, ended, opp, pool_kinds, params, reward, terminated
            )
        view(
            i,
            state,
            learner,
            terminated,
            illegal,
            pass_action,
            params,
            cell_row,
            cell_col,
            obs,
            mask,
        )


def policy_views(rows, state, learner, pass_action, params, cell_row, cell_col, obs, mask):
    """The observations and masks of the opponents to move in sub-envs ``rows`` (row ``k`` of
    ``obs`` and ``mask`` for ``rows[k]``), from the opponent's side."""
    for k in range(rows.shape[0]):
        i = rows[k]
        s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
        write_view(
            k,
            s0,
            s1,
            player,
            1 - learner[i],
            False,
            pass_action,
            params,
            cell_row,
            cell_col,
            obs,
            mask,
        )


def policy_replies(
    rows,
    actions,
    state,
    learner,
    ended,
    pass_action,
    params,
    cell_row,
    cell_col,
    obs,
    mask,
    reward,
    terminated,
    illegal,
):
    """Play the opponents' ``actions`` (legal: checked by the caller) in sub-envs ``rows``,
    then write their learners' views."""
    for k in range(rows.shape[0]):
        i = rows[k]
        s0, s1, player = state[i, 0], state[i, 1], np.int64(state[i, 2])
        cell = learner_cell(
            kernels.placements(s0, s1, player, params), actions[k], pass_action, params
        )
        reply(i, cell, state, learner, ended, params, reward, terminated)
        view(
            i,
            state,
            learner,
            terminated,
            illegal,
            pass_action,
            params,
            cell_row,
            cell_col,
            obs,
            mask,
        )


def compiled_vector(game: Game) -> dict[str, Any]:
    """``step_some``, ``policy_views`` and ``policy_replies`` compiled for ``game`` (cached on
    disk by numba)."""
    return specialise(
        (
            status,
            alphabeta_cell,
            opponent_cell,
            learner_cell,
            write_view,
            begin,
            end_if_over,
            reply,
            compiled_reply,
            view,
            step_some,
            policy_views,
            policy_replies,
        ),
        game.kernels,
        linked={"search_root_plain": compiled_tree(game, PLAIN)["search_root_plain"]},
    )
