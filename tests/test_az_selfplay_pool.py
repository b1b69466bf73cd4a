"""Self-play on several workers (``boardzoo train --self-play-workers K``): the jobs, the weights
they carry, and runs that give the same games whichever workers play them."""

from __future__ import annotations

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.torch
require("torch")  # the imports below need it

import torch  # noqa: E402

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
    second = play_job(SelfPlayJob(**{**job.__dict__, "move_seed": 99}), weights)
    merged = merge_games([first, second])
    assert merged.moves == first.moves + second.moves
    assert merged.positions == first.positions + second.positions
    np.testing.assert_array_equal(merged.values[: first.positions], first.values)


def test_a_process_pool_returns_each_jobs_games_in_order():
    job, net = _job(games=2)
    jobs = [job, SelfPlayJob(**{**job.__dict__, "move_seed": 99})]
    weights = weights_of(net)
    pool = ProcessSelfPlayPool(2)
    try:
        results = pool.play(jobs, weights)
    finally:
        pool.close()
    assert [r.moves for r in results] == [play_job(j, weights).moves for j in jobs]


def test_training_with_two_self_play_workers_is_reproducible(tmp_path):
    def run(name: str):
        settings = settings_from(
            QUICK, game="tictactoe", out=tmp_path / name, progress=False, device="cpu",
            self_play_workers=2, games_per_iteration=5, eval_games=0,
        )  # fmt: skip
        return train(settings, log=lambda line: None)

    first, second = run("a"), run("b")
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
