/*
 * fairshare.c — hierarchical fair share by water-filling, with decayed
 * usage.  The design, the derivation of the decayed-usage formula, a
 * worked example and the comparison with KAI and Slurm are the essay at
 * the top of include/fairway/fairshare.h.
 */
#include "fairway/fairshare.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define FS_R FW_RES_COUNT
#define FS_EPS 1e-9     /* relative: below this fraction of A is zero */
#define FS_EXP_MAX 4.0  /* clamp of the usage exponent */

/* Children lists in CSR form.  Slot 0 is the virtual root (its children are
 * the top-level queues), slot q + 1 is queue q. */
struct fs_tree {
	int32_t *first; /* children of slot p: kids[first[p] .. first[p+1]) */
	int32_t *kids;  /* queue indices, in index order within a slot */
	int32_t *order; /* breadth-first: every parent before its children */
	int32_t maxfan; /* most children of any slot */
};

/* One child during the split of its parent's share. */
struct fs_kid {
	int32_t q;
	double got[FS_R]; /* allocation so far */
	double rem[FS_R]; /* demand not yet met */
	double w;         /* effective weight */
	double f;         /* phase 2: fraction of rem granted */
	double delta;     /* phase 2: dominant share of rem against A */
	double speed;     /* phase 2: growth of the dominant share */
	int32_t bound;    /* the resource whose end stopped its growth, or -1 */
	bool free[FS_R];  /* CPU or memory it sets no quota for: not divided
			   * with its siblings' by DRF (fs_split_free) */
	bool active;
};

struct fs_ctx {
	const struct fw_snapshot *s;
	struct fw_share *out;
	struct fs_tree t;
	struct fs_kid *kid; /* the current parent's children */
	int32_t *ord;       /* kid positions, priority tiers first */
	int nk;
	double a[FS_R];     /* the parent's share being split */
	double left[FS_R];  /* what of a is still unassigned */
};

double fw_usage_decay(double usage, fw_time at, fw_time now, double h)
{
	if (h <= 0 || now <= at)
		return usage;
	return usage * exp2(-(double)(now - at) / h);
}

double fw_usage_held(double g, fw_time from, fw_time to, fw_time now, double h)
{
	if (!(g > 0) || to <= from)
		return 0;
	if (!(h > 0))
		return g * (double)(to - from);
	/* 2^-(now-to)/h - 2^-(now-from)/h, without the difference of two
	 * numbers near 1 (h is days, a stretch seconds) */
	return g * h / 0.69314718055994530942 * exp2(-(double)(now - to) / h) *
	       -expm1(-(double)(to - from) * 0.69314718055994530942 / h);
}

static double fs_tol(const struct fs_ctx *c, int r)
{
	return FS_EPS * c->a[r];
}

/* Does k still want r in the DRF split?  A resource free for k is split
 * apart (fs_split_free), so it neither blocks k nor weighs. */
static bool fs_needs(const struct fs_ctx *c, const struct fs_kid *k, int r)
{
	return !k->free[r] && k->rem[r] > fs_tol(c, r);
}

/* ---- the tree --------------------------------------------------------- */

static void fs_push_kids(struct fs_tree *t, int32_t slot, int32_t *tail)
{
	for (int32_t i = t->first[slot]; i < t->first[slot + 1]; i++)
		t->order[(*tail)++] = t->kids[i];
}

static int fs_tree_build(const struct fw_snapshot *s, struct fw_arena *a,
			 struct fs_tree *t)
{
	int32_t n = s->nqueues, head = 0, tail = 0;

