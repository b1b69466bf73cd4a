"""Uniformly random player: the weakest baseline, for any game following the GameState contract."""

from __future__ import annotations

from typing import Any

from boardzoo.agents.base import Agent, Seed, env_state, legal_or_raise, make_rng

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Plays a legal move chosen uniformly at random.

    Args:
        seed: an int, a NumPy ``Generator`` (used as is, so shared with the caller) or ``None``
            for fresh entropy. Two agents built with the same int seed play the same moves.
    """

    name = "random"

    def __init__(self, seed: Seed = None) -> None:
        self.seed = seed
        self._rng = make_rng(seed)

    def act(self, env: Any) -> int:
        """A uniformly random legal action of ``env``'s position (``env`` is not changed)."""
        actions = legal_or_raise(env_state(env))
        return int(actions[int(self._rng.integers(len(actions)))])

    def __repr__(self) -> str:
        seed = self.seed if not hasattr(self.seed, "bit_generator") else "<Generator>"
        return f"RandomAgent(seed={seed!r})"
