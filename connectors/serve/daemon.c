/*
 * daemon.c — the service's life: load the config, open the store and the
 * backend, restore the model, start the HTTP server and the cycle thread,
 * stop cleanly on SIGINT/SIGTERM.  The cycle itself is in cycle.c.
 *
 * Phases of fw_serve_run(): config, lock, token, store, model, backend,
 * http, cycle thread, wait, teardown.
 *
 * One daemon per state directory: it holds an exclusive flock(2) on
 * STATE_DIR/lock (which holds its PID) for its whole life, so a second
 * one on the same directory refuses to start, naming the PID, rather than
 * double-book the fleet.  The kernel drops the lock when the process
 * ends, however it ends: the file a killed daemon leaves behind blocks
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_ranges.h"
#include "fwconfig.h"
#include "local.h"
#include "serve_int.h"

void *fw_serve_cycle_thread(void *arg); /* cycle.c */

static fw_time (*serve_clock)(void); /* NULL: the wall clock */

fw_time fw_serve_now(void)
{
	return serve_clock ? serve_clock() : (fw_time)time(NULL);
}

void fw_serve_set_clock(fw_time (*clock)(void))
{
	serve_clock = clock;
}

void *fw_serve_grow(void *arrp, int32_t *n, int32_t *cap, size_t elem)
{
	void **arr = arrp;
	if (*n == *cap) {
		int32_t nc = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, (size_t)nc * elem);
		if (!p)
			return NULL;
		*arr = p;
		*cap = nc;
	}
	char *slot = (char *)*arr + (size_t)(*n)++ * elem;
	memset(slot, 0, elem);
	return slot;
}

int fw_serve_queue_index(const struct fw_serve *d, const char *name)
{
	for (int32_t i = 0; i < d->nqueues; i++)
		if (!strcmp(d->queues[i].name, name))
			return i;
	return -1;
}

int fw_serve_rsv_index(const struct fw_serve *d, const char *id)
{
	for (int32_t i = 0; i < d->nrsv; i++)
		if (!strcmp(d->rsv[i].id, id))
			return i;
	return -1;
}

int fw_serve_health_index(const struct fw_serve *d, const char *node)
{
	for (int32_t i = 0; i < d->nhealth; i++)
		if (!strcmp(d->health[i].node, node))
			return i;
	return -1;
}

int fw_serve_node_index(const struct fw_serve *d, const char *node)
{
	return fw_snapshot_find_node(d->fleet, node);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct fw_queue_spec *)x)->name, ((const struct fw_queue_spec *)y)->name);
}

/* The sub-queues of parent ("" for the top level), each followed by its
 * own, depth first; q is in name order, so siblings are too. */
static void put_children(const struct fw_queue_spec *q, int32_t n, const char *parent, bool *done,
			 struct fw_queue_spec *out, int32_t *k)
{
	for (int32_t i = 0; i < n; i++) {
		if (done[i] || strcmp(q[i].parent, parent))
			continue;
		out[(*k)++] = q[i];
		done[i] = true;
		put_children(q, n, q[i].name, done, out, k);
	}
}

/* Tree order: each top-level queue by name, followed by its sub-queues
 * (depth first, siblings by name).  Parents come before children (the
 * core expects a queue's parent at a lower index), and the order depends
 * only on the names and parents, never on the order queues were created
 * or read back from the store: GET /v1/queues lists the same before and
 * after a restart.  Queues caught in a parent cycle, or under an unknown
 * parent, go last, by name, for validation to name. */
int fw_serve_queue_order(struct fw_queue_spec *q, int32_t n)
{
	struct fw_queue_spec *out = calloc((size_t)n + 1, sizeof *out);
	bool *done = calloc((size_t)n + 1, sizeof *done);
	int32_t k = 0;

	if (!out || !done) {
		free(out);
		free(done);
		return FW_ENOMEM;
	}
	if (n > 1)
		qsort(q, (size_t)n, sizeof *q, by_name);
	put_children(q, n, "", done, out, &k);
	for (int32_t i = 0; i < n; i++)
		if (!done[i])
			out[k++] = q[i];
	if (n > 0) /* no queues (a config without any, or all deleted): q may be NULL */
		memcpy(q, out, (size_t)n * sizeof *q);
	free(out);
	free(done);
	return FW_OK;
}

/* Queue i's GPU model limits and deserved GPUs of a model, into s's
 * tables beside the queues; FW_OK or FW_ENOMEM. */
static int add_model_tables(struct fw_snapshot *s, const struct fw_queue_spec *q, int32_t i)
{
	for (int32_t k = 0; k < q->nmodel_limits; k++) {
		struct fw_model_limit m = { .queue = i, .gpus = q->model_limits[k].gpus };
		memcpy(m.model, q->model_limits[k].model, sizeof m.model);
		if (fw_snapshot_add_model_limit(s, &m) < 0)
			return FW_ENOMEM;
	}
	for (int32_t k = 0; k < q->nmodel_deserved; k++) {
		struct fw_model_limit m = { .queue = i, .gpus = q->model_deserved[k].gpus };
		memcpy(m.model, q->model_deserved[k].model, sizeof m.model);
		if (fw_snapshot_add_model_deserved(s, &m) < 0)
			return FW_ENOMEM;
	}
	return FW_OK;
}

/* The policy half of a snapshot: config (its times Unix time), topology,
 * queues, now. */
struct fw_snapshot *fw_serve_skeleton(struct fw_serve *d, const struct fw_queue_spec *qs, int32_t nq, fw_time now)
{
	struct fw_snapshot *s = fw_snapshot_new();

