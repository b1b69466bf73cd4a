"""Batched, compiled AlphaZero search: PUCT or Gumbel AlphaZero over many trees at once.

:class:`BatchedSearch` grows ``batch_size`` trees together (one per root: the positions of many
self-play games, or one position searched with several leaves at a time). Each step of the
search is three calls and no Python per node or per simulation:

1. a compiled kernel walks every tree from its root down to ``leaves_per_tree`` leaves (with
   virtual loss when more than one), and writes each leaf's observation planes and legal-action
   mask straight from its bitboards into one batch;
2. the evaluator (the network) is called once on that batch;
3. a second compiled kernel expands the leaves (children with the softmax of the logits over the
   legal actions as priors) and backs the values up. Finished games are scored exactly, without
   the network.

The trees (:class:`Forest`) are one struct of arrays of shape ``[B, N]`` in the style of mctx: the
same fields as the single tree of :mod:`boardzoo.agents.mcts.tree` (bitboards, visits, value
sums, priors, parent, a contiguous block of children), with a row per tree so one kernel call
works on all of them, plus what the batch and Gumbel need (pending descents for virtual loss,
the network's value of each node and the log-priors). Values are stored, as there, as sums of
scores in ``[0, 1]`` from the point of view of the player who moved into the node, and every
node records its player to move, so a pass (Reversi) needs no special case. Both kernels are
templates compiled once per game through :func:`boardzoo.games.specialise.specialise`.

Root choice:

* AlphaZero PUCT (Silver et al., 2018): ``Q + C(N) * P * sqrt(N) / (1 + n)`` with
  ``C(N) = c_init + log((1 + N + c_base) / c_base)`` (constant ``c_init`` when ``c_base`` is 0),
  unvisited children at ``Q = 0``, Dirichlet noise on the root priors, the most visited action
  (or a sample with a temperature). The same formula, ties and scores as the plain Python
  PUCT of the tests (``tests/reference_puct.py``), so both give the same visit counts.
* Gumbel AlphaZero (Danihelka, Guez, Schrittwieser & Silver, "Policy improvement by planning
  with Gumbel", ICLR 2022): Gumbel-top-k sampling of the root actions, sequential halving of
  the budget among them, the completed-Q transform ``sigma(q) = (c_visit + max_b N(b)) *
  c_scale * q`` (completed Q min-max normalised to ``[0, 1]`` over the legal actions, the
  unvisited ones completed by the mixed value), the improved policy
  ``softmax(logits + sigma(completed Q))`` as the policy target, and below the root the
  deterministic ``argmax(pi'(a) - N(a) / (1 + sum_b N(b)))``.

Tree reuse (``search(..., reuse=True)``, or :meth:`BatchedSearch.advance` with the moves
played): a tree is kept after its search, and the next search of the row continues from the
node holding its new root (matched by bitboards and player to move within two moves of the old
root, passes not counted), with that node's subtree moved in place to the start of the row by a
compiled kernel so the rest of the row is free again. A reused root gets fresh Dirichlet noise on
its own priors (noise is never left in a kept tree); Gumbel searches always start fresh, since
sequential halving plans the whole budget of an empty root.

``simulations`` counts the simulations below the root: each tree's root is evaluated first, once,
and then the root's children receive ``simulations`` visits in all (so an ``MCTSAgent`` with
``simulations + 1`` spends its first simulation on the root and matches this search).
"""

from __future__ import annotations

import math
import time
import types
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardzoo.az.evaluator import Evaluator, cell_squares
from boardzoo.games._bits import U1, lowest_bit_index
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.games.state import BoardState

__all__ = [
    "BatchedSearch",
    "Forest",
    "PUCTConfig",
    "SearchResult",
    "considered_visits",
    "new_forest",
]

NO_NODE = -1
MAX_CHILDREN = 64  # a catalog position (two 64-bit bitboards) has at most 64 moves
_DEFAULT_MAX_NODES = 200_000
_TIMED_NODES = 2**24  # all trees together, for searches with only a deadline
_MAX_TIMED_NODES = 2**22
_MIN_NODES = 1 + MAX_CHILDREN
_REUSE_PLIES = 2  # how far below its last root a reused tree looks for its new root

# Replaced by the game's kernel module in each compiled copy (see _compiled).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


# --- configuration and results -------------------------------------------------------------------


def _number(
    name: str, value: Any, low: float, high: float = math.inf, low_open: bool = False
) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if ok and (not math.isfinite(float(value)) or not low <= float(value) <= high):
        ok = False
    if ok and low_open and float(value) == low:
        ok = False
    if not ok:
        low_text = f"> {low}" if low_open else f">= {low}"
        high_text = f" and <= {high}" if math.isfinite(high) else ""
        raise ValueError(f"{name} must be a finite number {low_text}{high_text}, got {value!r}")
    return float(value)


