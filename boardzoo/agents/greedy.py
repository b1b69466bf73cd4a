"""One-ply greedy player for every catalog game.

It plays the legal move with the best immediate score given by the game's ``greedy_score``
kernel (see :mod:`boardzoo.games.spec`), ties broken at random (seeded):

- Reversi: discs flipped plus a positional weight (corners high, X-squares diagonally next to a
  corner strongly negative, C-squares next to a corner on an edge negative, other edges mildly
  positive): the "weighted squares" strategy of Norvig, *Paradigms of Artificial Intelligence
  Programming* (1992), ch. 18, as one rule for every size.
- TicTacToe: win at once if possible, else block the opponent's immediate win, else any square.
- Connect Four: win at once, else block, else the column nearest the centre.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.agents._compiling import compile_notice
from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.games.spec import Game

__all__ = ["GreedyAgent"]

# Kernel modules whose greedy rule this process has loaded or compiled.
_PREPARED: set[str] = set()


class GreedyAgent(Agent):
    """Plays the move with the best one-ply score of the game's greedy rule (Reversi: weighted
    squares; TicTacToe, Connect Four: win, else block).

    Args:
        seed: seed of the tie-breaking: an int, a NumPy ``Generator`` or ``None``.

    Positions of games outside the catalog raise ``TypeError``.
    """

    name = "greedy"

    def __init__(self, seed: Seed = None) -> None:
        self.seed = seed
        self._rng = make_rng(seed)

    def prepare(self, game: Game) -> None:
        """Load (or compile, with a notice on stderr) the kernels the greedy rule of ``game``
        uses, before any clock runs. Draws nothing from the random stream.

        Args:
            game: the catalog game (with its options) that will be played.
        """
        if game.spec.kernels in _PREPARED:
            return
        with compile_notice(f"the greedy player for {game.name}", 3):
            kernels, params = game.kernels, game.params
            state = game.initial_state()
            s0, s1 = (np.uint64(b) for b in state.bitboards())
            player = state.current_player
            cells = int(kernels.placements(s0, s1, player, params))
            cell = (cells & -cells).bit_length() - 1
            kernels.greedy_score(s0, s1, player, cell, params)
            kernels.cell_action(cell, params)
        _PREPARED.add(game.spec.kernels)

    def act(self, env: Any) -> int:
        """The greedy action in ``env``'s position (``env`` is not changed)."""
        state = board_state(env_state(env), "GreedyAgent")
        actions = legal_or_raise(state)
        game = state.game
        if game.spec.kernels not in _PREPARED:
            self.prepare(game)
        kernels, params, player = game.kernels, game.params, state.current_player
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        cells = int(kernels.placements(s0, s1, player, params))
        if not cells:
            return actions[0]  # a forced pass
        best, candidates = None, []
        for cell in (i for i in range(cells.bit_length()) if cells >> i & 1):
            score = kernels.greedy_score(s0, s1, player, cell, params)
            action = int(kernels.cell_action(cell, params))
            if best is None or score > best:
                best, candidates = score, [action]
            elif score == best:
                candidates.append(action)
        candidates.sort()
        return int(candidates[int(self._rng.integers(len(candidates)))])

    def __repr__(self) -> str:
        seed = self.seed if not hasattr(self.seed, "bit_generator") else "<Generator>"
        return f"GreedyAgent(seed={seed!r})"
