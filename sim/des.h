/*
 * des.h — `fairway sim`: a discrete-event replay of an ITP trace through
 * the real engine.
 *
 * The simulator owns a virtual cluster (N nodes x G GPUs, optionally
 * grouped into racks) and a struct fw_snapshot that mirrors it: queues
 * from the team mapping (teams.h), the jobs that have arrived and not
 * finished, and the running jobs' task allocations.  Scheduling is done
 * only by fw_cycle_run() with a registered policy; every plan is checked
 * with fw_plan_check() (a violation stops the run with FW_EINVARIANT).
 * There is no second implementation of scheduling logic here.
 *
 * Events, in time order: arrivals (trace submission_time), completions
 * (start + remaining work), node failures and repairs (o->failures),
 * run-time limits (start + the job's limit, for a running job that would
 * otherwise outlive it: it wakes a cycle, which ends the job), budgets
 * (o->gpu_hour_budget: when the decayed usage of a queue held over its
 * budget, with jobs waiting, falls below it under its current allocation;
 * it wakes a cycle at the first tick past that, so a held job starts
 * there) and
 * scheduling ticks at multiples of tick_s.  At a tick T: every completion,
 * repair and failure with time <= T in time order (ties: completion,
 * repair, failure), then every arrival with submit <= T, then the on_tick
 * hook, then at most one cycle with now = T; a plan's evictions, then its
 * starts, take effect at T and a job then runs for its remaining work
 * (its trace duration unless an eviction kept progress).  An evicted job
 * returns to the pending set with its original submit time and snapshot
 * position (docs/sim.md, "Evictions and node failures"), except one the
 * plan ends by its run-time limit (reason TIME_LIMIT: the smaller of
 * o->max_runtime_s and the trace job's own max_runtime, fw_job_limit):
 * that job ends at T, as Slurm's TIMEOUT, with the rest of its work cut
 * (fw_sim_result.cut).  Which ticks run a cycle
 * (enum fw_sim_tick_rule):
 *   EVERY  (default) every tick at which some waiting job could
 *          physically fit (a node with n free GPUs; for a gang, floor(n/G)
 *          free nodes and n free GPUs).  For policies whose plan cannot
 *          change with the clock alone (reserve_depth 0, no job_score
 *          ahead of a strict line) ticks without an arrival or completion
 *          are skipped too.  With a budget, so are ticks at which only
 *          jobs held over their queue's budget could fit (note_quiet()
 *          in des.c), until an event or a queue's budget crossing.  The
 *          skips leave the log equal to ALL's (argued at clock_free()
 *          and note_quiet() in des.c; tested for every policy).
 *   CHANGE only after an arrival, a completion or a held queue's fall
 *          below its budget (faster; differs from EVERY for policies
 *          with reservations or time-based scores).
 *   ALL    every tick while a job waits (the reference; slow).
 *
 * Gang shaping: a job of n <= G GPUs is one task of n GPUs on one node; a
 * job of n > G GPUs is a gang of floor(n/G) tasks of G GPUs plus, when G
 * does not divide n, one task of n mod G GPUs, all started together
 * (min_member = all).  With racks, gangs prefer one rack (best effort).
 * expected_runtime = duration; tasks ask no CPU or memory.
 *
 * Other traces: fw_sim_run_trace() replays the format-neutral model of
 * trace.h (generic CSV/JSONL, openb pods, sacct conversions; ITP rows
 * shaped as above) on o->fleet (fleet.h: YAML, openb nodes, topo.csv) or
 * the generated cluster.  Jobs keep their own shapes, CPU, memory, model,
 * priority, expected runtime, run-time limit and topology constraints;
 * queues follow fw_trace_queues() (docs/trace-format.md), or with
 * o->config the config's queue tree (docs/sim.md, "Replaying your own
 * config").
 *
 * Decayed usage: the simulator keeps each queue's usage in GPU-seconds,
 * integrating its allocation exactly under the snapshot's half-life
 * (o->usage_half_life_s, `--usage-half-life`) whenever the allocation
 * changes, as a real adapter would.
 *
 * Decision log: one JSON line per start, in decision order:
 *   {"t":3840,"policy":"fairway","job":"d36e...","queue":"vc-6214e9","gpus":1,"nodes":["n003"]}
 */
#ifndef FAIRWAY_SIM_DES_H
#define FAIRWAY_SIM_DES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fairway/err.h"
#include "fairway/snapshot.h"
#include "itp.h"
#include "teams.h"

