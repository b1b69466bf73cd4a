"""MCTS at several budgets against trained RL baselines: a table with 95% intervals, and a plot.

    python experiments/mcts_vs_rl.py --game reversi --board-size 8 \
        --models ppo_selfplay=runs/ppo/model.zip dqn=runs/dqn/model.zip --games 100
    python experiments/mcts_vs_rl.py --quick     # trains a tiny model first if --models is empty

Every baseline is a stable-baselines3 model saved by ``experiments/train_baseline.py`` and plays
as ``sb3:path=...`` (deterministic, legal moves only). For each baseline and each MCTS budget
(``--simulations`` per move, plain UCT with random rollouts) a match of ``--games`` games with
colours alternated is played through the arena and recorded to a JSONL file in the run folder
(``--resume-folder`` continues an interrupted run). Outputs: ``results.csv`` (MCTS's wins,
draws, losses, score and 95% Wilson interval per point), ``table.md`` (the same as a Markdown
table, baselines as columns) and ``mcts_vs_rl.png`` (MCTS's score against its budget, a line per
baseline).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from boardzoo.experiment_kit import (
    ArenaExperimentArgs,
    arg,
    check_specs,
    game_label,
    model_spec,
    parse_args,
    play_point,
    resolve_game,
    start_model_experiment,
    write_budget_report,
)


@dataclass(frozen=True)
class Args(ArenaExperimentArgs):
    models: tuple[str, ...] = arg(
        (), "trained baselines, LABEL=PATH (or PATH) to an SB3 .zip or a boardzoo model .pt"
    )
    simulations: tuple[int, ...] = arg((10, 30, 100, 300, 1000), "MCTS budgets per move")


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = Args(**{**asdict(args), "simulations": (10, 100), "games": 2})
    args = resolve_game(args)
    check_specs("--simulations", (f"mcts:simulations={n}" for n in args.simulations))
    folder, models = start_model_experiment(args, "mcts_vs_rl", args.models)
    series: dict[str, list] = {}
    for label, path in models.items():
        for simulations in args.simulations:
            mcts = f"mcts:simulations={simulations}"
            row = play_point(folder, args, mcts, model_spec(path), f"{label}__sims{simulations}")
            series.setdefault(f"vs {label}", []).append((simulations, row))
    table = write_budget_report(
        folder, "mcts_vs_rl", series, series_field="baseline",
        budget_label="MCTS simulations / move",
        title=f"MCTS (UCT) vs RL baselines on {game_label(args)}, {args.games} games a point",
    )  # fmt: skip
    print(f"\nMCTS's score (95% interval):\n{table}\nwrote {folder}")
    return folder


if __name__ == "__main__":
    main()
