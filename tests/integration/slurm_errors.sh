#!/usr/bin/env bash
# tests/integration/slurm_errors.sh BUILD_DIR — fairway-slurm refuses bad
# input and an unreachable controller with a clear message, and changes no
# Slurm state when it does (issue 7, scenario 6), against a real lab.
#   bad_config_message      invalid fairway YAML: exit 2, FILE:LINE:COL and
#                           the field named
#   bad_config_no_change    ... and Slurm's jobs, nodes, reservations are
#                           exactly as before
#   unreachable_message     a slurm.conf whose controller port has no
#                           slurmctld: exit 1 within 5 s, "cannot reach
#                           slurmctld"
#   unreachable_no_change   ... and nothing changed in the real cluster
#   unreachable_says_check  ... and says what to check (is slurmctld
#                           running, SlurmctldHost/SlurmctldPort)
#   bad_partition           --opt partitions=gpus (no such partition):
#                           exit 2 naming the option, the name and Slurm's
#                           partitions; no change (it managed no node, and
#                           said nothing)
#   no_slurm_conf           no SLURM_CONF and no conf=: exit 2, says so
#   dry_run_plans           `fairway-slurm plan` (the dry run): the plan
#                           table starts the 3 held jobs and says nothing
#                           was changed; the job of an account no queue
#                           names is listed held, with why
#   dry_run_no_change       ... and Slurm's jobs (priority, comment),
#                           nodes and reservations are exactly as before
#   dry_run_json            plan --json: 3 start decisions, actions.start
#                           3, a comment per waiting job, notPlanned with
#                           the other account's job, dryRun true; stdout
#                           is the JSON alone
#   dry_run_unreachable     plan against a controller that is not there:
#                           exit 1, "cannot reach slurmctld", no change
#   valid_config_acts       the same jobs start once the config is valid
#   unchanged_not_reread    on a quiet cluster later cycles are answered
#                           "no change" by slurmctld for every class
#   hook_agrees_quiet       jobs held by job_submit.lua in the managed
#                           partition: plan warns of nothing
#   hook_mismatch_warned    partitions=gpu2 (a partition the hook does not
#                           hold) and a job held by the hook in gpu: plan
#                           warns of the gpu2 job that arrived not held
#                           (Slurm may start it itself) and of the gpu job
#                           that stays held for ever, each named, with the
#                           fix (both were silent)
#   serve_hook_mismatch_warned  the same under `fairway serve --backend
#                           slurm --backend-opt partitions=gpu2`: both
#                           warnings on its log, once each over several
#                           cycles, the fix naming --backend-opt (the
#                           daemon said neither)
#   part_down_held_warned_once  `scontrol update PartitionName=gpu
#                           State=DOWN` under `fairway-slurm run`: a job
#                           submitted then stays held (never released
#                           into it), its comment says the partition is
#                           DOWN, and the log says so once over several
#                           cycles (before: released each cycle, silently)
#   part_down_names_the_managed_one  ... a job of `-p gpu,gpu2` (gpu2 not
#                           fairway's) is held too, its comment naming gpu
#                           alone, not Slurm's list
#   part_up_again_runs      State=UP: the log says so, the job runs
#   part_gone_warned_once_runs  `scontrol delete PartitionName=gpu`: the
#                           log says it is gone once, no cycle fails, run
#                           keeps running
#   part_back_plans         the partition created again: the log says it
#                           is back, and a new job runs
#   serve_part_down_warned  the same DOWN and UP under `fairway serve
#                           --backend slurm`: warned once, the job held
#                           until UP, then run
#   run_outage_recovers     slurmctld stopped under `fairway-slurm run`:
#                           each failed cycle names slurmctld; started
#                           again, one line "cycles run again, after N
#                           that failed"
#   munge_down_named        munged stopped: ping exits 1 and names munge
#                           (it said only "cannot reach slurmctld")
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_errors
lab_up 4

state() {
	squeue -h -o '%i %T %Q %k %N' | sort
	sinfo -h -N -o '%N %T %E' | sort
	scontrol -o show res 2>&1
}