	if (!s)
		return NULL;
	s->now = now;
	s->config = d->fleet->config;
	s->config.utc_times = true; /* now is Unix time (fw_serve_now): texts write UTC dates */
	s->topology = d->fleet->topology;
	for (int32_t i = 0; i < nq; i++) {
		struct fw_queue q;
		fw_queue_init(&q);
		snprintf(q.name, sizeof q.name, "%s", qs[i].name);
		q.priority = qs[i].priority;
		q.deserved = qs[i].deserved;
		q.limit = qs[i].limit;
		for (int r = 0; r < FW_RES_COUNT; r++)
			q.over_quota_weight[r] = qs[i].weight[r];
		q.min_runtime_s = qs[i].min_runtime_s;
		q.default_runtime_s = qs[i].default_runtime_s;
		q.max_runtime_s = qs[i].max_runtime_s;
		q.default_checkpoint_s = qs[i].default_checkpoint_s;
		q.gpu_hour_budget = qs[i].gpu_hour_budget;
		q.nonpreemptible = qs[i].nonpreemptible;
		q.usage = qs[i].usage;
		q.usage_at = qs[i].usage_at;
		q.parent = -2; /* resolved below */
		if (fw_snapshot_add_queue(s, &q) < 0) {
			fw_snapshot_free(s);
			return NULL;
		}
		if (add_model_tables(s, &qs[i], i) < 0) {
			fw_snapshot_free(s);
			return NULL;
		}
	}
	for (int32_t i = 0; i < nq; i++) {
		s->queues[i].parent = -1;
		if (qs[i].parent[0])
			s->queues[i].parent = fw_snapshot_find_queue(s, qs[i].parent);
		if (qs[i].parent[0] && s->queues[i].parent < 0)
			s->queues[i].parent = nq; /* out of range: validation names it */
	}
	return s;
}

/* --- persistence of the model ------------------------------------------------ */
static int put_doc(struct fw_serve *d, enum fw_store_doc t, const char *key, json_t *o)
{
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	int rc = s ? fw_store_put(d->store, t, key, s) : FW_ENOMEM;
	free(s);
	json_decref(o);
	return rc;
}

int fw_serve_save_queue(struct fw_serve *d, const struct fw_queue_spec *q)
{
	return put_doc(d, FW_STORE_QUEUES, q->name, fw_codec_queue_dump(q));
}

int fw_serve_save_rsv(struct fw_serve *d, const struct fw_reservation *r)
{
	return put_doc(d, FW_STORE_RESERVATIONS, r->id, fw_codec_reservation_dump(r));
}

int fw_serve_save_health(struct fw_serve *d, const struct fw_health_report *h)
{
	return put_doc(d, FW_STORE_HEALTH, h->node, fw_codec_health_dump(h));
}

static void user_key(const struct fw_user_use *u, char key[2 * FW_NAME_MAX])
{
	snprintf(key, 2 * FW_NAME_MAX, "%s/%s", u->queue, u->user);
}

int fw_serve_save_user(struct fw_serve *d, const struct fw_user_use *u)
{
	char key[2 * FW_NAME_MAX];

	user_key(u, key);
	return put_doc(d, FW_STORE_USERS, key, fw_codec_user_use_dump(u));
}

int fw_serve_forget_user(struct fw_serve *d, const struct fw_user_use *u)
{
	char key[2 * FW_NAME_MAX];
	int rc;

	user_key(u, key);
	rc = fw_store_del(d->store, FW_STORE_USERS, key);
	return rc == FW_ENOENT ? FW_OK : rc; /* never saved: nothing to forget */
}

/* --- rollback ------------------------------------------------------------------ */
/* A request's or a cycle's transaction failed: roll it back, and with it
 * what the backend wrote into it, which reload() re-reads from the store.
 * A reload that fails leaves the backend marked out of step, and
 * fw_serve_backend_ready() tries again before the backend's next use. */
void fw_serve_rollback(struct fw_serve *d)
{
	char err[640];

	fw_store_rollback(d->store);
	if (!d->bops->reload)
		return;
	d->backend_stale = true;
	if (fw_serve_backend_ready(d, err, sizeof err) != FW_OK)
		fprintf(stderr, "fairway serve: %s (tried again before the backend is used)\n", err);
}

int fw_serve_backend_ready(struct fw_serve *d, char *err, size_t errn)
{
	struct fw_diag dg;
	char m[512];
	int rc;

	if (!d->backend_stale)
		return FW_OK;
	memset(&dg, 0, sizeof dg);
	if ((rc = d->bops->reload(d->be, &dg)) == FW_OK) {
		d->backend_stale = false;
		return FW_OK;
	}
	fw_diag_format(&dg, m, sizeof m);
	snprintf(err, errn, "after a failed write the %s backend cannot re-read its state from the store: %s",
		 d->bops->name, m);
	return rc;
}

/* --- restore ------------------------------------------------------------------- */
/* A queue a store written before the API took at most 6 decimals keeps
 * with more (fw_codec_queue_round_fine) comes back rounded, with one line
 * on stderr naming the queue and the fields: nothing stored is lost, and
 * the site learns the value it runs with. */
static void round_stored_queue(json_t *o, const char *key)
{
	char what[512];

	if (fw_codec_queue_round_fine(o, what, sizeof what))
		fprintf(stderr,
			"fairway serve: warning: queue \"%s\" in the store has more than 6 decimals: %s; restored "
			"rounded, as the API now takes it: to keep another value set it (fairway queues set %s, or "
			"PATCH /v1/queues/%s)\n",
			key, what, key, key);
}

