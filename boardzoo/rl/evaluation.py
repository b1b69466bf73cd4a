"""Win rates of a trained policy against fixed opponents, with legal moves only."""

from __future__ import annotations

from typing import Any

from boardzoo.agents.sb3_agent import SB3Agent
from boardzoo.envs.single_agent import BoardGameSingleAgentEnv
from boardzoo.errors import InvalidValueError


def evaluate_policy_vs(
    model: Any,
    game: str,
    opponent: str,
    episodes: int,
    seed: int = 0,
    deterministic: bool = True,
    **options: Any,
) -> dict[str, float]:
    """Play ``episodes`` games of catalog game ``game`` (sides drawn per episode) against the
    agent spec ``opponent``; return the win/draw/loss shares and the score.

    ``options`` are the game's options (``board_size=6`` for Reversi). The model plays through
    :class:`~boardzoo.agents.SB3Agent`, which masks its action probabilities to legal moves.
    A bad ``opponent`` spec or ``episodes`` is a ``ValueError`` before any game is played.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise InvalidValueError(f"episodes={episodes!r} is not allowed: it must be an integer >= 1")
    env = BoardGameSingleAgentEnv(game, opponent=opponent, **options)
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
