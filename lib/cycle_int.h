/*
 * cycle_int.h — state shared by the cycle's phases (cycle.c, allocate.c,
 * reserve.c, estimate.c, plan.c).  Private to lib/.
 */
#ifndef FAIRWAY_CYCLE_INT_H
#define FAIRWAY_CYCLE_INT_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cstate.h"
#include "fairway/fairshare.h"
#include "fairway/plan.h"

/* A hint that *p will be read (w 0) or written (w 1) soon.  It changes no
 * result, only when the cache line arrives; a no-op without GCC/Clang. */
#if defined(__GNUC__) || defined(__clang__)
#define FW__PREFETCH(p, w) __builtin_prefetch((p), (w))
#else
#define FW__PREFETCH(p, w) ((void)(p))
#endif

/* How many entries ahead a loop over y->jobs (try order) asks for the
 * job's pending entry, which sits at a random place in y->reason. */
#define FW__AHEAD 8

/* A job ending: reservations release its tasks at `end` (reserve.c). */
struct ev { /* 24 bytes: sorted and merged by the tens of thousands */
	fw_time end;
	const struct fw_task_alloc *tasks;
	int32_t job;
	int32_t ntasks;
};

/* A job's shape: everything placement looks at.  Jobs of one shape place
 * alike, so the allocate memo (allocate.c) and the estimates (estimate.c)
 * work per shape, not per job. */
struct fw__shape_group {
	int32_t count, gpus, milli, model;
	int64_t cpu, mem;
};

struct fw__shape {
	int32_t ngroups, req, pref, minm, spread, pad;
	int32_t gjob;           /* a job with group filters (snapshot.h): the
				 * id of the lists its groups name + 1
				 * (cstate.h gsig); else 0 */
	int32_t slices;         /* a job with slices (snapshot.h): its ssig +
				 * 1 (cstate.h, slice.c); else 0 */
	struct fw__shape_group g[FW_MAX_GROUPS];
};

_Static_assert(sizeof(struct fw__shape) % sizeof(uint64_t) == 0, "shape is hashed as words");
_Static_assert(sizeof(struct fw__shape_group) == 4 * sizeof(int32_t) + 2 * sizeof(int64_t) &&
		       offsetof(struct fw__shape, g) == 8 * sizeof(int32_t),
	       "no padding: fw__shape_of assigns every byte");

/* The job's node filter as a shape's identity: 0 without one, else its
 * filter_id + 1 (filter.c: entries of one list share it, so their jobs
 * place alike).  Above the suspect flag in fw__shape.pad. */
static inline int32_t fw__filter_id(const struct fw__cstate *c, int32_t jx)
{
	int32_t e = c->job_entry ? c->job_entry[jx] : -1;

	return e < 0 ? 0 : c->filter_id[e] + 1;
}

/* fw_job_min_tasks(j) for a job of `all` tasks (fw_job_tasks): the
 * memo's sweep has the count already. */
static inline int32_t fw__min_tasks(const struct fw_job *j, int32_t all)
{
	return j->min_member > 0 && j->min_member < all ? j->min_member : all;
}

/* The header and the used groups (g[0 .. ngroups-1]) of job jx's shape,
 * minm its fw_job_min_tasks; the unused groups are left as they are.
 * Enough to hash and compare (both read the used part only): the memo
 * (allocate.c intern) zeroes the rest only for a shape it keeps, not
 * for each of the 100,000 jobs it passes. */
