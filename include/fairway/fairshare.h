/*
 * fairshare.h — hierarchical fair share by water-filling, with decayed usage.
 *
 * (This is the module's design essay and the derivation of its formula;
 * lib/fairshare.c implements it.)
 *
 * What it computes.  For every queue, the slice of the cluster it would hold
 * if everyone's demand were served fairly right now: the target that queue
 * ordering and reclaim steer towards.  Shares flow top-down.  The roots split
 * `capacity`; every queue then splits its own share A among its children:
 *   phase 1 (deserved)  each child gets min(demand, deserved) per resource;
 *                       if the children want more of r than A[r], A[r] is
 *                       water-filled in proportion to deserved (child i gets
 *                       min(demand_i, deserved_i, t * deserved_i), t chosen
 *                       so the sum is A[r]): a child asking for less than
 *                       its proportional slice is served in full.
 *   phase 2 (over quota) what is left goes to children with unmet demand,
 *                       highest priority tier first.  Within a tier, weighted
 *                       DRF progressive filling: a child's extra allocation
 *                       grows along its remaining-demand vector (demand minus
 *                       phase 1), its dominant share (normalised by A) rising
 *                       at a speed proportional to its effective weight, until
 *                       its demand is met or a resource it needs runs out.
 *                       Children of weight 0 fill last in their tier, equally.
 * Free resources.  GPUs are always divided as above; CPU and memory
 * only among the children that set a quota (deserved > 0) on them.  For
 * a child that sets none (unset and 0 are the same) the resource is
 * free: it takes no part in that child's DRF filling (it neither stops
 * the child's growth nor decides its dominant resource), and the child's
 * share of it is its demand, out of what its quota-holding siblings leave
 * after both phases, scaled down in proportion when the free children
 * ask more than that.  So a sibling's CPU quota never holds back a queue
 * that sets none: it still gets its GPU share, and KAI, which divides
 * each resource on its own (its deserved -1, unlimited, takes up to the
 * demand), would give it the same GPUs.  Without this, phase 1 hands out
 * GPUs with no CPU to a queue that deserves no CPU, a child whose GPU
 * demand is not met by then is stopped by the exhausted GPUs, or by the
 * CPU its siblings' quotas took, before phase 2 gives it any CPU, and
 * its children, whose tasks ask CPU, cannot grow at all: GPUs left to
 * nobody.  Among quota holders the DRF coupling stays (a share usable as
 * a whole), and `limited_by` says which resource stopped a child.  The
 * free children take their CPU after every priority tier of the quota
 * holders: a quota is worth more than a priority in a resource one does
 * not guard.
 * Demand is the subtree's (own + children's), capped per resource by the
 * queue's limit, so no child ever exceeds its limit or demand.  An inner
 * queue's own demand is served from what its children leave.  Choices:
 *   - base weight w = over_quota_weight[r*], r* the dominant resource of the
 *     child's remaining demand against A (GPU when nothing remains), so a
 *     CPU-heavy queue competes with its CPU weight (where it sets a CPU
 *     quota: free resources above);
 *   - an inner queue's usage is its own plus all its descendants' (a team is
 *     charged for what its sub-teams burned, as in Slurm's account tree).
 *
 * Decayed usage.  Usage is GPU-seconds weighted by age: a second of use at
 * time s counts 2^(-(t-s)/h) at time t (h = half-life), so
 *     U(t) = integral of g(s) * 2^(-(t-s)/h) ds,    g = GPUs in use at s.
 * Splitting the integral at t0 gives
 *     U(t) = 2^(-(t-t0)/h) * U(t0) + integral over [t0, t] of the same,
 * so one number per queue (usage, usage_at) suffices: the adapter adds new
 * use as it happens and fw_usage_decay() ages the stored value to `now`.
 * The usage enters through the weight.  Among siblings let u = a child's
 * fraction of their decayed usage and e = w / (sum of their w) its fraction
 * of their weight, its entitlement.  Then
 *     w' = w * 2^(-beta * (u/e - 1)),   exponent clamped to [-4, 4].
 * u = e (used exactly its entitlement) keeps w; each further entitlement's
 * worth of use halves it at beta = 1; the clamp bounds the effect to x16
 * either way, so neither a new queue nor a heavy user can starve the rest.
 * Weights only shift the over-quota part: deserved is never touched.
 *
 * Worked example (tests/unit/test_fairshare.c, worked_example).  Root "org"
 * with 16 GPUs; teams A and B, deserved 4 GPUs each, weight 1, each asking
 * for 12.  Half-life 7 days, beta 1.  A recorded 600 GPU-hours 7 days ago
 * (now 300), B 100 GPU-hours just now.  Phase 1: A 4, B 4, 8 left.
 * u_A = 300/400 = 0.75, e_A = 0.5: exponent -0.5, w'_A = 0.707;
 * u_B = 0.25: exponent +0.5, w'_B = 1.414.  Phase 2 splits 8 GPUs 1:2:
 * A 4 + 2.667 = 6.667 GPUs, B 4 + 5.333 = 9.333.  With beta = 0: 8 and 8.
 *
 * Against KAI's time-based fair share.  KAI (NVIDIA) also runs deserved then
 * over-quota-by-priority-and-weight per level, but (1) splits each resource
 * independently, so a queue may get GPUs without the CPUs to use them; we
 * fill along the demand vector (DRF) so the share is usable as a whole;
 * (2) reads usage per cycle from Prometheus over a sliding or tumbling window,
 * normalised by cluster capacity with a kValue; we carry one decayed number
 * per queue in the snapshot, so a cycle stays a pure function of its input,
 * and compare usage among siblings, which needs no capacity history.
 * Against Slurm's fair-tree.  Fair-tree computes a level fair share S/U per
 * account, sorts siblings by it and ranks users depth-first: an ordering of
 * jobs, not an amount, and strictly lexicographic (a slightly over-used
 * account ranks all its users below a sibling's).  We need an amount per
 * queue to reclaim towards, and a smooth one: usage bends weights, it does
 * not reorder whole subtrees.  Slurm's PriorityDecayHalfLife is the same
 * decay as ours.
 *
 * What it reports.  Per queue, besides the fair share: the resource that
 * ran out among its siblings while it still wanted more (`limited_by`:
 * where its growth stopped, -1 when its demand was met), the phase-1 part
 * (`guaranteed`, scaled with the share when the final clamp scales it, so
 * never above it), the base weight and the effective weight the phase-2
 * split used.  They answer "why does my queue get X?" without re-deriving
 * the split: fair = guaranteed + what the weights won in phase 2 (`fairway
 * fairshare explain NAME`, docs/serve.md).
 *
 * Cost.  O(n) to build the tree and roll up demand; per parent with k
 * children O(k^2 * R) worst case (phase 2 retires at least one child per
 * event).  1,000 queues in a 3-level tree take well under a millisecond.
 * Scratch comes from the arena; output depends only on the input, and
 * children are always visited in index order.  Floating-point drift: values
 * below 1e-9 of the parent's share are zero, and each child's share is
 * clamped to its demand and the children's sum to the parent's share.
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
	double guaranteed[FW_RES_COUNT]; /* the part of fair from the deserved
					  * phase (<= fair); the rest is over
					  * quota */
	double weight;                 /* over-quota weight of the dominant
					* resource of its remaining demand */
	double weight_eff;             /* weight after decayed usage: the one
					* the over-quota split used */
	int32_t limited_by;            /* FW_RES_* that ran out among its
					* siblings while it still wanted more
					* (its growth stopped there), or -1 */
};

