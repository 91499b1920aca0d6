/*
 * modellimit.c — limits on the GPUs of one model a queue may hold.
 *
 * A fleet of H100 and A100 nodes wants "research may use at most 16
 * H100s, any number of A100s" (KAI-Scheduler#1087; Kueue does it with
 * flavor quotas).  A queue may have such limits (snapshot.model_limits,
 * beside the queues); each caps the GPUs of its model held by the
 * running jobs of the queue and of every queue under it, counted in
 * milli-GPU as the queue's own GPU limit is.
 *
 * The rule for a job (fw__mlim_gate), up its queue's line:
 *   - named:   a task group that names a model counts its GPUs against
 *              that model's limits.  Over one (and asking GPUs of it):
 *              the job waits, MODEL_LIMIT, as over quota (no reservation,
 *              no estimate: only its queue's own jobs ending frees it);
 *   - unnamed: the groups that name no model could land on any model.  A
 *              model is open to them when every limit on it in the line
 *              holds the whole job there (what the queue holds, plus the
 *              job's named GPUs of it, plus all its unnamed ones).  Every
 *              model open: nothing to restrict.  Some open: those groups
 *              go on one open model (fleet order, the first that fits:
 *              fw__place_gated), as Kueue assigns one flavor.  None open:
 *              MODEL_LIMIT.
 * A job that would fit now but for its model limits waits with
 * MODEL_LIMIT too (allocate.c), so the reason names the limit rather
 * than the capacity, unless it earns a reservation on its open models.
 *
 * Where it holds: allocate (each start), reclaim and preemption (a
 * preemptor starts only under its limits, and victims only on models it
 * may use count for it; a victim's GPUs come off its queues'),
 * consolidation (a moved job restarts on the model it left, so no
 * queue's count changes; the gang moved for keeps to its open models),
 * reservations (the walk places on the open models, judged by what the
 * queue holds now) and the plan checker
 * (fw_plan_check: no start puts a queue over a model limit it was not
 * over already).  The fair share does not see model limits: a queue's
 * share is over all models, and a start it cannot make under them is
 * simply not made.  Estimates are per shape, not per queue: a job that
 * its limits restrict to some models, and that would not fit now on any
 * model, gets its shape's estimate on every model, a lower bound (one
 * that would fit now but for its limits has a reservation on its open
 * models, or waits with MODEL_LIMIT and no estimate).
 *
 * Deserved GPUs of a model (snapshot.model_deserved, the same record) are
 * counted the same way (struct fw__mtab: y->mlim for the limits, y->mdes
 * for these), and read by reclaim: fw__mdes_need (a job's GPUs by model,
 * when every group with GPUs names one), fw__mdes_claim (does the job's
 * line, below the queues it shares with the victim's, deserve room for
 * them?) and fw__mdes_shields (would the victim's line drop below what
 * it deserves?); the rules are preempt.c's ("Deserved GPUs of a model").
 *
 * Cost: nothing unless some queue has a limit (y->mlim.held stays NULL, and
 * the gate is an inline test); then a job whose queue line has none
 * costs one more test, read from the per-job facts; one in a limited
 * line O(depth * limits), its GPUs per model read from its interned
 * shape in the allocate loop; and one pass over the running jobs' tasks
 * per cycle.  bench_cycle --model-limits (docs/performance.md).
 */
#include <string.h>

#include "cycle_int.h"

static int64_t task_milli(const struct fw_task_alloc *t)
{
	return (int64_t)__builtin_popcount(t->gpu_mask) * t->gpu_milli;
}

/* Index table t's n entries by queue and count what each queue holds. */
static int mtab_create(struct cyc *y, struct fw__mtab *t, const struct fw_model_limit *e, int32_t n)
{
	const struct fw_snapshot *s = y->s;

	if (n == 0)
		return FW_OK;
	t->e = e;
	t->held = FW_ARENA_NEW(y->a, int64_t, n);
	t->model = FW_ARENA_NEW(y->a, int32_t, n);
	t->first = FW_ARENA_NEW(y->a, int32_t, s->nqueues + 1);
	t->next = FW_ARENA_NEW(y->a, int32_t, n);
	t->line = FW_ARENA_NEW(y->a, bool, s->nqueues + 1);
	if (!t->held || !t->model || !t->first || !t->next || !t->line)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		t->first[q] = -1;
	for (int32_t k = n - 1; k >= 0; k--) { /* each queue's list in index order */
		int32_t q = e[k].queue;
		t->model[k] = fw__model_id(&y->c, e[k].model);
		t->next[k] = t->first[q];
		t->first[q] = k;
	}
	for (int32_t q = 0; q < s->nqueues; q++) /* an entry on q or above it */
		for (int32_t p = q; p >= 0 && !t->line[q]; p = s->queues[p].parent)
			t->line[q] = t->first[p] >= 0;
	return FW_OK;
}

