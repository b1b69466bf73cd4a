"""Replaying recorded games: checks, the text replay, the window and GIFs."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import random

import pygame
import pytest
from PIL import Image

from boardzoo.envs.board_geometry import BoardGeometry
from boardzoo.games import ReversiState
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.ui import ReplayError, parse_record, replay_frames, replay_game, write_gif

# X: b2, c1, a3 (the 2-4-6 diagonal); O: a1, b1.
TICTACTOE = {"game": "tictactoe", "moves": [4, 0, 2, 1, 6], "agents": ["mcts", "random"]}


def reversi_game(size: int = 4, seed: int = 0) -> list[int]:
    """The moves of a whole random game (with a pass on 4x4: Black must pass after move 8)."""
    rng = random.Random(seed)
    moves = [4, 0, 14, 13, 8, 12, 1, 2] if size == 4 else []
    state = ReversiState.initial(size)
    for action in moves:
        state = state.apply(action)
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        moves.append(action)
        state = state.apply(action)
    return moves


def test_text_replay_of_a_hand_made_record():
    out: list[str] = []
    final = replay_game(TICTACTOE, ui="text", delay=0, output=out.append)
    assert final.is_terminal() and final.winner == 0
    text = "\n".join(out)
    assert out[0] == "Replay of tictactoe: X (mcts), O (random); 5 moves."
    assert "Start: 5 moves" in text
    assert "Move 1/5: X (mcts) plays b2" in text
    assert "Move 4/5: O (random) plays b1" in text
    assert out[-1] == "Result: X wins."
    assert len([line for line in out if line.startswith("Move ")]) == 5


def test_optional_fields_may_be_missing_and_moves_may_be_names():
    moves = reversi_game(4)
    record = {"game": "reversi", "board_size": 4, "moves": moves}
    out: list[str] = []
    replay_game(record, ui="text", delay=0, output=out.append)
    assert out[0].startswith("Replay of reversi 4x4: Black, White;")
    assert "Move 9/" in out[2 * 9 + 1] and "Black plays pass" in out[2 * 9 + 1]
    named = parse_record({"game": "tictactoe", "moves": ["b2", "0", 2]})
    assert named.actions == (4, 0, 2) and named.agents is None
    unfinished = {"game": "reversi", "moves": [19, 18]}  # board_size defaults to 8
    out.clear()
    final = replay_game(unfinished, ui="text", delay=0, output=out.append)
    assert final.game.options == {"board_size": 8} and (final.game.rows, final.game.cols) == (8, 8)
    assert out[-1] == "The record stops before the end of the game."


def test_arena_records_name_the_first_mover_and_the_reason():
    record = {
        **TICTACTOE,
        "moves": [4, 0],
        "agents": ["greedy", "mcts"],
        "first": 1,  # the arena's match order: the second agent moved first
        "reason": "forfeit",
    }
    out: list[str] = []
    replay_game(record, ui="text", delay=0, output=out.append)
    assert out[0] == "Replay of tictactoe: X (mcts), O (greedy); 2 moves."
    assert out[-1] == "The record stops before the end of the game (forfeit)."


def test_an_illegal_move_names_its_number():
    with pytest.raises(ReplayError, match=r"move 2 \(b2\) is illegal for O"):
        parse_record({"game": "tictactoe", "moves": [4, 4]})
    with pytest.raises(
        ReplayError,
        match=r"move 3 \(a1\) is illegal for Black; the legal moves were b3, c4, f5, e6",
    ):
        parse_record({"game": "reversi", "moves": [19, 18, 0]})
    with pytest.raises(ReplayError, match=r"move 6 .* after the end of the game"):
        parse_record({"game": "tictactoe", "moves": [*TICTACTOE["moves"], 8]})
    with pytest.raises(ReplayError, match=r"move 1 is 1\.5"):
        parse_record({"game": "tictactoe", "moves": [1.5]})
    with pytest.raises(ReplayError, match=r"move 2 \(.zz.\)"):
        parse_record({"game": "tictactoe", "moves": [1, "zz"]})


def test_bad_records_are_refused_clearly():
    with pytest.raises(ReplayError, match="no 'game' field"):
        parse_record({"moves": []})
    with pytest.raises(ReplayError, match="unknown game 'chess'"):
        parse_record({"game": "chess", "moves": []})
    with pytest.raises(ReplayError, match="'moves' must be a list"):
        parse_record({"game": "tictactoe"})
    with pytest.raises(ReplayError, match="board_size must be one of"):
        parse_record({"game": "reversi", "board_size": 5, "moves": []})
    with pytest.raises(ValueError, match="ui must be"):
        replay_game(TICTACTOE, ui="braille")


def test_gif_has_one_frame_per_position(tmp_path):
    moves = reversi_game(4)
    record = {"game": "reversi", "board_size": 4, "moves": moves, "agents": ["a", "b"]}
    path = write_gif(record, tmp_path / "sub" / "game.gif", frame_seconds=0.2, screen_size=160)
    frames = replay_frames(record, screen_size=160)
    assert len(frames) == len(moves) + 1
    height, width, _ = frames[0].shape
    assert (width, height - BoardGeometry(160, 4, 4).window_size[1]) == (160, 22)  # caption strip
    with Image.open(path) as gif:
        assert gif.n_frames == len(moves) + 1
        assert gif.size == (width, height)
        assert gif.info["duration"] == 200
        gif.seek(gif.n_frames - 1)
        assert gif.info["duration"] == 2500


def test_window_replay_headless():
    final = replay_game(TICTACTOE, ui="window", delay=0, screen_size=200, hold=False, max_frames=50)
    assert final.is_terminal() and final.winner == 0
    assert not pygame.display.get_init()


# Red: d, e, f, g along the bottom row; yellow answers in column a three times.
CONNECT_FOUR = {"game": "connect_four", "options": {}, "moves": [3, 0, 4, 0, "f", 0, "G"]}


def test_records_with_options_and_old_records_with_board_size():
    moves = reversi_game(6, seed=1)
    new = parse_record({"game": "reversi", "options": {"board_size": 6}, "moves": moves})
    old = parse_record({"game": "reversi", "board_size": 6, "moves": moves})
    assert new.game is old.game and new.game.options == {"board_size": 6}
    assert new.states == old.states and new.states[-1].is_terminal()
    # TicTacToe's old records said "board_size": 3, an option it does not have.
    assert parse_record({**TICTACTOE, "board_size": 3}).actions == (4, 0, 2, 1, 6)
    with pytest.raises(ReplayError, match="board_size must be one of"):
        parse_record({"game": "reversi", "options": {"board_size": 7}, "moves": []})
    with pytest.raises(ReplayError, match="has no option 'board_size'"):
        parse_record({"game": "connect_four", "options": {"board_size": 6}, "moves": []})


def test_connect_four_text_replay():
    out: list[str] = []
    final = replay_game(
        {**CONNECT_FOUR, "agents": ["greedy", "random"]}, ui="text", delay=0, output=out.append
    )
    assert isinstance(final, ConnectFourState) and final.winner == 0
    assert out[0] == "Replay of connect_four: Red (greedy), Yellow (random); 7 moves."
    assert "Move 1/7: Red (greedy) plays d" in out
    assert "Move 7/7: Red (greedy) plays g" in out
    assert out[-2].splitlines()[-2] == "O . . X X X x"
    assert out[-1] == "Result: Red wins."
    with pytest.raises(
        ReplayError, match=r"move 7 \(d\) is illegal for Red; .* were a, b, c, e, f, g$"
    ):
        parse_record({"game": "connect_four", "moves": [3, 3, 3, 3, 3, 3, 3]})


def test_connect_four_gif_frames_are_rectangular(tmp_path):
    path = write_gif(CONNECT_FOUR, tmp_path / "c4.gif", screen_size=224)
    frames = replay_frames(CONNECT_FOUR, screen_size=224)
    assert len(frames) == 8
    geometry = BoardGeometry(224, 6, 7)
    height, width, _ = frames[0].shape
    assert (width, height) == (224, geometry.window_size[1] + 22)  # board, status, caption
    assert geometry.area_height < 224  # 7 columns by 6 rows: wider than high
    with Image.open(path) as gif:
        assert gif.n_frames == 8 and gif.size == (width, height)
