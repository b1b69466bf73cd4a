"""Connect Four rules on 49-bit column-major bitboards.

Rules (as PettingZoo's ``connect_four_v3``): a board of 7 columns and 6 rows stands upright;
player 0 (red, ``X``, PettingZoo's ``player_0``) moves first. A move drops a disc into a column
that is not full, where it falls to the lowest empty cell. Four discs of one player in a row,
horizontally, vertically or diagonally, win at once; a full board without a line is a draw.

Actions: action ``c`` drops a disc into column ``c`` (0..6, named ``"a"``..``"g"``); there is no
pass.

Bitboards: the classic layout, a column of 7 bits per column: bit ``col * 7 + r`` is the cell
of column ``col`` at height ``r`` (``r = 0`` the bottom row), and bit ``col * 7 + 6`` is a sentinel
that is never set, so shifting a line by 1 (vertical), 7 (horizontal), 6 or 8 (the diagonals)
never wraps from one column into the next. Row 0 of the drawn board (the top) is ``r = 5``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games._encode import board_planes
from boardzoo.games.spec import Game, GameSpec, Look
from boardzoo.games.state import checked_action, returns_for

__all__ = ["BOARD", "BOTTOM", "COLS", "ROWS", "SPEC", "TOP", "ConnectFourState"]

RED, YELLOW = 0, 1
ROWS, COLS = 6, 7
HEIGHT = ROWS + 1  # bits per column: six cells and the sentinel
LAYOUT = (-1, HEIGHT, ROWS - 1)  # column-major, the bottom cell first: see Game.layout
BOTTOM = sum(1 << (col * HEIGHT) for col in range(COLS))  # the bottom cell of every column
BOARD = BOTTOM * ((1 << ROWS) - 1)  # all 42 cells
TOP = BOTTOM << (ROWS - 1)  # the top cell of every column
_COLUMN = (1 << ROWS) - 1  # the six cells of column 0
# Shifts along the four line directions: vertical, horizontal, and the two diagonals.
DIRECTIONS = (1, HEIGHT, HEIGHT - 1, HEIGHT + 1)
# Result codes kept on each state.
_IN_PLAY, _DRAW = -1, 2
_SYMBOLS = {RED: "X", YELLOW: "O", None: "."}


def _build() -> Game:
    return Game(
        spec=SPEC,
        options={},
        rows=ROWS,
        cols=COLS,
        num_actions=COLS,
        pass_action=None,
        action_names=tuple("abcdefg"),
        # The kernels' parameters: every cell (the contract's params[0]), the bottom and top rows.
        params=np.array([BOARD, BOTTOM, TOP], dtype=np.uint64),
        initial_state=ConnectFourState.initial,
        square_action=lambda row, col: col,
        state_from_bitboards=lambda red, yellow, player: ConnectFourState(red, yellow),
        layout=LAYOUT,
        td_stages=3,
        opening_plies=2,  # few: seven columns, and a game decided early
        # As the plain list-of-lists rules of tests/reference_connect_four.py count it; perft(7)
        # is 7**7 - 7 = 823,536 by hand (no game ends before ply 7, and only the seven
        # sequences that fill one column lose a choice at ply 7).
        known_perft=(9, 39_452_034),
    )


def ntuples(game: Game) -> list[list[tuple[int, int]]]:
    """The n-tuples of Connect Four's learned evaluation, as ``(row, col)`` (row 0 at the top):
    every four-cell window a line can be made in, every column and every row, each from the
    bottom up and from the left."""
    by_height = []
    for dh, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
        for h in range(ROWS):
            for c in range(COLS):
                window = [(h + k * dh, c + k * dc) for k in range(4)]
                if all(0 <= wh < ROWS and 0 <= wc < COLS for wh, wc in window):
                    by_height.append(window)
    by_height += [[(h, c) for h in range(ROWS)] for c in range(COLS)]
    by_height += [[(h, c) for c in range(COLS)] for h in range(ROWS)]
    return [[(ROWS - 1 - h, c) for h, c in window] for window in by_height]


SPEC = GameSpec(
    name="connect_four",
    title="Connect Four",
    sides=("red", "yellow"),
    symbols=("X", "O"),
    agents=("player_0", "player_1"),
    options=(),
    build=_build,
    kernels="boardzoo.games.connect_four_kernels",
    env_module="boardzoo.envs.connect_four_v0",
    aec_id="boardzoo/connect-four-v0",
    peer_envs=("pettingzoo.classic.connect_four_v3",),
    # Playouts to the end, blended with minimax backups of the hand-made evaluation (not
    # separated from plain UCT: 55.0% at 0.1 s a move over 30 games, 50.0% at 1 s over 40; no
    # option or combination was, on Connect Four: experiments/enhancements.py), and the endgame
    # handed to the solver at its own thresholds (None: TAKEOVER_EMPTIES at the root,
    # TREE_EMPTIES in the tree; boardzoo.search.handover).
    presets={"strong": {"minimax_weight": 0.3, "exact_empties": None, "solve_empties": None}},
    gym_id="boardzoo/ConnectFour-v0",
    look=Look(
        frame=(16, 48, 132),
        board=(28, 78, 186),
        grid=(236, 240, 246),
        label=(206, 218, 242),
        piece_colours=((214, 38, 42), (244, 204, 32)),
        piece_edges=((150, 20, 24), (184, 146, 12)),
        pieces="discs",
        grid_style="holes",
        hint_mix=0.15,
        ranks=False,
    ),
    evaluation_scale=30.0,  # a few open windows; a won or lost tempo (5000) reads as +-1
    ntuples=ntuples,
    tree_plugin="boardzoo.gametree.connect_four",
    parse_position=lambda game, text: from_columns(text),
)


def from_columns(text: str) -> ConnectFourState:
    """The position after the moves ``text``, each a column numbered 1-7 from the left, as the
    Connect 4 Game Solver writes positions (``"4455"``: red and yellow twice in the centre
    column, then twice in the next column to the right).

    Raises:
        ValueError: a character is not a column 1-7, a column is full, or the game was over
            before a move (the error names the move).
    """
    state = ConnectFourState.initial()
    for number, char in enumerate(text.strip(), start=1):
        if char not in "1234567":
            raise InvalidValueError(
                f"move {number} of {text!r}: {char!r} is not a column; columns are 1-7"
            )
        if state.is_terminal():
            raise InvalidValueError(f"move {number} of {text!r}: the game was over before it")
        column = int(char) - 1
        if column not in state.legal_actions():
            raise InvalidValueError(f"move {number} of {text!r}: column {char} is full")
        state = state.apply(column)
    return state


def has_four(discs: int) -> bool:
    """Whether ``discs`` (one player's bitboard) hold four in a row in any direction."""
    for shift in DIRECTIONS:
        pairs = discs & (discs >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def _result(red: int, yellow: int) -> int:
    """The winner (0 or 1), ``_DRAW`` for a full board without a line, else ``_IN_PLAY``."""
    if has_four(red):
        return RED
    if has_four(yellow):
        return YELLOW
    return _DRAW if (red | yellow) == BOARD else _IN_PLAY


def _cell(row: int, col: int) -> int:
    """The bit of the square at ``row`` (0 the top) and ``col``."""
    return col * HEIGHT + (ROWS - 1 - row)


def _height(occupied: int, col: int) -> int:
    """How many discs column ``col`` holds."""
    return ((occupied >> (col * HEIGHT)) & _COLUMN).bit_length()


_MASKS: dict[int, np.ndarray] = {}  # legal-action masks by the top row's occupied cells


def _column_mask(full: int) -> np.ndarray:
    """The int8 mask of the columns whose top cell is not in ``full`` (shared: copy it)."""
    mask = _MASKS.get(full)
    if mask is None:
        mask = np.array(
            [0 if full >> (c * HEIGHT + ROWS - 1) & 1 else 1 for c in range(COLS)], dtype=np.int8
        )
        _MASKS[full] = mask
    return mask


@dataclass(frozen=True, slots=True)
class ConnectFourState:
    """An immutable Connect Four position: the discs of red (player 0) and yellow (player 1).

    ``red`` and ``yellow`` are bitboards in the layout of the module docstring. The player to
    move follows from the counts (red moves when both have as many discs), so the constructor
    accepts only positions that look reachable: one disc more for red or as many for both, no
    disc above an empty cell, and no four in a row for the player who did not move last.
    """

    red: int = 0
    yellow: int = 0
    # Derived, computed once: the winner (0 or 1), 2 for a draw, -1 while in play.
    result: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("red", "yellow"):
            bits = getattr(self, name)
            if not isinstance(bits, (int, np.integer)) or bits < 0 or bits & ~BOARD:
                raise InvalidValueError(
                    f"{name} must be a bitboard of the 42 cells (bits of {BOARD:#x}), got {bits!r}"
                )
        red, yellow = int(self.red), int(self.yellow)
        if red & yellow:
            raise InvalidValueError(f"red and yellow share cells: {red & yellow:#x}")
        difference = red.bit_count() - yellow.bit_count()
        if difference not in (0, 1):
            raise InvalidValueError(
                f"red must have as many discs as yellow or one more, got {red.bit_count()} and "
                f"{yellow.bit_count()}"
            )
        occupied = red | yellow
        floating = (occupied + BOTTOM) & occupied  # set where a column has a gap under a disc
        if floating:
            raise InvalidValueError(
                f"discs must rest on the bottom or on a disc: gap under {floating:#x}"
            )
        if has_four(red) and has_four(yellow):
            raise InvalidValueError(
                "red and yellow both have four in a row: the game stops at the first"
            )
        # The game stops at the first line, so the side that made it moved last.
        if has_four(red) and difference != 1:
            raise InvalidValueError(
                "red has four in a row, so red moved last and has one disc more"
            )
        if has_four(yellow) and difference != 0:
            raise InvalidValueError(
                "yellow has four in a row, so yellow moved last: equal disc counts"
            )
        setter = object.__setattr__
        setter(self, "red", red)
        setter(self, "yellow", yellow)
        setter(self, "result", _result(red, yellow))

    @classmethod
    def _unchecked(cls, red: int, yellow: int, result: int) -> ConnectFourState:
        """Fast constructor for states made by :meth:`apply` (no checks)."""
        state = object.__new__(cls)
        setter = object.__setattr__
        setter(state, "red", red)
        setter(state, "yellow", yellow)
        setter(state, "result", result)
        return state

    @classmethod
    def initial(cls) -> ConnectFourState:
        """The empty board, red to move."""
        return cls()

    @classmethod
    def from_text(cls, text: str) -> ConnectFourState:
        """Read six rows of seven cells, top first: ``X`` red, ``O`` yellow, ``.`` empty.

        Spaces are ignored, so ``"X . O . . . ."`` and ``"X.O...."`` are the same row.
        """
        rows = [line.replace(" ", "") for line in text.strip().splitlines() if line.strip()]
        if len(rows) != ROWS or any(len(row) != COLS for row in rows):
            raise InvalidValueError(f"expected {ROWS} rows of {COLS} cells, got {rows}")
        red = yellow = 0
        for r, row in enumerate(rows):
            for c, char in enumerate(row.upper()):
                if char == "X":
                    red |= 1 << _cell(r, c)
                elif char == "O":
                    yellow |= 1 << _cell(r, c)
                elif char != ".":
                    raise InvalidValueError(f"unknown cell {char!r} in row {r + 1}: use X, O or .")
        return cls(red, yellow)

    # --- the GameState contract -------------------------------------------------------------

    @property
    def game(self) -> Game:
        return SPEC.make()

    @property
    def num_actions(self) -> int:
        return COLS

    @property
    def current_player(self) -> int:
        return RED if self.red.bit_count() == self.yellow.bit_count() else YELLOW

    @property
    def winner(self) -> int | None:
        return self.result if self.result in (RED, YELLOW) else None

    def is_terminal(self) -> bool:
        return self.result != _IN_PLAY

    def legal_actions(self) -> list[int]:
        if self.result != _IN_PLAY:
            return []
        occupied = self.red | self.yellow
        return [c for c in range(COLS) if not occupied >> (c * HEIGHT + ROWS - 1) & 1]

    def legal_action_mask(self) -> np.ndarray:
        if self.result != _IN_PLAY:
            return np.zeros(COLS, dtype=np.int8)
        return cast("np.ndarray", _column_mask((self.red | self.yellow) & TOP).copy())

    def is_legal(self, action: int) -> bool:
        if self.result != _IN_PLAY or not 0 <= action < COLS:
            return False
        return not (self.red | self.yellow) >> (action * HEIGHT + ROWS - 1) & 1

    def apply(self, action: int) -> ConnectFourState:
        action = checked_action(self, action)
        occupied = self.red | self.yellow
        bit = 1 << (action * HEIGHT + _height(occupied, action))
        if self.current_player == RED:
            red, yellow = self.red | bit, self.yellow
        else:
            red, yellow = self.red, self.yellow | bit
        return ConnectFourState._unchecked(red, yellow, _result(red, yellow))

    def returns(self) -> tuple[float, float]:
        return returns_for(self.winner)

    # --- the BoardState contract ------------------------------------------------------------

    def must_pass(self) -> bool:
        """Connect Four has no passes."""
        return False

    def bitboards(self) -> tuple[int, int]:
        """Red's and yellow's discs (bit ``col * 7 + r``, ``r = 0`` the bottom row)."""
        return self.red, self.yellow

    def _column(self, action: int) -> int:
        """``action`` if it names a column, else a ``ValueError``."""
        if isinstance(action, bool) or not 0 <= action < COLS:
            raise InvalidValueError(f"action must be a column 0..{COLS - 1}, got {action!r}")
        return int(action)

    def move_square(self, action: int) -> tuple[int, int] | None:
        """The square ``(row, col)`` where a disc dropped into column ``action`` lands.

        A ``ValueError`` for a full column (or an action that is no column).
        """
        col = self._column(action)
        height = _height(self.red | self.yellow, col)
        if height == ROWS:
            raise InvalidValueError(f"column {self.game.action_name(col)} is full")
        return ROWS - 1 - height, col

    def placed_square(self, action: int) -> tuple[int, int] | None:
        """The square of the top disc of column ``action``: the one the move ``action`` placed
        if it led here. A ``ValueError`` for an empty column."""
        col = self._column(action)
        height = _height(self.red | self.yellow, col)
        if height == 0:
            raise InvalidValueError(f"column {self.game.action_name(col)} is empty")
        return ROWS - height, col

    def disc_counts(self) -> tuple[int, int]:
        """Discs of red and yellow."""
        return self.red.bit_count(), self.yellow.bit_count()

    def winning_line(self) -> tuple[tuple[int, int], ...] | None:
        """The squares of the winner's line in order, ``None`` unless the game is won.

        A line longer than four gives all its squares (a move can make five or more in a row).
        When one move made two lines, the first found is given: horizontal, vertical, then the
        rising and the falling diagonal. Squares run left to right (vertical lines top down).
        """
        winner = self.winner
        if winner is None:
            return None
        discs = self.red if winner == RED else self.yellow

        def owned(row: int, col: int) -> bool:
            return 0 <= row < ROWS and 0 <= col < COLS and bool(discs >> _cell(row, col) & 1)

        for d_row, d_col in ((0, 1), (1, 0), (-1, 1), (1, 1)):
            for row in range(ROWS):
                for col in range(COLS):
                    if not owned(row, col) or owned(row - d_row, col - d_col):
                        continue  # not the start of a run
                    run = [(row, col)]
                    while owned(run[-1][0] + d_row, run[-1][1] + d_col):
                        run.append((run[-1][0] + d_row, run[-1][1] + d_col))
                    if len(run) >= 4:
                        return tuple(run)
        raise AssertionError("a won position has a line")  # pragma: no cover

    def square_owner(self, row: int, col: int) -> int | None:
        """0 (red), 1 (yellow) or ``None`` (empty) for the square at ``row`` (0 on top), ``col``."""
        bit = 1 << _cell(row, col)
        return RED if self.red & bit else YELLOW if self.yellow & bit else None

    def planes(self, player: int) -> np.ndarray:
        """Int8 ``(6, 7, 2)``: plane 0 ``player``'s discs, plane 1 the opponent's; row 0 the top."""
        own, opp = (self.red, self.yellow) if player == RED else (self.yellow, self.red)
        return cast("np.ndarray", board_planes(own, opp, ROWS, COLS, *LAYOUT))

    def to_text(self) -> str:
        """The board as :meth:`from_text` reads it: rows top first, ``X``, ``O`` and ``.``."""
        return "\n".join(
            " ".join(_SYMBOLS[self.square_owner(r, c)] for c in range(COLS)) for r in range(ROWS)
        )

    def __str__(self) -> str:
        if self.winner is not None:
            status = f"{SPEC.sides[self.winner]} ({SPEC.symbols[self.winner]}) won"
        elif self.is_terminal():
            status = "draw"
        else:
            player = self.current_player
            status = f"{SPEC.sides[player]} ({SPEC.symbols[player]}) to move"
        return f"{self.to_text()}\n{status}"