static inline void fw__shape_used(const struct fw__cstate *c, int32_t jx, const struct fw_job *j, int32_t minm,
				  struct fw__shape *k)
{
	k->ngroups = j->ngroups;
	k->req = j->required_level;
	k->pref = j->preferred_level;
	k->minm = minm;
	int32_t spread = j->spread; /* | 2 << g for a one_per_node group g,
				     * | 2 << (g + FW_MAX_GROUPS) for an apart one */
	k->pad = (j->preemptible && fw__any_suspect(c)) | /* health: preemptible gangs may use suspect nodes */
		 (int32_t)((uint32_t)fw__filter_id(c, jx) << 1); /* node filter */
	k->gjob = c->gsig ? c->gsig[jx] + 1 : 0;
	k->slices = c->ssig ? c->ssig[jx] + 1 : 0;
	for (int g = 0; g < j->ngroups; g++) {
		const struct fw_task_group *t = &j->groups[g];
		k->g[g].count = t->count;
		k->g[g].gpus = t->gpus;
		k->g[g].milli = t->gpu_milli;
		k->g[g].model = t->gpu_model[0] ? fw__model_id(c, t->gpu_model) : -2;
		k->g[g].cpu = t->cpu_milli;
		k->g[g].mem = t->mem_mib;
		spread |= (int32_t)t->one_per_node << (g + 1) | (int32_t)t->apart << (g + 1 + FW_MAX_GROUPS);
	}
	k->spread = spread; /* one store, after the loop: a load of it while
			     * an earlier store is in flight would wait */
}

/* The whole shape: every byte is assigned (no padding; unused groups
 * zero), so shapes compare with memcmp over their full size. */
static inline void fw__shape_of(const struct fw__cstate *c, int32_t jx, const struct fw_job *j,
				struct fw__shape *k)
{
	/* no memset, which costs more than the fields */
	for (int g = j->ngroups; g < FW_MAX_GROUPS; g++)
		k->g[g] = (struct fw__shape_group){ 0, 0, 0, 0, 0, 0 };
	fw__shape_used(c, jx, j, fw_job_min_tasks(j), k);
}

/* Hashes the header and the used groups only (fw__shape_used's part),
 * field by field, each read at the width it was written: a shape is
 * hashed right after fw__shape_of wrote it, and a 64-bit load over two
 * 32-bit stores still in flight cannot be forwarded from them (it waits
 * for them to retire: more than half of the samples of interning a
 * shape were that stall). */
static inline uint32_t fw__shape_hash(const struct fw__shape *k)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
#define FW__MIX(v) (h = (h ^ (uint64_t)(v)) * 0xff51afd7ed558ccdu)
	FW__MIX((uint32_t)k->ngroups);
	FW__MIX((uint32_t)k->req);
	FW__MIX((uint32_t)k->pref);
	FW__MIX((uint32_t)k->minm);
	FW__MIX((uint32_t)k->spread);
	FW__MIX((uint32_t)k->pad);
	FW__MIX((uint32_t)k->gjob);
	FW__MIX((uint32_t)k->slices);
	for (int g = 0; g < k->ngroups && g < FW_MAX_GROUPS; g++) {
		const struct fw__shape_group *x = &k->g[g];
		FW__MIX((uint32_t)x->count);
		FW__MIX((uint32_t)x->gpus);
		FW__MIX((uint32_t)x->milli);
		FW__MIX((uint32_t)x->model);
		FW__MIX((uint64_t)x->cpu);
		FW__MIX((uint64_t)x->mem);
	}
#undef FW__MIX
	return (uint32_t)(h ^ (h >> 32));
}

/* What the phases need of a job, 24 bytes instead of the record's 576. */
struct fw__jinfo {
	int64_t submit;
	int32_t prio;
	int32_t queue;
	int32_t tasks;      /* pending jobs: fw_job_tasks */
	bool pending;
	uint16_t xf;        /* pending jobs: expansion-factor steps, 0 when
			     * the order is by submit time (policy.h) */
};

struct memo; /* allocate.c: the failed-shape memo */

/* A queue's limit held for starving gangs (allocate.c hold_limits):
 * job: the oldest, -1 = not held; from: the soonest any of them may
 * start (now, or its reservation's start); res: what they ask under it. */
struct fw__hold {
	int32_t job;
	fw_time from;
	struct fw_res res;
};

/* What the queues hold of the GPU models a table of (queue, model,
 * GPUs) entries names (snapshot.model_limits or .model_deserved;
 * modellimit.c).  held is NULL when the table is empty; else per entry k
 * the milli-GPUs of its model held by its queue's subtree, live, and the
 * model's id in c.models (-1: no node has it, so nothing can be held);
 * each queue's entries as a list, first[q] then next[k], -1 ending it. */
