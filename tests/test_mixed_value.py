"""The mixed-value evaluator (a network's values mixed with the learned n-tuple evaluation) against
the evaluation computed position by position from the states, and the ``az`` option behind it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from boardzoo.agents import make_agent
from boardzoo.agents.alphazero import shipped_model
from boardzoo.agents.registry import AgentSpecError
from boardzoo.games import BoardState, Game, make_game
from boardzoo.learned.ntuple import load_net, ntuple_value
from boardzoo.search.evaluators import encode
from boardzoo.search.mixed_value import MixedValueEvaluator


class ConstantEvaluator:
    """Logits 0..A-1 and the value 0.25 for every position."""

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch, actions = masks.shape
        logits = np.tile(np.arange(actions, dtype=np.float32), (batch, 1))
        return logits, np.full(batch, 0.25, np.float32)


def _positions(game: Game, count: int, seed: int) -> list[BoardState]:
    """Positions in play from random games, one in three with a pass to make where the game
    has passes (Reversi), else the rest."""
    rng = np.random.default_rng(seed)
    found: list[BoardState] = []
    while len(found) < count:
        state = game.initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            if rng.random() < 0.1 or legal == [state.game.pass_action]:
                found.append(state)
            state = state.apply(legal[int(rng.integers(len(legal)))])
    return found[:count]


def _slow_value(state: BoardState) -> float:
    """The learned evaluation of ``state`` for its player to move, from its own bitboards; a
    player who must pass gets minus the opponent's value."""
    game = state.game
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = state.current_player
    must_pass = state.legal_actions() == [state.game.pass_action]
    mover = 1 - player if must_pass else player
    value = float(ntuple_value(s0, s1, np.int64(mover), game.params, load_net(game)))
    return -value if must_pass else value


@pytest.mark.parametrize(
    "game", [make_game("reversi"), make_game("reversi", board_size=6), make_game("connect_four")]
)
def test_mixed_values_are_the_evaluations_of_the_positions_mixed_in(game: Game) -> None:
    states = _positions(game, 60, seed=3)
    passes = sum(s.legal_actions() == [game.pass_action] for s in states)
    if game.name == "reversi" and game.options["board_size"] == 8:
        assert passes > 0  # the pass branch is exercised
    observations, masks = encode(game, states)
    for weight in (0.0, 0.3, 1.0):
        mixed = MixedValueEvaluator(ConstantEvaluator(), game, load_net(game), weight)
        logits, values = mixed(observations, masks)
        assert np.array_equal(logits, ConstantEvaluator()(observations, masks)[0])
        expected = [(1 - weight) * 0.25 + weight * _slow_value(s) for s in states]
        assert values.dtype == np.float32
        np.testing.assert_allclose(values, expected, atol=1e-5)
    # the evaluation alone differs from position to position: the mix is not a constant
    assert np.std(mixed(observations, masks)[1]) > 0.05


@pytest.mark.torch
def test_a_bad_weight_or_a_game_without_a_learned_evaluation_is_refused() -> None:
    game = make_game("reversi")
    with pytest.raises(ValueError, match=r"value_mix=1\.5"):
        MixedValueEvaluator(ConstantEvaluator(), game, load_net(game), 1.5)
    with pytest.raises(AgentSpecError, match="value_mix"):
        make_agent("az:value_mix=-0.1")
    tictactoe = make_game("tictactoe")
    with pytest.raises(ValueError, match="tictactoe has none"):
        make_agent("az:value_mix=0.5,simulations=8").prepare(tictactoe)
    make_agent("az:simulations=8").prepare(tictactoe)  # the default: no mixing, no error


def _evaluator(spec: str, game: Game) -> object:
    agent = make_agent(spec)
    agent.prepare(game)
    return agent._games[game][1]  # type: ignore[attr-defined]


@pytest.mark.torch
def test_az_mixes_as_its_model_file_says_unless_told(tmp_path: Path) -> None:
    from boardzoo.learned.model_io import config_path

    game = make_game("reversi", board_size=6)
    shipped = shipped_model("reversi-6x6")
    assert shipped is not None
    model = tmp_path / "model.pt"
    shutil.copy(shipped, model)
    document = json.loads(config_path(shipped).read_text())
    for value_mix, expected in ((0.7, 0.7), (None, 0.0)):
        document["metadata"].pop("value_mix", None)
        if value_mix is not None:
            document["metadata"]["value_mix"] = value_mix
        config_path(model).write_text(json.dumps(document))
        evaluator = _evaluator(f"az:model={model},simulations=8", game)
        if expected:
            assert isinstance(evaluator, MixedValueEvaluator) and evaluator.weight == expected
        else:
            assert not isinstance(evaluator, MixedValueEvaluator)
    told = _evaluator(f"az:model={model},simulations=8,value_mix=0.25", game)
    assert isinstance(told, MixedValueEvaluator) and told.weight == 0.25
    document["metadata"]["value_mix"] = "lots"
    config_path(model).write_text(json.dumps(document))
    with pytest.raises(ValueError, match=r"model.json: value_mix='lots' is not allowed"):
        _evaluator(f"az:model={model},simulations=8", game)


@pytest.mark.torch
def test_the_shipped_reversi_model_plays_with_the_learned_values() -> None:
    """The shipped 8x8 model's value head lost to the learned evaluation at 1 s a move (see
    docs/guides/benchmarks.md): its file says so, and ``az`` follows it."""
    evaluator = _evaluator("az:simulations=8", make_game("reversi"))
    assert isinstance(evaluator, MixedValueEvaluator) and evaluator.weight == 1.0
