"""Selection rules of the one loop: which child a simulation walks into.

A template module (see :func:`boardzoo.search.loop.compiled_loop`): the switches below are
module-level names that each compiled copy fixes, so a term that is off is not computed.

UCT (Kocsis & Szepesvári 2006): ``q + c * sqrt(ln N / n)`` with ``q`` the mean score in [0, 1].
Terms composed into ``q`` and the score, each with its switch:

- the solver (Winands et al. 2008; Cazenave & Saffidine 2010): children whose bounds cannot
  improve what the player to move has secured are skipped, proven children count with their
  exact value;
- RAVE (Gelly & Silver 2007, 2011): ``q`` blended with the all-moves-as-first mean by
  ``beta = sqrt(k / (3 n + k))``;
- implicit minimax (Lanctot et al. 2014): ``q`` blended with the minimax value of the
  evaluations below;
- progressive bias (Chaslot et al. 2008): ``+ w * h / (n + 1)`` with ``h`` the evaluation;
- criticality (Coulom 2009): ``+ w * crit(cell) / (n + 1)``;
- virtual loss: each descent below a child still pending counts as ``vl`` lost visits.

AlphaZero's rules, for trees whose every child was made at once with the network's priors:

- PUCT (Silver et al. 2018): ``Q + C(N) * P * sqrt(N) / (1 + n)`` with ``Q`` in [-1, 1] (0.5 as a
  mean, so 0, for unvisited children) and ``C(N) = c_init + log((1 + N + c_base) / c_base)``
  (constant ``c_init`` when ``c_base`` is 0): the same arithmetic and ties as the plain Python
  reference of the tests (``tests/reference_puct.py``);
- Gumbel AlphaZero (Danihelka et al. 2022): at the root, Gumbel-top-k sampling and sequential
  halving (:func:`considered_visits`) on ``g(a) + logits(a) + sigma(completed Q(a))``; below it,
  the deterministic ``argmax(pi'(a) - N(a) / (1 + sum_b N(b)))`` with the improved policy
  ``pi' = softmax(logits + sigma(completed Q))`` and ``sigma(q) = (c_visit + max_b N(b)) *
  c_scale * q`` over completed Q min-max normalised to [0, 1].
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.search.memory import criticality
from boardzoo.search.options import (
    N_BIAS,
    N_C,
    N_C_BASE,
    N_C_SCALE,
    N_C_VISIT,
    N_CRITICALITY,
    N_GUMBEL,
    N_MINIMAX,
    N_RAVE_K,
    N_VIRTUAL_LOSS,
)
from boardzoo.search.tree import MAX_CHILDREN, NO_NODE, is_solved, score_for

# Compile-time switches (fixed per compiled copy).
SOLVER = False
RAVE = False
MINIMAX = False
BIAS = False
CRITICALITY = False
PENDING = False
GUMBEL = False


def select_uct(tree, b, node, numbers, memory):
    """The open child of ``node`` with the highest UCT score and the terms switched on.

    Returns NO_NODE if the solver skips every child.
    """
    first = tree.first_child[b, node]
    count = tree.num_expanded[b, node]
    mover = tree.player[b, node]
    c = numbers[N_C]
    vl = numbers[N_VIRTUAL_LOSS]
    parent_visits = tree.visits[b, node]
    if PENDING:
        parent_visits += vl * tree.pending[b, node]
    log_visits = np.log(max(parent_visits, 1))
    best = NO_NODE
    best_score = -np.inf
    for child in range(first, first + count):
        if SOLVER:
            # Skip children that cannot improve on what the player to move has secured.
            if mover == 0 and tree.opt[b, child] <= tree.pess[b, node]:
                continue
            if mover == 1 and tree.pess[b, child] >= tree.opt[b, node]:
                continue
        visits = tree.visits[b, child]
        if PENDING:
            visits += vl * tree.pending[b, child]
        if SOLVER and is_solved(tree, b, child):
            q = score_for(tree.pess[b, child], mover)
        else:
            q = tree.value[b, child] / visits if visits > 0 else 0.5
            if RAVE:
                amaf_visits = tree.amaf_visits[b, child]
                if amaf_visits > 0:
                    k = numbers[N_RAVE_K]
                    beta = np.sqrt(k / (3.0 * visits + k))
                    q = (1.0 - beta) * q + beta * tree.amaf_value[b, child] / amaf_visits
            if MINIMAX:
                weight = numbers[N_MINIMAX]
                q = (1.0 - weight) * q + weight * tree.mm[b, child]
        score = q + c * np.sqrt(log_visits / max(visits, 1))
        if BIAS:
            score += numbers[N_BIAS] * tree.heur[b, child] / (visits + 1.0)
        if CRITICALITY:
            crit = criticality(memory, tree.cell[b, child])
            score += numbers[N_CRITICALITY] * crit / (visits + 1.0)
        if score > best_score:
            best_score = score
            best = child
    return best


# --- AlphaZero's rules -----------------------------------------------------------------------


class Choice(NamedTuple):
    """What Gumbel's choice reads besides the tree: the noise ``gumbel[b, action]`` of each row,
    sequential halving's schedule, and room for one node's children."""

    gumbel: np.ndarray  # float64 [B, A]
    table: np.ndarray  # int32 [k + 1, simulations]: see considered_visits
    sigma: np.ndarray  # float64 [MAX_CHILDREN]
    counts: np.ndarray  # float64 [MAX_CHILDREN]
    scores: np.ndarray  # float64 [MAX_CHILDREN]


def new_choice(rows: int, actions: int, table: np.ndarray) -> Choice:
    """A :class:`Choice` with no noise for ``rows`` trees of a game with ``actions`` actions."""
    return Choice(
        np.zeros((rows, actions)),
        table,
        np.zeros(MAX_CHILDREN),
        np.zeros(MAX_CHILDREN),
        np.zeros(MAX_CHILDREN),
    )


@cache
def considered_visits(k: int, simulations: int) -> np.ndarray:
    """Sequential halving's schedule: the visit count a root action must have to be visited next.

    Row ``m`` (``m`` actions considered, ``0 <= m <= k``) has one entry per simulation. Each phase
    gives every remaining action ``max(1, floor(simulations / (ceil(log2 k) * m_phase)))``
    visits, in turn, then halves the actions (never below 2), as in the Gumbel AlphaZero paper
    and mctx.

    Args:
        k: most actions considered.
        simulations: the budget (>= 1).

    Returns:
        int32 ``[k + 1, simulations]`` (read-only).
    """
    table = np.zeros((k + 1, max(simulations, 1)), dtype=np.int32)
    for m in range(k + 1):
        if m <= 1:
            table[m] = np.arange(table.shape[1])
            continue
        phases = math.ceil(math.log2(m))
        sequence: list[int] = []
        counts = [0] * m
        considered = m
        while len(sequence) < simulations:
            extra = max(1, int(simulations / (phases * considered)))
            for _ in range(extra):
                sequence.extend(counts[:considered])
                for i in range(considered):
                    counts[i] += 1
            considered = max(2, considered // 2)
        table[m, :simulations] = sequence[:simulations]
    table.setflags(write=False)
    return table


@njit(cache=True, nogil=True, inline="always")
def select_puct(tree, b, node, numbers):
    """The child maximising AlphaZero's PUCT, with the reference PUCT's arithmetic and ties."""
    first = tree.first_child[b, node]
    count = tree.num_children[b, node]
    vl = numbers[N_VIRTUAL_LOSS]
    c_init, c_base = numbers[N_C], numbers[N_C_BASE]
    parent_visits = max(tree.visits[b, node] + vl * tree.pending[b, node], 1.0)
    scale = c_init
    if c_base > 0.0:
        scale = c_init + np.log((1.0 + parent_visits + c_base) / c_base)
    scale *= np.sqrt(parent_visits)
    best = first
    best_score = -np.inf
    for child in range(first, first + count):
        visits = tree.visits[b, child] + vl * tree.pending[b, child]
        q = tree.value[b, child] / visits if visits > 0 else 0.5
        score = (2.0 * q - 1.0) + scale * tree.prior[b, child] / (1.0 + visits)
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True, nogil=True, inline="always")
def completed_sigma(tree, b, node, numbers, sigma, counts):
    """Write sigma(completed Q) of ``node``'s children into ``sigma`` and their visits (virtual
    ones included) into ``counts``; return the sum of the visits."""
    first = tree.first_child[b, node]
    count = tree.num_children[b, node]
    vl = numbers[N_VIRTUAL_LOSS]
    total = 0.0
    most = 0.0
    prior_sum = 0.0
    weighted = 0.0
    for i in range(count):
        child = first + i
        n = tree.visits[b, child] + vl * tree.pending[b, child]
        counts[i] = n
        total += n
        most = max(most, n)
        if n > 0:
            q = 2.0 * tree.value[b, child] / n - 1.0
            p = max(np.exp(np.float64(tree.logp[b, child])), 1e-30)
            prior_sum += p
            weighted += p * q
    mixed = np.float64(tree.raw_value[b, node])
    if prior_sum > 0.0:
        mixed = (mixed + total * weighted / prior_sum) / (total + 1.0)
    low = np.inf
    high = -np.inf
    for i in range(count):
        child = first + i
        q = 2.0 * tree.value[b, child] / counts[i] - 1.0 if counts[i] > 0 else mixed
        sigma[i] = q
        low = min(low, q)
        high = max(high, q)
    spread = max(high - low, 1e-8)
    factor = (numbers[N_C_VISIT] + most) * numbers[N_C_SCALE]
    for i in range(count):
        sigma[i] = factor * (sigma[i] - low) / spread
    return total


@njit(cache=True, nogil=True, inline="always")
def improved_policy(tree, b, node, sigma, out):
    """``out[i] = softmax(logp + sigma)`` over ``node``'s children."""
    first = tree.first_child[b, node]
    count = tree.num_children[b, node]
    top = -np.inf
    for i in range(count):
        out[i] = tree.logp[b, first + i] + sigma[i]
        top = max(top, out[i])
    total = 0.0
    for i in range(count):
        out[i] = np.exp(out[i] - top)
        total += out[i]
    for i in range(count):
        out[i] /= total


