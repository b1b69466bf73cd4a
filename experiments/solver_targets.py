"""Train an AlphaZero network on a perfect player's labels instead of self-play's search targets.

    python scripts/make_labelled_set.py connect_four --out runs/c4-train.jsonl --seed 1000000 \\
        --per-game 42 --max-empties 29 --positions 200000 --minutes 60
    python experiments/solver_targets.py --game connect_four --sets runs/c4-train.jsonl \\
        --blocks 8 --steps 3000 --buffer runs/c4-recipe/checkpoint/buffer.npz
    python experiments/solver_targets.py --resume-folder RUN     # goes on where it stopped
    python experiments/solver_targets.py --quick      # TicTacToe: a 300-position set, 20 steps

The training positions are labelled sets (``scripts/make_labelled_set.py`` with a seed of their
own: games of the same random, greedy, alpha-beta and MCTS players as the test set, every move
of every kept position scored by the solver). Each position's targets:

- policy: ``--best-share`` spread over the moves of the best exact score (fastest win, slowest
  loss), the rest over every move that keeps the result (all moves of a lost position);
- value: the exact result for the player to move, +1, 0 or -1.

Positions of the game's shipped labelled set (the test set) and their symmetric images are
dropped before training, so the measure never sees a trained position. ``--buffer`` mixes in the
positions of a ``boardzoo train`` replay buffer (its ``checkpoint/buffer.npz``) with at most
``--buffer-max-discs`` discs, with their search targets, as ``--buffer-share`` of each batch:
the openings, where the solver is too slow to label many positions. ``--blocks`` above the
initial model's adds residual blocks that start as the identity (the deepened network plays as
the initial one until its first step). The targets, the examples and the batches are
:mod:`boardzoo.az.solver_targets`'s, the deepening :func:`boardzoo.az.deepen.deepened`.

The learning rate falls from ``--lr`` on a cosine to 5% of it over ``--steps`` steps of
``--batch-size`` (Adam, weight decay 1e-4, each sample in a random board symmetry). Every
``--eval-every`` steps, and at the end, the run writes the policy's share on the shipped set
(:func:`boardzoo.accuracy.measure_policy`, the figure of ``benchmarks/accuracy.py`` for
``az:simulations=1,exact_empties=0,solve_empties=0``) to ``metrics.csv``, the network to
``model.pt`` (``az:model=RUN/model.pt``) and a copy named by the step, and the learner's state
to ``learner.pt``, in the run folder ``OUT/solver_targets-GAME-seedS-TIME``. Batches are drawn
from ``--seed`` and the step's number, so a resumed run trains on the batches of one that never
stopped.

This is the experiment of the AlphaZero guide's "The recipe, measured" (Connect Four): the
shipped networks are trained by self-play (``boardzoo train``), not by this script.
"""

from __future__ import annotations

import csv
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from boardzoo.accuracy import (
    LabelledSet,
    LabelledSetSettings,
    make_labelled,
    measure_policy,
    read_labelled,
    shipped_set_path,
)
from boardzoo.agents.alphazero import shipped_model
from boardzoo.az.deepen import deepened
from boardzoo.az.learner import Learner, load_learner, save_learner
from boardzoo.az.solver_targets import buffer_openings, draw_batch, load_examples
from boardzoo.experiment_kit import (
    OPTIONS_HELP,
    arg,
    experiment_folder,
    game_options,
    parse_args,
    resolve_game,
    seed_everything,
)
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game
from boardzoo.learned.devices import pick_device
from boardzoo.learned.model_io import load_model, save_model
from boardzoo.learned.network import AZNet
from boardzoo.learned.torch_evaluator import TorchEvaluator

FIELDS = ["step", "examples", "lr", "loss", "policy_loss", "value_loss", "keeps", "best", "seconds"]


@dataclass(frozen=True)
class Args:
    game: str = arg("connect_four", "the game: tictactoe, connect_four or reversi")
    options: tuple[str, ...] = arg((), OPTIONS_HELP)
    sets: tuple[str, ...] = arg((), "labelled sets to train on (scripts/make_labelled_set.py)")
    init_model: str = arg("shipped", "the first network: shipped, or a model file")
    blocks: int | None = arg(None, "deepen the network to this many residual blocks")
    steps: int = arg(3000, "learner steps")
    batch_size: int = arg(256, "samples a step")
    lr: float = arg(3e-4, "the first learning rate (a cosine down to 5%% of it)")
    best_share: float = arg(0.7, "the policy's mass on the best-scoring moves")
    buffer: str | None = arg(None, "a boardzoo train replay buffer (checkpoint/buffer.npz)")
    buffer_share: float = arg(0.25, "the share of each batch taken from the buffer")
    buffer_max_discs: int = arg(11, "the buffer's positions with at most this many discs")
    eval_every: int = arg(500, "steps between evaluations")
    device: str = arg("auto", "auto, cpu or cuda")
    seed: int = arg(0, "seed of the batches and their symmetries")
    out: str = arg("runs", "folder that receives the run folder")
    resume_folder: str = arg("", "continue the run in this folder instead of starting one")
    quick: bool = arg(False, "a smoke run (see the script's docstring)")


QUICK = {"game": "tictactoe", "steps": 20, "eval_every": 10, "batch_size": 32}


