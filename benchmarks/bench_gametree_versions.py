"""Two checkouts' depth-first searches side by side: exact solves, alpha-beta, the engine.

    python benchmarks/bench_gametree_versions.py --old ../old
    python benchmarks/bench_gametree_versions.py --old ../old --only ffo --first 40 --last 44 \
        --repeat 3
    python benchmarks/bench_gametree_versions.py --old ../old --only alphabeta engine \
        --positions 10 --depth 7 --time-limit 0.5
    python benchmarks/bench_gametree_versions.py --old ../old --only connect_four \
        --discs 10 12 --positions 5

``--old`` and ``--new`` are two checkouts of the project (``--new`` by default the one this script
lives in; ``--old`` e.g. a git worktree of an older commit: ``git worktree add ../old COMMIT``).
Each is measured by a program of its own, ``_gametree_probe.py`` beside this script, started once
with that checkout's folder as working directory and ``PYTHONPATH`` (and with Python's finder of
an editable install taken out, so that nothing is imported from another checkout); see that file
for its JSON line protocol and for the APIs it uses, the ones both sides of the redesign of the
searches into ``boardzoo.gametree`` have. Both programs compile (or load) their searches before
any timing. Then the measurements run item by item, each item in both checkouts before the next
one, the order of the two alternating, ``--repeat`` times (seconds and rates are then medians,
nodes those of the first run), so that the machine's load hits both alike. Each prints a table
with both checkouts' figures and the ratio new/old:

- ``ffo``: the exact solve of the FFO positions ``--first`` to ``--last`` (#40-#49 of
  ``--ffo``, by default ``../shared/ffo/fforum-40-59.obf`` beside the checkout), each from a
  fresh table of 2**22 entries: best move and score (``WRONG`` when it is not the published best
  score), nodes and seconds (the solver's own), and the totals;
- ``alphabeta``: ``AlphaBetaAgent(depth=--depth, exact_empties=0, seed=--seed)`` (depth 6, seed
  0) on the Reversi positions of the first ``--positions`` (20) openings of ``--openings`` (the
  XOT small list beside the checkout): nodes, thousands of nodes a second, and whether both chose
  the same move with the same score (they must: the count of differences is printed);
- ``engine``: ``EngineAgent(time_limit=--time-limit, seed=--seed)`` (1 s), prepared, from the same
  positions: the depth reached (median and mean over the positions), nodes a second (median);
- ``connect_four``: the exact solve of Connect Four positions with ``--discs`` (10 12 14) discs,
  ``--positions`` of each, made by random legal moves from the start (seeded by ``--seed``; the
  new checkout's program makes them, finished games skipped, and both solve the same), each from
  a fresh table: median, largest and total seconds per number of discs, the ratio of the total
  nodes, and whether both scores agree.

Then the command, the machine (cores, load average before and after) and the date. Exit status 1
when an exact score is wrong (an FFO score that is not the published one, Connect Four scores
that differ) or the alpha-beta searches differ in a move or score; 2 when a checkout's program
fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().with_name("_gametree_probe.py")
FFO = ROOT.parent / "shared" / "ffo" / "fforum-40-59.obf"
XOT = ROOT.parent / "shared" / "openings" / "xot-small.txt"
MEASUREMENTS = ("ffo", "alphabeta", "engine", "connect_four")
SIDES = ("old", "new")
_NUMBERED = re.compile(r"fforum-(\d+)-(\d+)\.obf$")  # as bench_endgame.py reads FFO files


class ProbeError(RuntimeError):
    """A checkout's program failed: it ended, or answered an error."""


class _Probe:
    """``_gametree_probe.py`` running in one checkout, asked one JSON line at a time."""

    def __init__(self, side: str, checkout: Path) -> None:
        self.side = side
        self.checkout = checkout
        env = dict(os.environ, PYTHONPATH=str(checkout))  # that checkout's package only
        self.process = subprocess.Popen(
            [sys.executable, str(PROBE)], cwd=checkout, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1,
        )  # fmt: skip
        self.ready = self._read()
        imported = Path(self.ready.get("boardzoo", ""))
        problem = None
        if not imported.is_relative_to(checkout):
            problem = f"imported boardzoo from {imported}: PYTHONPATH did not take effect"
        elif self.ready.get("foreign"):
            problem = f"imported from elsewhere: {', '.join(self.ready['foreign'])}"
        if problem is not None:
            self.close()
            raise ProbeError(f"the program meant to run {checkout} {problem}")

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            raise ProbeError(
                f"the {self.side} checkout's program ({self.checkout}) ended (exit code {code}); "
                "its error is on stderr above"
            )
        answer = json.loads(line)
        if "error" in answer:
            raise ProbeError(f"the {self.side} checkout ({self.checkout}): {answer['error']}")
        return answer

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps({"kind": kind, **fields}) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # reading tells how it ended
        return self._read()

    def close(self) -> None:
        if self.process.poll() is None and self.process.stdin is not None:
            try:
                self.process.stdin.close()
                self.process.wait(10.0)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()


