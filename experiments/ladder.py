"""A ladder of every kind of agent: a round-robin tournament with Elo ratings, table and plot.

    python experiments/ladder.py --game reversi --board-size 8 \
        --models ppo_selfplay=runs/ppo/model.zip --games 20 --workers 2
    python experiments/ladder.py --quick       # trains a tiny model first if --models is empty
    python experiments/ladder.py --game connect_four --agents random greedy mcts:simulations=200

``--game`` is any catalog game; ``--board-size`` (and ``--options NAME=VALUE``) set its options,
for games that have them (quick runs play Reversi on 6x6).

The field is ``--agents`` (baselines and MCTS at a few budgets) plus, for every trained model
given, the model itself and a search guided by it: for an SB3 ``.zip``, ``sb3:path=...`` and
PUCT with its policy as prior (``sb3puct:path=...,simulations=--puct-simulations``); for a boardzoo
model file (``.pt``, from ``ppo_selfplay.py`` or ``boardzoo train``), its policy alone
(``az:model=...,simulations=1``) and AlphaZero's PUCT with its policy and value
(``az:model=...,simulations=--puct-simulations``). The models are copied into the run folder as
``<label>.zip`` (or ``.pt``) and the tournament runs in that folder, so the agents' names stay
short (``sb3:path=ppo.zip``). Each pair plays ``--games`` games with colours alternated,
from paired random openings (``--opening-plies`` random plies, each opening played once with
each colour: deterministic players such as a trained policy would otherwise repeat the same two
games); ratings are maximum-likelihood Elo with 95% intervals, ``random``
anchored at 0 (see :func:`boardzoo.arena.fit_elo`). Outputs in the run folder: ``games.jsonl``
(every game; ``--resume-folder`` plays only what is missing), ``ratings.csv``, ``ratings.md``
(standings and cross-table) and ``ratings.png``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from boardzoo.experiment_kit import (
    ArenaExperimentArgs,
    arg,
    check_specs,
    game_options,
    guided_search_spec,
    is_boardzoo_model,
    model_spec,
    parse_args,
    resolve_game,
    start_model_experiment,
)

AGENTS = (
    "random",
    "greedy",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "mcts:simulations=100",
    "mcts:simulations=1000",
    "mcts:simulations=1000,rollout=heuristic",
)


@dataclass(frozen=True)
class Args(ArenaExperimentArgs):
    agents: tuple[str, ...] = arg(AGENTS, "agent specs in the field (the first is anchored)")
    models: tuple[str, ...] = arg(
        (), "trained baselines, LABEL=PATH (or PATH) to an SB3 .zip or a boardzoo model .pt"
    )
    puct_simulations: int = arg(100, "budget of the PUCT player built on each model")
    opening_plies: int = arg(4, "random plies before each pair of games (0: no openings)")
    games: int = arg(20, "games each pair plays (colours alternated)")


def model_agents(args: Args, models: dict[str, str], folder: Path) -> list[str]:
    """The policy's and the guided search's specs of every model (``sb3`` and ``sb3puct`` for an
    SB3 ``.zip``, ``az`` with 1 and ``--puct-simulations`` simulations for a boardzoo model),
    copied into the run folder (the specs' paths are relative to it)."""
    specs = []
    for label, path in models.items():
        copy = folder / f"{label}{Path(path).suffix}"
        if Path(path).resolve() != copy.resolve():
            shutil.copyfile(path, copy)
            if is_boardzoo_model(path):  # its config beside it
                shutil.copyfile(Path(path).with_suffix(".json"), copy.with_suffix(".json"))
        specs.append(model_spec(copy.name))
        specs.append(guided_search_spec(copy.name, args.puct_simulations))
    return specs


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, description=__doc__.splitlines()[0])
    if args.quick:
        args = Args(**{**asdict(args), "agents": ("random", "greedy", "mcts:simulations=20"),
                       "games": 2, "puct_simulations": 10})  # fmt: skip
    args = resolve_game(args, {"board_size": 6} if args.quick else None)
    from boardzoo.arena import render_tournament, tournament

    check_specs("--agents", args.agents)
    folder, models = start_model_experiment(args, "ladder", args.models)
    field = [*args.agents, *model_agents(args, models, folder)]
    os.chdir(folder)  # the agents (in their own processes too) find the models here
    result = tournament(
        args.game, field, games=args.games, seed=args.seed,
        options=game_options(args), workers=args.workers, out=".", isolate=not args.quick,
        resume=bool(args.resume_folder), anchor=args.agents[0],
        pair_openings=args.opening_plies > 0, opening_plies=args.opening_plies or None,
    )  # fmt: skip
    print(render_tournament(result))
    print(f"wrote {folder}")
    return folder


if __name__ == "__main__":
    main()
