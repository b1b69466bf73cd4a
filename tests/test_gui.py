"""The pygame window, driven headless by posted mouse and key events (SDL's dummy video driver)."""

from __future__ import annotations

import os

from boardzoo.agents.settings import Budget

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pygame
import pytest

from boardzoo.agents import Agent, MCTSAgent
from boardzoo.agents.base import env_state
from boardzoo.envs.board_geometry import marker_legend
from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.ui import GameWindow, NoDisplayError, display_problem, replay_game, run_gui

# Black must pass after these moves on 4x4 (White holds the rest of the reachable squares).
BLACK_MUST_PASS_4X4 = [4, 0, 14, 13, 8, 12, 1, 2]


class FirstMoveAgent(Agent):
    """Plays the lowest legal action, counting its calls. ``gated``: act() answers only once the
    test opens ``gate``, so that the test, not the clock, says how long the agent thinks."""

    name = "first"

    def __init__(self, gated: bool = False) -> None:
        self.gate = threading.Event()
        if not gated:
            self.gate.set()
        self.calls = 0
        self.threads: list[str] = []

    def act(self, env: Any) -> int:
        self.calls += 1
        self.threads.append(threading.current_thread().name)
        # The timeout only ends the thread of a test that failed before opening the gate.
        assert self.gate.wait(timeout=120), "the test never opened the gate"
        return env_state(env).legal_actions()[0]


@pytest.fixture
def make_window():
    windows: list[GameWindow] = []

    def make(game: str, players: tuple, **options: Any) -> GameWindow:
        options.setdefault("fps", 240)
        options.setdefault("screen_size", 360)
        window = GameWindow(game, players, **options)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


def click(window: GameWindow, row: int, col: int) -> None:
    """Post a left click on the centre of a square."""
    pos = window.geometry.square_center(row, col)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))


def press(key: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""))


def run_until(window: GameWindow, done: Callable[[], bool], max_frames: int = 600) -> int:
    """Step until ``done()``; fail after ``max_frames``. Returns the frames it took."""
    for frame in range(max_frames):
        window.step()
        if done():
            return frame + 1
    raise AssertionError(f"not done after {max_frames} frames")


def human_to_move(window: GameWindow) -> Callable[[], bool]:
    return lambda: window.session.is_human_turn() and not window.thinking


def test_tictactoe_game_against_an_agent_until_the_banner(make_window):
    agent = FirstMoveAgent()
    window = make_window("tictactoe", ("human", agent))
    window.step()
    click(window, 1, 1)  # X in the centre (action 4)
    run_until(window, lambda: window.session.ply == 2)
    assert window.session.actions == [4, 0]  # the agent answered in a1
    assert agent.threads == ["boardzoo-ai"]  # act() ran in the background thread

    click(window, 0, 0)  # taken by O: refused with a message in the window
    window.step()
    assert window.session.ply == 2
    assert window.message == "Illegal move: a1 is taken"
    before = window.screenshot()

    click(window, 0, 2)  # X: 4, 2; O: 0, then 1; X completes the 2-4-6 diagonal
    run_until(window, lambda: window.session.ply == 4)
    assert window.session.actions[-1] == 1
    assert window.banner_frames == 0
    click(window, 2, 0)
    run_until(window, lambda: window.banner_frames >= 2)

    state = window.session.state
    assert state.is_terminal() and state.winner == 0
    assert agent.calls == 2
    # The banner darkens the middle of the board, which was light before.
    x, y = window.geometry.square_center(1, 0)
    after = window.screenshot()
    assert before[y, x - 30].mean() > 200
    assert after[y, x - 30].mean() < 90
    click(window, 2, 2)  # clicks after the end are refused
    window.step()
    assert "game is over" in window.message


