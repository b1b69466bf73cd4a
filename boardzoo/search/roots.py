"""The roots of a batched AlphaZero search: noise in their priors, their statistics, a sample.

:func:`add_dirichlet` mixes AlphaZero's Dirichlet noise into the root priors (and says what to
restore afterwards: a kept tree never holds noise); :func:`draw_noise` draws that noise, or
Gumbel AlphaZero's, from one stream or from one seeded stream per root; :func:`root_stats` reads
each root's visits, values, policy target and chosen action out of the trees in one compiled
call; :func:`sample_visits` samples an action from the visits with a temperature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from numba import njit

from boardzoo.checks import check_int
from boardzoo.errors import InvalidValueError
from boardzoo.search.select import gumbel_root_scores, improved_policy
from boardzoo.search.tree import MAX_CHILDREN, NO_NODE, Tree

__all__ = ["add_dirichlet", "draw_noise", "root_stats", "sample_visits", "seeded_generators"]

Generators = list[np.random.Generator] | None


def seeded_generators(n: int, seeds: Sequence[int] | None) -> Generators:
    """One generator per root from ``seeds`` (integers >= 0), or ``None`` without seeds."""
    if seeds is None:
        return None
    if len(seeds) != n:
        raise InvalidValueError(f"seeds must hold one seed per root ({n}), got {len(seeds)}")
    return [np.random.default_rng(check_int("seed", s, 0)) for s in seeds]


def draw_noise(
    rng: np.random.Generator,
    generators: Generators,
    shape: tuple[int, int],
    kind: str,
    alpha: float = 1.0,
) -> np.ndarray:
    """``shape = (roots, actions)`` draws: standard Gumbel (``kind="gumbel"``) or Gamma(alpha)
    (``"dirichlet"``, normalised over the legal actions by :func:`add_dirichlet`); a row per
    root from its own generator, or all from ``rng`` when ``generators`` is ``None``."""
    n, size = shape
    if generators is None:
        if kind == "gumbel":
            return rng.gumbel(size=(n, size))
        return rng.standard_gamma(alpha, size=(n, size))
    if kind == "gumbel":
        return np.stack([g.gumbel(size=size) for g in generators])
    return np.stack([g.standard_gamma(alpha, size=size) for g in generators])


def add_dirichlet(
    forest: Tree, n: int, draws: np.ndarray, epsilon: float
) -> list[tuple[int, slice, np.ndarray]]:
    """Mix the noise into the priors of the first ``n`` roots with weight ``epsilon``; return
    ``(tree, children, priors)`` to restore after the search."""
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


def sample_visits(
    visits: np.ndarray, temperature: float, rng: np.random.Generator, generators: Generators
) -> np.ndarray:
    """An action per row of ``visits`` (``[roots, actions]``), drawn with probability
    proportional to ``visits ** (1 / temperature)``."""
    counts = visits.astype(np.float64)
    top = counts.max(axis=1, keepdims=True)
    weights = np.where(counts > 0, (counts / np.maximum(top, 1)) ** (1.0 / temperature), 0.0)
    weights /= weights.sum(axis=1, keepdims=True)
    if generators is None:
        draws = rng.random(len(visits))
    else:
        draws = np.array([g.random() for g in generators])
    cumulative = np.cumsum(weights, axis=1)
    # The first action whose cumulative weight passes the draw: always one with weight > 0.
    picks = np.argmax(cumulative > draws[:, None] * cumulative[:, -1:], axis=1)
    return cast("np.ndarray", picks.astype(np.int64))


@njit(cache=True, nogil=True)
def root_stats(tree, trees, gumbel_mode, numbers, choice, visits, q, policy, prior, action,
                root_value):  # fmt: skip
    """Fill the result arrays of the first ``trees`` trees (see :class:`SearchResult`)."""
    improved = np.zeros(MAX_CHILDREN)
    for b in range(trees):
        root_visits = tree.visits[b, 0]
        root_value[b] = 1.0 - 2.0 * tree.value[b, 0] / max(root_visits, 1)
        first = tree.first_child[b, 0]
        count = tree.num_children[b, 0]
        total = 0
        best = NO_NODE
        best_n = 0
        best_mean = -1.0
        for i in range(count):
            child = first + i
            a = tree.action[b, child]
            n = tree.visits[b, child]
            visits[b, a] = n
            prior[b, a] = tree.prior[b, child]
            total += n
            if n > 0:
                mean = tree.value[b, child] / n
                q[b, a] = 2.0 * mean - 1.0
                if n > best_n or (n == best_n and mean > best_mean):  # MCTSAgent's "robust"
                    best, best_n, best_mean = child, n, mean
        if gumbel_mode:
            gumbel_root_scores(tree, b, numbers, choice)
            improved_policy(tree, b, 0, choice.sigma, improved)
            scores = choice.scores
            most = 0
            for i in range(count):
                most = max(most, tree.visits[b, first + i])
            best = NO_NODE
            best_score = -np.inf
            for i in range(count):
                child = first + i
                policy[b, tree.action[b, child]] = improved[i]
                if tree.visits[b, child] == most and scores[i] > best_score:
                    best_score = scores[i]
                    best = child
        else:
            for i in range(count):
                child = first + i
                if total > 0:
                    policy[b, tree.action[b, child]] = tree.visits[b, child] / total
                else:
                    policy[b, tree.action[b, child]] = tree.prior[b, child]
            if best == NO_NODE:  # nothing visited: the highest prior
                best = first
                for i in range(count):
                    if tree.prior[b, first + i] > tree.prior[b, best]:
                        best = first + i
        action[b] = tree.action[b, best]
