r"""Train a game's learned n-tuple evaluation: TD self-play, or the Logistello/Edax recipe.

    python scripts/train_eval.py generate --game reversi --board-size 8 --out runs/eval8 \
        --minutes 60 --workers 2
    python scripts/train_eval.py children --data runs/eval8 --minutes 30
    python scripts/train_eval.py fit --data runs/eval8 --out runs/eval8-net/net.npz
    python scripts/train_eval.py relabel --data runs/eval8 --net runs/eval8-net/net.npz \
        --depth 6 --out runs/eval8-d6
    python scripts/train_eval.py fit --data runs/eval8-d6 --out runs/eval8-d6-net/net.npz \
        --prior runs/eval8-net/net.npz
    python scripts/train_eval.py iterate --data runs/eval8 --net runs/eval8-d6-net/net.npz \
        --depth 6 --out runs/eval8-r2 --fit-stages 0 1 2 3    # both steps: runs/eval8-r2/net.npz
    python scripts/train_eval.py measure --data runs/eval8-heldout \
        --net shipped runs/eval8-d6-net/net.npz
    python scripts/train_eval.py td --game connect_four --games 100000 --out runs/td-c4

Every game with a learned evaluation (Reversi 4x4, 6x6 and 8x8, Connect Four) takes the same
steps. ``generate`` plays the engine against itself from an opening suite (``--openings``: the
game's shipped ``balanced`` one, or a file such as the XOT openings) and labels each position
with the solver's exact score (at most ``--solve-empties`` empty squares) or the game's result
with a perfect endgame (before), in chunks under ``--out`` with ``progress.json``: a killed run
goes on with ``--resume``, and the same seed gives the same data for any ``--workers``, or on a
Ray cluster (``--ray auto`` or ``--ray HOST:PORT``: each game a task of one CPU; ``children`` and
``relabel`` take it too).
``children`` adds every move's result from the solved positions, solved (the siblings a search
compares). ``fit`` fits the weights per stage by regularised least squares and writes a net file
(``engine:net=...`` plays with it). ``relabel`` copies a data directory with the positions
labelled by their game's result relabelled by a deeper search with a fitted net (the recipe's
bootstrapping: fit, relabel deeper, refit); run again, it goes on. ``iterate`` is one round of
it: ``relabel`` with a net, then ``fit`` on the relabelled data, starting from that net, into
``OUT/net.npz`` (stopped by ``--minutes`` before the fit, the same command goes on).
``measure`` compares nets' errors on labelled positions, or with ``--moves`` the moves their
engines choose in solved positions. ``td`` trains by TD(lambda) self-play instead
(boardzoo.learned.td), saving ``OUT/net.npz`` after every chunk of games (``--resume`` goes
on). To ship a net, copy it to ``boardzoo/learned/models/`` under the game's name
(``reversi-8x8.npz``, ``connect_four.npz``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardzoo.arena.openings import load_openings
from boardzoo.errors import InvalidValueError, MissingDependencyError
from boardzoo.fit.children import ChildrenSettings, add_children
from boardzoo.fit.data import GenerateSettings, generate
from boardzoo.fit.weights import FitSettings, fit_and_save
from boardzoo.games.catalog import game_names


def _bounded(kind: type, low: float, strict: bool) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` above ``low`` (``strict``) or from it."""
    name = "an integer" if kind is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {name}: {text!r}") from None
        if not (value > low if strict else value >= low):
            raise argparse.ArgumentTypeError(f"must be {'>' if strict else '>='} {low:g}, "
                                             f"got {text}")  # fmt: skip
        return value

    return parse


_positive_float = _bounded(float, 0, strict=True)
_positive_int = _bounded(int, 1, strict=False)
_nonnegative_float = _bounded(float, 0, strict=False)


def _add_workers(step: argparse.ArgumentParser, doing: str) -> None:
    step.add_argument("--workers", type=_positive_int, default=1, help=f"processes {doing}")
    step.add_argument("--ray", default=None, metavar="auto|HOST:PORT",
                      help="the Ray cluster to run on instead (pip install boardzoo[ray]): a "
                      "task of one CPU a game")  # fmt: skip


