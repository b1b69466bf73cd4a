"""The AlphaZero network, its evaluator, device choice and model files (boardzoo.learned.network,
boardzoo.learned.model_io): shapes for every game, eval-mode numpy evaluation, configs, and model
files that load without ever unpickling code."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.torch
require("torch")  # the imports below need it

import torch  # noqa: E402

from boardzoo.games import make_game  # noqa: E402
from boardzoo.games.spec import Game  # noqa: E402
from boardzoo.learned.devices import pick_device  # noqa: E402
from boardzoo.learned.model_io import ModelFileError, config_path, load_model, save_model  # noqa: E402
from boardzoo.learned.network import AZNet, NetworkSettings  # noqa: E402
from boardzoo.learned.torch_evaluator import TorchEvaluator  # noqa: E402

torch.set_num_threads(1)

GAMES = [
    make_game("tictactoe"),
    make_game("connect_four"),
    make_game("reversi", board_size=4),
    make_game("reversi", board_size=8),
]


def small_net(game: Game, seed: int = 0) -> AZNet:
    torch.manual_seed(seed)
    return AZNet(NetworkSettings.for_game(game, channels=8, blocks=1, value_hidden=8))


def positions(game: Game, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of positions from random games, as the search encodes them."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    state = game.initial_state()
    while len(obs) < count:
        if state.is_terminal():
            state = game.initial_state()
        obs.append(np.moveaxis(state.planes(state.current_player), -1, 0))
        masks.append(state.legal_action_mask().astype(bool))
        state = state.apply(int(rng.choice(state.legal_actions())))
    return np.array(obs, dtype=np.float32), np.array(masks)


# --- NetworkSettings ------------------------------------------------------------------------------


def test_config_json_round_trip_and_defaults() -> None:
    config = NetworkSettings("reversi", {"board_size": 6}, channels=32, blocks=2, value_hidden=16)
    assert NetworkSettings.from_json(config.to_json()) == config
    assert config.board_game is make_game("reversi", board_size=6)
    assert NetworkSettings("reversi").options == {"board_size": 8}  # defaults filled in
    assert NetworkSettings.for_game(make_game("tictactoe")) == NetworkSettings("tictactoe", {})
    assert hash(config) == hash(NetworkSettings.from_json(config.to_json()))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"game": "reversi", "options": {"board_size": 5}}, "board_size must be one of"),
        ({"game": "tictactoe", "options": {"size": 3}}, "no option 'size'"),
        (
            {"game": "tictactoe", "channels": 0},
            "channels=0 is not allowed: it must be an integer in 1..1024",
        ),
        ({"game": "tictactoe", "channels": True}, "channels"),
        (
            {"game": "tictactoe", "blocks": -1},
            "blocks=-1 is not allowed: it must be an integer in 0..64",
        ),
        ({"game": "tictactoe", "value_hidden": 2.5}, "value_hidden"),
    ],
)
def test_config_refuses_bad_values(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        NetworkSettings(**kwargs)  # type: ignore[arg-type]


def test_config_from_bad_json() -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        NetworkSettings.from_json("{")
    with pytest.raises(ValueError, match="unknown network config keys"):
        NetworkSettings.from_json('{"game": "tictactoe", "width": 3}')
    with pytest.raises(ValueError, match="needs a 'game'"):
        NetworkSettings.from_json('{"channels": 3}')


# --- AZNet and TorchEvaluator ---------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.label)
def test_shapes_for_every_game(game: Game) -> None:
    net = small_net(game)
    obs, _ = positions(game, 6, seed=1)
    logits, values = net(torch.from_numpy(obs))
    assert logits.shape == (6, game.num_actions)  # Reversi's pass has a logit
    assert values.shape == (6,)
    extreme = torch.from_numpy(obs) * 1000.0
    _, values = net(extreme)
    assert bool(((values >= -1) & (values <= 1)).all())
    with pytest.raises(ValueError, match="obs must be"):
        net(torch.zeros(2, 2, game.rows + 1, game.cols))


def test_evaluator_is_eval_mode_numpy_float32() -> None:
    game = make_game("reversi", board_size=6)
    net = small_net(game)
    net.train()
    # Make batch statistics differ from the running ones, so train mode would show.
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.fill_(0.3)
                module.running_var.fill_(2.0)
    evaluator = TorchEvaluator(net, device="cpu")
    obs, masks = positions(game, 8, seed=3)
    logits, values = evaluator(obs, masks)
    assert logits.dtype == np.float32 and values.dtype == np.float32
    assert logits.shape == (8, 37) and values.shape == (8,)
    assert net.training  # the mode it had is restored
    # Eval mode: each position's output does not depend on the rest of the batch.
    for i in (0, 5):
        one_logits, one_values = evaluator(obs[i : i + 1], masks[i : i + 1])
        np.testing.assert_allclose(one_logits[0], logits[i], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(one_values[0], values[i], rtol=1e-5, atol=1e-5)
    # The same as the network in eval mode by hand, and no gradient kept.
    net.eval()
    with torch.no_grad():
        expected_logits, expected_values = net(torch.from_numpy(obs))
    np.testing.assert_allclose(logits, expected_logits.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values, expected_values.numpy(), rtol=1e-5, atol=1e-6)
    empty_logits, empty_values = evaluator(obs[:0], masks[:0])
    assert empty_logits.shape == (0, 37) and empty_values.shape == (0,)


def test_evaluator_reads_the_search_encoding() -> None:
    """The search's ``encode`` hands over exactly the planes the network is built for."""
    from boardzoo.search.evaluators import encode

    for game in GAMES:
        rng = np.random.default_rng(8)
        states = [game.initial_state()]
        while not states[-1].is_terminal() and len(states) < 12:
            states.append(states[-1].apply(int(rng.choice(states[-1].legal_actions()))))
        states = [s for s in states if not s.is_terminal()]
        obs, masks = encode(game, states)
        mine = np.array([np.moveaxis(s.planes(s.current_player), -1, 0) for s in states])
        np.testing.assert_array_equal(obs, mine)
        logits, values = TorchEvaluator(small_net(game))(obs, masks)
        assert logits.shape == (len(states), game.num_actions) and values.shape == (len(states),)


