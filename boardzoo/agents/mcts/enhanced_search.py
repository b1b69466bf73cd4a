"""The enhanced UCT search of one shared tree, run by one thread or several.

:class:`Enhancements` holds the options of :mod:`boardzoo.agents.mcts.enhanced` (validated by the
agent) and writes them into the compiled loop's ``opts`` array; :class:`EnhancedSearcher` is a
:class:`~boardzoo.agents.mcts.search.Searcher` whose tree carries the enhancements' extra arrays
and is grown by ``threads`` threads at once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from boardzoo.agents.mcts import compiled
from boardzoo.agents.mcts import enhanced as en
from boardzoo.agents.mcts import tree as tr
from boardzoo.agents.mcts.search import (
    ROLLOUT_HEURISTIC,
    Searcher,
    SearchSettings,
    run_in_chunks,
)
from boardzoo.games.spec import Game
from boardzoo.games.state import GameState
from boardzoo.learned.ntuple import NTupleNet, load_net

__all__ = ["EnhancedSearcher", "Enhancements"]

# A net that is never read: the compiled loop's argument when the evaluation is hand-made.
_NO_NET = NTupleNet(
    cells=np.full((1, 1), -1, dtype=np.int64),
    table=np.zeros(1, dtype=np.int64),
    weights=np.zeros((1, 1, 3), dtype=np.float32),
)
# How deep below the old root tree reuse looks for the new position.
REUSE_DEPTH = 4


@dataclass(frozen=True)
class Enhancements:
    """The enhancements switched on (all off: plain UCT). See :class:`MCTSAgent`'s arguments."""

    rave_k: float = 0.0  # 0: no RAVE
    progressive_bias: float = 0.0
    widening_k: float = 0.0  # 0: no progressive widening
    widening_alpha: float = 0.5
    lgrf: bool = False
    cutoff: int | None = None
    minimax_weight: float = 0.0
    criticality: float = 0.0
    threads: int = 1
    virtual_loss: int = 1
    learned_eval: bool = False

    @property
    def active(self) -> bool:
        """Whether anything differs from plain UCT (then the enhanced loop runs)."""
        return self != Enhancements(virtual_loss=self.virtual_loss)

    @property
    def uses_evaluation(self) -> bool:
        """Whether the game's evaluation (hand-made or learned) is read."""
        return (
            self.progressive_bias > 0
            or self.widening_k > 0
            or self.cutoff is not None
            or self.minimax_weight > 0
        )

    @property
    def records_moves(self) -> bool:
        """Whether playouts must be recorded move by move (so the game's rollout cannot run)."""
        return self.rave_k > 0 or self.lgrf or self.criticality > 0 or self.cutoff is not None

    def opts(self, settings: SearchSettings, game: Game) -> np.ndarray:
        """The compiled loop's ``opts`` array for ``game``."""
        opts = np.zeros(en.NUM_OPTS, dtype=np.float64)
        opts[en.O_C] = settings.c
        opts[en.O_SOLVER] = float(settings.solver)
        opts[en.O_POLICY] = en.POLICY_LGRF if self.lgrf else settings.rollout_policy
        opts[en.O_RAVE_K] = self.rave_k
        opts[en.O_BIAS] = self.progressive_bias
        opts[en.O_WIDEN_K] = self.widening_k
        opts[en.O_WIDEN_ALPHA] = self.widening_alpha
        opts[en.O_CUTOFF] = -1.0 if self.cutoff is None else float(self.cutoff)
        opts[en.O_MINIMAX] = self.minimax_weight
        opts[en.O_CRITICALITY] = self.criticality
        opts[en.O_VIRTUAL_LOSS] = float(self.virtual_loss if self.threads > 1 else 0)
        opts[en.O_EVAL] = en.EVAL_LEARNED if self.learned_eval else en.EVAL_HAND
        opts[en.O_EVAL_SCALE] = game.spec.evaluation_scale
        return opts

    def check_game(self, game: Game, settings: SearchSettings) -> NTupleNet:
        """The net the search reads (a placeholder for the hand-made evaluation); a
        ``ValueError`` if ``game`` cannot be searched with these options."""
        if self.records_moves and settings.rollout_policy == ROLLOUT_HEURISTIC:
            raise ValueError(
                "rollout=heuristic is not allowed with rave, criticality or cutoff: their "
                "playouts are recorded move by move, uniformly random (or rollout=lgrf)"
            )
        if self.learned_eval and self.uses_evaluation:
            return load_net(game)
        return _NO_NET


