/*
 * drain.c — what the cycle does with node health (health.h).
 *
 *   may_use_suspect  placement's rule: a job may use SUSPECT nodes (and
 *                    nodes with a suspect GPU) when it asks fewer than
 *                    suspect_gang_gpus GPUs (default 16) or is preemptible;
 *                    probation is tested by small and preemptible work.
 *   avoids_lemon     a job of lemon_gang_gpus (default 64) or more that is
 *                    not preemptible takes lemon nodes last; every other
 *                    job takes them (and suspect nodes it may use) first,
 *                    so the nodes with a fault history hold the work a
 *                    failure costs least (lib/place.c).
 *   explain          a pending job that could not start at the start of
 *                    the cycle (fewer usable free GPUs than it needs), but
 *                    would have with the GPUs health took away (idle GPUs
 *                    of UNHEALTHY/DRAINING nodes, bad GPUs, and for a big
 *                    gang the free GPUs of suspect nodes), gets the HEALTH
 *                    reason: a = nodes health took from it, b = nodes with
 *                    GPUs.  Judged on whole-cluster GPU counts (the same
 *                    bound GANG_NO_FIT and GPUS_BUSY use), not per GPU
 *                    model.
 *   drain            before the build, after the run-time limits
 *                    (fw__drain_mark): every UNHEALTHY or DRAINING node
 *                    with running jobs, or idle but still schedulable,
 *                    will get a DRAIN decision (node = its index, a = the
 *                    node, b = jobs running on it, 0 when idle).  On an
 *                    UNHEALTHY node with drain_requeue (the default) the
 *                    reason is DRAIN_REQUEUE and each job with a task
 *                    there, not ended already by its run-time limit, is
 *                    marked evicted (whole gang, whatever its
 *                    preemptibility: the hardware under it is gone);
 *                    otherwise DRAIN_FINISH and the jobs run on.  A
 *                    DRAINING node (an operator's maintenance) always lets
 *                    its jobs finish.  Marked so early, a requeued job
 *                    holds nothing from the build on: its GPUs on the
 *                    healthy nodes are free for this plan's starts, its
 *                    queues' allocation leaves it out, the estimates' end
 *                    events too, and reclaim never takes it as a victim.
 *                    It still asks for its GPUs in its queue's demand.
 *   emit             right after the limits' evictions (fw__drain_emit):
 *                    per node in index order its DRAIN, then the DRAINED
 *                    eviction (a = the node, b = its tasks there) of each
 *                    marked job not written yet, so every eviction comes
 *                    before any start that uses its GPUs.
 *   mend             for the estimates (fw__health_mended, estimate.c):
 *                    a job the cluster could never hold, not even empty,
 *                    may still fit once health gives back what it holds
 *                    out: the nodes out of service (UNHEALTHY or DRAINING,
 *                    fw_node.health; a repaired node comes back whole,
 *                    schedulable, its bad GPUs good) and, for a job that
 *                    avoids them, the SUSPECT ones (probation ends).  The
 *                    mended cluster is the snapshot so repaired, every
 *                    job ended; a job that fits it is not NEVER_FITS but
 *                    unknown for HEALTH (a = the nodes health holds from
 *                    it or took GPUs from, b = the nodes with GPUs of the
 *                    mended cluster), because health passes.  One that
 *                    fits only once the cordoned nodes (schedulable:
 *                    false) come back too (the cordons lifted: a second
 *                    mended cluster, built only then) is unknown for
 *                    NODES_OUT (a = those nodes and the cordoned ones, b
 *                    = the nodes with GPUs then): a cordon is lifted
 *                    too.  One that fits neither (bigger than the whole
 *                    fleet) keeps its never.  Each built once per cycle,
 *                    and only when a never-job meets a node health (or a
 *                    cordon) holds from it.
 *   restart          first in allocate (fw__drain_restart, allocate.c):
 *                    each requeued job, the higher priority first, then
 *                    the earlier submission, starts again, elsewhere,
 *                    when it fits now under its queues' limits, budgets
 *                    and model limits (EVICT then START of one job, as a
 *                    consolidation move is); otherwise it is pending at
 *                    the next cycle.
 *
 * Cost: only when some node is UNHEALTHY or DRAINING (a scan of the
 * nodes), the drain walks the running jobs' allocations once to count and
 * once to mark, then its marked jobs once per node it requeues from; the
 * explanation is O(1) per explained shape.
 */
