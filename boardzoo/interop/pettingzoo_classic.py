"""PettingZoo's own classic Connect Four and TicTacToe envs, read as boardzoo positions.

PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` play the same games as boardzoo's (their
moves, wins and draws agree move for move), and boardzoo's agents play them through the
position read here, never by stepping the env:

- ``connect_four_v3``: ``board`` is 42 cells, row by row from the top, ``1`` for
  ``player_0`` (who starts), ``2`` for ``player_1``; the action is the column, as boardzoo's;
- ``tictactoe_v3``: ``board.squares`` numbers the squares column by column (``0 3 6`` on the
  top row), ``1`` for ``player_1`` (X, who starts), ``2`` for ``player_2``. boardzoo numbers
  them row by row, so the env's square ``k`` is read as boardzoo's square ``k``: the position
  read is the env's mirrored in the main diagonal, which maps the lines onto the lines, so it is
  the same game with the same action numbers (a search's answer is the env's action as it is).

Each read is checked against the env itself: the agent to move, and the action mask of its
observation, must be the position's, or a one-line ``ValueError`` says what differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.state import BoardState
from boardzoo.games.tictactoe import TicTacToeState

__all__ = ["PETTINGZOO_GAMES", "is_pettingzoo_classic", "pettingzoo_position"]

PETTINGZOO_GAMES = ("connect_four_v3", "tictactoe_v3")
_MARKS = {0: ".", 1: "X", 2: "O"}


def _raw(env: Any) -> Any:
    return getattr(env, "unwrapped", env)


def is_pettingzoo_classic(env: Any) -> bool:
    """Whether ``env`` (wrapped or not) is PettingZoo's own ``connect_four_v3`` or
    ``tictactoe_v3``."""
    raw = _raw(env)
    metadata = getattr(raw, "metadata", None)
    return (
        type(raw).__module__.startswith("pettingzoo.classic.")
        and isinstance(metadata, dict)
        and metadata.get("name") in PETTINGZOO_GAMES
    )


def _text(cells: list[int], width: int, name: str) -> str:
    """Rows of ``width`` marks (``X``, ``O``, ``.``) from the env's cell values."""
    unknown = sorted({c for c in cells if c not in _MARKS})
    if unknown:
        raise InvalidValueError(f"{name}: board values {unknown} are not 0, 1 or 2")
    marks = "".join(_MARKS[c] for c in cells)
    return "\n".join(marks[i : i + width] for i in range(0, len(marks), width))


def _read(raw: Any, name: str) -> BoardState:
    if name == "connect_four_v3":
        cells = [int(c) for c in np.asarray(raw.board).ravel()]
        if len(cells) != 42:
            raise InvalidValueError(f"{name}: a board of 42 cells was expected, got {len(cells)}")
        return ConnectFourState.from_text(_text(cells, 7, name))
    cells = [int(c) for c in raw.board.squares]
    if len(cells) != 9:
        raise InvalidValueError(f"{name}: a board of 9 squares was expected, got {len(cells)}")
    return TicTacToeState.from_text(_text(cells, 3, name))


def pettingzoo_position(env: Any) -> BoardState:
    """The position of PettingZoo's ``connect_four_v3`` or ``tictactoe_v3`` env (wrapped or
    not; left as it is), as boardzoo's :class:`~boardzoo.games.ConnectFourState` or
    :class:`~boardzoo.games.TicTacToeState` (see the module's note on TicTacToe's squares).

    Raises:
        ValueError: ``env`` is not one of them, its board is not a position of the game, or the
            env's agent to move or action mask is not the position's (one line saying which).
    """
    raw = _raw(env)
    if not is_pettingzoo_classic(raw):
        raise InvalidValueError(
            f"{type(raw).__name__} is not one of PettingZoo's {', '.join(PETTINGZOO_GAMES)}"
        )
    name = raw.metadata["name"]
    try:
        state = _read(raw, name)
    except InvalidValueError as error:
        raise InvalidValueError(
            f"{name}: its board is not a position of the game: {error}"
        ) from None
    agents = list(raw.possible_agents)
    over = not raw.agents or all(raw.terminations.get(a, False) for a in raw.agents)
    if over or state.is_terminal():
        if over != state.is_terminal():
            said = "over" if over else "in play"
            raise InvalidValueError(f"{name}: the env says the game is {said}, its board does not")
        return state
    mover = agents.index(raw.agent_selection)
    if mover != state.current_player:
        raise InvalidValueError(
            f"{name}: {raw.agent_selection} is to move, but its board has "
            f"{agents[state.current_player]} to move"
        )
    mask = np.asarray(raw.observe(raw.agent_selection)["action_mask"], dtype=np.int8)
    if not np.array_equal(mask, state.legal_action_mask()):
        raise InvalidValueError(
            f"{name}: the env's action mask {mask.tolist()} is not its board's legal moves "
            f"{state.legal_actions()}"
        )
    return state
