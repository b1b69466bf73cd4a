"""The AEC environments against PettingZoo's own test suites and its classic conventions."""

from __future__ import annotations

import copy
import importlib
import pickle
import warnings
from functools import partial

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers as pz_wrappers

import boardzoo
from boardzoo.envs import connect_four_v0, make_env, reversi_v0, tictactoe_v0, wrap_classic
from boardzoo.envs.board_env import BoardGameEnv
from boardzoo.games import IllegalMoveError, ReversiState, TicTacToeState
from boardzoo.games.catalog import game_names, get_game, make_game

ENV_MODULES = (reversi_v0, tictactoe_v0, connect_four_v0)
ENV_FACTORIES = {
    "reversi-4": partial(reversi_v0.env, board_size=4),
    "reversi-6": partial(reversi_v0.env, board_size=6),
    "reversi-8": reversi_v0.env,
    "tictactoe": tictactoe_v0.env,
    "connect_four": connect_four_v0.env,
    "registry-reversi": partial(pettingzoo.make, "aec", "boardzoo/reversi-v0", board_size=6),
    "registry-tictactoe": partial(pettingzoo.make, "aec", "boardzoo/tictactoe-v0"),
    "registry-connect_four": partial(pettingzoo.make, "aec", "boardzoo/connect-four-v0"),
}


def play_random(env, rng: np.random.Generator, max_steps: int | None = None) -> list[int]:
    """Step ``env`` with uniformly random legal actions, at most ``max_steps`` of them (or to the
    end of the game, stepping the finished agents out); return the actions taken."""
    actions: list[int] = []
    while env.agents and (max_steps is None or len(actions) < max_steps):
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        env.step(action)
    return actions


@pytest.mark.parametrize("name", list(ENV_FACTORIES))
def test_pettingzoo_api_test(name):
    env = ENV_FACTORIES[name]()
    api_test(env, num_cycles=1000)


@pytest.mark.parametrize("name", list(ENV_FACTORIES))
def test_pettingzoo_seed_test(name):
    seed_test(ENV_FACTORIES[name], num_cycles=500)


@pytest.mark.parametrize("name", ["reversi-8", "tictactoe", "registry-reversi"])
def test_pettingzoo_render_test(name, monkeypatch):
    # "human" mode waits 1 / render_fps seconds per frame; the dummy display needs no pacing.
    for module in ENV_MODULES:
        monkeypatch.setitem(module.raw_env.metadata, "render_fps", 1000)
    render_test(ENV_FACTORIES[name])


def test_fast_wrappers_behave_like_pettingzoos():
    """Our wrapper stack and PettingZoo's own give the same results, illegal moves included."""
    for make_raw in (
        partial(reversi_v0.raw_env, board_size=4),
        tictactoe_v0.raw_env,
        connect_four_v0.raw_env,
    ):
        ours = wrap_classic(make_raw())
        theirs = pz_wrappers.OrderEnforcingWrapper(
            pz_wrappers.AssertOutOfBoundsWrapper(
                pz_wrappers.TerminateIllegalWrapper(make_raw(), illegal_reward=-1)
            )
        )
        assert isinstance(ours, pz_wrappers.OrderEnforcingWrapper)
        assert str(ours) == str(theirs)
        for env in (ours, theirs):
            with pytest.raises(AttributeError, match="agent_selection cannot be accessed before"):
                env.agent_selection  # noqa: B018
        for game in range(30):
            traces = []
            for env in (ours, theirs):
                env.reset(seed=game)
                rng = np.random.default_rng(game)
                trace = []
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for agent in env.agent_iter():
                        obs, reward, termination, truncation, _ = env.last()
                        trace.append((agent, obs["action_mask"].tolist(), reward, termination))
                        if termination or truncation:
                            action = None
                        elif rng.random() < 0.05:  # now and then, an illegal move
                            action = int(rng.integers(env.action_space(agent).n))
                        else:
                            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                        env.step(action)
                traces.append(trace)
            assert traces[0] == traces[1]


