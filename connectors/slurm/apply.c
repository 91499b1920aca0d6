/*
 * apply.c — plan actions -> Slurm RPCs, each checked against the last read
 * first so that applying the same action twice changes nothing.
 *
 *   START    delete the job's fairway- reservation, then one
 *            slurm_update_job: ReqNodes = the plan's nodes, priority =
 *            INFINITE (release; Slurm recomputes it), comment, and for
 *            a -w job the record of the list it honoured as AdminComment
 *            (job_submit.lua refuses a start whose -w is stale), and for
 *            a job under a run-time limit (maxRuntime) a time limit of
 *            at most that, in whole minutes rounded up.  A task
 *            "A_T" of a job array that the array's pending record still
 *            lists is named by job_id_str "A_T": slurmctld splits it off
 *            into a record of its own and releases that, the rest of
 *            the array staying held;
 *   EVICT    slurm_requeue(JOB_REQUEUE_HOLD) a running job (an array's
 *            task: its own record); a released job Slurm has not started
 *            yet is simply held again.  A START of a job the same batch
 *            requeued (a drained job's restart, a move) is left to a
 *            later cycle (FW_EEXIST: the daemon logs no start);
 *   EVICT    at the job's run-time limit (reason TIME_LIMIT): it ends, it
 *            is not requeued.  Its time limit lowered to the limit's
 *            whole minutes and its comment "fairway: ended: ..." in one
 *            slurm_update_job, so slurmctld ends it itself as TIMEOUT at
 *            its next time-limit check (every 30 s); when slurmctld
 *            refuses that, slurm_kill_job(SIGKILL) ends it (CANCELLED);
 *   RESERVE  create or move the reservation fairway-<jobid>, from the
 *            plan's time but never before the end Slurm would give a job
 *            fairway released onto its nodes that Slurm has not started
 *            (its limit from now, plus a minute: else Slurm keeps that
 *            job pending for ever, ReqNodeNotAvail; seen in a lab);
 *   DRAIN    slurm_update_node(DRAIN, "fairway: <why>").
 * After the actions, every fairway-<job> reservation (a job's name: "A"
 * or "A_T", decimal) that no RESERVE of this batch named is deleted: the
 * plan no longer holds those nodes.  Any other name, "fairway-test" too,
 * is an admin's and stays.  The
 * daemon's maintenance windows are fairway-maint-<id> reservations that
 * fw_slurm_windows() alone creates, moves and deletes.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fairway/span.h"
#include "slurm_int.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The record a snapshot name stands for; *task: the task id when it is
 * an array's pending record that still lists the task, else NO_VAL. */
static slurm_job_info_t *job_of(struct fw_slurm *h, const char *name, uint32_t *task)
{
	return fw__slurm_job_named(h, name, task);
}

/* Distinct node names of the placements (of task group g; -1: all),
 * comma separated, in order. */
static int node_list(const struct fw_backend_action *a, int g, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	for (int32_t k = 0; k < a->nplacements; k++) {
		const char *nm = a->placements[k].node;
		bool seen = g >= 0 && a->placements[k].group != g;
		for (int32_t i = 0; i < k && !seen; i++)
			seen = !strcmp(a->placements[i].node, nm);
		if (seen)
			continue;
		if (strlen(buf) + strlen(nm) + 2 > len)
			return -1;
		if (n++)
			strcat(buf, ",");
		strcat(buf, nm);
	}
	return n;
}

/* Same host set?  Compares two hostlist expressions ("gpu[001-002]" and
 * "gpu001,gpu002" are the same). */
static bool same_hosts(const char *a, const char *b)
{
	hostlist_t ha, hb;
	char sa[4096], sb[4096];

	if (!a || !b || !*a || !*b)
		return false;
	ha = FW__SLP(slurm_hostlist_create(a));
	hb = FW__SLP(slurm_hostlist_create(b));
	if (!ha || !hb) {
		if (ha)
			FW__SLV(slurm_hostlist_destroy(ha));
		if (hb)
			FW__SLV(slurm_hostlist_destroy(hb));
		return false;
	}
	FW__SLV(slurm_hostlist_uniq(ha));
	FW__SLV(slurm_hostlist_uniq(hb));
	FW__SLV(slurm_hostlist_ranged_string(ha, sizeof sa, sa));
	FW__SLV(slurm_hostlist_ranged_string(hb, sizeof sb, sb));
	FW__SLV(slurm_hostlist_destroy(ha));
	FW__SLV(slurm_hostlist_destroy(hb));
	return !strcmp(sa, sb);
}

/* fairway-<name>: the snapshot job's name, "A_T" for an array's task,
 * so that resv_sweep matches it with the plan's actions. */
static void resv_name(const char *job, char *buf, size_t len)
{
	snprintf(buf, len, FW_SLURM_RESV_PREFIX "%s", job);
}

static int resv_delete(struct fw_slurm *h, const char *name)
{
	reservation_name_msg_t m = { .name = (char *)name };

	if (slurm_delete_reservation(&m) != SLURM_SUCCESS) {
		h->st.failed++;
		return fw__slurm_refused(h, "delete reservation", name);
	}
	h->st.unreserves++;
	return FW_OK;
}

/* ------------------------------------------------------------ start */

/* One job update; for a job_id_str (an array's task) slurmctld answers
 * per task, and a refusal is in the answer, not the return code. */
static int update(job_desc_msg_t *u)
{
	job_array_resp_msg_t *resp = NULL;
	int rc;

	if (!u->job_id_str)
		return slurm_update_job(u);
	rc = slurm_update_job2(u, &resp);
	for (uint32_t i = 0; rc == SLURM_SUCCESS && resp && i < resp->job_array_count; i++)
		if (resp->error_code[i] != SLURM_SUCCESS) {
			slurm_seterrno(resp->error_code[i]);
			rc = SLURM_ERROR;
		}
	slurm_free_job_array_resp(resp);
	return rc;
}

/* Released on these nodes already (by an earlier cycle)?  An array's task
 * still listed by the pending record never is. */
static bool started_there(const slurm_job_info_t *j, uint32_t task, const char *nodes)
{
	return task == NO_VAL && j->priority != 0 && same_hosts(j->req_nodes, nodes);
}

/* Delete the reservation fairway made for the job it now starts. */
static void unreserve(struct fw_slurm *h, const char *job)
{
	char resv[FW_NAME_MAX + 16];

	resv_name(job, resv, sizeof resv);
	if (fw__slurm_resv(h, resv))
		resv_delete(h, resv);
}

/* A heterogeneous job (slurm_int.h), named after its first waiting
 * component j: each waiting component's ReqNodes set to its task group's
 * nodes, with the comment that tells job_submit.lua this is fairway's
 * start, still held; then one update by the leader's id releases them
 * all, so that Slurm never holds part of the job released (a released
 * component waits on its nodes until the last one is, and keeps lower
 * jobs off them meanwhile, seen in the lab).  A component already on
 * its nodes (a retry after a refused release) is not updated again. */
