/*
 * kai.c — a KAI-Scheduler-like baseline.
 *
 * Semantics (so an independent implementation can reproduce it):
 *   queue order  hierarchical fair share: at each level of the queue tree
 *                the child with the lowest allocated/fair dominant share
 *                goes first (ties: higher priority, then lower index);
 *   job order    inside a queue: priority descending, submit time
 *                ascending, then snapshot order;
 *   blocking     none: a job that does not fit is skipped, the next one
 *                is tried (KAI's allocate action tries every job);
 *   gangs        all-or-nothing (minMember);
 *   placement    the engine's bin-packing with topology constraints;
 *   reservations none, so no backfill protection: a large gang can wait
 *                for ever behind a stream of small jobs, as in KAI.
 *   reclaim      yes, like KAI's reclaim and preempt actions: preemptible
 *                jobs of queues above their fair share, or of lower
 *                priority in the same queue, are evicted for a job that
 *                starts in the same plan (lib/preempt.c), up to 32 per cycle.
 * It is fairway's engine with reserve_depth = 0.
 */
#include "fairway/policy.h"

const struct fw_policy_ops fw__policy_kai = {
	.name = "kai",
	.summary = "KAI-like hierarchical fair share with gangs, no reservations or backfill",
	.queue_order = FW_QORDER_FAIRSHARE,
	.strict_order = false,
	.reserve_depth = 0,
	.reclaim = true,
	.max_evictions = 32,
};