def test_evaluator_refuses_bad_shapes() -> None:
    game = make_game("tictactoe")
    evaluator = TorchEvaluator(small_net(game))
    with pytest.raises(ValueError, match=r"observations must be \[B, 2, 3, 3\]"):
        evaluator(np.zeros((2, 3, 3, 2), np.float32), np.ones((2, 9), bool))
    with pytest.raises(ValueError, match=r"masks must be \[2, 9\]"):
        evaluator(np.zeros((2, 2, 3, 3), np.float32), np.ones((2, 7), bool))
    with pytest.raises(ValueError, match="needs an AZNet"):
        TorchEvaluator(torch.nn.Linear(2, 2))  # type: ignore[arg-type]


def eval_outputs(net: AZNet, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The module itself in eval mode (its mode restored): the reference for the evaluator."""
    was_training = net.training
    net.eval()
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs))
    net.train(was_training)
    return logits.numpy(), values.numpy()


def scramble_batch_norms(net: AZNet, seed: int) -> None:
    """Give every batch norm statistics and an affine map far from the identity."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                size = module.num_features
                assert module.running_mean is not None and module.running_var is not None
                module.running_mean.copy_(torch.rand(size, generator=generator) - 0.5)
                module.running_var.copy_(0.5 + torch.rand(size, generator=generator))
                module.weight.copy_(0.5 + torch.rand(size, generator=generator))
                module.bias.copy_(torch.rand(size, generator=generator) - 0.5)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.label)
@pytest.mark.parametrize("fuse", [True, False])
def test_evaluator_equals_the_module_in_eval_mode(game: Game, fuse: bool) -> None:
    torch.manual_seed(1)
    net = AZNet(NetworkSettings.for_game(game, channels=8, blocks=2, value_hidden=8))
    scramble_batch_norms(net, seed=2)
    obs, masks = positions(game, 9, seed=4)
    logits, values = TorchEvaluator(net, fuse=fuse)(obs, masks)
    expected_logits, expected_values = eval_outputs(net, obs)
    np.testing.assert_allclose(logits, expected_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values, expected_values, rtol=1e-5, atol=1e-5)
    assert logits.flags.c_contiguous and logits.dtype == np.float32


