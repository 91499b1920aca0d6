/*
 * bench_cycle.c — how long does one allocate cycle take on a large fleet?
 *
 * Builds one synthetic snapshot (docs/performance.md defines it; the
 * defaults are 10,000 nodes x 8 GPUs, 1,000 queues, 100,000 pending jobs
 * sized like the Microsoft ITP trace, half of the GPUs already busy), runs
 * one untimed warm-up cycle, then --cycles timed cycles of fw_cycle_run()
 * on the same snapshot with fw_arena_reset() between them, and prints the
 * p50 and p99 cycle time, the starts per cycle and the peak RSS.  The plan
 * of the last cycle goes through fw_plan_check(); a violation, an error or
 * a cycle whose plan differs from the first one exits 1.
 *
 * Everything is deterministic: one seeded xorshift64* generator (no
 * rand()), trace files read in sorted name order.  The last line of output
 * is machine-readable:
 *   cycle_ms_p50=.. cycle_ms_p99=.. rss_mb=.. nodes=.. jobs=.. queues=.. starts=..
 *
 * I/O and clocks are fine here (bench/ is evidence, not the core).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fairway/fairway.h"

/* ---- fleet shape (docs/performance.md, "The synthetic fleet") --------- */

#define GPUS_PER_NODE 8
#define NODES_PER_NVL 4        /* one NVLink domain: 4 nodes, 32 GPUs */
#define NODES_PER_RACK 8       /* 2 NVLink domains per rack, 64 GPUs */
#define RACKS_PER_BLOCK 25     /* 200 nodes, 1,600 GPUs per block */
#define NODES_PER_BLOCK (NODES_PER_RACK * RACKS_PER_BLOCK)
#define NODE_CPU_MILLI (224 * 1000)
#define NODE_MEM_MIB ((int64_t)2048 * 1024)
#define GPU_MEM_MIB (80 * 1024)
#define NOW ((fw_time)1700000000)
#define DAY ((fw_time)86400)
#define LVL_BLOCK 0
#define LVL_RACK 1
#define LVL_NVL 2

static const char *const MODEL_MAIN = "H100-SXM-80GB";
static const char *const MODEL_ALT = "A100-SXM-80GB";

struct opts {
	int32_t nodes, jobs, queues, cycles;
	uint64_t seed;
	int busy_pct;
	const struct fw_policy_ops *policy;
	int lemon_pct, suspect_pct; /* nodes with a fault history / on probation */
	int unhealthy_pm;   /* nodes reported unhealthy, per mille: drained */
	int leaving_pct;    /* nodes in service that leave later (away_at) */
	int filtered_pct;   /* pending jobs with a node filter */
	int excluding_pct;  /* pending jobs each excluding one node of its own */
	bool excluding_lists; /* ... stored as lists of the nodes allowed */
	int split_pct;      /* pending gangs split in two groups, each with
			     * a group filter of its own */
	int sliced_pct;     /* pending gangs of more than one NVLink domain's
			     * nodes placed in slices of one domain */
	bool no_estimates;  /* time the cycle without start-time estimates */
	bool allocate_only; /* the allocate action alone (see allocate_only) */
	int64_t xfactor_cap; /* scheduler.xfactorCap: -1 the policy's, 0 off */
	int64_t estimate_depth; /* scheduler.estimateDepth: -1 the default, 0 none */
	int users;          /* > 0: jobs spread over this many users, who take
			     * turns inside each queue (scheduler.userFairShare) */
	int model_limits_pct; /* leaf queues with GPU model limits */
	int model_deserved_pct; /* ... and deserving GPUs of a model */
	int64_t grace;      /* > 0: scheduler.checkpointGrace, and every job
			     * saves a checkpoint every 30 min */
	int64_t max_runtime; /* > 0: the root queues' maxRuntime */
	int64_t job_max_runtime; /* > 0: every job's own maxRuntime */
	int budgets_pct;    /* leaf queues with a GPU-hour budget of a week at
			     * their deserved GPUs (their usage is 0..2 weeks') */
	bool budget_safe;   /* scheduler.budgetSafe */
};

static _Noreturn void oom(void)
{
	fprintf(stderr, "bench_cycle: out of memory\n");
	exit(1);
}

/* Room for a list of every node of s. */
static int32_t *node_list(const struct fw_snapshot *s)
{
	int32_t *nodes = malloc((size_t)s->nnodes * sizeof *nodes);

	if (!nodes)
		oom();
	return nodes;
}

/* ---- deterministic randomness --------------------------------------- */

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	/* splitmix64 of the seed, so that seeds 1, 2, 3 give unrelated streams
	 * and seed 0 is not the all-zero state xorshift cannot leave */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	rng_state = (z ^ (z >> 31)) | 1;
}

static uint64_t rng_next(void) /* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n). */
static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(((rng_next() >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [0, 1). */
static double rng_unit(void)
{
	return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- job sizes: the Microsoft ITP trace, or its built-in summary ------ */

struct sizes {
	int32_t *gpus;        /* one entry per trace job */
	int64_t *duration;    /* seconds */
	int32_t n, cap;
	char source[512];
};

/* Aggregate of all eight microsoft-itp/cluster*.csv files (40,840 jobs):
 * the fallback when the traces are not checked out next to the project. */
static const struct {
	int32_t gpus, per10k;
} builtin_sizes[] = {
	{ 1, 8790 }, { 2, 128 }, { 4, 188 }, { 8, 806 },
	{ 16, 48 },  { 32, 24 }, { 64, 16 },
};

static int sizes_push(struct sizes *z, int32_t g, int64_t dur)
{
	if (z->n == z->cap) {
		int32_t cap = z->cap ? z->cap * 2 : 4096;
		int32_t *ng = realloc(z->gpus, (size_t)cap * sizeof *ng);
		if (!ng)
			return -1;
		z->gpus = ng;
		int64_t *nd = realloc(z->duration, (size_t)cap * sizeof *nd);
		if (!nd)
			return -1;
		z->duration = nd;
		z->cap = cap;
	}
	z->gpus[z->n] = g;
	z->duration[z->n] = dur;
	z->n++;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read column num_gpu (and duration) of every row of every *.csv file in
 * dir, files in name order.  Returns the number of files read. */
static int sizes_read_dir(struct sizes *z, const char *dir)
{
	DIR *d = opendir(dir);
	char *names[256];
	int nnames = 0, nfiles = 0;
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d)) && nnames < 256) {
		size_t len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".csv") == 0)
			names[nnames++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)nnames, sizeof *names, name_cmp);
	for (int i = 0; i < nnames; i++) {
		char path[1024], line[512];
		int col_gpu = -1, col_dur = -1;
		FILE *f;

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		f = fopen(path, "r");
		free(names[i]);
		if (!f)
			continue;
		for (int row = 0; fgets(line, sizeof line, f); row++) {
			char *fields[16], *p = line;
			int nf = 0;
			line[strcspn(line, "\r\n")] = 0;
			while (nf < 16) {
				fields[nf++] = p;
				p = strchr(p, ',');
				if (!p)
					break;
				*p++ = 0;
			}
			if (row == 0) {
				for (int k = 0; k < nf; k++) {
					if (strcmp(fields[k], "num_gpu") == 0)
						col_gpu = k;
					if (strcmp(fields[k], "duration") == 0)
						col_dur = k;
				}
				if (col_gpu < 0)
					break; /* not an ITP file */
				continue;
			}
			if (col_gpu >= nf)
				continue;
			char *end;
			long g = strtol(fields[col_gpu], &end, 10);
			if (end == fields[col_gpu] || g < 1 || g > 1024)
				continue;
			long long dur = col_dur >= 0 && col_dur < nf ? strtoll(fields[col_dur], NULL, 10) : 0;
			if (sizes_push(z, (int32_t)g, dur > 0 ? (int64_t)dur : 3600) != 0) {
				fclose(f);
				return -1;
			}
		}
		fclose(f);
		nfiles++;
	}
	return nfiles;
}

