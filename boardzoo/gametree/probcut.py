"""Multi-ProbCut's calibration tables: the files, their checks, the fits and the engine's lookups.

Multi-ProbCut (Buro, 1997; as in Logistello and Edax) cuts a node of a ``depth``-ply search when a
shallow search of ``shallow_depth(depth)`` plies clears the window by ``cut_sigma`` standard
errors of the shallow score as an estimate of the deep one. That error depends on the game and
the evaluation, so it is measured: :mod:`boardzoo.gametree.probcut_calibration` searches sample
positions to every depth with the engine's search (:mod:`boardzoo.gametree.deepening`, ProbCut
off), and :func:`fit_depth` fits ``deep = a * shallow + b`` by least squares, ``sigma`` being the
residuals' standard deviation (pairs where either search saw the end of the game are left out).
This module searches nothing; the engine reads :func:`probcut_sigmas` and
:func:`probcut_stage_sigmas`, and :func:`search_probcut` lays them out for the search.

The tables ship with the learned evaluations, one JSON file per game and options,
``models/<game.file_stem>.probcut.json``, one entry per evaluation (``"learned"``, ``"hand"``)::

    {"format": "boardzoo-probcut", "version": 1, "game": "reversi", "options": {"board_size": 8},
     "evaluations": {"learned": {
        "command": "boardzoo probcut reversi ...", "date": "2025-...",
        "positions": 300, "seed": 0, "max_depth": 10, "openings": null, "random_plies": 4,
        "positions_sha256": "...", "seconds": 812.5, "complete": true,
        "depths": [{"depth": 3, "shallow": 1, "a": 0.98, "b": 12.0, "sigma": 914.2,
                    "pairs": 297, "stage_sigmas": [850.1, 901.7, 990.3, null]}, ...],
        "discs": [23, 41, ...],            # pieces on the board of each position
        "scores": [[...], [...], ...]}}}   # scores[d - 1][i]: position i searched d plies

A net file of the user's (``engine:net=NET.npz``) is calibrated in a file beside it,
``NET.probcut.json`` (:func:`probcut_file` with ``net``), whose ``"learned"`` entry carries one more
field, ``"net_sha256"``: the SHA-256 of the net file it measured (a net written again over the same
name is not searched with the old net's errors).

``discs`` and ``scores`` are the raw measurements (a cut-off run resumes from them);
``stage_sigmas`` is ``sigma`` by :data:`STAGES` bands of the pieces on the board (``null`` where
a band had fewer than :data:`MIN_PAIRS` pairs). Files are parsed as JSON, never executed, and
checked. :data:`COMMAND` (``boardzoo probcut``, :mod:`boardzoo.cli.probcut`) calibrates and
writes or resumes a file.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.gametree.template import PROBCUT_MIN_DEPTH, WIN, no_probcut
from boardzoo.learned.ntuple import MODELS_DIR

__all__ = [
    "COMMAND", "DEFAULT_PROBCUT", "EVALUATIONS", "FORMAT", "MAX_DEPTH", "MIN_DEPTH",
    "MIN_PAIRS", "STAGES",
    "VERSION", "Calibration", "DepthFit", "calibrate_command", "check_evaluation",
    "check_probcut_data", "extend_fits", "fit_depth", "fit_pairs", "load_probcut_file",
    "net_sha256", "new_probcut_data", "probcut_file", "probcut_sigmas", "probcut_stage_sigmas",
    "save_probcut_file", "search_probcut", "shallow_depth", "stage_of",
]  # fmt: skip

# Multi-ProbCut's threshold by default where the game is calibrated, in standard errors: against
# the depth-10 reference at 1 s a move, the engine at 1.5 reached about 14 plies and scored 57.7%
# where 0 (10 plies) scored 30%.
DEFAULT_PROBCUT = 1.5

# The same as boardzoo.agents.engine.MAX_DEPTH (not imported: the engine reads this module).
MAX_DEPTH = 60
MIN_DEPTH = PROBCUT_MIN_DEPTH  # shallower nodes are never cut
EVALUATIONS = ("learned", "hand")
STAGES = 4  # bands of the number of pieces on the board for the stage tables
MIN_PAIRS = 10  # a fit needs this many score pairs
FORMAT = "boardzoo-probcut"
VERSION = 1
# The command line that calibrates (a name only: this layer never imports the command line).
COMMAND = "boardzoo probcut"


def shallow_depth(depth: int) -> int:
    """The depth of the shallow search that tests a ``depth``-ply node (Edax's rule:
    ``depth // 4 * 2 + depth % 2``: 3 -> 1, 4 -> 2, 5 -> 3, 6 -> 2, ..., 10 -> 6)."""
    return depth // 4 * 2 + depth % 2


@dataclass(frozen=True)
class DepthFit:
    """The fit ``deep = a * shallow + b`` of one depth.

    Attributes:
        depth: the deep search's plies.
        shallow: the shallow search's plies (:func:`shallow_depth`).
        a, b: the least-squares line.
        sigma: the standard deviation of the residuals (the fit's two parameters taken off the
            degrees of freedom), in the evaluation's units.
        pairs: the score pairs fitted.
        stage_sigmas: ``sigma`` of a fit within each stage (``None``: too few pairs there).
    """

    depth: int
    shallow: int
    a: float
    b: float
    sigma: float
    pairs: int
    stage_sigmas: tuple[float | None, ...] = ()


@dataclass
class Calibration:
    """What a calibration measured (so far, while it runs).

    Attributes:
        evaluation: ``"learned"`` or ``"hand"``.
        scores: ``scores[d - 1][i]``: the score of position ``i`` searched ``d`` plies.
        discs: the pieces on the board of each position.
        fits: one :class:`DepthFit` per depth from :data:`MIN_DEPTH` (consecutive; it stops
            at the first depth with fewer than :data:`MIN_PAIRS` pairs).
        seconds: the time spent searching.
    """

    evaluation: str
    scores: list[list[int]]
    discs: list[int]
    fits: list[DepthFit] = field(default_factory=list)
    seconds: float = 0.0


# --- fits --------------------------------------------------------------------------------------


def fit_pairs(shallow: np.ndarray, deep: np.ndarray) -> tuple[float, float, float]:
    """``(a, b, sigma)`` of the least-squares line ``deep = a * shallow + b``; ``sigma`` is the
    residuals' standard deviation with 2 degrees of freedom taken by the fit."""
    x, y = shallow.astype(np.float64), deep.astype(np.float64)
    if np.ptp(x) == 0:  # one shallow value: the line is flat
        a, b = 0.0, float(y.mean())
    else:
        a, b = (float(c) for c in np.polyfit(x, y, 1))
    residuals = y - (a * x + b)
    sigma = float(np.sqrt(np.sum(residuals**2) / max(len(y) - 2, 1)))
    return a, b, sigma


def stage_of(discs: int, cells: int, stages: int = STAGES) -> int:
    """The stage of a position with ``discs`` pieces on a board of ``cells``:
    ``min(stages - 1, discs * stages // cells)`` (the n-tuple nets' rule)."""
    return min(stages - 1, discs * stages // cells)


def fit_depth(
    depth: int, scores: Sequence[Sequence[int]], discs: Sequence[int], cells: int
) -> DepthFit | None:
    """The fit of ``depth`` from ``scores`` (``scores[d - 1][i]``, as :class:`Calibration`);
    ``None`` when fewer than :data:`MIN_PAIRS` pairs are left without game results."""
    shallow = shallow_depth(depth)
    x = np.array(scores[shallow - 1], dtype=np.int64)
    y = np.array(scores[depth - 1], dtype=np.int64)
    keep = (np.abs(x) < WIN // 2) & (np.abs(y) < WIN // 2)
    if keep.sum() < MIN_PAIRS:
        return None
    a, b, sigma = fit_pairs(x[keep], y[keep])
    stage = np.array([stage_of(d, cells) for d in discs], dtype=np.int64)
    by_stage: list[float | None] = []
    for s in range(STAGES):
        band = keep & (stage == s)
        by_stage.append(fit_pairs(x[band], y[band])[2] if band.sum() >= MIN_PAIRS else None)
    return DepthFit(depth, shallow, a, b, sigma, int(keep.sum()), tuple(by_stage))


def extend_fits(calibration: Calibration, cells: int) -> None:
    """Fit each depth measured and not fitted yet, up to the first with too few pairs."""
    for depth in range(MIN_DEPTH + len(calibration.fits), len(calibration.scores) + 1):
        fit = fit_depth(depth, calibration.scores, calibration.discs, cells)
        if fit is None:
            return
        calibration.fits.append(fit)


# --- files -------------------------------------------------------------------------------------


def probcut_file(game: Game, net: str | Path | None = None) -> Path:
    """Where a calibration is kept: ``models/<game.file_stem>.probcut.json`` for ``game``'s own
    evaluations, ``NET.probcut.json`` beside a net file ``NET.npz`` (``net``)."""
    if net is not None:
        return Path(net).with_suffix(".probcut.json")
    return MODELS_DIR / f"{game.file_stem}.probcut.json"


def net_sha256(net: str | Path) -> str:
    """The SHA-256 of the net file ``net`` (hex): what its calibration records."""
    return hashlib.sha256(Path(net).read_bytes()).hexdigest()


def calibrate_command(game: Game, evaluation: str, net: str | Path | None = None) -> str:
    """The command that calibrates ``evaluation`` for ``game`` (for the net file ``net``)."""
    options = "".join(f" --option {name}={value}" for name, value in game.options.items())
    where = "" if net is None else f" --net {net}"
    return f"{COMMAND} {game.name}{options} --evaluation {evaluation}{where}"


def new_probcut_data(game: Game) -> dict[str, Any]:
    """An empty calibration file's content for ``game`` (no evaluations yet)."""
    options = dict(game.options)
    return {"format": FORMAT, "version": VERSION, "game": game.name, "options": options,
            "evaluations": {}}  # fmt: skip


def _bad(path: str | Path, problem: str) -> InvalidFileError:
    return InvalidFileError(f"{path}: not a ProbCut calibration file: {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_fields(where: str, value: Any, fields: dict[str, Callable[[Any], bool]]) -> None:
    if not isinstance(value, dict):
        raise InvalidValueError(f"{where} must be a JSON object")
    for name, check in fields.items():
        if name not in value:
            raise InvalidValueError(f"{where} has no {name!r}")
        if not check(value[name]):
            raise InvalidValueError(f"{where}: {name!r} is malformed ({value[name]!r:.60})")


def _check_fit(where: str, fit: Any, depth: int) -> DepthFit:
    _check_fields(where, fit, {
        "depth": lambda v: v == depth and _is_int(v),
        "shallow": lambda v: v == shallow_depth(depth) and _is_int(v),
        "a": _is_number,
        "b": _is_number,
        "sigma": lambda v: _is_number(v) and v >= 0,
        "pairs": lambda v: _is_int(v) and v >= MIN_PAIRS,
        "stage_sigmas": lambda v: isinstance(v, list) and len(v) == STAGES
        and all(s is None or (_is_number(s) and s >= 0) for s in v),
    })  # fmt: skip
    return DepthFit(
        depth, fit["shallow"], float(fit["a"]), float(fit["b"]), float(fit["sigma"]),
        fit["pairs"], tuple(None if s is None else float(s) for s in fit["stage_sigmas"]),
    )  # fmt: skip


def _check_entry(where: str, entry: Any) -> None:
    _check_fields(where, entry, {
        "command": lambda v: isinstance(v, str),
        "date": lambda v: isinstance(v, str),
        "positions": lambda v: _is_int(v) and v >= 1,
        "seed": _is_int,
        "max_depth": lambda v: _is_int(v) and MIN_DEPTH <= v <= MAX_DEPTH,
        "openings": lambda v: v is None or isinstance(v, str),
        "random_plies": lambda v: _is_int(v) and v >= 0,
        "positions_sha256": lambda v: isinstance(v, str),
        "seconds": lambda v: _is_number(v) and v >= 0,
        "complete": lambda v: isinstance(v, bool),
        "depths": lambda v: isinstance(v, list),
        "discs": lambda v: isinstance(v, list) and all(_is_int(d) and d >= 0 for d in v),
        "scores": lambda v: isinstance(v, list) and all(
            isinstance(row, list) and all(_is_int(s) for s in row) for row in v
        ),
    })  # fmt: skip
    count = entry["positions"]
    if len(entry["discs"]) != count or any(len(row) != count for row in entry["scores"]):
        raise InvalidValueError(f"{where}: discs and each row of scores must hold {count} numbers")
    if "net_sha256" in entry and not isinstance(entry["net_sha256"], str):
        raise InvalidValueError(f"{where}: 'net_sha256' is malformed")
    if len(entry["scores"]) > entry["max_depth"]:
        raise InvalidValueError(f"{where}: more rows of scores than max_depth")
    for i, fit in enumerate(entry["depths"]):
        _check_fit(f"{where}, depths[{i}]", fit, MIN_DEPTH + i)


def check_probcut_data(data: Any, path: str | Path) -> dict[str, Any]:
    """``data`` (a parsed file) if it is a well-formed calibration, else a ``ValueError``
    naming ``path`` and the problem."""
    try:
        _check_fields("the file", data, {
            "format": lambda v: v == FORMAT,
            "version": lambda v: v == VERSION,
            "game": lambda v: isinstance(v, str),
            "options": lambda v: isinstance(v, dict) and all(_is_int(o) for o in v.values()),
            "evaluations": lambda v: isinstance(v, dict) and set(v) <= set(EVALUATIONS),
        })  # fmt: skip
        for evaluation, entry in data["evaluations"].items():
            _check_entry(f"evaluations[{evaluation!r}]", entry)
    except ValueError as error:
        raise _bad(path, str(error)) from None
    result: dict[str, Any] = data
    return result


def _no_constants(name: str) -> Any:
    raise InvalidValueError(f"{name} is not a number JSON allows")


def load_probcut_file(path: str | Path) -> dict[str, Any]:
    """The calibration file ``path``, parsed (as JSON) and checked; a ``ValueError`` naming the
    file and the problem for anything malformed (``FileNotFoundError`` if there is none)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise _bad(path, f"not UTF-8 text ({error})") from None
    try:
        data = json.loads(text, parse_constant=_no_constants)
    except ValueError as error:
        raise _bad(path, f"not JSON ({error})") from None
    return check_probcut_data(data, path)


def _is_flat(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _is_row(value: Any) -> bool:
    return _is_flat(value) or (isinstance(value, list) and all(map(_is_flat, value)))


def to_json(value: Any, indent: str = "") -> str:
    """``value`` as JSON text: a list of numbers on one line, an object of numbers (and lists
    of them) on one line when it is short, everything else one item a line."""
    line = json.dumps(value, allow_nan=False, separators=(", ", ": "))
    if isinstance(value, list) and all(_is_flat(v) for v in value):
        return line
    if isinstance(value, dict) and len(line) <= 160 and all(map(_is_row, value.values())):
        return line
    inner = indent + " "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {to_json(v, inner)}" for k, v in value.items()]
        opening, closing = "{", "}"
    elif isinstance(value, list):
        items = [f"{inner}{to_json(v, inner)}" for v in value]
        opening, closing = "[", "]"
    else:
        return line
    if not items:
        return opening + closing
    return opening + "\n" + ",\n".join(items) + "\n" + indent + closing


def save_probcut_file(path: str | Path, data: dict[str, Any]) -> None:
    """Check ``data`` and write it to ``path`` as JSON (written beside it first, then renamed:
    an interrupted write leaves the old file)."""
    path = Path(path)
    check_probcut_data(data, path)
    text = to_json(data) + "\n"
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def _matching_entry(
    path: Path, game: Game, evaluation: str, net: str | Path | None
) -> dict[str, Any]:
    """The file's entry for ``evaluation``, checked to be for ``game`` (and the net file
    ``net``) and to hold fits."""
    missing = (
        f"no ProbCut calibration of the {evaluation} evaluation for {game.label}"
        f" in {path}; make one with: {calibrate_command(game, evaluation, net)}"
    )
    if not path.is_file():
        raise InvalidValueError(missing.replace(f" in {path}", f" (no file {path})"))
    data = load_probcut_file(path)
    if data["game"] != game.name or data["options"] != dict(game.options):
        raise _bad(path, f"it is for {data['game']} {data['options']}, not {game.label}")
    entry = data["evaluations"].get(evaluation)
    if entry is None or not entry["depths"]:
        raise InvalidValueError(missing)
    if net is not None and entry.get("net_sha256") != net_sha256(net):
        raise InvalidValueError(
            f"{path} was measured for another net than {net} (the file changed since); "
            f"calibrate again with: {calibrate_command(game, evaluation, net)}"
        )
    result: dict[str, Any] = entry
    return result


def _by_depth(values: Sequence[float]) -> np.ndarray:
    """``values`` (from depth :data:`MIN_DEPTH` on) laid out by depth ``0..MAX_DEPTH``: 0 below
    :data:`MIN_DEPTH`, the last value beyond the deepest."""
    table = np.zeros(MAX_DEPTH + 1, dtype=np.float64)
    table[MIN_DEPTH : MIN_DEPTH + len(values)] = values
    table[MIN_DEPTH + len(values) :] = values[-1]
    return table


@cache
def _sigmas(game: Game, evaluation: str, net: str | None) -> tuple[np.ndarray, np.ndarray]:
    entry = _matching_entry(probcut_file(game, net), game, evaluation, net)
    fits = [_check_fit("", fit, MIN_DEPTH + i) for i, fit in enumerate(entry["depths"])]
    sigmas = _by_depth([fit.sigma for fit in fits])
    stages = np.stack(
        [_by_depth([fit.stage_sigmas[s] or fit.sigma for fit in fits]) for s in range(STAGES)]
    )
    sigmas.flags.writeable = False
    stages.flags.writeable = False
    return sigmas, stages


def check_evaluation(evaluation: str) -> None:
    """A ``ValueError`` unless ``evaluation`` is one of :data:`EVALUATIONS`."""
    if evaluation not in EVALUATIONS:
        raise InvalidValueError(
            f"evaluation must be one of {', '.join(EVALUATIONS)}, got {evaluation!r}"
        )


def _net_name(net: str | Path | None) -> str | None:
    return None if net is None else str(net)


def probcut_sigmas(game: Game, evaluation: str, net: str | Path | None = None) -> np.ndarray:
    """Multi-ProbCut's standard errors for ``game`` searched with ``evaluation``.

    Args:
        game: the game with its options.
        evaluation: ``"learned"`` or ``"hand"``.
        net: a net file searched in place of the game's shipped net: its own calibration,
            ``NET.probcut.json`` beside it, is read (``None``: the game's shipped one).

    Returns:
        A read-only float64 array of length ``MAX_DEPTH + 1``: entry ``d`` is the standard error
        of the shallow search's score as an estimate of the ``d``-ply score, in the evaluation's
        units (0 below :data:`MIN_DEPTH`; depths beyond the deepest calibrated repeat it). Read
        from the file once per game, evaluation and net file.

    Raises:
        ValueError: no calibration (the message names the game, the evaluation and the command
            that makes one), a malformed file (the message names it), or the calibration of a
            net file that has changed since.
    """
    check_evaluation(evaluation)
    return _sigmas(game, evaluation, _net_name(net))[0]


def probcut_stage_sigmas(game: Game, evaluation: str, net: str | Path | None = None) -> np.ndarray:
    """:func:`probcut_sigmas` by stage of the game: float64 ``[STAGES, MAX_DEPTH + 1]``, row
    ``s`` for positions with ``stage_of(discs, cells) == s`` (the whole-game sigma where a
    stage had too few pairs). Same errors as :func:`probcut_sigmas`."""
    check_evaluation(evaluation)
    return _sigmas(game, evaluation, _net_name(net))[1]


def search_probcut(
    game: Game, evaluation: str, cut: float, net: str | Path | None = None
) -> np.ndarray:
    """The compiled search's ``probcut`` array (:func:`boardzoo.gametree.template.node`) for
    ``game`` searched with ``evaluation``: the table's age (0: the driver sets it), the threshold
    ``cut`` in standard errors, and :func:`probcut_stage_sigmas` by stage and depth; ``cut`` 0:
    no multi-ProbCut (:func:`~boardzoo.gametree.template.no_probcut`, nothing read); ``net``: a
    net file's own calibration. Same errors as :func:`probcut_sigmas` otherwise."""
    check_evaluation(evaluation)
    if isinstance(cut, bool) or not isinstance(cut, (int, float)) or not cut >= 0:
        raise InvalidValueError(f"cut must be a number >= 0 (0 is off), got {cut!r}")
    if cut == 0:
        return no_probcut()
    sigmas = probcut_stage_sigmas(game, evaluation, net)
    return np.concatenate(([0.0, float(cut), float(sigmas.shape[0])], sigmas.ravel()))
