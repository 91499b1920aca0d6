/*
 * snapshot.h — the immutable input of a scheduling cycle.
 *
 * A snapshot is plain data: the topology levels, the nodes, the queue tree,
 * the jobs (pending and running, with the running jobs' task placements), the
 * scheduler's tunables and `now`.  Adapters (the YAML loader, the simulator,
 * the daemon, the Slurm connector) build one; fw_cycle_run() reads it and
 * never writes it.  Two identical snapshots give byte-identical plans.
 *
 * Single source of truth.  Node usage is NOT stored on nodes: the cycle
 * derives every GPU's, CPU's and memory's use from the running jobs' task
 * allocations (struct fw_task_alloc).  Queue allocation is derived the same
 * way.  An adapter therefore cannot hand the core a snapshot whose node
 * usage disagrees with its jobs.
 *
 * References between objects are indices into the snapshot's arrays (a job's
 * queue, a queue's parent, an allocation's node), never pointers, so a
 * snapshot can be copied with memcpy and compared with memcmp.
 *
 * Topology.  Levels are named and ordered from the largest domain to the
 * smallest, e.g. {"block", "rack", "nvlink"}; the node itself is the implicit
 * level below the last one.  Every node has one domain name per level
 * (node.path[level]).  A domain is identified by its full path prefix, so two
 * racks called "r1" in different blocks are different racks.  A job's
 * topology constraint names levels by index: required_level (never violated)
 * and preferred_level (best effort); FW_LEVEL_NONE means no constraint and
 * FW_LEVEL_NODE means "one node".
 *
 * Jobs.  A job is a gang of task groups.  Each task of a group needs `gpus`
 * GPUs with `gpu_milli` milli-GPU on each (1000 for whole GPUs; a fraction
 * < 1000 only with gpus == 1), plus CPU and memory; a group may ask that
 * no two of its tasks share a node (one_per_node), and that none of its
 * tasks shares a node with a task of the job's other groups (apart: the
 * components of a Slurm heterogeneous job, which Slurm never runs on one
 * node; checked in the test lab, docs/slurm.md).  min_member is the
 * smallest number of tasks the job may start with (0 = all tasks).
 *
 * Node filters.  A job may be restricted to some nodes (Slurm's
 * --constraint and --exclude, resolved by the adapter into the nodes that
 * qualify): an entry of job_nodes names the job and a range of node_refs,
 * the node indices it may start on, ascending.  Entries are sorted by job,
 * at most one per job; a job without one may use any node.  The table is
 * beside the jobs rather than in struct fw_job so that the record the
 * cycle sweeps keeps its size (nine cache lines) and a cluster without
 * filters pays nothing.  Placement, reservations, estimates, reclaim and
 * the plan checker all honour it (lib/filter.c indexes each distinct list
 * once per cycle); a running job is where it is.  An entry marked except
 * lists the nodes the job may NOT start on instead (a Slurm --exclude of
 * a few nodes): a job may then use any other node, the list stays short,
 * and the cycle places it through the cluster's own index, testing the
 * few nodes left out (a list of 9,999 nodes of 10,000 per distinct
 * exclude would cost that many references, and filter.c an index of them
 * per cycle).  fw_snapshot_job_may_use() answers for either kind.
 *
 * Group filters.  A task group may be restricted on its own (a Slurm
 * heterogeneous job whose components ask different partitions, --exclude,
 * --constraint or -w): an entry of group_nodes names the job, the group
 * and a range of node_refs, of either kind, sorted by job then group, at
 * most one per group.  A group's tasks go only to nodes both its job's
 * filter and its group's allow.  Such jobs are rare, so they take the
 * plain road: placement walks the cluster's own index and tests each
 * candidate node against the task's group, skipping a domain where a
 * group's list lacks its GPUs (lib/filter.c indexes the lists for that),
 * and jobs share a shape (and so the cycle's memos) only when their
 * groups name the same node_refs ranges: share lists (the _as and _like
 * forms below) so that alike jobs cost one search, not one each.  Where the cycle asks whether a job may use a node at all (reclaim's
 * and the estimates' pruning), a node some group may use counts.  The
 * plan checker tests every task of a start or reservation against its
 * group's entry.
 *
 * Slices.  A task group may ask to be placed in slices: each run of
 * `tasks` consecutive tasks of the group inside one domain of a level
 * (Kueue's podset slices).  The case is a training job whose model
 * replica spans several nodes: the tensor-parallel ranks of one replica
 * need one NVLink domain, while the replicas may spread over racks.
 * Without slices a 128-node gang on racks of 18 fills them one after
 * another, 7 x 18 + 2, and the last replica straddles two racks; with
 * slices of 16 it takes 8 x 16.  An entry of slices names the job, the
 * group, the slice size and the level, sorted by job then group, at most
 * one per group; the group's count is a multiple of the size.  Slice k
 * of a group is its tasks k x tasks .. (k + 1) x tasks - 1 in the
 * placement's order (a start's task list keeps a group's tasks in
 * order).  A job that starts with fewer than all its tasks (min_member)
 * starts whole slices of a sliced group.  Placement, reservations,
 * estimates, reclaim and the plan checker all honour them; jobs share a
 * shape (and the cycle's memos) only when their slices are alike.  Like
 * the filters, the table sits beside the jobs: the record the cycle
 * sweeps keeps its size, and a snapshot without slices pays nothing.
 *
 * Beside the queues.  Two optional tables name queues by index, so that
 * the queue record the cycle walks up the tree keeps its size:
 * model_limits (a queue's cap on the GPUs of one GPU model, for it and
 * its subtree: lib/modellimit.c), model_deserved (the GPUs of one model
 * a queue and its subtree are guaranteed: the same record, read by
 * reclaim) and user_usage (a user's decayed usage in a queue, which
 * users taking turns inside the queue count: policy.h, "Users inside a
 * queue").  Without them the cycle pays nothing.
 *
 * Ownership: fw_snapshot_new() returns an empty snapshot owning its arrays;
 * the fw_snapshot_add_*() helpers grow them (amortised doubling) and return
 * the new element's index or a negative fw_err; fw_snapshot_free() frees it
 * all and accepts NULL.  Strings are fixed-size inline buffers so that a
 * snapshot has no interior pointers except its arrays.
 */
