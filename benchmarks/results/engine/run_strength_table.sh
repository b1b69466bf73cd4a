#!/bin/bash
# The engine's strength table: an agent at 1 s a move against the reference (the engine at
# depth 10, full width, with the exact solver from 20 empties), 20 games from the XOT openings,
# colours swapped per opening. Usage: bash benchmarks/results/engine/run_strength_table.sh NAME SPEC
#   e.g. ... engine-probcut "engine:time_limit=1,probcut=1.5"
# The records here were made when the engine's probcut default was 0: their reference spec has no
# probcut=0, which it now needs to search full width.
cd "$(dirname "$0")/../../.."
REF="engine:time_limit=none,depth=10,exact_empties=20,probcut=0"
OPEN=../shared/openings/xot-small.txt
run() {
  name=$1; spec=$2
  timeout 3000 .venv/bin/boardzoo arena reversi "$spec" "$REF" --openings $OPEN --games 20 --seed 29 \
    --workers 1 --out benchmarks/results/engine/$name.jsonl --resume > benchmarks/results/engine/$name.txt 2>&1
}
run "$@"
