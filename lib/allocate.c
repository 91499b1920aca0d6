/*
 * allocate.c — the allocate phase: who goes next, and does it fit.
 *
 * Queue selection (FW_QORDER_FAIRSHARE).  Every inner queue, and a virtual
 * root above the top-level queues, keeps a binary min-heap of its children
 * that still have untried jobs below them.  The key is how far a queue is
 * below its fair share, as a ratio of dominant shares:
 *     key(q) = dom(allocated_q) / dom(fair_q)
 * where dom() is the dominant share against cluster capacity (res.h).  A
 * queue with no fair share at all gets key +inf (served only after every
 * queue with a share), ordered among such queues by allocation.  Ties go
 * to the higher priority, then the lower queue index.  Selecting walks
 * from the root to a leaf through heap tops: O(depth).  A start changes
 * the allocation of the leaf and its ancestors, so their keys are updated
 * and sifted: O(depth * log children).
 *
 * A job is tried once per cycle.  Before placement: the limit check on its
 * queue and every ancestor.  A job whose shape already failed this cycle is
 * answered from the memo (capacity only shrinks during allocate).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cycle_int.h"

struct heap {
	int32_t *v;
	int32_t n;
};

struct sel {
	struct cyc *y;
	struct heap *h;      /* per queue + virtual root at index nq */
	int32_t *pos;        /* position of queue q in its parent's heap */
	double *key;
	double *fair_dom;
};

static int32_t parent_of(const struct sel *x, int32_t q)
{
	int32_t p = x->y->s->queues[q].parent;
	return p < 0 ? x->y->s->nqueues : p;
}

static bool qless(const struct sel *x, int32_t a, int32_t b)
{
	const struct fw_queue *qa = &x->y->s->queues[a], *qb = &x->y->s->queues[b];

	if (x->key[a] != x->key[b])
		return x->key[a] < x->key[b];
	if (qa->priority != qb->priority)
		return qa->priority > qb->priority;
	return a < b;
}

static void hswap(struct sel *x, struct heap *h, int32_t i, int32_t k)
{
	int32_t t = h->v[i];

	h->v[i] = h->v[k];
	h->v[k] = t;
	x->pos[h->v[i]] = i;
	x->pos[h->v[k]] = k;
}

static void sift(struct sel *x, struct heap *h, int32_t i)
{
	while (i > 0 && qless(x, h->v[i], h->v[(i - 1) / 2])) {
		hswap(x, h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		int32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && qless(x, h->v[l], h->v[m]))
			m = l;
		if (r < h->n && qless(x, h->v[r], h->v[m]))
			m = r;
		if (m == i)
			return;
		hswap(x, h, i, m);
		i = m;
	}
}

static void heap_push(struct sel *x, int32_t q)
{
	struct heap *h = &x->h[parent_of(x, q)];

	h->v[h->n] = q;
	x->pos[q] = h->n++;
	sift(x, h, h->n - 1);
}

/* Remove q from its parent's heap; if that empties the parent, remove the
 * parent too, up to the root. */
static void heap_remove(struct sel *x, int32_t q)
{
	int32_t nq = x->y->s->nqueues;

	while (q < nq) {
		struct heap *h = &x->h[parent_of(x, q)];
		int32_t i = x->pos[q];
		hswap(x, h, i, --h->n);
		if (i < h->n)
			sift(x, h, i);
		if (h->n > 0)
			return;
		q = parent_of(x, q);
	}
}

static double queue_key(const struct sel *x, int32_t q)
{
	double a = fw_res_dominant_share(x->y->alloc[q], x->y->c.capacity);

	if (x->fair_dom[q] <= 0)
		return 1e18 + a;
	return a / x->fair_dom[q];
}

static int sel_init(struct sel *x, struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t nq = s->nqueues, *nchild;

	x->y = y;
	x->h = FW_ARENA_NEW(y->a, struct heap, nq + 1);
	x->pos = FW_ARENA_NEW(y->a, int32_t, nq + 1);
	x->key = FW_ARENA_NEW(y->a, double, nq + 1);
	x->fair_dom = FW_ARENA_NEW(y->a, double, nq + 1);
	nchild = FW_ARENA_NEW(y->a, int32_t, nq + 1);
	if (!x->h || !x->pos || !x->key || !x->fair_dom || !nchild)
		return FW_ENOMEM;
	for (int32_t q = 0; q < nq; q++) {
		nchild[parent_of(x, q)]++;
		struct fw_res f;
		for (int r = 0; r < FW_RES_COUNT; r++)
			f.v[r] = (int64_t)llround(y->share[q].fair[r]);
		x->fair_dom[q] = fw_res_dominant_share(f, y->c.capacity);
		x->key[q] = queue_key(x, q);
	}
	for (int32_t q = 0; q <= nq; q++)
		if (!(x->h[q].v = FW_ARENA_NEW(y->a, int32_t, nchild[q] + 1)))
			return FW_ENOMEM;
	return FW_OK;
}

/* Leaves with pending jobs enter their parent's heap; a parent enters its
 * own parent's heap when its first child arrives. */
static void sel_fill(struct sel *x)
{
	const struct fw_snapshot *s = x->y->s;

	for (int32_t q = 0; q < s->nqueues; q++) {
		if (x->y->qfirst[q + 1] == x->y->qfirst[q])
			continue;
		for (int32_t p = q; p < s->nqueues; p = parent_of(x, p)) {
			bool parent_was_empty = x->h[parent_of(x, p)].n == 0;
			heap_push(x, p);
			if (!parent_was_empty)
				break;
		}
	}
}

static int32_t sel_pick(const struct sel *x)
{
	int32_t nq = x->y->s->nqueues, q = nq;

	if (x->h[nq].n == 0)
		return -1;
	while (q == nq || x->h[q].n > 0)
		q = x->h[q].v[0];
	return q;
}

static void sel_started(struct sel *x, int32_t leaf)
{
	for (int32_t q = leaf; q < x->y->s->nqueues; q = parent_of(x, q)) {
		x->key[q] = queue_key(x, q);
		sift(x, &x->h[parent_of(x, q)], x->pos[q]);
	}
}

/* ---- memo of failed shapes ------------------------------------------- */

#define MEMO_MAX_SLOTS 4096

/* Per-job facts the allocate loop needs, gathered in one sequential sweep
 * over the job records and laid out in try order, so that the loop reads
 * them in sequence instead of missing the cache on a 576-byte record for
 * every job it looks at. */
