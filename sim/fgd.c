/*
 * fgd.c — the FGD openb experiment (see fgd.h; the rules are
 * /work/shared/reading/fgd-experiment.md, cited below as §N, and docs/fgd.md).
 *
 * Two halves.  fw_fgd_world_build turns the parsed CSV rows into what every
 * run shares: name-ordered nodes and pods, normalised requests, model bit
 * ids, pod kinds and FGD's typical pods.  fw_fgd_run then does one run in
 * four steps that mirror §2: build the pod sequence (shuffle, tune), rank the
 * nodes, place the pods, and turn the events into the curve of §6.
 *
 * Hot spot.  Placing ~10,800 pods on 1,213 nodes means ~13 M (pod, node)
 * visits per run.  Feasibility is O(1) per visit (fw_node_fits keeps derived
 * counts), and for kind_pure scorers the score of (node, kind) is cached,
 * stamped with the node's change counter.  FGD's score costs two or more
 * fragmentation sums, so the cache is what makes a run take well under a
 * second instead of minutes.  The cache is laid out kind-major, so one
 * pod's scan over the nodes reads contiguous memory.
 *
 * RNG.  One seeded stream per run, drawn in the artifact's order: shuffle,
 * tuning samples, the node permutation, then Random's draws.  It is not Go's
 * math/rand, so runs are not bit-identical to the artifact's seeds; the
 * means over 10 seeds are what is compared (§2.5 explains the exact replay).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgd.h"

static int fail(struct fw_diag *d, int err, const char *file, int line,
		const char *field, const char *msg)
{
	if (d) {
		memset(d, 0, sizeof *d);
		snprintf(d->file, sizeof d->file, "%s", file);
		d->line = line;
		snprintf(d->field, sizeof d->field, "%s", field ? field : "");
		snprintf(d->msg, sizeof d->msg, "%s", msg);
	}
	return err;
}

/* ---- world: nodes -------------------------------------------------------- */

static int cmp_node_name(const void *a, const void *b)
{
	const struct fw_openb_node *x = *(const struct fw_openb_node *const *)a;
	const struct fw_openb_node *y = *(const struct fw_openb_node *const *)b;
	return strcmp(x->sn, y->sn);
}

/* Model name -> id, adding it if new; -1 when there are too many. */
static int intern_model(struct fw_fgd_world *w, const char *name)
{
	for (int m = 0; m < w->nmodels; m++)
		if (strcmp(w->models[m], name) == 0)
			return m;
	if (w->nmodels >= FW_MAX_MODELS - 1)
		return -1;
	w->models[w->nmodels] = name;
	return w->nmodels++;
}

/* Check and initialise the name-sorted nodes. */
static int init_nodes(struct fw_fgd_world *w, const struct fw_openb_nodes *l,
		      const struct fw_openb_node **by, struct fw_diag *d)
{
	for (size_t i = 0; i < l->n; i++) {
		int m = intern_model(w, by[i]->model);
		if (i > 0 && strcmp(by[i]->sn, by[i - 1]->sn) == 0)
			return fail(d, FW_EINVAL, l->file, by[i]->line, "sn",
				    "duplicate node name");
		if (m < 0)
			return fail(d, FW_EINVAL, l->file, by[i]->line,
				    "model", "more than 31 GPU models");
		fw_node_state_init(&w->nodes[i], by[i]->cpu_milli, by[i]->memory_mib,
			     by[i]->gpu, m, FW_FGD_MAX_PODS_PER_NODE);
		w->node_names[i] = by[i]->sn;
		w->total_gpus += by[i]->gpu;
	}
	w->nnodes = l->n;
	return FW_OK;
}

static int build_nodes(struct fw_fgd_world *w, const struct fw_openb_nodes *l,
		       struct fw_diag *d)
{
	const struct fw_openb_node **by = malloc((l->n + 1) * sizeof *by);
	int rc;
	w->nodes = calloc(l->n + 1, sizeof *w->nodes);
	w->node_names = calloc(l->n + 1, sizeof *w->node_names);
	if (!by || !w->nodes || !w->node_names) {
		free(by);
		return fail(d, FW_ENOMEM, l->file, 0, NULL, "out of memory");
	}
	if (l->n == 0) {
		free(by);
		return fail(d, FW_EINVAL, l->file, 0, NULL, "no nodes");
	}
	for (size_t i = 0; i < l->n; i++)
		by[i] = &l->v[i];
	qsort(by, l->n, sizeof *by, cmp_node_name);
	rc = init_nodes(w, l, by, d);
	free(by);
	return rc;
}

