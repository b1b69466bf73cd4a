"""The terminal interface, fed scripted lines."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from boardzoo.agents import Agent
from boardzoo.agents.base import env_state
from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.games.connect_four import ConnectFourState
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


def play(game: str, players: tuple, lines: list[str], **kwargs: Any) -> tuple[Any, str]:
    read, _ = script(lines)
    out: list[str] = []
    state = run_text_ui(game, players, input_fn=read, output=out.append, **kwargs)
    return state, "\n".join(out)


def test_tictactoe_game_with_bad_input_and_an_agent():
    lines = ["help", "", "zz", "9", "pass", "b2", "4", "moves", "c1", "6"]
    read, prompts = script(lines)
    out: list[str] = []
    state = run_text_ui("tictactoe", ("human", FirstMoveAgent()), input_fn=read, output=out.append)
    text = "\n".join(out)
    # X: b2, c1, 6 (a3) makes the 2-4-6 diagonal; O answers a1, then b1.
    assert isinstance(state, TicTacToeState) and state.is_terminal() and state.winner == 0
    assert "Type a move by its name, a1..c3, or by its number 0..8" in text  # help
    assert "Commands: moves" in text
    assert "Type a move, or 'help'" in text  # an empty line
    assert "Cannot read move 'zz': expected a1..c3, or an action number 0..8" in text
    assert "Cannot read move '9'" in text
    assert "Cannot read move 'pass'" in text  # TicTacToe has no pass
    assert "X plays b2." in text
    assert "O (first) plays a1." in text  # the agent's moves are announced
    assert "Illegal move: b2 is taken. Legal moves: b1, c1, a2, c2, a3, b3, c3." in text
    assert "Legal moves: b1, c1, a2, c2, a3, b3, c3." in text
    assert text.rstrip().endswith("Game over: X wins.")
    assert "1 . . ." in text  # the board with its coordinates
    assert "TicTacToe: X (You), O (first)." in text
    # The prompt names the legal moves: all nine, then the seven left after b2 and a1, ...
    assert prompts[0] == "X to move [a1, b1, c1, a2, b2, c2, a3, b3, c3]> "
    assert prompts[-1] == "X to move [a2, c2, a3, b3, c3]> "  # after b2, a1, c1, b1


def test_reversi_messages_and_quit():
    lines = ["a1", "pass", "z9", "19", "D3", "moves", "quit"]
    state, text = play("reversi", ("human", FirstMoveAgent()), lines, options={"board_size": 6})
    assert "Reversi 6x6: Black = X (You), White = O (first)" in text
    assert "Illegal move: a1 is not a legal move here. Legal moves: c2, b3, e4, d5." in text
    assert "Illegal move: you cannot pass while you have a legal move." in text
    assert "Cannot read move 'z9': expected a1..f6 or 'pass', or an action number 0..36" in text
    # Action 19 is b4 on 6x6 (row 3, column 1): empty, but it flips nothing.
    assert "Illegal move: b4 is not a legal move here." in text
    assert "Illegal move: d3 is taken." in text  # squares are read in any case
    assert text.rstrip().endswith("Game abandoned.")
    assert isinstance(state, ReversiState) and not state.is_terminal()
    assert state.disc_counts() == (2, 2)


def test_reversi_move_agent_reply_and_undo():
    lines = ["c2", "undo", "undo", "b3", "board"]  # then end of input quits
    read, prompts = script(lines)
    out: list[str] = []
    state = run_text_ui(
        "reversi",
        ("human", FirstMoveAgent()),
        options={"board_size": 6},
        input_fn=read,
        output=out.append,
    )
    text = "\n".join(out)
    assert "Black plays c2." in text
    assert "White (first) is thinking..." in text
    assert "White (first) plays b2." in text
    assert "Taken back: Black to move again." in text
    assert "Nothing to undo." in text
    assert "Black plays b3." in text
    start = "Black to move [c2, b3, e4, d5]> "  # the start's legal moves (as the other lines say)
    # Before c2, before the undos (after c2 and b2, then back at the start), before b3.
    assert prompts[:4] == [start, "Black to move [a2, b3, e4, d5]> ", start, start]
    assert all(prompt.startswith("Black to move [") for prompt in prompts)
    assert len(prompts) == 6
    assert state.disc_counts() == (3, 3)  # after b3 and White's answer
    assert text.rstrip().endswith("Game abandoned.")


def test_reversi_human_must_pass():
    session = GameSession.create("reversi", ("human", "human"), options={"board_size": 4})
    for action in [4, 0, 14, 13, 8, 12, 1, 2]:
        session.play(action)
    out: list[str] = []
    game = TextGame(session, script([])[0], out.append)
    assert game.handle("d4") and game.handle("pass")
    assert out[0] == "Illegal move: you have no legal move and must pass. Legal moves: pass."
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
    assert parse_move(reversi, "64") == 64  # every game reads action numbers too
    assert parse_move(tictactoe, "8") == 8
    assert parse_move(tictactoe, "b2") == 4
    assert parse_move(ConnectFourState.initial(), "D") == 3
    for bad in ("i1", "a9", "d", "65"):
        with pytest.raises(ValueError, match="cannot read move"):
            parse_move(reversi, bad)
    with pytest.raises(ValueError, match="cannot read move"):
        parse_move(tictactoe, "d1")
    with pytest.raises(ValueError, match="cannot read move 'h'"):
        parse_move(ConnectFourState.initial(), "h")


def test_connect_four_by_typing_columns():
    # Red fills the bottom row from d to g; yellow (the agent) answers in column a each time.
    lines = ["d", "help", "E", "5", "g"]
    read, prompts = script(lines)
    out: list[str] = []
    state = run_text_ui(
        "connect_four", ("human", FirstMoveAgent()), input_fn=read, output=out.append
    )
    text = "\n".join(out)
    assert isinstance(state, ConnectFourState)
    assert state.is_terminal() and state.winner == 0
    assert (
        out[0] == "Connect Four: Red = X (You), Yellow = O (first). Type 'help' for the commands."
    )
    assert prompts[0] == "Red to move [a, b, c, d, e, f, g]> "
    assert "Red plays d." in text and "Yellow (first) plays a." in text
    assert "Type a move by its name, a..g, or by its number 0..6" in text  # no pass to mention
    # d, E, 5 (column f) and g: four in a row along the bottom before yellow has three.
    assert state.to_text().splitlines()[2:] == [
        ". . . . . . .",
        "O . . . . . .",
        "O . . . . . .",
        "O . . X X X X",
    ]
    assert text.rstrip().endswith("Game over: Red wins.")
    assert "O . . X X X x\nX (red)  O (yellow)  |  Red wins  |  last move: g" in text


def test_connect_four_full_column_is_refused():
    session = GameSession.create("connect_four", ("human", "human"))
    for action in [3, 3, 3, 3, 3, 3]:  # column d is full, nobody has four
        session.play(action)
    out: list[str] = []
    game = TextGame(session, script([])[0], out.append)
    assert game.handle("d")
    assert out[0] == "Illegal move: column d is full. Legal moves: a, b, c, e, f, g."
    assert session.ply == 6
