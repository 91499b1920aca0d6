#!/usr/bin/env bash
# tests/build_types.sh — every target builds, with -Werror, in the two
# build types a user picks other than the suite's own (-O2 with sanitizers):
#   - release (-O3): the README's main job builds this way (scripts/demo.sh);
#     GCC warns there about things -O2 does not (a maybe-uninitialized value
#     once broke the demo while every other test passed);
#   - debug (-O0), what one builds to step through with gdb: GCC's
#     format-truncation check warns there about snprintf calls whose cut
#     the optimizer proves impossible at -O2.
# Each build type is one test, in its own directory; a second run only
# rebuilds what changed.  The argument (the suite's build directory) is
# not used.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0 fail=0
for bt in release debug; do
	dir=build-$bt-check
	: >"$log"
	if { [ -f "$dir/build.ninja" ] || meson setup "$dir" --buildtype=$bt >"$log" 2>&1; } &&
		ninja -C "$dir" >>"$log" 2>&1; then
		echo "PASS $bt-build (meson --buildtype=$bt, every target, -Werror)"
		pass=$((pass + 1))
	else
		echo "FAIL $bt-build: the --buildtype=$bt configuration does not compile:"
		grep -E 'error|warning' "$log" | head -20
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