/* ---- world: pods ---------------------------------------------------------- */

static int cmp_pod_name(const void *a, const void *b)
{
	const struct fw_openb_pod *x = *(const struct fw_openb_pod *const *)a;
	const struct fw_openb_pod *y = *(const struct fw_openb_pod *const *)b;
	return strcmp(x->name, y->name);
}

/*
 * gpu_spec -> model mask (§1): split on '|', drop empty parts.  0 means any
 * model; a non-empty spec naming only unknown models is FW_MODELS_NONE.
 */
static uint32_t spec_mask(const struct fw_fgd_world *w, const char *spec)
{
	uint32_t mask = 0;
	bool any_part = false;
	while (*spec) {
		size_t n = strcspn(spec, "|");
		for (int m = 0; n > 0 && m < w->nmodels; m++)
			if (strlen(w->models[m]) == n &&
			    memcmp(w->models[m], spec, n) == 0)
				mask |= UINT32_C(1) << m;
		any_part |= n > 0;
		spec += n + (spec[n] == '|');
	}
	return any_part && mask == 0 ? FW_MODELS_NONE : mask;
}

/* The normalised request of §1. */
static struct fw_pod_req pod_req(const struct fw_fgd_world *w,
				 const struct fw_openb_pod *x)
{
	struct fw_pod_req p = { 0 };
	p.cpu = x->cpu_milli;
	p.cpu_nz = x->cpu_milli == 0 ? 100 : x->cpu_milli;
	p.mem = x->memory_mib;
	if (x->num_gpu == 0)
		return p;
	p.num = x->num_gpu;
	p.milli = x->gpu_milli <= 0 ? 0
		  : x->gpu_milli > FW_MILLI ? FW_MILLI : x->gpu_milli;
	p.models = spec_mask(w, x->gpu_spec);
	return p;
}

static int build_pods(struct fw_fgd_world *w, const struct fw_openb_pods *l,
		      const struct fw_openb_pod **by, struct fw_diag *d)
{
	for (size_t i = 0; i < l->n; i++)
		by[i] = &l->v[i];
	qsort(by, l->n, sizeof *by, cmp_pod_name);
	for (size_t i = 0; i < l->n; i++) {
		if (i > 0 && strcmp(by[i]->name, by[i - 1]->name) == 0)
			return fail(d, FW_EINVAL, l->file, by[i]->line, "name",
				    "duplicate pod name");
		w->pods[i] = pod_req(w, by[i]);
		w->req_milli += fw_pod_total(&w->pods[i]);
	}
	w->npods = l->n;
	return FW_OK;
}

/* ---- world: kinds (the scorer-visible part of a request) ---------------- */

static int cmp_kind(const struct fw_pod_req *a, const struct fw_pod_req *b)
{
	if (a->cpu_nz != b->cpu_nz)
		return a->cpu_nz < b->cpu_nz ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	if (a->milli != b->milli)
		return a->milli < b->milli ? -1 : 1;
	if (a->models != b->models)
		return a->models < b->models ? -1 : 1;
	return 0;
}

static int cmp_kind_ptr(const void *a, const void *b)
{
	return cmp_kind(*(const struct fw_pod_req *const *)a,
			*(const struct fw_pod_req *const *)b);
}

static int build_kinds(struct fw_fgd_world *w)
{
	const struct fw_pod_req **by = malloc((w->npods + 1) * sizeof *by);
	if (!by)
		return FW_ENOMEM;
	for (size_t i = 0; i < w->npods; i++)
		by[i] = &w->pods[i];
	qsort(by, w->npods, sizeof *by, cmp_kind_ptr);
	for (size_t i = 0; i < w->npods; i++) {
		if (i == 0 || cmp_kind(by[i], by[i - 1]) != 0)
			w->nkinds++;
		w->kind[by[i] - w->pods] = (uint32_t)(w->nkinds - 1);
	}
	free(by);
	return FW_OK;
}

