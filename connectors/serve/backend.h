/*
 * backend.h — what `fairway serve` drives: the cluster behind the daemon.
 *
 * The daemon (connectors/serve/daemon.c) owns the *policy* state: queues,
 * reservations, health reports, usage history, the decision log.  A
 * backend owns the *world*: which nodes exist, which jobs run where and
 * which wait.  Every cycle the daemon
 *
 *   1. prepares a snapshot skeleton (now, scheduler config, topology,
 *      queues) and calls read(), which appends the nodes, the running jobs
 *      (with their task placements) and the pending jobs, and returns the
 *      world's generation number;
 *   2. runs fw_cycle_run() on that snapshot without holding any lock;
 *   3. turns the plan into name-based actions (struct fw_backend_action)
 *      and calls apply() with the generation from step 1.
 *
 * Generation.  A uint64 that the backend bumps whenever its world changes
 * in a way that could make a plan made before the change wrong (a job
 * cancelled, started, finished or evicted by someone else; a node added,
 * removed, drained, failed).  A change that only adds pending work (a
 * submission) need not bump it: the plan in flight simply has not seen
 * the new job, and the next cycle will.  apply()
 * with a generation that is no longer current changes nothing and returns
 * FW_EAGAIN: the plan was made for a world that is gone, and the daemon
 * simply plans again.  A backend that knows what changed may accept an
 * older plan when every change since only freed room (a job cancelled or
 * finished, a node returned) and none of the plan's actions names a job
 * so changed: its placements still fit, merely conservatively (local.c,
 * plan_holds).  Under a steady stream of cancels a plan that waits for a
 * world nobody touched would rarely be applied at all.  Backends whose world changes under them without
 * notice (Slurm) bump the generation on every read() where anything
 * differs from the previous read.
 *
 * Idempotency.  apply() may see the same action twice (the daemon crashed
 * after the backend acted but before it logged the action).  Each action
 * must therefore be idempotent: starting a job that already runs on those
 * nodes, evicting a job that is no longer running, reserving what is
 * already reserved, draining a drained node — all succeed and change
 * nothing.  A start of a job that is gone (cancelled, finished) is skipped
 * and reported in the result, not an error.
 *
 * Names, not indices.  Actions name jobs and nodes by the names the
 * backend put in the snapshot (struct fw_job.name, struct fw_node.name);
 * the backend never has to keep the snapshot or the plan alive.  A job's
 * queue is resolved by read() with fw_snapshot_find_queue(); a job whose
 * queue the daemon does not know is left out of the snapshot and counted
 * in fw_backend_world.skipped_jobs (the daemon shows the count).
 *
 * Optional operations.  submit, cancel, health, explain, windows,
 * release, reload, usage, probe, reservations, aside, ended and ended_keep may be NULL: the API then answers 501 for job
 * submission/cancel, node health comes only from POSTed reports, waiting
 * reasons stay in the API, and maintenance windows stay in the daemon's
 * plans.  The local backend implements all of them but windows; a Slurm
 * backend typically implements read/apply/health/explain/windows and
 * leaves submission to sbatch.
 *
 * Rollback.  A backend that keeps its world in the daemon's store writes
 * into the daemon's open transaction (apply, submit, cancel).  When the
 * daemon rolls that transaction back (a later write of the same request
 * or cycle failed, or the commit did), it calls the optional reload(),
 * which must bring the backend's memory back to what the store holds,
 * so nothing of a failed request or cycle stays half-applied; reload()
 * bumps the generation (a plan in flight may have seen the undone
 * change).  Until a failed reload() succeeds the daemon makes no other
 * call that changes the world, and tries again first.  Each op that
 * writes must also change its memory only once its own write succeeded.
 * NULL (Slurm): the backend keeps nothing of its own in the store.
 *
 * Maintenance windows.  The optional windows() op hands the backend the
 * daemon's maintenance windows (reservations of kind "maintenance" made
 * through the API), the full current list, after every applied cycle,
 * under the same lock as apply().  The backend reconciles its own copy
 * against the list: it creates what is missing, updates what changed and
 * deletes what the list no longer has, so the call is idempotent and a
 * restarted daemon neither duplicates nor forgets a window (Slurm: one
 * reservation "fairway-maint-<id>" per window, MAINT and IGNORE_JOBS, on
 * the window's nodes from its start to its end).  It must compare against
 * what it already knows (Slurm: the last read) and act only on a
 * difference, since it runs every cycle.  The daemon plans around windows
 * itself (cycle.c): before one opens it starts there only jobs that end in
 * time, and while it is open the core drains its nodes through apply()
 * like any drain (a DRAIN action with reason DRAIN_FINISH, its `why`
 * naming the window), so the op only makes the windows themselves visible
 * to, and enforced by, the world behind the backend; NULL (local) =
 * nothing to mirror.
 *
 * Returning drained nodes.  The core drains a node the API reports
 * unhealthy, and the nodes of an open maintenance window (lib/drain.c);
 * once a later report says it is healthy again (repaired: the agent's
 * clean heartbeat), or the window is over or deleted, the node should come
 * back.  The optional release() op gets, after every applied cycle, the
 * nodes the backend's read() held out of service (not schedulable, or
 * reported down by health()) for which fairway has no reason left: no
 * unhealthy API report, no open window, not unhealthy or draining in the
 * fleet's config.  It returns to service each of them that *fairway*
 * drained (local: its own drain flag; Slurm: DRAIN with a "fairway: "
 * reason).  A node an operator drained for another reason, or that is
 * down without such a drain, is never touched, so passing it costs a
 * look-up.  Idempotent like windows(); NULL = drained nodes stay drained
 * until an operator acts.
 *
 * Threads.  The daemon serialises every call into one backend instance
 * (it holds its state lock), so a backend needs no locking of its own;
 * read() and apply() should not block for long (a Slurm backend talks to
 * slurmctld with a timeout).  Three exceptions: reachable(), fetch()
 * (below), and build(), which works on a copy that capture() made under
 * the lock (below).
 *
 * A read fetched ahead.  A backend whose read() waits on its cluster
 * manager (Slurm: slurm_load_jobs, _node, _partitions, _reservations;
 * tens to hundreds of ms on a large cluster, seconds when slurmctld is
 * busy) may offer fetch(): the cycle calls it without the lock, after
 * reachable(), and the backend keeps the answers in a buffer of its own
 * (a mutex of its own guards it), touching nothing read(), apply() and
 * the other ops use (Slurm: also its QOS table, budgets and usage, when
 * their period is up).  The cycle's read() (or capture()) under the
 * lock then adopts them (the messages it builds from, and that
 * reservations(), aside(), apply() and explain() then use, swapped in
 * there) instead of asking.
 * So apply() always sees the world its plan was made from, as before.  A
 * read() from an API thread (a queue change's check) may meanwhile call
 * read() itself; it asks the manager anew (under the lock, as it always
 * did) or adopts the fetch, and a fetch made from messages a read has
 * since replaced is never adopted: that read asks anew.  A failed fetch
 * fails the cycle before the lock, like reachable().
 *
 * A read in two halves.  read() runs under the daemon's state lock, and
 * at 10,000 nodes and 20,000 jobs the local backend's read took 20-45 ms
 * of it every cycle, each API request meanwhile waiting.  A backend may
 * therefore also offer capture(), build() and discard(), all three or
 * none: the cycle then calls capture() under the lock, which does what
 * read() does to the backend itself (local: the jobs whose runtime is up
 * ended, old ones forgotten) and copies what the rest of the read needs,
 * with the generation as of then; the lock let go, build() appends to
 * the snapshot from the copy alone exactly what read() would have at the
 * capture, while the API's threads go on calling submit(), cancel() and
 * read() itself.  A change between the capture and the apply is the
 * generation's to catch, as one between a read and the apply always was:
 * a job cancelled meanwhile is named by a plan that is now stale (local:
 * its last change is newer than the plan, plan_holds), so it is never
 * started; a job submitted meanwhile is not in the copy and waits for the
 * next cycle, which sees it (a submission moves no generation).  read()
 * stays for the callers that hold the lock throughout (the API's checks
 * of a queue change, a dry run).  Usage: a backend with capture() whose
 * usage() gives its manager's (Slurm's associations) gets it called
 * under the lock right after capture(), on the skeleton, and the daemon
 * takes it as after a whole read; otherwise (usage NULL, or FW_ENOENT:
 * local) the daemon accrues its queues' and users' usage from the built
 * snapshot, on copies, outside the lock, and makes them its own when it
 * applies that cycle's plan.  What build() finds that the backend's
 * other ops use after a read (Slurm: the jobs it left out, for aside(),
 * apply() and explain()) it keeps in the copy, which the optional
 * adopt() makes the backend's at the apply, when the world has not
 * moved (below).  The copy may share what the backend would otherwise
 * free while build() runs (Slurm: slurmctld's messages) only if a read
 * meanwhile then keeps it alive (Slurm: pinned, read.c).
 *
 * Errors: the fw_err vocabulary (include/fairway/err.h).  Functions that
 * take a struct fw_diag fill it on failure with a field and message that
 * the daemon shows to the operator (`fairway serve` prints it and exits 2
 * when open() fails).
 *
 * Registry.  fw_backend_find("local") returns the built-in backend.  A
 * backend in another directory registers itself at build time: it defines
 * `const struct fw_backend_ops fw_backend_slurm` and its meson.build
 * declares `fwslurm_dep`; tools/meson.build then compiles registry.c with
 * -DFW_HAVE_SLURM and links the dependency.  Without connectors/slurm the
 * registry simply lists "local".
 */