struct fw__mtab {
	const struct fw_model_limit *e;
	int64_t *held;
	int32_t *model, *first, *next;
	bool *line;                 /* per queue: an entry on it or above it */
};

struct cyc {
	const struct fw_snapshot *s;
	const struct fw_policy_ops *pol;
	struct fw_arena *a;
	struct fw__cstate c;
	struct fw__jinfo *ji;       /* per job, from the one sweep */
	struct memo *memo;          /* allocate.c; filled by the sweep */
	/* account */
	struct fw_res *demand;      /* per queue: own jobs' requests */
	struct fw_res *alloc;       /* per queue: subtree allocation, live */
	int32_t *qlimited;          /* per queue: itself or the nearest queue
				     * above it with a limit on some resource,
				     * -1 = none (allocate.c limit_hit) */
	struct fw_share *share;     /* per queue */
	struct fw__hold *held;      /* per queue: the starving gang holding
				     * its limit, NULL = none this cycle
				     * (allocate.c hold_limits) */
	/* order */
	int32_t *jobs;              /* pending jobs grouped by leaf */
	int32_t *qfirst;            /* bucket q: jobs[qfirst[q] .. qfirst[q+1]) */
	int32_t *qnext;             /* next untried job of bucket q */
	/* allocate */
	struct fw_pending *reason;  /* per job; reason NONE = not decided */
	int32_t *started;           /* per job: decision index + 1, 0 = no */
	struct fw_decision *dec;
	int32_t ndec;
	int32_t nstarts;            /* START decisions: the max_starts budget */
	struct fw_task_alloc **dec_tasks; /* per decision */
	int64_t considered;
	/* the allocate memo's shapes, kept for the estimates: per position
	 * in jobs, the interned shape (-1: the memo's table was full) */
	int32_t *pos_shape;
	const struct fw__shape *shapes;
	int32_t nshapes;            /* shapes[0 .. nshapes): pos_shape's ids */
	/* the positions in jobs that allocate tried, in the order it tried
	 * them (try_job), for the estimates' jobs ahead (estimate.c ahead);
	 * NULL when the estimate depth is 0 */
	int32_t *tried;
	int32_t ntried;
	/* order: per-job score from the policy (NULL when it has none) */
	double *score;
	/* reservations (reserve.c) */
	int32_t nresv;
	int32_t resv_attempts;
	int32_t first_resv_job;
	struct ev *ev_run;          /* running jobs by end time, lazily */
	int32_t nev_run;
	struct ev *ev_st, *ev_tmp;  /* this cycle's starts by end time, and
				     * scratch (they trade places on a merge) */
	struct ev *ev_un;           /* reservations by their jobs' expected
				     * ends (those that end), sorted as made */
	int32_t nev_un;
	struct ev *ev_back;         /* returning nodes by back_at, lazily */
	int32_t nev_back;
	int32_t nev_st, ev_seen;    /* ... and decisions folded in so far */
	int32_t *step_node;         /* the nodes the walk's last step changed */
	int32_t *step_stamp;        /* (fw__walk_release), each once: per node, */
	int32_t nstep_node, step;   /* the step that last listed it */
	struct fw__node *cl_nodes;  /* the reservation clone's buffers, */
	struct fw__domain *cl_dom;  /* allocated once per cycle */
	struct fw__level_index *cl_lvl;
	int32_t *cl_tb_next, *cl_tb_prev; /* ... and its tainted-node lists */
	int32_t *cl_fhist, *cl_fsum;    /* ... and its node filters' histograms and sums */
	int32_t *cl_mhist;              /* ... and its GPU models' histograms */
	int64_t *model_cap;         /* usable whole GPUs per model (reserve.c) */
	struct fw__bounds {         /* the largest usable node (reserve.c) */
		int64_t *model_node; /* good GPUs, per model */
		int64_t gpus, cpu, mem;
	} bounds;
	fw_time first_resv_at;
	/* reclaim (preempt.c): per job, evicted by this plan */
	bool *evicted;
	int32_t nevicted;
	bool reclaimed;             /* the reclaim phase evicted: capacity grew
				     * after allocate's failures (estimate.c) */
	/* health (drain.c): per job DRAIN_OFF, or marked by the drain (its
	 * eviction to write, then written); NULL when no node is out of
	 * service.  drain_jobs_on: per node its running jobs (a DRAIN's b);
	 * ndrain_dec: the decisions the drain writes */
	uint8_t *drained;
	int32_t *drain_jobs_on, ndrain_dec;
	int32_t *drain_list, ndrain_list; /* the marked jobs, in job order */
	struct rc *reclaim;         /* preempt.c's state, made on first use */
	fw_time oldest_gang;        /* earliest submit of a pending gang (gather) */
	int32_t npreemptible;       /* running preemptible jobs with tasks (gather):
				     * none, and reclaim has no victim to look for */
	/* users inside a queue (config user_fair_share; NULL when off): per
	 * job its user as a small id and its milli-GPUs (a running job's
	 * held, a pending one's asked, else 0), both filled by gather;
	 * utab the ids' open-addressed table (the first job of each name) */
	int32_t *uid, *utab, ucap, nusers;
	int64_t *ugpu;
	/* GPU model limits and deserved GPUs of a model (modellimit.c) */
	struct fw__mtab mlim, mdes;
	/* run-time limits (cycle.c limits_mark): per queue the limit its jobs
	 * have (fw_job_limit), 0 = none; NULL when no queue sets one */
	fw_time *qlimit;
	/* GPU-hour budgets (cycle.c budget_mark): per queue the queue on its
	 * way up that has used its budget, else -1; NULL when none sets one */
	int32_t *qbudget;
	double *qused; /* per queue its subtree's decayed usage at now */
	/* config.budget_safe (cycle.c budget_mark): per queue with a budget,
	 * the GPU-seconds it has left after its subtree's usage and its
	 * running jobs' remaining runs, this cycle's starts taken off as they
	 * are made (fw__budget_charge); -INFINITY when a running job under it
	 * has no bound.  NULL when off or no queue sets a budget. */
	double *qleft;
	fw_time *jbound; /* with qleft: per job under a budget its bound
			  * (fw__bound), else 0 */
	double *jneed; /* with qleft: per waiting job under a budget its
			* whole run's GPU-seconds (INFINITY: unbounded),
			* else 0 */
};

