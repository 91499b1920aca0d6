/*
 * score.h — node scorers for GPU-sharing placement, as const ops tables.
 *
 * This is the placement model of the FGD paper (Weng et al., USENIX ATC '23)
 * and of its simulator: a node is CPU, memory, a pod count and up to
 * FW_NODE_MAX_GPUS GPUs, each with `left` milli-GPUs free (1000 = a whole
 * idle GPU).  A pod asks for CPU, memory and `num` GPUs of `milli` each; a
 * *sharing* pod asks for part of one GPU (num = 1, milli < 1000).  The exact
 * rules are docs/fgd.md and /work/shared/reading/fgd-experiment.md §1-§5;
 * the section numbers below refer to that text.
 *
 * A scorer is a `const struct fw_scorer_ops` (policies/scorers.c) and is
 * *pure*: it reads the node, the pod and the environment it is given and
 * returns an integer, higher is better.  It holds no globals, does no I/O and
 * allocates nothing.  Randomness is an explicit seeded value (struct fw_rng)
 * passed in the environment, so a run is a function of its seed.
 *
 * Ties are not the scorer's business: the caller keeps the nodes in *rank*
 * order and takes the first node with the maximum score (the artifact's
 * "smallest name" rule, §2 step 5).  fw_score_choose() is that loop, written
 * once, for tests and small callers; the experiment (sim/fgd.c) has its own
 * cached copy of it.
 *
 * Node bookkeeping (fw_node_state_init / fw_node_state_apply) keeps a few derived values
 * (idle milli, fully free GPUs, largest free slice, affinity tags) so that
 * feasibility is O(1) and the scorers never rescan more than the GPUs.
 */
#ifndef FAIRWAY_SCORE_H
#define FAIRWAY_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_MILLI 1000           /* milli-GPUs in one GPU */
#define FW_NODE_MAX_GPUS 16     /* GPUs per node this model supports */
#define FW_MAX_MODELS 32        /* distinct GPU model names (bit mask) */

/* ---- a seeded random stream (splitmix64) -------------------------------- */

struct fw_rng {
	uint64_t s;
};

void fw_rng_seed(struct fw_rng *r, uint64_t seed);
uint64_t fw_rng_next(struct fw_rng *r);
/* Uniform in 0..n-1 (unbiased); n must be >= 1. */
uint64_t fw_rng_below(struct fw_rng *r, uint64_t n);

/* ---- pods and nodes ----------------------------------------------------- */

/*
 * A pod's request, already normalised as §1 says: num = 0 and milli = 0 for
 * a CPU-only pod, milli clamped to 0..1000, cpu_nz = cpu or 100 if cpu is 0.
 * models: bit m set when GPU model id m is acceptable; 0 means "any model"
 * (empty gpu_spec).  A non-empty spec naming no known model is
 * FW_MODELS_NONE: it can never be placed on a GPU.
 */
#define FW_MODELS_NONE (UINT32_C(1) << 31)
struct fw_pod_req {
	int64_t cpu;    /* milli-CPU, raw: used by the fit filter and apply */
	int64_t cpu_nz; /* milli-CPU as the scorers see it */
	int64_t mem;    /* MiB: a filter only */
	int num;        /* GPUs, 0 for a CPU-only pod */
	int milli;      /* milli-GPU per GPU */
	uint32_t models;
};

static inline int64_t fw_pod_total(const struct fw_pod_req *p)
{
	return (int64_t)p->num * p->milli;
}

static inline bool fw_pod_sharing(const struct fw_pod_req *p)
{
	return p->num == 1 && p->milli < FW_MILLI;
}

/*
 * A node's state.  All fields after `left` are derived and kept up to date
 * by fw_node_state_init/fw_node_state_apply; never write them directly.
 * tags[0] counts sharing pods, tags[k] counts k-GPU pods (GpuClustering's
 * affinity tags, §4.3); ntags is how many of them are non-zero.
 */
struct fw_node_state {
	int64_t cpu_left;
	int64_t mem_left;
	int pods, max_pods;
	int ngpu;
	int model; /* model id, 0..FW_MAX_MODELS-2 */
	int16_t left[FW_NODE_MAX_GPUS];
	/* derived */
	int64_t idle;  /* sum of left[] (L in §3/§4) */
	int nfree;     /* GPUs with left == 1000 */
	int maxleft;   /* largest left[], 0 without GPUs */
	int16_t tags[FW_NODE_MAX_GPUS + 1];
	int ntags;
};

/* A fresh node; ngpu must be 0..FW_NODE_MAX_GPUS. */
void fw_node_state_init(struct fw_node_state *n, int64_t cpu, int64_t mem, int ngpu,
		  int model, int max_pods);
