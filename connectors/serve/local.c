/*
 * local.c — the `local` backend: a virtual cluster on one machine.
 *
 * The nodes are the fleet's (the config YAML).  Jobs arrive through the
 * API (submit), start when the daemon applies a START, and "run" for their
 * requested runtime in wall-clock time: read() finishes every running job
 * whose start + runtime has passed: `done`, or `failed` when it was
 * submitted with a non-zero exitCode (0..255, default 0).  A job with
 * runtime 0 runs until it is cancelled.  Nothing is executed.  States:
 * pending, running, done, failed, cancelled, timeout (LJOB_STATES); an
 * evicted job is pending again and a cancelled one is not a failure.  A
 * job the plan ends at its run-time limit (an EVICT with reason
 * TIME_LIMIT: its own maxRuntime or its queue's) is not requeued but
 * ends, `timeout`, at that plan's time, as Slurm's TIMEOUT: final like
 * done, failed and cancelled, not a failure of its nodes.  Its own
 * maxRuntime is part of its stored document (codec.c), so it outlives a
 * restart.
 *
 * Run-time limits the cycle cannot see: read() also applies a running
 * job's limit (fw_job_limit over the queues of the snapshot it fills: the
 * daemon's) where no cycle could have ended it: when its runtime is up
 * too (read() would otherwise finish it before the cycle sees it), and at
 * the first read after open for a limit that passed before the open (no
 * daemon ran).  Such a job ends `timeout` at start + limit, when the limit
 * falls before its runtime's end (or it has no runtime), with the row the
 * cycle would log (evict, time_limit, the same text; cycle 0: the
 * backend's own, as a fleet-change requeue's), in the transaction of its
 * state.  A runtime ending at the limit's very instant wins (`done`), as
 * in a running daemon, whose read() finishes it before the cycle that
 * would end it at its limit.  Other limits reached while the daemon runs
 * are left to the cycle (at its plan's time), so a limit lowered under
 * what a job has run ends it at the next cycle, not in the past (unless
 * its runtime is up by then too: then at start + the new limit).
 *
 * An evicted job
 * keeps the whole checkpoints of its run (one every checkpointInterval
 * seconds after its start; none without one): restarted, it runs only the
 * rest of its runtime, and the snapshot gives the engine that rest as its
 * expected runtime.
 *
 * Job failures (health.h: JOB_FAILURE), so the failure -> suspect-node
 * path can be tried without Slurm.  Each failed job is one event at its
 * end time on every node it ran on (once per node, however many of its
 * tasks were there), folded per fleet node through the core's model
 * (fw_health_step, fw_health_config_default) as connectors/slurm/
 * jobfail.c does: the 3rd within 24 h puts the node on probation (6 h),
 * and health() reports it suspect with jobfail.c's reason.  Unlike Slurm,
 * where the failing node of a multi-node FAILED job is unknown and none
 * is blamed, a virtual job's exit code is its submitter's choice, so all
 * its nodes count it.  The tally is not stored: it is rebuilt from the
 * stored jobs, failed ones in order of end time, on open and at the first
 * health() after a job failed, so a restart forgets nothing and counts
 * exactly what the daemon before it counted.  The rebuild is O(jobs) and
 * runs only when a job failed.  health() names only nodes on probation or
 * with failures in the current window; the daemon reads the others as
 * healthy (and a POSTed unhealthy report still wins: cycle.c).  Sharing
 * jobfail.c's name-keyed tally was not worth a new module: this backend
 * knows its nodes by index, so a record per fleet node is the whole of it.
 *
 * Persistence: every job is one document in the store's `jobs` table
 * (its exitCode only when non-zero: older documents load as 0; a job
 * array's task has its arrayOf beside the codec's fields, older
 * documents and jobs of their own none),
 * written through on each change (submit, cancel, start, evict, finish),
 * inside the daemon's transaction when there is one (apply), so a job's
 * state and the decision that changed it commit together.  Jobs whose
 * runtime is up (read()) end in memory only once their ends committed: a
 * store error fails the read and the next one tries again.  Every op
 * changes memory only once its own write succeeded (commit_job), and when
 * the daemon rolls back a transaction these writes were in, reload()
 * re-reads jobs and drains from the store.  open() reloads
 * the table; on a brand-new store it seeds the fleet's own jobs (the
 * example cluster's running and pending jobs), shifting their times from
 * the config's `now` to the wall clock.  Each stored document is checked
 * whole before it is kept (load_one: the codec's members, then the
 * state, times, starts, kept and placements, its name its key); one
 * refused stops the open, or the reload, naming the job and the field
 * and saying what to do, with nothing of it kept.
 *
 * Fleet changes: the store outlives the config, so open() may find jobs
 * the fleet no longer fits.  A running job on a node the fleet lacks (or
 * on GPUs its node no longer has, or on a node whose CPU or memory the
 * running jobs stored before it leave too little of) is requeued, as
 * Slurm does with jobs on removed nodes: pending again, keeping its whole checkpoints, one line
 * on stderr naming the job and the node, and a decision-log row (kind
 * "requeue", reason "fleet_change", cycle 0: before this daemon's first
 * cycle) committed with the job's new state, so `fairway jobs why` and
 * GET /v1/jobs/{name} show it.  But such a job whose run-time limit (its
 * own maxRuntime or its queue's: fw_job_limit over the daemon's queues,
 * cfg->queues) passed before the open, ahead of its runtime's end, ends
 * `timeout` at start + its limit instead, as read()'s catch-up ends one
 * on a kept node: the same decision-log row (evict, time_limit, cycle 0),
 * counted in the same fw_local_timed_out, with its own line on stderr
 * (naming the node and when the limit passed).  A stored job the config
 * cannot describe at all (a topology level it lacks) stops the open
 * with an error naming the job and what is missing: it cannot be
 * planned, and dropping it silently would lose it.
 *
 * Where a job ran: a job's placements (struct ljob place) are what it
 * holds while it runs and, once it runs no more, the record of where it
 * last ran.  A job that ends (done, failed, cancelled while running,
 * timeout: at a plan's limit, at read()'s or at open()'s) keeps them, and
 * so does one evicted or requeued by a fleet change, which waits with the
 * placements of the run it lost until its next start replaces them (one
 * cancelled while it waits so still says where it last ran).  Only a
 * running job's hold anything: every reader that books capacity (add_job
 * into the snapshot, the capture's copy, gpu_books, lost_node and
 * full_node at open) reads a running job's alone, so the snapshot the
 * core sees is the one it saw before they were kept.  count_failure reads
 * a failed job's (its nodes' fault history); fw_local_job_ran gives an
 * ended job's to the API ("nodes": where it ran, as sacct's NodeList); a
 * waiting job shows none (its current run has none yet).  They are the
 * stored document's `alloc`, which older versions kept for running, done
 * and failed jobs only: a cancelled or timeout job of such a store loads
 * with none, its nodes unknown.
 *
 * Node selectors: a job's nodeSelector and its task groups' own
 * (backend.h) are kept with it and resolved at every read into the
 * snapshot's node filter and group filters (fw_node_has_labels over the
 * fleet's labels), jobs and groups of one selector sharing one list; a
 * waiting job one of whose selectors meets no node (a relabelled fleet)
 * gets a filter that leaves out every node (an except list of them all),
 * so the plan holds it as never able to start and the view says why
 * (view.c, no_node_group) instead of losing it.  A seeded fleet job's filters
 * become minimal label sets meeting the same nodes (seed_selector).
 *
 * Retention (--backend-opt min-job-age=SECONDS, as Slurm's MinJobAge; 0,
 * the default, keeps every job): read() forgets the jobs that ended that
 * long ago, a failed one only once the health model's longest window has
 * passed too (keep_for: its failure is in the tally above, rebuilt from
 * the stored jobs).  Store first (one transaction), memory only once it
 * committed; at most every min-job-age / 10 s (1..60), so the O(jobs)
 * compaction and re-index do not run every cycle.  Waiting and running
 * jobs are never forgotten, so no plan in flight names a forgotten job
 * and the generation stays.  A forgotten name is free again (submit); the
 * API shows a job's decision-log rows from its own submission on.
 *
 * Runs it ends itself (a runtime up or a limit passed, at read(); a
 * cancel of a running job; a fleet change's requeue or timeout at open)
 * end between the daemon's cycles, which see only the jobs still
 * running: each is noted (struct fw_backend_run: queue, user, the GPUs
 * of its placements, start, end) once its end committed, for the daemon
 * to count its usage to its very end (fw_local_runs, which forgets those
 * the daemon's usage has passed).  Memory only: the first read after an
 * open notes the runs whose end the stopped daemon missed (their runtime
 * was up meanwhile), which is what the restored usage lacks.  A plan's
 * evictions are not noted: they end at the plan's time, which that
 * cycle's usage reached already.
 *
 * Generation: bumped when a plan made before the change could be wrong
 * after it (a job cancelled, started, evicted, finished; a node drained
 * or returned).  A submission only adds pending work, which a plan in
 * flight simply has not considered yet, so it does not bump it (under a
 * steady stream of submissions every plan would otherwise be stale).
 * Some changes only free room: a cancel, a finish, a node returned.  A
 * plan older than those still fits, so apply() takes it unless one of its
 * actions names a job changed since (each job keeps the generation of its
 * last change: touched) or forgotten; a start, an evict, a drain or a
 * reload is hard (hard_gen): a plan older than it is stale whatever it
 * names (plan_holds).  At 1,000 requests a second, 5% of them cancels,
 * a third of the plans saw a cancel while they were made (bench_serve).
 *
 * The read in two halves (backend.h capture, build): capture(), under
 * the daemon's lock, does what read() does to the backend (catch_up: the
 * jobs whose runtime is up end, min-job-age forgets) and copies the rest
 * of read()'s input: the waiting and running jobs, each record whole
 * with its placements and selector pairs in two pools, the drains, the
 * generation (struct fw_backend_copy: a struct fw_backend whose jobs are
 * those alone).  build() then runs read()'s second phase (fill) over the
 * copy without the lock.  At 20,000 jobs on 10,000 nodes the copy is
 * about 18 MB (some 830 bytes a job), a few ms under the lock; the fill
 * it takes out of the lock was 20-45 ms.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_ranges.h"
#include "backend.h"
#include "codec.h"
#include "fairway/health.h"
#include "fairway/span.h"
#include "local.h"
#include "reason.h"
#include "store.h"

#define LJOB_STATES(X) \
	X(PENDING, pending) X(RUNNING, running) X(DONE, done) X(CANCELLED, cancelled) X(FAILED, failed) \
	X(TIMEOUT, timeout)
enum lstate {
#define L__ENUM(U, l) L_##U,
	LJOB_STATES(L__ENUM)
#undef L__ENUM
	L_NSTATES
};
static const char *const lstate_name[] = {
#define L__NAME(U, l) #l,
	LJOB_STATES(L__NAME)
#undef L__NAME
};

struct ljob {
	struct fw_backend_job bj;
	enum lstate state;
	fw_time submit, start, end, reserved_at;
	fw_time kept;         /* seconds of its runtime saved by checkpoints
			       * before evictions (do_evict); a restart runs
			       * only the rest */
	int32_t starts;
	int32_t nplace;       /* running: the placements it holds; else those
			       * of its last run (none: it never ran), history
			       * that holds nothing (the file comment) */
	struct fw_backend_placement *place;
	uint64_t touched;     /* the generation its last change made (0: none
			       * since open): a plan older than it that names
			       * it is stale (plan_holds) */
};

struct nameref {
	const char *name;
	int32_t idx;
};

