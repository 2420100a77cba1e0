#!/usr/bin/env bash
# Why the numbers differ (about 8 minutes with the defaults, after the build): every
# server serves the same load of each workload (the verdict rows keep-alive, keep-alive and
# full-handshake churn over TLS, 16-deep pipelining, the 64 KiB echo, 256 KiB responses and
# churn in both who-closes patterns, each at its row's rate; hot 4 KiB and 1 MiB files) while
# `perf record -e cpu-clock -g` samples the server CPU; each sample is put in a category
# (lab/src/profiles/classify.rs). Writes results/profiles.md, results/profiles.json,
# a flame graph per workload and server under results/profiles/, and the "Why the numbers
# differ" section of BENCHMARKS.md. Needs perf and readable kernel symbols; without them
# it says so in one line and exits 1.
#   scripts/profiles.sh                  # 2.5 s per profile, at each verdict row's rate (as committed)
#   scripts/profiles.sh --seconds 1.5    # a quicker look
#   scripts/profiles.sh --only churn     # one family of workloads
#   scripts/profiles.sh --render         # no measuring: the tables written again from results/profiles.json
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin profiles -- "$@"
