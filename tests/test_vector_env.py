"""The batched env against Gymnasium's own ``SyncVectorEnv`` of the single-agent env.

Oracle: N copies of :class:`~boardzoo.envs.single_agent.BoardGameSingleAgentEnv` (positions by
the games' Python states, observations by ``planes``) stepped by Gymnasium's ``SyncVectorEnv``
(its own autoreset), with opponents written here in plain Python from the rule the batched env
documents: a uniform choice among the legal placements, in action order, drawn from a
xorshift64* stream seeded by splitmix64 (Vigna 2016) with the sub-env's seed; greedy: the same
choice among the placements of best ``greedy_score``; alpha-beta: the cells shuffled by the same
stream (Fisher-Yates), then the first of best value by a plain minimax (no pruning, no move
ordering) to the depth over the game's kernels. Over thousands of steps with random legal and
some illegal actions, every observation, mask, reward, termination and info must be equal.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import boardzoo  # noqa: F401  (registers the ids)
from boardzoo.agents.base import Agent
from boardzoo.envs.single_agent import BoardGameSingleAgentEnv
from boardzoo.games.catalog import get_game
from boardzoo.vector import BoardGameVectorEnv

MASK64 = (1 << 64) - 1


class Xorshift:
    """splitmix64 seeding, xorshift64 steps, xorshift64* output: plain Python integers."""

    def __init__(self, seed: int) -> None:
        z = (seed + 0x9E3779B97F4A7C15) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        self.state = z or 0x9E3779B97F4A7C15

    def below(self, count: int) -> int:
        """The next draw, reduced to ``range(count)``."""
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & MASK64
        x ^= x >> 27
        self.state = x
        return (((x * 0x2545F4914F6CDD1D) & MASK64) >> 32) % count


class StreamOpponent(Agent):
    """Plays what the batched env's compiled opponent plays, from the same stream."""

    def __init__(self, seed: int, greedy: bool = False, depth: int = 0) -> None:
        self.rng = Xorshift(seed)
        self.greedy = greedy
        self.depth = depth

    def act(self, env: Any) -> int:
        state = env
        game = state.game
        placements = [a for a in state.legal_actions() if a != game.pass_action]
        if not placements:
            return int(game.pass_action)
        if self.depth:
            return self._minimax_choice(state)
        if self.greedy:
            placements = self._best(state, placements)
        return placements[self.rng.below(len(placements))]

    def _minimax_choice(self, state: Any) -> int:
        """The first cell of best minimax value in the stream's shuffle of the cells."""
        game, k = state.game, state.game.kernels
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        player = state.current_player
        cells = _cells(k.placements(s0, s1, player, game.params))
        for j in range(len(cells) - 1, 0, -1):
            i = self.rng.below(j + 1)
            cells[j], cells[i] = cells[i], cells[j]
        values = [
            -_minimax(game, *k.place(s0, s1, player, cell, game.params), 1 - player, self.depth - 1)
            for cell in cells
        ]
        return int(k.cell_action(cells[values.index(max(values))], game.params))

    @staticmethod
    def _best(state: Any, placements: list[int]) -> list[int]:
        """The placements of best greedy score (the kernel's score of the cell each fills)."""
        game = state.game
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        player = state.current_player
        cells = int(game.kernels.placements(s0, s1, player, game.params))
        by_action = {}
        for cell in range(64):
            if cells >> cell & 1:
                action = int(game.kernels.cell_action(cell, game.params))
                score = game.kernels.greedy_score(s0, s1, player, cell, game.params)
                by_action[action] = int(score)
        assert sorted(by_action) == placements
        best = max(by_action.values())
        return [a for a in placements if by_action[a] == best]


def _cells(bits: Any) -> list[int]:
    return [cell for cell in range(64) if int(bits) >> cell & 1]