def _both(
    probes: dict[str, _Probe], index: int, repeat: int, kind: str, **fields: Any
) -> dict[str, list[dict[str, Any]]]:
    """Ask both checkouts the same request ``repeat`` times, the first one alternating with
    ``index`` and each time: old-new, new-old, ..."""
    answers: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    for turn in range(repeat):
        order = SIDES if (index + turn) % 2 == 0 else SIDES[::-1]
        for side in order:
            answers[side].append(probes[side].ask(kind, **fields))
    return answers


def _median(answers: list[dict[str, Any]], key: str) -> float:
    return statistics.median(answer[key] for answer in answers)


def _ratio(new: float, old: float) -> str:
    return f"{new / old:.2f}" if old > 0 else "-"


def _rate(nodes: float, seconds: float, scale: float = 1e3) -> float:
    """Nodes a second over ``scale`` (0 for a search too short to time)."""
    return nodes / seconds / scale if seconds > 0 else 0.0


# --- the measurements --------------------------------------------------------------------------


def _published(line: str) -> dict[str, int]:
    """The published scores of an FFO line's moves: ``bench_endgame.py``'s reading, not imported
    from there, which would import this checkout's package into a process that measures none."""
    return {
        part.split(":")[0].strip().lower(): int(part.split(":")[1])
        for part in line.split(";")[1:]
        if ":" in part
    }


def measure_ffo(probes: dict[str, _Probe], args: argparse.Namespace) -> int:
    """The FFO table; returns the number of wrong scores."""
    lines = [line for line in args.ffo.read_text().splitlines() if line.strip()]
    match = _NUMBERED.search(args.ffo.name)
    base = int(match.group(1)) if match else 1
    what = "median " if args.repeat > 1 else ""
    print(f"\nffo: exact solves of {args.ffo.name} #{args.first}-#{args.last}, fresh table of "
          f"2**22 entries each; {what}seconds")  # fmt: skip
    print(f"{'#':>3} {'empties':>7} {'best':>4} {'old':>17} {'new':>17} {'old nodes':>13} "
          f"{'new nodes':>13} {'ratio':>5} {'old s':>8} {'new s':>8} {'ratio':>5}")  # fmt: skip
    wrong = 0
    totals = {"old_nodes": 0, "new_nodes": 0, "old_s": 0.0, "new_s": 0.0}
    for index, number in enumerate(range(args.first, args.last + 1)):
        line = lines[number - base]
        published = _published(line)
        best = max(published.values()) if published else None
        answers = _both(probes, index, args.repeat, "ffo", obf=line.split(";")[0].strip())
        cells = {}
        for side in SIDES:
            scores = {answer["score"] for answer in answers[side]}
            first = answers[side][0]
            ok = best is None or (scores == {best} and published.get(first["move"]) == best)
            wrong += not ok
            cells[side] = f"{first['move']} {first['score']:+d}{'' if ok else ' WRONG'}"
            totals[f"{side}_nodes"] += first["nodes"]
            totals[f"{side}_s"] += _median(answers[side], "seconds")
        old_nodes, new_nodes = answers["old"][0]["nodes"], answers["new"][0]["nodes"]
        old_s, new_s = _median(answers["old"], "seconds"), _median(answers["new"], "seconds")
        print(f"{number:>3} {answers['new'][0]['empties']:>7} "
              f"{'?' if best is None else f'{best:+d}':>4} {cells['old']:>17} {cells['new']:>17} "
              f"{old_nodes:>13,} {new_nodes:>13,} {_ratio(new_nodes, old_nodes):>5} "
              f"{old_s:>8.3f} {new_s:>8.3f} {_ratio(new_s, old_s):>5}", flush=True)  # fmt: skip
    print(f"{'total':>34} {'':>17} {totals['old_nodes']:>13,} {totals['new_nodes']:>13,} "
          f"{_ratio(totals['new_nodes'], totals['old_nodes']):>5} {totals['old_s']:>8.3f} "
          f"{totals['new_s']:>8.3f} {_ratio(totals['new_s'], totals['old_s']):>5}")  # fmt: skip
    print(f"wrong scores: {wrong}" + (" (each WRONG above)" if wrong else ""))
    return wrong