def _integer(name: str, value: Any, low: int, high: int = 2**62) -> int:
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok or not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class PUCTConfig:
    """How :class:`BatchedSearch` chooses; every value is checked when the config is made.

    Args:
        c_init: PUCT's exploration constant (AlphaZero's ``c_init``), > 0.
        c_base: AlphaZero's schedule ``c_init + log((1 + N + c_base) / c_base)``; 0 keeps the
            constant ``c_init``.
        dirichlet_alpha: concentration of the Dirichlet noise mixed into the root priors when a
            search is asked to add noise (PUCT only); ``None`` for none.
        dirichlet_epsilon: weight of that noise, in ``[0, 1]``.
        gumbel: choose at the root by Gumbel AlphaZero instead of PUCT (and below the root by
            the deterministic improved-policy rule).
        gumbel_k: root actions considered by Gumbel-top-k sampling (at least 1).
        gumbel_scale: scale of the Gumbel noise when a search adds noise (>= 0).
        c_visit: ``c_visit`` of the completed-Q transform (>= 0).
        c_scale: ``c_scale`` of the completed-Q transform (>= 0).
        virtual_loss: lost visits a pending descent adds to each node of its path while the
            leaves of one step are collected (>= 0; used with ``leaves_per_tree > 1``).
        leaves_per_tree: leaves collected from each tree per network call (1 to 256).
        max_nodes: nodes each tree may hold (at least 65; :data:`BYTES_PER_NODE` bytes each,
            touched only when used), or ``None``: enough for the simulation budget (at most
            200,000), or for a search with only a deadline ``max(200,000, min(2**22, 2**24 /
            batch_size))``. Once a tree is full its leaves are evaluated but not expanded.

    Raises:
        ValueError: a value out of range, naming it.
    """

    c_init: float = 1.25
    c_base: float = 19652.0
    dirichlet_alpha: float | None = None
    dirichlet_epsilon: float = 0.25
    gumbel: bool = False
    gumbel_k: int = 16
    gumbel_scale: float = 1.0
    c_visit: float = 50.0
    c_scale: float = 1.0
    virtual_loss: float = 1.0
    leaves_per_tree: int = 1
    max_nodes: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "c_init", _number("c_init", self.c_init, 0.0, low_open=True))
        set_(self, "c_base", _number("c_base", self.c_base, 0.0))
        if self.dirichlet_alpha is not None:
            alpha = _number("dirichlet_alpha", self.dirichlet_alpha, 0.0, low_open=True)
            set_(self, "dirichlet_alpha", alpha)
        set_(self, "dirichlet_epsilon", _number("dirichlet_epsilon", self.dirichlet_epsilon, 0, 1))
        if not isinstance(self.gumbel, (bool, np.bool_)):
            raise ValueError(f"gumbel must be True or False, got {self.gumbel!r}")
        set_(self, "gumbel", bool(self.gumbel))
        set_(self, "gumbel_k", _integer("gumbel_k", self.gumbel_k, 1, MAX_CHILDREN))
        set_(self, "gumbel_scale", _number("gumbel_scale", self.gumbel_scale, 0.0))
        set_(self, "c_visit", _number("c_visit", self.c_visit, 0.0))
        set_(self, "c_scale", _number("c_scale", self.c_scale, 0.0))
        set_(self, "virtual_loss", _number("virtual_loss", self.virtual_loss, 0.0))
        set_(self, "leaves_per_tree", _integer("leaves_per_tree", self.leaves_per_tree, 1, 256))
        if self.max_nodes is not None:
            set_(self, "max_nodes", _integer("max_nodes", self.max_nodes, _MIN_NODES, 2**31 - 1))


@dataclass(frozen=True)
class SearchResult:
    """What one :meth:`BatchedSearch.search` found, a row per root.

    Attributes:
        visits: int32 ``[B, A]``: visits of each root action.
        q: float32 ``[B, A]``: mean value of each root action in ``[-1, 1]`` from the point of
            view of the root's player to move; ``nan`` where unvisited.
        root_value: float32 ``[B]``: mean of every value backed up through the root (its own
            evaluation included), from the root mover's point of view.
        policy_target: float32 ``[B, A]``: PUCT: the visit distribution; Gumbel: the improved
            policy ``softmax(logits + sigma(completed Q))``. Zero on illegal actions, sums to 1.
        action: int64 ``[B]``: PUCT: the most visited action (ties: higher mean value, then
            lower action), or a sample of the visits with a temperature; Gumbel: the winner of
            sequential halving.
        prior: float32 ``[B, A]``: the root priors the search used (after noise).
        simulations: simulations below each root.
        seconds: wall time of the search.
        nodes: int64 ``[B]``: nodes each tree holds.
        network_seconds: the part of ``seconds`` spent inside the evaluator.
        reused: bool ``[B]``: the tree continued a previous search (``search(reuse=True)``).
        inherited: int64 ``[B]``: the visits of the root's actions it started with (0 when
            fresh): ``visits.sum(axis=1) == inherited + simulations``.
    """

    visits: np.ndarray
    q: np.ndarray
    root_value: np.ndarray
    policy_target: np.ndarray
    action: np.ndarray
    prior: np.ndarray
    simulations: int
    seconds: float
    nodes: np.ndarray
    network_seconds: float
    reused: np.ndarray
    inherited: np.ndarray

    @property
    def simulations_per_second(self) -> float:
        """Simulations of all trees together per second."""
        total = self.simulations * len(self.action)
        return total / self.seconds if self.seconds > 0 else float("inf")


class Forest(NamedTuple):
    """``B`` search trees as a struct of arrays: every field but ``used`` is ``[B, N]``."""

    s0: np.ndarray  # uint64: player 0's bitboard
    s1: np.ndarray  # uint64: player 1's bitboard
    player: np.ndarray  # int8: player to move
    terminal: np.ndarray  # int8: 1 when the game is over here
    result: np.ndarray  # int8: player 0's result code (LOSS 0, DRAW 1, WIN 2) when over
    visits: np.ndarray  # int32
    pending: np.ndarray  # int32: descents of this step through the node (virtual loss)
    value: np.ndarray  # float64: sum of scores (0..1) of the player who moved into the node
    raw_value: np.ndarray  # float64: the network's value here, for the player to move
    prior: np.ndarray  # float32: the parent's prior of this node's action
    logp: np.ndarray  # float32: its log (before noise): Gumbel's logits
    parent: np.ndarray  # int32
    first_child: np.ndarray  # int32, NO_NODE until expanded
    num_children: np.ndarray  # int16
    action: np.ndarray  # int16: the action that led here
    used: np.ndarray  # int64 [B]: nodes in use


_FOREST_FIELDS = (
    ("s0", np.uint64),
    ("s1", np.uint64),
    ("player", np.int8),
    ("terminal", np.int8),
    ("result", np.int8),
    ("visits", np.int32),
    ("pending", np.int32),
    ("value", np.float64),
    ("raw_value", np.float64),
    ("prior", np.float32),
    ("logp", np.float32),
    ("parent", np.int32),
    ("first_child", np.int32),
    ("num_children", np.int16),
    ("action", np.int16),
)
BYTES_PER_NODE = sum(np.dtype(dtype).itemsize for _, dtype in _FOREST_FIELDS)