def _minimax(game: Any, s0: Any, s1: Any, player: int, depth: int) -> int:
    """The negamax value to ``depth`` plies (a pass is a ply) for the player to move: the game's
    final score at the end, its evaluation at the horizon."""
    k, params = game.kernels, game.params
    s0, s1 = np.uint64(s0), np.uint64(s1)  # numba returns Python ints: keep them unsigned
    moves = np.uint64(k.placements(s0, s1, player, params))
    if not moves:
        over, _ = k.outcome(s0, s1, player, params)
        if over:
            return int(k.final_score(s0, s1, player, params))
        if depth <= 0:
            return int(k.evaluate(s0, s1, player, moves, params))
        return -_minimax(game, s0, s1, 1 - player, depth - 1)
    if depth <= 0:
        return int(k.evaluate(s0, s1, player, moves, params))
    return max(
        -_minimax(game, *k.place(s0, s1, player, cell, params), 1 - player, depth - 1)
        for cell in _cells(moves)
    )


def _oracle(
    game: str, n: int, seed: int, colour: str, greedy: bool, depth: int = 0, **options: Any
) -> Any:
    def make(i: int) -> Any:
        return lambda: BoardGameSingleAgentEnv(
            game, opponent=StreamOpponent(seed + i, greedy, depth), learner_color=colour,
            **options,
        )  # fmt: skip

    return SyncVectorEnv([make(i) for i in range(n)], autoreset_mode=AutoresetMode.NEXT_STEP)


def _assert_same(batched: tuple[Any, ...], oracle: tuple[Any, ...], step: int) -> None:
    *arrays, info_b = batched
    *expected, info_o = oracle
    names = ("obs", "reward", "terminated", "truncated")
    for name, got, want in zip(names, arrays, expected, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=f"{name} differs at step {step}")
    assert set(info_b) == set(info_o), f"info keys differ at step {step}"
    for key in info_o:
        np.testing.assert_array_equal(
            info_b[key], info_o[key], err_msg=f"info[{key!r}] differs at step {step}"
        )


CASES = [
    ("reversi", {"board_size": 8}, "first", False),
    ("reversi", {"board_size": 6}, "second", True),
    ("reversi", {"board_size": 4}, "first", False),
    ("connect_four", {}, "second", False),
    ("connect_four", {}, "first", True),
    ("tictactoe", {}, "first", False),
    ("tictactoe", {}, "second", True),
]


@pytest.mark.parametrize(("game", "options", "colour", "greedy"), CASES)
def test_the_batched_env_steps_as_copies_of_the_single_env(game, options, colour, greedy):
    n, seed, steps = 16, 11, 400
    opponent = "greedy" if greedy else "random"
    batched = BoardGameVectorEnv(game, n, opponent=opponent, learner_color=colour, **options)
    oracle = _oracle(game, n, seed, colour, greedy, **options)
    rng = np.random.default_rng(5)
    got, want = batched.reset(seed=seed), oracle.reset(seed=seed)
    _assert_same((got[0], 0, 0, 0, got[1]), (want[0], 0, 0, 0, want[1]), step=0)
    ended = 0
    for step in range(1, steps + 1):
        mask = want[-1]["action_mask"]
        # a random legal action (any, after the end of an episode: it is ignored)
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        wrong = rng.random(n) < 0.01  # now and then an illegal action (or any action)
        actions[wrong] = rng.integers(0, batched.single_action_space.n, wrong.sum())
        got = batched.step(actions)
        want = oracle.step(actions)
        _assert_same(got, want, step)
        ended += int(want[2].sum())
    assert ended > n  # several episodes of each sub-env, so autoresets were compared too