struct jinfo {
	struct fw_res req;      /* fw_job_request */
	fw_time end;            /* fw__job_end(job, now) */
	int32_t queue;
	int32_t shape;          /* interned shape, -1 when the table is full */
};

/* The memo: shapes interned once per cycle; per shape, the first failure
 * and the earliest end time it is known for.  A failure is monotone in
 * the end time (reservations only forbid nodes to jobs that end after
 * them) and in time (capacity only shrinks during allocate), so a job of
 * a failed shape that ends no earlier fails too. */
struct memo {
	struct jinfo *byjob;    /* per job index (pending jobs only) */
	struct jinfo *info;     /* per position in y->jobs */
	struct fw__shape *shp;
	int32_t nshp, cap;
	int32_t *tab;           /* 2 * cap hash slots: shape id or -1 */
	uint32_t mask;
	bool *failed;
	bool *resv_failed;      /* a reservation for this shape found no time */
	fw_time *fail_end;
	struct fw_pending *r;
};

/* The id of shape k, of which only the header and the used groups are
 * set (fw__shape_used); a new one is kept whole, its unused groups
 * zeroed (the estimates compare kept shapes over their full size). */
static int32_t intern(struct memo *m, const struct fw__shape *k)
{
	uint32_t i = fw__shape_hash(k) & m->mask;
	/* shapes with the same header have the same used length */
	size_t used = offsetof(struct fw__shape, g) + (size_t)k->ngroups * sizeof k->g[0];

	for (;; i = (i + 1) & m->mask) {
		int32_t id = m->tab[i];
		if (id < 0) {
			if (m->nshp == m->cap)
				return -1;
			memcpy(&m->shp[m->nshp], k, used);
			memset((char *)&m->shp[m->nshp] + used, 0, sizeof *k - used);
			m->tab[i] = m->nshp;
			return m->nshp++;
		}
		if (memcmp(&m->shp[id], k, used) == 0)
			return id;
	}
}

/* The memo's tables, sized before the job sweep (cycle.c gather) so that
 * the sweep can intern each pending job's shape as it passes: the job
 * records are then read once per cycle, in order. */
int fw__memo_create(struct cyc *y, int32_t max_pending)
{
	struct memo *m = FW_ARENA_NEW(y->a, struct memo, 1);

	if (!m)
		return FW_ENOMEM;
	/* sized to the work: a small cycle must not zero a big table */
	for (m->cap = 16; m->cap < MEMO_MAX_SLOTS && m->cap < max_pending; m->cap *= 2)
		;
	m->mask = 2 * (uint32_t)m->cap - 1;
	m->byjob = FW_ARENA_RAW(y->a, struct jinfo, y->s->njobs + 1); /* pending rows written */
	/* shp, fail_end and r are written before they are read (a shape when
	 * interned, the others when failed[] is set): no need to zero them */
	m->shp = FW_ARENA_RAW(y->a, struct fw__shape, m->cap);
	m->tab = FW_ARENA_RAW(y->a, int32_t, 2 * m->cap); /* all -1 below */
	m->failed = FW_ARENA_NEW(y->a, bool, m->cap);
	m->resv_failed = FW_ARENA_NEW(y->a, bool, m->cap);
	m->fail_end = FW_ARENA_RAW(y->a, fw_time, m->cap);
	m->r = FW_ARENA_RAW(y->a, struct fw_pending, m->cap);
	if (!m->byjob || !m->shp || !m->tab || !m->failed || !m->resv_failed || !m->fail_end || !m->r)
		return FW_ENOMEM;
	memset(m->tab, 0xff, 2 * (size_t)m->cap * sizeof *m->tab);
	y->memo = m;
	return FW_OK;
}

void fw__memo_add_job(struct cyc *y, int32_t j, const struct fw_job *job, struct fw_res req, int32_t tasks)
{
	struct memo *m = y->memo;
	struct fw__shape k; /* its unused groups are never read (intern) */

	m->byjob[j].req = req;
	m->byjob[j].end = fw__job_end(y, job, y->s->now);
	m->byjob[j].queue = job->queue;
	fw__shape_used(&y->c, j, job, fw__min_tasks(job, tasks), &k);
	m->byjob[j].shape = intern(m, &k);
}

/* Lay the per-job facts out in try order (after the order phase). */
static int memo_init(struct cyc *y, struct memo *m)
{
	int32_t n = y->pol->queue_order == FW_QORDER_GLOBAL ? y->qfirst[1] : y->qfirst[y->s->nqueues];

	m->info = FW_ARENA_RAW(y->a, struct jinfo, n + 1);
	y->pos_shape = FW_ARENA_RAW(y->a, int32_t, n + 1);
	if (!m->info || !y->pos_shape)
		return FW_ENOMEM;
	for (int32_t i = 0; i < n; i++) {
		m->info[i] = m->byjob[y->jobs[i]];
		y->pos_shape[i] = m->info[i].shape;
	}
	y->shapes = m->shp;
	y->nshapes = m->nshp;
	return FW_OK;
}

/* ---- one job --------------------------------------------------------- */

/* y->qlimited, once per cycle: every job tried asks each queue on its way
 * up for its limits, and most queues have none (reading each queue's
 * record for every job tried was 4 M instructions of the bench's cycle). */
static int limited_queues(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;

	if (!(y->qlimited = FW_ARENA_RAW(y->a, int32_t, (size_t)s->nqueues + 1)))
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++) {
		int32_t u = q;
		while (u >= 0 && !fw_queue_has_limit(&s->queues[u]))
			u = s->queues[u].parent;
		y->qlimited[q] = u;
	}
	return FW_OK;
}

/* The next limited queue above limited queue q, -1 = none. */
static int32_t next_limited(const struct cyc *y, int32_t q)
{
	int32_t p = y->s->queues[q].parent;

	return p >= 0 ? y->qlimited[p] : -1;
}

/* The first queue on q's way up (leaf first) whose limit on some
 * resource req passes with what the queue holds (alone: only one that
 * req itself is more than; the job never starts while it holds).  r gets
 * OVER_QUOTA, a = the excess, b = the queue and the resource
 * (FW_LIMIT_ARG, plan.h). */
