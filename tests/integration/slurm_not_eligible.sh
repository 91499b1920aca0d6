#!/usr/bin/env bash
# tests/integration/slurm_not_eligible.sh BUILD_DIR — jobs that Slurm would
# not run yet, or whose placement rules fairway does not read, stay held
# with a comment that says why, against a real lab (2 nodes x 8 fake GPUs).
# Until the adapter looked, fairway released such a job onto nodes it
# chose and booked their GPUs: until the dependency or begin time passed,
# or for ever on a node the job excludes.
#   dependency_not_booked --dependency=afterok:A while A runs: fairway releases
#                         it (Slurm evaluates no dependency of a held job), and
#                         its comment says Slurm starts it once A is done
#   gpus_not_booked       meanwhile an 8-GPU job starts on the node it was
#                         released onto: fairway does not book a job that
#                         waits for its dependency
#   dependency_runs       once A has ended, the dependent job starts and runs
#   begin_held            --begin=now+1hour: held, "waits for its begin time"
#   exclude_held          --exclude: held, says fairway does not read it
#   constraint_held       --constraint on a real node feature: held, says
#                         fairway does not place by it
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

scontrol update nodename=gpu001 AvailableFeatures=ib ActiveFeatures=ib
fw_start
a=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 30')
wait_until 20 'running $a' || bad setup "job $a did not run"
b=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null --dependency=afterok:"$a" --wrap 'sleep 1')
c=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --begin=now+3600 --wrap 'sleep 1')
e=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --exclude=gpu001 --wrap 'sleep 1')
f=$(sbatch --parsable -A team_a --gres=gpu:1 -t 1 -o /dev/null --constraint=ib --wrap 'sleep 1')
sleep 3
cb=$(squeue -h -j "$b" -o '%k')
if [ "$cb" = "fairway: released; Slurm starts it once its dependency (afterok:$a(unfulfilled)) is met" ]; then
	ok dependency_not_booked
else
	bad dependency_not_booked "comment '$cb'"
fi
comment_is begin_held "$c" "fairway: waits for its begin time (*): held until then"
comment_is exclude_held "$e" "fairway: does not read --exclude (gpu001): held (drain the node, or leave it out of the partition)"
comment_is constraint_held "$f" "fairway: does not place by --constraint (ib): held (ask for a GPU model with --gres=gpu:MODEL:N, or a partition of those nodes)"
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
