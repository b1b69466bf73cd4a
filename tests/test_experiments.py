"""Experiment scripts run end to end in --quick mode and write their files.

Each script runs once as a program (a subprocess, ``run_script``); its other runs (resumes, other
settings) and its argument errors call its ``main(argv)`` in this process (``run_main``,
``stop_message``), sparing an interpreter and its imports (torch, stable-baselines3) each.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from repo_scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
# The scripts that play matches through the arena (they take --workers).
ARENA_SCRIPTS = ("ladder.py", "mcts_scaling.py", "mcts_vs_rl.py", "puct_vs_uct.py")


def quick_argv(name: str, args: tuple[str, ...], out: Path) -> list[str]:
    # one worker: half the agent processes to start, on a 2-core machine no slower
    workers = ("--workers", "1") if name in ARENA_SCRIPTS else ()
    return ["--quick", "--out", str(out), *workers, *args]


def run_script(name: str, *args: str, out: Path) -> Path:
    """``experiments/<name> --quick --out <out> ARGS`` as a program: its run folder."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / name), *quick_argv(name, args, out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (folder,) = out.iterdir()
    return folder


def script_main(name: str) -> Any:
    """The ``main(argv)`` of ``experiments/<name>``, loaded as a module."""
    return load_script(f"experiments/{name}", f"experiment_{name.removesuffix('.py')}").main


def in_process(name: str, *argv: str) -> Path:
    """``main(argv)`` of ``experiments/<name>`` in this process (torch's threads kept): the run
    folder it returns."""
    try:
        import torch
    except ImportError:
        torch = None
    threads = torch.get_num_threads() if torch is not None else 0
    try:
        return Path(script_main(name)(list(argv)))
    finally:
        if torch is not None:
            torch.set_num_threads(threads)


def run_main(name: str, *args: str, out: Path) -> Path:
    """``run_script``'s run, in this process: its run folder."""
    folder = in_process(name, *quick_argv(name, args, out))
    assert [folder] == list(out.iterdir())
    return folder


def stop_message(capsys: pytest.CaptureFixture[str], name: str, *argv: str) -> str:
    """What ``experiments/<name> ARGV`` prints on stderr as it stops with an error (its
    ``SystemExit``'s message, or argparse's); any other exception fails the test (it would be a
    traceback)."""
    with pytest.raises(SystemExit) as stopped:
        script_main(name)(list(argv))
    code = stopped.value.code
    assert code not in (None, 0), code
    return capsys.readouterr().err + (code if isinstance(code, str) else "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "run"),
    [
        (("--game", "tictactoe", "--algo", "maskable_ppo"), run_script),
        (("--game", "reversi", "--board-size", "4", "--opponent", "self_play", "--policy", "cnn"),
         run_main),
        (("--game", "tictactoe", "--algo", "dqn"), run_main),
        (("--game", "reversi", "--board-size", "6", "--num-envs", "16", "--opponent", "greedy"),
         run_main),
    ],
    ids=["ppo-program", "self_play-cnn", "dqn", "batched"],
)  # fmt: skip
@pytest.mark.rl
def test_train_baseline_quick(args, run, tmp_path):
    folder = run("train_baseline.py", *args, out=tmp_path)
    assert folder.name.startswith("train_baseline-")
    for name in ("args.json", "model.zip", "evaluations.csv", "learning_curve.png"):
        assert (folder / name).stat().st_size > 0, name
    with (folder / "progress.csv").open() as source:  # SB3's own log, in the run folder
        assert "time/total_timesteps" in next(csv.reader(source))
    with (folder / "evaluations.csv").open() as source:
        rows = list(csv.DictReader(source))
    assert {row["opponent"] for row in rows} == {"random", "greedy"}
    steps = {int(row["step"]) for row in rows}
    if "--num-envs" in args:  # 16 steps a call: evaluations at the first call past each 500,
        assert steps == {0, 512, 1008, 1024}  # and at the end of the one rollout of 16 x 64
    elif "dqn" in args:  # at the start, every 500 steps
        assert steps == {0, 500, 1000}
    else:  # and at the end of PPO's last rollout of 512
        assert steps == {0, 500, 1000, 1024}
    if "self_play" in args:
        assert list((folder / "checkpoints").glob("snapshot_*.zip"))