/* A restore of the model's tables (restore_model): the daemon, the
 * table being read, and why a row was refused ("queue q: limit: ..."). */
struct restore {
	struct fw_serve *d;
	const char *table;
	char why[512];
};

/* Refuse row key of the table r reads (what: "queue", "node"...) as its
 * parser's diag dg says; rc (FW_EINVAL when the parser said nothing). */
static int refuse_row(struct restore *r, const char *what, const char *key, int rc, const struct fw_diag *dg)
{
	if (dg->msg[0])
		snprintf(r->why, sizeof r->why, "%s %.63s: %.60s: %.300s", what, key, dg->field[0] ? dg->field : "(document)",
			 dg->msg);
	else
		snprintf(r->why, sizeof r->why, "%s %.63s: %s", what, key, rc == FW_ENOMEM ? "out of memory" :
			 "not a JSON object");
	return rc ? rc : FW_EINVAL;
}

static int restore_queue(void *ctx, const char *key, const char *doc)
{
	struct restore *r = ctx;
	struct fw_serve *d = r->d;
	json_t *o = json_loads(doc, 0, NULL);
	struct fw_queue_spec *q = json_is_object(o) ? fw_serve_grow(&d->queues, &d->nqueues, &d->capq, sizeof *q) : NULL;
	struct fw_diag dg;
	int rc = json_is_object(o) ? FW_ENOMEM : FW_EINVAL;

	memset(&dg, 0, sizeof dg);
	if (q) {
		round_stored_queue(o, key);
		rc = fw_codec_queue_parse(o, key, q, &dg);
	}
	json_decref(o);
	return rc ? refuse_row(r, "queue", key, rc, &dg) : FW_OK;
}
static int user_use_cmp(const void *a, const void *b)
{
	const struct fw_user_use *x = a, *y = b;
	int c = strcmp(x->queue, y->queue);
	return c ? c : strcmp(x->user, y->user);
}

static int restore_user(void *ctx, const char *key, const char *doc)
{
	struct restore *r = ctx;
	struct fw_serve *d = r->d;
	json_t *o = json_loads(doc, 0, NULL);
	struct fw_user_use *u = json_is_object(o) ? fw_serve_grow(&d->users, &d->nusers, &d->capu, sizeof *u) : NULL;
	struct fw_diag dg;
	int rc = !json_is_object(o) ? FW_EINVAL : u ? FW_OK : FW_ENOMEM;

	/* "QUEUE/USER": the document says both; store order is theirs */
	memset(&dg, 0, sizeof dg);
	if (u)
		rc = fw_codec_user_use_parse(o, u, &dg);
	json_decref(o);
	return rc ? refuse_row(r, "user usage", key, rc, &dg) : FW_OK;
}

static int restore_rsv(void *ctx, const char *key, const char *doc)
{
	struct restore *r = ctx;
	struct fw_serve *d = r->d;
	json_t *o = json_loads(doc, 0, NULL);
	struct fw_reservation *rv = json_is_object(o) ? fw_serve_grow(&d->rsv, &d->nrsv, &d->caprsv, sizeof *rv) : NULL;
	struct fw_diag dg;
	int rc = !json_is_object(o) ? FW_EINVAL : rv ? FW_OK : FW_ENOMEM;

	memset(&dg, 0, sizeof dg);
	if (rv)
		rc = fw_codec_reservation_parse(o, rv, &dg);
	json_decref(o);
	return rc ? refuse_row(r, "reservation", key, rc, &dg) : FW_OK;
}

static int restore_health(void *ctx, const char *key, const char *doc)
{
	struct restore *r = ctx;
	struct fw_serve *d = r->d;
	json_t *o = json_loads(doc, 0, NULL);
	struct fw_health_report *h = json_is_object(o) ? fw_serve_grow(&d->health, &d->nhealth, &d->caph, sizeof *h) : NULL;
	struct fw_diag dg;
	int rc = !json_is_object(o) ? FW_EINVAL : h ? FW_OK : FW_ENOMEM;

	memset(&dg, 0, sizeof dg);
	if (h) {
		snprintf(h->node, sizeof h->node, "%s", key);
		rc = fw_codec_health_parse(o, h, &dg);
		h->received = fw_serve_now(); /* a grace period after a restart */
	}
	json_decref(o);
	return rc ? refuse_row(r, "node", key, rc, &dg) : FW_OK;
}

/* Queue i's entries of the config's table t (model_limits,
 * model_deserved) into the spec's, which holds at most cap (the API's
 * bound): more are refused, naming the queue and the key (err). */
static int seed_model_table(const struct fw_snapshot *f, const struct fw_model_limit *t, int32_t n, int32_t i,
			    const char *key, int32_t cap, struct fw_spec_model_limit *out, int32_t *nout, char *err,
			    size_t errn)
{
	for (int32_t k = 0; k < n; k++) {
		if (t[k].queue != i)
			continue;
		if (*nout == cap) {
			snprintf(err, errn, "queue %s has more than %d %s, and fairway serve keeps at most %d a queue: "
				 "name fewer GPU models on it (or on a parent queue)", f->queues[i].name, (int)cap, key,
				 (int)cap);
			return FW_ERANGE;
		}
		memcpy(out[*nout].model, t[k].model, sizeof out[*nout].model);
		out[(*nout)++].gpus = t[k].gpus;
	}
	return FW_OK;
}

