#!/usr/bin/env bash
# tests/integration/slurm_het.sh BUILD_DIR — heterogeneous jobs against a
# real lab (2 nodes x 8 fake GPUs).  Slurm keeps each component of
# `sbatch ... : ...` in a record of its own, runs them together or not at
# all, once every one is released, and never two of them on one node.
# Before, fairway planned each component as a job of its own: it released
# a 2+4 GPU job's two components onto one node, where Slurm never ran them
# (and they kept later jobs off that node), and released one component of
# a 6+6 job while the other waited, booking 6 GPUs Slurm could not use.
# Now a het job is one job of fairway's plan, a task group per component,
# apart (docs/slurm.md).  A watcher samples the components every 0.2 s:
#   two_plus_four_apart      2+4 GPUs on an empty lab: both components
#                            run, on different nodes, each on the node of
#                            its "fairway: started on NODE" comment
#   waits_whole              6+6 while an 8-GPU job holds gpu001: never
#                            one component released and the other held
#   both_commented           meanwhile both carry fairway's waiting comment
#   runs_whole_after         once the 8-GPU job ends, both run, apart
#   three_on_two_nodes_wait  1+1+1 GPUs on 2 nodes: never released (three
#                            components need three nodes), commented
#   own_nodelist_per_component  -w gpu002 : -w gpu001 (2 + 4 GPUs), and
#   own_exclude_per_component   --exclude=gpu001 : --exclude=gpu002: each
#                            component runs on its own node (a node filter
#                            per task group), not where 2 + 4 goes without
#   component_node_busy_waits  8 GPUs -w gpu001 : 1 GPU -w gpu002 while an
#                            8-GPU job holds gpu001: both components wait,
#                            with fairway's comment
#   component_runs_when_its_node_frees  then they run, each on its node
#   mixed_accounts_held      components of two accounts: held, each with
#                            the comment that says why
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_het
GPUS=8 SWITCHES=1 lab_up 2

# het G0 G1 SECS [more components' GPUs]: submit 1-node components asking
# G0, G1, ... GPUs; prints the leader's job id
het() {
	local secs=$3 g args=()
	args+=(-A team_a -N1 -n1 "--gres=gpu:$1" -t 1 -o /dev/null)
	for g in "$2" "${@:4}"; do args+=(: -A team_a -N1 -n1 "--gres=gpu:$g" -t 1); done
	sbatch --parsable "${args[@]}" --wrap "sleep $secs"
}
# prios LEADER: "ID STATE PRIORITY" of each component (squeue's %Q shows
# a released component's priority as 0: PriorityLong does not)
prios() { squeue -h -j "$1" -O 'JobID:12,State:12,PriorityLong:14' 2>/dev/null | sort -n; }
# comps LEADER: the same with "NODE|COMMENT", for the failure messages
comps() { prios "$1"; squeue -h -j "$1" -o '%A %N|%k' 2>/dev/null | sort -n; }
watch_het() {
	while :; do prios "$1" >>"$T/$2.seen"; echo -- >>"$T/$2.seen"; sleep 0.2; done
}
running_count() { squeue -h -j "$1" -t R -o %A 2>/dev/null | wc -l; }
# samples of TAG where one component is released (pending, priority > 0)
# and another held (priority 0)
half_released() {
	awk '$0 == "--" { if (rel && held) n++; rel = held = 0; next }
	     $2 == "PENDING" && $3 > 0 { rel = 1 } $2 == "PENDING" && $3 == 0 { held = 1 }
	     END { print n + 0 }' "$T/$1.seen"
}

# ------------------------------------------------------------ 2 + 4
fw_start
a=$(het 2 4 4)
if wait_until 20 '[ "$(running_count "$a")" = 2 ]'; then
	nodes=$(squeue -h -j "$a" -t R -o %N | sort -u | wc -l)
	off=$(squeue -h -j "$a" -t R -o '%N|%k' | awk -F'|' '$2 != "fairway: started on " $1')
	if [ "$nodes" = 2 ] && [ -z "$off" ]; then
		ok two_plus_four_apart
	else
		bad two_plus_four_apart "$(comps "$a")"
	fi
else
	bad two_plus_four_apart "not running together: $(comps "$a"); $(tail -3 "$T/fairway.log")"
fi
wait_until 30 "gone $a"

# ------------------------------------------------------------ 6 + 6 behind an 8-GPU job
big=$(sbatch --parsable -A team_a -N1 --gres=gpu:8 -t 1 -o /dev/null --wrap 'sleep 8')
wait_until 15 "running $big"
b=$(het 6 6 3)
watch_bg watch_het "$b" six
sleep 4
w=$(squeue -h -j "$b" -t PD -o '%k' | grep -c '^fairway: waiting')
if running "$big" && [ "$w" = 2 ]; then ok both_commented; else bad both_commented "$(comps "$b")"; fi
if wait_until 30 '[ "$(running_count "$b")" = 2 ]' && [ "$(squeue -h -j "$b" -t R -o %N | sort -u | wc -l)" = 2 ]; then
	ok runs_whole_after
