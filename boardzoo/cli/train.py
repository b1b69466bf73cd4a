"""``boardzoo train``: train an AlphaZero network by self-play, in a run folder that can be
resumed. The flags of the training's settings are made from the fields of
:class:`TrainSettings`: name, type, choices and the default shown."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardzoo.az.train import QUICK, TrainSettings, holds_run, settings_from, train
from boardzoo.cli.common import (
    RUNS_DIR,
    add_command,
    add_game,
    add_game_options,
    check_backend,
    check_specs,
    game_options,
    new_path,
    options_given,
)
from boardzoo.cli.dataclass_flags import add_field_flag
from boardzoo.cli.errors import UserError
from boardzoo.games.catalog import make_game
from boardzoo.settings_history import with_settings_before

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands

# The settings given as they are, each a flag named after its field (``games_per_iteration``:
# ``--games-per-iteration``) with this help; the default shown is the dataclass's unless the
# help says its own. Not given (``None``), a setting comes from ``--quick``, the resumed run or
# the dataclass, in that order.
_SETTINGS = (
    ("search", "gumbel (learns with few simulations) or puct"),
    ("simulations", "simulations per self-play move"),
    ("games_per_iteration", "self-play games per iteration"),
    ("parallel_games", "self-play games searched together (the network's batch)"),
    (
        "opening_plies",
        "the most random plies that start a self-play game (each draws 0..N; not recorded "
        "unless --search-opening)",
    ),
    (
        "search_opening",
        "search and record the random opening plies' positions too (the move played stays "
        "random; value target: the search's value)",
    ),
    ("channels", "filters of the network's residual tower"),
    ("blocks", "residual blocks of the network"),
    ("batch_size", "positions per learner step"),
    ("steps_per_iteration", "learner steps per iteration"),
    ("lr", "learning rate (the first, with --lr-schedule cosine)"),
    ("lr_schedule", "constant, or cosine: from --lr to --lr-final over the --iterations budget"),
    ("lr_final", "the cosine's last learning rate (default: --lr / 10)"),
    (
        "solve_empties",
        "self-play's search solves the leaves with at most N empty squares exactly (games with "
        "a solver)",
    ),
    (
        "full_search_share",
        "playout cap randomisation: the share of moves searched in full and recorded",
    ),
    ("fast_simulations", "simulations of the other moves, with --full-search-share below 1"),
    ("value_mix", "weight of the search's value against the game's result in the value target"),
    (
        "init_model",
        "start a new run from this model's weights (same --channels/--blocks), or 'shipped' "
        "(default: random weights)",
    ),
    ("buffer_size", "positions the replay buffer keeps"),
    ("eval_games", "games against each panel agent after an iteration (0: none)"),
    ("eval_every", "evaluate after every N-th iteration"),
    (
        "record_forced",
        "train on the positions with a single legal move too (a pass, the last column); "
        "--no-record-forced as runs before this option (default: on for a new run, a resumed "
        "run keeps its own)",
    ),
)


def _add_settings(parser: argparse.ArgumentParser) -> None:
    """The flags of :data:`_SETTINGS`, from the fields of :class:`TrainSettings`; a boolean
    field gets ``--name``/``--no-name``."""
    hints = typing.get_type_hints(TrainSettings)
    defaults = {field.name: field.default for field in dataclasses.fields(TrainSettings)}
    for name, text in _SETTINGS:
        if "default" not in text:
            text += f" (default: {defaults[name]})"
        add_field_flag(parser, name, hints[name], None, text)


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "train", "train an AlphaZero network by self-play (resumable)")
    add_game(parser)
    add_game_options(parser)
    parser.add_argument(
        "--out",
        help=f"the run folder (default: a new folder under {RUNS_DIR}/, named after the game)",
    )
    parser.add_argument(
        "--minutes", type=float, help="training time in all, resumes included (default: none)"
    )
    parser.add_argument(
        "--iterations", type=int, help="iterations in all, resumes included (default: none)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out from its last iteration (no run there yet: start one)",
    )
    parser.add_argument(
        "--device", default="auto", help="auto (CUDA when present, else every CPU core), cpu, cuda"
    )
    parser.add_argument("--seed", type=int, default=0, help="the run's seed: same seed, same run")
    parser.add_argument(
        "--quick", action="store_true", help="a tiny run (seconds) that shows every part working"
    )
    _add_settings(parser)
    parser.add_argument(
        "--panel",
        nargs="+",
        metavar="SPEC",
        help="agent specs to evaluate against (default: random greedy alphabeta:depth=2 "
        "alphabeta:depth=4 mcts:simulations=<the training's simulations>)",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="a line per iteration instead of a progress bar"
    )
    parser.add_argument(
        "--self-play-workers",
        type=int,
        default=1,
        metavar="K",
        help="workers playing each iteration's self-play games (default: 1, in the learner's "
        "process)",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where the self-play workers run: processes here, or Ray actors on a cluster (pip "
        "install boardzoo[ray]) (default: local)",
    )
    parser.add_argument(
        "--address",
        metavar="auto|HOST:PORT",
        help="the Ray cluster to join, with --backend ray (default: start one here)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    options = game_options(args)
    check_backend(args)
    if args.self_play_workers < 1:
        raise UserError(f"--self-play-workers must be positive, got {args.self_play_workers}")
    if args.panel:
        check_specs(args.panel, make_game(args.game, **options))
    out = args.out
    if out is None:
        if args.resume:
            raise UserError("--resume continues a run: give its --out too")
        out = new_path(f"az-{args.game}", "")
    if args.resume and not holds_run(Path(out)):
        # One command starts a run and continues it: run again, it resumes.
        print(f"boardzoo train: no run in {out} yet: --resume starts one", file=sys.stderr)
        args.resume = False
    given: dict[str, Any] = {
        "game": args.game, "options": options, "out": out, "minutes": args.minutes,
        "iterations": args.iterations, "resume": args.resume, "device": args.device,
        "seed": args.seed, "panel": tuple(args.panel) if args.panel else None,
        "progress": not args.no_progress, "self_play_workers": args.self_play_workers,
        "backend": args.backend, "address": args.address,
    }  # fmt: skip
    given.update((name, getattr(args, name)) for name, _ in _SETTINGS)
    defaults = dict(QUICK) if args.quick else {}
    if args.resume:
        # Settings not given again come from the run itself, so `--resume` alone continues it.
        saved = _saved_settings(Path(out))
        defaults.update(saved)
        if not options_given(args) and "options" in saved:
            given["options"] = saved["options"]
    settings = settings_from(defaults, **given)
    print(f"boardzoo train: the run goes to {out}/", file=sys.stderr)
    summary = train(settings)
    print(
        f"{summary.iterations} iterations, {summary.games} self-play games, "
        f"{summary.positions} positions, {summary.seconds / 60:.1f} min; model: {out}/model.pt"
    )
    return 0


def _saved_settings(out: Path) -> dict[str, Any]:
    """The settings a run in ``out`` was started with (empty if it has none readable)."""
    try:
        saved = json.loads((out / "settings.json").read_text())
    except (OSError, ValueError):
        return {}  # train() says what is missing
    if not isinstance(saved, dict):
        return {}
    saved = with_settings_before(TrainSettings, saved)
    # The budgets stay: `--resume` alone finishes an interrupted run; give them to train further.
    for key in ("out", "resume", "progress", "device"):
        saved.pop(key, None)
    if isinstance(saved.get("panel"), list):
        saved["panel"] = tuple(saved["panel"])
    return saved
