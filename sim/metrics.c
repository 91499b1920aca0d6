/*
 * metrics.c — replay metrics and report series (contract in metrics.h,
 * definitions in docs/metrics.md).
 *
 * Shape.  fw_met_compute sweeps the jobs' events once, in time order
 * (sweep): +GPUs at a start, -GPUs at a completion, +1 waiting at a
 * submission, -1 at the start; between consecutive event times the state
 * is constant, so used GPU-seconds, idle-while-waiting GPU-seconds (free
 * GPUs x time while the waiting count is positive, per queue and in
 * total) and the binned occupancy series are exact sums of rectangles.
 * The plan samples (fw_met_rec, filled by the simulator's hook) are a
 * second step function: fairness and the per-queue share series integrate
 * it the same way (shares).  Everything is clipped to the window
 * [first arrival, end of the replay] (window_of).
 *
 * Output.  fw_met_add keeps the policy in the run and adds its fields to
 * the JSON object des.c built; fw_met_write_csv writes one row per
 * (policy, scope).  No scheduling logic lives here: fair shares are the
 * engine's own, read from the plans.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fairway/plan.h"
#include "fairway/snapshot.h"
#include "metrics.h"

/* ---- plan samples (the hook) --------------------------------------------- */

void fw_met_rec_release(struct fw_met_rec *r)
{
	free(r->qname);
	free(r->deserved);
	free(r->leaf);
	free(r->parent);
	free(r->t);
	free(r->fair);
	free(r->alloc);
	memset(r, 0, sizeof *r);
}

void fw_met_rec_reset(struct fw_met_rec *r)
{
	struct fw_progress *bar = r->bar;
	int64_t ck = r->checkpoint_s;

	fw_met_rec_release(r);
	r->bar = bar;
	r->checkpoint_s = ck;
}

int64_t fw_met_on_evict(void *ctx, const struct fw_snapshot *s, int32_t job, int64_t now,
			int64_t ran_s)
{
	const struct fw_met_rec *r = ctx;

	(void)s, (void)job, (void)now;
	return fw_sim_checkpoint_kept(ran_s, r->checkpoint_s);
}

/* Queue names, quotas and leaves, from the first snapshot seen. */
static bool rec_queues(struct fw_met_rec *r, const struct fw_snapshot *s)
{
	int nq = s->nqueues;

	r->qname = calloc((size_t)nq + 1, sizeof *r->qname);
	r->deserved = calloc((size_t)nq + 1, sizeof *r->deserved);
	r->leaf = calloc((size_t)nq + 1, sizeof *r->leaf);
	r->parent = calloc((size_t)nq + 1, sizeof *r->parent);
	if (!r->qname || !r->deserved || !r->leaf || !r->parent)
		return false;
	for (int q = 0; q < nq; q++) {
		snprintf(r->qname[q], FW_MET_QNAME, "%s", s->queues[q].name);
		r->deserved[q] = (double)s->queues[q].deserved.v[FW_RES_GPU] / 1000.0;
		r->leaf[q] = true;
		r->parent[q] = s->queues[q].parent >= 0 && s->queues[q].parent < nq ? s->queues[q].parent : -1;
	}
	for (int q = 0; q < nq; q++)
		if (s->queues[q].parent >= 0 && s->queues[q].parent < nq)
			r->leaf[s->queues[q].parent] = false;
	r->nq = nq;
	return true;
}

static bool rec_grow(struct fw_met_rec *r)
{
	size_t cap = r->cap ? r->cap * 2 : 1024, nq = (size_t)(r->nq ? r->nq : 1);
	int64_t *t = realloc(r->t, cap * sizeof *t);
	if (t)
		r->t = t;
	float *f = realloc(r->fair, cap * nq * sizeof *f);
	if (f)
		r->fair = f;
	float *a = realloc(r->alloc, cap * nq * sizeof *a);
	if (a)
		r->alloc = a;
	if (!t || !f || !a)
		return false;
	r->cap = cap;
	return true;
}

void fw_met_on_plan(void *ctx, const struct fw_snapshot *s, const struct fw_plan *p,
		    int64_t started)
{
	struct fw_met_rec *r = ctx;

	if (r->bar)
		fw_progress_update(r->bar, started);
	if (r->oom || (!r->qname && !rec_queues(r, s)) || (r->n == r->cap && !rec_grow(r))) {
		r->oom = true;
		return;
	}
	size_t base = r->n * (size_t)r->nq;
	for (int q = 0; q < r->nq; q++) {
		bool have = q < p->nqueues;
		r->fair[base + (size_t)q] = have ? (float)(p->queues[q].fair[FW_RES_GPU] / 1000.0) : 0;
		r->alloc[base + (size_t)q] =
			have ? (float)((double)p->queues[q].allocated.v[FW_RES_GPU] / 1000.0) : 0;
	}
	r->t[r->n++] = p->now;
}

/* ---- step functions ------------------------------------------------------ */

struct win {
	double t0, w;   /* window start, bin width (seconds) */
	int nb;         /* bins */
	int64_t lo, hi; /* window */
};

/* Add v * overlap([a, b), bin) to every bin [a, b) touches. */
static void bin_add(double *bins, const struct win *W, double a, double b, double v)
{
	if (v == 0 || b <= a || W->nb == 0)
		return;
	int i = (int)((a - W->t0) / W->w);
	for (i = i < 0 ? 0 : i; i < W->nb; i++) {
		double lo = W->t0 + i * W->w, hi = lo + W->w;
		double s = a > lo ? a : lo, e = b < hi ? b : hi;
		if (e > s)
			bins[i] += v * (e - s);
		if (hi >= b)
			break;
	}
}

/* [a, b) clipped to the window; 0 when empty. */
static double clip(const struct win *W, int64_t *a, int64_t *b)
{
	if (*a < W->lo)
		*a = W->lo;
	if (*b > W->hi)
		*b = W->hi;
	return *b > *a ? (double)(*b - *a) : 0;
}

struct sev {
	int64_t t, dm;   /* dm: milli-GPUs taken (+) or given back (-) */
	int32_t q, dw;
};

static int cmp_sev(const void *a, const void *b)
{
	int64_t x = ((const struct sev *)a)->t, y = ((const struct sev *)b)->t;

	return (x > y) - (x < y);
}

/* Milli-GPUs job j holds while it runs: its own figure when it has one
 * (a fractional GPU counts its gpu_milli), else 1000 per GPU it holds (an
 * elastic job may hold fewer than it asks).  Every GPU-second here is
 * milli-GPU-seconds / 1000: one unit, whole and fractional GPUs alike. */
static int64_t milli_of(const struct fw_met_job *j)
{
	return j->milli > 0 ? j->milli : 1000 * (int64_t)(j->held > 0 ? j->held : j->gpus);
}

/* Run r of job j: [start, end) holding *m milli-GPUs (the run's own when
 * it says); a job without runs has one, of its duration (an unclosed run
 * is taken to end after its duration). */
static void run_of(const struct fw_met_job *j, int32_t r, int64_t *a, int64_t *b, int64_t *m)
{
	*m = milli_of(j);
	if (!j->runs || j->nruns <= 0) {
		*a = j->start;
		*b = j->start + j->duration;
		return;
	}
	const struct fw_sim_span *s = &j->runs[r];
	*a = s->start;
	*b = s->end >= 0 ? s->end : *a + j->duration;
	*m = s->milli > 0 ? s->milli : s->gpus > 0 ? 1000 * (int64_t)s->gpus : *m;
}

static int32_t nruns_of(const struct fw_met_job *j)
{
	return j->start < 0 ? 0 : j->runs && j->nruns > 0 ? j->nruns : 1;
}

/* Is j a started job for time to start, estimates and GPU-hours of work
 * done?  Not when it never started, nor when it was evicted and never
 * restarted (as des.c's stats, which count finished jobs). */
