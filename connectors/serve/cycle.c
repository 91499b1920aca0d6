/*
 * cycle.c — the cycle thread: what the snapshot needs copied under the
 * lock, the snapshot built and planned without it, the plan applied under
 * it if the world is still the one planned for.
 *
 * One pass (run_cycle) reads as its phases (pass_take, pass_plan,
 * pass_apply, pass_publish):
 *   1. take     first, without the lock, the backend's optional
 *               reachable() (Slurm: one ping): a cluster manager that is
 *               down fails the cycle here, so the API never waits out its
 *               connect retries; and its optional fetch() (Slurm: the
 *               read's four loads, into a buffer of its own, which read()
 *               adopts); then under the lock (take_locked): the
 *               skeleton (queues), the backend's world (read(); or, a
 *               backend that reads in two halves, backend.h capture, only
 *               its capture: the local one a copy of its live jobs, the
 *               Slurm one the fetch's messages pinned and a shadow
 *               handle to build on, copy.c),
 *               the local backend's list of restarted jobs' submitted
 *               runtimes, for the view (after a read; from the copy
 *               after a capture), the backend's ended jobs (ended())
 *               and the runs that ended since the usage last accrued
 *               (take_runs), health reports and windows copied,
 *               usage accrued (after a capture: copies of the queues' and
 *               users' usage, accrued after the lock and made the
 *               model's by the apply, adopt_copies); copies of the
 *               generations; then without it (take_unlocked): a
 *               capture's build (the snapshot's nodes and jobs) and its
 *               usage, the model overlaid (overlay(): a node the API
 *               reports unhealthy is UNHEALTHY, suspect SUSPECT, one whose
 *               fault history says so a lemon (history.h), one the
 *               backend reports down only unschedulable; the nodes of an
 *               open maintenance window DRAINING, unless UNHEALTHY), the
 *               nodes to release (3d).  A job submitted after the capture
 *               waits for the next cycle; one cancelled after it makes a
 *               plan that starts it stale (the backend's generation), so
 *               it is never started (backend.h "A read in two halves");
 *   2. plan     no lock: validate, then one sub-cycle per queue or job
 *               reservation, open or to come (only its nodes schedulable,
 *               for one to come only those no open reservation holds: its
 *               own jobs may take them early; pending only its targets,
 *               and of those on a node another reservation to come takes,
 *               only the ones whose runtime ends before that opens), then
 *               the main cycle with the open ones' nodes held back,
 *               the sub-cycles' starts counted as running, and the nodes
 *               of each reservation to come (any kind) leaving when it
 *               opens (leave_for: fw_node.away_at); no sub-cycle's reservation
 *               is kept for a job that starts in the cycle
 *               (drop_moot_reserves); every plan passes fw_plan_check
 *               before it is used;
 *   3. apply    under the lock: if either generation moved, drop the plan
 *               (stale) and go round again (a backend with adopt, Slurm,
 *               says whether its own moved since the capture, and else
 *               makes its build's findings its own, then aside() lists
 *               the jobs it left out for the view); else, in one store
 *               transaction, the backend applies the actions and every
 *               applied action is logged (a failed write or commit rolls
 *               back both: fw_serve_rollback re-reads the backend);
 *               then, still under it, the backend's optional explain()
 *               gets the plan's waiting reasons by job name (best effort),
 *               the optional windows() every maintenance window of the
 *               model, which the backend mirrors (Slurm reservations),
 *               and the optional release() the nodes fairway no longer
 *               holds out (repaired, or their window over);
 *   4. publish  the JSON view the API reads (view.c), built without the
 *               lock with its nodes by name (nodes_by_name, for GET
 *               /v1/nodes/{name}), and swapped in under it, with GET
 *               /v1/health's copy of the model's fields
 *               (fw_serve_publish_health: health never takes the state
 *               lock); the old view is let go after the lock (freeing a
 *               view of 20,000 jobs took most of the hold).
 *
 * Maintenance windows take three forms, by time.  To come: the window's
 * nodes leave when it opens and are back when it ends (away_at, back_at),
 * so the main cycle, in its own order, puts there only jobs planned to
 * end before it opens, may reserve them for a blocked gang from the
 * window's end, and counts on them in estimates from then.  Open: the
 * nodes are DRAINING, so the core puts nothing new there and emits a
 * DRAIN decision (DRAIN_FINISH: running jobs finish) that the backend
 * applies like any other drain, with a text naming the window (the
 * backend's drain reason, Slurm "fairway: drain: maintenance window <id>
 * (<reason>); ...").
 * Over, or deleted: nothing marks the nodes, the backend still holds them
 * out, and release() returns them.  A node that is also reported
 * unhealthy stays UNHEALTHY throughout and is never released for the
 * window's sake: the report, not the window, decides.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "local.h"
#include "reason.h"
#include "serve_int.h"

struct actlist {
	struct fw_backend_action *a;
	int32_t n, cap;
};

struct taken {
	struct fw_snapshot *s;
	uint64_t dgen, wgen, requests;
	int32_t skipped;
	struct fw_backend_copy *copy;   /* a split read's capture, until its
					 * build (backend.h capture) */
	struct fw_backend_copy *kept;   /* ... then, for a backend with
					 * adopt, until the apply adopts it */
	void (*discard)(struct fw_backend_copy *c);
	/* Copies of the model's queues and users' usage: a dry run's,
	 * accrued and thrown away; a split read's (adopt), copied under the
	 * lock, accrued without it (accrue_copies), made the model's by the
	 * apply (adopt_copies).  NULL when the take accrued the model's own. */
	struct fw_queue_spec *qs;
	int32_t nq;
	struct fw_user_use *users;
	int32_t nusers, capu;
	bool adopt;
	struct fw_reservation *rsv;     /* active queue/job reservations */
	int32_t nrsv;
	struct fw_health_report *health;
	int32_t nhealth;
	int32_t napi;                   /* health's first napi: the API's */
	struct fw_reservation *open;    /* maintenance windows open now */
	int32_t nopen;
	char (*back)[FW_NAME_MAX];      /* for release() */
	int32_t nback;
	struct fw_backend_aside *aside; /* the backend's jobs left out of s
					 * (backend.h aside), for the view */
	int32_t naside;
	struct fw_backend_ended *ended; /* the backend's ended jobs (backend.h
					 * ended), for the view */
	int32_t nended;
	char (*ended_nodes)[FW_NAME_MAX]; /* their nodes' names */
	struct fw_backend_run *runs;    /* the runs that ended since the
					 * usage last accrued (take_runs) */
	int32_t nruns;
	struct fw_local_runtime *rt;    /* the local backend's restarted jobs'
					 * submitted runtimes, for the view */
	int32_t nrt;
};

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* --- 1. take ------------------------------------------------------------------ */
struct nameref {
	const char *name;
	int32_t idx;
};

static int nameref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct nameref *)a)->name, ((const struct nameref *)b)->name);
}

/* The snapshot's nodes sorted by name, for find(); NULL without memory. */
static struct nameref *index_nodes(const struct fw_snapshot *s)
{
	struct nameref *ix = calloc((size_t)s->nnodes + 1, sizeof *ix);

	if (!ix)
		return NULL;
	for (int32_t i = 0; i < s->nnodes; i++)
		ix[i] = (struct nameref){ s->nodes[i].name, i };
	qsort(ix, (size_t)s->nnodes, sizeof *ix, nameref_cmp);
	return ix;
}

static struct fw_node *find(struct fw_snapshot *s, const struct nameref *ix, const char *name)
{
	struct nameref key = { name, -1 };
	const struct nameref *r = bsearch(&key, ix, (size_t)s->nnodes, sizeof key, nameref_cmp);

	return r ? &s->nodes[r->idx] : NULL;
}

/* One report.  The API's (api): unhealthy makes the node UNHEALTHY, so
 * the core drains it in the backend (lib/drain.c: with its jobs, or idle
 * while the backend still has it schedulable); suspect makes it SUSPECT;
 * its fault history may make it a lemon (history.h).  The backend's own
 * (Slurm: DOWN, DRAIN) only make it unschedulable: the backend has
 * already taken it out, for its reasons; its suspect (Slurm: repeated job
 * failures on the node) makes it SUSPECT, as the API's does. */
static void report(const struct fw_health_config *c, struct fw_node *n, const struct fw_health_report *h,
		   bool api, fw_time now)
{
	if (!h->healthy && api)
		n->health = FW_HEALTH_UNHEALTHY;
	else if (h->suspect && n->health == FW_HEALTH_HEALTHY)
		n->health = FW_HEALTH_SUSPECT;
	else if (!h->healthy)
		n->schedulable = false;
	n->bad_gpu_mask |= h->bad_gpu_mask;
	if (api && fw_history_is_lemon(h, c, now))
		n->lemon = true;
}

/* An open maintenance window: its nodes become DRAINING (an UNHEALTHY
 * one stays so), so nothing new lands there and the core drains them in
 * the backend, jobs left to finish (DRAIN_FINISH). */
/* Node n is out of service until `until` for a window or a hold alone
 * (it took work before, or is out only for another of them: back_at
 * set): the core counts on it from then on (fw_node.back_at).  A node
 * out for its own sake (cordoned, unhealthy, draining in the config) is
 * not known to come back. */
static void back_at(struct fw_node *n, bool in_service, fw_time until)
{
	if (in_service || n->back_at)
		n->back_at = until > n->back_at ? until : n->back_at;
}

static void drain_window(struct fw_snapshot *s, const struct nameref *ix, const struct fw_reservation *r,
			 const bool *ours)
{
	for (int32_t k = 0; k < r->nnodes; k++) {
		struct fw_node *n = find(s, ix, r->nodes[k]);
		if (!n || n->health == FW_HEALTH_UNHEALTHY)
			continue;
		/* held by fairway's own drain (this window's, applied in an
		 * earlier cycle): in service but for the window */
		back_at(n, (n->schedulable || ours[n - s->nodes]) && n->health != FW_HEALTH_DRAINING, r->end);
		n->health = FW_HEALTH_DRAINING;
	}
}

static bool held_without_reason(const struct fw_node *n);

/* Health reports (the API's, the first t->napi, then the backend's)
 * and open maintenance windows: node states, held nodes, bad GPUs,
 * lemons.  Reads t and d's constants alone: runs without the lock. */
static int overlay(const struct fw_serve *d, struct taken *t)
{
	struct fw_snapshot *s = t->s;
	struct nameref *ix = index_nodes(s);
	bool *ours = calloc((size_t)s->nnodes + 1, sizeof *ours); /* held by fairway's drain alone */

	if (!ix || !ours) {
		free(ix);
		free(ours);
		return FW_ENOMEM;
	}
	for (int32_t i = 0; i < t->nhealth; i++) {
		struct fw_node *n = find(s, ix, t->health[i].node);
		if (!n)
			continue;
		report(&d->hcfg, n, &t->health[i], i < t->napi, s->now);
		ours[n - s->nodes] |= i >= t->napi && t->health[i].ours;
	}
	for (int32_t i = 0; i < t->nopen; i++)
		drain_window(s, ix, &t->open[i], ours);
	/* Held by fairway's drain alone with its reason gone (a window
	 * over): this cycle returns it (release), so it counts as back a
	 * second from now, not as out for good. */
	for (int32_t x = 0; x < s->nnodes; x++)
		if (ours[x] && held_without_reason(&s->nodes[x]) && !s->nodes[x].back_at)
			s->nodes[x].back_at = s->now + 1;
	free(ix);
	free(ours);
	return FW_OK;
}

