#!/usr/bin/env bash
# tests/integration/slurm_reservations.sh BUILD_DIR — Slurm's own
# reservations (an admin's `scontrol create reservation`) against a real
# lab of 4 nodes x 8 fake GPUs.  Seen before: fairway released a job onto
# a node of an admin's reservation, where Slurm kept it pending
# ("ReqNodeNotAvail, May be reserved for other job") while fairway booked
# the node for it, for the hours the reservation had left; a job that
# asked for a reservation was placed wherever fairway chose; a node in a
# maintenance reservation counted as gone for good in the estimates.
# Reservations made before fairway starts: adm_maint (MAINT, gpu001, open
# now, 30 min), adm_users (gpu002, open now, 10 h), adm_soon (gpu003, from
# an hour on), fairway-lab (gpu004, an admin's despite its name, from 20 h
# on).  gpu004 is free.
#   long_only_where_free     an 8-GPU job of -t 120 runs on gpu004: gpu001
#                            and gpu002 are reserved now, and it would
#                            still run when adm_soon begins on gpu003
#   short_fits_before        an 8-GPU job of -t 5 runs on gpu003: done
#                            before adm_soon begins
#   reservation_job_runs     a job asking --reservation=adm_users runs on
#                            gpu002, released into it by fairway
#   reservation_job_comment  its comment says fairway released it into the
#                            reservation for Slurm to place
#   return_is_a_start_time   a second -t 120 job waits, expected to start
#                            when adm_maint ends (gpu001 back), not when
#                            the running jobs end (2 h)
#   reserved_held            a -t 120 job that excludes every node but
#                            gpu003 stays held, with a reservation of
#                            fairway's there from adm_soon's end, its
#                            expected start (it was held "until the
#                            reservation is over", with no estimate)
#   none_released_onto_reserved  no job but the reservation's own was ever
#                            released onto gpu001 or gpu002
#   deleted_frees_the_node   adm_users deleted: the waiting job starts on
#                            gpu002
#   admin_fairway_named_kept fairway-lab, an admin's reservation named like
#                            fairway's, is still there after all those
#                            cycles (before, the first apply deleted every
#                            fairway- reservation its plan did not name)
# Then through the daemon (fairway serve --backend slurm):
#   serve_reservation_logged_once  a whole-node and a partial-node
#                            reservation held in place for a dozen cycles
#                            are logged once each (twice if moved), not
#                            once a cycle
#   serve_maint_node_not_unhealthy  the MAINT node is healthy with no
#                            reason in GET /v1/nodes (it was "UNHEALTHY
#                            (slurm)"), back at the reservation's end
#   serve_node_leaves_at_reservation  adm_soon's node (gpu003, in service)
#                            shows leavesAt = a minute before its start
#                            (Slurm starts a released job a moment
#                            later) and backAt = its
#                            end in GET /v1/nodes, "leaves in" in
#                            fairway nodes list
# Slurm's own reservations in the daemon's list (before, GET
# /v1/reservations and `fairway reservations` showed only the daemon's):
#   serve_lists_slurm_reservations  GET /v1/reservations lists adm_maint
#                            (kind backend, source slurm, readOnly, nodes
#                            [gpu001], flags with MAINT, Slurm's start and
#                            end) and adm_soon (gpu003), and the daemon's
#                            window "bios" once (source fairway), and
#                            fairway-lab (source slurm), but neither its
#                            mirror fairway-maint-bios nor the job
#                            reservation fairway-<job>, both of which
#                            scontrol shows
#   serve_get_slurm_reservation  GET /v1/reservations/adm_maint answers it
#   serve_backend_name_refused  a window POSTed with the id of Slurm's
#                            adm_soon is 409 (both were listed, and GET by
#                            that name answered the daemon's alone)
#   serve_delete_slurm_refused  DELETE /v1/reservations/adm_maint is 409,
#                            says "scontrol delete reservation=adm_maint",
#                            and Slurm still has it
#   cli_lists_slurm_reservations  `fairway reservations` prints adm_maint
#                            as "backend slurm MAINT..." on gpu001, and
#                            --json holds it with readOnly true
# A job a Slurm reservation keeps out of fairway's plan (before, in no
# list, and `fairway jobs why` answered 404): one asking
# --reservation=adm_soon, which begins in an hour:
#   serve_reserved_listed    GET /v1/jobs/ID answers 200: pending, planned
#                            false, reason in_reservation, a reasonText
#                            naming adm_soon, "scontrol show res adm_soon"
#                            and what to do; GET /v1/jobs?state=pending
#                            lists it; fairway released it into adm_soon
#                            (its comment), where Slurm keeps it waiting
#   cli_reserved_why         `fairway jobs why ID` prints the reason, exit 0
# Two reservations on one node with a gap (before, gpu003 stayed out to
# the end of the last, while the daemon's own windows take the first
# only): adm_later on gpu003 two hours after adm_soon ends:
#   serve_node_back_in_gap   GET /v1/nodes/gpu003 still leaves a minute
#                            before adm_soon and is back at its end, not
#                            adm_later's
#   serve_gap_job_estimated  a -t 90 job that may use gpu003 alone (too
#                            long to end before adm_soon) is expected at
#                            adm_soon's end (GET /v1/jobs/ID), and
#                            fairway's Slurm reservation for it ends
#                            before adm_later begins
#   serve_gap_too_short_held a -t 150 job on gpu003 alone, which from now
#                            would end before adm_later but from
#                            adm_soon's end would run into it, waits with
#                            reason slurm_reservation naming adm_later (no
#                            reservation of fairway's across it)
# A daemon's maintenance window after a gap (before, the Slurm node
# filters kept an admin's reservations only: a job that would run from the
# node's return into the window was reserved across it): window fw_later
# on gpu003 80 minutes after adm_soon ends (its Slurm mirror
# fairway-maint-fw_later):
#   serve_window_gap_fits    a -t 70 job on gpu003 alone is expected at
#                            adm_soon's end, and fairway's Slurm
#                            reservation for it ends before the window
#   serve_window_after_gap_held  a -t 100 job on gpu003 alone, which from
#                            adm_soon's end would run into the window (not
#                            into adm_later), waits with reason
#                            slurm_reservation naming "maintenance window
#                            fw_later", with no reservation of fairway's
# A reservation on two nodes that come back at unlike times, taken node
# by node (before, both counted from the later return): adm_pair on
# gpu001 (back at adm_maint's end) and gpu002 (in adm_b, open now for an
# hour), 10 minutes after adm_b ends:
#   serve_pair_node_by_node  a -t 20 job on gpu001 or gpu002, which fits
#                            the gap on gpu001 but would run into adm_pair
#                            from gpu002's return, is expected at
#                            adm_maint's end, with fairway's Slurm
#                            reservation for it on gpu001, ending before
#                            adm_pair (it was held, reason
#                            slurm_reservation)
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_reservations
GPUS=8 SWITCHES=1 lab_up 4

