"""A real multi-node Ray cluster for tests, kept on loopback.

Everything Ray runs here runs inside a private set of Linux namespaces made by ``unshare``: a
network namespace whose only interface is ``lo`` (so no Ray process can reach, or be reached
from, any other address, whatever it binds to), a PID namespace with its own ``/proc`` (so
``ray stop`` sees only this cluster's processes, and every process left in it is killed by the
kernel when the namespace's first process exits) and a private ``HOME`` and ``TMPDIR`` (so no
token, session or address file of another Ray run is picked up).

Two halves:

* In the test process (outside): :func:`namespace_unavailable` (the reason to skip, or None) and
  :func:`run_in_loopback_namespace`, which runs a driver script inside a fresh namespace.
* In that driver (inside): :func:`start_head`, :func:`start_worker`, :func:`kill_node`,
  :func:`stop_all`, plus :func:`wait_for_resource`. They refuse to run anywhere but inside a
  namespace made by :func:`run_in_loopback_namespace`.

Several nodes share the machine and the address 127.0.0.1; a worker node is told apart by its own
``--temp-dir`` (every process of that node either names it on its command line or descends from
one that does) and is scheduled onto through a custom resource such as ``{"node2": 1}``.

Linux only. Importing this module imports neither pytest nor ray.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "FAST_HEALTH_CHECK_ENV",
    "OBJECT_STORE_BYTES",
    "RESULT",
    "NodeHandle",
    "finish_driver",
    "inside_loopback_namespace",
    "kill_node",
    "namespace_unavailable",
    "ray_env",
    "ray_pids",
    "run_driver_script",
    "run_in_loopback_namespace",
    "start_head",
    "start_worker",
    "stop_all",
    "wait_for_resource",
]

#: Object store of each node: small, this is for games, not data.
OBJECT_STORE_BYTES = 80 * 1024 * 1024

#: ``$0`` of the namespace's first process; :func:`inside_loopback_namespace` looks for it.
_NS_MARKER = "raycluster-ns"

#: Fresh network, PID and mount namespaces; the forked child (PID 1 inside) dies with unshare.
_UNSHARE = ("unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc")

#: PID 1 inside: bring up lo, then run the command and pass on its status. A shell that waits
#: (no ``exec``) so the orphaned Ray daemons are reaped; when it exits, the kernel kills the rest.
_NS_INIT = (
    'ip link set lo up || { echo "raycluster: ip link set lo up failed" >&2; exit 97; }\n"$@"'
)

#: Environment of everything inside: Ray small, local and quiet. Every inherited ``RAY_*``
#: variable (``RAY_ADDRESS`` above all) is dropped first.
_RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_DISABLE_DOCKER_CPU_WARNING": "1",
    "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0",
    "RAY_DEDUP_LOGS": "0",
    "PYTHONUNBUFFERED": "1",
}

#: GCS settings for :func:`start_head` (``fast_health_checks``): a node whose raylet stopped
#: answering is declared dead after about 2 s instead of Ray's default of about 15 s (3 missed
#: checks 0.3 s apart instead of 5 missed checks 3 s apart). A check still waits Ray's default
#: 10 s for a slow but live raylet, so a loaded machine does not lose nodes.
FAST_HEALTH_CHECK_ENV = {
    "RAY_health_check_period_ms": "300",
    "RAY_health_check_failure_threshold": "3",
}

#: Inherited variables that point Ray or Python at state outside the private directory.
_DROPPED_ENV_PREFIXES = ("RAY_", "XDG_")


def _ip_command() -> str | None:
    """Absolute path of ``ip`` (often in /usr/sbin, outside a user's PATH), or None."""
    found = shutil.which("ip")
    if found:
        return found
    for candidate in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _ray_package_dir() -> str | None:
    """Directory of the installed ``ray`` package, found without importing it."""
    spec = importlib.util.find_spec("ray")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))  # as Ray spells its daemons' paths


def _ray_cli() -> list[str]:
    """argv prefix that runs the ``ray`` command line of this interpreter's Ray."""
    script = Path(sys.executable).with_name("ray")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import sys; from ray.scripts.scripts import main; sys.exit(main())",
    ]


def _namespace_argv(argv: Sequence[str]) -> list[str]:
    ip = _ip_command() or "ip"
    init = _NS_INIT.replace("ip link", f"{ip} link", 1)
    return [*_UNSHARE, "/bin/sh", "-c", init, _NS_MARKER, *argv]


def _children(pid: int) -> list[int]:
    """PIDs of the live children of ``pid``."""
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                children.append(int(entry))
    return children