static int start_het(struct fw_slurm *h, const struct fw_backend_action *a, slurm_job_info_t *j)
{
	slurm_job_info_t *c[FW_MAX_GROUPS];
	int32_t listed, n = fw__het_waiting(h, j, c, FW_MAX_GROUPS, &listed);
	char nodes[4096], comment[256], leader[16];
	job_desc_msg_t u;

	if (fw__job_released(j))
		return FW_OK; /* released by an earlier apply, with the rest */
	if (n <= 0 || n > FW_MAX_GROUPS || c[0] != j)
		return FW_ENOENT; /* not the job the plan saw */
	for (int32_t k = 0; k < n; k++)
		if (fw__slurm_user_held(c[k]))
			return FW_ENOENT; /* a component its user holds: none starts */
	for (int32_t k = 0; k < n; k++) {
		int m = node_list(a, (int)k, nodes, sizeof nodes);
		if (m <= 0 || (uint32_t)m < (c[k]->num_nodes ? c[k]->num_nodes : 1))
			return FW_EINVAL; /* Slurm needs one node per task */
		if (same_hosts(c[k]->req_nodes, nodes))
			continue;
		snprintf(comment, sizeof comment, FW__STARTED_MARK "%.200s", nodes);
		slurm_init_job_desc_msg(&u);
		u.job_id = c[k]->job_id;
		u.req_nodes = nodes;
		u.comment = comment;
		if (slurm_update_job(&u) != SLURM_SUCCESS)
			return fw__slurm_refused(h, "start", a->job);
	}
	unreserve(h, a->job);
	snprintf(leader, sizeof leader, "%u", j->het_job_id);
	slurm_init_job_desc_msg(&u);
	u.job_id_str = leader;
	u.priority = INFINITE;
	if (update(&u) != SLURM_SUCCESS)
		return fw__slurm_refused(h, "start", a->job);
	h->st.starts++;
	return FW_OK;
}

/* A refused start of job j (read before the plan): did the user change
 * its -w since?  contrib/slurm/job_submit.lua refuses such a start with
 * ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, which slurmctld may also
 * answer for its own reasons, so read the job again and say which, in
 * place of Slurm's words, only when its -w record moved. */
static void explain_stale_start(struct fw_slurm *h, const slurm_job_info_t *j, const char *name)
{
	job_info_msg_t *m = NULL;
	const char *was = fw__slurm_nodelist(j), *now;

	if (FW__SL(slurm_load_job(&m, j->job_id, SHOW_DETAIL)) != SLURM_SUCCESS || !m)
		return;
	if (m->record_count == 1) {
		now = fw__slurm_nodelist(&m->job_array[0]);
		if (!was != !now || (was && strcmp(was, now)))
			snprintf(h->last_err, sizeof h->last_err,
				 "start %.40s: job_submit.lua refused it: its -w is now (%.56s), not (%.56s) as "
				 "read; fairway plans it again next cycle", name, now ? now : "none", was ? was : "none");
	}
	FW__SLV(slurm_free_job_info_msg(m));
}

/* Slurm's time limit (minutes) is "none" in these two. */
static bool no_limit(uint32_t minutes)
{
	return minutes == INFINITE || minutes == NO_VAL;
}

/* The time limit a start sets for a job whose run-time limit is limit_s
 * (0: none): the limit's whole minutes rounded up, so that Slurm never
 * ends the job before fairway does, and squeue shows the limit; NO_VAL
 * (leave it) when the job's own limit is already as low, or its
 * --time-min is above (slurmctld refuses a limit below it). */
static uint32_t start_limit(const slurm_job_info_t *j, fw_time limit_s)
{
	uint32_t minutes = limit_s > 0 ? (uint32_t)((limit_s + 59) / 60) : NO_VAL;

	if (minutes == NO_VAL || (!no_limit(j->time_limit) && j->time_limit <= minutes) ||
	    (j->time_min && !no_limit(j->time_min) && j->time_min > minutes))
		return NO_VAL;
	return minutes;
}

static int do_start(struct fw_slurm *h, const struct fw_backend_action *a)
{
	uint32_t task;
	slurm_job_info_t *j = job_of(h, a->job, &task);
	char nodes[4096], comment[256];
	job_desc_msg_t u;
	int n;

	if (!j || !fw__job_pending(j))
		return j && fw__job_running(j) ? FW_OK : FW_ENOENT;
	if (fw__slurm_user_held(j))
		return FW_ENOENT; /* its user holds it (read after the plan's read) */
	if (fw__het_job(j))
		return start_het(h, a, j);
	if ((n = node_list(a, -1, nodes, sizeof nodes)) <= 0)
		return FW_EINVAL;
	if (started_there(j, task, nodes))
		return FW_OK;
	if ((uint32_t)n < (j->num_nodes ? j->num_nodes : 1))
		return FW_EINVAL; /* Slurm needs one node per task */
	unreserve(h, a->job);
	snprintf(comment, sizeof comment, FW__STARTED_MARK "%.200s", nodes);
	slurm_init_job_desc_msg(&u);
	if (task != NO_VAL)
		u.job_id_str = (char *)a->job; /* "A_T": split off, released */
	else
		u.job_id = j->job_id;
	u.req_nodes = nodes;
	u.priority = INFINITE;
	u.comment = comment;
	u.time_limit = start_limit(j, a->limit_s);
	/* the -w this plan honoured: job_submit.lua refuses the start when
	 * the user changed it since the read, and keeps it for a requeue */
	if (fw__slurm_nodelist(j))
		u.admin_comment = (char *)fw__slurm_nodelist_record(j);
	if (update(&u) != SLURM_SUCCESS) {
		bool stale = slurm_get_errno() == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		int rc = fw__slurm_refused(h, "start", a->job);
		if (stale && task == NO_VAL)
			explain_stale_start(h, j, a->job);
		return rc;
	}
	h->st.starts++;
	return FW_OK;
}

/* ------------------------------------------------------------ evict */

/* Hold a pending job again (priority 0); a heterogeneous job's every
 * component, by its leader's id (one released alone would wait on its
 * nodes for the rest). */
static int hold(struct fw_slurm *h, const slurm_job_info_t *j, const char *name)
{
	job_desc_msg_t u;
	char leader[16];

	slurm_init_job_desc_msg(&u);
	u.job_id = j->job_id;
	if (fw__het_job(j)) {
		snprintf(leader, sizeof leader, "%u", j->het_job_id);
		u.job_id_str = leader;
	}
	u.priority = 0;
	/* a hold with fairway's comment: job_submit.lua records a hold
	 * without one as the user's own */
	u.comment = (char *)"fairway: held again, to be planned anew";
	if (update(&u) != SLURM_SUCCESS)
		return fw__slurm_refused(h, "hold", name);
	return FW_OK;
}

