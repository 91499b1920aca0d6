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
 * Cost: nothing unless some queue has a limit (y->mheld stays NULL, and
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

int fw__mlim_create(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t n = s->nmodel_limits;

	if (n == 0)
		return FW_OK;
	if (y->c.nmodels > FW_MAX_LIMITED_MODELS) /* fw_snapshot_validate says so */
		return FW_ERANGE;
	y->mheld = FW_ARENA_NEW(y->a, int64_t, n);
	y->mlim_model = FW_ARENA_NEW(y->a, int32_t, n);
	y->mlim_first = FW_ARENA_NEW(y->a, int32_t, s->nqueues + 1);
	y->mlim_next = FW_ARENA_NEW(y->a, int32_t, n);
	y->mlim_line = FW_ARENA_NEW(y->a, bool, s->nqueues + 1);
	if (!y->mheld || !y->mlim_model || !y->mlim_first || !y->mlim_next || !y->mlim_line)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++)
		y->mlim_first[q] = -1;
	for (int32_t k = n - 1; k >= 0; k--) { /* each queue's list in index order */
		int32_t q = s->model_limits[k].queue;
		y->mlim_model[k] = fw__model_id(&y->c, s->model_limits[k].model);
		y->mlim_next[k] = y->mlim_first[q];
		y->mlim_first[q] = k;
	}
	for (int32_t q = 0; q < s->nqueues; q++) /* a limit on q or above it */
		for (int32_t p = q; p >= 0 && !y->mlim_line[q]; p = s->queues[p].parent)
			y->mlim_line[q] = y->mlim_first[p] >= 0;
	for (int32_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == FW_JOB_RUNNING)
			fw__mlim_charge(y, j, s->allocs + s->jobs[j].alloc_first, s->jobs[j].alloc_count, 1);
	return FW_OK;
}

void fw__mlim_charge(struct cyc *y, int32_t jx, const struct fw_task_alloc *t, int32_t n, int sign)
{
	const struct fw_snapshot *s = y->s;

	if (!y->mheld)
		return;
	for (int32_t q = s->jobs[jx].queue; q >= 0; q = s->queues[q].parent) {
		for (int32_t k = y->mlim_first[q]; k >= 0; k = y->mlim_next[k]) {
			int32_t m = y->mlim_model[k];
			int64_t use = 0;
			for (int32_t i = 0; m >= 0 && i < n; i++)
				if (y->c.nodes[t[i].node].model == m)
					use += task_milli(&t[i]);
			y->mheld[k] += sign * use;
		}
	}
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
	if (!y->mlim_line[y->ji[jx].queue])
		return true; /* no limit up its line: the common case, decided
			      * without the job's record (a cache miss) */
	struct fw__shape own;
	if (!sh) { /* the allocate loop has it interned; others make it here */
		fw__shape_of(&y->c, jx, j, &own);
		sh = &own;
	}
	int nm = shape_gpus(sh, mid, mv, &unnamed);
	for (int32_t q = y->ji[jx].queue; q >= 0; q = s->queues[q].parent) {
		for (int32_t k = y->mlim_first[q]; k >= 0; k = y->mlim_next[k]) {
			int32_t m = y->mlim_model[k];
			if (m < 0)
				continue;
			int64_t held = y->mheld[k], cap = s->model_limits[k].gpus, named = named_of(mid, mv, nm, m);
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
	return *open != 0;
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
