#!/usr/bin/env bash
# Create .venv and install boardzoo with everything its tests, benchmarks and experiments use,
# then compile and cache every numba kernel, so the first game compiles nothing.
# CPU-only PyTorch is installed first so that no later requirement pulls the CUDA build.
# Safe to run again: an existing .venv is reused and brought up to date.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> [%s/4] %s\n' "$1" "$2"; }

if [ -x .venv/bin/python ]; then
    step 1 "reusing the existing .venv"
else
    step 1 "creating .venv"
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --progress-bar on --upgrade pip

step 2 "installing torch (CPU build, about 200 MB to download the first time)"
.venv/bin/python -m pip install --progress-bar on torch==2.13.0

step 3 "installing boardzoo in editable mode with its test, RL, docs and dev tools, and Ray"
.venv/bin/python -m pip install --progress-bar on -e ".[dev,ray]"

step 4 "compiling the numba kernels of every game and agent (first time: a few minutes)"
.venv/bin/python -m boardzoo.warmup

printf '\nboardzoo is ready: .venv/bin/boardzoo --help\n'