/* Ended by fairway already: no longer running (slurmctld ended it), or
 * marked by end_at_limit's comment while slurmctld has yet to act. */
static bool ended_already(const slurm_job_info_t *j)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;

	return (base != JOB_RUNNING && base != JOB_SUSPENDED) || (j->job_state & JOB_COMPLETING) ||
	       (j->comment && !strncmp(j->comment, FW__ENDED, strlen(FW__ENDED)));
}

/* A job ending at its run-time limit (a = seconds run, b = the limit):
 * one update lowers its Slurm time limit to b's whole minutes, rounded
 * down, which puts its end time in the past, so slurmctld ends it as
 * TIMEOUT at its next time-limit check (within 30 s; seen in the lab, a
 * limit of 0 minutes included), and sets its comment to say so, which
 * also marks the end as done (a start may have set that very time limit,
 * so the limit alone cannot tell).  A het job's every component, by its
 * leader's id.  If slurmctld refuses (a --time-min above the limit, say),
 * SIGKILL ends it (CANCELLED).  FW_EEXIST when done already: the plan asks
 * again every cycle until slurmctld has acted. */
static int end_at_limit(struct fw_slurm *h, const struct fw_backend_action *a, slurm_job_info_t *j, uint32_t task)
{
	char leader[16], comment[160], ran[FW_SPAN_MAX], lim[FW_SPAN_MAX];
	job_desc_msg_t u;

	if (task != NO_VAL || fw__job_pending(j))
		return FW_ENOENT; /* not started: nothing to end */
	if (ended_already(j))
		return FW_EEXIST;
	snprintf(comment, sizeof comment, FW__ENDED "it ran %s; its run-time limit (maxRuntime) is %s",
		 fw_span_format(a->a, ran, sizeof ran), fw_span_format(a->b, lim, sizeof lim)); /* span.h's words */
	slurm_init_job_desc_msg(&u);
	u.job_id = j->job_id;
	if (fw__het_job(j)) {
		snprintf(leader, sizeof leader, "%u", j->het_job_id);
		u.job_id_str = leader;
	}
	u.time_limit = a->b > 0 ? (uint32_t)(a->b / 60) : 0;
	u.comment = comment;
	if (update(&u) != SLURM_SUCCESS &&
	    slurm_kill_job(fw__het_job(j) ? j->het_job_id : j->job_id, SIGKILL, 0) != SLURM_SUCCESS)
		return fw__slurm_refused(h, "end at its run-time limit", a->job);
	h->st.evicts++;
	return FW_OK;
}

/* Mark a running job fairway is about to requeue (EVICT) as fairway's
 * own requeue, every component of a heterogeneous job by its leader's
 * id: a job requeued and held whose comment still says fairway started
 * it was requeue-held by its user or an administrator
 * (fw__slurm_user_held).  Marked first: a requeue that then fails leaves
 * a running job with this comment, and the next cycle tries again. */
static int mark_requeue(struct fw_slurm *h, const slurm_job_info_t *j, const char *name)
{
	job_desc_msg_t u;
	char leader[16];

	if (j->comment && !strcmp(j->comment, FW__REQUEUED_TEXT))
		return FW_OK;
	slurm_init_job_desc_msg(&u);
	u.job_id = j->job_id;
	if (fw__het_job(j)) {
		snprintf(leader, sizeof leader, "%u", j->het_job_id);
		u.job_id_str = leader;
	}
	u.comment = (char *)FW__REQUEUED_TEXT;
	if (update(&u) != SLURM_SUCCESS)
		return fw__slurm_refused(h, "mark the requeue of", name);
	return FW_OK;
}

static int do_evict(struct fw_slurm *h, const struct fw_backend_action *a)
{
	uint32_t task;
	slurm_job_info_t *j = job_of(h, a->job, &task);
	int rc;

	if (!j)
		return FW_ENOENT;
	if (a->reason == FW_REASON_TIME_LIMIT)
		return end_at_limit(h, a, j, task);
	if (fw__job_held(j))
		return FW_OK; /* evicted already (a task still in its array's
			       * held record, too) */
	if (task != NO_VAL)
		return FW_ENOENT; /* never started: nothing to evict */
	if (fw__job_pending(j)) {
		if ((rc = hold(h, j, a->job)) != FW_OK)
			return rc;
	} else if ((rc = mark_requeue(h, j, a->job)) != FW_OK) {
		return rc;
	} else if (slurm_requeue(fw__het_job(j) ? j->het_job_id : j->job_id, JOB_REQUEUE_HOLD) != SLURM_SUCCESS) {
		/* Slurm requeues a het job by its leader, every component */
		int e = slurm_get_errno();
		/* pending since the read (requeued by Slurm or an earlier
		 * cycle): holding it is what is left to do */
		if (e == ESLURM_JOB_PENDING && hold(h, j, a->job) == FW_OK) {
			h->st.evicts++;
			return FW_OK;
		}
		bool disabled = e == ESLURM_DISABLED;
		rc = fw__slurm_refused(h, "requeue", a->job);
		if (disabled) /* JobRequeue=0 and no --requeue: say so */
			snprintf(h->last_err + strlen(h->last_err), sizeof h->last_err - strlen(h->last_err),
				 " (Slurm requeues this job only if it was submitted with --requeue, or "
				 "with JobRequeue=1 in slurm.conf)");
		return rc;
	}
	h->st.evicts++;
	return FW_OK;
}

/* ------------------------------------------------------------ reserve */

/* The reservation of job j, for its user (a uid without a name here:
 * root, as Slurm takes users by name), from the plan's time but no
 * earlier than not_before (fw__slurm_resv_not_before), for as long. */
static void resv_fill(struct fw_slurm *h, const slurm_job_info_t *j, const struct fw_backend_action *a,
		      time_t not_before, char *nodes, char *name, char *user, size_t ulen, resv_desc_msg_t *r)
{
	time_t now = time(NULL);
	time_t at = a->at > now ? a->at : now;
	fw_time end = a->until != FW_TIME_UNKNOWN ? a->until : 0;
	uint32_t minutes = end > at ? (uint32_t)((end - at + 59) / 60) : 0;

	if (!minutes)
		minutes = j->time_limit != INFINITE && j->time_limit != NO_VAL ? j->time_limit : 60;
	slurm_init_resv_desc_msg(r);
	r->name = name;
	r->start_time = at > not_before ? at : not_before;
	r->duration = minutes;
	r->node_list = nodes;
	r->users = fw__slurm_user(h, j, user, ulen) ? user : "root";
	r->flags = RESERVE_FLAG_IGN_JOBS | RESERVE_FLAG_OVERLAP; /* one may follow another on a node */
}

/* When Slurm would end a job it started at `now` under a time limit of
 * `minutes`: slurmctld counts a job without one as running a year. */
static time_t end_if_started(uint32_t minutes, time_t now)
{
	return now + (no_limit(minutes) ? (time_t)365 * 24 * 3600 : (time_t)minutes * 60);
}

