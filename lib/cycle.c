/*
 * cycle.c — one scheduling cycle as a list of named phases (cycle.h).
 *
 *   limits    running jobs that have run their run-time limit (their own
 *             or their queues' max_runtime_s) end: EVICT, reason
 *             TIME_LIMIT, first in the plan; the build below leaves their
 *             GPUs free
 *   drain     DRAIN decisions for UNHEALTHY and DRAINING nodes with running
 *             jobs (or idle and still schedulable), and by policy DRAINED
 *             evictions of those jobs, next in the plan; the build leaves
 *             the requeued jobs' GPUs free, and allocate first starts each
 *             again elsewhere when it fits (drain.c)
 *   budgets   the queues that have used their GPU-hour budget start
 *             nothing (fw__over_budget), and demand nothing in gather;
 *             under config.budget_safe a job starts only if its whole run
 *             fits what the budget has left after the usage and the
 *             running jobs' remaining runs (fw__budget_short), each start
 *             taking its run off (fw__budget_charge)
 *   build     per-cycle node state and domain index (domain.c)
 *   account   demand and allocation per queue, fair shares (fairshare.c)
 *   order     each leaf queue's pending jobs, by the policy's job_before
 *   users     (config user_fair_share) within each leaf queue's line, the
 *             users of one priority take turns, the one holding fewer GPUs
 *             first (phase_users)
 *   allocate  restart the jobs the drain requeued; then pick the queue
 *             furthest below its fair share, try its next job (limit and
 *             budget checks, then placement), repeat
 *   reclaim   (policies with `reclaim`) evict preemptible jobs of queues
 *             above their fair share, or of lower priority in the same
 *             queue, for a job that then starts in this plan (preempt.c)
 *   estimate  an expected start time (or why unknown) for every job that
 *             did not start (estimate.c); a preemptor waiting for its
 *             victims' checkpoints is expected by the last of them
 *             (fw__checkpoint_estimates, preempt.c)
 *   minrun    a job whose room reclaim would take but for its victims'
 *             minimum runtime: reason MIN_RUNTIME, expected no later
 *             than their protection ends (fw__minrun_waits, minrun.c)
 *   emit      the plan: starts, a reason for every job that did not start,
 *             and each queue's share and allocation
 *
 * Within a cycle capacity only shrinks, so a shape that failed to place
 * fails again: a small memo keyed by the job's shape answers repeats in
 * O(1) — the difference between 100,000 placement searches and a few
 * hundred.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/budget.h"
#include "fairway/cycle.h"
#include "fairway/fairshare.h"
#include "cycle_int.h"

/* The expansion-factor cap of the cycle (policy xfactor_cap_s, config
 * override); 0 = submit order.  A policy that orders its jobs itself
 * (job_before, job_score) keeps its order. */
static fw_time xfactor_cap(const struct cyc *y)
{
	int64_t c = y->s->config.xfactor_cap_s;

	if (y->pol->job_before || y->pol->job_score)
		return 0;
	return c > 0 ? c : c < 0 ? 0 : y->pol->xfactor_cap_s;
}

/* A pending job's expansion factor in steps (policy.h xfactor_cap_s):
 * v = floor(256 * wait / r) on a log scale, 16 steps per doubling:
 * 0 for v = 0, else 1 + 16 * floor(log2 v) + the 4 bits after v's top
 * bit.  Integers only, so every platform orders alike; wait is clamped to
 * 2^40 s, so v < 2^42 and the steps stay under 700. */
static uint16_t xfactor_steps(const struct cyc *y, const struct fw_job *j, fw_time cap)
{
	fw_time r = fw__runtime(y, j);
	fw_time wait = y->s->now - j->submit_time;

	r = r <= 0 || r > cap ? cap : r;
	r = r < FW_XFACTOR_MIN_RUNTIME ? FW_XFACTOR_MIN_RUNTIME : r;
	if (wait <= 0)
		return 0;
	wait = wait > ((fw_time)1 << 40) ? (fw_time)1 << 40 : wait;
	uint64_t v = ((uint64_t)wait << 8) / (uint64_t)r;
	if (!v)
		return 0;
	int e = 63 - __builtin_clzll(v);
	uint64_t m = e >= 4 ? v >> (e - 4) : v << (4 - e);
	return (uint16_t)(1 + 16 * e + (int)(m & 15));
}

/* With user_fair_share, for a policy with a line per queue: gather's
 * per-job user ids and GPUs (cycle_int.h). */
static int users_create(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;

	if (!s->config.user_fair_share || y->pol->queue_order == FW_QORDER_GLOBAL)
		return FW_OK;
	for (y->ucap = 16; y->ucap < 2 * s->njobs + 2;)
		y->ucap *= 2;
	y->uid = FW_ARENA_RAW(y->a, int32_t, s->njobs + 1);
	y->ugpu = FW_ARENA_RAW(y->a, int64_t, s->njobs + 1);
	y->utab = FW_ARENA_RAW(y->a, int32_t, y->ucap);
	if (!y->uid || !y->ugpu || !y->utab)
		return FW_ENOMEM;
	memset(y->utab, 0xff, (size_t)y->ucap * sizeof *y->utab);
	return FW_OK;
}

