#!/usr/bin/env bash
# tests/integration/slurm_serve.sh BUILD_DIR — `fairway serve --backend
# slurm` against a real Slurm lab (tests/slurm/lab.sh), sbatch jobs only:
#   serve_starts_sbatch_jobs   held sbatch jobs are started by the daemon
#   serve_min_job_age_shown    GET /v1/health shows slurm.conf's MinJobAge
#                              (minJobAgeS 60, the lab's) and, with a
#                              500 ms period well below it, no warning
#                              (warnings [], none on stderr)
#   serve_min_job_age_warned   a daemon whose --period (1m) is no shorter
#                              than MinJobAge says so once on stderr at
#                              start, with both figures and what to do
#                              (MinJobAge=120, or a shorter --period), and
#                              lists it in GET /v1/health's warnings
#   serve_ended_job_names_its_node  a job run to COMPLETED, while
#                              slurmctld lists it (MinJobAge): GET
#                              /v1/jobs/ID has state done, exitCode 0 and
#                              nodes [its NodeList]; ?state=done lists it,
#                              the list without a state does not
#   serve_ended_job_shows_ran_on  ... `fairway jobs show ID` prints
#                              "state: done" and "ran on NODE" (the local
#                              backend's words)
#   serve_health_no_new_job    a node reported unhealthy through the API
#                              (POST /v1/nodes/NAME/health) gets no new job
#   serve_health_drains_idle   ... and, idle, is drained in Slurm with
#                              fairway's reason (scontrol show node: DRAIN,
#                              Reason=fairway: drain: ...)
#   serve_health_repaired_resumed  reported healthy again, the node fairway
#                              drained is resumed in Slurm by the daemon
#   serve_operator_reason_kept an unhealthy report on a busy node an operator
#                              drained requeues its jobs but keeps the
#                              operator's reason
#   serve_requeue_refused_reported  jobs Slurm will not requeue (no
#                              --requeue) on a node reported unhealthy: the
#                              refusal is logged once, naming --requeue, and
#                              counted (fairway_actions_failed_total)
#   serve_requeue_refusal_cleared   ... and the log says when it clears
#   serve_requeued_waits_listed  a --requeue job fairway requeued off a node
#                              reported unhealthy waits for the begin time
#                              Slurm gives a requeued job: GET /v1/jobs/ID
#                              lists it with reason begin_time and a text
#                              that says it was requeued and names that
#                              time (Slurm's EligibleTime, to the minute;
#                              before, the words of a --begin job), and
#                              that time, to the second, as its
#                              expectedStart (before, null)
#   serve_requeued_comment     ... and its Slurm comment says it was
#                              requeued, not "waits for its begin time"
#   serve_restart_logged_once  ... it runs again on another node; its decision log
#                              reads start, evict, start (the restart the
#                              plan made in the eviction's cycle is applied
#                              at the next, and logged once)
#   serve_job_failures_suspect three jobs exiting 1 on one node make it
#                              suspect (probation) in the plan: Slurm's
#                              failed jobs, through the health model
#   serve_operator_drain_kept  ... while a node an operator drained for
#                              another reason stays drained, report or not
#   serve_explain_comment      a job left waiting shows fairway's reason in
#                              its Slurm comment (squeue -o %k): the daemon
#                              calls the backend's explain after apply
#   serve_explains_held_alone  ... also when the only job waiting is one the
#                              adapter holds (--begin ahead): its comment
#                              says so, though the plan has no waiting job
#   serve_window_reservation   a maintenance window POSTed to
#                              /v1/reservations becomes the Slurm reservation
#                              fairway-maint-<id> (scontrol show res: its
#                              nodes, start, end, flags MAINT,IGNORE_JOBS),
#                              on a node Slurm has and the config does not
#   serve_backend_nodes_named  the API takes a health report for that node
#                              (200), and one for a node nobody has is a
#                              404 that says where to look
#   serve_window_open_drains   a window open from now: its idle node is
#                              drained in Slurm with the window named
#                              (Reason=fairway: drain: maintenance window
#                              psu (PSU swap); ...)
#   serve_window_drained_back_at_end  ... and, drained (and MAINT), still
#                              back at the window's end in GET /v1/nodes
#                              (before, only until the drain landed)
#   serve_window_deleted_resumed  ... and, the window DELETEd, resumed, its
#                              reservation gone
#   serve_kill9_restart        the daemon killed with -9 twice mid-run and
#                              restarted: every job runs exactly once, the
#                              queue drains
#   serve_window_restart       ... and the window's reservation is still
#                              there, once, unchanged
#   serve_window_deleted       the window DELETEd through the API: its Slurm
#                              reservation is gone
#   serve_unreachable          a slurm.conf whose controller does not answer
#                              (given as --backend-opt conf=PATH, as the
#                              daemon's runs above give the lab's):
#                              serve exits at once with "cannot reach
#                              slurmctld", Slurm state unchanged
#   serve_bad_config           an invalid YAML: serve exits 2 naming the
#                              field, Slurm state unchanged
#   serve_bad_partition        --backend-opt partitions=gpus (Slurm has no
#                              such partition): serve exits 2 naming it and
#                              Slurm's partitions, Slurm state unchanged
# The daemon resolves API node names against its --config fleet, so the
# test writes one listing the lab's 16 nodes (their capacity and topology
# still come from Slurm).
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_serve
FAIRWAY=$B/tools/fairway
if [ ! -x "$FAIRWAY" ] || ! "$FAIRWAY" serve --help 2>&1 | grep -q '^  slurm'; then
	echo "SKIP slurm_serve: fairway serve has no slurm backend in $B"
	finish
