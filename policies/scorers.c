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
 * fw_node_state_apply and the RNG the caller passes in the environment.
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

void fw_node_state_init(struct fw_node_state *n, int64_t cpu, int64_t mem, int ngpu,
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

void fw_node_state_apply(struct fw_node_state *n, const struct fw_pod_req *p,
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
 * FGD's score and, for a sharing pod, its GPU: the lowest-index GPU with the
 * best score, or with fullest_ties the fullest of those (fairway).
 */
static int fgd_eval(const struct fw_score_env *env,
		    const struct fw_node_state *n, const struct fw_pod_req *p,
		    bool fullest_ties, int *gpu)
{
	double f0 = fw_frag(n, env->typical);
	struct fw_node_state t;
	int best = -1;
	*gpu = -1;
	if (!fw_pod_sharing(p)) {
		fgd_after_whole(n, p, &t);
		return fw_fgd_score_of(f0 - fw_frag(&t, env->typical));
	}
	t = *n;
	t.cpu_left -= p->cpu_nz;
	for (int g = 0; g < n->ngpu; g++) {
		int s;
		if (n->left[g] < p->milli || seen_left(n, g, p->milli))
			continue;
		t.left[g] = (int16_t)(n->left[g] - p->milli);
		s = fw_fgd_score_of(f0 - fw_frag(&t, env->typical));
		t.left[g] = n->left[g];
		if (*gpu < 0 || s > best ||
		    (fullest_ties && s == best && n->left[g] < n->left[*gpu])) {
			best = s;
			*gpu = g;
		}
	}
	return best;
}

static int fgd_score(const struct fw_score_env *env,
		     const struct fw_node_state *n, const struct fw_pod_req *p,
		     int *gpu)
{
	return fgd_eval(env, n, p, false, gpu);
}

/* ---- fairway: FGD that keeps CPU for the idle GPUs ----------------------- */

/*
 * Why.  On openb, FGD ends with about 1.5 % of all GPU capacity idle on
 * nodes whose CPU is used up.  F_n(M) looks at one typical pod at a time, so
 * a node with four idle GPUs and 12 free cores looks healthy to it, although
 * the four GPUs together need about 40 cores to ever be used.
 *
 * The rule.  r = the CPU the typical GPU pods bring per milli-GPU
 * (sum p_t*cpu_t / sum p_t*num_t*milli_t over the GPU pods of M, about 10.9
 * milli-CPU per milli-GPU on openb).  A placement *keeps* the node when,
 * after it, cpu_left >= FAIRWAY_RHO * r * idle.  Scores compare, in order:
 *
 *   GPU pod:      keeps the node; FGD's score; for a sharing pod, how full
 *                 the chosen GPU already is (pack shared GPUs).
 *   CPU-only pod: FGD's score; the CPU left to spare after it,
 *                 cpu_left - FAIRWAY_RHO * r * idle (go where CPU is
 *                 plentiful relative to the idle GPUs).
 *
 * Inside the node, a sharing pod goes to the fullest GPU among those with
 * FGD's best score.  Remaining ties go to the lowest rank, as in FGD.
 * FAIRWAY_RHO = 0.8 was the best of 0.5..1.5 on seeds 42..51 and held on the
 * unseen seeds 0..39; docs/fgd.md has the scan and the ablation.
 */
#define FAIRWAY_RHO 0.8

static double typical_cpu_per_milli(const struct fw_typical *m)
{
	double cpu = 0, gpu = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct fw_typical_pod *t = &m->v[i];
		cpu += t->num ? t->p * (double)t->cpu : 0;
		gpu += t->p * (double)t->num * t->milli;
	}
	return gpu > 0 ? cpu / gpu : 0;
}

static int fairway_score(const struct fw_score_env *env,
			 const struct fw_node_state *n,
			 const struct fw_pod_req *p, int *gpu)
{
	double need = FAIRWAY_RHO * typical_cpu_per_milli(env->typical);
	double cpu_after = (double)(n->cpu_left - p->cpu_nz);
	double idle_after = (double)(n->idle - fw_pod_total(p));
	int f = fgd_eval(env, n, p, true, gpu), tie = 0;
	if (p->num == 0) { /* spare CPU in cores, clamped to 0..1023 */
		double spare = (cpu_after - need * idle_after) / 1000.0;
		tie = spare < -512 ? 0 : spare > 511 ? 1023 : (int)spare + 512;
		return f * 1024 + tie;
	}
	if (fw_pod_sharing(p) && *gpu >= 0)
		tie = FW_MILLI - n->left[*gpu];
	return ((cpu_after >= need * idle_after) * 128 + f) * 1024 + tie;
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
	.summary = "FGD that keeps enough CPU for each node's idle GPUs",
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
	if (nf >= 2 && ops->select && (best = ops->select(env, nf)) >= 0 &&
	    (size_t)best < nf)
		return nth_feasible(nodes, nn, p, (size_t)best);
	best = -1;
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
