"""boardzoo on a real Ray cluster: the arena (``backend="ray"``), through the public API and the
CLI, and the data steps of the learned evaluation.

One driver script, run inside a loopback-only namespace (``tests/raycluster.py``), starts a
cluster with ``ray start`` and checks, on it:

* a node dying mid-match: a head with one CPU and a second node with one CPU, so that of the
  match's two actors (one CPU each) one must run on node 2. Once games are flowing and node 2's
  actor is in a game (its process titled ``ray::GameWorker.play``, its agents' processes
  running), the head's actor is paused (SIGSTOP; no clock runs) and every process of node 2 is
  killed. Once the backend has logged the replay, a third node joins, the only place with a
  free CPU, where a new actor replays the lost game, and the head's actor goes on. Every game
  index must be in the record file exactly once, and the records must equal a local run with
  the same seed;
* ``boardzoo arena ... --backend ray --address HOST:PORT``, as a subprocess: it plays a small
  match on the cluster (``--no-isolate``: the agents in the actors, no processes of their own
  to start) and prints the table;
* an :class:`~boardzoo.agents.Agent` object (``RandomAgent(seed=1)``) played by Ray actors;
* the learned evaluation's data on the cluster (``boardzoo.fit``'s ``generate`` with ``ray``,
  each game a Ray task): the same positions and labels as a local run;
* ``boardzoo train --backend ray``: AlphaZero's self-play workers as Ray actors on the two
  live nodes, the same run as local workers (these play their jobs in the driver, one after the
  other: the games the worker processes play, ``test_az_selfplay_pool``); needs torch;
* that nothing leaves loopback: the driver and tasks pinned to each live node see only ``lo``,
  and every node's address is 127.0.0.1.

The local runs the Ray runs are compared with are played by the same driver, before the
cluster starts. The driver prints one JSON line; one cluster serves every test of the module
(starting one costs about 10 s). Skipped where Linux namespaces or Ray are unavailable.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import raycluster

pytestmark = [pytest.mark.slow, pytest.mark.ray]  # one cluster for the module: about a minute

TESTS_DIR = Path(__file__).resolve().parent
REPO_DIR = TESTS_DIR.parent
DRIVER_TIMEOUT = 300  # seconds; the driver takes about a minute on two busy cores

#: The match whose node is killed: deterministic agents (a fixed number of simulations, a fixed
#: depth, no clock), games long enough (a second or more on a busy machine) to be hit mid-game.
KILL_MATCH: dict[str, Any] = {
    "game": "connect_four",
    "agents": ["mcts:simulations=10000", "alphabeta:depth=3"],
    "games": 4,
    "seed": 11,
    "time_limit": None,
    "workers": 2,
}
#: ``boardzoo arena`` on the cluster (the CLI's default time limit, 60 s, is in the records).
CLI_MATCH: dict[str, Any] = {"game": "tictactoe", "games": 4, "seed": 3, "workers": 2}
#: An agent object against a spec.
OBJECT_MATCH: dict[str, Any] = {"game": "tictactoe", "games": 4, "seed": 5, "workers": 2}
#: Data for the learned evaluation: a few short games of Reversi 6x6, solved from 4 empties.
DATA_RUN: dict[str, Any] = {
    "settings": {"game": "reversi", "options": {"board_size": 6}, "seed": 5, "depth": 1,
                 "solve_empties": 4, "chunk_games": 2},
    "games": 4,
}  # fmt: skip
#: AlphaZero's training with two self-play workers: two short iterations of TicTacToe.
SELFPLAY_RUN: dict[str, Any] = {"game": "tictactoe", "self_play_workers": 2,
                                "games_per_iteration": 5, "eval_games": 0}  # fmt: skip

DRIVER = """
import json, logging, os, signal, subprocess, sys, threading, time, traceback
from pathlib import Path

import raycluster as rc

