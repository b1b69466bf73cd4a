"""A/B speed of the search: an older checkout against this tree, row by row, in one run.

    python benchmarks/bench_search_core.py --baseline /tmp/old             # every row, 3 turns
    python benchmarks/bench_search_core.py --baseline /tmp/old --rows reversi8 --turns 5
    python benchmarks/bench_search_core.py --baseline /tmp/old --quick     # a smoke run

``--baseline DIR`` is a checkout of an earlier boardzoo (e.g. ``git worktree add /tmp/old
<commit>``; ``/tmp/old`` is the default when it exists). Each row is a game, an agent spec and a
budget. Every measurement runs in a fresh interpreter importing boardzoo from one tree (through
``PYTHONPATH``, using only API that both trees have: ``make_agent``, ``make_game``,
``agent.search``, or for ``az`` agents, whose ``search`` is their search kind, ``agent.act`` and
``agent.last_search``): it builds the agent, runs one warm-up search (compilation, caches and
network loading are not timed), then ``--repeats`` timed searches from the start position (each
after ``agent.reset()``, so every search starts a new tree) and prints their simulations/s. The
two trees take turns, ``--turns`` turns a row (which goes first alternates), so machine noise
hits both alike. The table shows each tree's median simulations/s over all its searches and the
median of the per-turn ratios new/old (each turn's ratio is of the two trees' medians in that
turn). A row whose process fails in one tree shows ``failed: <last line of stderr>`` there.

Rows:

- ``<game> mcts:simulations=N``: plain UCT (random rollouts) from the start of every catalog
  game (TicTacToe, Connect Four, Reversi 4x4, 6x6, 8x8).
- ``<game> mcts:simulations=N,<option>`` on Reversi 8x8 and Connect Four: each enhancement
  alone (RAVE, progressive bias, progressive widening, LGRF rollouts, criticality, rollout
  cutoff, implicit minimax with the heuristic and with the learned evaluation, the MCTS-solver,
  ``preset=strong``).
- ``reversi8 mcts:time_limit=1[,threads=2|,workers=2]``: one thread, tree parallelism (one
  shared tree, two threads) and root parallelism (two trees) under a 1 s limit. Printed too,
  for each tree: threads=2 / one thread (up to 2x with two free cores).
- ``<game> az:simulations=200`` on Reversi 8x8 and Connect Four: single-game AlphaZero search
  with the shipped model, CPU.

Sizes: the simulation budgets (plain UCT: 500k on TicTacToe and Reversi 4x4, 300k on Connect
Four, 200k on Reversi 6x6, 100k on Reversi 8x8; enhancements: 100k on Reversi 8x8, 150k on
Connect Four) make one search take roughly 0.2-0.5 s on one core. ``--quick`` divides every
budget (and the time limit) by ten and runs one turn of one timed search: it only shows that
every row runs. A full run is 30 rows x 3 turns x 2 trees, about 180 processes: some 15-20
minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench_mcts_enhancements import OPTIONS as ENHANCEMENTS

_ROOT = Path(__file__).resolve().parents[1]
_DEFAULT_BASELINE = Path("/tmp/old")
# A process that takes longer than this counts as failed (one row, one turn).
_TIMEOUT_S = 900

# Runs in a fresh interpreter against either tree: only API that both trees have.
_MEASURE = """
import json, sys
from pathlib import Path
import boardzoo
from boardzoo.agents.registry import make_agent
from boardzoo.games.catalog import make_game
here = Path(boardzoo.__file__).resolve().parents[1]
if here != Path.cwd().resolve():
    raise RuntimeError(f"imported boardzoo from {here}, not from {Path.cwd().resolve()}")
spec, game, options, repeats = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
state = make_game(game, **options).initial_state()
agent = make_agent(spec, seed=0)
def search():  # AlphaZeroAgent.search is its search kind (text): act() and last_search instead
    if callable(getattr(agent, "search", None)):
        return agent.search(state)
    agent.act(state)
    return agent.last_search
search()  # warm-up: compilation, caches, the network
rates = []
for _ in range(repeats):
    agent.reset()  # a new tree each search (AlphaZero keeps its tree otherwise)
    rates.append(search().simulations_per_second)