/* The id table's slot for a user name: the slot that holds it, or the
 * empty slot where it would go. */
static uint32_t user_slot(const struct cyc *y, const char *user)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t m = (uint32_t)y->ucap - 1, k;

	for (const char *c = user; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (k = (uint32_t)(h ^ (h >> 32)) & m; y->utab[k] >= 0; k = (k + 1) & m)
		if (!strcmp(y->s->jobs[y->utab[k]].user, user))
			break;
	return k;
}

/* Job j's user as a small id (names compared whole; "" is a user too),
 * while gather has its record at hand. */
static int32_t user_id(struct cyc *y, int32_t j, const struct fw_job *job)
{
	uint32_t k = user_slot(y, job->user);

	if (y->utab[k] >= 0)
		return y->uid[y->utab[k]];
	y->utab[k] = j;
	return y->nusers++;
}

/* A user's past use in a queue as a GPU count (snapshot user_usage): its
 * decayed GPU-seconds now, times ln 2 / half-life (so a user who has held
 * g GPUs for many half-lives counts as g), times the usage weight (0:
 * off); in milli-GPUs. */
static int64_t past_use(const struct cyc *y, const struct fw_user_usage *u)
{
	double h = y->s->config.usage_half_life_s, w = y->s->config.usage_weight;
	double g = w > 0 && h > 0 ? w * 1000.0 * fw_usage_decay(u->usage, u->usage_at, y->s->now, h) * 0.69314718055994531 / h
				  : 0;

	return g < 1e15 ? (int64_t)llround(g) : (int64_t)1e15;
}

/* Add the past use of queue q's users who have jobs (user_usage entries
 * first[q], next[...]) to held; with clear, zero their entries instead. */
static void add_past_use(const struct cyc *y, int32_t q, const int32_t *first, const int32_t *next, int64_t *held,
			 bool clear)
{
	for (int32_t i = first ? first[q] : -1; i >= 0; i = next[i]) {
		uint32_t k = user_slot(y, y->s->user_usage[i].user);
		if (y->utab[k] < 0)
			continue;
		int64_t *h = &held[y->uid[y->utab[k]]];
		*h = clear ? 0 : *h + past_use(y, &y->s->user_usage[i]);
	}
}

/* The one sweep over the (large) job records: a compact per-job summary
 * for the later phases, each queue's demand and allocation, and the
 * largest pending gang.  Later phases read y->ji, not the records. */
static int32_t gather(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t max_tasks = 1;
	fw_time cap = xfactor_cap(y);

	y->oldest_gang = INT64_MAX;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		struct fw__jinfo *ji = &y->ji[j];
		struct fw_res use = fw_res_zero();
		memset(&y->reason[j], 0, sizeof y->reason[j]); /* phase_build */
		ji->submit = job->submit_time;
		ji->prio = job->priority;
		ji->queue = job->queue;
		ji->pending = job->state == FW_JOB_PENDING;
		ji->tasks = 0;
		ji->xf = 0;
		if (job->state == FW_JOB_RUNNING && y->evicted && y->evicted[j]) {
			/* ended by its run-time limit, or requeued by the
			 * drain: holds nothing.  A requeued job asks again
			 * (allocate restarts it first when it fits). */
			if (y->drained && y->drained[j] && !(y->qbudget && y->qbudget[job->queue] >= 0))
				use = fw_job_request(job);
			if (y->drained && y->drained[j] && fw_job_tasks(job) > max_tasks)
				max_tasks = fw_job_tasks(job);
		} else if (job->state == FW_JOB_RUNNING) {
			y->npreemptible += job->alloc_count > 0 && fw_job_evictable(s, job);
			use = fw__job_use(s, job);
			for (int32_t q = job->queue; q >= 0; q = s->queues[q].parent)
				y->alloc[q] = fw_res_add(y->alloc[q], use);
		} else {
			use = fw_job_request(job);
			ji->tasks = fw_job_tasks(job);
			if (cap > 0 && ji->pending)
				ji->xf = xfactor_steps(y, job, cap);
			if (ji->tasks > max_tasks)
				max_tasks = ji->tasks;
			if (ji->tasks > 1 && job->submit_time < y->oldest_gang)
				y->oldest_gang = job->submit_time;
			fw__memo_add_job(y, j, job, use, ji->tasks);
			if (y->qbudget && (y->qbudget[job->queue] >= 0 || (y->qleft && fw__budget_short(y, j, NULL))))
				use = fw_res_zero(); /* over a budget: it demands nothing */
		}
		y->demand[job->queue] = fw_res_add(y->demand[job->queue], use);
		if (y->uid) {
			y->uid[j] = user_id(y, j, job);
			bool holds = job->state == FW_JOB_RUNNING && !(y->evicted && y->evicted[j]);
			y->ugpu[j] = ji->pending || holds ? use.v[FW_RES_GPU] : 0;
		}
	}
	return max_tasks;
}

