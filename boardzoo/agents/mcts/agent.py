"""Monte Carlo tree search agent: UCT with rollouts, PUCT with priors, solver, tree reuse.

The search reads the env's immutable game state and never changes the env. UCT and its
enhancements are rules of the search core's one loop (:mod:`boardzoo.search`), compiled once per
game and combination of rules; for other games (any PettingZoo AEC env) the same steps run from
Python on the same tree (:mod:`boardzoo.search.foreign`). With prior or value functions the
agent searches with the batched, compiled AlphaZero search instead (see
:mod:`boardzoo.agents.mcts.puct`).

References: Kocsis & Szepesvári, "Bandit based Monte-Carlo planning" (UCT, 2006); Winands,
Björnsson & Saito, "Monte-Carlo Tree Search Solver" (2008); Silver et al., "A general
reinforcement learning algorithm that masters chess, shogi and Go through self-play" (PUCT,
2018); Chaslot, Winands & van den Herik, "Parallel Monte-Carlo Tree Search" (root parallelisation,
2008).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, cast

import numpy as np

from boardzoo.agents._checks import (
    check_choice,
    check_int,
    check_number,
    check_optional_int,
    check_optional_number,
)
from boardzoo.agents._compiling import compile_notice
from boardzoo.agents.base import Agent, Seed, env_state, make_rng
from boardzoo.agents.mcts.presets import PRESETS, preset_options
from boardzoo.agents.mcts.puct import PUCTSearch, PUCTSettings, exercise
from boardzoo.agents.search_info import MoveStats, SearchInfo
from boardzoo.games import BoardState, GameState
from boardzoo.games.spec import Game
from boardzoo.search import tree as tr
from boardzoo.search.driver import RootChild, TreeSearch
from boardzoo.search.evaluators import CallbackEvaluator, Evaluator
from boardzoo.search.options import ROLLOUT_HEURISTIC, ROLLOUT_RANDOM, Rules

__all__ = ["MCTSAgent", "MoveStats", "PriorFn", "SearchInfo", "ValueFn"]

PriorFn = Callable[[GameState], np.ndarray]
ValueFn = Callable[[GameState], float]

FINAL_RULES = ("robust", "max")
ROLLOUT_POLICIES = {
    "random": ROLLOUT_RANDOM,
    "heuristic": ROLLOUT_HEURISTIC,
    "lgrf": ROLLOUT_RANDOM,
}
EVALUATIONS = ("hand", "learned")
MAX_THREADS = 64
_PROVEN_NAMES = {1.0: "win", 0.5: "draw", 0.0: "loss"}
MAX_WORKERS = 256
_MAX_SIMULATIONS = 2**62  # the compiled loop counts in int64


def _physical_memory() -> int | None:
    """Bytes of memory of this machine, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def _check_max_nodes(max_nodes: Any, workers: int, reuse_tree: bool) -> int:
    """``max_nodes`` if the trees it asks for fit the node ids and this machine's memory."""
    nodes = check_int("max_nodes", max_nodes, tr.MIN_NODES, tr.MAX_NODES)
    trees = workers  # re-rooting moves the kept subtree in place
    need = nodes * tr.BYTES_PER_NODE * trees
    memory = _physical_memory()
    if memory is not None and need > memory:
        raise ValueError(
            f"max_nodes={nodes} is not allowed: {trees} tree(s) of {nodes} nodes "
            f"({tr.BYTES_PER_NODE} bytes each) need {need / 1e9:.1f} GB, more than this "
            f"machine's {memory / 1e9:.1f} GB of memory; it must be at most "
            f"{max(tr.MIN_NODES, memory // (tr.BYTES_PER_NODE * trees))}"
        )
    return nodes


# (kernel module, search kind) whose search this process has loaded or compiled and run once.
_PREPARED: set[tuple[str, str]] = set()


def _exercise(game: Game, rules: Rules) -> None:
    """Run every compiled piece the search of ``game`` with ``rules`` uses once, on a throwaway
    tree: the same code paths and argument types as a real search (so nothing is compiled
    later), with a fixed seed: nothing of the agent's."""
    search = TreeSearch(rules, 4096, seed=0)
    state = game.initial_state()
    search.set_root(state, reuse=False)
    search.run(8, None)
    search.run(8, time.perf_counter() + 60.0)  # the timed loop
    search.set_root(state.apply(state.legal_actions()[0]), reuse=True)  # re-rooting
    search.run(4, None)


