"""Which ideas a depth-first search uses: :class:`TreeSettings`, and the three players' choices.

Each field switches one idea of :mod:`boardzoo.gametree.template` on or off; a compiled copy of
the search is made per game and per choice (an idea that is off costs nothing in it):

- :data:`PLAIN`: everything off: negamax alpha-beta to a fixed depth with the game's move
  ordering, a pass a ply (``alphabeta:depth=N``);
- :data:`ENGINE`: everything on: the table, principal-variation search, killers, history,
  ordering by the children's evaluation and multi-ProbCut (``engine``);
- :data:`EXACT`: to the end of the game with the table, principal-variation search and enhanced
  transposition cut-offs, and the game plug-in's own knowledge (``solver``,
  :func:`boardzoo.search.solve`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

__all__ = ["ENGINE", "EXACT", "PLAIN", "TreeSettings"]


@dataclass(frozen=True)
class TreeSettings:
    """The ideas of one depth-first search.

    Attributes:
        table: the transposition table: its move first, its bounds cut or narrow the window.
        pvs: principal-variation search: null windows after the first move.
        etc: enhanced transposition cut-offs (a child the table refutes cuts at once).
        killers: two killer moves a ply, tried early.
        history: the history heuristic breaks the game's ordering ties.
        value_order: with 3 plies or more to go, moves ordered by the child's evaluation.
        probcut: multi-ProbCut, where a calibration is given to the search.
        pass_is_ply: a pass uses a ply of the depth.
        exact: to the end of the game, the game plug-in's exact scores, no evaluation.
    """

    table: bool = False
    pvs: bool = False
    etc: bool = False
    killers: bool = False
    history: bool = False
    value_order: bool = False
    probcut: bool = False
    pass_is_ply: bool = True
    exact: bool = False

    def constants(self) -> dict[str, bool]:
        """The template's switches (its module constants) for these settings."""
        return {name.upper(): value for name, value in asdict(self).items()}

    def but(self, **changes: bool) -> TreeSettings:
        """These settings with some ideas switched (``ENGINE.but(probcut=False)``)."""
        return replace(self, **changes)


PLAIN = TreeSettings()
ENGINE = TreeSettings(
    table=True, pvs=True, killers=True, history=True, value_order=True, probcut=True,
    pass_is_ply=False,
)  # fmt: skip
EXACT = TreeSettings(table=True, pvs=True, etc=True, pass_is_ply=False, exact=True)
