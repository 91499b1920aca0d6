/*
 * builder.h — compact snapshot construction for unit tests.
 */
#ifndef FAIRWAY_TEST_BUILDER_H
#define FAIRWAY_TEST_BUILDER_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/fairway.h"

static inline void tb_levels(struct fw_snapshot *s, int n, const char **names)
{
	s->topology.nlevels = n;
	for (int i = 0; i < n; i++)
		snprintf(s->topology.level[i], FW_NAME_MAX, "%s", names[i]);
}

/* path: up to 8 domain names, NULL-terminated. */
static inline int tb_node(struct fw_snapshot *s, const char *name, int gpus, const char *model,
			  const char *p0, const char *p1, const char *p2)
{
	struct fw_node n;
	const char *p[3] = { p0, p1, p2 };

	fw_node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", name);
	snprintf(n.gpu_model, sizeof n.gpu_model, "%s", model ? model : "H100");
	n.gpu_count = gpus;
	n.cpu_milli = 128000;
	n.mem_mib = 1 << 20;
	for (int i = 0; i < 3; i++)
		if (p[i])
			snprintf(n.path[i], FW_NAME_MAX, "%s", p[i]);
	return fw_snapshot_add_node(s, &n);
}

static inline int tb_queue(struct fw_snapshot *s, const char *name, int parent, double quota_gpus,
			   double limit_gpus, double weight)
{
	struct fw_queue q;

	fw_queue_init(&q);
	snprintf(q.name, sizeof q.name, "%s", name);
	q.parent = parent;
	q.deserved.v[FW_RES_GPU] = (int64_t)(quota_gpus * 1000);
	q.limit.v[FW_RES_GPU] = limit_gpus < 0 ? FW_UNLIMITED : (int64_t)(limit_gpus * 1000);
	for (int r = 0; r < FW_RES_COUNT; r++)
		q.over_quota_weight[r] = weight;
	return fw_snapshot_add_queue(s, &q);
}

/* A pending job of `tasks` tasks with `gpus` GPUs each (milli per GPU). */
static inline int tb_job(struct fw_snapshot *s, const char *name, int queue, int tasks, int gpus,
			 int milli, fw_time submit)
{
	struct fw_job j;

	fw_job_init(&j);
	snprintf(j.name, sizeof j.name, "%s", name);
	j.queue = queue;
	j.groups[0].count = tasks;
	j.groups[0].gpus = gpus;
	j.groups[0].gpu_milli = milli;
	j.submit_time = submit;
	return fw_snapshot_add_job(s, &j);
}

/* 2 racks ("ra": a0 a1, "rb": b0 b1) x 8 GPUs, one queue "q" of 32 GPUs. */
static inline struct fw_snapshot *tb_two_racks(void)
{
	struct fw_snapshot *s = fw_snapshot_new();
	const char *lv[] = { "rack" };

	tb_levels(s, 1, lv);
	tb_node(s, "a0", 8, NULL, "ra", NULL, NULL);
	tb_node(s, "a1", 8, NULL, "ra", NULL, NULL);
	tb_node(s, "b0", 8, NULL, "rb", NULL, NULL);
	tb_node(s, "b1", 8, NULL, "rb", NULL, NULL);
	tb_queue(s, "q", -1, 32, -1, 1);
	return s;
}

/* Mark job j running with one task per listed node, taking the GPUs in
 * mask on each. */
static inline void tb_run(struct fw_snapshot *s, int j, int nnodes, const int *nodes, uint32_t mask)
{
	struct fw_job *job = &s->jobs[j];

	job->state = FW_JOB_RUNNING;
	job->alloc_first = s->nallocs;
	job->alloc_count = nnodes;
	for (int i = 0; i < nnodes; i++) {
		struct fw_task_alloc a;
		memset(&a, 0, sizeof a); /* its padding too: tests memcmp plans' tasks */
		a.node = nodes[i];
		a.gpu_mask = mask;
		a.gpu_milli = job->groups[0].gpu_milli;
		fw_snapshot_add_alloc(s, &a);
	}
}

