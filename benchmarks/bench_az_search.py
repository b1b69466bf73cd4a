"""Speed of the batched AlphaZero search next to its network, and next to the Python PUCT loop.

    python benchmarks/bench_az_search.py                      # every game, CPU, 1 torch thread
    python benchmarks/bench_az_search.py --games reversi8 --batch 256 --simulations 32
    python benchmarks/bench_az_search.py --games reversi8 --leaves 8 64 256 --threads 2
    python benchmarks/bench_az_search.py --device cuda         # where a GPU is present
    python benchmarks/bench_az_search.py --quick              # a smoke run

For each game, with one freshly initialised residual network (``AZNet``; its size, not its
training, sets the cost), in one run (medians of ``--repeats``, interleaved so that a busy
machine slows every contender alike):

(a) the network's own forward throughput at the batch size the search uses (``--batch``
    positions from random openings) through the ``TorchEvaluator``, positions per second: the
    module itself in eval mode (``fuse=False``, as before the fused inference copy) and the
    default fused copy (batch norm folded into the convolutions, channels-last);
(b) the batched search's simulations per second with the same network (``--batch`` trees,
    ``--simulations`` each), for PUCT and for Gumbel AlphaZero;
(c) the search's overhead: its wall time beyond the time spent inside the network (measured
    around the evaluator calls), as a fraction of the network time; and against (a): the wall
    time beyond what (a)'s throughput needs for the same number of evaluations;
(d) single-game play for ``--play-seconds``: the Python PUCT loop that ``MCTSAgent(prior_fn=...,
    value_fn=...)`` ran before the batched search replaced it (``_python_puct_loop.py``, a copy
    of it) calling the network one position at a time, with the network called as before
    (``fuse=False``) and through the fused evaluator (one shared call a position; the rate with
    separate prior and value calls is shown too), next to the batched search of one tree with
    ``--leaves`` leaves per network call (virtual loss) and the fused evaluator; the speed-ups
    against both loops (the network's batch throughput bounds them).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from _python_puct_loop import PythonPUCTLoop

from boardzoo.games import BoardState, Game, make_game
from boardzoo.learned.network import AZNet, NetworkSettings
from boardzoo.learned.torch_evaluator import TorchEvaluator
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings
from boardzoo.search.evaluators import encode
from boardzoo.speed import median_time

GAMES: dict[str, Callable[[], Game]] = {
    "tictactoe": lambda: make_game("tictactoe"),
    "connect_four": lambda: make_game("connect_four"),
    "reversi6": lambda: make_game("reversi", board_size=6),
    "reversi8": lambda: make_game("reversi", board_size=8),
}


def openings(game: Game, count: int, seed: int) -> list[BoardState]:
    """``count`` positions in play after 0 to 4 random moves."""
    rng = np.random.default_rng(seed)
    found: list[BoardState] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 5))):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state = state.apply(actions[int(rng.integers(len(actions)))])
        if not state.is_terminal():
            found.append(state)
    return found


def python_loop_rate(
    game: Game, evaluator: TorchEvaluator, state: BoardState, seconds: float, shared: bool = True
) -> float:
    """Simulations per second of the Python PUCT loop with the network as its callbacks.

    ``shared``: ``prior_fn`` and ``value_fn`` share one network call a position (else each makes
    its own, as ``SB3PUCTAgent`` did).
    """
    cache: dict[str, tuple[BoardState | None, np.ndarray, float]] = {"last": (None, np.zeros(0), 0)}

    def evaluate(s: BoardState) -> tuple[np.ndarray, float]:
        last, priors, value = cache["last"]
        if last is not s or not shared:  # prior_fn and value_fn ask about one position in turn
            obs, mask = encode(game, [s])
            logits, values = evaluator(obs, mask)
            logit = np.where(mask[0], logits[0].astype(np.float64), -np.inf)
            priors = np.exp(logit - logit.max())
            priors /= priors.sum()
            value = float(values[0])
            cache["last"] = (s, priors, value)
        return priors, value

    loop = PythonPUCTLoop(
        prior_fn=lambda s: evaluate(s)[0],  # type: ignore[arg-type]
        value_fn=lambda s: evaluate(s)[1],  # type: ignore[arg-type]
        c=1.25,
        c_base=19652.0,
    )
    done, taken = loop.search(state, seconds)
    return done / taken


def bench_game(name: str, args: argparse.Namespace) -> None:
    game = GAMES[name]()
    torch.manual_seed(0)
    net = AZNet(
        NetworkSettings.for_game(
            game, channels=args.channels, blocks=args.blocks, value_hidden=args.channels
        )
    )
    evaluator = TorchEvaluator(net, device=args.device)
    plain = TorchEvaluator(net, device=args.device, fuse=False)
    roots = openings(game, args.batch, seed=1)
    obs, masks = encode(game, roots)
    evaluator(obs, masks)  # warm-up
    plain(obs, masks)
    print(f"\n{game.label}: AZNet {args.blocks} blocks x {args.channels} channels on {args.device}")
    for label, config in (
        ("PUCT", BatchedSearchSettings()),
        ("Gumbel", BatchedSearchSettings(gumbel=True)),
    ):
        search = BatchedSearch(game, args.batch, config, seed=0)
        search.search(roots, evaluator, simulations=4, add_noise=True)  # compile / load
        walls, nets, alone, alone_plain = [], [], [], []
        for _ in range(args.repeats):  # interleaved, so a busy machine slows both alike
            alone.append(median_time(lambda: evaluator(obs, masks), 3))
            alone_plain.append(median_time(lambda: plain(obs, masks), 3))
            result = search.search(roots, evaluator, simulations=args.simulations, add_noise=True)
            walls.append(result.seconds)
            nets.append(search.network_seconds)
        wall, inside = statistics.median(walls), statistics.median(nets)
        throughput = args.batch / statistics.median(alone)
        evaluations = args.batch * (args.simulations + 1)
        rate = args.batch * args.simulations / wall
        if label == "PUCT":
            print(
                f"  (a) network forward, batch {args.batch}: {throughput:,.0f} positions/s fused "
                f"({args.batch / statistics.median(alone_plain):,.0f} as a plain module call)"
            )
        print(
            f"  (b) {label:6s} search, {args.batch} trees x {args.simulations} simulations: "
            f"{rate:,.0f} simulations/s"
        )
        print(
            f"  (c) {label:6s} overhead: {100 * (wall / inside - 1):.1f}% beyond the time inside "
            f"the network; {100 * (wall / (evaluations / throughput) - 1):.1f}% beyond (a)'s "
            f"time for its {evaluations:,} evaluations"
        )
    state = roots[0]
    plays = {
        n: BatchedSearch(game, 1, BatchedSearchSettings(leaves_per_tree=n), seed=0)
        for n in args.leaves
    }
    for n, play in plays.items():
        play.search([state], evaluator, simulations=n * 2)  # compile / load
    loops: dict[str, list[float]] = {"plain": [], "fused": [], "two calls": []}
    rates: dict[int, list[float]] = {n: [] for n in plays}
    for _ in range(args.repeats):  # interleaved
        seconds = args.play_seconds
        loops["plain"].append(python_loop_rate(game, plain, state, seconds))
        loops["fused"].append(python_loop_rate(game, evaluator, state, seconds))
        loops["two calls"].append(python_loop_rate(game, evaluator, state, seconds, shared=False))
        for n, play in plays.items():
            result = play.search([state], evaluator, deadline=time.perf_counter() + seconds)
            rates[n].append(result.simulations / result.seconds)
    loop = {key: statistics.median(values) for key, values in loops.items()}
    print(
        f"  (d) one game, {args.play_seconds} s: Python PUCT loop {loop['plain']:,.0f} "
        f"simulations/s with the network called as before (fuse=False), {loop['fused']:,.0f} "
        f"with the fused evaluator ({loop['two calls']:,.0f} with separate prior and value calls)"
    )
    for n in plays:
        rate = statistics.median(rates[n])
        print(
            f"  (d) one game, batched search with {n:3d} leaves a network call (virtual loss): "
            f"{rate:,.0f} simulations/s, {rate / loop['plain']:.1f}x the loop as before, "
            f"{rate / loop['fused']:.1f}x the loop with the fused evaluator"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--batch", type=int, default=128, help="trees searched together")
    parser.add_argument("--simulations", type=int, default=32, help="per tree")
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument(
        "--leaves",
        type=int,
        nargs="+",
        default=[8, 64, 256],
        help="leaves a network call in one-game play (8: AlphaZeroAgent's default)",
    )
    parser.add_argument("--play-seconds", type=float, default=2.0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.batch, args.simulations, args.play_seconds, args.repeats = 8, 8, 0.3, 1
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} CPU thread(s)")
    for name in args.games:
        bench_game(name, args)


if __name__ == "__main__":
    main()
