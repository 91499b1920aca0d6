/*
 * estimate.c — the estimate phase: when is each waiting job expected to
 * start?  (The rule is stated in plan.h; this is how it is computed.)
 *
 * Runs after allocate, on its final state: this cycle's starts are
 * committed, reservations are held.  Five steps, all O(jobs) except the
 * walks:
 *   0. refill:   per queue over its GPU-hour budget, when its usage falls
 *      below it (the end events in time order, the running GPUs feeding
 *      the usage until they end): an over-budget job's floor;
 *      0b. short: under budget_safe, per queue with a budget, what it has
 *      left over time (the same end events: the decay adds to it, a run
 *      that ends before its bound gives the rest back), and per
 *      budget-short job the first second its run fits (fits_at, a
 *      bisection): its floor;
 *      0c. quota: per over-quota job, and per the first 256 other jobs
 *      under a limit, the first time at which its queues' limits let it
 *      in beside the jobs answered before it, each counted while it is
 *      expected to run (quota_at, quota_hold): its floor.  They are
 *      answered (quota_pass) as allocate starts them, in time order,
 *      try order breaking ties: each is asked from its time alone, and
 *      the one asked from the earliest time commits there if the
 *      limits let it in beside the holders so far, else is asked again
 *      from its first fit: allocate starts whatever fits the room a
 *      limit leaves, so a job behind one that needs more gets in first
 *      when room for it frees, and the bigger one waits for room it
 *      takes.  Per queue with a
 *      limit, its room over time in a treap (struct tnode: its
 *      subtree's end events, quota_index, once, and the holders): one
 *      descent per queue and job, not a walk over every end event;
 *   1. sort out: a reserved job's estimate is its reservation's time (now
 *      + 1 for one at now); an over-quota job's is unknown when no end
 *      makes room under its limits (or under a model's limit, or a
 *      budget); every other job that did not start is
 *      interned by shape (struct fw__shape), so 100,000 jobs become the few
 *      dozen or hundred shapes they share;
 *   2. walk:     one dry reservation walk for all shapes together (the
 *      machinery of reserve.c): clone the state, try every open shape at
 *      now, then release the running jobs and this cycle's starts at their
 *      expected ends, and each reservation's nodes when its reserved job
 *      is expected to end, in time order; after each distinct end time t
 *      try every shape still open.  A shape's estimate is the first t at
 *      which it fits, never now (now + 1, the next cycle: not_now; this
 *      plan does not start its jobs).  Nothing is held: the walk changes
 *      only the clone.
 *      Tries are pruned, never guessed: a shape is skipped at t when the
 *      free-GPU count rules it out, when a job of it already failed this
 *      cycle (at now only, and only if the reclaim phase evicted nothing:
 *      otherwise capacity only shrank since), or when a shape
 *      that differs only by asking less CPU and memory already failed at
 *      t (dominated()), or, for a shape of one task, when no node the
 *      step released fits it (every other node is as it was when the
 *      shape last failed: fw__place_one_fits), or, for a shape with a node
 *      filter or any other, when no node the step released lies in a
 *      slot of its filter, or a domain of its required level, that now
 *      has its whole GPUs free (step_helps_filter, fw__step_helps_gang:
 *      elsewhere the search fails as it did).  Fitting only gets easier
 *      as t grows (releases only add capacity), so the first t found is
 *      the walk's answer;
 *   2b. ahead:  the shape walk answers each shape alone: 500 identical
 *      1-GPU jobs behind a full cluster would all read the first time
 *      one GPU frees.  So the first config.estimate_depth blocked jobs
 *      of one task without a reservation, in the order allocate tried
 *      them (y->tried), get a second dry walk over the same events on a
 *      fresh clone: at now and after each event, each job not placed yet
 *      is tried in that order and, when it fits, placed in the clone and
 *      held there, its capacity taken until its expected end (a new end
 *      event, a heap; for ever without one).  Its estimate is that time;
 *      a job behind it finds the room it took gone.  This is the line
 *      the cycles to come work through: each tries the jobs in this
 *      order and starts what fits without delaying a reservation.  So
 *      the reserved nodes take, until their reservation, the jobs that
 *      end by then (the clone's own resv_until, as allocate's backfill),
 *      and each reserved job takes its GPUs at its time and gives them
 *      back at its end (ahead_resv, take_due; when a reserved node is
 *      out of service now or any node leaves later, the clone holds the
 *      reserved nodes out until their jobs end instead, as the shape
 *      walk does).  Gangs are left out: the reservations and the
 *      starving pass keep a gang from being passed for ever, which this
 *      line does not model (held here, the 9+ GPU jobs' estimates erred
 *      150% of their wait on the ITP cluster06 replay, 11% without).
 *      The tries are pruned as the shape walk's: a shape that failed in
 *      this round for a job that runs no longer fails again (the clone
 *      only lost room since), as does one that failed last round where
 *      no node the step changed could let it in (step_may_help); at now
 *      a shape allocate failed with.  Jobs a budget floors are left out
 *      too (the simulator wakes at a budget-short job's estimate).  A
 *      job past the depth (or never placed before
 *      the events ran out) keeps its shape's answer, but no earlier than
 *      the latest held job of its shape: an identical job tried first
 *      starts first.  A job whose shape the walk left unknown is in this
 *      line too when a reservation is held for a job with no expected end
 *      (unbounded_resv) and the reserved nodes take work until their
 *      reservation (backfill mode): the shape walk held those nodes out
 *      from now on, so a job that ends before such a reservation starts
 *      is placed there and held, its estimate known.  Nothing is held in
 *      the plan; decisions do not change;
 *   3. unknown:  a shape still open when the events run out is unknown:
 *      NEVER_FITS (or TASK_CPU / TASK_MEM) when the cluster could not
 *      hold it empty (more GPUs than it has, reserve.c's hopeless test,
 *      which also asks whether one task fits a node, else a dry try on
 *      the empty cluster: empty_clone, never_why) and would not either
 *      once health gave back the nodes it holds out (HEALTH when it
 *      would), nor once the cordoned ones came back too (NODES_OUT:
 *      drain.c's mend, built only when some node is held out),
 *      UNKNOWN_RUNTIME otherwise (jobs that never end hold what
 *      it needs), UNKNOWN_RESERVED when the running ones among them
 *      leave room for it: reservations for jobs that never end (no
 *      runtime, no run-time limit, no queue defaultRuntime: fw__job_end)
 *      hold their nodes from their time on (a reserved node is held whole
 *      until its job ends); a job of such a shape that 2b placed before
 *      such a reservation keeps that time;
 *   4. queue:    walk each line (leaf queue, or the global order) in try
 *      order: count the waiting jobs ahead of each job; under a
 *      strict-order policy, raise its estimate to the latest estimate
 *      ahead (behind a job whose start is unknown, unknown too:
 *      HEAD_OF_LINE);
 *   5. gangs:    under a starvation age, the oldest waiting gangs in a
 *      time profile of free task slots, oldest first (gang_queue()): an
 *      unreserved gang no earlier than when it starves (unless a queue's
 *      limit holds it, over quota: then from its floor); a reserved one
 *      sooner than its reservation if it starves first and fits then.
 * Cost: the shapes come from allocate's memo (no job record is read for
 * them); one clone (only what changed since the last reservation's); the
 * end events the reservations already sorted; per distinct end time an
 * O(1) test per open shape, a test of the released nodes for a one-task
 * shape, and a placement try for the few that pass.  On the 100,000-job
 * benchmark: ~1,700 shapes, 300 end times, ~3,100 placement tries; the
 * walk ~6 ms (a one-task shape of a GPU model that no released node has
 * once scanned every free node at every end time: 15 ms), the gang
 * profile ~5 ms.  The jobs ahead (2b): a second clone and the same
 * events until the last held job is placed, per event an O(1) test per
 * job not placed yet and a placement try for the few whose shape passes
 * the tests; bounded by the depth.  On the benchmark, the cycle's CPU
 * p50 53 ms at depth 0, 54 at 64, 56 at the default 256, 58 at 1024
 * (three runs each, interleaved; the decisions' hash the same at every
 * depth).
 * Deterministic: shapes are tried in a fixed order (signature, CPU,
 * memory, id); events of one end time are all released before any try.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cycle_int.h"

struct est {
	struct cyc *y;
	int32_t nshp, cap;      /* shapes, room in the per-shape arrays */
	struct fw__shape *shp;  /* interned shapes */
	int32_t *rep;           /* per shape: its first job (the one tried) */
	int64_t *need;          /* per shape: whole GPUs the gang needs for sure */
	fw_time *at;            /* per shape: earliest fit, FW_TIME_UNKNOWN */
	int32_t *tab;           /* hash slots (mask + 1 = 2 cap): shape id or -1 */
	uint32_t mask;
	int32_t *shape;         /* per position in y->jobs: shape, -1 = none */
	enum fw_reason *why;    /* per shape left open: why (explain_open) */
	int64_t *why_a, *why_b;
	int32_t *open;          /* shapes without a time yet (sort_open) */
	int32_t nopen;
	int32_t *from_memo;     /* allocate memo shape -> ours + 1, 0 = none */
	/* pruning (dominated()): shapes that differ only in CPU and memory
	 * share a signature, named by its first shape */
	int32_t *sig_tab;       /* hash slots: shape id of the signature, -1 */
	int32_t *sig;           /* per shape: its signature's shape id */
	int32_t *stamp, *head;  /* per signature: failures at try round stamp */
	int32_t *next_fail;     /* per shape: the next failure of its round */
	bool *tried_now;        /* per shape: some job of it failed at now */
	int32_t round;
	/* per queue (refill()): the first second at which no queue on its
	 * way up is over its GPU-hour budget any more, FW_TIME_UNKNOWN when
	 * never (or not known); 0 when none is over it; NULL: no budget */
	fw_time *refill;
	/* config.budget_safe (short_build, on the first budget-short job):
	 * per queue with a budget and a known left, its left over time as
	 * segments seg[sfirst[q] .. sfirst[q + 1]).  Per position in y->jobs
	 * (floor): the soonest a budget-short job's run fits them all, or an
	 * over-budget job's queue refills */
	struct lseg *seg;
	int32_t *sfirst;
	bool *son;       /* per queue: has a segment list (some run passes its left) */
	fw_time *floor;
	/* the jobs ahead (ahead_walk; NULL when the depth is 0): per
	 * position in y->jobs the held job's estimate, 0 = not held; per
	 * shape the latest estimate of a held job of it, 0 = none */
	fw_time *held;
	fw_time *held0;            /* held's room, zeroed by sort_out */
	fw_time *hfloor;
	int32_t nlimited;          /* limit_floor's answers so far */
	uint64_t nnodes;           /* room nodes made so far (their treap priorities) */
	int nk;                    /* the room treaps keep resources [0, nk): the
				    * last one some queue limits, and those before */
	struct fw_res *qsum;       /* per queue: the holders' requests under it (NULL: none yet) */
	fw_time *hfrom;            /* per queue whose limit a starving gang holds
				    * (y->held): that gang's floor, 0 = none yet
				    * (quota_floor; NULL: no hold) */
	bool *limited;             /* per queue: it or one on its way up has a limit */
	/* quota_at's index (quota_index, built on its first call): per
	 * queue with a limit of its own, the end events of its subtree in
	 * next_end's order (the evicted running jobs left out) as slots
	 * slot[qfirst[q] .. qfirst[q + 1]), laid out as its room treap
	 * (room[q], struct tnode) on its first question, with the holders
	 * (hlog: each waiting job answered under a limit, its floor) laid
	 * in */
	int32_t *qfirst;
	struct tnode *slot;
	struct tnode **room;
	bool *built;           /* per queue: room[q] made (room_ready) */
	struct hlog **qwait;   /* per queue not built: the holders for it */
	struct tnode **st;     /* room_ready's stack */
	struct hlog *hlog;
	int32_t qi_run, qi_st; /* the events it holds: y->nev_run, y->nev_st */
};

/* A sorted run of end events, consumed from the front. */
#define GROW(e, p, T, n)                                                    \
	do {                                                                \
		T *x_ = FW_ARENA_NEW((e)->y->a, T, 2 * (size_t)(n));        \
		if (!x_)                                                    \
			return FW_ENOMEM;                                   \
		memcpy(x_, (p), (size_t)(n) * sizeof(T));                   \
		(p) = x_;                                                   \
	} while (0)

/* Shape id's signature: its shape with CPU and memory zeroed. */
static void sig_key(const struct est *e, int32_t id, struct fw__shape *k)
{
	*k = e->shp[id];
	for (int g = 0; g < k->ngroups; g++)
		k->g[g].cpu = k->g[g].mem = 0;
}

/* The first free slot of table t (mask + 1 slots) from k's hash. */
static uint32_t free_slot(const struct est *e, const int32_t *t, const struct fw__shape *k)
{
	uint32_t i = fw__shape_hash(k) & e->mask;

	while (t[i] >= 0)
		i = (i + 1) & e->mask;
	return i;
}

/* New hash tables of 2 cap slots, every shape so far in tab and every
 * signature's first shape in sig_tab: sized by the shapes, not by the
 * jobs (a table of twice the jobs, set to -1 each cycle, cost more than
 * the probes).  An id never moves, so the answers are the same whatever
 * the size. */
static int rehash(struct est *e)
{
	uint32_t slots = 2 * (uint32_t)e->cap;
	struct fw__shape k;

	e->tab = fw_arena_alloc_raw(e->y->a, slots * sizeof *e->tab);
	e->sig_tab = fw_arena_alloc_raw(e->y->a, slots * sizeof *e->sig_tab);
	if (!e->tab || !e->sig_tab)
		return FW_ENOMEM;
	memset(e->tab, 0xff, slots * sizeof *e->tab);
	memset(e->sig_tab, 0xff, slots * sizeof *e->sig_tab);
	e->mask = slots - 1;
	for (int32_t id = 0; id < e->nshp; id++) {
		e->tab[free_slot(e, e->tab, &e->shp[id])] = id;
		if (e->sig[id] == id) {
			sig_key(e, id, &k);
			e->sig_tab[free_slot(e, e->sig_tab, &k)] = id;
		}
	}
	return FW_OK;
}

/* Double the per-shape arrays (the arena does not realloc; the old ones
 * are left behind, at most as much again) and the hash tables. */
static int grow(struct est *e)
{
	GROW(e, e->shp, struct fw__shape, e->cap);
	GROW(e, e->rep, int32_t, e->cap);
	GROW(e, e->need, int64_t, e->cap);
	GROW(e, e->at, fw_time, e->cap);
	GROW(e, e->open, int32_t, e->cap);
	GROW(e, e->sig, int32_t, e->cap);
	GROW(e, e->stamp, int32_t, e->cap);
	GROW(e, e->head, int32_t, e->cap);
	GROW(e, e->next_fail, int32_t, e->cap);
	GROW(e, e->tried_now, bool, e->cap);
	e->cap *= 2;
	return rehash(e);
}

/* The signature of shape id: its shape with CPU and memory zeroed. */
static int32_t sig_of(struct est *e, int32_t id)
{
	struct fw__shape k;
	uint32_t i;

	sig_key(e, id, &k);
	for (i = fw__shape_hash(&k) & e->mask;; i = (i + 1) & e->mask) {
		int32_t s = e->sig_tab[i];
		if (s < 0) {
			e->sig_tab[i] = id;
			return id;
		}
		struct fw__shape o;
		sig_key(e, s, &o);
		if (memcmp(&o, &k, sizeof k) == 0)
			return s;
	}
}

/* The shape id of job j's shape k, new ones appended; -1 when out of
 * memory. */
static int32_t intern(struct est *e, const struct fw__shape *k, int32_t j)
{
	uint32_t i = fw__shape_hash(k) & e->mask;

	for (;; i = (i + 1) & e->mask) {
		int32_t id = e->tab[i];
		if (id < 0) {
			if (e->nshp == e->cap) /* the tables are remade: probe again */
				return grow(e) == FW_OK ? intern(e, k, j) : -1;
			e->shp[e->nshp] = *k;
			e->rep[e->nshp] = j;
			e->need[e->nshp] = fw__gang_need(&e->y->s->jobs[j]);
			e->at[e->nshp] = FW_TIME_UNKNOWN;
			e->open[e->nopen++] = e->nshp;
			e->tried_now[e->nshp] = false;
			e->stamp[e->nshp] = -1;
			e->tab[i] = e->nshp;
			e->sig[e->nshp] = sig_of(e, e->nshp);
			return e->nshp++;
		}
		if (memcmp(&e->shp[id], k, sizeof *k) == 0)
			return id;
	}
}

/* Has queue q, or one on its way up, a limit? */
static bool limited(const struct fw_snapshot *s, int32_t q)
{
	for (int32_t n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++)
		if (fw_queue_has_limit(&s->queues[q]))
			return true;
	return false;
}

/* e->limited: limited() per queue, once per cycle (limit_floor asks it
 * for every waiting job). */
static int mark_limited(struct est *e)
{
	const struct fw_snapshot *s = e->y->s;

	if (!(e->limited = FW_ARENA_NEW(e->y->a, bool, (size_t)s->nqueues + 1)))
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		e->limited[q] = limited(s, q);
	return FW_OK;
}

/* The per-position arrays (shape, floor, held) are left raw: sort_out
 * writes each position's entries first; from_memo, a table by the
 * memo's shapes, is zeroed (it has as many entries as those). */
