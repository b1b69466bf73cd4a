"""Text and pygame pictures of the positions of any catalog game, read from the game contract.

Nothing here knows which game it draws. The board's shape and the names of the moves come from
``state.game`` (a :class:`~boardzoo.games.spec.Game`); the sides' names and symbols, whether the
piece counts matter and the colours and shapes (:class:`~boardzoo.games.spec.Look`) from its
spec; which square is whose, where each legal move goes, what the last move filled and the line
that won from the position (:class:`~boardzoo.games.state.BoardState`).

:func:`ansi_board` draws a position as text with coordinates (column letters ``a..`` across the
top and, where the look has ranks, row numbers ``1..`` down the side, row 1 at the top).
:class:`BoardRenderer` draws it with pygame, either in a window (``"human"``) or off screen
(``"rgb_array"``, returning an ``(H, W, 3)`` uint8 array), in the style of PettingZoo's classic
environments: a board area about ``screen_size`` pixels on its long side with a status bar below.
Its markers: a hollow ring a little wider than a stone, in the mover's colour, on each square
where the side to move may play (a faint square outline with marks such as TicTacToe's, where a
ring would read as an O); a dot on the last stone placed (the lit square with marks); Reversi's
star points are small filled dots on grid crossings, unlike the rings. :func:`marker_legend`
says so in words, :func:`ansi_key` does the same for the text board.

pygame is imported lazily, so the text rendering works without it, and the renderer never calls
``pygame.init()`` (which would open the audio device): it initialises only ``pygame.display``
(in human mode) and ``pygame.font``, both on the first :meth:`BoardRenderer.render`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from boardzoo.games.spec import Game, Look
from boardzoo.games.state import BoardState

if TYPE_CHECKING:
    import pygame

__all__ = [
    "RENDER_MODES",
    "BoardGeometry",
    "BoardRenderer",
    "BoardState",
    "ansi_board",
    "ansi_key",
    "hint_clearance",
    "marker_legend",
]

RENDER_MODES = ("human", "rgb_array")
_COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
Color = tuple[int, int, int]
Square = tuple[int, int]


# --- facts about a position shared by both renderings ------------------------------------------


def _side_names(game: Game) -> tuple[str, str]:
    """The sides' names for display: ``("Black", "White")``, ``("Red", "Yellow")``."""
    first, second = game.spec.sides
    return first.capitalize(), second.capitalize()


def _hint_squares(state: BoardState) -> set[Square]:
    """The squares that the legal moves of the side to move would fill (a pass fills none)."""
    squares = (state.move_square(action) for action in state.legal_actions())
    return {square for square in squares if square is not None}


@cache
def _hints_are_news(game: Game) -> bool:
    """Whether marking the legal squares tells more than the empty squares do.

    True when, at the start, some empty square is no legal move (Reversi, Connect Four); False
    when every empty square is one (TicTacToe), where the text board leaves the marks out.
    """
    start = game.initial_state()
    empty = {
        (row, col)
        for row in range(game.rows)
        for col in range(game.cols)
        if start.square_owner(row, col) is None
    }
    return _hint_squares(start) != empty


def _last_square(state: BoardState, last_action: int | None) -> Square | None:
    """The square that ``last_action`` filled; ``None`` for none, a pass or a foreign action."""
    game = state.game
    if last_action is None or not 0 <= last_action < game.num_actions:
        return None
    try:
        square = state.placed_square(last_action)
    except ValueError:  # an action that cannot have led here (an empty column, say)
        return None
    if square is None or not (0 <= square[0] < game.rows and 0 <= square[1] < game.cols):
        return None
    return square


def _result_text(state: BoardState) -> str:
    """``"Black wins"``, ``"Draw"``, ``"White to move"`` or ``"Black must pass"``."""
    names = _side_names(state.game)
    if state.is_terminal():
        return "Draw" if state.winner is None else f"{names[state.winner]} wins"
    mover = names[state.current_player]
    if state.must_pass():
        return f"{mover} must pass"
    return f"{mover} to move"


# --- text ---------------------------------------------------------------------------------------


def _ansi_square(
    state: BoardState, row: int, col: int, hints: set[Square], last: Square | None
) -> str:
    owner = state.square_owner(row, col)
    if owner is None:
        return "*" if (row, col) in hints else "."
    symbol = state.game.spec.symbols[owner]
    return symbol.lower() if (row, col) == last else symbol


