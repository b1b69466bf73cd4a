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
import re
import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from boardzoo.agents.base import Agent
from boardzoo.agents.settings import Settings

__all__ = [
    "AGENT_CLASSES",
    "ENTRY_POINT_GROUP",
    "AgentDescription",
    "AgentSpecError",
    "OptionDescription",
    "agent_class",
    "agent_names",
    "build_agent",
    "check_spec",
    "describe_agent",
    "format_agents",
    "make_agent",
    "parse_spec",
    "register_agent",
    "spec_options",
]

# name -> "module:Class", imported on first use.
AGENT_CLASSES: dict[str, str] = {
    "random": "boardzoo.agents.random_agent:RandomAgent",
    "greedy": "boardzoo.agents.greedy:GreedyAgent",
    "alphabeta": "boardzoo.agents.alphabeta:AlphaBetaAgent",
    "mcts": "boardzoo.agents.mcts:MCTSAgent",
    "sb3": "boardzoo.agents.sb3_agent:SB3Agent",
    "puct": "boardzoo.agents.sb3_puct:SB3PUCTAgent",
    "az": "boardzoo.agents.alphazero:AlphaZeroAgent",
}
# Installed packages add agents under this entry-point group (name = "module:Class").
ENTRY_POINT_GROUP = "boardzoo.agents"
_entry_points_loaded = False
# Constructor arguments that a spec cannot set (functions, objects).
_NOT_FROM_TEXT = {"seed", "prior_fn", "value_fn"}


class AgentSpecError(ValueError):
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
    return getattr(importlib.import_module(module), cls)


def register_agent(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name`` (later issues and users add their own)."""
    if not name.isidentifier():
        raise AgentSpecError(f"agent names are identifiers, got {name!r}")
    AGENT_CLASSES[name] = target


@dataclass(frozen=True)
class _Key:
    """A key of a spec: its type, where it goes and its default."""

    annotation: Any
    group: str | None  # the constructor parameter whose group holds it; None: a parameter
    default: Any  # inspect.Parameter.empty when it must be given
    owner: type  # the class whose docstring documents it


def _is_group(annotation: Any) -> bool:
    return (
        isinstance(annotation, type)
        and issubclass(annotation, Settings)
        and dataclasses.is_dataclass(annotation)
    )


def _keys(cls: type) -> dict[str, _Key]:
    """Every key a spec of ``cls`` may set, in the constructor's order (a group's fields in
    their order)."""
    hints = typing.get_type_hints(cls.__init__)  # type: ignore[misc]
    parameters = inspect.signature(cls.__init__).parameters  # type: ignore[misc]
    keys: dict[str, _Key] = {}
    for name, parameter in parameters.items():
        if name in ("self", *_NOT_FROM_TEXT) or parameter.kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            continue
        annotation = hints.get(name, str)
        if not _is_group(annotation):
            keys[name] = _Key(annotation, None, parameter.default, cls)
            continue
        defaults = parameter.default
        if defaults is inspect.Parameter.empty:
            defaults = annotation()
        field_hints = typing.get_type_hints(annotation)
        for field in dataclasses.fields(annotation):
            if field.name in keys:
                raise TypeError(f"{cls.__name__}: option {field.name!r} is defined twice")
            keys[field.name] = _Key(
                field_hints[field.name], name, getattr(defaults, field.name), annotation
            )
    return keys


def spec_options(name: str) -> dict[str, Any]:
    """The keys a spec for ``name`` may set, with their declared types."""
    return {key: k.annotation for key, k in _keys(agent_class(name)).items()}


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
        raise ValueError(text)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if text.lower() == "none" and len(options) < len(get_args(annotation)):
            return None
        for option in sorted(options, key=lambda a: a is str):  # str last: it accepts anything
            try:
                return _convert(text, option)
            except ValueError:
                pass
        raise ValueError(text)
    if annotation is bool:
        if text.lower() in ("true", "yes", "1"):
            return True
        if text.lower() in ("false", "no", "0"):
            return False
        raise ValueError(text)
    if annotation is int:
        return int(text.replace("_", ""))
    if annotation is float:
        return float(text.replace("_", ""))
    if annotation is str:
        return text
    raise ValueError(text)


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
    keys = _keys(cls)
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


# --- descriptions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionDescription:
    """One option of an agent, as ``boardzoo agents NAME`` shows it.

    Attributes:
        name: the key in a spec (``simulations``).
        type_text: the type as text: ``"int"``, ``"float | None"``, ``"random | heuristic"``.
        default: the default value (``None`` when there is none: see ``required``).
        help: one line from the class docstring's ``Args:`` section, ``"(undocumented)"`` if
            it has none.
        required: the option has no default and must be given.
    """

    name: str
    type_text: str
    default: Any
    help: str
    required: bool = False


@dataclass(frozen=True)
class AgentDescription:
    """An agent of the registry, as ``boardzoo agents`` shows it.

    Attributes:
        name: the name in a spec (``mcts``).
        summary: the first line (paragraph) of the class docstring.
        options: the keys a spec may set, in the constructor's order.
    """

    name: str
    summary: str
    options: list[OptionDescription]


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_SECTION = re.compile(
    r"^(Args|Arguments|Attributes|Parameters|Keyword Args|Keyword Arguments):\s*$"
)
_ENTRY = re.compile(r"^([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*)\s*(?:\([^)]*\))?:\s*(.*)$")


def _plain(text: str) -> str:
    """Docstring text as one plain line: roles and double backquotes removed."""
    text = _ROLE.sub(lambda m: m.group(1).rpartition(".")[2], text)
    return " ".join(text.replace("``", "").split())


def _summary(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    return _plain(doc.split("\n\n")[0]) or cls.__name__


def _args_section(doc: str) -> dict[str, str]:
    """The Google-style ``Args:`` entries of ``doc`` by name (one entry may name several)."""
    entries: dict[str, str] = {}
    lines = doc.expandtabs().splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if _SECTION.match(line.strip())), None)
    if start is None:
        return entries
    indent: int | None = None
    names: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if depth < indent or (depth == 0 and line.rstrip().endswith(":")):
            break
        match = _ENTRY.match(line.strip()) if depth == indent else None
        if match:
            names = [n.strip() for n in match.group(1).split(",")]
            for name in names:
                entries[name] = match.group(2)
        else:
            for name in names:
                entries[name] += " " + line.strip()
    return {name: _plain(text) for name, text in entries.items()}


# An Args entry that defers to another class: "as in MCTSAgent." or "nodes ..., as in MCTSAgent."
_REFERENCE = re.compile(r"(^|,\s*)as in \S+\.?$", re.IGNORECASE)


def _option_help(cls: type, key: str) -> str:
    """The help of ``key``: the class docstring's entry; for an entry that only refers to
    another class ("as in ..."), the first base class's own entry."""
    fallback = None
    for klass in cls.__mro__:
        text = _args_section(inspect.getdoc(klass) or "").get(key) if klass.__doc__ else None
        if text and not _REFERENCE.search(text):
            return text
        fallback = fallback or text
    return fallback or "(undocumented)"


