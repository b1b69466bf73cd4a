"""Reversi rules tests: perft counts, hand-checked positions, a reference implementation, errors.

Boards are drawn with ``X`` for black (player 0), ``O`` for white (player 1) and ``.`` for an empty
square, one row per line, top row (rank 1) first, file a on the left.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_reversi import RefGame, board_text, parse_board
from reference_reversi import perft as reference_perft

from boardzoo.games import (
    BOARD_SIZES,
    GameState,
    IllegalMoveError,
    ReversiState,
    action_name,
    parse_action,
)
from boardzoo.games.catalog import make_game
from boardzoo.speed import perft

# Published Reversi/Othello perft counts from the standard 8x8 start (a pass counts as a ply).
PERFT_8X8 = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]


# --- helpers ------------------------------------------------------------------------------------


def board_of(state: ReversiState) -> str:
    """The board read straight from the documented bitboard layout (bit ``row * 8 + col``)."""
    rows = []
    for r in range(state.size):
        row = ""
        for c in range(state.size):
            bit = 1 << (r * 8 + c)
            row += "X" if state.black & bit else "O" if state.white & bit else "."
        rows.append(row)
    return "\n".join(rows)


def squares_mask(size: int) -> int:
    return sum(1 << (r * 8 + c) for r in range(size) for c in range(size))


def drawn(text: str) -> str:
    """Normalise a drawn board to the ``board_of`` format."""
    return board_text(parse_board(text))


def names(actions: list[int], size: int = 8) -> list[str]:
    return [action_name(a, size) for a in actions]


def api_perft(state: ReversiState, depth: int) -> int:
    """Perft through the public API only; a pass is a ply, a finished game one leaf."""
    if depth == 0 or state.is_terminal():
        return 1
    return sum(api_perft(state.apply(a), depth - 1) for a in state.legal_actions())


def library_perft(size: int, depth: int) -> int:
    """The library's perft (:func:`boardzoo.speed.perft`, on the compiled kernels)."""
    return perft(make_game("reversi", board_size=size), depth)


def assert_same_position(state: ReversiState, ref: RefGame) -> None:
    """The library state and the reference agree on everything observable."""
    assert board_of(state) == board_text(ref.board)
    assert (state.black | state.white) & ~squares_mask(state.size) == 0
    assert state.black & state.white == 0
    assert state.current_player == ref.player
    legal = ref.legal_actions()
    assert state.legal_actions() == legal
    mask = state.legal_action_mask()
    assert mask.dtype == np.int8
    assert mask.shape == (state.size * state.size + 1,)
    assert np.flatnonzero(mask).tolist() == legal
    assert state.is_terminal() == ref.is_over()
    assert state.disc_counts() == ref.counts()
    assert state.winner == ref.winner()
    assert state.returns() == ref.returns()
    for action in range(state.num_actions):
        assert state.is_legal(action) == (action in legal)


# --- perft --------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 7))
def test_perft_8x8_through_public_api(depth):
    assert api_perft(ReversiState.initial(8), depth) == PERFT_8X8[depth - 1]


def test_library_perft_8x8_is_the_published_count():
    counts = [library_perft(8, depth) for depth in range(1, 10)]
    assert counts == PERFT_8X8


def test_perft_8x8_reference_implementation():
    start = RefGame.start(8)
    assert [reference_perft(start, depth) for depth in range(1, 6)] == PERFT_8X8[:5]


@pytest.mark.parametrize(("size", "depths"), [(4, range(1, 12)), (6, range(1, 7))])
def test_perft_public_api_equals_library_on_small_boards(size, depths):
    start = ReversiState.initial(size)
    for depth in depths:
        assert api_perft(start, depth) == library_perft(size, depth), depth


def test_perft_4x4_whole_game_tree_public_api_equals_library():
    # Deep enough that every 4x4 game has ended: the count no longer grows with the depth.
    assert library_perft(4, 24) == library_perft(4, 30)
    assert api_perft(ReversiState.initial(4), 30) == library_perft(4, 30)


