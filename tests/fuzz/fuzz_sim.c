/*
 * fuzz_sim.c — libFuzzer target for the simulator: any bytes become a
 * small trace, a cluster, node failures and the replay's options, and
 * every registered policy's replay must succeed and add up.
 *
 * fuzz_cycle (tests/fuzz/fuzz_cycle.c) holds the engine to its promises
 * one snapshot at a time; this target holds the replay around it (sim/
 * des.c: events, ticks, evictions, failures, checkpoints, run-time limits,
 * budgets) to the books a user reads in a result.  The bytes are read as
 * a stream of choices, one read per statement (as in fuzz_cycle): the
 * options (tick, preemptible jobs, protection window, queue limit,
 * GPU-hour budget and budgetSafe, half-life, starvation age, backfill
 * mode, reservations, expansion-factor cap, user fair share, checkpoint
 * interval and grace); 1..6 nodes of 1, 2, 4 or 8 GPUs in racks or none,
 * or a mixed fleet (each node its own size and one of two GPU models,
 * racks under a block or not); slices, a GPU model limit or deserved
 * share; 1..10 jobs (submit time, actual and announced runtime, own
 * limit, named or team queue, user, priority, one or two task groups of
 * whole or fractional GPUs, elastic gangs, a required rack or node, a GPU
 * model); 0..3 node or GPU failures; then, after a marker byte, a
 * config's queue tree in place of the flat queues (`--config`: a parent
 * over two leaves and a top-level leaf, with GPU limits, run-time
 * limits, protection windows, leaves' budgets and a subtree that is not
 * preemptible; the options' per-queue values move onto the queues).
 * Options the replay refuses drop
 * the input (the decoder aims at valid ones).  Each plan is validated and
 * checked by the replay itself (validate_each, fw_plan_check).  Then, per
 * policy:
 *   - the replay returns FW_OK;
 *   - every run starts at or after its job's submit, ends at or after it
 *     starts, and no job's runs overlap; the replay leaves none open;
 *   - first start, end and eviction count agree with the job's runs, and
 *     the totals (started, decisions, evictions, lost GPU-seconds) with
 *     the rows; no estimate is sooner than the job's arrival;
 *   - the milli-GPUs of the runs open at any instant fit the cluster;
 *   - a finished job ran its duration plus exactly the work its evictions
 *     threw away (kept = whole checkpoints, fw_sim_checkpoint_kept), and
 *     one its limit ended ran the rest minus the cut;
 *   - no run outlives its run-time limit (its own, the options' or its
 *     queues', the smallest) by a tick or more;
 *   - with a tree, the runs open at any instant in a queue's subtree fit
 *     its GPU limit;
 *   - the same input replayed again gives the same decision log, and so
 *     does the ALL tick rule (a cycle at every tick while jobs wait): the
 *     EVERY rule's skipped ticks change nothing (des.h).
 * Any failure aborts with the reason on stderr.  Replayed as
 * fuzz_replay_sim over tests/fuzz/corpus/sim in every test run.
 * FUZZ_SIM_VERBOSE=1 prints each replay's totals on stderr (jobs, nodes,
 * GPUs, failures, starts, runs, evictions, cycles, time-outs), or why its
 * options were refused.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "des.h"
#include "fairway/policy.h"
#include "fleet.h"
#include "teams.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	struct fw_trace t;
	struct fw_sim_opts o;
	struct fw_snapshot *fleet; /* a mixed fleet, or NULL: o's nodes x G;
				    * with a tree, the config (o.config) */
	int64_t gpus;              /* the cluster's GPUs */
	int32_t gmax;              /* GPUs of its largest node */
	struct fw_sim_failure fail[3];
	size_t nfail;
};

static const char *const MODELS[] = { "H100", "A100" };

/* A mixed fleet: 1..6 nodes of 1, 2, 4 or 8 GPUs of two models, in racks
 * of two under one block, or none. */