static int sizes_load(struct sizes *z)
{
	const char *root = getenv("FAIRWAY_TRACES");
	char dir[400];
	int nf;

	memset(z, 0, sizeof *z);
	snprintf(dir, sizeof dir, "%s/microsoft-itp", root && *root ? root : "../shared/traces");
	nf = sizes_read_dir(z, dir);
	if (nf < 0)
		return -1;
	if (z->n > 0) {
		snprintf(z->source, sizeof z->source, "%s (%d files, %d jobs, column num_gpu)", dir, nf,
			 (int)z->n);
		return 0;
	}
	/* Built-in: 10,000 entries in the trace's proportions; durations
	 * log-uniform between 1 minute and 2.5 days (the trace's median is
	 * about 3 hours). */
	for (size_t i = 0; i < sizeof builtin_sizes / sizeof builtin_sizes[0]; i++)
		for (int32_t k = 0; k < builtin_sizes[i].per10k; k++)
			if (sizes_push(z, builtin_sizes[i].gpus, 0) != 0)
				return -1;
	for (int32_t i = 0; i < z->n; i++)
		z->duration[i] = (int64_t)(60.0 * pow(3600.0, (double)((i * 7919) % z->n) / z->n));
	snprintf(z->source, sizeof z->source,
		 "built-in ITP summary (%s not found): 1 GPU 87.9%%, 2 1.3%%, 4 1.9%%, 8 8.1%%, "
		 "16 0.5%%, 32 0.2%%, 64 0.2%%", dir);
	return 0;
}

/* ---- queues ------------------------------------------------------------ */

struct qgen {
	int32_t orgs, depts, leaves;
	int32_t *leaf;          /* leaf index -> queue index */
	double *cdf;            /* skewed leaf popularity, cumulative */
};

/* Split `total` among n parts in proportion to w[] exactly (the last part
 * takes the rounding remainder). */
static void split(int64_t total, const double *w, int32_t n, int64_t *out)
{
	double sum = 0;
	int64_t given = 0;

	for (int32_t i = 0; i < n; i++)
		sum += w[i];
	for (int32_t i = 0; i < n; i++) {
		out[i] = i == n - 1 || sum <= 0 ? total - given : (int64_t)((double)total * w[i] / sum);
		given += out[i];
	}
}

static struct fw_res scale_res(struct fw_res capacity, int64_t gpu_milli)
{
	struct fw_res r = fw_res_zero();
	double f = capacity.v[FW_RES_GPU] > 0 ? (double)gpu_milli / (double)capacity.v[FW_RES_GPU] : 0;

	r.v[FW_RES_GPU] = gpu_milli;
	r.v[FW_RES_CPU] = (int64_t)(f * (double)capacity.v[FW_RES_CPU]);
	r.v[FW_RES_MEM] = (int64_t)(f * (double)capacity.v[FW_RES_MEM]);
	return r;
}

/* Children of `parent` (queue ids kids[0..n)) split its deserved GPUs by
 * random weights; a share of weight 0 models a team with no guarantee. */
static void split_deserved(struct fw_snapshot *s, struct fw_res capacity, int64_t gpus,
			   const int32_t *kids, int32_t n, double zero_frac)
{
	double *w;
	int64_t *part;
	bool any = false;

	if (n < 1)
		return;
	w = calloc((size_t)n, sizeof *w);
	part = calloc((size_t)n, sizeof *part);
	if (!w || !part)
		oom();
	for (int32_t i = 0; i < n; i++) {
		w[i] = rng_unit() < zero_frac ? 0 : 1 + rng_below(9);
		any = any || w[i] > 0;
	}
	if (!any)
		w[0] = 1;
	split(gpus, w, n, part);
	if (w[n - 1] == 0 && part[n - 1] > 0) { /* remainder must not land on a 0 */
		for (int32_t i = 0; i < n; i++)
			if (w[i] > 0) {
				part[i] += part[n - 1];
				part[n - 1] = 0;
				break;
			}
	}
	for (int32_t i = 0; i < n; i++)
		s->queues[kids[i]].deserved = scale_res(capacity, part[i]);
	free(w);
	free(part);
}

/* The tree's shape for Q queues: about cbrt(Q) orgs, orgs x (orgs - 1)
 * depts, the rest teams (leaves). */
static void queue_shape(int32_t Q, struct qgen *g)
{
	int32_t orgs = (int32_t)floor(cbrt((double)Q) + 1e-9);
	int32_t depts;

	if (orgs < 1)
		orgs = 1;
	depts = orgs > 1 ? orgs * (orgs - 1) : 1; /* 10 orgs x 9 depts at Q = 1,000 */
	if (orgs + 2 * depts > Q) {
		depts = (Q - orgs) / 2;
		if (depts < 1)
			depts = 1;
		if (orgs > depts)
			orgs = depts;
	}
	g->orgs = orgs;
	g->depts = depts;
	g->leaves = Q - orgs - depts;
}

/* Queue i: an org, a dept of an org, or a team of a dept (with an
 * over-quota weight of 1, 2 or 4). */
static void add_queue(struct fw_snapshot *s, struct qgen *g, int32_t i)
{
	int32_t orgs = g->orgs, depts = g->depts;
	struct fw_queue q;

	fw_queue_init(&q);
	if (i < orgs) {
		snprintf(q.name, sizeof q.name, "org%02d", (int)i);
		q.priority = i == 0 ? 1 : 0; /* one "production" org */
	} else if (i < orgs + depts) {
		int32_t d = i - orgs;
		q.parent = d % orgs;
		snprintf(q.name, sizeof q.name, "org%02d.dept%02d", (int)q.parent, (int)(d / orgs));
	} else {
		int32_t t = i - orgs - depts;
		q.parent = orgs + t % depts;
		snprintf(q.name, sizeof q.name, "%.40s.team%03d", s->queues[q.parent].name, (int)(t / depts));
		g->leaf[t] = i;
		uint32_t r = rng_below(5);
		q.over_quota_weight[FW_RES_GPU] = r == 3 ? 2 : r == 4 ? 4 : 1;
	}
	if (fw_snapshot_add_queue(s, &q) < 0)
		oom();
}

/* deserved: orgs split the cluster, depts their org, teams their dept */
static void split_tree(struct fw_snapshot *s, const struct qgen *g, struct fw_res capacity, int32_t Q,
		       int32_t *kids)
{
	int32_t orgs = g->orgs, nkids;

	for (int32_t i = 0; i < orgs; i++)
		kids[i] = i;
	split_deserved(s, capacity, capacity.v[FW_RES_GPU], kids, orgs, 0.0);
	for (int32_t p = 0; p < orgs + g->depts; p++) {
		nkids = 0;
		for (int32_t i = orgs; i < Q; i++)
			if (s->queues[i].parent == p)
				kids[nkids++] = i;
		if (nkids)
			split_deserved(s, capacity, s->queues[p].deserved.v[FW_RES_GPU], kids, nkids,
				       p < orgs ? 0.0 : 0.1);
	}
}

/* limits (a fifth of the teams, some orgs) and the teams' usage */
static void limits_and_usage(struct fw_snapshot *s, const struct qgen *g, int32_t Q)
{
	int32_t orgs = g->orgs, depts = g->depts;

	for (int32_t i = 0; i < Q; i++) {
		struct fw_queue *q = &s->queues[i];
		int64_t des = q->deserved.v[FW_RES_GPU];
		if (i >= orgs + depts && rng_below(5) == 0) /* 20% of teams are capped */
			q->limit.v[FW_RES_GPU] = des * 2 > 8000 ? des * 2 : 8000;
		if (i > 0 && i < orgs && i % 4 == 0) /* some orgs are capped */
			q->limit.v[FW_RES_GPU] = des + des / 5;
		if (i >= orgs + depts) {
			/* decayed GPU-seconds: between 0 and 2x a week at deserved */
			q->usage = rng_unit() * 2.0 * (double)des / 1000.0 * 7.0 * (double)DAY;
			q->usage_at = NOW - (fw_time)rng_below(3600);
		}
	}
}

/* skewed popularity: a random permutation of the leaves ranked by
 * weight 1/(rank+1)^0.8, so a few teams own most of the backlog */
