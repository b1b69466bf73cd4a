"""Labelled positions for fitting a game's n-tuple evaluation (the Logistello/Edax recipe).

Any game of the catalog with a learned evaluation (Reversi 4x4, 6x6 and 8x8, Connect Four) is
played: each game is the engine (:class:`~boardzoo.agents.engine.EngineAgent`, fixed depth,
learned evaluation, no solver) against itself from an opening of a suite (the game's shipped
``balanced`` one, or a file such as the XOT openings of Othello; see
:mod:`boardzoo.arena.openings`), with a seeded chance of a random move at every ply for variety.
Once a position has at most ``solve_empties`` empty squares the game is *solved*: that position
and every later one (the engine plays on) get their exact score from the solver
(:func:`~boardzoo.gametree.solve.solve`; Reversi: the final disc difference); every earlier
position gets the exact value of the first solved one, signed for its player to move: the game's
result with a perfect endgame (Buro, "Experiments with Multi-ProbCut and a new high-quality
evaluation function for Othello", 1997).

Positions are saved in chunks of games (``chunk-GGGGGG.npz``, int arrays only, read with
``allow_pickle=False``) under an output directory, with ``progress.json`` (the settings, the
games done, the chunks, the commands). Game ``i`` depends only on the seed and ``i``, so a run
stopped at any point and resumed gives the same data as one run in one piece.

Arrays of a chunk (one row a position, terminal positions left out):

* ``bitboards``: uint64 ``[n, 2]``, the discs of player 0 (black) and player 1 (white).
* ``player``: int8, the player to move.
* ``label``: int16, the score for the player to move (exact where ``exact``).
* ``empties``: int8, the empty squares.
* ``exact``: int8, 1 where the label is the position's own exact value, 0 where it is the
  game's result with a perfect endgame.
* ``game``: int32, the game's number in the run.
"""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents.engine import EngineAgent
from boardzoo.arena.openings import load_openings
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.fit.pool import join_cluster, map_tasks
from boardzoo.games.catalog import all_games, make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import solve
from boardzoo.learned.patterns import has_ntuples

__all__ = [
    "ARRAYS",
    "PROGRESS",
    "GenerateSettings",
    "Positions",
    "board_cells",
    "data_game",
    "generate",
    "load_chunk",
    "load_positions",
    "play_game",
    "save_chunk",
    "write_json",
]

ARRAYS = ("bitboards", "player", "label", "empties", "exact", "game")
PROGRESS = "progress.json"
MOST_SOLVE_EMPTIES = 26  # a Reversi 8x8 solve from more takes minutes


@dataclass(frozen=True)
class GenerateSettings:
    """The settings of a data run (stored in ``progress.json``; a resumed run keeps them).

    Attributes:
        game: the catalog's game, one with a learned evaluation.
        options: its options (``{"board_size": 6}``); the others at their defaults.
        seed: the run's seed; game ``i`` is played from ``(seed, i)``.
        openings: ``"balanced"`` (the suite shipped for the game) or a file of openings, one a
            line, in the game's move names (``f5d6c4...``; :mod:`boardzoo.arena.openings`).
        depth: the engine's fixed depth in plies.
        epsilon: the chance of a random legal move at each ply after the opening ...
        random_empties: ... while the position has more than this many empty squares (0: at
            every ply). A random move after a position changes the result it is labelled with:
            late ones make the labels of the midgame noisy.
        solve_empties: the game is solved from the first position with at most this many empty
            squares; every later position is labelled by the solver.
        chunk_games: games a chunk.
        net: an n-tuple net file the engine plays with (``None``: the shipped net).
        solve_nodes: a solve gives up after about this many positions (``None``: never); a
            position whose solve gave up is labelled like those before the first solved one.
            Whether a solve finishes in its budget depends on what the solver's table holds
            from earlier solves, so with a budget a resumed run may differ from one in one piece.
    """

    seed: int = 0
    openings: str = "balanced"
    depth: int = 3
    epsilon: float = 0.05
    solve_empties: int = 18
    chunk_games: int = 50
    net: str | None = None
    random_empties: int = 0
    solve_nodes: int | None = None
    game: str = "reversi"
    options: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        game = self.make_game()  # the game and its options checked here
        if not has_ntuples(game):
            with_one = ", ".join(spec.name for spec in all_games() if spec.ntuples is not None)
            raise InvalidValueError(
                f"{game.label} has no learned evaluation to fit (no n-tuples on its catalog "
                f"entry); games with one: {with_one}"
            )
        board = board_cells(game)
        if not 1 <= self.depth <= 10:
            raise InvalidValueError(f"depth must be 1..10, got {self.depth}")
        if not 0 <= self.epsilon <= 1:
            raise InvalidValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        most = min(board, MOST_SOLVE_EMPTIES)
        if not 0 <= self.solve_empties <= most:
            raise InvalidValueError(f"solve_empties must be 0..{most}, got {self.solve_empties}")
        if not 0 <= self.random_empties <= board:
            raise InvalidValueError(f"random_empties must be 0..{board}, got {self.random_empties}")
        if self.solve_nodes is not None and self.solve_nodes < 1:
            raise InvalidValueError(f"solve_nodes must be >= 1, got {self.solve_nodes}")
        if self.chunk_games < 1:
            raise InvalidValueError(f"chunk_games must be >= 1, got {self.chunk_games}")

    def make_game(self) -> Game:
        """The game the data is of (a ``ValueError`` for an unknown game or option)."""
        return make_game(self.game, **self.options)


