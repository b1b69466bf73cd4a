"""Experiment scripts run end to end in --quick mode, in a subprocess, and write their files."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, *args: str, out: Path) -> Path:
    result = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / name), "--quick", "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (folder,) = out.iterdir()
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ("--game", "tictactoe", "--algo", "maskable_ppo"),
        ("--game", "reversi", "--board-size", "4", "--opponent", "self_play", "--policy", "cnn"),
        ("--game", "tictactoe", "--algo", "dqn"),
    ],
)
def test_train_baseline_quick(args, tmp_path):
    folder = run_script("train_baseline.py", *args, out=tmp_path)
    assert folder.name.startswith("train_baseline-")
    for name in ("args.json", "model.zip", "evaluations.csv", "learning_curve.png"):
        assert (folder / name).stat().st_size > 0, name
    with (folder / "evaluations.csv").open() as source:
        rows = list(csv.DictReader(source))
    assert {row["opponent"] for row in rows} == {"random", "greedy"}
    assert {int(row["step"]) for row in rows} >= {0, 3000}
    if "self_play" in args:
        assert list((folder / "checkpoints").glob("snapshot_*.zip"))


def test_bad_arguments_stop_with_a_message(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "train_baseline.py"), "--algo", "sac",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "--algo must be one of maskable_ppo, dqn, got 'sac'" in result.stderr
    assert "Traceback" not in result.stderr


def test_mcts_scaling_quick(tmp_path):
    folder = run_script("mcts_scaling.py", out=tmp_path)
    assert folder.name.startswith("mcts_scaling-reversi-")
    with (folder / "scaling.csv").open() as source:
        rows = list(csv.DictReader(source))
    assert len(rows) == 6  # 2 opponents x (2 simulation budgets + 1 time budget)
    assert all(0.0 <= float(r["low"]) <= float(r["score"]) <= float(r["high"]) <= 1.0 for r in rows)
    assert (folder / "scaling.png").stat().st_size > 0
    assert len(list(folder.glob("*.jsonl"))) == 6