/* A (queue, GPU model, GPUs) entry, as snapshot.model_limits and
 * .model_deserved hold. */
static inline struct fw_model_limit tb_model_entry(int q, const char *model, double gpus)
{
	struct fw_model_limit m = { .queue = q, .gpus = (int64_t)(gpus * 1000) };

	snprintf(m.model, sizeof m.model, "%s", model);
	return m;
}

/* Job j's first group asks for GPU model `model`; returns j. */
static inline int tb_named(struct fw_snapshot *s, int j, const char *model)
{
	snprintf(s->jobs[j].groups[0].gpu_model, FW_NAME_MAX, "%s", model);
	return j;
}

/* One cycle of policy (NULL: the default) on s in arena a, reset first:
 * the snapshot validated and the plan checked, each failure said on
 * stderr; the plan, or NULL. */
static inline struct fw_plan *tb_plan(const struct fw_snapshot *s, const char *policy, struct fw_arena *a)
{
	struct fw_plan *p = NULL;
	struct fw_diag d;
	const struct fw_policy_ops *pol = policy ? fw_policy_find(policy) : NULL;

	fw_arena_reset(a);
	if (fw_snapshot_validate(s, &d) != FW_OK) {
		fprintf(stderr, "invalid snapshot: %s: %s\n", d.field, d.msg);
		return NULL;
	}
	if (fw_cycle_run(s, pol, a, &p) != FW_OK)
		return NULL;
	if (fw_plan_check(s, p, a, &d) != FW_OK) {
		fprintf(stderr, "invariant: %s: %s\n", d.field, d.msg);
		return NULL;
	}
	return p;
}

/* Is s's plan under policy the same, decisions and pending entries byte
 * for byte, when made again?  p is the first plan, in a (which the
 * second run resets: p is copied first).  Same input, same plan. */
static inline bool tb_replans_same(const struct fw_snapshot *s, const char *policy, const struct fw_plan *p,
				   struct fw_arena *a)
{
	int32_t nd = p->ndecisions, np = p->npending;
	struct fw_decision *dec = malloc(sizeof *dec * (size_t)(nd + 1));
	struct fw_pending *pen = malloc(sizeof *pen * (size_t)(np + 1));
	bool same = dec && pen;

	if (same) {
		memcpy(dec, p->decisions, sizeof *dec * (size_t)nd);
		memcpy(pen, p->pending, sizeof *pen * (size_t)np);
		const struct fw_plan *q = tb_plan(s, policy, a);
		same = q && q->ndecisions == nd && q->npending == np &&
		       memcmp(dec, q->decisions, sizeof *dec * (size_t)nd) == 0 &&
		       memcmp(pen, q->pending, sizeof *pen * (size_t)np) == 0;
	}
	free(dec);
	free(pen);
	return same;
}

/* The plan's first decision about job, NULL when none. */
static inline const struct fw_decision *tb_decision(const struct fw_plan *p, int job)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].job == job)
			return &p->decisions[i];
	return NULL;
}

/* Decisions of kind k with reason r (FW_REASON_NONE: any reason). */
static inline int tb_count(const struct fw_plan *p, enum fw_decision_kind k, enum fw_reason r)
{
	int n = 0;
	for (int i = 0; i < p->ndecisions; i++)
		n += p->decisions[i].kind == k && (r == FW_REASON_NONE || p->decisions[i].reason == r);
	return n;
}

/* The plan's first decision of kind k about job, NULL when none. */
static inline const struct fw_decision *tb_find(const struct fw_plan *p, int job, enum fw_decision_kind k)
{
	for (int i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].job == job && p->decisions[i].kind == k)
			return &p->decisions[i];
	return NULL;
}

/* xorshift32: the random snapshots' generator. */
static inline uint32_t tb_xs32(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

#endif
