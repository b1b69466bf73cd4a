"""Speed measurements shared by ``boardzoo bench`` and the scripts in ``benchmarks/``.

Every figure is a median over several runs, because the machines are shared and noisy. Every
catalog game is measured the same way, through the game contract: perft and random playouts run
on the game's compiled kernels (:mod:`boardzoo.games.spec`), specialised per game like the
compiled search (:mod:`boardzoo.games.specialise`); env steps go through each game's PettingZoo
env, next to PettingZoo's own ``tictactoe_v3`` and ``connect_four_v3``.
"""

from __future__ import annotations

import functools
import importlib
import random
import statistics
import time
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from boardzoo.agents.registry import build_agent
from boardzoo.agents.search_agent import SearchAgent
from boardzoo.games.bits import U0, U1, lowest_bit_index, popcount, seed_rng
from boardzoo.games.catalog import all_games, make_game
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.games.state import BoardState

# Without a known count: the smallest depth whose perft takes at least this long.
_PERFT_SECONDS = 0.05
_MAX_PERFT_DEPTH = 12


def median_time(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``run`` (after one warm-up call)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- compiled templates, specialised per game ----------------------------------------------------

# Replaced by the game's kernel module in each compiled copy (see _compiled).
kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


def perft_kernel(s0, s1, player, params, depth):
    """Leaf count of the game tree ``depth`` plies deep; a forced pass is a ply.

    A finished game reached before ``depth`` counts as one leaf.
    """
    if depth == 0:
        return np.int64(1)
    cells = kernels.placements(s0, s1, player, params)
    if cells == U0:  # the game is over, or the player to move must pass
        over, _ = kernels.outcome(s0, s1, player, params)
        if over:
            return np.int64(1)
        n0, n1 = kernels.place(s0, s1, player, -1, params)
        return perft_kernel(n0, n1, 1 - player, params, depth - 1)
    if depth == 1:
        return np.int64(popcount(cells))
    total = np.int64(0)
    while cells:
        cell = lowest_bit_index(cells)
        cells &= cells - U1
        n0, n1 = kernels.place(s0, s1, player, cell, params)
        total += perft_kernel(n0, n1, 1 - player, params, depth - 1)
    return total


def playouts_kernel(s0, s1, player, params, count, seed):
    """``count`` uniformly random playouts (the game's rollout kernel, policy 0) from one
    position; returns player 0's total score (wins plus half the draws)."""
    rng = seed_rng(np.uint64(seed))
    total = 0.0
    for _ in range(count):
        score, rng = kernels.rollout(s0, s1, player, params, 0, rng)
        total += score
    return total


def _compiled(game: Game) -> dict[str, Any]:
    return specialise((perft_kernel, playouts_kernel), game.kernels)


def _position(game: Game, state: BoardState | None) -> tuple[np.uint64, np.uint64, int]:
    if state is None:
        state = game.initial_state()
    s0, s1 = state.bitboards()
    return np.uint64(s0), np.uint64(s1), state.current_player


def perft(game: Game, depth: int, state: BoardState | None = None) -> int:
    """Perft of ``game``: the leaf count of its game tree ``depth`` plies deep, on its compiled
    kernels (the game contract's ``placements``, ``place`` and ``outcome``).

    A forced pass is a ply, and a finished game reached before ``depth`` counts as one leaf.
    This is the library's one perft, for every catalog game.

    Args:
        game: the game (with its options: Reversi's board size).
        depth: plies; ``0`` gives 1.
        state: the position to count from (a state of ``game``); its start position if omitted.
    """
    s0, s1, player = _position(game, state)
    return int(_compiled(game)["perft_kernel"](s0, s1, player, game.params, depth))


def perft_figure(game: Game, repeats: int) -> tuple[int, int, float]:
    """``(depth, leaves, median seconds)`` of a perft of ``game`` from the start.

    The depth is the one of the game's known count (:attr:`Game.known_perft`; the count is
    checked against it), else the smallest depth that takes at least 50 ms.
    """
    known = game.known_perft
    if known is not None:
        depth, expected = known
        leaves = perft(game, depth)
        if leaves != expected:
            raise AssertionError(f"{game.label} perft({depth}) = {leaves:,}, expected {expected:,}")
    else:
        perft(game, 1)  # compile
        depth = 1
        while True:
            start = time.perf_counter()
            leaves = perft(game, depth)
            if time.perf_counter() - start >= _PERFT_SECONDS or depth >= _MAX_PERFT_DEPTH:
                break
            depth += 1
    return depth, leaves, median_time(lambda: perft(game, depth), repeats)


def game_playouts_per_second(game: Game, count: int, repeats: int) -> float:
    """Median random playouts per second of ``game`` from its start, compiled, one core."""
    s0, s1, player = _position(game, None)
    run = _compiled(game)["playouts_kernel"]
    seeds = iter(range(10_000))
    seconds = median_time(
        lambda: run(s0, s1, player, game.params, count, next(seeds)),
        repeats,
    )
    return count / seconds


# --- environments -----------------------------------------------------------------------------


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


def env_label(game: Game) -> str:
    """How a boardzoo env is named in the figures: ``"boardzoo reversi_v0 (reversi 8x8)"``."""
    return f"boardzoo {game.name}_v0 ({game.label})"


def catalog_envs(games: Sequence[Game] | None = None) -> dict[str, Any]:
    """``{label: env maker}`` of the envs of ``games`` (default: every catalog game with its
    default options), each made with the game's options."""
    from boardzoo.envs.registration import make_env  # (pettingzoo: only when envs are timed)

    makers: dict[str, Any] = {}
    for game in games if games is not None else [spec.make() for spec in all_games()]:
        makers[env_label(game)] = functools.partial(make_env, game.name, **game.options)
    return makers


def peer_envs() -> dict[str, str]:
    """``{label: module}`` of the other libraries' envs of the catalog's games
    (:attr:`~boardzoo.games.spec.GameSpec.peer_envs`): ``"pettingzoo tictactoe_v3"``, ..."""
    return {
        f"{module.split('.')[0]} {module.rpartition('.')[2]}": module
        for spec in all_games()
        for module in spec.peer_envs
    }


def env_steps_per_second(
    steps: int, repeats: int, games: Sequence[Game] | None = None
) -> dict[str, float]:
    """Median steps/s of the envs of ``games`` (default: every catalog game) and of the other
    libraries' envs of the catalog's games (:func:`peer_envs`: PettingZoo's ``tictactoe_v3``
    and ``connect_four_v3``), measured interleaved (each repeat runs every env once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's classic envs warn on import
        envs = catalog_envs(games)
        for label, module in peer_envs().items():
            envs[label] = importlib.import_module(module).env
        for make_env in envs.values():
            run_env_games(make_env, steps // 10, seed=0)  # warm-up
        rates: dict[str, list[float]] = {name: [] for name in envs}
        for repeat in range(repeats):
            for name, make_env in envs.items():
                start = time.perf_counter()
                done = run_env_games(make_env, steps, seed=repeat)
                rates[name].append(done / (time.perf_counter() - start))
    return {name: statistics.median(values) for name, values in rates.items()}


# --- search -----------------------------------------------------------------------------------


def search_rate(agent: SearchAgent, game: str | Game, repeats: int) -> tuple[float, int]:
    """Median simulations/s of ``agent``'s fresh searches from the start, and the last tree's
    nodes (after one search to warm up: compilation and page faults).

    ``game`` is a catalog name (default options) or a :class:`~boardzoo.games.spec.Game`.
    """
    rules = make_game(game) if isinstance(game, str) else game
    state = rules.initial_state()
    agent.search(state)
    rates, nodes = [], 0
    for _ in range(repeats):
        info = agent.search(state)
        rates.append(info.simulations_per_second)
        nodes = info.tree_nodes
    return statistics.median(rates), nodes


def mcts_simulations_per_second(
    game: str | Game, simulations: int, repeats: int, **options: Any
) -> tuple[float, int]:
    """:func:`search_rate` of ``mcts`` with ``simulations`` and ``options`` (spec keys, as in
    :func:`~boardzoo.agents.build_agent`)."""
    agent = build_agent("mcts", {"simulations": simulations, **options}, seed=0)
    return search_rate(cast(SearchAgent, agent), game, repeats)


def run_benchmarks(quick: bool = False, output: Callable[[str], None] = print) -> None:
    """The headline figures, as ``boardzoo bench`` prints them: for every catalog game (default
    options) perft, random playouts and MCTS simulations per second, then env steps per second
    next to PettingZoo's own envs."""
    repeats = 3 if quick else 7
    output(f"median of {repeats} runs")
    for spec in all_games():
        game = spec.make()
        depth, leaves, seconds = perft_figure(game, repeats)
        output(
            f"{game.label} perft({depth}): {seconds:.4f} s, {leaves:,} leaves "
            f"({leaves / seconds:,.0f} leaves/s)"
        )
        rate = game_playouts_per_second(game, 20_000 if quick else 200_000, repeats)
        output(f"{game.label} random playouts, 1 core: {rate:,.0f} /s")
        rate, _ = mcts_simulations_per_second(game, 20_000 if quick else 100_000, repeats)
        output(f"MCTS {game.label}, 1 core: {rate:,.0f} simulations/s")
    rates = env_steps_per_second(5_000 if quick else 50_000, repeats)
    for name, value in rates.items():
        output(f"env steps/s, {name}: {value:,.0f}")
    yardstick = next(iter(peer_envs()))  # the first peer env (PettingZoo's TicTacToe)
    for name, value in rates.items():
        if name.startswith("boardzoo"):
            output(f"{name} / {yardstick}: {value / rates[yardstick]:.2f}x")
