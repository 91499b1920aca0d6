/*
 * api.c — the JSON API under /v1, as a route table and one handler each.
 *
 * Every handler follows the same phases: parse (codec.h; 400 naming the
 * field), check against the model (404/409 naming the field), then write
 * the model and the store in one transaction, and only then answer 2xx.
 * A failure at any phase leaves the model, the store and the backend as
 * they were (a rolled-back transaction re-reads the backend's world from
 * the store: commit_or_fail, fw_serve_rollback).
 * Reads of cycle results (jobs, nodes, fair share, plan) come from the
 * last published view; reads of the model (queues, reservations) are live.
 *
 * Threads: handlers run under the daemon's state lock; the answer is
 * serialised after it is released.  That is safe because an answer only
 * references the published view, which nobody modifies once published,
 * and jansson (>= 2.13, Debian 12 ships 2.14) counts references
 * atomically and keeps no state in the objects it dumps.
 *
 * FW_API_ROUTES is the single list of routes: the dispatcher, `fairway
 * serve --routes` and the OpenAPI test (tests/integration/serve_api.sh)
 * all read it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api_ranges.h"
#include "cliword.h"
#include "history.h"
#include "local.h"
#include "reason.h"
#include "serve_int.h"

/* Room for a {name} path segment: a longer one is kept cut to this, and
 * its whole length in ctx.name_len, so that the dispatcher refuses any
 * name too long with 400 naming it and the limit, never a 404. */
#define FW_PATH_NAME_MAX (4 * FW_NAME_MAX)

struct ctx {
	struct fw_serve *d;
	const struct fw_api_req *rq;
	struct fw_api_resp *rs;
	char name[FW_PATH_NAME_MAX]; /* the {name} of the path: a valid name
				      * (fw_codec_name_check) once a handler runs */
	size_t name_len;           /* the segment's length, before any cut */
	json_t *body;
	json_t *out;               /* the answer, serialised after the lock */
};

/* Who may call: OPEN anyone (reads), ADMIN the --token-file token,
 * HEALTH that token or the agents' (--agent-token-file), which may do
 * nothing else. */
enum auth { OPEN, ADMIN, HEALTH };

/* What a request of a route may carry: NOBODY nothing (a byte of body is
 * 400 naming body: a misdirected request, not an empty one), JSON a JSON
 * document, MERGE a JSON merge patch (RFC 7396).  A body's Content-Type,
 * when given, must say so (415 otherwise): application/json, or for
 * MERGE application/merge-patch+json too; application/x-www-form-urlencoded,
 * what `curl -d` sends unless told, is read as JSON as well. */
enum body { NOBODY, JSON, MERGE };

/*        method   path                          handler        auth  body    query parameters */
#define FW_API_ROUTES(X)                                                   \
	X(GET, "/v1/health", h_health, OPEN, NOBODY, "")                   \
	X(GET, "/v1/queues", h_queues_list, OPEN, NOBODY, "")              \
	X(POST, "/v1/queues", h_queue_create, ADMIN, JSON, "")             \
	X(GET, "/v1/queues/{name}", h_queue_get, OPEN, NOBODY, "")         \
	X(PUT, "/v1/queues/{name}", h_queue_put, ADMIN, JSON, "")          \
	X(PATCH, "/v1/queues/{name}", h_queue_patch, ADMIN, MERGE, "")     \
	X(DELETE, "/v1/queues/{name}", h_queue_delete, ADMIN, NOBODY, "")  \
	X(GET, "/v1/jobs", h_jobs_list, OPEN, NOBODY, "state,limit,queue,user,offset,reason,array") \
	X(POST, "/v1/jobs", h_job_submit, ADMIN, JSON, "dryRun")           \
	X(GET, "/v1/jobs/{name}", h_job_get, OPEN, NOBODY, "")             \
	X(DELETE, "/v1/jobs/{name}", h_job_cancel, ADMIN, NOBODY, "")      \
	X(GET, "/v1/nodes", h_nodes_list, OPEN, NOBODY, "health")          \
	X(GET, "/v1/nodes/{name}", h_node_get, OPEN, NOBODY, "")           \
	X(POST, "/v1/nodes/{name}/health", h_node_health, HEALTH, JSON, "") \
	X(GET, "/v1/reservations", h_rsv_list, OPEN, NOBODY, "state")      \
	X(POST, "/v1/reservations", h_rsv_create, ADMIN, JSON, "")         \
	X(GET, "/v1/reservations/{name}", h_rsv_get, OPEN, NOBODY, "")     \
	X(DELETE, "/v1/reservations/{name}", h_rsv_delete, ADMIN, NOBODY, "") \
	X(GET, "/v1/fairshare", h_fairshare, OPEN, NOBODY, "")             \
	X(GET, "/v1/plan", h_plan, OPEN, NOBODY, "kind,queue,job,node,limit") \
	X(GET, "/v1/decisions", h_decisions, OPEN, NOBODY, "job,kind,since,limit") \
	X(POST, "/v1/cycle", h_cycle, ADMIN, NOBODY, "")                   \
	X(GET, "/v1/stats", h_stats, OPEN, NOBODY, "")                     \
	X(GET, "/metrics", h_metrics, OPEN, NOBODY, "")

#define FW__DECL(m, p, h, mut, b, q) static void h(struct ctx *c);
FW_API_ROUTES(FW__DECL)
#undef FW__DECL

struct route {
	const char *method, *path;
	void (*fn)(struct ctx *);
	enum auth auth;
	enum body body;
	const char *query; /* the query parameters it takes, comma-separated */
};

static const struct route routes[] = {
#define FW__ROUTE(m, p, h, mut, b, q) { #m, p, h, mut, b, q },
	FW_API_ROUTES(FW__ROUTE)
#undef FW__ROUTE
};
#define NROUTES ((int)(sizeof routes / sizeof routes[0]))

void fw_serve_print_routes(FILE *f)
{
	for (int i = 0; i < NROUTES; i++)
		fprintf(f, "%s %s\n", routes[i].method, routes[i].path);
}

/* --- responses ------------------------------------------------------------ */
/* Keep the answer; fw_api_handle() serialises it after releasing the
 * lock (parts of it may be shared with the view, which is immutable). */
static void reply(struct ctx *c, unsigned status, json_t *o)
{
	c->rs->status = status;
	c->rs->content_type = "application/json";
	json_decref(c->out);
	c->out = o;
}

static void serialise(struct ctx *c)
{
	if (c->rs->body)
		return; /* already text (/metrics) */
	c->rs->body = c->out ? json_dumps(c->out, JSON_COMPACT) : NULL;
	if (!c->rs->body) {
		c->rs->status = 500;
		c->rs->body = strdup("{\"error\":{\"status\":500,\"code\":\"ENOMEM\",\"field\":\"\",\"message\":\"out of memory\"}}");
	}
	json_decref(c->out);
	c->out = NULL;
}

/* s as printable ASCII in buf (n bytes), for an answer that quotes the
 * request's bytes (a query parameter's name, a refusal's text): any
 * other byte becomes '?' (a JSON answer must be UTF-8), and a longer
 * one is cut. */
static const char *printable(const char *s, char *buf, size_t n)
{
	size_t i = 0;

	for (; s[i] && i + 1 < n; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* The error object of a refusal; NULL when a text is not UTF-8. */
static json_t *error_json(unsigned status, const char *code, const char *field, const char *msg)
{
	return json_pack("{s:{s:i,s:s,s:s,s:s}}", "error", "status", status, "code", code, "field", field, "message",
			 msg);
}

static void fail(struct ctx *c, unsigned status, const char *code, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A refusal.  Its field and message may quote the request's bytes (a
 * name from the URL path, /v1/jobs/%FF), or be cut inside a character:
 * text that is not UTF-8, which JSON cannot carry, is answered in
 * printable ASCII rather than as a 500. */
static void fail(struct ctx *c, unsigned status, const char *code, const char *field, const char *fmt, ...)
{
	char msg[1024], amsg[1024], afield[128];
	va_list ap;
	json_t *o;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!(o = error_json(status, code, field, msg)))
		o = error_json(status, code, printable(field, afield, sizeof afield), printable(msg, amsg, sizeof amsg));
	reply(c, status, o);
}

static unsigned status_of(int rc)
{
	switch (rc) {
	case FW_EINVAL: case FW_ERANGE: case FW_ELOOP: return 400;
	case FW_ENOENT: return 404;
	case FW_EEXIST: case FW_EBUSY: return 409;
	case FW_EAGAIN: return 503;
	default: return 500;
	}
}

static void fail_diag(struct ctx *c, int rc, const struct fw_diag *dg)
{
	fail(c, status_of(rc), fw_err_name(rc), dg->field, "%s", dg->msg[0] ? dg->msg : fw_strerror(rc));
}

static bool need_body(struct ctx *c)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if ((rc = fw_codec_body(c->rq->body ? c->rq->body : "", c->rq->body_len, &c->body, &dg)) != FW_OK) {
		fail_diag(c, rc, &dg);
		return false;
	}
	return true;
}

/* Commit the request's transaction (rc: how its writes went); else roll
 * it back, with what the backend wrote into it (fw_serve_rollback), and
 * answer 500 naming the store. */
static bool commit_or_fail(struct ctx *c, int rc)
{
	char msg[256];

	if (rc == FW_OK && (rc = fw_store_commit(c->d->store)) == FW_OK)
		return true;
	snprintf(msg, sizeof msg, "%s", fw_store_errmsg(c->d->store)); /* before the rollback resets it */
	fw_serve_rollback(c->d);
	fail(c, 500, "EIO", "store", "the store failed: %s", msg);
	return false;
}

/* A request that changes the backend's world needs it in step with the
 * store (fw_serve_backend_ready); 500 naming the store when it is not. */
static bool backend_ready(struct ctx *c)
{
	char err[640];

	if (fw_serve_backend_ready(c->d, err, sizeof err) == FW_OK)
		return true;
	fail(c, 500, "EIO", "store", "%s", err);
	return false;
}

static json_t *view_ref(struct fw_serve *d)
{
	return json_incref(d->view);
}

/* The request's query argument key (struct fw_api_req args), or NULL. */
static const char *arg(const struct ctx *c, const char *key)
{
	for (const char *const *kv = c->rq->args; kv && kv[0]; kv += 2)
		if (!strcmp(kv[0], key))
			return kv[1];
	return NULL;
}

/* A member of the view, shared (a new reference), or a fresh empty value
 * before the first plan: "o" hands either over to json_pack whole (with
 * "O" a fresh value would keep a second reference and leak). */
static json_t *view_part(json_t *v, const char *key, json_t *(*empty)(void))
{
	json_t *x = json_object_get(v, key);
	return x ? json_incref(x) : empty();
}

/* --- health, metrics, cycle ------------------------------------------------------ */
/* scheduler.budgetSafe as the last plan ran with it (the view's: the
 * config's, or the backend's, Slurm's AccountingStorageEnforce=safe);
 * the config's before the first plan. */
static bool budget_safe(const struct fw_serve *d)
{
	json_t *x = d->view ? json_object_get(d->view, "budgetSafe") : NULL;

	return x ? json_is_true(x) : d->fleet->config.budget_safe;
}

void fw_serve_publish_health(struct fw_serve *d)
{
	pthread_mutex_lock(&d->pub_mu);
	d->pub.ok = !d->cycle_err[0];
	d->pub.view_ready = d->view != NULL;
	d->pub.budget_safe = budget_safe(d);
	d->pub.cycles = d->m.cycles;
	if (d->pub.schema_version <= 0)
		d->pub.schema_version = fw_store_schema_version(d->store);
	snprintf(d->pub.err, sizeof d->pub.err, "%s", d->cycle_err);
	pthread_mutex_unlock(&d->pub_mu);
}

/* ok: the last cycle ran; when it failed, why (the daemon still answers,
 * but plans nothing until that is fixed); minJobAgeS, how long the
 * backend's cluster lists an ended job (backend.h ended_keep: Slurm's
 * MinJobAge; absent when unknown), and warnings, what the operator should
 * fix meanwhile (that figure no longer than --period; [] none).  Called without mu: it reads
 * only d->pub, under pub_mu (fw_api_handle, lock_free). */
static void h_health(struct ctx *c)
{
	struct fw_serve_health h;
	json_t *o;

	pthread_mutex_lock(&c->d->pub_mu);
	h = c->d->pub;
	pthread_mutex_unlock(&c->d->pub_mu);
	o = json_pack("{s:b,s:s,s:I,s:i,s:b,s:b}", "ok", h.ok, "backend", c->d->bops->name, "cycles",
		      (json_int_t)h.cycles, "schemaVersion", h.schema_version, "viewReady", h.view_ready, "budgetSafe",
		      h.budget_safe);
	if (o && !h.ok)
		json_object_set_new(o, "error", json_string(h.err));
	if (o && h.keep_s >= 0) /* the backend's ended_keep: Slurm's MinJobAge */
		json_object_set_new(o, "minJobAgeS", json_integer((json_int_t)h.keep_s));
	if (o)
		json_object_set_new(o, "warnings", h.keep_warn[0] ? json_pack("[s]", h.keep_warn) : json_array());
	reply(c, 200, o);
}

static void h_metrics(struct ctx *c)
{
	c->rs->status = 200;
	c->rs->content_type = "text/plain; version=0.0.4";
	c->rs->body = fw_metrics_render(c->d);
}

/* GET /v1/stats: the daemon's counters since it started (fairway stats,
 * as sdiag): cycles, decisions applied, the API, time to start by job
 * size and per queue (metrics.c fw_stats_json). */
static void h_stats(struct ctx *c)
{
	reply(c, 200, fw_stats_json(c->d));
}

static void h_cycle(struct ctx *c)
{
	struct fw_serve *d = c->d;
	struct timespec until;
	uint64_t mine;

	fw_serve_request_cycle(d);
	mine = d->cycle_requests;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	while (d->requests_done < mine && !d->stop)
		if (pthread_cond_timedwait(&d->wake, &d->mu, &until) != 0)
			break;
	if (d->requests_done < mine)
		return fail(c, 503, "EAGAIN", "", "the cycle did not complete within 10 s");
	reply(c, 200, json_pack("{s:I}", "cycle", (json_int_t)(d->cycle_base + (int64_t)d->m.cycles)));
}

/* --- queues ------------------------------------------------------------------------ */
static json_t *queue_json(const struct fw_queue_spec *q)
{
	return fw_codec_queue_dump(q);
}

/* Each queue's decayed usage at now, GPU-seconds: its own and that of
 * every queue under it, as a gpuHourBudget is held to it (lib/cycle.c
 * budget_mark, the same sum fair share makes); NULL when out of memory.
 * The usage is the last cycle's, decayed from then to now. */
static double *subtree_usage(const struct fw_serve *d, fw_time now)
{
	int32_t n = d->nqueues, *up = malloc(((size_t)n + 1) * sizeof *up);
	double *u = calloc((size_t)n + 1, sizeof *u), h = d->fleet->config.usage_half_life_s;

	if (!u || !up) {
		free(u);
		free(up);
		return NULL;
	}
	for (int32_t i = 0; i < n; i++)
		up[i] = d->queues[i].parent[0] ? fw_serve_queue_index(d, d->queues[i].parent) : -1;
	for (int32_t i = 0; i < n; i++) {
		double x = fw_usage_decay(d->queues[i].usage, d->queues[i].usage_at, now, h);
		for (int32_t k = i, hops = 0; k >= 0 && hops <= n; k = up[k], hops++)
			u[k] += x > 0 ? x : 0;
	}
	free(up);
	return u;
}

/* Queue i as the API shows it: its document and, u given (subtree_usage),
 * "usageGpuHours". */
static json_t *queue_view(const struct fw_serve *d, int32_t i, const double *u)
{
	json_t *o = queue_json(&d->queues[i]);

	if (o && u)
		json_object_set_new(o, "usageGpuHours", json_real(u[i] / 3600.0));
	return o;
}

static void h_queues_list(struct ctx *c)
{
	json_t *a = json_array();
	double *u = subtree_usage(c->d, fw_serve_now());

	for (int32_t i = 0; i < c->d->nqueues; i++)
		json_array_append_new(a, queue_view(c->d, i, u));
	free(u);
	reply(c, 200, json_pack("{s:o}", "queues", a));
}

/* The last plan's figures for queue name: its GET /v1/fairshare entry
 * with the plan's time "at" (a copy: the view is shared); null before
 * the first plan, or for a queue newer than it. */
static json_t *queue_figures(struct fw_serve *d, const char *name)
{
	json_t *v = view_ref(d), *e, *out = NULL;
	size_t k;

	json_array_foreach(json_object_get(v, "fairshare"), k, e)
		if (!out && !strcmp(json_string_value(json_object_get(e, "queue")) ?: "", name))
			out = json_copy(e);
	if (out)
		json_object_set(out, "at", json_object_get(v, "at"));
	json_decref(v);
	return out ? out : json_null();
}

/* The names of the queues whose parent is queue i, in the daemon's order. */
static json_t *queue_children(const struct fw_serve *d, int32_t i)
{
	json_t *a = json_array();

	for (int32_t k = 0; k < d->nqueues; k++)
		if (!strcmp(d->queues[k].parent, d->queues[i].name))
			json_array_append_new(a, json_string(d->queues[k].name));
	return a;
}

/* One queue: its document, "usageGpuHours", and, read under the same
 * lock so that they are of one moment, the last plan's figures
 * ("fairshare") and its children: all of `fairway queues show` in one
 * GET.  A PUT of the answer drops the three (fw_codec_queue_parse). */
static void h_queue_get(struct ctx *c)
{
	int i = fw_serve_queue_index(c->d, c->name);
	double *u;
	json_t *o;

	if (i < 0)
		return fail(c, 404, "ENOENT", "name", "no queue named \"%s\"", c->name);
	u = subtree_usage(c->d, fw_serve_now());
	o = queue_view(c->d, i, u);
	free(u);
	if (o) {
		json_object_set_new(o, "fairshare", queue_figures(c->d, c->name));
		json_object_set_new(o, "children", queue_children(c->d, i));
	}
	reply(c, 200, o);
}

static int fw_serve_queue_index_in(const struct fw_queue_spec *qs, int32_t n, const char *name)
{
	for (int32_t i = 0; i < n; i++)
		if (!strcmp(qs[i].name, name))
			return i;
	return -1;
}

/* The first job a queue change would leave without its leaf: the queue
 * it sits in, and whether the change removes that queue (else the queue
 * would get child queues, and a queue with children holds no jobs). */
struct lost {
	char queue[FW_NAME_MAX];
	bool gone;
};

/* Jobs of s, a read over the queues in force (its jobs sit in their
 * leaves), whose queue would not be a leaf of the queue set qs (the first
 * into *first); or FW_ENOMEM. */
static int count_losing(const struct fw_snapshot *s, const struct fw_queue_spec *qs, int32_t nq, struct lost *first)
{
	bool *leaf = calloc((size_t)s->nqueues + 1, sizeof *leaf);
	int n = 0;

	if (!leaf)
		return FW_ENOMEM;
	for (int32_t q = 0; q < s->nqueues; q++) {
		const char *name = s->queues[q].name;
		leaf[q] = fw_serve_queue_index_in(qs, nq, name) >= 0;
		for (int32_t k = 0; leaf[q] && k < nq; k++)
			leaf[q] = strcmp(qs[k].parent, name) != 0;
	}
	for (int32_t j = 0; j < s->njobs; j++) {
		int32_t q = s->jobs[j].queue;
		if (q >= 0 && q < s->nqueues && leaf[q])
			continue;
		if (n++ == 0 && q >= 0 && q < s->nqueues) {
			snprintf(first->queue, sizeof first->queue, "%s", s->queues[q].name);
			first->gone = fw_serve_queue_index_in(qs, nq, s->queues[q].name) < 0;
		}
	}
	free(leaf);
	return n;
}

/* Jobs the backend has that the queue set qs would leave without a leaf
 * queue, or a negative fw_err.  One read at now, over the queues in
 * force, never over qs: a backend's read ends jobs at their run-time
 * limit (local.c), so reading with a proposed limit could end a job
 * even when the change is then refused. */