/* ---- limits ---------------------------------------------------------- */

/* Running jobs that have run their run-time limit (fw_job_limit: their
 * own, or their queues') end in this plan: marked in y->evicted before
 * the build, so the node state, the queues' allocation and every later
 * phase see their GPUs free, and written first in the plan
 * (limits_emit), before any start that may use them.  The queues'
 * limits are folded once (y->qlimit, only when some queue sets one);
 * then one sweep over the jobs' hot fields; y->evicted is made at the
 * first end. */
static int limits_mark(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t q = 0;

	while (q < s->nqueues && s->queues[q].max_runtime_s <= 0)
		q++;
	if (q < s->nqueues) {
		if (!(y->qlimit = FW_ARENA_NEW(y->a, fw_time, s->nqueues + 1)))
			return FW_ENOMEM;
		for (q = 0; q < s->nqueues; q++)
			y->qlimit[q] = fw_queue_limit(s, q);
	}
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		fw_time m;
		if (job->state != FW_JOB_RUNNING || (m = fw__limit(y, job)) <= 0 || s->now - job->start_time < m)
			continue;
		if (!y->evicted && !(y->evicted = FW_ARENA_NEW(y->a, bool, s->njobs + 1)))
			return FW_ENOMEM;
		y->evicted[j] = true;
		y->nevicted++;
	}
	return FW_OK;
}

/* One EVICT per ended job, in job order: a = the seconds it ran, b = its
 * limit. */
static void limits_emit(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;

	for (int32_t j = 0; y->nevicted && j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (!y->evicted[j] || (y->drained && y->drained[j]))
			continue;
		struct fw_decision *d = &y->dec[y->ndec];
		memset(d, 0, sizeof *d);
		d->kind = FW_DECIDE_EVICT;
		d->reason = FW_REASON_TIME_LIMIT;
		d->job = j;
		d->node = -1;
		d->at = s->now;
		d->alloc_count = job->alloc_count;
		d->a = s->now - job->start_time;
		d->b = fw__limit(y, job);
		y->dec_tasks[y->ndec++] = s->allocs + job->alloc_first;
	}
}

/* ---- budgets --------------------------------------------------------- */

/* What the restart of a job the drain requeued adds to its queues'
 * budget use beyond what fw_budget_left counted for it (the rest of its
 * old run, at the GPUs it held): its whole run from now, less that rest;
 * INFINITY without a bound. */
static double restart_more(const struct cyc *y, const struct fw_job *j, double whole)
{
	double old;

	if (isinf(whole))
		return whole;
	old = fw_run_left(fw__bound(y, j), fw__job_use(y->s, j).v[FW_RES_GPU], j->start_time, y->s->now);
	return whole > old ? whole - old : 0;
}

/* config.budget_safe: per job under a budget its bound (y->jbound, one
 * walk up the tree per job: fw__limit's cache), y->qleft (fw_budget_left
 * before any decision: a job the limits phase ended has no run left) and,
 * per waiting job under a budget, its whole run (y->jneed; for a job the
 * drain requeued, what its restart adds: restart_more). */
static int budget_left(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	bool *under = FW_ARENA_NEW(y->a, bool, s->nqueues + 1); /* a budget on its way up? */

	y->qleft = FW_ARENA_RAW(y->a, double, s->nqueues + 1);
	y->jneed = FW_ARENA_NEW(y->a, double, s->njobs + 1);
	y->jbound = FW_ARENA_NEW(y->a, fw_time, s->njobs + 1);
	if (!under || !y->qleft || !y->jneed || !y->jbound)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		for (int32_t k = q, n = 0; k >= 0 && n <= s->nqueues && !under[q]; k = s->queues[k].parent, n++)
			under[q] = s->queues[k].gpu_hour_budget > 0;
	for (int32_t j = 0; j < s->njobs; j++)
		if (under[s->jobs[j].queue])
			y->jbound[j] = fw__bound(y, &s->jobs[j]);
	fw_budget_left(s, NULL, y->qused, y->jbound, y->qleft, NULL);
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		bool restarts = y->drained && y->drained[j];
		if (!under[job->queue] || (job->state == FW_JOB_RUNNING && !restarts))
			continue;
		y->jneed[j] = fw_run_left(y->jbound[j], fw_job_request(job).v[FW_RES_GPU], s->now, s->now);
		if (restarts)
			y->jneed[j] = restart_more(y, job, y->jneed[j]);
	}
	return FW_OK;
}

