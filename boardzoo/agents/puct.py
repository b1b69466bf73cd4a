"""AlphaZero's search as an agent: PUCT or Gumbel AlphaZero, guided by any evaluator.

    agent = PUCTAgent(prior_fn=my_prior, budget=Budget(simulations=400))
    agent.act(env); agent.last_search

:class:`PUCTAgent` searches with the search core's batched, compiled AlphaZero search
(:class:`~boardzoo.search.batched.BatchedSearch`): one tree per worker, rooted at the position,
whose leaves are evaluated by an :class:`~boardzoo.search.evaluators.Evaluator`. Here that is
prior and value functions of a position
(:class:`~boardzoo.search.evaluators.CallbackEvaluator`);
:class:`~boardzoo.agents.AlphaZeroAgent` gives it a trained network and
:class:`~boardzoo.agents.SB3PUCTAgent` a stable-baselines3 policy. The search's ``simulations``
are counted below the root (the root's own evaluation comes first), so the root's moves share
exactly ``simulations`` visits.
"""

from __future__ import annotations

import time
import zlib
from typing import Any, Literal, cast

import numpy as np

from boardzoo.agents.base import Seed, make_rng
from boardzoo.agents.compiling import compile_notice
from boardzoo.agents.search_agent import SearchAgent
from boardzoo.agents.search_info import (
    SearchInfo,
    choose_move,
    root_moves,
    search_info,
    solved_info,
)
from boardzoo.agents.settings import Budget, Endgame, PUCTSettings, TreeSettings, check_group
from boardzoo.checks import check_choice, not_allowed
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState, GameState
from boardzoo.interop import known_elsewhere
from boardzoo.search.batched import BatchedSearch
from boardzoo.search.evaluators import CallbackEvaluator, Evaluator, PriorFn, ValueFn
from boardzoo.search.handover import prepare_solver, solve_root

__all__ = ["PUCTAgent"]

_DEADLINE_SHARE = 0.97  # of a time limit: the rest is left for choosing and reporting