static bool limit_hit(struct cyc *y, int32_t q, struct fw_res req, bool alone, struct fw_pending *r)
{
	for (q = y->qlimited[q]; q >= 0; q = next_limited(y, q)) {
		const struct fw_queue *qq = &y->s->queues[q];
		for (int k = 0; k < FW_RES_COUNT; k++) {
			if (qq->limit.v[k] == FW_UNLIMITED)
				continue;
			int64_t over = y->alloc[q].v[k] + req.v[k] - qq->limit.v[k];
			if (over > 0 && (!alone || req.v[k] > qq->limit.v[k])) {
				r->reason = FW_REASON_OVER_QUOTA;
				r->a = over;
				r->b = FW_LIMIT_ARG(q, k);
				return true;
			}
		}
	}
	return false;
}

/* Over a limit on q's way up?  r names the first that req passes alone,
 * else the first it passes with what the queue holds. */
static bool over_limit(struct cyc *y, int32_t q, struct fw_res req, struct fw_pending *r)
{
	if (!limit_hit(y, q, req, false, r))
		return false;
	limit_hit(y, q, req, true, r); /* a limit it passes alone names itself */
	return true;
}

/* fw__limit_held (cycle_int.h): with what the starving gangs that hold
 * a limit ask (hold_limits) laid in beside what the queue holds; not
 * where the job ends before any of them may start (a reserved gang's
 * start). */
bool fw__limit_held(const struct cyc *y, int32_t q, struct fw_res req, fw_time end, struct fw_pending *r)
{
	if (!y->held)
		return false;
	for (q = y->qlimited[q]; q >= 0; q = next_limited(y, q)) {
		const struct fw__hold *h = &y->held[q];
		if (h->job < 0 || end <= h->from)
			continue;
		for (int k = 0; k < FW_RES_COUNT; k++) {
			int64_t lim = y->s->queues[q].limit.v[k];
			if (lim != FW_UNLIMITED && req.v[k] > 0 && h->res.v[k] > 0 &&
			    y->alloc[q].v[k] + h->res.v[k] + req.v[k] > lim) {
				if (r) {
					r->reason = FW_REASON_LIMIT_HELD;
					r->a = h->job;
					r->b = q;
				}
				return true;
			}
		}
	}
	return false;
}

static int32_t largest_model_free(const struct cyc *y, const struct fw_job *j, bool *constrained)
{
	int64_t best = INT64_MAX;

	*constrained = false;
	for (int g = 0; g < j->ngroups; g++) {
		if (!j->groups[g].gpu_model[0] || !j->groups[g].gpus)
			continue;
		int32_t m = fw__model_id(&y->c, j->groups[g].gpu_model);
		int64_t f = m < 0 ? 0 : y->c.model_free_initial[m];
		*constrained = true;
		if (f < best)
			best = f;
	}
	return (int32_t)(best == INT64_MAX ? 0 : best);
}

/* Room on usable node n for the GPUs of one task of group g, as place.c
 * node_fits judges it: its whole GPUs free, or a fraction of one GPU. */
static bool task_gpus_fit(const struct fw__cstate *c, int32_t n, const struct fw_task_group *g)
{
	const struct fw__node *cn = &c->nodes[n];
	const struct fw_node *sn = &c->s->nodes[n];

	if (g->gpus == 0 || g->gpu_milli == 1000 || g->gpus > 1)
		return cn->whole_free >= g->gpus;
	for (int k = 0; k < sn->gpu_count; k++)
		if (!(sn->bad_gpu_mask & (1u << k)) && 1000 - cn->used[k] >= g->gpu_milli)
			return true;
	return false;
}

static void say(struct fw_pending *r, enum fw_reason why, int64_t a, int64_t b)
{
	r->reason = why;
	r->a = a;
	r->b = b;
}

/* The most milli-GPU free on one good GPU of a usable node of the model
 * (-2: any), for GPU_SHARE. */
static int64_t most_share_free(const struct fw__cstate *c, int32_t model)
{
	int64_t best = 0;

	for (int32_t n = 0; n < c->nn; n++) {
		const struct fw_node *sn = &c->s->nodes[n];
		if (!c->nodes[n].usable || (model != -2 && c->nodes[n].model != model))
			continue;
		for (int k = 0; k < sn->gpu_count; k++)
			if (!(sn->bad_gpu_mask & (1u << k)) && 1000 - c->nodes[n].used[k] > best)
				best = 1000 - c->nodes[n].used[k];
	}
	return best;
}

/* Some domain had the GPUs, yet the job did not fit: what does its first
 * task lack on every usable node with room for its GPUs, as the nodes are
 * now (placement judged them so)?  A share of one GPU that no GPU has
 * free (GPU_SHARE: the most one has), else its GPU model (NO_MODEL: the
 * most free on one node of the model), else CPU, else memory (the most
 * such a node has free).  When each need alone is met somewhere, it is
 * the needs together or a later task: NO_RESOURCES, with the nodes that could hold
 * the first task alone.  Reserved and tainted nodes count as usable, so a
 * named shortage holds on every node the job may use. */
static void explain_no_resources(const struct cyc *y, const struct fw_job *j, struct fw_pending *r)
{
	const struct fw_task_group *g = &j->groups[0];
	int32_t model = g->gpus && g->gpu_model[0] ? fw__model_id(&y->c, g->gpu_model) : -2;
	int64_t cpu = -1, mem = -1, gpus = 0, fit = 0;

	if (model >= 0 && (g->gpu_milli == 1000 || g->gpus > 1)) {
		/* whole GPUs of a known model: the model's histogram says
		 * whether any usable node has room for them, without a scan */
		const int32_t *h = &y->c.model_hist[model * FW__HIST];
		int32_t top = FW__HIST - 1;
		while (top > 0 && h[top] == 0)
			top--;
		if (top < g->gpus) {
			say(r, FW_REASON_NO_MODEL, g->gpus, top);
			return;
		}
	}
	for (int32_t n = 0; n < y->s->nnodes; n++) {
		const struct fw__node *cn = &y->c.nodes[n];
		if (!cn->usable || (model != -2 && cn->model != model))
			continue;
		if (!task_gpus_fit(&y->c, n, g)) {
			gpus = cn->whole_free > gpus ? cn->whole_free : gpus;
			continue;
		}
		cpu = cn->cpu_free > cpu ? cn->cpu_free : cpu;
		mem = cn->mem_free > mem ? cn->mem_free : mem;
		fit += cn->cpu_free >= g->cpu_milli && cn->mem_free >= g->mem_mib;
	}
	if (cpu < 0 && g->gpus == 1 && g->gpu_milli < 1000)
		say(r, FW_REASON_GPU_SHARE, g->gpu_milli, most_share_free(&y->c, model));
	else if (cpu < 0 && model != -2)
		say(r, FW_REASON_NO_MODEL, g->gpus, gpus);
	else if (cpu >= 0 && cpu < g->cpu_milli)
		say(r, FW_REASON_NO_CPU, g->cpu_milli, cpu);
	else if (cpu >= 0 && mem < g->mem_mib)
		say(r, FW_REASON_NO_MEM, g->mem_mib, mem);
	else
		say(r, FW_REASON_NO_RESOURCES, fw_job_tasks(j), fit);
}

