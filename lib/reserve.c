/*
 * reserve.c — reservations: when and where will a blocked gang fit?
 *
 * A reservation is computed on a private copy ("clone") of the cycle's
 * node state and domain index:
 *   1. clone:    copy nodes, domains and the per-level bucket index;
 *                nodes already held by an earlier reservation are made
 *                unusable in the clone, so reservations never overlap;
 *   2. events:   every running job (snapshot) and every job started so far
 *                this cycle ends at its expected end time; jobs with an
 *                unknown runtime never end (documented rule: they hold
 *                their GPUs until a later issue's per-queue default limit);
 *   3. walk:     release the jobs in end-time order (ties: job index) and,
 *                after each distinct end time t, try to place the gang on
 *                the clone with the ordinary placement code (place.c);
 *                the first t that works is the reservation's start.
 * The nodes the clone chose are then marked in the real state with
 * resv_until = t: from now on a job may use such a node only if it ends
 * by t.  So backfill never delays a reserved job, and fw_plan_check
 * verifies it by recomputing each reserved GPU's use at time t.
 *
 * Cost: O(N + D) to clone plus O(E log E + E * place) for E end events;
 * bounded by the policy's reserve_depth (and twice that many attempts).
 */
#include <string.h>

#include "cycle_int.h"



static int clone_levels(struct fw__cstate *d, const struct fw__cstate *s, struct fw_arena *a)
{
	d->lvl = FW_ARENA_NEW(a, struct fw__level_index, FW_MAX_LEVELS + 2);
	if (!d->lvl)
		return FW_ENOMEM;
	memcpy(d->lvl, s->lvl, (FW_MAX_LEVELS + 2) * sizeof *d->lvl);
	for (int dl = 0; dl < s->ndl; dl++) {
		struct fw__level_index *x = &d->lvl[dl];
		size_t n = (size_t)x->maxcap + 1;
		x->head = FW_ARENA_NEW(a, int32_t, n);
		x->tail = FW_ARENA_NEW(a, int32_t, n);
		x->bits = FW_ARENA_NEW(a, uint64_t, x->nwords);
		if (!x->head || !x->tail || !x->bits)
			return FW_ENOMEM;
		memcpy(x->head, s->lvl[dl].head, n * sizeof(int32_t));
		memcpy(x->tail, s->lvl[dl].tail, n * sizeof(int32_t));
		memcpy(x->bits, s->lvl[dl].bits, (size_t)x->nwords * sizeof(uint64_t));
	}
	return FW_OK;
}

static int clone_state(struct fw__cstate *d, const struct fw__cstate *s, struct fw_arena *a)
{
	*d = *s;
	d->nodes = FW_ARENA_NEW(a, struct fw__node, s->nn + 1);
	d->dom = FW_ARENA_NEW(a, struct fw__domain, s->ndom + 1);
	if (!d->nodes || !d->dom)
		return FW_ENOMEM;
	memcpy(d->nodes, s->nodes, (size_t)s->nn * sizeof *d->nodes);
	memcpy(d->dom, s->dom, (size_t)s->ndom * sizeof *d->dom);
	if (clone_levels(d, s, a) != FW_OK)
		return FW_ENOMEM;
	for (int32_t n = 0; n < s->nn; n++) {
		if (s->resv_until[n] == FW__NEVER || !d->nodes[n].usable)
			continue;
		int32_t old = d->nodes[n].whole_free;
		d->nodes[n].whole_free = 0;
		fw__domain_node_changed(d, n, old);
		d->nodes[n].usable = false; /* after the index update */
	}
	return FW_OK;
}