#ifndef FAIRWAY_SERVE_BACKEND_H
#define FAIRWAY_SERVE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "fairway/err.h"
#include "fairway/plan.h"
#include "fairway/snapshot.h"
#include "reason.h"

struct fw_backend;        /* one open backend instance (the backend's own) */
struct fw_backend_copy;   /* what capture() took for build() (the backend's own) */
struct fw_serve_store;    /* the daemon's store (store.h); backends that
			   * persist their own world (local) keep it there */

/* What open() gets.  Every pointer stays valid until close(). */
struct fw_backend_config {
	/* The fleet as loaded from the config YAML (nodes, topology, queues,
	 * jobs, scheduler): the local backend builds its virtual cluster
	 * from it; the Slurm backend may read only the topology. */
	const struct fw_snapshot *fleet;
	const char *config_path;  /* NULL = the embedded example */
	const char *state_dir;    /* the daemon's --state directory */
	const char *options;      /* free-form --backend-opt string, or NULL */
	struct fw_serve_store *store; /* the daemon's store; may be ignored */
	/* Seed the world from fleet->jobs on the very first start (an empty
	 * store).  Only the local backend looks at it. */
	bool seed_jobs;
	fw_time now;              /* wall clock at open (Unix seconds) */
	/* The daemon's queues at open (a snapshot of them alone,
	 * fw_serve_skeleton), which may differ from the fleet's (the API
	 * changes them): the run-time limits of the jobs the local backend
	 * ends at open (local.c, "Fleet changes").  NULL: the fleet's. */
	const struct fw_snapshot *queues;
};