#ifndef FAIRWAY_SNAPSHOT_H
#define FAIRWAY_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "fairway/err.h"
#include "fairway/health.h"
#include "fairway/res.h"

typedef int64_t fw_time; /* seconds; the epoch is the adapter's choice */
/* Every time and duration of a valid snapshot lies within +-FW_TIME_MAX
 * (2^61 s), so that a time plus a duration (an end) never overflows. */
#define FW_TIME_MAX ((fw_time)1 << 61)
/* fw_job's checkpoint_s and max_runtime_s are 32-bit seconds (68 years), so
 * that the job's scalars stay in one cache line (the sweep reads them for
 * every job); adapters refuse a larger value before storing it. */
#define FW_SPAN32_MAX INT32_MAX
/* fw_queue.gpu_hour_budget's bound: a billion GPU-hours. */
#define FW_BUDGET_MAX_GPU_H 1e9
/* A job that does not say whether it may be evicted (the YAML's and
 * the API's `preemptible` left out) may: as the API always took it, as a
 * Slurm job is requeued unless it says --no-requeue (the Slurm adapter's
 * fw_job.preemptible), and as KAI treats a training job.  A queue's own
 * `preemptible: false` shelters its jobs (fw_queue.nonpreemptible).  The
 * one place users read it: docs/config.md, "jobs".  fw_job_init leaves a
 * job false, for the core's own callers (the simulator's --preemptible,
 * tests' builders). */
#define FW_JOB_PREEMPTIBLE_DEFAULT true

#define FW_MAX_LEVELS 8
#define FW_MAX_GPUS_PER_NODE 16
#define FW_MAX_GROUPS 4
#define FW_MAX_TASKS (1 << 20) /* tasks of one job, all groups together */
#define FW_MAX_LABELS 8
#define FW_NAME_MAX 64
#define FW_LEVEL_NONE (-1)
#define FW_LEVEL_NODE (-2)

struct fw_topology {
	int nlevels;                            /* 0..FW_MAX_LEVELS */
	char level[FW_MAX_LEVELS][FW_NAME_MAX]; /* largest domain first */
};

struct fw_label {
	char key[FW_NAME_MAX];
	char value[FW_NAME_MAX];
};

struct fw_node {
	char name[FW_NAME_MAX];
	char gpu_model[FW_NAME_MAX];   /* "" if the node has no GPUs */
	int32_t gpu_count;             /* 0..FW_MAX_GPUS_PER_NODE */
	int64_t gpu_mem_mib;           /* memory per GPU */
	int64_t cpu_milli;             /* capacity */
	int64_t mem_mib;               /* capacity */
	bool schedulable;              /* false: cordoned, nothing new lands */
	uint32_t bad_gpu_mask;         /* GPUs that must not be used */
	enum fw_health health;         /* health.h: UNHEALTHY and DRAINING
					* nodes take nothing new (and are
					* drained); gangs of suspect_gang_gpus
					* or more avoid SUSPECT ones */
	uint32_t suspect_gpu_mask;     /* GPUs on probation: the node counts
					* as SUSPECT for big gangs */
	bool lemon;                    /* fault history (health.h): big gangs
					* take it only when they cannot start
					* elsewhere, and last */
	fw_time back_at;               /* a node that takes no work now (not
					* schedulable, or DRAINING: a
					* maintenance window, a hold) takes
					* work again from this time on, > now:
					* reservations and start-time estimates
					* count on it then; 0 = not known (never
					* back).  On a node that takes work now
					* it means something only with away_at:
					* when the node returns from leaving */
	fw_time away_at;               /* a node that takes work now leaves at
					* this time (> now: a maintenance window
					* or a reservation to come, made outside
					* the core) and takes work again at
					* back_at (0: not known, never back).
					* Work placed on it must end by away_at
					* (its planned runtime, fw_job_runtime;
					* a job with none never lands there);
					* reservations and start-time estimates
					* count on it from back_at only.
					* 0 = it does not leave.  Ignored on a
					* node that takes no work now */
	char path[FW_MAX_LEVELS][FW_NAME_MAX]; /* domain name per level */
	int nlabels;
	struct fw_label labels[FW_MAX_LABELS];
};

