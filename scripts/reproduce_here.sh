#!/usr/bin/env bash
# Reproduces the verdict's core rows on this machine and adds (or replaces) its column in
# results/machines.md: the workloads study on those rows only (lab::machines::CORE_WORKLOADS:
# one connection, plain and over TLS, and the fixed-rate rows of keep-alive small requests,
# keep-alive over TLS, churn with the server closing, 4 KiB files at 16 connections, the
# 64 KiB echo and 20 MiB uploads), its report in results/partial/reproduce_here.{md,json},
# then its core rows kept as results/machines/<cpu-model-and-kernel>.json and the page
# rendered again from every run kept there. Run it whenever the project is measured on a
# CPU model the table lacks. Nothing else should run on the machine meanwhile.
#   scripts/reproduce_here.sh                 # about 17 minutes on 2 CPUs once built (the run at 0c951b6); a fresh clone builds first, about 9 more
#   scripts/reproduce_here.sh --allow-dirty   # measure a tree with uncommitted changes (the record names them)
# How long: in the full run at 5a4ee6c (results/workloads.json, 2 CPUs) the points of these
# workloads took 13.7 of its 39.6 minutes (each sample's start time to the next one's); their
# 6 calibrations add about 1.5 minutes (1.5 s flat out per calibrated server and 1.5 s of
# client probe each, with the servers' starts), and the build, when not yet done, a few
# minutes more: within the 20-minute target, and about 18 minutes if every row needed its
# 7th round.
set -euo pipefail
cd "$(dirname "$0")/.."
only=(
  --only "one connection"
  --only "keep-alive, small requests at a fixed rate"
  --only "keep-alive over TLS at a fixed rate"
  --only "churn, server closes at a fixed rate"
  --only "4 KiB files, 16 connections at a fixed rate"
  --only "64 KiB echo at a fixed rate"
  --only "20 MiB uploads at a fixed rate"
)
out=results/partial/reproduce_here
started=$(date +%s)
scripts/workloads.sh "${only[@]}" --out "$out" "$@"
cargo run --release -q -p lab --bin machines -- --add "$out.json"
echo "reproduce_here: $(( ($(date +%s) - started) / 60 )) min; results/machines.md has this machine's column"
