"""Suites of openings (``openings=``, ``--openings FILE|balanced``): parsed in each game's own
notation, checked move by move, played by both colours, named in the records, refused on resume
when they changed; and the balanced suites that ship with boardzoo."""

from __future__ import annotations

import shutil

import pytest
from test_cli import run_main

import boardzoo.arena.openings as openings_module
from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.arena import (
    BALANCED,
    MatchResult,
    MatchSettingsError,
    balanced_file,
    load_openings,
    parse_opening,
    play_match,
    read_records,
    render_match,
    tournament,
)
from boardzoo.games.catalog import make_game

TICTACTOE = make_game("tictactoe")
CONNECT_FOUR = make_game("connect_four")
REVERSI = make_game("reversi", board_size=8)
# Every game and board size that ships a balanced suite.
SHIPPED = [("reversi", 8), ("reversi", 6), ("reversi", 4), ("connect_four", None),
           ("tictactoe", None)]  # fmt: skip


def names(game, moves):
    return [game.action_name(a) for a in moves]


def test_each_game_is_read_in_its_own_notation():
    # Reversi as in XOT files (the Othello community's standard), any case, or separated
    assert names(REVERSI, parse_opening(REVERSI, "f5d6c4d3c2b3b4b5")) == [
        "f5", "d6", "c4", "d3", "c2", "b3", "b4", "b5"
    ]  # fmt: skip
    assert parse_opening(REVERSI, "F5 D6,c4 , d3") == parse_opening(REVERSI, "f5d6c4d3")
    assert names(CONNECT_FOUR, parse_opening(CONNECT_FOUR, "dddc")) == ["d", "d", "d", "c"]
    assert parse_opening(CONNECT_FOUR, "d, d, d, c") == parse_opening(CONNECT_FOUR, "DDDC")
    assert names(TICTACTOE, parse_opening(TICTACTOE, "b2a1")) == ["b2", "a1"]
    # a pass is a move where a side must pass (Reversi 4x4: a line where white runs out)
    four = make_game("reversi", board_size=4)
    state = four.initial_state()
    for move in ("b1", "a1", "d3", "c1", "a2", "a3"):
        state = state.apply(four.parse_action(move))
    assert names(four, state.legal_actions()) == ["pass"]
    assert names(four, parse_opening(four, "b1a1d3c1a2a3pass"))[-1] == "pass"
    with pytest.raises(ValueError, match="move 1 'pass' is not legal at the start"):
        parse_opening(four, "pass")


def test_a_file_loads_in_order_with_comments_and_blank_lines(tmp_path):
    path = tmp_path / "xot.txt"
    path.write_text("# three openings\n\nf5d6c4d3\n  F5 F6 E6 F4  \n# another\nc4c3\n")
    suite = load_openings(path, REVERSI)
    assert suite.texts == ("f5d6c4d3", "f5f6e6f4", "c4c3")
    assert suite.source == str(path) and len(suite) == 3
    assert [suite.index_of_game(i) for i in range(8)] == [0, 0, 1, 1, 2, 2, 0, 0]
    assert load_openings(["f5d6c4d3", "f5f6e6f4", "C4 C3"], REVERSI).sha256 == suite.sha256
    assert load_openings(["f5d6c4d3", "c4c3"], REVERSI).sha256 != suite.sha256
    assert suite.describe() == f"{path} (3 openings)"


def _legal_after(game, text):
    state = game.initial_state()
    for action in parse_opening(game, text):
        state = state.apply(action)
    return ", ".join(names(game, state.legal_actions()))


@pytest.mark.parametrize(
    ("lines", "fragments"),
    [
        (["f5d6c4d3", "f5d6d4"], ["line 3:", "move 3 'd4' is not legal after f5d6", "f5d6"]),
        (["f5d6", "f5z9"], ["line 3:", "cannot read move 2 'z9' after f5", "f5"]),
        (["f5 d6 f9"], ["line 2:", "cannot read move 3 'f9' after f5d6", "f5d6"]),
    ],
)
def test_a_bad_move_names_the_file_line_move_and_legal_moves(tmp_path, lines, fragments):
    path = tmp_path / "bad.txt"
    path.write_text("# header\n" + "\n".join(lines) + "\n")
    with pytest.raises(ValueError) as error:
        load_openings(path, REVERSI)
    text = str(error.value)
    assert text.startswith(f"{path}, line ") and "\n" not in text
    *words, played = fragments
    for fragment in words:
        assert fragment in text
    assert text.endswith(f"legal moves there: {_legal_after(REVERSI, played)}")