/* A waiting job's expected start t, never now: the plan does not start
 * it, so the next cycle is its earliest (plan.h; estimate.c says where a
 * time at now comes from). */
static inline fw_time fw__not_now(fw_time now, fw_time t)
{
	return t > now ? t : now + 1;
}

/* What running job j holds: its tasks' GPUs (milli), CPU and memory. */
static inline struct fw_res fw__job_use(const struct fw_snapshot *s, const struct fw_job *j)
{
	struct fw_res r = fw_res_zero();

	for (int32_t k = 0; k < j->alloc_count; k++) {
		const struct fw_task_alloc *a = &s->allocs[j->alloc_first + k];
		r.v[FW_RES_GPU] += (int64_t)__builtin_popcount(a->gpu_mask) * a->gpu_milli;
		r.v[FW_RES_CPU] += j->groups[a->group].cpu_milli;
		r.v[FW_RES_MEM] += j->groups[a->group].mem_mib;
	}
	return r;
}

/* May no job of queue q start (its queue or an ancestor has used its
 * GPU-hour budget)?  Then r, when given, says so: OVER_BUDGET, a = the
 * used GPU-hours (rounded down), b = the budget (rounded up). */
static inline bool fw__over_budget(const struct cyc *y, int32_t q, struct fw_pending *r)
{
	int32_t k = y->qbudget ? y->qbudget[q] : -1;

	if (k < 0)
		return false;
	if (r) {
		r->reason = FW_REASON_OVER_BUDGET;
		r->a = (int64_t)floor(y->qused[k] / 3600.0);
		r->b = (int64_t)ceil(y->s->queues[k].gpu_hour_budget);
	}
	return true;
}