static void leaf_popularity(struct qgen *g, int32_t *perm)
{
	double *w = g->cdf, acc = 0;

	for (int32_t i = 0; i < g->leaves; i++)
		perm[i] = i;
	for (int32_t i = g->leaves - 1; i > 0; i--) {
		int32_t k = (int32_t)rng_below((uint32_t)i + 1), t = perm[i];
		perm[i] = perm[k];
		perm[k] = t;
	}
	for (int32_t i = 0; i < g->leaves; i++)
		w[perm[i]] = 1.0 / pow((double)i + 1, 0.8);
	for (int32_t i = 0; i < g->leaves; i++) {
		acc += w[i];
		w[i] = acc;
	}
}

static void build_queues(struct fw_snapshot *s, const struct opts *o, struct qgen *g,
			 struct fw_res capacity)
{
	int32_t Q = o->queues, *kids;

	queue_shape(Q, g);
	g->leaf = malloc((size_t)g->leaves * sizeof *g->leaf);
	g->cdf = malloc((size_t)g->leaves * sizeof *g->cdf);
	kids = malloc((size_t)Q * sizeof *kids);
	if (!g->leaf || !g->cdf || !kids)
		oom();
	for (int32_t i = 0; i < Q; i++)
		add_queue(s, g, i);
	split_tree(s, g, capacity, Q, kids);
	limits_and_usage(s, g, Q);
	leaf_popularity(g, kids);
	free(kids);
}

