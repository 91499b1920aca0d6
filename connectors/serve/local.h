/*
 * local.h — what the daemon asks the local backend beyond the ops table:
 * the life of jobs that have left the snapshot (done, failed, cancelled,
 * timeout).
 * exit_code may be NULL; a job's exit code is also its bj.exit_code.
 */
#ifndef FAIRWAY_SERVE_LOCAL_H
#define FAIRWAY_SERVE_LOCAL_H

#include "backend.h"

/* A job by name, ended ones included: its state and times, its exit code,
 * and (job, may be NULL) the job as submitted, valid until the backend's
 * next call.  FW_OK or FW_ENOENT. */
int fw_local_job_info(struct fw_backend *b, const char *name, const char **state, fw_time *submit,
		      fw_time *start, fw_time *end, int32_t *exit_code, const struct fw_backend_job **job);
int fw_local_each_job(struct fw_backend *b,
		      int (*fn)(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit,
				fw_time start, fw_time end),
		      void *ctx);

/* A running job's run as the backend holds it: its placements (valid
 * until the backend's next call) and the seconds of its runtime that
 * checkpoints saved before its evictions (the run does the rest).  FW_OK,
 * or FW_ENOENT for a job it does not know or that is not running. */
int fw_local_job_run(struct fw_backend *b, const char *name, const struct fw_backend_placement **place,
		     int32_t *nplace, fw_time *kept);
/* An ended job's last run (done, failed, cancelled, timeout): the
 * placements it had when it last ran, history that holds nothing (valid
 * until the backend's next call; *nplace 0 for one that never ran, or
 * whose document an older fairway wrote without them).  FW_OK, or
 * FW_ENOENT for a job it does not know or that has not ended: a waiting
 * job, requeued or not, ran nowhere yet in its current run, and a running
 * one's are fw_local_job_run's. */
int fw_local_job_ran(struct fw_backend *b, const char *name, const struct fw_backend_placement **place,
		     int32_t *nplace);

/* A job the snapshot plans with less than its submitted runtime: one
 * restarted after an eviction that kept checkpoints (read() gives the
 * engine the rest of its runtime). */
struct fw_local_runtime {
	char job[FW_NAME_MAX];
	fw_time runtime;        /* as submitted */
};
/* Every waiting or running job read() shortens so, into *out (malloc'd,
 * the caller frees it; NULL when none): how many, or FW_ENOMEM.  Taken
 * with a whole read, under the same hold of the daemon's lock, so the
 * view can say the submitted runtime of each without asking the backend
 * again (cycle.c submitted_runtimes). */
int32_t fw_local_restarted(const struct fw_backend *b, struct fw_local_runtime **out);
/* The same from a capture's copy (backend.h capture), without the
 * daemon's lock, for the cycle that builds from it. */
int32_t fw_local_copy_restarted(const struct fw_backend_copy *c, struct fw_local_runtime **out);

/* The jobs the backend itself ended at their run-time limit since open
 * (the limits no cycle could apply: read()'s, and open()'s for a job a
 * fleet change would requeue; local.c's file comment), for /metrics'
 * fairway_jobs_timed_out_total beside the cycle's own. */
uint64_t fw_local_timed_out(const struct fw_backend *b);
/* The ended jobs it forgot since open (min-job-age: local.c), for
 * /metrics' fairway_jobs_purged_total. */
uint64_t fw_local_purged(const struct fw_backend *b);

/* The runs the backend ended itself (local.c "Runs it ends itself": a
 * runtime up, a limit passed, a cancel of a running job, a fleet change
 * at open) that ended after since, in the order it noted them, into *out
 * (malloc'd, the caller frees it; NULL when none): how many, or
 * FW_ENOMEM.  Those that ended at since or before are forgotten: the
 * daemon's usage (as of since: the oldest of its queues' and users')
 * counts them already.  Under the daemon's lock, after the read that
 * ends them (cycle.c take_runs). */
int32_t fw_local_runs(struct fw_backend *b, fw_time since, struct fw_backend_run **out);

/* The nodes of fleet whose labels meet job's nodeSelector (every node
 * when it has none), ascending, into out (room for fleet->nnodes): their
 * count.  The API refuses a submission that selects none; read() keeps
 * a stored job whose selector the fleet no longer meets with a filter
 * that leaves out every node, so the plan lists it as never starting. */
int32_t fw_local_selected(const struct fw_snapshot *fleet, const struct fw_backend_job *job, int32_t *out);
/* The first task group of job whose own selector, with the job's, no node
 * of fleet meets (its tasks could never start), or -1 when none. */
int fw_local_unmet_group(const struct fw_snapshot *fleet, const struct fw_backend_job *job);

#endif
