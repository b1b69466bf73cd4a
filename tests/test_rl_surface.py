"""What an RL user meets first: mask dtypes, finished episodes, registration, move names in
errors, and the single-agent env's opponent checked and prepared before play."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import boardzoo  # noqa: F401 (registers the ids)
from boardzoo.agents import Agent, RandomAgent
from boardzoo.agents.registry import AgentSpecError
from boardzoo.envs import connect_four_v0, reversi_v0, tictactoe_v0
from boardzoo.envs.single_agent import BoardGameSingleAgentEnv
from boardzoo.games import IllegalMoveError
from boardzoo.games.catalog import game_names, get_game, make_game

# --- 1. one mask dtype ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", game_names())
def test_info_mask_and_action_masks_are_the_same_int8_array(name):
    env = BoardGameSingleAgentEnv(name, opponent="random")
    rng = np.random.default_rng(0)
    for episode in range(3):
        _, info = env.reset(seed=episode)
        terminated = False
        while not terminated:
            mask, method = info["action_mask"], env.action_masks()
            assert mask.dtype == np.int8 and method.dtype == np.int8
            assert mask.shape == (env.game.num_actions,)
            np.testing.assert_array_equal(mask, method)
            assert set(np.unique(mask)) <= {0, 1}
            assert np.flatnonzero(mask).tolist() == env.state.legal_actions()
            assert method is not env.action_masks()  # fresh arrays: changing one changes nothing
            _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("name", game_names())
def test_the_aec_mask_has_the_same_dtype(name):
    env = {"reversi": reversi_v0, "tictactoe": tictactoe_v0, "connect_four": connect_four_v0}[
        name
    ].env()
    env.reset(seed=0)
    for agent in env.agents:
        assert env.observation_space(agent)["action_mask"].dtype == np.int8
        assert env.observe(agent)["action_mask"].dtype == np.int8


def test_the_mask_samples_legal_actions_with_gymnasiums_space():
    # Gymnasium's Discrete.sample(mask=...) accepts int8 masks only; a bool mask is refused.
    env = gym.make("boardzoo/Reversi-v0", board_size=6, learner_color="black")
    _, info = env.reset(seed=0)
    env.action_space.seed(0)
    legal = set(np.flatnonzero(info["action_mask"]).tolist())
    assert {env.action_space.sample(mask=info["action_mask"]) for _ in range(50)} == legal
    assert {env.action_space.sample(mask=env.unwrapped.action_masks()) for _ in range(5)} <= legal
    with pytest.raises(AssertionError, match="int8"):
        env.action_space.sample(mask=info["action_mask"].astype(bool))


@pytest.mark.rl
def test_maskable_ppo_takes_the_int8_mask():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(
        "boardzoo/Reversi-v0", n_envs=2, seed=0, env_kwargs={"board_size": 4, "opponent": "random"}
    )
    model = MaskablePPO("MlpPolicy", vec, n_steps=8, batch_size=8, seed=0, device="cpu")
    obs = vec.reset()
    chosen = 0
    for _ in range(12):  # a 4x4 game lasts at most 6 moves of the learner: episodes end too
        masks = get_action_masks(vec)
        assert masks.dtype == np.int8 and masks.shape == (2, 17)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        for action, mask in zip(actions, masks, strict=True):
            assert mask[action] == 1  # an untrained policy still picks only legal moves
            chosen += 1
        obs, _, _, _ = vec.step(actions)
    assert chosen == 24


# --- 2. stepping a finished env -----------------------------------------------------------------


def finish_episode(env) -> dict:
    """Play legal moves (lowest first) to the end of the episode; return the last info."""
    _, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not truncated
    return info


def test_step_before_reset_raises_reset_needed():
    env = BoardGameSingleAgentEnv("tictactoe")
    with pytest.raises(ResetNeeded, match=r"before reset\(\); call env\.reset\(\)"):
        env.step(0)
    made = gym.make("boardzoo/TicTacToe-v0")  # Gymnasium's OrderEnforcing says the same
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        made.step(0)


@pytest.mark.parametrize("name", game_names())
def test_step_after_the_game_is_over_raises_reset_needed(name):
    env = gym.make(get_game(name).gym_id, opponent="greedy")
    finish_episode(env)
    assert env.unwrapped.state.is_terminal()
    with pytest.raises(ResetNeeded, match=r"after the episode ended.*call env\.reset\(\)"):
        env.step(0)
    _, info = env.reset(seed=1)  # and reset starts a new one
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_step_after_an_illegal_action_raises_reset_needed():
    env = BoardGameSingleAgentEnv("tictactoe", learner_color="x")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(9)  # no such square
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert not env.state.is_terminal()  # the game itself could go on, the episode cannot
    with pytest.raises(ResetNeeded, match="illegal action"):
        env.step(4)
    env.reset(seed=0)
    assert env.step(4)[2] is False


def test_vector_envs_reset_finished_episodes_themselves():
    vec = gym.make_vec("boardzoo/TicTacToe-v0", num_envs=2, vectorization_mode="sync")
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(40):
        # A finished env's mask is all zero: its next action is ignored, the env is reset.
        actions = [
            int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0
            for mask in info["action_mask"]
        ]
        _, _, terminated, _, info = vec.step(np.array(actions))
        ends += int(terminated.sum())
    assert ends >= 4  # several episodes ended and the next step reset them, without ResetNeeded
    vec.close()


# --- 3. registration ------------------------------------------------------------------------------


def run_fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_registration_in_a_fresh_interpreter():
    result = run_fresh(
        """
        import gymnasium, pettingzoo
        from pettingzoo.env_registry.exceptions import PettingZooRegistryError

        try:  # PettingZoo reads no entry points: boardzoo's ids exist once it is imported
            pettingzoo.make("aec", "boardzoo/reversi-v0")
        except PettingZooRegistryError as error:
            print("without import:", type(error).__name__)
        env = gymnasium.make("boardzoo:boardzoo/TicTacToe-v0")  # Gymnasium imports it itself
        print("gymnasium prefix:", env.unwrapped.game.name)
        env = pettingzoo.make("aec", "boardzoo/reversi-v0", board_size=4)
        env.reset(seed=0)
        print("after import:", env.unwrapped.board_size, env.agent_selection)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "without import: NamespaceNotFound",
        "gymnasium prefix: tictactoe",
        "after import: 4 black_0",
    ]