/* The maintenance windows open now (start <= now < end). */
static int open_windows(const struct fw_serve *d, struct taken *t, fw_time now)
{
	if (!(t->open = calloc((size_t)d->nrsv + 1, sizeof *t->open)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < d->nrsv; i++)
		if (d->rsv[i].kind == FW_RSV_MAINTENANCE && d->rsv[i].start <= now && now < d->rsv[i].end)
			t->open[t->nopen++] = d->rsv[i];
	return FW_OK;
}

/* Nodes for the backend's release() (backend.h): those the world holds
 * out of service although fairway has no reason to hold them any more:
 * no unhealthy API report, no open maintenance window, not unhealthy or
 * draining in the fleet's config (each of those is UNHEALTHY or DRAINING
 * here).  The backend returns only those *it* drained for fairway; an
 * operator's drain or a down node is left alone.  Taken before the plan
 * holds nodes back for reservations to come. */
static bool held_without_reason(const struct fw_node *n)
{
	return !n->schedulable && (n->health == FW_HEALTH_HEALTHY || n->health == FW_HEALTH_SUSPECT);
}

static int to_release(struct taken *t)
{
	const struct fw_snapshot *s = t->s;
	int32_t n = 0;

	for (int32_t i = 0; i < s->nnodes; i++)
		n += held_without_reason(&s->nodes[i]);
	if (!(t->back = calloc((size_t)n + 1, sizeof *t->back)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < s->nnodes; i++)
		if (held_without_reason(&s->nodes[i]))
			snprintf(t->back[t->nback++], FW_NAME_MAX, "%s", s->nodes[i].name);
	return FW_OK;
}

/* A node whose reporter has gone quiet for longer than the heartbeat
 * timeout (health.h heartbeat_s; 0 = off) is not responding: unhealthy
 * for this cycle (health.h T12), until its next report.  The stored
 * report is left as it was. */
static void stale(const struct fw_health_config *c, struct fw_health_report *h, fw_time now)
{
	char was[sizeof h->reason], silent[FW_SPAN_MAX];

	if (c->heartbeat_s <= 0 || !h->healthy || now - h->received <= c->heartbeat_s)
		return;
	snprintf(was, sizeof was, "%s", h->reason);
	h->healthy = false;
	h->suspect = false;
	snprintf(h->reason, sizeof h->reason, "not responding: no report for %s (last: %.80s)",
		 fw_span_format(now - h->received, silent, sizeof silent), was);
}

/* The API's reports (a silent reporter's as not responding), then what
 * the backend knows (Slurm: DOWN/DRAIN, repeated job failures). */
/* The backend's node health (backend.h health), all of it: a capture's
 * snapshot has no nodes yet, and its backend may have more than the
 * fleet's config (Slurm: its own nodes), so the room doubles until the
 * answer fits with one to spare.  Its count (>= 0), *out the entries. */
static int backend_health(struct fw_serve *d, int32_t nn, struct fw_node_health **out)
{
	int32_t room = nn > 0 ? nn + 1 : 16;
	int n;

	for (;; room *= 2) {
		free(*out);
		if (!(*out = calloc((size_t)room, sizeof **out)))
			return FW_ENOMEM; /* the caller frees *out (NULL) */
		if ((n = d->bops->health(d->be, *out, room)) < room || room >= INT32_MAX / 2)
			return n;
	}
}

/* One node's health from the backend as a report of the model's. */
static void backend_report(struct fw_health_report *r, const struct fw_node_health *h, const char *backend,
			   fw_time now)
{
	memset(r, 0, sizeof *r);
	snprintf(r->node, sizeof r->node, "%s", h->node);
	r->healthy = h->healthy;
	r->suspect = h->suspect;
	r->bad_gpu_mask = h->bad_gpu_mask;
	r->ours = h->ours;
	if (h->reason[0] && snprintf(r->reason, sizeof r->reason, "%.100s (%s)", h->reason, backend) >=
				    (int)sizeof r->reason) {
		/* a long reason is cut (the backend's name kept): text for people */
	}
	r->at = now;
}

static int gather_health(struct fw_serve *d, struct taken *t)
{
	int32_t nn = t->copy ? d->fleet->nnodes : t->s->nnodes; /* a capture's: at least the fleet's (backend.h) */
	struct fw_node_health *bh = NULL;
	int n = 0;

	if (d->bops->health && (n = backend_health(d, nn, &bh)) < 0)
		n = 0; /* a failed health op: the API's reports alone */
	if (!(t->health = calloc((size_t)d->nhealth + (size_t)n + 1, sizeof *t->health))) {
		free(bh);
		return FW_ENOMEM;
	}
	if (d->nhealth)
		memcpy(t->health, d->health, (size_t)d->nhealth * sizeof *t->health);
	t->nhealth = t->napi = d->nhealth;
	for (int32_t i = 0; i < t->nhealth; i++)
		stale(&d->hcfg, &t->health[i], t->s->now);
	for (int i = 0; i < n; i++)
		backend_report(&t->health[t->nhealth++], &bh[i], d->bops->name, t->s->now);
	free(bh);
	return FW_OK;
}

/* The GPUs running job j holds. */
static double held_gpus(const struct fw_snapshot *s, const struct fw_job *j)
{
	double gpus = 0;

	for (int32_t k = 0; k < j->alloc_count; k++)
		gpus += __builtin_popcount(s->allocs[j->alloc_first + k].gpu_mask) *
			s->allocs[j->alloc_first + k].gpu_milli / 1000.0;
	return gpus;
}

static int use_cmp(const char *q1, const char *u1, const struct fw_user_use *b)
{
	int c = strcmp(q1, b->queue);
	return c ? c : strcmp(u1, b->user);
}

/* The entry of (queue, user) in the table sorted by both, made (usage 0
 * as of at) when absent; NULL on no memory. */
static struct fw_user_use *user_use(struct fw_user_use **u, int32_t *n, int32_t *cap, const char *queue,
				    const char *user, fw_time at)
{
	int32_t lo = 0, hi = *n;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		int c = use_cmp(queue, user, &(*u)[mid]);
		if (c == 0)
			return &(*u)[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!fw_serve_grow(u, n, cap, sizeof **u))
		return NULL;
	memmove(&(*u)[lo + 1], &(*u)[lo], (size_t)(*n - 1 - lo) * sizeof **u);
	struct fw_user_use *e = &(*u)[lo];
	memset(e, 0, sizeof *e);
	snprintf(e->queue, sizeof e->queue, "%s", queue);
	snprintf(e->user, sizeof e->user, "%s", user);
	e->usage_at = at;
	return e;
}

struct qname {
	const char *name;
	int32_t q;
};

static int qname_cmp(const void *a, const void *b)
{
	return strcmp(((const struct qname *)a)->name, ((const struct qname *)b)->name);
}

/* The queues by name, for the runs (by their queue's name): nq + 1 of
 * them sorted, NULL on no memory. */
static struct qname *queues_by_name(const struct fw_queue_spec *qs, int32_t nq)
{
	struct qname *byname = malloc(((size_t)nq + 1) * sizeof *byname);

	for (int32_t q = 0; byname && q < nq; q++)
		byname[q] = (struct qname){ qs[q].name, q };
	if (byname)
		qsort(byname, (size_t)nq, sizeof *byname, qname_cmp);
	return byname;
}

/* The queue named name (qs order), or -1. */
static int32_t queue_named(const struct qname *byname, int32_t nq, const char *name)
{
	struct qname key = { name, 0 };
	const struct qname *f = nq ? bsearch(&key, byname, (size_t)nq, sizeof *byname, qname_cmp) : NULL;

	return f ? f->q : -1;
}

/* Run r's stretch that usage as of `since` has not counted: from its
 * start, or since when later, to its end (now at the latest: a run the
 * clock puts after now counts the rest at the next pass). */
static double run_for(const struct fw_backend_run *r, fw_time since, fw_time now, double h)
{
	fw_time from = r->start > since ? r->start : since;

	return fw_usage_held(r->gpus, from, r->end < now ? r->end : now, now, h);
}

/* Phase 1 of the users' accrual: an entry for each user with a running
 * job or a run to count, made (usage 0) as of its queue's last pass. */
static int user_entries(struct fw_user_use **u, int32_t *n, int32_t *cap, const struct fw_queue_spec *qs,
			int32_t nq, const struct qname *byname, const struct fw_snapshot *s,
			const struct fw_backend_run *runs, int32_t nruns)
{
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct fw_job *j = &s->jobs[i];
		if (j->state == FW_JOB_RUNNING && j->queue >= 0 && j->queue < nq &&
		    !user_use(u, n, cap, qs[j->queue].name, j->user, qs[j->queue].usage_at))
			return FW_ENOMEM;
	}
	for (int32_t i = 0; i < nruns; i++) {
		int32_t q = queue_named(byname, nq, runs[i].queue);
		if (q >= 0 && runs[i].end > qs[q].usage_at && runs[i].gpus > 0 &&
		    !user_use(u, n, cap, qs[q].name, runs[i].user, qs[q].usage_at))
			return FW_ENOMEM;
	}
	return FW_OK;
}

/* Phase 2: what each entry's running jobs and runs add (add[k] for
 * entry k), decayed to s->now. */
static void users_add(struct fw_user_use **u, int32_t *n, int32_t *cap, const struct fw_queue_spec *qs, int32_t nq,
		      const struct qname *byname, const struct fw_snapshot *s, const struct fw_backend_run *runs,
		      int32_t nruns, double *add)
{
	double h = s->config.usage_half_life_s;

	for (int32_t i = 0; i < s->njobs; i++) {
		const struct fw_job *j = &s->jobs[i];
		if (j->state != FW_JOB_RUNNING || j->queue < 0 || j->queue >= nq)
			continue;
		struct fw_user_use *e = user_use(u, n, cap, qs[j->queue].name, j->user, 0);
		fw_time from = j->start_time > e->usage_at ? j->start_time : e->usage_at;
		add[e - *u] += fw_usage_held(held_gpus(s, j), from, s->now, s->now, h);
	}
	for (int32_t i = 0; i < nruns; i++) {
		int32_t q = queue_named(byname, nq, runs[i].queue);
		if (q < 0 || runs[i].end <= qs[q].usage_at || runs[i].gpus <= 0)
			continue; /* as user_entries: no entry made */
		struct fw_user_use *e = user_use(u, n, cap, qs[q].name, runs[i].user, 0);
		add[e - *u] += run_for(&runs[i], e->usage_at, s->now, h);
	}
}

int fw_serve_accrue_users(struct fw_user_use **u, int32_t *n, int32_t *cap, const struct fw_queue_spec *qs,
			  int32_t nq, struct fw_snapshot *s, const struct fw_backend_run *runs, int32_t nruns)
{
	double h = s->config.usage_half_life_s, *add = NULL;
	struct qname *byname = queues_by_name(qs, nq);
	int rc = byname ? user_entries(u, n, cap, qs, nq, byname, s, runs, nruns) : FW_ENOMEM;

	if (rc == FW_OK && !(add = calloc((size_t)*n + 1, sizeof *add)))
		rc = FW_ENOMEM;
	if (rc == FW_OK)
		users_add(u, n, cap, qs, nq, byname, s, runs, nruns, add);
	for (int32_t k = 0; k < *n && rc == FW_OK; k++) { /* one decay each; the snapshot's copy */
		struct fw_user_use *e = &(*u)[k];
		e->usage = fw_usage_decay(e->usage, e->usage_at, s->now, h) + add[k];
		e->usage_at = s->now;
		int32_t q = queue_named(byname, nq, e->queue);
		if (q >= 0) {
			struct fw_user_usage x = { .queue = q, .usage = e->usage, .usage_at = e->usage_at };
			memcpy(x.user, e->user, sizeof x.user);
			if (fw_snapshot_add_user_usage(s, &x) < 0)
				rc = FW_ENOMEM;
		}
	}
	free(add), free(byname);
	return rc;
}

int fw_serve_adopt_usage(struct fw_user_use **u, int32_t *n, int32_t *cap, struct fw_queue_spec *qs, int32_t nq,
			 struct fw_snapshot *s)
{
	double h = s->config.usage_half_life_s;

	for (int32_t q = 0; q < nq && q < s->nqueues; q++) {
		qs[q].usage = fw_usage_decay(s->queues[q].usage, s->queues[q].usage_at, s->now, h);
		qs[q].usage_at = s->now;
		s->queues[q].usage = qs[q].usage;
		s->queues[q].usage_at = s->now;
	}
	*n = 0;
	for (int32_t i = 0; i < s->nuser_usage; i++) {
		const struct fw_user_usage *x = &s->user_usage[i];
		struct fw_user_use *e = x->queue >= 0 && x->queue < nq
						? user_use(u, n, cap, qs[x->queue].name, x->user, s->now)
						: NULL;
		if (x->queue >= 0 && x->queue < nq && !e)
			return FW_ENOMEM;
		if (e) /* two entries of one user and queue add up */
			e->usage += fw_usage_decay(x->usage, x->usage_at, s->now, h);
	}
	return FW_OK;
}

/* The GPU-seconds each queue's running jobs held since from0 (from their
 * start when later) up to s->now, and its runs up to their end, added to
 * add[q] (nq entries), undecayed: /metrics' GPU-hours (count_gpu_time),
 * counted as the decayed usage is (fw_serve_accrue_usage). */
static void held_since(const struct fw_snapshot *s, fw_time from0, int32_t nq, const struct fw_backend_run *runs,
		       int32_t nruns, double *add)
{
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct fw_job *j = &s->jobs[i];
		if (j->state != FW_JOB_RUNNING || j->queue < 0 || j->queue >= nq)
			continue;
		add[j->queue] += fw_usage_held(held_gpus(s, j), j->start_time > from0 ? j->start_time : from0, s->now,
					  s->now, 0);
	}
	for (int32_t i = 0; i < nruns; i++) {
		int q = fw_snapshot_find_queue(s, runs[i].queue);
		if (q >= 0 && q < nq)
			add[q] += run_for(&runs[i], from0, s->now, 0);
	}
}

