"""How many empties the exact solver finishes within a move's time, on positions of real games.

    python benchmarks/bench_solve_reach.py --empties 16 18 20 22 --positions 20
    python benchmarks/bench_solve_reach.py --openings ../shared/openings/xot-small.txt

Positions come from games of the engine against itself (``engine:depth=4``, seeded, from the
XOT openings when ``--openings`` is given, else from the start with three random moves),
stopped at each number of empties asked. Each is solved win/draw/loss and then exactly, with the
solver's table kept between solves as the engine keeps it. Prints, per number of empties, the
median, 90th percentile and largest seconds of both solves: the engine's ``exact_empties``
(the solver's ``TAKEOVER_EMPTIES``) is the largest number whose 90th percentile of win/draw/loss
solves fits the time of a move.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from boardzoo.agents import EngineAgent
from boardzoo.games import make_game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import solve


def _positions(
    empties: list[int], count: int, openings: list[str], seed: int
) -> dict[int, list[BoardState]]:
    game = make_game("reversi")
    found: dict[int, list[BoardState]] = {e: [] for e in empties}
    rng = np.random.default_rng(seed)
    engine = EngineAgent(time_limit=None, depth=4, exact_empties=0, seed=seed)
    index = 0
    while any(len(found[e]) < count for e in empties):
        state = game.initial_state()
        if openings:
            moves = openings[index % len(openings)].strip()
            for i in range(0, len(moves), 2):
                state = state.apply(game.parse_action(moves[i : i + 2]))
        else:
            for _ in range(3):
                state = state.apply(int(rng.choice(state.legal_actions())))
        index += 1
        while not state.is_terminal():
            board = int(game.params[0]) & ~(state.bitboards()[0] | state.bitboards()[1])
            left_count = board.bit_count()
            if left_count in found and len(found[left_count]) < count:
                found[left_count].append(state)
            if left_count <= min(empties):
                break
            state = state.apply(engine.search(state).action)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--empties", type=int, nargs="+", default=[16, 18, 20, 22])
    parser.add_argument("--positions", type=int, default=20, help="positions per empties")
    parser.add_argument("--openings", type=Path, help="an opening list (XOT)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    openings = args.openings.read_text().split() if args.openings else []
    positions = _positions(sorted(args.empties), args.positions, openings, args.seed)
    print(f"{'empties':>7} {'n':>3}  {'wld med':>8} {'wld p90':>8} {'wld max':>8}  "
          f"{'exact med':>9} {'exact p90':>9} {'exact max':>9}")  # fmt: skip
    for empties, states in sorted(positions.items()):
        wld, exact = [], []
        for state in states:
            wld.append(solve(state, exact=False).seconds)
            exact.append(solve(state).seconds)
        w, x = np.array(wld), np.array(exact)
        print(f"{empties:>7} {len(states):>3}  {np.median(w):8.3f} {np.quantile(w, 0.9):8.3f} "
              f"{w.max():8.3f}  {np.median(x):9.3f} {np.quantile(x, 0.9):9.3f} "
              f"{x.max():9.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
