/*
 * aside.c — the waiting jobs the last read left out of the snapshot (the
 * orphans of build.c), as the daemon lists them (backend.h
 * fw_backend_aside: GET /v1/jobs, `fairway jobs why`): pending, with a
 * reason of the adapter's own and what to do, never planned.
 *
 * Reasons (docs/slurm.md "Jobs fairway does not plan"):
 *   held               its user or an administrator holds it (scontrol
 *                      hold/uhold, sbatch --hold: fw__slurm_user_held);
 *                      whatever else would keep it, the hold comes first
 *   slurm_reservation  every node it may use is in a reservation to come
 *                      before its time limit would end (filter.c phase
 *                      5b): an admin's, named, or a daemon's maintenance
 *                      window's mirror, named as the window
 *   in_reservation     it asks for a reservation (--reservation), named:
 *                      Slurm places it there (released into it)
 *   dependency         released, its dependency unmet
 *   begin_time         its begin time ahead: a requeued job's (Slurm
 *                      starts it again only from then: fairway's evict
 *                      is such a requeue) or its --begin
 *   array_throttle     its array's %N throttle is full
 *   slurm_limit        released, and a limit of Slurm's own holds it back
 *   released           a heterogeneous job's component released onto
 *                      nodes others hold now
 *   partition_down     held, and its partition starts no job now: DOWN
 *                      or INACTIVE in Slurm, or gone from it
 *   not_plannable      a request fairway cannot plan (its comment's words)
 * The texts of the first three and of begin_time are written for the API
 * (what to run, with the job's id or the reservation's name); the others
 * are the job's Slurm comment without its "fairway: " mark.  A begin_time
 * job's begin time is its earliest start (the API's expectedStart), which
 * its text says.  No RPC: everything comes from the last read.
 *
 * Ended jobs (fw_slurm_ended, backend.h fw_backend_ended): the jobs of a
 * managed partition that the last read lists ended, which slurmctld keeps
 * for MinJobAge after their end with their NodeList, for the daemon to
 * show where each ran (GET /v1/jobs/ID "nodes", `fairway jobs show`: "ran
 * on ...") in the local backend's words:
 *   COMPLETED                              done, its exit code
 *   FAILED, OUT_OF_MEMORY, NODE_FAIL,
 *   BOOT_FAIL                              failed (the last three say so;
 *                                          FAILED its exit code, or the
 *                                          signal that killed it)
 *   TIMEOUT, DEADLINE                      timeout: reason time_limit
 *                                          when fairway ended it at its
 *                                          run-time limit (its comment
 *                                          FW__ENDED), else Slurm's own
 *                                          limit, said
 *   CANCELLED, PREEMPTED                   cancelled (PREEMPTED said)
 * A job still COMPLETING on its nodes is running (build.c), not ended.
 * Its nodes are Slurm's for it, none for one that never ran (cancelled
 * while it waited); a job's last run's only (Slurm keeps no other).  It
 * is read from the message and nothing else: the snapshot never has it,
 * so it holds nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/span.h"
#include "slurm_int.h"

#define MARK "fairway: "

/* Every reason reason_of gives (the backend's aside_reasons: the words
 * GET /v1/jobs?reason= takes beside the plan's). */
const char *const fw_slurm_aside_reasons[] = { "held", "slurm_reservation", "in_reservation", "dependency",
					       "begin_time", "array_throttle", "slurm_limit", "released",
					       "partition_down", "not_plannable", NULL };

static const char *reason_of(const struct fw__orphan *o, const slurm_job_info_t *j)
{
	if (fw__slurm_user_held(j))
		return "held";
	switch (o->why) {
	case FW__ORPHAN_RESERVED: return "slurm_reservation";
	case FW__ORPHAN_TO_RESV:
	case FW__ORPHAN_IN_RESV: return "in_reservation";
	case FW__ORPHAN_DEPENDENCY: return "dependency";
	case FW__ORPHAN_BEGIN: return "begin_time";
	case FW__ORPHAN_THROTTLE: return "array_throttle";
	case FW__ORPHAN_SLURM_HOLD: return "slurm_limit";
	case FW__ORPHAN_HET_RELEASED: return "released";
	case FW__ORPHAN_PART_DOWN: return "partition_down";
	default: return "not_plannable";
	}
}

/* A hold: its user's (JobHeldUser) or an administrator's. */
static void held_text(const slurm_job_info_t *j, char *buf, size_t n)
{
	if (j->state_reason == WAIT_HELD_USER)
		snprintf(buf, n, "held by its user (scontrol hold, uhold or requeuehold, or sbatch --hold): fairway does not "
			 "plan it while it is held; scontrol release %u lets fairway plan it", (unsigned)j->job_id);
	else
		snprintf(buf, n, "held by an administrator (scontrol hold, JobHeldAdmin): fairway does not plan it while "
			 "it is held; an administrator's scontrol release %u lets fairway plan it", (unsigned)j->job_id);
}

