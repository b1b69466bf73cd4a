"""The n-tuples of a game's learned evaluation: which cells each weight table looks at.

An n-tuple is a sequence of squares; its weight table holds one weight for each of the ``3**n``
ways of filling them (empty, the mover's piece, the opponent's). A game names its tuples on its
catalog entry (:attr:`~boardzoo.games.spec.GameSpec.ntuples`, as ``(row, col)`` squares); here
each is laid on the board in every image under the game's symmetries
(:func:`~boardzoo.games.symmetry.symmetries`), and the images share its table, so the evaluation
is symmetric by construction (images that are the same sequence of cells are kept once). Squares
become the kernels' cells through the game's layout (:attr:`~boardzoo.games.spec.Game.layout`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.symmetry import symmetries

__all__ = ["expand_tuples", "game_tuples", "has_ntuples"]

Square = tuple[int, int]
Symmetry = Callable[[Square], Square]


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


def has_ntuples(game: Game) -> bool:
    """Whether ``game`` has an n-tuple design, so a learned evaluation."""
    return game.spec.ntuples is not None


def game_tuples(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """``(cells, table)`` of the learned evaluation of ``game`` (see :func:`expand_tuples`).

    Raises:
        ValueError: ``game`` has no n-tuple design (its spec's ``ntuples`` is ``None``).
    """
    design = game.spec.ntuples
    if design is None:
        raise InvalidValueError(
            f"no n-tuple design for {game.label}: its catalog entry has no ntuples"
        )
    row_stride, col_stride, offset = game.layout
    images = [(lambda square, s=symmetry: s.map_square(*square)) for symmetry in symmetries(game)]
    return expand_tuples(
        design(game), images, lambda s: offset + s[0] * row_stride + s[1] * col_stride
    )
