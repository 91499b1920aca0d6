/*
 * render.c — plan renderers (render.h).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "reason.h"
#include "render.h"

/* Was the node of task k placed by an earlier task of the decision? */
static bool node_seen(const struct fw_plan *p, const struct fw_decision *d, int32_t k)
{
	for (int32_t i = 0; i < k; i++)
		if (p->allocs[d->alloc_first + i].node == p->allocs[d->alloc_first + k].node)
			return true;
	return false;
}

/* How many tasks of the decision, from task k on, sit on task k's node. */
static int32_t node_tasks(const struct fw_plan *p, const struct fw_decision *d, int32_t k)
{
	int32_t n = 0;

	for (int32_t i = k; i < d->alloc_count; i++)
		n += p->allocs[d->alloc_first + i].node == p->allocs[d->alloc_first + k].node;
	return n;
}

/* The NODES cell: each node once, in the order of its first task, with
 * its count of tasks when more than one ("h100-009×4,h100-010"). */
static void task_nodes(const struct fw_snapshot *s, const struct fw_plan *p,
		       const struct fw_decision *d, char *buf, size_t n)
{
	size_t at = 0;
	bool first = true;

	buf[0] = 0;
	for (int32_t k = 0; k < d->alloc_count && at + 1 < n; k++) {
		int32_t tasks = node_seen(p, d, k) ? 0 : node_tasks(p, d, k);
		const char *name = s->nodes[p->allocs[d->alloc_first + k].node].name;
		int w = !tasks ? 0
			: tasks > 1 ? snprintf(buf + at, n - at, "%s%s×%d", first ? "" : ",", name, (int)tasks)
				    : snprintf(buf + at, n - at, "%s%s", first ? "" : ",", name);
		if (w < 0 || (size_t)w >= n - at) {
			snprintf(buf + (n > 4 ? n - 4 : 0), 4, "...");
			return;
		}
		at += (size_t)w;
		first = first && !tasks;
	}
}

/* The reason in words; reasons whose first argument is a job index name
 * that job. */
static char *reason_text(const struct fw_snapshot *s, const struct fw_pending *r, char *buf, size_t n)
{
	int64_t a = r->a;

	if ((r->reason == FW_REASON_RESERVED || r->reason == FW_REASON_HEAD_OF_LINE) && a >= 0 && a < s->njobs) {
		const char *name = s->jobs[a].name;
		char at[FW_TIME_TEXT_MAX];
		if (r->reason == FW_REASON_RESERVED) /* a time as s's clock writes it (span.h) */
			snprintf(buf, n, "it fits now but would delay the reservation of %s (due at %s); it waits rather than push a reserved job back",
				 name, fw_time_format(r->b, s->config.utc_times, at, sizeof at));
		else
			snprintf(buf, n, "blocked behind %s (strict order; %lld jobs ahead in its line)", name,
				 (long long)r->b);
		return buf;
	}
	return fw_pending_format(s, r, buf, n); /* a reserved job's: and why not now */
}

static double gpus(int64_t milli)
{
	return (double)milli / 1000.0;
}

static int32_t count_kind(const struct fw_plan *p, enum fw_decision_kind k)
{
	int32_t n = 0;

	for (int32_t i = 0; i < p->ndecisions; i++)
		n += p->decisions[i].kind == k;
	return n;
}

/* render.h: the LOSES column (the work an eviction loses since the job's
 * last checkpoint, fw_job_lost_work) and measured times: cut to the
 * minute from a minute on ("20m", not "20m17s": a measured time's
 * seconds are noise), then in the core's words (span.h). */
const char *fw_render_span(fw_time secs, char *buf, size_t n)
{
	return fw_span_format(secs < 60 ? secs : secs - secs % 60, buf, n);
}

/* An eviction's FOR column: the drained node, "limit 2h00m" for a run-time
 * limit, else the job it was made for. */
static const char *evicted_for(const struct fw_snapshot *s, const struct fw_decision *d, char *buf, size_t n)
{
	char t[24];

	if (d->reason == FW_REASON_DRAINED)
		return s->nodes[d->a].name;
	if (d->reason == FW_REASON_TIME_LIMIT) {
		snprintf(buf, n, "limit %s", fw_span_format(d->b, t, sizeof t));
		return buf;
	}
	return d->a >= 0 && d->a < s->njobs ? s->jobs[d->a].name : "?";
}

static void table_decisions(FILE *f, const struct fw_snapshot *s, const struct fw_plan *p,
			    enum fw_decision_kind kind)
{
	char nodes[160], lost[24], limit[32], at[FW_TIME_TEXT_MAX];
	int32_t n = count_kind(p, kind);
	bool utc = s->config.utc_times; /* AT: a date ("2026-12-06T14:56:40Z"), else seconds */