struct fw_backend {
	const struct fw_snapshot *fleet;
	struct fw_serve_store *store;
	struct ljob *jobs;
	int32_t njobs, cap;
	uint32_t *hash;                /* job index + 1 by name (open addressing) */
	uint32_t hcap;                 /* a power of two, > 2 * indexed */
	int32_t indexed;               /* jobs [0, indexed) are in the hash */
	bool *drained;                 /* per fleet node */
	struct nameref *nodeix;        /* fleet nodes sorted by name */
	uint64_t gen;
	uint64_t hard_gen;             /* the last change that may make any
					* older plan wrong (start, evict, drain,
					* reload); cancels, finishes and releases
					* only free room (plan_holds) */
	struct fw_health_config hcfg;  /* fw_health_config_default() */
	struct fw_health_rec *fail;    /* per fleet node: its job failures */
	bool fail_stale;               /* a job failed since the last tally */
	fw_time now;                   /* the last read's (open's until then) */
	fw_time opened;                /* open's time (cfg->now) */
	bool caught_up;                /* a read has ended the jobs whose limit
					* passed before opened (finish_due) */
	uint64_t timed_out;            /* jobs read() ended at their limit */
	fw_time min_age;               /* min-job-age: seconds an ended job is
					* kept; 0 = every job, forever */
	fw_time purge_at;              /* the next read that may purge */
	uint64_t purged;               /* jobs purged since open */
	struct fw_backend_run *runs;   /* the runs it ended itself, for the
					* daemon's usage (fw_local_runs) */
	int32_t nruns, capr;
	char why[512];                 /* open(): the stored job that failed */
	const char *fix;               /* what to do about it (NULL: why says) */
};

/* --- lookups ----------------------------------------------------------- */
static int nameref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct nameref *)a)->name, ((const struct nameref *)b)->name);
}

static int32_t node_index(const struct fw_backend *b, const char *name)
{
	struct nameref key = { name, -1 };
	const struct nameref *r = bsearch(&key, b->nodeix, (size_t)b->fleet->nnodes, sizeof key, nameref_cmp);
	return r ? r->idx : -1;
}

static bool ended(const struct ljob *lj)
{
	return lj->state == L_DONE || lj->state == L_FAILED || lj->state == L_CANCELLED || lj->state == L_TIMEOUT;
}

/* A submit whose name a job the backend remembers has (FW_EEXIST, field
 * name): its state, and what to do, since an ended job keeps its name
 * until min-job-age forgets it (a user resubmitting "train" after it
 * finished is told why, not only that it exists). */