fi
lab_up 16
SPID=

{
	sed -n '/^scheduler/,$p' "$SRC/tests/slurm/fairway.yaml"
	echo "nodes:" # gpu016 left out: the API knows Slurm's nodes, not only the config's
	for i in $(seq 15); do
		printf '  - {name: gpu%03d, gpus: 8, gpuModel: h100, cpu: 64, memory: 500Gi, topology: {switch: s%d}}\n' \
			"$i" $(((i - 1) / 8 + 1))
	done
} >"$T/serve.yaml"

serve_start() {
	rm -f "$T/port"
	"$FAIRWAY" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpu \
		--config "$T/serve.yaml" --state "$T/state" \
		--listen 127.0.0.1:0 --port-file "$T/port" --period 500ms >>"$T/serve.log" 2>&1 &
	SPID=$!
	wait_until 20 'test -s "$T/port"' || { bad serve_start "no port: $(tail -3 "$T/serve.log")"; finish; }
	PORT=$(cat "$T/port")
}
serve_kill9() {
	kill -KILL "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SPID=
}
serve_stop() {
	[ -n "$SPID" ] || return 0
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SPID=
}
trap '[ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null; cleanup' EXIT

# ------------------------------------------------------------ 1. starts
serve_start
submit 10 team_a 30
if wait_until 15 'test "$(squeue -h -t R -A team_a | wc -l)" = 10'; then
	ok serve_starts_sbatch_jobs
else
	bad serve_starts_sbatch_jobs "$(squeue -h -o '%i %T %Q %k' | head -3); $(tail -3 "$T/serve.log")"
fi
cancel_all
# MinJobAge, read from slurmctld before the first cycle (backend.h ended_keep)
health_keep() { # PORT FILE WARNINGS: minJobAgeS 60 and that many warnings
	curl -s "http://127.0.0.1:$1/v1/health" >"$2" &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); w = j["warnings"]
assert j["minJobAgeS"] == 60 and len(w) == int(sys.argv[2]), j
assert not w or ("MinJobAge=60 s" in w[0] and "--period 60 s" in w[0] and "MinJobAge=120" in w[0]
                 and "lower --period" in w[0]), w' "$2" "$3"
}
if wait_until 10 'health_keep "$PORT" "$T/keep.json" 0 2>/dev/null' && ! grep -q 'MinJobAge' "$T/serve.log"; then
	ok serve_min_job_age_shown
else
	bad serve_min_job_age_shown "$(cat "$T/keep.json"); $(grep MinJobAge "$T/serve.log" | head -2)"
fi

# A job that runs to COMPLETED: while slurmctld lists it (MinJobAge), the
# daemon shows where it ran, as the local backend shows an ended job.
done_job=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
wait_until 30 "scontrol -o show job $done_job | grep -q 'JobState=COMPLETED'"
ran=$(scontrol -o show job "$done_job" | grep -o ' NodeList=[^ ]*' | cut -d= -f2)
ended_listed() {
	curl -s "http://127.0.0.1:$PORT/v1/jobs/$done_job" >"$T/done.json" &&
		curl -s "http://127.0.0.1:$PORT/v1/jobs?state=done" >"$T/done_list.json" &&
		curl -s "http://127.0.0.1:$PORT/v1/jobs" >"$T/live_list.json" &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); n = sys.argv[3]
