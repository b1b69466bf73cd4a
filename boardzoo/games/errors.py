"""Errors raised by the rules layer."""

from __future__ import annotations

from collections.abc import Iterable


class IllegalMoveError(ValueError):
    """An action that is not legal in the position it was applied to.

    The message names the action and lists the legal ones; both are also kept as attributes.
    """

    def __init__(self, action: object, legal_actions: Iterable[int], detail: str = "") -> None:
        self.action = action
        self.legal_actions = tuple(legal_actions)
        reason = f" ({detail})" if detail else ""
        super().__init__(
            f"illegal move {action!r}{reason}; legal actions are {list(self.legal_actions)}"
        )
