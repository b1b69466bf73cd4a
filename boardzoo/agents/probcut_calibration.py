"""Multi-ProbCut's calibration with the engine: sample positions, search them to every depth, fit.

:func:`calibrate` searches sample positions (:func:`sample_positions`) to every depth with the
engine (:class:`~boardzoo.agents.engine.EngineAgent` at a fixed depth, no ProbCut) and fits
``deep = a * shallow + b`` for each depth (:func:`boardzoo.learned.probcut.fit_depth`). The file
format, its checks and the tables the engine reads are in :mod:`boardzoo.learned.probcut` (a lower
layer, which never imports the engine); the command line that calibrates and writes (or resumes) a
file is :mod:`boardzoo.agents.probcut_command`::

    python -m boardzoo.agents.probcut_command reversi --option board_size=8 --evaluation learned \\
        --positions 300 --max-depth 10 --seed 0
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Literal, cast

import numpy as np

from boardzoo.agents.engine import EngineAgent
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.learned.probcut import (
    MAX_DEPTH,
    MIN_DEPTH,
    Calibration,
    check_evaluation,
    extend_fits,
)

__all__ = [
    "RANDOM_MOVE_RATE",
    "board_cells",
    "calibrate",
    "depth_scores",
    "discs_of",
    "positions_digest",
    "sample_positions",
]

RANDOM_MOVE_RATE = 0.05  # moves of the sampling games (after the opening) played at random


def depth_scores(
    positions: Sequence[BoardState],
    depth: int,
    evaluation: str,
    seed: int,
    table_bits: int,
) -> list[int]:
    """The engine's score of each position searched ``depth`` plies, each from an empty table."""
    check_evaluation(evaluation)
    engine_eval = cast(Literal["learned", "hand"], evaluation)
    agent = EngineAgent(
        time_limit=None, depth=depth, eval=engine_eval,
        exact_empties=0, probcut=0, table_bits=table_bits, seed=seed,
    )  # fmt: skip
    scores = []
    for state in positions:
        agent.reset()  # the table emptied: no score depends on another position's search
        scores.append(int(agent.search(state).score))
    return scores


def board_cells(game: Game) -> int:
    """The number of cells of ``game``'s board."""
    return int(game.params[0]).bit_count()


def discs_of(state: BoardState) -> int:
    """The pieces on the board."""
    s0, s1 = state.bitboards()
    return (int(s0) | int(s1)).bit_count()


def _check_depth(depth: int) -> None:
    if not isinstance(depth, int) or isinstance(depth, bool) or not MIN_DEPTH <= depth <= MAX_DEPTH:
        raise InvalidValueError(
            f"max_depth must be an integer {MIN_DEPTH}..{MAX_DEPTH}, got {depth!r}"
        )


def calibrate(
    game: Game,
    evaluation: str,
    positions: Sequence[BoardState],
    max_depth: int,
    *,
    seed: int = 0,
    scores: Sequence[Sequence[int]] = (),
    on_depth: Callable[[Calibration], None] | None = None,
    table_bits: int = 20,
) -> Calibration:
    """Measure multi-ProbCut's fits for depths :data:`MIN_DEPTH` to ``max_depth``.

    Every position is searched by the engine to every depth ``1..max_depth``, one fixed-depth
    search each with a fresh table (``EngineAgent(time_limit=None, depth=d, eval=evaluation,
    exact_empties=0, probcut=0)``), one depth after the other; after each depth from
    ``MIN_DEPTH`` on, the depth's fit (:func:`~boardzoo.learned.probcut.fit_depth`) is made.

    Args:
        game: the game (each position must be one of its).
        evaluation: ``"learned"`` or ``"hand"``.
        positions: the positions (not finished games).
        max_depth: the deepest search, ``MIN_DEPTH`` to ``MAX_DEPTH``.
        seed: the engine's seed (it only breaks ties between moves, never changes a score).
        scores: scores measured before, ``scores[d - 1][i]`` for the first depths (a run that
            is resumed): they are kept, not searched again.
        on_depth: called with the calibration so far after each depth (to save it).
        table_bits: the engine's table size.

    Returns:
        The :class:`~boardzoo.learned.probcut.Calibration`.

    Raises:
        ValueError: a bad argument, or an evaluation the game does not have.
    """
    check_evaluation(evaluation)
    _check_depth(max_depth)
    if not positions:
        raise InvalidValueError("calibrate needs positions")
    for state in positions:
        if state.game is not game or state.is_terminal():
            raise InvalidValueError(f"every position must be a {game.label} position, not finished")
    done = [list(row) for row in scores[:max_depth]]
    if any(len(row) != len(positions) for row in done):
        raise InvalidValueError(f"scores must hold one score per position ({len(positions)})")
    result = Calibration(evaluation, done, [discs_of(state) for state in positions])
    cells = board_cells(game)
    extend_fits(result, cells)
    resumed = len(result.scores)
    for depth in range(resumed + 1, max_depth + 1):
        start = time.perf_counter()
        row = depth_scores(positions, depth, evaluation, seed, table_bits)
        result.scores.append(row)
        result.seconds += time.perf_counter() - start
        extend_fits(result, cells)
        if on_depth is not None:
            on_depth(result)
    if on_depth is not None and resumed == max_depth:
        on_depth(result)  # nothing more to search: the fits are made again all the same
    return result


def sample_positions(
    game: Game,
    count: int,
    seed: int,
    openings: Sequence[Sequence[int]] = (),
    random_plies: int | None = None,
) -> list[BoardState]:
    """``count`` positions from all phases of games of the engine against itself; the same
    arguments give the same positions.

    Each position comes from its own game: an opening (one of ``openings`` at random, or none),
    ``random_plies`` random moves (``None``: the game's ``opening_plies``), then the engine
    (a fixed depth of 2 to 4 plies for each side, chosen at random; the learned evaluation
    where the game has one) plays both sides, with a random move now and then
    (:data:`RANDOM_MOVE_RATE`), to the end. One of the game's positions after the opening and
    before the end is taken, each as likely.
    """
    if random_plies is None:
        random_plies = game.opening_plies
    rng = np.random.default_rng(seed)
    found: list[BoardState] = []
    while len(found) < count:
        state = game.initial_state()
        if openings:
            for action in openings[int(rng.integers(len(openings)))]:
                state = state.apply(action)
        for _ in range(random_plies):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        players = [
            EngineAgent(
                time_limit=None,
                depth=int(rng.integers(2, 5)),
                exact_empties=0,
                table_bits=16,
                seed=int(rng.integers(2**31)),
            )
            for _ in range(2)
        ]
        seen: list[BoardState] = []
        while not state.is_terminal():
            seen.append(state)
            if rng.random() < RANDOM_MOVE_RATE:
                action = int(rng.choice(state.legal_actions()))
            else:
                action = players[state.current_player].search(state).action
            state = state.apply(action)
        if seen:
            found.append(seen[int(rng.integers(len(seen)))])
    return found


def positions_digest(positions: Sequence[BoardState]) -> str:
    """A SHA-256 of the positions (bitboards and player to move): what a resumed run checks."""
    text = "\n".join(
        f"{int(s0)} {int(s1)} {state.current_player}"
        for state in positions
        for s0, s1 in [state.bitboards()]
    )
    return hashlib.sha256(text.encode()).hexdigest()
