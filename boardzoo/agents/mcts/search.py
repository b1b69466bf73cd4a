"""One UCT search tree and the loop that grows it: compiled for the catalog's games, or driven
from Python for any other GameState (PettingZoo AEC envs through the adapter).

Both loops share the compiled tree operations of :mod:`boardzoo.agents.mcts.tree`; they differ only
in where positions come from (bitboards in the tree, or Python states in a list). PUCT with prior
and value functions is not here: it runs on the batched search (:mod:`boardzoo.agents.mcts.puct`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from boardzoo.agents.mcts import compiled
from boardzoo.agents.mcts import tree as tr
from boardzoo.games.spec import DRAW, LOSS, WIN, Game
from boardzoo.games.state import BoardState, GameState

__all__ = ["ROLLOUT_HEURISTIC", "ROLLOUT_RANDOM", "SearchSettings", "Searcher", "run_in_chunks"]


@dataclass(frozen=True)
class SearchSettings:
    """What every simulation needs to know (validated by the agent)."""

    c: float
    solver: bool
    rollout_policy: int  # ROLLOUT_*


ROLLOUT_RANDOM = 0  # the rollout kernels' policies
ROLLOUT_HEURISTIC = 1


def _bitboards(state: GameState) -> tuple[np.uint64, np.uint64]:
    """A catalog position's bitboards as uint64 (numba would type a Python int as int64)."""
    s0, s1 = cast(BoardState, state).bitboards()
    return np.uint64(s0), np.uint64(s1)


def _result_of(state: GameState) -> int:
    """Player 0's result code (``LOSS``, ``DRAW``, ``WIN``) of a finished game."""
    first, _ = state.returns()
    if first > 0:
        return WIN
    return LOSS if first < 0 else DRAW


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