/* Does a host of the hostlist expression `list` lie in hl? */
static bool meets(hostlist_t hl, const char *list)
{
	hostlist_t l;
	char *host;
	bool hit = false;

	if (!fw__set(list) || !(l = FW__SLP(slurm_hostlist_create(list))))
		return false;
	while (!hit && (host = FW__SLP(slurm_hostlist_shift(l)))) {
		hit = FW__SL(slurm_hostlist_find(hl, host)) >= 0;
		free(host);
	}
	FW__SLV(slurm_hostlist_destroy(l));
	return hit;
}

/* Released by fairway and booked as starting (build.c starting_job):
 * not one Slurm places in a reservation, waits on a dependency or holds
 * back by a limit of its own. */
static bool starting(const slurm_job_info_t *j)
{
	return fw__job_released(j) && !fw__set(j->resv_name) && !fw__set(j->dependency) &&
	       !fw__slurm_held_back(j);
}

/* When Slurm would end, were it to start it at now, the job a START of
 * this batch releases onto a node of hl (0: none there): under the limit
 * the start sets (start_limit), else its own; a het job's (whose start
 * sets none), the longest of its waiting components'. */
static time_t start_end(struct fw_slurm *h, const struct fw_backend_action *a, hostlist_t hl, time_t now)
{
	slurm_job_info_t *j, *c[FW_MAX_GROUPS];
	uint32_t task, limit;
	int32_t listed, nc;
	bool on = false;

	if (a->kind != FW_DECIDE_START || !(j = job_of(h, a->job, &task)))
		return 0;
	for (int32_t p = 0; p < a->nplacements && !on; p++)
		on = FW__SL(slurm_hostlist_find(hl, a->placements[p].node)) >= 0;
	if (!on)
		return 0;
	if (fw__het_job(j) || (limit = start_limit(j, a->limit_s)) == NO_VAL)
		limit = j->time_limit; /* a het job's start sets no limit */
	nc = fw__het_job(j) ? fw__het_waiting(h, j, c, FW_MAX_GROUPS, &listed) : 0;
	for (int32_t g = 0; g < nc && g < FW_MAX_GROUPS && !no_limit(limit); g++)
		if (no_limit(c[g]->time_limit) || c[g]->time_limit > limit)
			limit = c[g]->time_limit;
	return end_if_started(limit, now);
}

/* The latest end, were Slurm to start them at now, of the jobs on hl
 * that fairway released (this read's, and this batch's starts) and
 * Slurm has not started yet; 0 when there is none. */
static time_t latest_end(struct fw_slurm *h, hostlist_t hl, const struct fw_backend_action *acts,
			 int32_t n, time_t now)
{
	time_t last = 0, e;

	for (uint32_t i = 0; h->jobs && i < h->jobs->record_count; i++) {
		const slurm_job_info_t *j = &h->jobs->job_array[i];
		if (starting(j) && meets(hl, j->req_nodes) && (e = end_if_started(j->time_limit, now)) > last)
			last = e;
	}
	for (int32_t k = 0; k < n; k++)
		if ((e = start_end(h, &acts[k], hl, now)) > last)
			last = e;
	return last;
}

time_t fw__slurm_resv_not_before(struct fw_slurm *h, const char *nodes, const struct fw_backend_action *acts,
				 int32_t n, time_t now, time_t *end)
{
	hostlist_t hl = fw__set(nodes) ? FW__SLP(slurm_hostlist_create(nodes)) : NULL;

	*end = hl ? latest_end(h, hl, acts, n, now) : 0;
	if (hl)
		FW__SLV(slurm_hostlist_destroy(hl));
	return *end ? *end + FW__RESV_MARGIN_S : 0;
}

/* Slurm reserves whole nodes: true when every placement takes all GPUs of
 * its node. */
static bool whole_nodes(const struct fw_slurm *h, const struct fw_backend_action *a)
{
	for (int32_t k = 0; k < a->nplacements; k++) {
		const node_info_t *n = fw__slurm_node(h, a->placements[k].node);
		char model[FW_NAME_MAX];
		if (!n || __builtin_popcount(a->placements[k].gpu_mask) <
				  fw__gres_gpus(n->gres, model, sizeof model))
			return false;
	}
	return a->nplacements > 0;
}

/* A reservation of part of a node stays in fairway's plan: FW_EEXIST
 * when the last apply kept it so already (same placements, a start
 * within a minute), else FW_OK, a new one to log; remembered either way
 * (kept_sweep forgets those no RESERVE of this apply named). */
static uint32_t placements_hash(const struct fw_backend_action *a)
{
	uint32_t x = 2166136261u;

	for (int32_t k = 0; k < a->nplacements; k++) {
		const struct fw_backend_placement *p = &a->placements[k];
		for (const char *c = p->node; *c; c++)
			x = (x ^ (unsigned char)*c) * 16777619u;
		x = (x ^ p->gpu_mask ^ ((uint32_t)p->group << 20)) * 16777619u;
	}
	return x;
}

static int keep_partial(struct fw_slurm *h, const struct fw_backend_action *a)
{
	uint32_t x = placements_hash(a);

	for (int32_t i = 0; i < h->nkept; i++) {
		struct fw__kept *k = &h->kept[i];
		if (strcmp(k->job, a->job))
			continue;
		bool same = k->hash == x && labs((long)(k->at - a->at)) < 60;
		k->seen = true;
		if (same)
			return FW_EEXIST;
		k->hash = x;
		k->at = a->at;
		return FW_OK;
	}
	if (h->nkept == h->cap_kept) {
		int32_t cap = h->cap_kept ? 2 * h->cap_kept : 16;
		struct fw__kept *v = realloc(h->kept, (size_t)cap * sizeof *v);
		if (!v)
			return FW_OK; /* not remembered: logged again, no harm */
		h->kept = v;
		h->cap_kept = cap;
	}
	h->kept[h->nkept] = (struct fw__kept){ .at = a->at, .hash = x, .seen = true };
	snprintf(h->kept[h->nkept++].job, FW_NAME_MAX, "%s", a->job);
	return FW_OK;
}

/* After an apply: forget the kept reservations it did not name. */
static void kept_sweep(struct fw_slurm *h)
{
	int32_t n = 0;

	for (int32_t i = 0; i < h->nkept; i++)
		if (h->kept[i].seen) {
			h->kept[i].seen = false;
			h->kept[n++] = h->kept[i];
		}
	h->nkept = n;
}

