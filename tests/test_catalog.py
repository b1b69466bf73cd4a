"""One battery for every game of the catalog: a game registered there is tested by these alone.

Each test walks the catalog, so a new game gets the env API tests, the clone round trips, the
state contract, a short game of every compiled agent, the single-agent and batched envs, the
warm-up, and the arena command line with a replay, without a line added here.

The battery also runs on a game that lives in this folder, registered at run time:
``three_in_a_row`` (``tests/line_game.py``, its kernels in ``tests/line_game_kernels.py``; its
positions are the package's generic ``KernelState``, its env is made from the catalog). It proves
that adding a game needs no file of the package: only a rules module, a kernels module and a
catalog entry. It is registered for its own tests and taken out of the catalog after each.
"""

from __future__ import annotations

import copy
import importlib
import pickle

import gymnasium
import numpy as np
import pettingzoo
import pytest
from conftest import TEST_GAME
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import boardzoo  # noqa: F401 (registers the envs)
from boardzoo.agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, RandomAgent
from boardzoo.agents.settings import Budget, TreeSettings, UCTSettings
from boardzoo.cli import main
from boardzoo.envs import board_env, catalog_env, single_agent
from boardzoo.envs.env_render import EnvRenderer
from boardzoo.games import catalog
from boardzoo.games.spec import KERNEL_FUNCTIONS, GameSpec
from boardzoo.warmup import warm_up

NAMES = (*catalog.game_names(), TEST_GAME)


@pytest.fixture
def spec(name, request) -> GameSpec:
    """The catalog entry of ``name``; the test game is registered for the test, then removed."""
    if name == TEST_GAME:
        request.getfixturevalue("register_test_game")
    return catalog.get_game(name)


class _CatalogEnvModule:
    """``env``/``raw_env`` of a game without an env module: the catalog's, game name bound."""

    def __init__(self, name: str) -> None:
        self.name = name

    def env(self, **kwargs):
        return catalog_env.env(self.name, **kwargs)

    def raw_env(self, **kwargs):
        return catalog_env.raw_env(self.name, **kwargs)


def env_module(spec: GameSpec):
    if spec.env_module is None:
        return _CatalogEnvModule(spec.name)
    return importlib.import_module(spec.env_module)


def random_states(spec: GameSpec, games: int, seed: int):
    """Every position of ``games`` uniformly random games, with the action that led there."""
    rng = np.random.default_rng(seed)
    game = spec.make()
    for _ in range(games):
        state, action = game.initial_state(), None
        yield state, action
        while not state.is_terminal():
            action = int(rng.choice(state.legal_actions()))
            state = state.apply(action)
            yield state, action


@pytest.mark.parametrize("name", NAMES)
def test_the_spec_names_every_part(name, spec):
    game = spec.make()
    kernels = importlib.import_module(spec.kernels)
    assert all(callable(getattr(kernels, f, None)) for f in KERNEL_FUNCTIONS)
    assert len(spec.sides) == len(spec.symbols) == len(spec.agents) == 2
    assert game is spec.make() and game.name == name and game.params[0] != 0
    names = game.action_names
    assert len(names) == len(set(names)) == game.num_actions
    assert [game.parse_action(n) for n in names] == list(range(game.num_actions))
    assert [game.parse_action(n.upper()) for n in names] == list(range(game.num_actions))
    with pytest.raises(ValueError, match="cannot read move"):
        game.parse_action("zz99")
    assert spec.aec_id in pettingzoo.aec_registry and spec.gym_id in gymnasium.registry
    raw = env_module(spec).raw_env()
    assert raw.metadata["name"].startswith(name) and raw.possible_agents == list(spec.agents)


