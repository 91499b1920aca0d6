#!/usr/bin/env bash
# tests/integration/slurm_time_limit.sh BUILD_DIR — a queue's run-time
# limit (maxRuntime) against a real lab (2 nodes x 8 fake GPUs), through
# `fairway-slurm run`: team_a has maxRuntime 5s, team_b none.
#   start_sets_time_limit   fairway's start gives team_a's job (-t 10) the
#                           limit in whole minutes rounded up: squeue %l 1:00
#   no_limit_kept           team_b's job keeps its own -t 10 (10:00)
#   ends_as_timeout         past its 5 s, fairway ends team_a's job: slurmctld
#                           ends it itself, JobState=TIMEOUT, its time limit
#                           lowered to 0 (TimeLimit=00:00:00), well before
#                           the 1-minute limit Slurm would have ended it at
#                           (RunTime under 60 s)
#   comment_says_why        its comment: "fairway: ended: it ran 6s; its
#                           run-time limit (maxRuntime) is 5s" (spans in
#                           fairway/span.h's words)
#   not_requeued            seconds later it is still TIMEOUT, not pending
#                           again (an eviction for any other reason requeues)
#   other_runs_on           team_b's job runs on
#   applied_once            fairway counted one eviction and no failure,
#                           though each cycle until slurmctld acted planned
#                           the end again (in place: skipped)
# Then the same through the daemon, `fairway serve --backend slurm`:
#   serve_start_sets_time_limit  a team_a job it starts gets 1:00
#   serve_ends_as_timeout   ... and ends as TIMEOUT after its 5 s
#   serve_comment_says_why  ... with the same comment
#   serve_counts_timeout    /metrics counts it in fairway_jobs_timed_out_total
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_time_limit
GPUS=8 SWITCHES=1 lab_up 2

{
	sed '/^queues:/,$d' "$SRC/tests/slurm/fairway.yaml"
	cat <<'EOF'
queues:
  - name: team_a
    maxRuntime: 5s
    resources: {gpu: {quota: 8}}
  - name: team_b
    resources: {gpu: {quota: 8}}
EOF
} >"$T/limits.yaml"
FW_CONFIG=$T/limits.yaml fw_start
a=$(sbatch --parsable -A team_a --gres=gpu:1 -t 10 -o /dev/null --wrap 'sleep 300')
b=$(sbatch --parsable -A team_b --gres=gpu:1 -t 10 -o /dev/null --wrap 'sleep 300')
if ! wait_until 20 'running $a && running $b'; then
	bad setup "the jobs did not run: $(squeue -h -j "$a,$b" -o '%i %T %Q %k'); log: $(tail -3 "$T/fairway.log")"
	fw_stop
	cancel_all
	finish
fi
lim=$(squeue -h -j "$a" -o %l)
[ "$lim" = 1:00 ] && ok start_sets_time_limit || bad start_sets_time_limit "squeue %l of team_a's job: '$lim'"
lim=$(squeue -h -j "$b" -o %l)
[ "$lim" = 10:00 ] && ok no_limit_kept || bad no_limit_kept "squeue %l of team_b's job: '$lim'"

