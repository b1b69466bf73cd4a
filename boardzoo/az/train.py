"""AlphaZero training by self-play: ``boardzoo train`` and :func:`train`.

Each iteration plays ``games_per_iteration`` self-play games with the batched search and the
current network, adds their positions to a replay buffer, takes ``steps_per_iteration`` learner
steps on batches sampled from it (each sample under a random board symmetry), saves the model,
evaluates it against a fixed panel through the arena, and commits a checkpoint. The run folder:

================================  ===========================================================
``settings.json``                 the run's settings (a resumed run must keep the same game,
                                  network and search)
``model.pt`` / ``model.json``     the latest model: ``az:model=<folder>/model.pt``
``models/iteration-NNNN.pt``      the model after each iteration (with its ``.json``)
``checkpoint/``                   learner (network, optimiser, generator), replay buffer,
                                  counters and metrics: what ``--resume`` continues from
``metrics.csv``                   a row per iteration: games, positions, losses, time, and the
                                  score and Elo difference against each panel agent
``elo.png``                       the Elo differences over the iterations
``tensorboard/``                  the same figures for TensorBoard, when it is installed
================================  ===========================================================

A checkpoint is written to ``checkpoint.new/`` and then swapped in, so a run killed at any
moment (``kill -9`` included) resumes from the last complete iteration, with the buffer, the
optimiser, every generator and the counters as they were: a resumed run plays the same games as
an uninterrupted one (on the CPU). The budgets (``minutes``, ``iterations``) count the whole
run, resumes included: resuming a killed run finishes it; raise them to train further.

Model files hold plain tensors plus a JSON config and load with ``torch.load(weights_only=True)``
(:mod:`boardzoo.learned.model_io`): loading a model never runs code.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np

from boardzoo.arena import play_match
from boardzoo.arena.seeds import derive_seed
from boardzoo.az.replay import ReplayBuffer
from boardzoo.az.selfplay import SelfPlayConfig, play_games
from boardzoo.games.catalog import get_game, make_game
from boardzoo.learned.files import atomic_write, atomic_write_text
from boardzoo.search.batched import BatchedSearch, PUCTConfig
from boardzoo.search.evaluators import encode

__all__ = ["DEFAULT_PANEL", "QUICK", "TrainSettings", "TrainSummary", "settings_from", "train"]

# The evaluation panel: "{simulations}" is the training's simulations per move (UCT at equal
# simulations).
DEFAULT_PANEL = (
    "random",
    "greedy",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "mcts:simulations={simulations}",
)
# Settings of `--quick`: a tiny run that shows every part working in seconds.
QUICK: dict[str, Any] = {
    "channels": 8,
    "blocks": 1,
    "value_hidden": 8,
    "simulations": 8,
    "games_per_iteration": 4,
    "parallel_games": 4,
    "batch_size": 32,
    "steps_per_iteration": 4,
    "eval_games": 2,
    "panel": ("random",),
    "iterations": 2,
}
# Settings a resumed run must share with the run it continues.
_FIXED = (
    "game",
    "options",
    "channels",
    "blocks",
    "value_hidden",
    "search",
    "gumbel_k",
    "simulations",
    "parallel_games",
    "games_per_iteration",
    "temperature_plies",
    "opening_plies",
    "record_forced",
    "dirichlet_alpha",
    "buffer_size",
    "batch_size",
    "steps_per_iteration",
    "optimizer",
    "lr",
    "weight_decay",
    "seed",
)
# What a run's settings.json written before a setting existed means: the behaviour of then.
_BEFORE_SETTING_EXISTED: dict[str, Any] = {"record_forced": False}
_CHECKPOINT_FORMAT = 1


def with_old_defaults(saved: Mapping[str, Any]) -> dict[str, Any]:
    """A run's saved settings, with the settings it predates set to how it was trained."""
    return {**_BEFORE_SETTING_EXISTED, **saved}


def _int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _float(name: str, value: Any, low: float, open_low: bool = True) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if ok:
        ok = math.isfinite(value) and (value > low if open_low else value >= low)
    if not ok:
        raise ValueError(
            f"{name} must be a number {'>' if open_low else '>='} {low}, got {value!r}"
        )
    return float(value)


