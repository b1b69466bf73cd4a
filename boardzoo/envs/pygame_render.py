"""Positions of any catalog game drawn with pygame, in a window or off screen.

Nothing here knows which game it draws: the board's shape comes from ``state.game`` (a
:class:`~boardzoo.games.spec.Game`), the colours and shapes from its spec's
:class:`~boardzoo.games.spec.Look`, what to mark from :mod:`boardzoo.envs.board_facts` and where
and how to draw it from :mod:`boardzoo.envs.board_geometry`.

:class:`BoardRenderer` draws either in a window (``"human"``) or off screen (``"rgb_array"``,
returning an ``(H, W, 3)`` uint8 array), in the style of PettingZoo's classic environments: a
board area about ``screen_size`` pixels on its long side with a status bar below, legal-move
markers, a dot on the last stone placed (the lit square with marks) and Reversi's star points
(:func:`~boardzoo.envs.board_geometry.marker_legend` says what they mean).

pygame is imported lazily (:func:`import_pygame`), so importing this module does not need it,
and the renderer never calls ``pygame.init()`` (which would open the audio device): it
initialises only ``pygame.display`` (in human mode) and ``pygame.font``, both on the first
:meth:`BoardRenderer.render`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from boardzoo.envs.board_facts import (
    COLUMN_LETTERS,
    Square,
    hint_squares,
    last_square,
    result_text,
)
from boardzoo.envs.board_geometry import (
    HOLE_RADIUS,
    LAST_MOVE,
    BoardGeometry,
    Color,
    HintMarker,
    PieceStyle,
    contrasting,
    hint_colour,
    hint_marker,
    mix,
    piece_style,
)
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game, Look
from boardzoo.games.state import BoardState

if TYPE_CHECKING:
    import pygame

__all__ = ["RENDER_MODES", "BoardRenderer", "import_pygame"]

RENDER_MODES = ("human", "rgb_array")
_LAST_SQUARE = (255, 238, 160)
_STRIKE = (230, 166, 30)
_STATUS_BG = (34, 36, 40)
_STATUS_TEXT = (236, 236, 236)
_STATUS_ACCENT = (244, 196, 70)


def import_pygame() -> Any:
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
            raise InvalidValueError(
                f"render_mode must be one of {list(RENDER_MODES)}, got {render_mode!r}"
            )
        if screen_size < 96:
            raise InvalidValueError(f"screen_size must be at least 96 pixels, got {screen_size}")
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
        return cast("pygame.Rect", import_pygame().Rect(self.geometry.board_box))

    def square_rect(self, row: int, col: int) -> pygame.Rect:
        """The square at ``row``, ``col`` as a ``pygame.Rect``."""
        return cast("pygame.Rect", import_pygame().Rect(self.geometry.square_box(row, col)))

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
        _Painter(import_pygame(), surface, self.geometry, self._font).paint(state, last_action)
        return self._present(surface)

    def close(self) -> None:
        """Close the window (quitting ``pygame.display`` if this renderer started it).

        Safe to call twice, or when nothing was ever rendered.
        """
        if self._owns_display:
            pygame = import_pygame()
            if pygame.display.get_init():
                pygame.display.quit()
            self._owns_display = False
        self._surface = None
        self._clock = None

    def _font(self, size: int) -> pygame.font.Font:
        """The default font at ``size`` pixels, initialising ``pygame.font`` when needed."""
        pygame = import_pygame()
        if not pygame.font.get_init():
            pygame.font.init()
            self._fonts.clear()  # fonts made before someone quit the module are dead
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(None, size)
        return self._fonts[size]

    def _target(self) -> pygame.Surface:
        """The surface to draw on: the window (opened on demand) or an off-screen surface."""
        pygame = import_pygame()
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
        pygame = import_pygame()
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
        style = piece_style(look)
        last = last_square(state, last_action)
        self.surface.fill(look.frame)
        if look.grid_style == "holes":
            self._holes(look, game)
        else:
            self._lines(look, style, game, last if style.highlight_last else None)
        self._labels(look, game)
        if not state.is_terminal():
            hint = hint_colour(look, state.current_player)
            ring = hint_marker(look, self.geo.cell)
            for row, col in hint_squares(state):
                self._hint(self.geo.square_center(row, col), ring, hint)
        for row in range(game.rows):
            for col in range(game.cols):
                self._piece(state.square_owner(row, col), row, col, look)
        if last is not None and not style.highlight_last:
            marker = contrasting(LAST_MOVE, look.piece_colours)
            self._dot(self.geo.square_center(*last), 0.09, marker)
        self._strike(state, look)
        self._status(state, look)

    # --- board --------------------------------------------------------------------------------

    def _lines(self, look: Look, style: PieceStyle, game: Game, highlight: Square | None) -> None:
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
        rim = mix(look.board, look.frame, 0.6)
        radius = round(geo.cell * HOLE_RADIUS)
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
            self._text(font, COLUMN_LETTERS[col], look.label, center=centre)
        if look.ranks:
            for row in range(game.rows):
                centre = (geo.left // 2, geo.top + row * geo.cell + geo.cell // 2)
                self._text(font, str(row + 1), look.label, center=centre)

    # --- pieces -------------------------------------------------------------------------------

    def _dot(self, centre: tuple[int, int], fraction: float, colour: Color) -> None:
        self.pg.draw.aacircle(self.surface, colour, centre, max(2, round(self.geo.cell * fraction)))

    def _hint(self, centre: tuple[int, int], marker: HintMarker, colour: Color) -> None:
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
            self._disc_in_hole(centre, round(cell * HOLE_RADIUS), owner, look)
        else:
            self._disc(centre, round(cell * 0.41), owner, look)

    def _disc(self, centre: tuple[int, int], radius: int, owner: int, look: Look) -> None:
        """A stone lying on the board, with its shadow."""
        draw, (x, y) = self.pg.draw, centre
        shade = max(1, radius // 12)
        shadow = mix(look.board, (0, 0, 0), 0.45)
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
        draw.aacircle(self.surface, mix(colour, edge, 0.55), centre, round(radius * 0.68), ring)

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
        colour = contrasting(_STRIKE, look.piece_colours)
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
        text = f"Game over: {result_text(state)}" if over else result_text(state)
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