@pytest.mark.parametrize("order", ["boardzoo, pettingzoo", "pettingzoo, boardzoo"])
def test_import_boardzoo_once_then_pettingzoo_make(order):
    result = run_fresh(
        f"""
        import {order}
        env = pettingzoo.make("aec", "boardzoo/connect-four-v0")
        env.reset(seed=0)
        print(env.agent_selection, env.action_space(env.agent_selection).n)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["player_0", "7"]


# --- 4. IllegalMoveError names the moves ----------------------------------------------------------


def raised(state, action) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        state.apply(action)
    return info.value


def test_reversi_illegal_moves_are_named_as_squares():
    start = make_game("reversi").initial_state()
    # Black's four opening moves in Othello: d3, c4, f5 and e6 (actions row * 8 + col).
    error = raised(start, 0)
    assert str(error) == (
        "illegal move a1 (action 0) for black; legal moves: d3, c4, f5, e6 "
        "(actions [19, 26, 37, 44])"
    )
    assert (error.action_name, error.player) == ("a1", "black")
    assert error.legal_names == ("d3", "c4", "f5", "e6")
    assert "illegal move d4 (action 27) for black: d4 is taken;" in str(raised(start, 27))
    assert str(raised(start, 64)).startswith(
        "illegal move pass (action 64) for black: passing is only allowed without a placement;"
    )
    assert str(raised(start, 65)).startswith("illegal move 65 for black: actions are 0..64;")
    assert str(raised(start, np.int64(65))).startswith("illegal move 65 for black")
    assert str(raised(start, "d3")).startswith("illegal move 'd3' for black: not an integer;")
    white = start.apply(19)
    assert str(raised(white, 19)).startswith("illegal move d3 (action 19) for white: d3 is taken")


def test_tictactoe_illegal_moves_are_named_as_squares():
    state = make_game("tictactoe").initial_state().apply(4)  # X takes the centre, b2
    assert str(raised(state, 4)) == (
        "illegal move b2 (action 4) for O: b2 is taken; legal moves: a1, b1, c1, a2, c2, a3, b3, "
        "c3 (actions [0, 1, 2, 3, 5, 6, 7, 8])"
    )


def test_connect_four_illegal_moves_are_named_as_columns():
    state = make_game("connect_four").initial_state()
    for _ in range(6):
        state = state.apply(2)  # column c, full after six discs
    assert str(raised(state, 2)) == (
        "illegal move c (action 2) for red: column c is full; legal moves: a, b, d, e, f, g "
        "(actions [0, 1, 3, 4, 5, 6])"
    )


def test_after_the_game_no_move_is_legal():
    x_wins = make_game("tictactoe").initial_state()
    for action in (0, 3, 1, 4, 2):  # X: a1, b1, c1 along the top row
        x_wins = x_wins.apply(action)
    assert x_wins.is_terminal()
    assert str(raised(x_wins, 8)) == (
        "illegal move c3 (action 8): the game is over; legal moves: none (actions [])"
    )


@pytest.mark.parametrize(
    ("module", "actions", "message"),
    [
        (reversi_v0, [0], "illegal move a1 (action 0) for black; legal moves: d3, c4, f5, e6"),
        (tictactoe_v0, [4, 4], "illegal move b2 (action 4) for O: b2 is taken"),
        (connect_four_v0, [0] * 7, "illegal move a (action 0) for red: column a is full"),
    ],
)
def test_the_raw_envs_raise_named_moves(module, actions, message):
    env = module.raw_env()
    env.reset()
    with pytest.raises(IllegalMoveError) as info:
        for action in actions:
            env.step(action)
    assert str(info.value).startswith(message)


def test_the_error_survives_pickling_and_works_without_names():
    error = raised(make_game("reversi", board_size=4).initial_state(), 0)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is IllegalMoveError and str(copy) == str(error)
    assert (copy.action, copy.legal_actions, copy.legal_names) == (
        0,
        error.legal_actions,
        error.legal_names,
    )
    bare = IllegalMoveError(5, [1, 2], "taken")  # a game without action names
    assert str(bare) == "illegal move 5: taken; legal actions are [1, 2]"
    assert bare.action_name is None and bare.legal_names is None


# --- 5. the opponent: checked at make time, prepared before play ---------------------------------


@pytest.mark.parametrize(
    ("opponent", "words"),
    [
        ("mcts:simulations=-5", ["simulations=-5", "not allowed"]),
        ("mcts:simulations=0", ["simulations=0"]),
        ("mcts:time_limit=0", ["time_limit=0"]),
        ("alphabeta:depth=0", ["depth=0"]),
        ("mcts:simulatons=5", ["simulatons"]),
        (["random", "mcts:c=-1"], ["c=-1"]),
    ],
)
def test_a_bad_opponent_spec_fails_at_make_time(opponent, words):
    with pytest.raises(AgentSpecError) as info:
        gym.make("boardzoo/Reversi-v0", opponent=opponent)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_a_missing_model_file_fails_at_make_time(tmp_path):
    with pytest.raises(AgentSpecError, match=r"nope\.zip"):
        gym.make("boardzoo/TicTacToe-v0", opponent=f"sb3:path={tmp_path / 'nope.zip'}")


class RecordingAgent(RandomAgent):
    """A random agent that notes when it is prepared and when it moves."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed=seed)
        self.events: list[str] = []

    def prepare(self, game) -> None:
        self.events.append(f"prepare {game.label}")

    def act(self, state):
        self.events.append("act")
        return super().act(state)


def test_an_opponent_agent_is_prepared_at_each_reset_before_it_moves():
    agent = RecordingAgent(seed=0)
    env = BoardGameSingleAgentEnv("reversi", opponent=agent, learner_color="white", board_size=6)
    assert agent.events == []
    env.reset(seed=0)
    assert agent.events == ["prepare reversi 6x6", "act"]  # prepared before its opening move
    env.reset(seed=1)
    assert agent.events[2:] == ["prepare reversi 6x6", "act"]


def test_an_opponent_spec_is_prepared_for_the_envs_game(monkeypatch):
    games: list[str] = []
    monkeypatch.setattr(RandomAgent, "prepare", lambda self, game: games.append(game.label))
    env = gym.make("boardzoo/ConnectFour-v0", opponent="random")
    env.reset(seed=0)
    env.reset(seed=1)
    assert games == ["connect_four", "connect_four"]
    assert isinstance(env.unwrapped.opponent, Agent)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"opponent": "random", "episodes": 0}, ValueError, "episodes=0 is not allowed"),
        ({"opponent": "mcts:simulations=-5", "episodes": 2}, AgentSpecError, "simulations=-5"),
    ],
)
@pytest.mark.torch
def test_policy_evaluation_checks_its_arguments_before_playing(kwargs, error, words):
    from boardzoo.rl import evaluate_policy_vs

    with pytest.raises(error, match=words):
        evaluate_policy_vs(None, "tictactoe", **kwargs)  # no model needed to be refused