def _add_fit_options(step: argparse.ArgumentParser) -> None:
    step.add_argument("--stages", type=_positive_int, default=None, help="weight sets")
    step.add_argument("--l2", type=_nonnegative_float, nargs="+", default=None,
                      help="L2 strength(s); several: per stage, the best held out")  # fmt: skip
    step.add_argument("--scale", type=_positive_float, default=None,
                      help="discs per unit of the sum (default: measured)")  # fmt: skip
    step.add_argument("--holdout", type=_nonnegative_float, default=None,
                      help="fraction of games kept out to measure SCALE")  # fmt: skip
    step.add_argument("--seed", type=int, default=0, help="seed of the held-out games")
    step.add_argument("--overlap", type=int, default=None,
                      help="a stage also fits this many piece counts either side")  # fmt: skip
    step.add_argument("--iterations", type=_positive_int, default=None, help="CG steps a stage")
    step.add_argument("--fit-stages", type=int, nargs="+", default=None,
                      help="stages to fit; the others keep the prior's (default: all)")  # fmt: skip


def _add_relabel_options(step: argparse.ArgumentParser) -> None:
    step.add_argument("--depth", type=_positive_int, default=6, help="the search's plies")
    _add_workers(step, "searching")
    step.add_argument("--minutes", type=_positive_float, help="stop after this long")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join((__doc__ or "").splitlines()[1:]),
    )
    steps = parser.add_subparsers(dest="step", required=True, metavar="STEP")

    gen = steps.add_parser("generate", help="play and label games into a data directory")
    gen.add_argument("--game", default="reversi", choices=game_names())
    gen.add_argument("--board-size", type=_positive_int, default=None, help="Reversi's board")
    gen.add_argument("--out", required=True, help="data directory (chunks, progress.json)")
    _add_workers(gen, "playing")
    gen.add_argument("--minutes", type=_positive_float, help="stop after this long")
    gen.add_argument("--games", type=_positive_int, help="stop at this many games in all")
    gen.add_argument("--resume", action="store_true", help="go on with OUT's own settings")
    defaults = GenerateSettings()
    gen.add_argument("--seed", type=int, default=defaults.seed)
    gen.add_argument("--openings", default=defaults.openings,
                     help="'balanced' (the game's shipped suite) or an openings file")  # fmt: skip
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
    _add_workers(kids, "solving")
    kids_defaults = ChildrenSettings()
    kids.add_argument("--min-empties", type=int, default=kids_defaults.min_empties,
                      help="fewest empty squares of a parent")  # fmt: skip
    kids.add_argument("--max-empties", type=int, default=kids_defaults.max_empties,
                      help="most empty squares of a parent")  # fmt: skip

    fit = steps.add_parser("fit", help="fit a net on data directories")
    fit.add_argument("--data", required=True, nargs="+", help="data directories")
    fit.add_argument("--out", required=True, help="the net file to write (.npz)")
    fit.add_argument("--prior", default=None,
                     help="net file to pull toward ('shipped': the game's; 'none')")  # fmt: skip
    _add_fit_options(fit)

    again = steps.add_parser("relabel", help="relabel the midgame by a deeper search")
    again.add_argument("--data", required=True, help="the data directory to relabel")
    again.add_argument("--net", required=True, help="a fitted net file the search evaluates with")
    again.add_argument("--out", required=True, help="the relabelled data directory")
    _add_relabel_options(again)

    round_ = steps.add_parser("iterate", help="relabel by a deeper search, then refit: a round")
    round_.add_argument("--data", required=True, help="the data directory to relabel")
    round_.add_argument("--net", required=True,
                        help="the current net: it relabels, the fit starts from it")  # fmt: skip
    round_.add_argument("--out", required=True,
                        help="the relabelled data directory; the new net: OUT/net.npz")  # fmt: skip
    _add_relabel_options(round_)
    _add_fit_options(round_)

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
    td = steps.add_parser("td", help="train by TD(lambda) self-play instead")
    td.add_argument("--game", required=True, choices=game_names())
    td.add_argument("--board-size", type=_positive_int, default=None, help="Reversi's board")
    td.add_argument("--out", required=True, help="directory of the checkpoint net.npz")
    td.add_argument("--minutes", type=_positive_float, default=None, help="stop after this long")
    td.add_argument("--games", type=_positive_int, default=None, help="stop after this many")
    td.add_argument("--resume", action="store_true", help="go on from OUT/net.npz")
    td.add_argument("--seed", type=int, default=0)
    td.add_argument("--lr", type=float, default=0.1, help="step size (divided by instances)")
    td.add_argument("--lambda", dest="lam", type=float, default=0.5, help="TD(lambda)'s lambda")
    td.add_argument("--epsilon", type=float, default=0.1, help="random-move probability")
    td.add_argument("--chunk-games", type=_positive_int, default=2000, help="games between saves")
    td.add_argument("--stages", type=_positive_int, default=None, help="weight sets")
    td.add_argument("--eval-every", type=float, default=120.0, help="seconds (0: never)")
    td.add_argument("--eval-games", type=_positive_int, default=100)
    return parser