def new_forest(trees: int, max_nodes: int) -> Forest:
    """Empty trees: ``trees`` rows of ``max_nodes`` nodes (pages are touched only when used)."""
    arrays = {name: np.zeros((trees, max_nodes), dtype=dtype) for name, dtype in _FOREST_FIELDS}
    return Forest(**arrays, used=np.zeros(trees, dtype=np.int64))


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


# --- compiled pieces that do not touch the game ----------------------------------------------


@njit(cache=True, nogil=True)
def _puct_child(forest, b, node, c_init, c_base, vl):
    """The child maximising AlphaZero's PUCT, with the reference PUCT's arithmetic and ties."""
    first = forest.first_child[b, node]
    count = forest.num_children[b, node]
    parent_visits = max(forest.visits[b, node] + vl * forest.pending[b, node], 1.0)
    scale = c_init
    if c_base > 0.0:
        scale = c_init + np.log((1.0 + parent_visits + c_base) / c_base)
    scale *= np.sqrt(parent_visits)
    best = first
    best_score = -np.inf
    for child in range(first, first + count):
        visits = forest.visits[b, child] + vl * forest.pending[b, child]
        q = forest.value[b, child] / visits if visits > 0 else 0.5
        score = (2.0 * q - 1.0) + scale * forest.prior[b, child] / (1.0 + visits)
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True, nogil=True)
def _completed_sigma(forest, b, node, vl, c_visit, c_scale, sigma, counts):
    """Write sigma(completed Q) of ``node``'s children into ``sigma`` and their visits (virtual
    ones included) into ``counts``; return the sum of the visits."""
    first = forest.first_child[b, node]
    count = forest.num_children[b, node]
    total = 0.0
    most = 0.0
    prior_sum = 0.0
    weighted = 0.0
    for i in range(count):
        child = first + i
        n = forest.visits[b, child] + vl * forest.pending[b, child]
        counts[i] = n
        total += n
        most = max(most, n)
        if n > 0:
            q = 2.0 * forest.value[b, child] / n - 1.0
            p = max(np.exp(np.float64(forest.logp[b, child])), 1e-30)
            prior_sum += p
            weighted += p * q
    mixed = forest.raw_value[b, node]
    if prior_sum > 0.0:
        mixed = (mixed + total * weighted / prior_sum) / (total + 1.0)
    low = np.inf
    high = -np.inf
    for i in range(count):
        child = first + i
        q = 2.0 * forest.value[b, child] / counts[i] - 1.0 if counts[i] > 0 else mixed
        sigma[i] = q
        low = min(low, q)
        high = max(high, q)
    spread = max(high - low, 1e-8)
    factor = (c_visit + most) * c_scale
    for i in range(count):
        sigma[i] = factor * (sigma[i] - low) / spread
    return total


@njit(cache=True, nogil=True)
def _improved_policy(forest, b, node, sigma, out):
    """``out[i] = softmax(logp + sigma)`` over ``node``'s children."""
    first = forest.first_child[b, node]
    count = forest.num_children[b, node]
    top = -np.inf
    for i in range(count):
        out[i] = forest.logp[b, first + i] + sigma[i]
        top = max(top, out[i])
    total = 0.0
    for i in range(count):
        out[i] = np.exp(out[i] - top)
        total += out[i]
    for i in range(count):
        out[i] /= total


@njit(cache=True, nogil=True)
def _gumbel_interior_child(forest, b, node, vl, c_visit, c_scale, sigma, counts, policy):
    """The paper's deterministic choice below the root: argmax pi'(a) - N(a) / (1 + sum N)."""
    total = _completed_sigma(forest, b, node, vl, c_visit, c_scale, sigma, counts)
    _improved_policy(forest, b, node, sigma, policy)
    first = forest.first_child[b, node]
    best = first
    best_score = -np.inf
    for i in range(forest.num_children[b, node]):
        score = policy[i] - counts[i] / (1.0 + total)
        if score > best_score:
            best_score = score
            best = first + i
    return best


@njit(cache=True, nogil=True)
def _gumbel_root_scores(forest, b, vl, c_visit, c_scale, gumbel, sigma, counts, scores):
    """``scores[i] = g(a) + logits(a) + sigma(completed Q(a))`` of the root's children."""
    _completed_sigma(forest, b, 0, vl, c_visit, c_scale, sigma, counts)
    first = forest.first_child[b, 0]
    for i in range(forest.num_children[b, 0]):
        child = first + i
        scores[i] = gumbel[b, forest.action[b, child]] + forest.logp[b, child] + sigma[i]


@njit(cache=True, nogil=True)
def _gumbel_root_child(forest, b, vl, c_visit, c_scale, gumbel, k, table, sigma, counts, scores):
    """Sequential halving: the best-scoring considered action among those visited least."""
    _gumbel_root_scores(forest, b, vl, c_visit, c_scale, gumbel, sigma, counts, scores)
    first = forest.first_child[b, 0]
    count = forest.num_children[b, 0]
    considered = min(k, count)
    done = 0
    for i in range(count):
        done += forest.visits[b, first + i] + forest.pending[b, first + i]
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
        n = forest.visits[b, first + i] + forest.pending[b, first + i]
        if n == target and scores[i] > best_score:
            best_score = scores[i]
            best = first + i
    return best if best != NO_NODE else fallback


@njit(cache=True, nogil=True)
def _backup(forest, b, leaf, score0):
    """One visit and player 0's score ``score0`` up the path; the pending descent is removed."""
    node = leaf
    while True:
        forest.visits[b, node] += 1
        forest.pending[b, node] -= 1
        parent = forest.parent[b, node]
        mover = forest.player[b, parent] if parent != NO_NODE else 1 - forest.player[b, node]
        forest.value[b, node] += score0 if mover == 0 else 1.0 - score0
        if parent == NO_NODE:
            break
        node = parent


_FIND_STACK = 4096  # nodes a search for a new root may hold pending (2 plies: about 2 * 64)


