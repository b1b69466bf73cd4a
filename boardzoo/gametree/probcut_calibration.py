"""Multi-ProbCut's calibration: sample positions, search them to every depth, fit.

:func:`calibrate` searches sample positions (:func:`sample_positions`) to every depth with the
engine's search at a fixed depth, multi-ProbCut off (:class:`EngineSearch`: the driver of
:mod:`boardzoo.gametree.deepening` with the engine's ideas, what ``EngineAgent(time_limit=None,
depth=d, exact_empties=0, probcut=0)`` searches, score for score) and fits
``deep = a * shallow + b`` for each depth (:func:`boardzoo.gametree.probcut.fit_depth`). The
file format, its checks and the tables the engine reads are in :mod:`boardzoo.gametree.probcut`;
the command that calibrates and writes (or resumes) a file is ``boardzoo probcut``
(:mod:`boardzoo.cli.probcut`)::

    boardzoo probcut reversi --option board_size=8 --evaluation learned \\
        --positions 300 --max-depth 10 --seed 0
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.deepening import ENGINE_DEEPENING, DeepeningResult, IterativeDeepening
from boardzoo.gametree.probcut import (
    DEFAULT_PROBCUT,
    MAX_DEPTH,
    MIN_DEPTH,
    Calibration,
    check_evaluation,
    extend_fits,
    search_probcut,
)
from boardzoo.gametree.settings import ENGINE
from boardzoo.learned.ntuple import has_net, load_net

__all__ = [
    "RANDOM_MOVE_RATE",
    "EngineSearch",
    "board_cells",
    "calibrate",
    "depth_scores",
    "discs_of",
    "positions_digest",
    "root_moves",
    "sample_positions",
]

RANDOM_MOVE_RATE = 0.05  # moves of the sampling games (after the opening) played at random


def root_moves(state: BoardState, rng: np.random.Generator) -> np.ndarray:
    """The root cells of ``state`` (``[-1]``: a pass) in the engine's order: shuffled by ``rng``,
    then sorted (stably) by the game's order key; int64."""
    game, params, player = state.game, state.game.params, state.current_player
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    bits = int(game.kernels.placements(s0, s1, player, params))
    cells = [i for i in range(bits.bit_length()) if bits >> i & 1] or [-1]
    shuffled = [cells[i] for i in rng.permutation(len(cells))]
    keys = {c: game.kernels.order_key(s0, s1, player, c, 0, params) if c >= 0 else 0
            for c in cells}  # fmt: skip
    return np.array(sorted(shuffled, key=keys.__getitem__), dtype=np.int64)


class EngineSearch:
    """The engine's search of one game to a fixed depth, without its clock or its solver:
    :class:`~boardzoo.gametree.deepening.IterativeDeepening` with the engine's ideas
    (:data:`~boardzoo.gametree.settings.ENGINE`) and deepening
    (:data:`~boardzoo.gametree.deepening.ENGINE_DEEPENING`), the root in the engine's order
    (:func:`root_moves`). Search for search, what ``EngineAgent(time_limit=None, depth=d,
    exact_empties=0, table_bits=table_bits, seed=seed)`` finds with the same evaluation and
    multi-ProbCut (its table kept from search to search until :meth:`forget`).

    Args:
        game: the game searched.
        net: a learned net's arrays (:func:`boardzoo.learned.ntuple.load_net`), or ``None``
            for the game's hand evaluation.
        probcut: the search's multi-ProbCut array
            (:func:`~boardzoo.gametree.probcut.search_probcut`); ``None``: off.
        table_bits: the table holds ``2**table_bits`` entries.
        seed: the seed of the root's shuffle (it breaks ties between moves).
    """

    def __init__(
        self,
        game: Game,
        net: tuple[np.ndarray, ...] | None,
        probcut: np.ndarray | None = None,
        table_bits: int = 20,
        seed: int = 0,
    ) -> None:
        self.game = game
        self.net = net
        self.probcut = probcut
        self.driver = IterativeDeepening(game, ENGINE, ENGINE_DEEPENING, table_bits)
        self.rng = np.random.default_rng(seed)

    def forget(self) -> None:
        """Empty the table and the move-ordering statistics."""
        self.driver.forget()

    def search(self, state: BoardState, depth: int) -> DeepeningResult:
        """``state`` (one of the game's, not finished) searched ``depth`` plies."""
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        root = root_moves(state, self.rng)
        depths = list(range(1, depth + 1))
        return self.driver.search(
            s0, s1, state.current_player, root, depths, probcut=self.probcut, net=self.net
        )


