#!/usr/bin/env bash
# scripts/results.sh — regenerate docs/results.md: build a release binary
# and replay ITP cluster02/03/06 through fifo, slurm and fairway, then the
# other ITP traces as a health check
# (scripts/results.py).  Traces from $FAIRWAY_TRACES (default
# ../shared/traces).
set -euo pipefail
cd "$(dirname "$0")/.."
for a in "$@"; do # its help (results.py's flags) before anything is installed or built
	case $a in -h | --help) exec python3 scripts/results.py --help ;; esac
done
scripts/deps.sh
if [ ! -f build-release/build.ninja ]; then
	meson setup build-release --buildtype=release >/dev/null
fi
ninja -C build-release tools/fairway >/dev/null
# numpy comes from Debian's python3-numpy, for /usr/bin/python3 (see tests/run.sh)
if ! python3 -c 'import numpy' 2>/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	export PATH=/usr/bin:$PATH
fi
export FAIRWAY_TRACES=${FAIRWAY_TRACES:-$(pwd)/../shared/traces}
exec python3 scripts/results.py --fairway build-release/tools/fairway "$@"