def test_clicks_while_the_agent_thinks_are_refused_and_frames_keep_coming(make_window):
    agent = FirstMoveAgent(gated=True)
    window = make_window("tictactoe", (agent, "human"), fps=60)
    run_until(window, lambda: window.thinking)
    click(window, 1, 1)
    press(pygame.K_a)  # keys are handled at once, the search going on
    window.step()
    assert window.messages[-2:] == ["Please wait: X is thinking", "Analysis on"]
    assert window.analysis is True
    # Frames go on while act() runs (it waits for the gate): the window stays responsive, and
    # the move waits for act()'s answer.
    before = window.frames
    for _ in range(20):
        window.step()
    assert window.frames == before + 20 and window.thinking_frames >= 20 + 2
    assert window.thinking and window.session.ply == 0 and agent.calls == 1
    agent.gate.set()
    run_until(window, lambda: window.session.ply == 1, max_frames=400)
    assert window.session.state.square_owner(0, 0) == 0


def test_undo_goes_back_to_the_humans_previous_turn(make_window):
    window = make_window("tictactoe", (FirstMoveAgent(), "human"))
    run_until(window, human_to_move(window))
    assert window.session.actions == [0]
    click(window, 1, 1)
    run_until(window, lambda: window.session.ply == 3)
    assert window.session.actions == [0, 4, 1]

    press(pygame.K_u)
    window.step()
    assert window.session.actions == [0]  # the human's move and the answer are taken back
    assert window.session.is_human_turn()
    press(pygame.K_u)  # the start is the agent's turn: nothing to go back to
    window.step()
    assert window.message == "Nothing to undo"
    assert window.session.actions == [0]

    click(window, 2, 2)
    run_until(window, lambda: window.session.ply == 3)
    assert window.session.actions == [0, 8, 1]
    press(pygame.K_n)
    run_until(window, lambda: window.session.ply == 1)  # a new game: the agent opens again
    assert window.session.actions == [0]


def test_undo_while_the_agent_thinks_drops_its_move(make_window):
    agent = FirstMoveAgent(gated=True)
    window = make_window("tictactoe", ("human", agent), fps=120)
    window.step()
    click(window, 1, 1)
    run_until(window, lambda: window.thinking)
    press(pygame.K_u)
    window.step()
    assert window.session.actions == []
    agent.gate.set()  # the agent answers only now, after the undo
    run_until(window, lambda: not window.thinking, max_frames=200)
    assert window.session.actions == []  # the stale answer was not played
    assert agent.calls == 1


def test_reversi_pass_button(make_window):
    window = make_window("reversi", ("human", "human"), options={"board_size": 4})
    assert window._pass_button_rect() is None
    for action in BLACK_MUST_PASS_4X4:
        window.session.play(action)
    window.step()
    state = window.session.state
    assert isinstance(state, ReversiState) and state.must_pass()
    click(window, 0, 3)  # an empty square: refused, pass instead
    window.step()
    assert "press Pass" in window.message
    button = window._pass_button_rect()
    assert button is not None and button.top >= window.panel_top  # drawn below the board
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=button.center, button=1))
    window.step()
    assert window.session.last_action == 16
    assert window.session.state.current_player == 1
    assert window._pass_button_rect() is None


def test_reversi_illegal_square_and_quit_key(make_window):
    window = make_window("reversi", ("human", "human"))
    window.step()
    click(window, 0, 0)  # a1 flips nothing
    window.step()
    assert window.message.startswith("Illegal move: a1")
    click(window, 2, 3)  # d3
    window.step()
    assert window.session.actions == [19]
    press(pygame.K_ESCAPE)
    assert window.step() is False


def test_analysis_overlay_shows_the_search(make_window):
    agent = MCTSAgent(budget=Budget(simulations=400), seed=0)
    agent.prepare(make_game("reversi", board_size=6))  # a cold compile outside the frame count
    window = make_window("reversi", ("human", agent), options={"board_size": 6}, analysis=False)
    window.step()
    click(window, 1, 2)  # c2
    # Frames go on while MCTS searches.
    run_until(window, human_to_move(window), max_frames=5000)
    info = agent.last_search
    assert info is not None
    assert "White played" in window._status_line()[0]
    assert "win rate" in window._status_line()[0]
    plain = window.screenshot()
    press(pygame.K_a)
    window.step()
    shown = window.screenshot()
    assert window.analysis
    # Every candidate of the search but the move played is an empty square, now with a tag.
    size = 6
    for move in info.moves:
        if move.action in (info.action, size * size) or move.visits == 0:
            continue
        x, y = window.geometry.square_center(*divmod(move.action, size))  # Reversi's layout
        patch = np.s_[y - 8 : y + 8, x - 8 : x + 8]
        assert not np.array_equal(plain[patch], shown[patch])