/* Why did placement fail?  Judged against the capacity at the start of
 * the cycle: if the job could not have fit even then, the cause is the
 * cluster (GPU model, gang size, topology); otherwise it lost its turn. */
/* A filtered job that lost no cluster-wide race: its nodes and their
 * free GPUs now (its filter's one root-level slot, filter.c; an except
 * filter's: the cluster's less its few nodes).  An except filter is the
 * reason only when a node it leaves out has free GPUs now: leaving out a
 * full node changes nothing, and the job waits for what the others do. */
static bool explain_filter(const struct cyc *y, int32_t jx, struct fw_pending *r)
{
	const struct fw__cstate *c = &y->c;
	int32_t e = c->job_entry ? c->job_entry[jx] : -1;
	const struct fw_job_nodes *x = e >= 0 ? &y->s->job_nodes[e] : NULL;
	int64_t left_out = 0;

	if (!x)
		return false;
	if (!x->except) {
		r->reason = FW_REASON_NODE_FILTER;
		r->a = x->count;
		r->b = c->fsum[c->fslot_first[c->filter_id[e] * c->ndl]];
		return true;
	}
	for (int32_t k = 0; k < x->count; k++) {
		const struct fw__node *n = &c->nodes[y->s->node_refs[x->first + k]];
		left_out += n->usable ? n->whole_free : 0;
	}
	if (left_out == 0)
		return false;
	r->reason = FW_REASON_NODE_FILTER;
	r->a = y->s->nnodes - x->count;
	r->b = c->dom[0].free_whole - left_out;
	return true;
}

/* A job with group filters (snapshot.h): the first group with a list of
 * its own whose nodes (those its job's filter and its list allow) lack
 * the whole GPUs of its tasks now, as node_filter with that group's node
 * count and free GPUs.  Asked before the job's own filter: the narrower
 * answer.  An allow list alone reads its root slot (filter.c indexes
 * group lists too): O(1); beside a job filter, or an except list, a scan
 * of the nodes (such jobs are few). */
static bool explain_group_filter(const struct cyc *y, int32_t jx, struct fw_pending *r)
{
	const struct fw_snapshot *s = y->s;
	const struct fw_job *j = &s->jobs[jx];
	bool jobf = y->c.job_entry && y->c.job_entry[jx] >= 0;

	for (int32_t x = s->ngroup_nodes ? fw_snapshot_group_nodes_entry(s, jx) : -1;
	     x >= 0 && x < s->ngroup_nodes && s->group_nodes[x].job == jx; x++) {
		const struct fw_group_nodes *e = &s->group_nodes[x];
		const struct fw_task_group *t = &j->groups[e->group];
		int64_t need = t->gpu_milli == 1000 ? (int64_t)t->count * t->gpus : 0, nodes = 0, free = 0;
		if (!e->except && !jobf) {
			nodes = e->count;
			free = y->c.fsum[y->c.fslot_first[y->c.filter_id[s->njob_nodes + x] * y->c.ndl]];
		}
		for (int32_t n = 0; (e->except || jobf) && n < y->c.nn; n++) {
			if (!fw_snapshot_group_may_use(s, jx, e->group, n))
				continue;
			nodes++;
			free += y->c.nodes[n].usable ? y->c.nodes[n].whole_free : 0;
		}
		if (nodes < y->c.nn && free < need) {
			r->reason = FW_REASON_NODE_FILTER;
			r->a = nodes;
			r->b = free;
			return true;
		}
	}
	return false;
}

/* A sliced whole-GPU group (snapshot.h "Slices") whose slices the
 * domains of its level cannot hold now, by their histograms: SLICES,
 * with the slices it needs and those the domains have room for.  Asked
 * once some domain had the GPUs for the whole gang. */
static bool explain_slices(const struct cyc *y, int32_t jx, struct fw_pending *r)
{
	const struct fw_snapshot *s = y->s;
	int32_t L = s->topology.nlevels;

	for (int32_t x = s->nslices ? fw_snapshot_slices_entry(s, jx) : -1;
	     x >= 0 && x < s->nslices && s->slices[x].job == jx; x++) {
		const struct fw_group_slice *e = &s->slices[x];
		const struct fw_task_group *t = &s->jobs[jx].groups[e->group];
		const struct fw__level_index *l = &y->c.lvl[e->level == FW_LEVEL_NODE ? L + 1 : e->level + 1];
		int64_t want = t->count / e->tasks, room = 0;
		if (t->gpu_milli != 1000 || t->gpus <= 0)
			continue;
		for (int32_t d = l->first_dom; d < l->first_dom + l->ndom && room < want; d++)
			room += fw__domain_capacity(&y->c.dom[d], t->gpus) / e->tasks;
		if (room < want) {
			r->reason = FW_REASON_SLICES;
			r->a = want;
			r->b = room;
			return true;
		}
	}
	return false;
}

/* The whole GPUs job j asks (its fractional tasks' aside: they share a
 * GPU, so the cluster's whole free GPUs do not bound them). */
static int64_t whole_gpus(const struct fw_job *j)
{
	int64_t n = 0;

	for (int g = 0; g < j->ngroups; g++)
		if (j->groups[g].gpu_milli == 1000)
			n += (int64_t)j->groups[g].gpus * j->groups[g].count;
	return n;
}

/* A job of one task, no gang, that finds too few whole GPUs free (or
 * not on one node) but that some usable node could hold once empty:
 * GPUS_BUSY, a = its GPUs, b = the cluster's free whole GPUs (plan.h).
 * A gang, or a task bigger than any node, keeps GANG_NO_FIT. */