/* ---- world: typical pods (§3) -------------------------------------------- */

struct tkey {
	int64_t cpu; /* cpu_nz */
	int milli, num;
	uint32_t models;
	char *spec;  /* normalised gpu_spec */
	size_t count;
};

/* "a||b|" -> "a|b" (empty parts dropped), in a new string. */
static char *spec_norm(const char *spec)
{
	char *out = malloc(strlen(spec) + 1), *o = out;
	if (!out)
		return NULL;
	while (*spec) {
		size_t n = strcspn(spec, "|");
		if (n > 0) {
			if (o != out)
				*o++ = '|';
			memcpy(o, spec, n);
			o += n;
		}
		spec += n + (spec[n] == '|');
	}
	*o = '\0';
	return out;
}

static int cmp_tkey(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->milli != y->milli)
		return x->milli < y->milli ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return strcmp(x->spec, y->spec);
}

/* Popularity order: count descending, then the key descending. */
static int cmp_popular(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return -cmp_tkey(a, b);
}

/* Group equal keys (sorted) in place; returns the number of groups. */
static size_t group_keys(struct tkey *k, size_t n)
{
	size_t g = 0;
	qsort(k, n, sizeof *k, cmp_tkey);
	for (size_t i = 0; i < n; i++) {
		if (g > 0 && cmp_tkey(&k[g - 1], &k[i]) == 0) {
			k[g - 1].count++;
			free(k[i].spec);
			continue;
		}
		k[g] = k[i];
		k[g++].count = 1;
	}
	return g;
}

/* Take the most popular keys up to FW_FGD_TYPICAL_PCT % of the pods. */
static int select_typical(struct fw_fgd_world *w, struct tkey *k, size_t ng)
{
	struct fw_typical_pod *v;
	size_t take = 0, cum = 0;
	qsort(k, ng, sizeof *k, cmp_popular);
	while (take < ng && cum * 100 < FW_FGD_TYPICAL_PCT * w->npods)
		cum += k[take++].count;
	if (!(v = calloc(take + 1, sizeof *v)))
		return FW_ENOMEM;
	for (size_t i = 0; i < take; i++) {
		v[i].cpu = k[i].cpu;
		v[i].num = k[i].num;
		v[i].milli = k[i].milli;
		v[i].models = k[i].models;
		v[i].p = (double)k[i].count / (double)cum;
	}
	w->typical.v = v;
	w->typical.n = take;
	w->typical_cover = w->npods ? (double)cum / (double)w->npods : 0;
	w->typical_keys_total = ng;
	return FW_OK;
}

static int build_typical(struct fw_fgd_world *w,
			 const struct fw_openb_pod *const *by)
{
	struct tkey *k = calloc(w->npods + 1, sizeof *k);
	size_t ng = 0;
	int rc = FW_OK;
	if (!k)
		return FW_ENOMEM;
	for (size_t i = 0; i < w->npods && rc == FW_OK; i++) {
		const struct fw_pod_req *p = &w->pods[i];
		k[i] = (struct tkey){ p->cpu_nz, p->milli, p->num, p->models,
				      spec_norm(p->num ? by[i]->gpu_spec : ""),
				      0 };
		if (!k[i].spec)
			rc = FW_ENOMEM;
	}
	if (rc == FW_OK) {
		ng = group_keys(k, w->npods);
		rc = select_typical(w, k, ng);
	} else {
		ng = w->npods;
	}
	for (size_t i = 0; i < ng; i++)
		free(k[i].spec);
	free(k);
	return rc;
}

/* ---- world --------------------------------------------------------------- */

void fw_fgd_world_free(struct fw_fgd_world *w)
{
	free(w->nodes);
	free(w->node_names);
	free(w->pods);
	free(w->kind);
	free((void *)w->typical.v);
	memset(w, 0, sizeof *w);
}

