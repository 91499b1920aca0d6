/*
 * des.c — the discrete-event replay (contract and semantics in des.h).
 *
 * Shape.  `struct sim` holds the virtual cluster as a live fw_snapshot and
 * the event sources: the arrival order (rows sorted by submit time, then
 * row), a binary min-heap of completions keyed by (end, row) and the tick
 * clock.  The loop (run_loop) either steps to the next tick (while a
 * waiting job could fit and the tick rule wants it) or jumps to the first
 * tick at or after the next event; it drains every event up to the tick
 * and runs at most one cycle there.  A cycle is: compact the snapshot,
 * age queue usage to now, fw_cycle_run, fw_plan_check, apply the starts.
 *
 * Incremental snapshot.  Arrivals are appended to snapshot.jobs (so job
 * index order = arrival order, which is what the policies' tie-breaks
 * see); a finished job is only flagged, and the flagged jobs are removed
 * in one stable pass before the next cycle, which also rewrites the
 * allocation array in job order.  The snapshot therefore holds exactly
 * the pending and running jobs, and each cycle costs O(pending + running)
 * plus the engine's own work, never O(trace).
 *
 * Determinism: no clock, RNG or hash order reaches a decision; the only
 * clock read is the replay's wall time, which is reported, never used.
 */
#define _XOPEN_SOURCE 700 /* realpath() (XSI), for one_vc_of; the build defines only POSIX 2008 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fairway/budget.h"
#include "fairway/check.h"
#include "fairway/cycle.h"
#include "fairway/fairshare.h"
#include "fairway/snapshot.h"
#include "fairway/span.h"
#include "cliword.h"
#include "des.h"
#include "synth.h"
#include "fleet.h"
#include "trace.h"

#define LN2 0.69314718055994530942
#define HALF_LIFE_MAX_S (86400LL * 365 * 100) /* fw_sim_opts.usage_half_life_s: 100 years */

struct buf {
	char *p;
	size_t n, cap;
	bool oom;
};

struct ev {
	int64_t t;
	int32_t row;
};

struct heap {
	struct ev *v;
	size_t n, cap;
};

struct sim {
	int64_t short_milli;       /* model_short: the last plan's shortfall ... */
	fw_time short_t;           /* ... and its time */
	int32_t ckpt_waiting;      /* checkpoint_wait entries of the last plan */
	fw_time ckpt_at;           /* ... and its time */
	const struct fw_trace *t;
	const struct fw_sim_opts *o;
	const struct fw_policy_ops *pol;
	struct fw_snapshot *s;
	struct fw_arena arena;
	struct ev *arrival;        /* (submit, row), sorted */
	size_t next_arr;
	struct heap done;          /* completions (end, row) */
	struct heap limits;        /* run-time limits (start + limit, row) of
				    * running jobs that would outlive them */
	bool *limited;             /* per row: it has an entry in limits */
	int32_t *row_of;           /* snapshot job -> trace row */
	bool *gone;                /* finished, removed at the next compaction */
	int32_t jcap;
	int32_t *snap_of;          /* trace row -> snapshot job */
	struct fw_task_alloc *ascratch;
	int32_t acap;
	int64_t qalloc[FW_TEAMS_MAX]; /* milli-GPU allocated per queue */
	int32_t qpending[FW_TEAMS_MAX]; /* pending jobs per queue */
	/* GPU-hour budgets (o->gpu_hour_budget): when a held queue with
	 * pending jobs next falls below its budget (budget_wake), INT64_MAX =
	 * none; per row, whether a plan left it pending over budget */
	int64_t budget_at;
	bool *over_budget;
	bool budgets;              /* some queue has a GPU-hour budget */
	/* budget_safe under `change` (short_wakes): the earliest expected
	 * start after its now of the jobs the last plan left budget_short
	 * (the engine's, no sooner than their runs fit what is left:
	 * short_wake), INT64_MAX = none, and how many it left so (start
	 * estimates stay on while any is) */
	int64_t short_at;
	int32_t nshort;
	/* Held-only ticks (note_quiet): after the last plan, every waiting
	 * job that could fit was held over its budget, until quiet_until at
	 * the latest (a queue with waiting jobs reaching its budget) */
	bool quiet;
	int64_t quiet_until;
	int64_t short_hold; /* but under `change`, the earliest short_hold of
			     * the last plan's short jobs (now + 1 for one
			     * not held), INT64_MAX = none: a wake */
	/* users' decayed usage per queue (snapshot user_usage), kept with
	 * user_fair_share: per trace row its entry (-1: none), per entry the
	 * milli-GPUs its running jobs hold, and the entries' table by
	 * (queue, user): index + 1, 0 = empty */
	int32_t *urow;
	int64_t *ualloc;
	int32_t *utab, ucap;
	int32_t npending, ngone;
	int32_t unestimated;       /* arrived, never started, no estimate yet */
	int64_t free_gpus;         /* cluster GPUs not held by running jobs */
	int32_t *pending_by_size;  /* [g]: pending jobs asking g GPUs */
	int32_t *node_free;        /* free GPUs per node */
	int32_t nnodes, G;         /* fleet size; G = GPUs per node if uniform */
	bool exact_fit;            /* could_start() is exact: see there */
	bool evicts;               /* a cycle may evict to start a job: see could_start() */
	int nteam;                 /* queues 0..nteam-1 are team queues */
	struct fw_trace_queues qs;
	bool dirty, started_last;
	int64_t *left;             /* per row: seconds of work left */
	size_t *run_of;            /* per row: its current run in r->runs */
	size_t runcap;
	bool recompact;            /* an eviction left stale allocs */
	int32_t slice_lvl;         /* fw_sim_opts.slice_level as a level
				    * index, or FW_LEVEL_NODE */
	int64_t *down_until;       /* per node: repair time, -1 = up */
	int32_t ndown;             /* nodes down */
	uint32_t *gpu_bad;         /* per node: GPUs failed (not the fleet's own) */
	int64_t *gpu_until;        /* per node: their repair time, -1 = none */
	int32_t ngpu_bad;          /* nodes with failed GPUs */
	bool fail_ready;           /* the source's next failure, fetched ahead */
	struct fw_sim_failure fail;
	struct buf log;
	struct fw_sim_result *r;
	struct fw_diag *d;
};

void fw_sim_opts_default(struct fw_sim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->policy = "fairway";
	o->nodes = 13;
	o->gpus_per_node = 8;
	o->tick_s = 60;
}

/* ---- small containers --------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (int pass = 0; pass < 2 && !b->oom; pass++) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
		} else if (b->p && (size_t)n < b->cap - b->n) {
			b->n += (size_t)n;
			return;
		} else {
			size_t cap = (b->cap ? b->cap : 4096);
			while (cap < b->n + (size_t)n + 1)
				cap *= 2;
			char *p = realloc(b->p, cap);
			if (!p)
				b->oom = true;
			else
				b->p = p, b->cap = cap;
		}
	}
}

/* s as a JSON string, quotes included: '"', '\\' and the control bytes
 * escaped, every other byte as it is.  Every loader hands the simulator
 * identifiers (a fleet file's node names, config.md) or printable ASCII
 * (trace, team and openb names); the escaping keeps a line valid JSON
 * for any UTF-8 name all the same (tests/unit/test_fleet.c,
 * start_log_escapes_every_name). */
static void buf_json_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[256];
	size_t k = 0;

	tmp[k++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (k > sizeof tmp - 8) { /* room for the longest escape and the quote */
			buf_printf(b, "%.*s", (int)k, tmp);
			k = 0;
		}
		if (*p == '"' || *p == '\\') {
			tmp[k++] = '\\';
			tmp[k++] = (char)*p;
		} else if (*p < 0x20) {
			memcpy(tmp + k, "\\u00", 4);
			tmp[k + 4] = hex[*p >> 4];
			tmp[k + 5] = hex[*p & 15];
			k += 6;
		} else {
			tmp[k++] = (char)*p;
		}
	}
	tmp[k++] = '"';
	buf_printf(b, "%.*s", (int)k, tmp);
}

static bool ev_less(struct ev a, struct ev b)
{
	return a.t != b.t ? a.t < b.t : a.row < b.row;
}

static int heap_push(struct heap *h, struct ev e)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;
		struct ev *v = realloc(h->v, cap * sizeof *v);
		if (!v)
			return FW_ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	for (i = h->n++; i > 0 && ev_less(e, h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = e;
	return FW_OK;
}

/* Put `last` into the hole at i, moving smaller children up. */
static void sift_down(struct heap *h, size_t i, struct ev last)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_less(h->v[c + 1], h->v[c]))
			c++;
		if (!ev_less(h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = last;
}

static struct ev heap_pop(struct heap *h)
{
	struct ev top = h->v[0], last = h->v[--h->n];

	if (h->n)
		sift_down(h, 0, last);
	return top;
}

/* Remove row's event (a running job has exactly one completion). */
static void heap_remove(struct heap *h, int32_t row)
{
	size_t i = 0;

	while (i < h->n && h->v[i].row != row)
		i++;
	if (i == h->n)
		return;
	struct ev last = h->v[--h->n];
	if (i == h->n)
		return;
	for (; i > 0 && ev_less(last, h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	sift_down(h, i, last);
}

static int cmp_ev(const void *a, const void *b)
{
	struct ev x = *(const struct ev *)a, y = *(const struct ev *)b;

	return ev_less(x, y) ? -1 : ev_less(y, x) ? 1 : 0;
}

/* ---- cluster ------------------------------------------------------------ */

static int add_nodes(struct fw_snapshot *s, const struct fw_sim_opts *o)
{
	const struct fw_snapshot *f = o->config ? o->config : o->fleet;
	struct fw_node n;

	if (f) {
		s->topology = f->topology;
		for (int32_t i = 0; i < f->nnodes; i++)
			if (fw_snapshot_add_node(s, &f->nodes[i]) < 0)
				return FW_ENOMEM;
		return FW_OK;
	}
	if (o->nodes_per_rack > 0) {
		s->topology.nlevels = 1;
		snprintf(s->topology.level[0], FW_NAME_MAX, "rack");
	}
	for (int32_t i = 0; i < o->nodes; i++) {
		fw_node_init(&n);
		snprintf(n.name, sizeof n.name, "n%03d", (int)i);
		snprintf(n.gpu_model, sizeof n.gpu_model, "itp-gpu");
		n.gpu_count = o->gpus_per_node;
		n.gpu_mem_mib = 81920;
		n.cpu_milli = 128000;
		n.mem_mib = (int64_t)1 << 20;
		if (o->nodes_per_rack > 0)
			snprintf(n.path[0], FW_NAME_MAX, "r%02d", (int)(i / o->nodes_per_rack));
		if (fw_snapshot_add_node(s, &n) < 0)
			return FW_ENOMEM;
	}
	return FW_OK;
}

/* Queue i's GPU model entries from the options: a cap (--model-limits)
 * or, with deserved, deserved GPUs (--model-deserved), each pct % of its
 * deserved GPUs (rounded down, so the deserved ones never add up to
 * more than the queue's). */
static int queue_models(struct sim *m, int32_t i, const struct fw_sim_model_limit *l, int32_t n, bool deserved)
{
	int64_t quota = m->s->queues[i].deserved.v[FW_RES_GPU];
	char models[256];

	for (int k = 0; k < n; k++) {
		struct fw_model_limit x = { .queue = i, .gpus = (int64_t)floor((double)quota * l[k].pct / 100) };
		memcpy(x.model, l[k].model, sizeof x.model);
		if (!fw_snapshot_has_gpu_model(m->s, l[k].model)) {
			fw_snapshot_gpu_models(m->s, models, sizeof models);
			return fw_diag_set(m->d, FW_EINVAL, deserved ? "--model-deserved" : "--model-limits", 0, 0, "",
					   "%s=%g: no node of the fleet has GPU model '%s' (its models: %s); name a "
					   "model of the fleet, or give a fleet with that model (--fleet, --config)",
					   l[k].model, l[k].pct, l[k].model, models[0] ? models : "none");
		}
		if ((deserved ? fw_snapshot_add_model_deserved(m->s, &x) : fw_snapshot_add_model_limit(m->s, &x)) < 0)
			return FW_ENOMEM;
	}
	return FW_OK;
}

/* The config's queues (o->config): its tree as it is, every setting and
 * its model tables with it, and each row to the leaf its queue column
 * names (checked: fw_trace_config_queue). */
static int config_queues(struct sim *m)
{
	const struct fw_snapshot *c = m->o->config;
	int rc;

	m->nteam = m->r->nteam = m->qs.nteam = 0;
	m->r->nqueues = m->qs.n = c->nqueues;
	for (int32_t i = 0; i < c->nqueues; i++) {
		snprintf(m->qs.name[i], FW_NAME_MAX, "%s", c->queues[i].name);
		snprintf(m->r->qname[i], sizeof m->r->qname[i], "%s", c->queues[i].name);
		m->r->qparent[i] = c->queues[i].parent;
		m->qs.deserved_milli[i] = m->r->qdeserved_milli[i] = c->queues[i].deserved.v[FW_RES_GPU];
		if (fw_snapshot_add_queue(m->s, &c->queues[i]) < 0)
			return FW_ENOMEM;
	}
	for (int32_t i = 0; i < c->nmodel_limits; i++)
		if (fw_snapshot_add_model_limit(m->s, &c->model_limits[i]) < 0)
			return FW_ENOMEM;
	for (int32_t i = 0; i < c->nmodel_deserved; i++)
		if (fw_snapshot_add_model_deserved(m->s, &c->model_deserved[i]) < 0)
			return FW_ENOMEM;
	if (!(m->qs.of_job = malloc((m->t->n ? m->t->n : 1) * sizeof *m->qs.of_job)))
		return FW_ENOMEM;
	for (size_t i = 0; i < m->t->n; i++) {
		if ((rc = fw_trace_config_queue(m->t, i, c, m->d)) < 0)
			return rc;
		m->qs.of_job[i] = rc;
	}
	return FW_OK;
}

/* Queues from fw_trace_queues (trace.h): team queues, then trace names;
 * or the config's. */
static int add_queues(struct sim *m, const struct fw_teams *teams, int64_t gpus)
{
	struct fw_queue q;
	int rc;

	if (m->o->config)
		return config_queues(m);
	if ((rc = fw_trace_queues(m->t, teams, m->o->force_teams, gpus, &m->qs, m->d)) != FW_OK)
		return rc;
	m->nteam = m->r->nteam = m->qs.nteam;
	m->r->nqueues = m->qs.n;
	for (int i = 0; i < m->qs.n; i++) {
		fw_queue_init(&q);
		snprintf(q.name, sizeof q.name, "%s", m->qs.name[i]);
		snprintf(m->r->qname[i], sizeof m->r->qname[i], "%s", m->qs.name[i]);
		m->r->qparent[i] = -1;
		q.deserved.v[FW_RES_GPU] = m->r->qdeserved_milli[i] = m->qs.deserved_milli[i];
		q.min_runtime_s = m->o->min_runtime_s;
		q.max_runtime_s = m->o->max_runtime_s;
		q.gpu_hour_budget = m->o->gpu_hour_budget;
		if (fw_snapshot_add_queue(m->s, &q) < 0)
			return FW_ENOMEM;
		if ((rc = queue_models(m, i, m->o->model_limits, m->o->nmodel_limits, false)) != FW_OK ||
		    (rc = queue_models(m, i, m->o->model_deserved,
				       m->o->model_deserved_off ? 0 : m->o->nmodel_deserved, true)) != FW_OK)
			return rc;
	}
	return FW_OK;
}

/* With o->config: a config a replay can run, no fleet beside it, and no
 * per-queue option (its queues have their own). */
static int check_config_opts(const struct fw_sim_opts *o, struct fw_diag *d)
{
	if (o->fleet)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "config",
				   "a config brings its own nodes: give a config or a fleet, not both");
	if (o->min_runtime_s || o->max_runtime_s || o->gpu_hour_budget > 0 || o->nmodel_limits ||
	    o->nmodel_deserved)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "config",
				   "a config's queues have their own minRuntime, maxRuntime, gpuHourBudget, "
				   "gpuModelLimits and gpuModelDeserved: leave the per-queue options unset");
	return fw_fleet_check_config(o->config, "options", d);
}

static int check_opts(const struct fw_trace *t, const struct fw_sim_opts *o,
		      const struct fw_teams *teams, struct fw_diag *d)
{
	if (!o->policy || !fw_policy_find(o->policy))
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "policy", "unknown policy '%s'",
				   o->policy ? o->policy : "(null)");
	if (o->nodes < 1 || o->nodes > 100000)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "nodes", "must be 1..100000");
	if (o->gpus_per_node < 1 || o->gpus_per_node > FW_MAX_GPUS_PER_NODE)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "gpus_per_node", "must be 1..%d",
				   FW_MAX_GPUS_PER_NODE);
	if (o->tick_s < 1 || o->tick_s > 86400 * 365)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "tick", "must be 1..31536000 s");
	if (o->nodes_per_rack < 0)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "nodes_per_rack", "must be >= 0");
	if (o->max_runtime_s < 0)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "max_runtime", "must be >= 0 (0 = none)");
	if (!(o->gpu_hour_budget >= 0 && o->gpu_hour_budget <= FW_BUDGET_MAX_GPU_H))
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "gpu_hour_budget",
				   "must be 0 (none) to %g GPU-hours", FW_BUDGET_MAX_GPU_H);
	if (!(o->usage_half_life_s >= 0 && o->usage_half_life_s <= (double)HALF_LIFE_MAX_S))
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "usage_half_life",
				   "must be 0 (the default) to 100 years in seconds");
	if (t->n > INT32_MAX - 1)
		return fw_diag_set(d, FW_ERANGE, "options", 0, 0, "trace", "more than 2^31 jobs");
	if (o->config)
		return check_config_opts(o, d);
	if (teams->n < 1 || teams->total < 1)
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "teams", "no teams");
	if (o->fleet && (o->fleet->nnodes < 1 || o->fleet->njobs || o->fleet->nqueues))
		return fw_diag_set(d, FW_EINVAL, "options", 0, 0, "fleet",
				   "a fleet has nodes and no queues or jobs");
	return FW_OK;
}

/* ---- setup -------------------------------------------------------------- */

/* Under budgetSafe a waiting job's fit moves with the clock whatever the
 * policy: what its budget has left grows as usage decays and the running
 * jobs' remaining runs shrink, with no event to wake it (short_wake,
 * short_hold). */
static bool safe_budgets(const struct sim *m)
{
	return m->o->budget_safe && m->budgets;
}

/* Whole GPUs a row asks, every task (a fractional GPU counts 1). */
static int32_t row_gpus(const struct sim *m, int32_t row)
{
	return (int32_t)fw_trace_job_gpus(&m->t->v[row]);
}

/* Its milli-GPUs: each GPU at its gpu_milli (a fractional GPU counts its
 * share; fw_sim_result.milli until it starts). */
static int64_t row_milli(const struct sim *m, int32_t row)
{
	const struct fw_trace_job *j = &m->t->v[row];
	int64_t milli = 0;

	for (int g = 0; g < j->ngroups; g++)
		milli += (int64_t)j->groups[g].count * j->groups[g].gpus * j->groups[g].gpu_milli;
	return milli;
}

/* The nodes the replay starts from, as the file gives them (each one's
 * schedulable flag and badGpus): the config's or the fleet file's, or
 * NULL for a generated fleet (every node open, no bad GPU). */
static const struct fw_snapshot *base_nodes(const struct sim *m)
{
	return m->o->config ? m->o->config : m->o->fleet;
}

static bool closed(const struct fw_node *x)
{
	return !x->schedulable || x->health == FW_HEALTH_UNHEALTHY || x->health == FW_HEALTH_DRAINING;
}

/* Is node n one the file closes (schedulable: false, unhealthy or
 * draining), and closed still?  The engine places nothing on it, so the
 * tick rule's test counts none of its GPUs free (room_now).  Read live,
 * since a hook may write a node's health (the health experiment's
 * tracker) and tells no one; a node only a failure or a hook closed is
 * left to the counts as they were (its running jobs may yet be drained
 * off it by a cycle). */
static bool node_closed(const struct sim *m, int32_t n)
{
	const struct fw_snapshot *b = base_nodes(m);

	return b && closed(&b->nodes[n]) && closed(&m->s->nodes[n]);
}

/* The GPUs of node n outside the file's badGpus (they stay bad for the
 * whole replay): its free count with nothing running on it. */
static int32_t good_gpus(const struct sim *m, int32_t n)
{
	const struct fw_snapshot *b = base_nodes(m);
	int32_t g = m->s->nodes[n].gpu_count;
	uint32_t all = g >= 32 ? UINT32_MAX : (UINT32_C(1) << g) - 1;

	return (int32_t)__builtin_popcount(all & ~(b ? b->nodes[n].bad_gpu_mask : 0));
}

/* Free GPUs per node (good_gpus: a bad GPU is never free; a closed node's
 * are left out where the tick rule reads them, room_now); could_start()
 * is exact only on a uniform fleet where every job is ITP-shaped (whole
 * GPUs, nothing else asked). */
static int init_capacity(struct sim *m)
{
	const struct fw_snapshot *s = m->s;

	m->nnodes = s->nnodes;
	m->evicts = m->o->preemptible && (m->pol->reclaim || m->pol->max_moves > 0);
	m->exact_fit = fw_fleet_uniform(s, &m->G) && m->G > 0;
	for (size_t i = 0; m->exact_fit && i < m->t->n; i++)
		m->exact_fit = fw_trace_itp_shaped(&m->t->v[i], m->G);
	m->pending_by_size = calloc(FW_ITP_MAX_GPUS + 1, sizeof *m->pending_by_size);
	m->node_free = calloc((size_t)s->nnodes, sizeof *m->node_free);
	if (!m->pending_by_size || !m->node_free)
		return FW_ENOMEM;
	m->free_gpus = 0;
	for (int32_t i = 0; i < s->nnodes; i++) {
		m->node_free[i] = good_gpus(m, i);
		m->free_gpus += m->node_free[i];
	}
	return FW_OK;
}

/* The validator's diagnosis, moved onto the trace row that caused it.
 * Field and message are copied out first: fw_diag_set writes the same
 * struct, and printing a buffer into itself garbles it. */
static void job_refused(struct fw_diag *d, int rc, const struct fw_trace *t, size_t i)
{
	char field[sizeof d->field], msg[sizeof d->msg];

	snprintf(field, sizeof field, "%s", d->field);
	snprintf(msg, sizeof msg, "%s", d->msg);
	fw_diag_set(d, rc, t->file, t->v[i].line, 0, field, "job '%s': %s", t->v[i].id, msg);
}

/* Every job must be a valid snapshot job on this fleet before the run. */
static int check_jobs(struct sim *m)
{
	struct fw_snapshot *probe = fw_snapshot_new();
	struct fw_job j;
	int rc = probe ? FW_OK : FW_ENOMEM;

	if (probe) {
		probe->topology = m->s->topology;
		for (int32_t i = 0; i < m->s->nqueues && rc == FW_OK; i++)
			rc = fw_snapshot_add_queue(probe, &m->s->queues[i]) < 0 ? FW_ENOMEM : FW_OK;
	}
	for (size_t i = 0; rc == FW_OK && i < m->t->n; i++) {
		if ((rc = fw_trace_make_job(m->t, i, &m->s->topology, &j, m->d)) != FW_OK)
			break;
		j.queue = m->r->queue[i];
		snprintf(j.name, sizeof j.name, "%s", m->t->v[i].id);
		probe->njobs = 0;
		if (fw_snapshot_add_job(probe, &j) < 0)
			rc = FW_ENOMEM;
		else if ((rc = fw_snapshot_validate(probe, m->d)) != FW_OK)
			job_refused(m->d, rc, m->t, i);
	}
	fw_snapshot_free(probe);
	return rc;
}

/* The failure source's next failure, fetched one ahead (m->fail_*). */
static int fetch_failure(struct sim *m, int64_t after)
{
	const struct fw_sim_failures *f = m->o->failures;

	const struct fw_sim_failure *x = &m->fail;

	memset(&m->fail, 0, sizeof m->fail);
	m->fail_ready = f && f->next && f->next(f->ctx, after, &m->fail) == 1;
	if (!m->fail_ready)
		return FW_OK;
	if (x->at < after || x->at < 0 || x->node < 0 || x->node >= m->nnodes || x->repair_s < 0 ||
	    x->repair_s > INT64_MAX / 4 - x->at ||
	    (m->s->nodes[x->node].gpu_count < 32 && x->gpus >> m->s->nodes[x->node].gpu_count))
		return fw_diag_set(m->d, FW_EINVAL, "failures", 0, 0, NULL,
				   "failure at t=%lld on node %d (GPUs 0x%x), repair %lld s: times must not "
				   "decrease and the node and its GPUs must exist", (long long)x->at,
				   (int)x->node, (unsigned)x->gpus, (long long)x->repair_s);
	return FW_OK;
}