bool fw__budget_short(const struct cyc *y, int32_t jx, struct fw_pending *r)
{
	const struct fw_snapshot *s = y->s;
	const struct fw_job *j = &s->jobs[jx];
	double need = y->qleft ? y->jneed[jx] : 0;

	if (need <= 0)
		return false;
	for (int32_t k = j->queue, n = 0; k >= 0 && n <= s->nqueues; k = s->queues[k].parent, n++) {
		double left = y->qleft[k];
		if (!(s->queues[k].gpu_hour_budget > 0) || need <= left)
			continue;
		if (r) {
			r->reason = FW_REASON_BUDGET_SHORT;
			r->a = isinf(need) ? -1 : (int64_t)ceil(need / 3600.0);
			r->b = isinf(left) ? -1 : left > 0 ? (int64_t)floor(left / 3600.0) : 0;
		}
		return true;
	}
	return false;
}

void fw__budget_charge(struct cyc *y, int32_t jx, const struct fw_task_alloc *t, int32_t n)
{
	const struct fw_snapshot *s = y->s;
	const struct fw_job *j = &s->jobs[jx];
	int64_t g = 0;
	double run;

	bool restarts = y->drained && y->drained[jx];

	if (!y->qleft || (j->state == FW_JOB_RUNNING && !restarts)) /* a moved job's run was counted */
		return;
	for (int32_t k = 0; k < n; k++)
		g += (int64_t)__builtin_popcount(t[k].gpu_mask) * t[k].gpu_milli;
	run = fw_run_left(fw__bound(y, j), g, s->now, s->now); /* j is in cache: no y->jbound miss */
	if (restarts) /* the rest of its old run was counted */
		run = restart_more(y, j, run);
	for (int32_t k = j->queue, m = 0; k >= 0 && m <= s->nqueues; k = s->queues[k].parent, m++)
		if (s->queues[k].gpu_hour_budget > 0)
			y->qleft[k] -= run;
}

/* GPU-hour budgets (fw_queue.gpu_hour_budget): per queue, the queue on
 * its way to the root whose subtree has used its budget (decayed usage
 * at now, each queue's added to it and its ancestors), nearest first,
 * else -1; NULL when no queue sets a budget.  Before gather, which
 * leaves such queues' pending jobs out of the demand (they may start
 * nothing, as a queue at its limit), so fair share does not count them;
 * allocate and reclaim ask it per job (fw__over_budget). */
static int budget_mark(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t q = 0;

	while (q < s->nqueues && !(s->queues[q].gpu_hour_budget > 0))
		q++;
	if (q == s->nqueues)
		return FW_OK;
	y->qused = FW_ARENA_NEW(y->a, double, s->nqueues + 1);
	y->qbudget = FW_ARENA_RAW(y->a, int32_t, s->nqueues + 1);
	if (!y->qused || !y->qbudget)
		return FW_ENOMEM;
	fw_budget_used(s, y->qused);
	for (q = 0; q < s->nqueues; q++) {
		int32_t hit = -1;
		for (int32_t k = q, n = 0; k >= 0 && hit < 0 && n <= s->nqueues; k = s->queues[k].parent, n++)
			if (s->queues[k].gpu_hour_budget > 0 && y->qused[k] >= s->queues[k].gpu_hour_budget * 3600.0)
				hit = k;
		y->qbudget[q] = hit;
	}
	return s->config.budget_safe ? budget_left(y) : FW_OK;
}

static int phase_build(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t nq = s->nqueues;
	int rc = limits_mark(y);

	if (rc == FW_OK)
		rc = fw__drain_mark(y);
	if (rc == FW_OK)
		rc = budget_mark(y);
	if (rc != FW_OK || (rc = fw__cstate_build_ended(&y->c, s, y->a, y->evicted)) != FW_OK)
		return rc;

	/* before gather: shapes name filters and slices */
	if ((rc = fw__filter_build(&y->c)) != FW_OK || (rc = fw__slice_build(&y->c)) != FW_OK)
		return rc;
	y->c.pol = y->pol;
	/* zeroed job by job in gather's sweep, not in a pass of its own:
	 * 72 bytes a job, 8.7 MB at 121,000 jobs */
	y->reason = FW_ARENA_RAW(y->a, struct fw_pending, s->njobs + 1);
	y->started = FW_ARENA_NEW(y->a, int32_t, s->njobs + 1);
	y->dec = FW_ARENA_RAW(y->a, struct fw_decision, fw__max_decisions(y)); /* written when made */
	y->dec_tasks = FW_ARENA_NEW(y->a, struct fw_task_alloc *, fw__max_decisions(y));
	y->ji = FW_ARENA_RAW(y->a, struct fw__jinfo, s->njobs + 1); /* gather writes each */
	y->demand = FW_ARENA_NEW(y->a, struct fw_res, nq + 1);
	y->alloc = FW_ARENA_NEW(y->a, struct fw_res, nq + 1);
	y->share = FW_ARENA_NEW(y->a, struct fw_share, nq + 1);
	if (!y->reason || !y->started || !y->dec || !y->dec_tasks || !y->ji || !y->demand || !y->alloc || !y->share)
		return FW_ENOMEM;
	limits_emit(y);
	fw__drain_emit(y);
	memset(&y->ji[s->njobs], 0, sizeof y->ji[0]); /* the spare ones past the end */
	memset(&y->reason[s->njobs], 0, sizeof y->reason[0]);
	if ((rc = fw__memo_create(y, s->njobs)) != FW_OK || (rc = users_create(y)) != FW_OK)
		return rc;
	if ((rc = fw__place_scratch(&y->c, gather(y))) != FW_OK)
		return rc;
	return fw__mlim_create(y);
}

