"""Write the README's picture: the 8x8 start and a middle game, side by side, via rgb_array.

python scripts/render_screenshot.py [docs/reversi_render.png]
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame

from boardzoo.envs import reversi_v0


def frames(seed: int = 4, moves: int = 11) -> list[np.ndarray]:
    env = reversi_v0.env(render_mode="rgb_array")
    env.reset(seed=seed)
    shots = [env.render()]
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    shots.append(env.render())
    env.close()
    return shots


def main(path: str = "docs/reversi_render.png") -> None:
    left, right = frames()
    gap = np.zeros((left.shape[0], 8, 3), dtype=np.uint8)
    picture = np.concatenate([left, gap, right], axis=1)
    pygame.image.save(pygame.surfarray.make_surface(picture.transpose(1, 0, 2)), path)
    print(f"wrote {path} ({picture.shape[1]}x{picture.shape[0]})")


if __name__ == "__main__":
    main(*sys.argv[1:])
