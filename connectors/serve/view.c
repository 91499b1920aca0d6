/*
 * view.c — the JSON view of one cycle, built by the cycle thread after it
 * applied a plan and published whole (the API hands out parts of it).
 *
 * The view holds: the plan (decisions with reasons and what became of
 * them), every job of the snapshot with its state, pending reason and
 * expected start, every node with its GPU use, health and lemon verdict
 * (with the incidents it weighs), every queue's fair share with its
 * GPU-hour budget and, under budgetSafe, what the budget has left (the
 * snapshot's budgets and budgetSafe, so a backend's, Slurm's, too:
 * /metrics reads them here, computed once per cycle), and the figures
 * /metrics needs.  It is immutable once published; readers take a
 * reference under the lock and read without it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "reason.h"
#include "serve_int.h"

static const char *outcome(int st)
{
	switch (st) {
	case FW_OK: return "applied";
	case FW_EEXIST: return "already";
	case FW_ENOENT: return "skipped";
	default: return "failed";
	}
}

static json_t *decisions_json(const struct fw_backend_action *acts, const int *status, int32_t n)
{
	json_t *a = json_array();

	for (int32_t i = 0; i < n; i++) {
		const struct fw_backend_action *x = &acts[i];
		json_t *nodes = json_array();
		for (int32_t k = 0; k < x->nplacements; k++)
			if (k == 0 || strcmp(x->placements[k].node, x->placements[k - 1].node))
				json_array_append_new(nodes, json_string(x->placements[k].node));
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:I,s:s,s:s,s:o,s:s}", "kind",
						   fw_serve_kind_name(x->kind, x->reason), "job", x->job, "node", x->node, "at",
						   (json_int_t)x->at, "reason", fw_reason_name(x->reason), "text",
						   x->why, "nodes", nodes, "outcome", outcome(status[i])));
	}
	return a;
}

/* This plan's applied action of a kind for a job, or NULL. */
static const struct fw_backend_action *applied(enum fw_decision_kind kind, const char *job,
					       const struct fw_backend_action *acts, const int *status, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		if (acts[i].kind == kind && status[i] == FW_OK && !strcmp(acts[i].job, job))
			return &acts[i];
	return NULL;
}

static const struct fw_backend_action *started(const char *job, const struct fw_backend_action *acts,
					       const int *status, int32_t n)
{
	return applied(FW_DECIDE_START, job, acts, status, n);
}

static bool evicted(const char *job, const struct fw_backend_action *acts, const int *status, int32_t n)
{
	return applied(FW_DECIDE_EVICT, job, acts, status, n) != NULL;
}

static json_t *job_nodes(const struct fw_snapshot *s, const struct fw_job *j)
{
	json_t *a = json_array();
	for (int32_t k = 0; k < j->alloc_count; k++) {
		const char *n = s->nodes[s->allocs[j->alloc_first + k].node].name;
		if (k == 0 || strcmp(n, s->nodes[s->allocs[j->alloc_first + k - 1].node].name))
			json_array_append_new(a, json_string(n));
	}
	return a;
}

/* A waiting job's text for reason r with a, b (reason.h): an over-budget
 * job's names the queue over its budget by p's usage, a budget-short
 * one's the queue whose budget is short by left (fw_serve_budget_left),
 * an over-quota one's the queue whose limit binds, and that it never
 * starts while the limit holds when it alone needs more. */
static void waiting_text(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_serve_left *left,
			 int32_t job, enum fw_reason r, int64_t a, int64_t b, char *buf, size_t n)
{
	if (r == FW_REASON_OVER_BUDGET)
		fw_serve_budget_text(s, p, job, a, b, buf, n);
	else if (r == FW_REASON_BUDGET_SHORT)
		fw_serve_short_text(s, left, job, a, b, buf, n);
	else if (r == FW_REASON_OVER_QUOTA || r == FW_REASON_QUEUE_LIMIT || r == FW_REASON_HEALTH)
		fw_reason_format_job(s, job, r, a, b, buf, n); /* the queue, its limit; the nodes' kinds */
	else
		fw_serve_reason_text(s, r, a, b, buf, n);
}

/* A waiting job whose node filter, or one of whose task groups' (with
 * the job's), leaves out every node: the local backend's job whose
 * nodeSelector no node meets since the fleet was relabelled (local.c,
 * restrict_to).  The group (-1: the job's own filter), or -2 when each
 * may use some node.  O(nodes x groups): asked only of a job the plan
 * says can never start. */
