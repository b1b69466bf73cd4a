"""Connect Four's exact solve beside the Connect 4 Game Solver's (Pascal Pons'), position by
position, in one run.

    python benchmarks/bench_connect_four_side_by_side.py --pons PATH/c4solver
    python benchmarks/bench_connect_four_side_by_side.py --pons PATH/c4solver --discs 7 8 9 \
        --positions 10

``--pons`` is the ``c4solver`` program of github.com/PascalPons/connect4 (``make`` in its
checkout), run without its opening book (its book file is not in the repository): both solve
every position by search, from an empty table. Positions are those of
``bench_connect_four_solve.py`` (seeded random games stopped at each number of discs, none
finished), given to ``c4solver`` as its column string (the moves that reach it, 1-7). For each
this prints both scores (they must agree: exit status 1 otherwise) and both times: boardzoo's
``solve(state)`` in this process (compiled before the first), ``c4solver``'s the wall time of its
process less its start-up (the median of three runs on an empty input). Then per number of
discs the median, the largest and how many took over a second, for each.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_connect_four_solve import _random_positions

from boardzoo.games.connect_four import from_columns
from boardzoo.gametree.solve import forget_tables, solve
from boardzoo.interop import moves_to


def _wall(program: Path, text: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([str(program)], input=text, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pons", type=Path, required=True, help="the c4solver program")
    parser.add_argument("--discs", type=int, nargs="+", default=[7, 8, 9])
    parser.add_argument("--positions", type=int, default=10, help="positions per number of discs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not args.pons.is_file():
        parser.error(f"--pons {args.pons}: no such program (build it with make in its checkout)")
    start_up = statistics.median(_wall(args.pons, "")[0] for _ in range(3))
    forget_tables()
    solve(from_columns("444455553333"))  # compiled (or loaded from the cache) before timing
    print(f"c4solver start-up {start_up:.3f} s (taken off its times)")
    header = ("discs", "moves", "boardzoo", "pons", "boardzoo s", "pons s")
    print("{:>5} {:<12} {:>8} {:>5} {:>10} {:>7}".format(*header))
    times: dict[int, tuple[list[float], list[float]]] = {d: ([], []) for d in args.discs}
    wrong = 0
    for discs, states in _random_positions(args.discs, args.positions, args.seed).items():
        for state in states:
            moves = "".join(str(action + 1) for action in moves_to(state) or [])
            forget_tables()
            began = time.perf_counter()
            ours = solve(state).score
            ours_s = time.perf_counter() - began
            wall, out = _wall(args.pons, moves + "\n")
            theirs, theirs_s = int(out.split()[1]), max(wall - start_up, 0.0)
            wrong += ours != theirs
            times[discs][0].append(ours_s)
            times[discs][1].append(theirs_s)
            mark = "" if ours == theirs else "  DIFFERENT"
            print(
                f"{discs:>5} {moves:<12} {ours:>8} {theirs:>5} {ours_s:>10.3f} {theirs_s:>7.3f}"
                + mark
            )
    print()
    for discs, (ours_t, theirs_t) in times.items():
        print(
            f"{discs} discs: boardzoo median {statistics.median(ours_t):.3f} s, largest "
            f"{max(ours_t):.3f} s, {sum(t > 1 for t in ours_t)} over 1 s | c4solver median "
            f"{statistics.median(theirs_t):.3f} s, largest {max(theirs_t):.3f} s, "
            f"{sum(t > 1 for t in theirs_t)} over 1 s"
        )
    print(f"scores: {'all the same' if not wrong else f'{wrong} different'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