@pytest.mark.parametrize(("size", "max_depth"), [(4, 8), (6, 5)])
def test_perft_reference_equals_library_on_small_boards(size, max_depth):
    # 4x4 depth 7+ includes finished games (the shortest 4x4 game is 7 plies), depth 5+ passes
    # and from depth 6 moves after a pass.
    start = RefGame.start(size)
    for depth in range(1, max_depth + 1):
        assert reference_perft(start, depth) == library_perft(size, depth), depth


def test_perft_small_board_known_values():
    # From the symmetric start, the first two plies are the same on every board size.
    for size in BOARD_SIZES:
        assert [library_perft(size, d) for d in (1, 2)] == [4, 12]
    # The 4x4 board runs out of room at ply 3, the 6x6 at ply 5, the 8x8 (56, 1396) does not.
    assert library_perft(4, 3) == 44
    assert library_perft(6, 3) == 56
    assert library_perft(6, 5) == 1364


# --- start positions ----------------------------------------------------------------------------

START_8X8 = """
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . O X . . .
    . . . X O . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
"""


def test_start_position_8x8():
    state = ReversiState.initial()
    assert state == ReversiState.initial(8)
    assert board_of(state) == drawn(START_8X8)
    assert state == ReversiState.from_text(START_8X8)
    # White on d4 and e5, black on d5 and e4 (rank 1 is the top row).
    assert state.square_owner(3, 3) == 1  # d4
    assert state.square_owner(4, 4) == 1  # e5
    assert state.square_owner(4, 3) == 0  # d5
    assert state.square_owner(3, 4) == 0  # e4
    assert state.current_player == 0
    assert state.pass_action == 64
    assert state.num_actions == 65
    assert state.disc_counts() == (2, 2)
    assert not state.is_terminal()
    assert state.winner is None
    assert state.returns() == (0.0, 0.0)
    assert state.legal_actions() == [19, 26, 37, 44]
    assert names(state.legal_actions()) == ["d3", "c4", "f5", "e6"]
    mask = state.legal_action_mask()
    assert mask.tolist() == [1 if a in (19, 26, 37, 44) else 0 for a in range(65)]
    assert isinstance(state, GameState)


def test_start_position_8x8_first_move_d3():
    state = ReversiState.initial(8).apply(parse_action("d3"))
    expected = """
        . . . . . . . .
        . . . . . . . .
        . . . X . . . .
        . . . X X . . .
        . . . X O . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """
    assert board_of(state) == drawn(expected)
    assert state.current_player == 1
    assert state.disc_counts() == (4, 1)
    # White: c3 (flips d4 diagonally), e3 (flips e4), c5 (flips d5).
    assert names(state.legal_actions()) == ["c3", "e3", "c5"]


def test_start_position_4x4():
    state = ReversiState.initial(4)
    assert board_of(state) == drawn(
        """
        . . . .
        . O X .
        . X O .
        . . . .
        """
    )
    assert state.current_player == 0
    assert state.pass_action == 16
    assert state.legal_action_mask().shape == (17,)
    assert state.legal_actions() == [1, 4, 11, 14]
    assert names(state.legal_actions(), 4) == ["b1", "a2", "d3", "c4"]


def test_start_position_6x6():
    state = ReversiState.initial(6)
    assert board_of(state) == drawn(
        """
        . . . . . .
        . . . . . .
        . . O X . .
        . . X O . .
        . . . . . .
        . . . . . .
        """
    )
    assert state.current_player == 0
    assert state.pass_action == 36
    assert state.legal_actions() == [8, 13, 22, 27]
    assert names(state.legal_actions(), 6) == ["c2", "b3", "e4", "d5"]


# --- hand-checked positions ---------------------------------------------------------------------