@dataclass(frozen=True)
class TrainSettings:
    """Everything that defines a training run (checked when made).

    Args:
        game: a catalog game (``"reversi"``, ``"tictactoe"``, ``"connect_four"``).
        options: the game's options (``{"board_size": 8}``); defaults filled in.
        out: the run folder.
        minutes: stop after this much training time in all (resumes included); ``None``: no
            limit.
        iterations: stop after this many iterations in all; ``None``: no limit (one of the two
            budgets is required).
        resume: continue the run in ``out`` from its last complete iteration.
        device: ``"auto"`` (CUDA when present, else the CPU with every core), ``"cpu"`` or
            ``"cuda"``.
        seed: the run's seed: same seed, same run (on the CPU).
        channels: filters of the network's residual tower.
        blocks: residual blocks.
        value_hidden: units of the value head's hidden layer.
        search: ``"gumbel"`` (Gumbel AlphaZero, learns with few simulations) or ``"puct"``.
        gumbel_k: root actions Gumbel AlphaZero considers.
        simulations: simulations per self-play move.
        parallel_games: self-play games searched together (the network's batch).
        games_per_iteration: self-play games per iteration.
        temperature_plies: PUCT: opening plies whose move is drawn from the visit counts.
        opening_plies: the most random plies that start a self-play game (each game draws
            0 to this many; not recorded).
        record_forced: also train on the positions with a single legal action (a pass, the
            last column), the forced move as their policy target. Runs started before this
            setting existed resume without it.
        dirichlet_alpha: PUCT: root noise concentration (``None``: none).
        buffer_size: positions the replay buffer keeps.
        batch_size: positions per learner step.
        steps_per_iteration: learner steps per iteration.
        optimizer: ``"sgd"``, ``"adam"`` or ``"adamw"``.
        lr: learning rate.
        weight_decay: L2 weight decay.
        eval_games: games against each panel agent after every iteration (0: no evaluation).
        eval_every: evaluate after every this many iterations.
        panel: agent specs to evaluate against (``{simulations}`` is replaced by the training's
            simulations).
        progress: show a progress bar (on a terminal).
        self_play_workers: workers that play each iteration's self-play games (1: in this
            process); see :mod:`boardzoo.az.selfplay_pool`. A run may be resumed with another
            number (its later games then differ from those of the first number).
        backend: where the self-play workers run: ``"local"`` (processes here) or ``"ray"``
            (Ray actors; ``pip install boardzoo[ray]``).
        address: the Ray cluster to join (``"auto"``, ``"host:port"``; ``backend="ray"`` only);
            ``None`` starts one here.
    """

    game: str
    options: Mapping[str, int] = field(default_factory=dict)
    out: Path = Path("runs/az")
    minutes: float | None = None
    iterations: int | None = None
    resume: bool = False
    device: str = "auto"
    seed: int = 0
    channels: int = 64
    blocks: int = 4
    value_hidden: int = 64
    search: Literal["gumbel", "puct"] = "gumbel"
    gumbel_k: int = 16
    simulations: int = 32
    parallel_games: int = 64
    games_per_iteration: int = 128
    temperature_plies: int = 8
    opening_plies: int = 0
    record_forced: bool = True
    dirichlet_alpha: float | None = 0.3
    buffer_size: int = 200_000
    batch_size: int = 256
    steps_per_iteration: int = 200
    optimizer: Literal["sgd", "adam", "adamw"] = "adam"
    lr: float = 1e-3
    weight_decay: float = 1e-4
    eval_games: int = 20
    eval_every: int = 1
    panel: tuple[str, ...] = DEFAULT_PANEL
    progress: bool = True
    self_play_workers: int = 1
    backend: Literal["local", "ray"] = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        spec = get_game(self.game)
        object.__setattr__(self, "options", spec.check_options(dict(self.options)))
        object.__setattr__(self, "out", Path(self.out))
        if self.minutes is not None:
            object.__setattr__(self, "minutes", _float("minutes", self.minutes, 0.0))
        if self.iterations is not None:
            object.__setattr__(self, "iterations", _int("iterations", self.iterations, 1))
        if self.minutes is None and self.iterations is None:
            raise ValueError("give a budget: minutes, iterations or both")
        if self.device not in ("auto", "cpu", "cuda") and not str(self.device).startswith("cuda:"):
            raise ValueError(f"device must be auto, cpu or cuda, got {self.device!r}")
        for name, low in (
            ("seed", 0), ("channels", 1), ("blocks", 1), ("value_hidden", 1), ("gumbel_k", 1),
            ("simulations", 1), ("parallel_games", 1), ("games_per_iteration", 1),
            ("temperature_plies", 0), ("opening_plies", 0), ("buffer_size", 1),
            ("batch_size", 1),
            ("steps_per_iteration", 0), ("eval_games", 0), ("eval_every", 1),
            ("self_play_workers", 1),
        ):  # fmt: skip
            object.__setattr__(self, name, _int(name, getattr(self, name), low))
        if not isinstance(self.record_forced, bool):
            raise ValueError(f"record_forced must be true or false, got {self.record_forced!r}")
        if self.backend not in ("local", "ray"):
            raise ValueError(f"backend must be local or ray, got {self.backend!r}")
        if self.address is not None and self.backend != "ray":
            raise ValueError(f"address={self.address!r} is for backend='ray' only")
        if self.search not in ("gumbel", "puct"):
            raise ValueError(f"search must be gumbel or puct, got {self.search!r}")
        if self.optimizer not in ("sgd", "adam", "adamw"):
            raise ValueError(f"optimizer must be sgd, adam or adamw, got {self.optimizer!r}")
        if self.dirichlet_alpha is not None:
            object.__setattr__(
                self, "dirichlet_alpha", _float("dirichlet_alpha", self.dirichlet_alpha, 0.0)
            )
        object.__setattr__(self, "lr", _float("lr", self.lr, 0.0))
        object.__setattr__(
            self, "weight_decay", _float("weight_decay", self.weight_decay, 0.0, False)
        )
        if isinstance(self.panel, str) or not all(isinstance(p, str) for p in self.panel):
            raise ValueError(f"panel must be a list of agent specs, got {self.panel!r}")
        object.__setattr__(self, "panel", tuple(self.panel))

    @property
    def panel_specs(self) -> tuple[str, ...]:
        """The panel with ``{simulations}`` filled in."""
        return tuple(spec.replace("{simulations}", str(self.simulations)) for spec in self.panel)

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON values."""
        data = asdict(self)
        data["out"] = str(self.out)
        data["options"] = dict(self.options)
        data["panel"] = list(self.panel)
        return data

    def differences(self, saved: Mapping[str, Any]) -> list[str]:
        """The fixed settings where ``saved`` (a run's ``settings.json``) differs from these."""
        mine = self.to_json()
        saved = with_old_defaults(saved)
        return [
            f"{key}={saved.get(key)!r} (this run: {mine[key]!r})"
            for key in _FIXED
            if saved.get(key) != mine[key]
        ]


@dataclass(frozen=True)
class TrainSummary:
    """Where a run stands when :func:`train` returns.

    Attributes:
        out: the run folder.
        iterations: iterations completed in all.
        games: self-play games in all.
        positions: positions added to the buffer in all.
        seconds: training time in all.
        metrics: one dict per iteration (the rows of ``metrics.csv``).
    """

    out: Path
    iterations: int
    games: int
    positions: int
    seconds: float
    metrics: list[dict[str, Any]]


def _seed(*words: int) -> int:
    """A seed from ``words`` (the arena's :func:`~boardzoo.arena.seeds.derive_seed`), below 2**62
    as the search takes it."""
    return derive_seed(*words) >> 1


# --- the checkpoint -------------------------------------------------------------------------------


def _recover(out: Path) -> None:
    """Finish or undo a checkpoint swap that a kill interrupted."""
    current, new, old = out / "checkpoint", out / "checkpoint.new", out / "checkpoint.old"
    if not current.exists() and old.exists():
        old.rename(current)
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)


