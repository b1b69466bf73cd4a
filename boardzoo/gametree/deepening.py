"""Iterative deepening: the one driver of every depth-first player, with its time management.

:class:`IterativeDeepening` searches a root one ply deeper each iteration (or along any plan of
depths) with the compiled search of one game and one choice of ideas
(:func:`boardzoo.gametree.compile.compiled_tree`), keeping the best move of the last iteration
that finished. What it does between iterations is :class:`Deepening`:

- the best move of an iteration is searched first in the next (the others keep their order);
- with ``aspiration``, from the third iteration the root is searched within that far of the
  last score first, and again with the full window when the score falls outside;
- with a clock, the compiled search reads it itself and gives up at the deadline (the first
  iteration always finishes: a move at least); with ``soft_fraction``, no new iteration starts
  after that share of the move's time (an iteration takes a few times the previous one), or
  ``unstable_fraction`` when the last iteration changed its mind (a new best move, or a score
  that fell by ``score_drop``): critical positions get more of the clock;
- a search that saw the end of every line is exact: deeper ones change nothing, so it stops; so
  does a forced move (``stop_when_forced``, or with a clock).

References: Slate & Atkin, "CHESS 4.5" (1977), iterative deepening and the transposition table;
Marsland & Campbell (1982), principal-variation search and aspiration windows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardzoo.budget import ABORTED, DEADLINE, NODES, new_counters
from boardzoo.clock import monotonic_ns
from boardzoo.games.spec import WIN_SCORE, Game
from boardzoo.gametree.compile import compiled_tree
from boardzoo.gametree.settings import TreeSettings
from boardzoo.gametree.table import new_table
from boardzoo.gametree.template import (
    AGE,
    HORIZON,
    INFINITY,
    LOOK_AT,
    MAX_PLY,
    NUM_COUNTERS,
    P_CUT,
    SELDEPTH,
    probcut_counters,
    scratch,
)

__all__ = ["ENGINE_DEEPENING", "Deepening", "DeepeningResult", "IterativeDeepening"]

Net = tuple[np.ndarray, ...] | None


@dataclass(frozen=True)
class Deepening:
    """What the driver does between iterations (see the module docstring).

    Attributes:
        aspiration: half-width of the aspiration window around the last score (``None``: the
            full window every time).
        soft_fraction: no new iteration after this share of the move's time (``None``: go on
            until the clock stops the search).
        unstable_fraction: the share instead, when the last iteration changed its mind.
        score_drop: a fall of the root's score that counts as a change of mind.
        stop_when_forced: stop after one iteration when there is one move (without a clock too).
    """

    aspiration: int | None = None
    soft_fraction: float | None = None
    unstable_fraction: float | None = None
    score_drop: int = 0
    stop_when_forced: bool = False


# The engine's: no new iteration after 35% of the move's time (60% when the last iteration found
# a new best move or lost 400 of its score), an aspiration window of 300 around the last score.
ENGINE_DEEPENING = Deepening(
    aspiration=300, soft_fraction=0.35, unstable_fraction=0.6, score_drop=400, stop_when_forced=True
)


@dataclass(frozen=True)
class DeepeningResult:
    """What one deepening search found.

    Attributes:
        cell: the best root cell (``-1``: a pass).
        score: its score for the side to move, from the last finished iteration.
        depth: plies of the last finished iteration (0: none finished).
        seldepth: the deepest ply that iteration reached.
        nodes: positions searched, every iteration's (an aborted one's too).
        exact: the score is the game-theoretic value (every line reached the end of the game
            and nothing was cut by an estimate).
    """

    cell: int
    score: int
    depth: int
    seldepth: int
    nodes: int
    exact: bool


class IterativeDeepening:
    """The driver of one game's compiled search with one choice of ideas.

    Args:
        game: the game searched.
        settings: the ideas of the compiled search.
        deepening: what happens between iterations.
        table_bits: with ``settings.table``, the table holds ``2**table_bits`` entries, kept
            from search to search (until :meth:`forget`); its entries of older searches are
            replaced first.
    """

    def __init__(
        self,
        game: Game,
        settings: TreeSettings,
        deepening: Deepening = Deepening(),
        table_bits: int = 10,
    ) -> None:
        self.game = game
        self.settings = settings
        self.deepening = deepening
        self.table_bits = table_bits if settings.table else 1
        self.copies = compiled_tree(game, settings)
        self._table: np.ndarray | None = None
        self._work: np.ndarray | None = None
        self.age = 0

    def forget(self) -> None:
        """Drop the table and the move-ordering statistics (a new game)."""
        self._table = None
        self._work = None

    def _scratch(self) -> tuple[np.ndarray, np.ndarray]:
        if self._table is None or self._work is None:
            self._table = new_table(self.table_bits)[0]
            self._work = scratch()
        return self._table, self._work

    def search(
        self,
        s0: np.uint64,
        s1: np.uint64,
        player: int,
        root: np.ndarray,
        depths: list[int],
        deadline: int = 0,
        limit_ns: int = 0,
        probcut: np.ndarray | None = None,
        net: Net = None,
    ) -> DeepeningResult:
        """Search the root moves ``root`` (cells in the order to try them; ``-1`` a pass) to
        each depth of ``depths`` in turn.

        Args:
            deadline: when the search must stop, in nanoseconds of the monotonic clock
                (:mod:`boardzoo.clock`); 0: no clock. The first iteration has none.
            limit_ns: the move's time, for the soft limits of :class:`Deepening`.
            probcut: multi-ProbCut's calibration (the array of
                :func:`boardzoo.gametree.probcut.search_probcut`; its age is not read: the
                driver keeps its own); ``None``: no multi-ProbCut.
            net: a learned net's arrays for the horizon, or ``None`` for the game's evaluation.
        """
        table, work = self._scratch()
        if self.settings.history:
            work[MAX_PLY:] //= 2  # old history counts for less
        self.age = (self.age + 1) % (1 << 30)
        cut = probcut is not None and probcut[P_CUT] > 0
        margins = probcut_counters(probcut) if probcut is not None else np.zeros(0, np.int64)
        search_root = self.copies["search_root"]
        params = self.game.params
        how = self.deepening
        forced = root.shape[0] == 1
        best_cell, best_score, done_depth, seldepth, exact = int(root[0]), 0, 0, 0, False
        nodes = 0
        begun = monotonic_ns()
        for step, depth in enumerate(depths):
            counters = np.concatenate((new_counters(NUM_COUNTERS), margins))
            counters[AGE] = self.age
            if deadline and step > 0:  # the first iteration always gives a move
                if monotonic_ns() >= deadline:
                    break
                counters[DEADLINE] = deadline
            alpha, beta = -INFINITY, INFINITY
            if how.aspiration is not None and step >= 2 and abs(best_score) < WIN_SCORE // 2:
                alpha, beta = best_score - how.aspiration, best_score + how.aspiration
            index, score, searched = search_root(
                s0, s1, player, params, root, depth, alpha, beta, counters, work, table, net
            )
            if not counters[ABORTED] and not alpha < score < beta:
                nodes += int(counters[NODES])  # outside the window: search it all again
                counters[NODES] = counters[LOOK_AT] = 0  # the clock looked at from its start
                index, score, searched = search_root(
                    s0, s1, player, params, root, depth, -INFINITY, INFINITY, counters, work,
                    table, net,
                )  # fmt: skip
            nodes += int(counters[NODES])
            if counters[ABORTED]:
                # Moves searched before the time ran out can still overturn the previous best,
                # which was searched first.
                if searched > 0 and index > 0:
                    best_cell = int(root[index])
                break
            unstable = int(root[index]) != best_cell or score < best_score - how.score_drop
            best_cell, best_score, done_depth = int(root[index]), int(score), depth
            seldepth = int(counters[SELDEPTH])
            exact = bool(counters[HORIZON] == 0) and not cut
            if exact or (forced and (deadline or how.stop_when_forced)):
                break  # proven, or forced: more plies change nothing
            root = np.concatenate(([root[index]], np.delete(root, index)))
            if limit_ns and how.soft_fraction is not None and how.unstable_fraction is not None:
                fraction = how.unstable_fraction if unstable else how.soft_fraction
                if monotonic_ns() - begun > fraction * limit_ns:
                    break
        return DeepeningResult(best_cell, best_score, done_depth, seldepth, nodes, exact)