static int do_reserve(struct fw_slurm *h, const struct fw_backend_action *a,
		      const struct fw_backend_action *acts, int32_t n)
{
	uint32_t task;
	slurm_job_info_t *j = job_of(h, a->job, &task);
	char nodes[4096], name[FW_NAME_MAX + 16], user[FW_NAME_MAX];
	reserve_info_t *old;
	resv_desc_msg_t r;
	time_t not_before, end;
	char *made;

	if (!j || !fw__job_pending(j))
		return FW_ENOENT;
	if (!whole_nodes(h, a))
		return keep_partial(h, a); /* kept in fairway's plan only (fwslurm.h) */
	if (node_list(a, -1, nodes, sizeof nodes) <= 0)
		return FW_EINVAL;
	resv_name(a->job, name, sizeof name);
	not_before = fw__slurm_resv_not_before(h, nodes, acts, n, time(NULL), &end);
	resv_fill(h, j, a, not_before, nodes, name, user, sizeof user, &r);
	old = fw__slurm_resv(h, name);
	/* in place: a start moving by seconds is noise, unless a job
	 * released onto its nodes would run into it (end) */
	if (old && same_hosts(old->node_list, nodes) &&
	    labs((long)(old->start_time - r.start_time)) < 60 && old->start_time >= end)
		return FW_EEXIST;
	if (old && old->start_time <= time(NULL)) {
		/* Slurm moves no reservation that has begun ("Reservation
		 * already started"): the plan moved it, so it is made anew. */
		if (resv_delete(h, name) != FW_OK)
			return FW_EIO;
		old = NULL;
	}
	if (old) {
		r.flags = 0; /* update: keep the flags */
		if (slurm_update_reservation(&r) != SLURM_SUCCESS)
			return fw__slurm_refused(h, "update reservation", name);
	} else {
		if (!(made = slurm_create_reservation(&r)))
			return fw__slurm_refused(h, "create reservation", name);
		free(made);
	}
	h->st.reserves++;
	return FW_OK;
}

/* Every job reservation of fairway's (fairway-<job>, fw__slurm_job_resv)
 * that no RESERVE of this batch named goes; an admin's "fairway-test"
 * stays. */
static void resv_sweep(struct fw_slurm *h, const struct fw_backend_action *acts,
		       int32_t n)
{
	for (uint32_t i = 0; h->resv && i < h->resv->record_count; i++) {
		const char *nm = h->resv->reservation_array[i].name;
		bool keep = false;
		if (!fw__slurm_job_resv(nm))
			continue; /* not a job's: an admin's, or a window's (fw_slurm_windows) */
		for (int32_t k = 0; k < n && !keep; k++)
			keep = (acts[k].kind == FW_DECIDE_RESERVE || acts[k].kind == FW_DECIDE_START) &&
			       !strcmp(nm + strlen(FW_SLURM_RESV_PREFIX), acts[k].job);
		if (!keep)
			resv_delete(h, nm);
	}
}

/* ------------------------------------------------------------ drain */

/* Drained already: by fairway for this reason, or by someone else, whose
 * reason stays (release() resumes fairway's drains only). */
static bool drained_already(const node_info_t *n, const char *reason)
{
	return (n->node_state & NODE_STATE_DRAIN) && n->reason &&
	       (!strcmp(n->reason, reason) || strncmp(n->reason, "fairway: ", 9) != 0);
}

/* drained_already as slurmctld has the node now, not as the cycle's
 * fetch had it: the fetch runs ahead of the plan, so an operator's drain
 * made since (slurm_serve.sh serve_operator_reason_kept: drained, then
 * reported unhealthy at once) would be overwritten with fairway's reason
 * and later resumed as fairway's.  One RPC a drain; unanswered: the
 * fetch's word stands. */
static bool drained_already_now(const char *node, const char *reason)
{
	node_info_msg_t *m = NULL;
	bool yes = false;

	if (FW__SL(slurm_load_node_single(&m, (char *)node, SHOW_ALL)) != SLURM_SUCCESS || !m)
		return false;
	yes = m->record_count > 0 && drained_already(&m->node_array[0], reason);
	FW__SLV(slurm_free_node_info_msg(m));
	return yes;
}

static int do_drain(struct fw_slurm *h, const struct fw_backend_action *a)
{
	node_info_t *n = fw__slurm_node(h, a->node);
	char reason[sizeof "fairway: " + sizeof a->why];

	if (!n)
		return FW_ENOENT;
	snprintf(reason, sizeof reason, "fairway: %s", a->why[0] ? a->why : "drain");
	if (drained_already(n, reason) || drained_already_now(a->node, reason))
		return FW_OK;
	if (fw_slurm_drain(h, a->node, reason, NULL) != FW_OK)
		return fw__slurm_refused(h, "drain", a->node);
	h->st.drains++;
	return FW_OK;
}

/* ------------------------------------------------------------ apply */

static int apply_one(struct fw_slurm *h, const struct fw_backend_action *acts, int32_t n, int32_t k)
{
	const struct fw_backend_action *a = &acts[k];

	switch (a->kind) {
	case FW_DECIDE_START:
		return do_start(h, a);
	case FW_DECIDE_EVICT:
		return do_evict(h, a);
	case FW_DECIDE_RESERVE:
		return do_reserve(h, a, acts, n);
	case FW_DECIDE_DRAIN:
		return do_drain(h, a);
	default:
		return FW_EINVAL;
	}
}

/* Did this batch requeue job (an EVICT applied before, names[0 .. n))? */
static bool requeued_in(const char *const *names, int32_t n, const char *job)
{
	for (int32_t i = 0; i < n; i++)
		if (!strcmp(names[i], job))
			return true;
	return false;
}

/* The held jobs of this read that ask for a reservation (build.c:
 * FW__ORPHAN_TO_RESV) are released into it, with the comment that says
 * so: Slurm admits and places them there.  A heterogeneous job by its
 * leader's id, all components at once.  A refusal is counted and left
 * for the next cycle. */
static void release_into_reservations(struct fw_slurm *h)
{
	char text[200], id[16];
	job_desc_msg_t u;

	for (int32_t k = 0; k < h->norphans; k++) {
		slurm_job_info_t *j = fw__slurm_job(h, h->orphans[k].job);
		if (h->orphans[k].why != FW__ORPHAN_TO_RESV || !j || !fw__job_held(j) || fw__slurm_user_held(j))
			continue; /* its user's hold stands until the user releases it */
		fw__orphan_text(&h->orphans[k], j, text, sizeof text);
		snprintf(id, sizeof id, "%u", fw__het_job(j) ? j->het_job_id : j->job_id);
		slurm_init_job_desc_msg(&u);
		u.job_id_str = id;
		u.priority = INFINITE;
		u.comment = text;
		if (update(&u) != SLURM_SUCCESS) {
			h->st.failed++;
			fw__slurm_refused(h, "release into reservation", id);
			continue;
		}
		h->st.released_to_resv++;
	}
}

int fw_slurm_apply(struct fw_slurm *h, uint64_t gen,
		   const struct fw_backend_action *acts, int32_t n,
		   struct fw_backend_result *r)
{
	double t0 = now_ms();
	uint64_t before = h->st.starts + h->st.evicts + h->st.reserves + h->st.drains;
	const char **requeued = NULL;
	int32_t nrequeued = 0;

