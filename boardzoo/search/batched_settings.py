"""The settings and the results of AlphaZero's batched search (:mod:`boardzoo.search.batched`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardzoo.checks import check_int, check_number
from boardzoo.errors import InvalidValueError
from boardzoo.search.tree import MAX_CHILDREN, MAX_NODES, MIN_NODES

__all__ = ["BatchedSearchSettings", "SearchResult"]


@dataclass(frozen=True)
class BatchedSearchSettings:
    """How :class:`BatchedSearch` chooses; every value is checked when the settings are made.

    The PUCT agents and AlphaZero's training make theirs from the agents' options with
    :meth:`~boardzoo.agents.settings.PUCTSettings.batched_settings`.

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
        solve_empties: leaves with at most this many empty squares are solved by the game's
            solver instead of evaluated, their results exact (0: never;
            :mod:`boardzoo.search.handover`).

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
    solve_empties: int = 0

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "c_init", check_number("c_init", self.c_init, 0.0, None, True))
        set_(self, "c_base", check_number("c_base", self.c_base, 0.0, None, False))
        if self.dirichlet_alpha is not None:
            alpha = check_number("dirichlet_alpha", self.dirichlet_alpha, 0.0, None, True)
            set_(self, "dirichlet_alpha", alpha)
        set_(
            self,
            "dirichlet_epsilon",
            check_number("dirichlet_epsilon", self.dirichlet_epsilon, 0, 1, False),
        )
        if not isinstance(self.gumbel, (bool, np.bool_)):
            raise InvalidValueError(f"gumbel must be True or False, got {self.gumbel!r}")
        set_(self, "gumbel", bool(self.gumbel))
        set_(self, "gumbel_k", check_int("gumbel_k", self.gumbel_k, 1, MAX_CHILDREN))
        set_(
            self, "gumbel_scale", check_number("gumbel_scale", self.gumbel_scale, 0.0, None, False)
        )
        set_(self, "c_visit", check_number("c_visit", self.c_visit, 0.0, None, False))
        set_(self, "c_scale", check_number("c_scale", self.c_scale, 0.0, None, False))
        set_(self, "solve_empties", check_int("solve_empties", self.solve_empties, 0, 64))
        set_(
            self, "virtual_loss", check_number("virtual_loss", self.virtual_loss, 0.0, None, False)
        )
        set_(self, "leaves_per_tree", check_int("leaves_per_tree", self.leaves_per_tree, 1, 256))
        if self.max_nodes is not None:
            set_(self, "max_nodes", check_int("max_nodes", self.max_nodes, MIN_NODES, MAX_NODES))


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
