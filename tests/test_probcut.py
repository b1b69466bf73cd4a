"""Multi-ProbCut's calibration: the fits against a fit done here from plain-negamax scores, the
searches against the engine's, the files (round trip, checks, errors), the command line, and the
shipped tables.

The tables, files and fits are :mod:`boardzoo.gametree.probcut` (no search); the calibration that
searches with the engine's search is :mod:`boardzoo.gametree.probcut_calibration`, its command
line ``boardzoo probcut`` (:mod:`boardzoo.cli.probcut`)."""

from __future__ import annotations

import ast
import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_engine import plain_negamax, random_positions

from boardzoo.agents.engine import EngineAgent
from boardzoo.cli import COMMANDS
from boardzoo.cli import main as boardzoo_main
from boardzoo.cli import probcut as probcut_cli
from boardzoo.games import make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree import probcut, probcut_calibration
from boardzoo.gametree.probcut import (
    MAX_DEPTH,
    load_probcut_file,
    probcut_file,
    probcut_sigmas,
    probcut_stage_sigmas,
    save_probcut_file,
    search_probcut,
    shallow_depth,
)
from boardzoo.gametree.probcut_calibration import (
    calibrate,
    depth_scores,
    positions_digest,
    sample_positions,
)
from boardzoo.gametree.template import WIN, no_probcut
from boardzoo.learned.ntuple import MODELS_DIR, NTupleNet, load_net, save_net

GAME = make_game("reversi", board_size=6)


def main(argv: list[str]) -> int:
    """``boardzoo probcut ARGV``'s exit status."""
    return boardzoo_main(["probcut", *argv])


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder of the test's own (the cache of loaded tables emptied before and after)."""
    monkeypatch.setattr(probcut, "MODELS_DIR", tmp_path)
    probcut._sigmas.cache_clear()
    yield tmp_path
    probcut._sigmas.cache_clear()


def fit(depth: int, sigma: float = 10.0) -> dict[str, Any]:
    stages = [sigma, None, 2 * sigma, None]
    return {"depth": depth, "shallow": shallow_depth(depth), "a": 1.0, "b": 0.5,
            "sigma": sigma, "pairs": 20, "stage_sigmas": stages}  # fmt: skip


def entry(depths: int = 3) -> dict[str, Any]:
    return {
        "command": "test", "date": "2025-01-01", "positions": 2, "seed": 0,
        "max_depth": 2 + depths, "openings": None, "random_plies": 4, "positions_sha256": "x",
        "seconds": 1.0, "complete": True,
        "depths": [fit(3 + i, 10.0 + i) for i in range(depths)],
        "discs": [10, 20], "scores": [[1, -2], [3, 4]],
    }  # fmt: skip


def document(**evaluations: dict[str, Any]) -> dict[str, Any]:
    return {"format": "boardzoo-probcut", "version": 1, "game": "reversi",
            "options": {"board_size": 6}, "evaluations": evaluations}  # fmt: skip


def test_shallow_depth_is_edax_rule() -> None:
    assert [shallow_depth(d) for d in range(3, 13)] == [1, 2, 3, 2, 3, 4, 5, 4, 5, 6]


def test_file_round_trip_and_sigma_layout(models: Path) -> None:
    data = document(hand=entry(3))
    save_probcut_file(models / "reversi-6x6.probcut.json", data)
    assert load_probcut_file(models / "reversi-6x6.probcut.json") == data
    sigmas = probcut_sigmas(GAME, "hand")
    assert sigmas.shape == (MAX_DEPTH + 1,) and sigmas.dtype == np.float64
    assert sigmas[:3].tolist() == [0, 0, 0]
    assert sigmas[3:6].tolist() == [10, 11, 12]
    assert (sigmas[6:] == 12).all()
    assert probcut_sigmas(GAME, "hand") is sigmas  # cached
    stages = probcut_stage_sigmas(GAME, "hand")
    assert stages.shape == (4, MAX_DEPTH + 1)
    assert stages[:, 4].tolist() == [11, 11, 22, 11]  # a missing stage has the whole sigma


