"""Exhaustive TicTacToe minimax, written for the tests (independent of the agents under test)."""

from __future__ import annotations

from functools import cache

from boardzoo.games.tictactoe import TicTacToeState


@cache
def ttt_value(state: TicTacToeState) -> int:
    """Minimax value for the player to move: +1 win, 0 draw, -1 loss."""
    if state.is_terminal():
        first, second = state.returns()
        # The player to move at a finished game is the one who did not make the last move.
        return int(first if state.current_player == 0 else second)
    return max(-ttt_value(state.apply(a)) for a in state.legal_actions())


def ttt_best_actions(state: TicTacToeState) -> set[int]:
    """The moves that keep the minimax value."""
    best = ttt_value(state)
    return {a for a in state.legal_actions() if -ttt_value(state.apply(a)) == best}
