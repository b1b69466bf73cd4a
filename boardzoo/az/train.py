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
``metrics.csv``                   a row per iteration: games, positions, losses, time, the
                                  score and Elo difference against each panel agent, and the
                                  policy's accuracy on the game's labelled set (the share of
                                  moves that keep the result and that have the best score)
``elo.png``                       the Elo differences and the accuracy over the iterations
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

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.accuracy import measure_policy, read_labelled, shipped_set_path
from boardzoo.agents.settings import Budget, PUCTSettings
from boardzoo.arena import play_match
from boardzoo.arena.seeds import derive_seed
from boardzoo.az.checkpoint import CHECKPOINT_FORMAT, commit_checkpoint, recover_checkpoint
from boardzoo.az.replay import ReplayBuffer
from boardzoo.az.selfplay import SelfPlayGames, SelfPlaySettings, play_games
from boardzoo.az.train_report import Progress, open_tensorboard, summary_line, write_metrics
from boardzoo.az.train_settings import (
    DEFAULT_PANEL,
    QUICK,
    TrainSettings,
    settings_from,
)
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import make_game
from boardzoo.learned.files import atomic_write_text
from boardzoo.search.batched import BatchedSearch
from boardzoo.search.evaluators import encode

__all__ = [
    "ACCURACY_POSITIONS",
    "DEFAULT_PANEL",
    "QUICK",
    "TrainSettings",
    "TrainSummary",
    "holds_run",
    "settings_from",
    "train",
]


ACCURACY_POSITIONS = 3000  # of the labelled set (all of the shipped ones): a second or two


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
    row.update(_policy_accuracy(settings, model))
    return row


def _policy_accuracy(settings: TrainSettings, model: Path) -> dict[str, float]:
    """The network's policy alone (the legal move of the highest logit, no search, no solver)
    on the first :data:`ACCURACY_POSITIONS` positions of the game's shipped labelled set: the
    shares (in %) where its move keeps the game's result and where it has the best score; none
    without a set."""
    from boardzoo.learned.model_io import load_model  # (torch)
    from boardzoo.learned.torch_evaluator import TorchEvaluator  # (torch)

    game = make_game(settings.game, **settings.options)
    path = shipped_set_path(game)
    if not path.is_file():
        return {}
    net, _, _ = load_model(model, game=game)
    accuracy = measure_policy(TorchEvaluator(net), read_labelled(path), ACCURACY_POSITIONS)
    return {
        "policy_keeps_result": round(100 * accuracy.keeps.value, 2),
        "policy_best_score": round(100 * accuracy.best.value, 2),
    }


# --- the run --------------------------------------------------------------------------------------


def holds_run(out: Path) -> bool:
    """Whether the folder ``out`` holds a training run, complete or not (its settings or a
    checkpoint, perhaps one a kill left half swapped)."""
    return any((out / name).exists() for name in ("settings.json", "checkpoint", "checkpoint.old"))


def _check_folder(settings: TrainSettings) -> None:
    """A new run needs an empty folder; a resumed one a complete iteration of the same run."""
    out = settings.out
    if settings.resume:
        if not holds_run(out):
            raise InvalidValueError(f"{out} holds no training run to resume")
        recover_checkpoint(out)
        if not (out / "checkpoint" / "state.json").is_file():
            raise InvalidValueError(f"{out} has no complete iteration to resume from")
        saved = json.loads((out / "settings.json").read_text())
        different = settings.differences(saved)
        if different:
            raise InvalidValueError(
                f"cannot resume {out}: it was trained with " + "; ".join(different)
            )
    elif out.exists() and any(out.iterdir()):
        raise InvalidValueError(
            f"{out} already holds files: resume that run, or choose another folder"
        )


