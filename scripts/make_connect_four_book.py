"""Make Connect Four's opening book: every position of the first moves with its exact score.

    python scripts/make_connect_four_book.py --depth 4 --work runs/c4-book
    python scripts/make_connect_four_book.py --depth 6 --work runs/c4-book --workers 16 --minutes 50
    python scripts/make_connect_four_book.py --depth 6 --work runs/c4-book --moves --minutes 50

Every position with exactly ``--depth`` discs (one per mirror pair, none finished) is solved by
the exact solver (:mod:`boardzoo.gametree.connect_four`), each as it finishes appended to
``WORK/leaves-DEPTH.jsonl`` (its key, score, nodes and seconds): run the command again and it goes
on where it stopped; ``--minutes`` stops it cleanly after that many minutes. Once every position is
solved, the shallower positions follow by negamax (:func:`~boardzoo.gametree.connect_four_book.
complete_book`) and the book is written to ``--out`` (the shipped book by default), with the
command, the depth, the positions and the solver's seconds and nodes in the JSON beside it.

With ``--moves`` a best move of every leaf follows (one null-window search each, at its known
score: the first move that reaches it), appended to ``WORK/moves-DEPTH.jsonl`` in the same way;
the book then answers a leaf's best move at once, where otherwise only its score is known (its
children are beyond the book). The book is written with the moves found so far each time, so a
run stopped by ``--minutes`` ships what it found and the next goes on.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardzoo.games.connect_four import COLS, ConnectFourState
from boardzoo.gametree.connect_four_book import (
    BOOK_PATH,
    canonical_key,
    complete_book,
    position_key,
    positions_at,
    save_book,
)
from boardzoo.gametree.solve import move_reaching, solve

MAX_DEPTH = 12  # positions with 12 discs: millions; beyond, the search alone is fast
PROGRESS_EVERY = 20  # positions between two lines of progress


def _solve(state: ConnectFourState) -> dict[str, float | int]:
    """One leaf, exactly; the table is kept between leaves (what it holds stays true)."""
    result = solve(state, table_bits=24)
    return {
        "key": canonical_key(state),
        "score": result.score,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 4),
    }


def _best_move(task: tuple[ConnectFourState, int]) -> dict[str, float | int]:
    """A best column of one leaf of known score (:func:`~boardzoo.gametree.solve.move_reaching`;
    the table is kept between leaves), for the orientation the book keys."""
    state, score = task
    result = move_reaching(state, score, table_bits=24)
    column = result.best_moves[0]
    if position_key(state) != canonical_key(state):
        column = COLS - 1 - column  # the book keys the mirror image
    return {
        "key": canonical_key(state),
        "move": column,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 4),
    }


def _progress(count: int, total: int, seconds: float) -> None:
    """A line of progress: positions solved this run, their rate and the time left."""
    left = (total - count) * seconds / count
    print(f"{count:,}/{total:,} solved in {seconds / 60:.1f} min, about {left / 60:.0f} min left",
          flush=True)  # fmt: skip


def _done(path: Path) -> dict[int, dict[str, float | int]]:
    """The leaves already solved in ``path``, by key (a last line cut short is skipped)."""
    done: dict[int, dict[str, float | int]] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            done[int(row["key"])] = row
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, required=True, help=f"discs, 1..{MAX_DEPTH}")
    parser.add_argument("--work", type=Path, required=True, help="folder for the solved leaves")
    parser.add_argument("--out", type=Path, default=BOOK_PATH, help="the book (.npz) to write")
    parser.add_argument("--workers", type=int, default=1, help="processes solving at once")
    parser.add_argument(
        "--moves",
        action="store_true",
        help="then also a best move of every leaf (the book answers them too)",
    )
    parser.add_argument("--minutes", type=float, help="stop after this long (run again to go on)")
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= MAX_DEPTH:
        parser.error(f"--depth {args.depth}: give 1..{MAX_DEPTH}")
    if args.workers < 1:
        parser.error(f"--workers {args.workers}: give 1 or more")
    if args.minutes is not None and args.minutes <= 0:
        parser.error(f"--minutes {args.minutes}: give a positive number")
    if args.out.suffix != ".npz":
        parser.error(f"--out {args.out}: the book is an .npz file")
    args.work.mkdir(parents=True, exist_ok=True)
    stop = None if args.minutes is None else time.monotonic() + 60 * args.minutes
    leaves = list(positions_at(args.depth))
    record = args.work / f"leaves-{args.depth}.jsonl"
    keys = [canonical_key(state) for state in leaves]
    done, complete = _run(_solve, leaves, keys, record, args.workers, stop)
    if not complete:
        return 0
    scores = complete_book({key: int(row["score"]) for key, row in done.items()}, args.depth)
    moves: dict[int, int] = {}
    if args.moves:
        tasks = [(state, int(done[canonical_key(state)]["score"])) for state in leaves]
        moves_record = args.work / f"moves-{args.depth}.jsonl"
        found, _ = _run(_best_move, tasks, keys, moves_record, args.workers, stop)
        moves = {key: int(row["move"]) for key, row in found.items()}
    meta = {
        "command": "python scripts/make_connect_four_book.py " + " ".join(sys.argv[1:]),
        "leaves": len(leaves),
        "solver_seconds": round(sum(float(row["seconds"]) for row in done.values()), 1),
        "solver_nodes": sum(int(row["nodes"]) for row in done.values()),
        "made": time.strftime("%Y-%m-%d"),
    }
    if args.moves:  # the moves found so far (the book is written as they come)
        meta["leaves_with_a_move"] = len(moves)
        meta["move_seconds"] = round(sum(float(row["seconds"]) for row in found.values()), 1)
    save_book(args.out, scores, args.depth, meta, moves)
    print(
        f"wrote {args.out}: {len(scores):,} positions with at most {args.depth} discs"
        + (
            f", a best move for {len(moves):,} of the {len(leaves):,} with {args.depth}"
            if moves
            else ""
        )
    )
    return 0


def _run(
    work: Callable[[Any], dict[str, float | int]],
    tasks: Sequence[Any],
    keys: Sequence[int],
    record: Path,
    workers: int,
    stop: float | None,
) -> tuple[dict[int, dict[str, float | int]], bool]:
    """Do ``work`` on every task (a leaf, or a leaf and its score; ``keys``: each one's leaf's)
    not yet in ``record``, in ``workers`` processes, each row appended to ``record`` as it
    comes; the rows by their leaf's key, and whether every task has one (``False``: ``stop``, a
    ``time.monotonic``, came first)."""
    done = _done(record)
    todo = [task for task, key in zip(tasks, keys, strict=True) if key not in done]
    print(f"{record.name}: {len(tasks):,} positions, {len(done):,} done before")
    start = time.monotonic()
    if todo:
        with (
            multiprocessing.get_context("spawn").Pool(workers) as pool,
            record.open("a") as out,
        ):
            for count, row in enumerate(pool.imap_unordered(work, todo), start=1):
                out.write(json.dumps(row) + "\n")
                out.flush()
                done[int(row["key"])] = row
                if count % PROGRESS_EVERY == 0 or count == len(todo):
                    _progress(count, len(todo), time.monotonic() - start)
                if stop is not None and time.monotonic() > stop:
                    pool.terminate()
                    break
    missing = sum(key not in done for key in keys)
    if missing:
        print(f"stopped: {missing:,} positions left; run the same command again to go on")
    return done, not missing


if __name__ == "__main__":
    sys.exit(main())
