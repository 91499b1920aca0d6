/*
 * metrics.h — what a replay measured, beyond des.h's waiting-time stats:
 * occupancy, GPUs idle while jobs wait, fairness, goodput, and the time
 * series the HTML report draws (report.h).  Schema and exact definitions:
 * docs/metrics.md.
 *
 * Design.  Two sources, no scheduling logic:
 *   1. the replay's outcome per job (submit, duration, start, GPUs, queue,
 *      its runs when it was evicted, its first start-time estimate)
 *      — occupancy, idle-while-waiting and the occupancy series are exact
 *      integrals of step functions swept from these events;
 *   2. every checked plan, through the simulator's hook (fw_met_on_plan):
 *      each leaf queue's fair share and allocation as the engine computed
 *      them (plan->queues[q].fair / .allocated).  A plan's values hold
 *      until the next plan; fairness and the share series integrate that
 *      step function.
 * A struct fw_met_run collects one struct fw_met_policy per replayed
 * policy, for the JSON fields (added to des.c's per-policy object), the
 * CSV file and the report.  Everything is heap-owned by the run and freed
 * by fw_met_run_free; no globals.
 */
#ifndef FAIRWAY_SIM_METRICS_H
#define FAIRWAY_SIM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "des.h"
#include "fleet.h"
#include "progress.h"

struct json_t;
struct fw_plan;
struct fw_snapshot;

#define FW_MET_BINS 400      /* points per time series */
#define FW_MET_POLICIES 8
#define FW_MET_QNAME 64
#define FW_MET_NWIN 4        /* windowed fairness: 1 h, 6 h, 1 d, 7 d */
extern const int64_t fw_met_jain_window_s[FW_MET_NWIN];
extern const char *const fw_met_jain_window_name[FW_MET_NWIN];

/* One trace row as the metrics see it (start -1: never started).  The
 * fields after queue may be left zero: no evictions, no estimate, and one
 * run [start, start + duration), finished.  A job with waiting set was
 * evicted and never restarted: the metrics count it as not started (time
 * to start, estimates, its queue's GPU-hours; des.c leaves it out of JCT)
 * and it waits from its last eviction to the end of the window. */
struct fw_met_job {
	int64_t submit, duration, start; /* duration: the work it did (a job
					   * its run-time limit ended: its
					   * trace duration less the cut) */
	int32_t gpus, queue;             /* gpus: asked (size buckets) */
	int32_t evicted;                 /* times evicted */
	bool estimated;                  /* estimate holds a known expected start */
	int64_t estimate;                /* first pending entry's expected_start */
	const struct fw_sim_span *runs;  /* its runs in time order (des.h), or NULL */
	int32_t nruns;
	int32_t held;                    /* GPUs its runs hold (a span's own
					  * when it says); 0 = gpus.  Fewer
					  * than gpus: an elastic job started
					  * with fewer tasks than it has */
	bool waiting;                    /* evicted, not restarted: waiting
					  * when the replay ended */
	int64_t milli;                   /* milli-GPUs its runs hold (a span's
					  * own when it says): a fractional
					  * GPU counts its gpu_milli; 0 =
					  * 1000 x held.  GPU-seconds are
					  * milli-GPU-seconds / 1000 */
	double lost_gpu_s;               /* the work its evictions threw away */
	bool unfit;                      /* it can never start on the fleet
					  * (sim/trace.h fw_trace_unfit_mark):
					  * it never counts as waiting */
};

/* Start-time estimate accuracy (docs/metrics.md): over started jobs with a
 * known estimate, err = |estimate - start|; "big" = 9+ GPUs that waited
 * (start - submit) at least FW_MET_BIG_WAIT_S.  Medians are nearest-rank;
 * -1 when there is no such job. */
#define FW_MET_BIG_WAIT_S 3600
struct fw_met_est {
	int64_t n, err_p50_s;
	int64_t big_n, big_err_p50_s;
	double big_ratio_p50;            /* median of err / wait over big jobs */
};
int fw_met_estimates(const struct fw_met_job *j, size_t n, struct fw_met_est *e);

/* Per-plan samples from the simulator's hook. */
struct fw_met_rec {
	int nq;                          /* snapshot queues (set by the first plan) */
	char (*qname)[FW_MET_QNAME];     /* [nq] */
	double *deserved;                /* [nq] GPUs */
	bool *leaf;                      /* [nq] */
	int32_t *parent;                 /* [nq] parent queue, -1 at the top */
	int64_t *t;                      /* [n] plan times */
	float *fair, *alloc;             /* [n * nq] GPUs */
	size_t n, cap;
	bool oom;
	int64_t checkpoint_s;            /* for fw_met_on_evict */
	struct fw_progress *bar;         /* drawn from the hook when set */
};