static int init_failures(struct sim *m)
{
	size_t n = (size_t)m->nnodes;

	if (!(m->down_until = malloc(n * sizeof *m->down_until)) ||
	    !(m->gpu_until = malloc(n * sizeof *m->gpu_until)) || !(m->gpu_bad = calloc(n, sizeof *m->gpu_bad)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < m->nnodes; i++)
		m->down_until[i] = m->gpu_until[i] = -1;
	return fetch_failure(m, -1);
}

int fw_sim_scripted_next(void *ctx, int64_t after, struct fw_sim_failure *f)
{
	struct fw_sim_scripted *sc = ctx;

	if (after < 0)
		sc->next = 0; /* a new run */
	if (sc->next >= sc->n)
		return 0;
	*f = sc->v[sc->next++];
	return 1;
}

/* " (did you mean \"rack\"?)" into hint when level is a typo of one of
 * t's levels or node, whatever its case; "" otherwise. */
static const char *level_hint(const struct fw_topology *t, const char *level, char *hint, size_t n)
{
	const char *names[FW_MAX_LEVELS + 2], *near;

	fw_topology_level_names(t, names);
	hint[0] = '\0';
	if ((near = fw_cli_nearest_name(level, names)))
		snprintf(hint, n, " (did you mean \"%s\"?)", near);
	return hint;
}

/* fw_sim_opts.slice_level in the fleet's topology (with slice_tasks): a
 * level the fleet lacks is an error that lists its levels. */
static int slice_level(struct sim *m)
{
	const struct fw_topology *t = &m->s->topology;
	char list[256] = "", hint[96];

	if (m->o->slice_tasks <= 0)
		return FW_OK;
	if (!strcmp(m->o->slice_level, "node")) {
		m->slice_lvl = FW_LEVEL_NODE;
		return FW_OK;
	}
	if ((m->slice_lvl = fw_snapshot_find_level(m->s, m->o->slice_level)) >= 0)
		return FW_OK;
	for (int l = 0; l < t->nlevels; l++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", l ? ", " : "", t->level[l]);
	return fw_diag_set(m->d, FW_EINVAL, "--slices", 0, 0, NULL,
			   "the fleet has no topology level \"%s\"%s (its levels: %s); use one of them or node "
			   "(--racks K makes racks)", m->o->slice_level, level_hint(t, m->o->slice_level, hint, sizeof hint),
			   t->nlevels ? list : "none");
}

/* The per-row arrays, and with user fair share its user table: one
 * entry per queue and user at most.  FW_OK or FW_ENOMEM. */
static int alloc_rows(struct sim *m, size_t n)
{
	m->arrival = calloc(n, sizeof *m->arrival);
	m->snap_of = calloc(n, sizeof *m->snap_of);
	m->r->start = calloc(n, sizeof *m->r->start);
	m->r->end = calloc(n, sizeof *m->r->end);
	m->r->evicted = calloc(n, sizeof *m->r->evicted);
	m->r->lost = calloc(n, sizeof *m->r->lost);
	m->r->cut = calloc(n, sizeof *m->r->cut);
	m->limited = calloc(n, sizeof *m->limited);
	m->left = calloc(n, sizeof *m->left);
	m->run_of = calloc(n, sizeof *m->run_of);
	m->r->estimate = calloc(n, sizeof *m->r->estimate);
	m->r->gpus = calloc(n, sizeof *m->r->gpus);
	m->r->milli = calloc(n, sizeof *m->r->milli);
	if (m->o->user_fair_share) {
		for (m->ucap = 64; (size_t)m->ucap < 2 * n + 2;)
			m->ucap *= 2;
		m->urow = malloc(n * sizeof *m->urow);
		m->ualloc = calloc(n + 1, sizeof *m->ualloc);
		m->utab = calloc((size_t)m->ucap, sizeof *m->utab);
		if (!m->urow || !m->ualloc || !m->utab)
			return FW_ENOMEM;
		for (size_t i = 0; i < n; i++)
			m->urow[i] = -1;
	}
	if (!m->s || !m->arrival || !m->snap_of || !m->r->start || !m->r->end ||
	    !m->r->evicted || !m->r->lost || !m->r->cut || !m->limited || !m->left || !m->run_of ||
	    !m->r->estimate || !m->r->gpus || !m->r->milli)
		return FW_ENOMEM;
	return FW_OK;
}

/* The snapshot's settings: the config's, where given, then those the
 * options name. */
static void apply_settings(struct sim *m)
{
	if (m->o->config) /* the settings no option names: the config's */
		m->s->config = m->o->config->config;
	if (m->o->lemon_gang_gpus > 0)
		m->s->config.lemon_gang_gpus = m->o->lemon_gang_gpus;
	m->s->config.starve_after_s = m->o->starve_after_s;
	m->s->config.backfill_conservative = m->o->backfill_conservative;
	m->s->config.reserve_depth = m->o->reserve_depth;
	m->s->config.estimate_depth = m->o->estimate_depth;
	m->s->config.xfactor_cap_s = m->o->xfactor_cap_s;
	m->s->config.user_fair_share = m->o->user_fair_share;
	m->s->config.checkpoint_grace_s = m->o->checkpoint_grace_s;
	m->s->config.budget_safe = m->o->budget_safe;
	if (m->o->usage_half_life_s > 0)
		m->s->config.usage_half_life_s = m->o->usage_half_life_s;
}

/* The fleet: nodes, capacity, queues (and whether any has a budget) and
 * the slice level. */
static int sim_fleet(struct sim *m, const struct fw_teams *teams, size_t n)
{
	int rc;

	if ((rc = add_nodes(m->s, m->o)) != FW_OK || (rc = init_capacity(m)) != FW_OK ||
	    (rc = add_queues(m, teams, m->free_gpus)) != FW_OK)
		return rc;
	for (int32_t q = 0; q < m->s->nqueues; q++)
		m->budgets |= m->s->queues[q].gpu_hour_budget > 0;
	if (m->budgets && !(m->over_budget = calloc(n, sizeof *m->over_budget)))
		return FW_ENOMEM;
	return slice_level(m);
}

/* Each row's arrival, its not-yet-run state and its size; arrivals in
 * submit order. */
static void init_rows(struct sim *m)
{
	const struct fw_trace *t = m->t;

	for (size_t i = 0; i < t->n; i++) {
		m->arrival[i].t = t->v[i].submit;
		m->arrival[i].row = (int32_t)i;
		m->r->start[i] = m->r->end[i] = -1;
		m->r->estimate[i] = FW_SIM_NO_ESTIMATE;
		m->left[i] = t->v[i].duration;
		m->r->gpus[i] = row_gpus(m, (int32_t)i);
		m->r->milli[i] = row_milli(m, (int32_t)i);
	}
	qsort(m->arrival, t->n, sizeof *m->arrival, cmp_ev);
}

static int sim_init(struct sim *m, const struct fw_teams *teams)
{
	size_t n = m->t->n ? m->t->n : 1;
	int rc;

	m->pol = fw_policy_find(m->o->policy);
	m->s = fw_snapshot_new();
	if ((rc = alloc_rows(m, n)) != FW_OK)
		return rc;
	apply_settings(m);
	m->budget_at = INT64_MAX;
	m->short_at = INT64_MAX;
	fw_arena_init(&m->arena, (size_t)4 << 20);
	if ((rc = sim_fleet(m, teams, n)) != FW_OK)
		return rc;
	m->r->queue = m->qs.of_job;
	m->qs.of_job = NULL;
	init_rows(m);
	if ((rc = fw_snapshot_validate(m->s, m->d)) != FW_OK || (rc = check_jobs(m)) != FW_OK)
		return rc;
	return init_failures(m);
}

static void sim_release(struct sim *m)
{
	fw_snapshot_free(m->s);
	fw_arena_release(&m->arena);
	free(m->arrival);
	free(m->done.v);
	free(m->limits.v);
	free(m->limited);
	free(m->row_of);
	free(m->gone);
	free(m->snap_of);
	free(m->over_budget);
	free(m->urow);
	free(m->ualloc);
	free(m->utab);
	free(m->ascratch);
	free(m->pending_by_size);
	free(m->node_free);
	free(m->left);
	free(m->run_of);
	free(m->down_until);
	free(m->gpu_until);
	free(m->gpu_bad);
	free(m->qs.of_job);
	free(m->log.p);
}

/* ---- jobs --------------------------------------------------------------- */

/* Keep row_of/gone as large as the snapshot's job array. */
static int grow_index(struct sim *m)
{
	int32_t cap = m->s->cap_jobs;

	if (cap <= m->jcap)
		return FW_OK;
	int32_t *r = realloc(m->row_of, (size_t)cap * sizeof *r);
	if (r)
		m->row_of = r;
	bool *g = realloc(m->gone, (size_t)cap * sizeof *g);
	if (g)
		m->gone = g;
	if (!r || !g)
		return FW_ENOMEM;
	m->jcap = cap;
	return FW_OK;
}

/* The user_usage entry of (queue q, user), made at the user's first job
 * in q; its index, or FW_ENOMEM. */
static int32_t user_entry(struct sim *m, int32_t q, const char *user, fw_time T)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)q;
	uint32_t mask = (uint32_t)m->ucap - 1, k;

	for (const char *c = user; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (k = (uint32_t)(h ^ (h >> 32)) & mask; m->utab[k]; k = (k + 1) & mask) {
		const struct fw_user_usage *u = &m->s->user_usage[m->utab[k] - 1];
		if (u->queue == q && !strcmp(u->user, user))
			return m->utab[k] - 1;
	}
	struct fw_user_usage u = { .queue = q, .usage = 0, .usage_at = T };
	snprintf(u.user, sizeof u.user, "%s", user);
	int e = fw_snapshot_add_user_usage(m->s, &u);
	if (e < 0)
		return FW_ENOMEM;
	m->utab[k] = e + 1;
	return e;
}

/* Age a decayed usage to t, integrating a constant allocation a (GPUs)
 * exactly since *at (fw_usage_held, the daemon's accrual too). */
static void accrue_to(double *usage, fw_time *at, double a, double h, fw_time t)
{
	if (t <= *at)
		return;
	*usage = fw_usage_decay(*usage, *at, t, h) + fw_usage_held(a, *at, t, t, h);
	*at = t;
}

/* The same for row's user in its queue, then its allocation changes by
 * delta milli-GPUs (a start, an end). */
static void accrue_user(struct sim *m, int32_t row, fw_time t, int64_t delta)
{
	int32_t e = m->urow ? m->urow[row] : -1;

	if (e < 0)
		return;
	struct fw_user_usage *u = &m->s->user_usage[e];
	accrue_to(&u->usage, &u->usage_at, (double)m->ualloc[e] / 1000.0, m->s->config.usage_half_life_s, t);
	m->ualloc[e] += delta;
}

static int arrive(struct sim *m, int32_t row, const struct fw_teams *teams)
{
	const struct fw_trace_job *it = &m->t->v[row];
	struct fw_job j;
	int k;

	if (m->o->config && fw_trace_over_limit(m->t, (size_t)row, m->o->config))
		return FW_OK; /* never starts: no demand (fw_trace_warn_over_limit) */
	if ((k = fw_trace_make_job(m->t, (size_t)row, &m->s->topology, &j, m->d)) != FW_OK)
		return k; /* checked before the run: cannot happen */
	snprintf(j.name, sizeof j.name, "%s", it->id);
	j.queue = m->r->queue[row];
	j.preemptible = m->o->preemptible;
	j.checkpoint_s = m->o->checkpoint_s;
	snprintf(j.user, sizeof j.user, "%s", it->user[0] ? it->user
		 : j.queue < m->nteam ? teams->v[j.queue].name : m->qs.name[j.queue]);
	if (m->urow && m->urow[row] < 0 && (m->urow[row] = user_entry(m, j.queue, j.user, m->s->now)) < 0)
		return FW_ENOMEM;
	if ((k = fw_snapshot_add_job(m->s, &j)) < 0 || grow_index(m) != FW_OK)
		return FW_ENOMEM;
	m->row_of[k] = row;
	m->gone[k] = false;
	m->snap_of[row] = k;
	m->npending++;
	m->qpending[j.queue]++;
	m->unestimated += m->r->start[row] < 0 && m->r->estimate[row] == FW_SIM_NO_ESTIMATE;
	m->pending_by_size[m->exact_fit ? row_gpus(m, row) : 0]++;
	m->dirty = true;
	return FW_OK;
}

/* Age queue q's decayed usage to t, integrating its allocation exactly. */
static void accrue(struct sim *m, int32_t q, fw_time t)
{
	struct fw_queue *Q = &m->s->queues[q];

	accrue_to(&Q->usage, &Q->usage_at, (double)m->qalloc[q] / 1000.0, m->s->config.usage_half_life_s, t);
}

static void node_use(struct sim *m, const struct fw_task_alloc *a, int32_t n, int sign)
{
	for (int32_t i = 0; i < n; i++)
		m->node_free[a[i].node] += sign * __builtin_popcount(a[i].gpu_mask);
}

/* A running job gives back its GPUs at t (completion or eviction). */
static void release(struct sim *m, int32_t row, fw_time t)
{
	int32_t q = m->r->queue[row];
	const struct fw_job *j = &m->s->jobs[m->snap_of[row]];

	accrue(m, q, t);
	m->qalloc[q] -= m->r->milli[row];
	accrue_user(m, row, t, -m->r->milli[row]);
	m->free_gpus += m->r->gpus[row];
	node_use(m, m->s->allocs + j->alloc_first, j->alloc_count, +1);
}

/* Runs (fw_sim_result.runs): one span per start, closed at its end. */
static int run_open(struct sim *m, int32_t row, fw_time T)
{
	struct fw_sim_result *r = m->r;

	if (r->nruns == m->runcap) {
		size_t cap = m->runcap ? 2 * m->runcap : 1024;
		struct fw_sim_span *v = realloc(r->runs, cap * sizeof *v);
		if (!v)
			return FW_ENOMEM;
		r->runs = v;
		m->runcap = cap;
	}
	m->run_of[row] = r->nruns;
	r->runs[r->nruns++] = (struct fw_sim_span){ row, T, -1, r->gpus[row], r->milli[row] };
	return FW_OK;
}

static void run_close(struct sim *m, int32_t row, fw_time t)
{
	m->r->runs[m->run_of[row]].end = t;
}

/* Run-time limits (fw_job_limit: the smaller of fw_sim_opts.max_runtime_s,
 * every queue's, and the job's own, the trace's max_runtime, which
 * fw_trace_make_job put in fw_job.max_runtime_s): a job that
 * starts with more work left than its limit gets an entry at start +
 * limit, which wakes a cycle at the first tick at or after it (the engine
 * then ends the job, reason TIME_LIMIT: time_out below).  A job whose
 * work ends first completes, the tie included (completions drain before
 * the cycle), so it needs none; its entry goes when it leaves. */
static int limit_arm(struct sim *m, int32_t k, int32_t row, fw_time T)
{
	fw_time lim = fw_job_limit(m->s, &m->s->jobs[k]);

	if (lim <= 0 || lim >= m->left[row])
		return FW_OK;
	m->limited[row] = true;
	return heap_push(&m->limits, (struct ev){ T + lim, row });
}

static void limit_cancel(struct sim *m, int32_t row)
{
	if (!m->limited[row])
		return;
	heap_remove(&m->limits, row);
	m->limited[row] = false;
}

/* Is a limit due by T: must the cycle at T run to end a job? */
static bool limit_due(const struct sim *m, fw_time T)
{
	return m->limits.n && m->limits.v[0].t <= T;
}

static void complete(struct sim *m, struct ev e)
{
	release(m, e.row, e.t);
	run_close(m, e.row, e.t);
	limit_cancel(m, e.row);
	m->r->end[e.row] = e.t;
	m->gone[m->snap_of[e.row]] = true;
	m->ngone++;
	m->dirty = true;
}

/* Drop finished jobs in one stable pass; rewrite allocs in job order. */
/* Move a job record: its fields and its used task groups only.  The
 * replay compacts its jobs before most cycles, and most of a record is
 * task groups a trace job does not use (nothing reads past ngroups). */
_Static_assert(offsetof(struct fw_job, user) == offsetof(struct fw_job, groups) + sizeof(((struct fw_job *)0)->groups),
	       "job_move copies the fields before the groups, the used groups, then the rest");
static void job_move(struct fw_job *d, const struct fw_job *src)
{
	size_t used = offsetof(struct fw_job, groups) + (size_t)src->ngroups * sizeof src->groups[0];
	size_t tail = offsetof(struct fw_job, user); /* what follows the groups */

	memcpy(d, src, used);
	memcpy((char *)d + tail, (const char *)src + tail, sizeof *d - tail);
}

static int compact(struct sim *m)
{
	struct fw_snapshot *s = m->s;
	int32_t w = 0, na = 0;

	if (s->nallocs > m->acap) {
		struct fw_task_alloc *a = realloc(m->ascratch, (size_t)s->cap_allocs * sizeof *a);
		if (!a)
			return FW_ENOMEM;
		m->ascratch = a;
		m->acap = s->cap_allocs;
	}
	if (s->nallocs)
		memcpy(m->ascratch, s->allocs, (size_t)s->nallocs * sizeof *s->allocs);
	for (int32_t k = 0; k < s->njobs; k++) {
		if (m->gone[k])
			continue;
		if (w != k)
			job_move(&s->jobs[w], &s->jobs[k]);
		m->row_of[w] = m->row_of[k];
		m->snap_of[m->row_of[w]] = w;
		m->gone[w] = false;
		struct fw_job *j = &s->jobs[w++];
		if (j->state != FW_JOB_RUNNING)
			continue;
		memcpy(s->allocs + na, m->ascratch + j->alloc_first,
		       (size_t)j->alloc_count * sizeof *s->allocs);
		j->alloc_first = na;
		na += j->alloc_count;
	}
	s->njobs = w;
	s->nallocs = na;
	m->ngone = 0;
	m->recompact = false;
	return FW_OK;
}

/* ---- applying a plan ---------------------------------------------------- */

static void log_start(struct sim *m, const struct fw_plan *p, const struct fw_decision *dd,
		      int32_t row, fw_time T)
{
	const struct fw_snapshot *s = m->s;

	buf_printf(&m->log, "{\"t\":%lld,\"policy\":", (long long)T);
	buf_json_str(&m->log, m->o->label ? m->o->label : m->pol->name);
	buf_printf(&m->log, ",\"job\":");
	buf_json_str(&m->log, m->t->v[row].id);
	buf_printf(&m->log, ",\"queue\":");
	buf_json_str(&m->log, s->queues[m->r->queue[row]].name);
	buf_printf(&m->log, ",\"gpus\":%d,\"nodes\":[", (int)m->r->gpus[row]);
	for (int32_t a = 0; a < dd->alloc_count; a++) {
		int32_t node = p->allocs[dd->alloc_first + a].node, seen = 0;
		for (int32_t b = 0; b < a; b++)
			seen |= p->allocs[dd->alloc_first + b].node == node;
		if (seen)
			continue;
		buf_printf(&m->log, "%s", a ? "," : "");
		buf_json_str(&m->log, s->nodes[node].name);
	}
	buf_printf(&m->log, "]}\n");
}

/* What a START holds: its tasks' GPUs (an elastic job may start with
 * fewer tasks than it has, min_member of them), whole and in milli-GPU. */
static void held_by(struct sim *m, const struct fw_plan *p, const struct fw_decision *dd,
		    int32_t row)
{
	int32_t gpus = 0;
	int64_t milli = 0;

	for (int32_t a = 0; a < dd->alloc_count; a++) {
		const struct fw_task_alloc *al = &p->allocs[dd->alloc_first + a];
		gpus += __builtin_popcount(al->gpu_mask);
		milli += (int64_t)__builtin_popcount(al->gpu_mask) * al->gpu_milli;
	}
	m->r->gpus[row] = gpus;
	m->r->milli[row] = milli;
}

/* Does job k take slices (fw_sim_opts.slice_tasks)?  A gang of one
 * group whose task count is a multiple of the size, and more. */
static bool sliceable(const struct sim *m, const struct fw_job *j)
{
	int32_t n = j->groups[0].count, k = m->o->slice_tasks;

	return k > 0 && j->ngroups == 1 && n > k && n % k == 0;
}

/* The slices table for this cycle's snapshot: one entry per waiting or
 * running sliceable job, in job order (compaction renumbers jobs, so it
 * is rebuilt rather than kept). */
static int slice_jobs(struct sim *m)
{
	struct fw_snapshot *s = m->s;

	s->nslices = 0;
	for (int32_t k = 0; !m->o->slices_off && k < s->njobs; k++)
		if (sliceable(m, &s->jobs[k]) && fw_snapshot_slice_group(s, k, 0, m->o->slice_tasks, m->slice_lvl) < 0)
			return FW_ENOMEM;
	return FW_OK;
}

/* A start of a sliceable gang: counted, and so is one whose run of
 * slice_tasks tasks crosses two domains of the slice level. */
static void count_slices(struct sim *m, const struct fw_plan *p, const struct fw_decision *dd)
{
	const struct fw_snapshot *s = m->s;
	int32_t k = m->o->slice_tasks, L = m->slice_lvl == FW_LEVEL_NODE ? 0 : m->slice_lvl + 1;
	bool across = false;

	if (!sliceable(m, &s->jobs[dd->job]))
		return;
	for (int32_t i = 0; i < dd->alloc_count && !across; i++) {
		int32_t a = p->allocs[dd->alloc_first + i].node, b = p->allocs[dd->alloc_first + i / k * k].node;
		across = m->slice_lvl == FW_LEVEL_NODE && a != b;
		for (int32_t l = 0; l < L && !across; l++)
			across = strcmp(s->nodes[a].path[l], s->nodes[b].path[l]) != 0;
	}
	m->r->slice_starts++;
	m->r->slice_split += across;
}

static int start_job(struct sim *m, const struct fw_plan *p, const struct fw_decision *dd, fw_time T)
{
	struct fw_snapshot *s = m->s;
	int32_t k = dd->job, row = m->row_of[k], first = s->nallocs;
	int32_t q = m->r->queue[row];
	struct ev e = { T + m->left[row], row };

	for (int32_t a = 0; a < dd->alloc_count; a++)
		if (fw_snapshot_add_alloc(s, &p->allocs[dd->alloc_first + a]) < 0)
			return FW_ENOMEM;
	s->jobs[k].state = FW_JOB_RUNNING;
	s->jobs[k].start_time = T;
	s->jobs[k].alloc_first = first;
	s->jobs[k].alloc_count = dd->alloc_count;
	if (m->r->start[row] < 0) {
		m->unestimated -= m->r->estimate[row] == FW_SIM_NO_ESTIMATE;
		m->r->start[row] = T;
		m->r->started++;
	}
	held_by(m, p, dd, row);
	accrue(m, q, T);
	m->qalloc[q] += m->r->milli[row];
	accrue_user(m, row, T, m->r->milli[row]);
	m->npending--;
	m->qpending[q]--;
	m->pending_by_size[m->exact_fit ? row_gpus(m, row) : 0]--;
	m->free_gpus -= m->r->gpus[row];
	node_use(m, p->allocs + dd->alloc_first, dd->alloc_count, -1);
	m->r->decisions++;
	count_slices(m, p, dd);
	log_start(m, p, dd, row, T);
	if (run_open(m, row, T) != FW_OK || limit_arm(m, k, row, T) != FW_OK)
		return FW_ENOMEM;
	return heap_push(&m->done, e);
}

/* ---- evictions and node failures ----------------------------------------
 *
 * One path for both: the job gives back its GPUs at t, its completion is
 * cancelled, on_evict says how much of this run's progress it keeps (at
 * most what it ran; below 0 when the restart itself costs work, e.g. the
 * start-up after a node failure: the job then has that much more to do), and
 * it returns to the pending set at its old snapshot position (so its
 * original submit time and arrival order stand).  Its allocs go stale and
 * are dropped by the next compaction.
 */

static int64_t kept_progress(struct sim *m, int32_t k, fw_time t, int64_t ran)
{
	const struct fw_sim_hooks *h = m->o->hooks;
	int64_t kept = h && h->on_evict ? h->on_evict(h->ctx, m->s, k, t, ran) : 0;

	return kept > ran ? ran : kept;
}

int64_t fw_sim_checkpoint_kept(int64_t ran_s, int64_t interval_s)
{
	return interval_s > 0 && ran_s > 0 ? ran_s / interval_s * interval_s : 0;
}

/* An EVICT must name a running job of the snapshot. */
static int check_running(struct sim *m, int32_t k, fw_time t)
{
	if (k < 0 || k >= m->s->njobs || m->gone[k] || m->s->jobs[k].state != FW_JOB_RUNNING)
		return fw_diag_set(m->d, FW_EINVAL, "sim", 0, 0, NULL,
				   "t=%lld: evict job #%d, which is not running", (long long)t, (int)k);
	return FW_OK;
}

static int evict(struct sim *m, int32_t k, fw_time t)
{
	if (check_running(m, k, t) != FW_OK)
		return FW_EINVAL;
	struct fw_job *j = &m->s->jobs[k];
	int32_t row = m->row_of[k];
	int64_t ran = t - j->start_time, kept = kept_progress(m, k, t, ran);

	release(m, row, t);
	run_close(m, row, t);
	heap_remove(&m->done, row);
	limit_cancel(m, row);
	m->left[row] -= kept;
	if (j->expected_runtime > 0)
		j->expected_runtime = j->expected_runtime - kept > 1 ? j->expected_runtime - kept : 1;
	j->state = FW_JOB_PENDING;
	j->start_time = 0;
	j->alloc_first = j->alloc_count = 0;
	m->npending++;
	m->qpending[m->r->queue[row]]++;
	m->pending_by_size[m->exact_fit ? row_gpus(m, row) : 0]++;
	m->r->evictions++;
	m->r->evicted[row]++;
	double lost = (double)m->r->milli[row] * (double)(ran - kept) / 1000.0;
	m->r->lost[row] += lost;
	m->r->lost_gpu_s += lost;
	m->recompact = m->dirty = true;
	return FW_OK;
}

/* An EVICT of reason TIME_LIMIT: the job has run its limit and ends at
 * t, as Slurm's TIMEOUT: it gives back its GPUs (this plan's starts may
 * take them), its run closes, it leaves the snapshot at the next
 * compaction and is never pending again.  It counts as ended at t
 * (end[row]: its JCT is t - submit) with the rest of its work cut.  No
 * on_evict: nothing of it restarts. */
static int time_out(struct sim *m, int32_t k, fw_time t)
{
	if (check_running(m, k, t) != FW_OK)
		return FW_EINVAL;
	int32_t row = m->row_of[k];
	int64_t ran = t - m->s->jobs[k].start_time, dur = m->t->v[row].duration;
	int64_t cut = m->left[row] - ran; /* > 0: a completion by t drained first */
	double gpus = (double)m->r->milli[row] / 1000.0;

	release(m, row, t);
	run_close(m, row, t);
	heap_remove(&m->done, row);
	limit_cancel(m, row);
	/* at most its trace duration (a failure's restart cost adds work) */
	m->r->cut[row] = cut < dur ? cut : dur;
	m->left[row] = 0;
	m->r->end[row] = t;
	m->r->timed_out++;
	m->r->timed_out_gpu_s += gpus * (double)ran;
	m->r->cut_gpu_s += gpus * (double)m->r->cut[row];
	m->gone[k] = true;
	m->ngone++;
	m->dirty = true;
	return FW_OK;
}

/* Does job j hold a task on node `node` (on one of `gpus`, when not 0)? */
static bool runs_on(const struct fw_snapshot *s, const struct fw_job *j, int32_t node, uint32_t gpus)
{
	for (int32_t a = 0; a < j->alloc_count; a++) {
		const struct fw_task_alloc *t = &s->allocs[j->alloc_first + a];
		if (t->node == node && (!gpus || (t->gpu_mask & gpus)))
			return true;
	}
	return false;
}

/* Evict every job on node n (on one of gpus, when not 0): a failure. */
static int evict_failed(struct sim *m, fw_time t, int32_t n, uint32_t gpus)
{
	int rc;

	for (int32_t k = 0; k < m->s->njobs; k++) {
		if (m->gone[k] || m->s->jobs[k].state != FW_JOB_RUNNING || !runs_on(m->s, &m->s->jobs[k], n, gpus))
			continue;
		if ((rc = evict(m, k, t)) != FW_OK)
			return rc;
		m->r->failure_hits++;
	}
	m->r->failures++;
	return FW_OK;
}

static uint32_t fleet_bad(const struct sim *m, int32_t n)
{
	const struct fw_snapshot *b = base_nodes(m);

	return b ? b->nodes[n].bad_gpu_mask : 0;
}

/* GPUs of node n fail at t: their jobs go, the GPUs are out until
 * t + repair, the node and its other GPUs stay.  The evictions freed the
 * failed GPUs, so the node's free count drops by the newly failed ones. */
static int fail_gpus(struct sim *m, fw_time t, int32_t n, uint32_t gpus, int64_t repair)
{
	int rc = evict_failed(m, t, n, gpus);
	uint32_t fresh = gpus & ~m->gpu_bad[n] & ~fleet_bad(m, n);

	if (rc != FW_OK)
		return rc;
	if (!m->gpu_bad[n])
		m->ngpu_bad++;
	m->gpu_bad[n] |= gpus;
	m->s->nodes[n].bad_gpu_mask |= gpus;
	if (t + repair > m->gpu_until[n])
		m->gpu_until[n] = t + repair;
	if (m->down_until[n] < 0) {
		m->node_free[n] -= __builtin_popcount(fresh);
		m->free_gpus -= __builtin_popcount(fresh);
	}
	m->dirty = true;
	return FW_OK;
}

/* Node n's failed GPUs are repaired (or its whole repair ended). */
static void repair_gpus(struct sim *m, int32_t n)
{
	uint32_t back = m->gpu_bad[n] & ~fleet_bad(m, n);

	if (!m->gpu_bad[n])
		return;
	m->ngpu_bad--;
	m->s->nodes[n].bad_gpu_mask = fleet_bad(m, n);
	if (m->down_until[n] < 0) {
		m->node_free[n] += __builtin_popcount(back);
		m->free_gpus += __builtin_popcount(back);
	}
	m->gpu_bad[n] = 0;
	m->gpu_until[n] = -1;
	m->dirty = true;
}

/* Node n fails at t: evict its jobs, take it out until t + repair. */
static int fail_node(struct sim *m, fw_time t, int32_t n, int64_t repair)
{
	int rc = evict_failed(m, t, n, 0);

	if (rc != FW_OK)
		return rc;
	if (m->down_until[n] < 0) {
		m->ndown++;
		m->free_gpus -= m->node_free[n];
		m->node_free[n] = 0;
		m->s->nodes[n].schedulable = false;
	}
	if (t + repair > m->down_until[n])
		m->down_until[n] = t + repair;
	m->dirty = true;
	return FW_OK;
}

static void repair_node(struct sim *m, int32_t n)
{
	repair_gpus(m, n); /* while down: no free count to restore */
	m->down_until[n] = -1;
	m->ndown--;
	m->s->nodes[n].schedulable = base_nodes(m) ? base_nodes(m)->nodes[n].schedulable : true;
	m->node_free[n] = good_gpus(m, n); /* nothing runs on it: it was down */
	m->free_gpus += m->node_free[n];
	m->dirty = true;
}

/* The next repair: its node (-1 = none) and time in *t; *gpus says it
 * is a GPU repair (a node's repair first at the same time). */
static int32_t next_repair(const struct sim *m, int64_t *t, bool *gpus)
{
	int32_t n = -1;

	*t = INT64_MAX;
	*gpus = false;
	for (int32_t i = 0; (m->ndown || m->ngpu_bad) && i < m->nnodes; i++) {
		if (m->down_until[i] >= 0 && m->down_until[i] < *t)
			*t = m->down_until[i], n = i, *gpus = false;
		if (m->gpu_until[i] >= 0 && m->gpu_until[i] < *t)
			*t = m->gpu_until[i], n = i, *gpus = true;
	}
	return n;
}

/* Failures keep the replay going only while there is work they can hit
 * (or a repair to wait for); past that they are applied when the clock
 * passes them but wake nothing. */
static int64_t next_failure(const struct sim *m, bool live)
{
	if (!m->fail_ready)
		return INT64_MAX;
	if (live && m->next_arr >= m->t->n && !m->done.n && !m->ndown && !m->ngpu_bad)
		return INT64_MAX;
	return m->fail.at;
}

static int apply(struct sim *m, const struct fw_plan *p, fw_time T)
{
	int rc;

	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dd = &p->decisions[i];
		if (dd->kind != FW_DECIDE_EVICT)
			continue;
		rc = dd->reason == FW_REASON_TIME_LIMIT ? time_out(m, dd->job, T) : evict(m, dd->job, T);
		if (rc != FW_OK)
			return rc;
	}
	for (int32_t i = 0; i < p->ndecisions; i++) {
		if (p->decisions[i].kind != FW_DECIDE_START)
			continue;
		if ((rc = start_job(m, p, &p->decisions[i], T)) != FW_OK)
			return rc;
		m->started_last = true;
	}
	return m->log.oom ? FW_ENOMEM : FW_OK;
}

