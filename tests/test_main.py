"""The README's main job, ``boardzoo demo``, run as a user would: in a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


def run_main(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boardzoo", "demo", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_random_reversi_game_is_printed_and_reproducible():
    first = run_main("--seed", "5")
    assert first.returncode == 0, first.stderr
    assert "  a b c d e f g h" in first.stdout
    opening = re.search(r"black_0 plays (\w+)", first.stdout)
    assert opening is not None and opening.group(1) in {"d3", "c4", "f5", "e6"}
    assert "final rewards:" in first.stdout
    assert first.stdout == run_main("--seed", "5").stdout


@pytest.mark.parametrize(
    "args", [("--game", "tictactoe"), ("--size", "4", "--quiet"), ("--game", "connect_four")]
)
def test_other_games(args):
    result = run_main(*args)
    assert result.returncode == 0, result.stderr
    assert "final rewards:" in result.stdout


def test_moves_are_named_as_the_game_names_them():
    ttt = run_main("--game", "tictactoe", "--seed", "2").stdout
    names = re.findall(r"player_[12] plays (\S+)", ttt)
    assert names and set(names) <= {f"{f}{r}" for f in "abc" for r in "123"}  # squares a1..c3
    c4 = run_main("--game", "connect_four", "--seed", "2").stdout
    columns = re.findall(r"player_[01] plays (\S+)", c4)
    assert len(columns) >= 7 and set(columns) <= set("abcdefg")  # a column a..g per move
    assert re.search(r"player_[01] \S+$", c4.strip())  # the final rewards per agent
    small = run_main("--size", "4", "--seed", "1").stdout
    squares = re.findall(r"black_0 plays (\S+)|white_0 plays (\S+)", small)
    assert squares and {s for pair in squares for s in pair if s} <= {
        f"{f}{r}" for f in "abcd" for r in "1234"
    } | {"pass"}


def test_bad_argument_is_a_clear_error():
    result = run_main("--size", "5")
    assert result.returncode == 2
    assert "invalid choice: 5" in result.stderr
    assert "Traceback" not in result.stderr