else
	bad runs_whole_after "$(comps "$b")"
fi
watch_stop
if [ "$(half_released six)" = 0 ] && grep -q PENDING "$T/six.seen"; then
	ok waits_whole
else
	bad waits_whole "$(half_released six) samples with one component released and one held"
fi
wait_until 30 "gone $b"

# ------------------------------------------------------------ 1 + 1 + 1 on 2 nodes
c=$(het 1 1 2 1)
watch_bg watch_het "$c" three
sleep 4
watch_stop
rel=$(awk '$2 != "PENDING" || $3 > 0' "$T/three.seen" | grep -vc '^--$')
cm=$(squeue -h -j "$c" -o '%k' | grep -c '^fairway: ')
if [ "$rel" = 0 ] && [ "$cm" = 3 ]; then
	ok three_on_two_nodes_wait
else
	bad three_on_two_nodes_wait "$(comps "$c")"
fi
scancel "$c"

# ------------------------------------------------------------ nodes per component
# own_nodes COMP0_OPT COMP1_OPT: 2 + 4 GPUs, each component with its own
# option; passes when component 0 runs on gpu002 and 1 on gpu001 (on an
# empty lab, unfiltered, 2 + 4 starts 0 on gpu001).  Slurm refuses -w on
# one component beside an --exclude of that node on another ("Invalid
# node name specified"), and adds each -w component's nodes to the other
# components' ExcNodeList itself.
own_nodes() {
	local e got
	e=$(sbatch --parsable -A team_a -N1 --gres=gpu:2 "$1" -t 1 -o /dev/null : \
		-A team_a -N1 --gres=gpu:4 "$2" -t 1 --wrap 'sleep 3')
	if wait_until 20 '[ "$(running_count "$e")" = 2 ]'; then
		got=$(squeue -h -j "$e" -t R -o '%A %N' | sort -n | awk '{ printf "%s ", $2 }')
		[ "$got" = "gpu002 gpu001 " ] && ok "$3" || bad "$3" "$(comps "$e")"
	else
		bad "$3" "not running together: $(comps "$e"); $(tail -3 "$T/fairway.log")"
	fi
	wait_until 30 "gone $e"
}
own_nodes --nodelist=gpu002 --nodelist=gpu001 own_nodelist_per_component
own_nodes --exclude=gpu001 --exclude=gpu002 own_exclude_per_component

# a component whose one node is busy: both components wait, with
# fairway's comment (its reservation there), then run once it frees
big=$(sbatch --parsable -A team_a -N1 --gres=gpu:8 -w gpu001 -t 1 -o /dev/null --wrap 'sleep 6')
wait_until 15 "running $big"
e=$(sbatch --parsable -A team_a -N1 --gres=gpu:8 --nodelist=gpu001 -t 1 -o /dev/null : \
	-A team_a -N1 --gres=gpu:1 --nodelist=gpu002 -t 1 --wrap 'sleep 2')
if wait_until 10 '[ "$(squeue -h -j "$e" -t PD -o "%k" | grep -c "^fairway: waiting: ")" = 2 ]' &&
	running "$big"; then
	ok component_node_busy_waits
else
	bad component_node_busy_waits "$(comps "$e"); $(tail -2 "$T/fairway.log")"
fi
if wait_until 30 '[ "$(running_count "$e")" = 2 ]' &&
	[ "$(squeue -h -j "$e" -t R -o '%A %N' | sort -n | awk '{ printf "%s ", $2 }')" = "gpu001 gpu002 " ]; then
	ok component_runs_when_its_node_frees
else
	bad component_runs_when_its_node_frees "$(comps "$e")"
fi
wait_until 30 "gone $e"

# ------------------------------------------------------------ unlike components
d=$(sbatch --parsable -A team_a -N1 --gres=gpu:1 -t 1 -o /dev/null : -A team_b -N1 --gres=gpu:1 -t 1 --wrap 'sleep 1')
if wait_until 10 '[ "$(squeue -h -j "$d" -o "%k" | grep -c "^fairway: plans a heterogeneous job whose components ask the same account")" = 2 ]' &&
	[ "$(prios "$d" | awk '$3 == 0' | wc -l)" = 2 ]; then
	ok mixed_accounts_held
else
	bad mixed_accounts_held "$(comps "$d")"
fi
fw_stop
cancel_all
finish
