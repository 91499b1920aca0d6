/*
 * race_shim.c — a test-only LD_PRELOAD library for the Slurm lab
 * (tests/integration/slurm_not_eligible.sh): it makes the race between
 * fairway's read of a job and its start of that job happen on cue.
 *
 * slurm_update_job() is wrapped: the first call for job $FW_RACE_JOB
 * that carries an AdminComment (fairway's start of a -w job names the
 * record its plan honoured there) first runs $FW_RACE_CMD (e.g. a user's
 * `scontrol update ... nodelist=...`), then makes the call.  So the
 * start reaches slurmctld after the user's change, as it would when the
 * user types between fairway's read and its apply.  Every other call
 * passes straight through.  Never linked into the product.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <slurm/slurm.h>

int slurm_update_job(job_desc_msg_t *u)
{
	static int (*real)(job_desc_msg_t *);
	static int done;
	const char *job = getenv("FW_RACE_JOB"), *cmd = getenv("FW_RACE_CMD");

	if (!real)
		real = (int (*)(job_desc_msg_t *))dlsym(RTLD_NEXT, "slurm_update_job");
	if (!real)
		return -1;
	if (!done && job && cmd && u->admin_comment && u->job_id == strtoul(job, NULL, 10)) {
		done = 1;
		if (system(cmd) != 0)
			fprintf(stderr, "race_shim: '%s' failed\n", cmd);
	}
	return real(u);
}