def test_missing_calibration_names_game_evaluation_and_command(models: Path) -> None:
    with pytest.raises(ValueError, match="hand evaluation for reversi 6x6") as error:
        probcut_sigmas(GAME, "hand")
    command = "boardzoo probcut reversi --option board_size=6"
    assert command in str(error.value)
    save_probcut_file(models / "reversi-6x6.probcut.json", document(hand=entry()))
    with pytest.raises(ValueError, match=r"learned evaluation for reversi 6x6.*--evaluation"):
        probcut_sigmas(GAME, "learned")
    with pytest.raises(ValueError, match="evaluation must be one of"):
        probcut_sigmas(GAME, "auto")


def bad_fit_sigma(data: dict[str, Any]) -> None:
    data["evaluations"]["hand"]["depths"][1]["sigma"] = -1.0  # 0 is allowed: an exact fit


def bad_shallow(data: dict[str, Any]) -> None:
    data["evaluations"]["hand"]["depths"][0]["shallow"] = 2


def bad_scores(data: dict[str, Any]) -> None:
    data["evaluations"]["hand"]["scores"][1] = [1, 2, 3]


def bad_key(data: dict[str, Any]) -> None:
    data["evaluations"]["auto"] = data["evaluations"].pop("hand")


def bad_bool(data: dict[str, Any]) -> None:
    data["evaluations"]["hand"]["positions"] = True


def gone(data: dict[str, Any]) -> None:
    del data["evaluations"]["hand"]["depths"][0]["a"]


@pytest.mark.parametrize(
    ("spoil", "problem"),
    [
        (bad_fit_sigma, "depths\\[1\\].*'sigma' is malformed"),
        (bad_shallow, "'shallow' is malformed"),
        (bad_scores, "must hold 2 numbers"),
        (bad_key, "'evaluations' is malformed"),
        (bad_bool, "'positions' is malformed"),
        (gone, "depths\\[0\\] has no 'a'"),
    ],
)
def test_malformed_content_is_named(models: Path, spoil: Any, problem: str) -> None:
    data = document(hand=entry())
    spoil(data)
    path = models / "reversi-6x6.probcut.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=f"reversi-6x6.probcut.json: .*{problem}"):
        probcut_sigmas(GAME, "hand")
    with pytest.raises(ValueError, match=problem):
        save_probcut_file(models / "other.json", data)  # nothing malformed is written
    assert not (models / "other.json").exists()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not JSON"),
        ('{"sigma": NaN}', "not JSON.*NaN"),
        ("[1, 2]", "must be a JSON object"),
        (json.dumps({**document(), "version": 2}), "'version' is malformed"),
    ],
)
def test_unreadable_file_is_named(models: Path, text: str, problem: str) -> None:
    (models / "reversi-6x6.probcut.json").write_text(text)
    with pytest.raises(ValueError, match=f"reversi-6x6.probcut.json: .*{problem}"):
        probcut_sigmas(GAME, "hand")


def test_file_of_another_game_is_refused(models: Path) -> None:
    data = document(hand=entry())
    data["options"] = {"board_size": 8}
    save_probcut_file(models / "reversi-6x6.probcut.json", data)
    with pytest.raises(
        ValueError, match="it is for reversi \\{'board_size': 8\\}, not reversi 6x6"
    ):
        probcut_sigmas(GAME, "hand")


