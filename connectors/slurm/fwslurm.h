/*
 * fwslurm.h — the Slurm adapter: a live slurmctld in, a core snapshot out;
 * a plan in, Slurm RPCs out.
 *
 * fairway takes over Slurm's decisions for one or more "managed"
 * partitions while users keep sbatch, squeue and scancel.  The contract
 * with Slurm is small and all of it is visible with scontrol:
 *
 *   - every job submitted to a managed partition arrives HELD (priority 0;
 *     contrib/slurm/job_submit.lua does it), so Slurm's own scheduler
 *     never starts one by itself;
 *   - start   = set the job's exact node list (ReqNodes) and release it in
 *               one slurm_update_job; Slurm starts it on those nodes at its
 *               next batch tick;
 *   - evict   = slurm_requeue(JOB_REQUEUE_HOLD): the job is pending and held
 *               again (only jobs submitted with --requeue are preemptible);
 *               but at its run-time limit (reason TIME_LIMIT: its queue's
 *               maxRuntime) the job ends instead: its time limit lowered to
 *               the minutes of that limit and its comment "fairway:
 *               ended: ...", so slurmctld ends it as TIMEOUT (apply.c); a
 *               start gives such a job a time limit of at most that,
 *               rounded up to a minute;
 *   - reserve = a Slurm reservation named "fairway-<jobid>" on the nodes and
 *               at the time the plan holds for the job, but never before a
 *               minute after the end Slurm would give a job fairway
 *               released onto those nodes that it has not started yet
 *               (Slurm starts no job that would run into a reservation):
 *               created, moved when
 *               the plan moves it by a minute or more, deleted when the job
 *               starts or the plan no longer reserves for it.  Slurm
 *               reserves whole nodes, so only reservations whose every
 *               placement takes all GPUs of its node become Slurm
 *               reservations; a partial-node one (a 1-GPU job waiting for
 *               a GPU) stays in fairway's plan, where it already protects
 *               the job, and in the job's comment;
 *   - drain   = slurm_update_node(DRAIN) with fairway's reason;
 *   - window  = a maintenance window of the daemon's API is a Slurm
 *               reservation "fairway-maint-<id>" (MAINT, IGNORE_JOBS) on
 *               its nodes for its time, reconciled every cycle
 *               (fw_slurm_windows); the sweep of fairway-<jobid>
 *               reservations leaves it alone;
 *   - every waiting job's reason and expected start go in its comment
 *     (`squeue -o "%.10i %.8T %.70k"`).
 *
 * Reading.  fw_slurm_read() loads nodes, partitions, jobs and reservations
 * with their update-time arguments: a class that has not changed since the
 * last read is answered SLURM_NO_CHANGE_IN_DATA by slurmctld and the cached
 * message is reused (counted in struct fw_slurm_stats).  The generation
 * goes up when any class changed.  Topology: a node feature "LEVEL=NAME"
 * (e.g. "rack=r12") names the node's domain at that level of the
 * snapshot's topology; levels no feature names come from topology.conf's
 * switches (the leaf switch is the last level, its parent the level above,
 * and so on; loaded once, at open).
 *
 * Mapping (docs/slurm.md):
 *   node  = a node of a managed partition: GPUs and model from its GRES
 *           ("gpu:h100:8"), CPUs, RealMemory; not schedulable when DOWN,
 *           DRAIN, FAIL, NOT_RESPONDING, MAINT, FUTURE or UNKNOWN;
 *   queue = the queue tree of fairway's YAML (or, when it has none,
 *           slurmdbd's account tree: fw_slurm_import_accounts); a job's
 *           Slurm *account* names its leaf queue (a job whose account is
 *           no leaf queue is left held and counted in skipped_jobs);
 *   job   = one task group of num_nodes tasks (GPUs per node from
 *           tres_per_node "gres:gpu[:type]:N", CPUs and memory per node);
 *           expected runtime = the time limit; preemptible = --requeue;
 *           --switches=1 = required topology at the leaf-switch level;
 *           priority = its QOS's Priority, then -nice (qos.c); the snapshot name is the Slurm job id,
 *           "A_T" for task T of job array A (an array's pending tasks
 *           are one record in Slurm, planned as one job each: at most
 *           128 a cycle and within its %N throttle); a heterogeneous
 *           job's waiting components are one job, a task group each,
 *           apart (no two on one node, as Slurm runs them), named after
 *           the first of them (slurm_int.h);
 *           a pending job may start only on the nodes of its managed
 *           partitions that --exclude leaves and whose features meet
 *           --constraint (filter.c: the core's node filter);
 *   state = PENDING + held -> pending (but held by its user, as
 *           job_submit.lua records in the Comment: left held, read.c
 *           fw__slurm_user_held);
 *           PENDING + released with ReqNodes (fairway started it, Slurm has
 *           not run it yet) -> running on those nodes, so a restarted
 *           fairway never starts a job twice;
 *           ... but held back by Slurm's own limit (an association's or
 *           QOS's, licenses, its partition) -> left out, not booked, so
 *           its nodes do not sit idle while it waits;
 *           RUNNING, SUSPENDED, COMPLETING -> running on its nodes, with
 *           the GPU indices of gres_detail_str.
 *   usage = each user association's decayed gres/gpu usage: its user's
 *           usage in the account's queue, and part of the queue's
 *           (usage.c; read every FW_SLURM_USAGE_PERIOD_S seconds, by
 *           `fairway-slurm run` and by the backend's usage op for the
 *           daemon; --usage config / usage=own: not read).
 *   budget = an account's GrpTRESMins on gres/gpu: its queue's
 *           gpu_hour_budget (minutes / 60) unless the YAML gives the queue
 *           one; AccountingStorageEnforce=safe: config.budget_safe
 *           (usage.c; read every FW_SLURM_BUDGET_PERIOD_S seconds by
 *           fw_slurm_read, whatever usage fair share uses).
 *   GPUs held by jobs fairway does not manage (other partitions, unknown
 *   accounts) are marked bad on their nodes, so they are never double
 *   booked.
 *
 * Idempotence.  The adapter keeps no state that Slurm does not also hold:
 * every action is checked against the last read and skipped when Slurm
 * already shows its effect (released with the same ReqNodes, the same
 * reservation, the node drained, the same comment).  A restart re-reads
 * everything.
 *
 * The daemon drives the adapter through the backend ops table of
 * connectors/serve/backend.h (backend.c: fw_backend_slurm); the
 * `fairway-slurm` driver (fairway_slurm.c) runs the same read -> cycle ->
 * apply loop without the daemon, for tests and benchmarks.
 *
 * Errors: FW_OK or a negative fw_err; FW_EIO when slurmctld cannot be
 * reached or refuses an RPC, with the Slurm error text in the fw_diag.
 * Ownership: fw_slurm_open() returns a handle freed by fw_slurm_close()
 * (NULL is fine); fw_slurm_read() appends to the caller's snapshot.
 * libslurm keeps its configuration in globals of its own: one handle per
 * process, used from one thread at a time, but for fw_slurm_ping() and
 * fw_slurm_fetch(), which another thread may call meanwhile.
 */
