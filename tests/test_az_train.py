"""AlphaZero training (`boardzoo train`) and the `az` agent, end to end on tiny settings."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.torch
require("torch")  # the imports below need it

import torch  # noqa: E402

from boardzoo.agents import make_agent  # noqa: E402
from boardzoo.agents.registry import AgentSpecError  # noqa: E402
from boardzoo.az.train import QUICK, settings_from, train  # noqa: E402
from boardzoo.games.catalog import make_game  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread(one_torch_thread):
    """Every test here on one torch thread."""


def _quick(tmp_path, name="run", **given):
    return settings_from(QUICK, game="tictactoe", out=tmp_path / name, progress=False,
                         device="cpu", **given)  # fmt: skip


def _weights(folder):
    state = torch.load(folder / "model.pt", weights_only=True)
    return {key: value.clone() for key, value in state.items()}


def test_a_quick_run_writes_models_metrics_and_a_checkpoint(tmp_path):
    summary = train(_quick(tmp_path), log=lambda line: None)
    out = tmp_path / "run"
    assert summary.iterations == 2 and summary.games == 2 * QUICK["games_per_iteration"]
    for name in (
        "settings.json",
        "model.pt",
        "model.json",
        "metrics.csv",
        "elo.png",
        "models/iteration-0001.pt",
        "models/iteration-0002.json",
        "checkpoint/learner.pt",
        "checkpoint/buffer.npz",
        "checkpoint/state.json",
    ):
        assert (out / name).is_file(), name  # fmt: skip
    rows = (out / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("iteration,games,positions") and len(rows) == 3
    assert "score_vs_random" in rows[0] and "elo_vs_random" in rows[0]
    # the policy against perfect play, on the shipped TicTacToe labelled set
    last = summary.metrics[-1]
    assert 30 < last["policy_keeps_result"] <= 100 and last["policy_best_score"] <= 100
    meta = json.loads((out / "model.json").read_text())
    assert meta["metadata"]["iteration"] == 2 and meta["metadata"]["game"] == "tictactoe"
    # every position recorded is one where the mover had a choice: at most 9 plies a game
    assert 0 < summary.positions <= 9 * summary.games


def test_a_resumed_run_ends_as_an_uninterrupted_one(tmp_path):
    whole = train(_quick(tmp_path, "whole", iterations=3), log=lambda line: None)
    train(_quick(tmp_path, "parts", iterations=1), log=lambda line: None)
    with pytest.raises(ValueError, match="already holds files"):
        train(_quick(tmp_path, "parts", iterations=3), log=lambda line: None)
    parts = train(_quick(tmp_path, "parts", iterations=3, resume=True), log=lambda line: None)
    assert (parts.iterations, parts.games, parts.positions) == (
        whole.iterations, whole.games, whole.positions,
    )  # fmt: skip
    a, b = _weights(tmp_path / "whole"), _weights(tmp_path / "parts")
    assert all(torch.equal(a[key], b[key]) for key in a)
    losses = [(r["loss"], r["value_loss"]) for r in whole.metrics]
    assert losses == [(r["loss"], r["value_loss"]) for r in parts.metrics]


def test_resume_refuses_other_settings_and_empty_folders(tmp_path):
    train(_quick(tmp_path, iterations=1), log=lambda line: None)
    with pytest.raises(ValueError, match="simulations=8"):
        train(_quick(tmp_path, iterations=2, resume=True, simulations=9), log=lambda line: None)
    with pytest.raises(ValueError, match="no training run to resume"):
        train(_quick(tmp_path, "nothing", iterations=2, resume=True), log=lambda line: None)


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ({"simulations": 0}, "simulations=0 is not allowed: it must be an integer >= 1"),
        ({"iterations": None, "minutes": None}, "give a budget"),
        ({"search": "alphabeta"}, "search must be gumbel or puct"),
        ({"lr": -1.0}, "lr=-1.0 is not allowed: it must be a number > 0"),
        ({"options": {"board_size": 8}}, "board_size"),
    ],
)
def test_bad_settings_are_one_line_errors(tmp_path, given, fragment):
    base = dict(QUICK, game="tictactoe", out=tmp_path / "x")
    base.update(given)
    with pytest.raises(ValueError, match=fragment):
        settings_from({}, **base)


def _boardzoo(*args, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "boardzoo", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, **kwargs,
    )  # fmt: skip


@pytest.mark.slow
def test_the_command_resumes_after_kill_9_with_the_same_games(tmp_path, one_torch_thread):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    # No evaluation: an iteration is then a few hundredths of a second, and the command is its
    # process's start-up; enough of them that the kill lands in the middle of the run.
    iterations = 12
    args = ("train", "tictactoe", "--quick", "--iterations", str(iterations), "--eval-games",
            "0", "--device", "cpu", "--no-progress")  # fmt: skip
    killed = _boardzoo(*args, "--out", str(tmp_path / "killed"), env=env)
    state = tmp_path / "killed" / "checkpoint" / "state.json"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and killed.poll() is None:
        if state.is_file() and json.loads(state.read_text())["iteration"] >= 1:
            break
        time.sleep(0.01)
    if killed.poll() is None:
        killed.send_signal(signal.SIGKILL)
    killed.communicate(timeout=60)
    # killed in the middle of the run
    assert 1 <= json.loads(state.read_text())["iteration"] < iterations
    # The run not killed: the command's settings (--quick), in this process.
    train(_quick(tmp_path, "whole", iterations=iterations, eval_games=0), log=lambda line: None)
    resumed = subprocess.run(
        [sys.executable, "-m", "boardzoo", *args, "--out", str(tmp_path / "killed"), "--resume"],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    ends = [
        json.loads((tmp_path / run / "checkpoint" / "state.json").read_text())
        for run in ("whole", "killed")
    ]
    assert ends[0]["iteration"] == ends[1]["iteration"] == iterations
    assert ends[0]["games"] == ends[1]["games"] == iterations * QUICK["games_per_iteration"]
    assert ends[0]["positions"] == ends[1]["positions"]
    assert "model:" in resumed.stdout
    # The model says how it was trained: the first command, then the resume.
    metadata = json.loads((tmp_path / "killed" / "model.json").read_text())["metadata"]
    assert [c.endswith("--resume") for c in metadata["commands"]] == [False, True]
    assert all(c.startswith("boardzoo train tictactoe --quick") for c in metadata["commands"])


def test_the_command_rejects_bad_input_in_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "boardzoo", "train", "tictactoe", "--quick", "--simulations", "0",
         "--out", str(tmp_path / "x")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "simulations=0 is not allowed: it must be an integer >= 1" in result.stderr
    assert not (tmp_path / "x").exists()


# --- the az agent -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """An untrained tiny network per game (legal play does not need a trained one)."""
    from boardzoo.learned.model_io import save_model
    from boardzoo.learned.network import AZNet, NetworkSettings

    folder = tmp_path_factory.mktemp("models")
    torch.manual_seed(0)
    paths = {}
    for name, options in (("tictactoe", {}), ("connect_four", {}), ("reversi", {"board_size": 6})):
        game = make_game(name, **options)
        net = AZNet(NetworkSettings.for_game(game, channels=8, blocks=1, value_hidden=8))
        paths[name] = save_model(folder / f"{name}.pt", net, metadata={"test": True})
    return paths


@pytest.mark.parametrize("name", ["tictactoe", "connect_four", "reversi"])
@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_az_plays_legal_moves_to_the_end(tiny_models, name, search):
    options = {"board_size": 6} if name == "reversi" else {}
    game = make_game(name, **options)
    agent = make_agent(f"az:model={tiny_models[name]},simulations=16,search={search}", seed=1)
    agent.prepare(game)
    rng = np.random.default_rng(0)
    state = game.initial_state()
    while not state.is_terminal():
        if state.current_player == 0:
            action = agent.act(state)
            info = agent.last_search
            assert info is not None and info.action == action
            if "solved" in info.extra:  # the endgame went to the solver (az's default)
                assert info.simulations == 0 and info.proven is not None
            elif len(state.legal_actions()) > 1:
                assert info.simulations == 16
                assert sum(m.visits for m in info.moves) >= 16 - 1
        else:
            action = int(rng.choice(state.legal_actions()))
        assert state.is_legal(action)
        state = state.apply(action)


def test_az_keeps_its_time_limit(tiny_models, monkeypatch):
    from fake_clock import FakeTime

    import boardzoo.agents.puct as puct_module
    import boardzoo.search.leaf_batch as leaf_batch
    from boardzoo.agents.settings import TIMED_LEAVES

    game = make_game("connect_four")
    # exact_empties=0: no handover, so the opening book does not answer the empty board
    agent = make_agent(f"az:model={tiny_models['connect_four']},time_limit=0.3,exact_empties=0")
    agent.prepare(game)
    # The search's clock (``time`` of the agent and of the leaf evaluation) is one moved by hand,
    # 1/1024 s at each reading, so nothing depends on the machine's speed (how many simulations
    # a second it runs: benchmarks/bench_az_search.py).
    FakeTime(tick=1 / 1024).install(monkeypatch, puct_module, leaf_batch)
    agent.act(game.initial_state())
    info = agent.last_search
    assert info is not None and info.simulations > TIMED_LEAVES  # more than its first step
    # It searched until the deadline (a share of the limit) and started no step after it.
    assert 0.3 * puct_module._DEADLINE_SHARE <= info.seconds <= 0.3


def test_az_is_the_same_with_the_same_seed(tiny_models):
    game = make_game("tictactoe")
    spec = f"az:model={tiny_models['tictactoe']},simulations=32,search=gumbel"
    first, second = make_agent(spec, seed=5), make_agent(spec, seed=5)
    state = game.initial_state()
    for _ in range(4):
        assert first.act(state) == second.act(state)
        state = state.apply(first.act(state))


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("az:model=/nope.pt", "model='/nope.pt' is neither a file nor a shipped model"),
        ("az:simulations=0", "simulations=0 is not allowed"),
        ("az:search=gumbel,time_limit=1", "gumbel with simulations=N and no time_limit"),
        ("az:leaves=0", "leaves=0 is not allowed"),
        ("az:c_init=0", "c_init=0.0 is not allowed"),
    ],
)
def test_az_bad_values_are_one_line_errors(spec, fragment):
    with pytest.raises(AgentSpecError, match=fragment):
        make_agent(spec)


def test_az_model_of_another_game_is_refused(tiny_models):
    agent = make_agent(f"az:model={tiny_models['tictactoe']}")
    with pytest.raises(ValueError, match="not connect_four"):
        agent.prepare(make_game("connect_four"))


def test_tensorboard_gets_every_figure_when_installed(tmp_path, monkeypatch):
    """With TensorBoard importable (a stand-in here), each iteration's figures are logged."""
    import types

    logged: list[tuple[str, float, int]] = []

    class SummaryWriter:
        def __init__(self, log_dir):
            self.log_dir = log_dir

        def add_scalar(self, key, value, step):
            logged.append((key, value, step))

        def flush(self):
            pass

        def close(self):
            logged.append(("closed", 0, 0))

    module = types.ModuleType("torch.utils.tensorboard")
    module.SummaryWriter = SummaryWriter
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", module)
    summary = train(_quick(tmp_path, iterations=2), log=lambda line: None)
    for row in summary.metrics:  # every number of metrics.csv, at its iteration
        numbers = {k for k, v in row.items() if k != "iteration" and isinstance(v, (int, float))}
        assert numbers == {key for key, _, step in logged if step == row["iteration"]}
    assert {"games", "score_vs_random", "loss"} <= {key for key, _, _ in logged}
    assert logged[-1][0] == "closed"


