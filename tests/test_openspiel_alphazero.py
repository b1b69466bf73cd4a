"""OpenSpiel's AlphaZero checkpoints as a boardzoo agent (``openspiel:bot=az,checkpoint=...``).

The checkpoints are made here by OpenSpiel's own code, as its ``alpha_zero`` run writes them
(``config.json`` beside ``checkpoint-N``); the agent's moves are checked against OpenSpiel's own
bot built from the same files by OpenSpiel's loader, state by state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from boardzoo.agents import AgentSpecError, make_agent
from boardzoo.envs.catalog_env import env as boardzoo_env
from boardzoo.games.catalog import make_game

pytestmark = pytest.mark.openspiel_alphazero


def write_run(path: Path, game_name: str, api: str = "linen", step: int = 0) -> Path:
    """An OpenSpiel AlphaZero run directory with one (untrained) checkpoint, written by
    OpenSpiel's own ``Config``, model library and ``save_checkpoint``."""
    import pyspiel
    from open_spiel.python.algorithms.alpha_zero import alpha_zero, utils

    game = pyspiel.load_game(game_name)
    config = alpha_zero.Config(
        game=game_name,
        path=str(path),
        learning_rate=0.01,
        weight_decay=1e-4,
        decouple_weight_decay=False,
        train_batch_size=8,
        replay_buffer_size=64,
        replay_buffer_reuse=False,
        max_steps=1,
        checkpoint_freq=1,
        actors=1,
        evaluators=0,
        evaluation_window=1,
        eval_levels=1,
        uct_c=2.0,
        max_simulations=20,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=10,
        nn_model="mlp",
        nn_width=16,
        nn_depth=1,
        observation_shape=game.observation_tensor_shape(),
        output_size=game.num_distinct_actions(),
        verbose=False,
        quiet=True,
        nn_api_version=api,
    )
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config.__dict__, indent=2, sort_keys=True))
    model = utils.api_selector(api).Model.build_model(
        config.nn_model,
        config.observation_shape,
        config.output_size,
        config.nn_width,
        config.nn_depth,
        config.weight_decay,
        config.learning_rate,
        config.path,
        seed=step,
    )
    model.save_checkpoint(step)
    return path / f"checkpoint-{step}"


def openspiels_own_bots(checkpoint: Path, simulations: int) -> Any:
    """A maker of OpenSpiel's AlphaZero bot from ``checkpoint`` (by seed), the network loaded by
    OpenSpiel's own loader (its config read back into ``Config``, ``_init_model_from_config``,
    ``load_checkpoint``), searched as its evaluator searches."""
    import pyspiel
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.alpha_zero import alpha_zero
    from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib

    fields = json.loads((checkpoint.parent / "config.json").read_text())
    fields["observation_shape"] = tuple(fields["observation_shape"])
    config = alpha_zero.Config(**fields)
    model = alpha_zero._init_model_from_config(config)
    model.load_checkpoint(int(checkpoint.name.split("-", 1)[1]))
    game = pyspiel.load_game(config.game)

    def make(seed: int) -> Any:
        return mcts.MCTSBot(
            game,
            config.uct_c,
            simulations,
            evaluator_lib.AlphaZeroEvaluator(game, model),
            solve=False,
            random_state=np.random.RandomState(seed),
            child_selection_fn=mcts.SearchNode.puct_value,
            dont_return_chance_node=True,
        )

    return make


@pytest.mark.parametrize("api", ["linen", "nnx"])
def test_the_agent_moves_as_openspiels_own_bot(tmp_path: Path, api: str) -> None:
    """Through a random game of tictactoe, each position's move is OpenSpiel's own bot's."""
    import pyspiel

    checkpoint = write_run(tmp_path / "run", "tic_tac_toe", api=api)
    agent = make_agent(f"openspiel:bot=az,checkpoint={checkpoint},simulations=30", seed=3)
    spiel_state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    state = make_game("tictactoe").initial_state()
    rng = np.random.default_rng(0)
    compared = 0
    theirs_from = openspiels_own_bots(checkpoint, 30)
    while not state.is_terminal():
        agent.reset()  # a fresh search each position, as the reference's
        ours = agent.act(state)
        theirs = theirs_from(agent._seed).step(spiel_state)
        assert ours == theirs, state
        compared += 1
        action = int(rng.choice(state.legal_actions()))
        state = state.apply(action)
        spiel_state.apply_action(action)
    assert compared >= 5


def test_a_run_directory_plays_its_latest_checkpoint_in_a_boardzoo_env(tmp_path: Path) -> None:
    """Given the run's directory, the latest checkpoint is read; Connect Four in boardzoo's env
    (to its end or 12 moves), every move in the env's mask, the same seed the same game."""
    write_run(tmp_path / "run", "connect_four", step=0)
    write_run(tmp_path / "run", "connect_four", step=3)
    games = []
    for _ in range(2):
        agent = make_agent(f"openspiel:bot=az,checkpoint={tmp_path / 'run'},simulations=8", seed=1)
        opponent = make_agent("random", seed=2)
        env = boardzoo_env("connect_four")
        env.reset(seed=0)
        history = []
        while not env.terminations[env.agent_selection] and len(history) < 12:
            player = agent if env.agent_selection == "player_0" else opponent
            action = player.act(env)
            assert env.observe(env.agent_selection)["action_mask"][action] == 1
            history.append(action)
            env.step(action)
        games.append(history)
        assert agent._loaded is not None and agent._loaded.path.name == "checkpoint-3"
    assert games[0] == games[1] and len(games[0]) >= 7  # a won game, or 12 moves of one


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("openspiel:bot=az", r"bot=az needs checkpoint=PATH"),
        ("openspiel:checkpoint=x", r"checkpoint='x' is for bot=az only"),
        ("openspiel:bot=az,checkpoint=/no/such/checkpoint-3", r"checkpoint='/no/such/"),
        ("openspiel:bot=az,checkpoint=RUN,time_limit=1", r"time_limit=1\.0 is not allowed"),
    ],
)
def test_bad_alphazero_specs_are_refused_in_one_line(tmp_path: Path, spec: str, says: str) -> None:
    write_run(tmp_path / "run", "tic_tac_toe")
    with pytest.raises(AgentSpecError, match=says) as raised:
        make_agent(spec.replace("RUN", str(tmp_path / "run")))
    assert "\n" not in str(raised.value)


def test_a_checkpoint_is_refused_for_another_game(tmp_path: Path) -> None:
    checkpoint = write_run(tmp_path / "run", "tic_tac_toe")
    agent = make_agent(f"openspiel:bot=az,checkpoint={checkpoint}")
    with pytest.raises(ValueError, match=r"trained on OpenSpiel's 'tic_tac_toe', not connect_four"):
        agent.check_game(make_game("connect_four"))


def test_a_checkpoint_without_its_config_is_refused(tmp_path: Path) -> None:
    checkpoint = write_run(tmp_path / "run", "tic_tac_toe")
    (checkpoint.parent / "config.json").write_text('{"game": "tic_tac_toe"}')
    agent = make_agent(f"openspiel:bot=az,checkpoint={checkpoint}")
    with pytest.raises(ValueError, match=r"not an OpenSpiel AlphaZero config: it lacks actors"):
        agent.act(make_game("tictactoe").initial_state())
    (checkpoint.parent / "config.json").unlink()
    with pytest.raises(AgentSpecError, match=r"names no game"):
        make_agent(f"openspiel:bot=az,checkpoint={checkpoint}")
