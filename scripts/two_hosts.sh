#!/usr/bin/env bash
# Two hosts on one machine: the agent (lab's `agent` binary) in network namespace
# `uvt-server` (10.77.0.1, servers pinned to CPU 0) and the workloads study in
# `uvt-client` (10.77.0.2, its client on CPU 1), joined by a veth pair, so every byte
# crosses two TCP stacks and a link instead of loopback. Runs the verdict's core rows
# across them (keep-alive, one connection, churn, 64 KiB echo, 1 MiB files, keep-alive
# over TLS), then writes results/two_hosts.md with loopback's ratios (the committed
# results/workloads.json) beside each row. Needs root (ip netns); the namespaces and the
# agent are removed afterwards, whatever happens. On two real machines: docs/two_hosts.md.
#   sudo scripts/two_hosts.sh                    # the core rows, the study's defaults
#   sudo scripts/two_hosts.sh --rounds 4         # any other flag goes to the study
#   sudo scripts/two_hosts.sh --smoke            # one row, two short rounds, into target/
set -euo pipefail
cd "$(dirname "$0")/.."

rows=(--only "keep-alive, small requests" --only "one connection" --only "churn, server closes"
  --only "64 KiB echo" --only "1 MiB files, 16 connections" --only "keep-alive over TLS")
out=target/two_hosts
written=results/two_hosts.md
if [ "${1:-}" = "--smoke" ]; then
  shift
  # A check, not a record (its page goes under target/): it runs on any tree.
  rows=(--only "one connection" --rounds 2 --max-rounds 2 --seconds 0.3 --slices 1 --allow-dirty)
  out=target/two_hosts_smoke
  written=$out/two_hosts.md
fi

cargo build --release -q -p lab --bin agent --bin workloads --bin two_hosts
work=
agent=
# shellcheck source=scripts/netns_pair.sh
. scripts/netns_pair.sh
cleanup() {
  if [ -n "$agent" ]; then kill "$agent" 2>/dev/null || true; wait "$agent" 2>/dev/null || true; fi
  remove_pair
  if [ -n "$work" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
cleanup
work=$(mktemp -d)
make_pair

(umask 077; head -c 24 /dev/urandom | base64 >"$work/token")
ip netns exec uvt-server target/release/agent --listen 10.77.0.1:7070 --client 10.77.0.2 \
  --token-file "$work/token" --cpus 0 >"$work/agent.out" 2>"$work/agent.err" &
agent=$!
# It builds the servers it offers first (cargo, already built by the studies: seconds).
for _ in $(seq 1200); do
  grep -q "listening" "$work/agent.out" 2>/dev/null && break
  if ! kill -0 "$agent" 2>/dev/null; then
    echo "two_hosts: the agent did not start:" >&2
    cat "$work/agent.err" >&2
    exit 2
  fi
  sleep 0.5
done
grep -q "listening" "$work/agent.out" || { echo "two_hosts: the agent is not listening after 10 minutes" >&2; exit 2; }

ip netns exec uvt-client target/release/workloads --server-host 10.77.0.1:7070 \
  --token-file "$work/token" --client-cpus 1 --out-dir "$out" "${rows[@]}" "$@"
target/release/two_hosts --across "$out/results/workloads.json" --out "$written"
