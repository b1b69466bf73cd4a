"""Self-play on several workers: local processes or Ray actors, given the learner's weights.

Each iteration of :func:`~boardzoo.az.train.train` plays ``games_per_iteration`` self-play
games. With one local worker they are played in the learner's process, as they always were;
with ``self_play_workers`` K > 1 they are split into K :class:`SelfPlayJob` (as even as they
go), each with its own seeds from the run's seed, the iteration and the job's index, and played
by a :class:`SelfPlayPool`:

- :class:`ProcessSelfPlayPool` (``backend="local"``): K processes on this machine, one torch
  thread each.
- :class:`RaySelfPlayPool` (``backend="ray"``): K Ray actors on a cluster. The learner publishes
  its weights once an iteration (one ``ray.put``, read by every actor); an actor that dies has
  its job played again, with the same seeds, by a new one.

Results come back in job order, so the same seed and the same number of workers give the same
run on either backend.
"""

from __future__ import annotations

import multiprocessing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from boardzoo.az.selfplay import SelfPlayGames, SelfPlaySettings, play_games
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import make_game
from boardzoo.learned.network import AZNet, NetworkSettings
from boardzoo.learned.torch_evaluator import TorchEvaluator
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings

__all__ = [
    "ProcessSelfPlayPool",
    "RaySelfPlayPool",
    "SelfPlayJob",
    "SelfPlayPool",
    "make_pool",
    "merge_games",
    "play_job",
    "split_games",
    "weights_of",
]

Weights = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class SelfPlayJob:
    """One worker's share of an iteration's self-play: everything but the weights.

    Attributes:
        net: the network's shape and game.
        search: the search's settings.
        selfplay: move choice and recording.
        parallel_games: games searched together.
        games: games to play.
        search_seed: the search's seed.
        move_seed: the move choice's seed.
    """

    net: NetworkSettings
    search: BatchedSearchSettings
    selfplay: SelfPlaySettings
    parallel_games: int
    games: int
    search_seed: int
    move_seed: int


