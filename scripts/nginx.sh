#!/usr/bin/env bash
# Installs nginx from Debian, the outside anchor of the sweep and the workloads study
# (their nginx rows are skipped while it is missing). Needs root (apt-get). Idempotent:
# does nothing when an nginx binary is already on the PATH. Installs only the package:
# the studies start nginx themselves with the config in nginx/nginx.conf, one worker on
# the server CPUs, and stop it when they end.
#   sudo scripts/nginx.sh
set -euo pipefail
if command -v nginx >/dev/null 2>&1; then
    echo "nginx already installed: $(nginx -v 2>&1)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/nginx.sh needs root to run apt-get: sudo scripts/nginx.sh" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# The package `nginx` (the server with its usual modules): Debian 12 has it, and its
# nginx-light is only nginx plus the echo module, a transitional name in later releases.
package=nginx
# Debian's package starts a system nginx on port 80 once installed; keep it from doing so
# (policy-rc.d exit 101: "action forbidden"), unless the machine already has a policy.
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -q --no-install-recommends "$package"
echo "installed $package: $(nginx -v 2>&1)"
