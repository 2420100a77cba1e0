#!/usr/bin/env bash
# Two hosts on one machine: network namespaces `uvt-server` and `uvt-client` joined by a
# veth pair (10.77.0.1 <-> 10.77.0.2, addresses that exist only inside these namespaces),
# so a run crosses a real network stack (veth, two TCP stacks) instead of loopback.
# Needs root. Runs one server in `uvt-server` and loadgen in `uvt-client`, prints
# loadgen's JSON, and removes the namespaces afterwards.
#   scripts/netns.sh                                  # io_uring_server, 64 connections, 5 s
#   SERVER=tokio_server ARGS="--engine codec" scripts/netns.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER=${SERVER:-io_uring_server}
ARGS=${ARGS:-}
CONNS=${CONNS:-64}
DURATION=${DURATION:-5}
PORT=${PORT:-8081}

# The build the harness makes (harness/src/servers/mod.rs): the same binary, not one with
# other features over it.
cargo build --profile bench -q --workspace --benches --bin "$SERVER" --bin loadgen
# shellcheck source=scripts/netns_pair.sh
. scripts/netns_pair.sh
trap remove_pair EXIT
remove_pair
make_pair

# shellcheck disable=SC2086
ip netns exec uvt-server "target/release/$SERVER" $ARGS --threads 1 --addr "10.77.0.1:$PORT" >/dev/null &
for _ in $(seq 50); do
  ip netns exec uvt-client curl -sf "http://10.77.0.1:$PORT/" >/dev/null && break
  sleep 0.1
done
echo "$SERVER $ARGS across a veth pair, $CONNS connections, ${DURATION}s:"
ip netns exec uvt-client target/release/loadgen "http://10.77.0.1:$PORT/" -c "$CONNS" --duration-secs "$DURATION" --expect-body-len 13