static int32_t pick_leaf(const struct qgen *g)
{
	double x = rng_unit() * g->cdf[g->leaves - 1];
	int32_t lo = 0, hi = g->leaves - 1;

	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;
		if (g->cdf[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return g->leaf[lo];
}

/* ---- nodes ------------------------------------------------------------ */

static struct fw_res build_nodes(struct fw_snapshot *s, const struct opts *o)
{
	struct fw_res cap = fw_res_zero();

	s->topology.nlevels = 3;
	strcpy(s->topology.level[LVL_BLOCK], "block");
	strcpy(s->topology.level[LVL_RACK], "rack");
	strcpy(s->topology.level[LVL_NVL], "nvlink");
	for (int32_t i = 0; i < o->nodes; i++) {
		struct fw_node n;
		int32_t blk = i / NODES_PER_BLOCK, rack = (i % NODES_PER_BLOCK) / NODES_PER_RACK;
		int32_t nvl = (i % NODES_PER_RACK) / NODES_PER_NVL;

		fw_node_init(&n);
		snprintf(n.name, sizeof n.name, "node-%05d", (int)i);
		/* every fifth block is the previous GPU generation */
		strcpy(n.gpu_model, blk % 5 == 4 ? MODEL_ALT : MODEL_MAIN);
		n.gpu_count = GPUS_PER_NODE;
		n.gpu_mem_mib = GPU_MEM_MIB;
		n.cpu_milli = NODE_CPU_MILLI;
		n.mem_mib = NODE_MEM_MIB;
		snprintf(n.path[LVL_BLOCK], FW_NAME_MAX, "b%03d", (int)blk);
		snprintf(n.path[LVL_RACK], FW_NAME_MAX, "r%02d", (int)rack);
		snprintf(n.path[LVL_NVL], FW_NAME_MAX, "v%d", (int)nvl);
		n.nlabels = 1;
		strcpy(n.labels[0].key, "nvidia.com/gpu.product");
		strcpy(n.labels[0].value, n.gpu_model);
		uint32_t r = rng_below(1000);
		if (r < 3) /* 0.3% cordoned */
			n.schedulable = false;
		else if (r < 8) /* 0.5% with one failed GPU */
			n.bad_gpu_mask = 1u << rng_below(GPUS_PER_NODE);
		/* health without drawing from the generator, so the default
		 * fleet (0%) is the same as before these flags existed */
		uint64_t hh = ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull;
		hh ^= hh >> 29;
		if ((int)(hh % 100) < o->lemon_pct)
			n.lemon = true;
		else if ((int)((hh >> 20) % 100) < o->suspect_pct)
			n.health = FW_HEALTH_SUSPECT;
		if ((int)((hh >> 40) % 1000) < o->unhealthy_pm)
			n.health = FW_HEALTH_UNHEALTHY; /* still schedulable: the world has not drained it */
		else if (n.schedulable && (int)((hh >> 50) % 100) < o->leaving_pct) {
			/* a reservation to come: leaves in 10 min .. 2 h 10 min, back 1 h later */
			n.away_at = NOW + 600 + (fw_time)((hh >> 8) % 7200);
			n.back_at = n.away_at + 3600;
		}
		if (fw_snapshot_add_node(s, &n) < 0)
			oom();
		cap.v[FW_RES_GPU] += 1000 * GPUS_PER_NODE;
		cap.v[FW_RES_CPU] += NODE_CPU_MILLI;
		cap.v[FW_RES_MEM] += NODE_MEM_MIB;
	}
	return cap;
}

/* ---- jobs ------------------------------------------------------------- */

/* One job of g GPUs: a single task up to a node, else tasks of 8 GPUs. */
static void shape_job(struct fw_job *j, int32_t g, const struct fw_snapshot *s)
{
	struct fw_task_group *t = &j->groups[0];
	int32_t per_task = g <= GPUS_PER_NODE ? g : GPUS_PER_NODE;
	int64_t cpu_per_gpu = 4000 + 2000 * (int64_t)rng_below(11);      /* 4..24 cores */
	int64_t mem_per_gpu = 32 * 1024 + 16 * 1024 * (int64_t)rng_below(11); /* 32..192 GiB */

	t->count = g <= GPUS_PER_NODE ? 1 : (g + GPUS_PER_NODE - 1) / GPUS_PER_NODE;
	t->gpus = per_task;
	t->gpu_milli = 1000;
	t->cpu_milli = cpu_per_gpu * per_task;
	t->mem_mib = mem_per_gpu * per_task;
	uint32_t m = rng_below(100);
	if (m < 7)
		strcpy(t->gpu_model, MODEL_MAIN);
	else if (m < 10)
		strcpy(t->gpu_model, MODEL_ALT);
	if (t->count > 1) {
		/* a gang stays inside one block; it would like one NVLink
		 * domain (up to 4 nodes) or one rack (up to 8) */
		j->required_level = LVL_BLOCK;
		j->preferred_level = t->count <= NODES_PER_NVL ? LVL_NVL : LVL_RACK;
	}
	j->spread = rng_below(100) == 0; /* 1% ask to be spread */
	(void)s;
}

/* Generation-time GPU occupancy (not in the snapshot: the cycle derives
 * it from the running jobs' allocations). */
static uint32_t free_mask(const struct fw_snapshot *s, const uint32_t *used, int32_t n)
{
	return ((1u << GPUS_PER_NODE) - 1) & ~used[n] & ~s->nodes[n].bad_gpu_mask;
}

static uint32_t lowest_bits(uint32_t m, int k)
{
	uint32_t r = 0;

	while (k-- > 0 && m) {
		uint32_t b = m & -m;
		r |= b;
		m &= ~b;
	}
	return r;
}

/* Place a running job of `tasks` tasks x `per_task` GPUs somewhere the way
 * a bin-packing scheduler would have: small jobs first-fit inside a random
 * rack, gangs on whole free nodes of one block.  Returns the number of
 * tasks placed (0 or tasks); nodes[]/masks[] get the placement. */
static int place_running(const struct fw_snapshot *s, const uint32_t *used, int32_t tasks,
			 int32_t per_task, int32_t *nodes, uint32_t *masks)
{
	int32_t nn = s->nnodes;

	for (int attempt = 0; attempt < 16; attempt++) {
		if (tasks == 1) {
			int32_t first = (int32_t)rng_below((uint32_t)nn) / NODES_PER_RACK * NODES_PER_RACK;
			for (int32_t n = first; n < first + NODES_PER_RACK && n < nn; n++) {
				uint32_t f = free_mask(s, used, n);
				if (!s->nodes[n].schedulable || __builtin_popcount(f) < per_task)
					continue;
				nodes[0] = n;
				masks[0] = lowest_bits(f, per_task);
				return 1;
			}
		} else {
			int32_t blk = (int32_t)rng_below((uint32_t)((nn + NODES_PER_BLOCK - 1) / NODES_PER_BLOCK));
			int32_t lo = blk * NODES_PER_BLOCK, hi = lo + NODES_PER_BLOCK < nn ? lo + NODES_PER_BLOCK : nn;
			int32_t start = lo + (int32_t)rng_below((uint32_t)(hi - lo)) / NODES_PER_RACK * NODES_PER_RACK;
			int32_t got = 0;
			for (int32_t k = 0; k < hi - lo && got < tasks; k++) {
				int32_t n = lo + (start - lo + k) % (hi - lo);
				if (s->nodes[n].schedulable && free_mask(s, used, n) == (1u << GPUS_PER_NODE) - 1) {
					nodes[got] = n;
					masks[got++] = (1u << GPUS_PER_NODE) - 1;
				}
			}
			if (got == tasks)
				return tasks;
		}
	}
	return 0;
}

static void add_job(struct fw_snapshot *s, const struct fw_job *j)
{
	if (fw_snapshot_add_job(s, j) < 0)
		oom();
}

/* Running jobs until busy_pct of the GPUs are held.  Returns how many. */
static int32_t build_running(struct fw_snapshot *s, const struct opts *o, const struct sizes *z,
			     const struct qgen *g, int64_t *busy_out)
{
	int64_t target = (int64_t)s->nnodes * GPUS_PER_NODE * o->busy_pct / 100, busy = 0;
	uint32_t *used = calloc((size_t)s->nnodes + 1, sizeof *used);
	int32_t nodes[1024], count = 0, misses = 0;
	uint32_t masks[1024];

	if (!used)
		oom();
	while (busy < target && misses < 10000) {
		int32_t k = (int32_t)rng_below((uint32_t)z->n), gpus = z->gpus[k];
		struct fw_job j;

		if (gpus > 1024 * GPUS_PER_NODE)
			continue;
		fw_job_init(&j);
		shape_job(&j, gpus, s);
		j.groups[0].gpu_model[0] = 0; /* running jobs: wherever they landed */
		int32_t placed = place_running(s, used, j.groups[0].count, j.groups[0].gpus, nodes, masks);
		if (!placed) {
			misses++;
			continue;
		}
		snprintf(j.name, sizeof j.name, "run-%07d", (int)count);
		j.queue = pick_leaf(g);
		snprintf(j.user, sizeof j.user, "user-%04d", (int)(j.queue * 3 + (int32_t)rng_below(3)));
		j.state = FW_JOB_RUNNING;
		j.expected_runtime = z->duration[k];
		j.start_time = NOW - (fw_time)(rng_unit() * (double)z->duration[k]);
		j.submit_time = j.start_time - (fw_time)rng_below(6 * 3600);
		j.preemptible = rng_below(4) == 0;
		j.alloc_first = s->nallocs;
		j.alloc_count = placed;
		for (int32_t t = 0; t < placed; t++) {
			struct fw_task_alloc a = { .node = nodes[t], .group = 0, .gpu_mask = masks[t], .gpu_milli = 1000 };
			used[nodes[t]] |= masks[t];
			busy += __builtin_popcount(masks[t]);
			if (fw_snapshot_add_alloc(s, &a) < 0)
				oom();
		}
		add_job(s, &j);
		count++;
	}
	free(used);
	*busy_out = busy;
	return count;
}

static void build_pending(struct fw_snapshot *s, const struct opts *o, const struct sizes *z,
			  const struct qgen *g)
{
	for (int32_t i = 0; i < o->jobs; i++) {
		int32_t k = (int32_t)rng_below((uint32_t)z->n);
		struct fw_job j;

		fw_job_init(&j);
		shape_job(&j, z->gpus[k], s);
		snprintf(j.name, sizeof j.name, "job-%07d", (int)i);
		j.queue = pick_leaf(g);
		snprintf(j.user, sizeof j.user, "user-%04d", (int)(j.queue * 3 + (int32_t)rng_below(3)));
		uint32_t p = rng_below(100);
		j.priority = p < 80 ? 0 : p < 95 ? 1 : 2;
		j.preemptible = rng_below(4) == 0;
		j.submit_time = NOW - (fw_time)rng_below((uint32_t)(14 * DAY));
		j.expected_runtime = z->duration[k];
		add_job(s, &j);
	}
}

/* A share of the pending jobs may start only on a quarter of the nodes,
 * as a Slurm --constraint on a feature of every fourth rack would say:
 * four such filters, each list stored once and shared (restrict_job_as).
 * Drawn after everything else, so that without it the snapshot is the
 * same as before the option existed. */
static void build_filters(struct fw_snapshot *s, const struct opts *o)
{
	int32_t *nodes = node_list(s), entry[4] = { -1, -1, -1, -1 };
	for (int32_t j = 0; j < s->njobs && o->filtered_pct > 0; j++) {
		if (s->jobs[j].state != FW_JOB_PENDING || (int)rng_below(100) >= o->filtered_pct)
			continue;
		int32_t f = (int32_t)rng_below(4), n = 0, rc;
		if (entry[f] >= 0) {
			rc = fw_snapshot_restrict_job_as(s, j, entry[f]);
		} else {
			for (int32_t i = 0; i < s->nnodes; i++)
				if ((i / NODES_PER_RACK) % 4 == f)
					nodes[n++] = i;
			rc = entry[f] = fw_snapshot_restrict_job(s, j, nodes, n);
		}
		if (rc < 0)
			oom();
	}
	free(nodes);
}

/* A share of the pending jobs each leave out one node of their own (a
 * Slurm --exclude of a node a user found flaky): as many distinct filters
 * as such jobs.  Stored as except entries (one reference each), or with
 * --excluding-as-lists as lists of every other node, what the Slurm
 * adapter built before except entries existed. */
static void build_excludes(struct fw_snapshot *s, const struct opts *o)
{
	int32_t *nodes = node_list(s);

	for (int32_t j = 0; j < s->njobs && o->excluding_pct > 0; j++) {
		if (s->jobs[j].state != FW_JOB_PENDING || (int)rng_below(100) >= o->excluding_pct)
			continue;
		int32_t x = (int32_t)rng_below((uint32_t)s->nnodes), n = 0, rc;
		if (o->excluding_lists) {
			for (int32_t i = 0; i < s->nnodes; i++)
				if (i != x)
					nodes[n++] = i;
			rc = fw_snapshot_restrict_job(s, j, nodes, n);
		} else {
			rc = fw_snapshot_restrict_job_except(s, j, &x, 1);
		}
		if (rc < 0)
			oom();
	}
	free(nodes);
}

/* A share of the pending gangs become two task groups, apart (a Slurm
 * heterogeneous job of two components, or a YAML job whose groups have a
 * nodeSelector each): the first task alone, the rest together, each group
 * restricted to a quarter of the nodes of its own (racks f and f + 1 mod
 * 4, as build_filters draws them): group filters, four lists shared
 * (restrict_group_like), as the adapters share alike answers.
 * Drawn last, so that without it the snapshot is the same as before. */
static void build_splits(struct fw_snapshot *s, const struct opts *o)
{
	int32_t *nodes = node_list(s), entry[4] = { -1, -1, -1, -1 };
	for (int32_t j = 0; j < s->njobs && o->split_pct > 0; j++) {
		struct fw_job *x = &s->jobs[j];
		if (x->state != FW_JOB_PENDING || x->ngroups != 1 || x->groups[0].count < 2 ||
		    (int)rng_below(100) >= o->split_pct)
			continue;
		int32_t f = (int32_t)rng_below(4);
		x->groups[1] = x->groups[0];
		x->groups[1].count = x->groups[0].count - 1;
		x->groups[0].count = 1;
		x->groups[0].apart = x->groups[1].apart = true;
		x->ngroups = 2;
		for (int g = 0; g < 2; g++) {
			int32_t n = 0, q = (f + g) % 4, rc;
			for (int32_t i = 0; i < s->nnodes && entry[q] < 0; i++)
				if ((i / NODES_PER_RACK) % 4 == q)
					nodes[n++] = i;
			rc = entry[q] >= 0 ? fw_snapshot_restrict_group_like(s, j, g, entry[q])
					   : (entry[q] = fw_snapshot_restrict_group(s, j, g, nodes, n, 0));
			if (rc < 0)
				oom();
		}
	}
	free(nodes);
}

/* A share of the pending gangs that span more than one NVLink domain's
 * nodes are placed in slices of one domain (snapshot.h "Slices"): 4 nodes
 * when the count allows, else 2 (odd counts stay as they are).  Drawn
 * after the splits, so that without it the snapshot is the same. */
static void build_slices(struct fw_snapshot *s, const struct opts *o)
{
	for (int32_t j = 0; j < s->njobs && o->sliced_pct > 0; j++) {
		const struct fw_job *x = &s->jobs[j];
		int32_t n = x->groups[0].count;
		if (x->state != FW_JOB_PENDING || x->ngroups != 1 || n <= NODES_PER_NVL || n % 2 != 0 ||
		    (int)rng_below(100) >= o->sliced_pct)
			continue;
		if (fw_snapshot_slice_group(s, j, 0, n % NODES_PER_NVL == 0 ? NODES_PER_NVL : 2, LVL_NVL) < 0)
			oom();
	}
}

/* The gangs started or reserved that build_slices could slice (more than
 * one NVLink domain's nodes, an even count), and how many of them have a
 * run of the slice size (4 nodes, else 2: one model replica) across two
 * NVLink domains: what slices prevent (0 for the sliced ones). */
static void print_straddles(const struct fw_snapshot *s, const struct fw_plan *p)
{
	int32_t gangs = 0, split = 0, sliced = 0;

	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		if (d->kind != FW_DECIDE_START && d->kind != FW_DECIDE_RESERVE) /* a drain names no job */
			continue;
		const struct fw_job *j = &s->jobs[d->job];
		int32_t n = j->groups[0].count, size = n % NODES_PER_NVL == 0 ? NODES_PER_NVL : 2;
		bool across = false;
		if (j->ngroups != 1 ||
		    n <= NODES_PER_NVL || n % 2 != 0 || d->alloc_count != n)
			continue;
		for (int32_t k = 0; k < n && !across; k++) {
			const struct fw_node *a = &s->nodes[p->allocs[d->alloc_first + k].node];
			const struct fw_node *b = &s->nodes[p->allocs[d->alloc_first + k / size * size].node];
			for (int l = 0; l <= LVL_NVL; l++)
				across = across || strcmp(a->path[l], b->path[l]) != 0;
		}
		gangs++;
		split += across;
		sliced += s->nslices > 0 && fw_snapshot_slices_entry(s, d->job) >= 0;
	}
	printf("gangs over one NVLink domain's nodes: %d started or reserved (%d in slices), %d with a replica "
	       "(a run of 4 nodes, else 2) across two NVLink domains\n",
	       (int)gangs, (int)sliced, (int)split);
}

/* ---- measuring -------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* CPU time of this process: with the wall time, shows whether a slow
 * cycle was slow or just preempted by a neighbour on a shared machine. */
static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double percentile(const double *v, int n, double p)
{
	int k = (int)ceil(p / 100.0 * n);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

/* FNV-1a over the plan's decisions, placements and pending reasons (with
 * their arguments): equal plans, equal hash.  Printed so that a change to
 * lib/ that should not change decisions can be checked with this bench. */
static uint64_t mix(uint64_t h, int64_t v)
{
	return (h ^ (uint64_t)v) * 1099511628211ull;
}

/* Decisions and placements only (what an adapter carries out). */
static uint64_t decisions_hash(const struct fw_plan *p)
{
	uint64_t h = 1469598103934665603ull;

	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		h = mix(mix(mix(mix(mix(h, d->kind), d->job), d->at), d->alloc_first), d->alloc_count);
	}
	for (int32_t i = 0; i < p->nallocs; i++)
		h = mix(mix(mix(h, p->allocs[i].node), p->allocs[i].gpu_mask), p->allocs[i].gpu_milli);
	return h;
}

/* The start-time estimates of the pending jobs (the estimate phase). */
static uint64_t estimates_hash(const struct fw_plan *p)
{
	uint64_t h = 0x9e3779b97f4a7c15u;

	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *r = &p->pending[i];
		h = mix(mix(mix(mix(mix(mix(h, r->job), r->expected_start), r->unknown_why), r->ahead), r->why_a), r->why_b);
	}
	return h;
}