	if (gen != h->read_gen)
		return FW_EAGAIN;
	r->applied = r->skipped = r->failed = 0;
	r->msg[0] = 0;
	for (int32_t k = 0; k < n; k++) {
		int rc;
		/* A START of a job this batch requeued (a drained job's restart,
		 * a move) waits for a later cycle: Slurm finishes the requeue
		 * and holds the job until its begin time, then a read shows it
		 * pending and held, and that plan releases it.  FW_EEXIST:
		 * nothing done now, so the daemon neither logs nor counts a
		 * start that has not happened. */
		if (acts[k].kind == FW_DECIDE_START && requeued_in(requeued, nrequeued, acts[k].job))
			rc = FW_EEXIST;
		else
			rc = apply_one(h, acts, n, k);
		if (rc == FW_OK && acts[k].kind == FW_DECIDE_EVICT && acts[k].reason != FW_REASON_TIME_LIMIT &&
		    (requeued || (requeued = malloc((size_t)n * sizeof *requeued))))
			requeued[nrequeued++] = acts[k].job;
		if (r->status)
			r->status[k] = rc;
		if (rc == FW_OK)
			r->applied++;
		else if (rc == FW_ENOENT || rc == FW_EEXIST) /* backend.h: skipped, or in place */
			r->skipped++;
		else if (r->failed++ == 0)
			snprintf(r->msg, sizeof r->msg, "%s", rc == FW_EIO ? h->last_err : fw_strerror(rc));
	}
	free(requeued);
	resv_sweep(h, acts, n);
	kept_sweep(h);
	release_into_reservations(h);
	h->st.failed += (uint64_t)r->failed;
	h->st.skipped += (uint64_t)r->applied -
			 (h->st.starts + h->st.evicts + h->st.reserves + h->st.drains - before) +
			 (uint64_t)r->skipped;
	h->st.apply_ms = now_ms() - t0;
	return FW_OK;
}

/* ------------------------------------------------------------ windows */

/* The window's nodes, comma separated (malloc'd), or NULL. */
static char *window_nodes(const struct fw_backend_window *w)
{
	size_t len = 1;
	char *s;

	for (int32_t k = 0; k < w->nnodes; k++)
		len += strlen(w->nodes[k]) + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	for (int32_t k = 0; k < w->nnodes; k++) {
		if (k)
			strcat(s, ",");
		strcat(s, w->nodes[k]);
	}
	return s;
}

/* One window: create fairway-maint-<id>, or update it when its nodes
 * differ from the last read or its times by a minute or more.  An open window starts "now" in Slurm
 * (it refuses starts far in the past), so its start is compared only while
 * it is to come. */
static int window_one(struct fw_slurm *h, const struct fw_backend_window *w,
		      time_t now, struct fw_diag *d)
{
	char name[FW_NAME_MAX + 16], *nodes = window_nodes(w), *made;
	time_t start = w->start > now ? (time_t)w->start : now;
	reserve_info_t *old;
	resv_desc_msg_t r;
	int rc = FW_OK;

	if (!nodes)
		return FW_ENOMEM;
	snprintf(name, sizeof name, FW_SLURM_MAINT_PREFIX "%s", w->id);
	old = fw__slurm_resv(h, name);
	if (old && same_hosts(old->node_list, nodes) && labs((long)(old->end_time - (time_t)w->end)) < 60 &&
	    (labs((long)(old->start_time - start)) < 60 || (w->start <= now && old->start_time <= now)))
		goto out; /* in place (Slurm may round to the minute) */
	slurm_init_resv_desc_msg(&r);
	r.name = name;
	r.node_list = nodes;
	r.end_time = (time_t)w->end;
	if (old) {
		if (w->start > now || old->start_time > now)
			r.start_time = start;
		if (slurm_update_reservation(&r) != SLURM_SUCCESS)
			rc = fw__slurm_refused(h, "update reservation", name);
	} else {
		r.start_time = start;
		r.users = "root";
		r.flags = RESERVE_FLAG_MAINT | RESERVE_FLAG_IGN_JOBS;
		if (!(made = slurm_create_reservation(&r)))
			rc = fw__slurm_refused(h, "create reservation", name);
		free(made);
	}
	if (rc == FW_OK)
		h->st.reserves++;
	else
		fw_diag_set(d, rc, "", 0, 0, "windows", "%s", h->last_err);
out:
	free(nodes);
	return rc;
}

int fw_slurm_windows(struct fw_slurm *h, const struct fw_backend_window *w, int32_t n,
		     fw_time now, struct fw_diag *d)
{
	size_t plen = strlen(FW_SLURM_MAINT_PREFIX);
	int rc = FW_OK, one;

	for (int32_t k = 0; k < n; k++)
		if (w[k].end > now && w[k].nnodes > 0 && (one = window_one(h, &w[k], (time_t)now, d)) != FW_OK) {
			h->st.failed++;
			if (rc == FW_OK)
				rc = one;
		}
	for (uint32_t i = 0; h->resv && i < h->resv->record_count; i++) {
		const char *nm = h->resv->reservation_array[i].name;
		bool keep = false;
		if (strncmp(nm, FW_SLURM_MAINT_PREFIX, plen))
			continue;
		for (int32_t k = 0; k < n && !keep; k++)
			keep = w[k].end > now && !strcmp(nm + plen, w[k].id);
		if (!keep && resv_delete(h, nm) != FW_OK && rc == FW_OK)
			rc = fw_diag_set(d, FW_EIO, "", 0, 0, "windows", "%s", h->last_err);
	}
	return rc;
}

/* ------------------------------------------------------------ comments */

/* 1 when written, 0 when already there (or the job is gone).  A text
 * that starts with the -w mark is never written: it would read as the
 * user's -w (fw__slurm_nodelist). */
static int comment(struct fw_slurm *h, slurm_job_info_t *j, const char *text)
{
	job_desc_msg_t u;
	char id[16];

	if (!j || !fw__job_pending(j) || (j->comment && !strcmp(j->comment, text)))
		return 0;
	if (!strncmp(text, FW__NODELIST_MARK, strlen(FW__NODELIST_MARK)))
		return 0;
	slurm_init_job_desc_msg(&u);
	u.job_id = j->job_id;
	u.comment = (char *)text;
	if (slurm_update_job(&u) != SLURM_SUCCESS) {
		snprintf(id, sizeof id, "%u", j->job_id);
		h->st.failed++;
		fw__slurm_refused(h, "comment", id);
		return 0;
	}
	h->st.comments++;
	return 1;
}

/* No node of the job's partitions is left by its --exclude and
 * --constraint (filter.c): say which of them it asked. */