class _UnpacedRenderer(EnvRenderer):
    """An env's renderer whose "human" frames do not wait 1 / render_fps seconds (a second a frame
    for tictactoe): the dummy display needs no pacing."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fps = 1000


@pytest.fixture
def unpaced_windows(monkeypatch):
    """The envs' "human" frames drawn without pacing (PettingZoo's render_test and Gymnasium's
    check_env draw a few)."""
    monkeypatch.setattr(board_env, "EnvRenderer", _UnpacedRenderer)
    monkeypatch.setattr(single_agent, "EnvRenderer", _UnpacedRenderer)


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_test_suites(name, spec, unpaced_windows):
    api_test(env_module(spec).env(), num_cycles=200)
    seed_test(env_module(spec).env, num_cycles=200)
    render_test(lambda render_mode=None: env_module(spec).env(render_mode=render_mode))


@pytest.mark.parametrize("name", NAMES)
def test_clones_keep_the_game(name, spec):
    env = pettingzoo.make("aec", spec.aec_id)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.get_state()
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.unwrapped.get_state() == state
        assert clone.agent_selection == env.agent_selection
        np.testing.assert_array_equal(
            clone.observe(clone.agent_selection)["observation"],
            env.observe(env.agent_selection)["observation"],
        )
    fresh = env_module(spec).env()
    fresh.reset()
    fresh.unwrapped.set_state(state)
    assert fresh.agent_selection == env.agent_selection and fresh.unwrapped.get_state() == state


@pytest.mark.parametrize("name", NAMES)
def test_states_keep_the_contract(name, spec):
    game = spec.make()
    kernels, params = game.kernels, game.params
    previous = None
    for state, action in random_states(spec, games=20, seed=1):
        assert state.game is game
        legal = state.legal_actions()
        np.testing.assert_array_equal(np.flatnonzero(state.legal_action_mask()), legal)
        planes = state.planes(state.current_player)
        assert planes.shape == (game.rows, game.cols, 2) and planes.dtype == np.int8
        assert len(state.to_text().splitlines()) == game.rows
        owners = [[state.square_owner(r, c) for c in range(game.cols)] for r in range(game.rows)]
        counts = [sum(row.count(p) for row in owners) for p in (0, 1)]
        assert tuple(counts) == state.disc_counts()
        assert (planes[..., 0].sum(), planes[..., 1].sum()) == (
            counts[state.current_player],
            counts[1 - state.current_player],
        )
        if action is not None and previous is not None:
            assert state.placed_square(action) == previous.move_square(action)
            if action != game.pass_action:
                row, col = state.placed_square(action)
                assert state.square_owner(row, col) == previous.current_player
        # The compiled kernels agree with the state.
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        over, result = kernels.outcome(s0, s1, state.current_player, params)
        assert bool(over) == state.is_terminal()
        if over:
            assert result == {0: 2, 1: 0, None: 1}[state.winner]
        else:
            cells = int(kernels.placements(s0, s1, state.current_player, params))
            from_kernels = sorted(
                int(kernels.cell_action(c, params)) for c in range(64) if cells >> c & 1
            )
            assert from_kernels == [a for a in legal if a != game.pass_action]
            for a in legal:
                if a != game.pass_action:
                    square = state.move_square(a)
                    assert square is not None and state.square_owner(*square) is None
        if state.winner is None and state.is_terminal():
            assert state.winning_line() is None
        # The compiled searches rebuild positions from their bitboards and player to move.
        rebuilt = game.state_from_bitboards(*state.bitboards(), state.current_player)
        assert rebuilt == state and rebuilt.current_player == state.current_player
        assert rebuilt.legal_actions() == legal
        previous = state


@pytest.mark.parametrize("name", NAMES)
def test_every_agent_plays_a_game(name, spec):
    game = spec.make()
    pairs = [
        (MCTSAgent(budget=Budget(simulations=200), seed=0), AlphaBetaAgent(depth=2, seed=0)),
        (GreedyAgent(seed=0), RandomAgent(seed=0)),
        (
            MCTSAgent(
                budget=Budget(simulations=100),
                uct=UCTSettings(solver=True),
                tree=TreeSettings(reuse_tree=True),
                seed=1,
            ),
            GreedyAgent(seed=1),
        ),
        (AlphaBetaAgent(depth=3, time_limit=0.05, seed=1), RandomAgent(seed=1)),
    ]
    for agents in pairs:
        state = game.initial_state()
        while not state.is_terminal():
            action = agents[state.current_player].act(state)
            assert state.is_legal(action)
            state = state.apply(action)


@pytest.mark.parametrize("name", NAMES)
def test_single_agent_env(name, spec, unpaced_windows):
    env = gymnasium.make(spec.gym_id, opponent="greedy")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=3)
    game = spec.make()
    assert obs.shape == (game.rows, game.cols, 2)
    assert info["action_mask"].shape == (game.num_actions,)


@pytest.mark.parametrize("name", NAMES)
def test_arena_command_and_replay(name, spec, tmp_path, capsys):
    records = tmp_path / "games.jsonl"
    args = ["arena", name, "greedy", "random", "--games", "2", "--out", str(records)]
    assert main([*args, "--no-progress"]) == 0
    assert "greedy" in capsys.readouterr().out
    gif = tmp_path / "game.gif"
    assert main(["replay", str(records), "--game", "1", "--gif", str(gif)]) == 0
    assert gif.stat().st_size > 0


@pytest.mark.parametrize("name", NAMES)
def test_warm_up_and_batched_env(name, spec):
    steps = warm_up([name], agents=("greedy",), progress=False, workers=1)
    assert {(step.game, step.part) for step in steps} == {
        (name, "rules"),
        (name, "vector"),
        (name, "greedy"),
    }
    envs = gymnasium.make_vec(spec.gym_id, num_envs=3, opponent="random")
    observations, infos = envs.reset(seed=0)
    game = spec.make()
    assert observations.shape == (3, game.rows, game.cols, 2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        # An env whose game ended is reset by this step (Gymnasium's next-step autoreset): its
        # mask is empty and its action ignored.
        legal = [np.flatnonzero(mask) for mask in infos["action_mask"]]
        actions = [int(rng.choice(moves)) if len(moves) else 0 for moves in legal]
        observations, rewards, _, _, infos = envs.step(np.array(actions))
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
    envs.close()
