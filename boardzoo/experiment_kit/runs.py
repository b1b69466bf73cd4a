"""An experiment's run: the agent specs checked up front, one seeding block, and the run folder
named after the experiment, game, seed and time (or the one being resumed), with ``args.json``;
and the arguments every experiment that plays matches shares."""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents.registry import check_spec
from boardzoo.experiment_kit.args import arg
from boardzoo.experiment_kit.game_args import OPTIONS_HELP
from boardzoo.games.catalog import default_game, game_names

__all__ = [
    "ArenaExperimentArgs",
    "check_specs",
    "experiment_folder",
    "run_folder",
    "seed_everything",
]


@dataclasses.dataclass(frozen=True)
class ArenaExperimentArgs:
    """The arguments of every experiment that plays matches through the arena; a script's
    ``Args`` subclasses it, adds its own fields and may redeclare these with other defaults."""

    game: str = arg(default_game(), f"the game: {', '.join(game_names())}")
    options: tuple[str, ...] = arg((), OPTIONS_HELP)
    games: int = arg(100, "games per match (colours alternated)")
    workers: int = arg(2, "games played in parallel")
    seed: int = arg(0, "seed of every match")
    out: str = arg("runs", "folder that receives the run folder")
    resume_folder: str = arg("", "continue the run in this folder instead of starting one")
    quick: bool = arg(False, "a smoke run (see the script's docstring)")


def check_specs(flag: str, specs: Iterable[str]) -> None:
    """Build every agent spec once (:func:`~boardzoo.agents.registry.check_spec`), before any run
    folder, file or game: a bad one stops the script with a one-line message.

    Args:
        flag: the option the specs come from (``"--opponents"``), named in the message.
        specs: the agent specs.

    Raises:
        SystemExit: a spec names an unknown agent or key, a value its agent refuses or a file
            that does not exist; the message names the flag, the key, the value and what is
            allowed.
    """
    for spec in specs:
        try:
            check_spec(spec)
        except (ValueError, OSError) as error:  # AgentSpecError, or a file the agent needs
            raise SystemExit(f"{flag}: {error}") from None


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and, if installed, PyTorch: the one seeding block."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:
        pass


def run_folder(root: str | Path, experiment: str, game: str, seed: int, args: Any) -> Path:
    """``root/<experiment>-<game>-seed<seed>-<YYYYmmdd-HHMMSS>``, created, with ``args.json``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = Path(root) / f"{experiment}-{game}-seed{seed}-{stamp}"
    folder.mkdir(parents=True, exist_ok=False)
    (folder / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2) + "\n")
    return folder


def experiment_folder(args: Any, experiment: str) -> Path:
    """The run folder of ``args``: ``args.resume_folder`` if given (it must exist), else a new
    :func:`run_folder` under ``args.out`` named after ``args.game`` and ``args.seed``."""
    if args.resume_folder:
        folder = Path(args.resume_folder)
        if not folder.is_dir():
            raise SystemExit(f"--resume-folder: no folder at {str(folder)!r}")
        return folder
    return run_folder(args.out, experiment, args.game, args.seed, args)
