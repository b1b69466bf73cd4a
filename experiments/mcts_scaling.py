"""MCTS win rate against fixed opponents as its budget grows, with 95% intervals, as a plot.

    python experiments/mcts_scaling.py --game reversi --board-size 8 --games 100 --workers 2
    python experiments/mcts_scaling.py --quick

For each opponent and each budget (``--simulations`` per move, then ``--seconds`` per move), a
match of ``--games`` games with colours alternated is played through the arena (every game
recorded to ``<opponent>_<budget>.jsonl`` in the run folder, so an interrupted run resumes with
``--resume-folder``). The scores, with Wilson intervals, go to ``scaling.csv`` and
``scaling.png`` (score against budget, one line per opponent).
"""

from __future__ import annotations

import csv
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from boardzoo.experiment import arg, parse_args, run_folder, seed_everything


@dataclass(frozen=True)
class Args:
    game: str = arg("reversi", "reversi or tictactoe")
    board_size: int = arg(8, "Reversi board size: 4, 6 or 8")
    opponents: tuple[str, ...] = arg(("random", "greedy", "alphabeta:depth=2"), "agent specs")
    simulations: tuple[int, ...] = arg((10, 30, 100, 300, 1000, 3000, 10000), "budgets")
    seconds: tuple[float, ...] = arg((0.01, 0.1), "time budgets per move")
    games: int = arg(100, "games per point")
    workers: int = arg(2, "games played in parallel")
    seed: int = arg(0, "match seed of every point")
    out: str = arg("runs", "folder that receives the run folder")
    resume_folder: str = arg("", "continue the run in this folder instead of starting one")
    quick: bool = arg(False, "a smoke run: two budgets, two opponents, 4 games")


def budgets(args: Args) -> list[tuple[str, float]]:
    """(MCTS spec, x value) pairs: simulations first, then seconds per move."""
    points = [(f"mcts:simulations={n}", float(n)) for n in args.simulations]
    return points + [(f"mcts:time_limit={s}", s) for s in args.seconds]


def safe_name(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", spec)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = Args(**{**asdict(args), "simulations": (10, 200), "seconds": (0.01,),
                       "opponents": ("random", "greedy"), "games": 4, "board_size": 6})  # fmt: skip
    from boardzoo.agents.registry import parse_spec
    from boardzoo.arena import play_match

    for spec in args.opponents:
        parse_spec(spec)
    seed_everything(args.seed)
    if args.resume_folder:
        folder = Path(args.resume_folder)
    else:
        folder = run_folder(args.out, "mcts_scaling", args.game, args.seed, args)
    rows = []
    for opponent in args.opponents:
        for mcts, x in budgets(args):
            out = folder / f"{safe_name(opponent)}__{safe_name(mcts)}.jsonl"
            result = play_match(
                args.game, (mcts, opponent), games=args.games, seed=args.seed,
                board_size=args.board_size, workers=args.workers, out=out,
                resume=out.exists(), progress=False,
            )  # fmt: skip
            low, high = result.score_interval
            kind = "seconds" if "time_limit" in mcts else "simulations"
            rows.append([opponent, kind, x, args.games, result.score, low, high])
            print(f"{mcts:<28} vs {opponent:<20} score {result.score:.1%} "
                  f"[{low:.1%}, {high:.1%}]", flush=True)  # fmt: skip
    with (folder / "scaling.csv").open("w", newline="") as sink:
        writer = csv.writer(sink)
        writer.writerow(["opponent", "budget", "value", "games", "score", "low", "high"])
        writer.writerows(rows)
    plot(rows, folder / "scaling.png", args)
    print(f"wrote {folder / 'scaling.csv'} and {folder / 'scaling.png'}")
    return folder


def plot(rows: list[list], png: Path, args: Args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = [k for k in ("simulations", "seconds") if any(r[1] == k for r in rows)]
    figure, axes = plt.subplots(1, len(kinds), figsize=(6 * len(kinds), 4), squeeze=False)
    for axis, kind in zip(axes[0], kinds, strict=True):
        for opponent in args.opponents:
            points = [r for r in rows if r[0] == opponent and r[1] == kind]
            xs = [r[2] for r in points]
            scores = [r[4] for r in points]
            errors = [[r[4] - r[5] for r in points], [r[6] - r[4] for r in points]]
            axis.errorbar(xs, scores, yerr=errors, marker="o", capsize=3, label=f"vs {opponent}")
        axis.set_xscale("log")
        axis.set(xlabel=f"MCTS {kind} per move", ylabel="score (95% interval)", ylim=(-0.02, 1.02))
        axis.grid(alpha=0.3)
        axis.legend()
    figure.suptitle(f"MCTS scaling on {args.game}, {args.games} games a point, seed {args.seed}")
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


if __name__ == "__main__":
    main()