def test_move_flips_in_several_directions_only_where_bracketed():
    # Black plays d4. North: d3 bracketed by d2 -> flips. East: e4 f4 bracketed by g4 -> flip.
    # South-west: c5 bracketed by b6 -> flips. West: c4 b4 a4 run into the edge -> no flip.
    # South: d5 then an empty d6 -> no flip. South-east: e5 f6 g7 h8 reach the corner -> no flip.
    # North-east: e3 is black already -> nothing to flip.
    before = """
        . . . . . . . .
        . . . X . . . .
        . . . O X . . .
        O O O . O O X .
        . . O O O . . .
        . X . . . O . .
        . . . . . . O .
        . . . . . . . O
    """
    after = """
        . . . . . . . .
        . . . X . . . .
        . . . X X . . .
        O O O X X X X .
        . . X O O . . .
        . X . . . O . .
        . . . . . . O .
        . . . . . . . O
    """
    state = ReversiState.from_text(before)
    assert state.disc_counts() == (4, 12)
    assert parse_action("d4") in state.legal_actions()
    result = state.apply(parse_action("d4"))
    assert board_of(result) == drawn(after)
    assert result.disc_counts() == (9, 8)
    assert result.current_player == 1
    # The reference implementation reads the rules the same way.
    assert board_text(RefGame.from_text(before).play(parse_action("d4")).board) == drawn(after)


def test_longest_runs_along_the_edges_and_the_long_diagonal():
    # Black h1 brackets six white discs along rank 1, six down the h-file and six along the
    # long diagonal: 18 flips, white is wiped out and the game is over.
    before = """
        X O O O O O O .
        . . . . . . O O
        . . . . . O . O
        . . . . O . . O
        . . . O . . . O
        . . O . . . . O
        . O . . . . . O
        X . . . . . . X
    """
    after = """
        X X X X X X X X
        . . . . . . X X
        . . . . . X . X
        . . . . X . . X
        . . . X . . . X
        . . X . . . . X
        . X . . . . . X
        X . . . . . . X
    """
    state = ReversiState.from_text(before)
    assert parse_action("h1") in state.legal_actions()
    result = state.apply(parse_action("h1"))
    assert board_of(result) == drawn(after)
    assert result.disc_counts() == (22, 0)
    assert result.is_terminal()
    assert result.legal_actions() == []
    assert result.winner == 0
    assert result.returns() == (1.0, -1.0)


# Each white/black pair below sits next to each other in bit order (bit row * 8 + col) but not on
# the board: h3/a4 and h5/a6 (file h to file a of the next row), h1/a3 (+9 from file h) and
# a7/h7 (+7 from file a). None of them may bracket anything.
NO_WRAP = """
    . . . . . . . X
    . . . . . . . .
    O . . . . . . O
    X . . . . . . .
    . . . . . . . X
    O . . . . . . .
    X . . . . . . O
    . . . . . . . .
"""


def test_no_wrap_around_between_files_for_black():
    state = ReversiState.from_text(NO_WRAP, current_player=0)
    # Genuine moves: a2 (flips a3 against a4) and a5 (flips a6 against a7), both on the a-file.
    # Wrapping would also give g3 (g3-h3-a4), b6 (b6-a6-h5), b4 (b4-a3-h1) and g8 (g8-h7-a7).
    assert names(state.legal_actions()) == ["a2", "a5"]
    for square in ("g3", "b6", "b4", "g8"):
        assert not state.is_legal(parse_action(square))
        with pytest.raises(IllegalMoveError):
            state.apply(parse_action(square))
    after = state.apply(parse_action("a2"))
    assert after.square_owner(2, 0) == 0  # a3 flipped
    assert after.disc_counts() == (6, 3)
    assert after.white == state.white & ~(1 << 16)  # a3 is the only flip


def test_no_wrap_around_between_files_for_white():
    state = ReversiState.from_text(NO_WRAP, current_player=1)
    # Genuine moves: a5 (flips a4 against a3) and a8 (flips a7 against a6).
    # Wrapping would also give b4 (b4-a4-h3), g5 (g5-h5-a6) and b6 (b6-a7-h7).
    assert names(state.legal_actions()) == ["a5", "a8"]
    for square in ("b4", "g5", "b6"):
        assert not state.is_legal(parse_action(square))
    after = state.apply(parse_action("a8"))
    assert after.square_owner(6, 0) == 1  # a7 flipped
    assert after.disc_counts() == (3, 6)