enum fw_sim_tick_rule {
	FW_SIM_EVERY_TICK = 0, /* default: every tick at which a job could fit */
	FW_SIM_ON_CHANGE = 1,  /* ... and only after an arrival or completion */
	FW_SIM_ALL_TICKS = 2,  /* literally every tick while jobs wait (tests) */
};

struct fw_snapshot;
struct fw_plan;

/* An observer of the replay (sim/metrics.c records fair shares and draws
 * the progress bar with it): on_plan runs after every checked plan has
 * been applied; s->now is the plan's time, started the jobs started so
 * far (each once, however often restarted).  It must not change the snapshot. */
struct fw_sim;

struct fw_sim_hooks {
	void (*on_plan)(void *ctx, const struct fw_snapshot *s, const struct fw_plan *p,
			int64_t started);
	void *ctx;
	/* Optional.  A running job is evicted (an EVICT decision or a node
	 * failure) at `now` after running ran_s seconds in this run: return
	 * the seconds of this run's progress it keeps (at most ran_s; NULL =
	 * 0, restart from scratch; below 0 when the restart itself costs
	 * work, as the start-up after a failure does).  Its remaining work
	 * shrinks by that much (grows, when below 0).  s still shows the job running; it must not change s. */
	int64_t (*on_evict)(void *ctx, const struct fw_snapshot *s, int32_t job, int64_t now,
			    int64_t ran_s);
	/* Optional.  At every tick the loop visits, after that tick's events
	 * and before its cycle (s->now is the tick); it may call
	 * fw_sim_apply_plan(sim, ...).  A non-zero return stops the run. */
	int (*on_tick)(void *ctx, struct fw_sim *sim, const struct fw_snapshot *s);
};

/* One hardware failure: at `at`, node `node` (a snapshot node index)
 * fails, or with gpus != 0 only those GPUs of it (bit g = GPU g), for
 * repair_s seconds.  flap: an NVLink flap (failure.h), replayed the same
 * way; only the health model reads it differently. */
struct fw_sim_failure {
	int64_t at;
	int32_t node;
	int64_t repair_s;
	uint32_t gpus;           /* 0 = the whole node */
	bool flap;
};

/* A failure source, merged into the event queue.  next() returns 1 and
 * fills *f with the source's next failure, or 0 when there are no more.
 * `after` is the time of the previous failure the run received (-1 on a
 * run's first call: a source restarts there); f->at must be >= after and
 * >= 0, f->node a snapshot node index, f->repair_s >= 0, f->gpus within
 * the node's GPUs.
 *   Whole node: every job with a task on the node is evicted (on_evict
 *   charges the lost work) and the node is unschedulable until
 *   at + repair_s; its repair also ends any GPU failure on it.
 *   GPUs: every job with a task on one of them is evicted; the node stays
 *   in service with those GPUs in its bad_gpu_mask (no placement uses
 *   them) until at + repair_s, and the jobs on its other GPUs run on
 *   (several GPU failures of one node end together, at the latest
 *   repair). */
struct fw_sim_failures {
	int (*next)(void *ctx, int64_t after, struct fw_sim_failure *f);
	void *ctx;
};

/* The scripted source (tests): a list sorted by `at`, replayed in order.
 *   struct fw_sim_scripted sc = { list, n, 0 };
 *   struct fw_sim_failures f = { fw_sim_scripted_next, &sc }; */
struct fw_sim_scripted {
	const struct fw_sim_failure *v;
	size_t n, next;
};

int fw_sim_scripted_next(void *ctx, int64_t after, struct fw_sim_failure *f);

/* The checkpoint rule `fairway sim run` uses for on_evict (--checkpoint,
 * default FW_SIM_CHECKPOINT_S): a run keeps whole checkpoints,
 * floor(ran_s / interval_s) * interval_s; interval_s <= 0 keeps nothing
 * (restart from scratch). */
#define FW_SIM_CHECKPOINT_S 1800
int64_t fw_sim_checkpoint_kept(int64_t ran_s, int64_t interval_s);

/* The replay's nodes, for on_tick hooks that set node health (health.h:
 * health, bad_gpu_mask, suspect_gpu_mask); nothing else may change.  The
 * failure model and its health tracker (sim/failure.h) use it.  Such a
 * run should keep the EVERY tick rule: a change of health alone does not
 * mark the replay dirty. */
struct fw_node *fw_sim_nodes(struct fw_sim *sim, int32_t *nnodes);

/* Apply a plan to the running replay at s->now, as after a cycle: its
 * EVICT decisions first (each job must be running), then its STARTs.
 * For on_tick hooks; returns FW_OK or an error (diag set). */