PARAMS = json.loads(sys.argv[1])
KILL, CLI, OBJECT = PARAMS["kill"], PARAMS["cli"], PARAMS["object"]
DATA, SELFPLAY = PARAMS["data"], PARAMS["selfplay"]
out = {"pidns": os.readlink("/proc/self/ns/pid"), "seconds": {}}
T0 = time.monotonic()


def say(*words):
    \"\"\"Progress on stderr (shown when a test fails).\"\"\"
    print(f"[{time.monotonic() - T0:6.1f} s]", *words, file=sys.stderr, flush=True)


def part(name, work):
    \"\"\"Run one check: its result, or its traceback, goes to out[name].\"\"\"
    start = time.monotonic()
    say("start", name)
    try:
        out[name] = work()
    except BaseException:
        out[name] = {"error": traceback.format_exc()}
    out["seconds"][name] = round(time.monotonic() - start, 1)
    say("end", name, "error" if "error" in out[name] else "ok")


def comparable(records):
    \"\"\"Records without their wall-clock fields, by game index.\"\"\"
    from boardzoo.arena import without_timing

    return sorted((without_timing(r) for r in records), key=lambda r: r["game_index"])


def wait_until(check, timeout, what, unless=None):
    \"\"\"What check() returns once it is true; TimeoutError after timeout seconds, or as soon
    as the event unless is set.\"\"\"
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if unless is not None and unless.is_set():
            raise TimeoutError(f"{what}: not before the match ended")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        time.sleep(0.02)


def title(pid):
    \"\"\"A process's title (Ray retitles its workers: ray::GameWorker.play while playing).\"\"\"
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\\0")[0].decode()
    except (OSError, UnicodeDecodeError):
        return ""


def parent(pid):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def lines(path):
    return path.read_bytes().count(b"\\n") if path.exists() else 0


def local_runs():
    \"\"\"The oracle: each match on the local backend, same seeds, one worker (the same games
    as any number). The specs play in this process (isolate=False: the same games, seconds
    sooner); the agent object in processes of its own, as on Ray (in this process one object
    would play every game, its generator going on from game to game, where each game in a
    process of its own starts from a fresh copy).\"\"\"
    from boardzoo.agents import RandomAgent
    from boardzoo.arena import play_match

    def local(game, agents, match, **changes):
        settings = {"games": match["games"], "seed": match["seed"], "workers": match["workers"],
                    "time_limit": match.get("time_limit", 60.0), **changes}
        return comparable(play_match(game, agents, progress=False, **settings).records)

    return {
        "kill": local(KILL["game"], KILL["agents"], KILL, isolate=False, workers=1),
        "cli": local(CLI["game"], ("random", "random"), CLI, isolate=False, workers=1),
        "object": local(OBJECT["game"], (RandomAgent(seed=1), "random"), OBJECT, workers=1),
        "data": data_run("data-local", None),
        "selfplay": selfplay_run("selfplay-local", None),
    }


def data_run(folder, address):
    \"\"\"Generate DATA's games into folder (on the cluster at address, or here): the arrays.\"\"\"
    import ray
    from boardzoo.fit.data import GenerateSettings, generate, load_positions

    settings = GenerateSettings(**DATA["settings"])
    generate(Path(folder).resolve(), settings, games=DATA["games"], ray=address, log=say)
    positions = load_positions(Path(folder).resolve())
    arrays = {name: getattr(positions, name).tolist()
              for name in ("bitboards", "player", "label", "empties", "exact", "game")}
    return {"arrays": arrays, "ray_connected": ray.is_initialized()}


