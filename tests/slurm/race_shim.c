/*
 * race_shim.c — a test-only LD_PRELOAD library for the Slurm lab: it
 * makes the races between fairway and slurmctld happen on cue.
 *
 * slurm_update_job() is wrapped: the first call for job $FW_RACE_JOB
 * that carries an AdminComment (fairway's start of a -w job names the
 * record its plan honoured there) first runs $FW_RACE_CMD (e.g. a user's
 * `scontrol update ... nodelist=...`), then makes the call.  So the
 * start reaches slurmctld after the user's change, as it would when the
 * user types between fairway's read and its apply
 * (tests/integration/slurm_not_eligible.sh).
 *
 * With $FW_DEFER_JOB, fairway's first release of that job (an update
 * that sets its priority) is answered at once but made only after the
 * next reservation fairway creates: so slurmctld looks at the released
 * job only once the reservation exists, as it does when its scheduler
 * runs a moment after fairway's apply (tests/integration/slurm_e2e.sh,
 * reserve_start; in the lab that race went either way).
 * With $FW_SLOW_LOADS (a file name), each slurm_load_jobs() made while
 * that file exists first creates $FW_SLOW_LOADS.in, then waits 3 s: a
 * slurmctld slow to answer, as a busy one on a large cluster is
 * (tests/integration/slurm_outage.sh, slow_load_unlocked: the API answers
 * meanwhile, since the daemon's cycle loads without its state lock).
 * Every other call passes straight through.  Never linked into the
 * product.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <slurm/slurm.h>

static job_desc_msg_t deferred;
static char d_nodes[4096], d_comment[512], d_admin[512];
static int deferring, deferred_once;

static int (*real_update(void))(job_desc_msg_t *)
{
	static int (*real)(job_desc_msg_t *);

	if (!real)
		real = (int (*)(job_desc_msg_t *))dlsym(RTLD_NEXT, "slurm_update_job");
	return real;
}

/* Keep a copy of release u (its strings too: fairway's are on its stack). */
static void defer(const job_desc_msg_t *u)
{
	deferred = *u;
	snprintf(d_nodes, sizeof d_nodes, "%s", u->req_nodes ? u->req_nodes : "");
	snprintf(d_comment, sizeof d_comment, "%s", u->comment ? u->comment : "");
	snprintf(d_admin, sizeof d_admin, "%s", u->admin_comment ? u->admin_comment : "");
	deferred.req_nodes = u->req_nodes ? d_nodes : NULL;
	deferred.comment = u->comment ? d_comment : NULL;
	deferred.admin_comment = u->admin_comment ? d_admin : NULL;
	deferring = deferred_once = 1;
}

int slurm_update_job(job_desc_msg_t *u)
{
	static int done;
	const char *job = getenv("FW_RACE_JOB"), *cmd = getenv("FW_RACE_CMD");
	const char *later = getenv("FW_DEFER_JOB");

	if (!real_update())
		return -1;
	if (!done && job && cmd && u->admin_comment && u->job_id == strtoul(job, NULL, 10)) {
		done = 1;
		if (system(cmd) != 0)
			fprintf(stderr, "race_shim: '%s' failed\n", cmd);
	}
	if (!deferred_once && later && u->job_id == strtoul(later, NULL, 10) && u->priority != NO_VAL &&
	    u->priority != 0) {
		defer(u);
		return SLURM_SUCCESS;
	}
	return real_update()(u);
}

char *slurm_create_reservation(resv_desc_msg_t *r)
{
	static char *(*real)(resv_desc_msg_t *);
	char *name;

	if (!real)
		real = (char *(*)(resv_desc_msg_t *))dlsym(RTLD_NEXT, "slurm_create_reservation");
	if (!real)
		return NULL;
	name = real(r);
	if (deferring) {
		deferring = 0;
		if (real_update()(&deferred) != SLURM_SUCCESS)
			fprintf(stderr, "race_shim: the deferred release of job %u failed\n", deferred.job_id);
	}
	return name;
}

int slurm_load_jobs(time_t since, job_info_msg_t **out, uint16_t flags)
{
	static int (*real)(time_t, job_info_msg_t **, uint16_t);
	const char *slow = getenv("FW_SLOW_LOADS");
	char in[4096];
	FILE *f;

	if (!real)
		real = (int (*)(time_t, job_info_msg_t **, uint16_t))dlsym(RTLD_NEXT, "slurm_load_jobs");
	if (!real)
		return -1;
	if (slow && access(slow, F_OK) == 0) {
		snprintf(in, sizeof in, "%s.in", slow);
		if ((f = fopen(in, "w")))
			fclose(f);
		sleep(3);
	}
	return real(since, out, flags);
}
