"""Train an RL baseline on a boardzoo game with stable-baselines3 (one file, CleanRL style).

    python experiments/train_baseline.py --game reversi --algo maskable_ppo \
        --opponent self_play --steps 1000000
    python experiments/train_baseline.py --game tictactoe --algo dqn --steps 50000
    python experiments/train_baseline.py --game connect_four --algo maskable_ppo --steps 200000
    python experiments/train_baseline.py --game reversi --board-size 8 --num-envs 64 \
        --opponent greedy --steps 1000000                # SB3 on the batched env
    python experiments/train_baseline.py --quick          # a smoke run of a thousand steps

``--game`` is any catalog game; ``--board-size`` (and ``--options NAME=VALUE``) set its options,
for games that have them (Reversi is trained on 6x6 unless ``--board-size`` says otherwise).

Algorithms: MaskablePPO (sb3-contrib, illegal actions masked) and DQN (SB3; an illegal action
ends the episode with -1, so it learns to avoid them). Opponents: any agent spec (random, greedy,
``mcts:simulations=20``, ...) or ``self_play``: a pool of the learner's own past snapshots (plus
the random player), one drawn per episode. Every ``--eval-every`` steps the policy plays
``--eval-episodes`` games against each of ``--eval-opponents`` (legal moves only, deterministic)
and the win rates are appended to ``evaluations.csv``; a checkpoint is saved at the same time.
The final model is ``model.zip`` in the run folder, with ``learning_curve.png`` and SB3's own
training figures (losses, entropy, frames a second) in ``progress.csv``.

``--num-envs N`` (N > 1) trains on the batched env (:mod:`boardzoo.vector`, through
:class:`boardzoo.rl.SB3VecEnv`): N games stepped in one compiled call, the opponent (``random``
or ``greedy``) inside it. PPO then collects ``--n-steps`` steps of each of the N games per
rollout (default ``4096 // N``, at least 32) and learns in minibatches of ``--batch-size``
(default 64, 512 with several envs). ``steps_per_second`` is printed at the end.
"""

from __future__ import annotations

import csv
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boardzoo.experiment_kit import (
    OPTIONS_HELP,
    arg,
    check_specs,
    game_label,
    game_options,
    parse_args,
    resolve_game,
    run_folder,
    seed_everything,
)
from boardzoo.games.catalog import game_names
from boardzoo.vector import COMPILED_OPPONENTS, compiled_opponent_code

ALGOS = ("maskable_ppo", "dqn")
# This script's options, for games that have them, where the command line gives none.
DEFAULT_OPTIONS = {"board_size": 6}


@dataclass(frozen=True)
class Args:
    game: str = arg("tictactoe", f"the game: {', '.join(game_names())}")
    options: tuple[str, ...] = arg((), OPTIONS_HELP + f" ({DEFAULT_OPTIONS} here)")
    algo: str = arg("maskable_ppo", "maskable_ppo or dqn")
    opponent: str = arg("random", "an agent spec, or self_play")
    steps: int = arg(100_000, "environment steps to train")
    num_envs: int = arg(1, "games played at once; above 1, the batched env (random or greedy)")
    n_steps: int = arg(0, "maskable_ppo: steps of each env per rollout (0: 512, or 4096 // N)")
    batch_size: int = arg(0, "minibatch size (0: 64, or 512 with several envs)")
    seed: int = arg(0, "seeds the learner, the opponents and the evaluations")
    policy: str = arg("mlp", "mlp, or cnn (boardzoo.rl.BoardCNN, for small boards)")
    eval_every: int = arg(10_000, "steps between evaluations and checkpoints")
    eval_episodes: int = arg(50, "games against each evaluation opponent")
    eval_opponents: tuple[str, ...] = arg(
        ("random", "greedy", "mcts:simulations=100"), "agent specs to evaluate against"
    )
    snapshot_every: int = arg(20_000, "self_play: steps between snapshots added to the pool")
    pool_size: int = arg(5, "self_play: snapshots kept in the pool")
    out: str = arg("runs", "folder that receives the run folder")
    quick: bool = arg(False, "a smoke run: few steps, small evaluations")