int fw_fgd_world_build(const struct fw_openb_nodes *nodes,
		       const struct fw_openb_pods *pods,
		       struct fw_fgd_world *w, struct fw_diag *d)
{
	const struct fw_openb_pod **by;
	int rc;
	memset(w, 0, sizeof *w);
	if ((rc = build_nodes(w, nodes, d)))
		goto out;
	by = malloc((pods->n + 1) * sizeof *by);
	w->pods = calloc(pods->n + 1, sizeof *w->pods);
	w->kind = calloc(pods->n + 1, sizeof *w->kind);
	rc = FW_ENOMEM;
	if (by && w->pods && w->kind && !(rc = build_pods(w, pods, by, d)) &&
	    !(rc = build_kinds(w)))
		rc = build_typical(w, by);
	free(by);
	if (rc == FW_ENOMEM)
		fail(d, rc, pods->file, 0, NULL, "out of memory");
out:
	if (rc)
		fw_fgd_world_free(w);
	return rc;
}

/* ---- run: the pod sequence (§2 steps 1-3) -------------------------------- */

#define MAX_SEQ ((size_t)1 << 24) /* pods after tuning: FW_ERANGE beyond */

struct seq {
	uint32_t *v;
	size_t n, cap;
};

static int seq_push(struct seq *s, uint32_t i)
{
	if (s->n == s->cap) {
		size_t cap = s->cap * 2;
		uint32_t *v;
		if (s->n >= MAX_SEQ)
			return FW_ERANGE;
		if (!(v = realloc(s->v, cap * 4)))
			return FW_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = i;
	return FW_OK;
}

/* Sample with replacement from the name-sorted trace until the next sample
 * would pass the target (the test uses the per-GPU milli, sic). */
static int tune_up(const struct fw_fgd_world *w, struct fw_rng *rng,
		   double target, struct seq *s)
{
	int64_t req = w->req_milli;
	for (;;) {
		uint32_t i = (uint32_t)fw_rng_below(rng, w->npods);
		const struct fw_pod_req *p = &w->pods[i];
		if ((double)(req + p->milli) > target)
			return FW_OK;
		int rc = seq_push(s, i);
		if (rc)
			return rc;
		req += fw_pod_total(p);
	}
}

/* Remove uniformly random pods until the requests fit the target. */
static void tune_down(const struct fw_fgd_world *w, struct fw_rng *rng,
		      double target, struct seq *s)
{
	int64_t req = w->req_milli;
	while ((double)req > target && s->n > 0) {
		size_t k = (size_t)fw_rng_below(rng, s->n);
		req -= fw_pod_total(&w->pods[s->v[k]]);
		memmove(&s->v[k], &s->v[k + 1], (s->n - k - 1) * 4);
		s->n--;
	}
}

static int build_sequence(const struct fw_fgd_world *w, struct fw_rng *rng,
			  double tune, struct seq *s)
{
	double target = tune * (double)(w->total_gpus * FW_MILLI);
	s->cap = w->npods + w->npods / 2 + 16;
	s->n = w->npods;
	if (!(s->v = malloc(s->cap * 4)))
		return FW_ENOMEM;
	for (size_t i = 0; i < w->npods; i++)
		s->v[i] = (uint32_t)i;
	for (size_t i = w->npods; i > 1; i--) { /* Fisher-Yates */
		size_t j = (size_t)fw_rng_below(rng, i);
		uint32_t t = s->v[i - 1];
		s->v[i - 1] = s->v[j];
		s->v[j] = t;
	}
	if ((double)w->req_milli < target)
		return tune_up(w, rng, target, s);
	tune_down(w, rng, target, s);
	return FW_OK;
}

/* ---- run: state ------------------------------------------------------------ */

struct run {
	const struct fw_fgd_world *w;
	const struct fw_scorer_ops *ops;
	struct fw_rng rng;
	struct fw_score_env env;
	struct fw_node_state *nodes; /* in rank order: ties go to the lowest */
	uint32_t *feas;              /* feasible node indices of one pod */
	bool cache;
	int32_t *cscore;             /* [kind * nnodes + node] */
	int8_t *cgpu;
	uint32_t *cstamp, *stamp;    /* entry valid iff cstamp == stamp[node] */
	int32_t *ev_arr;             /* per event: arrived %, alloc % */
	double *ev_alloc;
	size_t nev;
};

static void run_free(struct run *r)
{
	free(r->nodes);
	free(r->feas);
	free(r->cscore);
	free(r->cgpu);
	free(r->cstamp);
	free(r->stamp);
	free(r->ev_arr);
	free(r->ev_alloc);
}

/* Node i of the name order gets rank perm[i] (Go's rand.Perm shape). */
static void rank_nodes(struct run *r)
{
	size_t n = r->w->nnodes;
	uint32_t *perm = r->feas; /* free until scheduling starts */
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)fw_rng_below(&r->rng, i + 1);
		perm[i] = j == i ? 0 : perm[j];
		perm[j] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++)
		r->nodes[perm[i]] = r->w->nodes[i];
}

