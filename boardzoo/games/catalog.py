"""The games by name, for command lines and configuration files."""

from __future__ import annotations

from boardzoo.games.reversi import BOARD_SIZES, ReversiState
from boardzoo.games.state import GameState
from boardzoo.games.tictactoe import TicTacToeState

GAME_NAMES = ("reversi", "tictactoe")


def check_game(name: str) -> str:
    """``name`` if it is a known game, else a ``ValueError`` listing the games."""
    if name not in GAME_NAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAME_NAMES)}")
    return name


def initial_state(name: str, board_size: int = 8) -> GameState:
    """The start position of game ``name`` (``board_size`` is Reversi's: 4, 6 or 8)."""
    if check_game(name) == "reversi":
        return ReversiState.initial(board_size)
    return TicTacToeState.initial()


__all__ = ["BOARD_SIZES", "GAME_NAMES", "check_game", "initial_state"]
