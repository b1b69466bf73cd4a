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
    assert prompts[-2] == "X to move [a2, c2, a3, b3, c3]> "  # after b2, a1, c1, b1
    # At the end another game is offered; the end of input stops there.
    assert prompts[-1] == "Type 'new' for another game, 'undo' to take back, or 'quit'> "


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


def test_the_symbols_are_explained_at_the_start_and_in_help():
    _, text = play("reversi", ("human", FirstMoveAgent()), ["help"], options={"board_size": 6})
    key = (
        "Symbols: X = Black, O = White, . = empty, * = a legal move for the side to move, "
        "x or o = the piece just placed."
    )
    lines = text.splitlines()
    assert lines[0].startswith("Reversi 6x6: Black = X (You), White = O (first).")
    assert lines[1] == key  # before the first board
    assert lines.count(key) == 2  # and again in help
    # What the key says holds on the board: '*' on Black's four legal squares at the start...
    board = lines[2:9]
    assert board[2] == "2 . . * . . ." and board[3] == "3 . * O X . ."
    # ... and the piece just placed in lower case, in the agent's reply below.
    _, text = play("reversi", ("human", FirstMoveAgent()), ["c2"], options={"board_size": 6})
    assert "White (first) plays b2." in text
    assert "2 * o X . . ." in text.splitlines()


def test_tictactoe_key_has_no_legal_move_mark():
    # Every empty square is a legal move in TicTacToe, so the board has no '*' to explain, and
    # the symbols are the sides' names.
    _, text = play("tictactoe", ("human", "human"), ["b2"])
    assert text.splitlines()[1] == "Symbols: . = empty, x or o = the piece just placed."
    assert "*" not in text
    assert "2 . x ." in text.splitlines()  # b2, just placed by X


def test_new_starts_again_with_the_same_players_and_options():
    # b3 and White's reply, then a new game: the 6x6 start again, Black (the human) to move.
    lines = ["b3", "new", "d5", "quit"]
    read, prompts = script(lines)
    out: list[str] = []
    agent = ResettableAgent()
    state = run_text_ui(
        "reversi", ("human", agent), options={"board_size": 6}, input_fn=read, output=out.append
    )
    text = "\n".join(out)
    assert "New game: Black (You) moves first." in text
    start = "Black to move [c2, b3, e4, d5]> "
    assert prompts[0] == start and prompts[2] == start
    assert agent.resets == 1  # the agent forgot the first game
    assert isinstance(state, ReversiState) and state.size == 6
    assert state.disc_counts() == (3, 3)  # d5 and White's reply in the new game only
    assert (
        "new (start a new game, same players)" in play("tictactoe", ("human", "human"), ["help"])[1]
    )


def test_new_after_the_end_plays_another_game():
    # X wins with b2, c1, a3 against an agent playing the lowest square; then another game.
    lines = ["b2", "c1", "a3", "new", "a1", "quit"]
    read, prompts = script(lines)
    out: list[str] = []
    state = run_text_ui("tictactoe", ("human", FirstMoveAgent()), input_fn=read, output=out.append)
    text = "\n".join(out)
    assert "Game over: X wins." in text
    assert prompts[3] == "Type 'new' for another game, 'undo' to take back, or 'quit'> "
    assert isinstance(state, TicTacToeState) and not state.is_terminal()
    assert state.x == 1 and state.o == 2  # a1, and the agent's b1, in the second game
    assert text.rstrip().endswith("Game abandoned.")


def test_agents_are_prepared_once_before_their_first_move():
    agent = PreparingAgent()
    out: list[str] = []
    read, _ = script(["b2", "c1", "a3", "new", "quit"])
    run_text_ui("tictactoe", ("human", agent), input_fn=read, output=out.append)
    assert agent.events[0] == "prepare tictactoe"  # before any move
    assert agent.events.count("prepare tictactoe") == 1  # not again for the new game
    assert "act" in agent.events
    preparing = out.index("Preparing O (preparing)...")
    assert preparing < min(i for i, line in enumerate(out) if "thinking" in line)
    # Agents with nothing to prepare are not announced.
    _, text = play("tictactoe", ("human", FirstMoveAgent()), [])
    assert "Preparing" not in text


class ResettableAgent(FirstMoveAgent):
    """Plays the lowest legal action and counts the games it was told to forget."""

    def __init__(self) -> None:
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1


class PreparingAgent(FirstMoveAgent):
    """Plays the lowest legal action and logs its prepare() and act() calls."""

    name = "preparing"

    def __init__(self) -> None:
        self.events: list[str] = []

    def prepare(self, game: Any) -> None:
        self.events.append(f"prepare {game.name}")

    def act(self, env: Any) -> int:
        self.events.append("act")
        return super().act(env)