def selfplay_run(folder, address):
    \"\"\"Train SELFPLAY's run into folder: with its workers as Ray actors on the cluster at
    address, or, for None, with a local pool whose workers play their jobs here. Its metrics
    without timings (None without torch).\"\"\"
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    from boardzoo.az import selfplay_pool
    from boardzoo.az.train import QUICK, settings_from, train

    pools = []
    make_pool = selfplay_pool.make_pool

    class InProcessPool(selfplay_pool.SelfPlayPool):
        workers = SELFPLAY["self_play_workers"]

        def play(self, jobs, weights):
            return [selfplay_pool.play_job(job, weights) for job in jobs]

        def close(self):
            pass

    def local_pool(backend, workers, address=None):
        pools.append([backend, workers])
        return InProcessPool()

    given = {"backend": "ray", "address": address} if address else {}
    if address is None:
        selfplay_pool.make_pool = local_pool
    try:
        settings = settings_from(QUICK, out=str(Path(folder).resolve()), progress=False,
                                 device="cpu", **SELFPLAY, **given)
        summary = train(settings, log=lambda line: None)
    finally:
        selfplay_pool.make_pool = make_pool
    found = {"metrics": [{k: v for k, v in row.items() if not k.endswith("seconds")}
                         for row in summary.metrics], "local_pools": pools}
    if address is not None:
        import ray

        found["nodes"] = len({n["NodeID"] for n in ray.nodes() if n["Alive"]})
    return found


def kill_mid_match(address, node2):
    from boardzoo.arena import play_match, read_records

    warnings = []

    class Catch(logging.Handler):
        def emit(self, record):
            warnings.append(record.getMessage())

    logger = logging.getLogger("boardzoo.arena.ray_backend")
    handler = Catch(logging.WARNING)
    logger.addHandler(handler)
    path = Path("kill.jsonl").resolve()
    seen = {}
    over = threading.Event()  # the match has ended

    def node2_actor_in_game():
        pids = node2.pids()
        for pid in pids:
            if title(pid).startswith("ray::GameWorker.play"):
                agents = [p for p in pids if parent(p) == pid]
                if len(agents) >= 2:
                    return pid
        return None

    def head_actor():
        on_node2 = set(node2.pids())
        actors = [p for p in rc.ray_pids()
                  if p not in on_node2 and title(p).startswith("ray::GameWorker")]
        if len(actors) != 1:
            raise RuntimeError(f"one actor on the head expected, found {actors}")
        return actors[0]

    def killer():
        try:
            # Games are flowing (a first one recorded) and node 2's actor is in one.
            wait_until(lambda: lines(path) >= 1, 180, "a first record", over)
            actor = wait_until(node2_actor_in_game, 180, "node 2's actor in a game", over)
            head = head_actor()
            # The head's actor is paused (no clock runs: time_limit=None) until the lost game
            # has a new actor: were it idle first, the game would be replayed on it instead.
            os.kill(head, signal.SIGSTOP)
            try:
                seen["title_at_kill"] = title(actor)
                seen["records_at_kill"] = lines(path)
                seen["killed_pids"] = len(rc.kill_node(node2))
                killed = time.monotonic()
                say("killed node 2 in a game,", seen["records_at_kill"], "records written")
                wait_until(lambda: warnings, 60, "the replay")
                seen["replay_logged_after_s"] = round(time.monotonic() - killed, 1)
                # The new actor needs a CPU: the head's is its paused actor's. Node 3 has one.
                node3 = rc.start_worker(address, num_cpus=1, resources={"node3": 1})
                say("node 3 started")
                wait_until(
                    lambda: any(title(p).startswith("ray::GameWorker") for p in node3.pids()),
                    180, "an actor on node 3",
                )
                seen["actor_on_node3"] = True
                say("an actor runs on node 3")
            finally:
                os.kill(head, signal.SIGCONT)
        except BaseException:
            seen["error"] = traceback.format_exc()
            say(seen["error"])

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        result = play_match(
            KILL["game"], KILL["agents"], games=KILL["games"], seed=KILL["seed"],
            time_limit=KILL["time_limit"], workers=KILL["workers"], backend="ray",
            address=address, out=path, progress=False,
        )
    finally:
        over.set()
        logger.removeHandler(handler)
    thread.join(timeout=60)
    records = read_records(path)
    return {
        **seen,
        "warnings": warnings,
        "file_indices": [r["game_index"] for r in records],
        "result_indices": [r["game_index"] for r in result.records],
        "ray": comparable(records),
    }