class PUCTAgent(SearchAgent):
    """AlphaZero's search (PUCT or Gumbel) guided by prior and value functions.

    Args:
        prior_fn: ``state -> probabilities over all actions``; none: uniform priors.
        value_fn: ``state -> value in [-1, 1]`` for the player to move; none: one playout of
            the leaf (``rollout``) scores it, as UCT does.
        budget: simulations and seconds per move (200 simulations when neither is given).
        puct: the search rule (PUCT or Gumbel), its constants and root noise.
        tree: workers (trees searched in parallel threads, their root visits added up), nodes
            per tree, tree reuse between moves (PUCT only) and the final-move rule (PUCT only;
            Gumbel plays the winner of its sequential halving).
        rollout: the playouts that score leaves without a value function: ``"random"`` or
            ``"heuristic"``, the game's own rollout policy, for games that have one.
        endgame: the handover to the game's exact solver, at the root and at the leaves
            (off by default).
        seed: seed of the search's randomness (an int, a numpy Generator, or None).
    """

    name = "puct_fn"
    default_simulations = 200

    def __init__(
        self,
        prior_fn: PriorFn | None = None,
        value_fn: ValueFn | None = None,
        budget: Budget = Budget(),
        puct: PUCTSettings = PUCTSettings(),
        tree: TreeSettings = TreeSettings(),
        rollout: Literal["random", "heuristic"] = "random",
        endgame: Endgame = Endgame(),
        seed: Seed = None,
    ) -> None:
        self.prior_fn = prior_fn
        self.value_fn = value_fn
        self._setup(budget, puct, tree, rollout, endgame, seed)

    def _setup(
        self,
        budget: Budget,
        puct: PUCTSettings,
        tree: TreeSettings,
        rollout: str,
        endgame: Endgame,
        seed: Seed,
    ) -> None:
        """Check and keep the options every PUCT agent has (subclasses call it)."""
        self.budget = check_group("budget", budget, Budget)
        self.endgame: Endgame = check_group("endgame", endgame, Endgame)
        self.puct = check_group("puct", puct, PUCTSettings)
        self.tree = check_group("tree", tree, TreeSettings)
        self.rollout = check_choice("rollout", rollout, ("random", "heuristic"))
        self.simulations = budget.simulations_or(self.default_simulations)
        if puct.search == "gumbel" and (self.simulations is None or budget.time_limit is not None):
            raise not_allowed(
                "search", "gumbel", "puct, or gumbel with simulations=N and no time_limit"
            )
        self._seeds = np.random.SeedSequence(int(make_rng(seed).integers(2**63)))
        self._games: dict[Game, tuple[BatchedSearch, Evaluator]] = {}
        self._fresh = True  # the next search starts a new tree (a new game)
        self.last_search: SearchInfo | None = None

    def _make_evaluator(self, game: Game, seed: int) -> Evaluator:
        """The evaluator of the leaves of ``game``; subclasses with other knowledge return
        their own. ``seed`` (an integer >= 0) seeds its playouts."""
        heuristic = self.rollout == "heuristic"
        if self.value_fn is None and heuristic and not game.spec.heuristic_rollout:
            raise InvalidValueError(f"{game.name} has no heuristic rollout: use rollout=random")
        return CallbackEvaluator(self.prior_fn, self.value_fn, self.rollout, seed)

    def _endgame(self, game: Game) -> tuple[int, int]:
        """``(exact_empties, solve_empties)`` for ``game`` (off unless set)."""
        return self.endgame.for_game(game)

    def prepare(self, game: Game) -> None:
        """Make the evaluator and the compiled search of ``game`` before any clock runs.

        Loads the search from numba's cache or compiles it (the first run only, with a notice
        on stderr), and runs it once on the start position. The search and the evaluator get
        seeds of their own derived from the agent's seed and the game's label, whatever order
        the games come in, so a prepared agent plays the same moves as an unprepared one.

        Args:
            game: the catalog game (with its options) that will be searched.
        """
        if game in self._games:
            return
        key = zlib.crc32(game.label.encode())
        child = np.random.SeedSequence(self._seeds.entropy, spawn_key=(key,))
        search_seed, evaluator_seed = (int(x) % 2**62 for x in child.generate_state(2))
        evaluator = self._make_evaluator(game, evaluator_seed)
        settings = self.puct.batched_settings(
            self.budget, max_nodes=self.tree.max_nodes, solve_empties=self._endgame(game)[1]
        )
        search = BatchedSearch(game, self.tree.workers, settings, search_seed)
        if self._endgame(game)[0]:
            prepare_solver(game)
        with compile_notice(f"the AlphaZero search for {game.name}", 15):
            search.warm_up(evaluator)
        self._games[game] = (search, evaluator)

    def reset(self) -> None:
        """Forget the kept tree: the next move starts a new one (a new game begins)."""
        self._fresh = True

    def search(self, state: GameState) -> SearchInfo:
        """Search ``state``, a position in play of a catalog game; also kept in
        :attr:`last_search`."""
        if state.is_terminal():
            raise InvalidValueError("the game is over: there is no move to search for")
        game = state.game
        if game is None:
            raise InvalidValueError(
                f"{type(self).__name__} searches the catalog's games, in boardzoo's envs and in "
                f"{known_elsewhere()} (not {state!r}): search other games with MCTSAgent (UCT)"
            )
        if game not in self._games:
            self.prepare(game)
        search, evaluator = self._games[game]
        start = time.perf_counter()
        legal = state.legal_actions()
        if len(legal) == 1:  # nothing to choose: no search (a kept tree stays for the next)
            self.last_search = SearchInfo(legal[0], [], [legal[0]], 0, 0.0, 0, False)
            return self.last_search
        trees = self.tree.workers
        time_limit = self.budget.time_limit
        deadline = None if time_limit is None else start + time_limit * _DEADLINE_SHARE
        solved = solve_root(cast(BoardState, state), self._endgame(game)[0], deadline)
        if solved is not None:  # the kept tree stays for the next move
            self.last_search = solved_info(solved, time.perf_counter() - start)
            return self.last_search
        result = search.search(
            [cast(BoardState, state)] * trees,
            evaluator,
            simulations=None if self.simulations is None else max(1, self.simulations // trees),
            deadline=deadline,
            add_noise=self.puct.dirichlet_alpha is not None,
            reuse=bool(self.tree.reuse_tree) and not self._fresh and self.puct.search == "puct",
        )
        self._fresh = False
        moves = root_moves(result, legal)
        if self.puct.search == "gumbel":
            action = int(result.action[0])
        else:
            action = choose_move(moves, self.tree.final)
        self.last_search = search_info(
            result,
            moves,
            action,
            search.principal_variation(0),
            seconds=time.perf_counter() - start,
            extra={"root_value": float(np.mean(result.root_value)), "search": self.puct.search},
            reused=bool(np.any(result.reused)),
        )
        return self.last_search

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_games"] = {}  # compiled searches do not pickle; a copy makes its own on demand
        return data

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.budget.text(self.default_simulations)}, "
            f"search={self.puct.search!r}, c_init={self.puct.c_init:.3g})"
        )
