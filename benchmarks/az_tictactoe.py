"""TicTacToe: does an AlphaZero model ever lose to a perfect player?

The perfect player is an exact negamax over TicTacToe written here (independent of the code
under test); among its optimal moves it picks one at random (seeded), so the games vary. The
games start from every position reachable in 0, 1 or 2 plies whose exact value is a draw (so a
loss is the model's fault), the model playing each side from each of them, ``--repeats`` times.

    python benchmarks/az_tictactoe.py --model runs/az-ttt/model.pt --simulations 100

Prints the games, the model's wins, draws and losses by side, and every lost game's moves.
"""

from __future__ import annotations

import argparse
import functools

import numpy as np

from boardzoo.agents import make_agent
from boardzoo.games.catalog import make_game
from boardzoo.games.tictactoe import TicTacToeState


def move_value(state: TicTacToeState, action: int) -> int:
    """+1 / 0 / -1 for the player to move of playing ``action``, then perfect play."""
    after = state.apply(action)
    if after.is_terminal():
        return 0 if after.winner is None else (1 if after.winner == state.current_player else -1)
    return -exact_value(after)


@functools.cache
def exact_value(state: TicTacToeState) -> int:
    """+1 / 0 / -1 for the player to move (in a game not over) under perfect play: a plain
    negamax, written here."""
    return max(move_value(state, action) for action in state.legal_actions())


def optimal_moves(state: TicTacToeState) -> list[int]:
    best = exact_value(state)
    return [a for a in state.legal_actions() if move_value(state, a) == best]


def openings(max_plies: int) -> list[tuple[int, ...]]:
    """Move sequences of 0..max_plies plies after which the game is still a draw."""
    found: list[tuple[int, ...]] = []
    frontier: list[tuple[tuple[int, ...], TicTacToeState]] = [((), TicTacToeState.initial())]
    for plies in range(max_plies + 1):
        following = []
        for moves, state in frontier:
            if exact_value(state) == 0:
                found.append(moves)
            if plies < max_plies:
                following.extend(((*moves, a), state.apply(a)) for a in state.legal_actions())
        frontier = following
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="model file (default: the shipped one)")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--plies", type=int, default=2, help="opening plies enumerated")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--extra", default="", help="more az spec keys, e.g. leaves=1")
    args = parser.parse_args()
    game = make_game("tictactoe")
    spec = f"az:simulations={args.simulations}" + (f",model={args.model}" if args.model else "")
    spec += f",{args.extra}" if args.extra else ""
    agent = make_agent(spec, seed=args.seed)
    agent.prepare(game)
    rng = np.random.default_rng(args.seed)
    starts = openings(args.plies)
    tally = {side: [0, 0, 0] for side in ("X", "O")}  # wins, draws, losses of the model
    lost: list[list[str]] = []
    for _ in range(args.repeats):
        for moves in starts:
            for model_side in (0, 1):
                state = TicTacToeState.initial()
                for move in moves:
                    state = state.apply(move)
                played = [game.action_name(m) for m in moves]
                while not state.is_terminal():
                    if state.current_player == model_side:
                        action = agent.act(state)
                    else:
                        action = int(rng.choice(optimal_moves(state)))
                    played.append(game.action_name(action))
                    state = state.apply(action)
                winner = state.winner
                column = 1 if winner is None else (0 if winner == model_side else 2)
                tally["XO"[model_side]][column] += 1
                if column == 2:
                    lost.append(played)
    games = sum(sum(t) for t in tally.values())
    print(f"{spec}: {games} games from {len(starts)} drawn openings (0..{args.plies} plies)")
    for side, (wins, draws, losses) in tally.items():
        print(f"  as {side}: {wins} wins, {draws} draws, {losses} losses")
    print(f"losses: {sum(t[2] for t in tally.values())}")
    for moves in lost[:20]:
        print("  lost:", " ".join(moves))


if __name__ == "__main__":
    main()
