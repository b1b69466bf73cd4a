"""Tests of the text board and the pygame renderer (off screen, under SDL's dummy video driver)."""

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame
import pytest

from boardzoo.envs.board_geometry import BoardGeometry
from boardzoo.envs.pygame_render import BoardRenderer
from boardzoo.envs.text_render import ansi_board
from boardzoo.games import ReversiState, TicTacToeState, action_name, parse_action
from boardzoo.games.catalog import game_names, make_game
from boardzoo.games.connect_four import ConnectFourState

SIZES = (4, 6, 8)
# Connect Four's look (the catalog's): red and yellow discs in light holes of a blue board.
C4_RED, C4_YELLOW = (214, 38, 42), (244, 204, 32)


@pytest.fixture
def renderer():
    board = BoardRenderer("rgb_array")
    yield board
    board.close()


def pixel(frame: np.ndarray, xy: tuple[int, int]) -> np.ndarray:
    """RGB of the pixel at ``(x, y)`` as ints."""
    return frame[xy[1], xy[0]].astype(int)


def centre(board: BoardRenderer, square: str) -> tuple[int, int]:
    """Pixel at the centre of a square named like ``"d3"`` (column letter, row number)."""
    return board.geometry.square_center(int(square[1:]) - 1, "abcdefgh".index(square[0]))


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


def ray(
    frame: np.ndarray, board: BoardRenderer, row: int, col: int, reach: float = 0.47
) -> np.ndarray:
    """The pixels from a square's centre to ``reach`` of a square to its right (inside the
    square; 0.38 stays inside a Connect Four hole), as ints: a legal-move ring crosses them."""
    x, y = board.geometry.square_center(row, col)
    reach = round(board.geometry.cell * reach)
    return frame[y, x : x + reach + 1].astype(int)


def distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b))


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
            name = action_name(row * size + col, size)
            pixels = ray(frame, renderer, row, col)
            if (row, col) in legal:  # a hollow ring: the board at the centre, dark further out
                assert np.array_equal(pixels[0], empty), name
                darkest = pixels[pixels.sum(axis=1).argmin()]
                assert darkest.sum() < empty.sum() - 100, name
            elif state.square_owner(row, col) is None:
                assert (pixels == empty).all(), name


def test_hints_follow_the_side_to_move(renderer):
    state = played(8, "d3")  # white to move: light rings
    frame = renderer.render(state)
    empty = pixel(frame, renderer.geometry.square_center(0, 0))
    for action in state.legal_actions():
        pixels = ray(frame, renderer, *divmod(action, 8))
        assert np.array_equal(pixels[0], empty), action_name(action)
        assert pixels.sum(axis=1).max() > empty.sum() + 150, action_name(action)