static int name_taken(const struct ljob *lj, struct fw_diag *d)
{
	if (!ended(lj))
		return fw_diag_set(d, FW_EEXIST, "", 0, 0, "name",
				   "a job named \"%s\" already exists (%s); give this one another name, or none: the "
				   "daemon names it job-N", lj->bj.job.name, lstate_name[lj->state]);
	return fw_diag_set(d, FW_EEXIST, "", 0, 0, "name",
			   "a job named \"%s\" already exists (%s, kept with its name until the backend forgets it: "
			   "--backend-opt min-job-age); give this one another name, or none: the daemon names it "
			   "job-N", lj->bj.job.name, lstate_name[lj->state]);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static void hash_put(struct fw_backend *b, int32_t i)
{
	uint32_t m = b->hcap - 1, k = name_hash(b->jobs[i].bj.job.name) & m;
	while (b->hash[k])
		k = (k + 1) & m;
	b->hash[k] = (uint32_t)i + 1;
}

/* Bring the name index up to date with the job array (jobs are only ever
 * appended; a rolled-back append is never indexed). */
static bool index_jobs(struct fw_backend *b)
{
	if (b->indexed > b->njobs)
		b->indexed = 0, b->hcap = 0; /* an append was rolled back: rebuild */
	if ((uint32_t)b->njobs * 2 >= b->hcap) {
		uint32_t cap = 1024;
		while (cap <= (uint32_t)b->njobs * 2)
			cap *= 2;
		uint32_t *h = calloc(cap, sizeof *h);
		if (!h)
			return false;
		free(b->hash);
		b->hash = h;
		b->hcap = cap;
		b->indexed = 0;
	}
	for (; b->indexed < b->njobs; b->indexed++)
		hash_put(b, b->indexed);
	return true;
}

static struct ljob *find_job(struct fw_backend *b, const char *name)
{
	if (!index_jobs(b)) { /* out of memory: the slow way */
		for (int32_t i = b->njobs - 1; i >= 0; i--)
			if (!strcmp(b->jobs[i].bj.job.name, name))
				return &b->jobs[i];
		return NULL;
	}
	for (uint32_t m = b->hcap - 1, k = name_hash(name) & m; b->hash[k]; k = (k + 1) & m)
		if (!strcmp(b->jobs[b->hash[k] - 1].bj.job.name, name))
			return &b->jobs[b->hash[k] - 1];
	return NULL;
}

static int label_key_cmp(const void *x, const void *y)
{
	return strcmp(((const struct fw_label *)x)->key, ((const struct fw_label *)y)->key);
}

/* --- persistence ----------------------------------------------------------- */
static json_t *ljob_dump(const struct fw_backend *b, const struct ljob *lj)
{
	json_t *o = fw_codec_job_dump(&lj->bj, &b->fleet->topology);
	json_t *alloc = json_array();

	for (int32_t i = 0; i < lj->nplace; i++) {
		const struct fw_backend_placement *p = &lj->place[i];
		json_array_append_new(alloc, json_pack("{s:s,s:i,s:I,s:i}", "node", p->node, "group", p->group, "gpuMask",
						       (json_int_t)p->gpu_mask, "gpuMilli", p->gpu_milli));
	}
	json_object_set_new(o, "state", json_string(lstate_name[lj->state]));
	json_object_set_new(o, "submitTime", json_integer(lj->submit));
	json_object_set_new(o, "startTime", json_integer(lj->start));
	json_object_set_new(o, "endTime", json_integer(lj->end));
	json_object_set_new(o, "starts", json_integer(lj->starts));
	if (lj->kept)
		json_object_set_new(o, "kept", json_integer(lj->kept)); /* 0: left out */
	json_object_set_new(o, "alloc", alloc);
	if (lj->bj.array_of[0]) /* a task of a job array; a job of its own: left out */
		json_object_set_new(o, "arrayOf", json_string(lj->bj.array_of));
	return o;
}

static int save(struct fw_backend *b, const struct ljob *lj)
{
	json_t *o = ljob_dump(b, lj);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	int rc = s ? fw_store_put(b->store, FW_STORE_JOBS, lj->bj.job.name, s) : FW_ENOMEM;
	free(s);
	json_decref(o);
	return rc;
}

static struct ljob *append(struct fw_backend *b)
{
	if (b->njobs == b->cap) {
		int32_t cap = b->cap ? b->cap * 2 : 64;
		struct ljob *n = realloc(b->jobs, (size_t)cap * sizeof *n);
		if (!n)
			return NULL;
		b->jobs = n;
		b->cap = cap;
	}
	struct ljob *lj = &b->jobs[b->njobs++];
	memset(lj, 0, sizeof *lj);
	return lj;
}

/* Make bj's selector pairs its own: an exact copy on the heap (NULL when
 * it has none) in place of the room it was parsed or built in (backend.h:
 * most jobs have no selector, and every job stays in memory).  On
 * FW_ENOMEM bj->sel is NULL and the job holds nothing to free. */
static int own_pairs(struct fw_backend_job *bj)
{
	int n = fw_backend_npairs(bj);
	struct fw_label *p = n > 0 ? malloc((size_t)n * sizeof *p) : NULL;

	if (n > 0 && p)
		memcpy(p, bj->sel, (size_t)n * sizeof *p);
	bj->sel = p;
	return n > 0 && !p ? FW_ENOMEM : FW_OK;
}

static int set_place(struct ljob *lj, const struct fw_backend_placement *p, int32_t n)
{
	struct fw_backend_placement *np = NULL;
	if (n > 0 && !(np = malloc((size_t)n * sizeof *np)))
		return FW_ENOMEM;
	if (n > 0)
		memcpy(np, p, (size_t)n * sizeof *np);
	free(lj->place);
	lj->place = np;
	lj->nplace = n;
	return FW_OK;
}

/* --- restore: a stored job document, checked ------------------------------- */
/* What to do about a stored document the checks below refuse. */
#define FIX_STORED \
	"fix the document (edited by hand? written by another fairway version?) or, with the daemon " \
	"stopped, delete its row from the store's jobs table"

/* Refuse stored job key at field (b->why: the job, the field, what is
 * wrong and what to do); FW_EINVAL. */
static int refuse(struct fw_backend *b, const char *key, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(struct fw_backend *b, const char *key, const char *field, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(b->why, sizeof b->why, "job %.63s: %.40s: %.191s", key, field, what);
	b->fix = FIX_STORED;
	return FW_EINVAL;
}

/* Member name of o (absent: *dst stays) as a whole number from lo to hi. */
static int stored_int(struct fw_backend *b, const char *key, json_t *o, const char *field, const char *name,
		      int64_t lo, int64_t hi, int64_t *dst)
{
	json_t *v = json_object_get(o, name);

	if (!v)
		return FW_OK;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return refuse(b, key, field, "must be a whole number from %lld to %lld", (long long)lo, (long long)hi);
	*dst = json_integer_value(v);
	return FW_OK;
}

/* The state members beside the codec's: state (required), the times,
 * starts and kept (absent: 0, as older documents). */
static int stored_state(struct fw_backend *b, const char *key, json_t *o, struct ljob *lj)
{
	const char *st = json_string_value(json_object_get(o, "state"));
	int64_t submit = 0, start = 0, end = 0, starts = 0, kept = 0;
	int s, rc;

	for (s = 0; st && s < L_NSTATES && strcmp(st, lstate_name[s]); s++)
		;
	if (!st || s == L_NSTATES)
		return refuse(b, key, "state", "must be one of pending, running, done, cancelled, failed, timeout");
	if ((rc = stored_int(b, key, o, "submitTime", "submitTime", -FW_API_TIME_MAX, FW_API_TIME_MAX, &submit)) ||
	    (rc = stored_int(b, key, o, "startTime", "startTime", -FW_API_TIME_MAX, FW_API_TIME_MAX, &start)) ||
	    (rc = stored_int(b, key, o, "endTime", "endTime", -FW_API_TIME_MAX, FW_API_TIME_MAX, &end)) ||
	    (rc = stored_int(b, key, o, "starts", "starts", 0, INT32_MAX, &starts)) ||
	    (rc = stored_int(b, key, o, "kept", "kept", 0, FW_API_TIME_MAX, &kept)))
		return rc;
	if (json_object_get(o, "arrayOf") && (!json_is_string(json_object_get(o, "arrayOf")) ||
					      json_string_length(json_object_get(o, "arrayOf")) >= FW_NAME_MAX))
		return refuse(b, key, "arrayOf", "must be a job array's name (at most %d bytes)", FW_NAME_MAX - 1);
	lj->state = (enum lstate)s;
	lj->submit = submit;
	lj->start = start;
	lj->end = end;
	lj->starts = (int32_t)starts;
	lj->kept = kept;
	return FW_OK;
}

/* Placement i of a stored job: a node name (one the fleet lacks is a
 * fleet change: requeue_lost), one of the job's task groups, GPUs a node
 * may have (more than the node now has: requeue_lost too), a share of a
 * GPU. */
static int stored_place(struct fw_backend *b, const char *key, const struct ljob *lj, size_t i, json_t *v,
			struct fw_backend_placement *p)
{
	const char *node = json_string_value(json_object_get(v, "node"));
	int64_t group = -1, mask = -1, milli = -1;
	char f[40];
	int rc;

	snprintf(f, sizeof f, "alloc[%zu]", i);
	if (!json_is_object(v))
		return refuse(b, key, f, "must be an object {node, group, gpuMask, gpuMilli}");
	snprintf(f, sizeof f, "alloc[%zu].node", i);
	if (!node || !*node || json_string_length(json_object_get(v, "node")) >= FW_NAME_MAX ||
	    strlen(node) != json_string_length(json_object_get(v, "node")))
		return refuse(b, key, f, "must be a node name (1 to %d bytes)", FW_NAME_MAX - 1);
	snprintf(f, sizeof f, "alloc[%zu].group", i);
	if ((rc = stored_int(b, key, v, f, "group", 0, lj->bj.job.ngroups - 1, &group)) || group < 0)
		return rc ? rc : refuse(b, key, f, "is required (a task group of the job, 0 to %d)", lj->bj.job.ngroups - 1);
	snprintf(f, sizeof f, "alloc[%zu].gpuMask", i);
	if ((rc = stored_int(b, key, v, f, "gpuMask", 0, (1LL << FW_MAX_GPUS_PER_NODE) - 1, &mask)) || mask < 0)
		return rc ? rc : refuse(b, key, f, "is required (GPU g of the node = bit g)");
	if (__builtin_popcountll((unsigned long long)mask) != lj->bj.job.groups[group].gpus)
		return refuse(b, key, f, "holds %d GPUs, and its task group %d asks %d",
			      __builtin_popcountll((unsigned long long)mask), (int)group, lj->bj.job.groups[group].gpus);
	snprintf(f, sizeof f, "alloc[%zu].gpuMilli", i);
	if ((rc = stored_int(b, key, v, f, "gpuMilli", mask ? 1 : 0, 1000, &milli)) || milli < 0)
		return rc ? rc : refuse(b, key, f, "is required (thousandths of each GPU in the mask, 1 to 1000)");
	memset(p, 0, sizeof *p);
	memcpy(p->node, node, strlen(node) + 1);
	p->group = (int16_t)group;
	p->gpu_mask = (uint32_t)mask;
	p->gpu_milli = (int32_t)milli;
	return FW_OK;
}

/* The placements of a stored job (absent: none) into lj->place. */
static int stored_alloc(struct fw_backend *b, const char *key, json_t *o, struct ljob *lj)
{
	json_t *alloc = json_object_get(o, "alloc"), *v;
	size_t i, n = json_array_size(alloc);
	int rc = FW_OK;

	if (alloc && !json_is_array(alloc))
		return refuse(b, key, "alloc", "must be a list of placements");
	if (n && !(lj->place = calloc(n, sizeof *lj->place)))
		return FW_ENOMEM;
	json_array_foreach(alloc, i, v) {
		if ((rc = stored_place(b, key, lj, i, v, &lj->place[i])) != FW_OK)
			break;
	}
	lj->nplace = rc == FW_OK ? (int32_t)n : 0;
	if (rc == FW_OK && lj->state == L_RUNNING && n == 0)
		rc = refuse(b, key, "alloc", "a running job holds at least one placement");
	if (rc != FW_OK) {
		free(lj->place);
		lj->place = NULL;
	}
	return rc;
}

/* Phase 1 of load_one: the codec's part of doc o (the state members
 * dropped from a copy) into lj, its name the store's key. */
static int stored_spec(struct fw_backend *b, const char *key, json_t *o, struct ljob *lj)
{
	static const char *const state_keys[] = { "state", "submitTime", "startTime", "endTime", "starts", "kept",
						  "alloc", "arrayOf" };
	json_t *spec = json_deep_copy(o);
	struct fw_label room[FW_BACKEND_SEL_MAX];
	struct fw_diag dg;
	int rc;

	if (!spec)
		return FW_ENOMEM;
	memset(&dg, 0, sizeof dg);
	for (size_t k = 0; k < sizeof state_keys / sizeof *state_keys; k++)
		json_object_del(spec, state_keys[k]);
	lj->bj.sel = room;
	rc = fw_codec_job_parse(spec, &b->fleet->topology, &lj->bj, &dg);
	json_decref(spec);
	if (rc != FW_OK) {
		lj->bj.sel = NULL;
		snprintf(b->why, sizeof b->why, "job %.63s: %.127s: %.300s", key, dg.field, dg.msg);
		b->fix = "the --config must keep the topology levels and nodes the stored jobs use; else " FIX_STORED;
		return rc;
	}
	if (strcmp(lj->bj.job.name, key)) {
		lj->bj.sel = NULL;
		return refuse(b, key, "name", "must be the job's key in the store (\"%.63s\"), not \"%.63s\"", key,
			      lj->bj.job.name);
	}
	return own_pairs(&lj->bj);
}

/* Restore one stored job, checked whole before the backend keeps it:
 * the codec part (stored_spec), the state members (stored_state), the
 * placements (stored_alloc); a document any of them refuses stops the
 * restore (b->why) with nothing of it kept. */
static int load_one(void *ctx, const char *key, const char *doc)
{
	struct fw_backend *b = ctx;
	json_t *o = json_loads(doc, 0, NULL);
	struct ljob lj;
	int rc;

	memset(&lj, 0, sizeof lj);
	if (!json_is_object(o)) {
		json_decref(o);
		return refuse(b, key, "(document)", "is not a JSON object");
	}
	if ((rc = stored_spec(b, key, o, &lj)) == FW_OK && (rc = stored_state(b, key, o, &lj)) == FW_OK)
		rc = stored_alloc(b, key, o, &lj);
	if (rc == FW_OK) {
		snprintf(lj.bj.array_of, sizeof lj.bj.array_of, "%s",
			 json_string_value(json_object_get(o, "arrayOf")) ? json_string_value(json_object_get(o, "arrayOf")) : "");
		struct ljob *at = append(b);
		if (at)
			*at = lj;
		rc = at ? FW_OK : FW_ENOMEM;
	}
	if (rc != FW_OK) {
		free(lj.place);
		free(lj.bj.sel);
	}
	json_decref(o);
	return rc;
}

static int32_t labels_meet(const struct fw_snapshot *fleet, const struct fw_label *sel, int n, bool meet,
			   int32_t *out);

/* Do the nsel pairs of sel meet exactly the n nodes of list (got: scratch)? */
static bool selects_exactly(const struct fw_snapshot *f, const struct fw_label *sel, int nsel, const int32_t *list,
			    int32_t n, int32_t *got)
{
	return labels_meet(f, sel, nsel, true, got) == n && !memcmp(got, list, (size_t)n * sizeof *got);
}

/* A node filter of a fleet job (the list of count nodes at list, or of
 * those it leaves out when except) as a minimal selector, written at sel
 * (room for FW_MAX_LABELS pairs), *nsel its pairs.  Phases: (1) the nodes
 * it allows; (2) the labels every one of them carries, which meet
 * exactly those nodes when the filter came from a nodeSelector (the YAML
 * loader's only source of filters): every allowed node has them, and a
 * node having them has the selector's own, which they include; (3) drop
 * each label the list does not need, so that the stored selector is a
 * minimal one, as the user's usually is ({ib: null} stays that, not
 * {gpu: b, ib: ""}).  A filter no label set describes stops the seed (the
 * why names the job, and what names the filter). */
static int seed_one(struct fw_backend *b, const char *job, const char *what, const int32_t *list, int32_t count,
		    bool except, struct fw_label *sel, int *nsel)
{
	const struct fw_snapshot *f = b->fleet;
	int32_t *got = malloc(((size_t)f->nnodes + 1) * sizeof *got), *allowed = NULL, n = count;
	const int32_t *nodes = list;
	int rc = FW_EINVAL;

	*nsel = 0;
	if (!got || (except && !(allowed = malloc(((size_t)f->nnodes + 1) * sizeof *allowed)))) {
		rc = FW_ENOMEM;
		goto out;
	}
	if (except) { /* the nodes left: the list to match */
		n = 0;
		for (int32_t i = 0, k = 0; i < f->nnodes; i++) {
			if (k < count && list[k] == i)
				k++;
			else
				allowed[n++] = i;
		}
		nodes = allowed;
	}
	if (n == 0) {
		snprintf(b->why, sizeof b->why, "job %.63s: %s leaves out every node", job, what);
		goto out;
	}
	const struct fw_node *first = &f->nodes[nodes[0]];
	for (int l = 0; l < first->nlabels; l++) {
		bool all = true;
		for (int32_t k = 1; k < n && all; k++)
			all = fw_node_has_labels(&f->nodes[nodes[k]], &first->labels[l], 1);
		if (all)
			sel[(*nsel)++] = first->labels[l];
	}
	qsort(sel, (size_t)*nsel, sizeof *sel, label_key_cmp);
	if (!selects_exactly(f, sel, *nsel, nodes, n, got)) {
		snprintf(b->why, sizeof b->why, "job %.63s: no labels select exactly the %d nodes of %s", job, n, what);
		goto out;
	}
	for (int l = *nsel - 1; l >= 0; l--) {
		struct fw_label drop = sel[l];
		memmove(&sel[l], &sel[l + 1], (size_t)(*nsel - l - 1) * sizeof *sel);
		(*nsel)--;
		if (selects_exactly(f, sel, *nsel, nodes, n, got))
			continue; /* not needed */
		memmove(&sel[l + 1], &sel[l], (size_t)(*nsel - l) * sizeof *sel);
		sel[l] = drop;
		(*nsel)++;
	}
	rc = FW_OK;
out:
	free(got);
	free(allowed);
	return rc;
}

/* A fleet job's node filters as the selectors the local backend keeps:
 * the job's, then each task group's own (seed_one each). */
static int seed_selector(struct fw_backend *b, int32_t job, struct fw_backend_job *bj)
{
	const struct fw_snapshot *f = b->fleet;
	const int32_t *nodes;
	int32_t n = fw_snapshot_job_nodes(f, job, &nodes);
	int rc = FW_OK, at, k;

	if (n >= 0 && (rc = seed_one(b, bj->job.name, "its filter", nodes, n,
				     f->job_nodes[fw_snapshot_job_nodes_entry(f, job)].except, bj->sel, &k)) != FW_OK)
		return rc;
	bj->nsel = n >= 0 ? k : 0;
	at = bj->nsel;
	for (int32_t i = 0; i < f->ngroup_nodes; i++) {
		const struct fw_group_nodes *e = &f->group_nodes[i];
		char what[64];
		struct fw_label sel[FW_MAX_LABELS];
		if (e->job != job)
			continue;
		snprintf(what, sizeof what, "task group %d's filter", (int)e->group);
		if ((rc = seed_one(b, bj->job.name, what, &f->node_refs[e->first], e->count, e->except, sel, &k)))
			return rc;
		if (at + k > FW_BACKEND_SEL_MAX) {
			snprintf(b->why, sizeof b->why, "job %.63s: its selectors need more than %d labels in all, "
				 "more than the local backend keeps per job", bj->job.name, FW_BACKEND_SEL_MAX);
			return FW_EINVAL;
		}
		/* group_nodes go by group within a job: appended in order */
		memcpy(&bj->sel[at], sel, (size_t)k * sizeof *sel);
		bj->ngsel[e->group] = (uint8_t)k;
		at += k;
	}
	return FW_OK;
}

/* A fleet job as the store will keep it must parse back at the next open
 * (load_one): the YAML takes values the API's ranges do not (a maxRuntime
 * or checkpointInterval past 365 days, api_ranges.h), and such a job would
 * stop every restart.  Refused at this first start instead, naming the job
 * and the field. */
static int seed_readable(struct fw_backend *b, const struct ljob *lj)
{
	json_t *o = fw_codec_job_dump(&lj->bj, &b->fleet->topology);
	struct fw_backend_job_room *back = malloc(sizeof *back);
	struct fw_diag dg;
	int rc = o && back ? fw_codec_job_parse(o, &b->fleet->topology, fw_backend_job_room(back), &dg) : FW_ENOMEM;

	if (rc != FW_OK && rc != FW_ENOMEM)
		snprintf(b->why, sizeof b->why, "job %.63s: %.127s: %.200s (the daemon keeps a job as its API takes it)",
			 lj->bj.job.name, dg.field, dg.msg);
	free(back);
	json_decref(o);
	return rc;
}

/* First start: the fleet's jobs, times shifted to the wall clock. */
static int seed(struct fw_backend *b, fw_time wall)
{
	const struct fw_snapshot *f = b->fleet;
	fw_time shift = wall - f->now;
	struct fw_label room[FW_BACKEND_SEL_MAX];
	int rc;

	for (int32_t i = 0; i < f->njobs; i++) {
		const struct fw_job *j = &f->jobs[i];
		struct ljob *lj = append(b);
		if (!lj)
			return FW_ENOMEM;
		lj->bj.job = *j;
		lj->bj.sel = room;
		snprintf(lj->bj.queue, sizeof lj->bj.queue, "%s", f->queues[j->queue].name);
		rc = seed_selector(b, i, &lj->bj);
		if (rc != FW_OK)
			lj->bj.sel = NULL; /* not the room: the backend frees it */
		if (rc != FW_OK || (rc = own_pairs(&lj->bj)) != FW_OK || (rc = seed_readable(b, lj)) != FW_OK)
			return rc;
		lj->submit = j->submit_time + shift;
		lj->state = j->state == FW_JOB_RUNNING ? L_RUNNING : L_PENDING;
		if (lj->state == L_RUNNING) {
			lj->start = j->start_time + shift;
			lj->starts = 1;
			if (!(lj->place = calloc((size_t)j->alloc_count + 1, sizeof *lj->place)))
				return FW_ENOMEM;
			for (int32_t k = 0; k < j->alloc_count; k++) {
				const struct fw_task_alloc *a = &f->allocs[j->alloc_first + k];
				struct fw_backend_placement *p = &lj->place[lj->nplace++];
				snprintf(p->node, sizeof p->node, "%s", f->nodes[a->node].name);
				p->group = a->group;
				p->gpu_mask = a->gpu_mask;
				p->gpu_milli = a->gpu_milli;
			}
		}
		if ((rc = save(b, lj)))
			return rc;
	}
	return FW_OK;
}

/* --- job failures, per node ------------------------------------------------ */
/* End time, then submission order (the job array only grows). */
static int end_cmp(const void *x, const void *y)
{
	const struct ljob *a = *(const struct ljob *const *)x, *b = *(const struct ljob *const *)y;

	if (a->end != b->end)
		return (a->end > b->end) - (a->end < b->end);
	return (a > b) - (a < b);
}

/* One failed job: a JOB_FAILURE at its end on each node it ran on (a node
 * that held several of its tasks counts it once). */
static void count_failure(struct fw_backend *b, const struct ljob *lj)
{
	struct fw_health_event ev = { FW_HEV_JOB_FAILURE, lj->end, 0 };

	for (int32_t k = 0; k < lj->nplace; k++) {
		int32_t n = node_index(b, lj->place[k].node);
		bool again = false;
		for (int32_t e = 0; e < k && !again; e++)
			again = !strcmp(lj->place[e].node, lj->place[k].node);
		if (n < 0 || again)
			continue;
		fw_health_step(&b->hcfg, &b->fail[n], &ev);
	}
}

/* The tally from the jobs alone (phase 1: the failed ones in order of end
 * time; phase 2: fold them into fresh records), so a reopened backend
 * counts exactly what the one before it counted. */
static int tally_failures(struct fw_backend *b)
{
	const struct ljob **v;
	int32_t n = 0;

	for (int32_t i = 0; i < b->njobs; i++)
		n += b->jobs[i].state == L_FAILED;
	if (!(v = malloc(((size_t)n + 1) * sizeof *v)))
		return FW_ENOMEM;
	n = 0;
	for (int32_t i = 0; i < b->njobs; i++)
		if (b->jobs[i].state == L_FAILED)
			v[n++] = &b->jobs[i];
	qsort(v, (size_t)n, sizeof *v, end_cmp);
	for (int32_t i = 0; i < b->fleet->nnodes; i++)
		fw_health_rec_init(&b->fail[i]);
	for (int32_t i = 0; i < n; i++)
		count_failure(b, v[i]);
	free(v);
	b->fail_stale = false;
	return FW_OK;
}

/* What health() says of a node: on probation, the jobfail.c text; with
 * failures in the current window, their count; else nothing (false). */
static bool describe(const struct fw_backend *b, const struct fw_health_rec *r, bool suspect, char *buf, size_t n)
{
	const struct fw_health_config *c = &b->hcfg;
	long long hours = (long long)(c->job_fail_window_s / 3600);

	if (suspect)
		fw_health_job_fail_text(c, r, b->now, buf, n);
	else if (r->job_failures > 0 && b->now - r->job_fail_from < c->job_fail_window_s)
		snprintf(buf, n, "fairway: %d job failure%s within %lld h (%d make it suspect)", r->job_failures,
			 r->job_failures == 1 ? "" : "s", hours, c->job_fail_threshold);
	else
		return false;
	return true;
}

/* --- run-time limits the backend applies (the file comment) ----------------- */
/* A running job as the snapshot's queues see it: its job with its
 * queue's index in s (-1 when s lacks it: its own limit alone binds). */
static struct fw_job job_in(const struct fw_snapshot *s, const struct ljob *lj)
{
	struct fw_job j = lj->bj.job;

	j.queue = fw_snapshot_find_queue(s, lj->bj.queue);
	return j;
}

/* Where running job lj's run-time limit (fw_job_limit over s's queues)
 * ends it before its runtime does (or it has none): true with *at =
 * start + limit; false when it has no limit or its runtime ends first. */
static bool limit_first(const struct fw_snapshot *s, const struct ljob *lj, fw_time *at)
{
	fw_time rt = lj->bj.job.expected_runtime, run_end = lj->start + rt - lj->kept;
	struct fw_job j = job_in(s, lj);
	fw_time lim = fw_job_limit(s, &j);

	*at = lj->start + lim;
	return lim > 0 && (rt <= 0 || *at < run_end);
}

/* How a running job has ended by s->now (its end time in *end): done or
 * failed at its runtime's end; timeout at start + its limit where the
 * cycle could not have ended it (the file comment: its runtime is up too,
 * or the limit passed before the open, seen at the first read), when the
 * limit comes strictly first; L_RUNNING when it runs on (or is not
 * running). */
static enum lstate ending(const struct fw_backend *b, const struct fw_snapshot *s, const struct ljob *lj,
			  fw_time *end)
{
	fw_time rt = lj->bj.job.expected_runtime, run_end = lj->start + rt - lj->kept, lim_end;
	bool runs_out = rt > 0 && s->now >= run_end;

	if (lj->state != L_RUNNING || (!runs_out && b->caught_up))
		return L_RUNNING;
	if (limit_first(s, lj, &lim_end) && (runs_out || (lim_end < b->opened && lim_end <= s->now))) {
		*end = lim_end;
		return L_TIMEOUT;
	}
	*end = run_end;
	return !runs_out ? L_RUNNING : lj->bj.exit_code ? L_FAILED : L_DONE;
}

/* The job as it ends (st at end): its placements, shared, stay as the
 * record of where it ran (read only: count_failure, the API); ended, it
 * holds them no more (the file comment, "Where a job ran"). */
static struct ljob ended_as(const struct ljob *lj, enum lstate st, fw_time end)
{
	struct ljob f = *lj;

	f.state = st;
	f.end = end;
	return f;
}

/* Note lj's run, ended at end, for the daemon's usage (fw_local_runs):
 * the GPUs its placements hold.  Without memory the run is not noted
 * (its usage is lost, never the job's end). */
static void note_run(struct fw_backend *b, const struct ljob *lj, fw_time end)
{
	double gpus = 0;

	for (int32_t k = 0; k < lj->nplace; k++)
		gpus += __builtin_popcount(lj->place[k].gpu_mask) * lj->place[k].gpu_milli / 1000.0;
	if (b->nruns == b->capr) {
		int32_t cap = b->capr ? 2 * b->capr : 16;
		struct fw_backend_run *n = realloc(b->runs, (size_t)cap * sizeof *n);
		if (!n)
			return;
		b->runs = n;
		b->capr = cap;
	}
	struct fw_backend_run *r = &b->runs[b->nruns++];
	snprintf(r->queue, sizeof r->queue, "%s", lj->bj.queue);
	snprintf(r->user, sizeof r->user, "%s", lj->bj.job.user);
	r->gpus = gpus;
	r->start = lj->start;
	r->end = end;
}

/* The decision-log row of a job the backend ended at its limit (read(),
 * or open() for one the fleet change would requeue): the cycle's
 * (timeout, time_limit, fw_serve_evict_text with a = b = its limit: it ran
 * exactly that), at its end; cycle 0, as the backend's own. */
static int log_timeout(struct fw_backend *b, const struct fw_snapshot *s, const struct ljob *lj, fw_time end)
{
	struct fw_job j = job_in(s, lj);
	char text[FW_SERVE_EVICT_MAX];
	fw_time lim = end - lj->start;
	struct fw_store_decision dec = { 0, end, b->gen, fw_serve_kind_name(FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT),
					 lj->bj.job.name, "",
					 fw_reason_name(FW_REASON_TIME_LIMIT), text };

	fw_serve_evict_text(s, &j, FW_REASON_TIME_LIMIT, lim, lim, text, sizeof text);
	return fw_store_log_decision(b->store, &dec);
}

/* --- fleet changes ------------------------------------------------------------ */
static void keep_checkpoints(struct ljob *lj, fw_time at, fw_time cp);

/* A placement's node the fleet lacks, or whose GPUs it no longer has;
 * NULL when every placement still fits. */
static const char *lost_node(const struct fw_backend *b, const struct ljob *lj, bool *gone)
{
	for (int32_t k = 0; k < lj->nplace; k++) {
		const struct fw_backend_placement *p = &lj->place[k];
		int32_t n = node_index(b, p->node);
		int32_t gpus = n < 0 ? 0 : b->fleet->nodes[n].gpu_count;
		*gone = n < 0;
		if (n < 0 || (gpus < 32 && (p->gpu_mask >> gpus) != 0))
			return p->node;
	}
	return NULL;
}

/* A placement's node whose CPU or memory the running jobs before it (the
 * books, per fleet node, never past a node's capacity) leave too little
 * of; NULL when every task fits, and then the job is booked. */
static const char *full_node(const struct fw_backend *b, const struct ljob *lj, int64_t *cpu, int64_t *mem)
{
	int32_t k;

	for (k = 0; k < lj->nplace; k++) {
		const struct fw_task_group *g = &lj->bj.job.groups[lj->place[k].group];
		int32_t n = node_index(b, lj->place[k].node);
		if (g->cpu_milli > b->fleet->nodes[n].cpu_milli - cpu[n] ||
		    g->mem_mib > b->fleet->nodes[n].mem_mib - mem[n])
			break;
		cpu[n] += g->cpu_milli;
		mem[n] += g->mem_mib;
	}
	if (k == lj->nplace)
		return NULL;
	for (int32_t u = 0; u < k; u++) { /* not booked after all */
		int32_t n = node_index(b, lj->place[u].node);
		cpu[n] -= lj->bj.job.groups[lj->place[u].group].cpu_milli;
		mem[n] -= lj->bj.job.groups[lj->place[u].group].mem_mib;
	}
	return lj->place[k].node;
}

/* The restored running jobs, in store order, hold no GPU of a fleet node
 * past its 1000 milli (a document edited by hand: the core would refuse
 * every snapshot); a job on a node the fleet lost or shrank is left to
 * requeue_lost.  A GPU booked twice is refused (b->why), before anything
 * is requeued. */
static int gpu_books(struct fw_backend *b)
{
	int32_t *m = calloc((size_t)b->fleet->nnodes * FW_MAX_GPUS_PER_NODE + 1, sizeof *m);
	int rc = m ? FW_OK : FW_ENOMEM;
	bool gone;

	for (int32_t i = 0; i < b->njobs && rc == FW_OK; i++) {
		const struct ljob *lj = &b->jobs[i];
		if (lj->state != L_RUNNING || lost_node(b, lj, &gone))
			continue;
		for (int32_t k = 0; k < lj->nplace && rc == FW_OK; k++) {
			const struct fw_backend_placement *p = &lj->place[k];
			int32_t n = node_index(b, p->node), *g = m + (size_t)n * FW_MAX_GPUS_PER_NODE;
			char f[40];
			snprintf(f, sizeof f, "alloc[%d].gpuMask", (int)k);
			for (int x = 0; x < b->fleet->nodes[n].gpu_count && rc == FW_OK; x++)
				if ((p->gpu_mask >> x & 1u) && (g[x] += p->gpu_milli) > 1000)
					rc = refuse(b, lj->bj.job.name, f, "GPU %d of node %.63s is held by running tasks "
						    "stored before this one too (%d milli of 1000 in all)", x, p->node, (int)g[x]);
		}
	}
	free(m);
	return rc;
}

/* Requeue one running job the fleet no longer fits: its new state and a
 * decision-log row saying why (kind "requeue", before the first cycle:
 * cycle 0), so `fairway jobs why` shows it. */
static int requeue_one(struct fw_backend *b, struct ljob *lj, const char *node, const char *how, fw_time now)
{
	char text[FW_NAME_MAX + 128];
	struct fw_store_decision dec = { 0, now, b->gen, "requeue", lj->bj.job.name, "", "fleet_change", text };
	int rc;

	snprintf(text, sizeof text, "requeued: it was running on node %s, which the fleet %s", node, how);
	fprintf(stderr, "fairway serve: job %s was running on node %s, which the fleet %s: requeued (pending again)\n",
		lj->bj.job.name, node, how);
	keep_checkpoints(lj, now, lj->bj.job.checkpoint_s);
	lj->state = L_PENDING; /* its placements stay, as where it last ran */
	if ((rc = save(b, lj)) == FW_OK)
		rc = fw_store_log_decision(b->store, &dec);
	if (rc == FW_OK)
		note_run(b, lj, now);
	return rc;
}

/* End one running job the fleet no longer fits whose run-time limit
 * passed before this open (at < now): `timeout` at start + its limit, not
 * requeued, with the row read() writes for such a job (log_timeout) and
 * counted as read()'s are (timed_out). */
static int timeout_one(struct fw_backend *b, const struct fw_snapshot *qs, struct ljob *lj, const char *node,
		       const char *how, fw_time at)
{
	struct ljob f = ended_as(lj, L_TIMEOUT, at);
	char when[FW_TIME_TEXT_MAX];
	int rc;

	fprintf(stderr, "fairway serve: job %s was running on node %s, which the fleet %s, and its run-time limit "
			"passed at %s, before this start: ended (timeout), not requeued\n",
		lj->bj.job.name, node, how, fw_utc_format(at, when, sizeof when)); /* Unix time: its UTC date */
	if ((rc = save(b, &f)) == FW_OK && (rc = log_timeout(b, qs, lj, at)) == FW_OK) {
		*lj = f; /* its placements, shared: where it ran */
		b->timed_out++;
		note_run(b, lj, at);
	}
	return rc;
}

/* Requeue the running jobs the fleet no longer fits (the file comment),
 * in one transaction: each job's state and its log row commit together.
 * The jobs on kept nodes are booked in job order (CPU and memory per
 * node), and one whose tasks would overbook a node that shrank is
 * requeued too: the core refuses a snapshot that overbooks a node.  One
 * whose run-time limit (over qs's queues: the daemon's) passed before now
 * ends `timeout` instead (timeout_one), as read() ends one on a kept node. */
static int requeue_lost(struct fw_backend *b, const struct fw_snapshot *qs, fw_time now)
{
	int64_t *cpu = calloc((size_t)b->fleet->nnodes + 1, sizeof *cpu);
	int64_t *mem = calloc((size_t)b->fleet->nnodes + 1, sizeof *mem);
	bool began = false;
	int rc = cpu && mem ? FW_OK : FW_ENOMEM;

	for (int32_t i = 0; i < b->njobs && rc == FW_OK; i++) {
		struct ljob *lj = &b->jobs[i];
		const char *node, *how = "no longer has";
		bool gone;
		fw_time at;
		if (lj->state != L_RUNNING)
			continue;
		if ((node = lost_node(b, lj, &gone)) != NULL)
			how = gone ? "no longer has" : "now has with fewer GPUs";
		else if ((node = full_node(b, lj, cpu, mem)) != NULL)
			how = "now has with too little CPU or memory for it";
		else
			continue;
		if (!began && (rc = fw_store_begin(b->store)) != FW_OK)
			break;
		began = true;
		rc = limit_first(qs, lj, &at) && at < now ? timeout_one(b, qs, lj, node, how, at)
							  : requeue_one(b, lj, node, how, now);
	}
	if (began && rc == FW_OK)
		rc = fw_store_commit(b->store);
	else if (began)
		fw_store_rollback(b->store);
	free(cpu);
	free(mem);
	return rc;
}

/* --- the world in memory: allocated, loaded, freed ---------------------------- */
/* The per-node arrays of an empty world (no jobs yet). */
static int alloc_world(struct fw_backend *b)
{
	int32_t n = b->fleet->nnodes;

	b->jobs = NULL;
	b->njobs = b->cap = 0;
	b->hash = NULL;
	b->hcap = 0;
	b->indexed = 0;
	b->why[0] = '\0';
	b->fix = NULL;
	b->drained = calloc((size_t)n + 1, 1);
	b->fail = calloc((size_t)n + 1, sizeof *b->fail);
	return b->drained && b->fail ? FW_OK : FW_ENOMEM;
}

static void free_world(struct fw_backend *b)
{
	for (int32_t i = 0; i < b->njobs; i++) {
		free(b->jobs[i].place);
		free(b->jobs[i].bj.sel);
	}
	free(b->jobs);
	free(b->hash);
	free(b->drained);
	free(b->fail);
}

/* Which nodes this backend drained (meta drain/NODE). */
static void load_drains(struct fw_backend *b)
{
	char key[FW_NAME_MAX + 8];

	for (int32_t i = 0; i < b->fleet->nnodes; i++) {
		snprintf(key, sizeof key, "drain/%s", b->fleet->nodes[i].name);
		b->drained[i] = fw_store_meta_get(b->store, key, 0) != 0;
	}
}

/* --- retention: min-job-age ------------------------------------------------- */
/* How long after its end a job is kept: min-job-age; a failed job at least
 * the health model's longest memory too, as its failure is in the node
 * tally that tally_failures() rebuilds from the stored jobs alone. */
static fw_time keep_for(const struct fw_backend *b, const struct ljob *lj)
{
	const struct fw_health_config *c = &b->hcfg;
	fw_time k = b->min_age;

	if (lj->state == L_FAILED) {
		const fw_time w[] = { c->lemon_window_s, c->flap_window_s + c->flap_hold_s,
				      c->job_fail_window_s + c->probation_s };
		for (size_t i = 0; i < sizeof w / sizeof *w; i++)
			k = w[i] > k ? w[i] : k;
	}
	return k;
}

static bool expired(const struct fw_backend *b, const struct ljob *lj, fw_time now)
{
	return b->min_age > 0 && ended(lj) && now - lj->end >= keep_for(b, lj);
}

/* Phase 1 of purge: delete the expired jobs' documents, in one
 * transaction; their count, or a negative fw_err (rolled back). */
static int drop_expired(struct fw_backend *b, fw_time now)
{
	int n = 0, rc = FW_OK;

	for (int32_t i = 0; i < b->njobs; i++)
		n += expired(b, &b->jobs[i], now);
	if (n == 0)
		return 0;
	rc = fw_store_begin(b->store);
	for (int32_t i = 0; i < b->njobs && rc == FW_OK; i++)
		if (expired(b, &b->jobs[i], now) &&
		    (rc = fw_store_del(b->store, FW_STORE_JOBS, b->jobs[i].bj.job.name)) == FW_ENOENT)
			rc = FW_OK; /* no document (an operator's sqlite3): gone already */
	if (rc == FW_OK)
		rc = fw_store_commit(b->store);
	return rc == FW_OK ? n : rc; /* the caller rolls back, after its message */
}

/* Phase 2: the same jobs out of memory, the rest in their order
 * (fw_local_each_job, end_cmp's tie-break), then a new name index and,
 * when most of the array is empty, a smaller one. */
static void compact(struct fw_backend *b, fw_time now)
{
	int32_t k = 0;

	for (int32_t i = 0; i < b->njobs; i++) {
		struct ljob *lj = &b->jobs[i];
		if (!expired(b, lj, now)) {
			b->jobs[k++] = *lj;
			continue;
		}
		free(lj->place);
		free(lj->bj.sel);
		b->purged++;
	}
	b->njobs = k;
	b->indexed = 0;
	b->hcap = 0; /* index_jobs() builds a new one, sized for k */
	if (b->cap > 64 && k < b->cap / 4) {
		struct ljob *n = realloc(b->jobs, (size_t)(b->cap / 2) * sizeof *n);
		if (n) {
			b->jobs = n;
			b->cap /= 2;
		}
	}
}

/* Forget the jobs that ended min-job-age ago (a failed one: keep_for), in
 * the store and then in memory, at most once every min-job-age / 10
 * seconds (1 to 60), as Slurm's MinJobAge.  A store error forgets
 * nothing: one line on stderr, and the next purge tries again.  A plan in
 * flight names only waiting and running jobs: the generation stays. */
static void purge(struct fw_backend *b, fw_time now)
{
	fw_time every = b->min_age / 10;
	char ago[FW_SPAN_MAX];
	int n;

	if (b->min_age <= 0 || now < b->purge_at)
		return;
	b->purge_at = now + (every < 1 ? 1 : every > 60 ? 60 : every);
	if ((n = drop_expired(b, now)) < 0) {
		fprintf(stderr, "fairway serve: cannot purge the jobs that ended %s ago or more: %s (retrying)\n",
			fw_span_format(b->min_age, ago, sizeof ago), fw_store_errmsg(b->store));
		fw_store_rollback(b->store);
	} else if (n > 0)
		compact(b, now);
}

/* min-job-age=SECONDS: 0 (the default: keep every job) to 10 years. */
static int opt_min_age(struct fw_backend *b, const char *v, struct fw_diag *d)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > 315360000)
		return fw_diag_set(d, FW_EINVAL, "--backend-opt", 0, 0, "min-job-age",
				   "min-job-age=%s: expected whole seconds from 0 to 315360000 (how long an ended "
				   "job is kept, as Slurm's MinJobAge; 0, the default, keeps every job)", v);
	b->min_age = (fw_time)n;
	return FW_OK;
}

