"""Match and tournament results as tables (rich, plain text, Markdown, CSV), a plot, and the
live progress bar."""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from boardzoo.arena.ratings import ELO_CLIP
from boardzoo.arena.referee import FORFEIT_REASONS
from boardzoo.arena.results import AgentStats, MatchResult, TournamentResult
from boardzoo.arena.settings import MatchSettings
from boardzoo.arena.sprt import SPRTResult
from boardzoo.games.catalog import get_game

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "forfeit_lines",
    "match_table",
    "plot_ratings",
    "ratings_csv",
    "render_match",
    "render_tournament",
]


# --- formatting helpers --------------------------------------------------------------------------


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{100 * value:.1f}%"


def _elo(value: float) -> str:
    if math.isnan(value):
        return "-"
    if abs(value) >= ELO_CLIP:  # a perfect score: the Elo difference is only bounded
        return f">{ELO_CLIP:+.0f}" if value > 0 else f"<{-ELO_CLIP:+.0f}"
    return f"{round(value):+d}"


def _seconds(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _forfeits(stats: AgentStats) -> str:
    parts = [
        f"{reason} {stats.forfeits[reason]}" for reason in FORFEIT_REASONS if stats.forfeits[reason]
    ]
    return ", ".join(parts) or "-"


_REASON_WORDS = {"time": "on time", "illegal": "illegal moves", "error": "error"}


def forfeit_lines(
    stats: Sequence[AgentStats], time_limit: float | None, tournament: bool = False
) -> list[str]:
    """Why games were forfeited, per agent: a heading line per agent with forfeits, then an
    indented line per cause (reason, error text, count, first game; the slowest wait for time
    forfeits). Empty when no game was forfeited.

    Args:
        stats: the agents' results.
        time_limit: the match's seconds per move, compared with the slowest wait.
        tournament: name the opponent of the first game too (game indices count per pair).
    """
    lines = []
    for s in stats:
        if not s.forfeit_notes:
            continue
        counts = [
            f"{s.forfeits[r]} {_REASON_WORDS[r]}" for r in FORFEIT_REASONS if s.forfeits.get(r)
        ]
        lines.append(f"{s.agent} forfeited {', '.join(counts)}:")
        for note in s.forfeit_notes:
            where = f"game {note.first_game}"
            if tournament:
                where += f" vs {note.opponent}"
            details = [f"first {where}" if note.games > 1 else where]
            if note.reason == "time" and note.slowest is not None:
                limit = "" if time_limit is None else f", limit {time_limit:g} s"
                details.insert(0, f"slowest {note.slowest:.3f} s{limit}")
            lines.append(f"  {note.reason} x{note.games}: {note.text} ({'; '.join(details)})")
    return lines


def _forfeit_block(lines: list[str], markdown: bool) -> list[str]:
    """:func:`forfeit_lines` under a heading, as text lines or a Markdown list."""
    if not lines:
        return []
    if markdown:
        items = [f"  - {line.strip()}" if line[:1] == " " else f"- {line}" for line in lines]
        return ["Forfeits:\n\n" + "\n".join(items)]
    return ["Forfeits:", *("  " + line for line in lines)]


def _limit(settings: MatchSettings) -> str:
    return "no time limit" if settings.time_limit is None else f"{settings.time_limit:g} s per move"


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool = False
) -> str:
    """A table as aligned plain text, or as a Markdown (GitHub) table.

    Args:
        headers: column titles.
        rows: cells, already formatted.
        markdown: Markdown pipes instead of spaces; numeric-looking columns are right-aligned.
    """
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    numeric = [
        bool(rows) and all(r[i][:1] in "+-0123456789." or r[i] == "-" for r in rows) and i > 0
        for i in range(len(headers))
    ]

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True)
        ]
        return ("| " + " | ".join(padded) + " |") if markdown else "  ".join(padded).rstrip()

    out = [line(headers)]
    if markdown:
        out.append(
            "|"
            + "|".join(
                ("-" * (w + 1) + ":") if n else ("-" * (w + 2))
                for w, n in zip(widths, numeric, strict=True)
            )
            + "|"
        )
    else:
        out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in rows)
    return "\n".join(out)


# --- matches ------------------------------------------------------------------------------------


def _match_rows(result: MatchResult) -> tuple[list[str], list[list[str]]]:
    first, second = get_game(result.settings.game).sides
    headers = [
        "agent",
        "games",
        "W",
        "D",
        "L",
        "score",
        f"as {first}",
        f"as {second}",
        "s/move",
        "max s",
        "forfeits",
        "illegal",
    ]
    same = result.agents[0] == result.agents[1]  # self-play: tell the two apart
    rows = [
        [
            f"{s.agent} #{i + 1}" if same else s.agent,
            str(s.total.games),
            str(s.total.wins),
            str(s.total.draws),
            str(s.total.losses),
            _pct(s.total.score),
            str(s.as_first),
            str(s.as_second),
            _seconds(s.mean_move_seconds),
            _seconds(s.max_move_seconds),
            _forfeits(s),
            str(s.illegal_attempts),
        ]
        for i, s in enumerate(result.stats)
    ]
    return headers, rows


