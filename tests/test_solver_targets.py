"""Solver-labelled training: targets from exact scores and the test set kept out of training
(:mod:`boardzoo.az.solver_targets`), deepened networks (:mod:`boardzoo.az.deepen`), and
experiments/solver_targets.py's checks and a run that resumes."""

from __future__ import annotations

import csv
import itertools

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.torch
require("torch")  # the imports below need it

import torch  # noqa: E402
from repo_scripts import load_script  # noqa: E402

from boardzoo.accuracy import LabelledPosition, append_positions, read_labelled, write_header  # noqa: E402
from boardzoo.accuracy.labelled import shipped_set_path  # noqa: E402
from boardzoo.agents.alphazero import shipped_model  # noqa: E402
from boardzoo.az.deepen import deepened  # noqa: E402
from boardzoo.az.learner import Learner  # noqa: E402
from boardzoo.az.solver_targets import load_examples, solver_targets  # noqa: E402
from boardzoo.games.catalog import make_game  # noqa: E402
from boardzoo.learned.model_io import load_model  # noqa: E402


@pytest.fixture(scope="module")
def script():
    return load_script("experiments/solver_targets.py", "solver_targets_experiment")


@pytest.mark.parametrize(
    ("scores", "policy", "value"),
    [
        # won: 0.7 on the fastest win, 0.3 over both winning moves; the drawing move gets nothing
        ({0: 3, 1: 1, 2: 0}, [0.85, 0.15, 0.0], 1.0),
        # two equally fast wins share everything
        ({0: 2, 4: 2, 5: -1}, [0.5, 0, 0, 0, 0.5, 0.0], 1.0),
        # drawn: only the drawing moves, evenly
        ({1: 0, 2: 0, 3: -4}, [0, 0.5, 0.5, 0.0], 0.0),
        # lost: every move keeps the result; the slowest loss gets the 0.7
        ({0: -1, 1: -5}, [0.85, 0.15], -1.0),
    ],
)
def test_targets_follow_the_exact_scores(scores, policy, value):
    got, got_value = solver_targets(scores, 7, 0.7)
    expected = np.zeros(7)
    expected[: len(policy)] = policy
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert got_value == value


def _rotate(move: int) -> int:
    """TicTacToe's action (row * 3 + col) turned a quarter clockwise: (r, c) -> (c, 2 - r)."""
    row, col = divmod(move, 3)
    return col * 3 + (2 - row)


def _board(moves) -> tuple[tuple[int, ...], ...]:
    """The position's marks in all 8 images (an independent canonical key)."""
    grid = np.zeros((3, 3), dtype=int)
    for ply, move in enumerate(moves):
        grid[divmod(move, 3)] = 1 + ply % 2
    images = []
    for turned in (grid, np.rot90(grid), np.rot90(grid, 2), np.rot90(grid, 3)):
        images += [tuple(turned.ravel()), tuple(np.fliplr(turned).ravel())]
    return tuple(sorted(images))


def test_test_positions_and_their_images_are_dropped(tmp_path):
    game = make_game("tictactoe")
    test = read_labelled(shipped_set_path(game))
    pairs = (
        (
            p,
            LabelledPosition(
                tuple(map(_rotate, p.moves)), {_rotate(a): s for a, s in p.scores.items()}
            ),
        )
        for p in test.positions
    )
    as_they_are = {p.state(game).bitboards() for p in test.positions}
    # a position whose quarter turn is not in the set as it is: only its image is
    inside, turned = next((p, q) for p, q in pairs if q.state(game).bitboards() not in as_they_are)
    in_test = {_board(p.moves) for p in test.positions}
    outside = next(
        moves
        for moves in itertools.permutations(range(9), 4)
        if _board(moves) not in in_test and not game_over(game, moves)
    )
    state = game.initial_state()
    for move in outside:
        state = state.apply(move)
    fresh = LabelledPosition(tuple(outside), {a: 0 for a in state.legal_actions()})
    path = tmp_path / "train.jsonl"
    write_header(path, game, {})
    append_positions(path, [inside, turned, fresh, fresh])
    examples, repeats, dropped = load_examples(game, [path], 0.7)
    assert (len(examples), repeats, dropped) == (1, 1, 2)


