"""The game-state contract that environments, agents and the arena rely on.

Modelled on OpenSpiel's ``State``: a position knows whose turn it is, its legal actions, how to
apply one, whether the game is over and what each player scored. States are immutable values:
``apply`` returns a new state, so a snapshot costs nothing and can be shared between threads.
"""

from __future__ import annotations

import operator
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np

from boardzoo.games.errors import IllegalMoveError

S = TypeVar("S", bound="GameState")


@runtime_checkable
class GameState(Protocol):
    """A position of a two-player, zero-sum, perfect-information game.

    Players are numbered 0 (moves first) and 1. Actions are integers in ``range(num_actions)``.
    """

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


def returns_for(winner: int | None) -> tuple[float, float]:
    """Rewards of players 0 and 1 for a game won by ``winner`` (``None``: drawn or not over)."""
    if winner is None:
        return 0.0, 0.0
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def checked_action(state: GameState, action: object) -> int:
    """``action`` as an int if it is legal in ``state``, else ``IllegalMoveError`` saying why."""
    try:
        index = operator.index(action)  # accepts numpy integers, refuses floats and None
    except TypeError:
        raise IllegalMoveError(action, state.legal_actions(), "not an integer") from None
    if state.is_legal(index):
        return index
    if state.is_terminal():
        detail = "the game is over"
    elif not 0 <= index < state.num_actions:
        detail = f"actions are 0..{state.num_actions - 1}"
    elif index == getattr(state, "pass_action", None):
        detail = "passing is only allowed without a placement"
    else:
        detail = ""
    raise IllegalMoveError(action, state.legal_actions(), detail)