scontrol create reservation reservationname=adm_maint starttime=now duration=30 nodes=gpu001 \
	flags=maint users=root >/dev/null || bad setup "adm_maint"
scontrol create reservation reservationname=adm_users starttime=now duration=600 nodes=gpu002 \
	users=root >/dev/null || bad setup "adm_users"
scontrol create reservation reservationname=adm_soon starttime=now+3600 duration=60 nodes=gpu003 \
	users=root >/dev/null || bad setup "adm_soon"
scontrol create reservation reservationname=fairway-lab starttime=now+72000 duration=60 nodes=gpu004 \
	users=root >/dev/null || bad setup "fairway-lab"
maint_end=$(scontrol show res adm_maint | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')
fw_start
# every release fairway makes, sampled: "JOB REQNODES" of released jobs
watch_bg bash -c 'while :; do squeue -h -t PD -o "%i %Q %r %k" | awk "\$2 > 0"; \
	squeue -h -t R -o "%i RUN %N"; sleep 0.3; done >>"$0"' "$T/released"
long=$(sbatch --parsable -A team_a --gres=gpu:8 -t 120 -o /dev/null --wrap 'sleep 300')
on_node long_only_where_free "$long" gpu004
short=$(sbatch --parsable -A team_a --gres=gpu:8 -t 5 -o /dev/null --wrap 'sleep 300')
on_node short_fits_before "$short" gpu003
inres=$(sbatch --parsable -A team_a --gres=gpu:2 -t 5 --reservation=adm_users -o /dev/null --wrap 'sleep 300')
on_node reservation_job_runs "$inres" gpu002
c=$(squeue -h -t all -j "$inres" -o %k)
if [ "$c" = "fairway: asks for reservation adm_users: released into it; Slurm starts it there" ]; then
	ok reservation_job_comment
else
	bad reservation_job_comment "comment '$c'"
fi
# starts_near CHECK JOB WANT PATTERN: once JOB's "%Q %k" matches PATTERN,
# its comment's expected start is within 2 minutes of WANT (Unix seconds)
starts_near() {
	local name=$1 job=$2 want=$3 pat=$4 at got
	if wait_until 15 'squeue -h -j "$job" -o "%Q %k" | grep -q "$pat"'; then
		at=$(squeue -h -j "$job" -o %k | sed -n 's/.*expected start \([0-9T:-]*\)Z.*/\1/p')
		got=$(date -u -d "$at" +%s 2>/dev/null || echo 0)
		if [ $((got - want)) -ge -120 ] && [ $((got - want)) -le 120 ]; then
			ok "$name"
		else
			bad "$name" "expected start '$at', not near $(date -u -d "@$want" +%FT%T): $(squeue -h -j "$job" -o %k)"
		fi
	else
		bad "$name" "no such estimate: $(squeue -h -j "$job" -o '%Q %k')"
	fi
}
wait_job=$(sbatch --parsable -A team_a --gres=gpu:8 -t 120 -o /dev/null --wrap 'sleep 2')
starts_near return_is_a_start_time "$wait_job" "$(date -u -d "$maint_end" +%s)" "expected start"
held=$(sbatch --parsable -A team_a --gres=gpu:8 -t 120 --exclude=gpu001,gpu002,gpu004 -o /dev/null --wrap 'sleep 1')
soon_end=$(date -u -d "$(scontrol show res adm_soon | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')" +%s)
starts_near reserved_held "$held" "$soon_end" "^0 fairway: waiting: has_reservation; expected start"
scancel "$held"
watch_stop
# a job released onto gpu001 or gpu002 shows "started on gpu00[12]" in its
# comment while pending, or runs there; only the reservation's own may
stray=$(grep -E 'started on gpu00[12]|RUN gpu00[12]' "$T/released" | grep -v "^$inres " | sort -u | head -3)
if [ -z "$stray" ] && [ -s "$T/released" ]; then
	ok none_released_onto_reserved
else
	bad none_released_onto_reserved "released onto a reserved node: ${stray:-nothing sampled}"
fi
scancel "$inres"
scontrol delete reservationname=adm_users || bad setup "delete adm_users"
on_node deleted_frees_the_node "$wait_job" gpu002
if scontrol show res fairway-lab >/dev/null 2>&1; then
	ok admin_fairway_named_kept
else
	bad admin_fairway_named_kept "fairway deleted the admin's reservation fairway-lab"
fi
fw_stop
# The same world through the daemon (fairway serve --backend slurm): the
# MAINT node is not unhealthy, and a reservation held in place is logged
# once (before, once a cycle: the backend answered "done", not "already")
wait_until 20 "gone $wait_job" || bad setup "job $wait_job did not end"
fill=$(sbatch --parsable -A team_a --gres=gpu:8 -t 120 -o /dev/null --wrap 'sleep 300')
serve_up 4
PORT=$(cat "$T/port")
on_node serve_fill_runs "$fill" gpu002
whole=$(sbatch --parsable -A team_a --gres=gpu:8 -t 120 -o /dev/null --wrap 'sleep 1')
part=$(sbatch --parsable -A team_a --gres=gpu:2 -t 120 -o /dev/null --wrap 'sleep 1')
sleep 6 # a dozen cycles of 500 ms
reserves() { # JOB: the reserve decisions the daemon logged for it
	curl -s "http://127.0.0.1:$PORT/v1/jobs/$1" |
		python3 -c 'import json,sys; print(sum(d["kind"] == "reserve" for d in json.load(sys.stdin).get("decisions", [])))'
}
rw=$(reserves "$whole")
rp=$(reserves "$part")
if [ "$rw" -ge 1 ] && [ "$rw" -le 2 ] && [ "$rp" -ge 1 ] && [ "$rp" -le 2 ]; then
	ok serve_reservation_logged_once
else
	bad serve_reservation_logged_once "reserve rows: whole-node job $rw, partial $rp (want 1, 2 if moved)"
fi
node=$(curl -s "http://127.0.0.1:$PORT/v1/nodes/gpu001")
if python3 -c 'import json,sys; j = json.loads(sys.argv[1]); assert j["healthy"] and j["healthReason"] == "" and j["backAt"] == int(sys.argv[2]), j' \
	"$node" "$(date -u -d "$maint_end" +%s)"; then
	ok serve_maint_node_not_unhealthy
else
	bad serve_maint_node_not_unhealthy "GET /v1/nodes/gpu001: $node"
fi
# adm_soon's node, in service, leaves at its start and is back at its
# end (fw_node.away_at; before, the core did not know it would leave)
node=$(curl -s "http://127.0.0.1:$PORT/v1/nodes/gpu003")
soon_start=$(date -u -d "$(scontrol show res adm_soon | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')" +%s)
soon_end=$(date -u -d "$(scontrol show res adm_soon | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')" +%s)
list=$("$B/tools/fairway" nodes list --server "http://127.0.0.1:$PORT" --token-file "$T/state/token" 2>&1)
if python3 -c 'import json,sys; j = json.loads(sys.argv[1]); assert j["schedulable"] and j["leavesAt"] == int(sys.argv[2]) - 60 and j["backAt"] == int(sys.argv[3]), j' \
	"$node" "$soon_start" "$soon_end" && echo "$list" | grep -Eq '^gpu003 .* leaves in (5[0-9]m|1h)[0-9a-z]* '; then
	ok serve_node_leaves_at_reservation
else
	bad serve_node_leaves_at_reservation "GET /v1/nodes/gpu003: $node; adm_soon $soon_start..$soon_end; nodes list: $list"
fi
# Slurm's own reservations in the daemon's list
API="http://127.0.0.1:$PORT/v1"
AUTH="Authorization: Bearer $(cat "$T/state/token")"
ws=$((($(date +%s) / 60 + 120) * 60))
curl -s -o /dev/null -X POST -H "$AUTH" "$API/reservations" \
	-d "{\"id\": \"bios\", \"kind\": \"maintenance\", \"nodes\": [\"gpu004\"], \"start\": $ws, \"end\": $((ws + 600))}"
wait_until 10 'scontrol show res fairway-maint-bios >/dev/null 2>&1' || bad setup "no fairway-maint-bios in Slurm"
resvs=$(scontrol -o show res | sed -n 's/^ReservationName=\([^ ]*\) .*/\1/p' | tr '\n' ' ')
curl -s "$API/reservations" >"$T/rsv.json"
if python3 - "$T/rsv.json" "$(date -u -d "$maint_end" +%s)" "$resvs" <<'PY'; then
import json, re, sys
l = json.load(open(sys.argv[1]))["reservations"]
by = {r["id"]: r for r in l}
m = by["adm_maint"]
assert m["kind"] == "backend" and m["source"] == "slurm" and m["readOnly"] is True, m
assert m["nodes"] == ["gpu001"] and "MAINT" in m["flags"] and m["end"] == int(sys.argv[2]), m
assert by["adm_soon"]["nodes"] == ["gpu003"] and by["adm_soon"]["start"] > m["start"], by["adm_soon"]
assert [r["id"] for r in l].count("bios") == 1 and by["bios"]["source"] == "fairway", l
names = sys.argv[3].split()
assert "fairway-maint-bios" in names and any(re.fullmatch(r"fairway-[0-9_]+", n) for n in names), names
assert not any(re.match(r"fairway-(maint-|[0-9])", r["id"]) for r in l), l
assert by["fairway-lab"]["source"] == "slurm" and by["fairway-lab"]["nodes"] == ["gpu004"], by.get("fairway-lab")
PY
	ok serve_lists_slurm_reservations
else
	bad serve_lists_slurm_reservations "GET /v1/reservations: $(cat "$T/rsv.json"); Slurm has: $resvs"
fi
code=$(curl -s -o "$T/one.json" -w '%{http_code}' "$API/reservations/adm_maint")
if [ "$code" = 200 ] && python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert j["id"] == "adm_maint" and j["readOnly"]' "$T/one.json"; then
	ok serve_get_slurm_reservation
else
	bad serve_get_slurm_reservation "GET $code $(cat "$T/one.json")"
fi
code=$(curl -s -o "$T/del.json" -w '%{http_code}' -X DELETE -H "$AUTH" "$API/reservations/adm_maint")
if [ "$code" = 409 ] && grep -q 'scontrol delete reservation=adm_maint' "$T/del.json" && scontrol show res adm_maint >/dev/null 2>&1; then
	ok serve_delete_slurm_refused
else
	bad serve_delete_slurm_refused "DELETE $code $(cat "$T/del.json")"
fi
code=$(curl -s -o "$T/dup.json" -w '%{http_code}' -X POST -H "$AUTH" "$API/reservations" \
	-d "{\"id\": \"adm_soon\", \"kind\": \"maintenance\", \"nodes\": [\"gpu004\"], \"start\": $ws, \"end\": $((ws + 600))}")
if [ "$code" = 409 ] && grep -q 'the backend has a reservation \\"adm_soon\\" of its own' "$T/dup.json"; then
	ok serve_backend_name_refused
else
	bad serve_backend_name_refused "POST $code $(cat "$T/dup.json")"
fi
"$B/tools/fairway" reservations --server "http://127.0.0.1:$PORT" >"$T/cli.txt" 2>&1
"$B/tools/fairway" reservations --server "http://127.0.0.1:$PORT" --json >"$T/cli.json" 2>&1
if grep -Eq '^adm_maint +backend +slurm MAINT[A-Z_,]* .* gpu001$' "$T/cli.txt" &&
	python3 -c 'import json,sys; l = json.load(open(sys.argv[1]))["reservations"]; assert any(r["id"] == "adm_maint" and r["readOnly"] for r in l)' "$T/cli.json"; then
	ok cli_lists_slurm_reservations
else
	bad cli_lists_slurm_reservations "$(cat "$T/cli.txt") / $(head -c 300 "$T/cli.json")"
fi
rj=$(sbatch --parsable -A team_a --gres=gpu:1 -t 5 --reservation=adm_soon -o /dev/null --wrap 'sleep 1')
reserved_listed() {
	[ "$(curl -s -o "$T/rj.json" -w '%{http_code}' "$API/jobs/$rj")" = 200 ] &&
		curl -s "$API/jobs?state=pending" >"$T/pending.json" &&
		python3 - "$T/rj.json" "$T/pending.json" "$rj" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["state"], j["planned"], j["reason"], j["queue"], j["gpus"]) == ("pending", False, "in_reservation", "team_a", 1), j
t = j["reasonText"]
assert t.startswith("asks for Slurm reservation adm_soon (--reservation): fairway released it"), t
assert "scontrol show res adm_soon" in t and "without --reservation" in t, t
assert j["expectedStart"] is None and j["unknownWhy"] == "in_reservation", j
assert any(x["name"] == sys.argv[3] and x["reason"] == "in_reservation" for x in json.load(open(sys.argv[2]))["jobs"])
PY
}
if wait_until 10 'reserved_listed 2>/dev/null' &&
	[ "$(squeue -h -j "$rj" -o '%T|%k')" = "PENDING|fairway: asks for reservation adm_soon: released into it; Slurm starts it there" ]; then
	ok serve_reserved_listed
