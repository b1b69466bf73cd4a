"""Interfaces for people: play against the AI in a window or a terminal, replay recorded games.

    from boardzoo.ui import run_gui, run_text_ui, replay_game, write_gif

    run_gui("reversi", ("human", "mcts:time_limit=1"), options={"board_size": 6}, analysis=True)
    run_text_ui("connect_four", ("mcts", "human"))
    replay_game(record, ui="text")
    write_gif(record, "game.gif")

Without a display (no ``DISPLAY`` or ``WAYLAND_DISPLAY`` on Linux, or SDL's ``dummy`` driver)
the window interfaces raise :class:`NoDisplayError` before opening anything;
:func:`display_problem` tells beforehand:

    if display_problem() is None:
        run_gui("tictactoe", ("human", "mcts"))
    else:
        run_text_ui("tictactoe", ("human", "mcts"))

Every game of the catalog works in each of them: they read the game only through its contract
(:mod:`boardzoo.games.spec`, :mod:`boardzoo.games.state`). pygame is imported only when a window
or a GIF is made, so the text interface works without it.
"""

from boardzoo.ui.display import NoDisplayError, display_problem
from boardzoo.ui.game_session import HUMAN, GameSession, make_players, parse_move
from boardzoo.ui.gui import GameWindow, run_gui
from boardzoo.ui.replay import (
    RecordedGame,
    ReplayError,
    parse_record,
    replay_frames,
    replay_game,
    write_gif,
)
from boardzoo.ui.text_ui import run_text_ui

__all__ = [
    "HUMAN",
    "GameSession",
    "GameWindow",
    "NoDisplayError",
    "RecordedGame",
    "ReplayError",
    "display_problem",
    "make_players",
    "parse_move",
    "parse_record",
    "replay_frames",
    "replay_game",
    "run_gui",
    "run_text_ui",
    "write_gif",
]
