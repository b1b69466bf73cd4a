"""Does a trained SB3 policy make MCTS stronger? PUCT with its prior against plain UCT.

    python experiments/puct_vs_uct.py --game reversi --board-size 8 --model runs/ppo/model.zip
    python experiments/puct_vs_uct.py --quick      # trains a tiny model first if --model is empty

At each budget of ``--simulations`` per move, ``sb3puct:path=MODEL,simulations=N`` (AlphaZero's
PUCT selection with the policy's move probabilities as priors, leaves scored by random
rollouts; with ``--value-head`` also a variant whose leaves are scored by the policy's value
head) plays ``--games`` games against ``mcts:simulations=N`` (UCT, random rollouts), colours
alternated, through the arena. Same simulations, different search: a score above 50% means the
prior helps. Outputs: ``results.csv``, ``table.md`` and ``puct_vs_uct.png`` in the run folder
(each match recorded to JSONL; ``--resume-folder`` continues an interrupted run).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from boardzoo.experiment_kit import (
    ArenaExperimentArgs,
    arg,
    check_specs,
    game_label,
    is_boardzoo_model,
    parse_args,
    play_point,
    resolve_game,
    start_model_experiment,
    write_budget_report,
)


@dataclass(frozen=True)
class Args(ArenaExperimentArgs):
    model: str = arg("", "the trained SB3 .zip whose policy gives the priors")
    simulations: tuple[int, ...] = arg((10, 30, 100, 300), "budgets per move, both sides")
    value_head: bool = arg(False, "also play PUCT with the model's value head as leaf value")
    c: float = arg(1.25, "PUCT's exploration constant")


def variants(args: Args, path: str) -> dict[str, str]:
    """``{label: spec without budget}`` of the PUCT players."""
    found = {"PUCT prior + rollouts": f"sb3puct:path={path},c_init={args.c}"}
    if args.value_head:
        found["PUCT prior + value head"] = f"sb3puct:path={path},c_init={args.c},value_head=true"
    return found


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = Args(**{**asdict(args), "simulations": (10, 50), "games": 2, "value_head": True})
    args = resolve_game(args)
    check_specs("--simulations", (f"mcts:simulations={n}" for n in args.simulations))
    if is_boardzoo_model(args.model.rpartition("=")[2]):
        raise SystemExit(
            f"--model {args.model}: a boardzoo model searches with its own value head "
            "(az:model=...); this experiment puts an SB3 policy's prior into UCT: give an SB3 .zip"
        )
    if args.model:
        puct_specs = (f"{puct},simulations=1" for puct in variants(args, args.model).values())
        check_specs("--model, --c", puct_specs)
    folder, models = start_model_experiment(
        args, "puct_vs_uct", (args.model,) if args.model else ()
    )
    (path,) = models.values()
    series: dict[str, list] = {}
    for label, puct in variants(args, path).items():
        name = "value" if "value_head" in puct else "rollouts"
        for simulations in args.simulations:
            first, second = f"{puct},simulations={simulations}", f"mcts:simulations={simulations}"
            row = play_point(folder, args, first, second, f"puct_{name}__sims{simulations}")
            series.setdefault(f"{label} vs UCT", []).append((simulations, row))
    table = write_budget_report(
        folder, "puct_vs_uct", series, series_field="variant",
        budget_label="simulations / move (both)",
        title=f"PUCT with a trained prior vs UCT on {game_label(args)}, same simulations",
    )  # fmt: skip
    print(f"\nPUCT's score against UCT (95% interval):\n{table}\nwrote {folder}")
    return folder


if __name__ == "__main__":
    main()
