#!/usr/bin/env bash
# The io_uring feature ablation (about 13 minutes): io_uring_server with its features added
# one at a time, plus tokio's engines, 5 interleaved rounds of closed loop (256
# connections), 16-deep pipelining and an open loop at a fixed rate. Writes
# results/ablation.md, results/ablation.json and the ablation section of BENCHMARKS.md.
#   scripts/ablation.sh
#   ABLATION_SECONDS=2 ABLATION_ROUNDS=1 scripts/ablation.sh   # a quick look
#   ABLATION_RATE=60000 scripts/ablation.sh                    # another fixed rate
#   scripts/ablation.sh --render     # re-render results/ablation.md from its json
# perf (apt-get install linux-perf) adds syscalls per request; without it they are n/a.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p benches --bin ablation -- "$@"
