#!/usr/bin/env bash
# tests/integration/serve_crash.sh BUILD_DIR — kill -9 `fairway serve` at
# random moments while a writer process submits jobs and changes a queue,
# restart it each time, and then check the store (SQLite, read directly):
#   - every write that got a 2xx is there (no acknowledged write lost);
#   - a queue's stored quota is the last acknowledged one, or one sent
#     after it whose reply was lost to the kill;
#   - no decision was applied twice: per job, the logged starts and
#     evictions alternate beginning with a start, their count equals the
#     job's own start counter, and every started job has its start logged.
# Then, on a fleet with run-time limits, once while jobs run: down past
# their limits, they end `timeout` at their limit at the restart, also on
# a node the restarted fleet lacks (not requeued).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/serve_lib.sh "$1"

S=$T/state
PORT=$(free_port)
KILLS=${KILLS:-8}
export PERIOD=0.2s

start_daemon "$S" "$PORT" || { bad "daemon starts" "$(tail -5 "$T/daemon.log")"; finish; exit 1; }
TOKEN=$(cat "$S/token")

cat >"$T/writer.py" <<'PY'
import http.client, json, random, sys, time
port, token, out, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
queues = ["llm", "vision", "inference", "ranking"]
log = open(out, "w", buffering=1)
end = time.time() + seconds
i = 0
while time.time() < end:
    i += 1
    if i % 10 == 0:
        q, val = random.choice(["ranking", "vision"]), random.randint(1, 40)
        method, path = "PUT", "/v1/queues/" + q
        parent = "product" if q == "ranking" else "research"
        body = {"parent": parent, "deserved": {"gpu": val}}
        what = "queue %s %d" % (q, val)
    else:
        method, path = "POST", "/v1/jobs"
        body = {"name": "w-%d" % i, "queue": random.choice(queues), "runtime": random.randint(1, 3),
                "tasks": [{"count": random.randint(1, 2), "gpus": random.choice([1, 2, 4, 8])}]}
        what = "job w-%d" % i
    log.write("try " + what + "\n")
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request(method, path, json.dumps(body), {"Authorization": "Bearer " + token,
                                                   "Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        if 200 <= r.status < 300:
            log.write("ack " + what + "\n")
        elif r.status >= 500 or r.status in (401, 404):
            log.write("err %d %s\n" % (r.status, what))
        c.close()
    except OSError:
        time.sleep(0.05)
PY
python3 "$T/writer.py" "$PORT" "$TOKEN" "$T/writes" $((KILLS * 2 + 4)) &
WPID=$!
PIDS+=("$WPID")

kills=0
for _ in $(seq 1 "$KILLS"); do
	sleep "$(python3 -c 'import random; print(round(random.uniform(0.3, 1.6), 2))')"
	kill_daemon && kills=$((kills + 1))
	start_daemon "$S" "$PORT" || { bad "daemon restarts after kill -9" "$(tail -5 "$T/daemon.log")"; break; }
done
wait "$WPID"
check "the daemon was killed $KILLS times mid-load" [ "$kills" -eq "$KILLS" ]
sleep 4 # let the last jobs start and finish
stop_daemon

python3 - "$S/fairway.db" "$T/writes" >"$T/verdict" 2>&1 <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
lines = [l.split() for l in open(sys.argv[2])]
acked = [l[2] for l in lines if l[0] == "ack" and l[1] == "job"]
jobs = {k: json.loads(d) for k, d in db.execute("SELECT key, doc FROM jobs")}
missing = [n for n in acked if n not in jobs]
print("acked_jobs", len(acked))
print("missing_jobs", len(missing), " ".join(missing[:5]))
# queues: the stored quota is the last acked or one tried after it
bad_q = 0
for q in ("ranking", "vision"):
    seq = [(l[0], int(l[3])) for l in lines if len(l) == 4 and l[1] == "queue" and l[2] == q]
    last_ack = max([i for i, (k, _) in enumerate(seq) if k == "ack"], default=-1)
    allowed = {v for i, (k, v) in enumerate(seq) if k == "try" and i > last_ack}
    if last_ack >= 0:
        allowed.add(seq[last_ack][1])
    row = db.execute("SELECT doc FROM queues WHERE key = ?", (q,)).fetchone()
    stored = json.loads(row[0])["deserved"]["gpu"] if row else None
    if last_ack >= 0 and stored not in allowed:
        bad_q += 1
        print("queue", q, "stored", stored, "allowed", sorted(allowed))
print("bad_queues", bad_q)
# decisions: never applied twice
log = {}
for job, kind in db.execute("SELECT job, kind FROM decisions WHERE kind IN ('start','evict') ORDER BY id"):
    log.setdefault(job, []).append(kind)
twice = 0
for name, doc in jobs.items():
    if not name.startswith("w-"):
        continue  # the config's own jobs were started before the daemon
    seq = log.get(name, [])
    alternates = all(k == ("start" if i % 2 == 0 else "evict") for i, k in enumerate(seq))
    starts = seq.count("start")
    if not alternates or starts != doc.get("starts", 0):
        twice += 1
        if twice < 5:
            print("job", name, "log", seq, "starts", doc.get("starts"), "state", doc["state"])
print("double_or_lost_decisions", twice)
print("started_jobs", sum(1 for d in jobs.values() if d.get("starts", 0) > 0))
PY
cat "$T/verdict" | sed 's/^/  /'
val() { awk -v k="$1" '$1 == k {print $2}' "$T/verdict"; }
check "the writer had at least 50 jobs acknowledged" [ "${ack:=$(val acked_jobs)}" -ge 50 ]
check "no acknowledged job is missing from the store" [ "$(val missing_jobs)" = 0 ]
check "every queue holds its last acknowledged quota (or a later attempt)" [ "$(val bad_queues)" = 0 ]
check "no decision applied twice or applied without its log entry" [ "$(val double_or_lost_decisions)" = 0 ]
check "jobs did start across the restarts" [ "$(val started_jobs)" -ge 20 ]
# down_for SECONDS YAML NAME: kill -9 the daemon, leave it down SECONDS and
# restart it on YAML (failing NAME when it does not come back).
down_for() {
	kill_daemon
	sleep "$1"
	start_daemon "$S" "$PORT" --config "$2" || bad "$3"
}
# timed_out NAME JOB: JOB ends `timeout` at start + 3 (its limit, 3 s).
timed_out() {
	job_is "$1" "$2" 'j["state"] == "timeout" and j["endTime"] - j["startTime"] == 3 and j["reason"] == "time_limit"'
}
# the text of a job that queue capped's limit of 3 s ended
CAPPED_TEXT='ended: it has run 3s and the run-time limit (maxRuntime) of its queue "capped" is 3s; it is stopped, not requeued'

# --- run-time limits that pass while the daemon is down ------------------------
# Jobs run on a fleet whose queue capped limits its jobs to 3 s; the daemon
# is killed (kill -9) while they run and stays down past their limits and
# runtimes.  At the restart the local backend ends, at its first read, the
# jobs whose limit came first `timeout` at start + 3 (their queue's limit,
# their own, one with no runtime), with the cycle's reason text, and the
# one whose runtime (2 s) came first `done` at start + 2 (docs/serve.md).
cat >"$T/limits.yaml" <<'EOF2'
now: 0
nodes:
  - {name: solo, gpus: 8, cpu: 64, memory: 512Gi}
queues:
  - name: q
    resources: {gpu: {quota: 4}}
  - name: capped
    maxRuntime: 3
    resources: {gpu: {quota: 4}}
EOF2
S=$T/state-limits
PORT=$(free_port)
if start_daemon "$S" "$PORT" --config "$T/limits.yaml"; then
	TOKEN=$(cat "$S/token")
	for j in '"name":"q-capped","queue":"capped","runtime":8' '"name":"own-capped","queue":"q","runtime":8,"maxRuntime":3' \
		'"name":"forever","queue":"q","runtime":0,"maxRuntime":3' '"name":"fits","queue":"capped","runtime":2'; do
		req POST /v1/jobs "{$j,\"tasks\":[{\"gpus\":1}]}"
	done
	req POST /v1/cycle
	becomes "the four jobs run" "/v1/jobs?state=running" 'len(j["jobs"]) == 4'
	down_for 9 "$T/limits.yaml" "the daemon restarts after kill -9" # past every limit (3 s) and runtime (8 s)
	for j in q-capped own-capped forever; do
		timed_out "$j, its limit passed while the daemon was down: timeout at start + 3" "$j"
	done
	req GET /v1/jobs/q-capped
	check "... its text names its queue's limit, as the cycle's" [ "$(jfield 'j.get("reasonText")')" = "$CAPPED_TEXT" ]
	req GET /v1/jobs/own-capped
	check "... own-capped's names its own limit" \
		[ "$(jfield '"its own run-time limit (maxRuntime) is 3s" in j.get("reasonText", "")')" = True ]
	job_is "fits, its runtime (2 s) before its limit: done at start + 2" fits \
		'j["state"] == "done" and j["endTime"] - j["startTime"] == 2'
	check "/metrics counts the three in fairway_jobs_timed_out_total" [ "$(metric fairway_jobs_timed_out_total)" = 3 ]
	stop_daemon
else
	bad "the daemon starts on limits.yaml" "$(tail -5 "$T/daemon.log")"
fi

# --- a fleet change meets a limit that passed while the daemon was down --------
# Three jobs run on node gone (nodeSelector pool: b); the API gave queue
# capped a limit of 3 s (its YAML has none).  Killed while they run, the
# daemon restarts past their limits on a fleet without gone: lost-capped
# (its queue's limit: the daemon's, not the YAML's) and lost-own (its own
# maxRuntime 3) end `timeout` at start + 3 instead of being requeued;
# lost-free (no limit) is requeued, as before; the metric counts the two.
cat >"$T/fleet-a.yaml" <<'EOF2'
now: 0
nodes:
  - {name: kept, gpus: 8, cpu: 64, memory: 512Gi, labels: {pool: a}}
  - {name: gone, gpus: 8, cpu: 64, memory: 512Gi, labels: {pool: b}}
queues:
  - {name: q, resources: {gpu: {quota: 8}}}
  - {name: capped, resources: {gpu: {quota: 8}}}
EOF2
grep -v 'name: gone' "$T/fleet-a.yaml" >"$T/fleet-b.yaml"
S=$T/state-fleet
PORT=$(free_port)
if start_daemon "$S" "$PORT" --config "$T/fleet-a.yaml"; then
	TOKEN=$(cat "$S/token")
	req PATCH /v1/queues/capped '{"maxRuntime":3}'
	check "capped's limit of 3 s, the API's: 200" [ "$CODE" = 200 ]
	for j in '"name":"lost-capped","queue":"capped"' '"name":"lost-own","queue":"q","maxRuntime":3' \
		'"name":"lost-free","queue":"q"'; do
		req POST /v1/jobs "{$j,\"runtime\":60,\"nodeSelector\":{\"pool\":\"b\"},\"tasks\":[{\"gpus\":1}]}"
	done
	req POST /v1/cycle
	becomes "the three jobs run on gone" "/v1/jobs?state=running" 'len(j["jobs"]) == 3'
	down_for 4 "$T/fleet-b.yaml" "the daemon restarts on a fleet without gone" # past their limits (3 s)
	for j in lost-capped lost-own; do
		timed_out "$j, on the node the fleet lost, its limit passed while the daemon was down: timeout at start + 3" "$j"
		check "... not requeued (no requeue in its decisions)" \
			[ "$(jfield '[d["kind"] for d in j["decisions"] if d["kind"] == "requeue"]')" = "[]" ]
	done
	req GET /v1/jobs/lost-capped
	check "... lost-capped's text names its queue's limit (the API's 3 s)" [ "$(jfield 'j.get("reasonText")')" = "$CAPPED_TEXT" ]
	req GET /v1/jobs/lost-free
	check "lost-free, no limit: requeued (pending, a requeue fleet_change decision)" \
		[ "$(jfield 'j["state"], [d["reason"] for d in j["decisions"] if d["kind"] == "requeue"]')" = \
			"pending ['fleet_change']" ]
	check "/metrics counts the two in fairway_jobs_timed_out_total" [ "$(metric fairway_jobs_timed_out_total)" = 2 ]
	check "the daemon's log says why lost-capped was not requeued" grep -q \
		"job lost-capped was running on node gone, which the fleet no longer has, and its run-time limit passed" \
		"$T/daemon.log"
	stop_daemon
else
	bad "the daemon starts on fleet-a.yaml" "$(tail -5 "$T/daemon.log")"
fi

if grep -E 'ERROR: AddressSanitizer|runtime error' "$T/daemon.log"; then
	bad "no sanitizer report in any daemon run"
else
	ok "no sanitizer report in any daemon run"
fi
finish
