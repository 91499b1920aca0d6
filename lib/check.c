/*
 * check.c — the invariant checker (check.h).
 *
 * Deliberately naive and independent of the cycle's data structures: it
 * rebuilds node usage from the snapshot's running allocations plus the
 * plan's starts with plain arrays, and queue usage by walking parents.  A
 * bug in domain.c or allocate.c cannot hide behind the same bug here.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fairway/budget.h"
#include "fairway/check.h"
#include "fairway/fairshare.h"
#include "fairway/span.h"

#define FAIL(d, field, ...) fw_diag_set((d), FW_EINVARIANT, "plan", 0, 0, (field), __VA_ARGS__)

/* A failure in element i of an array: the field name ("decisions[7]") is
 * formatted only when something fails; the checker runs after every plan
 * of a simulation, so the passing path does no string work. */
struct fld {
	const char *what;
	int32_t i;
};

#define FAILAT(d, fl, ...) fail_at((d), (fl), __VA_ARGS__)

static int fail_at(struct fw_diag *d, struct fld fl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct fw_diag *d, struct fld fl, const char *fmt, ...)
{
	char f[64], msg[512];
	va_list ap;

	snprintf(f, sizeof f, "%s[%d]", fl.what, (int)fl.i);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return FAIL(d, f, "%s", msg);
}

/* A time in a message, as s's clock writes it (span.h): "t=125200" in
 * virtual seconds, "2026-12-06T16:42:05Z" under config.utc_times.  A
 * value, so that a failure formats it in its own argument list (C11
 * 6.2.4p8: the returned array lives to the end of the full expression,
 * the FAIL call) and a passing check never does. */
struct when {
	char s[40];
};

static struct when at_text(const struct fw_snapshot *s, fw_time t)
{
	struct when w;

	fw_time_format(t, s->config.utc_times, w.s, sizeof w.s);
	return w;
}

/* now, as "not after now (1000)" writes it: its bare seconds, or its date. */
static struct when now_text(const struct fw_snapshot *s, fw_time now)
{
	struct when w;

	if (s->config.utc_times)
		fw_utc_format(now, w.s, sizeof w.s);
	else
		snprintf(w.s, sizeof w.s, "%lld", (long long)now);
	return w;
}

/* A computed bound (a budget's floor: may be inf) to the second, as
 * at_text writes a time; "t=%.0f" where it is no date. */
static struct when bound_text(const struct fw_snapshot *s, double t)
{
	struct when w;

	if (s->config.utc_times && t >= 0 && t <= (double)FW_UTC_MAX)
		fw_utc_format((fw_time)(t + 0.5), w.s, sizeof w.s); /* rounded, as %.0f */
	else
		snprintf(w.s, sizeof w.s, "t=%.0f", t);
	return w;
}

/* What the snapshot holds, from the one pass over its job records
 * (usage_init): node and queue usage, and the running and pending jobs
 * by index, so that the later checks need not read every record again
 * (the checker runs after every plan of a simulation). */
struct usage {
	int32_t (*gpu)[FW_MAX_GPUS_PER_NODE];
	int64_t *cpu, *mem;
	struct fw_res *before, *after; /* per queue, subtree */
	int64_t *mbefore, *mafter;      /* per GPU model limit k: milli-GPU
					 * of its model in its queue's subtree;
					 * NULL when the snapshot has none */
	int32_t *mfirst, *mnext;        /* each queue's limits, a list */
	int32_t *mlim, *mnode;          /* a limit's model and a node's, as
					 * the first node of that model */
	bool *touched;                  /* queue got a start */
	int32_t *running, nrunning;     /* jobs in state RUNNING, in index order */
	int32_t *pending, npending;     /* jobs in state PENDING, in index order */
};

/* Add milli to each GPU of mask (bits past FW_MAX_GPUS_PER_NODE ignored). */
_Static_assert(FW_MAX_GPUS_PER_NODE < 32, "the mask of a node's GPUs fits 32 bits");
static void add_gpus(int32_t *gpu, uint32_t mask, int32_t milli)
{
	for (mask &= (1u << FW_MAX_GPUS_PER_NODE) - 1u; mask; mask &= mask - 1)
		gpu[__builtin_ctz(mask)] += milli;
}

static void add_task(const struct fw_snapshot *s, struct usage *u, const struct fw_job *j,
		     const struct fw_task_alloc *a)
{
	add_gpus(u->gpu[a->node], a->gpu_mask, a->gpu_milli);
	u->cpu[a->node] += j->groups[a->group].cpu_milli;
	u->mem[a->node] += j->groups[a->group].mem_mib;
	(void)s;
}

static struct fw_res task_res(const struct fw_job *j, const struct fw_task_alloc *a)
{
	struct fw_res r = fw_res_zero();

	r.v[FW_RES_GPU] = (int64_t)__builtin_popcount(a->gpu_mask) * a->gpu_milli;
	r.v[FW_RES_CPU] = j->groups[a->group].cpu_milli;
	r.v[FW_RES_MEM] = j->groups[a->group].mem_mib;
	return r;
}

static void charge(const struct fw_snapshot *s, struct fw_res *q_use, int32_t q, struct fw_res r)
{
	for (; q >= 0; q = s->queues[q].parent)
		q_use[q] = fw_res_add(q_use[q], r);
}

/* The task's GPUs against every GPU model limit on its node's model of
 * a queue up its job's queue line. */
static void charge_model(const struct fw_snapshot *s, const struct usage *u, int64_t *m, int32_t jq,
			 const struct fw_task_alloc *t, int sign)
{
	for (int32_t q = jq; m && q >= 0; q = s->queues[q].parent)
		for (int32_t k = u->mfirst[q]; k >= 0; k = u->mnext[k])
			if (u->mlim[k] == u->mnode[t->node])
				m[k] += sign * (int64_t)__builtin_popcount(t->gpu_mask) * t->gpu_milli;
}

/* Models as the first node that has them (the checker's own reading of
 * the snapshot, not the cycle's model index); each queue's limits as a
 * list. */
static int model_limits_init(struct usage *u, const struct fw_snapshot *s, struct fw_arena *a)
{
	int32_t n = s->nmodel_limits;

	u->mbefore = FW_ARENA_NEW(a, int64_t, n);
	u->mafter = FW_ARENA_NEW(a, int64_t, n);
	u->mlim = FW_ARENA_NEW(a, int32_t, n);
	u->mnext = FW_ARENA_NEW(a, int32_t, n);
	u->mfirst = FW_ARENA_NEW(a, int32_t, s->nqueues + 1);
	u->mnode = FW_ARENA_NEW(a, int32_t, s->nnodes + 1);
	if (!u->mbefore || !u->mafter || !u->mlim || !u->mnext || !u->mfirst || !u->mnode)
		return FW_ENOMEM;
	int32_t firsts[FW_MAX_LIMITED_MODELS + 1], nf = 0;
	for (int32_t i = 0; i < s->nnodes; i++) {
		int32_t k = 0;
		while (k < nf && strcmp(s->nodes[firsts[k]].gpu_model, s->nodes[i].gpu_model) != 0)
			k++;
		if (k == nf && nf <= FW_MAX_LIMITED_MODELS) /* validated: at most 64 models */
			firsts[nf++] = i;
		u->mnode[i] = s->nodes[i].gpu_count && k < nf ? firsts[k] : -1;
	}
	for (int32_t q = 0; q < s->nqueues; q++)
		u->mfirst[q] = -1;
	for (int32_t k = n - 1; k >= 0; k--) {
		int32_t q = s->model_limits[k].queue, f = 0;
		while (f < nf && strcmp(s->nodes[firsts[f]].gpu_model, s->model_limits[k].model) != 0)
			f++;
		u->mlim[k] = f < nf ? firsts[f] : -2; /* -2: no node has it */
		u->mnext[k] = u->mfirst[q];
		u->mfirst[q] = k;
	}
	return FW_OK;
}

