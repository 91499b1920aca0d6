/*
 * failure.h — node failures for the simulator, and the health tracker
 * that makes placement health-aware (docs/health.md, docs/results-health.md).
 *
 * Failure model (fw_failure_generate).  Every node fails as a Poisson
 * process: rate r per node-day, r = rate_per_1000 / 1000 (default 6.50,
 * Meta's RSC-1), times flaky_factor (default 10) for a flaky_fraction
 * (default 5%) of the nodes chosen by the seed.  A failure takes the node
 * down for repair_s (default 4 h); its next failure is drawn from the end
 * of the repair.  Failures are drawn in [-history_s, horizon_s): a fleet
 * has a past, and the failures before time 0 are its history, which the
 * health tracker folds before the first tick (the replay itself sees only
 * what is still under repair at 0: fw_failure_replay_list).  The list is a
 * pure function of (model, nodes, seed), sorted by time then node, so two
 * placement variants replayed with the same list see the same hardware.
 * In the replay (des.h) a failure evicts every job with a task on the
 * node; it restarts from its last checkpoint (the tracker's on_evict).
 *
 * Silent faults (fw_failure_blind_view).  The main model lets both
 * placements see every failure at once, as if every fault took the node
 * NotReady.  A GPU that falls off the bus, an uncorrectable ECC error or a
 * downed NVLink leaves the node Ready: a scheduler that reads only Ready
 * and taints keeps placing work there, and each job crashes at start-up,
 * until someone notices (pytorch/ci-infra#1058: one dead GPU on a Ready
 * node rejected 554 pods in 1 h 46 min and nothing reported it).  The
 * blind view of a failure list turns a fraction of the failures into
 * that: the fault at t kills the node's jobs, then every crash_s until
 * t + detect_s any job placed there is killed again, and only at
 * t + detect_s does the node go to repair (for repair_s).  Which failures
 * are silent is a hash of (node, time), so the choice does not move the
 * failure draws.  A health-aware fairway reads the agent's XID report at
 * t and keeps the failure as it is.
 *
 * Health tracker (struct fw_health_tracker).  The simulator hooks of one
 * replay:
 *   on_tick   folds the failures and repairs up to now into one health
 *             record per node (health.h: a failure is a fatal XID 79, a
 *             repair is REPAIRED, so the node goes back through probation
 *             and a node that fails twice within the flap window stays
 *             suspect for the flap hold) and, when `aware`, writes each
 *             record's state and lemon verdict into the replay's nodes; health-blind runs
 *             leave every node HEALTHY (a down node is unschedulable in
 *             both);
 *   on_evict  keeps whole checkpoints (fw_sim_checkpoint_kept) and
 *             charges the work lost to the job, and to failures when a
 *             failure of one of its nodes is at this very time; such a
 *             restart also costs restart_s (failure detection, start-up,
 *             checkpoint load: ETTR's unproductive restart time), charged
 *             as work the next run must redo; and when flaky says the
 *             failed node is flaky, the loss is also tallied there (the
 *             share of the loss a perfect flaky-node detector could
 *             avoid).
 * The tracker's per-row tallies feed the metrics of llmfleet.h.
 *
 * Without an agent (no_agent, with the blind view of silent faults), no
 * XID report reaches the health model: the crash entries (repair 0) are
 * not folded as faults, and each job a failure evicts counts as one
 * JOB_FAILURE on that node (health.h: the 3rd within 24 h puts it on
 * probation, so big gangs avoid it).  The fault noticed later (the entry
 * with its repair) is folded as before: the operator sends it to repair.
 *
 * NVLink flaps (an entry with flap, fw_failure_add_flaps): a node's links
 * drop for a few minutes and come back.  The replay treats a flap like a
 * short failure, for both placements: the collectives of every job on the
 * node fail, so those jobs restart from their last checkpoint, and the
 * node is out while its links are down.  The tracker folds it as the
 * agent reports it: NVLINK_DOWN, a transient fault, so the node is
 * suspect for the probation, and a node that flaps twice within the flap
 * window stays suspect for the flap hold (health.h's damping); there is
 * no repair.  Flaps are drawn like failures, per node, at their own rate
 * (flaky nodes at flaky_factor times it: the same nodes), from their own
 * random stream, so adding them moves no failure.
 *
 * GPU failures (an entry with gpus, fw_failure_gpu_view) go to that GPU's
 * own record: a fatal XID 79, REPAIRED at its repair.  The node keeps its
 * state and its other GPUs (health.h, fw_health_node_view): placement
 * skips the failed GPU (the replay holds it in bad_gpu_mask), and while a
 * repaired GPU is on probation the node is SUSPECT, so big gangs avoid it.
 * Its incidents count towards the node's lemon verdict with the node's.
 */
#ifndef FAIRWAY_SIM_FAILURE_H
#define FAIRWAY_SIM_FAILURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "des.h"
#include "fairway/health.h"
#include "trace.h"

struct fw_failure_model {
	double rate_per_1000;   /* failures per 1,000 node-days; 6.50 */
	double flaky_fraction;  /* 0.05 */
	double flaky_factor;    /* 10 */
	int64_t repair_s;       /* 4 h */
	int64_t horizon_s;      /* failures are drawn in [-history_s, horizon_s) */
	int64_t history_s;      /* 0: no history */
	uint64_t seed;
};

void fw_failure_model_default(struct fw_failure_model *m);

/* *out (malloc'd, caller frees) gets the failures of nnodes nodes; flaky
 * (nnodes entries, may be NULL) says which nodes are flaky.  FW_OK,
 * FW_EINVAL (bad model) or FW_ENOMEM. */
int fw_failure_generate(const struct fw_failure_model *m, int32_t nnodes,
			struct fw_sim_failure **out, size_t *n, bool *flaky);