/* read() output.  The snapshot itself is the caller's. */
struct fw_backend_world {
	uint64_t generation;
	int32_t skipped_jobs;      /* jobs left out: their queue is not a
				    * leaf the daemon has */
};

/* One task placement of a start or a reservation. */
struct fw_backend_placement {
	char node[FW_NAME_MAX];
	int16_t group;             /* task group of the job */
	uint32_t gpu_mask;         /* GPU g of the node = bit g */
	int32_t gpu_milli;         /* per GPU in the mask (1000 = whole) */
};

/* One decision of a plan, by name. */
struct fw_backend_action {
	enum fw_decision_kind kind;   /* START, EVICT, RESERVE, DRAIN */
	enum fw_reason reason;        /* why (plan.h) */
	int64_t a, b;                 /* the reason's arguments */
	char job[FW_NAME_MAX];        /* "" for DRAIN */
	char node[FW_NAME_MAX];       /* DRAIN only, "" otherwise */
	fw_time at;                   /* START: now; RESERVE: the start time */
	fw_time until;                /* RESERVE: at + expected runtime, or
				       * FW_TIME_UNKNOWN */
	fw_time limit_s;              /* START: the job's run-time limit
				       * (fw_job_limit: the smallest of its
				       * own maxRuntime and its queue's and
				       * ancestors'); 0 = none.  A
				       * backend may hand it to the world
				       * behind it (Slurm: the job's time
				       * limit); the daemon ends the job at
				       * it either way (EVICT, reason
				       * TIME_LIMIT, which ends the job:
				       * never requeued) */
	fw_time checkpoint_s;         /* EVICT: the job's checkpoint interval
				       * (fw_job_checkpoint: its own or its
				       * queue's default); 0 = none */
	char queue[FW_NAME_MAX];      /* START and EVICT: the job's queue */
	fw_time submitted;            /* START: the job's submission time */
	double gpus;                  /* START: the GPUs it asks for */
	double lost_gpu_s;            /* EVICT: the work it throws away, GPUs x
				       * seconds since its last checkpoint
				       * (fw_job_lost_work) */
	int32_t nplacements;          /* START and RESERVE */
	const struct fw_backend_placement *placements;
	char why[FW_SERVE_EVICT_MAX]; /* the reason rendered for humans
				       * (reason.h; cycle.c, a window's drain) */
};

