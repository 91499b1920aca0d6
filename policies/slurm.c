/*
 * slurm.c — a Slurm-like baseline: multifactor priority + EASY backfill.
 *
 * Semantics (so an independent implementation can reproduce it):
 *   priority  P = 1000 * age + 10000 * fairshare + 1000 * size, where
 *               age       = min(1, (now - submit) / 7 days);
 *               fairshare = 2^(-(U/Utot) / (S/Stot)) for the job's leaf
 *                           queue (Slurm's classic formula): U its decayed
 *                           usage, S its deserved GPUs, totals over leaf
 *                           queues; 1 when Utot = 0, 0 when S = 0;
 *               size      = job GPUs / cluster GPUs (large jobs favoured,
 *                           PriorityFavorSmall=NO).
 *             Ties: submit time ascending, then snapshot order.
 *   order     one global list by P (queues only feed the fair-share
 *             factor); the cycle walks it once.
 *   backfill  EASY: the first job that cannot start gets a reservation at
 *             the earliest time it fits, using running jobs' expected end
 *             times (the trace durations act as time limits); a later job
 *             starts now only if it fits and delays that reservation not
 *             at all (ends before it, or keeps off its nodes).  Other
 *             blocked jobs are skipped.
 *   placement the engine's bin-packing; a job larger than one node takes
 *             whole nodes when it is shaped as 8-GPU tasks (as the
 *             simulator shapes ITP jobs), matching Slurm's exclusive
 *             multi-node allocations.
 */
#include <math.h>

#include "fairway/policy.h"

#define AGE_MAX_S (7.0 * 24 * 3600)

static double fairshare_factor(const struct fw_prio_ctx *c, int32_t q)
{
	double shares = (double)c->s->queues[q].deserved.v[FW_RES_GPU];

	if (c->leaf_usage_total <= 0)
		return 1.0;
	if (shares <= 0 || c->leaf_deserved_total <= 0)
		return 0.0;
	return exp2(-(c->usage[q] / c->leaf_usage_total) / (shares / c->leaf_deserved_total));
}

static double slurm_score(const struct fw_prio_ctx *c, const struct fw_job *j)
{
	double age = (double)(c->s->now - j->submit_time) / AGE_MAX_S;
	double gpus = (double)c->capacity.v[FW_RES_GPU] / 1000.0;
	double size = gpus > 0 ? (double)fw_job_gpus(j) / gpus : 0;

	if (age < 0)
		age = 0;
	if (age > 1)
		age = 1;
	return 1000.0 * age + 10000.0 * fairshare_factor(c, j->queue) + 1000.0 * size;
}

const struct fw_policy_ops fw__policy_slurm = {
	.name = "slurm",
	.summary = "Slurm-like multifactor priority (age, fair share, size) with EASY backfill",
	.job_score = slurm_score,
	.queue_order = FW_QORDER_GLOBAL,
	.strict_order = false,
	.reserve_depth = 1,
};
