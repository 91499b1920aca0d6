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
 *
 * Its nodes, expanded once.  slurmctld keeps thousands of ended jobs on a
 * busy cluster (MinJobAge, 300 s by default), and the daemon asks twice
 * a cycle under its lock (counts, then the list): expanding every
 * NodeList each time cost 38 ms of CPU a cycle at 10,000 ended jobs
 * (bench/bench_slurm_ended.c, docs/performance.md).  So each job's names
 * are kept (struct fw__ran_cache) and used while its record has the same
 * job id, end time and NodeList text (a requeued job that ends again is
 * expanded anew); each call drops the entries of jobs it did not list,
 * so no more are kept than Slurm lists ended.  Out of memory, a job's
 * nodes are expanded as before, into the caller's names alone.  The
 * words (state, text, user) are made only for the jobs that fit the
 * caller's cap: the counting call makes none.
 *
 * Its record in words, made once.  With the names cached, 6 ms of CPU a
 * cycle was left at 10,000 ended jobs, most of it each job's 832-byte
 * struct fw_backend_ended cleared and filled by snprintf (name, account,
 * user, state, text) in every list call.  So the entry also keeps the
 * record as the first list call made it (ended_fill), copied out while
 * the job's state, exit code, start, submission and fairway's end mark
 * are the same (rec_holds: not its name, account and user, which a
 * finished job keeps), node_first and nnodes set per call.
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

/* Did fairway end j at its run-time limit (its comment FW__ENDED)? */
static bool ended_by_fairway(const slurm_job_info_t *j)
{
	return fw__set(j->comment) && !strncmp(j->comment, FW__ENDED, strlen(FW__ENDED));
}

/* Slurm's end of j in the local backend's words, into e: its state, exit
 * code, reason and text; false for a record that has not ended (e NULL:
 * only whether it ended, nothing written). */
