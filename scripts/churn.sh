#!/usr/bin/env bash
# The churn study: a new connection per request, in both who-closes patterns, at several
# loads: closed loops at 1, 8, 32 and 128 clients and open loops at fixed connection
# rates, every server and an A/A control over rounds of freshly started servers. Writes results/churn.md, .json,
# results/churn_cpu.svg and the churn section of BENCHMARKS.md.
#   scripts/churn.sh                             # 3 rounds of 2 s per point, each in 4 slices (the default; about 8 minutes)
#   scripts/churn.sh --rounds 1 --seconds 1      # a quicker look
#   scripts/churn.sh --only "client closes"      # one pattern ("clients": the closed loops, "connections/s": the open ones)
#   scripts/churn.sh --render                    # no measuring: every view written again from results/churn.json
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin churn -- "$@"