static int no_node_group(const struct fw_snapshot *s, int32_t job)
{
	int32_t e = s->njob_nodes ? fw_snapshot_job_nodes_entry(s, job) : -1;
	bool groups = s->ngroup_nodes && fw_snapshot_group_nodes_entry(s, job) >= 0;

	if (e >= 0 && s->job_nodes[e].except && s->job_nodes[e].count >= s->nnodes)
		return -1;
	for (int g = 0; groups && g < s->jobs[job].ngroups; g++) {
		bool any = false;
		for (int32_t n = 0; n < s->nnodes && !any; n++)
			any = fw_snapshot_group_may_use(s, job, g, n);
		if (!any)
			return g;
	}
	return -2;
}

/* A job no node may take, in words (no_node_group): why, and what to do. */
static void no_node_fields(json_t *o, const struct fw_snapshot *s, int32_t job, int g)
{
	char buf[FW_SERVE_REASON_MAX], who[48] = "its node filter";

	if (g >= 0)
		snprintf(who, sizeof who, "the node filter of its task group %d", g);
	snprintf(buf, sizeof buf, "%s leaves out every node: no node of the fleet has the labels of its nodeSelector "
		 "(the nodes changed since it was submitted), so it can never start; give a node those labels "
		 "(nodes[].labels in the config, then restart) or cancel it (DELETE /v1/jobs/%s)", who,
		 s->jobs[job].name);
	json_object_set_new(o, "reason", json_string(fw_reason_name(FW_REASON_NODE_FILTER)));
	json_object_set_new(o, "reasonText", json_string(buf));
	json_object_set_new(o, "unknownWhy", json_string(fw_reason_name(FW_REASON_NODE_FILTER)));
	json_object_set_new(o, "unknownWhyText", json_string("never: no node of the fleet meets its nodeSelector"));
}

/* The texts name what the indices stand for in s (reason.h). */
static void pending_fields(json_t *o, const struct fw_snapshot *s, const struct fw_plan *p,
			   const struct fw_serve_left *left, const struct fw_pending *pe)
{
	char buf[FW_SERVE_REASON_MAX];

	if (pe->reason == FW_REASON_GPU_MODEL || pe->reason == FW_REASON_SLICES ||
	    pe->reason == FW_REASON_TOPOLOGY) /* names the model, the level */
		fw_reason_format_job(s, pe->job, pe->reason, pe->a, pe->b, buf, sizeof buf);
	else if (pe->reason == FW_REASON_HAS_RESERVATION || /* and why not now */
		 pe->reason == FW_REASON_FAIRSHARE_ORDER)   /* and the most free in one place */
		fw_pending_format(s, pe, buf, sizeof buf);
	else
		waiting_text(s, p, left, pe->job, pe->reason, pe->a, pe->b, buf, sizeof buf);
	json_object_set_new(o, "reason", json_string(fw_reason_name(pe->reason)));
	json_object_set_new(o, "reasonText", json_string(buf));
	json_object_set_new(o, "ahead", json_integer(pe->ahead));
	if (pe->reason == FW_REASON_HAS_RESERVATION)
		json_object_set_new(o, "reservedAt", json_integer(pe->a));
	if (pe->expected_start == FW_TIME_UNKNOWN) {
		waiting_text(s, p, left, pe->job, pe->unknown_why, pe->why_a, pe->why_b, buf, sizeof buf);
		json_object_set_new(o, "expectedStart", json_null());
		json_object_set_new(o, "unknownWhy", json_string(fw_reason_name(pe->unknown_why)));
		json_object_set_new(o, "unknownWhyText", json_string(buf));
	} else {
		json_object_set_new(o, "expectedStart", json_integer(pe->expected_start));
	}
	int g = pe->expected_start == FW_TIME_UNKNOWN ? no_node_group(s, pe->job) : -2;
	if (g > -2)
		no_node_fields(o, s, pe->job, g);
}

void fw_serve_gpu_amount(json_t *o, const struct fw_job *j)
{
	int64_t milli = 0;
	bool part = false;

	for (int g = 0; g < j->ngroups; g++) {
		milli += (int64_t)j->groups[g].count * j->groups[g].gpus * j->groups[g].gpu_milli;
		part |= j->groups[g].gpus > 0 && j->groups[g].gpu_milli < 1000;
	}
	if (part)
		json_object_set_new(o, "gpuAmount", json_real(milli / 1000.0));
}

/* A job the scheduler still plans (pending, running): its run-time limit
 * as the cycle applies it (fw_job_limit: the smallest of its own
 * maxRuntime and its queues'), "timeLimit", when it has one. */
static void limit_field(json_t *o, const struct fw_snapshot *s, const struct fw_job *j)
{
	fw_time m = fw_job_limit(s, j);

	if (m > 0)
		json_object_set_new(o, "timeLimit", json_integer(m));
}

/* A running job's expected end: start + its runtime, but no later than its
 * run-time limit ends it; without a runtime, start + the limit (it ends
 * then at the latest, as the cycle ends it); none with neither. */