static int est_init(struct est *e, struct cyc *y, int32_t n)
{
	int32_t nh = y->qfirst[y->s->nqueues] > n ? y->qfirst[y->s->nqueues] : n;

	memset(e, 0, sizeof *e);
	e->y = y;
	e->cap = 64;
	e->shp = FW_ARENA_NEW(y->a, struct fw__shape, e->cap);
	e->rep = FW_ARENA_NEW(y->a, int32_t, e->cap);
	e->need = FW_ARENA_NEW(y->a, int64_t, e->cap);
	e->at = FW_ARENA_NEW(y->a, fw_time, e->cap);
	e->open = FW_ARENA_NEW(y->a, int32_t, e->cap);
	e->shape = FW_ARENA_RAW(y->a, int32_t, (size_t)n + 1);
	e->from_memo = FW_ARENA_NEW(y->a, int32_t, (size_t)y->nshapes + 1);
	e->sig = FW_ARENA_NEW(y->a, int32_t, e->cap);
	e->stamp = FW_ARENA_NEW(y->a, int32_t, e->cap);
	e->head = FW_ARENA_NEW(y->a, int32_t, e->cap);
	e->next_fail = FW_ARENA_NEW(y->a, int32_t, e->cap);
	e->tried_now = FW_ARENA_NEW(y->a, bool, e->cap);
	e->floor = FW_ARENA_RAW(y->a, fw_time, (size_t)n + 1);
	e->held0 = FW_ARENA_RAW(y->a, fw_time, (size_t)nh + 1);
	if (!e->floor || !e->held0 || !e->shp || !e->rep || !e->need || !e->at || !e->open || !e->shape ||
	    !e->from_memo || !e->sig || !e->stamp || !e->head || !e->next_fail || !e->tried_now)
		return FW_ENOMEM;
	/* positions past n (none unless the line is global and shorter) */
	for (int32_t i = n; i <= nh; i++)
		e->held0[i] = 0;
	e->floor[n] = 0;
	e->shape[n] = -1;
	if (y->held && !(e->hfrom = FW_ARENA_NEW(y->a, fw_time, (size_t)y->s->nqueues + 1)))
		return FW_ENOMEM;
	return rehash(e) == FW_OK ? mark_limited(e) : FW_ENOMEM;
}

/* ---- step 0: when over-budget queues fall below their budgets ----------- */

/* A queue over its GPU-hour budget as the walk of the end events ages its
 * usage: u GPU-seconds at t0 while a GPUs of its subtree run; at = its
 * answer once found (0: not yet). */
struct fill {
	double u, a;
	fw_time t0, at;
};

/* The first second after t0 at which usage u (at t0), fed by a GPUs and
 * decaying with half-life h, is below B: it tends to a h / ln 2, so
 * below B at t0 + h log2((u - s) / (B - s)) when s < B.  FW__NEVER when
 * it never gets there. */
static fw_time fall_below(double u, double a, double B, double h, fw_time t0)
{
	double sd = a * h / 0.69314718055994530942, t;

	if (u < B)
		return t0;
	if (!(sd < B))
		return FW__NEVER;
	t = floor((double)t0 + h * log2((u - sd) / (B - sd))) + 1;
	return t < 9e15 ? (fw_time)t : FW__NEVER;
}

/* Feed event time te (GPUs g ending then) to queue k's fill. */
static void fill_step(struct fill *f, double g, double B, double h, fw_time te)
{
	fw_time t = fall_below(f->u, f->a, B, h, f->t0);
	double sd = f->a * h / 0.69314718055994530942;

	if (f->at || te < f->t0)
		return;
	if (t <= te) {
		f->at = t;
		return;
	}
	f->u = sd + (f->u - sd) * exp2(-(double)(te - f->t0) / h);
	f->t0 = te;
	f->a = f->a > g ? f->a - g : 0;
}

static double ev_gpus(const struct ev *v)
{
	int64_t g = 0;

	for (int32_t k = 0; k < v->ntasks; k++)
		g += (int64_t)__builtin_popcount(v->tasks[k].gpu_mask) * v->tasks[k].gpu_milli;
	return (double)g / 1000.0;
}

/* The next end event in time order, of the running jobs' (y->ev_run:
 * *run true) or this cycle's starts' (y->ev_st), from positions *i and
 * *k; NULL when none is left.  Steps 0 and 0b walk them so. */
static const struct ev *next_end(const struct cyc *y, int32_t *i, int32_t *k, bool *run)
{
	if (*i >= y->nev_run && *k >= y->nev_st)
		return NULL;
	*run = *k >= y->nev_st || (*i < y->nev_run && y->ev_run[*i].end <= y->ev_st[*k].end);
	return *run ? &y->ev_run[(*i)++] : &y->ev_st[(*k)++];
}

/* Each end event, in time order (running jobs', this cycle's starts'),
 * to the fills of the over-budget queues above its job. */
static void fill_walk(struct cyc *y, struct fill *f)
{
	const struct fw_snapshot *s = y->s;
	double h = s->config.usage_half_life_s;
	int32_t i = 0, k = 0;
	bool run;

	for (const struct ev *v; (v = next_end(y, &i, &k, &run));) {
		if (y->evicted && s->jobs[v->job].state == FW_JOB_RUNNING && y->evicted[v->job])
			continue;
		double g = ev_gpus(v);
		for (int32_t q = s->jobs[v->job].queue, n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++)
			if (f[q].u > 0)
				fill_step(&f[q], g, s->queues[q].gpu_hour_budget * 3600.0, h, v->end);
	}
}

/* Step 0: e->refill.  Per queue over its budget, its usage (y->qused)
 * aged along the end events while its subtree's GPUs (y->alloc, after
 * this cycle's starts and evictions) run until their expected ends,
 * those without one for ever; then per queue the latest of its way up.
 * Only when some queue is over its budget. */
static int refill(struct est *e)
{
	struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	double h = s->config.usage_half_life_s;
	struct fill *f;
	bool any = false;
	int rc;

	for (int32_t q = 0; y->qbudget && q < s->nqueues && !any; q++)
		any = y->qbudget[q] >= 0;
	if (!any)
		return FW_OK;
	f = FW_ARENA_NEW(y->a, struct fill, s->nqueues + 1);
	e->refill = FW_ARENA_NEW(y->a, fw_time, s->nqueues + 1);
	if (!f || !e->refill)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		if (s->queues[q].gpu_hour_budget > 0 && y->qused[q] >= s->queues[q].gpu_hour_budget * 3600.0)
			f[q] = (struct fill){ y->qused[q], (double)y->alloc[q].v[FW_RES_GPU] / 1000.0, s->now, 0 };
	if (h > 0 && (rc = fw__resv_events(y)) != FW_OK)
		return rc;
	if (h > 0)
		fill_walk(y, f);
	for (int32_t q = 0; q < s->nqueues; q++)
		if (f[q].u > 0 && !f[q].at)
			f[q].at = h > 0 ? fall_below(f[q].u, f[q].a, s->queues[q].gpu_hour_budget * 3600.0, h, f[q].t0)
				       : FW__NEVER;
	for (int32_t q = 0; q < s->nqueues; q++) {
		fw_time t = 0;
		for (int32_t k = q, n = 0; k >= 0 && n <= s->nqueues && t != FW_TIME_UNKNOWN; k = s->queues[k].parent, n++)
			if (f[k].at)
				t = f[k].at == FW__NEVER ? FW_TIME_UNKNOWN : f[k].at > t ? f[k].at : t;
		e->refill[q] = t;
	}
	return FW_OK;
}

/* ---- step 0b: when a budget-short job's run fits (budget_safe) -------- */

#define LN2 0.69314718055994530942
/* A search past this many seconds from now answers never (~300 years). */
#define SHORT_HORIZON ((fw_time)1 << 33)

/* What a budget has left (budget.h) from t0 until the next segment, while
 * a GPUs of its subtree run and its usage is U at t0: d left / dt = ln 2
 * / h x usage, so left(t0 + d) = L + a d + (U - a h / ln 2)(1 - 2^(-d/h)).
 * At an end event the left jumps by the part of the ended job's bound it
 * did not use, and a drops by its GPUs. */
struct lseg {
	fw_time t0;
	double U, a, L;
};

static double left_at(const struct lseg *g, double h, fw_time t)
{
	double d = (double)(t - g->t0);

	if (!(h > 0))
		return g->L; /* no decay: each GPU-second moves from runs to usage */
	return g->L + g->a * d - (g->U - g->a * h / LN2) * expm1(-d * LN2 / h);
}

/* g carried to te, where an event of eg GPUs whose bound would have run
 * to bend takes place. */
static struct lseg left_step(const struct lseg *g, double h, fw_time te, double eg, fw_time bend)
{
	double d = (double)(te - g->t0), sd = g->a * h / LN2;
	struct lseg n = { te, h > 0 ? sd + (g->U - sd) * exp2(-d / h) : g->U + g->a * d, g->a - eg,
			  left_at(g, h, te) };

	if (bend > te)
		n.L += eg * (double)(bend - te);
	if (n.a < 1e-9)
		n.a = 0;
	return n;
}

/* Segments as the walk makes them, in time order, before they are
 * grouped by queue. */
struct srec {
	int32_t q;
	struct lseg g;
};

struct sbuild {
	struct lseg *cur; /* per queue: its latest segment */
	struct srec *rec;
	int32_t n, cap;
};

/* End event v (run: a running job's, else this cycle's start's) to every
 * queue above its job that has segments: each one's next. */
static int short_event(struct est *e, struct sbuild *b, const struct ev *v, bool run)
{
	struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	double h = s->config.usage_half_life_s, g = -1;
	fw_time bend = 0;

	for (int32_t q = y->ji[v->job].queue, n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++) {
		if (!e->son[q])
			continue;
		if (g < 0) { /* the job's GPUs and bound, once some queue needs them */
			fw_time bd = y->jbound[v->job];
			g = ev_gpus(v);
			if (bd > 0)
				bend = (run || s->jobs[v->job].state == FW_JOB_RUNNING ? s->jobs[v->job].start_time : s->now) +
				       bd;
		}
		if (b->n == b->cap) {
			struct srec *x = FW_ARENA_RAW(y->a, struct srec, 2 * (size_t)b->cap);
			if (!x)
				return FW_ENOMEM;
			memcpy(x, b->rec, (size_t)b->n * sizeof *x);
			b->rec = x;
			b->cap *= 2;
		}
		b->cur[q] = left_step(&b->cur[q], h, v->end, g, bend);
		b->rec[b->n++] = (struct srec){ q, b->cur[q] };
	}
	return FW_OK;
}

/* The end events in time order (running jobs', this cycle's starts'); a
 * running job evicted in this plan has none (its run, if any was left,
 * stays counted: the cycle's view). */
static int short_events(struct est *e, struct sbuild *b)
{
	struct cyc *y = e->y;
	int32_t i = 0, k = 0;
	int rc = FW_OK;
	bool run;

	for (const struct ev *v; rc == FW_OK && (v = next_end(y, &i, &k, &run));)
		if (!(run && y->evicted && y->evicted[v->job]))
			rc = short_event(e, b, v, run);
	return rc;
}

/* Queue q's first segment: at now, its usage (y->qused), its subtree's
 * GPUs (y->alloc, after this cycle's starts) and its left (y->qleft). */
static struct lseg seg_now(const struct cyc *y, int32_t q)
{
	return (struct lseg){ y->s->now, y->qused[q], (double)y->alloc[q].v[FW_RES_GPU] / 1000.0, y->qleft[q] };
}

/* Step 0b: e->seg.  Per queue with a budget whose left is known (no
 * unbounded run under it) and less than some waiting job's run, the first
 * segment at now from y->qleft (after this cycle's starts), y->qused and
 * y->alloc; then one per end event under it.  One pass over the events
 * makes them in time order; a counting sort groups them by queue. */
static int short_build(struct est *e, int32_t npos)
{
	struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	int32_t nq = s->nqueues, *at;
	struct sbuild b = { 0 };
	int rc;

	if ((rc = fw__resv_events(y)) != FW_OK)
		return rc;
	e->sfirst = FW_ARENA_NEW(y->a, int32_t, nq + 1);
	e->son = FW_ARENA_NEW(y->a, bool, nq + 1);
	at = FW_ARENA_NEW(y->a, int32_t, nq + 1);
	b.cur = FW_ARENA_RAW(y->a, struct lseg, nq + 1);
	b.cap = 1024;
	b.rec = FW_ARENA_RAW(y->a, struct srec, b.cap);
	if (!e->sfirst || !e->son || !at || !b.cur || !b.rec)
		return FW_ENOMEM;
	for (int32_t i = 0; i < npos; i++) { /* the budgets some waiting run passes */
		int32_t j = y->jobs[i];
		double need = y->jneed[j];
		for (int32_t k = y->ji[j].queue, n = 0; need > 0 && !y->started[j] && k >= 0 && n <= nq;
		     k = s->queues[k].parent, n++)
			if (s->queues[k].gpu_hour_budget > 0 && need > y->qleft[k] && !isinf(y->qleft[k]))
				e->son[k] = true;
	}
	for (int32_t q = 0; q < nq; q++)
		if (e->son[q])
			b.cur[q] = seg_now(y, q);
	if ((rc = short_events(e, &b)) != FW_OK)
		return rc;
	for (int32_t r = 0; r < b.n; r++)
		at[b.rec[r].q]++;
	for (int32_t q = 0; q < nq; q++)
		e->sfirst[q + 1] = e->sfirst[q] + (e->son[q] ? at[q] + 1 : 0);
	if (!(e->seg = FW_ARENA_RAW(y->a, struct lseg, e->sfirst[nq] + 1)))
		return FW_ENOMEM;
	for (int32_t q = 0; q < nq; q++) {
		at[q] = e->sfirst[q] + 1;
		if (e->son[q])
			e->seg[e->sfirst[q]] = seg_now(y, q);
	}
	for (int32_t r = 0; r < b.n; r++)
		e->seg[at[b.rec[r].q]++] = b.rec[r].g;
	return FW_OK;
}

/* The first second t >= lo, t <= hi, at which g's left holds need; hi
 * when none before it (left grows with t: bisection). */
