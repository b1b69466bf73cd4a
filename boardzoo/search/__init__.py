"""The search core: one tree, one simulation loop, every MCTS idea a rule composed in it.

Read it in this order:

- :mod:`~boardzoo.search.tree`: the tree, ``[B, N]`` struct-of-arrays (a single game is
  ``B = 1``), and its basic operations (init, reserve, bounds);
- :mod:`~boardzoo.search.loop`: the one simulation loop (descend, expand, evaluate, back up),
  compiled per game and per set of rules;
- the rules it composes: :mod:`~boardzoo.search.select` (UCT, solver, RAVE, implicit minimax,
  progressive bias, criticality), :mod:`~boardzoo.search.expand` (random order, progressive
  widening), :mod:`~boardzoo.search.leaf_values` (rollouts, recorded playouts with last good
  replies and cut-offs, the hand-made or learned evaluation), :mod:`~boardzoo.search.backup`
  (values, proven bounds, minimax, virtual loss, AMAF), :mod:`~boardzoo.search.memory` (last
  good replies, criticality counts); which of them are on is :class:`Rules`;
- :mod:`~boardzoo.search.reroot`: tree reuse, one rule;
- :mod:`~boardzoo.search.driver`: :class:`TreeSearch`, the Python side of a UCT search (root,
  budget, threads, root statistics), and :mod:`~boardzoo.search.foreign`, the same steps driven
  from Python for games outside the catalog;
- :mod:`~boardzoo.search.batched`: :class:`BatchedSearch`, AlphaZero's PUCT or Gumbel search of
  many trees at once, one network call a step, with :mod:`~boardzoo.search.evaluators` (what it
  asks of a network, and the evaluators that need none: prior and value callbacks, playouts, an
  SB3 policy) and :mod:`~boardzoo.search.python_bridge` (how its compiled loop calls them);
- :mod:`~boardzoo.search.handover`: where a search hands a position to the exact solve of the
  depth-first search (:mod:`boardzoo.gametree`), at the root and inside the tree.

Nothing here imports gymnasium, pettingzoo, torch or pygame.
"""

from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings, SearchResult
from boardzoo.search.driver import RootChild, TreeSearch, run_in_chunks
from boardzoo.search.evaluators import (
    CallbackEvaluator,
    Evaluator,
    Playouts,
    SB3Evaluator,
    UniformEvaluator,
    cell_squares,
    encode,
)
from boardzoo.search.options import ROLLOUT_HEURISTIC, ROLLOUT_RANDOM, Rules
from boardzoo.search.tree import BYTES_PER_NODE, MAX_NODES, MIN_NODES, Tree, new_tree

__all__ = [
    "BYTES_PER_NODE",
    "MAX_NODES",
    "MIN_NODES",
    "ROLLOUT_HEURISTIC",
    "ROLLOUT_RANDOM",
    "BatchedSearch",
    "BatchedSearchSettings",
    "CallbackEvaluator",
    "Evaluator",
    "Playouts",
    "RootChild",
    "Rules",
    "SB3Evaluator",
    "SearchResult",
    "Tree",
    "TreeSearch",
    "UniformEvaluator",
    "cell_squares",
    "encode",
    "new_tree",
    "run_in_chunks",
]