static int add_fleet(struct bytes *b, struct input *in)
{
	static const int32_t GPN[] = { 8, 1, 2, 4 };
	unsigned f = u8(b);
	int n = 1 + (int)pick(b, 6), levels = (int)(f % 3);

	if (!(in->fleet = fw_snapshot_new()))
		return -1;
	in->fleet->topology.nlevels = levels;
	if (levels > 0)
		snprintf(in->fleet->topology.level[0], FW_NAME_MAX, "%s", levels > 1 ? "block" : "rack");
	if (levels > 1)
		snprintf(in->fleet->topology.level[1], FW_NAME_MAX, "rack");
	for (int i = 0; i < n; i++) {
		struct fw_node nd;
		char name[16];
		unsigned g = u8(b);
		snprintf(name, sizeof name, "m%d", i);
		fw_fleet_node(&nd, name, GPN[g % 4]);
		snprintf(nd.gpu_model, sizeof nd.gpu_model, "%s", MODELS[g >> 2 & 1]);
		if (levels > 1)
			snprintf(nd.path[0], FW_NAME_MAX, "b0");
		if (levels > 0)
			snprintf(nd.path[levels - 1], FW_NAME_MAX, "r%d", i / 2);
		if (fw_snapshot_add_node(in->fleet, &nd) < 0)
			return -1;
		in->gpus += nd.gpu_count;
		in->gmax = nd.gpu_count > in->gmax ? nd.gpu_count : in->gmax;
	}
	in->o.fleet = in->fleet;
	in->o.nodes = n;
	return fw_snapshot_validate(in->fleet, NULL) == FW_OK ? 0 : -1;
}

/* Slices of two tasks in a rack or on a node, a model limit, a model's
 * deserved share: the options that name levels and models. */
static void add_shapes(struct bytes *b, struct input *in)
{
	unsigned f = u8(b);
	bool racks = in->fleet ? in->fleet->topology.nlevels > 0 : in->o.nodes_per_rack > 0;

	if (f % 4 == 1) {
		in->o.slice_tasks = 2;
		snprintf(in->o.slice_level, sizeof in->o.slice_level, "%s", racks && f >> 7 ? "rack" : "node");
		in->o.slices_off = f >> 6 & 1;
	}
	if (in->fleet && f >> 2 & 1) {
		in->o.nmodel_limits = 1;
		snprintf(in->o.model_limits[0].model, FW_NAME_MAX, "%s", MODELS[f >> 3 & 1]);
		in->o.model_limits[0].pct = 25.0 * (1 + pick(b, 6));
	}
	if (in->fleet && f >> 4 & 1) {
		in->o.nmodel_deserved = 1;
		snprintf(in->o.model_deserved[0].model, FW_NAME_MAX, "%s", MODELS[f >> 5 & 1]);
		in->o.model_deserved[0].pct = 20.0 * (1 + pick(b, 5));
	}
}

static void add_group(struct bytes *b, int32_t G, struct fw_trace_group *g)
{
	unsigned f = u8(b);

	g->count = 1 + (int32_t)pick(b, 3);
	g->gpus = (int32_t)pick(b, (unsigned)G + 1);
	if (f % 11 == 0)
		g->gpus = G; /* whole nodes, the ITP gang shape */
	g->gpu_milli = 1000;
	if (g->gpus == 1 && f % 5 == 0)
		g->gpu_milli = 100 * (1 + (int32_t)pick(b, 9));
}

static void add_job(struct bytes *b, const struct input *in, int i, struct fw_trace_job *j)
{
	static const char *const Q[] = { "", "qa", "qb", "" };
	unsigned f = u8(b);

	memset(j, 0, sizeof *j);
	snprintf(j->id, sizeof j->id, "j%d", i);
	j->line = i + 2;
	j->submit = (int64_t)pick(b, 48) * 150;
	j->duration = f % 13 == 0 ? 0 : (int64_t)(u16(b) % 7200);
	j->expected = f % 3 == 0 ? j->duration : 1 + (int64_t)(u16(b) % 9000);
	j->max_runtime = f % 5 == 1 ? 600 + (int32_t)pick(b, 12) * 300 : 0;
	snprintf(j->queue, sizeof j->queue, "%s", Q[pick(b, 4)]);
	if (f % 4 == 2)
		snprintf(j->user, sizeof j->user, "u%u", pick(b, 3));
	j->priority = (int32_t)pick(b, 3);
	j->ngroups = f % 7 == 3 ? 2 : 1;
	int32_t tasks = 0;
	for (int g = 0; g < j->ngroups; g++) {
		add_group(b, in->gmax, &j->groups[g]);
		tasks += j->groups[g].count;
	}
	if (f % 9 == 4 && tasks > 1)
		j->min_member = 1 + (int32_t)pick(b, (unsigned)tasks);
	unsigned t = pick(b, 8);
	bool racks = in->fleet ? in->fleet->topology.nlevels > 0 : in->o.nodes_per_rack > 0;
	if (t == 1 && racks)
		snprintf(j->topo_required, sizeof j->topo_required, "rack");
	else if (t == 2)
		snprintf(j->topo_required, sizeof j->topo_required, "node");
	else if (t == 3 && in->fleet)
		snprintf(j->gpu_model, sizeof j->gpu_model, "%s", MODELS[f >> 7]);
}

