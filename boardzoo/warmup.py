"""Compile and cache every numba kernel now, not at first use: ``python -m boardzoo.warmup``.

boardzoo's rules, searches and players are numba code compiled once per machine and kept in
numba's on-disk cache (``__pycache__`` next to the sources, or ``NUMBA_CACHE_DIR``). The first
run after installing compiles them, which takes a few minutes in all; every later run loads
them in a fraction of a second. ``scripts/setup.sh`` runs this module last, so nothing is
compiled during the first game. (Without it the agents compile what they need in
:meth:`~boardzoo.agents.Agent.prepare`, before any clock runs, with a notice on stderr.)

For each catalog game this compiles the game's rules and its batched env
(:class:`~boardzoo.vector.BoardGameVectorEnv`: the step with the compiled opponents and the
kernels around a policy opponent), then each agent's compiled code for that game: the greedy
player's kernels, the alpha-beta search and the engine's (with the hand-made evaluation and, for
games that ship one, the learned one), and the MCTS search (the one loop with plain UCT, with the
solver, with threads and with the strong preset, the batched PUCT and Gumbel searches (what the
``az`` agent and ``boardzoo train``'s self-play run) and playouts used with prior or value
functions, and for games with a solver of their own the searches that hand the endgame to it).
Then the loop with each enhancement on its own (``rave``, LGRF rollouts, progressive bias and
widening, criticality, a cutoff, implicit minimax, the solver with threads or with the game's
solver at the leaves). The loop is compiled once per combination of its switches (which
enhancements are on, not their values): another combination (two enhancements together, ...) is
compiled when an agent first uses it, in its ``prepare``, before any clock, with a notice. The
first game's rules and batched env are compiled in this process (with them the code all games
share); then that game's agents and each other game in parallel processes, as many at a time as
there are CPU cores.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from boardzoo.agents import AlphaBetaAgent, EngineAgent, GreedyAgent, MCTSAgent
from boardzoo.agents.compiling import notices_enabled, set_notices
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.settings import Budget, Endgame, Enhancements, PUCTSettings, UCTSettings
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import game_names, make_game
from boardzoo.learned import load_net
from boardzoo.search.handover import default_empties, prepare_solver
from boardzoo.vector import BoardGameVectorEnv

__all__ = ["AGENTS", "PARTS", "WarmUpStep", "main", "warm_up"]

AGENTS = ("greedy", "alphabeta", "engine", "mcts", "enhancements")
# What one game's warm-up compiles, in order: the rules, the batched env, then each agent.
PARTS = ("rules", "vector", *AGENTS)


@dataclass(frozen=True)
class WarmUpStep:
    """One compiled part: ``part`` (``"rules"`` or an agent's name) of ``game``, and the seconds
    it took (compiling, or loading from the cache)."""

    game: str
    part: str
    seconds: float


def _rules(name: str) -> None:
    """Play a game through every rules kernel the envs and agents call from Python, and load
    the game's own exact solver (compiled as it loads)."""
    game = make_game(name)
    if game.spec.tree_plugin is not None:
        prepare_solver(game)
    state = game.initial_state()
    while not state.is_terminal():
        state.legal_action_mask()
        state.planes(state.current_player)
        state = state.apply(state.legal_actions()[0])
    state.returns()


def _vector(name: str) -> None:
    """Step a small batched env whose pool holds both compiled opponents and a policy."""

    def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return cast("np.ndarray", np.argmax(masks, axis=1))

    envs = BoardGameVectorEnv(name, 6, opponent=["random", "greedy", first_legal])
    envs.reset(seed=0)
    for _ in range(4):
        envs.step(np.argmax(envs.action_masks(), axis=1))


def _has_learned_eval(game: Any) -> bool:
    """Whether ``game`` ships a learned evaluation (``eval=learned``)."""
    try:
        load_net(game)
    except ValueError:
        return False
    return True


def _prepare(name: str, part: str) -> None:
    game = make_game(name)
    learned = _has_learned_eval(game)
    if part == "greedy":
        GreedyAgent(seed=0).prepare(game)
        if learned:
            GreedyAgent(eval="learned", seed=0).prepare(game)
    elif part == "alphabeta":
        AlphaBetaAgent(depth=2, seed=0).prepare(game)
        if learned:
            AlphaBetaAgent(depth=2, eval="learned", seed=0).prepare(game)
    elif part == "engine":
        EngineAgent(time_limit=None, depth=2, eval="hand", seed=0).prepare(game)
        if learned:
            EngineAgent(time_limit=None, depth=2, eval="learned", seed=0).prepare(game)
    elif part == "mcts":
        # The one loop is compiled per set of rules: the combinations agents use most.
        one = Budget(simulations=1)
        for uct, enhancements in (
            (UCTSettings(), Enhancements()),  # plain UCT
            (UCTSettings(solver=True), Enhancements()),
            (UCTSettings(), Enhancements(threads=2)),
            (UCTSettings(), Enhancements(preset="strong")),
        ):
            MCTSAgent(one, uct, enhancements, seed=0).prepare(game)
        # The batched search (prior and value functions), PUCT and Gumbel (what `boardzoo
        # train`'s self-play uses), each also with the solver at its leaves (AlphaZero's
        # default for games with a solver of their own)
        _, solve = default_empties(game)
        for search in ("puct", "gumbel"):
            rules = PUCTSettings(search=search)
            PUCTAgent(lambda s: np.ones(s.num_actions), budget=one, puct=rules, seed=0).prepare(
                game
            )
            if solve:
                PUCTAgent(budget=one, puct=rules, endgame=Endgame(solve_empties=solve),
                          seed=0).prepare(game)  # fmt: skip
    elif part == "enhancements":
        # The loop with each enhancement of the MCTS guide on its own (and the solver with
        # threads, or handing the endgame to the game's solver)
        one = Budget(simulations=1)
        for uct, enhancements, endgame in _one_enhancement_each(game, learned):
            MCTSAgent(one, uct, enhancements, endgame=endgame, seed=0).prepare(game)


def _one_enhancement_each(
    game: Any, learned: bool
) -> list[tuple[UCTSettings, Enhancements, Endgame]]:
    """The settings of the warm-up's ``enhancements`` part: one enhancement on at a time."""
    plain, none, no_endgame = UCTSettings(), Enhancements(), Endgame()
    combinations = [
        (plain, Enhancements(rave=True), no_endgame),
        (UCTSettings(rollout="lgrf"), none, no_endgame),
        (plain, Enhancements(progressive_bias=0.5), no_endgame),
        (plain, Enhancements(progressive_widening=True), no_endgame),
        (plain, Enhancements(criticality=0.5), no_endgame),
        (plain, Enhancements(cutoff=4), no_endgame),
        (plain, Enhancements(minimax_weight=0.3), no_endgame),
        (UCTSettings(solver=True), Enhancements(threads=2), no_endgame),
    ]
    if learned:
        combinations.append((plain, Enhancements(cutoff=4, eval="learned"), no_endgame))
    # the game's own solver at the leaves, or the generic exact search for games without one
    solve = default_empties(game)[1] or 4
    combinations.append((UCTSettings(solver=True), none, Endgame(solve_empties=solve)))
    return combinations


def _warm_game(name: str, parts: Sequence[str]) -> list[WarmUpStep]:
    """Compile (or load) ``parts`` of game ``name`` in this process."""
    set_notices(False)  # the warm-up shows its own progress
    steps = []
    for part in parts:
        start = time.perf_counter()
        if part == "rules":
            _rules(name)
        elif part == "vector":
            _vector(name)
        else:
            _prepare(name, part)
        steps.append(WarmUpStep(name, part, time.perf_counter() - start))
    return steps


def _child_init() -> None:
    set_notices(False)


class _Display:
    """Progress on stderr: a rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self._progress: Any = None
        self._task: Any = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )

    def __enter__(self) -> _Display:
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task("compiling", total=self.total)
        return self

    def working_on(self, text: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=f"compiling {text}")

    def finished(self, step: WarmUpStep) -> None:
        self.done += 1
        line = f"[{self.done}/{self.total}] {step.game}: {step.part} ({step.seconds:.1f} s)"
        if self._progress is not None and self._task is not None:
            self._progress.console.print(f"  {line}", highlight=False)
            self._progress.advance(self._task)
        elif self.enabled:
            print(f"boardzoo warm-up {line}", file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def _check(values: Iterable[str], allowed: Sequence[str], what: str) -> list[str]:
    chosen = list(values)
    for value in chosen:
        if value not in allowed:
            raise InvalidValueError(
                f"{what}={value!r} is not allowed: it must be one of {', '.join(allowed)}"
            )
    return chosen


def warm_up(
    games: Sequence[str] | None = None,
    agents: Sequence[str] = AGENTS,
    progress: bool = True,
    workers: int | None = None,
) -> list[WarmUpStep]:
    """Compile (or load from numba's cache) the rules and the agents' code of catalog games.

    Args:
        games: catalog game names; ``None`` for every game.
        agents: which agents' compiled code to warm up, among ``"greedy"``, ``"alphabeta"``,
            ``"engine"``, ``"mcts"`` (plain UCT, the solver, threads, the strong preset and
            the batched PUCT and Gumbel searches) and ``"enhancements"`` (the MCTS loop with
            each enhancement on its own); the rules and the batched env are always warmed up.
        progress: show progress on stderr (a progress bar on a terminal, lines otherwise).
        workers: processes for the first game's agents and the other games; ``None`` for one
            per CPU core (at most one per game), 1 to do everything in this process.

    Returns:
        One :class:`WarmUpStep` per game and part, in the order they finished.

    Raises:
        ValueError: an unknown game or agent, or ``workers`` below 1, before any work starts.
    """
    names = _check(game_names() if games is None else games, game_names(), "game")
    parts = ["rules", "vector", *_check(agents, AGENTS, "agent")]
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise InvalidValueError(f"workers={workers!r} is not allowed: it must be an integer >= 1")
    if not names:
        return []
    first, rest = names[0], names[1:]
    shared = [part for part in parts if part in ("rules", "vector")]
    jobs = [(name, parts) for name in rest]
    if len(shared) < len(parts):
        jobs.insert(0, (first, [part for part in parts if part not in shared]))
    processes = min(workers or os.cpu_count() or 1, len(jobs))
    steps: list[WarmUpStep] = []
    started = time.perf_counter()
    with _Display(len(names) * len(parts), progress) as display:
        if progress and not sys.stderr.isatty():
            print(
                f"boardzoo warm-up: compiling the code of {len(names)} game(s) "
                "(first run after installing: a few minutes; then seconds)",
                file=sys.stderr,
                flush=True,
            )

        def run_here(name: str, its_parts: Sequence[str]) -> None:
            for part in its_parts:
                display.working_on(f"{name}: {part}")
                (step,) = _warm_game(name, [part])
                steps.append(step)
                display.finished(step)

        was_enabled = notices_enabled()
        try:
            run_here(first, shared)  # the code every game shares, before going parallel
            if processes <= 1:
                for name, its_parts in jobs:
                    run_here(name, its_parts)
            else:
                display.working_on(", ".join(name for name, _ in jobs))
                context = multiprocessing.get_context("spawn")
                with ProcessPoolExecutor(processes, context, _child_init) as pool:
                    futures = [pool.submit(_warm_game, name, its) for name, its in jobs]
                    for future in as_completed(futures):
                        for step in future.result():
                            steps.append(step)
                            display.finished(step)
        finally:
            set_notices(was_enabled)
    if progress:
        print(
            f"boardzoo warm-up: done in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    return steps


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m boardzoo.warmup [--games ...] [--agents ...] [--quiet] [--workers N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m boardzoo.warmup",
        description="Compile and cache the numba code of every game and agent now.",
    )
    parser.add_argument("--games", nargs="+", choices=game_names(), help="default: every game")
    parser.add_argument(
        "--agents", nargs="+", choices=AGENTS, default=list(AGENTS), help="default: all"
    )
    parser.add_argument("--workers", type=int, help="processes (default: one per CPU core)")
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    try:
        warm_up(args.games, args.agents, progress=not args.quiet, workers=args.workers)
    except ValueError as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