static void expected_end(json_t *o, const struct fw_snapshot *s, const struct fw_job *j, fw_time start)
{
	fw_time rt = j->expected_runtime, m = fw_job_limit(s, j);

	if (rt > 0)
		json_object_set_new(o, "expectedEnd", json_integer(start + (m > 0 && m < rt ? m : rt)));
	else if (m > 0)
		json_object_set_new(o, "expectedEnd", json_integer(start + m));
}

/* What job j was submitted with, under the names of a POST /v1/jobs body
 * (fw_codec_job_members: preemptible, spread, runtime, minMember, tasks
 * with their gpuModel, the levels, checkpointInterval, maxRuntime), as
 * the snapshot has it: node filters are node lists there, so a local
 * job's nodeSelectors and slices are added by the API from the backend's
 * copy (api.c, local_members). */
static void submitted_fields(json_t *o, const struct fw_snapshot *s, const struct fw_job *j)
{
	struct fw_backend_job bj;

	memset(&bj, 0, sizeof bj);
	bj.job = *j;
	fw_codec_job_members(o, &bj, &s->topology);
}

static json_t *job_json(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_serve_left *left,
			int32_t i, const struct fw_backend_action *st, const struct fw_backend_action *ev)
{
	const struct fw_job *j = &s->jobs[i];
	json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:i}", "name", j->name, "queue", s->queues[j->queue].name,
			      "user", j->user, "gpus", (json_int_t)fw_job_gpus(j), "submitTime",
			      (json_int_t)j->submit_time, "runtime", (json_int_t)j->expected_runtime, "priority",
			      j->priority);
	const struct fw_pending *pe = NULL;

	fw_serve_gpu_amount(o, j);
	submitted_fields(o, s, j); /* its maxRuntime its own; timeLimit: the one that binds */
	if (ev && !st && ev->reason == FW_REASON_TIME_LIMIT) { /* ended by this plan */
		json_object_set_new(o, "state", json_string("timeout"));
		json_object_set_new(o, "reason", json_string(fw_reason_name(ev->reason)));
		json_object_set_new(o, "reasonText", json_string(ev->why));
		json_object_set_new(o, "startTime", json_integer(j->start_time));
		if (j->alloc_count > 0) /* where it ran, as an ended local job's "nodes" */
			json_object_set_new(o, "nodes", job_nodes(s, j));
		json_object_set_new(o, "endTime", json_integer(ev->at));
		return o;
	}
	if (ev && !st) { /* evicted by this plan and requeued */
		json_object_set_new(o, "state", json_string("pending"));
		json_object_set_new(o, "reason", json_string(fw_reason_name(ev->reason)));
		json_object_set_new(o, "reasonText", json_string(ev->why));
		json_object_set_new(o, "expectedStart", json_null());
		limit_field(o, s, j);
		return o;
	}
	limit_field(o, s, j);
	if (j->state == FW_JOB_RUNNING || st) {
		fw_time start = st ? st->at : j->start_time;
		json_t *nodes = json_array();
		if (st) {
			for (int32_t k = 0; k < st->nplacements; k++)
				if (k == 0 || strcmp(st->placements[k].node, st->placements[k - 1].node))
					json_array_append_new(nodes, json_string(st->placements[k].node));
		} else {
			json_decref(nodes);
			nodes = job_nodes(s, j);
		}
		json_object_set_new(o, "state", json_string("running"));
		json_object_set_new(o, "startTime", json_integer(start));
		json_object_set_new(o, "nodes", nodes);
		expected_end(o, s, j, start);
		return o;
	}
	json_object_set_new(o, "state", json_string("pending"));
	if ((pe = fw_plan_pending_for(p, i)))
		pending_fields(o, s, p, left, pe);
	return o;
}

static const struct fw_health_report *health_of(const char *node, const struct fw_health_report *h, int32_t nh)
{
	for (int32_t i = 0; i < nh; i++)
		if (!strcmp(h[i].node, node))
			return &h[i];
	return NULL;
}

/* Does report r say why a node is in health state st?  Unhealthy: an
 * unhealthy report; suspect: a suspect one; otherwise any that gives a
 * reason. */
static bool explains(const struct fw_health_report *r, enum fw_health st)
{
	if (st == FW_HEALTH_UNHEALTHY)
		return !r->healthy;
	if (st == FW_HEALTH_SUSPECT)
		return r->suspect;
	return r->reason[0] != '\0';
}

/* The node's healthReason: the first report (the API's come before the
 * backend's) that explains its state, so a node a healthy report left
 * healthy and the backend then made suspect says why it is suspect. */
static const char *reason_of(const struct fw_node *n, const struct fw_health_report *h, int32_t nh)
{
	for (int32_t i = 0; i < nh; i++)
		if (!strcmp(h[i].node, n->name) && explains(&h[i], n->health))
			return h[i].reason;
	return "";
}


