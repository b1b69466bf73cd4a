"""Pure game rules: no gymnasium, pettingzoo, torch or pygame in this package.

Each game is an immutable state class following the :class:`BoardState` contract, described by
one :class:`GameSpec` in the catalog (:mod:`boardzoo.games.catalog`).
"""

from boardzoo.games.catalog import all_games, game_names, get_game, make_game, register_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.errors import IllegalMoveError
from boardzoo.games.reversi import BOARD_SIZES, ReversiState, action_name, parse_action
from boardzoo.games.spec import Game, GameOption, GameSpec, Look
from boardzoo.games.state import BoardState, GameState
from boardzoo.games.symmetry import Symmetry, symmetries
from boardzoo.games.tictactoe import TicTacToeState

__all__ = [
    "BOARD_SIZES",
    "BoardState",
    "ConnectFourState",
    "Game",
    "GameOption",
    "GameSpec",
    "GameState",
    "IllegalMoveError",
    "Look",
    "ReversiState",
    "Symmetry",
    "TicTacToeState",
    "action_name",
    "all_games",
    "game_names",
    "get_game",
    "make_game",
    "parse_action",
    "register_game",
    "symmetries",
]
