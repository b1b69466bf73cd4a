"""Win rates of a trained policy against fixed opponents, with legal moves only."""

from __future__ import annotations

from typing import Any

from boardzoo.envs.single_agent import BoardGameSingleAgentEnv


def evaluate_policy_vs(
    model: Any,
    game: str,
    opponent: str,
    episodes: int,
    board_size: int = 8,
    seed: int = 0,
    deterministic: bool = True,
) -> dict[str, float]:
    """Play ``episodes`` games (colours drawn per episode) and return win/draw/loss shares.

    Models with ``action_masks`` support (MaskablePPO) get the mask; others play through
    :class:`~boardzoo.agents.SB3Agent`-style masking of their action probabilities.
    """
    from boardzoo.agents.sb3_agent import SB3Agent

    env = BoardGameSingleAgentEnv(game, opponent=opponent, board_size=board_size)
    player = SB3Agent.from_model(model, deterministic=deterministic, seed=seed)
    wins = draws = losses = 0
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        reward = 0.0
        while not env.state.is_terminal():
            _, reward, terminated, _, _ = env.step(player.act(env.state))
            if terminated:
                break
        wins += reward > 0
        draws += reward == 0
        losses += reward < 0
    env.close()
    return {
        "win": wins / episodes,
        "draw": draws / episodes,
        "loss": losses / episodes,
        "score": (wins + 0.5 * draws) / episodes,
    }
