"""The compiled opponents of the batched step: their codes, and the move each one picks.

A pool member that the step plays in compiled code has a code (:func:`compiled_opponent_code`):
random, greedy, or alpha-beta of depth ``d`` (``alphabeta:depth=d``); :data:`POLICY` is the code
of one played outside the compiled step (a policy network, say; see
:mod:`boardzoo.vector.kernels`). :func:`opponent_cell` and :func:`alphabeta_cell` are templates
written once against the game contract's kernels (``kernels.greedy_score``; see
:mod:`boardzoo.games.spec`) and compiled per game with the step by
:func:`~boardzoo.vector.kernels.compiled_vector`, which links in the game's compiled alpha-beta
root search (the plain search of :mod:`boardzoo.gametree`). Their moves are drawn from the
sub-env's random stream.
"""

from __future__ import annotations

import types

import numpy as np

from boardzoo.budget import BUDGET, NO_LIMIT
from boardzoo.errors import InvalidValueError
from boardzoo.games.bits import U1, lowest_bit_index, next_rng, random_set_bit, rng_output
from boardzoo.gametree.template import NUM_COUNTERS

__all__ = [
    "COMPILED_OPPONENTS",
    "MAX_ALPHABETA_DEPTH",
    "OPPONENT_KINDS",
    "POLICY",
    "alphabeta_cell",
    "compiled_opponent_code",
    "opponent_cell",
]

# The opponents without settings played inside the compiled step, by code.
OPPONENT_KINDS = {"random": 0, "greedy": 1}
_RANDOM, _GREEDY = 0, 1
POLICY = 2  # an opponent played outside the compiled step (a policy: one call per step)
# Alpha-beta of depth d (1 .. MAX_ALPHABETA_DEPTH) has the code _ALPHABETA + d.
MAX_ALPHABETA_DEPTH = 4
_ALPHABETA = 10
COMPILED_OPPONENTS = f"random, greedy or alphabeta:depth=N (N from 1 to {MAX_ALPHABETA_DEPTH})"

kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def search_root_plain(s0, s1, player, params, root_cells, depth, counters, net):
    """Placeholder for the game's compiled alpha-beta root search, linked into each copy."""
    raise NotImplementedError("linked by compiled_vector")


def compiled_opponent_code(name: str) -> int:
    """The compiled step's code of a compiled opponent: ``"random"``, ``"greedy"`` or
    ``"alphabeta:depth=N"``. Raises ``ValueError`` for any other name (naming what is allowed)."""
    if name in OPPONENT_KINDS:
        return OPPONENT_KINDS[name]
    prefix = "alphabeta:depth="
    depth = name[len(prefix) :] if isinstance(name, str) and name.startswith(prefix) else ""
    if depth.isdigit() and 1 <= int(depth) <= MAX_ALPHABETA_DEPTH:
        return _ALPHABETA + int(depth)
    raise InvalidValueError(f"{name!r} is not a compiled opponent: {COMPILED_OPPONENTS}")


def opponent_cell(s0, s1, player, moves, kind, params, rng):
    """The cell the opponent fills (``moves`` non-zero) and the next random state: uniform
    (random), uniform among the best ``greedy_score`` (greedy), or uniform among the best of an
    alpha-beta search (alpha-beta)."""
    if kind > _ALPHABETA:
        return alphabeta_cell(s0, s1, player, moves, kind - _ALPHABETA, params, rng)
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


def alphabeta_cell(s0, s1, player, moves, depth, params, rng):
    """The best cell of ``moves`` by negamax alpha-beta to ``depth`` plies with the game's
    evaluation (:class:`~boardzoo.agents.AlphaBetaAgent`'s search, without its endgame solver),
    the first best of a random order of the moves, so uniform among equally good ones; and the
    next random state."""
    count = 0
    root = np.empty(64, dtype=np.int64)
    rest = moves
    while rest:
        root[count] = lowest_bit_index(rest)
        rest &= rest - U1
        count += 1
    for j in range(count - 1, 0, -1):  # Fisher-Yates
        rng = next_rng(rng)
        k = np.int64(rng_output(rng) % np.uint64(j + 1))
        root[j], root[k] = root[k], root[j]
    counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
    counters[BUDGET] = NO_LIMIT
    index, _, _ = search_root_plain(s0, s1, player, params, root[:count], depth, counters, None)
    return root[index], rng