int fw__mlim_create(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int rc;

	if (s->nmodel_limits + s->nmodel_deserved == 0)
		return FW_OK;
	if (y->c.nmodels > FW_MAX_LIMITED_MODELS) /* fw_snapshot_validate says so */
		return FW_ERANGE;
	if ((rc = mtab_create(y, &y->mlim, s->model_limits, s->nmodel_limits)) != FW_OK ||
	    (rc = mtab_create(y, &y->mdes, s->model_deserved, s->nmodel_deserved)) != FW_OK)
		return rc;
	for (int32_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == FW_JOB_RUNNING && !(y->evicted && y->evicted[j]))
			fw__mlim_charge(y, j, s->allocs + s->jobs[j].alloc_first, s->jobs[j].alloc_count, 1);
	return FW_OK;
}

/* The milli-GPUs of model m on tasks t[0 .. n). */
static int64_t model_use(const struct cyc *y, int32_t m, const struct fw_task_alloc *t, int32_t n)
{
	int64_t use = 0;

	for (int32_t i = 0; m >= 0 && i < n; i++)
		if (y->c.nodes[t[i].node].model == m)
			use += task_milli(&t[i]);
	return use;
}

static void mtab_charge(const struct cyc *y, struct fw__mtab *t, int32_t jx, const struct fw_task_alloc *a,
			int32_t n, int sign)
{
	const struct fw_snapshot *s = y->s;

	if (!t->held)
		return;
	for (int32_t q = s->jobs[jx].queue; q >= 0; q = s->queues[q].parent)
		for (int32_t k = t->first[q]; k >= 0; k = t->next[k])
			t->held[k] += sign * model_use(y, t->model[k], a, n);
}

void fw__mlim_charge(struct cyc *y, int32_t jx, const struct fw_task_alloc *t, int32_t n, int sign)
{
	mtab_charge(y, &y->mlim, jx, t, n, sign);
	mtab_charge(y, &y->mdes, jx, t, n, sign);
}

static int64_t named_of(const int32_t *m, const int64_t *v, int n, int32_t id)
{
	for (int k = 0; k < n; k++)
		if (m[k] == id)
			return v[k];
	return 0;
}

static bool refuse(struct fw_pending *r, int64_t over, int32_t k)
{
	r->reason = FW_REASON_MODEL_LIMIT;
	r->a = over;
	r->b = k;
	return false;
}

/* The GPUs of a job's shape by model: for the groups that name one of
 * the fleet's models, its id and GPUs in (*m, *v)[0 .. return) (a model
 * once; at most one entry per group); *unnamed for the groups that name
 * none. */
static int shape_gpus(const struct fw__shape *k, int32_t *m, int64_t *v, int64_t *unnamed)
{
	int n = 0;

	*unnamed = 0;
	for (int g = 0; g < k->ngroups; g++) {
		int64_t x = (int64_t)k->g[g].count * k->g[g].gpus * k->g[g].milli;
		int32_t id = k->g[g].model, i = 0;
		if (!k->g[g].gpus || id == -1) /* -1: a model no node has */
			continue;
		if (id == -2) {
			*unnamed += x;
			continue;
		}
		while (i < n && m[i] != id)
			i++;
		if (i == n) {
			m[n] = id;
			v[n++] = 0;
		}
		v[i] += x;
	}
	return n;
}

bool fw__mlim_gate_limited(const struct cyc *y, int32_t jx, const struct fw__shape *sh, uint64_t *open,
			   struct fw_pending *r)
{
	const struct fw_snapshot *s = y->s;
	const struct fw_job *j = &s->jobs[jx];
	int32_t mid[FW_MAX_GROUPS], closer = -1;
	int64_t mv[FW_MAX_GROUPS], unnamed, over = 0;

