"""boardzoo's exact endgame solver and Edax side by side on the FFO test positions, one thread each.

    python benchmarks/bench_endgame_side_by_side.py --edax EDAX/bin/lEdax-x86-64-v3 \
        --ffo ../shared/ffo/fforum-40-59.obf --first 40 --last 49
    python benchmarks/bench_endgame_side_by_side.py --edax EDAX/bin/lEdax-x86-64-v3 \
        --ffo ../shared/ffo/fforum-40-59.obf --first 40 --last 42 --repeat 3

Edax (Richard Delorme's Othello program, abulmo/edax-reversi on GitHub) is not part of the
project, and nothing here builds or fetches it: give its binary with ``--edax`` (a build of its
source, kept outside the checkout, e.g. ``bin/lEdax-x86-64-v3``). It needs its evaluation
weights (``data/eval.dat``, in ``eval.7z`` on its release page) even for exact solves, where they
order the moves: by default ``data/eval.dat`` beside the binary's ``bin/`` folder, else
``--eval-file``.

The positions are read from the FFO file given (see ``bench_endgame.py``, whose helpers this
uses). For each position, Edax solves it first, then boardzoo, ``--repeat`` times in turn, so that
machine noise hits both alike. Edax runs as ``-solve FILE -l 60 -n 1 -h 22`` on a one-line
problem file (an exact solve, one thread, a fresh hash table of 2**22 entries); its nodes and
seconds are the ones it prints for the search (milliseconds, without its start-up and loading of
the weights). boardzoo runs ``solve(state)`` after ``forget_tables()`` (one thread, a fresh table
of 2**22 entries), after one solve that compiled the solver. The table shows each program's best
move and score, the published best score, each one's nodes (of its first solve) and seconds
(with ``--repeat`` above 1, the median of each one's) and the ratios boardzoo/Edax of nodes and
seconds; then the totals and the overall ratios. Exits with status 1 if either program's score,
or the published score of its move, is not the published best score (2 if Edax fails).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from bench_endgame import _NUMBERED, _published, _rate

from boardzoo.games import ReversiState
from boardzoo.gametree.solve import forget_tables, solve

# The line Edax's ``-solve ... -verbose 1`` prints for a problem: "  1|   20   +38
# 0:00.466      21000788   45066069 a2 B1 c1 ...": number, depth (with "@NN%" when the search
# is selective: not exact), score (a bound sign before it if not exact), time, nodes, nodes/s
# (blank for a time of 0), principal variation.
_EDAX_ROW = re.compile(
    r"^\s*\d+\|\s*(?P<depth>\d+)(?P<selective>@\s*\d+%)?\s+(?P<bound>[<>?]?)(?P<score>[+-]\d+)"
    r"\s+(?P<time>\d+(?::\d+)*\.\d+)\s+(?P<nodes>\d+)\s+(?:\d+\s+)?(?P<move>[A-Za-z][A-Za-z1-8])\b"
)
_TABLE_BITS = 22  # both programs' transposition tables: 2**22 entries (Edax's default)


@dataclass(frozen=True)
class _Solve:
    move: str
    score: int
    nodes: int
    seconds: float


def _executable(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file (Edax's binary, e.g. bin/lEdax-*)")
    if not os.access(path, os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: not executable")
    return path.resolve()


def _edax_solve(edax: Path, eval_file: Path, line: str, workdir: Path) -> _Solve:
    """Edax's exact solve of one FFO line, one thread, a fresh hash table."""
    problem = workdir / "problem.obf"
    problem.write_text(line.strip() + "\n")
    command = [str(edax), "-eval-file", str(eval_file), "-solve", str(problem),
               "-l", "60", "-n", "1", "-h", str(_TABLE_BITS), "-verbose", "1"]  # fmt: skip
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False)
    output = done.stdout + done.stderr
    rows = [match for row in done.stdout.splitlines() if (match := _EDAX_ROW.match(row))]
    if done.returncode != 0 or len(rows) != 1:
        tail = "\n".join(output.strip().splitlines()[-5:])
        _fail(f"Edax failed (exit status {done.returncode}): {' '.join(command)}\n{tail}")
    row = rows[0]
    if row["selective"] or row["bound"]:
        _fail(f"Edax's search was not exact (depth {row['depth']}): {row.group(0)}")
    seconds = 0.0
    for part in row["time"].split(":"):
        seconds = seconds * 60 + float(part)
    return _Solve(row["move"].lower(), int(row["score"]), int(row["nodes"]), seconds)


def _boardzoo_solve(state: ReversiState) -> _Solve:
    """boardzoo's exact solve, one thread, a fresh table."""
    forget_tables()
    result = solve(state, table_bits=_TABLE_BITS, max_empties=64)
    move = state.game.action_name(result.best_moves[0])
    return _Solve(move, result.score, result.nodes, result.seconds)