static void add_options(struct bytes *b, struct fw_sim_opts *o)
{
	static const int32_t GPN[] = { 8, 1, 2, 4 };
	static const int64_t TICK[] = { 300, 600, 900, 60 };
	static const int64_t STARVE[] = { 0, -1, 600, 3600 };
	static const int32_t DEPTH[] = { 0, -1, 1, 3 };
	unsigned f = u8(b), g = u8(b);

	o->nodes = 1 + (int32_t)pick(b, 6);
	o->gpus_per_node = GPN[f % 4];
	o->nodes_per_rack = (int32_t)(f >> 2) % 3;
	o->tick_s = TICK[f >> 4 & 3];
	o->preemptible = f >> 6 & 1;
	o->min_runtime_s = g % 3 == 0 ? (int64_t)pick(b, 6) * 600 : 0;
	o->max_runtime_s = g % 5 == 0 ? 1800 + (int64_t)pick(b, 8) * 900 : 0;
	o->gpu_hour_budget = g % 6 == 0 ? 1 + (double)pick(b, 40) : 0;
	o->budget_safe = o->gpu_hour_budget > 0 && g >> 7;
	o->usage_half_life_s = g % 4 == 1 ? 3600.0 * (1 + pick(b, 24)) : 0;
	o->estimate_depth = g % 7 == 3 ? -1 : g % 7 == 5 ? 2 : 0; /* none, a short line, the default */
	unsigned h = u8(b);
	o->starve_after_s = STARVE[h % 4];
	o->reserve_depth = DEPTH[h >> 2 & 3];
	o->backfill_conservative = h >> 4 & 1;
	o->xfactor_cap_s = h >> 5 & 1 ? 3600 : 0;
	o->user_fair_share = h >> 6 & 1;
	o->checkpoint_grace_s = h >> 7 ? 300 : 0;
	o->checkpoint_s = (int64_t)pick(b, 3) * 600;
}