def test_registry_ids_and_metadata():
    assert {
        "boardzoo/reversi-v0",
        "boardzoo/tictactoe-v0",
        "boardzoo/connect-four-v0",
    } <= set(pettingzoo.aec_registry)
    assert {
        "boardzoo/Reversi-v0",
        "boardzoo/TicTacToe-v0",
        "boardzoo/ConnectFour-v0",
    } <= set(gymnasium.registry)
    boardzoo.envs.register_envs()  # registering twice is harmless
    for module, name in (
        (reversi_v0, "reversi_v0"),
        (tictactoe_v0, "tictactoe_v0"),
        (connect_four_v0, "connect_four_v0"),
    ):
        metadata = module.raw_env.metadata
        assert metadata["name"] == name
        assert metadata["render_modes"] == ["human", "rgb_array", "ansi"]
        assert metadata["is_parallelizable"] is False
        assert metadata["render_fps"] > 0
    env = pettingzoo.make("aec", "boardzoo/reversi-v0", board_size=4)
    assert env.unwrapped.board_size == 4
    assert env.action_space("black_0").n == 17


@pytest.mark.parametrize("name", game_names())
def test_every_catalog_game_is_registered_with_its_module(name):
    spec = get_game(name)
    assert pettingzoo.aec_registry[spec.aec_id].entry_point == f"{spec.env_module}:env"
    module = importlib.import_module(spec.env_module)
    assert module.raw_env.metadata["name"] == spec.env_module.rpartition(".")[2]
    assert gymnasium.registry[spec.gym_id].kwargs == {"game": name}
    env = pettingzoo.make("aec", spec.aec_id)
    assert env.unwrapped.game is spec.make()


@pytest.mark.parametrize("name", game_names())
def test_spaces_and_agents_come_from_the_game(name):
    game = make_game(name)
    env = make_env(name)
    env.reset(seed=0)
    assert isinstance(env.unwrapped, BoardGameEnv)
    assert env.agents == list(game.spec.agents)
    assert env.agent_selection == game.spec.agents[0]
    for player, agent in enumerate(env.agents):
        space = env.observation_space(agent)
        assert space["observation"].shape == (game.rows, game.cols, 2)
        assert space["observation"].dtype == np.int8
        assert space["action_mask"].shape == (game.num_actions,)
        assert env.action_space(agent).n == game.num_actions
        observation = env.observe(agent)
        assert space.contains(observation)
        np.testing.assert_array_equal(
            observation["observation"], game.initial_state().planes(player)
        )
        expected_mask = game.initial_state().legal_action_mask() if player == 0 else 0
        np.testing.assert_array_equal(observation["action_mask"], expected_mask)


def test_make_env_takes_the_games_options_and_names_bad_ones():
    env = make_env("reversi", board_size=6, render_mode="ansi")
    assert env.unwrapped.game is make_game("reversi", board_size=6)
    assert env.unwrapped.render_mode == "ansi"
    assert make_env("connect_four").unwrapped.game is make_game("connect_four")
    with pytest.raises(ValueError, match="connect_four has no option 'board_size'; its options: "):
        make_env("connect_four", board_size=6)
    with pytest.raises(ValueError, match="board_size must be one of \\[4, 6, 8\\], got 5"):
        make_env("reversi", board_size=5)
    with pytest.raises(ValueError, match="unknown game 'chess'; games: reversi"):
        make_env("chess")


def test_base_env_refuses_anything_but_a_game():
    with pytest.raises(TypeError, match="game must be a Game"):
        BoardGameEnv("reversi")  # type: ignore[arg-type]