static int run_alloc(struct run *r, size_t nseq, unsigned flags)
{
	size_t nn = r->w->nnodes, cells = nn * r->w->nkinds;
	r->nodes = malloc(nn * sizeof *r->nodes);
	r->feas = malloc(nn * sizeof *r->feas);
	r->stamp = malloc(nn * sizeof *r->stamp);
	r->ev_arr = malloc((nseq + 1) * sizeof *r->ev_arr);
	r->ev_alloc = malloc((nseq + 1) * sizeof *r->ev_alloc);
	r->cache = r->ops->kind_pure && !(flags & FW_FGD_NO_CACHE) &&
		   cells <= (size_t)1 << 26;
	if (r->cache) {
		r->cscore = malloc(cells * sizeof *r->cscore);
		r->cgpu = malloc(cells * sizeof *r->cgpu);
		r->cstamp = calloc(cells, sizeof *r->cstamp);
		if (!r->cscore || !r->cgpu || !r->cstamp)
			return FW_ENOMEM;
	}
	if (!r->nodes || !r->feas || !r->stamp || !r->ev_arr || !r->ev_alloc)
		return FW_ENOMEM;
	for (size_t i = 0; i < nn; i++)
		r->stamp[i] = 1;
	return FW_OK;
}

/* ---- run: placing one pod (§2 step 6) ------------------------------------- */

static int score_node(struct run *r, size_t node, const struct fw_pod_req *p,
		      uint32_t kind, int *gpu)
{
	size_t c;
	int s;
	if (!r->cache)
		return r->ops->score(&r->env, &r->nodes[node], p, gpu);
	c = (size_t)kind * r->w->nnodes + node;
	if (r->cstamp[c] == r->stamp[node]) {
		*gpu = r->cgpu[c];
		return r->cscore[c];
	}
	s = r->ops->score(&r->env, &r->nodes[node], p, gpu);
	r->cscore[c] = s;
	r->cgpu[c] = (int8_t)*gpu;
	r->cstamp[c] = r->stamp[node];
	return s;
}

/* The chosen node (in rank order) or -1; *gpu as score() reports it. */
static int choose_node(struct run *r, const struct fw_pod_req *p,
		       uint32_t kind, int *gpu)
{
	size_t nf = 0;
	int best = -1, best_s = 0, g;
	*gpu = -1;
	for (size_t i = 0; i < r->w->nnodes; i++)
		if (fw_node_fits(&r->nodes[i], p))
			r->feas[nf++] = (uint32_t)i;
	if (nf == 0)
		return -1;
	if (nf >= 2 && r->ops->select &&
	    (best = r->ops->select(&r->env, nf)) >= 0 && (size_t)best < nf)
		return (int)r->feas[best];
	best = -1;
	if (nf == 1 && r->ops->gpu_pick != FW_GPU_PICK_SCORER)
		return (int)r->feas[0]; /* taken without scoring */
	for (size_t k = 0; k < nf; k++) {
		int s = score_node(r, r->feas[k], p, kind, &g);
		if (best < 0 || s > best_s) {
			best = (int)r->feas[k];
			best_s = s;
			*gpu = g;
		}
	}
	return best;
}