def test_no_wrap_around_in_flips_to_the_left():
    # Black b4 flips c4 (bracketed by d4). Each a-file white disc is followed, in bit order, by
    # a black disc on file h: a4-h3 (-1), a3-h1 (-9), a5-h5 (+7). None of them may flip.
    before = """
        . . . . . . . X
        . . . . . . . .
        O . . . . . . X
        O . O X . . . .
        O . . . . . . X
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """
    after = """
        . . . . . . . X
        . . . . . . . .
        O . . . . . . X
        O X X X . . . .
        O . . . . . . X
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """
    result = ReversiState.from_text(before).apply(parse_action("b4"))
    assert board_of(result) == drawn(after)
    assert result.disc_counts() == (6, 3)


def test_no_wrap_around_in_flips_to_the_right():
    # Black g3 flips f3 (bracketed by e3). Each h-file white disc is followed, in bit order, by
    # a black disc on file a: h3-a4 (+1), h2-a2 (-7), h4-a6 (+9). None of them may flip.
    before = """
        . . . . . . . .
        X . . . . . . O
        . . . . X O . O
        X . . . . . . O
        . . . . . . . .
        X . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """
    after = """
        . . . . . . . .
        X . . . . . . O
        . . . . X X X O
        X . . . . . . O
        . . . . . . . .
        X . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """
    result = ReversiState.from_text(before).apply(parse_action("g3"))
    assert board_of(result) == drawn(after)
    assert result.disc_counts() == (6, 3)


def test_no_wrap_around_on_6x6_and_game_ends_with_empty_squares():
    # In a 6-wide bit layout f1 and a2 would be neighbours: e1 must not bracket f1 against a2.
    # Black's only move is f4, flipping b4..e4. Row 6 runs into the edge: f6 flips nothing.
    before = """
        . . . . . O
        X . . . . .
        . . . . . .
        X O O O O .
        . . . . . .
        O O O O O .
    """
    after = """
        . . . . . O
        X . . . . .
        . . . . . .
        X X X X X X
        . . . . . .
        O O O O O .
    """
    state = ReversiState.from_text(before)
    assert state.size == 6
    assert names(state.legal_actions(), 6) == ["f4"]
    result = state.apply(parse_action("f4", 6))
    assert board_of(result) == drawn(after)
    # Now neither side can bracket anything (rows 3 and 5 are empty): the game is over with 16
    # empty squares, black ahead 7 to 6.
    assert result.disc_counts() == (7, 6)
    assert result.is_terminal()
    assert result.legal_actions() == []
    assert result.winner == 0
    assert result.returns() == (1.0, -1.0)


def test_forced_pass():
    position = """
        X O . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
    """
    # White cannot bracket the corner disc; black could play c1, so the game goes on.
    white = ReversiState.from_text(position, current_player=1)
    assert not white.is_terminal()
    assert white.must_pass()
    assert white.legal_actions() == [white.pass_action] == [64]
    assert np.flatnonzero(white.legal_action_mask()).tolist() == [64]
    assert white.winner is None
    with pytest.raises(IllegalMoveError):
        white.apply(parse_action("c1"))  # placing is illegal
    black = white.apply(64)
    assert black.current_player == 0
    assert (black.black, black.white) == (white.black, white.white)
    assert black == ReversiState.from_text(position, current_player=0)
    assert names(black.legal_actions()) == ["c1"]
    assert not black.must_pass()
    with pytest.raises(IllegalMoveError, match="pass"):
        black.apply(64)  # passing while a placement exists is illegal
    end = black.apply(parse_action("c1"))
    assert board_of(end).splitlines()[0] == "XXX....."
    assert end.is_terminal()
    assert end.disc_counts() == (3, 0)
    assert end.winner == 0


