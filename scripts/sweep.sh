#!/usr/bin/env bash
# The sustained-load sweep, the load curve (about 7 minutes): every server at 1-1024 connections, 16-deep
# pipelining, and an open loop at fixed rates in rounds, with server CPU, RSS, syscalls per
# request, steal, and the platform's hiccups beside the open loop's tails. Writes
# results/sweep.md, results/sweep.json and results/sweep_*.svg.
#   scripts/sweep.sh                  # 3 s per point, 3 open-loop rounds (the default)
#   scripts/sweep.sh --seconds 1      # a quicker look (or SWEEP_SECONDS=1)
#   scripts/sweep.sh --open-rounds 5  # more open-loop rounds (or SWEEP_OPEN_ROUNDS=5)
#   scripts/sweep.sh --server-cpus 0-3 --client-cpus 4-7 --server-threads 2
#   scripts/sweep.sh --help
# perf (apt-get install linux-perf) adds syscalls per request; without it they are n/a.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin sweep -- "$@"