static bool explain_busy(const struct cyc *y, const struct fw_job *j, int32_t g0, struct fw_pending *r)
{
	int32_t L = y->s->topology.nlevels;

	if (fw_job_tasks(j) != 1 || g0 <= 0 || g0 > y->c.lvl[L + 1].maxcap)
		return false;
	r->reason = FW_REASON_GPUS_BUSY;
	r->a = g0;
	r->b = y->c.root_free_initial;
	return true;
}

/* The most whole GPUs free now in one domain of level index dl (its
 * highest non-empty bucket). */
static int64_t most_free_now(const struct fw__level_index *x)
{
	for (int32_t w = x->nwords - 1; w >= 0; w--)
		if (x->bits[w])
			return (w << 6) + 63 - __builtin_clzll(x->bits[w]);
	return 0;
}

/* For FAIRSHARE_ORDER: the most whole GPUs free now in one place job j
 * needs them in (one task: a node; a gang: a domain of its required
 * level), when fewer than its need; else 0 (plan.h most_in_one). */
static int64_t most_in_one(const struct cyc *y, const struct fw_job *j, int64_t need)
{
	int32_t L = y->s->topology.nlevels, dl = -1;

	if (fw_job_tasks(j) == 1 && j->groups[0].gpu_milli == 1000)
		dl = L + 1;
	else if (j->required_level != FW_LEVEL_NONE)
		dl = j->required_level == FW_LEVEL_NODE ? L + 1 : j->required_level + 1;
	int64_t m = dl < 0 ? 0 : most_free_now(&y->c.lvl[dl]);
	return m < need ? m : 0;
}

static void explain(const struct cyc *y, int32_t jx, bool shape_fit, struct fw_pending *r)
{
	const struct fw_job *j = &y->s->jobs[jx];
	int64_t need = fw_job_gpus(j), whole = whole_gpus(j);
	bool constrained;
	int32_t model_free = largest_model_free(y, j, &constrained);
	struct fw__domain root0;
	int32_t g0 = j->groups[0].gpu_milli == 1000 ? j->groups[0].gpus : 0;
	int32_t L = y->s->topology.nlevels;

	memset(&root0, 0, sizeof root0);
	memcpy(root0.hist, y->c.root_hist_initial, sizeof root0.hist);
	r->a = need;
	if (constrained && model_free < need) {
		r->reason = FW_REASON_GPU_MODEL;
		r->b = model_free;
	} else if (j->required_level != FW_LEVEL_NONE &&
		   y->c.lvl[j->required_level == FW_LEVEL_NODE ? L + 1 : j->required_level + 1].max_free_initial < need) {
		r->reason = FW_REASON_TOPOLOGY;
		r->b = y->c.lvl[j->required_level == FW_LEVEL_NODE ? L + 1 : j->required_level + 1].max_free_initial;
	} else if ((whole > 0 && y->c.root_free_initial < whole) ||
		   (j->ngroups == 1 && g0 > 0 && !fw__domain_holds(&root0, g0, fw_job_min_tasks(j)))) {
		/* whole GPUs only: a fractional task's share of a GPU may be
		 * free where no whole one is (it reads on below) */
		if (!explain_busy(y, j, g0, r)) {
			r->reason = FW_REASON_GANG_NO_FIT;
			r->a = whole;
			r->b = y->c.root_free_initial;
		}
	} else if (explain_group_filter(y, jx, r) || explain_filter(y, jx, r)) {
		/* said */
	} else if (shape_fit && explain_slices(y, jx, r)) {
		/* said */
	} else if (shape_fit) {
		explain_no_resources(y, j, r);
	} else {
		r->reason = FW_REASON_FAIRSHARE_ORDER;
		r->b = y->c.dom[0].free_whole;
		r->most_in_one = r->b >= need ? most_in_one(y, j, need) : 0;
	}
}

int fw__record_start(struct cyc *y, int32_t jx, const struct fw__placement *p)
{
	const struct fw_job *j = &y->s->jobs[jx];
	struct fw_decision *d = &y->dec[y->ndec];

	memset(d, 0, sizeof *d);
	d->kind = FW_DECIDE_START;
	d->reason = FW_REASON_STARTED;
	d->job = jx;
	d->node = -1;
	d->at = y->s->now;
	d->alloc_count = p->ntasks;
	d->a = fw_job_gpus(j);
	y->dec_tasks[y->ndec] = p->tasks;
	y->started[jx] = ++y->ndec;
	y->nstarts++;
	y->reason[jx].reason = FW_REASON_STARTED;
	fw__mlim_charge(y, jx, p->tasks, p->ntasks, 1);
	fw__budget_charge(y, jx, p->tasks, p->ntasks);
	for (int32_t k = 0; k < p->ntasks; k++) {
		struct fw_res use = fw_res_zero();
		use.v[FW_RES_GPU] = (int64_t)__builtin_popcount(p->tasks[k].gpu_mask) * p->tasks[k].gpu_milli;
		use.v[FW_RES_CPU] = j->groups[p->tasks[k].group].cpu_milli;
		use.v[FW_RES_MEM] = j->groups[p->tasks[k].group].mem_mib;
		for (int32_t q = j->queue; q >= 0; q = y->s->queues[q].parent)
			y->alloc[q] = fw_res_add(y->alloc[q], use);
	}
	return FW_OK;
}

/* Blocked by a reservation?  Only if it would fit with reservations
 * ignored (a dry run that commits nothing). */
static bool blocked_by_reservation(struct cyc *y, int32_t jx, const struct fw__shape *sh, struct fw_pending *r)
{
	struct fw__placement p;
	struct fw__place_opts o = { .end = fw__job_end(y, &y->s->jobs[jx], y->s->now), .ignore_resv = true,
				    .keep_away = true, .start = y->s->now, .dry = true };
	struct fw_pending scratch;
	uint64_t open;

	if (y->nresv == 0 || !fw__mlim_gate_as(y, jx, sh, &open, &scratch) ||
	    fw__place_gated(&y->c, jx, &o, open, &p) != FW_OK)
		return false;
	r->reason = FW_REASON_RESERVED;
	r->a = y->first_resv_job;
	r->b = y->first_resv_at;
	return true;
}

/* Blocked by nodes that leave (away, cstate.h)?  Only if it would fit
 * with them taken as staying (a dry run, reservations ignored too): the
 * earliest of the placement's nodes to leave is the time it names. */