def test_resume_alone_continues_a_run_with_its_own_settings(tmp_path):
    from boardzoo.cli import main

    out = str(tmp_path / "r4")
    first = ["train", "reversi", "--size", "4", "--quick", "--iterations", "1", "--channels", "4"]
    assert main([*first, "--out", out, "--no-progress", "--device", "cpu"]) == 0
    # No --size, --quick or --channels: the run's own settings, not the defaults (8x8, 64).
    assert main(["train", "reversi", "--out", out, "--resume", "--iterations", "2",
                 "--no-progress", "--device", "cpu"]) == 0  # fmt: skip
    state = json.loads((tmp_path / "r4" / "checkpoint" / "state.json").read_text())
    saved = json.loads((tmp_path / "r4" / "settings.json").read_text())
    assert state["iteration"] == 2
    assert saved["options"] == {"board_size": 4} and saved["channels"] == 4
    # With no budget given, the one the run started with (1 iteration) holds: nothing to do.
    assert main(["train", "reversi", "--out", out, "--resume", "--no-progress"]) == 0
    assert json.loads((tmp_path / "r4" / "checkpoint" / "state.json").read_text())["iteration"] == 2
    # A setting given again must still match the run.
    assert main(["train", "reversi", "--out", out, "--resume", "--iterations", "3",
                 "--channels", "8", "--no-progress"]) == 2  # fmt: skip