static bool end_of(const slurm_job_info_t *j, struct fw_backend_ended *e)
{
	uint32_t base = j->job_state & JOB_STATE_BASE, code = j->exit_code;
	bool exited = (code & 0x7f) == 0, ours = ended_by_fairway(j);
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
	if (!e)
		return true;
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
 * names from *k, up to ncap; how many it ran on.  Expanded anew: what
 * ran_on does when its cache has no room. */
static int32_t ran_on_slurm(const slurm_job_info_t *j, char (*names)[FW_NAME_MAX], int32_t ncap, int32_t *k)
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

/* ---- ended jobs' nodes, each expanded once (struct fw__ran_cache) ---- */

static uint32_t ran_hash(uint32_t job)
{
	return job * 2654435761u; /* Knuth's multiplicative hash */
}

/* The index slot of job: its entry's, or the empty one it would take. */
static uint32_t *ran_slot(struct fw__ran_cache *c, uint32_t job)
{
	uint32_t m = c->idx_cap - 1, k = ran_hash(job) & m;

	while (c->idx[k] && c->e[c->idx[k] - 1].job != job)
		k = (k + 1) & m;
	return &c->idx[k];
}

/* The index made anew for e[0 .. n), at most half full with want
 * entries; false when out of memory (the index is then empty). */
static bool ran_reindex(struct fw__ran_cache *c, int32_t want)
{
	uint32_t cap = 16;

	while (cap < 2u * (uint32_t)want)
		cap <<= 1;
	if (cap != c->idx_cap) {
		free(c->idx);
		c->idx_cap = 0;
		if (!(c->idx = calloc(cap, sizeof *c->idx)))
			return false;
		c->idx_cap = cap;
	} else {
		memset(c->idx, 0, cap * sizeof *c->idx);
	}
	for (int32_t i = 0; i < c->n; i++)
		*ran_slot(c, c->e[i].job) = (uint32_t)i + 1;
	return true;
}

static void ran_clear(struct fw__ran *r)
{
	free(r->list);
	free(r->names);
	free(r->rec);
	r->list = NULL;
	r->names = NULL;
	r->rec = NULL;
	r->n = 0;
}

/* r holds j's nodes, NodeList expanded; false when out of memory (r is
 * then empty, its list NULL: no record matches it). */
static bool ran_expand(struct fw__ran *r, const slurm_job_info_t *j)
{
	hostlist_t hl = fw__set(j->nodes) ? FW__SLP(slurm_hostlist_create(j->nodes)) : NULL;
	int32_t cap = hl ? FW__SL(slurm_hostlist_count(hl)) : 0;
	char *host;

	ran_clear(r);
	r->list = strdup(j->nodes ? j->nodes : "");
	r->names = cap > 0 ? calloc((size_t)cap, sizeof *r->names) : NULL;
	while (r->list && (cap <= 0 || r->names) && hl && r->n < cap && (host = FW__SLP(slurm_hostlist_shift(hl)))) {
		snprintf(r->names[r->n++], FW_NAME_MAX, "%s", host);
		free(host);
	}
	if (hl)
		FW__SLV(slurm_hostlist_destroy(hl));
	if (!r->list || (cap > 0 && !r->names)) {
		ran_clear(r);
		return false;
	}
	r->job = j->job_id;
	r->end = (int64_t)j->end_time;
	return true;
}

/* The entry of j, expanded once (its id, end time and NodeList the
 * entry's, else made anew), marked seen by this call; NULL when out of
 * memory. */
static struct fw__ran *ran_entry(struct fw__ran_cache *c, const slurm_job_info_t *j)
{
	uint32_t *slot;
	struct fw__ran *r;

	if ((c->n + 1) * 2 > (int32_t)c->idx_cap && !ran_reindex(c, c->n + 1))
		return NULL;
	slot = ran_slot(c, j->job_id);
	if (*slot) {
		r = &c->e[*slot - 1];
		if (r->end == (int64_t)j->end_time && r->list && !strcmp(r->list, j->nodes ? j->nodes : "")) {
			r->seen = c->call;
			return r;
		}
	} else {
		if (c->n == c->cap) {
			int32_t cap = c->cap ? 2 * c->cap : 64;
			struct fw__ran *e = realloc(c->e, (size_t)cap * sizeof *e);
			if (!e)
				return NULL;
			c->e = e;
			c->cap = cap;
		}
		r = &c->e[c->n];
		memset(r, 0, sizeof *r);
		*slot = (uint32_t)++c->n;
	}
	c->expanded += fw__set(j->nodes);
	r->seen = c->call;
	return ran_expand(r, j) ? r : NULL;
}

/* Drop the entries this call did not see (Slurm no longer lists their
 * jobs, or lists them changed): e compacted, the index made anew. */
static void ran_sweep(struct fw__ran_cache *c)
{
	int32_t kept = 0;

	for (int32_t i = 0; i < c->n; i++) {
		if (c->e[i].seen == c->call)
			c->e[kept++] = c->e[i];
		else
			ran_clear(&c->e[i]);
	}
	if (kept == c->n)
		return;
	c->n = kept;
	if (!ran_reindex(c, kept)) { /* no index: drop them all */
		for (int32_t i = 0; i < c->n; i++)
			ran_clear(&c->e[i]);
		c->n = 0;
	}
}

void fw__slurm_ended_free(struct fw_slurm *h)
{
	struct fw__ran_cache *c = &h->ran;

	for (int32_t i = 0; i < c->n; i++)
		ran_clear(&c->e[i]);
	free(c->e);
	free(c->idx);
	memset(c, 0, sizeof *c);
}

/* j's nodes into names from *k, up to ncap, from its cache entry r (or,
 * r NULL: out of memory, expanded anew); how many it ran on. */
static int32_t ran_on(const struct fw__ran *r, const slurm_job_info_t *j, char (*names)[FW_NAME_MAX], int32_t ncap,
		      int32_t *k)
{
	int32_t fit;

	if (!fw__set(j->nodes))
		return 0;
	if (!r)
		return ran_on_slurm(j, names, ncap, k);
	fit = ncap - *k < r->n ? ncap - *k : r->n;
	if (fit > 0)
		memcpy(names[*k], r->names, (size_t)fit * sizeof *r->names);
	*k += r->n;
	return r->n;
}

/* j in words into e, but for its nodes' place in the caller's names
 * (node_first, nnodes): ran, how many nodes it ran on. */
static void ended_words(struct fw_slurm *h, const slurm_job_info_t *j, int32_t ran, struct fw_backend_ended *e)
{
	memset(e, 0, sizeof *e);
	end_of(j, e);
	e->started = ran > 0 ? (fw_time)j->start_time : 0;
	fw__job_name(h, j, e->job, sizeof e->job);
	snprintf(e->queue, sizeof e->queue, "%s", fw__set(j->account) ? j->account : "");
	fw__slurm_user(h, j, e->user, sizeof e->user);
	e->gpus = fw__slurm_job_gpus(j);
	e->submitted = (fw_time)j->submit_time;
	e->ended = (fw_time)j->end_time;
}

/* Is r's record in words still j's?  The entry already matched j's id,
 * end time and NodeList (ran_entry); the rest of what end_of and
 * ended_words read that Slurm may still change on an ended job's record
 * is compared here (its state, exit code, start, submission, and whether
 * its comment says fairway ended it).  Its name, account, user and GPUs
 * are not: they are what the job ran as, which an update of a finished
 * job is not expected to change (slurmctld answers such updates "Job has
 * already finished"), and a requeued job that ends again has another
 * end time, so another entry. */
static bool rec_holds(const struct fw__ran *r, const slurm_job_info_t *j)
{
	return r->rec && r->rec_state == j->job_state && r->rec_exit == j->exit_code &&
	       r->rec_start == (int64_t)j->start_time && r->rec_submit == (int64_t)j->submit_time &&
	       r->rec_ours == ended_by_fairway(j);
}

/* j's record in words into e, node_first and nnodes (the names that fit
 * ncap) aside: r's copy while it holds, else made and kept in r (r NULL,
 * or no room for the copy: made alone, as every call did before). */
static void ended_fill(struct fw_slurm *h, struct fw__ran *r, const slurm_job_info_t *j, int32_t first, int32_t ran,
		       int32_t ncap, struct fw_backend_ended *e)
{
	if (r && rec_holds(r, j)) {
		memcpy(e, r->rec, sizeof *e);
	} else {
		ended_words(h, j, ran, e);
		if (r && (r->rec || (r->rec = malloc(sizeof *r->rec)))) {
			memcpy(r->rec, e, sizeof *e);
			r->rec_state = j->job_state;
			r->rec_exit = j->exit_code;
			r->rec_start = (int64_t)j->start_time;
			r->rec_submit = (int64_t)j->submit_time;
			r->rec_ours = ended_by_fairway(j);
			h->ran.filled++;
		}
	}
	e->node_first = first;
	e->nnodes = first + ran > ncap ? ncap - first : ran; /* the names that fit */
}

int fw_slurm_ended(struct fw_slurm *h, struct fw_backend_ended *out, int32_t cap, char (*names)[FW_NAME_MAX],
		   int32_t ncap, int32_t *nnames)
{
	int32_t n = 0, k = 0;

	h->ran.call++;
	for (uint32_t i = 0; h->jobs && i < h->jobs->record_count; i++) {
		const slurm_job_info_t *j = &h->jobs->job_array[i];
		int32_t first = k < ncap ? k : ncap, ran;
		struct fw__ran *r;
		if (!listed_ended(h, j) || !end_of(j, NULL))
			continue;
		r = ran_entry(&h->ran, j); /* NULL: out of memory, made anew */
		ran = ran_on(r, j, names, ncap, &k);
		if (n < cap) /* in words only where it fits (the count asks none) */
			ended_fill(h, r, j, first, ran, ncap, &out[n]);
		n++;
	}
	ran_sweep(&h->ran);
	*nnames = k;
	return n;
}