static bool started(const struct fw_met_job *j)
{
	return j->start >= 0 && !j->waiting;
}

/* One job's events: it waits from its submission (and from each eviction)
 * to its next start, and holds its GPUs during each run; a job never
 * started, or evicted and not restarted, waits to the end. */
static size_t job_events(const struct fw_met_job *j, bool fits, struct sev *e)
{
	size_t k = 0;
	int64_t a, b, g, wait_from = j->submit;

	for (int32_t r = 0; r < nruns_of(j); r++) {
		run_of(j, r, &a, &b, &g);
		if (fits)
			e[k++] = (struct sev){ wait_from, 0, j->queue, +1 };
		e[k++] = (struct sev){ a, g, j->queue, fits ? -1 : 0 };
		e[k++] = (struct sev){ b, -g, j->queue, 0 };
		wait_from = b;
	}
	if (fits && (j->start < 0 || j->waiting))
		e[k++] = (struct sev){ wait_from, 0, j->queue, +1 };
	return k;
}

/* The jobs' events; waiting counts only jobs that may start on the fleet
 * at all (not unfit). */
static struct sev *events(const struct fw_met_job *j, size_t n, size_t *ne)
{
	size_t k = 1;

	for (size_t i = 0; i < n; i++)
		k += 3 * (size_t)nruns_of(&j[i]) + 1;
	struct sev *e = malloc(k * sizeof *e);
	if (!e)
		return NULL;
	k = 0;
	for (size_t i = 0; i < n; i++)
		k += job_events(&j[i], !j[i].unfit, e + k);
	qsort(e, k, sizeof *e, cmp_sev);
	*ne = k;
	return e;
}

struct sweep_acc {
	double used_gs, idle_gs, *idle_q_gs, *occ;
	int32_t *waitq;
};

/* One constant stretch [a, b) with `used` milli-GPUs busy (of cap GPUs)
 * and `wait` jobs waiting; the sums are in GPU-seconds. */
static void sweep_span(struct sweep_acc *A, const struct win *W, int64_t a, int64_t b,
		       int64_t used, int64_t wait, int64_t cap, int nq)
{
	double dt = clip(W, &a, &b), u = (double)used / 1000.0, fr = (double)cap - u;

	if (dt <= 0)
		return;
	A->used_gs += u * dt;
	if (wait > 0)
		A->idle_gs += fr * dt;
	for (int q = 0; q < nq; q++)
		if (A->waitq[q] > 0)
			A->idle_q_gs[q] += fr * dt;
	bin_add(A->occ, W, (double)a, (double)b, u);
}

/* A job waiting in queue q waits in q and, with a tree (parent, else
 * NULL), in every queue above it: a parent's waiting is its subtree's. */
static void wait_up(int32_t *waitq, const int32_t *parent, int nq, int32_t q, int64_t dw)
{
	for (int k = 0; q >= 0 && q < nq && k <= nq; q = parent ? parent[q] : -1, k++)
		waitq[q] += (int32_t)dw;
}

static int sweep(const struct fw_met_job *j, size_t n, int64_t cap, int nq, const int32_t *parent,
		 const struct win *W, struct sweep_acc *A)
{
	size_t ne, i = 0;
	struct sev *e = events(j, n, &ne);
	int64_t used = 0, wait = 0;

	if (!e)
		return FW_ENOMEM;
	while (i < ne) {
		int64_t t = e[i].t;
		for (; i < ne && e[i].t == t; i++) {
			used += e[i].dm;
			wait += e[i].dw;
			wait_up(A->waitq, parent, nq, e[i].q, e[i].dw);
		}
		sweep_span(A, W, t, i < ne ? e[i].t : W->hi, used, wait, cap, nq);
	}
	free(e);
	return FW_OK;
}

/* ---- fairness and shares from the plan samples --------------------------- */

struct share_acc {
	double jain_dt, jain_t;
	double *fair_dt, *alloc_dt, *x_dt, *x_t; /* [nq] */
	double *fbins, *abins;                  /* [nq * nb] */
};

/* Jain over queues with a positive fair share at sample i; -1 if none or
 * every ratio is 0.  Also accumulates the per-queue integrals over dt. */
static double sample(const struct fw_met_rec *r, size_t i, const struct win *W, double a,
		     double b, struct share_acc *S)
{
	double sx = 0, sxx = 0, dt = b - a;
	int k = 0;

	for (int q = 0; q < r->nq; q++) {
		double f = r->fair[i * (size_t)r->nq + (size_t)q];
		double al = r->alloc[i * (size_t)r->nq + (size_t)q];
		S->fair_dt[q] += f * dt;
		S->alloc_dt[q] += al * dt;
		bin_add(S->fbins + (size_t)q * FW_MET_BINS, W, a, b, f);
		bin_add(S->abins + (size_t)q * FW_MET_BINS, W, a, b, al);
		if (!r->leaf[q] || f <= 1e-9)
			continue;
		double x = al / f;
		S->x_dt[q] += x * dt;
		S->x_t[q] += dt;
		sx += x;
		sxx += x * x;
		k++;
	}
	return k && sxx > 0 ? sx * sx / ((double)k * sxx) : -1;
}

static void shares(const struct fw_met_rec *r, const struct win *W, struct share_acc *S)
{
	for (size_t i = 0; i < r->n; i++) {
		int64_t a = r->t[i], b = i + 1 < r->n ? r->t[i + 1] : W->hi;
		double dt = clip(W, &a, &b);
		if (dt <= 0)
			continue;
		double jn = sample(r, i, W, (double)a, (double)b, S);
		if (jn >= 0) {
			S->jain_dt += jn * dt;
			S->jain_t += dt;
		}
	}
}

/* ---- fairness over windows ------------------------------------------------ */

const int64_t fw_met_jain_window_s[FW_MET_NWIN] = { 3600, 6 * 3600, 86400, 7 * 86400 };
const char *const fw_met_jain_window_name[FW_MET_NWIN] = { "1h", "6h", "1d", "7d" };
_Static_assert(FW_MET_NWIN == 4, "g_jain1d reads window 2, the day");

/* One window length's accumulators: the window in progress (k) and its
 * per-queue integrals of allocated and fair GPUs. */
struct jwin {
	int64_t len, k;
	double *a, *f;   /* [nq] GPU-seconds in window k */
	double t;        /* sampled seconds in window k */
	double jdt, jt;  /* sum of Jain x sampled time, sampled time */
};

/* Whole windows one plan sample covers alike, past which they are added
 * as one: their Jain is the same (the plan's), so a sample that holds for
 * centuries (times up to 10^12 s are valid) costs one step, not one per
 * hour, which took minutes a policy.  Below it every window is added one
 * by one as before, so an ordinary replay's figures keep their bits. */
#define JWIN_BULK 4096

/* Close window k, standing for n windows alike (1 but for a bulk run):
 * Jain over leaf queues with fair GPU-time in it. */
static void jwin_close(struct jwin *J, const struct fw_met_rec *r, int64_t n)
{
	double sx = 0, sxx = 0;
	int k = 0;

	for (int q = 0; q < r->nq; q++) {
		if (r->leaf[q] && J->f[q] > 1e-9 * (J->t > 1 ? J->t : 1)) {
			double x = J->a[q] / J->f[q];
			sx += x;
			sxx += x * x;
			k++;
		}
		J->a[q] = J->f[q] = 0;
	}
	if (k && sxx > 0) {
		J->jdt += sx * sx / ((double)k * sxx) * (J->t * (double)n);
		J->jt += J->t * (double)n;
	}
	J->t = 0;
}