static int losing(struct fw_serve *d, const struct fw_queue_spec *qs, int32_t nq, fw_time now, struct lost *first)
{
	struct fw_snapshot *s = fw_serve_skeleton(d, d->queues, d->nqueues, now);
	struct fw_backend_world w = { 0, 0 };
	int rc;

	if (!s)
		return FW_ENOMEM;
	rc = d->bops->read(d->be, s, &w, NULL);
	if (rc == FW_OK)
		rc = count_losing(s, qs, nq, first);
	fw_snapshot_free(s);
	return rc;
}

/* The cycle the change of queue focus would make, told from focus (the
 * core's validation names the first queue on it, which may be another):
 * the path and what to do, into vd as focus's parent. */
static void cycle_from(const struct fw_snapshot *s, const struct fw_queue_spec *qs, int32_t focus,
		       struct fw_diag *vd)
{
	char chain[256], f[48];

	if (!fw_queue_cycle(s, focus, chain, sizeof chain))
		return;
	snprintf(f, sizeof f, "queues[%d].parent", (int)focus);
	fw_diag_set(vd, FW_ELOOP, "", 0, 0, f,
		    "queue \"%s\" would be its own ancestor (%s); give it another parent (or none: top-level), or "
		    "first move \"%s\" out from under it", qs[focus].name, chain, qs[focus].parent);
}

/* The core's validation of a candidate queue set; then no job may lose its
 * (leaf) queue.  Fills dg naming the field of queue `focus`.  now: the
 * request's one time (the caller's writes use it too). */
static int check_queues(struct fw_serve *d, const struct fw_queue_spec *qs, int32_t nq, int32_t focus, fw_time now,
			struct fw_diag *dg)
{
	struct fw_snapshot *s;
	struct fw_diag vd;
	struct lost first = { "?", true };
	char err[640];
	int rc, lost;

	if ((rc = fw_serve_backend_ready(d, err, sizeof err)) != FW_OK)
		return fw_diag_set(dg, rc, "", 0, 0, "store", "%s", err);
	if (!(s = fw_serve_skeleton(d, qs, nq, now)))
		return FW_ENOMEM;
	memset(&vd, 0, sizeof vd);
	rc = fw_snapshot_validate(s, &vd);
	if (rc == FW_ELOOP && focus >= 0)
		cycle_from(s, qs, focus, &vd);
	fw_snapshot_free(s);
	if (rc != FW_OK) {
		const char *dot = strchr(vd.field, '.');
		if (rc == FW_ENOENT)
			rc = FW_EINVAL; /* a bad reference in the body: 400, not 404 */
		int idx = -1;
		sscanf(vd.field, "queues[%d]", &idx);
		if (idx >= 0 && idx < nq && idx != focus && rc != FW_ELOOP) /* a cycle's message names its queue */
			return fw_diag_set(dg, rc, "", 0, 0, "parent", "queue \"%s\": %s", qs[idx].name, vd.msg);
		return fw_diag_set(dg, rc, "", 0, 0, dot ? dot + 1 : "parent", "%s", vd.msg);
	}
	if ((lost = losing(d, qs, nq, now, &first)) < 0)
		return fw_diag_set(dg, FW_EIO, "", 0, 0, "backend", "cannot read the backend's jobs");
	if (lost > 0 && first.gone)
		return fw_diag_set(dg, FW_EBUSY, "", 0, 0, focus >= 0 ? "parent" : "name",
				   "%d waiting or running job(s) would lose their queue (%s queue %s, which this "
				   "change removes), and the API cannot move a job to another queue; cancel them "
				   "first (`fairway jobs list --queue %s` lists them), or keep the queue",
				   lost, lost > 1 ? "the first in" : "in", first.queue, first.queue);
	if (lost > 0)
		return fw_diag_set(dg, FW_EBUSY, "", 0, 0, focus >= 0 ? "parent" : "name",
				   "%d waiting or running job(s) would lose their leaf queue (%s queue %s, which would "
				   "get a child queue, and a queue with child queues holds no jobs); put the queue "
				   "under another parent, or cancel those jobs first (`fairway jobs list --queue %s` "
				   "lists them)",
				   lost, lost > 1 ? "the first in" : "in", first.queue, first.queue);
	return FW_OK;
}

/* A table entry (gpuModelLimits, gpuModelDeserved) on a model no node of
 * the fleet has would do nothing (a misspelling): 400 naming it, with
 * the model it is a typo of when one is close, and the models there are. */
static void model_unknown(struct ctx *c, const char *key, const char *what, const char *model)
{
	const char *names[32], *near;
	char list[256], field[128], hint[96] = "";

	fw_snapshot_gpu_model_names(c->d->fleet, names, 32);
	if ((near = fw_cli_nearest_name(model, names)))
		snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", near);
	fw_snapshot_gpu_models(c->d->fleet, list, sizeof list);
	snprintf(field, sizeof field, "%s.%s", key, model);
	fail(c, 400, "EINVAL", field, "no node has GPU model \"%s\"%s, so %s (the nodes' models: %s)", model, hint,
	     what, list[0] ? list : "none");
}

/* Each entry's model in the fleet's spelling (fw_snapshot_gpu_model_spelling,
 * as a job's gpuModel: "h100" is H100), so the core, which matches models
 * exactly, the store and every answer see one; a model no node has, or
 * one given twice in two spellings, is refused (400 naming it). */
static bool models_spelled(struct ctx *c, const char *key, const char *what, struct fw_spec_model_limit *t,
			   int32_t n)
{
	char field[128];

	for (int32_t k = 0; k < n; k++) {
		const char *sp = fw_snapshot_gpu_model_spelling(c->d->fleet, t[k].model);
		if (!sp)
			return model_unknown(c, key, what, t[k].model), false;
		for (int32_t i = 0; i < k; i++)
			if (!strcmp(t[i].model, sp)) {
				snprintf(field, sizeof field, "%s.%s", key, t[k].model);
				return fail(c, 400, "EINVAL", field, "GPU model %s is given twice (\"%s\" is %s, as the "
					    "fleet spells it); keep one", sp, t[k].model, sp), false;
			}
		if (strcmp(sp, t[k].model))
			snprintf(t[k].model, sizeof t[k].model, "%s", sp);
	}
	return true;
}

static bool model_limits_known(struct ctx *c, struct fw_queue_spec *q)
{
	return models_spelled(c, "gpuModelLimits", "this limit would limit nothing", q->model_limits,
			      q->nmodel_limits) &&
	       models_spelled(c, "gpuModelDeserved", "no job could ever hold these deserved GPUs", q->model_deserved,
			      q->nmodel_deserved);
}

/* Create (idx < 0) or replace queue q, after validation: the check, the
 * write and the answer at one time. */
static void queue_write(struct ctx *c, struct fw_queue_spec *q, int idx)
{
	struct fw_serve *d = c->d;
	struct fw_diag dg;
	fw_time now = fw_serve_now();
	int32_t n = d->nqueues + (idx < 0);
	struct fw_queue_spec *cand = calloc((size_t)n, sizeof *cand);
	int rc;

	if (!cand)
		return fail(c, 500, "ENOMEM", "", "out of memory");
	if (!model_limits_known(c, q)) {
		free(cand);
		return;
	}
	memset(&dg, 0, sizeof dg);
	if (d->nqueues)
		memcpy(cand, d->queues, (size_t)d->nqueues * sizeof *cand);
	if (idx >= 0) {
		q->usage = d->queues[idx].usage; /* state, not settable */
		q->usage_at = d->queues[idx].usage_at;
	} else {
		q->usage = 0;
		q->usage_at = now;
	}
	cand[idx >= 0 ? idx : n - 1] = *q;
	if (q->parent[0] && fw_serve_queue_index_in(cand, n, q->parent) < 0) {
		free(cand);
		return fail(c, 400, "EINVAL", "parent", "no queue named \"%s\" (create the parent first)", q->parent);
	}
	if ((rc = fw_serve_queue_order(cand, n)) != FW_OK ||
	    (rc = check_queues(d, cand, n, fw_serve_queue_index_in(cand, n, q->name), now, &dg)) != FW_OK) {
		free(cand);
		return fail_diag(c, rc, &dg);
	}
	if (!commit_or_fail(c, fw_store_begin(d->store) ?: fw_serve_save_queue(d, q))) {
		free(cand);
		return;
	}
	free(d->queues);
	d->queues = cand;
	d->nqueues = d->capq = n;
	d->gen++;
	double *u = subtree_usage(d, now);
	reply(c, idx >= 0 ? 200 : 201, queue_view(d, fw_serve_queue_index(d, q->name), u));
	free(u);
}

