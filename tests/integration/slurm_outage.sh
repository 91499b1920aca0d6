#!/usr/bin/env bash
# tests/integration/slurm_outage.sh BUILD_DIR — slurmctld goes away under
# `fairway serve --backend slurm` and comes back (a restart, an upgrade, a
# failover), against a real lab (2 nodes x 8 fake GPUs).  Seen before: the
# daemon read Slurm holding its state lock, so while slurmctld was down
# every API request waited out libslurm's connect timeouts behind the
# cycle (GET /v1/health took 3 s and more).
#   outage_health_answers  while slurmctld is down (once a cycle has seen
#                          it; one already reading when it went may wait
#                          out that read), GET /v1/health answers
#                          in under a second, three times, ok false, its
#                          error naming the failed Slurm call
#   outage_reads_answer    GET /v1/jobs/ID and `fairway jobs list` answer
#                          in under a second from the last view, the
#                          running job still listed
#   outage_counted         /metrics counts the failed cycles
#   back_after_restart     slurmctld started again: health ok within 30 s,
#                          and a new job runs
#   one_start_each         each job's decision log has exactly one start
#                          (nothing re-applied after the outage)
#   slow_load_unlocked     slurmctld slow to answer (tests/slurm/race_shim.c
#                          holds each slurm_load_jobs 3 s while $T/slow
#                          exists): GET /v1/jobs/ID answers in under a
#                          second while a cycle waits on its load (the
#                          cycle fetches without the state lock: backend.h
#                          "A read fetched ahead"), and the cycles go on
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_outage
GPUS=8 SWITCHES=1 lab_up 2
FW_SLOW_LOADS=$T/slow LD_PRELOAD=$B/connectors/slurm/libfwrace.so \
	ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 serve_up 2
PORT=$(cat "$T/port")
API=http://127.0.0.1:$PORT/v1
a=$(sbatch --parsable -A team_a --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 300')
wait_until 20 "running $a" || bad setup "job $a did not run"
CP=$(cat "$T/lab/run/slurmctld.pid")
kill -TERM "$CP"
wait_until 15 "! kill -0 $CP 2>/dev/null" || bad setup "slurmctld $CP did not stop"
# the first cycle to see it down says so (one already inside its read
# when slurmctld went may wait out that read's retries: the ping came first)
down() { curl -s -m 10 "$API/health" | python3 -c 'import json,sys; assert json.load(sys.stdin)["ok"] is False'; }
wait_until 20 'down 2>/dev/null' || bad setup "health never said ok false: $(curl -s -m 10 "$API/health")"
fast=0 last=
for i in 1 2 3; do
	last=$(curl -s -m 5 -o "$T/h.json" -w '%{time_total}' "$API/health")
	if python3 - "$T/h.json" "$last" <<'PY'; then fast=$((fast + 1)); fi
import json, sys
h = json.load(open(sys.argv[1]))
assert float(sys.argv[2]) < 1.0 and h["ok"] is False and "slurm" in h.get("error", ""), (sys.argv[2], h)
PY
	sleep 1
done
if [ "$fast" = 3 ]; then
	ok outage_health_answers
else
	bad outage_health_answers "$fast of 3 in time; last ${last}s: $(cat "$T/h.json")"
fi
t=$(curl -s -m 5 -o "$T/a.json" -w '%{time_total}' "$API/jobs/$a")
t0=$(date +%s%N)
list=$(timeout 5 "$B/tools/fairway" jobs list --server "http://127.0.0.1:$PORT" 2>&1)
ms=$((($(date +%s%N) - t0) / 1000000))
if python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert float(sys.argv[2]) < 1.0 and j["state"] == "running", j' \
	"$T/a.json" "$t" && [ "$ms" -lt 1000 ] && grep -Eq "^$a +team_a .* running " <<<"$list"; then
	ok outage_reads_answer
else
	bad outage_reads_answer "GET ${t}s $(cat "$T/a.json"); jobs list ${ms} ms: $list"
fi
failed=$(curl -s -m 5 "http://127.0.0.1:$PORT/metrics" | sed -n 's/^fairway_cycles_failed_total //p')
if [ "${failed:-0}" -ge 1 ]; then ok outage_counted; else bad outage_counted "fairway_cycles_failed_total '${failed}'"; fi
"$T/lab/sbin/slurmctld" -f "$SLURM_CONF" || bad setup "slurmctld did not start again"
healthy() { curl -s -m 2 "$API/health" | python3 -c 'import json,sys; assert json.load(sys.stdin)["ok"] is True'; }
b=
if wait_until 30 'scontrol ping >/dev/null 2>&1 && healthy 2>/dev/null'; then
	b=$(sbatch --parsable -A team_a --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 300')
fi
if [ -n "$b" ] && wait_until 30 "running $b"; then
	ok back_after_restart
else
	bad back_after_restart "health: $(curl -s -m 2 "$API/health"); job ${b:-none}: $(squeue -h -j "${b:-0}" -o '%T %Q %r %k' 2>&1)"
fi
starts() { curl -s -m 5 "$API/jobs/$1" | python3 -c 'import json,sys; print(sum(d["kind"] == "start" for d in json.load(sys.stdin).get("decisions", [])))'; }
sa=$(starts "$a")
sb=$(starts "${b:-0}" 2>/dev/null)
if [ "$sa" = 1 ] && [ "$sb" = 1 ]; then ok one_start_each; else bad one_start_each "starts: $a $sa, ${b:-none} $sb"; fi
cycles() { curl -s -m 5 "http://127.0.0.1:$PORT/metrics" | sed -n 's/^fairway_cycles_total //p'; }
c0=$(cycles)
touch "$T/slow"
t=
if wait_until 15 'test -e "$T/slow.in"'; then
	sleep 0.3 # well inside the load's 3 s
	t=$(curl -s -m 10 -o "$T/s.json" -w '%{time_total}' "$API/jobs/$a")
fi
rm -f "$T/slow"
wait_until 15 "[ \"\$(cycles)\" -gt \"${c0:-0}\" ]"
c1=$(cycles)
if [ -n "$t" ] && python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert float(sys.argv[2]) < 1.0 and j["state"] == "running", j' \
	"$T/s.json" "$t" && [ "${c1:-0}" -gt "${c0:-0}" ]; then
	ok slow_load_unlocked
else
	bad slow_load_unlocked "GET ${t:-never (no slow load seen)}s $(cat "$T/s.json" 2>/dev/null); cycles ${c0} -> ${c1}"
fi
serve_down
cancel_all
finish