def test_calibrate_matches_a_fit_of_plain_negamax_scores() -> None:
    positions = random_positions("reversi", 12, seed=5, board_size=6)
    result = calibrate(GAME, "hand", positions, 4, seed=1)
    scores = [[plain_negamax(state, d) for state in positions] for d in range(1, 5)]
    assert result.scores == scores
    for depth, got in zip((3, 4), result.fits, strict=True):
        x = np.array(scores[shallow_depth(depth) - 1], dtype=float)
        y = np.array(scores[depth - 1], dtype=float)
        keep = (np.abs(x) < WIN // 2) & (np.abs(y) < WIN // 2)
        x, y = x[keep], y[keep]
        a = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
        b = y.mean() - a * x.mean()
        sigma = np.sqrt(((y - a * x - b) ** 2).sum() / (len(x) - 2))
        assert (got.depth, got.shallow, got.pairs) == (depth, shallow_depth(depth), len(x))
        assert got.a == pytest.approx(a) and got.b == pytest.approx(b, abs=1e-6)
        assert got.sigma == pytest.approx(sigma)


def test_command_writes_resumes_and_extends(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "calibration.json"
    args = ["reversi", "--option", "board_size=6", "--evaluation", "hand", "--positions", "12",
            "--seed", "3", "--out", str(out)]  # fmt: skip
    assert main([*args, "--max-depth", "3"]) == 0
    first = load_probcut_file(out)["evaluations"]["hand"]
    assert first["complete"] and len(first["scores"]) == 3 and len(first["depths"]) == 1
    assert first["command"] == (
        "boardzoo probcut reversi --option board_size=6 --evaluation hand --positions 12 "
        "--max-depth 3 --seed 3"
    )
    assert first["positions"] == 12
    assert main([*args, "--max-depth", "4"]) == 0
    assert "resuming: depths 1..3" in capsys.readouterr().err
    second = load_probcut_file(out)["evaluations"]["hand"]
    assert second["scores"][:3] == first["scores"] and len(second["depths"]) == 2
    assert second["depths"][0] == first["depths"][0]
    assert main([*args, "--max-depth", "4"]) == 0  # nothing left to search: written the same
    third = load_probcut_file(out)["evaluations"]["hand"]
    assert third["scores"] == second["scores"] and third["depths"] == second["depths"]
    capsys.readouterr()
    # The command recorded measures the same positions: run again, it resumes them.
    recorded = shlex.split(first["command"])
    assert recorded[:2] == ["boardzoo", "probcut"]
    assert main([*recorded[2:], "--size", "6", "--out", str(out)]) == 0
    assert "resuming: depths 1..3" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (["--positions", "3"], "--positions 3 is too few"),
        (["--max-depth", "2"], "--max-depth 2: give 3..60"),
        (["--seed", "-1"], "--seed -1"),
        (["--option", "board_size=7"], "board_size"),
        (["--option", "colour=2"], "has no option 'colour'"),
        (["--random-plies", "-2"], "--random-plies -2"),
    ],
)
def test_command_reports_mistakes_in_one_line(
    tmp_path: Path, capsys: Any, extra: list[str], problem: str
) -> None:
    args = ["reversi", "--evaluation", "hand", "--out", str(tmp_path / "x.json"), *extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("boardzoo probcut: error: ")
    assert problem in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.json").exists()


def test_command_refuses_a_malformed_file(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "x.json").write_text("{")
    args = [
        "reversi",
        "--evaluation",
        "hand",
        "--positions",
        "10",
        "--out",
        str(tmp_path / "x.json"),
    ]
    assert main(args) == 2
    assert "x.json: not a ProbCut calibration file: not JSON" in capsys.readouterr().err


@pytest.mark.parametrize("evaluation", ["learned", "hand"])
def test_shipped_reversi_8x8_tables(evaluation: str) -> None:
    probcut._sigmas.cache_clear()
    sigmas = probcut_sigmas(make_game("reversi", board_size=8), evaluation)
    assert (sigmas[3:11] > 0).all() and (sigmas[:3] == 0).all()
    assert (sigmas[3:] > 0).all()


def test_openings_file_is_read_and_checked(tmp_path: Path) -> None:
    game = make_game("reversi", board_size=8)
    path = tmp_path / "xot.txt"
    path.write_text("# XOT\nf5d6c4d3c2b3b4b5\n\nF5 f6, e6 f4\n")
    openings, label = probcut_cli.read_openings(game, path)
    assert openings[0] == [game.parse_action(m) for m in ("f5", "d6", "c4", "d3", "c2", "b3",
                                                          "b4", "b5")]  # fmt: skip
    assert len(openings) == 2 and label.startswith("xot.txt sha256 ")
    path.write_text("f5d6\nf5f5\n")
    with pytest.raises(ValueError, match=r"xot\.txt, line 2"):
        probcut_cli.read_openings(game, path)
    path.write_text("f5z9\n")
    with pytest.raises(ValueError, match=r"xot\.txt, line 1: cannot read a move at .z9."):
        probcut_cli.read_openings(game, path)


SHIPPED = [
    (make_game("reversi", board_size=8), ("learned", "hand")),
    (make_game("reversi", board_size=6), ("learned", "hand")),
    (make_game("connect_four"), ("learned", "hand")),
]


@pytest.mark.parametrize(("game", "evaluations"), SHIPPED, ids=["reversi-8x8", "reversi-6x6", "c4"])
def test_shipped_files_load_and_name_their_command(game: Any, evaluations: Any) -> None:
    probcut._sigmas.cache_clear()
    data = load_probcut_file(probcut_file(game))
    assert set(data["evaluations"]) == set(evaluations)
    for evaluation in evaluations:
        command = data["evaluations"][evaluation]["command"]  # as run then
        assert f" {game.name} " in command and f"--evaluation {evaluation}" in command
        sigmas = probcut_sigmas(game, evaluation)
        assert (sigmas[:3] == 0).all() and (sigmas[3:] > 0).all()
        assert probcut_stage_sigmas(game, evaluation).shape == (4, MAX_DEPTH + 1)
    # The learned evaluation's errors were measured with the net shipped beside them.
    net = MODELS_DIR / f"{game.file_stem}.npz"
    learned = data["evaluations"]["learned"]
    assert learned["net_sha256"] == hashlib.sha256(net.read_bytes()).hexdigest()
    assert probcut_file(game, net) == probcut_file(game)


def imported_modules(module: Any) -> list[str]:
    """The modules that ``module``'s file imports (read with ``ast``, at any depth)."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [
        a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
    ]
    return imported


@pytest.mark.parametrize("module", [probcut, probcut_calibration], ids=["tables", "calibration"])
def test_the_gametree_modules_never_import_the_agents_or_the_command_line(module: Any) -> None:
    above = ("boardzoo.search", "boardzoo.agents", "boardzoo.cli")
    assert not [name for name in imported_modules(module) if name.startswith(above)]
    assert {"STAGES", "MAX_DEPTH", "probcut_sigmas", "probcut_stage_sigmas"} <= set(probcut.__all__)


def test_the_command_is_boardzoos_and_the_old_program_is_gone() -> None:
    assert COMMANDS["probcut"] is probcut_cli and probcut.COMMAND == "boardzoo probcut"
    package = Path(probcut.__file__).parent.parent
    for where in ("agents", "learned"):  # multi-ProbCut is in gametree (and its command in cli)
        assert not list((package / where).glob("*probcut*")), where


def test_boardzoo_probcut_reports_a_mistake_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    command = [sys.executable, "-m", "boardzoo", "probcut", "reversi",
               "--evaluation", "hand", "--positions", "3", "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.strip() == "boardzoo probcut: error: --positions 3 is too few: at least 10"


def test_a_net_file_is_calibrated_beside_it_and_the_engine_searches_with_that(
    tmp_path: Path, capsys: Any
) -> None:
    shipped = load_net(GAME)
    mine = tmp_path / "mine.npz"
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.3, shipped.weights.shape).astype(np.float32)
    save_net(mine, NTupleNet(shipped.cells, shipped.table, shipped.weights + noise), {})
    args = ["reversi", "--size", "6", "--net", str(mine), "--positions", "12", "--seed", "3"]
    assert main([*args, "--max-depth", "4"]) == 0
    sidecar = tmp_path / "mine.probcut.json"
    assert f"wrote {sidecar}" in capsys.readouterr().err
    entry = load_probcut_file(sidecar)["evaluations"]["learned"]
    assert entry["net_sha256"] == hashlib.sha256(mine.read_bytes()).hexdigest()
    assert f"--evaluation learned --net {mine}" in entry["command"]
    # The scores are those of the engine searching with the net file, not the shipped net.
    positions = sample_positions(GAME, 12, 3)
    for depth in (1, 4):
        agent = EngineAgent(time_limit=None, depth=depth, exact_empties=0, probcut=0, net=str(mine))
        want = []
        for state in positions:
            agent.reset()
            want.append(int(agent.search(state).score))
        assert entry["scores"][depth - 1] == want
    assert entry["scores"][3] != engine_scores(positions, 4, "learned", 3, 20)
    # The engine finds the file and cuts with its errors, by default at 1.5.
    probcut._sigmas.cache_clear()
    engine = EngineAgent(net=str(mine))
    array = engine._probcut(GAME, engine._net(GAME))
    stage_sigmas = [[s or fit["sigma"] for s in fit["stage_sigmas"]] for fit in entry["depths"]]
    assert array[1] == 1.5 and array[2] == 4
    assert array[3:].reshape(4, MAX_DEPTH + 1)[:, 3:5].T.tolist() == stage_sigmas
    # Written over, the net is refused with the old net's errors.
    save_net(mine, shipped, {})
    probcut._sigmas.cache_clear()
    with pytest.raises(ValueError, match=r"another net.*--net"):
        EngineAgent(net=str(mine)).check_game(GAME)
    assert EngineAgent(net=str(mine), probcut=0)._cut(GAME, shipped) == 0
    # Calibrated again, the file starts over: its measurements were of another net.
    assert main([*args, "--max-depth", "3"]) == 0
    assert "starting over" in capsys.readouterr().err
    probcut._sigmas.cache_clear()
    EngineAgent(net=str(mine)).check_game(GAME)


def test_a_net_is_the_learned_evaluation(tmp_path: Path, capsys: Any) -> None:
    net = str(MODELS_DIR / "reversi-6x6.npz")
    out = tmp_path / "shipped.json"  # the shipped net's calibration names the net it measured
    args = ["--positions", "10", "--max-depth", "3", "--out", str(out)]
    assert main(["reversi", "--size", "6", "--evaluation", "learned", *args]) == 0
    entry = load_probcut_file(out)["evaluations"]["learned"]
    assert entry["net_sha256"] == hashlib.sha256(Path(net).read_bytes()).hexdigest()
    assert main(["reversi", "--size", "6", "--net", net, "--evaluation", "hand"]) == 2
    assert "--net is a learned evaluation" in capsys.readouterr().err
    assert main(["reversi", "--size", "6"]) == 2
    assert "give --evaluation (learned or hand) or --net FILE" in capsys.readouterr().err
    assert main(["reversi", "--size", "6", "--net", str(tmp_path / "none.npz")]) == 2
    assert "none.npz" in capsys.readouterr().err


# --- the calibration's searches are the engine's -------------------------------------------------


def engine_scores(
    positions: list[BoardState], depth: int, evaluation: Any, seed: int, table_bits: int
) -> list[int]:
    """What calibrating searched before it ran the driver itself: one ``EngineAgent`` at a fixed
    depth, multi-ProbCut off, its table emptied before each position."""
    agent = EngineAgent(
        time_limit=None, depth=depth, eval=evaluation, exact_empties=0, probcut=0,
        table_bits=table_bits, seed=seed,
    )  # fmt: skip
    scores = []
    for state in positions:
        agent.reset()
        scores.append(int(agent.search(state).score))
    return scores


@pytest.mark.parametrize(
    ("game", "evaluation"),
    [(GAME, "hand"), (GAME, "learned"), (make_game("connect_four"), "learned")],
    ids=["reversi-6x6-hand", "reversi-6x6-learned", "c4-learned"],
)
def test_depth_scores_are_the_engines_at_a_fixed_depth(game: Game, evaluation: str) -> None:
    """Scores measured before the calibration stopped using the engine stay valid."""
    options = dict(game.options)
    positions = random_positions(game.name, 8, seed=11, **options)
    for depth in range(1, 6):
        for seed in (0, 5):
            ours = depth_scores(positions, depth, evaluation, seed, 16)
            assert ours == engine_scores(positions, depth, evaluation, seed, 16), (depth, seed)


def engine_sample(game: Game, count: int, seed: int, random_plies: int) -> list[BoardState]:
    """The sampling games as they were played before, by ``EngineAgent``s (the engine's default
    evaluation and multi-ProbCut)."""
    rng = np.random.default_rng(seed)
    found: list[BoardState] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(random_plies):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        players = [
            EngineAgent(time_limit=None, depth=int(rng.integers(2, 5)), exact_empties=0,
                        table_bits=16, seed=int(rng.integers(2**31)))
            for _ in range(2)
        ]  # fmt: skip
        seen: list[BoardState] = []
        while not state.is_terminal():
            seen.append(state)
            if rng.random() < probcut_calibration.RANDOM_MOVE_RATE:
                action = int(rng.choice(state.legal_actions()))
            else:
                action = players[state.current_player].search(state).action
            state = state.apply(action)
        if seen:
            found.append(seen[int(rng.integers(len(seen)))])
    return found


@pytest.mark.parametrize(
    "game",
    [GAME, make_game("connect_four"), make_game("tictactoe")],
    ids=["reversi-6x6", "c4", "tictactoe"],
)
def test_sample_positions_are_the_engines_games(game: Game) -> None:
    """Same arguments, same positions as the engine's games gave (a resumed file's digest)."""
    for seed in (1, 2):
        ours = sample_positions(game, 6, seed, random_plies=2)
        theirs = engine_sample(game, 6, seed, random_plies=2)
        assert positions_digest(ours) == positions_digest(theirs), seed


def test_search_probcut_is_the_engines_array() -> None:
    for evaluation, net in (("hand", None), ("learned", load_net(GAME))):
        for cut in (1.5, 0.0):
            agent = EngineAgent(probcut=cut, eval=evaluation)  # type: ignore[arg-type]
            want = agent._probcut(GAME, None if net is None else tuple(net))
            np.testing.assert_array_equal(search_probcut(GAME, evaluation, cut), want)
    np.testing.assert_array_equal(search_probcut(GAME, "hand", 0), no_probcut())
    with pytest.raises(ValueError, match="cut must be a number >= 0"):
        search_probcut(GAME, "hand", -1.0)
    with pytest.raises(ValueError, match="evaluation must be one of"):
        search_probcut(GAME, "auto", 1.0)


def test_root_moves_are_the_legal_cells_in_the_games_order() -> None:
    game = make_game("reversi", board_size=8)
    kernels, params = game.kernels, game.params
    orders = set()
    for state in random_positions("reversi", 20, seed=3):
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        player = state.current_player
        for seed in (0, 1):
            cells = probcut_calibration.root_moves(state, np.random.default_rng(seed)).tolist()
            actions = [int(kernels.cell_action(c, params)) for c in cells]
            assert sorted(actions) == sorted(state.legal_actions())
            keys = [kernels.order_key(s0, s1, player, c, 0, params) for c in cells if c >= 0]
            assert keys == sorted(keys)
            orders.add((int(s0), int(s1), player, tuple(cells)))
    assert len(orders) > 20  # the seed's shuffle breaks the ties