/* Wall seconds on the monotonic clock: the replay reads it three times a
 * cycle, and the process CPU clock costs a system call per read (on the
 * cluster08 replay, 34,000 of them: about 3% of the run). */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Each waiting job's first estimate (fw_sim_result.estimate): O(pending).
 * Only before its first start: a job evicted after starting in its first
 * cycle is pending again, but an estimate then is not of its first start.
 * apply() does not move snapshot jobs, so p's job indices still hold. */
static void note_estimates(struct sim *m, const struct fw_plan *p)
{
	for (int32_t i = 0; i < p->npending; i++) {
		int32_t k = p->pending[i].job;
		if (k < 0 || k >= m->s->njobs)
			continue;
		int32_t row = m->row_of[k];
		int64_t *e = &m->r->estimate[row];
		if (*e == FW_SIM_NO_ESTIMATE && m->r->start[row] < 0) {
			*e = p->pending[i].expected_start == FW_TIME_UNKNOWN ? FW_TIME_UNKNOWN
			     : p->pending[i].expected_start;
			m->unestimated--;
		}
	}
}

/* Start-time estimates cost a walk per cycle; the replay records only a
 * job's first one, before its first start, so ask for them only while
 * some waiting job that never started has none yet: m->unestimated,
 * counted up at arrival and down at the first estimate or first start
 * (a job that never started is pending); and, when short jobs wake
 * cycles (short_wakes), while the last plan left a job budget_short:
 * its estimate is its wake.  Decisions never depend on estimates
 * (tests/unit/test_cycle.c, estimates_can_be_switched_off). */
static bool estimates_wanted(const struct sim *m)
{
	return m->unestimated > 0 || m->nshort > 0;
}

/* --model-deserved, measured under either variant: after each applied
 * plan, for every queue with a job naming a model of the option waiting,
 * the GPUs of that model it holds short of what it deserves (pct of its
 * deserved GPUs, rounded down as queue_models does); the sum holds until
 * the next plan (fw_sim_result.model_short_gpu_s).  The sim's queues are
 * flat: a job counts for its own queue. */
static int model_short(struct sim *m, fw_time T)
{
	const struct fw_snapshot *s = m->s;
	const struct fw_sim_model_limit *md = m->o->model_deserved;
	int nk = m->o->nmodel_deserved, nq = s->nqueues;

	if (nk == 0)
		return FW_OK;
	m->r->model_deserved_measured = true;
	m->r->model_short_gpu_s += (double)m->short_milli / 1000.0 * (double)(T - m->short_t);
	m->short_t = T;
	m->short_milli = 0;
	int64_t *held = FW_ARENA_NEW(&m->arena, int64_t, (size_t)nq * nk + 1);
	bool *wait = FW_ARENA_NEW(&m->arena, bool, (size_t)nq * nk + 1);
	if (!held || !wait)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		for (int k = 0; !m->gone[j] && k < nk; k++) {
			size_t x = (size_t)job->queue * nk + k;
			for (int32_t a = 0; job->state == FW_JOB_RUNNING && a < job->alloc_count; a++) {
				const struct fw_task_alloc *t = &s->allocs[job->alloc_first + a];
				if (!strcmp(s->nodes[t->node].gpu_model, md[k].model))
					held[x] += (int64_t)__builtin_popcount(t->gpu_mask) * t->gpu_milli;
			}
			for (int g = 0; job->state == FW_JOB_PENDING && g < job->ngroups; g++)
				wait[x] = wait[x] || (job->groups[g].gpus && !strcmp(job->groups[g].gpu_model, md[k].model));
		}
	}
	for (int32_t q = 0; q < nq; q++)
		for (int k = 0; k < nk; k++) {
			int64_t due = (int64_t)floor((double)s->queues[q].deserved.v[FW_RES_GPU] * md[k].pct / 100);
			size_t x = (size_t)q * nk + k;
			if (wait[x] && held[x] < due)
				m->short_milli += due - held[x];
		}
	return FW_OK;
}

/* Preemptors waiting for their victims' checkpoints (config
 * checkpoint_grace_s): the last plan's entries waited until this cycle. */
static void note_checkpoint_waits(struct sim *m, const struct fw_plan *p, fw_time T)
{
	int32_t n = 0;

	m->r->ckpt_wait_s += (double)m->ckpt_waiting * (double)(T - m->ckpt_at);
	for (int32_t i = 0; m->s->config.checkpoint_grace_s > 0 && i < p->npending; i++)
		n += p->pending[i].reason == FW_REASON_CHECKPOINT_WAIT;
	m->r->ckpt_waits += n;
	m->ckpt_waiting = n;
	m->ckpt_at = T;
}

/*
 * Is a cycle a function of the cluster's state alone, not of the clock?
 * Without reservations (whose backfill windows move with `now`) and
 * without a time-dependent order ahead of a strict line (job_score may
 * read ages and decayed usage), a job that did not start failed against
 * at least the capacity free now, so re-running on an unchanged cluster
 * starts nothing.  Then FW_SIM_EVERY_TICK may skip ticks without events.
 * Decayed usage moves with the clock too, but a cycle reads it only
 * against GPU-hour budgets (and for fair share, which orders and reclaims
 * but frees nothing), and a held queue falling below its budget wakes a
 * cycle as an event does (budget_wake).
 */
static bool clock_free(const struct fw_policy_ops *p)
{
	return p->reserve_depth == 0 && (!p->strict_order || !p->job_score);
}

static enum fw_sim_tick_rule rule_of(const struct sim *m)
{
	if (m->o->tick_rule == FW_SIM_EVERY_TICK && clock_free(m->pol) && !m->evicts && !safe_budgets(m))
		return FW_SIM_ON_CHANGE;
	return m->o->tick_rule;
}

/* Could any pending job start now?  A task lives on one node, so a job of
 * n <= G GPUs needs a node with n free, and a gang of n > G GPUs needs
 * floor(n/G) wholly free nodes and n free GPUs in all.  When no pending
 * job passes this necessary condition a cycle would start nothing.
 * The test is exact only on a uniform fleet with ITP-shaped jobs
 * (m->exact_fit); otherwise (fractions, CPU/memory, models, topology,
 * other gang shapes) any pending job might fit, and every tick counts.
 * So does every tick when the policy may evict preemptible jobs to start
 * one (reclaim, preemption, consolidation: m->evicts): it needs no free
 * capacity, and whether a victim is eligible moves with the clock
 * (protection windows, checkpoints, starvation ages).  struct room is
 * the free capacity the test reads, fits() the test for one size. */
struct room {
	int32_t maxfree, whole; /* the most free GPUs on a node; wholly free nodes */
	int64_t free;           /* free GPUs on the nodes in service */
};

static struct room room_now(const struct sim *m)
{
	struct room x = { 0, 0, 0 };

	for (int32_t i = 0; i < m->nnodes; i++) {
		if (node_closed(m, i))
			continue;
		x.maxfree = m->node_free[i] > x.maxfree ? m->node_free[i] : x.maxfree;
		x.whole += m->node_free[i] == m->G;
		x.free += m->node_free[i];
	}
	return x;
}

static bool fits(struct room x, int32_t g, int32_t G)
{
	return g <= x.free && (g <= G ? g <= x.maxfree : g / G <= x.whole);
}

static bool could_start(const struct sim *m)
{
	struct room x;

	if (m->npending > 0 && (!m->exact_fit || m->evicts))
		return true;
	if (m->npending == 0 || m->free_gpus <= 0)
		return false;
	x = room_now(m);
	for (int32_t g = 1; g <= FW_ITP_MAX_GPUS && g <= m->free_gpus; g++)
		if (m->pending_by_size[g] && fits(x, g, m->G))
			return true;
	return false;
}

/* Does the replay wake a cycle at a budget_short job's expected start?
 * Under `change` only: `all` and `every` cycle at every tick at which a
 * job could fit (`every` but in a held-only stretch) and wake (ending
 * such a stretch) when a short job's run may fit at the earliest
 * (short_hold), with no estimates to make. */
static bool short_wakes(const struct sim *m)
{
	return safe_budgets(m) && rule_of(m) == FW_SIM_ON_CHANGE;
}

/* When a budget_short job's run may fit: the engine's estimate (no
 * sooner than its run fits what is left: lib/estimate.c short_at), no
 * sooner than now + 1 (the next tick), which is also the wake when the
 * cycle made none (the next makes them: m->nshort); INT64_MAX when
 * never or not known (no bound, a running job without one, a run as
 * large as the budget, or a fleet or a line it cannot fit before an
 * event). */
static int64_t short_wake(const struct fw_pending *e, fw_time now)
{
	if (e->expected_start != FW_TIME_UNKNOWN)
		return e->expected_start > now ? e->expected_start : now + 1;
	return e->unknown_why == FW_REASON_NOT_ESTIMATED ? now + 1 : INT64_MAX;
}

/* Jobs a plan left pending over their queue's GPU-hour budget
 * (fw_sim_result.over_budget_jobs): each counted once, O(pending).  And
 * when short jobs wake cycles (short_wakes), how many budget_short ones
 * it left and the earliest wake among them (m->short_at, read by
 * budget_wake). */
static void note_budget(struct sim *m, const struct fw_plan *p)
{
	m->short_at = INT64_MAX;
	m->nshort = 0;
	for (int32_t i = 0; m->over_budget && i < p->npending; i++) {
		int32_t k = p->pending[i].job;
		if ((p->pending[i].reason != FW_REASON_OVER_BUDGET && p->pending[i].reason != FW_REASON_BUDGET_SHORT) ||
		    k < 0 || k >= m->s->njobs)
			continue;
		if (p->pending[i].reason == FW_REASON_BUDGET_SHORT && short_wakes(m)) {
			int64_t w = short_wake(&p->pending[i], p->now);
			m->short_at = w < m->short_at ? w : m->short_at;
			m->nshort++;
		}
		int32_t row = m->row_of[k], q = m->r->queue[row];
		m->r->over_budget_jobs += !m->over_budget[row];
		if (q >= 0 && q < FW_TEAMS_MAX)
			m->r->qover_budget[q] += !m->over_budget[row];
		m->over_budget[row] = true;
	}
}

/* What each budget has left after the plan (applied: its starts run,
 * its evictions and ends are gone) at now, the engine's own sums
 * (fairway/budget.h), and the usage they start from, in the arena;
 * NULL when out of memory.  O(jobs). */
static double *budget_left_now(struct sim *m, double **used)
{
	size_t nq = (size_t)m->s->nqueues + 1;
	double *u = FW_ARENA_NEW(&m->arena, double, nq), *l = FW_ARENA_NEW(&m->arena, double, nq);

	if (!u || !l)
		return NULL;
	fw_budget_used(m->s, u);
	fw_budget_left(m->s, NULL, u, NULL, l, NULL);
	*used = u;
	return l;
}

/* The first second at which budget_short job k's run may fit what its
 * queue has left, at the earliest: a lower bound, as the end of a
 * held-only stretch must be (the engine's expected start is not one: it
 * also waits for room on the fleet, where it holds the nodes of
 * reservations that the job, once its run fits, may take or backfill).
 * Until an event the queue's allocation a stays, its usage moves from u
 * towards A = a h / ln 2, and what is left grows no faster than ln 2 / h
 * x the usage (fairway/budget.h; a run past its bound only slows it), so
 * no faster than ln 2 / h x max(u, A).  A second early for rounding.
 * INT64_MAX (held until an event) when it never fits or not before an
 * event: no bound, a run as large as the budget (the usage never decays
 * to 0), a running job without a bound under it (left -inf: until that
 * one ends), or nothing left to decay. */
static int64_t short_hold(const struct sim *m, int32_t k, const double *used, const double *left)
{
	const struct fw_job *j = &m->s->jobs[k];
	int32_t q = j->queue;
	fw_time now = m->s->now;
	double h = m->s->config.usage_half_life_s, A = (double)m->qalloc[q] / 1000.0 * h / LN2;
	double need = fw_run_left(fw_job_bound(m->s, j), fw_job_request(j).v[FW_RES_GPU], now, now);
	double u = used[q] > A ? used[q] : A, t;

	if (isinf(need) || !(need < m->s->queues[q].gpu_hour_budget * 3600.0) || (isinf(left[q]) && left[q] < 0))
		return INT64_MAX;
	if (!(h > 0) || isinf(left[q]))
		return now; /* not held (neither happens under budgetSafe) */
	if (!(u > 0))
		return INT64_MAX;
	t = floor((double)now + (need - left[q]) / (u * LN2 / h)) - 1;
	return t < (double)FW_TIME_MAX ? (int64_t)t : INT64_MAX;
}

/*
 * Held-only ticks.  Under the `every` rule a policy whose cycles move
 * with the clock runs one at each tick at which some waiting job could
 * fit (could_start), and a job its queue's budget holds (OVER_BUDGET,
 * or under budgetSafe BUDGET_SHORT) may fit for a long time while it
 * can never start.  After a plan that left every waiting job that could
 * fit so held (m->quiet), the cycles that follow start nothing and
 * change no result until something moves: an event (m->dirty), a held
 * queue falling below its budget (budget_at), the earliest second a
 * short job's run may fit what is left (short_hold) or a queue with
 * waiting jobs reaching its budget (quiet_until, whose jobs a plan
 * would then count in over_budget_jobs).  Each held job was counted and
 * had its first estimate taken by this plan, and the rest cannot fit
 * before an event.  So those ticks are skipped, as ticks where nothing
 * fits are (want_cycle); when the fit test is not exact,
 * or the policy evicts, every waiting job must be held.  Not with an
 * on_tick hook (its own state may change what the engine sees), nor
 * when the plan's evictions left jobs waiting that it did not list.
 * The short jobs' holds are also their wake (m->short_hold, budget_wake;
 * under `all` too, where a replay with nothing running and nothing to
 * arrive would otherwise end).  O(jobs) per plan, only with a budget
 * under `every`, or under budgetSafe but for `change`.
 */
static int note_quiet(struct sim *m, const struct fw_plan *p)
{
	const struct fw_snapshot *s = m->s;
	bool every = m->over_budget && rule_of(m) == FW_SIM_EVERY_TICK;
	double *used = NULL, *left = NULL;
	bool *held;
	struct room x;

	m->quiet = false;
	m->short_hold = INT64_MAX;
	if (!every && !(safe_budgets(m) && !short_wakes(m)))
		return FW_OK;
	if (!(held = FW_ARENA_NEW(&m->arena, bool, (size_t)s->njobs + 1)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *e = &p->pending[i];
		if (e->job < 0 || e->job >= s->njobs)
			continue;
		if (e->reason != FW_REASON_BUDGET_SHORT) {
			held[e->job] = e->reason == FW_REASON_OVER_BUDGET;
			continue;
		}
		if (!left && !(left = budget_left_now(m, &used)))
			return FW_ENOMEM;
		int64_t w = short_hold(m, e->job, used, left);
		held[e->job] = w > p->now;
		w = w > p->now ? w : p->now + 1; /* one not held: the next tick */
		m->short_hold = w < m->short_hold ? w : m->short_hold;
	}
	if (!every || (m->o->hooks && m->o->hooks->on_tick) || m->npending != p->npending)
		return FW_OK;
	x = room_now(m);
	for (int32_t k = 0; k < s->njobs; k++) {
		if (m->gone[k] || s->jobs[k].state != FW_JOB_PENDING || held[k])
			continue;
		if (!m->exact_fit || m->evicts || fits(x, row_gpus(m, m->row_of[k]), m->G))
			return FW_OK;
	}
	m->quiet = true;
	return FW_OK;
}

static int cycle(struct sim *m, fw_time T)
{
	struct fw_plan *p;
	int rc;

	if ((m->ngone || m->recompact) && (rc = compact(m)) != FW_OK)
		return rc;
	if (m->o->slice_tasks > 0 && (rc = slice_jobs(m)) != FW_OK)
		return rc;
	m->s->now = T;
	for (int32_t q = 0; q < m->s->nqueues; q++)
		accrue(m, q, T);
	for (int32_t e = 0; m->urow && e < m->s->nuser_usage; e++) {
		struct fw_user_usage *u = &m->s->user_usage[e];
		accrue_to(&u->usage, &u->usage_at, (double)m->ualloc[e] / 1000.0, m->s->config.usage_half_life_s, T);
	}
	if (m->o->validate_each && (rc = fw_snapshot_validate(m->s, m->d)) != FW_OK)
		return rc;
	fw_arena_reset(&m->arena);
	m->s->config.estimate_starts = estimates_wanted(m);
	double t0 = now_s(), t1;
	rc = fw_cycle_run(m->s, m->pol, &m->arena, &p);
	t1 = now_s(); /* the engine's end is the checker's start: one clock read */
	m->r->engine_s += t1 - t0;
	if (rc != FW_OK)
		return fw_diag_set(m->d, rc, "sim", 0, 0, NULL, "cycle at t=%lld: %s",
				   (long long)T, fw_strerror(rc));
	rc = fw_plan_check(m->s, p, &m->arena, m->d);
	m->r->check_s += now_s() - t1;
	if (rc != FW_OK) {
		if (m->d) {
			char msg[sizeof m->d->msg];
			snprintf(msg, sizeof msg, "%s", m->d->msg);
			snprintf(m->d->msg, sizeof m->d->msg, "t=%lld policy %.20s: %.300s",
				 (long long)T, m->pol->name, msg);
		}
		return rc;
	}
	m->r->cycles++;
	note_checkpoint_waits(m, p, T);
	note_budget(m, p);
	if ((rc = apply(m, p, T)) == FW_OK)
		note_estimates(m, p);
	if (rc == FW_OK)
		rc = model_short(m, T);
	if (rc == FW_OK)
		rc = note_quiet(m, p);
	if (rc == FW_OK && m->o->hooks && m->o->hooks->on_plan)
		m->o->hooks->on_plan(m->o->hooks->ctx, m->s, p, m->r->started);
	return rc;
}

/* ---- the event loop ----------------------------------------------------- */

/*
 * GPU-hour budgets.  The engine holds a queue's jobs while its decayed
 * usage at now is >= budget x 3600 (lib/cycle.c budget_mark; the replay's
 * queues are all top-level, or a config's tree with budgets on leaves
 * only, fw_fleet_check_config, so a budgeted queue's subtree is itself).  Between
 * events a queue's allocation a (GPUs) is constant, so from u at t0 its
 * usage is u(t) = A + (u - A) 2^(-(t - t0)/h), A = a h / ln 2: it moves
 * monotonically towards A, and a held queue (u >= B) with A < B falls
 * below its budget B at t0 + h log2((u - A)/(B - A)).  Then a held job
 * may start, and no event marks it, so the first tick past it wakes a
 * cycle, as an event would.  Only queues with pending jobs count.  The
 * other way, a queue that reaches its budget only holds jobs back (and
 * leaves its pending demand out of fair share, which orders queues and
 * sizes reclaim): under a policy whose cycles the clock alone cannot
 * change (clock_free) that starts nothing, so it needs no wake.  A wake
 * that floating point puts one tick early finds the queue still held and
 * wakes again at the next tick.
 */
static int64_t budget_cross(const struct sim *m, int32_t q, fw_time from, double B)
{
	const struct fw_queue *Q = &m->s->queues[q];
	double h = m->s->config.usage_half_life_s, a = (double)m->qalloc[q] / 1000.0;
	double u = Q->usage, A = a * h / LN2, t;
	fw_time at = Q->usage_at;

	accrue_to(&u, &at, a, h, from);
	if (!(h > 0 && u >= B && A < B))
		return INT64_MAX;
	t = floor((double)from + h * log2((u - A) / (B - A))) + 1; /* the first second below */
	if (!(t < (double)FW_TIME_MAX))
		return INT64_MAX;
	return (int64_t)t > from ? (int64_t)t : from + 1;
}

/* The first time after `from` that a held queue with pending jobs falls
 * below its budget, or a budget_short job of the last plan is expected
 * to fit; INT64_MAX when none (or no budget). */
static int64_t budget_wake(const struct sim *m, fw_time from)
{
	int64_t w = INT64_MAX;

	if (!m->budgets)
		return w;
	for (int32_t q = 0; q < m->s->nqueues; q++) {
		double B = m->s->queues[q].gpu_hour_budget * 3600.0;
		int64_t x = m->qpending[q] > 0 ? budget_cross(m, q, from, B) : INT64_MAX;
		w = x < w ? x : w;
	}
	/* budget_safe: when the engine expects a short job's run to fit what
	 * its budget has left (short_wake, under `change`), else when it may
	 * fit at the earliest (short_hold), until it passes */
	int64_t x = short_wakes(m) ? m->short_at : m->short_hold;
	return x > from && x < w ? x : w;
}

/* The other way: the first second at or before which a queue under its
 * budget, with pending jobs and an allocation whose usage tends above
 * the budget (A > B), reaches it, t0 + h log2((A - u)/(A - B)), after
 * `from`; INT64_MAX when none.  It ends a held-only stretch (note_quiet),
 * and early is safe: a plan that finds the queue still under it runs as
 * it would have, and the next stretch starts from there. */
static int64_t budget_rise(const struct sim *m, fw_time from)
{
	double h = m->s->config.usage_half_life_s;
	int64_t w = INT64_MAX;

	for (int32_t q = 0; h > 0 && m->budgets && q < m->s->nqueues; q++) {
		const struct fw_queue *Q = &m->s->queues[q];
		double a = (double)m->qalloc[q] / 1000.0, B = Q->gpu_hour_budget * 3600.0;
		double u = Q->usage, A = a * h / LN2, t;
		fw_time at = Q->usage_at;
		if (m->qpending[q] == 0)
			continue;
		accrue_to(&u, &at, a, h, from);
		if (!(u < B && A > B))
			continue;
		t = floor((double)from + h * log2((A - u) / (A - B)));
		if (!(t < (double)FW_TIME_MAX))
			continue;
		int64_t x = (int64_t)t > from ? (int64_t)t : from + 1;
		w = x < w ? x : w;
	}
	return w;
}

static int64_t next_event(const struct sim *m)
{
	int64_t e = INT64_MAX;

	if (m->next_arr < m->t->n)
		e = m->arrival[m->next_arr].t;
	if (m->done.n && m->done.v[0].t < e)
		e = m->done.v[0].t;
	if (m->limits.n && m->limits.v[0].t < e)
		e = m->limits.v[0].t;
	int64_t r, f = next_failure(m, true);
	bool g;
	next_repair(m, &r, &g);
	e = r < e ? (f < r ? f : r) : (f < e ? f : e);
	const struct fw_sim_hooks *h = m->o->hooks;
	int64_t w = m->npending && h && m->o->next_wake ? m->o->next_wake(h->ctx) : INT64_MAX;
	e = w < e ? w : e;
	e = m->quiet && m->quiet_until < e ? m->quiet_until : e;
	return m->npending && m->budget_at < e ? m->budget_at : e;
}

/* Completions, repairs and failures up to T in time order (ties in that
 * order), then arrivals up to T. */
static int drain(struct sim *m, fw_time T, const struct fw_teams *teams)
{
	int rc;

	for (;;) {
		int64_t c = m->done.n ? m->done.v[0].t : INT64_MAX, r, f = next_failure(m, false);
		bool gpus;
		int32_t rn = next_repair(m, &r, &gpus);
		if (c <= T && c <= r && c <= f) {
			complete(m, heap_pop(&m->done));
		} else if (r <= T && r <= f) {
			if (gpus)
				repair_gpus(m, rn);
			else
				repair_node(m, rn);
		} else if (f <= T) {
			const struct fw_sim_failure *x = &m->fail;
			rc = x->gpus ? fail_gpus(m, f, x->node, x->gpus, x->repair_s)
				     : fail_node(m, f, x->node, x->repair_s);
			if (rc != FW_OK || (rc = fetch_failure(m, f)) != FW_OK)
				return rc;
		} else {
			break;
		}
	}
	while (m->next_arr < m->t->n && m->arrival[m->next_arr].t <= T)
		if ((rc = arrive(m, m->arrival[m->next_arr++].row, teams)) != FW_OK)
			return rc;
	return FW_OK;
}

/* Is T inside a held-only stretch (note_quiet): would its cycle start
 * nothing and change no result? */
static bool quiet_at(const struct sim *m, fw_time T)
{
	return m->quiet && T < m->budget_at && T < m->quiet_until;
}

/* Does the next tick need a cycle even without an event? */
static bool keep_ticking(const struct sim *m)
{
	switch (rule_of(m)) {
	case FW_SIM_ALL_TICKS: return m->npending > 0;
	case FW_SIM_ON_CHANGE: return false;
	default: return !m->quiet && could_start(m);
	}
}

/* Does the tick T run a cycle?  Always when a run-time limit is due by
 * T: only a cycle ends the job (under every rule, so `every` and
 * `change` end it at the tick `all` does). */
static bool want_cycle(const struct sim *m, fw_time T)
{
	if (limit_due(m, T))
		return true;
	switch (rule_of(m)) {
	case FW_SIM_ALL_TICKS: return m->npending > 0;
	case FW_SIM_ON_CHANGE: return (m->dirty || m->budget_at <= T) && could_start(m);
	default: return !quiet_at(m, T) && could_start(m);
	}
}

/* The handle on_tick hooks get: the replay itself. */
struct fw_sim {
	struct sim m;
};

int fw_sim_apply_plan(struct fw_sim *sim, const struct fw_plan *p)
{
	struct sim *m = &sim->m;
	int rc = apply(m, p, m->s->now);

	if (rc == FW_ENOMEM)
		fw_diag_set(m->d, rc, "sim", 0, 0, NULL, "out of memory");
	return rc;
}

struct fw_node *fw_sim_nodes(struct fw_sim *sim, int32_t *nnodes)
{
	*nnodes = sim->m.s->nnodes;
	return sim->m.s->nodes;
}

static int tick_hook(struct sim *m, fw_time T)
{
	const struct fw_sim_hooks *h = m->o->hooks;

	m->s->now = T;
	if (!h || !h->on_tick)
		return FW_OK;
	return h->on_tick(h->ctx, (struct fw_sim *)(void *)m, m->s);
}

static int run_loop(struct sim *m, const struct fw_teams *teams)
{
	int64_t T = -1, tick = m->o->tick_s;
	int rc;

	for (;;) {
		int64_t e = next_event(m);
		if (T >= 0 && keep_ticking(m)) {
			if (e == INT64_MAX && !m->started_last)
				break; /* nothing runs, nothing arrives: stuck for good */
			T += tick;
		} else {
			if (e == INT64_MAX)
				break;
			int64_t at = (e + tick - 1) / tick * tick;
			T = T >= 0 && at < T + tick ? T + tick : at;
		}
		if ((rc = drain(m, T, teams)) != FW_OK || (rc = tick_hook(m, T)) != FW_OK)
			return rc;
		m->started_last = false;
		m->quiet = m->quiet && !m->dirty; /* an event ends a held-only stretch */
		bool ran = want_cycle(m, T);
		if (ran && (rc = cycle(m, T)) != FW_OK)
			return rc;
		m->dirty = false;
		m->budget_at = budget_wake(m, T);
		if (ran && m->quiet)
			m->quiet_until = budget_rise(m, T);
	}
	return FW_OK;
}

/* Jobs of the trace with a run-time limit of their own (max_runtime). */
static size_t job_limits(const struct fw_trace *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].max_runtime > 0;
	return n;
}