struct fw_queue {
	char name[FW_NAME_MAX];
	int32_t parent;                 /* index, or -1 for a top-level queue */
	int32_t priority;               /* higher tier is served first over quota */
	struct fw_res deserved;         /* guaranteed share (>= 0) */
	struct fw_res limit;            /* hard cap; FW_UNLIMITED = none */
	double over_quota_weight[FW_RES_COUNT]; /* >= 0, default 1 */
	double usage;                   /* decayed GPU-seconds as of usage_at */
	fw_time usage_at;               /* when `usage` was last decayed */
	fw_time min_runtime_s;          /* reclaim/preemption protection: a
					 * running job of this queue or of one
					 * under it is never evicted before it
					 * has run this many seconds (now -
					 * start_time); 0 = inherit the
					 * parent's, none anywhere = none
					 * (fw_queue_min_runtime) */
	fw_time default_runtime_s;      /* planning: the runtime assumed for a
					 * job that gives none (expected_runtime
					 * <= 0); 0 = inherit the parent's, and
					 * none anywhere = the job never ends in
					 * the availability profile */
	fw_time max_runtime_s;          /* run-time limit: a running job of
					 * this queue or of one under it that
					 * has run this many seconds is ended
					 * (EVICT, reason TIME_LIMIT, not
					 * requeued); the smallest set on the
					 * way to the root binds; 0 = none.
					 * Planning assumes no job runs longer
					 * (fw_job_runtime) */
	fw_time default_checkpoint_s;   /* the checkpoint interval assumed for
					 * a job that gives none (checkpoint_s
					 * 0); 0 = inherit the parent's, and
					 * none anywhere = an eviction loses the
					 * whole run */
	double gpu_hour_budget;         /* a budget on decayed usage, in
					 * GPU-hours (Slurm's GrpTRESMins): while
					 * this queue's subtree has used this
					 * much (its decayed usage at now, as fair
					 * share counts it), no job under it
					 * starts (pending reason OVER_BUDGET);
					 * running jobs run on.  0 = none; at
					 * most FW_BUDGET_MAX_GPU_H */
	bool nonpreemptible;            /* true: the running jobs of this queue
					 * and of every queue under it are never
					 * evicted by reclaim, preemption or
					 * consolidation, whatever their own
					 * preemptible flag (YAML and API
					 * `preemptible: false`); a drain still
					 * requeues them off an unhealthy node */
};

/* A cap on the GPUs of one model that a queue and every queue under it
 * may hold (YAML `gpuModelLimits`; KAI-Scheduler#1087, Kueue's flavor
 * quotas).  The rule, lib/modellimit.c: a job whose task groups name the
 * model counts their GPUs against it; a job whose groups name none runs,
 * when some model's limit would not hold the whole job, on one model
 * whose limits do (fleet order, the first that fits).  Kept beside the
 * queues (snapshot.model_limits, any order, one per queue and model), so
 * that the queue record the cycle walks keeps its size. */
#define FW_MAX_LIMITED_MODELS 64 /* GPU models in a fleet with such limits */
struct fw_model_limit {
	int32_t queue;                  /* index of the queue it caps */
	char model[FW_NAME_MAX];        /* a node gpu_model, non-empty */
	int64_t gpus;                   /* milli-GPU, >= 0 */
};

/* The GPUs of one model a queue and its subtree deserve (YAML
 * `gpuModelDeserved`; Kueue's nominal quota per flavor), in the same
 * record as a limit, kept in its own table (snapshot.model_deserved).
 * Where the queue's `deserved` says how many GPUs, these say of which
 * models: at most `deserved` GPUs in all (fw_snapshot_validate).  The
 * fair share stays over all models; what the entries add is a claim
 * and a shield in reclaim (lib/preempt.c, "Deserved GPUs of a model"):
 * a job whose GPUs all name models its line deserves more of than it
 * holds may take them back from a queue holding more of the model than
 * it deserves (reason MODEL_RECLAIMED), and the fair-share reclaim
 * never takes a queue below what it deserves of a model. */

struct fw_task_group {
	int32_t count;          /* tasks in the group, >= 1; all the job's
				 * groups together at most FW_MAX_TASKS */
	int32_t gpus;           /* GPUs per task, >= 0 */
	int32_t gpu_milli;      /* milli per GPU: 1000, or 1..999 with gpus==1 */
	bool one_per_node;      /* each task of the group on a node of its own
				 * (Slurm: a multi-node job is one task per
				 * node); false: tasks may share a node */
	bool apart;             /* no task of the group on a node that holds a
				 * task of another group of the job */
	int64_t cpu_milli;      /* per task */
	int64_t mem_mib;        /* per task */
	char gpu_model[FW_NAME_MAX]; /* "" = any model */
};