/* Add plan sample i over [a, b), split at the window edges. */
static void jwin_add(struct jwin *J, const struct fw_met_rec *r, size_t i, int64_t lo, int64_t a,
		     int64_t b)
{
	const float *f = r->fair + i * (size_t)r->nq, *al = r->alloc + i * (size_t)r->nq;

	while (a < b) {
		int64_t k = (a - lo) / J->len, e = lo + (k + 1) * J->len, n = 1;
		e = e < b ? e : b;
		if (k != J->k) {
			jwin_close(J, r, 1);
			J->k = k;
		}
		if (J->t == 0 && a == lo + k * J->len && (b - a) / J->len > JWIN_BULK)
			n = (b - a) / J->len; /* n whole windows alike: one, closed n times over */
		for (int q = 0; q < r->nq; q++) {
			J->a[q] += (double)al[q] * (double)(e - a);
			J->f[q] += (double)f[q] * (double)(e - a);
		}
		J->t += (double)(e - a);
		a = e;
		if (n > 1) {
			jwin_close(J, r, n);
			a = lo + (k + n) * J->len;
			J->k = k + n - 1;
		}
	}
}

/* o->fairness_jain_win from the plan samples, one pass per window length. */
static int windowed_jain(const struct fw_met_rec *r, const struct win *W, struct fw_met_policy *o)
{
	struct jwin J;
	int rc = FW_OK;

	for (int w = 0; w < FW_MET_NWIN; w++) {
		o->fairness_jain_win[w] = -1;
		if (!r || !r->n || rc != FW_OK)
			continue;
		memset(&J, 0, sizeof J);
		J.len = fw_met_jain_window_s[w];
		J.a = calloc((size_t)r->nq + 1, sizeof(double));
		J.f = calloc((size_t)r->nq + 1, sizeof(double));
		if (!J.a || !J.f)
			rc = FW_ENOMEM;
		for (size_t i = 0; rc == FW_OK && i < r->n; i++) {
			int64_t a = r->t[i], b = i + 1 < r->n ? r->t[i + 1] : W->hi;
			if (clip(W, &a, &b) > 0)
				jwin_add(&J, r, i, W->lo, a, b);
		}
		if (rc == FW_OK) {
			jwin_close(&J, r, 1);
			o->fairness_jain_win[w] = J.jt > 0 ? J.jdt / J.jt : -1;
		}
		free(J.a);
		free(J.f);
	}
	return rc;
}

/* ---- time to start --------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Rank k = ceil(p * n / 100) in whole numbers: a double p / 100.0 * n is
 * off by a hair for some p and n (7 / 100.0 * 100 > 7) and ceil then
 * takes the next value.  p is clamped to 0..100; rank 0 reads the first. */
int64_t fw_met_pct(const int64_t *v, size_t n, int p)
{
	size_t pp = p < 0 ? 0 : p > 100 ? 100 : (size_t)p, k = (pp * n + 99) / 100;

	return n ? v[k ? k - 1 : 0] : -1;
}

static int tts_samples(const struct fw_met_job *j, size_t n, struct fw_met_policy *o)
{
	for (int b = 0; b < FW_SIM_NBUCKETS; b++) {
		o->tts[b] = malloc((n ? n : 1) * sizeof *o->tts[b]);
		if (!o->tts[b])
			return FW_ENOMEM;
		o->ntts[b] = 0;
		for (size_t i = 0; i < n; i++)
			if (started(&j[i]) && fw_sim_in_bucket(b, j[i].gpus))
				o->tts[b][o->ntts[b]++] = j[i].start - j[i].submit;
		qsort(o->tts[b], o->ntts[b], sizeof *o->tts[b], cmp_i64);
	}
	return FW_OK;
}

/* ---- evictions and start-time estimates ------------------------------------ */

static void eviction_stats(const struct fw_met_job *j, size_t n, struct fw_met_policy *o)
{
	int64_t sum = 0;

	o->evictions_per_job_max = 0;
	o->evicted_waiting = 0;
	for (size_t i = 0; i < n; i++) {
		sum += j[i].evicted;
		o->evicted_waiting += j[i].start >= 0 && j[i].waiting;
		if (j[i].evicted > o->evictions_per_job_max)
			o->evictions_per_job_max = j[i].evicted;
	}
	o->evictions_per_job_mean = n ? (double)sum / (double)n : 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static bool is_big(const struct fw_met_job *j)
{
	return fw_sim_in_bucket(FW_SIM_B9, j->gpus) && j->start - j->submit >= FW_MET_BIG_WAIT_S;
}

/* Fill err[] (all), berr[] and ratio[] (big jobs); counts in e. */
static void est_samples(const struct fw_met_job *j, size_t n, int64_t *err, int64_t *berr,
			double *ratio, struct fw_met_est *e)
{
	for (size_t i = 0; i < n; i++) {
		if (!started(&j[i]) || !j[i].estimated)
			continue;
		int64_t d = j[i].estimate - j[i].start, a = d < 0 ? -d : d;
		err[e->n++] = a;
		if (!is_big(&j[i]))
			continue;
		berr[e->big_n] = a;
		ratio[e->big_n++] = (double)a / (double)(j[i].start - j[i].submit);
	}
}

int fw_met_estimates(const struct fw_met_job *j, size_t n, struct fw_met_est *e)
{
	size_t m = n ? n : 1;
	int64_t *err = malloc(m * sizeof *err), *berr = malloc(m * sizeof *berr);
	double *ratio = malloc(m * sizeof *ratio);

	memset(e, 0, sizeof *e);
	e->err_p50_s = e->big_err_p50_s = -1;
	e->big_ratio_p50 = -1;
	if (!err || !berr || !ratio) {
		free(err), free(berr), free(ratio);
		return FW_ENOMEM;
	}
	est_samples(j, n, err, berr, ratio, e);
	qsort(err, (size_t)e->n, sizeof *err, cmp_i64);
	qsort(berr, (size_t)e->big_n, sizeof *berr, cmp_i64);
	qsort(ratio, (size_t)e->big_n, sizeof *ratio, cmp_dbl);
	e->err_p50_s = fw_met_pct(err, (size_t)e->n, 50);
	e->big_err_p50_s = fw_met_pct(berr, (size_t)e->big_n, 50);
	if (e->big_n) /* nearest rank, as fw_met_pct */
		e->big_ratio_p50 = ratio[(e->big_n + 1) / 2 - 1];
	free(err), free(berr), free(ratio);
	return FW_OK;
}

/* ---- one policy ------------------------------------------------------------ */

/* [first arrival, end of the replay]: its last completion or eviction, or
 * its last arrival when later (a job that never started, or was evicted
 * and never restarted, waits until the replay ends, and the window must
 * hold that wait; docs/metrics.md). */
static void window_of(const struct fw_met_job *j, size_t n, struct win *W)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i < n; i++) {
		int64_t a, b, g;
		lo = j[i].submit < lo ? j[i].submit : lo;
		hi = j[i].submit > hi ? j[i].submit : hi;
		for (int32_t r = 0; r < nruns_of(&j[i]); r++) {
			run_of(&j[i], r, &a, &b, &g);
			hi = b > hi ? b : hi;
		}
	}
	memset(W, 0, sizeof *W);
	W->lo = n ? lo : 0;
	W->hi = hi > W->lo ? hi : W->lo;
	W->t0 = (double)W->lo;
	W->nb = W->hi > W->lo ? FW_MET_BINS : 0;
	W->w = W->nb ? (double)(W->hi - W->lo) / W->nb : 1;
}

static int queue_count(const struct fw_met_job *j, size_t n, const struct fw_met_rec *rec)
{
	int nq = rec ? rec->nq : 0;

	for (size_t i = 0; i < n; i++)
		nq = j[i].queue + 1 > nq ? j[i].queue + 1 : nq;
	return nq;
}

struct scratch {
	struct sweep_acc A;
	struct share_acc S;
	void *blk[9];
};