@pytest.mark.parametrize("player", [0, 1])
def test_game_over_with_empty_squares_both_blocked(player):
    black_wins = ReversiState.from_text(
        """
        X X X . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . O O
        """,
        current_player=player,
    )
    white_wins = ReversiState.from_text(
        """
        O O O . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . X X .
        """,
        current_player=player,
    )
    draw = ReversiState.from_text(
        """
        X X . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . O O
        """,
        current_player=player,
    )
    for state in (black_wins, white_wins, draw):
        assert state.is_terminal()
        assert not state.must_pass()
        assert state.legal_actions() == []
        assert not state.legal_action_mask().any()
        with pytest.raises(IllegalMoveError, match="game is over"):
            state.apply(state.pass_action)
    assert (black_wins.disc_counts(), black_wins.winner, black_wins.returns()) == (
        (3, 2),
        0,
        (1.0, -1.0),
    )
    assert (white_wins.disc_counts(), white_wins.winner, white_wins.returns()) == (
        (2, 3),
        1,
        (-1.0, 1.0),
    )
    assert (draw.disc_counts(), draw.winner, draw.returns()) == ((2, 2), None, (0.0, 0.0))


def test_full_board_draw():
    state = ReversiState.from_text("\n".join(["XXXXOOOO"] * 8))
    assert state.is_terminal()
    assert state.disc_counts() == (32, 32)
    assert state.winner is None
    assert state.returns() == (0.0, 0.0)
    assert state.legal_actions() == []


def test_last_move_makes_a_draw():
    # Black's only move h8 flips b8..g8 (a8 brackets); h7 and g7 are black already.
    before = "\n".join(["OOOOOOOO"] * 4 + ["XXXXXXXX"] * 3 + ["XOOOOOO."])
    state = ReversiState.from_text(before)
    assert state.disc_counts() == (25, 38)
    assert names(state.legal_actions()) == ["h8"]
    end = state.apply(parse_action("h8"))
    assert board_of(end).splitlines()[-1] == "XXXXXXXX"
    assert end.disc_counts() == (32, 32)
    assert end.is_terminal()
    assert end.winner is None
    assert end.returns() == (0.0, 0.0)


def test_known_short_game_4x4():
    # A shortest 4x4 game (7 plies, one of them a forced pass), every board worked out by hand.
    moves_and_boards = [
        ("b1", ".X.. .XX. .XO. ...."),  # b2 flipped (south, b3)
        ("c1", ".XO. .XO. .XO. ...."),  # c2 flipped (south, c3)
        ("d1", ".XXX .XX. .XO. ...."),  # c1 (west, b1) and c2 (south-west, b3) flipped
        ("a1", "OXXX .OX. .XO. ...."),  # b2 flipped (south-east, c3); row 1 runs to the edge
        ("a3", "OXXX .XX. XXO. ...."),  # b2 flipped (north-east, c1)
        ("pass", "OXXX .XX. XXO. ...."),  # white has nothing to bracket
        ("d4", "OXXX .XX. XXX. ...X"),  # c3 flipped (north-west, b2)
    ]
    state = ReversiState.initial(4)
    for ply, (move, board) in enumerate(moves_and_boards):
        assert not state.is_terminal()
        action = parse_action(move, 4)
        if move == "pass":
            assert state.legal_actions() == [16]
        else:
            assert action in state.legal_actions()
        state = state.apply(action)
        assert board_of(state) == "\n".join(board.split()), move
        assert state.current_player == (ply + 1) % 2
    assert state.is_terminal()
    assert state.disc_counts() == (9, 1)
    assert state.winner == 0
    assert state.returns() == (1.0, -1.0)


