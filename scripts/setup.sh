#!/usr/bin/env bash
# Create .venv and install boardzoo with everything its tests, benchmarks and experiments use.
# CPU-only PyTorch is installed first so that no later requirement pulls the CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet torch==2.13.0
.venv/bin/python -m pip install --quiet -e ".[dev]"