def check(args: Args) -> Args:
    args = resolve_game(args, DEFAULT_OPTIONS)
    if args.algo not in ALGOS:
        raise SystemExit(f"--algo must be one of {', '.join(ALGOS)}, got {args.algo!r}")
    if args.policy not in ("mlp", "cnn"):
        raise SystemExit(f"--policy must be mlp or cnn, got {args.policy!r}")
    if args.num_envs < 1:
        raise SystemExit(f"--num-envs must be at least 1, got {args.num_envs}")
    if args.num_envs > 1:
        try:
            compiled_opponent_code(args.opponent)
        except ValueError:
            raise SystemExit(
                f"--num-envs {args.num_envs} plays in the batched env, whose opponents are "
                f"{COMPILED_OPPONENTS}; got --opponent {args.opponent!r}"
            ) from None
    if args.n_steps < 0 or args.batch_size < 0:
        raise SystemExit("--n-steps and --batch-size must be positive (or 0 for the default)")
    if args.opponent != "self_play":
        check_specs("--opponent", [args.opponent])
    check_specs("--eval-opponents", args.eval_opponents)
    if args.quick:  # with several envs, a rollout of about --steps (n_steps 64 for 16 envs)
        n_steps = args.n_steps or (max(32, 1024 // args.num_envs) if args.num_envs > 1 else 0)
        return Args(**{**asdict(args), "steps": 1000, "eval_every": 500, "eval_episodes": 4,
                       "snapshot_every": 500, "n_steps": n_steps,
                       "eval_opponents": ("random", "greedy")})  # fmt: skip
    return args


def make_model(args: Args, env):
    policy_kwargs = {}
    if args.policy == "cnn":
        from boardzoo.rl import BoardCNN

        policy_kwargs = {"features_extractor_class": BoardCNN}
    batched = args.num_envs > 1
    batch_size = args.batch_size or (512 if batched else 64)
    if args.algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        n_steps = args.n_steps or (max(32, 4096 // args.num_envs) if batched else 512)
        return MaskablePPO("MlpPolicy", env, seed=args.seed, n_steps=n_steps,
                           batch_size=batch_size, policy_kwargs=policy_kwargs,
                           verbose=0)  # fmt: skip
    from stable_baselines3 import DQN

    return DQN("MlpPolicy", env, seed=args.seed, learning_starts=min(1000, args.steps // 4),
               exploration_fraction=0.3, batch_size=batch_size, policy_kwargs=policy_kwargs,
               verbose=0)  # fmt: skip


def main(argv: list[str] | None = None) -> Path:
    args = check(parse_args(Args, argv, description=__doc__.splitlines()[0]))
    seed_everything(args.seed)
    import torch
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    from boardzoo.envs.single_agent import BoardGameSingleAgentEnv
    from boardzoo.rl import SnapshotPool, evaluate_policy_vs

    torch.set_num_threads(1)
    folder = run_folder(args.out, "train_baseline", args.game, args.seed, args)
    (folder / "checkpoints").mkdir()
    opponent = ["random"] if args.opponent == "self_play" else args.opponent
    options: dict[str, Any] = dict(game_options(args))
    if args.num_envs > 1:
        from boardzoo.rl import SB3VecEnv
        from boardzoo.vector import BoardGameVectorEnv

        env: Any = SB3VecEnv(
            BoardGameVectorEnv(args.game, args.num_envs, opponent=args.opponent, **options)
        )
        env.seed(args.seed)
    else:
        env = BoardGameSingleAgentEnv(args.game, opponent=opponent, **options)
        env.reset(seed=args.seed)
    model = make_model(args, env)
    # SB3's training figures (losses, entropy, fps) as progress.csv in the run folder; left to
    # itself SB3 makes an empty folder under /tmp for every learn() call.
    model.set_logger(configure(str(folder), ["csv"]))
    rows_path = folder / "evaluations.csv"
    fields = ["step", "seconds", "opponent", "win", "draw", "loss", "score"]
    with rows_path.open("w", newline="") as sink:
        csv.writer(sink).writerow(fields)
    start = time.perf_counter()

    evaluating = [0.0]  # seconds of evaluations while learning: not training

    class Periodic(BaseCallback):
        """Evaluations and checkpoints every so many steps."""

        def _on_step(self) -> bool:
            step = self.num_timesteps
            before = step - args.num_envs  # this call's steps: (before, step]
            if step // args.eval_every > before // args.eval_every:
                paused = time.perf_counter()
                evaluate(step)
                evaluating[0] += time.perf_counter() - paused
            return True

    def evaluate(step: int) -> None:
        model.save(folder / "checkpoints" / f"model_{step}.zip")
        with rows_path.open("a", newline="") as sink:
            writer = csv.writer(sink)
            for spec in args.eval_opponents:
                result = evaluate_policy_vs(model, args.game, spec, args.eval_episodes,
                                            seed=10_000, **options)  # fmt: skip
                seconds = round(time.perf_counter() - start, 1)
                writer.writerow([step, seconds, spec, *(result[k] for k in fields[3:])])
                shares = " ".join(f"{k} {result[k]:.0%}" for k in ("win", "draw", "loss"))
                print(f"step {step:>9,}: vs {spec:<24} {shares}", flush=True)

    evaluate(0)
    learn_start = time.perf_counter()
    callbacks: list[BaseCallback] = [Periodic()]
    if args.opponent == "self_play":  # snapshots join the pool (random + the newest), first
        snapshots = SnapshotPool(env, folder / "checkpoints", args.snapshot_every,
                                 args.pool_size, args.seed)  # fmt: skip
        callbacks.insert(0, snapshots)
    model.learn(args.steps, callback=callbacks)
    training_seconds = time.perf_counter() - learn_start - evaluating[0]
    rate = model.num_timesteps / training_seconds
    print(f"steps_per_second {rate:,.0f} ({model.num_timesteps:,} steps in {training_seconds:.0f} s"
          f" of training, evaluations left out)")  # fmt: skip
    if model.num_timesteps // args.eval_every * args.eval_every != model.num_timesteps:
        evaluate(model.num_timesteps)
    model.save(folder / "model.zip")
    plot(rows_path, folder / "learning_curve.png", args)
    print(f"saved {folder / 'model.zip'} in {time.perf_counter() - start:.0f} s")
    return folder


def plot(rows_path: Path, png: Path, args: Args) -> None:
    """Win rate against each evaluation opponent over training steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with rows_path.open() as source:
        rows = list(csv.DictReader(source))
    figure, axes = plt.subplots(figsize=(7, 4))
    for spec in args.eval_opponents:
        points = [(int(r["step"]), float(r["win"])) for r in rows if r["opponent"] == spec]
        axes.plot(*zip(*points, strict=True), marker="o", label=f"vs {spec}")
    title = f"{args.algo} on {game_label(args)}, opponent {args.opponent}, seed {args.seed}"
    axes.set(xlabel="training steps", ylabel="win rate", ylim=(-0.02, 1.02), title=title)
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


if __name__ == "__main__":
    main()
