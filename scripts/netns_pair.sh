# shellcheck shell=bash
# Sourced by scripts/netns.sh and scripts/two_hosts.sh: two network namespaces,
# `uvt-server` (10.77.0.1) and `uvt-client` (10.77.0.2), joined by a veth pair; addresses
# that exist only inside them. Needs root.

# Kills what runs in uvt-server and removes both namespaces (and the pair with them).
remove_pair() {
  ip netns pids uvt-server 2>/dev/null | xargs -r kill 2>/dev/null || true
  ip netns del uvt-server 2>/dev/null || true
  ip netns del uvt-client 2>/dev/null || true
}

# Makes both namespaces and the pair, each end up with its address.
make_pair() {
  ip netns add uvt-server
  ip netns add uvt-client
  ip link add uvt-s type veth peer name uvt-c
  ip link set uvt-s netns uvt-server
  ip link set uvt-c netns uvt-client
  ip -n uvt-server addr add 10.77.0.1/24 dev uvt-s
  ip -n uvt-client addr add 10.77.0.2/24 dev uvt-c
  for ns in uvt-server uvt-client; do ip -n "$ns" link set lo up; done
  ip -n uvt-server link set uvt-s up
  ip -n uvt-client link set uvt-c up
}