@pytest.mark.parametrize(("size", "num_actions"), [(4, 17), (6, 37), (8, 65)])
def test_reversi_spaces_and_start(size, num_actions):
    env = reversi_v0.env(board_size=size)
    env.reset(seed=1)
    assert env.agents == ["black_0", "white_0"]
    assert env.agent_selection == "black_0"
    for agent in env.agents:
        space = env.observation_space(agent)
        assert space is env.observation_space(agent)  # the same object every call
        assert space["observation"].shape == (size, size, 2)
        assert space["observation"].dtype == np.int8
        assert space["action_mask"].shape == (num_actions,)
        assert env.action_space(agent).n == num_actions
    black = env.observe("black_0")
    white = env.observe("white_0")
    assert black["action_mask"].dtype == np.int8
    assert black["action_mask"].sum() == 4 and white["action_mask"].sum() == 0
    # Each side sees its own discs in plane 0.
    np.testing.assert_array_equal(black["observation"][..., 0], white["observation"][..., 1])
    low, high = size // 2 - 1, size // 2
    assert black["observation"][high, low, 0] == 1  # d5 on 8x8 is black
    assert black["observation"][low, low, 1] == 1  # d4 on 8x8 is white


def test_observations_are_fresh_arrays():
    env = reversi_v0.env()
    env.reset()
    first = env.observe("black_0")
    first["observation"][:] = 1
    first["action_mask"][:] = 0
    second = env.observe("black_0")
    assert second["observation"].sum() == 4 and second["action_mask"].sum() == 4


def test_tictactoe_observation_rows_and_rewards():
    env = tictactoe_v0.env()
    env.reset()
    for action in (0, 3, 1, 4):  # X: a1 a2 (row 0), O: row 1
        env.step(np.int64(action))  # numpy integers are accepted
    obs = env.observe("player_1")["observation"]
    np.testing.assert_array_equal(obs[0, :, 0], [1, 1, 0])
    np.testing.assert_array_equal(obs[1, :, 1], [1, 1, 0])
    env.step(2)  # X completes the top row
    assert all(env.terminations.values())
    assert env.rewards == {"player_1": 1, "player_2": -1}
    _, reward, termination, truncation, _ = env.last()
    assert termination and not truncation
    assert isinstance(termination, bool) and isinstance(truncation, bool)
    assert reward == -1  # player_2 is selected after the winning move
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_reversi_forced_pass_through_the_env():
    # White has no placement here; black still has one.
    state = ReversiState.from_text(
        """
        X X X X
        X X X X
        X X O .
        X X X .
        """,
        current_player=1,
    )
    assert state.legal_actions() == [16]
    env = reversi_v0.env(board_size=4)
    env.reset()
    env.unwrapped.set_state(state)
    obs, *_ = env.last()
    assert env.agent_selection == "white_0"
    np.testing.assert_array_equal(np.flatnonzero(obs["action_mask"]), [16])
    env.step(16)
    assert env.agent_selection == "black_0"
    assert not any(env.terminations.values())


def test_raw_env_raises_on_illegal_moves():
    env = reversi_v0.raw_env()
    env.reset()
    # Black's opening moves in Othello are d3, c4, f5 and e6; a1 is action 0.
    with pytest.raises(IllegalMoveError, match=r"^illegal move a1 \(action 0\) for black; "):
        env.step(0)
    with pytest.raises(IllegalMoveError, match=r"legal moves: d3, c4, f5, e6 \(actions \[19, 26"):
        env.step(0)
    with pytest.raises(IllegalMoveError, match="None for black: not an integer"):
        env.step(None)


def test_wrapped_env_illegal_move_loses():
    env = reversi_v0.env()
    env.reset()
    env.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(0)  # in range but illegal: the mover loses
    assert all(env.terminations.values())
    assert env.rewards == {"black_0": -1, "white_0": 0}


def test_wrapped_env_rejects_out_of_range_actions():
    env = reversi_v0.env()
    env.reset()
    with pytest.raises(AssertionError, match="action space"):
        env.step(65)
    with pytest.raises(AssertionError, match="action space"):
        env.step(-1)


