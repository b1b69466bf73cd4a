"""N-tuple networks: a learned evaluation of board positions, and its files.

An n-tuple network (Lucas, "Learning to play Othello with n-tuple systems", 2008; Jaśkowski et
al., "Systematic n-tuple networks for Othello position evaluation", 2014; the patterns of Buro's
Logistello) looks at the position through many small sequences of cells, the *instances*. The
contents of an instance's cells, read as a number in base 3, index a weight in the instance's
table: a cell is the digit 0 empty, 1 a piece of the player to move, 2 an opponent's piece; the
first cell is the most significant digit, and an unused slot (``-1``) reads 0. Symmetric images
of one tuple share a table. The value of a position is ``tanh`` of the sum of the indexed
weights, from the point of view of the player to move, in ``(-1, 1)`` (1: a sure win). Each
*stage* (a band of the number of pieces on the board) has its own weights:
``stage = min(S - 1, pieces * S // cells of the board)``.

Files are ``.npz`` archives written by NumPy and read with ``allow_pickle=False`` (a file is
parsed, never executed): the three arrays of :class:`NTupleNet` and ``metadata``, a JSON text
(the game, its options, the command that trained the net, positions trained, date, ...).
"""

from __future__ import annotations

import json
import zipfile
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.bits import U1, popcount
from boardzoo.games.spec import Game

__all__ = [
    "MAX_TUPLE_LENGTH",
    "MODELS_DIR",
    "NTupleNet",
    "check_net",
    "check_net_fits",
    "has_net",
    "instance_index",
    "load_net",
    "load_net_file",
    "load_net_metadata",
    "net_file_name",
    "ntuple_indices",
    "ntuple_sum_bits",
    "ntuple_sums",
    "ntuple_value",
    "ntuple_value_arrays",
    "save_net",
    "stage_of",
]

MODELS_DIR = Path(__file__).parent / "models"
MAX_TUPLE_LENGTH = 12  # 3**12 weights a table: more than any file should hold


class NTupleNet(NamedTuple):
    """The arrays of an n-tuple network (numba takes it as an argument, as a tuple of arrays).

    Attributes:
        cells: int64 ``[instances, longest]``: the cells (bit numbers of the game's bitboards)
            of each instance, most significant digit first; ``-1`` fills the first slots of a
            shorter instance (it reads as an empty cell, so the index is that of its own cells).
        table: int64 ``[instances]``: the weight table each instance reads.
        weights: float32 ``[stages, tables, 3**longest]``: the weights.
    """

    cells: np.ndarray
    table: np.ndarray
    weights: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def stage_of(s0, s1, params, stages):
    """The stage of a position: ``min(stages - 1, pieces * stages // cells of the board)``."""
    pieces = np.int64(popcount(s0 | s1))
    stage = pieces * stages // np.int64(popcount(params[0]))
    return min(stage, stages - 1)


@njit(cache=True, nogil=True, inline="always")
def instance_index(own, opp, cells, i):
    """The weight index instance ``i`` reads in the position ``own``, ``opp`` (the mover's
    pieces and the opponent's): its cells' digits (0 empty, 1 ``own``, 2 ``opp``) in base 3,
    first cell first; an unused slot (``-1``) reads 0."""
    index = 0
    for j in range(cells.shape[1]):
        cell = cells[i, j]
        digit = 0
        if cell >= 0:
            shift = np.uint64(cell)
            digit = np.int64((own >> shift) & U1) + 2 * np.int64((opp >> shift) & U1)
        index = 3 * index + digit
    return index


@njit(cache=True, nogil=True)
def ntuple_sum_bits(own, opp, stage, cells, table, weights):
    """The sum of the weights that the position ``own``, ``opp`` reads in ``stage``: the one
    evaluator that play, search, training and fitting read (:func:`instance_index`)."""
    total = 0.0
    for i in range(cells.shape[0]):
        total += weights[stage, table[i], instance_index(own, opp, cells, i)]
    return total


