"""What every experiment script shares (CleanRL style): arguments from a dataclass, one seeding
block, a run folder named after the experiment, game, seed and time, matches played as data
points (recorded, resumable, scored with 95% intervals), their CSV files, tables and plots, and
the trained baselines they play against."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import random
import re
import time
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from boardzoo.agents.registry import check_spec
from boardzoo.arena import play_match
from boardzoo.cli.common import declared_option_flags
from boardzoo.cli.dataclass_flags import add_field_flag, field_type
from boardzoo.games.catalog import default_game, game_names, get_game

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
    saved = _with_format_1_options(saved)
    for field in dataclasses.fields(cls):
        name = field.name
        if name in RESUME_FROM_COMMAND_LINE and name in given:
            continue
        if name in saved:
            value = tuple(saved[name]) if isinstance(saved[name], list) else saved[name]
        elif BEFORE in field.metadata:  # a setting newer than the run
            value = field.metadata[BEFORE]
        else:
            continue
        if name in given and values[name] != value:
            flag = "--" + name.replace("_", "-")
            print(f"note: {flag} {values[name]!r} ignored: the resumed run keeps its {value!r} "
                  f"({saved_path})")  # fmt: skip
        merged[name] = value
    return merged


def _with_format_1_options(saved: dict[str, Any]) -> dict[str, Any]:
    """A run's saved settings with its game's options in ``options``: runs saved before the
    game options were one setting wrote each as a setting of its own."""
    try:
        names = [option.name for option in get_game(str(saved.get("game"))).options]
    except ValueError:
        return saved
    texts = list(saved.get("options", []))
    for name in names:
        value = saved.get(name)
        if value is not None and not any(t.startswith(f"{name}=") for t in texts):
            texts.append(f"{name}={value}")
    return {**saved, "options": texts} if names else saved


BEFORE = "before"  # field metadata: the value of runs saved before the setting existed


def arg(default: Any, help: str, **before: Any) -> Any:
    """A dataclass field with its ``--help`` text; ``before=VALUE``: what a resumed run whose
    ``args.json`` predates the field takes (the way those runs played), rather than
    ``default``."""
    if set(before) - {BEFORE}:
        raise TypeError(f"arg() takes before=..., got {sorted(before)}")
    return dataclasses.field(default=default, metadata={"help": help, **before})


OPTIONS_HELP = (
    "the game's options, NAME=VALUE each (default: the script's, else the game's; a trained "
    "model's options too)"
)


# --- the game and its options -------------------------------------------------------------------


def parse_option_texts(texts: tuple[str, ...] | list[str]) -> dict[str, int]:
    """``("board_size=6",)`` -> ``{"board_size": 6}``; a ``ValueError`` for a malformed entry."""
    options: dict[str, int] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        try:
            number = int(value)
        except ValueError:
            number = None
        if not equals or not name.strip() or number is None:
            raise ValueError(f"game options are NAME=VALUE with an integer VALUE, got {text!r}")
        options[name.strip()] = number
    return options


def game_options(args: Any) -> dict[str, int]:
    """Every option of ``args.game`` from ``args.options``, checked; options not given take the
    game's defaults.

    Raises:
        SystemExit: an unknown game, option or value, with a one-line message (an option the
            game does not have names the game's options).
    """
    try:
        return get_game(args.game).check_options(parse_option_texts(args.options))
    except ValueError as error:
        raise SystemExit(f"--game {args.game}: {error}") from None


def game_label(args: Any) -> str:
    """The game of ``args`` and its options for titles: ``"reversi 8x8"``, ``"connect_four"``."""
    return get_game(args.game).make(**game_options(args)).label


def resolve_game(args: T, defaults: Mapping[str, int] | None = None) -> T:
    """``args`` with the game checked and every one of its options written out in
    ``args.options``: those given, else the script's ``defaults`` for options the game has
    (``{"board_size": 6}`` for a quick run), else the game's; so ``args.json`` shows the game
    played.

    Raises:
        SystemExit: a bad game or option, with a one-line message.
    """
    current: Any = args
    try:
        spec = get_game(current.game)
    except ValueError as error:
        raise SystemExit(f"--game: {error}") from None
    try:
        given = parse_option_texts(current.options)
    except ValueError as error:
        raise SystemExit(f"--game {current.game}: {error}") from None
    have = {option.name for option in spec.options}
    chosen = {k: v for k, v in (defaults or {}).items() if k in have} | given
    texts = tuple(f"{k}={v}" for k, v in chosen.items())
    options = game_options(dataclasses.replace(current, options=texts))
    return dataclasses.replace(current, options=tuple(f"{k}={v}" for k, v in options.items()))  # type: ignore[no-any-return]  # (dataclasses.replace of a T is a T)


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


# --- matches as data points ---------------------------------------------------------------------

POINT_FIELDS = ("first", "second", "games", "wins", "draws", "losses", "score", "low", "high")


def safe_name(spec: str) -> str:
    """``spec`` as a file name: anything but letters, digits and ``_.=-`` becomes ``_``."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", spec)


