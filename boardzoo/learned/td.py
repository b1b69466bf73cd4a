"""Training runs of n-tuple networks by TD(λ) self-play, and measuring a net against a baseline.

:func:`train` runs the compiled self-play trainer (:mod:`boardzoo.learned.td_kernels`, where the
method is described) in chunks of games and saves a checkpoint (``net.npz``: the weights, with
the run's settings, progress and RNG state in its metadata) after each; :func:`measure` scores
a net's one-ply player against the game's greedy rule or random moves.

The run is deterministic: the same seed and the same number of games give the same weights, in
one piece or resumed from a checkpoint (:func:`train`).
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.bits import seed_rng as _seed_rng
from boardzoo.games.spec import Game
from boardzoo.learned.ntuple import (
    NTupleNet,
    load_net_file,
    load_net_metadata,
    save_net,
)
from boardzoo.learned.patterns import game_tuples
from boardzoo.learned.td_kernels import OPPONENT_GREEDY, OPPONENT_RANDOM, compiled_learned

__all__ = [
    "TDTrainSettings",
    "measure",
    "new_net",
    "seed_rng",
    "train",
]


def seed_rng(seed: int) -> int:
    """The RNG state a seed starts from (one splitmix64 step, never 0)."""
    return int(_seed_rng(np.uint64(seed % 2**64)))


def new_net(game: Game, stages: int | None = None) -> NTupleNet:
    """A net of ``game``'s n-tuples with every weight 0 (``stages``: ``game.td_stages``)."""
    cells, table = game_tuples(game)
    if stages is None:
        stages = game.td_stages
    if stages < 1:
        raise InvalidValueError(f"stages must be >= 1, got {stages}")
    longest = cells.shape[1]
    weights = np.zeros((stages, int(table.max()) + 1, 3**longest), dtype=np.float32)
    return NTupleNet(cells, table, weights)


@dataclass(frozen=True)
class TDTrainSettings:
    """The settings of a TD(λ) training run of an n-tuple net (stored in the checkpoint's
    metadata, ``lam`` as ``"lambda"``; ``stages`` is not stored: the net's weights hold it).

    Attributes:
        seed: the run's seed.
        lr: the learning rate, in ``(0, 10]`` (divided among the net's n-tuple instances).
        lam: TD's λ, in ``[0, 1]``.
        epsilon: the chance of a random move, in ``[0, 1]``.
        chunk_games: games between checkpoints (at least 1).
        stages: weight sets by piece count (``None``: the game's ``td_stages``).

    Raises:
        ValueError: a value out of range, naming it.
    """

    seed: int = 0
    lr: float = 0.1
    lam: float = 0.5
    epsilon: float = 0.1
    chunk_games: int = 2000
    stages: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.lr <= 10:
            raise InvalidValueError(f"lr must be > 0 and <= 10, got {self.lr!r}")
        for name, value in (("lam", self.lam), ("epsilon", self.epsilon)):
            if not 0 <= value <= 1:
                raise InvalidValueError(f"{name} must be in [0, 1], got {value!r}")
        if self.chunk_games < 1:
            raise InvalidValueError(f"chunk_games must be >= 1, got {self.chunk_games!r}")
        set_ = object.__setattr__
        set_(self, "seed", int(self.seed))
        set_(self, "lr", float(self.lr))
        set_(self, "lam", float(self.lam))
        set_(self, "epsilon", float(self.epsilon))
        set_(self, "chunk_games", int(self.chunk_games))

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "lr": self.lr,
            "lambda": self.lam,
            "epsilon": self.epsilon,
            "chunk_games": self.chunk_games,
        }


def _start(game: Game) -> tuple[np.uint64, np.uint64, int]:
    state = game.initial_state()
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    return s0, s1, int(state.current_player)


def measure(
    game: Game, net: NTupleNet, opponent: str = "greedy", games: int = 100, seed: int = 1
) -> float:
    """The score (0..1) of the net's one-ply player against ``"greedy"`` or ``"random"`` over
    ``games`` games (colours alternated, openings of a few random plies)."""
    if opponent not in ("greedy", "random"):
        raise InvalidValueError(f"opponent must be 'greedy' or 'random', got {opponent!r}")
    kind = OPPONENT_GREEDY if opponent == "greedy" else OPPONENT_RANDOM
    plies = game.opening_plies
    score, _ = compiled_learned(game)["duel"](
        *_start(game), game.params, *net, kind, games, plies, np.uint64(seed_rng(seed))
    )
    return float(score) / games