/* Milli-GPUs in use per node: running jobs this plan did not evict, plus
 * this plan's starts (a moved job: evicted, then started elsewhere). */
static int64_t *node_use(const struct fw_snapshot *s, const struct fw_backend_action *acts, const int *status,
			 int32_t n)
{
	int64_t *use = calloc((size_t)s->nnodes + 1, sizeof *use);
	int32_t nevict = 0;

	if (!use)
		return NULL;
	for (int32_t i = 0; i < n; i++)
		nevict += acts[i].kind == FW_DECIDE_EVICT && status[i] == FW_OK;
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct fw_job *j = &s->jobs[i];
		if (j->state != FW_JOB_RUNNING || (nevict && evicted(j->name, acts, status, n)))
			continue;
		for (int32_t k = 0; k < j->alloc_count; k++) {
			const struct fw_task_alloc *a = &s->allocs[j->alloc_first + k];
			use[a->node] += (int64_t)__builtin_popcount(a->gpu_mask) * a->gpu_milli;
		}
	}
	for (int32_t i = 0; i < n; i++) {
		if (status[i] != FW_OK || acts[i].kind != FW_DECIDE_START)
			continue;
		for (int32_t k = 0; k < acts[i].nplacements; k++) {
			int x = fw_snapshot_find_node(s, acts[i].placements[k].node);
			if (x >= 0)
				use[x] += (int64_t)__builtin_popcount(acts[i].placements[k].gpu_mask) *
					  acts[i].placements[k].gpu_milli;
		}
	}
	return use;
}

static json_t *nodes_json(const struct fw_snapshot *s, const int64_t *use, const struct fw_health_report *h,
			  int32_t nh, const struct fw_health_config *hc, json_t *figures)
{
	json_t *a = json_array();
	int64_t total = 0, used = 0, usable = 0, unhealthy = 0, lemons = 0;

	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		const struct fw_health_report *r = health_of(n->name, h, nh);
		json_t *path = json_object(), *bad = json_array(), *labels = json_object();
		for (int l = 0; l < s->topology.nlevels; l++)
			json_object_set_new(path, s->topology.level[l], json_string(n->path[l]));
		for (int l = 0; l < n->nlabels; l++) /* what a job's nodeSelector meets */
			json_object_set_new(labels, n->labels[l].key, json_string(n->labels[l].value));
		for (int g = 0; g < n->gpu_count; g++)
			if (n->bad_gpu_mask & (1u << g))
				json_array_append_new(bad, json_integer(g));
		bool healthy = !r || r->healthy;
		/* An unhealthy node the backend has not drained yet is in the
		 * snapshot as schedulable (the core drains it); it takes no work. */
		bool sched = n->schedulable && n->health != FW_HEALTH_UNHEALTHY && n->health != FW_HEALTH_DRAINING;
		/* incidents: the count the lemon verdict weighs (history.h) */
		json_t *o = json_pack("{s:s,s:s,s:i,s:f,s:b,s:b,s:s,s:s,s:o,s:b,s:i,s:o,s:o}", "name", n->name,
				      "gpuModel", n->gpu_model, "gpus", n->gpu_count, "gpusAllocated", use[i] / 1000.0,
				      "schedulable", sched, "healthy", healthy, "health", fw_health_name(n->health),
				      "healthReason", reason_of(n, h, nh), "badGpus", bad, "lemon", n->lemon,
				      "incidents", r ? (int)fw_history_recent(r, hc, s->now) : 0, "topology", path,
				      "labels", labels);
		if (o && n->back_at) /* held out by a window or a reservation until then */
			json_object_set_new(o, "backAt", json_integer(n->back_at));
		if (o && sched && n->away_at > s->now) /* in service until a reservation to come */
			json_object_set_new(o, "leavesAt", json_integer(n->away_at));
		json_array_append_new(a, o);
		total += n->gpu_count * 1000LL;
		used += use[i];
		if (sched)
			usable += (n->gpu_count - __builtin_popcount(n->bad_gpu_mask)) * 1000LL;
		unhealthy += !healthy;
		lemons += n->lemon;
	}
	json_object_set_new(figures, "gpusTotal", json_real(total / 1000.0));
	json_object_set_new(figures, "gpusAllocated", json_real(used / 1000.0));
	json_object_set_new(figures, "gpusSchedulable", json_real(usable / 1000.0));
	json_object_set_new(figures, "unhealthyNodes", json_integer(unhealthy));
	json_object_set_new(figures, "lemonNodes", json_integer(lemons));
	return a;
}

/* A table of GPU model entries (snapshot.model_limits, model_deserved). */
struct mtable {
	const struct fw_model_limit *t;
	int32_t n;
};

