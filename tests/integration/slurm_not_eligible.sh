#!/usr/bin/env bash
# tests/integration/slurm_not_eligible.sh BUILD_DIR — jobs that Slurm would
# not run yet, or only on some nodes, against a real lab (2 nodes x 8 fake
# GPUs; gpu001 has the node feature nvme, gpu002 ib; partitions gpu of
# both, managed, gpu2 of gpu002, managed too, and cpu of gpu002, not
# managed).  Until the adapter
# looked, fairway released such a job onto nodes it chose and booked their
# GPUs: until the dependency or begin time passed, or for ever on a node
# the job excludes or that lacks its features.  Then it held every job
# asking --exclude or --constraint; now it places them on the nodes they
# accept.  On two empty nodes fairway puts a 1-GPU job on gpu001, so each
# of these would land there without the job's node filter:
#   exclude_runs          --exclude=gpu001: runs, on gpu002
#   constraint_runs       --constraint=ib: runs, on gpu002
#   constraint_unread_held --constraint='[ib|nvme]' (matching OR, a form
#                         fairway does not read): held, and its comment
#                         says which forms fairway reads
#   partitions_any_managed -p cpu,gpu (held by job_submit.lua: gpu is
#                         managed): runs, on gpu001 (before, a job naming
#                         several partitions was never scheduled)
#   partition_runs        -p gpu2 --hold (job_submit.lua holds only gpu's
#                         jobs), submitted while the job before runs on
#                         gpu001: runs, on gpu002
#   dependency_not_booked --dependency=afterok:A while A runs: fairway releases
#                         it (Slurm evaluates no dependency of a held job), and
#                         its comment says Slurm starts it once A is done
#   gpus_not_booked       meanwhile an 8-GPU job starts on the node it was
#                         released onto: fairway does not book a job that
#                         waits for its dependency
#   dependency_runs       once A has ended, the dependent job starts and runs
#   begin_held            --begin=now+1hour: held, "waits for its begin time"
#   nodelist_runs         -w gpu002 (job_submit.lua keeps it in AdminComment,
#                         as fairway's start replaces ReqNodes): runs, on gpu002
#   nodelist_gang_runs    -w gpu[001-002]: a 2-node job, runs on both
#   nodelist_short_held   -N2 -w gpu001 (a node beside the one listed, which
#                         a node filter cannot say): held, saying so
# -w changed after submission with scontrol update (job_submit.lua writes
# "fairway: -w LIST" into the Comment, moves it into AdminComment with the
# next update of the Comment; fairway is stopped while a job is submitted
# and changed, or it would start the job first):
#   stale_start_refused   -w gpu001 changed to gpu002, then a start planned
#                         for gpu001 (as fairway's from an older read):
#                         refused with the error job_submit.lua gives a
#                         stale start, the job still held with the new record
#   nodelist_changed_runs that job, once fairway runs: on gpu002
#   nodelist_changed_recorded  and its AdminComment says -w gpu002
#   stale_start_replanned_runs the same change made while fairway runs,
#                         between its read and its start (a test shim,
#                         tests/slurm/race_shim.c): the start is refused and
#                         the job runs on gpu002
#   stale_start_named     fairway's log says the -w changed (it reads the
#                         job again), not Slurm's "Requested node
#                         configuration is not available"
#   nodelist_cleared_runs -w gpu002 cleared (nodelist=): runs where fairway
#                         chooses, gpu001
#   nodelist_cleared_recorded  and its AdminComment holds the empty record
#   user_change_moved     a job of user nobody, -w gpu001 changed by nobody
#                         to gpu002 (a user may not write AdminComment),
#                         waits behind an 8-GPU job there: fairway's
#                         waiting comment moves the record into AdminComment
#   user_change_runs      then it runs on gpu002
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_not_eligible
GPUS=8 SWITCHES=1 lab_up 2

comment_is() { # NAME JOB PATTERN: held (priority 0) and commented so
	local c
	c=$(squeue -h -j "$2" -o '%Q %k')
	case "$c" in
	"0 "$3) ok "$1" ;;
	*) bad "$1" "priority and comment '$c'" ;;
	esac
}

