"""A run of any length in flat memory: the driver keeps running totals, not every game.

The games go to the record file as they end; a result keeps the records of a short run in
memory and reads a long run's back from its file.
"""

from __future__ import annotations

import tracemalloc
from dataclasses import replace
from typing import Any

import pytest

import boardzoo.arena.results
from boardzoo.arena import (
    MatchResult,
    SequentialTest,
    fit_elo,
    fit_elo_totals,
    parse_sprt,
    play_match,
    read_records,
    render_match,
    render_tournament,
    tournament,
    without_timing,
)
from boardzoo.arena.progress import MatchProgress
from boardzoo.arena.record_reading import IndexSet, RecordStream, scan_records
from boardzoo.arena.tournament import summarize_tournament

KIB = 1024


def test_a_long_match_keeps_running_totals_not_its_games(monkeypatch):
    # memory traced from game `start` to game `end` of a match played in this process: what
    # the driver still holds of those games at the end (the old driver kept every record,
    # ~3 KiB a tictactoe game)
    start, end = 1100, 2000
    held: dict[str, int] = {}
    update = MatchProgress.update

    def traced(self: MatchProgress, record: dict[str, Any]) -> None:
        update(self, record)
        done = self.points[0] + self.points[1]  # one point a game
        if done == start:
            tracemalloc.start()
        elif done == end:
            held["bytes"] = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()

    monkeypatch.setattr(MatchProgress, "update", traced)
    try:
        result = play_match("tictactoe", ("random", "random"), games=end, time_limit=None,
                            progress=False, isolate=False)  # fmt: skip
    finally:
        tracemalloc.stop()
    assert result.games == end and result.stats[0].total.games == end
    assert held["bytes"] < 200 * KIB, f"{held['bytes'] / (end - start):.0f} bytes a game held"
    assert result.kept is None  # more than KEEP_RECORDS games, and no file to read them from
    with pytest.raises(ValueError, match="out=FILE"):
        result.records  # noqa: B018


def test_a_long_match_reads_its_records_back_from_its_file(monkeypatch, tmp_path):
    monkeypatch.setattr(boardzoo.arena.results, "KEEP_RECORDS", 4)
    out = tmp_path / "long.jsonl"
    settings = {"time_limit": None, "progress": False, "isolate": False, "out": out}
    result = play_match("tictactoe", ("random", "greedy"), games=10, **settings)
    assert result.kept is None and result.games == 10
    written = read_records(out)
    assert result.records == tuple(sorted(written, key=lambda r: r["game_index"]))
    # the totals are what the records give, and so is the report
    again = MatchResult.from_records(written, result.settings, out)
    assert again.kept is not None and again.records == result.records
    assert (result.stats, result.score, result.elo) == (again.stats, again.score, again.elo)
    assert render_match(result) == render_match(again)
    # a resumed run goes on from the totals of the file, and its records are the file's
    resumed = play_match("tictactoe", ("random", "greedy"), games=14, resume=True, **settings)
    fresh = play_match("tictactoe", ("random", "greedy"), games=14,
                       **{**settings, "out": tmp_path / "fresh.jsonl"})  # fmt: skip
    assert [without_timing(r) for r in resumed.records] == [
        without_timing(r) for r in fresh.records
    ]
    assert [s.total for s in resumed.stats] == [s.total for s in fresh.stats]
    assert resumed.stats == MatchResult.from_records(read_records(out), resumed.settings).stats


def test_a_short_match_keeps_its_records_in_memory(tmp_path):
    out = tmp_path / "short.jsonl"
    result = play_match("tictactoe", ("random", "greedy"), games=3, time_limit=None,
                        progress=False, isolate=False, out=out)  # fmt: skip
    assert result.kept is not None and result.records is result.kept
    out.unlink()  # kept: the file is not read again
    assert [r["game_index"] for r in result.records] == [0, 1, 2]