static int scratch_new(struct scratch *x, int nq)
{
	size_t q = (size_t)nq + 1, qb = q * FW_MET_BINS;

	memset(x, 0, sizeof *x);
	x->blk[0] = x->A.idle_q_gs = calloc(q, sizeof(double));
	x->blk[1] = x->A.occ = calloc(FW_MET_BINS, sizeof(double));
	x->blk[2] = x->A.waitq = calloc(q, sizeof(int32_t));
	x->blk[3] = x->S.fair_dt = calloc(q, sizeof(double));
	x->blk[4] = x->S.alloc_dt = calloc(q, sizeof(double));
	x->blk[5] = x->S.x_dt = calloc(q, sizeof(double));
	x->blk[6] = x->S.x_t = calloc(q, sizeof(double));
	x->blk[7] = x->S.fbins = calloc(qb, sizeof(double));
	x->blk[8] = x->S.abins = calloc(qb, sizeof(double));
	for (int i = 0; i < 9; i++)
		if (!x->blk[i])
			return FW_ENOMEM;
	return FW_OK;
}

static void scratch_free(struct scratch *x)
{
	for (int i = 0; i < 9; i++)
		free(x->blk[i]);
}

/* Per-queue results from the accumulators. */
static void fill_queue(struct fw_met_policy *o, int q, const struct fw_met_job *j, size_t n,
		       const struct fw_met_rec *rec, const struct win *W, const struct scratch *x)
{
	struct fw_met_queue *Q = &o->q[q];
	double span = (double)(W->hi - W->lo), gs = 0;

	Q->evictions = 0;
	Q->lost_gpu_h = 0;
	for (size_t i = 0; i < n; i++) {
		if (j[i].queue != q)
			continue;
		if (started(&j[i]))
			gs += (double)milli_of(&j[i]) / 1000.0 * (double)j[i].duration;
		Q->evictions += j[i].evicted;
		Q->lost_gpu_h += j[i].lost_gpu_s / 3600.0;
	}
	if (rec && q < rec->nq) {
		snprintf(Q->name, sizeof Q->name, "%s", rec->qname[q]);
		Q->deserved_gpus = rec->deserved[q];
	} else {
		snprintf(Q->name, sizeof Q->name, "queue-%d", q);
	}
	Q->gpu_h = gs / 3600.0;
	Q->occupancy = o->capacity_gpu_h > 0 ? Q->gpu_h / o->capacity_gpu_h : 0;
	Q->idle_while_waiting_gpu_h = x->A.idle_q_gs[q] / 3600.0;
	Q->fair_gpus_mean = span > 0 ? x->S.fair_dt[q] / span : 0;
	Q->alloc_gpus_mean = span > 0 ? x->S.alloc_dt[q] / span : 0;
	Q->share_ratio_mean = x->S.x_t[q] > 0 ? x->S.x_dt[q] / x->S.x_t[q] : -1;
	for (int b = 0; b < W->nb; b++) {
		Q->fair_series[b] = (float)(x->S.fbins[(size_t)q * FW_MET_BINS + (size_t)b] / W->w);
		Q->alloc_series[b] = (float)(x->S.abins[(size_t)q * FW_MET_BINS + (size_t)b] / W->w);
	}
}

static void fill_totals(struct fw_met_policy *o, const struct win *W, int64_t cap,
			const struct scratch *x)
{
	o->t0 = W->lo;
	o->t1 = W->hi;
	o->nbins = W->nb;
	o->capacity_gpu_h = (double)cap * (double)(W->hi - W->lo) / 3600.0;
	o->used_gpu_h = x->A.used_gs / 3600.0;
	o->goodput_gpu_h = o->used_gpu_h; /* no lost work yet (planning/health issues) */
	o->idle_while_waiting_gpu_h = x->A.idle_gs / 3600.0;
	o->fairness_jain = x->S.jain_t > 0 ? x->S.jain_dt / x->S.jain_t : -1;
	for (int b = 0; b < W->nb; b++)
		o->occupancy_series[b] = (float)(x->A.occ[b] / W->w / (double)(cap > 0 ? cap : 1));
	o->fairness_max_dev = -1;
	o->fairness_max_dev_queue = -1;
	for (int q = 0; q < o->nq; q++) {
		double r = o->q[q].share_ratio_mean, d = fabs(r - 1.0);
		if (r >= 0 && d > o->fairness_max_dev) {
			o->fairness_max_dev = d;
			o->fairness_max_dev_queue = q;
		}
	}
}

int fw_met_compute(const struct fw_met_job *jobs, size_t n, const struct fw_met_rec *rec,
		   int64_t capacity_gpus, struct fw_met_policy *o)
{
	struct win W;
	struct scratch x;
	int nq = queue_count(jobs, n, rec), rc;

	window_of(jobs, n, &W);
	o->nq = nq;
	o->q = calloc((size_t)nq + 1, sizeof *o->q);
	rc = o->q ? scratch_new(&x, nq) : FW_ENOMEM;
	if (rc == FW_OK) /* a tree's parents wait while their subtree does */
		rc = sweep(jobs, n, capacity_gpus, nq, rec && rec->nq == nq ? rec->parent : NULL, &W, &x.A);
	if (rc == FW_OK && rec && rec->n && rec->nq == nq)
		shares(rec, &W, &x.S);
	if (rc == FW_OK)
		rc = windowed_jain(rec && rec->nq == nq ? rec : NULL, &W, o);
	if (rc == FW_OK)
		rc = tts_samples(jobs, n, o);
	if (rc == FW_OK)
		rc = fw_met_estimates(jobs, n, &o->est);
	if (rc == FW_OK) {
		eviction_stats(jobs, n, o);
		o->capacity_gpu_h = (double)capacity_gpus * (double)(W.hi - W.lo) / 3600.0;
		for (int q = 0; q < nq; q++)
			fill_queue(o, q, jobs, n, rec, &W, &x);
		fill_totals(o, &W, capacity_gpus, &x);
	}
	if (o->q)
		scratch_free(&x);
	return rc;
}

void fw_met_policy_release(struct fw_met_policy *p)
{
	for (int b = 0; b < FW_SIM_NBUCKETS; b++)
		free(p->tts[b]);
	free(p->q);
	memset(p, 0, sizeof *p);
}

/* ---- the run ----------------------------------------------------------------- */

struct fw_met_run *fw_met_run_new(const char *trace, const struct fw_sim_opts *o, size_t jobs)
{
	struct fw_met_run *mr = calloc(1, sizeof *mr);

	if (!mr)
		return NULL;
	snprintf(mr->trace, sizeof mr->trace, "%s", trace ? trace : "");
	mr->nodes = o->nodes;
	mr->gpus_per_node = o->gpus_per_node;
	mr->nodes_per_rack = o->nodes_per_rack;
	mr->tick_s = o->tick_s;
	mr->capacity_gpus = (int64_t)o->nodes * o->gpus_per_node;
	mr->fleet_nodes = o->nodes;
	mr->node_gpus_max = o->gpus_per_node;
	snprintf(mr->shape, sizeof mr->shape, "%dx%d", (int)o->nodes, (int)o->gpus_per_node);
	const struct fw_snapshot *f = o->config ? o->config : o->fleet;
	if (f) { /* a fleet file or config: its usable GPUs, whatever the node shapes */
		mr->capacity_gpus = fw_fleet_usable_gpus(f);
		mr->fleet_nodes = f->nnodes;
		fw_fleet_shape(f, mr->shape, sizeof mr->shape);
		mr->node_gpus_max = 0;
		for (int32_t i = 0; i < f->nnodes; i++)
			if (f->nodes[i].gpu_count > mr->node_gpus_max)
				mr->node_gpus_max = f->nodes[i].gpu_count;
	}
	mr->config = o->config;
	mr->jobs = jobs;
	return mr;
}

const char *fw_met_b9_label(const struct fw_met_run *mr)
{
	return mr->node_gpus_max <= 8 ? "9+ GPUs (multi-node)" : "9+ GPUs";
}

