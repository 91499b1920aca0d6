/*
 * fuzz_cycle.c — libFuzzer target for the core: any bytes become a small
 * valid snapshot, and every registered policy's cycle on it must keep the
 * engine's promises.
 *
 * The bytes are read as a stream of choices (a byte past the end reads
 * 0; never two reads in one call's arguments, whose order C leaves
 * open, so gcc's replay and clang's fuzzer decode alike): the
 * topology's levels, 1..12 nodes (GPU count, model, domains, health,
 * cordon, back_at for one out of service, away_at (and back_at or not)
 * for one in service, bad and suspect GPUs), a root
 * with up to two middle queues
 * (deserved, limit, budget) and 1..4 leaf queues under either
 * (deserved, limit, priority, weight, usage, GPU-hour budget,
 * preemptible, min/max runtime, checkpoint interval), 0..23 jobs
 * (groups, tasks, whole or fractional GPUs, model, topology levels,
 * priority, runtime, limits, checkpoint, user, preemptible) of which
 * some run on GPUs the stream picks among those free, node filters of
 * jobs and groups, slices, elastic gangs, a GPU model limit or deserved
 * entry, users' past usage, and the scheduler settings (budgetSafe,
 * estimates, backfill mode, starvation age, reservations, starts per
 * cycle, checkpoint grace, user fair share).  A snapshot
 * fw_snapshot_validate refuses is dropped (the decoder aims at valid
 * ones; the refusals are its misses, not findings).  Then, for every
 * policy in the registry:
 *   - fw_cycle_run returns FW_OK;
 *   - fw_plan_check, the independent checker (lib/check.c), finds no
 *     broken invariant: no GPU given twice, no reservation delayed by a
 *     backfill, quotas, limits, budgets, protected and non-preemptible
 *     jobs, estimates no sooner than their floors...;
 *   - the same snapshot planned again gives the same plan, byte for byte;
 *   - planned with no estimate depth (config.estimate_depth < 0), the
 *     same decisions and tasks: the jobs ahead change estimates only.
 * Any failure aborts, with the checker's words on stderr.  Replayed as
 * fuzz_replay_cycle over tests/fuzz/corpus/cycle in every test run; the
 * corpus holds seeds and whatever a fuzzing run found worth keeping.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "unit/builder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const MODELS[] = { "H100", "A100" };

static void add_nodes(struct bytes *b, struct fw_snapshot *s)
{
	static const char *const lv[] = { "block", "rack" };
	int nl = (int)pick(b, 3), nn = 1 + (int)pick(b, 12);

	tb_levels(s, nl, (const char **)lv);
	for (int i = 0; i < nn; i++) {
		char name[16], blk[16], rack[16];
		unsigned r = u8(b);
		snprintf(name, sizeof name, "n%d", i);
		snprintf(blk, sizeof blk, "b%u", r % 2);
		snprintf(rack, sizeof rack, "r%u", r % 2 * 2 + (r >> 1) % 2);
		int k = tb_node(s, name, (int)(u8(b) % 5 ? 8 : pick(b, 9)), MODELS[r >> 2 & 1], nl > 0 ? blk : NULL,
				nl > 1 ? rack : NULL, NULL);
		struct fw_node *n = &s->nodes[k];
		unsigned h = u8(b);
		n->health = h % 11 == 0 ? FW_HEALTH_UNHEALTHY : h % 13 == 0 ? FW_HEALTH_DRAINING :
			    h % 7 == 0 ? FW_HEALTH_SUSPECT : FW_HEALTH_HEALTHY;
		n->schedulable = h % 17 != 0;
		n->lemon = h % 19 == 0;
		if ((!n->schedulable || n->health == FW_HEALTH_DRAINING || n->health == FW_HEALTH_UNHEALTHY) && r % 3)
			n->back_at = 10000000 + 60 + (fw_time)(r * 131u % 30000); /* back after now (s->now below) */
		else if (r % 5 == 1 && h % 3 == 0) { /* in service, leaves later: back, or not */
			n->away_at = 10000000 + 30 + (fw_time)(r * 97u % 20000);
			n->back_at = h % 2 ? n->away_at + 600 + (fw_time)(h * 53u % 9000) : 0;
		}
		uint32_t all = n->gpu_count ? (1u << n->gpu_count) - 1 : 0;
		if (h % 5 == 0)
			n->bad_gpu_mask = (1u << pick(b, 8)) & all;
		if (h % 9 == 0)
			n->suspect_gpu_mask = (1u << pick(b, 8)) & all & ~n->bad_gpu_mask;
	}
}

