"""Masked PPO by self-play on the batched env (CleanRL style), evaluated in the arena.

    python experiments/ppo_selfplay.py --game reversi --num-envs 256 --minutes 60
    python experiments/ppo_selfplay.py --resume-folder runs/ppo_selfplay-reversi-seed0-...  # go on
    python experiments/ppo_selfplay.py --quick          # a smoke run of a few updates on 6x6
                                                        # (its evaluations play in this process)

The learner is a policy-value network (:class:`boardzoo.learned.network.AZNet`, ``--channels``,
``--blocks``) trained by PPO with clipped objective, generalized advantage estimation and
action masking (illegal actions get no probability) on ``--num-envs`` games of the batched env
(:mod:`boardzoo.vector`), stepped in one compiled call. Each episode's opponent is drawn from a
league: the fixed opponents of ``--league`` (compiled ``random``, ``greedy``,
``alphabeta:depth=N``) and ``--snapshots`` slots that hold past copies of the learner (frozen,
sampling their moves), refreshed in turn every ``--snapshot-every`` updates. The learner's side
is drawn per episode. With ``--augment`` (the default) the learner sees each position through one
of the board's symmetries (:mod:`boardzoo.games.symmetry`: 8 for Reversi and TicTacToe, the mirror
for Connect Four), drawn per game and move, and its move is mapped back for the env: the rollout
stays on-policy and covers the symmetric positions too. The algorithm and the training state are
the package's (:mod:`boardzoo.rl.ppo`, :mod:`boardzoo.rl.league`, :mod:`boardzoo.rl.augment`,
:class:`boardzoo.rl.ppo_selfplay.PPOSelfPlayRun`); this script holds the schedule, the
evaluations and the run folder's files.

Every ``--eval-every`` minutes of training (and at the end) the network is saved as a boardzoo
model (plain tensors and JSON, ``models/model_<update>.pt``; ``model.pt`` is the latest) and
plays ``--eval-games`` arena games against each of ``--eval-opponents`` as
``az:model=...,simulations=1`` (its policy alone: the most likely legal move), from the
``--eval-openings`` (the game's balanced suite by default: a deterministic policy against a
deterministic opponent would otherwise repeat one game), each opening with both colours; the
scores with 95% intervals go to ``evaluations.csv``. ``metrics.csv`` has the losses, the
episodes' mean return and the training steps a second of each update (TensorBoard logs too when
the ``tensorboard`` package is installed). A checkpoint (network, optimizer, league, counters and
random states) is written with every evaluation: ``--resume-folder`` continues from it, with
``--minutes`` counting the training time of the whole run; new episodes start on resume.
``--init-model`` starts a new run (its own optimizer, schedule and league settings) from a
model's weights, for instance a finished run's ``model.pt``.
"""

from __future__ import annotations

import csv
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from boardzoo.experiment_kit import (
    OPTIONS_HELP,
    arg,
    check_specs,
    experiment_folder,
    game_options,
    parse_args,
    resolve_game,
    seed_everything,
)
from boardzoo.games.catalog import game_names, game_of
from boardzoo.vector import compiled_opponent_code

if TYPE_CHECKING:
    from boardzoo.learned.network import NetworkSettings
    from boardzoo.rl.ppo_selfplay import PPOSelfPlayRun

# This script's options, for games that have them, where the command line gives none.
DEFAULT_OPTIONS = {"board_size": 8}
QUICK_OPTIONS = {"board_size": 6}  # those of a --quick run
METRICS = ("update", "steps", "minutes", "steps_per_second", "policy_loss", "value_loss",
           "entropy", "approx_kl", "episodes", "mean_return")  # fmt: skip


@dataclass(frozen=True)
class Args:
    game: str = arg("reversi", f"the game: {', '.join(game_names())}")
    options: tuple[str, ...] = arg((), OPTIONS_HELP + f" ({DEFAULT_OPTIONS} here)")
    num_envs: int = arg(256, "games played at once")
    minutes: float = arg(60.0, "minutes of training in all (evaluations not counted)")
    seed: int = arg(0, "seeds the network, the games and the evaluations")
    channels: int = arg(32, "feature planes of the network")
    blocks: int = arg(1, "residual blocks of the network")
    num_steps: int = arg(32, "steps of each game per rollout")
    epochs: int = arg(4, "passes over each rollout")
    minibatches: int = arg(4, "minibatches a pass")
    learning_rate: float = arg(5e-4, "Adam's step size (annealed to 0 over --minutes)")
    gamma: float = arg(0.99, "discount")
    gae_lambda: float = arg(0.95, "GAE's lambda")
    clip: float = arg(0.2, "PPO's clip range")
    entropy: float = arg(0.01, "entropy bonus")
    value_coef: float = arg(0.5, "value loss weight")
    augment: bool = arg(
        True,
        "play each move on a randomly transformed board (one of the game's symmetries, drawn "
        "per game and move); --no-augment plays the board as it is",
        before=False,  # runs from before the option played boards as they are
    )
    league: tuple[str, ...] = arg(
        ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2"),
        "fixed opponents of the league (compiled: random, greedy, alphabeta:depth=N)",
    )
    snapshots: int = arg(6, "league slots holding past copies of the learner")
    snapshot_every: int = arg(20, "updates between refreshing a snapshot slot")
    eval_every: float = arg(10.0, "minutes of training between evaluations")
    eval_games: int = arg(40, "arena games against each evaluation opponent")
    eval_opponents: tuple[str, ...] = arg(
        ("random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4", "mcts:simulations=100"),
        "agent specs to evaluate against",
    )
    eval_openings: str = arg(
        "balanced",
        "openings of the evaluation games, each played with both colours: balanced (the suite "
        "shipped for the game), a file of openings, or none",
    )
    init_model: str = arg(
        "",
        "a new run's network and its league's snapshots start from this model's weights (a "
        "boardzoo model file of the same game, --channels and --blocks)",
    )
    threads: int = arg(2, "torch threads")
    out: str = arg("runs", "folder that receives the run folder")
    resume_folder: str = arg("", "continue the run in this folder")
    quick: bool = arg(False, "a smoke run: a few small updates on Reversi 6x6, tiny evaluations")


