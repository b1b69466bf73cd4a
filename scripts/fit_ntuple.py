"""Fit Reversi's n-tuple evaluation on labelled positions (boardzoo.fit.data, .fit).

    python scripts/fit_ntuple.py generate --minutes 45 --out runs/fit-data --seed 0
    python scripts/fit_ntuple.py generate --minutes 45 --out runs/fit-data --resume
    python scripts/fit_ntuple.py children --data runs/fit-data --minutes 45
    python scripts/fit_ntuple.py fit --data runs/fit-data --out runs/fit-net/net.npz
    python scripts/fit_ntuple.py measure --data runs/fit-heldout --net runs/fit-net/net.npz

``generate`` plays the engine against itself from XOT openings and labels each position with
the solver's exact final disc difference (at most ``--solve-empties`` empty squares) or the
game's result with a perfect endgame (before), in chunks under ``--out`` with
``progress.json``: a killed run goes on with ``--resume``, and the same seed gives the same
data. ``children`` adds to a data directory every move's result from its solved positions,
solved (boardzoo.fit.children: the siblings a search compares); run again, it goes on where it
stopped. ``fit`` fits the weights per stage by regularised least squares and writes a net file in
the format of boardzoo.learned.ntuple, usable by every learned evaluation (``engine:net=...``).
``measure`` compares nets' errors in discs on labelled positions, or with ``--moves`` the moves
their engines choose in solved positions (``--min-empties 12 --max-empties 18``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from boardzoo.fit.children import ChildrenSettings, add_children
from boardzoo.fit.data import GenerateSettings, generate


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return value


def _nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join((__doc__ or "").splitlines()[1:]),
    )
    steps = parser.add_subparsers(dest="step", required=True, metavar="STEP")

    gen = steps.add_parser("generate", help="play and label games into a data directory")
    gen.add_argument("--out", required=True, help="data directory (chunks, progress.json)")
    gen.add_argument("--minutes", type=_positive_float, help="stop after this long")
    gen.add_argument("--games", type=_positive_int, help="stop at this many games in all")
    gen.add_argument("--resume", action="store_true", help="go on with OUT's own settings")
    defaults = GenerateSettings()
    gen.add_argument("--seed", type=int, default=defaults.seed)
    gen.add_argument("--openings", default=defaults.openings, help="opening lines file")
    gen.add_argument("--depth", type=_positive_int, default=defaults.depth, help="engine plies")
    gen.add_argument("--epsilon", type=_nonnegative_float, default=defaults.epsilon,
                     help="chance of a random move at each ply")  # fmt: skip
    gen.add_argument("--random-empties", type=int, default=defaults.random_empties,
                     help="random moves only with more empty squares than this")  # fmt: skip
    gen.add_argument("--solve-empties", type=int, default=defaults.solve_empties,
                     help="solve positions with at most this many empty squares")  # fmt: skip
    gen.add_argument("--solve-nodes", type=_positive_int, default=None,
                     help="a solve gives up after this many nodes (default: never)")  # fmt: skip
    gen.add_argument("--chunk-games", type=_positive_int, default=defaults.chunk_games)
    gen.add_argument("--net", default=None, help="net file the engine plays with")

    kids = steps.add_parser("children", help="label the children of solved positions")
    kids.add_argument("--data", required=True, nargs="+", help="data directories, in turn")
    kids.add_argument("--minutes", type=_positive_float, help="stop after this long")
    kids_defaults = ChildrenSettings()
    kids.add_argument("--min-empties", type=int, default=kids_defaults.min_empties,
                      help="fewest empty squares of a parent")  # fmt: skip
    kids.add_argument("--max-empties", type=int, default=kids_defaults.max_empties,
                      help="most empty squares of a parent")  # fmt: skip

    fit = steps.add_parser("fit", help="fit a net on data directories")
    fit.add_argument("--data", required=True, nargs="+", help="data directories")
    fit.add_argument("--out", required=True, help="the net file to write (.npz)")
    fit.add_argument("--stages", type=_positive_int, default=None, help="weight sets")
    fit.add_argument("--l2", type=_nonnegative_float, nargs="+", default=None,
                     help="L2 strength(s); several: per stage, the best held out")  # fmt: skip
    fit.add_argument("--prior", default=None,
                     help="net file to pull toward ('shipped': the game's; 'none')")  # fmt: skip
    fit.add_argument("--scale", type=_positive_float, default=None,
                     help="discs per unit of the sum (default: measured)")  # fmt: skip
    fit.add_argument("--holdout", type=_nonnegative_float, default=None,
                     help="fraction of games kept out to measure SCALE")  # fmt: skip
    fit.add_argument("--seed", type=int, default=0, help="seed of the held-out games")
    fit.add_argument("--overlap", type=int, default=None,
                     help="a stage also fits this many piece counts either side")  # fmt: skip
    fit.add_argument("--iterations", type=_positive_int, default=None, help="CG steps a stage")
    fit.add_argument("--fit-stages", type=int, nargs="+", default=None,
                     help="stages to fit; the others keep the prior's (default: all)")  # fmt: skip

    measure = steps.add_parser("measure", help="errors of nets on labelled positions")
    measure.add_argument("--data", required=True, nargs="+", help="data directories")
    measure.add_argument("--net", required=True, nargs="+", help="net files ('shipped')")
    measure.add_argument("--min-empties", type=int, default=20)
    measure.add_argument("--max-empties", type=int, default=24)
    measure.add_argument("--all-labels", action="store_true",
                         help="also positions labelled by their game's result")  # fmt: skip
    measure.add_argument("--scale", type=_positive_float, default=None,
                         help="discs per unit of the sum, for nets without their own")  # fmt: skip
    measure.add_argument("--moves", type=_positive_int, default=None, metavar="COUNT",
                         help="instead: each net's moves at depths 1, 2, 4 in COUNT solved "
                         "positions against every move's exact score")  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    command = shlex.join(["python", "scripts/fit_ntuple.py", *(argv or sys.argv[1:])])
    log = lambda line: print(line, flush=True)  # noqa: E731
    try:
        if args.step == "generate":
            if args.minutes is None and args.games is None:
                parser.error("generate: give --minutes, --games or both")
            config = None
            if not args.resume:
                config = GenerateSettings(
                    seed=args.seed,
                    openings=args.openings,
                    depth=args.depth,
                    epsilon=args.epsilon,
                    solve_empties=args.solve_empties,
                    chunk_games=args.chunk_games,
                    net=args.net,
                    random_empties=args.random_empties,
                    solve_nodes=args.solve_nodes,
                )
                if not Path(args.openings).is_file():
                    parser.error(f"generate: no openings file {args.openings}")
            generate(args.out, config, games=args.games, minutes=args.minutes,
                     resume=args.resume, command=command, log=log)  # fmt: skip
        elif args.step == "children":
            children_config = ChildrenSettings(args.min_empties, args.max_empties)
            deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes
            for directory in args.data:
                left = None if deadline is None else (deadline - time.monotonic()) / 60
                if left is not None and left <= 0:
                    break
                add_children(directory, children_config, minutes=left, command=command, log=log)
        elif args.step == "fit":
            from boardzoo.fit.weights import FitSettings, fit_and_save

            fit_config = FitSettings.with_defaults(
                stages=args.stages,
                l2=None if args.l2 is None else tuple(args.l2),
                prior=args.prior,
                scale=args.scale,
                holdout=args.holdout,
                seed=args.seed,
                iterations=args.iterations,
                overlap=args.overlap,
                fit_stages=None if args.fit_stages is None else tuple(args.fit_stages),
            )
            fit_and_save(args.data, args.out, fit_config, command=command, log=log)
        elif args.moves is not None:
            from boardzoo.fit.measure import measure_moves

            measure_moves(args.data, args.net, args.min_empties, args.max_empties,
                          count=args.moves, log=log)  # fmt: skip
        else:
            from boardzoo.fit.measure import measure_nets

            measure_nets(args.data, args.net, args.min_empties, args.max_empties,
                         exact_only=not args.all_labels, scale=args.scale, log=log)  # fmt: skip
    except ValueError as error:
        parser.error(f"{args.step}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