/* One running task's place: a node and the GPUs it holds there. */
struct fw_task_alloc {
	int32_t node;           /* index into snapshot.nodes */
	int16_t group;          /* task group index in the job */
	uint32_t gpu_mask;      /* bit g = GPU g of the node */
	int32_t gpu_milli;      /* milli held on each GPU in the mask */
};

enum fw_job_state { FW_JOB_PENDING = 0, FW_JOB_RUNNING = 1 };

/* Field order is for the cycle, which sweeps 100,000 of these records:
 * the name first (the loader's name index needs it at offset 0), then
 * every scalar the cycle reads, then the task groups, the user last.
 * The sweep then touches two cache lines of a one-group job instead of
 * five (docs/performance.md, eleventh session). */
struct fw_job {
	char name[FW_NAME_MAX];
	int32_t queue;          /* index into snapshot.queues (a leaf) */
	int32_t priority;       /* higher first within a queue */
	enum fw_job_state state;
	int32_t min_member;     /* 0 = every task */
	int ngroups;            /* 1..FW_MAX_GROUPS */
	int8_t required_level;  /* FW_LEVEL_NONE/NODE or a level index */
	int8_t preferred_level; /* FW_LEVEL_NONE/NODE or a level index */
	bool preemptible;       /* may be evicted to make room (reclaim,
				 * preemption, consolidation); a job that
				 * does not say is FW_JOB_PREEMPTIBLE_DEFAULT
				 * in the YAML and the API */
	bool spread;            /* place tasks on the emptiest nodes */
	fw_time submit_time;
	fw_time expected_runtime; /* seconds; 0 = unknown */
	fw_time start_time;     /* running jobs */
	int32_t checkpoint_s;   /* the job saves its progress every this many
				 * seconds of a run (at start_time + k x
				 * checkpoint_s); 0 = it does not say: its
				 * queue's default_checkpoint_s, else an
				 * eviction loses the whole run */
	int32_t max_runtime_s;  /* the job's own run-time limit, seconds;
				 * 0 = none.  Its queues' max_runtime_s
				 * bind too: the smallest wins
				 * (fw_job_limit) */
	int32_t alloc_first;    /* running jobs: range in snapshot.allocs */
	int32_t alloc_count;
	struct fw_task_group groups[FW_MAX_GROUPS];
	char user[FW_NAME_MAX];
};

/* A job that may start only on some nodes (see "Node filters" above). */
struct fw_job_nodes {
	int32_t job;            /* index into snapshot.jobs; ascending */
	int32_t first;          /* range in snapshot.node_refs */
	int32_t count;          /* >= 1 node indices, ascending, distinct */
	int32_t except;         /* 1: the range lists the nodes the job may
				 * not use (any other it may); 0: the only
				 * nodes it may use */
};

/* A task group that may start only on some nodes (see "Group filters"). */
struct fw_group_nodes {
	int32_t job;            /* index into snapshot.jobs; ascending */
	int32_t group;          /* its task group; ascending within a job */
	int32_t first;          /* range in snapshot.node_refs */
	int32_t count;          /* >= 1 node indices, ascending, distinct */
	int32_t except;         /* as in fw_job_nodes */
};

/* A task group placed in slices (see "Slices"). */
struct fw_group_slice {
	int32_t job;            /* index into snapshot.jobs; ascending */
	int32_t group;          /* its task group; ascending within a job */
	int32_t tasks;          /* tasks per slice, >= 1, dividing the
				 * group's count */
	int32_t level;          /* each slice inside one domain of this
				 * level: a level index, or FW_LEVEL_NODE
				 * (one node) */
};

/* Scheduler tunables that travel with the snapshot (so a plan is a pure
 * function of the snapshot). */
#define FW_RESERVE_DEPTH_MAX 100000 /* fw_sched_config.reserve_depth */
/* fw_sched_config.estimate_depth: the default (chosen on the benchmark
 * and the traces, docs/policies.md) and the most. */
#define FW_ESTIMATE_DEPTH_DEFAULT 256
#define FW_ESTIMATE_DEPTH_MAX 100000
/* Expansion-factor order (policy.h xfactor_cap_s): the steps' bound (they
 * stay under 700), the shortest runtime assumed (also the smallest cap
 * config.xfactor_cap_s may set), and the largest cap. */
#define FW_XFACTOR_MAX ((1 << 10) - 1)
#define FW_XFACTOR_MIN_RUNTIME 60
#define FW_XFACTOR_CAP_MAX 31536000 /* a year: the largest cap */

