"""A game between two random players, printed move by move as text (``boardzoo demo``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardzoo.envs import make_env
from boardzoo.games import action_name


def play_random_game(
    game: str = "reversi",
    board_size: int = 8,
    seed: int = 0,
    quiet: bool = False,
    output: Callable[[str], None] = print,
) -> dict[str, float]:
    """Play random legal moves through the AEC loop; return the final rewards per agent."""
    env = make_env(game, board_size=board_size, render_mode="ansi")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if not quiet:
        output(env.render() + "\n")
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            rewards[agent] = reward
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        if not quiet:
            move = action_name(action, board_size) if game == "reversi" else str(action)
            output(f"{agent} plays {move}\n{env.render()}\n")
    if quiet:
        output(env.render())
    output("final rewards: " + ", ".join(f"{a} {value:+g}" for a, value in rewards.items()))
    env.close()
    return rewards
