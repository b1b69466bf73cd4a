"""Tests of the text board and the pygame renderer (off screen, under SDL's dummy video driver)."""

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame
import pytest

from boardzoo.envs.rendering import BoardGeometry, BoardRenderer, ansi_board
from boardzoo.games import ReversiState, TicTacToeState, action_name, parse_action

SIZES = (4, 6, 8)


@pytest.fixture
def renderer():
    board = BoardRenderer("rgb_array")
    yield board
    board.close()


def pixel(frame: np.ndarray, xy: tuple[int, int]) -> np.ndarray:
    """RGB of the pixel at ``(x, y)`` as ints."""
    return frame[xy[1], xy[0]].astype(int)


def centre(board: BoardRenderer, square: str, size: int) -> tuple[int, int]:
    return board.geometry.square_center(*divmod(parse_action(square, size), size))


def is_board_green(rgb: np.ndarray) -> bool:
    red, green, blue = rgb
    return green > red + 50 and green > blue + 30


def is_dark(rgb: np.ndarray) -> bool:
    return rgb.max() < 60


def is_light(rgb: np.ndarray) -> bool:
    return rgb.min() > 200


def is_red(rgb: np.ndarray) -> bool:
    red, green, blue = rgb
    return red > 180 and green < 90 and blue < 90


def played(size: int, *moves: str) -> ReversiState:
    state = ReversiState.initial(size)
    for move in moves:
        state = state.apply(parse_action(move, size))
    return state


def hint_squares(text: str) -> set[str]:
    """Squares marked ``*`` in an ``ansi_board`` text, by name."""
    rows = text.splitlines()
    files = rows[0].split()
    found = set()
    for line in rows[1:]:
        rank, *cells = line.split()
        if not rank.isdigit():
            break
        found |= {f"{files[i]}{rank}" for i, cell in enumerate(cells) if cell == "*"}
    return found


# --- rgb_array -----------------------------------------------------------------------------------


def test_rgb_array_is_fresh_uint8_hwc(renderer):
    state = ReversiState.initial()
    first = renderer.render(state)
    second = renderer.render(state)
    width, height = renderer.window_size
    assert first.shape == (height, width, 3)
    assert first.dtype == np.uint8
    assert height > width == 512  # a square board area with a status bar below
    assert first is not second and not np.shares_memory(first, second)
    assert np.array_equal(first, second)
    first[:] = 0
    assert renderer.render(state).any()


@pytest.mark.parametrize("size", SIZES)
def test_discs_and_empty_squares(renderer, size):
    frame = renderer.render(ReversiState.initial(size))
    low, high = size // 2 - 1, size // 2
    assert is_light(pixel(frame, renderer.geometry.square_center(low, low)))
    assert is_light(pixel(frame, renderer.geometry.square_center(high, high)))
    assert is_dark(pixel(frame, renderer.geometry.square_center(high, low)))
    assert is_dark(pixel(frame, renderer.geometry.square_center(low, high)))
    assert is_board_green(pixel(frame, renderer.geometry.square_center(0, 0)))
    assert is_board_green(pixel(frame, renderer.geometry.square_center(size - 1, size - 1)))


@pytest.mark.parametrize("size", SIZES)
def test_hints_on_legal_squares_only(renderer, size):
    state = ReversiState.initial(size)
    frame = renderer.render(state)
    legal = {divmod(a, size) for a in state.legal_actions()}
    empty = pixel(frame, renderer.geometry.square_center(0, 0))
    for row in range(size):
        for col in range(size):
            colour = pixel(frame, renderer.geometry.square_center(row, col))
            if (row, col) in legal:
                assert not np.array_equal(colour, empty), action_name(row * size + col, size)
                assert is_board_green(colour) or colour.sum() < empty.sum()  # a dark dot
            elif state.square_owner(row, col) is None:
                assert np.array_equal(colour, empty), action_name(row * size + col, size)


def test_hints_follow_the_side_to_move(renderer):
    state = played(8, "d3")  # white to move: light hint dots
    frame = renderer.render(state)
    empty = pixel(frame, renderer.geometry.square_center(0, 0))
    for action in state.legal_actions():
        colour = pixel(frame, renderer.geometry.square_center(*divmod(action, 8)))
        assert colour.sum() > empty.sum() + 60, action_name(action)


