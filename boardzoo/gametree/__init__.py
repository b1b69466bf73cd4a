"""The depth-first search: one alpha-beta template, every idea a switch, every game a plug-in.

Read it in this order:

- :mod:`~boardzoo.gametree.template`: the search, fail-soft negamax alpha-beta written once
  (principal-variation search, the table, ordering, killers and history, enhanced transposition
  cut-offs, multi-ProbCut, the clock), each idea a module constant;
- :mod:`~boardzoo.gametree.table`: the transposition table, buckets of two entries in a cache
  line;
- :mod:`~boardzoo.gametree.hooks`: how the search reaches a game, and the defaults over its
  compiled kernels; a game's plug-in defines hooks of its own
  (:attr:`~boardzoo.games.spec.GameSpec.tree_plugin`): :mod:`~boardzoo.gametree.reversi` (with
  :mod:`~boardzoo.gametree.reversi_last`, the last empties, and
  :mod:`~boardzoo.gametree.reversi_stability`, stable discs) and
  :mod:`~boardzoo.gametree.connect_four` (with :mod:`~boardzoo.gametree.connect_four_book`, its
  opening book);
- :mod:`~boardzoo.gametree.settings`: which ideas are on, :class:`TreeSettings`, and the three
  players' choices: :data:`PLAIN` (``alphabeta``), :data:`ENGINE` (``engine``) and :data:`EXACT`
  (``solver``);
- :mod:`~boardzoo.gametree.compile`: the search compiled per game, settings and plug-in;
- :mod:`~boardzoo.gametree.deepening`: :class:`IterativeDeepening`, the one driver, with its
  time management;
- :mod:`~boardzoo.gametree.exact_mode` and :mod:`~boardzoo.gametree.solve`: the exact mode's
  zoom to the exact score, and :func:`solve`, a position's exact score and best moves;
- :mod:`~boardzoo.gametree.probcut` and :mod:`~boardzoo.gametree.probcut_calibration`:
  multi-ProbCut's calibration files, their fits and how they are measured (``boardzoo
  probcut``).

Nothing here imports gymnasium, pettingzoo, torch or pygame.
"""

from boardzoo.gametree.deepening import Deepening, DeepeningResult, IterativeDeepening
from boardzoo.gametree.settings import ENGINE, EXACT, PLAIN, TreeSettings
from boardzoo.gametree.solve import GameSolver, SolveResult, forget_tables, game_solver, solve
from boardzoo.gametree.table import new_table

__all__ = [
    "ENGINE",
    "EXACT",
    "PLAIN",
    "Deepening",
    "DeepeningResult",
    "GameSolver",
    "IterativeDeepening",
    "SolveResult",
    "TreeSettings",
    "forget_tables",
    "game_solver",
    "new_table",
    "solve",
]
