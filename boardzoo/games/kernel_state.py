"""A position of any game, played through the game's compiled kernels alone.

A game's rules live in its kernel module (the functions of :mod:`boardzoo.games.spec`). The
games that come with boardzoo also have a state class of their own in Python, with text formats
and checks of their own; a new game need not: :class:`KernelState` implements the whole
:class:`~boardzoo.games.state.BoardState` contract by calling the kernels, and
:func:`kernel_game` makes the game's :class:`~boardzoo.games.spec.Game` with it. So a rules
module can be a :class:`~boardzoo.games.spec.GameSpec` whose ``build`` calls :func:`kernel_game`::

    def _build(size: int) -> Game:
        return kernel_game(SPEC, {"size": size}, rows=size, cols=size, layout=(size, 1, 0),
                           params=np.array([...], dtype=np.uint64))

Actions are what the ``cell_action`` kernel makes of each cell, plus a pass action after them
when ``passes`` is set; an action's name is its square's (column letter, row number from the
top: ``"b3"``) or, for games whose actions are columns, the column's letter.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import cast

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games._encode import board_planes
from boardzoo.games.spec import LOSS, WIN, Game, GameSpec
from boardzoo.games.state import checked_action, returns_for

__all__ = ["KernelState", "kernel_game"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _cells_of(rows: int, cols: int, layout: tuple[int, int, int]) -> dict[tuple[int, int], int]:
    """The bit of each square ``(row, col)`` (row 0 at the top), from a :attr:`Game.layout`."""
    row_stride, col_stride, offset = layout
    return {
        (row, col): offset + row * row_stride + col * col_stride
        for row in range(rows)
        for col in range(cols)
    }


@functools.cache
def _cells(game: Game) -> dict[tuple[int, int], int]:
    return _cells_of(game.rows, game.cols, game.layout)


@functools.cache
def _squares(game: Game) -> dict[int, tuple[int, int]]:
    return {cell: square for square, cell in _cells(game).items()}


def _action_squares(
    kernels: ModuleType, cells: Mapping[tuple[int, int], int], params: np.ndarray
) -> dict[int, tuple[int, int]]:
    """Each action and the first square (top row first) whose cell the kernels give it."""
    squares: dict[int, tuple[int, int]] = {}
    for square, cell in cells.items():
        squares.setdefault(int(kernels.cell_action(cell, params)), square)
    return dict(sorted(squares.items()))


def kernel_game(
    spec: GameSpec,
    options: Mapping[str, int],
    *,
    rows: int,
    cols: int,
    layout: tuple[int, int, int],
    params: np.ndarray,
    passes: bool = False,
    start: tuple[int, int] = (0, 0),
    td_stages: int = 1,
    opening_plies: int = 4,
) -> Game:
    """The :class:`Game` of ``spec`` with ``options`` whose positions are :class:`KernelState`.

    Args:
        spec: the game's catalog entry (its ``kernels`` are imported here).
        options: the option values of this game (every option of ``spec``).
        rows: the board's rows.
        cols: the board's columns.
        layout: where each square's bit is (:attr:`Game.layout`).
        params: the kernels' ``uint64`` parameters (``params[0]``: every cell of the board).
        passes: whether the game has a pass action (numbered after the others).
        start: the bitboards of the start position (player 0 to move).
        td_stages: as :attr:`Game.td_stages`.
        opening_plies: as :attr:`Game.opening_plies`.
    """
    kernels = importlib.import_module(spec.kernels)
    cells = {
        square: cell
        for square, cell in _cells_of(rows, cols, layout).items()
        if int(params[0]) >> cell & 1
    }
    squares = _action_squares(kernels, cells, params)
    if list(squares) != list(range(len(squares))):
        raise InvalidValueError(
            f"{spec.kernels}.cell_action must number actions 0..n-1: {list(squares)}"
        )
    square_actions = {
        square: int(kernels.cell_action(cell, params)) for square, cell in cells.items()
    }
    columns = all(action == col for (_, col), action in square_actions.items())
    names = [
        _LETTERS[col] if columns else f"{_LETTERS[col]}{row + 1}" for row, col in squares.values()
    ]
    game: Game

    def initial() -> KernelState:
        return KernelState(game, *start, 0)

    def from_bitboards(s0: int, s1: int, player: int) -> KernelState:
        return KernelState(game, s0, s1, player)

    game = Game(
        spec=spec,
        options=dict(options),
        rows=rows,
        cols=cols,
        num_actions=len(squares) + passes,
        pass_action=len(squares) if passes else None,
        action_names=(*names, *(["pass"] if passes else [])),
        params=params,
        initial_state=initial,
        square_action=lambda row, col: square_actions.get((row, col)),
        state_from_bitboards=from_bitboards,
        layout=layout,
        td_stages=td_stages,
        opening_plies=opening_plies,
    )
    return game


@dataclass(frozen=True)
class KernelState:
    """A position of ``game``: the kernels' bitboards ``s0``, ``s1`` and the ``player`` to move.

    Immutable; equal positions compare and hash equal (``last_cell``, the cell the move that
    led here filled, ``-1`` for none or a pass, is kept for drawing and not compared).
    """

    game: Game
    s0: int
    s1: int
    player: int
    last_cell: int = field(default=-1, compare=False)

    def __post_init__(self) -> None:
        full = int(self.game.params[0])
        for name in ("s0", "s1"):
            bits = getattr(self, name)
            if not isinstance(bits, (int, np.integer)) or bits < 0 or bits & ~full:
                raise InvalidValueError(
                    f"{name} must be a bitboard of {self.game.label}'s cells, got {bits!r}"
                )
        if self.s0 & self.s1:
            raise InvalidValueError(f"s0 and s1 share cells: {self.s0 & self.s1:#x}")
        if self.player not in (0, 1):
            raise InvalidValueError(f"player must be 0 or 1, got {self.player!r}")

    # --- the kernels ------------------------------------------------------------------------

    @property
    def _args(self) -> tuple[np.uint64, np.uint64, int, np.ndarray]:
        return np.uint64(self.s0), np.uint64(self.s1), self.player, self.game.params

    @property
    def _placements(self) -> int:
        return int(self.game.kernels.placements(*self._args))

    def _outcome(self) -> tuple[bool, int]:
        over, code = self.game.kernels.outcome(*self._args)
        return bool(over), int(code)

    def _action_of(self, cell: int) -> int:
        return int(self.game.kernels.cell_action(cell, self.game.params))

    def _cell_of(self, action: int) -> int | None:
        """The cell that ``action`` fills from here (``None``: no placement is that action)."""
        bits = self._placements
        while bits:
            cell = (bits & -bits).bit_length() - 1
            if self._action_of(cell) == action:
                return cell
            bits &= bits - 1
        return None

    # --- the GameState contract -------------------------------------------------------------

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self._placements == 0 and self._outcome()[0]

    def must_pass(self) -> bool:
        return (
            self.game.pass_action is not None and self._placements == 0 and not self._outcome()[0]
        )

    def legal_actions(self) -> list[int]:
        if self.must_pass():
            return [cast(int, self.game.pass_action)]
        bits, actions = self._placements, set()
        while bits:
            actions.add(self._action_of((bits & -bits).bit_length() - 1))
            bits &= bits - 1
        return sorted(actions)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def apply(self, action: int) -> KernelState:
        action = checked_action(self, action)
        cell = -1 if action == self.game.pass_action else cast(int, self._cell_of(action))
        s0, s1 = self.game.kernels.place(*self._args[:3], cell, self.game.params)
        return KernelState(self.game, int(s0), int(s1), 1 - self.player, cell)

    @property
    def winner(self) -> int | None:
        over, code = self._outcome()
        if self._placements or not over:
            return None
        return 0 if code == WIN else 1 if code == LOSS else None

    def returns(self) -> tuple[float, float]:
        return returns_for(self.winner)

    # --- the BoardState contract -------------------------------------------------------------

    def bitboards(self) -> tuple[int, int]:
        return self.s0, self.s1

    def planes(self, player: int) -> np.ndarray:
        own, opp = (self.s0, self.s1) if player == 0 else (self.s1, self.s0)
        game = self.game
        planes = board_planes(np.uint64(own), np.uint64(opp), game.rows, game.cols, *game.layout)
        return cast("np.ndarray", planes)

    def square_owner(self, row: int, col: int) -> int | None:
        bit = 1 << _cells(self.game)[(row, col)]
        return 0 if self.s0 & bit else 1 if self.s1 & bit else None

    def _square(self, cell: int) -> tuple[int, int]:
        return _squares(self.game)[cell]

    def move_square(self, action: int) -> tuple[int, int] | None:
        if action == self.game.pass_action:
            return None
        cell = self._cell_of(action)
        if cell is None:
            raise InvalidValueError(f"{self.game.action_name(action)} fills no square here")
        return self._square(cell)

    def placed_square(self, action: int) -> tuple[int, int] | None:
        return None if self.last_cell < 0 else self._square(self.last_cell)

    def disc_counts(self) -> tuple[int, int]:
        return self.s0.bit_count(), self.s1.bit_count()

    def winning_line(self) -> tuple[tuple[int, int], ...] | None:
        """Not known to the kernels: ``None``."""
        return None

    def to_text(self) -> str:
        symbols = {0: self.game.spec.symbols[0], 1: self.game.spec.symbols[1], None: "."}
        return "\n".join(
            " ".join(symbols[self.square_owner(r, c)] for c in range(self.game.cols))
            for r in range(self.game.rows)
        )

    def __str__(self) -> str:
        return f"{self.to_text()}\n{self.game.spec.symbols[self.player]} to move"