int fw_sim_apply_plan(struct fw_sim *sim, const struct fw_plan *p);

#define FW_SIM_MODEL_LIMITS 8

struct fw_sim_opts {
	const char *policy;      /* registry name: "fairway", "fifo", ... */
	const char *label;       /* the name the result and the start log
				  * carry (a variant such as
				  * "fairway:starve-after=0"); NULL = policy */
	int32_t nodes;           /* >= 1 */
	int32_t gpus_per_node;   /* 1..FW_MAX_GPUS_PER_NODE */
	int32_t nodes_per_rack;  /* 0 = no topology */
	int64_t tick_s;          /* >= 1 */
	enum fw_sim_tick_rule tick_rule;
	bool validate_each;      /* fw_snapshot_validate before each cycle */
	const struct fw_sim_hooks *hooks; /* optional observer, NULL = none */
	const struct fw_sim_failures *failures; /* optional, NULL = none */
	/* fw_sim_run_trace only (sim/fleet.h, sim/trace.h): */
	const struct fw_snapshot *fleet; /* nodes + topology; NULL = generate
					  * nodes x gpus_per_node (+ racks) */
	bool force_teams;        /* every job to its team, ignoring queue names */
	/* A site's config (sim/fleet.h fw_fleet_load_config; `--config`), or
	 * NULL.  Given, it is the replay's base instead of fleet and the
	 * teams: its nodes and topology, its queue tree with every per-queue
	 * setting and its model tables, and its scheduler block, over which
	 * the scheduler fields below are written as they are without one
	 * (the caller copies the config's values into them first to keep
	 * them); each trace job goes to the leaf queue its queue column names
	 * (fw_trace_config_queue).  The per-queue options (min_runtime_s,
	 * max_runtime_s, gpu_hour_budget, model_limits, model_deserved) must
	 * then be unset: each queue has its own.  fleet must be NULL. */
	const struct fw_snapshot *config;
	/* Optional.  While jobs wait, the next time an on_tick hook's own
	 * state changes what the engine sees (e.g. a node's probation ends,
	 * sim/failure.h), or INT64_MAX; called with hooks->ctx.  The replay
	 * wakes then, as for an event, instead of stopping as stuck. */
	int64_t (*next_wake)(void *ctx);
	bool preemptible;        /* every job may be evicted (reclaim, preemption) */
	int64_t min_runtime_s;   /* each team queue's protection window
				  * (fw_queue.min_runtime_s); 0 = none */
	int64_t max_runtime_s;   /* each queue's run-time limit
				  * (fw_queue.max_runtime_s): a running job
				  * that has run it is ended at the next
				  * tick, not requeued; 0 = none */
	double gpu_hour_budget;  /* each queue's GPU-hour budget
				  * (fw_queue.gpu_hour_budget; the replay's
				  * queues are all top-level leaves): while a
				  * queue's decayed usage is at least this
				  * many GPU-hours, none of its jobs starts
				  * (reason OVER_BUDGET); 0 = none, at most
				  * FW_BUDGET_MAX_GPU_H */
	bool budget_safe;        /* fw_sched_config.budget_safe: with a
				  * budget, a job starts only if its whole
				  * run (GPUs x its expected runtime, or its
				  * limit) fits what is left (reason
				  * BUDGET_SHORT) */
	double usage_half_life_s; /* fw_sched_config.usage_half_life_s: the
				   * decay of queue usage; 0 = the engine's
				   * default (7 days) */
	int32_t lemon_gang_gpus; /* fw_sched_config.lemon_gang_gpus; 0 = its
				  * default */
	int64_t starve_after_s;  /* fw_sched_config.starve_after_s: 0 = each
				  * policy's own, > 0 this age, < 0 off */
	bool backfill_conservative; /* fw_sched_config.backfill_conservative */
	int32_t reserve_depth;   /* fw_sched_config.reserve_depth: 0 = each
				  * policy's own, > 0 this many, < 0 none */
	int32_t estimate_depth;  /* fw_sched_config.estimate_depth: 0 = the
				  * engine's default, > 0 this many, < 0
				  * none */
	int64_t xfactor_cap_s;   /* fw_sched_config.xfactor_cap_s: 0 = each
				  * policy's own, > 0 this cap, < 0 off */
	bool user_fair_share;    /* fw_sched_config.user_fair_share */
	int64_t checkpoint_grace_s; /* fw_sched_config.checkpoint_grace_s: 0
				     * off, > 0 evictions wait this long at
				     * most for the victims' checkpoints */
	/* GPU model limits (snapshot.model_limits): each queue may hold at
	 * most pct % of its deserved GPUs of each model listed */
	int32_t nmodel_limits;
	struct fw_sim_model_limit {
		char model[FW_NAME_MAX];
		double pct;      /* 0 .. 10000 */
	} model_limits[FW_SIM_MODEL_LIMITS];
	/* deserved GPUs of a model (snapshot.model_deserved): each queue
	 * deserves pct % of its deserved GPUs as GPUs of each model listed
	 * (at most 100 % in all) */
	int32_t nmodel_deserved;
	struct fw_sim_model_limit model_deserved[FW_SIM_MODEL_LIMITS];
	bool model_deserved_off; /* the variant model-deserved=off: the
				  * entries are measured (model_short_gpu_s)
				  * but not given to the engine */
	int64_t checkpoint_s;    /* every job's fw_job.checkpoint_s (what the
				  * engine's victim choice reads); 0 = none */
	/* Slices (snapshot.h "Slices"): every gang of a multiple of
	 * slice_tasks tasks, more than that, in slices of slice_tasks, each
	 * inside one domain of slice_level (a level of the fleet's topology,
	 * or "node"); 0 = none.  The run counts those gangs' starts and the
	 * ones with a slice's worth of tasks across two such domains
	 * (fw_sim_result.slice_*), with slices_off too: then they are placed
	 * as any gang, to compare. */
	int32_t slice_tasks;
	char slice_level[FW_NAME_MAX];
	bool slices_off;
};