int fw_sim_run_trace(const struct fw_trace *t, const struct fw_teams *teams,
		     const struct fw_sim_opts *o, struct fw_sim_result *r, struct fw_diag *d)
{
	struct sim m;
	double t0 = now_s();
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = check_opts(t, o, teams, d)) != FW_OK)
		return rc;
	memset(&m, 0, sizeof m);
	m.t = t;
	m.o = o;
	m.r = r;
	m.d = d;
	snprintf(r->policy, sizeof r->policy, "%s", o->label ? o->label : o->policy);
	r->njobs = t->n;
	r->max_runtime_s = o->max_runtime_s;
	r->gpu_hour_budget = o->gpu_hour_budget;
	r->budget_safe = o->budget_safe;
	r->job_limits = (int64_t)job_limits(t);
	rc = sim_init(&m, teams);
	if (m.s)
		r->usage_half_life_s = m.s->config.usage_half_life_s;
	if (rc == FW_OK)
		rc = run_loop(&m, teams);
	for (size_t i = 0; rc == FW_OK && i < t->n; i++)
		r->never_started += r->start[i] < 0;
	if (rc == FW_OK) {
		r->log = m.log.p ? m.log.p : calloc(1, 1);
		r->log_len = m.log.n;
		m.log.p = NULL;
		rc = r->log ? FW_OK : FW_ENOMEM;
	}
	if (rc == FW_ENOMEM)
		fw_diag_set(d, rc, "sim", 0, 0, NULL, "out of memory");
	sim_release(&m);
	r->wall_s = now_s() - t0;
	return rc;
}

int fw_sim_run(const struct fw_itp_trace *t, const struct fw_teams *teams,
	       const struct fw_sim_opts *o, struct fw_sim_result *r, struct fw_diag *d)
{
	struct fw_trace tr;
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = fw_trace_from_itp(t, o->gpus_per_node, &tr, d)) != FW_OK)
		return rc;
	rc = fw_sim_run_trace(&tr, teams, o, r, d);
	fw_trace_free(&tr);
	return rc;
}

void fw_sim_result_free(struct fw_sim_result *r)
{
	free(r->start);
	free(r->end);
	free(r->evicted);
	free(r->lost);
	free(r->cut);
	free(r->queue);
	free(r->estimate);
	free(r->gpus);
	free(r->milli);
	free(r->runs);
	free(r->log);
	memset(r, 0, sizeof *r);
}

/* ---- metrics -------------------------------------------------------------
 *
 * Time to start = first start - submit (includes the wait for the next
 * tick); JCT = completion - submit (start + duration without evictions;
 * with them it includes the lost work and the wait to restart); both over
 * finished jobs only, a job ended by its run-time limit counting as
 * finished at its end (Slurm's TIMEOUT); gpu_s counts useful work (GPUs x
 * duration, less the work a limit cut: work_done(); the GPUs
 * its latest run held: fewer than asked for an elastic job started with
 * fewer tasks; a fractional GPU counts its gpu_milli / 1000, the unit of
 * every GPU-second the simulator reports).  Size buckets go by the GPUs
 * asked.
 * Percentiles are nearest-rank: the ceil(p/100 * n)-th smallest value.
 * Occupancy = GPU-seconds of started jobs / (cluster GPUs * makespan_s),
 * makespan_s = end of the replay - first arrival, where the replay ends at
 * its last completion or eviction or, when later, its last arrival (a job
 * that never started, or was evicted and never restarted, waited that
 * long; docs/metrics.md, "Window").  A job evicted and never restarted did
 * not finish: it is in no time to start, JCT or gpu_s.
 */

static const char *const bucket_name[FW_SIM_NBUCKETS] = { "1", "2-8", "9-32", "33+", "9+", "all" };

const char *fw_sim_bucket_name(int b)
{
	return b >= 0 && b < FW_SIM_NBUCKETS ? bucket_name[b] : "?";
}

bool fw_sim_in_bucket(int b, int32_t g)
{
	switch (b) {
	case FW_SIM_B1: return g == 1;
	case FW_SIM_B2_8: return g >= 2 && g <= 8;
	case FW_SIM_B9_32: return g >= 9 && g <= 32;
	case FW_SIM_B33: return g >= 33;
	case FW_SIM_B9: return g >= 9;
	default: return true;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t pct(const int64_t *v, size_t n, int p)
{
	size_t k = ((size_t)p * n + 99) / 100;

	return n ? v[k ? k - 1 : 0] : -1;
}

/* GPUs row i held in its latest run, in GPUs of 1000 milli-GPUs (a
 * fractional GPU counts its share): the unit of every GPU-second. */
static double gpus_held(const struct fw_itp_trace *t, const struct fw_sim_result *r, size_t i)
{
	if (r->milli)
		return (double)r->milli[i] / 1000.0;
	return (double)(r->gpus ? r->gpus[i] : t->v[i].gpus);
}

/* The work row i did: its duration, less what a run-time limit cut. */
static double work_done(const struct fw_itp_trace *t, const struct fw_sim_result *r, size_t i)
{
	return (double)(t->v[i].duration - (r->cut ? r->cut[i] : 0));
}

/* Completion time: the recorded one (evictions move it), -1 = none. */
static int64_t end_of(const struct fw_itp_trace *t, const struct fw_sim_result *r, size_t i)
{
	if (r->end)
		return r->end[i];
	return r->start[i] < 0 ? -1 : r->start[i] + t->v[i].duration;
}

/* Stats over rows in bucket b (or any, b < 0) and queue q (or any). */
static void group_stats(const struct fw_itp_trace *t, const struct fw_sim_result *r, int b,
			int q, int64_t *tts, int64_t *jct, struct fw_sim_stats *st)
{
	size_t n = 0;
	double sum = 0;

	memset(st, 0, sizeof *st);
	for (size_t i = 0; i < t->n; i++) {
		if ((b >= 0 && !fw_sim_in_bucket(b, t->v[i].gpus)) || (q >= 0 && r->queue[i] != q))
			continue;
		st->jobs++;
		if (r->start[i] < 0 || end_of(t, r, i) < 0)
			continue;
		tts[n] = r->start[i] - t->v[i].submit;
		jct[n] = end_of(t, r, i) - t->v[i].submit;
		sum += (double)jct[n];
		st->gpu_s += gpus_held(t, r, i) * work_done(t, r, i);
		n++;
	}
	st->started = (int64_t)n;
	qsort(tts, n, sizeof *tts, cmp_i64);
	qsort(jct, n, sizeof *jct, cmp_i64);
	st->tts_p50 = pct(tts, n, 50);
	st->tts_p95 = pct(tts, n, 95);
	st->tts_p99 = pct(tts, n, 99);
	st->jct_mean = n ? sum / (double)n : -1;
	st->jct_p95 = pct(jct, n, 95);
}

/* The GPUs occupancy counts: a fleet's or config's usable ones (nodes
 * closed or badGpus never run a job), else nodes x GPUs. */
static int64_t usable_gpus(const struct fw_sim_opts *o)
{
	const struct fw_snapshot *f = o->config ? o->config : o->fleet;

	return f ? fw_fleet_usable_gpus(f) : (int64_t)o->nodes * o->gpus_per_node;
}

/* A parent queue's GPU-seconds are its subtree's, as sshare counts usage:
 * each queue's own added to every queue above it.  Its jobs and times
 * stay its own (none under --config: jobs go to leaves). */
static void subtree_gpu_s(const struct fw_sim_result *r, struct fw_sim_metrics *m)
{
	double own[FW_TEAMS_MAX];
	int nq = m->nqueues < r->nqueues ? m->nqueues : r->nqueues;

	for (int q = 0; q < nq; q++)
		own[q] = m->queue[q].gpu_s;
	for (int q = 0; q < nq; q++)
		for (int32_t a = r->qparent[q], k = 0; a >= 0 && a < nq && k < nq; a = r->qparent[a], k++)
			m->queue[a].gpu_s += own[q];
}

int fw_sim_metrics(const struct fw_itp_trace *t, const struct fw_sim_opts *o,
		   const struct fw_sim_result *r, int nqueues, struct fw_sim_metrics *m)
{
	size_t n = t->n ? t->n : 1;
	int64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), end = 0;

	memset(m, 0, sizeof *m);
	if (!a || !b) {
		free(a);
		free(b);
		return FW_ENOMEM;
	}
	m->first_arrival = t->n ? INT64_MAX : 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].submit < m->first_arrival)
			m->first_arrival = t->v[i].submit;
		end = end_of(t, r, i) > end ? end_of(t, r, i) : end;
		end = t->v[i].submit > end ? t->v[i].submit : end; /* the wait of a job never started */
	}
	for (size_t k = 0; k < r->nruns; k++) /* an eviction the replay ended with */
		end = r->runs[k].end > end ? r->runs[k].end : end;
	m->makespan_s = end > m->first_arrival ? end - m->first_arrival : 0;
	for (int k = 0; k < FW_SIM_NBUCKETS; k++)
		group_stats(t, r, k, -1, a, b, &m->bucket[k]);
	m->nqueues = nqueues < FW_TEAMS_MAX ? nqueues : FW_TEAMS_MAX;
	for (int q = 0; q < m->nqueues; q++)
		group_stats(t, r, -1, q, a, b, &m->queue[q]);
	subtree_gpu_s(r, m);
	double cap = (double)usable_gpus(o) * (double)m->makespan_s;
	m->occupancy = cap > 0 ? m->bucket[FW_SIM_BALL].gpu_s / cap : 0;
	free(a);
	free(b);
	return FW_OK;
}

/* ---- the command line ----------------------------------------------------
 *
 * fw_sim_cli parses flags by hand (getopt_long is not POSIX), loads the
 * trace and the teams once, then replays the trace once per policy:
 * summary table on stdout, decision log and metrics JSON to files.
 */

#include <jansson.h>

#include "failure.h"
#include "metrics.h"
#include "outfile.h"
#include "report.h"
#include "sha256.h"

#define MAX_POLICIES 8 /* the help and docs/sim.md say 8 */
_Static_assert(MAX_POLICIES == FW_MET_POLICIES, "one metrics column per replay");

/* One entry of --policies: a registered policy, or a variant of one with
 * scheduler settings of its own, "NAME[:KEY=VALUE]...", e.g.
 * "fairway:starve-after=0:backfill=conservative" (docs/sim.md). */
struct variant {
	const char *name;              /* registry name */
	char label[FW_SIM_LABEL_MAX];  /* the entry as given: the result's name */
	int64_t starve_after_s;        /* 0 = the run's (--starve-after), < 0 off */
	int backfill;                  /* -1 = the run's (--backfill), 0 easy, 1 conservative */
	int32_t reserve_depth;         /* 0 = the run's (--reserve-depth), < 0 none */
	int32_t estimate_depth;        /* 0 = the run's (--estimate-depth), < 0 none */
	int64_t xfactor_cap_s;         /* 0 = the run's (--xfactor-cap), < 0 off */
	int users;                     /* -1 = the run's (--user-fair-share), 0 off, 1 on */
	int64_t grace_s;               /* -1 = the run's (--checkpoint-grace), 0 off */
	int slices;                    /* -1 = on when --slices is given, 0 off, 1 on */
	int model_deserved;            /* -1 = on when --model-deserved is given, 0 off, 1 on */
	int64_t max_runtime_s;         /* -1 = the run's (--max-runtime), 0 none */
	double budget;                 /* < 0 = the run's (--gpu-hour-budget), 0 none */
	int budget_safe;               /* -1 = the run's (--budget-safe), 0 off, 1 on */
};

struct cli {
	const char *trace, *format, *json, *log, *teams;
	const char *csv, *report; /* metrics.h, report.h */
	const char *jobs;         /* --jobs: one CSV row per job and policy */
	const char *shares;       /* --shares: fair share and allocation per plan and queue */
	struct variant policy[MAX_POLICIES];
	int npolicies;
	bool skip_bad, nodes_given, verbose;
	int64_t checkpoint_s;  /* --checkpoint: on_evict keeps whole checkpoints */
	struct fw_sim_opts o;
	char polbuf[256];  /* --policies, split in place */
	/* trace model and fleet (trace.h, fleet.h; docs/trace-format.md) */
	const char *fleet, *fleet_openb, *topo;
	int32_t nodes_from_topo, blocks;
	/* --config: a site's config as the replay's base (fleet.h
	 * fw_fleet_load_config; fleetsnap holds it, queues and all), and
	 * the jobs it had, which the replay leaves out */
	const char *config;
	int32_t config_jobs;
	int argc;               /* the command line, for flag_given() */
	char **argv;
	struct fw_trace tr;
	struct fw_snapshot *fleetsnap;
	/* --failures: node failures drawn once, the same for every policy
	 * (failure.h) */
	struct fw_failure_model fail;
	struct fw_sim_failure *fails;
	size_t nfails;
	struct fw_sim_scripted fail_src;
	struct fw_sim_failures fail_feed;
	bool fail_flags;        /* --flaky, --repair or --failure-seed given */
	/* --name-models: a share of the jobs that name no GPU model name one
	 * (drawn by a hash of the job's id, the same in every replay) */
	struct fw_sim_model_limit name_models[FW_SIM_MODEL_LIMITS];
	int32_t nname_models;
	/* a trace of one virtual cluster (one_vc_of): its VC's name, "" for
	 * any other; one_team: replayed as that VC's one team (no --teams) */
	char vc[FW_TEAM_NAME_MAX];
	bool one_team;
};

static const char usage_text[] =
	"usage: fairway sim run --trace FILE [options]\n"
	"\n"
	"Replay a job-arrival trace through the fairway scheduling engine, one\n"
	"run per policy, and report waiting times, completion times and GPU\n"
	"occupancy.  Every plan is checked against the engine's invariants.\n"
	"\n"
	"A time S is whole seconds, written as seconds or as a duration with a\n"
	"unit s, m, h or d (90, 90s, 10m, 1.5h, 1h30m, 7d), as the config and\n"
	"every other fairway command take it.\n"
	"\n"
	"Every option says its default.  A switch (an option without a value) is\n"
	"off unless given.  Where 0 turns a feature off, the option says \"0: off\"\n"
	"and what that leaves (e.g. \"0: off, submit order\"); such a default of 0\n"
	"is off.\n"
	"\n"
	"options:\n"
	"  --trace FILE        the trace (required), e.g.\n"
	"                      ../shared/traces/microsoft-itp/cluster06.csv, or\n"
	"                      'synthetic[:SEED]' for a generated trace with the\n"
	"                      statistics of ITP cluster06 (sim/synth.h)\n"
	"  --format F          trace format: 'itp' (default; job_id,submission_time,\n"
	"                      duration,num_gpu), 'openb' (openb pod list with\n"
	"                      creation_time/deletion_time) or 'fairway' (generic\n"
	"                      CSV or JSONL, docs/trace-format.md)\n"
	"  --nodes NxG         N nodes of G GPUs (default: the trace's standard\n"
	"                      size for clusterNN.csv, else 13x8)\n"
	"  --racks K           group nodes K per rack; gangs prefer one rack\n"
	"                      (default: no racks, one flat level)\n"
	"  --blocks M          group racks M per block (with --racks; default: no\n"
	"                      blocks)\n"
	"  --fleet FILE        nodes and topology from a YAML fleet file (default:\n"
	"                      the nodes of --nodes)\n"
	"  --fleet-openb FILE  nodes from an openb node list (models, CPU, memory;\n"
	"                      default: the nodes of --nodes)\n"
	"  --config FILE       replay on a site's own config (the YAML the daemon\n"
	"                      and `fairway plan` read): its nodes, topology, queue\n"
	"                      tree with every per-queue setting, and scheduler\n"
	"                      block; each job goes to the leaf queue its queue\n"
	"                      column names (--format fairway).  Flags such as\n"
	"                      --reserve-depth override the config's setting, a\n"
	"                      variant's keys per replay; not with --nodes,\n"
	"                      --fleet, --teams or the per-queue flags (default:\n"
	"                      none: the nodes of --nodes, the queues of --teams)\n"
	"  --topo FILE         topology from a topo.csv (Lingjun format); the\n"
	"                      first N hosts go to the N nodes, in order (default:\n"
	"                      none)\n"
	"  --nodes-from-topo G one node of G GPUs per host of --topo FILE\n"
	"                      (default: the nodes of --nodes)\n"
	"  --policies A,B      policies to compare (default fifo,fairway); an entry\n"
	"                      NAME:KEY=VALUE[:KEY=VALUE] is a variant with its own\n"
	"                      starve-after=S (0: off), backfill=easy|conservative,\n"
	"                      reserve-depth=N (0: off, no reservations),\n"
	"                      xfactor-cap=S (0: off, submit order),\n"
	"                      user-fair-share=on|off, checkpoint-grace=S (0: off),\n"
	"                      slices=on|off, model-deserved=on|off,\n"
	"                      max-runtime=S (0: off, no limit),\n"
	"                      gpu-hour-budget=H (0: off, no budget),\n"
	"                      budget-safe=on|off or estimate-depth=N (0: off,\n"
	"                      each job's shape alone), e.g.\n"
	"                      fairway,fairway:starve-after=5d,fairway:reserve-depth=4;\n"
	"                      at most 8 entries a run (split a longer list over\n"
	"                      runs)\n"
	"  --tick S            scheduling period (default 1m)\n"
	"  --preemptible       every job may be evicted: policies with reclaim\n"
	"                      (fairway, kai) take GPUs back for queues below\n"
	"                      their fair share, and preempt by priority;\n"
	"                      fairway not for a job that holds a reservation\n"
	"                      (the first --reserve-depth blocked jobs, 16, or\n"
	"                      all under --backfill conservative): it waits\n"
	"                      for the running jobs' expected ends (default:\n"
	"                      off: no policy evicts a job)\n"
	"  --min-runtime S     a running job is not evicted before it has run S\n"
	"                      since its latest start (default 0: off)\n"
	"  --max-runtime S     run-time limit of every queue (YAML maxRuntime): a\n"
	"                      job that has run S since its latest start ends at\n"
	"                      the next tick, as Slurm's TIMEOUT, and is not\n"
	"                      requeued; the JSON counts them (timed_out_jobs)\n"
	"                      and the work cut; a job's own limit (trace column\n"
	"                      max_runtime) ends it the same way when shorter\n"
	"                      (default 0: off, no limit but a job's own)\n"
	"  --gpu-hour-budget H each queue may use H GPU-hours of decayed usage\n"
	"                      (YAML gpuHourBudget, Slurm's GrpTRESMins): while a\n"
	"                      queue's usage, its GPU-seconds decayed with the\n"
	"                      half-life of --usage-half-life, is at least H x\n"
	"                      3600, none of its jobs starts (reason over_budget)\n"
	"                      until the usage decays below; running jobs run on.\n"
	"                      H sustains about H x ln2 / h GPUs of steady use\n"
	"                      (half-life h hours): H/242 GPUs at 7 days, the\n"
	"                      default; the summary says it for the run's.  The\n"
	"                      JSON counts the jobs it held (over_budget_jobs)\n"
	"                      (default 0: off, no budget)\n"
	"  --budget-safe       with --gpu-hour-budget: a job starts only if its whole\n"
	"                      run, its GPUs x its expected_runtime (or max_runtime),\n"
	"                      fits what the budget has left after the usage and\n"
	"                      the running jobs' remaining runs (YAML\n"
	"                      scheduler.budgetSafe; reason budget_short, counted\n"
	"                      in over_budget_jobs); a job without a runtime never\n"
	"                      fits (default: off)\n"
	"  --usage-half-life S the half-life of queue usage, in whole seconds\n"
	"                      (YAML scheduler.usageHalfLife; 1 to 3153600000,\n"
	"                      36500d; default 7d, and never off: usage always\n"
	"                      decays): what --gpu-hour-budget and fair share\n"
	"                      decay usage with\n"
	"  --starve-after S    under fairway, a gang that has waited S is tried\n"
	"                      before the fair-share order, oldest first, and\n"
	"                      starts or earns a reservation (YAML\n"
	"                      scheduler.starveAfter; default 24h; 0: off);\n"
	"                      fifo, slurm and kai have no such pass\n"
	"  --xfactor-cap S     inside a queue, jobs by expansion factor (wait +\n"
	"                      runtime) / runtime, runtime capped at S (YAML\n"
	"                      scheduler.xfactorCap; default: fairway 12h, kai 0;\n"
	"                      0: off, submit order; fifo and slurm keep their own\n"
	"                      order)\n"
	"  --user-fair-share   inside a queue, users take turns: among jobs of one\n"
	"                      priority, the user holding the fewest GPUs there\n"
	"                      first (YAML scheduler.userFairShare; the trace's\n"
	"                      user column; fairway and kai, not fifo or slurm;\n"
	"                      default: off)\n"
	"  --backfill MODE     'easy' (default: reservations for the policy's\n"
	"                      first blocked jobs) or 'conservative' (for every\n"
	"                      blocked job; YAML scheduler.backfill)\n"
	"  --reserve-depth N   how many blocked jobs get a reservation per cycle\n"
	"                      under easy backfill (YAML scheduler.reserveDepth;\n"
	"                      default: fairway 16, slurm 1; 0: off, no\n"
	"                      reservations); also the most starving gangs\n"
	"                      fairway tries first.  fifo and kai make no\n"
	"                      reservations\n"
	"  --estimate-depth N  how many blocked jobs of one task without a\n"
	"                      reservation, in try order, get an estimate that\n"
	"                      counts the jobs ahead of them (YAML\n"
	"                      scheduler.estimateDepth; default 256; 0: off, each\n"
	"                      job's shape alone); estimates only\n"
	"  --model-limits M=P,...  each queue may hold at most P % of its deserved\n"
	"                      GPUs of GPU model M (YAML gpuModelLimits, as a\n"
	"                      share); jobs naming no model go on a model whose\n"
	"                      limit holds them, e.g. V100M32=50,T4=0 (default:\n"
	"                      none: no model limit)\n"
	"  --model-deserved M=P,...  each queue deserves P % of its deserved GPUs\n"
	"                      as GPUs of model M (YAML gpuModelDeserved, as a\n"
	"                      share; 100 in all at most): with reclaim, a job\n"
	"                      naming M takes them back from a queue holding\n"
	"                      more M than it deserves (reason model_reclaimed)\n"
	"                      (default: none)\n"
	"  --name-models M=P,...  P % of the jobs that name no GPU model name M\n"
	"                      (drawn by a hash of the job id, the same in every\n"
	"                      run; 100 in all at most; not a job the fleet's GPUs\n"
	"                      of M could never hold): model demand for a trace\n"
	"                      that has none; --jobs gives each job's gpu_model\n"
	"                      (default: none: jobs keep the trace's models)\n"
	"  --checkpoint S      an evicted job keeps its progress up to its last\n"
	"                      checkpoint, every S (default 30m; 0: off, it\n"
	"                      restarts from scratch).  Victims are chosen by the\n"
	"                      work they lose since their last checkpoint\n"
	"  --slices K:LEVEL    every gang of a multiple of K tasks (more than K) in\n"
	"                      slices of K, each inside one domain of LEVEL (e.g.\n"
	"                      2:rack with --racks 4; YAML tasks[i].slice); the JSON\n"
	"                      counts those gangs' starts (slice_starts) and the ones\n"
	"                      with K tasks in a row across two domains\n"
	"                      (slice_starts_split); the variant key slices=off\n"
	"                      places them as any gang, to compare (default: none)\n"
	"  --checkpoint-grace S  preempt at a checkpoint: an eviction whose every\n"
	"                      victim saves a checkpoint within S (and sooner\n"
	"                      than the work it would lose) waits for those\n"
	"                      checkpoints (YAML scheduler.checkpointGrace;\n"
	"                      fairway and kai, which evict; default 0: off)\n"
	"  --failures R        node failures per 1,000 node-days (Poisson per node;\n"
	"                      Meta's RSC-1 saw 6.50), drawn once for every policy\n"
	"                      (each replay meets those before its end): a failed\n"
	"                      node's jobs restart from their last checkpoint, and\n"
	"                      the node is out for the repair (default 0: off, no\n"
	"                      failures)\n"
	"  --flaky F           with --failures: fraction of flaky nodes that fail\n"
	"                      10x as often (default 0.05; 0: off, no flaky node)\n"
	"  --repair S          with --failures: repair time (default 4h)\n"
	"  --failure-seed N    with --failures: which nodes are flaky and when\n"
	"                      failures strike (default 1)\n"
	"  --tick-rule R       when a tick runs a cycle: 'every' (default) tick at\n"
	"                      which some waiting job could fit; 'change': only\n"
	"                      after an arrival or completion, or when a queue's\n"
	"                      usage falls below its budget (faster; equal for\n"
	"                      policies without reservations); 'all': every tick\n"
	"  --teams FILE        team sizes (vc,node num); default\n"
	"                      $FAIRWAY_TRACES/philly-vc-config/philly_vc.csv;\n"
	"                      given (or 'philly'), every job goes to its team\n"
	"                      even when the trace names a queue\n"
	"  --json OUT          write metrics as JSON\n"
	"  --csv OUT           write metrics as CSV (docs/metrics.md)\n"
	"  --report OUT.html   write a self-contained HTML report with charts\n"
	"  --log OUT.jsonl     write one JSON line per job start\n"
	"  --jobs OUT.csv      write one CSV row per job and policy: submit, first\n"
	"                      start, end, wait, JCT, evictions, and the first\n"
	"                      start-time estimate with its error (docs/sim.md)\n"
	"  --shares OUT.csv    write each queue's fair share and allocation (GPUs)\n"
	"                      at every plan, per policy: what fairness is computed\n"
	"                      from (docs/metrics.md)\n"
	"  --skip-bad-rows     skip (and count) malformed trace rows (default: off:\n"
	"                      the first one stops the run)\n"
	"  --verbose           per-policy detail: every size bucket and queue\n"
	"                      (default: off: one summary table)\n"
	"  -h, --help          this text\n"
	"\n"
	"No output file is written unless its option names it.\n"
	"\n"
	"Jobs are mapped to teams by a fixed hash of job_id weighted by team size;\n"
	"each team is a queue whose deserved GPUs are proportional to its size.\n"
	"A trace of one virtual cluster (philly_103959.csv in a folder named\n"
	"philly-vc103959-elasticflow, wherever it is) is that VC's one team\n"
	"unless --teams is given.\n"
	"Jobs over G GPUs become gangs of G-GPU tasks.  See docs/sim.md.\n"
	"\n"
	"examples:\n"
	"  fairway sim run --trace synthetic --policies fifo,fairway --json m.json\n"
	"      (no trace needed: a generated one with cluster06's statistics)\n"
	"  fairway sim run --trace ../shared/traces/microsoft-itp/cluster08.csv \\\n"
	"      --policies fifo,slurm,kai,fairway --report r.html\n"
	"      (the real trace; its standard size, 10x8, is the default --nodes)\n";

