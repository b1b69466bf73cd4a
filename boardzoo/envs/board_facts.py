"""What a picture of a position says, whichever way it is drawn: facts read from the contract.

Nothing here knows which game it draws. The sides' names come from ``state.game``'s spec
(:class:`~boardzoo.games.spec.Game`); which squares the legal moves fill, what the last move
filled and the result from the position (:class:`~boardzoo.games.state.BoardState`). The text
board (:mod:`boardzoo.envs.text_render`), the pictures' legend
(:mod:`boardzoo.envs.board_geometry`) and the pygame renderer
(:mod:`boardzoo.envs.pygame_render`) all read them from here.
"""

from __future__ import annotations

from functools import cache

from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = [
    "COLUMN_LETTERS",
    "Square",
    "hint_squares",
    "hints_are_news",
    "last_square",
    "result_text",
    "side_names",
]

#: The columns' names, ``a`` first.
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
Square = tuple[int, int]


def side_names(game: Game) -> tuple[str, str]:
    """The sides' names for display: ``("Black", "White")``, ``("Red", "Yellow")``."""
    first, second = game.spec.sides
    return first.capitalize(), second.capitalize()


def hint_squares(state: BoardState) -> set[Square]:
    """The squares that the legal moves of the side to move would fill (a pass fills none)."""
    squares = (state.move_square(action) for action in state.legal_actions())
    return {square for square in squares if square is not None}


@cache
def hints_are_news(game: Game) -> bool:
    """Whether marking the legal squares tells more than the empty squares do.

    True when, at the start, some empty square is no legal move (Reversi, Connect Four); False
    when every empty square is one (TicTacToe), where the text board leaves the marks out.
    """
    start = game.initial_state()
    empty = {
        (row, col)
        for row in range(game.rows)
        for col in range(game.cols)
        if start.square_owner(row, col) is None
    }
    return hint_squares(start) != empty


def last_square(state: BoardState, last_action: int | None) -> Square | None:
    """The square that ``last_action`` filled; ``None`` for none, a pass or a foreign action."""
    game = state.game
    if last_action is None or not 0 <= last_action < game.num_actions:
        return None
    try:
        square = state.placed_square(last_action)
    except ValueError:  # an action that cannot have led here (an empty column, say)
        return None
    if square is None or not (0 <= square[0] < game.rows and 0 <= square[1] < game.cols):
        return None
    return square


def result_text(state: BoardState) -> str:
    """``"Black wins"``, ``"Draw"``, ``"White to move"`` or ``"Black must pass"``."""
    names = side_names(state.game)
    if state.is_terminal():
        return "Draw" if state.winner is None else f"{names[state.winner]} wins"
    mover = names[state.current_player]
    if state.must_pass():
        return f"{mover} must pass"
    return f"{mover} to move"
