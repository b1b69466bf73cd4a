"""MCTS enhancements against plain UCT at equal time: Elo with 95% intervals, simulations a second.

    python experiments/enhancements.py --game reversi --time-per-move 0.1   # the whole table
    python experiments/enhancements.py --game connect_four --time-per-move 0.1 1
    python experiments/enhancements.py --game reversi --time-per-move 1 --targets \
        --sprt elo0=0,elo1=20
    python experiments/enhancements.py --quick      # Reversi 4x4, 0.02 s a move, 4 games

``--game`` is any catalog game; ``--board-size`` (and ``--options NAME=VALUE``) set its options,
for games that have them (full runs play Reversi 8x8 by default). ``--quick`` is a smoke run:
Reversi 4x4, 0.02 s a move, 4 games a match, 3 variants, alpha-beta depth 2 in sections 3 and 4;
any of these given on the command line stays as given.

Sections, each a list of matches played through the arena from ``--openings`` (the shipped
``balanced`` suite by default: each opening twice, colours swapped), ``--games`` games each, or
fewer with ``--sprt`` (the match stops once the test decides):

1. every ``--variants`` entry (MCTS options: each enhancement alone, then combinations and
   ``preset=strong``) as ``mcts:time_limit=T,<options>`` against ``--baseline`` (plain UCT)
   with the same ``time_limit=T``, for every ``--time-per-move`` T;
2. (``--parallel``) ``threads=K`` and ``workers=K`` against one thread at equal wall time, and
   their simulations a second against one thread's (the speed table notes whether ``threads=2``
   reaches 1.8 times);
3. (``--learned``) the learned evaluation against the hand-made one:
   ``alphabeta:depth=D,eval=learned`` vs ``alphabeta:depth=D``, ``greedy:eval=learned`` vs
   ``greedy``;
4. (``--targets``, long: 1 s a move) ``mcts:preset=strong,time_limit=1`` against
   ``alphabeta:depth=6`` (target: 50%) and against ``mcts:time_limit=1`` (target: 80%), and
   plain UCT against ``alphabeta:depth=6`` for reference.

Simulations a second are measured apart from the matches, in this process while no game runs:
the median over ``--speed-searches`` timed searches from each of the first ``--speed-positions``
openings of the suite. An agent that cannot be built or prepared for the game (the learned
evaluation of a game that has none yet, for instance) is not played: its rows say why, and a
later run in the same folder plays them once it can.

Every game is written, as it ends, to ``<first>__<second>.jsonl`` in the run folder and every
speed measurement to ``speed.jsonl``: ``--resume-folder`` plays and measures only what is
missing. Outputs: ``enhancements.csv`` (a row per match), ``speed.csv``, ``table.md`` (the
README's table: score, Elo difference with its 95% interval, simulations a second of both sides,
verdict; then the speed table) and ``enhancements.png`` (Elo difference per variant with its
interval, a panel per time a move, one for the other sections).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boardzoo.experiment_kit import (
    ArenaExperimentArgs,
    arg,
    check_specs,
    experiment_folder,
    game_label,
    game_options,
    markdown_table,
    parse_args,
    play_point,
    resolve_game,
    score_cell,
    seed_everything,
    write_csv,
)

VARIANTS = (
    # each enhancement alone
    "rave=true",
    "progressive_bias=1",
    "progressive_widening=true",
    "rollout=lgrf",
    "criticality=1",
    "cutoff=8",
    "minimax_weight=0.3",
    "cutoff=8,eval=learned",
    "minimax_weight=0.3,eval=learned",
    # combinations
    "rave=true,minimax_weight=0.3",
    "progressive_bias=1,minimax_weight=0.3",
    "cutoff=4,minimax_weight=0.3,progressive_bias=1",
    "preset=strong",
)
QUICK_VARIANTS = ("rave=true", "minimax_weight=0.3", "preset=strong")
SECTIONS = {
    "variants": "enhancement vs UCT",
    "parallel": "parallel vs 1 thread",
    "learned": "learned vs hand eval",
    "targets": "target",
}
THREADS_TARGET = 1.8  # threads=2 reaches this many times one thread's simulations a second
MATCH_FIELDS = ("first", "second", "games", "wins", "draws", "losses", "score", "low", "high")


@dataclass(frozen=True)
class Args(ArenaExperimentArgs):
    time_per_move: tuple[float, ...] = arg((0.1, 1.0), "seconds a move of both sides")
    variants: tuple[str, ...] = arg(
        VARIANTS, "MCTS options of each variant, KEY=VALUE,... (time_limit is added)"
    )
    baseline: str = arg("mcts", "the agent each variant plays, with time_limit added: plain UCT")
    games: int = arg(100, "games per match, colours alternated (the most, with --sprt)")
    workers: int = arg(
        1,
        "games played in parallel; keep 1 unless the machine has 2 free cores a game (4 with "
        "--parallel): agents under a clock that share cores search less, the equal-time "
        "comparison and the simulations a second with them",
    )
    openings: str = arg("balanced", "openings file, 'balanced' (the shipped suite) or 'none'")
    sprt: str = arg("", "stop each match early by an SPRT, e.g. elo0=0,elo1=20 (default: none)")
    parallel: bool = arg(True, "section 2: threads=K and workers=K against one thread")
    parallelism: int = arg(2, "K of section 2's threads=K and workers=K")
    learned: bool = arg(True, "section 3: learned evaluation against the hand-made one")
    eval_depth: int = arg(4, "alpha-beta depth of section 3")
    targets: bool = arg(False, "section 4: the scores to reach (long: --target-time a move)")
    target_time: float = arg(1.0, "seconds a move of section 4's MCTS players")
    target_depth: int = arg(6, "depth of section 4's alpha-beta opponent")
    speed_positions: int = arg(4, "positions for simulations a second: the first openings")
    speed_searches: int = arg(3, "timed searches per position and agent (their median counts)")


QUICK = {
    "time_per_move": (0.02,),
    "games": 4,
    "variants": QUICK_VARIANTS,
    "eval_depth": 2,
    "target_time": 0.02,
    "target_depth": 2,
    "speed_positions": 2,
    "speed_searches": 2,
}


def quick_args(args: Args) -> Args:
    """A smoke run: Reversi 4x4, 0.02 s a move, 4 games a match, 3 variants, alpha-beta depth 2
    (:data:`QUICK`); values given on the command line stay."""
    full = Args()
    chosen = {
        key: value for key, value in QUICK.items() if getattr(args, key) == getattr(full, key)
    }
    return Args(**{**asdict(args), **chosen})


def with_options(spec: str, options: str) -> str:
    """``spec`` with ``options`` (``"KEY=VALUE,..."``) added: ``mcts`` + ``time_limit=1`` gives
    ``mcts:time_limit=1``."""
    if not options:
        return spec
    return f"{spec},{options}" if ":" in spec else f"{spec}:{options}"


def timed(spec: str, seconds: float) -> str:
    return with_options(spec, f"time_limit={seconds:g}")


@dataclass(frozen=True)
class Match:
    """A match of the experiment: its section, the row's label and time, and the two specs."""

    section: str
    label: str
    seconds: float | None
    first: str
    second: str
    target: float | None = None  # the score the first agent is to reach, if any


