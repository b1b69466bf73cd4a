"""MCTS win rate against fixed opponents as its budget grows, with 95% intervals, as a plot.

    python experiments/mcts_scaling.py --game reversi --board-size 8 --games 100 --workers 2
    python experiments/mcts_scaling.py --quick
    python experiments/mcts_scaling.py --game connect_four --games 50

``--game`` is any catalog game; ``--board-size`` (and ``--options NAME=VALUE``) set its options,
for games that have them (quick runs play Reversi on 6x6).

For each opponent and each budget (``--simulations`` per move, then ``--seconds`` per move), a
match of ``--games`` games with colours alternated is played through the arena (every game
recorded to ``<mcts spec>__<opponent>.jsonl`` in the run folder, so an interrupted run resumes with
``--resume-folder``). The scores, with Wilson intervals, go to ``scaling.csv``,
``table.md`` (a row per budget, a column per opponent) and ``scaling.png`` (score against budget,
one line per opponent).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from boardzoo.experiment_kit import (
    ArenaExperimentArgs,
    arg,
    check_specs,
    experiment_folder,
    game_label,
    markdown_table,
    parse_args,
    play_point,
    plot_scores,
    resolve_game,
    score_cell,
    seed_everything,
    write_csv,
)


@dataclass(frozen=True)
class Args(ArenaExperimentArgs):
    opponents: tuple[str, ...] = arg(("random", "greedy", "alphabeta:depth=2"), "agent specs")
    simulations: tuple[int, ...] = arg((10, 30, 100, 300, 1000, 3000, 10000), "budgets")
    seconds: tuple[float, ...] = arg((0.01, 0.1), "time budgets per move")


def budgets(args: Args) -> list[tuple[str, str, float]]:
    """(MCTS spec, budget kind, x value): simulations first, then seconds per move."""
    points = [(f"mcts:simulations={n}", "simulations", float(n)) for n in args.simulations]
    return points + [(f"mcts:time_limit={s}", "seconds", s) for s in args.seconds]


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = Args(**{**asdict(args), "simulations": (10, 100), "seconds": (0.01,),
                       "opponents": ("random", "greedy"), "games": 2})  # fmt: skip
    args = resolve_game(args, {"board_size": 6} if args.quick else None)
    check_specs("--opponents", args.opponents)
    check_specs("--simulations/--seconds", (spec for spec, _, _ in budgets(args)))
    seed_everything(args.seed)
    folder = experiment_folder(args, "mcts_scaling")
    rows = []
    panels: dict[str, dict[str, list]] = {}
    for opponent in args.opponents:
        for mcts, kind, x in budgets(args):
            row = play_point(folder, args, mcts, opponent)
            rows.append({"opponent": opponent, "budget": kind, "value": x, **row})
            series = panels.setdefault(f"MCTS {kind} per move", {})
            series.setdefault(f"vs {opponent}", []).append((x, row))
    write_csv(folder / "scaling.csv", rows)
    cells = {(r["opponent"], r["first"]): r for r in rows}
    table = markdown_table(
        ["MCTS budget / move", *(f"vs {opponent}" for opponent in args.opponents)],
        [
            [f"{x:g} {'s' if kind == 'seconds' else kind}",
             *(score_cell(cells[opponent, mcts]) for opponent in args.opponents)]
            for mcts, kind, x in budgets(args)
        ],
    )  # fmt: skip
    (folder / "table.md").write_text(table)
    title = f"MCTS scaling on {game_label(args)}, {args.games} games a point, seed {args.seed}"
    plot_scores(panels, folder / "scaling.png", title)
    print(f"\nMCTS's score (95% interval):\n{table}\nwrote {folder}")
    return folder


if __name__ == "__main__":
    main()
