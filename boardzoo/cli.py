"""The ``boardzoo`` command line.

    boardzoo play reversi --black human --white mcts:time_limit=1      # pygame window
    boardzoo play tictactoe --x mcts --o human --ui text               # terminal
    boardzoo play connect_four --first human --second mcts:time_limit=1 --ui text
    boardzoo arena reversi mcts:simulations=1000 greedy --games 200 --workers 2 --out runs/m1.jsonl
    boardzoo arena reversi mcts:time_limit=0.1 alphabeta:depth=4 --openings xot.txt --games 200
    boardzoo arena tictactoe mcts:simulations=200 random --sprt elo0=0,elo1=100 --games 1000
    boardzoo tournament reversi random greedy alphabeta:depth=4 --games 50 --out runs/t1
    boardzoo replay runs/m1.jsonl --game 3 [--gif game3.gif]
    boardzoo agents [mcts]                                             # agents and their options
    boardzoo bench
    boardzoo demo --game connect_four                                  # a random game as text
    boardzoo --version

The games, their sides (``play``'s ``--black``/``--white``, ``--x``/``--o``, ``--red``/``--yellow``)
and their options (``--size``: the ``board_size`` option, where a game has one) all come from the
catalog (:mod:`boardzoo.games.catalog`). A mistake in the arguments (an unknown game or agent, a
bad value, an unreadable file) prints one line naming it and exits with status 2; it never shows a
traceback (``BOARDZOO_DEBUG=1`` shows it). Every agent spec is built once before anything starts,
so a bad value fails at once rather than as forfeited games.

The user interfaces and the demo load gymnasium and pettingzoo, so only the commands that use
them import them: every other command (and ``--help``) starts without.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import importlib.util
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from boardzoo import __version__
from boardzoo.agents.descriptions import format_agents
from boardzoo.agents.registry import check_spec
from boardzoo.arena import play_match, read_records, render_match, render_tournament, tournament
from boardzoo.arena.openings import load_openings
from boardzoo.arena.records import MatchSettingsError
from boardzoo.arena.sprt import parse_sprt
from boardzoo.az.train import QUICK, TrainSettings, settings_from, train, with_old_defaults
from boardzoo.bench import run_benchmarks
from boardzoo.games.catalog import GAME_NAMES, all_games, get_game, make_game
from boardzoo.games.spec import GameSpec

# The defaults of ``play``: a person moves first against MCTS.
DEFAULT_PLAYERS = ("human", "mcts:time_limit=1")


# Where ``arena`` and ``tournament`` write when no ``--out`` is given.
RUNS_DIR = Path("runs")


class UserError(Exception):
    """A mistake of the user's: reported in one line, exit status 2."""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help text that shows each option's default (where it has a meaningful one)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or "default" in text
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


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
        "--board-size",
        dest="size",
        type=int,
        default=None,
        choices=_board_sizes(),
        help=f"board size, for games with a board_size option ({', '.join(games)}) "
        "(default: the game's own, 8 for reversi)",
    )


def _add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="games (per pair in a tournament)")
    parser.add_argument(
        "--workers", type=int, default=1, help="games played in parallel (two processes each)"
    )
    parser.add_argument("--seed", type=int, default=0, help="match seed: same seed, same games")
    _add_size(parser)
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


def _add_sprt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sprt",
        metavar="elo0=E0,elo1=E1[,alpha=A,beta=B]",
        help="stop as soon as a sequential probability ratio test on game pairs decides whether "
        "the first agent is elo1 Elo stronger (H1) or at most elo0 (H0); alpha and beta default "
        "to 0.05; --games is the cap (default: no test, all --games are played)",
    )