def matches(args: Args) -> list[Match]:
    """Every match the arguments ask for, section by section."""
    planned = []
    for seconds in args.time_per_move:
        base = timed(args.baseline, seconds)
        for variant in args.variants:
            first = with_options(timed("mcts", seconds), variant)
            planned.append(Match("variants", variant, seconds, first, base))
    if args.parallel:
        k = args.parallelism
        for seconds in args.time_per_move:
            one = timed("mcts", seconds)
            for option in (f"threads={k}", f"workers={k}"):
                planned.append(Match("parallel", option, seconds, with_options(one, option), one))
    if args.learned:
        for hand in (f"alphabeta:depth={args.eval_depth}", "greedy"):
            learned = with_options(hand, "eval=learned")
            planned.append(Match("learned", learned, None, learned, hand))
    if args.targets:
        seconds, depth = args.target_time, args.target_depth
        plain = timed("mcts", seconds)
        strong = with_options(plain, "preset=strong")  # section 1's spec: the same games
        alphabeta = f"alphabeta:depth={depth}"
        planned += [
            Match("targets", f"preset=strong vs alphabeta:depth={depth}", seconds, strong,
                  alphabeta, 0.5),
            Match("targets", "preset=strong vs UCT", seconds, strong, plain, 0.8),
            Match("targets", f"UCT vs alphabeta:depth={depth}", seconds, plain, alphabeta),
        ]  # fmt: skip
    return planned


