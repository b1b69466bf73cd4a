"""Masked PPO by self-play on the batched env (one file, CleanRL style), evaluated in the arena.

    python experiments/ppo_selfplay.py --game reversi --num-envs 256 --minutes 60
    python experiments/ppo_selfplay.py --resume-folder runs/ppo_selfplay-reversi-seed0-...  # go on
    python experiments/ppo_selfplay.py --quick          # a smoke run of a few updates (its
                                                        # evaluations play in this process)

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
stays on-policy and covers the symmetric positions too.

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
from typing import Any

import numpy as np

from boardzoo.experiment import (
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

# This script's options, for games that have them, where the command line gives none.
DEFAULT_OPTIONS = {"board_size": 8}
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
    quick: bool = arg(False, "a smoke run: a few small updates, tiny evaluations")


def check(args: Args) -> Args:
    args = resolve_game(args, DEFAULT_OPTIONS)
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
        args = Args(**{**asdict(args), "num_envs": 32, "num_steps": 16, "minutes": 0.1,
                       "eval_every": 0.05, "eval_games": 2, "snapshot_every": 2,
                       "channels": 8, "eval_opponents": ("random", "greedy")})  # fmt: skip
    if args.init_model:
        _check_init_model(args)
    return args


def _check_init_model(args: Args) -> None:
    """Exit with a one-line error unless ``--init-model`` is a model of this game and network."""
    from boardzoo.learned.model_io import ModelFileError, read_model_for
    from boardzoo.learned.network import NetConfig

    try:
        config, _ = read_model_for(args.init_model, game_of(args.game, **game_options(args)))
    except ModelFileError as error:
        raise SystemExit(f"--init-model: {error}") from None
    ours = NetConfig(args.game, game_options(args), channels=args.channels, blocks=args.blocks)
    if config != ours:  # the whole network, the value head's width included
        raise SystemExit(
            f"--init-model {args.init_model}: its network has {config.channels} channels, "
            f"{config.blocks} blocks and a value head of {config.value_hidden}, this run's "
            f"{ours.channels}, {ours.blocks} and {ours.value_hidden}: give the same --channels "
            "and --blocks"
        )


class Run:
    """The learner, its optimizer, the league and the batched env of one training run."""

    def __init__(self, args: Args, folder: Path) -> None:
        import torch

        from boardzoo.learned.network import AZNet, NetConfig
        from boardzoo.learned.torch_evaluator import TorchEvaluator
        from boardzoo.vector import BoardGameVectorEnv, TorchPolicy

        self.args, self.folder = args, folder
        self.options = game_options(args)
        self.config = NetConfig(args.game, self.options, channels=args.channels,
                                blocks=args.blocks)  # fmt: skip
        self.net = AZNet(self.config)
        self.evaluator = TorchEvaluator(self.net)  # fused inference, remade after each update
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate, eps=1e-5)
        self.slots = [AZNet(self.config).eval() for _ in range(args.snapshots)]
        for slot in self.slots:
            slot.load_state_dict(self.net.state_dict())
        self.policies = [
            TorchPolicy(_Logits(TorchEvaluator(slot)), deterministic=False, seed=args.seed + 1 + k)
            for k, slot in enumerate(self.slots)
        ]
        self.envs = BoardGameVectorEnv(
            args.game, args.num_envs, opponent=[*args.league, *self.policies],
            learner_color="random", **self.options,
        )  # fmt: skip
        self.symmetries = BoardSymmetries(game_of(args.game, **self.options), args.augment,
                                          seed=args.seed)  # fmt: skip
        self.update = 0
        self.steps = 0
        self.seconds = 0.0  # training time so far
        self.evaluated_at = 0.0  # training seconds at the last evaluation
        self.next_slot = 0

    # --- checkpoints ------------------------------------------------------------------------

    def save(self) -> None:
        import torch

        from boardzoo.learned.model_io import atomic_torch_save, save_model

        metadata = {"trained_by": "experiments/ppo_selfplay.py", "update": self.update,
                    "steps": self.steps, "minutes": round(self.seconds / 60, 2),
                    "args": asdict(self.args)}  # fmt: skip
        path = save_model(self.folder / "models" / f"model_{self.update}.pt", self.net,
                          metadata=metadata)  # fmt: skip
        save_model(self.folder / "model.pt", self.net, metadata=metadata)
        state = {
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "slots": [slot.state_dict() for slot in self.slots],
            "torch_rng": torch.get_rng_state(),
            "numbers": torch.tensor([self.update, self.steps, self.next_slot]),
            "seconds": torch.tensor([self.seconds, self.evaluated_at], dtype=torch.float64),
        }
        atomic_torch_save(state, self.folder / "checkpoint.pt")
        print(f"saved {path}", flush=True)

    def load(self) -> None:
        import torch

        state = torch.load(self.folder / "checkpoint.pt", weights_only=True)
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        for slot, weights in zip(self.slots, state["slots"], strict=True):
            slot.load_state_dict(weights)
        torch.set_rng_state(state["torch_rng"])
        self.update, self.steps, self.next_slot = (int(v) for v in state["numbers"])
        self.seconds, self.evaluated_at = (float(v) for v in state["seconds"])
        self.symmetries.rng = np.random.default_rng([self.args.seed, 7, self.update])

    def start_from(self, path: str) -> None:
        """Load the weights of the model file ``path`` into the learner and every league slot."""
        from boardzoo.learned.model_io import load_model

        net, _, _ = load_model(path)
        for target in (self.net, *self.slots):
            target.load_state_dict(net.state_dict())  # (the evaluators see the new weights)

    def refresh_snapshot(self) -> None:
        """Copy the learner into the next league slot."""
        if self.slots:
            self.slots[self.next_slot].load_state_dict(self.net.state_dict())
            self.next_slot = (self.next_slot + 1) % len(self.slots)


class BoardSymmetries:
    """Random symmetries of the game's board, one per sub-env and move (see ``--augment``).

    The learner sees each position through a transform drawn for it: its observation and
    legal mask are transformed, the move it samples there is mapped back to the real board for
    the env. The rollout keeps what the learner saw, so the data stay on-policy while they cover
    the symmetric positions too.
    """

    def __init__(self, game: Any, enabled: bool, seed: int) -> None:
        from boardzoo.games.symmetry import symmetries

        found = symmetries(game) if enabled else symmetries(game)[:1]  # the identity first
        self.squares = np.stack([symmetry.square_source for symmetry in found])
        self.actions = np.stack([symmetry.action_source for symmetry in found])
        self.rng = np.random.default_rng([seed, 7])

    def transform(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """``obs`` (n, rows, cols, planes) and ``mask`` (n, actions) as the learner sees them,
        and the function from its actions back to the env's."""
        if len(self.squares) == 1:
            return obs, mask, lambda actions: actions
        n, rows, cols, planes = obs.shape
        drawn = self.rng.integers(0, len(self.squares), size=n)
        every = np.arange(n)[:, None]
        flat = obs.reshape(n, rows * cols, planes)[every, self.squares[drawn]]
        sources = self.actions[drawn]
        return (flat.reshape(obs.shape), mask[every, sources],
                lambda actions: sources[np.arange(n), actions])  # fmt: skip