def _version() -> str:
    return f"boardzoo {__version__}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardzoo",
        description="Board games, MCTS agents and matches between them.",
        epilog="Agent specs: NAME[:KEY=VALUE,...], e.g. mcts:simulations=1000,c=1.4 or "
        "alphabeta:depth=4; `boardzoo agents` lists every agent and its options.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name, help=summary, description=summary[0].upper() + summary[1:] + ".",
            formatter_class=_HelpFormatter,
        )  # fmt: skip

    play = command("play", "play a game against the AI (or watch two agents)")
    play.add_argument("game", choices=GAME_NAMES, help="the game: " + ", ".join(GAME_NAMES))
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
            help=f"the {side} player in {', '.join(games)} (same as --first/--second)",
        )
    play.add_argument(
        "--ui",
        choices=["window", "text"],
        default="window",
        help="a pygame window, or the terminal; without a display the terminal is used",
    )
    _add_size(play)
    play.add_argument(
        "--seed", type=int, default=None, help="seed of the AI players (default: a random one)"
    )
    play.add_argument(
        "--analysis", action="store_true", help="show the AI's analysis (window only)"
    )

    arena = command("arena", "a match between two agents")
    arena.add_argument("game", choices=GAME_NAMES, help="the game: " + ", ".join(GAME_NAMES))
    arena.add_argument(
        "agents", nargs=2, metavar="SPEC", help="two agent specs, e.g. mcts:simulations=100 greedy"
    )
    arena.add_argument(
        "--out",
        help=f"JSONL file of game records (default: a new file under {RUNS_DIR}/, named after "
        "the game and agents)",
    )
    _add_match_options(arena)
    _add_sprt(arena)

    tournament = command("tournament", "a round robin with Elo ratings")
    tournament.add_argument("game", choices=GAME_NAMES, help="the game: " + ", ".join(GAME_NAMES))
    tournament.add_argument("agents", nargs="+", metavar="SPEC", help="two or more agent specs")
    tournament.add_argument(
        "--out",
        help=f"folder for records, tables and plot (default: a new folder under {RUNS_DIR}/)",
    )
    _add_match_options(tournament)

    replay = command("replay", "replay a recorded game, or write it as a GIF")
    replay.add_argument("records", help="JSONL file written by arena or tournament")
    replay.add_argument(
        "--game",
        type=int,
        default=None,
        metavar="N",
        help="the game with index N in the file (as the arena numbers them: 0, 1, ...) "
        "(default: the file's first game)",
    )
    replay.add_argument(
        "--match",
        type=int,
        default=None,
        metavar="K",
        help="for a tournament's games.jsonl: the K-th pairing in the file (1, 2, ...) "
        "(default: the only one holding the game)",
    )
    replay.add_argument(
        "--gif", metavar="FILE.gif", help="write an animated GIF instead of showing the game"
    )
    replay.add_argument(
        "--ui",
        choices=["window", "text"],
        default="window",
        help="a pygame window, or the terminal",
    )
    replay.add_argument("--delay", type=float, default=0.8, help="seconds per move")

    train = command("train", "train an AlphaZero network by self-play (resumable)")
    train.add_argument("game", choices=GAME_NAMES, help="the game: " + ", ".join(GAME_NAMES))
    _add_size(train)
    train.add_argument(
        "--out",
        help=f"the run folder (default: a new folder under {RUNS_DIR}/, named after the game)",
    )
    train.add_argument(
        "--minutes", type=float, help="training time in all, resumes included (default: none)"
    )
    train.add_argument(
        "--iterations", type=int, help="iterations in all, resumes included (default: none)"
    )
    train.add_argument(
        "--resume", action="store_true", help="continue the run in --out from its last iteration"
    )
    train.add_argument(
        "--device", default="auto", help="auto (CUDA when present, else every CPU core), cpu, cuda"
    )
    train.add_argument("--seed", type=int, default=0, help="the run's seed: same seed, same run")
    train.add_argument(
        "--quick", action="store_true", help="a tiny run (seconds) that shows every part working"
    )
    for flag, kind, text in (
        ("--search", str, "gumbel (learns with few simulations) or puct"),
        ("--simulations", int, "simulations per self-play move"),
        ("--games-per-iteration", int, "self-play games per iteration"),
        ("--parallel-games", int, "self-play games searched together (the network's batch)"),
        (
            "--opening-plies",
            int,
            "the most random plies that start a self-play game (each draws 0..N; not recorded)",
        ),
        ("--channels", int, "filters of the network's residual tower"),
        ("--blocks", int, "residual blocks of the network"),
        ("--batch-size", int, "positions per learner step"),
        ("--steps-per-iteration", int, "learner steps per iteration"),
        ("--lr", float, "learning rate"),
        ("--buffer-size", int, "positions the replay buffer keeps"),
        ("--eval-games", int, "games against each panel agent after an iteration (0: none)"),
        ("--eval-every", int, "evaluate after every N-th iteration"),
    ):
        default = getattr(_train_defaults(), flag[2:].replace("-", "_"))
        choices = ["gumbel", "puct"] if flag == "--search" else None
        train.add_argument(
            flag, type=kind, default=None, choices=choices, help=f"{text} (default: {default})"
        )
    train.add_argument(
        "--record-forced",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the positions with a single legal move too (a pass, the last column); "
        "--no-record-forced as runs before this option (default: on for a new run, a resumed "
        "run keeps its own)",
    )
    train.add_argument(
        "--panel",
        nargs="+",
        metavar="SPEC",
        help="agent specs to evaluate against (default: random greedy alphabeta:depth=2 "
        "alphabeta:depth=4 mcts:simulations=<the training's simulations>)",
    )
    train.add_argument(
        "--no-progress", action="store_true", help="a line per iteration instead of a progress bar"
    )
    train.add_argument(
        "--self-play-workers",
        type=int,
        default=1,
        metavar="K",
        help="workers playing each iteration's self-play games (default: 1, in the learner's "
        "process)",
    )
    train.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where the self-play workers run: processes here, or Ray actors on a cluster (pip "
        "install boardzoo[ray]) (default: local)",
    )
    train.add_argument(
        "--address",
        metavar="auto|HOST:PORT",
        help="the Ray cluster to join, with --backend ray (default: start one here)",
    )

    agents = command("agents", "list the agents and their options")
    agents.add_argument(
        "name", nargs="?", help="an agent's name: show its options in full (default: all agents)"
    )

    bench = command("bench", "print the speed figures")
    bench.add_argument("--quick", action="store_true", help="smaller counts")

    demo = command("demo", "a game between random players, printed as text")
    demo.add_argument("--game", choices=GAME_NAMES, default="reversi", help="the game")
    _add_size(demo)
    demo.add_argument("--seed", type=int, default=0, help="seed of the random players")
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
    """Build every agent spec once, so that a mistake fails before any game starts."""
    for spec in specs:
        if spec != "human":
            check_spec(spec)


