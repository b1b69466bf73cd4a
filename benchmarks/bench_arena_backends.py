"""Throughput and per-game overhead of the arena's backends; the driver's costs at scale.

    python benchmarks/bench_arena_backends.py            # full run (a few minutes)
    python benchmarks/bench_arena_backends.py --quick    # a smoke run
    python benchmarks/bench_arena_backends.py --no-ray   # the local backend only

Figures, printed, nothing asserted:

- games/s of ``random`` vs ``random`` at TicTacToe (the arena's own cost: the agents take
  microseconds) on the local backend and on Ray, with 1 and 2 workers, agents in processes of
  their own (``isolate=True``, the default) or in the worker (``isolate=False``). Each run plays
  ``--games`` games through :func:`~boardzoo.arena.run_games`; the clock starts when the first
  ``2 * workers`` games are recorded, so starting processes and actors (the warm-up, shown
  apart as the seconds to those first records) is left out. Medians of ``--repeats`` runs,
  the configurations taking turns so that a change in the machine's load hits them all;
- per-game overhead: the seconds a worker spends per game (``workers / (games/s)``) less the
  time the agents spent moving (the records' ``move_times``, measured by the arena from sending
  the position to receiving the move: the pipe to an agent's process is counted as moving);
- the driver's CPU time per game (this process, every thread: with the local backend the
  referees play here; with Ray only dispatching and collecting), what bounds the games/s of
  one driver;
- what a driver of a 100-node plan pays per game or per broadcast: appending a record to the
  record file (:class:`~boardzoo.arena.RecordWriter`: write and fsync), a Ray actor call's
  round trip (empty, and with a game task in and a record out, what each game costs the
  driver), and ``ray.put`` of a blob of weights of a few MB with an actor's ``ray.get`` of it
  (one node: no network is crossed).

Ray runs only inside a loopback-only namespace made by the test harness ``tests/raycluster.py``
(one node, ``--ray-cpus`` CPUs, on 127.0.0.1): this script runs itself there with
``--inside-namespace`` and reads back one JSON line. Where namespaces or Ray are unavailable the
Ray rows are skipped with the reason.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boardzoo.arena import GameRecord

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
GAME = "tictactoe"
AGENTS = ("random", "random")
WEIGHT_MB = (1, 4, 16)  # blob sizes for ray.put (the harness gives each node 80 MB of store)


# --- measuring ------------------------------------------------------------------------------


def one_run(
    backend: str, workers: int, isolate: bool, games: int, seed: int, address: str | None = None
) -> dict[str, float]:
    """Play ``games`` games on a fresh backend; games/s and seconds a game after the warm-up."""
    from boardzoo.arena import (
        ArenaSettings,
        GameTask,
        agent_config,
        make_backend,
        match_options,
        run_games,
    )
    from boardzoo.arena.settings import make_settings

    arena = ArenaSettings(
        games=games,
        seed=seed,
        workers=workers,
        backend=backend,
        address=address,
        isolate=isolate,
        progress=False,
    )
    match = make_settings(GAME, AGENTS, match_options(GAME), arena)
    configs = (agent_config(AGENTS[0]), agent_config(AGENTS[1]))
    tasks = (GameTask(match, i, AGENTS, configs) for i in range(games))
    stamps: list[float] = []
    cpu: list[float] = []  # this process's CPU time (every thread), as each record arrives
    moving: list[float] = []

    def recorded(record: Any) -> None:
        stamps.append(time.perf_counter())
        cpu.append(time.process_time())
        moving.append(sum(t for t in record["move_times"] if t is not None))

    start = time.perf_counter()
    run_games(tasks, make_backend(arena), recorded)
    warm = 2 * workers  # the first games wait for processes (and actors) to start
    if len(stamps) <= warm + 1:
        raise ValueError(f"{games} games are too few to leave out a warm-up of {warm}")
    played = len(stamps) - warm
    seconds = stamps[-1] - stamps[warm - 1]
    rate = played / seconds
    moves = statistics.fmean(moving[warm:])
    return {
        "rate": rate,
        "overhead": workers / rate - moves,
        "moving": moves,
        "driver_cpu": (cpu[-1] - cpu[warm - 1]) / played,
        "warmup": stamps[warm - 1] - start,
    }


def backend_rows(
    backend: str,
    configs: Sequence[tuple[int, bool]],
    games: int,
    repeats: int,
    address: str | None = None,
) -> list[dict[str, Any]]:
    """Each configuration ``(workers, isolate)`` ``repeats`` times, taking turns; medians."""
    runs: dict[tuple[int, bool], list[dict[str, float]]] = {c: [] for c in configs}
    for repeat in range(repeats):
        for workers, isolate in configs:
            run = one_run(backend, workers, isolate, games, seed=repeat, address=address)
            runs[(workers, isolate)].append(run)
    rows = []
    for (workers, isolate), done in runs.items():
        row: dict[str, Any] = {"backend": backend, "workers": workers, "isolate": isolate}
        for key in ("rate", "overhead", "moving", "driver_cpu", "warmup"):
            row[key] = statistics.median(run[key] for run in done)
        row["rates"] = [run["rate"] for run in done]
        rows.append(row)
    return rows


def call_seconds(work: Callable[[], Any], calls: int) -> list[float]:
    """Seconds of each of ``calls`` calls of ``work``."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def median_seconds(work: Callable[[], Any], calls: int) -> float:
    """Median seconds of ``calls`` calls of ``work`` (each timed alone)."""
    return statistics.median(call_seconds(work, calls))