else
	bad serve_reserved_listed "GET: $(cat "$T/rj.json"); squeue: $(squeue -h -j "$rj" -o '%T|%Q|%r|%k')"
fi
out=$("$B/tools/fairway" jobs why "$rj" --server "http://127.0.0.1:$PORT" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "^why it waits: asks for Slurm reservation adm_soon " <<<"$out"; then
	ok cli_reserved_why
else
	bad cli_reserved_why "exit $rc: $out"
fi
scancel "$rj"
later_start=$((soon_end + 7200))
scontrol create reservation reservationname=adm_later starttime="$(date -d "@$later_start" +%FT%T)" duration=60 \
	nodes=gpu003 users=root >/dev/null || bad setup "adm_later"
wait_until 10 'curl -s "$API/reservations" | grep -q adm_later' || bad setup "adm_later not listed"
sleep 2 # a cycle or more after the read that saw it
node=$(curl -s "$API/nodes/gpu003")
if python3 -c 'import json,sys; j = json.loads(sys.argv[1]); assert j["schedulable"] and j["leavesAt"] == int(sys.argv[2]) - 60 and j["backAt"] == int(sys.argv[3]), j' \
	"$node" "$soon_start" "$soon_end"; then
	ok serve_node_back_in_gap
else
	bad serve_node_back_in_gap "GET /v1/nodes/gpu003: $node; adm_soon $soon_start..$soon_end, adm_later from $later_start"
fi
gap=$(sbatch --parsable -A team_a --gres=gpu:8 -t 90 --exclude=gpu001,gpu002,gpu004 -o /dev/null --wrap 'sleep 1')
long2=$(sbatch --parsable -A team_a --gres=gpu:8 -t 150 --exclude=gpu001,gpu002,gpu004 -o /dev/null --wrap 'sleep 1')
gap_estimated() {
	curl -s "$API/jobs/$gap" >"$T/gap.json" &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert j["state"] == "pending" and abs(j["expectedStart"] - int(sys.argv[2])) <= 120, j' \
			"$T/gap.json" "$soon_end" &&
		r=$(scontrol -o show res "fairway-$gap" 2>/dev/null) &&
		e=$(date -u -d "$(sed -n 's/.*EndTime=\([^ ]*\).*/\1/p' <<<"$r")" +%s) && [ "$e" -le "$later_start" ]
}
if wait_until 15 'gap_estimated 2>/dev/null'; then
	ok serve_gap_job_estimated
else
	bad serve_gap_job_estimated "GET: $(cat "$T/gap.json"); Slurm: $(scontrol -o show res "fairway-$gap" 2>&1); adm_soon ends $soon_end, adm_later from $later_start"
fi
long2_held() {
	curl -s "$API/jobs/$long2" >"$T/long2.json" &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert j["reason"] == "slurm_reservation" and "adm_later" in j["reasonText"], j' "$T/long2.json" &&
		! scontrol show res "fairway-$long2" >/dev/null 2>&1
}
if wait_until 15 'long2_held 2>/dev/null'; then
	ok serve_gap_too_short_held
else
	bad serve_gap_too_short_held "GET: $(cat "$T/long2.json"); Slurm: $(scontrol -o show res "fairway-$long2" 2>&1)"
fi
scancel "$gap" "$long2"
# a daemon's window after a gap: kept through its Slurm mirror
win_start=$((soon_end + 4800))
curl -s -o /dev/null -X POST -H "$AUTH" "$API/reservations" \
	-d "{\"id\": \"fw_later\", \"kind\": \"maintenance\", \"nodes\": [\"gpu003\"], \"start\": $win_start, \"end\": $((win_start + 600))}"
wait_until 10 'scontrol show res fairway-maint-fw_later >/dev/null 2>&1' || bad setup "no fairway-maint-fw_later in Slurm"
sleep 2 # a cycle or more after the read that saw it
wfit=$(sbatch --parsable -A team_a --gres=gpu:8 -t 70 --exclude=gpu001,gpu002,gpu004 -o /dev/null --wrap 'sleep 1')
wlong=$(sbatch --parsable -A team_a --gres=gpu:8 -t 100 --exclude=gpu001,gpu002,gpu004 -o /dev/null --wrap 'sleep 1')
# reserved_by CHECK_FILE JOB WANT END NODE: GET /v1/jobs/JOB expects it
# within 2 minutes of WANT, and fairway's Slurm reservation for it is on
# NODE and ends by END
reserved_by() {
	curl -s "$API/jobs/$2" >"$1" &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert j["state"] == "pending" and abs(j["expectedStart"] - int(sys.argv[2])) <= 120, j' \
			"$1" "$3" &&
		r=$(scontrol -o show res "fairway-$2" 2>/dev/null) && grep -q " Nodes=$5 " <<<"$r" &&
		e=$(date -u -d "$(sed -n 's/.*EndTime=\([^ ]*\).*/\1/p' <<<"$r")" +%s) && [ "$e" -le "$4" ]
}
if wait_until 15 'reserved_by "$T/wfit.json" "$wfit" "$soon_end" "$win_start" gpu003 2>/dev/null'; then
	ok serve_window_gap_fits
else
	bad serve_window_gap_fits "GET: $(cat "$T/wfit.json"); Slurm: $(scontrol -o show res "fairway-$wfit" 2>&1); adm_soon ends $soon_end, fw_later from $win_start"
fi
wlong_held() {
	curl -s "$API/jobs/$wlong" >"$T/wlong.json" &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); assert j["reason"] == "slurm_reservation" and "maintenance window fw_later" in j["reasonText"], j' "$T/wlong.json" &&
		! scontrol show res "fairway-$wlong" >/dev/null 2>&1
}
if wait_until 15 'wlong_held 2>/dev/null'; then
	ok serve_window_after_gap_held