@njit(cache=True, nogil=True, inline="always")
def gumbel_interior_child(tree, b, node, numbers, choice):
    """The paper's deterministic choice below the root: argmax pi'(a) - N(a) / (1 + sum N)."""
    sigma, counts, policy = choice.sigma, choice.counts, choice.scores
    total = completed_sigma(tree, b, node, numbers, sigma, counts)
    improved_policy(tree, b, node, sigma, policy)
    first = tree.first_child[b, node]
    best = first
    best_score = -np.inf
    for i in range(tree.num_children[b, node]):
        score = policy[i] - counts[i] / (1.0 + total)
        if score > best_score:
            best_score = score
            best = first + i
    return best


@njit(cache=True, nogil=True, inline="always")
def gumbel_root_scores(tree, b, numbers, choice):
    """``choice.scores[i] = g(a) + logits(a) + sigma(completed Q(a))`` of the root's children."""
    completed_sigma(tree, b, 0, numbers, choice.sigma, choice.counts)
    first = tree.first_child[b, 0]
    for i in range(tree.num_children[b, 0]):
        child = first + i
        noise = choice.gumbel[b, tree.action[b, child]]
        choice.scores[i] = noise + tree.logp[b, child] + choice.sigma[i]


@njit(cache=True, nogil=True, inline="always")
def gumbel_root_child(tree, b, numbers, choice, k):
    """Sequential halving: the best-scoring considered action among those visited least."""
    gumbel_root_scores(tree, b, numbers, choice)
    scores, table = choice.scores, choice.table
    first = tree.first_child[b, 0]
    count = tree.num_children[b, 0]
    considered = min(k, count)
    done = 0
    for i in range(count):
        done += tree.visits[b, first + i] + tree.pending[b, first + i]
    done = min(done, table.shape[1] - 1)
    target = table[considered, done]
    best = NO_NODE
    best_score = -np.inf
    fallback = first
    fallback_score = -np.inf
    for i in range(count):
        if scores[i] > fallback_score:
            fallback_score = scores[i]
            fallback = first + i
        n = tree.visits[b, first + i] + tree.pending[b, first + i]
        if n == target and scores[i] > best_score:
            best_score = scores[i]
            best = first + i
    return best if best != NO_NODE else fallback


def select_az(tree, b, node, numbers, choice):
    """PUCT's child of ``node``, or with the ``GUMBEL`` switch Gumbel AlphaZero's (sequential
    halving at the root); a template, so a PUCT copy holds no Gumbel code."""
    if not GUMBEL:
        return select_puct(tree, b, node, numbers)
    if node == 0:
        return gumbel_root_child(tree, b, numbers, choice, np.int64(numbers[N_GUMBEL]))
    return gumbel_interior_child(tree, b, node, numbers, choice)