static void h_queue_create(struct ctx *c)
{
	struct fw_queue_spec q;
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (!need_body(c))
		return;
	if ((rc = fw_codec_queue_parse(c->body, NULL, &q, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	if (fw_serve_queue_index(c->d, q.name) >= 0)
		return fail(c, 409, "EEXIST", "name", "a queue named \"%s\" exists (PUT /v1/queues/%s replaces it)",
			    q.name, q.name);
	queue_write(c, &q, -1);
}

static void h_queue_put(struct ctx *c)
{
	struct fw_queue_spec q;
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (!need_body(c))
		return;
	if ((rc = fw_codec_queue_parse(c->body, c->name, &q, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	queue_write(c, &q, fw_serve_queue_index(c->d, q.name));
}

/* RFC 7396 JSON merge patch of target by patch: a member of the patch
 * replaces the target's, an object merges member by member, and null
 * removes the member (so it takes its default: limit.gpu null =
 * unlimited, no parent = top level).  An object merges into the target's
 * member, or into an empty one when the target has none (or a non-object):
 * its nulls then remove nothing and are not copied, so
 * {"gpuModelLimits":{"A100":null}} on a queue without model limits is a
 * no-op, as the RFC has it, rather than a null for the codec to refuse. */
static void merge_patch(json_t *target, json_t *patch)
{
	const char *k;
	json_t *v, *t;

	json_object_foreach(patch, k, v) {
		if (json_is_null(v)) {
			json_object_del(target, k);
			continue;
		}
		if (!json_is_object(v)) {
			json_object_set(target, k, v);
			continue;
		}
		if (!json_is_object(t = json_object_get(target, k)))
			json_object_set_new(target, k, t = json_object());
		merge_patch(t, v);
	}
}

/* The keys of a patch's model table (key) in the fleet's spelling, so
 * that {"h100": null} lifts the limit on H100 and {"h100": 4} replaces
 * it, as a PUT's "h100" is H100 (models_spelled).  A key no node's model
 * is, or one whose fleet spelling the patch gives too, stays as it is:
 * the write refuses it. */
static void spell_patch_models(const struct fw_snapshot *fleet, json_t *patch, const char *key)
{
	json_t *t = json_object_get(patch, key), *v;
	const char *k, *sp;
	void *tmp;

	json_object_foreach_safe(t, tmp, k, v) {
		if (!(sp = fw_snapshot_gpu_model_spelling(fleet, k)) || !strcmp(sp, k) || json_object_get(t, sp))
			continue;
		json_object_set(t, sp, v);
		json_object_del(t, k);
	}
}

/* Change only the members the body gives (`fairway queues set`): the
 * queue as it is, merged with the body, then validated and written as
 * a PUT would be.  Read, merge and write happen under the state lock, so
 * two PATCHes of different members never undo each other. */
static void h_queue_patch(struct ctx *c)
{
	int i = fw_serve_queue_index(c->d, c->name), rc;
	struct fw_queue_spec q;
	struct fw_diag dg;
	json_t *doc;

	memset(&dg, 0, sizeof dg);
	if (i < 0)
		return fail(c, 404, "ENOENT", "name", "no queue named \"%s\" (PUT /v1/queues/%s creates it)", c->name,
			    c->name);
	if (!need_body(c))
		return;
	if (!(doc = queue_json(&c->d->queues[i])))
		return fail(c, 500, "ENOMEM", "", "out of memory");
	spell_patch_models(c->d->fleet, c->body, "gpuModelLimits");
	spell_patch_models(c->d->fleet, c->body, "gpuModelDeserved");
	merge_patch(doc, c->body);
	rc = fw_codec_queue_parse(doc, c->name, &q, &dg);
	json_decref(doc);
	if (rc != FW_OK)
		return fail_diag(c, rc, &dg);
	queue_write(c, &q, i);
}

static void h_queue_delete(struct ctx *c)
{
	struct fw_serve *d = c->d;
	int i = fw_serve_queue_index(d, c->name), rc;
	struct fw_diag dg;

	memset(&dg, 0, sizeof dg);
	if (i < 0)
		return fail(c, 404, "ENOENT", "name", "no queue named \"%s\"", c->name);
	for (int32_t k = 0; k < d->nqueues; k++)
		if (!strcmp(d->queues[k].parent, c->name))
			return fail(c, 409, "EBUSY", "name", "queue \"%s\" has child queue \"%s\"; delete it first",
				    c->name, d->queues[k].name);
	for (int32_t k = 0; k < d->nrsv; k++)
		if (d->rsv[k].kind == FW_RSV_QUEUE && !strcmp(d->rsv[k].queue, c->name))
			return fail(c, 409, "EBUSY", "name",
				    "queue \"%s\" has reservation %s; delete it first (fairway reservations delete %s, "
				    "or DELETE /v1/reservations/%s)", c->name, d->rsv[k].id, d->rsv[k].id, d->rsv[k].id);
	struct fw_queue_spec *cand = calloc((size_t)d->nqueues + 1, sizeof *cand);
	if (!cand)
		return fail(c, 500, "ENOMEM", "", "out of memory");
	memcpy(cand, d->queues, (size_t)i * sizeof *cand);
	memcpy(cand + i, d->queues + i + 1, (size_t)(d->nqueues - i - 1) * sizeof *cand);
	if ((rc = check_queues(d, cand, d->nqueues - 1, -1, fw_serve_now(), &dg)) != FW_OK) {
		free(cand);
		return fail_diag(c, rc, &dg);
	}
	if (!commit_or_fail(c, fw_store_begin(d->store) ?: fw_store_del(d->store, FW_STORE_QUEUES, c->name))) {
		free(cand);
		return;
	}
	free(d->queues);
	d->queues = cand;
	d->capq = d->nqueues;
	d->nqueues--;
	d->gen++;
	reply(c, 200, json_pack("{s:s}", "deleted", c->name));
}

/* --- words of a comma-separated query argument ---------------------------------------- */
static bool in_list(const char *list, const char *word);

/* The first word of the comma-separated list that is none of vocab's
 * (NULL-terminated), into bad (n bytes; "" for an empty word: an empty
 * list, ",," or a comma at an end); false when every word is one. */
static bool unknown_word(const char *list, const char *const *vocab, char *bad, size_t n)
{
	const char *w = list;

	do {
		size_t len = strcspn(w, ",");
		int k = 0;
		while (vocab[k] && (strlen(vocab[k]) != len || strncmp(vocab[k], w, len)))
			k++;
		if (!vocab[k]) {
			snprintf(bad, n, "%.*s", (int)(len < n ? len : n - 1), w);
			return true;
		}
		w += len;
	} while (*w++ == ',');
	return false;
}

/* 400 naming param: bad (unknown_word's) is no what; the message names
 * the nearest of vocab when bad is a typo of it (fw_cli_nearest, the
 * rule of the unknown-field errors), then every word of vocab. */
static void fail_word(struct ctx *c, const char *param, const char *what, const char *bad,
		      const char *const *vocab)
{
	char all[900], hint[96] = "";
	const char *near = *bad ? fw_cli_nearest(bad, vocab) : NULL;
	size_t k = 0;

	all[0] = '\0';
	for (int i = 0; vocab[i] && k < sizeof all; i++)
		k += (size_t)snprintf(all + k, sizeof all - k, "%s%s", i ? ", " : "", vocab[i]);
	if (near)
		snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", near);
	if (*bad)
		fail(c, 400, "EINVAL", param, "\"%.40s\" is not a %s%s; give a comma-separated list of %s", bad, what,
		     hint, all);
	else
		fail(c, 400, "EINVAL", param, "has an empty word (an empty list, \",,\" or a comma at an end); give a "
		     "comma-separated list of %s", all);
}

/* 400 naming param for an argument whose words are few (?state=,
 * ?health=, the decision log's ?kind=): musts, what it must be, led by
 * the word refused and the nearest of vocab when bad is a typo of it
 * (fw_cli_nearest, as fail_word): "\"runing\" is not a state (did you
 * mean \"running\"?): must be pending, ...".  An empty bad: musts alone. */
static void fail_choice(struct ctx *c, const char *param, const char *what, const char *bad,
			const char *const *vocab, const char *musts)
{
	char hint[96] = "";
	const char *near = *bad ? fw_cli_nearest(bad, vocab) : NULL;

	if (near)
		snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", near);
	if (*bad)
		fail(c, 400, "EINVAL", param, "\"%.40s\" is not %s%s: %s", bad, what, hint, musts);
	else
		fail(c, 400, "EINVAL", param, "%s", musts);
}

/* --- jobs ------------------------------------------------------------------------------ */
/* Room for the words ?reason= takes: the plan's reasons, one more, and
 * the backend's own. */
#define FW_API_REASONS (FW_REASON_COUNT + 48)

/* Slurm's reason for a job its user or an administrator holds, which a
 * script may ask any daemon for: on a backend that holds no jobs it lists
 * nothing, and the answer's hint says why (list_hint). */
#define FW_API_HELD "held"

/* Is word one of the backend's own reasons (backend.h aside_reasons)? */
static bool aside_word(const struct fw_serve *d, const char *word)
{
	for (const char *const *a = d->bops->aside_reasons; a && *a; a++)
		if (!strcmp(*a, word))
			return true;
	return false;
}

/* The words ?reason= takes, NULL-terminated, into words
 * (FW_API_REASONS): the plan's reasons a job may have (all but none
 * and started, which no listed job has), not_yet_considered (a job no
 * plan has seen yet) and the backend's own for the jobs it keeps aside
 * (backend.h aside_reasons: Slurm's held, ...); held on every backend. */
static void reason_words(const struct fw_serve *d, const char **words)
{
	int k = 0;

	for (int r = 0; r < FW_REASON_COUNT; r++)
		if (r != FW_REASON_NONE && r != FW_REASON_STARTED)
			words[k++] = fw_reason_name((enum fw_reason)r);
	words[k++] = "not_yet_considered";
	for (const char *const *a = d->bops->aside_reasons; a && *a && k + 2 < FW_API_REASONS; a++)
		words[k++] = *a;
	if (!aside_word(d, FW_API_HELD))
		words[k++] = FW_API_HELD; /* lists nothing, with a hint (list_hint) */
	words[k] = NULL;
}

struct listing {
	const struct fw_serve *d;
	json_t *out, *view_jobs;
	const char *state;
	size_t limit;
	const char *queue, *user;     /* ?queue= and ?user=: exact; NULL: any.  A
				       * queue the daemon no longer has is no
				       * error: its ended jobs are listed */
	bool more;                    /* a job to list found the list full:
				       * the answer says "truncated" */
	long long skip;               /* ?offset=: matching jobs still to pass
				       * over before listing */
	const char *reason;           /* ?reason=: a comma-separated list of
				       * reason_words; NULL: any */
	const char *array;            /* ?array=: the tasks of this job array
				       * (their arrayOf); NULL: any job */
};

/* Room for one more job in the list?  When not, the list is truncated.
 * A job ?offset= passes over takes none (room's caller goes on). */
static bool passed_over(struct listing *l)
{
	if (l->skip <= 0)
		return false;
	l->skip--;
	return true;
}

static bool room(struct listing *l)
{
	if (json_array_size(l->out) < l->limit)
		return true;
	l->more = true;
	return false;
}

static bool state_ok(const char *want, const char *have)
{
	return !want || !strcmp(want, "all") || !strcmp(want, have);
}

/* The job's queue and user pass the listing's filters. */
static bool owner_ok(const struct listing *l, const char *queue, const char *user)
{
	return (!l->queue || (queue && !strcmp(l->queue, queue))) && (!l->user || (user && !strcmp(l->user, user)));
}

/* The job's reason (NULL: it has none) passes ?reason=. */
static bool reason_ok(const struct listing *l, const char *reason)
{
	return !l->reason || (reason && in_list(l->reason, reason));
}

/* The job's arrayOf ("" or NULL: a job of its own) passes ?array=. */
static bool array_ok(const struct listing *l, const char *array_of)
{
	return !l->array || (array_of && !strcmp(l->array, array_of));
}

/* The view's job j, a task of array_of (NULL: of none), passes the
 * listing's filters. */
static bool view_job_ok(const struct listing *l, const json_t *j, const char *array_of)
{
	return state_ok(l->state, json_string_value(json_object_get(j, "state"))) &&
	       owner_ok(l, json_string_value(json_object_get(j, "queue")), json_string_value(json_object_get(j, "user"))) &&
	       reason_ok(l, json_string_value(json_object_get(j, "reason"))) && array_ok(l, array_of);
}

/* The reason of a local job the last plan did not see, in state: one
 * waiting or running has not been considered yet; one its run-time limit
 * ended (its own or its queue's), time_limit; NULL: none. */
static const char *unseen_reason(const char *state)
{
	if (!strcmp(state, "pending") || !strcmp(state, "running"))
		return "not_yet_considered";
	return !strcmp(state, "timeout") ? fw_reason_name(FW_REASON_TIME_LIMIT) : NULL;
}

/* A job's run-time limit as the next cycle applies it (fw_job_limit over
 * the daemon's queues as they are now): the smallest of its own maxRuntime
 * and those of its queue and the queues above it; 0 = none. */
static fw_time time_limit(const struct fw_serve *d, const struct fw_backend_job *j)
{
	fw_time m = j->job.max_runtime_s;
	int q = fw_serve_queue_index(d, j->queue);

	for (int32_t hops = 0; q >= 0 && hops <= d->nqueues; hops++) {
		fw_time v = d->queues[q].max_runtime_s;
		if (v > 0 && (m == 0 || v < m))
			m = v;
		q = d->queues[q].parent[0] ? fw_serve_queue_index(d, d->queues[q].parent) : -1;
	}
	return m;
}

/* A running local job's nodes and expected end (r's), as the view gives
 * them (view.c job_nodes, expected_end): its placements' nodes in order,
 * and start + the rest of its runtime (less what checkpoints saved), or
 * + its time limit when that is shorter or it has no runtime; none with
 * neither. */
static void local_run_fields(const struct fw_serve *d, const struct fw_backend_job *j, fw_time start,
			     struct fw_serve_job_record *r)
{
	const struct fw_backend_placement *pl;
	int32_t n;
	fw_time kept, rt = j->job.expected_runtime, m = time_limit(d, j);

	if (fw_local_job_run(d->be, j->job.name, &pl, &n, &kept) != FW_OK)
		return;
	r->nodes = json_array();
	for (int32_t k = 0; r->nodes && k < n; k++)
		if (fw_serve_node_index(d, pl[k].node) >= 0 && (k == 0 || strcmp(pl[k].node, pl[k - 1].node)))
			json_array_append_new(r->nodes, json_string(pl[k].node));
	if (rt > 0) {
		rt -= kept;
		r->expected_end = start + (m > 0 && m < rt ? m : rt);
	} else if (m > 0) {
		r->expected_end = start + m;
	}
}

/* An ended local job's nodes: those of its last run (local.h
 * fw_local_job_ran), in order, each once, as a running job's; kept
 * whether or not the fleet still has them, since where it ran is
 * history.  NULL for one that never ran (cancelled while it first
 * waited). */
static json_t *local_ran_nodes(const struct fw_serve *d, const struct fw_backend_job *j)
{
	const struct fw_backend_placement *pl;
	int32_t n;
	json_t *nodes;

	if (fw_local_job_ran(d->be, j->job.name, &pl, &n) != FW_OK || n == 0 || !(nodes = json_array()))
		return NULL;
	for (int32_t k = 0; k < n; k++)
		if (k == 0 || strcmp(pl[k].node, pl[k - 1].node))
			json_array_append_new(nodes, json_string(pl[k].node));
	return nodes;
}

/* Has the local job bj what its view, built from the snapshot, cannot
 * show (view.c submitted_fields): a nodeSelector, its own or a task
 * group's, a slice, or an exitCode it is to end with? */
static bool local_extras(const struct fw_backend_job *bj)
{
	bool sliced = false;

	for (int g = 0; g < bj->job.ngroups; g++)
		sliced |= bj->slice[g] > 0;
	return bj->nsel || fw_backend_has_group_sel(bj) || sliced || bj->exit_code;
}

/* Into the view's job j (a copy: the view's object is shared), what the
 * local backend's own copy bj adds to it: its members as submitted
 * (fw_codec_job_members: the tasks with their nodeSelectors and slices,
 * its nodeSelector and exitCode), and, as older answers had them, the
 * groups' selectors and slices as taskNodeSelectors and taskSlices. */
static void local_members(json_t *j, const struct fw_backend_job *bj, const struct fw_topology *levels)
{
	fw_codec_job_members(j, bj, levels);
	if (fw_backend_has_group_sel(bj))
		json_object_set_new(j, "taskNodeSelectors", fw_codec_group_selectors_dump(bj));
	for (int g = 0; g < bj->job.ngroups; g++)
		if (bj->slice[g]) {
			json_object_set_new(j, "taskSlices", fw_codec_group_slices_dump(bj, levels));
			break;
		}
}

/* A local job the last plan did not see (ended, or newer than the plan):
 * what the local backend knows of it, in the record Slurm's ended jobs
 * share (serve_int.h fw_serve_job_record).  Its members as submitted;
 * active, the timeLimit the view would give it (view.c); running, its
 * nodes and expected end; ended, the nodes it last ran on. */
static json_t *local_job_json(const struct fw_serve *d, const struct fw_backend_job *j, const char *state,
			      fw_time submit, fw_time start, fw_time end)
{
	bool active = !strcmp(state, "pending") || !strcmp(state, "running");
	bool exited = !strcmp(state, "done") || !strcmp(state, "failed");
	struct fw_serve_job_record r = {
		.name = j->job.name, .queue = j->queue, .user = j->job.user, .state = state,
		.gpus = fw_job_gpus(&j->job), .submitted = submit,
		.more = json_pack("{s:I,s:i}", "runtime", (json_int_t)j->job.expected_runtime, "priority",
				  j->job.priority),
		.started = strcmp(state, "pending") ? start : 0, /* one cancelled while pending never started */
		.ended = !active, .end = end, .exit_code = exited ? j->exit_code : -1,
		.reason = unseen_reason(state), .array_of = j->array_of,
	};

	if (!r.more)
		return NULL;
	fw_serve_gpu_amount(r.more, &j->job);
	local_members(r.more, j, &d->fleet->topology); /* as submitted, as a view's entry shows it (listed_job) */
	if (active && time_limit(d, j) > 0)
		json_object_set_new(r.more, "timeLimit", json_integer(time_limit(d, j)));
	if (!strcmp(state, "running"))
		local_run_fields(d, j, start, &r);
	else if (!active)
		r.nodes = local_ran_nodes(d, j);
	return fw_serve_job_record_json(&r);
}

/* Is the view's entry j of the local job submitted at submit?  Not when
 * the backend forgot the job it describes and a new one took its name
 * since the last plan (min-job-age): a job's submission time is its own,
 * and a name is free only after its job ended a second or more ago. */
static bool view_of(const json_t *j, fw_time submit)
{
	return json_integer_value(json_object_get(j, "submitTime")) == submit;
}

static int add_unseen(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		      fw_time end)
{
	struct listing *l = ctx;
	bool active = !strcmp(state, "pending") || !strcmp(state, "running");
	json_t *seen = json_object_get(l->view_jobs, j->job.name);

	if (l->more)
		return 1;
	if (seen && !view_of(seen, submit))
		seen = NULL; /* a forgotten namesake's */
	if (seen && (active || !strcmp(json_string_value(json_object_get(seen, "state")), state)))
		return 0; /* listed from the plan (a job it timed out: "timeout" there too) */
	if (!state_ok(l->state, state) || !owner_ok(l, j->queue, j->job.user) || !reason_ok(l, unseen_reason(state)) ||
	    !array_ok(l, j->array_of))
		return 0;
	if (!l->state && !active)
		return 0; /* ended jobs only on request */
	if (passed_over(l))
		return 0;
	if (!room(l))
		return 1;
	json_array_append_new(l->out, local_job_json(l->d, j, state, submit, start, end));
	return 0;
}

/* Has the local backend ended this job since the last plan (cancelled a
 * moment ago, say) while the plan, its view j, still has it waiting or
 * running, or forgotten it since (ended min-job-age ago, in one read),
 * maybe with a new job of that name since?  Then the plan's entry is
 * stale.  (A job the plan itself timed out reads "timeout" in both.) */
static bool ended_since(const struct fw_serve *d, const char *name, const json_t *j)
{
	const char *state, *was = json_string_value(json_object_get(j, "state"));
	fw_time t0, t1, t2;

	if (d->bops != &fw_backend_local || !name || !was)
		return false;
	if (fw_local_job_info(d->be, name, &state, &t0, &t1, &t2, NULL, NULL) != FW_OK || !view_of(j, t0))
		return true; /* forgotten (and maybe its name taken again) */
	return strcmp(state, "pending") && strcmp(state, "running") && strcmp(state, was);
}

static bool whole_in(const char *v, long long lo, long long hi, long long *out);

/* The list's query arguments in l: ?state=, ?limit=, ?offset= and
 * ?reason=; false, the request failed (400 naming the argument), when
 * one is not what it must be. */
static bool listing_args(struct ctx *c, struct listing *l)
{
	static const char *const states[] = { "pending", "running", "done", "failed", "cancelled", "timeout", "all",
					      NULL };
	const char *words[FW_API_REASONS];
	char bad[64];
	int k = 0;

	while (l->state && states[k] && strcmp(states[k], l->state))
		k++;
	if (l->state && !states[k]) {
		fail_choice(c, "state", "a state", l->state, states,
			    "must be pending, running, done, failed, cancelled, timeout or all");
		return false;
	}
	if (c->rq->query_limit) { /* plain digits, as every number parameter: not " 5" or "+5" (strtoll's) */
		long long n;
		if (!whole_in(c->rq->query_limit, 1, 100000, &n)) {
			fail(c, 400, "ERANGE", "limit", "must be a whole number from 1 to 100000");
			return false;
		}
		l->limit = (size_t)n;
	}
	if (arg(c, "offset") && !whole_in(arg(c, "offset"), 0, 100000000, &l->skip)) {
		fail(c, 400, "ERANGE", "offset", "must be a whole number from 0 to 100000000: the matching jobs "
		     "to pass over (the last answer's nextOffset)");
		return false;
	}
	if (l->array && !l->array[0]) {
		fail(c, 400, "EINVAL", "array", "is empty: give a job array's name (array=NAME lists its tasks; "
		     "GET /v1/jobs/NAME shows the array), or leave array out to list every job");
		return false;
	}
	reason_words(c->d, words);
	if (l->reason && unknown_word(l->reason, words, bad, sizeof bad)) {
		fail_word(c, "reason", "reason", bad, words);
		return false;
	}
	return true;
}

/* The local backend's job named name (NULL: another backend, or a job
 * it does not have), valid until its next call. */
static const struct fw_backend_job *local_of(struct fw_serve *d, const char *name)
{
	const struct fw_backend_job *bj;
	const char *st;
	fw_time t0, t1, t2;

	if (d->bops != &fw_backend_local || !name ||
	    fw_local_job_info(d->be, name, &st, &t0, &t1, &t2, NULL, &bj) != FW_OK)
		return NULL;
	return bj;
}

/* The view's job j as the list shows it: with its arrayOf when it is a
 * task of an array (the view, built from the snapshot, has none) and
 * what else the local backend's copy bj adds (local_members), in a copy
 * then, since the view's object is shared. */
static json_t *listed_job(struct fw_serve *d, json_t *j, const struct fw_backend_job *bj)
{
	json_t *x;

	if (!bj || (!bj->array_of[0] && !local_extras(bj)) || !(x = json_copy(j)))
		return json_incref(j);
	if (bj->array_of[0])
		json_object_set_new(x, "arrayOf", json_string(bj->array_of));
	if (local_extras(bj))
		local_members(x, bj, &d->fleet->topology);
	return x;
}

/* The view's jobs (v) that pass the listing's filters, in the plan's
 * order, into l->out. */
static void list_view(struct fw_serve *d, struct listing *l, json_t *v)
{
	json_t *name;
	size_t i;

	l->view_jobs = json_object_get(v, "jobs");
	json_array_foreach(json_object_get(v, "jobOrder"), i, name) {
		const char *n = json_string_value(name);
		json_t *j = json_object_get(l->view_jobs, n);
		if (ended_since(d, n, j))
			continue; /* listed by add_unseen as it is now, as GET /v1/jobs/{name} does */
		const struct fw_backend_job *bj = local_of(d, n);
		const char *of = bj ? bj->array_of : NULL;
		if (!view_job_ok(l, j, of) || passed_over(l))
			continue;
		if (!room(l))
			break;
		json_array_append_new(l->out, listed_job(d, j, bj));
	}
}

/* The ended jobs the backend's cluster still lists (the view's "ended",
 * backend.h ended), after the plan's, as add_unseen lists the local
 * backend's: in the order they ended, and only on request (?state=). */
static void list_ended(struct listing *l, json_t *v)
{
	json_t *ended = json_object_get(v, "ended"), *name;
	size_t i;

	json_array_foreach(l->state ? json_object_get(v, "endedOrder") : NULL, i, name) {
		json_t *j = json_object_get(ended, json_string_value(name));
		if (!j || !view_job_ok(l, j, NULL) || passed_over(l))
			continue;
		if (!room(l))
			break;
		json_array_append_new(l->out, json_incref(j));
	}
}

static void array_count(struct fw_serve *d, const char *base, int *all, int *live);

/* One more sentence of a hint (hint holds n bytes; "; " between two). */
static void add_hint(char *hint, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_hint(char *hint, size_t n, const char *fmt, ...)
{
	size_t k = strlen(hint);
	va_list ap;

	if (k && k + 2 < n)
		k += (size_t)snprintf(hint + k, n - k, "; ");
	va_start(ap, fmt);
	if (k < n)
		vsnprintf(hint + k, n - k, fmt, ap);
	va_end(ap);
}

/* Why ?array= lists nothing, when it can say: no such array on this
 * backend (or none remembered), or every task ended and ?state= is not
 * given. */
static void array_hint(struct fw_serve *d, const struct listing *l, char *hint, size_t n)
{
	char a[72];
	int all = 0, live = 0;

	printable(l->array, a, sizeof a);
	if (d->bops != &fw_backend_local) {
		add_hint(hint, n, "the %s backend takes no job arrays from this API (POST /v1/jobs with \"array\" "
			 "is the local backend's), so no task has arrayOf \"%s\"", d->bops->name, a);
		return;
	}
	array_count(d, l->array, &all, &live);
	const struct fw_backend_job *task = all ? NULL : local_of(d, l->array);
	if (task && task->array_of[0]) {
		char of[72];
		printable(task->array_of, of, sizeof of);
		add_hint(hint, n, "\"%s\" is a task of job array \"%s\", not an array: `fairway jobs show %s` or GET "
			 "/v1/jobs/%s shows it, array=%s lists the array's tasks (fairway jobs list --array %s)", a, of,
			 a, a, of, of);
	} else if (!all)
		add_hint(hint, n, "no job array named \"%s\" is remembered: it never was, or its tasks ended and were "
			 "forgotten (min-job-age); an array's tasks are named NAME_<index>, `fairway jobs show "
			 "NAME_<index>` or GET /v1/jobs/NAME_<index> shows one's arrayOf", a);
	else if (!live && !l->state)
		add_hint(hint, n, "every task of job array \"%s\" (%d) has ended, and without state only pending and "
			 "running jobs are listed: add state=all (fairway jobs list --array %s --state all)", a, all, a);
}

/* Why ?queue= naming a parent queue lists nothing: jobs run in leaf
 * queues, and ?queue= matches one queue exactly.  Its children named. */
static void parent_hint(struct fw_serve *d, const struct listing *l, char *hint, size_t n)
{
	char kids[400] = "", q[72];
	int nk = 0;

	for (int32_t i = 0; i < d->nqueues; i++) {
		if (strcmp(d->queues[i].parent, l->queue))
			continue;
		size_t k = strlen(kids);
		if (nk++ < 8 && k + 3 < sizeof kids)
			snprintf(kids + k, sizeof kids - k, "%s%s", k ? ", " : "", d->queues[i].name);
	}
	if (!nk)
		return;
	printable(l->queue, q, sizeof q);
	add_hint(hint, n, "\"%s\" is a parent queue: jobs run in leaf queues, and queue= matches one queue "
		 "exactly; ask for one of its %d child queues (%s%s)", q, nk, kids, nk > 8 ? ", ..." : "");
}

/* Why ?queue= lists nothing, when the daemon has no such queue: a
 * typo (the nearest name), or a deleted queue whose ended jobs list only
 * with ?state= (the list stays a 200: those jobs are still listed). */
static void queue_hint(struct fw_serve *d, const struct listing *l, char *hint, size_t n)
{
	const char **names = calloc((size_t)d->nqueues + 1, sizeof *names), *near;
	char q[72];

	if (fw_serve_queue_index(d, l->queue) >= 0) {
		free(names);
		parent_hint(d, l, hint, n);
		return;
	}
	for (int32_t i = 0; names && i < d->nqueues; i++)
		names[i] = d->queues[i].name;
	near = names && l->queue[0] ? fw_cli_nearest(l->queue, names) : NULL;
	printable(l->queue, q, sizeof q);
	add_hint(hint, n, "this daemon has no queue named \"%s\"%s%s%s (`fairway queues` or GET /v1/queues lists them); "
		 "a deleted queue's ended jobs list with state=all", q, near ? " (did you mean \"" : "",
		 near ? near : "", near ? "\"?)" : "");
	free(names);
}

/* Why a list is empty, when its filters alone can say, as "hint" in
 * body (the list keeps its shape): ?array= (array_hint), a reason only
 * ended jobs carry (time_limit) without ?state=, held on a backend that
 * holds no jobs. */
static void list_hint(struct fw_serve *d, const struct listing *l, json_t *body)
{
	char hint[1024] = "";

	if (l->array)
		array_hint(d, l, hint, sizeof hint);
	if (l->queue)
		queue_hint(d, l, hint, sizeof hint);
	if (l->reason && (!l->state || (strcmp(l->state, "all") && strcmp(l->state, "timeout"))) &&
	    in_list(l->reason, fw_reason_name(FW_REASON_TIME_LIMIT)))
		add_hint(hint, sizeof hint, "time_limit is a reason only ended jobs carry (their run-time limit ended "
			 "them), and %s: ask for state=all or state=timeout (fairway jobs list --reason time_limit "
			 "--state all)", l->state ? "state= here asks for jobs that have not timed out" :
			 "without state only pending and running jobs are listed");
	if (l->reason && in_list(l->reason, FW_API_HELD) && !aside_word(d, FW_API_HELD))
		add_hint(hint, sizeof hint, "held is a reason of the slurm backend's (a job its user or an administrator "
			 "holds); this daemon's backend is %s, which holds no jobs", d->bops->name);
	if (hint[0])
		json_object_set_new(body, "hint", json_string(hint));
}

/* An empty page past the last of the `matched` jobs its filters match:
 * the hint says so with the count, so a script paging on (or a typo of
 * --offset) is not read as "no jobs". */
static void offset_hint(long long offset, long long matched, json_t *body)
{
	char hint[256];

	snprintf(hint, sizeof hint, "offset %lld is past the last of the %lld job%s that match%s; offset 0 (the "
		 "default) lists from the first", offset, matched, matched == 1 ? "" : "s", matched == 1 ? "es" : "");
	json_object_set_new(body, "hint", json_string(hint));
}

static void h_jobs_list(struct ctx *c)
{
	struct listing l = { c->d, json_array(), NULL, c->rq->query_state, 1000, arg(c, "queue"), arg(c, "user"),
			     false, 0, arg(c, "reason"), arg(c, "array") };
	json_t *v;

	if (!listing_args(c, &l)) {
		json_decref(l.out);
		return;
	}
	v = view_ref(c->d);
	long long offset = l.skip;
	list_view(c->d, &l, v);
	if (c->d->bops == &fw_backend_local)
		fw_local_each_job(c->d->be, add_unseen, &l);
	else
		list_ended(&l, v);
	json_decref(v);
	json_t *body = json_pack("{s:o}", "jobs", l.out);
	if (l.more) { /* more jobs to list than ?limit= (default 1000) */
		json_object_set_new(body, "truncated", json_true());
		json_object_set_new(body, "nextOffset", json_integer(offset + (long long)json_array_size(l.out)));
	}
	if (!json_array_size(l.out) && offset == 0)
		list_hint(c->d, &l, body);
	else if (!json_array_size(l.out)) /* a page past the end: l.skip is what it could not pass */
		offset_hint(offset, offset - l.skip, body);
	reply(c, 200, body);
}

/* Every task group asks for something (GPUs, CPU or memory): a task of
 * nothing would hold its place for ever. */
static int check_asks(const struct fw_job *j, struct fw_diag *dg)
{
	char f[32];

	for (int i = 0; i < j->ngroups; i++) {
		const struct fw_task_group *g = &j->groups[i];
		snprintf(f, sizeof f, "tasks[%d]", i);
		if (g->gpus == 0 && g->cpu_milli == 0 && g->mem_mib == 0)
			return fw_diag_set(dg, FW_EINVAL, "", 0, 0, f, "asks for nothing: give gpus, cpu or memory");
	}
	return FW_OK;
}

/* Does bj's nodeSelector meet a node of the fleet?  *rc: FW_ENOMEM when
 * it could not tell (false then), else FW_OK. */
static bool selects_a_node(const struct fw_snapshot *fleet, const struct fw_backend_job *bj, int *rc)
{
	int32_t *nodes = malloc(((size_t)fleet->nnodes + 1) * sizeof *nodes);
	bool any = nodes && fw_local_selected(fleet, bj, nodes) > 0;

	*rc = nodes ? FW_OK : FW_ENOMEM;
	free(nodes);
	return any;
}

/* The nodes group g of bj may take, as on[i]: those that meet the job's
 * nodeSelector and the group's own.  NULL with *rc FW_OK when neither
 * has one (every node), NULL with FW_ENOMEM when out of memory. */
static bool *group_nodes(const struct fw_snapshot *fleet, const struct fw_backend_job *bj, int g, int *rc)
{
	int n;
	const struct fw_label *l = fw_backend_group_sel(bj, g, &n);
	bool *on = NULL;

	*rc = FW_OK;
	if ((bj->nsel || n) && !(on = malloc(((size_t)fleet->nnodes + 1) * sizeof *on)))
		*rc = FW_ENOMEM;
	for (int32_t i = 0; on && i < fleet->nnodes; i++)
		on[i] = fw_node_has_labels(&fleet->nodes[i], bj->sel, (int)bj->nsel) &&
			fw_node_has_labels(&fleet->nodes[i], l, n);
	return on;
}

/* Each sliced group's slices (tasks[i].slice) as s's entries for job 0,
 * and a slice no domain of its level could ever hold (on the nodes its
 * selectors meet) refused, naming tasks[i].slice.size. */
static int check_slices(const struct fw_snapshot *fleet, struct fw_snapshot *s, const struct fw_backend_job *bj,
			struct fw_diag *dg)
{
	char f[48];
	int rc = FW_OK;

	for (int g = 0; rc == FW_OK && g < bj->job.ngroups; g++) {
		const struct fw_task_group *t = &bj->job.groups[g];
		int8_t l = bj->slice_level[g];
		if (!bj->slice[g])
			continue;
		bool *on = group_nodes(fleet, bj, g, &rc), narrowed = on != NULL;
		int64_t room = rc == FW_OK ? fw_snapshot_domain_room(fleet, t, l, on) : INT64_MAX;
		const char *lv = l == FW_LEVEL_NODE ? "node" : s->topology.level[l];
		free(on);
		snprintf(f, sizeof f, "tasks[%d].slice.size", g);
		if (room >= 0 && room < bj->slice[g])
			return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
					   "a slice of %d tasks must fit inside one %s, and the largest %s holds %lld of "
					   "these tasks (by its GPUs)%s; lower size or name a larger level%s",
					   (int)bj->slice[g], lv, lv, (long long)room,
					   narrowed ? " of the nodes its nodeSelector meets" : "",
					   narrowed ? " (or widen the nodeSelector)" : "");
		if (rc == FW_OK && fw_snapshot_slice_group(s, 0, g, bj->slice[g], l) < 0)
			return fw_diag_set(dg, FW_EINVAL, "", 0, 0, f, "slices of %d tasks do not divide the group",
					   (int)bj->slice[g]);
	}
	return rc;
}

/* The most GPUs of model m ("" = any) one node of the fleet has (of
 * those with on[i]; on NULL: every node). */
static int32_t largest_node(const struct fw_snapshot *fleet, const char *m, const bool *on)
{
	int32_t best = 0;

	for (int32_t i = 0; i < fleet->nnodes; i++)
		if ((!on || on[i]) && (!m[0] || !strcmp(m, fleet->nodes[i].gpu_model)) &&
		    fleet->nodes[i].gpu_count > best)
			best = fleet->nodes[i].gpu_count;
	return best;
}

/* A task's GPUs as a number: "8", "0.25". */
static const char *task_gpus(const struct fw_task_group *t, char *buf, size_t n)
{
	if (t->gpu_milli < 1000)
		snprintf(buf, n, "%g", t->gpu_milli / 1000.0);
	else
		snprintf(buf, n, "%d", (int)t->gpus);
	return buf;
}

/* The words a refusal adds when the job's (or the group's) nodeSelector
 * narrowed the fleet: where, and what else to try. */
#define SEL_WHERE(on) ((on) ? " that its nodeSelector meets" : "")
#define SEL_WIDEN(on) ((on) ? ", or widen the nodeSelector" : "")

/* No node (of on) with the GPUs of a task of t has its CPU (or else its
 * memory): FW_ERANGE, said in dg naming tasks[g].cpu or tasks[g].memory. */
static int task_too_big(const struct fw_snapshot *fleet, const struct fw_task_group *t, int g, const bool *on,
			struct fw_diag *dg)
{
	int64_t cpu = 0, mem = 0;
	char f[48];

	for (int32_t i = 0; i < fleet->nnodes; i++) {
		const struct fw_node *n = &fleet->nodes[i];
		if ((on && !on[i]) || (t->gpu_model[0] && strcmp(t->gpu_model, n->gpu_model)) || n->gpu_count < t->gpus)
			continue;
		cpu = n->cpu_milli > cpu ? n->cpu_milli : cpu;
		mem = n->mem_mib > mem ? n->mem_mib : mem;
	}
	if (t->cpu_milli > cpu) {
		snprintf(f, sizeof f, "tasks[%d].cpu", g);
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
			    "a task asks %g CPUs and no node with its GPUs%s has more than %g, so the job could never "
			    "start%s", t->cpu_milli / 1000.0, SEL_WHERE(on), cpu / 1000.0,
			    on ? "; ask fewer, or widen the nodeSelector" : "");
	}
	if (t->mem_mib > mem) {
		snprintf(f, sizeof f, "tasks[%d].memory", g);
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
			    "a task asks %lld MiB of memory and no node with its GPUs%s has more than %lld, so the "
			    "job could never start%s", (long long)t->mem_mib, SEL_WHERE(on), (long long)mem,
			    on ? "; ask less, or widen the nodeSelector" : "");
	}
	return FW_OK;
}

/* Group g of j, alone, on the nodes on (NULL: every node) its selectors
 * leave it: a task no node has the GPUs (or the model, the CPU, the
 * memory) for, or more tasks than they, or one domain of the job's
 * required level, hold at once. */
static int group_fits(const struct fw_snapshot *fleet, const struct fw_job *j, int g, const bool *on,
		      struct fw_diag *dg)
{
	const struct fw_task_group *t = &j->groups[g];
	char f[48], models[256], gpus[16], where[96];
	int l = j->required_level;
	int64_t need = j->min_member > 0 ? j->min_member : t->count;
	int64_t node = fw_snapshot_domain_room(fleet, t, FW_LEVEL_NODE, on), room;

	if (node < 0 || node == INT64_MAX) /* a task of no GPU */
		return task_too_big(fleet, t, g, on, dg) != FW_OK ? FW_ERANGE : FW_OK;
	snprintf(f, sizeof f, "tasks[%d].gpuModel", g);
	if (node == 0 && t->gpu_model[0] && !fw_snapshot_has_gpu_model(fleet, t->gpu_model)) {
		fw_snapshot_gpu_models(fleet, models, sizeof models);
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
				   "no node has GPUs of model %s, so the job could never start; the fleet's "
				   "models: %s (`fairway nodes` or GET /v1/nodes)", t->gpu_model, models[0] ? models : "none named");
	}
	if (node == 0 && t->gpu_model[0] && !largest_node(fleet, t->gpu_model, on))
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
				   "no node%s has GPUs of model %s, so the job could never start; ask another "
				   "model, or widen the nodeSelector (`fairway nodes show NAME` or GET /v1/nodes shows each node's model and "
				   "labels)", SEL_WHERE(on), t->gpu_model);
	if (node == 0) {
		snprintf(f, sizeof f, "tasks[%d].gpus", g);
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
				   "a task of %d GPUs fits on no node%s: the largest has %d%s%s, so the job could "
				   "never start; ask fewer GPUs a task and more tasks%s", (int)t->gpus, SEL_WHERE(on),
				   (int)largest_node(fleet, t->gpu_model, on), t->gpu_model[0] ? " of model " : "",
				   t->gpu_model, SEL_WIDEN(on));
	}
	if (task_too_big(fleet, t, g, on, dg) != FW_OK)
		return FW_ERANGE;
	if ((room = fw_snapshot_domain_room(fleet, t, l, on)) >= need)
		return FW_OK;
	if (l == FW_LEVEL_NONE) {
		int32_t k = 0;
		for (int32_t i = 0; on && i < fleet->nnodes; i++)
			k += on[i];
		snprintf(where, sizeof where, "the %d node%s that its nodeSelector meets hold%s", (int)k,
			 k == 1 ? "" : "s", k == 1 ? "s" : "");
		snprintf(f, sizeof f, "tasks[%d].count", g);
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, f,
				   "the job needs %lld tasks of %s GPU%s%s%s all at once and %s at most %lld of "
				   "them, so it could never start; lower count (or minMember)%s", (long long)need,
				   task_gpus(t, gpus, sizeof gpus), t->gpus == 1 ? "" : "s",
				   t->gpu_model[0] ? " of model " : "", t->gpu_model, on ? where : "the fleet holds",
				   (long long)room, SEL_WIDEN(on));
	}
	const char *lv = l == FW_LEVEL_NODE ? "node" : fleet->topology.level[l];
	return fw_diag_set(dg, FW_ERANGE, "", 0, 0, "requiredLevel",
			   "the job's %lld tasks must fit inside one %s, and the largest %s holds %lld of them%s, "
			   "so it could never start; lower count or name a larger level%s", (long long)need, lv, lv,
			   (long long)room, on ? " on the nodes its nodeSelector meets" : "", SEL_WIDEN(on));
}