assert j["state"] == "done" and j["nodes"] == [sys.argv[2]] and j["exitCode"] == 0, j
assert j["queue"] == "team_a" and j["gpus"] == 1 and j["startTime"] <= j["endTime"], j
assert [x["name"] for x in json.load(open(sys.argv[4]))["jobs"]] == [n]
assert n not in [x["name"] for x in json.load(open(sys.argv[5]))["jobs"]]' \
			"$T/done.json" "$ran" "$done_job" "$T/done_list.json" "$T/live_list.json"
}
if [ -n "$ran" ] && wait_until 10 'ended_listed 2>/dev/null'; then
	ok serve_ended_job_names_its_node
else
	bad serve_ended_job_names_its_node "job $done_job ran on '$ran': GET $(head -c 400 "$T/done.json"); list $(head -c 200 "$T/done_list.json")"
fi
"$FAIRWAY" --server "http://127.0.0.1:$PORT" jobs show "$done_job" >"$T/done.txt" 2>&1
if grep -qx 'state: done' "$T/done.txt" && grep -qx "ran on $ran" "$T/done.txt" && grep -qx 'exit code: 0' "$T/done.txt"; then
	ok serve_ended_job_shows_ran_on
else
	bad serve_ended_job_shows_ran_on "$(head -c 400 "$T/done.txt")"
fi

# a held job alone: not in the snapshot, so the plan has nothing waiting,
# and the daemon called explain only for waiting jobs until now
hb=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --begin=now+3600 --wrap 'sleep 1')
if wait_until 10 'squeue -h -o %k -j "$hb" | grep -q "^fairway: waits for its begin time"'; then
	ok serve_explains_held_alone
else
	bad serve_explains_held_alone "job $hb comment '$(squeue -h -o %k -j "$hb")'; $(tail -3 "$T/serve.log")"
fi
cancel_all

# ------------------------------------------------------------ 2. health
code=$(curl -s -o "$T/health.out" -w '%{http_code}' -X POST \
	-H "Authorization: Bearer $(cat "$T/state/token")" \
	-d '{"healthy": false, "reason": "xid 79"}' "http://127.0.0.1:$PORT/v1/nodes/gpu007/health")
submit 130 team_a 60 # long enough that none ends before all 120 run (a loaded CI machine)
wait_until 30 'test "$(gpus_of team_a)" -ge 120'
sleep 1
on=$(squeue -h -t R,PD -w gpu007 -o %i | wc -l)
if [ "$code" = 200 ] && [ "$on" = 0 ] && [ "$(gpus_of team_a)" = 120 ]; then
	ok serve_health_no_new_job
else
	bad serve_health_no_new_job "POST $code $(cat "$T/health.out"); $on jobs on gpu007; team_a holds $(gpus_of team_a)"
fi
pd=$(squeue -h -t PD -A team_a -o %i | tail -1)
if wait_until 10 'squeue -h -o %k -j "$pd" | grep -q "^fairway: waiting: "'; then
	ok serve_explain_comment
else
	bad serve_explain_comment "job $pd comment '$(squeue -h -o %k -j "$pd")'; $(tail -3 "$T/serve.log")"
fi
node=$(scontrol show node gpu007)
if grep -q 'State=[A-Z+]*DRAIN' <<<"$node" && grep -q 'Reason=fairway: drain: ' <<<"$node"; then
	ok serve_health_drains_idle
else
	bad serve_health_drains_idle "$(grep -E 'State=|Reason=' <<<"$node" | tr -s ' ' | tr '\n' ' ')"
fi
cancel_all
# An operator's own drain of a busy node: fairway's drain of it (after an
# unhealthy report; its jobs are requeued) must keep the operator's
# reason, and a healthy report must not undo it.
submit 120 team_a 120 --requeue -t 5 # the lab has JobRequeue=0
wait_until 30 'test "$(squeue -h -t R -w gpu006 | wc -l)" -gt 0'
busy=$(squeue -h -t R -w gpu006 | wc -l)
scontrol update nodename=gpu006 state=drain reason="operator: bios update"
curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
	-d '{"healthy": false, "reason": "xid 48"}' "http://127.0.0.1:$PORT/v1/nodes/gpu006/health"
