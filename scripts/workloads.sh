#!/usr/bin/env bash
# The workloads study: for which workload is io_uring worth it? Every server runs every
# workload (keep-alive, pipelined, one connection, 4 and 16 connections, 64 KiB echo, large responses, churn,
# idle connections; keep-alive, the echo and churn also at 25/50/75% of capacity, offered
# open-loop) over interleaved rounds. Writes results/workloads.md, .json, an SVG per
# workload, the verdict at the top of BENCHMARKS.md, its forest plot (results/verdict.svg)
# and the answer block at the top of README.md and BENCHMARKS.md.
#   scripts/workloads.sh                           # 8 rounds of 2 s per point, up to 16 where undecided, each point in 4 slices (as committed; about 31 minutes)
#   scripts/workloads.sh --rounds 2 --seconds 1    # a quicker look
#   scripts/workloads.sh --only churn              # one family of workloads
#   scripts/workloads.sh --max-rounds 20           # and up to 20 rounds for a workload the rule has not decided
#   scripts/workloads.sh --render                  # no measuring: the report written again from results/workloads.json
#   scripts/workloads.sh --features --seconds 2    # io_uring features where each is meant to pay (about 10 minutes)
#                                                  # (results/features.md and its BENCHMARKS.md section)
#   scripts/workloads.sh --runtimes                # which io_uring runtime: io_uring_server, tokio-uring, monoio, compio
#                                                  # ÷ the tokio codec, 6 rounds (results/runtimes.md; about 25 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin workloads -- "$@"