class EnhancedSearcher(Searcher):
    """A shared tree with the enhancements' extra arrays, grown by ``threads`` threads.

    The tree's nodes are taken from per-thread ranges of the arrays; tree reuse copies the kept
    subtree (and its extras) to the front of the spare buffer and shares the rest out again.
    """

    def __init__(
        self, settings: SearchSettings, enhancements: Enhancements, max_nodes: int, seed: int
    ) -> None:
        super().__init__(settings, max_nodes, seed)
        self.enhancements = enhancements
        threads = enhancements.threads
        self.extras = en.new_extras(max_nodes, threads)
        self._spare_extras: en.Extras | None = None
        seeds = np.random.SeedSequence(seed).spawn(threads)
        self.thread_rng = [s.generate_state(1, np.uint64)[0] for s in seeds]
        self._pool = ThreadPoolExecutor(threads, "mcts-thread") if threads > 1 else None
        self._opts: np.ndarray | None = None
        self._net: NTupleNet = _NO_NET

    def set_root(self, state: GameState, reuse: bool) -> bool:
        game = state.game
        if game is None:
            raise ValueError(
                f"the MCTS enhancements search catalog games only (state.game is None for "
                f"{type(state).__name__}): use plain UCT for other games"
            )
        self._net = self.enhancements.check_game(game, self.settings)
        self._opts = self.enhancements.opts(self.settings, game)
        reused = super().set_root(state, reuse)
        en.clear_search_memory(self.extras)
        if not reused:
            en.share_free_nodes(self.tree, self.extras)
        return reused

    def _find(self, state: GameState) -> int:
        s0, s1 = (np.uint64(b) for b in state.bitboards())  # type: ignore[attr-defined]
        return int(en.find_below(self.tree, s0, s1, state.current_player, REUSE_DEPTH))

    def _reroot(self, node: int, state: GameState) -> None:
        if self._spare is None:
            self._spare = tr.new_tree(len(self.tree.value))
            self._spare_extras = en.new_extras(len(self.tree.value), self.enhancements.threads)
        assert self._spare_extras is not None
        self.tree.meta[tr.NODE_COUNT] = max(
            int(self.tree.meta[tr.NODE_COUNT]), int(en.high_water(self.extras))
        )
        origin = compiled.copy_subtree(self.tree, self._spare, node)
        for name in ("cell", "amaf_value", "amaf_visits", "heur", "mm"):
            getattr(self._spare_extras, name)[: len(origin)] = getattr(self.extras, name)[origin]
        self.tree, self._spare = self._spare, self.tree
        self.extras, self._spare_extras = self._spare_extras, self.extras
        self.states = [state]
        en.share_free_nodes(self.tree, self.extras)

    def _run_compiled(self, simulations: int, deadline: float | None) -> int:
        game = self.game
        assert game is not None and self._opts is not None
        run = en.compiled_enhanced(game)["run_enhanced"]
        threads = self.enhancements.threads
        shares = [simulations // threads + (t < simulations % threads) for t in range(threads)]

        def work(thread: int) -> int:
            def step(count: int) -> int:
                ran, rng = run(
                    self.tree, self.extras, count, self._opts, thread, game.params, self._net,
                    self.thread_rng[thread],
                )  # fmt: skip
                self.thread_rng[thread] = np.uint64(rng)
                return int(ran)

            return run_in_chunks(step, shares[thread], deadline, self.root_proven, 64)

        done = work(0) if self._pool is None else sum(self._pool.map(work, range(threads)))
        self.tree.meta[tr.NODE_COUNT] = en.high_water(self.extras)
        return done

    def nodes_used(self) -> int:
        return int(en.nodes_used(self.extras))

    def __getstate__(self) -> dict[str, object]:
        data = self.__dict__.copy()
        data["_pool"] = None
        return data

    def __setstate__(self, data: dict[str, object]) -> None:
        self.__dict__.update(data)
        threads = self.enhancements.threads
        self._pool = ThreadPoolExecutor(threads, "mcts-thread") if threads > 1 else None
