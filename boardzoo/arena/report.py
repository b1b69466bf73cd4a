"""The parts the arena's reports are made of: cells for scores, Elo differences, times and
forfeit counts, the lines that say why games were forfeited, and tables as aligned plain text or
Markdown.

The reports themselves: :mod:`boardzoo.arena.match_report` and
:mod:`boardzoo.arena.tournament_report`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from boardzoo.arena.agent_stats import AgentStats
from boardzoo.arena.ratings import ELO_CLIP
from boardzoo.arena.referee import FORFEIT_REASONS

__all__ = [
    "forfeit_block",
    "forfeit_lines",
    "format_elo",
    "format_forfeits",
    "format_percent",
    "format_seconds",
    "format_table",
]


def format_percent(value: float) -> str:
    """A score as a percentage with one decimal (``"-"`` for NaN)."""
    return "-" if math.isnan(value) else f"{100 * value:.1f}%"


def format_elo(value: float) -> str:
    """An Elo difference, rounded and signed; a bound at :data:`~boardzoo.arena.ratings.ELO_CLIP`
    (``"-"`` for NaN)."""
    if math.isnan(value):
        return "-"
    if abs(value) >= ELO_CLIP:  # a perfect score: the Elo difference is only bounded
        return f">{ELO_CLIP:+.0f}" if value > 0 else f"<{-ELO_CLIP:+.0f}"
    return f"{round(value):+d}"


def format_seconds(value: float) -> str:
    """Seconds, to the millisecond under 10 s (``"-"`` for NaN)."""
    if math.isnan(value):
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def format_forfeits(stats: AgentStats) -> str:
    """An agent's forfeits by reason (``"time 2, error 1"``), ``"-"`` without any."""
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


def forfeit_block(lines: list[str], markdown: bool) -> list[str]:
    """:func:`forfeit_lines` under a heading, as text lines or a Markdown list."""
    if not lines:
        return []
    if markdown:
        items = [f"  - {line.strip()}" if line[:1] == " " else f"- {line}" for line in lines]
        return ["Forfeits:\n\n" + "\n".join(items)]
    return ["Forfeits:", *("  " + line for line in lines)]


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