/* What apply() did, per action: FW_OK applied now, FW_EEXIST already in
 * place (nothing done; the daemon logs only FW_OK actions), FW_ENOENT
 * skipped (job or node gone), other errors failed. */
struct fw_backend_result {
	int32_t applied, skipped, failed;
	int *status;                  /* one per action, filled by apply() */
	char msg[256];                /* the first failure in words, for the
				       * daemon's log ("" when none failed) */
};

/* Why one waiting job waits, for explain(): the plan's pending entry by
 * name (plan.h struct fw_pending). */
struct fw_backend_note {
	char job[FW_NAME_MAX];
	enum fw_reason reason;
	fw_time expected_start;       /* FW_TIME_UNKNOWN when unknown */
	enum fw_reason unknown_why;   /* why it is unknown */
	int32_t ahead;                /* jobs ahead of it, waiting */
};

/* One node's health as the backend sees it (Slurm: DOWN/DRAIN states). */
struct fw_node_health {
	char node[FW_NAME_MAX];
	bool healthy;
	bool suspect;                 /* healthy, but on probation (Slurm,
				       * local: repeated job failures there) */
	uint32_t bad_gpu_mask;        /* GPUs that must not be used */
	char reason[128];
	bool ours;                    /* out of service only by a drain of
				       * fairway's own (a DRAIN it applied:
				       * local, or Slurm's DRAIN with a
				       * "fairway: " reason), so back once
				       * fairway's reason for it ends: a
				       * maintenance window's node so held
				       * still counts as back at the window's
				       * end (cycle.c drain_window) */
};

/* One maintenance window for windows(): [start, end) on nodes.  The
 * pointers stay valid for the call only. */
struct fw_backend_window {
	const char *id;               /* the API's reservation id */
	fw_time start, end;
	const char *reason;           /* "" when none */
	int32_t nnodes;
	const char (*nodes)[FW_NAME_MAX];
};

/* One reservation the cluster behind the backend keeps of its own
 * (Slurm: one an admin made with scontrol create reservation), which the
 * backend's read() already plans around, for the daemon's list of
 * reservations (GET /v1/reservations, `fairway reservations`): shown
 * there read-only, never created, changed or deleted through the API.
 * The backend leaves out what mirrors the daemon's own (Slurm:
 * fairway-<job> and fairway-maint-<id>). */
#define FW_BACKEND_RSV_MAX 128        /* the daemon lists at most these */
#define FW_BACKEND_RSV_NODES 4096     /* bytes of a node name list */
struct fw_backend_rsv {
	char name[FW_NAME_MAX];
	fw_time start, end;           /* [start, end), Unix seconds */
	char flags[256];              /* the cluster's flags, comma separated
				       * ("MAINT,IGNORE_JOBS"); "" none */
	char nodes[FW_BACKEND_RSV_NODES]; /* its node names, comma separated
				       * (cut at a whole name: nodes_cut) */
	bool nodes_cut;
	char node_list[512];          /* the cluster's own expression of them
				       * ("gpu[001-004]"), "" when none */
	char delete_hint[160];        /* how to delete it there ("scontrol
				       * delete reservation=NAME") */
};

/* One job the cluster behind the backend has waiting that read() leaves
 * out of the snapshot on purpose, with why (Slurm: a job its user or an
 * administrator holds, one no node is left for by a reservation to come,
 * one whose request fairway cannot plan; connectors/slurm/aside.c), for
 * the daemon's job list (GET /v1/jobs, GET /v1/jobs/{name}, `fairway
 * jobs`): shown pending with its reason, never planned (the core never
 * sees it), with no expected start unless the cluster says when it may
 * start (earliest).  reason is a snake_case name of the backend's own,
 * never one of the plan's (docs/serve.md "Jobs the backend keeps
 * aside"). */