#ifndef FAIRWAY_FWSLURM_H
#define FAIRWAY_FWSLURM_H

#include <stdint.h>
#include <stdio.h>

#include "fairway/arena.h"
#include "fairway/err.h"
#include "fairway/plan.h"
#include "fairway/snapshot.h"
#include "backend.h" /* connectors/serve: the action and world types */

struct fw_slurm;

struct fw_slurm_opts {
	const char *slurm_conf;   /* slurm.conf path; NULL = $SLURM_CONF */
	const char *partitions;   /* managed, comma separated; NULL = "gpu" */
	int comment_budget;       /* comment updates per cycle; 0 = 256 */
	bool usage_own;           /* usage=own: not Slurm's usage (usage.c) */
	const char *flag;         /* the flag the options came from, named in
				   * fw_slurm_opts_parse's errors: "--opt"
				   * (fairway-slurm), "--backend-opt" (fairway
				   * serve; also when NULL) */
};

/* What the adapter did, cumulative since open. */
struct fw_slurm_stats {
	uint64_t loads, unchanged;      /* class loads; answered "no change" */
	uint64_t generation;            /* bumped when any class changed */
	uint64_t starts, evicts, reserves, unreserves, drains, comments;
	uint64_t released_to_resv;      /* jobs asking for a reservation,
					 * released into it (Slurm places
					 * them) */
	uint64_t skipped;               /* actions already in effect, or gone */
	uint64_t failed;                /* RPCs slurmctld refused */
	int32_t skipped_jobs;           /* last read: managed jobs fairway
					 * cannot schedule (no leaf queue, a
					 * shape the core refuses: held) or
					 * cannot read (running: foreign) */
	int32_t skipped_nodes;          /* last read: nodes of the managed
					 * partitions left out, their names
					 * longer than a snapshot's (63 bytes) */
	/* last read: job_submit.lua and partitions= disagree (build.c
	 * hook_check).  unheld: pending jobs of a managed partition that
	 * arrived released (no hold, no ReqNodes, no reservation), which
	 * Slurm's own scheduler may start where fairway did not choose: the
	 * hook is not installed, or its MANAGED table leaves the partition
	 * out.  stray: jobs the hook holds (its "fairway: " comment,
	 * priority 0) in a partition partitions= does not name, which stay
	 * held for ever.  The first of each by id, with its partition. */
	int32_t unheld, stray;
	uint32_t unheld_job, stray_job;
	char unheld_part[64], stray_part[64];
	double read_ms, apply_ms, annotate_ms; /* last call */
};