def split_games(total: int, workers: int) -> list[int]:
    """``total`` games shared by ``workers`` as evenly as they go (no empty share)."""
    shares = [total // workers + (k < total % workers) for k in range(workers)]
    return [share for share in shares if share > 0]


def weights_of(net: AZNet) -> dict[str, np.ndarray]:
    """The network's parameters and buffers as numpy arrays (on the CPU)."""
    return {name: value.detach().cpu().numpy() for name, value in net.state_dict().items()}


def play_job(job: SelfPlayJob, weights: Weights) -> SelfPlayGames:
    """Play ``job`` with a network holding ``weights``, on the CPU."""
    game = make_game(job.net.game, **job.net.options)
    net = AZNet(job.net)
    net.load_state_dict(
        {name: torch.from_numpy(np.array(value)) for name, value in weights.items()}
    )
    net.eval()
    search = BatchedSearch(game, job.parallel_games, job.search, seed=job.search_seed)
    return play_games(game, search, TorchEvaluator(net, device="cpu"), job.games, job.selfplay,
                      seed=job.move_seed)  # fmt: skip


def merge_games(parts: Sequence[SelfPlayGames]) -> SelfPlayGames:
    """The games of several jobs as one batch, in job order."""
    return SelfPlayGames(
        observations=np.concatenate([p.observations for p in parts]),
        masks=np.concatenate([p.masks for p in parts]),
        policies=np.concatenate([p.policies for p in parts]),
        values=np.concatenate([p.values for p in parts]),
        search_values=np.concatenate([p.search_values for p in parts]),
        winners=[w for p in parts for w in p.winners],
        moves=[m for p in parts for m in p.moves],
        lengths=[n for p in parts for n in p.lengths],
        openings=[o for p in parts for o in p.openings],
        simulations=sum(p.simulations for p in parts),
        searches=(sum(p.searches[0] for p in parts), sum(p.searches[1] for p in parts)),
    )


class SelfPlayPool(ABC):
    """Workers that play :class:`SelfPlayJob` with the weights they are given."""

    workers: int

    @abstractmethod
    def play(self, jobs: Sequence[SelfPlayJob], weights: Weights) -> list[SelfPlayGames]:
        """Play ``jobs`` (at most ``workers`` at once) and return their games in job order."""

    @abstractmethod
    def close(self) -> None:
        """Stop the workers."""


def _one_torch_thread() -> None:
    torch.set_num_threads(1)


class ProcessSelfPlayPool(SelfPlayPool):
    """``workers`` processes on this machine (spawned), one torch thread each."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_one_torch_thread
        )

    def play(self, jobs: Sequence[SelfPlayJob], weights: Weights) -> list[SelfPlayGames]:
        futures = [self._executor.submit(play_job, job, weights) for job in jobs]
        return [future.result() for future in futures]

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


class RaySelfPlayPool(SelfPlayPool):
    """``workers`` Ray actors, each asking for ``num_cpus`` CPUs; see the module's docs.

    Args:
        workers: actors.
        address: the cluster to join (``"auto"``, ``"host:port"``); ``None``: start one here
            (unless Ray already runs in this process).
        num_cpus: CPUs Ray reserves for each actor (its torch threads).

    Attributes:
        replayed: jobs played again because their actor died.
    """

    def __init__(self, workers: int, address: str | None = None, num_cpus: float = 1.0) -> None:
        import ray  # an optional dependency: imported only by the runs that ask for it

        from boardzoo.arena.ray_backend import join_ray  # (ray, an optional dependency)

        self._ray = ray
        self.workers = workers
        self.replayed = 0
        self._started_ray = join_ray(address)
        self._threads = max(1, int(num_cpus))
        self._actor_class: Any = ray.remote(num_cpus=num_cpus, max_restarts=0)(_SelfPlayActor)
        self._actors: list[Any] = [self._actor_class.remote(self._threads) for _ in range(workers)]

    def play(self, jobs: Sequence[SelfPlayJob], weights: Weights) -> list[SelfPlayGames]:
        from boardzoo.arena.ray_backend import WORKER_LOST  # (ray, an optional dependency)

        ray = self._ray
        published = ray.put(dict(weights))  # one copy in the object store, read by every actor
        results: list[SelfPlayGames | None] = [None] * len(jobs)
        waiting = list(range(len(jobs)))
        running: dict[Any, tuple[int, int]] = {}  # reference -> (job, actor slot)
        free = list(range(len(self._actors)))
        while waiting or running:
            while waiting and free:
                slot, job = free.pop(0), waiting.pop(0)
                running[self._actors[slot].play.remote(jobs[job], published)] = (job, slot)
            done, _ = ray.wait(list(running), num_returns=1)
            job, slot = running.pop(done[0])
            try:
                results[job] = ray.get(done[0])
            except WORKER_LOST:  # the actor or its node died: a new actor plays the job again
                ray.kill(self._actors[slot], no_restart=True)
                self._actors[slot] = self._actor_class.remote(self._threads)
                self.replayed += 1
                waiting.insert(0, job)
            free.append(slot)
        return [r for r in results if r is not None]

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor, no_restart=True)
        self._actors = []
        if self._started_ray:
            self._ray.shutdown()


class _SelfPlayActor:
    """A Ray actor's body: plays jobs with ``threads`` torch threads."""

    def __init__(self, threads: int) -> None:
        torch.set_num_threads(threads)

    def play(self, job: SelfPlayJob, weights: Weights) -> SelfPlayGames:
        return play_job(job, weights)


def make_pool(backend: str, workers: int, address: str | None = None) -> SelfPlayPool | None:
    """The pool for ``backend`` (``"local"`` or ``"ray"``) with ``workers`` workers; ``None``
    for one local worker (self-play in the learner's own process)."""
    if backend == "ray":
        return RaySelfPlayPool(workers, address)
    if backend != "local":
        raise InvalidValueError(f"backend={backend!r} is not allowed: use 'local' or 'ray'")
    return None if workers == 1 else ProcessSelfPlayPool(workers)