void fw_sim_opts_default(struct fw_sim_opts *o); /* fairway, 13x8, 60 s */

#define FW_SIM_NO_ESTIMATE (-2)

/* One run of a job: [start, end), end = its completion or eviction time
 * (-1: still running when the replay stopped). */
struct fw_sim_span {
	int32_t row;
	int64_t start, end;
	int32_t gpus;            /* GPUs the run held (its START's tasks; 0 =
				  * the job's trace GPUs) */
	int64_t milli;           /* milli-GPUs it held: each GPU's gpu_milli
				  * (a fractional job's share, 1000 for a
				  * whole GPU); 0 = gpus x 1000.  Every
				  * GPU-hour figure is milli / 1000 x time */
};

#define FW_SIM_LABEL_MAX 64 /* a policy's label, with its NUL */

struct fw_sim_result {
	char policy[FW_SIM_LABEL_MAX]; /* the label (fw_sim_opts.label or .policy) */
	size_t njobs;            /* trace rows */
	int64_t *start;          /* per row: first start time, -1 = never started */
	int64_t *end;            /* per row: completion time, -1 = did not finish */
	int32_t *evicted;        /* per row: times evicted (failures included) */
	double *lost;            /* per row: GPU-seconds of work its evictions
				  * threw away (lost_gpu_s, by job) */
	int64_t *cut;            /* per row: seconds of its work a run-time
				  * limit cut: > 0 = ended by its limit at
				  * end[row] (not finished, not requeued),
				  * 0 = not */
	int32_t *queue;          /* per row: queue (team) index */
	int32_t *gpus;           /* per row: GPUs of its latest run (an elastic
				  * job started with fewer tasks than it has
				  * holds fewer); the trace's GPUs until it
				  * starts */
	int64_t *milli;          /* per row: milli-GPUs of its latest run (a
				  * fractional GPU counts its gpu_milli), the
				  * trace's until it starts */
	int64_t *estimate;       /* per row: expected_start of its first pending
				  * entry (the first plan after its arrival that
				  * left it waiting, before its first start: a
				  * plan after an eviction does not count);
				  * FW_TIME_UNKNOWN (-1) if that estimate was
				  * unknown, FW_SIM_NO_ESTIMATE (-2) if no plan
				  * left it waiting before it first started */
	struct fw_sim_span *runs; /* every run of every job, in start order */
	size_t nruns;
	int nqueues;             /* queues of the run: teams, then trace names */
	int nteam;               /* of which the first nteam are team queues */
	char qname[FW_TEAMS_MAX][64];
	int32_t qparent[FW_TEAMS_MAX]; /* parent queue index, -1 top-level */
	int64_t qdeserved_milli[FW_TEAMS_MAX];
	char *log;               /* decision log, JSONL */
	size_t log_len;
	int64_t cycles, decisions, never_started;
	int64_t started;         /* jobs started at least once; decisions
				  * counts every start, restarts included */
	int64_t evictions;       /* all evictions: EVICT decisions and failures */
	double lost_gpu_s;       /* GPU-seconds of work evictions threw away */
	int64_t timed_out;       /* jobs ended by their run-time limit (not
				  * in evictions) */
	double timed_out_gpu_s;  /* GPU-seconds their ended runs held (each
				  * run at least the limit) */
	double cut_gpu_s;        /* GPU-seconds of work the limit cut: each
				  * one's GPUs x cut[row] */
	int64_t max_runtime_s;   /* the queues' limit it ran with
				  * (o->max_runtime_s); 0 = none */
	int64_t job_limits;      /* trace jobs with a limit of their own
				  * (fw_trace_job.max_runtime > 0) */
	double gpu_hour_budget;  /* each queue's budget it ran with
				  * (o->gpu_hour_budget); 0 = none */
	int64_t over_budget_jobs; /* distinct jobs some plan left pending
				   * with reason OVER_BUDGET, or BUDGET_SHORT
				   * under budget_safe (counted only with a
				   * budget) */
	int64_t qover_budget[FW_TEAMS_MAX]; /* of them, per queue (each job in
					     * its own, a leaf under --config) */
	bool budget_safe;        /* o->budget_safe it ran with */
	double usage_half_life_s; /* the half-life queue usage decayed with
				   * (o->usage_half_life_s, or the engine's
				   * default when 0) */
	int64_t ckpt_waits;      /* pending entries of reason checkpoint_wait,
				  * over every plan (checkpoint_grace_s) */
	double ckpt_wait_s;      /* job-seconds spent in them: each entry
				  * until the next cycle */
	double model_short_gpu_s; /* with model_deserved: GPU-seconds by which
				   * queues with a job naming a model waiting
				   * held less of it than they deserve (after
				   * each plan, until the next) */
	bool model_deserved_measured; /* ... measured (--model-deserved given) */
	int64_t slice_starts;    /* starts of gangs slice_tasks applies to */
	int64_t slice_split;     /* ... with a run of slice_tasks tasks (a
				  * slice's worth) across two domains of
				  * slice_level */
	int64_t failures;        /* node failures applied */
	int64_t failure_hits;    /* jobs evicted by node failures */
	double wall_s;           /* replay time, wall seconds (monotonic clock) */
	double engine_s;         /* of which in fw_cycle_run */
	double check_s;          /* of which in fw_plan_check */
};

