/*
 * minrun.c — a job that reclaim would make room for, but not yet: its
 * victims have not run their queue's minimum runtime.
 *
 * The reclaim phase never evicts a running job before it has run its
 * queue's min_runtime_s (preempt.c build_cands).  A job below its
 * queue's fair share that waits while another queue, above its own,
 * holds the GPUs would read only its placement failure ("not enough
 * whole GPUs"), its start unknown when those jobs have no expected end,
 * though the reclaim comes as soon as their protection ends.  After the
 * reclaim (and the estimates) this pass says so:
 *   1. protected: the running jobs that only their minimum runtime keeps
 *      from reclaim (evictable, not evicted, protection ending after
 *      now, their leaf queue above its fair share in GPUs), by the end of
 *      their protection (then job index);
 *   2. per waiting job whose leaf queue is below its fair share, whose
 *      reason is about room (not a limit, a budget, a reservation, a
 *      line, a never) and that needs more whole GPUs than are free now:
 *      the protection ends T, in time order, at which the free whole
 *      GPUs and those of the protected jobs of other leaf queues, on
 *      nodes it may use, freed by then reach its GPUs;
 *   3. at each such T (at most FW__MINRUN_TRIES of them) the job is
 *      placed, dry, in the estimates' profile of T (the walk of
 *      reserve.c: a clone of the cycle's state, the running jobs and
 *      this plan's starts ended by T, reserved nodes held until their
 *      reserved jobs end, nodes out of service or leaving as the walk
 *      has them) with the protected jobs it counted evicted: topology,
 *      a node per task, its node filter, its GPU model limits, a
 *      reservation or a maintenance window that takes the freed nodes.
 *      The first T at which it fits makes its reason MIN_RUNTIME (a =
 *      the last counted job's queue, b = T) and its estimate no later
 *      than T; none (the victims' nodes are of no use to it, others
 *      hold them): its reason and estimate stay the walk's.
 * An approximation still, as estimates are: the rules of the move
 * (preempt.c eligible: how many victims, which) are not checked here,
 * only that the room would be there; the reclaim at T decides.  The
 * decisions do not change.
 * Cost: nothing without a protected job (the benchmark has none);
 * else a sort of them and, per waiting job, a scan of them and up to
 * FW__MINRUN_TRIES walks to T and placement tries, shared by the
 * consecutive jobs of a line of one shape and runtime.
 */
#include <stdlib.h>
#include <string.h>

#include "cycle_int.h"

struct prot {
	fw_time until; /* the end of its protection */
	int32_t job;
};

static int prot_cmp(const void *a, const void *b)
{
	const struct prot *x = a, *y = b;

	if (x->until != y->until)
		return x->until < y->until ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

static bool above_share(const struct cyc *y, int32_t q)
{
	return (double)y->alloc[q].v[FW_RES_GPU] > y->share[q].fair[FW_RES_GPU];
}

static bool below_share(const struct cyc *y, int32_t q)
{
	return (double)y->alloc[q].v[FW_RES_GPU] < y->share[q].fair[FW_RES_GPU];
}

/* Step 1: the protected jobs, by protection end; *n = 0: none. */
static int protected_jobs(struct cyc *y, struct prot **out, int32_t *n)
{
	const struct fw_snapshot *s = y->s;
	struct prot *v = NULL;

	*n = 0;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (y->ji[j].pending || job->alloc_count == 0)
			continue; /* not running: no queue walk for its protection */
		fw_time until = job->start_time + fw_queue_min_runtime(s, job->queue);
		if (until <= s->now || (y->evicted && y->evicted[j]) || !fw_job_evictable(s, job) ||
		    !above_share(y, job->queue))
			continue;
		if (!v && !(v = FW_ARENA_NEW(y->a, struct prot, s->njobs + 1)))
			return FW_ENOMEM;
		v[(*n)++] = (struct prot){ until, j };
	}
	if (*n > 1)
		qsort(v, (size_t)*n, sizeof *v, prot_cmp);
	*out = v;
	return FW_OK;
}