struct fw_sched_config {
	double usage_half_life_s;   /* decayed-usage half-life; default 7 days */
	double usage_weight;        /* beta in fairshare.h; default 1.0, 0 = off */
	int64_t max_starts;         /* per cycle; 0 = unlimited */
	bool estimate_starts;       /* expected start per waiting job; default
				     * true (false: a leaner cycle, every
				     * waiting job's estimate is "unknown") */
	int32_t suspect_gang_gpus;  /* gangs of at least this many GPUs avoid
				     * suspect nodes (health.h); default 16,
				     * <= 0 means the default */
	int32_t lemon_gang_gpus;    /* jobs of at least this many GPUs (not
				     * preemptible) take lemon nodes last,
				     * smaller ones first (health.h); default
				     * 64, <= 0 means the default */
	/* The lemon verdict (health.h), for the adapters that keep a fault
	 * history (fairway serve); the cycle itself reads only fw_node.lemon.
	 * 0 = health.h's default; a threshold < 0 turns lemons off. */
	int64_t lemon_window_s;
	int32_t lemon_threshold;
	/* The heartbeat timeout of fairway serve's health reports (health.h
	 * heartbeat_s): a node whose last report is older is not responding.
	 * 0 = off (the default).  Adapter-only, like the lemon settings. */
	int64_t heartbeat_s;
	bool backfill_conservative; /* false (default): reservations for the
				     * policy's reserve_depth blocked jobs
				     * (EASY when 1); true: for every blocked
				     * job (a node's reservations follow each
				     * other in time), within 2 * nodes + 32
				     * attempts per cycle */
	int64_t starve_after_s;     /* 0 (default): the policy's starve_after_s
				     * (policy.h); > 0: this; < 0: off */
	int64_t xfactor_cap_s;      /* 0 (default): the policy's xfactor_cap_s
				     * (policy.h); > 0: this (at least
				     * FW_XFACTOR_MIN_RUNTIME s); < 0: off,
				     * submit order inside a queue */
	int32_t reserve_depth;      /* reservations per cycle under easy
				     * backfill, for a policy that makes them
				     * (policy.h reserve_depth > 0): 0
				     * (default) the policy's; > 0 this many,
				     * at most FW_RESERVE_DEPTH_MAX; < 0 none.
				     * A policy without reservations ignores
				     * it.  Also bounds the starving gangs
				     * tried first (starve_after_s). */
	int32_t estimate_depth;     /* blocked jobs of one task without a
				     * reservation, first in try order, whose
				     * estimates count the jobs ahead (each
				     * held in the estimate walk where it is
				     * expected to start, plan.h): 0 (default)
				     * FW_ESTIMATE_DEPTH_DEFAULT; > 0 this
				     * many, at most FW_ESTIMATE_DEPTH_MAX;
				     * < 0 none (each job's estimate is its
				     * shape's alone) */
	bool drain_requeue;         /* running jobs on an UNHEALTHY node: true
				     * (default) evicts them for requeue,
				     * false lets them finish (lib/drain.c) */
	bool user_fair_share;       /* false (default): a leaf queue's jobs go
				     * by priority, expansion factor, submit
				     * time; true: among jobs of one priority
				     * its users take turns, fewest GPUs held
				     * in the queue first (policy.h, "Users
				     * inside a queue"); policies whose line
				     * spans every queue (fifo, slurm) ignore it;
				     * with user_usage entries, what each user
				     * used in the past counts too */
	int64_t checkpoint_grace_s; /* preempt at a checkpoint (lib/preempt.c):
				     * 0 (default) off; > 0: a reclaim or
				     * preemption whose every victim saves a
				     * checkpoint within this many seconds,
				     * sooner than the work it would lose
				     * now, waits for those checkpoints
				     * (reason CHECKPOINT_WAIT); at most
				     * FW_CHECKPOINT_GRACE_MAX */
	bool budget_safe;           /* GPU-hour budgets (fw_queue.
				     * gpu_hour_budget): false (default) a
				     * queue starts jobs until its usage
				     * reaches its budget; true (Slurm's
				     * AccountingStorageEnforce=safe) a job
				     * starts only if its whole run fits what
				     * the budget has left after the usage and
				     * the running jobs' remaining runs
				     * (fw_job_bound; pending reason
				     * BUDGET_SHORT) */
	bool utc_times;             /* what the snapshot's times count:
				     * false (default) virtual seconds (a
				     * simulation, fairway plan's example),
				     * written "t=125200"; true Unix time
				     * (the daemon, the Slurm adapter; the
				     * YAML loader when the file's now is a
				     * date, span.h fw_time_is_date), and
				     * the reason texts write a time as its
				     * UTC date, "2026-12-06T16:42:05Z"
				     * (span.h fw_time_format).  Set by the
				     * adapter, no YAML key; the cycle never
				     * reads it, only the texts do (and the
				     * checker's and validator's messages) */
};
#define FW_CHECKPOINT_GRACE_MAX 86400 /* a day: fw_sched_config.checkpoint_grace_s */

/* A user's decayed usage inside a leaf queue (Slurm's association of an
 * account and a user): GPU-seconds weighted by age as a queue's usage is
 * (fairshare.h), as of usage_at.  With config.user_fair_share, a user's
 * turn inside the queue counts it beside the GPUs the user holds now
 * (policy.h, "Users inside a queue").  Any order; entries of one queue
 * and user add up.  Kept beside the queues (snapshot.user_usage), as the
 * adapter that tracks it (the simulator) writes it. */
struct fw_user_usage {
	int32_t queue;                  /* index of a queue */
	char user[FW_NAME_MAX];         /* fw_job.user ("" is a user too) */
	double usage;                   /* decayed GPU-seconds, >= 0 */
	fw_time usage_at;               /* when `usage` was last decayed */
};