def play_point(
    folder: Path,
    args: Any,
    first: str,
    second: str,
    label: str = "",
    *,
    openings: str | None = None,
    sprt: str | None = None,
) -> dict[str, Any]:
    """One match through the arena, recorded to ``folder/<first>__<second>.jsonl``.

    ``args`` gives the match: ``game`` and its options (:func:`game_options`), ``games``,
    ``seed`` and ``workers``.

    A file already there is resumed (only missing games are played), so a rerun of an
    interrupted experiment in the same folder picks up where it stopped. Returns the
    :data:`POINT_FIELDS` row of ``first``'s score with its 95% Wilson interval; ``label`` names
    the file instead of the specs (for long model paths). ``openings`` (a file or
    ``"balanced"``) and ``sprt`` (``"elo0=0,elo1=20"``) are :func:`~boardzoo.arena.play_match`'s;
    with ``sprt`` the row has an ``"sprt"`` field too: the test's outcome
    (``"H1 accepted"``, ``"undecided at 100 games"``, ...).
    """
    name = label or f"{safe_name(first)}__{safe_name(second)}"
    out = folder / f"{name}.jsonl"
    result = play_match(
        args.game, (first, second), games=args.games, seed=args.seed,
        options=game_options(args), workers=args.workers, out=out, resume=out.exists(),
        progress=False, openings=openings, sprt=sprt,
    )  # fmt: skip
    tally = result.stats[0].total
    low, high = result.score_interval
    row = dict(zip(POINT_FIELDS[:3], (first, second, result.games), strict=True))
    row |= {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses}
    row |= {"score": result.score, "low": low, "high": high}
    verdict = ""
    if result.sprt is not None:
        row["sprt"] = result.sprt.outcome
        verdict = f"  SPRT {result.sprt.outcome}"
    print(f"{first:<32} vs {second:<32} {tally}  score {result.score:.1%} "
          f"[{low:.1%}, {high:.1%}]{verdict}", flush=True)  # fmt: skip
    return row


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows of dicts (same keys) as a CSV file with a header."""
    with path.open("w", newline="") as sink:
        writer = csv.DictWriter(sink, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot_scores(
    panels: dict[str, dict[str, list[tuple[float, dict[str, Any]]]]],
    png: Path,
    title: str,
    log_x: bool = True,
) -> None:
    """Score plots side by side: ``{x label: {line label: [(x, point row), ...]}}``.

    Each line shows the rows' scores with their 95% intervals as error bars.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.2), squeeze=False)
    for axis, (xlabel, series) in zip(axes[0], panels.items(), strict=True):
        for label, points in series.items():
            xs = [x for x, _ in points]
            scores = [float(row["score"]) for _, row in points]
            below = [s - float(r["low"]) for s, (_, r) in zip(scores, points, strict=True)]
            above = [float(r["high"]) - s for s, (_, r) in zip(scores, points, strict=True)]
            axis.errorbar(xs, scores, yerr=[below, above], marker="o", capsize=3, label=label)
        if log_x:
            axis.set_xscale("log")
        axis.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        axis.set(xlabel=xlabel, ylabel="score (95% interval)", ylim=(-0.02, 1.02))
        axis.grid(alpha=0.3)
        axis.legend(fontsize="small")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def score_cell(row: dict[str, Any]) -> str:
    """``"62.5% [52.7, 71.4]"`` from a point row."""
    score, low, high = (float(row[k]) * 100 for k in ("score", "low", "high"))
    return f"{score:.1f}% [{low:.1f}, {high:.1f}]"


# --- trained baselines ------------------------------------------------------------------------


BOARDZOO_MODEL_SUFFIX = ".pt"  # a boardzoo model file (AZNet: ppo_selfplay.py, boardzoo train)


def is_boardzoo_model(path: str | Path) -> bool:
    """Whether ``path`` names a boardzoo model file (``.pt`` with its ``.json``) rather than an
    SB3 ``.zip``."""
    return Path(path).suffix == BOARDZOO_MODEL_SUFFIX