/* Could reclaim make room for waiting job p, by what its reason says? */
static bool about_room(const struct cyc *y, int32_t p)
{
	switch (y->reason[p].reason) {
	case FW_REASON_HAS_RESERVATION:
	case FW_REASON_RESERVED:
	case FW_REASON_HEAD_OF_LINE:
	case FW_REASON_OVER_QUOTA:
	case FW_REASON_LIMIT_HELD:
	case FW_REASON_MODEL_LIMIT:
	case FW_REASON_OVER_BUDGET:
	case FW_REASON_BUDGET_SHORT:
	case FW_REASON_CYCLE_LIMIT:
	case FW_REASON_NEVER_FITS:
	case FW_REASON_TASK_CPU:
	case FW_REASON_TASK_MEM:
	case FW_REASON_CHECKPOINT_WAIT:
	case FW_REASON_LEAVING:
	case FW_REASON_HEALTH:
		return false;
	default:
		return !y->started[p];
	}
}

/* Does protected job v hold GPUs on a node p may use? */
static bool on_usable(const struct cyc *y, int32_t p, int32_t v)
{
	const struct fw_job *vj = &y->s->jobs[v];

	for (int32_t k = 0; k < vj->alloc_count; k++)
		if (fw__job_may_use(y->s, p, y->s->allocs[vj->alloc_first + k].node))
			return true;
	return false;
}

/* Does protected job v count for waiting job p: another leaf queue's,
 * holding GPUs on a node p may use? */
static bool counts(const struct cyc *y, int32_t p, int32_t v)
{
	return y->s->jobs[v].queue != y->ji[p].queue && on_usable(y, p, v);
}

/* Step 3 (fits_at): the protected jobs of v[0 .. upto) that p counts,
 * evicted from the clone at t (the walk already ended those whose
 * expected end is t or before). */
static void evict_counted(struct cyc *y, struct fw__cstate *cl, const struct prot *v, int32_t upto, int32_t p,
			  fw_time t)
{
	const struct fw_snapshot *s = y->s;

	for (int32_t i = 0; i < upto; i++) {
		const struct fw_job *vj = &s->jobs[v[i].job];
		fw_time end = fw__job_end(y, vj, vj->start_time);
		if (!counts(y, p, v[i].job) || (end != FW__NEVER && end <= t))
			continue;
		struct ev x = { .end = t, .job = v[i].job, .tasks = s->allocs + vj->alloc_first,
				.ntasks = vj->alloc_count };
		fw__walk_release_one(y, cl, &x);
	}
}

/* Step 3 for job p at protection end t: would it be placed then, in the
 * estimates' profile of t (fw__walk_*: the running jobs and this plan's
 * starts ended by t, reservations holding their nodes until their jobs
 * end, nodes out of service or leaving as the walk has them) once the
 * protected jobs it counted up to v[upto - 1] are evicted too?  *fits
 * says; the rest is as reserve.c searches a time. */
static int fits_at(struct cyc *y, const struct prot *v, int32_t upto, int32_t p, fw_time t, bool *fits)
{
	struct fw__cstate cl;
	struct fw__stream st[FW__NSTREAMS];
	struct fw__placement pl;
	struct fw_pending scratch;
	uint64_t open;
	fw_time e;
	int rc;

	*fits = false;
	if (!fw__mlim_gate(y, p, &open, &scratch))
		return FW_OK;
	if ((rc = fw__resv_clone(y, &cl, &y->c)) != FW_OK || (rc = fw__walk_init(y, st)) != FW_OK)
		return rc;
	while ((e = fw__walk_next(st)) != FW__NEVER && e <= t)
		fw__walk_release(y, &cl, st, e);
	evict_counted(y, &cl, v, upto, p, t);
	struct fw__place_opts o = { .end = fw__job_end(y, &y->s->jobs[p], t), .ignore_resv = true,
				    .keep_away = true, .start = t, .dry = true };
	rc = fw__place_gated(&cl, p, &o, open, &pl);
	*fits = rc == FW_OK;
	return rc == FW_EDECLINED ? FW_OK : rc;
}

