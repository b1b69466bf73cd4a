"""``SB3VecEnv``: the batched env as stable-baselines3 sees it.

Oracle: SB3's own ``DummyVecEnv`` over copies of the single env (its same-step autoreset and
``terminal_observation``), with the opponents of ``test_vector_env`` that play what the batched
env's compiled opponent plays. And sb3-contrib's MaskablePPO trains through the adapter using
its masks: no illegal action is ever played.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.rl
require("rl")  # the imports below need it

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402
from test_vector_env import StreamOpponent  # noqa: E402

from boardzoo.envs.single_agent import BoardGameSingleAgentEnv  # noqa: E402
from boardzoo.rl import SB3VecEnv  # noqa: E402
from boardzoo.vector import BoardGameVectorEnv  # noqa: E402


@pytest.mark.parametrize(("game", "options", "colour"), [
    ("reversi", {"board_size": 6}, "first"), ("connect_four", {}, "second"),
])  # fmt: skip
def test_the_adapter_steps_as_sb3s_dummy_vec_env_of_single_envs(game, options, colour):
    n, seed = 8, 21
    adapter = SB3VecEnv(BoardGameVectorEnv(game, n, learner_color=colour, **options))
    adapter.seed(seed)

    def make(i: int) -> Any:
        return lambda: BoardGameSingleAgentEnv(
            game, opponent=StreamOpponent(seed + i), learner_color=colour, **options
        )

    oracle = DummyVecEnv([make(i) for i in range(n)])
    np.testing.assert_array_equal(adapter.reset(), oracle.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for step in range(300):
        masks = np.stack(oracle.env_method("action_masks"))
        np.testing.assert_array_equal(get_action_masks(adapter), masks, err_msg=f"step {step}")
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        if step % 50 == 7:  # an illegal action (out of range when every action is legal)
            wrong = np.flatnonzero(masks[0] == 0)
            actions[0] = wrong[0] if len(wrong) else masks.shape[1]
        obs, rewards, dones, infos = adapter.step(actions)
        want_obs, want_rewards, want_dones, want_infos = oracle.step(actions)
        np.testing.assert_array_equal(obs, want_obs, err_msg=f"obs at step {step}")
        np.testing.assert_array_equal(rewards, want_rewards, err_msg=f"rewards at step {step}")
        np.testing.assert_array_equal(dones, want_dones, err_msg=f"dones at step {step}")
        for got, want in zip(infos, want_infos, strict=True):
            assert got["illegal_action"] == want.get("illegal_action", False)
            assert ("terminal_observation" in got) == ("terminal_observation" in want)
            if "terminal_observation" in want:
                np.testing.assert_array_equal(
                    got["terminal_observation"], want["terminal_observation"]
                )
        ended += int(dones.sum())
    assert ended > n


class CountIllegal(BaseCallback):
    """Counts the illegal actions played during training (from the step infos)."""

    def __init__(self) -> None:
        super().__init__()
        self.illegal = 0
        self.steps = 0

    def _on_step(self) -> bool:
        infos = self.locals["infos"]
        self.illegal += sum(info["illegal_action"] for info in infos)
        self.steps += len(infos)
        return True


def test_maskable_ppo_trains_through_the_adapter_and_never_plays_illegally():
    envs = SB3VecEnv(BoardGameVectorEnv("reversi", 16, opponent="greedy", board_size=6))
    assert is_masking_supported(envs)
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=128, n_epochs=1, seed=0)
    counter = CountIllegal()
    model.learn(total_timesteps=1024, callback=counter)
    assert counter.steps >= 1024
    assert counter.illegal == 0  # the masks reached the policy
    obs = envs.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(envs), deterministic=True)
    assert all(get_action_masks(envs)[np.arange(16), actions])


def test_the_adapter_takes_only_a_batched_env():
    with pytest.raises(TypeError, match="BoardGameVectorEnv"):
        SB3VecEnv(DummyVecEnv([lambda: BoardGameSingleAgentEnv("tictactoe")]))