def model_spec(path: str | Path) -> str:
    """The agent spec of a trained model playing by its policy alone: ``sb3:path=PATH`` for an
    SB3 ``.zip``, ``az:model=PATH,simulations=1`` (the most likely legal move) for a boardzoo
    model file."""
    if is_boardzoo_model(path):
        return f"az:model={path},simulations=1"
    return f"sb3:path={path}"


def guided_search_spec(path: str | Path, simulations: int) -> str:
    """The agent spec of MCTS guided by a trained model: PUCT with an SB3 policy's prior and
    rollouts (``puct:path=...``), or AlphaZero's PUCT with a boardzoo model's policy and value
    (``az:model=...``)."""
    if is_boardzoo_model(path):
        return f"az:model={path},simulations={simulations}"
    return f"puct:path={path},simulations={simulations}"


def model_paths(models: tuple[str, ...], quick: bool) -> dict[str, str]:
    """``{label: path}`` of the trained models an experiment plays against, checked.

    Each entry is ``LABEL=PATH`` or a ``PATH`` (labelled by its run folder's name): an SB3
    ``.zip`` or a boardzoo model file (``.pt``). Empty only in quick mode, where the script then
    trains a tiny model (:func:`quick_model`) so that it runs end to end on a fresh checkout.
    """
    if not models and not quick:
        raise SystemExit(
            "--models is required: give one or more LABEL=PATH to SB3 .zip files "
            "(experiments/train_baseline.py) or boardzoo model files (.pt: "
            "experiments/ppo_selfplay.py, boardzoo train)"
        )
    found = {}
    for entry in models:
        label, equals, path = entry.partition("=")
        if not equals:
            label, path = Path(entry).resolve().parent.name, entry
        if not Path(path).is_file():
            raise SystemExit(f"--models: no model file at {path!r}")
        if "," in path or ":" in path:
            raise SystemExit(f"--models: agent specs cannot hold ',' or ':' in a path: {path!r}")
        found[label] = path
    return found


def quick_model(
    game: str, options: Mapping[str, int], folder: Path, seed: int, steps: int = 512
) -> Path:
    """Train a tiny MaskablePPO model against the random player into ``folder/quick_model.zip``
    (for ``--quick`` runs without a model), on ``game`` with ``options``."""
    import torch
    from sb3_contrib import MaskablePPO

    from boardzoo.envs.single_agent import BoardGameSingleAgentEnv  # (gymnasium: PPO runs only)

    path = folder / "quick_model.zip"
    if path.exists():  # a resumed quick run
        return path
    torch.set_num_threads(1)
    chosen: dict[str, Any] = dict(options)
    env = BoardGameSingleAgentEnv(game, opponent="random", **chosen)
    env.reset(seed=seed)
    model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=256, batch_size=64, verbose=0)
    model.learn(steps).save(path)
    return path


def start_model_experiment(
    args: Any, experiment: str, entries: tuple[str, ...]
) -> tuple[Path, dict[str, str]]:
    """Check the game and the model entries (each model loaded once), seed, open the run folder;
    ``(folder, models)``.

    Without entries in quick mode, the models are one tiny MaskablePPO model trained into the
    folder (:func:`quick_model`), labelled ``quick_ppo``.
    """
    options = game_options(args)
    models = model_paths(entries, args.quick)
    check_specs("--models", (model_spec(path) for path in models.values()))
    seed_everything(args.seed)
    folder = experiment_folder(args, experiment)
    if not models:
        models = {"quick_ppo": str(quick_model(args.game, options, folder, args.seed))}
    return folder, models


def write_budget_report(
    folder: Path,
    stem: str,
    series: dict[str, list[tuple[float, dict[str, Any]]]],
    *,
    series_field: str,
    budget_label: str,
    title: str,
) -> str:
    """Points by budget: ``results.csv``, ``table.md`` (a row per budget, a column per series)
    and ``<stem>.png``; returns the Markdown table."""
    rows = [
        {series_field: label, "budget": budget, **row}
        for label, points in series.items()
        for budget, row in points
    ]
    write_csv(folder / "results.csv", rows)
    budgets = sorted({budget for points in series.values() for budget, _ in points})
    cells = {(label, budget): row for label, points in series.items() for budget, row in points}
    table = markdown_table(
        [budget_label, *series],
        [
            [f"{budget:g}", *(score_cell(cells[label, budget]) for label in series)]
            for budget in budgets
        ],
    )
    (folder / "table.md").write_text(table)
    plot_scores({budget_label: series}, folder / f"{stem}.png", title)
    return table