/* The job's groups together, each on the nodes on[g] (NULL: every node):
 * their GPUs all at once against the GPUs of the nodes some group may
 * take (its model, its selectors), in one domain of the required level.
 * GPUs alone, so a necessary test: it refuses no job that could start. */
static int groups_fit(const struct fw_snapshot *fleet, const struct fw_job *j, bool *const *on, struct fw_diag *dg)
{
	struct fw_task_group unit = { .count = 1, .gpus = 1, .gpu_milli = 1 }; /* a node's room: its milli-GPUs */
	bool *any = calloc((size_t)fleet->nnodes + 1, sizeof *any);
	int64_t want = 0, room;
	int l = j->required_level, asking = 0;

	if (!any)
		return FW_OK; /* no check rather than a false error */
	for (int g = 0; g < j->ngroups; g++) {
		const struct fw_task_group *t = &j->groups[g];
		if (!t->gpus)
			continue;
		asking++;
		want += (int64_t)t->count * t->gpus * t->gpu_milli;
		for (int32_t i = 0; i < fleet->nnodes; i++)
			any[i] |= (!on[g] || on[g][i]) && (!t->gpu_model[0] || !strcmp(t->gpu_model, fleet->nodes[i].gpu_model));
	}
	room = asking > 1 ? fw_snapshot_domain_room(fleet, &unit, l, any) : INT64_MAX;
	free(any);
	if (room >= want)
		return FW_OK;
	if (l == FW_LEVEL_NONE)
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, "tasks",
				   "the job's task groups need %g GPUs all at once and the nodes they may take (by "
				   "their models and nodeSelectors) have %g, so it could never start; lower the "
				   "groups' counts", want / 1000.0, room / 1000.0);
	const char *lv = l == FW_LEVEL_NODE ? "node" : fleet->topology.level[l];
	return fw_diag_set(dg, FW_ERANGE, "", 0, 0, "requiredLevel",
			   "the job's task groups need %g GPUs all at once inside one %s, and the largest %s has "
			   "%g of the GPUs they may take (by their models and nodeSelectors), so it could never "
			   "start; lower the groups' counts or name a larger level", want / 1000.0, lv, lv,
			   room / 1000.0);
}

/* A job the fleet could never hold (its config never changes): each
 * group alone (group_fits), then the groups together (groups_fit), on
 * the nodes their selectors meet.  Refused as a nodeSelector no node
 * matches is: Slurm's "Requested node configuration is not available".
 * An elastic job of several groups is not tested (it may start without
 * one). */
static int check_fits(const struct fw_snapshot *fleet, const struct fw_backend_job *bj, const struct fw_job *j,
		      struct fw_diag *dg)
{
	bool *on[FW_MAX_GROUPS] = { 0 };
	int rc = FW_OK, g;

	if (j->min_member > 0 && j->ngroups > 1)
		return FW_OK; /* it may start without a group */
	for (g = 0; rc == FW_OK && g < j->ngroups; g++)
		if ((on[g] = group_nodes(fleet, bj, g, &rc)) || rc == FW_OK)
			rc = group_fits(fleet, j, g, on[g], dg);
	if (rc == FW_OK && j->ngroups > 1)
		rc = groups_fit(fleet, j, on, dg);
	for (g = 0; g < j->ngroups; g++)
		free(on[g]);
	return rc == FW_ENOMEM ? FW_OK : rc; /* no check rather than a false error */
}

/* The core's validation of one job, in a snapshot of the queues and the
 * job alone: a waiting job's checks read no node (a slice's room is
 * d->fleet's, check_slices), and copying a 1,000-node fleet for every
 * submission cost 1.7 MB and a sort of its names each time. */
static int check_job(struct fw_serve *d, struct fw_backend_job *bj, struct fw_diag *dg)
{
	struct fw_snapshot *s = fw_serve_skeleton(d, d->queues, d->nqueues, fw_serve_now());
	struct fw_diag vd;
	int rc = FW_ENOMEM, g;

	if (!s)
		return rc;
	memset(&vd, 0, sizeof vd);
	bj->job.queue = fw_snapshot_find_queue(s, bj->queue);
	if (bj->job.queue < 0) {
		rc = fw_diag_set(dg, FW_EINVAL, "", 0, 0, "queue", "no queue named \"%s\" (`fairway queues` or GET /v1/queues lists them)",
				 bj->queue);
	} else if (!fw_queue_is_leaf(s, bj->job.queue)) {
		rc = fw_diag_set(dg, FW_EINVAL, "", 0, 0, "queue",
				 "\"%s\" has child queues; submit to one of its leaf queues", bj->queue);
	} else if (bj->nsel && !selects_a_node(d->fleet, bj, &rc)) {
		if (rc == FW_OK)
			rc = fw_diag_set(dg, FW_EINVAL, "", 0, 0, "nodeSelector",
					 "no node has all these labels (%s: %s%s), so the job could never start; "
					 "`fairway nodes show NAME` or GET /v1/nodes shows each node's labels (set under nodes: labels: "
					 "in the --config)",
					 bj->sel[0].key, bj->sel[0].value[0] ? bj->sel[0].value : "\"\"",
					 bj->nsel > 1 ? ", ..." : "");
	} else if ((g = fw_local_unmet_group(d->fleet, bj)) >= 0) {
		char f[48];
		int n;
		const struct fw_label *l = fw_backend_group_sel(bj, g, &n);
		snprintf(f, sizeof f, "tasks[%d].nodeSelector", g);
		rc = fw_diag_set(dg, FW_EINVAL, "", 0, 0, f,
				 "no node has all these labels (%s: %s%s)%s, so this task group could never start; "
				 "`fairway nodes show NAME` or GET /v1/nodes shows each node's labels (set under nodes: labels: "
					 "in the --config)",
				 l[0].key, l[0].value[0] ? l[0].value : "\"\"", n > 1 ? ", ..." : "",
				 bj->nsel ? " with the job's nodeSelector" : "");
	} else { /* the job alone: no check of a waiting job reads a node */
		bj->job.submit_time = s->now;
		if (fw_snapshot_add_job(s, &bj->job) < 0)
			goto out;
		if ((rc = check_slices(d->fleet, s, bj, dg)) != FW_OK)
			goto out;
		rc = fw_snapshot_validate(s, &vd);
		if (rc != FW_OK) {
			const char *f = strncmp(vd.field, "jobs[0].", 8) ? vd.field : vd.field + 8;
			rc = fw_diag_set(dg, rc, "", 0, 0, f, "%s", vd.msg);
		} else {
			rc = check_fits(d->fleet, bj, &s->jobs[0], dg);
		}
	}
out:
	fw_snapshot_free(s);
	return rc;
}

/* Daemon-made names (job-N, rsv-N) skip the names already taken, which a
 * client may have chosen itself; at most this many are tried. */
#define FW_AUTO_NAME_TRIES 100000

/* Is a job of this name known?  Of the backends that take submissions
 * only local exists; another would answer its submit with 409. */
static bool job_name_taken(struct fw_serve *d, const char *name)
{
	const char *st;
	fw_time t0, t1, t2;

	return d->bops == &fw_backend_local && fw_local_job_info(d->be, name, &st, &t0, &t1, &t2, NULL, NULL) == FW_OK;
}

/* The job arrays the local backend remembers (its tasks' arrayOf), each
 * name with its number of tasks: one pass over the jobs per submission,
 * which then checks any number of names against it (name_free). */
static int add_array(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		     fw_time end)
{
	json_t *arrays = ctx, *n;

	(void)state, (void)submit, (void)start, (void)end;
	if (!j->array_of[0])
		return 0;
	if ((n = json_object_get(arrays, j->array_of)))
		return json_integer_set(n, json_integer_value(n) + 1) ? FW_ENOMEM : 0;
	return json_object_set_new(arrays, j->array_of, json_integer(1)) ? FW_ENOMEM : 0;
}

/* NULL when out of memory. */
static json_t *remembered_arrays(struct fw_serve *d)
{
	json_t *arrays = json_object();

	if (arrays && d->bops == &fw_backend_local && fw_local_each_job(d->be, add_array, arrays) != FW_OK) {
		json_decref(arrays);
		return NULL;
	}
	return arrays;
}

/* The tasks the remembered array name has; 0: no such array. */
static int array_size(json_t *arrays, const char *name)
{
	return (int)json_integer_value(json_object_get(arrays, name));
}

