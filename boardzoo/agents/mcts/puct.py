"""MCTSAgent's PUCT search: the batched AlphaZero search of one position, with any evaluator.

With prior or value functions (or an SB3 policy) :class:`~boardzoo.agents.MCTSAgent` does not run
a loop of its own: it searches with :class:`~boardzoo.search.batched.BatchedSearch`, one tree rooted
at the position (one per worker), and an evaluator that calls the functions
(:class:`~boardzoo.search.evaluators.CallbackEvaluator`) or the policy. Its options map onto the
search's: ``c`` and ``c_base`` onto ``c_init`` and ``c_base``, the root noise onto the Dirichlet
noise, a simulation budget onto ``simulations`` (one leaf per step: exact PUCT), a time limit
alone onto a deadline with several leaves per step (virtual loss).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.agents.search_info import MoveStats, SearchInfo, root_moves, search_info
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.batched import BatchedSearch, PUCTConfig
from boardzoo.search.evaluators import CallbackEvaluator, Evaluator

__all__ = ["TIMED_LEAVES", "PUCTSearch", "PUCTSettings", "exercise"]

TIMED_LEAVES = 8  # leaves per step of a search with only a time limit (as AlphaZeroAgent's)
MakeEvaluator = Callable[[Game, int], Evaluator]  # (game, seed) -> the evaluator


@dataclass(frozen=True)
class PUCTSettings:
    """MCTSAgent's options as the batched search needs them (checked by the agent)."""

    c_init: float
    c_base: float  # 0: constant c_init
    dirichlet_alpha: float | None
    dirichlet_epsilon: float
    simulations: int | None  # the whole budget (all trees together)
    time_limit: float | None
    trees: int  # MCTSAgent's workers
    max_nodes: int
    reuse_tree: bool = False

    @property
    def leaves(self) -> int:
        return 1 if self.simulations is not None else TIMED_LEAVES

    @property
    def simulations_per_tree(self) -> int | None:
        if self.simulations is None:
            return None
        return max(1, self.simulations // self.trees)


def _config(settings: PUCTSettings) -> PUCTConfig:
    return PUCTConfig(
        c_init=settings.c_init,
        c_base=settings.c_base,
        dirichlet_alpha=settings.dirichlet_alpha,
        dirichlet_epsilon=settings.dirichlet_epsilon,
        leaves_per_tree=settings.leaves,
        max_nodes=settings.max_nodes,
    )


def exercise(game: Game) -> None:
    """Compile (or load) everything a PUCT search of ``game`` runs, on throwaway objects.

    The search's kernels and the playouts' kernel, with a stand-in prior and a fixed seed: no
    randomness of any agent is used.
    """
    evaluator = CallbackEvaluator(lambda s: np.ones(s.num_actions), None, "random", seed=0)
    search = BatchedSearch(game, 1, PUCTConfig(leaves_per_tree=2, max_nodes=1000), seed=0)
    search.warm_up(evaluator)


class PUCTSearch:
    """The batched search and evaluator of each game an agent has searched.

    Args:
        settings: the search's settings.
        make_evaluator: builds the evaluator of a game from a seed (an integer >= 0).
        seeds: the agent's seed sequence; each game's search and evaluator get seeds of their
            own derived from it and the game's label (whatever order the games come in).
    """

    def __init__(
        self, settings: PUCTSettings, make_evaluator: MakeEvaluator, seeds: np.random.SeedSequence
    ) -> None:
        self.settings = settings
        self.make_evaluator = make_evaluator
        self._seeds = seeds
        self._games: dict[Game, tuple[BatchedSearch, Evaluator]] = {}
        self._fresh = True  # the next search starts a new tree (a new game)

    def _player(self, game: Game) -> tuple[BatchedSearch, Evaluator]:
        if game not in self._games:
            key = zlib.crc32(game.label.encode())  # the game's own stream, whatever the order
            child = np.random.SeedSequence(
                self._seeds.entropy, spawn_key=(*self._seeds.spawn_key, key)
            )
            search_seed, evaluator_seed = (int(x) % 2**62 for x in child.generate_state(2))
            evaluator = self.make_evaluator(game, evaluator_seed)
            search = BatchedSearch(game, self.settings.trees, _config(self.settings), search_seed)
            self._games[game] = (search, evaluator)
        return self._games[game]

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_games"] = {}  # compiled searches do not pickle; a copy makes its own on demand
        return data

    def reset(self) -> None:
        """Start the next search with a new tree (a new game begins)."""
        self._fresh = True

    def prepare(self, game: Game) -> None:
        """Make the search and evaluator of ``game`` (drawing their seeds, nothing else)."""
        self._player(game)

    def search(self, state: BoardState, choose: Callable[[list[MoveStats]], int]) -> SearchInfo:
        """Search ``state`` (a position in play of a catalog game).

        Args:
            state: the root.
            choose: picks the move to play from the root statistics (the final-move rule).

        Returns:
            The search's :class:`SearchInfo`.
        """
        start = time.perf_counter()
        search, evaluator = self._player(state.game)
        settings = self.settings
        deadline = None if settings.time_limit is None else start + settings.time_limit
        result = search.search(
            [state] * settings.trees,
            evaluator,
            simulations=settings.simulations_per_tree,
            deadline=deadline,
            add_noise=settings.dirichlet_alpha is not None,
            reuse=settings.reuse_tree and not self._fresh,
        )
        self._fresh = False
        moves = root_moves(result, state.legal_actions())
        action = choose(moves)
        return search_info(
            result,
            moves,
            action,
            search.principal_variation(0),
            seconds=time.perf_counter() - start,
            extra={"root_value": float(np.mean(result.root_value)), "search": "puct"},
            reused=bool(np.any(result.reused)),
        )