def test_other_bad_suites_are_errors(tmp_path, monkeypatch):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing here\n\n")
    with pytest.raises(ValueError, match="holds no openings"):
        load_openings(empty, REVERSI)
    with pytest.raises(ValueError, match="does not exist"):
        load_openings(tmp_path / "missing.txt", REVERSI)
    with pytest.raises(ValueError, match="list is empty"):
        load_openings([], REVERSI)
    with pytest.raises(ValueError, match=r"openings\[1\] 'a1a1': move 2 'a1' is not legal"):
        load_openings(["b2", "a1a1"], TICTACTOE)
    # an opening may not end the game, nor go on after its end
    with pytest.raises(ValueError, match="a1a2b1b2c1 ends the game"):
        load_openings(["a1a2b1b2c1"], TICTACTOE)
    with pytest.raises(ValueError, match="the game is over after a1a2b1b2c1"):
        load_openings(["a1a2b1b2c1c2"], TICTACTOE)
    # and the suite must suit the game: Reversi cells are not Connect Four columns
    with pytest.raises(ValueError, match="cannot read move 2 '5d6' after f: connect_four moves"):
        load_openings(["f5d6"], CONNECT_FOUR)
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "tictactoe.txt").write_text("b2\n")
    monkeypatch.setattr(openings_module, "BALANCED_DIR", shipped)
    with pytest.raises(ValueError, match=r"for connect_four \(those that do: tictactoe\)"):
        load_openings(BALANCED, CONNECT_FOUR)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="openings and opening_plies=3"):
        play_match("tictactoe", ("random", "random"), openings=["b2"], opening_plies=3)


def test_each_opening_is_played_by_both_colours(tmp_path):
    path = tmp_path / "c4.txt"
    path.write_text("dddc\nab\n# a third\ng f e\n")
    result = play_match("connect_four", ("random", "greedy"), games=8, openings=path, seed=3,
                        progress=False, isolate=False)  # fmt: skip
    records = result.records
    expected = ["dddc", "dddc", "ab", "ab", "gfe", "gfe", "dddc", "dddc"]  # cycling, file order
    assert [r["opening"] for r in records] == expected
    assert [r["opening_index"] for r in records] == [0, 0, 1, 1, 2, 2, 0, 0]
    assert [r["first"] for r in records] == [0, 1] * 4  # colours swap within each pair
    for record, opening in zip(records, expected, strict=True):
        plies = len(opening)
        assert "".join(record["move_names"][:plies]) == opening
        assert record["move_agents"][:plies] == [None] * plies  # opening plies, as random ones
        assert record["move_times"][:plies] == [None] * plies
        assert None not in record["move_agents"][plies:]
        assert record["openings"] == str(path)
        assert record["openings_sha256"] == result.settings.openings.sha256
        assert record["opening_plies"] == 0 and record["pair_openings"] is True
    # the agents' own moves differ between the two games of a pair: they are not the same game
    assert records[0]["moves"] != records[1]["moves"]
    assert f"Openings: {path} (3 openings), each played twice with colours swapped" in (
        render_match(result)
    )
    # a summary from the records alone still knows the suite by name
    again = MatchResult.from_records(list(records))
    assert again.settings.openings is not None
    assert again.settings.openings.sha256 == result.settings.openings.sha256


def test_resume_refuses_other_openings(tmp_path):
    suite = tmp_path / "a.txt"
    suite.write_text("b2a1\nb2c3\n")
    out = tmp_path / "m.jsonl"
    kwargs = {"progress": False, "isolate": False, "out": out}
    play_match("tictactoe", ("random", "greedy"), games=2, openings=suite, **kwargs)
    other = tmp_path / "b.txt"
    other.write_text("b2a1\na1b2\n")
    with pytest.raises(MatchSettingsError, match=f"openings from {suite} .* where this run has "
                       f"openings from {other}"):  # fmt: skip
        play_match("tictactoe", ("random", "greedy"), games=4, openings=other, resume=True,
                   **kwargs)  # fmt: skip
    with pytest.raises(MatchSettingsError, match="where this run has none"):
        play_match("tictactoe", ("random", "greedy"), games=4, resume=True, **kwargs)
    with pytest.raises(MatchSettingsError, match="where this run has none"):
        play_match("tictactoe", ("random", "greedy"), games=4, resume=True,
                   pair_openings=True, **kwargs)  # fmt: skip
    # the same openings from another file (moved, renamed, other case): resumed
    moved = tmp_path / "moved.txt"
    moved.write_text("# the same two\nB2 A1\nb2,c3\n")
    result = play_match("tictactoe", ("random", "greedy"), games=4, openings=moved, resume=True,
                        **kwargs)  # fmt: skip
    assert result.games == 4 and len(read_records(out)) == 4
    assert [r["opening"] for r in result.records] == ["b2a1", "b2a1", "b2c3", "b2c3"]
    # records without openings (older files, random openings) resume as before
    plain = tmp_path / "plain.jsonl"
    play_match("tictactoe", ("random", "greedy"), games=2, progress=False, isolate=False, out=plain)
    with pytest.raises(MatchSettingsError, match="no suite of openings where this run has "
                       "openings from list"):  # fmt: skip
        play_match("tictactoe", ("random", "greedy"), games=4, openings=["b2"], resume=True,
                   progress=False, isolate=False, out=plain)  # fmt: skip
    resumed = play_match("tictactoe", ("random", "greedy"), games=4, resume=True, progress=False,
                         isolate=False, out=plain)  # fmt: skip
    assert resumed.games == 4 and "opening" not in resumed.records[0]


