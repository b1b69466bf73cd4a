"""The exact mode's drivers: a solve within a window, and the zoom to the exact score.

:func:`solve` is the solver contract of :func:`boardzoo.gametree.solve.solve` and the MCTS
core's in-tree solves (``solve(s0, s1, player, params, alpha, beta, table_keys, table_data,
counters) -> (score, cell)``), compiled per game by :func:`boardzoo.gametree.compile.
compiled_solver` over the search of :mod:`boardzoo.gametree.template` with every line to the end
of the game. A window narrower than the plug-in's ``(-SCORE_LIMIT, SCORE_LIMIT)`` gives a bound
outside it (``(-1, 1)``: win, draw or loss); the full window zooms to the exact score, by the
plug-in's ``ZOOM``:

- ``0``: one search of the full window (scores 1, 0, -1: the window is already a null one);
- ``1``: a win/draw/loss solve first, then null-window searches stepping from its bound to the
  score (MTD(f)), each reusing the table the previous ones filled (Reversi's disc differences:
  on FFO #41 a third of the nodes of one full-window search);
- ``2``: null-window searches that halve the range of possible scores (``tree_score_range``),
  biased towards the draw, where most positions are (Connect Four's).
"""

from __future__ import annotations

import numpy as np

from boardzoo.budget import ABORTED, NODES
from boardzoo.gametree.hooks import (  # the defaults: each compiled copy has its plug-in's
    tree_moves,
    tree_root_position,
    tree_score_range,
    tree_settled,
)
from boardzoo.gametree.template import LOOK_AT, node, root_order, scratch, search_root

__all__ = ["DEPTH"]

DEPTH = np.int64(10_000)  # the depth of an exact search: deeper than any game
_ZERO = np.int64(0)
ZOOM = 0  # frozen per plug-in
SCORE_LIMIT = 1


def solve_window(x, y, player, params, alpha, beta, counters, work, table, net):
    """The score within ``(alpha, beta)`` and the best move found (``-1``: none to make)."""
    moves = tree_moves(x, y, player, params)
    if not moves:
        value = node(
            x, y, player, moves, params, DEPTH, alpha, beta, _ZERO, _ZERO, counters, work, table,
            net,
        )  # fmt: skip
        return value, np.int64(-1)
    cells = root_order(x, y, player, params, DEPTH, work, table, net)
    index, value, _ = search_root(
        x, y, player, params, cells, DEPTH, alpha, beta, counters, work, table, net
    )
    return value, cells[index]


def solve(s0, s1, player, params, alpha, beta, t_keys, t_data, counters):
    """The score of the position for the side to move within ``(alpha, beta)`` and a best
    move (``-1``: it must pass, or the game is over). ``t_keys``: a table of
    :func:`boardzoo.gametree.table.new_table` (``t_data`` is not used)."""
    return solve_net(s0, s1, player, params, alpha, beta, t_keys, t_data, counters, None)


def solve_net(s0, s1, player, params, alpha, beta, t_keys, t_data, counters, net):
    """:func:`solve`, the plug-in's move ordering helped by an evaluation's arrays ``net``
    (``None``: none)."""
    counters[LOOK_AT] = counters[NODES]  # the budget and the clock are looked at first
    x, y, p = tree_root_position(s0, s1, player, params)
    settled, score, cell = tree_settled(x, y, p, params)
    if settled:
        return score, cell
    work = scratch()
    if ZOOM == 0 or alpha > -SCORE_LIMIT or beta < SCORE_LIMIT:
        return solve_window(x, y, p, params, alpha, beta, counters, work, t_keys, net)
    if ZOOM == 1:
        guess, move = solve_window(x, y, p, params, -1, 1, counters, work, t_keys, net)
        if guess == 0:
            return guess, move  # a draw, exactly
        low, high = np.int64(-SCORE_LIMIT), np.int64(SCORE_LIMIT)
        best_move = np.int64(-1)
        if guess > 0:
            low, best_move = guess, move
        else:
            high = guess
        while low < high and not counters[ABORTED]:
            bound = guess + 1 if guess == low else guess
            guess, move = solve_window(
                x, y, p, params, bound - 1, bound, counters, work, t_keys, net
            )
            if guess < bound:
                high = guess
            else:
                low, best_move = guess, move
    else:
        low, high = tree_score_range(x, y, p, params)
        best_move = np.int64(-1)
        while low < high and not counters[ABORTED]:
            middle = low + (high - low) // 2  # halve the range, towards the draw
            if middle <= 0 and _half(low) < middle:
                middle = _half(low)
            elif middle >= 0 and _half(high) > middle:
                middle = _half(high)
            value, move = solve_window(
                x, y, p, params, middle, middle + 1, counters, work, t_keys, net
            )
            if value <= middle:
                high = value
            else:
                low, best_move = value, move
    if best_move < 0 and not counters[ABORTED]:  # never failed high: a move that reaches low
        _, best_move = solve_window(x, y, p, params, low - 1, low, counters, work, t_keys, net)
    return low, best_move


def _half(x):
    """``x / 2`` rounded towards zero."""
    return -((-x) // 2) if x < 0 else x // 2