@njit(cache=True, nogil=True)
def ntuple_indices(s0, s1, player, cells):
    """int32 ``[n, instances]``: the weight index each instance reads in each of ``n``
    positions (``s0``, ``s1``: uint64 ``[n]``; ``player``: int64 ``[n]``, the side to move), as
    :func:`instance_index` computes it: the features of a least-squares fit."""
    out = np.empty((s0.shape[0], cells.shape[0]), dtype=np.int32)
    for k in range(s0.shape[0]):
        own, opp = (s0[k], s1[k]) if player[k] == 0 else (s1[k], s0[k])
        for i in range(cells.shape[0]):
            out[k, i] = instance_index(own, opp, cells, i)
    return out


@njit(cache=True, nogil=True)
def ntuple_sums(s0, s1, player, params, cells, table, weights):
    """float64 ``[n]``: the sum of the weights each of ``n`` positions reads (``atanh`` of
    :func:`ntuple_value`), in its own stage; the arrays as :func:`ntuple_indices` takes them."""
    out = np.empty(s0.shape[0], dtype=np.float64)
    for k in range(s0.shape[0]):
        own, opp = (s0[k], s1[k]) if player[k] == 0 else (s1[k], s0[k])
        stage = stage_of(s0[k], s1[k], params, weights.shape[0])
        out[k] = ntuple_sum_bits(own, opp, stage, cells, table, weights)
    return out


@njit(cache=True, nogil=True)
def ntuple_value_arrays(s0, s1, player, params, cells, table, weights):
    """:func:`ntuple_value` with the net's three arrays passed one by one."""
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    stage = stage_of(s0, s1, params, weights.shape[0])
    return np.tanh(ntuple_sum_bits(own, opp, stage, cells, table, weights))


@njit(cache=True, nogil=True)
def ntuple_value(s0, s1, player, params, net):
    """The value of a position in ``(-1, 1)`` for ``player``, the player to move.

    ``s0``, ``s1`` are the players' bitboards (uint64), ``params`` the game's parameters and
    ``net`` an :class:`NTupleNet`. Callable from other numba-compiled code.
    """
    return ntuple_value_arrays(s0, s1, player, params, net.cells, net.table, net.weights)


# --- files ------------------------------------------------------------------------------------


def _bad(path: str | Path, problem: str) -> InvalidFileError:
    return InvalidFileError(f"{path}: not an n-tuple net file: {problem}")


def check_net(net: NTupleNet, where: str = "net") -> NTupleNet:
    """``net`` (contiguous) if its arrays fit together, else a ``ValueError`` naming ``where``
    and the problem."""
    cells, table, weights = net
    for name, array, dtype, ndim in (
        ("cells", cells, np.int64, 2),
        ("table", table, np.int64, 1),
        ("weights", weights, np.float32, 3),
    ):
        if not isinstance(array, np.ndarray):
            raise _bad(where, f"{name} is not an array")
        if array.dtype != dtype or array.ndim != ndim:
            raise _bad(
                where,
                f"{name} must be {np.dtype(dtype).name} with {ndim} dimensions, got "
                f"{array.dtype} with shape {array.shape}",
            )
    instances, longest = cells.shape
    if instances == 0 or not 1 <= longest <= MAX_TUPLE_LENGTH:
        raise _bad(where, f"cells must have shape [instances >= 1, 1..{MAX_TUPLE_LENGTH}], "
                   f"got {cells.shape}")  # fmt: skip
    if cells.min() < -1 or cells.max() > 63:
        raise _bad(where, "cells must be bit numbers 0..63 or -1 (unused slot)")
    used = cells >= 0
    if not used[:, -1].all() or (used[:, :-1] & ~used[:, 1:]).any():
        raise _bad(where, "every instance needs a last cell, and -1 slots only at its start")
    if table.shape != (instances,):
        raise _bad(where, f"table must have shape ({instances},), got {table.shape}")
    stages, tables, size = weights.shape
    if stages < 1 or size != 3**longest:
        raise _bad(where, f"weights must have shape [stages >= 1, tables, 3**{longest}], got "
                   f"{weights.shape}")  # fmt: skip
    if table.min() < 0 or table.max() >= tables:
        raise _bad(where, f"table must hold numbers 0..{tables - 1} (the weight tables)")
    if not np.isfinite(weights).all():
        raise _bad(where, "weights must be finite")
    return NTupleNet(
        np.ascontiguousarray(cells), np.ascontiguousarray(table), np.ascontiguousarray(weights)
    )


