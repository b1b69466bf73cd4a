"""Reversi (Othello) rules on 4x4, 6x6 and 8x8 boards.

Rules: black (player 0) moves first from the standard start (on 8x8, white on d4 and e5, black
on d5 and e4). A move places a disc on an empty square that brackets at least one straight line
of opponent discs in any of the 8 directions, and flips every bracketed disc in every direction.
A player with no such move must pass; a player with one may not pass. The game ends as soon as
neither player can place (board full, or both blocked); more discs wins, equal is a draw.

Actions: ``row * size + col`` places a disc (row 0 is the top row, rank 1; col 0 is file a, so
action 19 on 8x8 is d3); ``size * size`` is the pass, legal only when no placement is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import cast

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games import reversi_kernels as kernels
from boardzoo.games._encode import action_mask, board_planes
from boardzoo.games.spec import Game, GameOption, GameSpec, Look
from boardzoo.games.state import checked_action, returns_for

__all__ = ["BOARD_SIZES", "SPEC", "ReversiState", "action_name", "parse_action"]

BOARD_SIZES = (4, 6, 8)
BLACK, WHITE = 0, 1
_STRIDE = 8  # the kernels' bitboards are 8 squares wide whatever the board size
LAYOUT = (_STRIDE, 1, 0)  # see Game.layout
FILES = "abcdefghijklmnopqrstuvwxyz"
BOARD_SIZE = GameOption(
    "board_size",
    8,
    BOARD_SIZES,
    "squares on a side of the board",
    ("--size", "--board-size"),
    label="{value}x{value}",
)


def check_board_size(size: object) -> int:
    """Return ``size`` if Reversi can be played on it, else raise a ``ValueError`` naming it."""
    return BOARD_SIZE.check(size)


def _build(board_size: int) -> Game:
    size = board_size
    squares = [f"{FILES[col]}{row + 1}" for row in range(size) for col in range(size)]
    return Game(
        spec=SPEC,
        options={"board_size": size},
        rows=size,
        cols=size,
        num_actions=size * size + 1,
        pass_action=size * size,
        action_names=(*squares, "pass"),
        params=kernels.make_params(size),
        initial_state=lambda: ReversiState.initial(size),
        square_action=lambda row, col: row * size + col,
        state_from_bitboards=lambda black, white, player: ReversiState(size, black, white, player),
        layout=LAYOUT,
        td_stages={4: 2, 6: 4, 8: 6}[size],  # more phases on a larger board
        # The published perft(9) of 8x8 Othello (a forced pass is a ply).
        known_perft=(9, 3_005_288) if size == 8 else None,
    )


def ntuples(game: Game) -> list[list[tuple[int, int]]]:
    """The n-tuples of Reversi's learned evaluation on ``game``'s board, as ``(row, col)``.

    The corner 3x3 square, the corner 2 x (size / 2) rectangle, the rows from the edge to the
    middle, and the diagonals of length 4 up to the size: the shapes of Logistello's patterns
    (Buro, "Experiments with Multi-ProbCut and a new high-quality evaluation function for
    Othello", 1997). On 4x4 the rectangle is left out, as the 3x3 square holds it.
    """
    size = game.rows
    tuples = [[(r, c) for r in range(3) for c in range(3)]]
    if size > 4:
        tuples.append([(r, c) for r in range(2) for c in range(size // 2)])
    tuples += [[(row, c) for c in range(size)] for row in range(size // 2)]
    tuples += [[(i, i + size - m) for i in range(m)] for m in range(size, 3, -1)]
    return tuples


SPEC = GameSpec(
    name="reversi",
    title="Reversi",
    sides=("black", "white"),
    symbols=("X", "O"),
    agents=("black_0", "white_0"),
    options=(BOARD_SIZE,),
    build=_build,
    kernels="boardzoo.games.reversi_kernels",
    env_module="boardzoo.envs.reversi_v0",
    aec_id="boardzoo/reversi-v0",
    # No playouts: leaves are scored by the shipped n-tuple net, and implicit minimax backups
    # weigh half (at 0.2 s a move: 9-0-1 against alpha-beta depth 6; experiments/enhancements.py).
    # The solver takes over at its own thresholds (None: the solver's TAKEOVER_EMPTIES at the
    # root and TREE_EMPTIES inside the tree; see boardzoo.search.handover). UCT's constant 0.2 (the
    # net's values differ little between moves: sqrt(2) spreads the visits almost evenly) and the
    # tree kept between moves: at 1 s a move against the reference alpha-beta (depth 10, exact
    # from 20 empties), 20 XOT games: sqrt(2) without reuse 12.5%, 0.2 52.5%, 0.2 with reuse
    # 67.5% and 75.0% in two runs (benchmarks/results/engine/strong-*.txt).
    presets={
        "strong": {
            "c": 0.2,
            "reuse_tree": True,
            "cutoff": 0,
            "minimax_weight": 0.5,
            "eval": "learned",
            "exact_empties": None,
            "solve_empties": None,
        }
    },
    gym_id="boardzoo/Reversi-v0",
    look=Look(
        frame=(21, 57, 37),
        board=(34, 120, 72),
        grid=(18, 74, 42),
        label=(196, 220, 203),
        piece_colours=((22, 22, 24), (240, 240, 236)),
        piece_edges=((0, 0, 0), (150, 150, 146)),
        pieces="discs",
        grid_style="lines",
        hint_mix=0.5,
        star_points=True,
    ),
    show_counts=True,
    heuristic_rollout=True,
    evaluation_scale=60.0,  # about 1.5 standard deviations of the evaluation in play
    ntuples=ntuples,
    tree_plugin="boardzoo.gametree.reversi",
    parse_position=lambda game, text: _obf_position(game, text),
)


def _obf_position(game: Game, text: str) -> ReversiState:
    """A position of ``game`` (8x8) in the FFO/OBF notation (:meth:`ReversiState.from_obf`)."""
    if game.options["board_size"] != 8:
        raise InvalidValueError(f"the FFO/OBF notation is for 8x8 boards, not {game.label}")
    return ReversiState.from_obf(text)


@cache
def _geometry(size: int) -> tuple[int, tuple[int, ...]]:
    """Valid-square mask and the bitboard square of each placement action for ``size``."""
    squares = tuple(row * _STRIDE + col for row in range(size) for col in range(size))
    return kernels.valid_mask(size), squares


def action_name(action: int, size: int = 8) -> str:
    """Human name of an action: ``"d3"`` style coordinates, or ``"pass"``."""
    return SPEC.make(board_size=size).action_name(action)


def parse_action(text: str, size: int = 8) -> int:
    """Inverse of :func:`action_name`: ``"d3"`` -> 19 on 8x8, ``"pass"`` -> ``size * size``."""
    return SPEC.make(board_size=size).parse_action(text)


def _count(bits: int) -> int:
    return bits.bit_count()


@dataclass(frozen=True, slots=True)
class ReversiState:
    """An immutable Reversi position: both players' discs and the player to move.

    ``black`` and ``white`` are bitboards in an 8-wide layout (bit ``row * 8 + col``) whatever the
    board size. Build positions with :meth:`initial`, :meth:`from_text` or the constructor (which
    checks its arguments); :meth:`apply` returns the next state.
    """

    size: int
    black: int
    white: int
    current_player: int = BLACK
    # Derived from the fields above, computed once: the mover's and the opponent's placements.
    legal_bits: int = field(init=False, repr=False, compare=False)
    opponent_legal_bits: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        size = check_board_size(self.size)
        valid, _ = _geometry(size)
        for name in ("black", "white"):
            bits = getattr(self, name)
            if not isinstance(bits, (int, np.integer)) or bits < 0 or bits & ~valid:
                raise InvalidValueError(
                    f"{name} must be a bitboard of squares on the {size}x{size} board "
                    f"(bits of {valid:#x}), got {bits!r}"
                )
        if self.black & self.white:
            raise InvalidValueError(f"black and white share squares: {self.black & self.white:#x}")
        if self.current_player not in (BLACK, WHITE):
            raise InvalidValueError(
                f"current_player must be 0 (black) or 1 (white), got {self.current_player!r}"
            )
        own, opp = self._own_opp(int(self.black), int(self.white), self.current_player)
        setter = object.__setattr__
        setter(self, "size", size)
        setter(self, "black", int(self.black))
        setter(self, "white", int(self.white))
        setter(self, "legal_bits", int(kernels.legal_moves(own, opp, valid)))
        setter(self, "opponent_legal_bits", int(kernels.legal_moves(opp, own, valid)))

    @staticmethod
    def _own_opp(black: int, white: int, player: int) -> tuple[int, int]:
        return (black, white) if player == BLACK else (white, black)

    @classmethod
    def _unchecked(
        cls, size: int, black: int, white: int, player: int, legal: int, opponent_legal: int
    ) -> ReversiState:
        """Fast constructor for states produced by the kernels (no checks, no recomputation)."""
        state = object.__new__(cls)
        setter = object.__setattr__
        setter(state, "size", size)
        setter(state, "black", black)
        setter(state, "white", white)
        setter(state, "current_player", player)
        setter(state, "legal_bits", legal)
        setter(state, "opponent_legal_bits", opponent_legal)
        return state

    @classmethod
    def initial(cls, size: int = 8) -> ReversiState:
        """The standard start: white on the two centre squares of the main diagonal."""
        size = check_board_size(size)
        low, high = size // 2 - 1, size // 2
        white = (1 << (low * _STRIDE + low)) | (1 << (high * _STRIDE + high))
        black = (1 << (high * _STRIDE + low)) | (1 << (low * _STRIDE + high))
        return cls(size, black, white, BLACK)

    @classmethod
    def from_obf(cls, text: str) -> ReversiState:
        """A position in the notation of the FFO and OBF files: 64 squares from a1 to h8, a row
        of 8 at a time (``X`` black, ``O`` white, ``-`` empty), then the side to move (``X`` or
        ``O``); what follows (``; G8:+18; ...``) is ignored. 8x8 only.
        """
        fields = text.split(";")[0].split()
        if len(fields) != 2 or len(fields[0]) != 64 or fields[1].upper() not in ("X", "O"):
            raise InvalidValueError(
                f"expected 64 squares of X, O or - and the side to move (X or O), got {text!r}"
            )
        black = white = 0
        for index, char in enumerate(fields[0].upper()):
            if char == "X":
                black |= 1 << index
            elif char == "O":
                white |= 1 << index
            elif char != "-":
                raise InvalidValueError(f"unknown square {char!r} at {index}: use X, O or -")
        return cls(8, black, white, BLACK if fields[1].upper() == "X" else WHITE)

    @classmethod
    def from_text(cls, text: str, current_player: int = BLACK) -> ReversiState:
        """A board drawn a row per line, top first: ``X`` black, ``O`` white, ``.`` empty.

        Spaces are ignored, so ``"X . O ."`` and ``"X.O."`` are the same row.
        """
        rows = [line.replace(" ", "") for line in text.strip().splitlines() if line.strip()]
        size = len(rows)
        if size not in BOARD_SIZES or any(len(row) != size for row in rows):
            raise InvalidValueError(
                f"expected a square board with sides in {list(BOARD_SIZES)}, got rows {rows}"
            )
        black = white = 0
        for r, row in enumerate(rows):
            for c, char in enumerate(row.upper()):
                bit = 1 << (r * _STRIDE + c)
                if char == "X":
                    black |= bit
                elif char == "O":
                    white |= bit
                elif char != ".":
                    raise InvalidValueError(
                        f"unknown square {char!r} in row {r + 1}: use X, O or ."
                    )
        return cls(size, black, white, current_player)

    # --- the GameState contract -------------------------------------------------------------

    @property
    def game(self) -> Game:
        return SPEC.make(board_size=self.size)

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    @property
    def pass_action(self) -> int:
        return self.size * self.size

    def is_terminal(self) -> bool:
        return not (self.legal_bits or self.opponent_legal_bits)

    def must_pass(self) -> bool:
        """The player to move has no placement but the game goes on."""
        return not self.legal_bits and bool(self.opponent_legal_bits)

    def legal_actions(self) -> list[int]:
        if self.legal_bits:
            _, squares = _geometry(self.size)
            return [a for a, sq in enumerate(squares) if self.legal_bits >> sq & 1]
        return [self.pass_action] if self.opponent_legal_bits else []

    def legal_action_mask(self) -> np.ndarray:
        return cast(
            "np.ndarray",
            action_mask(self.legal_bits, self.size, _STRIDE, self.num_actions, self.must_pass()),
        )

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an integer) is legal here."""
        if action == self.pass_action:
            return self.must_pass()
        if not 0 <= action < self.pass_action:
            return False
        _, squares = _geometry(self.size)
        return bool(self.legal_bits >> squares[action] & 1)

    def apply(self, action: int) -> ReversiState:
        action = checked_action(self, action)
        valid, squares = _geometry(self.size)
        own, opp = self._own_opp(self.black, self.white, self.current_player)
        square = squares[action] if action != self.pass_action else -1
        next_own, next_opp, legal, opponent_legal = kernels.play(own, opp, valid, square)
        player = 1 - self.current_player
        black, white = (next_own, next_opp) if player == BLACK else (next_opp, next_own)
        return ReversiState._unchecked(
            self.size, int(black), int(white), player, int(legal), int(opponent_legal)
        )

    def returns(self) -> tuple[float, float]:
        return returns_for(self.winner)

    @property
    def winner(self) -> int | None:
        if not self.is_terminal():
            return None
        black, white = self.disc_counts()
        if black == white:
            return None
        return BLACK if black > white else WHITE

    # --- helpers ------------------------------------------------------------------------------

    def disc_counts(self) -> tuple[int, int]:
        """Number of black and white discs."""
        return _count(self.black), _count(self.white)

    def bitboards(self) -> tuple[int, int]:
        """Black's and white's discs (bit ``row * 8 + col``)."""
        return self.black, self.white

    def move_square(self, action: int) -> tuple[int, int] | None:
        return None if action == self.pass_action else divmod(action, self.size)

    def placed_square(self, action: int) -> tuple[int, int] | None:
        return self.move_square(action)

    def winning_line(self) -> tuple[tuple[int, int], ...] | None:
        """Reversi is won on discs, not by a line: always ``None``."""
        return None

    def square_owner(self, row: int, col: int) -> int | None:
        """0 (black), 1 (white) or ``None`` (empty) for the square at ``row``, ``col``."""
        bit = 1 << (row * _STRIDE + col)
        if self.black & bit:
            return BLACK
        if self.white & bit:
            return WHITE
        return None

    def planes(self, player: int) -> np.ndarray:
        """Int8 ``(size, size, 2)``: plane 0 ``player``'s discs, plane 1 the opponent's."""
        own, opp = self._own_opp(self.black, self.white, player)
        return cast("np.ndarray", board_planes(own, opp, self.size, self.size, *LAYOUT))

    def to_text(self) -> str:
        """The board as :meth:`from_text` reads it."""
        symbols = {BLACK: "X", WHITE: "O", None: "."}
        return "\n".join(
            " ".join(symbols[self.square_owner(r, c)] for c in range(self.size))
            for r in range(self.size)
        )

    def __str__(self) -> str:
        side = "black (X)" if self.current_player == BLACK else "white (O)"
        return f"{self.to_text()}\n{side} to move"