def test_a_long_tournament_reads_its_records_back_from_its_file(monkeypatch, tmp_path):
    monkeypatch.setattr(boardzoo.arena.results, "KEEP_RECORDS", 4)
    agents = ["random", "greedy", "alphabeta:depth=1"]
    result = tournament("tictactoe", agents, games=3, time_limit=None, progress=False,
                        isolate=False, out=tmp_path / "t")  # fmt: skip
    assert result.kept is None
    written = read_records(tmp_path / "t" / "games.jsonl")
    assert len(result.records) == 9
    assert {(tuple(r["agents"]), r["game_index"]) for r in result.records} == {
        (tuple(r["agents"]), r["game_index"]) for r in written
    }
    pairs = list(result.matches)
    settings = {pair: match.settings for pair, match in result.matches.items()}
    again = summarize_tournament(agents, pairs, settings, written, 3)
    assert again.records == result.records  # pair by pair, by game index
    for pair, match in result.matches.items():
        assert match.kept is None and match.records == again.matches[pair].records
        assert match.stats == again.matches[pair].stats
    assert result.stats == again.stats and result.elo == again.elo
    assert render_tournament(replace(result, files=None)) == render_tournament(again)


def test_the_sequential_test_forgets_the_pairs_it_counted():
    settings = parse_sprt("elo0=-10,elo1=10,alpha=0.001,beta=0.001")
    test = SequentialTest(settings)

    def add(games: range) -> None:
        for index in games:  # pairs LL, WW, LL, WW...: the LLR stays at 0
            test.add(index, float(index // 2 % 2))

    add(range(1000))
    tracemalloc.start()
    try:
        add(range(1000, 5000))
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert not test.decided
    assert held < 16 * KIB, held  # the old test kept a float per game (~300 KiB here)
    test.add(5001, 1.0)
    test.add(5001, 0.0)  # a game added again is ignored
    test.add(5, 0.0)
    result = test.result()
    assert (result.pairs, result.played) == (2500, 5001)
    # out of order: the same as in order
    shuffled = SequentialTest(settings)
    for index in [*range(1, 5000, 2), 5001, *range(0, 5000, 2)]:
        shuffled.add(index, float(index // 2 % 2) if index < 5000 else 1.0)
    assert shuffled.result() == result


def test_index_sets_hold_indices_in_flat_memory():
    played = IndexSet([3, 0, 1, 7])
    assert [i for i in range(9) if i in played] == [0, 1, 3, 7]
    assert len(played) == 4 and -1 not in played and "0" not in played
    played.add(2)
    played.add(2)
    assert len(played) == 5 and 2 in played and 4 not in played
    for index in range(100_000):
        played.add(index)
    assert len(played) == 100_000 and played._above == set()  # one count, nothing else


def test_the_record_stream_reads_what_scan_records_reads(tmp_path):
    result = play_match("tictactoe", ("random", "greedy"), games=3, time_limit=None,
                        progress=False, isolate=False, out=tmp_path / "g.jsonl")  # fmt: skip
    path = tmp_path / "g.jsonl"
    with path.open("ab") as sink:
        sink.write(b'{"game": "tictactoe", "mo')  # a run killed while writing
    stream = RecordStream(path)
    assert [r for _, r in stream] == [r for _, r in scan_records(path).records]
    assert len(list(stream)) == 3 == result.games
    scan = scan_records(path)
    assert (stream.truncated_at, stream.truncated_line, stream.note) == (
        scan.truncated_at,
        scan.truncated_line,
        scan.note,
    )
    assert scan.truncated_line == 4 and scan.truncated_at == len(path.read_bytes()) - 25


def test_ratings_from_pair_totals_are_those_from_the_games():
    games = [("a", "b", 1.0)] * 5 + [("a", "b", 0.5)] * 3 + [("b", "a", 1.0)] * 2
    games += [("b", "c", 0.0)] * 4 + [("c", "b", 0.5)] * 2 + [("a", "c", 1.0), ("c", "a", 1.0)]
    totals: dict[tuple[str, str], list[float]] = {}
    for a, b, score in games:
        entry = totals.setdefault((a, b), [0, 0.0])
        entry[0] += 1
        entry[1] += score
    by_pair = [(a, b, int(n), points) for (a, b), (n, points) in totals.items()]
    assert fit_elo_totals(by_pair, agents=["a", "b", "c"]) == fit_elo(games, agents=["a", "b", "c"])
    with pytest.raises(ValueError, match="points"):
        fit_elo_totals([("a", "b", 2, 3.0)])