/* A waiting job's explanation, for its Slurm comment. */
struct fw_slurm_note {
	char job[FW_NAME_MAX];          /* the snapshot job name (Slurm id, A_T) */
	char text[200];
};

/* Parse "key=value,key=value" options (conf=PATH, partitions=A:B,
 * comments=N) into o; strings point into buf, which is modified.  An
 * error names o->flag, the caller's flag. */
int fw_slurm_opts_parse(char *buf, struct fw_slurm_opts *o, struct fw_diag *d);

/* Contacts slurmctld once: FW_EIO with the reason when it cannot. */
int fw_slurm_open(const struct fw_slurm_opts *o, struct fw_slurm **out,
		  struct fw_diag *d);
void fw_slurm_close(struct fw_slurm *h);

/* Append the nodes, jobs and allocations of the managed partitions to s,
 * whose queues, topology, config and now are set (backend.h read()).  When
 * s has no topology levels and Slurm has switches, the level "switch" is
 * added.  Slurm's GPU-hour budgets and AccountingStorageEnforce=safe go
 * onto s's queues and config (fw_slurm_budget_apply).  The caller
 * validates s. */
int fw_slurm_read(struct fw_slurm *h, struct fw_snapshot *s,
		  struct fw_backend_world *w, struct fw_diag *d);

/* The RPCs of the next fw_slurm_read() made ahead, from any thread, while
 * another may be in fw_slurm_read() or fw_slurm_apply(): the four loads,
 * each "only if changed" since the last read's message, into a private
 * buffer of the handle (the last read's messages untouched).  The next
 * fw_slurm_read() adopts them instead of asking, unless a read adopted
 * other messages since the fetch began (then it asks anew); a later fetch
 * replaces one not yet adopted.  The daemon calls it without its state
 * lock, so slurmctld's answer time (tens of ms on a large cluster,
 * seconds when it is busy) is no longer spent under it.  FW_OK, or
 * FW_EIO with *d filled (nothing kept). */
int fw_slurm_fetch(struct fw_slurm *h, struct fw_diag *d);

/* fw_slurm_read in two halves (backend.h "A read in two halves";
 * copy.c).  fw_slurm_capture, where the read would run (the daemon's
 * lock held): the read's loads (or the fetch adopted), and a copy of all
 * its build needs, Slurm's messages kept alive while the copy lives.
 * fw_slurm_build, from any thread, while others call the handle's other
 * functions (fw_slurm_read too): s filled and *w set as fw_slurm_read
 * would have at the capture.  fw_slurm_adopt, where the read would run
 * again, before the fw_slurm_apply of a plan so built: what the build
 * found that apply, fw_slurm_aside and fw_slurm_annotate use (the jobs it
 * left out) made the handle's, as a read makes it; false, adopting
 * nothing, when the handle's world moved since the capture (that apply
 * answers FW_EAGAIN).  fw_slurm_discard frees c (NULL is fine), before
 * fw_slurm_close. */