/* GPUs on node x, added to the entries of table m on node x's model of
 * queue q and its ancestors. */
static void charge_limits(const struct fw_snapshot *s, struct mtable m, double *held, int32_t q, int32_t x,
			  double gpus)
{
	for (; q >= 0; q = s->queues[q].parent)
		for (int32_t k = 0; k < m.n; k++)
			if (m.t[k].queue == q && !strcmp(m.t[k].model, s->nodes[x].gpu_model))
				held[k] += gpus;
}

struct jname {
	const char *name;
	int32_t j;
};

static int jname_cmp(const void *a, const void *b)
{
	return strcmp(((const struct jname *)a)->name, ((const struct jname *)b)->name);
}

/* Per entry of table m (a GPU model limit or deserved GPUs of a model):
 * the GPUs of its model its queue's subtree holds after the cycle's
 * actions (running jobs not evicted, and the starts applied).  NULL when
 * there are none. */
static double *limits_held(const struct fw_snapshot *s, struct mtable m, const struct fw_backend_action *acts,
			   const int *status, int32_t n)
{
	double *held = m.n ? calloc((size_t)m.n, sizeof *held) : NULL;
	struct jname *ix = held ? malloc(((size_t)s->njobs + 1) * sizeof *ix) : NULL;

	int32_t nevict = 0;

	if (!ix) {
		free(held);
		return NULL;
	}
	for (int32_t i = 0; i < n; i++)
		nevict += acts[i].kind == FW_DECIDE_EVICT && status[i] == FW_OK;
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct fw_job *j = &s->jobs[i];
		ix[i] = (struct jname){ j->name, i };
		if (j->state != FW_JOB_RUNNING || (nevict && evicted(j->name, acts, status, n)))
			continue;
		for (int32_t k = 0; k < j->alloc_count; k++) {
			const struct fw_task_alloc *a = &s->allocs[j->alloc_first + k];
			charge_limits(s, m, held, j->queue, a->node, __builtin_popcount(a->gpu_mask) * a->gpu_milli / 1000.0);
		}
	}
	qsort(ix, (size_t)s->njobs, sizeof *ix, jname_cmp);
	for (int32_t i = 0; i < n; i++) {
		struct jname key = { acts[i].job, 0 }, *f;
		if (status[i] != FW_OK || acts[i].kind != FW_DECIDE_START ||
		    !(f = bsearch(&key, ix, (size_t)s->njobs, sizeof *ix, jname_cmp)))
			continue;
		for (int32_t k = 0; k < acts[i].nplacements; k++) {
			int x = fw_snapshot_find_node(s, acts[i].placements[k].node);
			if (x >= 0)
				charge_limits(s, m, held, s->jobs[f->j].queue, x,
					      __builtin_popcount(acts[i].placements[k].gpu_mask) *
						      acts[i].placements[k].gpu_milli / 1000.0);
		}
	}
	free(ix);
	return held;
}

/* Queue q's entries of table m under key, each {model, what: GPUs,
 * allocated: held}; none: left out. */
static void model_entries(json_t *o, const char *key, const char *what, struct mtable m, const double *held,
			  int32_t q)
{
	json_t *a = NULL;

	for (int32_t k = 0; held && k < m.n; k++) {
		if (m.t[k].queue != q)
			continue;
		if (!a)
			json_object_set_new(o, key, a = json_array());
		json_array_append_new(a, json_pack("{s:s,s:f,s:f}", "model", m.t[k].model, what, m.t[k].gpus / 1000.0,
						   "allocated", held[k]));
	}
}

/* Under budgetSafe (left from fw_serve_budget_left, NULL when it is off
 * or no queue has a budget), queue q's "gpuHoursLeft" when it has a
 * budget: GPU-hours its budget has left after its subtree's decayed
 * usage, its running jobs' remaining runs and this plan's starts
 * (negative: they already take more than it); null when unknown, a
 * running job under it having no bound.  Left out otherwise. */
static void left_field(json_t *o, const struct fw_snapshot *s, const struct fw_serve_left *left, int32_t q)
{
	if (!left || !(s->queues[q].gpu_hour_budget > 0))
		return;
	if (left[q].unbounded >= 0 || !isfinite(left[q].gpu_s))
		json_object_set_new(o, "gpuHoursLeft", json_null());
	else
		json_object_set_new(o, "gpuHoursLeft", json_real(left[q].gpu_s / 3600.0));
}

/* Jobs waiting and running after the plan (o: job_json's entry, its
 * state) counted for job i's queue and each queue above it: njobs[2q]
 * pending, njobs[2q + 1] running. */