# The enhancement options' defaults (a preset sets the options left at these).
ENHANCEMENT_DEFAULTS: dict[str, Any] = {
    "rave": False,
    "rave_k": 300.0,
    "progressive_bias": 0.0,
    "progressive_widening": False,
    "widening_k": 2.0,
    "widening_alpha": 0.5,
    "criticality": 0.0,
    "cutoff": None,
    "minimax_weight": 0.0,
    "eval": "hand",
    "threads": 1,
    "virtual_loss": 1,
    "rollout": "random",
}


def _rules(options: dict[str, Any], c: float, solver: bool) -> Rules:
    """The :class:`Rules` that the agent's option values compose."""
    return Rules(
        c=c,
        solver=solver,
        rollout_policy=ROLLOUT_POLICIES[options["rollout"]],
        rave_k=options["rave_k"] if options["rave"] else 0.0,
        progressive_bias=options["progressive_bias"],
        widening_k=options["widening_k"] if options["progressive_widening"] else 0.0,
        widening_alpha=options["widening_alpha"],
        lgrf=options["rollout"] == "lgrf",
        cutoff=options["cutoff"],
        minimax_weight=options["minimax_weight"],
        criticality=options["criticality"],
        threads=options["threads"],
        virtual_loss=options["virtual_loss"],
        learned_eval=options["eval"] == "learned",
    )