def test_one_command_with_resume_starts_a_run_then_continues_it(tmp_path, capsys):
    from boardzoo.cli import main

    out = tmp_path / "new"
    command = ["train", "reversi", "--size", "4", "--quick", "--channels", "4", "--out", str(out),
               "--resume", "--no-progress", "--device", "cpu"]  # fmt: skip
    assert main([*command, "--iterations", "1"]) == 0
    assert "no run in" in capsys.readouterr().err
    assert main([*command, "--iterations", "2"]) == 0
    assert "no run in" not in capsys.readouterr().err
    state = json.loads((out / "checkpoint" / "state.json").read_text())
    assert state["iteration"] == 2
    # a folder that holds other files is no run: --resume refuses to start one there
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    other = [str(tmp_path / "other") if part == str(out) else part for part in command]
    assert main([*other, "--iterations", "1"]) == 2
    assert "already holds files" in capsys.readouterr().err


def test_az_continues_its_tree_between_moves_until_reset(tiny_models):
    game = make_game("connect_four")
    spec = f"az:model={tiny_models['connect_four']},simulations=64,exact_empties=0"  # no book
    agent = make_agent(spec, seed=0)
    fresh = make_agent(f"{spec},reuse_tree=false")
    state = game.initial_state()
    first = agent.act(state)
    assert agent.last_search is not None and not agent.last_search.reused_tree
    state = state.apply(first).apply(3)  # the agent's move and a reply: two plies down
    agent.act(state)
    info = agent.last_search
    assert info is not None and info.reused_tree
    inherited = sum(m.visits for m in info.moves) - 64
    assert inherited > 0  # the reply's subtree came along: more visits than this search ran
    fresh.act(state)
    assert fresh.last_search is not None and not fresh.last_search.reused_tree
    assert sum(m.visits for m in fresh.last_search.moves) == 64
    agent.reset()  # a new game: nothing is carried over
    agent.act(state)
    assert agent.last_search is not None and not agent.last_search.reused_tree