/* ... and the reasons given for every pending job. */
static uint64_t plan_hash(const struct fw_plan *p)
{
	uint64_t h = decisions_hash(p);

	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *r = &p->pending[i];
		h = mix(mix(mix(mix(h, r->job), r->reason), r->a), r->b);
	}
	return h;
}

/* --model-limits PCT: every PCT-th in a hundred leaf queues (by index)
 * caps the main model at its deserved GPUs and the other at a quarter of
 * them.  With deserved, --model-deserved PCT: such queues deserve three
 * quarters of their deserved GPUs as the main model and a quarter as the
 * other. */
static void add_model_entries(struct fw_snapshot *s, int pct, bool deserved)
{
	bool *parent = calloc((size_t)s->nqueues + 1, 1);
	int32_t leaves = 0, n = 0;

	if (!parent)
		oom();
	for (int32_t q = 0; pct > 0 && q < s->nqueues; q++)
		if (s->queues[q].parent >= 0)
			parent[s->queues[q].parent] = true;
	for (int32_t q = 0; pct > 0 && q < s->nqueues; q++) {
		if (parent[q] || leaves++ % 100 >= pct)
			continue;
		int64_t gpus = s->queues[q].deserved.v[FW_RES_GPU];
		struct fw_model_limit m = { .queue = q, .gpus = deserved ? gpus / 4 * 3 : gpus };
		strcpy(m.model, MODEL_MAIN);
		if ((deserved ? fw_snapshot_add_model_deserved(s, &m) : fw_snapshot_add_model_limit(s, &m)) < 0)
			oom();
		m.gpus = gpus / 4;
		strcpy(m.model, MODEL_ALT);
		if ((deserved ? fw_snapshot_add_model_deserved(s, &m) : fw_snapshot_add_model_limit(s, &m)) < 0)
			oom();
		n++;
	}
	if (n && deserved)
		printf("GPU models deserved: %d leaf queues deserve 3/4 of their deserved GPUs as %s and 1/4 as %s\n",
		       (int)n, MODEL_MAIN, MODEL_ALT);
	else if (n)
		printf("GPU model limits: %d leaf queues cap %s at their deserved GPUs and %s at a quarter\n", (int)n,
		       MODEL_MAIN, MODEL_ALT);
	free(parent);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_cycle [--nodes N] [--jobs N] [--queues N] [--cycles N] [--seed S] [--busy PCT]\n"
		"                   [--policy NAME] [--no-estimates] [--allocate-only] [--filtered PCT]\n"
		"                   [--excluding PCT [--excluding-as-lists]] [--split PCT] [--sliced PCT]\n"
		"                   [--xfactor-cap S] [--estimate-depth N]\n"
		"                   [--users N] [--model-limits PCT] [--model-deserved PCT]\n"
		"                   [--checkpoint-grace S] [--max-runtime S] [--job-max-runtime S]\n"
		"                   [--budgets PCT [--budget-safe]] [--leaving PCT]\n"
		"\n"
		"Times fw_cycle_run() on a synthetic fleet (docs/performance.md):\n"
		"  --nodes N    nodes of 8 GPUs, block > rack > nvlink topology (default 10000)\n"
		"  --jobs N     pending jobs, sizes from the Microsoft ITP trace (default 100000)\n"
		"  --queues N   queues in a 3-level org > dept > team tree (default 1000)\n"
		"  --cycles N   timed cycles after one warm-up (default 20)\n"
		"  --seed S     generator seed (default 1)\n"
		"  --busy PCT   share of GPUs held by running jobs (default 50)\n"
		"  --filtered PCT\n"
		"               pending jobs that may start only on a quarter of the nodes (a\n"
		"               Slurm --constraint; default 0): the cost of node filters\n"
		"  --excluding PCT [--excluding-as-lists]\n"
		"               pending jobs that each leave out one node of their own (a Slurm\n"
		"               --exclude; default 0; not with --filtered): except filters, or\n"
		"               with --excluding-as-lists lists of every other node\n"
		"  --split PCT  pending gangs split in two groups, apart, each group allowed a\n"
		"               quarter of the nodes of its own (a Slurm het job's components, or\n"
		"               a YAML job's per-group nodeSelector; default 0): group filters\n"
		"  --sliced PCT pending gangs of more than one NVLink domain's nodes placed in\n"
		"               slices of one domain each (4 nodes, else 2; a YAML job's\n"
		"               tasks[i].slice; default 0): the cost of slices\n"
		"  --lemons PCT, --suspect PCT\n"
		"               nodes with a fault history (lemons) / on probation (default 0):\n"
		"               the cost of health-aware placement (small jobs try them first)\n"
		"  --unhealthy PERMILLE\n"
		"               nodes reported unhealthy, per thousand (default 0): the plan drains\n"
		"               them, requeues their jobs and restarts those elsewhere where they\n"
		"               fit, in the same plan (docs/health.md): the cost of the drain\n"
		"  --leaving PCT\n"
		"               nodes in service that leave later (a reservation to come in the\n"
		"               cluster manager: fw_node.away_at, back an hour later; default 0):\n"
		"               the cost of planning around departures\n"
		"  --policy P   scheduling policy (default: the library's default, fairway)\n"
		"  --xfactor-cap S  scheduler.xfactorCap in seconds: the expansion-factor order\n"
		"               inside a queue (default: the policy's, fairway 43200; 0: submit order)\n"
		"  --estimate-depth N  scheduler.estimateDepth: how many blocked jobs' estimates\n"
		"               count the jobs ahead (default: the engine's, 256; 0: none)\n"
		"  --users N    job j belongs to user j mod N, and users take turns inside each\n"
		"               queue (scheduler.userFairShare; default 0: off)\n"
		"  --model-limits PCT\n"
		"               leaf queues with GPU model limits (gpuModelLimits; default 0): the\n"
		"               main model capped at the queue's deserved GPUs, the other at a\n"
		"               quarter of them, so jobs naming no model are kept to some models\n"
		"  --model-deserved PCT\n"
		"               leaf queues deserving GPUs of a model (gpuModelDeserved; default\n"
		"               0): 3/4 of their deserved GPUs as the main model, 1/4 as the other,\n"
		"               so their jobs naming a model may claim them back in allocate\n"
		"  --checkpoint-grace S\n"
		"               evictions wait up to S seconds for their victims' checkpoints\n"
		"               (scheduler.checkpointGrace; default 0: off), every job saving\n"
		"               every 30 min (the root queues' defaultCheckpointInterval)\n"
		"  --max-runtime S\n"
		"               the root queues' run-time limit (maxRuntime; default 0: none):\n"
		"               running jobs that have run S seconds end in the cycle, and\n"
		"               planning assumes no job runs longer\n"
		"  --job-max-runtime S\n"
		"               every job's own run-time limit (jobs[i].maxRuntime; default 0:\n"
		"               none): the same, set per job\n"
		"  --budgets PCT\n"
		"               PCT of the leaf queues get a GPU-hour budget (gpuHourBudget) of a\n"
		"               week at their deserved GPUs; their usage is 0 to 2 weeks' worth,\n"
		"               so about half of them have used it and start nothing\n"
		"  --budget-safe   with --budgets: scheduler.budgetSafe (a job starts only if its\n"
		"               whole run fits what its budget has left)\n"
		"  --no-estimates  skip the start-time estimate phase (scheduler.estimateStarts: false)\n"
		"  --allocate-only the allocate action alone: the policy without reservations,\n"
		"               reclaim or estimates (the core issue's benchmark)\n"
		"Job sizes come from $FAIRWAY_TRACES/microsoft-itp/*.csv (default ../shared/traces),\n"
		"else from a built-in summary of those files.  The last line is machine-readable.\n");
}

