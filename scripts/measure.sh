#!/usr/bin/env bash
# A quick side-by-side with wrk: every contender pinned to SERVER_CPU, wrk pinned to
# CLIENT_CPU, interleaved over ROUNDS rounds, at CONNS connections, plain and pipelined.
# Prints requests/s and server CPU microseconds per request (utime+stime of the server
# process from /proc/PID/stat, divided by the requests wrk completed).
#
#   scripts/measure.sh                 # defaults below; also writes results/measure.md
#   DURATION=5 ROUNDS=1 scripts/measure.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-256}
DEPTH=${DEPTH:-16}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-18090}

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
cargo build --release -q -p tokio_server -p io_uring_server -p tokio_uring_server

declare -A CONTENDERS=(
  [tokio-hyper]="target/release/tokio_server --engine hyper"
  [tokio-codec]="target/release/tokio_server --engine codec"
  [io_uring]="target/release/io_uring_server"
  [tokio-uring]="target/release/tokio_uring_server"
)
ORDER=(tokio-hyper tokio-codec io_uring tokio-uring)
CLK_TCK=$(getconf CLK_TCK)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run_one() { # name mode -> "req/s cpu_us_per_req"
  local name=$1 mode=$2 pid out ticks0 ticks1 requests rps
  taskset -c "$SERVER_CPU" ${CONTENDERS[$name]} --threads 1 --addr "127.0.0.1:$PORT" >/dev/null &
  pid=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done
  local script=()
  [ "$mode" = pipelined ] && script=(-s scripts/pipeline.lua)
  ticks0=$(cpu_ticks $pid)
  out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${DURATION}s" "${script[@]}" "http://127.0.0.1:$PORT/" -- "$DEPTH")
  ticks1=$(cpu_ticks $pid)
  kill -TERM $pid; wait $pid || true
  if grep -qE "Non-2xx|Socket errors" <<<"$out"; then echo "$name $mode: wrk saw errors:" >&2; echo "$out" >&2; exit 1; fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  awk -v r="$rps" -v n="$requests" -v t=$((ticks1 - ticks0)) -v hz="$CLK_TCK" \
    'BEGIN { printf "%.0f %.2f\n", r, t / hz * 1e6 / n }'
}

declare -A RESULTS
for round in $(seq "$ROUNDS"); do
  for mode in plain pipelined; do
    for name in "${ORDER[@]}"; do
      RESULTS[$name,$mode]+="$(run_one "$name" "$mode");"
      echo "round $round $mode $name: ${RESULTS[$name,$mode]##*;;}" >&2
    done
  done
done

exec > >(tee results/measure.md)
echo "| contender | mode | req/s (per round) | server CPU us/req (per round) |"
echo "|---|---|---|---|"
for mode in plain pipelined; do
  for name in "${ORDER[@]}"; do
    IFS=';' read -ra runs <<<"${RESULTS[$name,$mode]}"
    rps=$(printf '%s\n' "${runs[@]}" | awk '{print $1}' | paste -sd' ')
    cpu=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | paste -sd' ')
    echo "| $name | $mode | $rps | $cpu |"
  done
done
echo
echo "conns=$CONNS depth=$DEPTH duration=${DURATION}s rounds=$ROUNDS server_cpu=$SERVER_CPU client_cpu=$CLIENT_CPU $(nproc) CPUs, $(uname -r), commit $(git rev-parse --short HEAD)"