def measure_alphabeta(probes: dict[str, _Probe], args: argparse.Namespace) -> int:
    """The alpha-beta table; returns the number of positions whose move or score differ."""
    what = "median " if args.repeat > 1 else ""
    print(f"\nalphabeta: depth={args.depth}, exact_empties=0, seed={args.seed}, on the positions "
          f"of {len(args.openings_list)} XOT openings; {what}k nodes/s")  # fmt: skip
    print(f"{'#':>3} {'opening':<18} {'old':>9} {'new':>9} {'old nodes':>11} {'new nodes':>11} "
          f"{'old kN/s':>9} {'new kN/s':>9} {'ratio':>5} {'same':>4}")  # fmt: skip
    differences = 0
    totals = {"old_nodes": 0, "new_nodes": 0, "old_s": 0.0, "new_s": 0.0}
    rates: dict[str, list[float]] = {side: [] for side in SIDES}
    for index, opening in enumerate(args.openings_list):
        answers = _both(probes, index, args.repeat, "alphabeta", opening=opening,
                        depth=args.depth, seed=args.seed)  # fmt: skip
        found = {(a["move"], a["score"]) for side in SIDES for a in answers[side]}
        same = len(found) == 1
        differences += not same
        row = {}
        for side in SIDES:
            first = answers[side][0]
            seconds = _median(answers[side], "seconds")
            totals[f"{side}_nodes"] += first["nodes"]
            totals[f"{side}_s"] += seconds
            rate = statistics.median(_rate(a["nodes"], a["seconds"]) for a in answers[side])
            rates[side].append(rate)
            row[side] = (f"{first['move']} {first['score']:+d}", first["nodes"], rate)
        old, new = row["old"], row["new"]
        print(f"{index + 1:>3} {opening:<18} {old[0]:>9} {new[0]:>9} {old[1]:>11,} {new[1]:>11,} "
              f"{old[2]:>9.0f} {new[2]:>9.0f} {_ratio(new[2], old[2]):>5} "
              f"{'yes' if same else 'NO':>4}", flush=True)  # fmt: skip
    old_rate = _rate(totals["old_nodes"], totals["old_s"])
    new_rate = _rate(totals["new_nodes"], totals["new_s"])
    print(f"{'all (nodes / seconds)':<22} {'':>19} {totals['old_nodes']:>11,} "
          f"{totals['new_nodes']:>11,} {old_rate:>9.0f} {new_rate:>9.0f} "
          f"{_ratio(new_rate, old_rate):>5}")  # fmt: skip
    old_median, new_median = statistics.median(rates["old"]), statistics.median(rates["new"])
    print(f"{'median of the positions':<66} {old_median:>9.0f} {new_median:>9.0f} "
          f"{_ratio(new_median, old_median):>5}")  # fmt: skip
    print(f"positions whose move or score differ: {differences}")
    return differences


