"""A game between two random players, printed move by move as text (``boardzoo demo``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from boardzoo.envs import make_env
from boardzoo.games.catalog import default_game, make_game


def play_random_game(
    game: str | None = None,
    options: Mapping[str, int] | None = None,
    seed: int = 0,
    quiet: bool = False,
    output: Callable[[str], None] = print,
) -> dict[str, float]:
    """Play random legal moves through the AEC loop; return the final rewards per agent.

    Args:
        game: a catalog game (default: the catalog's first, :func:`default_game`).
        options: the game's options (``{"board_size": 6}``); the others take their defaults.
        seed: seeds the env and the random players.
        quiet: print the final position only.
        output: where the text goes.
    """
    game = game or default_game()
    rules = make_game(game, **(options or {}))
    env = make_env(game, render_mode="ansi", **rules.options)
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
            output(f"{agent} plays {rules.action_name(action)}\n{env.render()}\n")
    if quiet:
        output(env.render())
    output("final rewards: " + ", ".join(f"{a} {value:+g}" for a, value in rewards.items()))
    env.close()
    return rewards
