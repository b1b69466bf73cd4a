"""A tournament result as tables (plain text or Markdown: standings with Elo, forfeits, the
crosstable), as CSV, and its ratings as a plot (matplotlib, loaded when a plot is drawn)."""

from __future__ import annotations

import csv
import io
import math
import os

from boardzoo.arena.referee import FORFEIT_REASONS
from boardzoo.arena.report import (
    forfeit_block,
    forfeit_lines,
    format_elo,
    format_forfeits,
    format_percent,
    format_seconds,
    format_table,
)
from boardzoo.arena.results import TournamentResult

__all__ = ["plot_ratings", "ratings_csv", "render_tournament"]


def _tournament_rows(result: TournamentResult) -> tuple[list[str], list[list[str]]]:
    headers = [
        "rank",
        "agent",
        "elo",
        "95% interval",
        "games",
        "W",
        "D",
        "L",
        "points",
        "score",
        "s/move",
        "forfeits",
    ]
    rows = []
    for rank, agent in enumerate(result.standings(), start=1):
        s = result.stats[agent]
        if result.elo is not None and agent in result.elo.ratings:
            low, high = result.elo.intervals[agent]
            elo = format_elo(result.elo.ratings[agent])
            interval = (
                "anchor"
                if agent == result.elo.anchor
                else f"[{format_elo(low)}, {format_elo(high)}]"
            )
        else:
            elo, interval = "-", "-"
        rows.append(
            [
                str(rank),
                agent,
                elo,
                interval,
                str(s.total.games),
                str(s.total.wins),
                str(s.total.draws),
                str(s.total.losses),
                f"{s.total.points:g}",
                format_percent(s.total.score),
                format_seconds(s.mean_move_seconds),
                format_forfeits(s),
            ]
        )
    return headers, rows


def _crosstable(result: TournamentResult) -> tuple[list[str], list[list[str]]]:
    order = result.standings()
    headers = ["", *(str(i) for i in range(1, len(order) + 1))]
    rows = []
    for i, agent in enumerate(order, start=1):
        row = [f"{i} {agent}"]
        for other in order:
            if other == agent:
                row.append("x")
                continue
            pair = (agent, other) if (agent, other) in result.matches else (other, agent)
            match = result.matches.get(pair)
            if match is None or match.games == 0:
                row.append("-")
            else:
                stats = match.stats[pair.index(agent)]
                row.append(f"{stats.total.points:g}/{stats.total.games}")
        rows.append(row)
    return headers, rows


def _tournament_title(result: TournamentResult) -> str:
    limit = "no time limit" if result.time_limit is None else f"{result.time_limit:g} s per move"
    return (
        f"{result.make_game().label} round robin: {len(result.agents)} agents, "
        f"{result.games_per_pair} games per pair, seed {result.seed}, {limit}"
    )


def _tournament_notes(result: TournamentResult) -> list[str]:
    notes = []
    if result.openings is not None:
        notes.append(
            f"Openings: {result.openings.describe()}, each played twice per pair with colours "
            "swapped."
        )
    if result.elo is not None:
        notes.append(
            f"Elo: maximum likelihood (Bradley-Terry, draws half), {result.elo.anchor} anchored "
            f"at {result.elo.anchor_rating:g}; 95% intervals from the Fisher information."
        )
        if result.elo.prior_draws:
            notes.append(
                f"Some results were perfect: {result.elo.prior_draws:g} virtual draw per pair "
                "was added to keep the ratings finite."
            )
    if result.files:
        notes.append(f"Files: {', '.join(str(p) for p in result.files.values())}")
    return notes


def _tournament_forfeits(result: TournamentResult, markdown: bool = False) -> list[str]:
    stats = [result.stats[agent] for agent in result.standings()]
    return forfeit_block(forfeit_lines(stats, result.time_limit, tournament=True), markdown)


def render_tournament(result: TournamentResult, markdown: bool = False) -> str:
    """A tournament result as plain text (or Markdown): standings with Elo, and the crosstable.

    Args:
        result: from :func:`~boardzoo.arena.tournament`.
        markdown: Markdown tables and headings instead of plain text.
    """
    headers, rows = _tournament_rows(result)
    cross_headers, cross_rows = _crosstable(result)
    title = _tournament_title(result)
    standings = format_table(headers, rows, markdown)
    cross = format_table(cross_headers, cross_rows, markdown)
    notes = _tournament_notes(result)
    if markdown:
        forfeits = _tournament_forfeits(result, markdown=True)
        parts = [f"## {title}", standings, *forfeits, *notes]
        parts += ["### Crosstable (points/games)", cross]
        return "\n\n".join(parts) + "\n"
    forfeits = _tournament_forfeits(result)
    text = [title, "", standings, "", *forfeits, *notes, "", "Crosstable (points/games)", cross]
    return "\n".join(text)


def ratings_csv(result: TournamentResult) -> str:
    """The standings as CSV: rank, agent, elo, interval, standard error, results, timing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "rank",
            "agent",
            "elo",
            "elo_low",
            "elo_high",
            "elo_stderr",
            "games",
            "wins",
            "draws",
            "losses",
            "points",
            "score",
            "mean_move_seconds",
            "forfeits_time",
            "forfeits_illegal",
            "forfeits_error",
        ]
    )
    for rank, agent in enumerate(result.standings(), start=1):
        s = result.stats[agent]
        fit = result.elo
        if fit is not None and agent in fit.ratings:
            low, high = fit.intervals[agent]
            elo = [
                f"{fit.ratings[agent]:.1f}",
                f"{low:.1f}",
                f"{high:.1f}",
                f"{fit.errors[agent]:.1f}",
            ]
        else:
            elo = ["", "", "", ""]
        writer.writerow(
            [
                rank,
                agent,
                *elo,
                s.total.games,
                s.total.wins,
                s.total.draws,
                s.total.losses,
                f"{s.total.points:g}",
                "" if math.isnan(s.total.score) else f"{s.total.score:.4f}",
                "" if math.isnan(s.mean_move_seconds) else f"{s.mean_move_seconds:.6f}",
                *(s.forfeits[r] for r in FORFEIT_REASONS),
            ]
        )
    return buffer.getvalue()


def plot_ratings(result: TournamentResult, path: str | os.PathLike[str]) -> None:
    """Save the ratings with their 95% intervals as error bars to a PNG (matplotlib, Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.0, 1.2 + 0.45 * max(1, len(result.agents))), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    fit = result.elo
    if fit is None:
        axes.text(0.5, 0.5, "no games played", ha="center", va="center")
        axes.set_axis_off()
    else:
        order = list(reversed(fit.ranking()))  # best at the top
        ratings = [fit.ratings[a] for a in order]
        low = [fit.ratings[a] - fit.intervals[a][0] for a in order]
        high = [fit.intervals[a][1] - fit.ratings[a] for a in order]
        axes.errorbar(
            ratings, range(len(order)), xerr=[low, high], fmt="o", capsize=4, ecolor="tab:gray"
        )
        axes.set_yticks(range(len(order)), labels=order)
        axes.axvline(fit.anchor_rating, color="tab:red", linewidth=0.8, linestyle=":")
        axes.set_xlabel(f"Elo ({fit.anchor} = {fit.anchor_rating:g}), 95% intervals")
        axes.grid(axis="x", alpha=0.3)
    axes.set_title(_tournament_title(result), fontsize=9)
    figure.tight_layout()
    figure.savefig(os.fspath(path), format="png")
