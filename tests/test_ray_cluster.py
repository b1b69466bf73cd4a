"""The loopback-only Ray cluster harness (tests/raycluster.py) that boardzoo's Ray runs are
tested on: its helpers refuse to start Ray outside a private network namespace, and a run that
times out leaves no process behind. The clusters themselves, two real nodes on 127.0.0.1 and one
of them dying mid-game, are checked by ``test_on_a_ray_cluster``, on the runs they serve.
Skipped where Linux namespaces or Ray are unavailable.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import raycluster

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module", autouse=True)
def _namespaces_available() -> None:
    reason = raycluster.namespace_unavailable()
    if reason is not None:
        pytest.skip(reason)


def test_cluster_helpers_refuse_to_run_outside_the_namespace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_ray(*args: str, **kwargs: Any) -> None:
        pytest.fail(f"ray {' '.join(args)} would have run outside the namespace")

    monkeypatch.setattr(raycluster, "_ray", no_ray)
    assert not raycluster.inside_loopback_namespace()
    node = raycluster.NodeHandle("127.0.0.1:6379", "/nonexistent", {"node2": 1.0})
    for call in (
        raycluster.start_head,
        lambda: raycluster.start_worker("127.0.0.1:6379", temp_dir="/nonexistent"),
        lambda: raycluster.kill_node(node),
        raycluster.stop_all,
        raycluster.ray_pids,
    ):
        with pytest.raises(RuntimeError, match="only inside run_in_loopback_namespace"):
            call()


def test_timeout_kills_everything_in_the_namespace() -> None:
    # A command that leaves a background process and hangs: on timeout both must be gone.
    script = "readlink /proc/self/ns/pid; sleep 300 & sleep 300"
    with pytest.raises(subprocess.TimeoutExpired) as caught:
        raycluster.run_in_loopback_namespace(["/bin/sh", "-c", script], timeout=2)
    output = caught.value.stdout
    pidns = (output.decode() if isinstance(output, bytes) else output or "").strip()
    assert pidns.startswith("pid:[")
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                assert os.readlink(proc / "ns" / "pid") != pidns, f"process {proc.name} survived"
            except OSError:
                continue
