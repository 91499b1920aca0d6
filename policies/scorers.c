/*
 * scorers.c — the node scorers of include/fairway/score.h.
 *
 * Six scorers re-implement the FGD paper's baselines exactly as its artifact
 * computes them (fgd-experiment.md §4; the formulas, including the order of
 * float operations, are copied from there so that truncation to int lands
 * on the same side): random, dotprod, clustering, packing, bestfit and fgd.
 * The seventh, fairway, is ours (see the comment above fairway_score).
 *
 * Everything here is a pure function of its arguments: no globals, no I/O,
 * no allocation.  The only state that changes is a node the caller passes to
 * fw_node_apply and the RNG the caller passes in the environment.
 *
 * Cost.  fw_frag is O(|M| * G) (35 typical pods x up to 8 GPUs on openb);
 * FGD evaluates it once for the node and once per *distinct* free amount
 * among the GPUs that fit a sharing pod.  Callers that score the same node
 * for many pods should cache per (node, pod kind): see kind_pure.
 */
#include <math.h>
#include <string.h>

#include "fairway/score.h"

/* ---- RNG: splitmix64 (Steele, Lea, Flood 2014) ------------------------- */

void fw_rng_seed(struct fw_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t fw_rng_next(struct fw_rng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

uint64_t fw_rng_below(struct fw_rng *r, uint64_t n)
{
	/* Rejection keeps it unbiased: accept only x >= 2^64 mod n. */
	uint64_t floor = (0 - n) % n, x;
	do
		x = fw_rng_next(r);
	while (x < floor);
	return x % n;
}

/* ---- nodes -------------------------------------------------------------- */

static void node_derive(struct fw_node_state *n)
{
	n->idle = 0;
	n->nfree = 0;
	n->maxleft = 0;
	for (int g = 0; g < n->ngpu; g++) {
		n->idle += n->left[g];
		n->nfree += n->left[g] == FW_MILLI;
		if (n->left[g] > n->maxleft)
			n->maxleft = n->left[g];
	}
	n->ntags = 0;
	for (int k = 0; k <= FW_NODE_MAX_GPUS; k++)
		n->ntags += n->tags[k] > 0;
}

void fw_node_init(struct fw_node_state *n, int64_t cpu, int64_t mem, int ngpu,
		  int model, int max_pods)
{
	memset(n, 0, sizeof *n);
	n->cpu_left = cpu;
	n->mem_left = mem;
	n->max_pods = max_pods;
	n->ngpu = ngpu < 0 ? 0 : ngpu > FW_NODE_MAX_GPUS ? FW_NODE_MAX_GPUS : ngpu;
	n->model = model;
	for (int g = 0; g < n->ngpu; g++)
		n->left[g] = FW_MILLI;
	node_derive(n);
}

static int count_fitting(const struct fw_node_state *n, int milli)
{
	int k = 0;
	for (int g = 0; g < n->ngpu; g++)
		k += n->left[g] >= milli;
	return k;
}

static bool model_ok(uint32_t models, int model)
{
	return models == 0 || (models & (UINT32_C(1) << model)) != 0;
}

bool fw_node_fits(const struct fw_node_state *n, const struct fw_pod_req *p)
{
	if (p->cpu > n->cpu_left || p->mem > n->mem_left ||
	    n->pods >= n->max_pods)
		return false;
	if (p->milli <= 0)
		return true;
	if (n->ngpu == 0 || !model_ok(p->models, n->model))
		return false;
	if (p->num == 1)
		return n->maxleft >= p->milli;
	if (p->milli == FW_MILLI)
		return n->nfree >= p->num;
	return count_fitting(n, p->milli) >= p->num;
}

void fw_node_apply(struct fw_node_state *n, const struct fw_pod_req *p,
		   const int8_t *gpus)
{
	n->cpu_left -= p->cpu;
	n->mem_left -= p->mem;
	n->pods++;
	for (int i = 0; i < p->num && p->milli > 0; i++)
		n->left[gpus[i]] = (int16_t)(n->left[gpus[i]] - p->milli);
	if (p->num > 0 && p->num <= FW_NODE_MAX_GPUS)
		n->tags[fw_pod_sharing(p) ? 0 : p->num]++;
	node_derive(n);
}

/* GPU indices sorted by ascending left, index order on ties (stable). */
static void gpus_by_left(const struct fw_node_state *n, int *idx)
{
	for (int g = 0; g < n->ngpu; g++) {
		int j = g;
		while (j > 0 && n->left[idx[j - 1]] > n->left[g]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = g;
	}
}

/* The first num GPUs in ascending-left order with left >= milli; returns
 * how many were found (== num when the pod fits). */
static int take_ascending(const struct fw_node_state *n, int num, int milli,
			  int *out)
{
	int idx[FW_NODE_MAX_GPUS], k = 0;
	gpus_by_left(n, idx);
	for (int i = 0; i < n->ngpu && k < num; i++)
		if (n->left[idx[i]] >= milli)
			out[k++] = idx[i];
	return k;
}

/* ---- §3 fragmentation --------------------------------------------------- */

/* The artifact's categories, in the order it adds them up. */
enum { Q1, Q2, Q3, Q4, XL, XR, NA, NCAT };

static int frag_category(const struct fw_node_state *n,
			 const struct fw_typical_pod *t, int64_t *small)
{
	bool cpu_ok = n->cpu_left >= t->cpu;
	int fit = 0;
	if (t->num == 0)
		return cpu_ok ? XL : XR;
	if (!model_ok(t->models, n->model) || n->ngpu == 0)
		return NA;
	*small = 0;
	for (int g = 0; g < n->ngpu; g++) {
		if (n->left[g] >= t->milli)
			fit++;
		else
			*small += n->left[g];
	}
	if (fit >= t->num)
		return cpu_ok ? Q3 : Q4;
	return cpu_ok ? Q2 : Q1;
}

double fw_frag(const struct fw_node_state *n, const struct fw_typical *m)
{
	double cat[NCAT] = { 0 }, out = 0;
	int64_t idle = 0;
	for (int g = 0; g < n->ngpu; g++)
		idle += n->left[g];
	for (size_t i = 0; i < m->n; i++) {
		int64_t small = 0;
		int c = frag_category(n, &m->v[i], &small);
		if (c == Q3) /* only the GPUs too small for t are fragment */
			cat[Q2] += m->v[i].p * (double)small;
		else
			cat[c] += m->v[i].p * (double)idle;
	}
	for (int c = 0; c < NCAT; c++)
		if (c != Q3)
			out += cat[c];
	return out;
}

int fw_fgd_score_of(double delta_f)
{
	double sig = 1.0 / (1.0 + exp(-(delta_f / 1000.0)));
	return (int)(sig * 100.0);
}

/* ---- §5 GPU choice ------------------------------------------------------ */

static int pick_best(const struct fw_node_state *n, int milli)
{
	int best = -1;
	for (int g = 0; g < n->ngpu; g++)
		if (n->left[g] >= milli &&
		    (best < 0 || n->left[g] < n->left[best]))
			best = g;
	return best;
}

static int pick_random(const struct fw_node_state *n, int milli,
		       struct fw_rng *rng)
{
	int pick = -1;
	uint64_t k = 0;
	for (int g = 0; g < n->ngpu; g++)
		if (n->left[g] >= milli && fw_rng_below(rng, ++k) == 0)
			pick = g;
	return pick;
}

int fw_gpu_choose(const struct fw_node_state *n, const struct fw_pod_req *p,
		  enum fw_gpu_pick how, int scorer_gpu, struct fw_rng *rng,
		  int8_t *gpus)
{
	int k = 0;
	if (p->num == 0)
		return 0;
	if (fw_pod_sharing(p)) {
		int g = scorer_gpu;
		if (how == FW_GPU_PICK_RANDOM)
			g = pick_random(n, p->milli, rng);
		else if (how == FW_GPU_PICK_BEST || g < 0 || g >= n->ngpu ||
			 n->left[g] < p->milli)
			g = pick_best(n, p->milli);
		gpus[0] = (int8_t)g;
		return 1;
	}
	for (int g = 0; g < n->ngpu && k < p->num; g++)
		if (n->left[g] >= p->milli)
			gpus[k++] = (int8_t)g;
	return k;
}

/* ---- §4.1 Random -------------------------------------------------------- */

static int random_select(const struct fw_score_env *env, size_t nfeasible)
{
	return (int)fw_rng_below(env->rng, nfeasible);
}

static int random_score(const struct fw_score_env *env,
			const struct fw_node_state *n,
			const struct fw_pod_req *p, int *gpu)
{
	(void)env, (void)n, (void)p;
	*gpu = -1;
	return 0;
}

/* ---- §4.2 DotProd (merge, max-normalised; note 1 - dot) ---------------- */

static int dotprod_score(const struct fw_score_env *env,
			 const struct fw_node_state *n,
			 const struct fw_pod_req *p, int *gpu)
{
	double cn = (double)n->cpu_left / 128000.0;
	double cp = (double)p->cpu_nz / 128000.0;
	double gn = (double)n->idle / 8000.0;
	double gp = (double)fw_pod_total(p) / 8000.0;
	double x = cn * cp, y = gn * gp;
	double dot = x + y;
	(void)env;
	*gpu = -1;
	return (int)(100.0 * (1.0 - dot / 2.0));
}

/* ---- §4.3 GpuClustering ------------------------------------------------- */

static int clustering_score(const struct fw_score_env *env,
			    const struct fw_node_state *n,
			    const struct fw_pod_req *p, int *gpu)
{
	int64_t base = (25 * (8000 - n->idle)) / 8000;
	int tag;
	(void)env;
	*gpu = -1;
	if (p->num == 0)
		return 0;
	tag = fw_pod_sharing(p) ? 0 : p->num;
	if (tag <= FW_NODE_MAX_GPUS && n->tags[tag] > 0)
		return (int)base + (n->ntags == 1 ? 75 : 50);
	return (int)base + (n->ntags == 0 ? 25 : 0);
}

/* ---- §4.4 GpuPacking ---------------------------------------------------- */

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int packing_score(const struct fw_score_env *env,
			 const struct fw_node_state *n,
			 const struct fw_pod_req *p, int *gpu)
{
	int took[FW_NODE_MAX_GPUS], k, u = 0, pct = 0;
	(void)env;
	*gpu = -1;
	if (p->num == 0)
		return 0;
	if (n->nfree == n->ngpu)
		return imax(33 - n->ngpu, n->ngpu);
	k = take_ascending(n, p->num, p->milli, took);
	for (int i = 0; i < k; i++) {
		u += n->left[took[i]] == FW_MILLI;
		pct += n->left[took[i]] * 100 / FW_MILLI;
	}
	if (u > 0)
		return imax(50 - u, 33);
	return imax(100 - pct / 10, 50);
}

/* ---- §4.5 BestFit (its min-max normalisation keeps the argmax set, so
 * it is left out) --------------------------------------------------------- */

static int bestfit_score(const struct fw_score_env *env,
			 const struct fw_node_state *n,
			 const struct fw_pod_req *p, int *gpu)
{
	double c = (double)(n->cpu_left - p->cpu_nz) / 128000.0 * 0.5;
	double g = (double)(n->idle - fw_pod_total(p)) / 8000.0 * 0.5;
	double s = c + g;
	(void)env;
	*gpu = -1;
	return (int)((1.0 - s) * 100.0);
}

/* ---- §4.6 FGD ----------------------------------------------------------- */

/* The node after a non-sharing pod (CPU-only or whole GPUs): cpu_nz off the
 * CPU, milli off each of the first num fitting GPUs in ascending-left order. */
static void fgd_after_whole(const struct fw_node_state *n,
			    const struct fw_pod_req *p, struct fw_node_state *t)
{
	int took[FW_NODE_MAX_GPUS], k;
	*t = *n;
	t->cpu_left -= p->cpu_nz;
	if (p->num == 0)
		return;
	k = take_ascending(n, p->num, p->milli, took);
	for (int i = 0; i < k; i++)
		t->left[took[i]] = (int16_t)(t->left[took[i]] - p->milli);
}

/* True when an earlier GPU that fits has the same free amount: its node
 * after placement is the same multiset, so its score is the same. */
static bool seen_left(const struct fw_node_state *n, int g, int milli)
{
	for (int h = 0; h < g; h++)
		if (n->left[h] == n->left[g] && n->left[h] >= milli)
			return true;
	return false;
}

/*
 * FGD's score and, for a sharing pod, its GPU.  *df receives the exact
 * fragmentation decrease behind the score (fairway uses it).
 */
static int fgd_eval(const struct fw_score_env *env,
		    const struct fw_node_state *n, const struct fw_pod_req *p,
		    int *gpu, double *df)
{
	double f0 = fw_frag(n, env->typical);
	struct fw_node_state t;
	int best = -1;
	if (!fw_pod_sharing(p)) {
		fgd_after_whole(n, p, &t);
		*gpu = -1;
		*df = f0 - fw_frag(&t, env->typical);
		return fw_fgd_score_of(*df);
	}
	t = *n;
	t.cpu_left -= p->cpu_nz;
	*gpu = -1;
	for (int g = 0; g < n->ngpu; g++) {
		double d;
		int s;
		if (n->left[g] < p->milli || seen_left(n, g, p->milli))
			continue;
		t.left[g] = (int16_t)(n->left[g] - p->milli);
		d = f0 - fw_frag(&t, env->typical);
		t.left[g] = n->left[g];
		s = fw_fgd_score_of(d);
		if (*gpu < 0 || s > best) {
			best = s;
			*gpu = g;
			*df = d;
		}
	}
	return best;
}

static int fgd_score(const struct fw_score_env *env,
		     const struct fw_node_state *n, const struct fw_pod_req *p,
		     int *gpu)
{
	double df;
	return fgd_eval(env, n, p, gpu, &df);
}

/* ---- fairway ------------------------------------------------------------ */

#ifndef FW_FAIRWAY_VARIANT
#define FW_FAIRWAY_VARIANT 1
#endif

/* experimental: FGD with bucket (K,S) and GPU tie-break mode */
static int fgdx(const struct fw_score_env *env, const struct fw_node_state *n,
		const struct fw_pod_req *p, int *gpu, double K, double S, int gmode)
{
	double f0 = fw_frag(n, env->typical);
	struct fw_node_state t;
	int best = -1; double bestd = 0;
	if (!fw_pod_sharing(p)) {
		fgd_after_whole(n, p, &t);
		*gpu = -1;
		double d = f0 - fw_frag(&t, env->typical);
		return (int)(K / (1.0 + exp(-(d / S))));
	}
	t = *n;
	t.cpu_left -= p->cpu_nz;
	*gpu = -1;
	for (int g = 0; g < n->ngpu; g++) {
		if (n->left[g] < p->milli || seen_left(n, g, p->milli))
			continue;
		t.left[g] = (int16_t)(n->left[g] - p->milli);
		double d = f0 - fw_frag(&t, env->typical);
		t.left[g] = n->left[g];
		int s = (int)(K / (1.0 + exp(-(d / S))));
		bool better = *gpu < 0 || s > best;
		if (!better && s == best) {
			if (gmode == 1) better = n->left[g] < n->left[*gpu];
			if (gmode == 2) better = d > bestd;
		}
		if (better) { best = s; *gpu = g; bestd = d; }
	}
	return best;
}

static int fairway_score(const struct fw_score_env *env,
			 const struct fw_node_state *n,
			 const struct fw_pod_req *p, int *gpu)
{
	switch (FW_FAIRWAY_VARIANT) {
	case 8: return fgdx(env, n, p, gpu, 100, 1000, 1);
	case 9: return fgdx(env, n, p, gpu, 100, 1000, 2);
	case 10: return fgdx(env, n, p, gpu, 100, 2000, 0);
	case 11: return fgdx(env, n, p, gpu, 100, 500, 0);
	case 12: return fgdx(env, n, p, gpu, 50, 1000, 0);
	case 13: return fgdx(env, n, p, gpu, 200, 1000, 0);
	case 14: return fgdx(env, n, p, gpu, 20, 1000, 0);
	case 15: return fgdx(env, n, p, gpu, 100, 1000, 0) * 2 + (n->pods > 0);
	case 16: return fgdx(env, n, p, gpu, 100, 4000, 0);
	case 17: return fgdx(env, n, p, gpu, 100, 1000, 0);
	case 18: return fgdx(env, n, p, gpu, 100, 1000, 1) * 2 + (p->num == 0 && n->idle == 0);
	case 19: return fgdx(env, n, p, gpu, 100, 1000, 1) * 262144 + (p->num == 0 ? (int)(n->cpu_left / 1000) : 0);
	case 20: return fgdx(env, n, p, gpu, 100, 1000, 1) * 2 + (n->pods > 0);
	case 21: { int64_t h = n->cpu_left - n->idle * 12 + 200000; if (h < 0) h = 0; return fgdx(env, n, p, gpu, 100, 1000, 1) * 524288 + (p->num == 0 ? (int)(h/1000) : 0); }
	case 22: { int64_t h = n->cpu_left - n->idle * 12 + 200000; if (h < 0) h = 0; return fgdx(env, n, p, gpu, 100, 1000, 1) * 524288 + (int)(h/1000); }
	case 24: case 25: case 26: case 27: {
		int64_t h = n->cpu_left - n->idle * 12 + 200000; if (h < 0) h = 0;
		int f = fgdx(env, n, p, gpu, 100, 1000, 1), sec = 0;
		if (p->num == 0) sec = (int)(h / 1000);
		else if (FW_FAIRWAY_VARIANT == 24 && fw_pod_sharing(p)) sec = n->left[*gpu] < 1000;
		else if (FW_FAIRWAY_VARIANT == 25 && fw_pod_sharing(p)) sec = 1000 - n->left[*gpu];
		else if (FW_FAIRWAY_VARIANT == 26 && !fw_pod_sharing(p)) sec = 16 - n->nfree;
		else if (FW_FAIRWAY_VARIANT == 27) sec = n->pods > 0;
		return f * 524288 + sec; }
	case 23: return fgdx(env, n, p, gpu, 100, 1000, 1) * 4 + (p->num == 0 && n->idle == 0) * 2 + (n->pods > 0);
	}
	double df;
	int s = fgd_eval(env, n, p, gpu, &df), g2, sec = 0;
	int64_t after = n->idle - fw_pod_total(p);
	switch (FW_FAIRWAY_VARIANT) {
	case 0: return s;
	case 1: sec = (int)(16000 - after); break;
	case 2: sec = (int)(df + 16000); if (sec < 0) sec = 0; if (sec > 32767) sec = 32767; break;
	case 3: sec = packing_score(env, n, p, &g2); break;
	case 4: sec = clustering_score(env, n, p, &g2); break;
	case 5: sec = bestfit_score(env, n, p, &g2) + 200; break;
	case 6: sec = (int)(16000 - after); if (p->num == 0) sec = 0; break;
	case 7: sec = fw_pod_sharing(p) ? (int)(16000 - after) : 0; break;
	}
	return s * 32768 + sec;
}

/* ---- the ops tables ----------------------------------------------------- */

const struct fw_scorer_ops fw_scorer_random = {
	.name = "random",
	.paper_name = "Random",
	.summary = "a uniformly random feasible node",
	.gpu_pick = FW_GPU_PICK_RANDOM,
	.kind_pure = false,
	.select = random_select,
	.score = random_score,
};

const struct fw_scorer_ops fw_scorer_dotprod = {
	.name = "dotprod",
	.paper_name = "DotProd",
	.summary = "smallest dot product of node free and pod request",
	.gpu_pick = FW_GPU_PICK_BEST,
	.kind_pure = true,
	.score = dotprod_score,
};

const struct fw_scorer_ops fw_scorer_clustering = {
	.name = "clustering",
	.paper_name = "GpuClustering",
	.summary = "nodes already running pods of the same GPU shape",
	.gpu_pick = FW_GPU_PICK_BEST,
	.kind_pure = true,
	.score = clustering_score,
};

const struct fw_scorer_ops fw_scorer_packing = {
	.name = "packing",
	.paper_name = "GpuPacking",
	.summary = "partly used GPUs first, then partly used nodes",
	.gpu_pick = FW_GPU_PICK_BEST,
	.kind_pure = true,
	.score = packing_score,
};

const struct fw_scorer_ops fw_scorer_bestfit = {
	.name = "bestfit",
	.paper_name = "BestFit",
	.summary = "least CPU and GPU left over after placement",
	.gpu_pick = FW_GPU_PICK_BEST,
	.kind_pure = true,
	.score = bestfit_score,
};

const struct fw_scorer_ops fw_scorer_fgd = {
	.name = "fgd",
	.paper_name = "FGD",
	.summary = "fragmentation gradient descent (Weng et al., ATC '23)",
	.gpu_pick = FW_GPU_PICK_SCORER,
	.kind_pure = true,
	.score = fgd_score,
};

const struct fw_scorer_ops fw_scorer_fairway = {
	.name = "fairway",
	.paper_name = NULL,
	.summary = "FGD, ties broken towards the fullest node",
	.gpu_pick = FW_GPU_PICK_SCORER,
	.kind_pure = true,
	.score = fairway_score,
};

static const struct fw_scorer_ops *const all_scorers[] = {
	&fw_scorer_random,  &fw_scorer_dotprod, &fw_scorer_clustering,
	&fw_scorer_packing, &fw_scorer_bestfit, &fw_scorer_fgd,
	&fw_scorer_fairway,
};

const struct fw_scorer_ops *const *fw_scorer_list(size_t *n)
{
	*n = sizeof all_scorers / sizeof all_scorers[0];
	return all_scorers;
}

const struct fw_scorer_ops *fw_scorer_find(const char *name)
{
	size_t n;
	const struct fw_scorer_ops *const *v = fw_scorer_list(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i]->name, name) == 0)
			return v[i];
	return NULL;
}

/* ---- one decision ------------------------------------------------------- */

static int nth_feasible(const struct fw_node_state *nodes, size_t nn,
			const struct fw_pod_req *p, size_t k)
{
	for (size_t i = 0; i < nn; i++)
		if (fw_node_fits(&nodes[i], p) && k-- == 0)
			return (int)i;
	return -1;
}

int fw_score_choose(const struct fw_scorer_ops *ops,
		    const struct fw_score_env *env,
		    const struct fw_node_state *nodes, size_t nn,
		    const struct fw_pod_req *p, int *gpu)
{
	size_t nf = 0;
	int best = -1, best_s = 0, g;
	*gpu = -1;
	for (size_t i = 0; i < nn; i++)
		nf += fw_node_fits(&nodes[i], p);
	if (nf == 0)
		return -1;
	if (nf >= 2 && ops->select && (best = ops->select(env, nf)) >= 0)
		return nth_feasible(nodes, nn, p, (size_t)best);
	for (size_t i = 0; i < nn; i++) {
		int s;
		if (!fw_node_fits(&nodes[i], p))
			continue;
		s = ops->score(env, &nodes[i], p, &g);
		if (best < 0 || s > best_s) {
			best = (int)i;
			best_s = s;
			*gpu = g;
		}
	}
	return best;
}
