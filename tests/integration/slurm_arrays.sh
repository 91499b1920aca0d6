#!/usr/bin/env bash
# tests/integration/slurm_arrays.sh BUILD_DIR — job arrays against a real
# lab (2 nodes x 8 fake GPUs).  An array's pending tasks are one record in
# Slurm; fairway plans each task as a job of its own ("A_T") and starts
# one by splitting it off (slurm_update_job with job_id_str "A_T"), the
# rest of the array staying held.  Before, fairway released the whole
# record on one task's nodes and Slurm ran as many tasks as it liked.
# A watcher samples the array's running tasks every 0.2 s throughout:
#   four_run              --array=0-5 --gres=gpu:4: after fairway's cycle
#                         exactly 4 tasks run
#   two_per_node          2 on gpu001, 2 on gpu002
#   on_fairways_nodes     each on the node its comment "fairway: started
#                         on NODE" names (fairway's start)
#   two_held_commented    the other 2 pending, held (priority 0), with
#                         fairway's waiting comment (one for the array)
#   all_six_complete      as tasks end the rest start: 6 tasks ran, and
#                         the array is gone
#   only_fairway_started  every task ever seen running was started by
#                         fairway (its comment and node), never more than
#                         4 at once, and fairway counts 6 starts
#   throttle_one_at_a_time --array=0-3%1: never 2 running at once, all 4
#                         run
#   throttle_raised       --array=0-5%1, raised to %3 with scontrol update
#                         ArrayTaskThrottle=3 while the first task runs:
#                         3 run at once (fairway reads the throttle anew
#                         every cycle), never more
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_arrays
GPUS=8 SWITCHES=1 lab_up 2

# watch ARRAY TAG: every 0.2 s append the array's running tasks ("TASK|NODE|
# COMMENT") to $T/TAG.seen and their count to $T/TAG.counts
watch_array() {
	while :; do
		squeue -h -r -j "$1" -t R,CG -o '%K|%N|%k' >"$T/$2.now" 2>/dev/null
		cat "$T/$2.now" >>"$T/$2.seen"
		wc -l <"$T/$2.now" >>"$T/$2.counts"
		sleep 0.2
	done
}

running_count() { squeue -h -r -j "$1" -t R -o %K | wc -l; }
most_at_once() { sort -n "$T/$1.counts" | tail -1; }
tasks_seen() { cut -d'|' -f1 "$T/$1.seen" | sort -u | wc -l; }
# lines of TAG.seen whose comment is not "fairway: started on <its node>"
not_fairways() { awk -F'|' '$3 != "fairway: started on " $2' "$T/$1.seen"; }
total_starts() { grep -o 'total starts [0-9]*' "$T/fairway.log" | tail -1 | awk '{ print $3 }'; }

# ------------------------------------------------------------ 6 x 4 GPUs
a=$(sbatch --parsable -A team_a --array=0-5 --gres=gpu:4 -t 1 -o /dev/null --wrap 'sleep 6')
watch_bg watch_array "$a" six
fw_start
if wait_until 15 '[ "$(running_count "$a")" -ge 4 ]' && sleep 1 && [ "$(running_count "$a")" = 4 ]; then
	ok four_run
else
	bad four_run "$(squeue -h -r -j "$a" -o '%i %T %Q %N %k')"
fi
per=$(squeue -h -r -j "$a" -t R -o %N | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
if [ "$per" = "gpu001:2 gpu002:2 " ]; then ok two_per_node; else bad two_per_node "running per node: $per"; fi
off=$(squeue -h -r -j "$a" -t R -o '%K|%N|%k' | awk -F'|' '$3 != "fairway: started on " $2')
if [ -z "$off" ]; then ok on_fairways_nodes; else bad on_fairways_nodes "$off"; fi
held=$(squeue -h -r -j "$a" -t PD -o '%Q %k')
if [ "$(printf '%s\n' "$held" | grep -c '^0 fairway: waiting')" = 2 ] && [ "$(printf '%s\n' "$held" | wc -l)" = 2 ]; then
	ok two_held_commented
else
	bad two_held_commented "pending: $held"
fi
if wait_until 40 "gone $a" && [ "$(tasks_seen six)" = 6 ]; then
	ok all_six_complete
else
	bad all_six_complete "tasks seen running: $(tasks_seen six); now: $(squeue -h -r -j "$a" -o '%i %T %Q %k')"
fi
watch_stop
sleep 1 # the log's last cycle
if [ -z "$(not_fairways six)" ] && [ "$(most_at_once six)" -le 4 ] && [ "$(total_starts)" = 6 ]; then
	ok only_fairway_started
else
	bad only_fairway_started "at most $(most_at_once six) at once, fairway's starts $(total_starts); not fairway's: $(not_fairways six | sort -u | head -3)"
fi

# ------------------------------------------------------------ %1
t=$(sbatch --parsable -A team_a --array=0-3%1 --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 2')
watch_bg watch_array "$t" one
if wait_until 60 "gone $t" && [ "$(tasks_seen one)" = 4 ] && [ "$(most_at_once one)" = 1 ] && [ -z "$(not_fairways one)" ]; then
	ok throttle_one_at_a_time
else
	bad throttle_one_at_a_time "tasks seen $(tasks_seen one), at most $(most_at_once one) at once; $(squeue -h -r -j "$t" -o '%i %T %Q %k')"
fi
watch_stop

# ------------------------------------------------------------ %1, then %3
u=$(sbatch --parsable -A team_a --array=0-5%1 --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 4')
wait_until 15 '[ "$(running_count "$u")" = 1 ]'
watch_bg watch_array "$u" raised
scontrol update jobid="$u" ArrayTaskThrottle=3
if wait_until 15 '[ "$(running_count "$u")" = 3 ]' && wait_until 60 "gone $u" && [ "$(most_at_once raised)" = 3 ] &&
	[ "$(tasks_seen raised)" = 6 ]; then
	ok throttle_raised
else
	bad throttle_raised "at most $(most_at_once raised) at once, $(tasks_seen raised) tasks seen; $(squeue -h -r -j "$u" -o '%i %T %Q %k')"
fi
watch_stop
fw_stop
cancel_all
finish
