#!/bin/bash
# quota_estimates.sh FAIRWAY: how close the start-time estimates of jobs
# under queue limits come to their starts, on a replay of Microsoft ITP
# cluster06 (2,396 jobs on 13 nodes x 8 GPUs) split over 6 leaf queues
# (a job's queue: crc32 of its id mod 6), three configs: each queue's
# quota / limit 17/32, 10/24 and 16/16 GPUs (at 16/16 nearly every
# waiting job is over quota).  Prints per config the median |error| of
# the first estimate (hours; fairway sim run --jobs' estimate_err_s) and
# the median signed error by job size.  About 5 s.
#   bash bench/quota_estimates.sh build-release/tools/fairway
set -eu
F=${1:?usage: quota_estimates.sh PATH/TO/fairway}
T=${FAIRWAY_TRACES:-../shared/traces}/microsoft-itp/cluster06.csv
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
python3 - "$T" "$D/c06q.csv" <<'PY'
import csv, sys, zlib
out = open(sys.argv[2], 'w')
out.write('job_id,submit_time,duration,queue,tasks,gpus_per_task\n')
for r in csv.DictReader(open(sys.argv[1])):
    g = int(r['num_gpu'])
    if g <= 0:
        continue
    tasks, gpt = (g // 8, 8) if g > 8 and g % 8 == 0 else ((g, 1) if g > 8 else (1, g))
    q = 't%d' % (zlib.crc32(r['job_id'].encode()) % 6)
    out.write('%s,%s,%s,%s,%d,%d\n' % (r['job_id'], r['submission_time'], r['duration'], q, tasks, gpt))
PY
for ql in 17/32 10/24 16/16; do
	{
		printf 'nodeGroups:\n  - {count: 13, namePrefix: n-, gpus: 8, gpuModel: V100, cpu: 64, memory: 512Gi}\nqueues:\n'
		for i in 0 1 2 3 4 5; do
			printf '  - name: t%d\n    resources:\n      gpu: {quota: %s, limit: %s}\n' $i "${ql%/*}" "${ql#*/}"
		done
	} > "$D/q.yaml"
	"$F" sim run --trace "$D/c06q.csv" --format fairway --config "$D/q.yaml" --policies fairway \
		--jobs "$D/jobs.csv" > /dev/null 2>&1
	python3 - "$D/jobs.csv" "$ql" <<'PY'
import csv, statistics, sys
by, every = {}, []
for r in csv.DictReader(open(sys.argv[1])):
    if r['estimate_err_s'] == '':
        continue
    g, e = int(r['gpus']), float(r['estimate_err_s']) / 3600
    k = '1' if g == 1 else '2-4' if g <= 4 else '5-8' if g <= 8 else '9+'
    by.setdefault(k, []).append(e)
    every.append(e)
line = 'quota/limit %-5s  %4d jobs  |err| p50 %5.2f h  signed p50 by GPUs:' % (
    sys.argv[2], len(every), statistics.median([abs(x) for x in every]))
for k in ('1', '2-4', '5-8', '9+'):
    if k in by:
        line += ' %s %+.1f h' % (k, statistics.median(by[k]))
print(line)
PY
done