wait_until 15 'test "$(squeue -h -t R -w gpu006 | wc -l)" = 0'
sleep 1
node=$(scontrol show node gpu006)
if [ "$busy" -gt 0 ] && [ "$(squeue -h -t R -w gpu006 | wc -l)" = 0 ] &&
	grep -q 'State=[A-Z+]*DRAIN' <<<"$node" && grep -q 'Reason=operator: bios update' <<<"$node"; then
	ok serve_operator_reason_kept
else
	bad serve_operator_reason_kept "$busy jobs before; $(squeue -h -t R -w gpu006 | wc -l) after; $(grep -E 'State=|Reason=' <<<"$node" | tr -s ' ' | tr '\n' ' ')"
fi
cancel_all
# Jobs Slurm will not requeue (no --requeue, JobRequeue=0) on a node
# reported unhealthy: the refusal is logged once, naming the fix, and
# counted; once they are gone the log says the backend takes actions again.
# (-t 5: no job reaches its time limit, which would end the refusals early)
submit 120 team_a 120 -t 5
log0=$(wc -l <"$T/serve.log")
since() { tail -n +$((log0 + 1)) "$T/serve.log"; } # this block's log lines
wait_until 30 'test "$(squeue -h -t R -w gpu005 | wc -l)" -gt 0'
curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
	-d '{"healthy": false, "reason": "xid 79"}' "http://127.0.0.1:$PORT/v1/nodes/gpu005/health"
if wait_until 10 'since | grep -q "refused .*requeue .*--requeue"'; then
	sleep 2 # a few more cycles: still one line
	failed=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '$1 == "fairway_actions_failed_total" {print $2}')
	if [ "$(since | grep -c "refused")" = 1 ] && [ "${failed:-0}" -gt 1 ] &&
		[ "$(squeue -h -t R -w gpu005 | wc -l)" -gt 0 ]; then
		ok serve_requeue_refused_reported
	else
		bad serve_requeue_refused_reported "$(since | grep -c "refused") log lines, fairway_actions_failed_total=$failed: $(since | grep -E "refused|takes every" | cut -c1-150 | tr '\n' '|')"
	fi
else
	bad serve_requeue_refused_reported "no refusal in the log: $(tail -3 "$T/serve.log")"
fi
cancel_all
if wait_until 10 'since | grep -q "takes every action again"'; then
	ok serve_requeue_refusal_cleared
else
	bad serve_requeue_refusal_cleared "$(tail -3 "$T/serve.log")"
fi
for n in gpu007 gpu006 gpu005; do
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
		-d '{"healthy": true, "reason": "repaired"}' "http://127.0.0.1:$PORT/v1/nodes/$n/health"
done
if wait_until 15 '! scontrol show node gpu007 | grep -q "State=[A-Z+]*DRAIN"'; then
	ok serve_health_repaired_resumed
else
	bad serve_health_repaired_resumed "$(scontrol show node gpu007 | grep -E 'State=|Reason=' | tr -s ' ' | tr '\n' ' ')"
fi
node=$(scontrol show node gpu006)
if grep -q 'State=[A-Z+]*DRAIN' <<<"$node" && grep -q 'Reason=operator: bios update' <<<"$node"; then
	ok serve_operator_drain_kept
else
	bad serve_operator_drain_kept "$(grep -E 'State=|Reason=' <<<"$node" | tr -s ' ' | tr '\n' ' ')"
fi
scontrol update nodename=gpu006 state=resume # the operator's own resume

