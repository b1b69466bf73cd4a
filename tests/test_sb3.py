"""stable-baselines3 on the single-agent envs, and trained models as players."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.rl
require("rl")  # the imports below need it

import torch  # noqa: E402

import boardzoo  # noqa: E402, F401 (registers the ids)
from boardzoo.agents import make_agent  # noqa: E402
from boardzoo.agents.puct import PUCTAgent  # noqa: E402
from boardzoo.agents.sb3_agent import SB3Agent  # noqa: E402
from boardzoo.agents.sb3_puct import SB3PUCTAgent  # noqa: E402
from boardzoo.agents.settings import Budget, PUCTSettings  # noqa: E402
from boardzoo.games import ReversiState, TicTacToeState  # noqa: E402
from boardzoo.games.catalog import make_game  # noqa: E402


def win_rate(policy, episodes: int = 200, seed: int = 1000) -> float:
    """Share of TicTacToe games won against the random opponent (colours drawn per episode)."""
    env = gym.make("boardzoo/TicTacToe-v0", opponent="random")
    wins = 0
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        done = False
        while not done:
            action = policy(obs, env.unwrapped.action_masks(), episode)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
    return wins / episodes


def new_ppo():
    """The MaskablePPO learner of these tests, untrained, seeded, against the random opponent."""
    from sb3_contrib import MaskablePPO

    env = gym.make("boardzoo/TicTacToe-v0", opponent="random")
    return MaskablePPO("MlpPolicy", env, seed=0, n_steps=512, batch_size=64, verbose=0)


def model_policy(model):
    """The model's most likely legal move, as :func:`win_rate` takes a policy."""
    return lambda obs, mask, _: model.predict(obs, action_masks=mask, deterministic=True)[0]


@pytest.fixture(scope="module")
def trained_model(tmp_path_factory):
    """Four rollouts (2,048 steps, a few seconds): the least training that shows learning in
    ``test_maskable_ppo_learns_to_beat_the_random_opponent``; every test here shares it. What
    longer training reaches: ``python experiments/train_baseline.py --game tictactoe --steps
    15000`` (docs/guides/benchmarks.md, Playing strength)."""
    torch.set_num_threads(1)
    model = new_ppo().learn(2048)
    path = tmp_path_factory.mktemp("models") / "ttt_ppo.zip"
    model.save(path)
    return model, path


def test_maskable_ppo_learns_to_beat_the_random_opponent(trained_model):
    """The trained policy wins more often than random moves and than the same learner untrained
    (seeds 0-3 measured: 0.67-0.685 trained, 0.41-0.57 untrained, 0.425 random moves)."""
    model, _ = trained_model
    untrained = new_ppo()
    rng = np.random.default_rng(0)
    random_policy = win_rate(lambda obs, mask, _: rng.choice(np.flatnonzero(mask)))
    before, trained = (win_rate(model_policy(m)) for m in (untrained, model))
    assert trained >= random_policy + 0.2 and trained >= before + 0.1, (
        trained, before, random_policy
    )  # fmt: skip


@pytest.mark.parametrize("deterministic", [True, False])
def test_sb3_agent_plays_legal_moves_only(trained_model, deterministic):
    _, path = trained_model
    agent = make_agent(f"sb3:path={path},deterministic={str(deterministic).lower()}", seed=0)
    assert isinstance(agent, SB3Agent)
    rng = np.random.default_rng(1)
    for _ in range(30):
        state = TicTacToeState()
        while not state.is_terminal():
            if state.current_player == 0:
                action = agent.act(state)
            else:
                action = int(rng.choice(state.legal_actions()))
            assert state.is_legal(action)
            state = state.apply(action)


def test_an_unmasked_ppo_model_is_masked_by_the_agent(tmp_path):
    from stable_baselines3 import PPO

    env = gym.make("boardzoo/Reversi-v0", board_size=4)
    model = PPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32, verbose=0).learn(64)
    model.save(tmp_path / "ppo.zip")
    agent = SB3Agent(str(tmp_path / "ppo.zip"))
    state = ReversiState.initial(4)
    while not state.is_terminal():
        action = agent.act(state)
        assert state.is_legal(action)
        state = state.apply(action)


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_the_batched_evaluation_matches_prior_and_value(tmp_path, algo):
    """One forward call for a batch gives each position's prior and value, as one call each."""
    from stable_baselines3 import DQN, PPO

    from boardzoo.search.evaluators import encode

    env = gym.make("boardzoo/Reversi-v0", board_size=4)
    if algo == "ppo":
        model = PPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32, verbose=0).learn(64)
    else:
        model = DQN("MlpPolicy", env, seed=0, learning_starts=10, verbose=0).learn(20)
    model.save(tmp_path / "model.zip")
    agent = SB3Agent(str(tmp_path / "model.zip"))
    rng = np.random.default_rng(0)
    states, state = [], ReversiState.initial(4)
    while not state.is_terminal():
        states.append(state)
        state = state.apply(int(rng.choice(state.legal_actions())))
    observations, masks = encode(make_game("reversi", board_size=4), states)
    scores, values = agent.evaluate_batch(observations, value_head=algo == "ppo")
    for i, position in enumerate(states):
        legal = masks[i]
        shares = np.where(legal, np.exp(scores[i] - scores[i][legal].max()), 0.0)
        np.testing.assert_allclose(shares / shares.sum(), agent.prior(position), atol=1e-6)
        if algo == "ppo":
            assert values is not None and values[i] == pytest.approx(agent.value(position))
    if algo == "dqn":
        assert values is None
        with pytest.raises(ValueError, match="DQN has no value head"):
            agent.evaluate_batch(observations, value_head=True)


