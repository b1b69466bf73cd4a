"""Pure game rules: no gymnasium, pettingzoo, torch or pygame in this package.

Each game is an immutable state class following the :class:`GameState` contract.
"""

from boardzoo.games.errors import IllegalMoveError
from boardzoo.games.reversi import BOARD_SIZES, ReversiState, action_name, parse_action
from boardzoo.games.state import GameState
from boardzoo.games.tictactoe import TicTacToeState

__all__ = [
    "BOARD_SIZES",
    "GameState",
    "IllegalMoveError",
    "ReversiState",
    "TicTacToeState",
    "action_name",
    "parse_action",
]
