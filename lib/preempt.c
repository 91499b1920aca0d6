/*
 * preempt.c — the reclaim phase: evict running jobs so that a job that did
 * not start in allocate can start now.
 *
 * Runs after allocate, only for policies with `reclaim` (policy.h).
 *
 * Preemptors.  Pending jobs that did not start, have no reservation and
 * are within their queue limits, leaf queues in ascending allocated/fair
 * dominant share (ties: queue index), jobs in each queue's order.  A job
 * that earned a reservation in allocate waits for it (letting it reclaim
 * cost two results targets, docs/policies.md); where reclaim or
 * preemption could have applied (a candidate victim the reclaim rules
 * would take for it, its leaf queue below its fair share; or one of lower
 * priority in its leaf queue), its entry says it was not tried
 * (fw_pending.untried, mark_untried: the RESERVE decisions only).
 *
 * Victims.  A running job v may be evicted for preemptor p when
 *   - v runs on a node p may start on (p's node filter, snapshot.h);
 *   - v is preemptible and so are its queue and the queues above it
 *     (fw_job_evictable: a queue may be nonpreemptible), not evicted
 *     already this cycle, has run at least its queue's minimum runtime
 *     (now - start_time; fw_queue_min_runtime: the queue's min_runtime_s,
 *     else its nearest ancestor's), and did not
 *     start after starving (start_time - submit_time < the cycle's
 *     starvation age, policy starve_after_s);
 *   - and either (reclaim, reason RECLAIMED) v's leaf queue differs from
 *     p's, p's leaf queue is below its fair share (dom(alloc) < dom(fair),
 *     the cycle's fair-share data) and every queue on v's path that is not
 *     also on p's path stays at or above its fair share after losing v,
 *     and every queue on p's path that is not on v's stays at or below
 *     its fair share with p started (so the next cycle does not reclaim
 *     it back: no ping-pong between two queues) — or, under the policy's
 *     FW_RECLAIM_NARROW, the move narrows the gap between the two sides
 *     below their lowest common ancestor: every queue on v's side keeps
 *     a ratio (allocated / fair) at least every queue's on p's side
 *     (v_side(); not only the ancestor's two children, or a leaf under
 *     its share would be robbed because its department is over, and
 *     would take the job back once the departments' order turned);
 *   - or (preemption, reason PREEMPTED) v is in p's leaf queue with a lower
 *     priority than p.
 *
 * A target that moves.  With decayed usage the fair shares shift a
 * little every cycle, so a queue a reclaim left at its share can be just
 * under it a cycle later; the rules above still hold within a cycle, and
 * the churn left (measured on the daemon at 2,000 nodes: a third of the
 * evictions of the rule that compared only the ancestor's two children)
 * is a known limit (docs/policies.md).  Bounding each side by the share without
 * usage too was tried: fewer evictions, but queues ended further from
 * their fair shares and a staggered arrival evicted more, so it was left
 * out.
 *
 * Deserved GPUs of a model (snapshot.model_deserved; modellimit.c counts
 * what each queue's subtree holds of the model).  Two rules, for v in
 * another leaf queue than p's, before the fair-share rule above:
 *   - the shield: v is never taken (by this reclaim or the fair-share
 *     one) when losing it would put a queue on v's path, not also on
 *     p's, under what it deserves of a model v runs on;
 *   - the claim (reason MODEL_RECLAIMED): when every GPU of p names a
 *     model, and for each such model a queue on p's path, not on v's,
 *     deserves room for p's GPUs of it (what its subtree holds of the
 *     model plus p's, at most what it deserves), v may be evicted if it
 *     runs on one of those models, whatever the fair shares say.  A
 *     queue that deserves 16 H100s, holds its fair share as A100s and
 *     waits for H100s takes them back from a queue holding H100s beyond
 *     what it deserves of them (Kueue's reclaim of nominal quota per
 *     flavor).  The shield keeps the fair-share rule from taking them
 *     back the next cycle.
 * The claim is tried first in allocate (fw__claim, right after the job
 * fails to place, before it may earn a reservation: a guarantee that
 * waited for the running jobs to end would be none), with the claim's
 * victims only; the same gathering, pruning, budget and checkpoint wait
 * as below.  A job whose claim waits for a checkpoint is not tried
 * again in the reclaim phase.
 *
 * Least lost work.  A job's work is what an eviction now throws away: the
 * run since its last checkpoint, (now - start_time) mod its interval
 * (fw_job_checkpoint: the job's checkpoint_s, else its queue's default),
 * else the whole run, now - start_time.  So a job that has just saved is a cheaper victim
 * than one that started 20 minutes ago.  Candidates are walked in (work,
 * GPUs, job index) ascending order; each eligible one is evicted, whole
 * gang, on the cycle's node state (fw__resv_release) until the preemptor
 * fits (a dry fw__place_job).  Then the set is pruned: from the most work
 * to the least, a victim whose return still leaves room for the preemptor
 * is given back.  The result is minimal (no victim can be spared) and the
 * spared ones are the costliest; it approximates "the fewest GPUs that
 * free a domain where the preemptor fits" without a per-domain search.
 * A victim whose eviction makes no room for the preemptor near its nodes
 * (helps) is kept on the off chance a later one beside it does; but it
 * counts against its queue's share for the candidates after it.  When
 * such idle victims were taken and a later candidate was refused (or
 * they filled the eviction budget), the gather runs again without them,
 * at most MAX_PASSES times, in the same order: a job that had just saved
 * on a node the preemptor cannot use no longer keeps the costlier job that
 * would make room from being evicted.  A pass only adds to what the
 * first could do: a preemptor the first pass placed is placed as before
 * (later preemptors may see a different eviction budget).
 *
 * Per domain, when that fails (choose).  The cheapest victims across the
 * cluster may sit in different domains, none freed, and use up their
 * queue's margin before the victims that would free one are reached
 * (two 4-GPU victims on two nodes for an 8-GPU job).  Only then (a
 * failed walk that took such idle victims; one whose every victim made
 * room near it failed for want of victims, and is not retried), for a
 * preemptor that must fit in one domain of its home level (a node for a
 * job of one task, else the domain of its required level: home_level),
 * victims are chosen per domain (by_domain): one sweep over the eligible
 * candidates, cheapest first, counts for each domain the GPUs its
 * victims free and their work until its free GPUs reach the
 * preemptor's, and ranks the MAX_DOMAINS domains reached at the least
 * work (ties: their victims' GPUs, then domain id; the sweep stops once
 * a candidate costs at least the last of them; a domain whose free and
 * eligible GPUs never reach the preemptor's is never tried); then in
 * each, in that order, the gathering and pruning above run on that
 * domain's victims alone, and the set losing the least work wins (ties:
 * fewer GPUs, then the domain first in order).  A domain is tried only
 * while its estimate (work, then GPUs) is below the best set found.
 * Where the global pick succeeds, the fallback costs nothing; always
 * choosing per domain (branch wip/reclaim-per-domain) cost +10% cycle
 * time and one results target.  A gang that may spread across the
 * cluster (no required level, more than one task), and consolidation,
 * gather across it only.
 *
 * The rules' cost.  eligible runs for every candidate a sweep walks
 * (~40,000 times a cycle on the 10,000-node benchmark, nearly all
 * refusals), so: the preemptor's side (its leaf queue below its share,
 * the highest ratio and any queue over its share with it below each
 * ancestor) is made once per preemptor and state of the allocations
 * (p_side); a victim queue already below both bounds before losing
 * anything refuses all its victims at once, answered once per queue
 * with its lowest common ancestor (leaf_refuses: the victim's shares
 * only fall with its loss); and the victim's side is one walk for both
 * rules (v_side).  Every sim() moves the memos' key on (x->gen).
 *
 * No thrashing.  Victims are evicted only when the preemptor then places
 * (with the ordinary placement, so reservations are honoured); otherwise
 * every victim is put back and nothing is evicted.  The policy's
 * max_evictions bounds the victims per cycle (default 32), and at most
 * 2 * max_evictions preemptors are tried, each with at most MAX_PROBES
 * placement searches per gather pass (and the fallback's gathers in at
 * most MAX_DOMAINS domains); a job is skipped when one of
 * the same shape, leaf queue and priority already failed this cycle (the
 * same victims are eligible for it: a cost bound, not a proof).
 *
 * At a checkpoint (config checkpoint_grace_s > 0; off by default).  Once
 * the victims are chosen and the preemptor placed, if every victim saves
 * a checkpoint within the grace, each sooner than the work it would lose
 * now (its time to the checkpoint, interval - work, below its work), the
 * eviction waits: victims and preemptor are put back, the victims are
 * kept from every other preemptor this cycle, and the preemptor waits
 * with CHECKPOINT_WAIT (a = the victim whose checkpoint comes last, b =
 * that time; its estimate is no later).  A later cycle, once they have
 * saved, finds them cheap (little work since the checkpoint, and the
 * next one an interval away, no longer sooner than that work) and evicts.
 * Stateless: nothing is remembered between cycles; the rule only asks
 * the clock.  The cost is the preemptor's wait, at most the grace.
 *
 * Plan.  EVICT decisions (tasks = the victim's running allocation; a = the
 * preemptor's job index, b = its queue) in the order made, then the
 * preemptor's START.  Queue allocations lose the victims.  Running jobs'
 * end events (reserve.c) drop the evicted jobs, so the estimates that
 * follow do not free their GPUs twice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cycle_int.h"

#define DEFAULT_MAX_EVICTIONS 32
#define MAX_PROBES 8 /* placement searches per preemptor while gathering */
#define MAX_PASSES 3 /* gather passes per preemptor (idle victims skipped) */
#define MAX_DOMAINS 3 /* domains the fallback gathers victims in, cheapest first */