def _commit(out: Path, write: Callable[[Path], None]) -> None:
    """Write a checkpoint with ``write(folder)``, then swap it in (never a half-written one)."""
    current, new, old = out / "checkpoint", out / "checkpoint.new", out / "checkpoint.old"
    if new.exists():
        shutil.rmtree(new)
    new.mkdir(parents=True)
    write(new)
    if current.exists():
        current.rename(old)
    new.rename(current)
    if old.exists():
        shutil.rmtree(old)


# --- evaluation -----------------------------------------------------------------------------------


def _evaluate(settings: TrainSettings, model: Path, iteration: int) -> dict[str, float]:
    """Score and Elo difference of ``model`` against each panel agent, through the arena."""
    spec = f"az:model={model},simulations={settings.simulations},search=puct"
    row: dict[str, float] = {}
    for opponent in settings.panel_specs:
        result = play_match(
            settings.game, (spec, opponent), games=settings.eval_games,
            seed=_seed(settings.seed, iteration, 7), options=settings.options, time_limit=None,
            progress=False, isolate=False, pair_openings=settings.eval_games >= 2,
        )  # fmt: skip
        row[f"score_vs_{opponent}"] = round(result.score, 4)
        row[f"elo_vs_{opponent}"] = round(result.elo, 1)
    return row


