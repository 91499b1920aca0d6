#!/usr/bin/env bash
# tests/integration/slurm_big_nodes.sh BUILD_DIR — Slurm nodes with more
# GPUs than a node of fairway's core holds (FW_MAX_GPUS_PER_NODE = 16; MIG
# slices listed as GRES give 56 on an 8-GPU machine), against a real lab of
# 2 nodes x 24 fake GPUs.  Until the adapter coped, one job asking 17+ GPUs
# per node, or one running on GPU 16 or above, made fairway refuse the whole
# snapshot every cycle: no job of the cluster was scheduled any more.
#   big_node_used            a 4-GPU job starts: the nodes are scheduled, as
#                            16 GPUs each
#   too_many_gpus_comment    a job asking 20 GPUs per node stays held, and its
#                            Slurm comment says why and what to do
#   cycles_go_on             meanwhile fairway still starts the jobs it can
#                            place (its cycles do not fail)
#   gpus_past_16_foreign     a job that Slurm runs on GPUs 16-19 (released by
#                            hand) is left out as foreign, and the cycles go on
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_big_nodes
GPUS=24 SWITCHES=1 lab_up 2

fw_start
id=$(sbatch --parsable -A team_a --gres=gpu:4 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 20 'started $id'; then
	ok big_node_used
else
	bad big_node_used "job $id: $(squeue -h -j "$id" -o '%T %Q %k')"
fi

big=$(sbatch --parsable -A team_a --gres=gpu:20 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 20 'squeue -h -j $big -o %k | grep -q "asks 20 GPUs per node"'; then
	c=$(squeue -h -j "$big" -o '%Q %k')
	case "$c" in
	"0 fairway: asks 20 GPUs per node, and fairway places at most 16 on a node: held (ask for fewer per node, on more nodes)")
		ok too_many_gpus_comment ;;
	*) bad too_many_gpus_comment "priority and comment '$c'" ;;
	esac
else
	bad too_many_gpus_comment "comment '$(squeue -h -j "$big" -o %k)'; log: $(tail -3 "$T/fairway.log")"
fi

small=$(sbatch --parsable -A team_a --gres=gpu:2 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 20 'started $small'; then
	ok cycles_go_on
else
	bad cycles_go_on "job $small: $(squeue -h -j "$small" -o '%T %Q %k'); log: $(tail -3 "$T/fairway.log")"
fi

# Slurm hands out the lowest free GPUs.  Two 16-GPU jobs (fairway starts
# them) take GPUs 0-15 of both nodes; a 4-GPU job then has no room in
# fairway's books and stays held, so an operator releases it by hand and
# Slurm runs it on GPUs 16-19.  fairway, restarted, must read that job as
# foreign and go on: a node freed later takes the next job.
scancel "$big"
a=$(sbatch --parsable -A team_a --gres=gpu:16 -t 3 -o /dev/null --wrap 'sleep 150')
b=$(sbatch --parsable -A team_a --gres=gpu:16 -t 3 -o /dev/null --wrap 'sleep 150')
past=$(sbatch --parsable -A team_a --gres=gpu:4 -t 3 -o /dev/null --wrap 'sleep 150')
if ! wait_until 20 '[ "$(squeue -h -j $a,$b -t R -o %i | wc -l)" = 2 ]'; then
	bad gpus_past_16_foreign "the 16-GPU jobs did not run: $(squeue -h -j "$a,$b" -o '%i %T %Q %k')"
else
	sleep 2
	fw_stop
	scontrol release "$past"
	if ! wait_until 20 'running $past'; then
		bad gpus_past_16_foreign "job $past did not run: $(squeue -h -j "$past" -o '%T %Q %r')"
	else
		scancel "$b"
		wait_until 30 'gone $b'
		: >"$T/fairway.log"
		fw_start
		after=$(sbatch --parsable -A team_a --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 1')
		if ! wait_until 20 'started $after'; then
			bad gpus_past_16_foreign "job $after: $(squeue -h -j "$after" -o '%T %Q %k'); log: $(tail -3 "$T/fairway.log")"
		elif grep -q 'fairway-slurm: cycle' "$T/fairway.log"; then
			bad gpus_past_16_foreign "a cycle failed: $(grep -m1 'fairway-slurm: cycle' "$T/fairway.log")"
		elif ! grep -q 'skipped 1 ' "$T/fairway.log"; then
			bad gpus_past_16_foreign "job $past not counted as skipped: $(grep -m1 '^cycle' "$T/fairway.log")"
		else
			ok gpus_past_16_foreign
		fi
	fi
fi
fw_stop
cancel_all
finish
