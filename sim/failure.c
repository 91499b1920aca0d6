/*
 * failure.c — the failure model and the health tracker of failure.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "failure.h"
#include "fairway/snapshot.h"
#include "teams.h"

#define DAY 86400.0
#define NO_REPAIR INT64_MIN /* repair_at: none pending (history is below 0) */

void fw_failure_model_default(struct fw_failure_model *m)
{
	m->rate_per_1000 = 6.50;
	m->flaky_fraction = 0.05;
	m->flaky_factor = 10.0;
	m->repair_s = 4 * 3600;
	m->horizon_s = 30 * 86400;
	m->history_s = 0;
	m->seed = 1;
}

/* ---- generate ---------------------------------------------------------- */

static double unit(uint64_t *st)
{
	*st += 0x9e3779b97f4a7c15ull;
	return (double)(fw_splitmix64(*st) >> 11) * (1.0 / 9007199254740992.0);
}

/* Exponential with mean 1/rate (rate per second). */
static int64_t expo(uint64_t *st, double rate)
{
	double u = unit(st);

	return (int64_t)(-log(1.0 - u) / rate);
}

static int fail_cmp(const void *a, const void *b)
{
	const struct fw_sim_failure *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->node != y->node)
		return (x->node > y->node) - (x->node < y->node);
	return (int)x->flap - (int)y->flap;
}

static int push(struct fw_sim_failure **v, size_t *n, size_t *cap, int64_t at, int32_t node,
		int64_t repair)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct fw_sim_failure *p = realloc(*v, nc * sizeof *p);
		if (!p)
			return FW_ENOMEM;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = (struct fw_sim_failure){ at, node, repair, 0, false };
	return FW_OK;
}

/* Flaky nodes: the first round(fraction * nnodes) of a seeded shuffle. */
static void pick_flaky(const struct fw_failure_model *m, int32_t nnodes, bool *flaky)
{
	uint64_t st = m->seed ^ 0xf1a4f1a4ull;
	int32_t *perm = malloc((size_t)nnodes * sizeof *perm);
	int32_t k = (int32_t)llround(m->flaky_fraction * nnodes);

	memset(flaky, 0, (size_t)nnodes * sizeof *flaky);
	if (!perm)
		return;
	for (int32_t i = 0; i < nnodes; i++)
		perm[i] = i;
	for (int32_t i = nnodes - 1; i > 0; i--) {
		int32_t j = (int32_t)(unit(&st) * (i + 1));
		int32_t x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
	}
	for (int32_t i = 0; i < k && i < nnodes; i++)
		flaky[perm[i]] = true;
	free(perm);
}

int fw_failure_generate(const struct fw_failure_model *m, int32_t nnodes,
			struct fw_sim_failure **out, size_t *n, bool *flaky)
{
	struct fw_sim_failure *v = NULL;
	size_t cnt = 0, cap = 0;
	bool *fl = flaky ? flaky : calloc((size_t)nnodes + 1, sizeof *fl);

	*out = NULL;
	*n = 0;
	if (!fl)
		return FW_ENOMEM;
	if (m->rate_per_1000 < 0 || m->flaky_fraction < 0 || m->flaky_fraction > 1 ||
	    m->flaky_factor < 0 || m->repair_s < 0 || m->horizon_s < 0 || m->history_s < 0 || nnodes < 1) {
		if (!flaky)
			free(fl);
		return FW_EINVAL;
	}
	pick_flaky(m, nnodes, fl);
	for (int32_t i = 0; i < nnodes; i++) {
		uint64_t st = fw_splitmix64(m->seed * 0x100000001b3ull + (uint64_t)i);
		double rate = m->rate_per_1000 / 1000.0 / DAY * (fl[i] ? m->flaky_factor : 1.0);
		if (rate <= 0)
			continue;
		for (int64_t t = expo(&st, rate) - m->history_s; t < m->horizon_s;
		     t += m->repair_s + expo(&st, rate))
			if (push(&v, &cnt, &cap, t, i, m->repair_s) != FW_OK) {
				free(v);
				if (!flaky)
					free(fl);
				return FW_ENOMEM;
			}
	}
	if (!flaky)
		free(fl);
	if (cnt)
		qsort(v, cnt, sizeof *v, fail_cmp);
	*out = v;
	*n = cnt;
	return FW_OK;
}

