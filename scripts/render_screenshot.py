"""Write a README picture of a game: its start and a middle game, side by side, via rgb_array.

python scripts/render_screenshot.py [docs/reversi_render.png] [game] [moves] [seed]

Any catalog game (``reversi``, ``tictactoe``, ``connect_four``...): the env named by its catalog
entry draws both positions, the second after ``moves`` random moves (default 11), a few fewer if
the game ends first.
"""

from __future__ import annotations

import importlib
import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame

from boardzoo.games.catalog import get_game


def frames(game: str = "reversi", seed: int = 4, moves: int = 11) -> list[np.ndarray]:
    """The start and the position after up to ``moves`` random moves, as RGB arrays."""
    env = importlib.import_module(get_game(game).env_module).env(render_mode="rgb_array")
    env.reset(seed=seed)
    shots = [env.render()]
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    shots.append(env.render())
    env.close()
    return shots


def main(
    path: str = "docs/reversi_render.png", game: str = "reversi", moves: int = 11, seed: int = 4
) -> None:
    left, right = frames(game, seed, moves)
    gap = np.zeros((left.shape[0], 8, 3), dtype=np.uint8)
    picture = np.concatenate([left, gap, right], axis=1)
    pygame.image.save(pygame.surfarray.make_surface(picture.transpose(1, 0, 2)), path)
    print(f"wrote {path} ({picture.shape[1]}x{picture.shape[0]})")


if __name__ == "__main__":
    given = sys.argv[1:5]
    path, game, moves, seed = (
        given + ["docs/reversi_render.png", "reversi", "11", "4"][len(given) :]
    )
    main(path, game, int(moves), int(seed))
