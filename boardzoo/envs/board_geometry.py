"""Where things go in a picture of a board, and how its pieces and markers look: pure maths.

:class:`BoardGeometry` places the squares, the coordinate labels and the status bar in a picture
about ``screen_size`` pixels on its long side. The rest turns a game's
:class:`~boardzoo.games.spec.Look` into drawing rules: the pieces' styles, the legal-move markers
(a hollow ring a little wider than a stone in the mover's colour, or a faint square outline with
marks such as TicTacToe's, where a ring would read as an O), colours that stand out on the
pieces, and :func:`marker_legend`, which says in words what the markers mean. Nothing here
imports pygame: :mod:`boardzoo.envs.pygame_render` draws with these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardzoo.envs.board_facts import hints_are_news
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game, Look

__all__ = [
    "HOLE_RADIUS",
    "LAST_MOVE",
    "BoardGeometry",
    "Color",
    "HintMarker",
    "PieceStyle",
    "contrasting",
    "hint_clearance",
    "hint_colour",
    "hint_marker",
    "marker_legend",
    "mix",
    "piece_style",
]

Color = tuple[int, int, int]


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
                raise InvalidValueError(f"{name} must be a positive int, got {value!r}")

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


@dataclass(frozen=True)
class PieceStyle:
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
    "discs": PieceStyle("ring", 0.44, True, 40, 1, False),
    # Thin marks (a cross, a ring) leave the square showing: bold inner lines, square lit. A
    # legal move is a faint square outline (a ring would look like the second player's mark).
    "marks": PieceStyle("square", 0.40, False, 30, 2, True),
}
_HINT_STRENGTH = 0.75  # a ring's colour: this much of the way from the board to the mover's
_GRID_STYLES = ("lines", "holes")
LAST_MOVE: Color = (226, 38, 38)  # the dot on the last piece placed (where it stands out)
_WHITE = (250, 250, 250)
_BLACK = (20, 20, 22)
HOLE_RADIUS = 0.40  # a hole's radius, in squares ("holes" grid)
_CONTRAST = 100  # least colour distance between a marker and the pieces it is drawn on


def mix(a: Color, b: Color, t: float) -> Color:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]  # (a tuple of the colour's length: 3 or 4)


def _distance(a: Color, b: Color) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


def contrasting(preferred: Color, pieces: tuple[Color, Color]) -> Color:
    """``preferred`` if it stands out on both pieces' colours, else white or black."""
    for colour in (preferred, _WHITE, _BLACK):
        if all(_distance(colour, piece) >= _CONTRAST for piece in pieces):
            return colour
    return preferred


def piece_style(look: Look) -> PieceStyle:
    """The drawing rules of the look's pieces; a ``ValueError`` for an unknown look."""
    if look.pieces not in _PIECE_STYLES:
        raise InvalidValueError(
            f"Look.pieces must be one of {list(_PIECE_STYLES)}, got {look.pieces!r}"
        )
    if look.grid_style not in _GRID_STYLES:
        raise InvalidValueError(
            f"Look.grid_style must be one of {list(_GRID_STYLES)}, got {look.grid_style!r}"
        )
    return _PIECE_STYLES[look.pieces]


def _empty_colour(look: Look) -> Color:
    """The colour of an empty square: the board, or the hole of a board with holes."""
    return look.grid if look.grid_style == "holes" else look.board


@dataclass(frozen=True)
class HintMarker:
    """The legal-move marker of a look at a square size: its shape, size and line width."""

    shape: str  # "ring" or "square"
    size: int  # the ring's radius or the outline's half side, in pixels
    width: int  # its line width in pixels

    @property
    def clearance(self) -> int:
        """The radius round the square's centre that the marker leaves free."""
        return max(1, self.size - self.width - 1)


def hint_marker(look: Look, cell: int) -> HintMarker:
    style = piece_style(look)
    size = style.hint_size
    if look.grid_style == "holes":  # the ring lies inside the hole
        size = min(size, HOLE_RADIUS - 0.08)
    if style.hint_shape == "ring":
        return HintMarker("ring", max(3, round(cell * size)), max(2, cell // 18))
    return HintMarker("square", max(3, round(cell * size)), max(1, cell // 60))


def hint_colour(look: Look, mover: int) -> Color:
    """A ring is the mover's colour, lightened towards the board; an outline stays faint."""
    strength = look.hint_mix
    if piece_style(look).hint_shape == "ring":
        strength = max(strength, _HINT_STRENGTH)
    return mix(_empty_colour(look), look.piece_colours[mover], strength)


def hint_clearance(game: Game, cell: int) -> int:
    """The radius in pixels round a square's centre that the legal-move marker leaves free.

    A GUI that draws its own labels on the squares (the analysis overlay) keeps them within it,
    so that the markers of the legal moves stay in sight.
    """
    return hint_marker(game.spec.look, cell).clearance


def marker_legend(game: Game) -> str:
    """What the pictures' markers mean, for a legend: ``"rings: legal moves  ·  red dot: last
    move"`` (the legal moves are left out where every empty square is one, as in TicTacToe)."""
    look = game.spec.look
    style = piece_style(look)
    parts = []
    if hints_are_news(game):
        shape = "rings" if style.hint_shape == "ring" else "outlines"
        parts.append(f"{shape}: legal moves")
    if style.highlight_last:
        parts.append("yellow square: last move")
    else:
        marker = contrasting(LAST_MOVE, look.piece_colours)
        name = {LAST_MOVE: "red", _WHITE: "white", _BLACK: "black"}.get(marker, "small")
        parts.append(f"{name} dot: last move")
    if look.star_points:
        parts.append("small dots on the lines: star points")
    return "  ·  ".join(parts)