int fw_failure_add_flaps(const struct fw_failure_model *m, const struct fw_flap_model *fl, int32_t nnodes,
			 const bool *flaky, struct fw_sim_failure **v, size_t *n)
{
	struct fw_sim_failure *w;
	size_t cnt = 0, cap = 0;

	if (fl->rate_per_1000 < 0 || fl->down_s < 1 || nnodes < 1)
		return FW_EINVAL;
	if (!(w = malloc((*n + 1) * sizeof *w)))
		return FW_ENOMEM;
	if (*n)
		memcpy(w, *v, *n * sizeof *w);
	cnt = cap = *n;
	for (int32_t i = 0; i < nnodes && fl->rate_per_1000 > 0; i++) {
		uint64_t st = fw_splitmix64((m->seed ^ 0xf1a9f1a9ull) * 0x100000001b3ull + (uint64_t)i);
		double rate = fl->rate_per_1000 / 1000.0 / DAY * (flaky && flaky[i] ? m->flaky_factor : 1.0);
		for (int64_t t = expo(&st, rate) - m->history_s; t < m->horizon_s;
		     t += fl->down_s + expo(&st, rate)) {
			if (push(&w, &cnt, &cap, t, i, fl->down_s) != FW_OK) {
				free(w);
				return FW_ENOMEM;
			}
			w[cnt - 1].flap = true;
		}
	}
	if (cnt)
		qsort(w, cnt, sizeof *w, fail_cmp);
	free(*v);
	*v = w;
	*n = cnt;
	return FW_OK;
}

int fw_failure_replay_list(const struct fw_sim_failure *v, size_t n, struct fw_sim_failure **out,
			   size_t *nout)
{
	size_t k = 0;

	*out = malloc((n + 1) * sizeof **out);
	*nout = 0;
	if (!*out)
		return FW_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int64_t end = v[i].at + v[i].repair_s;
		if (end <= 0)
			continue;
		(*out)[k] = v[i];
		if (v[i].at < 0) {
			(*out)[k].at = 0;
			(*out)[k].repair_s = end;
		}
		k++;
	}
	if (k)
		qsort(*out, k, sizeof **out, fail_cmp);
	*nout = k;
	return FW_OK;
}

/* ---- the blind view of silent faults --------------------------------------- */

static bool is_silent(const struct fw_sim_failure *f, double fraction)
{
	uint64_t h = fw_splitmix64((uint64_t)f->node * 0x9e3779b97f4a7c15ull ^ (uint64_t)f->at);

	return (double)(h >> 11) * (1.0 / 9007199254740992.0) < fraction;
}

/* Entries failure f becomes: 1 when it is seen at once. */
static size_t view_len(const struct fw_sim_failure *f, const struct fw_silent_model *s)
{
	if (s->detect_s <= 0 || !is_silent(f, s->fraction))
		return 1;
	return (size_t)((s->detect_s - 1) / s->crash_s) + 2;
}

int fw_failure_blind_view(const struct fw_sim_failure *v, size_t n, const struct fw_silent_model *s,
			  struct fw_sim_failure **out, size_t *nout)
{
	size_t k = 0, total = 0;

	*out = NULL;
	*nout = 0;
	if (!(s->fraction >= 0 && s->fraction <= 1) || s->detect_s < 0 || s->crash_s < 1)
		return FW_EINVAL;
	for (size_t i = 0; i < n; i++)
		total += view_len(&v[i], s);
	if (!(*out = malloc((total + 1) * sizeof **out)))
		return FW_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t len = view_len(&v[i], s);
		for (size_t c = 0; c + 1 < len; c++) /* crashes while nobody knows */
			(*out)[k++] = (struct fw_sim_failure){ v[i].at + (int64_t)c * s->crash_s, v[i].node, 0, 0, false };
		(*out)[k] = v[i];
		(*out)[k++].at += len > 1 ? s->detect_s : 0;
	}
	if (k)
		qsort(*out, k, sizeof **out, fail_cmp);
	*nout = k;
	return FW_OK;
}

