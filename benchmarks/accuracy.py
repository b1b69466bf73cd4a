"""How often agents play a perfect player's move, on a game's labelled positions.

    python benchmarks/accuracy.py connect_four az:time_limit=0.1 mcts:time_limit=0.1 solver
    python benchmarks/accuracy.py reversi --size 4 az:simulations=1,exact_empties=0,solve_empties=0
    python benchmarks/accuracy.py tictactoe mcts:simulations=100 --set my-set.jsonl --limit 500

For each agent spec this prints the share of positions where its move keeps the game's result (a
won position stays won, a drawn one drawn) and where it has the exact solver's best score (the
fastest win, the slowest loss), each with its 95% Wilson interval, the same two over the critical
positions alone (where some move changes the result), and the seconds a move. The positions are
the game's shipped labelled set (``boardzoo/games/data/labelled-GAME.jsonl``, made by
``scripts/make_labelled_set.py``) unless ``--set`` names another. The network's policy alone is
``az:simulations=1,exact_empties=0,solve_empties=0`` (``az`` hands Reversi and Connect Four
endgames to the solver by default). Numeric libraries use one thread (``OMP_NUM_THREADS=1``
unless it is set): the positions are evaluated one at a time, and two threads of a small
network wait on each other far longer than they compute, more so on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch is imported

from boardzoo.accuracy import measure_accuracy, read_labelled, shipped_set_path
from boardzoo.agents.registry import AgentSpecError, make_agent
from boardzoo.games.catalog import game_names, make_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=game_names())
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="agent specs to measure")
    parser.add_argument("--size", type=int, help="Reversi's board size (4, 6 or 8)")
    parser.add_argument("--set", type=Path, help="a labelled set (default: the shipped one)")
    parser.add_argument("--limit", type=int, help="only the first N positions")
    parser.add_argument("--seed", type=int, default=0, help="the agents' seed (default 0)")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit {args.limit}: give 1 or more")
    options = {"board_size": args.size} if args.size is not None else {}
    try:
        game = make_game(args.game, **options)
        agents = [make_agent(spec, seed=args.seed) for spec in args.specs]
    except (AgentSpecError, ValueError) as error:
        parser.error(str(error))
    path = args.set if args.set is not None else shipped_set_path(game)
    try:
        labelled = read_labelled(path)
    except ValueError as error:
        parser.error(f"{error} (scripts/make_labelled_set.py makes a set)")
    if labelled.game.label != game.label:
        parser.error(f"--set {path} holds {labelled.game.label} positions, not {game.label}")
    count = len(labelled) if args.limit is None else min(args.limit, len(labelled))
    critical = sum(p.critical for p in labelled.positions[:count])
    print(f"{game.label}: {count} positions ({critical} critical) from {path}")
    width = max(len(spec) for spec in args.specs)
    print(f"{'agent':<{width}}  {'keeps the result':<22}  {'best score':<22}  "
          f"{'keeps (critical)':<22}  {'best (critical)':<22}  lost/move  s/move")  # fmt: skip
    for spec, agent in zip(args.specs, agents, strict=True):
        try:
            result = measure_accuracy(agent, labelled, args.limit)
        except ValueError as error:
            print(f"{spec}: {error}", file=sys.stderr)
            return 2
        print(f"{spec:<{width}}  {result.keeps!s:<22}  {result.best!s:<22}  "
              f"{result.keeps_critical!s:<22}  {result.best_critical!s:<22}  "
              f"{result.score_lost:9.3f}  {result.seconds:.3f}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