static int usage_init(struct usage *u, const struct fw_snapshot *s, struct fw_arena *a)
{
	bool limited = s->nmodel_limits > 0;
	int rc;

	u->mbefore = u->mafter = NULL;
	u->mfirst = u->mnext = u->mlim = u->mnode = NULL;
	if (limited && (rc = model_limits_init(u, s, a)) != FW_OK)
		return rc;
	u->gpu = fw_arena_calloc(a, (size_t)s->nnodes + 1, sizeof *u->gpu);
	u->cpu = FW_ARENA_NEW(a, int64_t, s->nnodes + 1);
	u->mem = FW_ARENA_NEW(a, int64_t, s->nnodes + 1);
	u->before = FW_ARENA_NEW(a, struct fw_res, s->nqueues + 1);
	u->after = FW_ARENA_NEW(a, struct fw_res, s->nqueues + 1);
	u->touched = FW_ARENA_NEW(a, bool, s->nqueues + 1);
	u->running = FW_ARENA_RAW(a, int32_t, s->njobs + 1);
	u->pending = FW_ARENA_RAW(a, int32_t, s->njobs + 1);
	if (!u->gpu || !u->cpu || !u->mem || !u->before || !u->after || !u->touched || !u->running ||
	    !u->pending)
		return FW_ENOMEM;
	u->nrunning = u->npending = 0;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (job->state == FW_JOB_PENDING)
			u->pending[u->npending++] = j;
		if (job->state != FW_JOB_RUNNING)
			continue;
		u->running[u->nrunning++] = j;
		for (int32_t k = 0; k < job->alloc_count; k++) {
			const struct fw_task_alloc *t = &s->allocs[job->alloc_first + k];
			add_task(s, u, job, t);
			charge(s, u->before, job->queue, task_res(job, t));
			charge_model(s, u, u->mbefore, job->queue, t, 1);
		}
	}
	memcpy(u->after, u->before, (size_t)s->nqueues * sizeof *u->after);
	if (limited)
		memcpy(u->mafter, u->mbefore, (size_t)s->nmodel_limits * sizeof *u->mafter);
	return FW_OK;
}

static bool same_domain(const struct fw_snapshot *s, int lvl, int32_t n1, int32_t n2)
{
	if (lvl == FW_LEVEL_NONE)
		return true;
	if (lvl == FW_LEVEL_NODE)
		return n1 == n2;
	for (int l = 0; l <= lvl; l++)
		if (strcmp(s->nodes[n1].path[l], s->nodes[n2].path[l]))
			return false;
	return true;
}

/* Does job j, from at on, keep clear of node n's departure (away_at to
 * back_at, snapshot.h): ended by it (its planned runtime; none = never),
 * or started after the return?  True for a node that does not leave
 * (or takes no work now: away_at is ignored there). */
static bool clear_of_departure(const struct fw_snapshot *s, const struct fw_job *j, const struct fw_node *n,
			       fw_time at)
{
	fw_time run = fw_job_runtime(s, j);

	if (n->away_at <= s->now || !n->schedulable || n->health == FW_HEALTH_UNHEALTHY ||
	    n->health == FW_HEALTH_DRAINING)
		return true; /* it does not leave, or takes no work now */
	return (run > 0 && at + run <= n->away_at) || (n->back_at > n->away_at && at >= n->back_at);
}

/* A task of a start (at now) or a reservation (at its time): on a node
 * that takes work then (in service, or back by then: back_at), and not
 * into its departure (away_at). */
static int check_task(const struct fw_snapshot *s, const struct fw_job *j, const struct fw_task_alloc *t,
		      fw_time at, struct fld f, struct fw_diag *d)
{
	const struct fw_task_group *g;
	const struct fw_node *n;
	bool back;

	if (t->node < 0 || t->node >= s->nnodes || t->group < 0 || t->group >= j->ngroups)
		return FAILAT(d, f, "job %s: a task names a bad node or group", j->name);
	g = &j->groups[t->group];
	n = &s->nodes[t->node];
	back = n->back_at > s->now && at >= n->back_at;
	if (!n->schedulable && !back)
		return FAILAT(d, f, "job %s started on unschedulable node %s", j->name, n->name);
	if ((n->health == FW_HEALTH_UNHEALTHY || n->health == FW_HEALTH_DRAINING) && !back)
		return FAILAT(d, f, "job %s started on %s node %s", j->name, fw_health_name(n->health), n->name);
	if (!clear_of_departure(s, j, n, at))
		return FAILAT(d, f, "job %s at %s runs into node %s's departure at %s", j->name, at_text(s, at).s,
			      n->name, at_text(s, n->away_at).s);
	if ((n->health == FW_HEALTH_SUSPECT || n->suspect_gpu_mask) && !j->preemptible &&
	    fw_job_gpus(j) >= (s->config.suspect_gang_gpus > 0 ? s->config.suspect_gang_gpus : 16))
		return FAILAT(d, f, "job %s, a gang of %lld GPUs, started on suspect node %s", j->name,
			      (long long)fw_job_gpus(j), n->name);
	if (__builtin_popcount(t->gpu_mask) != g->gpus || (g->gpus && t->gpu_milli != g->gpu_milli))
		return FAILAT(d, f, "job %s: a task got %d GPUs x %d milli, its group asks %d x %d", j->name,
			    __builtin_popcount(t->gpu_mask), t->gpu_milli, g->gpus, g->gpu_milli);
	if (t->gpu_mask & n->bad_gpu_mask)
		return FAILAT(d, f, "job %s was given a bad GPU on %s", j->name, n->name);
	if (n->gpu_count < 32 && (t->gpu_mask >> n->gpu_count))
		return FAILAT(d, f, "job %s: GPU index beyond node %s", j->name, n->name);
	if (g->gpus && g->gpu_model[0] && strcmp(g->gpu_model, n->gpu_model))
		return FAILAT(d, f, "job %s wants GPU model %s, node %s has %s", j->name, g->gpu_model, n->name, n->gpu_model);
	return FW_OK;
}

/* Is node n among the nodes job jx may start on (no filter: all; an
 * except filter: all it does not list)?  A linear scan of the filter
 * table, not the snapshot's lookup. */
static bool filter_allows(const struct fw_snapshot *s, int32_t jx, int32_t n)
{
	for (int32_t i = 0; i < s->njob_nodes; i++) {
		if (s->job_nodes[i].job != jx)
			continue;
		for (int32_t k = 0; k < s->job_nodes[i].count; k++)
			if (s->node_refs[s->job_nodes[i].first + k] == n)
				return !s->job_nodes[i].except;
		return s->job_nodes[i].except;
	}
	return true;
}

/* Does group g's own filter, when it has one, allow node n?  A linear
 * scan of the group filter table, like filter_allows. */
static bool group_filter_allows(const struct fw_snapshot *s, int32_t jx, int g, int32_t n)
{
	for (int32_t i = 0; i < s->ngroup_nodes; i++) {
		const struct fw_group_nodes *e = &s->group_nodes[i];
		if (e->job != jx || e->group != g)
			continue;
		for (int32_t k = 0; k < e->count; k++)
			if (s->node_refs[e->first + k] == n)
				return !e->except;
		return e->except;
	}
	return true;
}

/* A sliced group's tasks in dc (snapshot.h "Slices"): whole slices, each
 * inside one domain of its level.  Slice k is the group's tasks k x size
 * .. in the decision's order.  A linear scan of the slices table, not the
 * snapshot's lookup. */