/* A root, up to two middle queues under it, and 1..4 leaves under the
 * root or a middle one; the leaves' indices in leaf[] (jobs go there). */
static int add_queues(struct bytes *b, struct fw_snapshot *s, int32_t *leaf)
{
	int nq = 1 + (int)pick(b, 4), nmid = (int)pick(b, 3), nleaves = 0;
	int32_t mid[2], root = tb_queue(s, "root", -1, 8.0 * s->nnodes, -1, 1);

	for (int i = 0; i < nmid; i++) {
		char name[16];
		snprintf(name, sizeof name, "m%d", i);
		unsigned d = pick(b, 49);
		mid[i] = tb_queue(s, name, root, (double)d, -1, 1);
	}
	for (int i = 0; i < nq; i++) {
		char name[16];
		snprintf(name, sizeof name, "q%d", i);
		unsigned f = u8(b), up = pick(b, (unsigned)nmid + 1);
		double deserved = (double)pick(b, 33), limit = f % 3 == 0 ? (double)pick(b, 49) : -1;
		int k = tb_queue(s, name, up ? mid[up - 1] : root, deserved, limit, 1 + (double)(f >> 6));
		struct fw_queue *q = &s->queues[k];
		q->priority = (int32_t)(f >> 4 & 1);
		q->usage = (double)u16(b) * 60;
		q->usage_at = s->now - (fw_time)pick(b, 100) * 600;
		q->gpu_hour_budget = f % 5 == 0 ? 1 + (double)pick(b, 200) : 0;
		q->nonpreemptible = f % 7 == 0;
		q->min_runtime_s = f % 4 == 1 ? (fw_time)pick(b, 8) * 900 : 0;
		q->max_runtime_s = f % 6 == 1 ? 600 + (fw_time)pick(b, 48) * 900 : 0;
		q->default_runtime_s = f % 8 == 3 ? (fw_time)pick(b, 24) * 3600 : 0;
		q->default_checkpoint_s = f % 9 == 2 ? 600 + (fw_time)pick(b, 12) * 300 : 0;
		leaf[nleaves++] = k;
	}
	for (int i = 0; i < nmid; i++) { /* a middle queue with no leaf stays empty: valid */
		unsigned f = u8(b);
		if (f % 3 == 0)
			s->queues[mid[i]].gpu_hour_budget = 1 + (double)pick(b, 300);
		if (f % 4 == 1)
			s->queues[mid[i]].limit.v[FW_RES_GPU] = (int64_t)pick(b, 49) * 1000;
	}
	if (u8(b) % 4 == 0)
		s->queues[root].gpu_hour_budget = 1 + (double)pick(b, 400);
	return nleaves;
}

/* Past usage of a few users in the leaves (user fair share counts it). */
static void add_users(struct bytes *b, struct fw_snapshot *s, const int32_t *leaf, int nleaves)
{
	int n = (int)pick(b, 4);

	for (int i = 0; i < n; i++) {
		struct fw_user_usage u;
		unsigned q = pick(b, (unsigned)nleaves), who = pick(b, 4);
		memset(&u, 0, sizeof u);
		u.queue = leaf[q];
		snprintf(u.user, sizeof u.user, "u%u", who);
		u.usage = (double)u16(b) * 30;
		u.usage_at = s->now - (fw_time)pick(b, 50) * 600;
		fw_snapshot_add_user_usage(s, &u);
	}
}

/* Run job j on the GPUs the stream picks among those free: one task per
 * node, its group's GPUs each.  Leaves it pending when they do not fit. */
