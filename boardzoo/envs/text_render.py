"""Positions of any catalog game as text, with coordinates, read from the game contract.

:func:`ansi_board` draws a position as text with coordinates (column letters ``a..`` across the
top and, where the look has ranks, row numbers ``1..`` down the side, row 1 at the top);
:func:`ansi_key` says what its symbols mean. Nothing here needs pygame.
"""

from __future__ import annotations

from boardzoo.envs.board_facts import (
    COLUMN_LETTERS,
    Square,
    hint_squares,
    hints_are_news,
    last_square,
    result_text,
    side_names,
)
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

__all__ = ["ansi_board", "ansi_key"]


def _ansi_square(
    state: BoardState, row: int, col: int, hints: set[Square], last: Square | None
) -> str:
    owner = state.square_owner(row, col)
    if owner is None:
        return "*" if (row, col) in hints else "."
    symbol = state.game.spec.symbols[owner]
    return symbol.lower() if (row, col) == last else symbol


def _ansi_rows(state: BoardState, last_action: int | None) -> list[str]:
    game = state.game
    ranks = game.spec.look.ranks
    hints = hint_squares(state) if hints_are_news(game) else set()
    last = last_square(state, last_action)
    width = len(str(game.rows)) if ranks else -1  # the row numbers' width (none: no column)
    lines = [" " * (width + 1) + " ".join(COLUMN_LETTERS[: game.cols])]
    for row in range(game.rows):
        squares = " ".join(_ansi_square(state, row, col, hints, last) for col in range(game.cols))
        lines.append(f"{row + 1:>{width}} {squares}" if ranks else squares)
    return lines


def _ansi_legend(state: BoardState) -> str:
    """``"X (black) 2  O (white) 2"``: the symbols where they are not the sides' names, and the
    piece counts where they decide the game; ``""`` when there is nothing to say (TicTacToe)."""
    spec = state.game.spec
    counts = state.disc_counts() if spec.show_counts else None
    same_names = all(s.lower() == n.lower() for s, n in zip(spec.symbols, spec.sides, strict=True))
    if counts is None and same_names:
        return ""
    items = []
    for player in (0, 1):
        symbol, side = spec.symbols[player], spec.sides[player]
        item = symbol if symbol.lower() == side.lower() else f"{symbol} ({side})"
        items.append(item if counts is None else f"{item} {counts[player]}")
    return "  ".join(items)


def _ansi_status(state: BoardState, last_action: int | None) -> str:
    game = state.game
    parts = [part for part in (_ansi_legend(state), result_text(state)) if part]
    if last_action is not None and 0 <= last_action < game.num_actions:
        parts.append(f"last move: {game.action_name(last_action)}")
    return "  |  ".join(parts)


def ansi_board(state: BoardState, last_action: int | None = None) -> str:
    """The position as text, with coordinates and a status line.

    Each square shows its owner's symbol (``game.spec.symbols``) or ``.`` when empty; ``*``
    marks the squares where the side to move may play, in games where that is more than every
    empty square (Reversi, Connect Four); the piece placed by ``last_action`` is in lower case.
    The status line gives the symbols' sides and piece counts where they matter, whose turn it
    is (or the result once the game is over) and the last move's name.
    """
    rows = _ansi_rows(state, last_action)
    return "\n".join([*rows, _ansi_status(state, last_action)])


def ansi_key(game: Game) -> str:
    """What the symbols of :func:`ansi_board` mean for ``game``, in one line.

    ``"X = Black, O = White, . = empty, * = a legal move for the side to move, x or o = the
    piece just placed"`` (in TicTacToe, where the symbols are the sides' names and every empty
    square is a legal move, just ``". = empty, x or o = the piece just placed"``).
    """
    symbols, names = game.spec.symbols, side_names(game)
    parts = [
        f"{symbols[player]} = {names[player]}"
        for player in (0, 1)
        if symbols[player].lower() != names[player].lower()  # not "X = X" in TicTacToe
    ]
    parts.append(". = empty")
    if hints_are_news(game):
        parts.append("* = a legal move for the side to move")
    parts.append(f"{symbols[0].lower()} or {symbols[1].lower()} = the piece just placed")
    return ", ".join(parts)
