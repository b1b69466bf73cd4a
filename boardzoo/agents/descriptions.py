"""Agents described: the summary and the options of each registered agent, as
``boardzoo agents [NAME]`` prints them.

    describe_agent("mcts").options  # [OptionDescription(name="simulations", ...), ...]
    print(format_agents("mcts"))

Everything comes from the code: an option's type and default from the constructor (or its group
of options, :class:`~boardzoo.agents.settings.Settings`), its help from the ``Args:`` entry of
the class docstring that documents it, and an agent's summary from the first paragraph of its
class docstring.
"""

from __future__ import annotations

import inspect
import re
import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from boardzoo.agents.registry import agent_class, agent_names, spec_keys

__all__ = [
    "AgentDescription",
    "OptionDescription",
    "describe_agent",
    "format_agents",
]


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


def describe_agent(name: str) -> AgentDescription:
    """The summary and options of the agent registered as ``name``.

    Raises:
        AgentSpecError: ``name`` is not registered (the message lists the known agents).
    """
    cls = agent_class(name)
    options = []
    for key, k in spec_keys(cls).items():
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