static int check_slices(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_decision *dc,
			const struct fw_job *j, struct fld f, struct fw_diag *d)
{
	for (int32_t i = 0; i < s->nslices; i++) {
		const struct fw_group_slice *e = &s->slices[i];
		int32_t seen = 0, first = -1;
		if (e->job != dc->job)
			continue;
		for (int32_t k = 0; k < dc->alloc_count; k++) {
			const struct fw_task_alloc *t = &p->allocs[dc->alloc_first + k];
			if (t->group != e->group)
				continue;
			if (seen % e->tasks == 0)
				first = t->node;
			else if (!same_domain(s, e->level, t->node, first))
				return FAILAT(d, f, "job %s: slice %d of group %d spans nodes %s and %s, two domains "
					      "of the level its slices keep to", j->name, (int)(seen / e->tasks),
					      e->group, s->nodes[first].name, s->nodes[t->node].name);
			seen++;
		}
		if (seen % e->tasks != 0)
			return FAILAT(d, f, "job %s: group %d has %d tasks placed, not whole slices of %d", j->name,
				      e->group, (int)seen, (int)e->tasks);
	}
	return FW_OK;
}

/* The tasks of a start or a reservation: each a sound task of j, no group
 * given more tasks than it has, all inside one domain of j's required
 * level, a one_per_node group's tasks each on a node of their own, an
 * apart group's tasks on no node with another group's, every task on a
 * node of j's node filter and of its group's, and a sliced group's tasks
 * in whole slices, each inside one domain of its level. */
static int check_tasks(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_decision *dc,
		       const struct fw_job *j, struct fld f, struct fw_diag *d)
{
	int32_t per_group[FW_MAX_GROUPS] = { 0 };
	bool apart = false;
	int rc;

	for (int g = 0; g < j->ngroups; g++)
		apart = apart || j->groups[g].apart;

	for (int32_t k = 0; k < dc->alloc_count; k++) {
		const struct fw_task_alloc *t = &p->allocs[dc->alloc_first + k];
		if ((rc = check_task(s, j, t, dc->kind == FW_DECIDE_START ? s->now : dc->at, f, d)) != FW_OK)
			return rc;
		if (s->njob_nodes > 0 && !filter_allows(s, dc->job, t->node))
			return FAILAT(d, f, "job %s placed on node %s, outside its node filter", j->name,
				      s->nodes[t->node].name);
		if (s->ngroup_nodes > 0 && !group_filter_allows(s, dc->job, t->group, t->node))
			return FAILAT(d, f, "job %s: a task of group %d placed on node %s, outside the group's node "
				      "filter", j->name, t->group, s->nodes[t->node].name);
		if (++per_group[t->group] > j->groups[t->group].count)
			return FAILAT(d, f, "job %s: group %d got more tasks than it has", j->name, t->group);
		if (!same_domain(s, j->required_level, t->node, p->allocs[dc->alloc_first].node))
			return FAILAT(d, f, "job %s spans two domains of its required level", j->name);
		for (int32_t m = 0; (apart || j->groups[t->group].one_per_node) && m < k; m++) {
			const struct fw_task_alloc *o = &p->allocs[dc->alloc_first + m];
			if (o->node != t->node)
				continue;
			if (o->group == t->group && j->groups[t->group].one_per_node)
				return FAILAT(d, f, "job %s: two tasks of group %d on node %s, which asks one a node",
					      j->name, t->group, s->nodes[t->node].name);
			if (o->group != t->group && (j->groups[t->group].apart || j->groups[o->group].apart))
				return FAILAT(d, f, "job %s: groups %d and %d share node %s, and one asks to be apart",
					      j->name, o->group, t->group, s->nodes[t->node].name);
		}
	}
	return s->nslices > 0 ? check_slices(s, p, dc, j, f, d) : FW_OK;
}

static int check_start(const struct fw_snapshot *s, const struct fw_plan *p, int32_t i,
		       struct usage *u, const int8_t *evicted, struct fw_diag *d)
{
	const struct fw_decision *dc = &p->decisions[i];
	const struct fw_job *j;
	struct fld f = { "decisions", i };
	int rc;

	/* a pending job, or a running one this plan evicted first (moved) */
	if (dc->job < 0 || dc->job >= s->njobs ||
	    (s->jobs[dc->job].state != FW_JOB_PENDING &&
	     !(s->jobs[dc->job].state == FW_JOB_RUNNING && evicted[dc->job])))
		return FAILAT(d, f, "start of a job that is not pending");
	j = &s->jobs[dc->job];
	if (dc->alloc_count < fw_job_min_tasks(j) || dc->alloc_count > fw_job_tasks(j))
		return FAILAT(d, f, "job %s started with %d tasks; needs %d..%d (gang is all-or-nothing)",
			    j->name, (int)dc->alloc_count, (int)fw_job_min_tasks(j), (int)fw_job_tasks(j));
	if ((rc = check_tasks(s, p, dc, j, f, d)) != FW_OK)
		return rc;
	for (int32_t k = 0; k < dc->alloc_count; k++) {
		const struct fw_task_alloc *t = &p->allocs[dc->alloc_first + k];
		add_task(s, u, j, t);
		charge(s, u->after, j->queue, task_res(j, t));
		charge_model(s, u, u->mafter, j->queue, t, 1);
	}
	for (int32_t q = j->queue; q >= 0; q = s->queues[q].parent)
		u->touched[q] = true;
	return FW_OK;
}

/* ---- evictions: legal victims, freed before the starts, used by one ---- */

static void sub_task(struct usage *u, const struct fw_job *j, const struct fw_task_alloc *a)
{
	add_gpus(u->gpu[a->node], a->gpu_mask, -a->gpu_milli);
	u->cpu[a->node] -= j->groups[a->group].cpu_milli;
	u->mem[a->node] -= j->groups[a->group].mem_mib;
}

static bool runs_on(const struct fw_snapshot *s, const struct fw_job *j, int32_t n)
{
	for (int32_t k = 0; k < j->alloc_count; k++)
		if (s->allocs[j->alloc_first + k].node == n)
			return true;
	return false;
}

/* The run-time limit of job j, recomputed: the smallest max_runtime_s
 * of its own and on the way from its queue to the root; 0 = none. */
static fw_time limit_of(const struct fw_snapshot *s, const struct fw_job *j)
{
	fw_time m = j->max_runtime_s;

	for (int32_t q = j->queue, n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++)
		if (s->queues[q].max_runtime_s > 0 && (m == 0 || s->queues[q].max_runtime_s < m))
			m = s->queues[q].max_runtime_s;
	return m;
}

