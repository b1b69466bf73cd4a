"""The flags ``arena`` and ``tournament`` share (games, workers, seed, time limit, resuming, the
backend, openings; ``--sprt`` for ``arena``), and their reading into the keyword arguments of
:func:`~boardzoo.arena.play_match` and :func:`~boardzoo.arena.tournament`."""

from __future__ import annotations

import argparse
from typing import Any

from boardzoo.arena.openings import load_openings
from boardzoo.arena.sprt import parse_sprt
from boardzoo.cli.common import add_game_options, check_backend, check_specs, game_options
from boardzoo.cli.errors import UserError
from boardzoo.games.catalog import make_game


def add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="games (per pair in a tournament)")
    parser.add_argument(
        "--workers", type=int, default=1, help="games played in parallel (two processes each)"
    )
    parser.add_argument("--seed", type=int, default=0, help="match seed: same seed, same games")
    add_game_options(parser)
    parser.add_argument(
        "--time-limit", type=float, default=60.0, help="seconds per move; a slower move loses"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run: play only the games missing from --out",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (default: shown on a terminal)"
    )
    parser.add_argument(
        "--no-isolate",
        action="store_true",
        help="play the agents inside the game's worker instead of a process each: faster to "
        "start (no process per agent and game), but an agent that hangs or crashes stops the "
        "run (default: a process each, where a hang or crash loses one game)",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where games are played: processes on this machine, or Ray actors on a cluster "
        "(pip install boardzoo[ray]) (default: local)",
    )
    parser.add_argument(
        "--address",
        metavar="auto|HOST:PORT",
        help="the Ray cluster to join, with --backend ray (default: start one on this machine)",
    )
    parser.add_argument(
        "--openings",
        metavar="FILE|balanced",
        help="start the games from a suite of openings: a file with one per line in the game's "
        "move names (XOT style: f5d6c4d3, or separated by spaces or commas; # comments), or "
        "'balanced', the suite shipped for the game; games 2i and 2i+1 play opening i with "
        "colours swapped (default: none, the start position)",
    )
    parser.add_argument(
        "--opening-plies",
        type=int,
        metavar="N",
        help="start each pair of games from N random plies instead, colours swapped within the "
        "pair (default: none; 4 with --sprt)",
    )


def add_sprt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sprt",
        metavar="elo0=E0,elo1=E1[,alpha=A,beta=B]",
        help="stop as soon as a sequential probability ratio test on game pairs decides whether "
        "the first agent is elo1 Elo stronger (H1) or at most elo0 (H0); alpha and beta default "
        "to 0.05; --games is the cap (default: no test, all --games are played)",
    )


def match_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The options ``arena`` and ``tournament`` share, checked before any game starts."""
    for name in ("games", "workers", "time_limit"):
        if getattr(args, name) <= 0:
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} must be positive, got {getattr(args, name)}")
    if args.resume and args.out is None:
        raise UserError("--resume continues a run: give its --out too")
    check_backend(args)
    if args.opening_plies is not None and args.opening_plies < 0:
        raise UserError(f"--opening-plies must be 0 or more, got {args.opening_plies}")
    if args.openings is not None and args.opening_plies is not None:
        raise UserError(
            "--openings and --opening-plies both choose how games start (a suite of openings, "
            "or random plies): give one of them"
        )
    options = game_options(args)
    sprt = None
    if getattr(args, "sprt", None) is not None:
        try:
            sprt = parse_sprt(args.sprt)
        except ValueError as error:  # "sprt: ..." names the flag
            raise UserError(f"--{error}") from None
    game = make_game(args.game, **options)
    openings = None if args.openings is None else load_openings(args.openings, game)
    check_specs(args.agents, game)
    settings: dict[str, Any] = {
        "seed": args.seed,
        "options": options,
        "time_limit": args.time_limit,
        "workers": args.workers,
        "backend": args.backend,
        "address": args.address,
        "resume": args.resume,
        "progress": not args.no_progress,
        "isolate": not args.no_isolate,
        "openings": openings,
        "opening_plies": args.opening_plies,
        "pair_openings": args.opening_plies is not None,
    }
    if sprt is not None:
        settings["sprt"] = sprt
    return settings
