"""experiments/enhancements.py: the matches it plans, its checks, and a --quick run end to end
(resumed: nothing played twice)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from repo_scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "enhancements.py"


def load_experiment():
    return load_script("experiments/enhancements.py", "enhancements")


def run(*args: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_the_planned_matches():
    enhancements = load_experiment()
    variants = ("rave=true", "cutoff=8,eval=learned")
    args = enhancements.Args(time_per_move=(0.1, 1.0), variants=variants, targets=True)
    planned = [(m.section, m.first, m.second) for m in enhancements.matches(args)]
    assert planned[:4] == [
        ("variants", "mcts:time_limit=0.1,rave=true", "mcts:time_limit=0.1"),
        ("variants", "mcts:time_limit=0.1,cutoff=8,eval=learned", "mcts:time_limit=0.1"),
        ("variants", "mcts:time_limit=1,rave=true", "mcts:time_limit=1"),
        ("variants", "mcts:time_limit=1,cutoff=8,eval=learned", "mcts:time_limit=1"),
    ]
    assert ("parallel", "mcts:time_limit=0.1,threads=2", "mcts:time_limit=0.1") in planned
    assert ("parallel", "mcts:time_limit=1,workers=2", "mcts:time_limit=1") in planned
    assert ("learned", "alphabeta:depth=4,eval=learned", "alphabeta:depth=4") in planned
    assert ("learned", "greedy:eval=learned", "greedy") in planned
    targets = [m for m in enhancements.matches(args) if m.section == "targets"]
    assert [(m.first, m.second, m.target) for m in targets] == [
        ("mcts:time_limit=1,preset=strong", "alphabeta:depth=6", 0.5),
        ("mcts:time_limit=1,preset=strong", "mcts:time_limit=1", 0.8),
        ("mcts:time_limit=1", "alphabeta:depth=6", None),
    ]
    assert len(planned) == 4 + 4 + 2 + 3
    quick = enhancements.quick_args(enhancements.Args(quick=True, games=2))
    assert quick.games == 2 and quick.time_per_move == (0.02,)  # given values stay


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--variants", "rave=true,time_limit=1"), "without time_limit or simulations"),
        (("--variants", "rave=maybe"), "--variants/--baseline: "),
        (("--time-per-move", "0"), "seconds must be > 0"),
        (("--sprt", "elo0=20,elo1=0"), "--sprt: "),
        (("--openings", "no-such-file.txt"), "--openings: "),
    ],
)
def test_bad_arguments_stop_before_the_run_folder(args, fragment, tmp_path):
    """(In this process: ``main`` stops with a one-line ``SystemExit``, which a program prints
    without a traceback; test_quick_run_and_resume runs the script as a program.)"""
    with pytest.raises(SystemExit) as stopped:
        load_experiment().main(["--out", str(tmp_path), *args])
    message = stopped.value.code
    assert isinstance(message, str) and "\n" not in message and fragment in message, message
    assert not list(tmp_path.iterdir())


def test_an_agent_that_cannot_play_is_skipped_with_its_reason(tmp_path, monkeypatch):
    """An agent whose build or preparation fails (a learned evaluation not shipped for the game)
    gets a row that says why; nothing is played, nothing stops."""
    from boardzoo.agents import registry

    enhancements = load_experiment()
    real = registry.make_agent

    def make_agent(spec, seed=None):
        if "eval=learned" in spec:
            raise ValueError("the learned evaluation of reversi 6x6 is missing\nsecond line")
        return real(spec, seed=seed)

    monkeypatch.setattr(registry, "make_agent", make_agent)
    args = enhancements.Args(
        options=("board_size=6",), games=2, speed_positions=1, speed_searches=1
    )
    speeds = enhancements.Speeds(tmp_path, args)
    match = enhancements.Match("learned", "greedy:eval=learned", None, "greedy:eval=learned",
                               "greedy")  # fmt: skip
    row = enhancements.play(tmp_path, args, match, speeds)
    assert row["games"] == 0 and row["first"] == "greedy:eval=learned"
    assert row["verdict"] == "skipped: ValueError: the learned evaluation of reversi 6x6 is missing"
    assert not list(tmp_path.glob("*.jsonl"))
    table = enhancements.match_table([row])
    assert "| learned vs hand eval | `greedy:eval=learned` | - | 0 | - |" in table
    assert speeds.problem("greedy") is None


@pytest.mark.slow
def test_quick_run_and_resume(tmp_path, capsys):
    # sections 1 and 2 (section 3's agents are checked in test_an_agent_that_cannot_play...);
    # the run as a program, its resumption in this process
    args = ("--quick", "--games", "2", "--variants", "rave=true", "--no-learned", "--workers", "1")
    result = run(*args, out=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith("enhancements-reversi-")
    assert json.loads((folder / "args.json").read_text())["options"] == ["board_size=4"]
    rows = list(csv.DictReader((folder / "enhancements.csv").open()))
    assert [(r["section"], r["variant"]) for r in rows] == [
        ("enhancement vs UCT", "rave=true"),
        ("parallel vs 1 thread", "threads=2"),
        ("parallel vs 1 thread", "workers=2"),
    ]
    for row in rows:
        assert int(row["games"]) == 2 == int(row["wins"]) + int(row["draws"]) + int(row["losses"])
        assert 0.0 <= float(row["low"]) <= float(row["score"]) <= float(row["high"]) <= 1.0
        assert float(row["elo_low"]) <= float(row["elo"]) <= float(row["elo_high"])
        assert float(row["sims_first"]) > 0 and float(row["sims_second"]) > 0
    speed = list(csv.DictReader((folder / "speed.csv").open()))
    assert [r["spec"] for r in speed] == [
        "mcts:time_limit=0.02", "mcts:time_limit=0.02,threads=2", "mcts:time_limit=0.02,workers=2",
    ]  # fmt: skip
    assert float(speed[0]["ratio"]) == 1.0 and float(speed[1]["ratio"]) > 0
    table = (folder / "table.md").read_text()
    assert "| enhancement vs UCT | `rave=true` | 0.02 | 2 |" in table
    assert "Simulations a second" in table and table in result.stdout
    assert (folder / "enhancements.png").stat().st_size > 0
    games = [json.loads(line) for path in folder.glob("*.jsonl") for line in path.open()]
    played = [g for g in games if "game_index" in g]
    assert played and all(g["openings"] == "balanced" and g["pair_openings"] for g in played)

    measured = (folder / "speed.jsonl").read_text()
    again = ["--out", str(tmp_path), *args, "--resume-folder", str(folder)]
    assert load_experiment().main(again) == folder
    assert table in capsys.readouterr().out
    assert len(list(tmp_path.iterdir())) == 1
    assert (folder / "speed.jsonl").read_text() == measured  # nothing measured twice
    assert sorted(json.loads(line)["game_index"] for line in
                  (folder / "mcts_time_limit=0.02_rave=true__mcts_time_limit=0.02.jsonl").open()
                  ) == [0, 1]  # fmt: skip
    assert (folder / "table.md").read_text() == table
