"""The trained baselines an experiment plays against: model files as agent specs (their policy
alone, or guiding a search), checked up front, and a tiny model trained on the spot for a
``--quick`` run; and the report of points by budget."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boardzoo.experiment_kit.game_args import game_options
from boardzoo.experiment_kit.points import markdown_table, plot_scores, score_cell, write_csv
from boardzoo.experiment_kit.runs import check_specs, experiment_folder, seed_everything

__all__ = [
    "BOARDZOO_MODEL_SUFFIX",
    "guided_search_spec",
    "is_boardzoo_model",
    "model_paths",
    "model_spec",
    "quick_model",
    "start_model_experiment",
    "write_budget_report",
]


BOARDZOO_MODEL_SUFFIX = ".pt"  # a boardzoo model file (AZNet: ppo_selfplay.py, boardzoo train)


def is_boardzoo_model(path: str | Path) -> bool:
    """Whether ``path`` names a boardzoo model file (``.pt`` with its ``.json``) rather than an
    SB3 ``.zip``."""
    return Path(path).suffix == BOARDZOO_MODEL_SUFFIX


def model_spec(path: str | Path) -> str:
    """The agent spec of a trained model playing by its policy alone: ``sb3:path=PATH`` for an
    SB3 ``.zip``, ``az:model=PATH,simulations=1`` (the most likely legal move) for a boardzoo
    model file."""
    if is_boardzoo_model(path):
        return f"az:model={path},simulations=1"
    return f"sb3:path={path}"


def guided_search_spec(path: str | Path, simulations: int) -> str:
    """The agent spec of MCTS guided by a trained model: PUCT with an SB3 policy's prior and
    rollouts (``sb3puct:path=...``), or AlphaZero's PUCT with a boardzoo model's policy and value
    (``az:model=...``)."""
    if is_boardzoo_model(path):
        return f"az:model={path},simulations={simulations}"
    return f"sb3puct:path={path},simulations={simulations}"


def model_paths(models: tuple[str, ...], quick: bool) -> dict[str, str]:
    """``{label: path}`` of the trained models an experiment plays against, checked.

    Each entry is ``LABEL=PATH`` or a ``PATH`` (labelled by its run folder's name): an SB3
    ``.zip`` or a boardzoo model file (``.pt``). Empty only in quick mode, where the script then
    trains a tiny model (:func:`quick_model`) so that it runs end to end on a fresh checkout.
    """
    if not models and not quick:
        raise SystemExit(
            "--models is required: give one or more LABEL=PATH to SB3 .zip files "
            "(experiments/train_baseline.py) or boardzoo model files (.pt: "
            "experiments/ppo_selfplay.py, boardzoo train)"
        )
    found = {}
    for entry in models:
        label, equals, path = entry.partition("=")
        if not equals:
            label, path = Path(entry).resolve().parent.name, entry
        if not Path(path).is_file():
            raise SystemExit(f"--models: no model file at {path!r}")
        if "," in path or ":" in path:
            raise SystemExit(f"--models: agent specs cannot hold ',' or ':' in a path: {path!r}")
        found[label] = path
    return found


def quick_model(
    game: str, options: Mapping[str, int], folder: Path, seed: int, steps: int = 512
) -> Path:
    """Train a tiny MaskablePPO model against the random player into ``folder/quick_model.zip``
    (for ``--quick`` runs without a model), on ``game`` with ``options``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from boardzoo.envs.single_agent import BoardGameSingleAgentEnv  # (gymnasium: PPO runs only)

    path = folder / "quick_model.zip"
    if path.exists():  # a resumed quick run
        return path
    torch.set_num_threads(1)
    chosen: dict[str, Any] = dict(options)
    env = BoardGameSingleAgentEnv(game, opponent="random", **chosen)
    env.reset(seed=seed)
    model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=256, batch_size=64, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # (no SB3-* folder under /tmp)
    model.learn(steps).save(path)
    return path


def start_model_experiment(
    args: Any, experiment: str, entries: tuple[str, ...]
) -> tuple[Path, dict[str, str]]:
    """Check the game and the model entries (each model loaded once), seed, open the run folder;
    ``(folder, models)``.

    Without entries in quick mode, the models are one tiny MaskablePPO model trained into the
    folder (:func:`quick_model`), labelled ``quick_ppo``.
    """
    options = game_options(args)
    models = model_paths(entries, args.quick)
    check_specs("--models", (model_spec(path) for path in models.values()))
    seed_everything(args.seed)
    folder = experiment_folder(args, experiment)
    if not models:
        models = {"quick_ppo": str(quick_model(args.game, options, folder, args.seed))}
    return folder, models


def write_budget_report(
    folder: Path,
    stem: str,
    series: dict[str, list[tuple[float, dict[str, Any]]]],
    *,
    series_field: str,
    budget_label: str,
    title: str,
) -> str:
    """Points by budget: ``results.csv``, ``table.md`` (a row per budget, a column per series)
    and ``<stem>.png``; returns the Markdown table."""
    rows = [
        {series_field: label, "budget": budget, **row}
        for label, points in series.items()
        for budget, row in points
    ]
    write_csv(folder / "results.csv", rows)
    budgets = sorted({budget for points in series.values() for budget, _ in points})
    cells = {(label, budget): row for label, points in series.items() for budget, row in points}
    table = markdown_table(
        [budget_label, *series],
        [
            [f"{budget:g}", *(score_cell(cells[label, budget]) for label in series)]
            for budget in budgets
        ],
    )
    (folder / "table.md").write_text(table)
    plot_scores({budget_label: series}, folder / f"{stem}.png", title)
    return table