struct cand {
	int64_t work;   /* fw_job_lost_work(): the run since its last checkpoint */
	int64_t gpus;
	int32_t job;
};

/* A domain where the preemptor could fit after evicting its cheapest
 * eligible victims, and the work those lose (rank_domains). */
struct dpick {
	int64_t work;
	int64_t gpus;
	int32_t dom;
};

struct rc {
	struct cyc *y;
	struct cand *cand;
	int32_t ncand;
	double *fair_dom;       /* per queue: the cycle's fair share */
	int32_t *qdepth;        /* per queue: the queues above it (common) */
	int32_t *vict;          /* this attempt's victims */
	enum fw_reason *why;
	int32_t nvict;
	int32_t *idle;          /* the last pass's victims that made no room */
	int32_t nidle;
	bool idled;             /* gather: some pass took an idle victim */
	bool *skip;             /* per job: left out of this gather's passes */
	int32_t *skipped;       /* the jobs skip marks, to clear them */
	int32_t budget;         /* evictions left this cycle */
	int32_t *failed;        /* per interned shape: queue + 1 it failed in */
	int32_t *failed_prio;   /* ... and the preemptor's priority then */
	int32_t nshapes;
	fw_time starve_after;   /* fw__starve_after(): its starts keep */
	/* eligible's memos (memo_alloc), for one preemptor and one state of
	 * y->alloc: sim(), each entry to a sweep over the candidates
	 * (gather, rank_domains, could_take) and p_side for a new preemptor
	 * move gen on, so a memo of another state is never read */
	uint32_t gen;
	uint32_t ps_gen;        /* gen the memo was made at */
	int32_t ps_p;           /* its preemptor; -1: none */
	bool ps_above;          /* p's leaf queue at or above its fair share */
	double ps_hi_all;       /* highest ratio() with p on its whole path */
	bool ps_over_all;       /* a queue on its whole path over its share with p */
	double *ps_hi;          /* per queue on p's path: the same, strictly below it */
	bool *ps_over;
	uint32_t *lr_gen;       /* per queue: gen its leaf_refuses answer was made at */
	bool *lr;               /* ... that answer */
	int32_t *lr_top;        /* ... and its lowest common ancestor with p's */
	/* consolidation (fw__consolidate) */
	bool moving;            /* gather() picks jobs to move, not reclaim */
	int32_t moves;          /* jobs that may still move this cycle */
	int32_t move_tries;     /* gangs that may still try */
	uint64_t open;          /* the preemptor's GPU models (fw__mlim_gate),
				 * as its queues held before any eviction:
				 * evictions only add room under the limits */
	/* at a checkpoint (config checkpoint_grace_s > 0, else NULL/0) */
	fw_time grace;
	bool *held;             /* per job: a victim some preemptor waits for */
	int32_t *waiting;       /* the preemptors that wait, in order */
	int32_t nwaiting;
	/* the preemptor's GPUs by model, when its line deserves GPUs of a
	 * model and all its GPUs name one (fw__mdes_need; else nclaim 0) */
	int32_t claim_model[FW_MAX_GROUPS];
	int64_t claim_gpus[FW_MAX_GROUPS];
	int nclaim;
	bool claiming;          /* fw__claim: only the claim's victims */
	int32_t claim_tries;    /* claims that may still try in allocate */
	/* the per-domain fallback (by_domain; arrays made on first use) */
	int32_t dl;             /* the preemptor's home level */
	int32_t dom;            /* gather only victims with a node in it; -1: all */
	int64_t *dfree;         /* per domain: GPUs its eligible victims free */
	int64_t *dwork;         /* ... the work they lose */
	int64_t *dgpus;         /* ... and their GPUs */
	int32_t *dseen;         /* ... the last victim counted in it, + 1 */
	int32_t *dtouch;        /* the domains the sweep touched */
	int32_t ndtouch;
	struct dpick top[MAX_DOMAINS];
	int32_t ntop;
	int32_t *best;          /* the cheapest domain's victims so far */
	enum fw_reason *best_why;
	int32_t nbest;
};

static double qdom(const struct rc *x, int32_t q, struct fw_res minus)
{
	return fw_res_dominant_share(fw_res_sub(x->y->alloc[q], minus), x->y->c.capacity);
}

/* Allocated / fair dominant share of queue q after adding delta. */
static double ratio(const struct rc *x, int32_t q, struct fw_res delta)
{
	double a = fw_res_dominant_share(fw_res_add(x->y->alloc[q], delta), x->y->c.capacity);
	double f = x->fair_dom[q];

	if (f <= 1e-12)
		return a > 1e-12 ? 1e300 : 1.0;
	return a / f;
}

/* The lowest common ancestor of queues a and b (each itself included),
 * -1 when none: the deeper one climbs until they meet, O(depth).  The
 * queues on a's way up below it are exactly those not on b's way up, so
 * a loop over them stops there instead of walking b's way up at each. */
static int32_t common(const struct rc *x, int32_t a, int32_t b)
{
	const struct fw_snapshot *s = x->y->s;

	while (a >= 0 && b >= 0 && a != b) {
		if (x->qdepth[a] >= x->qdepth[b])
			a = s->queues[a].parent;
		else
			b = s->queues[b].parent;
	}
	return a >= 0 && a == b ? a : -1;
}

/* The preemptor's side of the fair-share rules, made once per preemptor
 * and state of the allocations (x->gen): whether its leaf queue is at
 * or above its fair share; and, for each top (a queue on its way up, or
 * -1 for none), the highest ratio() with p on its path below top (the
 * FW_RECLAIM_NARROW bound; -1e300 when none: ratio() is never NaN, so
 * the comparison picks as fmax would) and whether a queue there would
 * be over its fair share with p started.  Walked from the leaf up, each
 * queue keeps what lies below it (x->ps_hi, x->ps_over). */
static void p_side(struct rc *x, int32_t p)
{
	const struct fw_snapshot *s = x->y->s;
	const struct fw_job *pj = &s->jobs[p];
	double hi = -1e300;
	bool over = false;

	if (x->ps_p == p && x->ps_gen == x->gen)
		return;
	struct fw_res req = fw_job_request(pj), plus = fw_res_sub(fw_res_zero(), req);
	x->gen++; /* leaf_refuses' answers were for another preemptor */
	for (int32_t q = pj->queue; q >= 0; q = s->queues[q].parent) {
		x->ps_hi[q] = hi;
		x->ps_over[q] = over;
		double r = ratio(x, q, req);
		hi = r > hi ? r : hi;
		over = over || qdom(x, q, plus) > x->fair_dom[q] + 1e-9;
	}
	x->ps_hi_all = hi;
	x->ps_over_all = over;
	x->ps_above = qdom(x, pj->queue, fw_res_zero()) >= x->fair_dom[pj->queue];
	x->ps_p = p;
	x->ps_gen = x->gen;
}