static int by_time(const void *a, const void *b)
{
	const struct fw_sim_failure *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

static void add_failures(struct bytes *b, struct input *in)
{
	in->nfail = pick(b, 4);
	for (size_t i = 0; i < in->nfail; i++) {
		struct fw_sim_failure *x = &in->fail[i];
		unsigned f = u8(b);
		x->at = (int64_t)pick(b, 64) * 200;
		x->node = (int32_t)pick(b, (unsigned)in->o.nodes);
		x->repair_s = 300 + (int64_t)pick(b, 12) * 600;
		int32_t G = in->fleet ? in->fleet->nodes[x->node].gpu_count : in->o.gpus_per_node;
		x->gpus = f % 3 == 0 ? 1u << pick(b, (unsigned)G) : 0;
		x->flap = false;
	}
	qsort(in->fail, in->nfail, sizeof in->fail[0], by_time);
}

#define TREE_MARK 0xA5 /* the byte after the failures that asks for a tree */

/* Queue i of the tree: "ra" over the leaves "qa" and "qb", and "qc" at
 * the top; ra and qc deserve half the GPUs each, qa and qb half of ra's. */
static void tree_queue(struct bytes *b, const struct input *in, int i, struct fw_queue *q)
{
	static const char *const NAME[] = { "ra", "qa", "qb", "qc" };
	int64_t all = in->gpus * 1000, half = all / 2;
	unsigned f = u8(b);

	fw_queue_init(q);
	snprintf(q->name, sizeof q->name, "%s", NAME[i]);
	q->parent = i == 1 || i == 2 ? 0 : -1;
	q->deserved.v[FW_RES_GPU] = i == 0 ? half : i == 1 ? half / 2 : i == 2 ? half - half / 2 : all - half;
	if (f % 3 == 0)
		q->limit.v[FW_RES_GPU] = 1000 * (1 + (int64_t)pick(b, (unsigned)in->gpus));
	q->max_runtime_s = f >> 2 & 1 ? 1800 + (int64_t)pick(b, 8) * 900 : 0;
	q->min_runtime_s = f >> 3 & 1 ? (int64_t)pick(b, 6) * 600 : 0;
	q->gpu_hour_budget = i > 0 && f >> 4 & 1 ? 1 + (double)pick(b, 40) : 0;
	q->priority = (int32_t)(f >> 5 & 1);
	q->nonpreemptible = i == 0 && f >> 6 & 1;
}

/* A config's tree in place of the flat queues: its nodes are the fleet's
 * (or the generated ones), the jobs that named no queue go to qc, and the
 * per-queue options are left to the queues. */
static int add_tree(struct bytes *b, struct input *in)
{
	struct fw_fleet_opts fo = { in->o.nodes, in->o.gpus_per_node, in->o.nodes_per_rack, 0 };

	if (!in->fleet && fw_fleet_generate(&fo, &in->fleet, NULL) != FW_OK)
		return -1;
	for (int i = 0; i < 4; i++) {
		struct fw_queue q;
		tree_queue(b, in, i, &q);
		if (fw_snapshot_add_queue(in->fleet, &q) < 0)
			return -1;
	}
	for (size_t k = 0; k < in->t.n; k++)
		if (!in->t.v[k].queue[0])
			snprintf(in->t.v[k].queue, sizeof in->t.v[k].queue, "qc");
	in->o.config = in->fleet;
	in->o.fleet = NULL;
	in->o.min_runtime_s = in->o.max_runtime_s = 0;
	in->o.gpu_hour_budget = 0;
	in->o.nmodel_limits = in->o.nmodel_deserved = 0;
	return fw_snapshot_validate(in->fleet, NULL) == FW_OK ? 0 : -1;
}

static int decode(struct bytes *b, struct input *in)
{
	memset(in, 0, sizeof *in);
	fw_sim_opts_default(&in->o);
	snprintf(in->t.file, sizeof in->t.file, "fuzz.csv");
	add_options(b, &in->o);
	in->gpus = (int64_t)in->o.nodes * in->o.gpus_per_node;
	in->gmax = in->o.gpus_per_node;
	if (u8(b) % 3 == 0) {
		in->gpus = in->gmax = 0;
		if (add_fleet(b, in) != 0)
			return -1;
	}
	add_shapes(b, in);
	int n = 1 + (int)pick(b, 10);
	for (int i = 0; i < n; i++) {
		struct fw_trace_job j;
		add_job(b, in, i, &j);
		if (fw_trace_push(&in->t, &j) != FW_OK)
			return -1;
	}
	add_failures(b, in);
	if (u8(b) == TREE_MARK)
		return add_tree(b, in);
	return 0;
}

/* ---- the books ----------------------------------------------------------- */

static const char *g_policy;

static void fail(const char *what, long long a, long long b)
{
	fprintf(stderr, "fuzz_sim: %s: %s (%lld, %lld)\n", g_policy, what, a, b);
	abort();
}

#define NEED(c, a, b) ((c) ? (void)0 : fail(#c, (long long)(a), (long long)(b)))

/* The smallest positive of the options', the job's queues' (a tree's)
 * and the job's own limit; 0 none. */
static int64_t limit_of(const struct input *in, const struct fw_sim_result *r, size_t row)
{
	const struct fw_trace_job *j = &in->t.v[row];
	const struct fw_snapshot *c = in->o.config;
	int64_t l = in->o.max_runtime_s;

	for (int32_t q = c ? r->queue[row] : -1; q >= 0; q = c->queues[q].parent)
		if (c->queues[q].max_runtime_s > 0 && (l == 0 || c->queues[q].max_runtime_s < l))
			l = c->queues[q].max_runtime_s;
	if (j->max_runtime > 0 && (l == 0 || j->max_runtime < l))
		l = j->max_runtime;
	return l;
}

static void check_runs(const struct input *in, const struct fw_sim_result *r)
{
	int64_t *last = calloc(r->njobs + 1, sizeof *last);
	size_t *nr = calloc(r->njobs + 1, sizeof *nr);

	NEED(last && nr, 0, 0);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fw_sim_span *x = &r->runs[i];
		NEED(x->row >= 0 && (size_t)x->row < r->njobs, x->row, r->njobs);
		const struct fw_trace_job *j = &in->t.v[x->row];
		int64_t lim = limit_of(in, r, (size_t)x->row);
		NEED(x->start >= j->submit, x->start, j->submit);
		NEED(x->end >= x->start, x->end, x->start);
		NEED(nr[x->row] == 0 || last[x->row] <= x->start, last[x->row], x->start);
		NEED(lim == 0 || x->end - x->start < lim + in->o.tick_s, x->end - x->start, lim);
		NEED(x->milli >= 0 && x->milli <= in->gpus * 1000, x->milli, in->gpus);
		last[x->row] = x->end;
		nr[x->row]++;
	}
	int64_t started = 0, evictions = 0;
	double lost = 0;
	for (size_t k = 0; k < r->njobs; k++) {
		NEED((r->start[k] < 0) == (nr[k] == 0), r->start[k], nr[k]);
		NEED(r->end[k] < 0 || r->end[k] == last[k], r->end[k], last[k]);
		/* every run closes: a finished job was evicted once per extra
		 * run, one still pending once per run */
		NEED(r->evicted[k] == (int32_t)nr[k] - (r->end[k] >= 0), r->evicted[k], nr[k]);
		/* an estimate made after the job arrived: unknown, none, or
		 * no sooner than its arrival */
		NEED(r->estimate[k] == FW_SIM_NO_ESTIMATE || r->estimate[k] == -1 ||
		     r->estimate[k] >= in->t.v[k].submit, r->estimate[k], in->t.v[k].submit);
		started += r->start[k] >= 0;
		evictions += r->evicted[k];
		lost += r->lost[k];
	}
	NEED(r->started == started, r->started, started);
	NEED(r->decisions == (int64_t)r->nruns, r->decisions, r->nruns);
	NEED(r->evictions == evictions, r->evictions, evictions);
	NEED(r->never_started == (int64_t)r->njobs - started, r->never_started, started);
	NEED(lost - r->lost_gpu_s < 1e-6 * (1 + lost) && r->lost_gpu_s - lost < 1e-6 * (1 + lost),
	     (long long)lost, (long long)r->lost_gpu_s);
	free(last);
	free(nr);
}

