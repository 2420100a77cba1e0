#!/usr/bin/env bash
# Why the numbers differ (about 2-3 minutes with the defaults, after the build): every
# server serves the same offered load of each workload (keep-alive at 256 connections,
# 16-deep pipelining, 64 KiB echo, 256 KiB responses, churn in both who-closes patterns) while
# `perf record -e cpu-clock -g` samples the server CPU; each sample is put in a category
# (lab/src/profiles/classify.rs). Writes results/profiles.md, results/profiles.json,
# a flame graph per workload and server under results/profiles/, and the "Why the numbers
# differ" section of BENCHMARKS.md. Needs perf and readable kernel symbols; without them
# it says so in one line and exits 1.
#   scripts/profiles.sh                  # 3 s per profile after a 1 s calibration (as committed)
#   scripts/profiles.sh --seconds 1.5    # a quicker look
#   scripts/profiles.sh --only churn     # one family of workloads
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin profiles -- "$@"