/* Would a job under queue q of request req that runs until end pass a
 * limit on q's way up that starving gangs hold (y->held, allocate.c
 * hold_limits), counted beside them?  Then r, when given, says so:
 * LIMIT_HELD, a = the oldest such gang, b = the queue.  false when
 * nothing is held this cycle. */
bool fw__limit_held(const struct cyc *y, int32_t q, struct fw_res req, fw_time end, struct fw_pending *r);

/* Under config.budget_safe (y->qleft): would job jx's whole run pass
 * what a budget on its way up has left (cycle.c)?  Then r, when given,
 * says so: BUDGET_SHORT, a = the job's GPU-hours rounded up (-1: it has
 * no bound), b = the hours left rounded down (-1: a running job under
 * that queue has none).  fw__budget_charge takes a start's run off. */
bool fw__budget_short(const struct cyc *y, int32_t jx, struct fw_pending *r);
void fw__budget_charge(struct cyc *y, int32_t jx, const struct fw_task_alloc *t, int32_t n);

/* fw_job_limit(y->s, j) from y->qlimit: no walk up the queue tree. */
static inline fw_time fw__limit(const struct cyc *y, const struct fw_job *j)
{
	fw_time m = y->qlimit ? y->qlimit[j->queue] : 0;

	return j->max_runtime_s > 0 && (m == 0 || j->max_runtime_s < m) ? j->max_runtime_s : m;
}

/* fw_job_runtime(y->s, j), the limit from fw__limit: no walk up the
 * queue tree for a job that gives its runtime (the hot case). */
static inline fw_time fw__runtime(const struct cyc *y, const struct fw_job *j)
{
	fw_time r, m;

	if (j->expected_runtime <= 0)
		return fw_job_runtime(y->s, j);
	r = j->expected_runtime;
	m = fw__limit(y, j);
	return m > 0 && r > m ? m : r;
}

/* fw_job_bound(y->s, j) with fw__limit's cache: its limit, else its
 * planned runtime; 0 = unbounded. */
static inline fw_time fw__bound(const struct cyc *y, const struct fw_job *j)
{
	fw_time m = fw__limit(y, j);

	return m > 0 ? m : fw__runtime(y, j);
}

/* When j, started at t, is expected to end (its runtime or its queue's
 * default, at most its limit: fw__runtime); FW__NEVER when unknown. */
static inline fw_time fw__job_end(const struct cyc *y, const struct fw_job *j, fw_time t)
{
	fw_time r = fw__runtime(y, j);

	return r > 0 ? t + r : FW__NEVER;
}
/* Room for the plan's decisions: one per job (a start, a reservation or
 * an eviction), plus a second one for each job that consolidation moves
 * (its EVICT, then its START elsewhere), at most the policy's max_moves
 * and never more than the jobs, plus the drain's (drain.c: a DRAIN per
 * node it drains, and two per requeued job: its EVICT and the START that
 * may restart it). */
static inline size_t fw__max_decisions(const struct cyc *y)
{
	size_t n = (size_t)y->s->njobs, moves = y->pol->max_moves > 0 ? (size_t)y->pol->max_moves : 0;

	return n + 1 + (moves < n ? moves : n) + (size_t)y->ndrain_dec;
}