/* The usage text plus the registered policies. */
static void print_usage(FILE *f)
{
	const struct fw_policy_ops *const *l = fw_policy_list();

	fputs(usage_text, f);
	fprintf(f, "\npolicies:\n");
	for (int i = 0; l[i]; i++)
		fprintf(f, "  %-10s %s\n", l[i]->name, l[i]->summary);
}

/* The stream for notes, warnings and errors: stderr, once the summary's
 * lines already written to stdout are out.  stdout is buffered when it is
 * a pipe or a file and stderr is not, so without the flush a terminal or
 * a log that takes both (`2>&1 | less`) showed an error above the header
 * lines printed before it ("nodes: ...", "skipped N bad rows; the first:
 * ...", which an error then called "above"). */
static FILE *err_out(void)
{
	fflush(stdout);
	return stderr;
}

/* A usage error, as every fairway command reports one (tools/fairway.c,
 * fw_cli_usage_error): "fairway sim run: error: WHY", the hint line, and
 * the exit status 2. */
__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = fw_cli_vrefuse(err_out(), "fairway sim run", fmt, ap);
	va_end(ap);
	return rc;
}

/* Strict positive decimal into [1, hi]; -1 if malformed. */
static int64_t posint(const char *s, size_t n, int64_t hi)
{
	int64_t x = 0;

	if (n == 0 || n > 12)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	return x >= 1 && x <= hi ? x : -1;
}

/* A whole number 0..hi, digits only (no sign, space, hex or exponent):
 * the parser of every flag and variant setting where 0 means none or
 * off; -1 if malformed. */
static int64_t whole0(const char *v, int64_t hi)
{
	return !strcmp(v, "0") ? 0 : posint(v, strlen(v), hi);
}

/* A duration flag's or setting's value, lo..hi whole seconds: seconds
 * ("90") or numbers with a unit s, m, h, d ("90s", "10m", "1.5h",
 * "1h30m", "7d"), the grammar of the YAML config and every other
 * `fairway` flag (fw_cli_duration, fairway/scalar.h); -1 if not. */
static int64_t duration_s(const char *v, int64_t lo, int64_t hi)
{
	double x;

	if (*v == '-' || !fw_cli_duration(v, &x) || x != floor(x) || x < (double)lo || x > (double)hi)
		return -1; /* no sign, "-0" included */
	return (int64_t)x;
}

/* What a duration may be written as, for the refusals. */
#define DURATION_SAYS "seconds or a duration like 90s, 10m, 2h, 1d or 1h30m"

static int parse_nodes(struct cli *c, const char *v)
{
	const char *x = strchr(v, 'x');
	int64_t n = x ? posint(v, (size_t)(x - v), 100000) : -1;
	int64_t g = x ? posint(x + 1, strlen(x + 1), FW_MAX_GPUS_PER_NODE) : -1;

	if (n < 0 || g < 0)
		return usage_error("--nodes '%s': expected NxG, e.g. 13x8 (N 1..100000, G 1..16)", v);
	c->o.nodes = (int32_t)n;
	c->o.gpus_per_node = (int32_t)g;
	c->nodes_given = true;
	return 0;
}

static int unknown_policy(const char *p)
{
	const struct fw_policy_ops *const *l = fw_policy_list();
	char known[256] = "", hint[96];

	for (int i = 0; l[i]; i++)
		snprintf(known + strlen(known), sizeof known - strlen(known), " %s", l[i]->name);
	return usage_error("unknown policy '%s'%s; known:%s", p, fw_cli_hint(p, fw_policy_names(), hint, sizeof hint),
			   known);
}

/* "--policies 'ENTRY': WHY" (exit 2). */
__attribute__((format(printf, 2, 3))) static int entry_error(const struct variant *w, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return usage_error("--policies '%s': %s", w->label, msg);
}

_Static_assert(FW_RESERVE_DEPTH_MAX == 100000, "the reserve-depth messages say 100000");
_Static_assert(FW_ESTIMATE_DEPTH_MAX == 100000, "the estimate-depth messages say 100000");

/* A variant's setting keys; key i's bit in `seen` is 1 << i. */
static const char *const variant_keys[] = { "starve-after", "backfill", "reserve-depth", "xfactor-cap",
	"user-fair-share", "checkpoint-grace", "slices", "model-deserved", "max-runtime", "gpu-hour-budget",
	"budget-safe", "estimate-depth" };

enum { SET_STARVE = 1u, SET_BACKFILL = 2u, SET_RESERVE = 4u, SET_XFACTOR = 8u, SET_USERS = 16u,
       SET_GRACE = 32u, SET_SLICES = 64u, SET_DESERVED = 128u, SET_MAX_RUNTIME = 256u, SET_BUDGET = 512u,
       SET_BUDGET_SAFE = 1024u, SET_ESTIMATE = 2048u };
_Static_assert(SET_ESTIMATE == 1u << (sizeof variant_keys / sizeof *variant_keys - 1),
	       "one bit per key of variant_keys, in its order");

/* Does policy p take the variant setting `bit` (1 starve-after: it has a
 * starvation pass; 2 backfill and 4 reserve-depth: it makes reservations,
 * which backfill=easy|conservative is the rule of)? */
static bool takes_setting(const struct fw_policy_ops *p, unsigned bit)
{
	return bit == SET_STARVE ? p->starve_after_s > 0
	       : bit == SET_BACKFILL || bit == SET_RESERVE ? p->reserve_depth > 0
	       : bit == SET_XFACTOR ? !p->job_before && !p->job_score
	       : bit == SET_USERS ? p->queue_order != FW_QORDER_GLOBAL
	       : bit == SET_GRACE ? p->reclaim : true;
}

/* A setting that means nothing to w's policy is refused, naming the
 * policies that take it; 0 when it applies. */
static int setting_applies(const struct variant *w, unsigned bit)
{
	const struct fw_policy_ops *const *l = fw_policy_list();
	char with[128] = "";

	if (takes_setting(fw_policy_find(w->name), bit))
		return 0;
	for (int i = 0; l[i]; i++)
		if (takes_setting(l[i], bit))
			snprintf(with + strlen(with), sizeof with - strlen(with), "%s%s",
				 with[0] ? ", " : "", l[i]->name);
	return usage_error("--policies '%s': %s %s means nothing to it (%s: %s); leave the setting "
			   "out, or give it to one of those", w->label, w->name,
			   bit == 1 ? "has no starvation pass, so starve-after"
			   : bit == 2 ? "makes no reservations, so backfill"
			   : bit == 8 ? "orders jobs its own way, so xfactor-cap"
			   : bit == 16 ? "keeps one line across the queues, so user-fair-share"
			   : bit == 32 ? "never evicts, so checkpoint-grace"
				       : "makes no reservations, so reserve-depth",
			   bit == 1 ? "policies with one" : "policies that do", with);
}

/* GPU-hours for a budget: a plain decimal (digits with at most one
 * point: no sign, exponent, hex, inf or spaces) from 0 to
 * FW_BUDGET_MAX_GPU_H; 0 or -1. */
static int parse_budget(const char *v, double *out)
{
	size_t whole = strspn(v, "0123456789"), point = v[whole] == '.', frac = 0;
	double x;

	if (point)
		frac = strspn(v + whole + 1, "0123456789");
	if (whole + point + frac != strlen(v) || whole + frac == 0)
		return -1;
	x = strtod(v, NULL);
	if (!(x >= 0 && x <= FW_BUDGET_MAX_GPU_H))
		return -1;
	*out = x;
	return 0;
}

static unsigned variant_key_bit(const char *kv)
{
	for (size_t i = 0; i < sizeof variant_keys / sizeof *variant_keys; i++)
		if (!strcmp(kv, variant_keys[i]))
			return 1u << i;
	return 0u;
}

/* An unknown variant key: the exit status 2, naming the near key, if
 * one is ("reserve-dept" is reserve-depth), and every key. */
static int unknown_setting(const char *kv)
{
	enum { N = sizeof variant_keys / sizeof *variant_keys };
	const char *keys[N + 1];
	char hint[96];

	for (size_t i = 0; i < N; i++)
		keys[i] = variant_keys[i];
	keys[N] = NULL;
	return usage_error("--policies: unknown setting '%s'%s; the settings are starve-after, backfill, "
			   "reserve-depth, xfactor-cap, user-fair-share, checkpoint-grace, slices, model-deserved, "
			   "max-runtime, gpu-hour-budget, budget-safe, estimate-depth (docs/sim.md, \"Variants\")",
			   kv, fw_cli_hint(kv, keys, hint, sizeof hint));
}

/* The settings in seconds: 0 or the exit status 2. */
static int variant_seconds(struct variant *w, unsigned bit, const char *v)
{
	int64_t x;

	if (bit == SET_STARVE) {
		if ((x = duration_s(v, 0, 31536000)) < 0)
			return usage_error("--policies: starve-after=%s: " DURATION_SAYS ", whole seconds from 0 (off) "
					   "to 31536000 (365d)", v);
		w->starve_after_s = x ? x : -1;
	} else if (bit == SET_XFACTOR) {
		if ((x = duration_s(v, 0, 31536000)) < 0 || (x != 0 && x < FW_XFACTOR_MIN_RUNTIME))
			return usage_error("--policies: xfactor-cap=%s: " DURATION_SAYS ", whole seconds: 0 (submit "
					   "order) or 60 to 31536000 (365d)", v);
		w->xfactor_cap_s = x ? x : -1;
	} else if (bit == SET_GRACE) {
		if ((x = duration_s(v, 0, FW_CHECKPOINT_GRACE_MAX)) < 0)
			return usage_error("--policies: checkpoint-grace=%s: " DURATION_SAYS ", whole seconds from 0 "
					   "(off) to 86400 (1d)", v);
		w->grace_s = x;
	} else {
		if ((x = duration_s(v, 0, 31536000)) < 0)
			return usage_error("--policies: max-runtime=%s: " DURATION_SAYS ", whole seconds from 0 "
					   "(none) to 31536000 (365d)", v);
		w->max_runtime_s = x;
	}
	return 0;
}

/* The on/off settings: 0 or the exit status 2. */
static int variant_switch(struct variant *w, unsigned bit, const char *v)
{
	if (strcmp(v, "on") && strcmp(v, "off")) {
		if (bit == SET_SLICES)
			return usage_error("--policies: slices=%s: use on or off (the slices of --slices K:LEVEL)", v);
		if (bit == SET_DESERVED)
			return usage_error("--policies: model-deserved=%s: use on or off (the entries of "
					   "--model-deserved M=P)", v);
		return usage_error("--policies: %s=%s: use on or off", bit == SET_USERS ? "user-fair-share"
				   : "budget-safe", v);
	}
	bool on = !strcmp(v, "on");
	if (bit == SET_USERS)
		w->users = on;
	else if (bit == SET_SLICES)
		w->slices = on;
	else if (bit == SET_DESERVED)
		w->model_deserved = on;
	else
		w->budget_safe = on;
	return 0;
}

/* The other settings: backfill, the depths and the budget; 0 or the
 * exit status 2. */
static int variant_other(struct variant *w, unsigned bit, const char *v)
{
	int64_t x;

	if (bit == SET_BACKFILL) {
		if (strcmp(v, "easy") && strcmp(v, "conservative"))
			return usage_error("--policies: backfill=%s: use easy or conservative", v);
		w->backfill = !strcmp(v, "conservative");
	} else if (bit == SET_RESERVE || bit == SET_ESTIMATE) {
		if ((x = whole0(v, bit == SET_RESERVE ? FW_RESERVE_DEPTH_MAX : FW_ESTIMATE_DEPTH_MAX)) < 0)
			return usage_error("--policies: %s=%s: a whole number from 0 (none) to 100000",
					   bit == SET_RESERVE ? "reserve-depth" : "estimate-depth", v);
		*(bit == SET_RESERVE ? &w->reserve_depth : &w->estimate_depth) = x ? (int32_t)x : -1;
	} else if (parse_budget(v, &w->budget) != 0) {
		return usage_error("--policies: gpu-hour-budget=%s: GPU-hours from 0 (none) to %.0f, e.g. 500 "
				   "or 0.5", v, FW_BUDGET_MAX_GPU_H);
	}
	return 0;
}

/* One KEY=VALUE of a variant: starve-after=S (0 = off), backfill=MODE or
 * reserve-depth=N (0 = none); each key at most once. */
static int variant_setting(struct variant *w, char *kv, unsigned *seen)
{
	char *v = strchr(kv, '=');

	if (!v || v == kv || !v[1])
		return entry_error(w, "'%s': a variant's settings are KEY=VALUE "
				   "(starve-after=S, backfill=easy|conservative, reserve-depth=N, xfactor-cap=S, "
				   "user-fair-share=on|off, checkpoint-grace=S, slices=on|off, model-deserved=on|off, "
				   "max-runtime=S, gpu-hour-budget=H, budget-safe=on|off, estimate-depth=N)", kv);
	*v++ = '\0';
	unsigned bit = variant_key_bit(kv);
	if (*seen & bit)
		return entry_error(w, "%s is set twice", kv);
	*seen |= bit;
	if (setting_applies(w, bit))
		return 2;
	if (bit & (SET_STARVE | SET_XFACTOR | SET_GRACE | SET_MAX_RUNTIME))
		return variant_seconds(w, bit, v);
	if (bit & (SET_USERS | SET_SLICES | SET_DESERVED | SET_BUDGET_SAFE))
		return variant_switch(w, bit, v);
	if (bit)
		return variant_other(w, bit, v);
	return unknown_setting(kv);
}

/* Cut s at the next sep (in place); the rest, or NULL at the end.  Unlike
 * strtok, an empty piece stays a piece ("a,,b", "fifo,", "fairway:"). */
static char *cut(char *s, int sep)
{
	char *x = strchr(s, sep);

	if (!x)
		return NULL;
	*x = '\0';
	return x + 1;
}

/* "NAME[:KEY=VALUE]..." into w; 0 or 2. */
static int parse_variant(char *p, struct variant *w)
{
	char *kv, *rest;
	unsigned seen = 0;
	int rc;

	if (strlen(p) >= sizeof w->label)
		return usage_error("--policies: '%s' is too long (at most 63 characters)", p);
	memset(w, 0, sizeof *w);
	snprintf(w->label, sizeof w->label, "%s", p);
	w->backfill = -1;
	w->users = -1;
	w->grace_s = -1;
	w->slices = -1;
	w->model_deserved = -1;
	w->max_runtime_s = -1;
	w->budget = -1;
	w->budget_safe = -1;
	rest = cut(p, ':');
	w->name = p;
	if (!*p)
		return entry_error(w, "an entry needs a policy name");
	if (!fw_policy_find(w->name))
		return unknown_policy(w->name);
	for (kv = rest; kv; kv = rest) {
		rest = cut(kv, ':');
		if (!*kv)
			return entry_error(w, "an empty setting after ':' (write NAME or NAME:KEY=VALUE)");
		if ((rc = variant_setting(w, kv, &seen)) != 0)
			return rc;
	}
	return 0;
}

static int parse_policies(struct cli *c, const char *v)
{
	char *p, *rest;
	int rc;

	if (strlen(v) >= sizeof c->polbuf)
		return usage_error("--policies '%s': too long", v);
	snprintf(c->polbuf, sizeof c->polbuf, "%s", v);
	c->npolicies = 0;
	for (p = c->polbuf; p; p = rest) {
		rest = cut(p, ',');
		if (!*p)
			return usage_error("--policies '%s': an empty entry (a stray comma?)", v);
		if (c->npolicies == MAX_POLICIES)
			return usage_error("--policies: at most %d entries a run; split the list over "
					   "several runs (each with the same trace and fleet)", MAX_POLICIES);
		if ((rc = parse_variant(p, &c->policy[c->npolicies])) != 0)
			return rc;
		for (int i = 0; i < c->npolicies; i++)
			if (!strcmp(c->policy[i].label, c->policy[c->npolicies].label))
				return usage_error("--policies: '%s' is named twice", c->policy[i].label);
		c->npolicies++;
	}
	return c->npolicies ? 0 : usage_error("--policies '%s': name at least one", v);
}

static int parse_rule(struct cli *c, const char *v)
{
	static const char *const name[] = { "every", "change", "all" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(v, name[i]))
			return c->o.tick_rule = (enum fw_sim_tick_rule)i, 0;
	return usage_error("--tick-rule '%s': expected every, change or all", v);
}

static int set_number(const char *flag, const char *v, int64_t hi, int64_t *out)
{
	int64_t x = posint(v, strlen(v), hi);

	if (x < 0) {
		return usage_error("%s '%s': expected a whole number 1..%lld", flag, v, (long long)hi);
	}
	*out = x;
	return 0;
}

/* A whole number 0..hi, for the counts where 0 means "none". */
static int set_count(const char *flag, const char *v, int64_t hi, int64_t *out)
{
	int64_t x = whole0(v, hi);

	if (x < 0) {
		return usage_error("%s '%s': expected a whole number 0..%lld (0: none)", flag, v,
				   (long long)hi);
	}
	*out = x;
	return 0;
}

/* --slices K:LEVEL: gangs of a multiple of K tasks, more than K, in
 * slices of K, each inside one domain of LEVEL (resolved against the
 * fleet when the replay starts). */
static int set_slices(struct cli *c, const char *v)
{
	const char *colon = strchr(v, ':');
	int64_t k = colon ? posint(v, (size_t)(colon - v), 65536) : -1; /* digits only: no '+', space or hex */

	if (k < 1 || !colon[1] ||
	    strlen(colon + 1) >= sizeof c->o.slice_level)
		return usage_error("--slices '%s': give K:LEVEL, tasks per slice (1 to 65536) and the topology level "
				   "each slice keeps inside (a level of the fleet, e.g. rack with --racks, or node)", v);
	c->o.slice_tasks = (int32_t)k;
	snprintf(c->o.slice_level, sizeof c->o.slice_level, "%s", colon + 1);
	return 0;
}

/* Whole seconds 0..hi, for the flags where 0 means "none" or "off". */
static int set_seconds(const char *flag, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t x = duration_s(v, lo, hi);

	if (x < 0) {
		return usage_error("%s '%s': expected " DURATION_SAYS ", whole seconds %lld..%lld", flag, v,
				   (long long)lo, (long long)hi);
	}
	*out = x;
	return 0;
}

_Static_assert(HALF_LIFE_MAX_S == 3153600000LL, "--help and the --usage-half-life message say 3153600000");

/* --usage-half-life S: whole seconds, 1 to HALF_LIFE_MAX_S (0, the
 * options' "the engine's default", is not a half-life to ask for). */
static int set_half_life(struct cli *c, const char *v)
{
	int64_t x = duration_s(v, 1, HALF_LIFE_MAX_S);

	if (x < 0)
		return usage_error("--usage-half-life '%s': expected " DURATION_SAYS ", whole seconds 1..%lld, "
				   "the half-life of queue usage (default 604800, 7d)", v, (long long)HALF_LIFE_MAX_S);
	c->o.usage_half_life_s = (double)x;
	return 0;
}

/* A number in [lo, hi], all of v, written in plain decimal
 * (fw_cli_decimal: no '+', exponent, hex, inf or nan). */
static int set_real(const char *flag, const char *v, double lo, double hi, double *out)
{
	const char *end;
	double x;

	if (!fw_cli_decimal(v, &x, &end) || *end || !(x >= lo && x <= hi)) {
		return usage_error("%s '%s': expected a number from %g to %g", flag, v, lo, hi);
	}
	*out = x;
	return 0;
}

/* The failure flags: 0, 2 (usage error) or -1 (not a failure flag). */
static int failure_flag(struct cli *c, const char *f, const char *v)
{
	int64_t x = 0;
	int rc;

	if (!strcmp(f, "--failures"))
		return set_real(f, v, 0, 100000, &c->fail.rate_per_1000);
	if (!strcmp(f, "--flaky"))
		return c->fail_flags = true, set_real(f, v, 0, 1, &c->fail.flaky_fraction);
	if (!strcmp(f, "--repair"))
		return c->fail_flags = true,
		       (rc = set_seconds(f, v, 1, 31536000, &x)) ? rc : (c->fail.repair_s = x, 0);
	if (!strcmp(f, "--failure-seed"))
		return c->fail_flags = true,
		       (rc = set_number(f, v, INT64_MAX / 2, &x)) ? rc : (c->fail.seed = (uint64_t)x, 0);
	return -1;
}

/* The fleet flags: 0, 2 (usage error) or -1 (not a fleet flag). */
static int fleet_flag(struct cli *c, const char *f, const char *v)
{
	int64_t x = 0;
	int rc;

	if (!strcmp(f, "--fleet"))
		c->fleet = v;
	else if (!strcmp(f, "--config"))
		c->config = v;
	else if (!strcmp(f, "--fleet-openb"))
		c->fleet_openb = v;
	else if (!strcmp(f, "--topo"))
		c->topo = v;
	else if (!strcmp(f, "--blocks"))
		return (rc = set_number(f, v, 100000, &x)) ? rc : (c->blocks = (int32_t)x, 0);
	else if (!strcmp(f, "--nodes-from-topo"))
		return (rc = set_number(f, v, FW_MAX_GPUS_PER_NODE, &x)) ? rc
		       : (c->nodes_from_topo = (int32_t)x, 0);
	else
		return -1;
	return 0;
}

/* MODEL=PCT lists: --model-limits H100=50,A100=0 (each queue's cap on a
 * GPU model, in % of its deserved GPUs, 0 to 10000), --model-deserved
 * H100=50 (the share of its deserved GPUs it deserves as the model) and
 * --name-models H100=30 (the share of the jobs naming no model that are
 * to name it); the last two at most 100 % in all. */
enum model_map { MAP_LIMITS, MAP_DESERVED, MAP_NAMES };

static int parse_model_map(struct cli *c, const char *v, enum model_map k)
{
	static const char *const flags[] = { "--model-limits", "--model-deserved", "--name-models" };
	static const char *const says[] = { "each queue may hold at most PCT % of its deserved GPUs of that model",
					    "each queue deserves PCT % of its deserved GPUs as that model",
					    "PCT % of the jobs that name no model name that one" };
	const char *flag = flags[k];
	struct fw_sim_model_limit *tab = k == MAP_LIMITS ? c->o.model_limits : k == MAP_DESERVED ? c->o.model_deserved
												: c->name_models;
	int32_t *n = k == MAP_LIMITS ? &c->o.nmodel_limits : k == MAP_DESERVED ? &c->o.nmodel_deserved
										: &c->nname_models;
	double most = k == MAP_LIMITS ? 10000 : 100, sum = 0;
	char buf[512], *save = NULL;
	const char *say = says[k];

	if (strlen(v) >= sizeof buf)
		return usage_error("%s: too long", flag);
	snprintf(buf, sizeof buf, "%s", v);
	*n = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		const char *end = NULL;
		double pct = -1;
		if (!eq || eq == t || !fw_cli_decimal(eq + 1, &pct, &end) || *end || !(pct >= 0 && pct <= most) ||
		    eq - t >= FW_NAME_MAX)
			return usage_error("%s '%.60s': expected MODEL=PCT pairs, e.g. V100M32=50,T4=%s (%s, 0 to %g)",
					   flag, t, k == MAP_LIMITS ? "0" : "25", say, most);
		*eq = 0;
		for (int i = 0; i < *n; i++)
			if (!strcmp(tab[i].model, t))
				return usage_error("%s: %s is named twice", flag, t);
		if (*n == FW_SIM_MODEL_LIMITS)
			return usage_error("%s: at most %d models", flag, FW_SIM_MODEL_LIMITS);
		snprintf(tab[*n].model, sizeof tab[*n].model, "%s", t);
		tab[(*n)++].pct = pct;
		sum += pct;
	}
	if (k != MAP_LIMITS && sum > 100)
		return usage_error("%s: the shares add up to %g %%, more than %s; keep them to 100 in all", flag, sum,
				   k == MAP_DESERVED ? "a queue's deserved GPUs" : "all the jobs");
	return 0;
}

/* The switches: 1 (value not consumed) or -1 (not a switch). */
static int switch_flag(struct cli *c, const char *f)
{
	if (!strcmp(f, "--skip-bad-rows"))
		return c->skip_bad = true, 1;
	if (!strcmp(f, "--verbose"))
		return c->verbose = true, 1;
	if (!strcmp(f, "--preemptible"))
		return c->o.preemptible = true, 1;
	if (!strcmp(f, "--user-fair-share"))
		return c->o.user_fair_share = true, 1;
	if (!strcmp(f, "--budget-safe"))
		return c->o.budget_safe = true, 1;
	return -1;
}

/* The inputs' and outputs' paths and formats: 0 or -1 (not one). */
static int path_flag(struct cli *c, const char *f, const char *v)
{
	if (!strcmp(f, "--trace"))
		c->trace = v;
	else if (!strcmp(f, "--format"))
		c->format = v;
	else if (!strcmp(f, "--json"))
		c->json = v;
	else if (!strcmp(f, "--log"))
		c->log = v;
	else if (!strcmp(f, "--csv"))
		c->csv = v;
	else if (!strcmp(f, "--jobs"))
		c->jobs = v;
	else if (!strcmp(f, "--shares"))
		c->shares = v;
	else if (!strcmp(f, "--report"))
		c->report = v;
	else if (!strcmp(f, "--teams"))
		c->teams = v;
	else
		return -1;
	return 0;
}

/* The flags in seconds: 0, 2 (usage error) or -1 (not one). */
static int seconds_flag(struct cli *c, const char *f, const char *v)
{
	int64_t x = 0;
	int rc;

	if (!strcmp(f, "--tick"))
		return (rc = set_seconds(f, v, 1, 31536000, &x)) ? rc : (c->o.tick_s = x, 0);
	if (!strcmp(f, "--checkpoint"))
		return (rc = set_seconds(f, v, 0, 31536000, &x)) ? rc : (c->checkpoint_s = x, 0);
	if (!strcmp(f, "--checkpoint-grace"))
		return (rc = set_seconds(f, v, 0, FW_CHECKPOINT_GRACE_MAX, &x)) ? rc : (c->o.checkpoint_grace_s = x, 0);
	if (!strcmp(f, "--min-runtime"))
		return (rc = set_seconds(f, v, 0, 31536000, &x)) ? rc : (c->o.min_runtime_s = x, 0);
	if (!strcmp(f, "--max-runtime"))
		return (rc = set_seconds(f, v, 0, 31536000, &x)) ? rc : (c->o.max_runtime_s = x, 0);
	if (!strcmp(f, "--starve-after")) /* 0: off */
		return (rc = set_seconds(f, v, 0, 31536000, &x)) ? rc : (c->o.starve_after_s = x ? x : -1, 0);
	if (!strcmp(f, "--xfactor-cap")) { /* 0: off */
		if ((rc = set_seconds(f, v, 0, 31536000, &x)))
			return rc;
		if (x != 0 && x < FW_XFACTOR_MIN_RUNTIME)
			return usage_error("--xfactor-cap %s: 0 (submit order) or at least 60 seconds", v);
		return c->o.xfactor_cap_s = x ? x : -1, 0;
	}
	return -1;
}

