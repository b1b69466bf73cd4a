"""Relabel the midgame by a deeper search with a fitted net: the bootstrapping step of the
Logistello/Edax recipe.

:mod:`boardzoo.fit.data` labels each position before the solver's reach with its game's result,
a noisy label: one game's result says little of a position forty moves before it ends. Buro's
Logistello and Edax label those positions instead with the score of a deeper search using the
current evaluation, fit again on the new labels, and repeat: each round's evaluation, searched
deeper, is a better teacher for the next.

:func:`relabel` copies a data directory into a new one, each position labelled by its game's
result (``exact`` 0) relabelled with the score of the engine's search at ``depth`` plies with
``net`` (``engine:depth=D,net=NET,exact_empties=0,probcut=0``), converted to the game's score by
the net's own scale: ``scale * atanh(value)``, rounded, within the game's scores. A search that
proves the game's end gets the position's exact score from the solver. Exact labels and the
children of :mod:`boardzoo.fit.children` are copied as they are. The new directory's
``progress.json`` holds the source's settings and, under ``"relabel"``, the net, depth, chunks
done, positions relabelled, time and commands (the net's own commands, how it was made, under
``"net_commands"``): a stopped run goes on at the next chunk, and
a chunk's labels depend only on the chunk, the net and the depth (each game is searched from a
fresh table), so ``workers`` change only the time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents.engine import EngineAgent
from boardzoo.errors import InvalidValueError
from boardzoo.fit.data import (
    PROGRESS,
    Positions,
    board_cells,
    data_game,
    load_chunk,
    read_progress,
    save_chunk,
    write_json,
)
from boardzoo.fit.pool import join_cluster, map_tasks
from boardzoo.games.spec import WIN_SCORE, Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.compile import tree_plugin
from boardzoo.gametree.hooks import LEARNED_SCALE
from boardzoo.gametree.solve import solve
from boardzoo.learned.ntuple import check_net_fits, load_net_file, load_net_metadata

__all__ = ["RelabelSettings", "relabel", "search_labels"]

SOLVE_NODES = 50_000_000  # a proven end is solved exactly within this many positions


@dataclass(frozen=True)
class RelabelSettings:
    """How the midgame is relabelled (stored in the new directory's ``progress.json``).

    Attributes:
        net: the net file the search evaluates with; its metadata's ``scale`` (discs per unit
            of the sum) converts the search's value to the game's score.
        depth: the search's plies.
        table_bits: the search's transposition table: ``2**table_bits`` entries.
    """

    net: str
    depth: int = 6
    table_bits: int = 18

    def __post_init__(self) -> None:
        if not 1 <= self.depth <= 20:
            raise InvalidValueError(f"depth must be 1..20, got {self.depth}")
        if not 10 <= self.table_bits <= 26:
            raise InvalidValueError(f"table_bits must be 10..26, got {self.table_bits}")

    def scale(self) -> float:
        """The net's scale (a ``ValueError`` if the file has none: a fitted net has one)."""
        scale = load_net_metadata(self.net).get("scale")
        if not isinstance(scale, (int, float)) or not scale > 0:
            raise InvalidValueError(
                f"{self.net}: its metadata has no scale (discs per unit of the sum) to convert "
                "the search's values to scores: relabel with a net that fit wrote"
            )
        return float(scale)


def _score_limit(game: Game) -> int:
    plugin = tree_plugin(game)
    limit = getattr(plugin, "SCORE_LIMIT", None)
    return int(limit) if limit is not None else int(game.params[0]).bit_count()


def search_labels(
    game: Game, positions: Positions, settings: RelabelSettings, scale: float
) -> np.ndarray:
    """int16 ``[n]``: the score of ``settings``' search of each of ``positions`` (of one game, in
    its order), for the player to move."""
    engine = EngineAgent(time_limit=None, depth=settings.depth, eval="learned", exact_empties=0,
                         probcut=0, net=settings.net, table_bits=settings.table_bits)  # fmt: skip
    limit = _score_limit(game)
    labels = np.zeros(len(positions), dtype=np.int16)
    for i in range(len(positions)):
        s0, s1 = (int(bits) for bits in positions.bitboards[i])
        state: BoardState = game.state_from_bitboards(s0, s1, int(positions.player[i]))
        sign = 1
        # the engine plays a lone move unsearched: follow such moves to a choice or the end
        while not state.is_terminal() and len(actions := state.legal_actions()) == 1:
            child = state.apply(actions[0])
            sign *= 1 if child.current_player == state.current_player else -1
            state = child
        if state.is_terminal():  # its score, with no search to do
            label = float(solve(state, max_empties=board_cells(game)).score)
        elif abs(score := engine.search(state).score) >= WIN_SCORE // 2:  # it saw the end
            solved = solve(state, max_empties=board_cells(game), max_nodes=SOLVE_NODES)
            label = solved.score if solved.complete else math.copysign(limit, score)
        else:
            value = min(max(score / LEARNED_SCALE, -0.999999), 0.999999)
            label = scale * math.atanh(value)
        labels[i] = int(np.clip(round(sign * label), -limit, limit))
    return labels