/* Config queue i as the API's spec, usage aside: what the first start
 * stores.  A queue with more GPU model limits or deserved GPUs of a
 * model than the API keeps is refused, naming it (err). */
static int queue_of_config(const struct fw_snapshot *f, int32_t i, struct fw_queue_spec *q, char *err, size_t errn)
{
	const struct fw_queue *fq = &f->queues[i];
	int rc;

	memset(q, 0, sizeof *q);
	snprintf(q->name, sizeof q->name, "%s", fq->name);
	if (fq->parent >= 0)
		snprintf(q->parent, sizeof q->parent, "%s", f->queues[fq->parent].name);
	q->priority = fq->priority;
	q->deserved = fq->deserved;
	q->limit = fq->limit;
	for (int r = 0; r < FW_RES_COUNT; r++)
		q->weight[r] = fq->over_quota_weight[r];
	q->min_runtime_s = fq->min_runtime_s;
	q->default_runtime_s = fq->default_runtime_s;
	q->max_runtime_s = fq->max_runtime_s;
	q->default_checkpoint_s = fq->default_checkpoint_s;
	q->gpu_hour_budget = fq->gpu_hour_budget;
	q->nonpreemptible = fq->nonpreemptible;
	if ((rc = seed_model_table(f, f->model_limits, f->nmodel_limits, i, "gpuModelLimits", FW_API_MODEL_LIMITS,
				   q->model_limits, &q->nmodel_limits, err, errn)))
		return rc;
	return seed_model_table(f, f->model_deserved, f->nmodel_deserved, i, "gpuModelDeserved",
				FW_API_MODEL_DESERVED, q->model_deserved, &q->nmodel_deserved, err, errn);
}

/* First start: the config's queues become the store's (queue_of_config),
 * each with its usage decayed to now. */
static int seed_queues(struct fw_serve *d, char *err, size_t errn)
{
	const struct fw_snapshot *f = d->fleet;
	int rc = FW_OK;

	for (int32_t i = 0; i < f->nqueues && rc == FW_OK; i++) {
		const struct fw_queue *fq = &f->queues[i];
		struct fw_queue_spec *q = fw_serve_grow(&d->queues, &d->nqueues, &d->capq, sizeof *q);
		if (!q)
			return FW_ENOMEM;
		if ((rc = queue_of_config(f, i, q, err, errn)))
			return rc;
		q->usage = fw_usage_decay(fq->usage, fq->usage_at, f->now, f->config.usage_half_life_s); /* as users' */
		q->usage_at = fw_serve_now();
		rc = fw_serve_save_queue(d, q);
	}
	for (int32_t k = 0; k < f->nuser_usage && rc == FW_OK; k++) { /* the config's userUsage */
		const struct fw_user_usage *x = &f->user_usage[k];
		struct fw_user_use *u = fw_serve_grow(&d->users, &d->nusers, &d->capu, sizeof *u);
		if (!u)
			return FW_ENOMEM;
		snprintf(u->queue, sizeof u->queue, "%s", f->queues[x->queue].name);
		memcpy(u->user, x->user, sizeof u->user);
		u->usage = fw_usage_decay(x->usage, x->usage_at, f->now, f->config.usage_half_life_s);
		u->usage_at = fw_serve_now();
		rc = fw_serve_save_user(d, u);
	}
	return rc;
}

/* A job's last requeue time, from the decision log's `at`. */
static int restore_requeue(void *ctx, const char *job, fw_time at)
{
	struct restore *r = ctx;

	if (at < 0 || at > FW_API_TIME_MAX) {
		snprintf(r->why, sizeof r->why, "job %.63s: its last eviction's at: must be a time in Unix seconds from 0 "
			 "to %lld, not %lld", job, FW_API_TIME_MAX, (long long)at);
		return FW_ERANGE;
	}
	fw_serve_note_requeue(&r->d->m, job, at);
	return FW_OK;
}

/* The model's tables (queues, reservations, health, users) and the
 * requeue times from the store, in that order; the first row refused
 * stops it, its words in err: the store, the table, the row and what to
 * do.  The daemon then does not start. */
static int restore_tables(struct fw_serve *d, char *err, size_t errn)
{
	static const struct { enum fw_store_doc t; const char *name; int (*fn)(void *, const char *, const char *); } tab[] = {
		{ FW_STORE_QUEUES, "queues", restore_queue }, { FW_STORE_RESERVATIONS, "reservations", restore_rsv },
		{ FW_STORE_HEALTH, "health", restore_health }, { FW_STORE_USERS, "users", restore_user },
	};
	struct restore r = { d, "decisions", "" };
	int rc = FW_OK;

	for (size_t i = 0; i < sizeof tab / sizeof *tab && rc == FW_OK; i++) {
		r.table = tab[i].name;
		rc = fw_store_each(d->store, tab[i].t, tab[i].fn, &r);
	}
	if (rc == FW_OK) {
		r.table = "decisions";
		rc = fw_store_requeues(d->store, restore_requeue, &r);
	}
	if (rc != FW_OK && r.why[0])
		snprintf(err, errn, "%.300s: cannot restore the model from the store: %s; fix the row (edited by hand? "
			 "written by another fairway version?) or, with the daemon stopped, delete it from the store's "
			 "%s table", fw_store_path(d->store), r.why, r.table);
	else if (rc != FW_OK)
		snprintf(err, errn, "%.300s: cannot restore the model from the store (table %s): %s (%s)",
			 fw_store_path(d->store), r.table, fw_strerror(rc), fw_store_errmsg(d->store));
	return rc;
}