static int check_evict(const struct fw_snapshot *s, const struct fw_plan *p, int32_t i, struct usage *u,
		       int8_t *evicted, struct fw_diag *d)
{
	const struct fw_decision *dc = &p->decisions[i];
	const struct fw_job *j;
	struct fld f = { "decisions", i };

	if (dc->job < 0 || dc->job >= s->njobs || s->jobs[dc->job].state != FW_JOB_RUNNING)
		return FAILAT(d, f, "eviction of a job that is not running");
	j = &s->jobs[dc->job];
	if (dc->reason == FW_REASON_TIME_LIMIT) { /* any job, at its limit */
		fw_time m = limit_of(s, j);
		if (m <= 0 || s->now - j->start_time < m)
			return FAILAT(d, f, "job %s was ended after %lld s, short of its run-time limit (%lld s; 0 = none)",
				      j->name, (long long)(s->now - j->start_time), (long long)m);
		if (dc->a != s->now - j->start_time || dc->b != m)
			return FAILAT(d, f, "job %s: its time_limit eviction says %lld s of %lld, not %lld of %lld", j->name,
				      (long long)dc->a, (long long)dc->b, (long long)(s->now - j->start_time),
				      (long long)m);
	} else if (dc->reason == FW_REASON_DRAINED) { /* health: any job on a dead node */
		if (dc->a < 0 || dc->a >= s->nnodes || s->nodes[dc->a].health != FW_HEALTH_UNHEALTHY)
			return FAILAT(d, f, "job %s was drained from a node that is not unhealthy", j->name);
		if (!runs_on(s, j, (int32_t)dc->a))
			return FAILAT(d, f, "job %s was drained from node %s, where it has no task", j->name,
				      s->nodes[dc->a].name);
	} else if (!j->preemptible)
		return FAILAT(d, f, "job %s is not preemptible but was evicted", j->name);
	else if (!fw_job_evictable(s, j))
		return FAILAT(d, f, "job %s was evicted, but its queue %s (or one above it) is not preemptible", j->name,
			      s->queues[j->queue].name);
	else if (s->now - j->start_time < fw_queue_min_runtime(s, j->queue))
		return FAILAT(d, f, "job %s was evicted after %lld s, inside its queue's %lld s protection", j->name,
			    (long long)(s->now - j->start_time), (long long)fw_queue_min_runtime(s, j->queue));
	if (evicted[dc->job]++)
		return FAILAT(d, f, "job %s evicted twice", j->name);
	for (int32_t k = 0; k < j->alloc_count; k++) {
		const struct fw_task_alloc *t = &s->allocs[j->alloc_first + k];
		sub_task(u, j, t);
		charge(s, u->after, j->queue, fw_res_sub(fw_res_zero(), task_res(j, t)));
		charge_model(s, u, u->mafter, j->queue, t, -1);
	}
	return FW_OK;
}

/* Does start decision k use a node that victim v held? */
static bool uses_freed(const struct fw_snapshot *s, const struct fw_plan *p, int32_t k, const struct fw_job *v)
{
	const struct fw_decision *st = &p->decisions[k];

	for (int32_t m = 0; m < st->alloc_count; m++)
		for (int32_t t = 0; t < v->alloc_count; t++)
			if (p->allocs[st->alloc_first + m].node == s->allocs[v->alloc_first + t].node)
				return true;
	return false;
}

/* Evictions that end a job whatever the plan starts: health's and the
 * run-time limit's. */
static bool standalone(const struct fw_decision *dc)
{
	return dc->reason == FW_REASON_DRAINED || dc->reason == FW_REASON_TIME_LIMIT;
}

/* Every run of EVICTs is followed at once by the START it was made for,
 * and every victim of the run freed capacity on a node that start uses. */
static int check_evict_runs(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_diag *d)
{
	for (int32_t i = 0; i < p->ndecisions; i++) {
		if (p->decisions[i].kind != FW_DECIDE_EVICT || standalone(&p->decisions[i]))
			continue;
		int32_t k = i;
		while (k < p->ndecisions && p->decisions[k].kind == FW_DECIDE_EVICT && !standalone(&p->decisions[k]))
			k++;
		if (k == p->ndecisions || p->decisions[k].kind != FW_DECIDE_START)
			return FAIL(d, "decisions", "eviction of job %s is not followed by a start",
				    s->jobs[p->decisions[i].job].name);
		for (int32_t e = i; e < k; e++)
			if (p->decisions[e].a != p->decisions[k].job ||
			    !uses_freed(s, p, k, &s->jobs[p->decisions[e].job]))
				return FAIL(d, "decisions", "job %s was evicted for nothing: the start after it does not use its GPUs",
					    s->jobs[p->decisions[e].job].name);
		i = k;
	}
	return FW_OK;
}

static int check_nodes(const struct fw_snapshot *s, const struct usage *u, struct fw_diag *d)
{
	for (int32_t n = 0; n < s->nnodes; n++) {
		struct fld f = { "nodes", n };
		for (int g = 0; g < FW_MAX_GPUS_PER_NODE; g++)
			if (u->gpu[n][g] > 1000)
				return FAILAT(d, f, "GPU %d of node %s is over-committed: %d milli", g,
					    s->nodes[n].name, u->gpu[n][g]);
		if (u->cpu[n] > s->nodes[n].cpu_milli || u->mem[n] > s->nodes[n].mem_mib)
			return FAILAT(d, f, "node %s: CPU or memory over-committed", s->nodes[n].name);
	}
	return FW_OK;
}

static int check_queues(const struct fw_snapshot *s, const struct usage *u, struct fw_diag *d)
{
	for (int32_t q = 0; q < s->nqueues; q++) {
		if (!u->touched[q])
			continue;
		for (int r = 0; r < FW_RES_COUNT; r++) {
			int64_t lim = s->queues[q].limit.v[r];
			if (lim != FW_UNLIMITED && u->after[q].v[r] > lim && u->after[q].v[r] > u->before[q].v[r]) {
				return FAILAT(d, ((struct fld){ "queues", q }), "queue %s is over its %s limit: %lld > %lld", s->queues[q].name,
					    fw_res_name(r), (long long)u->after[q].v[r], (long long)lim);
			}
		}
	}
	for (int32_t k = 0; u->mafter && k < s->nmodel_limits; k++) {
		const struct fw_model_limit *m = &s->model_limits[k];
		if (u->touched[m->queue] && u->mafter[k] > m->gpus && u->mafter[k] > u->mbefore[k])
			return FAILAT(d, ((struct fld){ "model_limits", k }),
				    "queue %s is over its limit on GPU model %s: %lld > %lld milli-GPU",
				    s->queues[m->queue].name, m->model, (long long)u->mafter[k], (long long)m->gpus);
	}
	return FW_OK;
}

/* A preemptor waiting for its victims' checkpoints (preempt.c) names a
 * running victim this plan keeps, whose next checkpoint (at b) is within
 * the grace and sooner than the work it would lose now; it is expected
 * no later. */
static int check_checkpoint_wait(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_pending *r,
				 struct fw_diag *d)
{
	const char *name = s->jobs[r->job].name;
	const struct fw_job *v = r->a >= 0 && r->a < s->njobs ? &s->jobs[r->a] : NULL;

	if (s->config.checkpoint_grace_s <= 0)
		return FAIL(d, "pending", "job %s waits for a checkpoint, but checkpoint_grace_s is off", name);
	if (!v || v->alloc_count == 0 || !fw_job_evictable(s, v))
		return FAIL(d, "pending", "job %s waits for the checkpoint of job #%lld, not a running evictable job",
			    name, (long long)r->a);
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT && p->decisions[i].job == r->a)
			return FAIL(d, "pending", "job %s waits for the checkpoint of job %s, which this plan evicts",
				    name, v->name);
	fw_time cp = fw_job_checkpoint(s, v), work = fw_job_lost_work(s, v, s->now);
	if (cp <= 0 || r->b != s->now + cp - work || cp - work > s->config.checkpoint_grace_s ||
	    cp - work >= work)
		return FAIL(d, "pending", "job %s waits for job %s's checkpoint at %s, which is not its next one "
				 "within the grace and sooner than its work since the last", name, v->name, at_text(s, r->b).s);
	if (r->expected_start != FW_TIME_UNKNOWN && r->expected_start > r->b)
		return FAIL(d, "pending", "job %s waits for a checkpoint at %s but is expected at %s", name,
			    at_text(s, r->b).s, at_text(s, r->expected_start).s);
	return FW_OK;
}

/* Is queue q on queue c's way up (c itself included)? */
static bool under(const struct fw_snapshot *s, int32_t c, int32_t q)
{
	for (; c >= 0; c = s->queues[c].parent)
		if (c == q)
			return true;
	return false;
}

