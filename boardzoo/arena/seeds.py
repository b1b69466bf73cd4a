"""Seeds of the arena: every game's randomness comes from the match seed and the game's index.

Game ``i`` of a match with seed ``s`` gets ``SeedSequence([s, i])``; its agents, its opening and
nothing else derive from it, so a match gives the same games with any number of workers, on any
backend, and a resumed match the same games as an uninterrupted one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["derive_seed", "game_seed"]


def derive_seed(*words: int) -> int:
    """A 63-bit seed from ``numpy.random.SeedSequence(words)``."""
    low, high = np.random.SeedSequence(list(words)).generate_state(2, np.uint32)
    return (int(high) << 32 | int(low)) & (2**63 - 1)


def game_seed(match_seed: int, index: int) -> int:
    """The seed of game ``index`` of a match: from ``SeedSequence([match_seed, index])``."""
    return derive_seed(match_seed, index)