def _check_backend(args: argparse.Namespace) -> None:
    """``--backend ray`` needs Ray installed, and ``--address`` needs ``--backend ray``."""
    if args.address is not None and args.backend != "ray":
        raise UserError(f"--address {args.address} is for --backend ray")
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise UserError(
            "--backend ray needs Ray, an optional dependency: pip install 'boardzoo[ray]'"
        )


def _match_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options ``arena`` and ``tournament`` share, checked before any game starts."""
    for name in ("games", "workers", "time_limit"):
        if getattr(args, name) <= 0:
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} must be positive, got {getattr(args, name)}")
    if args.resume and args.out is None:
        raise UserError("--resume continues a run: give its --out too")
    _check_backend(args)
    if args.opening_plies is not None and args.opening_plies < 0:
        raise UserError(f"--opening-plies must be 0 or more, got {args.opening_plies}")
    if args.openings is not None and args.opening_plies is not None:
        raise UserError(
            "--openings and --opening-plies both choose how games start (a suite of openings, "
            "or random plies): give one of them"
        )
    options = _options(args)
    sprt = None
    if getattr(args, "sprt", None) is not None:
        try:
            sprt = parse_sprt(args.sprt)
        except ValueError as error:  # "sprt: ..." names the flag
            raise UserError(f"--{error}") from None
    openings = None
    if args.openings is not None:
        openings = load_openings(args.openings, make_game(args.game, **options))
    _check_specs(args.agents)
    settings: dict[str, Any] = {
        "seed": args.seed,
        "options": options,
        "time_limit": args.time_limit,
        "workers": args.workers,
        "backend": args.backend,
        "address": args.address,
        "resume": args.resume,
        "progress": not args.no_progress,
        "openings": openings,
        "opening_plies": args.opening_plies,
        "pair_openings": args.opening_plies is not None,
    }
    if sprt is not None:
        settings["sprt"] = sprt
    return settings


def _slug(text: str) -> str:
    """``text`` as a file-name part: letters, digits and ``._=-``, the rest ``_``."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("_") or "agent"