def check_args(args: Args) -> None:
    """Stop with a one-line message on a bad value, before any folder or game."""
    if any(not (t > 0 and math.isfinite(t)) for t in (*args.time_per_move, args.target_time)):
        raise SystemExit("--time-per-move/--target-time: seconds must be > 0")
    for variant in args.variants:
        if "time_limit" in variant or "simulations" in variant or ":" in variant:
            raise SystemExit(
                f"--variants: {variant!r}: give MCTS options only (KEY=VALUE,...), without "
                "time_limit or simulations: the script sets the time"
            )
    if args.games < 1 or args.workers < 1 or args.parallelism < 2:
        raise SystemExit("--games and --workers must be >= 1, --parallelism >= 2")
    if args.speed_positions < 1 or args.speed_searches < 1:
        raise SystemExit("--speed-positions and --speed-searches must be >= 1")
    if args.openings != "none":
        from boardzoo.arena import load_openings
        from boardzoo.games.catalog import make_game

        try:
            load_openings(args.openings, make_game(args.game, **game_options(args)))
        except (ValueError, OSError) as error:
            raise SystemExit(f"--openings: {error}") from None
    if args.sprt:
        from boardzoo.arena import parse_sprt

        try:
            parse_sprt(args.sprt)
        except ValueError as error:
            raise SystemExit(f"--sprt: {error}") from None


# --- simulations a second, and which agents can play ---------------------------------------


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


class Speeds:
    """Simulations a second of MCTS specs, measured once each and kept in ``speed.jsonl``; and
    whether a spec can be built and prepared for the game (``None``, or why not)."""

    def __init__(self, folder: Path, args: Args) -> None:
        from boardzoo.arena import load_openings
        from boardzoo.games.catalog import make_game

        self.path = folder / "speed.jsonl"
        self.args = args
        self.game = make_game(args.game, **game_options(args))
        start = self.game.initial_state()
        openings = () if args.openings == "none" else load_openings(args.openings, self.game).moves
        self.positions = []
        for moves in list(openings)[: args.speed_positions] or [()]:
            state = start
            for action in moves:
                state = state.apply(action)
            self.positions.append(state)
        self.measured: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                if line.strip():
                    entry = json.loads(line)
                    self.measured[entry["spec"]] = entry
        self.problems: dict[str, str | None] = {}

    def problem(self, spec: str) -> str | None:
        """Why ``spec`` cannot play the game (``None`` if it can); MCTS specs are measured."""
        if spec not in self.problems:
            try:
                if spec.split(":")[0] == "mcts":
                    self.rate(spec)
                else:
                    from boardzoo.agents.registry import make_agent

                    make_agent(spec, seed=0).prepare(self.game)
                self.problems[spec] = None
            except Exception as error:  # anything the agent raises: the row says what
                self.problems[spec] = first_line(error)
                print(f"skipping {spec}: {self.problems[spec]}", flush=True)
        return self.problems[spec]

    def rate(self, spec: str) -> float | None:
        """The median simulations a second of ``spec`` (``None`` for agents that do not say)."""
        if spec in self.measured:
            return float(self.measured[spec]["median"])
        from boardzoo.agents.registry import make_agent

        agent = make_agent(spec, seed=self.args.seed)
        agent.prepare(self.game)
        rates, simulations = [], []
        for state in self.positions:
            for _ in range(self.args.speed_searches):
                agent.act(state)
                info = getattr(agent, "last_search", None)
                if info is None or not hasattr(info, "simulations"):
                    return None
                rates.append(info.simulations / info.seconds if info.seconds > 0 else math.nan)
                simulations.append(info.simulations)
        median = float(statistics.median(rates))
        entry = {"spec": spec, "game": self.args.game, "options": game_options(self.args),
                 "positions": len(self.positions), "searches": self.args.speed_searches,
                 "median": median, "rates": rates, "simulations": simulations}  # fmt: skip
        with self.path.open("a") as sink:
            sink.write(json.dumps(entry) + "\n")
        self.measured[spec] = entry
        print(f"{spec:<56} {median:>12,.0f} simulations/s", flush=True)
        return median

    def of(self, spec: str) -> float | None:
        """The measured rate of ``spec``, if any (after :meth:`problem`)."""
        entry = self.measured.get(spec)
        return None if entry is None else float(entry["median"])