static bool blocked_by_departure(struct cyc *y, int32_t jx, const struct fw__shape *sh, struct fw_pending *r)
{
	struct fw__placement p;
	struct fw__place_opts o = { .end = FW__NEVER, .ignore_resv = true, .dry = true };
	struct fw_pending scratch;
	fw_time at = FW__NEVER;
	uint64_t open;

	if (y->c.naway == 0 || !fw__mlim_gate_as(y, jx, sh, &open, &scratch) ||
	    fw__place_gated(&y->c, jx, &o, open, &p) != FW_OK)
		return false;
	for (int32_t k = 0; k < p.ntasks; k++) {
		int32_t n = p.tasks[k].node;
		if (fw__away(&y->c, n) && y->s->nodes[n].away_at < at)
			at = y->s->nodes[n].away_at;
	}
	if (at == FW__NEVER) /* it fits on staying nodes: not their doing */
		return false;
	r->reason = FW_REASON_LEAVING;
	r->a = at;
	r->b = at - y->s->now;
	return true;
}

int32_t fw__easy_depth(const struct cyc *y)
{
	int32_t p = y->pol->reserve_depth, c = y->s->config.reserve_depth;

	if (p <= 0 || c == 0)
		return p;
	return c < 0 ? 0 : c > FW_RESERVE_DEPTH_MAX ? FW_RESERVE_DEPTH_MAX : c;
}

/* Reservations per cycle, and attempts: the easy depth, or every blocked
 * job in conservative mode (snapshot.h). */
int32_t fw__resv_depth(const struct cyc *y, int32_t *attempts)
{
	int32_t depth = fw__easy_depth(y);

	if (y->s->config.backfill_conservative && depth > 0) {
		*attempts = 2 * y->s->nnodes + 32;
		return INT32_MAX;
	}
	*attempts = 2 * depth;
	return depth;
}

/* A blocked job may earn a reservation (policy reserve_depth).  A shape
 * whose reservation found no time will not find one later this cycle
 * either (capacity only shrinks, reserved nodes only grow, and the
 * reservation search ignores the job's own end), so the memo remembers. */
static int maybe_reserve(struct cyc *y, int32_t jx, struct fw_pending *r, struct memo *m, int32_t shape)
{
	int32_t attempts, depth = fw__resv_depth(y, &attempts);
	int rc;

	/* the tests on y first: once the reservations are made, the job's
	 * reason (just written, a cache miss away) is not read back */
	if (y->nresv >= depth || y->resv_attempts >= attempts || r->reason == FW_REASON_OVER_QUOTA ||
	    (shape >= 0 && m->resv_failed[shape]))
		return FW_OK;
	rc = fw__reserve(y, jx);
	if (rc == FW_EDECLINED) {
		if (shape >= 0)
			m->resv_failed[shape] = true;
		return FW_OK;
	}
	if (rc == FW_OK) {
		/* why not now (plan.h): the reservation a start would delay,
		 * or (-1) why it did not fit */
		bool held = r->reason == FW_REASON_RESERVED;
		r->why_a = held ? r->a : -1;
		r->why_b = held ? r->b : r->reason;
		r->reason = FW_REASON_HAS_RESERVATION;
		r->a = y->dec[y->ndec - 1].at;
		r->b = r->a - y->s->now;
	}
	return rc;
}

/* Why did job jx not start?  From the memo, else by explaining. */
static int explain_failure(struct cyc *y, struct memo *m, const struct jinfo *ji, bool hit,
			   int32_t jx, bool shape_fit, bool gated)
{
	struct fw_pending *r = &y->reason[jx];

	if (hit) {
		*r = m->r[ji->shape];
	} else {
		const struct fw__shape *sh = ji->shape >= 0 ? &m->shp[ji->shape] : NULL;
		if (!blocked_by_reservation(y, jx, sh, r) && !blocked_by_departure(y, jx, sh, r)) {
			explain(y, jx, shape_fit, r);
			fw__health_explain(y, &y->s->jobs[jx], r);
		}
		/* The failure is remembered either way (it is monotone); a
		 * later job of the shape reuses this reason's words.  Not a
		 * job its model limits kept off some models: another job of
		 * the shape may use them. */
		if (ji->shape >= 0 && !gated) {
			m->failed[ji->shape] = true;
			m->r[ji->shape] = *r;
			m->fail_end[ji->shape] = y->nresv == 0 && y->c.naway == 0 ? INT64_MIN : ji->end;
		}
	}
	r->job = jx;
	return maybe_reserve(y, jx, r, m, gated ? -1 : ji->shape);
}

/* A job its model limits keep off some models did not fit on the others:
 * would it fit on all of them, now?  Then the limit is why it waits
 * (*r, from fw__mlim_gate), not the capacity, unless it earns a
 * reservation on the models it may use. */
static bool held_by_model_limit(struct cyc *y, int32_t jx, const struct fw__place_opts *o)
{
	struct fw__place_opts d = *o;
	struct fw__placement p;

	d.dry = true;
	return fw__place_job(&y->c, jx, &d, &p) == FW_OK;
}

/* Try the job at position pos of y->jobs.  Returns FW_OK (started or
 * not; see y->started) or an error. */
static int try_job(struct cyc *y, struct memo *m, int32_t pos)
{
	int32_t jx = y->jobs[pos];
	const struct jinfo *ji = &m->info[pos];
	struct fw_pending *r = &y->reason[jx];
	struct fw__placement p = { 0 };
	struct fw__place_opts o = { .end = ji->end };
	uint64_t open;
	bool hit, gated;
	int rc;

	r->job = jx;
	y->considered++;
	if (y->tried)
		y->tried[y->ntried++] = pos;
	if (fw__limit_held(y, ji->queue, ji->req, ji->end, r) || over_limit(y, ji->queue, ji->req, r) ||
	    fw__over_budget(y, ji->queue, r) || (y->qleft && fw__budget_short(y, jx, r)) ||
	    !fw__mlim_gate_as(y, jx, ji->shape >= 0 ? &m->shp[ji->shape] : NULL, &open, r))
		return FW_OK;
	gated = open != fw__mlim_all(y);
	/* a hit holds for a gated job too: it may use fewer models */
	hit = ji->shape >= 0 && m->failed[ji->shape] && ji->end >= m->fail_end[ji->shape];
	if (!hit) {
		rc = fw__place_gated(&y->c, jx, &o, open, &p);
		if (rc == FW_OK)
			return fw__record_start(y, jx, &p);
		if (rc != FW_EDECLINED)
			return rc;
		if ((rc = fw__consolidate(y, jx)) != 0)
			return rc > 0 ? FW_OK : rc;
	}
	/* a hit too: its shape failed, but its queue may deserve GPUs of a
	 * model that another's did not */
	if ((rc = fw__claim(y, jx)) != 0)
		return rc > 0 ? FW_OK : rc;
	if (!hit && gated && held_by_model_limit(y, jx, &o))
		return maybe_reserve(y, jx, r, m, -1); /* on its open models; else MODEL_LIMIT stays */
	return explain_failure(y, m, ji, hit, jx, p.shape_fit, gated);
}