@pytest.mark.parametrize("factory", [reversi_v0.env, tictactoe_v0.env, connect_four_v0.env])
def test_deepcopy_and_pickle_keep_the_game(factory):
    env = factory()
    env.reset(seed=3)
    play_random(env, np.random.default_rng(3), max_steps=5)
    state = env.unwrapped.get_state()
    selection = env.agent_selection
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.unwrapped.get_state() == state
        assert clone.unwrapped.game is env.unwrapped.game  # the one Game object, not a copy
        assert clone.agent_selection == selection
        np.testing.assert_array_equal(clone.last()[0]["action_mask"], env.last()[0]["action_mask"])
        # The clone plays on independently of the original.
        play_random(clone, np.random.default_rng(5))
        assert env.unwrapped.get_state() == state


def test_get_state_set_state_round_trip_and_replay():
    env = reversi_v0.env(board_size=6)
    env.reset()
    actions = play_random(env, np.random.default_rng(11), max_steps=12)
    snapshot = env.unwrapped.get_state()
    tail = play_random(env, np.random.default_rng(12))
    final = env.unwrapped.get_state()
    assert final.is_terminal()

    env.reset()
    env.unwrapped.set_state(snapshot)
    assert env.agent_selection == ("black_0", "white_0")[snapshot.current_player]
    for action in tail:
        env.last()
        env.step(action)
    assert env.unwrapped.get_state() == final
    assert len(actions) == 12

    # Setting a finished position terminates both agents with the game's rewards.
    env.reset()
    env.unwrapped.set_state(final)
    assert all(env.terminations.values())
    assert sum(env.rewards.values()) == 0


def test_set_state_rejects_other_games_and_sizes():
    env = reversi_v0.raw_env(board_size=8)
    with pytest.raises(TypeError, match="position of reversi 8x8, got one of reversi 6x6"):
        env.set_state(ReversiState.initial(6))
    with pytest.raises(TypeError, match="position of reversi 8x8, got one of tictactoe"):
        env.set_state(TicTacToeState())
    with pytest.raises(TypeError, match="position of reversi 8x8, got one of no catalog game"):
        env.set_state("X.O")  # type: ignore[arg-type]
    assert env.get_state() == ReversiState.initial(8)  # unchanged


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="board_size must be one of \\[4, 6, 8\\], got 5"):
        reversi_v0.env(board_size=5)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        reversi_v0.env(render_mode="video")


def test_no_pygame_without_render_mode():
    import pygame

    env = reversi_v0.env()
    env.reset()
    play_random(env, np.random.default_rng(0))
    env.close()
    assert not pygame.display.get_init()


def test_rgb_array_render_and_close_twice():
    env = reversi_v0.env(render_mode="rgb_array")
    env.reset()
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    env.close()
    env.close()


def test_ansi_render_names_the_coordinates():
    env = reversi_v0.env(render_mode="ansi")
    env.reset()
    text = env.render()
    assert isinstance(text, str)
    assert "a" in text and "h" in text and "8" in text


def test_human_render_without_audio(monkeypatch):
    import pygame

    monkeypatch.setitem(reversi_v0.raw_env.metadata, "render_fps", 1000)
    env = reversi_v0.env(render_mode="human", board_size=4)
    env.reset()
    env.last()
    env.step(env.unwrapped.get_state().legal_actions()[0])
    assert pygame.display.get_init()
    assert not pygame.mixer.get_init()
    env.close()
    env.close()


def test_deepcopy_and_pickle_after_a_pygame_render():
    env = reversi_v0.env(board_size=4, render_mode="rgb_array")
    env.reset()
    env.step(env.unwrapped.get_state().legal_actions()[0])
    first = env.render()
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.unwrapped.get_state() == env.unwrapped.get_state()
        np.testing.assert_array_equal(clone.render(), first)  # a new window, the same picture
        clone.close()
    env.close()
