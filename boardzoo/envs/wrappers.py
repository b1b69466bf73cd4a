"""PettingZoo's classic wrappers, with the per-step attribute lookups made cheap.

PettingZoo's ``BaseWrapper`` reaches the raw env's ``agent_selection``, ``terminations`` and the
like through ``__getattr__``, one wrapper at a time: behind three wrappers, each read costs three
Python calls, and an AEC step makes dozens of such reads. The subclasses here behave exactly like
PettingZoo's (they are instances of them and run their code), but read those attributes straight
from the raw env through a descriptor.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

# Attributes that the AEC loop reads on every step, and that OrderEnforcingWrapper hides before
# the first reset.
_HOT_ATTRIBUTES = (
    "agent_selection",
    "agents",
    "terminations",
    "truncations",
    "rewards",
    "infos",
    "_cumulative_rewards",
)


class _RawAttribute:
    """Reads (and writes) an attribute of the raw env, honouring the before-reset guard."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, wrapper: Any, owner: type | None = None) -> Any:
        if wrapper is None:
            return self
        if not wrapper.__dict__.get("_has_reset", True) and not self.name.startswith("_"):
            raise AttributeError(f"{self.name} cannot be accessed before reset")
        return getattr(wrapper.__dict__["_raw_env"], self.name)

    def __set__(self, wrapper: Any, value: Any) -> None:
        setattr(wrapper.__dict__["_raw_env"], self.name, value)


class _FastAttributes:
    """Mixin: the hot attributes come straight from the raw env."""

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self.__dict__["_raw_env"] = env.unwrapped
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]  # the wrapper's


for _name in _HOT_ATTRIBUTES:
    _descriptor = _RawAttribute()
    _descriptor.__set_name__(_FastAttributes, _name)
    setattr(_FastAttributes, _name, _descriptor)


class TerminateIllegalWrapper(_FastAttributes, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with fast attribute reads."""


class AssertOutOfBoundsWrapper(_FastAttributes, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with fast attribute reads."""


class OrderEnforcingWrapper(_FastAttributes, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with fast attribute reads."""

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo prints its own outermost wrapper: the env's name


def wrap_classic(raw: AECEnv) -> AECEnv:
    """Wrap a raw env as PettingZoo's classic ``env()`` functions do.

    An illegal move ends the game with -1 for the player who made it and 0 for the other
    (``TerminateIllegalWrapper``), an action outside the action space fails an assertion, and the
    reset / step / observe order is enforced.
    """
    env = TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)