/* The policy's shape: its list, tick rule, depths, backfill, budget,
 * usage half-life, model maps, racks and slices; 0, 2 (usage error) or
 * -1 (not one). */
static int policy_flag(struct cli *c, const char *f, const char *v)
{
	int64_t x = 0;
	int rc;

	if (!strcmp(f, "--policies"))
		return parse_policies(c, v);
	if (!strcmp(f, "--tick-rule"))
		return parse_rule(c, v);
	if (!strcmp(f, "--reserve-depth")) /* 0: none */
		return (rc = set_count(f, v, FW_RESERVE_DEPTH_MAX, &x)) ? rc
			: (c->o.reserve_depth = x ? (int32_t)x : -1, 0);
	if (!strcmp(f, "--estimate-depth")) /* 0: none */
		return (rc = set_count(f, v, FW_ESTIMATE_DEPTH_MAX, &x)) ? rc
			: (c->o.estimate_depth = x ? (int32_t)x : -1, 0);
	if (!strcmp(f, "--backfill")) {
		if (strcmp(v, "easy") && strcmp(v, "conservative"))
			return usage_error("--backfill '%s': use easy or conservative", v);
		return c->o.backfill_conservative = !strcmp(v, "conservative"), 0;
	}
	if (!strcmp(f, "--gpu-hour-budget"))
		return parse_budget(v, &c->o.gpu_hour_budget) == 0 ? 0
			: usage_error("%s '%s': expected GPU-hours from 0 (none) to %.0f, e.g. 500 or 0.5", f, v,
				      FW_BUDGET_MAX_GPU_H);
	if (!strcmp(f, "--usage-half-life"))
		return set_half_life(c, v);
	if (!strcmp(f, "--model-limits"))
		return parse_model_map(c, v, MAP_LIMITS);
	if (!strcmp(f, "--model-deserved"))
		return parse_model_map(c, v, MAP_DESERVED);
	if (!strcmp(f, "--name-models"))
		return parse_model_map(c, v, MAP_NAMES);
	return -1;
}

/* One flag with its value (NULL for switches).  Returns 0, 1 (switch:
 * value not consumed) or the exit status 2. */
static int one_flag(struct cli *c, const char *f, const char *v)
{
	static const char *const known[] = { "--config", "--skip-bad-rows", "--tick-rule", "--trace",
		"--format", "--json", "--log", "--teams", "--nodes", "--policies", "--tick",
		"--racks", "--csv", "--report", "--blocks", "--fleet", "--fleet-openb",
		"--topo", "--nodes-from-topo", "--verbose", "--checkpoint", "--preemptible", "--user-fair-share", "--budget-safe",
		"--min-runtime", "--failures", "--flaky", "--repair", "--failure-seed", "--starve-after",
		"--backfill", "--reserve-depth", "--estimate-depth", "--xfactor-cap", "--jobs", "--shares", "--model-limits", "--model-deserved", "--name-models",
		"--checkpoint-grace", "--slices", "--max-runtime", "--gpu-hour-budget", "--usage-half-life", NULL };
	int i = 0, rc;
	int64_t x = 0;
	char hint[96];

	while (known[i] && strcmp(known[i], f))
		i++;
	if (!known[i])
		return usage_error("unknown option '%s'%s", f, fw_cli_hint(f, known, hint, sizeof hint));
	if ((rc = switch_flag(c, f)) >= 0)
		return rc;
	if (!v || !*v)
		return usage_error("%s needs a value", f);
	if ((rc = fleet_flag(c, f, v)) >= 0 || (rc = failure_flag(c, f, v)) >= 0 || (rc = path_flag(c, f, v)) >= 0 ||
	    (rc = seconds_flag(c, f, v)) >= 0 || (rc = policy_flag(c, f, v)) >= 0)
		return rc;
	if (!strcmp(f, "--nodes"))
		return parse_nodes(c, v);
	if (!strcmp(f, "--racks"))
		return (rc = set_number(f, v, 100000, &x)) ? rc : (c->o.nodes_per_rack = (int32_t)x, 0);
	if (!strcmp(f, "--slices"))
		return set_slices(c, v);
	return usage_error("unknown option '%s'", f);
}

/* --min-runtime and --checkpoint-grace shape evictions for a preemptor,
 * and without --preemptible no job may be evicted so: say so, once (a
 * sweep may pass them to every run alike, so not an error). */
static void note_inert_flags(const struct cli *c)
{
	bool grace = c->o.checkpoint_grace_s > 0;

	for (int i = 0; i < c->npolicies; i++)
		grace = grace || c->policy[i].grace_s > 0;
	if (!c->o.preemptible && (grace || c->o.min_runtime_s > 0))
		fprintf(err_out(), "fairway sim run: note: %s%s%s act%s only on evictions for a waiting job, and without "
				"--preemptible no job may be evicted: add --preemptible to see %s\n",
			c->o.min_runtime_s > 0 ? "--min-runtime" : "", c->o.min_runtime_s > 0 && grace ? " and " : "",
			grace ? "checkpoint-grace" : "", c->o.min_runtime_s > 0 && grace ? "" : "s",
			c->o.min_runtime_s > 0 && grace ? "them" : "it");
}

static bool is_synthetic(const char *trace)
{
	return !strncmp(trace, "synthetic", 9) && (!trace[9] || trace[9] == ':');
}

/* --trace synthetic:SEED: SEED is 0..2^64-1 in decimal digits, nothing
 * else (strtoull alone takes "-1" and saturates on overflow). */
static int check_seed(const char *trace)
{
	const char *s = trace + 10;
	char *end;

	if (!is_synthetic(trace) || !trace[9])
		return 0;
	errno = 0;
	if (*s < '0' || *s > '9' || strspn(s, "0123456789") != strlen(s) ||
	    (strtoull(s, &end, 10), errno == ERANGE))
		return usage_error("--trace '%s': the seed is a whole number 0..18446744073709551615, "
				   "e.g. synthetic:7", trace);
	return 0;
}

/* budget_safe acts on a budget only: --budget-safe where no replay has
 * one, or a variant's budget-safe=on on a replay without one, would
 * change nothing silently (as --flaky without --failures); 0 or 2. */
static int check_budget_safe(const struct cli *c)
{
	bool any = c->o.gpu_hour_budget > 0;

	if (c->config) /* the budgets are the config's queues' (config_budget_safe) */
		return 0;

	for (int i = 0; i < c->npolicies; i++) {
		const struct variant *w = &c->policy[i];
		double b = w->budget >= 0 ? w->budget : c->o.gpu_hour_budget;
		any = any || b > 0;
		if (w->budget_safe == 1 && !(b > 0))
			return usage_error("--policies '%s': budget-safe=on needs a GPU-hour budget, and this replay "
					   "has none: give --gpu-hour-budget H or gpu-hour-budget=H", w->label);
	}
	if (c->o.budget_safe && !any)
		return usage_error("--budget-safe needs --gpu-hour-budget H (or a variant's gpu-hour-budget=H): "
				   "without a budget it changes nothing");
	return 0;
}

/* The extension an example path for an output flag takes. */
static const char *dash_ext(const char *flag)
{
	return !strcmp(flag, "--json") ? ".json" : !strcmp(flag, "--report") ? ".html"
	       : !strcmp(flag, "--log") ? ".jsonl" : ".csv";
}

/* Two outputs naming one file (the later replaces the earlier), or an
 * output naming an input (the input is replaced), would lose data
 * silently: refuse before any work, naming both flags.  An output "-"
 * is refused too (fw_outfile_dash). */
static int check_paths(const struct cli *c)
{
	const char *teams = c->teams && strcmp(c->teams, "philly") ? c->teams : NULL;
	const struct fw_path_use v[] = {
		{ "--trace", is_synthetic(c->trace) ? NULL : c->trace, false },
		{ "--fleet", c->fleet, false }, { "--fleet-openb", c->fleet_openb, false },
		{ "--config", c->config, false },
		{ "--topo", c->topo, false }, { "--teams", teams, false },
		{ "--json", c->json, true }, { "--csv", c->csv, true }, { "--report", c->report, true },
		{ "--jobs", c->jobs, true }, { "--shares", c->shares, true }, { "--log", c->log, true },
	};
	int i, j = fw_outfile_clash(v, (int)(sizeof v / sizeof v[0]), &i);
	int d = fw_outfile_dash(v, (int)(sizeof v / sizeof v[0]));

	if (d >= 0)
		return usage_error("%s -: the summary goes to stdout, so '-' would be a file named '-' here; "
				   "give %s a path (e.g. %s out%s), or /dev/stdout to write it after the summary",
				   v[d].flag, v[d].flag, v[d].flag, dash_ext(v[d].flag));
	if (j < 0)
		return 0;
	if (v[i].out)
		return usage_error("%s %s and %s %s name one file, so one output would replace the other; "
				   "give each output its own file", v[i].flag, v[i].path, v[j].flag, v[j].path);
	return usage_error("%s %s is the %s input, and writing it would replace it; write the output to "
			   "another file", v[j].flag, v[j].path, v[i].flag);
}

/* Was flag f given, as "f V" or "f=V"? */
static bool flag_given(const struct cli *c, const char *f)
{
	size_t n = strlen(f);

	for (int i = 2; i < c->argc; i++)
		if (!strncmp(c->argv[i], f, n) && (c->argv[i][n] == '\0' || c->argv[i][n] == '='))
			return true;
	return false;
}

/* --checkpoint S sets how much an evicted job keeps, and without
 * --preemptible or --failures no job is evicted: say so, as
 * note_inert_flags does for --min-runtime (a note, not an error). */
static void note_inert_checkpoint(const struct cli *c)
{
	if (flag_given(c, "--checkpoint") && !c->o.preemptible && !(c->fail.rate_per_1000 > 0))
		fprintf(err_out(), "fairway sim run: note: --checkpoint acts only on evicted jobs, and without "
				"--preemptible or --failures no job is evicted: add --preemptible or --failures R "
				"to see it\n");
}

/* --config brings the fleet, the queues and each queue's settings: a flag
 * that would replace one of them is refused, saying why (exit 2). */
static int config_conflicts(const struct cli *c)
{
	static const struct { const char *flag, *why; } no[] = {
		{ "--nodes", "the config's nodes are the replay's fleet" },
		{ "--fleet", "the config's nodes are the replay's fleet" },
		{ "--fleet-openb", "the config's nodes are the replay's fleet" },
		{ "--nodes-from-topo", "the config's nodes are the replay's fleet" },
		{ "--topo", "the config's topology is the replay's" },
		{ "--racks", "the config's topology is the replay's" },
		{ "--blocks", "the config's topology is the replay's" },
		{ "--teams", "the config's leaf queues take the jobs, as the trace's queue column names them" },
		{ "--min-runtime", "each queue of the config has its own minRuntime" },
		{ "--max-runtime", "each queue of the config has its own maxRuntime" },
		{ "--gpu-hour-budget", "each queue of the config has its own gpuHourBudget" },
		{ "--model-limits", "each queue of the config has its own gpuModelLimits" },
		{ "--model-deserved", "each queue of the config has its own gpuModelDeserved" },
	};

	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (flag_given(c, no[i].flag))
			return usage_error("--config and %s: %s; drop %s, or change the config", no[i].flag,
					   no[i].why, no[i].flag);
	for (int i = 0; i < c->npolicies; i++)
		if (c->policy[i].max_runtime_s >= 0 || c->policy[i].budget >= 0)
			return usage_error("--policies '%s': with --config each queue has its own %s; drop the "
					   "key, and replay a copy of the config with the change instead",
					   c->policy[i].label, c->policy[i].budget >= 0 ? "gpuHourBudget" : "maxRuntime");
	return 0;
}

static int parse_args(struct cli *c, int argc, char **argv)
{
	c->argc = argc;
	c->argv = argv;
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '='), *v;
		char f[64];
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			return print_usage(stdout), -1;
		if (strncmp(arg, "--", 2) != 0)
			return usage_error("unexpected argument '%s'", arg);
		snprintf(f, sizeof f, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
		if (eq)
			v = eq + 1;
		else
			v = i + 1 < argc && strncmp(argv[i + 1], "--", 2) ? argv[i + 1] : NULL;
		int rc = one_flag(c, f, v);
		if (rc == 2)
			return 2;
		if (rc == 0 && !eq)
			i++;
		if (rc == 1 && eq)
			return usage_error("%s takes no value", f);
	}
	if (!c->trace)
		return usage_error("missing --trace FILE (the trace to replay)");
	if (c->format && fw_trace_format_of(c->format) < 0) {
		static const char *const formats[] = { "itp", "openb", "fairway", NULL };
		char hint[96];
		return usage_error("--format '%s'%s: use itp, openb or fairway", c->format,
				   fw_cli_hint(c->format, formats, hint, sizeof hint));
	}
	if (c->config && config_conflicts(c))
		return 2;
	if ((c->fleet != NULL) + (c->fleet_openb != NULL) + (c->nodes_from_topo > 0) +
	    c->nodes_given > 1)
		return usage_error("use one of --nodes, --fleet, --fleet-openb, --nodes-from-topo");
	if (c->nodes_from_topo && !c->topo)
		return usage_error("--nodes-from-topo G needs --topo FILE");
	if ((c->blocks || c->o.nodes_per_rack) && (c->fleet || c->fleet_openb || c->topo))
		return usage_error("--racks/--blocks generate a topology; not with a fleet or --topo");
	if (c->blocks && !c->o.nodes_per_rack)
		return usage_error("--blocks M groups racks: give --racks K too");
	for (int i = 0; i < c->npolicies && !c->o.slice_tasks; i++)
		if (c->policy[i].slices >= 0)
			return usage_error("--policies '%s': slices=on|off switches the slices of --slices K:LEVEL; "
					   "give --slices too", c->policy[i].label);
	for (int i = 0; i < c->npolicies && !c->o.nmodel_deserved; i++)
		if (c->policy[i].model_deserved >= 0)
			return usage_error("--policies '%s': model-deserved=on|off switches the entries of "
					   "--model-deserved M=P; give --model-deserved too", c->policy[i].label);
	if (check_budget_safe(c) || check_paths(c))
		return 2;
	note_inert_flags(c);
	note_inert_checkpoint(c);
	return check_seed(c->trace);
}

/* Is the trace file in the folder $FAIRWAY_TRACES/sub (default
 * ../shared/traces), the same folder however each path names it (links,
 * "..": device and inode)?  want gets that folder's path. */