def _options(board_size: int | None) -> dict[str, int]:
    return {} if board_size is None else {"board_size": board_size}


def _train_td(args: argparse.Namespace, command: str, log: Callable[[str], None]) -> None:
    from boardzoo.games.catalog import make_game
    from boardzoo.learned.td import TDTrainSettings, train

    if args.minutes is None and args.games is None:
        raise InvalidValueError("give --minutes, --games or both")
    game = make_game(args.game, **_options(args.board_size))
    config = TDTrainSettings(seed=args.seed, lr=args.lr, lam=args.lam, epsilon=args.epsilon,
                             chunk_games=args.chunk_games, stages=args.stages)  # fmt: skip
    train(game, args.out, config=config, games=args.games, minutes=args.minutes,
          resume=args.resume, command=command, eval_every=args.eval_every,
          eval_games=args.eval_games, log=log)  # fmt: skip


def _fit_settings(args: argparse.Namespace, prior: str | None) -> FitSettings:
    """The fit's settings from the command line (checked now, before any work)."""
    return FitSettings.with_defaults(
        stages=args.stages,
        l2=None if args.l2 is None else tuple(args.l2),
        prior=prior,
        scale=args.scale,
        holdout=args.holdout,
        seed=args.seed,
        iterations=args.iterations,
        overlap=args.overlap,
        fit_stages=None if args.fit_stages is None else tuple(args.fit_stages),
    )


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    command = shlex.join(["python", "scripts/train_eval.py", *(argv or sys.argv[1:])])

    def log(line: str) -> None:
        print(line, flush=True)

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
                    game=args.game,
                    options=_options(args.board_size),
                )
                load_openings(config.openings, config.make_game())  # a bad file: said now
            generate(args.out, config, games=args.games, minutes=args.minutes,
                     resume=args.resume, workers=args.workers, ray=args.ray, command=command,
                     log=log)  # fmt: skip
        elif args.step == "td":
            _train_td(args, command, log)
        elif args.step in ("relabel", "iterate"):
            from boardzoo.fit.data import read_progress
            from boardzoo.fit.relabel import RelabelSettings, relabel

            fit_config = _fit_settings(args, args.net) if args.step == "iterate" else None
            progress = relabel(args.data, args.out, RelabelSettings(net=args.net, depth=args.depth),
                               workers=args.workers, ray=args.ray, minutes=args.minutes,
                               command=command, log=log)  # fmt: skip
            if args.step == "iterate":
                unrelabelled = len(read_progress(args.data)["chunks"]) - len(progress["chunks"])
                if unrelabelled:
                    log(f"{unrelabelled} chunks still to relabel: run the same command again "
                        "to go on (the fit follows)")  # fmt: skip
                else:
                    fit_and_save([args.out], Path(args.out) / "net.npz", fit_config,
                                 command=command, log=log)  # fmt: skip
        elif args.step == "children":
            children_config = ChildrenSettings(args.min_empties, args.max_empties)
            deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes
            for directory in args.data:
                left = None if deadline is None else (deadline - time.monotonic()) / 60
                if left is not None and left <= 0:
                    break
                add_children(directory, children_config, minutes=left, workers=args.workers,
                             ray=args.ray, command=command, log=log)  # fmt: skip
        elif args.step == "fit":
            fit_and_save(args.data, args.out, _fit_settings(args, args.prior), command=command,
                         log=log)  # fmt: skip
        elif args.moves is not None:
            from boardzoo.fit.measure import measure_moves

            measure_moves(args.data, args.net, args.min_empties, args.max_empties,
                          count=args.moves, log=log)  # fmt: skip
        else:
            from boardzoo.fit.measure import measure_nets

            measure_nets(args.data, args.net, args.min_empties, args.max_empties,
                         exact_only=not args.all_labels, scale=args.scale, log=log)  # fmt: skip
    except (ValueError, MissingDependencyError) as error:
        parser.error(f"{args.step}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