static void maybe_run(struct bytes *b, struct fw_snapshot *s, int j, uint32_t *used)
{
	struct fw_job *job = &s->jobs[j];
	int nodes[16], g = job->groups[0].gpus, tasks = job->groups[0].count;

	if (job->ngroups != 1 || tasks > 16 || g < 1 || job->groups[0].gpu_model[0])
		return;
	for (int t = 0, at = (int)pick(b, (unsigned)s->nnodes); t < tasks; t++, at = (at + 1) % s->nnodes) {
		const struct fw_node *n = &s->nodes[at];
		uint32_t all = (1u << n->gpu_count) - 1, free = all & ~used[at] & ~n->bad_gpu_mask;
		if (n->gpu_count < g || __builtin_popcount(free) < g)
			return;
		nodes[t] = at;
		for (int u = 0; u < t; u++)
			if (nodes[u] == at)
				return;
	}
	uint32_t masks[16];
	for (int t = 0; t < tasks; t++) {
		const struct fw_node *n = &s->nodes[nodes[t]];
		uint32_t free = ((1u << n->gpu_count) - 1) & ~used[nodes[t]] & ~n->bad_gpu_mask, m = 0;
		for (int k = 0; k < 32 && __builtin_popcount(m) < g; k++)
			if (free >> k & 1)
				m |= 1u << k;
		masks[t] = m;
	}
	job->state = FW_JOB_RUNNING;
	job->alloc_first = s->nallocs;
	job->alloc_count = tasks;
	job->start_time = s->now - (fw_time)pick(b, 48) * 900;
	for (int t = 0; t < tasks; t++) {
		struct fw_task_alloc a;
		memset(&a, 0, sizeof a);
		a.node = nodes[t];
		a.gpu_mask = masks[t];
		a.gpu_milli = job->groups[0].gpu_milli;
		fw_snapshot_add_alloc(s, &a);
		used[nodes[t]] |= masks[t];
	}
}

static void add_jobs(struct bytes *b, struct fw_snapshot *s, const int32_t *leaf, int nleaves)
{
	int nj = (int)pick(b, 24);
	uint32_t used[16] = { 0 };

	for (int i = 0; i < nj; i++) {
		char name[16];
		unsigned f = u8(b), g = pick(b, 9), tasks = 1 + (f % 3 == 0 ? pick(b, 4) : 0);
		int milli = g == 1 && f % 5 == 0 ? 250 * (1 + (int)pick(b, 3)) : 1000;
		snprintf(name, sizeof name, "j%d", i);
		int q = leaf[pick(b, (unsigned)nleaves)];
		fw_time submit = s->now - (fw_time)u16(b) * 30;
		int j = tb_job(s, name, q, (int)tasks, (int)g, milli, submit);
		struct fw_job *job = &s->jobs[j];
		unsigned x = u8(b);
		job->priority = (int32_t)(x % 3);
		job->preemptible = x >> 2 & 1;
		job->expected_runtime = x % 7 == 0 ? 0 : 60 + (fw_time)u16(b) * 4;
		job->max_runtime_s = x % 5 == 0 ? 300 + (int32_t)pick(b, 40) * 600 : 0;
		job->checkpoint_s = x % 6 == 0 ? 300 + (int32_t)pick(b, 12) * 300 : 0;
		job->spread = x % 11 == 0;
		job->groups[0].one_per_node = tasks > 1 && x % 4 == 0;
		snprintf(job->user, sizeof job->user, "u%u", x >> 5 & 3);
		if (s->topology.nlevels > 0 && tasks > 1 && x % 3 == 0)
			job->required_level = (int8_t)pick(b, (unsigned)s->topology.nlevels);
		else if (s->topology.nlevels > 0 && x % 3 == 1)
			job->preferred_level = (int8_t)pick(b, (unsigned)s->topology.nlevels);
		if (f % 13 == 0)
			snprintf(job->groups[0].gpu_model, FW_NAME_MAX, "%s", MODELS[f >> 7]);
		if (f % 17 == 0 && job->groups[0].gpus > 0) { /* a second group */
			job->ngroups = 2;
			job->groups[1] = job->groups[0];
			job->groups[1].count = 1;
			job->groups[1].gpus = 1 + (int32_t)pick(b, 8);
			job->groups[1].gpu_milli = 1000;
		}
		if (s->nnodes <= 16 && u8(b) % 3 == 0)
			maybe_run(b, s, j, used);
	}
}

/* Node filters (job and group, only and except), slices and elastic
 * gangs, in job order as the snapshot keeps them. */