static bool trace_in(const struct cli *c, const char *sub, char *want, size_t n)
{
	const char *root = getenv("FAIRWAY_TRACES"), *base = strrchr(c->trace, '/');
	char dir[1024];
	struct stat a, b;

	snprintf(want, n, "%s/%s", root && root[0] ? root : "../shared/traces", sub);
	snprintf(dir, sizeof dir, "%.*s", base ? (int)(base - c->trace) + 1 : 1, base ? c->trace : ".");
	return stat(want, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Is the trace file the real ITP trace: read as ITP, in the folder
 * $FAIRWAY_TRACES/microsoft-itp?  A user's own my/cluster01.csv is not,
 * whatever its name. */
static bool real_itp_trace(const struct cli *c, char *want, size_t n)
{
	bool in = trace_in(c, "microsoft-itp", want, n);

	return in && !(c->format && strcmp(c->format, "itp"));
}

/*
 * Traces of one virtual cluster (the traces README): a fair-share
 * replay of one needs no invented teams, so without --teams it is that
 * VC's one team, and its fairness rows say nothing.  Their rows name no
 * VC, so such a trace is known by its file name in its folder's name
 * (philly-vc103959-elasticflow/philly_103959.csv), as the path is given
 * or once resolved (a relative path, a link): the same file gives the
 * same replay wherever it is and wherever fairway runs, with or without
 * $FAIRWAY_TRACES.
 */
static const struct {
	const char *dir, *file, *vc;
} one_vc_traces[] = {
	{ "philly-vc103959-elasticflow", "philly_103959.csv", "103959" },
};

/* path ends in DIR/FILE (a whole folder name: "/DIR/FILE" or "DIR/FILE"). */
static bool ends_in(const char *path, const char *dir, const char *file)
{
	size_t n = strlen(path), nd = strlen(dir), nf = strlen(file);

	if (n < nd + 1 + nf || strcmp(path + n - nf, file) || path[n - nf - 1] != '/' ||
	    strncmp(path + n - nf - 1 - nd, dir, nd))
		return false;
	return n == nd + 1 + nf || path[n - nf - 2 - nd] == '/';
}

/* The index in one_vc_traces of the trace file, or -1. */
static int one_vc_index(const struct cli *c)
{
	char *real = realpath(c->trace, NULL);
	int k = -1;

	for (size_t i = 0; k < 0 && i < sizeof one_vc_traces / sizeof one_vc_traces[0]; i++)
		if (ends_in(c->trace, one_vc_traces[i].dir, one_vc_traces[i].file) ||
		    (real && ends_in(real, one_vc_traces[i].dir, one_vc_traces[i].file)))
			k = (int)i;
	free(real);
	return k;
}

/* The VC of a trace of one virtual cluster, or NULL. */
static const char *one_vc_of(const struct cli *c)
{
	int k = one_vc_index(c);

	return k < 0 ? NULL : one_vc_traces[k].vc;
}

/* Where the jobs' queues come from (the JSON's teams_source): the
 * config's, the trace's queue column, a trace of one VC as its one team,
 * or the hash split over the teams (of one VC's jobs, under --teams). */
static const char *teams_source(const struct cli *c, const struct fw_teams *teams)
{
	size_t named = 0;

	if (c->config)
		return "config queues";
	if (c->one_team || (c->vc[0] && teams->n == 1))
		return "one VC";
	for (size_t i = 0; !c->teams && i < c->tr.n; i++)
		named += c->tr.v[i].queue[0] != '\0';
	if (!c->teams && named == c->tr.n)
		return "trace queues";
	if (c->vc[0])
		return "hash split of one VC";
	if (teams->n == 1) /* a --teams file of one line: no split */
		return named ? "trace queues and one team" : "one team";
	return named ? "trace queues and hash split" : "hash split";
}

/* The traces README's standard sizes (about 80% offered load), for the
 * real ITP trace files only; any other trace gets 13x8. */
static void default_nodes(struct cli *c)
{
	static const struct { const char *file; int32_t nodes; } std[] = {
		{ "cluster01.csv", 8 }, { "cluster02.csv", 13 }, { "cluster03.csv", 21 },
		{ "cluster05.csv", 2 }, { "cluster06.csv", 13 }, { "cluster08.csv", 10 },
		{ "cluster09.csv", 5 }, { "cluster10.csv", 2 },
	};
	const char *base = strrchr(c->trace, '/');
	char itp[1024] = "";

	base = base ? base + 1 : c->trace;
	if (c->nodes_given)
		return;
	for (size_t i = 0; i < sizeof std / sizeof std[0]; i++) {
		if (strcmp(base, std[i].file))
			continue;
		if (!real_itp_trace(c, itp, sizeof itp))
			break;
		c->o.nodes = std[i].nodes;
		printf("nodes: %dx8, the standard size for %s (traces README)\n", (int)std[i].nodes, base);
		return;
	}
	printf("nodes: 13x8 (default; pass --nodes NxG)\n");
	if (itp[0] && access(c->trace, F_OK) == 0) /* named as an ITP trace, and not one */
		printf("nodes: %s is not an ITP trace of %s ($FAIRWAY_TRACES/microsoft-itp) read as "
		       "ITP, so its name gives no standard size\n", c->trace, itp);
}

/* A time cell of the verbose tables: the span in words, to the second, as
 * every span fairway shows a person (span.h: "51s", "5h12m03s",
 * "93h42m02s"; a mean rounded to the second), or "-" when the group has
 * no started job (the stats hold -1). */
static const char *secs(char *buf, size_t n, double v)
{
	if (v < 0)
		return "-";
	return fw_span_format((int64_t)llround(v), buf, n);
}

/* Is q a leaf of the replay's queues (every queue, without a config)? */
static bool result_leaf(const struct fw_sim_result *r, int q)
{
	for (int k = 0; k < r->nqueues; k++)
		if (r->qparent[k] == q)
			return false;
	return true;
}

/* The verbose tables' columns: a time column holds a span up to
 * "999h59m59s" (41 days); a longer one shifts the rest of its row, and
 * a space still parts every two cells. */
#define STATS_HEAD "  %-10s %6s %7s %10s %10s %10s %10s %10s"

static void print_stats_row(const char *name, const struct fw_sim_stats *st, const char *tail)
{
	char a[FW_SPAN_MAX], b[FW_SPAN_MAX], c[FW_SPAN_MAX], d[FW_SPAN_MAX], e[FW_SPAN_MAX];

	printf("  %-10s %6lld %7lld %10s %10s %10s %10s %10s%s\n", name,
	       (long long)st->jobs, (long long)st->started,
	       secs(a, sizeof a, (double)st->tts_p50), secs(b, sizeof b, (double)st->tts_p95),
	       secs(c, sizeof c, (double)st->tts_p99), secs(d, sizeof d, st->jct_mean),
	       secs(e, sizeof e, (double)st->jct_p95), tail);
}

static const char *plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

/* "3 evictions (1 by 2 node failures), ..." of the verbose summary; the
 * parenthesis only when a node failed. */
static void print_evictions(const struct fw_sim_result *r)
{
	char by[96] = "";

	if (r->failures)
		snprintf(by, sizeof by, " (%lld by %lld node failure%s)", (long long)r->failure_hits,
			 (long long)r->failures, plural(r->failures));
	printf("  %lld eviction%s%s, %.0f GPU-s of work lost\n", (long long)r->evictions,
	       plural(r->evictions), by, r->lost_gpu_s);
}

static void print_summary(const struct fw_sim_result *r, const struct fw_sim_metrics *m,
			  const struct fw_teams *teams)
{
	const struct fw_sim_stats *all = &m->bucket[FW_SIM_BALL];
	int64_t stranded = 0; /* evicted and never restarted */
	char mk[FW_SPAN_MAX], jm[FW_SPAN_MAX], jp[FW_SPAN_MAX];

	for (size_t i = 0; r->end && i < r->njobs; i++)
		stranded += r->start[i] >= 0 && r->end[i] < 0;
	printf("\npolicy %s: %lld started (%lld restarts), %lld never started, %lld cycles, replay %.3f s "
	       "(engine %.3f s, check %.3f s)\n", r->policy, (long long)r->started,
	       (long long)(r->decisions - r->started), (long long)r->never_started,
	       (long long)r->cycles, r->wall_s, r->engine_s, r->check_s);
	if (stranded)
		printf("  %lld evicted and never restarted (waiting at the end; not counted as started "
		       "below)\n", (long long)stranded);
	if (r->evictions || r->failures)
		print_evictions(r);
	if (r->ckpt_waits)
		printf("  %lld waits for a victim's checkpoint (checkpoint_wait), %.1f job-hours in all\n",
		       (long long)r->ckpt_waits, r->ckpt_wait_s / 3600.0);
	printf("  occupancy %.1f%%   makespan %s   JCT mean %s   JCT p95 %s\n", 100.0 * m->occupancy,
	       fw_span_format(m->makespan_s, mk, sizeof mk), secs(jm, sizeof jm, all->jct_mean),
	       secs(jp, sizeof jp, (double)all->jct_p95));
	printf(STATS_HEAD "\n", "GPUs", "jobs", "started", "wait50", "wait95", "wait99", "JCTmean", "JCT95");
	for (int b = 0; b < FW_SIM_NBUCKETS; b++)
		print_stats_row(fw_sim_bucket_name(b), &m->bucket[b], "");
	printf(STATS_HEAD "  %s\n", "queue", "jobs", "started", "wait50", "wait95", "wait99", "JCTmean", "JCT95",
	       "GPU-s%/weight%");
	for (int q = 0; q < m->nqueues; q++) {
		char tail[48];
		double cap = 0;
		for (int k = 0; k < r->nqueues; k++) /* leaves: a parent's share is theirs */
			cap += result_leaf(r, k) ? (double)r->qdeserved_milli[k] : 0;
		snprintf(tail, sizeof tail, "  %5.1f / %4.1f",
			 all->gpu_s > 0 ? 100.0 * m->queue[q].gpu_s / all->gpu_s : 0.0,
			 q < r->nteam ? 100.0 * (double)teams->v[q].weight / (double)teams->total
			 : cap > 0 ? 100.0 * (double)r->qdeserved_milli[q] / cap : 0.0);
		print_stats_row(r->qname[q], &m->queue[q], tail);
	}
}

/* The one line per policy: jobs started counts each job once; its
 * restarts after evictions are counted apart. */
static void print_policy_line(const struct fw_sim_result *r)
{
	char again[48] = "";

	long long re = (long long)(r->decisions - r->started);

	if (re > 0)
		snprintf(again, sizeof again, " (%lld restart%s)", re, re == 1 ? "" : "s");
	printf("policy %-8s %lld job%s started%s, %lld cycle%s, replayed in %.2f s (engine %.2f s)\n",
	       r->policy, (long long)r->started, r->started == 1 ? "" : "s", again,
	       (long long)r->cycles, r->cycles == 1 ? "" : "s", r->wall_s, r->engine_s);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *jint(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *stats_json(const struct fw_sim_stats *st)
{
	json_t *o = json_object(), *w = json_object();

	json_object_set_new(o, "jobs", json_integer(st->jobs));
	json_object_set_new(o, "started", json_integer(st->started));
	json_object_set_new(w, "p50", jint(st->tts_p50));
	json_object_set_new(w, "p95", jint(st->tts_p95));
	json_object_set_new(w, "p99", jint(st->tts_p99));
	json_object_set_new(o, "timeToStartS", w);
	json_object_set_new(o, "jctMeanS", st->jct_mean < 0 ? json_null() : json_real(st->jct_mean));
	json_object_set_new(o, "jctP95S", jint(st->jct_p95));
	json_object_set_new(o, "gpuS", json_real(st->gpu_s));
	return o;
}

/* The jobs held over a budget in queue q's subtree (its own, for a leaf). */
static int64_t subtree_held(const struct fw_sim_result *r, int q)
{
	int64_t n = 0;

	for (int k = 0; k < r->nqueues; k++)
		for (int a = k, d = 0; a >= 0 && a < r->nqueues && d <= r->nqueues; a = r->qparent[a], d++)
			if (a == q) {
				n += r->qover_budget[k];
				break;
			}
	return n;
}

/* A config queue's place in the tree, "parent" (its name, null at the
 * top) and "leaf", the settings it ran with (null: none), and the jobs
 * its budget held (its subtree's, for a parent). */
static void tree_json(const struct fw_sim_result *r, const struct fw_snapshot *cfg, int q, json_t *s)
{
	const struct fw_queue *Q = &cfg->queues[q];
	int p = r->qparent[q];
	int64_t lim = Q->limit.v[FW_RES_GPU];

	json_object_set_new(s, "parent", p >= 0 && p < r->nqueues ? json_string(r->qname[p]) : json_null());
	json_object_set_new(s, "leaf", json_boolean(result_leaf(r, q)));
	json_object_set_new(s, "limitGpus", lim == FW_UNLIMITED ? json_null() : json_real((double)lim / 1000.0));
	json_object_set_new(s, "overQuotaWeight", json_real(Q->over_quota_weight[FW_RES_GPU]));
	json_object_set_new(s, "priority", json_integer(Q->priority));
	json_object_set_new(s, "preemptible", json_boolean(!Q->nonpreemptible));
	json_object_set_new(s, "minRuntimeS", Q->min_runtime_s ? json_integer(Q->min_runtime_s) : json_null());
	json_object_set_new(s, "maxRuntimeS", Q->max_runtime_s ? json_integer(Q->max_runtime_s) : json_null());
	json_object_set_new(s, "gpuHourBudget", Q->gpu_hour_budget > 0 ? json_real(Q->gpu_hour_budget) : json_null());
	json_object_set_new(s, "overBudgetJobs", json_integer(subtree_held(r, q)));
}

static json_t *policy_json(const struct fw_sim_result *r, const struct fw_sim_metrics *m,
			   const struct fw_teams *teams, const struct fw_snapshot *cfg, int64_t gpus)
{
	json_t *o = json_object(), *b = json_object(), *q = json_object();
	int64_t quota[FW_TEAMS_MAX];

	json_object_set_new(o, "policy", json_string(r->policy));
	json_object_set_new(o, "decisions", json_integer(r->decisions));
	json_object_set_new(o, "neverStarted", json_integer(r->never_started));
	json_object_set_new(o, "cycles", json_integer(r->cycles));
	json_object_set_new(o, "evictions", json_integer(r->evictions));
	json_object_set_new(o, "lostGpuS", json_real(r->lost_gpu_s));
	json_object_set_new(o, "timedOutJobs", json_integer(r->timed_out));
	json_object_set_new(o, "timedOutGpuH", json_real(r->timed_out_gpu_s / 3600.0));
	json_object_set_new(o, "timedOutCutGpuH", json_real(r->cut_gpu_s / 3600.0));
	json_object_set_new(o, "overBudgetJobs", json_integer(r->over_budget_jobs));
	json_object_set_new(o, "checkpointWaits", json_integer(r->ckpt_waits));
	json_object_set_new(o, "checkpointWaitJobH", json_real(r->ckpt_wait_s / 3600.0));
	json_object_set_new(o, "sliceStarts", json_integer(r->slice_starts));
	if (r->model_short_gpu_s > 0 || r->model_deserved_measured)
		json_object_set_new(o, "modelDeservedShortGpuH", json_real(r->model_short_gpu_s / 3600.0));
	json_object_set_new(o, "sliceStartsSplit", json_integer(r->slice_split));
	json_object_set_new(o, "failures", json_integer(r->failures));
	json_object_set_new(o, "failureHits", json_integer(r->failure_hits));
	json_object_set_new(o, "replayS", json_real(r->wall_s));
	json_object_set_new(o, "engineS", json_real(r->engine_s));
	json_object_set_new(o, "checkS", json_real(r->check_s));
	json_object_set_new(o, "occupancy", json_real(m->occupancy));
	json_object_set_new(o, "makespanS", json_integer(m->makespan_s));
	json_object_set_new(o, "jctMeanS", m->bucket[FW_SIM_BALL].jct_mean < 0 ? json_null()
				: json_real(m->bucket[FW_SIM_BALL].jct_mean));
	json_object_set_new(o, "jctP95S", jint(m->bucket[FW_SIM_BALL].jct_p95));
	for (int k = 0; k < FW_SIM_NBUCKETS; k++)
		json_object_set_new(b, fw_sim_bucket_name(k), stats_json(&m->bucket[k]));
	json_object_set_new(o, "byGpus", b);
	if (teams->n > 0) /* none with --config */
		fw_teams_quota(teams, gpus, quota);
	for (int k = 0; k < m->nqueues; k++) {
		json_t *s = stats_json(&m->queue[k]);
		if (k < r->nteam)
			json_object_set_new(s, "weight", json_integer(teams->v[k].weight));
		if (cfg && k < cfg->nqueues) /* a config's tree: where the queue is in it */
			tree_json(r, cfg, k, s);
		json_object_set_new(s, "deservedGpus", json_real(
			(double)(r->nqueues == r->nteam ? quota[k] : r->qdeserved_milli[k]) / 1000.0));
		json_object_set_new(q, r->qname[k], s);
	}
	json_object_set_new(o, "byQueue", q);
	return o;
}

/* {MODEL: PCT} of a MODEL=PCT option under key; left out when empty. */
static void model_pct_json(json_t *o, const char *key, const struct fw_sim_model_limit *v, int32_t n)
{
	json_t *m = n ? json_object() : NULL;

	for (int k = 0; k < n; k++)
		json_object_set_new(m, v[k].model, json_real(v[k].pct));
	if (m)
		json_object_set_new(o, key, m);
}

/* The half-life queue usage decays with: the option's, else the engine's
 * default (fw_sched_config_default). */
static double half_life_of(const struct fw_sim_opts *o)
{
	struct fw_sched_config d;

	memset(&d, 0, sizeof d);
	fw_sched_config_default(&d);
	return o->usage_half_life_s > 0 ? o->usage_half_life_s : d.usage_half_life_s;
}

/* The SHA-256 of the config file as hex, or null when it is not a
 * regular file (a pipe, <(...), reads once) or cannot be read again. */
static json_t *file_sha256(const char *path)
{
	struct stat st;
	FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
	char *buf = f ? malloc((size_t)st.st_size + 1) : NULL;
	char hex[FW_SHA256_HEX];
	bool ok = buf && fread(buf, 1, (size_t)st.st_size, f) == (size_t)st.st_size;

	if (ok)
		fw_sha256_hex(buf, (size_t)st.st_size, hex);
	free(buf);
	if (f)
		fclose(f);
	return ok ? json_string(hex) : json_null();
}

/* The config's scheduler block as it resolved (defaults filled in, before
 * the flags and variants: the keys above and each policy's show those). */
static json_t *sched_json(const struct fw_sched_config *k)
{
	json_t *o = json_object();

	json_object_set_new(o, "usageHalfLifeS", json_real(k->usage_half_life_s));
	json_object_set_new(o, "usageWeight", json_real(k->usage_weight));
	json_object_set_new(o, "maxStarts", json_integer(k->max_starts));
	json_object_set_new(o, "estimateStarts", json_boolean(k->estimate_starts));
	json_object_set_new(o, "suspectGangGpus", json_integer(k->suspect_gang_gpus));
	json_object_set_new(o, "lemonGangGpus", json_integer(k->lemon_gang_gpus));
	json_object_set_new(o, "backfill", json_string(k->backfill_conservative ? "conservative" : "easy"));
	json_object_set_new(o, "starveAfterS", json_integer(k->starve_after_s));
	json_object_set_new(o, "xfactorCapS", json_integer(k->xfactor_cap_s));
	json_object_set_new(o, "reserveDepth", json_integer(k->reserve_depth));
	json_object_set_new(o, "estimateDepth", json_integer(k->estimate_depth));
	json_object_set_new(o, "drainRequeue", json_boolean(k->drain_requeue));
	json_object_set_new(o, "userFairShare", json_boolean(k->user_fair_share));
	json_object_set_new(o, "checkpointGraceS", json_integer(k->checkpoint_grace_s));
	json_object_set_new(o, "budgetSafe", json_boolean(k->budget_safe));
	return o;
}

/* --config: which file exactly (configSha256) and its scheduler block
 * (configScheduler), settings no other key echoes among them. */
static void config_json(const struct cli *c, json_t *o)
{
	json_object_set_new(o, "configSha256", file_sha256(c->config));
	json_object_set_new(o, "configScheduler", sched_json(&c->fleetsnap->config));
}

static json_t *run_json(const struct cli *c, const struct fw_itp_trace *t,
			const struct fw_teams *teams)
{
	json_t *o = json_object();
	char nodes[FW_FLEET_SHAPE_MAX];

	fw_fleet_shape(c->fleetsnap, nodes, sizeof nodes);
	json_object_set_new(o, "trace", json_string(c->trace));
	json_object_set_new(o, "jobs", json_integer((json_int_t)t->n));
	json_object_set_new(o, "skippedRows", json_integer((json_int_t)t->skipped));
	json_object_set_new(o, "nodes", json_string(nodes));
	json_object_set_new(o, "gpus", json_integer((json_int_t)fw_fleet_gpus(c->fleetsnap)));
	/* those that can run a job (capacity, occupancy): closed nodes and badGpus left out */
	json_object_set_new(o, "usableGpus", json_integer((json_int_t)fw_fleet_usable_gpus(c->fleetsnap)));
	/* the files the fleet came from, as given (null: not given) */
	json_object_set_new(o, "fleet", c->fleet ? json_string(c->fleet) : json_null());
	json_object_set_new(o, "fleetOpenb", c->fleet_openb ? json_string(c->fleet_openb) : json_null());
	json_object_set_new(o, "topo", c->topo ? json_string(c->topo) : json_null());
	json_object_set_new(o, "config", c->config ? json_string(c->config) : json_null());
	json_object_set_new(o, "racksOf", json_integer(c->o.nodes_per_rack));
	json_object_set_new(o, "tickS", json_integer(c->o.tick_s));
	json_object_set_new(o, "checkpointS", json_integer(c->checkpoint_s));
	json_object_set_new(o, "preemptible", json_boolean(c->o.preemptible));
	json_object_set_new(o, "minRuntimeS", json_integer(c->o.min_runtime_s));
	/* null under --config: no flag set them, its queues did (byQueue) */
	json_object_set_new(o, "maxRuntimeS", c->config ? json_null() : json_integer(c->o.max_runtime_s));
	json_object_set_new(o, "gpuHourBudget", c->config ? json_null() : json_real(c->o.gpu_hour_budget));
	if (c->config)
		config_json(c, o);
	json_object_set_new(o, "usageHalfLifeS", json_integer((json_int_t)half_life_of(&c->o)));
	json_object_set_new(o, "jobLimits", json_integer((json_int_t)job_limits(&c->tr)));
	model_pct_json(o, "modelLimitsPct", c->o.model_limits, c->o.nmodel_limits);
	model_pct_json(o, "modelDeservedPct", c->o.model_deserved, c->o.nmodel_deserved);
	model_pct_json(o, "nameModelsPct", c->name_models, c->nname_models);
	/* null: each policy's own starvation age; 0: off */
	json_object_set_new(o, "starveAfterS", !c->o.starve_after_s ? json_null() :
				  json_integer(c->o.starve_after_s < 0 ? 0 : c->o.starve_after_s));
	json_object_set_new(o, "backfill", json_string(c->o.backfill_conservative ? "conservative" : "easy"));
	/* null: each policy's own reservation depth; 0: none */
	json_object_set_new(o, "reserveDepth", !c->o.reserve_depth ? json_null() :
				  json_integer(c->o.reserve_depth < 0 ? 0 : c->o.reserve_depth));
	/* null: the engine's default estimate depth; 0: none */
	json_object_set_new(o, "estimateDepth", !c->o.estimate_depth ? json_null() :
				  json_integer(c->o.estimate_depth < 0 ? 0 : c->o.estimate_depth));
	/* null: each policy's own expansion-factor cap; 0: off */
	json_object_set_new(o, "xfactorCapS", !c->o.xfactor_cap_s ? json_null() :
				  json_integer(c->o.xfactor_cap_s < 0 ? 0 : c->o.xfactor_cap_s));
	json_object_set_new(o, "userFairShare", json_boolean(c->o.user_fair_share));
	json_object_set_new(o, "budgetSafe", json_boolean(c->o.budget_safe));
	json_object_set_new(o, "checkpointGraceS", json_integer(c->o.checkpoint_grace_s));
	if (c->o.slice_tasks > 0)
		json_object_set_new(o, "slices", json_pack("{s:i,s:s}", "tasks", c->o.slice_tasks, "level",
							   c->o.slice_level));
	json_object_set_new(o, "teams", c->config ? json_null() : json_string(teams->source));
	json_object_set_new(o, "teamsSource", json_string(teams_source(c, teams)));
	if (c->fail.rate_per_1000 > 0)
		json_object_set_new(o, "failureModel",
				    json_pack("{s:f,s:f,s:f,s:I,s:I,s:I}", "ratePer1000", c->fail.rate_per_1000,
					      "flakyFraction", c->fail.flaky_fraction, "flakyFactor",
					      c->fail.flaky_factor, "repairS", (json_int_t)c->fail.repair_s, "seed",
					      (json_int_t)c->fail.seed, "failures", (json_int_t)c->nfails));
	json_object_set_new(o, "policies", json_array());
	return o;
}

/* ---- driver --------------------------------------------------------------- */

/* A failed run (bad input, I/O, memory): "fairway sim run: error: WHY",
 * as the other commands say theirs; the caller returns exit status 1. */
__attribute__((format(printf, 1, 2))) static void run_error(const char *fmt, ...)
{
	va_list ap;

	FILE *f = err_out();

	fputs("fairway sim run: error: ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static int io_error(const char *what, const char *path, int rc)
{
	run_error("cannot %s %s", what, path);
	return rc;
}

/* "--json x/m.json: cannot write: No such file or directory" (errno). */
static int out_error(const struct fw_outfile *o)
{
	run_error("%s %s: cannot write: %s; give %s a path you may write, in a folder that exists, on a disk "
		  "with room", o->flag, o->path, strerror(errno ? errno : EIO), o->flag);
	return 1;
}

static int report_diag(const struct fw_diag *d)
{
	char msg[800];

	fw_itp_diag_str(d, msg, sizeof msg);
	run_error("%s", msg);
	return 1;
}

/* --jobs: one row per trace row of this replay (docs/sim.md, "Per job"). */
static const char jobs_header[] = "policy,job,queue,gpus,submit,start,end,wait_s,jct_s,evictions,"
				  "estimate_kind,estimate,estimate_err_s,gpu_model,end_state\n";

/* How row i's replay ended: completed, timed_out (its run-time limit
 * ended it at `end`), evicted (evicted, not restarted by the end) or
 * never_started. */
static const char *end_state(const struct fw_itp_trace *t, const struct fw_sim_result *r, size_t i)
{
	if (r->start[i] < 0)
		return "never_started";
	if (end_of(t, r, i) < 0)
		return "evicted";
	return r->cut && r->cut[i] > 0 ? "timed_out" : "completed";
}

static void csv_int(FILE *f, int64_t v, bool known)
{
	if (known)
		fprintf(f, ",%lld", (long long)v);
	else
		fputs(",", f);
}

static int write_jobs(FILE *f, const struct fw_itp_trace *t, const struct fw_trace *tr,
		      const struct fw_sim_result *r)
{
	for (size_t i = 0; i < t->n; i++) {
		int64_t st = r->start[i], end = end_of(t, r, i), est = r->estimate[i];
		bool started = st >= 0, ended = started && end >= 0, known = est >= 0;
		fw_met_csv_str(f, r->policy);
		fputc(',', f);
		fw_met_csv_str(f, t->v[i].id);
		fputc(',', f);
		fw_met_csv_str(f, r->qname[r->queue[i]]);
		fprintf(f, ",%d,%lld", (int)r->gpus[i], (long long)t->v[i].submit);
		csv_int(f, st, started);
		csv_int(f, end, ended);
		csv_int(f, st - t->v[i].submit, started);
		csv_int(f, end - t->v[i].submit, ended);
		fprintf(f, ",%d,%s", (int)(r->evicted ? r->evicted[i] : 0),
			known ? "known" : est == FW_SIM_NO_ESTIMATE ? "none" : "unknown");
		csv_int(f, est, known);
		csv_int(f, est - st, known && started);
		fputc(',', f);
		fw_met_csv_str(f, i < tr->n ? tr->v[i].gpu_model : "");
		fprintf(f, ",%s\n", end_state(t, r, i));
	}
	return ferror(f) ? FW_EIO : FW_OK;
}

/* The output files of a run (outfile.h): opened before the replays,
 * published only when the whole run succeeded.  f == NULL: not asked. */
enum { O_LOG, O_JOBS, O_SHARES, O_JSON, O_CSV, O_REPORT, O_N };
struct outs {
	struct fw_outfile v[O_N];
};

/* Set key to v when the policy takes the setting `bit` (takes_setting),
 * else leave it out: a replay does not echo what its policy ignores. */
static void set_taken(json_t *pj, const struct fw_policy_ops *p, unsigned bit, const char *key, json_t *v)
{
	if (takes_setting(p, bit))
		json_object_set_new(pj, key, v);
	else
		json_decref(v);
}

/* What the variant ran with: its base policy and scheduler settings (the
 * run's unless the variant set its own), only those its policy reads. */
static void variant_json(const struct cli *c, const struct variant *w, json_t *pj)
{
	const struct fw_policy_ops *p = fw_policy_find(w->name);
	int64_t sa = w->starve_after_s ? w->starve_after_s : c->o.starve_after_s;
	bool cons = w->backfill >= 0 ? w->backfill == 1 : c->o.backfill_conservative;
	int32_t rd = w->reserve_depth ? w->reserve_depth : c->o.reserve_depth;
	int64_t xc = w->xfactor_cap_s ? w->xfactor_cap_s : c->o.xfactor_cap_s;
	int32_t ed = w->estimate_depth ? w->estimate_depth : c->o.estimate_depth;

	json_object_set_new(pj, "basePolicy", json_string(w->name));
	json_object_set_new(pj, "estimateDepth", !ed ? json_null() : json_integer(ed < 0 ? 0 : ed));
	set_taken(pj, p, 1, "starveAfterS", !sa ? json_null() : json_integer(sa < 0 ? 0 : sa));
	set_taken(pj, p, 2, "backfill", json_string(cons ? "conservative" : "easy"));
	set_taken(pj, p, 4, "reserveDepth", !rd ? json_null() : json_integer(rd < 0 ? 0 : rd));
	set_taken(pj, p, 8, "xfactorCapS", !xc ? json_null() : json_integer(xc < 0 ? 0 : xc));
	set_taken(pj, p, 16, "userFairShare",
		  json_boolean(w->users >= 0 ? w->users == 1 : c->o.user_fair_share));
	set_taken(pj, p, 32, "checkpointGraceS",
		  json_integer(w->grace_s >= 0 ? w->grace_s : c->o.checkpoint_grace_s));
	json_object_set_new(pj, "slices", json_boolean(c->o.slice_tasks > 0 && w->slices != 0));
	json_object_set_new(pj, "maxRuntimeS", c->config ? json_null() :
			    json_integer(w->max_runtime_s >= 0 ? w->max_runtime_s : c->o.max_runtime_s));
	json_object_set_new(pj, "gpuHourBudget", c->config ? json_null() :
			    json_real(w->budget >= 0 ? w->budget : c->o.gpu_hour_budget));
	json_object_set_new(pj, "budgetSafe", json_boolean(w->budget_safe >= 0 ? w->budget_safe == 1 : c->o.budget_safe));
}

/* The run-time limits' line of the summary, only when the replay had one:
 * the queues' (--max-runtime), jobs' own (trace max_runtime), or both. */
/* Queues of the config (--config) with a run-time limit, or a budget. */
static int config_queues_with(const struct cli *c, bool budget)
{
	int n = 0;

	for (int32_t q = 0; c->o.config && q < c->o.config->nqueues; q++)
		n += budget ? c->o.config->queues[q].gpu_hour_budget > 0 : c->o.config->queues[q].max_runtime_s > 0;
	return n;
}

static void print_limits(const struct cli *c, const struct variant *w, const struct fw_sim_result *r)
{
	int64_t lim = w->max_runtime_s >= 0 ? w->max_runtime_s : c->o.max_runtime_s, own = r->job_limits;
	const char *s = r->timed_out == 1 ? "" : "s";
	int nq = config_queues_with(c, false);
	char l[FW_SPAN_MAX]; /* the limit in the words of every span (span.h): "1h30m", not "5400 s" */

	if (lim <= 0 && own <= 0 && nq == 0)
		return;
	if (nq > 0) /* --config: no run-wide limit, each queue's own */
		printf("  run-time limits of %d queue%s of the config (maxRuntime)%s: %lld job%s ended by them", nq,
		       nq == 1 ? "" : "s", own > 0 ? ", or a job's own when shorter" : "", (long long)r->timed_out, s);
	else if (own <= 0)
		printf("  run-time limit %s: %lld job%s ended by it", fw_span_format(lim, l, sizeof l),
		       (long long)r->timed_out, s);
	else if (lim <= 0)
		printf("  jobs' own run-time limits (%lld job%s one): %lld job%s ended by them", (long long)own,
		       own == 1 ? " has" : "s have", (long long)r->timed_out, s);
	else
		printf("  run-time limit %s, or a job's own when shorter (%lld job%s one): %lld job%s ended by them",
		       fw_span_format(lim, l, sizeof l), (long long)own, own == 1 ? " has" : "s have",
		       (long long)r->timed_out, s);
	printf(" (%.1f GPU-h run, %.1f GPU-h of their work cut)\n", r->timed_out_gpu_s / 3600.0,
	       r->cut_gpu_s / 3600.0);
}

#define BUDGETS_LISTED 8 /* queues the --config budget line names */

/* --config: the queues with a gpuHourBudget, each by name with its budget
 * and the jobs it held, the first BUDGETS_LISTED, then the rest's count. */
static void print_config_budgets(const struct cli *c, const struct fw_sim_result *r)
{
	const struct fw_snapshot *s = c->o.config;
	int listed = 0, more = 0;
	int64_t rest = 0;

	printf("  GPU-hour budgets of the config (gpuHourBudget): ");
	for (int32_t q = 0; q < s->nqueues && q < FW_TEAMS_MAX; q++) {
		int64_t held = r->qover_budget[q];
		if (!(s->queues[q].gpu_hour_budget > 0))
			continue;
		if (listed == BUDGETS_LISTED) {
			more++, rest += held;
			continue;
		}
		printf("%squeue %s %.10g GPU-h, %lld job%s held over it", listed++ ? "; " : "", s->queues[q].name,
		       s->queues[q].gpu_hour_budget, (long long)held, held == 1 ? "" : "s");
	}
	if (more)
		printf("; %d more queue%s, %lld job%s held over them", more, more == 1 ? "" : "s", (long long)rest,
		       rest == 1 ? "" : "s");
	printf("\n");
}

/* The budget's line of the summary, only when the replay had one, with
 * the GPUs of steady use it sustains under the replay's half-life h: a
 * queue holding a GPUs tends to usage a h / ln 2, so at most
 * H x 3600 x ln 2 / h. */
static void print_budget(const struct cli *c, const struct fw_sim_result *r)
{
	double h = r->usage_half_life_s;
	const char *unit = "second";
	double n = h;
	int nq = config_queues_with(c, true);

	if (nq > 0) /* --config: each queue's own */
		print_config_budgets(c, r);
	if (!(r->gpu_hour_budget > 0))
		return;
	if (fmod(h, 86400) == 0)
		unit = "day", n = h / 86400;
	else if (fmod(h, 900) == 0)
		unit = "hour", n = h / 3600;
	else if (fmod(h, 60) == 0)
		unit = "minute", n = h / 60;
	printf("  GPU-hour budget %.10g per queue: %lld job%s held over it (over_budget%s); with the %.10g-%s usage "
	       "half-life it sustains about %.3g GPUs of steady use\n", r->gpu_hour_budget,
	       (long long)r->over_budget_jobs, r->over_budget_jobs == 1 ? "" : "s",
	       r->budget_safe ? ", or budget_short: --budget-safe" : "", n, unit,
	       h > 0 ? r->gpu_hour_budget * 3600 * LN2 / h : 0);
}

/* The replay of variant w: its settings over the run's, then the run's back. */
static int replay_variant(struct cli *c, const struct variant *w, const struct fw_teams *teams,
			  struct fw_sim_result *r, struct fw_diag *d)
{
	struct fw_sim_opts keep = c->o;
	int rc;

	c->o.policy = w->name;
	c->o.label = w->label;
	if (w->starve_after_s)
		c->o.starve_after_s = w->starve_after_s;
	if (w->backfill >= 0)
		c->o.backfill_conservative = w->backfill == 1;
	if (w->reserve_depth)
		c->o.reserve_depth = w->reserve_depth;
	if (w->estimate_depth)
		c->o.estimate_depth = w->estimate_depth;
	if (w->xfactor_cap_s)
		c->o.xfactor_cap_s = w->xfactor_cap_s;
	if (w->users >= 0)
		c->o.user_fair_share = w->users == 1;
	if (w->grace_s >= 0)
		c->o.checkpoint_grace_s = w->grace_s;
	c->o.slices_off = w->slices == 0;
	c->o.model_deserved_off = w->model_deserved == 0;
	if (w->max_runtime_s >= 0)
		c->o.max_runtime_s = w->max_runtime_s;
	if (w->budget >= 0)
		c->o.gpu_hour_budget = w->budget;
	if (w->budget_safe >= 0)
		c->o.budget_safe = w->budget_safe == 1;
	rc = fw_sim_run_trace(&c->tr, teams, &c->o, r, d);
	keep.hooks = c->o.hooks;
	c->o = keep;
	return rc;
}

/* This replay's rows of --log, --jobs and --shares. */
static int write_streams(const struct outs *out, const struct fw_itp_trace *t, const struct fw_trace *tr,
			 const struct fw_sim_result *r, const struct fw_met_run *mr)
{
	const struct fw_outfile *o = out->v;

	if (o[O_LOG].f && fwrite(r->log, 1, r->log_len, o[O_LOG].f) != r->log_len)
		return out_error(&o[O_LOG]), FW_EIO;
	if (o[O_JOBS].f && write_jobs(o[O_JOBS].f, t, tr, r) != FW_OK)
		return out_error(&o[O_JOBS]), FW_EIO;
	if (o[O_SHARES].f && mr->npol &&
	    fw_met_write_shares(o[O_SHARES].f, &mr->rec, r->policy, mr->pol[mr->npol - 1]->t1) != FW_OK)
		return out_error(&o[O_SHARES]), FW_EIO;
	return FW_OK;
}

static int run_policy(struct cli *c, const struct variant *w, const struct fw_itp_trace *t,
		      const struct fw_teams *teams, const struct outs *out, json_t *root,
		      struct fw_met_run *mr)
{
	struct fw_sim_result r;
	struct fw_sim_metrics *m = malloc(sizeof *m);
	struct fw_diag d;
	const char *name = w->label;
	int rc;

	memset(&d, 0, sizeof d);
	if (!m)
		return run_error("out of memory"), 1;
	fw_met_begin(mr, &c->o, name); /* records plans, draws the progress bar */
	rc = replay_variant(c, w, teams, &r, &d);
	fw_met_end(mr, &c->o);
	if (rc == FW_OK)
		rc = fw_sim_metrics(t, &c->o, &r, r.nqueues, m);
	if (rc == FW_OK) {
		json_t *pj = policy_json(&r, m, teams, c->o.config, (int64_t)c->o.nodes * c->o.gpus_per_node);
		variant_json(c, w, pj);
		if (c->verbose)
			print_summary(&r, m, teams);
		else
			print_policy_line(&r);
		print_limits(c, w, &r);
		print_budget(c, &r);
		if (!c->verbose && r.failures)
			printf("  %lld node failure%s hit %lld running job%s; %.1f GPU-h of work lost to evictions\n",
			       (long long)r.failures, plural(r.failures), (long long)r.failure_hits,
			       plural(r.failure_hits), r.lost_gpu_s / 3600.0);
		if (fw_met_add(mr, t, &r, m, pj) != FW_OK)
			rc = io_error("compute the metrics of", name, FW_EIO);
		else if (c->verbose)
			fw_met_print(mr, stdout);
		if (rc == FW_OK)
			rc = write_streams(out, t, &c->tr, &r, mr);
		json_array_append_new(json_object_get(root, "policies"), pj);
	} else if (rc != FW_EIO) {
		report_diag(&d);
	}
	fw_sim_result_free(&r);
	free(m);
	return rc == FW_OK ? 0 : 1;
}

/* rc, and when it is a file that could not be opened or read (no line in
 * it named), the flag that named the file, so the fix is plain: "...: No
 * such file or directory; check the path given to --fleet". */
static int open_hint(int rc, const char *flag, struct fw_diag *d)
{
	static const char *const generic[] = { "; check the path and permissions", "; check the file" };
	char *cut;
	size_t n;

	if ((rc != FW_EIO && rc != FW_ENOENT) || !d || d->line != 0)
		return rc;
	for (size_t i = 0; i < sizeof generic / sizeof *generic; i++) /* the loader's own advice: ours is exact */
		if ((cut = strstr(d->msg, generic[i])) && !cut[strlen(generic[i])])
			*cut = '\0';
	n = strlen(d->msg);
	snprintf(d->msg + n, sizeof d->msg - n, "; check the path given to %s", flag);
	return rc;
}

/* The fleet of --nodes/--racks/--blocks, --fleet, --fleet-openb or
 * --nodes-from-topo, with --topo applied; o.nodes x o.gpus_per_node then
 * hold its size (uniform) or its GPUs as 1-GPU units (for capacity). */
static int build_fleet(struct cli *c, struct fw_diag *d)
{
	struct fw_fleet_opts fo = { c->o.nodes, c->o.gpus_per_node, c->o.nodes_per_rack, c->blocks };
	struct fw_topo topo;
	int32_t G;
	int rc = FW_OK;

	memset(&topo, 0, sizeof topo);
	if (c->topo && (rc = fw_topo_read(c->topo, &topo, d)) != FW_OK)
		return open_hint(rc, "--topo", d);
	if (c->config)
		rc = open_hint(fw_fleet_load_config(c->config, &c->fleetsnap, &c->config_jobs, d), "--config", d);
	else if (c->fleet)
		rc = open_hint(fw_fleet_load_yaml(c->fleet, &c->fleetsnap, d), "--fleet", d);
	else if (c->fleet_openb)
		rc = open_hint(fw_fleet_from_openb(c->fleet_openb, &c->fleetsnap, d), "--fleet-openb", d);
	else if (c->nodes_from_topo)
		rc = fw_fleet_from_topo(&topo, c->nodes_from_topo, &c->fleetsnap, d);
	else
		rc = fw_fleet_generate(&fo, &c->fleetsnap, d);
	if (rc == FW_OK && c->topo && !c->nodes_from_topo)
		rc = fw_fleet_apply_topo(c->fleetsnap, &topo, d);
	fw_topo_free(&topo);
	if (rc != FW_OK)
		return rc;
	if (fw_fleet_uniform(c->fleetsnap, &G) && G > 0) {
		c->o.nodes = c->fleetsnap->nnodes;
		c->o.gpus_per_node = G;
	} else {
		c->o.nodes = (int32_t)fw_fleet_gpus(c->fleetsnap);
		c->o.gpus_per_node = 1;
	}
	c->o.fleet = c->config ? NULL : c->fleetsnap;
	c->o.config = c->config ? c->fleetsnap : NULL;
	return FW_OK;
}

/* --config: its scheduler block under the flags, each setting a flag did
 * not give the config's (a variant's keys override either, per replay);
 * --user-fair-share and --budget-safe only switch on, so a config's true
 * stays (the variant keys user-fair-share=off, budget-safe=off turn them
 * off).  And a note on the jobs it had, which are not replayed. */
static void config_settings(struct cli *c)
{
	const struct fw_sched_config *k = &c->fleetsnap->config;

	if (!flag_given(c, "--starve-after"))
		c->o.starve_after_s = k->starve_after_s;
	if (!flag_given(c, "--backfill"))
		c->o.backfill_conservative = k->backfill_conservative;
	if (!flag_given(c, "--reserve-depth"))
		c->o.reserve_depth = k->reserve_depth;
	if (!flag_given(c, "--estimate-depth"))
		c->o.estimate_depth = k->estimate_depth;
	if (!flag_given(c, "--xfactor-cap"))
		c->o.xfactor_cap_s = k->xfactor_cap_s;
	if (!flag_given(c, "--checkpoint-grace"))
		c->o.checkpoint_grace_s = k->checkpoint_grace_s;
	if (!flag_given(c, "--usage-half-life"))
		c->o.usage_half_life_s = k->usage_half_life_s;
	c->o.user_fair_share |= k->user_fair_share;
	c->o.budget_safe |= k->budget_safe;
	c->o.lemon_gang_gpus = k->lemon_gang_gpus;
	if (c->config_jobs)
		fprintf(err_out(), "fairway sim run: note: the %d job%s of %s %s not replayed: the trace's jobs run on "
				"its nodes and queues\n", (int)c->config_jobs, c->config_jobs == 1 ? "" : "s",
			c->config, c->config_jobs == 1 ? "is" : "are");
}

/* The ITP-shaped view of the trace that the metrics read (metrics.h):
 * whole GPUs per job, a fractional GPU counting 1, for the size buckets
 * and "fits the cluster"; GPU-seconds come from the result's milli-GPUs. */
static int itp_view(const struct fw_trace *tr, struct fw_itp_trace *t)
{
	memset(t, 0, sizeof *t);
	snprintf(t->file, sizeof t->file, "%s", tr->file);
	if (!(t->v = calloc(tr->n ? tr->n : 1, sizeof *t->v)))
		return FW_ENOMEM;
	t->n = tr->n;
	t->skipped = tr->skipped;
	for (size_t i = 0; i < tr->n; i++) {
		snprintf(t->v[i].id, sizeof t->v[i].id, "%s", tr->v[i].id);
		t->v[i].submit = tr->v[i].submit;
		t->v[i].duration = tr->v[i].duration;
		t->v[i].gpus = (int32_t)fw_trace_job_gpus(&tr->v[i]);
		t->v[i].line = tr->v[i].line;
	}
	return FW_OK;
}

/* `--trace synthetic[:SEED]`: the generated ITP-like trace (synth.h). */
static int read_synthetic(struct cli *c, int32_t G, struct fw_diag *d)
{
	struct fw_itp_trace it;
	const char *colon = strchr(c->trace, ':');
	char *end = NULL;
	unsigned long long seed = colon ? strtoull(colon + 1, &end, 10) : 1;
	int rc;

	if (colon && (end == colon + 1 || *end))
		return fw_diag_set(d, FW_EINVAL, c->trace, 0, 0, "--trace",
				   "write synthetic or synthetic:SEED with a whole-number seed");
	if ((rc = fw_synth_itp(seed, FW_SYNTH_JOBS, &it)) != FW_OK)
		return fw_diag_set(d, rc, c->trace, 0, 0, NULL, "out of memory");
	rc = fw_trace_from_itp(&it, G, &c->tr, d);
	fw_itp_free(&it);
	return rc;
}

/* --name-models: each job with GPUs that names no model draws a number
 * in [0, 100) from a hash of its id (FNV-1a), the same in every replay
 * and run, and names the first model whose running share covers it,
 * unless the fleet's GPUs of that model could never hold it (a user
 * would not ask for it): then it still names none. */
static void name_models(struct cli *c)
{
	int64_t cap[FW_SIM_MODEL_LIMITS] = { 0 };

	for (int k = 0; k < c->nname_models; k++)
		for (int32_t n = 0; n < c->fleetsnap->nnodes; n++)
			if (!strcmp(c->fleetsnap->nodes[n].gpu_model, c->name_models[k].model))
				cap[k] += c->fleetsnap->nodes[n].gpu_count;
	for (size_t i = 0; c->nname_models > 0 && i < c->tr.n; i++) {
		struct fw_trace_job *j = &c->tr.v[i];
		uint64_t h = 1469598103934665603ull;
		double upto = 0;
		int64_t gpus = fw_trace_job_gpus(j);
		if (j->gpu_model[0] || gpus == 0)
			continue;
		for (const char *p = j->id; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		double u = (double)(h % 10000) / 100;
		for (int k = 0; k < c->nname_models; k++) {
			upto += c->name_models[k].pct;
			if (u < upto) {
				if (gpus <= cap[k])
					snprintf(j->gpu_model, sizeof j->gpu_model, "%s", c->name_models[k].model);
				break;
			}
		}
	}
}

/* The extensions of the trace files the sim reads (CSV: ITP, openb,
 * fairway's own; JSONL: fairway's own, docs/trace-format.md): a bare
 * --trace name without one is looked for with each ("cluster06" finds
 * microsoft-itp/cluster06.csv). */
static const char *const trace_ext[] = { "", ".csv", ".jsonl" };

/* dir/name, or dir/name.EXT when name has no extension, into best (n
 * bytes, "" = none yet) when it is a readable file named before best. */
static void trace_file_in(const char *dir, const char *name, char *best, size_t n)
{
	size_t exts = strchr(name, '.') ? 1 : sizeof trace_ext / sizeof *trace_ext;
	struct stat st;
	char p[1024];

	for (size_t i = 0; i < exts; i++) {
		snprintf(p, sizeof p, "%s/%s%s", dir, name, trace_ext[i]);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0 &&
		    (!best[0] || strcmp(p, best) < 0))
			snprintf(best, n, "%s", p);
	}
}

/* A bare --trace NAME that is not here but is in the traces folder
 * ($FAIRWAY_TRACES, else ../shared/traces), in it or in one of its
 * folders (the first by name), as given or, without an extension, with
 * one a trace has (trace_ext): "; did you mean PATH?" into out, never
 * loaded in its place.  out stays "" when there is none. */
static void trace_hint(const char *name, char *out, size_t n)
{
	const char *env = getenv("FAIRWAY_TRACES"), *root = env && env[0] ? env : "../shared/traces";
	char best[1024] = "", p[1024];
	struct dirent *e;
	DIR *dir;

	out[0] = 0;
	if (!name[0] || strchr(name, '/') || access(name, F_OK) == 0)
		return;
	trace_file_in(root, name, best, sizeof best);
	for (dir = best[0] ? NULL : opendir(root); dir && (e = readdir(dir));) {
		snprintf(p, sizeof p, "%s/%s", root, e->d_name);
		if (e->d_name[0] != '.')
			trace_file_in(p, name, best, sizeof best);
	}
	if (dir)
		closedir(dir);
	if (best[0])
		snprintf(out, n, "; did you mean --trace %s%s?", best,
			 env && env[0] ? " (in $FAIRWAY_TRACES)" : "");
}

/* --config: the flag --budget-safe or a variant's budget-safe=on, where
 * no queue of the config has a gpuHourBudget, would change nothing
 * silently (a config's own scheduler.budgetSafe is the site's, and
 * stays): refused, naming the config and the key. */
static int config_budget_safe(const struct cli *c, struct fw_diag *d)
{
	const char *key = flag_given(c, "--budget-safe") ? "--budget-safe" : NULL;

	for (int32_t q = 0; q < c->fleetsnap->nqueues; q++)
		if (c->fleetsnap->queues[q].gpu_hour_budget > 0)
			return FW_OK;
	for (int i = 0; !key && i < c->npolicies; i++)
		if (c->policy[i].budget_safe == 1)
			key = c->policy[i].label;
	if (!key)
		return FW_OK;
	return fw_diag_set(d, FW_EINVAL, c->config, 0, 0, "queues.gpuHourBudget",
			   "%s%s%s: no queue of the config has a gpuHourBudget, so budget-safe changes nothing; "
			   "give a leaf queue a gpuHourBudget, or drop it", key[0] == '-' ? "" : "--policies '",
			   key, key[0] == '-' ? "" : "'");
}

/* The trace in its format, ITP rows shaped for the fleet (load_inputs
 * built it). */
static int load_trace(struct cli *c, struct fw_itp_trace *t, struct fw_diag *d)
{
	int fmt = c->format ? fw_trace_format_of(c->format) : FW_TRACE_ITP, rc;
	int32_t G = 0;

	if (c->config) /* the fleet is built (load_inputs) */
		config_settings(c);
	if (c->config && (rc = config_budget_safe(c, d)) != FW_OK)
		return rc;
	for (int32_t i = 0; i < c->fleetsnap->nnodes; i++)
		G = c->fleetsnap->nodes[i].gpu_count > G ? c->fleetsnap->nodes[i].gpu_count : G;
	if (is_synthetic(c->trace))
		rc = read_synthetic(c, G ? G : 1, d);
	else
		rc = fw_trace_read(c->trace, (enum fw_trace_format)fmt, G ? G : 1,
				   c->skip_bad ? FW_TRACE_SKIP_BAD : 0, &c->tr, d);
	if (rc == FW_EIO && d) { /* the file itself: say where the fix is */
		char hint[1100];
		trace_hint(c->trace, hint, sizeof hint);
		snprintf(d->msg + strlen(d->msg), sizeof d->msg - strlen(d->msg),
			 "; check the path given to --trace%s", hint);
	}
	if (rc == FW_OK && c->config) /* every job to a leaf queue of the config */
		rc = fw_trace_bind_config(&c->tr, c->fleetsnap, c->skip_bad ? FW_TRACE_SKIP_BAD : 0, d);
	if (rc != FW_OK)
		return rc;
	if (c->tr.skipped) {
		char why[800];
		fw_itp_diag_str(&c->tr.first_bad, why, sizeof why);
		printf(c->tr.skipped == 1 ? "skipped %zu bad row: %s\n" : "skipped %zu bad rows; the first: %s\n",
		       c->tr.skipped, why);
	}
	if (c->tr.n == 0) /* nothing to replay, and no metric is defined */
		return fw_diag_set(d, FW_EINVAL, c->trace, 0, 0, NULL, c->tr.skipped ?
				   "the trace has no jobs: all %zu of its rows were skipped as bad; "
				   "fix them (the first one's reason is above)" :
				   "the trace has no jobs (a header only?); give it at least one row",
				   c->tr.skipped);
	name_models(c);
	size_t respelled;
	if ((rc = fw_trace_model_case(&c->tr, c->fleetsnap, &respelled, d)) != FW_OK)
		return rc; /* two fleet models alike a job's but for case: no guess */
	fw_trace_warn_unfit(&c->tr, c->fleetsnap, c->config != NULL, err_out());
	if (c->config)
		fw_trace_warn_over_limit(&c->tr, c->fleetsnap, err_out());
	fw_trace_warn_models(&c->tr, c->fleetsnap, c->config != NULL, err_out());
	if ((rc = itp_view(&c->tr, t)) != FW_OK)
		return fw_diag_set(d, rc, c->trace, 0, 0, NULL, "out of memory");
	return FW_OK;
}

/* A trace of one VC, without --teams: that VC is its one team, its
 * weight the table's (any weight does: one team takes every GPU). */
static void one_team(struct cli *c, struct fw_teams *teams)
{
	const char *vc = one_vc_of(c);
	struct fw_team t = { .weight = 1 };

	if (!vc)
		return;
	snprintf(c->vc, sizeof c->vc, "%s", vc);
	if (c->teams)
		return; /* the user asked for a mapping: a hash split of the VC */
	snprintf(t.name, sizeof t.name, "%s", vc);
	for (int i = 0; i < teams->n; i++)
		if (!strcmp(teams->v[i].name, vc))
			t = teams->v[i];
	teams->v[0] = t;
	teams->n = 1;
	teams->total = t.weight;
	c->one_team = true;
	int k = one_vc_index(c); /* where the one team comes from: the trace, not the teams file */
	snprintf(teams->source, sizeof teams->source, "of the trace (one virtual cluster, %s/%s)",
		 one_vc_traces[k].dir, one_vc_traces[k].file);
}

/* The teams (none with --config: its queues take the jobs). */
static int load_teams(struct cli *c, struct fw_teams *teams)
{
	struct fw_diag d;
	char note[700];
	bool philly = c->teams && !strcmp(c->teams, "philly");
	int rc;

	memset(&d, 0, sizeof d);
	memset(teams, 0, sizeof *teams);
	if (c->config)
		return 0;
	if ((rc = fw_teams_load(philly ? NULL : c->teams, teams, note, sizeof note, &d)) != FW_OK && (philly || !c->teams))
		return report_diag(&d);
	if (rc != FW_OK) { /* the user's file: name the flag, and what else to give */
		fw_itp_diag_str(&d, note, sizeof note);
		run_error("--teams %s%s", note, rc == FW_EIO ? "; check the path, or give --teams philly for the "
							       "Philly VC mapping" : "");
		return 1;
	}
	one_team(c, teams);
	if (note[0] && !c->one_team) /* a trace of one VC reads no teams file */
		fprintf(err_out(), "fairway: %s\n", note);
	return 0;
}

/* Leaf queues of the config (a queue no other names as its parent). */
static int config_leaves(const struct fw_snapshot *s)
{
	int n = 0;

	for (int32_t q = 0; q < s->nqueues; q++) {
		bool leaf = true;
		for (int32_t k = 0; k < s->nqueues && leaf; k++)
			leaf = s->queues[k].parent != q;
		n += leaf;
	}
	return n;
}

/* --slices K:LEVEL against the fleet: a level it lacks is a flag error
 * (exit 2) that lists the levels to give. */
static int check_slices(const struct cli *c)
{
	const struct fw_topology *t = &c->fleetsnap->topology;
	char list[300] = "", hint[96];

	if (c->o.slice_tasks <= 0 || !strcmp(c->o.slice_level, "node") ||
	    fw_snapshot_find_level(c->fleetsnap, c->o.slice_level) >= 0)
		return 0;
	for (int l = 0; l < t->nlevels; l++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s, ", t->level[l]);
	return usage_error("--slices '%d:%s': the fleet has no topology level \"%s\"%s; the valid levels: %snode%s",
			   (int)c->o.slice_tasks, c->o.slice_level, c->o.slice_level,
			   level_hint(t, c->o.slice_level, hint, sizeof hint), list,
			   t->nlevels ? "" : " (this fleet has none of its own: --racks K makes racks, a --fleet "
			   "file or --topo FILE brings its levels)");
}

/* The header's word on the teams, when they are not the trace's or the
 * config's own queues: a hash split invents them, so fairness measures
 * the split. */
static void print_teams_note(const struct cli *c, const struct fw_teams *teams)
{
	const char *src = teams_source(c, teams);

	if (!strcmp(src, "one team") || !strcmp(src, "trace queues and one team"))
		printf("teams: one team, vc-%s (--teams %s): %s share one queue\n", teams->v[0].name, c->teams,
		       strcmp(src, "one team") ? "the jobs that name no queue" : "the jobs");
	else if (!strcmp(src, "one VC") && !c->one_team)
		printf("teams: one team, vc-%s (--teams %s), for one virtual cluster's jobs (VC %s)\n",
		       teams->v[0].name, c->teams, c->vc);
	else if (!strcmp(src, "one VC"))
		printf("teams: one team, vc-%s: %s is one virtual cluster (traces README), so its jobs share one "
		       "queue and fairness over one queue is 1; give --teams philly to split it by hash into the "
		       "Philly VCs' sizes\n", c->vc, c->trace);
	else if (!strcmp(src, "hash split of one VC"))
		printf("teams: a hash split of one virtual cluster's jobs (VC %s) into %d invented teams by job_id "
		       "(--teams %s), so the fairness rows measure that split; leave out --teams to replay it as its "
		       "one team\n", c->vc, teams->n, c->teams);
	else if (!strcmp(src, "hash split") || !strcmp(src, "trace queues and hash split"))
		printf("teams: %s split by a hash of job_id over %d teams weighted by size (the trace names no "
		       "team), so the fairness rows compare these invented teams (docs/sim.md, \"Teams\")\n",
		       strcmp(src, "hash split") ? "the jobs that name no queue are" : "the jobs are", teams->n);
}

static int load_inputs(struct cli *c, struct fw_itp_trace *t, struct fw_teams *teams)
{
	struct fw_diag d;
	char shape[FW_FLEET_SHAPE_MAX], tick[FW_SPAN_MAX];

	memset(&d, 0, sizeof d);
	memset(t, 0, sizeof *t);
	c->o.force_teams = c->teams != NULL;
	c->nodes_given |= c->fleet || c->fleet_openb || c->nodes_from_topo || c->config;
	if (load_teams(c, teams))
		return 1;
	default_nodes(c);
	if (build_fleet(c, &d) != FW_OK)
		return report_diag(&d);
	if (check_slices(c))
		return 2;
	if (load_trace(c, t, &d) != FW_OK)
		return report_diag(&d);
	fw_fleet_shape(c->fleetsnap, shape, sizeof shape);
	printf("trace %s: %zu job%s; cluster ", c->trace, t->n, t->n == 1 ? "" : "s");
	if (strchr(shape, '+')) /* mixed node sizes */
		printf("%d nodes (%s)", (int)c->fleetsnap->nnodes, shape);
	else
		printf("%s", shape);
	printf(" = %lld GPUs", (long long)fw_fleet_gpus(c->fleetsnap));
	if (fw_fleet_usable_gpus(c->fleetsnap) != fw_fleet_gpus(c->fleetsnap))
		printf(" (%lld usable)", (long long)fw_fleet_usable_gpus(c->fleetsnap));
	printf("; tick %s; ", fw_span_format(c->o.tick_s, tick, sizeof tick));
	if (c->config)
		printf("queues of %s (%d, %d leaves)\n", c->config, (int)c->fleetsnap->nqueues,
		       config_leaves(c->fleetsnap));
	else
		printf("teams %s (%d)\n", teams->source, teams->n);
	print_teams_note(c, teams);
	return 0;
}

/* --failures: draw the fleet's node failures once, from the first arrival
 * to twice the trace's span plus its longest job and 30 days (a replay
 * that runs past that sees no more), and feed the same list to every
 * policy's replay. */
static int draw_failures(struct cli *c, const struct fw_itp_trace *t)
{
	int64_t first = INT64_MAX, last = 0, longest = 0;
	char repair[FW_SPAN_MAX];
	int rc;

	if (c->fail.rate_per_1000 <= 0)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		first = t->v[i].submit < first ? t->v[i].submit : first;
		last = t->v[i].submit > last ? t->v[i].submit : last;
		longest = t->v[i].duration > longest ? t->v[i].duration : longest;
	}
	c->fail.horizon_s = (t->n ? 2 * (last - first) + longest : 0) + 30 * 86400;
	c->fail.history_s = 0;
	if ((rc = fw_failure_generate(&c->fail, c->fleetsnap->nnodes, &c->fails, &c->nfails, NULL)) != FW_OK)
		return run_error("cannot draw the failures (%s)",
				 rc == FW_ENOMEM ? "out of memory" : "bad failure model"), 1;
	for (size_t i = 0; i < c->nfails; i++) /* times from the first arrival */
		c->fails[i].at += first == INT64_MAX ? 0 : first;
	c->fail_src = (struct fw_sim_scripted){ c->fails, c->nfails, 0 };
	c->fail_feed = (struct fw_sim_failures){ fw_sim_scripted_next, &c->fail_src };
	c->o.failures = &c->fail_feed;
	printf("failures: %zu drawn (%.2f per 1,000 node-days, %.0f%% of nodes flaky at %.0fx, repair %s, seed %llu)\n",
	       c->nfails, c->fail.rate_per_1000, 100.0 * c->fail.flaky_fraction, c->fail.flaky_factor,
	       fw_span_format(c->fail.repair_s, repair, sizeof repair), (unsigned long long)c->fail.seed);
	return 0;
}

/* Every output asked for, before any replay: a path that cannot be
 * written fails now, naming its flag, and nothing is created. */
static int open_outs(const struct cli *c, struct outs *o)
{
	const char *flag[O_N] = { "--log", "--jobs", "--shares", "--json", "--csv", "--report" };
	const char *path[O_N] = { c->log, c->jobs, c->shares, c->json, c->csv, c->report };
	int rc = 0;

	memset(o, 0, sizeof *o);
	for (int i = 0; i < O_N && rc == 0; i++)
		if (path[i] && fw_outfile_open(&o->v[i], flag[i], path[i]) != 0)
			rc = out_error(&o->v[i]);
	if (rc == 0 && o->v[O_JOBS].f && fputs(jobs_header, o->v[O_JOBS].f) < 0)
		rc = out_error(&o->v[O_JOBS]);
	if (rc == 0 && o->v[O_SHARES].f && fputs(fw_met_shares_header, o->v[O_SHARES].f) < 0)
		rc = out_error(&o->v[O_SHARES]);
	return rc;
}

/* The metrics files, once every replay is done. */
static int write_results(struct outs *o, json_t *root, const struct fw_met_run *mr)
{
	if (o->v[O_JSON].f &&
	    json_dumpf(root, o->v[O_JSON].f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0)
		return out_error(&o->v[O_JSON]);
	if (o->v[O_CSV].f && fw_met_write_csv(mr, o->v[O_CSV].f) != 0)
		return out_error(&o->v[O_CSV]);
	if (o->v[O_REPORT].f && fw_report_emit(mr, o->v[O_REPORT].f) != 0)
		return out_error(&o->v[O_REPORT]);
	return 0;
}

/* Publish every output (flush all first, so a full disk publishes none),
 * or, after a failure, drop them all: the paths stay as they were. */
static int finish_outs(struct outs *o, int rc)
{
	for (int i = 0; i < O_N && rc == 0; i++)
		if (fw_outfile_close(&o->v[i]) != 0)
			rc = out_error(&o->v[i]);
	for (int i = 0; i < O_N && rc == 0; i++)
		if (o->v[i].path && fw_outfile_commit(&o->v[i]) != 0)
			rc = out_error(&o->v[i]);
	for (int i = 0; i < O_N; i++)
		fw_outfile_abort(&o->v[i]);
	return rc;
}

static int run_all(struct cli *c, const struct fw_itp_trace *t, const struct fw_teams *teams)
{
	struct outs o;
	json_t *root = run_json(c, t, teams);
	int rc = open_outs(c, &o);
	struct fw_met_run *mr = fw_met_run_new(c->trace, &c->o, t->n);
	bool *unfit = calloc(t->n ? t->n : 1, sizeof *unfit);
	if ((!mr || !unfit) && rc == 0)
		rc = io_error("allocate metrics for", c->trace, 1);
	if (mr && unfit) { /* the never-start warning's jobs wait for nothing */
		fw_trace_unfit_mark(&c->tr, c->fleetsnap, unfit);
		if (c->config) /* and those over their queue's limit */
			fw_trace_over_limit_mark(&c->tr, c->fleetsnap, unfit);
		mr->unfit = unfit;
	}
	if (mr)
		mr->checkpoint_s = c->checkpoint_s;
	c->o.checkpoint_s = c->checkpoint_s; /* the engine reads it per job */
	for (int i = 0; rc == 0 && i < c->npolicies; i++)
		rc = run_policy(c, &c->policy[i], t, teams, &o, root, mr);
	if (rc == 0)
		fw_met_print_compare(mr, stdout);
	if (rc == 0)
		rc = write_results(&o, root, mr);
	rc = finish_outs(&o, rc);
	fw_met_run_free(mr);
	free(unfit);
	json_decref(root);
	return rc;
}

int fw_sim_cli(int argc, char **argv)
{
	struct fw_itp_trace t;
	struct fw_teams *teams;
	struct cli c;
	int rc;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return print_usage(argc < 2 ? stderr : stdout), argc < 2 ? 2 : 0;
	if (strcmp(argv[1], "run") != 0)
		return usage_error("unknown command '%s' (the command is 'run')", argv[1]);
	memset(&c, 0, sizeof c);
	fw_sim_opts_default(&c.o);
	c.checkpoint_s = FW_SIM_CHECKPOINT_S;
	fw_failure_model_default(&c.fail);
	c.fail.rate_per_1000 = 0; /* off unless --failures */
	if (parse_policies(&c, "fifo,fairway") != 0 || (rc = parse_args(&c, argc, argv)) > 0)
		return 2;
	if (rc < 0)
		return 0;
	if (c.fail_flags && c.fail.rate_per_1000 <= 0)
		return usage_error("--flaky, --repair and --failure-seed shape failures: give --failures R too");
	if (!(teams = malloc(sizeof *teams)))
		return 1;
	if ((rc = load_inputs(&c, &t, teams)) == 0 && (rc = draw_failures(&c, &t)) == 0)
		rc = run_all(&c, &t, teams);
	fw_itp_free(&t);
	fw_trace_free(&c.tr);
	fw_snapshot_free(c.fleetsnap);
	free(c.fails);
	free(teams);
	return rc;
}