#include <string.h>

#include "cycle_int.h"

bool fw__may_use_suspect(const struct fw__cstate *c, const struct fw_job *j)
{
	return j->preemptible || fw_job_gpus(j) < c->suspect_gang;
}

bool fw__avoids_lemon(const struct fw__cstate *c, const struct fw_job *j)
{
	return !j->preemptible && fw_job_gpus(j) >= c->lemon_gang;
}

void fw__health_explain(const struct cyc *y, const struct fw_job *j, struct fw_pending *r)
{
	const struct fw__cstate *c = &y->c;
	bool big = !fw__may_use_suspect(c, j);
	int64_t need = fw_job_gpus(j);
	int64_t usable = c->root_free_initial - (big ? c->suspect_free : 0);
	int64_t lost = c->health_lost_free + (big ? c->suspect_free : 0);

	if (r->reason != FW_REASON_GANG_NO_FIT && r->reason != FW_REASON_TOPOLOGY &&
	    r->reason != FW_REASON_NO_RESOURCES && r->reason != FW_REASON_NO_CPU && r->reason != FW_REASON_NO_MEM &&
	    r->reason != FW_REASON_NO_MODEL && r->reason != FW_REASON_FAIRSHARE_ORDER &&
	    r->reason != FW_REASON_GPUS_BUSY && r->reason != FW_REASON_GPU_SHARE)
		return;
	if (lost == 0 || usable >= need || usable + lost < need)
		return;
	r->reason = FW_REASON_HEALTH;
	r->a = c->unhealthy_nodes + (big ? c->suspect_nodes : 0);
	r->b = c->gpu_nodes;
}

/* ---- mend ------------------------------------------------------------ */

static bool held_out(const struct fw_node *n)
{
	enum fw_health h = n->health;

	return h == FW_HEALTH_UNHEALTHY || h == FW_HEALTH_DRAINING;
}

/* Per kind of job (av: avoids suspect nodes), the nodes with GPUs health
 * holds from it now: out of service and not back by a known time, or
 * suspect and usable when it avoids them (what mending gives back); and
 * those with the nodes in use with a bad GPU (touched: the nodes the
 * pending HEALTH reason names, and the out-of-service ones the world
 * already holds unschedulable); and the cordoned healthy ones not back
 * by a known time (what lifting gives back).  Once per cycle, O(nodes). */
static void count_held(const struct fw__cstate *c, struct fw__mend *m)
{
	for (int32_t n = 0; n < c->nn; n++) {
		const struct fw_node *sn = &c->s->nodes[n];
		uint32_t all = (1u << sn->gpu_count) - 1;
		bool in = fw__indexed(&c->nodes[n]), out = held_out(sn) && !c->nodes[n].returning;
		if (sn->gpu_count == 0)
			continue;
		m->cordoned += !sn->schedulable && !held_out(sn) && !c->nodes[n].returning;
		for (int av = 0; av < 2; av++) {
			bool held = out || (av && c->nodes[n].suspect && in);
			m->held[av] += held;
			m->touched[av] += held || (in && (sn->bad_gpu_mask & all));
		}
	}
	m->counted = true;
}

/* The snapshot with health repaired, and every job ended: each node out
 * of service comes back whole and schedulable, each suspect one healthy,
 * each returning one back (as the empty cluster counts it); a cordoned
 * healthy node stays out (the operator's, not health's) unless lift (a
 * cordon is lifted too), and a node in service keeps its bad GPUs (it
 * has its others). */
