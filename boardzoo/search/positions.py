"""A game position as the tree stores it: bitboards and a result code."""

from __future__ import annotations

from typing import cast

import numpy as np

from boardzoo.games.spec import DRAW, LOSS, WIN
from boardzoo.games.state import BoardState, GameState

__all__ = ["bitboards", "result_code"]


def result_code(state: GameState) -> int:
    """Player 0's result code (``LOSS``, ``DRAW``, ``WIN``) of a finished game."""
    first, _ = state.returns()
    if first > 0:
        return WIN
    return LOSS if first < 0 else DRAW


def bitboards(state: GameState) -> tuple[np.uint64, np.uint64]:
    """A catalog position's bitboards as uint64 (numba would type a Python int as int64)."""
    s0, s1 = cast(BoardState, state).bitboards()
    return np.uint64(s0), np.uint64(s1)