/* Neither a job's name nor a remembered array's (`cancel NAME` must mean
 * one thing). */
static bool name_free(struct fw_serve *d, json_t *arrays, const char *name)
{
	return !job_name_taken(d, name) && !array_size(arrays, name);
}

/* Does name read as task *idx of an array named base, BASE_<index>
 * with an index an array may have (0 .. FW_ARRAY_INDEX_MAX)?  Leading
 * zeros are read through, as Slurm reads 12_03 as task 3 of job 12:
 * "fa_03" reads as task 3 of "fa" (whose task array_task names "fa_3").
 * Its base into base (FW_NAME_MAX bytes) and the index into *idx when it
 * does. */
static bool task_form(const char *name, char *base, long *idx)
{
	const char *u = strrchr(name, '_'), *p;
	long v = 0;

	if (!u || u == name || !u[1])
		return false;
	for (p = u + 1; *p >= '0' && *p <= '9'; p++)
		v = v > FW_ARRAY_INDEX_MAX ? v : v * 10 + (*p - '0');
	if (*p || v > FW_ARRAY_INDEX_MAX)
		return false;
	snprintf(base, FW_NAME_MAX, "%.*s", (int)(u - name), name);
	*idx = v;
	return true;
}

/* Is name the name of a task of a remembered job array (arrays), or does
 * it read as one (task_form: "fa_03" as "fa_3"), whether that task is
 * still remembered or not?  Its array's name into base (FW_NAME_MAX
 * bytes) and the index into *idx when it is. */
static bool array_task_name(json_t *arrays, const char *name, char *base, long *idx)
{
	return task_form(name, base, idx) && array_size(arrays, base) > 0;
}

/* The jobs of their own (no arrayOf) whose names read as an array's
 * tasks (task_form): each BASE with the name of the first such job, so
 * that an array named BASE is refused while one is remembered
 * (array_like_free), as such a job is while the array is. */
static int add_task_like(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit,
			 fw_time start, fw_time end)
{
	json_t *like = ctx;
	char base[FW_NAME_MAX];
	long idx;

	(void)state, (void)submit, (void)start, (void)end;
	if (j->array_of[0] || !task_form(j->job.name, base, &idx) || json_object_get(like, base))
		return 0;
	return json_object_set_new(like, base, json_string(j->job.name)) ? FW_ENOMEM : 0;
}

/* NULL when out of memory. */
static json_t *task_like_jobs(struct fw_serve *d)
{
	json_t *like = json_object();

	if (like && d->bops == &fw_backend_local && fw_local_each_job(d->be, add_task_like, like) != FW_OK) {
		json_decref(like);
		return NULL;
	}
	return like;
}

/* The job of its own whose name reads as a task of an array named base
 * (task_like_jobs' like), or NULL. */
static const char *task_like(json_t *like, const char *base)
{
	return json_string_value(json_object_get(like, base));
}

/* The names a submission is checked against, taken in one pass each
 * over the local backend's jobs: the remembered job arrays
 * (remembered_arrays) and the jobs of their own whose names read as an
 * array's tasks (task_like_jobs). */
struct taken {
	json_t *arrays, *like;
};

/* job-N free for a job (nor a task's name of a remembered array), or, for
 * the array a (a->n > 0), for an array: its tasks' names job-N_<index>
 * free too, and no job named as one of its tasks could be. */
static bool auto_name_free(struct fw_serve *d, const struct taken *t, const struct fw_job_array *a,
			   const char *name)
{
	char task[FW_NAME_MAX + 8], base[FW_NAME_MAX];
	long idx;

	if (!name_free(d, t->arrays, name) || (!a->n && array_task_name(t->arrays, name, base, &idx)) ||
	    (a->n && task_like(t->like, name)))
		return false;
	for (int32_t k = 0; k < a->n; k++) {
		snprintf(task, sizeof task, "%s_%d", name, (int)a->idx[k]);
		if (!name_free(d, t->arrays, task))
			return false;
	}
	return true;
}

/* The first free job-N from the counter on (auto_name_free); *n is that
 * N.  false when FW_AUTO_NAME_TRIES names in a row are taken. */
static bool auto_job_name(struct fw_serve *d, const struct taken *t, const struct fw_job_array *a, char *name,
			  size_t len, int64_t *n)
{
	for (*n = d->next_job; *n < d->next_job + FW_AUTO_NAME_TRIES; (*n)++) {
		snprintf(name, len, "job-%lld", (long long)*n);
		if (auto_name_free(d, t, a, name))
			return true;
	}
	return false;
}

/* POST /v1/jobs?dryRun=true (sbatch --test-only): the job, valid as a
 * submission, planned as if submitted now, and answered as the view
 * would show it after that cycle ("state" running: it would start at
 * once, "nodes"; pending: "reason", "reasonText", "expectedStart");
 * nothing is stored, no name is used up (h_job_submit: dryRun=false
 * submits). */