/* ---- the per-GPU view ------------------------------------------------------ */

/* A hash of the failure, salted apart from is_silent()'s. */
static uint64_t gpu_hash(const struct fw_sim_failure *f)
{
	return fw_splitmix64(((uint64_t)f->node * 0x9e3779b97f4a7c15ull ^ (uint64_t)f->at) + 0x6a09e667f3bcc909ull);
}

int fw_failure_gpu_view(const struct fw_sim_failure *v, size_t n, const struct fw_gpu_fault_model *g,
			bool per_gpu, struct fw_sim_failure **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!(g->fraction >= 0 && g->fraction <= 1) || g->gpus_per_node < 1 || g->gpus_per_node > 32 ||
	    g->repair_s < 0)
		return FW_EINVAL;
	if (!(*out = malloc((n + 1) * sizeof **out)))
		return FW_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = gpu_hash(&v[i]);
		struct fw_sim_failure *f = &(*out)[i];
		*f = v[i];
		if (v[i].gpus || v[i].repair_s == 0 || (double)(h >> 11) * (1.0 / 9007199254740992.0) >= g->fraction)
			continue;
		f->repair_s = g->repair_s ? g->repair_s : f->repair_s;
		f->gpus = per_gpu ? 1u << (uint32_t)((h & 0x7ff) % (uint64_t)g->gpus_per_node) : 0;
	}
	*nout = n; /* times unchanged: still sorted */
	return FW_OK;
}

/* ---- tracker ------------------------------------------------------------ */

static int row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fw_row_id *)a)->id, ((const struct fw_row_id *)b)->id);
}

int fw_health_tracker_init(struct fw_health_tracker *t, int32_t nnodes)
{
	size_t rows = t->trace ? t->trace->n : 0;

	t->next = 0;
	t->nnodes = nnodes;
	t->repair_at = malloc(((size_t)nnodes + 1) * sizeof *t->repair_at);
	t->rec = malloc(((size_t)nnodes + 1) * sizeof *t->rec);
	t->row_sorted = malloc((rows + 1) * sizeof *t->row_sorted);
	t->lost_s = calloc(rows + 1, sizeof *t->lost_s);
	t->lost_fail_s = calloc(rows + 1, sizeof *t->lost_fail_s);
	t->lost_flaky_s = calloc(rows + 1, sizeof *t->lost_flaky_s);
	t->fail_hits = calloc(rows + 1, sizeof *t->fail_hits);
	t->gpu_rec = malloc(((size_t)nnodes * 32 + 1) * sizeof *t->gpu_rec);
	t->gpu_seen = calloc((size_t)nnodes + 1, sizeof *t->gpu_seen);
	t->gpu_repairs = NULL;
	t->ngpu_repairs = t->gpu_repairs_cap = 0;
	if (!t->repair_at || !t->rec || !t->row_sorted || !t->lost_s || !t->lost_fail_s ||
	    !t->lost_flaky_s || !t->fail_hits || !t->gpu_rec || !t->gpu_seen)
		return FW_ENOMEM;
	for (int32_t i = 0; i < nnodes; i++) {
		t->repair_at[i] = NO_REPAIR;
		fw_health_rec_init(&t->rec[i]);
	}
	for (size_t r = 0; r < rows; r++)
		t->row_sorted[r] = (struct fw_row_id){ t->trace->v[r].id, (int32_t)r };
	if (rows)
		qsort(t->row_sorted, rows, sizeof *t->row_sorted, row_cmp);
	return FW_OK;
}