	*open = fw__mlim_all(y);
	if (!y->mlim.line[y->ji[jx].queue])
		return true; /* no limit up its line: the common case, decided
			      * without the job's record (a cache miss) */
	struct fw__shape own;
	if (!sh) { /* the allocate loop has it interned; others make it here */
		fw__shape_of(&y->c, jx, j, &own);
		sh = &own;
	}
	int nm = shape_gpus(sh, mid, mv, &unnamed);
	for (int32_t q = y->ji[jx].queue; q >= 0; q = s->queues[q].parent) {
		for (int32_t k = y->mlim.first[q]; k >= 0; k = y->mlim.next[k]) {
			int32_t m = y->mlim.model[k];
			if (m < 0)
				continue;
			int64_t held = y->mlim.held[k], cap = s->model_limits[k].gpus, named = named_of(mid, mv, nm, m);
			if (named > 0 && held + named > cap)
				return refuse(r, held + named - cap, k);
			if (unnamed > 0 && held + named + unnamed > cap && (*open >> m & 1)) {
				*open &= ~(1ull << m);
				if (closer < 0) { /* the first limit that closes a model: the reason if all are */
					closer = k;
					over = held + named + unnamed - cap;
				}
			}
		}
	}
	if (closer >= 0) /* some model closed: the reason, should the rest not do */
		refuse(r, over, closer);
	/* no limit closed one (a fleet with no GPU model has none open to
	 * begin with): the capacity answers, and says why */
	return *open != 0 || closer < 0;
}

int fw__place_models(struct fw__cstate *c, int32_t jx, const struct fw__place_opts *o, uint64_t open,
		     struct fw__placement *out)
{
	struct fw__place_opts p = *o;
	bool fit = false;
	int rc = FW_EDECLINED;

	for (int32_t m = 0; m < c->nmodels && m < 64 && rc == FW_EDECLINED; m++) {
		if (!(open >> m & 1))
			continue;
		p.only_model = m + 1;
		rc = fw__place_job(c, jx, &p, out);
		fit = fit || out->shape_fit;
	}
	out->shape_fit = fit || out->shape_fit;
	return rc;
}

/* ---- deserved GPUs of a model (snapshot.model_deserved) ------------- */

static bool on_line(const struct fw_snapshot *s, int32_t q, int32_t leaf)
{
	for (int32_t p = leaf; p >= 0; p = s->queues[p].parent)
		if (p == q)
			return true;
	return false;
}

int fw__mdes_need(const struct cyc *y, int32_t jx, int32_t *m, int64_t *v)
{
	struct fw__shape sh;
	int64_t unnamed;

	if (!y->mdes.held || !y->mdes.line[y->s->jobs[jx].queue])
		return 0;
	fw__shape_of(&y->c, jx, &y->s->jobs[jx], &sh);
	int n = shape_gpus(&sh, m, v, &unnamed);
	return unnamed > 0 ? 0 : n;
}

bool fw__mdes_claim(const struct cyc *y, int32_t pq, int32_t vq, const int32_t *m, const int64_t *v, int n)
{
	const struct fw_snapshot *s = y->s;
	const struct fw__mtab *t = &y->mdes;

	for (int i = 0; i < n; i++) {
		bool room = false;
		for (int32_t q = pq; q >= 0 && !room && !on_line(s, q, vq); q = s->queues[q].parent)
			for (int32_t k = t->first[q]; k >= 0 && !room; k = t->next[k])
				room = t->model[k] == m[i] && t->held[k] + v[i] <= t->e[k].gpus;
		if (!room)
			return false;
	}
	return n > 0;
}

bool fw__mdes_shields(const struct cyc *y, int32_t vq, int32_t pq, const struct fw_task_alloc *a, int32_t na)
{
	const struct fw_snapshot *s = y->s;
	const struct fw__mtab *t = &y->mdes;

	if (!t->held || !t->line[vq])
		return false;
	for (int32_t q = vq; q >= 0 && !on_line(s, q, pq); q = s->queues[q].parent)
		for (int32_t k = t->first[q]; k >= 0; k = t->next[k]) {
			int64_t use = model_use(y, t->model[k], a, na);
			if (use > 0 && t->held[k] - use < t->e[k].gpus)
				return true;
		}
	return false;
}

bool fw__mdes_on(const struct cyc *y, const int32_t *m, int n, const struct fw_task_alloc *a, int32_t na)
{
	for (int i = 0; i < n; i++)
		if (model_use(y, m[i], a, na) > 0)
			return true;
	return false;
}