def _new_path(stem: str, suffix: str) -> Path:
    """``runs/<stem><suffix>``, or ``runs/<stem>-2<suffix>``, ... : the first that is free."""
    path = RUNS_DIR / f"{stem}{suffix}"
    number = 2
    while path.exists():
        path = RUNS_DIR / f"{stem}-{number}{suffix}"
        number += 1
    return path


def cmd_play(args: argparse.Namespace) -> int:
    players = _players(args)
    options = _options(args)
    _check_specs(players)
    ui = args.ui
    if ui == "window":
        from boardzoo.ui import display_problem  # (gymnasium, pettingzoo)

        problem = display_problem()
        if problem is not None:
            print(f"boardzoo play: {problem}; playing in the terminal (--ui text)", file=sys.stderr)
            ui = "text"
    if ui == "text":
        from boardzoo.ui import run_text_ui  # (gymnasium, pettingzoo)

        run_text_ui(args.game, players, options=options, seed=args.seed)
    else:
        from boardzoo.ui import NoDisplayError, run_gui, run_text_ui  # (gymnasium, pettingzoo)

        try:
            run_gui(args.game, players, options=options, seed=args.seed, analysis=args.analysis)
        except NoDisplayError as error:  # a display that is set but cannot be used
            print(
                f"boardzoo play: {error.reason}; playing in the terminal (--ui text)",
                file=sys.stderr,
            )
            run_text_ui(args.game, players, options=options, seed=args.seed)
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    settings = _match_options(args)
    out = args.out
    if out is None:
        out = _new_path(f"{args.game}-{_slug(args.agents[0])}-vs-{_slug(args.agents[1])}", ".jsonl")
        out.parent.mkdir(parents=True, exist_ok=True)
    print(f"boardzoo arena: writing the games to {out}", file=sys.stderr)
    result = play_match(args.game, tuple(args.agents), games=args.games, out=out, **settings)
    print(render_match(result))
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    if len(args.agents) < 2:
        raise UserError("a tournament needs at least two agents")
    settings = _match_options(args)
    out = args.out if args.out is not None else _new_path(f"tournament-{args.game}", "")
    print(f"boardzoo tournament: writing records, tables and plot to {out}/", file=sys.stderr)
    result = tournament(args.game, args.agents, games=args.games, out=out, **settings)
    print(render_tournament(result))
    print(f"records, tables and plot: {out}/")
    return 0


