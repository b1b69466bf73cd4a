"""Text and pygame renderings of Reversi and TicTacToe positions.

:func:`ansi_board` draws a position as text with coordinates (files ``a..`` across the top,
ranks ``1..`` down the side, rank 1 at the top as in :func:`~boardzoo.games.reversi.action_name`).
:class:`BoardRenderer` draws it with pygame, either in a window (``"human"``) or off screen
(``"rgb_array"``, returning an ``(H, W, 3)`` uint8 array), in the style of PettingZoo's
classic environments: a square board area of ``screen_size`` pixels with a status bar below.

pygame is imported lazily, so the text rendering works without it, and the renderer never calls
``pygame.init()`` (which would open the audio device): it initialises only ``pygame.display``
(in human mode) and ``pygame.font``, both on the first :meth:`BoardRenderer.render`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from boardzoo.games.reversi import action_name

if TYPE_CHECKING:
    import pygame

__all__ = ["RENDER_MODES", "BoardGeometry", "BoardRenderer", "BoardState", "ansi_board"]

RENDER_MODES = ("human", "rgb_array")
_FILES = "abcdefgh"
_SYMBOLS = {0: "X", 1: "O", None: "."}
Color = tuple[int, int, int]
Square = tuple[int, int]


class BoardState(Protocol):
    """What the renderers read from a position (Reversi and TicTacToe states provide it)."""

    @property
    def size(self) -> int: ...

    @property
    def current_player(self) -> int: ...

    @property
    def winner(self) -> int | None: ...

    def square_owner(self, row: int, col: int) -> int | None: ...

    def legal_actions(self) -> list[int]: ...

    def is_terminal(self) -> bool: ...


# --- facts about a position shared by both renderings ------------------------------------------


def _is_reversi(state: BoardState) -> bool:
    return hasattr(state, "disc_counts")


def _disc_counts(state: BoardState) -> tuple[int, int] | None:
    """Black and white disc counts of a Reversi state, ``None`` for other games."""
    counts = getattr(state, "disc_counts", None)
    return None if counts is None else counts()


def _must_pass(state: BoardState) -> bool:
    must_pass = getattr(state, "must_pass", None)
    return bool(must_pass is not None and must_pass())


def _player_names(state: BoardState) -> tuple[str, str]:
    return ("Black", "White") if _is_reversi(state) else ("X", "O")


def _hint_squares(state: BoardState) -> set[tuple[int, int]]:
    """The squares the side to move may play on (the pass is not a square)."""
    size = state.size
    return {divmod(a, size) for a in state.legal_actions() if a < size * size}


def _last_square(state: BoardState, last_action: int | None) -> tuple[int, int] | None:
    size = state.size
    if last_action is None or not 0 <= last_action < size * size:
        return None
    return divmod(last_action, size)


def _winning_line(state: BoardState) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """First and last square of a full line held by the winner (TicTacToe), else ``None``."""
    winner, n = state.winner, state.size
    if winner is None:
        return None
    lines = [[(i, j) for j in range(n)] for i in range(n)]
    lines += [[(j, i) for j in range(n)] for i in range(n)]
    lines += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    for line in lines:
        if all(state.square_owner(row, col) == winner for row, col in line):
            return line[0], line[-1]
    return None


def _square_name(state: BoardState, action: int) -> str:
    if _is_reversi(state):
        return action_name(action, state.size)
    row, col = divmod(action, state.size)
    return f"{action} ({_FILES[col]}{row + 1})"


def _result_text(state: BoardState) -> str:
    """``"Black wins"``, ``"Draw"``, ``"White to move"`` or ``"Black must pass"``."""
    names = _player_names(state)
    if state.is_terminal():
        return "Draw" if state.winner is None else f"{names[state.winner]} wins"
    mover = names[state.current_player]
    if _must_pass(state):
        return f"{mover} must pass"
    return f"{mover} to move"


# --- text ---------------------------------------------------------------------------------------


def _ansi_square(
    state: BoardState, row: int, col: int, hints: set[Square], last: Square | None
) -> str:
    owner = state.square_owner(row, col)
    if owner is None:
        return "*" if (row, col) in hints else "."
    symbol = _SYMBOLS[owner]
    return symbol.lower() if (row, col) == last else symbol


def _ansi_rows(state: BoardState, last_action: int | None) -> list[str]:
    size = state.size
    hints = _hint_squares(state) if _is_reversi(state) else set()
    last = _last_square(state, last_action)
    width = len(str(size))
    lines = [" " * (width + 1) + " ".join(_FILES[:size])]
    for row in range(size):
        squares = (_ansi_square(state, row, col, hints, last) for col in range(size))
        lines.append(f"{row + 1:>{width}} " + " ".join(squares))
    return lines


def _ansi_status(state: BoardState, last_action: int | None) -> str:
    parts = []
    counts = _disc_counts(state)
    if counts is not None:
        black, white = counts
        parts.append(f"X (black) {black}  O (white) {white}")
    parts.append(_result_text(state))
    if last_action is not None:
        name = "pass" if last_action == state.size**2 else _square_name(state, last_action)
        parts.append(f"last move: {name}")
    return "  |  ".join(parts)


def ansi_board(state: BoardState, last_action: int | None = None) -> str:
    """The position as text, with coordinates and a status line.

    Reversi: ``X`` black, ``O`` white, ``.`` empty, ``*`` a legal move of the side to move; the
    disc placed by ``last_action`` is in lower case. The status line gives the disc counts and
    whose turn it is, or the result once the game is over. TicTacToe: ``X``, ``O`` and ``.``
    with the action numbers (0-8) drawn beside the board.
    """
    rows = _ansi_rows(state, last_action)
    if not _is_reversi(state):
        rows = _with_action_legend(rows, state.size)
    return "\n".join([*rows, _ansi_status(state, last_action)])


def _with_action_legend(rows: list[str], size: int) -> list[str]:
    """Append each square's action number to the board rows (the header row stays as is)."""
    legend = [" ".join(str(r * size + c) for c in range(size)) for r in range(size)]
    board = [f"{line}    {numbers}" for line, numbers in zip(rows[1:], legend, strict=True)]
    return [rows[0], *board]