/* The victim's side, on v's path below top (its lowest common ancestor
 * with p's leaf), one walk for both rules: under FW_RECLAIM_NARROW,
 * every queue there keeps a ratio at least least (the highest on p's
 * side, less 1e-9: not only the ancestor's two children, or a leaf
 * under its share would be robbed because its department is over);
 * else, or when that fails, every queue there stays at or above its
 * fair share after losing v, and no queue on p's side goes over its
 * share with p (over). */
static enum fw_reason v_side(const struct rc *x, const struct fw_job *vj, int32_t top, double least, bool over)
{
	const struct fw_snapshot *s = x->y->s;
	struct fw_res use = fw__job_use(s, vj);
	bool wide = x->y->pol->reclaim_rule == FW_RECLAIM_NARROW, plain = true;

	for (int32_t q = vj->queue; q >= 0 && q != top && (wide || plain); q = s->queues[q].parent) {
		double d = qdom(x, q, use), f = x->fair_dom[q];
		double r = f <= 1e-12 ? (d > 1e-12 ? 1e300 : 1.0) : d / f; /* ratio(x, q, -use) */
		wide = wide && !(r < least);
		plain = plain && !(d < f);
	}
	if (wide || (plain && !over))
		return FW_REASON_RECLAIMED;
	return FW_REASON_NONE;
}

/* The bounds v_side checks v's side against, below top: the highest
 * ratio() on p's side less 1e-9, and whether a queue there goes over. */
static double least_below(const struct rc *x, int32_t top)
{
	return (top >= 0 ? x->ps_hi[top] : x->ps_hi_all) - 1e-9;
}

static bool over_below(const struct rc *x, int32_t top)
{
	return top >= 0 ? x->ps_over[top] : x->ps_over_all;
}

/* Does v_side refuse every victim of queue q, whatever its use?  Its
 * first step compares q's share after losing the victim, which can only
 * fall (a valid snapshot's uses are never negative, and the dominant
 * share and ratio() are monotone in them): if q is below both bounds
 * without losing anything, no victim of q passes.  *top: q's lowest
 * common ancestor with p's leaf queue pq.  Both kept per queue for one
 * preemptor and state of the allocations (x->gen). */
static bool leaf_refuses(struct rc *x, int32_t q, int32_t pq, int32_t *top)
{
	if (x->lr_gen[q] != x->gen) {
		int32_t t = common(x, q, pq);
		double d = qdom(x, q, fw_res_zero()), f = x->fair_dom[q];
		double r = f <= 1e-12 ? (d > 1e-12 ? 1e300 : 1.0) : d / f; /* ratio(x, q, zero) */
		bool narrow = x->y->pol->reclaim_rule == FW_RECLAIM_NARROW;
		x->lr[q] = q != t && (!narrow || r < least_below(x, t)) && (over_below(x, t) || d < f);
		x->lr_top[q] = t;
		x->lr_gen[q] = x->gen;
	}
	*top = x->lr_top[q];
	return x->lr[q];
}

/* Why v may be evicted for p, or NONE. */
static enum fw_reason eligible(struct rc *x, int32_t p, int32_t v)
{
	const struct fw_snapshot *s = x->y->s;
	const struct fw_job *pj = &s->jobs[p], *vj = &s->jobs[v];

	if (x->y->evicted[v])
		return FW_REASON_NONE;
	if (vj->queue == pj->queue)
		return vj->priority < pj->priority && !x->claiming ? FW_REASON_PREEMPTED : FW_REASON_NONE;
	const struct fw_task_alloc *vt = s->allocs + vj->alloc_first;
	if (x->claiming && !fw__mdes_on(x->y, x->claim_model, x->nclaim, vt, vj->alloc_count))
		return FW_REASON_NONE; /* the cheap test first: not on a model it claims */
	if (fw__mdes_shields(x->y, vj->queue, pj->queue, vt, vj->alloc_count))
		return FW_REASON_NONE; /* its line would hold less of a model than it deserves */
	if (x->nclaim > 0 && (x->claiming || fw__mdes_on(x->y, x->claim_model, x->nclaim, vt, vj->alloc_count)) &&
	    fw__mdes_claim(x->y, pj->queue, vj->queue, x->claim_model, x->claim_gpus, x->nclaim))
		return FW_REASON_MODEL_RECLAIMED;
	if (x->claiming)
		return FW_REASON_NONE;
	p_side(x, p);
	if (x->ps_above)
		return FW_REASON_NONE;
	int32_t top;
	if (leaf_refuses(x, vj->queue, pj->queue, &top))
		return FW_REASON_NONE;
	return v_side(x, vj, top, least_below(x, top), over_below(x, top));
}

/* May v move to make room for gang p?  A single-task job not moved or
 * evicted yet (the candidates are already preemptible and unprotected). */
static enum fw_reason movable(const struct rc *x, int32_t v)
{
	const struct fw_job *vj = &x->y->s->jobs[v];

	if (x->y->evicted[v] || fw_job_tasks(vj) != 1)
		return FW_REASON_NONE;
	return FW_REASON_MOVED;
}

/* The inverse of fw__resv_release: give job j's tasks back their GPUs. */
static void occupy(struct fw__cstate *c, const struct fw_job *j, const struct fw_task_alloc *t, int32_t n)
{
	for (int32_t k = 0; k < n; k++) {
		const struct fw_task_alloc *a = &t[k];
		struct fw__node *nd = &c->nodes[a->node];
		int32_t old = nd->whole_free;
		FW__FOR_EACH_GPU(g, a->gpu_mask)
			nd->used[g] = (int16_t)(nd->used[g] + a->gpu_milli);
		nd->cpu_free -= j->groups[a->group].cpu_milli;
		nd->mem_free -= j->groups[a->group].mem_mib;
		nd->whole_free = fw__node_whole_free(c, a->node);
		fw__domain_node_changed(c, a->node, old);
	}
}

/* Take victim v off (out = true) or put it back on the node state and
 * its queues' allocation. */
static void sim(struct rc *x, int32_t v, bool out)
{
	struct cyc *y = x->y;
	const struct fw_job *j = &y->s->jobs[v];
	const struct fw_task_alloc *t = y->s->allocs + j->alloc_first;
	struct fw_res use = fw__job_use(y->s, j);

	x->gen++; /* y->alloc moves: p_side's memo is stale */
	if (out) {
		struct ev e = { .end = 0, .job = v, .tasks = t, .ntasks = j->alloc_count };
		fw__resv_release(&y->c, j, &e);
	} else {
		occupy(&y->c, j, t, j->alloc_count);
	}
	for (int32_t q = j->queue; q >= 0; q = y->s->queues[q].parent)
		y->alloc[q] = out ? fw_res_sub(y->alloc[q], use) : fw_res_add(y->alloc[q], use);
	fw__mlim_charge(y, v, t, j->alloc_count, out ? -1 : 1);
}

static int fits(struct rc *x, int32_t p, bool dry, struct fw__placement *out)
{
	struct fw__place_opts o = { .end = fw__job_end(x->y, &x->y->s->jobs[p], x->y->s->now), .dry = dry };

	return fw__place_gated(&x->y->c, p, &o, x->open, out);
}

/* A moved job restarts on the GPU model it left (a single task), so no
 * queue's count under a model limit or of deserved GPUs of a model
 * changes (modellimit.c). */