def test_the_fused_copy_follows_changes_to_the_network() -> None:
    game = make_game("connect_four")
    net = small_net(game, seed=5)
    evaluator = TorchEvaluator(net)
    obs, masks = positions(game, 6, seed=1)
    before = evaluator(obs, masks)
    # An optimizer step in train mode (which also moves the batch norms' running statistics).
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    net.train()
    logits, values = net(torch.from_numpy(obs))
    (logits.square().mean() + values.sum()).backward()
    optimizer.step()
    after = evaluator(obs, masks)
    assert not np.allclose(after[0], before[0])
    for got, expected in zip(after, eval_outputs(net, obs), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    # Weights loaded from another network.
    other = small_net(game, seed=6)
    scramble_batch_norms(other, seed=7)
    net.load_state_dict(other.state_dict())
    for got, expected in zip(evaluator(obs, masks), eval_outputs(other, obs), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_a_subclass_runs_its_own_forward() -> None:
    class Shifted(AZNet):
        def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            logits, values = super().forward(obs)
            return logits + 1.0, values * 0.5

    game = make_game("tictactoe")
    torch.manual_seed(0)
    net = Shifted(NetworkSettings.for_game(game, channels=8, blocks=1, value_hidden=8))
    obs, masks = positions(game, 4, seed=0)
    logits, values = TorchEvaluator(net)(obs, masks)
    expected_logits, expected_values = eval_outputs(net, obs)
    np.testing.assert_allclose(logits, expected_logits, rtol=1e-6)
    np.testing.assert_allclose(values, expected_values, rtol=1e-6)
    with pytest.raises(ValueError, match="fuse must be True or False"):
        TorchEvaluator(net, fuse=1)  # type: ignore[arg-type]


def test_pick_device(monkeypatch: pytest.MonkeyPatch) -> None:
    threads = torch.get_num_threads()
    try:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        assert pick_device("cpu") == torch.device("cpu")
        assert torch.get_num_threads() == max(1, os.cpu_count() or 1)
        monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the user shares the machine
        pick_device("cpu")
        assert torch.get_num_threads() == 1
        assert pick_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
        if not torch.cuda.is_available():
            with pytest.raises(ValueError, match="CUDA is not available"):
                pick_device("cuda")
        with pytest.raises(ValueError, match="'auto', 'cpu' or 'cuda'"):
            pick_device("tpu")
    finally:
        torch.set_num_threads(threads)


# --- model files ----------------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    game = make_game("reversi", board_size=6)
    net = small_net(game, seed=4)
    obs, masks = positions(game, 5, seed=2)
    before = TorchEvaluator(net)(obs, masks)
    path = save_model(tmp_path / "run" / "model.pt", net, metadata={"iterations": 3})
    assert path == tmp_path / "run" / "model.pt"
    document = json.loads(config_path(path).read_text())
    assert document["config"] == net.config.to_dict()
    assert document["metadata"]["iterations"] == 3
    assert "boardzoo_version" in document["metadata"] and "saved_at" in document["metadata"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["model.json", "model.pt"]

    loaded, config, metadata = load_model(path, game=game)
    assert config == net.config and metadata["iterations"] == 3 and not loaded.training
    after = TorchEvaluator(loaded)(obs, masks)
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])


def test_load_refuses_broken_files(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    path = save_model(tmp_path / "model.pt", small_net(game))
    json_path = config_path(path)
    good = json_path.read_text()

    with pytest.raises(ModelFileError, match="no such model file"):
        load_model(tmp_path / "other.pt")
    with pytest.raises(ModelFileError, match="plays tictactoe, not connect_four"):
        load_model(path, game=make_game("connect_four"))

    document = json.loads(good)
    document["config"]["channels"] = 16
    json_path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="shape mismatch"):
        load_model(path)
    document["config"]["blocks"] = 3
    json_path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="do not fit the config"):
        load_model(path)
    document["config"]["game"] = "go"
    json_path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="invalid network config: unknown game 'go'"):
        load_model(path)
    json_path.write_text("{not json")
    with pytest.raises(ModelFileError, match="not valid JSON"):
        load_model(path)
    json_path.write_text('{"format": "something else"}')
    with pytest.raises(ModelFileError, match="not a boardzoo model config"):
        load_model(path)
    json_path.unlink()
    with pytest.raises(ModelFileError, match="config file is missing"):
        load_model(path)

    json_path.write_text(good)
    torch.save({"weights": 1}, path)
    with pytest.raises(ModelFileError, match="expected a dict of named tensors"):
        load_model(path)
    path.write_bytes(b"garbage")
    with pytest.raises(ModelFileError, match="not a file of plain tensors"):
        load_model(path)
    assert issubclass(ModelFileError, ValueError)


class _Payload:
    """Pickles as a call to ``open(marker, "w")``: unpickling it creates the marker file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (self.marker, "w")


def test_loading_never_unpickles(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    path = save_model(tmp_path / "model.pt", small_net(game))  # a valid config beside it
    marker = tmp_path / "pwned"
    torch.save({**small_net(game).state_dict(), "payload": _Payload(str(marker))}, path)

    with pytest.raises(ModelFileError, match="not a file of plain tensors") as info:
        load_model(path)
    assert "\n" not in str(info.value)
    assert not marker.exists()

    # The file really is malicious: an unsafe load runs the payload.
    torch.load(path, weights_only=False)
    assert marker.exists()


def test_save_is_atomic_and_checks_metadata(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    net = small_net(game)
    path = save_model(tmp_path / "model.pt", net, metadata={"games": 1})
    before = path.read_bytes(), config_path(path).read_text()
    with pytest.raises(ValueError, match="metadata must hold JSON values"):
        save_model(path, small_net(game, seed=9), metadata={"games": object()})
    with pytest.raises(ValueError, match="not the network's config"):
        save_model(path, net, config=NetworkSettings("tictactoe", channels=9))
    # Nothing was replaced and no temporary file is left behind.
    assert (path.read_bytes(), config_path(path).read_text()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json", "model.pt"]
