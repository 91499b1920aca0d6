/*
 * cycle.h — one scheduling cycle: snapshot in, plan out.
 *
 * fw_cycle_run() is a pure function.  It reads the snapshot (never writes
 * it), reads no clock (time is s->now), does no I/O, touches no globals and
 * allocates only from the arena it is given.  Identical inputs give
 * byte-identical plans.
 *
 * The cycle reads as a list of named phases (lib/cycle.c):
 *   1. build     per-cycle state: node usage from running jobs, the
 *                topology domain index, queue allocations;
 *   2. share     fair share per queue (fairshare.h);
 *   3. order     sort each queue's pending jobs (policy job_before);
 *   4. allocate  repeatedly pick the queue furthest below its fair share,
 *                try its next job: limit check, then all-or-nothing,
 *                topology-aware placement (place.c); record a start or a
 *                reason;
 *   5. explain   give every job that did not start a numeric reason;
 *   6. estimate  give it an expected start time, or say why that is
 *                unknown (plan.h, lib/estimate.c);
 *   7. emit      fill the plan (decisions, pending, queue results).
 *
 * Precondition: the snapshot passed fw_snapshot_validate() (adapters
 * validate once when they build it; validating 100,000 jobs every cycle
 * would cost more than the cycle).
 *
 * Errors: FW_ENOMEM when the arena runs out (no plan is produced; the
 * snapshot is untouched, so the caller can retry with a larger arena).
 */
#ifndef FAIRWAY_CYCLE_H
#define FAIRWAY_CYCLE_H

#include "fairway/arena.h"
#include "fairway/plan.h"
#include "fairway/policy.h"
#include "fairway/snapshot.h"

/* policy NULL = fw_policy_default().  *out is set only on FW_OK. */
int fw_cycle_run(const struct fw_snapshot *s,
		 const struct fw_policy_ops *policy, struct fw_arena *a,
		 struct fw_plan **out);

#endif