struct fw_snapshot {
	fw_time now;
	struct fw_sched_config config;
	struct fw_topology topology;
	struct fw_node *nodes;
	int32_t nnodes, cap_nodes;
	struct fw_queue *queues;
	int32_t nqueues, cap_queues;
	struct fw_job *jobs;
	int32_t njobs, cap_jobs;
	struct fw_task_alloc *allocs;
	int32_t nallocs, cap_allocs;
	struct fw_job_nodes *job_nodes; /* node filters, by job */
	int32_t njob_nodes, cap_job_nodes;
	struct fw_group_nodes *group_nodes; /* group filters, by job and group */
	int32_t ngroup_nodes, cap_group_nodes;
	struct fw_group_slice *slices;  /* sliced task groups, by job and group */
	int32_t nslices, cap_slices;
	int32_t *node_refs;             /* their node indices */
	int32_t nnode_refs, cap_node_refs;
	struct fw_model_limit *model_limits; /* GPU model limits of queues */
	int32_t nmodel_limits, cap_model_limits;
	struct fw_model_limit *model_deserved; /* deserved GPUs of a model */
	int32_t nmodel_deserved, cap_model_deserved;
	struct fw_user_usage *user_usage; /* users' decayed usage per queue */
	int32_t nuser_usage, cap_user_usage;
};

struct fw_snapshot *fw_snapshot_new(void);
void fw_snapshot_free(struct fw_snapshot *s);
void fw_sched_config_default(struct fw_sched_config *c);

/* Append a copy; return its index (>= 0) or FW_ENOMEM. */
int fw_snapshot_add_node(struct fw_snapshot *s, const struct fw_node *n);
int fw_snapshot_add_queue(struct fw_snapshot *s, const struct fw_queue *q);
int fw_snapshot_add_job(struct fw_snapshot *s, const struct fw_job *j);
int fw_snapshot_add_alloc(struct fw_snapshot *s, const struct fw_task_alloc *a);
int fw_snapshot_add_model_limit(struct fw_snapshot *s, const struct fw_model_limit *m);
int fw_snapshot_add_model_deserved(struct fw_snapshot *s, const struct fw_model_limit *m);
int fw_snapshot_add_user_usage(struct fw_snapshot *s, const struct fw_user_usage *u);
/* Append src's tables beside the queues (model_limits, model_deserved,
 * user_usage) to dst, whose queues are src's in the same order (an
 * adapter that copies a snapshot's queues copies these with them); FW_OK
 * or FW_ENOMEM. */
int fw_snapshot_copy_queue_tables(struct fw_snapshot *dst, const struct fw_snapshot *src);
/* Has some node with GPUs this GPU model?  And the fleet's models, each
 * once in node order, as "H100, A100" into out (truncated to n, "" when
 * none): for an error that names a model no node has. */
bool fw_snapshot_has_gpu_model(const struct fw_snapshot *s, const char *model);
void fw_snapshot_gpu_models(const struct fw_snapshot *s, char *out, size_t n);
/* The fleet's own spelling of GPU model `model`: model itself when some
 * node with GPUs has it, else the one model of those nodes that differs
 * from it only by ASCII case ("h100" -> "H100"), else NULL (none, or two
 * such that differ from each other too).  Adapters that take a model from
 * a person (the daemon's job intake) normalise it with this, so the core,
 * which matches models exactly, sees the fleet's spelling. */
const char *fw_snapshot_gpu_model_spelling(const struct fw_snapshot *s, const char *model);
/* The fleet's GPU models, each once in node order, into out: at most
 * max - 1 of them, then NULL (a "did you mean" picks from such a list,
 * tools/cliword.h fw_cli_nearest_name).  Returns how many. */
int32_t fw_snapshot_gpu_model_names(const struct fw_snapshot *s, const char **out, int32_t max);
/* t's level names, largest domain first, then "node" and NULL: the names
 * a job's requiredLevel, preferredLevel or slice may give (out holds
 * FW_MAX_LEVELS + 2). */
void fw_topology_level_names(const struct fw_topology *t, const char **out);
/* Restrict job (already added, and after every job restricted so far) to
 * the n >= 1 nodes listed, in any order, repeats allowed (they are sorted
 * and made distinct); the index of the new job_nodes entry, or FW_EINVAL
 * (job out of order, n < 1, a node out of range) or FW_ENOMEM.  Nothing is
 * added on error. */
int fw_snapshot_restrict_job(struct fw_snapshot *s, int32_t job, const int32_t *nodes, int32_t n);
/* Restrict job (as above: added, after every job restricted so far) to
 * the nodes of an earlier entry, sharing its node_refs: jobs of one
 * filter (one Slurm --constraint) cost one list, and place alike (the
 * cycle's shapes, and so its memos, go by the list).  The new entry's
 * index, or FW_EINVAL (job out of order, entry out of range) or
 * FW_ENOMEM. */
int fw_snapshot_restrict_job_as(struct fw_snapshot *s, int32_t job, int32_t entry);
/* As fw_snapshot_restrict_job, but the n >= 1 nodes listed are the ones
 * job may NOT start on (an except entry; see "Node filters"). */