static int phase_account(struct cyc *y)
{
	return fw_fairshare_compute(y->s, y->demand, y->c.capacity, y->a, y->share);
}

/* ---- order ---------------------------------------------------------- */

static bool before(const struct cyc *y, int32_t a, int32_t b)
{
	const struct fw_job *x = &y->s->jobs[a], *z = &y->s->jobs[b];

	if (y->score && y->score[a] != y->score[b])
		return y->score[a] > y->score[b];
	if (y->pol->job_before) {
		if (y->pol->job_before(y->s, x, z))
			return true;
		if (y->pol->job_before(y->s, z, x))
			return false;
	} else {
		if (x->priority != z->priority)
			return x->priority > z->priority;
		if (y->ji[a].xf != y->ji[b].xf)
			return y->ji[a].xf > y->ji[b].xf;
		if (x->submit_time != z->submit_time)
			return x->submit_time < z->submit_time;
	}
	return a < b;
}

/* before() is a total order (the job index breaks ties), so any correct
 * sort gives the same line.  Runs of up to 16 by insertion; halves already
 * in order are not merged (a simulator's jobs arrive in submit order, so
 * fifo's line is mostly sorted already). */
static void sort_jobs(const struct cyc *y, int32_t *v, int32_t *tmp, int32_t n)
{
	int32_t h = n / 2, i = 0, j, k = 0;

	if (n <= 16) {
		for (int32_t a = 1; a < n; a++) {
			int32_t x = v[a], b = a;
			for (; b > 0 && before(y, x, v[b - 1]); b--)
				v[b] = v[b - 1];
			v[b] = x;
		}
		return;
	}
	sort_jobs(y, v, tmp, h);
	sort_jobs(y, v + h, tmp, n - h);
	if (!before(y, v[h], v[h - 1]))
		return;
	for (j = h; i < h && j < n;)
		tmp[k++] = before(y, v[j], v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* The policy's job_score, once per pending job. */
static int compute_scores(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	struct fw_prio_ctx ctx = { .s = s, .capacity = y->c.capacity };
	double *usage = FW_ARENA_NEW(y->a, double, s->nqueues + 1);
	double *fair = FW_ARENA_NEW(y->a, double, s->nqueues + 1);
	bool *inner = FW_ARENA_NEW(y->a, bool, s->nqueues + 1);

	y->score = FW_ARENA_NEW(y->a, double, s->njobs + 1);
	if (!usage || !fair || !inner || !y->score)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		if (s->queues[q].parent >= 0)
			inner[s->queues[q].parent] = true;
	for (int32_t q = 0; q < s->nqueues; q++) {
		usage[q] = y->share[q].usage;
		fair[q] = y->share[q].fair[FW_RES_GPU];
		if (!inner[q]) {
			ctx.leaf_usage_total += usage[q];
			ctx.leaf_deserved_total += (double)s->queues[q].deserved.v[FW_RES_GPU];
		}
	}
	ctx.usage = usage;
	ctx.fair_gpu = fair;
	for (int32_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == FW_JOB_PENDING)
			y->score[j] = y->pol->job_score(&ctx, &s->jobs[j]);
	return FW_OK;
}

/* The order of before() without a job_before callback, on a compact
 * copy of its keys: the merge sort then never touches the 576-byte job
 * records (100,000 of them do not fit in any cache). */
struct okey {
	double score;   /* 0 without job_score */
	int64_t submit;
	int32_t prio;
	int32_t job;
	uint32_t xf;    /* expansion-factor steps; 0 in submit order */
};

static bool okey_before(const struct okey *x, const struct okey *z)
{
	if (x->score != z->score)
		return x->score > z->score;
	if (x->prio != z->prio)
		return x->prio > z->prio;
	if (x->xf != z->xf)
		return x->xf > z->xf;
	if (x->submit != z->submit)
		return x->submit < z->submit;
	return x->job < z->job;
}

/* Small runs by insertion: fewer moves than merging at this size (a
 * queue holds about 100 pending jobs in the benchmark). */
static void insert_keys(struct okey *v, int32_t n)
{
	for (int32_t a = 1; a < n; a++) {
		struct okey x = v[a];
		int32_t b = a;
		for (; b > 0 && okey_before(&x, &v[b - 1]); b--)
			v[b] = v[b - 1];
		v[b] = x;
	}
}

static void sort_keys(struct okey *v, struct okey *tmp, int32_t n)
{
	int32_t h = n / 2, i = 0, j, k = 0;

	if (n <= 16) {
		insert_keys(v, n);
		return;
	}
	sort_keys(v, tmp, h);
	sort_keys(v + h, tmp, n - h);
	if (!okey_before(&v[h], &v[h - 1]))
		return; /* halves already in order */
	for (j = h; i < h && j < n;)
		tmp[k++] = okey_before(&v[j], &v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* Without scores or a job_before callback, the order of every bucket is
 * (priority descending, expansion-factor steps descending when the cycle
 * orders by them, submit ascending, job).  All pending jobs are sorted
 * together by one 64-bit key, (highest priority - priority) above
 * (FW_XFACTOR_MAX - steps) above (submit - earliest submit), with a stable
 * radix sort, 11 bits a pass, least significant first, as many passes as
 * the key's range needs (3 on the benchmark: 21 bits of submit times, 10
 * of steps, 2 of priorities); the keys are collected in job order, so
 * ties keep it.  The buckets are then filled in sorted order.  O(n) a
 * pass, where a comparison sort per bucket cost ~6 ms on the 100,000-job
 * benchmark.
 * *done stays false (the comparison sort's turn) when the ranges do not
 * fit 64 bits or the jobs are few (RADIX_MIN). */
struct rkey {
	uint64_t key;
	int32_t job, bucket;
};

#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)
/* Below this many jobs the passes' 2,048 counters cost more than sorting
 * each bucket (the simulator's cycles hold hundreds, not 100,000). */
#define RADIX_MIN 8192

static int bits_of(uint64_t range)
{
	return range ? 64 - __builtin_clzll(range) : 0;
}

/* Sort v by key (t: scratch of n); the sorted run is *out. */
static int radix_keys(struct cyc *y, struct rkey *v, struct rkey *t, int32_t n, int bits, struct rkey **out)
{
	int passes = (bits + RADIX_BITS - 1) / RADIX_BITS;
	int32_t *at = FW_ARENA_NEW(y->a, int32_t, (size_t)(passes + 1) * RADIX_SIZE);

	if (!at)
		return FW_ENOMEM;
	for (int32_t i = 0; i < n; i++) /* every pass's counts in one read */
		for (int p = 0; p < passes; p++)
			at[p * RADIX_SIZE + (int32_t)(v[i].key >> (p * RADIX_BITS) & (RADIX_SIZE - 1))]++;
	for (int p = 0; p < passes; p++) {
		int32_t *c = at + p * RADIX_SIZE, sum = 0;
		for (int b = 0; b < RADIX_SIZE; b++) { /* counts to starts */
			int32_t k = c[b];
			c[b] = sum;
			sum += k;
		}
		for (int32_t i = 0; i < n; i++)
			t[c[v[i].key >> (p * RADIX_BITS) & (RADIX_SIZE - 1)]++] = v[i];
		struct rkey *x = v; /* the next pass reads what this one wrote */
		v = t;
		t = x;
	}
	*out = v;
	return FW_OK;
}

static int order_by_radix(struct cyc *y, bool global, int32_t n, bool *done)
{
	const struct fw_snapshot *s = y->s;
	int64_t slo = INT64_MAX, shi = INT64_MIN;
	int32_t plo = INT32_MAX, phi = INT32_MIN, m = 0;

	*done = false;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw__jinfo *ji = &y->ji[j];
		if (!ji->pending)
			continue;
		slo = ji->submit < slo ? ji->submit : slo;
		shi = ji->submit > shi ? ji->submit : shi;
		plo = ji->prio < plo ? ji->prio : plo;
		phi = ji->prio > phi ? ji->prio : phi;
	}
	int sb = n ? bits_of((uint64_t)shi - (uint64_t)slo) : 0;
	int pb = n ? bits_of((uint64_t)((int64_t)phi - plo)) : 0;
	int xb = xfactor_cap(y) > 0 ? bits_of(FW_XFACTOR_MAX) : 0;
	if (sb + pb + xb > 64 || n < RADIX_MIN)
		return FW_OK;
	struct rkey *k = FW_ARENA_RAW(y->a, struct rkey, n + 1), *kt = FW_ARENA_RAW(y->a, struct rkey, n + 1);
	if (!k || !kt)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw__jinfo *ji = &y->ji[j];
		if (!ji->pending)
			continue;
		uint64_t rank = (uint64_t)((int64_t)phi - ji->prio), age = (uint64_t)ji->submit - (uint64_t)slo;
		uint64_t xf = xb ? (uint64_t)(FW_XFACTOR_MAX - ji->xf) << sb : 0; /* xb > 0: sb < 64 */
		k[m++] = (struct rkey){ (pb ? rank << (sb + xb) : 0) | xf | age, j, global ? 0 : ji->queue };
	}
	int rc = radix_keys(y, k, kt, m, sb + pb + xb, &k);
	if (rc != FW_OK)
		return rc;
	for (int32_t i = 0; i < m; i++)
		y->jobs[y->qnext[k[i].bucket]++] = k[i].job;
	*done = true;
	return FW_OK;
}

/* Without a job_before callback: the compact keys of each bucket, filled
 * in the bucketing sweep, sorted (score, priority, submit, job), the job
 * indices written back. */
static int order_by_keys(struct cyc *y, bool global, int32_t n)
{
	const struct fw_snapshot *s = y->s;
	int32_t nq = s->nqueues;
	struct okey *k = FW_ARENA_RAW(y->a, struct okey, n + 1);
	struct okey *kt = FW_ARENA_RAW(y->a, struct okey, n + 1);

	if (!k || !kt)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw__jinfo *ji = &y->ji[j];
		if (!ji->pending)
			continue;
		struct okey *e = &k[y->qnext[global ? 0 : ji->queue]++];
		e->score = y->score ? y->score[j] : 0;
		e->submit = ji->submit;
		e->prio = ji->prio;
		e->job = j;
		e->xf = ji->xf;
	}
	for (int32_t q = 0; q < nq || (global && q == 0); q++)
		sort_keys(k + y->qfirst[q], kt, y->qfirst[q + 1] - y->qfirst[q]);
	for (int32_t i = 0; i < n; i++)
		y->jobs[i] = k[i].job;
	return FW_OK;
}

/* With the policy's job_before: the job indices, bucketed and sorted by
 * before() (which reads the records). */
static int order_by_callback(struct cyc *y, bool global)
{
	const struct fw_snapshot *s = y->s;
	int32_t nq = s->nqueues, *tmp = FW_ARENA_RAW(y->a, int32_t, s->njobs + 1);

	if (!tmp)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == FW_JOB_PENDING)
			y->jobs[y->qnext[global ? 0 : s->jobs[j].queue]++] = j;
	for (int32_t q = 0; q < nq || (global && q == 0); q++)
		sort_jobs(y, y->jobs + y->qfirst[q], tmp, y->qfirst[q + 1] - y->qfirst[q]);
	return FW_OK;
}