def _ansi_rows(state: BoardState, last_action: int | None) -> list[str]:
    game = state.game
    ranks = game.spec.look.ranks
    hints = _hint_squares(state) if _hints_are_news(game) else set()
    last = _last_square(state, last_action)
    width = len(str(game.rows)) if ranks else -1  # the row numbers' width (none: no column)
    lines = [" " * (width + 1) + " ".join(_COLUMN_LETTERS[: game.cols])]
    for row in range(game.rows):
        squares = " ".join(_ansi_square(state, row, col, hints, last) for col in range(game.cols))
        lines.append(f"{row + 1:>{width}} {squares}" if ranks else squares)
    return lines


def _ansi_legend(state: BoardState) -> str:
    """``"X (black) 2  O (white) 2"``: the symbols where they are not the sides' names, and the
    piece counts where they decide the game; ``""`` when there is nothing to say (TicTacToe)."""
    spec = state.game.spec
    counts = state.disc_counts() if spec.show_counts else None
    same_names = all(s.lower() == n.lower() for s, n in zip(spec.symbols, spec.sides, strict=True))
    if counts is None and same_names:
        return ""
    items = []
    for player in (0, 1):
        symbol, side = spec.symbols[player], spec.sides[player]
        item = symbol if symbol.lower() == side.lower() else f"{symbol} ({side})"
        items.append(item if counts is None else f"{item} {counts[player]}")
    return "  ".join(items)


def _ansi_status(state: BoardState, last_action: int | None) -> str:
    game = state.game
    parts = [part for part in (_ansi_legend(state), _result_text(state)) if part]
    if last_action is not None and 0 <= last_action < game.num_actions:
        parts.append(f"last move: {game.action_name(last_action)}")
    return "  |  ".join(parts)


def ansi_board(state: BoardState, last_action: int | None = None) -> str:
    """The position as text, with coordinates and a status line.

    Each square shows its owner's symbol (``game.spec.symbols``) or ``.`` when empty; ``*``
    marks the squares where the side to move may play, in games where that is more than every
    empty square (Reversi, Connect Four); the piece placed by ``last_action`` is in lower case.
    The status line gives the symbols' sides and piece counts where they matter, whose turn it
    is (or the result once the game is over) and the last move's name.
    """
    rows = _ansi_rows(state, last_action)
    return "\n".join([*rows, _ansi_status(state, last_action)])


def ansi_key(game: Game) -> str:
    """What the symbols of :func:`ansi_board` mean for ``game``, in one line.

    ``"X = Black, O = White, . = empty, * = a legal move for the side to move, x or o = the
    piece just placed"`` (in TicTacToe, where the symbols are the sides' names and every empty
    square is a legal move, just ``". = empty, x or o = the piece just placed"``).
    """
    symbols, names = game.spec.symbols, _side_names(game)
    parts = [
        f"{symbols[player]} = {names[player]}"
        for player in (0, 1)
        if symbols[player].lower() != names[player].lower()  # not "X = X" in TicTacToe
    ]
    parts.append(". = empty")
    if _hints_are_news(game):
        parts.append("* = a legal move for the side to move")
    parts.append(f"{symbols[0].lower()} or {symbols[1].lower()} = the piece just placed")
    return ", ".join(parts)