void fw_met_run_free(struct fw_met_run *mr)
{
	if (!mr)
		return;
	for (int i = 0; i < mr->npol; i++) {
		fw_met_policy_release(mr->pol[i]);
		free(mr->pol[i]);
	}
	fw_met_rec_release(&mr->rec);
	free(mr);
}

void fw_met_begin(struct fw_met_run *mr, struct fw_sim_opts *o, const char *policy)
{
	fw_met_rec_reset(&mr->rec);
	fw_progress_init(&mr->bar, stderr, fw_progress_is_tty(stderr), policy, (int64_t)mr->jobs);
	mr->rec.bar = &mr->bar;
	mr->rec.checkpoint_s = mr->checkpoint_s;
	mr->hooks.on_plan = fw_met_on_plan;
	mr->hooks.on_evict = fw_met_on_evict;
	mr->hooks.ctx = &mr->rec;
	o->hooks = &mr->hooks;
}

void fw_met_end(struct fw_met_run *mr, struct fw_sim_opts *o)
{
	fw_progress_finish(&mr->bar);
	o->hooks = NULL;
}

/* r->runs grouped by row (a counting sort; runs keep their time order):
 * job i's runs are (*out)[first[i] .. first[i + 1]). */
static int group_runs(const struct fw_sim_result *r, size_t n, struct fw_sim_span **out,
		      size_t **first)
{
	*out = malloc((r->nruns ? r->nruns : 1) * sizeof **out);
	*first = calloc(n + 2, sizeof **first);
	if (!*out || !*first)
		return FW_ENOMEM;
	for (size_t k = 0; k < r->nruns; k++)
		if (r->runs[k].row >= 0 && (size_t)r->runs[k].row < n)
			(*first)[r->runs[k].row + 2]++;
	for (size_t i = 2; i < n + 2; i++)
		(*first)[i] += (*first)[i - 1];
	for (size_t k = 0; k < r->nruns; k++)
		if (r->runs[k].row >= 0 && (size_t)r->runs[k].row < n)
			(*out)[(*first)[r->runs[k].row + 1]++] = r->runs[k];
	return FW_OK;
}

static struct fw_met_job *jobs_itp(const struct fw_met_run *mr, const struct fw_itp_trace *t,
				   const struct fw_sim_result *r, const struct fw_sim_span *runs,
				   const size_t *first)
{
	struct fw_met_job *j = malloc((t->n ? t->n : 1) * sizeof *j);

	for (size_t i = 0; j && i < t->n; i++) {
		/* a job its run-time limit ended did only part of its work */
		int64_t done = t->v[i].duration - (r->cut ? r->cut[i] : 0);
		j[i] = (struct fw_met_job){ .submit = t->v[i].submit, .duration = done,
					    .start = r->start[i], .gpus = t->v[i].gpus,
					    .queue = r->queue[i] };
		j[i].held = r->gpus ? r->gpus[i] : 0;
		j[i].milli = r->milli ? r->milli[i] : 0;
		j[i].waiting = r->start[i] >= 0 && r->end && r->end[i] < 0;
		j[i].evicted = r->evicted ? r->evicted[i] : 0;
		j[i].lost_gpu_s = r->lost ? r->lost[i] : 0;
		j[i].estimated = r->estimate && r->estimate[i] >= 0;
		j[i].estimate = r->estimate ? r->estimate[i] : -1;
		j[i].runs = runs && first[i + 1] > first[i] ? runs + first[i] : NULL;
		j[i].nruns = runs ? (int32_t)(first[i + 1] - first[i]) : 0;
		j[i].unfit = mr->unfit ? mr->unfit[i] : j[i].gpus > mr->capacity_gpus;
	}
	return j;
}

static void policy_json(const struct fw_met_policy *p, json_t *o);

/* A parent queue's usage is its subtree's, as sshare counts it: each
 * queue's own GPU-hours, evictions and lost work added to every queue
 * above it (r->qparent), its occupancy from the sum.  Its waiting
 * (idle_while_waiting_gpu_h) is its subtree's too, from the sweep (the
 * GPUs idle while some queue under it had a job waiting: not a sum, as
 * two children waiting at once wait on the same idle GPUs); the plan's
 * shares are the engine's own per queue. */
static void subtree_totals(struct fw_met_policy *p, const struct fw_sim_result *r)
{
	double own_h[FW_TEAMS_MAX], own_lost[FW_TEAMS_MAX];
	int64_t own_ev[FW_TEAMS_MAX];
	int nq = p->nq < r->nqueues ? p->nq : r->nqueues;

	for (int q = 0; q < nq; q++) {
		own_h[q] = p->q[q].gpu_h;
		own_lost[q] = p->q[q].lost_gpu_h;
		own_ev[q] = p->q[q].evictions;
	}
	for (int q = 0; q < nq; q++)
		for (int32_t a = r->qparent[q], k = 0; a >= 0 && a < nq && k < nq; a = r->qparent[a], k++) {
			p->q[a].gpu_h += own_h[q];
			p->q[a].lost_gpu_h += own_lost[q];
			p->q[a].evictions += own_ev[q];
		}
	for (int q = 0; q < nq; q++)
		p->q[q].occupancy = p->capacity_gpu_h > 0 ? p->q[q].gpu_h / p->capacity_gpu_h : 0;
}

/* Under --config, each queue's own run-time limit and budget (the CSV's
 * queue rows; the JSON's byQueue has them from des.c). */
static void config_limits(struct fw_met_policy *p, const struct fw_snapshot *cfg)
{
	p->by_config = cfg != NULL;
	for (int q = 0; cfg && q < p->nq && q < cfg->nqueues; q++) {
		p->q[q].max_runtime_s = cfg->queues[q].max_runtime_s;
		p->q[q].gpu_hour_budget = cfg->queues[q].gpu_hour_budget;
	}
}

int fw_met_add(struct fw_met_run *mr, const struct fw_itp_trace *t,
	       const struct fw_sim_result *r, const struct fw_sim_metrics *m,
	       struct json_t *pj)
{
	struct fw_met_policy *p;
	struct fw_met_job *j = NULL;
	struct fw_sim_span *runs = NULL;
	size_t *first = NULL;
	int rc;

	if (mr->npol == FW_MET_POLICIES || mr->rec.oom)
		return FW_ENOMEM;
	if (!(p = calloc(1, sizeof *p)) || group_runs(r, t->n, &runs, &first) != FW_OK ||
	    !(j = jobs_itp(mr, t, r, r->runs ? runs : NULL, first))) {
		free(p), free(runs), free(first);
		return FW_ENOMEM;
	}
	snprintf(p->name, sizeof p->name, "%s", r->policy);
	p->base = *m;
	p->decisions = r->decisions;
	p->never_started = r->never_started;
	p->cycles = r->cycles;
	rc = fw_met_compute(j, t->n, &mr->rec, mr->capacity_gpus, p);
	free(j), free(runs), free(first);
	if (rc == FW_OK)
		subtree_totals(p, r);
	if (rc == FW_OK)
		config_limits(p, mr->config);
	p->lost_gpu_h = r->lost_gpu_s / 3600.0;
	p->max_runtime_s = r->max_runtime_s;
	p->job_limits = r->job_limits;
	p->timed_out = r->timed_out;
	p->timed_out_gpu_h = r->timed_out_gpu_s / 3600.0;
	p->timed_out_cut_gpu_h = r->cut_gpu_s / 3600.0;
	p->gpu_hour_budget = r->gpu_hour_budget;
	p->over_budget_jobs = r->over_budget_jobs;
	p->usage_half_life_s = r->usage_half_life_s;
	if (r->runs) /* used_gpu_h counts every run; goodput only what was kept */
		p->goodput_gpu_h = p->used_gpu_h - p->lost_gpu_h;
	if (rc != FW_OK) {
		fw_met_policy_release(p);
		free(p);
		return rc;
	}
	mr->pol[mr->npol++] = p;
	if (pj)
		policy_json(p, pj);
	return FW_OK;
}