/* Bucket pending jobs by leaf queue (counting sort), then sort each
 * bucket: by one radix sort of them all when it applies, else by keys,
 * else by the policy's callback.  FW_QORDER_GLOBAL puts every job in one
 * bucket. */
static int phase_order(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t nq = s->nqueues, n;
	bool global = y->pol->queue_order == FW_QORDER_GLOBAL, done = false;
	int rc = FW_OK;

	y->qfirst = FW_ARENA_NEW(y->a, int32_t, nq + 2);
	y->qnext = FW_ARENA_NEW(y->a, int32_t, nq + 2);
	y->jobs = FW_ARENA_RAW(y->a, int32_t, s->njobs + 1); /* filled in full below */
	if (!y->qfirst || !y->qnext || !y->jobs)
		return FW_ENOMEM;
	if (y->pol->job_score && compute_scores(y) != FW_OK)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++)
		if (y->ji[j].pending)
			y->qfirst[(global ? 0 : y->ji[j].queue) + 1]++;
	for (int32_t q = 0; q <= nq; q++)
		y->qfirst[q + 1] += y->qfirst[q];
	memcpy(y->qnext, y->qfirst, (size_t)(nq + 1) * sizeof(int32_t));
	n = global ? y->qfirst[1] : y->qfirst[nq];
	if (!y->pol->job_before && !y->score)
		rc = order_by_radix(y, global, n, &done);
	if (rc == FW_OK && !done)
		rc = y->pol->job_before ? order_by_callback(y, global) : order_by_keys(y, global, n);
	memcpy(y->qnext, y->qfirst, (size_t)(nq + 1) * sizeof(int32_t));
	return rc;
}