	fprintf(f, "\n%s (%d)\n",
		kind == FW_DECIDE_START ? "STARTED" : kind == FW_DECIDE_EVICT ? "EVICTED" : "RESERVED", (int)n);
	if (!n)
		return;
	fprintf(f, "  %-20s %-14s %6s %5s  %s%s\n", "JOB", "QUEUE", "GPUS", "TASKS",
		kind == FW_DECIDE_START ? "" : kind == FW_DECIDE_EVICT ? "WHY             FOR                  LOSES   " :
		utc ? "AT                    " : "AT        ",
		"NODES");
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		const struct fw_job *j = &s->jobs[d->job];
		int64_t milli = 0;
		if (d->kind != kind)
			continue;
		for (int32_t k = 0; k < d->alloc_count; k++)
			milli += (int64_t)__builtin_popcount(p->allocs[d->alloc_first + k].gpu_mask) *
				 p->allocs[d->alloc_first + k].gpu_milli;
		task_nodes(s, p, d, nodes, sizeof nodes);
		fprintf(f, "  %-20s %-14s %6.2f %5d  ", j->name, s->queues[j->queue].name, gpus(milli),
			(int)d->alloc_count);
		if (kind == FW_DECIDE_EVICT)
			fprintf(f, "%-15s %-20s %-7s ", fw_reason_name(d->reason), evicted_for(s, d, limit, sizeof limit),
				fw_render_span(fw_job_lost_work(s, j, p->now), lost, sizeof lost));
		else if (kind != FW_DECIDE_START && utc)
			fprintf(f, "%-21s ", fw_utc_format(d->at, at, sizeof at));
		else if (kind != FW_DECIDE_START)
			fprintf(f, "%-9lld ", (long long)d->at);
		fprintf(f, "%s\n", nodes);
	}
}

/* DRAIN decisions: the node and why (health.h, lib/drain.c), by name as
 * the daemon and the Slurm adapter write it (connectors/serve reason.h). */
static void table_drains(FILE *f, const struct fw_snapshot *s, const struct fw_plan *p)
{
	char msg[FW_SERVE_REASON_MAX];

	fprintf(f, "\nDRAINED NODES (%d)\n", (int)count_kind(p, FW_DECIDE_DRAIN));
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		if (d->kind == FW_DECIDE_DRAIN)
			fprintf(f, "  %-20s %s\n", s->nodes[d->node].name,
				fw_serve_reason_text(s, d->reason, d->a, d->b, msg, sizeof msg));
	}
}

/* "t=1234 (+34s)", "t=36100 (+8h01m40s)" (the time as s's clock writes
 * it, the wait as every duration here reads, span.h) or "unknown
 * (over_quota)". */
static char *expected_text(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_pending *r, char *buf,
			   size_t n)
{
	char wait[32], at[FW_TIME_TEXT_MAX];

	if (r->expected_start == FW_TIME_UNKNOWN)
		snprintf(buf, n, "unknown (%s)", fw_reason_name(r->unknown_why));
	else
		snprintf(buf, n, "%s (+%s)", fw_time_format(r->expected_start, s->config.utc_times, at, sizeof at),
			 fw_span_format(r->expected_start - p->now, wait, sizeof wait));
	return buf;
}

/* The WHY column: the pending reason, then, when no start time is known
 * for a reason of its own (the gang never fits the topology, a task's CPU
 * exceeds every node), that reason too: "the largest domain has 32 free"
 * alone reads as if waiting would do. */
static char *why_text(const struct fw_snapshot *s, const struct fw_pending *r, char *buf, size_t n)
{
	char est[FW_REASON_TEXT_MAX];
	size_t len;

	reason_text(s, r, buf, n);
	if (r->expected_start != FW_TIME_UNKNOWN || r->unknown_why == FW_REASON_NONE ||
	    r->unknown_why == r->reason ||
	    (r->unknown_why == FW_REASON_QUEUE_LIMIT && r->reason == FW_REASON_OVER_QUOTA)) /* said already */
		return buf;
	fw_reason_format_job(s, r->job, r->unknown_why, r->why_a, r->why_b, est, sizeof est);
	len = strlen(buf);
	snprintf(buf + len, n - len, "; no start time: %s", est);
	return buf;
}

