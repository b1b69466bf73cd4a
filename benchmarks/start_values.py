"""What each game of a match started from: the exact value of its opening for an agent.

A match with random openings (``--opening-plies``) hands some games to an agent in positions
that are lost with perfect play; paired openings give each side both colours, so about as many
start won as lost. This reads a match record, solves the position each game's search began
from (after the random opening plies) to win, draw or loss with the game's exact solver, and
splits the agent's score by that value: what it kept of its won starts and what it took from
its lost ones.

    python benchmarks/start_values.py benchmarks/results/az/reversi6-uct-heuristic-2026-11-27.jsonl
    python benchmarks/start_values.py RECORD.jsonl --agent 1 --time-limit 60 --games

Prints, for each value (won, drawn, lost for the agent; unsolved where the solve ran out of
time), the games and the agent's points. Each distinct start is solved once (paired openings
share one); Reversi 6x6's starts after 4 plies (28 empty squares) take 3 s to 4 min each here.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

from boardzoo.accuracy import result_of
from boardzoo.arena.record_reading import read_records
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import solve
from boardzoo.ui.replay import parse_record

CLASSES = ("won", "drawn", "lost", "unsolved")


def start_of(record: dict) -> tuple[BoardState, int]:
    """The position after the record's opening plies (the moves no agent chose), and their
    count.

    Raises:
        ReplayError: (a ``ValueError``) a record of an unknown game or with an illegal move.
    """
    states = parse_record(record).states
    agents = record.get("move_agents") or []
    plies = 0
    while plies < min(len(agents), len(states) - 1) and agents[plies] is None:
        plies += 1
    return states[plies], plies


def mover_value(state: BoardState, time_limit: float) -> int | None:
    """+1, 0 or -1: the result for the player to move in ``state`` with perfect play (a
    win/draw/loss solve), or ``None`` when the solve does not finish in ``time_limit`` seconds."""
    result = solve(state, exact=False, time_limit=time_limit, max_empties=64)
    return result_of(result.score) if result.complete else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path, help="a match record (JSONL) with random openings")
    parser.add_argument("--agent", type=int, default=0, help="which agent of the match (0 or 1)")
    parser.add_argument(
        "--time-limit", type=float, default=300.0, help="seconds a start may take (default 300)"
    )
    parser.add_argument("--games", action="store_true", help="also print each game's line")
    args = parser.parse_args(argv)
    if args.agent not in (0, 1):
        parser.error(f"--agent {args.agent}: give 0 or 1 (the agent's place in the match)")
    if not math.isfinite(args.time_limit) or args.time_limit <= 0:
        parser.error(f"--time-limit {args.time_limit}: give a positive number of seconds")
    try:
        records = read_records(args.record, require_games=True)
        starts = [start_of(record) for record in records]
    except ValueError as error:
        parser.error(str(error))
    lacking = [r.get("game_index") for r in records if "colours" not in r or "scores" not in r]
    if lacking:
        parser.error(f"games {lacking[:5]} of {args.record} have no 'colours' or 'scores'")
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    solved: dict[tuple[int, int, int], int | None] = {}  # start -> its value for its mover
    done = 0
    try:
        for record, (state, plies) in zip(records, starts, strict=True):
            _count(record, state, plies, args, solved, totals)
            done += 1
    except KeyboardInterrupt:
        print(f"stopped after {done} of {len(records)} games: the table counts those")
    records = records[:done]
    if not records:
        return 130
    name = records[0]["agents"][args.agent]
    print(f"{name} in {args.record} ({len(records)} games, {len(solved)} starts):")
    for kind in (*CLASSES, "all"):
        games, points = (
            totals[kind] if kind != "all" else [sum(t[k] for t in totals.values()) for k in (0, 1)]
        )
        if games:
            share = f"{points / games:.1%}"
            print(f"  {kind:>8} starts: {int(games):3d} games, {points:5.1f} points ({share})")
    return 0 if done == len(starts) else 130


def _count(
    record: dict,
    state: BoardState,
    plies: int,
    args: argparse.Namespace,
    solved: dict[tuple[int, int, int], int | None],
    totals: dict[str, list[float]],
) -> None:
    """Solve one game's start (once for each distinct start) and add its points to ``totals``."""
    player = state.game.spec.side_index(record["colours"][args.agent])
    key = (*state.bitboards(), state.current_player)
    if key not in solved:
        solved[key] = mover_value(state, args.time_limit)
    value = solved[key]
    if value is None:
        kind = "unsolved"
    else:
        kind = CLASSES[1 - (value if state.current_player == player else -value)]
    points = float(record["scores"][args.agent])
    totals[kind][0] += 1
    totals[kind][1] += points
    if args.games:
        number = record.get("game_index", "?")
        print(f"game {number}: {plies} opening plies, {kind} start, {points}")


if __name__ == "__main__":
    sys.exit(main())
