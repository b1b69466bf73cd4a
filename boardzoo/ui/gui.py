"""Play against the AI in a pygame window, any game of the catalog.

    run_gui("reversi", ("human", "mcts:time_limit=1"), options={"board_size": 6})
    run_gui("tictactoe", ("mcts", "human"), analysis=True)
    run_gui("connect_four", ("human", "alphabeta"))

The board is drawn by the envs' :class:`~boardzoo.envs.pygame_render.BoardRenderer`
(legal-move rings, last-move marker, piece counts and whose turn it is); this module composes on
top of that picture: an outline of the square a click would fill, the AI's analysis, a game-over
banner and a panel below the board with messages, a Pass button (in games with passes) and a
progress indicator while the AI thinks. Everything about the game comes from its contract: a
click on a square plays ``game.square_action(row, col)`` (in Connect Four, anywhere in a column
drops a disc in it).

Controls: click a square to move, **N** new game, **U** undo (back to your previous turn),
**A** show or hide the AI's analysis, **P** pass, **Esc** or **Q** quit.

What is drawn: a hollow ring (Reversi, Connect Four) or a faint outline (TicTacToe) on each
square where the side to move may play; a dot on the last piece placed (a lit square in
TicTacToe); the small filled dots on Reversi's grid crossings are only star points. The AI's
analysis (key A) puts a round chip on each square its last search considered: the share of the
search's visits that went to the move (large) and the move's win rate for the AI (small; green
when high, red when low; WIN or LOSS when proven). The move it played gets a gold outline and
its figures in a band. A line at the bottom of the window says all this while it is on screen.

The analysis stays on during the human's turn, the only time it can be read in a game against
the AI (it belongs to the position before the AI's move, so it is shown while that move is the
last one played). Each chip therefore fits inside its square's legal-move marker, which stays
in sight: the human sees both the AI's figures and where they may move.

When the window opens, the agents get ready (:meth:`~boardzoo.agents.Agent.prepare`: compiling
or loading their search) in a background thread while the panel says "Preparing ..."; no agent
moves before that is done, so its first move does not include a compile.

The AI's ``act()`` runs in a background thread (the compiled searches release the GIL) while the
window keeps drawing about 30 frames a second, so it stays responsive. Only ``pygame.display``
and ``pygame.font`` are initialised (``pygame.init()`` would also open the audio device).

Without a display nothing is opened: :func:`run_gui` raises :class:`~boardzoo.ui.display.
NoDisplayError` (SDL would otherwise fall back to an invisible ``offscreen`` window and wait
forever for a click).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from boardzoo.agents.base import Agent
from boardzoo.envs.board_geometry import hint_clearance, marker_legend
from boardzoo.envs.pygame_render import BoardRenderer, import_pygame
from boardzoo.games.state import BoardState
from boardzoo.ui.display import NoDisplayError, display_problem
from boardzoo.ui.players import (
    GameSession,
    PlayerSpec,
    describe_search,
    game_title,
    move_name,
    result_text,
    why_illegal,
)
from boardzoo.ui.window import WindowLoop

__all__ = ["GameWindow", "run_gui"]

Color = tuple[int, int, int]

_PANEL_BG: Color = (26, 28, 32)
_PANEL_LINE: Color = (52, 56, 62)
_TEXT: Color = (236, 236, 236)
_DIM: Color = (150, 154, 162)
_ERROR: Color = (255, 120, 104)
_ACCENT: Color = (244, 196, 70)
_BUTTON: Color = (244, 196, 70)
_BUTTON_TEXT: Color = (30, 30, 30)
_BAR_BG: Color = (60, 64, 72)
_HOVER: Color = (255, 255, 255)
_LOSS: Color = (255, 122, 108)
_WIN: Color = (120, 224, 140)
_MESSAGE_SECONDS = 4.0


def _value_colour(value: float) -> Color:
    """Green for a likely win, red for a likely loss, amber around even (value in [0, 1])."""
    if value >= 0.55:
        return _WIN
    if value <= 0.45:
        return _LOSS
    return _ACCENT


class _BackgroundJob:
    """Work running in a background thread: the main thread polls ``done`` (it keeps drawing
    meanwhile) and raises ``error`` if the work failed."""

    thread_name = "boardzoo-job"

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.error: BaseException | None = None
        self.done = threading.Event()

    def work(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        threading.Thread(target=self._run, name=self.thread_name, daemon=True).start()

    def _run(self) -> None:
        try:
            self.work()
        except BaseException as error:  # handed to the main thread, which raises it
            self.error = error
        finally:
            self.done.set()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started


class _AIJob(_BackgroundJob):
    """One call of an agent's ``act()``."""

    thread_name = "boardzoo-ai"

    def __init__(self, agent: Agent, state: BoardState, generation: int) -> None:
        super().__init__()
        self.agent, self.state, self.generation = agent, state, generation
        self.action: int | None = None

    def work(self) -> None:
        self.action = int(self.agent.act(self.state))