void fw_health_tracker_free(struct fw_health_tracker *t)
{
	free(t->repair_at);
	free(t->rec);
	free(t->row_sorted);
	free(t->lost_s);
	free(t->lost_fail_s);
	free(t->lost_flaky_s);
	free(t->fail_hits);
	free(t->gpu_rec);
	free(t->gpu_seen);
	free(t->gpu_repairs);
	t->gpu_rec = NULL;
	t->gpu_seen = NULL;
	t->gpu_repairs = NULL;
	t->repair_at = NULL;
	t->rec = NULL;
	t->row_sorted = NULL;
	t->lost_s = t->lost_fail_s = t->lost_flaky_s = NULL;
	t->fail_hits = NULL;
}

/* The trace row of a snapshot job (its name is the trace id); -1 if none. */
static int32_t row_of(const struct fw_health_tracker *t, const char *id)
{
	size_t lo = 0, hi = t->trace ? t->trace->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->row_sorted[mid].id, id);
		if (c == 0)
			return t->row_sorted[mid].row;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The earliest repair due by now: its node, or -1. */
static int32_t due_repair(const struct fw_health_tracker *t, int64_t now)
{
	int32_t best = -1;

	for (int32_t i = 0; i < t->nnodes; i++)
		if (t->repair_at[i] != NO_REPAIR && t->repair_at[i] <= now &&
		    (best < 0 || t->repair_at[i] < t->repair_at[best]))
			best = i;
	return best;
}

/* The earliest GPU repair due by now: its index in gpu_repairs, or -1. */
static int64_t due_gpu_repair(const struct fw_health_tracker *t, int64_t now)
{
	int64_t best = -1;

	for (size_t i = 0; i < t->ngpu_repairs; i++)
		if (t->gpu_repairs[i].at <= now && (best < 0 || t->gpu_repairs[i].at < t->gpu_repairs[best].at))
			best = (int64_t)i;
	return best;
}

static struct fw_health_rec *gpu_rec(struct fw_health_tracker *t, int32_t node, int32_t g)
{
	if (!t->gpu_seen[node]) {
		for (int32_t k = 0; k < 32; k++)
			fw_health_rec_init(&t->gpu_rec[(size_t)node * 32 + (size_t)k]);
		t->gpu_seen[node] = true;
	}
	return &t->gpu_rec[(size_t)node * 32 + (size_t)g];
}

/* GPU failure f: a fatal XID on each failed GPU's record, repaired at
 * f->at + f->repair_s.  FW_ENOMEM leaves the repair out. */
static void fold_gpu_failure(struct fw_health_tracker *t, const struct fw_sim_failure *f)
{
	struct fw_health_event ev = { FW_HEV_XID, f->at, 79 };

	for (int32_t g = 0; g < 32; g++) {
		if (!(f->gpus & (1u << g)))
			continue;
		fw_health_step(&t->cfg, gpu_rec(t, f->node, g), &ev);
		if (t->ngpu_repairs == t->gpu_repairs_cap) {
			size_t nc = t->gpu_repairs_cap ? 2 * t->gpu_repairs_cap : 16;
			struct fw_gpu_repair *p = realloc(t->gpu_repairs, nc * sizeof *p);
			if (!p)
				return;
			t->gpu_repairs = p;
			t->gpu_repairs_cap = nc;
		}
		t->gpu_repairs[t->ngpu_repairs++] = (struct fw_gpu_repair){ f->at + f->repair_s, f->node, g };
	}
}

static void fold_failure(struct fw_health_tracker *t, const struct fw_sim_failure *f)
{
	struct fw_health_event ev = { FW_HEV_XID, f->at, 79 };

	if (t->no_agent && (f->repair_s == 0 || f->flap))
		return; /* a crash nobody reports */
	if (f->flap) { /* failure.h: transient, no repair */
		struct fw_health_event x = { FW_HEV_NVLINK_DOWN, f->at, 0 };
		fw_health_step(&t->cfg, &t->rec[f->node], &x);
		return;
	}
	if (f->gpus) {
		fold_gpu_failure(t, f);
		return;
	}
	fw_health_step(&t->cfg, &t->rec[f->node], &ev);
	if (t->repair_at[f->node] == NO_REPAIR || f->at + f->repair_s > t->repair_at[f->node])
		t->repair_at[f->node] = f->at + f->repair_s;
}

