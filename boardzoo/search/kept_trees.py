"""The trees of a batched search, kept between its searches: their room, their reuse, their moves.

:class:`KeptTrees` holds the forest of a :class:`~boardzoo.search.batched.BatchedSearch` (the
search core's :class:`~boardzoo.search.tree.Tree`, a row per root, each root at node 0) and which
of its trees hold a finished search. Before a search it re-roots each kept tree at the node
holding its new root, by the search core's one reuse rule (:mod:`boardzoo.search.reroot`: within
two moves of the old root, passes not counted), grows the forest when the search needs more nodes
a row (the kept trees copied over), and starts the other trees fresh at their roots; between
searches it moves a kept tree's root down the moves played (:meth:`KeptTrees.advance`). A
re-rooted tree's subtree is moved to the start of its row, so the rest of the row is free again.
Gumbel searches never reuse: sequential halving plans the whole budget of an empty root.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardzoo.checks import check_int
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.batched_settings import BatchedSearchSettings
from boardzoo.search.positions import bitboards
from boardzoo.search.reroot import REUSE_MOVES, find_position, keep_subtree
from boardzoo.search.tree import (
    MAX_CHILDREN,
    MIN_NODES,
    NO_NODE,
    NODE_FIELDS,
    Tree,
    init_roots,
    new_tree,
    nodes_used,
    share_free_nodes,
)

__all__ = ["KeptTrees"]

_DEFAULT_MAX_NODES = 200_000
_TIMED_NODES = 2**24  # all trees together, for searches with only a deadline
_MAX_TIMED_NODES = 2**22


class KeptTrees:
    """The forest of up to ``batch_size`` trees of ``game``, and which of them are kept.

    Args:
        game: the game searched.
        batch_size: most trees (the forest's rows).
        config: the search's settings (its ``max_nodes`` and whether it is Gumbel's).
    """

    def __init__(self, game: Game, batch_size: int, config: BatchedSearchSettings) -> None:
        self.game = game
        self.batch_size = batch_size
        self.config = config
        self.forest: Tree | None = None
        # Tree b holds a finished search (the root at node 0, priors without noise): reusable.
        self.kept = np.zeros(batch_size, dtype=bool)

    def _nodes_for(self, simulations: int | None, kept: int) -> int:
        if self.config.max_nodes is not None:
            return self.config.max_nodes
        if simulations is None:  # a time limit: room for long searches of few trees
            return max(_DEFAULT_MAX_NODES, min(_MAX_TIMED_NODES, _TIMED_NODES // self.batch_size))
        children = min(self.game.num_actions, MAX_CHILDREN)
        wanted = kept + 1 + (simulations + 1) * children
        return max(MIN_NODES, min(_DEFAULT_MAX_NODES, wanted))

    def _room(self, nodes: int) -> Tree:
        """The forest, grown to ``nodes`` nodes a row if smaller (the kept trees copied over)."""
        old = self.forest
        if old is not None and old.s0.shape[1] >= nodes:
            return old
        forest = self.forest = new_tree(nodes, rows=self.batch_size)
        if old is not None:
            for b in np.flatnonzero(self.kept):
                used = int(nodes_used(old, b))
                for name in NODE_FIELDS:
                    getattr(forest, name)[b, :used] = getattr(old, name)[b, :used]
                share_free_nodes(forest, b, used)
        return forest

    def _reuse(self, roots: Sequence[BoardState]) -> np.ndarray:
        """Re-root each kept tree at the node holding its new root; return which trees were."""
        reused = np.zeros(len(roots), dtype=bool)
        forest = self.forest
        if forest is None or self.config.gumbel:
            return reused
        for b, state in enumerate(roots):
            if not self.kept[b]:
                continue
            s0, s1 = bitboards(state)
            node = find_position(forest, b, s0, s1, state.current_player, REUSE_MOVES)
            if node == NO_NODE:
                continue
            if node != 0:
                keep_subtree(forest, b, node)
            reused[b] = True
        return reused

    def prepare(
        self, roots: Sequence[BoardState], simulations: int | None, reuse: bool
    ) -> tuple[Tree, np.ndarray]:
        """The forest ready to search ``roots`` (tree ``b`` for ``roots[b]``), and which trees
        continue a kept one (``reuse``); the others start fresh. No tree counts as kept until
        the search marks it so (``kept``)."""
        n = len(roots)
        reused = self._reuse(roots) if reuse else np.zeros(n, dtype=bool)
        self.kept[:n] = reused  # the trees a larger forest must copy
        kept = 0
        if self.forest is not None and reused.any():
            kept = max(int(nodes_used(self.forest, int(b))) for b in np.flatnonzero(reused))
        forest = self._room(self._nodes_for(simulations, kept))
        self.kept[:n] = False  # until this search has finished
        fresh = np.flatnonzero(~reused).astype(np.int64)
        bits = np.array([roots[int(b)].bitboards() for b in fresh], dtype=np.uint64).reshape(-1, 2)
        players = np.array([roots[int(b)].current_player for b in fresh], dtype=np.int64)
        init_roots(forest, fresh, bits[:, 0].copy(), bits[:, 1].copy(), players)
        return forest, reused

    def advance(self, tree: int, actions: Sequence[int]) -> bool:
        """Move kept tree ``tree``'s root down ``actions``; whether the tree is still kept (see
        :meth:`~boardzoo.search.batched.BatchedSearch.advance`, which checks ``tree``)."""
        forest = self.forest
        if forest is None or not self.kept[tree]:
            return False
        node = 0
        for i, action in enumerate(actions):
            action = check_int(f"actions[{i}]", action, 0, self.game.num_actions - 1)
            first = int(forest.first_child[tree, node])
            if first == NO_NODE or forest.terminal[tree, node]:
                self.kept[tree] = False
                return False
            count = int(forest.num_children[tree, node])
            match = np.flatnonzero(forest.action[tree, first : first + count] == action)
            if match.size == 0:
                legal = sorted(forest.action[tree, first : first + count].tolist())
                raise InvalidValueError(
                    f"actions[{i}]={action} is not legal there; legal actions: {legal}"
                )
            node = first + int(match[0])
        if forest.first_child[tree, node] == NO_NODE or forest.terminal[tree, node]:
            self.kept[tree] = False
            return False
        if node != 0:
            keep_subtree(forest, tree, node)
        return True