/* Each finished job's runs add up to its work: duration + the seconds its
 * evictions threw away (lost[k] / GPUs), less what its limit cut. */
static void check_work(const struct input *in, const struct fw_sim_result *r)
{
	for (size_t k = 0; k < r->njobs; k++) {
		const struct fw_trace_job *j = &in->t.v[k];
		if (r->end[k] < 0 || j->min_member)
			continue; /* an elastic job's runs may differ in size */
		int64_t ran = 0, milli = 0;
		for (size_t i = 0; i < r->nruns; i++)
			if ((size_t)r->runs[i].row == k) {
				ran += r->runs[i].end - r->runs[i].start;
				milli = r->runs[i].milli;
			}
		if (milli <= 0) {
			NEED(r->lost[k] == 0, (long long)r->lost[k], k);
			continue; /* no GPUs: its lost work is not recorded */
		}
		double thrown = r->lost[k] * 1000.0 / (double)milli;
		double want = (double)j->duration + thrown - (double)r->cut[k];
		NEED(r->cut[k] >= 0 && r->cut[k] <= j->duration, r->cut[k], j->duration);
		NEED((double)ran - want < 1e-6 * (1 + want) && want - (double)ran < 1e-6 * (1 + want),
		     ran, (long long)want);
	}
}

static int by_edge(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]); /* ends (-milli) first */
}

/* Is leaf in q's subtree (q itself included)? */
static bool under(const struct fw_snapshot *c, int32_t leaf, int32_t q)
{
	for (; leaf >= 0; leaf = c->queues[leaf].parent)
		if (leaf == q)
			return true;
	return false;
}

/* The milli-GPUs of the runs open at any instant fit cap: the cluster's
 * (q < 0), or a tree queue q's limit, over the runs of its subtree. */
static void check_capacity(const struct input *in, const struct fw_sim_result *r, int32_t q, int64_t cap)
{
	int64_t (*e)[2] = calloc(2 * r->nruns + 1, sizeof *e), held = 0;

	NEED(e != NULL, 0, 0);
	size_t n = 0;
	for (size_t i = 0; i < r->nruns; i++) {
		int64_t m = r->runs[i].milli ? r->runs[i].milli : (int64_t)r->runs[i].gpus * 1000;
		if (r->runs[i].end == r->runs[i].start)
			continue; /* a run of no time holds nothing */
		if (q >= 0 && !under(in->o.config, r->queue[r->runs[i].row], q))
			continue;
		e[n][0] = r->runs[i].start, e[n++][1] = m;
		e[n][0] = r->runs[i].end, e[n++][1] = -m;
	}
	qsort(e, n, sizeof *e, by_edge);
	for (size_t i = 0; i < n; i++) {
		held += e[i][1];
		NEED(held >= 0 && held <= cap, held, cap);
	}
	free(e);
}

/* ---- the replays ---------------------------------------------------------- */