	t->first = FW_ARENA_NEW(a, int32_t, (size_t)n + 3);
	t->kids = FW_ARENA_NEW(a, int32_t, (size_t)n + 1);
	t->order = FW_ARENA_NEW(a, int32_t, (size_t)n + 1);
	if (!t->first || !t->kids || !t->order)
		return FW_ENOMEM;
	/* count slot p + 1's children in first[p + 3]; prefix sums; then
	 * filling through first[p + 2]++ leaves first[slot] = its start */
	for (int32_t q = 0; q < n; q++) {
		int32_t p = s->queues[q].parent;
		if (p < -1 || p >= n)
			return FW_EINVAL;
		t->first[p + 3]++;
	}
	t->maxfan = 0;
	for (int32_t i = 2; i < n + 3; i++) {
		if (t->first[i] > t->maxfan)
			t->maxfan = t->first[i];
		t->first[i] += t->first[i - 1];
	}
	for (int32_t q = 0; q < n; q++)
		t->kids[t->first[s->queues[q].parent + 2]++] = q;
	/* breadth-first from the virtual root; queues in a cycle are unreached */
	fs_push_kids(t, 0, &tail);
	while (head < tail)
		fs_push_kids(t, t->order[head++] + 1, &tail);
	return tail == n ? FW_OK : FW_ELOOP;
}

/* Bottom-up: subtree demand capped by limits, subtree decayed usage. */
static void fs_rollup(struct fs_ctx *c, const struct fw_res *demand)
{
	const struct fw_snapshot *s = c->s;

	for (int32_t i = s->nqueues - 1; i >= 0; i--) {
		int32_t q = c->t.order[i];
		const struct fw_queue *qq = &s->queues[q];
		struct fw_share *o = &c->out[q];
		double u = fw_usage_decay(qq->usage, qq->usage_at, s->now,
					  s->config.usage_half_life_s);

		o->usage += u > 0 ? u : 0;
		for (int r = 0; r < FS_R; r++) {
			double d = o->demand[r];
			int64_t lim = qq->limit.v[r];
			if (demand[q].v[r] > 0)
				d += (double)demand[q].v[r];
			if (lim >= 0 && d > (double)lim)
				d = (double)lim;
			o->demand[r] = d;
			if (qq->parent >= 0)
				c->out[qq->parent].demand[r] += d;
		}
		if (qq->parent >= 0)
			c->out[qq->parent].usage += o->usage;
	}
}

/* ---- phase 1: deserved ------------------------------------------------ */

static double fs_deserved(const struct fs_ctx *c, const struct fs_kid *k, int r)
{
	int64_t d = c->s->queues[k->q].deserved.v[r];
	return d > 0 ? (double)d : 0;
}

/* The children want more of r than a[r]: got[r] holds each one's want m;
 * lower it to min(m, t * deserved) with t such that the sum is a[r].  t only
 * grows as children whose whole want fits are fixed, so this ends in at most
 * nk rounds. */
static void fs_deserved_waterfill(struct fs_ctx *c, int r)
{
	bool moved = true;
	double t = 0;

	for (int i = 0; i < c->nk; i++)
		c->kid[i].active = c->kid[i].got[r] > 0;
	while (moved) {
		double fixed = 0, dsum = 0;
		for (int i = 0; i < c->nk; i++) {
			if (c->kid[i].active)
				dsum += fs_deserved(c, &c->kid[i], r);
			else
				fixed += c->kid[i].got[r];
		}
		if (dsum <= 0)
			return;
		t = (c->a[r] - fixed) / dsum;
		moved = false;
		for (int i = 0; i < c->nk; i++) {
			struct fs_kid *k = &c->kid[i];
			if (k->active && k->got[r] <= t * fs_deserved(c, k, r)) {
				k->active = false;
				moved = true;
			}
		}
	}
	for (int i = 0; i < c->nk; i++)
		if (c->kid[i].active)
			c->kid[i].got[r] = t * fs_deserved(c, &c->kid[i], r);
}

static void fs_phase_deserved(struct fs_ctx *c)
{
	for (int r = 0; r < FS_R; r++) {
		double want = 0, given = 0;
		for (int i = 0; i < c->nk; i++) {
			struct fs_kid *k = &c->kid[i];
			k->got[r] = fmin(k->rem[r], fs_deserved(c, k, r));
			want += k->got[r];
		}
		if (want > c->a[r])
			fs_deserved_waterfill(c, r);
		for (int i = 0; i < c->nk; i++) {
			c->kid[i].rem[r] -= c->kid[i].got[r];
			given += c->kid[i].got[r];
			c->out[c->kid[i].q].guaranteed[r] = c->kid[i].got[r];
		}
		c->left[r] = c->a[r] > given ? c->a[r] - given : 0;
	}
}

