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
 *      the first protection end T at which the free whole GPUs and those
 *      of the protected jobs of other leaf queues, on nodes it may use,
 *      freed by then reach its GPUs.  Its reason becomes MIN_RUNTIME (a =
 *      the last such job's queue, b = T) and its estimate no later than
 *      T.
 * An approximation, as estimates are: placement (topology, a node per
 * task) and the rules of the move (preempt.c eligible) are not checked
 * here; the reclaim at T decides.  The decisions do not change.
 * Cost: nothing without a protected job (the benchmark has none);
 * else a sort of them and, per waiting job, a scan of them, shared by
 * the consecutive jobs of a line that ask the same GPUs with no node
 * filter.
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
		fw_time until = job->start_time + s->queues[job->queue].min_runtime_s;
		if (y->ji[j].pending || job->alloc_count == 0 || until <= s->now || (y->evicted && y->evicted[j]) ||
		    !fw_job_evictable(s, job) || !above_share(y, job->queue))
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

/* Step 2 for job p: the first protection end that lets the GPUs it needs
 * free, with the last counted job's queue in *q; FW_TIME_UNKNOWN: none. */
static fw_time room_at(const struct cyc *y, const struct prot *v, int32_t n, int32_t p, int32_t *q)
{
	int64_t need = fw_job_gpus(&y->s->jobs[p]), have = y->c.dom[0].free_whole;
	int32_t pq = y->ji[p].queue;

	for (int32_t i = 0; i < n && have < need; i++) {
		const struct fw_job *vj = &y->s->jobs[v[i].job];
		if (vj->queue == pq || !on_usable(y, p, v[i].job))
			continue;
		have += fw_job_gpus(vj);
		*q = vj->queue;
		if (have >= need)
			return v[i].until;
	}
	return FW_TIME_UNKNOWN;
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

/* The last answer (room_at), for the next job of the same line and GPUs
 * (with no node filter anywhere, p's nodes do not matter). */
struct last {
	int32_t queue, gpus, victim_queue;
	fw_time t;
};

int fw__minrun_waits(struct cyc *y)
{
	int32_t n = y->pol->queue_order == FW_QORDER_GLOBAL ? y->qfirst[1] : y->qfirst[y->s->nqueues], np;
	bool filters = y->s->njob_nodes > 0 || y->s->ngroup_nodes > 0;
	struct last l = { -1, -1, -1, FW_TIME_UNKNOWN };
	struct prot *v;
	int rc;

	if (!y->pol->reclaim)
		return FW_OK;
	if ((rc = protected_jobs(y, &v, &np)) != FW_OK || np == 0)
		return rc;
	for (int32_t i = 0; i < n; i++) {
		int32_t p = y->jobs[i], pq = y->ji[p].queue, g = (int32_t)fw_job_gpus(&y->s->jobs[p]);
		if (!about_room(y, p) || !below_share(y, pq) || g <= y->c.dom[0].free_whole)
			continue;
		if (filters || pq != l.queue || g != l.gpus) {
			int32_t vq = -1;
			fw_time t = room_at(y, v, np, p, &vq);
			l = (struct last){ pq, g, vq, t };
		}
		if (l.t != FW_TIME_UNKNOWN)
			wait_for(y, p, l.victim_queue, l.t);
	}
	return FW_OK;
}
