"""Checks of the values users give (options, settings, arguments), one message style everywhere.

Every failed check raises ``InvalidValueError("<key>=<value> is not allowed: it must be <what>")``
(a ``ValueError`` too, see :mod:`boardzoo.errors`), before any work starts;
:func:`boardzoo.agents.registry.make_agent` puts the agent's name in front
(``"mcts: simulations=-5 is not allowed: it must be an integer >= 1"``). The agents'
option groups, the batched search's :class:`~boardzoo.search.batched.BatchedSearchSettings`,
the network's :class:`~boardzoo.learned.network.NetworkSettings` and the training settings all
check with these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from boardzoo.errors import InvalidValueError

__all__ = [
    "check_choice",
    "check_int",
    "check_number",
    "check_optional_int",
    "check_optional_number",
    "not_allowed",
    "show",
]


def show(value: Any) -> str:
    """``value`` as a spec would write it: ``-5``, ``0.5``, ``-1.0``, ``nan``, ``'best'``."""
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.integer):
        return str(int(value))
    return repr(value)


def _bound(number: float) -> str:
    """A bound for messages: ``0``, ``1``, ``0.5``."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def not_allowed(key: str, value: Any, allowed: str) -> InvalidValueError:
    """The error for ``key=value``: ``"<key>=<value> is not allowed: it must be <allowed>"``."""
    return InvalidValueError(f"{key}={show(value)} is not allowed: it must be {allowed}")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _int_or_fail(key: str, value: Any, low: int, high: int | None, or_none: str) -> int:
    if not _is_int(value) or value < low or (high is not None and value > high):
        allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
        raise not_allowed(key, value, allowed + or_none)
    return int(value)


def check_int(key: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int if it is an integer in ``low..high`` (no upper end if ``None``)."""
    return _int_or_fail(key, value, low, high, "")


def check_optional_int(key: str, value: Any, low: int, high: int | None = None) -> int | None:
    """``None``, or ``value`` as an int if it is an integer in ``low..high``."""
    return None if value is None else _int_or_fail(key, value, low, high, " or none")


def _number_or_fail(
    key: str, value: Any, low: float, high: float | None, low_open: bool, or_none: str
) -> float:
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, bool
    )
    ok = number and math.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (high is None or value <= high)
    if not ok:
        if high is not None:
            allowed = f"a number in [{_bound(low)}, {_bound(high)}]"
        else:
            allowed = f"a number {'>' if low_open else '>='} {_bound(low)}"
        raise not_allowed(key, value, allowed + or_none)
    return float(value)


def check_number(
    key: str, value: Any, low: float = 0.0, high: float | None = None, low_open: bool = True
) -> float:
    """``value`` as a float if it is a finite number above ``low`` (or equal to it unless
    ``low_open``) and at most ``high`` (no upper end if ``None``)."""
    return _number_or_fail(key, value, low, high, low_open, "")


def check_optional_number(
    key: str, value: Any, low: float = 0.0, high: float | None = None, low_open: bool = True
) -> float | None:
    """``None``, or ``value`` as a float if it passes :func:`check_number`."""
    return None if value is None else _number_or_fail(key, value, low, high, low_open, " or none")


def check_choice(key: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise not_allowed(key, value, "one of " + ", ".join(choices))
    return value
