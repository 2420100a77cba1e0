#!/usr/bin/env bash
# Makes the toolchain rust-toolchain.toml pins available: installs it with rustup, or, where
# rustup cannot download (an offline machine) and the installed stable is that very
# version, links stable under the pinned name. Run by .ci/run; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
pinned=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
if rustup run "$pinned" rustc --version >/dev/null 2>&1; then
  rustup component add --toolchain "$pinned" rustfmt clippy >/dev/null 2>&1 || true
  exit 0
fi
if rustup toolchain install "$pinned" --profile minimal -c rustfmt,clippy >/dev/null 2>&1; then
  exit 0
fi
stable=$(rustc +stable --version 2>/dev/null | awk '{print $2}')
if [ "$stable" = "$pinned" ]; then
  rustup component add --toolchain stable rustfmt clippy >/dev/null 2>&1 || true
  rustup toolchain link "$pinned" "$(rustc +stable --print sysroot)"
  exit 0
fi
echo "toolchain: Rust $pinned (rust-toolchain.toml) is not installed and cannot be downloaded; installed stable is ${stable:-none}" >&2
exit 1