show() { scontrol -o show job "$a" 2>/dev/null | grep -o "$1=[^ ]*"; }
if wait_until 50 '[ "$(show JobState)" = JobState=TIMEOUT ]'; then
	run=$(show RunTime)
	run=${run#RunTime=}
	secs=$((10#${run:0:2} * 3600 + 10#${run:3:2} * 60 + 10#${run:6:2}))
	if [ "$(show TimeLimit)" = TimeLimit=00:00:00 ] && [ "$secs" -ge 5 ] && [ "$secs" -lt 60 ]; then
		ok ends_as_timeout
	else
		bad ends_as_timeout "$(show TimeLimit) RunTime=$run"
	fi
else
	bad ends_as_timeout "$(show JobState) $(show TimeLimit) $(show RunTime); log: $(tail -3 "$T/fairway.log")"
fi
c=$(scontrol show job "$a" | sed -n 's/^ *Comment=//p' | sed 's/ *$//')
case "$c" in
"fairway: ended: it ran "[0-9]*"s; its run-time limit (maxRuntime) is 5s") ok comment_says_why ;;
*) bad comment_says_why "comment '$c'" ;;
esac
sleep 3
st=$(show JobState)
[ "$st" = JobState=TIMEOUT ] && ok not_requeued || bad not_requeued "$st"
running "$b" && ok other_runs_on || bad other_runs_on "$(squeue -h -j "$b" -o '%T %r')"
fw_stop
last=$(grep '^cycle ' "$T/fairway.log" | tail -1)
case "$last" in
*" evicts 1 "*" failed 0 "*) ok applied_once ;;
*) bad applied_once "$last" ;;
esac
cancel_all
wait_until 20 no_jobs || bad setup "jobs left: $(squeue -h -o '%i %T')"

# ---- 2. the same limit through the daemon: `fairway serve --backend slurm`
FAIRWAY=$B/tools/fairway
if [ ! -x "$FAIRWAY" ] || ! "$FAIRWAY" serve --help 2>&1 | grep -q '^  slurm'; then
	skip serve_ends_as_timeout "fairway serve has no slurm backend in $B"
	finish
fi
{
	sed '/^queues:/,$d' "$T/limits.yaml"
	echo "nodes:" # the daemon's API resolves node names against these
	for i in 1 2; do
		printf '  - {name: gpu%03d, gpus: 8, gpuModel: h100, cpu: 64, memory: 500Gi, topology: {switch: s1}}\n' "$i"
	done
	sed -n '/^queues:/,$p' "$T/limits.yaml"
} >"$T/serve.yaml"
"$FAIRWAY" serve --backend slurm --backend-opt "conf=$SLURM_CONF" --backend-opt partitions=gpu \
	--config "$T/serve.yaml" --state "$T/state" --listen 127.0.0.1:0 --port-file "$T/port" \
	--period 500ms >>"$T/serve.log" 2>&1 &
FWPID=$! # fw_stop and cleanup stop it by this PID
wait_until 20 'test -s "$T/port"' || { bad serve_start "no port: $(tail -3 "$T/serve.log")"; finish; }
PORT=$(cat "$T/port")
a=$(sbatch --parsable -A team_a --gres=gpu:1 -t 10 -o /dev/null --wrap 'sleep 300')
if ! wait_until 20 'running $a'; then
	bad setup "the daemon did not start the job: $(squeue -h -j "$a" -o '%i %T %k'); log: $(tail -3 "$T/serve.log")"
	fw_stop
	cancel_all
	finish
fi
lim=$(squeue -h -j "$a" -o %l)
[ "$lim" = 1:00 ] && ok serve_start_sets_time_limit || bad serve_start_sets_time_limit "squeue %l: '$lim'"
if wait_until 50 '[ "$(show JobState)" = JobState=TIMEOUT ]'; then
	ok serve_ends_as_timeout
else
	bad serve_ends_as_timeout "$(show JobState) $(show TimeLimit) $(show RunTime); log: $(tail -3 "$T/serve.log")"
fi
c=$(scontrol show job "$a" | sed -n 's/^ *Comment=//p' | sed 's/ *$//')
case "$c" in
"fairway: ended: it ran "[0-9]*"s; its run-time limit (maxRuntime) is 5s") ok serve_comment_says_why ;;
*) bad serve_comment_says_why "comment '$c'" ;;
esac
m=$(curl -s "http://127.0.0.1:$PORT/metrics" | grep '^fairway_jobs_timed_out_total ')
case "$m" in
"fairway_jobs_timed_out_total "[1-9]*) ok serve_counts_timeout ;;
*) bad serve_counts_timeout "metrics: '$m'" ;;
esac
fw_stop
cancel_all
finish