# A job requeued off a node reported unhealthy starts again on another
# node.  The plan requeues and restarts it in one cycle; the Slurm backend
# leaves that start to a later cycle (Slurm finishes the requeue first,
# and holds a requeued job back until its begin time, about two minutes
# on: the test moves that to now), so the decision log holds one start
# after the eviction, not two.
rq=$(sbatch --parsable -A team_a --requeue --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 300')
if wait_until 30 "test -n \"\$(squeue -h -j $rq -t R -o %N)\""; then
	rqnode=$(squeue -h -j "$rq" -o %N)
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
		-d '{"healthy": false, "reason": "xid 79"}' "http://127.0.0.1:$PORT/v1/nodes/$rqnode/health"
	wait_until 30 "test \"\$(squeue -h -j $rq -o %T)\" = PENDING"
	begin=$(scontrol -o show job "$rq" | grep -o 'EligibleTime=[^ ]*')
	secs=$(date -d "${begin#EligibleTime=}" +%s 2>/dev/null || echo 0)
	at=$(date -u -d "@$(((secs + 59) / 60 * 60))" +%FT%H:%MZ) # the texts' minute, rounded up
	requeued_listed() {
		curl -s "http://127.0.0.1:$PORT/v1/jobs/$rq" >"$T/rq.json" &&
			python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); t = j["reasonText"]
assert j["state"] == "pending" and j["reason"] == "begin_time", j
assert t.startswith("requeued (1 time): Slurm starts a requeued job again only from its begin time, " + sys.argv[2] + " "), t
assert "its expected start at the earliest" in t, t
assert j["expectedStart"] == int(sys.argv[3]) and "unknownWhy" not in j, j' \
				"$T/rq.json" "$at" "$secs"
	}
	if wait_until 10 'requeued_listed 2>/dev/null'; then
		ok serve_requeued_waits_listed
	else
		bad serve_requeued_waits_listed "GET: $(cat "$T/rq.json"); Slurm: $begin"
	fi
	# Slurm's comment tells the requeue from a --begin
	if wait_until 10 "squeue -h -o %k -j $rq | grep -qF 'fairway: requeued (1 time): Slurm starts it again only from its begin time, $at (EligibleTime, set by the requeue): held until then'"; then
		ok serve_requeued_comment
	else
		bad serve_requeued_comment "Comment: $(squeue -h -o %k -j "$rq")"
	fi
	scontrol update jobid="$rq" starttime=now
	if wait_until 30 "n=\$(squeue -h -j $rq -t R -o %N); test -n \"\$n\" -a \"\$n\" != $rqnode"; then
		sleep 2 # a few more cycles: no second start logged
		kinds=$(curl -s -H "Authorization: Bearer $(cat "$T/state/token")" "http://127.0.0.1:$PORT/v1/decisions?job=$rq" |
			python3 -c 'import json, sys; print(" ".join(d["kind"] for d in json.load(sys.stdin)["decisions"]))')
		if [ "$kinds" = "start evict start" ]; then
			ok serve_restart_logged_once
		else
			bad serve_restart_logged_once "job $rq's decisions: $kinds"
		fi
	else
		bad serve_restart_logged_once "job $rq did not run again off $rqnode ($begin after its requeue at $(date +%T)): $(squeue -h -j "$rq" -o '%T %N %r')"
	fi
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
		-d '{"healthy": true, "reason": "repaired"}' "http://127.0.0.1:$PORT/v1/nodes/$rqnode/health"
	wait_until 15 "! scontrol show node $rqnode | grep -q 'State=[A-Z+]*DRAIN'"
else
	bad serve_restart_logged_once "job $rq never ran: $(squeue -h -j "$rq" -o '%T %N %r')"
fi
cancel_all

# Three jobs that exit 1 on one node (the only one left free by 120
# one-GPU jobs): repeated job failures make it suspect (probation).
submit 120 team_a 120
wait_until 30 'test "$(squeue -h -t R -A team_a | wc -l)" = 120'
jf=()
for i in 1 2 3; do
	jf+=("$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'exit 1')")