def _check(args: Args) -> None:
    """Every bad value is a one-line error before any work."""
    for name in ("steps", "batch_size", "eval_every", "buffer_max_discs"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} {getattr(args, name)}: give at least 1")
    if not np.isfinite(args.lr) or args.lr <= 0:
        raise SystemExit(f"--lr {args.lr}: give a positive number")
    if not 0 <= args.best_share <= 1:
        raise SystemExit(f"--best-share {args.best_share}: give a number from 0 to 1")
    if not 0 <= args.buffer_share < 1:
        raise SystemExit(f"--buffer-share {args.buffer_share}: give a number from 0 to below 1")
    if args.blocks is not None and args.blocks < 1:
        raise SystemExit(f"--blocks {args.blocks}: give at least 1")
    if not args.sets and not args.quick:
        raise SystemExit("--sets: give at least one labelled set to train on")
    for path in [*args.sets, *([args.buffer] if args.buffer else [])]:
        if not Path(path).is_file():
            raise SystemExit(f"{path}: no such file")


def _network(args: Args, game: Game) -> AZNet:
    """The initial network, deepened to ``args.blocks``."""
    try:
        init = shipped_model(game.file_stem) if args.init_model == "shipped" else args.init_model
        if init is None:
            raise SystemExit(f"--init-model shipped: {game.label} has no shipped model")
        net, _, _ = load_model(init, game=game)
    except ValueError as error:  # ModelFileError too
        raise SystemExit(f"--init-model {args.init_model}: {error}") from None
    if args.blocks is None:
        return net
    try:
        return deepened(net, args.blocks)
    except ValueError:
        raise SystemExit(
            f"--blocks {args.blocks}: the model has {net.config.blocks}; give at least that"
        ) from None


def _quick_set(folder: Path, game: Game) -> Path:
    """A small labelled set made in the run folder (``--quick``)."""
    path = folder / "train.jsonl"
    config = LabelledSetSettings(positions=300, per_game=3, seed=1000)
    make_labelled(game, path, config, "experiments/solver_targets.py --quick", log=lambda _: None)
    return path


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = Args(**{**asdict(args), **QUICK})
    args = resolve_game(args)
    _check(args)
    game = make_game(args.game, **game_options(args))
    net = _network(args, game)
    try:
        device = pick_device(args.device, set_threads=False)
    except ValueError as error:
        raise SystemExit(f"--device {args.device}: {error}") from None
    seed_everything(args.seed)
    # a quick run makes its set in its folder; any other run reads its sets before making one
    folder = experiment_folder(args, "solver_targets") if args.quick else None
    sets = [_quick_set(folder, game)] if folder else [Path(path) for path in args.sets]
    try:
        examples, duplicates, dropped = load_examples(game, sets, args.best_share)
        openings = (
            buffer_openings(Path(args.buffer), args.buffer_max_discs, game) if args.buffer else None
        )
    except ValueError as error:
        raise SystemExit(str(error)) from None
    print(
        f"{len(examples)} labelled positions ({duplicates} repeats and {dropped} test-set "
        f"positions dropped)" + (f", {len(openings)} buffer openings" if openings else ""),
        flush=True,
    )
    folder = folder or experiment_folder(args, "solver_targets")
    net = net.to(device)
    learner = Learner(net, lr=args.lr, weight_decay=1e-4, optimizer="adam", seed=args.seed)
    if (folder / "learner.pt").is_file():
        load_learner(learner, folder / "learner.pt")
        print(f"resumed at step {learner.steps}")
    test = read_labelled(shipped_set_path(game))
    evaluator = TorchEvaluator(net, device=device)
    if not (folder / "metrics.csv").is_file():
        with (folder / "metrics.csv").open("w", newline="") as handle:
            csv.writer(handle).writerow(FIELDS)
    start = time.perf_counter()
    try:
        while learner.steps < args.steps:
            step = learner.steps
            lr = args.lr * (0.05 + 0.475 * (1 + np.cos(np.pi * step / args.steps)))
            learner.set_lr(lr)
            batch = draw_batch(examples, openings, args.batch_size, args.buffer_share, args.seed,
                               step)  # fmt: skip
            losses = learner.step(batch)
            if learner.steps % args.eval_every == 0 or learner.steps == args.steps:
                _evaluate(folder, learner, evaluator, test, len(examples), lr, losses, start)
    except KeyboardInterrupt:
        print(f"stopped at step {learner.steps}: --resume-folder {folder} goes on from the last "
              "evaluation")  # fmt: skip
        raise SystemExit(130) from None
    print(f"wrote {folder}")
    return folder


def _evaluate(
    folder: Path,
    learner: Learner,
    evaluator: TorchEvaluator,
    test: LabelledSet,
    examples: int,
    lr: float,
    losses: dict[str, float],
    start: float,
) -> None:
    """Measure the policy, write the metrics row, the model and the learner's state."""
    accuracy = measure_policy(evaluator, test)
    keeps = accuracy.keeps.hits / accuracy.keeps.total
    best = accuracy.best.hits / accuracy.best.total
    row = [learner.steps, examples, f"{lr:.3g}"]
    row += [f"{losses[k]:.4f}" for k in ("loss", "policy_loss", "value_loss")]
    row += [f"{keeps:.4f}", f"{best:.4f}", f"{time.perf_counter() - start:.0f}"]
    with (folder / "metrics.csv").open("a", newline="") as handle:
        csv.writer(handle).writerow(row)
    metadata = {
        "command": "python experiments/solver_targets.py " + " ".join(sys.argv[1:]),
        "steps": learner.steps,
        "policy_keeps": round(keeps, 4),
    }
    for name in ("model.pt", f"model-{learner.steps}.pt"):
        save_model(folder / name, learner.net, metadata=metadata)
    save_learner(learner, folder / "learner.pt")
    print(f"step {learner.steps}: policy keeps the result {keeps:.1%}, best score {best:.1%}")


if __name__ == "__main__":
    main()
