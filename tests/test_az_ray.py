"""`boardzoo train --backend ray`: self-play workers as Ray actors on a real two-node cluster kept
on loopback (tests/raycluster.py), giving the same run as local workers.

The local run's workers play their jobs in the driver, one after the other: the games the
worker processes play (``test_az_selfplay_pool``), without starting two processes that import
torch.
"""

from __future__ import annotations

import pytest
import raycluster
from test_ray_cluster import run_driver

pytestmark = [pytest.mark.torch, pytest.mark.ray]


@pytest.fixture(scope="module", autouse=True)
def _namespaces_available() -> None:
    reason = raycluster.namespace_unavailable()
    if reason is not None:
        pytest.skip(reason)


TRAIN_ON_TWO_NODES = """
def main():
    import torch
    torch.set_num_threads(1)
    from boardzoo.az.train import QUICK, settings_from, train
    address = rc.start_head(resources={"head": 1})
    rc.start_worker(address, resources={"node2": 1})

    def run(name, **given):
        settings = settings_from(
            QUICK, game="tictactoe", out=name, progress=False, device="cpu",
            self_play_workers=2, games_per_iteration=5, eval_games=0, **given,
        )
        summary = train(settings, log=lambda line: None)
        return [{k: v for k, v in row.items() if not k.endswith("seconds")}
                for row in summary.metrics]

    import ray
    ray.init(address=address, logging_level="WARNING")
    rc.wait_for_resource("node2")
    nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    out["nodes"] = len(nodes)
    out["ray"] = run("on-ray", backend="ray", address=address)
    ray.shutdown()

    from boardzoo.az import selfplay_pool

    class InProcessPool(selfplay_pool.SelfPlayPool):
        workers = 2

        def play(self, jobs, weights):
            return [selfplay_pool.play_job(job, weights) for job in jobs]

        def close(self):
            pass

    out["local_pools"] = []

    def make_pool(backend, workers, address=None):
        out["local_pools"].append([backend, workers])
        return InProcessPool()

    selfplay_pool.make_pool = make_pool
    out["local"] = run("local")

finish(main)
"""


def test_self_play_on_ray_actors_gives_the_run_of_local_workers(tmp_path):
    out = run_driver(TRAIN_ON_TWO_NODES, tmp_path, timeout=240)
    assert out["nodes"] == 2
    assert len(out["ray"]) == 2 and out["ray"][-1]["games"] == 10
    assert out["local_pools"] == [["local", 2]]
    assert out["ray"] == out["local"]