def test_last_move_marker(renderer):
    state = played(8, "d3")
    marked = renderer.render(state, parse_action("d3"))
    plain = renderer.render(state)
    assert is_red(pixel(marked, centre(renderer, "d3", 8)))
    assert is_dark(pixel(plain, centre(renderer, "d3", 8)))
    assert not any(is_red(pixel(marked, centre(renderer, sq, 8))) for sq in ("d4", "d5", "e4"))
    assert np.array_equal(renderer.render(state, 64), plain)  # a pass marks nothing


def test_status_bar_shows_turn_and_changes(renderer):
    black_to_move = renderer.render(ReversiState.initial())
    white_to_move = renderer.render(played(8, "d3"))
    top = renderer.screen_size
    bar = black_to_move[top:]
    assert bar.shape[0] == renderer.geometry.status_height
    assert pixel(black_to_move, (2, top + 2)).max() < 60  # a dark bar
    assert len(np.unique(bar.reshape(-1, 3), axis=0)) > 10  # with text and icons on it
    assert not np.array_equal(bar, white_to_move[top:])
    margin = renderer.geometry.margin
    assert np.array_equal(black_to_move[:margin], white_to_move[:margin])  # the file labels


def test_game_over_status_differs_from_in_play(renderer):
    over = ReversiState.from_text("XXXX\nXXXX\nXXXX\nXXX.")
    assert over.is_terminal()
    frame = renderer.render(over)
    in_play = renderer.render(ReversiState.initial(4))
    top = renderer.screen_size
    assert not np.array_equal(frame[top:], in_play[top:])
    assert is_board_green(pixel(frame, renderer.geometry.square_center(3, 3)))  # no hints


def test_tictactoe_marks_and_last_move(renderer):
    state = TicTacToeState.from_text("X.O\n.X.\n...")
    frame = renderer.render(state, 2)
    geometry = renderer.geometry
    assert geometry.board_size == 3
    x_centre = pixel(frame, geometry.square_center(0, 0))
    assert x_centre.max() < 120 and x_centre[2] > x_centre[0]  # the dark blue cross
    o_top = geometry.square_center(0, 2)
    ring = pixel(frame, (o_top[0], o_top[1] - round(geometry.cell * 0.29)))
    assert ring[0] > 150 and ring[1] < 100  # the red ring
    assert pixel(frame, geometry.square_center(0, 2))[2] < 200  # last move: yellow square
    assert is_light(pixel(frame, geometry.square_center(2, 2)))


def test_geometry_follows_the_board_size(renderer):
    renderer.render(ReversiState.initial(8))
    assert renderer.geometry.board_size == 8
    frame = renderer.render(ReversiState.initial(6))
    assert renderer.geometry.board_size == 6
    assert frame.shape == (*renderer.window_size[::-1], 3)


# --- geometry ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", (3, *SIZES))
def test_square_at_inverts_square_center(size):
    board = BoardRenderer("rgb_array", board_size=size)
    for row in range(size):
        for col in range(size):
            assert board.square_at(board.geometry.square_center(row, col)) == (row, col)
    rect = board.board_rect
    assert board.square_at(rect.topleft) == (0, 0)
    assert board.square_at((rect.right - 1, rect.bottom - 1)) == (size - 1, size - 1)
    outside = [(0, 0), (rect.left - 1, rect.centery), (rect.right, rect.centery)]
    outside += [(rect.centerx, rect.bottom), (rect.centerx, board.window_size[1] - 1), (-5, -5)]
    assert all(board.square_at(xy) is None for xy in outside)
    assert board.square_rect(0, 0).collidepoint(board.geometry.square_center(0, 0))


def test_geometry_fits_the_board_area():
    for size in (3, *SIZES):
        geometry = BoardGeometry(512, size)
        x, y, width, height = geometry.board_box
        assert x == y
        assert width == height == size * geometry.cell
        assert x >= geometry.margin and x + width <= 512 - geometry.margin
        assert geometry.window_size == (512, 512 + geometry.status_height)


def test_bad_arguments():
    with pytest.raises(ValueError, match="render_mode"):
        BoardRenderer("ansi")
    with pytest.raises(ValueError, match="screen_size"):
        BoardRenderer("rgb_array", screen_size=10)


# --- pygame initialisation -----------------------------------------------------------------------


def test_creating_a_renderer_initialises_nothing():
    pygame.display.quit()
    pygame.font.quit()
    for mode in ("human", "rgb_array"):
        board = BoardRenderer(mode)
        assert board.square_at(board.board_rect.center) is not None
        assert not pygame.display.get_init()
        assert not pygame.font.get_init()
        board.close()
        board.close()
    assert not pygame.display.get_init()