class Searcher:
    """A tree of preallocated arrays plus the RNG state of one search thread."""

    def __init__(self, settings: SearchSettings, max_nodes: int, seed: int) -> None:
        self.settings = settings
        self.tree = tr.new_tree(max_nodes)
        self._spare: tr.Tree | None = None  # the second buffer re-rooting copies into
        self.rng_state = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        self.np_rng = np.random.default_rng(seed)
        self.game: Game | None = None  # the catalog game of the root, None for foreign games
        self.states: list[GameState | None] = []  # Python-driven loop: the position of each node
        self.has_root = False
        self.compiled = False

    # --- the root ------------------------------------------------------------------------------

    def set_root(self, state: GameState, reuse: bool) -> bool:
        """Make ``state`` the root, keeping the matching subtree if ``reuse``; return if reused."""
        game = state.game
        if (
            game is not None
            and self.settings.rollout_policy == ROLLOUT_HEURISTIC
            and not game.spec.heuristic_rollout
        ):
            raise ValueError(f"{game.name} has no heuristic rollout: use rollout=random")
        self.compiled = game is not None
        if reuse and self.has_root and game == self.game:
            node = self._find(state)
            if node != tr.NO_NODE:
                self._reroot(node, state)
                return True
        self.game = game
        s0, s1 = _bitboards(state) if game is not None else (np.uint64(0), np.uint64(0))
        terminal = state.is_terminal()
        result = _result_of(state) if terminal else DRAW
        tr.init_root(self.tree, s0, s1, state.current_player, terminal, result)
        self.states = [state]
        self.has_root = True
        return False

    def _find(self, state: GameState) -> int:
        """A node of the tree holding ``state`` (the most visited one), or NO_NODE.

        Every node of the tree descends from the root (re-rooting drops the rest), so any match
        is a position the game can still reach.
        """
        tree, count = self.tree, int(self.tree.meta[tr.NODE_COUNT])
        if self.game is not None:
            s0, s1 = _bitboards(state)
            same = (
                (tree.s0[:count] == np.uint64(s0))
                & (tree.s1[:count] == np.uint64(s1))
                & (tree.player[:count] == state.current_player)
            )
            candidates = np.flatnonzero(same)
        else:
            found = [i for i, known in enumerate(self.states[:count]) if known == state]
            candidates = np.array(found, dtype=np.int64)
        if candidates.size == 0:
            return tr.NO_NODE
        return int(candidates[np.argmax(tree.visits[candidates])])

    def _reroot(self, node: int, state: GameState) -> None:
        """Keep only the subtree under ``node``, copied into the spare buffer as a fresh tree."""
        if self._spare is None:
            self._spare = tr.new_tree(len(self.tree.value))
        origin = compiled.copy_subtree(self.tree, self._spare, node)
        self.tree, self._spare = self._spare, self.tree
        if self.compiled:
            self.states = [state]
        else:
            self.states = [self.states[i] if i < len(self.states) else None for i in origin]

    # --- growing the tree ---------------------------------------------------------------------

    def run(self, simulations: int, deadline: float | None) -> int:
        """Run ``simulations`` simulations, or fewer if ``deadline`` (perf_counter) comes first."""
        if self.compiled:
            return self._run_compiled(simulations, deadline)
        return self._run_python(simulations, deadline)

    def _run_compiled(self, simulations: int, deadline: float | None) -> int:
        game, settings = self.game, self.settings
        assert game is not None
        run_simulations = compiled.compiled_search(game)["run_simulations"]

        def step(count: int) -> int:
            ran, rng = run_simulations(
                self.tree, count, settings.c, settings.solver, game.params,
                settings.rollout_policy, self.rng_state,
            )  # fmt: skip
            self.rng_state = np.uint64(rng)  # numba hands back a Python int
            return int(ran)

        return run_in_chunks(step, simulations, deadline, self.root_proven)

    def nodes_used(self) -> int:
        """Nodes in the tree now."""
        return int(self.tree.meta[tr.NODE_COUNT])

    def root_proven(self) -> bool:
        root = int(self.tree.meta[tr.ROOT])
        return self.settings.solver and bool(tr.is_solved(self.tree, root))

    def _run_python(self, simulations: int, deadline: float | None) -> int:
        done = 0
        while done < simulations:
            if self.root_proven() or (deadline is not None and time.perf_counter() >= deadline):
                break
            self._simulate_python()
            done += 1
        return done

    def _simulate_python(self) -> None:
        """One UCT simulation of a foreign game (no bitboards: positions are Python states)."""
        tree, settings = self.tree, self.settings
        leaf = int(tr.descend(tree, settings.c, False, 0.0, settings.solver))
        root = int(tree.meta[tr.ROOT])
        settled = bool(tree.terminal[leaf]) or (settings.solver and bool(tr.is_solved(tree, leaf)))
        unexpanded = not settled and int(tree.first_child[leaf]) == tr.NO_NODE
        if (
            unexpanded
            and (int(tree.visits[leaf]) > 0 or leaf == root)
            and self._expand_python(leaf)
        ):  # UCT: add one child and evaluate that
            tree.num_expanded[leaf] = 1
            leaf = int(tree.first_child[leaf])
            settled = bool(tree.terminal[leaf])
        score0 = float(tr.score_for(int(tree.pess[leaf]), 0)) if settled else self._evaluate(leaf)
        tr.backup(tree, leaf, score0, settings.solver)

    def _state(self, node: int) -> GameState:
        state = self.states[node]
        assert state is not None
        return state

    def _expand_python(self, node: int) -> bool:
        """Reserve and fill ``node``'s children, in random order; False if the tree is full."""
        tree, state = self.tree, self._state(node)
        actions = state.legal_actions()
        first = int(tr.reserve_children(tree, node, len(actions)))
        if first == tr.NO_NODE:
            return False
        prior = 1.0 / len(actions)
        order = self.np_rng.permutation(len(actions))
        if len(self.states) < first + len(actions):
            self.states.extend([None] * (first + len(actions) - len(self.states)))
        s0 = s1 = np.uint64(0)  # foreign games have no bitboards
        for index, action in zip(order, actions, strict=True):
            child = state.apply(action)
            terminal = child.is_terminal()
            result = _result_of(child) if terminal else DRAW
            tr.set_child(
                tree, node, index, action, s0, s1, child.current_player, terminal, result, prior
            )
            self.states[first + index] = child
        return True

    def _evaluate(self, node: int) -> float:
        """Player 0's score of one random playout from ``node`` (a foreign game's states)."""
        state = self._state(node)
        while not state.is_terminal():
            actions = state.legal_actions()
            state = state.apply(actions[int(self.np_rng.integers(len(actions)))])
        first, _ = state.returns()
        return 1.0 if first > 0 else 0.0 if first < 0 else 0.5