class _Run:
    """A training run's parts (network, learner, buffer, counters) and its steps.

    Built fresh, or from the run folder's checkpoint when ``settings.resume``; torch is
    imported by the caller (:func:`train`), so these steps import its modules here.
    """

    def __init__(self, settings: TrainSettings) -> None:
        import torch  # (torch, an optional dependency: a run needs it, its settings do not)

        from boardzoo.az.learner import Learner, load_learner  # (torch)
        from boardzoo.learned.devices import pick_device  # (torch)
        from boardzoo.learned.network import AZNet, NetworkSettings  # (torch)

        self.settings = settings
        self.out = settings.out
        self.game = game = make_game(settings.game, **settings.options)
        self.device = pick_device(settings.device)
        torch.manual_seed(_seed(settings.seed, 0))
        config = NetworkSettings.for_game(
            game, channels=settings.channels, blocks=settings.blocks,
            value_hidden=settings.value_hidden,
        )  # fmt: skip
        self.net_config = config
        self.net = AZNet(config).to(self.device)
        self.learner = Learner(
            self.net, lr=settings.lr, weight_decay=settings.weight_decay,
            optimizer=settings.optimizer, seed=_seed(settings.seed, 1),
        )  # fmt: skip
        observation, _ = encode(game, [game.initial_state()])
        self.buffer = ReplayBuffer(
            settings.buffer_size, observation.shape[1:], game.num_actions,
            seed=_seed(settings.seed, 2),
        )  # fmt: skip
        self.state: dict[str, Any] = {
            "format": CHECKPOINT_FORMAT, "iteration": 0, "games": 0, "positions": 0,
            "seconds": 0.0, "metrics": [],
        }  # fmt: skip
        if settings.init_model is not None and not settings.resume:
            self._start_from(settings.init_model)
        if settings.resume:
            folder = self.out / "checkpoint"
            self.state = json.loads((folder / "state.json").read_text())
            load_learner(self.learner, folder / "learner.pt")
            self.buffer = ReplayBuffer.load(folder / "buffer.npz")
        else:
            self.out.mkdir(parents=True, exist_ok=True)
            text = json.dumps(settings.to_json(), indent=2) + "\n"
            atomic_write_text(text, self.out / "settings.json")
        puct = PUCTSettings(
            settings.search, gumbel_k=settings.gumbel_k, dirichlet_alpha=settings.dirichlet_alpha
        )
        self.search_settings = puct.batched_settings(
            Budget(simulations=settings.simulations), solve_empties=settings.solve_empties
        )
        self.selfplay = SelfPlaySettings(
            simulations=settings.simulations, temperature_plies=settings.temperature_plies,
            opening_plies=settings.opening_plies, record_forced=settings.record_forced,
            add_noise=True, full_search_share=settings.full_search_share,
            fast_simulations=settings.fast_simulations, value_mix=settings.value_mix,
            search_opening=settings.search_opening,
        )  # fmt: skip
        called = sys.argv[1:2] == ["train"]
        command = " ".join(["boardzoo", "train", *sys.argv[2:]]) if called else ""
        # Every command that trained this run, the first and each resume, go into the models.
        self.commands = [*self.state.get("commands", []), *([command] if command else [])]

    def _start_from(self, model: str) -> None:
        """Load the weights of ``model`` (a file, or ``"shipped"``) into the new run's network;
        the shapes must agree."""
        from boardzoo.agents.alphazero import shipped_model, shipped_name  # (torch)
        from boardzoo.learned.model_io import load_model  # (torch)

        path = shipped_model(shipped_name(self.game)) if model == "shipped" else Path(model)
        if path is None:
            raise InvalidValueError(f"init_model='shipped': {self.game.label} has no shipped model")
        net, config, metadata = load_model(path, game=self.game)
        if config != self.net_config:
            raise InvalidValueError(
                f"init_model {path}: its network ({config.channels} channels, {config.blocks} "
                f"blocks, value head {config.value_hidden}) is not this run's "
                f"({self.net_config.channels}, {self.net_config.blocks}, "
                f"{self.net_config.value_hidden}): give the same --channels and --blocks"
            )
        self.net.load_state_dict(net.state_dict())
        # The models of this run record where they started: that model's own training.
        self.state["init_from"] = {
            "model": path.name if model == "shipped" else str(path),
            **{key: metadata[key] for key in ("commands", "games", "iteration",
                                              "training_seconds", "init_from") if key in metadata},
        }  # fmt: skip

    def budget_left(self) -> bool:
        settings, state = self.settings, self.state
        if settings.iterations is not None and state["iteration"] >= settings.iterations:
            return False
        return settings.minutes is None or state["seconds"] < settings.minutes * 60.0

    def self_play(self, iteration: int, pool: Any) -> SelfPlayGames:
        """This iteration's games: played here with the learner's network, or by the pool's
        workers (one job each, with seeds of its own)."""
        import torch  # (torch)

        from boardzoo.az.selfplay_pool import (  # (torch)
            SelfPlayJob,
            merge_games,
            split_games,
            weights_of,
        )
        from boardzoo.learned.torch_evaluator import TorchEvaluator  # (torch)

        settings = self.settings
        torch.manual_seed(_seed(settings.seed, iteration, 0))
        self.net.eval()
        if pool is None:
            search = BatchedSearch(
                self.game, settings.parallel_games, self.search_settings,
                seed=_seed(settings.seed, iteration, 1),
            )  # fmt: skip
            return play_games(
                self.game, search, TorchEvaluator(self.net, device=self.device),
                settings.games_per_iteration, self.selfplay,
                seed=_seed(settings.seed, iteration, 2),
            )  # fmt: skip
        shares = split_games(settings.games_per_iteration, pool.workers)
        jobs = [
            SelfPlayJob(
                self.net_config,
                self.search_settings,
                self.selfplay,
                settings.parallel_games,
                share,
                _seed(settings.seed, iteration, 1, k),
                _seed(settings.seed, iteration, 2, k),
            )
            for k, share in enumerate(shares)
        ]
        return merge_games(pool.play(jobs, weights_of(self.net)))

    def learn(self, iteration: int, games: SelfPlayGames) -> list[dict[str, float]]:
        """Add the games to the buffer and take the iteration's learner steps (once the buffer
        holds a batch) at the schedule's learning rate."""
        settings = self.settings
        self.buffer.add(games.observations, games.policies, games.values, games.masks)
        self.learner.set_lr(settings.lr_at(iteration))
        losses: list[dict[str, float]] = []
        if len(self.buffer) >= min(settings.batch_size, settings.buffer_size):
            self.net.train()
            for _ in range(settings.steps_per_iteration):
                losses.append(self.learner.step(self.buffer.sample(settings.batch_size)))
            self.net.eval()
        return losses

    def save_models(self, iteration: int, games: SelfPlayGames, seconds: float) -> Path:
        """The iteration's model file and ``model.pt``, with the run's counters."""
        from boardzoo.learned.model_io import save_model  # (torch)

        state = self.state
        model = self.out / "models" / f"iteration-{iteration:04d}.pt"
        metadata = {
            "game": self.settings.game, "options": dict(self.settings.options),
            "iteration": iteration, "games": state["games"] + len(games.winners),
            "positions": state["positions"] + games.positions, "commands": self.commands,
            "training_seconds": round(state["seconds"] + seconds, 1),
            **({"init_from": state["init_from"]} if "init_from" in state else {}),
        }  # fmt: skip
        save_model(model, self.net, metadata=metadata)
        save_model(self.out / "model.pt", self.net, metadata=metadata)
        return model

    def record(self, iteration: int, games: SelfPlayGames, losses: list[dict[str, float]],
               times: tuple[float, float, float], model: Path) -> dict[str, Any]:  # fmt: skip
        """The iteration's metrics row (with the panel's scores when due); counters updated."""
        settings, state = self.settings, self.state
        started, played, learned = times
        row: dict[str, Any] = {
            "iteration": iteration,
            "games": state["games"] + len(games.winners),
            "positions": state["positions"] + games.positions,
            "buffer": len(self.buffer),
            "mean_length": round(float(np.mean(games.lengths)), 2),
            "first_player_wins": round(sum(w == 0 for w in games.winners) / len(games.winners), 3),
            "selfplay_seconds": round(played - started, 2),
            "learn_seconds": round(learned - played, 2),
            "lr": float(f"{settings.lr_at(iteration):.3g}"),
        }
        for key in ("loss", "policy_loss", "value_loss"):
            row[key] = round(float(np.mean([x[key] for x in losses])), 4) if losses else ""
        if settings.eval_games and iteration % settings.eval_every == 0:
            evaluated = time.perf_counter()
            row.update(_evaluate(settings, model, iteration))
            row["eval_seconds"] = round(time.perf_counter() - evaluated, 2)
        state["seconds"] = round(state["seconds"] + time.perf_counter() - started, 3)
        row["seconds"] = state["seconds"]
        state.update(
            iteration=iteration, games=row["games"], positions=row["positions"],
            commands=self.commands,
        )  # fmt: skip
        state["metrics"].append(row)
        return row

    def checkpoint(self) -> None:
        """Commit the learner, the buffer and the counters; rewrite the metrics."""
        from boardzoo.az.learner import save_learner  # (torch)

        def write(folder: Path) -> None:
            save_learner(self.learner, folder / "learner.pt")
            self.buffer.save(folder / "buffer.npz")
            atomic_write_text(json.dumps(self.state, indent=1) + "\n", folder / "state.json")

        commit_checkpoint(self.out, write)
        write_metrics(self.out, self.state["metrics"])

    def summary(self) -> TrainSummary:
        state = self.state
        return TrainSummary(
            out=self.out, iterations=state["iteration"], games=state["games"],
            positions=state["positions"], seconds=state["seconds"],
            metrics=list(state["metrics"]),
        )  # fmt: skip