static int fits_moved(struct rc *x, int32_t v, struct fw__placement *out)
{
	const struct fw_job *j = &x->y->s->jobs[v];
	struct fw__place_opts o = { .end = fw__job_end(x->y, j, x->y->s->now) };
	int32_t m = j->alloc_count > 0 ? x->y->c.nodes[x->y->s->allocs[j->alloc_first].node].model : -1;

	o.only_model = (x->y->mlim.held || x->y->mdes.held) && m >= 0 ? m + 1 : 0;
	return fw__place_job(&x->y->c, v, &o, out);
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *u = a, *v = b;

	if (u->work != v->work)
		return u->work < v->work ? -1 : 1;
	if (u->gpus != v->gpus)
		return u->gpus < v->gpus ? -1 : 1;
	return (u->job > v->job) - (u->job < v->job);
}

/* Running, preemptible jobs past their protection, cheapest first. */
static int build_cands(struct rc *x)
{
	const struct fw_snapshot *s = x->y->s;

	/* written before read (only cand[0 .. ncand) is): no zeroing of
	 * 24 bytes per job */
	x->cand = FW_ARENA_RAW(x->y->a, struct cand, s->njobs + 1);
	if (!x->cand)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (x->y->ji[j].pending || job->alloc_count == 0 || !fw_job_evictable(s, job) ||
		    x->y->evicted[j])
			continue;
		if (s->now - job->start_time < fw_queue_min_runtime(s, job->queue))
			continue;
		if (x->starve_after > 0 && job->start_time - job->submit_time >= x->starve_after)
			continue; /* it waited its turn as a starving job */
		x->cand[x->ncand++] = (struct cand){ fw_job_lost_work(s, job, s->now), fw_job_gpus(job), j };
	}
	if (x->ncand > 1)
		qsort(x->cand, (size_t)x->ncand, sizeof *x->cand, cand_cmp);
	return FW_OK;
}

/* Could some task group of p use node n's GPU model? */
/* Can p newly fit now that v is gone?  Only in a domain of p's required
 * level that holds one of v's nodes (the others did not change), of a
 * GPU model p can use, and only if that domain has the whole GPUs p needs
 * for sure, in node-sized pieces that hold its tasks. */
static bool helps(const struct rc *x, const struct fw_job *pj, int32_t v, int64_t need)
{
	const struct fw_job *vj = &x->y->s->jobs[v];

	for (int32_t k = 0; k < vj->alloc_count; k++)
		if (fw__room_near(&x->y->c, pj, x->y->s->allocs[vj->alloc_first + k].node, need))
			return true;
	return false;
}

/* Is node n of a GPU model that p may use under its model limits (x->open
 * for its groups that name none, or the model a group names)? */
static bool model_open(const struct rc *x, const struct fw_job *pj, int32_t n)
{
	int32_t m = x->y->c.nodes[n].model;

	if (m < 0 || (x->open >> m & 1))
		return true;
	for (int g = 0; g < pj->ngroups; g++)
		if (pj->groups[g].gpus && pj->groups[g].gpu_model[0] &&
		    fw__model_id(&x->y->c, pj->groups[g].gpu_model) == m)
			return true;
	return false;
}

/* Does v run on a node that p's node filter allows, and some group of
 * p's (fw__job_may_use), of a GPU model p's limits leave it?  (Without
 * filters and limits, yes.)  A victim elsewhere frees nothing p may use,
 * and would count against its queue's share for the victims after it. */
static bool within_filter(const struct rc *x, int32_t p, int32_t v)
{
	const struct fw_snapshot *s = x->y->s;
	const struct fw_job *vj = &s->jobs[v];

	if (x->open != fw__mlim_all(x->y)) {
		bool any = false;
		for (int32_t k = 0; k < vj->alloc_count && !any; k++)
			any = model_open(x, &s->jobs[p], s->allocs[vj->alloc_first + k].node);
		if (!any)
			return false;
	}
	if (s->njob_nodes == 0 && s->ngroup_nodes == 0)
		return true;
	for (int32_t k = 0; k < vj->alloc_count; k++)
		if (fw__job_may_use(s, p, s->allocs[vj->alloc_first + k].node))
			return true;
	return false;
}

/* Does victim v run on a node of domain x->dom (level x->dl)? */
static bool in_dom(const struct rc *x, int32_t v)
{
	const struct fw_job *vj = &x->y->s->jobs[v];

	for (int32_t k = 0; k < vj->alloc_count; k++)
		if (fw__ancestor(&x->y->c, x->y->s->allocs[vj->alloc_first + k].node, x->dl) == x->dom)
			return true;
	return false;
}

/* One pass of gather: candidates not in x->skip, cheapest first.  A
 * victim taken without making room near its nodes (helps) is "idle":
 * only a later victim beside it can make it useful.  *idle says whether
 * the pass took one and then refused a candidate it may have cost its
 * queue's margin (eligible counts the victims taken before). */
static int gather_pass(struct rc *x, int32_t p, int64_t need, bool *idle)
{
	struct fw__placement pl;
	int32_t probes = 0, nidle = 0;
	int rc;

	int32_t most = x->moving && x->moves < x->budget ? x->moves : x->budget;

	x->nvict = 0;
	*idle = false;
	for (int32_t i = 0; i < x->ncand && x->nvict < most && probes < MAX_PROBES; i++) {
		int32_t v = x->cand[i].job;
		if ((x->held && x->held[v]) || x->skip[v] || (x->dom >= 0 && !in_dom(x, v)))
			continue; /* another preemptor waits for its checkpoint, idle before, or elsewhere */
		enum fw_reason why = x->moving ? movable(x, v) : eligible(x, p, v);
		if (why == FW_REASON_NONE || !within_filter(x, p, v)) {
			*idle = *idle || (nidle > 0 && why == FW_REASON_NONE);
			continue;
		}
		sim(x, v, true);
		x->vict[x->nvict] = v;
		x->why[x->nvict++] = why;
		if (!helps(x, &x->y->s->jobs[p], v, need)) {
			x->idle[nidle++] = v;
			continue;
		}
		probes++;
		if ((rc = fits(x, p, true, &pl)) == FW_OK)
			return 1;
		if (rc != FW_EDECLINED)
			return rc;
	}
	*idle = !x->moving && (*idle || (nidle > 0 && x->nvict >= most));
	while (x->nvict > 0)
		sim(x, x->vict[--x->nvict], false);
	x->nidle = nidle;
	return 0;
}

/* Evict candidates, cheapest first, until p fits.  1: it fits (victims in
 * x->vict); 0: it does not, and every victim is back.  A pass that failed
 * after idle victims used up a queue's margin (or the eviction budget) is
 * run again without them, at most MAX_PASSES times: the order stays the
 * cheapest first, and a pass only adds to what the first could do. */
static int gather(struct rc *x, int32_t p, int64_t need)
{
	int32_t nskip = 0;
	bool idle = true;
	int rc = 0;

	x->idled = false;
	x->gen++; /* p_side: y->alloc may have moved since the last sweep */
	for (int pass = 0; pass < MAX_PASSES && idle && rc == 0; pass++) {
		rc = gather_pass(x, p, need, &idle);
		x->idled = x->idled || (rc == 0 && x->nidle > 0);
		for (int32_t k = 0; rc == 0 && idle && k < x->nidle; k++)
			x->skip[x->skipped[nskip++] = x->idle[k]] = true;
	}
	while (nskip > 0)
		x->skip[x->skipped[--nskip]] = false;
	return rc;
}

/* Spare every victim the preemptor can do without, costliest first. */
static int prune(struct rc *x, int32_t p)
{
	struct fw__placement pl;
	int rc;

	for (int32_t k = x->nvict - 1; k >= 0 && x->nvict > 1; k--) {
		sim(x, x->vict[k], false);
		rc = fits(x, p, true, &pl);
		if (rc == FW_EDECLINED) {
			sim(x, x->vict[k], true);
			continue;
		}
		if (rc != FW_OK)
			return rc;
		memmove(x->vict + k, x->vict + k + 1, (size_t)(x->nvict - k - 1) * sizeof *x->vict);
		memmove(x->why + k, x->why + k + 1, (size_t)(x->nvict - k - 1) * sizeof *x->why);
		x->nvict--;
	}
	return FW_OK;
}

