"""How the arena names, describes and packs an agent: its label in records and reports, its full
configuration, and an agent object packed (pickled) to be played in its own process or Ray actor.

An agent is a spec (``"mcts:simulations=200"``), an :class:`~boardzoo.agents.Agent` object, or a
:class:`PackedAgent` (such an object, packed once by :func:`pack_agent`).
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
import sys
from dataclasses import dataclass
from typing import Any

from boardzoo.agents import registry
from boardzoo.agents.base import Agent
from boardzoo.agents.registry import agent_class, parse_spec
from boardzoo.errors import InvalidValueError

__all__ = [
    "AgentNotPicklableError",
    "PackedAgent",
    "agent_config",
    "agent_label",
    "pack_agent",
    "player_key",
]


class AgentNotPicklableError(InvalidValueError):
    """An agent object that cannot be sent to its own process (it does not pickle)."""


@dataclass(frozen=True)
class PackedAgent:
    """An agent object packed (pickled) to be played in its own process or Ray actor.

    Each game unpacks a fresh copy there, so every game starts from the object as it was when
    the match started, whichever worker plays it.

    Attributes:
        label: the class name, as records name the agent.
        data: the pickled object.
        config: the agent's configuration for the records (see :func:`agent_config`).
    """

    label: str
    data: bytes
    config: dict[str, Any]

    @property
    def digest(self) -> str:
        """The SHA-256 of ``data``: the same object packed twice gives the same digest."""
        return hashlib.sha256(self.data).hexdigest()

    def unpack(self) -> Agent:
        """A fresh copy of the agent."""
        agent = pickle.loads(self.data)  # our own bytes, made by pack_agent in the arena
        assert isinstance(agent, Agent)
        return agent


def pack_agent(agent: Agent) -> PackedAgent:
    """Pack ``agent`` to be sent to its own process.

    Raises:
        AgentNotPicklableError: the object does not pickle, or its class could not be imported
            by another process (a class defined in an interactive session); the message says
            how to make it a spec or to play it in this process.
    """
    cls = type(agent)
    how = (
        "Register it and pass a spec instead (boardzoo.agents.register_agent('mine', "
        f"{cls.__name__}); then 'mine:key=value'), or play it in this process with "
        "isolate=False (a hang then hangs the match)"
    )
    main = sys.modules.get("__main__")
    if cls.__module__ == "__main__" and not getattr(main, "__file__", None):
        raise AgentNotPicklableError(
            f"the agent {cls.__name__} is defined in an interactive session, so its own "
            f"process cannot import its class. Define it in a module or script. {how}"
        )
    try:
        data = pickle.dumps(agent)
    except Exception as error:
        raise AgentNotPicklableError(
            f"the agent {cls.__name__} cannot be sent to its own process: it does not pickle "
            f"({type(error).__name__}: {error}). {how}"
        ) from error
    return PackedAgent(cls.__name__, data, agent_config(agent))


def agent_label(agent: str | Agent | PackedAgent) -> str:
    """How an agent is named in records and reports: its spec, or its class name for objects."""
    if isinstance(agent, str):
        return agent.strip()
    return agent.label if isinstance(agent, PackedAgent) else type(agent).__name__


def player_key(agent: str | Agent | PackedAgent) -> Any:
    """What tells agents apart when players are kept from game to game: the spec, the packed
    object's digest, or the object itself (by identity)."""
    if isinstance(agent, str):
        return agent_label(agent)
    return ("packed", agent.digest) if isinstance(agent, PackedAgent) else id(agent)


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


def agent_config(agent: str | Agent | PackedAgent) -> dict[str, Any]:
    """The full configuration of an agent: its name, class and every option with its value.

    For a spec, options it does not set show their defaults. For an object, only the class and
    its repr are known.
    """
    if isinstance(agent, PackedAgent):
        return agent.config
    if not isinstance(agent, str):
        cls = type(agent)
        name = getattr(agent, "name", cls.__name__)
        return {"name": name, "class": _class_path(cls), "repr": repr(agent)}
    name, options = parse_spec(agent)
    cls = agent_class(name)
    parameters = inspect.signature(cls.__init__).parameters
    full = {
        key: _jsonable(options.get(key, parameter.default))
        for key, parameter in parameters.items()
        if key in registry.spec_options(name) and parameter.default is not inspect.Parameter.empty
    }
    full.update({key: _jsonable(value) for key, value in options.items()})
    return {"name": name, "class": _class_path(cls), "options": full}


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"