# --- geometry -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardGeometry:
    """Where things are drawn for a board of ``rows`` x ``cols`` squares.

    The board's long side and a border for the coordinate labels around it fill ``screen_size``
    pixels; the board area is as much shorter on the other side as the board is (a square board
    gives a ``screen_size`` square). The status bar (``status_height`` pixels) lies below it, so
    the window is ``area_width`` wide and ``area_height + status_height`` high.
    """

    screen_size: int
    rows: int
    cols: int

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")

    @property
    def margin(self) -> int:
        """Width of the border holding the coordinate labels."""
        return self.screen_size // 16

    @property
    def cell(self) -> int:
        """Side of one square in pixels."""
        return (self.screen_size - 2 * self.margin) // max(self.rows, self.cols)

    @property
    def board_width(self) -> int:
        """Width of the playing surface (all squares) in pixels."""
        return self.cell * self.cols

    @property
    def board_height(self) -> int:
        """Height of the playing surface in pixels."""
        return self.cell * self.rows

    @property
    def area_width(self) -> int:
        """Width of the board area (the board and its border)."""
        return self.screen_size - max(0, self.board_height - self.board_width)

    @property
    def area_height(self) -> int:
        """Height of the board area: the status bar starts here."""
        return self.screen_size - max(0, self.board_width - self.board_height)

    @property
    def left(self) -> int:
        """x of the playing surface's left edge (it is centred in the board area)."""
        return (self.area_width - self.board_width) // 2

    @property
    def top(self) -> int:
        """y of the playing surface's top edge."""
        return (self.area_height - self.board_height) // 2

    @property
    def status_height(self) -> int:
        """Height of the status bar below the board area."""
        return max(24, self.screen_size // 10)

    @property
    def window_size(self) -> tuple[int, int]:
        """``(width, height)`` of the whole picture."""
        return self.area_width, self.area_height + self.status_height

    @property
    def board_box(self) -> tuple[int, int, int, int]:
        """``(x, y, width, height)`` of the playing surface."""
        return self.left, self.top, self.board_width, self.board_height

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
        if 0 <= row < self.rows and 0 <= col < self.cols:
            return int(row), int(col)
        return None


# --- pygame -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _PieceStyle:
    """How a kind of piece (``Look.pieces``) is drawn, beyond the look's colours."""

    hint_shape: str  # legal moves: "ring" (a hollow ghost of a piece) or "square" (an outline)
    hint_size: float  # the ring's radius or the outline's half side, in squares
    outer_lines: bool  # a "lines" grid also draws the board's edge (else only the inner lines)
    line_divisor: int  # grid lines are cell // line_divisor pixels wide ...
    line_least: int  # ... and at least this
    highlight_last: bool  # the last move's square is highlighted (else a dot on its piece)


_PIECE_STYLES = {
    # Stones cover their squares: thin full grid, a dot on the last one placed. A legal move is
    # a thin hollow ring a little wider than a stone in the mover's colour, unlike the small
    # filled star points, which sit on the grid's crossings.
    "discs": _PieceStyle("ring", 0.44, True, 40, 1, False),
    # Thin marks (a cross, a ring) leave the square showing: bold inner lines, square lit. A
    # legal move is a faint square outline (a ring would look like the second player's mark).
    "marks": _PieceStyle("square", 0.40, False, 30, 2, True),
}
_HINT_STRENGTH = 0.75  # a ring's colour: this much of the way from the board to the mover's
_GRID_STYLES = ("lines", "holes")
_LAST_MOVE = (226, 38, 38)
_LAST_SQUARE = (255, 238, 160)
_STRIKE = (230, 166, 30)
_WHITE = (250, 250, 250)
_BLACK = (20, 20, 22)
_STATUS_BG = (34, 36, 40)
_STATUS_TEXT = (236, 236, 236)
_STATUS_ACCENT = (244, 196, 70)
_HOLE_RADIUS = 0.40  # a hole's radius, in squares ("holes" grid)
_CONTRAST = 100  # least colour distance between a marker and the pieces it is drawn on


def _mix(a: Color, b: Color, t: float) -> Color:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]  # (a tuple of the colour's length: 3 or 4)


def _distance(a: Color, b: Color) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


def _contrasting(preferred: Color, pieces: tuple[Color, Color]) -> Color:
    """``preferred`` if it stands out on both pieces' colours, else white or black."""
    for colour in (preferred, _WHITE, _BLACK):
        if all(_distance(colour, piece) >= _CONTRAST for piece in pieces):
            return colour
    return preferred


def _piece_style(look: Look) -> _PieceStyle:
    """The drawing rules of the look's pieces; a ``ValueError`` for an unknown look."""
    if look.pieces not in _PIECE_STYLES:
        raise ValueError(f"Look.pieces must be one of {list(_PIECE_STYLES)}, got {look.pieces!r}")
    if look.grid_style not in _GRID_STYLES:
        raise ValueError(
            f"Look.grid_style must be one of {list(_GRID_STYLES)}, got {look.grid_style!r}"
        )
    return _PIECE_STYLES[look.pieces]


def _empty_colour(look: Look) -> Color:
    """The colour of an empty square: the board, or the hole of a board with holes."""
    return look.grid if look.grid_style == "holes" else look.board


@dataclass(frozen=True)
class _HintMarker:
    """The legal-move marker of a look at a square size: its shape, size and line width."""

    shape: str  # "ring" or "square"
    size: int  # the ring's radius or the outline's half side, in pixels
    width: int  # its line width in pixels

    @property
    def clearance(self) -> int:
        """The radius round the square's centre that the marker leaves free."""
        return max(1, self.size - self.width - 1)


