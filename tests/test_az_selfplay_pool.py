"""Self-play on several workers (``boardzoo train --self-play-workers K``): the jobs, the weights
they carry, and runs that give the same games whichever workers play them."""

from __future__ import annotations

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.torch
require("torch")  # the imports below need it

import torch  # noqa: E402

from boardzoo.az import selfplay_pool  # noqa: E402
from boardzoo.az.selfplay import SelfPlaySettings, play_games  # noqa: E402
from boardzoo.az.selfplay_pool import (  # noqa: E402
    ProcessSelfPlayPool,
    SelfPlayJob,
    merge_games,
    play_job,
    split_games,
    weights_of,
)
from boardzoo.az.train import QUICK, settings_from, train  # noqa: E402
from boardzoo.games.catalog import make_game  # noqa: E402
from boardzoo.learned.network import AZNet, NetworkSettings  # noqa: E402
from boardzoo.learned.torch_evaluator import TorchEvaluator  # noqa: E402
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread(one_torch_thread):
    """Every test here on one torch thread."""


@pytest.fixture(scope="module")
def pool():
    """Two worker processes for the module: starting them (spawned, each importing torch and
    loading the search) is most of these tests' time, so they start once."""
    workers = ProcessSelfPlayPool(2)
    yield workers
    workers.close()


def _job(games: int = 3, seed: int = 5) -> tuple[SelfPlayJob, AZNet]:
    torch.manual_seed(seed)
    config = NetworkSettings.for_game(make_game("tictactoe"), channels=8, blocks=1, value_hidden=8)
    net = AZNet(config).eval()
    job = SelfPlayJob(
        net=config, search=BatchedSearchSettings(gumbel=True, gumbel_k=4),
        selfplay=SelfPlaySettings(simulations=8), parallel_games=2, games=games,
        search_seed=11, move_seed=12,
    )  # fmt: skip
    return job, net


def test_games_are_shared_as_evenly_as_they_go():
    assert split_games(10, 3) == [4, 3, 3]
    assert split_games(4, 4) == [1, 1, 1, 1]
    assert split_games(2, 5) == [1, 1]  # no worker gets an empty job
    assert sum(split_games(129, 8)) == 129


def test_a_job_plays_the_games_the_learner_would_play_with_the_same_weights():
    job, net = _job()
    game = make_game("tictactoe")
    search = BatchedSearch(game, job.parallel_games, job.search, seed=job.search_seed)
    expected = play_games(game, search, TorchEvaluator(net), job.games, job.selfplay,
                          seed=job.move_seed)  # fmt: skip
    played = play_job(job, weights_of(net))
    assert played.moves == expected.moves
    np.testing.assert_array_equal(played.policies, expected.policies)
    # other weights, other games: the weights are really used
    other = AZNet(job.net).eval()
    assert play_job(job, weights_of(other)).policies.tolist() != expected.policies.tolist()


def test_merged_games_keep_job_order():
    job, net = _job(games=2)
    weights = weights_of(net)
    first = play_job(job, weights)
    second = play_job(SelfPlayJob(**{**job.__dict__, "search_seed": 99}), weights)
    assert first.moves != second.moves  # so the order shows
    merged = merge_games([first, second])
    assert merged.moves == first.moves + second.moves
    assert merged.positions == first.positions + second.positions
    np.testing.assert_array_equal(merged.values[: first.positions], first.values)


def test_a_process_pool_returns_each_jobs_games_in_order(pool):
    job, net = _job(games=2)
    # Another search seed (Gumbel's noise: the move seed alone leaves these games the same).
    jobs = [job, SelfPlayJob(**{**job.__dict__, "search_seed": 99})]
    weights = weights_of(net)
    expected = [play_job(j, weights).moves for j in jobs]
    assert expected[0] != expected[1]  # so the order shows
    assert [r.moves for r in pool.play(jobs, weights)] == expected


def test_training_with_two_self_play_workers_is_reproducible(tmp_path, pool, monkeypatch):
    """Two runs give the same games and figures. Both play on the module's two worker processes
    (train asks for a local pool of two, and gets that one), the second run on workers that have
    already played the first's jobs: nothing a worker keeps between jobs changes them."""
    asked = []

    def make_pool(backend, workers, address=None):
        asked.append((backend, workers))
        return pool

    monkeypatch.setattr(selfplay_pool, "make_pool", make_pool)
    monkeypatch.setattr(pool, "close", lambda: None)  # train closes its pool: not this one

    def run(name: str):
        settings = settings_from(
            QUICK, game="tictactoe", out=tmp_path / name, progress=False, device="cpu",
            self_play_workers=2, games_per_iteration=5, eval_games=0,
        )  # fmt: skip
        return train(settings, log=lambda line: None)

    first, second = run("a"), run("b")
    assert asked == [("local", 2)] * 2
    assert first.games == 2 * 5
    strip = [{k: v for k, v in row.items() if not k.endswith("seconds")} for row in first.metrics]
    again = [{k: v for k, v in row.items() if not k.endswith("seconds")} for row in second.metrics]
    assert strip == again


def test_bad_worker_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="self_play_workers"):
        settings_from(QUICK, game="tictactoe", out=tmp_path / "x", self_play_workers=0)
    with pytest.raises(ValueError, match="backend"):
        settings_from(QUICK, game="tictactoe", out=tmp_path / "x", backend="spark")
    with pytest.raises(ValueError, match="address"):
        settings_from(QUICK, game="tictactoe", out=tmp_path / "x", address="auto")