print(json.dumps(rates))
"""

# Each enhancement alone (the enhancements benchmark's list), the solver and the preset.
OPTIONS = (*ENHANCEMENTS, "solver=true", "preset=strong")
# (label, catalog name, options)
GAMES = {
    "tictactoe": ("tictactoe", {}),
    "connect_four": ("connect_four", {}),
    "reversi4": ("reversi", {"board_size": 4}),
    "reversi6": ("reversi", {"board_size": 6}),
    "reversi8": ("reversi", {"board_size": 8}),
}
# Simulations a search (about 0.3-0.5 s a search of plain UCT on one core; the fastest
# enhancements, cutoff=8 and the solver, take less): plain UCT per game, then each enhancement.
PLAIN_SIMULATIONS = {
    "tictactoe": 500_000,
    "connect_four": 300_000,
    "reversi4": 500_000,
    "reversi6": 200_000,
    "reversi8": 100_000,
}
ENHANCED_SIMULATIONS = {"reversi8": 100_000, "connect_four": 150_000}
TIME_LIMIT = 1.0
AZ_SIMULATIONS = 200
PARALLEL = ("", ",threads=2", ",workers=2")


@dataclass(frozen=True)
class Row:
    label: str
    game: str
    options: dict
    spec: str


def make_rows(quick: bool) -> list[Row]:
    """Every row, budgets divided by ten for ``quick``."""
    scale = 10 if quick else 1
    rows = []

    def add(game_label: str, spec: str) -> None:
        game, options = GAMES[game_label]
        rows.append(Row(f"{game_label} {spec}", game, options, spec))

    for game_label, simulations in PLAIN_SIMULATIONS.items():
        add(game_label, f"mcts:simulations={simulations // scale}")
    for game_label, simulations in ENHANCED_SIMULATIONS.items():
        for option in OPTIONS:
            add(game_label, f"mcts:simulations={simulations // scale},{option}")
    for extra in PARALLEL:
        add("reversi8", f"mcts:time_limit={TIME_LIMIT / scale:g}{extra}")
    for game_label in ("reversi8", "connect_four"):
        add(game_label, f"az:simulations={AZ_SIMULATIONS // scale}")
    return rows


class MeasureError(Exception):
    """A measuring process failed; the message is the last line of its stderr."""


def measure(tree: Path, row: Row, repeats: int) -> list[float]:
    """Simulations/s of ``repeats`` searches in a fresh process importing boardzoo from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-c", _MEASURE, row.spec, row.game, json.dumps(row.options),
               str(repeats)]  # fmt: skip
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=tree, timeout=_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        raise MeasureError(f"timed out after {_TIMEOUT_S} s") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise MeasureError(lines[-1].strip() if lines else f"exit status {done.returncode}")
    try:
        return [float(rate) for rate in json.loads(done.stdout.strip().splitlines()[-1])]
    except (IndexError, ValueError) as error:
        raise MeasureError(f"unreadable output ({error})") from None


@dataclass
class Result:
    old: list[list[float]]  # per turn, the rates of that turn's searches
    new: list[list[float]]
    old_error: str | None = None
    new_error: str | None = None

    @staticmethod
    def median(turns: list[list[float]]) -> float | None:
        rates = [rate for turn in turns for rate in turn]
        return statistics.median(rates) if rates else None

    def ratios(self) -> list[float]:
        return [
            statistics.median(new) / statistics.median(old)
            for old, new in zip(self.old, self.new, strict=False)
        ]


def run_row(row: Row, baseline: Path, turns: int, repeats: int) -> Result:
    """``turns`` turns of old and new (alternating which goes first); a tree that fails once is
    not run again for this row."""
    result = Result(old=[], new=[])
    for turn in range(turns):
        order = ("old", "new") if turn % 2 == 0 else ("new", "old")
        for which in order:
            if getattr(result, f"{which}_error") is not None:
                continue
            tree = baseline if which == "old" else _ROOT
            try:
                rates = measure(tree, row, repeats)
            except MeasureError as error:
                setattr(result, f"{which}_error", str(error))
                print(f"    turn {turn + 1} {which}: failed: {error}", flush=True)
                continue
            getattr(result, which).append(rates)
            print(f"    turn {turn + 1} {which}: {statistics.median(rates):>12,.0f} sims/s",
                  flush=True)  # fmt: skip
    return result


