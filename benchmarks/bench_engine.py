"""The engine's reach: how deep it searches at a move's time, per phase of the game.

    python benchmarks/bench_engine.py --openings ../shared/openings/xot-small.txt --games 4
    python benchmarks/bench_engine.py --time-limit 0.25 --games 2 --spec engine:probcut=1.5

Plays games of the engine against itself from XOT openings (the first ``--games`` lines of the
file; from the start when no file is given), ``--time-limit`` seconds a move, and prints per phase
(empty squares on the board) the moves searched, the median and smallest depth completed, the
median nodes a second, the median seconds a move and the share of moves the exact solver chose.
For comparison: a strong outside program's level 10 searches 10 plies and solves the last 20
empties.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from boardzoo.agents import EngineAgent, make_agent
from boardzoo.games import make_game
from boardzoo.search.handover import empties_of

PHASES = ((60, 41), (40, 31), (30, 21), (20, 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openings", type=Path, help="an opening list (XOT)")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--time-limit", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--spec", default="engine", help="the engine's spec (time limit added)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.openings is not None and not args.openings.is_file():
        parser.error(f"--openings {args.openings}: no such file")
    openings = args.openings.read_text().split()[: args.games] if args.openings else []
    game = make_game("reversi")
    spec = f"{args.spec}{',' if ':' in args.spec else ':'}time_limit={args.time_limit}"
    rows: dict[tuple[int, int], list[tuple[int, float, float, bool]]] = {p: [] for p in PHASES}
    for index in range(args.games):
        engines = [make_agent(spec, seed=args.seed + 2 * index + side) for side in (0, 1)]
        state = game.initial_state()
        moves = openings[index] if index < len(openings) else ""
        for i in range(0, len(moves), 2):
            state = state.apply(game.parse_action(moves[i : i + 2]))
        while not state.is_terminal():
            engine = engines[state.current_player]
            assert isinstance(engine, EngineAgent)
            empties = empties_of(state)
            info = engine.search(state)
            phase = next(p for p in PHASES if p[1] <= empties <= p[0])
            rows[phase].append((info.depth, info.nodes_per_second, info.seconds, bool(info.solved)))
            state = state.apply(info.action)
        print(f"game {index + 1}: {state.to_text().count('X')}-{state.to_text().count('O')}")
    print(f"\n{spec}, {args.games} games")
    print(f"{'empties':>9} {'moves':>6} {'depth med':>9} {'depth min':>9} {'Mn/s med':>9} "
          f"{'s/move':>7} {'solved':>7}")  # fmt: skip
    for (high, low), moves_in in rows.items():
        searched = [m for m in moves_in if not m[3]]
        depths = [m[0] for m in searched] or [0]
        rates = [m[1] for m in moves_in if m[1] != float("inf")] or [0.0]
        print(f"{low:>4}-{high:<4} {len(moves_in):>6} {statistics.median(depths):>9.1f} "
              f"{min(depths):>9} {statistics.median(rates) / 1e6:>9.2f} "
              f"{statistics.median(m[2] for m in moves_in):>7.3f} "
              f"{sum(m[3] for m in moves_in) / max(1, len(moves_in)):>7.0%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