static void dry_run(struct ctx *c, const struct fw_backend_job *bj)
{
	struct fw_diag dg;
	json_t *job = NULL;
	int rc;

	if (!c->d->bops->probe)
		return fail(c, 501, "EDECLINED", "dryRun", "the %s backend cannot plan a job it does not hold",
			    c->d->bops->name);
	memset(&dg, 0, sizeof dg);
	if ((rc = fw_serve_estimate(c->d, bj, &job, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	reply(c, 200, json_pack("{s:b,s:o}", "dryRun", 1, "job", job));
}

/* The body's "array" (sbatch --array) into *a; a body's "arrayOf" is
 * the daemon's to set, on an array's tasks. */
static int take_array(struct ctx *c, struct fw_job_array *a, struct fw_diag *dg)
{
	if (json_object_get(c->body, "arrayOf"))
		return fw_diag_set(dg, FW_EINVAL, "", 0, 0, "arrayOf",
				   "is set by the daemon on the tasks of a job array; to submit an array, send "
				   "\"array\": \"0-99\" (or \"0-99:2\", \"1,3,5-7\") instead");
	return fw_codec_array_parse(c->body, a, dg);
}

/* bj as task idx of the array base: NAME_<idx>, arrayOf NAME. */
static struct fw_backend_job *array_task(struct fw_backend_job *bj, const char *base, int32_t idx)
{
	snprintf(bj->job.name, sizeof bj->job.name, "%.*s_%d", FW_NAME_MAX - 7, base, (int)idx);
	snprintf(bj->array_of, sizeof bj->array_of, "%s", base);
	return bj;
}

/* The tasks of the array named base (their arrayOf): how many, and the
 * names of those still pending or running. */
struct array_tasks {
	const char *base;
	json_t *live;
	int all;
};

static int add_task(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		    fw_time end)
{
	struct array_tasks *t = ctx;

	(void)submit, (void)start, (void)end;
	if (strcmp(j->array_of, t->base))
		return 0;
	t->all++;
	if (!strcmp(state, "pending") || !strcmp(state, "running"))
		json_array_append_new(t->live, json_string(j->job.name));
	return 0;
}

/* How many tasks the local backend remembers of the array base (all),
 * and how many of them are pending or running (live). */
static void array_count(struct fw_serve *d, const char *base, int *all, int *live)
{
	struct array_tasks t = { base, json_array(), 0 };

	if (d->bops == &fw_backend_local)
		fw_local_each_job(d->be, add_task, &t);
	*all = t.all;
	*live = (int)json_array_size(t.live);
	json_decref(t.live);
}

/* The array's name base free: no job has it, no remembered array
 * (arrays) has it.  false once refused. */
static bool array_base_free(struct ctx *c, json_t *arrays, const char *base)
{
	int all = array_size(arrays, base);

	if (job_name_taken(c->d, base))
		return fail(c, 409, "EEXIST", "name", "a job named \"%s\" exists, and `cancel %s` would then not "
			    "mean the array; give the array another name (nothing was submitted)", base, base), false;
	if (all)
		return fail(c, 409, "EEXIST", "name", "job array \"%s\" exists (%d task%s), and `cancel %s` would cancel "
			    "both; give this array another name (nothing was submitted)", base, all,
			    all == 1 ? "" : "s", base), false;
	return true;
}

/* No job of its own reads as a task of an array named base (task_like:
 * "fa_7", "fa_07"), whether the array would have that index or not: it
 * would pass for one of the array's tasks, as a job so named is refused
 * while the array is remembered (job_name_free).  false once refused. */
static bool array_like_free(struct ctx *c, const char *base, json_t *like)
{
	const char *job = task_like(like, base);
	char b[FW_NAME_MAX];
	long idx;

	if (!job || !task_form(job, b, &idx))
		return true;
	return fail(c, 409, "EEXIST", "name", "job \"%s\" exists and reads as task %ld of an array named \"%s\" "
		    "(NAME_<index>), so it would pass for one of the array's tasks; give the array another name, or "
		    "submit it once job \"%s\" has ended and been forgotten (min-job-age; nothing was submitted)",
		    job, idx, base, job), false;
}

/* Every task's name free: no job's, no remembered array's.  false once
 * refused. */
static bool array_tasks_free(struct ctx *c, struct fw_backend_job *bj, const struct fw_job_array *a,
			     const char *base, json_t *arrays)
{
	for (int32_t k = 0; k < a->n; k++) {
		const char *name = array_task(bj, base, a->idx[k])->job.name;
		if (job_name_taken(c->d, name))
			return fail(c, 409, "EEXIST", "name", "task %d of the array would be named \"%s\", which a job "
				    "already has; give the array another name (nothing was submitted)", (int)a->idx[k],
				    name), false;
		if (array_size(arrays, name))
			return fail(c, 409, "EEXIST", "name", "task %d of the array would be named \"%s\", the name of "
				    "job array \"%s\" (`cancel %s` would then cancel both); give the array another name "
				    "(nothing was submitted)", (int)a->idx[k], name, name, name), false;
	}
	return true;
}

/* Every task of the array checked before any is stored: its names fit
 * and are free (the array's own name too: `cancel NAME` must mean the
 * array; and no job reads as one of its tasks, array_like_free), and the
 * job is valid (check_job, once: the tasks differ only by name).  false
 * once refused. */
static bool array_check(struct ctx *c, struct fw_backend_job *bj, const struct fw_job_array *a, const char *base,
			const struct taken *t)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (strlen(base) + 1 + (size_t)snprintf(NULL, 0, "%d", (int)a->idx[a->n - 1]) > FW_NAME_MAX - 1)
		return fail(c, 400, "ERANGE", "name", "\"%s\" is too long for an array: its tasks are named NAME_<index>, "
			    "at most %d bytes; shorten the name", base, FW_NAME_MAX - 1), false;
	if (!array_base_free(c, t->arrays, base) || !array_tasks_free(c, bj, a, base, t->arrays) ||
	    !array_like_free(c, base, t->like))
		return false;
	if ((rc = check_job(c->d, array_task(bj, base, a->idx[0]), &dg)) != FW_OK)
		return fail_diag(c, rc, &dg), false;
	return true;
}

/* A submitted array the store refused: its reload() forgot its tasks;
 * without one, the first k are withdrawn (as one job is, h_job_submit). */
static void array_withdraw(struct fw_serve *d, const char *base, const struct fw_job_array *a, int32_t k, fw_time now)
{
	struct fw_backend_job_room room;
	struct fw_backend_job *t = fw_backend_job_room(&room);

	for (int32_t i = 0; !d->bops->reload && d->bops->cancel && i < k; i++)
		d->bops->cancel(d->be, array_task(t, base, a->idx[i])->job.name, now);
}

static json_t *array_json(const char *base, const struct fw_job_array *a, fw_time now)
{
	json_t *names = json_array();
	char name[FW_NAME_MAX + 8];

	for (int32_t k = 0; k < a->n; k++) {
		snprintf(name, sizeof name, "%s_%d", base, (int)a->idx[k]);
		json_array_append_new(names, json_string(name));
	}
	return json_pack("{s:s,s:i,s:o,s:s,s:I}", "arrayOf", base, "count", (int)a->n, "names", names, "state",
			 "pending", "submitTime", (json_int_t)now);
}

/* A job that alone needs more than a limit of its queue, or of one above
 * it: accepted (a limit can be raised, as Slurm keeps such a job pending,
 * QOSMaxGRESPerJob), but the answer warns that it never starts while
 * that limit holds (the first such limit, leaf first, as the cycle's
 * reason names it: lib/allocate.c over_limit). */
static void limit_warning(const struct fw_serve *d, const struct fw_backend_job *j, json_t *o)
{
	static const char *const what[] = { "GPU", "CPU", "memory" }, *const unit[] = { "GPUs", "cores", "GiB" };
	static const double scale[] = { 1000, 1000, 1024 };
	struct fw_res need = fw_job_request(&j->job);
	int q = fw_serve_queue_index(d, j->queue);
	char buf[FW_SERVE_REASON_MAX];

	for (int32_t hops = 0; q >= 0 && hops <= d->nqueues; hops++) {
		const struct fw_queue_spec *qs = &d->queues[q];
		for (int k = 0; k < FW_RES_COUNT; k++) {
			if (qs->limit.v[k] == FW_UNLIMITED || need.v[k] <= qs->limit.v[k])
				continue;
			snprintf(buf, sizeof buf, "it needs %g %s and queue \"%s\" has a %s limit of %g %s: it can never "
				 "start while that limit holds (raise it: PATCH /v1/queues/%s, or resubmit the job "
				 "smaller)", need.v[k] / scale[k], unit[k], qs->name, what[k],
				 qs->limit.v[k] / scale[k], unit[k], qs->name);
			json_object_set_new(o, "warning", json_string(buf));
			return;
		}
		q = qs->parent[0] ? fw_serve_queue_index(d, qs->parent) : -1;
	}
}

/* POST /v1/jobs with "array" (sbatch --array): one job per index, named
 * NAME_<index> with arrayOf NAME, all or none: every task checked first
 * (array_check), then all submitted in one store transaction, which a
 * refusal of any task rolls back whole (fw_serve_rollback re-reads the
 * backend), so no task of a refused array stays. */
static void submit_array(struct ctx *c, struct fw_backend_job *bj, const struct fw_job_array *a, bool named,
			 int64_t n, const struct taken *t)
{
	struct fw_serve *d = c->d;
	char base[FW_NAME_MAX];
	struct fw_diag dg;
	fw_time now = fw_serve_now();
	int32_t k = 0;
	int rc;

	memset(&dg, 0, sizeof dg);
	snprintf(base, sizeof base, "%s", bj->job.name);
	if (!array_check(c, bj, a, base, t))
		return;
	if ((rc = fw_store_begin(d->store)) != FW_OK ||
	    (rc = named ? FW_OK : fw_store_meta_put(d->store, "next_job", n + 1)) != FW_OK)
		return (void)commit_or_fail(c, rc);
	for (; rc == FW_OK && k < a->n; k++)
		rc = d->bops->submit(d->be, array_task(bj, base, a->idx[k]), now, &dg);
	if (rc != FW_OK) {
		array_withdraw(d, base, a, k - 1, now);
		fw_serve_rollback(d);
		return fail_diag(c, rc, &dg);
	}
	if (!commit_or_fail(c, rc))
		return array_withdraw(d, base, a, a->n, now);
	if (!named)
		d->next_job = n + 1;
	json_t *o = array_json(base, a, now);
	limit_warning(d, bj, o); /* the tasks share the queue and the request */
	reply(c, 201, o);
}

/* One job, checked (check_job) and planned (dry: dryRun=true) or stored. */
static void submit_one(struct ctx *c, struct fw_backend_job *bj, bool named, int64_t n, bool dry)
{
	struct fw_serve *d = c->d;
	struct fw_diag dg;
	fw_time now = fw_serve_now();
	int rc;

	memset(&dg, 0, sizeof dg);
	if ((rc = check_job(d, bj, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	if (dry)
		return dry_run(c, bj);
	if ((rc = fw_store_begin(d->store)) != FW_OK)
		return (void)commit_or_fail(c, rc);
	rc = named ? FW_OK : fw_store_meta_put(d->store, "next_job", n + 1);
	if (rc == FW_OK && (rc = d->bops->submit(d->be, bj, now, &dg)) != FW_OK) {
		fw_store_rollback(d->store);
		return fail_diag(c, rc, &dg);
	}
	if (!commit_or_fail(c, rc)) {
		/* The backend took the job but the store did not: its reload()
		 * forgot it; without one, withdraw it, so that a job the client
		 * was told failed never runs. */
		if (!d->bops->reload && d->bops->cancel)
			d->bops->cancel(d->be, bj->job.name, now);
		return;
	}
	if (!named)
		d->next_job = n + 1;
	json_t *o = fw_codec_job_dump(bj, &d->fleet->topology);
	json_object_set_new(o, "state", json_string("pending"));
	json_object_set_new(o, "submitTime", json_integer(now));
	if (time_limit(d, bj) > 0) /* the one that binds: its own or a queue's */
		json_object_set_new(o, "timeLimit", json_integer(time_limit(d, bj)));
	limit_warning(d, bj, o);
	reply(c, 201, o);
}

/* A job of its own named name: not a remembered array's name (`cancel
 * NAME` must mean one thing), nor one that is, or reads as (task_form:
 * "fa_03"), a task of one.  false once refused. */
static bool job_name_free(struct ctx *c, json_t *arrays, const char *name)
{
	int all = array_size(arrays, name);
	char base[FW_NAME_MAX], task[FW_NAME_MAX + 8];
	long idx;

	if (all)
		return fail(c, 409, "EEXIST", "name", "job array \"%s\" exists (%d task%s), and `cancel %s` would then "
			    "not reach it; give the job another name (nothing was submitted)", name, all,
			    all == 1 ? "" : "s", name), false;
	if (!array_task_name(arrays, name, base, &idx))
		return true;
	snprintf(task, sizeof task, "%s_%ld", base, idx);
	if (strcmp(task, name))
		return fail(c, 409, "EEXIST", "name", "\"%s\" reads as task %ld of job array \"%s\" (named \"%s\"), "
			    "which the daemon remembers (`fairway jobs show %s`, GET /v1/jobs/%s): a job of its own by "
			    "that name would make the array's tasks ambiguous; give the job another name (nothing was "
			    "submitted)", name, idx, base, task, base, base), false;
	return fail(c, 409, "EEXIST", "name", "\"%s\" is the name of task %ld of job array \"%s\", which the "
		    "daemon remembers (`fairway jobs show %s`, GET /v1/jobs/%s): a job of its own by that name "
		    "would make the array's tasks ambiguous; give the job another name (nothing was submitted)", name,
		    idx, base, base, base),
	       false;
}

/* A parsed job or array (arr->n > 0) named (its name, or the first free
 * job-N) against the names taken now (t: the remembered arrays, and the
 * jobs that read as an array's tasks), then submitted.  Submissions hold
 * the state lock, so two at once see each other's names. */
static void submit_named(struct ctx *c, struct fw_backend_job *bj, const struct fw_job_array *arr,
			 const struct taken *t, bool dry)
{
	struct fw_serve *d = c->d;
	bool named = bj->job.name[0] != '\0';
	int64_t n = d->next_job;

	if (!t->arrays || !t->like)
		return fail(c, 500, "ENOMEM", "", "out of memory listing the job arrays; try again");
	if (!named && !auto_job_name(d, t, arr, bj->job.name, sizeof bj->job.name, &n))
		return fail(c, 409, "EEXIST", "name", "job-%lld to job-%lld are all taken: give the job a name",
			    (long long)d->next_job, (long long)n - 1);
	if (arr->n)
		return submit_array(c, bj, arr, named, n, t);
	if (named && !job_name_free(c, t->arrays, bj->job.name))
		return;
	submit_one(c, bj, named, n, dry);
}

/* Each group's gpuModel as the fleet spells it when they differ only by
 * case ("h100" on H100 nodes, as `fairway sim run` matches a trace's),
 * so the core (which matches exactly), the store and every answer see
 * one spelling; a model no node has stays, refused by check_fits. */
static void spell_models(const struct fw_snapshot *fleet, struct fw_job *j)
{
	for (int g = 0; g < j->ngroups; g++) {
		char *m = j->groups[g].gpu_model;
		const char *fleets = m[0] ? fw_snapshot_gpu_model_spelling(fleet, m) : NULL;
		if (fleets && fleets != m)
			memmove(m, fleets, strlen(fleets) + 1);
	}
}

static void h_job_submit(struct ctx *c)
{
	struct fw_serve *d = c->d;
	struct fw_backend_job_room room;
	struct fw_backend_job *bj = fw_backend_job_room(&room);
	struct fw_diag dg;
	struct fw_job_array arr;
	const char *dry = arg(c, "dryRun");
	int rc;

	memset(&dg, 0, sizeof dg);
	if (!d->bops->submit)
		return fail(c, 501, "EDECLINED", "", "the %s backend takes jobs from its own tools, not this API",
			    d->bops->name);
	if (dry && strcmp(dry, "true") && strcmp(dry, "false"))
		return fail(c, 400, "EINVAL", "dryRun", "must be true (plan the job as if submitted now, keep "
						       "nothing) or false");
	if (!need_body(c) || !backend_ready(c))
		return;
	if ((rc = take_array(c, &arr, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	if (arr.n && dry && !strcmp(dry, "true"))
		return fail(c, 400, "EINVAL", "dryRun", "a job array cannot be dry-run: dry-run one task, the same "
			    "body without \"array\" (its tasks differ only by name)");
	if ((rc = fw_codec_job_parse(c->body, &d->fleet->topology, bj, &dg)) != FW_OK ||
	    (rc = fw_codec_text_check(bj->job.user, "user", true, &dg)) != FW_OK ||
	    (rc = check_asks(&bj->job, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	spell_models(d->fleet, &bj->job);
	struct taken t = { remembered_arrays(d), arr.n ? task_like_jobs(d) : json_object() }; /* like: arrays' */
	submit_named(c, bj, &arr, &t, dry && !strcmp(dry, "true"));
	json_decref(t.arrays);
	json_decref(t.like);
}

/* One job: the last plan's view of it, unless the local backend knows it
 * ended since (a job cancelled a moment ago reads cancelled, not the
 * plan's pending); else, on a backend that lists its cluster's ended jobs
 * (backend.h ended: Slurm's, for MinJobAge), the last read's of them. */
static json_t *job_lookup(struct fw_serve *d, const char *name)
{
	const struct fw_backend_job *bj;
	const char *state;
	fw_time submit, start, end;
	bool local = d->bops == &fw_backend_local &&
		     !fw_local_job_info(d->be, name, &state, &submit, &start, &end, NULL, &bj);

	if (local && strcmp(state, "pending") && strcmp(state, "running"))
		return local_job_json(d, bj, state, submit, start, end);
	if (d->bops == &fw_backend_local && !local)
		return NULL; /* forgotten since the last plan (min-job-age): its view is stale */
	json_t *v = view_ref(d), *j = json_object_get(json_object_get(v, "jobs"), name);

	if (!j && !local) /* an ended job the backend still lists (view.c fw_serve_view_ended) */
		j = json_object_get(json_object_get(v, "ended"), name);
	if (j && (!local || view_of(j, submit))) { /* else a forgotten namesake's */
		json_incref(j);
		json_decref(v);
		return j;
	}
	json_decref(v);
	return local ? local_job_json(d, bj, state, submit, start, end) : NULL;
}

static int add_decision(void *ctx, const struct fw_store_decision *dec)
{
	json_array_append_new(ctx, json_pack("{s:s,s:I,s:I,s:s,s:s}", "kind", dec->kind, "at", (json_int_t)dec->at,
					     "cycle", (json_int_t)dec->cycle, "reason", dec->reason, "text",
					     dec->text));
	return 0;
}

/* A job its run-time limit ended: its reasonText is that decision's
 * text, the last one of hist (oldest first) with reason time_limit
 * ("ended: it has run ... and its own run-time limit ..." or "... the
 * run-time limit (maxRuntime) of its queue ..."). */
static void ended_why(json_t *j, json_t *hist)
{
	const char *tl = fw_reason_name(FW_REASON_TIME_LIMIT), *text = NULL;
	json_t *x;
	size_t i;

	if (strcmp(json_string_value(json_object_get(j, "state")) ?: "", "timeout") ||
	    json_object_get(j, "reasonText"))
		return;
	json_array_foreach(hist, i, x)
		if (!strcmp(json_string_value(json_object_get(x, "reason")), tl))
			text = json_string_value(json_object_get(x, "text"));
	if (text)
		json_object_set_new(j, "reasonText", json_string(text));
}

/* --- a job array as a whole ------------------------------------------------------------- */
/* GET /v1/jobs/NAME where NAME is a remembered job array's: its tasks
 * (arrayOf NAME) gathered from the local backend, and, for the waiting
 * ones, the last plan's reasons and expected starts (the view). */
struct array_sum {
	const char *base;
	json_t *view_jobs;
	json_t *o;                           /* the answer: queue, user and GPUs
					      * of the first task (the tasks differ
					      * only by name) */
	json_t *states, *reasons;            /* tasks by state; waiting ones by
					      * reason */
	bool has[FW_ARRAY_INDEX_MAX + 1];    /* the indices remembered */
	int n, unknown;                      /* tasks; waiting ones with no
					      * expected start */
	fw_time submit, first, last;         /* the earliest submission; the
					      * waiting tasks' expected starts */
};

static void count_in(json_t *counts, const char *key)
{
	json_t *n = json_object_get(counts, key);

	if (n)
		json_integer_set(n, json_integer_value(n) + 1);
	else
		json_object_set_new(counts, key, json_integer(1));
}

/* The index of the task name of the array base (BASE_<index>); -1 when
 * it is no such name. */
static long task_of(const char *base, const char *name)
{
	size_t n = strlen(base);
	char *end;
	long k;

	if (strncmp(name, base, n) || name[n] != '_' || name[n + 1] < '0' || name[n + 1] > '9')
		return -1;
	k = strtol(name + n + 1, &end, 10);
	return *end || k > FW_ARRAY_INDEX_MAX ? -1 : k;
}

/* A waiting task's reason and expected start, as the last plan has them
 * (not_yet_considered and none for one newer than the plan). */
static void sum_waiting(struct array_sum *a, const char *name, fw_time submit)
{
	json_t *j = json_object_get(a->view_jobs, name), *at = NULL;
	const char *why = "not_yet_considered";

	if (j && view_of(j, submit) && !strcmp(json_string_value(json_object_get(j, "state")) ?: "", "pending")) {
		why = json_string_value(json_object_get(j, "reason")) ?: why;
		at = json_object_get(j, "expectedStart");
	}
	count_in(a->reasons, why);
	if (!json_is_integer(at)) {
		a->unknown++;
		return;
	}
	fw_time t = json_integer_value(at);
	a->first = t < a->first ? t : a->first;
	a->last = t > a->last ? t : a->last;
}

static int add_sum(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		   fw_time end)
{
	struct array_sum *a = ctx;
	long k = strcmp(j->array_of, a->base) ? -1 : task_of(a->base, j->job.name);

	(void)start, (void)end;
	if (k < 0)
		return 0;
	if (!a->n++) {
		a->o = json_pack("{s:s,s:s,s:s,s:s,s:I}", "kind", "array", "name", a->base, "queue", j->queue, "user",
				 j->job.user, "gpus", (json_int_t)fw_job_gpus(&j->job));
		fw_serve_gpu_amount(a->o, &j->job);
	}
	a->has[k] = true;
	a->submit = submit < a->submit ? submit : a->submit;
	count_in(a->states, state);
	if (!strcmp(state, "pending"))
		sum_waiting(a, j->job.name, submit);
	return 0;
}

/* The tasks' names, ascending, and their indices as Slurm writes an
 * array's (sweep_[0-4,7]): runs of consecutive ones as A-B. */
static void sum_tasks(const struct array_sum *a)
{
	char idx[8 * (FW_ARRAY_INDEX_MAX + 1)] = "", name[FW_NAME_MAX + 8];
	size_t k = 0;
	json_t *names = json_array();

	for (int i = 0; i <= FW_ARRAY_INDEX_MAX; i++) {
		if (!a->has[i])
			continue;
		snprintf(name, sizeof name, "%s_%d", a->base, i);
		json_array_append_new(names, json_string(name));
		if (i > 0 && a->has[i - 1])
			continue; /* inside a run, written at its start */
		int e = i;
		while (e < FW_ARRAY_INDEX_MAX && a->has[e + 1])
			e++;
		k += (size_t)snprintf(idx + k, sizeof idx - k, "%s%d", k ? "," : "", i);
		if (e > i)
			k += (size_t)snprintf(idx + k, sizeof idx - k, "-%d", e);
	}
	json_object_set_new(a->o, "tasks", names);
	json_object_set_new(a->o, "indices", json_string(idx));
}

/* The waiting tasks' reasons and the range of their expected starts. */
static void sum_starts(struct array_sum *a)
{
	if (!json_object_size(a->reasons))
		return;
	json_object_set(a->o, "reasons", a->reasons);
	json_object_set_new(a->o, "unknownStarts", json_integer(a->unknown));
	if (a->first <= a->last)
		json_object_set_new(a->o, "expectedStart", json_pack("{s:I,s:I}", "earliest", (json_int_t)a->first,
								     "latest", (json_int_t)a->last));
}

/* The job array named base as a whole ("kind": "array"), or NULL when
 * the backend remembers no task of it (or is out of memory). */
static json_t *array_lookup(struct fw_serve *d, const char *base)
{
	json_t *v = view_ref(d);
	struct array_sum a = (struct array_sum){ .base = base, .view_jobs = json_object_get(v, "jobs"), .states = json_object(),
				.reasons = json_object(), .submit = INT64_MAX, .first = INT64_MAX, .last = INT64_MIN };
	if (d->bops == &fw_backend_local && a.states && a.reasons)
		fw_local_each_job(d->be, add_sum, &a);
	json_decref(v);
	if (a.o) {
		json_object_set_new(a.o, "count", json_integer(a.n));
		json_object_set(a.o, "states", a.states);
		json_object_set_new(a.o, "submitTime", json_integer(a.submit));
		sum_tasks(&a);
		sum_starts(&a);
	}
	json_decref(a.states);
	json_decref(a.reasons);
	return a.o;
}

static int count_decision(void *ctx, const struct fw_store_decision *dec)
{
	(void)dec;
	++*(int *)ctx;
	return 0;
}

/* No job of that name: a 404.  On a backend that lists its cluster's
 * ended jobs only as long as the cluster does (backend.h ended_after:
 * Slurm's MinJobAge), where to look once it no longer does, and whether
 * fairway's own log has decisions about a job of that name (it may have
 * started it; where it then ran is the cluster's to say: a start the log
 * holds need not be its last run). */
static void job_gone(struct ctx *c)
{
	int n = 0;

	if (!c->d->bops->ended_after)
		return fail(c, 404, "ENOENT", "name", "no job or job array named \"%s\"", c->name);
	fw_store_job_decisions(c->d->store, c->name, INT64_MIN, 10, count_decision, &n);
	if (!n)
		return fail(c, 404, "ENOENT", "name", "no job or job array named \"%s\" in %s now: %s", c->name,
			    c->d->bops->name, c->d->bops->ended_after);
	fail(c, 404, "ENOENT", "name", "no job or job array named \"%s\" in %s now: %s; fairway's log keeps its "
	     "decisions about it: fairway decisions --job %s (GET /v1/decisions?job=%s)", c->name, c->d->bops->name,
	     c->d->bops->ended_after, c->name, c->name);
}

/* One job, with the last decisions the daemon applied to it; or, for a
 * job array's name, the array as a whole (array_lookup). */
static void h_job_get(struct ctx *c)
{
	json_t *j = job_lookup(c->d, c->name), *hist;

	if (!j && (j = array_lookup(c->d, c->name)))
		return reply(c, 200, j);
	if (!j)
		return job_gone(c);
	json_t *copy = json_copy(j); /* the view's object is shared: never add to it */
	const struct fw_backend_job *bj;
	const char *st;
	fw_time t0 = INT64_MIN, t1, t2;
	bool local = c->d->bops == &fw_backend_local &&
		     fw_local_job_info(c->d->be, c->name, &st, &t0, &t1, &t2, NULL, &bj) == FW_OK;
	json_decref(j);
	if (!(j = copy))
		return fail(c, 500, "ENOMEM", "", "out of memory");
	if (local && bj->array_of[0]) /* nor the array a task is of */
		json_object_set_new(j, "arrayOf", json_string(bj->array_of));
	if (local) /* nor selectors and slices */
		local_members(j, bj, &c->d->fleet->topology);
	hist = json_array();
	/* a local job's own rows: from its submission (its name may have been
	 * a forgotten job's: min-job-age) */
	fw_store_job_decisions(c->d->store, c->name, local ? t0 : INT64_MIN, 10, add_decision, hist);
	json_object_set_new(j, "decisions", hist);
	ended_why(j, hist);
	reply(c, 200, j);
}

/* A cancel the backend refused: no such job (404 ENOENT), or a job that
 * has already ended (409 EENDED, not the backend's FW_EEXIST, whose
 * "already exists" would mislead: how and when it ended, and that
 * nothing was done). */
static void cancel_refused(struct ctx *c, int rc)
{
	json_t *j = rc == FW_EEXIST ? job_lookup(c->d, c->name) : NULL, *end = json_object_get(j, "endTime");
	const char *state = json_string_value(json_object_get(j, "state"));
	char when[FW_TIME_TEXT_MAX + 8] = "", at[FW_TIME_TEXT_MAX];

	if (rc == FW_ENOENT)
		return fail(c, 404, "ENOENT", "name", "no job named \"%s\"", c->name);
	if (json_is_integer(end)) /* a Unix time: its UTC date (fairway/span.h) */
		snprintf(when, sizeof when, " at %s", fw_utc_format(json_integer_value(end), at, sizeof at));
	fail(c, 409, "EENDED", "name",
	     "job \"%s\" has already ended (%s%s): there is nothing to cancel (`fairway jobs show %s` or GET /v1/jobs/%s "
	     "says how it ended)",
	     c->name, state ? state : "ended", when, c->name, c->name);
	json_decref(j);
}

/* DELETE /v1/jobs/NAME where NAME is no job but a job array's (scancel
 * of an array's id): every task of it still pending or running, in the
 * request's one transaction.  404 when no task has arrayOf NAME, 409
 * EENDED when all have ended. */
static void cancel_array(struct ctx *c)
{
	struct fw_serve *d = c->d;
	struct array_tasks t = { c->name, json_array(), 0 };
	size_t i;
	json_t *v;
	int rc = FW_OK;

	if (d->bops == &fw_backend_local)
		fw_local_each_job(d->be, add_task, &t);
	if (!json_array_size(t.live)) {
		fw_store_rollback(d->store);
		json_decref(t.live);
		if (!t.all)
			return cancel_refused(c, FW_ENOENT);
		return fail(c, 409, "EENDED", "name", "every task of job array \"%s\" (%d) has already ended: there is "
			    "nothing to cancel (`fairway jobs show %s` or GET /v1/jobs/%s_<index> says how each "
			    "ended)", c->name, t.all, c->name, c->name);
	}
	json_array_foreach(t.live, i, v)
		if (rc == FW_OK)
			rc = d->bops->cancel(d->be, json_string_value(v), fw_serve_now());
	if (!commit_or_fail(c, rc))
		return (void)json_decref(t.live);
	reply(c, 200, json_pack("{s:s,s:s,s:o}", "name", c->name, "state", "cancelled", "cancelled", t.live));
}

static void h_job_cancel(struct ctx *c)
{
	struct fw_serve *d = c->d;
	int rc;

	if (!d->bops->cancel)
		return fail(c, 501, "EDECLINED", "", "the %s backend cancels jobs with its own tools", d->bops->name);
	if (!backend_ready(c))
		return;
	if ((rc = fw_store_begin(d->store)) != FW_OK)
		return (void)commit_or_fail(c, rc);
	rc = d->bops->cancel(d->be, c->name, fw_serve_now());
	if (rc == FW_ENOENT)
		return cancel_array(c);
	if (rc == FW_EEXIST) {
		fw_store_rollback(d->store);
		return cancel_refused(c, rc);
	}
	if (!commit_or_fail(c, rc))
		return;
	reply(c, 200, json_pack("{s:s,s:s}", "name", c->name, "state", "cancelled"));
}

/* --- nodes ------------------------------------------------------------------------------ */
/* Nodes come from the last cycle's view (their use, health as planned).
 * Before the first cycle there is none: 503, as for GET /v1/plan, rather
 * than an empty fleet or a 404 for a node the config has. */
static bool no_view_yet(struct ctx *c, json_t *v)
{
	if (v)
		return false;
	if (c->d->cycle_err[0]) /* failing: say why, as GET /v1/health does */
		fail(c, 503, "EAGAIN", "", "no cycle has completed yet: the last one failed: %.400s", c->d->cycle_err);
	else
		fail(c, 503, "EAGAIN", "", "no cycle has completed yet; try again in a moment");
	return true;
}

/* Is the word `word` one of the comma-separated list's? */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *w = list; *w; w += strcspn(w, ",") + (w[strcspn(w, ",")] == ','))
		if (strcspn(w, ",") == n && !strncmp(w, word, n))
			return true;
	return false;
}

/* ?health='s words beyond the states: a node with GPUs left out
 * (degraded, as `fairway nodes` says), and a lemon (history.h). */
static const char *const HEALTH_MORE[] = { "degraded", "lemon", NULL };

/* ?health='s words, NULL-terminated, into words: each health state's
 * name, then HEALTH_MORE's. */
static void health_words(const char **words)
{
	int k = 0;

	for (int h = 0; h < FW_HEALTH_COUNT; h++)
		words[k++] = fw_health_name((enum fw_health)h);
	for (int m = 0; HEALTH_MORE[m]; m++)
		words[k++] = HEALTH_MORE[m];
	words[k] = NULL;
}

/* Does node n (a view entry) answer one of want's words? */
static bool node_in(const char *want, const json_t *n)
{
	return in_list(want, json_string_value(json_object_get(n, "health"))) ||
	       (in_list(want, "degraded") && json_array_size(json_object_get(n, "badGpus")) > 0) ||
	       (in_list(want, "lemon") && json_is_true(json_object_get(n, "lemon")));
}

/* The nodes of the last plan; ?health=unhealthy,draining keeps those in
 * the states named, and degraded, lemon those with bad GPUs, with a fault
 * history (the figures stay the fleet's). */
static void h_nodes_list(struct ctx *c)
{
	const char *want = arg(c, "health"), *words[FW_HEALTH_COUNT + 3];
	json_t *v = view_ref(c->d), *all, *n, *nodes;
	char bad[64];
	size_t i;

	if (no_view_yet(c, v))
		return;
	health_words(words);
	if (want && unknown_word(want, words, bad, sizeof bad)) {
		json_decref(v);
		return fail_choice(c, "health", "a node health", bad, words,
				   "must be a comma-separated list of healthy, suspect, unhealthy, draining, degraded "
				   "(some GPUs bad) and lemon");
	}
	all = view_part(v, "nodes", json_array);
	nodes = want ? json_array() : json_incref(all);
	json_array_foreach(all, i, n)
		if (want && node_in(want, n))
			json_array_append(nodes, n);
	json_decref(all);
	reply(c, 200, json_pack("{s:o,s:o}", "nodes", nodes, "figures", view_part(v, "figures", json_object)));
	json_decref(v);
}

/* The node named name in view v's nodes (a reference), or NULL: by the
 * index the cycle published with the view (d->view_nodes), or, for a
 * view published without one (tests), a scan. */
static json_t *view_node(const struct fw_serve *d, json_t *v, const char *name)
{
	json_t *n;
	size_t i;

	if (d->view_nodes)
		return json_incref(json_object_get(d->view_nodes, name));
	json_array_foreach(json_object_get(v, "nodes"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "name")), name))
			return json_incref(n);
	return NULL;
}

static void h_node_get(struct ctx *c)
{
	json_t *v = view_ref(c->d), *found;

	if (no_view_yet(c, v))
		return;
	found = view_node(c->d, v, c->name);
	json_decref(v);
	if (!found)
		return fail(c, 404, "ENOENT", "name", "no node named \"%s\"", c->name);
	reply(c, 200, found);
}

/* How far ahead of the daemon's clock a report's `at` may be (clock skew
 * between a node and the daemon, not a report from the future). */
#define FW_HEALTH_AT_AHEAD_MAX 86400

/* A parsed report (its bad GPUs checked against its node by the codec):
 * suspect only with healthy (suspect = healthy but on probation), and no
 * `at` far in the future. */
static int check_health(const struct fw_health_report *h, struct fw_diag *dg)
{
	char at[FW_TIME_TEXT_MAX], now[FW_TIME_TEXT_MAX], ahead[FW_SPAN_MAX], most[FW_SPAN_MAX];

	if (h->suspect && !h->healthy)
		return fw_diag_set(dg, FW_EINVAL, "", 0, 0, "suspect",
				   "suspect means healthy but on probation: with \"healthy\": false leave it out "
				   "(or report \"healthy\": true)");
	if (h->at > h->received + FW_HEALTH_AT_AHEAD_MAX)
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, "at",
				   "%lld (%s) is %s ahead of the daemon's clock (%s); at most %s ahead is taken",
				   (long long)h->at, fw_utc_format(h->at, at, sizeof at),
				   fw_span_format(h->at - h->received, ahead, sizeof ahead),
				   fw_utc_format(h->received, now, sizeof now),
				   fw_span_format(FW_HEALTH_AT_AHEAD_MAX, most, sizeof most));
	return FW_OK;
}

/* The GPUs of the node named name, or -1 when the daemon knows none: the
 * config's nodes, else the backend's as the last cycle saw them (a Slurm
 * backend's nodes need no `nodes:` list in the config). */
static int node_gpus(struct fw_serve *d, const char *name)
{
	int i = fw_serve_node_index(d, name), gpus = -1;
	json_t *v, *n;
	size_t k;

	if (i >= 0)
		return d->fleet->nodes[i].gpu_count;
	v = view_ref(d);
	json_array_foreach(json_object_get(v, "nodes"), k, n)
		if (!strcmp(json_string_value(json_object_get(n, "name")), name))
			gpus = (int)json_integer_value(json_object_get(n, "gpus"));
	json_decref(v);
	return gpus;
}

#define FW_NO_NODE_HINT "`fairway nodes` lists the nodes the daemon knows"

/* A report that leaves the node no GPU (badGpus lists every one of its
 * gpus) is an unhealthy report, whatever its "healthy" said: the node
 * takes no work and is drained, as the agent's own verdict on a node has
 * it (fw_health_node_view).  The reason says so, before the sender's. */
static void no_gpu_left(struct fw_health_report *h, int gpus)
{
	uint32_t all = gpus >= 32 ? ~0u : (1u << gpus) - 1;
	char was[sizeof h->reason];

	if (gpus <= 0 || !h->healthy || (h->bad_gpu_mask & all) != all)
		return;
	snprintf(was, sizeof was, "%s", h->reason);
	h->healthy = false;
	h->suspect = false;
	snprintf(h->reason, sizeof h->reason, "every GPU bad (%d of %d)%s%.80s", gpus, gpus, was[0] ? ": " : "",
		 was); /* the sender's reason cut to fit: text for people */
}

static void h_node_health(struct ctx *c)
{
	struct fw_serve *d = c->d;
	struct fw_health_report h;
	struct fw_diag dg;
	int rc, i, gpus;

	memset(&h, 0, sizeof h);
	memset(&dg, 0, sizeof dg);
	if ((gpus = node_gpus(d, c->name)) < 0)
		return fail(c, 404, "ENOENT", "node", "no node named \"%s\"; " FW_NO_NODE_HINT, c->name);
	if (!need_body(c))
		return;
	snprintf(h.node, sizeof h.node, "%.*s", (int)sizeof h.node - 1, c->name); /* a name: it fits */
	h.at = h.received = fw_serve_now();
	if ((rc = fw_codec_health_parse_node(c->body, gpus, &h, &dg)) != FW_OK ||
	    (rc = fw_codec_text_check(h.reason, "reason", false, &dg)) != FW_OK || (rc = check_health(&h, &dg)) != FW_OK)
		return fail_diag(c, rc, &dg);
	no_gpu_left(&h, gpus);
	i = fw_serve_health_index(d, h.node);
	fw_history_follow(i >= 0 ? &d->health[i] : NULL, &h); /* the daemon's history, not the body's */
	if (!commit_or_fail(c, fw_store_begin(d->store) ?: fw_serve_save_health(d, &h)))
		return;
	bool changed = true;
	if (i >= 0) {
		changed = d->health[i].healthy != h.healthy || d->health[i].suspect != h.suspect ||
			  d->health[i].bad_gpu_mask != h.bad_gpu_mask;
		d->health[i] = h;
	} else if (fw_serve_grow(&d->health, &d->nhealth, &d->caph, sizeof h)) {
		changed = !h.healthy || h.suspect || h.bad_gpu_mask;
		d->health[d->nhealth - 1] = h;
	}
	if (changed)
		d->gen++; /* a plan in flight may use what is now unhealthy */
	reply(c, 200, fw_codec_health_dump(&h));
}

/* --- reservations ------------------------------------------------------------------------ */
/* A comma list as a JSON array of its items ("" -> []). */
static json_t *comma_list(const char *s)
{
	json_t *a = json_array();

	for (const char *p = s; *p;) {
		size_t n = strcspn(p, ",");
		if (n)
			json_array_append_new(a, json_stringn(p, n));
		p += n + (p[n] == ',');
	}
	return a;
}

/* One of the backend's own reservations (backend.h fw_backend_rsv):
 * kind "backend", read-only, with the cluster's flags. */
static json_t *backend_rsv_dump(const struct fw_serve *d, const struct fw_backend_rsv *r)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:o,s:I,s:I,s:o}", "id", r->name, "kind", "backend", "source",
			      d->bops->name, "readOnly", 1, "nodes", comma_list(r->nodes), "start",
			      (json_int_t)r->start, "end", (json_int_t)r->end, "flags", comma_list(r->flags));

	if (o && r->node_list[0])
		json_object_set_new(o, "nodeList", json_string(r->node_list));
	if (o && r->nodes_cut)
		json_object_set_new(o, "nodesCut", json_true());
	return o;
}

/* The daemon's own: source "fairway". */
static json_t *own_rsv_dump(const struct fw_reservation *r)
{
	json_t *o = fw_codec_reservation_dump(r);

	if (o)
		json_object_set_new(o, "source", json_string("fairway"));
	return o;
}

static const struct fw_backend_rsv *backend_rsv(const struct fw_serve *d, const char *name)
{
	for (int32_t i = 0; i < d->nbrsv; i++)
		if (!strcmp(d->brsv[i].name, name))
			return &d->brsv[i];
	return NULL;
}

/* GET /v1/reservations: those not yet ended, as the job list shows the
 * jobs not yet ended ("endedNotListed" counts the others); ?state=all
 * every one. */
static void h_rsv_list(struct ctx *c)
{
	const char *state = c->rq->query_state;
	bool all = state && !strcmp(state, "all");
	fw_time now = fw_serve_now();
	json_t *a, *o;
	int64_t ended = 0;

	if (state && !all)
		return fail(c, 400, "EINVAL", "state",
			    "must be all (every reservation, the ended ones too), or left out (those not yet ended)");
	a = json_array();
	for (int32_t i = 0; i < c->d->nrsv; i++)
		if (all || c->d->rsv[i].end > now)
			json_array_append_new(a, own_rsv_dump(&c->d->rsv[i]));
		else
			ended++;
	for (int32_t i = 0; i < c->d->nbrsv; i++)
		if (all || c->d->brsv[i].end > now)
			json_array_append_new(a, backend_rsv_dump(c->d, &c->d->brsv[i]));
		else
			ended++;
	o = json_pack("{s:o}", "reservations", a);
	if (o && ended > 0)
		json_object_set_new(o, "endedNotListed", json_integer(ended));
	if (o && c->d->brsv_more > 0) /* past FW_BACKEND_RSV_MAX: said, not hidden */
		json_object_set_new(o, "backendNotListed", json_integer(c->d->brsv_more));
	reply(c, 200, o);
}

static void h_rsv_get(struct ctx *c)
{
	int i = fw_serve_rsv_index(c->d, c->name);
	const struct fw_backend_rsv *b = i < 0 ? backend_rsv(c->d, c->name) : NULL;

	if (b)
		return reply(c, 200, backend_rsv_dump(c->d, b));
	if (i < 0)
		return fail(c, 404, "ENOENT", "name", "no reservation \"%s\"", c->name);
	reply(c, 200, own_rsv_dump(&c->d->rsv[i]));
}

/* A job reservation's job is no remembered job array's name: no job
 * can take that name (name_free), so its nodes would be held for
 * nothing. */
static int check_rsv_job(struct fw_serve *d, const struct fw_reservation *r, struct fw_diag *dg)
{
	json_t *arrays;
	int n;

	if (r->kind != FW_RSV_JOB)
		return FW_OK;
	if (!(arrays = remembered_arrays(d)))
		return fw_diag_set(dg, FW_ENOMEM, "", 0, 0, "", "out of memory");
	n = array_size(arrays, r->job);
	json_decref(arrays);
	if (!n)
		return FW_OK;
	return fw_diag_set(dg, FW_EINVAL, "", 0, 0, "job",
			   "\"%s\" names a job array (%d task%s), not a job, and no job can take its name: reserve "
			   "for one of its tasks (\"job\": \"%s_<index>\", `fairway jobs show %s` or GET /v1/jobs/%s "
			   "lists them), or make a queue reservation (\"kind\": \"queue\") for its queue",
			   r->job, n, n == 1 ? "" : "s", r->job, r->job, r->job);
}

/* It ends in the future, and starts and ends within FW_API_HORIZON_S
 * (10 years) of now: a start in 1970 or an end in 30000 is a typo (a
 * duration given as a Unix time), not a window. */
static int check_rsv_times(const struct fw_reservation *r, fw_time now, struct fw_diag *dg)
{
	bool start_out = r->start < now - FW_API_HORIZON_S || r->start > now + FW_API_HORIZON_S;
	fw_time t = start_out ? r->start : r->end;
	char given[FW_TIME_TEXT_MAX], clock[FW_TIME_TEXT_MAX]; /* the numbers' UTC dates (fairway/span.h) */

	fw_utc_format(now, clock, sizeof clock);
	if (r->end <= now)
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, "end", "%lld (%s) is in the past (the daemon's clock says "
				   "%lld, %s): a reservation must end in the future", (long long)r->end,
				   fw_utc_format(r->end, given, sizeof given), (long long)now, clock);
	if (start_out || r->end > now + FW_API_HORIZON_S)
		return fw_diag_set(dg, FW_ERANGE, "", 0, 0, start_out ? "start" : "end",
				   "%lld (%s) is more than 10 years %s the daemon's clock (%lld, %s): give a Unix time "
				   "within 10 years of now", (long long)t, fw_utc_format(t, given, sizeof given),
				   t < now ? "before" : "after", (long long)now, clock);
	return FW_OK;
}

/* It ends in the future, nodes exist and are listed once, the queue
 * exists, a job's is no job array (check_rsv_job), no node is in two
 * overlapping windows. */
static int check_rsv(struct fw_serve *d, const struct fw_reservation *r, struct fw_diag *dg)
{
	fw_time now = fw_serve_now();
	char f[32];
	int rc;

	if ((rc = check_rsv_times(r, now, dg)) != FW_OK)
		return rc;
	if (r->kind == FW_RSV_QUEUE && fw_serve_queue_index(d, r->queue) < 0)
		return fw_diag_set(dg, FW_EINVAL, "", 0, 0, "queue", "no queue named \"%s\"", r->queue);
	if ((rc = check_rsv_job(d, r, dg)) != FW_OK)
		return rc;
	for (int32_t k = 0; k < r->nnodes; k++) {
		snprintf(f, sizeof f, "nodes[%d]", k);
		if (node_gpus(d, r->nodes[k]) < 0)
			return fw_diag_set(dg, FW_EINVAL, "", 0, 0, f, "no node named \"%s\"; " FW_NO_NODE_HINT,
					   r->nodes[k]);
		for (int32_t m = 0; m < k; m++)
			if (!strcmp(r->nodes[m], r->nodes[k]))
				return fw_diag_set(dg, FW_EINVAL, "", 0, 0, f, "node %s is listed twice (also nodes[%d])",
						   r->nodes[k], m);
		for (int32_t i = 0; i < d->nrsv; i++) {
			const struct fw_reservation *o = &d->rsv[i];
			if (o->end <= r->start || r->end <= o->start)
				continue;
			for (int32_t m = 0; m < o->nnodes; m++)
				if (!strcmp(o->nodes[m], r->nodes[k]))
					return fw_diag_set(dg, FW_EEXIST, "", 0, 0, f,
							   "node %s is already in reservation %s for an overlapping window",
							   r->nodes[k], o->id);
		}
	}
	return FW_OK;
}

static void h_rsv_create(struct ctx *c)
{
	struct fw_serve *d = c->d;
	struct fw_reservation *r = calloc(1, sizeof *r), *slot;
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (!r)
		return fail(c, 500, "ENOMEM", "", "out of memory");
	if (!need_body(c))
		goto out;
	if ((rc = fw_codec_reservation_parse(c->body, r, &dg)) != FW_OK ||
	    (rc = fw_codec_text_check(r->reason, "reason", false, &dg)) != FW_OK) {
		fail_diag(c, rc, &dg);
		goto out;
	}
	bool named = r->id[0] != '\0';
	int64_t n = d->next_rsv;
	/* at most nrsv names are taken: this ends within nrsv + 1 tries */
	for (; !named; n++) {
		snprintf(r->id, sizeof r->id, "rsv-%lld", (long long)n);
		if (fw_serve_rsv_index(d, r->id) < 0 && !backend_rsv(d, r->id))
			break;
	}
	if (fw_serve_rsv_index(d, r->id) >= 0) {
		fail(c, 409, "EEXIST", "id", "a reservation \"%s\" exists", r->id);
		goto out;
	}
	if (backend_rsv(d, r->id)) { /* one name, one reservation in GET /v1/reservations/{name} */
		fail(c, 409, "EEXIST", "id",
		     "the backend has a reservation \"%s\" of its own (listed read-only): choose another id", r->id);
		goto out;
	}
	if ((rc = check_rsv(d, r, &dg)) != FW_OK) {
		fail_diag(c, rc, &dg);
		goto out;
	}
	rc = fw_store_begin(d->store) ?: fw_serve_save_rsv(d, r);
	if (rc == FW_OK && !named)
		rc = fw_store_meta_put(d->store, "next_rsv", n + 1);
	if (!commit_or_fail(c, rc))
		goto out;
	if (!named)
		d->next_rsv = n + 1;
	if ((slot = fw_serve_grow(&d->rsv, &d->nrsv, &d->caprsv, sizeof *slot)))
		*slot = *r;
	d->gen++;
	reply(c, 201, fw_codec_reservation_dump(r));
out:
	free(r);
}

static void h_rsv_delete(struct ctx *c)
{
	struct fw_serve *d = c->d;
	int i = fw_serve_rsv_index(d, c->name);
	const struct fw_backend_rsv *b = i < 0 ? backend_rsv(d, c->name) : NULL;

	if (b)
		return fail(c, 409, "EDECLINED", "name",
			    "reservation \"%s\" is %s's own (read from the backend, read-only here): delete it there "
			    "(%s)", c->name, d->bops->name, b->delete_hint[0] ? b->delete_hint : "with its own tools");
	if (i < 0)
		return fail(c, 404, "ENOENT", "name", "no reservation \"%s\"", c->name);
	if (!commit_or_fail(c, fw_store_begin(d->store) ?: fw_store_del(d->store, FW_STORE_RESERVATIONS, c->name)))
		return;
	memmove(d->rsv + i, d->rsv + i + 1, (size_t)(d->nrsv - i - 1) * sizeof *d->rsv);
	d->nrsv--;
	d->gen++;
	reply(c, 200, json_pack("{s:s}", "deleted", c->name));
}

/* --- cycle results --------------------------------------------------------------------- */
static void h_fairshare(struct ctx *c)
{
	json_t *v = view_ref(c->d);
	reply(c, 200, json_pack("{s:o,s:o}", "queues", view_part(v, "fairshare", json_array), "at",
				view_part(v, "at", json_null)));
	json_decref(v);
}

/* --- the decision log --------------------------------------------------------------- */
static int add_log_row(void *ctx, const struct fw_store_decision *dec)
{
	json_t *o = json_pack("{s:I,s:I,s:I,s:s,s:s,s:s}", "at", (json_int_t)dec->at, "cycle", (json_int_t)dec->cycle,
			      "generation", (json_int_t)dec->generation, "kind", dec->kind, "reason", dec->reason,
			      "text", dec->text);

	if (dec->job[0])
		json_object_set_new(o, "job", json_string(dec->job));
	if (dec->node[0])
		json_object_set_new(o, "node", json_string(dec->node));
	json_array_append_new(ctx, o);
	return 0;
}

/* The decision log's kinds, NULL-terminated, into words (FW_DECIDE_COUNT
 * + 3): the plan's decisions, then the two the daemon logs besides. */
static void log_kinds(const char **words)
{
	int k = 0;

	for (int d = 0; d < FW_DECIDE_COUNT; d++)
		words[k++] = fw_decision_name((enum fw_decision_kind)d);
	words[k++] = FW_SERVE_KIND_TIMEOUT; /* a run-time limit's ending (reason.h) */
	words[k++] = "requeue";             /* the local backend's, at a fleet change */
	words[k] = NULL;
}

static bool log_kind_ok(const char *kind, const char *const *words)
{
	for (int k = 0; words[k]; k++)
		if (!strcmp(kind, words[k]))
			return true;
	return false;
}

/* A whole number from lo to hi in v (a leading '-' only when lo < 0);
 * false when it is not one. */
static bool whole_in(const char *v, long long lo, long long hi, long long *out)
{
	char *end;
	long long n;

	if (!v || !*v || !strchr("0123456789", v[v[0] == '-' && lo < 0]) || !v[v[0] == '-'])
		return false;
	n = strtoll(v, &end, 10);
	if (*end || n < lo || n > hi)
		return false;
	*out = n;
	return true;
}

/* The log's rows into rows, through the reader connection, with the
 * state lock let go meanwhile (the caller holds it, and holds it again
 * after): a 100,000-row read takes about half a second, which neither
 * the cycle nor the other requests wait for.  Nothing of the daemon's
 * state is touched while it is let go. */
static int read_log(struct fw_serve *d, fw_time since, const char *job, const char *kind, int limit, json_t *rows,
		    char *why, size_t n)
{
	int rc;

	pthread_mutex_unlock(&d->mu);
	pthread_mutex_lock(&d->read_mu);
	rc = fw_store_decisions(d->reader, since, job, kind, limit, add_log_row, rows);
	if (rc != FW_OK)
		snprintf(why, n, "%s", fw_store_errmsg(d->reader));
	pthread_mutex_unlock(&d->read_mu);
	pthread_mutex_lock(&d->mu);
	return rc;
}

/* GET /v1/decisions: what the daemon decided and applied, from the
 * decision log (the store's; --log-keep bounds it): the last ?limit=
 * rows (default 100), oldest first, at or after ?since= (a Unix time;
 * -N: N seconds before the daemon's clock, so a client's own clock does
 * not shift the window), of ?job= and of ?kind= (start, evict, timeout,
 * reserve, drain, requeue); "truncated" when more rows match. */
static void h_decisions(struct ctx *c)
{
	const char *job = arg(c, "job"), *kind = arg(c, "kind"), *kinds[FW_DECIDE_COUNT + 3];
	long long since = 0, limit = 100;
	char why[256];
	json_t *rows;

	if (arg(c, "since") && !whole_in(arg(c, "since"), -FW_API_TIME_MAX, FW_API_TIME_MAX, &since))
		return fail(c, 400, "ERANGE", "since",
			    "must be a Unix time in whole seconds, from 0 to %lld, or -N for the last N seconds by the "
			    "daemon's clock (N up to %lld)",
			    (long long)FW_API_TIME_MAX, (long long)FW_API_TIME_MAX);
	if (arg(c, "since") && arg(c, "since")[0] == '-') /* the last -since seconds, by this daemon's clock */
		since = fw_serve_now() + since > 0 ? fw_serve_now() + since : 0;
	if (c->rq->query_limit && !whole_in(c->rq->query_limit, 1, 100000, &limit))
		return fail(c, 400, "ERANGE", "limit", "must be a whole number from 1 to 100000");
	log_kinds(kinds);
	if (kind && !log_kind_ok(kind, kinds))
		return fail_choice(c, "kind", "a kind", kind, kinds,
				   "must be start, evict, timeout, reserve, drain or requeue");
	if (!(rows = json_array()))
		return fail(c, 500, "ENOMEM", "", "out of memory");
	if (read_log(c->d, since, job, kind, (int)limit + 1, rows, why, sizeof why) != FW_OK) {
		json_decref(rows);
		return fail(c, 500, "EIO", "store", "the decision log cannot be read: %s", why);
	}
	json_t *body = json_object();
	if (json_array_size(rows) > (size_t)limit) { /* one more than asked: the oldest goes */
		json_array_remove(rows, 0);
		json_object_set_new(body, "truncated", json_true());
	}
	json_object_set_new(body, "decisions", rows);
	reply(c, 200, body);
}

/* --- the plan ------------------------------------------------------------------ */
/* The words of GET /v1/plan's ?kind=: the decisions' kinds (timeout: a
 * run-time limit's ending, fw_serve_kind_name), and pending for the
 * waiting jobs. */
static const char *const PLAN_KINDS[] = {
#define FW__KIND_WORD(U, l) #l,
	FW_DECISION_MAP(FW__KIND_WORD)
#undef FW__KIND_WORD
	FW_SERVE_KIND_TIMEOUT, "pending", NULL
};

/* GET /v1/plan's filters: an entry is listed when it passes every one
 * given (NULL: not given). */
struct plan_filter {
	const char *kinds;            /* ?kind=: a comma-separated list of
				       * PLAN_KINDS */
	const char *queue, *job;      /* ?queue=, ?job=: exactly; a drain has
				       * neither */
	const char *node;             /* ?node=: the decisions that name it (a
				       * drain's node; a start's, an eviction's
				       * or a reservation's nodes); a waiting
				       * job names none */
	long long limit;              /* ?limit=: at most so many entries of
				       * each list; 0: all */
	bool more;                    /* a list was cut at limit: the answer
				       * says "truncated" */
	const json_t *jobs;           /* the view's jobs by name: a decision's
				       * queue is its job's */
};

/* The request's filters into f; false, the request failed (400 naming
 * the argument), when one is not what it must be. */
static bool plan_args(struct ctx *c, struct plan_filter *f)
{
	char bad[64];

	memset(f, 0, sizeof *f);
	f->kinds = arg(c, "kind");
	f->queue = arg(c, "queue");
	f->job = arg(c, "job");
	f->node = arg(c, "node");
	if (f->kinds && unknown_word(f->kinds, PLAN_KINDS, bad, sizeof bad)) {
		fail_word(c, "kind", "kind", bad, PLAN_KINDS);
		return false;
	}
	if (c->rq->query_limit && !whole_in(c->rq->query_limit, 1, 100000, &f->limit)) {
		fail(c, 400, "ERANGE", "limit", "must be a whole number from 1 to 100000");
		return false;
	}
	return true;
}

/* Room in the list out for one more entry?  When not, it is cut. */
static bool plan_room(struct plan_filter *f, const json_t *out)
{
	if (!f->limit || json_array_size(out) < (size_t)f->limit)
		return true;
	f->more = true;
	return false;
}

/* have (NULL or "": none) is want, or nothing is wanted. */
static bool same(const char *want, const char *have)
{
	return !want || (have && *have && !strcmp(want, have));
}

/* Does decision x (a view entry) name node? */
static bool touches(const json_t *x, const char *node)
{
	const json_t *n;
	size_t i;

	if (same(node, json_string_value(json_object_get(x, "node"))))
		return true;
	json_array_foreach(json_object_get(x, "nodes"), i, n)
		if (same(node, json_string_value(n)))
			return true;
	return false;
}

static bool decision_ok(const struct plan_filter *f, const json_t *x)
{
	const char *job = json_string_value(json_object_get(x, "job"));
	const char *kind = json_string_value(json_object_get(x, "kind"));
	const json_t *j = f->queue && job ? json_object_get(f->jobs, job) : NULL;

	return (!f->kinds || (kind && in_list(f->kinds, kind))) && same(f->job, job) &&
	       same(f->queue, json_string_value(json_object_get(j, "queue"))) && (!f->node || touches(x, f->node));
}

/* The plan's decisions (all) that pass f, in its order, at most
 * f->limit: all itself when nothing leaves one out. */
static json_t *plan_decisions(struct plan_filter *f, json_t *all)
{
	json_t *out, *x;
	size_t i;

	if (!f->kinds && !f->queue && !f->job && !f->node && (!f->limit || json_array_size(all) <= (size_t)f->limit))
		return json_incref(all);
	out = json_array();
	json_array_foreach(all, i, x) {
		if (!decision_ok(f, x))
			continue;
		if (!plan_room(f, out))
			break;
		json_array_append(out, x);
	}
	return out;
}

/* Is the view's job j one the plan leaves waiting that passes f's queue? */
static bool waits(const struct plan_filter *f, const json_t *j)
{
	const char *state = json_string_value(json_object_get(j, "state"));

	return state && !strcmp(state, "pending") && same(f->queue, json_string_value(json_object_get(j, "queue")));
}

/* The jobs of view v the plan leaves waiting that pass f, in its order,
 * at most f->limit; ?job= is one lookup, not a walk of every job. */
static json_t *plan_pending(struct plan_filter *f, json_t *v)
{
	json_t *out = json_array(), *jobs = json_object_get(v, "jobs"), *name, *j;
	size_t i;

	if (f->node || (f->kinds && !in_list(f->kinds, "pending")))
		return out; /* a waiting job names no node */
	if (f->job) {
		if (waits(f, j = json_object_get(jobs, f->job)))
			json_array_append(out, j);
		return out;
	}
	json_array_foreach(json_object_get(v, "jobOrder"), i, name) {
		if (!waits(f, j = json_object_get(jobs, json_string_value(name))))
			continue;
		if (!plan_room(f, out))
			break;
		json_array_append(out, j);
	}
	return out;
}

/* GET /v1/plan: the last plan's decisions and waiting jobs, as plan_args'
 * filters narrow them; its cycle, time, generation, take and fair share
 * stay whole. */
/* Is q a queue of the plan v (its fair share) or of the daemon now? */
static bool plan_queue(const struct fw_serve *d, json_t *v, const char *q)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(v, "fairshare"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "queue")), q))
			return true;
	return fw_serve_queue_index(d, q) >= 0;
}