void fw_met_print(const struct fw_met_run *mr, FILE *f)
{
	const struct fw_met_policy *p = mr->npol ? mr->pol[mr->npol - 1] : NULL;

	if (!p)
		return;
	fprintf(f, "  idle while waiting %.1f GPU-h   goodput %.1f GPU-h", p->idle_while_waiting_gpu_h,
		p->goodput_gpu_h);
	if (p->fairness_jain >= 0)
		fprintf(f, "   fairness (Jain) %.3f, max deviation %.2f (%s)", p->fairness_jain,
			p->fairness_max_dev,
			p->fairness_max_dev_queue >= 0 ? p->q[p->fairness_max_dev_queue].name : "-");
	fprintf(f, "\n");
}

/* ---- JSON -------------------------------------------------------------------- */

static json_t *jreal(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *float_array(const float *v, int n, double scale)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_real(round((double)v[i] * scale * 1e4) / 1e4));
	return a;
}

/* CDF of time to start: the 0th, 1st, ..., 100th percentile per bucket. */
static json_t *cdf_json(const struct fw_met_policy *p)
{
	json_t *o = json_object();

	for (int b = 0; b < FW_SIM_NBUCKETS; b++) {
		json_t *a = json_array();
		for (int k = 0; k <= 100 && p->ntts[b]; k++)
			json_array_append_new(a, json_integer(k ? fw_met_pct(p->tts[b], p->ntts[b], k)
								: p->tts[b][0]));
		json_object_set_new(o, fw_sim_bucket_name(b), a);
	}
	return o;
}

static json_t *series_json(const struct fw_met_policy *p)
{
	json_t *s = json_object();

	json_object_set_new(s, "t0S", json_integer(p->t0));
	json_object_set_new(s, "binS", json_real(p->nbins ? (double)(p->t1 - p->t0) / p->nbins : 0));
	json_object_set_new(s, "occupancy", float_array(p->occupancy_series, p->nbins, 1));
	json_object_set_new(s, "timeToStartPercentilesS", cdf_json(p));
	return s;
}

static void queue_json(const struct fw_met_queue *q, json_t *o)
{
	json_object_set_new(o, "gpuH", json_real(q->gpu_h));
	json_object_set_new(o, "occupancy", json_real(q->occupancy));
	json_object_set_new(o, "idleWhileWaitingGpuH", json_real(q->idle_while_waiting_gpu_h));
	json_object_set_new(o, "evictions", json_integer(q->evictions));
	json_object_set_new(o, "lostGpuH", json_real(q->lost_gpu_h));
	json_object_set_new(o, "fairGpusMean", json_real(q->fair_gpus_mean));
	json_object_set_new(o, "allocGpusMean", json_real(q->alloc_gpus_mean));
	json_object_set_new(o, "shareRatioMean", jreal(q->share_ratio_mean));
}

static json_t *est_json(const struct fw_met_est *e)
{
	json_t *o = json_object(), *b = json_object();

	json_object_set_new(o, "jobs", json_integer(e->n));
	json_object_set_new(o, "absErrP50S", e->n ? json_integer(e->err_p50_s) : json_null());
	json_object_set_new(b, "jobs", json_integer(e->big_n));
	json_object_set_new(b, "absErrP50S", e->big_n ? json_integer(e->big_err_p50_s) : json_null());
	json_object_set_new(b, "absErrOverWaitP50", jreal(e->big_ratio_p50));
	json_object_set_new(o, "multiNodeWaited1h", b);
	return o;
}

static void policy_json(const struct fw_met_policy *p, json_t *o)
{
	json_t *bq = json_object_get(o, "byQueue");

	json_object_set_new(o, "evictedWaiting", json_integer(p->evicted_waiting));
	json_object_set_new(o, "lostGpuH", json_real(p->lost_gpu_h));
	json_object_set_new(o, "evictionsPerJobMean", json_real(p->evictions_per_job_mean));
	json_object_set_new(o, "evictionsPerJobMax", json_integer(p->evictions_per_job_max));
	json_object_set_new(o, "startEstimates", est_json(&p->est));

	json_object_set_new(o, "windowS", json_pack("[I,I]", (json_int_t)p->t0, (json_int_t)p->t1));
	json_object_set_new(o, "capacityGpuH", json_real(p->capacity_gpu_h));
	json_object_set_new(o, "usedGpuH", json_real(p->used_gpu_h));
	json_object_set_new(o, "goodputGpuH", json_real(p->goodput_gpu_h));
	json_object_set_new(o, "idleWhileWaitingGpuH", json_real(p->idle_while_waiting_gpu_h));
	json_object_set_new(o, "fairnessJain", jreal(p->fairness_jain));
	json_t *jw = json_object();
	for (int w = 0; w < FW_MET_NWIN; w++)
		json_object_set_new(jw, fw_met_jain_window_name[w], jreal(p->fairness_jain_win[w]));
	json_object_set_new(o, "fairnessJainWindows", jw);
	json_object_set_new(o, "fairnessMaxDev", jreal(p->fairness_max_dev));
	json_object_set_new(o, "fairnessMaxDevQueue", p->fairness_max_dev_queue < 0 ? json_null()
				: json_string(p->q[p->fairness_max_dev_queue].name));
	for (int q = 0; q < p->nq; q++) {
		json_t *qo = bq ? json_object_get(bq, p->q[q].name) : NULL;
		if (!qo && bq)
			json_object_set_new(bq, p->q[q].name, qo = json_object());
		if (qo)
			queue_json(&p->q[q], qo);
	}
	json_object_set_new(o, "series", series_json(p));
}

/* ---- CSV ----------------------------------------------------------------------- */

static const char csv_header[] =
	"policy,scope,name,jobs,started,tts_p50_s,tts_p95_s,tts_p99_s,jct_mean_s,jct_p95_s,"
	"gpu_h,occupancy,idle_while_waiting_gpu_h,goodput_gpu_h,makespan_s,fairness_jain,"
	"fairness_max_dev,decisions,never_started,deserved_gpus,fair_gpus_mean,alloc_gpus_mean,"
	"share_ratio_mean,lost_gpu_h,evictions_per_job_mean,evictions_per_job_max,"
	"est_jobs,est_abs_err_p50_s,est_big_jobs,est_big_abs_err_p50_s,est_big_err_over_wait_p50,"
	"timed_out_jobs,timed_out_gpu_h,timed_out_cut_gpu_h,max_runtime_s,gpu_hour_budget,over_budget_jobs\n";

enum { X_OCC, X_IDLE, X_GOOD, X_MAKESPAN, X_JAIN, X_DEV, X_DEC, X_NEVER, X_DES, X_FAIR,
       X_ALLOC, X_RATIO, X_LOST, X_EVMEAN, X_EVMAX, X_EST_N, X_EST_ERR, X_BIG_N, X_BIG_ERR,
       X_BIG_RATIO, X_TO_N, X_TO_GPU, X_TO_CUT, X_MAXRT, X_BUDGET, X_HELD, X_N };

void fw_met_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

const char fw_met_shares_header[] = "policy,t,until,queue,deserved_gpus,fair_gpus,alloc_gpus\n";

/* A plan holds until the next one, the last until hi (the metrics' window
 * end), and none past hi: a replay goes on planning for jobs that never
 * start after its window ends, and those plans (zero length once cut at
 * hi) are not written. */