submit 3 team_a 2
stray=$(sbatch --parsable -A nosuch --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
before=$(state)

# ------------------------------------------------------------ bad config
cat >"$T/bad.yaml" <<'YAML'
queues:
  - name: team_a
    resources:
      gpu: {quota: -3}
YAML
"$FWS" run --config "$T/bad.yaml" --cycles 1 >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "bad.yaml:4:.*queues\[0\].resources.gpu.quota" "$T/out"; then
	ok bad_config_message
else
	bad bad_config_message "exit $rc: $(cat "$T/out")"
fi
[ "$(state)" = "$before" ] && ok bad_config_no_change || bad bad_config_no_change "Slurm state changed"

# ------------------------------------------------------------ unreachable
sed 's/^SlurmctldPort=.*/SlurmctldPort=1/' "$SLURM_CONF" >"$T/lab/etc/unreachable.conf"
start=$SECONDS
"$FWS" run --config "$SRC/tests/slurm/fairway.yaml" --cycles 1 --opt "conf=$T/lab/etc/unreachable.conf" >"$T/out" 2>&1
rc=$?
if [ $rc = 1 ] && ((SECONDS - start <= 5)) && grep -q "cannot reach slurmctld" "$T/out"; then
	ok unreachable_message
else
	bad unreachable_message "exit $rc after $((SECONDS - start)) s: $(cat "$T/out")"
fi
[ "$(state)" = "$before" ] && ok unreachable_no_change || bad unreachable_no_change "Slurm state changed"
grep -q "is slurmctld running? .scontrol ping. asks it; SlurmctldHost and SlurmctldPort" "$T/out" &&
	ok unreachable_says_check || bad unreachable_says_check "$(cat "$T/out")"

# ------------------------------------------------------------ no such partition
"$FWS" plan --config "$SRC/tests/slurm/fairway.yaml" --opt partitions=gpu:gpus >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "error: --opt: field partitions: no partition 'gpus' in Slurm (it has: gpu; sinfo -s lists them)" "$T/out" &&
	[ "$(state)" = "$before" ]; then
	ok bad_partition
else
	bad bad_partition "exit $rc: $(cat "$T/out")"
fi

# ------------------------------------------------------------ no conf
env -u SLURM_CONF "$FWS" ping >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "no Slurm configuration" "$T/out"; then
	ok no_slurm_conf
else
	bad no_slurm_conf "exit $rc: $(cat "$T/out")"
fi

# ------------------------------------------------------------ dry run
"$FWS" plan --config "$SRC/tests/slurm/fairway.yaml" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 0 ] && grep -q '^STARTED (3)$' "$T/out" &&
	grep -q "dry run: nothing was changed in Slurm.  fairway-slurm run would apply 3 start" "$T/out" &&
	grep -q "^  $stray .*not_plannable: account 'nosuch' is no fairway queue: held (scontrol update jobid=$stray account=NAME, NAME a queue of fairway's YAML" "$T/out"; then
	ok dry_run_plans
else
	bad dry_run_plans "exit $rc: $(cat "$T/out" "$T/err")"
fi
sleep 2 # a release would show by now: Slurm starts a released job at its next 1 s tick
[ "$(state)" = "$before" ] && ok dry_run_no_change || bad dry_run_no_change "Slurm state changed: $(diff <(echo "$before") <(state))"
"$FWS" plan --config "$SRC/tests/slurm/fairway.yaml" --json >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 0 ] && python3 - "$T/out" "$stray" <<'PY'; then
import json, sys
o = json.load(open(sys.argv[1]))
starts = [d for d in o["decisions"] if d["kind"] == "start"]
assert o["dryRun"] is True and len(starts) == 3 and o["actions"]["start"] == 3, o
assert all(c["comment"].startswith("fairway: ") and c["name"] for c in o["comments"]), o["comments"]
np = o["notPlanned"]
# a held job has a waiting job's names (fairway plan --json's pending[], GET /v1/plan)
assert [j["name"] for j in np] == [sys.argv[2]] and np[0]["queue"] == "nosuch", np
assert np[0]["reason"] == "not_plannable" and "no fairway queue" in np[0]["reasonText"], np
assert "expectedStart" in np[0] and not {"job", "account", "message", "earliest"} & set(np[0]), np
assert all(set(c) == {"name", "comment"} for c in o["comments"]), o["comments"]
PY
	ok dry_run_json