def cli(address):
    from boardzoo.arena import read_records

    script = Path(sys.executable).with_name("boardzoo")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "boardzoo"]
    path = Path("cli.jsonl").resolve()
    done = subprocess.run(
        [*command, "arena", CLI["game"], "random", "random", "--games", str(CLI["games"]),
         "--seed", str(CLI["seed"]), "--workers", str(CLI["workers"]), "--backend", "ray",
         "--address", address, "--out", str(path), "--no-progress", "--no-isolate"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240,
    )
    return {
        "returncode": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr[-4000:],
        "ray": comparable(read_records(path)) if path.exists() else None,
    }


def agent_object(address):
    from boardzoo.agents import RandomAgent
    from boardzoo.arena import play_match

    result = play_match(
        OBJECT["game"], (RandomAgent(seed=1), "random"), games=OBJECT["games"],
        seed=OBJECT["seed"], workers=OBJECT["workers"], backend="ray", address=address,
        progress=False,
    )
    return {"agents": list(result.agents), "ray": comparable(result.records)}


def loopback(address):
    import socket

    import ray
    from boardzoo.arena.ray_backend import join_ray

    join_ray(address)

    @ray.remote(num_cpus=0)
    def where():
        return {"node": ray.get_runtime_context().get_node_id(),
                "interfaces": [name for _, name in socket.if_nameindex()]}

    alive = [node for node in ray.nodes() if node["Alive"]]
    return {
        "driver": [name for _, name in socket.if_nameindex()],
        "addresses": [node["NodeManagerAddress"] for node in alive],
        "tasks": [ray.get(where.options(resources={name: 0.01}).remote(), timeout=60)
                  for name in ("head", "node3")],
    }


def main():
    part("local", local_runs)  # before the cluster: a busy machine can fail its start
    start = time.monotonic()
    # Head and node 2 have a CPU each, and each of the match's two actors asks for one: one of
    # them must run on node 2.
    address = rc.start_head(num_cpus=1, resources={"head": 1})
    node2 = rc.start_worker(address, num_cpus=1, resources={"node2": 1})
    out["seconds"]["cluster_start"] = round(time.monotonic() - start, 1)
    part("kill", lambda: kill_mid_match(address, node2))
    part("cli", lambda: cli(address))
    part("object", lambda: agent_object(address))
    part("data", lambda: data_run("data-ray", address))
    part("selfplay", lambda: selfplay_run("selfplay-ray", address))
    part("loopback", lambda: loopback(address))


def timed_main():
    main()
    out["seconds"]["driver"] = round(time.monotonic() - T0, 1)


if __name__ == "__main__":  # agents' processes (spawn) import this script again
    rc.finish_driver(timed_main, out)
"""


@pytest.fixture(scope="module")
def cluster_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the driver once for the module; its JSON result, checked to have stopped every Ray
    process and to have left no process behind."""
    reason = raycluster.namespace_unavailable()
    if reason is not None:
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("on_ray")
    script = folder / "driver.py"
    script.write_text(textwrap.dedent(DRIVER))
    params = json.dumps(
        {
            "kill": KILL_MATCH,
            "cli": CLI_MATCH,
            "object": OBJECT_MATCH,
            "data": DATA_RUN,
            "selfplay": SELFPLAY_RUN,
        }
    )
    out, done = raycluster.run_driver_script(
        [sys.executable, str(script), params],
        timeout=DRIVER_TIMEOUT,
        cwd=folder,
        pythonpath=[str(TESTS_DIR), str(REPO_DIR)],
    )
    assert "error" not in out["local"], out["local"].get("error")
    out["stderr"] = done.stderr
    print(f"\narena on Ray, seconds: {out['seconds']}")
    return out


def _part(out: dict[str, Any], name: str) -> dict[str, Any]:
    part: dict[str, Any] = out[name]
    assert "error" not in part, f"{part['error']}\ndriver stderr:\n{out['stderr'][-6000:]}"
    return part


def test_node_killed_mid_match_replays_its_game_once(cluster_run: dict[str, Any]) -> None:
    kill = _part(cluster_run, "kill")
    games = KILL_MATCH["games"]
    # The kill hit node 2's actor in a game, games still to come; the new actor ran on node 3.
    assert kill["title_at_kill"].startswith("ray::GameWorker.play")
    assert kill["killed_pids"] > 0
    assert kill["records_at_kill"] < games
    assert kill.get("actor_on_node3") is True
    # The backend saw its call fail and replayed the game (a dead actor never returns a record).
    replays = [w for w in kill["warnings"] if "playing it again from the start" in w]
    assert replays, kill["warnings"]
    # Every game recorded once, and the records are those of a local run with the same seed.
    assert sorted(kill["file_indices"]) == list(range(games)), kill["file_indices"]
    assert sorted(kill["result_indices"]) == list(range(games))
    assert kill["ray"] == cluster_run["local"]["kill"]
    print(
        f"\nnode 2 killed ({kill['killed_pids']} processes) in a game, {kill['records_at_kill']} "
        f"of {games} games recorded; {replays[0]} ({kill['replay_logged_after_s']} s after)"
    )


def test_cli_plays_a_match_on_the_cluster(cluster_run: dict[str, Any]) -> None:
    cli = _part(cluster_run, "cli")
    assert cli["returncode"] == 0, cli["stderr"]
    header = f"{CLI_MATCH['game']}: random vs random, {CLI_MATCH['games']} games"
    assert header in cli["stdout"], cli["stdout"]
    assert "agent" in cli["stdout"] and "score" in cli["stdout"]
    assert cli["ray"] == cluster_run["local"]["cli"]


def test_agent_object_plays_through_ray(cluster_run: dict[str, Any]) -> None:
    played = _part(cluster_run, "object")
    assert played["agents"] == ["RandomAgent", "random"]
    assert [r["game_index"] for r in played["ray"]] == list(range(OBJECT_MATCH["games"]))
    assert played["ray"] == cluster_run["local"]["object"]


def test_data_for_the_learned_evaluation_is_made_on_the_cluster(cluster_run: dict[str, Any]):
    made = _part(cluster_run, "data")
    local = cluster_run["local"]["data"]
    assert made["ray_connected"] and not local["ray_connected"]
    assert sorted(set(made["arrays"]["game"])) == list(range(DATA_RUN["games"]))
    assert made["arrays"] == local["arrays"]


def test_self_play_on_ray_actors_gives_the_run_of_local_workers(cluster_run: dict[str, Any]):
    on_ray = _part(cluster_run, "selfplay")
    local = cluster_run["local"]["selfplay"]
    if local is None:
        pytest.skip("needs PyTorch (pip install torch)")
    assert on_ray["nodes"] == 2  # the head and node 3
    assert local["local_pools"] == [["local", SELFPLAY_RUN["self_play_workers"]]]
    assert on_ray["local_pools"] == []
    assert len(on_ray["metrics"]) == 2 and on_ray["metrics"][-1]["games"] == 10
    assert on_ray["metrics"] == local["metrics"]


def test_nothing_leaves_loopback(cluster_run: dict[str, Any]) -> None:
    seen = _part(cluster_run, "loopback")
    assert seen["driver"] == ["lo"]
    assert seen["addresses"] == ["127.0.0.1", "127.0.0.1"]  # the head and node 3
    head, node3 = seen["tasks"]
    assert head["interfaces"] == node3["interfaces"] == ["lo"]
    assert head["node"] != node3["node"]