struct fw_slurm_copy;
int fw_slurm_capture(struct fw_slurm *h, const struct fw_snapshot *s, struct fw_slurm_copy **out,
		     struct fw_diag *d);
int fw_slurm_build(const struct fw_slurm_copy *c, struct fw_snapshot *s, struct fw_backend_world *w,
		   struct fw_diag *d);
bool fw_slurm_adopt(struct fw_slurm *h, struct fw_slurm_copy *c);
void fw_slurm_discard(struct fw_slurm_copy *c);

/* backend.h apply(): FW_EAGAIN when gen is not the last read's. */
int fw_slurm_apply(struct fw_slurm *h, uint64_t gen,
		   const struct fw_backend_action *acts, int32_t n,
		   struct fw_backend_result *r);

/* backend.h windows(): one reservation "fairway-maint-<id>" per window
 * still open (MAINT|IGNORE_JOBS, users root, the window's nodes, from its
 * start, or now when it has begun, to its end), created or updated when
 * the last read shows it missing or different; every other
 * fairway-maint- reservation is deleted.  FW_EIO (with Slurm's reason in
 * *d) when slurmctld refused one; the rest are still reconciled. */
int fw_slurm_windows(struct fw_slurm *h, const struct fw_backend_window *w, int32_t n,
		     fw_time now, struct fw_diag *d);

/* Write notes whose text differs from the job's comment in the last read,
 * at most the comment budget.  Returns how many were written. */
int fw_slurm_annotate(struct fw_slurm *h, const struct fw_slurm_note *notes,
		      int32_t n);

/* Add slurmdbd's account tree to s as queues (accounts.c: parent account
 * = parent queue, FairShare = GPU over-quota weight, quota 0); queues s
 * has already are kept.  FW_ENOENT when the cluster has no slurmdbd. */
int fw_slurm_import_accounts(struct fw_slurm *h, struct fw_snapshot *s,
			     int *added, struct fw_diag *d);

/* Slurm's decayed GPU usage (usage.c): one row per user association
 * that has some, GPU-seconds weighted by age (Slurm's usage_tres_raw of
 * the TRES gres/gpu, decayed with PriorityDecayHalfLife). */
struct fw_slurm_usage {
	char acct[FW_NAME_MAX], user[FW_NAME_MAX];
	double gpu_s;
};
#define FW_SLURM_USAGE_PERIOD_S 30 /* fairway-slurm reads it this often */
#define FW_SLURM_USAGE_MAX 1e15    /* GPU-s a row counts at most (a million
				    * GPUs for 30 years), so sums stay finite */

/* The rows (malloc'd, the caller frees) and Slurm's half-life.  FW_ENOENT
 * with the reason in *d when Slurm keeps no GPU usage (PriorityType not
 * multifactor, no slurmdbd, no gres/gpu TRES, PriorityDecayHalfLife=0);
 * FW_EIO when slurmctld does not answer. */
int fw_slurm_usage_fetch(struct fw_slurm *h, struct fw_slurm_usage **rows, int32_t *n,
			 double *half_life_s, struct fw_diag *d);
/* Every queue's usage := the sum of its account's rows as of `at` (0 when
 * none), the users' usage table := the rows (each at most
 * FW_SLURM_USAGE_MAX; NaN or <= 0: left out); rows whose account is no
 * queue are counted in *unmatched.  FW_OK or FW_ENOMEM. */
int fw_slurm_usage_apply(struct fw_snapshot *s, const struct fw_slurm_usage *rows, int32_t n,
			 fw_time at, int32_t *unmatched);
/* The index of "gres/gpu" among slurmctld's TRES names, -1 if none. */
int fw_slurm_gpu_tres_index(char *const *names, uint32_t n);