/* LIMIT_HELD (allocate.c hold_limits): a names a gang that waits in this
 * plan too, over a limit or reserved, b a limited queue on both jobs'
 * way up; the held job is expected no sooner than the gang, and unknown
 * when the gang's start is. */
static int check_limit_held(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_pending *r,
			    struct fw_diag *d)
{
	const char *name = s->jobs[r->job].name;
	const struct fw_pending *h = r->a >= 0 && r->a < s->njobs && r->a != r->job ? fw_plan_pending_for(p, (int32_t)r->a) : NULL;

	if (!h || fw_job_tasks(&s->jobs[r->a]) < 2 ||
	    (h->reason != FW_REASON_OVER_QUOTA && h->reason != FW_REASON_HAS_RESERVATION))
		return FAIL(d, "pending", "job %s is held for a job that is no waiting gang over a limit or reserved", name);
	if (r->b < 0 || r->b >= s->nqueues || !fw_queue_has_limit(&s->queues[r->b]) ||
	    !under(s, s->jobs[r->job].queue, (int32_t)r->b) || !under(s, s->jobs[r->a].queue, (int32_t)r->b))
		return FAIL(d, "pending", "job %s is held under a queue with no limit over both it and job %s", name,
			    s->jobs[r->a].name);
	if (h->expected_start == FW_TIME_UNKNOWN ? r->expected_start != FW_TIME_UNKNOWN
						 : r->expected_start != FW_TIME_UNKNOWN && r->expected_start < h->expected_start)
		return FAIL(d, "pending", "job %s is expected before job %s, which holds its queue's limit", name,
			    s->jobs[r->a].name);
	return FW_OK;
}

static int check_pending(const struct fw_snapshot *s, const struct fw_plan *p, const struct usage *u,
			 struct fw_arena *a, struct fw_diag *d)
{
	int8_t *seen = FW_ARENA_NEW(a, int8_t, s->njobs + 1), *held = FW_ARENA_NEW(a, int8_t, s->njobs + 1);

	if (!seen || !held)
		return FW_ENOMEM;
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_START && seen[p->decisions[i].job]++)
			return FAIL(d, "decisions", "job %s started twice", s->jobs[p->decisions[i].job].name);
	for (int32_t i = 0; i < p->ndecisions; i++) {
		int32_t j = p->decisions[i].job;
		if (p->decisions[i].kind == FW_DECIDE_RESERVE &&
		    (s->jobs[j].state != FW_JOB_PENDING || seen[j] || held[j]++))
			return FAIL(d, "decisions", "a reservation for job %s, which is running, starts in this plan or has one already",
				    s->jobs[j].name);
	}
	for (int32_t i = 0; i < p->ndecisions; i++) /* a move is an eviction and a restart (policy.h) */
		if (p->decisions[i].kind == FW_DECIDE_EVICT && p->decisions[i].reason == FW_REASON_MOVED &&
		    !seen[p->decisions[i].job])
			return FAIL(d, "decisions", "job %s was moved but not started again",
				    s->jobs[p->decisions[i].job].name);
	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *r = &p->pending[i];
		if (r->job < 0 || r->job >= s->njobs || seen[r->job]++)
			return FAIL(d, "pending", "pending entry %d names a started, repeated or unknown job", (int)i);
		if (r->reason == FW_REASON_NONE || r->reason == FW_REASON_STARTED || r->reason >= FW_REASON_COUNT)
			return FAIL(d, "pending", "job %s has no pending reason", s->jobs[r->job].name);
		if (i && r->job <= p->pending[i - 1].job)
			return FAIL(d, "pending", "pending entries are not in job order");
		int rc = r->reason == FW_REASON_CHECKPOINT_WAIT ? check_checkpoint_wait(s, p, r, d)
			 : r->reason == FW_REASON_LIMIT_HELD   ? check_limit_held(s, p, r, d)
							       : FW_OK;
		if (rc != FW_OK)
			return rc;
	}
	for (int32_t i = 0; i < u->npending; i++)
		if (!seen[u->pending[i]])
			return FAIL(d, "pending", "job %s neither started nor has a reason", s->jobs[u->pending[i]].name);
	return FW_OK;
}

/* ---- start-time estimates: sane, after now (a waiting job starts in a later
 * cycle), and a reserved job's is its reservation (a gang's may be sooner;
 * one reserved at now: the next second) ---- */

static int check_estimate(const struct fw_snapshot *s, const struct fw_plan *p, const fw_time *resv_at,
			  const struct fw_pending *r, struct fw_diag *d)
{
	const char *name = s->jobs[r->job].name;

	if (r->ahead < 0)
		return FAIL(d, "pending", "job %s: %d jobs ahead of it", name, (int)r->ahead);
	if (r->expected_start == FW_TIME_UNKNOWN) {
		if (r->unknown_why <= FW_REASON_STARTED || r->unknown_why >= FW_REASON_COUNT)
			return FAIL(d, "pending", "job %s: start time unknown without a reason", name);
		if (resv_at[r->job] != FW_TIME_UNKNOWN)
			return FAIL(d, "pending", "job %s has a reservation but no expected start", name);
		return FW_OK;
	}
	if (r->unknown_why != FW_REASON_NONE)
		return FAIL(d, "pending", "job %s: an expected start and a reason it is unknown", name);
	/* this plan does not start it: the next cycle is its earliest */
	if (r->expected_start <= p->now)
		return FAIL(d, "pending",
			    "job %s is expected to start at %s, not after now (%s), but this plan does not start it (reason %s)",
			    name, at_text(s, r->expected_start).s, now_text(s, p->now).s, fw_reason_name(r->reason));
	if (resv_at[r->job] == FW_TIME_UNKNOWN || r->expected_start == resv_at[r->job] ||
	    (resv_at[r->job] == p->now && r->expected_start == p->now + 1))
		return FW_OK;
	/* sooner only for a gang not starving yet: it will be tried ahead of
	 * the order that reserved it (plan.h) */
	if (r->expected_start > resv_at[r->job] || fw_job_tasks(&s->jobs[r->job]) < 2 ||
	    r->expected_start == p->now)
		return FAIL(d, "pending", "job %s: expected start %s, but its reservation is at %s", name,
			    at_text(s, r->expected_start).s, at_text(s, resv_at[r->job]).s);
	return FW_OK;
}

static int check_estimates(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_arena *a,
			   struct fw_diag *d)
{
	fw_time *resv_at = FW_ARENA_NEW(a, fw_time, s->njobs + 1);
	int rc;

	if (!resv_at)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++)
		resv_at[j] = FW_TIME_UNKNOWN;
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_RESERVE)
			resv_at[p->decisions[i].job] = p->decisions[i].at;
	for (int32_t i = 0; i < p->npending; i++)
		if ((rc = check_estimate(s, p, resv_at, &p->pending[i], d)) != FW_OK)
			return rc;
	return FW_OK;
}

/* ---- reservations: is every reserved GPU free at the reserved time? ---- */

static fw_time end_of(const struct fw_snapshot *s, const struct fw_job *j, fw_time start)
{
	fw_time e;

	if (fw_job_runtime(s, j) <= 0)
		return INT64_MAX;
	e = start + fw_job_runtime(s, j);
	return e < s->now ? s->now : e;
}

/* A running task, for the per-node index of running work. */
struct held {
	fw_time end;
	const struct fw_job *job;
	const struct fw_task_alloc *t;
};

struct at_t {
	int32_t *first;                         /* node n's tasks: held[first[n] .. first[n+1]) */
	struct held *held;                      /* running tasks (not evicted), by node */
	int32_t *seen;                          /* node -> reservation id + 1, visited */
	int32_t *mark;                          /* node -> reservation id + 1 */
	int32_t (*gpu)[FW_MAX_GPUS_PER_NODE];
	int64_t *cpu, *mem;
};

