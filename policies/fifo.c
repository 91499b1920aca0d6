/*
 * fifo.c — strict first-in, first-out across the whole cluster.
 *
 * Ordering: submit time ascending, then job index (the snapshot's order).
 * Queues, priorities and fair share are ignored.  The first job that
 * cannot start blocks every job behind it (head-of-line blocking).
 * Placement: the engine's bin-packing with the job's topology constraint.
 */
#include "fairway/policy.h"

static bool fifo_before(const struct fw_snapshot *s, const struct fw_job *a,
			const struct fw_job *b)
{
	(void)s;
	return a->submit_time < b->submit_time;
}

const struct fw_policy_ops fw__policy_fifo = {
	.name = "fifo",
	.summary = "strict submit order over all queues, head-of-line blocking",
	.job_before = fifo_before,
	.queue_order = FW_QORDER_GLOBAL,
	.strict_order = true,
	.spread_default = false,
};