def train(
    game: Game,
    out: str | Path,
    *,
    config: TDTrainSettings | None = None,
    games: int | None = None,
    minutes: float | None = None,
    resume: bool = False,
    command: str = "",
    eval_every: float = 120.0,
    eval_games: int = 100,
    log: Callable[[str], None] = print,
) -> Path:
    """Train ``game``'s net by self-play into the directory ``out`` (checkpoint ``net.npz``).

    Trains in chunks of ``config.chunk_games`` games and saves after each chunk, until ``games``
    games in all (a run resumed counts those before) or ``minutes`` of this run have passed,
    whichever comes first. With ``resume`` the run goes on from ``out/net.npz`` with its
    settings, weights and RNG state. Every ``eval_every`` seconds (0: never) the log gets the
    net's score against the game's greedy rule over ``eval_games`` games. Returns the
    checkpoint's path.
    """
    if games is None and minutes is None:
        raise InvalidValueError("give games, minutes or both: when to stop")
    path = Path(out) / "net.npz"
    label = {"game": game.name, "options": dict(game.options)}
    if resume:
        if not path.exists():
            raise InvalidValueError(f"cannot resume: no checkpoint {path}")
        meta = load_net_metadata(path)
        if {k: meta.get(k) for k in label} != label:
            raise InvalidValueError(f"cannot resume: {path} is a net of {meta.get('game')} "
                             f"{meta.get('options')}, not {game.label}")  # fmt: skip
        net = load_net_file(path)
        settings = meta["training"]
        config = TDTrainSettings(
            seed=settings["seed"],
            lr=settings["lr"],
            lam=settings["lambda"],
            epsilon=settings["epsilon"],
            chunk_games=settings["chunk_games"],
        )
        progress = meta["progress"]
        rng = int(progress["rng"])
        done_games, done_positions = int(progress["games"]), int(progress["positions"])
        seconds_before = float(progress["seconds"])
        commands = [*meta.get("commands", []), command]
    else:
        config = config or TDTrainSettings()
        net = new_net(game, config.stages)
        rng = seed_rng(config.seed)
        done_games = done_positions = 0
        seconds_before = 0.0
        commands = [command]
    trainer = compiled_learned(game)["train_games"]
    rate = config.lr / net.cells.shape[0]
    start = _start(game)
    began = last_eval = time.perf_counter()
    score: dict[str, Any] = {}
    deadline = None if minutes is None else began + 60.0 * minutes
    instances, (stages, tables, size) = net.cells.shape[0], net.weights.shape
    log(f"training {game.label}: {instances} instances, {tables} tables of {size} weights, "
        f"{stages} stages; {config.as_dict()}")  # fmt: skip
    while games is None or done_games < games:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        chunk = config.chunk_games if games is None else min(config.chunk_games, games - done_games)
        t0 = time.perf_counter()
        state, positions = trainer(
            *start, game.params, *net, chunk, rate, config.lam, config.epsilon, np.uint64(rng)
        )
        took = time.perf_counter() - t0
        rng = int(state)
        done_games += chunk
        done_positions += int(positions)
        elapsed = time.perf_counter() - began
        meta = {
            **label,
            "kind": "ntuple",
            "training": config.as_dict(),
            "method": "TD(lambda) self-play, offline lambda-returns, epsilon-greedy 1-ply",
            "commands": commands,
            "command": " ; ".join(c for c in commands if c),
            "progress": {
                "games": done_games,
                "positions": done_positions,
                "rng": str(rng),
                "seconds": round(seconds_before + elapsed, 1),
            },
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            **score,
        }
        line = (f"games {done_games:,}  positions {done_positions:,}  "
                f"{positions / max(took, 1e-9):,.0f} positions/s")  # fmt: skip
        if eval_every and time.perf_counter() - last_eval >= eval_every:
            result = measure(game, net, "greedy", eval_games, seed=done_games)
            score = {"greedy_score": {"score": result, "games": eval_games, "at": done_games}}
            meta.update(score)
            line += f"  vs hand greedy: {result:.3f} over {eval_games} games"
            last_eval = time.perf_counter()
        save_net(path, net, meta)
        log(line)
    log(f"saved {path}")
    return path