static inline int fw__ev_cmp(const struct ev *a, const struct ev *b)
{
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

/* Try to reserve capacity for job jx (reserve.c); FW_OK and a RESERVE
 * decision when it fits at some future time, FW_EDECLINED otherwise. */
int fw__reserve(struct cyc *y, int32_t jx);
/* The reservation machinery, shared with the estimates (reserve.c):
 * copy y->c into *d (reserved nodes unusable; one set of clone buffers
 * per cycle, so one clone is live at a time); sort the running jobs' and
 * this cycle's starts' end events into y->ev_run / y->ev_st; release an
 * ended job's tasks on a clone; whole GPUs a gang needs for sure (0 if
 * elastic); can the gang never fit, not even with every job ended (*cap:
 * then the most GPUs it could ever get in one place it may use)? */
int fw__resv_clone(struct cyc *y, struct fw__cstate *d, struct fw__cstate *s);
int fw__resv_events(struct cyc *y);
void fw__resv_release(struct fw__cstate *c, const struct fw_job *j, const struct ev *e);
/* The walk over a clone in time order, four event streams: the running
 * jobs' ends (y->ev_run), this cycle's starts' ends (y->ev_st), the
 * reservations' ends (y->ev_un, kept by reserve.c as each reservation
 * is made: when its job is expected to end; a node comes back once the
 * last reservation holding it has ended) and the returning nodes' back_at
 * (y->ev_back: a node out of service now takes work from then on, or
 * from its last reservation's end if later).  fw__walk_init fills
 * st[FW__NSTREAMS] (fw__resv_events first);
 * fw__walk_next is the next event time (FW__NEVER: none left);
 * fw__walk_release applies every event at t to the clone and lists the
 * nodes it changed in y->step_node[0 .. nstep_node): only those can take
 * a one-task job that did not fit before the step (fw__place_one_fits). */
struct fw__stream {
	const struct ev *v;
	int32_t n, i;
};
#define FW__NSTREAMS 4
int fw__walk_init(struct cyc *y, struct fw__stream st[FW__NSTREAMS]);
fw_time fw__walk_next(const struct fw__stream st[FW__NSTREAMS]);
void fw__walk_release(struct cyc *y, struct fw__cstate *cl, struct fw__stream st[FW__NSTREAMS], fw_time t);
/* One more end at the step fw__walk_release began (a job the estimates
 * held in the clone, estimate.c ahead): released, its nodes listed. */
void fw__walk_release_one(struct cyc *y, struct fw__cstate *cl, const struct ev *x);
/* Node n changed at that step some other way (listed once). */
void fw__walk_step_node(struct cyc *y, int32_t n);
int64_t fw__gang_need(const struct fw_job *job);
/* Could a step of the walk that changed only nodes step[0 .. nstep), each
 * gaining room, have made job j (no node filter) fit, where it did not
 * fit before the step?  Only if fw__room_near says so for a step node
 * (cstate.h).  The estimate walk skips the search of a shape whose job
 * it answers no for (estimate.c); tested against the search itself
 * (test_domain.c). */
bool fw__step_helps_gang(const struct fw__cstate *cl, const struct fw_job *j, int64_t need, const int32_t *step,
			 int32_t nstep);
/* Why a job can never fit (fw__resv_hopeless): never, with the reason
 * (NEVER_FITS: GPUs; TASK_CPU, TASK_MEM: one task's CPU or memory), what
 * it needs and the most that is ever usable where it could go. */
struct fw__hopeless {
	bool never;
	enum fw_reason why;
	int64_t need, cap;
};
int fw__resv_hopeless(struct cyc *y, const struct fw_job *job, int64_t need, struct fw__hopeless *h);

/* GPU model limits (modellimit.c).  fw__mlim_create counts what each
 * limited queue holds (phase_build, after gather); fw__mlim_charge adds
 * (sign 1) or takes off (-1) the tasks of job jx as it starts or is
 * evicted.  fw__mlim_gate: may job jx start under its queues' model
 * limits, and on which models may its groups that name no model go?
 * false: no, *r says which limit (MODEL_LIMIT); true: yes, with *open
 * the models allowed (bit m = c.models[m]); all bits (fw__mlim_all):
 * any, as the job says; fewer: *r names the first limit that closed a
 * model, the reason should the job fit on none of the others.
 * fw__place_gated places job jx as fw__place_job does, those groups on
 * one allowed model at a time (each in id order, the first that fits)
 * when open is not every model (fw__place_models).  Both test for the
 * common case inline: no limits, or all models open. */
int fw__mlim_create(struct cyc *y);
void fw__mlim_charge(struct cyc *y, int32_t jx, const struct fw_task_alloc *t, int32_t n, int sign);
bool fw__mlim_gate_limited(const struct cyc *y, int32_t jx, const struct fw__shape *sh, uint64_t *open,
			   struct fw_pending *r);
int fw__place_models(struct fw__cstate *c, int32_t jx, const struct fw__place_opts *o, uint64_t open,
		     struct fw__placement *out);

/* Deserved GPUs of a model (modellimit.c; preempt.c "Deserved GPUs of a
 * model").  fw__mdes_need: job jx's GPUs by model (ids in m, milli-GPU
 * in v, at most FW_MAX_GROUPS) when all of them name a model and its
 * line deserves some model; else 0.  fw__mdes_claim: does the line of
 * queue pq, below the queues it shares with vq's, deserve room for
 * those GPUs of every model, each under one of its entries?
 * fw__mdes_shields: would taking tasks a[0 .. na) off vq's line put one
 * of its queues, below those it shares with pq's, under what it
 * deserves of a model?  fw__mdes_on: do those tasks hold GPUs of one of
 * the models m[0 .. n)? */
int fw__mdes_need(const struct cyc *y, int32_t jx, int32_t *m, int64_t *v);
bool fw__mdes_claim(const struct cyc *y, int32_t pq, int32_t vq, const int32_t *m, const int64_t *v, int n);
bool fw__mdes_shields(const struct cyc *y, int32_t vq, int32_t pq, const struct fw_task_alloc *a, int32_t na);
bool fw__mdes_on(const struct cyc *y, const int32_t *m, int n, const struct fw_task_alloc *a, int32_t na);

static inline uint64_t fw__models_all(const struct fw__cstate *c)
{
	return c->nmodels >= 64 ? ~0ull : (1ull << c->nmodels) - 1;
}

static inline uint64_t fw__mlim_all(const struct cyc *y)
{
	return fw__models_all(&y->c);
}

/* Inline: a snapshot without model limits pays a test per job.  sh:
 * the job's shape when the caller has it (else NULL: its record). */
static inline bool fw__mlim_gate_as(const struct cyc *y, int32_t jx, const struct fw__shape *sh, uint64_t *open,
				    struct fw_pending *r)
{
	if (!y->mlim.held) {
		*open = fw__mlim_all(y);
		return true;
	}
	return fw__mlim_gate_limited(y, jx, sh, open, r);
}

static inline bool fw__mlim_gate(const struct cyc *y, int32_t jx, uint64_t *open, struct fw_pending *r)
{
	return fw__mlim_gate_as(y, jx, NULL, open, r);
}

static inline int fw__place_gated(struct fw__cstate *c, int32_t jx, const struct fw__place_opts *o, uint64_t open,
				  struct fw__placement *out)
{
	if (open == fw__models_all(c))
		return fw__place_job(c, jx, o, out);
	return fw__place_models(c, jx, o, open, out);
}

int fw__phase_allocate(struct cyc *y);
/* The cycle's starvation age (policy starve_after_s, config override);
 * 0 = off. */
fw_time fw__starve_after(const struct cyc *y);
/* Easy backfill's depth: the policy's reserve_depth, or the snapshot's
 * override for a policy that makes reservations at all (snapshot.h
 * reserve_depth); also the most starving gangs tried first. */
int32_t fw__easy_depth(const struct cyc *y);
/* Reservations allowed this cycle (the easy depth, or unbounded in
 * conservative mode) and the attempts they may take. */
int32_t fw__resv_depth(const struct cyc *y, int32_t *attempts);
/* How many blocked jobs' estimates count the jobs ahead (snapshot.h
 * estimate_depth; 0 with estimates off). */
int32_t fw__estimate_depth(const struct cyc *y);
/* The (up to) K oldest pending gangs (more than one task) that keep(y,
 * pos) accepts, by (submit, job index): positions in y->jobs, sorted by
 * insertion (K is small).  Used for starving gangs (allocate.c) and the
 * gang queue of the estimates (estimate.c). */
int32_t fw__oldest_gangs(const struct cyc *y, int32_t K, bool (*keep)(const struct cyc *, int32_t),
			 int32_t *best);
int fw__memo_create(struct cyc *y, int32_t max_pending);
/* Called by the job sweep for each pending job j: its request and its
 * task count (fw_job_request, fw_job_tasks). */
void fw__memo_add_job(struct cyc *y, int32_t j, const struct fw_job *job, struct fw_res req, int32_t tasks);
/* Record a START of job jx at placement p: decision, started[], reason,
 * queue allocation (allocate.c). */
int fw__record_start(struct cyc *y, int32_t jx, const struct fw__placement *p);
/* Evict running preemptible jobs for a job that then starts (preempt.c);
 * a no-op unless the policy sets `reclaim`. */
int fw__phase_reclaim(struct cyc *y);
/* After the estimates: a preemptor that waits for its victims'
 * checkpoints (CHECKPOINT_WAIT, config checkpoint_grace_s) is expected no
 * later than the last of them (preempt.c). */
void fw__checkpoint_estimates(struct cyc *y);
/* Consolidation (policy max_moves): start gang jx, which just failed to
 * place, by moving single-task preemptible jobs elsewhere.  1: started
 * (EVICT ... START jx, START moved ...), 0: nothing changed, < 0: error. */
int fw__consolidate(struct cyc *y, int32_t jx);
/* The claim in allocate (preempt.c, "Deserved GPUs of a model"): job jx,
 * which just failed to place, before it may earn a reservation, takes
 * the GPUs of a model its line deserves back now from queues holding
 * more of it than they deserve.  1: started (EVICT ... START jx) or
 * waiting for its victims' checkpoints, 0: nothing changed, < 0: error. */
int fw__claim(struct cyc *y, int32_t jx);
/* Expected start time, or why unknown, for every job that did not start
 * (estimate.c); fills y->reason[j].expected_start/unknown_why/ahead. */
int fw__phase_estimate(struct cyc *y);
/* lib/minrun.c: a waiting job below its share whose room reclaim would
 * take but for its victims' minimum runtime: reason MIN_RUNTIME, and
 * expected no later than their protection ends (after the estimates). */
int fw__minrun_waits(struct cyc *y);
int fw__phase_emit(struct cyc *y, struct fw_plan **out);
/* Health (drain.c): the HEALTH reason for a job placement refused;
 * fw__drain_mark (before the build, after the run-time limits) marks the
 * running jobs the drain requeues as evicted, so the build leaves their
 * GPUs free; fw__drain_emit (right after the limits' evictions) writes
 * the DRAIN decisions and the DRAINED evictions; fw__drain_restart (first
 * in allocate, allocate.c) starts each requeued job again elsewhere when it fits. */
void fw__health_explain(const struct cyc *y, const struct fw_job *j, struct fw_pending *r);
/* Would job jx, which the cluster can never hold as it is, fit it once
 * health gives back what it holds out (drain.c "mend")?  FW_OK: yes, *a
 * = the nodes health holds from it or took GPUs from, *b = the nodes
 * with GPUs; FW_EDECLINED: no, or health holds nothing from it; else an
 * error.  *m, zeroed before the first call, keeps the counts and the
 * mended cluster (built on the first job that needs it) for the next. */
struct fw__mend {
	struct fw__cstate c;      /* the mended cluster, once built */
	struct fw__cstate lifted; /* ... with its cordons lifted too */
	bool counted, built, lifted_built;
	int32_t held[2];          /* nodes health holds from a job that may use
				   * suspect nodes [0], or avoids them [1] */
	int64_t touched[2];       /* ... and the nodes in use with a bad GPU */
	int32_t cordoned;         /* healthy nodes the operator cordoned
				   * (schedulable: false), not back by a
				   * known time: what lifting gives back */
	int64_t gpu_nodes;        /* nodes with GPUs of the mended cluster */
	int64_t lifted_nodes;     /* ... and of the lifted one */
};
int fw__health_mended(struct cyc *y, int32_t jx, struct fw__mend *m, struct fw__hopeless *h);
enum { FW__DRAIN_OFF, FW__DRAIN_MARKED, FW__DRAIN_WRITTEN };
int fw__drain_mark(struct cyc *y);
void fw__drain_emit(struct cyc *y);
int fw__drain_restart(struct cyc *y);

#endif
