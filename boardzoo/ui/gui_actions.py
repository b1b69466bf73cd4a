"""What the person at the game window does: moves by clicking, passes, undo and new games, and
the messages the panel shows in answer.
"""

from __future__ import annotations

import time

from boardzoo.ui.game_session import why_illegal
from boardzoo.ui.gui_panel import PanelDrawing

__all__ = ["GameActions"]


class GameActions(PanelDrawing):
    """The window's part that plays the human's moves and handles undo, new game and pass (a
    click on the panel's Pass button passes)."""

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
