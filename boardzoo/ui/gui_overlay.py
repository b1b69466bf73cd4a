"""What the game window draws over the board: where a click would play, the AI's analysis and
the game-over banner (the board itself is the renderer's picture, redrawn only when it changes).
"""

from __future__ import annotations

from typing import Any

from boardzoo.envs.board_geometry import hint_clearance
from boardzoo.ui.game_session import result_text
from boardzoo.ui.gui_base import ACCENT, HOVER, TEXT, Color, WindowBase, value_colour

__all__ = ["BoardOverlay"]


class BoardOverlay(WindowBase):
    """The window's part that draws the board and what goes over it."""

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
        self.pg.draw.rect(self._screen, HOVER, rect, max(2, self.geometry.cell // 28))

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
            self._played_tag(rect, f"{share:.0%}", win_text, value_colour(value))
            return
        room = self.tag_clearance  # a rounded box this far from the centre at its corners
        half_w, half_h, corner = room * 22 // 25, room * 17 // 25, room * 9 // 20
        tag = pg.Rect(0, 0, 2 * half_w, 2 * half_h)
        tag.center = rect.center
        overlay = pg.Surface(tag.size, pg.SRCALPHA)
        pg.draw.rect(overlay, (14, 16, 20, 210), overlay.get_rect(), 0, corner)
        if relative >= 1.0:  # the most visited of the moves with a square
            pg.draw.rect(overlay, (*ACCENT, 255), overlay.get_rect(), 1, corner)
        self._screen.blit(overlay, tag)
        inner = tag.width - 4
        big = self._fit(f"{share:.0%}", inner, max(12, tag.height * 3 // 5), TEXT, least=10)
        small = self._fit(win_text, inner, max(11, tag.height // 2), value_colour(value), 9)
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
        pg.draw.rect(self._screen, ACCENT, rect.inflate(-2, -2), max(2, cell // 24))
        font = self._font(max(12, cell * 3 // 10))
        left, right = self._render(font, f"{share} ", TEXT), self._render(font, win, colour)
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
        self.pg.draw.line(self._screen, ACCENT, rect.topleft, rect.topright, 2)
        self.pg.draw.line(self._screen, ACCENT, rect.bottomleft, rect.bottomright, 2)
        big = self._render(self._font(height * 11 // 20), title, ACCENT)
        small = self._fit(detail, geo.board_width - 16, max(14, height // 4), TEXT)
        gap = (height - big.get_height() - small.get_height()) // 3
        self._screen.blit(big, big.get_rect(midtop=(rect.centerx, rect.top + gap)))
        self._screen.blit(small, small.get_rect(midbottom=(rect.centerx, rect.bottom - gap)))