static void no_node_text(const slurm_job_info_t *j, char *buf, size_t len)
{
	const char *p = j->partition ? j->partition : "";

	if (fw__set(j->features) && fw__set(j->exc_nodes))
		snprintf(buf, len, "fairway: no node of partition %.40s has the features (%.40s) and is not "
			 "excluded (%.40s): held", p, j->features, j->exc_nodes);
	else if (fw__set(j->features))
		snprintf(buf, len, "fairway: no node of partition %.40s has the features (%.60s): held", p,
			 j->features);
	else if (fw__set(j->exc_nodes))
		snprintf(buf, len, "fairway: --exclude (%.60s) leaves no node of partition %.40s: held",
			 j->exc_nodes, p);
	else
		snprintf(buf, len, "fairway: partition %.40s has no node fairway schedules: held", p);
}

/* What it asks that fairway does not read or cannot place: its account, GPUs,
 * nodes, GPU form, --constraint, --exclusive or array task list. */
static void request_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	switch (o->why) {
	case FW__ORPHAN_NO_QUEUE:
		snprintf(buf, len, "fairway: account '%.60s' is no fairway queue: held (scontrol update jobid=%u "
			 "account=NAME, NAME a queue of fairway's YAML, lets it be planned)",
			 j->account ? j->account : "", (unsigned)j->job_id);
		break;
	case FW__ORPHAN_GPUS:
		snprintf(buf, len, "fairway: asks %d GPUs per node, and fairway places at most %d "
			 "on a node: held (ask for fewer per node, on more nodes)", (int)o->n, FW_MAX_GPUS_PER_NODE);
		break;
	case FW__ORPHAN_NODES:
		snprintf(buf, len, "fairway: asks %d nodes, and a fairway job has at most %d tasks: held",
			 (int)o->n, FW_MAX_TASKS);
		break;
	case FW__ORPHAN_GPU_FORM:
		snprintf(buf, len, "fairway: reads GPUs per node, per task or per job, not --gpus-per-socket: "
			 "held (ask --gpus-per-node)");
		break;
	case FW__ORPHAN_CONSTRAINT:
		snprintf(buf, len, "fairway: reads --constraint as features joined by &, | and ( ), not (%.60s): "
			 "held (ask without [ ], counts *N, ! or commas)", j->features ? j->features : "");
		break;
	case FW__ORPHAN_EXCLUSIVE:
		snprintf(buf, len, "fairway: --exclusive on nodes of several sizes: held (ask for a node's GPUs, "
			 "CPUs and memory instead)");
		break;
	case FW__ORPHAN_ARRAY_LIST:
		snprintf(buf, len, "fairway: reads an array's pending tasks as a list of N, N-M and N-M:S, not (%.60s): "
			 "held (resubmit the tasks left as a new array)", j->array_task_str ? j->array_task_str : "");
		break;
	default:
		break;
	}
}

/* No node it may use: none left by its partitions, --exclude and
 * --constraint, a -w that names one it may not use or not as many as it
 * asks, or all of them reserved. */
static void nodes_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	const char *w = fw__slurm_nodelist(j);

	switch (o->why) {
	case FW__ORPHAN_NO_NODE:
		no_node_text(j, buf, len);
		break;
	case FW__ORPHAN_NODELIST: /* "fairway: -w " would read as the -w record */
		snprintf(buf, len, "fairway: its -w (%.60s) names a node that partition %.40s, --exclude or "
			 "--constraint rule out, or that fairway does not schedule: held (change it with "
			 "scontrol update nodelist=)", w ? w : "", j->partition ? j->partition : "");
		break;
	case FW__ORPHAN_NODELIST_COUNT: {
		int named = (int)fw__slurm_nodelist_count(w ? w : "");
		snprintf(buf, len, "fairway: asks %d node%s and -w names %d (%.60s); fairway starts a -w job on "
			 "exactly the nodes it names: held (name them all, or ask -N %d)", (int)o->n,
			 o->n == 1 ? "" : "s", named, w ? w : "", named);
		break;
	}
	case FW__ORPHAN_RESERVED:
		snprintf(buf, len, "fairway: every node it may use is in reservation %.60s%s (scontrol show res) from "
			 "before its time limit would end: held until it is over (a shorter -t may fit before)",
			 o->resv[0] ? o->resv : "?", o->m > 0 ? " or another" : "");
		break;
	default:
		break;
	}
}

/* Released for Slurm to start: into its reservation, once its
 * dependency is met, where Slurm holds it back, or onto the nodes its
 * heterogeneous job was planned on. */
static void released_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	switch (o->why) {
	case FW__ORPHAN_TO_RESV:
	case FW__ORPHAN_IN_RESV:
		snprintf(buf, len, "fairway: asks for reservation %.60s: released into it; Slurm starts it there",
			 j->resv_name ? j->resv_name : "");
		break;
	case FW__ORPHAN_DEPENDENCY:
		snprintf(buf, len, "fairway: released; Slurm starts it once its dependency (%.100s) is met",
			 j->dependency ? j->dependency : "");
		break;
	case FW__ORPHAN_SLURM_HOLD: {
		char why[64];
		snprintf(buf, len, "fairway: released onto %.60s; Slurm holds it back (%s) and starts it there once "
			 "that allows, or fairway plans it anew", j->req_nodes ? j->req_nodes : "",
			 fw__slurm_reason_name((uint16_t)o->n, why, sizeof why));
		break;
	}
	case FW__ORPHAN_HET_RELEASED:
		snprintf(buf, len, "fairway: released onto %.60s, where other jobs run now; Slurm starts its "
			 "heterogeneous job there once they end", j->req_nodes ? j->req_nodes : "");
		break;
	default:
		break;
	}
}

/* A heterogeneous job fairway cannot plan whole. */
static void het_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	switch (o->why) {
	case FW__ORPHAN_HET_SET:
		snprintf(buf, len, "fairway: reads a heterogeneous job of at most %d components listed as N-M or "
			 "N,M, not (%.60s): held", FW__HET_MAX, j->het_job_id_set ? j->het_job_id_set : "");
		break;
	case FW__ORPHAN_HET_GROUPS:
		snprintf(buf, len, "fairway: plans a heterogeneous job of at most %d components and this one has %d "
			 "waiting: held (submit fewer components, or separate jobs)", FW_MAX_GROUPS, (int)o->n);
		break;
	case FW__ORPHAN_HET_MIXED:
		snprintf(buf, len, "fairway: plans a heterogeneous job whose components ask the same account and "
			 "--switches: held (submit it so)");
		break;
	case FW__ORPHAN_HET_OTHER:
		snprintf(buf, len, "fairway: component %u of this heterogeneous job is held (see its comment), and "
			 "Slurm runs the components together: held too", (unsigned)o->n);
		break;
	case FW__ORPHAN_HET_PARTLY:
		snprintf(buf, len, "fairway: component %u of this heterogeneous job was released alone, and Slurm "
			 "runs the components together: held (scontrol release %u lets Slurm place the rest; "
			 "scontrol hold %u, then scontrol release %u, lets fairway plan it whole)", (unsigned)o->n,
			 (unsigned)j->het_job_id, (unsigned)j->het_job_id, (unsigned)j->het_job_id);
		break;
	default:
		break;
	}
}