static int parse_long(const char *flag, const char *v, long long lo, long long hi, long long *out)
{
	char *end;

	if (!v) {
		fprintf(stderr, "bench_cycle: %s needs a value\n", flag);
		return -1;
	}
	errno = 0;
	*out = strtoll(v, &end, 10);
	if (errno || end == v || *end || *out < lo || *out > hi) {
		fprintf(stderr, "bench_cycle: %s: '%s' is not a number in %lld..%lld\n", flag, v, lo, hi);
		return -1;
	}
	return 0;
}

static void opts_defaults(struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->nodes = 10000;
	o->jobs = 100000;
	o->queues = 1000;
	o->cycles = 20;
	o->seed = 1;
	o->busy_pct = 50;
	o->xfactor_cap = -1;
	o->estimate_depth = -1;
	o->policy = fw_policy_default();
}

/* The numeric flags: 1 (taken, with its value v), 0 (not one) or -1 (a
 * bad value, said). */
static int number_flag(struct opts *o, const char *a, const char *v)
{
	long long x;

#define FLAG(name, lo, hi, dst)                                        \
	if (strcmp(a, name) == 0) {                                    \
		if (parse_long(name, v, lo, hi, &x))                   \
			return -1;                                     \
		dst = x;                                               \
		return 1;                                              \
	}
	FLAG("--nodes", 1, 1000000, o->nodes)
	FLAG("--jobs", 0, 10000000, o->jobs)
	FLAG("--queues", 3, 1000000, o->queues)
	FLAG("--cycles", 1, 100000, o->cycles)
	FLAG("--seed", 0, INT64_MAX, o->seed)
	FLAG("--busy", 0, 100, o->busy_pct)
	FLAG("--filtered", 0, 100, o->filtered_pct)
	FLAG("--excluding", 0, 100, o->excluding_pct)
	FLAG("--split", 0, 100, o->split_pct)
	FLAG("--sliced", 0, 100, o->sliced_pct)
	FLAG("--lemons", 0, 100, o->lemon_pct)
	FLAG("--suspect", 0, 100, o->suspect_pct)
	FLAG("--unhealthy", 0, 1000, o->unhealthy_pm)
	FLAG("--leaving", 0, 100, o->leaving_pct)
	FLAG("--xfactor-cap", 0, FW_XFACTOR_CAP_MAX, o->xfactor_cap)
	FLAG("--estimate-depth", 0, FW_ESTIMATE_DEPTH_MAX, o->estimate_depth)
	FLAG("--users", 0, 1000000, o->users)
	FLAG("--model-limits", 0, 100, o->model_limits_pct)
	FLAG("--model-deserved", 0, 100, o->model_deserved_pct)
	FLAG("--checkpoint-grace", 0, FW_CHECKPOINT_GRACE_MAX, o->grace)
	FLAG("--max-runtime", 0, 31536000, o->max_runtime)
	FLAG("--job-max-runtime", 0, 31536000, o->job_max_runtime)
	FLAG("--budgets", 0, 100, o->budgets_pct)
#undef FLAG
	return 0;
}

/* The switches: true when a is one. */
static bool switch_flag(struct opts *o, const char *a)
{
	if (strcmp(a, "--budget-safe") == 0)
		o->budget_safe = true;
	else if (strcmp(a, "--no-estimates") == 0)
		o->no_estimates = true;
	else if (strcmp(a, "--allocate-only") == 0)
		o->allocate_only = true;
	else if (strcmp(a, "--excluding-as-lists") == 0)
		o->excluding_lists = true;
	else
		return false;
	return true;
}