static int ev_cmp(const struct ev *a, const struct ev *b)
{
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

static void ev_sort(struct ev *v, struct ev *tmp, int32_t n)
{
	int32_t h = n / 2, i = 0, j, k = 0;

	if (n < 2)
		return;
	ev_sort(v, tmp, h);
	ev_sort(v + h, tmp, n - h);
	for (j = h; i < h && j < n;)
		tmp[k++] = ev_cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* Running jobs of the snapshot, by end time: the same for every
 * reservation of the cycle, so sorted once and kept in y. */
static int running_events(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	struct ev *v, *tmp;
	int32_t n = 0;

	if (y->ev_run)
		return FW_OK;
	v = FW_ARENA_NEW(y->a, struct ev, s->njobs + 1);
	tmp = FW_ARENA_NEW(y->a, struct ev, s->njobs + 1);
	if (!v || !tmp)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (job->state != FW_JOB_RUNNING || job->expected_runtime <= 0)
			continue;
		fw_time end = fw__job_end(job, job->start_time);
		v[n++] = (struct ev){ end < s->now ? s->now : end, j, s->allocs + job->alloc_first,
				      job->alloc_count };
	}
	ev_sort(v, tmp, n);
	y->ev_run = v;
	y->nev_run = n;
	return FW_OK;
}

/* This cycle's starts, by end time, kept sorted across reservations:
 * only the starts made since the last call are sorted and merged in. */
static int start_events(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t ns = 0, i = 0, k = 0, n = 0;
	struct ev *fresh = FW_ARENA_NEW(y->a, struct ev, y->ndec - y->ev_start_upto + 1);
	struct ev *tmp = FW_ARENA_NEW(y->a, struct ev, y->ndec - y->ev_start_upto + 1);
	struct ev *v;

	if (!fresh || !tmp)
		return FW_ENOMEM;
	for (int32_t d = y->ev_start_upto; d < y->ndec; d++) {
		const struct fw_decision *dc = &y->dec[d];
		if (dc->kind != FW_DECIDE_START || s->jobs[dc->job].expected_runtime <= 0)
			continue;
		fresh[ns++] = (struct ev){ fw__job_end(&s->jobs[dc->job], s->now), dc->job, y->dec_tasks[d],
					  dc->alloc_count };
	}
	y->ev_start_upto = y->ndec;
	if (!ns)
		return FW_OK;
	ev_sort(fresh, tmp, ns);
	if (!(v = FW_ARENA_NEW(y->a, struct ev, y->nev_start + ns + 1)))
		return FW_ENOMEM;
	while (i < y->nev_start || k < ns)
		v[n++] = (k >= ns || (i < y->nev_start && ev_cmp(&y->ev_start[i], &fresh[k]) <= 0))
				 ? y->ev_start[i++] : fresh[k++];
	y->ev_start = v;
	y->nev_start = n;
	return FW_OK;
}

/* Running jobs and this cycle's starts so far, merged by end time. */
static struct ev *collect_events(struct cyc *y, int32_t *nev)
{
	int32_t i = 0, k = 0, n = 0;
	struct ev *v;

	if (running_events(y) != FW_OK || start_events(y) != FW_OK)
		return NULL;
	v = FW_ARENA_NEW(y->a, struct ev, y->nev_run + y->nev_start + 1);
	if (!v)
		return NULL;
	while (i < y->nev_run || k < y->nev_start)
		v[n++] = (k >= y->nev_start || (i < y->nev_run && ev_cmp(&y->ev_run[i], &y->ev_start[k]) <= 0))
				 ? y->ev_run[i++] : y->ev_start[k++];
	*nev = n;
	return v;
}

static void release(struct fw__cstate *c, const struct fw_job *j, const struct ev *e)
{
	for (int32_t k = 0; k < e->ntasks; k++) {
		const struct fw_task_alloc *a = &e->tasks[k];
		struct fw__node *n = &c->nodes[a->node];
		int32_t old = n->whole_free;
		for (int g = 0; g < FW_MAX_GPUS_PER_NODE; g++)
			if (a->gpu_mask & (1u << g))
				n->used[g] = (int16_t)(n->used[g] - a->gpu_milli);
		n->cpu_free += j->groups[a->group].cpu_milli;
		n->mem_free += j->groups[a->group].mem_mib;
		n->whole_free = fw__node_whole_free(c, a->node);
		fw__domain_node_changed(c, a->node, old);
	}
}

static void hold(struct cyc *y, int32_t jx, fw_time at, const struct fw__placement *p)
{
	struct fw_decision *d = &y->dec[y->ndec];

	for (int32_t k = 0; k < p->ntasks; k++) {
		int32_t n = p->tasks[k].node;
		if (at < y->c.resv_until[n]) {
			y->c.resv_until[n] = at;
			y->c.resv_job[n] = jx;
		}
	}
	memset(d, 0, sizeof *d);
	d->kind = FW_DECIDE_RESERVE;
	d->reason = FW_REASON_HAS_RESERVATION;
	d->job = jx;
	d->node = -1;
	d->at = at;
	d->alloc_count = p->ntasks;
	d->a = at;
	d->b = at - y->s->now;
	y->dec_tasks[y->ndec++] = p->tasks;
	if (y->nresv++ == 0 || at < y->first_resv_at) {
		y->first_resv_job = jx;
		y->first_resv_at = at;
	}
}

int fw__reserve(struct cyc *y, int32_t jx)
{
	const struct fw_job *job = &y->s->jobs[jx];
	struct fw__cstate clone;
	struct fw__placement p;
	int32_t nev, i = 0;
	struct ev *ev;
	int rc;

	y->resv_attempts++;
	if ((rc = clone_state(&clone, &y->c, y->a)) != FW_OK)
		return rc;
	if (!(ev = collect_events(y, &nev)))
		return FW_ENOMEM;
	int64_t need = 0; /* whole GPUs the gang needs for sure (0 if elastic) */
	for (int g = 0; g < job->ngroups && fw_job_min_tasks(job) == fw_job_tasks(job); g++)
		if (job->groups[g].gpu_milli == 1000)
			need += (int64_t)job->groups[g].gpus * job->groups[g].count;
	while (i < nev) {
		fw_time t = ev[i].end;
		for (; i < nev && ev[i].end == t; i++)
			release(&clone, &y->s->jobs[ev[i].job], &ev[i]);
		if (clone.dom[0].free_whole < need)
			continue; /* not enough free GPUs yet: skip the search */
		struct fw__place_opts o = { .end = fw__job_end(job, t), .ignore_resv = true, .dry = true };
		rc = fw__place_job(&clone, jx, &o, &p);
		if (rc == FW_OK) {
			hold(y, jx, t, &p);
			return FW_OK;
		}
		if (rc != FW_EDECLINED)
			return rc;
	}
	return FW_EDECLINED;
}
