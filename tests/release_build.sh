#!/usr/bin/env bash
# tests/release_build.sh — the README's main job builds with
# `meson setup build --buildtype=release` (scripts/demo.sh): -O3 with
# -Werror, where GCC warns about things the suite's -O2 sanitizer build
# does not (a maybe-uninitialized value once broke the demo while every
# other test passed).  This builds every target that way, in its own
# directory, and counts as one test.  The argument (the suite's build
# directory) is not used.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=build-release-check
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if { [ -f "$dir/build.ninja" ] || meson setup "$dir" --buildtype=release >"$log" 2>&1; } &&
	ninja -C "$dir" >>"$log" 2>&1; then
	echo "PASS release-build (meson --buildtype=release, every target, -Werror)"
	echo "1 passed, 0 failed"
else
	echo "FAIL release-build: the demo's configuration does not compile:"
	grep -E 'error|warning' "$log" | head -20
	echo "0 passed, 1 failed"
	exit 1
fi