class _PrepareJob(_BackgroundJob):
    """The agents' :meth:`~boardzoo.agents.Agent.prepare`, before their first move."""

    thread_name = "boardzoo-prepare"

    def __init__(self, session: GameSession, who: str) -> None:
        super().__init__()
        self.session = session
        self.who = who  # "White (mcts:time_limit=1)", for the panel

    def work(self) -> None:
        self.session.prepare()


@dataclass(frozen=True)
class _Analysis:
    """An agent's root statistics for the position before its move ``ply``."""

    ply: int  # the analysed position is states[ply]; the agent's move leads to states[ply + 1]
    player: int
    moves: tuple[Any, ...]  # MoveStats: action, visits, mean_value, proven


class GameWindow:
    """A game between humans and agents in a pygame window.

    Build it, then either call :meth:`run` (until the window is closed) or drive it one frame at
    a time with :meth:`step`, as the tests do. ``fps`` caps the frame rate; ``watch_delay`` is the
    least time each position stays on screen when no human plays.

    Attributes useful for inspection: ``session`` (the :class:`GameSession`), ``message`` (the
    last message shown), ``messages`` (every message shown, oldest first), ``frames`` (frames
    drawn), ``thinking_frames`` (frames drawn while an agent was thinking) and ``banner_frames``
    (frames showing the game-over banner).
    """

    def __init__(
        self,
        game: str,
        players: Sequence[PlayerSpec],
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        analysis: bool = False,
        screen_size: int = 560,
        fps: int = 30,
        watch_delay: float = 0.5,
    ) -> None:
        self.session = GameSession.create(game, players, options=options, seed=seed)
        self.analysis = analysis
        self.watch_delay = watch_delay
        self.renderer = BoardRenderer("rgb_array", screen_size=screen_size, game=self.session.game)
        self.pg = import_pygame()
        self.geometry = self.renderer.geometry
        width, board_height = self.renderer.window_size
        self._panel_main = max(54, screen_size // 8)  # the status and players lines
        self._legend_height = max(18, screen_size // 24)  # the legend line below them
        self.panel_height = self._panel_main + self._legend_height
        self.size = (width, board_height + self.panel_height)
        self.panel_top = board_height
        self.message = ""
        self.messages: list[str] = []
        self.thinking_frames = 0
        self.banner_frames = 0
        self._message_error = False
        self._message_time = -math.inf
        self._generation = 0
        self._job: _AIJob | None = None
        self._analysis: _Analysis | None = None
        self._position_shown_at = time.perf_counter()
        self._board_surface: Any = None
        self._board_key: tuple[int, int] | None = None
        self._fonts: dict[int, Any] = {}
        names, labels = self.session.names, self.session.labels
        caption = f"boardzoo {game_title(self.session.game)}: {names[0]} {labels[0]} vs "
        self.loop = WindowLoop(self.size, f"{caption}{names[1]} {labels[1]}", fps)
        self._screen = self.loop.screen
        self._prepare: _PrepareJob | None = None
        waiting = self.session.unprepared()
        if waiting:  # compile or load in the background, the window drawing meanwhile
            self._prepare = _PrepareJob(self.session, " and ".join(waiting))
            self._prepare.start()
        else:
            self.session.prepare()  # nothing slow to do

    # --- window ---------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the window is open and running (false once it is closing)."""
        return self.loop.running

    @property
    def fps(self) -> int:
        """The most frames drawn a second."""
        return self.loop.fps

    @property
    def frames(self) -> int:
        """Frames drawn so far."""
        return self.loop.frames

    def close(self) -> None:
        """Close the window. A search still running finishes in the background, unused."""
        self.loop.close()
        self.renderer.close()

    def _font(self, size: int) -> Any:
        if size not in self._fonts:
            self._fonts[size] = self.pg.font.Font(None, size)
        return self._fonts[size]

    # --- the loop -------------------------------------------------------------------------------

    def run(self, max_frames: int | None = None) -> BoardState:
        """Play until the window is closed (or ``max_frames`` frames); returns the position.

        Without ``max_frames`` the window must be one a person can see and close: under SDL's
        ``dummy`` or ``offscreen`` driver it is closed again and :class:`NoDisplayError` raised,
        rather than waiting forever for events that cannot come.
        """
        self.loop.run(self, max_frames)
        return self.session.state

    def step(self) -> bool:
        """Handle pending events, move the game on, draw one frame; ``False`` once closing."""
        return self.loop.step(self)

    def update(self) -> None:
        """Move the game on by a frame: collect a finished search or start one."""
        self._update_ai()

    def draw_frame(self) -> bool:
        """Draw the whole window for the loop (which then flips it)."""
        self.draw()
        return True

    def handle_event(self, event: Any) -> None:
        """React to one pygame event: a click or a key (:class:`~boardzoo.ui.window.WindowLoop`
        handles closing the window, Esc and Q)."""
        pg = self.pg
        if event.type == pg.KEYDOWN:
            self._key(event.key)
        elif event.type == pg.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
            self.click(event.pos)

    def _key(self, key: int) -> None:
        pg = self.pg
        if key == pg.K_n:
            self.new_game()
        elif key == pg.K_u:
            self.undo()
        elif key == pg.K_a:
            self.analysis = not self.analysis
            self.say(f"Analysis {'on' if self.analysis else 'off'}")
        elif key == pg.K_p:
            self._try_pass()

    # --- actions --------------------------------------------------------------------------------

    def say(self, text: str, error: bool = False) -> None:
        """Show ``text`` in the panel for a few seconds (in red when ``error``)."""
        self.message = text
        self.messages.append(text)
        self._message_error = error
        self._message_time = time.perf_counter()

    def new_game(self) -> None:
        """Start again from the initial position."""
        self._generation += 1
        self.session.new_game()
        self._analysis = None
        self._position_changed()
        self.say("New game")

    def undo(self) -> None:
        """Take moves back to the human's previous turn (an unfinished search is dropped)."""
        if not self.session.undo():
            self.say("Nothing to undo", error=True)
            return
        self._generation += 1
        if self._analysis is not None and self._analysis.ply >= self.session.ply:
            self._analysis = None
        self._position_changed()
        self.say(f"Undone: back to move {self.session.ply + 1}")

    def click(self, pos: tuple[int, int]) -> None:
        """A left click at pixel ``pos``: the move ``game.square_action`` gives the square under
        it, or the Pass button."""
        session = self.session
        button = self._pass_button_rect()
        if button is not None and button.collidepoint(pos):
            self._try_pass()
            return
        square = self.renderer.square_at(pos)
        action = None if square is None else session.game.square_action(*square)
        if action is None:
            return
        if session.is_over():
            self.say("The game is over: N for a new game, U to undo", error=True)
            return
        if not session.is_human_turn():
            self.say(f"Please wait: {session.side()} is thinking", error=True)
            return
        state = session.state
        if state.is_legal(action):
            self._play(action)
        elif state.must_pass():
            self.say("Illegal move: you have no legal move, press Pass", error=True)
        else:
            self.say(f"Illegal move: {why_illegal(state, action)}", error=True)

    def _try_pass(self) -> None:
        pass_action = self.session.game.pass_action
        if pass_action is None or not self.session.is_human_turn():
            return
        if self.session.state.is_legal(pass_action):
            self._play(pass_action)
        else:
            self.say("You can only pass when you have no legal move", error=True)

    def _play(self, action: int) -> None:
        self.session.play(action)
        self._position_changed()
        self.message = ""

    def _position_changed(self) -> None:
        self._board_key = None
        self._position_shown_at = time.perf_counter()

    # --- the AI -----------------------------------------------------------------------------

    @property
    def preparing(self) -> bool:
        """Whether the agents are still getting ready (no agent moves until they are)."""
        prepare = self._prepare
        if prepare is None:
            return False
        if not prepare.done.is_set():
            return True
        self._prepare = None
        if prepare.error is not None:
            raise RuntimeError(f"preparing {prepare.who} failed") from prepare.error
        return False

    def _update_ai(self) -> None:
        """Collect a finished search, or start one when an agent is to move (once prepared)."""
        if self.preparing:
            return
        job = self._job
        if job is not None and job.done.is_set():
            self._job = None
            if job.error is not None:
                raise RuntimeError(f"{job.agent!r} failed to choose a move") from job.error
            if job.generation == self._generation and job.state is self.session.state:
                self._agent_moved(job)
        agent = self.session.agent_to_move()
        if agent is None or self._job is not None:
            return
        if not self.session.has_human():
            waited = time.perf_counter() - self._position_shown_at
            if waited < self.watch_delay:
                return
        self._job = _AIJob(agent, self.session.state, self._generation)
        self._job.start()

    def _agent_moved(self, job: _AIJob) -> None:
        session = self.session
        assert job.action is not None
        ply, player = session.ply, session.mover
        moves = getattr(getattr(job.agent, "last_search", None), "moves", None)
        self._analysis = _Analysis(ply, player, tuple(moves)) if moves else None
        session.play(job.action)
        self._position_changed()
        self.message = ""

    @property
    def thinking(self) -> bool:
        """Whether an agent's search is running."""
        return self._job is not None

    # --- drawing ----------------------------------------------------------------------------

    def draw(self) -> None:
        """Draw the whole window (without flipping it)."""
        screen = self._screen
        screen.fill(_PANEL_BG)
        screen.blit(self._board_picture(), (0, 0))
        self._hover()
        if self.analysis:
            self._draw_analysis()
        if self.session.is_over():
            self._banner()
            self.banner_frames += 1
        self._panel()
        if self.thinking:
            self.thinking_frames += 1

    def screenshot(self) -> Any:
        """The window as an ``(H, W, 3)`` uint8 array (draws a frame first)."""
        import numpy as np

        self.draw()
        pixels = self.pg.surfarray.array3d(self._screen)
        return np.ascontiguousarray(pixels.transpose(1, 0, 2))

    def _board_picture(self) -> Any:
        """The renderer's picture of the current position, redrawn only when it changes."""
        key = (self._generation, self.session.ply)
        if self._board_surface is None or self._board_key != key:
            array = self.renderer.render(self.session.state, self.session.last_action)
            assert array is not None  # an rgb_array renderer returns the picture
            surface = self.pg.surfarray.make_surface(array.transpose(1, 0, 2))
            self._board_surface = surface.convert()
            self._board_key = key
        return self._board_surface

    def _hover(self) -> None:
        """On a human's turn, outline the square that a click at the mouse would fill."""
        if not self.session.is_human_turn() or not self.pg.mouse.get_focused():
            return
        target = self.hover_square(self.pg.mouse.get_pos())
        if target is None:
            return
        rect = self.renderer.square_rect(*target).inflate(-4, -4)
        self.pg.draw.rect(self._screen, _HOVER, rect, max(2, self.geometry.cell // 28))

    def hover_square(self, pos: tuple[int, int]) -> tuple[int, int] | None:
        """The square that a click at pixel ``pos`` would fill, ``None`` where it plays nothing."""
        square = self.renderer.square_at(pos)
        action = None if square is None else self.session.game.square_action(*square)
        state = self.session.state
        if action is None or not state.is_legal(action):
            return None
        return state.move_square(action)

    def _draw_analysis(self) -> None:
        """Visit share and win rate of each candidate of the AI's last search, on its square.

        The analysis belongs to the position before the AI's move, so it is shown while that move
        is the last one played. The move played is outlined in the accent colour.
        """
        info = self._analysis
        if info is None or info.ply != self.session.ply - 1:
            return
        analysed = self.session.states[info.ply]  # the squares are those the moves filled there
        tagged = [(m, analysed.move_square(m.action)) for m in info.moves if m.visits > 0]
        total = sum(m.visits for m in info.moves) or 1
        most = max((m.visits for m, square in tagged if square is not None), default=1)
        for move, square in tagged:
            if square is not None:  # a pass has no square
                self._analysis_tag(move, square, move.visits / total, move.visits / most)

    def _analysis_tag(
        self, move: Any, square: tuple[int, int], share: float, relative: float
    ) -> None:
        """One candidate's tag: visit share (large) over win rate (small, coloured).

        The tag fits inside the square's legal-move marker (a ring of :attr:`tag_clearance`
        pixels inside), which therefore stays in sight on the human's turn. The most visited
        candidate's tag has a gold rim. The move played holds a piece now: its square is
        outlined and its figures go in a band along the bottom edge.
        """
        pg = self.pg
        rect = self.renderer.square_rect(*square)
        value = {"win": 1.0, "loss": 0.0, "draw": 0.5}.get(move.proven or "", move.mean_value)
        win_text = move.proven.upper() if move.proven else f"{move.mean_value:.0%}"
        if move.action == self.session.last_action:
            self._played_tag(rect, f"{share:.0%}", win_text, _value_colour(value))
            return
        room = self.tag_clearance  # a rounded box this far from the centre at its corners
        half_w, half_h, corner = room * 22 // 25, room * 17 // 25, room * 9 // 20
        tag = pg.Rect(0, 0, 2 * half_w, 2 * half_h)
        tag.center = rect.center
        overlay = pg.Surface(tag.size, pg.SRCALPHA)
        pg.draw.rect(overlay, (14, 16, 20, 210), overlay.get_rect(), 0, corner)
        if relative >= 1.0:  # the most visited of the moves with a square
            pg.draw.rect(overlay, (*_ACCENT, 255), overlay.get_rect(), 1, corner)
        self._screen.blit(overlay, tag)
        inner = tag.width - 4
        big = self._fit(f"{share:.0%}", inner, max(12, tag.height * 3 // 5), _TEXT, least=10)
        small = self._fit(win_text, inner, max(11, tag.height // 2), _value_colour(value), 9)
        top = tag.centery - (big.get_height() + small.get_height()) // 2 + 1
        self._screen.blit(big, big.get_rect(midtop=(tag.centerx, top)))
        self._screen.blit(small, small.get_rect(midtop=(tag.centerx, top + big.get_height() - 1)))

    @property
    def tag_clearance(self) -> int:
        """How far from a square's centre the analysis tags reach: inside the legal-move
        markers, so that these stay in sight."""
        return max(8, hint_clearance(self.session.game, self.geometry.cell) - 1)

    def _played_tag(self, rect: Any, share: str, win: str, colour: Color) -> None:
        """Outline the square of the move played; its figures in a band along the bottom."""
        pg, cell = self.pg, self.geometry.cell
        pg.draw.rect(self._screen, _ACCENT, rect.inflate(-2, -2), max(2, cell // 24))
        font = self._font(max(12, cell * 3 // 10))
        left, right = self._render(font, f"{share} ", _TEXT), self._render(font, win, colour)
        band = pg.Rect(0, 0, rect.width - 2 * max(2, cell // 24), left.get_height() + 2)
        band.midbottom = (rect.centerx, rect.bottom - max(2, cell // 24))
        overlay = pg.Surface(band.size, pg.SRCALPHA)
        overlay.fill((14, 16, 20, 200))
        self._screen.blit(overlay, band)
        x = band.centerx - (left.get_width() + right.get_width()) // 2
        self._screen.blit(left, left.get_rect(midleft=(x, band.centery)))
        self._screen.blit(right, right.get_rect(midleft=(x + left.get_width(), band.centery)))

    def _banner(self) -> None:
        """The game-over banner across the middle of the board."""
        session, geo = self.session, self.geometry
        state = session.state
        humans = [p for p in (0, 1) if session.players[p] is None]
        if len(humans) == 1 and state.winner is not None:
            title = "You win!" if state.winner == humans[0] else "You lose"
        elif state.winner is None:
            title = "Draw"
        else:
            title = f"{session.names[state.winner]} wins"
        result = result_text(state, session.names)
        keys = "N new game  ·  U undo  ·  Q quit"
        detail = keys if result == title else f"{result}  ·  {keys}"
        height = max(70, geo.board_height // 4)
        band = self.pg.Surface((geo.board_width, height), self.pg.SRCALPHA)
        band.fill((16, 18, 22, 218))
        centre_y = geo.top + geo.board_height // 2
        rect = band.get_rect(center=(geo.left + geo.board_width // 2, centre_y))
        self._screen.blit(band, rect)
        self.pg.draw.line(self._screen, _ACCENT, rect.topleft, rect.topright, 2)
        self.pg.draw.line(self._screen, _ACCENT, rect.bottomleft, rect.bottomright, 2)
        big = self._render(self._font(height * 11 // 20), title, _ACCENT)
        small = self._fit(detail, geo.board_width - 16, max(14, height // 4), _TEXT)
        gap = (height - big.get_height() - small.get_height()) // 3
        self._screen.blit(big, big.get_rect(midtop=(rect.centerx, rect.top + gap)))
        self._screen.blit(small, small.get_rect(midbottom=(rect.centerx, rect.bottom - gap)))

    # --- the panel below the board --------------------------------------------------------------

    def _panel(self) -> None:
        pg, screen = self.pg, self._screen
        width, top, height = self.size[0], self.panel_top, self.panel_height
        pg.draw.rect(screen, _PANEL_BG, (0, top, width, height))
        pg.draw.line(screen, _PANEL_LINE, (0, top), (width, top), 1)
        left = self.geometry.left
        right = width - left
        main = self._panel_main
        line1 = top + main * 7 // 20
        line2 = top + main * 3 // 4
        widget_left = right
        button = self._pass_button_rect()
        if button is not None:
            self._pass_button(button)
            widget_left = button.left - 12
        elif self._job is not None:
            widget_left = self._progress(self._job, right, line1) - 12
        text, colour = self._status_line()
        image = self._fit(text, widget_left - left, max(16, main * 2 // 5), colour)
        screen.blit(image, image.get_rect(midleft=(left, line1)))
        session = self.session
        players = "   ".join(f"{session.names[p]}: {session.labels[p]}" for p in (0, 1))
        keys = "N new  U undo  A analysis  Q quit"
        small = max(13, main * 3 // 10)
        keys_image = self._render(self._font(small), keys, _DIM)
        screen.blit(keys_image, keys_image.get_rect(midright=(right, line2)))
        players_image = self._fit(players, right - left - keys_image.get_width() - 16, small, _DIM)
        screen.blit(players_image, players_image.get_rect(midleft=(left, line2)))
        legend = self._segments(self.legend(), right - left, max(12, self._legend_height * 3 // 4))
        middle = top + main + self._legend_height // 2 - 1
        screen.blit(legend, legend.get_rect(midleft=(left, middle)))

    def legend(self) -> list[tuple[str, Color]]:
        """The legend line as (text, colour) pieces: what the analysis shows while it is on,
        else what the board's markers mean."""
        if self.analysis:
            return [
                ("AI analysis:  ", _DIM),
                ("42%", _TEXT),
                (" of its search  ·  ", _DIM),
                ("57%", _WIN),
                (" its win rate (", _DIM),
                ("high", _WIN),
                ("/", _DIM),
                ("low", _LOSS),
                (")  ·  ", _DIM),
                ("gold", _ACCENT),
                (": its move", _DIM),
            ]
        return [(marker_legend(self.session.game), _DIM)]

    def _status_line(self) -> tuple[str, Color]:
        """The panel's main line: a recent message, else what is going on."""
        if self.message and time.perf_counter() - self._message_time < _MESSAGE_SECONDS:
            return self.message, _ERROR if self._message_error else _TEXT
        session = self.session
        state = session.state
        if state.is_terminal():
            return f"Game over: {result_text(state, session.names)}", _ACCENT
        if self._prepare is not None and not self._prepare.done.is_set():
            who = f"Preparing {self._prepare.who} ({self._prepare.elapsed:.0f} s)…"
            if session.is_human_turn():
                return f"{who}  ·  Your move ({session.side()})", _ACCENT
            return who, _ACCENT
        if self._job is not None:
            if self._job.generation != self._generation:
                return "Waiting for the last search to finish…", _DIM
            return f"{session.side()} is thinking…", _TEXT
        if session.is_human_turn():
            you = "Your move" if sum(p is None for p in session.players) == 1 else "To move"
            prompt = f"{you} ({session.side()})"
            if state.must_pass():
                return f"{prompt}: no legal move, press Pass", _ACCENT
            last = self._last_agent_move()
            return (f"{last}  ·  {prompt}" if last else f"{prompt}: click to play"), _TEXT
        return f"{session.describe_player(session.mover)} to move", _TEXT

    def _last_agent_move(self) -> str:
        """``"White played d3 (win rate 43%)"`` when the last move was an agent's."""
        session = self.session
        if not session.actions or len(session.states) < 2:
            return ""
        before = session.states[-2]
        agent = session.players[before.current_player]
        if agent is None:
            return ""
        name = move_name(before, session.actions[-1])
        text = f"{session.names[before.current_player]} played {name}"
        summary = describe_search(agent)
        if summary and self._analysis is not None and self._analysis.ply == session.ply - 1:
            text += f" ({summary.split(',')[0]})"
        return text

    def _pass_button_rect(self) -> Any:
        """Where the Pass button is, or ``None`` when passing is not the human's only move."""
        pass_action = self.session.game.pass_action
        if pass_action is None or not self.session.is_human_turn():
            return None
        if not self.session.state.is_legal(pass_action):
            return None
        height = self._panel_main * 9 // 20
        rect = self.pg.Rect(0, 0, max(80, height * 3), height)
        rect.midright = (
            self.size[0] - self.geometry.left,
            self.panel_top + self._panel_main * 7 // 20,
        )
        return rect

    def _pass_button(self, rect: Any) -> None:
        self.pg.draw.rect(self._screen, _BUTTON, rect, border_radius=rect.height // 3)
        label = self._render(self._font(rect.height * 3 // 4), "Pass", _BUTTON_TEXT)
        self._screen.blit(label, label.get_rect(center=rect.center))

    def _progress(self, job: _AIJob, right: int, middle: int) -> int:
        """A bar (elapsed vs the agent's time limit) or a spinner; returns its left edge."""
        pg, screen = self.pg, self._screen
        elapsed = job.elapsed
        limit = getattr(job.agent, "time_limit", None)
        font = self._font(max(14, self._panel_main * 3 // 10))
        if limit:
            width, height = max(90, self.size[0] // 4), max(8, self._panel_main // 6)
            bar = pg.Rect(right - width, middle - height // 2, width, height)
            pg.draw.rect(screen, _BAR_BG, bar, border_radius=height // 2)
            filled = bar.copy()
            filled.width = max(height, round(width * min(1.0, elapsed / limit)))
            pg.draw.rect(screen, _ACCENT, filled, border_radius=height // 2)
            label = self._render(font, f"{elapsed:.1f} / {limit:g} s", _DIM)
            screen.blit(label, label.get_rect(midright=(bar.left - 8, middle)))
            return cast(int, bar.left - 8 - label.get_width())
        radius = max(8, self._panel_main // 5)
        centre = (right - radius, middle)
        box = pg.Rect(0, 0, 2 * radius, 2 * radius)
        box.center = centre
        start = (elapsed * 2 * math.pi) % (2 * math.pi)
        pg.draw.circle(screen, _BAR_BG, centre, radius, max(2, radius // 3))
        pg.draw.arc(screen, _ACCENT, box, start, start + 1.6 * math.pi / 2, max(2, radius // 3))
        label = self._render(font, f"{elapsed:.1f} s", _DIM)
        screen.blit(label, label.get_rect(midright=(box.left - 8, middle)))
        return cast(int, box.left - 8 - label.get_width())

    # --- text -----------------------------------------------------------------------------------

    def _render(self, font: Any, text: str, colour: Color) -> Any:
        return font.render(text, True, colour)

    def _fit(self, text: str, width: int, size: int, colour: Color, least: int = 12) -> Any:
        """``text`` at ``size`` pixels, or smaller (down to ``least``) so that it fits ``width``."""
        while True:
            image = self._render(self._font(size), text, colour)
            if image.get_width() <= width or size <= least:
                return image
            size -= 1

    def _segments(self, pieces: list[tuple[str, Color]], width: int, size: int) -> Any:
        """Pieces of text in their colours on one line, at ``size`` or smaller to fit ``width``."""
        while True:
            images = [self._render(self._font(size), text, colour) for text, colour in pieces]
            total = sum(image.get_width() for image in images)
            if total <= width or size <= 10:
                break
            size -= 1
        height = max(image.get_height() for image in images)
        line = self.pg.Surface((max(1, total), height), self.pg.SRCALPHA)
        x = 0
        for image in images:
            line.blit(image, (x, (height - image.get_height()) // 2))
            x += image.get_width()
        return line


def run_gui(
    game: str,
    players: Sequence[PlayerSpec],
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    analysis: bool = False,
    screen_size: int = 560,
    max_frames: int | None = None,
    watch_delay: float = 0.5,
) -> BoardState:
    """Play ``game`` in a window until it is closed; returns the last position.

    Args:
        game: a catalog game, such as ``"reversi"``, ``"tictactoe"`` or ``"connect_four"``.
        players: first to move first: ``"human"``, an agent spec (``"mcts:time_limit=1"``) or an
            :class:`~boardzoo.agents.Agent`.
        options: the game's options, such as ``{"board_size": 6}`` (the others at defaults).
        seed: seeds the agents built from specs (the second gets ``seed + 1``).
        analysis: start with the AI's analysis shown (key A toggles it).
        screen_size: width of the window in pixels.
        max_frames: stop after this many frames (for scripted and headless runs: then no display
            is needed).
        watch_delay: least seconds each position stays on screen when no human plays.

    Raises:
        NoDisplayError: without ``max_frames``, where no window can be shown (see
            :func:`~boardzoo.ui.display.display_problem`); checked before anything is built.
    """
    if max_frames is None:
        problem = display_problem()
        if problem is not None:
            raise NoDisplayError(problem)
    window = GameWindow(
        game,
        players,
        options=options,
        seed=seed,
        analysis=analysis,
        screen_size=screen_size,
        watch_delay=watch_delay,
    )
    return window.run(max_frames=max_frames)
