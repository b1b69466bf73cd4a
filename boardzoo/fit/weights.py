"""Fit an n-tuple net's weights by least squares on labelled positions (Buro's recipe).

For each stage (a band of piece counts, as in :mod:`boardzoo.learned.ntuple`) the weights ``w``
minimise, over the stage's positions ``p`` (:mod:`boardzoo.fit.data`),

    sum_p (x_p . w - label_p) ** 2 + l2 * |w - prior|**2

where ``x_p`` counts the weights that position ``p`` reads and ``label_p`` is its final disc
difference: the sum is fitted in discs. ``prior`` is another net's weights (the shipped TD net's,
converted to discs per stage by a least-squares slope) or zero: weights that the data never or
seldom reads stay near it. ``l2`` is chosen per stage from a few values, by the error on games
held out of the fit. The normal equations are solved one stage at a time by conjugate
gradients with the diagonal (each weight's count plus ``l2``) as preconditioner, in NumPy: a
product with the sparse design matrix is a gather (``w[columns].sum``) and its transpose a
``bincount``.

The net file holds the weights divided by ``SCALE`` (discs per unit of the sum), so that
``tanh(sum)`` follows the win chance: SCALE is measured on games held out of the fit as the one
that maximises the likelihood of their results (the sign of the label; a draw counts half a win)
under ``P(win) = (1 + tanh(discs / SCALE)) / 2``. ``SCALE * sum`` is then the predicted disc
difference.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.fit.data import Positions, board_cells, data_game, load_positions, read_progress
from boardzoo.games.spec import Game
from boardzoo.learned.ntuple import (
    MODELS_DIR,
    NTupleNet,
    check_net_fits,
    load_net,
    load_net_file,
    load_net_metadata,
    net_file_name,
    ntuple_indices,
    ntuple_sums,
    save_net,
)
from boardzoo.learned.patterns import game_tuples

__all__ = [
    "FitSettings",
    "best_scale",
    "disc_slope",
    "fit_and_save",
    "fit_weights",
    "net_sums",
    "stages_of",
    "tuple_indices",
]

SCALES = np.geomspace(1.0, 200.0, 600)  # the SCALEs tried by best_scale
MIN_SLOPE_POSITIONS = 20  # positions of a stage that measure its prior's slope


@dataclass(frozen=True)
class FitSettings:
    """The settings of a fit (stored in the net's metadata).

    Attributes:
        stages: weight sets by piece count.
        l2: the strength of the pull toward the prior, in positions: a weight read ``k`` times
            moves about ``k / (k + l2)`` of the way from the prior to its least-squares value.
            Several values: each stage takes the best on the held-out games.
        prior: a net file to regularise toward, ``"shipped"`` (the game's net) or ``"none"``.
        scale: discs per unit of the sum; ``None``: the relabelling net's, for data relabelled
            by a search (:mod:`boardzoo.fit.relabel`), else measured on the held-out games.
        holdout: the fraction of games kept out of the fit to measure SCALE.
        seed: seed of the choice of held-out games.
        iterations: conjugate-gradient iterations at most, per stage.
        overlap: a stage is also fitted on the positions of this many piece counts on either
            side of its own.
        fit_stages: the stages fitted; the others keep the prior's weights (in discs, by the
            stage's slope). ``None``: every stage.
    """

    stages: int = 6
    l2: tuple[float, ...] = (8.0, 32.0, 128.0, 512.0)
    prior: str = "shipped"
    scale: float | None = None
    holdout: float = 0.05
    seed: int = 0
    iterations: int = 200
    overlap: int = 0
    fit_stages: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.stages <= 64:
            raise InvalidValueError(f"stages must be 1..64, got {self.stages}")
        if not self.l2 or min(self.l2) < 0:
            raise InvalidValueError(f"l2 must be one or more numbers >= 0, got {self.l2}")
        if self.scale is not None and not self.scale > 0:
            raise InvalidValueError(f"scale must be > 0, got {self.scale}")
        if not 0 <= self.holdout < 1:
            raise InvalidValueError(f"holdout must be in [0, 1), got {self.holdout}")
        if self.holdout == 0 and (self.scale is None or len(self.l2) > 1):
            raise InvalidValueError(
                "hold out some games to measure the scale and choose l2, or give both"
            )
        if self.overlap < 0:
            raise InvalidValueError(f"overlap must be >= 0, got {self.overlap}")
        if self.iterations < 1:
            raise InvalidValueError(f"iterations must be >= 1, got {self.iterations}")
        if self.fit_stages is not None:
            if not self.fit_stages or not set(self.fit_stages) <= set(range(self.stages)):
                raise InvalidValueError(f"fit_stages must be stages 0..{self.stages - 1}, got "
                                 f"{self.fit_stages}")  # fmt: skip
            if self.prior == "none":
                raise InvalidValueError("fit_stages keeps the prior's other stages: give a prior")

    @classmethod
    def with_defaults(cls, **settings: Any) -> FitSettings:
        """A config from ``settings``, those that are ``None`` left at their defaults."""
        return cls(**{k: v for k, v in settings.items() if v is not None})


# --- features ---------------------------------------------------------------------------------


def _kernel_columns(bitboards: np.ndarray, player: np.ndarray) -> tuple[np.ndarray, ...]:
    """The positions as the batched kernels take them: ``s0``, ``s1`` (uint64), ``player``."""
    return (
        np.ascontiguousarray(bitboards[:, 0], dtype=np.uint64),
        np.ascontiguousarray(bitboards[:, 1], dtype=np.uint64),
        np.ascontiguousarray(player, dtype=np.int64),
    )


def tuple_indices(cells: np.ndarray, bitboards: np.ndarray, player: np.ndarray) -> np.ndarray:
    """int32 ``[n, instances]``: the weight index each instance reads in each position, by the
    evaluator play and search use (:func:`boardzoo.learned.ntuple.ntuple_indices`)."""
    columns = _kernel_columns(bitboards, player)
    return cast(np.ndarray, ntuple_indices(*columns, np.ascontiguousarray(cells, dtype=np.int64)))


def stages_of(bitboards: np.ndarray, stages: int, cells: int) -> np.ndarray:
    """int64 ``[n]``: each position's stage on a board of ``cells`` cells,
    ``min(stages - 1, pieces * stages // cells)`` (as :func:`~boardzoo.learned.ntuple.stage_of`
    reads it)."""
    pieces = np.bitwise_count(bitboards[:, 0] | bitboards[:, 1]).astype(np.int64)
    stage: np.ndarray = np.minimum(pieces * stages // cells, stages - 1)
    return stage


def net_sums(net: NTupleNet, game: Game, bitboards: np.ndarray, player: np.ndarray) -> np.ndarray:
    """float64 ``[n]``: the sum of weights (``atanh`` of the value) that ``net`` reads in each
    position of ``game``, by the evaluator play and search use
    (:func:`boardzoo.learned.ntuple.ntuple_sums`)."""
    columns = _kernel_columns(bitboards, player)
    return cast(np.ndarray, ntuple_sums(*columns, game.params, *net))


# --- the fit ----------------------------------------------------------------------------------


def disc_slope(sums: np.ndarray, labels: np.ndarray) -> float:
    """The least-squares slope ``c`` of ``labels ~ c * sums`` (discs per unit of the sum)."""
    denominator = _dot(sums, sums)
    return _dot(sums, labels) / denominator if denominator > 0 else 0.0


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    return float((a * b).sum())


def _fit_stage(
    index: np.ndarray,
    table: np.ndarray,
    size: int,
    labels: np.ndarray,
    prior: np.ndarray,
    l2: float,
    iterations: int,
    tolerance: float = 1e-6,
) -> np.ndarray:
    """The weights ``[tables, size]`` of one stage (see the module's docstring)."""
    columns = (table[None, :] * size + index).astype(np.int64)  # [n, instances]
    used, compact = np.unique(columns, return_inverse=True)
    compact = compact.reshape(columns.shape)
    flat = compact.ravel()
    m = len(used)
    flat_prior = prior.astype(np.float64).ravel()

    def forward(w: np.ndarray) -> np.ndarray:  # X @ w
        return np.asarray(w[compact].sum(axis=1))

    def backward(r: np.ndarray) -> np.ndarray:  # X.T @ r
        return np.bincount(flat, weights=np.repeat(r, columns.shape[1]), minlength=m)

    counts = np.bincount(flat, minlength=m).astype(np.float64)
    diagonal = counts + l2 if l2 > 0 else np.maximum(counts, 1.0)
    residual = labels.astype(np.float64) - forward(flat_prior[used])
    # Solve (X'X + l2 I) d = X' residual by preconditioned conjugate gradients. The dot
    # products are sums of products, not BLAS calls: a threaded BLAS on a busy machine takes
    # milliseconds for each.
    d = np.zeros(m)
    r = backward(residual)
    z = r / diagonal
    p = z.copy()
    rz = _dot(r, z)
    target = tolerance**2 * _dot(r, r)
    for _ in range(iterations):
        q = backward(forward(p)) + l2 * p
        alpha = rz / _dot(p, q)
        d += alpha * p
        r -= alpha * q
        if _dot(r, r) <= target:
            break
        z = r / diagonal
        rz, previous = _dot(r, z), rz
        p = z + (rz / previous) * p
    weights = flat_prior.copy()
    weights[used] += d
    result: np.ndarray = weights.reshape(prior.shape)
    return result


def _prior_net(name: str, game: Game) -> NTupleNet | None:
    if name == "none":
        return None
    if name == "shipped":
        return load_net(game)
    return check_net_fits(load_net_file(name), game, name)


def _prior_commands(name: str, game: Game) -> list[str]:
    """The commands that made the prior net ``name`` (the fit keeps its weights in part)."""
    if name == "none":
        return []
    path = MODELS_DIR / net_file_name(game) if name == "shipped" else Path(name)
    return list(load_net_metadata(path).get("commands", []))


def _stage_prior(
    game: Game,
    prior: NTupleNet | None,
    positions: Positions,
    stages: int,
    shape: tuple[int, int],
) -> tuple[np.ndarray, list[float]]:
    """The prior's weights in discs for each of ``stages`` stages, and the slopes used: a new
    stage takes the prior's stage of its middle piece count."""
    weights = np.zeros((stages, *shape), dtype=np.float64)
    if prior is None:
        return weights, [0.0] * stages
    cells = board_cells(game)
    sums = net_sums(prior, game, positions.bitboards, positions.player)
    old_stage = stages_of(positions.bitboards, prior.weights.shape[0], cells)
    new_stage = stages_of(positions.bitboards, stages, cells)
    slopes: list[float | None] = []
    sources = []
    for s in range(stages):
        middle = ((2 * s + 1) * cells) // (2 * stages)
        source = min(middle * prior.weights.shape[0] // cells, prior.weights.shape[0] - 1)
        mask = (new_stage == s) & (old_stage == source)
        enough = int(mask.sum()) >= MIN_SLOPE_POSITIONS
        slopes.append(
            disc_slope(sums[mask], positions.label[mask].astype(np.float64)) if enough else None
        )
        sources.append(source)
    measured = {s: slope for s, slope in enumerate(slopes) if slope is not None}
    if not measured:
        raise InvalidValueError(f"too few positions to convert the prior to discs (need "
                         f"{MIN_SLOPE_POSITIONS} in a stage)")  # fmt: skip
    # a stage the data hardly reaches (the first moves before the openings) takes the slope
    # of the nearest stage that it does reach, not zero weights
    filled = [measured[min(measured, key=lambda m: abs(m - s))] for s in range(stages)]
    for s in range(stages):
        weights[s] = filled[s] * prior.weights[sources[s]]
    return weights, filled


def fit_weights(
    game: Game,
    positions: Positions,
    cells: np.ndarray,
    table: np.ndarray,
    stages: int,
    l2: float | Sequence[float],
    prior: NTupleNet | None = None,
    iterations: int = 200,
    overlap: int = 0,
    validation: Positions | None = None,
    log: Callable[[str], None] = print,
    fit_stages: Sequence[int] | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Weights in discs (float64 ``[stages, tables, 3**longest]``) fitted on ``positions`` (of
    ``game``), and what the fit did (per stage: positions, slope of the prior, l2, errors, seconds).

    A stage is fitted on the positions of its own piece counts and of ``overlap`` piece counts
    on either side (the weights change smoothly from stage to stage, and a stage sees more
    data). With several ``l2`` values, each stage keeps the one whose weights have the smallest
    mean absolute error on the ``validation`` positions of the stage's own piece counts. The
    stages not in ``fit_stages`` (``None``: all are) keep the prior's weights in discs.
    """
    choices = [float(l2)] if isinstance(l2, (int, float)) else [float(x) for x in l2]
    if not choices or (len(choices) > 1 and (validation is None or len(validation) == 0)):
        raise InvalidValueError("give one l2, or several and validation positions to choose from")
    size = 3 ** cells.shape[1]
    shape = (int(table.max()) + 1, size)
    start_weights, slopes = _stage_prior(game, prior, positions, stages, shape)
    board = board_cells(game)
    stage_of_pieces = np.minimum(np.arange(board + 1) * stages // board, stages - 1)
    pieces = np.bitwise_count(positions.bitboards[:, 0] | positions.bitboards[:, 1])
    index = tuple_indices(cells, positions.bitboards, positions.player)
    if validation is not None:
        check_stage = stages_of(validation.bitboards, stages, board)
        check_index = tuple_indices(cells, validation.bitboards, validation.player)
    weights = start_weights.copy()
    report: list[dict[str, Any]] = []
    for s in range(stages):
        t0 = time.perf_counter()
        own = np.flatnonzero(stage_of_pieces == s)
        mask = (pieces >= own[0] - overlap) & (pieces <= own[-1] + overlap)
        if fit_stages is not None and s not in fit_stages:
            report.append({"stage": s, "kept": "prior", "prior_slope": round(slopes[s], 3)})
            continue
        if len(own) == 0 or not mask.any():
            report.append({"stage": s, "positions": 0})
            continue
        labels = positions.label[mask].astype(np.float64)
        line: dict[str, Any] = {"stage": s, "positions": int(mask.sum()),
                                "prior_slope": round(slopes[s], 3)}  # fmt: skip
        best = np.inf
        checked = validation is not None and bool((check_stage == s).any())
        # a stage without validation positions takes the strongest pull toward the prior
        for strength in choices if checked else [max(choices)]:
            candidate = _fit_stage(
                index[mask], table, size, labels, start_weights[s], strength, iterations
            )
            error = 0.0
            if checked:
                mine = check_stage == s
                guess = candidate[table[None, :], check_index[mine]].sum(axis=1)
                error = float(np.mean(np.abs(guess - validation.label[mine])))  # type: ignore[union-attr]
                line[f"validation_mae_l2_{strength:g}"] = round(error, 3)
            if error < best or not checked:
                best, weights[s], line["l2"] = error, candidate, strength
        fitted = weights[s][table[None, :], index[mask]].sum(axis=1)
        line["train_mae"] = round(float(np.mean(np.abs(fitted - labels))), 3)
        line["seconds"] = round(time.perf_counter() - t0, 2)
        report.append(line)
        log(f"stage {s}: {int(mask.sum()):,} positions, l2 {line['l2']:g}, train MAE "
            f"{line['train_mae']:.2f} discs"
            + (f", validation MAE {best:.2f}" if checked else "")
            + f", {line['seconds']:.1f} s")  # fmt: skip
    return weights, {"stages": report}


def _log_likelihood(discs: np.ndarray, labels: np.ndarray, scale: float) -> float:
    win = np.clip((1 + np.tanh(discs / scale)) / 2, 1e-9, 1 - 1e-9)
    result = (np.sign(labels) + 1) / 2  # 1 win, 0.5 draw, 0 loss
    return float(np.sum(result * np.log(win) + (1 - result) * np.log(1 - win)))


def best_scale(discs: np.ndarray, labels: np.ndarray) -> float:
    """The SCALE of :data:`SCALES` under which ``tanh(discs / SCALE)`` gives the results (signs
    of ``labels``) the highest likelihood."""
    values = [_log_likelihood(discs, labels, float(s)) for s in SCALES]
    return float(SCALES[int(np.argmax(values))])


def _held_out(positions: Positions, fraction: float, seed: int) -> np.ndarray:
    games = np.unique(positions.game)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(games, size=round(fraction * len(games)), replace=False)
    return np.isin(positions.game, chosen)


def _teacher_scale(sources: Sequence[dict[str, Any]], log: Callable[[str], None]) -> float | None:
    """The scale of the net whose search relabelled the data (:mod:`boardzoo.fit.relabel`),
    where every directory was relabelled by one net; else ``None``. Labels that are a search's
    values do not follow the games' results, so a scale measured on them would be too small."""
    scales = {(source.get("relabel") or {}).get("scale") for source in sources}
    found = scales.pop() if len(scales) == 1 else None
    if not isinstance(found, (int, float)):
        return None
    scale = float(found)
    log(f"the data was relabelled by a search with a net of SCALE {scale:g}: the net keeps it")
    return scale


def fit_and_save(
    data: Sequence[str | Path],
    out: str | Path,
    config: FitSettings | None = None,
    *,
    command: str = "",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Fit a net on the data directories ``data`` and write it to ``out``; returns its
    metadata. The game numbers of each directory are kept apart (a second directory's games
    count on from the first's)."""
    config = config or FitSettings()
    began = time.perf_counter()
    parts, games, sources = [], 0, []
    commands = _prior_commands(config.prior, data_game(*data))
    for directory in data:
        progress = read_progress(directory)
        part = load_positions(directory)
        parts.append(replace(part, game=part.game + games))
        games += int(progress["games"])
        relabelled = progress.get("relabel") or {}
        for line in [*progress["commands"], *relabelled.get("net_commands", []),
                     *relabelled.get("commands", [])]:  # fmt: skip
            if line not in commands:
                commands.append(line)
        sources.append({"dir": str(directory), "settings": progress["config"],
                        "games": progress["games"], "positions": progress["positions"],
                        "seconds": progress["seconds"],
                        "children": progress.get("children"),
                        "relabel": progress.get("relabel")})  # fmt: skip
    positions = Positions.concatenate(parts)
    if len(positions) == 0:
        raise InvalidValueError("no positions in the data")
    game = data_game(*data)
    prior = _prior_net(config.prior, game)
    # the prior's own design (its cells read in its order), else the game's
    cells, table = (prior.cells, prior.table) if prior is not None else game_tuples(game)
    held = _held_out(positions, config.holdout, config.seed)
    train, test = positions.select(~held), positions.select(held)
    log(f"fitting on {len(train):,} positions ({len(test):,} held out), {config}")
    weights, report = fit_weights(
        game,
        train,
        cells,
        table,
        config.stages,
        config.l2,
        prior,
        config.iterations,
        config.overlap,
        test,
        log,
        config.fit_stages,
    )
    disc_net = NTupleNet(cells, table, weights.astype(np.float32))
    scale = config.scale if config.scale is not None else _teacher_scale(sources, log)
    if len(test):
        discs = net_sums(disc_net, game, test.bitboards, test.player)
        labels = test.label.astype(np.float64)
        measured = best_scale(discs, labels)
        mae = float(np.mean(np.abs(discs - labels)))
        report["held_out"] = {"positions": len(test), "mae_discs": round(mae, 3),
                              "best_scale": measured}  # fmt: skip
        log(f"held out: MAE {mae:.2f} discs; SCALE {measured:.2f} maximises the likelihood "
            "of their results")  # fmt: skip
        scale = measured if scale is None else scale
    assert scale is not None
    net = NTupleNet(cells, table, (weights / scale).astype(np.float32))
    seconds = time.perf_counter() - began
    metadata = {
        "game": game.name,
        "options": dict(game.options),
        "kind": "ntuple",
        "method": "least squares per stage on solver-labelled self-play positions (conjugate "
        "gradients, L2 toward the prior); sum = discs / scale",
        "fit": {**asdict(config), "scale": scale, **report},
        "data": {
            "dirs": sources,
            "positions": len(positions),
            "train_positions": len(train),
            "games": games,
        },
        "commands": [*commands, command],
        "command": command,
        "scale": scale,
        "seconds": round(seconds, 1),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    save_net(out, net, metadata)
    log(f"saved {out} ({seconds:.0f} s)")
    return metadata
