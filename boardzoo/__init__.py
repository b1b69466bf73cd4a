"""boardzoo: fast, correct two-player board games as PettingZoo environments, with MCTS agents.

Importing the package registers ``boardzoo/reversi-v0`` and ``boardzoo/tictactoe-v0`` with
``pettingzoo.make``.
"""

from importlib.metadata import PackageNotFoundError, version

from boardzoo.envs import register_envs
from boardzoo.games import GameState, IllegalMoveError, ReversiState, TicTacToeState

try:
    __version__ = version("boardzoo")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

register_envs()

__all__ = ["GameState", "IllegalMoveError", "ReversiState", "TicTacToeState", "__version__"]