def _ok(solved: _Solve, published: dict[str, int], best: int) -> bool:
    return solved.score == best and published.get(solved.move) == best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ffo", type=Path, required=True, help="an FFO .obf file")
    parser.add_argument("--first", type=int, help="first position number (default: the file's)")
    parser.add_argument("--last", type=int, help="last position number (default: the file's)")
    parser.add_argument("--edax", type=_executable, required=True, help="Edax's binary")
    parser.add_argument(
        "--eval-file",
        type=Path,
        help="Edax's evaluation weights (default: data/eval.dat beside the binary's folder)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="solves of each position by each program (median)"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: must be at least 1")
    if not args.ffo.is_file():
        parser.error(f"--ffo {args.ffo}: no such file (the FFO files live in ../shared/ffo)")
    eval_file = args.eval_file or args.edax.parent.parent / "data" / "eval.dat"
    if not eval_file.is_file():
        parser.error(
            f"Edax's evaluation weights {eval_file}: no such file (eval.7z from Edax's release "
            "page holds data/eval.dat); give --eval-file"
        )
    lines = [line for line in args.ffo.read_text().splitlines() if line.strip()]
    match = _NUMBERED.search(args.ffo.name)
    base = int(match.group(1)) if match else 1
    first = args.first if args.first is not None else base
    last = args.last if args.last is not None else base + len(lines) - 1
    if not base <= first <= last < base + len(lines):
        parser.error(f"positions {first}..{last} are not all in {args.ffo} ({base}..)")

    print(f"Edax: {args.edax} (weights {eval_file.resolve()}); boardzoo solver; "
          f"{args.repeat} solve(s) each; load average {_load()}", flush=True)  # fmt: skip
    solve(ReversiState.initial(4))  # compile (or load the cache) before timing
    seconds = " median seconds " if args.repeat > 1 else " seconds "
    print(f"{'':>21} {'Edax':^10} {'boardzoo':^10} {'':>5} {' nodes ':-^36} "
          f"{seconds:-^24}")  # fmt: skip
    print(f"{'#':>3} {'empties':>7} {'published':>9} {'move':>4} {'score':>5} {'move':>4} "
          f"{'score':>5} {'':>5} {'Edax':>14} {'boardzoo':>14} {'ratio':>6} "
          f"{'Edax':>8} {'boardzoo':>8} {'ratio':>6}")  # fmt: skip
    totals = {"edax_nodes": 0, "bz_nodes": 0, "edax_s": 0.0, "bz_s": 0.0}
    wrong = 0
    with tempfile.TemporaryDirectory(prefix="edax-") as workdir:
        for number in range(first, last + 1):
            line = lines[number - base]
            state = ReversiState.from_obf(line)
            published = _published(line)
            best = max(published.values())
            edax_runs: list[_Solve] = []
            bz_runs: list[_Solve] = []
            for _ in range(args.repeat):  # in turn: Edax, then boardzoo
                edax_runs.append(_edax_solve(args.edax, eval_file, line, Path(workdir)))
                bz_runs.append(_boardzoo_solve(state))
            edax, bz = edax_runs[0], bz_runs[0]
            edax_s = statistics.median(run.seconds for run in edax_runs)
            bz_s = statistics.median(run.seconds for run in bz_runs)
            bad = [name for name, runs in (("Edax", edax_runs), ("boardzoo", bz_runs))
                   if not all(_ok(run, published, best) for run in runs)]  # fmt: skip
            wrong += bool(bad)
            totals["edax_nodes"] += edax.nodes
            totals["bz_nodes"] += bz.nodes
            totals["edax_s"] += edax_s
            totals["bz_s"] += bz_s
            empties = 64 - bin(state.black | state.white).count("1")
            print(f"{number:>3} {empties:>7} {best:>+9d} {edax.move:>4} {edax.score:>+5d} "
                  f"{bz.move:>4} {bz.score:>+5d} {'ok' if not bad else 'WRONG':>5} "
                  f"{edax.nodes:>14,} {bz.nodes:>14,} {_ratio(bz.nodes, edax.nodes):>6} "
                  f"{edax_s:>8.3f} {bz_s:>8.3f} {_ratio(bz_s, edax_s):>6}", flush=True)  # fmt: skip
            if bad:
                print(f"    #{number}: {' and '.join(bad)} wrong (published: "
                      f"{', '.join(f'{m}:{s:+d}' for m, s in published.items())})")  # fmt: skip
    edax_nodes, bz_nodes = totals["edax_nodes"], totals["bz_nodes"]
    edax_s, bz_s = totals["edax_s"], totals["bz_s"]
    print(f"total: {last - first + 1} positions, {wrong} wrong; "
          f"Edax {int(edax_nodes):,} nodes in {edax_s:.2f} s "
          f"({_rate(int(edax_nodes), edax_s)} M nodes/s); "
          f"boardzoo {int(bz_nodes):,} nodes in {bz_s:.2f} s "
          f"({_rate(int(bz_nodes), bz_s)} M nodes/s)")  # fmt: skip
    print(f"boardzoo/Edax: {_ratio(bz_s, edax_s)} the time, {_ratio(bz_nodes, edax_nodes)} the "
          f"nodes; load average {_load()}")  # fmt: skip
    return 1 if wrong else 0


def _fail(message: str) -> NoReturn:
    """Stop the benchmark with exit status 2 (1 is for a wrong score)."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def _ratio(numerator: float, denominator: float) -> str:
    """``numerator / denominator`` as ``1.23x``, or ``-`` when the denominator is 0."""
    return f"{numerator / denominator:.2f}x" if denominator > 0 else "-"


def _load() -> str:
    """The machine's load averages over 1, 5 and 15 minutes."""
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