def _pick_game(records: Sequence[Any], path: str, index: int | None, match: int | None) -> Any:
    """The record ``replay`` shows: game index ``index`` (of pairing ``match`` in a tournament)."""
    if not records:
        raise UserError(f"{path} holds no games yet")
    pairings: list[tuple[str, ...]] = []
    for record in records:
        agents = tuple(record.get("agents") or ())
        if agents not in pairings:
            pairings.append(agents)
    if match is not None:
        if not 1 <= match <= len(pairings):
            raise UserError(
                f"--match {match} is not in {path}: it holds "
                + (
                    "one pairing (--match 1)"
                    if len(pairings) == 1
                    else f"--match 1..{len(pairings)}"
                )
            )
        records = [r for r in records if tuple(r.get("agents") or ()) == pairings[match - 1]]
    if index is None:
        return records[0]
    if not any("game_index" in r for r in records):  # hand-written records: numbered in order
        records = [{**r, "game_index": number} for number, r in enumerate(records)]
    found = [r for r in records if r.get("game_index") == index]
    if not found:
        held = sorted({r["game_index"] for r in records if isinstance(r.get("game_index"), int)})
        raise UserError(f"--game {index} is not in {path}: it holds games {_ranges(held)}")
    if len(found) > 1 and match is None:
        choices = "; ".join(
            f"--match {pairings.index(tuple(r.get('agents') or ())) + 1}: "
            + " vs ".join(r.get("agents") or ())
            for r in found
        )
        raise UserError(f"{path} holds {len(found)} games numbered {index}; choose one: {choices}")
    return found[0]