def sample_record() -> GameRecord:
    """A real record (TicTacToe, random agents), played in this process."""
    from boardzoo.arena import play_match

    result = play_match(GAME, AGENTS, games=1, isolate=False, progress=False)
    return result.records[0]


def record_append_seconds(record: GameRecord, calls: int, folder: str | None) -> dict[str, float]:
    """Seconds of one :meth:`RecordWriter.append` (write, flush, fsync): median and 90th
    percentile; and the median of the same line written and flushed without the fsync."""
    from boardzoo.arena import RecordWriter
    from boardzoo.arena.record_writing import record_line

    with tempfile.TemporaryDirectory(dir=folder) as where:
        with RecordWriter(Path(where) / "bench.jsonl") as writer:
            synced = call_seconds(lambda: writer.append(record), calls)
        with open(Path(where) / "plain.jsonl", "ab") as plain:

            def unsynced() -> None:
                plain.write(record_line(record).encode())
                plain.flush()

            flushed = median_seconds(unsynced, calls)
    return {
        "median": statistics.median(synced),
        "p90": statistics.quantiles(synced, n=10)[-1],
        "no_fsync": flushed,
    }


def ray_driver_costs(calls: int, repeats: int) -> dict[str, Any]:
    """Actor-call round trips and ``ray.put``/``ray.get`` of weight blobs (Ray connected)."""
    import numpy as np
    import ray

    from boardzoo.arena import GameTask, agent_config, match_options
    from boardzoo.arena.settings import ArenaSettings, make_settings

    @ray.remote(num_cpus=0)
    class Echo:
        def noop(self) -> None:
            return None

        def game(self, task: Any, record: dict[str, Any]) -> dict[str, Any]:
            return record  # what a GameWorker's play returns, for a task like a game's

        def size(self, blob: Any) -> int:
            return len(blob)

    actor = Echo.remote()  # type: ignore[attr-defined]
    ray.get(actor.noop.remote())
    arena = ArenaSettings(progress=False)
    match = make_settings(GAME, AGENTS, match_options(GAME), arena)
    task = GameTask(match, 0, AGENTS, (agent_config(AGENTS[0]), agent_config(AGENTS[1])))
    record = sample_record()
    for _ in range(20):  # warm the paths
        ray.get(actor.game.remote(task, record))
    costs: dict[str, Any] = {
        "call_empty": median_seconds(lambda: ray.get(actor.noop.remote()), calls),
        "call_game": median_seconds(lambda: ray.get(actor.game.remote(task, record)), calls),
        "weights": {},
    }
    rng = np.random.default_rng(0)
    for megabytes in WEIGHT_MB:
        blob = rng.standard_normal(megabytes * 2**20 // 4).astype(np.float32)
        puts, gets = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            ref = ray.put(blob)
            puts.append(time.perf_counter() - start)
            start = time.perf_counter()
            ray.get(actor.size.remote(ref))  # the actor maps the blob from the node's store
            gets.append(time.perf_counter() - start)
            del ref
        costs["weights"][megabytes] = {
            "put": statistics.median(puts),
            "actor_get": statistics.median(gets),
        }
    ray.kill(actor)
    return costs


# --- Ray, inside the loopback namespace -------------------------------------------------------


def inside_namespace(args: argparse.Namespace) -> None:
    """The Ray half: start a one-node cluster here, measure, print ``RESULT {json}``."""
    import raycluster as rc  # type: ignore[import-not-found]  # tests/, on sys.path

    out: dict[str, Any] = {}
    try:
        start = time.perf_counter()
        address = rc.start_head(num_cpus=args.ray_cpus)
        import ray

        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        out["cluster_start"] = time.perf_counter() - start
        out["rows"] = backend_rows(
            "ray", configurations(args), args.games, args.repeats, address=address
        )
        out["driver"] = ray_driver_costs(args.calls, args.weight_repeats)
    except BaseException as error:
        import traceback

        out["error"] = f"{error!r}\n{traceback.format_exc()}"
    finally:
        rc.stop_all()
    print("RESULT " + json.dumps(out), flush=True)


def ray_figures(args: argparse.Namespace) -> dict[str, Any]:
    """Run this script with ``--inside-namespace`` in a loopback-only namespace."""
    sys.path.insert(0, str(TESTS))
    import raycluster  # type: ignore[import-not-found]

    reason = raycluster.namespace_unavailable()
    if reason is not None:
        return {"skipped": reason}
    argv = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--inside-namespace",
        f"--games={args.games}",
        f"--repeats={args.repeats}",
        f"--calls={args.calls}",
        f"--weight-repeats={args.weight_repeats}",
        f"--ray-cpus={args.ray_cpus}",
        *(["--isolate-only"] if args.isolate_only else []),
    ]
    pythonpath = os.pathsep.join(
        filter(None, [str(TESTS), str(REPO), os.environ.get("PYTHONPATH")])
    )
    try:
        done = raycluster.run_in_loopback_namespace(
            argv, timeout=args.ray_timeout, env={"PYTHONPATH": pythonpath}, cwd=REPO
        )
    except subprocess.TimeoutExpired:
        return {"error": f"the Ray half ran past {args.ray_timeout} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        return {"error": f"no result (exit status {done.returncode}):\n{done.stderr[-3000:]}"}
    result: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    return result


# --- printing -------------------------------------------------------------------------------


def configurations(args: argparse.Namespace) -> list[tuple[int, bool]]:
    isolations = (True,) if args.isolate_only else (True, False)
    return [(workers, isolate) for isolate in isolations for workers in (1, 2)]


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'backend':7}  {'isolate':7}  {'workers':>7}  {'games/s':>8}  {'x 1 worker':>10}  "
        f"{'overhead ms/game':>16}  {'moving ms/game':>14}  {'driver CPU ms/game':>18}  "
        f"{'warm-up s':>9}  runs (games/s)"
    )
    single = {(r["backend"], r["isolate"]): r["rate"] for r in rows if r["workers"] == 1}
    for row in rows:
        base = single.get((row["backend"], row["isolate"]))
        speedup = f"{row['rate'] / base:.2f}x" if base else "-"
        runs = " ".join(f"{rate:.0f}" for rate in row["rates"])
        print(
            f"{row['backend']:7}  {row['isolate']!s:7}  {row['workers']:>7}  "
            f"{row['rate']:>8.1f}  {speedup:>10}  {row['overhead'] * 1e3:>16.2f}  "
            f"{row['moving'] * 1e3:>14.2f}  {row['driver_cpu'] * 1e3:>18.2f}  "
            f"{row['warmup']:>9.1f}  {runs}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    parser.add_argument("--games", type=int, help="games a run (default 400; quick 40)")
    parser.add_argument("--repeats", type=int, help="runs a configuration (default 5; quick 1)")
    parser.add_argument("--calls", type=int, help="timed calls a driver figure (default 500)")
    parser.add_argument("--weight-repeats", type=int, help="ray.put a blob size (default 10)")
    parser.add_argument("--isolate-only", action="store_true", help="only isolate=True")
    parser.add_argument("--no-ray", action="store_true", help="the local backend only")
    parser.add_argument("--ray-cpus", type=int, default=2, help="CPUs of the Ray node")
    parser.add_argument("--ray-timeout", type=float, default=900, help="seconds for the Ray half")
    parser.add_argument("--record-dir", help="folder for the record file (default: temp dir)")
    parser.add_argument("--inside-namespace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.games = args.games or (40 if args.quick else 400)
    args.repeats = args.repeats or (1 if args.quick else 5)
    args.calls = args.calls or (50 if args.quick else 500)
    args.weight_repeats = args.weight_repeats or (2 if args.quick else 10)
    if args.inside_namespace:
        inside_namespace(args)
        return

    cores = os.cpu_count()
    print(
        f"python {sys.version.split()[0]}, {cores} cores, load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; {GAME} {AGENTS[0]} vs {AGENTS[1]}, "
        f"{args.games} games a run, median of {args.repeats} runs, first 2 x workers games left "
        "out"
    )
    started = time.perf_counter()
    rows = backend_rows("local", configurations(args), args.games, args.repeats)
    ray_half: dict[str, Any] = {"skipped": "--no-ray"} if args.no_ray else ray_figures(args)
    rows += ray_half.get("rows", [])
    print()
    print_rows(rows)
    if "skipped" in ray_half:
        print(f"ray: skipped ({ray_half['skipped']})")
    if "error" in ray_half:
        print(f"ray: failed: {ray_half['error']}")

    print()
    print("driver costs")
    record = sample_record()
    size = len(json.dumps(record, separators=(",", ":")))
    append = record_append_seconds(record, args.calls, args.record_dir)
    where = args.record_dir or tempfile.gettempdir()
    print(
        f"  record append (write + fsync, {size} B record, {where}): median "
        f"{append['median'] * 1e3:.3f} ms, 90th percentile {append['p90'] * 1e3:.3f} ms -> at "
        f"most {1 / append['median']:,.0f} records/s from one writer; without the fsync "
        f"{append['no_fsync'] * 1e3:.4f} ms"
    )
    driver = ray_half.get("driver")
    if driver:
        print(f"  ray cluster start (1 node): {ray_half['cluster_start']:.1f} s")
        print(f"  ray actor call round trip, empty: {driver['call_empty'] * 1e3:.3f} ms")
        print(
            f"  ray actor call round trip, game task in / record out: "
            f"{driver['call_game'] * 1e3:.3f} ms (one call at a time: "
            f"{1 / driver['call_game']:,.0f} calls/s)"
        )
        for megabytes, cost in driver["weights"].items():
            print(
                f"  ray.put {megabytes} MB of weights: {cost['put'] * 1e3:.2f} ms; an actor's "
                f"ray.get of it (same node): {cost['actor_get'] * 1e3:.2f} ms"
            )
    print(
        f"\n{time.perf_counter() - started:.0f} s; load average now "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":  # agents run in processes that import this script again
    main()