/* ---- effective weights ------------------------------------------------ */

/* over_quota_weight of the dominant resource of k's remaining demand. */
static double fs_base_weight(const struct fs_ctx *c, const struct fs_kid *k)
{
	int dom = FW_RES_GPU;
	double best = 0, w;

	for (int r = 0; r < FS_R; r++) {
		if (!k->free[r] && c->a[r] > 0 && k->rem[r] / c->a[r] > best) {
			best = k->rem[r] / c->a[r];
			dom = r;
		}
	}
	w = c->s->queues[k->q].over_quota_weight[dom];
	return w > 0 ? w : 0; /* also maps NaN to 0 */
}

static void fs_phase_weights(struct fs_ctx *c)
{
	double wsum = 0, usum = 0, beta = c->s->config.usage_weight;

	for (int i = 0; i < c->nk; i++) {
		c->kid[i].w = fs_base_weight(c, &c->kid[i]);
		c->out[c->kid[i].q].weight = c->kid[i].w;
		wsum += c->kid[i].w;
		usum += c->out[c->kid[i].q].usage;
	}
	for (int i = 0; i < c->nk; i++) {
		struct fs_kid *k = &c->kid[i];
		double x = 0;
		if (beta != 0 && usum > 0 && k->w > 0) {
			double u = c->out[k->q].usage / usum, e = k->w / wsum;
			x = -beta * (u / e - 1);
			if (isnan(x) || x < -FS_EXP_MAX)
				x = -FS_EXP_MAX;
			else if (x > FS_EXP_MAX)
				x = FS_EXP_MAX;
		}
		k->w *= exp2(x);
		c->out[k->q].weight_eff = k->w;
	}
}

/* ---- phase 2: over quota, DRF progressive filling per tier ------------- */

static int32_t fs_prio(const struct fs_ctx *c, int32_t pos)
{
	return c->s->queues[c->kid[pos].q].priority;
}

/* ord = kid positions by priority, highest first; stable insertion sort, so
 * index order within a tier (and O(k) when there is one tier). */
static void fs_sort_tiers(struct fs_ctx *c)
{
	for (int i = 0; i < c->nk; i++) {
		int32_t x = i;
		int j = i;
		for (; j > 0 && fs_prio(c, c->ord[j - 1]) < fs_prio(c, x); j--)
			c->ord[j] = c->ord[j - 1];
		c->ord[j] = x;
	}
}

/* The first resource k still wants that is exhausted, or -1. */
static int fs_blocker(const struct fs_ctx *c, const struct fs_kid *k)
{
	for (int r = 0; r < FS_R; r++)
		if (fs_needs(c, k, r) && c->left[r] <= fs_tol(c, r))
			return r;
	return -1;
}

/* Dominant share of k's remaining demand against a; 0 when k needs nothing
 * or needs a resource that is already exhausted. */
static double fs_delta(const struct fs_ctx *c, const struct fs_kid *k)
{
	double d = 0;

	if (fs_blocker(c, k) >= 0)
		return 0;
	for (int r = 0; r < FS_R; r++)
		if (fs_needs(c, k, r))
			d = fmax(d, k->rem[r] / c->a[r]);
	return d;
}

/* Activate the tier's children [lo, hi) of this pass: weighted ones, or in
 * the second pass those of weight 0 at equal speed.  Returns how many. */
static int fs_fill_start(struct fs_ctx *c, int lo, int hi, bool zero_pass)
{
	int n = 0;

	for (int i = lo; i < hi; i++) {
		struct fs_kid *k = &c->kid[c->ord[i]];
		k->f = 0;
		k->active = false;
		if ((k->w > 0) == zero_pass)
			continue;
		k->speed = zero_pass ? 1.0 : k->w;
		k->delta = fs_delta(c, k);
		if (k->delta == 0 && k->bound < 0)
			k->bound = fs_blocker(c, k); /* blocked from the start */
		if (k->delta > 0 && k->speed > 0) {
			k->active = true;
			n++;
		}
	}
	return n;
}