def test_known_short_game_6x6():
    # A shortest 6x6 game: black wipes white out in 9 plies, 13 to 0. Worked out by hand.
    moves_and_boards = [
        ("c2", "...... ..X... ..XX.. ..XO.. ...... ......"),
        ("b2", "...... .OX... ..OX.. ..XO.. ...... ......"),
        ("a2", "...... XXX... ..OX.. ..XO.. ...... ......"),
        ("d2", "...... XXXO.. ..OO.. ..XO.. ...... ......"),
        ("e2", "...... XXXXX. ..OX.. ..XO.. ...... ......"),
        ("e3", "...... XXXXX. ..OOO. ..XO.. ...... ......"),
        ("e4", "...... XXXXX. ..OXX. ..XXX. ...... ......"),
        ("c5", "...... XXXXX. ..OXX. ..OXX. ..O... ......"),
        ("c6", "...... XXXXX. ..XXX. ..XXX. ..X... ..X..."),
    ]
    state = ReversiState.initial(6)
    for move, board in moves_and_boards:
        assert not state.is_terminal()
        state = state.apply(parse_action(move, 6))
        assert board_of(state) == "\n".join(board.split()), move
    assert state.is_terminal()
    assert state.disc_counts() == (13, 0)
    assert state.winner == 0


def test_shortest_8x8_game_is_a_nine_move_wipeout():
    # The shortest possible Othello game: nine moves, black 13, white 0. Checked by hand.
    state = ReversiState.initial(8)
    for move in ["d3", "c3", "b3", "e3", "f3", "f4", "f5", "b2", "a1"]:
        assert not state.is_terminal()
        state = state.apply(parse_action(move))
    assert board_of(state) == drawn(
        """
        X . . . . . . .
        . X . . . . . .
        . X X X X X . .
        . . . X X X . .
        . . . X X X . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """
    )
    assert state.is_terminal()
    assert state.legal_actions() == []
    assert state.disc_counts() == (13, 0)
    assert state.winner == 0


def test_4x4_is_a_win_for_white_with_perfect_play():
    memo: dict[ReversiState, int] = {}

    def value(state: ReversiState) -> int:
        """Final disc difference (black minus white) with perfect play from ``state``."""
        if state not in memo:
            if state.is_terminal():
                black, white = state.disc_counts()
                memo[state] = black - white
            else:
                children = [value(state.apply(a)) for a in state.legal_actions()]
                memo[state] = max(children) if state.current_player == 0 else min(children)
        return memo[state]

    assert value(ReversiState.initial(4)) < 0


def test_transposition_gives_equal_states():
    first = second = ReversiState.initial(8)
    for move in ("d3", "c3", "c4", "e3"):
        first = first.apply(parse_action(move))
    for move in ("c4", "c3", "d3", "e3"):
        second = second.apply(parse_action(move))
    assert first is not second
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    assert first.legal_actions() == second.legal_actions()


# --- against the reference implementation -------------------------------------------------------


# 60 whole games, about 20 a board size: passes in a third to a half of them, on 4x4 a draw or
# a game ended with squares empty in one in ten (arbitrary boards, wiped-out colours among them,
# are the next test's)
@settings(max_examples=60, deadline=None)
@given(size=st.sampled_from(BOARD_SIZES), rnd=st.randoms(use_true_random=False))
def test_random_games_match_reference(size, rnd):
    state, ref = ReversiState.initial(size), RefGame.start(size)
    plies = 0
    while True:
        assert_same_position(state, ref)
        if ref.is_over():
            break
        action = rnd.choice(ref.legal_actions())
        state, ref = state.apply(action), ref.play(action)
        plies += 1
    assert plies >= 7  # no game on these boards can end sooner
    assert state.legal_actions() == []
    black, white = state.disc_counts()
    assert state.winner == (None if black == white else 0 if black > white else 1)


@st.composite
def positions(draw):
    """Arbitrary boards (not necessarily reachable), biased in turn towards each kind of square."""
    size = draw(st.sampled_from(BOARD_SIZES))
    pool = draw(st.sampled_from([".XO", "..XO", ".XXO", ".XOO", ".XOOOO", ".XXXXO", "...XO"]))
    cells = draw(st.lists(st.sampled_from(pool), min_size=size * size, max_size=size * size))
    text = "\n".join("".join(cells[r * size : (r + 1) * size]) for r in range(size))
    return text, draw(st.sampled_from([0, 1]))


