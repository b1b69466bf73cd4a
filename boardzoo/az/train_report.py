"""What a training run reports as it goes: ``metrics.csv``, ``elo.png``, TensorBoard, a line
or a progress bar an iteration."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from boardzoo.az.train_settings import TrainSettings
from boardzoo.learned.files import atomic_write, atomic_write_text

__all__ = ["Progress", "open_tensorboard", "summary_line", "write_metrics"]


# The accuracy columns of a row (boardzoo.az.train), with their labels in the plot.
ACCURACY_COLUMNS = {
    "policy_keeps_result": "keeps the result",
    "policy_best_score": "best score",
}


def write_metrics(out: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """``metrics.csv`` and ``elo.png`` (the Elo differences, and the policy's accuracy where
    the game has a labelled set) from every iteration's row."""
    if not rows:
        return
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(buffer.getvalue(), out / "metrics.csv")
    elo_columns = [c for c in columns if c.startswith("elo_vs_")]
    accuracy_columns = [c for c in ACCURACY_COLUMNS if c in columns]
    if not elo_columns and not accuracy_columns:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [part for part in (elo_columns, accuracy_columns) if part]
    figure, all_axes = plt.subplots(len(panels), 1, figsize=(7, 4 * len(panels)), squeeze=False)
    for axes, part in zip(all_axes[:, 0], panels, strict=True):
        for column in part:
            points = [(r["iteration"], r[column]) for r in rows if r.get(column, "") != ""]
            label = ACCURACY_COLUMNS.get(column, column.removeprefix("elo_vs_"))
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        axes.set_xlabel("iteration")
        axes.legend(fontsize="small")
        if part is elo_columns:
            axes.axhline(0.0, color="grey", linewidth=0.8)
            axes.set_ylabel("Elo difference (clipped at ±1000)")
            axes.set_title("AlphaZero against the panel")
        else:
            axes.set_ylabel("% of the labelled positions")
            axes.set_title("The policy alone against perfect play")
    figure.tight_layout()
    atomic_write(out / "elo.png", lambda file: figure.savefig(file, format="png", dpi=100), "wb")
    plt.close(figure)


def open_tensorboard(out: Path) -> Any:
    """A TensorBoard writer into ``out/tensorboard`` when TensorBoard is installed, else None."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(log_dir=str(out / "tensorboard"))


def summary_line(row: Mapping[str, Any], games_per_second: float) -> str:
    """``iteration 3: 128 games (4.1/s), loss 2.31 (policy 1.90, value 0.41), Elo vs ...,
    policy keeps the result 93.1% (best score 80.2%)``."""
    text = f"iteration {row['iteration']}: {row['games']} games ({games_per_second:.1f}/s)"
    if row.get("loss") != "":
        text += (
            f", loss {row['loss']:.3f} (policy {row['policy_loss']:.3f}, "
            f"value {row['value_loss']:.3f})"
        )
    elos = [(k.removeprefix("elo_vs_"), v) for k, v in row.items() if k.startswith("elo_vs_")]
    if elos:
        text += ", Elo vs " + ", ".join(f"{name} {value:+.0f}" for name, value in elos)
    if "policy_keeps_result" in row:
        text += (
            f", policy keeps the result {row['policy_keeps_result']:.1f}%"
            f" (best score {row['policy_best_score']:.1f}%)"
        )
    return text


class Progress:
    """A rich progress bar over the run's budget, with the latest iteration's figures."""

    def __init__(self, settings: TrainSettings, state: Mapping[str, Any]) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.settings = settings
        self.progress = Progress(
            TextColumn("[bold]train[/]"), BarColumn(), TextColumn("{task.description}"),
            TimeElapsedColumn(), transient=False,
        )  # fmt: skip
        total, done = self._budget(state)
        self.task = self.progress.add_task("starting", total=total)
        self.progress.update(self.task, completed=done)
        self.progress.start()

    def _budget(self, state: Mapping[str, Any]) -> tuple[float, float]:
        if self.settings.iterations is not None:
            return float(self.settings.iterations), float(state["iteration"])
        assert self.settings.minutes is not None
        return self.settings.minutes * 60.0, float(state["seconds"])

    def update(self, state: Mapping[str, Any], line: str) -> None:
        _, done = self._budget(state)
        self.progress.update(self.task, completed=done, description=line)

    def close(self) -> None:
        self.progress.stop()