@njit(cache=True, nogil=True)
def _find_node(forest, b, s0, s1, player, max_plies):
    """The most visited expanded node of tree ``b`` holding the position ``(s0, s1, player)``
    within ``max_plies`` moves of the root (a pass, which leaves the bitboards alone, is not
    counted), or NO_NODE."""
    stack = np.empty(_FIND_STACK, dtype=np.int64)
    depth = np.empty(_FIND_STACK, dtype=np.int64)
    stack[0] = 0
    depth[0] = 0
    top = 1
    best = NO_NODE
    best_visits = -1
    while top > 0:
        top -= 1
        node = stack[top]
        plies = depth[top]
        first = forest.first_child[b, node]
        if first == NO_NODE or forest.terminal[b, node]:
            continue
        same = forest.s0[b, node] == s0 and forest.s1[b, node] == s1
        if same and forest.player[b, node] == player and forest.visits[b, node] > best_visits:
            best = node
            best_visits = forest.visits[b, node]
        for child in range(first, first + forest.num_children[b, node]):
            same = forest.s0[b, child] == forest.s0[b, node]
            same = same and forest.s1[b, child] == forest.s1[b, node]
            below = plies if same else plies + 1
            if below <= max_plies and top < _FIND_STACK:
                stack[top] = child
                depth[top] = below
                top += 1
    return best


@njit(cache=True, nogil=True)
def _compact(forest, b, root, remap):
    """Make node ``root`` the root of tree ``b``: keep only its subtree, moved to the start of the
    row in the order of the old indices (so no node moves up and the move is done in place; a
    block of children stays a block), and return the nodes kept. ``remap`` is scratch space of
    the row's length."""
    used = forest.used[b]
    count = 0
    for x in range(root, used):  # a parent's index is below its children's
        parent = forest.parent[b, x]
        if x == root or (parent >= root and remap[parent] >= 0):
            remap[x] = count
            count += 1
        else:
            remap[x] = NO_NODE
    for x in range(root, used):
        i = remap[x]
        if i < 0:
            continue
        parent = forest.parent[b, x]
        first = forest.first_child[b, x]
        forest.s0[b, i] = forest.s0[b, x]
        forest.s1[b, i] = forest.s1[b, x]
        forest.player[b, i] = forest.player[b, x]
        forest.terminal[b, i] = forest.terminal[b, x]
        forest.result[b, i] = forest.result[b, x]
        forest.visits[b, i] = forest.visits[b, x]
        forest.pending[b, i] = forest.pending[b, x]
        forest.value[b, i] = forest.value[b, x]
        forest.raw_value[b, i] = forest.raw_value[b, x]
        forest.prior[b, i] = forest.prior[b, x]
        forest.logp[b, i] = forest.logp[b, x]
        forest.parent[b, i] = NO_NODE if x == root else remap[parent]
        forest.first_child[b, i] = NO_NODE if first == NO_NODE else remap[first]
        forest.num_children[b, i] = forest.num_children[b, x]
        forest.action[b, i] = forest.action[b, x]
    forest.prior[b, 0] = 1.0
    forest.logp[b, 0] = 0.0
    forest.action[b, 0] = -1
    forest.used[b] = count
    return count


@njit(cache=True, nogil=True)
def _root_stats(forest, trees, gumbel_mode, gumbel, vl, c_visit, c_scale, visits, q, policy,
                prior, action, root_value):  # fmt: skip
    """Fill the result arrays of the first ``trees`` trees (see :class:`SearchResult`)."""
    sigma = np.zeros(MAX_CHILDREN)
    counts = np.zeros(MAX_CHILDREN)
    scores = np.zeros(MAX_CHILDREN)
    improved = np.zeros(MAX_CHILDREN)
    for b in range(trees):
        root_visits = forest.visits[b, 0]
        root_value[b] = 1.0 - 2.0 * forest.value[b, 0] / max(root_visits, 1)
        first = forest.first_child[b, 0]
        count = forest.num_children[b, 0]
        total = 0
        best = NO_NODE
        best_n = 0
        best_mean = -1.0
        for i in range(count):
            child = first + i
            a = forest.action[b, child]
            n = forest.visits[b, child]
            visits[b, a] = n
            prior[b, a] = forest.prior[b, child]
            total += n
            if n > 0:
                mean = forest.value[b, child] / n
                q[b, a] = 2.0 * mean - 1.0
                if n > best_n or (n == best_n and mean > best_mean):  # MCTSAgent's "robust"
                    best, best_n, best_mean = child, n, mean
        if gumbel_mode:
            _gumbel_root_scores(forest, b, vl, c_visit, c_scale, gumbel, sigma, counts, scores)
            _improved_policy(forest, b, 0, sigma, improved)
            most = 0
            for i in range(count):
                most = max(most, forest.visits[b, first + i])
            best = NO_NODE
            best_score = -np.inf
            for i in range(count):
                child = first + i
                policy[b, forest.action[b, child]] = improved[i]
                if forest.visits[b, child] == most and scores[i] > best_score:
                    best_score = scores[i]
                    best = child
        else:
            for i in range(count):
                child = first + i
                if total > 0:
                    policy[b, forest.action[b, child]] = forest.visits[b, child] / total
                else:
                    policy[b, forest.action[b, child]] = forest.prior[b, child]
            if best == NO_NODE:  # nothing visited: the highest prior
                best = first
                for i in range(count):
                    if forest.prior[b, first + i] > forest.prior[b, best]:
                        best = first + i
        action[b] = forest.action[b, best]


# --- templates compiled per game (they call the game's kernels) ------------------------------


def write_leaf(forest, b, node, params, squares, cols, observations, masks, e):
    """Write the observation planes and legal mask of node ``node`` of tree ``b`` into row ``e``."""
    s0 = forest.s0[b, node]
    s1 = forest.s1[b, node]
    player = forest.player[b, node]
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


