"""Playing a move by the contract: an action checked, with the reason it is illegal in words,
and the rewards of a finished game.

The contract itself (:class:`GameState`, :class:`BoardState`) is in :mod:`boardzoo.games.spec`,
beside the :class:`~boardzoo.games.spec.Game` it refers to; it is importable from here too.
"""

from __future__ import annotations

import operator
from typing import SupportsIndex, cast

from boardzoo.games.errors import IllegalMoveError
from boardzoo.games.spec import BoardState, GameState

__all__ = ["BoardState", "GameState", "checked_action", "illegal_reason", "returns_for"]


def returns_for(winner: int | None) -> tuple[float, float]:
    """Rewards of players 0 and 1 for a game won by ``winner`` (``None``: drawn or not over)."""
    if winner is None:
        return 0.0, 0.0
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def checked_action(state: GameState, action: object) -> int:
    """``action`` as an int if it is legal in ``state``, else ``IllegalMoveError`` saying why.

    For a catalog game the error names the moves (``"d3"``, ``"pass"``, column ``"c"``) and the
    side to move, besides the action numbers.
    """
    try:
        index = operator.index(cast(SupportsIndex, action))  # numpy integers yes, floats no
    except TypeError:
        raise _illegal(state, action, "not an integer") from None
    if state.is_legal(index):
        return index
    raise _illegal(state, action, illegal_reason(state, index))


def illegal_reason(state: GameState, action: int) -> str:
    """Why ``action`` is not legal in ``state``, in words: ``"the game is over"``, ``"actions are
    0..64"``, ``"passing is only allowed without a placement"``, ``"d4 is taken"``, ``"column a
    is full"``; ``""`` when there is nothing more to say than that it is not legal)."""
    game = state.game
    if state.is_terminal():
        return "the game is over"
    if not 0 <= action < state.num_actions:
        return f"actions are 0..{state.num_actions - 1}"
    if game is None or not isinstance(state, BoardState):
        return ""
    if action == game.pass_action:
        return "passing is only allowed without a placement"
    try:
        square = state.move_square(action)
    except ValueError as error:  # the move has no square to fill: the game says why
        return str(error)
    if square is not None and state.square_owner(*square) is not None:
        return f"{game.action_name(action)} is taken"
    return ""


def _illegal(state: GameState, action: object, detail: str) -> IllegalMoveError:
    """The error for ``action`` in ``state``, with the game's move names when it has them."""
    game = state.game
    if game is None:
        return IllegalMoveError(action, state.legal_actions(), detail)
    player = None if state.is_terminal() else game.spec.sides[state.current_player]
    return IllegalMoveError(
        action, state.legal_actions(), detail, action_names=game.action_names, player=player
    )