/* The --backend-opt string: key=value pairs, comma-separated. */
static int local_opts(struct fw_backend *b, const char *opts, struct fw_diag *d)
{
	char buf[2048], *save = NULL;
	int rc = FW_OK;

	if (!opts || !*opts)
		return FW_OK;
	if (strlen(opts) >= sizeof buf)
		return fw_diag_set(d, FW_EINVAL, "--backend-opt", 0, 0, "min-job-age",
				   "the options are too long (%zu bytes; the local backend takes min-job-age only)",
				   strlen(opts));
	snprintf(buf, sizeof buf, "%s", opts);
	for (char *kv = strtok_r(buf, ",", &save); kv && rc == FW_OK; kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');
		if (v)
			*v++ = '\0';
		if (v && !strcmp(kv, "min-job-age"))
			rc = opt_min_age(b, v, d);
		else
			rc = fw_diag_set(d, FW_EINVAL, "--backend-opt", 0, 0, kv,
					 "the local backend takes min-job-age=SECONDS only ('%s%s%s')", kv, v ? "=" : "",
					 v ? v : "");
	}
	return rc;
}

/* --- ops -------------------------------------------------------------------- */
static void local_close(struct fw_backend *b)
{
	if (!b)
		return;
	free_world(b);
	free(b->nodeix);
	free(b->runs);
	free(b);
}