class _Logits:
    """A network's policy logits for board planes ``(k, rows, cols, 2)`` (the env's layout),
    through its fused inference copy."""

    def __init__(self, evaluator: Any) -> None:
        self.evaluator = evaluator

    def __call__(self, planes: Any) -> Any:
        import torch

        obs = planes.permute(0, 3, 1, 2).numpy()
        everything = np.ones((obs.shape[0], self.evaluator.num_actions), dtype=np.bool_)
        logits, _ = self.evaluator(obs, everything)
        return torch.from_numpy(logits)


@dataclass
class Rollout:
    """What one rollout gathered, flattened for the update (autoreset steps left out), and the
    observations and masks the next rollout starts from."""

    obs: Any
    mask: Any
    actions: Any
    logprobs: Any
    advantages: Any
    targets: Any
    next_obs: np.ndarray
    next_mask: np.ndarray
    returns: list[float]


def rollout(run: Run, obs: np.ndarray, mask: np.ndarray) -> Rollout:
    """``num_steps`` steps of every game with the learner's sampled moves, and their advantages
    (GAE) and value targets."""
    import torch

    args, net, envs = run.args, run.net, run.envs
    n, steps = args.num_envs, args.num_steps
    buffer_obs = np.empty((steps, *obs.shape), dtype=np.int8)
    buffer_mask = np.empty((steps, *mask.shape), dtype=np.bool_)
    actions = np.empty((steps, n), dtype=np.int64)
    logprobs = np.empty((steps, n), dtype=np.float32)
    values = np.empty((steps + 1, n), dtype=np.float32)
    rewards = np.empty((steps, n), dtype=np.float32)
    dones = np.empty((steps, n), dtype=np.float32)
    valid = np.empty((steps, n), dtype=np.bool_)  # False: an autoreset step, its action ignored
    returns_seen: list[float] = []
    net.eval()
    with torch.inference_mode():
        for t in range(steps):
            legal = mask.astype(np.bool_)
            valid[t] = legal.any(axis=1)
            legal[~valid[t]] = True  # the action of an autoreset step is ignored: any will do
            seen, legal, to_env = run.symmetries.transform(obs, legal)
            raw, value = run.evaluator(seen.transpose(0, 3, 1, 2), legal)
            logits = torch.from_numpy(raw).masked_fill_(~torch.from_numpy(legal), -1e9)
            log_policy = torch.log_softmax(logits, dim=1)
            action = torch.multinomial(log_policy.exp(), 1)
            buffer_obs[t], buffer_mask[t] = seen, legal
            actions[t] = action.squeeze(1).numpy()
            logprobs[t] = log_policy.gather(1, action).squeeze(1).numpy()
            values[t] = value
            obs, reward, terminated, truncated, info = envs.step(to_env(actions[t]))
            mask = info["action_mask"]
            rewards[t], dones[t] = reward, terminated | truncated
            returns_seen.extend(reward[terminated].tolist())
        _, values[steps] = run.evaluator(obs.transpose(0, 3, 1, 2), np.ones_like(legal))
    advantages = np.zeros((steps, n), dtype=np.float32)
    running = np.zeros(n, dtype=np.float32)
    for t in reversed(range(steps)):
        carry = 1.0 - dones[t]
        delta = rewards[t] + args.gamma * values[t + 1] * carry - values[t]
        running = delta + args.gamma * args.gae_lambda * carry * running
        advantages[t] = running
    targets = advantages + values[:steps]

    keep = valid.reshape(-1)
    flat_obs = torch.as_tensor(buffer_obs.reshape(-1, *obs.shape[1:])[keep], dtype=torch.float32)
    flat_obs = flat_obs.permute(0, 3, 1, 2)
    flat_mask = torch.as_tensor(buffer_mask.reshape(-1, mask.shape[1])[keep])
    flat_actions = torch.as_tensor(actions.reshape(-1)[keep])
    flat_logprobs = torch.as_tensor(logprobs.reshape(-1)[keep])
    flat_advantages = torch.as_tensor(advantages.reshape(-1)[keep])
    flat_targets = torch.as_tensor(targets.reshape(-1)[keep])
    return Rollout(flat_obs, flat_mask, flat_actions, flat_logprobs, flat_advantages,
                   flat_targets, obs, mask, returns_seen)  # fmt: skip