def test_rgb_array_initialises_neither_display_nor_mixer(renderer):
    pygame.display.quit()
    renderer.render(ReversiState.initial())
    renderer.render(TicTacToeState.initial())
    assert pygame.font.get_init()
    assert not pygame.display.get_init()
    assert pygame.mixer.get_init() is None
    assert not pygame.get_init()


def test_renderer_survives_font_module_restart(renderer):
    first = renderer.render(ReversiState.initial())
    pygame.font.quit()
    assert np.array_equal(renderer.render(ReversiState.initial()), first)


def test_human_mode_under_dummy_driver():
    pygame.display.quit()
    board = BoardRenderer("human", fps=1000, caption="boardzoo test")
    try:
        assert board.render(ReversiState.initial(), None) is None
        assert pygame.display.get_init()
        assert pygame.display.get_surface().get_size() == board.window_size
        assert pygame.display.get_caption()[0] == "boardzoo test"
        assert board.render(played(8, "d3"), parse_action("d3")) is None
        assert board.render(TicTacToeState.initial()) is None  # resizes the window
        assert pygame.display.get_surface().get_size() == board.window_size
        assert pygame.mixer.get_init() is None
    finally:
        board.close()
    assert not pygame.display.get_init()
    board.close()
    assert board.render(TicTacToeState.initial()) is None  # reopens after close
    board.close()
    assert not pygame.display.get_init()


def test_close_leaves_a_display_it_did_not_open():
    pygame.display.init()
    try:
        board = BoardRenderer("human")
        board.render(ReversiState.initial())
        board.close()
        assert pygame.display.get_init()
    finally:
        pygame.display.quit()


# --- text ----------------------------------------------------------------------------------------


def test_ansi_start_position():
    text = ansi_board(ReversiState.initial())
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert [line.split()[0] for line in lines[1:9]] == [str(rank) for rank in range(1, 9)]
    assert lines[4].split() == ["4", ".", ".", "*", "O", "X", ".", ".", "."]
    assert hint_squares(text) == {"d3", "c4", "f5", "e6"}
    status = lines[-1]
    assert "black) 2" in status and "white) 2" in status
    assert "Black to move" in status


@pytest.mark.parametrize("size", SIZES)
def test_ansi_hints_and_counts(size):
    state = played(size, action_name(ReversiState.initial(size).legal_actions()[0], size))
    text = ansi_board(state)
    assert hint_squares(text) == {action_name(a, size) for a in state.legal_actions()}
    assert len(text.splitlines()) == size + 2
    assert text.splitlines()[0].split() == list("abcdefgh"[:size])
    assert "X (black) 4  O (white) 1" in text
    assert "White to move" in text


def test_ansi_last_move_in_lower_case():
    text = ansi_board(played(8, "d3"), parse_action("d3"))
    assert text.splitlines()[3].split() == ["3", ".", ".", "*", "x", "*", ".", ".", "."]
    assert "last move: d3" in text
    assert "last move: pass" in ansi_board(ReversiState.initial(), 64)


def test_ansi_game_over_and_pass():
    won = ReversiState.from_text("XXXX\nXXXX\nXXXX\nXXX.")
    assert "Black wins" in ansi_board(won) and "*" not in ansi_board(won)
    drawn = ReversiState.from_text("XXXX\nXXXX\nOOOO\nOOOO")
    assert "Draw" in ansi_board(drawn)
    blocked = ReversiState.from_text("XXXX\nXXXX\nXXXX\nXXO.", current_player=1)
    assert blocked.must_pass() and "White must pass" in ansi_board(blocked)


def test_ansi_tictactoe():
    state = TicTacToeState.from_text("X.O\n.X.\n...")
    text = ansi_board(state, 2)
    lines = text.splitlines()
    assert lines[0].split() == ["a", "b", "c"]
    assert lines[1].split() == ["1", "X", ".", "o", "0", "1", "2"]
    assert lines[2].split() == ["2", ".", "X", ".", "3", "4", "5"]
    assert lines[3].split() == ["3", ".", ".", ".", "6", "7", "8"]
    assert "O to move" in lines[-1] and "*" not in text
    assert "X wins" in ansi_board(TicTacToeState.from_text("XXX\nOO.\n..."))
    assert "Draw" in ansi_board(TicTacToeState.from_text("XOX\nXOO\nOXX"))