#define FW_BACKEND_ASIDE_REASON 32
struct fw_backend_aside {
	char job[FW_NAME_MAX];
	char queue[FW_NAME_MAX];      /* its queue as the cluster names it
				       * (Slurm: its account), which may be
				       * no queue of the daemon's */
	char user[FW_NAME_MAX];
	int64_t gpus;                 /* whole GPUs it asks, -1 unknown */
	fw_time submitted;
	char reason[FW_BACKEND_ASIDE_REASON]; /* "held", "slurm_reservation" */
	char text[FW_SERVE_REASON_MAX]; /* why, and what to do, in words */
	fw_time earliest;             /* the earliest the cluster starts it,
				       * known ahead (Slurm: its begin time, a
				       * requeue's or its --begin), its
				       * expected start, text saying why; 0
				       * when none is known */
};

/* One job the cluster behind the backend still lists that has ended
 * (Slurm: COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL, ..., which
 * slurmctld keeps for MinJobAge after the end; connectors/slurm/aside.c
 * fw_slurm_ended), for the daemon's job list and GET /v1/jobs/{name}:
 * shown in the states and with the members a local backend's ended job
 * has, its nodes among them (where it ran, as sacct's NodeList), and
 * never planned: an ended job holds nothing, and read() never puts it in
 * the snapshot.  Its nodes are names[node_first .. node_first + nnodes)
 * of the ended() call's names, none for a job that never ran (cancelled
 * while it waited). */
#define FW_BACKEND_ENDED_STATE 12
struct fw_backend_ended {
	char job[FW_NAME_MAX];
	char queue[FW_NAME_MAX];      /* as the cluster names it (Slurm: its
				       * account), as fw_backend_aside's */
	char user[FW_NAME_MAX];
	int64_t gpus;                 /* whole GPUs it asked, -1 unknown */
	char state[FW_BACKEND_ENDED_STATE]; /* done, failed, cancelled or
				       * timeout: the local backend's words */
	fw_time submitted, started, ended; /* started 0: it never ran */
	int32_t exit_code;            /* 0..255 (done, failed); -1 none */
	char reason[FW_BACKEND_ASIDE_REASON]; /* a plan reason's name
				       * ("time_limit": fairway ended it at its
				       * run-time limit), "" none */
	char text[FW_SERVE_REASON_MAX]; /* how it ended in words, where the
				       * state does not say it all; "" none */
	int32_t node_first, nnodes;
};

/* One run of a job that ended between two of the daemon's cycles (done,
 * failed, cancelled, timeout), for its usage accrual (cycle.c
 * fw_serve_accrue_users): the GPUs it held from start to end, by its
 * queue's name and its user.  A cycle's snapshot holds only the jobs
 * still running, so without these a job's last stretch (from the cycle
 * before its end to its end) would count for nothing.  From the local
 * backend's own record of the runs it ended (local.h fw_local_runs), or
 * from the ended jobs a cluster still lists (fw_backend_ended: Slurm's,
 * its whole GPUs asked). */
struct fw_backend_run {
	char queue[FW_NAME_MAX];
	char user[FW_NAME_MAX];
	double gpus;
	fw_time start, end;
};

/* The pairs of a job's selectors together: its own and its task groups'. */
#define FW_BACKEND_SEL_MAX (2 * FW_MAX_LABELS)

