"""Strength of a trained AlphaZero model against UCT and alpha-beta, each with a score to reach.

    python benchmarks/az_strength.py connect_four --games 100
    python benchmarks/az_strength.py reversi --board-size 6 --games 100
    python benchmarks/az_strength.py reversi --board-size 8 --model runs/az8/model.pt --games 40

Each opponent of the game is one arena match (:func:`boardzoo.arena.play_match`): paired random
openings (games ``2i`` and ``2i + 1`` start from the same 4 random plies with colours swapped),
colours alternated, one game at a time so each agent has the whole machine during its move, and
every game appended to ``benchmarks/results/az/<game>-<opponent>.jsonl`` as it ends. Running the
same command again resumes: only missing games are played, so a long table can be built over
several runs. ``--games`` may grow between runs.

Prints, per match, the model's wins, draws, losses, score with its 95% Wilson interval, and
whether it reaches the match's bar (the interval's point estimate against the bar). The
model is ``az`` with no ``model=`` (the shipped model of the game) unless ``--model`` is given.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from boardzoo.arena import play_match


@dataclass(frozen=True)
class Target:
    """One match of the table: the opponent, its label and the score to reach."""

    opponent: str
    label: str
    score: float


# (game, board size) -> (seconds a move, matches)
TARGETS: dict[tuple[str, int | None], tuple[float, tuple[Target, ...]]] = {
    ("connect_four", None): (0.5, (Target("mcts:time_limit={t}", "uct", 0.90),)),
    ("reversi", 6): (
        0.2,
        (
            Target("mcts:time_limit={t},rollout=heuristic", "uct-heuristic", 0.90),
            Target("alphabeta:depth=6", "alphabeta6", 0.75),
        ),
    ),
    ("reversi", 8): (
        1.0,
        (
            Target("mcts:time_limit={t},rollout=heuristic", "uct-heuristic", 0.90),
            Target("alphabeta:depth=6", "alphabeta6", 0.60),
        ),
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted({game for game, _ in TARGETS}))
    parser.add_argument("--board-size", type=int, default=None, help="reversi: 6 or 8")
    parser.add_argument("--model", default="", help="a model file (default: the shipped model)")
    parser.add_argument("--games", type=int, default=100, help="games per match (even)")
    parser.add_argument("--only", default=None, help="play only the match with this label")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=Path("benchmarks/results/az"))
    parser.add_argument(
        "--move-limit", type=float, default=30.0, help="seconds a move before a forfeit"
    )
    args = parser.parse_args(argv)
    key = (args.game, args.board_size if args.game == "reversi" else None)
    if key not in TARGETS:
        sizes = sorted(size for game, size in TARGETS if game == args.game and size)
        parser.error(f"--board-size {args.board_size} has no matches; allowed: {sizes}")
    seconds, targets = TARGETS[key]
    model = f"model={args.model}," if args.model else ""
    agent = f"az:{model}time_limit={seconds}"
    name = args.game if key[1] is None else f"{args.game}{key[1]}"
    args.out_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for target in targets:
        if args.only and target.label != args.only:
            continue
        opponent = target.opponent.format(t=seconds)
        out = args.out_dir / f"{name}-{target.label}.jsonl"
        result = play_match(
            args.game,
            (agent, opponent),
            games=args.games,
            seed=args.seed,
            options={} if key[1] is None else {"board_size": key[1]},
            time_limit=args.move_limit,
            workers=1,
            out=out,
            resume=out.exists(),
            progress=sys.stderr.isatty(),
            pair_openings=True,
        )
        tally = result.stats[0].total
        low, high = result.score_interval
        met = "met" if result.score >= target.score else "not met"
        lines.append(
            f"| {agent} vs {opponent} | {len(result.records)} | {tally.wins}-{tally.draws}-"
            f"{tally.losses} | {result.score:.1%} [{low:.1%}, {high:.1%}] | "
            f">= {target.score:.0%}: {met} |"
        )
    print("| match | games | W-D-L | score [95%] | bar |")
    print("|---|---|---|---|---|")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