int fw_serve_accrue_usage(struct fw_queue_spec *qs, int32_t nq, struct fw_snapshot *s,
			  const struct fw_backend_run *runs, int32_t nruns)
{
	double h = s->config.usage_half_life_s, *add = calloc((size_t)nq + 1, sizeof *add);
	struct qname *byname = queues_by_name(qs, nq);

	if (!add || !byname) {
		free(add), free(byname);
		return FW_ENOMEM;
	}
	for (int32_t i = 0; i < s->njobs; i++) { /* each queue's new use, first */
		const struct fw_job *j = &s->jobs[i];
		if (j->state != FW_JOB_RUNNING || j->queue < 0 || j->queue >= nq)
			continue;
		fw_time since = qs[j->queue].usage_at; /* skeleton order = model order */
		add[j->queue] += fw_usage_held(held_gpus(s, j), j->start_time > since ? j->start_time : since, s->now,
					  s->now, h);
	}
	for (int32_t i = 0; i < nruns; i++) {
		int32_t q = queue_named(byname, nq, runs[i].queue);
		if (q >= 0)
			add[q] += run_for(&runs[i], qs[q].usage_at, s->now, h);
	}
	for (int32_t q = 0; q < nq; q++) { /* then one decay per queue */
		qs[q].usage = fw_usage_decay(qs[q].usage, qs[q].usage_at, s->now, h) + add[q];
		qs[q].usage_at = s->now;
		s->queues[q].usage = qs[q].usage;
		s->queues[q].usage_at = s->now;
	}
	free(add), free(byname);
	return FW_OK;
}

/* The usage step of take: the backend's usage adopted, or the daemon's
 * accrued, into qs and the users' table *u (the daemon's own, or, for a
 * dry run, copies that are thrown away after), and into the snapshot. */
static int take_usage(struct fw_serve *d, struct fw_queue_spec *qs, struct fw_user_use **u, int32_t *n, int32_t *cap,
		      struct fw_snapshot *s, const struct fw_backend_run *runs, int32_t nruns)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	rc = d->bops->usage ? d->bops->usage(d->be, s, &dg) : FW_ENOENT;
	if (rc == FW_OK)
		return fw_serve_adopt_usage(u, n, cap, qs, d->nqueues, s);
	if (rc == FW_ENOENT && (rc = fw_serve_accrue_users(u, n, cap, qs, d->nqueues, s, runs, nruns)) == FW_OK)
		rc = fw_serve_accrue_usage(qs, d->nqueues, s, runs, nruns);
	return rc;
}

/* Copies of the model's queues and users' usage into t (caller holds
 * the lock), for a usage step that leaves the model as it is. */
static int copy_usage(const struct fw_serve *d, struct taken *t)
{
	t->qs = malloc(((size_t)d->nqueues + 1) * sizeof *t->qs);
	t->users = malloc(((size_t)d->nusers + 1) * sizeof *t->users);
	if (!t->qs || !t->users)
		return FW_ENOMEM;
	if (d->nqueues)
		memcpy(t->qs, d->queues, (size_t)d->nqueues * sizeof *t->qs);
	if (d->nusers)
		memcpy(t->users, d->users, (size_t)d->nusers * sizeof *t->users);
	t->nq = d->nqueues;
	t->nusers = d->nusers;
	t->capu = d->nusers + 1;
	return FW_OK;
}

/* A dry run's usage: the same step on copies, so the snapshot holds what
 * a cycle's would and the daemon's usage stays as it was. */
static int take_usage_dry(struct fw_serve *d, struct taken *t)
{
	int rc = copy_usage(d, t);

	return rc == FW_OK ? take_usage(d, t->qs, &t->users, &t->nusers, &t->capu, t->s, t->runs, t->nruns) : rc;
}

/* A split read's usage, under the lock: the backend's, where its cluster
 * manager keeps it (Slurm's associations: backend.h usage, onto the
 * skeleton), the model's own as after a whole read; else copies of the
 * model's, accrued after the build (accrue_copies) for the apply to
 * adopt. */
static int take_usage_split(struct fw_serve *d, struct taken *t)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	rc = d->bops->usage ? d->bops->usage(d->be, t->s, &dg) : FW_ENOENT;
	if (rc == FW_OK)
		return fw_serve_adopt_usage(&d->users, &d->nusers, &d->capu, d->queues, d->nqueues, t->s);
	if (rc != FW_ENOENT)
		return rc;
	t->adopt = true;
	return copy_usage(d, t);
}

/* A split read's usage, on the copies taken under the lock, now without
 * it: the daemon's own accrual from the built snapshot. */
static int accrue_copies(struct taken *t)
{
	int rc = fw_serve_accrue_users(&t->users, &t->nusers, &t->capu, t->qs, t->nq, t->s, t->runs, t->nruns);

	return rc == FW_OK ? fw_serve_accrue_usage(t->qs, t->nq, t->s, t->runs, t->nruns) : rc;
}

/* At the apply, the model unmoved since the take (its generation): the
 * copies' accrual made the model's, as a take under the lock would have
 * made it.  Nothing for a take that accrued the model's own. */
static void adopt_copies(struct fw_serve *d, struct taken *t)
{
	if (!t->adopt || t->nq != d->nqueues)
		return;
	for (int32_t q = 0; q < t->nq; q++) {
		d->queues[q].usage = t->qs[q].usage;
		d->queues[q].usage_at = t->qs[q].usage_at;
	}
	free(d->users);
	d->users = t->users;
	d->nusers = t->nusers;
	d->capu = t->capu;
	t->users = NULL;
}

/* The backend's own reservations as of this read, for the API's list
 * (backend.h reservations).  A failure keeps the last list: it is only
 * shown, never planned with (the backend's read() plans around them). */
static void backend_reservations(struct fw_serve *d)
{
	int n;

	if (!d->brsv && !(d->brsv = calloc(FW_BACKEND_RSV_MAX, sizeof *d->brsv)))
		return;
	if ((n = d->bops->reservations(d->be, d->brsv, FW_BACKEND_RSV_MAX)) < 0)
		return;
	d->nbrsv = n < FW_BACKEND_RSV_MAX ? n : FW_BACKEND_RSV_MAX;
	d->brsv_more = n - d->nbrsv;
}

/* Ended jobs in the order they ended, then by name: the list's. */
static int by_end(const void *a, const void *b)
{
	const struct fw_backend_ended *x = a, *y = b;

	if (x->ended != y->ended)
		return x->ended < y->ended ? -1 : 1;
	return strcmp(x->job, y->job);
}

/* The ended jobs the backend's read() saw (backend.h ended), with their
 * nodes, for the view to list and the usage to count to their end
 * (take_runs), in the order they ended; right after the read or the
 * capture (whose messages an apply that adopts its build still has:
 * equal generations, equal messages).  A failure lists none: they are
 * shown, and hold nothing; their usage then stops at the last cycle that
 * saw them run, as it did before they were read. */
static void backend_ended(struct fw_serve *d, struct taken *t)
{
	int32_t names = 0, k = 0, n = d->bops->ended(d->be, NULL, 0, NULL, 0, &names), cap = n;

	if (n <= 0 || !(t->ended = calloc((size_t)n, sizeof *t->ended)) ||
	    !(t->ended_nodes = calloc((size_t)names + 1, sizeof *t->ended_nodes)))
		return;
	n = d->bops->ended(d->be, t->ended, cap, t->ended_nodes, names, &k);
	t->nended = n < 0 ? 0 : n < cap ? n : cap;
	qsort(t->ended, (size_t)t->nended, sizeof *t->ended, by_end);
}

/* The jobs the backend's read() left out of the snapshot (backend.h
 * aside), for the view to list.  A failure lists none: they are only
 * shown, never planned. */
static void backend_aside(struct fw_serve *d, struct taken *t)
{
	int32_t n = d->bops->aside(d->be, NULL, 0);

	if (n <= 0 || !(t->aside = calloc((size_t)n, sizeof *t->aside)))
		return;
	n = d->bops->aside(d->be, t->aside, n);
	t->naside = n > 0 ? n : 0;
}

/* The oldest time the daemon's usage (a queue's, a user's) is as of:
 * a run that ended after it has usage still to count. */
static fw_time usage_since(const struct fw_serve *d)
{
	fw_time since = d->nqueues ? d->queues[0].usage_at : 0;

	for (int32_t q = 1; q < d->nqueues; q++)
		since = d->queues[q].usage_at < since ? d->queues[q].usage_at : since;
	for (int32_t k = 0; k < d->nusers; k++)
		since = d->users[k].usage_at < since ? d->users[k].usage_at : since;
	return since;
}

/* The oldest time a run that ended after it still has time to count:
 * the usage's (usage_since), or /metrics' GPU-hours' mark when older
 * (count_gpu_time).  Only an applied cycle moves the mark, while the
 * usage moves at the take (a whole read's; the backend's own, adopted
 * at the take; a split read's copies, adopted before the backend's apply
 * finds the plan stale): after a stale or failed attempt the usage is
 * past a run that the GPU-hours have still to count.  Each count takes
 * of a run only its stretch after its own mark (run_for), so a run kept
 * longer is counted once by each. */
static fw_time runs_since(const struct fw_serve *d)
{
	fw_time since = usage_since(d), mark = d->m.gpu_counted_at;

	return mark > 0 && mark < since ? mark : since;
}

/* The runs that ended since the usage or the GPU-hours last counted
 * (runs_since), for them to count them to their end (backend.h
 * fw_backend_run): the local backend's own
 * record of the runs it ended, or the ended jobs the backend's cluster
 * still lists that ran (t->ended: Slurm's, for MinJobAge; one that ended
 * before the next cycle after its end reads it, a cycle period longer
 * than MinJobAge, loses its last stretch: check_keep warns of such a
 * period, backend.h ended_keep).  After the read (or capture)
 * that ended them, under the lock. */