/* Time to the next event: a child meets its demand (*ev_kid) or a resource
 * runs out (*ev_res).  rate[r] = consumption of r per unit of time. */
static double fs_fill_next(struct fs_ctx *c, int lo, int hi, double *rate,
			   int *ev_kid, int *ev_res)
{
	double dt = INFINITY;

	*ev_kid = *ev_res = -1;
	memset(rate, 0, sizeof(double) * FS_R);
	for (int i = lo; i < hi; i++) {
		struct fs_kid *k = &c->kid[c->ord[i]];
		double df;
		if (!k->active)
			continue;
		df = k->speed / k->delta; /* d(fraction)/dt */
		if ((1 - k->f) / df < dt) {
			dt = (1 - k->f) / df;
			*ev_kid = i;
		}
		for (int r = 0; r < FS_R; r++)
			if (fs_needs(c, k, r))
				rate[r] += df * k->rem[r];
	}
	for (int r = 0; r < FS_R; r++) {
		if (rate[r] > 0 && c->left[r] / rate[r] < dt) {
			dt = c->left[r] / rate[r];
			*ev_kid = -1;
			*ev_res = r;
		}
	}
	return dt;
}

/* Advance by dt, then retire the children that are done or blocked.
 * The event itself always retires someone, so the fill terminates. */
static int fs_fill_step(struct fs_ctx *c, int lo, int hi, const double *rate,
			double dt, int ev_kid, int ev_res)
{
	int retired = 0;

	for (int r = 0; r < FS_R; r++)
		c->left[r] = fmax(0, c->left[r] - rate[r] * dt);
	if (ev_res >= 0)
		c->left[ev_res] = 0;
	for (int i = lo; i < hi; i++) {
		struct fs_kid *k = &c->kid[c->ord[i]];
		if (!k->active)
			continue;
		k->f = fmin(1, k->f + dt * k->speed / k->delta);
		if (i == ev_kid || k->f >= 1 - FS_EPS)
			k->f = 1;
		if (k->f == 1 || fs_delta(c, k) == 0) {
			if (k->f < 1)
				k->bound = fs_blocker(c, k);
			k->active = false;
			retired++;
		}
	}
	return retired;
}

static void fs_fill(struct fs_ctx *c, int lo, int hi, bool zero_pass)
{
	int n = fs_fill_start(c, lo, hi, zero_pass);

	while (n > 0) {
		double rate[FS_R];
		int ev_kid, ev_res;
		double dt = fs_fill_next(c, lo, hi, rate, &ev_kid, &ev_res);
		n -= fs_fill_step(c, lo, hi, rate, dt, ev_kid, ev_res);
	}
	for (int i = lo; i < hi; i++) { /* commit */
		struct fs_kid *k = &c->kid[c->ord[i]];
		for (int r = 0; r < FS_R && k->f > 0; r++) {
			if (k->free[r])
				continue;
			double x = k->f == 1 ? k->rem[r] : k->rem[r] * k->f;
			k->got[r] += x;
			k->rem[r] -= x;
		}
		k->f = 0;
	}
}

static void fs_phase_over_quota(struct fs_ctx *c)
{
	fs_sort_tiers(c);
	for (int lo = 0, hi; lo < c->nk; lo = hi) {
		int32_t prio = fs_prio(c, c->ord[lo]);
		for (hi = lo; hi < c->nk && fs_prio(c, c->ord[hi]) == prio; hi++)
			;
		fs_fill(c, lo, hi, false);
		fs_fill(c, lo, hi, true);
	}
}

/* ---- free resources ---------------------------------------------------- */

/* CPU and memory a child sets no quota for are free for it: the DRF
 * split leaves them out of its growth (fs_needs, fs_base_weight), so its
 * siblings' quotas never stop its growth in GPUs.  Its fair share of one
 * is its demand, from what the quota holders leave (phase 1 and 2),
 * scaled down in proportion where the free children ask more.  GPUs are
 * always split. */
static void fs_mark_free(struct fs_ctx *c, struct fs_kid *k)
{
	for (int r = 0; r < FS_R; r++)
		k->free[r] = r != FW_RES_GPU && fs_deserved(c, k, r) <= 0;
}

