"""Monte Carlo tree search agent: UCT with rollouts, its enhancements, solver, tree reuse.

    agent = MCTSAgent(Budget(time_limit=1.0), UCTSettings(solver=True))
    agent.act(env); agent.last_search

The search reads the env's immutable game state and never changes the env. UCT and its
enhancements are rules of the search core's one loop (:mod:`boardzoo.search`), compiled once per
game and combination of rules; for other games (any PettingZoo AEC env) the same steps run from
Python on the same tree (:mod:`boardzoo.search.foreign`). With a network or other prior and value
functions, search with :class:`~boardzoo.agents.puct.PUCTAgent` (AlphaZero's PUCT) instead.

References: Kocsis & Szepesvári, "Bandit based Monte-Carlo planning" (UCT, 2006); Winands,
Björnsson & Saito, "Monte-Carlo Tree Search Solver" (2008); Chaslot, Winands & van den Herik,
"Parallel Monte-Carlo Tree Search" (root parallelisation, 2008).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import numpy as np

from boardzoo.agents.base import Seed, make_rng
from boardzoo.agents.compiling import compile_notice
from boardzoo.agents.presets import preset_options
from boardzoo.agents.search_agent import SearchAgent
from boardzoo.agents.search_info import (
    PROVEN_NAMES,
    MoveStats,
    SearchInfo,
    choose_move,
    solved_info,
)
from boardzoo.agents.settings import (
    Budget,
    Endgame,
    Enhancements,
    TreeSettings,
    UCTSettings,
    check_group,
    uct_rules,
)
from boardzoo.errors import InvalidValueError
from boardzoo.games import GameState
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.driver import RootChild, TreeSearch
from boardzoo.search.handover import prepare_solver, solve_root
from boardzoo.search.options import Rules

__all__ = ["MCTSAgent"]

# (kernel module, rules) whose search this process has loaded or compiled and run once.
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


class MCTSAgent(SearchAgent):
    """Monte Carlo tree search: UCT with rollouts, its enhancements and the MCTS-Solver.

    Its options come in groups (:mod:`boardzoo.agents.settings`); a spec names them flat
    (``mcts:time_limit=1,solver=true,rave=true``).

    Args:
        budget: simulations and seconds per move (1000 simulations when neither is given).
        uct: UCT's exploration constant, the solver and the playouts.
        enhancements: RAVE, progressive bias and widening, criticality, cut-off playouts,
            implicit minimax, tree parallelism, and the presets that combine them.
        tree: workers (root parallelisation), nodes per tree, tree reuse and the final-move
            rule.
        endgame: the handover to the game's exact solver, at the root and inside the tree
            (off by default; ``preset=strong`` turns it on for Reversi).
        seed: seed of the search's randomness (an int, a numpy Generator, or None).
    """

    name = "mcts"
    default_simulations = 1000

    def __init__(
        self,
        budget: Budget = Budget(),
        uct: UCTSettings = UCTSettings(),
        enhancements: Enhancements = Enhancements(),
        tree: TreeSettings = TreeSettings(),
        endgame: Endgame = Endgame(),
        seed: Seed = None,
    ) -> None:
        self.budget = check_group("budget", budget, Budget)
        self.endgame: Endgame = check_group("endgame", endgame, Endgame)
        self.uct = check_group("uct", uct, UCTSettings)
        self.enhancements: Enhancements = check_group("enhancements", enhancements, Enhancements)
        self.tree = check_group("tree", tree, TreeSettings)
        self.simulations = budget.simulations_or(self.default_simulations)
        self._seed_sequence = np.random.SeedSequence(int(make_rng(seed).integers(2**63)))
        self.rules = uct_rules(uct, enhancements, None, endgame.solve_empties or 0)
        self._exact_empties = endgame.exact_empties or 0  # for the game searched (_rules_for)
        self._reuse_tree = self.tree.reuse_tree  # or the preset's, for the game searched
        self._rules_game: str | None = None  # the game whose preset self.rules holds
        self._searchers: list[TreeSearch] = []
        self._pool: ThreadPoolExecutor | None = None
        self.last_search: SearchInfo | None = None

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
        self._rules_for(game)
        self._make_searchers()
        for searcher in self._searchers:
            searcher.check_game(game)  # loads a learned net now
        workers = self.tree.workers
        if workers > 1 and self._pool is None:
            self._pool = ThreadPoolExecutor(workers, thread_name_prefix="mcts")
        if self._exact_empties:
            prepare_solver(game)
        key = self._prepared_key(game)
        if key in _PREPARED:
            return
        with compile_notice(f"the MCTS search for {game.name}", 10):
            _exercise(game, self.rules)
        _PREPARED.add(key)

    def _prepared_key(self, game: Game) -> tuple[str, str]:
        switches = ",".join(name for name, on in sorted(self.rules.constants().items()) if on)
        return (game.spec.kernels, switches)

    def _depends_on_game(self) -> bool:
        return self.enhancements.preset != "none"

    def _rules_for(self, game: Game) -> None:
        """Compose the rules for ``game`` (the preset's and the handover's choices depend on
        it)."""
        if not self._depends_on_game() or self._rules_game == game.name:
            return
        preset = preset_options(self.enhancements.preset, game.name)
        self._exact_empties, solve_empties = self.endgame.for_game(game, preset)
        self.rules = uct_rules(self.uct, self.enhancements, game.name, solve_empties)
        reuse = self.tree.reuse_tree
        self._reuse_tree = bool(preset.get("reuse_tree", False)) if reuse is None else reuse
        self._searchers = []
        self._rules_game = game.name

    def reset(self) -> None:
        """Forget the tree (a new game starts); the random stream goes on."""
        for searcher in self._searchers:
            searcher.has_root = False

    def _make_searchers(self) -> None:
        workers = self.tree.workers
        if len(self._searchers) == workers:
            return
        seeds = [int(s.generate_state(1)[0]) for s in self._seed_sequence.spawn(workers)]
        self._searchers = [TreeSearch(self.rules, self.tree.max_nodes, seed) for seed in seeds]

    def _check_position(self, state: GameState) -> None:
        """Prepare the search of a catalog game's position, or check that plain UCT can search
        a position of another game."""
        if state.is_terminal():
            raise InvalidValueError("the game is over: there is no move to search for")
        game = state.game
        if game is not None:
            new_preset = self._depends_on_game() and self._rules_game != game.name
            if new_preset or self._prepared_key(game) not in _PREPARED:
                self.prepare(game)
            return
        if (
            self._depends_on_game()
            or self.rules.solve_empties
            or self.rules.enhanced
            or self.rules.threads > 1
        ):
            raise InvalidValueError(
                f"the MCTS enhancements, threads and presets search catalog games only "
                f"(state.game is None for {type(state).__name__}): use plain UCT for other games"
            )
        count = len(state.legal_actions())
        if count >= self.tree.max_nodes:
            raise InvalidValueError(
                f"max_nodes={self.tree.max_nodes} is too small for this position: its {count} "
                f"moves and the root need at least {count + 1} nodes"
            )

    def search(self, state: GameState) -> SearchInfo:
        """Search ``state`` (a position in play of any game); also kept in :attr:`last_search`."""
        self._check_position(state)
        self._make_searchers()
        workers, reuse = self.tree.workers, self._reuse_tree
        start = time.perf_counter()
        time_limit = self.budget.time_limit
        deadline = None if time_limit is None else start + time_limit
        if state.game is not None and self._exact_empties:
            solved = solve_root(cast(BoardState, state), self._exact_empties, deadline)
            if solved is not None:
                self.last_search = solved_info(solved, time.perf_counter() - start)
                if not reuse:
                    self.reset()
                return self.last_search
        budget = self.simulations if self.simulations is not None else 2**62
        shares = [budget // workers + (i < budget % workers) for i in range(workers)]

        def work(index: int) -> tuple[int, bool]:
            searcher = self._searchers[index]
            reused = searcher.set_root(state, reuse)
            return searcher.run(shares[index], deadline), reused

        if workers == 1:
            results = [work(0)]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(workers, thread_name_prefix="mcts")
            results = list(self._pool.map(work, range(workers)))
        seconds = time.perf_counter() - start
        moves = self._merge_root_stats()
        action = choose_move(moves, self.tree.final, self.rules.solver)
        self.last_search = SearchInfo(
            action=action,
            moves=sorted(moves, key=lambda m: (-m.visits, -m.mean_value)),
            principal_variation=self._searchers[0].principal_variation(action),
            simulations=sum(done for done, _ in results),
            seconds=seconds,
            tree_nodes=sum(s.nodes_used() for s in self._searchers),
            reused_tree=any(reused for _, reused in results),
            proven=self._root_proven(),
            workers=workers,
        )
        if not reuse:
            self.reset()
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
                    proven=PROVEN_NAMES.get(proven[-1]) if proven else None,
                )
            )
        return moves

    def _root_proven(self) -> str | None:
        for searcher in self._searchers:
            result = searcher.root_result()
            if result is not None:
                return PROVEN_NAMES[result]
        return None

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_pool"] = None  # threads do not pickle; a new pool is made on demand
        return data

    def __repr__(self) -> str:
        return (
            f"MCTSAgent({self.budget.text(self.default_simulations)}, c={self.uct.c:.3g}, "
            f"solver={self.uct.solver})"
        )
