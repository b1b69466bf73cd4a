"""Making a labelled set: positions from games of varied strength, scored by the exact solver.

Games are played between pairs of agents from weak to strong (random, greedy, alpha-beta, MCTS;
:data:`PAIRINGS`), the pairing and the seeds taken from the game's number, so that the same
command makes the same set. From each game a few positions in play are drawn at random (within
the empty squares the solver is asked to reach), each new one scored by
``solve(state, all_moves=True)`` and written at once: :func:`make_labelled` run again on the same
file goes on from the next game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.accuracy.labelled import (
    LabelledPosition,
    LabelledSet,
    append_positions,
    read_labelled,
    write_header,
)
from boardzoo.agents.base import known_state
from boardzoo.agents.registry import make_agent
from boardzoo.checks import check_int
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import empties_of, solvable, solve
from boardzoo.interop import is_openspiel_state, known_elsewhere, moves_to

__all__ = ["PAIRINGS", "LabelledSetSettings", "label_positions", "make_labelled"]

# Who plays the games, weak to strong: the positions of a learner's games against anyone.
PAIRINGS: tuple[tuple[str, str], ...] = (
    ("random", "random"),
    ("greedy", "random"),
    ("greedy", "greedy"),
    ("alphabeta:depth=2", "greedy"),
    ("alphabeta:depth=4", "alphabeta:depth=2"),
    ("mcts:simulations=300", "alphabeta:depth=3"),
    ("mcts:simulations=1000", "mcts:simulations=300"),
)


@dataclass(frozen=True)
class LabelledSetSettings:
    """What positions a set holds.

    Attributes:
        positions: how many.
        per_game: at most this many positions drawn from one game.
        min_empties: positions have at least this many empty squares.
        max_empties: and at most this many (``None``: as many as the solver reaches).
        seed: the seed of game ``i`` is ``seed + i``.
    """

    positions: int = 2000
    per_game: int = 3
    min_empties: int = 1
    max_empties: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("positions", self.positions, 1)
        check_int("per_game", self.per_game, 1)
        check_int("min_empties", self.min_empties, 0)
        if self.max_empties is not None:
            check_int("max_empties", self.max_empties, self.min_empties)


def _play(game: Game, pairing: tuple[str, str], seed: int) -> tuple[list[BoardState], list[int]]:
    """The positions and moves of one game between the pairing's agents (colours by the
    seed)."""
    first, second = pairing if seed % 2 == 0 else pairing[::-1]
    agents = (make_agent(first, seed=seed), make_agent(second, seed=seed + 1))
    state = game.initial_state()
    states, moves = [state], []
    while not state.is_terminal():
        moves.append(agents[state.current_player].act(state))
        state = state.apply(moves[-1])
        states.append(state)
    return states, moves


def _wanted(state: BoardState, config: LabelledSetSettings) -> bool:
    empties = empties_of(state)
    if state.is_terminal() or empties < config.min_empties:
        return False
    if config.max_empties is not None and empties > config.max_empties:
        return False
    return len(state.legal_actions()) > 1 and solvable(state, config.max_empties)


def make_labelled(
    game: Game,
    path: Path,
    config: LabelledSetSettings,
    command: str,
    minutes: float | None = None,
    log: Callable[[str], None] = print,
) -> int:
    """Add positions to the set at ``path`` until it holds ``config.positions`` (or
    ``minutes`` have passed); returns how many it holds.

    Raises:
        ValueError: ``path`` holds a set of another game or made with other settings.
    """
    settings = {
        "positions": config.positions,
        "per_game": config.per_game,
        "min_empties": config.min_empties,
        "max_empties": config.max_empties,
        "seed": config.seed,
        "pairings": [list(p) for p in PAIRINGS],
    }
    if path.is_file():
        _drop_cut_line(path)
        existing = read_labelled(path)
        if existing.game.label != game.label or existing.header.get("settings") != settings:
            raise InvalidValueError(
                f"{path} holds a set of {existing.game.label} made with "
                f"{existing.header.get('settings')}: give another file, or the same settings"
            )
        positions: Sequence[LabelledPosition] = existing.positions
    else:
        write_header(path, game, {"command": command, "made": time.strftime("%Y-%m-%d"),
                                  "settings": settings})  # fmt: skip
        positions = []
    seen = {_key(p.state(game)) for p in positions}
    count = len(positions)
    index = max((p.game_index for p in positions), default=-1) + 1
    stop = None if minutes is None else time.monotonic() + 60 * minutes
    while count < config.positions and (stop is None or time.monotonic() < stop):
        pairing = PAIRINGS[index % len(PAIRINGS)]
        rng = np.random.default_rng(config.seed + index)
        history, moves = _play(game, pairing, config.seed + index)
        candidates = [i for i, state in enumerate(history) if _wanted(state, config)]
        picked = sorted(int(i) for i in rng.permutation(len(candidates))[: config.per_game])
        found: list[LabelledPosition] = []
        for i in (candidates[j] for j in picked):
            state = history[i]
            if _key(state) in seen or count + len(found) >= config.positions:
                continue
            result = solve(state, all_moves=True, max_empties=config.max_empties)
            seen.add(_key(state))
            found.append(
                LabelledPosition(tuple(moves[:i]), result.move_scores, "-".join(pairing), index)
            )
        append_positions(path, found)
        count += len(found)
        if found:
            log(f"game {index} ({' vs '.join(pairing)}): {count}/{config.positions} positions")
        index += 1
    return count


def label_positions(
    positions: Iterable[Any], source: str = "", max_empties: int | None = None
) -> LabelledSet:
    """A labelled set of the given positions, each move scored by the exact solver, for
    :func:`~boardzoo.accuracy.measure.measure_accuracy`.

    Args:
        positions: positions of one game: boardzoo states or envs, PettingZoo's own
            ``connect_four_v3`` or ``tictactoe_v3`` envs, OpenSpiel ``tic_tac_toe``,
            ``connect_four`` or ``othello`` states (:mod:`boardzoo.interop`), in play.
        source: what the positions are, kept with each.
        max_empties: the solver's limit (``None``: its own, see
            :func:`~boardzoo.gametree.solve.solve`).

    Raises:
        ValueError: a position no game of the catalog reads, over, of another game than the
            first's, or whose moves from the start cannot be found; before any solve.
    """
    given = list(positions)
    states = [_readable(thing, number) for number, thing in enumerate(given, start=1)]
    if not states:
        raise InvalidValueError("label_positions needs at least one position")
    game = states[0].game
    histories: list[list[int]] = []
    for number, (thing, state) in enumerate(zip(given, states, strict=True), start=1):
        if state.game != game:
            raise InvalidValueError(
                f"position {number} is of {state.game.label}, the first of {game.label}"
            )
        if state.is_terminal():
            raise InvalidValueError(f"position {number} is over: there is no move to score")
        moves = [int(a) for a in thing.history()] if is_openspiel_state(thing) else moves_to(state)
        if moves is None:
            raise InvalidValueError(f"position {number}: no moves from the start reach it")
        histories.append(moves)
    labelled = [
        LabelledPosition(
            tuple(moves), solve(state, all_moves=True, max_empties=max_empties).move_scores,
            source, index,
        )
        for index, (state, moves) in enumerate(zip(states, histories, strict=True))
    ]  # fmt: skip
    return LabelledSet(game, labelled, {"source": source})


def _readable(thing: Any, number: int) -> BoardState:
    state = known_state(thing)
    if not isinstance(state, BoardState) or state.game is None:
        raise InvalidValueError(
            f"position {number} ({type(thing).__name__}) is not a position of boardzoo's games "
            f"or of {known_elsewhere()}"
        )
    return state


def _drop_cut_line(path: Path) -> None:
    """Cut a last line that a stopped run left half-written (every whole line ends in a newline)."""
    text = path.read_text()
    if text and not text.endswith("\n"):
        path.write_text(text[: text.rfind("\n") + 1])


def _key(state: BoardState) -> tuple[int, int, int]:
    s0, s1 = state.bitboards()
    return s0, s1, state.current_player