/* Replay a trace (trace.h) on o->fleet or the generated cluster; queues
 * as fw_trace_queues() says.  fw_sim_run() is this on the ITP rows shaped
 * for o->gpus_per_node.  *r is the caller's to free with
 * fw_sim_result_free(), whatever the return. */
struct fw_trace;
int fw_sim_run_trace(const struct fw_trace *t, const struct fw_teams *teams,
		     const struct fw_sim_opts *o, struct fw_sim_result *r,
		     struct fw_diag *d);
int fw_sim_run(const struct fw_itp_trace *t, const struct fw_teams *teams,
	       const struct fw_sim_opts *o, struct fw_sim_result *r,
	       struct fw_diag *d);
void fw_sim_result_free(struct fw_sim_result *r);

/* ---- metrics ------------------------------------------------------------ */

enum { FW_SIM_B1, FW_SIM_B2_8, FW_SIM_B9_32, FW_SIM_B33, FW_SIM_B9, FW_SIM_BALL,
       FW_SIM_NBUCKETS };

/* Times in seconds; -1 when there is no job to measure. */
struct fw_sim_stats {
	int64_t jobs, started;
	int64_t tts_p50, tts_p95, tts_p99; /* time to start, nearest rank */
	double jct_mean;
	int64_t jct_p95;
	double gpu_s;                     /* GPU-seconds of started jobs */
};

struct fw_sim_metrics {
	double occupancy;        /* GPU-s used / (GPUs * makespan_s) */
	int64_t first_arrival, makespan_s;
	struct fw_sim_stats bucket[FW_SIM_NBUCKETS];
	struct fw_sim_stats queue[FW_TEAMS_MAX];
	int nqueues;
};

const char *fw_sim_bucket_name(int b); /* "1", "2-8", "9-32", "33+", "9+", "all" */
/* Does a job of g GPUs belong to size bucket b? */
bool fw_sim_in_bucket(int b, int32_t g);
int fw_sim_metrics(const struct fw_itp_trace *t, const struct fw_sim_opts *o,
		   const struct fw_sim_result *r, int nqueues,
		   struct fw_sim_metrics *m);

/* `fairway-sim run ...`; argv[0] is the program name.  Returns the exit
 * status: 0 ok, 1 runtime/input error, 2 usage error. */
int fw_sim_cli(int argc, char **argv);

#endif