int fw_snapshot_restrict_job_except(struct fw_snapshot *s, int32_t job, const int32_t *nodes, int32_t n);
/* The list of job's entry: its count (*out = the ascending indices), or
 * -1 when it has none (it may use any node).  The nodes it may start on,
 * or for an except entry the nodes it may not.  O(log entries).  The
 * _entry form gives its job_nodes index, -1 without one. */
int32_t fw_snapshot_job_nodes(const struct fw_snapshot *s, int32_t job, const int32_t **out);
int32_t fw_snapshot_job_nodes_entry(const struct fw_snapshot *s, int32_t job);
/* Job's first group_nodes entry (its groups' follow it, by group), -1
 * without one.  O(log entries). */
int32_t fw_snapshot_group_nodes_entry(const struct fw_snapshot *s, int32_t job);
/* May job start on node n (its entry of either kind)?  O(log entries +
 * log list).  Its group filters are not asked: see the _group form. */
bool fw_snapshot_job_may_use(const struct fw_snapshot *s, int32_t job, int32_t n);
/* Restrict task group `group` of job (added, with that group; the pair
 * after every pair restricted so far, by job then group) to the n >= 1
 * nodes listed (except 0), or to every node but those (except 1); the
 * nodes in any order, repeats allowed.  The index of the new group_nodes
 * entry, or FW_EINVAL (out of order, no such group, n < 1, a node out of
 * range) or FW_ENOMEM; nothing is added on error.  The _as form shares the
 * node_refs of job_nodes entry `entry` (its list and kind), the _like
 * form those of an earlier group_nodes entry: groups that share a list
 * place alike (the cycle's shapes go by the lists a job's groups name). */
int fw_snapshot_restrict_group(struct fw_snapshot *s, int32_t job, int group, const int32_t *nodes, int32_t n,
			       int32_t except);
int fw_snapshot_restrict_group_as(struct fw_snapshot *s, int32_t job, int group, int32_t entry);
int fw_snapshot_restrict_group_like(struct fw_snapshot *s, int32_t job, int group, int32_t gentry);
/* May task group `group` of job start on node n: its job's filter and
 * its group's both allow it?  O(log entries + log list). */
bool fw_snapshot_group_may_use(const struct fw_snapshot *s, int32_t job, int group, int32_t n);
/* Place task group `group` of job (added, with that group; the pair
 * after every pair sliced so far, by job then group) in slices of `tasks`
 * tasks, each inside one domain of `level` (a level index or
 * FW_LEVEL_NODE; see "Slices").  The index of the new slices entry, or
 * FW_EINVAL (out of order, no such group, tasks < 1 or not dividing the
 * group's count, no such level) or FW_ENOMEM; nothing is added on error. */
int fw_snapshot_slice_group(struct fw_snapshot *s, int32_t job, int group, int32_t tasks, int32_t level);
/* Job's first slices entry (its groups' follow it, by group), -1 without
 * one.  O(log entries). */
int32_t fw_snapshot_slices_entry(const struct fw_snapshot *s, int32_t job);
/* The most tasks of group g that one domain of `level` (a level index,
 * FW_LEVEL_NODE, or FW_LEVEL_NONE: the whole cluster) can hold, by its
 * nodes' GPUs of g's model, one task a node for a one_per_node group
 * (CPU, memory, health and use aside): whether a slice of g, or g
 * itself, could ever fit, for the adapters that refuse one that never
 * could.  on (NULL: every node) keeps to the nodes i with on[i], those
 * a job's node selectors meet.  -1 when g asks no GPUs; INT64_MAX when
 * out of memory (no answer).  O(nodes log nodes). */
int64_t fw_snapshot_domain_room(const struct fw_snapshot *s, const struct fw_task_group *g, int level,
				const bool *on);

/* Does node n carry every label of sel (nsel pairs) with its value?  The
 * reading of a Kubernetes nodeSelector: a value "" asks for the label
 * without one.  nsel 0 matches every node.  The adapters that resolve a
 * selector into a node filter (the YAML loader, the daemon's local
 * backend) all read it through this one test. */
bool fw_node_has_labels(const struct fw_node *n, const struct fw_label *sel, int nsel);

/* Defaults for a fresh object (schedulable node, unlimited queue with
 * weight 1, one-task job needing nothing, no topology constraint). */
void fw_node_init(struct fw_node *n);
void fw_queue_init(struct fw_queue *q);
void fw_job_init(struct fw_job *j);

/* Linear lookups by name; -1 when absent.  Adapters that need speed keep
 * their own hash. */
int fw_snapshot_find_node(const struct fw_snapshot *s, const char *name);
int fw_snapshot_find_queue(const struct fw_snapshot *s, const char *name);
int fw_snapshot_find_level(const struct fw_snapshot *s, const char *name);

/* The rule for a name that the outside world addresses (a node, queue,
 * job or reservation: the daemon's URL paths /v1/nodes/{name}, the CLI's
 * arguments, the config's `name` keys): 1 to FW_NAME_MAX - 1 bytes of
 * letters, digits, '-', '_' and '.', and neither "." nor "..", so that a
 * name is one URL path segment as it stands.  NULL when name follows it,
 * else what is wrong, as a phrase that follows the field's name ("must not
 * be empty").  Snapshots themselves may hold any name (the simulator's
 * trace rows do); the adapters that take names from users apply this. */