/* Held until its begin time (EligibleTime): one Slurm set itself when it
 * requeued the job (restart_cnt > 0: the requeue plus AuthInfo's
 * cred_expire; fairway's evict is such a requeue), or its user's
 * (sbatch --begin, scontrol update starttime=).  job_info has no
 * begin_time of its own: eligible_time is it while it is ahead. */
static void begin_wait_text(const slurm_job_info_t *j, char *buf, size_t len)
{
	char when[32];

	fw_utc_format_minute((int64_t)j->eligible_time, when, sizeof when); /* rounded up to the minute */
	if (j->restart_cnt > 0)
		snprintf(buf, len, "fairway: requeued (%u time%s): Slurm starts it again only from its begin time, "
			 "%s (EligibleTime, set by the requeue): held until then", (unsigned)j->restart_cnt,
			 j->restart_cnt == 1 ? "" : "s", when);
	else
		snprintf(buf, len, "fairway: waits for its begin time (%s): held until then", when);
}

/* Held until a time: its begin time, one of its array's running tasks
 * ending, or its partition starting jobs again (DOWN, INACTIVE) or back
 * in Slurm (gone: deleted since fairway started). */
/* Its managed partitions start no job: the one that holds it, named
 * alone (not Slurm's whole list: `-p gpu,cpu` is held by gpu, which
 * fairway manages), with its state; several, each with its own.  An
 * orphan made without its partitions (o->parts "") names the job's. */
static void part_down_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	const char *p = o->parts[0] ? o->parts : fw__set(j->partition) ? j->partition : "";

	if (o->m > 1)
		snprintf(buf, len, "fairway: none of its partitions starts jobs in Slurm (%.*s): held until one is UP",
			 FW__PARTS_TEXT, p);
	else if (o->n == FW__PART_GONE)
		snprintf(buf, len, "fairway: partition %.40s is gone from Slurm: held until it is back "
			 "(scontrol update jobid=%u partition=NAME moves it)", p, (unsigned)j->job_id);
	else
		snprintf(buf, len, "fairway: partition %.40s is %s in Slurm, which starts none of its jobs: "
			 "held until it is UP", p, fw__part_state_word((enum fw__part_state)o->n));
}

static void until_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	switch (o->why) {
	case FW__ORPHAN_PART_DOWN:
		part_down_text(o, j, buf, len);
		break;
	case FW__ORPHAN_BEGIN:
		begin_wait_text(j, buf, len);
		break;
	case FW__ORPHAN_THROTTLE:
		snprintf(buf, len, "fairway: its array runs at most %d tasks at a time (%%%d) and as many run: "
			 "held until one ends", (int)o->n, (int)o->n);
		break;
	default:
		break;
	}
}

void fw__orphan_text(const struct fw__orphan *o, const slurm_job_info_t *j, char *buf, size_t len)
{
	/* its user's hold first, whatever else would keep it: the comment
	 * is job_submit.lua's record of that hold, kept as it is */
	if (fw__slurm_user_held(j)) {
		snprintf(buf, len, "%s", FW__USER_HOLD_TEXT);
		return;
	}
	switch (o->why) {
	case FW__ORPHAN_NO_QUEUE:
	case FW__ORPHAN_GPUS:
	case FW__ORPHAN_NODES:
	case FW__ORPHAN_GPU_FORM:
	case FW__ORPHAN_CONSTRAINT:
	case FW__ORPHAN_EXCLUSIVE:
	case FW__ORPHAN_ARRAY_LIST:
		request_text(o, j, buf, len);
		break;
	case FW__ORPHAN_NO_NODE:
	case FW__ORPHAN_NODELIST:
	case FW__ORPHAN_NODELIST_COUNT:
	case FW__ORPHAN_RESERVED:
		nodes_text(o, j, buf, len);
		break;
	case FW__ORPHAN_TO_RESV:
	case FW__ORPHAN_IN_RESV:
	case FW__ORPHAN_DEPENDENCY:
	case FW__ORPHAN_SLURM_HOLD:
	case FW__ORPHAN_HET_RELEASED:
		released_text(o, j, buf, len);
		break;
	case FW__ORPHAN_HET_SET:
	case FW__ORPHAN_HET_GROUPS:
	case FW__ORPHAN_HET_MIXED:
	case FW__ORPHAN_HET_OTHER:
	case FW__ORPHAN_HET_PARTLY:
		het_text(o, j, buf, len);
		break;
	case FW__ORPHAN_BEGIN:
	case FW__ORPHAN_THROTTLE:
	case FW__ORPHAN_PART_DOWN:
		until_text(o, j, buf, len);
		break;
	}
}

/* The record a note goes to, or NULL: an array's pending tasks share
 * their pending record's one Comment, which takes the note of the first
 * of them (notes come in the plan's order); the others would only write
 * the same record over again.  told: per job record, noted already. */
static slurm_job_info_t *note_target(struct fw_slurm *h, const char *name, bool *told)
{
	uint32_t task;
	slurm_job_info_t *j = job_of(h, name, &task);
	size_t i;

	if (!j || task == NO_VAL)
		return j;
	i = (size_t)(j - h->jobs->job_array);
	if (told[i])
		return NULL;
	told[i] = true;
	return j;
}

/* The note of a heterogeneous job (named after its first waiting
 * component j) on its other waiting components too. */
static int het_comments(struct fw_slurm *h, slurm_job_info_t *j, const char *text)
{
	slurm_job_info_t *c[FW_MAX_GROUPS];
	int32_t listed, n = fw__het_waiting(h, j, c, FW_MAX_GROUPS, &listed);
	int done = 0;

	for (int32_t k = 1; k < n && k < FW_MAX_GROUPS && c[0] == j; k++)
		done += comment(h, c[k], text);
	return done;
}

int fw_slurm_annotate(struct fw_slurm *h, const struct fw_slurm_note *notes,
		      int32_t n)
{
	double t0 = now_ms();
	bool *told = calloc(h->jobs && h->jobs->record_count ? h->jobs->record_count : 1, sizeof *told);
	char text[200];
	int done = 0;

	for (int32_t k = 0; told && k < n && done < h->o.comment_budget; k++) {
		slurm_job_info_t *j = note_target(h, notes[k].job, told);
		done += comment(h, j, notes[k].text);
		if (j && fw__het_job(j)) /* the job's other waiting components */
			done += het_comments(h, j, notes[k].text);
	}
	free(told);
	for (int32_t k = 0; k < h->norphans && done < h->o.comment_budget; k++) {
		slurm_job_info_t *j = fw__slurm_job(h, h->orphans[k].job);
		if (!j)
			continue;
		fw__orphan_text(&h->orphans[k], j, text, sizeof text);
		done += comment(h, j, text);
	}
	h->st.annotate_ms = now_ms() - t0;
	return done;
}
