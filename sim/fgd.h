/*
 * fgd.h — the FGD (ATC '23) openb experiment: "GPU allocation at 130 %
 * arrived workload", re-run for any scorer of include/fairway/score.h.
 *
 * A *world* is the input made ready once: nodes and pods in name order,
 * each pod's normalised request (fgd-experiment.md §1), its *kind* (the
 * fields a scorer may look at, used as a cache key), GPU model names as bit
 * ids, and FGD's typical pods (§3), taken from the original trace.
 *
 * A *run* is one (world, scorer, seed): shuffle, tune to `tune` x capacity
 * by sampling with replacement, rank the nodes at random, then place each
 * pod once in order (§2).  It returns the allocation curve: for each whole
 * percent x of arrived GPU work, the mean allocation over the events at x
 * (§6), and col[round(tune*100)] is the headline number.  A run is a pure
 * function of (world, scorer, seed, tune): same inputs, same curve.
 *
 * Cost.  For scorers with kind_pure, scores are cached per (node, pod kind)
 * and a node's entries are invalidated when a pod is placed on it, so each
 * placement re-scores one node per kind instead of every node
 * (FW_FGD_NO_CACHE turns this off; tests check both give the same run).
 */
#ifndef FAIRWAY_SIM_FGD_H
#define FAIRWAY_SIM_FGD_H

#include <stddef.h>
#include <stdint.h>

#include "fairway/err.h"
#include "fairway/score.h"
#include "openb.h"

#define FW_FGD_MAX_PODS_PER_NODE 1001 /* the artifact's node pod limit */
#define FW_FGD_TYPICAL_PCT 95         /* popularity threshold of §3 */
#define FW_FGD_MAX_COL 301            /* curve columns 0..300 % */
#define FW_FGD_MAX_TUNE 3.0

struct fw_fgd_world {
	size_t nnodes;
	struct fw_node_state *nodes; /* fresh nodes, name order */
	const char **node_names;     /* borrowed from the openb list */
	size_t npods;
	struct fw_pod_req *pods;     /* name order */
	uint32_t *kind;              /* pods[i]'s kind, 0..nkinds-1 */
	size_t nkinds;
	struct fw_typical typical;   /* owns typical.v */
	double typical_cover;        /* share of pods the typical keys cover */
	size_t typical_keys_total;   /* distinct keys in the trace */
	int64_t total_gpus;
	int64_t req_milli;           /* sum of num*milli over the trace */
	const char *models[FW_MAX_MODELS]; /* model id -> name (borrowed) */
	int nmodels;
};

/*
 * Build the world from the parsed lists (which must outlive it: node and
 * model names are borrowed).  FW_EINVAL with *d when the input cannot be used (duplicate
 * node name, too many GPU models, no nodes, ...).
 */
int fw_fgd_world_build(const struct fw_openb_nodes *nodes,
		       const struct fw_openb_pods *pods,
		       struct fw_fgd_world *w, struct fw_diag *d);
void fw_fgd_world_free(struct fw_fgd_world *w);

#define FW_FGD_NO_CACHE 1u

struct fw_fgd_run {
	uint64_t seed;
	size_t pods;          /* after tuning */
	size_t placed, failed;
	int ncol;             /* columns 0..ncol-1 */
	double col[FW_FGD_MAX_COL]; /* alloc % at arrived x %, NaN if none */
	double headline;      /* col[round(tune*100)] */
	double final_alloc;   /* alloc % after the last pod */
};

/* One run.  FW_EINVAL for a bad tune (0 < tune <= FW_FGD_MAX_TUNE) or a
 * trace without GPU requests; FW_ERANGE when tuning would make more than
 * 16 M pods (tiny GPU requests against a large cluster); FW_ENOMEM. */
int fw_fgd_run(const struct fw_fgd_world *w, const struct fw_scorer_ops *ops,
	       uint64_t seed, double tune, unsigned flags,
	       struct fw_fgd_run *out);

/* numpy's pairwise summation (what np.mean uses), for bit-equal columns. */
double fw_fgd_pairwise_sum(const double *a, size_t n);

/*
 * The command: `fairway-fgd --pods FILE --nodes FILE [--seeds 42-51]
 * [--scorers a,b,...] [--json OUT] ...`; see --help.  argv[0] names the
 * program in messages.  Returns the exit status: 0 ok, 1 failure (or a
 * failed --check), 2 usage error.
 */
int fw_fgd_cli(int argc, char **argv);

#endif
