"""The exact endgame solver on the FFO test positions: scores checked, nodes and time printed.

    python benchmarks/bench_endgame.py --ffo ../shared/ffo/fforum-40-59.obf --first 40 --last 49
    python benchmarks/bench_endgame.py --ffo ../shared/ffo/fforum-1-19.obf --first 1 --last 19
    python benchmarks/bench_endgame.py --ffo ../shared/ffo/fforum-40-59.obf --last 44 --wld
    python benchmarks/bench_endgame.py --ffo ../shared/ffo/fforum-40-59.obf --first 50 \
        --record benchmarks/results/ffo-50-59.jsonl   # hours: resumable, a line per position

The FFO positions (the French Othello Federation's endgame test set, as Edax and Zebra report
them) are read from the file given, never copied into the project: one position a line, the 64
squares a1..h8 and the side to move, then the published score of each move (``G8:+18``). For
each position this prints the empties, the solver's best move and score, the published best
score, whether both agree, nodes, nodes/s and seconds; then the totals. Each position is solved
with a fresh transposition table (as a single solve would be), one core. Exits with status 1 if
any score or move is wrong. With ``--record FILE`` each solved position is appended to FILE (one
JSON line) as it finishes, and a position already there is not solved again (its line is printed
from the file): a run over the long positions (#50-#59: 26-34 empties) resumes where it stopped.

For comparison: a strong outside program (Edax, one thread) solved #40-#49 in 201.8 s on a 2-core
development machine in 2026-11; boardzoo's exact solve takes 147.5 s there
(docs/guides/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from boardzoo.games import ReversiState
from boardzoo.gametree.solve import forget_tables, solve

_NUMBERED = re.compile(r"fforum-(\d+)-(\d+)\.obf$")


def _published(line: str) -> dict[str, int]:
    return {
        part.split(":")[0].strip().lower(): int(part.split(":")[1])
        for part in line.split(";")[1:]
        if ":" in part
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ffo", type=Path, required=True, help="an FFO .obf file")
    parser.add_argument("--first", type=int, help="first position number (default: the file's)")
    parser.add_argument("--last", type=int, help="last position number (default: the file's)")
    parser.add_argument("--wld", action="store_true", help="win/draw/loss solves only")
    parser.add_argument(
        "--record",
        type=Path,
        help="append each result to this JSON-lines file and skip the positions already in it",
    )
    args = parser.parse_args(argv)
    if not args.ffo.is_file():
        parser.error(f"--ffo {args.ffo}: no such file (the FFO files live in ../shared/ffo)")
    lines = [line for line in args.ffo.read_text().splitlines() if line.strip()]
    match = _NUMBERED.search(args.ffo.name)
    base = int(match.group(1)) if match else 1
    first = args.first if args.first is not None else base
    last = args.last if args.last is not None else base + len(lines) - 1
    if not base <= first <= last < base + len(lines):
        parser.error(f"positions {first}..{last} are not all in {args.ffo} ({base}..)")

    done = _recorded(args.record, args.wld)
    solve(ReversiState.initial(4))  # compile (or load the cache) before timing
    total_seconds = total_nodes = wrong = 0
    print(f"{'#':>3} {'empties':>7} {'move':>4} {'score':>5} {'published':>9} {'':>5} "
          f"{'nodes':>14} {'M nodes/s':>9} {'seconds':>8}")  # fmt: skip
    for number in range(first, last + 1):
        line = lines[number - base]
        state = ReversiState.from_obf(line)
        published = _published(line)
        best = max(published.values())
        if number in done:
            row = done[number]
        else:
            forget_tables()  # a fresh table per position
            result = solve(state, exact=not args.wld, max_empties=64)
            row = {"number": number, "wld": args.wld, "score": result.score,
                   "move": state.game.action_name(result.best_moves[0]),
                   "nodes": result.nodes, "seconds": round(result.seconds, 6)}  # fmt: skip
            if args.record is not None:
                with args.record.open("a") as out:
                    out.write(json.dumps(row) + "\n")
        move, score, nodes, seconds = row["move"], row["score"], row["nodes"], row["seconds"]
        if args.wld:
            ok = (score > 0) == (best > 0) and (score < 0) == (best < 0)
        else:
            ok = score == best and published.get(move) == best
        wrong += not ok
        total_seconds += seconds
        total_nodes += nodes
        empties = 64 - bin(state.black | state.white).count("1")
        print(f"{number:>3} {empties:>7} {move:>4} {score:>+5d} {best:>+9d} "
              f"{'ok' if ok else 'WRONG':>5} {nodes:>14,} {_rate(nodes, seconds):>9} "
              f"{seconds:>8.2f}", flush=True)  # fmt: skip
    print(f"total: {last - first + 1} positions, {wrong} wrong, {total_nodes:,} nodes, "
          f"{total_seconds:.1f} s ({_rate(total_nodes, total_seconds)} M nodes/s)")  # fmt: skip
    return 1 if wrong else 0


def _rate(nodes: int, seconds: float) -> str:
    """Millions of nodes a second, or ``-`` for a solve too short to time."""
    return f"{nodes / seconds / 1e6:.1f}" if seconds >= 0.01 else "-"


def _recorded(record: Path | None, wld: bool) -> dict[int, dict[str, object]]:
    """The results already in ``record`` (of the same kind of solve), by position number."""
    if record is None or not record.is_file():
        return {}
    rows = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    return {int(row["number"]): row for row in rows if row.get("wld") == wld}


if __name__ == "__main__":
    sys.exit(main())
