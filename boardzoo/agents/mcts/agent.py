"""Monte Carlo tree search agent: UCT with rollouts, PUCT with priors, solver, tree reuse.

The search reads the env's immutable game state and never changes the env. For the catalog's
games without prior or value functions the whole simulation loop is compiled (once per game);
otherwise the loop runs in Python around the same compiled tree (see
:mod:`boardzoo.agents.mcts.search`).

References: Kocsis & Szepesvári, "Bandit based Monte-Carlo planning" (UCT, 2006); Winands,
Björnsson & Saito, "Monte-Carlo Tree Search Solver" (2008); Silver et al., "A general
reinforcement learning algorithm that masters chess, shogi and Go through self-play" (PUCT,
2018); Chaslot, Winands & van den Herik, "Parallel Monte-Carlo Tree Search" (root parallelisation,
2008).
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from boardzoo.agents.base import Agent, Seed, env_state, make_rng
from boardzoo.agents.mcts import tree as tr
from boardzoo.agents.mcts.search import (
    ROLLOUT_HEURISTIC,
    ROLLOUT_RANDOM,
    PriorFn,
    Searcher,
    SearchSettings,
    ValueFn,
)
from boardzoo.games import GameState

FINAL_RULES = ("robust", "max")
ROLLOUT_POLICIES = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC}
_PROVEN_NAMES = {1.0: "win", 0.5: "draw", 0.0: "loss"}


@dataclass(frozen=True)
class MoveStats:
    """Root statistics of one candidate move, from the point of view of the player to move."""

    action: int
    visits: int
    mean_value: float  # average score: 1 win, 0.5 draw, 0 loss
    prior: float
    proven: str | None = None  # "win", "draw" or "loss" once the solver has proven it


@dataclass(frozen=True)
class SearchInfo:
    """What the last search did (``MCTSAgent.last_search``)."""

    action: int
    moves: list[MoveStats]  # most visited first
    principal_variation: list[int]
    simulations: int
    seconds: float
    tree_nodes: int  # nodes in use, all workers together
    reused_tree: bool
    proven: str | None = None  # the root's proven result for the player to move
    workers: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")

    @property
    def value(self) -> float:
        """Expected score of the player to move after the chosen move (its mean value)."""
        for move in self.moves:
            if move.action == self.action:
                return move.mean_value
        return float("nan")


def _check_positive(name: str, value: Any, kind: type, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    number = isinstance(value, int) or (kind is float and isinstance(value, float))
    if isinstance(value, bool) or not number or not value > 0:
        raise ValueError(f"{name} must be a positive {kind.__name__}, got {value!r}")


class MCTSAgent(Agent):
    """Monte Carlo tree search.

    Args:
        simulations: simulations per move. Default 1000 when ``time_limit`` is not given either.
        time_limit: seconds per move. With ``simulations`` too, whichever comes first.
        c: exploration constant: UCT's ``c`` (default sqrt(2)), or PUCT's ``c`` / ``c_init``
            (default 1.25) when ``prior_fn`` is given.
        c_base: with ``prior_fn``, use AlphaZero's schedule
            ``c + log((1 + N_parent + c_base) / c_base)``; ``None`` keeps ``c`` constant.
        final: ``"robust"`` plays the most visited move, ``"max"`` the best mean value; ties are
            broken by the other.
        solver: MCTS-Solver: propagate proven wins and losses, play a proven win at once and
            avoid proven losses.
        reuse_tree: keep the tree between moves of a game; the next search starts from the
            subtree of the actual position if the tree holds it.
        rollout: ``"random"`` or ``"heuristic"``, the game's own rollout policy, for games that
            have one (Reversi: corners first, avoid the squares diagonally next to them, one
            move in eight at random).
        prior_fn: ``state -> probabilities over all actions``: switches selection to PUCT.
        value_fn: ``state -> value in [-1, 1]`` for the player to move: replaces rollouts.
        dirichlet_alpha, dirichlet_epsilon: AlphaZero's root noise (with ``prior_fn`` only).
        workers: searches run in parallel threads, each with its own tree (root
            parallelisation); their root visit counts are added up.
        max_nodes: nodes each tree may hold (:data:`BYTES_PER_NODE` bytes each); once full,
            simulations go on from the leaves the tree has.
        seed: seed of the search's randomness (an int, a numpy Generator, or None).
    """

    name = "mcts"

    def __init__(
        self,
        simulations: int | None = None,
        time_limit: float | None = None,
        c: float | None = None,
        c_base: float | None = None,
        final: Literal["robust", "max"] = "robust",
        solver: bool = False,
        reuse_tree: bool = False,
        rollout: Literal["random", "heuristic"] = "random",
        prior_fn: PriorFn | None = None,
        value_fn: ValueFn | None = None,
        dirichlet_alpha: float | None = None,
        dirichlet_epsilon: float = 0.25,
        workers: int = 1,
        max_nodes: int = 1_000_000,
        seed: Seed = None,
    ) -> None:
        _check_positive("simulations", simulations, int)
        if simulations is not None and not isinstance(simulations, (int, np.integer)):
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        _check_positive("time_limit", time_limit, float)
        _check_positive("c", c, float)
        _check_positive("c_base", c_base, float)
        _check_positive("dirichlet_alpha", dirichlet_alpha, float)
        _check_positive("workers", workers, int, allow_none=False)
        if final not in FINAL_RULES:
            raise ValueError(f"final must be one of {list(FINAL_RULES)}, got {final!r}")
        if rollout not in ROLLOUT_POLICIES:
            raise ValueError(f"rollout must be one of {list(ROLLOUT_POLICIES)}, got {rollout!r}")
        if not 0.0 <= dirichlet_epsilon <= 1.0:
            raise ValueError(f"dirichlet_epsilon must be in [0, 1], got {dirichlet_epsilon!r}")
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 2:
            raise ValueError(f"max_nodes must be an int of at least 2, got {max_nodes!r}")
        self.simulations = (
            int(simulations) if simulations is not None else (1000 if time_limit is None else None)
        )
        self.time_limit = float(time_limit) if time_limit is not None else None
        self.c = float(c) if c is not None else (1.25 if prior_fn is not None else math.sqrt(2.0))
        self.c_base = c_base
        self.final = final
        self.solver = bool(solver)
        self.reuse_tree = bool(reuse_tree)
        self.rollout = rollout
        self.prior_fn = prior_fn
        self.value_fn = value_fn
        self.dirichlet_alpha = dirichlet_alpha
        self.dirichlet_epsilon = float(dirichlet_epsilon)
        self.workers = int(workers)
        self.max_nodes = int(max_nodes)
        self._seed_sequence = np.random.SeedSequence(int(make_rng(seed).integers(2**63)))
        self._settings = SearchSettings(
            c=self.c,
            solver=self.solver,
            rollout_policy=ROLLOUT_POLICIES[rollout],
            prior_fn=prior_fn,
            value_fn=value_fn,
            c_base=float(c_base) if c_base is not None else 0.0,
            dirichlet_alpha=dirichlet_alpha,
            dirichlet_epsilon=self.dirichlet_epsilon,
        )
        self._searchers: list[Searcher] = []
        self._pool: ThreadPoolExecutor | None = None
        self.last_search: SearchInfo | None = None

    # --- the Agent interface -------------------------------------------------------------------

    def act(self, env: Any) -> int:
        """Search from ``env``'s position (cloned, never changed) and return the chosen action."""
        return self._search(env_state(env)).action

    def act_with_policy(self, env: Any) -> tuple[np.ndarray, int]:
        """The root visit distribution over all actions (sums to 1) and the chosen action."""
        state = env_state(env)
        info = self._search(state)
        policy = np.zeros(state.num_actions, dtype=np.float64)
        for move in info.moves:
            policy[move.action] = move.visits
        total = policy.sum()
        if total > 0:
            policy /= total
        return policy, info.action

    def reset(self) -> None:
        """Forget the tree (a new game starts); the random stream goes on."""
        for searcher in self._searchers:
            searcher.has_root = False

    def search(self, state: GameState) -> SearchInfo:
        """Search a :class:`~boardzoo.games.GameState` directly; returns :attr:`last_search`."""
        return self._search(state)

    # --- searching ----------------------------------------------------------------------------

    def _make_searchers(self) -> None:
        if len(self._searchers) == self.workers:
            return
        seeds = self._seed_sequence.spawn(self.workers)
        self._searchers = [
            Searcher(self._settings, self.max_nodes, int(s.generate_state(1)[0])) for s in seeds
        ]

    def _search(self, state: GameState) -> SearchInfo:
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to search for")
        self._make_searchers()
        start = time.perf_counter()
        deadline = None if self.time_limit is None else start + self.time_limit
        budget = self.simulations if self.simulations is not None else 2**62
        shares = [budget // self.workers + (i < budget % self.workers) for i in range(self.workers)]

        def work(index: int) -> tuple[int, bool]:
            searcher = self._searchers[index]
            reused = searcher.set_root(state, self.reuse_tree)
            return searcher.run(shares[index], deadline), reused

        if self.workers == 1:
            results = [work(0)]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="mcts")
            results = list(self._pool.map(work, range(self.workers)))
        seconds = time.perf_counter() - start
        moves = self._merge_root_stats()
        action = self._choose(moves)
        self.last_search = SearchInfo(
            action=action,
            moves=sorted(moves, key=lambda m: (-m.visits, -m.mean_value)),
            principal_variation=self._principal_variation(action),
            simulations=sum(done for done, _ in results),
            seconds=seconds,
            tree_nodes=sum(int(s.tree.meta[tr.NODE_COUNT]) for s in self._searchers),
            reused_tree=any(reused for _, reused in results),
            proven=self._root_proven(),
            workers=self.workers,
        )
        if not self.reuse_tree:
            self.reset()
        return self.last_search

    def _merge_root_stats(self) -> list[MoveStats]:
        totals: dict[int, list[float]] = {}
        for searcher in self._searchers:
            tree = searcher.tree
            root = int(tree.meta[tr.ROOT])
            first = int(tree.first_child[root])
            if first == tr.NO_NODE:
                continue
            mover = int(tree.player[root])
            for child in range(first, first + int(tree.num_expanded[root])):
                action = int(tree.action[child])
                entry = totals.setdefault(action, [0, 0.0, float(tree.prior[child]), -1.0])
                entry[0] += int(tree.visits[child])
                entry[1] += float(tree.value[child])
                if self.solver and tr.is_solved(tree, child):
                    entry[3] = float(tr.score_for(int(tree.pess[child]), mover))
        return [
            MoveStats(
                action=action,
                visits=int(visits),
                mean_value=value / visits if visits else 0.0,
                prior=prior,
                proven=_PROVEN_NAMES.get(proven),
            )
            for action, (visits, value, prior, proven) in totals.items()
        ]

    def _choose(self, moves: list[MoveStats]) -> int:
        if not moves:
            raise RuntimeError("the search ran no simulation; raise the budget or max_nodes")
        candidates = moves
        if self.solver:
            # A proven win is played at once; proven losses only when nothing else is left.
            wins = [m for m in moves if m.proven == "win"]
            not_lost = [m for m in moves if m.proven != "loss"]
            candidates = wins or not_lost or moves
        visited = [m for m in candidates if m.visits > 0] or candidates
        if self.final == "robust":
            best = max(visited, key=lambda m: (m.visits, m.mean_value, -m.action))
        else:
            best = max(visited, key=lambda m: (m.mean_value, m.visits, -m.action))
        draws = [m for m in candidates if m.proven == "draw"]
        if draws and best.proven is None and best.mean_value < 0.5:
            best = max(draws, key=lambda m: m.visits)  # a sure draw beats a likely loss
        return best.action

    def _principal_variation(self, action: int) -> list[int]:
        """The chosen action, then the most visited line below it (in the first worker's tree)."""
        tree = self._searchers[0].tree
        line = [action]
        node = self._child_with_action(tree, int(tree.meta[tr.ROOT]), action)
        while node != tr.NO_NODE and int(tree.num_expanded[node]) > 0:
            first = int(tree.first_child[node])
            children = range(first, first + int(tree.num_expanded[node]))
            node = max(children, key=lambda child: (int(tree.visits[child]), child))
            if int(tree.visits[node]) == 0:
                break
            line.append(int(tree.action[node]))
        return line

    @staticmethod
    def _child_with_action(tree: tr.Tree, node: int, action: int) -> int:
        first = int(tree.first_child[node])
        if first == tr.NO_NODE:
            return tr.NO_NODE
        for child in range(first, first + int(tree.num_expanded[node])):
            if int(tree.action[child]) == action:
                return child
        return tr.NO_NODE

    def _root_proven(self) -> str | None:
        if not self.solver:
            return None
        for searcher in self._searchers:
            tree = searcher.tree
            root = int(tree.meta[tr.ROOT])
            if tr.is_solved(tree, root):
                return _PROVEN_NAMES[tr.score_for(int(tree.pess[root]), int(tree.player[root]))]
        return None

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_pool"] = None  # threads do not pickle; a new pool is made on demand
        return data

    def budget_text(self) -> str:
        """``simulations=N`` or ``time_limit=S``: the budget as a spec would write it."""
        if self.time_limit is None:
            return f"simulations={self.simulations}"
        return f"time_limit={self.time_limit}"

    def __repr__(self) -> str:
        return f"MCTSAgent({self.budget_text()}, c={self.c:.3g}, solver={self.solver})"
