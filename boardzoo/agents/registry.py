"""Agents by name: one spec grammar everywhere, ``name[:key=value,key=value]``.

    make_agent("mcts:simulations=1000,c=1.0", seed=3)
    make_agent("alphabeta:depth=4")

Keys are the agent's constructor parameters, and the fields of its groups of options (a
parameter annotated with a :class:`~boardzoo.agents.settings.Settings` dataclass contributes
its fields: ``mcts:rave=true`` sets ``Enhancements.rave``). Values are converted to the types
declared; an unknown name or key, or a value of the wrong type, raises :class:`AgentSpecError`
listing what is allowed. Parsing never evaluates code.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args, get_origin

from boardzoo.agents.base import Agent
from boardzoo.agents.settings import Settings
from boardzoo.errors import InvalidTypeError, InvalidValueError

__all__ = [
    "AGENT_CLASSES",
    "ENTRY_POINT_GROUP",
    "AgentSpecError",
    "SpecKey",
    "agent_class",
    "agent_names",
    "build_agent",
    "check_spec",
    "make_agent",
    "parse_spec",
    "register_agent",
    "spec_keys",
    "spec_options",
]

# name -> "module:Class", imported on first use.
AGENT_CLASSES: dict[str, str] = {
    "random": "boardzoo.agents.random_agent:RandomAgent",
    "greedy": "boardzoo.agents.greedy:GreedyAgent",
    "alphabeta": "boardzoo.agents.alphabeta:AlphaBetaAgent",
    "engine": "boardzoo.agents.engine:EngineAgent",
    "mcts": "boardzoo.agents.mcts:MCTSAgent",
    "sb3": "boardzoo.agents.sb3_agent:SB3Agent",
    "sb3puct": "boardzoo.agents.sb3_puct:SB3PUCTAgent",
    "az": "boardzoo.agents.alphazero:AlphaZeroAgent",
    "solver": "boardzoo.agents.solver_agent:SolverAgent",
    "openspiel": "boardzoo.agents.openspiel:OpenSpielAgent",
}
# Installed packages add agents under this entry-point group (name = "module:Class").
ENTRY_POINT_GROUP = "boardzoo.agents"
_entry_points_loaded = False
# Constructor arguments that a spec cannot set (functions, objects).
_NOT_FROM_TEXT = {"seed", "prior_fn", "value_fn"}


class AgentSpecError(InvalidValueError):
    """A spec names an unknown agent or key, or a value that does not fit."""


def _load_entry_points() -> None:
    """Add the agents that installed packages declare in the ``boardzoo.agents`` entry-point
    group (once; a name registered already keeps its class)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name.isidentifier() and ":" in entry.value:
            AGENT_CLASSES.setdefault(entry.name, entry.value)


def agent_class(name: str) -> type[Agent]:
    """The class registered under ``name`` (by boardzoo, :func:`register_agent`, or an installed
    package's ``boardzoo.agents`` entry point)."""
    if name not in AGENT_CLASSES:
        _load_entry_points()
    if name not in AGENT_CLASSES:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_CLASSES)}")
    module, cls = AGENT_CLASSES[name].split(":")
    return cast(type[Agent], getattr(importlib.import_module(module), cls))