/* Slurm's GPU-hour budgets (usage.c): an account association's
 * GrpTRESMins on gres/gpu (`sacctmgr modify account A set
 * GrpTRESMins=gres/gpu=N`) is queue A's gpu_hour_budget, N / 60 GPU-hours,
 * where the queue has none of its own (the YAML's, or the daemon's API's,
 * wins); and slurm.conf's AccountingStorageEnforce=safe sets
 * config.budget_safe (ORed with the YAML's: a snapshot cannot tell an
 * explicit false).  fw_slurm_read reads both with its first load and then
 * every FW_SLURM_BUDGET_PERIOD_S (a failed read keeps the last) and
 * applies them to every snapshot it fills; fw_slurm_budget_note says what
 * the last read found. */
struct fw_slurm_budget {
	char acct[FW_NAME_MAX];
	double gpu_h;             /* the budget: fw_slurm_gpu_budget */
	uint64_t minutes;         /* Slurm's GrpTRESMins on gres/gpu */
};
#define FW_SLURM_BUDGET_PERIOD_S 30
/* GrpTRESMins=gres/gpu=0 (no GPU time at all) as a budget: fairway's 0
 * is none, so the least one it keeps, which any use at all is over (a
 * queue that has used nothing yet still starts, under budgetSafe only
 * jobs with no time bound). */
#define FW_SLURM_BUDGET_ZERO_GPU_H 1e-6

/* The budget in an association's GrpTRESMins by TRES position
 * (slurmdb_assoc_rec_t.grp_tres_mins_ctld, n entries, as `scontrol show
 * assoc_mgr` prints it) of the gres/gpu TRES at position gi: 0 for none
 * (INFINITE64, NO_VAL64, no array, gi not in it); else minutes / 60
 * GPU-hours, FW_SLURM_BUDGET_ZERO_GPU_H for 0 and at most
 * FW_BUDGET_MAX_GPU_H (a larger one is clamped to it: a billion GPU-hours
 * is no limit in practice, and the note says so).  *minutes: Slurm's
 * number (0 for none). */
double fw_slurm_gpu_budget(const uint64_t *mins, uint32_t n, int gi, uint64_t *minutes);
/* Each row's budget onto the queue its account names, any queue of the
 * tree (a budget binds the subtree, as GrpTRESMins binds an account's
 * children), where that queue has gpu_hour_budget 0; rows whose queue has
 * its own are counted in *kept, rows naming no queue in *unmatched; safe:
 * s->config.budget_safe is set too.  Pure; FW_OK. */
int fw_slurm_budget_apply(struct fw_snapshot *s, const struct fw_slurm_budget *rows, int32_t n, bool safe,
			  int32_t *kept, int32_t *unmatched);
/* What the last read of Slurm's budgets found, one line (no "fairway-slurm:"
 * prefix), for a log; *gen goes up whenever that changes (a new read that
 * says something else), so a driver prints it once per change.  "" with
 * *gen 0 before the first read. */
const char *fw_slurm_budget_note(const struct fw_slurm *h, uint64_t *gen);

/* backend.h reservations(): Slurm's reservations of the last read but
 * fairway's own (named fairway-<job> or fairway-maint-<id>; the latter
 * are the daemon's windows, listed as such), the first cap into out, each
 * with its flags (fw_slurm_resv_flags), its node names (from the node
 * table of the same read) and "scontrol delete reservation=NAME".
 * Returns how many there are (past cap too). */
int fw_slurm_reservations(const struct fw_slurm *h, struct fw_backend_rsv *out, int cap);
/* The waiting jobs the last read left out of the snapshot (build.c's
 * orphans: held by their user, no node left by a reservation to come,
 * a request fairway cannot plan, ...), each with its reason and text
 * (aside.c), the first cap into out.  Returns how many there are (past
 * cap too). */
int fw_slurm_aside(struct fw_slurm *h, struct fw_backend_aside *out, int32_t cap);
/* The reasons fw_slurm_aside gives, NULL-terminated. */
extern const char *const fw_slurm_aside_reasons[];
/* backend.h ended(): the jobs of the managed partitions that the last
 * read lists ended (Slurm keeps them for MinJobAge), each in the local
 * backend's states with its nodes (aside.c), the first cap into out and
 * the first ncap node names into names.  Returns how many there are
 * (past cap too), *nnames the names they need. */