class MCTSAgent(Agent):
    """Monte Carlo tree search: UCT with rollouts, or PUCT with prior and value functions.

    With ``prior_fn`` or ``value_fn`` the search is AlphaZero's PUCT, run by the batched compiled
    search of :mod:`boardzoo.az` (:class:`~boardzoo.search.batched.BatchedSearch`): one tree per
    worker rooted at the position, whose leaves are evaluated by the functions (a playout of the
    leaf stands in for a missing ``value_fn``, a uniform prior for a missing ``prior_fn``). Its
    ``simulations`` are counted below the root (the root's own evaluation comes first), so the
    root's moves share exactly ``simulations`` visits. It searches catalog games only, and has
    neither the solver nor tree reuse.

    Args:
        simulations: simulations per move (at least 1); 1000 when ``time_limit`` is not given
            either.
        time_limit: seconds per move (a number > 0). With ``simulations`` too, whichever comes
            first.
        c: exploration constant: UCT's ``c`` (default sqrt(2)), or PUCT's ``c`` / ``c_init``
            (default 1.25) when ``prior_fn`` or ``value_fn`` is given.
        c_base: with ``prior_fn``, use AlphaZero's schedule
            ``c + log((1 + N_parent + c_base) / c_base)``; ``None`` keeps ``c`` constant.
        final: ``"robust"`` plays the most visited move, ``"max"`` the best mean value; ties are
            broken by the other.
        solver: MCTS-Solver: propagate proven wins and losses, play a proven win at once and
            avoid proven losses (UCT only).
        reuse_tree: keep the tree between moves of a game; the next search starts from the
            subtree of the actual position if the tree holds it (with ``prior_fn`` or
            ``value_fn``: a node within two moves of the last root).
        rollout: ``"random"``, ``"heuristic"``, the game's own rollout policy, for games that
            have one (Reversi: corners first, avoid the squares diagonally next to them, one
            move in eight at random), or ``"lgrf"``: last good reply with forgetting (Baier &
            Drake 2010): each player replies to the previous move with its reply from the last
            playout it won, while that reply is legal; a lost playout forgets its replies.
        prior_fn: ``state -> probabilities over all actions``: switches selection to PUCT.
        value_fn: ``state -> value in [-1, 1]`` for the player to move: replaces rollouts (and
            switches selection to PUCT, with uniform priors if there is no ``prior_fn``).
        dirichlet_alpha: AlphaZero's root noise (with ``prior_fn`` only): the concentration of
            the Dirichlet noise mixed into the root's priors, or ``None`` for no noise.
        dirichlet_epsilon: the weight of that noise in the root's priors, in [0, 1].
        workers: searches run in parallel threads (1 to 256), each with its own tree (root
            parallelisation); their root visit counts are added up.
        rave: RAVE (Gelly & Silver 2007): all-moves-as-first statistics per child, blended with
            its mean by ``beta = sqrt(rave_k / (3 n + rave_k))``.
        rave_k: RAVE's equivalence parameter: the visits at which both count about equally.
        progressive_bias: weight ``w`` of the evaluation ``h`` of a child (in [0, 1] for the
            player choosing it) added to its UCT score as ``w * h / (n + 1)`` (0: off).
        progressive_widening: only the best ``ceil(widening_k * n ** widening_alpha)``
            children by evaluation are open at a node with ``n`` visits.
        widening_k: see ``progressive_widening``.
        widening_alpha: see ``progressive_widening``.
        criticality: weight ``w`` of Coulom's criticality of a move's square (how much owning
            it at the end of the playouts goes with winning) added as ``w * crit / (n + 1)``
            (0: off).
        cutoff: stop playouts after this many plies and score them with the evaluation
            (0: the evaluation alone, no playout); ``None`` plays them out.
        minimax_weight: implicit minimax backups (Lanctot et al. 2014): each node keeps the
            minimax value of the evaluations below it, blended into its mean with this weight
            (0: off).
        eval: the evaluation that ``cutoff``, ``minimax_weight``, ``progressive_bias`` and
            ``progressive_widening`` read: ``"hand"``, the game's hand-made one, or
            ``"learned"``, its shipped n-tuple network (:mod:`boardzoo.learned`).
        threads: threads growing one shared tree (tree parallelism, lock-free as in
            Enzenberger & Müller 2009); with ``workers``, each worker's tree has this many.
        virtual_loss: visits counted as lost at each node below which a thread's simulation
            is running, so other threads look elsewhere (with ``threads`` > 1).
        preset: ``"strong"``: the best combination of the options above found for the game by
            ``experiments/enhancements.py`` (:data:`boardzoo.agents.mcts.presets.PRESETS`);
            options given explicitly win over the preset's.
        max_nodes: nodes each tree may hold (51 bytes each, :data:`BYTES_PER_NODE`, allocated as
            they are used); once full, simulations go on from the leaves the tree has. At
            least 65 (the root and up to 64 moves); all trees must fit in the machine's memory.
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
        rollout: Literal["random", "heuristic", "lgrf"] = "random",
        prior_fn: PriorFn | None = None,
        value_fn: ValueFn | None = None,
        dirichlet_alpha: float | None = None,
        dirichlet_epsilon: float = 0.25,
        workers: int = 1,
        rave: bool = False,
        rave_k: float = 300.0,
        progressive_bias: float = 0.0,
        progressive_widening: bool = False,
        widening_k: float = 2.0,
        widening_alpha: float = 0.5,
        criticality: float = 0.0,
        cutoff: int | None = None,
        minimax_weight: float = 0.0,
        eval: Literal["hand", "learned"] = "hand",
        threads: int = 1,
        virtual_loss: int = 1,
        preset: Literal["none", "strong"] = "none",
        max_nodes: int = 1_000_000,
        seed: Seed = None,
    ) -> None:
        simulations = check_optional_int("simulations", simulations, 1)
        if simulations is not None:
            simulations = min(simulations, _MAX_SIMULATIONS)
        time_limit = check_optional_number("time_limit", time_limit)
        c = check_optional_number("c", c)
        c_base = check_optional_number("c_base", c_base)
        dirichlet_alpha = check_optional_number("dirichlet_alpha", dirichlet_alpha)
        dirichlet_epsilon = check_number("dirichlet_epsilon", dirichlet_epsilon, 0.0, 1.0, False)
        workers = check_int("workers", workers, 1, MAX_WORKERS)
        final = check_choice("final", final, FINAL_RULES)  # type: ignore[assignment]
        rollout = check_choice("rollout", rollout, tuple(ROLLOUT_POLICIES))  # type: ignore[assignment]
        threads = check_int("threads", threads, 1, MAX_THREADS)
        max_nodes = _check_max_nodes(max_nodes, workers, bool(reuse_tree))
        self.preset = check_choice("preset", preset, ("none", *PRESETS))
        self._given = {
            "rave": bool(rave),
            "rave_k": check_number("rave_k", rave_k, 0.0, None, False),
            "progressive_bias": check_number(
                "progressive_bias", progressive_bias, 0.0, None, False
            ),
            "progressive_widening": bool(progressive_widening),
            "widening_k": check_number("widening_k", widening_k, 0.0, None, False),
            "widening_alpha": check_number("widening_alpha", widening_alpha, 0.0, 1.0, False),
            "criticality": check_number("criticality", criticality, 0.0, None, False),
            "cutoff": check_optional_int("cutoff", cutoff, 0),
            "minimax_weight": check_number("minimax_weight", minimax_weight, 0.0, 1.0, False),
            "eval": check_choice("eval", eval, EVALUATIONS),
            "threads": threads,
            "virtual_loss": check_int("virtual_loss", virtual_loss, 0, 1_000_000),
            "rollout": rollout,
        }
        puct = prior_fn is not None or value_fn is not None
        if puct and (self.preset != "none" or _rules(self._given, 1.0, False).enhanced):
            raise ValueError(
                "the MCTS enhancements (rave, progressive_bias, progressive_widening, "
                "rollout=lgrf, criticality, cutoff, minimax_weight, threads, preset) are not "
                "allowed with prior_fn or value_fn: they enhance UCT"
            )
        if puct and solver:
            raise ValueError(
                "solver=True is not allowed with prior_fn or value_fn: the PUCT search has no "
                "solver (use solver with UCT, without prior_fn and value_fn)"
            )
        self.simulations = (
            int(simulations) if simulations is not None else (1000 if time_limit is None else None)
        )
        self.time_limit = float(time_limit) if time_limit is not None else None
        self._given_c = c
        self.c = float(c) if c is not None else (1.25 if puct else math.sqrt(2.0))
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
        self.rules = _rules(self._given, self.c, self.solver)
        self._preset_game: str | None = None
        self._puct: PUCTSearch | None = None
        if puct:
            settings = PUCTSettings(
                c_init=self.c,
                c_base=float(c_base) if c_base is not None else 0.0,
                dirichlet_alpha=dirichlet_alpha,
                dirichlet_epsilon=self.dirichlet_epsilon,
                simulations=self.simulations,
                time_limit=self.time_limit,
                trees=self.workers,
                max_nodes=self.max_nodes,
                reuse_tree=self.reuse_tree,
            )
            self._puct = PUCTSearch(settings, self._puct_evaluator, self._seed_sequence)
        self._searchers: list[TreeSearch] = []
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

    def prepare(self, game: Game) -> None:
        """Get ready to search ``game`` before any clock runs.

        Loads the game's compiled search from numba's cache, or compiles it (the first run only,
        with a notice on stderr), runs it once on a throwaway tree, and allocates this agent's
        trees and threads. It draws nothing from the agent's random stream, so a prepared agent
        plays the same moves as an unprepared one. A search of a game not prepared yet prepares
        it first, before its own clock starts.

        Args:
            game: the catalog game (with its options) that will be searched.
        """
        if self._puct is not None:
            self._puct.prepare(game)
            key = (game.spec.kernels, "puct")
            if key not in _PREPARED:
                with compile_notice(f"the PUCT search for {game.name}", 15):
                    exercise(game)
                _PREPARED.add(key)
            return
        self._apply_preset(game)
        self._make_searchers()
        for searcher in self._searchers:
            searcher.check_game(game)  # loads a learned net now
        if self.workers > 1 and self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="mcts")
        key = self._prepared_key(game)
        if key in _PREPARED:
            return
        with compile_notice(f"the MCTS search for {game.name}", 10):
            _exercise(game, self.rules)
        _PREPARED.add(key)

    def _prepared_key(self, game: Game) -> tuple[str, str]:
        switches = ",".join(name for name, on in sorted(self.rules.constants().items()) if on)
        return (game.spec.kernels, f"uct:{switches}")

    def _apply_preset(self, game: Game) -> None:
        """Take the preset's options for ``game`` (those not given explicitly)."""
        if self.preset == "none" or self._preset_game == game.name:
            return
        options = dict(self._given)
        c = self._given_c
        for key, value in preset_options(self.preset, game.name).items():
            if key == "c":
                c = value if c is None else c
            elif options[key] == ENHANCEMENT_DEFAULTS[key]:
                options[key] = value
        self.c = float(c) if c is not None else math.sqrt(2.0)
        self.rollout = cast(Literal["random", "heuristic", "lgrf"], options["rollout"])
        self.rules = _rules(options, self.c, self.solver)
        self._searchers = []
        self._preset_game = game.name

    def reset(self) -> None:
        """Forget the tree (a new game starts); the random stream goes on."""
        for searcher in self._searchers:
            searcher.has_root = False
        if self._puct is not None:
            self._puct.reset()

    def search(self, state: GameState) -> SearchInfo:
        """Search a :class:`~boardzoo.games.GameState` directly; returns :attr:`last_search`."""
        return self._search(state)

    # --- searching ----------------------------------------------------------------------------

    def _make_evaluator(self, game: Game, seed: int) -> Evaluator:
        """The evaluator of PUCT's leaves in ``game``: the prior and value functions.

        Subclasses with other knowledge (``SB3PUCTAgent``) return their own.
        """
        return CallbackEvaluator(self.prior_fn, self.value_fn, self.rollout, seed)

    def _puct_evaluator(self, game: Game, seed: int) -> Evaluator:
        if (
            self.value_fn is None
            and self.rollout == "heuristic"
            and not game.spec.heuristic_rollout
        ):
            raise ValueError(f"{game.name} has no heuristic rollout: use rollout=random")
        return self._make_evaluator(game, seed)

    def _make_searchers(self) -> None:
        if len(self._searchers) == self.workers:
            return
        seeds = [int(s.generate_state(1)[0]) for s in self._seed_sequence.spawn(self.workers)]
        self._searchers = [TreeSearch(self.rules, self.max_nodes, seed) for seed in seeds]

    def _search(self, state: GameState) -> SearchInfo:
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to search for")
        if self._puct is not None:
            return self._search_puct(state)
        game = state.game
        if game is not None:
            if self._prepared_key(game) not in _PREPARED or (
                self.preset != "none" and self._preset_game != game.name
            ):
                self.prepare(game)
        elif self.preset != "none" or self.rules.enhanced or self.rules.threads > 1:
            raise ValueError(
                f"the MCTS enhancements, threads and presets search catalog games only "
                f"(state.game is None for {type(state).__name__}): use plain UCT for other games"
            )
        elif len(state.legal_actions()) >= self.max_nodes:
            count = len(state.legal_actions())
            raise ValueError(
                f"max_nodes={self.max_nodes} is too small for this position: its {count} moves "
                f"and the root need at least {count + 1} nodes"
            )
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
            tree_nodes=sum(s.nodes_used() for s in self._searchers),
            reused_tree=any(reused for _, reused in results),
            proven=self._root_proven(),
            workers=self.workers,
        )
        if not self.reuse_tree:
            self.reset()
        return self.last_search

    def _search_puct(self, state: GameState) -> SearchInfo:
        assert self._puct is not None
        game = state.game
        if game is None:
            raise ValueError(
                f"prior_fn and value_fn need a position of a catalog game (state.game is None "
                f"for {type(state).__name__}): the PUCT search runs on the catalog's compiled "
                "games; search other games with UCT (without prior_fn and value_fn)"
            )
        if (game.spec.kernels, "puct") not in _PREPARED:
            self.prepare(game)
        self.last_search = self._puct.search(cast(BoardState, state), self._choose)
        return self.last_search

    def _merge_root_stats(self) -> list[MoveStats]:
        totals: dict[int, list[RootChild]] = {}
        for searcher in self._searchers:
            for child in searcher.root_children():
                totals.setdefault(child.action, []).append(child)
        moves = []
        for action, children in totals.items():
            visits = sum(child.visits for child in children)
            proven = [child.proven for child in children if child.proven is not None]
            moves.append(
                MoveStats(
                    action=action,
                    visits=visits,
                    mean_value=sum(child.value for child in children) / visits if visits else 0.0,
                    prior=children[0].prior,
                    proven=_PROVEN_NAMES.get(proven[-1]) if proven else None,
                )
            )
        return moves

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
        return self._searchers[0].principal_variation(action)

    def _root_proven(self) -> str | None:
        for searcher in self._searchers:
            result = searcher.root_result()
            if result is not None:
                return _PROVEN_NAMES[result]
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
