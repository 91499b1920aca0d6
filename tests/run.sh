#!/usr/bin/env bash
# tests/run.sh BUILD_DIR — run every test of the suite against a build.
#
#   1. unit tests: every test_* executable (each prints PASS/FAIL lines and
#      "N passed, N failed");
#   2. fuzz corpus replay: every fuzz_replay_* executable on its corpus;
#   3. golden scenarios: tests/scenario/*.yaml through `fairway plan
#      --json`, compared byte for byte with the .json beside it; the
#      core's layering from compile_commands.json (tests/layering.sh);
#   4. CLI and bad-input cases (tests/cli.sh) and the report screenshot
#      check in headless Chromium (tests/report_screenshot.sh);
#   5. every target built as the demo builds it (release, -O3) and as a
#      debugger wants it (debug, -O0), both -Werror (tests/build_types.sh:
#      each warns where the suite's -O2 does not);
#   6. the release build's unit tests and corpus replays under valgrind's
#      memcheck (tests/memcheck.sh): reads of memory never written, which
#      ASan does not see; and the daemon's threads under ThreadSanitizer,
#      one binary built with clang -fsanitize=thread (tests/tsan.sh: data
#      races, which neither sees);
#   7. integration tests: every executable tests/integration/*.sh (real
#      servers: the daemon, a local Slurm cluster, the agent with a fake
#      NVML), each given the build directory and ending "N passed, N failed".
# Sanitizers abort on the first finding; each binary gets a time limit.
# The last line is the total: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-asan}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export FAIRWAY_TRACES=${FAIRWAY_TRACES:-$(pwd)/../shared/traces}
export FW_BUILD=$B
# scripts/deps.sh installs Debian's python3-numpy, for /usr/bin/python3; a
# python3 found first on PATH (pyenv, a venv) may lack it.
if ! python3 -c 'import numpy' 2>/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	export PATH=/usr/bin:$PATH
fi
PASS=0
FAIL=0

count() { # add up "N passed, N failed" from a log; a crash counts as a failure
	local log=$1 rc=$2 name=$3 line p f
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*, }
		f=${f%% failed*}
		PASS=$((PASS + p))
		FAIL=$((FAIL + f))
	fi
	if [ "$rc" -ne 0 ] && { [ -z "$line" ] || [ "${f:-0}" -eq 0 ]; }; then
		echo "FAIL $name (exit $rc)"
		FAIL=$((FAIL + 1))
	fi
}

run_bin() {
	local bin=$1 name log rc t0
	shift
	name=$(basename "$bin")
	log=$(mktemp)
	t0=$SECONDS
	timeout "${TMO:-300}" "$bin" "$@" >"$log" 2>&1
	rc=$?
	grep -E '^(FAIL|SKIP)' "$log" | sed "s/^/[$name] /"
	printf '  %-28s %-22s %4ds\n' "$name" "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)" \
		$((SECONDS - t0))
	[ "$rc" -ne 0 ] && tail -40 "$log"
	count "$log" "$rc" "$name"
	rm -f "$log"
}

echo "== unit tests"
for t in $(find "$B" -type f -executable -name 'test_*' | sort); do
	run_bin "$t"
done

echo "== fuzz corpus replay"
for t in $(find "$B" -type f -executable -name 'fuzz_replay_*' | sort); do
	corpus=tests/fuzz/corpus/${t##*fuzz_replay_}
	[ -d "$corpus" ] && run_bin "$t" "$corpus"
done

echo "== golden scenarios and CLI"
# cli.sh runs some 450 commands under ASan (about five minutes on a
# 2-core machine): a hang guard, not a time target
for s in tests/scenario.sh tests/layering.sh tests/cli.sh tests/report_screenshot.sh; do
	[ -x "$s" ] && TMO=900 run_bin "$s" "$B"
done

echo "== release and debug builds (-O3 as the demo builds, -O0 for a debugger)"
TMO=1500 run_bin tests/build_types.sh "$B"

echo "== memcheck (valgrind) over the release build's unit tests and corpus replays"
TMO=2400 run_bin tests/memcheck.sh "$B"

echo "== ThreadSanitizer over the daemon's threads (test_serve_api, clang -fsanitize=thread)"
TMO=900 run_bin tests/tsan.sh "$B"

echo "== integration"
for s in $(find tests/integration -maxdepth 1 -type f -name '*.sh' -perm -u+x 2>/dev/null | sort); do
	TMO=900 run_bin "$s" "$B"
done

echo "== the whole suite took $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