/* Place every pod of the sequence once and record the events. */
static void place_all(struct run *r, const struct seq *s,
		      struct fw_fgd_run *out)
{
	double t = (double)r->w->total_gpus;
	int64_t arrived = 0, used = 0;
	for (size_t k = 0; k < s->n; k++) {
		const struct fw_pod_req *p = &r->w->pods[s->v[k]];
		int8_t gpus[FW_NODE_MAX_GPUS];
		int g, node = choose_node(r, p, r->w->kind[s->v[k]], &g);
		arrived += fw_pod_total(p);
		if (node >= 0) {
			fw_gpu_choose(&r->nodes[node], p, r->ops->gpu_pick, g,
				      &r->rng, gpus);
			fw_node_state_apply(&r->nodes[node], p, gpus);
			r->stamp[node]++;
			used += fw_pod_total(p);
			out->placed++;
		} else {
			out->failed++;
		}
		r->ev_arr[k] = (int32_t)fmin(rint((double)arrived / t / 10.0),
					     INT32_MAX);
		r->ev_alloc[k] = rint((double)used / t / 10.0 * 100.0) / 100.0;
	}
	r->nev = s->n;
	out->final_alloc = s->n ? r->ev_alloc[s->n - 1] : 0;
}

/* ---- run: the curve (§6) -------------------------------------------------- */

double fw_fgd_pairwise_sum(const double *a, size_t n)
{
	double r[8], res = 0;
	size_t i;
	if (n < 8) {
		for (i = 0; i < n; i++)
			res += a[i];
		return res;
	}
	if (n <= 128) {
		for (i = 0; i < 8; i++)
			r[i] = a[i];
		for (i = 8; i < n - n % 8; i += 8)
			for (size_t j = 0; j < 8; j++)
				r[j] += a[i + j];
		res = ((r[0] + r[1]) + (r[2] + r[3])) +
		      ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	}
	i = n / 2;
	i -= i % 8;
	return fw_fgd_pairwise_sum(a, i) + fw_fgd_pairwise_sum(a + i, n - i);
}

/* Mean alloc % of the events whose arrived % is in [lo, hi], rounded to
 * 2 dp; NaN when there are none.  Arrived % never decreases, so the events
 * in the window are one contiguous range. */
static double window_mean(const struct run *r, int lo, int hi)
{
	size_t a = 0, b;
	while (a < r->nev && r->ev_arr[a] < lo)
		a++;
	b = a;
	while (b < r->nev && r->ev_arr[b] <= hi)
		b++;
	if (b == a)
		return NAN;
	return rint(fw_fgd_pairwise_sum(r->ev_alloc + a, b - a) /
		    (double)(b - a) * 100.0) / 100.0;
}

static void curve(const struct run *r, double tune, struct fw_fgd_run *out)
{
	int head = (int)lrint(tune * 100.0);
	out->ncol = head + 1;
	for (int x = 0; x < out->ncol; x++) {
		out->col[x] = window_mean(r, x, x);
		if (isnan(out->col[x]))
			out->col[x] = window_mean(r, x - 1, x + 1);
	}
	out->headline = out->col[head];
}

/* ---- run ------------------------------------------------------------------ */

int fw_fgd_run(const struct fw_fgd_world *w, const struct fw_scorer_ops *ops,
	       uint64_t seed, double tune, unsigned flags,
	       struct fw_fgd_run *out)
{
	struct run r = { .w = w, .ops = ops };
	struct seq s = { 0 };
	int rc;
	memset(out, 0, sizeof *out);
	out->seed = seed;
	if (!(tune > 0 && tune <= FW_FGD_MAX_TUNE) || w->req_milli <= 0 ||
	    w->total_gpus <= 0)
		return FW_EINVAL;
	fw_rng_seed(&r.rng, seed);
	r.env.rng = &r.rng;
	r.env.typical = &w->typical;
	rc = build_sequence(w, &r.rng, tune, &s);
	if (rc == FW_OK)
		rc = run_alloc(&r, s.n, flags);
	if (rc == FW_OK) {
		rank_nodes(&r);
		out->pods = s.n;
		place_all(&r, &s, out);
		curve(&r, tune, out);
	}
	free(s.v);
	run_free(&r);
	return rc;
}
