"""A small game defined outside the package, for the game-contract tests: three in a row.

Two players take turns marking an empty square of an n x n board (``size`` 3, 4 or 5); three
marks in a row, column or diagonal win, a full board without one is a draw. On 3 x 3 it is
TicTacToe. The whole game is this module (its catalog entry, ``SPEC``) and its kernels
(``tests/line_game_kernels.py``); the positions are the package's generic ``KernelState`` and
the env is made from the catalog, as CONTRIBUTING describes for a new game.
"""

from __future__ import annotations

import numpy as np

from boardzoo.games.kernel_state import kernel_game
from boardzoo.games.spec import Game, GameOption, GameSpec, Look


def lines(size: int) -> list[int]:
    """Every line of three squares on a ``size`` x ``size`` board, as a bitboard."""
    found = []
    for row in range(size):
        for col in range(size):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                squares = [(row + k * dr, col + k * dc) for k in range(3)]
                if all(0 <= r < size and 0 <= c < size for r, c in squares):
                    found.append(sum(1 << (r * size + c) for r, c in squares))
    return found


def _build(size: int) -> Game:
    full = (1 << size * size) - 1
    params = np.array([full, *lines(size)], dtype=np.uint64)
    return kernel_game(
        SPEC, {"size": size}, rows=size, cols=size, layout=(size, 1, 0), params=params
    )


SPEC = GameSpec(
    name="three_in_a_row",
    title="Three in a Row",
    sides=("cross", "nought"),
    symbols=("X", "O"),
    agents=("player_1", "player_2"),
    options=(GameOption("size", 4, (3, 4, 5), "the board's width and height"),),
    build=_build,
    kernels="line_game_kernels",
    aec_id="test/three_in_a_row-v0",
    gym_id="test/ThreeInARow-v0",
    look=Look(
        frame=(220, 220, 220),
        board=(250, 250, 250),
        grid=(60, 60, 60),
        label=(90, 90, 90),
        piece_colours=((30, 30, 120), (160, 30, 30)),
        piece_edges=((30, 30, 120), (160, 30, 30)),
        pieces="marks",
    ),
)