def save_net(path: str | Path, net: NTupleNet, metadata: dict[str, Any]) -> None:
    """Write ``net`` and ``metadata`` (JSON-serialisable) to the ``.npz`` file ``path``.

    The file is written next to ``path`` first and then renamed, so an interrupted write never
    leaves half a file behind.
    """
    net = check_net(net, str(path))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(metadata, sort_keys=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as file:
        np.savez_compressed(
            file, cells=net.cells, table=net.table, weights=net.weights, metadata=np.array(text)
        )
    partial.replace(path)


def _read(path: str | Path) -> tuple[NTupleNet, dict[str, Any]]:
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise _bad(path, f"cannot read it ({error})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise _bad(path, "it holds one array, not an .npz archive")
    with archive:
        missing = {"cells", "table", "weights", "metadata"} - set(archive.files)
        if missing:
            raise _bad(path, f"missing arrays: {', '.join(sorted(missing))}")
        try:
            arrays = {name: archive[name] for name in ("cells", "table", "weights", "metadata")}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
            raise _bad(path, f"cannot read it ({error})") from None
    text = arrays["metadata"]
    if text.dtype.kind != "U" or text.shape != ():
        raise _bad(path, "metadata must be one JSON text")
    try:
        metadata = json.loads(str(text))
    except json.JSONDecodeError as error:
        raise _bad(path, f"metadata is not JSON ({error})") from None
    if not isinstance(metadata, dict):
        raise _bad(path, "metadata must be a JSON object")
    net = NTupleNet(arrays["cells"], arrays["table"], arrays["weights"])
    return check_net(net, str(path)), metadata


def load_net_file(path: str | Path) -> NTupleNet:
    """The net in the ``.npz`` file ``path``; a ``ValueError`` naming the file and the problem
    for anything that is not a well-formed net file (pickles are never loaded)."""
    return _read(path)[0]


def load_net_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata stored with the net in ``path`` (checked like :func:`load_net_file`)."""
    return _read(path)[1]


def net_file_name(game: Game) -> str:
    """The file name of ``game``'s shipped net (``<game.file_stem>.npz``); a ``ValueError``
    listing the games with one."""
    name = f"{game.file_stem}.npz"
    if not has_net(game):
        have = ", ".join(sorted(path.stem for path in MODELS_DIR.glob("*.npz"))) or "none"
        raise InvalidValueError(f"no learned evaluation for {game.label}; games with one: {have}")
    return name


def has_net(game: Game) -> bool:
    """Whether ``game`` (with its options) has a shipped net."""
    return (MODELS_DIR / f"{game.file_stem}.npz").is_file()


@cache
def load_net(game: Game) -> NTupleNet:
    """The shipped net of ``game`` (loaded once per game).

    Raises:
        ValueError: ``game`` has no shipped net (the message lists the games with one), or the
            file does not fit the game.
    """
    path = MODELS_DIR / net_file_name(game)
    if not path.exists():
        raise InvalidFileError(f"the learned evaluation of {game.label} is missing: no file {path}")
    net, metadata = _read(path)
    if metadata.get("game") != game.name or metadata.get("options", {}) != dict(game.options):
        raise _bad(path, f"it is for {metadata.get('game')} {metadata.get('options')}, "
                   f"not {game.label}")  # fmt: skip
    return check_net_fits(net, game, str(path))


def check_net_fits(net: NTupleNet, game: Game, where: str = "net") -> NTupleNet:
    """``net`` if every cell it reads is a cell of ``game``'s board, else a ``ValueError``
    naming ``where``."""
    board = int(game.params[0])
    outside = [c for c in np.unique(net.cells).tolist() if c >= 0 and not board >> c & 1]
    if outside:
        raise _bad(where, f"cells {outside} are not cells of {game.label}")
    return net
