"""The terminal interface, fed scripted lines."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from boardzoo.agents import Agent
from boardzoo.agents.base import env_state
from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.ui import GameSession, parse_move, run_text_ui
from boardzoo.ui.text_ui import TextGame


class FirstMoveAgent(Agent):
    """Plays the lowest legal action."""

    name = "first"

    def act(self, env: Any) -> int:
        return env_state(env).legal_actions()[0]


def script(lines: Iterable[str]) -> tuple[Callable[[str], str], list[str]]:
    """An ``input_fn`` answering with ``lines`` (then end of input), and the prompts it saw."""
    pending = iter(lines)
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(pending)
        except StopIteration:
            raise EOFError from None

    return read, prompts


def play(game: str, players: tuple, lines: list[str], **options: Any) -> tuple[Any, str]:
    read, _ = script(lines)
    out: list[str] = []
    state = run_text_ui(game, players, input_fn=read, output=out.append, **options)
    return state, "\n".join(out)


def test_tictactoe_game_with_bad_input_and_an_agent():
    lines = ["help", "", "zz", "9", "pass", "b2", "4", "moves", "c1", "6"]
    state, text = play("tictactoe", ("human", FirstMoveAgent()), lines)
    # X: b2, c1, 6 (a3) makes the 2-4-6 diagonal; O answers a1, then b1.
    assert isinstance(state, TicTacToeState) and state.is_terminal() and state.winner == 0
    assert "Type a square number 0-8" in text  # help
    assert "Commands: moves" in text
    assert "Type a move, or 'help'" in text  # an empty line
    assert "Unknown square 'zz'" in text
    assert "Unknown square '9'" in text
    assert "no pass in TicTacToe" in text
    assert "X plays 4 (b2)." in text
    assert "O (first) plays 0 (a1)." in text  # the agent's moves are announced
    assert "Illegal move: 4 (b2) is taken. Legal moves: 1 (b1), 2 (c1), 3 (a2)" in text
    assert "Legal moves: 1 (b1), 2 (c1), 3 (a2), 5 (c2), 6 (a3), 7 (b3), 8 (c3)." in text
    assert text.rstrip().endswith("Game over: X wins.")
    assert "1 . . .    0 1 2" in text  # the board with its action numbers


def test_reversi_messages_and_quit():
    lines = ["a1", "pass", "z9", "19", "D3", "moves", "quit"]
    state, text = play("reversi", ("human", FirstMoveAgent()), lines, board_size=6)
    assert "Reversi 6x6: Black = X (You), White = O (first)" in text
    assert "Illegal move: a1 flips no disc. Legal moves: c2, b3, e4, d5." in text
    assert "You cannot pass while you have a legal move." in text
    assert "Unknown square 'z9': type a square a1..f6 (such as d3) or 'pass'" in text
    assert "Unknown square '19'" in text
    assert "Illegal move: d3 is taken." in text  # squares are read in any case
    assert text.rstrip().endswith("Game abandoned.")
    assert isinstance(state, ReversiState) and not state.is_terminal()
    assert state.disc_counts() == (2, 2)


def test_reversi_move_agent_reply_and_undo():
    lines = ["c2", "undo", "undo", "b3", "board"]  # then end of input quits
    read, prompts = script(lines)
    out: list[str] = []
    state = run_text_ui(
        "reversi", ("human", FirstMoveAgent()), board_size=6, input_fn=read, output=out.append
    )
    text = "\n".join(out)
    assert "Black plays c2." in text
    assert "White (first) is thinking..." in text
    assert "White (first) plays b2." in text
    assert "Taken back: Black to move again." in text
    assert "Nothing to undo." in text
    assert "Black plays b3." in text
    assert prompts == ["Black to move> "] * 6
    assert state.disc_counts() == (3, 3)  # after b3 and White's answer
    assert text.rstrip().endswith("Game abandoned.")


def test_reversi_human_must_pass():
    session = GameSession.create("reversi", ("human", "human"), board_size=4)
    for action in [4, 0, 14, 13, 8, 12, 1, 2]:
        session.play(action)
    out: list[str] = []
    game = TextGame(session, script([])[0], out.append)
    assert game.handle("d4") and game.handle("pass")
    assert "you have no legal move and must pass. Legal moves: pass." in out[0]
    assert session.last_action == 16


def test_two_agents_play_without_input():
    def no_input(prompt: str) -> str:
        raise AssertionError("nobody should be asked")

    out: list[str] = []
    state = run_text_ui(
        "tictactoe", ("random", "random"), seed=5, input_fn=no_input, output=out.append
    )
    assert state.is_terminal()
    moves = [line for line in out if " (random) plays " in line]
    assert len(moves) == (state.x | state.o).bit_count()
    assert out[-1].startswith("Game over: ")


def test_parse_move():
    reversi, tictactoe = ReversiState.initial(8), TicTacToeState.initial()
    assert parse_move(reversi, " d3 ") == 19
    assert parse_move(reversi, "PASS") == 64
    assert parse_move(tictactoe, "8") == 8
    assert parse_move(tictactoe, "b2") == 4
    for bad in ("i1", "a9", "d", "64"):
        with pytest.raises(ValueError, match="unknown square"):
            parse_move(reversi, bad)
    with pytest.raises(ValueError, match="unknown square"):
        parse_move(tictactoe, "d1")