else
	bad serve_window_after_gap_held "GET: $(cat "$T/wlong.json"); Slurm: $(scontrol -o show res "fairway-$wlong" 2>&1)"
fi
scancel "$wfit" "$wlong"
# one reservation on two nodes that come back at unlike times
scancel "$fill" "$whole" "$part"
wait_until 20 "gone $fill && gone $whole && gone $part" || bad setup "fill, whole and part did not end"
maint_at=$(date -u -d "$maint_end" +%s)
[ $((maint_at - $(date +%s))) -ge 300 ] || bad setup "adm_maint ends in under 5 minutes: the lab ran too long"
scontrol create reservation reservationname=adm_b starttime=now duration=60 nodes=gpu002 users=root \
	flags=ignore_jobs >/dev/null || bad setup "adm_b"
b_end=$(date -u -d "$(scontrol show res adm_b | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')" +%s)
pair_start=$((b_end + 600))
scontrol create reservation reservationname=adm_pair starttime="$(date -d "@$pair_start" +%FT%T)" duration=30 \
	nodes=gpu001,gpu002 users=root >/dev/null || bad setup "adm_pair"
wait_until 10 'curl -s "$API/reservations" | grep -q adm_pair' || bad setup "adm_pair not listed"
sleep 2
pj=$(sbatch --parsable -A team_a --gres=gpu:8 -t 20 --exclude=gpu003,gpu004 -o /dev/null --wrap 'sleep 1')
if wait_until 15 'reserved_by "$T/pj.json" "$pj" "$maint_at" "$pair_start" gpu001 2>/dev/null'; then
	ok serve_pair_node_by_node
else
	bad serve_pair_node_by_node "GET: $(cat "$T/pj.json"); Slurm: $(scontrol -o show res "fairway-$pj" 2>&1); adm_maint ends $maint_at, adm_b $b_end, adm_pair from $pair_start"
fi
scancel "$pj"
serve_down
cancel_all
scontrol delete reservationname=adm_maint >/dev/null 2>&1
scontrol delete reservationname=adm_soon >/dev/null 2>&1
scontrol delete reservationname=adm_later >/dev/null 2>&1
scontrol delete reservationname=adm_b >/dev/null 2>&1
scontrol delete reservationname=adm_pair >/dev/null 2>&1
scontrol delete reservationname=fairway-lab >/dev/null 2>&1
finish