static void count_job(const struct fw_snapshot *s, int32_t i, const json_t *o, int32_t *njobs)
{
	const char *st = json_string_value(json_object_get(o, "state"));
	int k = st && !strcmp(st, "pending") ? 0 : st && !strcmp(st, "running") ? 1 : -1;

	for (int32_t q = s->jobs[i].queue; njobs && k >= 0 && q >= 0 && q < s->nqueues; q = s->queues[q].parent)
		njobs[2 * q + k]++;
}

/* GET /v1/fairshare's entries, one a queue in p's order.  Its
 * "usageGpuHours" is the decayed usage of the queue and the queues under
 * it at s->now, the figure its "gpuHourBudget" (null: none; the
 * snapshot's, so a backend's budget too, Slurm's GrpTRESMins) and an
 * ancestor's are held to; "gpuHoursLeft" what the budget has left
 * (left_field). */
static json_t *fairshare_json(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_serve_left *left,
			      const double *held, const double *held_des, const int32_t *njobs)
{
	struct mtable lim = { s->model_limits, s->nmodel_limits }, des = { s->model_deserved, s->nmodel_deserved };

	json_t *a = json_array(), **users = calloc((size_t)s->nqueues + 1, sizeof *users);

	for (int32_t i = 0; users && i < s->nuser_usage; i++) { /* each queue's users' decayed usage */
		const struct fw_user_usage *u = &s->user_usage[i];
		if (!users[u->queue])
			users[u->queue] = json_array();
		json_array_append_new(users[u->queue], json_pack("{s:s,s:f}", "user", u->user, "usageGpuHours",
								 fw_usage_decay(u->usage, u->usage_at, s->now,
										s->config.usage_half_life_s) /
									 3600.0));
	}

	for (int32_t q = 0; q < s->nqueues && q < p->nqueues; q++) {
		const struct fw_queue *sq = &s->queues[q];
		const struct fw_queue_result *r = &p->queues[q];
		json_t *o = json_pack("{s:s,s:s,s:b,s:f,s:f,s:f,s:f,s:f}", "queue", sq->name, "parent",
				      sq->parent >= 0 ? s->queues[sq->parent].name : "", "leaf",
				      fw_queue_is_leaf(s, q), "deserved", sq->deserved.v[FW_RES_GPU] / 1000.0,
				      "fairShare", r->fair[FW_RES_GPU] / 1000.0, "allocated",
				      r->allocated.v[FW_RES_GPU] / 1000.0, "demand", r->demand.v[FW_RES_GPU] / 1000.0,
				      "usageGpuHours", r->usage / 3600.0);
		json_object_set_new(o, "guaranteed", json_real(r->guaranteed[FW_RES_GPU] / 1000.0));
		json_object_set_new(o, "overQuota",
				    json_real((r->fair[FW_RES_GPU] - r->guaranteed[FW_RES_GPU]) / 1000.0));
		if (njobs) {
			json_object_set_new(o, "pendingJobs", json_integer(njobs[2 * q]));
			json_object_set_new(o, "runningJobs", json_integer(njobs[2 * q + 1]));
		}
		json_object_set_new(o, "weight", json_real(r->weight));
		json_object_set_new(o, "weightEffective", json_real(r->weight_eff));
		json_object_set_new(o, "limitedBy",
				    r->limited_by >= 0 ? json_string(fw_res_name(r->limited_by)) : json_null());
		json_object_set_new(o, "limit", sq->limit.v[FW_RES_GPU] == FW_UNLIMITED
							 ? json_null()
							 : json_real(sq->limit.v[FW_RES_GPU] / 1000.0));
		json_object_set_new(o, "gpuHourBudget",
				    sq->gpu_hour_budget > 0 ? json_real(sq->gpu_hour_budget) : json_null());
		left_field(o, s, left, q);
		if (users && users[q]) {
			json_object_set_new(o, "users", users[q]);
			users[q] = NULL;
		}
		model_entries(o, "gpuModelLimits", "limit", lim, held, q);
		model_entries(o, "gpuModelDeserved", "deserved", des, held_des, q);
		json_array_append_new(a, o);
	}
	for (int32_t q = 0; users && q < s->nqueues; q++)
		json_decref(users[q]); /* a queue past the plan's, if any */
	free(users);
	return a;
}

json_t *fw_serve_job_view(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_backend_action *acts,
			  const int *status, int32_t nacts, const char *name)
{
	struct fw_serve_left *left;
	json_t *o;
	int32_t i = 0;

	while (i < s->njobs && strcmp(s->jobs[i].name, name))
		i++;
	if (i == s->njobs)
		return NULL;
	left = fw_serve_budget_left(s, p);
	o = job_json(s, p, left, i, started(name, acts, status, nacts),
		     applied(FW_DECIDE_EVICT, name, acts, status, nacts));
	free(left);
	return o;
}