static int take_runs(struct fw_serve *d, struct taken *t)
{
	fw_time since = runs_since(d);
	int32_t n;

	if (d->bops == &fw_backend_local) {
		if ((n = fw_local_runs(d->be, since, &t->runs)) < 0)
			return n;
		t->nruns = n;
		return FW_OK;
	}
	if (t->nended && !(t->runs = calloc((size_t)t->nended, sizeof *t->runs)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < t->nended; i++) {
		const struct fw_backend_ended *e = &t->ended[i];
		if (e->started <= 0 || e->gpus <= 0 || e->ended <= since)
			continue;
		struct fw_backend_run *r = &t->runs[t->nruns++];
		memcpy(r->queue, e->queue, sizeof r->queue);
		memcpy(r->user, e->user, sizeof r->user);
		r->gpus = (double)e->gpus;
		r->start = e->started;
		r->end = e->ended;
	}
	return FW_OK;
}

/* The local backend's jobs that read() gave less than their submitted
 * runtime (local.h fw_local_restarted), taken with the read so that the
 * view can put their own word back without the lock (submitted_runtimes). */
static int take_runtimes(struct fw_serve *d, struct taken *t)
{
	int32_t n;

	if (d->bops != &fw_backend_local)
		return FW_OK;
	if ((n = fw_local_restarted(d->be, &t->rt)) < 0)
		return n;
	t->nrt = n;
	return FW_OK;
}

/* Does this take read in two halves (backend.h capture)?  A dry run
 * holds the lock throughout: it reads whole. */
static bool split_read(const struct fw_serve *d, bool dry)
{
	return !dry && d->bops->capture && d->bops->build && d->bops->discard;
}

/* The world: the backend's whole read, or a split read's capture (its
 * build comes after the lock, build_world). */
static int read_world(struct fw_serve *d, struct taken *t, bool dry, char *err, size_t errn)
{
	struct fw_backend_world w = { 0, 0 };
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (split_read(d, dry)) {
		t->discard = d->bops->discard;
		rc = d->bops->capture(d->be, t->s, &t->copy, &dg);
	} else {
		rc = d->bops->read(d->be, t->s, &w, &dg);
		t->wgen = w.generation;
		t->skipped = w.skipped_jobs;
	}
	if (rc != FW_OK)
		fw_diag_format(&dg, err, errn);
	return rc;
}

/* The model's reservations this cycle plans with: active queue/job ones
 * first, then every reservation still to come, of any kind (its nodes
 * take only jobs that end before it opens); an open maintenance window
 * is open_windows()'s. */
static int take_rsv(const struct fw_serve *d, struct taken *t, fw_time now)
{
	if (!(t->rsv = calloc((size_t)d->nrsv + 1, sizeof *t->rsv)))
		return FW_ENOMEM;
	for (int32_t i = 0; i < d->nrsv; i++)
		if (d->rsv[i].kind != FW_RSV_MAINTENANCE && d->rsv[i].start <= now && now < d->rsv[i].end)
			t->rsv[t->nrsv++] = d->rsv[i];
	for (int32_t i = 0; i < d->nrsv; i++)
		if (now < d->rsv[i].start)
			t->rsv[t->nrsv++] = d->rsv[i];
	return FW_OK;
}

/* Take's first half, under the lock: all that reads the model or calls
 * the backend.  Usage: the backend's, where its cluster manager keeps it
 * (Slurm's associations), taken as the daemon's own; else the daemon's,
 * accrued from the running jobs: here, on the model itself after a whole
 * read, on copies thrown away after a dry run's; after a capture, on
 * copies in take_unlocked, for the apply to adopt. */
static int take_locked(struct fw_serve *d, struct taken *t, bool dry, char *err, size_t errn)
{
	fw_time now = fw_serve_now();
	int rc;

	if ((rc = fw_serve_backend_ready(d, err, errn)) != FW_OK)
		return rc;
	if (!(t->s = fw_serve_skeleton(d, d->queues, d->nqueues, now)))
		return FW_ENOMEM;
	if ((rc = read_world(d, t, dry, err, errn)) != FW_OK)
		return rc;
	if (!dry && !t->copy && (rc = take_runtimes(d, t)) != FW_OK)
		return rc;
	if (!dry && d->bops->reservations)
		backend_reservations(d);
	if (!dry && d->bops->aside && !(t->copy && d->bops->adopt)) /* else after the adopt */
		backend_aside(d, t);
	if (d->bops->ended) /* of the same read, for the view and the usage */
		backend_ended(d, t);
	if ((rc = take_runs(d, t)) || (rc = gather_health(d, t)) || (rc = open_windows(d, t, now)))
		return rc;
	if (t->copy)
		rc = take_usage_split(d, t);
	else
		rc = dry ? take_usage_dry(d, t)
			 : take_usage(d, d->queues, &d->users, &d->nusers, &d->capu, t->s, t->runs, t->nruns);
	if (rc != FW_OK)
		return rc;
	t->dgen = d->gen;
	t->requests = d->cycle_requests;
	return take_rsv(d, t, now);
}

/* A split read's second half: the snapshot built from the capture (and,
 * for the view, the local backend's restarted jobs' runtimes from it),
 * the copy then let go, or kept for the apply to adopt (backend.h
 * adopt). */
static int build_world(struct fw_serve *d, struct taken *t, char *err, size_t errn)
{
	struct fw_backend_world w = { 0, 0 };
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if ((rc = d->bops->build(t->copy, t->s, &w, &dg)) != FW_OK) {
		fw_diag_format(&dg, err, errn);
		return rc;
	}
	t->wgen = w.generation;
	t->skipped = w.skipped_jobs;
	if (d->bops == &fw_backend_local && (rc = fw_local_copy_restarted(t->copy, &t->rt)) >= 0) {
		t->nrt = rc;
		rc = FW_OK;
	}
	if (d->bops->adopt)
		t->kept = t->copy;
	else
		t->discard(t->copy);
	t->copy = NULL;
	return rc;
}

/* Take's second half, without the lock (it reads only t and the
 * daemon's constants; a dry run calls it with the lock held): a split
 * read's build and usage, then the model's health and open windows
 * overlaid on the nodes, and the nodes to release (3d). */
static int take_unlocked(struct fw_serve *d, struct taken *t, char *err, size_t errn)
{
	int rc = t->copy ? build_world(d, t, err, errn) : FW_OK;

	if (rc == FW_OK && t->adopt)
		rc = accrue_copies(t);
	if (rc == FW_OK)
		rc = overlay(d, t);
	if (rc == FW_OK && d->bops->release)
		rc = to_release(t);
	return rc;
}

/* --- 2. plan ------------------------------------------------------------------ */
/* r's nodes take no work in the main cycle (r's sub-cycle planned them),
 * and are back when r ends. */
static void mark_nodes(struct fw_snapshot *s, const struct fw_reservation *r)
{
	for (int32_t k = 0; k < r->nnodes; k++) {
		int n = fw_snapshot_find_node(s, r->nodes[k]);
		if (n < 0)
			continue;
		struct fw_node *x = &s->nodes[n];
		back_at(x, x->schedulable && x->health != FW_HEALTH_UNHEALTHY && x->health != FW_HEALTH_DRAINING, r->end);
		x->schedulable = false;
	}
}

/* Is r still to come?  take() keeps the open queue/job reservations and
 * every reservation to come, of any kind. */
static bool to_come(const struct fw_snapshot *s, const struct fw_reservation *r)
{
	return s->now < r->start;
}

/* Node x leaves for r, which opens before any departure the backend
 * gave it (Slurm's reservations to come, build.c: a window the daemon
 * just made has no Slurm mirror until this cycle's apply): r's stay is
 * the node's, merged with the later one if r runs into it; after a gap
 * the later one is the backend's to keep (Slurm's filter keeps the jobs
 * that would reach it off the node). */
static void leave_sooner(struct fw_node *x, const struct fw_reservation *r)
{
	if (x->away_at && r->end >= x->away_at) {
		if (x->back_at && r->end > x->back_at)
			x->back_at = r->end;
	} else {
		x->back_at = r->end;
	}
	x->away_at = r->start;
}

/* A reservation to come (r: a maintenance window, or a queue's or a job's
 * reservation): each of its nodes in service leaves
 * when r opens and is back when r ends (fw_node.away_at, back_at), so the
 * main cycle puts there only work planned to end before r opens, and
 * counts on the node from r's end in reservations and estimates.  The
 * core knows one departure a node: the first.  Called in start order
 * (leave_all), a later reservation that opens by the node's return
 * (overlapping or touching) extends the stay to its end; one that opens
 * after it is left for the cycles after the return (it is then the
 * first), so a window next week does not hide a return in a minute.  A
 * node out of service now (held by an active reservation, unhealthy,
 * draining, down) with a known return is back after r's end when r
 * opens by then. */
static void leave_for(struct fw_snapshot *s, const struct fw_reservation *r)
{
	for (int32_t k = 0; k < r->nnodes; k++) {
		int n = fw_snapshot_find_node(s, r->nodes[k]);
		if (n < 0)
			continue;
		struct fw_node *x = &s->nodes[n];
		bool out = !x->schedulable || x->health == FW_HEALTH_UNHEALTHY || x->health == FW_HEALTH_DRAINING;
		if (out || (x->away_at && x->away_at <= r->start)) { /* r extends a stay out only if it opens by its end */
			if (x->back_at && r->start <= x->back_at && r->end > x->back_at)
				x->back_at = r->end;
			continue;
		}
		leave_sooner(x, r);
	}
}

/* The reservations to come, by start (then t->rsv's order): leave_for's
 * order.  Selection by repeated minimum: a handful a cycle. */
static int leave_all(struct fw_snapshot *s, const struct fw_reservation *rsv, int32_t nrsv)
{
	bool *done = calloc((size_t)nrsv + 1, sizeof *done);

	if (!done)
		return FW_ENOMEM;
	for (;;) {
		int32_t m = -1;
		for (int32_t i = 0; i < nrsv; i++)
			if (!done[i] && to_come(s, &rsv[i]) && (m < 0 || rsv[i].start < rsv[m].start))
				m = i;
		if (m < 0)
			break;
		done[m] = true;
		leave_for(s, &rsv[m]);
	}
	free(done);
	return FW_OK;
}

/* Job j ends before r opens (r to come), by its expected runtime. */
static bool done_before(const struct fw_snapshot *s, const struct fw_job *j, const struct fw_reservation *r)
{
	return j->expected_runtime > 0 && s->now + j->expected_runtime <= r->start;
}

/* Is r a queue's or a job's reservation held for j (its queue, or a
 * queue above it; its name)?  A maintenance window is for no job. */
static bool rsv_for(const struct fw_snapshot *s, const struct fw_job *j, const struct fw_reservation *r)
{
	if (r->kind == FW_RSV_MAINTENANCE)
		return false;
	if (r->kind == FW_RSV_JOB)
		return !strcmp(j->name, r->job);
	for (int32_t q = j->queue; q >= 0; q = s->queues[q].parent)
		if (!strcmp(s->queues[q].name, r->queue))
			return true;
	return false;
}

static bool holds(const struct fw_reservation *r, const char *node)
{
	for (int32_t k = 0; k < r->nnodes; k++)
		if (!strcmp(r->nodes[k], node))
			return true;
	return false;
}

static bool share_node(const struct fw_reservation *a, const struct fw_reservation *b)
{
	for (int32_t k = 0; k < a->nnodes; k++)
		if (holds(b, a->nodes[k]))
			return true;
	return false;
}

/* Job j may start in r's sub-cycle (r open now, or a queue's or job's
 * reservation to come: its own jobs may take its nodes early, they are
 * theirs when it opens): r is for j, and j ends before any other
 * reservation to come on r's nodes opens. */
static bool rsv_job(const struct fw_snapshot *s, const struct fw_job *j, const struct fw_reservation *r,
		    const struct fw_reservation *all, int32_t nall)
{
	if (!rsv_for(s, j, r))
		return false;
	for (int32_t i = 0; i < nall; i++)
		if (&all[i] != r && to_come(s, &all[i]) && share_node(r, &all[i]) && !done_before(s, j, &all[i]))
			return false;
	return true;
}

/* Does another reservation open now (of all) hold node?  A reservation
 * to come plans its sub-cycle on none of those. */
static bool held_elsewhere(const struct fw_snapshot *s, const struct fw_reservation *r,
			   const struct fw_reservation *all, int32_t nall, const char *node)
{
	for (int32_t i = 0; i < nall; i++)
		if (&all[i] != r && !to_come(s, &all[i]) && holds(&all[i], node))
			return true;
	return false;
}

/* A copy of s with every running job and only the pending jobs r may
 * start; r's nodes alone are schedulable, and an unhealthy or draining
 * node not at all (left HEALTHY here: only the main cycle drains, once). */
static struct fw_snapshot *rsv_snapshot(const struct fw_snapshot *s, const struct fw_reservation *r,
					const struct fw_reservation *all, int32_t nall)
{
	struct fw_snapshot *c = fw_snapshot_new();
	/* per node_refs index of s: the copy's job_nodes entry whose list
	 * starts there, so jobs that share a list still do (-1: none yet) */
	int32_t *copied = s->nnode_refs ? malloc((size_t)s->nnode_refs * sizeof *copied) : NULL;
	bool ok = c != NULL && (copied || !s->nnode_refs);

	if (!ok) {
		fw_snapshot_free(c);
		free(copied);
		return NULL;
	}
	for (int32_t i = 0; i < s->nnode_refs; i++)
		copied[i] = -1;
	c->now = s->now;
	c->config = s->config;
	c->topology = s->topology;
	for (int32_t i = 0; ok && i < s->nnodes; i++) {
		struct fw_node n = s->nodes[i];
		n.schedulable = n.schedulable && holds(r, n.name) && !held_elsewhere(s, r, all, nall, n.name);
		n.back_at = 0; /* the sub-cycle plans on its own nodes, now */
		if (n.health == FW_HEALTH_UNHEALTHY || n.health == FW_HEALTH_DRAINING) { /* the main cycle drains it */
			n.health = FW_HEALTH_HEALTHY;
			n.schedulable = false;
		}
		ok = fw_snapshot_add_node(c, &n) >= 0;
	}
	for (int32_t i = 0; ok && i < s->nqueues; i++)
		ok = fw_snapshot_add_queue(c, &s->queues[i]) >= 0;
	ok = ok && fw_snapshot_copy_queue_tables(c, s) == FW_OK;
	for (int32_t i = 0; ok && i < s->njobs; i++) {
		struct fw_job j = s->jobs[i];
		if (j.state != FW_JOB_RUNNING && !rsv_job(s, &j, r, all, nall))
			continue;
		j.alloc_first = c->nallocs;
		for (int32_t k = 0; ok && k < s->jobs[i].alloc_count; k++)
			ok = fw_snapshot_add_alloc(c, &s->allocs[s->jobs[i].alloc_first + k]) >= 0;
		ok = ok && fw_snapshot_add_job(c, &j) >= 0;
		const int32_t *only; /* its node filter, by the copy's index (same node order) */
		int32_t nonly = ok && s->njob_nodes > 0 ? fw_snapshot_job_nodes(s, i, &only) : -1;
		if (nonly > 0) {
			int32_t at = (int32_t)(only - s->node_refs), e = copied[at];
			int32_t except = s->job_nodes[fw_snapshot_job_nodes_entry(s, i)].except;
			if (e >= 0 && c->job_nodes[e].count == nonly && c->job_nodes[e].except == except)
				ok = fw_snapshot_restrict_job_as(c, c->njobs - 1, e) >= 0;
			else if (except)
				ok = (copied[at] = fw_snapshot_restrict_job_except(c, c->njobs - 1, only, nonly)) >= 0;
			else
				ok = (copied[at] = fw_snapshot_restrict_job(c, c->njobs - 1, only, nonly)) >= 0;
		}
	}
	free(copied);
	if (!ok) {
		fw_snapshot_free(c);
		return NULL;
	}
	return c;
}

/* The sub-cycle's starts become running jobs of s (same node order). */
static int absorb_starts(struct fw_snapshot *s, const struct fw_snapshot *ps, const struct fw_plan *p)
{
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		int32_t jx = -1;
		if (dc->kind != FW_DECIDE_START)
			continue;
		for (int32_t k = 0; k < s->njobs && jx < 0; k++)
			if (!strcmp(s->jobs[k].name, ps->jobs[dc->job].name))
				jx = k;
		if (jx < 0 || s->jobs[jx].state == FW_JOB_RUNNING)
			continue;
		int32_t first = s->nallocs;
		for (int32_t k = 0; k < dc->alloc_count; k++)
			if (fw_snapshot_add_alloc(s, &p->allocs[dc->alloc_first + k]) < 0)
				return FW_ENOMEM;
		s->jobs[jx].state = FW_JOB_RUNNING;
		s->jobs[jx].start_time = s->now;
		s->jobs[jx].alloc_first = first;
		s->jobs[jx].alloc_count = dc->alloc_count;
	}
	return FW_OK;
}