static void add_if_marked(struct at_t *u, const struct fw_job *j, const struct fw_task_alloc *t,
			  int32_t id)
{
	if (u->mark[t->node] != id + 1)
		return;
	add_gpus(u->gpu[t->node], t->gpu_mask, t->gpu_milli);
	u->cpu[t->node] += j->groups[t->group].cpu_milli;
	u->mem[t->node] += j->groups[t->group].mem_mib;
}

/* Use of reservation i's nodes at its time T, by everything still running. */
static void use_at(const struct fw_snapshot *s, const struct fw_plan *p, int32_t i, struct at_t *u)
{
	const struct fw_decision *dc = &p->decisions[i];
	fw_time T = dc->at;

	for (int32_t k = 0; k < dc->alloc_count; k++) {
		int32_t n = p->allocs[dc->alloc_first + k].node;
		if (u->seen[n] == i + 1)
			continue;
		u->seen[n] = i + 1;
		for (int32_t h = u->first[n]; h < u->first[n + 1]; h++)
			if (u->held[h].end > T)
				add_if_marked(u, u->held[h].job, u->held[h].t, i);
	}
	for (int32_t k = 0; k < p->ndecisions; k++) {
		const struct fw_decision *d = &p->decisions[k];
		if ((d->kind != FW_DECIDE_START || end_of(s, &s->jobs[d->job], s->now) <= T) && k != i)
			continue;
		for (int32_t m = 0; m < d->alloc_count; m++)
			add_if_marked(u, &s->jobs[d->job], &p->allocs[d->alloc_first + m], i);
	}
}

static int check_reservation(const struct fw_snapshot *s, const struct fw_plan *p, int32_t i,
			     struct at_t *u, struct fw_diag *d)
{
	const struct fw_decision *dc = &p->decisions[i];
	const struct fw_job *j = &s->jobs[dc->job];
	struct fld f = { "decisions", i };
	int rc;

	if (dc->at < s->now || dc->alloc_count < fw_job_min_tasks(j))
		return FAILAT(d, f, "reservation for job %s is in the past or incomplete", j->name);
	if (dc->alloc_count > fw_job_tasks(j))
		return FAILAT(d, f, "reservation for job %s holds %d tasks; the job has %d", j->name,
			      (int)dc->alloc_count, (int)fw_job_tasks(j));
	if ((rc = check_tasks(s, p, dc, j, f, d)) != FW_OK)
		return rc;
	for (int32_t k = 0; k < dc->alloc_count; k++)
		u->mark[p->allocs[dc->alloc_first + k].node] = i + 1;
	use_at(s, p, i, u);
	for (int32_t k = 0; k < dc->alloc_count; k++) {
		int32_t n = p->allocs[dc->alloc_first + k].node;
		for (int g = 0; g < FW_MAX_GPUS_PER_NODE; g++)
			if (u->gpu[n][g] > 1000)
				return FAILAT(d, f, "the reservation of job %s at %s finds GPU %d of %s busy: a start delays it",
					    j->name, at_text(s, dc->at).s, g, s->nodes[n].name);
		if (u->cpu[n] > s->nodes[n].cpu_milli || u->mem[n] > s->nodes[n].mem_mib)
			return FAILAT(d, f, "the reservation of job %s finds node %s's CPU or memory taken", j->name,
				    s->nodes[n].name);
		memset(u->gpu[n], 0, sizeof u->gpu[n]);
		u->cpu[n] = u->mem[n] = 0;
	}
	return FW_OK;
}

static bool holds(const struct fw_snapshot *s, const int8_t *evicted, int32_t j)
{
	return s->jobs[j].state == FW_JOB_RUNNING && !evicted[j]; /* evicted: gone */
}

/* Running tasks by node (a counting sort), with their jobs' end times. */
static void index_running(const struct fw_snapshot *s, const struct usage *us, const int8_t *evicted,
			  struct at_t *u)
{
	for (int32_t i = 0; i < us->nrunning; i++) {
		int32_t j = us->running[i];
		for (int32_t k = 0; holds(s, evicted, j) && k < s->jobs[j].alloc_count; k++)
			u->first[s->allocs[s->jobs[j].alloc_first + k].node + 1]++;
	}
	for (int32_t n = 0; n < s->nnodes; n++)
		u->first[n + 1] += u->first[n];
	for (int32_t i = 0; i < us->nrunning; i++) {
		const struct fw_job *job = &s->jobs[us->running[i]];
		if (!holds(s, evicted, us->running[i]))
			continue;
		fw_time end = end_of(s, job, job->start_time);
		for (int32_t k = 0; k < job->alloc_count; k++) {
			const struct fw_task_alloc *t = &s->allocs[job->alloc_first + k];
			u->held[u->first[t->node]++] = (struct held){ end, job, t };
		}
	}
	for (int32_t n = s->nnodes; n > 0; n--) /* first[n] moved to first[n+1] */
		u->first[n] = u->first[n - 1];
	u->first[0] = 0;
}

/* A reservation's window on its nodes: [at, at + runtime), for ever when
 * the runtime is unknown. */
struct window {
	fw_time from, to;
	int32_t dec;
};

/* Reservations may share a node one after another, never at once: per
 * node, the windows of the reservations holding it, sorted by start,
 * each ending by the next one's start. */
static int check_windows(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_arena *a,
			 struct fw_diag *d)
{
	int32_t *first = FW_ARENA_NEW(a, int32_t, s->nnodes + 2), *last = FW_ARENA_NEW(a, int32_t, s->nnodes + 1);
	struct window *w = NULL;
	int32_t n = 0;

	if (!first || !last)
		return FW_ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (int32_t v = 0; v < s->nnodes; v++)
			last[v] = -1;
		for (int32_t i = 0; i < p->ndecisions; i++) {
			const struct fw_decision *dc = &p->decisions[i];
			if (dc->kind != FW_DECIDE_RESERVE)
				continue;
			fw_time to = end_of(s, &s->jobs[dc->job], dc->at);
			for (int32_t k = 0; k < dc->alloc_count; k++) {
				int32_t v = p->allocs[dc->alloc_first + k].node;
				if (last[v] == i) /* one window per reservation and node */
					continue;
				last[v] = i;
				if (pass == 0)
					first[v + 2]++;
				else
					w[first[v + 1]++] = (struct window){ dc->at, to, i };
			}
		}
		if (pass == 0) {
			for (int32_t v = 0; v < s->nnodes; v++)
				first[v + 2] += first[v + 1];
			n = first[s->nnodes + 1];
			if (!(w = FW_ARENA_RAW(a, struct window, n + 1)))
				return FW_ENOMEM;
		}
	}
	for (int32_t v = 0; v < s->nnodes; v++) { /* first[v + 1]: v's end now */
		int32_t lo = first[v], hi = first[v + 1];
		for (int32_t x = lo + 1; x < hi; x++) { /* insertion sort: few per node */
			struct window t = w[x];
			int32_t y = x;
			for (; y > lo && (w[y - 1].from > t.from || (w[y - 1].from == t.from && w[y - 1].dec > t.dec)); y--)
				w[y] = w[y - 1];
			w[y] = t;
		}
		for (int32_t x = lo + 1; x < hi; x++)
			if (w[x].from < w[x - 1].to)
				return FAILAT(d, ((struct fld){ "decisions", w[x].dec }),
					      "the reservations of jobs %s and %s overlap in time on node %s",
					      s->jobs[p->decisions[w[x - 1].dec].job].name,
					      s->jobs[p->decisions[w[x].dec].job].name, s->nodes[v].name);
	}
	return FW_OK;
}

