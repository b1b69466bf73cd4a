"""Rules tests for TicTacToe: game-tree counts, hand-checked positions, errors.

Boards are drawn with ``X`` (player 0, moves first), ``O`` (player 1) and ``.``, top row first.
Action ``row * 3 + col``.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import pickle

import numpy as np
import pytest

from boardzoo.games import GameState, IllegalMoveError, TicTacToeState

# --- a tiny reference for wins: walk the 3x3 grid, no bit tricks ---------------------------------


def grid_of(state: TicTacToeState) -> list[list[str]]:
    """The board read from the documented layout: bit ``row * 3 + col``."""
    return [
        [
            "X" if state.x >> (r * 3 + c) & 1 else "O" if state.o >> (r * 3 + c) & 1 else "."
            for c in range(3)
        ]
        for r in range(3)
    ]


def ref_lines() -> list[list[tuple[int, int]]]:
    rows = [[(r, c) for c in range(3)] for r in range(3)]
    cols = [[(r, c) for r in range(3)] for c in range(3)]
    diagonals = [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]
    return rows + cols + diagonals


def ref_has_line(grid: list[list[str]], mark: str) -> bool:
    return any(all(grid[r][c] == mark for r, c in line) for line in ref_lines())


def ref_outcome(grid: list[list[str]]) -> tuple[bool, int | None]:
    """(game over, winner) straight from the rules."""
    if ref_has_line(grid, "X"):
        return True, 0
    if ref_has_line(grid, "O"):
        return True, 1
    return all(cell != "." for row in grid for cell in row), None


# --- counting through the public API -------------------------------------------------------------


def count_games(state: TicTacToeState) -> int:
    """Complete games from ``state``, walking every line of play (no transpositions)."""
    if state.is_terminal():
        return 1
    return sum(count_games(state.apply(a)) for a in state.legal_actions())


def explore() -> dict[TicTacToeState, tuple[int, int, int, int]]:
    """Every position reachable from the empty board, with the complete games from it.

    Each value is (games, X wins, O wins, draws).
    """
    tree: dict[TicTacToeState, tuple[int, int, int, int]] = {}

    def visit(state: TicTacToeState) -> tuple[int, int, int, int]:
        if state not in tree:
            if state.is_terminal():
                assert state.legal_actions() == []
                winner = state.winner
                tree[state] = (1, int(winner == 0), int(winner == 1), int(winner is None))
            else:
                legal = state.legal_actions()
                assert legal
                children = [visit(state.apply(a)) for a in legal]
                tree[state] = tuple(sum(column) for column in zip(*children, strict=True))
        return tree[state]

    visit(TicTacToeState())
    return tree


@pytest.fixture(scope="module")
def game_tree():
    return explore()


def test_number_of_games():
    # Published count: 255,168 possible games.
    assert count_games(TicTacToeState()) == 255_168


def test_games_by_outcome(game_tree):
    # Published counts: X wins 131,184 games, O wins 77,904, and 46,080 are drawn.
    assert game_tree[TicTacToeState()] == (255_168, 131_184, 77_904, 46_080)


def test_number_of_positions(game_tree):
    # 5,478 legal positions including the empty board; 958 of them end the game:
    # 626 won by X, 316 won by O and 16 drawn.
    assert len(game_tree) == 5_478
    assert TicTacToeState() in game_tree
    terminal = [s for s in game_tree if s.is_terminal()]
    assert len(terminal) == 958
    assert sum(s.winner == 0 for s in terminal) == 626
    assert sum(s.winner == 1 for s in terminal) == 316
    assert sum(s.winner is None for s in terminal) == 16


def test_every_reachable_position_agrees_with_reference(game_tree):
    for state in game_tree:
        grid = grid_of(state)
        over, winner = ref_outcome(grid)
        assert state.is_terminal() == over
        assert state.winner == winner
        expected = {None: (0.0, 0.0), 0: (1.0, -1.0), 1: (-1.0, 1.0)}[winner]
        assert state.returns() == expected
        marks = sum(cell != "." for row in grid for cell in row)
        assert state.current_player == marks % 2
        empty = [r * 3 + c for r in range(3) for c in range(3) if grid[r][c] == "."]
        assert state.legal_actions() == ([] if over else empty)
        assert np.flatnonzero(state.legal_action_mask()).tolist() == state.legal_actions()
        assert TicTacToeState.from_text("\n".join("".join(row) for row in grid)) == state


def test_constructor_accepts_exactly_the_reachable_positions(game_tree):
    # The class promises that only positions reachable in play can be built.
    accepted = set()
    for cells in itertools.product(".XO", repeat=9):
        x = sum(1 << i for i, cell in enumerate(cells) if cell == "X")
        o = sum(1 << i for i, cell in enumerate(cells) if cell == "O")
        with contextlib.suppress(ValueError):
            accepted.add(TicTacToeState(x, o))
    unreachable = sorted(accepted - set(game_tree), key=lambda s: (s.x, s.o))
    assert not unreachable, (
        f"{len(unreachable)} unreachable positions accepted, e.g.\n{unreachable[0].to_text()}"
    )
    assert set(game_tree) <= accepted


# --- hand-checked positions -----------------------------------------------------------------------

# (board before, winning action): the mover completes the line with that action.
X_WINS = {
    "row 1": ("XX. OO. ...", 2),
    "row 2": ("OO. XX. ...", 5),
    "row 3": ("OO. ... XX.", 8),
    "column a": ("XO. XO. ...", 6),
    "column b": ("OX. OX. ...", 7),
    "column c": (".OX .OX ...", 8),
    "diagonal": ("XO. OX. ...", 8),
    "anti-diagonal": ("OOX .X. ...", 6),
}
O_WINS = {
    "row 1": ("OO. XX. X..", 2),
    "row 2": ("XX. OO. X..", 5),
    "row 3": ("XX. X.. OO.", 8),
    "column a": ("OX. OX. ..X", 6),
    "column b": ("XO. XO. ..X", 7),
    "column c": ("XXO ..O X..", 8),
    "diagonal": ("OX. XO. X..", 8),
    "anti-diagonal": ("X.O XO. .X.", 6),
}


def board(text: str) -> TicTacToeState:
    return TicTacToeState.from_text("\n".join(text.split()))


@pytest.mark.parametrize(
    ("player", "line"), [(0, name) for name in X_WINS] + [(1, name) for name in O_WINS]
)
def test_completing_a_line_wins(player, line):
    before, action = (X_WINS if player == 0 else O_WINS)[line]
    state = board(before)
    assert state.current_player == player
    assert not state.is_terminal()
    assert state.winner is None
    assert state.returns() == (0.0, 0.0)
    after = state.apply(action)
    assert after.is_terminal()
    assert after.winner == player
    assert after.returns() == ((1.0, -1.0) if player == 0 else (-1.0, 1.0))
    assert after.legal_actions() == []
    assert not after.legal_action_mask().any()
    assert ref_outcome(grid_of(after)) == (True, player)


def test_draw_full_board_without_line():
    state = board("XOX XOO OXX")
    assert state.is_terminal()
    assert state.winner is None
    assert state.returns() == (0.0, 0.0)
    assert state.legal_actions() == []


def test_last_move_makes_a_draw():
    state = board("XOX XOO OX.")
    assert state.current_player == 0
    assert state.legal_actions() == [8]
    end = state.apply(8)
    assert end == board("XOX XOO OXX")
    assert end.is_terminal()
    assert end.winner is None
    assert end.returns() == (0.0, 0.0)


def test_win_on_the_last_square_beats_the_draw():
    state = board("XOX OXO OX.")
    assert state.legal_actions() == [8]
    end = state.apply(8)  # fills the board and completes the diagonal
    assert (end.x | end.o) == 0b111_111_111
    assert end.is_terminal()
    assert end.winner == 0
    assert end.returns() == (1.0, -1.0)


def test_exactly_one_winning_move():
    state = board("XX. OO. ...")
    assert state.legal_actions() == [2, 5, 6, 7, 8]
    winners = [a for a in state.legal_actions() if state.apply(a).winner == 0]
    assert winners == [2]
    # After X blocks on 5 instead, O to move has no line yet and X's row is still open.
    blocked = state.apply(5)
    assert blocked.current_player == 1
    assert not blocked.is_terminal()
    assert blocked.legal_actions() == [2, 6, 7, 8]


def test_game_ends_at_the_win_not_at_a_full_board():
    state = TicTacToeState()
    for action in (0, 3, 1, 4):
        state = state.apply(action)
        assert not state.is_terminal()
    state = state.apply(2)
    assert state.is_terminal()
    assert bin(state.x | state.o).count("1") == 5


def test_start():
    state = TicTacToeState.initial()
    assert state == TicTacToeState() == TicTacToeState(0, 0)
    assert state.current_player == 0
    assert state.num_actions == 9
    assert state.legal_actions() == list(range(9))
    assert state.legal_action_mask().tolist() == [1] * 9
    assert state.legal_action_mask().dtype == np.int8
    assert not state.is_terminal()
    assert isinstance(state, GameState)
    first = state.apply(4)
    assert first.x == 1 << 4 and first.o == 0
    assert first.current_player == 1
    assert first.apply(0).o == 1


# --- errors --------------------------------------------------------------------------------------


def check_illegal(state: TicTacToeState, action, detail: str = "") -> None:
    with pytest.raises(IllegalMoveError) as info:
        state.apply(action)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert repr(action) in message
    assert str(state.legal_actions()) in message
    assert detail in message


def test_illegal_occupied_square():
    state = board("X.. .O. ...")
    check_illegal(state, 0)
    check_illegal(state, 4)


@pytest.mark.parametrize("action", [-1, 9, 10, 100])
def test_illegal_out_of_range(action):
    check_illegal(TicTacToeState(), action)


@pytest.mark.parametrize("action", [1.0, "4", None])
def test_illegal_non_integer(action):
    check_illegal(TicTacToeState(), action, "not an integer")


def test_illegal_after_game_over():
    won = board("XXX OO. ...")
    assert won.is_terminal()
    for action in (5, 6, 8):  # empty squares, but the game is over
        check_illegal(won, action, "the game is over")
    check_illegal(board("XOX XOO OXX"), 0, "the game is over")


def test_numpy_integer_actions():
    assert TicTacToeState().apply(np.int64(4)) == TicTacToeState().apply(4)
    assert TicTacToeState().apply(np.uint8(8)).x == 1 << 8


# --- constructor ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "o"),
    [
        (0b1, 0b1),  # overlap
        (0b11, 0b10),  # overlap
        (0, 0b1),  # O moved first
        (0b111, 0),  # X moved three times in a row
        (0b11, 0),  # X two marks ahead
        (0b1, 0b110),  # O ahead
        (0b111, 0b111_000),  # both have a line
        (1 << 9, 0),  # off the board
        (-1, 0),  # not a bitboard
        (0, "1"),  # not a bitboard
    ],
)
def test_constructor_rejects_impossible_positions(x, o):
    with pytest.raises(ValueError):
        TicTacToeState(x, o)


@pytest.mark.parametrize(
    "text",
    [
        "XXX OO. O..",  # X won with its 3rd mark, yet O moved afterwards
        "OOO XX. X.X",  # O won with its 3rd mark, yet X moved afterwards
    ],
)
def test_constructor_rejects_moves_after_a_win(text):
    with pytest.raises(ValueError):
        board(text)


@pytest.mark.parametrize("text", ["XOZ ... ...", "XO. ...", "XO.. .... .... ....", ""])
def test_from_text_rejects_bad_boards(text):
    with pytest.raises(ValueError):
        TicTacToeState.from_text("\n".join(text.split()))


def test_values_snapshots_and_hashing():
    state = board("XO. .X. ..O")
    for clone in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert clone == state
        assert hash(clone) == hash(state)
        assert clone.legal_actions() == state.legal_actions()
    # Transposition: the same marks in a different order give an equal state.
    a = TicTacToeState().apply(0).apply(1).apply(4).apply(8)
    b = TicTacToeState().apply(4).apply(8).apply(0).apply(1)
    assert a == b
    assert hash(a) == hash(b)
    assert a == state
    assert len({a, b, state, TicTacToeState()}) == 2