Report = Callable[[dict[str, Any], float], None]  # (an iteration's row, its games a second)


@contextmanager
def _reporting(
    run: _Run, log: Callable[[str], None] | None
) -> Iterator[Callable[[dict[str, Any], float], None]]:
    """What reports each iteration: TensorBoard when installed, and a progress bar on a
    terminal or a line to ``log`` (default stderr)."""
    settings = run.settings
    say = log if log is not None else (lambda line: print(line, file=sys.stderr, flush=True))
    bar = Progress(settings, run.state) if settings.progress and sys.stderr.isatty() else None
    board = open_tensorboard(run.out)

    def report(row: dict[str, Any], games_per_second: float) -> None:
        if board is not None:
            for key, value in row.items():
                if key != "iteration" and isinstance(value, (int, float)):
                    board.add_scalar(key, value, row["iteration"])
            board.flush()
        line = summary_line(row, games_per_second)
        if bar is not None:
            bar.update(run.state, line)
        else:
            say(line)

    try:
        yield report
    finally:
        if bar is not None:
            bar.close()
        if board is not None:
            board.close()


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
    from boardzoo.az.selfplay_pool import make_pool  # (torch)

    _check_folder(settings)
    run = _Run(settings)
    with ExitStack() as stack:
        pool = make_pool(settings.backend, settings.self_play_workers, settings.address)
        if pool is not None:
            stack.callback(pool.close)
        report = stack.enter_context(_reporting(run, log))
        while run.budget_left():
            iteration = run.state["iteration"] + 1
            started = time.perf_counter()
            games = run.self_play(iteration, pool)
            played = time.perf_counter()
            losses = run.learn(iteration, games)
            learned = time.perf_counter()
            model = run.save_models(iteration, games, learned - started)
            row = run.record(iteration, games, losses, (started, played, learned), model)
            run.checkpoint()
            report(row, len(games.winners) / max(played - started, 1e-9))
    return run.summary()