static void table_pending(FILE *f, const struct fw_snapshot *s, const struct fw_plan *p)
{
	/* reason_text names one job; why_text adds the estimate's reason */
	char msg[2 * FW_REASON_TEXT_MAX + FW_NAME_MAX + 32], when[64];

	int w = 27; /* EXPECTED START; with dates, as wide as the widest */

	fprintf(f, "\nPENDING (%d)\n", (int)p->npending);
	if (!p->npending)
		return;
	for (int32_t i = 0; s->config.utc_times && i < p->npending; i++) {
		int len = (int)strlen(expected_text(s, p, &p->pending[i], when, sizeof when));
		w = len > w ? len : w;
	}
	fprintf(f, "  %-20s %-14s %-16s %-*s %5s  %s\n", "JOB", "QUEUE", "REASON", w, "EXPECTED START", "AHEAD",
		"WHY");
	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *r = &p->pending[i];
		const struct fw_job *j = &s->jobs[r->job];
		why_text(s, r, msg, sizeof msg);
		fprintf(f, "  %-20s %-14s %-16s %-*s %5d  %s\n", j->name, s->queues[j->queue].name,
			fw_reason_name(r->reason), w, expected_text(s, p, r, when, sizeof when), (int)r->ahead, msg);
	}
}

static void table_queues(FILE *f, const struct fw_snapshot *s, const struct fw_plan *p)
{
	fprintf(f, "\nQUEUES (GPUs; FAIR = GUARANTEED, its deserved share up to its demand, + OVER QUOTA, split by EFF-WEIGHT)\n");
	fprintf(f, "  %-20s %-14s %9s %9s %10s %10s %9s %9s %10s\n", "QUEUE", "PARENT", "DESERVED", "FAIR",
		"GUARANTEED", "OVER QUOTA", "ALLOCATED", "DEMAND", "EFF-WEIGHT");
	for (int32_t q = 0; q < p->nqueues; q++) {
		const struct fw_queue *qq = &s->queues[q];
		const struct fw_queue_result *r = &p->queues[q];
		double fair = r->fair[FW_RES_GPU] / 1000.0, g = r->guaranteed[FW_RES_GPU] / 1000.0;
		fprintf(f, "  %-20s %-14s %9.2f %9.2f %10.2f %10.2f %9.2f %9.2f %10.2f\n", qq->name,
			qq->parent >= 0 ? s->queues[qq->parent].name : "-", gpus(qq->deserved.v[FW_RES_GPU]), fair, g,
			fair - g, gpus(r->allocated.v[FW_RES_GPU]), gpus(r->demand.v[FW_RES_GPU]), r->weight_eff);
	}
}

void fw_render_table(FILE *f, const struct fw_snapshot *s, const struct fw_plan *p,
		     const struct fw_policy_ops *pol)
{
	int32_t pending = 0, again = 0;
	char utc[FW_TIME_TEXT_MAX], date[FW_TIME_TEXT_MAX + 3] = "";

	if (s->config.utc_times) /* a Unix now: its date beside the seconds it was given in */
		snprintf(date, sizeof date, " (%s)", fw_utc_format(p->now, utc, sizeof utc));
	for (int32_t j = 0; j < s->njobs; j++)
		pending += s->jobs[j].state == FW_JOB_PENDING;
	for (int32_t i = 0; i < p->ndecisions; i++) /* a move, or a drained job's restart */
		again += p->decisions[i].kind == FW_DECIDE_START && s->jobs[p->decisions[i].job].state == FW_JOB_RUNNING;
	fprintf(f, "fairway plan: policy %s, now %lld%s, %d nodes, %d queues, %d pending job%s -> %d started, %d waiting (%d with a reservation)",
		pol->name, (long long)p->now, date, (int)s->nnodes, (int)s->nqueues, (int)pending, pending == 1 ? "" : "s",
		(int)(count_kind(p, FW_DECIDE_START) - again), (int)p->npending, (int)count_kind(p, FW_DECIDE_RESERVE));
	if (again)
		fprintf(f, "; %d running job%s evicted and started again elsewhere", (int)again, again == 1 ? "" : "s");
	fprintf(f, "\n");
	if (count_kind(p, FW_DECIDE_DRAIN))
		table_drains(f, s, p);
	if (count_kind(p, FW_DECIDE_EVICT))
		table_decisions(f, s, p, FW_DECIDE_EVICT);
	table_decisions(f, s, p, FW_DECIDE_START);
	table_decisions(f, s, p, FW_DECIDE_RESERVE);
	table_pending(f, s, p);
	table_queues(f, s, p);
}

static json_t *json_round(double x)
{
	return json_real(round(x * 1000.0) / 1000.0);
}

