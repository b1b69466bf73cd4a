"""Random-play stepping of the batched env (:mod:`boardzoo.vector`), on one core.

    python benchmarks/bench_vector_env.py                       # Reversi 8x8, 256/1024/4096 envs
    python benchmarks/bench_vector_env.py --game connect_four --num-envs 1024
    python benchmarks/bench_vector_env.py --pgx-python /tmp/pgxenv/bin/python   # pgx, same run

Figures, printed, nothing asserted (results, with the machine and date:
``docs/guides/environments.md``):

- env steps/s: ``envs.step`` calls x ``num_envs`` per second, the learner's actions drawn
  uniformly among the legal ones by a compiled sampler from the last ``info["action_mask"]``
  (the loop a user writes; the sampler's own time is shown apart and included); the opponent
  inside the step is ``random``. One env step is two plies (the learner's and the opponent's),
  so plies/s are shown too: pgx counts one ply a step;
- the same for the single env in a ``SyncVectorEnv`` (Gymnasium's loop over copies), as the
  reference of what the batching buys;
- pgx's Othello (``pgx.make("othello")``, ``jax.jit(jax.vmap(env.step))`` on the CPU, random
  legal actions drawn with ``jax.random.categorical`` on the mask), when a Python with pgx is
  given: it runs in that interpreter, pinned to the same core, in the same run.

The process pins itself to one core (``os.sched_setaffinity``). Medians of ``--repeats`` timed
windows of ``--seconds`` each, after a warm-up (compiling excluded).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np
from numba import njit

PGX_SCRIPT = r"""
import json, os, sys, time
os.sched_setaffinity(0, {int(sys.argv[3])})
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
import jax, jax.numpy as jnp, pgx
n, seconds = int(sys.argv[1]), float(sys.argv[2])
env = pgx.make("othello")
init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))

@jax.jit
def act(key, state):
    key, sub = jax.random.split(key)
    logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
    return key, jax.random.categorical(sub, logits, axis=-1)

key = jax.random.PRNGKey(0)
state = init(jax.random.split(key, n))
for _ in range(20):  # compile and warm up
    key, action = act(key, state)
    state = step(state, action)
state.observation.block_until_ready()
rates = []
for _ in range(int(sys.argv[4])):
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        key, action = act(key, state)
        state = step(state, action)
        steps += 1
    state.observation.block_until_ready()
    rates.append(steps * n / (time.perf_counter() - start))
print(json.dumps({"rates": rates, "version": pgx.__version__}))
"""


@njit(cache=True)
def random_legal(mask: np.ndarray, seed: int) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (0 for a row with none)."""
    np.random.seed(seed)
    actions = np.zeros(mask.shape[0], dtype=np.int64)
    for i in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[i, a]
        if count == 0:
            continue
        k = np.random.randint(count)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if k == 0:
                    actions[i] = a
                    break
                k -= 1
    return actions


def timed_windows(envs: Any, seconds: float, repeats: int) -> dict[str, float]:
    """Env steps/s of a random-play loop, and the share of the sampler's time."""
    _, info = envs.reset(seed=0)
    for tick in range(20):  # warm-up: compiling and caches
        *_, info = envs.step(random_legal(info["action_mask"], tick))
    rates, sampler_share = [], []
    for repeat in range(repeats):
        steps, sampling = 0, 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            before = time.perf_counter()
            actions = random_legal(info["action_mask"], repeat * 1_000_003 + steps)
            sampling += time.perf_counter() - before
            *_, info = envs.step(actions)
            steps += 1
        elapsed = time.perf_counter() - start
        rates.append(steps * envs.num_envs / elapsed)
        sampler_share.append(sampling / elapsed)
    return {"rate": statistics.median(rates), "sampler": statistics.median(sampler_share)}


def pgx_rates(python: str, num_envs: int, seconds: float, repeats: int, core: int) -> Any:
    """pgx Othello steps/s measured by ``python`` (an interpreter with pgx and jax)."""
    done = subprocess.run(
        [python, "-c", PGX_SCRIPT, str(num_envs), str(seconds), str(core), str(repeats)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        return f"pgx failed: {done.stderr.strip().splitlines()[-1:]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"rate": statistics.median(result["rates"]), "version": result["version"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="reversi")
    parser.add_argument("--board-size", type=int, default=8, help="Reversi only")
    parser.add_argument("--num-envs", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--seconds", type=float, default=2.0, help="a timed window")
    parser.add_argument("--repeats", type=int, default=5, help="timed windows a figure")
    parser.add_argument("--sync-envs", type=int, default=64, help="SyncVectorEnv size (0: skip)")
    parser.add_argument("--pgx-python", default="", help="a Python with pgx and jax installed")
    args = parser.parse_args()

    import gymnasium

    import boardzoo
    from boardzoo.games.catalog import get_game

    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    spec = get_game(args.game)
    options = {"board_size": args.board_size} if spec.options else {}
    print(
        f"boardzoo {boardzoo.__version__}, python {sys.version.split()[0]}, pinned to core {core}"
        f"; {args.game} {options or ''}, random learner vs random opponent, medians of "
        f"{args.repeats} windows of {args.seconds:g} s"
    )
    print(f"{'env':<28}{'num_envs':>9}{'env steps/s':>14}{'plies/s':>14}{'sampler':>9}")
    for n in args.num_envs:
        envs = gymnasium.make_vec(
            spec.gym_id, num_envs=n, vectorization_mode="vector_entry_point",
            opponent="random", **options,
        )  # fmt: skip
        figure = timed_windows(envs.unwrapped, args.seconds, args.repeats)
        print(
            f"{'boardzoo batched':<28}{n:>9}{figure['rate']:>14,.0f}{2 * figure['rate']:>14,.0f}"
            f"{figure['sampler']:>9.0%}"
        )
    if args.sync_envs:
        envs = gymnasium.make_vec(
            spec.gym_id, num_envs=args.sync_envs, vectorization_mode="sync",
            opponent="random", **options,
        )  # fmt: skip
        figure = timed_windows(envs, args.seconds, max(1, args.repeats // 2))
        print(
            f"{'single env, SyncVectorEnv':<28}{args.sync_envs:>9}{figure['rate']:>14,.0f}"
            f"{2 * figure['rate']:>14,.0f}{figure['sampler']:>9.0%}"
        )
    if args.pgx_python:
        if args.game != "reversi" or args.board_size != 8:
            print("pgx: only Reversi 8x8 (pgx's othello) is compared")
            return
        for n in args.num_envs:
            result = pgx_rates(args.pgx_python, n, args.seconds, args.repeats, core)
            if isinstance(result, str):
                print(result)
                break
            label = f"pgx {result['version']} othello"
            print(f"{label:<28}{n:>9}{result['rate']:>14,.0f}{result['rate']:>14,.0f}{'-':>9}")
    else:
        print("pgx: not measured (no --pgx-python)")


if __name__ == "__main__":
    main()
