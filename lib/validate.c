/*
 * validate.c — structural validation of a snapshot (fw_snapshot_validate).
 *
 * One function per object kind, each stopping at the first problem and
 * naming it by array index; then the running jobs' allocations together,
 * node by node (check_usage: no GPU, CPU or memory booked past the node).  Duplicate names are found by sorting an index
 * array (O(n log n)); the queue tree's acyclicity by walking each queue's
 * parent chain at most nqueues + 1 steps (a cycle is named with its path,
 * fw_queue_cycle, as the YAML loader names it).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/snapshot.h"
#include "fairway/span.h"

#define BAD(d, err, field, ...) fw_diag_set((d), (err), "", 0, 0, (field), __VA_ARGS__)

/* "what[i]" into f (64 bytes) without printf: validation runs on every
 * record of every snapshot, and the name is needed only if one fails. */
static void elem_name(char f[64], const char *what, int32_t i)
{
	char digits[12];
	size_t n = 0, k = 0;
	uint32_t v = i < 0 ? 0u : (uint32_t)i;

	while (what[n] && n < 40) {
		f[n] = what[n];
		n++;
	}
	f[n++] = '[';
	do
		digits[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < sizeof digits);
	while (k)
		f[n++] = digits[--k];
	f[n++] = ']';
	f[n] = 0;
}

static bool time_ok(fw_time t)
{
	return t >= -FW_TIME_MAX && t <= FW_TIME_MAX;
}

static int check_topology(const struct fw_snapshot *s, struct fw_diag *d)
{
	const struct fw_topology *t = &s->topology;

	if (t->nlevels < 0 || t->nlevels > FW_MAX_LEVELS)
		return BAD(d, FW_ERANGE, "topology.levels",
			   "%d levels; use 0 to %d", t->nlevels, FW_MAX_LEVELS);
	for (int i = 0; i < t->nlevels; i++) {
		if (!t->level[i][0] || strcmp(t->level[i], "node") == 0)
			return BAD(d, FW_EINVAL, "topology.levels",
				   "level %d has an empty or reserved name", i);
		for (int k = 0; k < i; k++)
			if (strcmp(t->level[i], t->level[k]) == 0)
				return BAD(d, FW_EEXIST, "topology.levels",
					   "level \"%s\" is listed twice", t->level[i]);
	}
	return FW_OK;
}

struct name_ref {
	const char *name;
	int32_t idx;
};