def _write_metrics(out: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """``metrics.csv`` and ``elo.png`` from every iteration's row."""
    if not rows:
        return
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(buffer.getvalue(), out / "metrics.csv")
    elo_columns = [c for c in columns if c.startswith("elo_vs_")]
    if not elo_columns:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    for column in elo_columns:
        points = [(r["iteration"], r[column]) for r in rows if column in r]
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                  label=column.removeprefix("elo_vs_"))  # fmt: skip
    axes.axhline(0.0, color="grey", linewidth=0.8)
    axes.set_xlabel("iteration")
    axes.set_ylabel("Elo difference (clipped at ±1000)")
    axes.set_title("AlphaZero against the panel")
    axes.legend(fontsize="small")
    figure.tight_layout()
    atomic_write(out / "elo.png", lambda file: figure.savefig(file, format="png", dpi=100), "wb")
    plt.close(figure)


# --- the run --------------------------------------------------------------------------------------


def train(settings: TrainSettings, log: Callable[[str], None] | None = None) -> TrainSummary:
    """Train (or resume training) an AlphaZero network by self-play; see the module's docs.

    Args:
        settings: the run.
        log: called with a line of text after each iteration (default: print to stderr when no
            progress bar is shown).

    Returns:
        A :class:`TrainSummary` of the whole run.

    Raises:
        ValueError: a run folder that holds another run, or one to resume that has none.
    """
    # torch, an optional dependency, is loaded by a run only: the settings need none of it.
    import torch

    from boardzoo.az.learner import Learner, load_learner, save_learner  # (torch)
    from boardzoo.az.selfplay_pool import (  # (torch)
        SelfPlayJob,
        make_pool,
        merge_games,
        split_games,
        weights_of,
    )
    from boardzoo.learned.model_io import save_model  # (torch)
    from boardzoo.learned.network import AZNet, NetConfig, TorchEvaluator, pick_device  # (torch)

    out = settings.out
    saved_path = out / "settings.json"
    if settings.resume:
        _recover(out)
        if not (out / "checkpoint" / "state.json").is_file():
            if saved_path.is_file() or (out / "checkpoint").exists():
                raise ValueError(f"{out} has no complete iteration to resume from")
            raise ValueError(f"{out} holds no training run to resume")
        saved = json.loads(saved_path.read_text())
        different = settings.differences(saved)
        if different:
            raise ValueError(f"cannot resume {out}: it was trained with " + "; ".join(different))
    elif out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} already holds files: resume that run, or choose another folder")

    game = make_game(settings.game, **settings.options)
    device = pick_device(settings.device)
    torch.manual_seed(_seed(settings.seed, 0))
    config = NetConfig.for_game(
        game, channels=settings.channels, blocks=settings.blocks,
        value_hidden=settings.value_hidden,
    )  # fmt: skip
    net = AZNet(config).to(device)
    learner = Learner(
        net, lr=settings.lr, weight_decay=settings.weight_decay, optimizer=settings.optimizer,
        seed=_seed(settings.seed, 1),
    )  # fmt: skip
    observation, _ = encode(game, [game.initial_state()])
    buffer = ReplayBuffer(
        settings.buffer_size, observation.shape[1:], game.num_actions, seed=_seed(settings.seed, 2)
    )
    state: dict[str, Any] = {
        "format": _CHECKPOINT_FORMAT, "iteration": 0, "games": 0, "positions": 0,
        "seconds": 0.0, "metrics": [],
    }  # fmt: skip
    if settings.resume:
        folder = out / "checkpoint"
        state = json.loads((folder / "state.json").read_text())
        load_learner(learner, folder / "learner.pt")
        buffer = ReplayBuffer.load(folder / "buffer.npz")
    else:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(json.dumps(settings.to_json(), indent=2) + "\n", saved_path)

    search_config = PUCTConfig(
        gumbel=settings.search == "gumbel",
        gumbel_k=settings.gumbel_k,
        dirichlet_alpha=settings.dirichlet_alpha if settings.search == "puct" else None,
    )
    selfplay = SelfPlayConfig(
        simulations=settings.simulations, temperature_plies=settings.temperature_plies,
        opening_plies=settings.opening_plies, record_forced=settings.record_forced,
        add_noise=True,
    )  # fmt: skip
    command = " ".join(["boardzoo", "train", *sys.argv[2:]]) if sys.argv[1:2] == ["train"] else ""
    # Every command that trained this run, the first and each resume, go into the model files.
    commands = [*state.get("commands", []), *([command] if command else [])]
    say = log if log is not None else (lambda line: print(line, file=sys.stderr, flush=True))
    bar = _Progress(settings, state) if settings.progress and sys.stderr.isatty() else None
    board = _tensorboard(out)

    def budget_left() -> bool:
        if settings.iterations is not None and state["iteration"] >= settings.iterations:
            return False
        return settings.minutes is None or state["seconds"] < settings.minutes * 60.0

    pool = make_pool(settings.backend, settings.self_play_workers, settings.address)
    try:
        while budget_left():
            iteration = state["iteration"] + 1
            started = time.perf_counter()
            torch.manual_seed(_seed(settings.seed, iteration, 0))
            net.eval()
            if pool is None:  # self-play here, with the learner's own network
                search = BatchedSearch(
                    game,
                    settings.parallel_games,
                    search_config,
                    seed=_seed(settings.seed, iteration, 1),
                )
                games = play_games(
                    game, search, TorchEvaluator(net, device=device),
                    settings.games_per_iteration, selfplay, seed=_seed(settings.seed, iteration, 2),
                )  # fmt: skip
            else:  # one job a worker, each with its own seeds
                shares = split_games(settings.games_per_iteration, pool.workers)
                jobs = [
                    SelfPlayJob(
                        config,
                        search_config,
                        selfplay,
                        settings.parallel_games,
                        share,
                        _seed(settings.seed, iteration, 1, k),
                        _seed(settings.seed, iteration, 2, k),
                    )
                    for k, share in enumerate(shares)
                ]
                games = merge_games(pool.play(jobs, weights_of(net)))
            buffer.add(games.observations, games.policies, games.values, games.masks)
            played = time.perf_counter()
            losses: list[dict[str, float]] = []
            if len(buffer) >= min(settings.batch_size, settings.buffer_size):
                net.train()
                for _ in range(settings.steps_per_iteration):
                    losses.append(learner.step(buffer.sample(settings.batch_size)))
                net.eval()
            learned = time.perf_counter()
            model = out / "models" / f"iteration-{iteration:04d}.pt"
            metadata = {
                "game": settings.game, "options": dict(settings.options), "iteration": iteration,
                "games": state["games"] + len(games.winners),
                "positions": state["positions"] + games.positions, "commands": commands,
                "training_seconds": round(state["seconds"] + learned - started, 1),
            }  # fmt: skip
            save_model(model, net, metadata=metadata)
            save_model(out / "model.pt", net, metadata=metadata)
            row: dict[str, Any] = {
                "iteration": iteration,
                "games": metadata["games"],
                "positions": metadata["positions"],
                "buffer": len(buffer),
                "mean_length": round(float(np.mean(games.lengths)), 2),
                "first_player_wins": round(
                    sum(w == 0 for w in games.winners) / len(games.winners), 3
                ),
                "selfplay_seconds": round(played - started, 2),
                "learn_seconds": round(learned - played, 2),
            }
            for key in ("loss", "policy_loss", "value_loss"):
                row[key] = round(float(np.mean([x[key] for x in losses])), 4) if losses else ""
            if settings.eval_games and iteration % settings.eval_every == 0:
                evaluated = time.perf_counter()
                row.update(_evaluate(settings, model, iteration))
                row["eval_seconds"] = round(time.perf_counter() - evaluated, 2)
            state["seconds"] = round(state["seconds"] + time.perf_counter() - started, 3)
            row["seconds"] = state["seconds"]
            state["iteration"] = iteration
            state["games"] = metadata["games"]
            state["positions"] = metadata["positions"]
            state["commands"] = commands
            state["metrics"].append(row)

            def write(folder: Path) -> None:
                save_learner(learner, folder / "learner.pt")
                buffer.save(folder / "buffer.npz")
                atomic_write_text(json.dumps(state, indent=1) + "\n", folder / "state.json")

            _commit(out, write)
            _write_metrics(out, state["metrics"])
            if board is not None:
                for key, value in row.items():
                    if key != "iteration" and isinstance(value, (int, float)):
                        board.add_scalar(key, value, iteration)
                board.flush()
            line = _summary_line(row, len(games.winners) / max(played - started, 1e-9))
            if bar is not None:
                bar.update(state, line)
            else:
                say(line)
    finally:
        if pool is not None:
            pool.close()
        if bar is not None:
            bar.close()
        if board is not None:
            board.close()
    return TrainSummary(
        out=out, iterations=state["iteration"], games=state["games"],
        positions=state["positions"], seconds=state["seconds"], metrics=list(state["metrics"]),
    )  # fmt: skip


