"""An experiment's arguments: a dataclass read from the command line, CleanRL style.

A script declares its settings as a frozen dataclass whose fields are made with :func:`arg` (the
default and the ``--help`` text); :func:`parse_args` builds it from the command line (field
``x_y`` is ``--x-y``). A field declared with ``before=VALUE`` tells what a resumed run whose
``args.json`` predates it meant (:mod:`boardzoo.settings_history`). With ``--resume-folder``,
the run's saved settings replace the command line's, except for how it runs
(:data:`RESUME_FROM_COMMAND_LINE`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import typing
from pathlib import Path
from typing import Any, TypeVar

from boardzoo.cli.common import declared_option_flags
from boardzoo.cli.dataclass_flags import add_field_flag, field_type
from boardzoo.errors import InvalidTypeError
from boardzoo.experiment_kit.game_args import with_format_1_options
from boardzoo.settings_history import BEFORE, with_settings_before

__all__ = ["RESUME_FROM_COMMAND_LINE", "arg", "parse_args"]

T = TypeVar("T")


def parse_args(cls: type[T], argv: list[str] | None = None, description: str = "") -> T:
    """Build ``cls`` (a dataclass) from the command line; field docs become ``--help`` text.

    Field ``x_y`` becomes ``--x-y``; booleans are flags; tuple fields take several values;
    ``X | None`` fields default to ``None`` (not given). When ``cls`` has an ``options`` field
    (the game's options), the flags that the catalog's games declare for their options
    (Reversi's ``--board-size``) are added and go into it as ``NAME=VALUE``. When ``cls`` has a
    ``resume_folder`` field and it names a run folder with an ``args.json``, the run's saved
    settings replace the command line's, except for :data:`RESUME_FROM_COMMAND_LINE` given on
    the command line.
    """
    values = _fold_option_flags(vars(_parser(cls, description).parse_args(argv)))
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]  # (cls is a dataclass type: parse_args's contract)
        if isinstance(values[field.name], list):
            values[field.name] = tuple(values[field.name])
    if values.get("resume_folder"):
        given_only = _parser(cls, description, given_only=True).parse_args(argv)
        given = set(_fold_option_flags(vars(given_only)))
        values = _resumed_values(cls, values, given)
    return cls(**values)


_OPTION_FLAG = "game_option_flag_"  # dest prefix of the games' declared option flags


def _fold_option_flags(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the games' declared option flags (``--board-size 6``) moved into
    ``options`` as ``"board_size=6"`` (after those of ``--options``)."""
    flags = {k: v for k, v in values.items() if k.startswith(_OPTION_FLAG)}
    folded = {k: v for k, v in values.items() if k not in flags}
    texts = [f"{k.removeprefix(_OPTION_FLAG)}={v}" for k, v in flags.items() if v is not None]
    if texts:
        folded["options"] = (*folded.get("options", ()), *texts)
    return folded


def _parser(cls: Any, description: str, given_only: bool = False) -> argparse.ArgumentParser:
    """The command line of ``cls``; with ``given_only``, one whose namespace holds only the
    options given (no defaults)."""
    hints = typing.get_type_hints(cls)
    parser = argparse.ArgumentParser(description=description)
    for field in dataclasses.fields(cls):
        annotation = hints[field.name]
        default: Any = field.default
        many = field_type(annotation)[1]
        shown = " ".join(map(str, default)) if many else default
        help_text = field.metadata.get("help", "")
        if default is not None:
            help_text += f" (default: {shown})"
        if given_only:
            default = argparse.SUPPRESS
        add_field_flag(parser, field.name, annotation, default, help_text)
        if field.name == "options":
            _add_option_flags(parser, given_only)
    return parser


def _add_option_flags(parser: argparse.ArgumentParser, given_only: bool) -> None:
    """The flags the catalog's games declare for their options, each an alias of
    ``--options NAME=VALUE`` (checked against the chosen game later, by :func:`game_options`)."""
    declared = declared_option_flags()
    for name in dict.fromkeys(name for name, _, _ in declared.values()):
        flags = [flag for flag, (other, _, _) in declared.items() if other == name]
        games = next(games for other, _, games in declared.values() if other == name)
        parser.add_argument(
            *flags,
            dest=_OPTION_FLAG + name,
            type=int,
            default=argparse.SUPPRESS if given_only else None,
            help=f"the {name} option ({', '.join(games)}): the same as --options {name}=N",
        )


# What a resumed run takes from the command line rather than from its saved ``args.json``: how
# it runs, not what it plays.
RESUME_FROM_COMMAND_LINE = ("resume_folder", "out", "workers", "threads", "minutes")


def _resumed_values(cls: Any, values: dict[str, Any], given: set[str]) -> dict[str, Any]:
    """``values`` with the settings of the run being resumed (its folder's ``args.json``), so that
    ``--resume-folder`` alone goes on with the run as it was started; of the settings ``given``
    on the command line, those of :data:`RESUME_FROM_COMMAND_LINE` are kept, the others ignored
    with a note when they differ from the run's."""
    saved_path = Path(values["resume_folder"]) / "args.json"
    if not saved_path.is_file():
        return values  # experiment_folder says what is wrong with the folder
    try:
        saved = json.loads(saved_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        message = f"--resume-folder: cannot read the run's settings {saved_path}: {error}"
        raise SystemExit(message) from None
    if not isinstance(saved, dict):
        raise SystemExit(f"--resume-folder: {saved_path} is not a run's settings (a JSON object)")
    merged = dict(values)
    saved = with_settings_before(cls, with_format_1_options(saved))
    for field in dataclasses.fields(cls):
        name = field.name
        if (name in RESUME_FROM_COMMAND_LINE and name in given) or name not in saved:
            continue
        value = tuple(saved[name]) if isinstance(saved[name], list) else saved[name]
        if name in given and values[name] != value:
            flag = "--" + name.replace("_", "-")
            print(f"note: {flag} {values[name]!r} ignored: the resumed run keeps its {value!r} "
                  f"({saved_path})")  # fmt: skip
        merged[name] = value
    return merged


def arg(default: Any, help: str, **before: Any) -> Any:
    """A dataclass field with its ``--help`` text; ``before=VALUE``: what a resumed run whose
    ``args.json`` predates the field takes (the way those runs played), rather than
    ``default`` (:mod:`boardzoo.settings_history`)."""
    if set(before) - {BEFORE}:
        raise InvalidTypeError(f"arg() takes before=..., got {sorted(before)}")
    return dataclasses.field(default=default, metadata={"help": help, **before})
