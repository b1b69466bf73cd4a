"""Registers the environments in PettingZoo's registry (done on ``import boardzoo``)."""

from __future__ import annotations

import pettingzoo

AEC_ENVS = {
    "boardzoo/reversi-v0": "boardzoo.envs.reversi_v0:env",
    "boardzoo/tictactoe-v0": "boardzoo.envs.tictactoe_v0:env",
}


def register_envs() -> None:
    """Add boardzoo's AEC envs to ``pettingzoo.make``; calling it again changes nothing."""
    for env_id, entry_point in AEC_ENVS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)
