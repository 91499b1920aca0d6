/*
 * fairway.c — fairway's default policy.
 *
 * Hierarchical fair share (queues furthest below their share first), jobs
 * inside a queue by priority, then expansion factor ((wait + runtime) /
 * runtime, runtime capped at 12 h: xfactor_cap_s), then submit time,
 * skip-ahead when a job does not fit (no head-of-line blocking),
 * bin-packing placement, and reservations for the first 16 blocked jobs
 * so that big gangs are not starved by a stream of small ones: a job may
 * start ahead of them only if it delays none of their reservations
 * (backfill).  Gangs that have
 * waited 24 h are tried first, oldest first (starve_after_s), so a big
 * gang of a queue above its share still reaches a reservation.  Reclaim
 * and priority preemption (lib/preempt.c): up to 32 preemptible victims
 * per cycle, only for a job that starts in the same plan, under the
 * narrowing rule (FW_RECLAIM_NARROW, policy.h).
 */
#include "fairway/policy.h"

const struct fw_policy_ops fw__policy_fairway = {
	.name = "fairway",
	.summary = "hierarchical fair share, gangs, topology-aware bin-packing",
	.job_before = NULL,
	.queue_order = FW_QORDER_FAIRSHARE,
	.strict_order = false,
	.reserve_depth = 16,
	.spread_default = false,
	.reclaim = true,
	.max_evictions = 32,
	.reclaim_rule = FW_RECLAIM_NARROW,
	.starve_after_s = 24 * 3600,
	.max_moves = 4,
	.xfactor_cap_s = 12 * 3600,
};