def measure_engine(probes: dict[str, _Probe], args: argparse.Namespace) -> int:
    """The engine table (nothing in it fails the run)."""
    what = " (medians of the repeats)" if args.repeat > 1 else ""
    print(f"\nengine: time_limit={args.time_limit:g}, seed={args.seed}, on the positions of "
          f"{len(args.openings_list)} XOT openings{what}")  # fmt: skip
    print(f"{'#':>3} {'opening':<18} {'old depth':>9} {'new depth':>9} {'old kN/s':>9} "
          f"{'new kN/s':>9} {'ratio':>5} {'old s':>6} {'new s':>6}")  # fmt: skip
    depths: dict[str, list[float]] = {side: [] for side in SIDES}
    rates: dict[str, list[float]] = {side: [] for side in SIDES}
    for index, opening in enumerate(args.openings_list):
        answers = _both(probes, index, args.repeat, "engine", opening=opening,
                        time_limit=args.time_limit, seed=args.seed)  # fmt: skip
        row = {}
        for side in SIDES:
            depth = _median(answers[side], "depth")
            rate = statistics.median(_rate(a["nodes"], a["seconds"]) for a in answers[side])
            depths[side].append(depth)
            rates[side].append(rate)
            row[side] = (depth, rate, _median(answers[side], "seconds"))
        old, new = row["old"], row["new"]
        print(f"{index + 1:>3} {opening:<18} {old[0]:>9g} {new[0]:>9g} {old[1]:>9.0f} "
              f"{new[1]:>9.0f} {_ratio(new[1], old[1]):>5} {old[2]:>6.2f} "
              f"{new[2]:>6.2f}", flush=True)  # fmt: skip
    print(f"{'':>22} {'old':>9} {'new':>9} {'ratio':>9}")
    for name, values, digits in (
        ("median depth", depths, 1),
        ("mean depth", depths, 2),
        ("median kN/s", rates, 0),
    ):
        pick = statistics.mean if name.startswith("mean") else statistics.median
        old_value, new_value = pick(values["old"]), pick(values["new"])
        print(f"{name:>22} {old_value:>9.{digits}f} {new_value:>9.{digits}f} "
              f"{_ratio(new_value, old_value):>9}")  # fmt: skip
    return 0


def measure_connect_four(probes: dict[str, _Probe], args: argparse.Namespace) -> int:
    """The Connect Four table; returns the number of positions whose scores differ."""
    made = probes["new"].ask(
        "connect_four_positions", discs=args.discs, count=args.positions, seed=args.seed
    )["positions"]
    what = "median " if args.repeat > 1 else ""
    print(f"\nconnect_four: exact solves from a fresh table of 2**22 entries, of positions from "
          f"seeded random games (seed {args.seed}); {what}seconds")  # fmt: skip
    print(f"{'discs':>5} {'positions':>9} {'old median':>10} {'new median':>10} {'ratio':>5} "
          f"{'old max':>8} {'new max':>8} {'ratio':>5} {'old total':>9} {'new total':>9} "
          f"{'ratio':>5} {'nodes ratio':>11} {'differ':>6}")  # fmt: skip
    differences = index = 0
    for discs in args.discs:
        seconds: dict[str, list[float]] = {side: [] for side in SIDES}
        nodes = {side: 0 for side in SIDES}
        differ = 0
        for columns in made[str(discs)]:
            answers = _both(probes, index, args.repeat, "connect_four", columns=columns)
            index += 1
            scores = {a["score"] for side in SIDES for a in answers[side]}
            if len(scores) != 1:
                differ += 1
                print(f"  {columns}: scores differ, old {answers['old'][0]['score']}, "
                      f"new {answers['new'][0]['score']}")  # fmt: skip
            for side in SIDES:
                seconds[side].append(_median(answers[side], "seconds"))
                nodes[side] += answers[side][0]["nodes"]
        differences += differ
        if not seconds["old"]:
            print(f"{discs:>5} {0:>9} (random games found no such position)")
            continue
        figures = []
        for pick in (statistics.median, max, sum):
            old_value, new_value = pick(seconds["old"]), pick(seconds["new"])
            width = 10 if pick is statistics.median else 8 if pick is max else 9
            figures.append(f"{old_value:>{width}.3f} {new_value:>{width}.3f} "
                           f"{_ratio(new_value, old_value):>5}")  # fmt: skip
        print(f"{discs:>5} {len(seconds['old']):>9} {' '.join(figures)} "
              f"{_ratio(nodes['new'], nodes['old']):>11} {differ:>6}", flush=True)  # fmt: skip
    print(f"positions whose scores differ: {differences}")
    return differences


_MEASURE: dict[str, Callable[[dict[str, _Probe], argparse.Namespace], int]] = {
    "ffo": measure_ffo,
    "alphabeta": measure_alphabeta,
    "engine": measure_engine,
    "connect_four": measure_connect_four,
}


# --- the command line --------------------------------------------------------------------------


