#!/usr/bin/env bash
# scripts/coverage.sh [--all] [FILE...] — which lines the test suite runs.
#
# Builds build-cov/ (gcc --coverage, -O0), runs the unit tests, the fuzz
# corpus replays, the golden scenarios and tests/cli.sh against it (with
# --all also tests/integration/*.sh: the daemon and the local Slurm
# cluster, a few minutes more), then prints each source file's line
# coverage, lowest first.  With FILE arguments (e.g. lib/preempt.c) it
# also lists the lines of those files that no test ran, leaving out the
# out-of-memory returns.  Each run starts its counts from zero.
#
# A process killed by a signal writes no counts: the daemons that the
# integration tests stop with SIGKILL under-count, and so does a run
# interrupted by SIGINT.  Use it to find what no test exercises, then
# write the test; the numbers are not a target.
set -uo pipefail
cd "$(dirname "$0")/.."
all=0
files=()
for a in "$@"; do
	case $a in
	--all) all=1 ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "scripts/coverage.sh: unknown option '$a' (see --help)" >&2; exit 2 ;;
	*) files+=("$a") ;;
	esac
done
scripts/deps.sh
if [ ! -f build-cov/build.ninja ]; then
	meson setup build-cov -Db_coverage=true --buildtype=debug >/dev/null || exit 1
fi
ninja -C build-cov >/dev/null || exit 1
# counts of an earlier build would not merge (and gcov would say so on
# stderr, into the outputs the scenarios compare)
find build-cov -name '*.gcda' -delete
export FAIRWAY_TRACES=${FAIRWAY_TRACES:-$(pwd)/../shared/traces}
if ! python3 -c 'import numpy' 2>/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	export PATH=/usr/bin:$PATH
fi
echo "== running the tests on build-cov (counts go to build-cov/**/*.gcda)"
for t in $(find build-cov -type f -executable -name 'test_*' | sort); do
	timeout 900 "$t" >/dev/null 2>&1 || echo "  (failed: $t)"
done
for t in $(find build-cov -type f -executable -name 'fuzz_replay_*' | sort); do
	corpus=tests/fuzz/corpus/${t##*fuzz_replay_}
	[ -d "$corpus" ] && timeout 900 "$t" "$corpus" >/dev/null 2>&1
done
for s in tests/scenario.sh tests/cli.sh; do
	timeout 1500 "$s" build-cov >/dev/null 2>&1 || echo "  (failed: $s)"
done
if [ $all = 1 ]; then
	for s in $(find tests/integration -maxdepth 1 -type f -name '*.sh' -perm -u+x | sort); do
		timeout 900 "$s" build-cov >/dev/null 2>&1 || echo "  (failed: $s)"
	done
fi
echo "== line coverage (gcov), lowest first"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# one gcov run per object directory, in its own folder: two sources of one
# name (sim/report.c, agent/report.c) would overwrite each other's .gcov
# (gcov runs in build-cov, where the sources' relative paths hold, and
# its .gcov files move out after each run)
rm -f build-cov/*.gcov
n=0
for d in $(cd build-cov && find . -name '*.gcda' -printf '%h\n' | sort -u); do
	n=$((n + 1))
	mkdir -p "$out/$n"
	(cd build-cov && gcov -o "$d" "$d"/*.gcda >"$out/$n.txt" 2>/dev/null
	 for g in *.gcov; do [ -e "$g" ] && mv "$g" "$out/$n/"; done)
done
# "File '../lib/cycle.c'" then "Lines executed:94.60% of 278": keep our
# sources (the path gcov prints is relative to build-cov), the largest
# line count seen for each (a header appears once per object)
cat "$out"/*.txt | awk '
	/^File / { f = $2; gsub(/\x27/, "", f); sub(/^\.\.\//, "", f); next }
	/^Lines executed:/ && f != "" {
		split($2, a, ":"); pct = a[2]; sub(/%/, "", pct); tot = $4
		if (f ~ /^(lib|sim|tools|connectors|agent|policies)\// && f !~ /\.h$/ &&
		    (!(f in best) || tot > lines[f] || (tot == lines[f] && pct > best[f]))) {
			best[f] = pct; lines[f] = tot
		}
		f = ""
	}
	END { for (f in best) printf "%6.2f%%  of %5d lines  %s\n", best[f], lines[f], f }' | sort -n
for f in "${files[@]}"; do
	g=$(grep -l "Source:.*/${f#./}\$" "$out"/*/*.gcov 2>/dev/null | head -1)
	if [ -z "$g" ]; then
		echo "== $f: no counts (not built in build-cov, or no test ran it)"
		continue
	fi
	echo "== $f: lines no test ran (leaving out out-of-memory returns)"
	grep -E '^ +#####:' "$g" | grep -vE 'ENOMEM|out of memory' | sed 's/^ *#####: *//'
done
