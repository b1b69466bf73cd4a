"""Speed measurements shared by ``boardzoo bench`` and the scripts in ``benchmarks/``.

Every figure is a median over several runs, because the machines are shared and noisy.
"""

from __future__ import annotations

import random
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.games import reversi_kernels as kernels

PERFT_9 = 3_005_288


def median_time(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``run`` (after one warm-up call)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def perft_seconds(repeats: int) -> float:
    """Median seconds of Reversi perft(9) from the 8x8 start (checked against 3,005,288)."""
    start = ReversiState.initial(8)
    valid = kernels.valid_mask(8)
    assert kernels.perft(start.black, start.white, valid, 9) == PERFT_9
    return median_time(lambda: kernels.perft(start.black, start.white, valid, 9), repeats)


def playouts_per_second(count: int, repeats: int) -> float:
    """Median random Reversi playouts per second from the 8x8 start, compiled kernel, one core."""
    start = ReversiState.initial(8)
    valid = kernels.valid_mask(8)
    seeds = iter(range(10_000))
    seconds = median_time(
        lambda: kernels.random_playouts(start.black, start.white, valid, count, next(seeds)),
        repeats,
    )
    return count / seconds


def run_env_games(make_env: Callable[[], Any], steps: int, seed: int) -> int:
    """Play random legal moves through ``agent_iter``/``last``/``step`` for ``steps`` steps."""
    picker = random.Random(seed)
    env = make_env()
    done = 0
    game = 0
    while done < steps:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(picker.random() * len(legal))])
            env.step(action)
            done += 1
    env.close()
    return done


def env_steps_per_second(steps: int, repeats: int) -> dict[str, float]:
    """Median steps/s of our two envs and PettingZoo's ``tictactoe_v3``, measured interleaved."""
    from boardzoo.envs import reversi_v0, tictactoe_v0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tictactoe_v3's import warns about the old API
        from pettingzoo.classic import tictactoe_v3

        envs = {
            "boardzoo reversi_v0 (8x8)": reversi_v0.env,
            "boardzoo tictactoe_v0": tictactoe_v0.env,
            "pettingzoo tictactoe_v3": tictactoe_v3.env,
        }
        for make_env in envs.values():
            run_env_games(make_env, steps // 10, seed=0)  # warm-up
        rates: dict[str, list[float]] = {name: [] for name in envs}
        for repeat in range(repeats):
            for name, make_env in envs.items():
                start = time.perf_counter()
                done = run_env_games(make_env, steps, seed=repeat)
                rates[name].append(done / (time.perf_counter() - start))
    return {name: statistics.median(values) for name, values in rates.items()}


def mcts_simulations_per_second(
    game: str, simulations: int, repeats: int, **options: Any
) -> tuple[float, int]:
    """Median simulations/s of fresh MCTS searches from the start, and the last tree's nodes."""
    from boardzoo.agents import MCTSAgent

    state = ReversiState.initial(8) if game == "reversi" else TicTacToeState()
    agent = MCTSAgent(simulations=simulations, seed=0, **options)
    agent.search(state)  # warm-up: compilation and page faults
    rates, nodes = [], 0
    for _ in range(repeats):
        info = agent.search(state)
        rates.append(info.simulations_per_second)
        nodes = info.tree_nodes
    return statistics.median(rates), nodes


def run_benchmarks(quick: bool = False, output: Callable[[str], None] = print) -> None:
    """The headline figures of issues 2 and 3, as ``boardzoo bench`` prints them."""
    repeats = 3 if quick else 7
    output(f"median of {repeats} runs")
    seconds = perft_seconds(repeats)
    output(f"reversi perft(9): {seconds:.4f} s ({PERFT_9 / seconds:,.0f} leaves/s)")
    rate = playouts_per_second(20_000 if quick else 200_000, repeats)
    output(f"reversi random playouts, 1 core: {rate:,.0f} /s")
    for game in ("reversi", "tictactoe"):
        rate, _ = mcts_simulations_per_second(game, 20_000 if quick else 100_000, repeats)
        output(f"MCTS {game}, 1 core: {rate:,.0f} simulations/s")
    rates = env_steps_per_second(5_000 if quick else 50_000, repeats)
    for name, value in rates.items():
        output(f"env steps/s, {name}: {value:,.0f}")
    ratio = rates["boardzoo reversi_v0 (8x8)"] / rates["pettingzoo tictactoe_v3"]
    output(f"reversi_v0 / pettingzoo tictactoe_v3: {ratio:.2f}x")