static int check_reservations(const struct fw_snapshot *s, const struct fw_plan *p, const struct usage *us,
			      struct fw_arena *a, const int8_t *evicted, struct fw_diag *d)
{
	struct at_t u;
	int rc;

	u.mark = FW_ARENA_NEW(a, int32_t, s->nnodes + 1);
	u.gpu = fw_arena_calloc(a, (size_t)s->nnodes + 1, sizeof *u.gpu);
	u.cpu = FW_ARENA_NEW(a, int64_t, s->nnodes + 1);
	u.mem = FW_ARENA_NEW(a, int64_t, s->nnodes + 1);
	u.seen = FW_ARENA_NEW(a, int32_t, s->nnodes + 1);
	u.first = FW_ARENA_NEW(a, int32_t, s->nnodes + 2);
	u.held = FW_ARENA_RAW(a, struct held, s->nallocs + 1);
	if (!u.mark || !u.gpu || !u.cpu || !u.mem || !u.seen || !u.first || !u.held)
		return FW_ENOMEM;
	index_running(s, us, evicted, &u);
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_RESERVE && (rc = check_reservation(s, p, i, &u, d)) != FW_OK)
			return rc;
	return FW_OK;
}

/* Every decision's kind, job or node, and task range lie inside the
 * snapshot and the plan, so the passes below may index with them (a
 * buggy policy is what the checker is for). */
static int check_shapes(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_diag *d)
{
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		struct fld f = { "decisions", i };
		if ((unsigned)dc->kind >= FW_DECIDE_COUNT)
			return FAILAT(d, f, "unknown decision kind %d", (int)dc->kind);
		if (dc->kind == FW_DECIDE_DRAIN ? dc->node < 0 || dc->node >= s->nnodes
						: dc->job < 0 || dc->job >= s->njobs)
			return FAILAT(d, f, "a %s decision names job %d, node %d: out of range",
				      dc->kind == FW_DECIDE_DRAIN ? "drain" : "job", (int)dc->job, (int)dc->node);
		if (dc->alloc_count < 0 || dc->alloc_first < 0 || dc->alloc_first > p->nallocs ||
		    dc->alloc_count > p->nallocs - dc->alloc_first)
			return FAILAT(d, f, "its tasks [%d, +%d) lie outside the plan's %d", (int)dc->alloc_first,
				      (int)dc->alloc_count, (int)p->nallocs);
	}
	return FW_OK;
}

static bool on_path(const struct fw_snapshot *s, int32_t q, int32_t leaf)
{
	for (int32_t x = leaf; x >= 0; x = s->queues[x].parent)
		if (x == q)
			return true;
	return false;
}

/* Add the milli-GPUs of tasks t[0 .. n) of job j to held[k] for every
 * deserved entry k up j's queue line whose model they run on. */
static void deserved_add(const struct fw_snapshot *s, int64_t *held, int32_t j, const struct fw_task_alloc *t,
			 int32_t n)
{
	for (int32_t k = 0; k < s->nmodel_deserved; k++) {
		const struct fw_model_limit *e = &s->model_deserved[k];
		if (!on_path(s, e->queue, s->jobs[j].queue))
			continue;
		for (int32_t i = 0; i < n; i++)
			if (strcmp(s->nodes[t[i].node].gpu_model, e->model) == 0)
				held[k] += (int64_t)__builtin_popcount(t[i].gpu_mask) * t[i].gpu_milli;
	}
}

/* Deserved GPUs of a model (lib/preempt.c, the shield): after the plan,
 * no reclaim eviction has left a queue on the victim's side (on its
 * path, not on the preemptor's) below what it deserves of a model the
 * victim ran on.  Drained jobs count as still held (a drain evicts
 * whatever it must). */
static int check_deserved(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_arena *a,
			  struct fw_diag *d)
{
	int32_t n = s->nmodel_deserved;
	int64_t *held = n ? FW_ARENA_NEW(a, int64_t, n) : NULL;
	bool *gone = n ? FW_ARENA_NEW(a, bool, s->njobs + 1) : NULL;

	if (n == 0)
		return FW_OK;
	if (!held || !gone)
		return FW_ENOMEM;
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT && p->decisions[i].reason != FW_REASON_DRAINED)
			gone[p->decisions[i].job] = true;
	for (int32_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == FW_JOB_RUNNING && !gone[j])
			deserved_add(s, held, j, s->allocs + s->jobs[j].alloc_first, s->jobs[j].alloc_count);
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_START)
			deserved_add(s, held, p->decisions[i].job, p->allocs + p->decisions[i].alloc_first,
				     p->decisions[i].alloc_count);
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *e = &p->decisions[i];
		if (e->kind != FW_DECIDE_EVICT ||
		    (e->reason != FW_REASON_RECLAIMED && e->reason != FW_REASON_MODEL_RECLAIMED))
			continue;
		const struct fw_job *v = &s->jobs[e->job];
		int32_t pq = s->jobs[e->a].queue;
		for (int32_t k = 0; k < n; k++) {
			const struct fw_model_limit *m = &s->model_deserved[k];
			if (!on_path(s, m->queue, v->queue) || on_path(s, m->queue, pq) || held[k] >= m->gpus)
				continue;
			for (int32_t t = 0; t < v->alloc_count; t++)
				if (strcmp(s->nodes[s->allocs[v->alloc_first + t].node].gpu_model, m->model) == 0)
					return FAILAT(d, ((struct fld){ "decisions", i }),
						      "job %s was evicted for reclaim, leaving queue %s below the %s GPUs it deserves: %lld < %lld milli-GPU",
						      v->name, s->queues[m->queue].name, m->model, (long long)held[k],
						      (long long)m->gpus);
		}
	}
	return FW_OK;
}

/* Every running job that has run its limit ends in this plan, before
 * any start (the GPUs it frees may be used by them). */
static int check_limits(const struct fw_snapshot *s, const struct fw_plan *p, const struct usage *u,
			const int8_t *evicted, struct fw_diag *d)
{
	int32_t first_start = p->ndecisions;

	for (int32_t i = 0; i < p->ndecisions && first_start == p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_START)
			first_start = i;
	for (int32_t i = first_start; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT && p->decisions[i].reason == FW_REASON_TIME_LIMIT)
			return FAILAT(d, ((struct fld){ "decisions", i }), "job %s is ended after a start of this plan",
				      s->jobs[p->decisions[i].job].name);
	for (int32_t r = 0; r < u->nrunning; r++) {
		const struct fw_job *j = &s->jobs[u->running[r]];
		fw_time m = limit_of(s, j);
		if (m > 0 && s->now - j->start_time >= m && !evicted[u->running[r]])
			return FAILAT(d, ((struct fld){ "jobs", u->running[r] }),
				      "job %s has run %lld s, past its run-time limit of %lld s, and is not ended",
				      j->name, (long long)(s->now - j->start_time), (long long)m);
	}
	return FW_OK;
}

static int64_t allocs_gpus(const struct fw_task_alloc *t, int32_t n)
{
	int64_t g = 0;

	for (int32_t k = 0; k < n; k++)
		g += (int64_t)__builtin_popcount(t[k].gpu_mask) * t[k].gpu_milli;
	return g;
}

static void safe_take(const struct fw_snapshot *s, double *left, int32_t q, double gpu_s)
{
	for (int32_t k = q, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++)
		left[k] -= gpu_s;
}

/* Under config.budget_safe: every start's whole run fits what each budget
 * on its way up has left after the usage (used), the runs that running
 * jobs not evicted in this plan may still make, and the starts before it
 * in the plan.  (The cycle counts a job this plan evicts for another
 * reason as running on: it allows less, never more.) */