static int64_t keep_checkpoints(void *ctx, const struct fw_snapshot *s, int32_t job, int64_t now,
				int64_t ran_s)
{
	(void)s, (void)job, (void)now;
	return fw_sim_checkpoint_kept(ran_s, *(const int64_t *)ctx);
}

static int replay(const struct input *in, const char *policy, enum fw_sim_tick_rule rule,
		  struct fw_sim_result *r)
{
	struct fw_teams teams;
	struct fw_sim_opts o = in->o;
	struct fw_sim_scripted sc = { in->fail, in->nfail, 0 };
	struct fw_sim_failures fs = { fw_sim_scripted_next, &sc };
	int64_t ck = in->o.checkpoint_s;
	struct fw_sim_hooks h = { .on_evict = keep_checkpoints, .ctx = &ck };
	struct fw_diag d;

	fw_teams_builtin(&teams);
	memset(&d, 0, sizeof d);
	memset(r, 0, sizeof *r);
	o.policy = policy;
	o.tick_rule = rule;
	o.validate_each = true;
	o.hooks = &h;
	o.failures = in->nfail ? &fs : NULL;
	int rc = fw_sim_run_trace(&in->t, &teams, &o, r, &d);
	if (rc == FW_EINVAL && !strcmp(d.file, "options")) {
		if (getenv("FUZZ_SIM_VERBOSE"))
			fprintf(stderr, "refused: %s: %s\n", d.field, d.msg);
		return 1;
	} /* options the replay refuses: a decoder miss */
	if (rc != FW_OK) {
		fprintf(stderr, "fuzz_sim: %s: replay failed: %s: %s\n", policy, d.field, d.msg);
		abort();
	}
	return 0;
}

static bool same_log(const struct fw_sim_result *a, const struct fw_sim_result *b)
{
	return a->log_len == b->log_len && (a->log_len == 0 || !memcmp(a->log, b->log, a->log_len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size, 0 };
	struct input in;
	const struct fw_policy_ops *const *pol = fw_policy_list();

	if (decode(&b, &in) != 0) {
		fw_trace_free(&in.t);
		fw_snapshot_free(in.fleet);
		return 0;
	}
	for (int i = 0; pol[i]; i++) {
		struct fw_sim_result r[3];
		g_policy = pol[i]->name;
		if (replay(&in, pol[i]->name, FW_SIM_EVERY_TICK, &r[0])) {
			fw_sim_result_free(&r[0]);
			break;
		}
		if (getenv("FUZZ_SIM_VERBOSE"))
			fprintf(stderr, "%s: %zu jobs, %zu nodes (%lld GPUs)%s, %zu failures: %lld started, %zu runs, %lld evictions, %lld cycles, %lld timed out\n",
				pol[i]->name, in.t.n, (size_t)in.o.nodes, (long long)in.gpus, in.o.config ? ", a tree" : "", in.nfail,
				(long long)r[0].started, r[0].nruns, (long long)r[0].evictions, (long long)r[0].cycles,
				(long long)r[0].timed_out);
		check_runs(&in, &r[0]);
		check_work(&in, &r[0]);
		check_capacity(&in, &r[0], -1, in.gpus * 1000);
		for (int32_t q = 0; in.o.config && q < in.o.config->nqueues; q++)
			if (in.o.config->queues[q].limit.v[FW_RES_GPU] != FW_UNLIMITED)
				check_capacity(&in, &r[0], q, in.o.config->queues[q].limit.v[FW_RES_GPU]);
		if (replay(&in, pol[i]->name, FW_SIM_EVERY_TICK, &r[1]) ||
		    replay(&in, pol[i]->name, FW_SIM_ALL_TICKS, &r[2]))
			fail("a second replay refused what the first took", 0, 0);
		if (!same_log(&r[0], &r[1]))
			fail("the same replay twice gave two decision logs", (long long)r[0].log_len,
			     (long long)r[1].log_len);
		if (!same_log(&r[0], &r[2])) {
			fprintf(stderr, "EVERY:\n%.*s\nALL:\n%.*s\n", (int)r[0].log_len, r[0].log,
				(int)r[2].log_len, r[2].log);
			fail("the EVERY tick rule's log differs from ALL's", (long long)r[0].log_len,
			     (long long)r[2].log_len);
		}
		for (int k = 0; k < 3; k++)
			fw_sim_result_free(&r[k]);
	}
	fw_trace_free(&in.t);
	fw_snapshot_free(in.fleet);
	return 0;
}