# Steps enough for several episodes of each sub-env, and for an opponent searching one ply less
# or more to show (tictactoe's to depth 3 at the 18th step); the oracle's minimax is Python, and
# to depth 3 or 4 it is what takes the time.
@pytest.mark.parametrize(
    ("game", "options", "colour", "depth", "steps"),
    [
        ("reversi", {"board_size": 6}, "first", 2, 150),
        ("reversi", {"board_size": 8}, "second", 1, 150),
        ("connect_four", {}, "first", 3, 30),
        ("tictactoe", {}, "second", 4, 24),
    ],
)
def test_alphabeta_opponents_play_as_a_plain_minimax(game, options, colour, depth, steps):
    n, seed = 8, 23
    batched = BoardGameVectorEnv(
        game, n, opponent=f"alphabeta:depth={depth}", learner_color=colour, **options
    )
    oracle = _oracle(game, n, seed, colour, False, depth, **options)
    rng = np.random.default_rng(6)
    got, want = batched.reset(seed=seed), oracle.reset(seed=seed)
    _assert_same((got[0], 0, 0, 0, got[1]), (want[0], 0, 0, 0, want[1]), step=0)
    ended = 0
    for step in range(1, steps + 1):
        mask = want[-1]["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        got, want = batched.step(actions), oracle.step(actions)
        _assert_same(got, want, step)
        ended += int(want[2].sum())
    assert ended > n  # several episodes of each sub-env, so autoresets were compared too


def test_make_vec_returns_the_batched_env_with_gymnasium_conventions():
    envs = gymnasium.make_vec(
        "boardzoo/Reversi-v0", num_envs=32, vectorization_mode="vector_entry_point",
        opponent="greedy", board_size=8,
    )  # fmt: skip
    assert isinstance(envs.unwrapped, BoardGameVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (32, 8, 8, 2) and obs.dtype == np.int8
    assert info["action_mask"].shape == (32, 65) and info["action_mask"].dtype == np.int8
    assert obs in envs.observation_space
    assert set(np.unique(info["learner"])) == {0, 1}  # learner_color="random": both sides
    # a learner moving second finds the opponent's first move made: 5 discs, not 4
    discs = obs.sum(axis=(1, 2, 3))
    np.testing.assert_array_equal(discs, np.where(info["learner"] == 1, 5, 4))
    np.testing.assert_array_equal(envs.unwrapped.action_masks(), info["action_mask"])


def test_the_same_seed_gives_the_same_games_and_another_seed_others():
    def play(seed: int) -> list[np.ndarray]:
        envs = BoardGameVectorEnv("connect_four", 8, opponent="random")
        obs, info = envs.reset(seed=seed)
        seen = [obs]
        for _ in range(60):
            obs, *_, info = envs.step(info["action_mask"].argmax(axis=1))
            seen.append(obs)
        return seen

    first, again, other = play(3), play(3), play(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_reset_mask_starts_only_the_masked_sub_envs():
    envs = BoardGameVectorEnv("tictactoe", 4, opponent="random", learner_color="first")
    envs.reset(seed=0)
    obs, *_ = envs.step(np.zeros(4, dtype=np.int64))  # everyone takes the corner a1
    keep = obs.copy()
    fresh, _ = envs.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert fresh[[0, 2]].sum() == 0  # empty boards again
    np.testing.assert_array_equal(fresh[[1, 3]], keep[[1, 3]])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be at least 1, got 0"),
        ({"num_envs": 2.5}, "num_envs must be a positive integer, got 2.5"),
        ({"opponent": "mcts"}, "opponent must be random, greedy or alphabeta.* got 'mcts'"),
        ({"opponent": "alphabeta:depth=5"}, r"alphabeta:depth=N \(N from 1 to 4\).* got 'alpha"),
        ({"opponent": ["random", "alphabeta"]}, "got 'alphabeta'"),
        ({"render_mode": "human"}, "render_mode must be None .* got 'human'"),
        ({"learner_color": "blue"}, "learner_color must be one of"),
        ({"board_size": 5}, r"board_size must be one of \[4, 6, 8\], got 5"),
    ],
)
def test_bad_arguments_are_refused_with_what_is_allowed(kwargs, message):
    arguments = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        BoardGameVectorEnv("reversi", **arguments)


def test_steps_before_reset_and_actions_of_the_wrong_shape_are_refused():
    envs = BoardGameVectorEnv("tictactoe", 3)
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        envs.step(np.zeros(3, dtype=np.int64))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(3,\), got int64 of shape \(2,\)"):
        envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="integer array"):
        envs.step(np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": [1, 0, 1]})


def test_every_catalog_game_has_a_batched_env():
    for spec in [get_game(name) for name in ("reversi", "connect_four", "tictactoe")]:
        envs = gymnasium.make_vec(spec.gym_id, num_envs=2, vectorization_mode="vector_entry_point")
        obs, _ = envs.reset(seed=1)
        assert obs.shape[0] == 2


# --- policies as opponents, pools -------------------------------------------------------------


def _network(game: str, seed: int, **options: Any) -> Any:
    """A small untrained network: board planes in, one logit per action out."""
    import torch

    rules = get_game(game).make(**options)
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(rules.rows * rules.cols * 2, rules.num_actions)
    )