/* ---- the per-domain fallback ------------------------------------------ */

/* Gather in x->dom (everywhere when -1), then prune.  1: the victims are
 * in x->vict, off the node state; 0: none, every victim back. */
static int gather_pruned(struct rc *x, int32_t p, int64_t need)
{
	int rc = gather(x, p, need);

	if (rc > 0 && (rc = prune(x, p)) == FW_OK)
		return 1;
	return rc;
}

/* The level of the domain the preemptor must fit in: a node for a job of
 * one task (or one that asks for a node), else its required level; 0,
 * the root, for a gang that may spread anywhere. */
static int32_t home_level(const struct cyc *y, const struct fw_job *pj)
{
	int32_t L = y->s->topology.nlevels;

	if (fw_job_tasks(pj) == 1 || pj->required_level == FW_LEVEL_NODE)
		return L + 1;
	return pj->required_level == FW_LEVEL_NONE ? 0 : pj->required_level + 1;
}

static int dom_alloc(struct rc *x)
{
	int32_t n = x->y->c.ndom + 1, m = (x->budget > 0 ? x->budget : 0) + 1;

	if (x->dfree)
		return FW_OK;
	x->dfree = FW_ARENA_NEW(x->y->a, int64_t, n);
	x->dwork = FW_ARENA_NEW(x->y->a, int64_t, n);
	x->dgpus = FW_ARENA_NEW(x->y->a, int64_t, n);
	x->dseen = FW_ARENA_NEW(x->y->a, int32_t, n);
	x->dtouch = FW_ARENA_NEW(x->y->a, int32_t, n);
	x->best = FW_ARENA_NEW(x->y->a, int32_t, m);
	x->best_why = FW_ARENA_NEW(x->y->a, enum fw_reason, m);
	return x->dfree && x->dwork && x->dgpus && x->dseen && x->dtouch && x->best && x->best_why ? FW_OK
												   : FW_ENOMEM;
}

static bool dpick_less(const struct dpick *a, const struct dpick *o)
{
	if (a->work != o->work)
		return a->work < o->work;
	return a->gpus != o->gpus ? a->gpus < o->gpus : a->dom < o->dom;
}

/* Keep domain d among the MAX_DOMAINS cheapest, by (work, GPUs of its
 * victims, domain id). */
static void top_insert(struct rc *x, int64_t work, int64_t gpus, int32_t d)
{
	struct dpick e = { work, gpus, d };

	if (x->ntop == MAX_DOMAINS && !dpick_less(&e, &x->top[MAX_DOMAINS - 1]))
		return;
	int32_t i = x->ntop < MAX_DOMAINS ? x->ntop++ : MAX_DOMAINS - 1;
	for (; i > 0 && dpick_less(&e, &x->top[i - 1]); i--)
		x->top[i] = x->top[i - 1];
	x->top[i] = e;
}

/* Count candidate i in the domains of its nodes (its work once per
 * domain, the GPUs of each task there).  A domain whose free whole GPUs
 * and those its victims so far free reach need is ranked (dfree -1). */
static void count_victim(struct rc *x, int32_t i, int64_t need)
{
	const struct fw_snapshot *s = x->y->s;
	const struct fw__cstate *c = &x->y->c;
	const struct fw_job *vj = &s->jobs[x->cand[i].job];

	for (int32_t k = 0; k < vj->alloc_count; k++) {
		const struct fw_task_alloc *a = &s->allocs[vj->alloc_first + k];
		int32_t d = fw__ancestor(c, a->node, x->dl);
		if (x->dseen[d] == 0)
			x->dtouch[x->ndtouch++] = d;
		if (x->dfree[d] < 0)
			continue;
		if (x->dseen[d] != i + 1) {
			x->dwork[d] += x->cand[i].work;
			x->dgpus[d] += x->cand[i].gpus;
		}
		x->dseen[d] = i + 1;
		x->dfree[d] += __builtin_popcount(a->gpu_mask);
		if (c->dom[d].free_whole + x->dfree[d] >= need) {
			top_insert(x, x->dwork[d], x->dgpus[d], d);
			x->dfree[d] = -1;
		}
	}
}

/* The MAX_DOMAINS domains of the home level where evicting the cheapest
 * eligible victims on them frees the GPUs p needs at the least work (an
 * estimate: placement, pruning and the victims' shrinking margin decide
 * in by_domain).  Only domains whose free and eligible GPUs reach p's
 * are ranked.  Candidates come cheapest first, so once that many are
 * ranked, a candidate costing at least the last one's work cannot
 * complete a cheaper domain. */
static void rank_domains(struct rc *x, int32_t p, int64_t need)
{
	x->ntop = 0;
	x->gen++; /* p_side: y->alloc may have moved since the last sweep */
	for (int32_t i = 0; i < x->ncand; i++) {
		int32_t v = x->cand[i].job;
		if (x->ntop == MAX_DOMAINS && x->cand[i].work >= x->top[MAX_DOMAINS - 1].work)
			break;
		if ((x->held && x->held[v]) || eligible(x, p, v) == FW_REASON_NONE || !within_filter(x, p, v))
			continue;
		count_victim(x, i, need);
	}
	while (x->ndtouch > 0) {
		int32_t d = x->dtouch[--x->ndtouch];
		x->dfree[d] = x->dwork[d] = x->dgpus[d] = 0;
		x->dseen[d] = 0;
	}
}

/* The work x->vict loses and its GPUs. */
static void set_cost(const struct rc *x, int64_t *work, int64_t *gpus)
{
	const struct fw_snapshot *s = x->y->s;

	*work = *gpus = 0;
	for (int32_t k = 0; k < x->nvict; k++) {
		*work += fw_job_lost_work(s, &s->jobs[x->vict[k]], s->now);
		*gpus += fw_job_gpus(&s->jobs[x->vict[k]]);
	}
}

static void put_back(struct rc *x)
{
	while (x->nvict > 0)
		sim(x, x->vict[--x->nvict], false);
}

/* Keep x->vict as the best set (x->best); give every victim back. */
static void keep_best(struct rc *x)
{
	memcpy(x->best, x->vict, (size_t)x->nvict * sizeof *x->vict);
	memcpy(x->best_why, x->why, (size_t)x->nvict * sizeof *x->why);
	x->nbest = x->nvict;
	put_back(x);
}

/* Take the best set off again (x->vict).  1: there is one. */
static int take_best(struct rc *x)
{
	for (x->nvict = 0; x->nvict < x->nbest; x->nvict++) {
		sim(x, x->best[x->nvict], true);
		x->vict[x->nvict] = x->best[x->nvict];
		x->why[x->nvict] = x->best_why[x->nvict];
	}
	return x->nvict > 0;
}

/* Could domain e's estimate beat the best set found (work, gpus)? */
static bool below(const struct dpick *e, int64_t work, int64_t gpus)
{
	return e->work < work || (e->work == work && e->gpus < gpus);
}

/* Gather and prune in ranked domain x->top[t] alone.  1: a set (x->vict,
 * off the node state); 0: none. */
static int in_domain(struct rc *x, int32_t p, int64_t need, int32_t t)
{
	x->dom = x->top[t].dom;
	int rc = gather_pruned(x, p, need);
	x->dom = -1;
	return rc;
}

/* Victims per domain of p's home level: in each of the cheapest ranked
 * domains (rank_domains), in order, gather and prune the victims on it
 * alone, and keep the set that loses the least work (ties: fewer GPUs,
 * then the domain ranked first); stop before a domain whose estimate is
 * not below the best found (below).  1: that set is off the node state
 * (x->vict); 0: no domain frees room. */
