"""Speed of PUCT with a stable-baselines3 policy as prior; prints medians of several runs.

    python benchmarks/bench_puct.py                     # trains a tiny MaskablePPO model first
    python benchmarks/bench_puct.py --model runs/.../model.zip
    python benchmarks/bench_puct.py --quick
    python benchmarks/bench_puct.py --game connect_four

Figures, from the start of ``--game`` (any catalog game, default Reversi; its
board_size option with ``--board-size`` where it has one, default the game's: 8x8 for Reversi),
one core, the default MLP policy (the network's size, not its training, sets the cost, so a
freshly trained tiny model measures the same):
- one prior: ``SB3Agent.prior`` (features and actor head called directly) next to SB3's own
  route (``obs_to_tensor`` + ``get_distribution``), in microseconds;
- PUCT simulations per second with that prior (``PUCTAgent(prior_fn)``: the batched
  compiled search, one ``prior`` call a leaf, leaves scored by compiled random playouts), next
  to compiled UCT in the same run. ``sb3puct:path=...`` evaluates a batch of leaves in one policy
  call instead (see ``benchmarks/bench_az_search.py`` for the batched figures).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch

from boardzoo.agents import Budget, PUCTAgent
from boardzoo.agents.sb3_agent import SB3Agent
from boardzoo.games.catalog import game_names, get_game
from boardzoo.games.state import BoardState
from boardzoo.speed import mcts_simulations_per_second, median_time, search_rate


def sb3_route_prior(agent: SB3Agent, state: BoardState) -> np.ndarray:
    """The prior computed the way SB3's own API would (the slower reference route)."""
    policy = agent.model.policy
    with torch.no_grad():
        observation, _ = policy.obs_to_tensor(state.planes(state.current_player))
        probs = policy.get_distribution(observation).distribution.probs[0].numpy()
    mask = state.legal_action_mask().astype(bool)
    return np.where(mask, probs, 0.0) / probs[mask].sum()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="an SB3 .zip for the game and board")
    parser.add_argument("--game", default="reversi", choices=game_names())
    parser.add_argument("--board-size", type=int, default=None, help="for games with that option")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args()
    spec = get_game(args.game)
    try:
        if args.board_size is not None:
            spec.option("board_size")
        game = spec.make(**({} if args.board_size is None else {"board_size": args.board_size}))
    except ValueError as error:
        parser.error(str(error))
    torch.set_num_threads(1)
    repeats = 3 if args.quick else args.repeats
    calls = 20 if args.quick else 500
    if args.model:
        path = Path(args.model)
    else:
        from boardzoo.experiment_kit import quick_model

        path = quick_model(game.name, game.options, Path(tempfile.mkdtemp()), seed=0, steps=512)
    agent = SB3Agent(str(path))
    state = game.initial_state()
    print(f"{game.label}, model {path}")
    np.testing.assert_allclose(agent.prior(state), sb3_route_prior(agent, state), atol=1e-6)

    def per_call(prior) -> float:
        return median_time(lambda: [prior(state) for _ in range(calls)], repeats) / calls * 1e6

    direct, reference = per_call(agent.prior), per_call(lambda s: sb3_route_prior(agent, s))
    print(f"one prior: SB3Agent.prior {direct:,.0f} us, SB3's own route {reference:,.0f} us "
          f"({reference / direct:.1f}x)")  # fmt: skip
    budget = Budget(simulations=30 if args.quick else 300)
    puct, _ = search_rate(PUCTAgent(agent.prior, budget=budget, seed=0), game, repeats)
    uct, _ = mcts_simulations_per_second(game, 1000 if args.quick else 100_000, repeats)
    print(f"PUCT with the prior: {puct:,.0f} sims/s ({1e6 / puct:,.0f} us a simulation)")
    print(f"compiled UCT, same run: {uct:,.0f} sims/s ({1e6 / uct:,.1f} us a simulation)")


if __name__ == "__main__":
    main()