static int mend(struct cyc *y, struct fw__cstate *m, bool lift)
{
	const struct fw_snapshot *s = y->s;
	struct fw_snapshot *r = FW_ARENA_RAW(y->a, struct fw_snapshot, 1);
	struct fw_node *nodes = FW_ARENA_RAW(y->a, struct fw_node, s->nnodes + 1);
	bool *ended = FW_ARENA_RAW(y->a, bool, s->njobs + 1);
	int rc;

	if (!r || !nodes || !ended)
		return FW_ENOMEM;
	*r = *s;
	r->nodes = nodes;
	for (int32_t n = 0; n < s->nnodes; n++) {
		struct fw_node *x = &nodes[n];
		bool out = held_out(&s->nodes[n]), back = out || (lift && !s->nodes[n].schedulable) || y->c.nodes[n].returning;
		*x = s->nodes[n];
		if (out)
			x->bad_gpu_mask = 0;
		if (back) {
			x->schedulable = true;
			x->back_at = 0;
		}
		if (back || x->health == FW_HEALTH_SUSPECT)
			x->health = FW_HEALTH_HEALTHY;
		x->suspect_gpu_mask = 0;
	}
	for (int32_t j = 0; j <= s->njobs; j++)
		ended[j] = true;
	if ((rc = fw__cstate_build_ended(m, r, y->a, ended)) != FW_OK || (rc = fw__filter_build(m)) != FW_OK ||
	    (rc = fw__slice_build(m)) != FW_OK)
		return rc;
	m->pol = y->pol;
	return fw__place_scratch(m, y->c.scratch_tasks_cap);
}

/* Does job jx fit the mended cluster c (built once: lift, its cordons
 * lifted too)?  *nodes: its nodes with GPUs. */
static int fits_mended(struct cyc *y, int32_t jx, struct fw__cstate *c, bool *built, bool lift, int64_t *nodes)
{
	struct fw__place_opts o = { .end = FW__NEVER, .ignore_resv = true, .dry = true };
	struct fw__placement p;
	int rc;

	if (!*built) {
		if ((rc = mend(y, c, lift)) != FW_OK)
			return rc;
		*built = true;
		for (int32_t n = 0; n < c->nn; n++)
			*nodes += c->nodes[n].usable && y->s->nodes[n].gpu_count > 0;
	}
	return fw__place_job(c, jx, &o, &p);
}

int fw__health_mended(struct cyc *y, int32_t jx, struct fw__mend *m, struct fw__hopeless *h)
{
	int av = !fw__may_use_suspect(&y->c, &y->s->jobs[jx]);
	int rc = FW_EDECLINED;

	if (!m->counted)
		count_held(&y->c, m);
	if (m->held[av] > 0 && (rc = fits_mended(y, jx, &m->c, &m->built, false, &m->gpu_nodes)) == FW_OK) {
		*h = (struct fw__hopeless){ true, FW_REASON_HEALTH, m->touched[av], m->gpu_nodes };
		return FW_OK;
	}
	if ((rc != FW_OK && rc != FW_EDECLINED) || m->cordoned == 0)
		return rc;
	if ((rc = fits_mended(y, jx, &m->lifted, &m->lifted_built, true, &m->lifted_nodes)) != FW_OK)
		return rc;
	*h = (struct fw__hopeless){ true, FW_REASON_NODES_OUT, m->touched[av] + m->cordoned, m->lifted_nodes };
	return FW_OK;
}

/* Does the drain requeue what runs on node n (an UNHEALTHY node, with
 * drain_requeue)? */
static bool requeues(const struct fw_snapshot *s, int32_t n)
{
	return s->config.drain_requeue && s->nodes[n].health == FW_HEALTH_UNHEALTHY;
}

static bool out_of_service(const struct fw_node *n)
{
	return n->health == FW_HEALTH_UNHEALTHY || n->health == FW_HEALTH_DRAINING;
}

/* An out-of-service node is drained when jobs run on it, or when it is
 * idle but still schedulable (the world has not drained it yet: a node
 * reported unhealthy with nothing on it must still be closed to work the
 * core does not place, such as a backend's own scheduler).  An idle node
 * the world already holds unschedulable needs nothing. */
static bool must_drain(const struct fw_node *n, int32_t jobs)
{
	return jobs > 0 || (out_of_service(n) && n->schedulable);
}

/* Per node: running jobs with a task there (counted once per job, even
 * when its tasks there are not listed together: seen_by[n] = job + 1). */
static void count_jobs(const struct fw_snapshot *s, int32_t *jobs_on, int32_t *seen_by)
{
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (job->state != FW_JOB_RUNNING)
			continue;
		for (int32_t k = 0; k < job->alloc_count; k++) {
			int32_t n = s->allocs[job->alloc_first + k].node;
			if (seen_by[n] != j + 1 && out_of_service(&s->nodes[n]))
				jobs_on[n]++;
			seen_by[n] = j + 1;
		}
	}
}