static int by_domain(struct rc *x, int32_t p, int64_t need)
{
	int64_t best = -1, gpus = 0, w, g;
	int rc;

	if ((rc = dom_alloc(x)) != FW_OK)
		return rc;
	rank_domains(x, p, need);
	x->nbest = 0;
	for (int32_t t = 0; t < x->ntop && (best < 0 || below(&x->top[t], best, gpus)); t++) {
		if ((rc = in_domain(x, p, need, t)) <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		set_cost(x, &w, &g);
		bool better = best < 0 || w < best || (w == best && g < gpus);
		bool last = t + 1 >= x->ntop || !below(&x->top[t + 1], better ? w : best, better ? g : gpus);
		if (better && last)
			return 1; /* no later domain is tried: it stays taken */
		if (!better) {
			put_back(x);
			continue;
		}
		best = w;
		gpus = g;
		keep_best(x);
	}
	return take_best(x);
}

/* Choose the victims that let p (needing need whole GPUs in one gang)
 * start, pruned: the global gather first (cheapest across the cluster);
 * only when it makes no room after taking victims that made none near
 * them (idle: the case a domain's own victims can mend; a walk whose
 * every victim helped failed for want of victims), and p must fit in a
 * domain smaller than the cluster, per domain (by_domain).  1: chosen
 * (x->vict); 0: none. */
static int choose(struct rc *x, int32_t p, int64_t need)
{
	int rc = gather_pruned(x, p, need);

	if (rc != 0 || !x->idled || need <= 0 || (x->dl = home_level(x->y, &x->y->s->jobs[p])) == 0)
		return rc;
	return by_domain(x, p, need);
}

static void record_evict(struct rc *x, int32_t v, enum fw_reason why, int32_t p)
{
	struct cyc *y = x->y;
	const struct fw_job *j = &y->s->jobs[v];
	struct fw_decision *d = &y->dec[y->ndec];

	memset(d, 0, sizeof *d);
	d->kind = FW_DECIDE_EVICT;
	d->reason = why;
	d->job = v;
	d->node = -1;
	d->at = y->s->now;
	d->alloc_count = j->alloc_count;
	d->a = p;
	d->b = y->s->jobs[p].queue;
	y->dec_tasks[y->ndec++] = y->s->allocs + j->alloc_first;
	y->evicted[v] = true;
	y->nevicted++;
	x->budget--;
}

/* Does preemptor p pass every limit on its way up, and every limit a
 * starving gang holds (fw__limit_held: what allocate's try_job would
 * say now; a reserved job, the gang itself maybe, is not asked)? */
static bool within_limits(const struct cyc *y, int32_t p)
{
	const struct fw_job *j = &y->s->jobs[p];
	struct fw_res req = fw_job_request(j);

	if (y->reason[p].reason != FW_REASON_HAS_RESERVATION &&
	    fw__limit_held(y, j->queue, req, fw__job_end(y, j, y->s->now), NULL))
		return false;
	for (int32_t q = y->s->jobs[p].queue; q >= 0; q = y->s->queues[q].parent)
		for (int k = 0; k < FW_RES_COUNT; k++)
			if (y->s->queues[q].limit.v[k] != FW_UNLIMITED &&
			    y->alloc[q].v[k] + req.v[k] > y->s->queues[q].limit.v[k])
				return false;
	return true;
}

static bool used_by(const struct cyc *y, int32_t v, const struct fw__placement *pl)
{
	const struct fw_job *j = &y->s->jobs[v];

	for (int32_t k = 0; k < j->alloc_count; k++)
		for (int32_t m = 0; m < pl->ntasks; m++)
			if (pl->tasks[m].node == y->s->allocs[j->alloc_first + k].node)
				return true;
	return false;
}

/* Placement is not monotone in free capacity (the domain order shifts),
 * so a victim the pruning kept may end up on no node the preemptor uses.
 * Give such victims back and place again; if the preemptor then does not
 * fit, give every victim back.  1: placed on (*pl) with every victim's
 * node in use; 0: nothing evicted. */
static int settle(struct rc *x, int32_t p, struct fw__placement *pl)
{
	struct cyc *y = x->y;
	int rc;

	for (;;) {
		int32_t n = 0;
		bool moved = false;
		struct ev e = { .end = 0, .job = p, .tasks = pl->tasks, .ntasks = pl->ntasks };
		for (int32_t k = 0; k < x->nvict; k++) {
			if (used_by(y, x->vict[k], pl)) {
				x->why[n] = x->why[k];
				x->vict[n++] = x->vict[k];
				continue;
			}
			if (!moved)
				fw__resv_release(&y->c, &y->s->jobs[p], &e);
			moved = true;
			sim(x, x->vict[k], false);
		}
		if (!moved)
			return 1;
		x->nvict = n;
		if (n > 0 && (rc = fits(x, p, false, pl)) == FW_OK)
			continue;
		while (x->nvict > 0)
			sim(x, x->vict[--x->nvict], false);
		return n == 0 || rc == FW_EDECLINED ? 0 : rc;
	}
}

static void unplace(struct cyc *y, int32_t job, const struct fw__placement *pl)
{
	struct ev e = { .end = 0, .job = job, .tasks = pl->tasks, .ntasks = pl->ntasks };

	fw__resv_release(&y->c, &y->s->jobs[job], &e);
}

/* Should the eviction of x->vict wait for their checkpoints?  Only if
 * every victim has an interval, its next checkpoint within the grace and
 * sooner than the work it would lose now (so not one that has just
 * saved).  (None runs on a node the drain requeues from: the drain
 * evicted those before the build, and an evicted job is no victim.)
 * Then *due is the last such checkpoint and *last the first victim with
 * it. */
static bool checkpoint_due(const struct rc *x, fw_time *due, int32_t *last)
{
	const struct fw_snapshot *s = x->y->s;

	*due = s->now;
	for (int32_t k = 0; k < x->nvict; k++) {
		const struct fw_job *vj = &s->jobs[x->vict[k]];
		fw_time cp = fw_job_checkpoint(s, vj), work = fw_job_lost_work(s, vj, s->now);
		if (cp <= 0 || cp - work > x->grace || cp - work >= work)
			return false;
		if (s->now + cp - work > *due) {
			*due = s->now + cp - work;
			*last = x->vict[k];
		}
	}
	return x->nvict > 0;
}

/* Put back the victims and preemptor p (placed on *pl), keep the victims
 * for p, and let p wait for the last checkpoint (reason CHECKPOINT_WAIT). */
static void wait_for_checkpoint(struct rc *x, int32_t p, const struct fw__placement *pl, int32_t last,
				fw_time due)
{
	struct fw_pending *r = &x->y->reason[p];

	unplace(x->y, p, pl);
	while (x->nvict > 0) {
		int32_t v = x->vict[--x->nvict];
		sim(x, v, false);
		x->held[v] = true;
	}
	r->reason = FW_REASON_CHECKPOINT_WAIT;
	r->a = last;
	r->b = due;
	x->waiting[x->nwaiting++] = p;
}

/* Try to start pending job p by evicting others. */
static int try_preemptor(struct rc *x, int32_t p)
{
	struct fw__placement pl;
	struct fw_pending scratch;
	int rc;

	if (!within_limits(x->y, p) || !fw__mlim_gate(x->y, p, &x->open, &scratch))
		return FW_OK;
	x->nclaim = fw__mdes_need(x->y, p, x->claim_model, x->claim_gpus);
	rc = choose(x, p, fw__gang_need(&x->y->s->jobs[p]));
	if (rc <= 0)
		return rc;
	if ((rc = fits(x, p, false, &pl)) != FW_OK)
		return rc; /* the dry run just fitted: only ENOMEM */
	if ((rc = settle(x, p, &pl)) <= 0)
		return rc;
	int32_t last = -1;
	fw_time due;
	if (x->grace > 0 && checkpoint_due(x, &due, &last)) {
		wait_for_checkpoint(x, p, &pl, last, due);
		return FW_OK;
	}
	for (int32_t k = 0; k < x->nvict; k++)
		record_evict(x, x->vict[k], x->why[k], p);
	x->y->reclaimed = x->nvict > 0 || x->y->reclaimed;
	return fw__record_start(x->y, p, &pl);
}

/* x->qdepth: how many queues are above each (common). */
static int depth_init(struct rc *x)
{
	const struct fw_snapshot *s = x->y->s;

	if (!(x->qdepth = FW_ARENA_NEW(x->y->a, int32_t, (size_t)s->nqueues + 1)))
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		for (int32_t u = s->queues[q].parent; u >= 0 && x->qdepth[q] < s->nqueues; u = s->queues[u].parent)
			x->qdepth[q]++;
	return FW_OK;
}

/* eligible's per-queue memos (p_side, leaf_refuses); none made yet. */
static int memo_alloc(struct rc *x)
{
	size_t n = (size_t)x->y->s->nqueues + 1;

	x->ps_p = -1;
	x->ps_hi = FW_ARENA_NEW(x->y->a, double, n);
	x->ps_over = FW_ARENA_NEW(x->y->a, bool, n);
	x->lr_gen = FW_ARENA_NEW(x->y->a, uint32_t, n); /* 0: gen is past it before any is made */
	x->lr = FW_ARENA_NEW(x->y->a, bool, n);
	x->lr_top = FW_ARENA_NEW(x->y->a, int32_t, n);
	return x->ps_hi && x->ps_over && x->lr_gen && x->lr && x->lr_top ? FW_OK : FW_ENOMEM;
}

static int rc_init(struct rc *x, struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t maxev = y->pol->max_evictions > 0 ? y->pol->max_evictions : DEFAULT_MAX_EVICTIONS;

	memset(x, 0, sizeof *x);
	x->y = y;
	x->dom = -1;
	x->budget = maxev;
	x->moves = y->pol->max_moves;
	x->move_tries = 2 * y->pol->max_moves;
	x->claim_tries = 2 * maxev;
	x->open = fw__mlim_all(y);
	x->starve_after = fw__starve_after(y);
	x->grace = s->config.checkpoint_grace_s > 0 ? s->config.checkpoint_grace_s : 0;
	if (x->grace > 0 && (!(x->held = FW_ARENA_NEW(y->a, bool, s->njobs + 1)) ||
			     !(x->waiting = FW_ARENA_NEW(y->a, int32_t, s->njobs + 1))))
		return FW_ENOMEM;
	x->fair_dom = FW_ARENA_NEW(y->a, double, s->nqueues + 1);
	x->vict = FW_ARENA_NEW(y->a, int32_t, maxev + 1);
	x->why = FW_ARENA_NEW(y->a, enum fw_reason, maxev + 1);
	x->idle = FW_ARENA_NEW(y->a, int32_t, maxev + 1);
	x->skip = FW_ARENA_NEW(y->a, bool, s->njobs + 1);
	x->skipped = FW_ARENA_NEW(y->a, int32_t, MAX_PASSES * (maxev + 1));
	if (!y->evicted) /* else run-time limits ended some (cycle.c) */
		y->evicted = FW_ARENA_NEW(y->a, bool, s->njobs + 1);
	for (int32_t i = 0; y->pos_shape && i < y->qfirst[s->nqueues]; i++)
		if (y->pos_shape[i] >= x->nshapes)
			x->nshapes = y->pos_shape[i] + 1;
	x->failed = FW_ARENA_NEW(y->a, int32_t, x->nshapes + 1);
	x->failed_prio = FW_ARENA_NEW(y->a, int32_t, x->nshapes + 1);
	if (!x->fair_dom || !x->vict || !x->why || !x->idle || !x->skip || !x->skipped || !y->evicted || !x->failed ||
	    !x->failed_prio)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++) {
		struct fw_res f;
		for (int r = 0; r < FW_RES_COUNT; r++)
			f.v[r] = (int64_t)llround(y->share[q].fair[r]);
		x->fair_dom[q] = fw_res_dominant_share(f, y->c.capacity);
	}
	if (depth_init(x) != FW_OK || memo_alloc(x) != FW_OK)
		return FW_ENOMEM;
	return build_cands(x);
}