/* The part of list v (sorted, possibly with history) the replay sees: every
 * failure whose repair ends after time 0, one that began before 0 moved to
 * 0 with the rest of its repair.  *out is malloc'd (caller frees). */
int fw_failure_replay_list(const struct fw_sim_failure *v, size_t n, struct fw_sim_failure **out,
			   size_t *nout);

struct fw_silent_model {
	double fraction;  /* share of failures that leave the node Ready; 0 = none */
	int64_t detect_s; /* until a silent fault is noticed and sent to repair */
	int64_t crash_s;  /* a job started on the faulty node dies this long after */
};

/* The failures v (sorted) as a Ready-only scheduler lives them, in *out
 * (malloc'd, sorted; the caller frees): each silent failure (t, node, R)
 * becomes (t, node, 0), (t + crash_s, node, 0), ... while before
 * t + detect_s, then (t + detect_s, node, R).  fraction 0 or detect_s 0
 * gives v itself.  FW_OK, FW_EINVAL (fraction outside [0, 1], detect_s < 0,
 * crash_s < 1) or FW_ENOMEM. */
int fw_failure_blind_view(const struct fw_sim_failure *v, size_t n, const struct fw_silent_model *s,
			  struct fw_sim_failure **out, size_t *nout);

/* GPU failures: a share of the failures strike one GPU of the node, not
 * the whole node (a GPU that falls off the bus, an uncorrectable ECC
 * error).  Which ones, and which GPU, is a hash of node and time,
 * independent of the silent-fault choice, so the failure draws do not
 * move. */
struct fw_gpu_fault_model {
	double fraction;        /* share of the failures; 0 = none */
	int32_t gpus_per_node;  /* the GPU is picked below this (1..32) */
	int64_t repair_s;       /* their repair (a GPU swap may wait for parts);
				 * 0 = the failure's own */
};

/* The failures v (sorted) with the GPU failures of g, in *out (malloc'd,
 * sorted; the caller frees).  per_gpu: as a placement that reads per-GPU
 * health lives them, each chosen failure strikes its GPU only (gpus set:
 * the node's other GPUs and their jobs carry on, des.h); otherwise as a
 * placement that sees only node Ready lives them: the same failures and
 * repairs, each taking the whole node out.  FW_OK, FW_EINVAL (fraction
 * outside [0, 1], gpus_per_node outside 1..32, repair_s < 0) or
 * FW_ENOMEM. */
int fw_failure_gpu_view(const struct fw_sim_failure *v, size_t n, const struct fw_gpu_fault_model *g,
			bool per_gpu, struct fw_sim_failure **out, size_t *nout);

/* NVLink flaps (see above). */
struct fw_flap_model {
	double rate_per_1000;   /* flaps per 1,000 node-days; 0 = none */
	int64_t down_s;         /* how long the links stay down */
};

/* Append the flaps of fl, for the nodes and flaky nodes (nnodes entries,
 * from fw_failure_generate) and horizon of m, to the sorted list *v of *n
 * entries (realloc'd; the caller frees), and sort it again.  FW_OK,
 * FW_EINVAL (rate < 0, down_s < 1) or FW_ENOMEM (*v unchanged). */
int fw_failure_add_flaps(const struct fw_failure_model *m, const struct fw_flap_model *fl, int32_t nnodes,
			 const bool *flaky, struct fw_sim_failure **v, size_t *n);

struct fw_row_id {
	const char *id;                 /* a trace job id */
	int32_t row;
};

struct fw_health_tracker {
	/* set by the caller */
	bool aware;                     /* write health into the replay */
	bool no_agent;                  /* faults reach the model only as job
					 * failures (see below) */
	struct fw_health_config cfg;
	int64_t checkpoint_s;           /* on_evict keeps whole checkpoints */
	int64_t restart_s;              /* cost of a restart after a failure */
	const bool *flaky;              /* per node, or NULL */
	const struct fw_trace *trace;   /* rows: for the per-row tallies */
	const struct fw_sim_failure *v; /* the same list the replay gets */
	size_t n;
	/* state (fw_health_tracker_init) */
	size_t next;                    /* failures folded so far */
	int64_t *repair_at;             /* per node: pending repair, INT64_MIN */
	struct fw_health_rec *rec;      /* per node */
	int32_t nnodes;
	/* GPU failures: records for the GPUs of nodes that had one
	 * (gpu_rec[node * 32 + g], gpu_seen[node]) and their pending repairs */
	struct fw_health_rec *gpu_rec;
	bool *gpu_seen;
	struct fw_gpu_repair { int64_t at; int32_t node, gpu; } *gpu_repairs;
	size_t ngpu_repairs, gpu_repairs_cap;
	struct fw_row_id *row_sorted;   /* trace rows sorted by id (bsearch) */
	/* tallies per trace row */
	double *lost_s;                 /* seconds of work lost, all evictions */
	double *lost_fail_s;            /* ... of which to node failures */
	double *lost_flaky_s;           /* ... of which to flaky nodes' */
	int32_t *fail_hits;             /* evictions by node failures */
	int64_t suspect_node_ticks;     /* sum over ticks of suspect nodes */
	int64_t lemon_node_ticks;       /* ... of lemons */
	int64_t ticks;
};

int fw_health_tracker_init(struct fw_health_tracker *t, int32_t nnodes);
void fw_health_tracker_free(struct fw_health_tracker *t);
/* The hooks for fw_sim_opts.hooks (ctx = the tracker), and for
 * fw_sim_opts.next_wake: the earliest probation end of an aware run. */
void fw_health_tracker_hooks(struct fw_health_tracker *t, struct fw_sim_hooks *h);
int64_t fw_health_tracker_next_wake(void *ctx);

#endif