static int restore_model(struct fw_serve *d, char *err, size_t errn)
{
	int rc;

	/* "seeded" rather than "created": a first start that failed after
	 * creating the database must still seed on the next one. */
	d->restored = fw_store_meta_get(d->store, "seeded", 0) != 0;
	if (!d->restored) {
		*err = '\0';
		if ((rc = fw_store_begin(d->store)) || (rc = seed_queues(d, err, errn)) ||
		    (rc = fw_store_commit(d->store))) {
			if (!*err)
				snprintf(err, errn, "cannot seed the store: %s", fw_store_errmsg(d->store));
			fw_store_rollback(d->store); /* nothing half-seeded */
			return rc;
		}
	} else if ((rc = restore_tables(d, err, errn)))
		return rc;
	d->m.requeued_kept = d->m.nrequeued; /* the prune's baseline */
	if ((rc = fw_serve_queue_order(d->queues, d->nqueues)))
		return rc;
	if (d->nusers) /* by (queue, user), as the cycle looks them up */
		qsort(d->users, (size_t)d->nusers, sizeof *d->users, user_use_cmp);
	d->next_job = fw_store_meta_get(d->store, "next_job", 1);
	d->next_rsv = fw_store_meta_get(d->store, "next_rsv", 1);
	d->cycle_base = fw_store_last_cycle(d->store);
	return FW_OK;
}

/* --- config drift ------------------------------------------------------------ */
/* A line of items "a; b; c" in n bytes, the items past the room counted
 * ("; and 3 more"). */
struct drift {
	char *buf;
	size_t n, len;
	int count, shown;
};

static void drift_add(struct drift *dr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void drift_add(struct drift *dr, const char *fmt, ...)
{
	char item[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(item, sizeof item, fmt, ap);
	va_end(ap);
	/* once one is left out, the rest are too: "and N more" are the last */
	if (dr->count++ > dr->shown || dr->len + strlen(item) + 2 + 24 >= dr->n) /* room for "; and N more" */
		return;
	dr->len += (size_t)snprintf(dr->buf + dr->len, dr->n - dr->len, "%s%s", dr->shown ? "; " : "", item);
	dr->shown++;
}

static void drift_end(struct drift *dr)
{
	if (dr->count > dr->shown)
		snprintf(dr->buf + dr->len, dr->n - dr->len, "%sand %d more", dr->shown ? "; " : "",
			 dr->count - dr->shown);
}

/* The members (the API's names, usage aside) in which the config's
 * queue c and the store's s differ, "a, b", into out. */
static void queue_members_differ(const struct fw_queue_spec *c, const struct fw_queue_spec *s, char *out,
				 size_t n)
{
	json_t *a = fw_codec_queue_dump(c), *b = fw_codec_queue_dump(s), *x;
	const char *k;
	size_t len = 0;

	*out = '\0';
	for (int pass = 0; pass < 2; pass++)
		json_object_foreach(pass ? b : a, k, x) {
			if (!strcmp(k, "usage") || !strcmp(k, "usageAt") || (pass && json_object_get(a, k)) ||
			    json_equal(x, json_object_get(pass ? a : b, k)) || len >= n)
				continue;
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "", k);
		}
	json_decref(a);
	json_decref(b);
}

static bool config_has_queue(const struct fw_snapshot *f, const char *name)
{
	for (int32_t i = 0; i < f->nqueues; i++)
		if (!strcmp(f->queues[i].name, name))
			return true;
	return false;
}

static void queues_drift(struct fw_serve *d, struct drift *dr)
{
	const struct fw_snapshot *f = d->fleet;
	struct fw_queue_spec q;
	char err[256], what[256];

	for (int32_t i = 0; i < f->nqueues; i++) {
		int at = fw_serve_queue_index(d, f->queues[i].name);
		if (at < 0) {
			drift_add(dr, "queue \"%s\" is in the config, not the store", f->queues[i].name);
			continue;
		}
		if (queue_of_config(f, i, &q, err, sizeof err) != FW_OK)
			continue; /* more model limits than the store keeps: the first start refused it */
		queue_members_differ(&q, &d->queues[at], what, sizeof what);
		if (*what)
			drift_add(dr, "queue \"%s\" has other %s in the config", q.name, what);
	}
	for (int32_t i = 0; i < d->nqueues; i++)
		if (!config_has_queue(f, d->queues[i].name))
			drift_add(dr, "queue \"%s\" is in the store, not the config", d->queues[i].name);
}

static int count_row(void *ctx, const struct fw_store_decision *dec)
{
	(void)dec;
	++*(int *)ctx;
	return 0;
}

/* Config jobs the local backend neither holds nor has a logged decision
 * of (one that ended and was forgotten since, min-job-age, has). */
static void jobs_drift(struct fw_serve *d, struct drift *dr)
{
	const struct fw_snapshot *f = d->fleet;
	const char *st;
	fw_time t;

	if (d->bops != &fw_backend_local)
		return; /* only the local backend seeds jobs from the config */
	for (int32_t k = 0; k < f->njobs; k++) {
		int rows = 0;
		if (fw_local_job_info(d->be, f->jobs[k].name, &st, &t, &t, &t, NULL, NULL) == FW_OK)
			continue;
		fw_store_job_decisions(d->store, f->jobs[k].name, INT64_MIN, 1, count_row, &rows);
		if (!rows)
			drift_add(dr, "job \"%s\" is in the config, not the store", f->jobs[k].name);
	}
}

int fw_serve_config_drift(struct fw_serve *d, char *buf, size_t n)
{
	struct drift dr = { buf, n, 0, 0, 0 };

	*buf = '\0';
	if (!d->restored)
		return 0;
	queues_drift(d, &dr);
	jobs_drift(d, &dr);
	drift_end(&dr);
	return dr.count;
}

/* --- token ------------------------------------------------------------------------ */
static int make_token(const char *path, char *err, size_t errn)
{
	unsigned char raw[24];
	char hex[64];
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errn, "cannot read /dev/urandom for a token");
		return FW_EIO;
	}
	close(fd);
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex) || write(fd, "\n", 1) != 1) {
		snprintf(err, errn, "cannot create the token file %.300s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return FW_EIO;
	}
	close(fd);
	return FW_OK;
}

