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