static void add_filters(struct bytes *b, struct fw_snapshot *s)
{
	for (int j = 0; j < s->njobs; j++) {
		struct fw_job *job = &s->jobs[j];
		unsigned f = u8(b);
		int32_t nodes[12], n = 0;
		for (int k = 0; k < s->nnodes && k < 12; k++)
			if (f % 3 && pick(b, 2))
				nodes[n++] = k;
		if (f % 3 == 1 && n > 0)
			fw_snapshot_restrict_job(s, j, nodes, n);
		else if (f % 3 == 2 && n > 0)
			fw_snapshot_restrict_job_except(s, j, nodes, n);
		if (f % 5 == 0 && n > 0 && job->state == FW_JOB_PENDING)
			fw_snapshot_restrict_group(s, j, job->ngroups - 1, nodes, n, f >> 7);
		int32_t c = job->groups[0].count;
		if (f % 7 == 0 && c > 1 && job->state == FW_JOB_PENDING)
			fw_snapshot_slice_group(s, j, 0, c % 2 ? c : c / 2,
						s->topology.nlevels ? (int32_t)pick(b, (unsigned)s->topology.nlevels) :
								      FW_LEVEL_NODE);
		if (f % 11 == 0 && c > 1 && job->ngroups == 1 && job->state == FW_JOB_PENDING)
			job->min_member = 1 + (int32_t)pick(b, (unsigned)c);
	}
}

static void add_models(struct bytes *b, struct fw_snapshot *s, const int32_t *leaf, int nleaves)
{
	unsigned f = u8(b), q = pick(b, (unsigned)nleaves), gpus = pick(b, 17);
	struct fw_model_limit m = tb_model_entry(leaf[q], MODELS[f & 1], (double)gpus);

	if (f % 4 == 1)
		fw_snapshot_add_model_limit(s, &m);
	else if (f % 4 == 2)
		fw_snapshot_add_model_deserved(s, &m);
}

static void set_config(struct bytes *b, struct fw_snapshot *s)
{
	struct fw_sched_config *c = &s->config;
	unsigned f = u8(b), g = u8(b);

	c->usage_half_life_s = 3600.0 * (1 + pick(b, 200));
	c->budget_safe = f & 1;
	c->estimate_starts = (f & 2) == 0;
	c->backfill_conservative = f & 4;
	c->user_fair_share = f & 8;
	c->drain_requeue = (f & 16) == 0;
	c->max_starts = f & 32 ? 1 + (int64_t)(g % 4) : 0;
	c->starve_after_s = f & 64 ? 600 + (int64_t)(g >> 2) * 600 : 0;
	c->reserve_depth = f & 128 ? (int32_t)(g % 3) : 0;
	c->estimate_depth = g % 5 == 0 ? -1 : (int32_t)(g % 7); /* 0: the default; 1..6 a short line */
	c->checkpoint_grace_s = g & 128 ? 600 : 0;
}

/* On a failure: the snapshot, one line per record, on stderr. */
static void dump(const struct fw_snapshot *s)
{
	const struct fw_sched_config *c = &s->config;

	fprintf(stderr, "now %lld levels %d; config half-life %.0f budget_safe %d estimates %d conservative %d "
			"user_fs %d requeue %d max_starts %lld starve %lld depth %d estimate depth %d grace %lld\n",
		(long long)s->now, s->topology.nlevels, c->usage_half_life_s, c->budget_safe, c->estimate_starts,
		c->backfill_conservative, c->user_fair_share, c->drain_requeue, (long long)c->max_starts,
		(long long)c->starve_after_s, c->reserve_depth, c->estimate_depth, (long long)c->checkpoint_grace_s);
	for (int i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		fprintf(stderr, "node %d %s %d %s [%s/%s] health %d sched %d lemon %d bad %x suspect %x\n", i, n->name,
			n->gpu_count, n->gpu_model, n->path[0], n->path[1], (int)n->health, n->schedulable, n->lemon,
			n->bad_gpu_mask, n->suspect_gpu_mask);
	}
	for (int i = 0; i < s->nqueues; i++) {
		const struct fw_queue *q = &s->queues[i];
		fprintf(stderr, "queue %d %s parent %d deserved %lld limit %lld prio %d usage %.0f at %lld budget %.0f "
				"nonpreempt %d min %lld max %lld default %lld ckpt %lld\n",
			i, q->name, q->parent, (long long)q->deserved.v[FW_RES_GPU], (long long)q->limit.v[FW_RES_GPU],
			q->priority, q->usage, (long long)q->usage_at, q->gpu_hour_budget, q->nonpreemptible,
			(long long)q->min_runtime_s, (long long)q->max_runtime_s, (long long)q->default_runtime_s,
			(long long)q->default_checkpoint_s);
	}
	for (int i = 0; i < s->njobs; i++) {
		const struct fw_job *j = &s->jobs[i];
		fprintf(stderr, "job %d %s q %d state %d prio %d submit %lld rt %lld max %d ckpt %d pre %d lvl %d/%d "
				"user %s start %lld groups",
			i, j->name, j->queue, (int)j->state, j->priority, (long long)j->submit_time,
			(long long)j->expected_runtime, j->max_runtime_s, j->checkpoint_s, j->preemptible,
			j->required_level, j->preferred_level, j->user, (long long)j->start_time);
		for (int g = 0; g < j->ngroups; g++)
			fprintf(stderr, " %dx%d@%d%s%s", j->groups[g].count, j->groups[g].gpus, j->groups[g].gpu_milli,
				j->groups[g].gpu_model, j->groups[g].one_per_node ? "/1pn" : "");
		for (int k = 0; k < j->alloc_count; k++)
			fprintf(stderr, " on n%d:%x", s->allocs[j->alloc_first + k].node,
				s->allocs[j->alloc_first + k].gpu_mask);
		fprintf(stderr, "\n");
	}
	for (int i = 0; i < s->nmodel_limits; i++)
		fprintf(stderr, "model limit q %d %s %lld\n", s->model_limits[i].queue, s->model_limits[i].model,
			(long long)s->model_limits[i].gpus);
	for (int i = 0; i < s->nmodel_deserved; i++)
		fprintf(stderr, "model deserved q %d %s %lld\n", s->model_deserved[i].queue,
			s->model_deserved[i].model, (long long)s->model_deserved[i].gpus);
}