# --- geometry -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardGeometry:
    """Where things are drawn for a ``board_size`` board in a ``screen_size`` board area.

    The board area is ``screen_size`` pixels square: a border for the coordinate labels around
    ``board_size`` square cells. The status bar (``status_height`` pixels) lies below it, so the
    window is ``screen_size`` wide and ``screen_size + status_height`` high.
    """

    screen_size: int
    board_size: int

    @property
    def margin(self) -> int:
        """Width of the border holding the coordinate labels."""
        return self.screen_size // 16

    @property
    def cell(self) -> int:
        """Side of one square in pixels."""
        return (self.screen_size - 2 * self.margin) // self.board_size

    @property
    def board_pixels(self) -> int:
        """Side of the playing surface (all squares) in pixels."""
        return self.cell * self.board_size

    @property
    def left(self) -> int:
        """x of the playing surface's left edge (it is centred in the board area)."""
        return (self.screen_size - self.board_pixels) // 2

    @property
    def top(self) -> int:
        """y of the playing surface's top edge."""
        return self.left

    @property
    def status_height(self) -> int:
        """Height of the status bar below the board area."""
        return max(24, self.screen_size // 10)

    @property
    def window_size(self) -> tuple[int, int]:
        """``(width, height)`` of the whole picture."""
        return self.screen_size, self.screen_size + self.status_height

    @property
    def board_box(self) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` of the playing surface."""
        return self.left, self.top, self.board_pixels, self.board_pixels

    def square_box(self, row: int, col: int) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` of the square at ``row``, ``col``."""
        return self.left + col * self.cell, self.top + row * self.cell, self.cell, self.cell

    def square_center(self, row: int, col: int) -> tuple[int, int]:
        """Pixel at the centre of the square at ``row``, ``col``."""
        x, y, side, _ = self.square_box(row, col)
        return x + side // 2, y + side // 2

    def square_at(self, pixel_xy: tuple[float, float]) -> tuple[int, int] | None:
        """``(row, col)`` of the square under ``pixel_xy``, or ``None`` off the board."""
        col = (pixel_xy[0] - self.left) // self.cell
        row = (pixel_xy[1] - self.top) // self.cell
        if 0 <= row < self.board_size and 0 <= col < self.board_size:
            return int(row), int(col)
        return None


# --- pygame -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Theme:
    """Colours of one game's drawing."""

    frame: Color
    board: Color
    grid: Color
    label: Color
    hint_mix: float


_REVERSI = _Theme(
    frame=(21, 57, 37), board=(34, 120, 72), grid=(18, 74, 42), label=(196, 220, 203), hint_mix=0.5
)
_TICTACTOE = _Theme(
    frame=(228, 224, 214),
    board=(248, 246, 240),
    grid=(84, 88, 98),
    label=(98, 100, 108),
    hint_mix=0.12,
)
_DISC = {0: (22, 22, 24), 1: (240, 240, 236)}
_DISC_EDGE = {0: (0, 0, 0), 1: (150, 150, 146)}
_MARK = {0: (40, 58, 82), 1: (196, 64, 52)}
_LAST_MOVE = (226, 38, 38)
_LAST_SQUARE = (255, 238, 160)
_STRIKE = (230, 166, 30)
_STATUS_BG = (34, 36, 40)
_STATUS_TEXT = (236, 236, 236)
_STATUS_ACCENT = (244, 196, 70)


def _mix(a: Color, b: Color, t: float) -> Color:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _import_pygame() -> Any:
    """Import pygame (pygame-ce) quietly, with a helpful error when it is missing."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "rendering with pygame needs pygame-ce: pip install 'boardzoo[render]' or pygame-ce"
        ) from exc
    return pygame


class BoardRenderer:
    """Draws positions with pygame, in a window or off screen.

    ``render_mode`` is ``"human"`` (a window through ``pygame.display``; :meth:`render` returns
    ``None`` and waits to keep ``fps`` frames a second) or ``"rgb_array"`` (an off-screen surface;
    :meth:`render` returns a fresh ``(H, W, 3)`` uint8 array). Nothing is initialised until the
    first :meth:`render`, so creating a renderer is cheap. The geometry follows the size of the
    last position drawn (``board_size`` before the first one).
    """

    def __init__(
        self,
        render_mode: str,
        screen_size: int = 512,
        caption: str = "boardzoo",
        fps: int = 30,
        board_size: int = 8,
    ) -> None:
        if render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be one of {list(RENDER_MODES)}, got {render_mode!r}"
            )
        if screen_size < 96:
            raise ValueError(f"screen_size must be at least 96 pixels, got {screen_size}")
        self.render_mode = render_mode
        self.screen_size = int(screen_size)
        self.caption = caption
        self.fps = fps
        self.geometry = BoardGeometry(self.screen_size, board_size)
        self._surface: pygame.Surface | None = None
        self._clock: pygame.time.Clock | None = None
        self._fonts: dict[int, pygame.font.Font] = {}
        self._owns_display = False

    # --- geometry helpers for GUIs ----------------------------------------------------------

    @property
    def window_size(self) -> tuple[int, int]:
        """``(width, height)`` of the window or of the returned array's picture."""
        return self.geometry.window_size

    @property
    def board_rect(self) -> pygame.Rect:
        """The playing surface (all squares) as a ``pygame.Rect``."""
        return _import_pygame().Rect(self.geometry.board_box)

    def square_rect(self, row: int, col: int) -> pygame.Rect:
        """The square at ``row``, ``col`` as a ``pygame.Rect``."""
        return _import_pygame().Rect(self.geometry.square_box(row, col))

    def square_at(self, pixel_xy: tuple[float, float]) -> tuple[int, int] | None:
        """``(row, col)`` of the square under a pixel (a mouse position), or ``None``."""
        return self.geometry.square_at(pixel_xy)

    # --- drawing ----------------------------------------------------------------------------

    def render(self, state: BoardState, last_action: int | None = None) -> np.ndarray | None:
        """Draw ``state``, marking ``last_action`` (``None``, or the pass, marks nothing)."""
        if state.size != self.geometry.board_size:
            self.geometry = BoardGeometry(self.screen_size, state.size)
        surface = self._target()
        _Painter(_import_pygame(), surface, self.geometry, self._font).paint(state, last_action)
        return self._present(surface)

    def close(self) -> None:
        """Close the window (quitting ``pygame.display`` if this renderer started it).

        Safe to call twice, or when nothing was ever rendered.
        """
        if self._owns_display:
            pygame = _import_pygame()
            if pygame.display.get_init():
                pygame.display.quit()
            self._owns_display = False
        self._surface = None
        self._clock = None

    def _font(self, size: int) -> pygame.font.Font:
        """The default font at ``size`` pixels, initialising ``pygame.font`` when needed."""
        pygame = _import_pygame()
        if not pygame.font.get_init():
            pygame.font.init()
            self._fonts.clear()  # fonts made before someone quit the module are dead
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(None, size)
        return self._fonts[size]

    def _target(self) -> pygame.Surface:
        """The surface to draw on: the window (opened on demand) or an off-screen surface."""
        pygame = _import_pygame()
        size = self.geometry.window_size
        if self.render_mode == "rgb_array":
            if self._surface is None or self._surface.get_size() != size:
                self._surface = pygame.Surface(size)
            return self._surface
        if not pygame.display.get_init():
            pygame.display.init()
            self._owns_display = True
        window = pygame.display.get_surface()
        if window is None or window.get_size() != size:
            window = pygame.display.set_mode(size)
            pygame.display.set_caption(self.caption)
        self._surface = window
        return window

    def _present(self, surface: pygame.Surface) -> np.ndarray | None:
        pygame = _import_pygame()
        if self.render_mode == "rgb_array":
            pixels = pygame.surfarray.array3d(surface)  # (W, H, 3), a copy
            return np.ascontiguousarray(pixels.transpose(1, 0, 2), dtype=np.uint8)
        pygame.event.pump()
        pygame.display.flip()
        if self._clock is None:
            self._clock = pygame.time.Clock()
        self._clock.tick(self.fps)
        return None


class _Painter:
    """Draws one position on a surface (one object per frame, so no state leaks between them)."""

    def __init__(self, pygame: Any, surface: Any, geometry: BoardGeometry, font: Any) -> None:
        self.pg = pygame
        self.surface = surface
        self.geo = geometry
        self.font = font

    def paint(self, state: BoardState, last_action: int | None) -> None:
        reversi = _is_reversi(state)
        theme = _REVERSI if reversi else _TICTACTOE
        last = _last_square(state, last_action)
        self.surface.fill(theme.frame)
        self._board(theme, state.size, None if reversi else last)
        self._labels(theme, state.size)
        mover_colour = _DISC[state.current_player] if reversi else theme.grid
        hint = _mix(theme.board, mover_colour, theme.hint_mix)
        for row, col in _hint_squares(state):
            self._dot(self.geo.square_center(row, col), 0.12 if reversi else 0.05, hint)
        for row in range(state.size):
            for col in range(state.size):
                self._piece(state.square_owner(row, col), row, col, reversi)
        if reversi and last is not None:
            self._dot(self.geo.square_center(*last), 0.09, _LAST_MOVE)
        if not reversi:
            self._strike(state)
        self._status(state, reversi)

    # --- board --------------------------------------------------------------------------------

    def _board(self, theme: _Theme, size: int, highlight: tuple[int, int] | None) -> None:
        geo, draw = self.geo, self.pg.draw
        draw.rect(self.surface, theme.board, geo.board_box)
        if highlight is not None:
            draw.rect(self.surface, _LAST_SQUARE, geo.square_box(*highlight))
        width = max(1, geo.cell // 40) if theme is _REVERSI else max(2, geo.cell // 30)
        inner = range(1, size) if theme is _TICTACTOE else range(size + 1)
        for i in inner:
            offset = i * geo.cell
            x, y = geo.left + offset, geo.top + offset
            end = geo.board_pixels - 1
            draw.line(self.surface, theme.grid, (x, geo.top), (x, geo.top + end), width)
            draw.line(self.surface, theme.grid, (geo.left, y), (geo.left + end, y), width)
        if theme is _REVERSI and size >= 6:
            for row in (2, size - 2):
                for col in (2, size - 2):
                    point = (geo.left + col * geo.cell, geo.top + row * geo.cell)
                    draw.aacircle(self.surface, theme.grid, point, max(2, geo.cell // 14))

    def _labels(self, theme: _Theme, size: int) -> None:
        geo = self.geo
        font = self.font(max(12, geo.margin * 4 // 5))
        middle = geo.left // 2
        for i in range(size):
            centre = geo.left + i * geo.cell + geo.cell // 2
            self._text(font, _FILES[i], theme.label, center=(centre, middle))
            self._text(font, str(i + 1), theme.label, center=(middle, centre))

    # --- pieces -------------------------------------------------------------------------------

    def _dot(self, centre: tuple[int, int], fraction: float, colour: Color) -> None:
        self.pg.draw.aacircle(self.surface, colour, centre, max(2, round(self.geo.cell * fraction)))

    def _piece(self, owner: int | None, row: int, col: int, reversi: bool) -> None:
        if owner is None:
            return
        centre = self.geo.square_center(row, col)
        if reversi:
            self._disc(centre, round(self.geo.cell * 0.41), owner)
        elif owner == 0:
            self._cross(centre, round(self.geo.cell * 0.26), max(3, self.geo.cell // 11))
        else:
            self._ring(centre, round(self.geo.cell * 0.29), max(3, self.geo.cell // 11))

    def _disc(self, centre: tuple[int, int], radius: int, owner: int) -> None:
        draw, (x, y) = self.pg.draw, centre
        shade = max(1, radius // 12)
        shadow = _mix(_REVERSI.board, (0, 0, 0), 0.45)
        draw.aacircle(self.surface, shadow, (x + shade, y + shade), radius)
        draw.aacircle(self.surface, _DISC_EDGE[owner], centre, radius)
        draw.aacircle(self.surface, _DISC[owner], centre, radius - max(1, radius // 20))

    def _cross(self, centre: tuple[int, int], half: int, width: int) -> None:
        (x, y), colour = centre, _MARK[0]
        for dx in (-half, half):
            start, end = (x - dx, y - half), (x + dx, y + half)
            self.pg.draw.aaline(self.surface, colour, start, end, width)

    def _strike(self, state: BoardState) -> None:
        """Cross out the winning line of a won TicTacToe game."""
        line = _winning_line(state)
        if line is None:
            return
        (x0, y0), (x1, y1) = (self.geo.square_center(*square) for square in line)
        reach = 0.3 * self.geo.cell / max(abs(x1 - x0), abs(y1 - y0))
        start = (round(x0 - (x1 - x0) * reach), round(y0 - (y1 - y0) * reach))
        end = (round(x1 + (x1 - x0) * reach), round(y1 + (y1 - y0) * reach))
        self.pg.draw.aaline(self.surface, _STRIKE, start, end, max(3, self.geo.cell // 11))

    def _ring(self, centre: tuple[int, int], radius: int, width: int) -> None:
        self.pg.draw.aacircle(self.surface, _MARK[1], centre, radius, width)

    # --- status bar ---------------------------------------------------------------------------

    def _status(self, state: BoardState, reversi: bool) -> None:
        geo = self.geo
        top, height = geo.screen_size, geo.status_height
        self.pg.draw.rect(self.surface, _STATUS_BG, (0, top, geo.screen_size, height))
        font = self.font(max(12, height * 11 // 20))
        middle = top + height // 2
        counts = _disc_counts(state)
        x = geo.left
        for player in (0, 1):
            x = self._status_player(state, player, x, font, counts)
        over = state.is_terminal()
        colour = _STATUS_ACCENT if over else _STATUS_TEXT
        text = f"Game over: {_result_text(state)}" if over else _result_text(state)
        self._text(font, text, colour, midright=(geo.left + geo.board_pixels, middle))

    def _status_player(
        self, state: BoardState, player: int, x: int, font: Any, counts: tuple[int, int] | None
    ) -> int:
        """Draw ``player``'s icon (and disc count) from ``x``; return where the next item goes."""
        radius = self.geo.status_height * 3 // 10
        centre = (x + radius, self.geo.screen_size + self.geo.status_height // 2)
        if not state.is_terminal() and state.current_player == player:
            self.pg.draw.aacircle(self.surface, _STATUS_ACCENT, centre, radius + 3, 2)
        if counts is None:
            self._mark_icon(centre, radius - 1, player)
            return x + 3 * radius
        self._disc(centre, radius - 1, player)
        start = (x + 2 * radius + radius // 2, centre[1])
        right = self._text(font, str(counts[player]), _STATUS_TEXT, midleft=start)
        return right + radius * 3 // 2

    def _mark_icon(self, centre: tuple[int, int], radius: int, player: int) -> None:
        """A TicTacToe mark on a light disc, for the status bar."""
        self.pg.draw.aacircle(self.surface, _TICTACTOE.board, centre, radius)
        if player == 0:
            self._cross(centre, radius * 6 // 10, 3)
        else:
            self._ring(centre, radius * 6 // 10 + 1, 3)

    def _text(self, font: Any, text: str, colour: Color, **anchor: tuple[int, int]) -> int:
        """Blit ``text`` placed by a ``pygame.Rect`` anchor (``center=...``); return its right."""
        image = font.render(text, True, colour)
        rect = image.get_rect(**anchor)
        self.surface.blit(image, rect)
        return rect.right
