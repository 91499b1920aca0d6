#!/usr/bin/env bash
# scripts/demo.sh — the README's main job.
#
# Builds fairway (release) and replays the Microsoft ITP trace cluster06
# (2,396 jobs) on its standard size, 13 nodes x 8 GPUs (~83% offered
# load), through all four policies — fifo, slurm, kai, fairway — with
# every decision made by the same engine.  Prints a one-screen summary and
# writes report.html (charts) and out/metrics.json.
#
# Traces come from $FAIRWAY_TRACES (default ../shared/traces).  When the
# trace is not there, it says so and replays a synthetic trace with
# cluster06's statistics instead (sim/synth.h).
# Extra arguments go to `fairway sim run` (e.g. --verbose, --tick 300).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release >/dev/null
fi
ninja -C build tools/fairway >/dev/null
traces=${FAIRWAY_TRACES:-../shared/traces}
trace="$traces/microsoft-itp/cluster06.csv"
if [ ! -f "$trace" ]; then
	echo "fairway: $trace not found (set FAIRWAY_TRACES to the folder that holds microsoft-itp/)." >&2
	echo "fairway: replaying a synthetic trace with cluster06's statistics instead." >&2
	trace=synthetic
fi
mkdir -p out
./build/tools/fairway sim run --trace "$trace" --nodes 13x8 \
	--policies fifo,slurm,kai,fairway --report report.html --json out/metrics.json "$@"
echo
echo "report: $(pwd)/report.html   metrics: $(pwd)/out/metrics.json"
echo "one scheduling cycle, explained job by job: ./build/tools/fairway plan"