static bool budget_left(const struct cyc *y)
{
	return y->s->config.max_starts <= 0 || y->nstarts < y->s->config.max_starts;
}

/* Mark the untried jobs of bucket q as blocked (strict order) or out of
 * budget.  tried (NULL: none): the positions the starving pass tried
 * first, whose reasons (a reservation, say) stand. */
static void block_rest(struct cyc *y, int32_t q, enum fw_reason why, int32_t blocker, const bool *tried)
{
	for (int32_t i = y->qnext[q]; i < y->qfirst[q + 1]; i++) {
		if (y->started[y->jobs[i]] || (tried && tried[i]))
			continue;
		struct fw_pending *r = &y->reason[y->jobs[i]];
		r->job = y->jobs[i];
		r->reason = why;
		r->a = why == FW_REASON_HEAD_OF_LINE ? blocker : y->s->config.max_starts;
		r->b = why == FW_REASON_HEAD_OF_LINE ? i - y->qfirst[q] : y->considered;
	}
	y->qnext[q] = y->qfirst[q + 1];
}

static int allocate_global(struct cyc *y, struct memo *memo)
{
	while (y->qnext[0] < y->qfirst[1]) {
		if (!budget_left(y)) {
			block_rest(y, 0, FW_REASON_CYCLE_LIMIT, 0, NULL);
			break;
		}
		int32_t jx = y->jobs[y->qnext[0]];
		int rc = try_job(y, memo, y->qnext[0]++);
		if (rc != FW_OK)
			return rc;
		if (!y->started[jx] && y->pol->strict_order)
			block_rest(y, 0, FW_REASON_HEAD_OF_LINE, jx, NULL);
	}
	return FW_OK;
}

/* ---- starving jobs first (policy starve_after_s) ---------------------- */

fw_time fw__starve_after(const struct cyc *y)
{
	int64_t c = y->s->config.starve_after_s;

	return c > 0 ? c : c < 0 ? 0 : y->pol->starve_after_s;
}

/* Is the job at position a older than the one at b (submit, index)? */
static bool older(const struct cyc *y, int32_t a, int32_t b)
{
	int32_t ja = y->jobs[a], jb = y->jobs[b];

	if (y->ji[ja].submit != y->ji[jb].submit)
		return y->ji[ja].submit < y->ji[jb].submit;
	return ja < jb;
}

int32_t fw__oldest_gangs(const struct cyc *y, int32_t K, bool (*keep)(const struct cyc *, int32_t),
			 int32_t *best)
{
	int32_t n = y->qfirst[y->s->nqueues], k = 0;

	for (int32_t i = 0; i < n; i++) {
		if (y->ji[y->jobs[i]].tasks < 2 || (k == K && !older(y, i, best[K - 1])) || !keep(y, i))
			continue;
		int32_t p = k < K ? k++ : K - 1;
		for (; p > 0 && older(y, i, best[p - 1]); p--)
			best[p] = best[p - 1];
		best[p] = i;
	}
	return k;
}

/* Has the job at position pos waited the starvation age? */
static bool starving(const struct cyc *y, int32_t pos)
{
	return y->ji[y->jobs[pos]].submit <= y->s->now - fw__starve_after(y);
}

/* A starving gang that does not start holds its room under its queues'
 * limits: at a limit near the quota, each job of the queue that ends
 * frees a little room, and the smaller jobs behind the gang, of its queue
 * or another under the same limit, would take it first, cycle after
 * cycle, for ever; and a gang that has the room but not the nodes (its
 * reservation) would find the room taken when its nodes free.  So for
 * the rest of the cycle its request counts under every limit on its way
 * up as if it ran: a later job starts only where it passes the limit
 * beside it (limit_held: LIMIT_HELD, naming the oldest such gang and the
 * queue), or where it ends before any such gang may start (a reserved
 * gang, from its reservation on: backfill under the limit).  Only a
 * gang reserved, or kept out by a limit it passes alone and no bigger
 * than the cluster, holds (holds): not one that a limit never lets in
 * alone (QUEUE_LIMIT), one held itself, one that waits for a budget or
 * a GPU model limit, or one with no reservation (past the reservation
 * depth, say), which would hold the room for nothing.  Reclaim asks the
 * same (lib/preempt.c within_limits), the estimates lay the room in
 * (lib/estimate.c), and the checker proves the reason (check.c). */
static bool holds(const struct cyc *y, int32_t jx, struct fw_res req)
{
	const struct fw_pending *r = &y->reason[jx];
	int32_t q = FW_LIMIT_QUEUE(r->b);
	int k = FW_LIMIT_RES(r->b);

	if (y->started[jx] || y->qlimited[y->ji[jx].queue] < 0)
		return false;
	if (r->reason == FW_REASON_HAS_RESERVATION)
		return true;
	return r->reason == FW_REASON_OVER_QUOTA && q >= 0 && q < y->s->nqueues &&
	       req.v[k] <= y->s->queues[q].limit.v[k] && fw__gang_need(&y->s->jobs[jx]) <= y->c.dom[0].cap_whole;
}

static int hold_limits(struct cyc *y, int32_t jx, struct fw_res req)
{
	if (!holds(y, jx, req))
		return FW_OK;
	if (!y->held) {
		if (!(y->held = FW_ARENA_NEW(y->a, struct fw__hold, (size_t)y->s->nqueues + 1)))
			return FW_ENOMEM;
		for (int32_t i = 0; i < y->s->nqueues; i++)
			y->held[i].job = -1;
	}
	const struct fw_pending *r = &y->reason[jx];
	fw_time from = r->reason == FW_REASON_HAS_RESERVATION ? r->a : y->s->now;
	for (int32_t q = y->qlimited[y->ji[jx].queue]; q >= 0; q = next_limited(y, q)) {
		struct fw__hold *h = &y->held[q];
		if (h->job < 0)
			*h = (struct fw__hold){ jx, from, fw_res_zero() };
		h->from = from < h->from ? from : h->from;
		h->res = fw_res_add(h->res, req);
	}
	return FW_OK;
}