static int name_cmp(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The same answer as the sort below, by comparing every pair: of the
 * duplicated names the smallest, and its second occurrence.  For a few
 * names (a simulator validates a one-job snapshot per trace row, with
 * every queue) this costs less than an allocation and a sort. */
static int32_t find_duplicate_small(const char *base, size_t stride, int32_t n)
{
	const char *best = NULL;
	int32_t dup = -1;

	for (int32_t j = 1; j < n; j++) {
		const char *b = base + (size_t)j * stride;
		for (int32_t i = 0; i < j; i++) {
			if (strcmp(base + (size_t)i * stride, b) != 0)
				continue;
			if (!best || strcmp(b, best) < 0) /* j ascends: the first j of a name is its second */
				best = b, dup = j;
			break;
		}
	}
	return dup;
}

/* Finds a duplicate among n names spaced `stride` bytes apart.  Returns the
 * index of the second occurrence, -1 if none, -2 on allocation failure. */
static int32_t find_duplicate(const char *base, size_t stride, int32_t n)
{
	struct name_ref *r;
	int32_t dup = -1;

	if (n < 2)
		return -1;
	if (n <= 32)
		return find_duplicate_small(base, stride, n);
	r = malloc((size_t)n * sizeof *r);
	if (!r)
		return -2;
	for (int32_t i = 0; i < n; i++) {
		r[i].name = base + (size_t)i * stride;
		r[i].idx = i;
	}
	qsort(r, (size_t)n, sizeof *r, name_cmp);
	for (int32_t i = 1; i < n && dup < 0; i++)
		if (strcmp(r[i].name, r[i - 1].name) == 0)
			dup = r[i].idx;
	free(r);
	return dup;
}

/* now as "not after now (1000)" writes it: bare seconds, or (utc_times)
 * its UTC date as every time of a Unix clock (span.h). */
static const char *now_text(const struct fw_snapshot *s, char *buf, size_t n)
{
	if (s->config.utc_times)
		return fw_utc_format(s->now, buf, n);
	snprintf(buf, n, "%lld", (long long)s->now);
	return buf;
}

/* A node's departure and return: after now, and back after it leaves;
 * the times as s's clock writes them ("t=4600" or a UTC date). */
static int check_node_times(const struct fw_snapshot *s, const struct fw_node *n, const char *f, struct fw_diag *d)
{
	char a[FW_TIME_TEXT_MAX], b[FW_TIME_TEXT_MAX];
	bool utc = s->config.utc_times;

	if (n->back_at < 0 || (n->back_at > 0 && n->back_at <= s->now))
		return BAD(d, FW_ERANGE, f, "node %s is back at %s, not after now (%s); use 0 for not known",
			   n->name, fw_time_format(n->back_at, utc, a, sizeof a), now_text(s, b, sizeof b));
	if (n->away_at < 0 || (n->away_at > 0 && n->away_at <= s->now))
		return BAD(d, FW_ERANGE, f, "node %s leaves at %s, not after now (%s); use 0 for not leaving",
			   n->name, fw_time_format(n->away_at, utc, a, sizeof a), now_text(s, b, sizeof b));
	if (n->away_at > 0 && n->back_at > 0 && n->back_at <= n->away_at)
		return BAD(d, FW_ERANGE, f, "node %s is back at %s, not after it leaves (%s)", n->name,
			   fw_time_format(n->back_at, utc, a, sizeof a), fw_time_format(n->away_at, utc, b, sizeof b));
	return FW_OK;
}

static int check_node(const struct fw_snapshot *s, int32_t i, struct fw_diag *d)
{
	const struct fw_node *n = &s->nodes[i];
	char f[64];
	int rc;

	elem_name(f, "nodes", i);
	if (!n->name[0])
		return BAD(d, FW_EINVAL, f, "a node needs a name");
	if (n->gpu_count < 0 || n->gpu_count > FW_MAX_GPUS_PER_NODE)
		return BAD(d, FW_ERANGE, f, "node %s has %d GPUs; use 0 to %d",
			   n->name, n->gpu_count, FW_MAX_GPUS_PER_NODE);
	if (n->cpu_milli < 0 || n->mem_mib < 0 || n->gpu_mem_mib < 0)
		return BAD(d, FW_ERANGE, f, "node %s has a negative capacity", n->name);
	if ((unsigned)n->health >= FW_HEALTH_COUNT)
		return BAD(d, FW_ERANGE, f, "node %s has health %d; use a state of health.h",
			   n->name, (int)n->health);
	if ((rc = check_node_times(s, n, f, d)) != FW_OK)
		return rc;
	for (int l = 0; l < s->topology.nlevels; l++)
		if (!n->path[l][0])
			return BAD(d, FW_EINVAL, f,
				   "node %s has no domain for topology level %s",
				   n->name, s->topology.level[l]);
	return FW_OK;
}

static int check_nodes(const struct fw_snapshot *s, struct fw_diag *d)
{
	int32_t dup;
	int rc;

	for (int32_t i = 0; i < s->nnodes; i++)
		if ((rc = check_node(s, i, d)) != FW_OK)
			return rc;
	dup = find_duplicate(s->nnodes ? s->nodes[0].name : "", sizeof(struct fw_node), s->nnodes);
	if (dup == -2)
		return FW_ENOMEM;
	if (dup >= 0) {
		char f[64];
		snprintf(f, sizeof f, "nodes[%d].name", (int)dup);
		return BAD(d, FW_EEXIST, f, "duplicate node \"%s\"; node names must be unique",
			   s->nodes[dup].name);
	}
	return FW_OK;
}

/* Queue i's chain of parents ends at a top-level queue (or at a parent
 * out of range, which that queue's own check names), else it runs into a
 * cycle: FW_ELOOP naming a queue on it (i when i is on it, else the first
 * in the list), with the whole cycle and what to do. */
static int check_ancestry(const struct fw_snapshot *s, int32_t i, struct fw_diag *d)
{
	int32_t p = s->queues[i].parent, on;
	char f[64], chain[256];

	for (int32_t steps = 0; p >= 0 && p < s->nqueues && steps <= s->nqueues; steps++)
		p = s->queues[p].parent;
	if (p < 0 || p >= s->nqueues)
		return FW_OK;
	on = i;
	if (!fw_queue_cycle(s, i, chain, sizeof chain)) { /* i is under it: the cycle's first queue, p on it by now */
		on = p;
		for (int32_t k = s->queues[p].parent; k != p; k = s->queues[k].parent)
			on = k < on ? k : on;
		fw_queue_cycle(s, on, chain, sizeof chain);
	}
	elem_name(f, "queues", on);
	return BAD(d, FW_ELOOP, f,
		   "queue \"%s\" is its own ancestor (%s); break the cycle by making one of these queues top-level "
		   "or giving it another parent", s->queues[on].name, chain);
}

static int check_queue(const struct fw_snapshot *s, int32_t i, struct fw_diag *d)
{
	const struct fw_queue *q = &s->queues[i];
	char f[64];
	int32_t p = q->parent;

	elem_name(f, "queues", i);
	if (!q->name[0])
		return BAD(d, FW_EINVAL, f, "a queue needs a name");
	if (p < -1 || p >= s->nqueues)
		return BAD(d, FW_ENOENT, f, "queue %s has parent index %d out of range", q->name, (int)p);
	for (int r = 0; r < FW_RES_COUNT; r++) {
		if (q->deserved.v[r] < 0)
			return BAD(d, FW_ERANGE, f, "queue %s: negative %s quota", q->name, fw_res_name(r));
		if (q->limit.v[r] < FW_UNLIMITED)
			return BAD(d, FW_ERANGE, f, "queue %s: %s limit below -1", q->name, fw_res_name(r));
		if (!(q->over_quota_weight[r] >= 0))
			return BAD(d, FW_ERANGE, f, "queue %s: negative %s overQuotaWeight", q->name, fw_res_name(r));
	}
	if (q->min_runtime_s < 0 || q->default_runtime_s < 0 || q->default_checkpoint_s < 0 || q->max_runtime_s < 0)
		return BAD(d, FW_ERANGE, f,
			   "queue %s: negative minRuntime, defaultRuntime, maxRuntime or defaultCheckpointInterval", q->name);
	if (!(q->gpu_hour_budget >= 0 && q->gpu_hour_budget <= FW_BUDGET_MAX_GPU_H))
		return BAD(d, FW_ERANGE, f, "queue %s: gpuHourBudget %g outside 0..%g GPU-hours (0 = none)", q->name,
			   q->gpu_hour_budget, FW_BUDGET_MAX_GPU_H);
	if (!time_ok(q->min_runtime_s) || !time_ok(q->default_runtime_s) || !time_ok(q->default_checkpoint_s) ||
	    !time_ok(q->max_runtime_s) || !time_ok(q->usage_at))
		return BAD(d, FW_ERANGE, f, "queue %s: a time or duration beyond 2^61 s", q->name);
	return check_ancestry(s, i, d);
}

static int check_queues(const struct fw_snapshot *s, struct fw_diag *d)
{
	int32_t dup;
	int rc;

	for (int32_t i = 0; i < s->nqueues; i++)
		if ((rc = check_queue(s, i, d)) != FW_OK)
			return rc;
	dup = find_duplicate(s->nqueues ? s->queues[0].name : "", sizeof(struct fw_queue), s->nqueues);
	if (dup == -2)
		return FW_ENOMEM;
	if (dup >= 0) {
		char f[64];
		snprintf(f, sizeof f, "queues[%d].name", (int)dup);
		return BAD(d, FW_EEXIST, f, "duplicate queue \"%s\"", s->queues[dup].name);
	}
	return FW_OK;
}

/* A table of GPU model entries (model_limits, model_deserved): each
 * names a queue and a model, at most one per queue and model. */
static int check_model_table(const struct fw_snapshot *s, struct fw_diag *d, const struct fw_model_limit *t,
			     int32_t n, const char *table, const char *what, const char *whats)
{
	char f[64];

	for (int32_t i = 0; i < n; i++) {
		const struct fw_model_limit *m = &t[i];
		elem_name(f, table, i);
		if (m->queue < 0 || m->queue >= s->nqueues)
			return BAD(d, FW_ENOENT, f, "GPU model %s %d names queue index %d, out of range", what, (int)i,
				   (int)m->queue);
		if (!m->model[0] || !memchr(m->model, 0, FW_NAME_MAX))
			return BAD(d, FW_EINVAL, f, "queue %s: a GPU model %s names no model", s->queues[m->queue].name,
				   what);
		if (m->gpus < 0)
			return BAD(d, FW_ERANGE, f, "queue %s: negative %s on GPU model %s", s->queues[m->queue].name,
				   what, m->model);
		for (int32_t k = 0; k < i; k++)
			if (t[k].queue == m->queue && strcmp(t[k].model, m->model) == 0)
				return BAD(d, FW_EEXIST, f, "queue %s: two %s on GPU model %s", s->queues[m->queue].name,
					   whats, m->model);
	}
	return FW_OK;
}

/* A queue deserves GPUs of some models out of its deserved GPUs: their
 * sum is at most its `deserved` GPUs. */
static int check_deserved_sums(const struct fw_snapshot *s, struct fw_diag *d)
{
	char f[64];

	for (int32_t i = 0; i < s->nmodel_deserved; i++) {
		int32_t q = s->model_deserved[i].queue;
		int64_t sum = 0;
		bool first = true;
		for (int32_t k = 0; k < s->nmodel_deserved; k++) {
			if (s->model_deserved[k].queue != q)
				continue;
			first = first && k >= i;
			sum += s->model_deserved[k].gpus;
		}
		if (!first || sum <= s->queues[q].deserved.v[FW_RES_GPU])
			continue;
		elem_name(f, "model_deserved", i);
		return BAD(d, FW_ERANGE, f,
			   "queue %s deserves %lld milli-GPU of named GPU models, more than its deserved %lld milli-GPU",
			   s->queues[q].name, (long long)sum, (long long)s->queues[q].deserved.v[FW_RES_GPU]);
	}
	return FW_OK;
}

/* GPU model limits and deserved GPUs of a model; they tell models apart
 * in a 64-bit set (modellimit.c), so a fleet with any has at most 64 GPU
 * models. */
static int check_model_limits(const struct fw_snapshot *s, struct fw_diag *d)
{
	const char *seen[FW_MAX_LIMITED_MODELS + 1];
	int n = 0, rc;

	rc = check_model_table(s, d, s->model_limits, s->nmodel_limits, "model_limits", "limit", "limits");
	if (rc == FW_OK)
		rc = check_model_table(s, d, s->model_deserved, s->nmodel_deserved, "model_deserved", "deserved",
				       "deserved entries");
	if (rc == FW_OK)
		rc = check_deserved_sums(s, d);
	if (rc != FW_OK)
		return rc;
	for (int32_t i = 0; s->nmodel_limits + s->nmodel_deserved > 0 && i < s->nnodes; i++) {
		int k = 0;
		if (!s->nodes[i].gpu_count)
			continue;
		while (k < n && strcmp(seen[k], s->nodes[i].gpu_model) != 0)
			k++;
		if (k < n)
			continue;
		if (n == FW_MAX_LIMITED_MODELS)
			return BAD(d, FW_ERANGE, "nodes",
				   "more than %d GPU models in a fleet whose queues have GPU model limits or deserved GPUs "
				   "of a model",
				   FW_MAX_LIMITED_MODELS);
		seen[n++] = s->nodes[i].gpu_model;
	}
	return FW_OK;
}

/* Users' usage: a queue that exists, a usage that is a number >= 0, a
 * time in range, a user name that ends. */
static int check_user_usage(const struct fw_snapshot *s, struct fw_diag *d)
{
	char f[64];

	for (int32_t i = 0; i < s->nuser_usage; i++) {
		const struct fw_user_usage *u = &s->user_usage[i];
		elem_name(f, "user_usage", i);
		if (u->queue < 0 || u->queue >= s->nqueues)
			return BAD(d, FW_ENOENT, f, "usage of user %.63s names queue index %d, out of range", u->user,
				   (int)u->queue);
		if (!memchr(u->user, 0, FW_NAME_MAX))
			return BAD(d, FW_EINVAL, f, "a user name of %d bytes or more", FW_NAME_MAX);
		if (!(u->usage >= 0) || !isfinite(u->usage))
			return BAD(d, FW_ERANGE, f, "queue %s, user %s: usage must be a number >= 0", s->queues[u->queue].name,
				   u->user);
		if (!time_ok(u->usage_at))
			return BAD(d, FW_ERANGE, f, "queue %s, user %s: a time beyond 2^61 s", s->queues[u->queue].name,
				   u->user);
	}
	return FW_OK;
}

static int check_level(const struct fw_snapshot *s, int lvl)
{
	return lvl == FW_LEVEL_NONE || lvl == FW_LEVEL_NODE ||
	       (lvl >= 0 && lvl < s->topology.nlevels);
}

static int check_group(const struct fw_task_group *t, const char *f, struct fw_diag *d)
{
	if (t->count < 1)
		return BAD(d, FW_ERANGE, f, "a task group needs count >= 1");
	if (t->gpus < 0 || t->gpus > FW_MAX_GPUS_PER_NODE)
		return BAD(d, FW_ERANGE, f, "gpus per task must be 0..%d", FW_MAX_GPUS_PER_NODE);
	if (t->gpus > 0 && (t->gpu_milli < 1 || t->gpu_milli > 1000))
		return BAD(d, FW_ERANGE, f, "gpu fraction must be 1..1000 milli");
	if (t->gpus > 1 && t->gpu_milli != 1000)
		return BAD(d, FW_EINVAL, f, "a fractional GPU request needs gpus == 1");
	if (t->cpu_milli < 0 || t->mem_mib < 0)
		return BAD(d, FW_ERANGE, f, "negative cpu or memory request");
	return FW_OK;
}

static int check_allocs(const struct fw_snapshot *s, const struct fw_job *j,
			const char *f, struct fw_diag *d)
{
	if (j->alloc_first < 0 || j->alloc_count < 1 ||
	    j->alloc_first > s->nallocs - j->alloc_count)
		return BAD(d, FW_EINVAL, f, "running job %s has no valid allocation range", j->name);
	for (int32_t k = 0; k < j->alloc_count; k++) {
		const struct fw_task_alloc *a = &s->allocs[j->alloc_first + k];
		if (a->node < 0 || a->node >= s->nnodes)
			return BAD(d, FW_ENOENT, f, "running job %s: allocation on unknown node", j->name);
		if (a->group < 0 || a->group >= j->ngroups)
			return BAD(d, FW_ERANGE, f, "running job %s: allocation names group %d", j->name, a->group);
		const struct fw_node *n = &s->nodes[a->node];
		uint32_t all = n->gpu_count >= 32 ? 0xffffffffu : ((1u << n->gpu_count) - 1);
		if (a->gpu_mask & ~all)
			return BAD(d, FW_ERANGE, f, "running job %s: GPU index beyond node %s's %d GPUs",
				   j->name, n->name, n->gpu_count);
		if (__builtin_popcount(a->gpu_mask) != j->groups[a->group].gpus)
			return BAD(d, FW_EINVAL, f, "running job %s: a task holds %d GPUs, its group asks %d",
				   j->name, __builtin_popcount(a->gpu_mask), j->groups[a->group].gpus);
		if (a->gpu_mask && (a->gpu_milli < 1 || a->gpu_milli > 1000))
			return BAD(d, FW_ERANGE, f, "running job %s: gpu milli out of range", j->name);
	}
	return FW_OK;
}

static int check_job(const struct fw_snapshot *s, int32_t i, const char *leaf,
		     struct fw_diag *d)
{
	const struct fw_job *j = &s->jobs[i];
	char f[64];
	int64_t tasks = 0;
	int rc;

	elem_name(f, "jobs", i);
	if (!j->name[0])
		return BAD(d, FW_EINVAL, f, "a job needs a name");
	if (j->queue < 0 || j->queue >= s->nqueues)
		return BAD(d, FW_ENOENT, f, "job %s has no valid queue", j->name);
	if (!leaf[j->queue])
		return BAD(d, FW_EINVAL, f, "job %s is on queue %s, which has child queues; submit to a leaf queue",
			   j->name, s->queues[j->queue].name);
	if (j->ngroups < 1 || j->ngroups > FW_MAX_GROUPS)
		return BAD(d, FW_ERANGE, f, "job %s has %d task groups; use 1 to %d", j->name, j->ngroups, FW_MAX_GROUPS);
	for (int g = 0; g < j->ngroups; g++) {
		if ((rc = check_group(&j->groups[g], f, d)) != FW_OK)
			return rc;
		tasks += j->groups[g].count;
	}
	if (tasks > FW_MAX_TASKS) /* fw_job_tasks() is int32; placement sizes by it */
		return BAD(d, FW_ERANGE, f, "job %s has %lld tasks; use at most %d", j->name, (long long)tasks,
			   FW_MAX_TASKS);
	if (j->min_member < 0 || j->min_member > fw_job_tasks(j))
		return BAD(d, FW_ERANGE, f, "job %s: minMember %d outside 0..%d", j->name, (int)j->min_member, (int)fw_job_tasks(j));
	if (!check_level(s, j->required_level) || !check_level(s, j->preferred_level))
		return BAD(d, FW_EINVAL, f, "job %s names an unknown topology level", j->name);
	if (j->checkpoint_s < 0)
		return BAD(d, FW_ERANGE, f, "job %s: checkpoint interval %lld s is negative; 0 means none",
			   j->name, (long long)j->checkpoint_s);
	if (j->max_runtime_s < 0)
		return BAD(d, FW_ERANGE, f, "job %s: run-time limit %lld s is negative; 0 means none",
			   j->name, (long long)j->max_runtime_s);
	if (!time_ok(j->submit_time) || !time_ok(j->start_time) || !time_ok(j->expected_runtime))
		return BAD(d, FW_ERANGE, f, "job %s: a time or duration beyond 2^61 s", j->name);
	if (j->state == FW_JOB_RUNNING)
		return check_allocs(s, j, f, d);
	if (j->state != FW_JOB_PENDING)
		return BAD(d, FW_EINVAL, f, "job %s has an unknown state", j->name);
	return FW_OK;
}

static int check_jobs(const struct fw_snapshot *s, struct fw_diag *d)
{
	char *leaf = malloc((size_t)s->nqueues + 1);
	int rc = FW_OK;

	if (!leaf)
		return FW_ENOMEM;
	memset(leaf, 1, (size_t)s->nqueues + 1);
	for (int32_t q = 0; q < s->nqueues; q++)
		if (s->queues[q].parent >= 0)
			leaf[s->queues[q].parent] = 0;
	for (int32_t i = 0; i < s->njobs && rc == FW_OK; i++)
		rc = check_job(s, i, leaf, d);
	free(leaf);
	if (rc == FW_OK) {
		int32_t dup = find_duplicate(s->njobs ? s->jobs[0].name : "", sizeof(struct fw_job), s->njobs);
		if (dup == -2)
			return FW_ENOMEM;
		if (dup >= 0) {
			char f[64];
			snprintf(f, sizeof f, "jobs[%d].name", (int)dup);
			return BAD(d, FW_EEXIST, f, "duplicate job \"%s\"", s->jobs[dup].name);
		}
	}
	return rc;
}

/* One filter's range, kind and list: a valid range of ascending,
 * distinct, valid node indices.  tab[i] names it in d. */
static int check_list(const struct fw_snapshot *s, const char *tab, int32_t i, int32_t job, int32_t first,
		      int32_t count, int32_t except, struct fw_diag *d)
{
	char f[64];

	snprintf(f, sizeof f, "%s[%d]", tab, (int)i);
	if (count < 1 || first < 0 || first > s->nnode_refs - count)
		return BAD(d, FW_EINVAL, f, "job %s: node filter range outside node_refs", s->jobs[job].name);
	if (except != 0 && except != 1)
		return BAD(d, FW_EINVAL, f, "job %s: except is %d, not 0 or 1", s->jobs[job].name, (int)except);
	snprintf(f, sizeof f, "%s[%d].nodes", tab, (int)i);
	for (int32_t k = 0; k < count; k++) {
		int32_t n = s->node_refs[first + k];
		if (n < 0 || n >= s->nnodes)
			return BAD(d, FW_ENOENT, f, "job %s: node filter names node %d, not in the snapshot",
				   s->jobs[job].name, (int)n);
		if (k > 0 && n <= s->node_refs[first + k - 1])
			return BAD(d, FW_EINVAL, f, "job %s: node filter not ascending and distinct at %s",
				   s->jobs[job].name, s->nodes[n].name);
	}
	return FW_OK;
}

/* Node filters: by ascending job, one per job, each list sound. */
static int check_job_nodes(const struct fw_snapshot *s, struct fw_diag *d)
{
	char f[64];
	int rc;

	if (s->njob_nodes < 0 || s->nnode_refs < 0 || (s->njob_nodes > 0 && (!s->job_nodes || !s->node_refs)))
		return BAD(d, FW_EINVAL, "job_nodes", "node filters without their arrays");
	for (int32_t i = 0; i < s->njob_nodes; i++) {
		const struct fw_job_nodes *e = &s->job_nodes[i];
		snprintf(f, sizeof f, "job_nodes[%d]", (int)i);
		if (e->job < 0 || e->job >= s->njobs)
			return BAD(d, FW_ENOENT, f, "node filter for job %d, which is not in the snapshot", (int)e->job);
		if (i > 0 && e->job <= s->job_nodes[i - 1].job)
			return BAD(d, FW_EINVAL, f, "node filters must be by ascending job, one per job (job %s)",
				   s->jobs[e->job].name);
		if ((rc = check_list(s, "job_nodes", i, e->job, e->first, e->count, e->except, d)) != FW_OK)
			return rc;
	}
	return FW_OK;
}

/* Group filters: by ascending job then group, one per group of its job,
 * each list sound. */
static int check_group_nodes(const struct fw_snapshot *s, struct fw_diag *d)
{
	char f[64];
	int rc;

	if (s->ngroup_nodes < 0 || (s->ngroup_nodes > 0 && (!s->group_nodes || !s->node_refs)))
		return BAD(d, FW_EINVAL, "group_nodes", "group filters without their arrays");
	for (int32_t i = 0; i < s->ngroup_nodes; i++) {
		const struct fw_group_nodes *e = &s->group_nodes[i], *o = i > 0 ? e - 1 : NULL;
		snprintf(f, sizeof f, "group_nodes[%d]", (int)i);
		if (e->job < 0 || e->job >= s->njobs)
			return BAD(d, FW_ENOENT, f, "group filter for job %d, which is not in the snapshot", (int)e->job);
		if (o && (e->job < o->job || (e->job == o->job && e->group <= o->group)))
			return BAD(d, FW_EINVAL, f, "group filters must be by ascending job, then group, one per group "
				   "(job %s)", s->jobs[e->job].name);
		snprintf(f, sizeof f, "group_nodes[%d].group", (int)i);
		if (e->group < 0 || e->group >= s->jobs[e->job].ngroups)
			return BAD(d, FW_ENOENT, f, "job %s has %d task groups, and a filter names group %d",
				   s->jobs[e->job].name, s->jobs[e->job].ngroups, (int)e->group);
		if ((rc = check_list(s, "group_nodes", i, e->job, e->first, e->count, e->except, d)) != FW_OK)
			return rc;
	}
	return FW_OK;
}

/* Slices: by ascending job then group, one per group of its job, each a
 * size that divides the group's count and a level of the topology. */
static int check_slices(const struct fw_snapshot *s, struct fw_diag *d)
{
	char f[64];

	if (s->nslices < 0 || (s->nslices > 0 && !s->slices))
		return BAD(d, FW_EINVAL, "slices", "slices without their array");
	for (int32_t i = 0; i < s->nslices; i++) {
		const struct fw_group_slice *e = &s->slices[i], *o = i > 0 ? e - 1 : NULL;
		snprintf(f, sizeof f, "slices[%d]", (int)i);
		if (e->job < 0 || e->job >= s->njobs)
			return BAD(d, FW_ENOENT, f, "slices for job %d, which is not in the snapshot", (int)e->job);
		const struct fw_job *j = &s->jobs[e->job];
		if (o && (e->job < o->job || (e->job == o->job && e->group <= o->group)))
			return BAD(d, FW_EINVAL, f, "slices must be by ascending job, then group, one per group (job %s)",
				   j->name);
		snprintf(f, sizeof f, "slices[%d].group", (int)i);
		if (e->group < 0 || e->group >= j->ngroups)
			return BAD(d, FW_ENOENT, f, "job %s has %d task groups, and slices name group %d", j->name,
				   j->ngroups, (int)e->group);
		snprintf(f, sizeof f, "slices[%d].tasks", (int)i);
		if (e->tasks < 1 || j->groups[e->group].count % e->tasks != 0)
			return BAD(d, FW_EINVAL, f, "job %s: slices of %d tasks for a group of %d; the size must "
				   "divide the group's count", j->name, (int)e->tasks, (int)j->groups[e->group].count);
		snprintf(f, sizeof f, "slices[%d].level", (int)i);
		if (e->level != FW_LEVEL_NODE && (e->level < 0 || e->level >= s->topology.nlevels))
			return BAD(d, FW_ERANGE, f, "job %s: slice level %d; the topology has %d levels", j->name,
				   (int)e->level, s->topology.nlevels);
	}
	return FW_OK;
}

/* Book one running task on its node (milli per GPU, CPU, memory), or
 * name the job, the node and what the task overbooks.  The books come
 * from check_usage(). */
static int book(const struct fw_snapshot *s, int32_t i, const struct fw_task_alloc *a, int32_t *milli,
		int64_t *cpu, int64_t *mem, struct fw_diag *d)
{
	const struct fw_job *j = &s->jobs[i];
	const struct fw_node *n = &s->nodes[a->node];
	const struct fw_task_group *t = &j->groups[a->group];
	int32_t *m = milli + (size_t)a->node * FW_MAX_GPUS_PER_NODE;
	char f[64];

	elem_name(f, "jobs", i);
	for (int g = 0; g < n->gpu_count; g++)
		if ((a->gpu_mask & (1u << g)) && m[g] + a->gpu_milli > 1000)
			return BAD(d, FW_EBUSY, f,
				   "running job %s: GPU %d of node %s is already held by running tasks "
				   "(%d milli taken, this task adds %d; a GPU has 1000): the GPU is booked twice",
				   j->name, g, n->name, (int)m[g], (int)a->gpu_milli);
	if (t->cpu_milli > n->cpu_milli - cpu[a->node]) /* no overflow: both sides <= the capacity */
		return BAD(d, FW_EBUSY, f,
			   "running job %s: a task on node %s needs %lld CPU millicores and the running tasks "
			   "before it leave %lld of the node's %lld: the node is overbooked",
			   j->name, n->name, (long long)t->cpu_milli, (long long)(n->cpu_milli - cpu[a->node]),
			   (long long)n->cpu_milli);
	if (t->mem_mib > n->mem_mib - mem[a->node])
		return BAD(d, FW_EBUSY, f,
			   "running job %s: a task on node %s needs %lld MiB of memory and the running tasks "
			   "before it leave %lld of the node's %lld: the node is overbooked",
			   j->name, n->name, (long long)t->mem_mib, (long long)(n->mem_mib - mem[a->node]),
			   (long long)n->mem_mib);
	for (int g = 0; g < n->gpu_count; g++)
		if (a->gpu_mask & (1u << g))
			m[g] += a->gpu_milli;
	cpu[a->node] += t->cpu_milli;
	mem[a->node] += t->mem_mib;
	return FW_OK;
}

/* The running jobs together fit every node: no GPU holds more than 1000
 * milli (a whole GPU named by two tasks, or fractions that add up past
 * one), and no node's CPU or memory is exceeded.  The cycle derives free
 * capacity from these allocations (lib/domain.c) and would otherwise
 * count negative room.  Runs after check_jobs (indices are valid); the
 * job reported is the first whose task overbooks, in snapshot order. */
static int check_usage(const struct fw_snapshot *s, struct fw_diag *d)
{
	int32_t *milli;
	int64_t *cpu, *mem;
	int rc = FW_OK;

	if (s->nallocs == 0)
		return FW_OK;
	milli = calloc((size_t)s->nnodes * FW_MAX_GPUS_PER_NODE + 1, sizeof *milli);
	cpu = calloc((size_t)s->nnodes + 1, sizeof *cpu);
	mem = calloc((size_t)s->nnodes + 1, sizeof *mem);
	if (!milli || !cpu || !mem)
		rc = FW_ENOMEM;
	for (int32_t i = 0; i < s->njobs && rc == FW_OK; i++) {
		const struct fw_job *j = &s->jobs[i];
		if (j->state != FW_JOB_RUNNING)
			continue;
		for (int32_t k = 0; k < j->alloc_count && rc == FW_OK; k++)
			rc = book(s, i, &s->allocs[j->alloc_first + k], milli, cpu, mem, d);
	}
	free(milli);
	free(cpu);
	free(mem);
	return rc;
}

static int check_config(const struct fw_snapshot *s, struct fw_diag *d)
{
	if (s->config.reserve_depth > FW_RESERVE_DEPTH_MAX)
		return BAD(d, FW_ERANGE, "config.reserve_depth", "%d reservations per cycle; at most %d",
			   (int)s->config.reserve_depth, FW_RESERVE_DEPTH_MAX);
	if (s->config.estimate_depth > FW_ESTIMATE_DEPTH_MAX)
		return BAD(d, FW_ERANGE, "config.estimate_depth",
			   "%d jobs whose estimates count the jobs ahead; at most %d (< 0: none)",
			   (int)s->config.estimate_depth, FW_ESTIMATE_DEPTH_MAX);
	if (s->config.xfactor_cap_s > 0 && (s->config.xfactor_cap_s < FW_XFACTOR_MIN_RUNTIME ||
					    s->config.xfactor_cap_s > FW_XFACTOR_CAP_MAX))
		return BAD(d, FW_ERANGE, "config.xfactor_cap_s", "%lld s; 0 (the policy's), < 0 (off) or %d to %d s",
			   (long long)s->config.xfactor_cap_s, FW_XFACTOR_MIN_RUNTIME, FW_XFACTOR_CAP_MAX);
	return FW_OK;
}

int fw_snapshot_validate(const struct fw_snapshot *s, struct fw_diag *d)
{
	int rc;

	if ((rc = check_config(s, d)) != FW_OK)
		return rc;
	if (!time_ok(s->now))
		return BAD(d, FW_ERANGE, "now", "now is %lld, beyond 2^61 s", (long long)s->now);
	if ((rc = check_topology(s, d)) != FW_OK)
		return rc;
	if ((rc = check_nodes(s, d)) != FW_OK)
		return rc;
	if ((rc = check_queues(s, d)) != FW_OK || (rc = check_model_limits(s, d)) != FW_OK ||
	    (rc = check_user_usage(s, d)) != FW_OK)
		return rc;
	if ((rc = check_jobs(s, d)) != FW_OK)
		return rc;
	if ((rc = check_job_nodes(s, d)) != FW_OK)
		return rc;
	if ((rc = check_group_nodes(s, d)) != FW_OK || (rc = check_slices(s, d)) != FW_OK)
		return rc;
	return check_usage(s, d);
}