int fw_slurm_ended(struct fw_slurm *h, struct fw_backend_ended *out, int32_t cap, char (*names)[FW_NAME_MAX],
		   int32_t ncap, int32_t *nnames);
/* Slurm's reservation flags as `scontrol show res` names them, comma
 * separated ("MAINT,IGNORE_JOBS"; "" for none), cut at a whole name. */
void fw_slurm_resv_flags(uint64_t flags, char *buf, size_t n);

/* Is node drained in Slurm, as of the last read: 1 yes, 0 no, -1 no
 * node of that name. */
int fw_slurm_node_drained(const struct fw_slurm *h, const char *node);

/* Drain (reason != NULL) or resume (reason == NULL) one node now. */
int fw_slurm_drain(struct fw_slurm *h, const char *node, const char *reason,
		   struct fw_diag *d);

/* backend.h release(): resume each of the n nodes that the last read shows
 * drained with a "fairway: " reason (a drain fairway made; an operator's
 * drain says something else and stays).  Returns how many were resumed,
 * or FW_EIO (with Slurm's reason in *d) when slurmctld refused one. */
int fw_slurm_release(struct fw_slurm *h, const char (*nodes)[FW_NAME_MAX], int32_t n,
		     struct fw_diag *d);

/* Node health as Slurm reports it (backend.h health()). */
int fw_slurm_health(struct fw_slurm *h, struct fw_node_health *out, int cap);

/* Is slurmctld answering?  FW_OK or FW_EIO with the reason. */
int fw_slurm_ping(struct fw_slurm *h, struct fw_diag *d);

const struct fw_slurm_stats *fw_slurm_stats(const struct fw_slurm *h);
/* What Slurm's setup does not give fairway, as of the last read (warn.c):
 * a managed partition DOWN, INACTIVE or gone since start (and UP again),
 * job_submit.lua and partitions= disagreeing (unheld, stray above).
 * Each is said once per change, one line "WHO: warning: ..." on out
 * (WHO: "fairway-slurm", "fairway serve"), after every read of either
 * driver; returns the lines written.  Where a read runs (under the
 * daemon's lock): it keeps what it said in the handle. */
int fw_slurm_warn(struct fw_slurm *h, FILE *out, const char *who);
/* slurm.conf's MinJobAge (warn.c): how many seconds slurmctld keeps
 * listing a job after it ended (0: it never purges one), into *age_s.
 * Asks slurmctld (slurm_load_ctl_conf) with the update time of the
 * config it read last, so an unchanged config is one "no change" answer
 * and the figure kept.  Touches only its own part of the handle: the
 * daemon calls it from its cycle thread without its lock (backend.h
 * ended_keep).  FW_OK, or FW_EIO with Slurm's reason in *d (*age_s
 * then the last figure read, -1 when none). */
int fw_slurm_min_job_age(struct fw_slurm *h, int64_t *age_s, struct fw_diag *d);
/* The warning for a reader that lists Slurm's ended jobs every period_s
 * seconds when Slurm keeps them age_s (MinJobAge): a job that ends and is
 * purged between two reads is never seen ended.  Written into out (one
 * line, both figures and what to do) when age_s > 0 and period_s >=
 * age_s; "" otherwise (age_s 0: Slurm purges none; < 0: unknown).  True
 * when it wrote one. */
bool fw_slurm_age_warning(double period_s, int64_t age_s, char *out, size_t n);
/* The last RPC slurmctld refused, "what obj: Slurm's error"; "" if none. */
const char *fw_slurm_last_error(const struct fw_slurm *h);

/* A waiting job's comment text (actions.c has the format). */
void fw_slurm_note_text(const struct fw_backend_note *e, char *buf, size_t n);

/* The plan as backend actions plus one note per waiting job, arrays from
 * arena a; for drivers without the daemon (`fairway-slurm`). */
int fw_slurm_plan_actions(const struct fw_snapshot *s, const struct fw_plan *p,
			  struct fw_arena *a, struct fw_backend_action **acts,
			  int32_t *nacts, struct fw_slurm_note **notes,
			  int32_t *nnotes);

#endif
