#!/usr/bin/env bash
# tests/integration/slurm_gpu_forms.sh BUILD_DIR — every way sbatch asks
# for GPUs reaches fairway as GPUs per node, against a real lab (2 nodes x
# 8 fake GPUs).  Until the adapter read TresPerTask and a multi-node
# TresPerJob, such a job looked like a CPU job: fairway released it onto
# nodes whose GPUs were all taken, where Slurm could not run it.
#   per_task_waits        -N 2 --ntasks-per-node=4 --gpus-per-task=1 (4 GPUs a
#                         node) stays held while both nodes' GPUs are taken,
#                         its comment fairway's wait (a job misread as CPU-only
#                         would be released onto the full nodes)
#   per_job_waits         -N 2 --gpus=12 (6 a node, rounded up) likewise
#   per_task_one_node     -n 3 --gpus-per-task=2 (6 GPUs) likewise
#   per_socket_held       --gpus-per-socket, which fairway does not read, is
#                         held with a comment that says what to ask instead
#   they_run_when_free    once the GPUs are free, the three start and run: the
#                         two -N 2 jobs, 4 and 6 GPUs a node, each on two
#                         nodes (one task a node, as Slurm needs; fairway
#                         would pack both tasks onto one 8-GPU node, and
#                         Slurm refused that start for ever)
#   exclusive_gets_a_free_node  --exclusive --gres=gpu:1 beside a running
#                         4-GPU job starts at once on the free node (a whole
#                         node in Slurm); read as 1 GPU, fairway packed it
#                         beside the other, where Slurm would not run it
# Then through the daemon (fairway serve --backend slurm):
#   serve_uneven_is_the_queues  -N 2 --gpus=12 on two free nodes runs as
#                         Slurm places it (here 8 and 4): GET /v1/jobs/ID
#                         has it running, team_a's, 12 GPUs on both nodes,
#                         and no GPU of either node is counted bad (such a
#                         job was read as foreign: its GPUs bad, counted
#                         for no queue, never evicted)
. "$(dirname "$0")/../slurm/lib.sh"
TEST_NAME=slurm_gpu_forms
GPUS=8 SWITCHES=1 lab_up 2

fw_start
a=$(sbatch --parsable -A team_a --gres=gpu:8 -t 2 -o /dev/null --wrap 'sleep 120')
b=$(sbatch --parsable -A team_a --gres=gpu:8 -t 2 -o /dev/null --wrap 'sleep 120')
wait_until 20 '[ "$(squeue -h -j $a,$b -t R -o %i | wc -l)" = 2 ]' ||
	bad setup "the 8-GPU jobs did not run: $(squeue -h -j "$a,$b" -o '%i %T %Q %k')"
t=$(sbatch --parsable -A team_a -N 2 --ntasks-per-node=4 --gpus-per-task=1 -t 1 -o /dev/null --wrap 'sleep 1')
p=$(sbatch --parsable -A team_a -N 2 --gpus=12 -t 1 -o /dev/null --wrap 'sleep 1')
o=$(sbatch --parsable -A team_a -n 3 --gpus-per-task=2 -t 1 -o /dev/null --wrap 'sleep 1')
s=$(sbatch --parsable -A team_a --gpus-per-socket=1 --sockets-per-node=1 -t 1 -o /dev/null --wrap 'sleep 1')
# a few cycles: a job misread as CPU-only would be released (priority > 0)
sleep 3
waits() { # NAME JOB: still held (priority 0), commented with fairway's wait
	local c
	c=$(squeue -h -j "$2" -o '%Q %k')
	case "$c" in
	"0 fairway: waiting: "*) ok "$1" ;;
	*) bad "$1" "priority and comment '$c'" ;;
	esac
}
waits per_task_waits "$t"
waits per_job_waits "$p"
waits per_task_one_node "$o"
c=$(squeue -h -j "$s" -o '%Q %k')
case "$c" in
"0 fairway: reads GPUs per node, per task or per job, not --gpus-per-socket: held (ask --gpus-per-node)") ok per_socket_held ;;
*) bad per_socket_held "priority and comment '$c'" ;;
esac
scancel "$s" "$a" "$b"
if wait_until 60 'gone $t && gone $p && gone $o'; then
	ok they_run_when_free
else
	bad they_run_when_free "$(squeue -h -j "$t,$p,$o" -o '%i %T %Q %r %k'); log: $(tail -3 "$T/fairway.log")"
fi

# --exclusive: Slurm gives the job its node whole, whatever it asks.  Read
# as a 1-GPU job, x went where fairway packs 1-GPU jobs: beside r on the
# busier node, where Slurm would not run it until r ended.
r=$(sbatch --parsable -A team_a --gres=gpu:4 -t 1 -o /dev/null --wrap 'sleep 40')
wait_until 20 'running $r' || bad setup "job $r did not run"
x=$(sbatch --parsable -A team_a --exclusive --gres=gpu:1 -t 1 -o /dev/null --wrap 'sleep 1')
if wait_until 15 'started $x'; then
	ok exclusive_gets_a_free_node
else
	bad exclusive_gets_a_free_node "job $x: $(squeue -h -j "$x" -o '%T %Q %r %k'); $r on $(squeue -h -j "$r" -o %N)"
fi
fw_stop
cancel_all
wait_until 20 'gone $r && gone $x' || bad setup "jobs $r $x did not end"
serve_up 2
u=$(sbatch --parsable -A team_a -N 2 --gpus=12 -t 5 -o /dev/null --wrap 'sleep 120')
wait_until 20 'running $u' || bad setup "job $u did not run: $(squeue -h -j "$u" -o '%T %Q %r %k')"
PORT=$(cat "$T/port")
# three cycles past the one that saw it run (the view of the cycle that
# started it shows the plan's own start)
cyc() { curl -s "http://127.0.0.1:$PORT/v1/plan" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cycle"])'; }
c0=$(cyc)
wait_until 10 '[ "$(cyc)" -ge $((c0 + 3)) ]' || bad setup "the daemon did not cycle past $c0"
placed=$(scontrol -d show job "$u" | sed -n 's/.*Nodes=\([^ ]*\) .*GRES=\([^ ]*\).*/\1 \2/p' | tr '\n' ' ')
uneven_listed() {
	curl -s "http://127.0.0.1:$PORT/v1/jobs/$u" >"$T/u.json" && curl -s "http://127.0.0.1:$PORT/v1/nodes" >"$T/n.json" &&
		python3 - "$T/u.json" "$T/n.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["state"], j["queue"], j["gpus"]) == ("running", "team_a", 12), j
assert sorted(j["nodes"]) == ["gpu001", "gpu002"], j
assert all(not n.get("badGpus") for n in json.load(open(sys.argv[2]))["nodes"])
PY
}
if wait_until 10 'uneven_listed 2>/dev/null'; then
	ok serve_uneven_is_the_queues
else
	bad serve_uneven_is_the_queues "Slurm placed it: $placed; GET: $(cat "$T/u.json"); $(head -c 400 "$T/n.json")"
fi
echo "# job $u placed by Slurm as: $placed; GET: $(cat "$T/u.json")"
serve_down
cancel_all
finish
