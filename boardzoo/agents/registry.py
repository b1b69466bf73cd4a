"""Agents by name: one spec grammar everywhere, ``name[:key=value,key=value]``.

    make_agent("mcts:simulations=1000,c=1.0", seed=3)
    make_agent("alphabeta:depth=4")

Keys are checked against the agent's constructor and converted to the types it declares; an
unknown name or key, or a value of the wrong type, raises :class:`AgentSpecError` listing what is
allowed. Parsing never evaluates code.
"""

from __future__ import annotations

import importlib
import inspect
import types
import typing
from typing import Any, Literal, get_args, get_origin

from boardzoo.agents.base import Agent

# name -> "module:Class", imported on first use.
AGENT_CLASSES: dict[str, str] = {
    "random": "boardzoo.agents.random_agent:RandomAgent",
    "greedy": "boardzoo.agents.greedy:GreedyAgent",
    "alphabeta": "boardzoo.agents.alphabeta:AlphaBetaAgent",
    "mcts": "boardzoo.agents.mcts.agent:MCTSAgent",
    "sb3": "boardzoo.agents.sb3_agent:SB3Agent",
    "puct": "boardzoo.agents.sb3_puct:SB3PUCTAgent",
}
# Constructor arguments that a spec cannot set (functions, objects).
_NOT_FROM_TEXT = {"seed", "prior_fn", "value_fn"}


class AgentSpecError(ValueError):
    """A spec names an unknown agent or key, or a value that does not fit."""


def agent_class(name: str) -> type[Agent]:
    """The class registered under ``name``."""
    if name not in AGENT_CLASSES:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_CLASSES)}")
    module, cls = AGENT_CLASSES[name].split(":")
    return getattr(importlib.import_module(module), cls)


def register_agent(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name`` (later issues and users add their own)."""
    if not name.isidentifier():
        raise AgentSpecError(f"agent names are identifiers, got {name!r}")
    AGENT_CLASSES[name] = target


def spec_options(name: str) -> dict[str, Any]:
    """The keys a spec for ``name`` may set, with their declared types."""
    cls = agent_class(name)
    hints = typing.get_type_hints(cls.__init__)
    parameters = inspect.signature(cls.__init__).parameters
    return {
        key: hints.get(key, str)
        for key in parameters
        if key not in ("self", *_NOT_FROM_TEXT)
        and parameters[key].kind
        not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    }


def _convert(text: str, annotation: Any, where: str) -> Any:
    """Turn ``text`` into a value of ``annotation`` (int, float, bool, str, Literal, unions)."""
    origin = get_origin(annotation)
    if origin is Literal:
        for option in get_args(annotation):
            if str(option) == text:
                return option
        allowed = ", ".join(str(o) for o in get_args(annotation))
        raise AgentSpecError(f"{where}: {text!r} is not one of {allowed}")
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if text.lower() == "none" and len(options) < len(get_args(annotation)):
            return None
        errors = []
        for option in sorted(options, key=lambda a: a is str):  # str last: it accepts anything
            try:
                return _convert(text, option, where)
            except AgentSpecError as error:
                errors.append(str(error))
        raise AgentSpecError(errors[0] if len(errors) == 1 else f"{where}: cannot read {text!r}")
    if annotation is bool:
        if text.lower() in ("true", "yes", "1"):
            return True
        if text.lower() in ("false", "no", "0"):
            return False
        raise AgentSpecError(f"{where}: expected true or false, got {text!r}")
    if annotation is int:
        try:
            return int(text.replace("_", ""))
        except ValueError:
            raise AgentSpecError(f"{where}: expected an integer, got {text!r}") from None
    if annotation is float:
        try:
            return float(text)
        except ValueError:
            raise AgentSpecError(f"{where}: expected a number, got {text!r}") from None
    if annotation is str:
        return text
    raise AgentSpecError(f"{where}: this key cannot be set from text")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the agent name and its converted keyword arguments."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(
            f"an agent spec is a non-empty string like 'mcts:simulations=100', got {spec!r}"
        )
    name, _, rest = spec.strip().partition(":")
    options = spec_options(name)
    kwargs: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals:
            raise AgentSpecError(f"{spec!r}: expected key=value, got {item!r}")
        if key not in options:
            raise AgentSpecError(
                f"{spec!r}: unknown key {key!r} for {name}; allowed: {', '.join(options) or 'none'}"
            )
        if key in kwargs:
            raise AgentSpecError(f"{spec!r}: key {key!r} given twice")
        kwargs[key] = _convert(value.strip(), options[key], f"{name}.{key}")
    return name, kwargs


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent a spec describes; ``seed`` goes to agents that take one."""
    name, kwargs = parse_spec(spec)
    cls = agent_class(name)
    if "seed" in inspect.signature(cls.__init__).parameters:
        kwargs["seed"] = seed
    try:
        return cls(**kwargs)
    except ValueError as error:
        raise AgentSpecError(f"{spec!r}: {error}") from None
