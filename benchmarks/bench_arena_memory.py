"""The arena driver's memory over a match that never ends: flat, or growing with every game?

    python benchmarks/bench_arena_memory.py                   # 60 s of tictactoe random vs random
    python benchmarks/bench_arena_memory.py --seconds 120 --workers 2

Runs ``boardzoo arena GAME AGENT AGENT --games 1000000000 --no-progress --out FILE`` in a new
process for ``--seconds``, reads the driver's resident memory (``VmRSS`` of that process, not of
its worker processes) from ``/proc`` every second, and kills it (and its workers) at the end.
Printed, nothing asserted: the driver's RSS and the games recorded so far at 20 s, 60 s (and
every ``--every`` seconds), then the growth per game between the first and the last sample.
Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_kib(pid: int) -> int | None:
    """The resident memory of process ``pid`` in KiB (``None`` once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def games_recorded(path: Path) -> int:
    """Complete lines in the record file."""
    try:
        with open(path, "rb") as source:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: source.read(1 << 20), b""))
    except OSError:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (default: 60)")
    parser.add_argument("--game", default="tictactoe", help="a catalog game (default: tictactoe)")
    parser.add_argument("--agent", default="random", help="the agent playing itself (random)")
    parser.add_argument("--workers", type=int, default=1, help="arena workers (default: 1)")
    parser.add_argument(
        "--every", type=float, default=20.0, help="seconds between printed samples (default: 20)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "games.jsonl"
        command = [sys.executable, "-m", "boardzoo", "arena", args.game, args.agent, args.agent,
                   "--games", "1000000000", "--workers", str(args.workers), "--no-progress",
                   "--out", str(out)]  # fmt: skip
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        start = time.monotonic()
        marks = sorted({*(args.every * k for k in range(1, int(args.seconds // args.every) + 1)),
                        args.seconds})  # fmt: skip
        samples: list[tuple[float, int, int]] = []
        print(f"{'seconds':>8} {'games':>9} {'driver RSS MiB':>15}")
        try:
            for mark in marks:
                while time.monotonic() - start < mark:
                    if process.poll() is not None:
                        error = process.stderr.read().decode() if process.stderr else ""
                        raise SystemExit(f"the arena stopped early:\n{error[-2000:]}")
                    time.sleep(min(1.0, max(0.0, mark - (time.monotonic() - start))))
                rss = rss_kib(process.pid)
                if rss is None:
                    break
                games = games_recorded(out)
                samples.append((mark, games, rss))
                print(f"{mark:8.0f} {games:9d} {rss / 1024:15.1f}", flush=True)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the driver and its workers
            process.wait()
    if len(samples) >= 2 and samples[-1][1] > samples[0][1]:
        (_, games0, rss0), (_, games1, rss1) = samples[0], samples[-1]
        per_game = (rss1 - rss0) * 1024 / (games1 - games0)
        print(f"growth from {samples[0][0]:.0f} s to {samples[-1][0]:.0f} s: "
              f"{per_game:.0f} bytes a game")  # fmt: skip


if __name__ == "__main__":
    main()
