"""Train the n-tuple network of a game by TD(λ) self-play (see boardzoo.learned.td).

    python scripts/train_ntuple.py --game reversi --board-size 8 --minutes 25 --out runs/ntuple-r8
    python scripts/train_ntuple.py --game connect_four --games 100000 --out runs/ntuple-c4 --resume

The checkpoint ``OUT/net.npz`` is saved after every chunk of games, with the settings, the
progress (games, positions, RNG state) and the commands that made it in its metadata, so an
interrupted run goes on with ``--resume``; the same seed and number of games give the same
weights. To ship a net, copy the checkpoint to ``boardzoo/learned/models/`` under the game's
name (``reversi-8x8.npz``, ``connect_four.npz``).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from boardzoo.games.catalog import game_names, make_game
from boardzoo.learned.td import TDTrainSettings, train


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=game_names())
    parser.add_argument("--board-size", type=int, default=None, help="Reversi's board size")
    parser.add_argument("--out", required=True, help="directory of the checkpoint net.npz")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    parser.add_argument("--resume", action="store_true", help="go on from OUT/net.npz")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.1, help="step size (divided by instances)")
    parser.add_argument("--lambda", dest="lam", type=float, default=0.5, help="TD(λ)'s λ")
    parser.add_argument("--epsilon", type=float, default=0.1, help="random-move probability")
    parser.add_argument("--chunk-games", type=int, default=2000, help="games between saves")
    parser.add_argument("--stages", type=int, default=None, help="weight sets by piece count")
    parser.add_argument("--eval-every", type=float, default=120.0, help="seconds (0: never)")
    parser.add_argument("--eval-games", type=int, default=100)
    args = parser.parse_args(argv)
    if args.minutes is None and args.games is None:
        parser.error("give --minutes, --games or both")
    options = {} if args.board_size is None else {"board_size": args.board_size}
    try:
        game = make_game(args.game, **options)
        config = TDTrainSettings(
            seed=args.seed,
            lr=args.lr,
            lam=args.lam,
            epsilon=args.epsilon,
            chunk_games=args.chunk_games,
            stages=args.stages,
        )
    except ValueError as error:
        parser.error(str(error))
    command = shlex.join(["python", "scripts/train_ntuple.py", *(argv or sys.argv[1:])])
    try:
        train(
            game,
            args.out,
            config=config,
            games=args.games,
            minutes=args.minutes,
            resume=args.resume,
            command=command,
            eval_every=args.eval_every,
            eval_games=args.eval_games,
            log=lambda line: print(line, flush=True),
        )
    except ValueError as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
