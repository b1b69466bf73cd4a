"""Reversi 4x4: does a trained value head have the sign of the exact game value?

Every position reachable from the start (where the player to move has a choice or must pass)
is solved exactly by a plain negamax written here (independent of the code under test), and
the network's value for the player to move is compared with it:

- decisive positions (won or lost with perfect play): the value's sign must match;
- drawn positions: counted as matching when ``|value| < --draw-margin``.

    python benchmarks/az_value_sign.py                              # the shipped 4x4 model
    python benchmarks/az_value_sign.py --model runs/az-r4e/model.pt # a run's model

Prints the positions, the share whose sign matches (95.4% for the shipped model), and the same
split by won, drawn and lost positions.
"""

from __future__ import annotations

import argparse
import functools

import numpy as np

from boardzoo.agents.alphazero import shipped_model
from boardzoo.games.catalog import make_game
from boardzoo.games.reversi import ReversiState
from boardzoo.learned.model_io import load_model
from boardzoo.learned.torch_evaluator import TorchEvaluator
from boardzoo.search.evaluators import encode


@functools.cache
def exact_value(state: ReversiState) -> int:
    """+1 / 0 / -1: the result for the player to move (in a game not over) under perfect play."""
    best = -1
    for action in state.legal_actions():  # a forced pass is an action too
        after = state.apply(action)
        if after.is_terminal():
            winner = after.winner
            value = 0 if winner is None else (1 if winner == state.current_player else -1)
        else:
            value = -exact_value(after)
        best = max(best, value)
    return best


def reachable(start: ReversiState) -> list[ReversiState]:
    """Every position reachable from ``start`` that is not over, each once."""
    seen: dict[tuple[tuple[int, int], int], ReversiState] = {}
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            key = (state.bitboards(), state.current_player)
            if key in seen or state.is_terminal():
                continue
            seen[key] = state
            following.extend(state.apply(a) for a in state.legal_actions())
        frontier = following
    return list(seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", help="a Reversi 4x4 model file (default: the shipped reversi-4x4 model)"
    )
    parser.add_argument("--draw-margin", type=float, default=0.5)
    args = parser.parse_args()
    game = make_game("reversi", board_size=4)
    if args.model is None:
        args.model = shipped_model("reversi-4x4")
    if args.model is None:
        parser.error("no shipped reversi-4x4 model in this install: give --model")
    net, _, _ = load_model(args.model, game=game)
    evaluate = TorchEvaluator(net)
    states = reachable(game.initial_state())
    exact = np.array([exact_value(s) for s in states])
    values = np.empty(len(states), np.float32)
    for start in range(0, len(states), 1024):
        observations, masks = encode(game, states[start : start + 1024])
        values[start : start + 1024] = evaluate(observations, masks)[1]
    decisive = exact != 0
    right = np.where(decisive, np.sign(values) == exact, np.abs(values) < args.draw_margin)
    print(f"{args.model}: {len(states)} reachable positions of Reversi 4x4 (game not over)")
    print(f"start position: exact {exact_value(game.initial_state()):+d}, network "
          f"{values[0]:+.3f}")  # fmt: skip
    print(f"value sign matches the exact value: {right.mean():.1%}")
    for name, which in (("won", exact == 1), ("drawn", exact == 0), ("lost", exact == -1)):
        if which.any():
            print(f"  {name:5s} {which.sum():6d} positions: {right[which].mean():.1%}")
    print(f"decisive positions only: {right[decisive].mean():.1%}")


if __name__ == "__main__":
    main()