/* How to make a token file, for a refusal of one (its path twice). */
#define TOKEN_HOWTO                                                                                         \
	"write one of at least 16 characters, e.g. head -c 32 /dev/urandom | base64 > %.300s && chmod 600 " \
	"%.300s (or leave the flag out: the daemon makes one in its --state directory)"

/* Read the bearer token; refuse a file that group or others can read. */
static int load_token(const char *flag, const char *path, char tok[FW_TOKEN_MAX], char *err, size_t errn)
{
	struct fw_diag dg;
	struct stat sb;
	char buf[FW_TOKEN_MAX + 1]; /* one byte more than a token: a longer one is refused, not cut */
	size_t len;
	FILE *f;
	int rc;

	if (stat(path, &sb) != 0) {
		snprintf(err, errn, "%s %.300s: %s; " TOKEN_HOWTO, flag, path, strerror(errno), path, path);
		return FW_ENOENT;
	}
	if (sb.st_mode & 077) {
		snprintf(err, errn,
			 "%s %.300s has permissions %03o; a bearer token must be readable by its owner only "
			 "(run: chmod 600 %.300s)",
			 flag, path, (unsigned)(sb.st_mode & 0777), path);
		return FW_EINVAL;
	}
	if (!(f = fopen(path, "r"))) {
		snprintf(err, errn, "%s %.300s: cannot read a token (%s); " TOKEN_HOWTO, flag, path, strerror(errno),
			 path, path);
		return FW_EIO;
	}
	len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (len == 0) {
		snprintf(err, errn, "%s %.300s: cannot read a token (the file is empty); " TOKEN_HOWTO, flag, path, path,
			 path);
		return FW_EIO;
	}
	if ((rc = fw_codec_token_parse(buf, len, tok, &dg)) != FW_OK) {
		snprintf(err, errn, "%s %.300s: %s", flag, path, dg.msg);
		return rc;
	}
	if (strlen(tok) < 16) {
		snprintf(err, errn, "%s %.300s: the token is shorter than 16 characters; " TOKEN_HOWTO, flag, path,
			 path, path);
		return FW_EINVAL;
	}
	return FW_OK;
}

/* One token: the file given, else DIR/NAME, made on the first start. */
static int one_token(const struct fw_serve *d, const char *flag, const char *given, const char *name,
		     char tok[FW_TOKEN_MAX], char *err, size_t errn)
{
	char path[4096];
	const char *p = given;
	int rc;

	if (!p) {
		snprintf(path, sizeof path, "%s/%s", d->opts->state_dir, name);
		p = path;
		if (access(p, F_OK) != 0 && (rc = make_token(p, err, errn)))
			return rc;
	}
	return load_token(flag, p, tok, err, errn);
}

/* The admin token and the agents' (docs/serve.md, Security); they must
 * differ, or the agents' would be the admin's. */
static int setup_token(struct fw_serve *d, char *err, size_t errn)
{
	int rc;

	if ((rc = one_token(d, "--token-file", d->opts->token_file, "token", d->token, err, errn)) ||
	    (rc = one_token(d, "--agent-token-file", d->opts->agent_token_file, "agent-token", d->agent_token, err,
			    errn)))
		return rc;
	if (!strcmp(d->token, d->agent_token)) {
		snprintf(err, errn, "the agent token is the admin token: give --agent-token-file a token of its own "
				    "(it may only report node health)");
		return FW_EINVAL;
	}
	return FW_OK;
}

/* --- lock ------------------------------------------------------------------------ */
/* The PID the lock file names, or 0. */
static long lock_holder(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return strtol(buf, NULL, 10);
}

static int lock_state(struct fw_serve *d, char *err, size_t errn)
{
	const char *dir = d->opts->state_dir;
	char path[4096], pid[32];
	int fd;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		int e = errno;
		snprintf(err, errn, "--state %.300s: cannot create the state directory: %s%s", dir, strerror(e),
			 e == ENOENT ? " (its parent must exist: mkdir -p it first, or give a directory under one "
				       "that does)" : "");
		return FW_EIO;
	}
	struct stat st;
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errn, "--state %.300s is not a directory: give a directory for the store "
				    "(it is created if missing)", dir);
		return FW_EINVAL;
	}
	snprintf(path, sizeof path, "%s/lock", dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errn, "cannot open the lock file %.300s: %s", path, strerror(errno));
		return FW_EIO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		long holder = lock_holder(fd);
		snprintf(err, errn, "--state %.300s is in use by another fairway serve (PID %ld, lock file %.300s): "
				    "stop it first, or give this one another --state",
			 dir, holder, path);
		close(fd);
		return FW_EBUSY;
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid)) {
		snprintf(err, errn, "cannot write the lock file %.300s: %s", path, strerror(errno));
		close(fd);
		return FW_EIO;
	}
	d->lock_fd = fd;
	return FW_OK;
}