/* --policy v: 0, or -1 naming the policies built in. */
static int policy_flag(struct opts *o, const char *v)
{
	if (!v || !(o->policy = fw_policy_find(v))) {
		fprintf(stderr, "bench_cycle: --policy: unknown policy '%s'; known:", v ? v : "");
		for (const struct fw_policy_ops *const *p = fw_policy_list(); *p; p++)
			fprintf(stderr, " %s", (*p)->name);
		fprintf(stderr, "\n");
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	opts_defaults(o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			exit(0);
		}
		if ((rc = number_flag(o, a, v)) == 0 && strcmp(a, "--policy") == 0)
			rc = policy_flag(o, v) != 0 ? -1 : 1;
		if (rc < 0)
			return -1;
		if (rc > 0) { /* the value was the next word */
			i++;
			continue;
		}
		if (switch_flag(o, a))
			continue;
		fprintf(stderr, "bench_cycle: unknown argument '%s'\n", a);
		usage(stderr);
		return -1;
	}
	if (o->filtered_pct > 0 && o->excluding_pct > 0) {
		fprintf(stderr, "bench_cycle: --filtered and --excluding: give one of them (a job has one node filter)\n");
		return -1;
	}
	return 0;
}

/* What the generated snapshot holds, before any cycle. */
static void print_fleet(const struct fw_snapshot *s, const struct opts *o, const struct sizes *z,
			const struct qgen *g, int32_t nrunning, int64_t busy)
{
	printf("job sizes: %s\n", z->source);
	printf("fleet: %d nodes x %d GPUs = %lld GPUs; topology block(%d nodes) > rack(%d) > nvlink(%d) > node\n",
	       (int)s->nnodes, GPUS_PER_NODE, (long long)s->nnodes * GPUS_PER_NODE, NODES_PER_BLOCK,
	       NODES_PER_RACK, NODES_PER_NVL);
	printf("queues: %d (%d orgs > %d depts > %d teams)\n", (int)s->nqueues, (int)g->orgs, (int)g->depts,
	       (int)g->leaves);
	printf("jobs: %d running holding %lld GPUs (%.1f%%) in %d tasks, %d pending\n", (int)nrunning,
	       (long long)busy, 100.0 * (double)busy / ((double)s->nnodes * GPUS_PER_NODE), (int)s->nallocs,
	       (int)o->jobs);
	if (s->njob_nodes)
		printf("node filters: %d pending jobs may start only on a quarter of the nodes\n", (int)s->njob_nodes);
	if (s->ngroup_nodes)
		printf("group filters: %d pending gangs in two groups, each on a quarter of the nodes\n",
		       (int)s->ngroup_nodes / 2);
}

/* The scheduler settings the options name; --allocate-only points
 * o->policy at *alloc_only. */
static void apply_settings(struct fw_snapshot *s, struct opts *o, struct fw_policy_ops *alloc_only)
{
	if (o->allocate_only) {
		/* The core issue's benchmark: one allocate action.  The chosen
		 * policy's ordering and placement, without the phases later
		 * issues added (reservations, start-time estimates, reclaim). */
		*alloc_only = *o->policy;
		alloc_only->reserve_depth = 0;
		alloc_only->reclaim = false;
		o->policy = alloc_only;
		o->no_estimates = true;
	}
	s->config.estimate_starts = !o->no_estimates;
	if (o->xfactor_cap >= 0) /* 0: submit order */
		s->config.xfactor_cap_s = o->xfactor_cap ? o->xfactor_cap : -1;
	if (o->estimate_depth >= 0) /* 0: none */
		s->config.estimate_depth = o->estimate_depth ? (int32_t)o->estimate_depth : -1;
	for (int32_t j = 0; o->users > 0 && j < s->njobs; j++) /* names only: the snapshot is drawn */
		snprintf(s->jobs[j].user, sizeof s->jobs[j].user, "user%d", (int)(j % o->users));
	s->config.user_fair_share = o->users > 0;
	add_model_entries(s, o->model_limits_pct, false);
	add_model_entries(s, o->model_deserved_pct, true);
	s->config.checkpoint_grace_s = o->grace;
	s->config.budget_safe = o->budget_safe;
}

/* The queues' and jobs' own settings: the roots' checkpoint interval
 * and maxRuntime, the leaves' budgets, every job's maxRuntime. */
static void apply_queue_settings(struct fw_snapshot *s, const struct opts *o)
{
	for (int32_t q = 0; o->grace > 0 && q < s->nqueues; q++) /* the roots: every job inherits it */
		if (s->queues[q].parent < 0)
			s->queues[q].default_checkpoint_s = 1800;
	for (int32_t q = 0; o->max_runtime > 0 && q < s->nqueues; q++)
		if (s->queues[q].parent < 0)
			s->queues[q].max_runtime_s = o->max_runtime;
	for (int32_t q = 0, leaf = 0; o->budgets_pct > 0 && q < s->nqueues; q++) {
		bool is_leaf = true;
		for (int32_t k = 0; k < s->nqueues && is_leaf; k++)
			is_leaf = s->queues[k].parent != q;
		if (is_leaf && leaf++ % 100 < o->budgets_pct)
			s->queues[q].gpu_hour_budget = (double)s->queues[q].deserved.v[FW_RES_GPU] / 1000.0 * 7 * 24;
	}
	for (int32_t j = 0; o->job_max_runtime > 0 && j < s->njobs; j++)
		s->jobs[j].max_runtime_s = (int32_t)o->job_max_runtime;
}

/* The snapshot, drawn from the options and the job sizes. */
static void generate(struct fw_snapshot *s, struct opts *o, const struct sizes *z, struct qgen *g,
		     struct fw_policy_ops *alloc_only)
{
	double t0 = now_ms();
	int64_t busy;

	s->now = NOW;
	struct fw_res capacity = build_nodes(s, o);
	build_queues(s, o, g, capacity);
	int32_t nrunning = build_running(s, o, z, g, &busy);
	build_pending(s, o, z, g);
	build_filters(s, o);
	build_excludes(s, o);
	build_splits(s, o);
	build_slices(s, o);
	print_fleet(s, o, z, g, nrunning, busy);
	apply_settings(s, o, alloc_only);
	apply_queue_settings(s, o);
	printf("policy: %s%s%s\n", o->policy->name, o->allocate_only ? ", allocate action only" : "",
	       o->no_estimates && !o->allocate_only ? " (start-time estimates off)" : "");
	printf("generated in %.0f ms\n", now_ms() - t0);
}

static int validate(const struct fw_snapshot *s)
{
	struct fw_diag diag;
	double t0 = now_ms();

	if (fw_snapshot_validate(s, &diag) != FW_OK) {
		char buf[1024];
		fw_diag_format(&diag, buf, sizeof buf);
		fprintf(stderr, "bench_cycle: generated snapshot is invalid: %s\n", buf);
		return 1;
	}
	printf("validated in %.0f ms (not part of the cycle)\n", now_ms() - t0);
	return 0;
}

/* Warm-up cycle: faults the snapshot in and learns the arena size, so
 * every timed cycle runs in one retained arena block, as a daemon that
 * sizes its arena once would.  *hash: its plan's. */
static int warm_up(const struct fw_snapshot *s, const struct fw_policy_ops *policy, struct fw_arena *arena,
		   uint64_t *hash)
{
	struct fw_plan *plan = NULL;
	double t0 = now_ms();
	int rc;

	fw_arena_init(arena, 0);
	if ((rc = fw_cycle_run(s, policy, arena, &plan)) != FW_OK) {
		fprintf(stderr, "bench_cycle: fw_cycle_run: %s\n", fw_strerror(rc));
		return 1;
	}
	double warm_ms = now_ms() - t0;
	size_t arena_bytes = fw_arena_used(arena);
	*hash = plan_hash(plan);
	fw_arena_release(arena);
	fw_arena_init(arena, (arena_bytes + arena_bytes / 4 + ((size_t)1 << 20)) & ~(((size_t)1 << 20) - 1));
	printf("warm-up cycle: %.1f ms, arena %.1f MiB\n", warm_ms, (double)arena_bytes / 1048576.0);
	return 0;
}

/* The timed cycles, each in the reset arena: wall and CPU ms into ms[]
 * and cpu[]; each plan must hash as the warm-up's.  *plan: the last. */
