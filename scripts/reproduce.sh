#!/usr/bin/env bash
# Regenerates every artifact under results/ (and the generated sections of BENCHMARKS.md)
# at the commit checked out, one study after another, each with the defaults its
# committed results were made with: cargo bench, the workloads study, its runtime and
# feature passes, the churn study, the large-body study, the file study, the profiles (when perf is
# installed), the sweep, the concurrency scan and the ablation. About 3 hours 10 minutes on
# 2 CPUs with six contenders (measured here at 916096b-4f84727: workloads 33, runtimes 21,
# churn 25, scan 21, sweep 12, bodies 10; at e537fbb-7bde094: files 18-21, profiles 6,
# cargo bench 7.5; at 60129ea with four: features 10, ablation 28); nothing else should
# run on the machine meanwhile.
#   scripts/reproduce.sh           # everything
#   scripts/reproduce.sh --list    # the steps, without running them
# Each study's header names the commit (with "uncommitted changes" if the tree was dirty),
# the machine, the kernel and the CPU steal seen during that study. At the end the script
# prints how long each step took and `git status`, which should list only results/ and
# BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# The answer first (cargo bench's short verdict, then the full verdict), the studies that
# explain it after, so a run cut short still leaves the verdict regenerated.
steps=(
  "cargo bench"
  "scripts/workloads.sh"
  "scripts/workloads.sh --runtimes"
  "scripts/churn.sh"
  "scripts/bodies.sh"
  "scripts/files.sh"
  "scripts/workloads.sh --features --seconds 2"
  "scripts/profiles.sh"
  "scripts/sweep.sh"
  "scripts/scan.sh"
  "scripts/ablation.sh"
)
# Minutes each step took here (2 CPUs, already built): the estimate of what is left.
minutes=(8 33 21 25 10 20 10 6 12 21 28)
if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${steps[@]}"
  exit 0
fi

if [ -n "$(git status --porcelain --untracked-files=no -- . ':!results' ':!BENCHMARKS.md')" ]; then
  echo "reproduce: the tree has uncommitted changes; every result will say so" >&2
fi
echo "reproduce: commit $(git rev-parse --short HEAD), $(uname -r), $(nproc) CPUs"

timings=()
started_all=$(date +%s)
for i in "${!steps[@]}"; do
  step=${steps[$i]}
  left=0
  for m in "${minutes[@]:$i}"; do left=$((left + m)); done
  echo "reproduce: step $((i + 1))/${#steps[@]}: $step (about ${minutes[$i]} min;" \
    "$(( ($(date +%s) - started_all) / 60 )) min elapsed, about $left min left)"
  if [ "$step" = "scripts/profiles.sh" ] && ! command -v perf >/dev/null 2>&1; then
    echo "reproduce: perf is not installed (apt-get install -y linux-perf): results/profiles.* left as they are"
    timings+=("skipped  $step")
    continue
  fi
  started=$(date +%s)
  $step
  timings+=("$(( ($(date +%s) - started) / 60 )) min $(( ($(date +%s) - started) % 60 )) s  $step")
done

echo
echo "reproduce: done"
printf '  %s\n' "${timings[@]}"
git status --short