class PolicyAgent(Agent):
    """The policy as a single env's agent: its observation from the side to move."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def act(self, env: Any) -> int:
        state = env
        obs = state.planes(state.current_player)[None]
        return int(self.policy(obs, state.legal_action_mask()[None])[0])


class PoolOpponent(Agent):
    """A member of the pool drawn per episode from the stream, as the batched env draws it."""

    def __init__(self, seed: int, members: list[Any]) -> None:
        self.stream = StreamOpponent(seed)
        self.members = members
        self.member: Any = None

    def reset(self) -> None:
        self.member = self.members[self.stream.rng.below(len(self.members))]

    def act(self, env: Any) -> int:
        if self.member == "random":
            return self.stream.act(env)
        return int(PolicyAgent(self.member).act(env))


@pytest.mark.parametrize(
    ("game", "options"), [("reversi", {"board_size": 6}), ("connect_four", {})]
)
@pytest.mark.torch
def test_a_policy_and_a_pool_of_opponents_play_as_in_the_single_env(game, options):
    from boardzoo.vector import TorchPolicy

    n, seed = 12, 3
    policy = TorchPolicy(_network(game, 0, **options))
    members: list[Any] = ["random", policy]
    batched = BoardGameVectorEnv(game, n, opponent=members, learner_color="second", **options)

    def make(i: int) -> Any:
        return lambda: BoardGameSingleAgentEnv(
            game, opponent=PoolOpponent(seed + i, members), learner_color="second", **options
        )

    oracle = SyncVectorEnv([make(i) for i in range(n)], autoreset_mode=AutoresetMode.NEXT_STEP)
    rng = np.random.default_rng(1)
    got, want = batched.reset(seed=seed), oracle.reset(seed=seed)
    _assert_same((got[0], 0, 0, 0, got[1]), (want[0], 0, 0, 0, want[1]), step=0)
    for step in range(1, 250):
        mask = want[-1]["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        got, want = batched.step(actions), oracle.step(actions)
        _assert_same(got, want, step)
    assert set(batched._opp) == {0, 1}  # both members drawn


def test_a_policy_that_plays_an_illegal_action_is_refused():
    def first_action(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.zeros(len(obs), dtype=np.int64)  # a1, which is taken after the first move

    envs = BoardGameVectorEnv("tictactoe", 2, opponent=first_action, learner_color="first")
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="chose the illegal action 0"):
        envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match=r"a policy .* or a list of these; got 3"):
        BoardGameVectorEnv("tictactoe", 2, opponent=3)
    with pytest.raises(ValueError, match="opponent pool is empty"):
        BoardGameVectorEnv("tictactoe", 2, opponent=[])


def test_each_kernel_is_announced_on_its_first_call_only(monkeypatch):
    """A compile notice wraps the first call of each kernel (the call that compiles it on a
    fresh install), and no later call."""
    import contextlib

    import boardzoo.vector.env as vector_env

    announced: list[str] = []

    @contextlib.contextmanager
    def recording(what: str, about_seconds: int):
        announced.append(what)
        yield

    monkeypatch.setattr(vector_env, "compile_notice", recording)

    def first_legal(observations, masks):
        return np.argmax(masks, axis=1)

    envs = BoardGameVectorEnv("tictactoe", 3, opponent=first_legal, learner_color="second")
    envs.reset(seed=0)
    for _ in range(6):
        envs.step(np.argmax(envs.action_masks(), axis=1))
    assert announced == [
        f"the batched env's {kernel} for tictactoe"
        for kernel in ("step_some", "policy_views", "policy_replies")
    ]