json_t *fw_serve_build_view(const struct fw_snapshot *s, const struct fw_plan *p,
			    const struct fw_backend_action *acts, const int *status, int32_t nacts,
			    const struct fw_health_report *h, int32_t nh, const struct fw_health_config *hc,
			    int64_t cycle, uint64_t gen, double seconds, int32_t skipped)
{
	json_t *v = json_object(), *jobs = json_object(), *order = json_array(), *byreason = json_object();
	json_t *figures = json_object();
	int64_t *use = node_use(s, acts, status, nacts);
	struct fw_serve_left *left = fw_serve_budget_left(s, p); /* NULL: budget_short reads as the core's */
	int32_t *njobs = calloc(2 * (size_t)s->nqueues + 2, sizeof *njobs); /* NULL: the counts left out */

	if (!use) {
		free(njobs);
		free(left);
		json_decref(v);
		return NULL;
	}
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct fw_backend_action *st = started(s->jobs[i].name, acts, status, nacts);
		const struct fw_backend_action *ev = applied(FW_DECIDE_EVICT, s->jobs[i].name, acts, status, nacts);
		json_t *o = job_json(s, p, left, i, st, ev);
		const char *r = json_string_value(json_object_get(o, "reason"));
		if (r && !strcmp(json_string_value(json_object_get(o, "state")), "pending"))
			json_object_set_new(byreason, r, json_integer(json_integer_value(json_object_get(byreason, r)) + 1));
		count_job(s, i, o, njobs);
		json_array_append_new(order, json_string(s->jobs[i].name));
		json_object_set_new(jobs, s->jobs[i].name, o);
	}
	json_object_set_new(v, "nodes", nodes_json(s, use, h, nh, hc, figures));
	free(use);
	json_object_set_new(figures, "pendingByReason", byreason);
	json_object_set_new(v, "cycle", json_integer(cycle));
	json_object_set_new(v, "at", json_integer(s->now));
	json_object_set_new(v, "generation", json_integer((json_int_t)gen));
	json_object_set_new(v, "seconds", json_real(seconds));
	json_object_set_new(v, "skippedJobs", json_integer(skipped));
	json_object_set_new(v, "considered", json_integer(p->considered));
	json_object_set_new(v, "decisions", decisions_json(acts, status, nacts));
	json_object_set_new(v, "jobs", jobs);
	json_object_set_new(v, "jobOrder", order);
	double *held = limits_held(s, (struct mtable){ s->model_limits, s->nmodel_limits }, acts, status, nacts);
	double *held_des = limits_held(s, (struct mtable){ s->model_deserved, s->nmodel_deserved }, acts, status, nacts);
	json_object_set_new(v, "fairshare", fairshare_json(s, p, left, held, held_des, njobs));
	free(njobs);
	free(held);
	free(held_des);
	free(left);
	/* the snapshot's: the config's, or a backend's (Slurm's
	 * AccountingStorageEnforce=safe), as the cycle ran with it */
	json_object_set_new(v, "budgetSafe", json_boolean(s->config.budget_safe));
	json_object_set_new(v, "figures", figures);
	return v;
}

/* One job the backend keeps aside (backend.h fw_backend_aside): pending,
 * never planned ("planned": false), its reason the backend's own, and no
 * expected start but the earliest the backend knows (Slurm: a requeued
 * job's begin time), whose reasonText says why. */
static json_t *aside_json(const struct fw_backend_aside *a)
{
	char why[FW_SERVE_REASON_MAX];
	json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:s,s:b,s:s,s:s}", "name", a->job, "queue", a->queue, "user", a->user,
			      "submitTime", (json_int_t)a->submitted, "state", "pending", "planned", 0, "reason",
			      a->reason, "reasonText", a->text);

	if (!o)
		return NULL;
	if (a->gpus >= 0)
		json_object_set_new(o, "gpus", json_integer(a->gpus));
	if (a->earliest > 0) {
		json_object_set_new(o, "expectedStart", json_integer(a->earliest));
		return o;
	}
	snprintf(why, sizeof why, "fairway does not plan it (%s): no start can be foreseen until that changes",
		 a->reason);
	json_object_set_new(o, "expectedStart", json_null());
	json_object_set_new(o, "unknownWhy", json_string(a->reason));
	json_object_set_new(o, "unknownWhyText", json_string(why));
	return o;
}

/* A job the plan has, pending, that the backend keeps aside too with an
 * earliest start (its read is newer than the plan's: Slurm requeued the
 * job since): its expected start the later of the plan's and the
 * backend's, its reasonText saying so.  No estimate stays none. */