/* Steps 2 and 3 for job p: the first protection end that frees the GPUs
 * it needs and at which it is then placed (at most FW__MINRUN_TRIES
 * such ends tried), with the last counted job's queue in *q; *t =
 * FW_TIME_UNKNOWN: none. */
#define FW__MINRUN_TRIES 8
static int room_at(struct cyc *y, const struct prot *v, int32_t n, int32_t p, int32_t *q, fw_time *t)
{
	int64_t need = fw_job_gpus(&y->s->jobs[p]), have = y->c.dom[0].free_whole;
	int32_t lastq = -1;
	int tries = 0;
	bool fresh = false; /* a job counted since the last try */

	*t = FW_TIME_UNKNOWN;
	for (int32_t i = 0; i < n && tries < FW__MINRUN_TRIES; i++) {
		if (counts(y, p, v[i].job)) {
			have += fw_job_gpus(&y->s->jobs[v[i].job]);
			lastq = y->s->jobs[v[i].job].queue;
			fresh = true;
		}
		if (!fresh || have < need || (i + 1 < n && v[i + 1].until == v[i].until))
			continue; /* nothing new, not enough yet, or more end then */
		bool fits;
		int rc = fits_at(y, v, i + 1, p, v[i].until, &fits);
		tries++;
		fresh = false;
		if (rc != FW_OK)
			return rc;
		if (fits) {
			*q = lastq;
			*t = v[i].until;
			return FW_OK;
		}
	}
	return FW_OK;
}

static void wait_for(struct cyc *y, int32_t p, int32_t q, fw_time t)
{
	struct fw_pending *r = &y->reason[p];

	r->reason = FW_REASON_MIN_RUNTIME;
	r->a = q;
	r->b = t;
	if (!y->s->config.estimate_starts || (r->expected_start != FW_TIME_UNKNOWN && r->expected_start <= t))
		return;
	r->expected_start = t;
	r->unknown_why = FW_REASON_NONE;
	r->why_a = r->why_b = 0;
}

/* The last answer (room_at), for the next job of the same line and
 * shape (allocate's memo: the same GPUs, groups and node filter) and
 * runtime. */
struct last {
	int32_t queue, shape, victim_queue;
	fw_time run, t;
};

int fw__minrun_waits(struct cyc *y)
{
	int32_t n = y->pol->queue_order == FW_QORDER_GLOBAL ? y->qfirst[1] : y->qfirst[y->s->nqueues], np;
	struct last l = { -1, -1, -1, 0, FW_TIME_UNKNOWN };
	struct prot *v;
	int rc;

	if (!y->pol->reclaim)
		return FW_OK;
	if ((rc = protected_jobs(y, &v, &np)) != FW_OK || np == 0)
		return rc;
	for (int32_t i = 0; i < n; i++) {
		int32_t p = y->jobs[i], pq = y->ji[p].queue, g = (int32_t)fw_job_gpus(&y->s->jobs[p]);
		int32_t sh = y->pos_shape ? y->pos_shape[i] : -1;
		fw_time run = fw__runtime(y, &y->s->jobs[p]);
		if (!about_room(y, p) || !below_share(y, pq) || g <= y->c.dom[0].free_whole)
			continue;
		if (sh < 0 || pq != l.queue || sh != l.shape || run != l.run) {
			int32_t vq = -1;
			fw_time t;
			if ((rc = room_at(y, v, np, p, &vq, &t)) != FW_OK)
				return rc;
			l = (struct last){ pq, sh, vq, run, t };
		}
		if (l.t != FW_TIME_UNKNOWN)
			wait_for(y, p, l.victim_queue, l.t);
	}
	return FW_OK;
}