def test_a_tournament_plays_every_pair_from_the_openings(tmp_path):
    result = tournament("tictactoe", ["random", "greedy", "alphabeta"], games=2,
                        openings=BALANCED, progress=False, isolate=False)  # fmt: skip
    shipped = load_openings(BALANCED, TICTACTOE)
    assert len(result.records) == 6
    assert {r["opening"] for r in result.records} == {shipped.texts[0]}
    assert all(r["openings"] == "balanced" for r in result.records)
    assert result.openings is not None and result.openings.sha256 == shipped.sha256


@pytest.mark.parametrize(("game", "size"), SHIPPED)
def test_the_shipped_balanced_suites_load_and_hold_distinct_positions(game, size):
    played = make_game(game, **({} if size is None else {"board_size": size}))
    path = balanced_file(played)
    header = [line for line in path.read_text().splitlines() if line.startswith("#")]
    assert any(line.startswith("# Made by: python scripts/make_openings.py") for line in header)
    assert any(line.startswith("# Kept: ") for line in header)
    suite = load_openings(BALANCED, played)  # every move checked legal on the way
    assert suite.source == "balanced" and len(suite) >= 8
    assert len(set(suite.texts)) == len(suite)
    positions = set()
    for moves in suite.moves:
        state = played.initial_state()
        for action in moves:
            state = state.apply(action)
        assert not state.is_terminal()
        positions.add((*state.bitboards(), state.current_player))
    assert len(positions) == len(suite)  # no two openings transpose into the same position


def test_the_tictactoe_suite_is_every_two_ply_draw():
    suite = load_openings(BALANCED, TICTACTOE)
    solver = AlphaBetaAgent(depth=9, seed=0)
    draws = set()
    state = TICTACTOE.initial_state()
    for first in state.legal_actions():
        after = state.apply(first)
        for second in after.legal_actions():
            info = solver.search(after.apply(second))
            assert info.exact
            if info.outcome == "draw":
                draws.add((first, second))
    assert set(suite.moves) == draws and len(draws) == 24


def test_cli_openings_run_and_mistakes_are_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(balanced_file(CONNECT_FOUR), tmp_path / "c4.txt")
    done = run_main(capsys, "arena", "tictactoe", "random", "greedy", "--openings", "balanced",
                    "--games", "4", "--out", "m.jsonl", "--no-progress",
                    "--no-isolate")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Openings: balanced (24 openings), each played twice" in done.stdout
    written = [r["opening"] for r in read_records(tmp_path / "m.jsonl")]
    assert written == ["a1b2", "a1b2", "b1a1", "b1a1"]
    (tmp_path / "bad.txt").write_text("# x\ndddc\ndddddddd\n")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    for args, fragment in [
        (("--openings", "bad.txt"), "bad.txt, line 3: move 7 'd' is not legal after dddddd"),
        (("--openings", "c4.txt", "--opening-plies", "2"), "--openings and --opening-plies"),
        (("--openings", "empty.txt"), "empty.txt holds no openings"),
    ]:
        failed = run_main(capsys, "arena", "connect_four", "random", "greedy", *args,
                          "--out", "x.jsonl")  # fmt: skip
        assert failed.returncode == 2 and "Traceback" not in failed.stderr, failed.stderr
        errors = [line for line in failed.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and fragment in errors[0], failed.stderr
    assert not (tmp_path / "x.jsonl").exists()
    tour = run_main(capsys, "tournament", "tictactoe", "random", "greedy", "--openings",
                    "c4.txt", "--out", "t")  # fmt: skip
    assert tour.returncode == 2 and "c4.txt, line 5: cannot read move 1" in tour.stderr
