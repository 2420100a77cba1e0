#!/usr/bin/env bash
# The file study (about 14 minutes with the defaults: 3 rounds x 12 points x 12 servers
# x (2 s + about 0.75 s of cache set-up and connecting per point and server)): every server serves GET /files/{name} for random files of the study corpus
# (written once into target/files-corpus, about 200 MB), 4 KiB, 64 KiB and 1 MiB, with
# the set's pages cached (hot) or dropped by posix_fadvise before each slice (cold), at 16
# and 256 connections, over rounds of freshly started servers in a balanced order, each
# point cut into slices alternated between the servers, with an A/A control and nginx
# (sendfile) as the outside anchor. Writes results/files.md, results/files.json and its
# BENCHMARKS.md section.
#   scripts/files.sh                                        # 3 rounds of 2 s per point, 4 slices (the default; about 14 minutes)
#   scripts/files.sh --sets 4k --only hot --servers io_uring,tokio_codec,nginx   # a part (ids; aa: the A/A control)
#   scripts/files.sh --rounds 1 --seconds 1 --sets 4k --servers nginx            # a smoke test
#   scripts/files.sh --render                               # every view again from results/files.json
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p lab --bin files -- "$@"
