#!/usr/bin/env bash
# bench/bench_serve.sh [BUILD_DIR] [RATE] [SECONDS] — the service load
# benchmark of docs/performance.md: `fairway serve` (local backend) on a
# 1,000-node fleet (8 GPUs each, 2-level topology), cycling every second,
# and bench_serve in a second process sending RATE mixed requests/s
# (default 1000) for SECONDS (default 60) on loopback.  Prints the load
# generator's figures, the daemon's peak RSS, and its cycle figures.
# BENCH_SERVE_ARGS adds flags to `fairway serve`, e.g.
# BENCH_SERVE_ARGS="--backend-opt min-job-age=30" (then it also prints the
# jobs forgotten, and a 404 for a job of the generator's own is "gone",
# not an error).  BENCH_SERVE_BACKLOG=N first fills the store's decision
# log with N rows two days old (the backlog of a store that ran without
# --log-keep), e.g. BENCH_SERVE_BACKLOG=1000000 BENCH_SERVE_ARGS="--log-keep 1d";
# then it also prints the log rows trimmed and left.  BENCH_SERVE_READER=1
# also reads the log's last 100,000 rows (GET /v1/decisions?limit=100000,
# with a backlog to read) over and over beside the load, and prints how
# many reads and their median time: the audit read a cycle should not wait for.
# BENCH_SERVE_NODES=N and BENCH_SERVE_JOBS=J run the large fleet instead:
# N nodes (8 GPUs each, same topology), 21 queues (org, its leaves train
# and serve and 18 more, q01..q18) and J pending jobs of 1-2 tasks of 1-8
# GPUs with 1-4 h runtimes (more than the fleet holds at 2 jobs a node) spread over the 20 leaves, seeded through the config
# (the local backend takes a new store's config jobs as submitted), e.g.
# BENCH_SERVE_NODES=10000 BENCH_SERVE_JOBS=20000: the scale at which the
# state lock's hold per cycle shows in the API's latency.  Its load starts
# once two cycles have run (the first starts the seeded jobs).  Always
# printed: the cycles' hold of the state lock per applied cycle during the
# load (the delta of fairway_cycle_locked_seconds_total over the delta of
# fairway_cycle_seconds_count), and GET /v1/health's latency p50/p95 from
# a prober beside the load (bench_serve, 20 probes/s, not counted in its
# requests).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-serve-rel}
RATE=${2:-1000}
SECS=${3:-60}
T=$(mktemp -d /tmp/fw-bench-serve.XXXXXX)
trap 'kill $DPID 2>/dev/null; rm -rf "$T"' EXIT

NODES=${BENCH_SERVE_NODES-}
JOBS=${BENCH_SERVE_JOBS-}
if [ -n "$NODES$JOBS" ]; then # the large fleet
	python3 - "${NODES:-1000}" "${JOBS:-0}" >"$T/fleet.yaml" <<'PY'