static json_t *json_task(const struct fw_snapshot *s, const struct fw_task_alloc *t)
{
	json_t *o = json_object(), *g = json_array();

	for (int k = 0; k < FW_MAX_GPUS_PER_NODE; k++)
		if (t->gpu_mask & (1u << k))
			json_array_append_new(g, json_integer(k));
	json_object_set_new(o, "node", json_string(s->nodes[t->node].name));
	json_object_set_new(o, "group", json_integer(t->group));
	json_object_set_new(o, "gpus", g);
	json_object_set_new(o, "gpuMilli", json_integer(t->gpu_milli));
	return o;
}

/* A decision's nodes, each once in the order of its first task: the
 * daemon's "nodes" of a decision (GET /v1/plan); "tasks" has each task. */
static json_t *json_decision_nodes(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_decision *d)
{
	json_t *a = json_array();

	for (int32_t k = 0; k < d->alloc_count; k++)
		if (!node_seen(p, d, k))
			json_array_append_new(a, json_string(s->nodes[p->allocs[d->alloc_first + k].node].name));
	return a;
}

static json_t *json_decisions(const struct fw_snapshot *s, const struct fw_plan *p)
{
	json_t *arr = json_array();

	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		json_t *o = json_object(), *tasks = json_array();
		for (int32_t k = 0; k < d->alloc_count; k++)
			json_array_append_new(tasks, json_task(s, &p->allocs[d->alloc_first + k]));
		/* a run-time limit's ending is kind "timeout", as the daemon's
		 * GET /v1/plan names it (connectors/serve/reason.c): the job
		 * ends for good, an eviction requeues */
		bool timeout = d->kind == FW_DECIDE_EVICT && d->reason == FW_REASON_TIME_LIMIT;
		json_object_set_new(o, "kind", json_string(timeout ? "timeout" : fw_decision_name(d->kind)));
		if (d->job >= 0) {
			json_object_set_new(o, "job", json_string(s->jobs[d->job].name));
			json_object_set_new(o, "queue", json_string(s->queues[s->jobs[d->job].queue].name));
		}
		if (d->node >= 0) /* DRAIN: the node, and the running jobs there */
			json_object_set_new(o, "node", json_string(s->nodes[d->node].name));
		/* DRAIN, DRAINED: node and tasks; TIME_LIMIT: seconds run, limit */
		if (d->kind == FW_DECIDE_DRAIN || d->reason == FW_REASON_DRAINED || d->reason == FW_REASON_TIME_LIMIT)
			json_object_set_new(o, "args", json_pack("[I,I]", (json_int_t)d->a, (json_int_t)d->b));
		json_object_set_new(o, "reason", json_string(fw_reason_name(d->reason)));
		json_object_set_new(o, "at", json_integer(d->at));
		if (d->kind == FW_DECIDE_EVICT && d->reason != FW_REASON_DRAINED && d->reason != FW_REASON_TIME_LIMIT &&
		    d->a >= 0 && d->a < s->njobs)
			json_object_set_new(o, "for", json_string(s->jobs[d->a].name));
		if (d->kind == FW_DECIDE_EVICT) /* seconds of its run since the last checkpoint */
			json_object_set_new(o, "lostWork", json_integer(fw_job_lost_work(s, &s->jobs[d->job], p->now)));
		json_object_set_new(o, "nodes", json_decision_nodes(s, p, d));
		json_object_set_new(o, "tasks", tasks);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* A waiting job under the names of the daemon's GET /v1/plan "pending"
 * entries (connectors/serve/view.c, pending_fields; docs/serve.md):
 * name, queue, reason, reasonText, ahead, reservedAt (a reserved job's
 * start), expectedStart, and with no start known unknownWhy and
 * unknownWhyText; so one jq filter reads both.  "args" (the reason's two
 * numbers) is the offline plan's own.  The texts are this file's
 * (reason_text), the daemon's its own (view.c, waiting_text): the same
 * reasons, worded by each. */
static json_t *json_waiting(const struct fw_snapshot *s, const struct fw_pending *r)
{
	json_t *o = json_object();
	char msg[FW_REASON_TEXT_MAX + FW_NAME_MAX]; /* reason_text: one job named */

	json_object_set_new(o, "name", json_string(s->jobs[r->job].name));
	json_object_set_new(o, "queue", json_string(s->queues[s->jobs[r->job].queue].name));
	json_object_set_new(o, "reason", json_string(fw_reason_name(r->reason)));
	json_object_set_new(o, "args", json_pack("[I,I]", (json_int_t)r->a, (json_int_t)r->b));
	json_object_set_new(o, "reasonText", json_string(reason_text(s, r, msg, sizeof msg)));
	json_object_set_new(o, "ahead", json_integer(r->ahead));
	if (r->reason == FW_REASON_HAS_RESERVATION) /* a: the reservation's start */
		json_object_set_new(o, "reservedAt", json_integer(r->a));
	if (r->expected_start != FW_TIME_UNKNOWN) {
		json_object_set_new(o, "expectedStart", json_integer(r->expected_start));
		return o;
	}
	json_object_set_new(o, "expectedStart", json_null());
	json_object_set_new(o, "unknownWhy", json_string(fw_reason_name(r->unknown_why)));
	json_object_set_new(o, "unknownWhyText", json_string(fw_reason_format_job(s, r->job, r->unknown_why, r->why_a,
										  r->why_b, msg, sizeof msg)));
	return o;
}

static json_t *json_pending(const struct fw_snapshot *s, const struct fw_plan *p)
{
	json_t *arr = json_array();

	for (int32_t i = 0; i < p->npending; i++)
		json_array_append_new(arr, json_waiting(s, &p->pending[i]));
	return arr;
}

static json_t *json_res_vec(const double *v)
{
	json_t *o = json_object();

	for (int r = 0; r < FW_RES_COUNT; r++)
		json_object_set_new(o, fw_res_name(r), json_round(r == FW_RES_GPU ? v[r] / 1000.0 : v[r]));
	return o;
}

static json_t *json_res(struct fw_res x)
{
	double v[FW_RES_COUNT];

	for (int r = 0; r < FW_RES_COUNT; r++)
		v[r] = (double)x.v[r];
	return json_res_vec(v);
}

/* Queue q's entries of a GPU model table as {MODEL: GPUs} under key;
 * none: left out. */
static void model_map(json_t *o, const char *key, const struct fw_model_limit *t, int32_t n, int32_t q)
{
	json_t *m = NULL;

	for (int32_t k = 0; k < n; k++) {
		if (t[k].queue != q)
			continue;
		if (!m)
			m = json_object();
		json_object_set_new(m, t[k].model, json_round(t[k].gpus / 1000.0));
	}
	if (m)
		json_object_set_new(o, key, m);
}

static json_t *json_queues(const struct fw_snapshot *s, const struct fw_plan *p)
{
	json_t *arr = json_array();

	for (int32_t q = 0; q < p->nqueues; q++) {
		const struct fw_queue *qq = &s->queues[q];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(qq->name));
		json_object_set_new(o, "parent", qq->parent >= 0 ? json_string(s->queues[qq->parent].name) : json_null());
		json_object_set_new(o, "deserved", json_res(qq->deserved));
		json_object_set_new(o, "fairShare", json_res_vec(p->queues[q].fair));
		json_object_set_new(o, "guaranteed", json_res_vec(p->queues[q].guaranteed));
		json_object_set_new(o, "overQuotaWeight", json_round(p->queues[q].weight));
		json_object_set_new(o, "overQuotaWeightEffective", json_round(p->queues[q].weight_eff));
		json_object_set_new(o, "allocated", json_res(p->queues[q].allocated));
		json_object_set_new(o, "demand", json_res(p->queues[q].demand));
		json_object_set_new(o, "decayedUsageGpuHours", json_round(p->queues[q].usage / 3600.0));
		model_map(o, "gpuModelLimits", s->model_limits, s->nmodel_limits, q);
		model_map(o, "gpuModelDeserved", s->model_deserved, s->nmodel_deserved, q);
		if (qq->max_runtime_s > 0) /* its own; the binding one is fw_job_limit's */
			json_object_set_new(o, "maxRuntime", json_integer(qq->max_runtime_s));
		if (qq->gpu_hour_budget > 0) /* beside decayedUsageGpuHours, which it caps */
			json_object_set_new(o, "gpuHourBudget", json_round(qq->gpu_hour_budget));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *fw_render_json(const struct fw_snapshot *s, const struct fw_plan *p,
		       const struct fw_policy_ops *pol)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "policy", json_string(pol->name));
	json_object_set_new(o, "at", json_integer(p->now)); /* the plan's time: GET /v1/plan's "at" */
	json_object_set_new(o, "considered", json_integer(p->considered));
	json_object_set_new(o, "decisions", json_decisions(s, p));
	json_object_set_new(o, "pending", json_pending(s, p));
	json_object_set_new(o, "queues", json_queues(s, p));
	json_object_set_new(o, "units", json_pack("{s:s,s:s,s:s}", "gpu", "GPUs", "cpu", "millicores", "mem", "MiB"));
	return o;
}
