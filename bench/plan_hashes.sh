#!/bin/bash
# plan_hashes.sh BENCH_CYCLE: one line per bench variant with its plan
# hashes (decisions, pending reasons, estimates), one cycle each, to
# show that a change meant to be invisible is: run it on the build
# before and after, then diff the two outputs.  About 15 s on 2 cores.
#   bash bench/plan_hashes.sh /tmp/old/bench_cycle > old.txt
#   bash bench/plan_hashes.sh build-release/bench/bench_cycle > new.txt
#   diff old.txt new.txt
set -u
B=${1:?usage: plan_hashes.sh PATH/TO/bench_cycle}
run() { printf '%s | ' "$*"; "$B" "$@" --cycles 1 2>&1 | grep "plan hash" || echo "FAILED"; }
run --nodes 4000 --jobs 40000 --queues 400
run --nodes 4000 --jobs 40000 --queues 400 --busy 95
run --nodes 4000 --jobs 40000 --queues 400 --seed 7
run --nodes 2000 --jobs 20000 --queues 200 --busy 95
run --nodes 2000 --jobs 20000 --queues 1000
run --nodes 2000 --jobs 20000 --queues 100 --seed 3
run --nodes 2000 --jobs 20000 --model-limits 20
run --nodes 2000 --jobs 20000 --budgets 30
run --nodes 2000 --jobs 20000 --budgets 30 --budget-safe
run --nodes 2000 --jobs 20000 --max-runtime 7200
run --nodes 2000 --jobs 20000 --job-max-runtime 3600
run --nodes 2000 --jobs 20000 --estimate-depth 0
run --nodes 2000 --jobs 20000 --estimate-depth 500
run --nodes 2000 --jobs 20000 --policy fifo
run --nodes 2000 --jobs 20000 --policy slurm
run --nodes 2000 --jobs 20000 --policy kai
run --nodes 3000 --jobs 30000 --queues 400 --policy fifo
run --nodes 2000 --jobs 20000 --leaving 5
run --nodes 2000 --jobs 20000 --filtered 20 --split 10 --sliced 10
run --nodes 2000 --jobs 20000 --users 50 --checkpoint-grace 600
run --nodes 1000 --jobs 30000 --queues 50 --busy 80
run