/* The open window that holds node, or NULL. */
static const struct fw_reservation *window_of(const struct taken *t, const char *node)
{
	for (int32_t i = 0; i < t->nopen; i++)
		if (holds(&t->open[i], node))
			return &t->open[i];
	return NULL;
}

/* A drain for a maintenance window (w; NULL: the node is draining for
 * another reason, the fleet's config) says which window: the text is the
 * backend's drain reason (Slurm: "fairway: <why>"), and the core's says
 * only "node X is unhealthy or draining". */
static void window_why(struct fw_backend_action *a, const struct fw_reservation *w)
{
	if (!w)
		return;
	snprintf(a->why, sizeof a->why,
		 "drain: maintenance window %s%s%.60s%s; nothing new lands and its %lld running job%s may finish",
		 w->id, w->reason[0] ? " (" : "", w->reason, w->reason[0] ? ")" : "", (long long)a->b,
		 a->b == 1 ? "" : "s");
}

/* p's decisions as backend actions. */
static int add_actions(struct actlist *l, const struct fw_snapshot *s, const struct fw_plan *p,
		       const struct taken *t)
{
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *dc = &p->decisions[i];
		struct fw_backend_action *a = fw_serve_grow(&l->a, &l->n, &l->cap, sizeof *a);
		struct fw_backend_placement *pl = calloc((size_t)dc->alloc_count + 1, sizeof *pl);
		if (!a || !pl) {
			free(pl);
			return FW_ENOMEM;
		}
		a->kind = dc->kind;
		a->reason = dc->reason;
		a->a = dc->a;
		a->b = dc->b;
		if (dc->job >= 0)
			snprintf(a->job, sizeof a->job, "%s", s->jobs[dc->job].name);
		if (dc->node >= 0)
			snprintf(a->node, sizeof a->node, "%s", s->nodes[dc->node].name);
		a->at = dc->at;
		a->until = FW_TIME_UNKNOWN;
		if (dc->job >= 0 && s->jobs[dc->job].expected_runtime > 0)
			a->until = dc->at + s->jobs[dc->job].expected_runtime;
		for (int32_t k = 0; k < dc->alloc_count; k++) {
			const struct fw_task_alloc *ta = &p->allocs[dc->alloc_first + k];
			snprintf(pl[k].node, sizeof pl[k].node, "%s", s->nodes[ta->node].name);
			pl[k].group = ta->group;
			pl[k].gpu_mask = ta->gpu_mask;
			pl[k].gpu_milli = ta->gpu_milli;
		}
		a->nplacements = dc->alloc_count;
		a->placements = pl;
		if (dc->kind == FW_DECIDE_START) {
			const struct fw_job *j = &s->jobs[dc->job];
			a->limit_s = fw_job_limit(s, j);
			snprintf(a->queue, sizeof a->queue, "%s", s->queues[j->queue].name);
			a->submitted = j->submit_time;
			a->gpus = (double)fw_job_request(j).v[FW_RES_GPU] / 1000.0;
		}
		if (dc->kind == FW_DECIDE_EVICT) {
			const struct fw_job *j = &s->jobs[dc->job];
			a->checkpoint_s = fw_job_checkpoint(s, j);
			snprintf(a->queue, sizeof a->queue, "%s", s->queues[j->queue].name);
			a->lost_gpu_s = (double)fw_job_request(j).v[FW_RES_GPU] / 1000.0 *
					(double)fw_job_lost_work(s, j, s->now);
			fw_serve_evict_text(s, &s->jobs[dc->job], dc->reason, dc->a, dc->b, a->why, sizeof a->why);
		} else {
			fw_serve_reason_text(s, dc->reason, dc->a, dc->b, a->why, sizeof a->why); /* s: the indices' */
		}
		if (dc->kind == FW_DECIDE_DRAIN && s->nodes[dc->node].health == FW_HEALTH_DRAINING)
			window_why(a, window_of(t, a->node));
	}
	return FW_OK;
}

static void free_actions(struct actlist *l)
{
	for (int32_t i = 0; i < l->n; i++)
		free((void *)l->a[i].placements);
	free(l->a);
}

static int plan_one(struct fw_serve *d, const struct fw_snapshot *s, struct fw_arena *ar, struct fw_plan **p,
		    char *err, size_t errn)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if ((rc = fw_cycle_run(s, d->policy, ar, p)) != FW_OK) {
		snprintf(err, errn, "the cycle failed: %s", fw_strerror(rc));
		return rc;
	}
	if ((rc = fw_plan_check(s, *p, ar, &dg)) != FW_OK) {
		fw_diag_format(&dg, err, errn);
		return rc;
	}
	return FW_OK;
}

/* A sub-cycle's reservation for a job that starts in this cycle (the
 * main cycle's, or another sub-cycle's) goes: the job does not wait. */
static void drop_moot_reserves(struct actlist *l)
{
	int32_t k = 0;

	for (int32_t i = 0; i < l->n; i++) {
		bool starts = false;
		for (int32_t j = 0; l->a[i].kind == FW_DECIDE_RESERVE && j < l->n && !starts; j++)
			starts = l->a[j].kind == FW_DECIDE_START && !strcmp(l->a[j].job, l->a[i].job);
		if (starts)
			free((void *)l->a[i].placements);
		else
			l->a[k++] = l->a[i];
	}
	l->n = k;
}

/* Sub-cycles for reservations, then the main cycle.  *mainp plans for t->s
 * (which gains the sub-cycles' starts as running jobs). */
static int plan(struct fw_serve *d, struct taken *t, struct fw_arena *ar, struct fw_plan **mainp,
		struct actlist *acts, char *err, size_t errn)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if ((rc = fw_snapshot_validate(t->s, &dg)) != FW_OK) {
		fw_diag_format(&dg, err, errn);
		return rc;
	}
	for (int32_t i = 0; i < t->nrsv; i++) {
		if (t->rsv[i].kind == FW_RSV_MAINTENANCE)
			continue; /* a window to come: leave_for, in the main cycle */
		struct fw_snapshot *rs = rsv_snapshot(t->s, &t->rsv[i], t->rsv, t->nrsv);
		struct fw_plan *rp = NULL;
		if (!rs)
			return FW_ENOMEM;
		rc = plan_one(d, rs, ar, &rp, err, errn);
		if (rc == FW_OK)
			rc = add_actions(acts, rs, rp, t);
		if (rc == FW_OK)
			rc = absorb_starts(t->s, rs, rp);
		fw_snapshot_free(rs);
		if (rc)
			return rc;
	}
	for (int32_t i = 0; i < t->nrsv; i++) /* active reservations first, then those to come */
		if (!to_come(t->s, &t->rsv[i]))
			mark_nodes(t->s, &t->rsv[i]);
	if ((rc = leave_all(t->s, t->rsv, t->nrsv)) != FW_OK)
		return rc;
	if ((rc = plan_one(d, t->s, ar, mainp, err, errn)))
		return rc;
	if ((rc = add_actions(acts, t->s, *mainp, t)) == FW_OK)
		drop_moot_reserves(acts);
	return rc;
}

/* --- 3. apply ------------------------------------------------------------------- */
/* --- 3a. the per-queue counters of /metrics, once a cycle committed --- */
/* The queue's entry, added in name order; NULL when out of memory (the
 * totals still count). */
/* Where name is, or would go, in n entries of elem bytes sorted by the
 * name each starts with (*found: there). */
