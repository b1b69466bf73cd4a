"""The local backend's worker processes: two workers or more with agents in processes of their own
play each game in a process of its own (the referee there, not in the arena's threads).

Oracles: the same games played by one worker in the arena's own thread, its agents in this
process (a different code path: no worker process, no agent process; the same games as with
agents' processes: test_arena.py), the game indices of the run (each exactly once), and the
process table of the machine (``/proc``): after an interrupted run, no worker or agent process
is left.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from boardzoo.arena import (
    ArenaSettings,
    GameTask,
    LocalBackend,
    agent_config,
    run_games,
    without_timing,
)
from boardzoo.arena.settings import make_settings

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table")

AGENTS = ("alphabeta:depth=3", "mcts:simulations=200")


def _tasks(games: int, seed: int = 5) -> list[GameTask]:
    settings = make_settings("connect_four", AGENTS, {}, ArenaSettings(time_limit=60.0, seed=seed))
    configs = (agent_config(AGENTS[0]), agent_config(AGENTS[1]))
    return [GameTask(settings, index, AGENTS, configs) for index in range(games)]


@pytest.fixture(scope="module")
def reference() -> list[dict[str, Any]]:
    """The records of ``_tasks(6)`` played by one worker in this thread, in game order (a
    shorter run's games are the first of these: each game's seed is its task's)."""
    records = run_games(_tasks(6), LocalBackend(1, isolate=False, setup_timeout=120.0))
    return sorted(records, key=lambda r: r["game_index"])


def _children(pid: int) -> list[int]:
    """Every process below ``pid`` (children, grandchildren, ...), from ``/proc``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        found += kids
        frontier += kids
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _environment(pid: int) -> dict[str, str]:
    """The environment ``pid`` started with, from ``/proc`` (``{OMP_NUM_THREADS: "gone"}`` for a
    process that has ended since)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {"OMP_NUM_THREADS": "gone"}
    pairs = (entry.split(b"=", 1) for entry in raw.split(b"\0") if b"=" in entry)
    return {key.decode(): value.decode() for key, value in pairs}


def test_two_workers_play_the_games_of_one_in_processes_of_their_own(reference):
    backend = LocalBackend(2, isolate=True, setup_timeout=120.0)
    assert backend.in_process_of_its_own(_tasks(1)[0])
    seen: list[tuple[list[int], list[int]]] = []  # worker processes, every process below us
    threads: set[str | None] = set()  # OMP_NUM_THREADS of the processes below the workers

    def look(_: Any) -> None:
        seen.append((backend.worker_pids(), _children(os.getpid())))
        for worker in seen[-1][0]:
            threads.update(_environment(pid).get("OMP_NUM_THREADS") for pid in _children(worker))

    records = run_games(_tasks(4), backend, look)
    assert all(len(pids) >= 1 and set(pids) <= set(below) for pids, below in seen)
    # the agents' processes share the cores out (unless the user has set OMP_NUM_THREADS)
    expected = os.environ.get("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // 2)))
    assert threads - {"gone"} == {expected}
    by_index = sorted(records, key=lambda r: r["game_index"])
    assert [without_timing(r) for r in by_index] == [without_timing(r) for r in reference[:4]]
    assert backend.worker_pids() == []  # closed with the run


def test_a_game_whose_worker_process_dies_is_played_again_and_recorded_once(caplog, reference):
    # the worker processes play the agents themselves: what dies and comes back is the worker
    backend = LocalBackend(2, isolate=False, setup_timeout=120.0)
    killed: list[int] = []

    def kill_both_workers(_: Any) -> None:  # after the first record: each worker is in a game
        if not killed:
            killed.extend(backend.worker_pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    with caplog.at_level(logging.WARNING, logger="boardzoo.arena.backends"):
        records = run_games(_tasks(6), backend, kill_both_workers)
    assert len(killed) == 2
    assert backend.replayed >= 1
    assert "playing it again from the start" in caplog.text
    assert sorted(r["game_index"] for r in records) == list(range(6))  # each game once
    records.sort(key=lambda r: r["game_index"])
    assert [without_timing(r) for r in records] == [without_timing(r) for r in reference]


def test_an_interrupted_run_leaves_no_worker_or_agent_process():
    backend = LocalBackend(2, isolate=True, setup_timeout=120.0)
    below: list[int] = []

    def interrupt(_: Any) -> None:
        below.extend(p for w in backend.worker_pids() for p in [w, *_children(w)])
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_games(_tasks(20), backend, interrupt)
    assert len(below) >= 2 + 2  # two workers, and agents' processes below them
    deadline = time.monotonic() + 10.0
    while any(_alive(pid) for pid in below) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in below if _alive(pid)] == []
