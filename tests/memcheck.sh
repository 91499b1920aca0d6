#!/usr/bin/env bash
# tests/memcheck.sh — the unit tests and fuzz corpus replays of the
# release build (build-release-check, -O3, no sanitizers; tests/build_types.sh
# builds it just before) under valgrind's memcheck.
#
# Why, beside ASan+UBSan: GCC has no MemorySanitizer, so nothing else in
# the suite sees a read of memory that was never written.  The core's
# per-cycle arena hands out unzeroed memory (FW_ARENA_RAW) and the parsers
# fill structs field by field; ASan's fresh pages are mostly zero, which
# hides such reads.  memcheck found one that way: a test freeing a pod
# list it never initialised (test_fgd, world_rejects_duplicates).
#
# One check per binary: it passes when memcheck reports nothing and the
# binary's own tests all pass.  Leaks are ASan's (LeakSanitizer) to report.
# The argument (the suite's build directory) is not used.
set -uo pipefail
cd "$(dirname "$0")/.."
B=build-release-check
pass=0 fail=0
if ! command -v valgrind >/dev/null; then
	echo "FAIL memcheck: valgrind is not installed (scripts/deps.sh installs it: apt-get install valgrind)"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ ! -f "$B/build.ninja" ]; then
	echo "FAIL memcheck: $B is not built (tests/build_types.sh builds it)"
	echo "0 passed, 1 failed"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

check() { # check NAME BINARY [ARGS...]
	local name=$1 rc line
	shift
	timeout 900 valgrind -q --error-exitcode=99 --leak-check=no "$@" >"$log" 2>&1
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -n "$line" ] && [ "${line#*, }" = "0 failed" ]; then
		echo "PASS memcheck $name ($line)"
		pass=$((pass + 1))
	else
		echo "FAIL memcheck $name (exit $rc${line:+; $line}):"
		grep -E -A8 '^==[0-9]+== [A-Z]' "$log" | head -40
		fail=$((fail + 1))
	fi
}

for t in $(find "$B" -type f -executable -name 'test_*' | grep -v '\.p/' | sort); do
	check "$(basename "$t")" "$t"
done
for t in $(find "$B" -type f -executable -name 'fuzz_replay_*' | grep -v '\.p/' | sort); do
	corpus=tests/fuzz/corpus/${t##*fuzz_replay_}
	[ -d "$corpus" ] && check "$(basename "$t")" "$t" "$corpus"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