static int timed_cycles(const struct fw_snapshot *s, const struct fw_policy_ops *policy, struct fw_arena *arena,
			int cycles, uint64_t hash, double *ms, double *cpu, struct fw_plan **plan)
{
	for (int i = 0; i < cycles; i++) {
		fw_arena_reset(arena);
		double c0 = cpu_ms(), t0 = now_ms();
		int rc = fw_cycle_run(s, policy, arena, plan);
		ms[i] = now_ms() - t0;
		cpu[i] = cpu_ms() - c0;
		if (rc != FW_OK) {
			fprintf(stderr, "bench_cycle: fw_cycle_run: %s\n", fw_strerror(rc));
			return 1;
		}
		if (plan_hash(*plan) != hash) {
			fprintf(stderr, "bench_cycle: cycle %d produced a different plan (not deterministic)\n", i);
			return 1;
		}
	}
	return 0;
}

/* A plan's decisions counted by kind, evictions and pending jobs by
 * reason, the pending jobs without a start estimate by why (unknown);
 * restarts: starts of jobs a drain evicted earlier in the plan. */
struct plan_counts {
	int64_t started_gpus, reasons[FW_REASON_COUNT], unknown[FW_REASON_COUNT], nunknown;
	int32_t starts, reserves, evicts, evict_why[FW_REASON_COUNT], restarts, drains;
};

static void count_plan(const struct fw_snapshot *s, const struct fw_plan *plan, bool drains,
		       struct plan_counts *c)
{
	bool *drained = drains ? calloc((size_t)s->njobs + 1, sizeof *drained) : NULL;

	memset(c, 0, sizeof *c);
	for (int32_t i = 0; i < plan->ndecisions; i++) {
		const struct fw_decision *d = &plan->decisions[i];
		if (d->kind == FW_DECIDE_START) {
			c->starts++;
			c->restarts += drained && drained[d->job]; /* after its eviction */
			c->started_gpus += d->a;
		} else if (d->kind == FW_DECIDE_RESERVE) {
			c->reserves++;
		} else if (d->kind == FW_DECIDE_DRAIN) {
			c->drains++;
		} else if (d->kind == FW_DECIDE_EVICT) {
			c->evicts++;
			c->evict_why[d->reason]++;
			if (drained && d->reason == FW_REASON_DRAINED)
				drained[d->job] = true;
		}
	}
	for (int32_t i = 0; i < plan->npending; i++) {
		const struct fw_pending *r = &plan->pending[i];
		c->reasons[r->reason]++;
		if (r->expected_start == FW_TIME_UNKNOWN) {
			c->unknown[r->unknown_why]++;
			c->nunknown++;
		}
	}
	free(drained);
}

static void print_plan(const struct fw_plan *plan, const struct plan_counts *c, uint64_t hash)
{
	printf("plan: %d starts (%lld GPUs), %d reservations, %d evictions, %d task placements, %d pending, "
	       "%lld jobs considered\n",
	       (int)c->starts, (long long)c->started_gpus, (int)c->reserves, (int)c->evicts, (int)plan->nallocs,
	       (int)plan->npending, (long long)plan->considered);
	printf("plan hash: decisions %016" PRIx64 ", with pending reasons %016" PRIx64 "; estimates %016" PRIx64 "\n",
	       decisions_hash(plan), hash, estimates_hash(plan));
	printf("evictions by reason:");
	for (int r = 0; r < FW_REASON_COUNT; r++)
		if (c->evict_why[r])
			printf(" %s=%d", fw_reason_name((enum fw_reason)r), (int)c->evict_why[r]);
	printf("\n");
	if (c->drains)
		printf("drains: %d nodes; %d of the %d jobs they requeued started again elsewhere in this plan\n",
		       (int)c->drains, (int)c->restarts, (int)c->evict_why[FW_REASON_DRAINED]);
	printf("pending reasons:");
	for (int r = 0; r < FW_REASON_COUNT; r++)
		if (c->reasons[r])
			printf(" %s=%lld", fw_reason_name((enum fw_reason)r), (long long)c->reasons[r]);
	printf("\n");
	printf("start unknown: %lld of %d pending jobs", (long long)c->nunknown, (int)plan->npending);
	for (int r = 0; r < FW_REASON_COUNT; r++)
		if (c->unknown[r])
			printf(" %s=%lld", fw_reason_name((enum fw_reason)r), (long long)c->unknown[r]);
	printf("\n");
}

static int check_plan(const struct fw_snapshot *s, const struct fw_plan *plan)
{
	struct fw_arena check_arena;
	struct fw_diag diag;
	double t0;
	int rc;

	fw_arena_init(&check_arena, 0);
	t0 = now_ms();
	rc = fw_plan_check(s, plan, &check_arena, &diag);
	if (rc != FW_OK) {
		char buf[1024];
		if (rc == FW_EINVARIANT) {
			fw_diag_format(&diag, buf, sizeof buf);
			fprintf(stderr, "bench_cycle: fw_plan_check: %s\n", buf);
		} else {
			fprintf(stderr, "bench_cycle: fw_plan_check: %s\n", fw_strerror(rc));
		}
		return 1;
	}
	printf("fw_plan_check: ok (%.1f ms)\n", now_ms() - t0);
	fw_arena_release(&check_arena);
	return 0;
}

/* The timed cycles' wall and CPU times (sorted here), and the summary
 * line the scripts read. */
static void print_times(const struct fw_snapshot *s, const struct opts *o, double *ms, double *cpu, int32_t starts)
{
	struct rusage ru;
	double sorted_min, mean = 0;

	for (int i = 0; i < o->cycles; i++)
		mean += ms[i] / o->cycles;
	qsort(ms, (size_t)o->cycles, sizeof *ms, dbl_cmp);
	qsort(cpu, (size_t)o->cycles, sizeof *cpu, dbl_cmp);
	sorted_min = ms[0];
	getrusage(RUSAGE_SELF, &ru);
	printf("cycles: %d timed, wall min %.1f ms, mean %.1f ms, max %.1f ms; cpu p50 %.1f ms, p99 %.1f ms\n",
	       o->cycles, sorted_min, mean, ms[o->cycles - 1], percentile(cpu, o->cycles, 50),
	       percentile(cpu, o->cycles, 99));
	printf("cycle_ms_p50=%.1f cycle_ms_p99=%.1f rss_mb=%ld nodes=%d jobs=%d queues=%d starts=%d\n",
	       percentile(ms, o->cycles, 50), percentile(ms, o->cycles, 99), (long)(ru.ru_maxrss / 1024),
	       (int)s->nnodes, (int)o->jobs, (int)s->nqueues, (int)starts);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct sizes z;
	struct qgen g;
	struct fw_snapshot *s;
	struct fw_arena arena;
	struct fw_plan *plan = NULL;
	struct fw_policy_ops alloc_only;
	struct plan_counts counts;
	uint64_t first_hash;
	double *ms, *cpu;

	if (parse_args(argc, argv, &o) != 0)
		return 2;
	rng_seed(o.seed);
	if (sizes_load(&z) != 0 || !(s = fw_snapshot_new())) {
		fprintf(stderr, "bench_cycle: out of memory\n");
		return 1;
	}
	generate(s, &o, &z, &g, &alloc_only);
	if (validate(s) != 0 || warm_up(s, o.policy, &arena, &first_hash) != 0)
		return 1;
	ms = malloc((size_t)o.cycles * sizeof *ms);
	cpu = malloc((size_t)o.cycles * sizeof *cpu);
	if (!ms || !cpu || timed_cycles(s, o.policy, &arena, o.cycles, first_hash, ms, cpu, &plan) != 0)
		return 1;
	count_plan(s, plan, o.unhealthy_pm != 0, &counts);
	print_straddles(s, plan);
	print_plan(plan, &counts, first_hash);
	if (check_plan(s, plan) != 0)
		return 1;
	print_times(s, &o, ms, cpu, counts.starts);
	fw_arena_release(&arena);
	fw_snapshot_free(s);
	free(ms);
	free(cpu);
	free(z.gpus);
	free(z.duration);
	free(g.leaf);
	free(g.cdf);
	return 0;
}