int fw_met_write_shares(FILE *f, const struct fw_met_rec *rec, const char *policy, int64_t hi)
{
	for (size_t i = 0; i < rec->n; i++) {
		int64_t until = i + 1 < rec->n && rec->t[i + 1] < hi ? rec->t[i + 1] : hi;
		if (until <= rec->t[i])
			continue;
		for (int q = 0; q < rec->nq; q++) {
			if (!rec->leaf[q])
				continue;
			fw_met_csv_str(f, policy);
			fprintf(f, ",%lld,%lld,", (long long)rec->t[i], (long long)until);
			fw_met_csv_str(f, rec->qname[q]);
			fprintf(f, ",%.10g,%.10g,%.10g\n", rec->deserved[q],
				(double)rec->fair[i * (size_t)rec->nq + (size_t)q],
				(double)rec->alloc[i * (size_t)rec->nq + (size_t)q]);
		}
	}
	return ferror(f) ? FW_EIO : FW_OK;
}

static void csv_num(FILE *f, double v)
{
	if (v >= 0)
		fprintf(f, ",%.10g", v);
	else
		fputs(",", f);
}

static void csv_row(FILE *f, const char *pol, const char *scope, const char *name,
		    const struct fw_sim_stats *st, const double *x)
{
	fw_met_csv_str(f, pol);
	fprintf(f, ",%s,", scope);
	fw_met_csv_str(f, name);
	fprintf(f, ",%lld,%lld", (long long)st->jobs, (long long)st->started);
	csv_num(f, (double)st->tts_p50);
	csv_num(f, (double)st->tts_p95);
	csv_num(f, (double)st->tts_p99);
	csv_num(f, st->jct_mean);
	csv_num(f, (double)st->jct_p95);
	csv_num(f, st->gpu_s / 3600.0);
	for (int i = 0; i < X_N; i++)
		csv_num(f, x[i]);
	fputc('\n', f);
}

static void csv_policy(FILE *f, const struct fw_met_policy *p)
{
	double x[X_N];

	for (int i = 0; i < X_N; i++)
		x[i] = -1;
	x[X_OCC] = p->base.occupancy;
	x[X_IDLE] = p->idle_while_waiting_gpu_h;
	x[X_GOOD] = p->goodput_gpu_h;
	x[X_MAKESPAN] = (double)p->base.makespan_s;
	x[X_JAIN] = p->fairness_jain;
	x[X_DEV] = p->fairness_max_dev;
	x[X_DEC] = (double)p->decisions;
	x[X_NEVER] = (double)p->never_started;
	x[X_LOST] = p->lost_gpu_h;
	x[X_EVMEAN] = p->evictions_per_job_mean;
	x[X_EVMAX] = p->evictions_per_job_max;
	x[X_EST_N] = (double)p->est.n;
	x[X_EST_ERR] = (double)p->est.err_p50_s;
	x[X_BIG_N] = (double)p->est.big_n;
	x[X_BIG_ERR] = (double)p->est.big_err_p50_s;
	x[X_BIG_RATIO] = p->est.big_ratio_p50;
	x[X_TO_N] = (double)p->timed_out;
	x[X_TO_GPU] = p->timed_out_gpu_h;
	x[X_TO_CUT] = p->timed_out_cut_gpu_h;
	x[X_MAXRT] = p->by_config ? -1 : (double)p->max_runtime_s; /* per queue under --config */
	x[X_BUDGET] = p->by_config ? -1 : p->gpu_hour_budget;
	x[X_HELD] = (double)p->over_budget_jobs;
	csv_row(f, p->name, "total", "all", &p->base.bucket[FW_SIM_BALL], x);
	for (int b = 0; b < FW_SIM_NBUCKETS; b++) {
		const struct fw_sim_stats *st = &p->base.bucket[b];
		for (int i = 0; i < X_N; i++)
			x[i] = -1;
		x[X_GOOD] = st->gpu_s / 3600.0;
		x[X_DEC] = (double)st->started;
		x[X_NEVER] = (double)(st->jobs - st->started);
		if (b != FW_SIM_BALL)
			csv_row(f, p->name, "bucket", fw_sim_bucket_name(b), st, x);
	}
}

static void csv_queues(FILE *f, const struct fw_met_policy *p)
{
	static const struct fw_sim_stats none = { 0, 0, -1, -1, -1, -1, -1, 0 };
	double x[X_N];

	for (int q = 0; q < p->nq; q++) {
		const struct fw_met_queue *Q = &p->q[q];
		const struct fw_sim_stats *st = q < p->base.nqueues ? &p->base.queue[q] : &none;
		for (int i = 0; i < X_N; i++)
			x[i] = -1;
		x[X_OCC] = Q->occupancy;
		x[X_IDLE] = Q->idle_while_waiting_gpu_h;
		x[X_GOOD] = Q->gpu_h;
		x[X_DEC] = (double)st->started;
		x[X_NEVER] = (double)(st->jobs - st->started);
		x[X_DES] = Q->deserved_gpus;
		x[X_FAIR] = Q->fair_gpus_mean;
		x[X_ALLOC] = Q->alloc_gpus_mean;
		x[X_RATIO] = Q->share_ratio_mean;
		x[X_LOST] = Q->lost_gpu_h;
		x[X_MAXRT] = Q->max_runtime_s > 0 ? (double)Q->max_runtime_s : -1;
		x[X_BUDGET] = Q->gpu_hour_budget > 0 ? Q->gpu_hour_budget : -1;
		csv_row(f, p->name, "queue", Q->name, st, x);
	}
}

