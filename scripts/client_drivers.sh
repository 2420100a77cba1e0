#!/usr/bin/env bash
# The client's two drivers side by side (issue 70): io_uring_server is offered each
# fixed-rate row of the workloads study that loadgen's ring drives, at the rate that study
# offered it (results/workloads.json: run scripts/workloads.sh first), once by loadgen's
# tokio driver (every study's driver before) and once by its ring (the studies' driver
# now), in every round, each point cut into slices alternated between the two. Writes
# results/client_drivers.md, .json and the client-drivers section of BENCHMARKS.md's
# method: the client's and the server's CPU per request with each driver, and how late the
# sends left. About 2 minutes (3 rounds of 1 s per point, within scripts/reproduce.sh's
# 100 minutes; more with --rounds and --seconds).
#   scripts/client_drivers.sh             # 3 rounds of 1 s per point
#   scripts/client_drivers.sh --rounds 4 --seconds 1.25   # as the committed results/client_drivers.md
#   scripts/client_drivers.sh --render    # the views again from results/client_drivers.json
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin client_drivers -- "$@"