/* A restore (how: "cannot restore") that stopped at b->why: the store
 * file, the job and the field, and what to do (b->fix), which the why
 * is cut to leave room for. */
static int refused(const struct fw_backend *b, int rc, const char *how, struct fw_diag *d)
{
	size_t fix = b->fix ? strlen(b->fix) + 2 : 0, lead = strlen(how) + 28;
	int room = fix + lead < sizeof d->msg ? (int)(sizeof d->msg - 1 - fix - lead) : 0;

	return fw_diag_set(d, rc, fw_store_path(b->store), 0, 0, "store.jobs", "%s the local backend's jobs: %.*s%s%s",
			   how, room, b->why[0] ? b->why : fw_strerror(rc), b->fix ? "; " : "", b->fix ? b->fix : "");
}

static int local_open(const struct fw_backend_config *cfg, struct fw_backend **out, struct fw_diag *d)
{
	struct fw_backend *b = calloc(1, sizeof *b);
	int32_t n = cfg->fleet->nnodes;
	int rc;

	if (!cfg->store) {
		free(b);
		return fw_diag_set(d, FW_EINVAL, "", 0, 0, "backend", "the local backend needs the daemon's store");
	}
	if (!b)
		return FW_ENOMEM;
	if ((rc = local_opts(b, cfg->options, d)) != FW_OK) {
		free(b);
		return rc;
	}
	b->fleet = cfg->fleet;
	b->store = cfg->store;
	if (alloc_world(b) != FW_OK || !(b->nodeix = calloc((size_t)n + 1, sizeof *b->nodeix))) {
		local_close(b);
		return FW_ENOMEM;
	}
	b->gen = b->hard_gen = 1;
	b->now = b->opened = cfg->now;
	fw_health_config_default(&b->hcfg);
	for (int32_t i = 0; i < n; i++)
		b->nodeix[i] = (struct nameref){ cfg->fleet->nodes[i].name, i };
	qsort(b->nodeix, (size_t)n, sizeof *b->nodeix, nameref_cmp);
	rc = cfg->seed_jobs ? seed(b, cfg->now)
			    : fw_store_each(cfg->store, FW_STORE_JOBS, load_one, b);
	if (rc == FW_OK)
		rc = gpu_books(b);
	if (rc == FW_OK)
		load_drains(b);
	if (rc == FW_OK)
		rc = requeue_lost(b, cfg->queues ? cfg->queues : cfg->fleet, cfg->now);
	if (rc == FW_OK)
		rc = tally_failures(b); /* a restart forgets no failure */
	if (rc != FW_OK && cfg->seed_jobs) {
		rc = fw_diag_set(d, rc, "", 0, 0, "store.jobs", "cannot seed the local backend's jobs from the --config: %s",
				 b->why[0] ? b->why : fw_strerror(rc));
		local_close(b);
		return rc;
	}
	if (rc != FW_OK) {
		rc = refused(b, rc, "cannot restore", d);
		local_close(b);
		return rc;
	}
	*out = b;
	return FW_OK;
}

