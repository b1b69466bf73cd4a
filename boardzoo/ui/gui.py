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
import time
from collections.abc import Mapping, Sequence
from typing import Any

from boardzoo.envs.pygame_render import BoardRenderer, import_pygame
from boardzoo.games.state import BoardState
from boardzoo.ui.ai_jobs import AIMoves
from boardzoo.ui.background_jobs import PrepareJob
from boardzoo.ui.display import NoDisplayError, display_problem
from boardzoo.ui.game_session import GameSession, PlayerSpec, game_title
from boardzoo.ui.gui_actions import GameActions
from boardzoo.ui.gui_base import PANEL_BG
from boardzoo.ui.gui_overlay import BoardOverlay
from boardzoo.ui.window import WindowLoop

__all__ = ["GameWindow", "run_gui"]


class GameWindow(GameActions, AIMoves, BoardOverlay):
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
        self.messages = []
        self.thinking_frames = 0
        self.banner_frames = 0
        self._message_error = False
        self._message_time = -math.inf
        self._generation = 0
        self._job = None
        self._analysis = None
        self._position_shown_at = time.perf_counter()
        self._board_surface = None
        self._board_key = None
        self._fonts = {}
        names, labels = self.session.names, self.session.labels
        caption = f"boardzoo {game_title(self.session.game)}: {names[0]} {labels[0]} vs "
        self.loop = WindowLoop(self.size, f"{caption}{names[1]} {labels[1]}", fps)
        self._screen = self.loop.screen
        self._prepare = None
        waiting = self.session.unprepared()
        if waiting:  # compile or load in the background, the window drawing meanwhile
            self._prepare = PrepareJob(self.session, " and ".join(waiting))
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

    # --- drawing ----------------------------------------------------------------------------

    def draw(self) -> None:
        """Draw the whole window (without flipping it)."""
        screen = self._screen
        screen.fill(PANEL_BG)
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