def check(args: Args) -> Args:
    args = resolve_game(args, QUICK_OPTIONS if args.quick else DEFAULT_OPTIONS)
    positive = {"num_envs": args.num_envs, "num_steps": args.num_steps, "epochs": args.epochs,
                "minibatches": args.minibatches, "channels": args.channels,
                "snapshot_every": args.snapshot_every, "eval_games": args.eval_games,
                "threads": args.threads}  # fmt: skip
    for name, value in positive.items():
        if value < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if args.minutes <= 0 or args.eval_every <= 0:
        raise SystemExit("--minutes and --eval-every must be positive")
    if (args.num_envs * args.num_steps) % args.minibatches:
        raise SystemExit(
            f"--num-envs x --num-steps ({args.num_envs * args.num_steps}) must divide into "
            f"--minibatches ({args.minibatches})"
        )
    for member in args.league:
        try:
            compiled_opponent_code(member)
        except ValueError as error:
            raise SystemExit(f"--league: {error}") from None
    if not args.league and args.snapshots < 1:
        raise SystemExit("the league is empty: give --league members or --snapshots 1 or more")
    check_specs("--eval-opponents", args.eval_opponents)
    if args.eval_openings != "none":
        from boardzoo.arena.openings import load_openings
        from boardzoo.games.catalog import game_of

        try:
            load_openings(args.eval_openings, game_of(args.game, **game_options(args)))
        except ValueError as error:
            raise SystemExit(f"--eval-openings: {error}") from None
    if args.quick:
        args = Args(**{**asdict(args), "num_envs": 32, "num_steps": 16, "minutes": 0.02,
                       "eval_every": 0.01, "eval_games": 2, "snapshot_every": 2,
                       "channels": 8, "eval_opponents": ("random", "greedy")})  # fmt: skip
    if args.init_model:
        _check_init_model(args)
    return args


def _check_init_model(args: Args) -> None:
    """Exit with a one-line error unless ``--init-model`` is a model of this game and network."""
    from boardzoo.learned.model_io import ModelFileError, read_model_for

    try:
        config, _ = read_model_for(args.init_model, game_of(args.game, **game_options(args)))
    except ModelFileError as error:
        raise SystemExit(f"--init-model: {error}") from None
    ours = network_settings(args)
    if config != ours:  # the whole network, the value head's width included
        raise SystemExit(
            f"--init-model {args.init_model}: its network has {config.channels} channels, "
            f"{config.blocks} blocks and a value head of {config.value_hidden}, this run's "
            f"{ours.channels}, {ours.blocks} and {ours.value_hidden}: give the same --channels "
            "and --blocks"
        )


def network_settings(args: Args) -> NetworkSettings:
    """The learner's network: ``--channels`` and ``--blocks`` for the game."""
    from boardzoo.learned.network import NetworkSettings

    return NetworkSettings(args.game, game_options(args), channels=args.channels,
                           blocks=args.blocks)  # fmt: skip


def make_run(args: Args) -> PPOSelfPlayRun:
    """The learner, its optimizer, the league and the batched env of the arguments."""
    from boardzoo.rl.ppo import PPOSettings
    from boardzoo.rl.ppo_selfplay import PPOSelfPlayRun

    ppo = PPOSettings(num_steps=args.num_steps, epochs=args.epochs, minibatches=args.minibatches,
                      gamma=args.gamma, gae_lambda=args.gae_lambda, clip=args.clip,
                      entropy=args.entropy, value_coef=args.value_coef)  # fmt: skip
    return PPOSelfPlayRun(network_settings(args), args.num_envs, args.league, args.snapshots,
                          learning_rate=args.learning_rate, augment=args.augment,
                          seed=args.seed, ppo=ppo)  # fmt: skip


def save(run: PPOSelfPlayRun, args: Args, folder: Path) -> None:
    """The learner as ``model.pt`` (and ``models/model_<update>.pt``) and the checkpoint."""
    metadata = {"trained_by": "experiments/ppo_selfplay.py", "update": run.update,
                "steps": run.steps, "minutes": round(run.seconds / 60, 2),
                "args": asdict(args)}  # fmt: skip
    path = run.save(folder, metadata)
    print(f"saved {path}", flush=True)


