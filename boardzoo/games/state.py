"""The game-state contract that environments, agents and the arena rely on.

Modelled on OpenSpiel's ``State``: a position knows whose turn it is, its legal actions, how to
apply one, whether the game is over and what each player scored. States are immutable values:
``apply`` returns a new state, so a snapshot costs nothing and can be shared between threads.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

import numpy as np

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
