"""``boardzoo replay``: one recorded game of an ``arena`` or ``tournament`` file, shown move by
move (a pygame window or the terminal) or written as an animated GIF."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from boardzoo.arena import read_records
from boardzoo.cli.common import add_command
from boardzoo.cli.errors import UserError

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "replay", "replay a recorded game, or write it as a GIF")
    parser.add_argument("records", help="JSONL file written by arena or tournament")
    parser.add_argument(
        "--game",
        type=int,
        default=None,
        metavar="N",
        help="the game with index N in the file (as the arena numbers them: 0, 1, ...) "
        "(default: the file's first game)",
    )
    parser.add_argument(
        "--match",
        type=int,
        default=None,
        metavar="K",
        help="for a tournament's games.jsonl: the K-th pairing in the file (1, 2, ...) "
        "(default: the only one holding the game)",
    )
    parser.add_argument(
        "--gif", metavar="FILE.gif", help="write an animated GIF instead of showing the game"
    )
    parser.add_argument(
        "--ui",
        choices=["window", "text"],
        default="window",
        help="a pygame window, or the terminal",
    )
    parser.add_argument("--delay", type=float, default=0.8, help="seconds per move")
    return parser


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


def run(args: argparse.Namespace) -> int:
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
