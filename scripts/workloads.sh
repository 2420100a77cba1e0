#!/usr/bin/env bash
# The workloads study: for which workload is io_uring worth it? Every server runs every
# workload (keep-alive, one connection, 64 KiB echo, 20 MiB uploads, 16 KiB-1 MiB
# responses, 4 KiB and 1 MiB files, churn, TLS, idle connections; every cost at 50% of
# capacity, offered open-loop, its saturated closed loop shown as capacity; pipelining and
# 4 and 16 connections in the details only; how a cost moves with the load is
# scripts/sweep.sh's and scripts/churn.sh's) over interleaved rounds. The same rounds hold
# the ready io_uring runtimes (tokio-uring, monoio, compio) and io_uring_server's feature
# rows, so the verdict, the runtime table and the feature table read one results file. After
# the verdict's rows come the rows beyond it, judged by the same rule at fixed rates: 64 KiB
# and 1 MiB echoes with Content-Length and chunked, 64 KiB files, and files read cold. Writes
# results/workloads.{md,json}, an SVG per workload, results/runtimes.md,
# results/features.md and their sections of BENCHMARKS.md (the verdict at the top; large
# bodies and serving files for the rows beyond it).
#   scripts/workloads.sh                           # 6 rounds of 1.25 s per point, up to 7 where undecided, 4 slices (about 60 minutes)
#   scripts/workloads.sh --rounds 2 --seconds 1    # a quicker look
#   scripts/workloads.sh --only churn              # one family of workloads (repeat --only for more): results/partial/workloads.{md,json}
#   scripts/workloads.sh --server 'mine=./my_server --port {port}'  # your server in the lineup: results/partial/workloads.{md,json}
#   scripts/workloads.sh --max-rounds 12           # and up to 12 rounds for a workload the rule has not decided
#   scripts/workloads.sh --render                  # no measuring: every view written again from results/workloads.json
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin workloads -- "$@"