def _cell(rate: float | None, error: str | None) -> str:
    if error is not None and rate is None:
        return "failed: " + error.replace("|", "\\|")
    return "-" if rate is None else f"{rate:,.0f}"


def table(rows: list[Row], results: dict[str, Result]) -> str:
    lines = ["| row | old sims/s | new sims/s | new/old |", "|---|---:|---:|---:|"]
    for row in rows:
        result = results[row.label]
        old, new = Result.median(result.old), Result.median(result.new)
        ratios = result.ratios() if result.old_error is None and result.new_error is None else []
        ratio = f"{statistics.median(ratios):.3f}" if ratios else "-"
        lines.append(
            f"| {row.label} | {_cell(old, result.old_error)} | {_cell(new, result.new_error)} "
            f"| {ratio} |"
        )
    return "\n".join(lines)


def parallel_speedups(rows: list[Row], results: dict[str, Result]) -> list[str]:
    """threads=2 / one thread on Reversi 8x8, each tree (where both rows ran)."""
    one = next((r for r in rows if r.label.startswith("reversi8 mcts:time_limit=")
                and "threads" not in r.label and "workers" not in r.label), None)  # fmt: skip
    two = next((r for r in rows if r.label.startswith("reversi8 mcts:time_limit=")
                and r.label.endswith(",threads=2")), None)  # fmt: skip
    if one is None or two is None:
        return []
    lines = []
    for which in ("old", "new"):
        single = Result.median(getattr(results[one.label], which))
        double = Result.median(getattr(results[two.label], which))
        if single is None or double is None:
            lines.append(f"reversi8 threads=2 / one thread, {which}: - (a row failed)")
        else:
            lines.append(f"reversi8 threads=2 / one thread, {which}: {double / single:.2f}x")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="the older checkout (default /tmp/old)")
    parser.add_argument("--turns", type=int, help="turns of old and new per row (default 3)")
    parser.add_argument("--repeats", type=int, help="timed searches per turn (default 3)")
    parser.add_argument("--quick", action="store_true", help="small budgets, 1 turn: a smoke run")
    parser.add_argument("--rows", help="only rows whose label contains this text")
    args = parser.parse_args(argv)
    if args.baseline is None:
        if not _DEFAULT_BASELINE.is_dir():
            parser.error(
                f"no baseline: pass --baseline DIR, a checkout of an earlier boardzoo (e.g. "
                f"git worktree add {_DEFAULT_BASELINE} <commit>); {_DEFAULT_BASELINE} does not "
                f"exist"
            )
        args.baseline = _DEFAULT_BASELINE
    args.baseline = args.baseline.resolve()
    if not (args.baseline / "boardzoo").is_dir():
        parser.error(f"--baseline {args.baseline} holds no boardzoo package")
    if args.baseline == _ROOT:
        parser.error(f"--baseline {args.baseline} is this tree")
    turns = args.turns if args.turns is not None else (1 if args.quick else 3)
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    if turns <= 0 or repeats <= 0:
        parser.error("--turns and --repeats must be positive")
    rows = make_rows(args.quick)
    if args.rows:
        rows = [row for row in rows if args.rows in row.label]
        if not rows:
            parser.error(f"--rows {args.rows!r} matches no row")

    print(f"old: {args.baseline}\nnew: {_ROOT}\n{len(rows)} rows, {turns} turns of old and "
          f"new each, {repeats} timed searches a turn, fresh processes", flush=True)  # fmt: skip
    results = {}
    for index, row in enumerate(rows, 1):
        print(f"[{index}/{len(rows)}] {row.label}", flush=True)
        results[row.label] = result = run_row(row, args.baseline, turns, repeats)
        ratios = result.ratios()
        if ratios and result.old_error is None and result.new_error is None:
            print(f"    new/old median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, "
                  f"max {max(ratios):.3f})", flush=True)  # fmt: skip
    print()
    print(table(rows, results))
    speedups = parallel_speedups(rows, results)
    if speedups:
        print()
        print("\n".join(speedups))


if __name__ == "__main__":
    main()
