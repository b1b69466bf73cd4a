"""Make a game's labelled set: positions from games of varied strength, every move scored exactly.

    python scripts/make_labelled_set.py tictactoe --positions 2000
    python scripts/make_labelled_set.py reversi --size 4 --positions 3000
    python scripts/make_labelled_set.py reversi --size 6 --positions 3000 --max-empties 20
    python scripts/make_labelled_set.py connect_four --positions 3000 --max-empties 34 --minutes 60

Writes the game's shipped set (``boardzoo/games/data/labelled-GAME.jsonl``) unless ``--out``
names another file; the file's first line records this command and its settings. Each position
is written as it is scored: the same command run again goes on where it stopped (``--minutes``
stops it cleanly after that many minutes). See :mod:`boardzoo.accuracy.making` for how games
are played.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boardzoo.accuracy import LabelledSetSettings, make_labelled, shipped_set_path
from boardzoo.games.catalog import game_names, make_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=game_names())
    parser.add_argument("--size", type=int, help="Reversi's board size (4, 6 or 8)")
    parser.add_argument("--positions", type=int, default=2000, help="how many (default 2000)")
    parser.add_argument("--per-game", type=int, default=3, help="at most this many a game")
    parser.add_argument("--min-empties", type=int, default=1, help="at least this many empties")
    parser.add_argument("--max-empties", type=int, help="at most this many (default: the solver's)")
    parser.add_argument("--seed", type=int, default=0, help="game i is played with seed + i")
    parser.add_argument("--out", type=Path, help="the set file (default: the shipped one)")
    parser.add_argument("--minutes", type=float, help="stop after this long (run again to go on)")
    args = parser.parse_args(argv)
    options = {"board_size": args.size} if args.size is not None else {}
    try:
        game = make_game(args.game, **options)
        config = LabelledSetSettings(
            args.positions, args.per_game, args.min_empties, args.max_empties, args.seed
        )
    except ValueError as error:
        parser.error(str(error))
    if args.minutes is not None and args.minutes <= 0:
        parser.error(f"--minutes {args.minutes}: give a positive number")
    path = args.out if args.out is not None else shipped_set_path(game)
    command = "python scripts/make_labelled_set.py " + " ".join(
        arg for arg in (argv if argv is not None else sys.argv[1:])
    )
    try:
        count = make_labelled(game, path, config, command, args.minutes)
    except ValueError as error:
        parser.error(str(error))
    left = config.positions - count
    print(f"{path}: {count} positions" + (f"; {left} to go: run again" if left > 0 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
