"""``python -m boardzoo``: a game between two random players, printed move by move as text.

python -m boardzoo                        # Reversi 8x8, seed 0
python -m boardzoo --game tictactoe --seed 3
python -m boardzoo --game reversi --board-size 6 --quiet
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from boardzoo.envs import reversi_v0, tictactoe_v0
from boardzoo.games import action_name


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m boardzoo", description="Play a game between two random players."
    )
    parser.add_argument("--game", choices=["reversi", "tictactoe"], default="reversi")
    parser.add_argument("--board-size", type=int, choices=[4, 6, 8], default=8, help="Reversi only")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random players")
    parser.add_argument("--quiet", action="store_true", help="print the final position only")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.game == "reversi":
        env = reversi_v0.env(board_size=args.board_size, render_mode="ansi")
    else:
        env = tictactoe_v0.env(render_mode="ansi")
    rng = np.random.default_rng(args.seed)
    env.reset(seed=args.seed)
    if not args.quiet:
        print(env.render(), end="\n\n")
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            rewards[agent] = reward
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        if not args.quiet:
            move = action_name(action, args.board_size) if args.game == "reversi" else action
            print(f"{agent} plays {move}\n{env.render()}\n")
    if args.quiet:
        print(env.render())
    print("final rewards:", ", ".join(f"{agent} {value:+g}" for agent, value in rewards.items()))
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