const char *fw_name_problem(const char *name);
/* The code point of the UTF-8 sequence at p (at most avail bytes), its
 * length in *len; -1 (length 1) for a byte that starts no well-formed
 * sequence (overlong, a surrogate, past U+10FFFF, cut short).  The one
 * decoder the readers of text share (the YAML loader's encoding errors,
 * the daemon's free-text check). */
long fw_utf8_at(const unsigned char *p, size_t avail, int *len);

/* Totals a job asks for (every task), and for min_member tasks. */
struct fw_res fw_job_request(const struct fw_job *j);
int32_t fw_job_tasks(const struct fw_job *j);
int32_t fw_job_min_tasks(const struct fw_job *j);
/* The runtime planning assumes for j: its expected_runtime when > 0, else
 * the default_runtime_s of its queue or nearest ancestor that has one,
 * at most its run-time limit (fw_job_limit); 0 when none of them is set
 * (the job has no known end). */
fw_time fw_job_runtime(const struct fw_snapshot *s, const struct fw_job *j);
/* j's run-time limit: the smallest of its own max_runtime_s and the
 * max_runtime_s of its queue and its ancestors, of those set; 0 = none.  A running job with now - start_time
 * >= it is ended by the cycle (lib/cycle.c, reason TIME_LIMIT). */
fw_time fw_job_limit(const struct fw_snapshot *s, const struct fw_job *j);
/* The longest a job's run may last, for a GPU-hour budget under
 * config.budget_safe: its run-time limit (fw_job_limit), else its planned
 * runtime (fw_job_runtime: its own, else its queue's default); 0 when it
 * has none of them (unbounded). */
fw_time fw_job_bound(const struct fw_snapshot *s, const struct fw_job *j);
/* The same for the jobs of queue q. */
fw_time fw_queue_limit(const struct fw_snapshot *s, int32_t q);
/* The minimum runtime that protects queue q's running jobs from reclaim
 * and preemption: the min_runtime_s of q or of its nearest ancestor that
 * sets one (> 0); 0 when none does.  A parent's minRuntime covers the
 * queues under it unless one of them sets its own. */
fw_time fw_queue_min_runtime(const struct fw_snapshot *s, int32_t q);
/* The checkpoint interval of j: its checkpoint_s when > 0, else the
 * default_checkpoint_s of its queue or nearest ancestor that has one; 0
 * when none does. */
fw_time fw_job_checkpoint(const struct fw_snapshot *s, const struct fw_job *j);
/* The work a running job would lose if evicted at now: the run since its
 * last checkpoint, (now - start_time) mod fw_job_checkpoint(), or the
 * whole run without one (reclaim's victim order). */
fw_time fw_job_lost_work(const struct fw_snapshot *s, const struct fw_job *j, fw_time now);
/* Whole-GPU equivalents, rounded up per task (a 0.5-GPU task counts 1). */
int64_t fw_job_gpus(const struct fw_job *j);
/* May reclaim, preemption or consolidation evict j at all: it is
 * preemptible and neither its queue nor an ancestor is nonpreemptible?
 * (Its queue's min_runtime_s protects it for a while besides.) */
bool fw_job_evictable(const struct fw_snapshot *s, const struct fw_job *j);

/*
 * Structural validation: indices in range, a queue tree without cycles,
 * jobs on leaf queues, sane task shapes, no duplicate node or queue names,
 * running jobs' allocations inside their nodes, and together within each
 * node (no GPU held past 1000 milli, e.g. one GPU index named by two whole
 * tasks; CPU and memory within the node's: FW_EBUSY, naming the job and
 * the node), node filters by ascending job with ascending, distinct, valid
 * nodes ("job_nodes[2].nodes"), group filters alike by job and group,
 * each of a group its job has ("group_nodes[0].group"), slices alike,
 * each a size dividing its group's count and a level of the topology
 * ("slices[0].tasks").  Fills d (field = e.g. "jobs[4].queue") and returns
 * FW_EINVAL/FW_ELOOP/FW_EEXIST/FW_ERANGE/FW_EBUSY on the first problem.
 * The cycle assumes a validated snapshot.
 */
int fw_snapshot_validate(const struct fw_snapshot *s, struct fw_diag *d);

/* Is queue q a leaf (no queue names it as its parent)? */
bool fw_queue_is_leaf(const struct fw_snapshot *s, int q);
/* Does q set a limit of its own on some resource (not FW_UNLIMITED)? */
bool fw_queue_has_limit(const struct fw_queue *q);
/* Is queue q on a cycle of parents (its chain of parents comes back to
 * it)?  Then the cycle from q, "a -> b -> a", into out (n bytes, cut
 * after a whole name): for an error that shows it (the validation's, the
 * daemon's answer to a queue change).  A queue under a cycle is not on
 * it; a parent out of range ends the chain. */
bool fw_queue_cycle(const struct fw_snapshot *s, int32_t q, char *out, size_t n);

#endif