@settings(max_examples=400, deadline=None)
@given(position=positions())
def test_arbitrary_positions_match_reference(position):
    text, player = position
    state, ref = ReversiState.from_text(text, player), RefGame.from_text(text, player)
    assert board_of(state) == board_text(ref.board)
    assert_same_position(state, ref)
    for action in ref.legal_actions():
        assert_same_position(state.apply(action), ref.play(action))


# --- actions and their names --------------------------------------------------------------------


def test_action_names():
    assert action_name(19) == "d3"
    assert parse_action("d3") == 19
    assert parse_action("D3 ") == 19
    assert action_name(0) == "a1"
    assert action_name(7) == "h1"
    assert action_name(56) == "a8"
    assert action_name(63) == "h8"
    assert action_name(64) == "pass"
    assert parse_action("pass") == 64
    assert action_name(15, 4) == "d4"
    assert action_name(16, 4) == "pass"
    assert parse_action("f6", 6) == 35
    for size in BOARD_SIZES:
        for action in range(size * size + 1):
            assert parse_action(action_name(action, size), size) == action


@pytest.mark.parametrize(("text", "size"), [("i1", 8), ("a9", 8), ("e1", 4), ("a5", 4), ("", 8)])
def test_parse_action_rejects_squares_off_the_board(text, size):
    with pytest.raises(ValueError, match="cannot read move"):
        parse_action(text, size)


def test_action_name_rejects_out_of_range():
    with pytest.raises(ValueError):
        action_name(65)
    with pytest.raises(ValueError):
        action_name(-1)


# --- errors -------------------------------------------------------------------------------------


def check_illegal(state, action, detail: str = "") -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        state.apply(action)
    error = info.value
    assert isinstance(error, ValueError)
    message = str(error)
    assert repr(action) in message
    assert str(state.legal_actions()) in message
    assert detail in message
    assert error.action == action
    assert error.legal_actions == tuple(state.legal_actions())
    return error


@pytest.mark.parametrize("move", ["a1", "d4", "e4", "c3", "h8"])
def test_illegal_placement(move):
    # d4/e4 are occupied, a1/c3/h8 empty but bracket nothing.
    check_illegal(ReversiState.initial(8), parse_action(move))


def test_illegal_pass_at_start():
    check_illegal(ReversiState.initial(8), 64, "passing is only allowed")


@pytest.mark.parametrize("action", [-1, 65, 100, -65, 2**70])
def test_out_of_range_action(action):
    check_illegal(ReversiState.initial(8), action)


def test_out_of_range_on_small_board():
    state = ReversiState.initial(4)
    check_illegal(state, 17)
    check_illegal(state, 19)  # d3 on 8x8, off the 4x4 board


@pytest.mark.parametrize("action", [1.5, 19.0, "d3", None, np.float64(19.0), [19]])
def test_non_integer_action(action):
    error = check_illegal(ReversiState.initial(8), action, "not an integer")
    assert error.action is action


def test_action_after_game_over():
    end = ReversiState.from_text("\n".join(["XXXXOOOO"] * 8))
    for action in (0, 63, 64):
        check_illegal(end, action, "the game is over")
    assert "legal moves: none (actions [])" in str(check_illegal(end, 64))


@pytest.mark.parametrize("action", [np.int64(19), np.int32(19), np.uint8(19), np.intp(19)])
def test_numpy_integer_actions(action):
    state = ReversiState.initial(8)
    assert state.apply(action) == state.apply(19)
    assert state.is_legal(action)


def test_numpy_integer_pass():
    white = ReversiState.from_text("XO......\n" + "\n".join(["........"] * 7), current_player=1)
    assert white.apply(np.int64(64)).current_player == 0


@pytest.mark.parametrize("size", [3, 5, 10, 0, -8, "8", True, 8.0, None])
def test_bad_board_sizes(size):
    with pytest.raises(ValueError, match="board_size") as info:
        ReversiState.initial(size)
    assert repr(size) in str(info.value)
    with pytest.raises(ValueError):
        ReversiState(size, 0, 0)


def test_numpy_board_size_accepted():
    assert ReversiState.initial(np.int64(6)) == ReversiState.initial(6)


