"""The Gymnasium single-agent envs: API checkers, opponents inside step, masks, seeds."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import boardzoo  # noqa: F401 (registers the ids)
from boardzoo.agents import RandomAgent
from boardzoo.envs.single_agent import BoardGameSingleAgentEnv
from boardzoo.games.catalog import game_names, get_game, make_game


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("boardzoo/Reversi-v0", {"board_size": 6}),
        ("boardzoo/TicTacToe-v0", {}),
        ("boardzoo/ConnectFour-v0", {}),
    ],
)
@pytest.mark.rl
def test_gymnasium_and_sb3_checkers(env_id, kwargs):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make(env_id, opponent="greedy", **kwargs)
    check_env(env.unwrapped)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 notes that (n, n, 2) int8 is no uint8 image
        sb3_check_env(env.unwrapped)


@pytest.mark.parametrize("name", game_names())
def test_every_game_by_its_id_has_the_games_spaces(name):
    spec = get_game(name)
    game = spec.make()
    env = gym.make(spec.gym_id)
    assert env.unwrapped.game is game
    assert env.action_space == gym.spaces.Discrete(game.num_actions)
    assert env.observation_space.shape == (game.rows, game.cols, 2)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (game.num_actions,)


@pytest.mark.parametrize("name", game_names())
def test_learner_color_takes_first_second_and_the_sides_names(name):
    spec = get_game(name)
    names = {
        "first": 0,
        "second": 1,
        spec.sides[0]: 0,
        spec.sides[1]: 1,
        spec.sides[0].upper(): 0,
        spec.sides[1].lower(): 1,
    }
    start = make_game(name).initial_state()
    for colour, learner in names.items():
        env = BoardGameSingleAgentEnv(name, opponent="random", learner_color=colour)
        obs, _ = env.reset(seed=2)
        assert env.learner == learner
        assert env.state.current_player == learner
        # As the second player, the learner finds the opponent's first move made.
        assert (env.state == start) == (learner == 0)
        np.testing.assert_array_equal(obs, env.state.planes(learner))


def test_make_by_id_without_importing_boardzoo_first():
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('boardzoo:boardzoo/Reversi-v0', board_size=4)\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape, int(info['action_mask'].sum()))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:3] == ["(4,", "4,", "2)"]


def play_episode(env, rng) -> tuple[float, int]:
    _, info = env.reset(seed=int(rng.integers(1000)))
    total, steps = 0.0, 0
    while True:
        legal = np.flatnonzero(info["action_mask"])
        assert legal.size > 0 and np.array_equal(legal, np.flatnonzero(env.action_masks()))
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps
        assert reward == 0.0


def test_every_observation_and_reward_belongs_to_the_learner():
    env = BoardGameSingleAgentEnv("reversi", opponent="random", board_size=4)
    rng = np.random.default_rng(0)
    results = {0: [], 1: []}
    for _ in range(60):
        reward, _ = play_episode(env, rng)
        state = env.state
        assert state.is_terminal()
        assert reward == state.returns()[env.learner]
        # Plane 0 is always the learner's own discs.
        own = env._observation()[..., 0].sum()
        assert own == state.disc_counts()[env.learner]
        results[env.learner].append(reward)
    assert results[0] and results[1]  # "random" colours: the learner played both sides


def test_the_opponent_moves_first_when_the_learner_plays_second():
    env = BoardGameSingleAgentEnv("tictactoe", opponent="random", learner_color="o")
    obs, info = env.reset(seed=1)
    assert obs[..., 1].sum() == 1 and obs[..., 0].sum() == 0  # X has already moved
    assert info["action_mask"].sum() == 8


def test_illegal_action_ends_the_episode_with_minus_one():
    env = gym.make("boardzoo/TicTacToe-v0", learner_color="x")
    env.reset(seed=0)
    env.step(4)
    occupied = int(np.flatnonzero(env.unwrapped.action_masks() == 0)[0])
    _, reward, terminated, truncated, info = env.step(occupied)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)


def test_same_seed_same_games_and_opponent_pool():
    def trace(seed: int) -> list[int]:
        env = BoardGameSingleAgentEnv(
            "reversi", opponent=["greedy", "mcts:simulations=20", RandomAgent(seed=3)], board_size=6
        )
        rng = np.random.default_rng(seed)
        actions = []
        for _ in range(3):
            _, info = env.reset(seed=seed)
            while not env.state.is_terminal():
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
                actions.append(action)
                _, _, _, _, info = env.step(action)
            actions.append(-1)
        return actions

    assert trace(4) == trace(4)


@pytest.mark.rl
def test_vectorised_envs():
    vec = gym.make_vec("boardzoo/TicTacToe-v0", num_envs=2, vectorization_mode="sync")
    obs, info = vec.reset(seed=0)
    assert obs.shape == (2, 3, 3, 2) and info["action_mask"].shape == (2, 9)
    vec.close()
    from stable_baselines3.common.env_util import make_vec_env

    sb3_vec = make_vec_env("boardzoo/Reversi-v0", n_envs=2, env_kwargs={"board_size": 4})
    assert sb3_vec.reset().shape == (2, 4, 4, 2)


def test_rendering_through_the_aec_renderer():
    env = gym.make("boardzoo/Reversi-v0", board_size=4, render_mode="ansi")
    env.reset(seed=0)
    assert "a b c d" in env.render()
    env = gym.make("boardzoo/Reversi-v0", board_size=4, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3
    env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponent": "minimax"}, "unknown agent 'minimax'"),
        ({"opponent": []}, "opponent pool is empty"),
        ({"learner_color": "red"}, "learner_color must be one of random, first"),
        ({"board_size": 5}, "board_size must be one of"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BoardGameSingleAgentEnv("reversi", **kwargs)


@pytest.mark.parametrize(
    ("game", "kwargs", "message"),
    [
        ("connect_four", {"board_size": 6}, "connect_four has no option 'board_size'"),
        ("tictactoe", {"board_size": 3}, "tictactoe has no option 'board_size'"),
        (
            "connect_four",
            {"learner_color": "black"},
            "learner_color must be one of random, first, second, red, yellow for connect_four; "
            "got 'black'",
        ),
        ("chess", {}, "unknown game 'chess'"),
    ],
)
def test_bad_arguments_name_the_games_options_and_sides(game, kwargs, message):
    with pytest.raises(ValueError, match=message):
        BoardGameSingleAgentEnv(game, **kwargs)