/* A node's repair ends its GPUs' failures too (as in des.h). */
static void repair_node_gpus(struct fw_health_tracker *t, int32_t node, int64_t at)
{
	struct fw_health_event ev = { FW_HEV_REPAIRED, at, 0 };

	for (size_t i = 0; i < t->ngpu_repairs;) {
		if (t->gpu_repairs[i].node != node) {
			i++;
			continue;
		}
		fw_health_step(&t->cfg, gpu_rec(t, node, t->gpu_repairs[i].gpu), &ev);
		t->gpu_repairs[i] = t->gpu_repairs[--t->ngpu_repairs];
	}
}

/* Failures and repairs up to now, in time order (repairs before a failure
 * at the same time, as in des.h; a node's before a GPU's). */
static void fold_events(struct fw_health_tracker *t, int64_t now)
{
	for (;;) {
		int32_t r = due_repair(t, now);
		int64_t g = due_gpu_repair(t, now);
		int64_t rt = r >= 0 ? t->repair_at[r] : INT64_MAX, gt = g >= 0 ? t->gpu_repairs[g].at : INT64_MAX;
		int64_t ft = t->next < t->n && t->v[t->next].at <= now ? t->v[t->next].at : INT64_MAX;
		if (r >= 0 && rt <= gt && rt <= ft) {
			struct fw_health_event ev = { FW_HEV_REPAIRED, rt, 0 };
			fw_health_step(&t->cfg, &t->rec[r], &ev);
			t->repair_at[r] = NO_REPAIR;
			repair_node_gpus(t, r, rt);
		} else if (g >= 0 && gt <= ft) {
			struct fw_gpu_repair x = t->gpu_repairs[g];
			struct fw_health_event ev = { FW_HEV_REPAIRED, x.at, 0 };
			fw_health_step(&t->cfg, gpu_rec(t, x.node, x.gpu), &ev);
			t->gpu_repairs[g] = t->gpu_repairs[--t->ngpu_repairs];
		} else if (ft != INT64_MAX) {
			fold_failure(t, &t->v[t->next++]);
		} else {
			return;
		}
	}
}

/* Node i as placement sees it: its record and, if one of its GPUs ever
 * failed, theirs (health.h, fw_health_node_view); the lemon verdict
 * counts the incidents of all of them. */
static enum fw_health node_state(struct fw_health_tracker *t, int32_t i, int32_t ngpus, int64_t now,
				 uint32_t *suspect, bool *lemon)
{
	enum fw_health h = fw_health_tick(&t->cfg, &t->rec[i], now);
	uint32_t bad;
	int32_t inc;

	*suspect = 0;
	if (!t->gpu_seen[i]) {
		*lemon = fw_health_is_lemon(&t->cfg, &t->rec[i], now);
		return h;
	}
	ngpus = ngpus < 32 ? ngpus : 32;
	inc = fw_health_incidents(&t->cfg, &t->rec[i], now);
	for (int32_t g = 0; g < ngpus; g++) {
		fw_health_tick(&t->cfg, gpu_rec(t, i, g), now);
		inc += fw_health_incidents(&t->cfg, gpu_rec(t, i, g), now);
	}
	fw_health_node_view(&t->rec[i], gpu_rec(t, i, 0), ngpus, &h, &bad, suspect);
	*lemon = t->cfg.lemon_threshold > 0 && inc >= t->cfg.lemon_threshold;
	return h;
}