else
	bad dry_run_json "exit $rc: $(head -c 600 "$T/out") $(cat "$T/err")"
fi
"$FWS" plan --config "$SRC/tests/slurm/fairway.yaml" --opt "conf=$T/lab/etc/unreachable.conf" >"$T/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "cannot reach slurmctld" "$T/out" && [ "$(state)" = "$before" ]; then
	ok dry_run_unreachable
else
	bad dry_run_unreachable "exit $rc: $(cat "$T/out")"
fi

# ------------------------------------------------------------ and then valid
"$FWS" run --config "$SRC/tests/slurm/fairway.yaml" --cycles 1 --quiet >"$T/out" 2>&1
if wait_until 10 'test "$(gpus_of team_a)" = 3'; then
	ok valid_config_acts
else
	bad valid_config_acts "team_a holds $(gpus_of team_a) GPUs: $(cat "$T/out")"
fi

# ------------------------------------------------------------ update times
cancel_all
sleep 3 # the nodes settle (completing -> idle) before the quiet cycles
"$FWS" run --config "$SRC/tests/slurm/fairway.yaml" --cycles 7 --interval 0.3 >"$T/out" 2>&1
first=$(grep '^cycle 4 ' "$T/out" | sed 's/.*unchanged \([0-9]*\).*/\1/')
last=$(grep '^cycle 7 ' "$T/out" | sed 's/.*unchanged \([0-9]*\).*/\1/')
if [ -n "$first" ] && [ -n "$last" ] && ((last - first == 12)); then
	ok unchanged_not_reread
else
	bad unchanged_not_reread "unchanged loads: cycle 4 '$first', cycle 7 '$last' (want +12: 4 classes x 3 cycles); $(tail -2 "$T/out")"
fi

# ------------------------------------------------------------ job_submit.lua and partitions= disagree
held=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1') # gpu: the hook holds it
"$FWS" plan --config "$SRC/tests/slurm/fairway.yaml" >"$T/out" 2>&1
rc=$?
if [ $rc = 0 ] && ! grep -q "warning" "$T/out"; then ok hook_agrees_quiet; else bad hook_agrees_quiet "exit $rc: $(grep warning "$T/out")"; fi
scontrol create PartitionName=gpu2 Nodes=gpu004 DefaultTime=00:10:00 State=UP
unheld=$(sbatch --parsable -p gpu2 -A team_a --gres=gpu:1 -t 1 --begin=now+3600 -o /dev/null --wrap 'sleep 1')
"$FWS" plan --config "$SRC/tests/slurm/fairway.yaml" --opt partitions=gpu2 >"$T/out" 2>&1
rc=$?
if [ $rc = 0 ] &&
	grep -q "warning: 1 pending job of the managed partitions arrived not held (job $unheld of partition gpu2: .*install contrib/slurm/job_submit.lua .*with gpu2 in its MANAGED table" "$T/out" &&
	grep -q "warning: 1 job held by job_submit.lua in a partition fairway does not manage (job $held of partition gpu: .*stays held for ever.*--opt partitions=...:gpu" "$T/out"; then
	ok hook_mismatch_warned
else
	bad hook_mismatch_warned "exit $rc: $(cat "$T/out")"
fi

# ------------------------------------------------------------ ... and fairway serve says the same
"$B/tools/fairway" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpu2 \
	--config "$SRC/tests/slurm/fairway.yaml" --state "$T/sstate" --listen 127.0.0.1:0 --port-file "$T/sport" \
	--period 500ms >"$T/serve.out" 2>&1 &
