"""Errors raised by the rules layer."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import SupportsIndex, cast

from boardzoo.errors import InvalidValueError

__all__ = ["IllegalMoveError"]


class IllegalMoveError(InvalidValueError):
    """An action that is not legal in the position it was applied to.

    The message names the move by the game's action names when they are known, says whose move
    it was and why it is illegal, and lists the legal moves with their action numbers::

        illegal move a1 (action 0) for black; legal moves: d3, c4, f5, e6 (actions [19, 26, 37, 44])
        illegal move a (action 0) for red: column a is full; legal moves: b, c, d, e, f, g (...)
        illegal move 7 for red: actions are 0..6; legal moves: a, b, c, d, e, f, g (...)

    Without names (a game outside the catalog) moves are shown as action numbers only.

    Args:
        action: the action that was tried, as given (it may not even be an integer).
        legal_actions: the legal actions of the position, in increasing order.
        detail: why the action is illegal (``"the game is over"``), or ``""``.
        action_names: the game's name of every action (``Game.action_names``), or ``None``.
        player: the side that tried the move (``"black"``), or ``None``.

    Attributes:
        action: the action as given.
        legal_actions: the legal actions, a tuple of ints.
        detail: the reason, or ``""``.
        player: the side, or ``None``.
        action_name: the name of ``action`` (``"d3"``), or ``None`` when it has none.
        legal_names: the names of the legal actions, or ``None`` without names.
    """

    def __init__(
        self,
        action: object,
        legal_actions: Iterable[int],
        detail: str = "",
        *,
        action_names: Sequence[str] | None = None,
        player: str | None = None,
    ) -> None:
        self.action = action
        self.legal_actions = tuple(int(a) for a in legal_actions)
        self.detail = detail
        self.player = player
        self._action_names = None if action_names is None else tuple(action_names)
        self.action_name = _name_of(action, action_names)
        self.legal_names = (
            None if action_names is None else tuple(action_names[a] for a in self.legal_actions)
        )
        super().__init__(self._message())

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from its parts (not from the message), so it crosses process boundaries.
        return _rebuild, (
            type(self),
            self.action,
            self.legal_actions,
            self.detail,
            self._action_names,
            self.player,
        )

    def _message(self) -> str:
        number = _index(self.action)
        tried = repr(self.action) if number is None else str(number)  # not "np.int64(19)"
        if self.action_name is not None:
            tried = f"{self.action_name} (action {tried})"
        whose = f" for {self.player}" if self.player else ""
        reason = f": {self.detail}" if self.detail else ""
        numbers = list(self.legal_actions)
        if self.legal_names is not None:
            legal = f"legal moves: {', '.join(self.legal_names) or 'none'} (actions {numbers})"
        else:
            legal = f"legal actions are {numbers}"
        return f"illegal move {tried}{whose}{reason}; {legal}"


def _index(action: object) -> int | None:
    """``action`` as an int if it is an integer (numpy's too, ``bool`` not), else ``None``."""
    if isinstance(action, bool):
        return None
    try:
        return operator.index(cast(SupportsIndex, action))  # raises TypeError if it is not
    except TypeError:
        return None


def _name_of(action: object, names: Sequence[str] | None) -> str | None:
    """The name of ``action`` if it is an integer action of ``names``, else ``None``."""
    index = _index(action)
    if names is None or index is None:
        return None
    return names[index] if 0 <= index < len(names) else None


def _rebuild(
    cls: type[IllegalMoveError],
    action: object,
    legal_actions: tuple[int, ...],
    detail: str,
    action_names: tuple[str, ...] | None,
    player: str | None,
) -> IllegalMoveError:
    """An :class:`IllegalMoveError` from its parts (how a pickled one comes back)."""
    return cls(action, legal_actions, detail, action_names=action_names, player=player)