/* ?queue= and ?node= name a queue and a node the daemon or its last plan
 * has (a misspelt one answered an empty 200; squeue -p nosuch fails):
 * false once refused.  ?job= stays free: a job may have ended since. */
static bool plan_names_known(struct ctx *c, const struct plan_filter *f, json_t *v)
{
	json_t *n;

	if (f->queue && !plan_queue(c->d, v, f->queue))
		return fail(c, 400, "ENOENT", "queue", "no queue named \"%.100s\"; `fairway queues` lists them",
			    f->queue), false;
	if (f->node && !(n = view_node(c->d, v, f->node)))
		return fail(c, 400, "ENOENT", "node", "no node named \"%.100s\"; `fairway nodes` lists them",
			    f->node), false;
	if (f->node)
		json_decref(n);
	return true;
}

static void h_plan(struct ctx *c)
{
	struct plan_filter f;
	json_t *v, *body;

	if (!plan_args(c, &f))
		return;
	v = view_ref(c->d);
	if (no_view_yet(c, v))
		return;
	if (!plan_names_known(c, &f, v))
		return (void)json_decref(v);
	f.jobs = json_object_get(v, "jobs");
	body = json_pack("{s:O,s:O,s:O,s:O,s:o,s:o,s:O}", "cycle", json_object_get(v, "cycle"), "at",
			 json_object_get(v, "at"), "generation", json_object_get(v, "generation"), "seconds",
			 json_object_get(v, "seconds"), "decisions", plan_decisions(&f, json_object_get(v, "decisions")),
			 "pending", plan_pending(&f, v), "fairshare", json_object_get(v, "fairshare"));
	if (f.more)
		json_object_set_new(body, "truncated", json_true());
	reply(c, 200, body);
	json_decref(v);
}