/* Phase 1 of finish_due: write every ending job's end (and a timeout's
 * row), in one transaction. */
static int write_finished(struct fw_backend *b, const struct fw_snapshot *s)
{
	fw_time end;
	int rc = fw_store_begin(b->store);

	for (int32_t i = 0; i < b->njobs && rc == FW_OK; i++) {
		enum lstate st = ending(b, s, &b->jobs[i], &end);
		if (st == L_RUNNING)
			continue;
		struct ljob f = ended_as(&b->jobs[i], st, end);
		rc = save(b, &f);
		if (rc == FW_OK && st == L_TIMEOUT)
			rc = log_timeout(b, s, &b->jobs[i], end);
	}
	return rc == FW_OK ? fw_store_commit(b->store) : rc;
}

/* End every running job whose runtime has passed (done, or failed when it
 * exits non-zero) or that read() ends at its limit (timeout: ending).
 * Phases: write them all in one transaction; then, only once it
 * committed, change them in memory.  A store error changes nothing and is
 * returned with *d (the next read tries again, the first read's catch-up
 * with it). */
static int finish_due(struct fw_backend *b, const struct fw_snapshot *s, struct fw_diag *d)
{
	int32_t n = 0;
	fw_time end;
	int rc;

	for (int32_t i = 0; i < b->njobs; i++)
		n += ending(b, s, &b->jobs[i], &end) != L_RUNNING;
	if (n > 0 && (rc = write_finished(b, s)) != FW_OK) {
		rc = fw_diag_set(d, rc, "", 0, 0, "store", "cannot record the %d job(s) that finished: %s", n,
				 fw_store_errmsg(b->store));
		fw_store_rollback(b->store);
		return rc;
	}
	for (int32_t i = 0; n > 0 && i < b->njobs; i++) {
		enum lstate st = ending(b, s, &b->jobs[i], &end);
		if (st == L_RUNNING)
			continue;
		b->jobs[i] = ended_as(&b->jobs[i], st, end);
		b->jobs[i].touched = b->gen + 1; /* frees room only: soft */
		note_run(b, &b->jobs[i], end);
		b->fail_stale |= st == L_FAILED;
		b->timed_out += st == L_TIMEOUT;
	}
	if (n > 0)
		b->gen++;
	b->caught_up = true;
	return FW_OK;
}

/* --- node selectors, resolved per read ------------------------------------- */
/* The nodes of fleet that meet the n pairs of sel (or, meet false, that do
 * not), ascending, into out: their count. */
static int32_t labels_meet(const struct fw_snapshot *fleet, const struct fw_label *sel, int n, bool meet,
			   int32_t *out)
{
	int32_t k = 0;

	for (int32_t i = 0; i < fleet->nnodes; i++)
		if (fw_node_has_labels(&fleet->nodes[i], sel, n) == meet)
			out[k++] = i;
	return k;
}

int32_t fw_local_selected(const struct fw_snapshot *fleet, const struct fw_backend_job *job, int32_t *out)
{
	return labels_meet(fleet, job->sel, job->nsel, true, out);
}

int fw_local_unmet_group(const struct fw_snapshot *fleet, const struct fw_backend_job *job)
{
	for (int g = 0; g < job->job.ngroups; g++) {
		int n;
		const struct fw_label *l = fw_backend_group_sel(job, g, &n);
		bool any = false;
		for (int32_t i = 0; n && !any && i < fleet->nnodes; i++)
			any = fw_node_has_labels(&fleet->nodes[i], job->sel, job->nsel) &&
			      fw_node_has_labels(&fleet->nodes[i], l, n);
		if (n && !any)
			return g;
	}
	return -1;
}

static bool same_labels(const struct fw_label *a, int na, const struct fw_label *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(a[i].key, b[i].key) || strcmp(a[i].value, b[i].value))
			return false;
	return true;
}

/* One read's resolved selectors, so that jobs (and task groups) of one
 * selector share one node list (the snapshot's restrict_job_as,
 * restrict_group_as and _like) and each is resolved once. */
#define SEL_CACHE 32
struct selcache {
	int32_t n;
	int32_t *scratch;                 /* fleet->nnodes */
	struct {
		const struct fw_label *sel;
		int nsel;
		int32_t count;                /* nodes it selects; 0 = none */
		int32_t entry;                /* its job_nodes entry, -1 = none yet */
		int32_t gentry;               /* a group_nodes entry of it, -1 = none yet */
	} e[SEL_CACHE];
};

/* How many nodes the selector (n pairs of sel) meets, from the cache or
 * resolved now; *slot: its cache slot (-1: the cache is full). */
static int32_t selector_count(const struct fw_backend *b, struct selcache *c, const struct fw_label *sel, int n,
			      int32_t *slot)
{
	for (int32_t i = 0; i < c->n; i++)
		if (same_labels(c->e[i].sel, c->e[i].nsel, sel, n)) {
			*slot = i;
			return c->e[i].count;
		}
	int32_t k = labels_meet(b->fleet, sel, n, true, c->scratch);
	*slot = -1;
	if (c->n < SEL_CACHE) {
		*slot = c->n++;
		c->e[*slot].sel = sel;
		c->e[*slot].nsel = n;
		c->e[*slot].count = k;
		c->e[*slot].entry = -1;
		c->e[*slot].gentry = -1;
	}
	return k;
}

/* Restrict job (its index in s; group < 0) or its task group to the nodes
 * the selector meets: an entry its cache slot already has, or a new one,
 * written as the shorter list: the nodes it meets, or those it leaves
 * out (an except entry), so a selector most of a large fleet meets costs
 * a few nodes per read, and one every node meets costs no filter at all;
 * one no node meets, an except entry of every node (the core has no empty
 * allow list), so the job waits, never able to start. */
static int restrict_to(const struct fw_backend *b, struct selcache *c, struct fw_snapshot *s, int32_t job, int group,
		       const struct fw_label *sel, int nsel)
{
	int32_t nn = b->fleet->nnodes, slot, n = selector_count(b, c, sel, nsel, &slot), k; /* fleet = snapshot index */
	bool except = n > nn - n || n == 0; /* none: every node left out */
	int rc;

	if (slot >= 0 && group < 0 && c->e[slot].entry >= 0)
		return (rc = fw_snapshot_restrict_job_as(s, job, c->e[slot].entry)) < 0 ? rc : FW_OK;
	if (slot >= 0 && group >= 0 && c->e[slot].gentry >= 0)
		return (rc = fw_snapshot_restrict_group_like(s, job, group, c->e[slot].gentry)) < 0 ? rc : FW_OK;
	if (slot >= 0 && group >= 0 && c->e[slot].entry >= 0) {
		rc = fw_snapshot_restrict_group_as(s, job, group, c->e[slot].entry);
	} else if (n == nn) {
		return FW_OK;
	} else {
		k = labels_meet(b->fleet, sel, nsel, !except, c->scratch);
		if (group >= 0)
			rc = fw_snapshot_restrict_group(s, job, group, c->scratch, k, except);
		else if (except)
			rc = fw_snapshot_restrict_job_except(s, job, c->scratch, k);
		else
			rc = fw_snapshot_restrict_job(s, job, c->scratch, k);
	}
	if (rc < 0)
		return rc;
	if (slot >= 0 && group < 0)
		c->e[slot].entry = rc;
	else if (slot >= 0)
		c->e[slot].gentry = rc;
	return FW_OK;
}

/* A waiting job's selectors as its node filters: the job's, then each
 * task group's own. */
static int restrict_job(const struct fw_backend *b, struct selcache *c, struct fw_snapshot *s, int32_t job,
			const struct ljob *lj)
{
	int rc = lj->bj.nsel ? restrict_to(b, c, s, job, -1, lj->bj.sel, lj->bj.nsel) : FW_OK;

	for (int g = 0; rc == FW_OK && g < lj->bj.job.ngroups; g++) {
		int n;
		const struct fw_label *l = fw_backend_group_sel(&lj->bj, g, &n);
		if (n)
			rc = restrict_to(b, c, s, job, g, l, n);
	}
	return rc;
}

/* A job's slices as the snapshot's entries: a waiting job's placement
 * keeps to them, and so does a running one's restart when consolidation
 * moves it.  FW_EINVAL when the snapshot's topology lacks the level. */
static int slice_job(struct fw_snapshot *s, int32_t job, const struct ljob *lj)
{
	int rc = FW_OK;

	for (int g = 0; rc >= 0 && g < lj->bj.job.ngroups; g++)
		if (lj->bj.slice[g])
			rc = fw_snapshot_slice_group(s, job, g, lj->bj.slice[g], lj->bj.slice_level[g]);
	return rc < 0 ? rc : FW_OK;
}

/* Phase 1 of adding a job: may the snapshot hold it?  FW_EDECLINED when
 * its queue is unknown or inner.  A waiting job whose selectors meet no
 * node (the fleet was relabelled since it was submitted) is held: its
 * filter leaves every node out (restrict_to), so the plan lists it as
 * never able to start, naming its node filter, rather than losing it. */
static int admissible(const struct fw_snapshot *s, const struct ljob *lj)
{
	int32_t q = fw_snapshot_find_queue(s, lj->bj.queue);

	return q < 0 || !fw_queue_is_leaf(s, q) ? FW_EDECLINED : FW_OK;
}

/* Do a would-be job's selectors each meet a node (with the job's, for a
 * group's own)?  A submission is refused when not (local_probe). */
static bool selectors_met(struct fw_backend *b, struct selcache *c, const struct ljob *lj)
{
	int32_t slot;

	if (lj->bj.nsel && selector_count(b, c, lj->bj.sel, lj->bj.nsel, &slot) == 0)
		return false;
	if (!fw_backend_has_group_sel(&lj->bj))
		return true;
	if (lj->bj.nsel) /* a group's selector with the job's: rare, asked afresh */
		return fw_local_unmet_group(b->fleet, &lj->bj) < 0;
	for (int g = 0; g < lj->bj.job.ngroups; g++) {
		int n;
		const struct fw_label *l = fw_backend_group_sel(&lj->bj, g, &n);
		if (n && selector_count(b, c, l, n, &slot) == 0)
			return false;
	}
	return true;
}