def test_analysis_leaves_the_humans_legal_moves_in_sight(make_window):
    agent = MCTSAgent(budget=Budget(simulations=400), seed=0)
    agent.prepare(make_game("reversi", board_size=6))  # a cold compile outside the frame count
    window = make_window("reversi", ("human", agent), options={"board_size": 6}, analysis=True)
    for action in [27, 26, 19, 16, 10, 4, 5, 9, 8]:  # a middle game, White (the agent) to move
        window.session.play(action)
    run_until(window, human_to_move(window), max_frames=5000)
    info = agent.last_search
    shown = window.screenshot()
    window.analysis = False
    plain = window.screenshot()
    size, cell = 6, window.geometry.cell
    tagged = {m.action for m in info.moves if m.visits and m.action not in (info.action, 36)}
    legal = set(window.session.state.legal_actions())
    assert len(legal & tagged) >= 2, "too few tags on legal squares: the test shows little"
    board = plain[window.geometry.square_center(0, 0)[::-1]].astype(int)  # a1: empty, no move
    for action in legal:
        x, y = window.geometry.square_center(*divmod(action, size))
        if action in tagged:  # the tag is there, in the middle of the square
            assert not np.array_equal(
                shown[y - 4 : y + 4, x - 4 : x + 4], plain[y - 4 : y + 4, x - 4 : x + 4]
            )
        # Black's ring, dark, in the outer part of the square, is not covered by the tag.
        outer = np.s_[y, x + round(cell * 0.36) : x + round(cell * 0.48)]
        assert (plain[outer].astype(int).sum(axis=1) < board.sum() - 100).any(), action
        assert np.array_equal(shown[outer], plain[outer]), action
        for dx, dy in ((0, -1), (-1, 0), (0, 1)):  # the other sides too
            x1, y1 = x + dx * round(cell * 0.42), y + dy * round(cell * 0.42)
            patch = np.s_[y1 - 2 : y1 + 3, x1 - 2 : x1 + 3]
            assert np.array_equal(shown[patch], plain[patch]), action


def test_run_gui_between_two_agents_ends_the_game():
    state = run_gui(
        "tictactoe", ("random", "random"), seed=3, screen_size=240, max_frames=60, watch_delay=0
    )
    assert isinstance(state, TicTacToeState)
    assert state.is_terminal()
    assert not pygame.display.get_init()  # the window is closed


def test_bad_players_are_refused():
    with pytest.raises(ValueError, match="two players"):
        GameWindow("tictactoe", ("human",))
    with pytest.raises(ValueError, match="unknown agent"):
        GameWindow("tictactoe", ("human", "nobody"))


def test_connect_four_clicks_drop_in_the_column(make_window):
    window = make_window("connect_four", ("human", "human"))
    window.step()
    assert window._pass_button_rect() is None  # no passes in Connect Four
    width, height = window.renderer.window_size
    assert width > height - window.geometry.status_height  # 7 columns by 6 rows
    click(window, 0, 3)  # the top of column d: the disc falls to the bottom
    window.step()
    assert window.session.actions == [3]
    assert window.session.state.square_owner(5, 3) == 0
    click(window, 2, 3)  # anywhere in the column
    window.step()
    assert window.session.actions == [3, 3]
    assert window.session.state.square_owner(4, 3) == 1
    # The hover outline shows where a click would land: the next free cell of the column.
    assert window.hover_square(window.geometry.square_center(0, 3)) == (3, 3)
    assert window.hover_square(window.geometry.square_center(1, 6)) == (5, 6)
    assert window.hover_square((2, 2)) is None  # off the board
    for _ in range(4):
        click(window, 5, 3)
        window.step()
    assert window.session.ply == 6
    click(window, 1, 3)  # column d is full now
    window.step()
    assert window.session.ply == 6
    assert window.message == "Illegal move: column d is full"
    assert window.hover_square(window.geometry.square_center(1, 3)) is None