/* Every node it may use is in reservation NAME before its limit ends:
 * an admin's, or a daemon's maintenance window's mirror
 * (fairway-maint-<id>), which is named as the window. */
static void reserved_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t n)
{
	const char *r = o->resv[0] ? o->resv : "?";
	size_t mp = strlen(FW_SLURM_MAINT_PREFIX);
	char more[48] = "", what[80], see[108];

	if (o->m > 0)
		snprintf(more, sizeof more, " (and %d more)", (int)o->m);
	if (!strncmp(r, FW_SLURM_MAINT_PREFIX, mp)) {
		snprintf(what, sizeof what, "maintenance window %.60s", r + mp);
		snprintf(see, sizeof see, "fairway reservations; in Slurm, reservation %.60s", r);
	} else {
		snprintf(what, sizeof what, "Slurm reservation %.60s", r);
		snprintf(see, sizeof see, "scontrol show res %.60s", r);
	}
	snprintf(buf, n, "every node it may use is in %s%s from before its time limit would end, and Slurm runs no "
		 "job there that would overlap it: fairway does not plan it until that is over (%s); a shorter time "
		 "limit (scontrol update jobid=%u timelimit=MINUTES) may let it run before, or other nodes (a "
		 "partition or --exclude that leaves some out of it)",
		 what, more, see, (unsigned)j->job_id);
}

/* Slurm starts it only from its begin time (EligibleTime): a requeued
 * job's (Slurm sets it to the requeue plus AuthInfo's cred_expire, 120 s
 * by default: slurm.conf), or its --begin. */
static void begin_text(const slurm_job_info_t *j, char *buf, size_t n)
{
	char at[40];

	fw_utc_format_minute((int64_t)j->eligible_time, at, sizeof at); /* rounded up to the minute */
	if (j->restart_cnt > 0)
		snprintf(buf, n, "requeued (%u time%s): Slurm starts a requeued job again only from its begin time, %s "
			 "(EligibleTime: the requeue plus AuthInfo's cred_expire, 120 s by default), its expected start "
			 "at the earliest, and fairway plans it again from then: nothing to do",
			 (unsigned)j->restart_cnt, j->restart_cnt == 1 ? "" : "s", at);
	else
		snprintf(buf, n, "its begin time (--begin) is %s: Slurm starts it only from then, its expected start at "
			 "the earliest, and fairway plans it from then (scontrol update jobid=%u starttime=now brings it "
			 "forward)", at, (unsigned)j->job_id);
}

/* It asks for a reservation (--reservation): Slurm's to place there. */
static void in_resv_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t n)
{
	const char *r = fw__set(j->resv_name) ? j->resv_name : "?";

	snprintf(buf, n, "asks for Slurm reservation %.60s (--reservation): %s, and Slurm, not fairway, starts it "
		 "there once the reservation is active and has room for it (scontrol show res %.60s shows its nodes "
		 "and times); to have fairway plan it, submit it without --reservation", r,
		 o->why == FW__ORPHAN_TO_RESV ? "fairway releases it into the reservation"
					      : "fairway released it into the reservation",
		 r);
}

static void text_of(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t n)
{
	char c[200];

	if (fw__slurm_user_held(j)) {
		held_text(j, buf, n);
	} else if (o->why == FW__ORPHAN_RESERVED) {
		reserved_text(o, j, buf, n);
	} else if (o->why == FW__ORPHAN_TO_RESV || o->why == FW__ORPHAN_IN_RESV) {
		in_resv_text(o, j, buf, n);
	} else if (o->why == FW__ORPHAN_BEGIN) {
		begin_text(j, buf, n);
	} else {
		fw__orphan_text(o, j, c, sizeof c);
		snprintf(buf, n, "%s", strncmp(c, MARK, strlen(MARK)) ? c : c + strlen(MARK));
	}
}

static void one(struct fw_slurm *h, const struct fw__orphan *o, const slurm_job_info_t *j,
		struct fw_backend_aside *a)
{
	memset(a, 0, sizeof *a);
	fw__job_name(h, j, a->job, sizeof a->job);
	snprintf(a->queue, sizeof a->queue, "%s", fw__set(j->account) ? j->account : "");
	fw__slurm_user(h, j, a->user, sizeof a->user);
	a->gpus = fw__slurm_job_gpus(j);
	a->submitted = (fw_time)j->submit_time;
	snprintf(a->reason, sizeof a->reason, "%s", reason_of(o, j));
	text_of(o, j, a->text, sizeof a->text);
	if (!strcmp(a->reason, "begin_time")) /* not a hold: Slurm's time */
		a->earliest = (fw_time)j->eligible_time;
}