static void not_before(json_t *o, const struct fw_backend_aside *a)
{
	json_t *at = json_object_get(o, "expectedStart");
	const char *st = json_string_value(json_object_get(o, "state"));
	const char *r = json_string_value(json_object_get(o, "reasonText"));
	char buf[FW_SERVE_REASON_MAX + 160], from[FW_TIME_TEXT_MAX], plan[FW_TIME_TEXT_MAX];

	if (a->earliest <= 0 || !st || strcmp(st, "pending") || !json_is_integer(at) ||
	    json_integer_value(at) >= a->earliest)
		return;
	snprintf(buf, sizeof buf, "%s; not before %s, when the cluster starts it at the earliest (%s), later "
		 "than the plan's %s", r ? r : "", fw_utc_format(a->earliest, from, sizeof from), a->reason,
		 fw_utc_format(json_integer_value(at), plan, sizeof plan)); /* Unix times: UTC dates (span.h) */
	json_object_set_new(o, "expectedStart", json_integer(a->earliest));
	json_object_set_new(o, "reasonText", json_string(buf));
}

json_t *fw_serve_job_record_json(struct fw_serve_job_record *r)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "name", r->name, "queue", r->queue, "user", r->user, "state",
			      r->state);

	if (o && r->gpus >= 0)
		json_object_set_new(o, "gpus", json_integer(r->gpus));
	if (o)
		json_object_set_new(o, "submitTime", json_integer(r->submitted));
	if (o && r->more)
		json_object_update(o, r->more);
	if (o && r->started > 0)
		json_object_set_new(o, "startTime", json_integer(r->started));
	if (o && r->nodes)
		json_object_set(o, "nodes", r->nodes);
	if (o && r->expected_end > 0)
		json_object_set_new(o, "expectedEnd", json_integer(r->expected_end));
	if (o && r->ended)
		json_object_set_new(o, "endTime", json_integer(r->end));
	if (o && r->exit_code >= 0)
		json_object_set_new(o, "exitCode", json_integer(r->exit_code));
	if (o && r->reason && r->reason[0])
		json_object_set_new(o, "reason", json_string(r->reason));
	if (o && r->text && r->text[0])
		json_object_set_new(o, "reasonText", json_string(r->text));
	if (o && r->array_of && r->array_of[0])
		json_object_set_new(o, "arrayOf", json_string(r->array_of));
	json_decref(r->more);
	json_decref(r->nodes);
	r->more = r->nodes = NULL;
	return o;
}

/* One ended job the backend still lists (backend.h fw_backend_ended), as
 * the API shows an ended local job (the record both share): its state,
 * times, exit code and nodes (where it ran, the member a running job's
 * nodes have; none when it never ran); its reason and reasonText when
 * the backend gives them (how it ended). */
static json_t *ended_json(const struct fw_backend_ended *e, const char (*names)[FW_NAME_MAX])
{
	struct fw_serve_job_record r = { .name = e->job, .queue = e->queue, .user = e->user, .state = e->state,
					 .gpus = e->gpus, .submitted = e->submitted, .started = e->started,
					 .ended = true, .end = e->ended, .exit_code = e->exit_code,
					 .reason = e->reason, .text = e->text };

	if (e->nnodes > 0 && (r.nodes = json_array()))
		for (int32_t k = 0; k < e->nnodes; k++)
			json_array_append_new(r.nodes, json_string(names[e->node_first + k]));
	return fw_serve_job_record_json(&r);
}

void fw_serve_view_ended(json_t *v, const struct fw_backend_ended *e, int32_t n, const char (*names)[FW_NAME_MAX])
{
	json_t *jobs = json_object_get(v, "jobs"), *ended = json_object(), *order = json_array(), *o;

	for (int32_t i = 0; jobs && ended && order && i < n; i++) {
		if (json_object_get(jobs, e[i].job) || json_object_get(ended, e[i].job) || !(o = ended_json(&e[i], names)))
			continue; /* the plan's job of that name answers */
		json_object_set_new(ended, e[i].job, o);
		json_array_append_new(order, json_string(e[i].job));
	}
	if (ended && order) {
		json_object_set_new(v, "ended", ended);
		json_object_set_new(v, "endedOrder", order);
		return;
	}
	json_decref(ended);
	json_decref(order);
}

void fw_serve_view_aside(json_t *v, const struct fw_backend_aside *a, int32_t n)
{
	json_t *jobs = json_object_get(v, "jobs"), *order = json_object_get(v, "jobOrder"), *o;

	for (int32_t i = 0; jobs && order && i < n; i++) {
		if ((o = json_object_get(jobs, a[i].job))) {
			not_before(o, &a[i]); /* a name the plan has answers for the plan's job */
			continue;
		}
		if (!(o = aside_json(&a[i])))
			continue;
		json_object_set_new(jobs, a[i].job, o);
		json_array_append_new(order, json_string(a[i].job));
	}
}
