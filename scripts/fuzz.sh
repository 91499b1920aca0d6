#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] — run every libFuzzer target for a while.
#
# Builds with clang (-Dfuzz=enabled, ASan + UBSan, coverage on every
# object) into build-fuzz/, then
# runs each fuzz_<name> target on a scratch copy of tests/fuzz/corpus/<name>
# for SECONDS (default 60) each.  New inputs that crash are left in
# build-fuzz/; add interesting ones to tests/fuzz/corpus/<name>/ so the
# regular test suite replays them forever after.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
case $secs in
-h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'' | *[!0-9]*) echo "scripts/fuzz.sh: SECONDS '$secs' is not a whole number of seconds; e.g. scripts/fuzz.sh 300 (see --help)" >&2; exit 2 ;;
esac
scripts/deps.sh
# -fsanitize=fuzzer-no-link on every object: the libraries' edges guide
# the fuzzer too, not only the target's own file
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=enabled -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
else
	meson configure build-fuzz -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C build-fuzz >/dev/null
for t in $(find build-fuzz -type f -executable -name 'fuzz_*' ! -name 'fuzz_replay_*' | sort); do
	name=${t##*/fuzz_}
	work=$(mktemp -d)
	cp -r "tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
	echo "== fuzz_$name for ${secs}s"
	(cd build-fuzz && "../$t" -max_total_time="$secs" -artifact_prefix="fuzz_$name-" "$work") 2>&1 | tail -3
	rm -rf "$work"
done