def _relabel_game(task: tuple[Game, Positions, RelabelSettings, float]) -> np.ndarray:
    game, positions, settings, scale = task
    return search_labels(game, positions, settings, scale)


def _relabel_chunk(
    game: Game,
    chunk: Positions,
    settings: RelabelSettings,
    scale: float,
    workers: int,
    ray: str | None,
) -> tuple[Positions, int]:
    """``chunk`` with its positions labelled by their game's result relabelled by the search,
    and how many were."""
    todo = chunk.exact == 0
    labels = chunk.label.copy()
    games = np.unique(chunk.game[todo])
    tasks = [(game, chunk.select(todo & (chunk.game == g)), settings, scale) for g in games]
    for g, found in zip(games, map_tasks(_relabel_game, tasks, workers, ray), strict=True):
        labels[np.flatnonzero(todo & (chunk.game == g))] = found
    return replace(chunk, label=labels), int(todo.sum())


def relabel(
    data: str | Path,
    out: str | Path,
    settings: RelabelSettings,
    *,
    workers: int = 1,
    ray: str | None = None,
    minutes: float | None = None,
    command: str = "",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Copy the data directory ``data`` to ``out``, the midgame relabelled by ``settings``'
    search (see the module's docstring), a chunk at a time, until every chunk is done or
    ``minutes`` have passed; run again, it goes on. A chunk's games are searched by ``workers``
    processes, or on the Ray cluster at ``ray`` (:func:`~boardzoo.fit.pool.map_tasks`).
    Returns ``out``'s progress."""
    data, out = Path(data), Path(out)
    if data.resolve() == out.resolve():
        raise InvalidValueError(f"relabel into another directory than the data's own ({data})")
    game = data_game(data)
    check_net_fits(load_net_file(settings.net), game, settings.net)
    join_cluster(ray)
    scale = settings.scale()
    source = read_progress(data)
    if (out / PROGRESS).is_file():
        progress = read_progress(out)
        stored = progress.get("relabel", {})
        if RelabelSettings(**stored.get("settings", {"net": ""})) != settings:
            raise InvalidValueError(
                f"{out} was relabelled with {stored.get('settings')}: keep those settings, or "
                "choose another directory"
            )
        stored["commands"].append(command)
    else:
        progress = {**source, "chunks": []}
        stored = {"settings": asdict(settings), "source": str(data), "scale": scale,
                  "positions": 0, "seconds": 0.0, "commands": [command]}  # fmt: skip
        progress["relabel"] = stored
    # how the net came about, so a net fitted on these labels records its whole lineage
    stored["net_commands"] = list(load_net_metadata(settings.net).get("commands", []))
    progress["games"] = source["games"]  # the source may have grown since
    began = time.perf_counter()
    deadline = None if minutes is None else began + 60.0 * minutes
    seconds_before = float(stored["seconds"])
    out.mkdir(parents=True, exist_ok=True)
    pending = [name for name in source["chunks"] if name not in set(progress["chunks"])]
    log(f"relabelling {data} into {out}: {settings}, scale {scale:g}, {len(pending)} chunks")
    for name in pending:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        t0 = time.perf_counter()
        chunk = load_chunk(data / name)
        done = 0
        if name.startswith("chunk-"):
            chunk, done = _relabel_chunk(game, chunk, settings, scale, workers, ray)
        save_chunk(out / name, chunk)
        progress["chunks"].append(name)
        stored["positions"] += done
        stored["seconds"] = round(seconds_before + time.perf_counter() - began, 1)
        write_json(out / PROGRESS, progress)
        log(f"{name}: {done:,} positions relabelled in {time.perf_counter() - t0:.1f} s "
            f"({stored['positions']:,} in all)")  # fmt: skip
    return progress