static int on_tick(void *ctx, struct fw_sim *sim, const struct fw_snapshot *s)
{
	struct fw_health_tracker *t = ctx;
	int32_t nn;
	struct fw_node *nodes = fw_sim_nodes(sim, &nn);

	fold_events(t, s->now);
	t->ticks++;
	for (int32_t i = 0; i < nn && i < t->nnodes; i++) {
		uint32_t suspect;
		bool lemon;
		enum fw_health h = node_state(t, i, nodes[i].gpu_count, s->now, &suspect, &lemon);
		t->suspect_node_ticks += h == FW_HEALTH_SUSPECT;
		t->lemon_node_ticks += lemon;
		if (t->aware) {
			nodes[i].health = h;
			nodes[i].lemon = lemon;
			nodes[i].suspect_gpu_mask = suspect;
		}
	}
	return 0;
}

/* The failure under job j at this very time, or NULL.  The tracker has
 * not folded it yet (on_tick runs after the evictions), so look from next
 * on; a failure the replay moved to 0 from the history is never under a
 * running job. */
static const struct fw_sim_failure *failure_now(const struct fw_health_tracker *t,
						const struct fw_snapshot *s, const struct fw_job *j,
						int64_t now)
{
	for (size_t i = t->next; i < t->n && t->v[i].at <= now; i++) {
		if (t->v[i].at != now)
			continue;
		for (int32_t a = 0; a < j->alloc_count; a++) {
			const struct fw_task_alloc *x = &s->allocs[j->alloc_first + a];
			if (x->node == t->v[i].node && (!t->v[i].gpus || (x->gpu_mask & t->v[i].gpus)))
				return &t->v[i];
		}
	}
	return NULL;
}

/* No agent: the job the failure f killed is a job failure on its node,
 * after what happened before now. */
static void job_failed(struct fw_health_tracker *t, const struct fw_sim_failure *f, int64_t now)
{
	struct fw_health_event ev = { FW_HEV_JOB_FAILURE, now, 0 };

	fold_events(t, now - 1);
	fw_health_step(&t->cfg, &t->rec[f->node], &ev);
}

static int64_t on_evict(void *ctx, const struct fw_snapshot *s, int32_t job, int64_t now,
			int64_t ran_s)
{
	struct fw_health_tracker *t = ctx;
	const struct fw_job *j = &s->jobs[job];
	int64_t kept = fw_sim_checkpoint_kept(ran_s, t->checkpoint_s);
	int32_t row = row_of(t, j->name);

	const struct fw_sim_failure *f = failure_now(t, s, j, now);
	int32_t failed = f ? f->node : -1;

	if (f && t->no_agent)
		job_failed(t, f, now);
	if (failed >= 0)
		kept -= t->restart_s;
	if (row >= 0) {
		t->lost_s[row] += (double)(ran_s - kept);
		if (failed >= 0) {
			t->lost_fail_s[row] += (double)(ran_s - kept);
			t->fail_hits[row]++;
			if (t->flaky && t->flaky[failed])
				t->lost_flaky_s[row] += (double)(ran_s - kept);
		}
	}
	return kept;
}

/* The earliest probation end still ahead (aware runs only). */
int64_t fw_health_tracker_next_wake(void *ctx)
{
	const struct fw_health_tracker *t = ctx;
	int64_t w = INT64_MAX;

	for (int32_t i = 0; t->aware && i < t->nnodes; i++) {
		if (t->rec[i].state == FW_HEALTH_SUSPECT && t->rec[i].until < w)
			w = t->rec[i].until;
		for (int32_t g = 0; t->gpu_seen[i] && g < 32; g++) {
			const struct fw_health_rec *r = &t->gpu_rec[(size_t)i * 32 + (size_t)g];
			if (r->state == FW_HEALTH_SUSPECT && r->until < w)
				w = r->until;
		}
	}
	return w;
}

void fw_health_tracker_hooks(struct fw_health_tracker *t, struct fw_sim_hooks *h)
{
	memset(h, 0, sizeof *h);
	h->ctx = t;
	h->on_tick = on_tick;
	h->on_evict = on_evict;
}