static int check_safe_budgets(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_arena *a,
			      const double *used, struct fw_diag *d)
{
	double *left = FW_ARENA_RAW(a, double, s->nqueues + 1);
	bool *gone = FW_ARENA_NEW(a, bool, s->njobs + 1);

	if (!left || !gone)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		left[q] = s->queues[q].gpu_hour_budget * 3600.0 - used[q];
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT)
			gone[p->decisions[i].job] = true;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (job->state == FW_JOB_RUNNING && !gone[j])
			safe_take(s, left, job->queue,
				  fw_run_left(fw_job_bound(s, job), allocs_gpus(s->allocs + job->alloc_first, job->alloc_count),
					      job->start_time, s->now));
	}
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		const struct fw_job *job = dc->kind == FW_DECIDE_START ? &s->jobs[dc->job] : NULL;
		if (!job || job->state == FW_JOB_RUNNING)
			continue;
		double need = fw_run_left(fw_job_bound(s, job), allocs_gpus(p->allocs + dc->alloc_first, dc->alloc_count),
					  s->now, s->now);
		for (int32_t k = job->queue, n = 0; need > 0 && k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++)
			if (s->queues[k].gpu_hour_budget > 0 && !(need <= left[k] + 1e-3))
				return FAILAT(d, ((struct fld){ "decisions", i }),
					      "job %s starts with a run of %.1f GPU-hours though queue %s has %.1f "
					      "GPU-hours of its budget left (budgetSafe)",
					      job->name, need / 3600.0, s->queues[k].name, left[k] / 3600.0);
		safe_take(s, left, job->queue, need);
	}
	return FW_OK;
}

/* A job held over a budget is expected no sooner than that budget's
 * usage could fall below it if nothing of it ran on (usage decays as
 * used x 2^(-t/h); running jobs only add to it). */
static int check_refills(const struct fw_snapshot *s, const struct fw_plan *p, const double *used,
			 struct fw_diag *d)
{
	double h = s->config.usage_half_life_s;

	for (int32_t i = 0; h > 0 && i < p->npending; i++) {
		const struct fw_pending *r = &p->pending[i];
		if (r->reason != FW_REASON_OVER_BUDGET || r->expected_start == FW_TIME_UNKNOWN)
			continue;
		for (int32_t k = s->jobs[r->job].queue, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++) {
			double B = s->queues[k].gpu_hour_budget * 3600.0;
			if (!(B > 0) || used[k] < B)
				continue;
			double at = (double)s->now + h * log2(used[k] / B);
			if ((double)r->expected_start + 1 < at)
				return FAILAT(d, ((struct fld){ "pending", i }),
					      "job %s is expected at %s, but queue %s's usage is over its budget "
					      "until %s at the soonest",
					      s->jobs[r->job].name, at_text(s, r->expected_start).s, s->queues[k].name,
					      bound_text(s, at).s);
		}
	}
	return FW_OK;
}

/* Under config.budget_safe, a budget-short job is expected no sooner than
 * its whole run (need) could fit every budget on its way up: what is
 * left is at most the budget less the usage, and the usage decays no
 * faster than used x 2^(-t/h) (running jobs only add to it), so not
 * before now + h log2(used / (B - need)); never when need passes B. */
static int check_short_floors(const struct fw_snapshot *s, const struct fw_plan *p, const double *used,
			      struct fw_diag *d)
{
	double h = s->config.usage_half_life_s;

	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *r = &p->pending[i];
		const struct fw_job *j = &s->jobs[r->job];
		if (r->reason != FW_REASON_BUDGET_SHORT || r->expected_start == FW_TIME_UNKNOWN)
			continue;
		double need = fw_run_left(fw_job_bound(s, j), fw_job_request(j).v[FW_RES_GPU], s->now, s->now);
		for (int32_t k = j->queue, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++) {
			double B = s->queues[k].gpu_hour_budget * 3600.0, at = (double)s->now;
			if (!(B > 0) || used[k] <= B - need)
				continue;
			at = need < B && h > 0 ? at + h * log2(used[k] / (B - need)) : INFINITY;
			if ((double)r->expected_start + 1 < at)
				return FAILAT(d, ((struct fld){ "pending", i }),
					      "job %s is expected at %s, but its run of %.1f GPU-hours fits queue "
					      "%s's budget of %g no sooner than %s",
					      j->name, at_text(s, r->expected_start).s, need / 3600.0, s->queues[k].name,
					      s->queues[k].gpu_hour_budget, bound_text(s, at).s);
		}
	}
	return FW_OK;
}

/* GPU-hour budgets: no job starts under a queue whose subtree has used
 * its budget (fw_budget_used: the cycle's own sums), but for a running
 * job moved in this plan (its restart). */
static int check_budgets(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_arena *a,
			 struct fw_diag *d)
{
	int32_t q = 0;
	double *used;
	int rc;

	while (q < s->nqueues && !(s->queues[q].gpu_hour_budget > 0))
		q++;
	if (q == s->nqueues)
		return FW_OK;
	if (!(used = FW_ARENA_RAW(a, double, s->nqueues + 1)))
		return FW_ENOMEM;
	fw_budget_used(s, used);
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		if (dc->kind != FW_DECIDE_START || s->jobs[dc->job].state == FW_JOB_RUNNING)
			continue;
		for (int32_t k = s->jobs[dc->job].queue, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++)
			if (s->queues[k].gpu_hour_budget > 0 && used[k] >= s->queues[k].gpu_hour_budget * 3600.0)
				return FAILAT(d, ((struct fld){ "decisions", i }),
					      "job %s starts though queue %s has used %.1f GPU-hours of its budget of %g",
					      s->jobs[dc->job].name, s->queues[k].name, used[k] / 3600.0,
					      s->queues[k].gpu_hour_budget);
	}
	if ((rc = check_refills(s, p, used, d)) != FW_OK)
		return rc;
	if (s->config.budget_safe && (rc = check_short_floors(s, p, used, d)) != FW_OK)
		return rc;
	return s->config.budget_safe ? check_safe_budgets(s, p, a, used, d) : FW_OK;
}

int fw_plan_check(const struct fw_snapshot *s, const struct fw_plan *p, struct fw_arena *a,
		  struct fw_diag *d)
{
	struct usage u;
	int rc = usage_init(&u, s, a);
	int8_t *evicted = FW_ARENA_NEW(a, int8_t, s->njobs + 1);

	if (rc != FW_OK)
		return rc;
	if (!evicted)
		return FW_ENOMEM;
	if ((rc = check_shapes(s, p, d)) != FW_OK)
		return rc;
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_EVICT && (rc = check_evict(s, p, i, &u, evicted, d)) != FW_OK)
			return rc;
	for (int32_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].kind == FW_DECIDE_START && (rc = check_start(s, p, i, &u, evicted, d)) != FW_OK)
			return rc;
	if ((rc = check_evict_runs(s, p, d)) != FW_OK || (rc = check_limits(s, p, &u, evicted, d)) != FW_OK)
		return rc;
	if ((rc = check_nodes(s, &u, d)) != FW_OK)
		return rc;
	if ((rc = check_queues(s, &u, d)) != FW_OK || (rc = check_deserved(s, p, a, d)) != FW_OK ||
	    (rc = check_budgets(s, p, a, d)) != FW_OK)
		return rc;
	if ((rc = check_reservations(s, p, &u, a, evicted, d)) != FW_OK)
		return rc;
	if ((rc = check_pending(s, p, &u, a, d)) != FW_OK)
		return rc;
	if ((rc = check_windows(s, p, a, d)) != FW_OK)
		return rc;
	return check_estimates(s, p, a, d);
}