/* Try the starving jobs first; *skip marks their positions (NULL when
 * there are none) so that the fair-share loop passes over them.  One
 * that does not start holds its limits' room (hold_limits). */
static int try_starving(struct cyc *y, struct memo *m, bool **skip)
{
	int32_t K = fw__easy_depth(y), k;
	int32_t *best;
	int rc;

	*skip = NULL;
	if (fw__starve_after(y) <= 0 || K <= 0 || y->oldest_gang > y->s->now - fw__starve_after(y))
		return FW_OK;
	if (!(best = FW_ARENA_RAW(y->a, int32_t, K)))
		return FW_ENOMEM;
	if ((k = fw__oldest_gangs(y, K, starving, best)) == 0)
		return FW_OK;
	if (!(*skip = FW_ARENA_NEW(y->a, bool, y->qfirst[y->s->nqueues] + 1)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < k && budget_left(y); i++) {
		(*skip)[best[i]] = true;
		if ((rc = try_job(y, m, best[i])) != FW_OK ||
		    (rc = hold_limits(y, y->jobs[best[i]], m->info[best[i]].req)) != FW_OK)
			return rc;
	}
	return FW_OK;
}

static int allocate_fairshare(struct cyc *y, struct memo *memo)
{
	struct sel x;
	int32_t q;
	bool *skip;
	int rc = try_starving(y, memo, &skip);

	if (rc != FW_OK || (rc = sel_init(&x, y)) != FW_OK)
		return rc;
	sel_fill(&x);
	while ((q = sel_pick(&x)) >= 0) {
		if (skip && skip[y->qnext[q]]) {
			y->qnext[q]++;
		} else if (!budget_left(y)) {
			block_rest(y, q, FW_REASON_CYCLE_LIMIT, 0, skip);
		} else {
			int32_t jx = y->jobs[y->qnext[q]];
			if ((rc = try_job(y, memo, y->qnext[q]++)) != FW_OK)
				return rc;
			/* the queue's next job: its record and its pending
			 * entry sit at random places (try order is not index
			 * order), and are read when the queue's turn comes
			 * again; ask for them now (3-4 ms of the benchmark) */
			if (y->qnext[q] < y->qfirst[q + 1]) {
				int32_t nx = y->jobs[y->qnext[q]];
				const struct jinfo *ni = &memo->info[y->qnext[q]];
				FW__PREFETCH(&y->reason[nx], 1);
				/* the record only when the memo will not answer
				 * for it (most jobs: their shape already failed;
				 * a useless prefetch costs a miss slot) */
				if (ni->shape < 0 || !memo->failed[ni->shape] || ni->end < memo->fail_end[ni->shape]) {
					FW__PREFETCH(&y->s->jobs[nx].queue, 0);
					FW__PREFETCH(&y->s->jobs[nx].groups[0], 0);
				}
			}
			if (y->started[jx])
				sel_started(&x, q);
			else if (y->pol->strict_order)
				block_rest(y, q, FW_REASON_HEAD_OF_LINE, jx, skip);
		}
		if (y->qnext[q] == y->qfirst[q + 1])
			heap_remove(&x, q);
	}
	return FW_OK;
}

/* A requeued job's place in the restart order. */
struct restart_key {
	int32_t prio;
	fw_time submit;
	int32_t job;
};

/* Higher priority first, then the earlier submission, then job order. */
static int restart_cmp(const void *pa, const void *pb)
{
	const struct restart_key *a = pa, *b = pb;

	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

/* The jobs the drain requeued (drain.c) start again first, each where it
 * fits now, ahead of every waiting job (a FIFO policy's head included):
 * the hardware under them failed, not the policy, and their queues'
 * shares counted them (gather).  Among themselves, when a failure takes
 * down more than the room left can restart: the higher priority first,
 * then the earlier submission (restart_cmp).  The gates of try_job hold:
 * the queues' limits and budgets (under budgetSafe, what the restart adds
 * to the run must fit what is left), the GPU model limits, and
 * placement's health rules (not on the node that failed, nor on a
 * suspect one for a big gang).  One that does not fit is requeued; the
 * next cycle sees it pending. */
int fw__drain_restart(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	struct restart_key *order;

	if (y->ndrain_list == 0)
		return FW_OK;
	if (!(order = FW_ARENA_RAW(y->a, struct restart_key, y->ndrain_list)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < y->ndrain_list; i++) {
		const struct fw_job *j = &s->jobs[y->drain_list[i]];
		order[i] = (struct restart_key){ j->priority, j->submit_time, y->drain_list[i] };
	}
	qsort(order, (size_t)y->ndrain_list, sizeof *order, restart_cmp);
	for (int32_t i = 0; i < y->ndrain_list; i++) {
		int32_t jx = order[i].job;
		const struct fw_job *j = &s->jobs[jx];
		struct fw__place_opts o = { .end = fw__job_end(y, j, s->now) };
		struct fw__placement p = { 0 };
		struct fw_pending r = { 0 };
		uint64_t open;
		int rc;
		if (over_limit(y, j->queue, fw_job_request(j), &r) ||
		    fw__over_budget(y, j->queue, &r) || (y->qleft && fw__budget_short(y, jx, &r)) ||
		    !fw__mlim_gate(y, jx, &open, &r))
			continue;
		if ((rc = fw__place_gated(&y->c, jx, &o, open, &p)) == FW_OK)
			rc = fw__record_start(y, jx, &p);
		if (rc != FW_OK && rc != FW_EDECLINED)
			return rc;
	}
	return FW_OK;
}

int fw__phase_allocate(struct cyc *y)
{
	struct memo *memo = y->memo;
	int rc = limited_queues(y);

	if (rc == FW_OK)
		rc = fw__drain_restart(y);

	if (rc == FW_OK)
		rc = memo_init(y, memo);
	/* the try order, for the estimates' jobs ahead (each position once) */
	if (rc == FW_OK && fw__estimate_depth(y) > 0 &&
	    !(y->tried = FW_ARENA_RAW(y->a, int32_t, (size_t)y->qfirst[y->s->nqueues] + 1)))
		rc = FW_ENOMEM;
	if (rc != FW_OK)
		return rc;
	if (y->pol->queue_order == FW_QORDER_GLOBAL)
		return allocate_global(y, memo);
	return allocate_fairshare(y, memo);
}