/* The cycle's reclaim state, made on first use (consolidation during
 * allocate, or the reclaim phase). */
static int get_rc(struct cyc *y, struct rc **out)
{
	int rc;

	if (!y->reclaim) {
		struct rc *x = FW_ARENA_NEW(y->a, struct rc, 1);
		if (!x)
			return FW_ENOMEM;
		if ((rc = rc_init(x, y)) != FW_OK)
			return rc;
		y->reclaim = x;
	}
	*out = y->reclaim;
	return FW_OK;
}

static int drop_evicted_events(struct cyc *y);

/* ---- consolidation ---------------------------------------------------- */

/* Whole GPUs free on usable nodes (the root domain's count, kept by the
 * domain index): a gang that needs no more than this fails for
 * fragmentation (or topology), not for capacity. */
static int64_t free_whole(const struct cyc *y)
{
	return y->c.dom[0].free_whole;
}

/* The gang is placed on the room the victims left (*pl); place each
 * victim elsewhere (into vp), or undo everything.  1: all placed. */
static int replace_victims(struct rc *x, int32_t p, const struct fw__placement *pl,
			   struct fw__placement *vp)
{
	int32_t k = 0;
	int rc = FW_OK;

	for (; k < x->nvict && (rc = fits_moved(x, x->vict[k], &vp[k])) == FW_OK; k++)
		;
	if (k == x->nvict)
		return 1;
	if (rc != FW_EDECLINED)
		return rc;
	while (k-- > 0)
		unplace(x->y, x->vict[k], &vp[k]);
	unplace(x->y, p, pl);
	while (x->nvict > 0)
		sim(x, x->vict[--x->nvict], false);
	return 0;
}

int fw__consolidate(struct cyc *y, int32_t jx)
{
	const struct fw_job *j = &y->s->jobs[jx];
	int64_t need = fw__gang_need(j);
	struct fw__placement pl, *vp;
	struct rc *x;
	int rc;

	/* the cheap tests first: the candidates cost a sweep over the jobs */
	if (y->pol->max_moves <= 0 || fw_job_tasks(j) < 2 || need <= 0 || free_whole(y) < need ||
	    y->npreemptible == 0)
		return 0;
	if ((rc = get_rc(y, &x)) != FW_OK)
		return rc;
	if (x->moves <= 0 || x->move_tries <= 0 || x->ncand == 0)
		return 0;
	struct fw_pending scratch;
	if (!fw__mlim_gate(y, jx, &x->open, &scratch))
		return 0; /* allocate asks only for a job its limits let start */
	x->move_tries--;
	x->moving = true;
	rc = gather(x, jx, need);
	if (rc > 0 && (rc = prune(x, jx)) == FW_OK && (rc = fits(x, jx, false, &pl)) == FW_OK)
		rc = settle(x, jx, &pl);
	x->moving = false;
	if (rc <= 0)
		return rc;
	if (!(vp = FW_ARENA_NEW(y->a, struct fw__placement, x->nvict + 1)))
		return FW_ENOMEM;
	if ((rc = replace_victims(x, jx, &pl, vp)) <= 0)
		return rc;
	for (int32_t k = 0; k < x->nvict; k++)
		record_evict(x, x->vict[k], FW_REASON_MOVED, jx);
	x->moves -= x->nvict;
	if ((rc = fw__record_start(y, jx, &pl)) != FW_OK)
		return rc;
	for (int32_t k = 0; k < x->nvict; k++)
		if ((rc = fw__record_start(y, x->vict[k], &vp[k])) != FW_OK)
			return rc;
	/* later reservations this cycle must not free the moved jobs' old
	 * GPUs at their old ends */
	return (rc = drop_evicted_events(y)) != FW_OK ? rc : 1;
}

/* Does every group of j with GPUs name a model?  (Else it claims
 * nothing: fw__mdes_need.) */
static bool names_models(const struct fw_job *j)
{
	for (int g = 0; g < j->ngroups; g++)
		if (j->groups[g].gpus && !j->groups[g].gpu_model[0])
			return false;
	return true;
}

