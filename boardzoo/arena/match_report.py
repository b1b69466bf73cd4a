"""A match result as a table (rich, plain text or Markdown) with its score line, the sequential
test, how the games started and why games were forfeited."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from boardzoo.arena.report import (
    forfeit_block,
    forfeit_lines,
    format_elo,
    format_forfeits,
    format_percent,
    format_seconds,
    format_table,
)
from boardzoo.arena.results import MatchResult
from boardzoo.arena.settings import MatchSettings
from boardzoo.arena.sprt import SPRTResult
from boardzoo.games.catalog import get_game

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["match_table", "render_match"]


def _limit(settings: MatchSettings) -> str:
    return "no time limit" if settings.time_limit is None else f"{settings.time_limit:g} s per move"


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
            format_percent(s.total.score),
            str(s.as_first),
            str(s.as_second),
            format_seconds(s.mean_move_seconds),
            format_seconds(s.max_move_seconds),
            format_forfeits(s),
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
        f"{result.agents[0]} scores {format_percent(result.score)} "
        f"[{format_percent(low)}, {format_percent(high)}] "
        f"(95% Wilson interval), Elo difference {format_elo(result.elo)} "
        f"[{format_elo(elo_low)}, {format_elo(elo_high)}]",
    ]
    if result.sprt is not None:
        lines += _sprt_lines(result.sprt, result.agents[0])
    starts = _openings_line(result.settings)
    if starts is not None:
        lines.append(starts)
    stats = result.stats
    if result.agents[0] == result.agents[1]:  # self-play: tell the two apart
        stats = tuple(replace(s, agent=f"{s.agent} #{i + 1}") for i, s in enumerate(result.stats))  # type: ignore[assignment]  # (a tuple of the same two stats)
    lines += forfeit_block(forfeit_lines(stats, result.settings.time_limit), markdown)
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