/* Tasks job j runs on node n. */
static int32_t tasks_on(const struct fw_snapshot *s, const struct fw_job *j, int32_t n)
{
	int32_t k = 0;

	for (int32_t i = 0; i < j->alloc_count; i++)
		k += s->allocs[j->alloc_first + i].node == n;
	return k;
}

/* Every running job with a task on a node the drain requeues from, and
 * not ended already by its run-time limit, is marked: evicted (the build
 * then leaves its GPUs free, gather counts it as holding nothing, the
 * estimates' end events leave it out) and drained. */
static int mark_requeued(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;

	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		bool hit = false;
		for (int32_t k = 0; job->state == FW_JOB_RUNNING && k < job->alloc_count && !hit; k++)
			hit = requeues(s, s->allocs[job->alloc_first + k].node);
		if (!hit || (y->evicted && y->evicted[j]))
			continue;
		if (!y->evicted && !(y->evicted = FW_ARENA_NEW(y->a, bool, s->njobs + 1)))
			return FW_ENOMEM;
		y->evicted[j] = true;
		y->nevicted++;
		y->drained[j] = FW__DRAIN_MARKED;
		y->drain_list[y->ndrain_list++] = j;
		y->ndrain_dec += 2; /* its EVICT, and the START that may restart it */
	}
	return FW_OK;
}

int fw__drain_mark(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t n = 0, *seen_by;

	/* A cheap pre-check; an unschedulable node counts too: the world may
	 * hold it out of new work (an operator's drain) while jobs still run
	 * on it that must be requeued. */
	while (n < s->nnodes && !out_of_service(&s->nodes[n]))
		n++;
	if (n == s->nnodes)
		return FW_OK;
	y->drain_jobs_on = FW_ARENA_NEW(y->a, int32_t, s->nnodes + 1);
	y->drained = FW_ARENA_NEW(y->a, uint8_t, s->njobs + 1);
	y->drain_list = FW_ARENA_RAW(y->a, int32_t, s->njobs + 1);
	seen_by = FW_ARENA_NEW(y->a, int32_t, s->nnodes + 1);
	if (!y->drain_jobs_on || !y->drained || !y->drain_list || !seen_by)
		return FW_ENOMEM;
	count_jobs(s, y->drain_jobs_on, seen_by);
	for (n = 0; n < s->nnodes; n++)
		y->ndrain_dec += must_drain(&s->nodes[n], y->drain_jobs_on[n]);
	return mark_requeued(y);
}

static void add_decision(struct cyc *y, enum fw_decision_kind k, enum fw_reason why, int32_t job,
			 int32_t node, int64_t b, struct fw_task_alloc *tasks, int32_t ntasks)
{
	struct fw_decision *d = &y->dec[y->ndec];

	memset(d, 0, sizeof *d);
	d->kind = k;
	d->reason = why;
	d->job = job;
	d->node = k == FW_DECIDE_DRAIN ? node : -1;
	d->at = y->s->now;
	d->alloc_count = ntasks;
	d->a = node;
	d->b = b;
	y->dec_tasks[y->ndec++] = tasks;
}

/* The DRAINED evictions of the marked jobs with a task on node n, not
 * written yet (a = the node, b = its tasks there), in job order. */
static void evict_from(struct cyc *y, int32_t n)
{
	const struct fw_snapshot *s = y->s;

	for (int32_t i = 0; i < y->ndrain_list; i++) {
		int32_t j = y->drain_list[i], k;
		const struct fw_job *job = &s->jobs[j];
		if (y->drained[j] != FW__DRAIN_MARKED || !(k = tasks_on(s, job, n)))
			continue;
		add_decision(y, FW_DECIDE_EVICT, FW_REASON_DRAINED, j, n, k,
			     s->allocs + job->alloc_first, job->alloc_count);
		y->drained[j] = FW__DRAIN_WRITTEN;
	}
}

void fw__drain_emit(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;

	for (int32_t n = 0; y->drained && n < s->nnodes; n++) {
		bool requeue = requeues(s, n);
		if (!must_drain(&s->nodes[n], y->drain_jobs_on[n]))
			continue;
		add_decision(y, FW_DECIDE_DRAIN, requeue ? FW_REASON_DRAIN_REQUEUE : FW_REASON_DRAIN_FINISH,
			     -1, n, y->drain_jobs_on[n], s->allocs, 0);
		if (requeue)
			evict_from(y, n);
	}
}