@dataclass(frozen=True)
class Positions:
    """Labelled positions: the arrays of :data:`ARRAYS` (see the module's docstring)."""

    bitboards: np.ndarray
    player: np.ndarray
    label: np.ndarray
    empties: np.ndarray
    exact: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return int(self.player.shape[0])

    @staticmethod
    def of_rows(
        boards: Sequence[tuple[int, int]],
        players: Sequence[int],
        labels: Sequence[int],
        empties: Sequence[int],
        exact: Sequence[int],
        games: Sequence[int],
    ) -> Positions:
        """Positions from one list per array (``boards``: the two bitboards of each)."""
        return Positions(
            np.array(boards, dtype=np.uint64).reshape(len(labels), 2),
            np.array(players, dtype=np.int8),
            np.array(labels, dtype=np.int16),
            np.array(empties, dtype=np.int8),
            np.array(exact, dtype=np.int8),
            np.array(games, dtype=np.int32),
        )

    def select(self, mask: np.ndarray) -> Positions:
        """The positions where ``mask`` (bool ``[n]``) holds."""
        return Positions(*(getattr(self, name)[mask] for name in ARRAYS))

    @staticmethod
    def concatenate(parts: list[Positions]) -> Positions:
        """All positions of ``parts``, in order."""
        if not parts:
            return _empty_positions()
        return Positions(*(np.concatenate([getattr(p, n) for p in parts]) for n in ARRAYS))


def _empty_positions() -> Positions:
    return Positions(
        np.zeros((0, 2), np.uint64),
        np.zeros(0, np.int8),
        np.zeros(0, np.int16),
        np.zeros(0, np.int8),
        np.zeros(0, np.int8),
        np.zeros(0, np.int32),
    )


def board_cells(game: Game) -> int:
    """The cells of ``game``'s board (``params[0]`` masks them in the kernels' layout)."""
    return int(game.params[0]).bit_count()


def _empties(game: Game, state: BoardState) -> int:
    s0, s1 = state.bitboards()
    return (int(game.params[0]) & ~(s0 | s1)).bit_count()


def play_game(
    game: Game, openings: Sequence[Sequence[int]], config: GenerateSettings, index: int
) -> Positions:
    """Play and label game ``index`` of the run ``config`` (see the module's docstring)."""
    rng = np.random.default_rng([config.seed, index])
    state: BoardState = game.initial_state()
    for action in openings[int(rng.integers(len(openings)))]:
        state = state.apply(action)
    engine = EngineAgent(
        time_limit=None,
        depth=config.depth,
        eval="learned",
        exact_empties=0,
        probcut=0,  # the search as the data was first made with: full width
        net=config.net,
        table_bits=16,
        seed=int(rng.integers(2**31)),
    )
    boards: list[tuple[int, int]] = []
    players: list[int] = []
    labels: list[int] = []
    empties: list[int] = []
    exact: list[int] = []
    solved_at = -1  # index of the first solved position
    while not state.is_terminal():
        count = _empties(game, state)
        boards.append(state.bitboards())
        players.append(int(state.current_player))
        empties.append(count)
        solved = (
            solve(state, max_nodes=config.solve_nodes) if count <= config.solve_empties else None
        )
        if solved is not None and solved.complete:
            labels.append(solved.score)
            exact.append(1)
            if solved_at < 0:
                solved_at = len(labels) - 1
        else:
            labels.append(0)
            exact.append(0)
        actions = state.legal_actions()
        if count > config.random_empties and len(actions) > 1 and rng.random() < config.epsilon:
            action = int(actions[int(rng.integers(len(actions)))])
        else:
            action = engine.search(state).action
        state = state.apply(action)
    if solved_at < 0:  # over before solve_empties: the final position's score is the result
        final = solve(state, max_empties=board_cells(game)).score  # over: no search to do
        solved_at, value, who = len(labels), final, int(state.current_player)
    else:
        value, who = labels[solved_at], players[solved_at]
    for i in range(len(labels)):
        if not exact[i]:  # before the first solved position, or a solve that gave up
            labels[i] = value if players[i] == who else -value
    return Positions.of_rows(boards, players, labels, empties, exact, [index] * len(labels))


def _play_task(task: tuple[Game, Sequence[Sequence[int]], GenerateSettings, int]) -> Positions:
    return play_game(*task)