/* ---- users inside a queue (config user_fair_share) ------------------ */

struct turn {
	int64_t held;   /* milli-GPUs its user holds in the queue, with the
			 * user's jobs ahead of it in the line */
	int64_t gpus;   /* its own request, milli-GPUs */
	int32_t pos;    /* its place in the line */
	int32_t job;
};

static int turn_cmp(const void *a, const void *b)
{
	const struct turn *x = a, *z = b;

	if (x->held != z->held)
		return (x->held > z->held) - (x->held < z->held);
	return (x->pos > z->pos) - (x->pos < z->pos);
}

/* One queue's line, positions [lo, hi): each run of one priority sorted
 * by what its jobs' users hold (held: per user id, the queue's running
 * jobs already counted; left as found). */
static void take_turns(struct cyc *y, int32_t lo, int32_t hi, int64_t *held, struct turn *t)
{
	for (int32_t i = lo; i < hi; i++) {
		int32_t j = y->jobs[i];
		t[i - lo] = (struct turn){ held[y->uid[j]], y->ugpu[j], i, j };
		held[y->uid[j]] += y->ugpu[j];
	}
	for (int32_t i = lo; i < hi; i++)
		held[y->uid[t[i - lo].job]] -= t[i - lo].gpus;
	for (int32_t a = lo, b; a < hi; a = b) {
		for (b = a + 1; b < hi && y->ji[y->jobs[b]].prio == y->ji[y->jobs[a]].prio; b++)
			;
		qsort(t + (a - lo), (size_t)(b - a), sizeof *t, turn_cmp);
	}
	for (int32_t i = lo; i < hi; i++)
		y->jobs[i] = t[i - lo].job;
}