# --- rows, table, plot ----------------------------------------------------------------------


def play(folder: Path, args: Args, match: Match, speeds: Speeds) -> dict[str, Any]:
    """The row of one match: played (or resumed), or skipped with the reason."""
    from boardzoo.arena import elo_interval

    row: dict[str, Any] = {"section": SECTIONS[match.section], "variant": match.label,
                           "seconds": "" if match.seconds is None else match.seconds}  # fmt: skip
    problems = [p for p in (speeds.problem(match.first), speeds.problem(match.second)) if p]
    if problems:
        row |= dict.fromkeys(MATCH_FIELDS, "") | {"first": match.first, "second": match.second}
        row |= {"games": 0, "elo": "", "elo_low": "", "elo_high": ""}
        row |= {"sims_first": "", "sims_second": "", "verdict": f"skipped: {problems[0]}"}
        return row
    openings = None if args.openings == "none" else args.openings
    point = play_point(folder, args, match.first, match.second, openings=openings,
                       sprt=args.sprt or None)  # fmt: skip
    elo, low, high = elo_interval(point["wins"], point["draws"], point["losses"])
    row |= {key: point[key] for key in MATCH_FIELDS}
    row |= {"elo": elo, "elo_low": low, "elo_high": high}
    rates = (speeds.of(match.first), speeds.of(match.second))
    row |= {"sims_first": "" if rates[0] is None else rates[0],
            "sims_second": "" if rates[1] is None else rates[1]}  # fmt: skip
    row["verdict"] = verdict(point, match.target)
    return row


def verdict(point: dict[str, Any], target: float | None) -> str:
    """What the match says: the SPRT's outcome, else whether the interval leaves out 50%; and
    whether the target is met."""
    if "sprt" in point:
        words = f"SPRT: {point['sprt']}"
    elif point["low"] > 0.5:
        words = "stronger"
    elif point["high"] < 0.5:
        words = "weaker"
    else:
        words = "not separated"
    if target is not None:
        met = "met" if point["score"] >= target else "not met"
        words += f"; target {target:.0%}: {met}"
    return words


def elo_cell(row: dict[str, Any]) -> str:
    if row["elo"] == "" or math.isnan(float(row["elo"])):
        return "-"
    elo, low, high = (round(float(row[k])) + 0 for k in ("elo", "elo_low", "elo_high"))
    return f"{elo:+d} [{low:+d}, {high:+d}]"


def rate_cell(value: Any) -> str:
    return "-" if value == "" else f"{float(value):,.0f}"


def match_table(rows: list[dict[str, Any]]) -> str:
    header = ["section", "variant", "s / move", "games", "W-D-L", "score [95%]", "Elo [95%]",
              "sims/s", "opponent sims/s", "verdict"]  # fmt: skip
    lines = []
    for row in rows:
        played = row["games"] != 0
        lines.append([
            row["section"], f"`{row['variant']}`",
            "-" if row["seconds"] == "" else f"{float(row['seconds']):g}",
            str(row["games"]),
            f"{row['wins']}-{row['draws']}-{row['losses']}" if played else "-",
            score_cell(row) if played else "-", elo_cell(row) if played else "-",
            rate_cell(row["sims_first"]), rate_cell(row["sims_second"]), row["verdict"],
        ])  # fmt: skip
    return markdown_table(header, lines)