def save_chunk(path: Path, positions: Positions) -> None:
    """Write ``positions`` to the chunk file ``path`` (whole or not at all)."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as file:
        np.savez_compressed(file, **{name: getattr(positions, name) for name in ARRAYS})
    partial.replace(path)


def load_chunk(path: Path) -> Positions:
    """The positions of the chunk file ``path``; a ``ValueError`` if it is not one."""
    with np.load(path, allow_pickle=False) as archive:
        missing = set(ARRAYS) - set(archive.files)
        if missing:
            raise InvalidFileError(f"{path}: not a chunk of positions: missing {sorted(missing)}")
        return Positions(*(archive[name] for name in ARRAYS))


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` (whole or not at all)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    partial.replace(path)


def read_progress(out: str | Path) -> dict[str, Any]:
    """The ``progress.json`` of the data directory ``out``; a ``ValueError`` if it has none."""
    path = Path(out) / PROGRESS
    if not path.is_file():
        raise InvalidFileError(f"{out}: not a data directory (no {PROGRESS})")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def load_positions(*dirs: str | Path) -> Positions:
    """Every position in the chunks that the data directories ``dirs`` list as done."""
    parts = []
    for out in dirs:
        for name in read_progress(out)["chunks"]:
            parts.append(load_chunk(Path(out) / name))
    return Positions.concatenate(parts)


def data_game(*dirs: str | Path) -> Game:
    """The game the data directories ``dirs`` hold positions of (a ``ValueError`` if they
    are of different games)."""
    games = {GenerateSettings(**read_progress(out)["config"]).make_game() for out in dirs}
    if len(games) != 1:
        names = ", ".join(sorted(g.label for g in games)) or "none"
        raise InvalidValueError(f"the data directories hold positions of {names}: give one game's")
    return games.pop()


def _chunks(start: int, end: int | None, size: int) -> Iterator[tuple[int, int]]:
    first = start
    while end is None or first < end:
        last = first + size if end is None else min(first + size, end)
        yield first, last
        first = last


def generate(
    out: str | Path,
    config: GenerateSettings | None = None,
    *,
    games: int | None = None,
    minutes: float | None = None,
    resume: bool = False,
    workers: int = 1,
    ray: str | None = None,
    command: str = "",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Play, label and save games into the directory ``out`` until ``games`` games in all (a
    resumed run counts those before) or ``minutes`` of this run have passed.

    With ``resume`` the run goes on from ``out/progress.json`` with its settings (``config``
    must then be ``None`` or the same). A chunk is saved every ``config.chunk_games`` games, and
    when the time is up (with one worker; with more, when the chunk is done). ``workers``
    processes play a chunk's games, or the Ray cluster at ``ray`` does
    (:func:`~boardzoo.fit.pool.map_tasks`): the data is the same either way. Returns the
    progress (also in ``out/progress.json``).
    """
    if games is None and minutes is None:
        raise InvalidValueError("give games, minutes or both: when to stop")
    join_cluster(ray)
    out = Path(out)
    if resume:
        progress = read_progress(out)
        stored = GenerateSettings(**progress["config"])
        if config is not None and config != stored:
            raise InvalidValueError(f"cannot resume {out} with other settings: it has {stored}")
        config = stored
        progress["commands"].append(command)
    else:
        if (out / PROGRESS).exists():
            raise InvalidValueError(f"{out} already holds data: resume it, or choose another --out")
        config = config or GenerateSettings()
        progress = {
            "config": asdict(config),
            "games": 0,
            "positions": 0,
            "exact_positions": 0,
            "chunks": [],
            "seconds": 0.0,
            "commands": [command],
        }
    game = config.make_game()
    openings = load_openings(config.openings, game).moves
    out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    deadline = None if minutes is None else began + 60.0 * minutes
    seconds_before = float(progress["seconds"])
    log(f"generating into {out}: {config}")
    for first, last in _chunks(int(progress["games"]), games, config.chunk_games):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        t0 = time.perf_counter()
        parts = []
        if workers == 1 and ray is None:
            for index in range(first, last):
                parts.append(play_game(game, openings, config, index))
                if deadline is not None and time.perf_counter() >= deadline:
                    break
        else:
            tasks = [(game, openings, config, index) for index in range(first, last)]
            parts = map_tasks(_play_task, tasks, workers, ray)
        chunk = Positions.concatenate(parts)
        name = f"chunk-{first:06d}.npz"
        save_chunk(out / name, chunk)
        progress["chunks"].append(name)
        progress["games"] = first + len(parts)
        progress["positions"] += len(chunk)
        progress["exact_positions"] += int(chunk.exact.sum())
        progress["seconds"] = round(seconds_before + time.perf_counter() - began, 1)
        progress["date"] = datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"
        )
        write_json(out / PROGRESS, progress)
        took = time.perf_counter() - t0
        log(f"games {progress['games']:,}  positions {progress['positions']:,}  "
            f"{len(parts) / max(took, 1e-9):.2f} games/s")  # fmt: skip
    return progress