/* --- dispatch ---------------------------------------------------------------------------- */
/* Match "/v1/jobs/{name}" against a path; fills name (FW_PATH_NAME_MAX
 * bytes) with the segment as it stands, cut when longer, and *len with
 * its whole length: the dispatcher checks it. */
static bool match(const char *pat, const char *path, char *name, size_t *len)
{
	while (*pat && *path) {
		if (!strncmp(pat, "{name}", 6)) {
			size_t n = strcspn(path, "/"), keep = n < FW_PATH_NAME_MAX ? n : FW_PATH_NAME_MAX - 1;
			if (n == 0)
				return false;
			memcpy(name, path, keep);
			name[keep] = '\0';
			*len = n;
			path += n;
			pat += 6;
			continue;
		}
		if (*pat++ != *path++)
			return false;
	}
	return !*pat && !*path;
}

/* "Bearer <tok>"?  The scheme in any case and one or more spaces after
 * it (RFC 7235: "bearer", "BEARER" are the same scheme).  Constant time
 * in the token's bytes; an empty token (none loaded) matches nothing. */
static bool token_is(const char *tok, const char *auth)
{
	size_t n = strlen(tok);
	unsigned diff = 0;

	if (!n || !auth || strncasecmp(auth, "Bearer ", 7))
		return false;
	for (auth += 7; *auth == ' ';)
		auth++;
	if (strlen(auth) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned)(auth[i] ^ tok[i]);
	return diff == 0;
}

/* May this request call a route of this kind?  Fails it (401, 403) when
 * not. */
static bool allowed(struct ctx *c, enum auth need)
{
	const char *auth = c->rq->auth;
	bool admin, agent;

	if (need == OPEN)
		return true;
	admin = token_is(c->d->token, auth);
	agent = token_is(c->d->agent_token, auth);
	if (admin || (agent && need == HEALTH))
		return true;
	if (agent)
		fail(c, 403, "EPERM", "Authorization",
		     "the agent token may only report node health (POST /v1/nodes/{name}/health); this endpoint "
		     "needs the token from the daemon's --token-file");
	else {
		fail(c, 401, "EACCES", "Authorization",
		     "this endpoint changes state: send 'Authorization: Bearer <token>' with the token from "
		     "the daemon's --token-file");
		c->rs->challenge = true;
	}
	return false;
}

/* The path's {name}, if it has one, is a name (codec.h): a segment such
 * as ".." or one holding an encoded '/' ("%2F", which the HTTP layer
 * leaves encoded) never reaches a handler.  Fails it (400) when not. */
static bool name_ok(struct ctx *c, const char *pattern)
{
	struct fw_diag dg;
	int rc;

	if (!strstr(pattern, "{name}"))
		return true;
	if (c->name_len >= FW_NAME_MAX) {
		fail(c, 400, "ERANGE", "name", "the name in the URL path is longer than %d characters (it has %zu): "
		     "a name is 1 to %d letters, digits, '-', '_' and '.'", FW_NAME_MAX - 1, c->name_len,
		     FW_NAME_MAX - 1);
		return false;
	}
	memset(&dg, 0, sizeof dg);
	if ((rc = fw_codec_name_check(c->name, "name", &dg)) == FW_OK)
		return true;
	fail(c, 400, fw_err_name(rc), "name", "\"%.80s\" in the URL path is not a name: %s", c->name, dg.msg);
	return false;
}

/* The first query parameter the request gives that r does not take
 * (r->query), or NULL: state and limit, which the HTTP layer hands over
 * apart, then the others. */
static const char *unknown_param(const struct ctx *c, const struct route *r)
{
	if (c->rq->query_state && !in_list(r->query, "state"))
		return "state";
	if (c->rq->query_limit && !in_list(r->query, "limit"))
		return "limit";
	for (const char *const *kv = c->rq->args; kv && kv[0]; kv += 2)
		if (!in_list(r->query, kv[0]))
			return kv[0];
	return NULL;
}

/* Every query parameter of the request is one the route takes: a
 * misspelt one (?dryrun=true) or one the route does not have would
 * otherwise be ignored and the call made as if it were not there.  Fails
 * it (400 naming the parameter, and what the route takes) when not. */
static bool query_ok(struct ctx *c, const struct route *r)
{
	const char *bad = unknown_param(c, r);
	char key[72];

	if (!bad)
		return true;
	if (r->query[0])
		fail(c, 400, "EINVAL", printable(bad, key, sizeof key),
		     "unknown query parameter; %s %s takes only %s (the names are case-sensitive)", r->method, r->path,
		     r->query);
	else
		fail(c, 400, "EINVAL", printable(bad, key, sizeof key),
		     "unknown query parameter; %s %s takes none (its input is the path%s)", r->method, r->path,
		     r->body == NOBODY ? " alone" : " and the JSON body");
	return false;
}

/* The media type of a Content-Type value, lower case, without its
 * parameters ("Application/JSON; charset=utf-8" -> "application/json"). */
static void media_type(const char *v, char *out, size_t n)
{
	size_t k = 0;

	while (*v == ' ' || *v == '\t')
		v++;
	for (; *v && *v != ';' && *v != ' ' && *v != '\t' && k + 1 < n; v++)
		out[k++] = (char)(*v >= 'A' && *v <= 'Z' ? *v - 'A' + 'a' : *v);
	out[k] = '\0';
}

/* The request's body is one the route takes (enum body): none for a
 * NOBODY route (400 naming body), else JSON by its Content-Type, when
 * it gives one (415 naming Content-Type). */
static bool body_ok(struct ctx *c, const struct route *r)
{
	char type[64], shown[72];

	if (r->body == NOBODY) {
		if (c->rq->body_len == 0)
			return true;
		fail(c, 400, "EINVAL", "body", "%s %s takes no body (its input is the path%s); send the request "
		     "without one", r->method, r->path, r->query[0] ? " and the query" : "");
		return false;
	}
	if (!c->rq->content_type)
		return true;
	media_type(c->rq->content_type, type, sizeof type);
	if (!strcmp(type, "application/json") || !strcmp(type, "application/x-www-form-urlencoded") ||
	    (r->body == MERGE && !strcmp(type, "application/merge-patch+json")))
		return true;
	fail(c, 415, "EMEDIATYPE", "Content-Type", "%s is not a type %s %s reads; send the body as JSON with "
	     "Content-Type: application/json%s", printable(c->rq->content_type, shown, sizeof shown), r->method,
	     r->path, r->body == MERGE ? " (or application/merge-patch+json)" : "");
	return false;
}

/* The methods the routes of path take, for a 405's Allow header: in
 * route-table order, and HEAD after GET (fw_api_handle answers it). */
static void allow_list(const char *path, char *buf, size_t n)
{
	char name[FW_PATH_NAME_MAX];
	size_t at = 0, len;

	buf[0] = '\0';
	for (int i = 0; i < NROUTES && at < n; i++) {
		if (!match(routes[i].path, path, name, &len))
			continue;
		at += (size_t)snprintf(buf + at, n - at, "%s%s%s", at ? ", " : "", routes[i].method,
				       strcmp(routes[i].method, "GET") ? "" : ", HEAD");
	}
}

/* The route of method and path (its {name} into name, its length into
 * *len), or NULL; *known
 * says whether some route has that path. */
static const struct route *route_of(const char *method, const char *path, char *name, size_t *len, bool *known)
{
	*known = false;
	for (int i = 0; i < NROUTES; i++) {
		if (!match(routes[i].path, path, name, len))
			continue;
		*known = true;
		if (!strcmp(routes[i].method, method))
			return &routes[i];
	}
	return NULL;
}

/* The route path a 404's path was probably meant to be, or NULL: the
 * path with the /v1 it lacks or should not have (/health is /v1/health,
 * /v1/metrics /metrics), else the fixed path it, or it with /v1, is a
 * typo of (fw_cli_nearest: /v1/job is /v1/jobs, /healthz /v1/health).
 * Paths with a {name} are left out: no guess at a name. */
static const char *route_near(const char *path)
{
	const char *paths[NROUTES + 1], *near;
	const char *bare = strncmp(path, "/v1/", 4) ? NULL : path + 3;
	char v1[64];
	int n = 0;

	for (int i = 0; i < NROUTES; i++)
		if (!strchr(routes[i].path, '{') && (!n || strcmp(paths[n - 1], routes[i].path)))
			paths[n++] = routes[i].path;
	paths[n] = NULL;
	snprintf(v1, sizeof v1, "/v1%.58s", path);
	for (int k = 0; k < n; k++)
		if ((!bare && !strcmp(paths[k], v1)) || (bare && !strcmp(paths[k], bare)))
			return paths[k];
	if ((near = fw_cli_nearest(path, paths)) || bare)
		return near;
	return fw_cli_nearest(v1, paths);
}

/* 404 for a path no route has: the route it is probably, and where the
 * routes are listed (an operator's curl of /health or / lands here). */
static void fail_no_route(struct ctx *c, const char *path)
{
	const char *near = route_near(path);

	fail(c, 404, "ENOROUTE", "path",
	     "no such endpoint: %s%s%s%s; the API's paths begin /v1 (GET /v1/health, /v1/jobs, /v1/queues, /v1/nodes, "
	     "/v1/plan, ...) and the metrics are GET /metrics: `fairway serve --routes` lists every route, "
	     "docs/openapi.yaml describes them", path, near ? " (did you mean " : "", near ? near : "",
	     near ? "?)" : "");
}

/* A route answered without the state lock: GET /v1/health reads only
 * what the cycle published for it (d->pub), so a health probe does not
 * wait for a cycle's hold of mu.  The checks before a handler (auth,
 * name, query, body) read only the request and the daemon's constants. */
static bool lock_free(const struct route *r)
{
	return r && r->fn == h_health;
}

void fw_api_handle(struct fw_serve *d, const struct fw_api_req *rq, struct fw_api_resp *rs)
{
	struct ctx c = { d, rq, rs, "", 0, NULL, NULL };
	/* HEAD is GET without the body, which libmicrohttpd leaves out */
	const char *method = strcmp(rq->method, "HEAD") ? rq->method : "GET";
	bool path_known;
	const struct route *r = route_of(method, rq->path, c.name, &c.name_len, &path_known);
	bool locked = !lock_free(r);

	memset(rs, 0, sizeof *rs);
	if (locked)
		pthread_mutex_lock(&d->mu);
	d->m.http_requests++;
	if (r) {
		if (allowed(&c, r->auth) && name_ok(&c, r->path) && query_ok(&c, r) && body_ok(&c, r))
			r->fn(&c);
	} else if (path_known) {
		char allow[sizeof rs->allow];
		allow_list(rq->path, allow, sizeof allow); /* the message says them too: not every client shows headers */
		fail(&c, 405, "EMETHOD", "method", "%s is not allowed on %s; it takes %s (docs/openapi.yaml)", rq->method,
		     rq->path, allow);
		memcpy(rs->allow, allow, sizeof rs->allow);
	} else {
		fail_no_route(&c, rq->path);
	}
	if (rs->status >= 400)
		d->m.http_errors++;
	if (locked)
		pthread_mutex_unlock(&d->mu);
	serialise(&c);
	json_decref(c.body);
}
