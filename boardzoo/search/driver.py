"""One tree search driven from Python: the root, the budget, the threads, what the root knows.

:class:`TreeSearch` owns one tree (row 0 of a :class:`~boardzoo.search.tree.Tree`) and grows it
with the one loop: for the catalog's games the whole loop is compiled
(:func:`~boardzoo.search.loop.compiled_loop`) and run by ``rules.threads`` threads on the shared
tree; for any other game (:class:`~boardzoo.games.GameState` objects without bitboards, such as
PettingZoo envs through the adapter) the same steps run from Python
(:mod:`boardzoo.search.foreign`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import DRAW, Game
from boardzoo.games.state import GameState
from boardzoo.learned.ntuple import NTupleNet, load_net
from boardzoo.search import foreign
from boardzoo.search import tree as tr
from boardzoo.search.handover import no_solver_tables, solver_tables
from boardzoo.search.loop import compiled_loop
from boardzoo.search.memory import clear_memory, new_memory
from boardzoo.search.options import ROLLOUT_HEURISTIC, Rules
from boardzoo.search.positions import bitboards, result_code
from boardzoo.search.reroot import REUSE_MOVES, find_position, keep_subtree, nodes_within

__all__ = ["RootChild", "TreeSearch", "run_in_chunks"]

# A net that is never read: the compiled loop's argument when the evaluation is hand-made.
_NO_NET = NTupleNet(
    cells=np.full((1, 1), -1, dtype=np.int64),
    table=np.zeros(1, dtype=np.int64),
    weights=np.zeros((1, 1, 3), dtype=np.float32),
)


@dataclass(frozen=True)
class RootChild:
    """One move of the root: its visits, score sum and prior; ``proven`` is its exact score
    for the player to move (1, 0.5, 0) once the solver has proven it, else ``None``."""

    action: int
    visits: int
    value: float
    prior: float
    proven: float | None


def run_in_chunks(
    step: Callable[[int], int],
    total: int,
    deadline: float | None,
    stop: Callable[[], bool],
    first_chunk: int = 256,
) -> int:
    """Call ``step(count)`` (which runs up to ``count`` simulations and returns how many ran)
    until ``total`` have run, ``stop()`` says so, or ``deadline`` (perf_counter) passes.

    Without a deadline one call runs them all. With one, the chunks are sized to about 2% of the
    time left at the rate measured so far, so the deadline is kept. Returns how many ran.
    """
    done = 0
    chunk = total if deadline is None else min(total, first_chunk)
    start = time.perf_counter()
    while done < total:
        ran = step(min(chunk, total - done))
        done += ran
        if ran == 0 or stop():
            break
        if deadline is not None:
            now = time.perf_counter()
            if now >= deadline:
                break
            rate = done / max(now - start, 1e-9)
            chunk = max(16, int(rate * (deadline - now) * 0.02))
    return done


class TreeSearch:
    """A tree, the rules that grow it, and the random state of each thread.

    Args:
        rules: the rules the one loop composes (validated by the agent).
        max_nodes: nodes the tree may hold; once full, simulations go on from its leaves.
        seed: seed of the search's randomness (an integer >= 0).
    """

    def __init__(self, rules: Rules, max_nodes: int, seed: int) -> None:
        self.rules = rules
        self.threads = rules.threads
        self.tree = tr.new_tree(max_nodes, rows=1, threads=self.threads)
        self.memory = new_memory()
        if self.threads == 1:
            self.rng = [np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]]
        else:
            seeds = np.random.SeedSequence(seed).spawn(self.threads)
            self.rng = [s.generate_state(1, np.uint64)[0] for s in seeds]
        self.np_rng = np.random.default_rng(seed)
        self.game: Game | None = None  # the catalog game of the root, None for foreign games
        self.states: list[GameState | None] = []  # foreign games: the position of each node
        self.has_root = False
        self._net: NTupleNet = _NO_NET
        self.solver = no_solver_tables(self.threads)  # the tables of the solves in the tree
        self._solver_game: Game | None = None  # the game they are for
        self._pool: ThreadPoolExecutor | None = None

    # --- the rules against the game -------------------------------------------------------------

    def check_game(self, game: Game | None, state_type: str = "GameState") -> None:
        """A ``ValueError`` if the rules cannot search ``game``; loads a learned net now."""
        rules = self.rules
        if game is None:
            if rules.enhanced or rules.threads > 1:
                raise InvalidValueError(
                    f"the MCTS enhancements and threads search catalog games only (state.game "
                    f"is None for {state_type}): use plain UCT for other games"
                )
            return
        if rules.rollout_policy == ROLLOUT_HEURISTIC and not game.spec.heuristic_rollout:
            raise InvalidValueError(f"{game.name} has no heuristic rollout: use rollout=random")
        if rules.records_moves and rules.rollout_policy == ROLLOUT_HEURISTIC:
            raise InvalidValueError(
                "rollout=heuristic is not allowed with rave, criticality or cutoff: their "
                "playouts are recorded move by move, uniformly random (or rollout=lgrf)"
            )
        if rules.learned_eval and rules.uses_evaluation:
            self._net = load_net(game)
        if rules.constants()["SOLVE"] and self._solver_game != game:
            self.solver = solver_tables(game, self.threads)
            self._solver_game = game

    # --- the root ------------------------------------------------------------------------------

    def set_root(self, state: GameState, reuse: bool) -> bool:
        """Make ``state`` the root, keeping the matching subtree if ``reuse``; return if reused."""
        game = state.game
        self.check_game(game, type(state).__name__)
        clear_memory(self.memory)
        if reuse and self.has_root and game == self.game:
            node = self._find(state)
            if node != tr.NO_NODE:
                self._keep(node, state)
                return True
        self.game = game
        s0, s1 = bitboards(state) if game is not None else (np.uint64(0), np.uint64(0))
        terminal = state.is_terminal()
        result = result_code(state) if terminal else DRAW
        tr.init_root(self.tree, 0, s0, s1, state.current_player, terminal, result)
        self.states = [state]
        self.has_root = True
        return False

    def _find(self, state: GameState) -> int:
        """The node the reuse rule keeps for ``state`` (see :mod:`~boardzoo.search.reroot`),
        or NO_NODE."""
        tree = self.tree
        if self.game is not None:
            s0, s1 = bitboards(state)
            return int(find_position(tree, 0, s0, s1, state.current_player, REUSE_MOVES))
        known = self.states
        matches = [
            int(node)
            for node in nodes_within(tree, 0, REUSE_MOVES)
            if node < len(known)
            and known[node] == state
            and tree.first_child[0, node] != tr.NO_NODE
            and not tree.terminal[0, node]
        ]
        if not matches:
            return tr.NO_NODE
        return max(matches, key=lambda node: int(tree.visits[0, node]))

    def _keep(self, node: int, state: GameState) -> None:
        """Keep only the subtree under ``node`` as the tree."""
        if self.game is None:
            origin = foreign.subtree_states(self.tree, node)
            keep_subtree(self.tree, 0, node)
            self.states = [self.states[i] if i < len(self.states) else None for i in origin]
        else:
            keep_subtree(self.tree, 0, node)
            self.states = [state]

    # --- growing the tree ----------------------------------------------------------------------

    def run(self, simulations: int, deadline: float | None) -> int:
        """Run ``simulations`` simulations, or fewer if ``deadline`` (perf_counter) comes first."""
        if self.game is None:
            grown = foreign.ForeignTree(
                self.tree, self.states, self.rules, self.memory, self.np_rng
            )
            return foreign.run(grown, simulations, deadline)
        game = self.game
        loop = compiled_loop(game, self.rules)
        numbers = self.rules.numbers(game.spec.evaluation_scale)
        threads = self.threads
        shares = [simulations // threads + (t < simulations % threads) for t in range(threads)]

        def work(thread: int) -> int:
            def step(count: int) -> int:
                ran, rng = loop(
                    self.tree, 0, thread, count, numbers, self.memory, game.params, self._net,
                    self.rng[thread], self.solver,
                )  # fmt: skip
                self.rng[thread] = np.uint64(rng)  # numba hands back a Python int
                return int(ran)

            first_chunk = 256 if threads == 1 else 64
            return run_in_chunks(step, shares[thread], deadline, self.root_proven, first_chunk)

        if threads == 1:
            return work(0)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(threads, thread_name_prefix="mcts-thread")
        return sum(self._pool.map(work, range(threads)))

    # --- what the tree knows -------------------------------------------------------------------

    def nodes_used(self) -> int:
        """Nodes in the tree now."""
        return int(tr.nodes_used(self.tree, 0))

    def root_proven(self) -> bool:
        """Whether the solver has proven the root's result."""
        return self.rules.solver and bool(tr.is_solved(self.tree, 0, 0))

    def root_result(self) -> float | None:
        """The root's proven score for the player to move, or ``None``."""
        if not self.root_proven():
            return None
        return float(tr.score_for(int(self.tree.pess[0, 0]), int(self.tree.player[0, 0])))

    def root_children(self) -> list[RootChild]:
        """The root's open children."""
        tree = self.tree
        first = int(tree.first_child[0, 0])
        if first == tr.NO_NODE:
            return []
        mover = int(tree.player[0, 0])
        children = []
        for child in range(first, first + int(tree.num_expanded[0, 0])):
            proven = None
            if self.rules.solver and tr.is_solved(tree, 0, child):
                proven = float(tr.score_for(int(tree.pess[0, child]), mover))
            children.append(
                RootChild(
                    action=int(tree.action[0, child]),
                    visits=int(tree.visits[0, child]),
                    value=float(tree.value[0, child]),
                    prior=float(tree.prior[0, child]),
                    proven=proven,
                )
            )
        return children

    def principal_variation(self, action: int) -> list[int]:
        """``action``, then the most visited line below it."""
        return [action, *tr.most_visited_line(self.tree, 0, self._child_with_action(0, action))]

    def _child_with_action(self, node: int, action: int) -> int:
        tree = self.tree
        first = int(tree.first_child[0, node])
        if first == tr.NO_NODE:
            return tr.NO_NODE
        for child in range(first, first + int(tree.num_expanded[0, node])):
            if int(tree.action[0, child]) == action:
                return child
        return tr.NO_NODE

    def __getstate__(self) -> dict[str, object]:
        data = self.__dict__.copy()
        data["_pool"] = None  # threads do not pickle; a new pool is made on demand
        return data
