#!/usr/bin/env bash
# The concurrency scan (about 17 minutes): a closed loop of GET / at 1, 2, 4, 8, 16, 32, 64,
# 128, 256 and 1024 connections for every server, io_uring_server with batched waits on, an
# A/A control (a second io_uring_server), the floors and nginx (when installed), in 5 rounds
# of freshly started servers whose order is balanced, each point cut into 4 slices
# alternated between the servers; requests/s, server CPU per request, p50/p99 and how busy the client
# was at every point; then loadgen calibrated against wrk (when installed). Writes
# results/scan.md, results/scan.json and results/scan_*.svg.
#   scripts/scan.sh                   # 5 rounds of 2 s per point
#   scripts/scan.sh --seconds 1 --rounds 1   # a quick look (or SCAN_SECONDS, SCAN_ROUNDS)
#   scripts/scan.sh --help
# apt-get install wrk nginx adds the calibration and the outside anchor.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin scan -- "$@"
