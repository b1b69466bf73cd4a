"""Batched, compiled AlphaZero search: PUCT or Gumbel AlphaZero over many trees at once.

:class:`BatchedSearch` grows ``batch_size`` trees together (one per root: the positions of many
self-play games, or one position searched with several leaves at a time). The whole search runs
in one compiled loop (:func:`~boardzoo.search.loop.run_steps`), with no Python per node or per
simulation; each of its steps

1. walks every tree from its root down to ``leaves_per_tree`` leaves (with virtual loss when
   more than one), and writes each leaf's observation planes and legal-action mask straight from
   its bitboards into one batch (:func:`~boardzoo.search.loop.select_leaves`, into a
   :class:`~boardzoo.search.leaf_batch.LeafBatch`);
2. leaves the compiled code once (:mod:`boardzoo.search.python_bridge`) to call the evaluator
   (the network) on that batch (:meth:`~boardzoo.search.leaf_batch.LeafBatch.evaluation`: the
   evaluator, timed and checked, and the deadline);
3. expands the leaves (children with the softmax of the logits over the legal actions as
   priors) and backs the values up (:func:`~boardzoo.search.loop.expand_and_backup`). Finished
   games are scored exactly, without the network.

The trees are the search core's one tree (:class:`~boardzoo.search.tree.Tree`, a row per root)
and the step is the one simulation loop's step cut at the evaluation, with AlphaZero's
selection rules, compiled once per game. Values are stored, as for UCT, as sums of scores in
``[0, 1]`` from the point of view of the player who moved into the node, and every node records
its player to move, so a pass (Reversi) needs no special case.

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
played): a tree is kept after its search (:mod:`boardzoo.search.kept_trees`), and the next
search of the row continues from the node holding its new root, by the search core's one reuse
rule (:mod:`boardzoo.search.reroot`: within two moves of the old root, passes not counted), with
that node's subtree moved to the start of the row so the rest of the row is free again. A reused
root gets fresh Dirichlet noise on its own priors (noise is never left in a kept tree); Gumbel
searches always start fresh, since sequential halving plans the whole budget of an empty root.

``simulations`` counts the simulations below the root: each tree's root is evaluated first, once,
and then the root's children receive ``simulations`` visits in all (so an ``MCTSAgent`` with
``simulations + 1`` spends its first simulation on the root and matches this search).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from boardzoo.checks import check_int, check_number
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.batched_settings import BatchedSearchSettings, SearchResult
from boardzoo.search.evaluators import Evaluator, cell_squares
from boardzoo.search.handover import no_solver_tables, solver_tables
from boardzoo.search.kept_trees import KeptTrees
from boardzoo.search.leaf_batch import LeafBatch
from boardzoo.search.loop import compiled_steps
from boardzoo.search.options import (
    N_C,
    N_C_BASE,
    N_C_SCALE,
    N_C_VISIT,
    N_GUMBEL,
    N_SOLVE_EMPTIES,
    N_VIRTUAL_LOSS,
    NUM_NUMBERS,
)
from boardzoo.search.python_bridge import StepEvaluation, running
from boardzoo.search.roots import (
    add_dirichlet,
    draw_noise,
    root_stats,
    sample_visits,
    seeded_generators,
)
from boardzoo.search.select import Choice, considered_visits, new_choice
from boardzoo.search.tree import Tree, most_visited_line, rows_used

__all__ = ["BatchedSearch", "BatchedSearchSettings", "SearchResult", "considered_visits"]


def _numbers(config: BatchedSearchSettings) -> np.ndarray:
    """The one loop's numbers array for AlphaZero's rules (slots ``N_*``)."""
    numbers = np.zeros(NUM_NUMBERS, dtype=np.float64)
    numbers[N_C] = config.c_init
    numbers[N_C_BASE] = config.c_base
    numbers[N_VIRTUAL_LOSS] = config.virtual_loss
    numbers[N_GUMBEL] = config.gumbel_k if config.gumbel else 0
    numbers[N_C_VISIT] = config.c_visit
    numbers[N_C_SCALE] = config.c_scale
    numbers[N_SOLVE_EMPTIES] = config.solve_empties
    return numbers


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
        self,
        game: Game,
        batch_size: int,
        config: BatchedSearchSettings | None = None,
        seed: int = 0,
    ) -> None:
        if not isinstance(game, Game):
            raise InvalidValueError(f"game must be a boardzoo Game, got {game!r}")
        self.game = game
        self.batch_size = check_int("batch_size", batch_size, 1, 65_536)
        self.config = config if config is not None else BatchedSearchSettings()
        if not isinstance(self.config, BatchedSearchSettings):
            raise InvalidValueError(f"config must be a BatchedSearchSettings, got {config!r}")
        self.seed = check_int("seed", seed, 0)
        self._rng = np.random.default_rng(self.seed)
        self._squares = cell_squares(game)
        self._numbers = _numbers(self.config)
        solving = self.config.solve_empties > 0
        self._kernels = compiled_steps(game, self.config.gumbel, solving)
        self._solver = solver_tables(game, 1) if solving else no_solver_tables()
        self._trees = KeptTrees(game, self.batch_size, self.config)
        self._every_tree = np.ones(self.batch_size, dtype=bool)
        self._leaves = LeafBatch(game, self.batch_size * self.config.leaves_per_tree)

    @property
    def forest(self) -> Tree | None:
        """The trees as the last search or :meth:`advance` left them (``None`` before any
        search): tree ``b`` is row ``b`` of the search core's
        :class:`~boardzoo.search.tree.Tree`, its root at node 0. For reading; the search owns
        it."""
        return self._trees.forest

    @property
    def network_seconds(self) -> float:
        """The time spent in the evaluator by the last search."""
        return self._leaves.network_seconds

    def _check_roots(self, roots: Sequence[BoardState]) -> None:
        if not 1 <= len(roots) <= self.batch_size:
            raise InvalidValueError(
                f"roots must hold 1..{self.batch_size} positions, got {len(roots)}"
            )
        for i, state in enumerate(roots):
            if getattr(state, "game", None) is not self.game:
                raise InvalidValueError(f"roots[{i}] is not a position of {self.game!r}: {state!r}")
            if state.is_terminal():
                raise InvalidValueError(
                    f"roots[{i}] is a finished game: there is nothing to search"
                )

    def _run(self, forest: Tree, trees: int, leaves: int, budget: int, active: np.ndarray,
             evaluation: StepEvaluation, choice: Choice) -> int:  # fmt: skip
        """Compiled steps until ``budget`` simulations a tree or ``evaluation`` says stop."""
        batch = self._leaves
        with running(evaluation) as key:
            return int(
                self._kernels["run_steps"](
                    forest, trees, leaves, budget, active, self._numbers, choice,
                    self.game.params, self._squares, self.game.cols, batch.tree, batch.node,
                    batch.row, batch.observations, batch.masks, self._solver, key,
                )
            )  # fmt: skip

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
            evaluator: the network (see :class:`~boardzoo.search.evaluators.Evaluator`).
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
            raise InvalidValueError("give simulations, a deadline, or both")
        if simulations is not None:
            simulations = check_int("simulations", simulations, 1)
        if self.config.gumbel and simulations is None:
            raise InvalidValueError("Gumbel search needs a simulation budget (simulations=...)")
        temperature = check_number("temperature", temperature, 0.0, None, False)
        if deadline is not None:
            deadline = check_number("deadline", deadline, -math.inf, None, False)
        if not isinstance(reuse, (bool, np.bool_)):
            raise InvalidValueError(f"reuse must be True or False, got {reuse!r}")
        n = len(roots)
        generators = seeded_generators(n, seeds)
        config = self.config
        self._leaves.network_seconds = 0.0
        forest, reused = self._trees.prepare(roots, simulations, bool(reuse))
        inherited = np.zeros(n, dtype=np.int64)
        for b in np.flatnonzero(reused):
            first = int(forest.first_child[b, 0])
            inherited[b] = forest.visits[b, first : first + int(forest.num_children[b, 0])].sum()
        table = considered_visits(config.gumbel_k, simulations or 1)
        choice = new_choice(n, self.game.num_actions, table)
        evaluation = self._leaves.evaluation(forest, evaluator, deadline)
        self._run(forest, n, 1, 1, ~reused, evaluation, choice)  # the roots' own evaluations
        clean: list[tuple[int, slice, np.ndarray]] = []
        if add_noise and config.gumbel:
            draws = draw_noise(self._rng, generators, (n, self.game.num_actions), "gumbel")
            choice.gumbel[:] = config.gumbel_scale * draws
        elif add_noise and config.dirichlet_alpha is not None:
            shape = (n, self.game.num_actions)
            draws = draw_noise(self._rng, generators, shape, "dirichlet", config.dirichlet_alpha)
            clean = add_dirichlet(forest, n, draws, config.dirichlet_epsilon)
        budget = simulations if simulations is not None else 2**62
        leaves = config.leaves_per_tree
        done = self._run(forest, n, leaves, budget, self._every_tree, evaluation, choice)
        num_actions = self.game.num_actions
        visits = np.zeros((n, num_actions), dtype=np.int32)
        q = np.full((n, num_actions), np.nan, dtype=np.float32)
        policy = np.zeros((n, num_actions), dtype=np.float32)
        prior = np.zeros((n, num_actions), dtype=np.float32)
        action = np.zeros(n, dtype=np.int64)
        root_value = np.zeros(n, dtype=np.float32)
        root_stats(
            forest, n, config.gumbel, self._numbers, choice, visits, q, policy, prior, action,
            root_value,
        )  # fmt: skip
        for tree, children, priors in clean:  # the kept trees hold the network's priors
            forest.prior[tree, children] = priors
        self._trees.kept[:n] = True
        if temperature > 0 and not config.gumbel:
            action = sample_visits(visits, temperature, self._rng, generators)
        return SearchResult(
            visits=visits,
            q=q,
            root_value=root_value,
            policy_target=policy,
            action=action,
            prior=prior,
            simulations=done,
            seconds=time.perf_counter() - start,
            nodes=rows_used(forest, n),
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
        self._trees.kept[:] = False

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
        tree = check_int("tree", tree, 0, self.batch_size - 1)
        return self._trees.advance(tree, actions)

    def principal_variation(self, tree: int = 0, max_length: int = 64) -> list[int]:
        """The most visited line of tree ``tree`` of the last search: its actions from the root.

        Each step takes the most visited child (the first on ties) and stops at a node without
        visited children.

        Args:
            tree: which root of the last search (0-based).
            max_length: the most actions returned.

        Returns:
            The actions, the root's move first (empty before any search).
        """
        forest = self._trees.forest
        if forest is None:
            return []
        tree = check_int("tree", tree, 0, self.batch_size - 1)
        return most_visited_line(forest, tree, 0, max_length)
