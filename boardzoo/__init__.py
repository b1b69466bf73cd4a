"""boardzoo: fast, correct two-player board games as PettingZoo environments, with MCTS agents.

Importing the package registers every catalog game's envs (``boardzoo/reversi-v0``,
``boardzoo/tictactoe-v0``, ``boardzoo/connect-four-v0`` with ``pettingzoo.make``;
``boardzoo/Reversi-v0`` and the others with ``gymnasium.make``), as soon as pettingzoo or
gymnasium is imported: the rules layer (``boardzoo.games``) and the agents import neither.

Everything the package refuses raises a :class:`BoardzooError` (see :mod:`boardzoo.errors`).
"""

from importlib.metadata import PackageNotFoundError, version

from boardzoo._registration import register_on_framework_import
from boardzoo.errors import BoardzooError, InvalidFileError, InvalidTypeError, InvalidValueError
from boardzoo.games import (
    ConnectFourState,
    GameState,
    IllegalMoveError,
    ReversiState,
    TicTacToeState,
)

try:
    __version__ = version("boardzoo")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

register_on_framework_import()

__all__ = [
    "BoardzooError",
    "ConnectFourState",
    "GameState",
    "IllegalMoveError",
    "InvalidFileError",
    "InvalidTypeError",
    "InvalidValueError",
    "ReversiState",
    "TicTacToeState",
    "__version__",
]