def _tensorboard(out: Path) -> Any:
    """A TensorBoard writer into ``out/tensorboard`` when TensorBoard is installed, else None."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(log_dir=str(out / "tensorboard"))


def _summary_line(row: Mapping[str, Any], games_per_second: float) -> str:
    """``iteration 3: 128 games (4.1/s), loss 2.31 (policy 1.90, value 0.41), Elo vs ...``."""
    text = f"iteration {row['iteration']}: {row['games']} games ({games_per_second:.1f}/s)"
    if row.get("loss") != "":
        text += (
            f", loss {row['loss']:.3f} (policy {row['policy_loss']:.3f}, "
            f"value {row['value_loss']:.3f})"
        )
    elos = [(k.removeprefix("elo_vs_"), v) for k, v in row.items() if k.startswith("elo_vs_")]
    if elos:
        text += ", Elo vs " + ", ".join(f"{name} {value:+.0f}" for name, value in elos)
    return text


class _Progress:
    """A rich progress bar over the run's budget, with the latest iteration's figures."""

    def __init__(self, settings: TrainSettings, state: Mapping[str, Any]) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.settings = settings
        self.progress = Progress(
            TextColumn("[bold]train[/]"), BarColumn(), TextColumn("{task.description}"),
            TimeElapsedColumn(), transient=False,
        )  # fmt: skip
        total, done = self._budget(state)
        self.task = self.progress.add_task("starting", total=total)
        self.progress.update(self.task, completed=done)
        self.progress.start()

    def _budget(self, state: Mapping[str, Any]) -> tuple[float, float]:
        if self.settings.iterations is not None:
            return float(self.settings.iterations), float(state["iteration"])
        assert self.settings.minutes is not None
        return self.settings.minutes * 60.0, float(state["seconds"])

    def update(self, state: Mapping[str, Any], line: str) -> None:
        _, done = self._budget(state)
        self.progress.update(self.task, completed=done, description=line)

    def close(self) -> None:
        self.progress.stop()


def settings_from(defaults: Mapping[str, Any], **given: Any) -> TrainSettings:
    """Settings from ``given`` (``None`` values take ``defaults``, then the dataclass's)."""
    names = {f.name for f in fields(TrainSettings)}
    chosen = {k: v for k, v in defaults.items() if k in names}
    chosen.update({k: v for k, v in given.items() if v is not None and k in names})
    return TrainSettings(**chosen)