def depth_scores(
    positions: Sequence[BoardState],
    depth: int,
    evaluation: str,
    seed: int,
    table_bits: int,
    net: tuple[np.ndarray, ...] | None = None,
) -> list[int]:
    """The engine's score of each position (all of one game) searched ``depth`` plies without
    multi-ProbCut (:class:`EngineSearch`), each from an empty table; ``net``: a learned net's
    arrays searched in place of the game's shipped net (``evaluation`` ``"learned"``)."""
    _check_net(evaluation, net)
    if not positions:
        return []
    game = positions[0].game
    if net is None and evaluation == "learned":
        net = tuple(load_net(game))
    search = EngineSearch(game, net, None, table_bits, seed)
    scores = []
    for state in positions:
        search.forget()  # no score depends on another position's search
        scores.append(int(search.search(state, depth).score))
    return scores


def _check_net(evaluation: str, net: tuple[np.ndarray, ...] | None) -> None:
    check_evaluation(evaluation)
    if net is not None and evaluation != "learned":
        raise InvalidValueError(f"a net is the learned evaluation, not {evaluation!r}")


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
    net: tuple[np.ndarray, ...] | None = None,
) -> Calibration:
    """Measure multi-ProbCut's fits for depths :data:`MIN_DEPTH` to ``max_depth``.

    Every position is searched by the engine's search to every depth ``1..max_depth``, one
    fixed-depth search each with a fresh table and no multi-ProbCut (:func:`depth_scores`: the
    scores of ``EngineAgent(time_limit=None, depth=d, eval=evaluation, exact_empties=0,
    probcut=0)``), one depth after the other; after each depth from ``MIN_DEPTH`` on, the
    depth's fit (:func:`~boardzoo.gametree.probcut.fit_depth`) is made.

    Args:
        game: the game (each position must be one of its).
        evaluation: ``"learned"`` or ``"hand"``.
        positions: the positions (not finished games).
        max_depth: the deepest search, ``MIN_DEPTH`` to ``MAX_DEPTH``.
        seed: the seed of the roots' shuffles (it only breaks ties between moves).
        scores: scores measured before, ``scores[d - 1][i]`` for the first depths (a run that
            is resumed): they are kept, not searched again.
        on_depth: called with the calibration so far after each depth (to save it).
        table_bits: the table holds ``2**table_bits`` entries.
        net: a learned net's arrays (:func:`boardzoo.learned.ntuple.load_net_file`) searched
            in place of the game's shipped net; ``evaluation`` must be ``"learned"``.

    Returns:
        The :class:`~boardzoo.gametree.probcut.Calibration`.

    Raises:
        ValueError: a bad argument, or an evaluation the game does not have.
    """
    _check_net(evaluation, net)
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
        row = depth_scores(positions, depth, evaluation, seed, table_bits, net)
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
    ``random_plies`` random moves (``None``: the game's ``opening_plies``), then the engine's
    search (:class:`EngineSearch`: a fixed depth of 2 to 4 plies for each side, chosen at random;
    the learned evaluation where the game has one; multi-ProbCut at :data:`DEFAULT_PROBCUT`
    where that evaluation is calibrated; a table of ``2**16`` entries kept through the game:
    ``EngineAgent(time_limit=None, depth=d, exact_empties=0, table_bits=16)``'s moves) plays
    both sides, with a random move now and then (:data:`RANDOM_MOVE_RATE`), to the end. One of
    the game's positions after the opening and before the end is taken, each as likely.
    """
    if random_plies is None:
        random_plies = game.opening_plies
    net = tuple(load_net(game)) if has_net(game) else None
    evaluation = "hand" if net is None else "learned"
    try:
        probcut = search_probcut(game, evaluation, DEFAULT_PROBCUT)
    except ValueError:  # not calibrated: off
        probcut = search_probcut(game, evaluation, 0)
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
        players = []
        for _ in range(2):
            depth = int(rng.integers(2, 5))
            search = EngineSearch(game, net, probcut, 16, int(rng.integers(2**31)))
            players.append((depth, search))
        seen: list[BoardState] = []
        while not state.is_terminal():
            seen.append(state)
            if rng.random() < RANDOM_MOVE_RATE:
                action = int(rng.choice(state.legal_actions()))
            else:
                depth, search = players[state.current_player]
                cell = search.search(state, depth).cell
                action = int(game.kernels.cell_action(cell, game.params))
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
