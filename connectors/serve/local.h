/*
 * local.h — what the daemon asks the local backend beyond the ops table:
 * the life of jobs that have left the snapshot (done, failed, cancelled).
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

#endif
