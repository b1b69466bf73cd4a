"""The game-state contract that environments, agents and the arena rely on.

Modelled on OpenSpiel's ``State``: a position knows whose turn it is, its legal actions, how to
apply one, whether the game is over and what each player scored. States are immutable values:
``apply`` returns a new state, so a snapshot costs nothing and can be shared between threads.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Protocol, SupportsIndex, TypeVar, cast, runtime_checkable

import numpy as np

from boardzoo.games.errors import IllegalMoveError

if TYPE_CHECKING:
    from boardzoo.games.spec import Game

S = TypeVar("S", bound="GameState")


@runtime_checkable
class GameState(Protocol):
    """A position of a two-player, zero-sum, perfect-information game.

    Players are numbered 0 (moves first) and 1. Actions are integers in ``range(num_actions)``.
    Search and the arena need only this; :class:`BoardState` adds what boards, names and the
    compiled kernels need.
    """

    @property
    def game(self) -> Game | None:
        """The catalog game this position belongs to, or ``None`` (a foreign game)."""
        ...

    @property
    def num_actions(self) -> int:
        """Size of the action space (every action, legal or not)."""
        ...

    @property
    def current_player(self) -> int:
        """The player to move: 0 or 1 (meaningless once the game is over)."""
        ...

    def legal_actions(self) -> list[int]:
        """The legal actions in increasing order; empty once the game is over."""
        ...

    def legal_action_mask(self) -> np.ndarray:
        """A fresh int8 array of length ``num_actions``: 1 where the action is legal."""
        ...

    def is_legal(self, action: int) -> bool:
        """Whether the integer ``action`` is legal here."""
        ...

    def apply(self: S, action: int) -> S:
        """The state after ``action``; raises ``IllegalMoveError`` if it is not legal."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def returns(self) -> tuple[float, float]:
        """Final rewards of players 0 and 1: +1 win, -1 loss, 0 draw (all 0 while in play)."""
        ...

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is won, ``None`` for a draw or a game in progress."""
        ...


@runtime_checkable
class BoardState(GameState, Protocol):
    """A position of a catalog game: a board of ``game.rows`` x ``game.cols`` squares."""

    @property
    def game(self) -> Game:
        """The game, with its options, shape, action names and compiled kernels."""
        ...

    def must_pass(self) -> bool:
        """The player to move has no placement and must pass (always False without passes)."""
        ...

    def bitboards(self) -> tuple[int, int]:
        """Player 0's and player 1's pieces as the compiled kernels lay them out."""
        ...

    def planes(self, player: int) -> np.ndarray:
        """Int8 ``(rows, cols, 2)``: plane 0 ``player``'s pieces, plane 1 the opponent's."""
        ...

    def square_owner(self, row: int, col: int) -> int | None:
        """0 or 1 for the player whose piece is on ``(row, col)``, ``None`` when it is empty."""
        ...

    def move_square(self, action: int) -> tuple[int, int] | None:
        """The square that the legal ``action`` fills from here; ``None`` for a pass."""
        ...

    def placed_square(self, action: int) -> tuple[int, int] | None:
        """The square filled by ``action``, the move that led to this position (``None``: pass)."""
        ...

    def disc_counts(self) -> tuple[int, int]:
        """How many pieces players 0 and 1 have on the board."""
        ...

    def winning_line(self) -> tuple[tuple[int, int], ...] | None:
        """The squares of the line that won the game, in order, for games won by a line."""
        ...

    def to_text(self) -> str:
        """The board a row per line, top first: the sides' symbols and ``.`` for empty."""
        ...


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