def expand(forest, b, node, logits, e, params):
    """Add ``node``'s children, sorted by action, with the softmax of ``logits[e]`` as priors.

    A position in play without a placement gets one child, the pass. Returns False (and adds
    nothing) when the tree is full.
    """
    s0 = forest.s0[b, node]
    s1 = forest.s1[b, node]
    player = forest.player[b, node]
    cells = kernels.placements(s0, s1, player, params)
    moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    actions = np.empty(MAX_CHILDREN, dtype=np.int64)
    count = 0
    if cells == 0:
        moves[0] = -1
        actions[0] = kernels.cell_action(-1, params)
        count = 1
    while cells:
        cell = lowest_bit_index(cells)
        cells &= cells - U1
        action = kernels.cell_action(cell, params)
        i = count
        while i > 0 and actions[i - 1] > action:  # insertion sort by action
            actions[i] = actions[i - 1]
            moves[i] = moves[i - 1]
            i -= 1
        actions[i] = action
        moves[i] = cell
        count += 1
    first = forest.used[b]
    if first + count > forest.s0.shape[1]:
        return False
    forest.used[b] = first + count
    forest.first_child[b, node] = first
    forest.num_children[b, node] = count
    top = -np.inf
    for i in range(count):
        top = max(top, np.float64(logits[e, actions[i]]))
    total = 0.0
    for i in range(count):
        total += np.exp(np.float64(logits[e, actions[i]]) - top)
    log_total = np.log(total)
    next_player = 1 - player
    for i in range(count):
        child = first + i
        c0, c1 = kernels.place(s0, s1, player, moves[i], params)
        over, result = kernels.outcome(c0, c1, next_player, params)
        logp = np.float64(logits[e, actions[i]]) - top - log_total
        forest.s0[b, child] = c0
        forest.s1[b, child] = c1
        forest.player[b, child] = next_player
        forest.terminal[b, child] = over
        forest.result[b, child] = result
        forest.visits[b, child] = 0
        forest.pending[b, child] = 0
        forest.value[b, child] = 0.0
        forest.raw_value[b, child] = 0.0
        forest.prior[b, child] = np.exp(np.float64(logits[e, actions[i]]) - top) / total
        forest.logp[b, child] = logp
        forest.parent[b, child] = node
        forest.first_child[b, child] = NO_NODE
        forest.num_children[b, child] = 0
        forest.action[b, child] = actions[i]
    return True


def select_leaves(forest, trees, leaves, active, c_init, c_base, vl, gumbel_mode, gumbel, k,
                  table, c_visit, c_scale, params, squares, cols, leaf_tree, leaf_node, leaf_row,
                  observations, masks):  # fmt: skip
    """Walk each of the first ``trees`` trees with ``active[b]`` set to ``leaves`` leaves; encode
    those to evaluate.

    Leaf ``j`` is node ``leaf_node[j]`` of tree ``leaf_tree[j]``; ``leaf_row[j]`` is its row in
    ``observations`` / ``masks``, or -1 for a finished game (scored exactly). Once a descent
    ends, every node of its path counts it as pending: the later descents of the step see
    ``vl`` lost visits per pending descent (virtual loss).
    Returns the number of leaves and of rows written.
    """
    sigma = np.zeros(MAX_CHILDREN)
    counts = np.zeros(MAX_CHILDREN)
    scores = np.zeros(MAX_CHILDREN)
    found = 0
    rows = 0
    for b in range(trees):
        if not active[b]:
            continue
        for _ in range(leaves):
            node = 0
            while forest.terminal[b, node] == 0 and forest.first_child[b, node] != NO_NODE:
                if not gumbel_mode:
                    node = _puct_child(forest, b, node, c_init, c_base, vl)
                elif node == 0:
                    node = _gumbel_root_child(
                        forest, b, vl, c_visit, c_scale, gumbel, k, table, sigma, counts, scores
                    )
                else:
                    node = _gumbel_interior_child(
                        forest, b, node, vl, c_visit, c_scale, sigma, counts, scores
                    )
            up = node  # the path's pending descent, seen by the next descents of this step
            while up != NO_NODE:
                forest.pending[b, up] += 1
                up = forest.parent[b, up]
            leaf_tree[found] = b
            leaf_node[found] = node
            if forest.terminal[b, node]:
                leaf_row[found] = -1
            else:
                leaf_row[found] = rows
                write_leaf(forest, b, node, params, squares, cols, observations, masks, rows)
                rows += 1
            found += 1
    return found, rows


def expand_and_backup(forest, found, leaf_tree, leaf_node, leaf_row, logits, values, params):
    """Expand the leaves with their priors and back their values (or exact results) up."""
    for j in range(found):
        b = leaf_tree[j]
        node = leaf_node[j]
        row = leaf_row[j]
        player = forest.player[b, node]
        if row < 0:
            score0 = forest.result[b, node] * 0.5
        else:
            value = min(1.0, max(-1.0, np.float64(values[row])))
            score = (value + 1.0) / 2.0
            score0 = score if player == 0 else 1.0 - score
            if forest.first_child[b, node] == NO_NODE:
                forest.raw_value[b, node] = value
                expand(forest, b, node, logits, row, params)
        _backup(forest, b, node, score0)


@cache
def _compiled(game: Game) -> dict[str, Any]:
    return specialise((write_leaf, expand, select_leaves, expand_and_backup), game.kernels)


# --- the search ----------------------------------------------------------------------------------


