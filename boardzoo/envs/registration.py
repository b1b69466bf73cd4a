"""Registers the environments with PettingZoo and Gymnasium (done on ``import boardzoo``)."""

from __future__ import annotations

import gymnasium
import pettingzoo

AEC_ENVS = {
    "boardzoo/reversi-v0": "boardzoo.envs.reversi_v0:env",
    "boardzoo/tictactoe-v0": "boardzoo.envs.tictactoe_v0:env",
}


GYMNASIUM_ENVS = {
    "boardzoo/Reversi-v0": "boardzoo.envs.single_agent:ReversiSingleAgentEnv",
    "boardzoo/TicTacToe-v0": "boardzoo.envs.single_agent:TicTacToeSingleAgentEnv",
}


def register_envs() -> None:
    """Add boardzoo's AEC envs to ``pettingzoo.make`` and its single-agent envs to
    ``gymnasium.make``; calling it again changes nothing."""
    for env_id, entry_point in AEC_ENVS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)
    for env_id, entry_point in GYMNASIUM_ENVS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)


def make_env(game: str, board_size: int = 8, **kwargs):
    """The wrapped AEC env of game ``name`` (``board_size`` applies to Reversi only)."""
    from boardzoo.envs import reversi_v0, tictactoe_v0
    from boardzoo.games.catalog import check_game

    if check_game(game) == "reversi":
        return reversi_v0.env(board_size=board_size, **kwargs)
    return tictactoe_v0.env(**kwargs)