def speed_rows(args: Args, speeds: Speeds) -> list[dict[str, Any]]:
    """Section 2's simulations a second: one thread, threads=K, workers=K, per time a move."""
    rows = []
    k = args.parallelism
    for seconds in args.time_per_move:
        one = timed("mcts", seconds)
        base = None if speeds.problem(one) else speeds.of(one)
        for option in ("", f"threads={k}", f"workers={k}"):
            spec = with_options(one, option)
            problem = speeds.problem(spec)
            rate = None if problem else speeds.of(spec)
            ratio = rate / base if rate is not None and base else None
            note = problem or ""
            if option == f"threads={k}" and k == 2 and ratio is not None:
                met = "met" if ratio >= THREADS_TARGET else "not met"
                note = f"target {THREADS_TARGET}x: {met}"
            rows.append({"spec": spec, "seconds": seconds, "sims_per_second": rate or "",
                         "ratio": ratio or "", "note": note})  # fmt: skip
    return rows


def speed_table(rows: list[dict[str, Any]]) -> str:
    return markdown_table(
        ["agent", "s / move", "sims/s (median)", "x one thread", "note"],
        [
            [f"`{r['spec']}`", f"{r['seconds']:g}", rate_cell(r["sims_per_second"]),
             "-" if r["ratio"] == "" else f"{r['ratio']:.2f}", r["note"]]
            for r in rows
        ],
    )  # fmt: skip


def plot_elo(rows: list[dict[str, Any]], png: Path, title: str) -> None:
    """Elo difference with its 95% interval, a line per played match: a panel per time a move
    (sections 1 and 2), one for the others."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row["games"] == 0:
            continue
        timed_section = row["section"] in (SECTIONS["variants"], SECTIONS["parallel"])
        name = f"{float(row['seconds']):g} s a move" if timed_section else "other sections"
        panels.setdefault(name, []).append(row)
    if not panels:
        panels["nothing played"] = []
    height = max(3.0, 0.4 * max(len(p) for p in panels.values()) + 1.5)
    figure, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), height), squeeze=False)
    for axis, (name, points) in zip(axes[0], panels.items(), strict=True):
        labels = [
            f"{p['variant']} ({float(p['seconds']):g} s)" if p["seconds"] != "" and
            p["section"] == SECTIONS["targets"] else p["variant"]
            for p in points
        ]  # fmt: skip
        elos = [float(p["elo"]) for p in points]
        below = [e - float(p["elo_low"]) for e, p in zip(elos, points, strict=True)]
        above = [float(p["elo_high"]) - e for e, p in zip(elos, points, strict=True)]
        ys = list(range(len(points)))[::-1]
        axis.errorbar(elos, ys, xerr=[below, above], fmt="o", capsize=3)
        axis.set_yticks(ys, labels, fontsize="small")
        axis.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        axis.set(xlabel="Elo difference to the opponent (95% interval)", title=name)
        axis.grid(alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


def all_specs(planned: Iterable[Match], args: Args) -> list[str]:
    specs = {spec for m in planned for spec in (m.first, m.second)}
    if args.parallel:
        specs |= {timed("mcts", s) for s in args.time_per_move}
    return sorted(specs)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = quick_args(args)
    args = resolve_game(args, {"board_size": 4} if args.quick else None)
    check_args(args)
    planned = matches(args)
    check_specs("--variants/--baseline", all_specs(planned, args))
    seed_everything(args.seed)
    folder = experiment_folder(args, "enhancements")
    speeds = Speeds(folder, args)
    rows = [play(folder, args, match, speeds) for match in planned]
    write_csv(folder / "enhancements.csv", rows)
    table = match_table(rows)
    if args.parallel:
        speed = speed_rows(args, speeds)
        write_csv(folder / "speed.csv", speed)
        table += "\nSimulations a second (median of timed searches from the first openings):\n\n"
        table += speed_table(speed)
    (folder / "table.md").write_text(table)
    games = f"{args.games} games a match" + (f" (SPRT {args.sprt})" if args.sprt else "")
    title = f"MCTS enhancements on {game_label(args)}, {games}, seed {args.seed}"
    plot_elo(rows, folder / "enhancements.png", title)
    print(f"\n{title}:\n{table}\nwrote {folder}")
    return folder


if __name__ == "__main__":
    main()
