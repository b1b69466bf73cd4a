"""Write the README's GUI picture: a human (played by a helper MCTS) against MCTS, analysis on.

python scripts/gui_screenshot.py [human_moves] [seed] [docs/gui_screenshot.png]
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
from PIL import Image

from boardzoo.agents import make_agent
from boardzoo.ui import GameWindow


def click(position: tuple[int, int]) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=position, button=1))


def main(human_moves: int = 14, seed: int = 6, out: str = "docs/gui_screenshot.png") -> None:
    stand_in = make_agent("mcts:simulations=1500", seed=seed)  # plays the human's moves
    window = GameWindow(
        "reversi", ("human", "mcts:simulations=5000"), seed=seed, analysis=True, fps=200
    )
    played = 0
    while True:
        window.step()
        if window.session.is_human_turn() and not window.thinking:
            if played == human_moves:
                break
            state = window.session.state
            action = stand_in.act(state)
            if action == state.pass_action:
                click(window._pass_button_rect().center)
            else:
                click(window.geometry.square_center(*divmod(action, state.size)))
            played += 1
    for _ in range(3):
        window.step()
    Image.fromarray(window.screenshot()).save(out)
    window.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
