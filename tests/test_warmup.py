"""Compiled code is ready before any clock runs: the warm-up compiles and caches it, a cold
``prepare`` says that it is compiling, and a warm one loads quietly.

Cold caches are made with a temporary ``NUMBA_CACHE_DIR`` in subprocesses; the repository's own
``__pycache__`` is never touched.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from boardzoo.warmup import PARTS, warm_up

PREPARE_ALL = """
import numpy as np
from boardzoo.agents import AlphaBetaAgent, GreedyAgent
from boardzoo.games.catalog import make_game
from boardzoo.vector import BoardGameVectorEnv
game = make_game("tictactoe")
for agent in (AlphaBetaAgent(depth=2, seed=0), GreedyAgent(seed=0)):
    agent.prepare(game)
    print(agent.act(game.initial_state()))
envs = BoardGameVectorEnv("tictactoe", 2, opponent=["random", lambda obs, masks: masks.argmax(1)])
envs.reset(seed=0)
print(len(envs.step(np.argmax(envs.action_masks(), axis=1))[0]))
"""

PREPARE_EACH = """
from boardzoo.agents import AlphaBetaAgent, Budget, EngineAgent, GreedyAgent, MCTSAgent
from boardzoo.agents.settings import Enhancements, UCTSettings
from boardzoo.games import specialise
from boardzoo.games.catalog import make_game
compiled = set(specialise._SPECIALISED)
game = make_game("tictactoe")
for agent in (
    MCTSAgent(Budget(simulations=10), seed=0),
    MCTSAgent(Budget(simulations=10), UCTSettings(solver=True), seed=0),
    MCTSAgent(Budget(simulations=10), enhancements=Enhancements(preset="strong"), seed=0),
    MCTSAgent(Budget(simulations=10), enhancements=Enhancements(rave=True), seed=0),
    MCTSAgent(Budget(simulations=10), enhancements=Enhancements(cutoff=2), seed=0),
    MCTSAgent(Budget(simulations=10), UCTSettings(rollout="lgrf"), seed=0),
    AlphaBetaAgent(depth=2, seed=0),
    EngineAgent(time_limit=None, depth=2, seed=0),
    GreedyAgent(seed=0),
):
    agent.prepare(game)
print(len(set(specialise._SPECIALISED) - compiled))
"""


def run(args: list[str], cache: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=600, env=env, check=False
    )


@pytest.mark.slow
def test_cold_prepare_says_it_compiles_and_the_warm_up_leaves_nothing_to_compile(tmp_path):
    cache = str(tmp_path / "numba-cache")

    # alpha-beta, cold: its search and the rules kernels it calls, the smallest compile of an
    # agent that takes seconds (the greedy player's own kernels take less than the notice waits)
    cold = run(["-c", "from boardzoo.agents import AlphaBetaAgent\n"
                "from boardzoo.games.catalog import make_game\n"
                "AlphaBetaAgent(depth=2).prepare(make_game('tictactoe'))"], cache)  # fmt: skip
    assert cold.returncode == 0, cold.stderr
    assert "boardzoo: compiling the alpha-beta search for tictactoe (first run only" in cold.stderr
    assert " done in " in cold.stderr

    # the smallest warm-up, one game and one agent: its batched env compiles for seconds with
    # the notices off (the warm-up's other parts, a minute or more cold, are checked in the
    # repository's cache below)
    agents = ["greedy"]
    parts = ["rules", "vector", *agents]
    warm_up_run = run(["-m", "boardzoo.warmup", "--games", "tictactoe", "--agents", *agents], cache)
    assert warm_up_run.returncode == 0, warm_up_run.stderr
    for index, part in enumerate(parts, start=1):
        assert f"[{index}/{len(parts)}] tictactoe: {part} (" in warm_up_run.stderr
    assert "boardzoo warm-up: done in" in warm_up_run.stderr
    assert "boardzoo: compiling" not in warm_up_run.stderr  # its own progress, not the notices

    # a new process finds everything in the cache: alpha-beta compiled above, the rest (the
    # batched env with a policy in its pool) by the warm-up
    later = run(["-c", PREPARE_ALL], cache)
    assert later.returncode == 0, later.stderr
    assert "compiling" not in later.stderr
    printed = later.stdout.split()  # the two agents' moves, the batched env's observations
    assert len(printed) == 3 and printed[2] == "2"


def test_warm_up_in_parallel_processes_covers_every_game_and_part():
    # then, after a warm-up of one game in this process (from the cache), agents of every part
    # and single enhancements: a variant the warm-up missed would be a new compiled copy
    code = (
        "from boardzoo.warmup import warm_up\n"
        "steps = warm_up(['tictactoe', 'connect_four'], progress=False, workers=2)\n"
        "print(sorted((s.game, s.part) for s in steps))\n"
        "warm_up(['tictactoe'], progress=False, workers=1)\n" + PREPARE_EACH
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr
    expected = sorted((game, part) for game in ("tictactoe", "connect_four") for part in PARTS)
    assert result.stdout.split("\n")[0] == str(expected)
    assert result.stdout.split("\n")[1] == "0"  # no copy made after the warm-up
    assert result.stderr == ""  # progress=False prints nothing


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": ["chess"]}, "game='chess' is not allowed: it must be one of reversi, "),
        ({"agents": ["minimax"]}, "agent='minimax' is not allowed: it must be one of greedy, "),
        ({"workers": 0}, "workers=0 is not allowed: it must be an integer >= 1"),
    ],
)
def test_bad_arguments_are_refused_before_any_work(kwargs, message):
    with pytest.raises(ValueError, match=message):
        warm_up(progress=False, **kwargs)


def test_the_command_line_refuses_an_unknown_game():
    result = subprocess.run(
        [sys.executable, "-m", "boardzoo.warmup", "--games", "chess"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "invalid choice: 'chess'" in result.stderr