admin_is() { # NAME JOB TEXT: the job's AdminComment is TEXT
	local c
	c=$(scontrol show job "$2" | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//')
	if [ "$c" = "$3" ]; then ok "$1"; else bad "$1" "AdminComment '$c', not '$3'"; fi
}

scontrol update nodename=gpu001 AvailableFeatures=nvme ActiveFeatures=nvme
scontrol update nodename=gpu002 AvailableFeatures=ib ActiveFeatures=ib
scontrol create PartitionName=gpu2 Nodes=gpu002 DefaultTime=00:10:00 State=UP
scontrol create PartitionName=cpu Nodes=gpu002 DefaultTime=00:10:00 State=UP
fw_start --opt partitions=gpu:gpu2
e=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --exclude=gpu001 --wrap 'sleep 2')
f=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --constraint=ib --wrap 'sleep 2')
u=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --constraint='[ib|nvme]' --wrap 'sleep 1')
on_node exclude_runs "$e" gpu002
on_node constraint_runs "$f" gpu002
want="0 fairway: reads --constraint as features joined by &, | and ( ), not ([ib|nvme]): held (ask without [ ], counts *N, ! or commas)"
if wait_until 10 '[ "$(squeue -h -j "$u" -o "%Q %k")" = "$want" ]'; then
	ok constraint_unread_held
else
	bad constraint_unread_held "priority and comment '$(squeue -h -j "$u" -o '%Q %k')'"
fi
wait_until 20 "gone $e && gone $f" || bad setup "jobs $e $f did not end"
m=$(sbatch --parsable -p cpu,gpu -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 3')
on_node partitions_any_managed "$m" gpu001
p=$(sbatch --parsable -p gpu2 --hold -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
on_node partition_runs "$p" gpu002
wait_until 20 "gone $m && gone $p" || bad setup "jobs $m $p did not end"
# -w: job_submit.lua keeps the list in AdminComment, and fairway starts the
# job on exactly those nodes (it would pick gpu001 for a 1-GPU job)
w1=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null -w gpu002 --wrap 'sleep 2')
on_node nodelist_runs "$w1" gpu002
w2=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null -w 'gpu[001-002]' --wrap 'sleep 2')
on_node nodelist_gang_runs "$w2" 'gpu[001-002]'
w3=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null -N2 -w gpu001 --wrap 'sleep 1')
want="0 fairway: asks 2 nodes and -w names 1 (gpu001); fairway starts a -w job on exactly the nodes it names: held (name them all, or ask -N 1)"
if wait_until 10 '[ "$(squeue -h -j "$w3" -o "%Q %k")" = "$want" ]'; then
	ok nodelist_short_held
else
	bad nodelist_short_held "priority and comment '$(squeue -h -j "$w3" -o '%Q %k')'"
fi
scancel "$w3"
wait_until 20 "gone $w1 && gone $w2 && gone $w3" || bad setup "jobs $w1 $w2 $w3 did not end"
# -w changed with scontrol update (fairway would pick gpu001 for a 1-GPU job)
fw_stop
w4=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null -w gpu001 --wrap 'sleep 2')
scontrol update jobid="$w4" nodelist=gpu002
if ! err=$(scontrol update jobid="$w4" nodelist=gpu001 comment="fairway: started on gpu001" \
	admincomment="fairway: -w gpu001" 2>&1) && [ "$(squeue -h -j "$w4" -o '%Q %k')" = "0 fairway: -w gpu002" ] &&
	[[ $err == *"Requested node configuration is not available"* ]]; then
	ok stale_start_refused
else
	bad stale_start_refused "scontrol: '$err'; priority and comment '$(squeue -h -j "$w4" -o '%Q %k')'"
