"""How long Connect Four's exact solver takes, by the number of discs on the board.

    python benchmarks/bench_connect_four_solve.py                       # 4-14 discs, 20 each
    python benchmarks/bench_connect_four_solve.py --discs 5 6 7 8 9 --positions 40 --limit 1
    python benchmarks/bench_connect_four_solve.py --source labelled     # the labelled set's
    # just past the depth-6 book, every solve timed to its end (a clock of 60 s), those over 1 s
    # counted, from random games and from the labelled set's (which start at 8 discs):
    python benchmarks/bench_connect_four_solve.py --discs 7 8 9 10 11 --positions 10 --limit 60
    python benchmarks/bench_connect_four_solve.py --discs 8 9 10 11 --positions 10 --limit 60 \
        --source labelled

The opening book (``boardzoo/gametree/data/connect_four_book.npz``) answers the first moves at
once and the search the rest; this measures how many positions are solved within a second
(``--over``). Positions come from seeded random games (``--source random``, each game stopped at a
random number of discs among those asked, none finished) or from the shipped labelled set
(``--source labelled``: games between agents of every strength, from 8 discs on; a sample of those
with each number of discs, seeded by ``--seed``). Each is solved twice as ``boardzoo solve`` would,
with a fresh table and a clock of ``--limit`` seconds: its exact score and a best move
(``solve(state)``, what the ``solver`` agent does for a move), then every move's exact score
(``solve(state, all_moves=True)``, what ``solver:ties=random`` does). Per number of discs this
prints how many positions the book answered, the share solved within the limit, the median, 90th
percentile and largest seconds (a solve cut by the clock counts as the limit), and how many took
over ``--over`` seconds (1 by default). With ``--source labelled`` every score finished is checked
against the set's and the script exits with status 1 on a difference.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import cast

import numpy as np

from boardzoo.accuracy import read_labelled, shipped_set_path
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.state import BoardState
from boardzoo.gametree.connect_four_book import shipped_book
from boardzoo.gametree.solve import empties_of, forget_tables, solve
from boardzoo.search.handover import prepare_solver

GAMES_PER_POSITION = 1000  # random games tried for each position asked, at most
CELLS = empties_of(make_game("connect_four").initial_state())  # 42


def _discs(state: BoardState) -> int:
    return CELLS - empties_of(state)


def _random_positions(discs: list[int], count: int, seed: int) -> dict[int, list[BoardState]]:
    """``count`` positions for each number of ``discs``, from seeded random games (fewer where
    random games seldom get that far without a four)."""
    game = make_game("connect_four")
    rng = np.random.default_rng(seed)
    found: dict[int, list[BoardState]] = {d: [] for d in discs}
    for _ in range(GAMES_PER_POSITION * count * len(discs)):
        if all(len(found[d]) >= count for d in discs):
            break
        target = int(rng.choice([d for d in discs if len(found[d]) < count]))
        state = game.initial_state()
        while _discs(state) < target and not state.is_terminal():
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal() and _discs(state) == target:
            found[target].append(state)
    return found


def _labelled_positions(
    discs: list[int], count: int, seed: int
) -> tuple[dict[int, list[BoardState]], dict[int, int]]:
    """Up to ``count`` positions of the shipped labelled set for each number of ``discs`` (a
    seeded sample, in the set's order), and each one's exact score by the set."""
    game = make_game("connect_four")
    labelled = read_labelled(shipped_set_path(game))
    rng = np.random.default_rng(seed)
    found: dict[int, list[BoardState]] = {d: [] for d in discs}
    scores: dict[int, int] = {}
    for d in discs:
        at = [p for p in labelled.positions if len(p.moves) == d]
        picked = sorted(rng.choice(len(at), size=min(count, len(at)), replace=False))
        for i in picked:
            state = at[int(i)].state(game)
            found[d].append(state)
            scores[id(state)] = at[int(i)].best
    return found, scores


def _timed(state: BoardState, limit: float, all_moves: bool) -> tuple[float, bool, int]:
    """Seconds of one solve with a fresh table (the limit when cut), whether it finished, and
    its score."""
    forget_tables()
    result = solve(state, all_moves=all_moves, time_limit=limit)
    seconds = min(result.seconds, limit) if result.complete else limit
    return seconds, result.complete, result.score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--discs", type=int, nargs="+", default=list(range(4, 15)))
    parser.add_argument("--positions", type=int, default=20, help="positions per number of discs")
    parser.add_argument("--limit", type=float, default=1.0, help="seconds a solve may take")
    parser.add_argument("--source", choices=("random", "labelled"), default="random")
    parser.add_argument("--seed", type=int, default=0, help="the positions' seed")
    parser.add_argument("--over", type=float, default=1.0, help="count the solves over this")
    args = parser.parse_args(argv)
    if any(not 0 <= d <= 41 for d in args.discs):
        parser.error(f"--discs {args.discs}: each must be 0..41")
    if args.positions < 1:
        parser.error(f"--positions {args.positions}: give 1 or more")
    if args.limit <= 0:
        parser.error(f"--limit {args.limit}: give a positive number of seconds")
    if args.over <= 0:
        parser.error(f"--over {args.over}: give a positive number of seconds")
    discs = sorted(set(args.discs))
    want: dict[int, int] = {}
    if args.source == "random":
        found = _random_positions(discs, args.positions, args.seed)
    else:
        found, want = _labelled_positions(discs, args.positions, args.seed)
    book = shipped_book()
    depth = book.depth if book is not None else 0
    held = "none"
    if book is not None:
        stored = int((book.moves >= 0).sum())
        held = f"depth {depth}, {len(book):,} positions, a best move stored for {stored:,}"
    print(f"Connect Four solves, {args.source} positions, a clock of {args.limit:g} s each; "
          f"opening book: {held}")  # fmt: skip
    prepare_solver(make_game("connect_four"))  # loaded before any clock
    over = f">{args.over:g} s"
    columns = f"{'median':>7} {'p90':>7} {'max':>7} {over:>6}"
    print(f"{'discs':>5} {'n':>4} {'book':>4} | {'score: <=limit':>14} {columns} | "
          f"{'all moves':>10} {columns}")  # fmt: skip
    wrong: set[int] = set()  # the positions whose score differs from the set's
    totals: dict[str, list[float]] = defaultdict(list)
    for d in discs:
        states = found[d]
        if not states:
            print(f"{d:>5} {0:>4}   (no position found)")
            continue
        row: dict[str, list[float]] = defaultdict(list)
        done: dict[str, int] = defaultdict(int)
        in_book = 0
        for state in states:
            in_book += book is not None and book.score(cast(ConnectFourState, state)) is not None
            for kind, all_moves in (("score", False), ("all", True)):
                seconds, complete, score = _timed(state, args.limit, all_moves)
                row[kind].append(seconds)
                totals[kind].append(seconds)
                done[kind] += complete
                if complete and id(state) in want and score != want[id(state)]:
                    wrong.add(id(state))
                    print(f"  {kind}: {state!r} scored {score}, the set says {want[id(state)]}")
        cells = []
        for kind in ("score", "all"):
            times = np.array(row[kind])
            share = f"{done[kind] / len(states):.0%}"
            slow = int((times > args.over).sum())
            cells.append(f"{share:>{14 if kind == 'score' else 10}} {np.median(times):>7.3f} "
                         f"{np.percentile(times, 90):>7.3f} {times.max():>7.3f} "
                         f"{slow:>6}")  # fmt: skip
        print(f"{d:>5} {len(states):>4} {in_book:>4} | {cells[0]} | {cells[1]}")
    for kind in ("score", "all"):
        times = np.array(totals[kind])
        within = float(np.mean(times < args.limit))
        slow = int((times > args.over).sum())
        print(f"{kind}: {within:.1%} of {len(times)} solves under {args.limit:g} s, "
              f"{slow} over {args.over:g} s")  # fmt: skip
    if wrong:
        print(f"{len(wrong)} positions' scores differ from the labelled set's")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
