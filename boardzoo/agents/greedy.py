"""One-ply greedy player for every catalog game.

It plays the legal move with the best immediate score given by the game's ``greedy_score``
kernel (see :mod:`boardzoo.games.spec`), ties broken at random (seeded):

- Reversi: discs flipped plus a positional weight (corners high, X-squares diagonally next to a
  corner strongly negative, C-squares next to a corner on an edge negative, other edges mildly
  positive): the "weighted squares" strategy of Norvig, *Paradigms of Artificial Intelligence
  Programming* (1992), ch. 18, as one rule for every size.
- TicTacToe: win at once if possible, else block the opponent's immediate win, else any square.
- Connect Four: win at once, else block, else the column nearest the centre.

With ``eval="learned"`` (Reversi and Connect Four) it plays the move after which the game's
learned n-tuple evaluation (:mod:`boardzoo.learned`) is best for it: a finished game is valued
by its result, a position where the opponent must pass by the value for the mover, who moves
again.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.agents.compiling import compile_notice
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.learned.ntuple import load_net
from boardzoo.learned.td_kernels import compiled_learned

__all__ = ["GreedyAgent"]

# Kernel modules whose greedy rule this process has loaded or compiled.
_PREPARED: set[str] = set()


class GreedyAgent(Agent):
    """Plays the move with the best one-ply score of the game's greedy rule (Reversi: weighted
    squares; TicTacToe, Connect Four: win, else block) or of its learned evaluation.

    Args:
        eval: ``hand``, the game's greedy rule, or ``learned``, the best value after the move
            by the game's learned n-tuple evaluation (Reversi and Connect Four).
        seed: seed of the tie-breaking: an int, a NumPy ``Generator`` or ``None``.

    Positions of games outside the catalog raise ``TypeError``; with ``eval="learned"``, a game
    without a learned evaluation raises ``ValueError``.
    """

    name = "greedy"

    def __init__(self, eval: Literal["hand", "learned"] = "hand", seed: Seed = None) -> None:
        if eval not in ("hand", "learned"):
            raise InvalidValueError(f"eval must be one of hand, learned, got {eval!r}")
        self.eval = eval
        self.seed = seed
        self._rng = make_rng(seed)

    def prepare(self, game: Game) -> None:
        """Load (or compile, with a notice on stderr) the kernels the greedy rule of ``game``
        uses, before any clock runs. Draws nothing from the random stream.

        Args:
            game: the catalog game (with its options) that will be played.

        Raises:
            ValueError: ``eval="learned"`` and ``game`` has no learned evaluation.
        """
        if self.eval == "learned":
            self._prepare_learned(game)
            return
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

    def _prepare_learned(self, game: Game) -> None:
        """Load ``game``'s net and compile (or load) the learned move values."""
        net = load_net(game)
        key = f"learned:{game.spec.kernels}"
        if key in _PREPARED:
            return
        with compile_notice(f"the learned greedy player for {game.name}", 3):
            state = game.initial_state()
            s0, s1 = (np.uint64(b) for b in state.bitboards())
            move_values = compiled_learned(game)["move_values"]
            move_values(s0, s1, state.current_player, game.params, *net)
        _PREPARED.add(key)

    def _scores(self, game: Game, s0: np.uint64, s1: np.uint64, player: int) -> list[Any]:
        """``(score, cell)`` of every placement of the player to move."""
        kernels, params = game.kernels, game.params
        if self.eval == "learned":
            self._prepare_learned(game)
            move_values = compiled_learned(game)["move_values"]
            cells, values = move_values(s0, s1, player, params, *load_net(game))
            return list(zip(values.tolist(), cells.tolist(), strict=True))
        if game.spec.kernels not in _PREPARED:
            self.prepare(game)
        cells = int(kernels.placements(s0, s1, player, params))
        return [
            (kernels.greedy_score(s0, s1, player, cell, params), cell)
            for cell in range(cells.bit_length())
            if cells >> cell & 1
        ]

    def act(self, env: Any) -> int:
        """The greedy action in ``env``'s position (``env`` is not changed)."""
        state = board_state(env_state(env), "GreedyAgent")
        actions = legal_or_raise(state)
        game = state.game
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        scores = self._scores(game, s0, s1, state.current_player)
        if not scores:
            return actions[0]  # a forced pass
        best = max(score for score, _ in scores)
        candidates = sorted(
            int(game.kernels.cell_action(cell, game.params))
            for score, cell in scores
            if score == best
        )
        return int(candidates[int(self._rng.integers(len(candidates)))])

    def __repr__(self) -> str:
        seed = self.seed if not hasattr(self.seed, "bit_generator") else "<Generator>"
        return f"GreedyAgent(eval={self.eval!r}, seed={seed!r})"