/* With user_fair_share, each leaf queue's line, in the policy's order so
 * far, is reordered so that among jobs of one priority the users take
 * turns: a job's key is the GPUs its user holds in the queue (running
 * jobs) plus those of the user's jobs ahead of it in the line; lower
 * keys first, ties in the line's order.  A static water-filling: a user
 * with nothing running goes before one holding 64 GPUs, and two users
 * with like jobs alternate.  Phases: (1) the running jobs bucketed by
 * queue; per queue with two jobs waiting or more, (2) its running jobs'
 * GPUs by user, (3) the line's runs sorted, (4) those GPUs taken back off
 * (the per-user array serves every queue).  From gather's arrays only. */
static int phase_users(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t *first, *run, *ufirst = NULL, *unext = NULL;
	int64_t *held;
	struct turn *t;

	if (!y->uid || y->qfirst[s->nqueues] < 2)
		return FW_OK;
	if (s->nuser_usage > 0) { /* each queue's users' past use, a list */
		ufirst = FW_ARENA_NEW(y->a, int32_t, s->nqueues + 1);
		unext = FW_ARENA_NEW(y->a, int32_t, s->nuser_usage);
		if (!ufirst || !unext)
			return FW_ENOMEM;
		memset(ufirst, 0xff, (size_t)s->nqueues * sizeof *ufirst);
		for (int32_t i = s->nuser_usage - 1; i >= 0; i--) {
			unext[i] = ufirst[s->user_usage[i].queue];
			ufirst[s->user_usage[i].queue] = i;
		}
	}
	held = FW_ARENA_NEW(y->a, int64_t, y->nusers + 1);
	first = FW_ARENA_NEW(y->a, int32_t, s->nqueues + 2);
	run = FW_ARENA_RAW(y->a, int32_t, s->njobs + 1);
	t = FW_ARENA_RAW(y->a, struct turn, s->njobs + 1);
	if (!held || !first || !run || !t)
		return FW_ENOMEM;
	for (int32_t j = 0; j < s->njobs; j++) /* running: not waiting, holding GPUs */
		if (!y->ji[j].pending && y->ugpu[j] > 0)
			first[y->ji[j].queue + 2]++;
	for (int32_t q = 0; q < s->nqueues; q++)
		first[q + 2] += first[q + 1];
	for (int32_t j = 0; j < s->njobs; j++) /* first[q + 1]: from queue q's start to its end */
		if (!y->ji[j].pending && y->ugpu[j] > 0)
			run[first[y->ji[j].queue + 1]++] = j;
	for (int32_t q = 0; q < s->nqueues; q++) { /* first[q] .. first[q + 1]: queue q's */
		if (y->qfirst[q + 1] - y->qfirst[q] < 2)
			continue;
		for (int32_t k = first[q]; k < first[q + 1]; k++)
			held[y->uid[run[k]]] += y->ugpu[run[k]];
		add_past_use(y, q, ufirst, unext, held, false);
		take_turns(y, y->qfirst[q], y->qfirst[q + 1], held, t);
		for (int32_t k = first[q]; k < first[q + 1]; k++)
			held[y->uid[run[k]]] = 0;
		add_past_use(y, q, ufirst, unext, held, true); /* all back to zero: held is shared */
	}
	return FW_OK;
}

int fw_cycle_run(const struct fw_snapshot *s, const struct fw_policy_ops *pol,
		 struct fw_arena *a, struct fw_plan **out)
{
	struct cyc y;
	int rc;

	memset(&y, 0, sizeof y);
	y.s = s;
	y.a = a;
	y.pol = pol ? pol : fw_policy_default();
	if ((rc = phase_build(&y)) != FW_OK)
		return rc;
	if ((rc = phase_account(&y)) != FW_OK)
		return rc;
	if ((rc = phase_order(&y)) != FW_OK || (rc = phase_users(&y)) != FW_OK)
		return rc;
	if ((rc = fw__phase_allocate(&y)) != FW_OK)
		return rc;
	if ((rc = fw__phase_reclaim(&y)) != FW_OK)
		return rc;
	if (s->config.estimate_starts) {
		if ((rc = fw__phase_estimate(&y)) != FW_OK)
			return rc;
		fw__checkpoint_estimates(&y);
	}
	if ((rc = fw__minrun_waits(&y)) != FW_OK)
		return rc;
	return fw__phase_emit(&y, out);
}