struct fw_met_queue {
	char name[FW_MET_QNAME];
	double deserved_gpus;
	double gpu_h;                    /* GPU-hours of its started jobs */
	double occupancy;                /* gpu_h / cluster capacity GPU-hours */
	double idle_while_waiting_gpu_h; /* cluster GPUs idle while it has a job
					  * waiting; a parent queue: while a
					  * queue of its subtree has one */
	int64_t evictions;               /* of its jobs (node failures included) */
	double lost_gpu_h;               /* the work they threw away */
	double fair_gpus_mean, alloc_gpus_mean; /* plan samples, time-averaged */
	double share_ratio_mean;         /* mean allocated/fair while fair > 0; -1 never */
	int64_t max_runtime_s;           /* a config queue's own maxRuntime, 0 none */
	double gpu_hour_budget;          /* a config queue's own gpuHourBudget, 0 none */
	float alloc_series[FW_MET_BINS], fair_series[FW_MET_BINS]; /* GPUs */
};

struct fw_met_policy {
	char name[FW_SIM_LABEL_MAX];
	struct fw_sim_metrics base;      /* des.h: time to start and JCT stats */
	int64_t decisions, never_started, cycles;
	int64_t evicted_waiting;         /* jobs evicted and never restarted */
	int64_t t0, t1;                  /* window: first arrival .. end of replay */
	double capacity_gpu_h, used_gpu_h, goodput_gpu_h;
	double idle_while_waiting_gpu_h;
	double lost_gpu_h;               /* work thrown away by evictions (result's lost_gpu_s) */
	/* run-time limits (the result's): the queues' limit (0 none), trace
	 * jobs with one of their own, jobs a limit ended, GPU-hours their
	 * ended runs held and GPU-hours of their work cut */
	int64_t max_runtime_s, job_limits, timed_out;
	double timed_out_gpu_h, timed_out_cut_gpu_h;
	/* GPU-hour budgets (the result's): each queue's budget (0 none), the
	 * jobs a plan left pending over it, and the half-life usage decayed
	 * with */
	double gpu_hour_budget;
	int64_t over_budget_jobs;
	double usage_half_life_s;
	double evictions_per_job_mean;   /* over all trace jobs */
	int32_t evictions_per_job_max;
	struct fw_met_est est;           /* start-time estimate accuracy */
	double fairness_jain;            /* time-averaged; -1 when no plan had a fair share */
	/* The same index over windows of fw_met_jain_window_s[w]: per window,
	 * Jain over leaf queues of (GPU-time allocated / fair GPU-time) in it,
	 * averaged over the windows weighted by their sampled time; -1 none. */
	double fairness_jain_win[FW_MET_NWIN];
	double fairness_max_dev;         /* max over queues |share_ratio_mean - 1| */
	int fairness_max_dev_queue;      /* that queue, -1 none */
	int nbins;                       /* points in each series (0: empty window) */
	float occupancy_series[FW_MET_BINS]; /* fraction of GPUs allocated, per bin */
	int64_t *tts[FW_SIM_NBUCKETS];   /* sorted times to start per bucket */
	size_t ntts[FW_SIM_NBUCKETS];
	struct fw_met_queue *q;
	int nq;
	bool by_config;                  /* --config: the limits are per queue, the
					  * totals' max_runtime_s and gpu_hour_budget
					  * empty in the CSV */
};

struct fw_met_run {
	char trace[256];
	int32_t nodes, gpus_per_node, nodes_per_rack; /* capacity as nodes x GPUs */
	int32_t fleet_nodes;             /* the fleet's real node count */
	int32_t node_gpus_max;           /* the largest node's GPUs: a job of more
					  * spans nodes (fw_met_b9_label) */
	char shape[FW_FLEET_SHAPE_MAX];  /* fw_fleet_shape(): "13x8", or mixed sizes */
	const struct fw_snapshot *config; /* --config's snapshot (fw_sim_opts.config), or NULL */
	int64_t tick_s, capacity_gpus;   /* capacity: the usable GPUs of a fleet
					  * or config (fw_fleet_usable_gpus) */
	size_t jobs;
	struct fw_met_policy *pol[FW_MET_POLICIES];
	int npol;
	struct fw_met_rec rec;           /* the replay in progress */
	struct fw_progress bar;
	struct fw_sim_hooks hooks;
	int64_t checkpoint_s;            /* on_evict keeps whole checkpoints (0: none) */
	const bool *unfit;               /* [jobs] the trace's jobs that can never
					  * start on the fleet (fw_trace_unfit_mark;
					  * the caller's, outliving the run), or
					  * NULL: then a job asking more GPUs than
					  * capacity_gpus */
};

