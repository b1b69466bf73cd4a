"""Settings newer than a saved run: what a run saved before a setting existed meant by it.

A run saves its settings (``settings.json`` of ``boardzoo train``, ``args.json`` of an
experiment) and resumes from them. When a later version adds a setting, its default is how new
runs behave, which may not be how the old run behaved: such a setting says, in its dataclass
field's metadata under :data:`BEFORE`, the value that runs saved before it existed had, and
:func:`with_settings_before` fills it in when a saved run lacks it, so the run goes on as it was
started.

    record_forced: bool = dataclasses.field(default=True, metadata={BEFORE: False})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["BEFORE", "with_settings_before"]

BEFORE = "before"  # field metadata: the value of runs saved before the setting existed


def with_settings_before(cls: Any, saved: Mapping[str, Any]) -> dict[str, Any]:
    """``saved`` (a run's saved settings of dataclass ``cls``) with each setting it predates,
    among those that declare a :data:`BEFORE` value, set to that value."""
    older = {
        field.name: field.metadata[BEFORE]
        for field in dataclasses.fields(cls)
        if BEFORE in field.metadata and field.name not in saved
    }
    return {**older, **saved}
