/*
 * llmfleet.h — the synthetic LLM-fleet workload and the health experiment
 * (docs/results-health.md).
 *
 * Workload (fw_llmfleet_generate), from a seed and struct fw_llmfleet:
 *   fleet      512 nodes x 8 GPUs, no topology levels;
 *   span       30 days of arrivals (Poisson), offered load 85% of the
 *              fleet's GPU-time over the span;
 *   pretrain   2% of jobs; 256 / 512 / 1,024 GPUs (weights 50/30/20%);
 *              duration log-normal, median 3 days, sigma 0.5, clamped to
 *              [1, 10] days: most of the GPU time (measured per trace and
 *              printed: about 90%);
 *   finetune   28%; 8 / 16 / 32 / 64 GPUs (40/30/20/10%); median 6 h,
 *              sigma 0.8, [1, 48] h;
 *   eval       70%; 1 / 2 / 4 / 8 GPUs (40/20/20/20%); median 20 min,
 *              sigma 0.7, [2 min, 3 h].
 * Jobs are gangs of 8-GPU tasks (fewer than 8 GPUs: one task), name their
 * queue (pretrain, finetune, eval: shares by GPU-hours demand, trace.h),
 * announce their true duration, are not preemptible.  Deterministic:
 * splitmix64 from the seed, Box-Muller for normals.
 *
 * Experiment (fw_health_experiment): for each seed, one trace and one
 * failure list (failure.h: 6.50 failures per 1,000 node-days, 5% of nodes
 * flaky at 10x, 4 h repair, drawn over the span plus 15 days), replayed
 * twice with the fairway policy and checkpoints every 30 minutes:
 * health-blind (every node HEALTHY; a failed node is only out while it is
 * being repaired) and health-aware (the tracker's records in the
 * snapshot: repaired nodes on probation, flapping nodes held suspect, and
 * gangs of 16+ GPUs kept off suspect nodes).  With fw_health_run.silent
 * set, the health-blind replay gets the failures as a Ready-only
 * scheduler lives them (failure.h, fw_failure_blind_view): a share of them
 * leave the node Ready and kill every job started there until noticed.
 *
 * Metrics per replay (struct fw_health_metrics):
 *   ettr       per job that started: productive time / wall time, with
 *              productive = the time its runs ran minus the work
 *              evictions threw away (back to the last checkpoint) and wall
 *              = from its first start to its completion (or the end of the
 *              replay); mean per size bucket (>= 256, 9-255, <= 8 GPUs);
 *   lost_gpu_h GPU-hours of work lost to node failures;
 *   fail_per_job  evictions by failures per started job, per bucket;
 *   occupancy  GPU-seconds of runs inside the arrival window / (GPUs x
 *              window): the same window for both variants;
 *   jct_mean   mean completion - submit of the jobs that finished.
 */
#ifndef FAIRWAY_SIM_LLMFLEET_H
#define FAIRWAY_SIM_LLMFLEET_H

#include <stdint.h>
#include <stdio.h>

#include "failure.h"
#include "trace.h"

struct fw_llmfleet {
	int32_t nodes, gpus_per_node;
	int64_t span_s;
	double load;
	uint64_t seed;
};

void fw_llmfleet_default(struct fw_llmfleet *f);
int fw_llmfleet_generate(const struct fw_llmfleet *f, struct fw_trace *out);

enum { FW_HB_BIG, FW_HB_MID, FW_HB_SMALL, FW_HB_ALL, FW_HB_COUNT };

struct fw_health_metrics {
	double ettr[FW_HB_COUNT];
	int64_t jobs[FW_HB_COUNT];      /* started */
	double fail_per_job[FW_HB_COUNT];
	double lost_gpu_h;              /* to failures */
	double lost_flaky_gpu_h;        /* ... of which to flaky nodes' */
	double lost_all_gpu_h;          /* all evictions */
	double occupancy;
	double jct_mean;
	int64_t finished, never_started, failures, failure_hits;
	double suspect_nodes_mean;      /* mean suspect nodes per tick */
	double lemon_nodes_mean;        /* mean lemons per tick */
	double wall_s;
};

/* How one replay treats health. */
struct fw_health_run {
	bool aware;                     /* write health into the replay */
	struct fw_health_config cfg;    /* the health model */
	int64_t restart_s;              /* cost of each restart after a failure */
	const bool *flaky;              /* per node (for lost_flaky_gpu_h), or NULL */
	int32_t lemon_gang_gpus;        /* fw_sched_config's; 0 = its default */
	struct fw_silent_model silent;  /* blind runs: faults that leave the node
					 * Ready (failure.h); fraction 0 = none */
	bool no_agent;                  /* aware runs: no XID reports, so the
					 * silent faults too, learnt only from
					 * job failures (failure.h) */
	struct fw_gpu_fault_model gpu;  /* failures that strike one GPU
					 * (failure.h): aware runs with the
					 * agent exclude the GPU, the others
					 * lose the node; fraction 0 = none */
};

/* One replay of trace t on nodes x gpus with the failures (sorted; those
 * before time 0 are the fleet's history: the tracker folds them, the
 * replay sees what is still under repair at 0); metrics over the window
 * [0, window_s). */
int fw_health_replay(const struct fw_trace *t, int32_t nodes, int32_t gpus, int64_t window_s,
		     const struct fw_sim_failure *fails, size_t nfails,
		     const struct fw_health_run *run, struct fw_health_metrics *m, struct fw_diag *d);

/* `fairway-health-sim`: argv[0] is the program name; 0 ok, 1 error, 2 usage. */
int fw_health_sim_cli(int argc, char **argv);

#endif