def update(run: Run, batch: Rollout) -> dict[str, float]:
    """PPO's clipped update of the learner over ``batch``, ``epochs`` passes in ``minibatches``
    random minibatches; returns the mean losses, entropy and approximate KL."""
    import torch

    args, net = run.args, run.net
    flat_obs, flat_mask, flat_actions = batch.obs, batch.mask, batch.actions
    flat_logprobs, flat_advantages, flat_targets = batch.logprobs, batch.advantages, batch.targets
    size = flat_actions.shape[0]
    net.train()
    figures: dict[str, list[float]] = {"policy": [], "value": [], "entropy": [], "kl": []}
    for _ in range(args.epochs):
        for chosen in torch.tensor_split(torch.randperm(size), args.minibatches):
            if len(chosen) < 2:  # (a rollout of autoreset steps only)
                continue
            logits, value = net(flat_obs[chosen])
            log_policy = torch.log_softmax(logits.masked_fill(~flat_mask[chosen], -1e9), dim=1)
            new_logprob = log_policy.gather(1, flat_actions[chosen, None]).squeeze(1)
            ratio = (new_logprob - flat_logprobs[chosen]).exp()
            advantage = flat_advantages[chosen]
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            policy_loss = torch.max(
                -advantage * ratio, -advantage * ratio.clamp(1 - args.clip, 1 + args.clip)
            ).mean()
            value_loss = 0.5 * ((value - flat_targets[chosen]) ** 2).mean()
            entropy = -(log_policy.exp() * log_policy).sum(dim=1).mean()
            loss = policy_loss + args.value_coef * value_loss - args.entropy * entropy
            run.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            run.optimizer.step()
            with torch.no_grad():
                figures["kl"].append(float(((ratio - 1) - ratio.log()).mean()))
            figures["policy"].append(policy_loss.item())
            figures["value"].append(value_loss.item())
            figures["entropy"].append(entropy.item())
    return {key: float(np.mean(values_)) for key, values_ in figures.items()}


def evaluate(run: Run) -> None:
    """The saved model against each evaluation opponent in the arena; rows to the CSV."""
    from boardzoo.arena import play_match

    args = run.args
    model = run.folder / "model.pt"
    learner = f"az:model={model},simulations=1"
    path = run.folder / "evaluations.csv"
    new = not path.exists()
    with path.open("a", newline="") as sink:
        writer = csv.writer(sink)
        if new:
            writer.writerow(["update", "steps", "minutes", "opponent", "wins", "draws",
                             "losses", "score", "low", "high"])  # fmt: skip
        for opponent in args.eval_opponents:
            result = play_match(args.game, (learner, opponent), options=run.options,
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
    resumed = (folder / "checkpoint.pt").exists()
    seed_everything(args.seed)
    import torch

    torch.set_num_threads(args.threads)
    run = Run(args, folder)
    if resumed:
        run.load()
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
        for group in run.optimizer.param_groups:  # annealed over the run's minutes
            group["lr"] = args.learning_rate * max(0.05, 1.0 - run.seconds / budget)
        start = time.perf_counter()
        batch = rollout(run, obs, mask)
        figures = update(run, batch)
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
            run.save()
            evaluate(run)
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