/* The name of the 9+ GPU bucket (FW_SIM_B9, issue 4's "multi-node jobs"
 * on 8-GPU nodes): "9+ GPUs (multi-node)" when no node has more than 8
 * GPUs, so that every such job spans nodes; else "9+ GPUs", as on 16-GPU
 * nodes a job of 9 to 16 GPUs fits one. */
const char *fw_met_b9_label(const struct fw_met_run *mr);

/* The hook (des.h struct fw_sim_hooks): ctx is a struct fw_met_rec. */
void fw_met_on_plan(void *ctx, const struct fw_snapshot *s, const struct fw_plan *p,
		    int64_t started);
/* The checkpoint on_evict hook: ctx is a struct fw_met_rec. */
int64_t fw_met_on_evict(void *ctx, const struct fw_snapshot *s, int32_t job, int64_t now,
			int64_t ran_s);
void fw_met_rec_reset(struct fw_met_rec *r);
void fw_met_rec_release(struct fw_met_rec *r);

/* Compute one policy's metrics from its jobs and plan samples. */
int fw_met_compute(const struct fw_met_job *jobs, size_t n, const struct fw_met_rec *rec,
		   int64_t capacity_gpus, struct fw_met_policy *out);
void fw_met_policy_release(struct fw_met_policy *p);

/* ---- the run, as fw_sim_cli drives it ----------------------------------- */

struct fw_met_run *fw_met_run_new(const char *trace, const struct fw_sim_opts *o,
				  size_t jobs);
void fw_met_run_free(struct fw_met_run *mr);
/* Before a replay: o->hooks records plans (and draws a bar on a TTY). */
void fw_met_begin(struct fw_met_run *mr, struct fw_sim_opts *o, const char *policy);
/* After it, success or not: erase the bar, detach the hook. */
void fw_met_end(struct fw_met_run *mr, struct fw_sim_opts *o);
/* After a successful replay: compute, keep, add fields to its JSON object
 * (may be NULL). */
int fw_met_add(struct fw_met_run *mr, const struct fw_itp_trace *t,
	       const struct fw_sim_result *r, const struct fw_sim_metrics *m,
	       struct json_t *policy_json);
/* The summary lines for the latest policy. */
void fw_met_print(const struct fw_met_run *mr, FILE *f);
/* May policy i be marked best on a metric measured over the jobs it
 * started, or up to the end of its replay, cut at its last arrival while
 * jobs still wait (time to start, JCT, makespan, evictions, start
 * estimates, occupancy, GPU-hours idle while jobs wait)?  Only if no policy of the run left fewer
 * jobs not started (never started, or evicted and never restarted):
 * leaving the hard jobs out must not look fast.  The stdout table and the
 * report both follow it (docs/metrics.md). */
bool fw_met_may_win(const struct fw_met_run *mr, int i);
/* One screen: a row per metric, a column per policy, the best marked. */
void fw_met_print_compare(const struct fw_met_run *mr, FILE *f);
/* Write the CSV (docs/metrics.md) to f; 0 or -1 (ferror). */
int fw_met_write_csv(const struct fw_met_run *mr, FILE *f);
/* --shares: the header, then one row per plan sample of rec and leaf
 * queue: policy,t,until,queue,deserved_gpus,fair_gpus,alloc_gpus (the
 * plan at t holds until the next plan, the last one until `hi`, the
 * end of the replay, the metrics' window end; a plan is cut at hi, and
 * one that would hold for no time there, made at or after hi, has no
 * rows).  FW_OK or FW_EIO. */
extern const char fw_met_shares_header[];
int fw_met_write_shares(FILE *f, const struct fw_met_rec *rec, const char *policy, int64_t hi);
/* One CSV field: as is, or quoted ("" for ") when it holds a comma, a
 * quote or a line break. */
void fw_met_csv_str(FILE *f, const char *s);

/* Percentile p (0..100, nearest rank: the ceil(p * n / 100)-th smallest,
 * computed in whole numbers; p = 0 gives the smallest) of sorted v[n];
 * -1 when n == 0. */
int64_t fw_met_pct(const int64_t *v, size_t n, int p);

#endif