def test_bad_arguments_stop_with_a_message(tmp_path, capsys):
    """As a program: the message, no traceback (the other argument errors in this process)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "train_baseline.py"), "--algo", "sac",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "--algo must be one of maskable_ppo, dqn, got 'sac'" in result.stderr
    assert "Traceback" not in result.stderr
    batched = stop_message(capsys, "train_baseline.py", "--num-envs", "8", "--opponent", "mcts",
                           "--out", str(tmp_path))  # fmt: skip
    assert (
        "opponents are random, greedy or alphabeta:depth=N (N from 1 to 4); got --opponent 'mcts'"
        in batched
    )
    assert not list(tmp_path.iterdir())  # no run folder


@pytest.mark.slow
def test_mcts_scaling_quick(tmp_path):
    folder = run_script("mcts_scaling.py", out=tmp_path)
    assert folder.name.startswith("mcts_scaling-reversi-")
    assert json.loads((folder / "args.json").read_text())["options"] == ["board_size=6"]  # quick
    games = [json.loads(line) for path in folder.glob("*.jsonl") for line in path.open()]
    assert games and all(game["options"] == {"board_size": 6} for game in games)
    with (folder / "scaling.csv").open() as source:
        rows = list(csv.DictReader(source))
    assert len(rows) == 6  # 2 opponents x (2 simulation budgets + 1 time budget)
    assert all(0.0 <= float(r["low"]) <= float(r["score"]) <= float(r["high"]) <= 1.0 for r in rows)
    assert (folder / "scaling.png").stat().st_size > 0
    assert "| 0.01 s |" in (folder / "table.md").read_text()
    assert len(list(folder.glob("*.jsonl"))) == 6


@pytest.fixture(scope="module")
def sb3_model(tmp_path_factory) -> Path:
    """A MaskablePPO model for Reversi 6x6, untrained: the experiments only play it."""
    from sb3_contrib import MaskablePPO

    from boardzoo.envs.single_agent import BoardGameSingleAgentEnv

    path = tmp_path_factory.mktemp("sb3") / "ppo.zip"
    env = BoardGameSingleAgentEnv("reversi", opponent="random", board_size=6)
    MaskablePPO("MlpPolicy", env, n_steps=64, seed=0).save(path)
    return path


@pytest.fixture(scope="module")
def az_model(tmp_path_factory) -> Path:
    """A boardzoo model file (a tiny AZNet, untrained, ``.pt`` with its ``.json``), Reversi 6x6."""
    from boardzoo.learned.model_io import save_model
    from boardzoo.learned.network import AZNet, NetworkSettings

    path = tmp_path_factory.mktemp("az") / "tiny" / "model.pt"
    save_model(path, AZNet(NetworkSettings("reversi", {"board_size": 6}, channels=4, blocks=0)))
    return path


def point_rows(path: Path) -> list[dict[str, str]]:
    rows = list(csv.DictReader(path.open()))
    for row in rows:
        assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == int(row["games"]) == 2
        assert 0.0 <= float(row["low"]) <= float(row["score"]) <= float(row["high"]) <= 1.0
    return rows


@pytest.mark.slow
@pytest.mark.rl
@pytest.mark.torch
def test_mcts_vs_rl_quick(sb3_model, az_model, tmp_path):
    """An SB3 model plays by its policy (``sb3:path=``), a boardzoo model (.pt with its .json)
    too (``az:model=...,simulations=1``)."""
    folder = run_script("mcts_vs_rl.py", "--models", f"ppo={sb3_model}", f"az={az_model}",
                        "--board-size", "6", out=tmp_path)  # fmt: skip
    assert folder.name.startswith("mcts_vs_rl-reversi-")
    rows = point_rows(folder / "results.csv")
    assert [(r["baseline"], r["budget"], r["second"]) for r in rows] == [
        ("vs ppo", "10", f"sb3:path={sb3_model}"),
        ("vs ppo", "100", f"sb3:path={sb3_model}"),
        ("vs az", "10", f"az:model={az_model},simulations=1"),
        ("vs az", "100", f"az:model={az_model},simulations=1"),
    ]
    table = (folder / "table.md").read_text()
    assert "| MCTS simulations / move | vs ppo | vs az |" in table and table.count("\n") == 4
    assert (folder / "mcts_vs_rl.png").stat().st_size > 0
    assert sorted(path.name for path in folder.glob("*.jsonl")) == [
        "az__sims10.jsonl", "az__sims100.jsonl", "ppo__sims10.jsonl", "ppo__sims100.jsonl",
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.rl
def test_puct_vs_uct_quick_trains_its_own_model(tmp_path):
    folder = run_script("puct_vs_uct.py", "--game", "tictactoe", out=tmp_path)
    assert (folder / "quick_model.zip").stat().st_size > 0
    rows = point_rows(folder / "results.csv")
    assert [(r["variant"], r["budget"]) for r in rows] == [
        ("PUCT prior + rollouts vs UCT", "10"),
        ("PUCT prior + rollouts vs UCT", "50"),
        ("PUCT prior + value head vs UCT", "10"),
        ("PUCT prior + value head vs UCT", "50"),
    ]
    assert rows[0]["first"].startswith("sb3puct:path=")
    assert rows[0]["second"] == "mcts:simulations=10"
    assert (folder / "puct_vs_uct.png").stat().st_size > 0


@pytest.mark.slow
@pytest.mark.rl
def test_ladder_quick(tmp_path, monkeypatch, capsys):
    folder = run_script("ladder.py", out=tmp_path)
    assert folder.name.startswith("ladder-reversi-")
    ratings = list(csv.DictReader((folder / "ratings.csv").open()))
    assert (folder / "quick_ppo.zip").stat().st_size > 0
    agents = {"random", "greedy", "mcts:simulations=20", "sb3:path=quick_ppo.zip",
              "sb3puct:path=quick_ppo.zip,simulations=10"}  # fmt: skip
    assert {r["agent"] for r in ratings} == agents
    games = [json.loads(line) for line in (folder / "games.jsonl").open()]
    assert len(games) == 2 * 10  # 2 games for each of the 10 pairs
    assert all(game["opening_plies"] == 4 and game["pair_openings"] for game in games)
    for name in ("ratings.md", "ratings.png"):
        assert (folder / name).stat().st_size > 0
    # --resume-folder alone: the run's own agents, games and quick mode from its args.json (the
    # command line's defaults would be a different, full-size ladder), nothing played twice
    played = (folder / "games.jsonl").read_text()
    monkeypatch.chdir(tmp_path)  # (main goes into the run folder; back after the test)
    capsys.readouterr()
    assert in_process("ladder.py", "--resume-folder", str(folder), "--games", "7") == folder
    assert "note: --games 7 ignored: the resumed run keeps its 2" in capsys.readouterr().out
    assert (folder / "games.jsonl").read_text() == played
    assert {r["agent"] for r in csv.DictReader((folder / "ratings.csv").open())} == agents


def test_experiments_without_a_model_stop_with_a_message(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "mcts_vs_rl.py"), "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "--models is required" in result.stderr


@pytest.mark.slow
def test_mcts_scaling_quick_on_connect_four(tmp_path):
    folder = run_main("mcts_scaling.py", "--game", "connect_four", out=tmp_path)
    assert folder.name.startswith("mcts_scaling-connect_four-")
    assert json.loads((folder / "args.json").read_text())["options"] == []  # the game has none
    rows = list(csv.DictReader((folder / "scaling.csv").open()))
    assert len(rows) == 6
    games = [json.loads(line) for path in folder.glob("*.jsonl") for line in path.open()]
    assert len(games) == 6 * 2
    assert all(g["game"] == "connect_four" and g["options"] == {} for g in games)
    assert all(set(g["move_names"]) <= set("abcdefg") for g in games)


@pytest.mark.parametrize(
    ("script", "args", "fragments"),
    [
        ("mcts_scaling.py", ("--opponents", "random", "mcts:simulations=-5"),
         ("--opponents: ", "simulations", "-5")),
        ("mcts_scaling.py", ("--simulations", "100", "0"), ("--simulations", "simulations", "0")),
        ("ladder.py", ("--agents", "random", "alphabeta:depth=0"), ("--agents: ", "depth", "0")),
        ("train_baseline.py", ("--opponent", "mcts:c=-1"), ("--opponent: ", "c", "-1")),
        ("train_baseline.py", ("--eval-opponents", "minimax"),
         ("--eval-opponents: ", "unknown agent 'minimax'")),
        ("mcts_vs_rl.py", ("--simulations", "-3"), ("--simulations: ", "-3")),
        ("puct_vs_uct.py", ("--simulations", "10", "0"), ("--simulations: ", "0")),
    ],
)  # fmt: skip
def test_agent_specs_are_built_up_front(script, args, fragments, tmp_path, capsys):
    """A spec a constructor refuses stops the script before its run folder, in one line."""
    message = stop_message(capsys, script, "--out", str(tmp_path), *args).strip()
    assert "\n" not in message and all(fragment in message for fragment in fragments), message
    assert not list(tmp_path.iterdir())  # no run folder


@pytest.mark.parametrize(
    ("script", "args", "fragment"),
    [
        ("mcts_scaling.py", ("--game", "tictactoe", "--board-size", "4"),
         "tictactoe has no option 'board_size'; its options: none"),
        ("ladder.py", ("--game", "chess"), "unknown game 'chess'"),
        ("mcts_scaling.py", ("--board-size", "5"), "board_size must be one of [4, 6, 8], got 5"),
        ("train_baseline.py", ("--game", "connect_four", "--board-size", "6"),
         "connect_four has no option 'board_size'"),
        ("mcts_scaling.py", ("--options", "board_size"), "NAME=VALUE"),
    ],
)  # fmt: skip
def test_game_options_are_checked_up_front(script, args, fragment, tmp_path, capsys):
    assert fragment in stop_message(capsys, script, "--out", str(tmp_path), *args)
    assert not list(tmp_path.iterdir())  # no run folder


def test_strength_benchmark_resumes_the_committed_records(tmp_path):
    """The committed 1 s games (written before game options) are found again: nothing to play,
    the same table."""
    results = ROOT / "benchmarks" / "results"
    out = tmp_path / "strength_1s.jsonl"
    out.write_bytes((results / "strength_1s.jsonl").read_bytes())
    committed = (results / "strength_1s.md").read_text().splitlines()
    pairings = [
        f"{first.strip(' `')} vs {second.strip(' `')}"
        for first, second in (line.split("|")[1:3] for line in committed[2:])
    ]
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_strength.py"), "--out", str(out),
               "--games", "100", "--workers", "1"]  # fmt: skip
    for pairing in pairings:
        command += ["--pairing", pairing]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "500 games already in" in result.stdout and "; 0 to play" in result.stdout
    assert out.with_suffix(".md").read_text().splitlines() == committed


@pytest.mark.slow
@pytest.mark.torch
def test_ppo_selfplay_quick_trains_evaluates_and_resumes(tmp_path, capsys):
    folder = run_script("ppo_selfplay.py", "--threads", "1", out=tmp_path)
    for name in ("args.json", "model.pt", "model.json", "checkpoint.pt", "metrics.csv",
                 "evaluations.csv"):  # fmt: skip
        assert (folder / name).stat().st_size > 0, name
    config = json.loads((folder / "model.json").read_text())
    assert config["config"]["game"] == "reversi" and config["config"]["channels"] == 8
    assert config["config"]["options"] == {"board_size": 6}  # quick
    with (folder / "evaluations.csv").open() as source:
        rows = list(csv.DictReader(source))
    assert {row["opponent"] for row in rows} == {"random", "greedy"}
    assert all(int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == 2 for row in rows)
    metrics = [line.split(",") for line in (folder / "metrics.csv").read_text().split()[1:]]
    updates = [int(row[0]) for row in metrics]
    assert updates == list(range(1, len(updates) + 1))
    # resuming with more minutes (a moment more: an update at least) goes on from the
    # checkpoint's update
    minutes = float(metrics[-1][2]) + 0.005
    capsys.readouterr()
    in_process("ppo_selfplay.py", "--resume-folder", str(folder), "--minutes", f"{minutes:.3f}")
    assert f"resumed {folder} at update {updates[-1]}" in capsys.readouterr().out
    more = [int(line.split(",")[0]) for line in (folder / "metrics.csv").read_text().split()[1:]]
    assert more[: len(updates)] == updates and more[-1] > updates[-1]


@pytest.mark.slow
@pytest.mark.torch
def test_the_ladder_takes_boardzoo_model_files(az_model, tmp_path, monkeypatch):
    """A boardzoo model (.pt with its .json) plays by its policy and as AlphaZero's search (and
    in mcts_vs_rl.py by its policy: test_mcts_vs_rl_quick)."""
    monkeypatch.chdir(tmp_path)  # (main goes into the run folder; back after the test)
    folder = run_main("ladder.py", "--models", f"az={az_model}", out=tmp_path / "ladder")
    ratings = list(csv.DictReader((folder / "ratings.csv").open()))
    agents = {"random", "greedy", "mcts:simulations=20", "az:model=az.pt,simulations=1",
              "az:model=az.pt,simulations=10"}  # fmt: skip
    assert {r["agent"] for r in ratings} == agents
    assert (folder / "az.json").is_file()


def test_resuming_takes_the_run_settings_and_only_how_to_run_from_the_command_line(
    tmp_path, capsys
):
    from dataclasses import dataclass

    from boardzoo.experiment_kit import arg, parse_args

    @dataclass(frozen=True)
    class Settings:
        games: int = arg(10, "games")
        agents: tuple[str, ...] = arg(("random",), "agents")
        workers: int = arg(1, "workers")
        minutes: float = arg(60.0, "minutes")
        resume_folder: str = arg("", "folder")
        newer: bool = arg(True, "a setting the saved run predates", before=False)

    saved = {"games": 4, "agents": ["greedy", "random"], "workers": 2, "minutes": 0.5}
    (tmp_path / "args.json").write_text(json.dumps({**saved, "resume_folder": ""}))
    folder = str(tmp_path)
    assert parse_args(Settings, []) == Settings(10, ("random",), 1, 60.0, "", True)
    alone = parse_args(Settings, ["--resume-folder", folder])
    assert alone == Settings(4, ("greedy", "random"), 2, 0.5, folder, False)
    given = parse_args(Settings, ["--resume-folder", folder, "--workers", "1", "--minutes",
                                  "60", "--games", "4", "--agents", "mcts"])  # fmt: skip
    assert given == Settings(4, ("greedy", "random"), 1, 60.0, folder, False)
    notes = capsys.readouterr().out
    assert "note: --agents ('mcts',) ignored" in notes and "--games" not in notes
    (tmp_path / "args.json").write_text("{not json")
    with pytest.raises(SystemExit, match="cannot read the run's settings"):
        parse_args(Settings, ["--resume-folder", folder])