def game_over(game, moves) -> bool:
    state = game.initial_state()
    for move in moves:
        if state.is_terminal():
            return True
        state = state.apply(move)
    return state.is_terminal()


def test_a_deepened_network_plays_as_before():
    game = make_game("connect_four")
    net, config, _ = load_model(shipped_model("connect_four"), game=game)
    deep = deepened(net, config.blocks + 2).eval()
    assert deep.config.blocks == config.blocks + 2
    obs = torch.from_numpy(np.random.default_rng(0).integers(0, 2, (8, 2, 6, 7)).astype("f4"))
    with torch.no_grad():
        for before, after in zip(net(obs), deep(obs), strict=True):
            torch.testing.assert_close(after, before, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="blocks=1"):
        deepened(net, 1)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--lr", "0"], "--lr 0.0: give a positive number"),
        (["--best-share", "1.5"], "--best-share 1.5"),
        (["--buffer-share", "1"], "--buffer-share 1.0"),
        (["--steps", "0"], "--steps 0: give at least 1"),
        (["--buffer", "nowhere.npz"], "nowhere.npz: no such file"),
        (["--init-model", "nowhere.pt"], "--init-model nowhere.pt"),
        (["--game", "chess"], "chess"),
        (["--blocks", "1"], "--blocks 1: the model has 2; give at least that"),
        (["--sets", __file__], "line 1: not a labelled set"),
    ],
)
def test_bad_values_are_one_line_errors_before_any_run_folder(script, tmp_path, extra, message):
    path = tmp_path / "train.jsonl"
    write_header(path, make_game("tictactoe"), {})
    argv = ["--game", "tictactoe", "--sets", str(path), "--out", str(tmp_path / "runs"), *extra]
    with pytest.raises(SystemExit) as stop:
        script.main(argv)
    assert message in str(stop.value.code)
    assert not (tmp_path / "runs").exists()


def test_a_quick_run_writes_metrics_and_models_and_resumes(script, tmp_path):
    folder = script.main(["--quick", "--out", str(tmp_path)])
    with (folder / "metrics.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["step"]) for row in rows] == [10, 20]
    assert all(0 < float(row["keeps"]) <= 1 for row in rows)
    game = make_game("tictactoe")
    net, _, metadata = load_model(folder / "model.pt", game=game)
    assert metadata["steps"] == 20 and (folder / "model-10.pt").is_file()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    # a finished run resumed: nothing more to do, the model stays
    assert script.main(["--resume-folder", str(folder)]) == folder
    after, _, _ = load_model(folder / "model.pt", game=game)
    for name, tensor in after.state_dict().items():
        torch.testing.assert_close(tensor, before[name])
    assert len(list(csv.DictReader((folder / "metrics.csv").open()))) == 2


def test_a_resumed_run_trains_as_one_that_never_stopped(script, tmp_path, monkeypatch):
    whole = script.main(["--quick", "--out", str(tmp_path / "a")])
    step = Learner.step

    def stop_at_15(self, batch):
        if self.steps == 15:
            raise KeyboardInterrupt
        return step(self, batch)

    with monkeypatch.context() as patch:
        patch.setattr(Learner, "step", stop_at_15)
        with pytest.raises(SystemExit) as stop:
            script.main(["--quick", "--out", str(tmp_path / "b")])
    assert stop.value.code == 130
    cut = next((tmp_path / "b").iterdir())
    assert script.main(["--resume-folder", str(cut)]) == cut  # from step 10, its last evaluation
    game = make_game("tictactoe")
    a, _, _ = load_model(whole / "model.pt", game=game)
    b, _, _ = load_model(cut / "model.pt", game=game)
    for name, tensor in a.state_dict().items():
        torch.testing.assert_close(b.state_dict()[name], tensor)
    steps = [int(row["step"]) for row in csv.DictReader((cut / "metrics.csv").open())]
    assert steps == [10, 20]