static int32_t name_slot(const void *arr, int32_t n, size_t elem, const char *name, bool *found)
{
	int32_t lo = 0, hi = n;

	*found = false;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		int c = strcmp((const char *)arr + (size_t)mid * elem, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct fw_serve_qstat *qstat_of(struct fw_serve_metrics *m, const char *queue)
{
	bool found;
	int32_t lo = name_slot(m->qstat, m->nqstat, sizeof *m->qstat, queue, &found);

	if (found)
		return &m->qstat[lo];
	if (!fw_serve_grow(&m->qstat, &m->nqstat, &m->cap_qstat, sizeof *m->qstat))
		return NULL;
	memmove(m->qstat + lo + 1, m->qstat + lo, (size_t)(m->nqstat - 1 - lo) * sizeof *m->qstat);
	memset(&m->qstat[lo], 0, sizeof m->qstat[lo]);
	snprintf(m->qstat[lo].queue, sizeof m->qstat[lo].queue, "%s", queue);
	return &m->qstat[lo];
}

/* Where job is, or would go, in the requeued list (*found: there). */
static int32_t requeued_slot(const struct fw_serve_metrics *m, const char *job, bool *found)
{
	return name_slot(m->requeued, m->nrequeued, sizeof *m->requeued, job, found);
}

/* An evicted job goes back to wait: its next start's wait counts from now. */
void fw_serve_note_requeue(struct fw_serve_metrics *m, const char *job, fw_time now)
{
	bool found;
	int32_t i = requeued_slot(m, job, &found);

	if (!found) {
		if (!fw_serve_grow(&m->requeued, &m->nrequeued, &m->cap_requeued, sizeof *m->requeued))
			return; /* out of memory: its wait will count from its submission */
		memmove(m->requeued + i + 1, m->requeued + i, (size_t)(m->nrequeued - 1 - i) * sizeof *m->requeued);
		snprintf(m->requeued[i].job, sizeof m->requeued[i].job, "%s", job);
	}
	m->requeued[i].at = now;
}

/* When a starting job began to wait: its last requeue (the entry goes),
 * else its submission. */
static fw_time waited_from(struct fw_serve_metrics *m, const struct fw_backend_action *a)
{
	bool found;
	int32_t i = requeued_slot(m, a->job, &found);
	fw_time at = a->submitted;

	if (found) {
		at = m->requeued[i].at > at ? m->requeued[i].at : at;
		memmove(m->requeued + i, m->requeued + i + 1, (size_t)(m->nrequeued - 1 - i) * sizeof *m->requeued);
		m->nrequeued--;
	}
	return at;
}

/* Requeued jobs that left the world (cancelled, or ended outside the
 * daemon) are dropped once the list has doubled since the last prune, so
 * it stays as long as the jobs that wait after an eviction. */
static void prune_requeued(struct fw_serve_metrics *m, const struct fw_snapshot *s)
{
	bool *seen;
	int32_t n = 0;

	if (m->nrequeued <= 2 * m->requeued_kept + 16 || !(seen = calloc((size_t)m->nrequeued, sizeof *seen)))
		return;
	for (int32_t i = 0; i < s->njobs; i++) {
		bool found;
		int32_t k = requeued_slot(m, s->jobs[i].name, &found);
		if (found)
			seen[k] = true;
	}
	for (int32_t i = 0; i < m->nrequeued; i++)
		if (seen[i])
			m->requeued[n++] = m->requeued[i];
	m->nrequeued = m->requeued_kept = n;
	free(seen);
}

/* A histogram's bucket for x: the first of the n bounds le at or above
 * it, n (+Inf) past them all. */
static int bucket(const double *le, int n, double x)
{
	int b = 0;

	while (b < n && x > le[b])
		b++;
	return b;
}

static void add_wait(struct fw_serve_waits *w, double secs)
{
	static const double le[] = {
#define FW__LE(x) x,
		FW_WAIT_BUCKETS(FW__LE)
#undef FW__LE
	};

	w->n[bucket(le, FW_NWAIT, secs)]++;
	w->sum += secs;
}

static void count_start(struct fw_serve *d, const struct fw_backend_action *a, fw_time now)
{
	static const double upto[] = {
#define FW__UPTO(U, label, n) n,
		FW_WAIT_SIZES(FW__UPTO)
#undef FW__UPTO
	};
	fw_time from = waited_from(&d->m, a);
	double secs = now > from ? (double)(now - from) : 0;
	struct fw_serve_qstat *q = qstat_of(&d->m, a->queue);
	int k = 0;

	d->m.starts++;
	if (q)
		add_wait(&q->wait, secs);
	while (k < FW_NWAIT_SIZES - 1 && a->gpus > upto[k])
		k++;
	add_wait(&d->m.size_wait[k], secs);
}

static void count(struct fw_serve *d, const struct fw_backend_action *a, fw_time now)
{
	struct fw_serve_qstat *q;

	switch (a->kind) {
	case FW_DECIDE_START: count_start(d, a, now); break;
	case FW_DECIDE_EVICT:
		if (a->reason == FW_REASON_TIME_LIMIT) { /* ended, not evicted: no work lost to a requeue */
			d->m.timed_out++;
			break;
		}
		d->m.evictions++;
		fw_serve_note_requeue(&d->m, a->job, now);
		if ((q = qstat_of(&d->m, a->queue))) {
			q->evictions++;
			q->lost_gpu_s += a->lost_gpu_s;
		}
		break;
	case FW_DECIDE_RESERVE: d->m.reserves++; break;
	default: d->m.drains++; break;
	}
}

/* The GPU-seconds each queue's running jobs held since the last counted
 * cycle (from their start when later), the jobs running when this cycle
 * took the world, and its runs that ended since (to their end): the same
 * accrual as the decayed usage, undecayed.  The first cycle only sets
 * the mark. */
static void count_gpu_time(struct fw_serve_metrics *m, const struct fw_snapshot *s, const struct fw_backend_run *runs,
			   int32_t nruns)
{
	fw_time from0 = m->gpu_counted_at;
	double *add;

	if (from0 && s->now <= from0) /* the clock stood still or stepped back */
		return;
	m->gpu_counted_at = s->now;
	if (!from0 || !(add = calloc((size_t)s->nqueues + 1, sizeof *add)))
		return;
	held_since(s, from0, s->nqueues, runs, nruns, add);
	for (int32_t q = 0; q < s->nqueues; q++) {
		struct fw_serve_qstat *st = add[q] > 0 ? qstat_of(m, s->queues[q].name) : NULL;
		if (st)
			st->gpu_s += add[q];
	}
	free(add);
}

static int log_applied(struct fw_serve *d, const struct actlist *l, const int *status, fw_time now, uint64_t wgen)
{
	int rc = FW_OK;

	for (int32_t i = 0; i < l->n && rc == FW_OK; i++) {
		const struct fw_backend_action *a = &l->a[i];
		if (status[i] != FW_OK)
			continue;
		struct fw_store_decision dec = { d->cycle_base + (int64_t)d->m.cycles + 1, now, wgen,
						 fw_serve_kind_name(a->kind, a->reason),
						 a->job, a->node, fw_reason_name(a->reason), a->why };
		rc = fw_store_log_decision(d->store, &dec);
	}
	return rc;
}

/* What of the usage is due to the store: every queue's every 10 s, and a
 * history row per queue every minute; and the log rows trim_logs
 * deleted in the same transaction, counted once it commits. */
struct usage_due {
	bool save, hist;
	int64_t trimmed[2];     /* rows trim_logs deleted: decisions, usage */
};

static struct usage_due usage_due(const struct fw_serve *d, fw_time now)
{
	struct usage_due u = { now - d->usage_saved_at >= 10, false, { 0, 0 } };

	u.hist = u.save && now - d->history_at >= 60;
	return u;
}

/* Every 10 s and at a clean stop: the queues' usage, the users', and the
 * cycle's number (meta last_cycle: a restart goes on from it, not from
 * the decision log's last row, which a run of quiet cycles leaves
 * behind; fw_store_last_cycle). */
static int save_usage(struct fw_serve *d, struct usage_due u, fw_time now, int64_t cycle)
{
	int rc = FW_OK;

	if (u.save)
		rc = fw_store_meta_put(d->store, "last_cycle", cycle);

	for (int32_t q = 0; u.save && q < d->nqueues && rc == FW_OK; q++) {
		rc = fw_serve_save_queue(d, &d->queues[q]);
		if (rc == FW_OK && u.hist)
			rc = fw_store_usage_record(d->store, d->queues[q].name, now, 0, d->queues[q].usage);
	}
	int32_t n = 0;
	for (int32_t k = 0; u.save && k < d->nusers; k++) {
		struct fw_user_use e = d->users[k];
		bool keep = e.usage >= 1.0 && fw_serve_queue_index(d, e.queue) >= 0;
		if (rc == FW_OK) /* decayed below a GPU-second, or its queue gone: forgotten */
			rc = keep ? fw_serve_save_user(d, &e) : fw_serve_forget_user(d, &e);
		if (keep) /* in memory either way (a failed write leaves the save due) */
			d->users[n++] = e;
	}
	if (u.save)
		d->nusers = n;
	return rc;
}

/* Retention (--log-keep): every applied cycle deletes the decision-log
 * and usage_history rows older than the option, at most FW_LOG_TRIM of
 * each table.  In the steady state that is what the log took in one
 * period; a store that ran without the option (a backlog) empties in
 * steps of a few milliseconds each (docs/performance.md, "Retention"),
 * 1,000 rows a period, far more than any fleet logs. */
#define FW_LOG_TRIM 1000

static int trim_logs(struct fw_serve *d, struct usage_due *u, fw_time now)
{
	fw_time keep = d->opts->log_keep_s;

	if (keep <= 0)
		return FW_OK;
	return fw_store_trim_logs(d->store, now - keep, FW_LOG_TRIM, u->trimmed);
}

static void free_taken(struct taken *t);

/* At a clean stop, before its save: the local backend's usage accrued to
 * the stop as a cycle's take accrues it, from a whole read (the jobs
 * whose runtime is up end, and are noted): the runs it ended since the
 * last cycle (a cancel of a running job) to their end, the running jobs
 * to now.  Its runs are noted in memory only (local.c): saved as of the
 * last cycle, such a run's last stretch was lost, since a restart counts
 * from the saved time and sees only the jobs still running.  Saved as of
 * the stop, each GPU-second is counted once: the restart counts the jobs
 * still running, and the runs its first read ends, from the stop on.
 * Other backends read nothing here: the slurm one keeps the usage itself,
 * or lists its ended jobs again after a restart (MinJobAge). */
static int accrue_at_stop(struct fw_serve *d, char *err, size_t errn)
{
	struct taken t;
	int rc;

	if (d->bops != &fw_backend_local)
		return FW_OK;
	memset(&t, 0, sizeof t);
	if ((rc = fw_serve_backend_ready(d, err, errn)) == FW_OK &&
	    !(t.s = fw_serve_skeleton(d, d->queues, d->nqueues, fw_serve_now())))
		rc = FW_ENOMEM;
	if (rc == FW_OK)
		rc = read_world(d, &t, true, err, errn); /* whole */
	if (rc == FW_OK)
		rc = take_runs(d, &t);
	if (rc == FW_OK)
		rc = take_usage(d, d->queues, &d->users, &d->nusers, &d->capu, t.s, t.runs, t.nruns);
	free_taken(&t);
	return rc;
}

/* A clean stop's save: the usage accrued to the stop (accrue_at_stop;
 * when that fails, what the last cycle accrued, said on stderr), then
 * saved as a cycle saves it. */
int fw_serve_save_usage_now(struct fw_serve *d)
{
	struct usage_due u = { true, false, { 0, 0 } };
	char err[512] = "";
	int rc = accrue_at_stop(d, err, sizeof err);

	if (rc != FW_OK)
		fprintf(stderr, "fairway serve: the usage saved at stop counts only to the last cycle: %s\n",
			err[0] ? err : fw_strerror(rc));
	rc = fw_store_begin(d->store);
	if (rc == FW_OK && (rc = save_usage(d, u, 0, d->cycle_base + (int64_t)d->m.cycles)) == FW_OK &&
	    (rc = fw_store_commit(d->store)) == FW_OK)
		return FW_OK;
	fw_store_rollback(d->store);
	return rc;
}

/* Actions the backend refused are counted, and reported when refusals
 * start and when they stop (the plan asks again every cycle, so one line
 * per cycle would flood the log). */
static void report_refusals(struct fw_serve *d, const struct fw_backend_result *r)
{
	d->m.actions_failed += (uint64_t)r->failed;
	if (r->failed > 0 && !d->apply_failing)
		fprintf(stderr, "fairway serve: the backend refused %d action%s, retried every cycle: %s\n", r->failed,
			r->failed == 1 ? "" : "s", r->msg[0] ? r->msg : "no reason given");
	else if (r->failed == 0 && d->apply_failing)
		fprintf(stderr, "fairway serve: the backend takes every action again\n");
	d->apply_failing = r->failed > 0;
}

/* Once the cycle's transaction committed, and only then: the counters of
 * /metrics and the times usage was last saved, so a cycle whose commit
 * failed counts nothing and leaves its usage save due. */
static void note_applied(struct fw_serve *d, const struct taken *t, const struct actlist *l, const int *status,
			 const struct fw_backend_result *r, struct usage_due u)
{
	const struct fw_snapshot *s = t->s;
	fw_time now = s->now;

	prune_requeued(&d->m, s);
	for (int32_t i = 0; i < l->n; i++)
		if (status[i] == FW_OK)
			count(d, &l->a[i], now);
	count_gpu_time(&d->m, s, t->runs, t->nruns);
	report_refusals(d, r);
	if (u.save)
		d->usage_saved_at = now;
	if (u.hist)
		d->history_at = now;
	d->m.log_trimmed[0] += (uint64_t)u.trimmed[0];
	d->m.log_trimmed[1] += (uint64_t)u.trimmed[1];
}

/* In one transaction: the backend's actions, their log rows, the usage
 * due; then what it changed in memory.  FW_OK applied; FW_EAGAIN stale
 * (plan again); another error rolled back (the backend's too). */
static int apply(struct fw_serve *d, struct taken *t, const struct actlist *l, int *status, char *err,
		 size_t errn)
{
	struct fw_backend_result r = { .status = status };
	struct usage_due u;
	int rc;

	if (d->gen != t->dgen)
		return FW_EAGAIN;
	if (t->kept && !d->bops->adopt(d->be, t->kept)) /* the backend's world moved */
		return FW_EAGAIN;
	adopt_copies(d, t);
	u = usage_due(d, t->s->now);
	if ((rc = fw_store_begin(d->store)) != FW_OK) {
		snprintf(err, errn, "store: %s", fw_store_errmsg(d->store));
		return rc;
	}
	rc = d->bops->apply(d->be, t->wgen, l->a, l->n, &r);
	if (rc == FW_OK)
		rc = log_applied(d, l, status, t->s->now, t->wgen);
	if (rc == FW_OK)
		rc = save_usage(d, u, t->s->now, d->cycle_base + (int64_t)d->m.cycles + 1);
	if (rc == FW_OK)
		rc = trim_logs(d, &u, t->s->now);
	if (rc == FW_OK)
		rc = fw_store_commit(d->store);
	if (rc == FW_OK) {
		note_applied(d, t, l, status, &r, u);
	} else if (rc == FW_EAGAIN) { /* the backend did nothing */
		fw_store_rollback(d->store);
	} else { /* undo what it did, too */
		snprintf(err, errn, "apply: %s (%s)", fw_strerror(rc), fw_store_errmsg(d->store));
		fw_serve_rollback(d);
	}
	return rc;
}

/* --- 3b. explain ---------------------------------------------------------------- */
/* The main plan's waiting reasons by job name, for the backend's optional
 * explain (backend.h); built without the lock.  NULL when there is nothing
 * to do (no explain op) or no memory (explain is best effort: the cycle
 * goes on).  A plan with nothing waiting still gets an explain, with no
 * notes: the backend may have jobs of its own to explain (Slurm: the ones
 * it left out of the snapshot, held with a comment that says why). */
static struct fw_backend_note *notes_of(const struct fw_serve *d, const struct fw_snapshot *s,
					const struct fw_plan *p, int32_t *n)
{
	struct fw_backend_note *nt;

	*n = 0;
	if (!d->bops->explain || !p)
		return NULL;
	if (!(nt = calloc(p->npending > 0 ? (size_t)p->npending : 1, sizeof *nt)))
		return NULL;
	for (int32_t i = 0; i < p->npending; i++) {
		const struct fw_pending *w = &p->pending[i];
		if (w->job < 0 || w->job >= s->njobs)
			continue;
		struct fw_backend_note *o = &nt[(*n)++];
		snprintf(o->job, sizeof o->job, "%s", s->jobs[w->job].name);
		o->reason = w->reason;
		o->expected_start = w->expected_start;
		o->unknown_why = w->unknown_why;
		o->ahead = w->ahead;
	}
	return nt;
}

/* Called under the lock (the daemon serialises every backend call), after
 * apply() succeeded for this generation.  Its cost is the backend's bound
 * (Slurm: a comment budget per call, only changed comments written); the
 * time it takes is counted in /metrics. */
static void explain(struct fw_serve *d, const struct fw_backend_note *nt, int32_t n)
{
	double t0 = mono();

	d->bops->explain(d->be, nt, n);
	d->m.explains++;
	d->m.explain_sum += mono() - t0;
}

/* --- 3c. windows ---------------------------------------------------------------- */
/* Every maintenance window of the model, for the backend's optional
 * windows() (backend.h), which reconciles its own reservations with them.
 * Called under the lock after an applied cycle, so d->rsv is the model the
 * plan was made from.  A refusal is reported once, when it starts, and
 * once more when it clears; the next cycle tries again. */
static void windows(struct fw_serve *d, fw_time now)
{
	struct fw_backend_window *w = calloc(d->nrsv > 0 ? (size_t)d->nrsv : 1, sizeof *w);
	struct fw_diag dg;
	char msg[512];
	int32_t n = 0;
	int rc;

	if (!w)
		return;
	memset(&dg, 0, sizeof dg);
	for (int32_t i = 0; i < d->nrsv; i++) {
		const struct fw_reservation *r = &d->rsv[i];
		if (r->kind != FW_RSV_MAINTENANCE)
			continue;
		w[n++] = (struct fw_backend_window){ r->id, r->start, r->end, r->reason, r->nnodes, r->nodes };
	}
	rc = d->bops->windows(d->be, w, n, now, &dg);
	free(w);
	if (rc != FW_OK && !d->windows_failing) {
		fw_diag_format(&dg, msg, sizeof msg);
		fprintf(stderr, "fairway serve: maintenance windows: %s\n", msg[0] ? msg : fw_strerror(rc));
	} else if (rc == FW_OK && d->windows_failing) {
		fprintf(stderr, "fairway serve: maintenance windows: in place again\n");
	}
	d->windows_failing = rc != FW_OK;
}

/* --- 3d. release ---------------------------------------------------------------- */
/* The nodes fairway no longer holds out (to_release()), for the backend's
 * optional release() (backend.h), which returns those of them it drained:
 * repaired nodes (a healthy report) and the nodes of maintenance windows
 * that ended or were deleted.  Called after apply() succeeded in the same
 * hold of the lock, so the list is the model the plan was made from.  A
 * refusal is reported when it starts and when it clears, as windows(). */
static void release(struct fw_serve *d, const struct taken *t)
{
	struct fw_diag dg;
	char msg[512];
	int rc;

	memset(&dg, 0, sizeof dg);
	rc = t->nback ? d->bops->release(d->be, (const char(*)[FW_NAME_MAX])t->back, t->nback, &dg) : 0;
	if (rc > 0) {
		d->m.releases += rc;
		d->gen++; /* the world changed: plan again with the node back */
	}
	if (rc < 0 && !d->release_failing) {
		fw_diag_format(&dg, msg, sizeof msg);
		fprintf(stderr, "fairway serve: returning drained nodes: %s\n", msg[0] ? msg : fw_strerror(rc));
	} else if (rc >= 0 && d->release_failing) {
		fprintf(stderr, "fairway serve: returning drained nodes: works again\n");
	}
	d->release_failing = rc < 0;
}

/* --- one pass ------------------------------------------------------------------------ */
static void observe(struct fw_serve *d, double secs)
{
	static const double le[] = {
#define FW__LE(x) x,
		FW_LAT_BUCKETS(FW__LE)
#undef FW__LE
	};

	d->m.lat_count[bucket(le, FW_NLAT, secs)]++;
	d->m.lat_sum += secs;
	d->m.lat_last = secs;
	d->m.lat_max = secs > d->m.lat_max ? secs : d->m.lat_max;
}

static void free_taken(struct taken *t)
{
	if (t->copy)
		t->discard(t->copy);
	if (t->kept)
		t->discard(t->kept);
	free(t->qs);
	free(t->users);
	fw_snapshot_free(t->s);
	free(t->rsv);
	free(t->health);
	free(t->open);
	free(t->back);
	free(t->aside);
	free(t->ended);
	free(t->ended_nodes);
	free(t->runs);
	free(t->rt);
	memset(t, 0, sizeof *t);
}

/* Keep why the cycle failed (NULL: it ran) for GET /v1/health; the log
 * says it when it first fails or its reason changes, and when cycles run
 * again, not at every period. */
static void note_failure(struct fw_serve *d, const char *why, int attempt)
{
	if (!why) {
		if (d->cycle_err[0])
			fprintf(stderr, "fairway serve: cycles run again\n");
		d->cycle_err[0] = '\0';
		return;
	}
	if (attempt == 0 && strcmp(d->cycle_err, why))
		fprintf(stderr, "fairway serve: cycle failed (every cycle until this changes): %s\n", why);
	snprintf(d->cycle_err, sizeof d->cycle_err, "%.*s", (int)sizeof d->cycle_err - 1, why); /* cut: it is text for people */
}

/* A view job's "runtime" is its runtime as submitted (docs/openapi.yaml,
 * Job).  The local backend plans a job restarted after an eviction that
 * kept checkpoints with the rest of it (local.c add_job), so before the
 * view is published its own word is put back, from the list take() made
 * with the read (take_runtimes): without the lock, one lookup per such
 * job.  Without this the list said 2160 where the job was submitted with
 * 6960, and a restart changed it (found by fuzz_serve). */
static void submitted_runtimes(json_t *view, const struct taken *t)
{
	json_t *jobs = json_object_get(view, "jobs");

	for (int32_t i = 0; i < t->nrt; i++) {
		json_t *j = json_object_get(jobs, t->rt[i].job);
		if (j)
			json_object_set_new(j, "runtime", json_integer(t->rt[i].runtime));
	}
}

/* --- a dry run ---------------------------------------------------------------------- */
/* The plan of t (the would-be job in it) with its own arena, and the job
 * named job as the view would show it after that plan, into *out (only
 * that job's part of the view is built). */
static int plan_alone(struct fw_serve *d, struct taken *t, const char *job, json_t **out, char *err, size_t errn)
{
	struct actlist acts = { NULL, 0, 0 };
	struct fw_plan *p = NULL;
	struct fw_arena ar;
	int *status = NULL; /* all FW_OK: every action as if applied */
	int rc;

	fw_arena_init(&ar, 0);
	rc = plan(d, t, &ar, &p, &acts, err, errn);
	if (rc == FW_OK && !(status = calloc((size_t)acts.n + 1, sizeof *status)))
		rc = FW_ENOMEM;
	if (rc == FW_OK && !(*out = fw_serve_job_view(t->s, p, acts.a, status, acts.n, job)))
		rc = FW_ENOMEM; /* the probe put it in the snapshot: it is there */
	free(status);
	free_actions(&acts);
	fw_arena_release(&ar);
	return rc;
}

int fw_serve_estimate(struct fw_serve *d, const struct fw_backend_job *bj, json_t **out, struct fw_diag *dg)
{
	struct taken t;
	char err[1024] = "";
	int rc;

	*out = NULL;
	memset(&t, 0, sizeof t);
	if ((rc = take_locked(d, &t, true, err, sizeof err)) == FW_OK && (rc = take_unlocked(d, &t, err, sizeof err)) == FW_OK &&
	    (rc = d->bops->probe(d->be, t.s, bj, t.s->now, dg)) >= 0) {
		pthread_mutex_unlock(&d->mu); /* planning reads only t and the daemon's constants */
		rc = plan_alone(d, &t, bj->job.name, out, err, sizeof err);
		pthread_mutex_lock(&d->mu);
	}
	free_taken(&t);
	if (rc != FW_OK && !dg->msg[0])
		fw_diag_set(dg, rc, "", 0, 0, "", "the plan failed: %s", err[0] ? err : fw_strerror(rc));
	return rc;
}

/* One attempt's state, phase to phase. */
struct pass {
	struct taken t;
	struct actlist acts;
	struct fw_plan *p;
	int *status;
	struct fw_backend_note *notes;
	int32_t nnotes;
	json_t *view;
	json_t *nodes;          /* the view's nodes by name */
	char err[1024];
	double t0, locked;      /* its start; seconds it held the lock */
	double secs;            /* from its start to its apply's end */
	int64_t cycle;
	int attempt;
};

/* 1. take, its first half under the lock, its second (a capture's
 * build, the overlay, a capture's usage) after; first, without it,
 * whether the backend answers at all (backend.h reachable): a manager
 * that is down fails the cycle here, not in read() under the lock, where
 * its connect retries held up every API request for seconds a cycle
 * (slurm_outage.sh); then, still without it, the backend's optional
 * fetch() asks its manager what read() would (backend.h "A read fetched
 * ahead": Slurm's four loads), which read() adopts under the lock.  At 10,000 nodes and 20,000 jobs the build and the
 * overlay were 25-60 ms of a 30-65 ms hold (bench_serve). */
static int pass_take(struct fw_serve *d, struct pass *x)
{
	struct fw_diag dg;
	double tl;
	int rc;

	memset(&dg, 0, sizeof dg);
	if ((d->bops->reachable && (rc = d->bops->reachable(d->be, &dg)) != FW_OK) ||
	    (d->bops->fetch && (rc = d->bops->fetch(d->be, &dg)) != FW_OK)) {
		fw_diag_format(&dg, x->err, sizeof x->err);
		return rc;
	}
	pthread_mutex_lock(&d->mu);
	tl = mono();
	rc = take_locked(d, &x->t, false, x->err, sizeof x->err);
	x->locked += mono() - tl;
	pthread_mutex_unlock(&d->mu);
	if (rc == FW_OK && d->captured) /* tests: requests while the world is built */
		d->captured(d->captured_ctx);
	return rc == FW_OK ? take_unlocked(d, &x->t, x->err, sizeof x->err) : rc;
}

/* 2. plan, without it; then what apply and explain need, built outside. */
static int pass_plan(struct fw_serve *d, struct fw_arena *ar, struct pass *x)
{
	int rc = plan(d, &x->t, ar, &x->p, &x->acts, x->err, sizeof x->err);

	if (rc == FW_OK && d->between) /* tests: requests while the plan was made */
		d->between(d->between_ctx);
	if (rc == FW_OK && !(x->status = calloc((size_t)x->acts.n + 1, sizeof *x->status)))
		rc = FW_ENOMEM;
	if (rc == FW_OK)
		x->notes = notes_of(d, x->t.s, x->p, &x->nnotes);
	return rc;
}

/* 3. apply, under the lock (rc: the plan's outcome so far), then explain,
 * windows and release after an applied plan. */
static int pass_apply(struct fw_serve *d, struct pass *x, int rc)
{
	double tl;

	pthread_mutex_lock(&d->mu);
	tl = mono();
	if (d->holding) /* tests: requests while the lock is held */
		d->holding(d->holding_ctx);
	if (rc == FW_OK)
		rc = apply(d, &x->t, &x->acts, x->status, x->err, sizeof x->err);
	x->secs = mono() - x->t0;
	if (rc == FW_EAGAIN) {
		d->m.stale++;
	} else if (rc != FW_OK) {
		d->m.failed++;
		note_failure(d, x->err[0] ? x->err : fw_strerror(rc), x->attempt);
	} else {
		note_failure(d, NULL, x->attempt);
		d->m.cycles++;
		if (x->t.kept && d->bops->aside) /* as of the build the apply adopted */
			backend_aside(d, &x->t);
		if (x->notes)
			explain(d, x->notes, x->nnotes);
		if (d->bops->windows)
			windows(d, x->t.s->now);
		if (d->bops->release)
			release(d, &x->t);
	}
	x->cycle = d->cycle_base + (int64_t)d->m.cycles;
	x->locked += mono() - tl;
	pthread_mutex_unlock(&d->mu);
	return rc;
}

/* The view's nodes by name, the same objects (GET /v1/nodes/{name}
 * finds one without a scan of 10,000); NULL without memory. */
static json_t *nodes_by_name(json_t *view)
{
	json_t *ix = json_object(), *n;
	size_t i;

	json_array_foreach(json_object_get(view, "nodes"), i, n) {
		const char *name = json_string_value(json_object_get(n, "name"));
		if (ix && (!name || json_object_set(ix, name, n) != 0)) {
			json_decref(ix);
			return NULL;
		}
	}
	return ix;
}

/* 4. publish: the view built without the lock, swapped in under it with
 * its node index and GET /v1/health's answer; the old ones let go after
 * (its last reader may free it, and freeing a large one takes long). */
static void pass_publish(struct fw_serve *d, struct pass *x, int rc)
{
	json_t *old = NULL, *old_nodes = NULL;
	double tl;

	if (rc == FW_OK)
		x->view = fw_serve_build_view(x->t.s, x->p, x->acts.a, x->status, x->acts.n, x->t.health, x->t.nhealth,
					      &d->hcfg, x->cycle, x->t.wgen, x->secs, x->t.skipped);
	if (x->view) {
		fw_serve_view_aside(x->view, x->t.aside, x->t.naside);
		fw_serve_view_ended(x->view, x->t.ended, x->t.nended, x->t.ended_nodes);
		submitted_runtimes(x->view, &x->t);
		x->nodes = nodes_by_name(x->view);
	}
	pthread_mutex_lock(&d->mu);
	tl = mono();
	if (x->view) { /* a view without its index: GET /v1/nodes/{name} scans */
		old = d->view;
		old_nodes = d->view_nodes;
		d->view = x->view;
		d->view_nodes = x->nodes;
	}
	if (rc == FW_OK) /* the whole cycle, the view's publishing too */
		observe(d, mono() - x->t0);
	if (rc != FW_EAGAIN && x->t.requests > d->requests_done)
		d->requests_done = x->t.requests;
	fw_serve_publish_health(d);
	pthread_cond_broadcast(&d->wake);
	d->m.locked_sum += x->locked + (mono() - tl);
	d->m.busy_sum += mono() - x->t0;
	pthread_mutex_unlock(&d->mu);
	json_decref(old_nodes);
	json_decref(old);
}

static int run_cycle(struct fw_serve *d, struct fw_arena *ar, int attempt)
{
	struct pass x;
	int rc;

	memset(&x, 0, sizeof x);
	x.t0 = mono();
	x.attempt = attempt;
	rc = pass_take(d, &x);
	if (rc == FW_OK)
		rc = pass_plan(d, ar, &x);
	rc = pass_apply(d, &x, rc);
	pass_publish(d, &x, rc);
	free(x.status);
	free(x.notes);
	free_actions(&x.acts);
	free_taken(&x.t);
	fw_arena_reset(ar);
	return rc;
}

void fw_serve_request_cycle(struct fw_serve *d)
{
	d->want_cycle = true;
	d->cycle_requests++;
	pthread_cond_broadcast(&d->wake);
}

static void wait_period(struct fw_serve *d, double period)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)period;
	until.tv_nsec += (long)((period - (double)(time_t)period) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&d->mu);
	while (!d->stop && !d->want_cycle)
		if (pthread_cond_timedwait(&d->wake, &d->mu, &until) != 0)
			break;
	d->want_cycle = false;
	pthread_mutex_unlock(&d->mu);
}

