/*
 * fairshare.h — hierarchical fair share by water-filling, with decayed usage.
 *
 * (The design essay, the derivation of the formula and a worked example are
 * the first section of lib/fairshare.c's header comment; this header states
 * the contract.)
 *
 * Input: the queue tree of a snapshot, each queue's *demand* (the resources
 * its subtree's jobs ask for: running + pending, capped by the queue's own
 * limit), the capacity of the cluster, `now` and the usage tunables.
 *
 * Output: for every queue, a fair share vector (double, in the units of
 * res.h), computed top-down.  At each parent, the parent's share A is split
 * among its children:
 *   1. each child gets min(demand, deserved) per resource (scaled down in
 *      proportion to deserved if the parent cannot cover them all);
 *   2. the remainder goes to children with unmet demand, highest priority
 *      tier first, and within a tier by DRF progressive filling: each child's
 *      extra allocation grows along its remaining-demand vector, its dominant
 *      share rising at a speed proportional to its effective over-quota
 *      weight, until its demand or limit is met or a resource runs out;
 *   3. no child ever exceeds its limit or its demand.
 * The effective weight folds in decayed usage:
 *      w' = w * 2^(-beta * (u/e - 1)),  exponent clamped to [-4, 4],
 * where u is the child's fraction of its siblings' decayed usage and e its
 * fraction of their weights; beta = config.usage_weight (0 disables).
 *
 * Pure: no allocation except from the arena, no globals; same input, same
 * output bit for bit.
 */
#ifndef FAIRWAY_FAIRSHARE_H
#define FAIRWAY_FAIRSHARE_H

#include "fairway/arena.h"
#include "fairway/res.h"
#include "fairway/snapshot.h"

struct fw_share {
	double fair[FW_RES_COUNT];     /* fair share */
	double demand[FW_RES_COUNT];   /* subtree demand, capped by limits */
	double usage;                  /* decayed usage at `now` */
	double weight_eff;             /* effective over-quota weight used */
};

/* Decay `usage` recorded at `at` to time `now` with half-life h (seconds);
 * h <= 0 means no decay. */
double fw_usage_decay(double usage, fw_time at, fw_time now, double h);

/*
 * Compute shares for every queue of s.  demand[q] is queue q's own demand
 * (leaves: its jobs; inner queues may have 0 — subtree sums are formed
 * here).  capacity is what the roots share.  out must hold s->nqueues
 * elements.  Returns FW_OK or FW_ENOMEM (scratch comes from a).
 */
int fw_fairshare_compute(const struct fw_snapshot *s,
			 const struct fw_res *demand, struct fw_res capacity,
			 struct fw_arena *a, struct fw_share *out);

#endif