/* --- config --------------------------------------------------------------------- */
static int load_fleet(struct fw_serve *d, char *err, size_t errn)
{
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (d->opts->config_path)
		rc = fw_config_load_file(d->opts->config_path, &d->fleet, &dg);
	else
		rc = fw_config_load_buffer("<built-in examples/cluster.yaml>", d->opts->embedded_yaml,
					   d->opts->embedded_len, &d->fleet, &dg);
	if (rc != FW_OK) {
		fw_diag_format(&dg, err, errn);
		return rc;
	}
	/* the lemon verdict's settings: the daemon keeps the fault history */
	if (d->fleet->config.lemon_window_s > 0)
		d->hcfg.lemon_window_s = d->fleet->config.lemon_window_s;
	if (d->fleet->config.lemon_threshold)
		d->hcfg.lemon_threshold = d->fleet->config.lemon_threshold < 0 ? 0 : d->fleet->config.lemon_threshold;
	d->hcfg.heartbeat_s = d->fleet->config.heartbeat_s;
	return rc;
}

static int open_backend(struct fw_serve *d, char *err, size_t errn)
{
	struct fw_backend_config bc = {
		.fleet = d->fleet,
		.config_path = d->opts->config_path,
		.state_dir = d->opts->state_dir,
		.options = d->opts->backend_opts,
		.store = d->store,
		.seed_jobs = !fw_store_meta_get(d->store, "seeded", 0),
		.now = fw_serve_now(),
	};
	struct fw_snapshot *qs = fw_serve_skeleton(d, d->queues, d->nqueues, bc.now); /* the limits at open */
	struct fw_diag dg;
	int rc;

	memset(&dg, 0, sizeof dg);
	if (!qs) {
		snprintf(err, errn, "backend %s: out of memory", d->bops->name);
		return FW_ENOMEM;
	}
	bc.queues = qs;
	rc = d->bops->open(&bc, &d->be, &dg);
	fw_snapshot_free(qs);
	if (rc != FW_OK) {
		char m[1024];
		fw_diag_format(&dg, m, sizeof m);
		snprintf(err, errn, "backend %s: %.900s", d->bops->name, m);
		return rc;
	}
	if (bc.seed_jobs && (rc = fw_store_meta_put(d->store, "seeded", 1)) != FW_OK)
		snprintf(err, errn, "store: %s", fw_store_errmsg(d->store));
	return rc;
}

/* --- run ----------------------------------------------------------------------- */
static void free_daemon(struct fw_serve *d)
{
	if (d->be)
		d->bops->close(d->be);
	fw_store_close(d->reader);
	fw_store_close(d->store);
	fw_snapshot_free(d->fleet);
	json_decref(d->view);
	json_decref(d->view_nodes);
	free(d->queues);
	free(d->rsv);
	free(d->brsv);
	free(d->health);
	free(d->users);
	free(d->m.qstat);
	free(d->m.requeued);
	if (d->lock_fd >= 0)
		close(d->lock_fd); /* last: the next daemon may start now */
	pthread_mutex_destroy(&d->mu);
	pthread_mutex_destroy(&d->read_mu);
	pthread_mutex_destroy(&d->pub_mu);
	pthread_cond_destroy(&d->wake);
}

/* The stop signals, and SIGHUP, blocked in every thread (the mask the
 * threads inherit) and waited for by main(). */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* Waits for SIGINT or SIGTERM.  SIGHUP, which slurmctld and nginx take
 * as "reload" and which an admin may send out of habit, neither reloads
 * nor stops: its default action would end the daemon at once, silently,
 * without the usage save of a stop (and systemd counts a SIGHUP death as
 * clean, so Restart=on-failure would not bring it back).  It gets one
 * line saying that nothing was reloaded and how to apply a change. */
static int wait_for_signal(void)
{
	sigset_t set;
	int sig = 0;

	stop_signals(&set);
	for (;;) {
		if (sigwait(&set, &sig) != 0 || sig != SIGHUP)
			return sig;
		fprintf(stderr, "fairway serve: SIGHUP: nothing reloaded, still running (the config's fleet is "
				"read at the start: restart the daemon to apply a changed --config; queues, "
				"reservations and node health change through the API: fairway queues set, "
				"fairway reservations create, fairway nodes health)\n");
	}
}

/* --port-file's temporary (PATH.tmp), opened for writing into *f, or
 * the reason it cannot be, saying what to do. */
static int open_port_tmp(const char *path, char *tmp, size_t tmpn, FILE **f, char *err, size_t errn)
{
	snprintf(tmp, tmpn, "%s.tmp", path);
	if ((*f = fopen(tmp, "w")))
		return FW_OK;
	snprintf(err, errn, "--port-file %.300s: cannot write %.300s: %s; give a path in a directory that exists and "
		 "this user may write", path, tmp, strerror(errno));
	return FW_EIO;
}

/* Before anything starts (the state directory, the store, the port):
 * can --port-file be written at all?  So a bad one leaves nothing made. */
static int port_file_writable(const char *path, char *err, size_t errn)
{
	char tmp[4096];
	FILE *f;

	if (open_port_tmp(path, tmp, sizeof tmp, &f, err, errn))
		return FW_EIO;
	fclose(f);
	remove(tmp);
	return FW_OK;
}

