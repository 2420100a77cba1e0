#!/usr/bin/env bash
# Cross-checks loadgen against wrk: the same server, connections and duration, both
# closed loop, each pinned to CLIENT_CPU with the server on SERVER_CPU. The two
# requests/s figures should agree within about 10%.
#   scripts/cross_check.sh                        # io_uring_server, 256 connections, 10 s
#   SERVER=tokio_server ARGS="--engine codec" CONNS=64 scripts/cross_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER=${SERVER:-io_uring_server}
ARGS=${ARGS:-}
CONNS=${CONNS:-256}
DURATION=${DURATION:-10}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-18095}

if ! command -v wrk >/dev/null; then
  apt-get install -y wrk >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1) || true
fi
if ! command -v wrk >/dev/null; then
  echo "cross_check: skipped: wrk is not installed and could not be installed (apt-get install wrk)"
  exit 0
fi

# The build the harness makes (harness/src/servers/mod.rs): the same binary, not one with
# other features over it.
cargo build --profile bench -q --workspace --benches --bin "$SERVER" --bin loadgen
# shellcheck disable=SC2086
taskset -c "$SERVER_CPU" "target/release/$SERVER" $ARGS --threads 1 --addr "127.0.0.1:$PORT" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done

wrk_rps=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${DURATION}s" "http://127.0.0.1:$PORT/" | awk '/Requests\/sec/ {print $2}')
loadgen_rps=$(taskset -c "$CLIENT_CPU" target/release/loadgen "http://127.0.0.1:$PORT/" -c "$CONNS" \
  --duration-secs "$DURATION" --expect-body-len 13 | awk -F': ' '/requests_per_sec/ {gsub(",", "", $2); print $2}')
awk -v w="$wrk_rps" -v l="$loadgen_rps" -v s="$SERVER $ARGS" -v c="$CONNS" 'BEGIN {
  printf "%s, %s connections: wrk %.0f req/s, loadgen %.0f req/s, loadgen/wrk = %.3f\n", s, c, w, l, l / w }'
