#!/usr/bin/env bash
# The io_uring feature ablation (about 28 minutes): io_uring_server with its features added
# one at a time, plus tokio's engines, 5 interleaved rounds of closed loop (256
# connections), 16-deep pipelining and an open loop at a fixed rate, each point cut into 4
# slices alternated between the servers. Writes
# results/ablation.md, results/ablation.json and the ablation section of BENCHMARKS.md.
#   scripts/ablation.sh
#   scripts/ablation.sh --seconds 2 --rounds 1   # a quick look (or ABLATION_SECONDS, ABLATION_ROUNDS)
#   scripts/ablation.sh --rate 60000             # another fixed rate (or ABLATION_RATE)
#   scripts/ablation.sh --render                 # re-render results/ablation.md from its json
#   scripts/ablation.sh --help
# perf (apt-get install linux-perf) adds syscalls per request; without it they are n/a.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin ablation -- "$@"
