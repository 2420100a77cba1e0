#!/usr/bin/env bash
# The scaling study: capacity and server CPU per request against the cores each server
# is given (1, 2, 4, ... up to the server CPUs), one worker per core, kept-alive small
# requests flat out, 64 connections per core, over rounds in a balanced order. Writes
# results/scaling.md, .json, results/scaling.svg (from two core counts on) and the scaling
# section of BENCHMARKS.md. With the default split on 2 CPUs the servers get one CPU: one
# point, no curve.
#   scripts/scaling.sh --render                               # the views again from results/scaling.json
#   scripts/scaling.sh                                        # the default split (server on CPU 0, client on the rest)
#   scripts/scaling.sh --server-cpus 0-7 --client-cpus 8-15   # on a bigger machine: 1, 2, 4 and 8 cores
#   scripts/scaling.sh --server 'mine=./my_server --threads {threads} --port {port}'   # yours beside ours: results/partial/scaling/
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin scaling -- "$@"
