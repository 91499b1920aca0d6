#!/usr/bin/env bash
# scripts/demo.sh — the README's main job: build fairway (release) and run
# one scheduling cycle on the built-in example cluster, printing the plan.
# Extra arguments go to `fairway plan` (e.g. --json, --config FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build/build.ninja ]; then
	meson setup build --buildtype=release >/dev/null
fi
ninja -C build tools/fairway >/dev/null
exec ./build/tools/fairway plan "$@"
