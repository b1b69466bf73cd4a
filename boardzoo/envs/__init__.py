"""PettingZoo AEC environments for boardzoo's games, following PettingZoo's classic envs."""

from boardzoo.envs import catalog_env, connect_four_v0, reversi_v0, tictactoe_v0
from boardzoo.envs.board_env import BoardGameEnv
from boardzoo.envs.registration import aec_envs, gymnasium_envs, make_env, register_envs
from boardzoo.envs.wrappers import wrap_classic

__all__ = [
    "BoardGameEnv",
    "aec_envs",
    "catalog_env",
    "connect_four_v0",
    "gymnasium_envs",
    "make_env",
    "register_envs",
    "reversi_v0",
    "tictactoe_v0",
    "wrap_classic",
]