int fw__claim(struct cyc *y, int32_t jx)
{
	int32_t m[FW_MAX_GROUPS];
	int64_t v[FW_MAX_GROUPS];
	struct rc *x;
	int rc, n;

	/* the cheap tests first: the job's shape costs a pass over its
	 * groups, the candidates a sweep over the jobs */
	if (!y->mdes.held || !y->pol->reclaim || y->npreemptible == 0 || !y->mdes.line[y->s->jobs[jx].queue] ||
	    (y->reclaim && (y->reclaim->budget <= 0 || y->reclaim->claim_tries <= 0)) ||
	    !names_models(&y->s->jobs[jx]))
		return 0;
	if ((n = fw__mdes_need(y, jx, m, v)) == 0 || !fw__mdes_claim(y, y->s->jobs[jx].queue, -1, m, v, n))
		return 0; /* nothing it could claim from any queue */
	if ((rc = get_rc(y, &x)) != FW_OK)
		return rc;
	if (x->ncand == 0 || x->budget <= 0 || x->claim_tries <= 0)
		return 0;
	x->claim_tries--;
	x->claiming = true;
	int32_t before = y->ndec;
	rc = try_preemptor(x, jx);
	x->claiming = false;
	if (rc < 0)
		return rc;
	if (y->reason[jx].reason == FW_REASON_CHECKPOINT_WAIT)
		return 1;
	if (y->ndec == before)
		return 0;
	/* later reservations this cycle must not free the victims' GPUs at
	 * their old ends */
	return (rc = drop_evicted_events(y)) != FW_OK ? rc : 1;
}

/* Buckets of y->jobs in ascending allocated/fair order (ties: index). */
static int32_t *bucket_order(struct rc *x, int32_t nb)
{
	int32_t *o = FW_ARENA_NEW(x->y->a, int32_t, nb + 1);
	double *key = FW_ARENA_NEW(x->y->a, double, nb + 1);

	if (!o || !key)
		return NULL;
	for (int32_t b = 0; b < nb; b++) {
		double f = x->fair_dom[b];
		key[b] = nb == 1 ? 0 : f > 0 ? qdom(x, b, fw_res_zero()) / f : 1e18;
		int32_t i = b;
		for (; i > 0 && key[o[i - 1]] > key[b]; i--)
			o[i] = o[i - 1];
		o[i] = b;
	}
	return o;
}

/* The estimates replay running jobs' ends: drop the evicted ones. */
static int drop_evicted_events(struct cyc *y)
{
	int32_t n = 0;
	int rc = fw__resv_events(y);

	if (rc != FW_OK)
		return rc;
	for (int32_t i = 0; i < y->nev_run; i++)
		if (!y->evicted[y->ev_run[i].job])
			y->ev_run[n++] = y->ev_run[i];
	y->nev_run = n;
	return FW_OK;
}

/* Does a GPU-hour budget keep p from starting (its queue over budget, or
 * too little left for it)? */
static bool budget_blocks(const struct cyc *y, int32_t p)
{
	return (y->qbudget && fw__over_budget(y, y->ji[p].queue, NULL)) || (y->qleft && fw__budget_short(y, p, NULL));
}

static bool may_preempt(const struct cyc *y, int32_t p)
{
	enum fw_reason r = y->reason[p].reason;

	/* CHECKPOINT_WAIT here: its claim in allocate waits for its victims */
	return !y->started[p] && r != FW_REASON_HAS_RESERVATION && r != FW_REASON_OVER_QUOTA &&
	       r != FW_REASON_LIMIT_HELD && r != FW_REASON_MODEL_LIMIT && r != FW_REASON_CYCLE_LIMIT && r != FW_REASON_NEVER_FITS &&
	       r != FW_REASON_CHECKPOINT_WAIT && !budget_blocks(y, p);
}

/* What reclaim or preemption could take for reserved job p: a candidate
 * eligible to be reclaimed for it (only when its leaf queue is below its
 * fair share: eligible's first test), or one of lower priority in its
 * leaf queue (FW_UNTRIED_*).  Stops once it knows. */
static int32_t could_take(struct rc *x, int32_t p)
{
	const struct fw_snapshot *s = x->y->s;
	const struct fw_job *pj = &s->jobs[p];
	bool below = qdom(x, pj->queue, fw_res_zero()) < x->fair_dom[pj->queue];
	int32_t got = 0, all = below ? FW_UNTRIED_RECLAIM | FW_UNTRIED_PREEMPT : FW_UNTRIED_PREEMPT;

	x->nclaim = fw__mdes_need(x->y, p, x->claim_model, x->claim_gpus);
	x->gen++; /* p_side: y->alloc may have moved since the last sweep */
	for (int32_t i = 0; i < x->ncand && got != all; i++) {
		int32_t v = x->cand[i].job;
		if (x->y->evicted[v] || (x->held && x->held[v]))
			continue;
		if (s->jobs[v].queue == pj->queue)
			got |= s->jobs[v].priority < pj->priority ? FW_UNTRIED_PREEMPT : 0;
		else if (below && !(got & FW_UNTRIED_RECLAIM) && eligible(x, p, v) != FW_REASON_NONE)
			got |= FW_UNTRIED_RECLAIM;
	}
	return got;
}

/* A job that holds a reservation is no preemptor (reclaiming for it
 * measured two results targets worse): where reclaim or preemption could
 * have applied (could_take), its entry says it was not tried (untried,
 * fw_pending_format).  Only the RESERVE decisions are looked at. */
static void mark_untried(struct rc *x)
{
	struct cyc *y = x->y;

	for (int32_t i = 0; y->nresv > 0 && i < y->ndec; i++) {
		int32_t p = y->dec[i].job;
		struct fw_pending *r = &y->reason[p];
		if (y->dec[i].kind != FW_DECIDE_RESERVE || r->reason != FW_REASON_HAS_RESERVATION ||
		    !y->ji[p].pending || y->started[p] || !within_limits(y, p) || budget_blocks(y, p))
			continue;
		r->untried = could_take(x, p);
	}
}

int fw__phase_reclaim(struct cyc *y)
{
	struct rc *x;
	int32_t nb, *order, tries;
	int rc;

	if (!y->pol->reclaim || y->npreemptible == 0) /* no candidate, no sweep for them */
		return y->nevicted ? drop_evicted_events(y) : FW_OK;
	if ((rc = get_rc(y, &x)) != FW_OK)
		return rc;
	if (x->ncand == 0)
		return y->nevicted ? drop_evicted_events(y) : FW_OK;
	nb = y->pol->queue_order == FW_QORDER_GLOBAL ? 1 : y->s->nqueues;
	if (!(order = bucket_order(x, nb)))
		return FW_ENOMEM;
	tries = 2 * x->budget;
	for (int32_t i = 0; i < nb && x->budget > 0 && tries > 0; i++) {
		int32_t b = order[i];
		for (int32_t k = y->qfirst[b]; k < y->qfirst[b + 1] && x->budget > 0 && tries > 0; k++) {
			int32_t p = y->jobs[k];
			if (!may_preempt(y, p))
				continue;
			if (y->s->config.max_starts > 0 && y->nstarts >= y->s->config.max_starts)
				break;
			int32_t sh = y->pos_shape ? y->pos_shape[k] : -1;
			if (sh >= 0 && x->failed[sh] == y->ji[p].queue + 1 && x->failed_prio[sh] == y->ji[p].prio)
				continue; /* same shape, queue and priority failed */
			tries--;
			int32_t before = y->ndec;
			if ((rc = try_preemptor(x, p)) < 0)
				return rc;
			if (y->ndec == before && sh >= 0 && y->reason[p].reason != FW_REASON_CHECKPOINT_WAIT) {
				x->failed[sh] = y->ji[p].queue + 1;
				x->failed_prio[sh] = y->ji[p].prio;
			}
		}
	}
	mark_untried(x);
	return y->nevicted ? drop_evicted_events(y) : FW_OK;
}

void fw__checkpoint_estimates(struct cyc *y)
{
	const struct rc *x = y->reclaim;

	for (int32_t i = 0; x && i < x->nwaiting; i++) {
		struct fw_pending *r = &y->reason[x->waiting[i]];
		if (r->reason != FW_REASON_CHECKPOINT_WAIT) /* drained since */
			continue;
		if (r->expected_start == FW_TIME_UNKNOWN || r->expected_start > r->b) {
			r->expected_start = r->b;
			r->unknown_why = FW_REASON_NONE;
			r->why_a = r->why_b = 0;
		}
	}
}