/* Decay `usage` recorded at `at` to time `now` with half-life h (seconds);
 * h <= 0 means no decay. */
double fw_usage_decay(double usage, fw_time at, fw_time now, double h);

/* What g GPUs held from `from` to `to` add to a decayed usage as of
 * `now` (>= to; half-life h seconds, h <= 0: undecayed, g x seconds):
 * each second decayed from its own time, the exact integral.  So how the
 * time is cut changes nothing: held from a to c, decayed to b, plus held
 * from c to b, is held from a to b.  0 when g <= 0 or to <= from.  The
 * simulator and the daemon accrue with it alike. */
double fw_usage_held(double g, fw_time from, fw_time to, fw_time now, double h);

/*
 * Compute shares for every queue of s.  demand[q] is queue q's own demand
 * (leaves: its jobs; inner queues may have 0 — subtree sums are formed
 * here).  capacity is what the roots share.  out must hold s->nqueues
 * elements.  Scratch comes from a.  Returns FW_OK, FW_ENOMEM, or, for a
 * snapshot that fw_snapshot_validate() would reject, FW_EINVAL (a parent
 * index out of range) or FW_ELOOP (a cycle in the queue tree).  Pure:
 * no globals, no clock; equal input gives bit-equal output.
 */
int fw_fairshare_compute(const struct fw_snapshot *s,
			 const struct fw_res *demand, struct fw_res capacity,
			 struct fw_arena *a, struct fw_share *out);

#endif