int fw_met_write_csv(const struct fw_met_run *mr, FILE *f)
{
	fputs(csv_header, f);
	for (int i = 0; i < mr->npol; i++) {
		csv_policy(f, mr->pol[i]);
		csv_queues(f, mr->pol[i]);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- the one-screen comparison ------------------------------------------------ */

/* A row's duration unit, so that the row reads in one unit: the unit
 * of its smallest value above 0 (days from 1 d, hours from 1 h, minutes
 * from 1 min, else seconds), so that the small values keep their
 * digits, but at most one step below the unit its largest value would
 * read in alone (days from 2 d, hours from 2 h, minutes from 2 min), so
 * that none runs long: "2.6 d" beside "118 min" gives "62.4 h" and
 * "2.0 h"; "42.3 h" beside "55 s" gives "2538 min" and "1 min"; "27.7 h"
 * beside "20 s" gives "1662 min" and "<1 min" (human_s). */
struct time_unit {
	double div;
	const char *fmt;
	double least;      /* at or under it (above 0) the format would show 0 */
	const char *under; /* what a value above 0 but under it reads as */
};

static const struct time_unit units[] = {
	{ 1, "%.0f s", 0.5, "<1 s" },
	{ 60, "%.0f min", 0.5, "<1 min" },
	{ 3600, "%.1f h", 0.05, "<0.1 h" },
	{ 86400, "%.1f d", 0.05, "<0.1 d" },
};

/* The largest unit u with s >= at_least * u. */
static int unit_rank(double s, double at_least)
{
	int k = 3;

	while (k > 0 && s < at_least * units[k].div)
		k--;
	return k;
}

static struct time_unit unit_for(double min_s, double max_s)
{
	int lo = unit_rank(min_s > 0 ? min_s : max_s, 1);
	int hi = unit_rank(max_s, 2) - 1;

	return units[lo > hi ? lo : hi];
}

/* "2.6 d", "3.5 h", "118 min", "45 s" in the row's unit; "-" for none;
 * a value above 0 that the unit would round to 0 reads "<1 min" (20 s
 * beside 1662 min), never "0 min", which says it was none. */
static void human_s(double s, struct time_unit u, char *buf, size_t n)
{
	if (s < 0)
		snprintf(buf, n, "-");
	else if (s > 0 && s / u.div <= u.least)
		snprintf(buf, n, "%s", u.under);
	else
		snprintf(buf, n, u.fmt, s / u.div);
}

struct cmp_row {
	const char *label;
	int dir;      /* +1 higher is better, -1 lower is better, 0 no winner */
	int is_time;  /* 1: seconds shown as a duration; 2: a count */
	double (*get)(const struct fw_met_policy *p);
	bool started; /* measured over the jobs a policy started, or up to
		       * the end of its replay, which stops at its last
		       * arrival while jobs still wait: see fw_met_may_win */
};

static double g_occ(const struct fw_met_policy *p) { return 100.0 * p->base.occupancy; }
static double g_idle(const struct fw_met_policy *p) { return p->idle_while_waiting_gpu_h; }
static double g_w50(const struct fw_met_policy *p) { return (double)p->base.bucket[FW_SIM_BALL].tts_p50; }
static double g_w95(const struct fw_met_policy *p) { return (double)p->base.bucket[FW_SIM_BALL].tts_p95; }
static double g_w95_1(const struct fw_met_policy *p) { return (double)p->base.bucket[FW_SIM_B1].tts_p95; }
static double g_w95_9(const struct fw_met_policy *p) { return (double)p->base.bucket[FW_SIM_B9].tts_p95; }
static double g_w95_33(const struct fw_met_policy *p) { return (double)p->base.bucket[FW_SIM_B33].tts_p95; }
static double g_jct(const struct fw_met_policy *p) { return p->base.bucket[FW_SIM_BALL].jct_mean; }
static double g_jct95(const struct fw_met_policy *p) { return (double)p->base.bucket[FW_SIM_BALL].jct_p95; }
static double g_mk(const struct fw_met_policy *p) { return (double)p->base.makespan_s; }
static double g_jain(const struct fw_met_policy *p) { return p->fairness_jain; }
static double g_jain1d(const struct fw_met_policy *p) { return p->fairness_jain_win[2]; }
static double g_never(const struct fw_met_policy *p) { return (double)p->never_started; }
static double g_lost(const struct fw_met_policy *p) { return p->lost_gpu_h; }
static double g_evmean(const struct fw_met_policy *p) { return p->evictions_per_job_mean; }
static double g_evmax(const struct fw_met_policy *p) { return p->evictions_per_job_max; }
static double g_esterr(const struct fw_met_policy *p) { return (double)p->est.err_p50_s; }
static double g_bigerr(const struct fw_met_policy *p) { return (double)p->est.big_err_p50_s; }
static double g_bigratio(const struct fw_met_policy *p)
{
	return p->est.big_ratio_p50 < 0 ? -1 : 100.0 * p->est.big_ratio_p50;
}

static const struct cmp_row cmp_rows[] = {
	{ "occupancy (%)", +1, 0, g_occ, true },
	{ "GPU-h idle while jobs wait", -1, 0, g_idle, true },
	{ "time to start p50", -1, 1, g_w50, true },
	{ "time to start p95", -1, 1, g_w95, true },
	{ "  p95, 1-GPU jobs", -1, 1, g_w95_1, true },
	{ "  p95, 9+ GPUs", -1, 1, g_w95_9, true }, /* fw_met_b9_label */
	{ "  p95, 33+ GPUs", -1, 1, g_w95_33, true },
	{ "JCT mean", -1, 1, g_jct, true },
	{ "JCT p95", -1, 1, g_jct95, true },
	{ "makespan", -1, 1, g_mk, true },
	{ "fairness (Jain, 1 = fair)", +1, 0, g_jain, false },
	{ "  over 1-day windows", +1, 0, g_jain1d, false },
	{ "jobs never started", -1, 2, g_never, false },
	{ "GPU-h lost to evictions", -1, 0, g_lost, true },
	{ "evictions per job, mean", -1, 0, g_evmean, true },
	{ "evictions per job, max", -1, 2, g_evmax, true },
	{ "start estimate |err| p50", -1, 1, g_esterr, true },
	{ "  9+ GPUs waited 1h+, |err| p50", -1, 1, g_bigerr, true },
	{ "  same, % of their wait (p50)", -1, 0, g_bigratio, true },
};

bool fw_met_may_win(const struct fw_met_run *mr, int i)
{
	const struct fw_met_policy *p = mr->pol[i];

	for (int k = 0; k < mr->npol; k++)
		if (mr->pol[k]->never_started + mr->pol[k]->evicted_waiting <
		    p->never_started + p->evicted_waiting)
			return false;
	return true;
}

static int cmp_best(const struct fw_met_run *mr, const struct cmp_row *r)
{
	int best = -1;

	for (int i = 0; i < mr->npol && r->dir; i++) {
		double v = r->get(mr->pol[i]);
		if (v < 0 || (r->started && !fw_met_may_win(mr, i)))
			continue;
		if (best < 0 || (r->dir > 0 ? v > r->get(mr->pol[best]) + 1e-9 : v < r->get(mr->pol[best]) - 1e-9))
			best = i;
	}
	for (int i = 0; best >= 0 && i < mr->npol; i++) /* a winner only if someone lost */
		if (fabs(r->get(mr->pol[i]) - r->get(mr->pol[best])) > 1e-9)
			return best;
	return -1;
}

/* The largest value of a row over the policies (-1 when none has one),
 * and into *min its smallest above 0 (0 when none is). */
static double row_range(const struct fw_met_run *mr, const struct cmp_row *r, double *min)
{
	double max = -1;

	*min = 0;
	for (int i = 0; i < mr->npol; i++) {
		double v = r->get(mr->pol[i]);
		max = fmax(max, v);
		*min = v > 0 && (*min == 0 || v < *min) ? v : *min;
	}
	return max;
}

/* One cell of the comparison, in the row's unit and precision: a row
 * whose every value is under 10 shows three decimals, else one, so that
 * "9.624" never sits beside "47.9". */
static void cmp_cell(const struct cmp_row *r, double v, double min, double max, char *cell, size_t n)
{
	if (v < 0 && (r->get == g_bigratio || r->get == g_bigerr || r->get == g_esterr))
		snprintf(cell, n, "n/a");
	else if (r->is_time == 1)
		human_s(v, unit_for(min, max), cell, n);
	else if (r->is_time == 2)
		snprintf(cell, n, "%.0f", v);
	else if (v < 0)
		snprintf(cell, n, "-");
	else
		snprintf(cell, n, r->dir && fabs(max) < 10 ? "%.3f" : "%.1f", v);
}

void fw_met_print_compare(const struct fw_met_run *mr, FILE *f)
{
	char cell[32];

	int w[FW_MET_POLICIES];

	fprintf(f, "\n%-30s", "summary (* = best)");
	for (int i = 0; i < mr->npol; i++) { /* a column as wide as its policy's name */
		w[i] = strlen(mr->pol[i]->name) > 12 ? (int)strlen(mr->pol[i]->name) : 12;
		fprintf(f, " %*s", w[i], mr->pol[i]->name);
	}
	fprintf(f, "\n");
	for (size_t k = 0; k < sizeof cmp_rows / sizeof cmp_rows[0]; k++) {
		const struct cmp_row *r = &cmp_rows[k];
		int best = cmp_best(mr, r);
		double min, max = row_range(mr, r, &min);
		if (r->get == g_w95_9) /* "multi-node" only where 9 GPUs span nodes; 30 wide as the rest */
			fprintf(f, "  p95, %-23s", fw_met_b9_label(mr));
		else
			fprintf(f, "%-30s", r->label);
		for (int i = 0; i < mr->npol; i++) {
			double v = r->get(mr->pol[i]);
			/* every policy tied with the best gets its star, as in the report */
			bool star = best >= 0 && v >= 0 && (!r->started || fw_met_may_win(mr, i)) &&
				    fabs(v - r->get(mr->pol[best])) <= 1e-9;
			cmp_cell(r, v, min, max, cell, sizeof cell);
			fprintf(f, " %*s%c", w[i] - 1, cell, star ? '*' : ' ');
		}
		fprintf(f, "\n");
	}
}
