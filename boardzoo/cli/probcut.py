"""``boardzoo probcut``: calibrate multi-ProbCut for a game and an evaluation.

It samples positions, searches them to every depth with the engine's search
(:mod:`boardzoo.gametree.probcut_calibration`) and writes (or extends) the calibration file
(:mod:`boardzoo.gametree.probcut`'s format), saved after each depth (atomically: written beside
it, then renamed); a run that is cut off keeps every depth it finished, and the same command
resumes it::

    boardzoo probcut reversi --option board_size=8 --evaluation learned \\
        --positions 300 --max-depth 10 --seed 0
    boardzoo probcut reversi --size 4 --evaluation hand --positions 20 --max-depth 4 \\
        --out /tmp/reversi-4x4.probcut.json
    boardzoo probcut reversi --size 8 --net runs/net.npz    # writes runs/net.probcut.json

A net file's calibration goes beside it (``NET.probcut.json``), where ``engine:net=NET.npz``
finds it. A calibration of a learned evaluation records the SHA-256 of the net it measured.

A mistake (bad arguments, a malformed file, an unreadable openings file) is reported in one line
with exit status 2, no traceback.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardzoo.cli.common import add_command, add_game, add_game_options, game_options
from boardzoo.cli.errors import UserError
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game
from boardzoo.gametree.probcut import (
    COMMAND,
    EVALUATIONS,
    MAX_DEPTH,
    MIN_DEPTH,
    MIN_PAIRS,
    Calibration,
    calibrate_command,
    load_probcut_file,
    net_sha256,
    new_probcut_data,
    probcut_file,
    save_probcut_file,
)
from boardzoo.gametree.probcut_calibration import calibrate, positions_digest, sample_positions
from boardzoo.learned.ntuple import (
    MODELS_DIR,
    check_net_fits,
    load_net,
    load_net_file,
    net_file_name,
)

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands

__all__ = ["add_parser", "parse_moves", "read_openings", "run"]


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(
        commands, "probcut", "calibrate multi-ProbCut for a game and an evaluation (resumable)"
    )
    parser.description = (
        "Calibrate multi-ProbCut for a game and an evaluation: search sample positions to each "
        "depth, fit the deep scores on the shallow ones, and write the fits to "
        "models/<game>.probcut.json, or --out (a cut-off run resumes where it stopped)."
    )
    add_game(parser)
    add_game_options(parser)
    parser.add_argument(
        "--evaluation",
        choices=EVALUATIONS,
        default=None,
        help="the engine's evaluation to calibrate (learned with --net)",
    )
    parser.add_argument(
        "--net",
        type=Path,
        default=None,
        metavar="FILE",
        help="calibrate this n-tuple net file (.npz) as the learned evaluation; the "
        "calibration goes beside it, FILE with .probcut.json for .npz",
    )
    parser.add_argument("--positions", type=int, default=300, help="positions to search")
    parser.add_argument("--max-depth", type=int, default=10, help="the deepest search")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample positions")
    parser.add_argument(
        "--openings",
        type=Path,
        default=None,
        metavar="FILE",
        help="start the sample games from openings of FILE, one a line, XOT style (f5d6c4d3...)",
    )
    parser.add_argument(
        "--random-plies",
        type=int,
        default=None,
        metavar="N",
        help="random moves after the opening (default: the game's opening "
        "plies, 0 with --openings)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="FILE",
        help="the file to write (default: the shipped one in models/, or beside --net)",
    )
    parser.add_argument(
        "--restart",
        action="store_true",
        help="measure again from depth 1 (default: resume a matching entry)",
    )
    return parser


def _entry(
    args: argparse.Namespace, calibration: Calibration, digest: str, seconds: float
) -> dict[str, Any]:
    fits = [
        {
            "depth": f.depth,
            "shallow": f.shallow,
            "a": round(f.a, 6),
            "b": round(f.b, 3),
            "sigma": round(f.sigma, 3),
            "pairs": f.pairs,
            "stage_sigmas": [None if s is None else round(s, 3) for s in f.stage_sigmas],
        }
        for f in calibration.fits
    ]
    return {
        "command": args.command_line,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "positions": args.positions,
        "seed": args.seed,
        "max_depth": args.max_depth,
        "openings": args.openings_label,
        "random_plies": args.random_plies,
        "positions_sha256": digest,
        **({} if args.net_sha256 is None else {"net_sha256": args.net_sha256}),
        "seconds": round(seconds, 1),
        "complete": len(calibration.scores) >= args.max_depth,
        "depths": fits,
        "discs": calibration.discs,
        "scores": calibration.scores,
    }


def _check_args(args: argparse.Namespace) -> None:
    if args.net is not None and args.evaluation not in (None, "learned"):
        raise UserError(f"--net is a learned evaluation: --evaluation {args.evaluation} with it")
    if args.net is None and args.evaluation is None:
        raise UserError(f"give --evaluation ({' or '.join(EVALUATIONS)}) or --net FILE")
    if args.positions < MIN_PAIRS:
        raise UserError(f"--positions {args.positions} is too few: at least {MIN_PAIRS}")
    if not MIN_DEPTH <= args.max_depth <= MAX_DEPTH:
        raise UserError(f"--max-depth {args.max_depth}: give {MIN_DEPTH}..{MAX_DEPTH}")
    if args.seed < 0:
        raise UserError(f"--seed {args.seed}: give a number >= 0")
    if args.random_plies is not None and args.random_plies < 0:
        raise UserError(f"--random-plies {args.random_plies}: give a number >= 0")


def _command_line(args: argparse.Namespace, game: Game) -> str:
    """The command that measures the entry again, as the entry records it (without ``--out``
    and ``--restart``, which change where it goes, not what it measures)."""
    words = shlex.split(calibrate_command(game, args.evaluation, args.net))
    words += ["--positions", str(args.positions), "--max-depth", str(args.max_depth)]
    words += ["--seed", str(args.seed)]
    if args.openings is not None:
        words += ["--openings", str(args.openings)]
    if args.random_plies is not None:
        words += ["--random-plies", str(args.random_plies)]
    return shlex.join(words)


def parse_moves(game: Game, text: str) -> list[int]:
    """The actions of a move list written with the game's move names, concatenated
    (``f5d6c4d3``) or separated by spaces or commas; a ``ValueError`` for anything else."""
    names = sorted(((n.lower(), a) for a, n in enumerate(game.action_names)), reverse=True)
    rest, actions = "".join(text.replace(",", " ").split()).lower(), []
    while rest:
        found = [(name, action) for name, action in names if rest.startswith(name)]
        if not found:
            raise InvalidValueError(f"cannot read a move at {rest[:8]!r}")
        name, action = max(found, key=lambda pair: len(pair[0]))
        actions.append(action)
        rest = rest[len(name) :]
    return actions


def read_openings(game: Game, path: Path) -> tuple[list[list[int]], str]:
    """The openings of ``path`` (one move list a line; blank lines and ``#`` comments skipped),
    each checked legal, and a label naming the file and its SHA-256."""
    raw = path.read_bytes()
    openings = []
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            moves, state = parse_moves(game, line), game.initial_state()
            for action in moves:
                state = state.apply(action)
        except ValueError as error:
            raise InvalidFileError(f"{path}, line {number}: {error}") from None
        if state.is_terminal():
            raise InvalidFileError(f"{path}, line {number}: the opening ends the game")
        openings.append(moves)
    if not openings:
        raise InvalidFileError(f"{path}: no openings in it")
    return openings, f"{path.name} sha256 {hashlib.sha256(raw).hexdigest()}"


def _resumed(
    old: dict[str, Any] | None, args: argparse.Namespace, digest: str
) -> tuple[list[list[int]], float]:
    """The scores and seconds of a stored entry that the run continues (none if it differs)."""
    if old is None or args.restart:
        return [], 0.0
    keys = ("positions", "seed", "random_plies", "net_sha256")
    same = all(old.get(k) == getattr(args, k) for k in keys)
    if not same or old["openings"] != args.openings_label or old["positions_sha256"] != digest:
        print("the stored entry was made from other positions: starting over", file=sys.stderr)
        return [], 0.0
    scores: list[list[int]] = old["scores"][: args.max_depth]
    print(f"resuming: depths 1..{len(scores)} are measured", file=sys.stderr)
    return scores, float(old["seconds"])


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    game = make_game(args.game, **game_options(args))
    net = None
    args.net_sha256 = None
    if args.net is not None:
        args.evaluation = "learned"
        net = tuple(check_net_fits(load_net_file(args.net), game, str(args.net)))
        args.net_sha256 = net_sha256(args.net)
    elif args.evaluation == "learned":
        load_net(game)  # a ValueError listing the games with a net
        args.net_sha256 = net_sha256(MODELS_DIR / net_file_name(game))  # the net measured
    args.command_line = _command_line(args, game)
    openings: Sequence[Sequence[int]] = ()
    args.openings_label = None
    if args.openings is not None:
        openings, args.openings_label = read_openings(game, args.openings)
    if args.random_plies is None:
        args.random_plies = 0 if openings else game.opening_plies
    path: Path = args.out or probcut_file(game, args.net)
    data = new_probcut_data(game)
    if path.exists():
        data = load_probcut_file(path)
        if data["game"] != game.name or data["options"] != dict(game.options):
            raise InvalidFileError(
                f"{path} is for {data['game']} {data['options']}, not {game.label}"
            )

    start = time.perf_counter()
    positions = sample_positions(game, args.positions, args.seed, openings, args.random_plies)
    digest = positions_digest(positions)
    print(f"{len(positions)} positions in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    scores, seconds = _resumed(data["evaluations"].get(args.evaluation), args, digest)
    begun = start - seconds

    def save(calibration: Calibration) -> None:
        depth = len(calibration.scores)
        data["evaluations"][args.evaluation] = _entry(
            args, calibration, digest, time.perf_counter() - begun
        )
        save_probcut_file(path, data)
        fit = calibration.fits[-1] if calibration.fits else None
        shown = (
            ""
            if fit is None or fit.depth != depth
            else (f": sigma {fit.sigma:.1f} (a {fit.a:.3f}, b {fit.b:.1f}, {fit.pairs} pairs)")
        )
        print(f"depth {depth} done at {time.perf_counter() - begun:.1f} s{shown}", file=sys.stderr)

    try:
        calibrate(
            game,
            args.evaluation,
            positions,
            args.max_depth,
            seed=args.seed,
            scores=scores,
            on_depth=save,
            net=net,
        )
    except KeyboardInterrupt:
        print(f"{COMMAND}: interrupted (the depths done are saved in {path})", file=sys.stderr)
        return 130
    print(f"wrote {path}", file=sys.stderr)
    return 0