def _checkout(text: str) -> Path:
    path = Path(text).expanduser().resolve()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder")
    if not (path / "boardzoo" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(
            f"{text} is not a boardzoo checkout (no boardzoo/__init__.py in it)"
        )
    return path


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def checkout_commit(checkout: Path) -> str:
    """The commit checked out in ``checkout`` (``+modified`` when tracked files differ from it),
    or ``"unknown"`` outside git."""
    try:
        head = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip
        changed = subprocess.run(
            ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+modified" if changed else "")


def _load() -> str:
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=_checkout, required=True, help="the checkout to compare to")
    parser.add_argument(
        "--new", type=_checkout, default=ROOT, help="the checkout measured (default: this one)"
    )
    parser.add_argument(
        "--only", nargs="+", choices=MEASUREMENTS, help="these measurements (default: all)"
    )
    parser.add_argument(
        "--repeat", type=_positive_int, default=1, help="runs of each item in each (median)"
    )
    parser.add_argument("--ffo", type=Path, default=FFO, help="an FFO .obf file")
    parser.add_argument("--first", type=int, default=40, help="first FFO position number")
    parser.add_argument("--last", type=int, default=49, help="last FFO position number")
    parser.add_argument("--openings", type=Path, default=XOT, help="a Reversi opening list (XOT)")
    parser.add_argument(
        "--positions", type=_positive_int, default=20,
        help="openings (alphabeta, engine), positions per disc count (connect_four)",
    )  # fmt: skip
    parser.add_argument("--depth", type=_positive_int, default=6, help="alpha-beta's depth")
    parser.add_argument(
        "--time-limit", type=_positive_float, default=1.0, help="the engine's seconds a search"
    )
    parser.add_argument(
        "--discs", type=_positive_int, nargs="+", default=[10, 12, 14],
        help="Connect Four positions with these numbers of discs",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="the searches' and the positions' seed")
    args = parser.parse_args(argv)
    args.only = [m for m in MEASUREMENTS if m in (args.only or MEASUREMENTS)]
    if args.old == args.new:
        parser.error(f"--old and --new are the same checkout ({args.new})")
    if "ffo" in args.only:
        if not args.ffo.is_file():
            parser.error(f"--ffo {args.ffo}: no such file (the FFO files live in ../shared/ffo)")
        count = len([line for line in args.ffo.read_text().splitlines() if line.strip()])
        match = _NUMBERED.search(args.ffo.name)
        base = int(match.group(1)) if match else 1
        if not base <= args.first <= args.last < base + count:
            parser.error(
                f"positions {args.first}..{args.last} are not all in {args.ffo} ({base}..)"
            )
    args.openings_list = []
    if {"alphabeta", "engine"} & set(args.only):
        if not args.openings.is_file():
            parser.error(f"--openings {args.openings}: no such file")
        args.openings_list = args.openings.read_text().split()[: args.positions]
        if not args.openings_list:
            parser.error(f"--openings {args.openings}: no openings in it")
    if "connect_four" in args.only and any(d > 41 for d in args.discs):
        parser.error("--discs: a Connect Four board holds 42 discs; a position needs an empty one")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    command = shlex.join(["python", *sys.argv]) if argv is None else shlex.join(argv)
    started_at = datetime.now(timezone.utc).astimezone()
    load_before = _load()
    print(f"command: {command}")
    probes: dict[str, _Probe] = {}
    try:
        for side in SIDES:
            checkout = getattr(args, side)
            probes[side] = _Probe(side, checkout)
            ready = probes[side].ready
            print(f"{side}: {checkout} at {checkout_commit(checkout)} (imports "
                  f"{ready['boardzoo']}, solver {ready['solver']})", flush=True)  # fmt: skip
        for side in SIDES:
            warm = probes[side].ask("warmup", kinds=args.only)
            print(f"{side}: warmed up ({', '.join(args.only)}) in {warm['seconds']:.1f} s",
                  flush=True)  # fmt: skip
        clock = time.perf_counter()
        failures = {name: _MEASURE[name](probes, args) for name in args.only}
    except ProbeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        for probe in probes.values():
            probe.close()
    print()
    print(f"this run: {time.perf_counter() - clock:.0f} s after the warm-up, {args.repeat} "
          "run(s) of each item in each checkout, alternating")  # fmt: skip
    print(
        f"machine: {os.cpu_count()} cores, load average {load_before} before, {_load()} after; "
        f"python {sys.version.split()[0]}; {started_at:%Y-%m-%d %H:%M %Z}"
    )
    failed = [f"{name} ({count})" for name, count in failures.items() if count]
    if failed:
        print(f"FAILED: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
