#!/usr/bin/env bash
# bench/bench_slurm_lock.sh BUILD_DIR [BUILD_DIR...] — how long each cycle
# of `fairway serve --backend slurm` holds the daemon's state lock, on a
# lab (tests/slurm/lab.sh) of NODES=4 nodes x 8 GPUs with JOBS=2000
# one-GPU jobs queued (sbatch, one record each; the first daemon run
# starts 32 of them, which then run for the whole bench, so every run
# sees the same world).  Each build's daemon runs ROUNDS=3 times,
# interleaved (A B A B A B), each run SECS=20 s after its third cycle;
# a run's figure is the delta of fairway_cycle_locked_seconds_total over
# the delta of fairway_cycle_seconds_count (lock ms per applied cycle),
# beside the cycle's own ms (fairway_cycle_seconds_sum over the count).
# Prints each run and each build's median.  Use release builds (meson
# setup build-rel --buildtype=release; ninja -C build-rel tools/fairway).
# Needs root and the Slurm packages; where labs are shared, run it under
# flock /tmp/fairway-lab.lock.  Stops every daemon it started.
set -u
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
BUILDS=()
for b in "$@"; do
	[ -x "$b/tools/fairway" ] || { echo "no $b/tools/fairway: build it first" >&2; exit 2; }
	BUILDS+=("$(cd "$b" && pwd)")
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
LAB_SH=$SRC/tests/slurm/lab.sh
NODES=${NODES:-4} JOBS=${JOBS:-2000} ROUNDS=${ROUNDS:-3} SECS=${SECS:-20}
T=$(mktemp -d /tmp/fw-slurm-lock.XXXXXX)
chmod 755 "$T"
SPID=
trap '[ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null; "$LAB_SH" stop "$T/lab" >/dev/null 2>&1; rm -rf "$T"' EXIT
why=$("$LAB_SH" check) || { echo "SKIP: $why"; exit 0; }

metric() { curl -s "$URL/metrics" | awk -v k="$1" '$1 == k {print $2}'; }

# run N BUILD: one daemon of BUILD on a state of its own; prints
# "lock_ms cycle_ms cycles stale pending" over SECS s after its third
# cycle (stale: the attempts whose plan was not applied; pending: the
# jobs the last plan had waiting)
run() {
	local st=$T/state$1 l1 c1 s1 l2 c2 s2 x1 x2 pd
	rm -f "$T/port"
	"$2/tools/fairway" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpu \
		--config "$T/serve.yaml" --state "$st" --listen 127.0.0.1:0 --port-file "$T/port" \
		--period 500ms >>"$T/serve$1.log" 2>&1 &
	SPID=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.2; done
	URL="http://127.0.0.1:$(cat "$T/port")"
	for _ in $(seq 300); do [ "$(metric fairway_cycle_seconds_count)" -ge 3 ] 2>/dev/null && break; sleep 0.2; done
	l1=$(metric fairway_cycle_locked_seconds_total) c1=$(metric fairway_cycle_seconds_count)
	s1=$(metric fairway_cycle_seconds_sum) x1=$(metric fairway_cycles_stale_total)
	sleep "$SECS"
	l2=$(metric fairway_cycle_locked_seconds_total) c2=$(metric fairway_cycle_seconds_count)
	s2=$(metric fairway_cycle_seconds_sum) x2=$(metric fairway_cycles_stale_total)
	pd=$(curl -s "$URL/metrics" | awk '$1 ~ /^fairway_pending_jobs[{]/ {n += $2} END {print n + 0}')
	kill -TERM "$SPID"
	wait "$SPID" 2>/dev/null
	SPID=
	awk -v l1="$l1" -v l2="$l2" -v c1="$c1" -v c2="$c2" -v s1="$s1" -v s2="$s2" -v x="$((x2 - x1))" -v pd="$pd" \
		'BEGIN { n = c2 - c1; if (n <= 0) { print "nan nan 0", x, pd; exit }
			 printf "%.2f %.2f %d %d %d\n", 1000 * (l2 - l1) / n, 1000 * (s2 - s1) / n, n, x, pd }'
}

echo "== machine: $(nproc) CPUs, $(uname -r), $(slurmctld -V 2>/dev/null); $NODES nodes x 8 GPUs, $JOBS jobs"
NODES=$NODES "$LAB_SH" start "$T/lab" >/dev/null || { echo "lab start failed: $T/lab/log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$T/lab/env.sh"
{
	sed -n '/^scheduler/,$p' "$SRC/tests/slurm/fairway.yaml"
	echo "nodes:"
	for i in $(seq "$NODES"); do
		printf '  - {name: gpu%03d, gpus: 8, gpuModel: h100, cpu: 64, memory: 500Gi, topology: {switch: s1}}\n' "$i"
	done
} >"$T/serve.yaml"
for ((i = 0; i < JOBS; i++)); do
	sbatch -Q -A "$([ $((i % 2)) = 0 ] && echo team_a || echo team_b)" --gres=gpu:1 -t 600 -o /dev/null \
		--wrap "sleep 36000" || exit 1
done
echo "queued: $(squeue -h | wc -l) jobs"
run warm "${BUILDS[0]}" >/dev/null # starts what fits: the same world for every run
echo "running: $(squeue -h -t R | wc -l), pending: $(squeue -h -t PD | wc -l)"
for ((r = 1; r <= ROUNDS; r++)); do
	for k in "${!BUILDS[@]}"; do
		out=$(run "$r.$k" "${BUILDS[$k]}")
		echo "round $r ${BUILDS[$k]}: lock_ms/cycle cycle_ms/cycle cycles stale pending = $out"
		echo "$k $out" >>"$T/all"
	done
done
for k in "${!BUILDS[@]}"; do
	awk -v k="$k" '$1 == k {print $2, $3}' "$T/all" | sort -n | awk -v b="${BUILDS[$k]}" \
		'{l[NR] = $1; c[NR] = $2} END { m = int((NR + 1) / 2); printf "median %s: lock %.2f ms/cycle (the cycle of that run %.2f ms; runs: %d)\n", b, l[m], c[m], NR }'
done
