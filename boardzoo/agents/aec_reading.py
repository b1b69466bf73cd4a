"""What a two-player PettingZoo AEC env says about its position, read without changing it.

:func:`read_turn` reads who moves, the legal actions, whether the game is over and the last
rewards (a :class:`Turn`); :func:`env_facts` reads what a clone of the env must reproduce, and
:func:`difference` says where an env differs from such facts. The clones of
:mod:`boardzoo.agents.aec_clones` are checked, and played on, through these.
"""

from __future__ import annotations

import copy
import reprlib
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Turn", "class_name", "difference", "env_facts", "first_legal", "read_turn", "unwrap"]

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40


def class_name(env: Any) -> str:
    """The module-qualified name of ``env``'s class."""
    cls = type(env)
    return f"{cls.__module__}.{cls.__qualname__}"


def unwrap(env: Any) -> Any:
    """``env.unwrapped``, or ``env`` itself where it has none."""
    return getattr(env, "unwrapped", env)


@dataclass(frozen=True)
class Turn:
    """What an env says about its position: who moves, what is legal, over, last rewards."""

    agent: str
    mask: np.ndarray
    over: bool
    rewards: dict[str, float]


def read_turn(env: Any, num_actions: int) -> Turn:
    """The :class:`Turn` of ``env`` (the mask from the observation, else the agent's info)."""
    agent = env.agent_selection
    over = not env.agents or all(
        env.terminations.get(a, True) or env.truncations.get(a, True) for a in env.agents
    )
    if over:
        mask = np.zeros(num_actions, dtype=np.int8)
    else:
        observation = env.observe(agent)
        if isinstance(observation, dict) and "action_mask" in observation:
            found = observation["action_mask"]
        else:
            found = env.infos.get(agent, {}).get("action_mask")
        mask = np.ones(num_actions, np.int8) if found is None else np.array(found, np.int8)
    rewards = {a: float(r) for a, r in env.rewards.items()}
    return Turn(agent, mask, over, rewards)


def env_facts(env: Any, num_actions: int) -> dict[str, Any]:
    """What a clone of ``env`` must reproduce, as independent copies."""
    facts = {
        "agents": list(env.agents),
        "agent_selection": env.agent_selection,
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "action mask": read_turn(env, num_actions).mask,
    }
    for agent in env.agents:
        facts[f"observe({agent!r})"] = env.observe(agent)
    return copy.deepcopy(facts)


def difference(expected: dict[str, Any], env: Any, num_actions: int) -> str | None:
    """The first way ``env`` differs from the ``expected`` facts, or ``None``."""
    try:
        found = env_facts(env, num_actions)
    except Exception as error:  # a clone that lost the game breaks in any way
        return f"reading it raised {type(error).__name__}: {error}"
    for key, value in expected.items():
        if key not in found:
            return f"{key} is missing"
        try:
            np.testing.assert_equal(found[key], value)
        except AssertionError:
            if isinstance(value, str):
                return f"{key} is {_short.repr(found[key])}, not {_short.repr(value)}"
            return f"{key} differs"
    return None


def first_legal(env: Any, num_actions: int) -> int | None:
    """The first legal action of ``env``'s agent to move; ``None`` once the game is over."""
    turn = read_turn(env, num_actions)
    legal = np.flatnonzero(turn.mask)
    return None if turn.over or legal.size == 0 else int(legal[0])