def test_the_puct_spec_searches_with_an_untrained_model(tmp_path):
    from stable_baselines3 import PPO

    env = gym.make("boardzoo/Reversi-v0", board_size=4)
    PPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32, verbose=0).learn(64).save(
        tmp_path / "ppo.zip"
    )
    state = ReversiState.initial(4)
    expected = SB3Agent(str(tmp_path / "ppo.zip")).prior(state)
    for options in ("simulations=40", "simulations=40,value_head=true", "time_limit=0.05"):
        agent = make_agent(f"sb3puct:path={tmp_path / 'ppo.zip'},{options}", seed=0)
        info = agent.search(state)
        assert state.is_legal(info.action) and sum(m.visits for m in info.moves) >= 1
        priors = {move.action: move.prior for move in info.moves}
        assert priors == pytest.approx({a: expected[a] for a in state.legal_actions()})
        if "simulations" in options:
            assert info.simulations == 40 and sum(m.visits for m in info.moves) == 40


def test_the_trained_policy_plugs_into_puct(trained_model):
    _, path = trained_model
    sb3 = SB3Agent(str(path))
    prior = sb3.prior(TicTacToeState())
    assert prior.shape == (9,) and np.isclose(prior.sum(), 1.0)
    assert -1.0 <= sb3.value(TicTacToeState()) <= 1.0
    mcts = PUCTAgent(
        budget=Budget(simulations=50),
        puct=PUCTSettings(c_base=0.0),
        prior_fn=sb3.prior,
        value_fn=sb3.value,
        seed=0,
    )
    state = TicTacToeState.from_text("X X .\nO O .\n. . .")
    assert mcts.search(state).action == 2


def test_bad_model_files_are_clear_errors(tmp_path):
    missing = str(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match=re.escape(f"path={missing!r} does not exist (a .zip")):
        SB3Agent(missing)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a model file"):
        SB3Agent(str(junk))
    with pytest.raises(ValueError, match="algo='sac' is not allowed: it must be one of auto"):
        SB3Agent(str(junk), algo="sac")


def test_the_model_is_loaded_by_prepare_not_by_the_constructor(trained_model):
    _, path = trained_model
    agent = SB3Agent(str(path))
    assert agent._model is None  # building the agent only checked the file
    agent.prepare(make_game("tictactoe"))
    assert agent._model is not None
    unprepared = SB3Agent(str(path))  # loads at its first move instead
    state = TicTacToeState.from_text("X . .\n. O .\n. . .")
    assert unprepared.act(state) == agent.act(state)


def test_puct_spec_searches_with_the_models_prior(trained_model):
    _, path = trained_model
    agent = make_agent(f"sb3puct:path={path},simulations=60", seed=0)
    assert isinstance(agent, SB3PUCTAgent) and isinstance(agent, PUCTAgent)
    state = TicTacToeState.from_text("X X .\nO O .\n. . .")
    info = agent.search(state)
    assert info.action == 2  # the immediate win, whatever the prior says
    expected = SB3Agent(str(path)).prior(state)
    priors = {move.action: move.prior for move in info.moves}
    assert priors == pytest.approx({a: expected[a] for a in state.legal_actions()})
    assert "value_head=False" in repr(agent)


def test_puct_with_the_value_head_needs_one(trained_model, tmp_path):
    _, path = trained_model
    agent = make_agent(f"sb3puct:path={path},simulations=20,value_head=true", seed=0)
    assert agent.value_fn is not None
    from stable_baselines3 import DQN

    env = gym.make("boardzoo/TicTacToe-v0")
    DQN("MlpPolicy", env, seed=0, learning_starts=10, verbose=0).learn(20).save(tmp_path / "q.zip")
    with pytest.raises(ValueError, match="needs a model with a value head"):
        SB3PUCTAgent(str(tmp_path / "q.zip"), value_head=True)


def test_prior_and_value_match_sb3s_own_distribution_and_value(trained_model):
    model, path = trained_model
    agent = SB3Agent(str(path))
    rng = np.random.default_rng(2)
    state = TicTacToeState()
    while not state.is_terminal():
        observation, _ = model.policy.obs_to_tensor(state.planes(state.current_player))
        with torch.no_grad():
            probs = model.policy.get_distribution(observation).distribution.probs[0].numpy()
            value = float(model.policy.predict_values(observation)[0, 0])
        mask = state.legal_action_mask().astype(bool)
        expected = np.where(mask, probs, 0.0) / probs[mask].sum()
        np.testing.assert_allclose(agent.prior(state), expected, atol=1e-6)
        assert agent.value(state) == pytest.approx(max(-1.0, min(1.0, value)), abs=1e-6)
        state = state.apply(int(rng.choice(state.legal_actions())))


def test_a_trained_model_plays_in_the_arena_from_the_command_line(trained_model, tmp_path):
    _, path = trained_model
    records = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "boardzoo", "arena", "tictactoe", f"sb3:path={path}",
               "mcts:simulations=200", "--games", "2", "--out", str(records),
               "--no-progress"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert f"sb3:path={path}" in result.stdout and "mcts:simulations=200" in result.stdout
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 2 and not any(game["forfeit"] for game in games)  # either colour
