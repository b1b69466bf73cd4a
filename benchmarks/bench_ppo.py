"""Training steps a second of masked PPO on the batched env (``experiments/ppo_selfplay.py``).

    python benchmarks/bench_ppo.py                         # Reversi 8x8, the configurations below
    python benchmarks/bench_ppo.py --configs 16/0/2/1024 32/1/4/256 --updates 5 --threads 2

Figures, printed, nothing asserted. A configuration is
``CHANNELS/BLOCKS/EPOCHS/NUM_ENVS`` of ``ppo_selfplay.py`` (``--channels --blocks --epochs
--num-envs``; 32 steps a rollout, 4 minibatches a pass, its default league: random, greedy and 6
snapshots of the learner sampling their moves). Each configuration runs in a process of its own:
one warm-up update (compiling the env, first calls), then ``--updates`` timed updates; a training
step is one step of one game (the learner's move and the opponent's reply). Printed: the median
steps/s of an update (rollout and PPO update together, as ``ppo_selfplay.py``'s
``steps_per_second``), and the median seconds of the rollout part and the update part.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
DEFAULT_CONFIGS = ("32/1/4/256", "32/0/4/256", "16/0/2/256", "16/0/2/1024")


def parse_config(text: str) -> tuple[int, int, int, int]:
    """``CHANNELS/BLOCKS/EPOCHS/NUM_ENVS`` as four integers, or a clear error."""
    parts = text.split("/")
    if len(parts) != 4 or not all(part.isdigit() for part in parts):
        raise argparse.ArgumentTypeError(
            f"a configuration is CHANNELS/BLOCKS/EPOCHS/NUM_ENVS (four integers), got {text!r}"
        )
    channels, blocks, epochs, num_envs = (int(part) for part in parts)
    if min(channels, epochs, num_envs) < 1:
        raise argparse.ArgumentTypeError(
            f"channels, epochs and num_envs must be at least 1, got {text!r}"
        )
    return channels, blocks, epochs, num_envs


def measure(
    config: str, game: str, board_size: int, updates: int, threads: int, augment: bool
) -> dict:
    """Time ``updates`` PPO updates of one configuration in this process."""
    import torch

    sys.path.insert(0, str(EXPERIMENTS))
    import ppo_selfplay  # type: ignore[import-not-found]

    from boardzoo.experiment_kit import parse_args

    channels, blocks, epochs, num_envs = parse_config(config)
    argv = ["--game", game, "--board-size", str(board_size), "--channels", str(channels),
            "--blocks", str(blocks), "--epochs", str(epochs), "--num-envs", str(num_envs),
            "--threads", str(threads), "--augment" if augment else "--no-augment"]  # fmt: skip
    args = ppo_selfplay.check(parse_args(ppo_selfplay.Args, argv))
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    run = ppo_selfplay.make_run(args)
    obs, info = run.envs.reset(seed=0)
    mask = info["action_mask"]
    rates, rollouts, updates_seconds = [], [], []
    for index in range(updates + 1):
        start = time.perf_counter()
        batch = run.rollout(obs, mask)
        middle = time.perf_counter()
        run.learn(batch)
        end = time.perf_counter()
        obs, mask = batch.next_obs, batch.next_mask
        if index:  # the first is the warm-up
            rates.append(num_envs * args.num_steps / (end - start))
            rollouts.append(middle - start)
            updates_seconds.append(end - middle)
    return {"config": config, "steps_per_second": statistics.median(rates),
            "rollout_s": statistics.median(rollouts),
            "update_s": statistics.median(updates_seconds)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="reversi", help="a catalog game (default: reversi)")
    parser.add_argument("--board-size", type=int, default=8, help="its board size (default: 8)")
    parser.add_argument("--configs", nargs="+", type=parse_config, default=None,
                        help="CHANNELS/BLOCKS/EPOCHS/NUM_ENVS each (default: "
                             f"{' '.join(DEFAULT_CONFIGS)})")  # fmt: skip
    parser.add_argument("--updates", type=int, default=4, help="timed updates (default: 4)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")
    parser.add_argument("--augment", choices=("on", "off", "both"), default="on",
                        help="ppo_selfplay.py's --augment (symmetries): on, off, or both side "
                             "by side (default: on)")  # fmt: skip
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.updates < 1 or args.threads < 1:
        parser.error(f"--updates and --threads must be at least 1, got {args.updates}, "
                     f"{args.threads}")  # fmt: skip
    if args.child:
        figures = measure(args.child, args.game, args.board_size, args.updates, args.threads,
                          args.augment == "on")  # fmt: skip
        print(json.dumps(figures))
        return
    configs = ["/".join(map(str, c)) for c in args.configs] if args.configs else DEFAULT_CONFIGS
    print(f"{args.game} board {args.board_size}, {args.threads} torch threads, "
          f"median of {args.updates} updates after one warm-up")  # fmt: skip
    print(f"{'channels/blocks/epochs/envs':>28} {'steps/s':>9} {'rollout s':>10} {'update s':>9}")
    augments = ("on", "off") if args.augment == "both" else (args.augment,)
    for config, augment in itertools.product(configs, augments):
        command = [sys.executable, __file__, "--child", config, "--game", args.game,
                   "--board-size", str(args.board_size), "--updates", str(args.updates),
                   "--threads", str(args.threads), "--augment", augment]  # fmt: skip
        label = f"{config} augment {augment}"
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            print(f"{label:>28} failed:\n{done.stderr[-2000:]}")
            continue
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{label:>28} {figures['steps_per_second']:>9,.0f} {figures['rollout_s']:>10.3f} "
              f"{figures['update_s']:>9.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