import random, sys
n, jobs = int(sys.argv[1]), int(sys.argv[2])
leaves = ["train", "serve"] + ["q%02d" % i for i in range(1, 19)]
print("now: 0\ntopology:\n  levels: [block, rack]\nnodeGroups:")
print("  - {count: %d, namePrefix: node-, gpus: 8, gpuModel: H100, gpuMemory: 80Gi, cpu: 96, memory: 1Ti," % n)
print("     topology: {nodesPer: {rack: 20, block: 200}}}")
print("queues:\n  - {name: org, resources: {gpu: {quota: %d}}}" % (8 * n))
for q in leaves:
    print("  - {name: %s, parent: org, resources: {gpu: {quota: %d}}}" % (q, 8 * n // len(leaves)))
print("jobs:" if jobs else "jobs: []")
r = random.Random(7)
for i in range(jobs):
    print("  - {name: seed-%d, queue: %s, submitTime: 0, expectedRuntime: %d, tasks: [{count: %d, gpus: %d}]}"
          % (i, leaves[i % len(leaves)], 3600 * r.randint(1, 4), r.choice([1, 1, 1, 2]), r.choice([1, 2, 4, 8])))
PY
else
	cat >"$T/fleet.yaml" <<-'YAML'
	now: 0
	topology:
	  levels: [block, rack]
	nodeGroups:
	  - count: 1000
	    namePrefix: node-
	    gpus: 8
	    gpuModel: H100
	    gpuMemory: 80Gi
	    cpu: 96
	    memory: 1Ti
	    topology:
	      nodesPer: {rack: 20, block: 200}
	queues:
	  - name: org
	    resources:
	      gpu: {quota: 8000}
	  - name: train
	    parent: org
	    resources:
	      gpu: {quota: 6000, overQuotaWeight: 2}
	  - name: serve
	    parent: org
	    resources:
	      gpu: {quota: 2000}
	YAML
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ -n "${BENCH_SERVE_BACKLOG-}" ]; then # the store made by a first start, then the old rows
	"$B/tools/fairway" serve --config "$T/fleet.yaml" --state "$T/state" --listen "127.0.0.1:$PORT" \
		--port-file "$T/port0" >"$T/daemon0.log" 2>&1 &
	DPID=$!
	for _ in $(seq 1 100); do [ -s "$T/port0" ] && break; sleep 0.1; done
	kill -TERM $DPID && wait $DPID || true
	python3 - "$T/state/fairway.db" "$BENCH_SERVE_BACKLOG" <<'PY'
import sqlite3, sys, time
db, n = sqlite3.connect(sys.argv[1]), int(sys.argv[2])
old = int(time.time()) - 2 * 86400
db.executemany("INSERT INTO decisions (cycle, at, generation, kind, job, node, reason, text)"
               " VALUES (?, ?, ?, 'start', ?, '', 'started', 'started: 16 GPUs')",
               ((i // 100, old + i // 120, i, "old-%d" % i) for i in range(n)))
db.commit()
PY
fi
"$B/tools/fairway" serve --config "$T/fleet.yaml" --state "$T/state" --listen "127.0.0.1:$PORT" \
	--period 1s ${BENCH_SERVE_ARGS-} >"$T/daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/v1/health" >/dev/null && break; sleep 0.1; done
for _ in $(seq 1 600); do # the large fleet: two cycles first, the first starts what the config seeded
	[ -z "$NODES$JOBS" ] && break
	curl -s "http://127.0.0.1:$PORT/v1/health" | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["cycles"] < 2)' && break
	sleep 0.1
done
export BENCH_SERVE_NODES=${NODES:-1000}
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics0"
case "${BENCH_SERVE_ARGS-}" in *min-job-age*) export BENCH_SERVE_GONE_OK=1 ;; esac
if [ -n "${BENCH_SERVE_READER-}" ]; then # big log reads beside the load, one at a time
	(end=$((SECONDS + SECS)); while [ $SECONDS -lt $end ]; do
		curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$PORT/v1/decisions?limit=100000"
	done >"$T/reads") &
	RPID=$!
fi
"$B/bench/bench_serve" "http://127.0.0.1:$PORT" "$(cat "$T/state/token")" "$RATE" "$SECS" || true
if [ -n "${BENCH_SERVE_READER-}" ]; then
	wait $RPID || true
	sort -n "$T/reads" | awk '{t[NR] = $1} END {printf "log reads (limit=100000): %d, median %.3f s\n", NR, t[int((NR + 1) / 2)]}'
fi
echo "daemon peak RSS: $(awk '/VmHWM/ {printf "%.1f MiB", $2/1024}' /proc/$DPID/status)"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/metrics"
awk '/^fairway_cycle_seconds_count|^fairway_cycle_locked_seconds_total/ {v[FILENAME, $1] = $2}
     END {c = v[ARGV[2], "fairway_cycle_seconds_count"] - v[ARGV[1], "fairway_cycle_seconds_count"]
          l = v[ARGV[2], "fairway_cycle_locked_seconds_total"] - v[ARGV[1], "fairway_cycle_locked_seconds_total"]
          if (c > 0) printf "state lock held %.1f ms per applied cycle during the load (%d cycles)\n", 1000 * l / c, c}' \
	"$T/metrics0" "$T/metrics"
awk '/^fairway_cycle_seconds_(sum|count)/ {v[$1]=$2} /^fairway_cycles_stale_total/ {st=$2}
     /^fairway_starts_total/ {s=$2} /^fairway_cycle_(busy|locked)_seconds_total/ {v[$1]=$2}
     END {printf "cycles %d, mean cycle %.1f ms, stale plans %d, jobs started %d\n",
          v["fairway_cycle_seconds_count"], 1000*v["fairway_cycle_seconds_sum"]/v["fairway_cycle_seconds_count"], st, s;
          printf "cycle thread busy %.2f s, of which %.2f s holding the state lock (%.0f%%)\n",
          v["fairway_cycle_busy_seconds_total"], v["fairway_cycle_locked_seconds_total"],
          100*v["fairway_cycle_locked_seconds_total"]/v["fairway_cycle_busy_seconds_total"]}' "$T/metrics"
awk '$1 == "fairway_jobs_purged_total" && $2 > 0 {print "jobs forgotten (min-job-age): " $2}' "$T/metrics"
awk '/^fairway_log_rows_trimmed_total/ && $2 > 0 {print "log rows trimmed (--log-keep): " $1 " " $2}' "$T/metrics"
grep '^fairway_cycle_seconds_bucket' "$T/metrics" | tr '\n' ' ' | sed 's/fairway_cycle_seconds_bucket//g'
echo
kill -TERM $DPID
wait $DPID 2>/dev/null || true
if [ -n "${BENCH_SERVE_BACKLOG-}" ]; then
	python3 -c 'import sqlite3, sys
print("decision-log rows left: %d" % sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM decisions").fetchone()[0])' \
		"$T/state/fairway.db"
fi