/* A stale plan is retried at once, a few times. */
int fw_serve_cycle_once(struct fw_serve *d, struct fw_arena *ar)
{
	int rc = FW_EAGAIN;

	for (int attempt = 0; attempt < 4 && rc == FW_EAGAIN; attempt++)
		rc = run_cycle(d, ar, attempt);
	return rc;
}

/* How often the cycle thread asks the backend's ended_keep again. */
#define FW_SERVE_KEEP_CHECK_S 60.0

/* What a changed retention figure (old -> keep, its warning now warn)
 * says on stderr: the warning once, and once that it no longer holds. */
static void say_keep(int64_t old, const char *old_warn, int64_t keep, const char *warn)
{
	if (warn[0] && (keep != old || strcmp(warn, old_warn)))
		fprintf(stderr, "fairway serve: warning: %s\n", warn);
	else if (!warn[0] && old_warn[0])
		fprintf(stderr, "fairway serve: the cluster now lists an ended job for %lld s%s, longer than the cycle "
			"period: no end is missed any more\n", (long long)keep, keep ? "" : " (0: for ever)");
}

/* When the cycle thread last asked the backend's ended_keep (< 0:
 * never), and what its last failure said ("" after an answer), so a
 * refusal that lasts is said once, not each minute. */
struct keep_ask {
	double at;
	char err[512];
};

