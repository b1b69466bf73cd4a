"""A griffe extension for the API reference: Sphinx roles in docstrings become cross-references.

The docstrings name objects the Sphinx way (:class:`~boardzoo.agents.Agent`, :func:`play_match`);
mkdocstrings reads Markdown. Each role becomes an optional autorefs link: to the object's entry
where the reference documents it, plain code otherwise (no warning either way). A ``~`` shows the
last name only, as in Sphinx; a bare name is looked up in the object's module first.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`<]+?)(?:\s*<([^`>]+)>)?`")


def _convert(text: str, module: str) -> str:
    def link(match: re.Match[str]) -> str:
        tilde, shown, target = match.group(1), match.group(2).strip(), match.group(3)
        identifier = (target or shown).lstrip("~.")
        if "." not in identifier:
            identifier = f"{module}.{identifier}"
        label = shown.split(".")[-1] if tilde else shown
        return f'<autoref identifier="{identifier}" optional><code>{label}</code></autoref>'

    return _ROLE.sub(link, text)


class RstRoles(griffe.Extension):
    """Rewrites Sphinx roles in every docstring before it is parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _convert(obj.docstring.value, obj.module.path)
