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
        (("demo", "--size", "5"), ["invalid choice: 5"]),
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
    script = "e5\nb2\n1\n2\n3\n5\n7\n8\n6\nquit\n"  # bad, illegal-later, then squares
    result = subprocess.run(
        [sys.executable, "-m", "boardzoo", "play", "tictactoe", "--x", "human", "--o",
         "alphabeta", "--ui", "text"],
        input=script, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Unknown square 'e5'" in result.stdout