def _type_text(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return " | ".join(str(o) for o in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_text(a) for a in get_args(annotation))
    if annotation is type(None):
        return "None"
    return str(getattr(annotation, "__name__", annotation))


def agent_names() -> list[str]:
    """The names of every registered agent, in registration order."""
    _load_entry_points()
    return list(AGENT_CLASSES)


def describe_agent(name: str) -> AgentDescription:
    """The summary and options of the agent registered as ``name``.

    Raises:
        AgentSpecError: ``name`` is not registered (the message lists the known agents).
    """
    cls = agent_class(name)
    options = []
    for key, k in _keys(cls).items():
        required = k.default is inspect.Parameter.empty
        options.append(
            OptionDescription(
                name=key,
                type_text=_type_text(k.annotation),
                default=None if required else k.default,
                help=_option_help(k.owner, key),
                required=required,
            )
        )
    return AgentDescription(name=name, summary=_summary(cls), options=options)


def _default_text(option: OptionDescription) -> str:
    """A default as a spec writes it: ``none``, ``true``, ``1000000``, ``random``."""
    if option.required:
        return "(required)"
    value = option.default
    if value is None or isinstance(value, bool):
        return str(value).lower()
    return str(value)


def format_agents(name: str | None = None, width: int = 100) -> str:
    """The text ``boardzoo agents [NAME]`` prints.

    Args:
        name: an agent's name for its options in full (a table of name, type, default and
            help), or ``None`` for every agent with its summary and options in short.
        width: the width to wrap lines to.

    Raises:
        AgentSpecError: ``name`` is not registered (the message lists the known agents).
    """
    if name is not None:
        return _format_one(describe_agent(name), width)
    descriptions = [describe_agent(n) for n in agent_names()]
    pad = max(len(d.name) for d in descriptions) + 2
    lines = [
        "Agents. A spec is NAME or NAME:key=value,key=value (e.g. mcts:simulations=500,c=1.0);",
        "`boardzoo agents NAME` explains one agent's options.",
        "",
    ]
    for description in descriptions:
        lines += textwrap.wrap(
            description.summary,
            width,
            initial_indent=description.name.ljust(pad),
            subsequent_indent=" " * pad,
        )
        options = "  ".join(
            f"{o.name}{' (required)' if o.required else '=' + _default_text(o)}"
            for o in description.options
        )
        lines += textwrap.wrap(
            "options: " + (options or "none"),
            width,
            initial_indent=" " * pad,
            subsequent_indent=" " * (pad + 9),
            break_on_hyphens=False,
        )
    return "\n".join(lines)


def _format_one(description: AgentDescription, width: int) -> str:
    lines = [f"{description.name}: {description.summary}", ""]
    if not description.options:
        lines.append(f"{description.name} has no options: its spec is just {description.name!r}.")
        return "\n".join(lines)
    lines += [f"Spec: {description.name}:key=value,key=value with these keys:", ""]
    rows = [("option", "type", "default", "help")] + [
        (o.name, o.type_text, _default_text(o), o.help) for o in description.options
    ]
    cells = [
        [[row[0]], textwrap.wrap(row[1], 22, break_on_hyphens=False) or [""], [row[2]]]
        for row in rows
    ]
    widths = [max(len(line) for cell in cells for line in cell[i]) for i in range(3)]
    help_at = sum(widths) + 3 * 2
    help_width = max(30, width - help_at)
    for row, columns in zip(rows, cells, strict=True):
        columns.append(textwrap.wrap(row[3], help_width) or [""])
        for i in range(max(len(column) for column in columns)):
            parts = [column[i] if i < len(column) else "" for column in columns]
            lines.append("  ".join(p.ljust(w) for p, w in zip(parts, [*widths, 0], strict=True)))
    return "\n".join(line.rstrip() for line in lines)