/* §1: may the pod be placed on the node at all? */
bool fw_node_fits(const struct fw_node_state *n, const struct fw_pod_req *p);
/* Place the pod on GPUs gpus[0..num-1] (ignored for CPU-only pods).  The
 * caller has checked fw_node_fits and chosen the GPUs with fw_gpu_choose. */
void fw_node_state_apply(struct fw_node_state *n, const struct fw_pod_req *p,
		   const int8_t *gpus);

/* ---- FGD's fragmentation measure (§3) ----------------------------------- */

/* One typical pod t with its popularity p_t (the p_t sum to 1). */
struct fw_typical_pod {
	int64_t cpu; /* cpu_nz */
	int num, milli;
	uint32_t models;
	double p;
};

struct fw_typical {
	const struct fw_typical_pod *v;
	size_t n;
};

/* F_n(M): expected milli-GPUs of the node that a random typical pod cannot
 * use.  Summed per category in the artifact's order (bit-identical). */
double fw_frag(const struct fw_node_state *n, const struct fw_typical *m);

/* FGD's integer score of a fragmentation decrease: int(100*sigmoid(dF/1000)). */
int fw_fgd_score_of(double delta_f);

/* ---- scorers ------------------------------------------------------------ */

/* How the GPUs inside the chosen node are picked (§5). */
enum fw_gpu_pick {
	FW_GPU_PICK_BEST,   /* sharing: smallest left >= milli, lowest index */
	FW_GPU_PICK_RANDOM, /* sharing: uniform over the GPUs that fit */
	FW_GPU_PICK_SCORER, /* sharing: the GPU the scorer reported */
};

struct fw_score_env {
	const struct fw_typical *typical; /* needed by fgd and fairway */
	struct fw_rng *rng;               /* needed by random */
};

/*
 * The contract of a scorer:
 *
 *   name        stable lower-case identifier (command line, JSON).
 *   paper_name  the name in the FGD paper's tables, NULL for our own.
 *   summary     one line for --help.
 *   gpu_pick    GPU choice inside the chosen node.
 *   kind_pure   true when score() depends only on the node state and on the
 *               pod's (cpu_nz, num, milli, models) and not on the RNG, so a
 *               caller may cache it per (node, pod kind) until the node
 *               changes.
 *   select      optional.  Called with the number of feasible nodes (>= 2)
 *               before any scoring; a return value i >= 0 means "take the
 *               i-th feasible node in rank order" and score() is not called
 *               (Random, §4.1).  May use env->rng.
 *   score       the node's score for the pod (the pod is known to fit).
 *               Higher wins.  The six published scorers return 0..100.
 *               *gpu receives the GPU the scorer would use for a sharing pod
 *               when gpu_pick is FW_GPU_PICK_SCORER, otherwise -1.
 */
struct fw_scorer_ops {
	const char *name;
	const char *paper_name;
	const char *summary;
	enum fw_gpu_pick gpu_pick;
	bool kind_pure;
	int (*select)(const struct fw_score_env *env, size_t nfeasible);
	int (*score)(const struct fw_score_env *env,
		     const struct fw_node_state *n, const struct fw_pod_req *p,
		     int *gpu);
};

extern const struct fw_scorer_ops fw_scorer_random;
extern const struct fw_scorer_ops fw_scorer_dotprod;
extern const struct fw_scorer_ops fw_scorer_clustering;
extern const struct fw_scorer_ops fw_scorer_packing;
extern const struct fw_scorer_ops fw_scorer_bestfit;
extern const struct fw_scorer_ops fw_scorer_fgd;
extern const struct fw_scorer_ops fw_scorer_fairway;

/* All scorers, published ones first in the paper's order; *n gets the count. */
const struct fw_scorer_ops *const *fw_scorer_list(size_t *n);
/* The scorer with this name, or NULL. */
const struct fw_scorer_ops *fw_scorer_find(const char *name);

/*
 * Choose the GPUs for pod p on node n (§5): writes p->num GPU indices to
 * gpus[] and returns p->num (0 for a CPU-only pod).  scorer_gpu is the GPU
 * reported by score() (used with FW_GPU_PICK_SCORER for a sharing pod).
 */
int fw_gpu_choose(const struct fw_node_state *n, const struct fw_pod_req *p,
		  enum fw_gpu_pick how, int scorer_gpu, struct fw_rng *rng,
		  int8_t *gpus);

/*
 * One placement decision over nodes[0..nn-1], given in rank order: filter,
 * score, take the first maximum (§2 step 6).  Returns the chosen index, or
 * -1 when the pod fits nowhere.  *gpu gets the scorer's GPU for the chosen
 * node (see score()), or -1.  Does not change the nodes.
 */
int fw_score_choose(const struct fw_scorer_ops *ops,
		    const struct fw_score_env *env,
		    const struct fw_node_state *nodes, size_t nn,
		    const struct fw_pod_req *p, int *gpu);

#endif
