#!/usr/bin/env bash
# The large-body study (about 4 minutes with the defaults): every server echoes 64 KiB and
# 1 MiB bodies, with Content-Length and chunked in 512-byte pieces, over rounds of
# freshly started servers in a balanced order, each point cut into slices alternated
# between the servers, with an A/A control. Writes results/bodies.md and results/bodies.json and its BENCHMARKS.md section.
#   scripts/bodies.sh                          # 5 rounds of 2 s per point, each in 4 slices (the default)
#   scripts/bodies.sh --rounds 3 --seconds 1   # a quicker look
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin bodies -- "$@"