@pytest.mark.parametrize("white_to_move", [False, True])
def test_hints_are_unlike_the_star_points(renderer, white_to_move):
    # Reversi 8x8 has star points on the crossings c3, g3, c7, g7 (between b2, c2, b3 and c3...).
    state = played(8, "d3") if white_to_move else ReversiState.initial(8)
    frame = renderer.render(state)
    geometry, cell = renderer.geometry, renderer.geometry.cell
    board = pixel(frame, geometry.square_center(0, 0))
    star = (geometry.left + 2 * cell, geometry.top + 2 * cell)
    plain_crossing = (geometry.left + 1 * cell, geometry.top + 1 * cell)  # no star point there
    off = (star[0] + 2, star[1] + 2)  # just off the grid lines, inside the star point
    star_colour = pixel(frame, off)
    assert distance(star_colour, board) > 40  # a filled dot
    assert np.array_equal(pixel(frame, (plain_crossing[0] + 2, plain_crossing[1] + 2)), board)
    small = (star[0] - cell // 5, star[1] - cell // 5)  # towards b2, no legal move
    assert np.array_equal(pixel(frame, small), board)  # the star point is small
    for action in state.legal_actions():
        row, col = divmod(action, 8)
        pixels = ray(frame, renderer, row, col)
        # Hollow where a star point is filled, and wide: its line lies beyond 0.25 of a square.
        assert not np.array_equal(pixels[0], star_colour)
        marked = np.flatnonzero([distance(p, board) > 40 for p in pixels])
        assert marked.size and marked.min() > cell // 4, action_name(action)
        ring = pixels[marked[len(marked) // 2]]
        if white_to_move:  # light rings, dark star points
            assert ring.sum() > star_colour.sum() + 300


def test_last_move_marker(renderer):
    state = played(8, "d3")
    marked = renderer.render(state, parse_action("d3"))
    plain = renderer.render(state)
    assert is_red(pixel(marked, centre(renderer, "d3")))
    assert is_dark(pixel(plain, centre(renderer, "d3")))
    assert not any(is_red(pixel(marked, centre(renderer, sq))) for sq in ("d4", "d5", "e4"))
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
    assert (geometry.rows, geometry.cols) == (3, 3)
    x_centre = pixel(frame, geometry.square_center(0, 0))
    assert x_centre.max() < 120 and x_centre[2] > x_centre[0]  # the dark blue cross
    o_top = geometry.square_center(0, 2)
    ring = pixel(frame, (o_top[0], o_top[1] - round(geometry.cell * 0.29)))
    assert ring[0] > 150 and ring[1] < 100  # the red ring
    assert pixel(frame, geometry.square_center(0, 2))[2] < 200  # last move: yellow square
    assert is_light(pixel(frame, geometry.square_center(2, 2)))


def test_geometry_follows_the_board_size(renderer):
    renderer.render(ReversiState.initial(8))
    assert (renderer.geometry.rows, renderer.geometry.cols) == (8, 8)
    frame = renderer.render(ReversiState.initial(6))
    assert (renderer.geometry.rows, renderer.geometry.cols) == (6, 6)
    assert frame.shape == (*renderer.window_size[::-1], 3)
    frame = renderer.render(ConnectFourState.initial())
    assert (renderer.geometry.rows, renderer.geometry.cols) == (6, 7)
    assert frame.shape == (*renderer.window_size[::-1], 3)


# --- geometry ------------------------------------------------------------------------------------


GAMES = [make_game("reversi", board_size=size) for size in SIZES]
GAMES += [make_game(name) for name in game_names() if name != "reversi"]


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.label)
def test_square_at_inverts_square_center(game):
    board = BoardRenderer("rgb_array", game=game)
    rows, cols = game.rows, game.cols
    for row in range(rows):
        for col in range(cols):
            assert board.square_at(board.geometry.square_center(row, col)) == (row, col)
    rect = board.board_rect
    assert rect.size == (cols * board.geometry.cell, rows * board.geometry.cell)
    assert board.square_at(rect.topleft) == (0, 0)
    assert board.square_at((rect.right - 1, rect.bottom - 1)) == (rows - 1, cols - 1)
    outside = [(0, 0), (rect.left - 1, rect.centery), (rect.right, rect.centery)]
    outside += [(rect.centerx, rect.bottom), (rect.centerx, board.window_size[1] - 1), (-5, -5)]
    assert all(board.square_at(xy) is None for xy in outside)
    assert board.square_rect(0, 0).collidepoint(board.geometry.square_center(0, 0))


def test_geometry_fits_the_board_area():
    for size in (3, *SIZES):
        geometry = BoardGeometry(512, size, size)
        x, y, width, height = geometry.board_box
        assert x == y
        assert width == height == size * geometry.cell
        assert x >= geometry.margin and x + width <= 512 - geometry.margin
        assert geometry.window_size == (512, 512 + geometry.status_height)


@pytest.mark.parametrize(("rows", "cols"), [(6, 7), (7, 6), (3, 8)])
def test_rectangular_geometry_keeps_the_border_all_round(rows, cols):
    geometry = BoardGeometry(512, rows, cols)
    x, y, width, height = geometry.board_box
    cell = (512 - 2 * 32) // max(rows, cols)  # the long side fills the area less its border
    assert (geometry.cell, width, height) == (cell, cols * cell, rows * cell)
    assert x == y >= geometry.margin  # the same border on every side
    assert geometry.area_width == width + 2 * x and geometry.area_height == height + 2 * y
    assert max(geometry.area_width, geometry.area_height) in (511, 512)
    assert geometry.window_size == (geometry.area_width, height + 2 * y + geometry.status_height)
    with pytest.raises(ValueError, match="cols must be a positive int, got 0"):
        BoardGeometry(512, 6, 0)


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
    assert lines[1].split() == ["1", "X", ".", "o"]  # squares are named a1..c3 like Reversi's
    assert lines[2].split() == ["2", ".", "X", "."]
    assert lines[3].split() == ["3", ".", ".", "."]
    assert len(lines) == 5
    assert "O to move" in lines[-1] and "*" not in text
    assert "last move: c1" in lines[-1] and "(" not in lines[-1]  # no legend: X is X, O is O
    assert "X wins" in ansi_board(TicTacToeState.from_text("XXX\nOO.\n..."))
    assert "Draw" in ansi_board(TicTacToeState.from_text("XOX\nXOO\nOXX"))


# --- Connect Four: a rectangular board with holes ------------------------------------------------


def c4(*columns: str) -> ConnectFourState:
    """The position after dropping discs into ``columns`` (``"a"``..``"g"``), red first."""
    state = ConnectFourState.initial()
    for column in columns:
        state = state.apply("abcdefg".index(column))
    return state


def is_c4_red(rgb: np.ndarray) -> bool:
    red, green, blue = rgb
    return red > 180 and green < 90 and blue < 90


def is_c4_yellow(rgb: np.ndarray) -> bool:
    red, green, blue = rgb
    return red > 200 and green > 170 and blue < 100


def is_blue(rgb: np.ndarray) -> bool:
    red, green, blue = rgb
    return blue > red + 80 and blue > green + 60


def test_connect_four_picture_is_seven_by_six(renderer):
    frame = renderer.render(c4("d", "d", "c"))
    geometry = renderer.geometry
    # 7 columns on the long side: cell (512 - 2 * 32) // 7 = 64, so the board is 448 x 384
    # with a 32 pixel border all round: a 512 x 448 board area above a 51 pixel status bar.
    assert (geometry.cell, geometry.board_box) == (64, (32, 32, 448, 384))
    assert frame.shape == (448 + 51, 512, 3) and renderer.window_size == (512, 499)


def test_connect_four_discs_fall_to_the_bottom(renderer):
    state = c4("d", "d", "c")  # red d1 (bottom), yellow on it, red c1; row 5 is the bottom
    frame = renderer.render(state)
    at = renderer.geometry.square_center
    assert is_c4_red(pixel(frame, at(5, 3))) and tuple(pixel(frame, at(5, 3))) == C4_RED
    assert is_c4_yellow(pixel(frame, at(4, 3))) and tuple(pixel(frame, at(4, 3))) == C4_YELLOW
    assert is_c4_red(pixel(frame, at(5, 2)))
    assert is_light(pixel(frame, at(0, 0)))  # an empty hole
    assert is_light(pixel(frame, at(0, 3)))
    x, y, _, _ = renderer.geometry.square_box(2, 2)
    assert is_blue(pixel(frame, (x + 1, y + 1)))  # the board between the holes
    # The legal moves' cells (the lowest empty one of each column) hold a yellow ring (yellow
    # to move), no other.
    legal = {(3, 3), (4, 2), (5, 0), (5, 1), (5, 4), (5, 5), (5, 6)}
    empty = pixel(frame, at(0, 0))
    for row in range(6):
        for col in range(7):
            pixels = ray(frame, renderer, row, col, reach=0.38)
            if (row, col) in legal:
                assert np.array_equal(pixels[0], empty), (row, col)  # hollow
                assert any(is_c4_yellow(p) for p in pixels), (row, col)
            elif state.square_owner(row, col) is None:
                assert (pixels == empty).all(), (row, col)


def test_connect_four_last_move_and_winning_line(renderer):
    before = c4("a", "a", "b", "b", "c", "c")
    won = before.apply(3)  # red d1: a1-d1 along the bottom row
    assert won.winner == 0
    marked = renderer.render(won, 3)
    plain = renderer.render(before)
    at = renderer.geometry.square_center
    # The last disc is marked in a colour that shows on red (not red on red).
    assert is_light(pixel(marked, at(5, 3)))
    x, y = at(5, 2)
    assert is_c4_red(pixel(marked, (x, y - 16)))  # a disc of the line, above the strike
    # The line is struck through: between the discs, the blue board is crossed by a light bar.
    between = ((at(5, 1)[0] + at(5, 2)[0]) // 2, at(5, 1)[1])
    assert is_blue(pixel(plain, between))
    assert is_light(pixel(marked, between))
    above = ((at(4, 1)[0] + at(4, 2)[0]) // 2, at(4, 1)[1])
    assert is_blue(pixel(marked, above))  # only the winning row is struck
    top = renderer.geometry.area_height
    assert not np.array_equal(marked[top:], plain[top:])  # "Game over: Red wins"


def test_tictactoe_winning_line_is_struck(renderer):
    won = TicTacToeState.from_text("XXX\nOO.\n...")
    frame = renderer.render(won)
    at = renderer.geometry.square_center
    between = ((at(0, 0)[0] + at(0, 1)[0]) // 2, at(0, 0)[1])  # on the grid line
    red, green, blue = pixel(frame, between)
    assert red > 200 and 130 < green < 200 and blue < 80  # the amber strike
    below = ((at(1, 0)[0] + at(1, 1)[0]) // 2, at(1, 0)[1])
    assert pixel(frame, below).max() < 120  # the plain grid line in the row below


def test_ansi_connect_four():
    state = c4("d", "d", "c")
    lines = ansi_board(state, 2).splitlines()
    assert lines[0].split() == list("abcdefg")
    board = [line.split() for line in lines[1:7]]  # no row numbers: Connect Four has no ranks
    assert board[5] == ["*", "*", "x", "X", "*", "*", "*"]  # the last disc in lower case
    assert board[4] == [".", ".", "*", "O", ".", ".", "."]
    assert board[3] == [".", ".", ".", "*", ".", ".", "."]
    assert board[0] == ["."] * 7
    assert lines[-1] == "X (red)  O (yellow)  |  Yellow to move  |  last move: c"
    assert len(lines) == 8
    won = c4("a", "a", "b", "b", "c", "c", "d")
    assert "Red wins" in ansi_board(won) and "*" not in ansi_board(won)
