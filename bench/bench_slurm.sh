#!/usr/bin/env bash
# bench/bench_slurm.sh [BUILD_DIR] — the Slurm adapter on a real local
# cluster (tests/slurm/lab.sh), the figures of docs/performance.md
# "Slurm adapter":
#   1. decision -> RUNNING latency, median and p95 (40 jobs, 16 nodes);
#   2. sustained starts/s with 1-GPU `sleep 1` jobs (400 jobs, 16 nodes);
#   3. cycle time reading 64 nodes and 5,000 queued jobs.
# Use a release build (meson setup build-rel --buildtype=release).  Needs
# root and the Slurm packages (tests/slurm/lab.sh check).  Stops every
# daemon it started, also on failure.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$SRC/build}" && pwd)
FWS=$B/connectors/slurm/fairway-slurm
LAB_SH=$SRC/tests/slurm/lab.sh
CFG=$SRC/tests/slurm/fairway.yaml
T=$(mktemp -d /tmp/fw-slurm-bench.XXXXXX)
chmod 755 "$T"
trap '"$LAB_SH" stop "$T/lab16" >/dev/null 2>&1; "$LAB_SH" stop "$T/lab64" >/dev/null 2>&1; rm -rf "$T"' EXIT
[ -x "$FWS" ] || { echo "no $FWS: build it first" >&2; exit 2; }
why=$("$LAB_SH" check) || { echo "SKIP: $why"; exit 0; }

echo "== machine: $(nproc) CPUs, $(uname -r), $(slurmctld -V 2>/dev/null)"
echo "== 16 nodes x 8 GPUs"
s=$SECONDS
"$LAB_SH" start "$T/lab16" || exit 1
echo "lab start: $((SECONDS - s)) s"
(
	. "$T/lab16/env.sh"
	"$FWS" bench latency 40 --config "$CFG"
	scancel -u root; sleep 3
	"$FWS" bench throughput 400 --config "$CFG"
)
"$LAB_SH" stop "$T/lab16"

echo "== 64 nodes x 8 GPUs, 5000 queued jobs"
s=$SECONDS
NODES=64 "$LAB_SH" start "$T/lab64" || exit 1
echo "lab start: $((SECONDS - s)) s"
(
	. "$T/lab64/env.sh"
	"$FWS" bench cycle 5000 --config "$CFG"
)
