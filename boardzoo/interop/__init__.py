"""Positions of other libraries' games read as boardzoo's: PettingZoo's own classic envs and
OpenSpiel's states.

    from boardzoo.interop import catalog_position
    state = catalog_position(connect_four_v3_env)    # a ConnectFourState, or None if not known
    state = catalog_position(pyspiel_state)   # OpenSpiel's tic_tac_toe, connect_four, othello

The games are the same move for move, and the action numbers are the same: a boardzoo agent's
answer, a solve's best moves, are the other library's actions as they are. Nothing here imports
PettingZoo or OpenSpiel: an object is recognised by what it is (its class's module, the env's
``metadata["name"]``, the OpenSpiel game's short name), so neither needs to be installed.

- :mod:`boardzoo.interop.pettingzoo_classic`: ``connect_four_v3`` and ``tictactoe_v3``, read from
  their boards, checked against their action masks;
- :mod:`boardzoo.interop.openspiel_states`: ``tic_tac_toe``, ``connect_four`` and ``othello``
  states, replayed from their histories; and the way back, a move list that reaches a boardzoo
  position (:func:`~boardzoo.interop.openspiel_states.moves_to`), for OpenSpiel's bots.
"""

from __future__ import annotations

from typing import Any

from boardzoo.games.state import BoardState
from boardzoo.interop.openspiel_states import (
    OPENSPIEL_GAMES,
    is_openspiel_state,
    moves_to,
    openspiel_position,
)
from boardzoo.interop.pettingzoo_classic import (
    PETTINGZOO_GAMES,
    is_pettingzoo_classic,
    pettingzoo_position,
)

__all__ = [
    "OPENSPIEL_GAMES",
    "PETTINGZOO_GAMES",
    "catalog_position",
    "is_openspiel_state",
    "is_pettingzoo_classic",
    "known_elsewhere",
    "moves_to",
    "openspiel_position",
    "pettingzoo_position",
]


def catalog_position(thing: Any) -> BoardState | None:
    """``thing`` as a position of boardzoo's catalog, where it is one of the other libraries'
    games this package knows; ``None`` for anything else.

    Raises:
        ValueError: ``thing`` is one of those games but its position cannot be read (options
            boardzoo does not play, or an env whose board and action mask disagree), in one
            line naming what differs.
    """
    if is_openspiel_state(thing):
        return openspiel_position(thing)
    if is_pettingzoo_classic(thing):
        return pettingzoo_position(thing)
    return None


def known_elsewhere() -> str:
    """The other libraries' games boardzoo's agents play, for error messages."""
    return (
        f"PettingZoo's {' and '.join(PETTINGZOO_GAMES)} envs and OpenSpiel's "
        f"{', '.join(OPENSPIEL_GAMES)} states"
    )