fi
fw_start --opt partitions=gpu:gpu2
on_node nodelist_changed_runs "$w4" gpu002
admin_is nodelist_changed_recorded "$w4" "fairway: -w gpu002"
wait_until 20 "gone $w4" || bad setup "job $w4 did not end"
fw_stop
# the same race through fairway itself: tests/slurm/race_shim.c (LD_PRELOAD)
# runs the user's change just before fairway's start reaches slurmctld
w6=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null -w gpu001 --wrap 'sleep 1')
export FW_RACE_JOB=$w6 FW_RACE_CMD="scontrol update jobid=$w6 nodelist=gpu002" \
	LD_PRELOAD=$B/connectors/slurm/libfwrace.so ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0
fw_start --opt partitions=gpu:gpu2
unset FW_RACE_JOB FW_RACE_CMD LD_PRELOAD
ASAN_OPTIONS=${ASAN_OPTIONS%:verify_asan_link_order=0}
on_node stale_start_replanned_runs "$w6" gpu002
want="start $w6: job_submit.lua refused it: its -w is now (gpu002), not (gpu001) as read; fairway plans it again next cycle"
if grep -qF "(last refusal: $want)" "$T/fairway.log"; then
	ok stale_start_named
else
	bad stale_start_named "fairway's log: $(grep -F "$w6" "$T/fairway.log" | head -3)"
fi
wait_until 20 "gone $w6" || bad setup "job $w6 did not end"
fw_stop
w5=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null -w gpu002 --wrap 'sleep 1')
scontrol update jobid="$w5" nodelist=
fw_start --opt partitions=gpu:gpu2
on_node nodelist_cleared_runs "$w5" gpu001
admin_is nodelist_cleared_recorded "$w5" "fairway: -w"
# the same by a user who is not root, whose job waits first: the record
# reaches AdminComment through fairway's waiting comment
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	fw_stop
	blk=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null -w gpu002 --wrap 'sleep 6')
	wu=$(runuser -u nobody -- sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --chdir=/tmp -w gpu001 \
		--wrap 'sleep 1')
	runuser -u nobody -- scontrol update jobid="$wu" nodelist=gpu002 || bad user_change_moved "nobody's update refused"
	fw_start --opt partitions=gpu:gpu2
	if wait_until 10 'running $blk && [ "$(scontrol show job "$wu" | sed -n "s/^ *AdminComment=//p" | sed "s/ *$//")" = "fairway: -w gpu002" ]' &&
		squeue -h -j "$wu" -o '%k' | grep -q '^fairway: waiting'; then
		ok user_change_moved
	else
		bad user_change_moved "job $wu: $(squeue -h -j "$wu" -o '%T %Q %k'); $(scontrol show job "$wu" | grep AdminComment)"
	fi
	on_node user_change_runs "$wu" gpu002
	wait_until 20 "gone $blk && gone $wu" || bad setup "jobs $blk $wu did not end"
else
	skip user_change "no user nobody, or no runuser, to submit as"
fi
wait_until 20 "gone $w5" || bad setup "job $w5 did not end"
a=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 30')
wait_until 20 'running $a' || bad setup "job $a did not run"
b=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null --dependency=afterok:"$a" --wrap 'sleep 1')
c=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --begin=now+3600 --wrap 'sleep 1')
sleep 3
cb=$(squeue -h -j "$b" -o '%k')
if [ "$cb" = "fairway: released; Slurm starts it once its dependency (afterok:$a(unfulfilled)) is met" ]; then
	ok dependency_not_booked
else
	bad dependency_not_booked "comment '$cb'"
fi
comment_is begin_held "$c" "fairway: waits for its begin time (*): held until then"
g=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 20 'started $g'; then
	ok gpus_not_booked
else
	bad gpus_not_booked "job $g: $(squeue -h -j "$g" -o '%T %Q %k'); $b: $(squeue -h -j "$b" -o '%T %Q %N %k')"
fi
if wait_until 60 'gone $b'; then
	ok dependency_runs
else
	bad dependency_runs "job $b: $(squeue -h -j "$b" -o '%T %Q %r %k')"
fi
fw_stop
cancel_all
finish