@pytest.mark.parametrize(
    "text",
    [
        "XO.Z\n....\n....\n....",  # unknown character
        "....\n....\n....",  # not square
        "....\n.....\n....\n....",  # ragged
        ".....\n.....\n.....\n.....\n.....",  # 5x5
        "",  # empty
        "\n".join(["." * 10] * 10),  # 10x10
    ],
)
def test_from_text_rejects_bad_boards(text):
    with pytest.raises(ValueError):
        ReversiState.from_text(text)


def test_from_text_rejects_bad_player():
    with pytest.raises(ValueError, match="current_player"):
        ReversiState.from_text(START_8X8, current_player=2)


def test_constructor_rejects_bad_bitboards():
    start = ReversiState.initial(8)
    with pytest.raises(ValueError, match="share"):
        ReversiState(8, start.black | 1, start.white | 1)
    with pytest.raises(ValueError):
        ReversiState(8, -1, 0)
    with pytest.raises(ValueError):
        ReversiState(8, 1 << 64, 0)
    with pytest.raises(ValueError):
        ReversiState(6, 1 << 6, 0)  # g1 is not on a 6x6 board
    with pytest.raises(ValueError):
        ReversiState(4, 0, 1 << 32)  # a5 is not on a 4x4 board
    with pytest.raises(ValueError):
        ReversiState(8, "1", 0)
    assert ReversiState(6, 1 << 5, 1 << 40).disc_counts() == (1, 1)  # f1 and a6 exist


# --- values: immutability, snapshots, equality --------------------------------------------------


def sample_states() -> list[ReversiState]:
    states = [ReversiState.initial(size) for size in BOARD_SIZES]
    mid = ReversiState.initial(8)
    for move in ("d3", "c3", "c4", "e3", "f2"):
        mid = mid.apply(parse_action(move))
    states.append(mid)
    states.append(ReversiState.from_text("XO......\n" + "\n".join(["........"] * 7), 1))  # pass
    states.append(ReversiState.from_text("\n".join(["XXXXOOOO"] * 8)))  # game over
    return states


def test_states_are_immutable():
    state = ReversiState.initial(8)
    before = (state.black, state.white, state.current_player, state.legal_actions())
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.black = 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.current_player = 1
    child = state.apply(19)
    assert child is not state
    assert (state.black, state.white, state.current_player, state.legal_actions()) == before
    mask = state.legal_action_mask()
    mask[:] = 0
    assert state.legal_action_mask().sum() == 4


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(protocol):
    for state in sample_states():
        clone = pickle.loads(pickle.dumps(state, protocol=protocol))
        assert clone == state
        assert hash(clone) == hash(state)
        assert clone.legal_actions() == state.legal_actions()
        assert clone.is_terminal() == state.is_terminal()
        assert clone.must_pass() == state.must_pass()
        assert clone.winner == state.winner
        for action in state.legal_actions():
            assert clone.apply(action) == state.apply(action)


def test_copy_and_deepcopy_round_trip():
    for state in sample_states():
        for clone in (copy.copy(state), copy.deepcopy(state)):
            assert clone == state
            assert hash(clone) == hash(state)
            assert clone.legal_actions() == state.legal_actions()
            assert clone.is_terminal() == state.is_terminal()
            assert board_of(clone) == board_of(state)


def test_equality_and_hashing_by_position():
    start = ReversiState.initial(8)
    same = ReversiState.from_text(START_8X8)
    assert start == same
    assert hash(start) == hash(same)
    assert ReversiState.from_text(START_8X8, current_player=1) != start
    assert start.apply(19) != start.apply(26)
    # Same bits, different board sizes: different positions.
    four = ReversiState.initial(4)
    assert ReversiState(6, four.black, four.white) != four
    states = {start, same, start.apply(19), ReversiState.initial(8).apply(19), four}
    assert len(states) == 3
    # States reached in play equal freshly built ones.
    played = ReversiState.initial(8).apply(19)
    assert played == ReversiState(8, played.black, played.white, 1)
    assert played == ReversiState.from_text(board_of(played), current_player=1)