class BatchedSearch:
    """PUCT or Gumbel AlphaZero search of up to ``batch_size`` positions at once.

    One network call per step evaluates the leaves of every tree; everything else is compiled.
    The trees are kept between calls. A search starts fresh, or, with ``reuse=True``, from what
    the previous searches left: tree ``b`` (the tree of ``roots[b]``) continues from the node
    that holds its new root when that node is within two moves (passes not counted) of its last
    root, or where :meth:`advance` moved it; the node's subtree (visits, values, priors,
    children) is kept and moved to the start of the tree's row, so the rest of the row is free
    again. Gumbel searches never reuse (sequential halving plans the whole budget of a fresh
    root): they start fresh whatever ``reuse`` says.

    Args:
        game: the game searched.
        batch_size: most roots per search (1 to 65,536).
        config: the search's settings.
        seed: seed of the noise and of the sampling with a temperature (an int >= 0); per-root
            seeds given to :meth:`search` take its place.

    Raises:
        ValueError: a bad ``batch_size`` or ``seed``.
    """

    def __init__(
        self, game: Game, batch_size: int, config: PUCTConfig | None = None, seed: int = 0
    ) -> None:
        if not isinstance(game, Game):
            raise ValueError(f"game must be a boardzoo Game, got {game!r}")
        self.game = game
        self.batch_size = _integer("batch_size", batch_size, 1, 65_536)
        self.config = config if config is not None else PUCTConfig()
        if not isinstance(self.config, PUCTConfig):
            raise ValueError(f"config must be a PUCTConfig, got {config!r}")
        self.seed = _integer("seed", seed, 0)
        self._rng = np.random.default_rng(self.seed)
        self._squares = cell_squares(game)
        self._kernels = _compiled(game)
        self._forest: Forest | None = None
        self._remap = np.zeros(0, dtype=np.int64)  # scratch of _compact, a row long
        # Tree b holds a finished search (the root at node 0, priors without noise): reusable.
        self._kept = np.zeros(self.batch_size, dtype=bool)
        self._every_tree = np.ones(self.batch_size, dtype=bool)
        rows = self.batch_size * self.config.leaves_per_tree
        self._leaf_tree = np.zeros(rows, dtype=np.int64)
        self._leaf_node = np.zeros(rows, dtype=np.int64)
        self._leaf_row = np.zeros(rows, dtype=np.int64)
        self._observations = np.zeros((rows, 2, game.rows, game.cols), dtype=np.float32)
        self._masks = np.zeros((rows, game.num_actions), dtype=bool)
        self.network_seconds = 0.0  # time spent in the evaluator by the last search

    @property
    def forest(self) -> Forest | None:
        """The trees as the last search or :meth:`advance` left them (``None`` before any
        search): tree ``b`` is row ``b``, its root at node 0. For reading; the search owns it."""
        return self._forest

    def _nodes_for(self, simulations: int | None, kept: int) -> int:
        if self.config.max_nodes is not None:
            return self.config.max_nodes
        if simulations is None:  # a time limit: room for long searches of few trees
            return max(_DEFAULT_MAX_NODES, min(_MAX_TIMED_NODES, _TIMED_NODES // self.batch_size))
        children = min(self.game.num_actions, MAX_CHILDREN)
        wanted = kept + 1 + (simulations + 1) * children
        return max(_MIN_NODES, min(_DEFAULT_MAX_NODES, wanted))

    def _room(self, nodes: int) -> Forest:
        """The forest, grown to ``nodes`` nodes a row if smaller (the kept trees copied over)."""
        old = self._forest
        if old is not None and old.s0.shape[1] >= nodes:
            return old
        forest = self._forest = new_forest(self.batch_size, nodes)
        self._remap = np.zeros(nodes, dtype=np.int64)
        if old is not None:
            for b in np.flatnonzero(self._kept):
                used = int(old.used[b])
                for name in Forest._fields[:-1]:
                    getattr(forest, name)[b, :used] = getattr(old, name)[b, :used]
                forest.used[b] = used
        return forest

    def _reuse(self, roots: Sequence[BoardState]) -> np.ndarray:
        """Re-root each kept tree at the node holding its new root; return which trees were."""
        reused = np.zeros(len(roots), dtype=bool)
        forest = self._forest
        if forest is None or self.config.gumbel:
            return reused
        for b, state in enumerate(roots):
            if not self._kept[b]:
                continue
            s0, s1 = state.bitboards()
            node = _find_node(
                forest, b, np.uint64(s0), np.uint64(s1), state.current_player, _REUSE_PLIES
            )
            if node == NO_NODE:
                continue
            if node != 0:
                _compact(forest, b, node, self._remap)
            reused[b] = True
        return reused

    def _prepare(
        self, roots: Sequence[BoardState], simulations: int | None, reuse: bool
    ) -> tuple[Forest, np.ndarray]:
        n = len(roots)
        reused = self._reuse(roots) if reuse else np.zeros(n, dtype=bool)
        self._kept[:n] = reused  # the trees a larger forest must copy
        kept = 0
        if self._forest is not None and reused.any():
            kept = int(self._forest.used[:n][reused].max())
        forest = self._room(self._nodes_for(simulations, kept))
        self._kept[:n] = False  # until this search has finished
        fresh = np.flatnonzero(~reused)
        bits = np.array([roots[int(b)].bitboards() for b in fresh], dtype=np.uint64).reshape(-1, 2)
        forest.s0[fresh, 0] = bits[:, 0]
        forest.s1[fresh, 0] = bits[:, 1]
        forest.player[fresh, 0] = [roots[int(b)].current_player for b in fresh]
        forest.terminal[fresh, 0] = 0
        forest.visits[fresh, 0] = 0
        forest.pending[fresh, 0] = 0
        forest.value[fresh, 0] = 0.0
        forest.prior[fresh, 0] = 1.0
        forest.parent[fresh, 0] = NO_NODE
        forest.first_child[fresh, 0] = NO_NODE
        forest.num_children[fresh, 0] = 0
        forest.action[fresh, 0] = -1
        forest.used[fresh] = 1
        return forest, reused

    def _check_roots(self, roots: Sequence[BoardState]) -> None:
        if not 1 <= len(roots) <= self.batch_size:
            raise ValueError(f"roots must hold 1..{self.batch_size} positions, got {len(roots)}")
        for i, state in enumerate(roots):
            if getattr(state, "game", None) is not self.game:
                raise ValueError(f"roots[{i}] is not a position of {self.game!r}: {state!r}")
            if state.is_terminal():
                raise ValueError(f"roots[{i}] is a finished game: there is nothing to search")

    def _step(self, forest: Forest, trees: int, leaves: int, active: np.ndarray,
              evaluator: Evaluator, needs_states: bool, gumbel: np.ndarray,
              table: np.ndarray) -> None:  # fmt: skip
        config = self.config
        found, rows = self._kernels["select_leaves"](
            forest, trees, leaves, active, config.c_init, config.c_base, config.virtual_loss,
            config.gumbel, gumbel, config.gumbel_k, table, config.c_visit, config.c_scale,
            self.game.params, self._squares, self.game.cols, self._leaf_tree, self._leaf_node,
            self._leaf_row, self._observations, self._masks,
        )  # fmt: skip
        num_actions = self.game.num_actions
        if rows:
            start = time.perf_counter()
            if needs_states:
                states = self._leaf_states(forest, found)
                logits, values = evaluator(  # type: ignore[call-arg]
                    self._observations[:rows], self._masks[:rows], states=states
                )
            else:
                logits, values = evaluator(self._observations[:rows], self._masks[:rows])
            self.network_seconds += time.perf_counter() - start
            logits = np.ascontiguousarray(logits, dtype=np.float32)
            values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
            if logits.shape != (rows, num_actions) or values.shape != (rows,):
                raise ValueError(
                    f"the evaluator must return logits [{rows}, {num_actions}] and values "
                    f"[{rows}], got {logits.shape} and {values.shape}"
                )
        else:
            logits = np.zeros((0, num_actions), np.float32)
            values = np.zeros(0, np.float32)
        self._kernels["expand_and_backup"](
            forest, found, self._leaf_tree, self._leaf_node, self._leaf_row, logits, values,
            self.game.params,
        )  # fmt: skip

    def _leaf_states(self, forest: Forest, found: int) -> list[BoardState]:
        """The positions of this step's rows, for evaluators that ask for them."""
        make = self.game.state_from_bitboards
        states = []
        for j in range(found):
            if self._leaf_row[j] >= 0:
                tree, node = self._leaf_tree[j], self._leaf_node[j]
                states.append(
                    make(int(forest.s0[tree, node]), int(forest.s1[tree, node]),
                         int(forest.player[tree, node]))
                )  # fmt: skip
        return states

    def _generators(self, n: int, seeds: Sequence[int] | None) -> list[np.random.Generator] | None:
        if seeds is None:
            return None
        if len(seeds) != n:
            raise ValueError(f"seeds must hold one seed per root ({n}), got {len(seeds)}")
        return [np.random.default_rng(_integer("seed", s, 0)) for s in seeds]

    def _draw(self, generators: list[np.random.Generator] | None, n: int, kind: str,
              alpha: float = 1.0) -> np.ndarray:  # fmt: skip
        size = self.game.num_actions
        if generators is None:
            if kind == "gumbel":
                return self._rng.gumbel(size=(n, size))
            return self._rng.standard_gamma(alpha, size=(n, size))
        if kind == "gumbel":
            return np.stack([g.gumbel(size=size) for g in generators])
        return np.stack([g.standard_gamma(alpha, size=size) for g in generators])

    def _add_dirichlet(
        self, forest: Forest, n: int, draws: np.ndarray
    ) -> list[tuple[int, slice, np.ndarray]]:
        """Mix the noise into the root priors; return what to restore after the search."""
        config = self.config
        epsilon = config.dirichlet_epsilon
        clean = []
        for b in range(n):
            count = int(forest.num_children[b, 0])
            first = int(forest.first_child[b, 0])
            if first == NO_NODE:
                continue
            children = slice(first, first + count)
            clean.append((b, children, forest.prior[b, children].copy()))
            noise = draws[b, forest.action[b, children]]
            total = noise.sum()
            noise = noise / total if total > 0 else np.full(count, 1.0 / count)
            mixed = (1 - epsilon) * forest.prior[b, children].astype(np.float64) + epsilon * noise
            forest.prior[b, children] = mixed
        return clean

    def search(
        self,
        roots: Sequence[BoardState],
        evaluator: Evaluator,
        simulations: int | None = None,
        deadline: float | None = None,
        add_noise: bool = False,
        temperature: float = 0.0,
        seeds: Sequence[int] | None = None,
        reuse: bool = False,
    ) -> SearchResult:
        """Search every root with ``simulations`` simulations (or until ``deadline``).

        Args:
            roots: positions in play of the game, at most ``batch_size``; ``roots[b]`` is
                searched in tree ``b``.
            evaluator: the network (see :class:`~boardzoo.az.evaluator.Evaluator`).
            simulations: new simulations below each root (>= 1); required by Gumbel (its
                halving schedule is planned on it); ``None`` with a deadline: as many as fit.
            deadline: a ``time.perf_counter()`` time after which no new step starts (the first
                step always runs), or ``None``.
            add_noise: PUCT: mix Dirichlet noise into the root priors (when the config has a
                ``dirichlet_alpha``; a reused root gets fresh noise on its own priors, and the
                priors are restored after the search); Gumbel: sample the Gumbel noise
                (without it, the search is deterministic: the top-k actions by prior).
            temperature: PUCT only: 0 plays the most visited action; above 0, a sample of the
                visits raised to ``1 / temperature``.
            seeds: one seed per root for its noise and sampling, so a root's search does not
                depend on the other roots; ``None``: the search's own seeded stream.
            reuse: PUCT only: continue tree ``b`` from the node holding ``roots[b]`` when its
                previous search (or :meth:`advance`) left one within two moves of its root
                (passes not counted) that was expanded; the rest start fresh.

        Returns:
            The :class:`SearchResult`; its ``reused`` and ``inherited`` say which trees were
            continued and with how many visits of the root's actions.

        Raises:
            ValueError: bad roots, budget, temperature or seeds, or an evaluator's output of the
                wrong shape.
        """
        start = time.perf_counter()
        self._check_roots(roots)
        if simulations is None and deadline is None:
            raise ValueError("give simulations, a deadline, or both")
        if simulations is not None:
            simulations = _integer("simulations", simulations, 1)
        if self.config.gumbel and simulations is None:
            raise ValueError("Gumbel search needs a simulation budget (simulations=...)")
        temperature = _number("temperature", temperature, 0.0)
        if deadline is not None:
            deadline = _number("deadline", deadline, -math.inf)
        if not isinstance(reuse, (bool, np.bool_)):
            raise ValueError(f"reuse must be True or False, got {reuse!r}")
        n = len(roots)
        generators = self._generators(n, seeds)
        config = self.config
        needs_states = bool(getattr(evaluator, "needs_states", False))
        self.network_seconds = 0.0
        forest, reused = self._prepare(roots, simulations, bool(reuse))
        inherited = np.zeros(n, dtype=np.int64)
        for b in np.flatnonzero(reused):
            first = int(forest.first_child[b, 0])
            inherited[b] = forest.visits[b, first : first + int(forest.num_children[b, 0])].sum()
        table = considered_visits(config.gumbel_k, simulations or 1)
        gumbel = np.zeros((n, self.game.num_actions))
        every = self._every_tree
        self._step(forest, n, 1, ~reused, evaluator, needs_states, gumbel, table)  # the roots
        clean: list[tuple[int, slice, np.ndarray]] = []
        if add_noise and config.gumbel:
            gumbel = config.gumbel_scale * self._draw(generators, n, "gumbel")
        elif add_noise and config.dirichlet_alpha is not None:
            draws = self._draw(generators, n, "dirichlet", config.dirichlet_alpha)
            clean = self._add_dirichlet(forest, n, draws)
        budget = simulations if simulations is not None else 2**62
        done = 0
        leaves = config.leaves_per_tree
        while done < budget:
            leaves = min(leaves, budget - done)
            self._step(forest, n, leaves, every, evaluator, needs_states, gumbel, table)
            done += leaves
            if deadline is not None and time.perf_counter() >= deadline:
                break
        num_actions = self.game.num_actions
        visits = np.zeros((n, num_actions), dtype=np.int32)
        q = np.full((n, num_actions), np.nan, dtype=np.float32)
        policy = np.zeros((n, num_actions), dtype=np.float32)
        prior = np.zeros((n, num_actions), dtype=np.float32)
        action = np.zeros(n, dtype=np.int64)
        root_value = np.zeros(n, dtype=np.float32)
        _root_stats(
            forest, n, config.gumbel, gumbel, config.virtual_loss, config.c_visit,
            config.c_scale, visits, q, policy, prior, action, root_value,
        )  # fmt: skip
        for tree, children, priors in clean:  # the kept trees hold the network's priors
            forest.prior[tree, children] = priors
        self._kept[:n] = True
        if temperature > 0 and not config.gumbel:
            action = self._sample(visits, temperature, generators)
        return SearchResult(
            visits=visits,
            q=q,
            root_value=root_value,
            policy_target=policy,
            action=action,
            prior=prior,
            simulations=done,
            seconds=time.perf_counter() - start,
            nodes=forest.used[:n].copy(),
            network_seconds=self.network_seconds,
            reused=reused,
            inherited=inherited,
        )

    def warm_up(self, evaluator: Evaluator) -> None:
        """Compile (or load from numba's cache) every kernel a search of this game runs, tree
        reuse included, by searching the start position and then one of its children; call it
        before any clock starts. No tree is left for a later ``reuse=True`` search.

        Args:
            evaluator: the network (any evaluator of this game).
        """
        root = self.game.initial_state()
        chosen = self.search([root], evaluator, simulations=8).action[0]
        if not self.config.gumbel:  # Gumbel never reuses its tree
            child = root.apply(int(chosen))  # the most visited child: expanded, so reused
            self.search([child], evaluator, simulations=2, reuse=True)
        self._kept[:] = False

    def advance(self, tree: int, actions: Sequence[int]) -> bool:
        """Move tree ``tree``'s root down the moves ``actions`` played since its last search.

        The subtree under the node reached is kept (moved to the start of the tree's row); the
        next ``search(..., reuse=True)`` continues from it when its root is that position. When
        the moves leave the tree (a node not expanded yet), the tree is dropped and the next
        search of it starts fresh.

        Args:
            tree: which tree (0-based, below ``batch_size``).
            actions: the moves, in order (the agent's and the opponent's, passes included).

        Returns:
            Whether the tree was kept.

        Raises:
            ValueError: a bad ``tree``, or an action that is not legal where it is played.
        """
        tree = _integer("tree", tree, 0, self.batch_size - 1)
        forest = self._forest
        if forest is None or not self._kept[tree]:
            return False
        node = 0
        for i, action in enumerate(actions):
            action = _integer(f"actions[{i}]", action, 0, self.game.num_actions - 1)
            first = int(forest.first_child[tree, node])
            if first == NO_NODE or forest.terminal[tree, node]:
                self._kept[tree] = False
                return False
            count = int(forest.num_children[tree, node])
            match = np.flatnonzero(forest.action[tree, first : first + count] == action)
            if match.size == 0:
                legal = sorted(forest.action[tree, first : first + count].tolist())
                raise ValueError(
                    f"actions[{i}]={action} is not legal there; legal actions: {legal}"
                )
            node = first + int(match[0])
        if forest.first_child[tree, node] == NO_NODE or forest.terminal[tree, node]:
            self._kept[tree] = False
            return False
        if node != 0:
            _compact(forest, tree, node, self._remap)
        return True

    def principal_variation(self, tree: int = 0, max_length: int = 64) -> list[int]:
        """The most visited line of tree ``tree`` of the last search: its actions from the root.

        Each step takes the most visited child (the lower action on ties) and stops at a node
        without visited children.

        Args:
            tree: which root of the last search (0-based).
            max_length: the most actions returned.

        Returns:
            The actions, the root's move first (empty before any search).
        """
        forest = self._forest
        if forest is None:
            return []
        tree = _integer("tree", tree, 0, self.batch_size - 1)
        line: list[int] = []
        node = 0
        while len(line) < max_length and forest.first_child[tree, node] != NO_NODE:
            first = int(forest.first_child[tree, node])
            count = int(forest.num_children[tree, node])
            visits = forest.visits[tree, first : first + count]
            if visits.max() <= 0:
                break
            node = first + int(np.argmax(visits))
            line.append(int(forest.action[tree, node]))
        return line

    def _sample(
        self, visits: np.ndarray, temperature: float, generators: list[np.random.Generator] | None
    ) -> np.ndarray:
        counts = visits.astype(np.float64)
        top = counts.max(axis=1, keepdims=True)
        weights = np.where(counts > 0, (counts / np.maximum(top, 1)) ** (1.0 / temperature), 0.0)
        weights /= weights.sum(axis=1, keepdims=True)
        if generators is None:
            draws = self._rng.random(len(visits))
        else:
            draws = np.array([g.random() for g in generators])
        cumulative = np.cumsum(weights, axis=1)
        # The first action whose cumulative weight passes the draw: always one with weight > 0.
        picks = np.argmax(cumulative > draws[:, None] * cumulative[:, -1:], axis=1)
        return picks.astype(np.int64)
