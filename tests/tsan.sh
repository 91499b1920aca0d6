#!/usr/bin/env bash
# tests/tsan.sh — the daemon's threads under ThreadSanitizer, cheaply.
#
# The suite's build is ASan+UBSan, which cannot be combined with TSan, and
# a whole TSan build costs minutes; so this builds one binary with clang's
# -fsanitize=thread, in its own directory (build-tsan-check; a second run
# only rebuilds what changed), and runs it: test_serve_api, whose
# requests_and_cycles_at_once_answer_as_alone has API threads submitting
# and reading while cycles run, and whose other threaded tests answer
# health and the decision log while a cycle holds the state lock.  About
# 25 s of CPU to build from scratch, 6 s to run (docs/serve.md "Tests").
# One check: it passes when the binary's tests all pass and TSan reports
# nothing beyond tests/tsan.supp (each entry there says why it is a
# false positive).  The whole daemon under TSan (serve_api.sh, a Slurm
# lab) is docs/serve.md's longer recipe.  The argument (the suite's build
# directory) is not used.
set -uo pipefail
cd "$(dirname "$0")/.."
B=build-tsan-check
T=connectors/serve/test_serve_api
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail() { # fail WHY [PATTERN]: the log's lines that match, with what follows
	echo "FAIL tsan test_serve_api: $1"
	[ -n "${2-}" ] && grep -E -A14 "$2" "$log" | head -60
	echo "0 passed, 1 failed"
	exit 1
}
command -v clang >/dev/null || fail "clang is not installed (scripts/deps.sh installs it: apt-get install clang)"
if [ ! -f "$B/build.ninja" ]; then
	CC=clang meson setup "$B" -Db_sanitize=thread -Db_lundef=false --buildtype=debugoptimized >"$log" 2>&1 ||
		fail "meson setup of $B (clang, -Db_sanitize=thread) failed" 'ERROR|error'
fi
ninja -C "$B" "$T" >"$log" 2>&1 || fail "$T does not build with -fsanitize=thread" 'error'
TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp:halt_on_error=0:second_deadlock_stack=1:report_signal_unsafe=0" \
	timeout 600 "$B/$T" >"$log" 2>&1
rc=$?
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
reports=$(grep -c 'WARNING: ThreadSanitizer' "$log")
if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ] || [ -z "$line" ] || [ "${line#*, }" != "0 failed" ]; then
	fail "exit $rc, $reports TSan report(s)${line:+, $line}" '^FAIL|WARNING: ThreadSanitizer'
fi
echo "PASS tsan test_serve_api ($line, no TSan report)"
echo "1 passed, 0 failed"