/* Phase 2: the job (its index in s), with its allocations. */
static int add_job(const struct fw_backend *b, struct fw_snapshot *s, const struct ljob *lj)
{
	struct fw_job j = lj->bj.job;
	int rc;

	j.queue = fw_snapshot_find_queue(s, lj->bj.queue);
	j.submit_time = lj->submit;
	if (j.expected_runtime > 0)
		j.expected_runtime -= lj->kept; /* what is left to run */
	j.state = lj->state == L_RUNNING ? FW_JOB_RUNNING : FW_JOB_PENDING;
	j.start_time = j.state == FW_JOB_RUNNING ? lj->start : 0;
	j.alloc_first = s->nallocs;
	j.alloc_count = 0;
	for (int32_t k = 0; j.state == FW_JOB_RUNNING && k < lj->nplace; k++) {
		const struct fw_backend_placement *p = &lj->place[k];
		struct fw_task_alloc a = { node_index(b, p->node), p->group, p->gpu_mask, p->gpu_milli };
		if (a.node < 0)
			continue;
		if ((rc = fw_snapshot_add_alloc(s, &a)) < 0)
			return rc;
		j.alloc_count++;
	}
	return fw_snapshot_add_job(s, &j);
}

/* The read's first phase: what the read does to the backend itself
 * (the jobs whose runtime is up ended, in the store then in memory; the
 * ended jobs min-job-age forgets), so it runs under the daemon's lock. */
static int catch_up(struct fw_backend *b, const struct fw_snapshot *s, struct fw_diag *d)
{
	int rc;

	b->now = s->now;
	if ((rc = finish_due(b, s, d)) != FW_OK)
		return rc;
	purge(b, s->now);
	return FW_OK;
}

/* The read's second phase: b's nodes, and its waiting and running jobs
 * with their allocations, filters and slices, appended to s.  It reads
 * b's fleet, node index, drains, jobs and generation and writes nothing
 * of b, so a copy of them (struct fw_backend_copy) serves as well. */
static int fill(const struct fw_backend *b, struct fw_snapshot *s, struct fw_backend_world *w, struct fw_diag *d)
{
	int rc;

	for (int32_t i = 0; i < b->fleet->nnodes; i++) {
		struct fw_node n = b->fleet->nodes[i];
		if (b->drained[i])
			n.schedulable = false;
		if ((rc = fw_snapshot_add_node(s, &n)) < 0)
			return fw_diag_set(d, rc, "", 0, 0, "nodes", "cannot add node %s", n.name);
	}
	w->skipped_jobs = 0;
	struct selcache c = { 0, malloc(((size_t)b->fleet->nnodes + 1) * sizeof *c.scratch), { { 0 } } };
	if (!c.scratch)
		return fw_diag_set(d, FW_ENOMEM, "", 0, 0, "jobs", "out of memory");
	rc = FW_OK;
	for (int32_t i = 0; i < b->njobs && rc >= 0; i++) {
		const struct ljob *lj = &b->jobs[i];
		int32_t job;
		if (lj->state != L_PENDING && lj->state != L_RUNNING)
			continue;
		if ((rc = admissible(s, lj)) == FW_EDECLINED) {
			w->skipped_jobs++;
			rc = FW_OK;
			continue;
		}
		/* a running job is where it is: only a waiting one is filtered */
		if ((rc = job = add_job(b, s, lj)) >= 0 && lj->state == L_PENDING)
			rc = restrict_job(b, &c, s, job, lj);
		if (rc >= 0)
			rc = slice_job(s, job, lj);
		if (rc < 0)
			fw_diag_set(d, rc, "", 0, 0, "jobs", "cannot add job %s", lj->bj.job.name);
	}
	free(c.scratch);
	if (rc < 0)
		return rc;
	w->generation = b->gen;
	return FW_OK;
}

static int local_read(struct fw_backend *b, struct fw_snapshot *s, struct fw_backend_world *w, struct fw_diag *d)
{
	int rc = catch_up(b, s, d);

	return rc == FW_OK ? fill(b, s, w, d) : rc;
}

/* --- the read in two halves (backend.h capture, build) --------------------- */
/* The backend as a capture left it: a copy of the struct whose jobs are
 * its waiting and running ones alone, each job's placements and selector
 * pairs in the pools below, and its drains its own; no name index and no
 * store (fill() reads neither).  The fleet and the node index are the
 * backend's, which nothing changes between open() and close(). */
struct fw_backend_copy {
	struct fw_backend b;
	struct fw_backend_placement *place;
	struct fw_label *pairs;
};

static void local_discard(struct fw_backend_copy *c)
{
	if (!c)
		return;
	free(c->b.jobs);
	free(c->b.drained);
	free(c->place);
	free(c->pairs);
	free(c);
}

static bool live(const struct ljob *lj)
{
	return lj->state == L_PENDING || lj->state == L_RUNNING;
}

/* Phase 1 of a copy: the room, sized by b's waiting and running jobs. */
static struct fw_backend_copy *copy_room(const struct fw_backend *b)
{
	struct fw_backend_copy *c = calloc(1, sizeof *c);
	size_t nj = 0, np = 0, nl = 0;

	for (int32_t i = 0; c && i < b->njobs; i++) {
		const struct ljob *lj = &b->jobs[i];
		if (!live(lj))
			continue;
		nj++;
		np += lj->state == L_RUNNING ? (size_t)lj->nplace : 0;
		nl += lj->bj.sel ? (size_t)fw_backend_npairs(&lj->bj) : 0;
	}
	if (!c)
		return NULL;
	c->b.jobs = malloc((nj + 1) * sizeof *c->b.jobs);
	c->b.drained = malloc((size_t)b->fleet->nnodes + 1);
	c->place = malloc((np + 1) * sizeof *c->place);
	c->pairs = malloc((nl + 1) * sizeof *c->pairs);
	if (!c->b.jobs || !c->b.drained || !c->place || !c->pairs) {
		local_discard(c);
		return NULL;
	}
	return c;
}

/* Phase 2: each live job, its placements (a running one's) and its
 * pairs into the pools. */
static void copy_jobs(struct fw_backend_copy *c, const struct fw_backend *b)
{
	size_t np = 0, nl = 0;
	int32_t k = 0;

	for (int32_t i = 0; i < b->njobs; i++) {
		const struct ljob *lj = &b->jobs[i];
		if (!live(lj))
			continue;
		struct ljob *cj = &c->b.jobs[k++];
		*cj = *lj;
		cj->nplace = lj->state == L_RUNNING ? lj->nplace : 0;
		cj->place = cj->nplace ? c->place + np : NULL;
		if (cj->nplace)
			memcpy(cj->place, lj->place, (size_t)cj->nplace * sizeof *cj->place);
		np += (size_t)cj->nplace;
		int n = lj->bj.sel ? fw_backend_npairs(&lj->bj) : 0;
		cj->bj.sel = n ? c->pairs + nl : NULL;
		if (n)
			memcpy(cj->bj.sel, lj->bj.sel, (size_t)n * sizeof *cj->bj.sel);
		nl += (size_t)n;
	}
	c->b.njobs = c->b.cap = k;
}

/* Under the daemon's lock: the read's first phase, then a copy of what
 * its second reads, taken at this generation. */
static int local_capture(struct fw_backend *b, const struct fw_snapshot *s, struct fw_backend_copy **out,
			 struct fw_diag *d)
{
	struct fw_backend_copy *c;
	int rc;

	*out = NULL;
	if ((rc = catch_up(b, s, d)) != FW_OK)
		return rc;
	if (!(c = copy_room(b)))
		return fw_diag_set(d, FW_ENOMEM, "", 0, 0, "jobs", "out of memory");
	struct ljob *jobs = c->b.jobs;
	bool *drained = c->b.drained;
	c->b = *b;
	c->b.jobs = jobs;
	c->b.drained = drained;
	c->b.store = NULL;
	c->b.hash = NULL;
	c->b.hcap = 0;
	c->b.indexed = 0;
	c->b.fail = NULL;
	c->b.runs = NULL; /* the backend's, read under the lock (fw_local_runs) */
	c->b.nruns = c->b.capr = 0;
	memcpy(c->b.drained, b->drained, (size_t)b->fleet->nnodes);
	copy_jobs(c, b);
	*out = c;
	return FW_OK;
}

/* Without the lock: the read's second phase, over the copy. */
static int local_build(const struct fw_backend_copy *c, struct fw_snapshot *s, struct fw_backend_world *w,
		       struct fw_diag *d)
{
	return fill(&c->b, s, w, d);
}

/* A would-be job (backend.h probe): the read's phases for one job that
 * is not kept. */
static int local_probe(struct fw_backend *b, struct fw_snapshot *s, const struct fw_backend_job *j, fw_time now,
		       struct fw_diag *d)
{
	const struct ljob *had;
	struct ljob lj;
	int32_t job;
	int rc;

	if ((had = find_job(b, j->job.name)))
		return name_taken(had, d);
	memset(&lj, 0, sizeof lj);
	lj.bj = *j; /* its selectors stay the caller's: read here, never kept */
	lj.state = L_PENDING;
	lj.submit = now;
	struct selcache c = { 0, malloc(((size_t)b->fleet->nnodes + 1) * sizeof *c.scratch), { { 0 } } };
	if (!c.scratch)
		return fw_diag_set(d, FW_ENOMEM, "", 0, 0, "jobs", "out of memory");
	if ((rc = admissible(s, &lj)) == FW_EDECLINED || !selectors_met(b, &c, &lj))
		fw_diag_set(d, rc = FW_EDECLINED, "", 0, 0, "nodeSelector", "no node of the fleet meets the job's node selectors");
	else if ((rc = job = add_job(b, s, &lj)) >= 0 && (rc = restrict_job(b, &c, s, job, &lj)) >= 0 &&
		 (rc = slice_job(s, job, &lj)) >= 0)
		rc = job;
	else
		fw_diag_set(d, rc, "", 0, 0, "jobs", "cannot add job %s", j->job.name);
	free(c.scratch);
	return rc;
}

/* --- apply: one function per decision kind -------------------------------- */
/* Make f, a changed copy of job *lj (its placements its own, or none), the
 * job, once the store took it: memory changes only after the write did,
 * so an action the store refuses changes nothing. */
static int commit_job(struct fw_backend *b, struct ljob *lj, struct ljob *f, bool hard)
{
	int rc = save(b, f);

	if (rc != FW_OK) {
		if (f->place != lj->place)
			free(f->place);
		return rc;
	}
	if (lj->place != f->place)
		free(lj->place);
	*lj = *f;
	lj->touched = ++b->gen;
	if (hard)
		b->hard_gen = b->gen;
	return FW_OK;
}

static int do_start(struct fw_backend *b, const struct fw_backend_action *a)
{
	struct ljob *lj = find_job(b, a->job), f;
	int rc;

	if (!lj || ended(lj))
		return FW_ENOENT;
	if (lj->state == L_RUNNING)
		return FW_EEXIST;
	for (int32_t k = 0; k < a->nplacements; k++)
		if (node_index(b, a->placements[k].node) < 0)
			return FW_ENOENT;
	f = *lj;
	f.place = NULL; /* lj's stay lj's */
	f.nplace = 0;
	if ((rc = set_place(&f, a->placements, a->nplacements)))
		return rc;
	f.state = L_RUNNING;
	f.start = a->at;
	f.starts++;
	return commit_job(b, lj, &f, true);
}

/* An eviction at `at` keeps the run's whole checkpoints (every cp seconds
 * after its start: the action's interval, the job's own or its queue's
 * default); at least one second of a job with a runtime is left to run. */
static void keep_checkpoints(struct ljob *lj, fw_time at, fw_time cp)
{
	fw_time rt = lj->bj.job.expected_runtime, ran = at - lj->start;

	if (cp <= 0 || ran < cp)
		return;
	lj->kept += ran / cp * cp;
	if (rt > 0 && lj->kept > rt - 1)
		lj->kept = rt - 1;
}

/* An eviction requeues the job (it waits again, keeping its checkpoints),
 * except at its run-time limit (TIME_LIMIT), which ends it:
 * timeout, at the plan's time, never to run again. */
static int do_evict(struct fw_backend *b, const struct fw_backend_action *a)
{
	struct ljob *lj = find_job(b, a->job), f;

	if (!lj)
		return FW_ENOENT;
	if (lj->state != L_RUNNING)
		return FW_EEXIST;
	f = *lj; /* its placements, shared, stay as where it last ran */
	if (a->reason == FW_REASON_TIME_LIMIT) {
		f.state = L_TIMEOUT;
		f.end = a->at;
	} else {
		keep_checkpoints(&f, a->at, a->checkpoint_s > 0 ? a->checkpoint_s : lj->bj.job.checkpoint_s);
		f.state = L_PENDING; /* requeued: it waits again */
	}
	return commit_job(b, lj, &f, true);
}