def _match_title(result: MatchResult) -> str:
    s = result.settings
    return (
        f"{s.make_game().label}: {result.agents[0]} vs {result.agents[1]}, "
        f"{result.games} games, seed {s.seed}, {_limit(s)}"
    )


def _openings_line(settings: MatchSettings) -> str | None:
    """How the games of a match start, in words (``None`` from the start position)."""
    if settings.openings is not None:
        return f"Openings: {settings.openings.describe()}, each played twice with colours swapped"
    if settings.opening_plies == 0:
        return None
    count = settings.opening_plies
    plies = f"{count} random opening pl{'y' if count == 1 else 'ies'}"
    if settings.pair_openings:
        return f"Openings: {plies}, each opening played twice with colours swapped"
    return f"Openings: {plies} per game"


def _sprt_lines(sprt: SPRTResult, agent: str) -> list[str]:
    """The sequential test in two lines: its verdict, then the pairs and the LLR."""
    s = sprt.settings
    head = f"SPRT elo0={s.elo0:g} elo1={s.elo1:g} alpha={s.alpha:g} beta={s.beta:g}: {sprt.outcome}"
    if sprt.decided:
        head += f" after {sprt.pairs} pairs ({sprt.games} games)"
        extra = sprt.played - sprt.games
        if extra:
            head += f"; {extra} more game{'s' if extra != 1 else ''} recorded, not counted"
    counts = ", ".join(str(c) for c in sprt.counts)
    detail = (
        f"pairs scoring 0, 1/2, 1, 3/2, 2 for {agent}: {counts}; "
        f"LLR {sprt.llr:.2f} (bounds {sprt.lower:.2f}, {sprt.upper:.2f})"
    )
    return [head, detail]


def _match_summary(result: MatchResult, markdown: bool = False) -> list[str]:
    low, high = result.score_interval
    elo_low, elo_high = result.elo_interval
    lines = [
        f"{result.agents[0]} scores {_pct(result.score)} [{_pct(low)}, {_pct(high)}] "
        f"(95% Wilson interval), Elo difference {_elo(result.elo)} "
        f"[{_elo(elo_low)}, {_elo(elo_high)}]",
    ]
    if result.sprt is not None:
        lines += _sprt_lines(result.sprt, result.agents[0])
    starts = _openings_line(result.settings)
    if starts is not None:
        lines.append(starts)
    stats = result.stats
    if result.agents[0] == result.agents[1]:  # self-play: tell the two apart
        stats = tuple(replace(s, agent=f"{s.agent} #{i + 1}") for i, s in enumerate(result.stats))  # type: ignore[assignment]  # (a tuple of the same two stats)
    lines += _forfeit_block(forfeit_lines(stats, result.settings.time_limit), markdown)
    if result.out is not None:
        lines.append(f"Records: {result.out}")
    return lines


def render_match(result: MatchResult, markdown: bool = False) -> str:
    """A match result as plain text (or Markdown): the per-agent table and the score line.

    Args:
        result: from :func:`~boardzoo.arena.play_match`.
        markdown: a Markdown table and heading instead of plain text.
    """
    headers, rows = _match_rows(result)
    title = _match_title(result)
    table = format_table(headers, rows, markdown)
    summary = _match_summary(result, markdown)
    if markdown:
        return "\n\n".join([f"## {title}", table, *summary]) + "\n"
    return "\n".join([title, "", table, "", *summary])


def match_table(result: MatchResult) -> Table:
    """A match result as a rich :class:`~rich.table.Table` (title and score line included)."""
    from rich.table import Table

    headers, rows = _match_rows(result)
    table = Table(title=_match_title(result), caption="\n".join(_match_summary(result)))
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i in (0, 10) else "right")
    for row in rows:
        table.add_row(*row)
    return table


# --- tournaments --------------------------------------------------------------------------------


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
            elo = _elo(result.elo.ratings[agent])
            interval = "anchor" if agent == result.elo.anchor else f"[{_elo(low)}, {_elo(high)}]"
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
                _pct(s.total.score),
                _seconds(s.mean_move_seconds),
                _forfeits(s),
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
    return _forfeit_block(forfeit_lines(stats, result.time_limit, tournament=True), markdown)


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


# --- progress -----------------------------------------------------------------------------------