static int write_port_file(const char *path, int port, char *err, size_t errn)
{
	char tmp[4096];
	FILE *f;
	bool written;

	if (open_port_tmp(path, tmp, sizeof tmp, &f, err, errn))
		return FW_EIO;
	written = fprintf(f, "%d\n", port) > 0;
	written = (fclose(f) == 0) && written;
	if (!written || rename(tmp, path) != 0) {
		snprintf(err, errn, "--port-file %.300s: cannot write it: %s; give a path in a directory that exists and "
			 "this user may write", path, strerror(errno));
		remove(tmp);
		return FW_EIO;
	}
	return FW_OK;
}

int fw_serve_open(struct fw_serve *d, const struct fw_serve_opts *o, char *err, size_t errn)
{
	struct fw_diag dg;

	memset(d, 0, sizeof *d);
	pthread_mutex_init(&d->mu, NULL);
	pthread_mutex_init(&d->read_mu, NULL);
	pthread_mutex_init(&d->pub_mu, NULL);
	pthread_cond_init(&d->wake, NULL);
	d->opts = o;
	d->lock_fd = -1;
	d->m.started_at = fw_serve_now();
	d->bops = o->backend;
	d->policy = o->policy ? fw_policy_find(o->policy) : fw_policy_default();
	fw_health_config_default(&d->hcfg);
	memset(&dg, 0, sizeof dg);
	if (!d->policy) {
		snprintf(err, errn, "--policy %s: unknown policy (try `fairway policies`)", o->policy);
		return FW_EINVAL;
	}
	if (load_fleet(d, err, errn) || lock_state(d, err, errn))
		return FW_EINVAL;
	if (fw_store_open(o->state_dir, o->sync_full, &d->store, &dg) != FW_OK ||
	    fw_store_open_reader(o->state_dir, &d->reader, &dg) != FW_OK) {
		fw_diag_format(&dg, err, errn);
		return FW_EIO;
	}
	if (setup_token(d, err, errn) || restore_model(d, err, errn) || open_backend(d, err, errn))
		return FW_EINVAL;
	d->pub.keep_s = -1; /* until the cycle thread asks (cycle.c check_keep) */
	fw_serve_publish_health(d); /* before any cycle: ok, no view */
	return FW_OK;
}

void fw_serve_close(struct fw_serve *d)
{
	free_daemon(d);
}

/* A restart whose config's queues or jobs differ from the store's: one
 * line on stderr saying what differs, that the store wins, and how to
 * change them (fw_serve_config_drift).  Nothing else changes. */
static void warn_config_drift(struct fw_serve *d)
{
	const char *cfg = d->opts->config_path ? d->opts->config_path : "the built-in config";
	char what[1024];

	if (!fw_serve_config_drift(d, what, sizeof what))
		return;
	fprintf(stderr,
		"fairway serve: warning: the queues or jobs of %s differ from the store's: %s; the store wins (the "
		"config seeds queues and jobs only at the first start, then supplies only the fleet): change queues "
		"with the API (PUT or PATCH /v1/queues/NAME, fairway queues set) and submit jobs with POST /v1/jobs "
		"(fairway jobs submit)\n", cfg, what);
}

int fw_serve_run(const struct fw_serve_opts *o)
{
	struct fw_serve d;
	struct fw_http *http = NULL;
	pthread_t cyc;
	sigset_t set;
	char err[1024] = "";
	int port = 0, rc, exit_code = 2;

	/* Block the stop signals in every thread; main() waits for them. */
	stop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (o->port_file && port_file_writable(o->port_file, err, sizeof err)) {
		/* a flag's bad value, found before anything is made */
		fprintf(stderr, "fairway serve: error: %s\n", err);
		return 2;
	}
	if (fw_serve_open(&d, o, err, sizeof err) != FW_OK)
		goto out;
	warn_config_drift(&d);
	if (fw_http_start(&d, o->listen_host, o->port, &http, &port, err, sizeof err))
		goto out; /* a start error as the others: exit 2 */
	if (o->port_file && write_port_file(o->port_file, port, err, sizeof err))
		goto out; /* a flag's bad value: a start error, exit 2 */
	exit_code = 1;
	if ((rc = pthread_create(&cyc, NULL, fw_serve_cycle_thread, &d)) != 0) {
		snprintf(err, sizeof err, "cannot start the cycle thread: %s", strerror(rc));
		goto out;
	}
	fprintf(stderr, "fairway serve: listening on http://%s:%d (backend %s, state %s, period %gs)\n",
		o->listen_host, port, d.bops->name, o->state_dir, o->period_s);
	wait_for_signal();
	fprintf(stderr, "fairway serve: stopping\n");
	pthread_mutex_lock(&d.mu);
	d.stop = true;
	pthread_cond_broadcast(&d.wake);
	pthread_mutex_unlock(&d.mu);
	pthread_join(cyc, NULL);
	/* Under the state lock: the HTTP threads still answer until
	 * fw_http_stop, and a request among them writes through the same
	 * store connection and changes the model this save reads. */
	pthread_mutex_lock(&d.mu);
	if ((rc = fw_serve_save_usage_now(&d)) != FW_OK) /* what the last cycles accrued, not only the last save's */
		fprintf(stderr, "fairway serve: cannot save the usage at stop: %s (%s)\n", fw_strerror(rc),
			fw_store_errmsg(d.store));
	pthread_mutex_unlock(&d.mu);
	exit_code = 0;
out:
	fw_http_stop(http);
	if (exit_code)
		fprintf(stderr, "fairway serve: error: %s\n", err);
	fw_serve_close(&d);
	return exit_code;
}
