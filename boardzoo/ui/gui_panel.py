"""The panel below the game window's board: the status line (messages, whose move, the last
agent move), the Pass button, the progress of a search, the players, the keys and a legend.
"""

from __future__ import annotations

import math
import time
from typing import Any, cast

from boardzoo.envs.board_geometry import marker_legend
from boardzoo.ui.background_jobs import AIJob
from boardzoo.ui.game_session import describe_search, move_name, result_text
from boardzoo.ui.gui_base import (
    ACCENT,
    BAR_BG,
    BUTTON,
    BUTTON_TEXT,
    DIM,
    ERROR,
    LOSS,
    MESSAGE_SECONDS,
    PANEL_BG,
    PANEL_LINE,
    TEXT,
    WIN,
    Color,
    WindowBase,
)

__all__ = ["PanelDrawing"]


class PanelDrawing(WindowBase):
    """The window's part that draws the panel below the board."""

    def _panel(self) -> None:
        pg, screen = self.pg, self._screen
        width, top, height = self.size[0], self.panel_top, self.panel_height
        pg.draw.rect(screen, PANEL_BG, (0, top, width, height))
        pg.draw.line(screen, PANEL_LINE, (0, top), (width, top), 1)
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
        keys_image = self._render(self._font(small), keys, DIM)
        screen.blit(keys_image, keys_image.get_rect(midright=(right, line2)))
        players_image = self._fit(players, right - left - keys_image.get_width() - 16, small, DIM)
        screen.blit(players_image, players_image.get_rect(midleft=(left, line2)))
        legend = self._segments(self.legend(), right - left, max(12, self._legend_height * 3 // 4))
        middle = top + main + self._legend_height // 2 - 1
        screen.blit(legend, legend.get_rect(midleft=(left, middle)))

    def legend(self) -> list[tuple[str, Color]]:
        """The legend line as (text, colour) pieces: what the analysis shows while it is on,
        else what the board's markers mean."""
        if self.analysis:
            return [
                ("AI analysis:  ", DIM),
                ("42%", TEXT),
                (" of its search  ·  ", DIM),
                ("57%", WIN),
                (" its win rate (", DIM),
                ("high", WIN),
                ("/", DIM),
                ("low", LOSS),
                (")  ·  ", DIM),
                ("gold", ACCENT),
                (": its move", DIM),
            ]
        return [(marker_legend(self.session.game), DIM)]

    def _status_line(self) -> tuple[str, Color]:
        """The panel's main line: a recent message, else what is going on."""
        if self.message and time.perf_counter() - self._message_time < MESSAGE_SECONDS:
            return self.message, ERROR if self._message_error else TEXT
        session = self.session
        state = session.state
        if state.is_terminal():
            return f"Game over: {result_text(state, session.names)}", ACCENT
        if self._prepare is not None and not self._prepare.done.is_set():
            who = f"Preparing {self._prepare.who} ({self._prepare.elapsed:.0f} s)…"
            if session.is_human_turn():
                return f"{who}  ·  Your move ({session.side()})", ACCENT
            return who, ACCENT
        if self._job is not None:
            if self._job.generation != self._generation:
                return "Waiting for the last search to finish…", DIM
            return f"{session.side()} is thinking…", TEXT
        if session.is_human_turn():
            you = "Your move" if sum(p is None for p in session.players) == 1 else "To move"
            prompt = f"{you} ({session.side()})"
            if state.must_pass():
                return f"{prompt}: no legal move, press Pass", ACCENT
            last = self._last_agent_move()
            return (f"{last}  ·  {prompt}" if last else f"{prompt}: click to play"), TEXT
        return f"{session.describe_player(session.mover)} to move", TEXT

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
        self.pg.draw.rect(self._screen, BUTTON, rect, border_radius=rect.height // 3)
        label = self._render(self._font(rect.height * 3 // 4), "Pass", BUTTON_TEXT)
        self._screen.blit(label, label.get_rect(center=rect.center))

    def _progress(self, job: AIJob, right: int, middle: int) -> int:
        """A bar (elapsed vs the agent's time limit) or a spinner; returns its left edge."""
        pg, screen = self.pg, self._screen
        elapsed = job.elapsed
        limit = getattr(job.agent, "time_limit", None)
        font = self._font(max(14, self._panel_main * 3 // 10))
        if limit:
            width, height = max(90, self.size[0] // 4), max(8, self._panel_main // 6)
            bar = pg.Rect(right - width, middle - height // 2, width, height)
            pg.draw.rect(screen, BAR_BG, bar, border_radius=height // 2)
            filled = bar.copy()
            filled.width = max(height, round(width * min(1.0, elapsed / limit)))
            pg.draw.rect(screen, ACCENT, filled, border_radius=height // 2)
            label = self._render(font, f"{elapsed:.1f} / {limit:g} s", DIM)
            screen.blit(label, label.get_rect(midright=(bar.left - 8, middle)))
            return cast(int, bar.left - 8 - label.get_width())
        radius = max(8, self._panel_main // 5)
        centre = (right - radius, middle)
        box = pg.Rect(0, 0, 2 * radius, 2 * radius)
        box.center = centre
        start = (elapsed * 2 * math.pi) % (2 * math.pi)
        pg.draw.circle(screen, BAR_BG, centre, radius, max(2, radius // 3))
        pg.draw.arc(screen, ACCENT, box, start, start + 1.6 * math.pi / 2, max(2, radius // 3))
        label = self._render(font, f"{elapsed:.1f} s", DIM)
        screen.blit(label, label.get_rect(midright=(box.left - 8, middle)))
        return cast(int, box.left - 8 - label.get_width())