def _ranges(numbers: Sequence[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` as ``"0-2, 5, 7-8"``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs) or "none"


def cmd_replay(args: argparse.Namespace) -> int:
    from boardzoo.ui import replay_game, write_gif  # (gymnasium, pettingzoo)

    if args.gif is not None and not args.gif.lower().endswith(".gif"):
        raise UserError(f"--gif {args.gif}: the file name must end in .gif")
    if args.delay < 0:
        raise UserError(f"--delay must be >= 0 seconds, got {args.delay}")
    notes: list[str] = []
    records = read_records(args.records, require_games=True, notes=notes)
    for note in notes:
        print(f"boardzoo replay: warning: {note}", file=sys.stderr)
    record = _pick_game(records, args.records, args.game, args.match)
    if args.gif:
        write_gif(record, args.gif)
        print(f"wrote {args.gif}")
        return 0
    from boardzoo.ui import NoDisplayError, display_problem  # (gymnasium, pettingzoo)

    problem = display_problem() if args.ui == "window" else None
    if problem is None:
        try:
            replay_game(record, ui=args.ui, delay=args.delay)
            return 0
        except NoDisplayError as error:  # a display that is set but cannot be used
            problem = error.reason
    game = "" if args.game is None else f" --game {args.game}"
    raise UserError(
        f"{problem}: write the game as a GIF (boardzoo replay {args.records}{game} "
        f"--gif game.gif) or replay it in the terminal (--ui text)"
    )


def _train_defaults() -> Any:
    """The training settings' defaults (for the help text), without importing torch."""
    return type(
        "Defaults",
        (),
        {
            f.name: f.default
            for f in dataclasses.fields(TrainSettings)
            if f.default is not dataclasses.MISSING
        },
    )


def cmd_train(args: argparse.Namespace) -> int:
    options = _options(args)
    _check_backend(args)
    if args.self_play_workers < 1:
        raise UserError(f"--self-play-workers must be positive, got {args.self_play_workers}")
    if args.panel:
        _check_specs(args.panel)
    out = args.out
    if out is None:
        if args.resume:
            raise UserError("--resume continues a run: give its --out too")
        out = _new_path(f"az-{args.game}", "")
    given = {
        "game": args.game, "options": options, "out": out, "minutes": args.minutes,
        "iterations": args.iterations, "resume": args.resume, "device": args.device,
        "seed": args.seed, "search": args.search, "simulations": args.simulations,
        "games_per_iteration": args.games_per_iteration, "parallel_games": args.parallel_games,
        "opening_plies": args.opening_plies, "record_forced": args.record_forced,
        "channels": args.channels, "blocks": args.blocks, "batch_size": args.batch_size,
        "steps_per_iteration": args.steps_per_iteration, "lr": args.lr,
        "buffer_size": args.buffer_size, "eval_games": args.eval_games,
        "eval_every": args.eval_every,
        "panel": tuple(args.panel) if args.panel else None, "progress": not args.no_progress,
        "self_play_workers": args.self_play_workers, "backend": args.backend,
        "address": args.address,
    }  # fmt: skip
    defaults = dict(QUICK) if args.quick else {}
    if args.resume:
        # Settings not given again come from the run itself, so `--resume` alone continues it.
        saved = _saved_train_settings(Path(out))
        defaults.update(saved)
        if args.size is None and "options" in saved:
            given["options"] = saved["options"]
    settings = settings_from(defaults, **given)
    print(f"boardzoo train: the run goes to {out}/", file=sys.stderr)
    summary = train(settings)
    print(
        f"{summary.iterations} iterations, {summary.games} self-play games, "
        f"{summary.positions} positions, {summary.seconds / 60:.1f} min; model: {out}/model.pt"
    )
    return 0


def _saved_train_settings(out: Path) -> dict[str, Any]:
    """The settings a run in ``out`` was started with (empty if it has none readable)."""
    try:
        saved = json.loads((out / "settings.json").read_text())
    except (OSError, ValueError):
        return {}  # train() says what is missing
    if not isinstance(saved, dict):
        return {}
    saved = with_old_defaults(saved)
    # The budgets stay: `--resume` alone finishes an interrupted run; give them to train further.
    for key in ("out", "resume", "progress", "device"):
        saved.pop(key, None)
    if isinstance(saved.get("panel"), list):
        saved["panel"] = tuple(saved["panel"])
    return saved


def cmd_agents(args: argparse.Namespace) -> int:
    print(format_agents(args.name))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    run_benchmarks(quick=args.quick)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from boardzoo.demo import play_random_game  # (gymnasium, pettingzoo)

    play_random_game(args.game, options=_options(args), seed=args.seed, quiet=args.quiet)
    return 0


COMMANDS = {
    "play": cmd_play,
    "arena": cmd_arena,
    "tournament": cmd_tournament,
    "replay": cmd_replay,
    "agents": cmd_agents,
    "train": cmd_train,
    "bench": cmd_bench,
    "demo": cmd_demo,
}


def os_error_text(error: OSError) -> str:
    """An ``OSError`` in plain words: ``cannot write runs/x.jsonl: permission denied``."""
    reasons = {
        errno.ENOENT: "no such file or folder",
        errno.EACCES: "permission denied",
        errno.EISDIR: "it is a folder",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.ENOSPC: "no space left on the disk",
        errno.EEXIST: "it already exists",
    }
    reason = reasons.get(error.errno or -1, (error.strerror or "").lower())
    if error.filename is None:
        text = str(error.args[0]) if error.args and error.errno is None else reason
        return text or type(error).__name__
    return f"cannot use {error.filename}: {reason or 'the system refused'}"


# The arena's Python words for its settings, and what they are called on the command line.
_FLAG_WORDS = (
    (re.compile(r"\bresume=True, "), ""),
    (re.compile(r"\bmatch_seed="), "--seed "),
    (re.compile(r"\btime_limit="), "--time-limit "),
    (re.compile(r"\bopening_plies="), "opening plies "),
    (re.compile(r"\bpair_openings="), "paired openings "),
    (re.compile(r"\bagents="), "agents "),
    (re.compile(r"\boptions="), "game options "),
)


def cli_words(text: str) -> str:
    """An error of the Python API in the command line's words (``match_seed=3`` -> ``--seed 3``)."""
    for pattern, words in _FLAG_WORDS:
        text = pattern.sub(words, text)
    return text


def _in_python_words(error: BaseException) -> bool:
    """Whether ``error`` speaks of the arena's settings as the Python API names them (a record
    file of another run, or one that already holds games), not of an agent's own keys."""
    return isinstance(error, (MatchSettingsError, FileExistsError))


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
        text = os_error_text(error) if isinstance(error, OSError) else str(error)
        if _in_python_words(error):
            text = cli_words(text)
        print(f"boardzoo {args.command}: error: {text.splitlines()[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