int fw_slurm_aside(struct fw_slurm *h, struct fw_backend_aside *out, int32_t cap)
{
	int32_t n = 0;

	for (int32_t k = 0; k < h->norphans; k++) {
		const slurm_job_info_t *j = fw__slurm_job(h, h->orphans[k].job);
		if (!j || !fw__job_pending(j))
			continue;
		if (n < cap)
			one(h, &h->orphans[k], j, &out[n]);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------ ended jobs */

/* Slurm's end of j in the local backend's words, into e: its state, exit
 * code, reason and text; false for a record that has not ended. */
static bool end_of(const slurm_job_info_t *j, struct fw_backend_ended *e)
{
	uint32_t base = j->job_state & JOB_STATE_BASE, code = j->exit_code;
	bool exited = (code & 0x7f) == 0, ours = fw__set(j->comment) && !strncmp(j->comment, FW__ENDED, strlen(FW__ENDED));
	const char *st = "failed", *text = "";

	switch (base) {
	case JOB_COMPLETE: st = "done"; break;
	case JOB_FAILED: break; /* its exit code, or the signal (below) */
	case JOB_OOM: text = "out of memory (Slurm: OUT_OF_MEMORY)"; break;
	case JOB_NODE_FAIL: text = "a node it ran on failed (Slurm: NODE_FAIL)"; break;
	case JOB_BOOT_FAIL: text = "its nodes failed to boot (Slurm: BOOT_FAIL)"; break;
	case JOB_TIMEOUT: st = "timeout"; text = ours ? "" : "Slurm ended it at its own time limit (sbatch -t)"; break;
	case JOB_DEADLINE: st = "timeout"; text = "Slurm ended it at its deadline (sbatch --deadline)"; break;
	case JOB_CANCELLED: st = "cancelled"; break;
	case JOB_PREEMPTED: st = "cancelled"; text = "preempted by Slurm (PREEMPTED)"; break;
	default: return false;
	}
	snprintf(e->state, sizeof e->state, "%s", st);
	snprintf(e->text, sizeof e->text, "%s", text);
	snprintf(e->reason, sizeof e->reason, "%s", base == JOB_TIMEOUT && ours ? "time_limit" : "");
	e->exit_code = (base == JOB_COMPLETE || base == JOB_FAILED) && exited ? (int32_t)((code >> 8) & 0xff) : -1;
	if (base == JOB_FAILED && !exited)
		snprintf(e->text, sizeof e->text, "killed by signal %u (Slurm: FAILED)", (unsigned)(code & 0x7f));
	return true;
}

/* Fairway's to list if it ended: of a managed partition, done with its
 * nodes (not COMPLETING on them: build.c reads that as running). */
static bool listed_ended(const struct fw_slurm *h, const slurm_job_info_t *j)
{
	return !fw__job_running(j) && !fw__job_pending(j) && fw__slurm_managed(h, j->partition);
}

/* j's nodes (Slurm's NodeList, none for a job that never ran) into
 * names from *k, up to ncap; how many it ran on. */
static int32_t ran_on(const slurm_job_info_t *j, char (*names)[FW_NAME_MAX], int32_t ncap, int32_t *k)
{
	hostlist_t hl = fw__set(j->nodes) ? FW__SLP(slurm_hostlist_create(j->nodes)) : NULL;
	int32_t n = 0;
	char *host;

	while (hl && (host = FW__SLP(slurm_hostlist_shift(hl)))) {
		if (*k < ncap)
			snprintf(names[*k], FW_NAME_MAX, "%s", host);
		*k += 1;
		n++;
		free(host);
	}
	if (hl)
		FW__SLV(slurm_hostlist_destroy(hl));
	return n;
}

static void ended_one(struct fw_slurm *h, const slurm_job_info_t *j, struct fw_backend_ended *e)
{
	fw__job_name(h, j, e->job, sizeof e->job);
	snprintf(e->queue, sizeof e->queue, "%s", fw__set(j->account) ? j->account : "");
	fw__slurm_user(h, j, e->user, sizeof e->user);
	e->gpus = fw__slurm_job_gpus(j);
	e->submitted = (fw_time)j->submit_time;
	e->ended = (fw_time)j->end_time;
}

int fw_slurm_ended(struct fw_slurm *h, struct fw_backend_ended *out, int32_t cap, char (*names)[FW_NAME_MAX],
		   int32_t ncap, int32_t *nnames)
{
	struct fw_backend_ended e;
	int32_t n = 0, k = 0;

	for (uint32_t i = 0; h->jobs && i < h->jobs->record_count; i++) {
		const slurm_job_info_t *j = &h->jobs->job_array[i];
		int32_t ran;
		if (!listed_ended(h, j))
			continue;
		memset(&e, 0, sizeof e);
		if (!end_of(j, &e))
			continue;
		e.node_first = k < ncap ? k : ncap;
		ran = ran_on(j, names, ncap, &k);
		e.nnodes = e.node_first + ran > ncap ? ncap - e.node_first : ran; /* the names that fit */
		e.started = ran > 0 ? (fw_time)j->start_time : 0;
		if (n < cap) {
			ended_one(h, j, &e);
			out[n] = e;
		}
		n++;
	}
	*nnames = k;
	return n;
}