static void fs_split_free(struct fs_ctx *c)
{
	for (int r = 0; r < FS_R; r++) {
		double want = 0, scale = 1;
		for (int i = 0; i < c->nk; i++)
			if (c->kid[i].free[r])
				want += c->kid[i].rem[r];
		if (want > c->left[r])
			scale = c->left[r] / want;
		for (int i = 0; i < c->nk; i++) {
			struct fs_kid *k = &c->kid[i];
			if (!k->free[r])
				continue;
			k->got[r] += k->rem[r] * scale;
			k->rem[r] -= k->rem[r] * scale;
		}
		c->left[r] = fmax(0, c->left[r] - want * scale);
	}
}

/* ---- store, with the drift guards -------------------------------------- */

static void fs_store(struct fs_ctx *c)
{
	for (int r = 0; r < FS_R; r++) {
		double sum = 0, scale = 1;
		for (int i = 0; i < c->nk; i++) {
			struct fs_kid *k = &c->kid[i];
			double d = c->out[k->q].demand[r];
			double g = fmin(fmax(k->got[r], 0), d);
			if (g <= fs_tol(c, r))
				g = 0;
			else if (d - g <= fs_tol(c, r))
				g = d;
			k->got[r] = g;
			sum += g;
		}
		if (sum > c->a[r])
			scale = c->a[r] / sum;
		for (int i = 0; i < c->nk; i++) {
			struct fw_share *o = &c->out[c->kid[i].q];
			o->fair[r] = c->kid[i].got[r] * scale;
			o->guaranteed[r] = fmin(o->guaranteed[r] * scale, o->fair[r]);
		}
	}
	for (int i = 0; i < c->nk; i++)
		c->out[c->kid[i].q].limited_by = c->kid[i].bound;
}

/* Split share a of slot (0 = the cluster, q + 1 = queue q) among its
 * children. */
static void fs_split(struct fs_ctx *c, int32_t slot, const double *a)
{
	int32_t lo = c->t.first[slot];

	c->nk = c->t.first[slot + 1] - lo;
	if (c->nk == 0)
		return;
	for (int r = 0; r < FS_R; r++)
		c->a[r] = a[r] > 0 ? a[r] : 0;
	for (int i = 0; i < c->nk; i++) {
		struct fs_kid *k = &c->kid[i];
		memset(k, 0, sizeof *k);
		k->bound = -1;
		k->q = c->t.kids[lo + i];
		memcpy(k->rem, c->out[k->q].demand, sizeof k->rem);
		fs_mark_free(c, k);
	}
	fs_phase_deserved(c);
	fs_phase_weights(c);
	fs_phase_over_quota(c);
	fs_split_free(c);
	fs_store(c);
}

int fw_fairshare_compute(const struct fw_snapshot *s,
			 const struct fw_res *demand, struct fw_res capacity,
			 struct fw_arena *a, struct fw_share *out)
{
	struct fs_ctx c = { .s = s, .out = out };
	double cap[FS_R], share[FS_R];
	int rc;

	if (!s || !a || (s->nqueues > 0 && (!demand || !out)))
		return FW_EINVAL;
	if (s->nqueues == 0)
		return FW_OK;
	memset(out, 0, sizeof *out * (size_t)s->nqueues);
	if ((rc = fs_tree_build(s, a, &c.t)) != FW_OK)
		return rc;
	c.kid = FW_ARENA_NEW(a, struct fs_kid, (size_t)c.t.maxfan + 1);
	c.ord = FW_ARENA_NEW(a, int32_t, (size_t)c.t.maxfan + 1);
	if (!c.kid || !c.ord)
		return FW_ENOMEM;
	fs_rollup(&c, demand);
	for (int r = 0; r < FS_R; r++)
		cap[r] = (double)capacity.v[r];
	fs_split(&c, 0, cap);
	for (int32_t i = 0; i < s->nqueues; i++) {
		int32_t q = c.t.order[i];
		memcpy(share, out[q].fair, sizeof share);
		fs_split(&c, q + 1, share);
	}
	return FW_OK;
}