static fw_time first_fit(const struct lseg *g, double h, double need, fw_time lo, fw_time hi)
{
	while (lo < hi) {
		fw_time mid = lo + (hi - lo) / 2;
		if (left_at(g, h, mid) >= need)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/* When queue q's left (its segments) first holds need GPU-seconds:
 * the segment whose start holds it is past the answer, which lies in the
 * one before (or at its start: the jump).  FW__NEVER when not within the
 * horizon. */
static fw_time fits_at(const struct est *e, int32_t q, double need)
{
	const struct lseg *g = e->seg + e->sfirst[q];
	int32_t lo = 0, hi = e->sfirst[q + 1] - e->sfirst[q], last = hi - 1;
	double h = e->y->s->config.usage_half_life_s;
	fw_time end = e->y->s->now + SHORT_HORIZON, t;

	while (lo < hi) { /* the first segment that starts holding need */
		int32_t mid = lo + (hi - lo) / 2;
		if (g[mid].L >= need)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0)
		return g[0].t0;
	if (lo <= last)
		return first_fit(&g[lo - 1], h, need, g[lo - 1].t0, g[lo].t0);
	t = first_fit(&g[last], h, need, g[last].t0, end);
	return t < end || left_at(&g[last], h, end) >= need ? t : FW__NEVER;
}

/* Budget-short job j's floor: the latest over the budgets on its way up
 * of when each first holds its whole run, counted alone (the jobs that
 * start under it before it take theirs first, so it is a floor, not a
 * promise); FW_TIME_UNKNOWN when never or not known (its run or a
 * budget's left unbounded). */
static fw_time short_at(struct est *e, int32_t j)
{
	struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	double need = y->jneed[j];
	fw_time t = s->now;

	if (isinf(need))
		return FW_TIME_UNKNOWN;
	for (int32_t q = s->jobs[j].queue, n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++) {
		if (!(s->queues[q].gpu_hour_budget > 0) || need <= y->qleft[q])
			continue;
		/* what is left stays below the budget while any usage is
		 * left to decay: a run as large as it never fits (nor would
		 * rounding make it seem to) */
		if (isinf(y->qleft[q]) || !(need < s->queues[q].gpu_hour_budget * 3600.0))
			return FW_TIME_UNKNOWN;
		fw_time at = fits_at(e, q, need);
		if (at == FW__NEVER)
			return FW_TIME_UNKNOWN;
		t = at > t ? at : t;
	}
	return t;
}

/* ---- step 0c: when an over-quota job's queues leave it room ---------- */

/* What an end event gives back to its queues: its tasks' GPUs (milli),
 * CPU and memory, as fw__job_use counts a running job's; CPU and memory
 * only when cpu_mem (some queue limits them: else nothing reads them,
 * and they are the job record's, a cache miss per event). */
static struct fw_res ev_use(const struct fw_snapshot *s, const struct ev *v, bool cpu_mem)
{
	const struct fw_job *job = &s->jobs[v->job];
	struct fw_res r = fw_res_zero();

	for (int32_t k = 0; k < v->ntasks; k++) {
		const struct fw_task_alloc *a = &v->tasks[k];
		r.v[FW_RES_GPU] += (int64_t)__builtin_popcount(a->gpu_mask) * a->gpu_milli;
		if (cpu_mem) {
			r.v[FW_RES_CPU] += job->groups[a->group].cpu_milli;
			r.v[FW_RES_MEM] += job->groups[a->group].mem_mib;
		}
	}
	return r;
}

/* How far need, beside what queue q holds, passes q's limits: the
 * largest excess over its resources, <= 0 when it fits them all. */
static int64_t excess(const struct fw_queue *q, struct fw_res held, struct fw_res need)
{
	int64_t worst = INT64_MIN;

	for (int k = 0; k < FW_RES_COUNT; k++) {
		int64_t x = held.v[k] + need.v[k] - q->limit.v[k];
		if (q->limit.v[k] != FW_UNLIMITED && x > worst)
			worst = x;
	}
	return worst == INT64_MIN ? 0 : worst;
}

/* The deepest queue chain quota_at follows, and how many waiting jobs
 * under a limit that are not over quota it answers per cycle
 * (limit_floor: past them such a job has no floor, its estimate a lower
 * bound).  Every over-quota job is answered: O(depth x log) each
 * (quota_index, room_all).  Until 2026-12-06 only the first 256 of
 * both together were, each walking every end event, and past them an
 * over-quota job's start read unknown: 8,264 of 78,966 pending on the
 * benchmark, 27 now (those a limit never lets in).  Answering every
 * limited job too would cost the default benchmark cycle about 13% more
 * instructions with the room treaps (832.7 against 736.7 M Ir; 850
 * against 678 with the walk before them), for floors only; the
 * over-quota ones cost 7% (725 M Ir, p50 78 against 72 ms).  The 256
 * are the first in try order (sort_out's defer), whatever order
 * quota_pass then answers them in.  2026-12-07: with the holders in
 * quota_pass's order, the cap at 4,096 and quota_at's search from now
 * + 1 were tried again on bench/quota_estimates.sh: the cap changed no
 * estimate there (no cycle had 256 such jobs), and now + 1 made 17/32
 * worse (median |err| 2.90 -> 3.84 h), so neither is kept. */
#define QUOTA_DEPTH 64
#define QUOTA_LIMITED 256

/* How many times per cycle quota_pass may put a job back to be asked
 * again later (its first fit later than the time it was asked from,
 * and another job to be asked before that); past them, a job commits
 * where its first fit lies, as when each job was asked once.  Uncapped,
 * the benchmark's 9,521 limited jobs (3,762 classes) were asked 782,703
 * times, the cycle 2,628 M Ir against 686; on bench/quota_estimates.sh
 * no cycle put more than 142 back, so a cap of 1,024 changes no
 * estimate there, and costs the default benchmark cycle 0.8% more
 * instructions (692.0 against 686.1 M Ir). */
#define QUOTA_REASK 1024

/* A queue's room over time.  quota_at asks, for a job under limits:
 * the first time t from now at which every queue on its way up with a
 * limit of its own lets its request in beside what that queue holds at
 * t: allocate's own test, at t.  What queue q holds at t is
 * y->alloc[q] (now) plus a step function of time:
 *   - each end event of q's subtree (quota_index's slots) takes off
 *     what it gives back, at its end;
 *   - each holder (a waiting job under q's limit answered before it,
 *     in quota_pass's order: by the time it fits, then y->jobs';
 *     quota_hold) adds its request at its floor and takes it off at
 *     its expected end (never, without one),
 *     so a job behind it is not expected in the room it takes while it
 *     runs (and is expected in the room it leaves before it starts).
 * The steps are kept in a treap by time (struct tnode: a search tree by
 * time, a heap by a priority drawn from a count of the nodes made, so
 * the same input builds the same tree), one node per distinct time with
 * its steps summed (d), and per subtree its steps' sum and, per
 * resource, the lowest running sum of its steps in time order (low).
 * What q holds at t is then alloc plus the sum of the steps at or
 * before t, and "the first time after lo at which that is at most a
 * level" is one descent (tn_from): a subtree whose lowest running sum,
 * after what comes before it, stays above the level is passed whole.
 * A holder is two point insertions (tn_add), O(log n) each with the sums
 * on their paths redone; the slots are laid out once per index
 * (tn_build: O(n), a Cartesian tree over the sorted ends).
 * tn_split, tn_bump, tn_insert and tn_from recurse down one path: the
 * priorities come from a count (splitmix64), never from the times, so
 * whatever times a trace gives, the depth is that of a random treap,
 * O(log n) with high probability (the deepest node about 4.3 ln n:
 * ~50 at 100,000 steps).
 * The answer is exact per queue and resource (tn_from), and the job's
 * is the first time all of them agree: each moves t to its own first
 * fit at or after t until none moves; a time that fits all fits each,
 * so none is passed.  A later holder may then be late: its estimate,
 * not this one, was the guess.
 * Until 2026-12-06 (the fifty-ninth session) this was a walk from now
 * over a queue's slot ends and holders, bounded at 4,096 steps a job
 * and 131,072 a cycle, past which a job kept an upper bound (each holder
 * counted from now to its end): the 10,000-node benchmark passed the
 * bound.  The treap answers every job it is asked about exactly.
 * The question is allocate's, at the start alone, not "room for the
 * whole run": allocate starts a job whenever the limits let it in, and
 * a holder that starts later is then held back, not the job. */
struct tnode {
	fw_time key;            /* when */
	uint64_t prio;
	struct fw_res d;        /* what q's holdings change by at key */
	struct fw_res sum, low; /* the subtree's steps together; the lowest
				 * running sum of them, in time order */
	struct tnode *l, *r;
};

/* A holder, as quota_hold was given it (the treaps are remade when
 * fw__resv_events adds end events: quota_index lays them in again). */
struct hlog {
	int32_t job;
	fw_time at;
	struct hlog *next;
};
/* Does need fit every limit of chain[0 .. d), beside held? */
static bool quota_fits(const struct fw_snapshot *s, const int32_t *chain, int32_t d, const struct fw_res *held,
		       struct fw_res need)
{
	for (int32_t a = 0; a < d; a++)
		if (excess(&s->queues[chain[a]], held[a], need) > 0)
			return false;
	return true;
}

/* What chain[0 .. d) holds now, into held: y->alloc plus the holders
 * under each (e->qsum, kept by quota_hold). */
static void quota_held(const struct est *e, const int32_t *chain, int32_t d, struct fw_res *held)
{
	const struct cyc *y = e->y;

	for (int32_t a = 0; a < d; a++)
		held[a] = e->qsum ? fw_res_add(y->alloc[chain[a]], e->qsum[chain[a]]) : y->alloc[chain[a]];
}

/* Is end event v an evicted running job's (its room is not its to give
 * back at its end: the reclaim phase took it now)? */
static bool ev_evicted(const struct cyc *y, const struct ev *v)
{
	return y->evicted && y->evicted[v->job] && y->s->jobs[v->job].state == FW_JOB_RUNNING;
}

/* ---- the room treaps (struct tnode) ------------------------------- */

static struct fw_res tn_sum(const struct tnode *t)
{
	return t ? t->sum : fw_res_zero();
}

/* Redo t's sum and low from its children's, in resources [0, nk) (the
 * others no queue limits: e->nk). */
static void tn_update(struct tnode *t, int nk)
{
	if (nk == 1) { /* GPUs alone: the usual case, kept short */
		int64_t at = (t->l ? t->l->sum.v[0] : 0) + t->d.v[0], lo = at;
		if (t->l && t->l->low.v[0] < lo)
			lo = t->l->low.v[0];
		if (t->r && at + t->r->low.v[0] < lo)
			lo = at + t->r->low.v[0];
		t->low.v[0] = lo;
		t->sum.v[0] = at + (t->r ? t->r->sum.v[0] : 0);
		return;
	}
	struct fw_res ls = tn_sum(t->l), rs = tn_sum(t->r);

	for (int k = 0; k < nk; k++) {
		int64_t at = ls.v[k] + t->d.v[k], lo = at;
		if (t->l && t->l->low.v[k] < lo)
			lo = t->l->low.v[k];
		if (t->r && at + t->r->low.v[k] < lo)
			lo = at + t->r->low.v[k];
		t->low.v[k] = lo;
		t->sum.v[k] = at + rs.v[k];
	}
}

/* A node at key with step d, its priority a mix of the nodes made so
 * far (splitmix64). */
static void tn_init(struct est *e, struct tnode *x, fw_time key, struct fw_res d)
{
	uint64_t z = ++e->nnodes * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	*x = (struct tnode){ key, z ^ (z >> 31), d, d, d, NULL, NULL };
}

/* Split treap t into the nodes keyed at or before key (*a) and the
 * rest (*b). */
static void tn_split(struct tnode *t, fw_time key, struct tnode **a, struct tnode **b, int nk)
{
	if (!t) {
		*a = *b = NULL;
	} else if (t->key <= key) {
		tn_split(t->r, key, &t->r, b, nk);
		tn_update(t, nk);
		*a = t;
	} else {
		tn_split(t->l, key, a, &t->l, nk);
		tn_update(t, nk);
		*b = t;
	}
}

/* Add d to the node of t keyed at key, its ancestors' sums redone:
 * false when t has none. */
static bool tn_bump(struct tnode *t, fw_time key, struct fw_res d, int nk)
{
	if (!t)
		return false;
	if (t->key == key)
		t->d = fw_res_add(t->d, d);
	else if (!tn_bump(key < t->key ? t->l : t->r, key, d, nk))
		return false;
	tn_update(t, nk);
	return true;
}

/* Insert x (its key not in *slot) under *slot: down while the nodes
 * outrank it, then the subtree there splits under it. */
static void tn_insert(struct tnode **slot, struct tnode *x, int nk)
{
	struct tnode *t = *slot;

	if (!t || x->prio > t->prio) {
		tn_split(t, x->key, &x->l, &x->r, nk);
		tn_update(x, nk);
		*slot = x;
		return;
	}
	tn_insert(x->key < t->key ? &t->l : &t->r, x, nk);
	tn_update(t, nk);
}

/* Add step d at key to treap *root: O(log n). */
static int tn_add(struct est *e, struct tnode **root, fw_time key, struct fw_res d)
{
	struct tnode *x;

	if (tn_bump(*root, key, d, e->nk))
		return FW_OK;
	if (!(x = FW_ARENA_RAW(e->y->a, struct tnode, 1)))
		return FW_ENOMEM;
	tn_init(e, x, key, d);
	tn_insert(root, x, e->nk);
	return FW_OK;
}

/* The treap of nodes x[0 .. n), keyed in increasing order: a Cartesian
 * tree by priority, built with a stack of its right spine (st, room for
 * n); each node's sums are redone when it leaves the spine, its
 * subtree then complete.  O(n). */
static struct tnode *tn_build(struct tnode *x, int32_t n, struct tnode **st, int nk)
{
	int32_t top = 0;

	for (int32_t i = 0; i < n; i++) {
		struct tnode *last = NULL;
		while (top > 0 && st[top - 1]->prio < x[i].prio) {
			last = st[--top];
			tn_update(last, nk);
		}
		x[i].l = last;
		if (top > 0)
			st[top - 1]->r = &x[i];
		st[top++] = &x[i];
	}
	while (top > 0)
		tn_update(st[--top], nk);
	return n > 0 ? st[0] : NULL;
}

/* The first node of t at which acc (the steps before t) plus the
 * running sum of resource k is at most lim; NULL when none.  One
 * descent, led by the children's lows. */
static const struct tnode *tn_first_low(const struct tnode *t, int64_t acc, int k, int64_t lim)
{
	while (t) {
		if (t->l && acc + t->l->low.v[k] <= lim) {
			t = t->l;
			continue;
		}
		acc += tn_sum(t->l).v[k] + t->d.v[k];
		if (acc <= lim)
			return t;
		if (!t->r || acc + t->r->low.v[k] > lim)
			return NULL;
		t = t->r;
	}
	return NULL;
}

/* The first time from lo at which acc (the steps before t) plus the
 * steps of t at or before it, in resource k, are at most lim: lo
 * itself, or the first node of t keyed after lo, FW__NEVER when none.
 * Down the path to lo (at its end acc holds every step at or before
 * lo); on the way back each subtree wholly after lo is asked by its low
 * alone, and descended (tn_first_low) only where it holds the answer:
 * O(depth). */
static fw_time tn_from(const struct tnode *t, fw_time lo, int64_t acc, int k, int64_t lim)
{
	const struct tnode *f;
	fw_time u;

	while (t && t->key <= lo) {
		acc += tn_sum(t->l).v[k] + t->d.v[k];
		t = t->r;
	}
	if (!t)
		return acc <= lim ? lo : FW__NEVER;
	if ((u = tn_from(t->l, lo, acc, k, lim)) != FW__NEVER)
		return u;
	acc += tn_sum(t->l).v[k] + t->d.v[k];
	if (acc <= lim)
		return t->key;
	if (!t->r || acc + t->r->low.v[k] > lim || !(f = tn_first_low(t->r, acc, k, lim)))
		return FW__NEVER;
	return f->key;
}

/* ---- the room treaps of the queues --------------------------------- */

/* Lay holder j, expected no sooner than at, into queue q's room
 * treap: its request from at to its expected end (for ever without
 * one). */
static int room_put(struct est *e, int32_t q, int32_t j, fw_time at)
{
	const struct fw_job *job = &e->y->s->jobs[j];
	fw_time rt = fw__runtime(e->y, job);
	struct fw_res req = fw_job_request(job);

	if (tn_add(e, &e->room[q], at, req) != FW_OK ||
	    (rt > 0 && tn_add(e, &e->room[q], at + rt, fw_res_sub(fw_res_zero(), req)) != FW_OK))
		return FW_ENOMEM;
	return FW_OK;
}

/* Hold job j, expected no sooner than at, in the room of each queue on
 * its way up with a limit of its own: laid into its treap when it has
 * one, else queued for it (room_ready). */
static int room_hold(struct est *e, int32_t j, fw_time at)
{
	const struct fw_snapshot *s = e->y->s;

	for (int32_t q = s->jobs[j].queue, n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++) {
		if (!fw_queue_has_limit(&s->queues[q]))
			continue;
		if (e->built[q]) {
			if (room_put(e, q, j, at) != FW_OK)
				return FW_ENOMEM;
			continue;
		}
		struct hlog *h = FW_ARENA_RAW(e->y->a, struct hlog, 1);
		if (!h)
			return FW_ENOMEM;
		*h = (struct hlog){ j, at, e->qwait[q] };
		e->qwait[q] = h;
	}
	return FW_OK;
}

/* One pass over the end events, in next_end's order: count (fill NULL
 * slots) or fill each event's slot in every queue with a limit of its
 * own on its job's way up. */
static void index_pass(struct est *e, const bool *own, bool cpu_mem, int32_t *cnt, int32_t *evq, bool fill)
{
	struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	int32_t i = 0, k = 0, m = 0;
	bool run;

	for (const struct ev *v; (v = next_end(y, &i, &k, &run)); m++) {
		struct fw_res u;
		bool got = false;
		if (!fill) /* the job's queue, -1 for an evicted one: read once */
			evq[m] = ev_evicted(y, v) ? -1 : y->ji[v->job].queue;
		for (int32_t q = evq[m], n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++) {
			if (!own[q])
				continue;
			if (!fill) {
				cnt[q]++;
				continue;
			}
			if (!got) {
				u = ev_use(s, v, cpu_mem);
				got = true;
			}
			struct tnode *x = &e->slot[e->qfirst[q] + cnt[q]++];
			x->key = v->end;
			x->d = fw_res_sub(fw_res_zero(), u);
		}
	}
}

/* Queue q's room treap, made on its first question (a queue every job
 * fits beside every holder is never asked one): its slots (e->slot[qfirst[q] .. qfirst[q + 1]), in time order)
 * laid out, those of one time as one node, then the holders queued for
 * it laid in. */
static int room_ready(struct est *e, int32_t q)
{
	struct tnode *x = &e->slot[e->qfirst[q]];
	int32_t n = e->qfirst[q + 1] - e->qfirst[q], m = 0;

	if (e->built[q])
		return FW_OK;
	for (int32_t i = 0; i < n; i++) {
		if (m > 0 && x[m - 1].key == x[i].key)
			x[m - 1].d = fw_res_add(x[m - 1].d, x[i].d);
		else
			x[m++] = x[i];
	}
	for (int32_t i = 0; i < m; i++)
		tn_init(e, &x[i], x[i].key, x[i].d);
	e->room[q] = tn_build(x, m, e->st, e->nk);
	e->built[q] = true;
	for (const struct hlog *h = e->qwait[q]; h; h = h->next)
		if (room_put(e, q, h->job, h->at) != FW_OK)
			return FW_ENOMEM;
	return FW_OK;
}

/* The slots of the room treaps (e->slot, struct tnode) for the end
 * events as they are now, the holders so far queued for them (rebuilt
 * when fw__resv_events added events).  O(events x depth), once: every
 * quota_at after it descends a treap per queue, where it walked every
 * end event before (1,028 M of the 1,301 M instructions of a cycle at
 * 4,000 nodes and 400 queues). */
static int quota_index(struct est *e)
{
	struct cyc *y = e->y;
	int32_t nq = y->s->nqueues, *cnt, *evq;
	bool *own, cpu_mem = false;

	if (e->room && e->qi_run == y->nev_run && e->qi_st == y->nev_st)
		return FW_OK;
	e->qfirst = FW_ARENA_NEW(y->a, int32_t, (size_t)nq + 1);
	e->room = FW_ARENA_NEW(y->a, struct tnode *, (size_t)nq + 1);
	e->built = FW_ARENA_NEW(y->a, bool, (size_t)nq + 1);
	e->qwait = FW_ARENA_NEW(y->a, struct hlog *, (size_t)nq + 1);
	cnt = FW_ARENA_NEW(y->a, int32_t, (size_t)nq + 1);
	own = FW_ARENA_NEW(y->a, bool, (size_t)nq + 1);
	evq = FW_ARENA_RAW(y->a, int32_t, (size_t)y->nev_run + (size_t)y->nev_st + 1);
	if (!e->qfirst || !e->room || !e->built || !e->qwait || !cnt || !own || !evq)
		return FW_ENOMEM;
	for (int32_t q = 0; q < nq; q++) {
		const struct fw_res *lim = &y->s->queues[q].limit;
		own[q] = fw_queue_has_limit(&y->s->queues[q]);
		cpu_mem |= lim->v[FW_RES_CPU] != FW_UNLIMITED || lim->v[FW_RES_MEM] != FW_UNLIMITED;
		for (int k = e->nk; k < FW_RES_COUNT; k++)
			if (lim->v[k] != FW_UNLIMITED)
				e->nk = k + 1;
	}
	index_pass(e, own, cpu_mem, cnt, evq, false);
	for (int32_t q = 0; q < nq; q++) {
		e->qfirst[q + 1] = e->qfirst[q] + cnt[q];
		cnt[q] = 0;
	}
	e->slot = FW_ARENA_RAW(y->a, struct tnode, (size_t)e->qfirst[nq] + 1);
	e->st = FW_ARENA_RAW(y->a, struct tnode *, (size_t)e->qfirst[nq] + 1);
	if (!e->slot || !e->st)
		return FW_ENOMEM;
	index_pass(e, own, cpu_mem, cnt, evq, true);
	e->qi_run = y->nev_run;
	e->qi_st = y->nev_st;
	for (const struct hlog *h = e->hlog; h; h = h->next)
		if (room_hold(e, h->job, h->at) != FW_OK)
			return FW_ENOMEM;
	return FW_OK;
}

/* ---- a queue's answer, a job's answer ------------------------------ */

/* One limit a job's request must pass: queue q's on resource k. */
struct qlim {
	int32_t q;
	int k;
};

/* The limits of chain[0 .. d) the job's request (need) is to be asked
 * about, into lims: each limited resource of each queue it does not fit
 * now beside every holder (held: a queue it fits so fits it at every
 * time), those queues' room treaps made (room_ready).  Their count; -1
 * when a treap could not be made (out of memory: the start reads
 * unknown, as when quota_index fails). */
static int32_t quota_lims(struct est *e, const int32_t *chain, int32_t d, const struct fw_res *held,
			  struct fw_res need, struct qlim *lims)
{
	const struct fw_snapshot *s = e->y->s;
	int32_t n = 0;

	for (int32_t a = 0; a < d; a++) {
		const struct fw_queue *lq = &s->queues[chain[a]];
		if (excess(lq, held[a], need) <= 0)
			continue;
		if (room_ready(e, chain[a]) != FW_OK)
			return -1;
		for (int k = 0; k < FW_RES_COUNT; k++)
			if (lq->limit.v[k] != FW_UNLIMITED)
				lims[n++] = (struct qlim){ chain[a], k };
	}
	return n;
}

/* The first time from t at which every limit of lims[0 .. n) lets need
 * in beside what its queue holds then (struct tnode); FW__NEVER when
 * none.  Each limit moves t to its own first fit at or after t (one
 * descent, tn_from), until a whole round moves it no more: a time that
 * fits all fits each, so none is passed, and the answer is the least
 * such time whatever the order. */
static fw_time room_all(const struct est *e, const struct qlim *lims, int32_t n, struct fw_res need, fw_time t)
{
	fw_time ok[QUOTA_DEPTH * FW_RES_COUNT]; /* per limit: the t it fits at */

	for (int32_t i = 0; i < n; i++)
		ok[i] = FW__NEVER;
	for (int32_t i = 0, left = n; left > 0; i = (i + 1) % n) {
		int32_t q = lims[i].q;
		int k = lims[i].k;
		if (ok[i] == t)
			continue;
		fw_time u = tn_from(e->room[q], t, 0, k, e->y->s->queues[q].limit.v[k] - need.v[k] - e->y->alloc[q].v[k]);
		if (u == FW__NEVER)
			return FW__NEVER;
		if (u > t) { /* the others must be asked again at u */
			t = u;
			left = n;
		}
		ok[i] = t;
		left--;
	}
	return t;
}

/* Job j's floor under limits (QA est-over-quota): the first time from
 * lo (now or later) at which no queue on its way up is passed by its
 * request beside what the queue holds then (y->alloc less the ended
 * jobs of its subtree, plus the holders running then: room_all).
 * FW_TIME_UNKNOWN when never: a job with no expected end holds the room
 * for ever. */
static fw_time quota_at(struct est *e, int32_t j, fw_time lo)
{
	struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	struct fw_res need = fw_job_request(&s->jobs[j]), held[QUOTA_DEPTH];
	struct qlim lims[QUOTA_DEPTH * FW_RES_COUNT];
	int32_t chain[QUOTA_DEPTH], d = 0, n;
	fw_time t;

	for (int32_t q = s->jobs[j].queue; q >= 0 && d < QUOTA_DEPTH; q = s->queues[q].parent)
		chain[d++] = q;
	if (d == QUOTA_DEPTH || fw__resv_events(y) != FW_OK)
		return FW_TIME_UNKNOWN;
	quota_held(e, chain, d, held);
	if (quota_fits(s, chain, d, held, need))
		return lo; /* the reclaim phase's evictions made room */
	if (quota_index(e) != FW_OK || (n = quota_lims(e, chain, d, held, need, lims)) < 0)
		return FW_TIME_UNKNOWN;
	t = n > 0 ? room_all(e, lims, n, need, lo) : lo;
	return t == FW__NEVER ? FW_TIME_UNKNOWN : t;
}

/* Add holder j's request to e->qsum of each queue on its way up, so
 * quota_held reads what the holders hold under a queue in O(1), not
 * O(holders) per job. */
static int hold_sum(struct est *e, int32_t j)
{
	const struct fw_snapshot *s = e->y->s;
	struct fw_res need = fw_job_request(&s->jobs[j]);

	if (!e->qsum && !(e->qsum = FW_ARENA_NEW(e->y->a, struct fw_res, (size_t)s->nqueues + 1)))
		return FW_ENOMEM;
	for (int32_t q = s->jobs[j].queue, n = 0; q >= 0 && n <= s->nqueues; q = s->queues[q].parent, n++)
		e->qsum[q] = fw_res_add(e->qsum[q], need);
	return FW_OK;
}

/* Hold job j, expected no sooner than at, under its queues (qsum) and
 * in the room treaps of each with a limit of its own (logged, for a
 * rebuild), so the jobs behind it count its room as taken while it
 * runs. */
static int quota_hold(struct est *e, int32_t j, fw_time at)
{
	struct hlog *h = FW_ARENA_RAW(e->y->a, struct hlog, 1);
	int rc;

	if (!h)
		return FW_ENOMEM;
	if ((rc = quota_index(e)) != FW_OK)
		return rc;
	*h = (struct hlog){ j, at, e->hlog };
	e->hlog = h;
	if ((rc = room_hold(e, j, at)) != FW_OK)
		return rc;
	return hold_sum(e, j);
}

/* A waiting job's estimate, never now (fw__not_now).  A shape fits at
 * now in the walk only on room this plan frees without filling it: the
 * victims' room its preemptors left (the reclaim phase runs after
 * allocate; the shapes that failed there are retried then, see
 * sort_out), a running job's past its expected end (its end event is at
 * now), or when the cycle's start bound stopped allocate (CYCLE_LIMIT,
 * untried); a reservation at now is one such too. */
static fw_time not_now(const struct fw_snapshot *s, fw_time t)
{
	return fw__not_now(s->now, t);
}

static void set_unknown(struct fw_pending *r, enum fw_reason why, int64_t a, int64_t b)
{
	r->expected_start = FW_TIME_UNKNOWN;
	r->unknown_why = why;
	r->why_a = a;
	r->why_b = b;
}

/* An over-quota job's unknown start: QUEUE_LIMIT when it alone needs
 * more than the limit that binds (allocate's over_limit names that one
 * first), a = its need: it never starts while that limit holds. */
static void quota_unknown(const struct cyc *y, int32_t j, struct fw_pending *r)
{
	int32_t q = r->reason == FW_REASON_OVER_QUOTA ? FW_LIMIT_QUEUE(r->b) : -1;
	int k = FW_LIMIT_RES(r->b);
	int64_t need = q >= 0 && q < y->s->nqueues ? fw_job_request(&y->s->jobs[j]).v[k] : 0;

	if (q >= 0 && q < y->s->nqueues && need > y->s->queues[q].limit.v[k])
		set_unknown(r, FW_REASON_QUEUE_LIMIT, need, r->b);
	else
		set_unknown(r, r->reason, r->a, r->b);
}

/* Does quota_floor answer over-quota job r?  Not for a GPU model's
 * limit, a limit it passes alone (QUEUE_LIMIT, quota_unknown) and under
 * a GPU-hour budget, whose own rules would have to count too: its start
 * reads unknown. */
static bool quota_answers(const struct cyc *y, const struct fw_pending *r)
{
	int32_t q = FW_LIMIT_QUEUE(r->b), j = r->job;
	int k = FW_LIMIT_RES(r->b);

	if (r->reason != FW_REASON_OVER_QUOTA || q < 0 || q >= y->s->nqueues ||
	    fw_job_request(&y->s->jobs[j]).v[k] > y->s->queues[q].limit.v[k])
		return false;
	return !fw__over_budget(y, y->ji[j].queue, NULL) && !(y->qleft && y->jneed[j] > 0);
}

/* Starving gang j, over quota, lets in no job its limits hold before
 * its own floor at (e->hfrom, read by limit_floor for LIMIT_HELD). */
static void note_holder(struct est *e, int32_t j, fw_time at)
{
	const struct cyc *y = e->y;

	if (!e->hfrom)
		return;
	for (int32_t q = y->s->jobs[j].queue, n = 0; q >= 0 && n <= y->s->nqueues; q = y->s->queues[q].parent, n++)
		if (y->held[q].job == j)
			e->hfrom[q] = at;
}

/* The pending entry of the starving gang that job r waits for
 * (LIMIT_HELD, allocate.c hold_limits: a = the gang, b = the queue),
 * NULL when r waits for none. */
static const struct fw_pending *held_by(const struct cyc *y, const struct fw_pending *r)
{
	if (r->reason != FW_REASON_LIMIT_HELD || r->a < 0 || r->a >= y->s->njobs || r->b < 0 ||
	    r->b >= y->s->nqueues)
		return NULL;
	return &y->reason[r->a];
}

/* When a starving gang lets in job r, which waits for it (LIMIT_HELD,
 * allocate.c hold_limits): the gang's reservation, or its floor when
 * its limits hold it (answered first: after_holder); 0 = now. */
static fw_time holder_from(const struct est *e, const struct fw_pending *r)
{
	const struct fw_pending *h = held_by(e->y, r);

	if (!h || !e->hfrom)
		return 0;
	if (h->reason == FW_REASON_HAS_RESERVATION)
		return h->expected_start == FW_TIME_UNKNOWN ? 0 : h->expected_start;
	return e->hfrom[r->b];
}

/* Job r waits for a starving gang (LIMIT_HELD) that quota_pass has not
 * answered yet: a second past the gang's first fit from lo (it only
 * moves later), when r is to be asked again; lo when the gang is
 * answered, reserved, or never let in (then r goes on alone). */
static fw_time holder_wait(struct est *e, const struct fw_pending *r, fw_time lo)
{
	const struct fw_pending *h = held_by(e->y, r);
	fw_time t;

	if (!h || !e->hfrom || e->hfrom[r->b] || !quota_answers(e->y, h))
		return lo;
	t = quota_at(e, (int32_t)r->a, lo);
	return t == FW_TIME_UNKNOWN || t < lo ? lo : t + 1;
}

/* Over-quota job r's floor (at position i of y->jobs): at, when its
 * queues' limits let it in (quota_at, quota_pass), never now; it then
 * holds its room for the jobs answered after it (quota_hold).  One
 * quota_pass never answers keeps 0 (unknown: quota_answers says no, or
 * no limit ever lets it in). */
static int quota_floor(struct est *e, int32_t i, const struct fw_pending *r, fw_time at)
{
	e->floor[i] = not_now(e->y->s, at);
	note_holder(e, r->job, e->floor[i]);
	return quota_hold(e, r->job, e->floor[i]);
}

/* A waiting job r (at position i) that is not over quota but under a
 * limit: the over-quota jobs and the others of such queues answered
 * before it (quota_pass) hold their room (quota_hold), so it is no
 * sooner than at, when the limits let it in beside them (its floor, when
 * later than now), and it holds its own room for the jobs answered
 * after it.  Under strict order the jobs behind the head (HEAD_OF_LINE)
 * were never tried against the limit at all. */
static int limit_floor(struct est *e, int32_t i, const struct fw_pending *r, fw_time at)
{
	struct cyc *y = e->y;

	if (at > y->s->now)
		e->floor[i] = at;
	return quota_hold(e, r->job, not_now(y->s, at));
}

/* The shape of the job at position i of y->jobs: the allocate memo's
 * shape when it has one (no need to read the 576-byte job record). */
static int32_t shape_at(struct est *e, int32_t i)
{
	struct cyc *y = e->y;
	int32_t m = y->pos_shape[i], j = y->jobs[i];
	struct fw__shape k;

	if (m >= 0 && e->from_memo[m] > 0)
		return e->from_memo[m] - 1;
	if (m >= 0)
		k = y->shapes[m];
	else
		fw__shape_of(&y->c, j, &y->s->jobs[j], &k);
	int32_t id = intern(e, &k, j);
	if (m >= 0 && id >= 0)
		e->from_memo[m] = id + 1;
	return id;
}

/* A job whose floor its queues' limits set (quota_floor, limit_floor),
 * answered after the others (quota_pass): the time from which it is
 * next asked, in seconds from now (g), its position in y->jobs (or in
 * quota_pass's list). */
struct qjob {
	int64_t g;
	int32_t i;
};

/* Is a before b: by g, then by i? */
static bool qjob_before(struct qjob a, struct qjob b)
{
	return a.g < b.g || (a.g == b.g && a.i < b.i);
}

/* Push x onto the binary min-heap h[0 .. *n) (qjob_before): O(log n). */
static void qheap_push(struct qjob *h, int32_t *n, struct qjob x)
{
	int32_t c = (*n)++;

	for (int32_t p; c > 0 && qjob_before(x, h[p = (c - 1) / 2]); c = p)
		h[c] = h[p];
	h[c] = x;
}

/* Pop the least of the min-heap h[0 .. *n) (n > 0): O(log n). */
static struct qjob qheap_pop(struct qjob *h, int32_t *n)
{
	struct qjob top = h[0], x = h[--*n];
	int32_t c = 0;

	for (int32_t m; (m = 2 * c + 1) < *n; c = m) {
		if (m + 1 < *n && qjob_before(h[m + 1], h[m]))
			m++;
		if (!qjob_before(h[m], x))
			break;
		h[c] = h[m];
	}
	h[c] = x;
	return top;
}

/* Is the job at position i one whose floor its limits set: over quota,
 * or under a limit and among the first QUOTA_LIMITED such (in try
 * order)?  Then it is queued in q for quota_pass. */
static bool defer(struct est *e, struct qjob *q, int32_t *nq, int32_t i, bool quota, bool other)
{
	struct cyc *y = e->y;
	int32_t j = y->jobs[i];

	if (!quota && (!other || e->nlimited >= QUOTA_LIMITED || !e->limited[y->ji[j].queue]))
		return false; /* past the first QUOTA_LIMITED, no job's queue is read */
	if (!quota)
		e->nlimited++;
	q[(*nq)++] = (struct qjob){ 0, i };
	return true;
}

/* Intern the job at position i by shape; tried: allocate tried it this
 * cycle and capacity only shrank since, so the shape does not fit at
 * now (unless the reclaim phase evicted: the victims' room that its
 * preemptors did not take is new). */
static int intern_at(struct est *e, int32_t i, bool tried)
{
	if ((e->shape[i] = shape_at(e, i)) < 0)
		return FW_ENOMEM;
	if (tried && !e->y->reclaimed)
		e->tried_now[e->shape[i]] = true;
	return FW_OK;
}

/* Was the job of pending reason r tried this cycle (allocate's label)? */
static bool was_tried(const struct fw_pending *r)
{
	return r->reason != FW_REASON_CYCLE_LIMIT && r->reason != FW_REASON_HEAD_OF_LINE &&
	       r->reason != FW_REASON_LIMIT_HELD;
}

static bool is_quota(const struct fw_pending *r)
{
	return r->reason == FW_REASON_OVER_QUOTA || r->reason == FW_REASON_MODEL_LIMIT;
}

/* A job's time alone (quota_at before any holder is laid in) depends
 * only on its queue and its request: the last answer per hash of the
 * two (QUOTA_ALONE slots, direct-mapped, the key compared whole) is
 * reused, as most waiting jobs share their queue's few shapes. */
#define QUOTA_ALONE 1024

struct alone {
	int32_t q;              /* -1: empty */
	struct fw_res need;
	fw_time t;
};

static fw_time quota_alone(struct est *e, struct alone *memo, int32_t j)
{
	const struct fw_job *job = &e->y->s->jobs[j];
	struct fw_res need = fw_job_request(job);
	uint64_t h = (uint64_t)(uint32_t)job->queue * 0x9e3779b97f4a7c15ull;

	for (int k = 0; k < FW_RES_COUNT; k++)
		h = (h ^ (uint64_t)need.v[k]) * 0xbf58476d1ce4e5b9ull;
	struct alone *a = &memo[(h >> 32) % QUOTA_ALONE];
	if (a->q == job->queue && !memcmp(&a->need, &need, sizeof need))
		return a->t;
	*a = (struct alone){ job->queue, need, quota_at(e, j, e->y->s->now) };
	return a->t;
}

/* A job whose limit a starving gang holds (LIMIT_HELD, allocate.c
 * hold_limits) is answered after that gang, whose room is laid in first:
 * no sooner than a second past the gang's time alone (t: its own). */
static fw_time after_holder(struct est *e, struct alone *memo, const struct fw_pending *r, fw_time t)
{
	const struct fw_pending *h = held_by(e->y, r);
	fw_time th;

	if (!h || !quota_answers(e->y, h) || (th = quota_alone(e, memo, (int32_t)r->a)) == FW_TIME_UNKNOWN)
		return t;
	return th >= t ? th + 1 : t;
}

/* Jobs of one queue with one request asked from one time get the same
 * answers: quota_pass asks one of them for all, the first in position
 * order, the others behind it in that order (a class).  The classes of
 * q[0 .. n) (g each one's time alone), into nxt (per job, the next of
 * its class, -1 none), their first jobs pushed onto heap h (*nh): one
 * pass, a hash table of the classes' first jobs (tab, m slots, a power
 * of two over 2n; last: per first job, its class's last). */
static void quota_classes(struct est *e, const struct qjob *q, int32_t n, int32_t *tab, size_t m,
			  int32_t *last, int32_t *nxt, struct qjob *h, int32_t *nh)
{
	const struct cyc *y = e->y;

	for (size_t k = 0; k < m; k++)
		tab[k] = -1;
	for (int32_t k = 0; k < n; k++) {
		const struct fw_job *jk = &y->s->jobs[y->jobs[q[k].i]];
		struct fw_res need = fw_job_request(jk);
		uint64_t hv = ((uint64_t)(uint32_t)jk->queue ^ (uint64_t)q[k].g << 20) * 0x9e3779b97f4a7c15ull;
		nxt[k] = -1;
		if (q[k].g < 0)
			continue; /* no limit ever lets it in */
		for (int r = 0; r < FW_RES_COUNT; r++)
			hv = (hv ^ (uint64_t)need.v[r]) * 0xbf58476d1ce4e5b9ull;
		size_t at = (size_t)(hv >> 32) & (m - 1);
		for (;; at = (at + 1) & (m - 1)) {
			int32_t f = tab[at];
			if (f < 0) {
				tab[at] = last[k] = k;
				qheap_push(h, nh, (struct qjob){ q[k].g, k });
				break;
			}
			const struct fw_job *jf = &y->s->jobs[y->jobs[q[f].i]];
			struct fw_res nf = fw_job_request(jf);
			if (jf->queue == jk->queue && q[f].g == q[k].g && !memcmp(&nf, &need, sizeof need)) {
				nxt[last[f]] = k;
				last[f] = k;
				break;
			}
		}
	}
}

/* A starving gang that holds its queues' limits (allocate.c
 * hold_limits) and has a reservation runs from the reservation on: it is
 * laid in there as a holder, once, before any job is asked, so a job it
 * holds out (LIMIT_HELD) reads the room the limit leaves beside it, after
 * its end where it fills the limit.  (quota_pass answers only an
 * over-quota gang, and before, a reserved one was in no limit's room: a
 * job behind it read the limit as if the gang did not run.) */
static int hold_reserved(struct est *e)
{
	const struct cyc *y = e->y;
	const struct fw_snapshot *s = y->s;
	int rc;

	if (!y->held)
		return FW_OK;
	for (int32_t q = 0; q < s->nqueues; q++) {
		int32_t g = y->held[q].job, first = -1;
		if (g < 0 || g >= s->njobs || y->reason[g].reason != FW_REASON_HAS_RESERVATION ||
		    y->reason[g].expected_start == FW_TIME_UNKNOWN)
			continue;
		for (int32_t u = s->jobs[g].queue, n = 0; u >= 0 && n <= s->nqueues && first < 0;
		     u = s->queues[u].parent, n++)
			if (y->held[u].job == g)
				first = u;
		if (first == q && (rc = quota_hold(e, g, y->reason[g].expected_start)) != FW_OK)
			return rc;
	}
	return FW_OK;
}

/* Step 1c: the jobs whose floor their limits set (q[0 .. n), in
 * position order), answered as allocate would start them under the
 * limits, cycle after cycle: in time order, and at one time in try
 * order, whatever fits the room the limits leave then.  So each is
 * asked first from its time alone (no holder laid in: a lower bound, as
 * holders only take room), and the one asked from the earliest time
 * (position breaking ties) is answered next: at that time when its
 * limits let it in there beside the holders so far (quota_floor,
 * limit_floor: it holds its room from then for the ones answered
 * after), else asked again from its first fit (quota_at), unless none
 * is to be asked before that, so the answers never go back in time
 * (past QUOTA_REASK such returns a cycle, a job commits at its first
 * fit, as when each was asked once).  Jobs of one queue and request
 * asked from one time are asked as one (quota_classes): the first, and
 * the next once it commits.
 * The room a bigger job cannot use yet goes to the smaller ones behind
 * it that fit, as in allocate, and no holder is laid in before one
 * answered earlier, whose room it would take while already counted
 * (ITP cluster06 over 6 queues at 16/16: answered once each in the
 * order of their times alone, the 1-GPU jobs laid in beside the 8-GPU
 * ones of their queue took room already counted as the 8-GPU jobs',
 * and the jobs answered after them read tens of hours late; median
 * |err| 6.95 -> 3.92 h, 17/32 2.83 -> 2.73, 10/24 2.53 -> 2.49).  A job
 * no limit ever lets in alone (quota_at unknown), or no more once
 * asked again, holds nothing.  Then each is interned by shape in
 * position order, as step 1 does. */
static int quota_pass(struct est *e, struct qjob *q, int32_t n)
{
	struct cyc *y = e->y;
	size_t m = 2;
	while (m < 2 * (size_t)n)
		m *= 2;
	struct qjob *h = FW_ARENA_RAW(y->a, struct qjob, (size_t)n + 1);
	struct alone *memo = FW_ARENA_RAW(y->a, struct alone, QUOTA_ALONE);
	int32_t *tab = FW_ARENA_RAW(y->a, int32_t, m), *last = FW_ARENA_RAW(y->a, int32_t, (size_t)n + 1);
	int32_t *nxt = FW_ARENA_RAW(y->a, int32_t, (size_t)n + 1);
	fw_time now = y->s->now;
	int32_t nh = 0;
	int32_t reask = QUOTA_REASK;

	if (!h || !memo || !tab || !last || !nxt)
		return FW_ENOMEM;
	for (int k = 0; k < QUOTA_ALONE; k++)
		memo[k].q = -1;
	int rc0 = hold_reserved(e);
	if (rc0 != FW_OK)
		return rc0;
	for (int32_t k = 0; k < n; k++) { /* alone: no holder but a reserved gang is laid in yet */
		const struct fw_pending *r = &y->reason[y->jobs[q[k].i]];
		fw_time t = !is_quota(r) || quota_answers(y, r) ? quota_alone(e, memo, r->job) : FW_TIME_UNKNOWN;
		t = t == FW_TIME_UNKNOWN ? t : after_holder(e, memo, r, t);
		q[k].g = t == FW_TIME_UNKNOWN ? -1 : t < now ? 0 : t - now;
	}
	quota_classes(e, q, n, tab, m, last, nxt, h, &nh);
	while (nh > 0) {
		struct qjob x = qheap_pop(h, &nh);
		int32_t k = x.i, i = q[k].i;
		const struct fw_pending *r = &y->reason[y->jobs[i]];
		fw_time lo = now + x.g, hf;
		if ((hf = holder_wait(e, r, lo)) > lo && reask > 0) { /* its gang first */
			reask--;
			qheap_push(h, &nh, (struct qjob){ hf - now, k });
			continue;
		}
		hf = holder_from(e, r);
		fw_time t = quota_at(e, r->job, hf > lo ? hf : lo);
		if (t == FW_TIME_UNKNOWN)
			continue; /* nor the rest of its class */
		if (t > now + x.g && nh > 0 && reask > 0 && qjob_before(h[0], (struct qjob){ t - now, k })) {
			reask--;
			qheap_push(h, &nh, (struct qjob){ t - now, k });
			continue;
		}
		int rc = is_quota(r) ? quota_floor(e, i, r, t) : limit_floor(e, i, r, t);
		if (rc != FW_OK)
			return rc;
		if (nxt[k] >= 0)
			qheap_push(h, &nh, (struct qjob){ t - now, nxt[k] });
	}
	for (int32_t k = 0; k < n; k++) {
		int32_t i = q[k].i, j = y->jobs[i];
		struct fw_pending *r = &y->reason[j];
		bool quota = is_quota(r);
		if (quota && !e->floor[i])
			quota_unknown(y, j, r);
		else if (intern_at(e, i, !quota && was_tried(r)) != FW_OK)
			return FW_ENOMEM;
	}
	return FW_OK;
}

/* Step 1: reserved jobs are answered at once; those whose floor a
 * budget sets get it; those whose floor a limit sets are queued for
 * quota_pass; the rest are interned by shape, in try order (y->jobs). */
static int sort_out(struct est *e, int32_t n)
{
	struct cyc *y = e->y;
	struct qjob *q = FW_ARENA_RAW(y->a, struct qjob, (size_t)n + 1);
	int32_t nq = 0;

	if (!q)
		return FW_ENOMEM;
	for (int32_t i = 0; i < n; i++) {
		int32_t j = y->jobs[i];
		struct fw_pending *r = &y->reason[j];
		if (i + FW__AHEAD < n)
			FW__PREFETCH(&y->reason[y->jobs[i + FW__AHEAD]], 1);
		e->shape[i] = -1;
		e->floor[i] = 0;
		e->held0[i] = 0;
		if (y->started[j])
			continue;
		if (r->reason == FW_REASON_HAS_RESERVATION) {
			r->expected_start = not_now(y->s, r->a);
			continue;
		}
		/* a job behind a strict line's head keeps allocate's label
		 * (as with no estimates) unless its budget makes its start
		 * unknown: w takes what the budget tests write */
		struct fw_pending lab, *w = r;
		if (r->reason == FW_REASON_HEAD_OF_LINE) {
			lab = *r;
			w = &lab;
		}
		/* over a budget, tried or not: its queue starts nothing until
		 * the usage falls below it (refill), if known */
		bool quota = is_quota(r);
		bool over = !quota && y->qbudget && fw__over_budget(y, y->ji[j].queue, w);
		/* short of a budget's left: no sooner than its run fits it */
		bool shrt = !quota && !over && y->qleft && fw__budget_short(y, j, w);
		int rc = shrt && !e->seg ? short_build(e, n) : FW_OK;
		if (rc != FW_OK)
			return rc;
		if (defer(e, q, &nq, i, quota, !over && !shrt))
			continue;
		if (shrt)
			e->floor[i] = short_at(e, j);
		else if (over)
			e->floor[i] = e->refill ? e->refill[y->ji[j].queue] : FW_TIME_UNKNOWN;
		if ((over || shrt) && e->floor[i] == FW_TIME_UNKNOWN)
			set_unknown(r, w->reason, w->a, w->b);
		else if (intern_at(e, i, !over && !shrt && was_tried(r)) != FW_OK)
			return FW_ENOMEM;
	}
	return nq > 0 ? quota_pass(e, q, nq) : FW_OK;
}

/* Did a one-group shape of sh's signature that asks no more CPU and
 * memory per task already fail in this round?  Then sh fails too: with
 * one group the tasks are alike, a node takes as many as its GPUs, CPU
 * and memory allow, and the domains tried do not depend on CPU or
 * memory, so fitting is monotone in them. */
static bool dominated(const struct est *e, int32_t sh)
{
	int32_t g = e->sig[sh];

	if (e->shp[sh].ngroups != 1 || e->stamp[g] != e->round)
		return false;
	for (int32_t f = e->head[g]; f >= 0; f = e->next_fail[f])
		if (e->shp[f].g[0].cpu <= e->shp[sh].g[0].cpu && e->shp[f].g[0].mem <= e->shp[sh].g[0].mem)
			return true;
	return false;
}

static void note_failure(struct est *e, int32_t sh)
{
	int32_t g = e->sig[sh];

	if (e->shp[sh].ngroups != 1)
		return;
	if (e->stamp[g] != e->round) {
		e->stamp[g] = e->round;
		e->head[g] = -1;
	}
	e->next_fail[sh] = e->head[g];
	e->head[g] = sh;
}

/* Could the last step have made filtered shape sh fit?  It did not at
 * the last round, and since then only the step's nodes changed, each
 * release only adding free GPUs: a placement that fits now uses one of
 * them (else it fitted before), inside one domain of the shape's
 * required level.  So some slot of its filter at that level (filter.c)
 * that holds a step node must now have the shape's whole GPUs free. */
static bool step_helps_filter(const struct est *e, const struct fw__cstate *cl, int32_t sh)
{
	const struct fw__shape *k = &e->shp[sh];
	int32_t f = (k->pad >> 1) - 1, ndl = cl->ndl, L = cl->s->topology.nlevels;
	int32_t dl = k->req == FW_LEVEL_NONE ? 0 : k->req == FW_LEVEL_NODE ? L + 1 : k->req + 1;

	for (int32_t i = 0; i < e->y->nstep_node; i++) {
		int32_t n = e->y->step_node[i];
		for (int32_t x = cl->fnode_first[n]; x < cl->fnode_first[n + 1]; x++)
			if (cl->fnode_list[x] == f && cl->fsum[cl->fnode_slot[(size_t)x * ndl + dl]] >= e->need[sh])
				return true;
	}
	return false;
}

/* The same for a shape with group filters (snapshot.h): a placement
 * that fits now puts a task of some group on a step node n that the
 * group may use, and every task inside n's domain d of the required
 * level.  So d has the gang's room (fw__room_near), and for each group
 * with a list of its own (filter.c indexes it) the list has a slot over
 * d with the group's whole GPUs free (a fractional group: the slot). */
static bool step_helps_groups(const struct est *e, const struct fw__cstate *cl, int32_t sh)
{
	const struct fw_snapshot *s = cl->s;
	int32_t jx = e->rep[sh], x0 = fw_snapshot_group_nodes_entry(s, jx), L = s->topology.nlevels;
	const struct fw_job *j = &s->jobs[jx];
	int32_t dl = j->required_level == FW_LEVEL_NONE ? 0 : j->required_level == FW_LEVEL_NODE ? L + 1
												   : j->required_level + 1;
	int32_t fid[FW_MAX_GROUPS];

	for (int g = 0; g < j->ngroups; g++)
		fid[g] = -1;
	for (int32_t x = x0; x >= 0 && x < s->ngroup_nodes && s->group_nodes[x].job == jx; x++)
		if (!s->group_nodes[x].except)
			fid[s->group_nodes[x].group] = cl->filter_id[s->njob_nodes + x];
	bool rigid = fw_job_min_tasks(j) == fw_job_tasks(j); /* elastic: a group may get no task */

	for (int32_t i = 0; i < e->y->nstep_node; i++) {
		int32_t n = e->y->step_node[i], d = fw__ancestor(cl, n, dl);
		bool ok = fw__room_near(cl, j, n, e->need[sh]);
		for (int g = 0; g < j->ngroups && ok && rigid; g++) {
			const struct fw_task_group *t = &j->groups[g];
			int32_t sl = fid[g] >= 0 ? fw__filter_slot_over(cl, fid[g], dl, d) : -2;
			ok = sl == -2 || (sl >= 0 && cl->fsum[sl] >= (t->gpu_milli == 1000 ? (int64_t)t->count * t->gpus : 0));
		}
		if (ok && fw__job_may_use(s, jx, n)) /* the dearer test last */
			return true;
	}
	return false;
}

bool fw__step_helps_gang(const struct fw__cstate *cl, const struct fw_job *j, int64_t need, const int32_t *step,
			 int32_t nstep)
{
	for (int32_t i = 0; i < nstep; i++)
		if (fw__room_near(cl, j, step[i], need))
			return true;
	return false;
}

/* Could the walk's last step have let shape sh in, which did not fit
 * before it (nothing but the step's nodes changed since, each gaining
 * room)?  A no is sure. */
static bool step_may_help(const struct est *e, struct fw__cstate *cl, int32_t sh, const struct fw__place_opts *o)
{
	const struct fw__shape *k = &e->shp[sh];

	/* one task fits now only on a node the step changed
	 * (fw__place_one_fits) */
	if (k->ngroups == 1 && k->g[0].count == 1 &&
	    !fw__place_one_fits(cl, e->rep[sh], o, e->y->step_node, e->y->nstep_node))
		return false;
	/* a shape with a node filter likewise, only if the step freed room
	 * for it in its filter (shapes differ by filter: cycle_int.h) */
	if ((k->pad >> 1) != 0)
		return cl->filter_except[(k->pad >> 1) - 1] || step_helps_filter(e, cl, sh);
	/* a gang likewise, only if the step freed room for it in a domain
	 * of its required level (for a group's list, in the list's slot) */
	return k->gjob ? step_helps_groups(e, cl, sh)
		       : fw__step_helps_gang(cl, &e->y->s->jobs[e->rep[sh]], e->need[sh], e->y->step_node,
					     e->y->nstep_node);
}

/* Could shape sh be placed on the clone now?  FW_OK, FW_EDECLINED, or
 * an error.  Cheap tests first. */
static int try_shape(struct est *e, struct fw__cstate *cl, int32_t sh, bool at_now, fw_time t)
{
	/* shapes do not know their jobs' runtimes: an away node takes one
	 * only once it is back (keep_away with no end) */
	struct fw__place_opts o = { .end = FW__NEVER, .ignore_resv = true, .keep_away = true, .start = t,
				    .dry = true };
	struct fw__placement p;

	if ((at_now && e->tried_now[sh]) || cl->dom[0].free_whole < e->need[sh] || dominated(e, sh))
		return FW_EDECLINED;
	/* an open shape did not fit at the last round */
	if (e->round > 1 && !step_may_help(e, cl, sh, &o)) {
		note_failure(e, sh);
		return FW_EDECLINED;
	}
	int rc = fw__place_job(cl, e->rep[sh], &o, &p);
	if (rc == FW_EDECLINED)
		note_failure(e, sh);
	return rc;
}

/* Try every open shape on the clone at time t; the ones that fit get t.
 * The open list is sorted by signature, then CPU, then memory, so the
 * cheapest shape of a signature is tried first and its failure answers
 * for the dearer ones (dominated()). */
static int try_open(struct est *e, struct fw__cstate *cl, fw_time t)
{
	int32_t k = 0;

	e->round++;
	for (int32_t i = 0; i < e->nopen; i++) {
		int32_t sh = e->open[i];
		int rc = try_shape(e, cl, sh, t == e->y->s->now && e->round == 1, t);
		if (rc == FW_OK)
			e->at[sh] = not_now(e->y->s, t);
		else if (rc == FW_EDECLINED)
			e->open[k++] = sh;
		else
			return rc;
	}
	e->nopen = k;
	return FW_OK;
}

/* Order of the open list: signature, CPU, memory of the first group, id. */
static int open_cmp(const void *pa, const void *pb, const struct est *e)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	const struct fw__shape_group *x = &e->shp[a].g[0], *z = &e->shp[b].g[0];

	if (e->sig[a] != e->sig[b])
		return e->sig[a] < e->sig[b] ? -1 : 1;
	if (x->cpu != z->cpu)
		return x->cpu < z->cpu ? -1 : 1;
	if (x->mem != z->mem)
		return x->mem < z->mem ? -1 : 1;
	return (a > b) - (a < b);
}

static int sort_open(struct est *e)
{
	int32_t *tmp = FW_ARENA_NEW(e->y->a, int32_t, e->nopen + 1), *v = e->open;

	if (!tmp)
		return FW_ENOMEM;
	/* bottom-up merge sort: stable, no callback state, no recursion */
	for (int32_t w = 1; w < e->nopen; w *= 2) {
		for (int32_t lo = 0; lo < e->nopen; lo += 2 * w) {
			int32_t mid = lo + w < e->nopen ? lo + w : e->nopen;
			int32_t hi = lo + 2 * w < e->nopen ? lo + 2 * w : e->nopen;
			int32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = open_cmp(&v[j], &v[i], e) < 0 ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, (size_t)e->nopen * sizeof *v);
	}
	return FW_OK;
}

/* Step 2: the one dry walk.  Returns the clone's free GPUs at the end
 * (everything that ever ends has ended) through *free_end. */
static int empty_clone(struct cyc *y, struct fw__cstate *cl);

/* Shapes with group filters (snapshot.h) that do not fit even the empty
 * cluster (their groups' nodes in no one domain of the required level,
 * say): out of the open list before the walk, which would search them at
 * every step in vain (the step tests prune them by domain, not by group),
 * into park[]; explain_open names why.  O(such shapes x a search). */
static int park_hopeless_groups(struct est *e, int32_t *park, int32_t *npark)
{
	struct fw__cstate empty;
	bool have_empty = false;
	int32_t k = 0;

	*npark = 0;
	for (int32_t i = 0; i < e->nopen; i++) {
		int32_t sh = e->open[i];
		struct fw__place_opts o = { .end = FW__NEVER, .ignore_resv = true, .dry = true };
		struct fw__placement p;
		int rc = FW_OK;
		if (e->shp[sh].gjob != 0) {
			if (!have_empty && (rc = empty_clone(e->y, &empty)) != FW_OK)
				return rc;
			have_empty = true;
			if ((rc = fw__place_job(&empty, e->rep[sh], &o, &p)) != FW_OK && rc != FW_EDECLINED)
				return rc;
		}
		if (rc == FW_EDECLINED)
			park[(*npark)++] = sh;
		else
			e->open[k++] = sh;
	}
	e->nopen = k;
	return FW_OK;
}

static int walk(struct est *e, int64_t *free_end)
{
	struct cyc *y = e->y;
	struct fw__cstate cl;
	struct fw__stream st[FW__NSTREAMS];
	int32_t *park = NULL, npark = 0;
	fw_time t;
	int rc;

	if (y->s->ngroup_nodes > 0 && (!(park = FW_ARENA_NEW(y->a, int32_t, e->nopen + 1)) ||
				       (rc = park_hopeless_groups(e, park, &npark)) != FW_OK))
		return park ? rc : FW_ENOMEM;
	if ((rc = fw__walk_init(y, st)) != FW_OK || (rc = fw__resv_clone(y, &cl, &y->c)) != FW_OK)
		return rc;
	if ((rc = sort_open(e)) != FW_OK)
		return rc;
	rc = try_open(e, &cl, y->s->now);
	while (rc == FW_OK && e->nopen > 0 && (t = fw__walk_next(st)) != FW__NEVER) {
		fw__walk_release(y, &cl, st, t);
		rc = try_open(e, &cl, t);
	}
	while (rc == FW_OK && e->nopen > 0 && (t = fw__walk_next(st)) != FW__NEVER)
		fw__walk_release(y, &cl, st, t); /* only for *free_end */
	*free_end = cl.dom[0].free_whole;
	for (int32_t i = 0; i < npark; i++) /* open: explain_open says why */
		e->open[e->nopen++] = park[i];
	return rc;
}

/* ---- step 2b: the jobs ahead (config.estimate_depth) ------------------ */

/* A shape's failures in one round: the shortest runtime that failed (a
 * job of the shape that runs as long or longer fails too: it ends later,
 * so no reservation it must end before lets it in either). */
struct fmark {
	int32_t round;
	fw_time run;
};

/* The first estimate_depth blocked jobs without a reservation, in try
 * order, and the walk that holds each where it is expected to start:
 * the positions not placed yet (in try order), per shape its failures in
 * the last two rounds, the held jobs' ends (a binary heap on (end, job),
 * fw__ev_cmp).  Backfill mode (ru set): the clone's own resv_until,
 * the reservations by their times (take: each reserved job starts there
 * and takes its GPUs; per task, tfirst[take] + k, the next take on its
 * node, -1: none), and the next reservation end (un) and start. */
struct ahead {
	int32_t *pos, n;
	struct fmark *cur, *prev;
	int32_t round;
	struct ev *end;
	int32_t nend;
	fw_time *ru;
	struct ev *take;
	int32_t ntake, itake;
	int32_t *tfirst, *tnext;
	struct fw__stream un;
};

int32_t fw__estimate_depth(const struct cyc *y)
{
	int32_t c = y->s->config.estimate_depth;

	if (!y->s->config.estimate_starts || c < 0)
		return 0;
	return c == 0 ? FW_ESTIMATE_DEPTH_DEFAULT : c > FW_ESTIMATE_DEPTH_MAX ? FW_ESTIMATE_DEPTH_MAX : c;
}

static void end_push(struct ahead *a, struct ev x)
{
	int32_t i = a->nend++;

	for (; i > 0 && fw__ev_cmp(&x, &a->end[(i - 1) / 2]) < 0; i = (i - 1) / 2)
		a->end[i] = a->end[(i - 1) / 2];
	a->end[i] = x;
}

static struct ev end_pop(struct ahead *a)
{
	struct ev top = a->end[0], x = a->end[--a->nend];
	int32_t i = 0, c;

	while ((c = 2 * i + 1) < a->nend) {
		if (c + 1 < a->nend && fw__ev_cmp(&a->end[c + 1], &a->end[c]) < 0)
			c++;
		if (fw__ev_cmp(&a->end[c], &x) >= 0)
			break;
		a->end[i] = a->end[c];
		i = c;
	}
	if (a->nend > 0)
		a->end[i] = x;
	return top;
}

static bool backfill_mode(const struct cyc *y);

/* Is some reservation held for a job with no expected end (no runtime,
 * no limit, no queue default: fw__job_end)?  Its nodes never come back
 * in the shape walk, which holds them from now on. */
static bool unbounded_resv(const struct cyc *y)
{
	for (int32_t i = 0; i < y->ndec; i++)
		if (y->dec[i].kind == FW_DECIDE_RESERVE &&
		    fw__job_end(y, &y->s->jobs[y->dec[i].job], y->dec[i].at) == FW__NEVER)
			return true;
	return false;
}

/* Which jobs: the positions allocate tried (y->tried), in that order,
 * that did not start and hold no reservation and whose shape fits some
 * time (an unknown shape stays unknown, unless a reservation for a job
 * with no end holds nodes the shape walk kept from it: in backfill mode
 * this walk gives them, until their reservation, to the jobs that end
 * by then, as allocate does), up to the depth; jobs a budget
 * floors aside (their floor is their estimate's rule, and the simulator
 * wakes at a budget-short job's: des.c short_wake); gangs (more
 * than one task) aside: the reservations and the starving pass keep
 * them from being passed for ever, which this line does not model, so
 * they keep their shape's estimate (measured: held here, the 9+ GPU
 * jobs' estimates erred 15 times more on the ITP traces). */
static int ahead_init(struct est *e, struct ahead *a)
{
	struct cyc *y = e->y;
	int32_t depth = fw__estimate_depth(y);

	memset(a, 0, sizeof *a);
	if (depth <= 0 || !y->tried)
		return FW_OK;
	int32_t cap = depth < y->ntried ? depth : y->ntried;
	a->pos = FW_ARENA_RAW(y->a, int32_t, (size_t)cap + 1);
	a->end = FW_ARENA_RAW(y->a, struct ev, (size_t)cap + 1);
	a->cur = FW_ARENA_NEW(y->a, struct fmark, (size_t)e->nshp + 1);
	a->prev = FW_ARENA_NEW(y->a, struct fmark, (size_t)e->nshp + 1);
	e->held = e->held0; /* zeroed at every position (sort_out, est_init) */
	e->hfloor = FW_ARENA_NEW(y->a, fw_time, (size_t)e->nshp + 1);
	if (!a->pos || !a->end || !a->cur || !a->prev || !e->held || !e->hfloor)
		return FW_ENOMEM;
	bool before_resv = unbounded_resv(y) && backfill_mode(y);
	for (int32_t k = 0; k < y->ntried && a->n < cap; k++) {
		int32_t i = y->tried[k], sh = e->shape[i];
		if (sh >= 0 && !y->started[y->jobs[i]] && (e->at[sh] != FW_TIME_UNKNOWN || before_resv) && !e->floor[i] &&
		    y->reason[y->jobs[i]].reason != FW_REASON_HAS_RESERVATION && e->shp[sh].ngroups == 1 &&
		    e->shp[sh].g[0].count == 1)
			a->pos[a->n++] = i;
	}
	return FW_OK;
}

static int take_qcmp(const void *p, const void *q)
{
	return fw__ev_cmp(p, q);
}

/* Per task of each take, the next take on its node (a reverse sweep with
 * the last take seen per node): O(tasks). */
static int next_takes(struct cyc *y, struct ahead *a)
{
	int32_t *last = FW_ARENA_RAW(y->a, int32_t, (size_t)y->s->nnodes + 1), nt = 0;

	if (!last || !(a->tfirst = FW_ARENA_RAW(y->a, int32_t, (size_t)a->ntake + 1)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < a->ntake; i++) {
		a->tfirst[i] = nt;
		nt += a->take[i].ntasks;
	}
	if (!(a->tnext = FW_ARENA_RAW(y->a, int32_t, (size_t)nt + 1)))
		return FW_ENOMEM;
	memset(last, 0xff, ((size_t)y->s->nnodes + 1) * sizeof *last);
	for (int32_t i = a->ntake - 1; i >= 0; i--) {
		for (int32_t k = 0; k < a->take[i].ntasks; k++) {
			int32_t n = a->take[i].tasks[k].node;
			a->tnext[a->tfirst[i] + k] = last[n] == i ? -1 : last[n];
		}
		for (int32_t k = 0; k < a->take[i].ntasks; k++)
			last[a->take[i].tasks[k].node] = i;
	}
	return FW_OK;
}

/* Backfill mode, when every reserved node is in service now and none
 * leaves later (else the clone keeps each reserved node out until its
 * reservation ends, as the shape walk does): the reserved nodes take
 * jobs that end by their reservation (the clone's own resv_until), as
 * allocate's backfill does; each reserved job takes its GPUs at its
 * time (take) and gives them back at its end (un). */
static bool backfill_mode(const struct cyc *y)
{
	if (y->c.naway > 0)
		return false;
	for (int32_t i = 0; i < y->ndec; i++)
		for (int32_t k = 0; y->dec[i].kind == FW_DECIDE_RESERVE && k < y->dec[i].alloc_count; k++)
			if (!y->c.nodes[y->dec_tasks[i][k].node].usable)
				return false;
	return true;
}

/* The clone's own resv_until, and the reservations by time (take). */
static int take_list(struct cyc *y, struct ahead *a, int32_t nn)
{
	if (!(a->ru = FW_ARENA_RAW(y->a, fw_time, (size_t)nn + 1)) ||
	    !(a->take = FW_ARENA_RAW(y->a, struct ev, (size_t)y->nresv + 1)))
		return FW_ENOMEM;
	memcpy(a->ru, y->c.resv_until, (size_t)nn * sizeof *a->ru);
	for (int32_t i = 0; i < y->ndec; i++)
		if (y->dec[i].kind == FW_DECIDE_RESERVE && a->ntake < y->nresv)
			a->take[a->ntake++] = (struct ev){ .end = y->dec[i].at, .job = y->dec[i].job,
							   .tasks = y->dec_tasks[i], .ntasks = y->dec[i].alloc_count };
	qsort(a->take, (size_t)a->ntake, sizeof *a->take, take_qcmp);
	return next_takes(y, a);
}

static int ahead_resv(struct cyc *y, struct ahead *a, struct fw__cstate *cl)
{
	int32_t nn = cl->nn;
	int rc;

	if (!backfill_mode(y))
		return FW_OK;
	if ((rc = take_list(y, a, nn)) != FW_OK)
		return rc;
	for (int32_t n = 0; n < nn; n++) {
		if (a->ru[n] == FW__NEVER || cl->nodes[n].usable || !y->c.nodes[n].usable)
			continue;
		cl->nodes[n].usable = true; /* fw__resv_clone held it out */
		cl->nodes[n].whole_free = fw__node_whole_free(cl, n);
		fw__domain_node_changed(cl, n, 0);
	}
	cl->resv_until = a->ru;
	a->un = (struct fw__stream){ y->ev_un, y->nev_un, 0 };
	return FW_OK;
}

/* The reserved jobs due by t start: their GPUs, CPU and memory taken;
 * each of their nodes takes jobs that end by its next reservation (none:
 * any).  Listed as a step: a longer job may fit there now. */
static void take_due(struct cyc *y, struct ahead *a, struct fw__cstate *cl, fw_time t)
{
	for (; a->itake < a->ntake && a->take[a->itake].end <= t; a->itake++) {
		const struct ev *x = &a->take[a->itake];
		const struct fw_job *j = &y->s->jobs[x->job];
		for (int32_t k = 0; k < x->ntasks; k++) {
			const struct fw_task_alloc *ta = &x->tasks[k];
			struct fw__node *nd = &cl->nodes[ta->node];
			int32_t old = nd->whole_free, m = a->tnext[a->tfirst[a->itake] + k];
			FW__FOR_EACH_GPU(g, ta->gpu_mask)
				nd->used[g] = (int16_t)(nd->used[g] + ta->gpu_milli);
			nd->cpu_free -= j->groups[ta->group].cpu_milli;
			nd->mem_free -= j->groups[ta->group].mem_mib;
			nd->whole_free = fw__node_whole_free(cl, ta->node);
			fw__domain_node_changed(cl, ta->node, old);
			a->ru[ta->node] = m >= 0 ? a->take[m].end : FW__NEVER;
			fw__walk_step_node(y, ta->node);
		}
	}
}

/* Did shape sh fail in round r for a job that runs no longer than run? */
static bool failed_in(const struct ahead *a, int32_t sh, int32_t r, fw_time run)
{
	const struct fmark *f = a->cur[sh].round == r ? &a->cur[sh] : a->prev[sh].round == r ? &a->prev[sh] : NULL;

	return f && run >= f->run;
}

static void mark_failed(struct ahead *a, int32_t sh, fw_time run)
{
	if (a->cur[sh].round != a->round) {
		a->prev[sh] = a->cur[sh];
		a->cur[sh] = (struct fmark){ a->round, run };
	} else if (run < a->cur[sh].run) {
		a->cur[sh].run = run;
	}
}

/* Can the job at position i start at t on the clone?  Then it is held
 * there (its capacity taken until its expected end, for ever without
 * one) and t is its estimate.  A shape that failed this round for a job
 * that runs no longer fails again (the clone only lost room since), as
 * does one that failed last round where no node the step since changed
 * could let it in; coarse mode (every reserved node held out) does not
 * try a shape before the shape walk fitted it (a subset of its room).  At now
 * a shape allocate failed with does not fit either (unless reclaim
 * evicted since: tried_now). */
static int ahead_try(struct est *e, struct ahead *a, struct fw__cstate *cl, int32_t i, fw_time t)
{
	struct cyc *y = e->y;
	int32_t sh = e->shape[i], jx = y->jobs[i];
	fw_time end = fw__job_end(y, &y->s->jobs[jx], t), run = !a->ru ? 0 : end == FW__NEVER ? INT64_MAX : end - t;
	struct fw__place_opts o = { .end = a->ru ? end : FW__NEVER, .ignore_resv = !a->ru, .keep_away = true,
				    .start = t };
	struct fw__placement p;

	if (failed_in(a, sh, a->round, run) || (!a->ru && t + 1 < e->at[sh]) || (a->round == 1 && e->tried_now[sh]) ||
	    cl->dom[0].free_whole < e->need[sh] ||
	    (failed_in(a, sh, a->round - 1, run) && !step_may_help(e, cl, sh, &o))) {
		mark_failed(a, sh, run);
		return FW_EDECLINED;
	}
	int rc = fw__place_job(cl, jx, &o, &p); /* not dry: held in the clone */
	if (rc == FW_EDECLINED)
		mark_failed(a, sh, run);
	if (rc != FW_OK)
		return rc;
	e->held[i] = not_now(y->s, t);
	if (e->held[i] > e->hfloor[sh])
		e->hfloor[sh] = e->held[i];
	if (end != FW__NEVER)
		end_push(a, (struct ev){ .end = end, .job = jx, .tasks = p.tasks, .ntasks = p.ntasks });
	return FW_OK;
}

/* One round at t: each job not placed yet, in try order. */
static int ahead_round(struct est *e, struct ahead *a, struct fw__cstate *cl, fw_time t)
{
	int32_t k = 0;

	a->round++;
	for (int32_t x = 0; x < a->n; x++) {
		int rc = ahead_try(e, a, cl, a->pos[x], t);
		if (rc == FW_EDECLINED)
			a->pos[k++] = a->pos[x];
		else if (rc != FW_OK)
			return rc;
	}
	a->n = k;
	return FW_OK;
}

/* The next time anything ends (the walk's events, a held job, a
 * reservation) or a reserved job starts. */
static fw_time ahead_next(const struct ahead *a, const struct fw__stream st[FW__NSTREAMS])
{
	fw_time t = fw__walk_next(st);

	if (a->nend > 0 && a->end[0].end < t)
		t = a->end[0].end;
	if (a->un.i < a->un.n && a->un.v[a->un.i].end < t)
		t = a->un.v[a->un.i].end;
	return a->itake < a->ntake && a->take[a->itake].end < t ? a->take[a->itake].end : t;
}

/* Everything that ends at t: the walk's events, the held jobs' ends
 * and, in backfill mode, the reserved jobs' ends; then the reserved jobs
 * due start. */
static void ahead_release(struct cyc *y, struct ahead *a, struct fw__cstate *cl, struct fw__stream *st, fw_time t)
{
	fw__walk_release(y, cl, st, t);
	while (a->nend > 0 && a->end[0].end == t) {
		struct ev x = end_pop(a);
		fw__walk_release_one(y, cl, &x);
	}
	for (; a->un.i < a->un.n && a->un.v[a->un.i].end == t; a->un.i++)
		fw__walk_release_one(y, cl, &a->un.v[a->un.i]);
	if (a->ru)
		take_due(y, a, cl, t);
}

/* Step 2b: a second dry walk, like the first (the same clone of the
 * cycle's state, the same events), in which the jobs ahead are placed
 * in try order at each end time and held: a job's estimate is the first
 * time it fits what the jobs before it left, as the cycles to come try
 * the line, reservations held.  Nothing is held in the plan. */
static int ahead_walk(struct est *e)
{
	struct cyc *y = e->y;
	struct ahead a;
	struct fw__cstate cl;
	struct fw__stream st[FW__NSTREAMS];
	fw_time t;
	int rc = ahead_init(e, &a);

	if (rc != FW_OK || a.n == 0)
		return rc;
	if ((rc = fw__walk_init(y, st)) != FW_OK || (rc = fw__resv_clone(y, &cl, &y->c)) != FW_OK ||
	    (rc = ahead_resv(y, &a, &cl)) != FW_OK)
		return rc;
	if (a.ru) {
		st[2].n = 0; /* the reservations' ends: a.un, capacity given back */
		take_due(y, &a, &cl, y->s->now);
	}
	rc = ahead_round(e, &a, &cl, y->s->now);
	while (rc == FW_OK && a.n > 0 && (t = ahead_next(&a, st)) != FW__NEVER) {
		ahead_release(y, &a, &cl, st, t);
		rc = ahead_round(e, &a, &cl, t);
	}
	return rc;
}

/* A job's estimate from the walks: its own held time, or its shape's
 * but, past the depth (or never placed), no earlier than the latest held
 * job of its shape (tried before it); a job a budget floors, its shape's
 * (queue_pass floors it). */
static fw_time walk_estimate(const struct est *e, int32_t i, int32_t sh)
{
	fw_time t = e->at[sh];

	if (!e->held || e->floor[i])
		return t;
	if (e->held[i])
		return e->held[i];
	return e->hfloor[sh] > t ? e->hfloor[sh] : t;
}

/* The cycle's state as empty as it can ever get, on a clone: every job
 * ended, every reservation gone, each usable node whole (its good GPUs,
 * CPU and memory free).  What does not fit here never starts. */
static int empty_clone(struct cyc *y, struct fw__cstate *cl)
{
	int rc = fw__resv_clone(y, cl, &y->c);

	if (rc != FW_OK)
		return rc;
	for (int32_t n = 0; n < cl->nn; n++) {
		struct fw__node *x = &cl->nodes[n];
		int32_t old = x->whole_free; /* 0 on a node held for a reservation */
		memset(x->used, 0, sizeof x->used);
		x->cpu_free = y->s->nodes[n].cpu_milli;
		x->mem_free = y->s->nodes[n].mem_mib;
		x->usable = fw__indexed(&y->c.nodes[n]); /* a returning node comes back */
		x->whole_free = fw__node_whole_free(cl, n);
		fw__domain_node_changed(cl, n, old);
	}
	return FW_OK;
}

static int64_t good_gpus(const struct fw_node *sn)
{
	uint32_t all = sn->gpu_count >= 32 ? 0xffffffffu : (1u << sn->gpu_count) - 1;

	return __builtin_popcount(all & ~sn->bad_gpu_mask);
}

/* The most GPUs job could ever hold in one domain of level dl: good GPUs
 * of the nodes it may use (usable, of a model one of its groups takes, not
 * suspect when it avoids them, in its node filter), in pieces of its tasks' size when its
 * whole-GPU tasks all ask the same.  O(nodes). */
static int64_t place_cap(const struct cyc *y, int32_t jx, const struct fw_job *job, int32_t dl)
{
	const struct fw__cstate *c = &y->c;
	bool avoid = fw__any_suspect(c) && !fw__may_use_suspect(c, job), any = false;
	int32_t piece = 0, models[FW_MAX_GROUPS], nm = 0;
	int64_t best = 0;

	for (int g = 0; g < job->ngroups; g++) {
		const struct fw_task_group *t = &job->groups[g];
		if (t->gpus > 0 && t->gpu_milli == 1000)
			piece = piece == 0 || piece == t->gpus ? t->gpus : -1;
		if (t->gpus > 0 && t->gpu_model[0])
			models[nm++] = fw__model_id(c, t->gpu_model);
		any |= t->gpus > 0 && !t->gpu_model[0];
	}
	piece = piece > 0 ? piece : 1;
	for (int32_t d = c->lvl[dl].first_dom; d < c->lvl[dl].first_dom + c->lvl[dl].ndom; d++) {
		int64_t sum = 0;
		for (int32_t i = c->dom[d].first; i < c->dom[d].last; i++) {
			int32_t n = c->order[i];
			bool model = any || nm == 0;
			for (int32_t k = 0; k < nm && !model; k++)
				model = c->nodes[n].model == models[k];
			if (fw__indexed(&c->nodes[n]) && model && !(avoid && c->nodes[n].suspect) &&
			    fw__job_may_use(y->s, jx, n))
				sum += good_gpus(&y->s->nodes[n]) / piece * piece;
		}
		best = sum > best ? sum : best;
	}
	return best;
}

/* Why a job that does not fit the empty cluster never starts, in the
 * other never-fits reasons' terms: the first group one of whose tasks no
 * usable node holds whole, checked need by need on the same node (GPUs of
 * its model: NEVER_FITS with the task's GPUs and the most such a node has;
 * then CPU beside them: TASK_CPU; then memory beside both: TASK_MEM, each
 * with the task's need and the most a node that met the earlier needs
 * has), else the gang as a whole: NEVER_FITS with its GPUs and the most
 * it could hold in one domain of its required level (place_cap). */
static struct fw__hopeless never_why(const struct cyc *y, int32_t jx)
{
	const struct fw_job *job = &y->s->jobs[jx];
	const struct fw__cstate *c = &y->c;
	int32_t L = y->s->topology.nlevels, dl = job->required_level + 1;

	if (job->required_level == FW_LEVEL_NONE || job->required_level == FW_LEVEL_NODE)
		dl = job->required_level == FW_LEVEL_NONE ? 0 : L + 1;

	for (int g = 0; g < job->ngroups; g++) {
		const struct fw_task_group *t = &job->groups[g];
		int32_t m = t->gpu_model[0] ? fw__model_id(c, t->gpu_model) : -2;
		int64_t gmax = 0, cpu = -1, mem = -1;
		bool fits = false;
		for (int32_t n = 0; n < c->nn && !fits; n++) {
			const struct fw_node *sn = &y->s->nodes[n];
			int64_t good = good_gpus(sn);
			if (!fw__indexed(&c->nodes[n]) || (t->gpus > 0 && m != -2 && c->nodes[n].model != m) ||
			    !fw__group_may_use(y->s, jx, g, n))
				continue;
			gmax = good > gmax ? good : gmax;
			if (good < t->gpus)
				continue;
			cpu = sn->cpu_milli > cpu ? sn->cpu_milli : cpu;
			if (sn->cpu_milli < t->cpu_milli)
				continue;
			mem = sn->mem_mib > mem ? sn->mem_mib : mem;
			fits = sn->mem_mib >= t->mem_mib;
		}
		if (fits)
			continue;
		if (cpu < 0)
			return (struct fw__hopeless){ true, FW_REASON_NEVER_FITS, t->gpus, gmax };
		if (mem < 0)
			return (struct fw__hopeless){ true, FW_REASON_TASK_CPU, t->cpu_milli, cpu };
		return (struct fw__hopeless){ true, FW_REASON_TASK_MEM, t->mem_mib, mem };
	}
	return (struct fw__hopeless){ true, FW_REASON_NEVER_FITS, fw_job_gpus(job), place_cap(y, jx, job, dl) };
}

/* What holds GPUs for ever in the walk: *gpus, those of the running jobs
 * (not evicted) and this plan's starts with no expected end; *resv, the
 * reservations of such jobs (each holds its nodes from its time on). */
static void held_for_ever(const struct cyc *y, int64_t *gpus, int64_t *resv)
{
	const struct fw_snapshot *s = y->s;

	*gpus = *resv = 0;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		bool runs = (!y->ji[j].pending && job->alloc_count > 0 && !(y->evicted && y->evicted[j])) || y->started[j];
		if (runs && fw__job_end(y, job, s->now) == FW__NEVER)
			*gpus += fw_job_gpus(job);
	}
	for (int32_t i = 0; i < y->ndec; i++)
		if (y->dec[i].kind == FW_DECIDE_RESERVE && fw__job_end(y, &s->jobs[y->dec[i].job], s->now) == FW__NEVER)
			(*resv)++;
}

/* A shape that fits the empty cluster but never the walk's: jobs with no
 * expected end hold what it needs, running (UNKNOWN_RUNTIME, b = the
 * free GPUs at the walk's end), or, when the running ones leave room for
 * it, reserved (UNKNOWN_RESERVED, b = their reservations: the walk holds
 * a reserved node until its job ends). */
static void unknown_why(struct est *e, int32_t sh, int64_t free_end, int64_t *forever, int64_t *resv)
{
	const struct fw_job *job = &e->y->s->jobs[e->rep[sh]];

	if (*forever < 0)
		held_for_ever(e->y, forever, resv);
	bool reserved = *resv > 0 && e->y->c.dom[0].cap_whole - *forever >= e->need[sh] &&
			e->y->c.dom[0].cap_whole - *forever >= fw_job_gpus(job);
	e->why[sh] = reserved ? FW_REASON_UNKNOWN_RESERVED : FW_REASON_UNKNOWN_RUNTIME;
	e->why_a[sh] = fw_job_gpus(job);
	e->why_b[sh] = reserved ? *resv : free_end;
}

/* Step 3: why each shape left open has no time.  The O(1) bounds of
 * reserve.c first; a shape they let through is tried on the empty
 * cluster, which the walk's last state is not when jobs with no expected
 * runtime still hold nodes there: only a shape that fits it waits for
 * them (UNKNOWN_RUNTIME).  A never is then tried on the cluster mended
 * of its health and with its cordoned nodes back (drain.c): health
 * passes and a cordon is lifted, so one that fits there waits for it
 * (HEALTH, or NODES_OUT when it needs the cordoned nodes too). */
static int explain_open(struct est *e, int64_t free_end)
{
	struct fw__cstate empty;
	struct fw__mend mended;
	bool have_empty = false;
	int64_t forever = -1, resv = 0; /* held_for_ever, once */

	e->why = FW_ARENA_NEW(e->y->a, enum fw_reason, e->cap);
	e->why_a = FW_ARENA_NEW(e->y->a, int64_t, e->cap);
	e->why_b = FW_ARENA_NEW(e->y->a, int64_t, e->cap);
	if (!e->why || !e->why_a || !e->why_b)
		return FW_ENOMEM;
	memset(&mended, 0, sizeof mended);
	for (int32_t i = 0; i < e->nopen; i++) {
		int32_t sh = e->open[i];
		const struct fw_job *job = &e->y->s->jobs[e->rep[sh]];
		struct fw__hopeless h;
		int rc = fw__resv_hopeless(e->y, job, e->need[sh], &h);
		if (rc != FW_OK)
			return rc;
		if (!h.never && e->need[sh] > e->y->c.dom[0].cap_whole)
			h = (struct fw__hopeless){ true, FW_REASON_NEVER_FITS, fw_job_gpus(job), e->y->c.dom[0].cap_whole };
		if (!h.never) {
			struct fw__place_opts o = { .end = FW__NEVER, .ignore_resv = true, .dry = true };
			struct fw__placement p;
			if (!have_empty && (rc = empty_clone(e->y, &empty)) != FW_OK)
				return rc;
			have_empty = true;
			rc = fw__place_job(&empty, e->rep[sh], &o, &p);
			if (rc == FW_EDECLINED)
				h = never_why(e->y, e->rep[sh]);
			else if (rc != FW_OK)
				return rc;
		}
		if (h.never) { /* or until health mends, or a cordon is lifted? (one count of the nodes) */
			rc = fw__health_mended(e->y, e->rep[sh], &mended, &h);
			if (rc != FW_OK && rc != FW_EDECLINED)
				return rc;
		}
		if (!h.never) {
			unknown_why(e, sh, free_end, &forever, &resv);
			continue;
		}
		e->why[sh] = h.why;
		e->why_a[sh] = h.need;
		e->why_b[sh] = h.cap;
	}
	return FW_OK;
}

/* Step 4, one line at a time.  Under strict order only: floor, no job
 * behind may start before the latest estimate ahead (reservations
 * included); blocker, the first job ahead whose start is unknown, which
 * makes every later start unknown too.  A policy that skips ahead starts
 * a job behind as soon as it fits without delaying a reservation, which
 * the walk already models (it holds the reserved nodes until their jobs
 * end), so its lines only count the jobs ahead. */
struct line {
	int32_t ahead;
	fw_time floor;
	int32_t blocker;
};

static void line_apply(struct line *l, struct fw_pending *r, bool strict)
{
	bool reserved = r->reason == FW_REASON_HAS_RESERVATION;
	bool known = r->expected_start != FW_TIME_UNKNOWN;

	r->ahead = l->ahead++;
	if (!strict)
		return;
	if (!reserved && l->blocker >= 0)
		set_unknown(r, FW_REASON_HEAD_OF_LINE, l->blocker, r->ahead);
	else if (!reserved && known && r->expected_start < l->floor)
		r->expected_start = l->floor;
	known = r->expected_start != FW_TIME_UNKNOWN;
	if (known && r->expected_start > l->floor)
		l->floor = r->expected_start;
	if (!known && l->blocker < 0)
		l->blocker = r->job;
}

/* Step 4: per line, in try order: the shape's estimate, the jobs ahead
 * still waiting, and no start before the floor.  One pass over y->jobs
 * (the lines are its consecutive ranges). */
static void queue_pass(struct est *e)
{
	struct cyc *y = e->y;

	for (int32_t q = 0; q < y->s->nqueues; q++) {
		struct line l = { 0, y->s->now, -1 };
		for (int32_t i = y->qfirst[q]; i < y->qfirst[q + 1]; i++) {
			struct fw_pending *r = &y->reason[y->jobs[i]];
			int32_t sh = e->shape[i];
			if (i + FW__AHEAD < y->qfirst[y->s->nqueues])
				FW__PREFETCH(&y->reason[y->jobs[i + FW__AHEAD]], 1);
			if (y->started[y->jobs[i]])
				continue;
			if (sh >= 0 && e->at[sh] == FW_TIME_UNKNOWN && !(e->held && e->held[i]))
				set_unknown(r, e->why[sh], e->why_a[sh], e->why_b[sh]);
			else if (sh >= 0)
				r->expected_start = walk_estimate(e, i, sh);
			/* over or short of a budget until then; fitting only
			 * gets easier later */
			if (sh >= 0 && r->expected_start != FW_TIME_UNKNOWN && r->expected_start < e->floor[i])
				r->expected_start = e->floor[i];
			line_apply(&l, r, y->pol->strict_order);
		}
	}
}

/* ---- step 5: gangs queue by age (policies with starve_after_s) -------- */

/* A change of free slots at time t. */
struct step {
	fw_time t;
	int64_t d;
};

static void step_sort(struct step *v, struct step *tmp, int32_t n)
{
	int32_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	step_sort(v, tmp, h);
	step_sort(v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = v[j].t < v[i].t ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* Free capacity over time in slots of g whole GPUs: F[b] from T[b] to
 * T[b + 1] (the last one for ever).  A usable node with k whole GPUs free
 * holds k / g slots.  A GPU frees up when every job holding it has ended
 * (the running jobs' and this plan's starts' end events), never while a
 * job with no expected runtime holds it.  A reservation holds, from its
 * time for its runtime, ceil(its GPUs on a node / g) slots of that node.
 * With g = 1 the slots are whole GPUs; with g = 8 on 8-GPU nodes, whole
 * nodes, so a gang of two 8-GPU tasks does not "fit" into 16 GPUs free
 * on four half-busy nodes. */
struct profile {
	fw_time *T;
	int64_t *F;
	int32_t n, cap;
};

/* Per GPU of every node: when it is whole and free (now, an end event,
 * or never). */
struct gpu_free {
	fw_time *at;      /* [node * FW_MAX_GPUS_PER_NODE + gpu] */
	int32_t *milli;   /* milli the end events release */
};

static void release(struct gpu_free *f, const struct ev *e)
{
	for (int32_t k = 0; k < e->ntasks; k++) {
		const struct fw_task_alloc *t = &e->tasks[k];
		FW__FOR_EACH_GPU(g, t->gpu_mask) {
			size_t x = (size_t)t->node * FW_MAX_GPUS_PER_NODE + g;
			f->milli[x] += t->gpu_milli;
			if (e->end > f->at[x])
				f->at[x] = e->end;
		}
	}
}

/* One node's slot steps: its GPUs' free times in order, a step at each
 * distinct time the count of free GPUs passes a multiple of g; a
 * returning node's GPUs are free no earlier than its back_at, and so are
 * an away node's (none before it leaves: the profile, like the walk,
 * counts on it from its return only; never when it has none).  Returns
 * the slots it holds now. */
static int64_t node_steps(const struct cyc *y, const struct gpu_free *f, int32_t n, int32_t g,
			  struct step *out, int32_t *nout)
{
	const struct fw_node *sn = &y->s->nodes[n];
	const struct fw__node *cn = &y->c.nodes[n];
	fw_time at[FW_MAX_GPUS_PER_NODE], back = cn->returning || fw__away(&y->c, n) ? sn->back_at : 0;
	int32_t m = 0, k = 0;

	if (!fw__indexed(cn) || (fw__away(&y->c, n) && back <= y->s->now)) /* away for good */
		return 0;
	for (int b = 0; b < sn->gpu_count; b++) {
		size_t x = (size_t)n * FW_MAX_GPUS_PER_NODE + (size_t)b;
		if (sn->bad_gpu_mask & (1u << b))
			continue;
		if (cn->used[b] == 0 && !back)
			k++;
		else if (cn->used[b] == 0 || f->milli[x] >= cn->used[b]) {
			fw_time t = cn->used[b] == 0 || f->at[x] < back ? back : f->at[x];
			int32_t i = m++;
			for (; i > 0 && at[i - 1] > t; i--)
				at[i] = at[i - 1];
			at[i] = t;
		}
	}
	for (int32_t i = 0, d; i < m; i += d) { /* one step per distinct time */
		for (d = 1; i + d < m && at[i + d] == at[i]; d++)
			;
		if ((k + i + d) / g > (k + i) / g)
			out[(*nout)++] = (struct step){ at[i], (k + i + d) / g - (k + i) / g };
	}
	return k / g;
}

static int profile_build(struct cyc *y, struct profile *pr, int32_t room, int32_t g)
{
	size_t ngpu = (size_t)y->s->nnodes * FW_MAX_GPUS_PER_NODE;
	struct gpu_free f = { FW_ARENA_RAW(y->a, fw_time, ngpu + 1), FW_ARENA_NEW(y->a, int32_t, ngpu + 1) };
	int32_t ne = y->s->nnodes * FW_MAX_GPUS_PER_NODE, n = 0;
	int64_t now_slots = 0;

	for (int32_t i = 0; i < y->ndec; i++)
		if (y->dec[i].kind == FW_DECIDE_RESERVE)
			ne += 2 * y->dec[i].alloc_count;
	struct step *v = FW_ARENA_RAW(y->a, struct step, ne + 1);
	struct step *tmp = FW_ARENA_RAW(y->a, struct step, ne + 1);
	pr->cap = ne + 1 + room;
	pr->T = FW_ARENA_RAW(y->a, fw_time, pr->cap);
	pr->F = FW_ARENA_RAW(y->a, int64_t, pr->cap);
	if (!f.at || !f.milli || !v || !tmp || !pr->T || !pr->F)
		return FW_ENOMEM;
	for (size_t x = 0; x < ngpu; x++)
		f.at[x] = y->s->now;
	for (int32_t i = 0; i < y->nev_run; i++)
		release(&f, &y->ev_run[i]);
	for (int32_t i = 0; i < y->nev_st; i++)
		release(&f, &y->ev_st[i]);
	for (int32_t i = 0; i < y->s->nnodes; i++)
		now_slots += node_steps(y, &f, i, g, v, &n);
	for (int32_t i = 0; i < y->ndec; i++) {
		const struct fw_decision *d = &y->dec[i];
		if (d->kind != FW_DECIDE_RESERVE)
			continue;
		fw_time run = fw__runtime(y, &y->s->jobs[d->job]);
		for (int32_t k = 0; k < d->alloc_count; k++) {
			int64_t sl = (__builtin_popcount(y->dec_tasks[i][k].gpu_mask) + g - 1) / g;
			v[n++] = (struct step){ d->at, -sl };
			if (run > 0)
				v[n++] = (struct step){ d->at + run, sl };
		}
	}
	step_sort(v, tmp, n);
	pr->n = 1;
	pr->T[0] = y->s->now;
	pr->F[0] = now_slots;
	for (int32_t i = 0; i < n; i++) {
		if (v[i].t > pr->T[pr->n - 1]) {
			pr->T[pr->n] = v[i].t;
			pr->F[pr->n] = pr->F[pr->n - 1];
			pr->n++;
		}
		pr->F[pr->n - 1] += v[i].d;
	}
	return FW_OK;
}

/* The last breakpoint at or before t (0 when t is before T[0]), by
 * bisection: T rises strictly, and a big cycle's profile has thousands
 * of breakpoints. */
static int32_t profile_at(const struct profile *pr, fw_time t)
{
	int32_t lo = 0, hi = pr->n - 1;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo + 1) / 2;
		if (pr->T[mid] <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Make T[b] == t a breakpoint (t >= T[0]); its index. */
static int32_t profile_split(struct profile *pr, fw_time t)
{
	int32_t b = profile_at(pr, t);

	if (pr->T[b] == t)
		return b;
	memmove(pr->T + b + 2, pr->T + b + 1, (size_t)(pr->n - b - 1) * sizeof *pr->T);
	memmove(pr->F + b + 2, pr->F + b + 1, (size_t)(pr->n - b - 1) * sizeof *pr->F);
	pr->T[b + 1] = t;
	pr->F[b + 1] = pr->F[b];
	pr->n++;
	return b + 1;
}

/* Take (d < 0) or give back (d > 0) d slots over [t, t + dur); dur <= 0:
 * for ever. */
static void profile_add(struct profile *pr, fw_time t, fw_time dur, int64_t d)
{
	int32_t b0 = profile_split(pr, t), b1 = dur > 0 ? profile_split(pr, t + dur) : pr->n;

	for (int32_t b = b0; b < b1; b++)
		pr->F[b] += d;
}

/* The earliest t >= lo with need slots free over [t, t + dur); -1: none. */
static fw_time profile_fit(const struct profile *pr, fw_time lo, int64_t need, fw_time dur)
{
	/* a window from lo starts in lo's breakpoint: the earlier ones, each
	 * followed by one at or before lo, would all be passed over */
	for (int32_t b = profile_at(pr, lo); b < pr->n; b++) {
		fw_time t = pr->T[b] > lo ? pr->T[b] : lo;
		if (b + 1 < pr->n && pr->T[b + 1] <= t)
			continue;
		int32_t k = b;
		while (k < pr->n && (k == b || pr->T[k] < t + dur) && pr->F[k] >= need)
			k++;
		if (k == pr->n || pr->T[k] >= t + dur)
			return t;
	}
	return -1;
}

/* How many of the oldest waiting gangs the estimates queue up. */
#define GANG_QUEUE_MAX 64

/* A gang still waiting with a known estimate (reserved or not). */
static bool waiting(const struct cyc *y, int32_t pos)
{
	int32_t j = y->jobs[pos];

	return !y->started[j] && y->reason[j].expected_start != FW_TIME_UNKNOWN;
}

/* The slot size of the profile: the GPUs of every whole-GPU task of the
 * queued gangs when they all ask the same (the usual shape: one task per
 * node), else 1 (whole GPUs). */
static int32_t slot_gpus(const struct cyc *y, const int32_t *g, int32_t ng)
{
	int32_t size = 0;

	for (int32_t i = 0; i < ng; i++) {
		const struct fw_job *job = &y->s->jobs[g[i]];
		for (int k = 0; k < job->ngroups; k++) {
			if (job->groups[k].gpu_milli != 1000 || job->groups[k].gpus <= 0)
				continue;
			if (size && size != job->groups[k].gpus)
				return 1;
			size = job->groups[k].gpus;
		}
	}
	return size > 0 ? size : 1;
}

/* Place one gang in the profile; its estimate is where it lands. */
static void gang_place(struct cyc *y, struct profile *pr, int32_t j, fw_time sa, int32_t slot)
{
	const struct fw_job *job = &y->s->jobs[j];
	struct fw_pending *r = &y->reason[j];
	fw_time starve = y->ji[j].submit + sa, hold = fw__runtime(y, job), t;
	fw_time dur = hold > 0 ? hold : 1; /* hold <= 0: it never ends */
	int64_t need = fw__gang_need(job) / slot;

	/* short of a budget's left: its floor is when the budget lets it
	 * go, and then it starts where the walk found room, not when it
	 * starves (measured on synthetic:3 with --budget-safe, docs/sim.md;
	 * for a job over its budget the starving floor measured as good) */
	if (need <= 0 || r->reason == FW_REASON_BUDGET_SHORT)
		return;
	if (r->reason == FW_REASON_HAS_RESERVATION) {
		/* held from its reservation, unless it starves first: then it
		 * is tried ahead of the order that reserved it so late */
		fw_time at = r->expected_start;
		if (starve <= y->s->now || at <= starve)
			return;
		profile_add(pr, at, hold, need);
		t = profile_fit(pr, starve, need, dur);
		if (t >= 0 && t < at)
			r->expected_start = t;
		profile_add(pr, r->expected_start, hold, -need);
		return;
	}
	/* held by a queue's limit (over quota), not by the order: once the
	 * limit lets it in (its floor, quota_floor) it is tried in its turn
	 * and reserved as any blocked job, so it is placed from its
	 * estimate so far, not from its starving time (on the ITP cluster06
	 * replay at quota/limit 10/24 the 9+ GPU jobs' first estimates were
	 * a median 21.5 h late with that floor, 0.0 h without) */
	if (starve < r->expected_start || r->reason == FW_REASON_OVER_QUOTA)
		starve = r->expected_start;
	if ((t = profile_fit(pr, starve, need, dur)) < 0)
		return;
	r->expected_start = t;
	profile_add(pr, t, hold, -need);
}

/* Under a policy with starve_after_s, a gang is tried ahead of the
 * fair-share order once it has waited that long, behind the older gangs.
 * Place the oldest waiting gangs, in age order, in a time profile of free
 * slots (topology aside): one with no reservation no earlier than its
 * estimate so far and its starving time, where it fits (one over quota
 * no earlier than its estimate so far alone: its queue's limit holds
 * it, gang_place); one whose
 * reservation lies beyond its starving time where it fits from that time
 * on, if that is sooner; one reserved before it starves stays where it is.
 * Each one's time there is its estimate, and holds its slots from then. */
static int gang_queue(struct est *e)
{
	struct cyc *y = e->y;
	fw_time sa = fw__starve_after(y);
	int32_t *g, ng;
	struct profile pr;
	int rc;

	if (sa <= 0 || fw__easy_depth(y) <= 0 || y->oldest_gang == INT64_MAX)
		return FW_OK; /* no starving pass (allocate.c try_starving) */
	if (!(g = FW_ARENA_RAW(y->a, int32_t, GANG_QUEUE_MAX)))
		return FW_ENOMEM;
	if ((ng = fw__oldest_gangs(y, GANG_QUEUE_MAX, waiting, g)) == 0)
		return FW_OK;
	for (int32_t i = 0; i < ng; i++)
		g[i] = y->jobs[g[i]]; /* positions to jobs */
	int32_t slot = slot_gpus(y, g, ng);
	/* room: each gang_place splits at most 4 breakpoints (a reserved
	 * gang's own times are breakpoints already, so in practice 2) */
	if ((rc = fw__resv_events(y)) != FW_OK || (rc = profile_build(y, &pr, 4 * ng + 2, slot)) != FW_OK)
		return rc;
	for (int32_t i = 0; i < ng; i++)
		gang_place(y, &pr, g[i], sa, slot);
	return FW_OK;
}

/* ---- step 6: jobs behind a held limit ---------------------------------- */

/* A job whose queue's limit a starving gang holds (LIMIT_HELD) starts no
 * sooner than that gang: allocate starts nothing on the held room until
 * it has (allocate.c hold_limits).  Unknown when the gang's start is. */
static void held_floor(struct est *e, int32_t n)
{
	struct cyc *y = e->y;

	for (int32_t i = 0; y->held && i < n; i++) {
		struct fw_pending *r = &y->reason[y->jobs[i]];
		const struct fw_pending *h = held_by(y, r);
		if (!h || r->expected_start == FW_TIME_UNKNOWN)
			continue;
		if (h->expected_start == FW_TIME_UNKNOWN)
			set_unknown(r, FW_REASON_LIMIT_HELD, r->a, r->b);
		else if (h->expected_start > r->expected_start)
			r->expected_start = h->expected_start;
	}
}

int fw__phase_estimate(struct cyc *y)
{
	int32_t n = y->pol->queue_order == FW_QORDER_GLOBAL ? y->qfirst[1] : y->qfirst[y->s->nqueues];
	struct est e;
	int64_t free_end = 0;
	int rc = est_init(&e, y, n);

	if (rc != FW_OK || (rc = refill(&e)) != FW_OK)
		return rc;
	if ((rc = sort_out(&e, n)) != FW_OK)
		return rc;
	if (e.nshp > 0 && (rc = walk(&e, &free_end)) != FW_OK)
		return rc;
	if (e.nshp > 0 && (rc = ahead_walk(&e)) != FW_OK)
		return rc;
	if ((rc = explain_open(&e, free_end)) != FW_OK)
		return rc;
	queue_pass(&e);
	if ((rc = gang_queue(&e)) != FW_OK)
		return rc;
	held_floor(&e, n);
	return FW_OK;
}
