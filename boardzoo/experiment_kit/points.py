"""Matches as data points: each match played through the arena, recorded and resumable, scored
with its 95% interval; the points as CSV files, Markdown tables and score plots."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from boardzoo.arena import play_match
from boardzoo.experiment_kit.game_args import game_options

__all__ = [
    "POINT_FIELDS",
    "markdown_table",
    "play_point",
    "plot_scores",
    "safe_name",
    "score_cell",
    "write_csv",
]

POINT_FIELDS = ("first", "second", "games", "wins", "draws", "losses", "score", "low", "high")


def safe_name(spec: str) -> str:
    """``spec`` as a file name: anything but letters, digits and ``_.=-`` becomes ``_``."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", spec)


def play_point(
    folder: Path,
    args: Any,
    first: str,
    second: str,
    label: str = "",
    *,
    openings: str | None = None,
    sprt: str | None = None,
) -> dict[str, Any]:
    """One match through the arena, recorded to ``folder/<first>__<second>.jsonl``.

    ``args`` gives the match: ``game`` and its options (:func:`game_options`), ``games``,
    ``seed`` and ``workers``; a ``quick`` (smoke) run plays its agents in this process, not each
    in a process of its own (``isolate``: seconds of start-up each).

    A file already there is resumed (only missing games are played), so a rerun of an
    interrupted experiment in the same folder picks up where it stopped. Returns the
    :data:`POINT_FIELDS` row of ``first``'s score with its 95% Wilson interval; ``label`` names
    the file instead of the specs (for long model paths). ``openings`` (a file or
    ``"balanced"``) and ``sprt`` (``"elo0=0,elo1=20"``) are :func:`~boardzoo.arena.play_match`'s;
    with ``sprt`` the row has an ``"sprt"`` field too: the test's outcome
    (``"H1 accepted"``, ``"undecided at 100 games"``, ...).
    """
    name = label or f"{safe_name(first)}__{safe_name(second)}"
    out = folder / f"{name}.jsonl"
    result = play_match(
        args.game, (first, second), games=args.games, seed=args.seed,
        options=game_options(args), workers=args.workers, out=out, resume=out.exists(),
        progress=False, openings=openings, sprt=sprt, isolate=not getattr(args, "quick", False),
    )  # fmt: skip
    tally = result.stats[0].total
    low, high = result.score_interval
    row = dict(zip(POINT_FIELDS[:3], (first, second, result.games), strict=True))
    row |= {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses}
    row |= {"score": result.score, "low": low, "high": high}
    verdict = ""
    if result.sprt is not None:
        row["sprt"] = result.sprt.outcome
        verdict = f"  SPRT {result.sprt.outcome}"
    print(f"{first:<32} vs {second:<32} {tally}  score {result.score:.1%} "
          f"[{low:.1%}, {high:.1%}]{verdict}", flush=True)  # fmt: skip
    return row


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows of dicts (same keys) as a CSV file with a header."""
    with path.open("w", newline="") as sink:
        writer = csv.DictWriter(sink, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot_scores(
    panels: dict[str, dict[str, list[tuple[float, dict[str, Any]]]]],
    png: Path,
    title: str,
    log_x: bool = True,
) -> None:
    """Score plots side by side: ``{x label: {line label: [(x, point row), ...]}}``.

    Each line shows the rows' scores with their 95% intervals as error bars.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.2), squeeze=False)
    for axis, (xlabel, series) in zip(axes[0], panels.items(), strict=True):
        for label, points in series.items():
            xs = [x for x, _ in points]
            scores = [float(row["score"]) for _, row in points]
            below = [s - float(r["low"]) for s, (_, r) in zip(scores, points, strict=True)]
            above = [float(r["high"]) - s for s, (_, r) in zip(scores, points, strict=True)]
            axis.errorbar(xs, scores, yerr=[below, above], marker="o", capsize=3, label=label)
        if log_x:
            axis.set_xscale("log")
        axis.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        axis.set(xlabel=xlabel, ylabel="score (95% interval)", ylim=(-0.02, 1.02))
        axis.grid(alpha=0.3)
        axis.legend(fontsize="small")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def score_cell(row: dict[str, Any]) -> str:
    """``"62.5% [52.7, 71.4]"`` from a point row."""
    score, low, high = (float(row[k]) * 100 for k in ("score", "low", "high"))
    return f"{score:.1f}% [{low:.1f}, {high:.1f}]"
