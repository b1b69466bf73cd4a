"""TicTacToe rules on 9-bit bitboards.

Player 0 (X, PettingZoo's ``player_1``) moves first; three in a row (row, column or diagonal)
wins; a full board without a line is a draw. Action ``row * 3 + col`` marks that square, row 0
being the top row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games._encode import action_mask, board_planes
from boardzoo.games.spec import Game, GameSpec, Look
from boardzoo.games.state import checked_action, returns_for

__all__ = ["SPEC", "TicTacToeState"]

X, O = 0, 1
FULL_BOARD = 0b111_111_111
_SIZE = 3
LAYOUT = (_SIZE, 1, 0)  # see Game.layout
_NUM_ACTIONS = 9
# The eight lines, as bitboards of bit ``row * 3 + col``.
WINNING_LINES = (
    0b000_000_111, 0b000_111_000, 0b111_000_000,  # rows
    0b001_001_001, 0b010_010_010, 0b100_100_100,  # columns
    0b100_010_001, 0b001_010_100,                 # diagonals
)  # fmt: skip


def _build() -> Game:
    return Game(
        spec=SPEC,
        options={},
        rows=_SIZE,
        cols=_SIZE,
        num_actions=_NUM_ACTIONS,
        pass_action=None,
        action_names=tuple(f"{'abc'[a % 3]}{a // 3 + 1}" for a in range(_NUM_ACTIONS)),
        params=np.array([FULL_BOARD], dtype=np.uint64),
        initial_state=TicTacToeState.initial,
        square_action=lambda row, col: row * _SIZE + col,
        state_from_bitboards=lambda x, o, player: TicTacToeState(x, o),
        layout=LAYOUT,
        known_perft=(9, 255_168),  # the number of TicTacToe games: every game ends by ply 9
    )


SPEC = GameSpec(
    name="tictactoe",
    title="TicTacToe",
    sides=("X", "O"),
    symbols=("X", "O"),
    agents=("player_1", "player_2"),
    options=(),
    build=_build,
    kernels="boardzoo.games.tictactoe_kernels",
    env_module="boardzoo.envs.tictactoe_v0",
    aec_id="boardzoo/tictactoe-v0",
    peer_envs=("pettingzoo.classic.tictactoe_v3",),
    presets={"strong": {}},  # plain UCT plays it perfectly
    gym_id="boardzoo/TicTacToe-v0",
    look=Look(
        frame=(228, 224, 214),
        board=(248, 246, 240),
        grid=(84, 88, 98),
        label=(98, 100, 108),
        piece_colours=((40, 58, 82), (196, 64, 52)),
        piece_edges=((40, 58, 82), (196, 64, 52)),
        pieces="marks",
        grid_style="lines",
        hint_mix=0.12,
    ),
)


def _line_table() -> tuple[bool, ...]:
    """For each of the 512 bitboards, whether it holds one of the lines."""
    return tuple(
        any(bits & line == line for line in WINNING_LINES) for bits in range(FULL_BOARD + 1)
    )


_HAS_LINE = _line_table()


def _has_line(bits: int) -> bool:
    return _HAS_LINE[bits]


@dataclass(frozen=True, slots=True)
class TicTacToeState:
    """An immutable TicTacToe position: the squares of X (player 0) and O (player 1).

    The player to move follows from the counts (X moves when both have as many marks), so only
    positions reachable in play can be built: the constructor checks this.
    """

    x: int = 0
    o: int = 0

    def __post_init__(self) -> None:
        for name in ("x", "o"):
            bits = getattr(self, name)
            if not isinstance(bits, (int, np.integer)) or bits < 0 or bits & ~FULL_BOARD:
                raise InvalidValueError(f"{name} must be a 9-bit bitboard, got {bits!r}")
        if self.x & self.o:
            raise InvalidValueError(f"x and o share squares: {self.x & self.o:#05b}")
        difference = self.x.bit_count() - self.o.bit_count()
        if difference not in (0, 1):
            raise InvalidValueError(
                f"X must have as many marks as O or one more, got {self.x.bit_count()} and "
                f"{self.o.bit_count()}"
            )
        # The game stops at the first line, so the side that made it moved last.
        if _has_line(self.x) and difference != 1:
            raise InvalidValueError(
                "X has three in a row, so X moved last and has one mark more than O"
            )
        if _has_line(self.o) and difference != 0:
            raise InvalidValueError(
                "O has three in a row, so O moved last and has as many marks as X"
            )

    @classmethod
    def initial(cls) -> TicTacToeState:
        """The empty board, X to move."""
        return cls()

    @classmethod
    def from_text(cls, text: str) -> TicTacToeState:
        """Read three rows, top first: ``X``, ``O`` or ``.`` per square (spaces ignored)."""
        rows = [line.replace(" ", "") for line in text.strip().splitlines() if line.strip()]
        if len(rows) != _SIZE or any(len(row) != _SIZE for row in rows):
            raise InvalidValueError(f"expected 3 rows of 3 squares, got {rows}")
        x = o = 0
        for index, char in enumerate("".join(rows).upper()):
            if char == "X":
                x |= 1 << index
            elif char == "O":
                o |= 1 << index
            elif char != ".":
                raise InvalidValueError(f"unknown square {char!r}: use X, O or .")
        return cls(x, o)

    @property
    def game(self) -> Game:
        return SPEC.make()

    @property
    def size(self) -> int:
        return _SIZE

    @property
    def num_actions(self) -> int:
        return _NUM_ACTIONS

    @property
    def current_player(self) -> int:
        return X if self.x.bit_count() == self.o.bit_count() else O

    @property
    def winner(self) -> int | None:
        if _has_line(self.x):
            return X
        if _has_line(self.o):
            return O
        return None

    def is_terminal(self) -> bool:
        return (self.x | self.o) == FULL_BOARD or self.winner is not None

    @property
    def legal_bits(self) -> int:
        """Bitboard of the empty squares while the game is on, 0 once it is over."""
        return 0 if self.is_terminal() else FULL_BOARD & ~(self.x | self.o)

    def legal_actions(self) -> list[int]:
        legal = self.legal_bits
        return [a for a in range(_NUM_ACTIONS) if legal >> a & 1]

    def legal_action_mask(self) -> np.ndarray:
        return cast("np.ndarray", action_mask(self.legal_bits, _SIZE, _SIZE, _NUM_ACTIONS, False))

    def is_legal(self, action: int) -> bool:
        return 0 <= action < _NUM_ACTIONS and bool(self.legal_bits >> action & 1)

    def apply(self, action: int) -> TicTacToeState:
        action = checked_action(self, action)
        bit = 1 << action
        if self.current_player == X:
            return TicTacToeState._unchecked(self.x | bit, self.o)
        return TicTacToeState._unchecked(self.x, self.o | bit)

    @classmethod
    def _unchecked(cls, x: int, o: int) -> TicTacToeState:
        state = object.__new__(cls)
        object.__setattr__(state, "x", x)
        object.__setattr__(state, "o", o)
        return state

    def returns(self) -> tuple[float, float]:
        return returns_for(self.winner)

    def must_pass(self) -> bool:
        """TicTacToe has no passes."""
        return False

    def bitboards(self) -> tuple[int, int]:
        """X's and O's marks (bit ``row * 3 + col``)."""
        return self.x, self.o

    def move_square(self, action: int) -> tuple[int, int] | None:
        return divmod(action, _SIZE)

    def placed_square(self, action: int) -> tuple[int, int] | None:
        return divmod(action, _SIZE)

    def disc_counts(self) -> tuple[int, int]:
        """Marks of X and O."""
        return self.x.bit_count(), self.o.bit_count()

    def winning_line(self) -> tuple[tuple[int, int], ...] | None:
        """The three squares of the winner's line, ``None`` unless the game is won."""
        winner = self.winner
        if winner is None:
            return None
        marks = self.x if winner == X else self.o
        line = next(line for line in WINNING_LINES if marks & line == line)
        return tuple(divmod(bit, _SIZE) for bit in range(9) if line >> bit & 1)

    def square_owner(self, row: int, col: int) -> int | None:
        """0 (X), 1 (O) or ``None`` (empty) for the square at ``row``, ``col``."""
        bit = 1 << (row * _SIZE + col)
        return X if self.x & bit else O if self.o & bit else None

    def planes(self, player: int) -> np.ndarray:
        """Int8 ``(3, 3, 2)``: plane 0 ``player``'s marks, plane 1 the opponent's."""
        own, opp = (self.x, self.o) if player == X else (self.o, self.x)
        return cast("np.ndarray", board_planes(own, opp, _SIZE, _SIZE, *LAYOUT))

    def to_text(self) -> str:
        symbols = {X: "X", O: "O", None: "."}
        return "\n".join(
            " ".join(symbols[self.square_owner(r, c)] for c in range(_SIZE)) for r in range(_SIZE)
        )

    def __str__(self) -> str:
        return f"{self.to_text()}\n{'XO'[self.current_player]} to move"