/* How long the backend's cluster lists an ended job against --period
 * (backend.h ended_keep: Slurm's MinJobAge), before the first cycle and
 * then at most once a minute, for GET /v1/health and, once per change,
 * stderr.  Without the state lock: the op touches nothing the others
 * share, and pub_mu guards the answer.  A failed ask keeps what was
 * shown and is said once until it changes or an ask succeeds (the
 * cycle, which asks slurmctld too, says more). */
static void check_keep(struct fw_serve *d, struct keep_ask *k)
{
	struct fw_diag dg;
	char warn[sizeof d->pub.keep_warn] = "", old_warn[sizeof d->pub.keep_warn], m[sizeof k->err];
	int64_t keep = -1, old;
	double now = mono();

	if (!d->bops->ended_keep || (k->at >= 0 && now - k->at < FW_SERVE_KEEP_CHECK_S))
		return;
	k->at = now;
	memset(&dg, 0, sizeof dg);
	if (d->bops->ended_keep(d->be, d->opts->period_s, &keep, warn, sizeof warn, &dg) != FW_OK) {
		fw_diag_format(&dg, m, sizeof m);
		if (strcmp(m, k->err))
			fprintf(stderr, "fairway serve: %s (asked again each minute; said again only if it changes)\n", m);
		memcpy(k->err, m, sizeof k->err);
		return;
	}
	k->err[0] = '\0';
	pthread_mutex_lock(&d->pub_mu);
	old = d->pub.keep_s;
	memcpy(old_warn, d->pub.keep_warn, sizeof old_warn);
	d->pub.keep_s = keep;
	memcpy(d->pub.keep_warn, warn, sizeof warn);
	pthread_mutex_unlock(&d->pub_mu);
	say_keep(old, old_warn, keep, warn);
}

void *fw_serve_cycle_thread(void *arg)
{
	struct fw_serve *d = arg;
	struct fw_arena ar;
	struct keep_ask keep_asked = { -1, "" };

	fw_arena_init(&ar, 0);
	for (;;) {
		pthread_mutex_lock(&d->mu);
		bool stop = d->stop;
		pthread_mutex_unlock(&d->mu);
		if (stop)
			break;
		check_keep(d, &keep_asked);
		fw_serve_cycle_once(d, &ar); /* then wait */
		wait_period(d, d->opts->period_s);
	}
	fw_arena_release(&ar);
	return NULL;
}
