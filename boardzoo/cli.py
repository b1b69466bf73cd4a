"""The ``boardzoo`` command line.

    boardzoo play reversi --black human --white mcts:time_limit=1      # pygame window
    boardzoo play tictactoe --x mcts --o human --ui text               # terminal
    boardzoo arena reversi mcts:simulations=1000 greedy --games 200 --workers 2 --out runs/m1.jsonl
    boardzoo tournament reversi random greedy alphabeta:depth=4 --games 50 --out runs/t1
    boardzoo replay runs/m1.jsonl --game 3 [--gif game3.gif]
    boardzoo bench
    boardzoo demo                                                      # a random game as text

A mistake in the arguments (an unknown game or agent, a bad value, an unreadable file) prints one
line naming it and exits with status 2; it never shows a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from boardzoo.games.catalog import GAME_NAMES

# Which flags name the two players of each game, in move order.
PLAYER_FLAGS = {"reversi": ("black", "white"), "tictactoe": ("x", "o")}


class UserError(Exception):
    """A mistake of the user's: reported in one line, exit status 2."""


def _add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="games (per pair in a tournament)")
    parser.add_argument("--workers", type=int, default=1, help="games played in parallel")
    parser.add_argument("--seed", type=int, default=0, help="match seed: same seed, same games")
    parser.add_argument("--size", type=int, default=8, choices=[4, 6, 8], help="Reversi board")
    parser.add_argument(
        "--time-limit", type=float, default=60.0, help="seconds per move; slower loses (default 60)"
    )
    parser.add_argument("--resume", action="store_true", help="continue an interrupted run")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardzoo", description="Board games, MCTS agents and matches between them."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser("play", help="play a game against the AI (or watch two agents)")
    play.add_argument("game", choices=GAME_NAMES)
    for flag in ("black", "white", "x", "o"):
        play.add_argument(f"--{flag}", metavar="SPEC", help=f"{flag} player: 'human' or a spec")
    play.add_argument("--ui", choices=["window", "text"], default="window")
    play.add_argument("--size", type=int, default=8, choices=[4, 6, 8], help="Reversi board")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--analysis", action="store_true", help="show the AI's analysis (window)")

    arena = commands.add_parser("arena", help="a match between two agents")
    arena.add_argument("game", choices=GAME_NAMES)
    arena.add_argument(
        "agents", nargs=2, metavar="SPEC", help="agent specs, e.g. mcts:simulations=100"
    )
    arena.add_argument("--out", required=True, help="JSONL file of game records")
    _add_match_options(arena)

    tournament = commands.add_parser("tournament", help="a round robin with Elo ratings")
    tournament.add_argument("game", choices=GAME_NAMES)
    tournament.add_argument("agents", nargs="+", metavar="SPEC")
    tournament.add_argument("--out", required=True, help="folder for records, tables and plot")
    _add_match_options(tournament)

    replay = commands.add_parser("replay", help="replay a recorded game, or write it as a GIF")
    replay.add_argument("records", help="JSONL file written by arena or tournament")
    replay.add_argument(
        "--game", type=int, default=0, help="which game: its line in the file, 0 for the first"
    )
    replay.add_argument("--gif", help="write an animated GIF here instead of showing the game")
    replay.add_argument("--ui", choices=["window", "text"], default="window")
    replay.add_argument("--delay", type=float, default=0.8, help="seconds per move")

    bench = commands.add_parser("bench", help="print the speed figures")
    bench.add_argument("--quick", action="store_true", help="smaller counts")

    demo = commands.add_parser("demo", help="a game between random players, printed as text")
    demo.add_argument("--game", choices=GAME_NAMES, default="reversi")
    demo.add_argument("--size", type=int, default=8, choices=[4, 6, 8])
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="print the final position only")
    return parser


def _players(args: argparse.Namespace) -> tuple[str, str]:
    first_flag, second_flag = PLAYER_FLAGS[args.game]
    other = [f for f in ("black", "white", "x", "o") if f not in PLAYER_FLAGS[args.game]]
    for flag in other:
        if getattr(args, flag) is not None:
            raise UserError(
                f"--{flag} is not a {args.game} player; use --{first_flag}/--{second_flag}"
            )
    first = getattr(args, first_flag) or "human"
    second = getattr(args, second_flag) or "mcts:time_limit=1"
    return first, second


def _check_specs(specs: Sequence[str]) -> None:
    """Parse every agent spec up front, so that a typo fails before any game starts."""
    from boardzoo.agents.registry import parse_spec

    for spec in specs:
        if spec != "human":
            parse_spec(spec)


def _match_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options ``arena`` and ``tournament`` share, checked before any game starts."""
    _check_specs(args.agents)
    for name in ("games", "workers", "time_limit"):
        if getattr(args, name) <= 0:
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} must be positive, got {getattr(args, name)}")
    return {
        "seed": args.seed,
        "board_size": args.size,
        "time_limit": args.time_limit,
        "workers": args.workers,
        "resume": args.resume,
        "progress": not args.no_progress,
    }


def cmd_play(args: argparse.Namespace) -> int:
    players = _players(args)
    _check_specs(players)
    if args.ui == "text":
        from boardzoo.ui import run_text_ui

        run_text_ui(args.game, players, board_size=args.size, seed=args.seed)
    else:
        from boardzoo.ui import run_gui

        run_gui(args.game, players, board_size=args.size, seed=args.seed, analysis=args.analysis)
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from boardzoo.arena import play_match, render_match

    result = play_match(
        args.game, tuple(args.agents), games=args.games, out=args.out, **_match_options(args)
    )
    print(render_match(result))
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from boardzoo.arena import render_tournament, tournament

    if len(args.agents) < 2:
        raise UserError("a tournament needs at least two agents")
    result = tournament(
        args.game, args.agents, games_per_pair=args.games, out_dir=args.out,
        **_match_options(args),
    )  # fmt: skip
    print(render_tournament(result))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from boardzoo.arena import read_records
    from boardzoo.ui import replay_game, write_gif

    records = read_records(args.records)
    if not 0 <= args.game < len(records):
        raise UserError(
            f"--game {args.game} is not in {args.records}: it holds games 0..{len(records) - 1}"
        )
    record = records[args.game]
    if args.gif:
        write_gif(record, args.gif)
        print(f"wrote {args.gif}")
    else:
        replay_game(record, ui=args.ui, delay=args.delay)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from boardzoo.bench import run_benchmarks

    run_benchmarks(quick=args.quick)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from boardzoo.demo import play_random_game

    play_random_game(args.game, board_size=args.size, seed=args.seed, quiet=args.quiet)
    return 0


COMMANDS = {
    "play": cmd_play,
    "arena": cmd_arena,
    "tournament": cmd_tournament,
    "replay": cmd_replay,
    "bench": cmd_bench,
    "demo": cmd_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("boardzoo: interrupted", file=sys.stderr)
        return 130
    except (UserError, ValueError, OSError) as error:
        # ValueError covers AgentSpecError, RecordError and IllegalMoveError; OSError covers
        # missing and unreadable files. BOARDZOO_DEBUG=1 shows the traceback instead.
        if os.environ.get("BOARDZOO_DEBUG"):
            raise
        print(f"boardzoo {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
