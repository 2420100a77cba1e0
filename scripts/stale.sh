#!/usr/bin/env bash
# Writes a STALE line above every report made before the benchmarked code last changed (and
# removes those that no longer apply), in results/*.md and BENCHMARKS.md, and the COMMITS
# line near the top of BENCHMARKS.md: one commit for every generated part, or which parts
# were made at which and which are stale. `--check` changes nothing and fails if a line is
# missing or wrong, as .ci/run does.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p harness --bin stale -- "$@"
# results/machines.md marks a column whose benchmarked code changed since: rendered again here.
check=()
for arg in "$@"; do [ "$arg" = --check ] && check=(--check); done
cargo run -q -p lab --bin machines -- "${check[@]}"