def test_connect_four_game_against_an_agent_until_the_banner(make_window):
    agent = FirstMoveAgent()  # plays column a each time
    window = make_window("connect_four", ("human", agent))
    window.step()
    for col in (3, 4, 5):
        click(window, 0, col)
        run_until(window, human_to_move(window))
    assert window.session.actions == [3, 0, 4, 0, 5, 0]
    assert "Yellow played a" in window._status_line()[0]
    click(window, 3, 6)
    run_until(window, lambda: window.banner_frames >= 2)
    state = window.session.state
    assert isinstance(state, ConnectFourState) and state.winner == 0
    assert state.winning_line() == ((5, 3), (5, 4), (5, 5), (5, 6))
    assert window._status_line() == ("Game over: Red wins", (244, 196, 70))
    shot = window.screenshot()
    assert shot.shape == (*window.size[::-1], 3)


def test_display_problem_reads_the_environment(monkeypatch):
    linux = {"DISPLAY": ":0"}
    assert display_problem(linux, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({}, "linux") == "no display: DISPLAY and WAYLAND_DISPLAY are not set"
    assert display_problem({"DISPLAY": ""}, "freebsd14") is not None
    for driver in ("dummy", "offscreen", "Dummy", "offscreen,dummy"):
        problem = display_problem({"DISPLAY": ":0", "SDL_VIDEODRIVER": driver}, "linux")
        assert problem == f"no display: SDL_VIDEODRIVER={driver} shows no window"
        assert display_problem({"SDL_VIDEODRIVER": driver}, "darwin") is not None
    assert display_problem({}, "darwin") is None  # macOS and Windows always have one
    assert display_problem({}, "win32") is None
    assert display_problem({"SDL_VIDEODRIVER": "kmsdrm"}, "linux") is None  # chosen by hand
    # Without arguments it reads os.environ and sys.platform.
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    assert display_problem() == "no display: DISPLAY and WAYLAND_DISPLAY are not set"
    monkeypatch.setenv("DISPLAY", ":1")
    assert display_problem() is None
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    assert display_problem() == "no display: SDL_VIDEODRIVER=dummy shows no window"


NO_DISPLAY_SCRIPT = """
import sys
from boardzoo.ui import NoDisplayError, replay_game, run_gui
for call in (
    lambda: run_gui("tictactoe", ("human", "random")),
    lambda: replay_game({"game": "tictactoe", "moves": [4, 0]}, ui="window"),
):
    try:
        call()
    except NoDisplayError as error:
        print(f"refused: {error}")
print("pygame imported" if "pygame" in sys.modules else "pygame not imported")
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the display variables are Linux's")
def test_window_interfaces_refuse_quickly_without_a_display():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("SDL_VIDEODRIVER", None)
    result = subprocess.run(
        [sys.executable, "-c", NO_DISPLAY_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,  # a hang, as before, would run into this
        check=False,
    )
    assert result.returncode == 0, result.stderr
    refused = "refused: cannot open a window: no display: DISPLAY and WAYLAND_DISPLAY are not set"
    assert result.stdout.splitlines() == [refused, refused, "pygame not imported"]


def test_a_window_nobody_can_see_is_not_run_forever():
    # Under the dummy driver (as SDL's offscreen fallback without a display), running without
    # a frame limit would wait forever for a click or a close: it is refused at once instead.
    window = GameWindow("tictactoe", ("human", "random"), screen_size=240)
    with pytest.raises(NoDisplayError, match="no display: SDL found none and runs its 'dummy'"):
        window.run()
    assert not window.running and not pygame.display.get_init()
    with pytest.raises(NoDisplayError, match="SDL_VIDEODRIVER=dummy shows no window"):
        run_gui("tictactoe", ("human", "random"))  # refused before a window opens
    with pytest.raises(NoDisplayError, match="SDL_VIDEODRIVER=dummy"):
        replay_game({"game": "tictactoe", "moves": [4]}, ui="window")
    assert not pygame.display.get_init()
    # With a frame limit it ends on its own, so it runs (scripted, headless).
    record = {"game": "tictactoe", "moves": [4]}
    state = replay_game(record, ui="window", delay=0, hold=False, max_frames=30)
    assert state.square_owner(1, 1) == 0


class SlowToPrepare(FirstMoveAgent):
    """Prepares until the test opens ``ready``, logging its prepare() and act() calls."""

    name = "slow"

    def __init__(self) -> None:
        super().__init__()
        self.ready = threading.Event()
        self.events: list[str] = []

    def prepare(self, game: Any) -> None:
        self.events.append(f"prepare {game.label}")
        # The timeout only ends the thread of a test that failed before opening ``ready``.
        assert self.ready.wait(timeout=120), "the test never let the agent get ready"
        self.events.append("prepared")

    def act(self, env: Any) -> int:
        self.events.append("act")
        return super().act(env)


def test_agents_prepare_before_their_first_move_while_the_window_draws(make_window):
    agent = SlowToPrepare()
    window = make_window("tictactoe", (agent, "human"), fps=60)
    for _ in range(10):  # the window keeps drawing meanwhile, and the agent does not move
        window.step()
    assert window.preparing and window.frames == 10 and window.session.ply == 0
    assert agent.events == ["prepare tictactoe"]
    agent.ready.set()
    run_until(window, lambda: not window.preparing, max_frames=400)
    assert window.messages == []
    run_until(window, lambda: window.session.ply == 1)
    assert agent.events == ["prepare tictactoe", "prepared", "act"]
    press(pygame.K_n)  # a new game: no second preparation
    run_until(window, lambda: window.session.ply == 1)
    assert agent.events.count("prepared") == 1


def test_the_panel_says_preparing(make_window):
    agent = SlowToPrepare()
    window = make_window("tictactoe", ("human", agent))
    window.step()
    assert window.preparing
    text, _ = window._status_line()
    assert text.startswith("Preparing O (slow) (") and text.endswith("Your move (X)")
    click(window, 1, 1)  # the human may move meanwhile; the agent answers once prepared
    window.step()
    assert window.session.ply == 1 and window.preparing
    agent.ready.set()
    run_until(window, lambda: window.session.ply == 2, max_frames=600)
    assert agent.events[:2] == ["prepare tictactoe", "prepared"]


@pytest.mark.parametrize("game", ["reversi", "connect_four", "tictactoe"])
def test_the_legend_names_the_markers_as_drawn(make_window, game):
    window = make_window(game, ("human", "human"), screen_size=480)
    state = window.session.state
    first = state.legal_actions()[0]
    window.session.play(first)
    shot = window.screenshot()
    legend = marker_legend(window.session.game)
    assert window.legend() == [(legend, (150, 154, 162))]
    square = window.session.state.placed_square(first)
    x, y = window.geometry.square_center(*square)
    last = shot[y, x].astype(int)
    if "red dot: last move" in legend:
        assert last[0] > 180 and last[1] < 90 and last[2] < 90
    elif "white dot: last move" in legend:
        assert last.min() > 200
    else:
        assert "yellow square: last move" in legend
        corner = shot[y - window.geometry.cell // 3, x - window.geometry.cell // 3].astype(int)
        assert corner[0] > 230 and corner[1] > 220 and corner[2] < 190  # a lit square
    assert ("rings: legal moves" in legend) == (game != "tictactoe")
    assert ("star points" in legend) == (game == "reversi")


def test_the_analysis_legend_is_shown_with_the_analysis(make_window):
    window = make_window("reversi", ("human", "human"), options={"board_size": 6})
    plain = window.screenshot()
    window.analysis = True
    shown = window.screenshot()
    text = "".join(piece for piece, _ in window.legend())
    assert "of its search" in text and "its win rate" in text and "its move" in text
    legend_rows = np.s_[window.size[1] - window._legend_height :]
    assert not np.array_equal(plain[legend_rows], shown[legend_rows])
    assert np.array_equal(plain[: window.panel_top], shown[: window.panel_top])  # no analysis yet
    assert make_game("reversi", board_size=6) is window.session.game
