"""The n-tuples of each game's learned evaluation: which cells each weight table looks at.

An n-tuple is a sequence of cells; its weight table holds one weight for each of the ``3**n``
ways of filling them (empty, the mover's piece, the opponent's). A tuple is laid on the board in
every image under the board's symmetries, and the images share its table, so the evaluation is
symmetric by construction (images that are the same sequence of cells are kept once).

- Reversi (every size): the corner 3x3 square, the corner 2 x (size / 2) rectangle, the rows from
  the edge to the middle, and the diagonals of length 4 up to the size, under the 8 symmetries of
  the square (these are the shapes of Logistello's patterns, Buro, "Experiments with Multi-ProbCut
  and a new high-quality evaluation function for Othello", 1997; on 4x4 the rectangle is left out,
  as the 3x3 square holds it).
- Connect Four: every four-cell window a line can be made in, every column and every row, under
  the left-right mirror.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from boardzoo.games.connect_four import COLS, HEIGHT, ROWS
from boardzoo.games.spec import Game

__all__ = ["connect_four_tuples", "expand_tuples", "game_tuples", "reversi_tuples"]

Square = tuple[int, int]
Symmetry = Callable[[Square], Square]


def reversi_tuples(size: int) -> list[list[Square]]:
    """The base tuples of Reversi on a ``size`` x ``size`` board, as ``(row, col)`` squares."""
    tuples = [[(r, c) for r in range(3) for c in range(3)]]
    if size > 4:
        tuples.append([(r, c) for r in range(2) for c in range(size // 2)])
    tuples += [[(row, c) for c in range(size)] for row in range(size // 2)]
    tuples += [[(i, i + size - m) for i in range(m)] for m in range(size, 3, -1)]
    return tuples


def connect_four_tuples(rows: int = 6, cols: int = 7) -> list[list[Square]]:
    """Connect Four's base tuples as ``(height, col)``: windows of four, columns, rows."""
    tuples = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
        for r in range(rows):
            for c in range(cols):
                window = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= wr < rows and 0 <= wc < cols for wr, wc in window):
                    tuples.append(window)
    tuples += [[(r, c) for r in range(rows)] for c in range(cols)]
    tuples += [[(r, c) for c in range(cols)] for r in range(rows)]
    return tuples


def _square_symmetries(size: int) -> list[Symmetry]:
    """The 8 symmetries of a ``size`` x ``size`` square (identity first)."""
    far = size - 1

    def make(transpose: bool, flip_rows: bool, flip_cols: bool) -> Symmetry:
        def symmetry(square: Square) -> Square:
            r, c = (square[1], square[0]) if transpose else square
            return (far - r if flip_rows else r, far - c if flip_cols else c)

        return symmetry

    return [make(t, fr, fc) for t in (False, True) for fr in (False, True) for fc in (False, True)]


def expand_tuples(
    tuples: Sequence[Sequence[Square]],
    symmetries: Sequence[Symmetry],
    cell_of: Callable[[Square], int],
) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct image of every tuple, and the table each uses.

    A tuple whose cells are (as a set) those of an image of an earlier tuple is left out: its
    table would repeat the earlier one. Returns ``cells`` (int64 ``[instances, longest]``, cell
    numbers, ``-1`` filling the first slots of a shorter tuple) and ``table`` (int64
    ``[instances]``).
    """
    rows: list[list[int]] = []
    table: list[int] = []
    seen_sets: set[frozenset[int]] = set()
    for base in tuples:
        images: list[list[int]] = []
        for symmetry in symmetries:
            image = [cell_of(symmetry(square)) for square in base]
            if image not in images:
                images.append(image)
        if frozenset(images[0]) in seen_sets:
            continue
        index = max(table, default=-1) + 1
        for image in images:
            rows.append(image)
            table.append(index)
            seen_sets.add(frozenset(image))
    longest = max(len(r) for r in rows)
    cells = np.full((len(rows), longest), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        cells[i, longest - len(row) :] = row
    return cells, np.array(table, dtype=np.int64)


def game_tuples(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """``(cells, table)`` of the learned evaluation of ``game`` (see :func:`expand_tuples`).

    Raises:
        ValueError: ``game`` has no n-tuple design (only Reversi and Connect Four have one).
    """
    if game.name == "reversi":
        size = int(game.options["board_size"])
        return expand_tuples(
            reversi_tuples(size), _square_symmetries(size), lambda s: s[0] * 8 + s[1]
        )
    if game.name == "connect_four":
        mirror: list[Symmetry] = [lambda s: s, lambda s: (s[0], COLS - 1 - s[1])]
        return expand_tuples(
            connect_four_tuples(ROWS, COLS), mirror, lambda s: s[1] * HEIGHT + s[0]
        )
    raise ValueError(
        f"no n-tuple design for {game.label}: only reversi (4x4, 6x6, 8x8) and connect_four "
        "have a learned evaluation"
    )
