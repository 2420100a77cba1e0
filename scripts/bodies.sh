#!/usr/bin/env bash
# The large-body study (about 8 minutes with the defaults): every server echoes 64 KiB and
# 1 MiB bodies, with Content-Length and chunked in 512-byte pieces, over interleaved
# rounds. Writes results/bodies.md and results/bodies.json.
#   scripts/bodies.sh                          # 3 rounds of 4 s per point
#   scripts/bodies.sh --rounds 5 --seconds 6   # a steadier look
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p benches --bin bodies -- "$@"
