"""Replay recorded games of any catalog game in a window or a terminal, or write them as GIFs.

A record is one game as the arena writes it (a JSON object). Only these fields are read:
``"game"`` (a catalog name: ``"reversi"``, ``"tictactoe"``, ``"connect_four"``...), ``"moves"``
(the actions in order, as ints; names such as ``"d3"`` or ``"pass"`` are read too), the optional
``"options"`` (the game's options, such as ``{"board_size": 6}``; older records have
``"board_size"`` instead; missing ones take their defaults), ``"agents"`` (the two players'
specs) with ``"first"`` (which of them moved first, default 0), and ``"reason"`` (why the game
stopped, shown when it stopped before the end). Every move is checked against the rules: a move
that is not legal raises :class:`ReplayError` naming its number.

    replay_game(record, ui="text", delay=0)
    write_gif(record, "game.gif")
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.arena.record_schema import record_game
from boardzoo.envs.pygame_render import BoardRenderer, import_pygame
from boardzoo.envs.text_render import ansi_board
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.ui.display import NoDisplayError, display_problem
from boardzoo.ui.game_session import game_title, move_name, parse_move, result_text, side_names
from boardzoo.ui.window import WindowLoop

__all__ = [
    "RecordedGame",
    "ReplayError",
    "parse_record",
    "replay_frames",
    "replay_game",
    "write_gif",
]

_STRIP_BG = (26, 28, 32)
_STRIP_TEXT = (236, 236, 236)
_STRIP_DIM = (150, 154, 162)


class ReplayError(InvalidFileError):
    """A record that cannot be replayed: a missing field, an unknown game or an illegal move."""


@dataclass(frozen=True)
class RecordedGame:
    """A checked record: the game, every position from the start, and the moves between them."""

    game: Game
    states: tuple[BoardState, ...]  # len(actions) + 1 positions
    actions: tuple[int, ...]
    agents: tuple[str, str] | None  # first to move first
    reason: str | None = None  # why the game stopped, from the record

    @property
    def names(self) -> tuple[str, str]:
        """The sides for display: ``("Black", "White")``, ``("X", "O")``, ``("Red", "Yellow")``."""
        return side_names(self.game)

    def player(self, index: int) -> str:
        """``"Black (mcts:simulations=100)"``, or ``"Black"`` without agents in the record."""
        name = self.names[index]
        return f"{name} ({self.agents[index]})" if self.agents else name

    def move_text(self, ply: int) -> str:
        """``"Move 12/60: White (greedy) plays d3"`` for the move that made position ``ply``."""
        if ply == 0:
            return f"Start: {len(self.actions)} moves"
        before = self.states[ply - 1]
        name = move_name(before, self.actions[ply - 1])
        return f"Move {ply}/{len(self.actions)}: {self.player(before.current_player)} plays {name}"


def _agents(record: Mapping[str, Any]) -> tuple[str, str] | None:
    agents = record.get("agents")
    if (
        isinstance(agents, Sequence)
        and not isinstance(agents, str)
        and len(agents) == 2
        and all(isinstance(a, str) for a in agents)
    ):
        first = record.get("first", 0)
        if first == 1 and not isinstance(first, bool):  # the second agent moved first
            return agents[1], agents[0]
        return agents[0], agents[1]
    return None


def parse_record(record: Mapping[str, Any]) -> RecordedGame:
    """Check a record and play its moves; :class:`ReplayError` says what is wrong."""
    if not isinstance(record, Mapping):
        raise ReplayError(f"a game record is a JSON object, got {type(record).__name__}")
    if "game" not in record:
        raise ReplayError("record has no 'game' field (the name of a game of the catalog)")
    if not isinstance(record["game"], str):
        raise ReplayError(f"record: 'game' must be a game's name, got {record['game']!r}")
    try:
        game = record_game(record)
    except ValueError as error:
        raise ReplayError(f"record: {error}") from None
    moves = record.get("moves")
    if not isinstance(moves, Sequence) or isinstance(moves, str):
        raise ReplayError(f"record: 'moves' must be a list of actions, got {moves!r}")
    state = game.initial_state()
    states: list[BoardState] = [state]
    actions: list[int] = []
    for number, move in enumerate(moves, start=1):
        action = _read_move(state, move, number)
        if not state.is_legal(action):
            raise ReplayError(_illegal(state, action, move, number))
        state = state.apply(action)
        states.append(state)
        actions.append(action)
    reason = record.get("reason")
    return RecordedGame(
        game,
        tuple(states),
        tuple(actions),
        _agents(record),
        reason if isinstance(reason, str) else None,
    )


def _read_move(state: BoardState, move: object, number: int) -> int:
    if isinstance(move, str):
        try:
            return parse_move(state, move)
        except ValueError as error:
            raise ReplayError(f"record: move {number} ({move!r}): {error}") from None
    if isinstance(move, bool) or not isinstance(move, (int, np.integer)):
        raise ReplayError(f"record: move {number} is {move!r}, not an action number")
    return int(move)


def _illegal(state: BoardState, action: int, move: object, number: int) -> str:
    if state.is_terminal():
        return f"record: move {number} ({move!r}) comes after the end of the game"
    try:
        name = move_name(state, action)
    except ValueError:
        name = repr(move)
    side = side_names(state.game)[state.current_player]
    legal = ", ".join(move_name(state, a) for a in state.legal_actions())
    return f"record: move {number} ({name}) is illegal for {side}; the legal moves were {legal}"


# --- pictures ---------------------------------------------------------------------------------


class _Framer:
    """Draws position ``ply`` of a game: the renderer's picture and a caption strip below."""

    def __init__(self, game: RecordedGame, screen_size: int) -> None:
        self.game = game
        self.renderer = BoardRenderer("rgb_array", screen_size=screen_size, game=game.game)
        self.pg = import_pygame()
        width, height = self.renderer.window_size
        self.strip = max(22, screen_size // 14)
        self.size = (width, height + self.strip)
        self._fonts: dict[int, Any] = {}

    def font(self, size: int) -> Any:
        if not self.pg.font.get_init():
            self.pg.font.init()
            self._fonts.clear()
        if size not in self._fonts:
            self._fonts[size] = self.pg.font.Font(None, size)
        return self._fonts[size]

    def draw(self, target: Any, ply: int) -> None:
        """Draw position ``ply`` on ``target`` (a surface of :attr:`size`)."""
        pg, game = self.pg, self.game
        last = game.actions[ply - 1] if ply else None
        array = self.renderer.render(game.states[ply], last)
        assert array is not None  # an rgb_array renderer returns the picture
        target.blit(pg.surfarray.make_surface(array.transpose(1, 0, 2)), (0, 0))
        top = self.renderer.window_size[1]
        width = self.size[0]
        pg.draw.rect(target, _STRIP_BG, (0, top, width, self.strip))
        font = self.font(max(14, self.strip * 7 // 10))
        margin = self.renderer.geometry.left
        middle = top + self.strip // 2
        text = font.render(game.move_text(ply), True, _STRIP_TEXT)
        target.blit(text, text.get_rect(midleft=(margin, middle)))

    def array(self, ply: int) -> np.ndarray:
        """Position ``ply`` as an ``(H, W, 3)`` uint8 array."""
        surface = self.pg.Surface(self.size)
        self.draw(surface, ply)
        pixels = self.pg.surfarray.array3d(surface)
        return np.ascontiguousarray(pixels.transpose(1, 0, 2), dtype=np.uint8)

    def close(self) -> None:
        self.renderer.close()


def replay_frames(record: Mapping[str, Any], screen_size: int = 384) -> list[np.ndarray]:
    """One ``(H, W, 3)`` uint8 picture per position of the game, the start included."""
    game = parse_record(record)
    framer = _Framer(game, screen_size)
    try:
        return [framer.array(ply) for ply in range(len(game.states))]
    finally:
        framer.close()


def write_gif(
    record: Mapping[str, Any],
    path: str | os.PathLike[str],
    frame_seconds: float = 0.6,
    screen_size: int = 384,
    end_seconds: float = 2.5,
) -> Path:
    """Write the game as an animated GIF, one frame per position; returns the path.

    Each frame shows for ``frame_seconds`` and the final position for ``end_seconds``.
    """
    from PIL import Image

    if frame_seconds <= 0 or end_seconds <= 0:
        raise InvalidValueError("frame_seconds and end_seconds must be positive")
    frames = [Image.fromarray(frame) for frame in replay_frames(record, screen_size)]
    durations = [round(frame_seconds * 1000)] * len(frames)
    durations[-1] = round(end_seconds * 1000)
    path = Path(path)
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(
        path,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
    )
    return path


# --- replaying ----------------------------------------------------------------------------------


def _replay_text(game: RecordedGame, delay: float, output: Callable[[str], object]) -> BoardState:
    players = ", ".join(game.player(p) for p in (0, 1))
    output(f"Replay of {game.game.label}: {players}; {len(game.actions)} moves.")
    for ply, state in enumerate(game.states):
        if ply and delay > 0:
            time.sleep(delay)
        output(game.move_text(ply))
        output(ansi_board(state, game.actions[ply - 1] if ply else None))
    final = game.states[-1]
    if final.is_terminal():
        output(f"Result: {result_text(final, game.names)}.")
    else:
        why = f" ({game.reason})" if game.reason and game.reason != "normal" else ""
        output(f"The record stops before the end of the game{why}.")
    return final


class ReplayWindow:
    """A recorded game shown position by position in a pygame window.

    Keys: Space pause or resume, Left and Right step, Home and End jump, Esc or Q close.
    With ``hold`` the window stays open at the end until it is closed.
    """

    def __init__(
        self, game: RecordedGame, delay: float = 0.8, screen_size: int = 512, hold: bool = True
    ) -> None:
        self.game = game
        self.delay = delay
        self.hold = hold
        self.framer = _Framer(game, screen_size)
        self.pg = self.framer.pg
        self.ply = 0
        self.paused = False
        self._shown_at = time.perf_counter()
        caption = f"boardzoo replay: {game_title(game.game)}"
        self.loop = WindowLoop(self.framer.size, caption, fps=30)
        self._drawn: int | None = None

    @property
    def running(self) -> bool:
        """Whether the window is open and running (false once it is closing)."""
        return self.loop.running

    @property
    def frames(self) -> int:
        """Frames drawn so far."""
        return self.loop.frames

    def step(self) -> bool:
        """Handle events, advance when it is time, draw; ``False`` once the replay is over."""
        return self.loop.step(self)

    def handle_event(self, event: Any) -> None:
        """The replay's keys (:class:`~boardzoo.ui.window.WindowLoop` handles closing)."""
        if event.type == self.pg.KEYDOWN:
            self._key(event.key)

    def update(self) -> None:
        """Show the next position when its time has come; stop at the end without ``hold``."""
        last = len(self.game.states) - 1
        now = time.perf_counter()
        if not self.paused and now - self._shown_at >= self.delay:
            if self.ply < last:
                self._go(self.ply + 1)
            elif not self.hold:
                self.loop.running = False

    def draw_frame(self) -> bool:
        """Draw the position when it changed; ``True`` then (the loop flips the window)."""
        if self._drawn == self.ply:
            return False
        self.framer.draw(self.loop.screen, self.ply)
        self._drawn = self.ply
        return True

    def _key(self, key: int) -> None:
        pg = self.pg
        last = len(self.game.states) - 1
        if key == pg.K_SPACE:
            self.paused = not self.paused
        elif key == pg.K_RIGHT:
            self._go(min(last, self.ply + 1))
        elif key == pg.K_LEFT:
            self._go(max(0, self.ply - 1))
        elif key == pg.K_HOME:
            self._go(0)
        elif key == pg.K_END:
            self._go(last)

    def _go(self, ply: int) -> None:
        self.ply = ply
        self._shown_at = time.perf_counter()

    def run(self, max_frames: int | None = None) -> BoardState:
        """Show the game until the window is closed (or ``max_frames`` frames).

        Without ``max_frames``, under SDL's ``dummy`` or ``offscreen`` driver (no window anyone
        can see or close) the window is closed again and :class:`NoDisplayError` raised.
        """
        self.loop.run(self, max_frames)
        return self.game.states[self.ply]

    def close(self) -> None:
        """Close the window; safe to call twice."""
        self.framer.close()
        self.loop.close()


def replay_game(
    record: Mapping[str, Any],
    ui: str = "window",
    delay: float = 0.8,
    output: Callable[[str], object] = print,
    screen_size: int = 512,
    hold: bool = True,
    max_frames: int | None = None,
) -> BoardState:
    """Show a recorded game move by move; returns the last position shown.

    Args:
        record: one game record (see the module docstring); checked first.
        ui: ``"window"`` (pygame) or ``"text"`` (boards printed through ``output``).
        delay: seconds between moves.
        output: where the text replay writes.
        screen_size: width of the window in pixels.
        hold: keep the window open at the end until it is closed.
        max_frames: close the window after this many frames (for scripted runs: then no display
            is needed).

    Raises:
        ReplayError: the record cannot be replayed.
        NoDisplayError: ``ui="window"`` without ``max_frames`` where no window can be shown (see
            :func:`~boardzoo.ui.display.display_problem`): use ``ui="text"`` or
            :func:`write_gif` instead.
    """
    if ui not in ("window", "text"):
        raise InvalidValueError(f"ui must be 'window' or 'text', got {ui!r}")
    if delay < 0:
        raise InvalidValueError(f"delay must be at least 0 seconds, got {delay}")
    game = parse_record(record)
    if ui == "text":
        return _replay_text(game, delay, output)
    if max_frames is None:
        problem = display_problem()
        if problem is not None:
            raise NoDisplayError(problem)
    return ReplayWindow(game, delay, screen_size, hold).run(max_frames)