done
wait_until 20 'test "$(squeue -h -t PD,R,CG -j "$(IFS=,; echo "${jf[*]}")" 2>/dev/null | wc -l)" = 0'
on=$(for j in "${jf[@]}"; do scontrol -o show job "$j" | grep -o ' NodeList=[^ ]*' | cut -d= -f2; done | sort -u | grep -v '^$')
states=$(for j in "${jf[@]}"; do scontrol -o show job "$j" | grep -o 'JobState=[A-Z_]*'; done | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
if [ "$(wc -w <<<"$on")" = 1 ] &&
	wait_until 10 'curl -s "http://127.0.0.1:$PORT/v1/nodes/$on" | grep -q "\"health\":\"suspect\""'; then
	ok serve_job_failures_suspect
else
	bad serve_job_failures_suspect "jobs ran on '$(tr '\n' ' ' <<<"$on")' ($states); $(curl -s "http://127.0.0.1:$PORT/v1/nodes/${on%% *}")"
fi
cancel_all

# ------------------------------------------------------------ 3. window
# A maintenance window an hour ahead (whole minutes, as Slurm shows them):
# the kill -9 runs below happen while it exists.
ws=$((($(date +%s) / 60 + 60) * 60))
we=$((ws + 3600))
code=$(curl -s -o "$T/win.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
	-d "{\"id\": \"bios\", \"kind\": \"maintenance\", \"nodes\": [\"gpu015\", \"gpu016\"], \"start\": $ws, \"end\": $we}" \
	"http://127.0.0.1:$PORT/v1/reservations")
window() { scontrol -o show res fairway-maint-bios 2>/dev/null | grep '^ReservationName=fairway-maint-bios '; }
wait_until 5 'window >/dev/null'
res=$(window)
want="StartTime=$(date -d "@$ws" +%FT%T) EndTime=$(date -d "@$we" +%FT%T) .* Nodes=gpu\[015-016\] "
if [ "$code" = 201 ] && grep -q "$want" <<<"$res" && grep -q 'Flags=MAINT,IGNORE_JOBS' <<<"$res"; then
	ok serve_window_reservation
else
	bad serve_window_reservation "POST $code $(cat "$T/win.out"); res '$res'; $(tail -3 "$T/serve.log")"
fi
# gpu016 is Slurm's, not in the config's nodes: the window above took it,
# and so does a health report
code=$(curl -s -o "$T/h16.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
	-d '{"healthy": true, "reason": "ok"}' "http://127.0.0.1:$PORT/v1/nodes/gpu016/health")
code2=$(curl -s -o "$T/h17.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
	-d '{"healthy": true}' "http://127.0.0.1:$PORT/v1/nodes/gpu017/health")
if [ "$code" = 200 ] && [ "$code2" = 404 ] && grep -qF '`fairway nodes` lists the nodes' "$T/h17.out"; then
	ok serve_backend_nodes_named
else
	bad serve_backend_nodes_named "gpu016: $code $(cat "$T/h16.out"); gpu017: $code2 $(cat "$T/h17.out")"
fi

# A window open from now: the first cycle that sees it drains its idle
# node (still schedulable in Slurm until the window's reservation exists).
now=$(date +%s)
code=$(curl -s -o "$T/win.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$T/state/token")" \
	-d "{\"id\": \"psu\", \"kind\": \"maintenance\", \"nodes\": [\"gpu014\"], \"start\": $now, \"end\": $((now + 3600)), \"reason\": \"PSU swap\"}" \
	"http://127.0.0.1:$PORT/v1/reservations")
if [ "$code" = 201 ] && wait_until 10 'scontrol show node gpu014 | grep -q "State=[A-Z+]*DRAIN" &&
	scontrol show node gpu014 | grep -q "Reason=fairway: drain: maintenance window psu (PSU swap); "'; then
	ok serve_window_open_drains
else
	bad serve_window_open_drains "POST $code $(cat "$T/win.out"); $(scontrol show node gpu014 | grep -E 'State=|Reason=' | tr -s ' ' | tr '\n' ' ')"
fi
# drained (and MAINT, its reservation open) in Slurm, the node is still
# back at the window's end for the estimates, cycle after cycle
sleep 1.5
back=$(curl -s "http://127.0.0.1:$PORT/v1/nodes/gpu014" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("backAt"))')
if [ "$back" = $((now + 3600)) ]; then
	ok serve_window_drained_back_at_end
else
	bad serve_window_drained_back_at_end "backAt '$back', not $((now + 3600)); $(scontrol show node gpu014 | grep -E 'State=' | tr -s ' ')"
fi
code=$(curl -s -o "$T/win.out" -w '%{http_code}' -X DELETE -H "Authorization: Bearer $(cat "$T/state/token")" \
	"http://127.0.0.1:$PORT/v1/reservations/psu")
if [ "$code" = 200 ] && wait_until 15 '! scontrol show node gpu014 | grep -q "State=[A-Z+]*DRAIN" &&
	! scontrol -o show res fairway-maint-psu 2>/dev/null | grep -q ^ReservationName'; then
	ok serve_window_deleted_resumed
else
	bad serve_window_deleted_resumed "DELETE $code; $(scontrol show node gpu014 | grep -E 'State=|Reason=' | tr -s ' ' | tr '\n' ' ')"
fi

# ------------------------------------------------------------ 4. kill -9
log=$T/ran.log
: >"$log"
for ((i = 0; i < 60; i++)); do
	sbatch -Q -A team_a --gres=gpu:4 -t 1 -o /dev/null --wrap "echo \$SLURM_JOB_ID >> $log; sleep 2"
done
sleep 2
serve_kill9
sleep 1
serve_start
sleep 1.5
serve_kill9
serve_start
wait_until 90 no_jobs
if [ "$(sort -u "$log" | wc -l)" = 60 ] && [ "$(wc -l <"$log")" = 60 ]; then
	ok serve_kill9_restart
else
	bad serve_kill9_restart "$(wc -l <"$log") runs of $(sort -u "$log" | wc -l) jobs (expected 60 once each); $(squeue -h | wc -l) left"
fi
n=$(scontrol -o show res 2>/dev/null | grep -c '^ReservationName=fairway-maint-')
if [ "$n" = 1 ] && [ "$(window)" = "$res" ]; then
	ok serve_window_restart
else
	bad serve_window_restart "$n fairway-maint- reservations; '$(window)'"
fi
code=$(curl -s -o "$T/win.out" -w '%{http_code}' -X DELETE -H "Authorization: Bearer $(cat "$T/state/token")" \
	"http://127.0.0.1:$PORT/v1/reservations/bios")
if [ "$code" = 200 ] && wait_until 5 '! window >/dev/null'; then
	ok serve_window_deleted
else
	bad serve_window_deleted "DELETE $code $(cat "$T/win.out"); '$(window)'"
fi
serve_stop

# A period no shorter than MinJobAge (60 s in the lab): a job may end and
# be purged between two reads.  Said once at start, and in /v1/health.
"$FAIRWAY" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpu \
	--config "$T/serve.yaml" --state "$T/state5" --listen 127.0.0.1:0 --port-file "$T/port5" \
	--period 1m >"$T/slow.log" 2>&1 &
SPID=$!
if wait_until 20 'test -s "$T/port5" && health_keep "$(cat "$T/port5")" "$T/keep.json" 1 2>/dev/null' &&
	[ "$(grep -c '^fairway serve: warning: Slurm lists an ended job for MinJobAge=60 s' "$T/slow.log")" = 1 ]; then
	ok serve_min_job_age_warned
else
	bad serve_min_job_age_warned "$(cat "$T/keep.json" 2>/dev/null); $(tail -3 "$T/slow.log")"
fi
serve_stop

# ------------------------------------------------------------ 5. errors
state() {
	squeue -h -o '%i %T %Q %k %N' | sort
	sinfo -h -N -o '%N %T %E' | sort
	scontrol -o show res 2>&1
}
submit 2 team_a 5
before=$(state)
sed 's/^SlurmctldPort=.*/SlurmctldPort=1/' "$SLURM_CONF" >"$T/lab/etc/unreachable.conf"
start=$SECONDS
timeout 20 "$FAIRWAY" serve --backend slurm --backend-opt "conf=$T/lab/etc/unreachable.conf" \
	--config "$T/serve.yaml" --state "$T/state2" --listen 127.0.0.1:0 >"$T/out" 2>&1
rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && ((SECONDS - start <= 5)) && grep -q "cannot reach slurmctld" "$T/out" &&
	[ "$(state)" = "$before" ]; then
	ok serve_unreachable
else
	bad serve_unreachable "exit $rc after $((SECONDS - start)) s: $(head -c 300 "$T/out")"
fi
printf 'queues:\n  - name: team_a\n    resources: {gpu: {quota: -3}}\n' >"$T/bad.yaml"
timeout 20 "$FAIRWAY" serve --backend slurm --config "$T/bad.yaml" --state "$T/state3" \
	--listen 127.0.0.1:0 >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "quota" "$T/out" && [ "$(state)" = "$before" ]; then
	ok serve_bad_config
else
	bad serve_bad_config "exit $rc: $(head -c 300 "$T/out")"
fi
# a managed partition Slurm does not have: refused at start, named (the
# daemon managed no node and said nothing)
timeout 20 "$FAIRWAY" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpus \
	--config "$T/serve.yaml" --state "$T/state4" --listen 127.0.0.1:0 >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q -- "--backend-opt: field partitions: no partition 'gpus' in Slurm (it has: gpu" "$T/out" &&
	[ "$(state)" = "$before" ]; then
	ok serve_bad_partition
else
	bad serve_bad_partition "exit $rc: $(head -c 300 "$T/out")"
fi
finish