def register_agent(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name`` (users add their own this way)."""
    if not name.isidentifier():
        raise AgentSpecError(f"agent names are identifiers, got {name!r}")
    AGENT_CLASSES[name] = target


@dataclass(frozen=True)
class SpecKey:
    """A key of a spec (:func:`spec_keys`): its type, where it goes and its default.

    Attributes:
        annotation: the declared type.
        group: the constructor parameter whose group of options holds it; ``None`` for a
            constructor parameter itself.
        default: the default; ``inspect.Parameter.empty`` when it must be given.
        owner: the class whose docstring documents it.
    """

    annotation: Any
    group: str | None
    default: Any
    owner: type


def _is_group(annotation: Any) -> bool:
    return (
        isinstance(annotation, type)
        and issubclass(annotation, Settings)
        and dataclasses.is_dataclass(annotation)
    )


def spec_keys(cls: type) -> dict[str, SpecKey]:
    """Every key a spec of ``cls`` may set, in the constructor's order (a group's fields in
    their order)."""
    hints = typing.get_type_hints(cls.__init__)  # type: ignore[misc]  # (mypy forbids reading __init__ off a class)
    parameters = inspect.signature(cls.__init__).parameters  # type: ignore[misc]  # (the same)
    keys: dict[str, SpecKey] = {}
    for name, parameter in parameters.items():
        if name in ("self", *_NOT_FROM_TEXT) or parameter.kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            continue
        annotation = hints.get(name, str)
        if not _is_group(annotation):
            keys[name] = SpecKey(annotation, None, parameter.default, cls)
            continue
        defaults = parameter.default
        if defaults is inspect.Parameter.empty:
            defaults = annotation()
        field_hints = typing.get_type_hints(annotation)
        for field in dataclasses.fields(annotation):
            if field.name in keys:
                raise InvalidTypeError(f"{cls.__name__}: option {field.name!r} is defined twice")
            keys[field.name] = SpecKey(
                field_hints[field.name], name, getattr(defaults, field.name), annotation
            )
    return keys


def spec_options(name: str) -> dict[str, Any]:
    """The keys a spec for ``name`` may set, with their declared types."""
    return {key: k.annotation for key, k in spec_keys(agent_class(name)).items()}


def _allowed_text(annotation: Any) -> str:
    """What a value of ``annotation`` may be, for messages: "an integer", "true or false"."""
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(str(o) for o in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        text = " or ".join(_allowed_text(a) for a in options)
        return text + (" or none" if len(options) < len(get_args(annotation)) else "")
    return {bool: "true or false", int: "an integer", float: "a number", str: "text"}.get(
        annotation, "a value that cannot be written in a spec"
    )


def _convert(text: str, annotation: Any) -> Any:
    """``text`` as a value of ``annotation`` (int, float, bool, str, Literal, unions), or
    ``ValueError`` if it is not one."""
    origin = get_origin(annotation)
    if origin is Literal:
        for option in get_args(annotation):
            if str(option) == text:
                return option
        raise InvalidValueError(text)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if text.lower() == "none" and len(options) < len(get_args(annotation)):
            return None
        for option in sorted(options, key=lambda a: a is str):  # str last: it accepts anything
            try:
                return _convert(text, option)
            except ValueError:
                pass
        raise InvalidValueError(text)
    if annotation is bool:
        if text.lower() in ("true", "yes", "1"):
            return True
        if text.lower() in ("false", "no", "0"):
            return False
        raise InvalidValueError(text)
    if annotation is int:
        return int(text.replace("_", ""))
    if annotation is float:
        return float(text.replace("_", ""))
    if annotation is str:
        return text
    raise InvalidValueError(text)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the agent name and its converted keyword arguments.

    Raises:
        AgentSpecError: an unknown name or key, a key given twice or without a value, or a value
            of the wrong type, in a one-line message naming the key, the value and what is
            allowed.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(
            f"an agent spec is a non-empty string like 'mcts:simulations=100', got {spec!r}"
        )
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    options = spec_options(name)
    kwargs: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not equals:
            example = next(iter(options), "key")
            raise AgentSpecError(
                f"{name}: {item!r} is not allowed: options are written key=value, "
                f"e.g. {name}:{example}=..."
            )
        if key not in options:
            raise AgentSpecError(
                f"{name}: {key}={value} is not allowed: unknown key {key!r} for {name}; "
                f"allowed: {', '.join(options) or 'none'}"
            )
        if key in kwargs:
            raise AgentSpecError(f"{name}: {key} is given twice: give each key once")
        try:
            kwargs[key] = _convert(value, options[key])
        except ValueError:
            raise AgentSpecError(
                f"{name}: {key}={value} is not allowed: it must be {_allowed_text(options[key])}"
            ) from None
    return name, kwargs


def check_spec(spec: str) -> None:
    """Build the agent ``spec`` describes once, to check it before anything starts.

    Checks the name, the keys, the types and the values (a constructor's own checks, files that
    must exist). Building an agent is cheap: nothing is compiled or loaded.

    Raises:
        AgentSpecError: what is wrong, in one line naming the key, the value and what is
            allowed.
    """
    make_agent(spec, seed=0)


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent a spec describes; ``seed`` goes to agents that take one.

    Raises:
        AgentSpecError: what is wrong with the spec, in one line naming the key, the value and
            what is allowed (``"mcts: simulations=-5 is not allowed: it must be an integer >=
            1"``).
    """
    name, options = parse_spec(spec)
    return build_agent(name, options, seed)


def build_agent(name: str, options: dict[str, Any], seed: Any = None) -> Agent:
    """Build the agent registered as ``name`` from flat options, as a spec names them.

        build_agent("mcts", {"simulations": 300, "solver": True, "rave": True}, seed=0)

    Each key goes to the constructor parameter, or the group of options, that holds it
    (``rave`` to ``enhancements=Enhancements(rave=True)``); values are checked by the groups
    and the constructor, not converted from text.

    Raises:
        AgentSpecError: an unknown key, a missing required one, or a value that is not
            allowed, in one line naming the key, the value and what is allowed.
    """
    cls = agent_class(name)
    keys = spec_keys(cls)
    for key in options:
        if key not in keys:
            raise AgentSpecError(
                f"{name}: unknown key {key!r} for {name}; allowed: {', '.join(keys) or 'none'}"
            )
    for key, k in keys.items():
        if k.default is inspect.Parameter.empty and key not in options:
            raise AgentSpecError(f"{name}: {key} must be given (e.g. {name}:{key}=...)")
    kwargs: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {}
    for key, value in options.items():
        group = keys[key].group
        if group is None:
            kwargs[key] = value
        else:
            groups.setdefault(group, {})[key] = value
    parameters = inspect.signature(cls.__init__).parameters
    if "seed" in parameters:
        kwargs["seed"] = seed
    try:
        for group, fields in groups.items():
            default = parameters[group].default
            if default is inspect.Parameter.empty:
                kwargs[group] = typing.get_type_hints(cls.__init__)[group](**fields)
            else:
                kwargs[group] = default.replace(**fields)
        return cls(**kwargs)
    except ValueError as error:
        text = " ".join(str(error).split())
        raise AgentSpecError(f"{name}: {text}") from None


def agent_names() -> list[str]:
    """The names of every registered agent, in registration order."""
    _load_entry_points()
    return list(AGENT_CLASSES)
