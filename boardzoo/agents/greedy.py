"""One-ply greedy player for Reversi and TicTacToe.

Reversi: play the move with the best immediate score, discs flipped plus a positional weight
(corners high, X-squares diagonally next to a corner strongly negative, C-squares next to a corner
on an edge negative, other edges mildly positive): the "weighted squares" strategy of Norvig,
*Paradigms of Artificial Intelligence Programming* (1992), ch. 18, as one rule for every size.
TicTacToe: win at once if possible, else block the opponent's immediate win, else play at random.
Ties are broken at random (seeded).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from boardzoo.agents.base import Agent, Seed, env_state, legal_or_raise, make_rng
from boardzoo.games import reversi_kernels as kernels
from boardzoo.games.reversi import ReversiState
from boardzoo.games.tictactoe import FULL_BOARD, WINNING_LINES, TicTacToeState

__all__ = ["POSITION_WEIGHTS", "GreedyAgent", "positional_weights", "square_kind"]

# Weight of each kind of square (see :func:`square_kind`), added to the number of discs flipped.
POSITION_WEIGHTS = {"corner": 25, "x": -12, "c": -5, "edge": 2, "inner": 0}


def square_kind(size: int, row: int, col: int) -> str:
    """``"corner"``, ``"x"``, ``"c"``, ``"edge"`` or ``"inner"``: the role of a Reversi square.

    X-squares touch a corner diagonally, C-squares touch it along an edge. On 4x4 the four centre
    squares are X-squares and every other edge square is a C-square.
    """
    dr, dc = min(row, size - 1 - row), min(col, size - 1 - col)
    if dr == 0 and dc == 0:
        return "corner"
    if dr == 1 and dc == 1:
        return "x"
    if (dr, dc) in ((0, 1), (1, 0)):
        return "c"
    if dr == 0 or dc == 0:
        return "edge"
    return "inner"


@cache
def positional_weights(size: int) -> tuple[int, ...]:
    """The weight of each placement action ``row * size + col`` on a ``size`` board."""
    return tuple(
        POSITION_WEIGHTS[square_kind(size, row, col)] for row in range(size) for col in range(size)
    )


def _completing_squares(marks: int, empty: int) -> int:
    """Bitboard of the empty squares that would give ``marks`` three in a row."""
    squares = 0
    for line in WINNING_LINES:
        missing = line & ~marks
        if missing & empty and missing.bit_count() == 1:
            squares |= missing
    return squares


class GreedyAgent(Agent):
    """Greedy one-ply player for Reversi and TicTacToe (see the module docstring).

    Args:
        seed: seed of the tie-breaking: an int, a NumPy ``Generator`` or ``None``.

    Other games raise ``TypeError``.
    """

    name = "greedy"

    def __init__(self, seed: Seed = None) -> None:
        self.seed = seed
        self._rng = make_rng(seed)

    def act(self, env: Any) -> int:
        """The greedy action in ``env``'s position (``env`` is not changed)."""
        state = env_state(env)
        if isinstance(state, ReversiState):
            return self._reversi(state)
        if isinstance(state, TicTacToeState):
            return self._tictactoe(state)
        raise TypeError(
            f"GreedyAgent plays Reversi and TicTacToe only, got a {type(state).__name__}"
        )

    def _pick(self, candidates: list[int]) -> int:
        return int(candidates[int(self._rng.integers(len(candidates)))])

    def _reversi(self, state: ReversiState) -> int:
        actions = legal_or_raise(state)
        if not state.legal_bits:
            return state.pass_action  # forced pass
        own, opp = (
            (state.black, state.white) if state.current_player == 0 else (state.white, state.black)
        )
        size = state.size
        weights = positional_weights(size)
        best, candidates = None, []
        for action in actions:
            row, col = divmod(action, size)
            flipped = int(kernels.flips(own, opp, row * 8 + col)).bit_count()
            score = flipped + weights[action]
            if best is None or score > best:
                best, candidates = score, [action]
            elif score == best:
                candidates.append(action)
        return self._pick(candidates)

    def _tictactoe(self, state: TicTacToeState) -> int:
        actions = legal_or_raise(state)
        own, opp = (state.x, state.o) if state.current_player == 0 else (state.o, state.x)
        empty = FULL_BOARD & ~(state.x | state.o)
        for marks in (own, opp):  # win first, else block
            squares = _completing_squares(marks, empty)
            if squares:
                return self._pick([a for a in actions if squares >> a & 1])
        return self._pick(actions)

    def __repr__(self) -> str:
        seed = self.seed if not hasattr(self.seed, "bit_generator") else "<Generator>"
        return f"GreedyAgent(seed={seed!r})"