def _short_temp_root() -> Path:
    """A fresh private directory with a short path: Ray's Unix sockets live under it, and a
    socket path may not exceed 107 bytes."""
    base = "/tmp" if os.path.isdir("/tmp") else None
    return Path(tempfile.mkdtemp(prefix="rayns-", dir=base))


def ray_env(home: Path, tmpdir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment :func:`run_in_loopback_namespace` gives its command.

    This process's environment without ``RAY_*`` and ``XDG_*`` variables, with ``HOME`` and
    ``TMPDIR`` (hence Ray's default temp dir, ``$TMPDIR/ray``) private, usage stats off, and
    ``extra`` applied last.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_ENV_PREFIXES)}
    env.update(_RAY_ENV)
    env["HOME"] = str(home)
    env["TMPDIR"] = str(tmpdir)
    if extra:
        env.update(extra)
    return env


@functools.cache
def namespace_unavailable() -> str | None:
    """None if Ray clusters can run here, else why not (a reason for ``pytest.skip``).

    Checks that ``ray`` is installed and, once per process, that ``unshare`` can make the
    namespaces (net, PID, mount) and bring up ``lo`` there, and that ``lo`` is then the only
    network interface.
    """
    if not sys.platform.startswith("linux"):
        return f"Ray cluster tests need Linux namespaces; this is {sys.platform}"
    if _ray_package_dir() is None:
        return "ray is not installed (pip install -e '.[ray]')"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not on PATH"
    if _ip_command() is None:
        return "ip (iproute2) is not installed"
    probe = "import socket; print(sorted(name for _, name in socket.if_nameindex()))"
    try:
        done = run_in_loopback_namespace([sys.executable, "-c", probe], timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot run unshare: {exc}"
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        why = detail[-1] if detail else f"exit status {done.returncode}"
        return f"private network namespaces are not allowed here ({' '.join(_UNSHARE)}): {why}"
    if done.stdout.strip() != "['lo']":
        return f"the private network namespace has interfaces other than lo: {done.stdout.strip()}"
    return None


def run_in_loopback_namespace(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` inside fresh namespaces whose only network is loopback; capture its output.

    ``HOME`` and ``TMPDIR`` point into a fresh private directory (removed afterwards), ``env``
    is applied over :func:`ray_env`. ``lo`` is up; there is no other interface. Every process
    the command leaves behind is killed by the kernel when it exits. Past ``timeout`` seconds
    everything is killed and :class:`subprocess.TimeoutExpired` is raised, carrying the output
    so far. A nonzero exit status is returned, not raised; 97 means ``lo`` could not be brought up.
    """
    root = _short_temp_root()
    home, tmpdir = root / "home", root / "tmp"
    home.mkdir()
    tmpdir.mkdir()
    try:
        with subprocess.Popen(
            _namespace_argv(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ray_env(home, tmpdir, env),
            cwd=cwd,
            start_new_session=True,
        ) as proc:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                # SIGKILL the namespace's PID 1: the kernel kills and reaps everything else in
                # the namespace before PID 1 is gone, and unshare, which waits for it, exits
                # only then. Its process group goes too, in case unshare was still starting.
                for child in _children(proc.pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                try:
                    stdout, stderr = proc.communicate(timeout=30)
                except subprocess.TimeoutExpired:  # a process kept the pipes open: give up on them
                    stdout, stderr = "", ""
                raise subprocess.TimeoutExpired(
                    list(argv), timeout, output=stdout, stderr=stderr
                ) from None
            return subprocess.CompletedProcess(list(argv), proc.returncode, stdout, stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Inside the namespace.


def inside_loopback_namespace() -> bool:
    """True in a process started (directly or not) by :func:`run_in_loopback_namespace`:
    its PID namespace is the one made there, and ``lo`` is its only network interface."""
    try:
        init_argv = Path("/proc/1/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if _NS_MARKER.encode() not in init_argv:
        return False
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def _require_namespace(what: str) -> None:
    if not inside_loopback_namespace():
        raise RuntimeError(
            f"raycluster.{what} runs Ray only inside run_in_loopback_namespace(): "
            "outside it, Ray would bind to and talk over the machine's network"
        )


def _ray(
    *args: str, timeout: float = 60, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*_ray_cli(), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **env} if env else None,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"ray {' '.join(args)} failed (exit status {done.returncode}):\n"
            f"{done.stdout}\n{done.stderr}"
        )
    return done


def _node_flags(num_cpus: int, resources: Mapping[str, float] | None) -> list[str]:
    flags = [
        "--node-ip-address=127.0.0.1",
        f"--num-cpus={num_cpus}",
        "--num-gpus=0",
        f"--object-store-memory={OBJECT_STORE_BYTES}",
        "--disable-usage-stats",
    ]
    if resources:
        flags.append(f"--resources={json.dumps(dict(resources))}")
    return flags


def start_head(
    port: int = 6379,
    num_cpus: int = 1,
    resources: Mapping[str, float] | None = None,
    *,
    fast_health_checks: bool = True,
) -> str:
    """Start the head node (GCS and first raylet) on 127.0.0.1; return its address.

    No dashboard, ``num_cpus`` CPUs, a small object store, usage stats off, Ray's temp dir in
    the private ``TMPDIR``. ``ray.init(address=...)`` with the returned ``"127.0.0.1:port"``
    connects a driver (to this node: Ray prefers the head among nodes on one address).
    ``fast_health_checks`` applies :data:`FAST_HEALTH_CHECK_ENV` to the GCS.
    """
    _require_namespace("start_head")
    _ray(
        "start",
        "--head",
        f"--port={port}",
        "--include-dashboard=false",
        *_node_flags(num_cpus, resources),
        env=FAST_HEALTH_CHECK_ENV if fast_health_checks else None,
    )
    return f"127.0.0.1:{port}"


@dataclasses.dataclass(frozen=True)
class NodeHandle:
    """A worker node started by :func:`start_worker`."""

    address: str
    """Address of the head node it joined."""
    temp_dir: str
    """Its own Ray temp dir: the processes of this node, and only those, name it."""
    resources: dict[str, float]
    """Its custom resources, to place tasks and actors on it."""

    def pids(self) -> list[int]:
        """PIDs of this node's live processes: its raylet, log monitor, agents and workers."""
        return _node_pids(self.temp_dir)


def start_worker(
    address: str,
    num_cpus: int = 1,
    resources: Mapping[str, float] | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
) -> NodeHandle:
    """Start one more node on this machine (127.0.0.1) and join it to the head at ``address``.

    Give it a custom resource (say ``{"node2": 1}``) to place work on it. ``temp_dir`` is its
    own Ray temp dir (a fresh one under ``TMPDIR`` if None), by which :func:`kill_node` finds
    its processes; keep it short, Ray's socket paths live under it.
    """
    _require_namespace("start_worker")
    if temp_dir is None:
        temp_dir = tempfile.mkdtemp(prefix="node-")
    temp_dir = os.path.realpath(temp_dir)
    os.makedirs(temp_dir, exist_ok=True)
    _ray(
        "start",
        f"--address={address}",
        f"--temp-dir={temp_dir}",
        *_node_flags(num_cpus, resources),
    )
    return NodeHandle(address, temp_dir, dict(resources or {}))


def _proc_table() -> dict[int, tuple[int, str, list[str]]]:
    """pid -> (parent pid, state letter, argv) of every process this namespace's /proc shows."""
    table: dict[int, tuple[int, str, list[str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            raw = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
        argv = [part.decode(errors="replace") for part in raw.split(b"\0") if part]
        table[int(entry)] = (int(ppid), state, argv)
    return table


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def _node_pids(temp_dir: str) -> list[int]:
    """Live processes naming ``temp_dir`` on their command line, and all their descendants."""
    marker = temp_dir.rstrip("/") + "/"
    table = _proc_table()
    found = {
        pid
        for pid, (_, state, argv) in table.items()
        if state not in "ZX" and any(marker in arg or arg.endswith(marker[:-1]) for arg in argv)
    }
    grew = True
    while grew:
        more = {
            pid for pid, (ppid, state, _) in table.items() if ppid in found and state not in "ZX"
        }
        grew = not more <= found
        found |= more
    found.discard(os.getpid())
    return sorted(found)


def _kill_and_wait(pids: Sequence[int], timeout: float) -> list[int]:
    """SIGKILL ``pids``; return those still alive after ``timeout`` seconds."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    left = [pid for pid in pids if _alive(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = [pid for pid in left if _alive(pid)]
    return left


def kill_node(handle: NodeHandle, timeout: float = 10.0) -> list[int]:
    """SIGKILL every process of the node at once (raylet, its agents and workers, its log
    monitor), as if its machine lost power; return their PIDs once all are gone.

    The head and the other nodes are untouched; the cluster learns of the death only through
    its own health checks.
    """
    _require_namespace("kill_node")
    pids = handle.pids()
    if not pids:
        raise RuntimeError(f"no live process of the node with temp dir {handle.temp_dir}")
    left = _kill_and_wait(pids, timeout)
    if left:
        raise RuntimeError(f"processes of the killed node still alive after {timeout} s: {left}")
    return pids


def ray_pids() -> list[int]:
    """Live Ray processes in this namespace other than this one: the daemons (named by their
    path in the ray package) and workers and agents (named ``ray::...``). Inside only."""
    _require_namespace("ray_pids")
    package = _ray_package_dir()
    me = os.getpid()
    pids = []
    for pid, (_, state, argv) in _proc_table().items():
        if pid == me or state in "ZX" or not argv:
            continue
        if argv[0].startswith("ray::") or (package and any(package in arg for arg in argv)):
            pids.append(pid)
    return sorted(pids)


def stop_all(timeout: float = 30.0) -> None:
    """Disconnect this driver (if connected), stop every Ray process (``ray stop --force``),
    and make sure none is left: stragglers are SIGKILLed, and RuntimeError is raised if any
    survives that."""
    _require_namespace("stop_all")
    if "ray" in sys.modules:
        ray = sys.modules["ray"]
        if ray.is_initialized():
            ray.shutdown()
    _ray("stop", "--force", timeout=timeout)
    stragglers = ray_pids()
    left = _kill_and_wait(stragglers, timeout) if stragglers else []
    if left:
        raise RuntimeError(f"Ray processes still alive after ray stop --force and SIGKILL: {left}")


def wait_for_resource(name: str, amount: float = 1.0, timeout: float = 30.0) -> float:
    """Wait until the connected cluster has ``amount`` of resource ``name`` (a node's custom
    resource, say); return the seconds waited. Needs ``ray.init`` done; raises TimeoutError."""
    import ray

    start = time.monotonic()
    while ray.cluster_resources().get(name, 0.0) < amount:
        if time.monotonic() - start > timeout:
            raise TimeoutError(
                f"resource {name!r} not in the cluster after {timeout} s: {ray.cluster_resources()}"
            )
        time.sleep(0.05)
    return time.monotonic() - start


# --- drivers: a script run inside the namespace that prints one JSON result ----------------------

#: The line prefix of a driver's result.
RESULT = "RESULT "


def finish_driver(main: Callable[[], None], out: dict[str, Any]) -> None:
    """Inside: run ``main`` (which fills ``out``), record its traceback if it fails, stop every
    Ray process, print ``out`` as the driver's result line and exit (1 on any failure)."""
    import traceback

    try:
        main()
    except BaseException:
        out["error"] = traceback.format_exc()
    try:
        stop_all()
        out["left_after_stop_all"] = ray_pids()
    except BaseException:
        out["stop_error"] = traceback.format_exc()
    print(RESULT + json.dumps(out), flush=True)
    sys.exit(1 if "error" in out or "stop_error" in out else 0)


def run_driver_script(
    argv: Sequence[str], *, timeout: float, cwd: str | os.PathLike[str], pythonpath: Sequence[str]
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """Outside: run a driver (which ends with :func:`finish_driver`) in a fresh loopback
    namespace and return its result and the process; AssertionError (with its output) if it
    printed none, failed, left a Ray process or left any process in its namespace."""
    path = os.pathsep.join([*pythonpath, *filter(None, [os.environ.get("PYTHONPATH")])])
    try:
        done = run_in_loopback_namespace(argv, timeout=timeout, env={"PYTHONPATH": path}, cwd=cwd)
    except subprocess.TimeoutExpired as exc:
        output = [o.decode() if isinstance(o, bytes) else o or "" for o in (exc.stdout, exc.stderr)]
        raise AssertionError(
            f"driver timed out after {timeout} s\n{output[0]}\n{output[1]}"
        ) from None
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    where = f"exit status {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert lines, f"the driver printed no result; {where}"
    out: dict[str, Any] = json.loads(lines[-1].removeprefix(RESULT))
    assert "error" not in out, f"{out['error']}\n{where}"
    assert "stop_error" not in out, f"{out['stop_error']}\n{where}"
    assert done.returncode == 0, where
    assert out["left_after_stop_all"] == [], "stop_all left Ray processes running"
    if "pidns" in out:  # the namespace is gone with its driver: no process is still inside
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    pidns = os.readlink(proc / "ns" / "pid")
                except OSError:
                    continue
                assert pidns != out["pidns"], f"process {proc.name} outlived the namespace"
    return out, done
