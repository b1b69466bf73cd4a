"""Command-line flags made from a dataclass's fields: ``x_y: int`` becomes ``--x-y N``.

Used by ``boardzoo train`` (the fields of :class:`~boardzoo.az.train_settings.TrainSettings`)
and by the experiments' :func:`~boardzoo.experiment_kit.parse_args`.
"""

from __future__ import annotations

import argparse
import types
import typing
from typing import Any, Literal

__all__ = ["add_field_flag", "field_type"]


def field_type(annotation: Any) -> tuple[Any, bool, list[Any] | None]:
    """``(type, many, choices)`` of a field's annotation: ``X | None`` reads as ``X``,
    ``tuple[X, ...]`` and ``list[X]`` as several ``X`` (``many``), ``Literal[...]`` as the type
    of its values with those values as ``choices``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        (annotation,) = [a for a in typing.get_args(annotation) if a is not type(None)]
        origin = typing.get_origin(annotation)
    many = origin in (tuple, list)
    if many:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is Literal:
        choices = list(typing.get_args(annotation))
        return type(choices[0]), many, choices
    return annotation, many, None


def add_field_flag(
    parser: argparse.ArgumentParser, name: str, annotation: Any, default: Any, help_text: str
) -> None:
    """Add the flag of field ``name``: ``--name/--no-name`` for a boolean, else ``--name X``
    (``X ...`` for a sequence; a ``Literal`` field's values as choices)."""
    flag = "--" + name.replace("_", "-")
    kind, many, choices = field_type(annotation)
    if kind is bool:
        parser.add_argument(
            flag, action=argparse.BooleanOptionalAction, default=default, help=help_text
        )
    else:
        nargs = "+" if many else None
        parser.add_argument(
            flag, type=kind, nargs=nargs, default=default, choices=choices, help=help_text
        )
