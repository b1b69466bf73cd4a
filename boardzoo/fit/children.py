"""The positions a search compares: every move's result from the solved positions, solved too.

:mod:`boardzoo.fit.data` labels the positions of games, the moves the engine chose. A search
ranks the results of every legal move, the bad ones too, and a net fitted on game positions alone
has seen few of those: fitted on them, it chose worse moves than the shipped TD net at 12-18
empties (one ply: 6.0 discs lost a move against 4.1), though its error on game positions was
lower. This step adds to a data directory, for each exactly labelled position with
``min_empties`` to ``max_empties`` empty squares and at least two moves, the position after each
legal move with its exact value (one solve with ``all_moves`` scores them all): the siblings a
search compares, labelled by the solver.

The children of game chunk ``chunk-GGGGGG.npz`` go to ``children-GGGGGG.npz`` in the same
directory with their parent's game number (a fit that holds a game out holds its children out
with it), listed in ``progress.json``'s chunks, so every reader of the directory
(:func:`~boardzoo.fit.data.load_positions`) reads them. A child whose player to move must pass is
stored with the other player to move and that player's value (the learned evaluations value a
player who has a move; see :func:`~boardzoo.gametree.hooks.tree_horizon`); finished
games are left out. ``progress.json``'s ``"children"`` holds the settings, the chunks done, the
positions and the time; a stopped run goes on at the next chunk without children, and after a
``generate`` run has added games, another children run labels their children.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.fit.data import (
    PROGRESS,
    Positions,
    data_game,
    load_chunk,
    read_progress,
    save_chunk,
    write_json,
)
from boardzoo.fit.pool import join_cluster, map_tasks
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import solve

__all__ = ["ChildrenSettings", "add_children", "children_of", "solved_children"]

MOST_EMPTIES = 22  # beyond, one exact solve of every move takes seconds or more


@dataclass(frozen=True)
class ChildrenSettings:
    """Which positions get their children labelled (stored in ``progress.json``).

    Attributes:
        min_empties: the fewest empty squares of a parent.
        max_empties: the most (at most the data's ``solve_empties``: only exactly labelled
            positions are parents).
    """

    min_empties: int = 8
    max_empties: int = 18

    def __post_init__(self) -> None:
        if not 1 <= self.min_empties <= self.max_empties <= MOST_EMPTIES:
            raise InvalidValueError(
                f"need 1 <= min_empties <= max_empties <= {MOST_EMPTIES}, got "
                f"min_empties={self.min_empties}, max_empties={self.max_empties}"
            )


Child = tuple[int, int, int, int]  # player 0's bitboard, player 1's, player to move, label


def children_of(state: BoardState, move_scores: dict[int, int]) -> list[Child]:
    """``(s0, s1, player, label)`` of each legal move's result that is not a finished game
    (``s0``, ``s1``: the players' bitboards): ``label`` is the exact score for ``player``, the
    player to move (the mover again where the opponent must pass). ``move_scores``: each move's
    exact score for the player to move in ``state`` (:func:`~boardzoo.gametree.solve.solve`
    with ``all_moves``)."""
    rows: list[Child] = []
    mover = int(state.current_player)
    for action, score in move_scores.items():
        child = state.apply(action)
        if child.is_terminal():
            continue
        s0, s1 = child.bitboards()
        if child.must_pass():
            rows.append((s0, s1, mover, score))
        else:
            rows.append((s0, s1, int(child.current_player), -score))
    return rows


def solved_children(game: Game, parents: Positions, config: ChildrenSettings) -> Positions:
    """The labelled children (:func:`children_of`) of the exactly labelled ``parents`` (positions
    of ``game``) with ``config``'s empty squares and at least two moves, in the parents'
    order."""
    chosen = (parents.exact == 1) & (parents.empties >= config.min_empties)
    chosen &= parents.empties <= config.max_empties
    boards: list[tuple[int, int]] = []
    players: list[int] = []
    labels: list[int] = []
    empties: list[int] = []
    games: list[int] = []
    for i in np.flatnonzero(chosen):
        s0, s1 = (int(bits) for bits in parents.bitboards[i])
        state = game.state_from_bitboards(s0, s1, int(parents.player[i]))
        if len(state.legal_actions()) < 2:
            continue
        for row in children_of(state, solve(state, all_moves=True).move_scores):
            boards.append((row[0], row[1]))
            players.append(row[2])
            labels.append(row[3])
            empties.append(int(parents.empties[i]) - 1)
            games.append(int(parents.game[i]))
    return Positions.of_rows(boards, players, labels, empties, [1] * len(labels), games)


def _children_task(task: tuple[Game, Positions, ChildrenSettings]) -> Positions:
    return solved_children(*task)


def add_children(
    data: str | Path,
    config: ChildrenSettings | None = None,
    *,
    minutes: float | None = None,
    workers: int = 1,
    ray: str | None = None,
    command: str = "",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Label the children of the game chunks of the data directory ``data`` that have none yet
    (see the module's docstring), a chunk at a time, until all have or ``minutes`` have passed.

    ``config`` must be ``None`` or the directory's own once it has children. ``workers``
    processes label a chunk's games, or the Ray cluster at ``ray`` does
    (:func:`~boardzoo.fit.pool.map_tasks`; the children are the same either way). Returns the
    directory's progress (also in ``data/progress.json``).
    """
    data = Path(data)
    progress = read_progress(data)
    game = data_game(data)
    join_cluster(ray)
    stored = progress.get("children")
    if stored is not None:
        kept = ChildrenSettings(**stored["config"])
        if config is not None and config != kept:
            raise InvalidValueError(
                f"{data} has children labelled with {kept}: keep those settings"
            )
        config = kept
        stored["commands"].append(command)
    else:
        config = config or ChildrenSettings()
        stored = {"config": asdict(config), "chunks": 0, "positions": 0, "seconds": 0.0,
                  "commands": [command]}  # fmt: skip
        progress["children"] = stored
    began = time.perf_counter()
    deadline = None if minutes is None else began + 60.0 * minutes
    seconds_before = float(stored["seconds"])
    done = set(progress["chunks"])
    pending = [name for name in progress["chunks"] if name.startswith("chunk-")]
    pending = [name for name in pending if "children-" + name[len("chunk-") :] not in done]
    log(f"labelling children in {data}: {config}, {len(pending)} chunks to do")
    for name in pending:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        t0 = time.perf_counter()
        chunk = load_chunk(data / name)
        games = np.unique(chunk.game)
        tasks = [(game, chunk.select(chunk.game == g), config) for g in games]
        children = Positions.concatenate(map_tasks(_children_task, tasks, workers, ray))
        target = "children-" + name[len("chunk-") :]
        save_chunk(data / target, children)
        progress["chunks"].append(target)
        stored["chunks"] += 1
        stored["positions"] += len(children)
        stored["seconds"] = round(seconds_before + time.perf_counter() - began, 1)
        write_json(data / PROGRESS, progress)
        log(f"{target}: {len(children):,} children in {time.perf_counter() - t0:.1f} s "
            f"({stored['positions']:,} in all)")  # fmt: skip
    return progress
