"""Draw docs/assets/games.png, the picture of the games at the top of the README and the site.

    SDL_VIDEODRIVER=dummy .venv/bin/python scripts/make_games_png.py

Three random games drawn by the envs' ``render_mode="rgb_array"``: a finished TicTacToe game, a
Reversi 8x8 game after 24 moves and a finished Connect Four game, side by side.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame

from boardzoo.envs import connect_four_v0, reversi_v0, tictactoe_v0

SIZE = 300  # screen_size of each board, in pixels
GAP = 10


def play(module, seed: int, moves: int | None = None, min_moves: int = 0, **options) -> np.ndarray:
    """The picture of the first random game from ``seed`` on that fits: ``moves`` random moves,
    or (``moves=None``) a game played to a win of at least ``min_moves`` moves."""
    for s in range(seed, seed + 500):
        env = module.env(render_mode="rgb_array", screen_size=SIZE, **options)
        env.reset(seed=s)
        rng = np.random.default_rng(s)
        played = 0
        while moves is None or played < moves:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            played += 1
        won = any(reward != 0 for reward in env.rewards.values())
        if moves is None and not (won and played >= min_moves):
            env.close()
            continue
        picture = env.render()
        env.close()
        return picture
    raise RuntimeError("no game fits")


def main(path: str = "docs/assets/games.png") -> None:
    shots = [
        play(tictactoe_v0, 0, min_moves=7),
        play(reversi_v0, 4, moves=24, board_size=8),
        play(connect_four_v0, 0, min_moves=17),
    ]
    height = max(shot.shape[0] for shot in shots)
    parts = []
    for index, shot in enumerate(shots):
        pad = height - shot.shape[0]
        top = np.full((pad // 2, shot.shape[1], 3), 255, np.uint8)
        bottom = np.full((pad - pad // 2, shot.shape[1], 3), 255, np.uint8)
        parts.append(np.concatenate([top, shot, bottom], axis=0))
        if index < len(shots) - 1:
            parts.append(np.full((height, GAP, 3), 255, np.uint8))
    picture = np.concatenate(parts, axis=1)
    pygame.image.save(pygame.surfarray.make_surface(picture.transpose(1, 0, 2)), path)
    print(f"wrote {path} ({picture.shape[1]}x{picture.shape[0]})")


if __name__ == "__main__":
    main(*sys.argv[1:2])
