"""The ``boardzoo`` command line.

    boardzoo play reversi --black human --white mcts:time_limit=1      # pygame window
    boardzoo play tictactoe --x mcts --o human --ui text               # terminal
    boardzoo play connect_four --first human --second mcts:time_limit=1 --ui text
    boardzoo arena reversi mcts:simulations=1000 greedy --games 200 --workers 2 --out runs/m1.jsonl
    boardzoo tournament reversi random greedy alphabeta:depth=4 --games 50 --out runs/t1
    boardzoo replay runs/m1.jsonl --game 3 [--gif game3.gif]
    boardzoo bench
    boardzoo demo --game connect_four                                  # a random game as text

The games, their sides (``play``'s ``--black``/``--white``, ``--x``/``--o``, ``--red``/``--yellow``)
and their options (``--size``: the ``board_size`` option, where a game has one) all come from the
catalog (:mod:`boardzoo.games.catalog`). A mistake in the arguments (an unknown game or agent, a
bad value, an unreadable file) prints one line naming it and exits with status 2; it never shows a
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from boardzoo.games.catalog import GAME_NAMES, all_games, get_game
from boardzoo.games.spec import GameSpec

# The defaults of ``play``: a person moves first against MCTS.
DEFAULT_PLAYERS = ("human", "mcts:time_limit=1")


class UserError(Exception):
    """A mistake of the user's: reported in one line, exit status 2."""


def side_flag(side: str) -> str:
    """The ``play`` flag of a side: ``--black``, ``--x``, ``--red``."""
    return "--" + side.lower()


def _side_dest(side: str) -> str:
    return "side_" + side.lower()


def _all_sides() -> list[str]:
    """Every side name of every catalog game, lower case, each once, in catalog order."""
    sides: list[str] = []
    for spec in all_games():
        sides.extend(side.lower() for side in spec.sides if side.lower() not in sides)
    return sides


def _board_sizes() -> list[int]:
    """Every value the ``board_size`` option takes in some catalog game."""
    sizes = {
        size
        for spec in all_games()
        for option in spec.options
        if option.name == "board_size"
        for size in option.allowed
    }
    return sorted(sizes)


def _add_size(parser: argparse.ArgumentParser) -> None:
    games = [spec.name for spec in all_games() if any(o.name == "board_size" for o in spec.options)]
    parser.add_argument(
        "--size",
        type=int,
        default=None,
        choices=_board_sizes(),
        help=f"board size, for games with a board_size option ({', '.join(games)}); "
        "default: the game's",
    )


def _add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="games (per pair in a tournament)")
    parser.add_argument("--workers", type=int, default=1, help="games played in parallel")
    parser.add_argument("--seed", type=int, default=0, help="match seed: same seed, same games")
    _add_size(parser)
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
    play.add_argument(
        "--first",
        metavar="SPEC",
        help=f"the player who moves first: 'human' or an agent spec (default {DEFAULT_PLAYERS[0]})",
    )
    play.add_argument(
        "--second",
        metavar="SPEC",
        help=f"the player who moves second (default {DEFAULT_PLAYERS[1]})",
    )
    for side in _all_sides():
        games = [s.name for s in all_games() if side in (n.lower() for n in s.sides)]
        play.add_argument(
            side_flag(side),
            dest=_side_dest(side),
            metavar="SPEC",
            help=f"the {side} player in {', '.join(games)}",
        )
    play.add_argument("--ui", choices=["window", "text"], default="window")
    _add_size(play)
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
    _add_size(demo)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="print the final position only")
    return parser


def _players(args: argparse.Namespace) -> tuple[str, str]:
    """The two players of ``play``, from ``--first``/``--second`` or the game's side flags."""
    spec = get_game(args.game)
    own = [side.lower() for side in spec.sides]
    flags = "/".join(side_flag(side) for side in own)
    for side in _all_sides():
        if side not in own and getattr(args, _side_dest(side)) is not None:
            raise UserError(
                f"{side_flag(side)} is not a {spec.name} player; use {flags} or --first/--second"
            )
    players = []
    for index, (order, side) in enumerate(zip(("first", "second"), own, strict=True)):
        by_order, by_side = getattr(args, order), getattr(args, _side_dest(side))
        if by_order is not None and by_side is not None:
            raise UserError(
                f"--{order} and {side_flag(side)} both name the {order} player of {spec.name}: "
                "give one of them"
            )
        chosen = by_order if by_order is not None else by_side
        players.append(chosen if chosen is not None else DEFAULT_PLAYERS[index])
    return players[0], players[1]


def _options(args: argparse.Namespace) -> dict[str, int]:
    """The game's options from the command line (``--size``), checked; defaults filled in."""
    spec: GameSpec = get_game(args.game)
    chosen: dict[str, int] = {}
    if args.size is not None:
        if not any(option.name == "board_size" for option in spec.options):
            have = ", ".join(option.name for option in spec.options) or "none"
            raise UserError(
                f"--size sets the board_size option, and {spec.name} has none (its options: {have})"
            )
        chosen["board_size"] = args.size
    return spec.check_options(chosen)


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
        "options": _options(args),
        "time_limit": args.time_limit,
        "workers": args.workers,
        "resume": args.resume,
        "progress": not args.no_progress,
    }


def cmd_play(args: argparse.Namespace) -> int:
    players = _players(args)
    options = _options(args)
    _check_specs(players)
    if args.ui == "text":
        from boardzoo.ui import run_text_ui

        run_text_ui(args.game, players, options=options, seed=args.seed)
    else:
        from boardzoo.ui import run_gui

        run_gui(args.game, players, options=options, seed=args.seed, analysis=args.analysis)
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

    play_random_game(args.game, options=_options(args), seed=args.seed, quiet=args.quiet)
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