def test_a_run_older_than_record_forced_resumes_without_it(tmp_path):
    from boardzoo.cli import main

    out = tmp_path / "old"
    args = ["train", "tictactoe", "--quick", "--out", str(out), "--no-progress", "--device", "cpu"]
    assert main([*args, "--iterations", "1"]) == 0
    saved = json.loads((out / "settings.json").read_text())
    assert saved["record_forced"] is True  # new runs learn forced positions too
    del saved["record_forced"]  # as a settings.json written before the setting existed
    (out / "settings.json").write_text(json.dumps(saved))
    # The Python API says what differs; the command takes the run's own (old) behaviour.
    with pytest.raises(ValueError, match="record_forced=False"):
        train(_quick(tmp_path, "old", iterations=2, resume=True), log=lambda line: None)
    train(_quick(tmp_path, "old", iterations=2, resume=True, record_forced=False),
          log=lambda line: None)  # fmt: skip
    assert main([*args, "--iterations", "3", "--resume"]) == 0
    assert json.loads((out / "checkpoint" / "state.json").read_text())["iteration"] == 3
    assert main([*args, "--iterations", "4", "--resume", "--record-forced"]) == 2  # not its own
    fresh = tmp_path / "fresh"
    assert main([*args[:-5], "--out", str(fresh), "--no-progress", "--device", "cpu",
                 "--iterations", "1", "--no-record-forced"]) == 0  # fmt: skip
    assert json.loads((fresh / "settings.json").read_text())["record_forced"] is False