static int do_reserve(struct fw_backend *b, const struct fw_backend_action *a)
{
	struct ljob *lj = find_job(b, a->job);

	if (!lj || lj->state != L_PENDING)
		return FW_ENOENT;
	if (lj->reserved_at == a->at)
		return FW_EEXIST;
	lj->reserved_at = a->at; /* the virtual cluster needs no hold */
	return FW_OK;
}

static int do_drain(struct fw_backend *b, const struct fw_backend_action *a)
{
	int32_t n = node_index(b, a->node);
	char key[FW_NAME_MAX + 8];
	int rc;

	if (n < 0)
		return FW_ENOENT;
	if (b->drained[n])
		return FW_EEXIST;
	snprintf(key, sizeof key, "drain/%s", a->node);
	if ((rc = fw_store_meta_put(b->store, key, 1)) != FW_OK)
		return rc;
	b->drained[n] = true;
	b->hard_gen = ++b->gen;
	return FW_OK;
}

/* The nodes fairway no longer holds out (repaired, their maintenance
 * window over) that this backend drained go back into service (backend.h,
 * "Returning drained nodes"). */
static int local_release(struct fw_backend *b, const char (*nodes)[FW_NAME_MAX], int32_t n,
			 struct fw_diag *d)
{
	char key[FW_NAME_MAX + 8];
	int back = 0;

	for (int32_t k = 0; k < n; k++) {
		int32_t i = node_index(b, nodes[k]);
		const char *name = nodes[k];
		if (i < 0 || !b->drained[i])
			continue;
		snprintf(key, sizeof key, "drain/%s", name);
		if (fw_store_meta_put(b->store, key, 0) != FW_OK)
			return fw_diag_set(d, FW_EIO, "", 0, 0, name, "cannot record the return of node %s", name);
		b->drained[i] = false;
		b->gen++;
		back++;
	}
	return back;
}

/* Nodes on probation or with recent job failures, as of the last read,
 * and those this backend drained for fairway (healthy, ours: held only
 * by fairway's drain; backend.h: health); the others are left out, which
 * the daemon reads as healthy. */
static int local_health(struct fw_backend *b, struct fw_node_health *out, int cap)
{
	int n = 0;

	if (b->fail_stale && tally_failures(b) != FW_OK)
		return FW_ENOMEM;
	for (int32_t i = 0; i < b->fleet->nnodes && n < cap; i++) {
		struct fw_node_health *h = &out[n];
		bool suspect = fw_health_tick(&b->hcfg, &b->fail[i], b->now) == FW_HEALTH_SUSPECT;
		memset(h, 0, sizeof *h);
		if (!describe(b, &b->fail[i], suspect, h->reason, sizeof h->reason) && !b->drained[i])
			continue;
		snprintf(h->node, sizeof h->node, "%s", b->fleet->nodes[i].name);
		h->healthy = true;
		h->suspect = suspect;
		h->ours = b->drained[i];
		n++;
	}
	return n;
}

/* Does a plan of generation gen still hold?  Yes when nothing changed
 * since; no after a hard change (hard_gen) or a generation not yet made;
 * after soft ones only (a cancel, a finish, a release: each only frees
 * room, so the plan's placements still fit and are merely conservative)
 * it holds unless one of its actions names a job changed since or no
 * longer known (forgotten: min-job-age).  An eviction's preemptor starts
 * in the same plan, so a cancelled preemptor makes the plan stale too. */
static bool plan_holds(struct fw_backend *b, uint64_t gen, const struct fw_backend_action *acts, int32_t n)
{
	if (gen == b->gen)
		return true;
	if (gen > b->gen || b->hard_gen > gen)
		return false;
	for (int32_t i = 0; i < n; i++) {
		if (!acts[i].job[0])
			continue; /* a drain names a node only */
		const struct ljob *lj = find_job(b, acts[i].job);
		if (!lj || lj->touched > gen)
			return false;
	}
	return true;
}

static int local_apply(struct fw_backend *b, uint64_t gen, const struct fw_backend_action *acts, int32_t n,
		       struct fw_backend_result *r)
{
	static int (*const fn[FW_DECIDE_COUNT])(struct fw_backend *, const struct fw_backend_action *) = {
		[FW_DECIDE_START] = do_start, [FW_DECIDE_EVICT] = do_evict,
		[FW_DECIDE_RESERVE] = do_reserve, [FW_DECIDE_DRAIN] = do_drain,
	};

	if (!plan_holds(b, gen, acts, n))
		return FW_EAGAIN;
	r->applied = r->skipped = r->failed = 0;
	r->msg[0] = 0;
	for (int32_t i = 0; i < n; i++) {
		int rc = (unsigned)acts[i].kind < FW_DECIDE_COUNT ? fn[acts[i].kind](b, &acts[i]) : FW_EINVAL;
		r->status[i] = rc;
		if (rc == FW_OK)
			r->applied++;
		else if (rc == FW_EEXIST || rc == FW_ENOENT)
			r->skipped++;
		else if (r->failed++ == 0)
			snprintf(r->msg, sizeof r->msg, "%s %s%s: %s", fw_decision_name(acts[i].kind), acts[i].job,
				 acts[i].node, fw_strerror(rc));
	}
	return FW_OK;
}

static int local_submit(struct fw_backend *b, const struct fw_backend_job *j, fw_time now, struct fw_diag *d)
{
	struct ljob *lj;
	int rc;

	if ((lj = find_job(b, j->job.name)))
		return name_taken(lj, d);
	if (!(lj = append(b)))
		return FW_ENOMEM;
	lj->bj = *j;
	if (own_pairs(&lj->bj) != FW_OK) {
		b->njobs--;
		return FW_ENOMEM;
	}
	lj->submit = now;
	lj->state = L_PENDING;
	if ((rc = save(b, lj)) != FW_OK) {
		free(lj->bj.sel);
		b->njobs--;
		return fw_diag_set(d, rc, "", 0, 0, "store", "%s", fw_store_errmsg(b->store));
	}
	return FW_OK; /* new pending work leaves a plan in flight valid: no bump */
}

static int local_cancel(struct fw_backend *b, const char *name, fw_time now)
{
	struct ljob *lj = find_job(b, name), f;

	if (!lj)
		return FW_ENOENT;
	if (ended(lj))
		return FW_EEXIST;
	bool ran = lj->state == L_RUNNING;
	int rc;

	f = *lj; /* its placements, shared: where it last ran, if it ran */
	f.state = L_CANCELLED;
	f.end = now;
	if ((rc = commit_job(b, lj, &f, false)) == FW_OK && ran) /* frees room only */
		note_run(b, lj, now);
	return rc;
}

/* The store's world in place of this one, after the daemon rolled back a
 * transaction this backend wrote into (backend.h, Rollback): loaded whole
 * into a fresh copy (jobs, drains, the failure tally) and only then
 * swapped in, so a failed reload changes nothing.  As after a restart,
 * no job is remembered as reserved (do_reserve keeps that in memory only). */
static int local_reload(struct fw_backend *b, struct fw_diag *d)
{
	struct fw_backend f = *b;
	int rc = alloc_world(&f);

	if (rc == FW_OK)
		rc = fw_store_each(b->store, FW_STORE_JOBS, load_one, &f);
	if (rc == FW_OK)
		rc = gpu_books(&f);
	if (rc == FW_OK)
		rc = tally_failures(&f);
	if (rc != FW_OK) {
		rc = refused(&f, rc, "cannot re-read", d);
		free_world(&f);
		return rc;
	}
	load_drains(&f);
	free_world(b);
	f.gen = f.hard_gen = b->gen + 1; /* a plan made before the rollback is stale */
	*b = f;
	return FW_OK;
}

const struct fw_backend_ops fw_backend_local = {
	.name = "local",
	.summary = "a virtual cluster from the fleet file; jobs run for their runtime in wall-clock time",
	.open = local_open,
	.read = local_read,
	.apply = local_apply,
	.health = local_health,
	.submit = local_submit,
	.cancel = local_cancel,
	.close = local_close,
	.release = local_release,
	.reload = local_reload,
	.probe = local_probe,
	.capture = local_capture,
	.build = local_build,
	.discard = local_discard,
};

/* For the API's job list: the local backend's own view of a job's life
 * (finished, failed and cancelled jobs are no longer in the snapshot). */
int fw_local_job_info(struct fw_backend *b, const char *name, const char **state, fw_time *submit,
		      fw_time *start, fw_time *end, int32_t *exit_code, const struct fw_backend_job **job)
{
	struct ljob *lj = find_job(b, name);
	if (!lj)
		return FW_ENOENT;
	*state = lstate_name[lj->state];
	*submit = lj->submit;
	*start = lj->start;
	*end = lj->end;
	if (exit_code)
		*exit_code = lj->bj.exit_code;
	if (job)
		*job = &lj->bj;
	return FW_OK;
}

int fw_local_job_run(struct fw_backend *b, const char *name, const struct fw_backend_placement **place,
		     int32_t *nplace, fw_time *kept)
{
	const struct ljob *lj = find_job(b, name);

	if (!lj || lj->state != L_RUNNING)
		return FW_ENOENT;
	*place = lj->place;
	*nplace = lj->nplace;
	*kept = lj->kept;
	return FW_OK;
}

int fw_local_job_ran(struct fw_backend *b, const char *name, const struct fw_backend_placement **place,
		     int32_t *nplace)
{
	const struct ljob *lj = find_job(b, name);

	if (!lj || !ended(lj))
		return FW_ENOENT;
	*place = lj->place;
	*nplace = lj->nplace;
	return FW_OK;
}

/* Visit every job the local backend knows (newest last). */
int fw_local_each_job(struct fw_backend *b, int (*fn)(void *ctx, const struct fw_backend_job *j, const char *state,
						       fw_time submit, fw_time start, fw_time end), void *ctx)
{
	for (int32_t i = 0; i < b->njobs; i++) {
		const struct ljob *lj = &b->jobs[i];
		int rc = fn(ctx, &lj->bj, lstate_name[lj->state], lj->submit, lj->start, lj->end);
		if (rc)
			return rc;
	}
	return FW_OK;
}

/* The waiting and running jobs add_job() gives less than their runtime. */
static bool shortened(const struct ljob *lj)
{
	return (lj->state == L_PENDING || lj->state == L_RUNNING) && lj->kept && lj->bj.job.expected_runtime > 0;
}

int32_t fw_local_restarted(const struct fw_backend *b, struct fw_local_runtime **out)
{
	int32_t n = 0, k = 0;

	*out = NULL;
	for (int32_t i = 0; i < b->njobs; i++)
		n += shortened(&b->jobs[i]);
	if (n == 0)
		return 0;
	if (!(*out = calloc((size_t)n, sizeof **out)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < b->njobs; i++) {
		const struct ljob *lj = &b->jobs[i];
		if (!shortened(lj))
			continue;
		snprintf((*out)[k].job, sizeof (*out)[k].job, "%s", lj->bj.job.name);
		(*out)[k++].runtime = lj->bj.job.expected_runtime;
	}
	return n;
}

int32_t fw_local_copy_restarted(const struct fw_backend_copy *c, struct fw_local_runtime **out)
{
	return fw_local_restarted(&c->b, out);
}

uint64_t fw_local_timed_out(const struct fw_backend *b)
{
	return b->timed_out;
}

uint64_t fw_local_purged(const struct fw_backend *b)
{
	return b->purged;
}

int32_t fw_local_runs(struct fw_backend *b, fw_time since, struct fw_backend_run **out)
{
	int32_t k = 0;

	*out = NULL;
	for (int32_t i = 0; i < b->nruns; i++) /* forget what the usage passed */
		if (b->runs[i].end > since)
			b->runs[k++] = b->runs[i];
	b->nruns = k;
	if (k == 0)
		return 0;
	if (!(*out = malloc((size_t)k * sizeof **out)))
		return FW_ENOMEM;
	memcpy(*out, b->runs, (size_t)k * sizeof **out);
	return k;
}
