"""How good a fitted net is: its error against exact scores, and the moves it chooses.

:func:`measure_nets` compares nets' values with the labels of a data directory's positions (in
discs, the sign of the result); :func:`measure_moves` plays each net's engine at a small fixed
depth in exactly solved positions and scores its moves against every move's exact score
(:func:`boardzoo.accuracy.measure.score_moves`, as the accuracy measures of agents do): an
evaluation with a lower error can still choose worse moves, when it misjudges the positions
after poor moves, which games seldom reach but a search compares
(:mod:`boardzoo.fit.children`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.accuracy.measure import score_moves
from boardzoo.agents.engine import EngineAgent
from boardzoo.errors import InvalidValueError
from boardzoo.fit.data import Positions, data_game, load_positions
from boardzoo.fit.weights import disc_slope, net_sums
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import solve
from boardzoo.learned.ntuple import check_net_fits, load_net, load_net_file, load_net_metadata

__all__ = ["measure_moves", "measure_nets"]


def _band(
    data: Sequence[str | Path], min_empties: int, max_empties: int, exact_only: bool
) -> Positions:
    positions = Positions.concatenate([load_positions(d) for d in data])
    mask = (positions.empties >= min_empties) & (positions.empties <= max_empties)
    if exact_only:
        mask &= positions.exact == 1
    positions = positions.select(mask)
    if len(positions) == 0:
        raise InvalidValueError(
            f"no positions to measure on with {min_empties}..{max_empties} empties"
        )
    return positions


def measure_nets(
    data: Sequence[str | Path],
    nets: Sequence[str],
    min_empties: int = 20,
    max_empties: int = 24,
    *,
    exact_only: bool = True,
    scale: float | None = None,
    log: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Each net's error on the positions of ``data`` with ``min_empties..max_empties`` empty
    squares: MAE in discs with its own SCALE (the metadata's ``scale``, else ``scale``, else
    the best slope), with the best least-squares slope, and the share of won/lost positions
    whose winner it predicts. ``nets``: files or ``"shipped"``."""
    game = data_game(*data)
    positions = _band(data, min_empties, max_empties, exact_only)
    labels = positions.label.astype(np.float64)
    decided = labels != 0
    rows = []
    log(f"{len(positions):,} positions, {min_empties}..{max_empties} empties"
        f"{', exact labels' if exact_only else ''}")  # fmt: skip
    for name in nets:
        if name == "shipped":
            net, own = load_net(game), scale
        else:
            net = check_net_fits(load_net_file(name), game, name)
            own = load_net_metadata(name).get("scale", scale)
        sums = net_sums(net, game, positions.bitboards, positions.player)
        slope = disc_slope(sums, labels)
        own = slope if own is None else float(own)
        row = {
            "net": name,
            "scale": round(own, 3),
            "mae": round(float(np.mean(np.abs(own * sums - labels))), 3),
            "best_slope": round(slope, 3),
            "mae_best_slope": round(float(np.mean(np.abs(slope * sums - labels))), 3),
            "sign_agreement": round(
                float(np.mean(np.sign(sums[decided]) == np.sign(labels[decided]))), 4
            ),
        }
        rows.append(row)
        log("  ".join(f"{k} {v}" for k, v in row.items()))
    return rows


def measure_moves(
    data: Sequence[str | Path],
    nets: Sequence[str],
    min_empties: int = 12,
    max_empties: int = 18,
    *,
    count: int = 300,
    depths: Sequence[int] = (1, 2, 4),
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """The moves of each net's engine (``engine:depth=D,exact_empties=0,probcut=0``) in
    ``count`` positions of ``data`` with ``min_empties..max_empties`` empty squares and at least
    two moves, drawn with ``seed``, against every move's exact score: per net and depth, the
    share of positions where it plays a best move and the mean discs its move loses.
    ``nets``: files or ``"shipped"``."""
    game = data_game(*data)
    positions = _band(data, min_empties, max_empties, exact_only=True)
    order = np.random.default_rng(seed).permutation(len(positions))
    states: list[BoardState] = []
    scores: list[dict[int, int]] = []
    for i in order:
        s0, s1 = (int(bits) for bits in positions.bitboards[i])
        state = game.state_from_bitboards(s0, s1, int(positions.player[i]))
        if len(state.legal_actions()) >= 2:
            states.append(state)
            scores.append(solve(state, all_moves=True).move_scores)
        if len(states) == count:
            break
    log(f"{len(states)} positions with {min_empties}..{max_empties} empties, every move solved")
    rows = []
    for depth in depths:
        for name in nets:
            agent = EngineAgent(time_limit=None, depth=depth, exact_empties=0, probcut=0,
                                net=None if name == "shipped" else name)  # fmt: skip
            moves = [agent.search(state).action for state in states]
            accuracy = score_moves(scores, moves, who=repr(agent))
            row = {"net": name, "depth": depth, "positions": len(states),
                   "best_move": round(accuracy.best.value, 4),
                   "discs_lost": round(accuracy.score_lost, 3)}  # fmt: skip
            rows.append(row)
            log("  ".join(f"{k} {v}" for k, v in row.items()))
    return rows