def evaluate(run: PPOSelfPlayRun, args: Args, folder: Path) -> None:
    """The saved model against each evaluation opponent in the arena; rows to the CSV."""
    from boardzoo.arena import play_match

    model = folder / "model.pt"
    learner = f"az:model={model},simulations=1"
    path = folder / "evaluations.csv"
    new = not path.exists()
    with path.open("a", newline="") as sink:
        writer = csv.writer(sink)
        if new:
            writer.writerow(["update", "steps", "minutes", "opponent", "wins", "draws",
                             "losses", "score", "low", "high"])  # fmt: skip
        for opponent in args.eval_opponents:
            result = play_match(args.game, (learner, opponent), options=game_options(args),
                                games=args.eval_games, seed=args.seed + 1000,
                                workers=1 if args.quick else 2, isolate=not args.quick,
                                time_limit=60.0, progress=False,
                                openings=None if args.eval_openings == "none"
                                else args.eval_openings)  # fmt: skip
            stats = result.stats[0].total
            low, high = result.score_interval
            writer.writerow([run.update, run.steps, round(run.seconds / 60, 2), opponent,
                             stats.wins, stats.draws, stats.losses, round(result.score, 4),
                             round(low, 4), round(high, 4)])  # fmt: skip
            score = f"{result.score:.1%} [{low:.1%}, {high:.1%}]"
            print(f"update {run.update:>6}: vs {opponent:<24} {stats.wins}-{stats.draws}-"
                  f"{stats.losses}  {score}", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> Path:
    # resuming, parse_args gives the run's own settings (its args.json) and the minutes as given
    parsed = parse_args(Args, argv, description=__doc__.splitlines()[0])
    args = replace(check(parsed), minutes=parsed.minutes) if parsed.resume_folder else check(parsed)
    folder = experiment_folder(args, "ppo_selfplay")
    seed_everything(args.seed)
    import torch

    from boardzoo.rl.ppo_selfplay import CHECKPOINT

    resumed = (folder / CHECKPOINT).exists()

    torch.set_num_threads(args.threads)
    run = make_run(args)
    if resumed:
        run.load(folder)
        print(f"resumed {folder} at update {run.update}, {run.seconds / 60:.1f} min", flush=True)
    elif args.init_model:
        run.start_from(args.init_model)
        print(f"started from {args.init_model}", flush=True)
    writer = _tensorboard(folder)
    metrics = folder / "metrics.csv"
    if not metrics.exists():
        metrics.write_text(",".join(METRICS) + "\n")
    obs, info = run.envs.reset(seed=args.seed * 1_000_003 + run.update)
    mask = info["action_mask"]
    budget = args.minutes * 60
    while run.seconds < budget:
        # the learning rate, annealed over the run's minutes
        run.set_learning_rate(args.learning_rate * max(0.05, 1.0 - run.seconds / budget))
        start = time.perf_counter()
        batch = run.rollout(obs, mask)
        figures = run.learn(batch)
        obs, mask, returns = batch.next_obs, batch.next_mask, batch.returns
        seconds = time.perf_counter() - start
        run.update += 1
        run.steps += args.num_envs * args.num_steps
        run.seconds += seconds
        if run.update % args.snapshot_every == 0:
            run.refresh_snapshot()
        row = [run.update, run.steps, round(run.seconds / 60, 3),
               round(args.num_envs * args.num_steps / seconds), round(figures["policy"], 5),
               round(figures["value"], 5), round(figures["entropy"], 5),
               round(figures["kl"], 6), len(returns),
               round(float(np.mean(returns)), 4) if returns else ""]  # fmt: skip
        with metrics.open("a") as sink:
            sink.write(",".join(map(str, row)) + "\n")
        if writer is not None:
            for name, value in zip(METRICS[3:], row[3:], strict=True):
                if value != "":
                    writer.add_scalar(name, value, run.steps)
        if run.update % 10 == 1:
            print(f"update {run.update:>6}  {run.steps:>11,} steps  "
                  f"{run.seconds / 60:6.1f} min  {row[3]:>7,} steps/s  return "
                  f"{row[-1]}", flush=True)  # fmt: skip
        if run.seconds - run.evaluated_at >= args.eval_every * 60 or run.seconds >= budget:
            run.evaluated_at = run.seconds
            save(run, args, folder)
            evaluate(run, args, folder)
    rates = [float(r["steps_per_second"]) for r in csv.DictReader(metrics.open())]
    print(f"steps_per_second median {np.median(rates):,.0f} over {len(rates)} updates; "
          f"{run.steps:,} steps in {run.seconds / 60:.1f} min; wrote {folder}")  # fmt: skip
    return folder


def _tensorboard(folder: Path) -> Any:
    """A TensorBoard writer when the ``tensorboard`` package is installed, else ``None``."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(folder / "tensorboard"))


if __name__ == "__main__":
    main()