def _hint_marker(look: Look, cell: int) -> _HintMarker:
    style = _piece_style(look)
    size = style.hint_size
    if look.grid_style == "holes":  # the ring lies inside the hole
        size = min(size, _HOLE_RADIUS - 0.08)
    if style.hint_shape == "ring":
        return _HintMarker("ring", max(3, round(cell * size)), max(2, cell // 18))
    return _HintMarker("square", max(3, round(cell * size)), max(1, cell // 60))


def _hint_colour(look: Look, mover: int) -> Color:
    """A ring is the mover's colour, lightened towards the board; an outline stays faint."""
    strength = look.hint_mix
    if _piece_style(look).hint_shape == "ring":
        strength = max(strength, _HINT_STRENGTH)
    return _mix(_empty_colour(look), look.piece_colours[mover], strength)


def hint_clearance(game: Game, cell: int) -> int:
    """The radius in pixels round a square's centre that the legal-move marker leaves free.

    A GUI that draws its own labels on the squares (the analysis overlay) keeps them within it,
    so that the markers of the legal moves stay in sight.
    """
    return _hint_marker(game.spec.look, cell).clearance


def marker_legend(game: Game) -> str:
    """What the pictures' markers mean, for a legend: ``"rings: legal moves  ·  red dot: last
    move"`` (the legal moves are left out where every empty square is one, as in TicTacToe)."""
    look = game.spec.look
    style = _piece_style(look)
    parts = []
    if _hints_are_news(game):
        shape = "rings" if style.hint_shape == "ring" else "outlines"
        parts.append(f"{shape}: legal moves")
    if style.highlight_last:
        parts.append("yellow square: last move")
    else:
        marker = _contrasting(_LAST_MOVE, look.piece_colours)
        name = {_LAST_MOVE: "red", _WHITE: "white", _BLACK: "black"}.get(marker, "small")
        parts.append(f"{name} dot: last move")
    if look.star_points:
        parts.append("small dots on the lines: star points")
    return "  ·  ".join(parts)


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
    first :meth:`render`, so creating a renderer is cheap. The geometry follows the shape of the
    board last drawn; before the first drawing it is ``game``'s (an 8x8 board without one).
    """

    def __init__(
        self,
        render_mode: str,
        screen_size: int = 512,
        caption: str = "boardzoo",
        fps: int = 30,
        game: Game | None = None,
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
        rows, cols = (8, 8) if game is None else (game.rows, game.cols)
        self.geometry = BoardGeometry(self.screen_size, rows, cols)
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
        return cast("pygame.Rect", _import_pygame().Rect(self.geometry.board_box))

    def square_rect(self, row: int, col: int) -> pygame.Rect:
        """The square at ``row``, ``col`` as a ``pygame.Rect``."""
        return cast("pygame.Rect", _import_pygame().Rect(self.geometry.square_box(row, col)))

    def square_at(self, pixel_xy: tuple[float, float]) -> tuple[int, int] | None:
        """``(row, col)`` of the square under a pixel (a mouse position), or ``None``."""
        return self.geometry.square_at(pixel_xy)

    # --- drawing ----------------------------------------------------------------------------

    def render(self, state: BoardState, last_action: int | None = None) -> np.ndarray | None:
        """Draw ``state``, marking the square ``last_action`` filled (a pass marks nothing)."""
        game = state.game
        if (game.rows, game.cols) != (self.geometry.rows, self.geometry.cols):
            self.geometry = BoardGeometry(self.screen_size, game.rows, game.cols)
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
        return window  # type: ignore[no-any-return]  # (pygame, loaded at run time, is untyped here)

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
        game = state.game
        look = game.spec.look
        style = _piece_style(look)
        last = _last_square(state, last_action)
        self.surface.fill(look.frame)
        if look.grid_style == "holes":
            self._holes(look, game)
        else:
            self._lines(look, style, game, last if style.highlight_last else None)
        self._labels(look, game)
        if not state.is_terminal():
            hint = _hint_colour(look, state.current_player)
            ring = _hint_marker(look, self.geo.cell)
            for row, col in _hint_squares(state):
                self._hint(self.geo.square_center(row, col), ring, hint)
        for row in range(game.rows):
            for col in range(game.cols):
                self._piece(state.square_owner(row, col), row, col, look)
        if last is not None and not style.highlight_last:
            marker = _contrasting(_LAST_MOVE, look.piece_colours)
            self._dot(self.geo.square_center(*last), 0.09, marker)
        self._strike(state, look)
        self._status(state, look)

    # --- board --------------------------------------------------------------------------------

    def _lines(self, look: Look, style: _PieceStyle, game: Game, highlight: Square | None) -> None:
        """A board with lines between the squares (and star points where the look has them)."""
        geo, draw = self.geo, self.pg.draw
        draw.rect(self.surface, look.board, geo.board_box)
        if highlight is not None:
            draw.rect(self.surface, _LAST_SQUARE, geo.square_box(*highlight))
        width = max(style.line_least, geo.cell // style.line_divisor)
        first = 0 if style.outer_lines else 1
        right, bottom = geo.left + geo.board_width - 1, geo.top + geo.board_height - 1
        for col in range(first, game.cols + 1 - first):
            x = geo.left + col * geo.cell
            draw.line(self.surface, look.grid, (x, geo.top), (x, bottom), width)
        for row in range(first, game.rows + 1 - first):
            y = geo.top + row * geo.cell
            draw.line(self.surface, look.grid, (geo.left, y), (right, y), width)
        if look.star_points and min(game.rows, game.cols) >= 6:
            for row in (2, game.rows - 2):
                for col in (2, game.cols - 2):
                    point = (geo.left + col * geo.cell, geo.top + row * geo.cell)
                    draw.aacircle(self.surface, look.grid, point, max(2, geo.cell // 14))

    def _holes(self, look: Look, game: Game) -> None:
        """An upright board: a panel of the board's colour with a round hole per square."""
        geo, draw = self.geo, self.pg.draw
        pad = max(2, geo.cell // 10)
        panel = self.pg.Rect(geo.board_box).inflate(2 * pad, 2 * pad)
        draw.rect(self.surface, look.board, panel, border_radius=2 * pad)
        rim = _mix(look.board, look.frame, 0.6)
        radius = round(geo.cell * _HOLE_RADIUS)
        for row in range(game.rows):
            for col in range(game.cols):
                x, y = geo.square_center(row, col)
                draw.aacircle(self.surface, rim, (x, y), radius + max(1, geo.cell // 28))
                draw.aacircle(self.surface, look.grid, (x, y), radius)

    def _labels(self, look: Look, game: Game) -> None:
        """Column letters above the board; row numbers left of it where the look has ranks."""
        geo = self.geo
        font = self.font(max(12, geo.margin * 4 // 5))
        for col in range(game.cols):
            centre = (geo.left + col * geo.cell + geo.cell // 2, geo.top // 2)
            self._text(font, _COLUMN_LETTERS[col], look.label, center=centre)
        if look.ranks:
            for row in range(game.rows):
                centre = (geo.left // 2, geo.top + row * geo.cell + geo.cell // 2)
                self._text(font, str(row + 1), look.label, center=centre)

    # --- pieces -------------------------------------------------------------------------------

    def _dot(self, centre: tuple[int, int], fraction: float, colour: Color) -> None:
        self.pg.draw.aacircle(self.surface, colour, centre, max(2, round(self.geo.cell * fraction)))

    def _hint(self, centre: tuple[int, int], marker: _HintMarker, colour: Color) -> None:
        """A legal move's marker: a hollow ring, or a square outline with rounded corners."""
        if marker.shape == "ring":
            self.pg.draw.aacircle(self.surface, colour, centre, marker.size, marker.width)
            return
        box = self.pg.Rect(0, 0, 2 * marker.size, 2 * marker.size)
        box.center = centre
        self.pg.draw.rect(self.surface, colour, box, marker.width, border_radius=marker.size // 5)

    def _piece(self, owner: int | None, row: int, col: int, look: Look) -> None:
        if owner is None:
            return
        centre, cell = self.geo.square_center(row, col), self.geo.cell
        if look.pieces == "marks":
            self._mark(
                centre, owner, look, round(cell * 0.26), round(cell * 0.29), max(3, cell // 11)
            )
        elif look.grid_style == "holes":
            self._disc_in_hole(centre, round(cell * _HOLE_RADIUS), owner, look)
        else:
            self._disc(centre, round(cell * 0.41), owner, look)

    def _disc(self, centre: tuple[int, int], radius: int, owner: int, look: Look) -> None:
        """A stone lying on the board, with its shadow."""
        draw, (x, y) = self.pg.draw, centre
        shade = max(1, radius // 12)
        shadow = _mix(look.board, (0, 0, 0), 0.45)
        draw.aacircle(self.surface, shadow, (x + shade, y + shade), radius)
        draw.aacircle(self.surface, look.piece_edges[owner], centre, radius)
        draw.aacircle(
            self.surface, look.piece_colours[owner], centre, radius - max(1, radius // 20)
        )

    def _disc_in_hole(self, centre: tuple[int, int], radius: int, owner: int, look: Look) -> None:
        """A disc filling its hole: an edge, the face and a raised inner ring."""
        draw = self.pg.draw
        colour, edge = look.piece_colours[owner], look.piece_edges[owner]
        draw.aacircle(self.surface, edge, centre, radius)
        draw.aacircle(self.surface, colour, centre, radius - max(1, radius // 10))
        ring = max(1, radius // 14)
        draw.aacircle(self.surface, _mix(colour, edge, 0.55), centre, round(radius * 0.68), ring)

    def _mark(
        self, centre: tuple[int, int], owner: int, look: Look, half: int, radius: int, width: int
    ) -> None:
        """A cross ``2 * half`` wide (player 0) or a ring of ``radius`` (player 1)."""
        colour = look.piece_colours[owner]
        if owner == 0:
            x, y = centre
            for dx in (-half, half):
                start, end = (x - dx, y - half), (x + dx, y + half)
                self.pg.draw.aaline(self.surface, colour, start, end, width)
        else:
            self.pg.draw.aacircle(self.surface, colour, centre, radius, width)

    def _strike(self, state: BoardState, look: Look) -> None:
        """Strike through the line that won the game, if it was won by a line."""
        line = state.winning_line()
        if not line or len(line) < 2:
            return
        (x0, y0), (x1, y1) = self.geo.square_center(*line[0]), self.geo.square_center(*line[-1])
        reach = 0.3 * self.geo.cell / max(abs(x1 - x0), abs(y1 - y0))
        start = (round(x0 - (x1 - x0) * reach), round(y0 - (y1 - y0) * reach))
        end = (round(x1 + (x1 - x0) * reach), round(y1 + (y1 - y0) * reach))
        colour = _contrasting(_STRIKE, look.piece_colours)
        self.pg.draw.aaline(self.surface, colour, start, end, max(3, self.geo.cell // 11))

    # --- status bar ---------------------------------------------------------------------------

    def _status(self, state: BoardState, look: Look) -> None:
        geo = self.geo
        top, height = geo.area_height, geo.status_height
        self.pg.draw.rect(self.surface, _STATUS_BG, (0, top, geo.area_width, height))
        font = self.font(max(12, height * 11 // 20))
        middle = top + height // 2
        counts = state.disc_counts() if state.game.spec.show_counts else None
        x = geo.left
        for player in (0, 1):
            x = self._status_player(state, player, x, font, counts, look)
        over = state.is_terminal()
        colour = _STATUS_ACCENT if over else _STATUS_TEXT
        text = f"Game over: {_result_text(state)}" if over else _result_text(state)
        self._text(font, text, colour, midright=(geo.left + geo.board_width, middle))

    def _status_player(
        self,
        state: BoardState,
        player: int,
        x: int,
        font: Any,
        counts: tuple[int, int] | None,
        look: Look,
    ) -> int:
        """Draw ``player``'s icon (and piece count) from ``x``; return where the next item goes."""
        radius = self.geo.status_height * 3 // 10
        centre = (x + radius, self.geo.area_height + self.geo.status_height // 2)
        if not state.is_terminal() and state.current_player == player:
            self.pg.draw.aacircle(self.surface, _STATUS_ACCENT, centre, radius + 3, 2)
        if look.pieces == "marks":  # a mark on a disc of the board's colour
            self.pg.draw.aacircle(self.surface, look.board, centre, radius - 1)
            size = (radius - 1) * 6 // 10
            self._mark(centre, player, look, size, size + 1, 3)
        else:
            self._disc(centre, radius - 1, player, look)
        if counts is None:
            return x + 3 * radius
        start = (x + 2 * radius + radius // 2, centre[1])
        right = self._text(font, str(counts[player]), _STATUS_TEXT, midleft=start)
        return right + radius * 3 // 2

    def _text(self, font: Any, text: str, colour: Color, **anchor: tuple[int, int]) -> int:
        """Blit ``text`` placed by a ``pygame.Rect`` anchor (``center=...``); return its right."""
        image = font.render(text, True, colour)
        rect = image.get_rect(**anchor)
        self.surface.blit(image, rect)
        return cast(int, rect.right)
