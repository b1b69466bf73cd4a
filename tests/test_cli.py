"""The ``boardzoo`` command, end to end in a subprocess, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def boardzoo(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boardzoo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def assert_user_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, result.stderr  # one line says what is wrong
    for fragment in fragments:
        assert fragment in result.stderr


def test_help_lists_the_commands():
    result = boardzoo("--help")
    assert result.returncode == 0
    for command in ("play", "arena", "tournament", "replay", "bench", "demo"):
        assert command in result.stdout


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("arena", "chess", "random", "greedy", "--out", "x.jsonl"), ["invalid choice: 'chess'"]),
        (
            ("arena", "reversi", "random", "minimax", "--out", "x.jsonl", "--games", "1"),
            ["unknown agent 'minimax'", "known agents: random, greedy, alphabeta, mcts"],
        ),
        (
            ("arena", "reversi", "mcts:sims=3", "random", "--out", "x.jsonl", "--games", "1"),
            ["unknown key 'sims' for mcts", "allowed: simulations"],
        ),
        (
            ("arena", "reversi", "mcts:simulations=lots", "random", "--out", "x.jsonl"),
            ["mcts.simulations: expected an integer, got 'lots'"],
        ),
        (("arena", "reversi", "random", "greedy", "--out", "x.jsonl", "--games", "0"), ["--games"]),
        (("replay", "does/not/exist.jsonl"), ["does/not/exist.jsonl"]),
        (("play", "reversi", "--x", "human", "--ui", "text"), ["--x is not a reversi player"]),
        (
            ("play", "connect_four", "--black", "human", "--ui", "text"),
            ["--black is not a connect_four player", "--red/--yellow", "--first/--second"],
        ),
        (
            ("play", "tictactoe", "--first", "random", "--x", "greedy", "--ui", "text"),
            ["--first and --x both name the first player"],
        ),
        (
            ("play", "reversi", "--second", "random", "--white", "greedy", "--ui", "text"),
            ["--second and --white both name the second player"],
        ),
        (
            ("play", "tictactoe", "--size", "6", "--ui", "text"),
            ["--size", "tictactoe has none (its options: none)"],
        ),
        (
            ("arena", "connect_four", "random", "greedy", "--size", "6", "--out", "x.jsonl"),
            ["--size", "connect_four has none (its options: none)"],
        ),
        (("demo", "--game", "connect_four", "--size", "4"), ["connect_four has none"]),
        (("demo", "--size", "5"), ["invalid choice: 5"]),
        (("play", "checkers"), ["invalid choice: 'checkers'"]),
    ],
)
def test_user_mistakes_are_one_line_errors(args, fragments, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "boardzoo", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert_user_error(result, *fragments)


def test_malformed_record_file_names_the_line(tmp_path):
    records = tmp_path / "bad.jsonl"
    good = {"game": "tictactoe", "board_size": 3, "moves": [4, 0, 8]}
    records.write_text(json.dumps(good) + "\n{not json\n")
    assert_user_error(boardzoo("replay", str(records), "--ui", "text"), "line 2")


def test_bench_quick_prints_the_figures():
    result = boardzoo("bench", "--quick")
    assert result.returncode == 0, result.stderr
    for fragment in ("perft(9)", "playouts", "MCTS reversi", "tictactoe_v3"):
        assert fragment in result.stdout
    # every catalog game, its perft checked against counts from outside the code (the command
    # fails otherwise), and PettingZoo's Connect Four for comparison
    for fragment in (
        "reversi 8x8 perft(9): ", "3,005,288 leaves", "tictactoe perft(9): ", "255,168 leaves",
        "connect_four perft(9): ", "39,452,034 leaves", "MCTS connect_four", "connect_four_v3",
        "env steps/s, boardzoo connect_four_v0",
    ):  # fmt: skip
        assert fragment in result.stdout


def test_arena_then_replay_and_gif(tmp_path):
    records = tmp_path / "m1.jsonl"
    result = boardzoo(
        "arena", "reversi", "mcts:simulations=50", "greedy", "--games", "2", "--size", "4",
        "--out", str(records), "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "mcts:simulations=50" in result.stdout and "Elo difference" in result.stdout
    lines = records.read_text().splitlines()
    assert len(lines) == 2 and {json.loads(line)["game_index"] for line in lines} == {0, 1}

    again = boardzoo("arena", "reversi", "random", "greedy", "--out", str(records), "--games", "1")
    assert_user_error(again, "already holds games", "--resume")

    shown = boardzoo("replay", str(records), "--game", "1", "--ui", "text", "--delay", "0")
    assert shown.returncode == 0, shown.stderr
    assert "Result:" in shown.stdout
    gif = tmp_path / "g.gif"
    written = boardzoo("replay", str(records), "--game", "0", "--gif", str(gif))
    assert written.returncode == 0, written.stderr
    assert gif.stat().st_size > 0
    assert_user_error(boardzoo("replay", str(records), "--game", "5"), "holds games 0..1")


def test_tournament_writes_tables_and_plot(tmp_path):
    out = tmp_path / "t1"
    result = boardzoo(
        "tournament", "tictactoe", "random", "alphabeta", "mcts:simulations=100",
        "--games", "2", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert {"games.jsonl", "ratings.csv", "ratings.md", "ratings.png"} <= {
        p.name for p in out.iterdir()
    }
    assert "alphabeta" in (out / "ratings.md").read_text()


def test_play_in_the_terminal_with_typed_moves():
    # bad, the centre, the centre again (taken by then), then action numbers and squares
    script = "e5\nb2\nb2\n0\n1\n2\n3\n5\n6\n7\n8\nquit\n"
    result = subprocess.run(
        [sys.executable, "-m", "boardzoo", "play", "tictactoe", "--x", "human", "--o",
         "alphabeta", "--ui", "text"],
        input=script, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Cannot read move 'e5'" in result.stdout and "a1..c3" in result.stdout
    assert "X plays b2" in result.stdout  # b2 is the centre square
    assert "Illegal move" in result.stdout


def test_play_help_lists_every_game_and_side():
    result = boardzoo("play", "--help")
    assert result.returncode == 0
    for fragment in ("connect_four", "--first", "--second", "--black", "--white", "--x", "--o",
                     "--red", "--yellow", "--size"):  # fmt: skip
        assert fragment in result.stdout


@pytest.mark.parametrize(
    ("args", "first", "second"),
    [
        (("connect_four", "--first", "random", "--second", "greedy"), "random", "greedy"),
        (("connect_four", "--yellow", "random", "--red", "greedy"), "greedy", "random"),
        (("tictactoe", "--o", "random", "--first", "greedy"), "greedy", "random"),
        (("reversi", "--white", "random", "--black", "greedy", "--size", "4"), "greedy", "random"),
    ],
)
def test_play_takes_the_players_by_move_order_or_by_side(args, first, second):
    result = boardzoo("play", *args, "--ui", "text", "--seed", "3")
    assert result.returncode == 0, result.stderr
    header = result.stdout.splitlines()[0]  # names the players, first player first
    assert header.index(f"({first})") < header.index(f"({second})"), header
    assert "Game over" in result.stdout


def test_play_reversi_on_the_board_size_given():
    result = boardzoo("play", "reversi", "--first", "random", "--second", "random", "--size", "6",
                      "--ui", "text", "--seed", "1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "  a b c d e f\n" in result.stdout and "  a b c d e f g" not in result.stdout


def test_connect_four_arena_tournament_and_replay(tmp_path):
    records = tmp_path / "runs" / "c4.jsonl"
    result = boardzoo(
        "arena", "connect_four", "random", "greedy", "--games", "4", "--workers", "2",
        "--out", str(records), "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "connect_four: random vs greedy" in result.stdout and "as red" in result.stdout
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert sorted(g["game_index"] for g in games) == [0, 1, 2, 3]
    assert all(g["options"] == {} and set(g["move_names"]) <= set("abcdefg") for g in games)

    folder = tmp_path / "runs" / "c4"
    result = boardzoo(
        "tournament", "connect_four", "random", "greedy", "alphabeta:depth=2",
        "--games", "2", "--out", str(folder), "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "connect_four round robin: 3 agents" in result.stdout
    assert {"games.jsonl", "ratings.csv", "ratings.md", "ratings.png"} <= {
        p.name for p in folder.iterdir()
    }
    assert len((folder / "games.jsonl").read_text().splitlines()) == 6  # 3 pairs x 2 games

    shown = boardzoo("replay", str(folder / "games.jsonl"), "--game", "1", "--ui", "text",
                     "--delay", "0")  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "Result:" in shown.stdout
    gif = tmp_path / "c4.gif"
    written = boardzoo("replay", str(folder / "games.jsonl"), "--game", "1", "--gif", str(gif))
    assert written.returncode == 0, written.stderr
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")


def test_replay_reads_records_of_the_first_format(tmp_path):
    # as the arena wrote them before game options: "board_size" instead of "options"
    moves = [19, 18, 17]  # d3, c3, b3 on 8x8 (action row * 8 + col)
    old = {"format": 1, "game": "reversi", "board_size": 8, "moves": moves}
    ttt = {"format": 1, "game": "tictactoe", "board_size": 3, "moves": [4, 0, 8]}
    records = tmp_path / "old.jsonl"
    records.write_text(json.dumps(old) + "\n" + json.dumps(ttt) + "\n")
    for index in ("0", "1"):
        shown = boardzoo("replay", str(records), "--game", index, "--ui", "text", "--delay", "0")
        assert shown.returncode == 0, shown.stderr
    small = {"format": 1, "game": "reversi", "board_size": 4, "moves": [4]}  # a2 on 4x4
    records.write_text(json.dumps(small) + "\n")
    shown = boardzoo("replay", str(records), "--ui", "text", "--delay", "0")
    assert shown.returncode == 0, shown.stderr
    assert "  a b c d\n" in shown.stdout and "  a b c d e" not in shown.stdout