SPID=$!
wait_until 20 'grep -q "arrived not held" "$T/serve.out" && grep -q "held by job_submit.lua" "$T/serve.out"' || true
sleep 2 # several more cycles: still once
serve_down
if [ "$(grep -c "^fairway serve: warning: 1 pending job of the managed partitions arrived not held (job $unheld of partition gpu2: .*install contrib/slurm/job_submit.lua .*with gpu2 in its MANAGED table" "$T/serve.out")" = 1 ] &&
	[ "$(grep -c "^fairway serve: warning: 1 job held by job_submit.lua in a partition fairway does not manage (job $held of partition gpu: .*stays held for ever.*--backend-opt partitions=...:gpu" "$T/serve.out")" = 1 ] &&
	[ "$(grep -c "warning" "$T/serve.out")" = 2 ]; then
	ok serve_hook_mismatch_warned
else
	bad serve_hook_mismatch_warned "$(cut -c1-300 "$T/serve.out")"
fi

# ------------------------------------------------------------ a managed partition down, up, gone, back
cancel_all
"$FWS" run --config "$SRC/tests/slurm/fairway.yaml" --interval 0.5 --quiet >"$T/part.out" 2>&1 &
RUNPID=$!
scontrol update PartitionName=gpu State=DOWN
pd=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1') # Slurm takes it: DOWN takes jobs
wait_until 10 "squeue -h -o %k -j $pd | grep -q '^fairway: partition gpu is DOWN in Slurm, which starts none of its jobs: held until it is UP'" || true
sleep 2 # several more cycles: held, said once
if [ "$(squeue -h -o '%T %Q' -j "$pd")" = "PENDING 0" ] &&
	squeue -h -o %k -j "$pd" | grep -q '^fairway: partition gpu is DOWN' &&
	[ "$(grep -c '^fairway-slurm: warning: partition gpu is DOWN in Slurm (scontrol show partition gpu), which starts none of its jobs: fairway plans none of them until it is UP (scontrol update PartitionName=gpu State=UP)' "$T/part.out")" = 1 ]; then
	ok part_down_held_warned_once
else
	bad part_down_held_warned_once "job $pd: $(squeue -h -o '%T %Q %k' -j "$pd"); $(cut -c1-200 "$T/part.out")"
fi
# a job of gpu and gpu2 (not fairway's): its comment names gpu alone, the
# managed partition whose state holds it, not Slurm's list "gpu,gpu2"
pm=$(sbatch --parsable -p gpu,gpu2 -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 10 "squeue -h -o %k -j $pm | grep -qx 'fairway: partition gpu is DOWN in Slurm, which starts none of its jobs: held until it is UP'" &&
	[ "$(squeue -h -o '%T %Q' -j "$pm")" = "PENDING 0" ]; then
	ok part_down_names_the_managed_one
else
	bad part_down_names_the_managed_one "job $pm ($(squeue -h -o %P -j "$pm")): $(squeue -h -o '%T %Q %k' -j "$pm")"
fi
scontrol update PartitionName=gpu State=UP
if wait_until 15 "started $pd" && grep -q '^fairway-slurm: partition gpu is UP again in Slurm: fairway plans its jobs again$' "$T/part.out"; then
	ok part_up_again_runs
else
	bad part_up_again_runs "job $pd: $(squeue -h -o '%T %Q %k' -j "$pd"); $(tail -2 "$T/part.out")"
fi
wait_until 20 no_jobs || bad setup "jobs left: $(squeue -h | head -3)"
scontrol delete PartitionName=gpu # Slurm refuses it while a job is in it
wait_until 10 "grep -q '^fairway-slurm: warning: partition gpu is gone from Slurm' '$T/part.out'" || true
sleep 2
if [ "$(grep -c '^fairway-slurm: warning: partition gpu is gone from Slurm (deleted: sinfo -s lists it no more): fairway manages none of its nodes' "$T/part.out")" = 1 ] &&
	kill -0 "$RUNPID" 2>/dev/null && ! grep -q '^fairway-slurm: cycle [0-9]*: ' "$T/part.out"; then
	ok part_gone_warned_once_runs
else
	bad part_gone_warned_once_runs "$(cut -c1-200 "$T/part.out")"
fi
scontrol create PartitionName=gpu Nodes=ALL Default=YES DefaultTime=00:10:00 MaxTime=INFINITE State=UP # as lab.sh
wait_until 10 "grep -q '^fairway-slurm: partition gpu is back, and UP, in Slurm: fairway plans its jobs again$' '$T/part.out'" || true
back=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 15 "started $back" && grep -q '^fairway-slurm: partition gpu is back, and UP, in Slurm' "$T/part.out"; then
	ok part_back_plans
else
	bad part_back_plans "job $back: $(squeue -h -o '%T %Q %k' -j "$back"); $(tail -2 "$T/part.out")"
fi
kill -TERM "$RUNPID" 2>/dev/null
wait "$RUNPID"
wait_until 20 no_jobs || true
# the daemon alike
"$B/tools/fairway" serve --backend slurm --backend-opt "conf=$SLURM_CONF" \
	--config "$SRC/tests/slurm/fairway.yaml" --state "$T/sstate2" --listen 127.0.0.1:0 --port-file "$T/sport2" \
	--period 500ms >"$T/serve2.out" 2>&1 &
SPID=$!
scontrol update PartitionName=gpu State=DOWN
pd=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
wait_until 15 "grep -q '^fairway serve: warning: partition gpu is DOWN' '$T/serve2.out'" || true
sleep 2
held_then=$(squeue -h -o '%T %Q' -j "$pd")
scontrol update PartitionName=gpu State=UP
if [ "$held_then" = "PENDING 0" ] && [ "$(grep -c '^fairway serve: warning: partition gpu is DOWN in Slurm' "$T/serve2.out")" = 1 ] &&
	wait_until 15 "started $pd" && grep -q '^fairway serve: partition gpu is UP again in Slurm' "$T/serve2.out"; then
	ok serve_part_down_warned
else
	bad serve_part_down_warned "job $pd then '$held_then', now $(squeue -h -o '%T %Q %k' -j "$pd"); $(grep partition "$T/serve2.out" | cut -c1-200)"
fi
serve_down
wait_until 20 no_jobs || true

# ------------------------------------------------------------ slurmctld away and back under run
"$FWS" run --config "$SRC/tests/slurm/fairway.yaml" --interval 0.5 --quiet >"$T/run.out" 2>&1 &
RUNPID=$!
sleep 2
CP=$(cat "$T/lab/run/slurmctld.pid")
kill -TERM "$CP"
wait_until 15 "! kill -0 $CP 2>/dev/null" || bad setup "slurmctld $CP did not stop"
wait_until 30 "grep -q '^fairway-slurm: cycle [0-9]*: ' '$T/run.out'" || true
"$T/lab/sbin/slurmctld" -f "$SLURM_CONF" || bad setup "slurmctld did not start again"
wait_until 60 "grep -q 'cycles run again, after [0-9]* that failed' '$T/run.out'" || true
kill -TERM "$RUNPID" 2>/dev/null
wait "$RUNPID"
if grep -q '^fairway-slurm: cycle [0-9]*: .*slurmctld' "$T/run.out" &&
	grep -q '^fairway-slurm: cycle [0-9]*: cycles run again, after [1-9][0-9]* that failed$' "$T/run.out"; then
	ok run_outage_recovers
else
	bad run_outage_recovers "$(tail -5 "$T/run.out")"
fi

# ------------------------------------------------------------ munge down (last: the lab has no munge after it)
kill -TERM "$(cat "$T/lab/run/munged.pid")"
wait_until 10 '! test -S "$T/lab/munge/munge.socket"'
"$FWS" ping >"$T/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "cannot reach slurmctld: .*most often for munge, which signs every RPC: is munged running" "$T/out"; then
	ok munge_down_named
else
	bad munge_down_named "exit $rc: $(cat "$T/out")"
fi
finish