/* A job submitted through the API (local backend). */
struct fw_backend_job {
	struct fw_job job;            /* name, queue index unused; groups etc. */
	char queue[FW_NAME_MAX];      /* the leaf queue by name */
	int32_t exit_code;            /* 0..255, what the job exits with when
				       * its runtime is up (local: non-zero =
				       * it fails); 0 by default */
	char array_of[FW_NAME_MAX];   /* a task of a job array (POST /v1/jobs
				       * with "array", sbatch --array): the
				       * array's name, this job NAME_<index>;
				       * "" for a job of its own */
	/* nodeSelector: the job may start only on nodes whose labels hold
	 * every pair (fw_node_has_labels: Kubernetes' reading; value "" =
	 * the label without one), keys ascending; nsel 0 = any node.  The
	 * backend resolves it into the snapshot's node filter at each read,
	 * so it follows the fleet's labels across a restart.
	 * A task group may carry a selector of its own (tasks[g].nodeSelector:
	 * a leader on one kind of node, its workers on another), which the
	 * read makes the group's filter (snapshot.h, "Group filters"); its
	 * tasks then need nodes that meet both.  All selectors of a job share
	 * sel: the job's pairs first, then group 0's ngsel[0] pairs, group
	 * 1's, ... (fw_backend_group_sel), each at most FW_MAX_LABELS, all
	 * together at most FW_BACKEND_SEL_MAX (fw_backend_npairs).
	 * sel is not stored in the job: most jobs have no selector, and 16
	 * pairs in place would make a job 2.7 KiB, a job the local backend
	 * keeps for ever (three quarters of it were selectors).  Where a job
	 * is parsed or built, sel points at room for FW_BACKEND_SEL_MAX pairs
	 * (struct fw_backend_job_room); the local backend keeps an exact copy
	 * of its pairs per job (NULL when none). */
	int32_t nsel;
	uint8_t ngsel[FW_MAX_GROUPS];
	struct fw_label *sel;
	/* tasks[g].slice: group g's tasks in runs of slice[g] (0: none), each
	 * inside one domain of slice_level[g] (snapshot.h "Slices"), which
	 * each read makes the snapshot's slices entries. */
	int32_t slice[FW_MAX_GROUPS];
	int8_t slice_level[FW_MAX_GROUPS];
};

/* A job with room for all its selector pairs, on the stack where one is
 * parsed or built: fw_backend_job_room() points j.sel at pairs and
 * returns &r->j.  Not to be copied: a copy's sel is the original's room. */
struct fw_backend_job_room {
	struct fw_backend_job j;
	struct fw_label pairs[FW_BACKEND_SEL_MAX];
};

static inline struct fw_backend_job *fw_backend_job_room(struct fw_backend_job_room *r)
{
	r->j.sel = r->pairs;
	return &r->j;
}

/* How many pairs j's selectors hold together (its own and its groups'). */
static inline int fw_backend_npairs(const struct fw_backend_job *j)
{
	int n = j->nsel;

	for (int g = 0; g < FW_MAX_GROUPS; g++)
		n += j->ngsel[g];
	return n;
}

/* Task group g's own selector: its first pair, *n the count (0: none,
 * and NULL when the job keeps no pairs at all). */
static inline const struct fw_label *fw_backend_group_sel(const struct fw_backend_job *j, int g, int *n)
{
	int at = j->nsel;

	for (int i = 0; i < g; i++)
		at += j->ngsel[i];
	*n = j->ngsel[g];
	return j->sel ? j->sel + at : NULL;
}

/* Has some task group of j a selector of its own? */
static inline bool fw_backend_has_group_sel(const struct fw_backend_job *j)
{
	for (int g = 0; g < FW_MAX_GROUPS; g++)
		if (j->ngsel[g])
			return true;
	return false;
}

struct fw_backend_ops {
	const char *name;             /* "local", "slurm" */
	const char *summary;          /* one line for --help */

