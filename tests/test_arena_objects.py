"""Agent objects under tournament rules: sent to their own process, like specs.

The user's view: ``play_match("reversi", (MyAgent(), "mcts"), ...)`` with an agent
that hangs must lose its games on time while the match goes on, instead of holding the match
forever; an object that cannot be sent is refused before anything starts, with the way out.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from test_arena import CrashingAgent, HangingAgent, _Base

from boardzoo.agents import RandomAgent
from boardzoo.arena import AgentNotPicklableError, play_match, without_timing


class LockedAgent(_Base):
    """Holds a lock, which does not pickle: it cannot be sent to another process."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.lock = threading.Lock()

    def act(self, env: Any) -> int:
        with self.lock:
            return self.random_move(env)


def test_a_hanging_agent_object_loses_on_time_and_the_match_goes_on():
    start = time.perf_counter()
    result = play_match(
        "tictactoe", (HangingAgent(after=1), "random"), games=2, time_limit=1.0, progress=False
    )
    assert time.perf_counter() - start < 120  # not the agent's hour of sleep
    assert [r["reason"] for r in result.records] == ["time", "time"]
    assert [r["forfeit"] for r in result.records] == [0, 0]
    assert result.stats[0].agent == "HangingAgent"
    assert result.records[0]["agent_configs"][0]["class"] == "test_arena:HangingAgent"


def test_a_crashing_agent_object_loses_its_game_not_the_match():
    result = play_match("tictactoe", (CrashingAgent(), "random"), games=2, progress=False)
    assert [r["reason"] for r in result.records] == ["error", "error"]
    assert "process ended" in result.records[0]["error"]


def test_an_agent_object_gives_the_same_games_with_any_number_of_workers():
    # each game starts from a fresh copy of the object as it was when the match started
    agent = RandomAgent(seed=3)
    one = play_match("tictactoe", (agent, "greedy"), games=12, workers=1, progress=False)
    two = play_match("tictactoe", (agent, "greedy"), games=12, workers=2, progress=False)
    assert [without_timing(r) for r in one.records] == [without_timing(r) for r in two.records]
    # the object opens games 0, 2, 4, ... from the same copy: the same first move every time
    openers = {r["moves"][0] for r in one.records if r["first"] == 0}
    assert len(openers) == 1


def test_an_object_that_cannot_be_sent_is_refused_before_anything_starts(tmp_path):
    out = tmp_path / "never.jsonl"
    with pytest.raises(AgentNotPicklableError) as raised:
        play_match("tictactoe", (LockedAgent(), "random"), games=2, out=out, progress=False)
    message = str(raised.value)
    assert "LockedAgent" in message and "pickle" in message
    assert "register_agent" in message and "isolate=False" in message
    assert not out.exists()
    # in this process, when asked for: it plays
    result = play_match(
        "tictactoe", (LockedAgent(seed=1), "random"), games=2, progress=False, isolate=False
    )
    assert [r["reason"] for r in result.records] == ["normal", "normal"]


def test_objects_in_this_process_are_refused_with_several_workers():
    with pytest.raises(ValueError, match="workers=1"):
        play_match(
            "tictactoe", (RandomAgent(), "random"), games=2, workers=2, isolate=False,
            progress=False,
        )  # fmt: skip