/* Every policy: a cycle that keeps the checker's invariants and gives
 * the same plan again. */
static void plan_all(const struct fw_snapshot *s, struct fw_arena *a)
{
	for (const struct fw_policy_ops *const *p = fw_policy_list(); *p; p++) {
		struct fw_plan *plan = NULL;
		struct fw_diag d;
		fw_arena_reset(a);
		if (fw_cycle_run(s, *p, a, &plan) != FW_OK) {
			fprintf(stderr, "fuzz_cycle: %s: the cycle failed\n", (*p)->name);
			dump(s);
			abort();
		}
		memset(&d, 0, sizeof d);
		if (fw_plan_check(s, plan, a, &d) != FW_OK) {
			fprintf(stderr, "fuzz_cycle: %s: invariant: %s: %s\n", (*p)->name, d.field, d.msg);
			dump(s);
			abort();
		}
		if (!tb_replans_same(s, (*p)->name, plan, a)) {
			fprintf(stderr, "fuzz_cycle: %s: planned again, the plan differs\n", (*p)->name);
			dump(s);
			abort();
		}
	}
}

/* Every policy: the decisions and their tasks are the same with the
 * estimates' jobs ahead (s's estimate depth) and without (-1). */
static void same_without_depth(struct fw_snapshot *s, struct fw_arena *a)
{
	int32_t depth = s->config.estimate_depth;

	for (const struct fw_policy_ops *const *p = fw_policy_list(); *p; p++) {
		struct fw_plan *x = NULL, *y = NULL;
		struct fw_arena b;
		fw_arena_reset(a);
		fw_arena_init(&b, 0);
		s->config.estimate_depth = depth;
		bool ok = fw_cycle_run(s, *p, a, &x) == FW_OK;
		s->config.estimate_depth = -1;
		ok = ok && fw_cycle_run(s, *p, &b, &y) == FW_OK && x->ndecisions == y->ndecisions &&
		     x->nallocs == y->nallocs &&
		     !memcmp(x->decisions, y->decisions, (size_t)x->ndecisions * sizeof *x->decisions) &&
		     !memcmp(x->allocs, y->allocs, (size_t)x->nallocs * sizeof *x->allocs);
		fw_arena_release(&b);
		s->config.estimate_depth = depth;
		if (!ok) {
			fprintf(stderr, "fuzz_cycle: %s: the estimate depth changed a decision\n", (*p)->name);
			dump(s);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size, 0 };
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_arena a;
	struct fw_diag d;

	if (!s)
		return 0;
	s->now = 10000000;
	int32_t leaf[4];
	add_nodes(&b, s);
	int nleaves = add_queues(&b, s, leaf);
	add_jobs(&b, s, leaf, nleaves);
	add_filters(&b, s);
	add_models(&b, s, leaf, nleaves);
	add_users(&b, s, leaf, nleaves);
	set_config(&b, s);
	if (fw_snapshot_validate(s, &d) == FW_OK) {
		fw_arena_init(&a, 0);
		plan_all(s, &a);
		same_without_depth(s, &a);
		fw_arena_release(&a);
	}
	fw_snapshot_free(s);
	return 0;
}