	int (*open)(const struct fw_backend_config *cfg, struct fw_backend **out,
		    struct fw_diag *d);
	/* Append nodes, jobs and allocations to s (whose queues, topology,
	 * config and now are already set); fill *w.  On error s may hold a
	 * partial world and the caller throws it away. */
	int (*read)(struct fw_backend *b, struct fw_snapshot *s,
		    struct fw_backend_world *w, struct fw_diag *d);
	/* Carry out n actions made from a world of generation gen, in order.
	 * FW_EAGAIN (nothing done) when gen is not current; otherwise FW_OK
	 * with per-action outcomes in *r (r->status has room for n). */
	int (*apply)(struct fw_backend *b, uint64_t gen,
		     const struct fw_backend_action *acts, int32_t n,
		     struct fw_backend_result *r);
	/* Optional: node health known to the backend.  Fills up to cap
	 * entries, returns how many (>= 0) or a negative fw_err. */
	int (*health)(struct fw_backend *b, struct fw_node_health *out, int cap);
	/* Optional: accept a job (FW_EEXIST if the name is taken). */
	int (*submit)(struct fw_backend *b, const struct fw_backend_job *j,
		      fw_time now, struct fw_diag *d);
	/* Optional: cancel a pending or running job (FW_ENOENT if unknown). */
	int (*cancel)(struct fw_backend *b, const char *job, fw_time now);
	void (*close)(struct fw_backend *b);
	/* Optional: show users why their jobs wait, after apply() (Slurm:
	 * the job's comment), every applied cycle, n = 0 when the plan has
	 * nothing waiting (the backend's own held jobs may still need
	 * words).  Best effort, bounded by the backend. */
	void (*explain)(struct fw_backend *b, const struct fw_backend_note *notes,
			int32_t n);
	/* Optional: reconcile the backend's maintenance reservations with
	 * the n current windows (all of them, every applied cycle; see
	 * "Maintenance windows" above).  FW_OK, or a negative fw_err with
	 * *d filled when the backend refused one (the others are still
	 * reconciled; the next cycle tries again). */
	int (*windows)(struct fw_backend *b, const struct fw_backend_window *w,
		       int32_t n, fw_time now, struct fw_diag *d);
	/* Optional: return to service those of the n nodes fairway no
	 * longer holds out that fairway drained (see "Returning drained
	 * nodes").  The number of nodes returned (>= 0), or a negative fw_err
	 * with *d filled (the next cycle tries again). */
	int (*release)(struct fw_backend *b, const char (*healthy)[FW_NAME_MAX], int32_t n,
		       struct fw_diag *d);
	/* Optional: the daemon rolled back a transaction this backend may
	 * have written into; re-read the world from the store (see
	 * "Rollback").  FW_OK, or a negative fw_err with *d filled and the
	 * memory as it was (the daemon tries again). */
	int (*reload)(struct fw_backend *b, struct fw_diag *d);
	/* Optional: the decayed usage the cluster manager keeps itself
	 * (Slurm's associations, the usage sshare shows), written over s's
	 * queues' usage and s's user_usage (s as read() left it).  FW_OK
	 * when s now holds it: the daemon takes it as its own (its queues'
	 * and users' usage, the store) instead of accruing; FW_ENOENT when
	 * the manager keeps none (or the operator said not to use it), and
	 * the daemon accrues its own as it does without this op. */
	int (*usage)(struct fw_backend *b, struct fw_snapshot *s, struct fw_diag *d);
	/* Optional (with submit): add j to s, which read() just filled, as
	 * a waiting job submitted at now, exactly as read() would show it
	 * once submitted (its selectors and slices resolved), keeping
	 * nothing: what POST /v1/jobs?dryRun=true plans with (sbatch
	 * --test-only).  Its index in s, or a negative fw_err with *d
	 * filled (FW_EEXIST: the name is taken; FW_EDECLINED: its queue or
	 * selectors meet nothing here). */
	int (*probe)(struct fw_backend *b, struct fw_snapshot *s, const struct fw_backend_job *j, fw_time now,
		     struct fw_diag *d);
	/* Optional: the cluster's own reservations as of the last read()
	 * (struct fw_backend_rsv), the first cap into out; returns how many
	 * there are (past cap too), or a negative fw_err.  Called under the
	 * lock right after each cycle's read(); no RPC of its own.  NULL:
	 * the daemon lists only its own reservations. */
	int (*reservations)(struct fw_backend *b, struct fw_backend_rsv *out, int cap);
	/* Optional: the waiting jobs the last read() left out of s on
	 * purpose (struct fw_backend_aside), the first cap into out (out
	 * may be NULL with cap 0); returns how many there are (past cap
	 * too), or a negative fw_err.  Called under the lock right after
	 * each cycle's read(); no RPC of its own.  NULL: the daemon lists
	 * the snapshot's jobs alone. */
	int (*aside)(struct fw_backend *b, struct fw_backend_aside *out, int32_t cap);
	/* With aside: every reason it may give (NULL-terminated), the words
	 * GET /v1/jobs?reason= takes beside the plan's.  NULL: none. */
	const char *const *aside_reasons;
	/* Optional: the ended jobs the last read() saw that its cluster
	 * still lists (struct fw_backend_ended), the first cap into out
	 * (NULL with cap 0), their nodes' names the first ncap into names
	 * (NULL with ncap 0; a job whose names are past ncap gets those that
	 * fit); returns how many jobs there are (past cap too), *nnames the
	 * names they need in all, or a negative fw_err.  Called under the
	 * lock right after each cycle's read() or capture() (a dry run's
	 * too), from that read; no RPC of its own.  The daemon lists them,
	 * and its own usage accrual (usage NULL or FW_ENOENT) counts those
	 * that ran to their end (fw_backend_run).  NULL: the daemon lists no
	 * ended job of the backend's (the local backend keeps its own,
	 * local.h). */
	int (*ended)(struct fw_backend *b, struct fw_backend_ended *out, int32_t cap, char (*names)[FW_NAME_MAX],
		     int32_t ncap, int32_t *nnames);
	/* With ended: how long the cluster lists an ended job, and where to
	 * look after, in words for a 404 on a name it no longer lists
	 * ("Slurm lists an ended job for MinJobAge ..."). */
	const char *ended_after;
	/* Optional: how long the cluster keeps listing a job after it ended
	 * (Slurm: MinJobAge), seconds, into *keep_s (0: for ever), and into
	 * warn (n bytes) one line in words, both figures and what to do, when
	 * a daemon that reads every period_s seconds can miss an end (a job
	 * that ends and is purged between two reads: never listed ended, its
	 * last stretch of usage uncounted, take_runs), "" otherwise.  Called
	 * by the cycle thread WITHOUT the daemon's state lock, before its
	 * first cycle and then at most once a minute (cycle.c check_keep);
	 * it must touch nothing the other ops share (Slurm: one
	 * slurm_load_ctl_conf given the update time of the config it read
	 * last, "no change" while it stands).  FW_OK, or an fw_err with *d
	 * filled: the daemon keeps what it showed and asks again at the next
	 * check.  The daemon says the warning on stderr once per change and
	 * shows both in GET /v1/health (minJobAgeS, warnings).  NULL: nothing
	 * to show (local: it records the ends of its own runs). */
	int (*ended_keep)(struct fw_backend *b, double period_s, int64_t *keep_s, char *warn, size_t n,
			  struct fw_diag *d);
	/* Optional: does the cluster manager answer?  FW_OK, or an fw_err
	 * with *d filled.  Called before each cycle's take WITHOUT the
	 * daemon's state lock, so that while the manager is down a cycle
	 * fails at once and the API, which read() would hold up for the
	 * manager's connect retries (seconds under the lock, every cycle),
	 * answers from the last view.  It must touch nothing the other ops
	 * share (an RPC of its own).  NULL: no such check. */
	int (*reachable)(struct fw_backend *b, struct fw_diag *d);
	/* Optional: what the next read() would ask the cluster manager,
	 * asked now, WITHOUT the daemon's state lock, while other threads
	 * call the other ops (see "A read fetched ahead").  FW_OK, or an
	 * fw_err with *d filled: the cycle fails before its take.  NULL: read()
	 * asks under the lock. */
	int (*fetch)(struct fw_backend *b, struct fw_diag *d);
	/* Optional, all three or none: read() in two halves (see "A read in
	 * two halves" above).  capture(), under the daemon's lock, with s the
	 * skeleton read() would get (queues, topology, config, now; no nodes
	 * or jobs yet): read()'s changes to the backend itself, and into *out
	 * a copy of all build() needs.  build(), without the lock: s filled
	 * and *w set as read() would have at the capture, from c and from
	 * what never changes between open() and close() alone; s's nodes are
	 * then the fleet's (struct fw_backend_config).  discard() frees c
	 * (NULL: nothing), after build() or instead of it. */
	int (*capture)(struct fw_backend *b, const struct fw_snapshot *s, struct fw_backend_copy **out,
		       struct fw_diag *d);
	int (*build)(const struct fw_backend_copy *c, struct fw_snapshot *s, struct fw_backend_world *w,
		     struct fw_diag *d);
	void (*discard)(struct fw_backend_copy *c);
	/* Optional, with capture: what build() found that the backend's
	 * other ops use after a read (Slurm: the jobs it left out, for
	 * aside(), apply() and explain()) made the backend's, under the
	 * lock, at the apply of the plan made from c, once the daemon's
	 * generation is found unmoved, before apply() (see "A read in two
	 * halves").  false, adopting nothing, when the backend's world moved
	 * since the capture: the plan is stale (FW_EAGAIN).  The daemon then
	 * calls aside() after it, not after the capture.  NULL: build() finds
	 * nothing the backend keeps (local); c is discarded after build(). */
	bool (*adopt)(struct fw_backend *b, struct fw_backend_copy *c);
};

/* The built-in virtual cluster (local.c). */
extern const struct fw_backend_ops fw_backend_local;

/* NULL-terminated list of the backends compiled in; lookup by name
 * (NULL when unknown). */
const struct fw_backend_ops *const *fw_backend_list(void);
const struct fw_backend_ops *fw_backend_find(const char *name);

#endif
