/*
 * backend.c — the Slurm adapter as a `fairway serve` backend
 * (connectors/serve/backend.h): `fairway serve --backend slurm
 * --backend-opt conf=/etc/slurm/slurm.conf,partitions=gpu`.
 *
 * read, fetch, capture, build, adopt, discard, apply, health, explain,
 * windows, release, reservations, aside and ended map one to one onto
 * fwslurm.h;
 * submission and cancellation stay with sbatch and scancel (NULL ops).
 * The daemon's fleet snapshot is not used: Slurm is the world.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fairway/span.h"
#include "slurm_int.h"

/* One read of Slurm's usage (fw_slurm_usage_fetch), the RPC made ahead
 * by the fetch, without the daemon's lock. */
struct use_read {
	struct fw_slurm_usage *rows;
	int32_t n;
	int rc;
	char msg[512];                  /* why it failed */
	bool ready;
};

struct fw_backend {
	struct fw_slurm *h;
	char opts[1024];
	bool usage_own;                 /* --backend-opt usage=own */
	struct fw_slurm_usage *use;     /* the last read of Slurm's usage */
	int32_t nuse;
	fw_time use_at;
	double use_next_ms;             /* the next read (monotonic) */
	int use_rc;                     /* its outcome; 1 before the first */
	uint64_t budget_gen;            /* the budget note last logged */
	pthread_mutex_t mu;             /* guards use_next_ms and fetched: the
					 * fetch runs without the daemon's lock */
	struct use_read fetched;        /* a fetch's read, for the next usage() */
};

static int sb_open(const struct fw_backend_config *cfg, struct fw_backend **out,
		   struct fw_diag *d)
{
	struct fw_backend *b = calloc(1, sizeof *b);
	struct fw_slurm_opts o;
	int rc;

	if (!b)
		return FW_ENOMEM;
	memset(&o, 0, sizeof o);
	o.flag = "--backend-opt";
	if (cfg->options)
		snprintf(b->opts, sizeof b->opts, "%s", cfg->options);
	if ((rc = fw_slurm_opts_parse(b->opts, &o, d)) != FW_OK ||
	    (rc = fw_slurm_open(&o, &b->h, d)) != FW_OK) {
		free(b);
		return rc;
	}
	b->usage_own = o.usage_own;
	b->use_rc = 1;
	pthread_mutex_init(&b->mu, NULL);
	*out = b;
	return FW_OK;
}

/* What Slurm's GPU-hour budgets are, logged once per change. */
static void budget_log(struct fw_backend *b)
{
	uint64_t gen;
	const char *note = fw_slurm_budget_note(b->h, &gen);

	if (gen != b->budget_gen && *note) {
		b->budget_gen = gen;
		fprintf(stderr, "fairway serve: %s\n", note);
	}
}

/* What Slurm's setup does not give fairway (a managed partition gone or
 * down, job_submit.lua and partitions= disagreeing), warned once per
 * change as fairway-slurm warns (warn.c): after a whole read, and at the
 * adopt of a split read's build (what the build found is then the
 * handle's). */
static void setup_warn(struct fw_backend *b)
{
	fw_slurm_warn(b->h, stderr, "fairway serve");
}

/* Slurm's GPU-hour budgets come with the read (usage.c), onto s's queues
 * that have none of their own. */
static int sb_read(struct fw_backend *b, struct fw_snapshot *s,
		   struct fw_backend_world *w, struct fw_diag *d)
{
	int rc = fw_slurm_read(b->h, s, w, d);

	if (rc == FW_OK) {
		budget_log(b);
		setup_warn(b);
	}
	return rc;
}

/* The read in two halves (copy.c): the backend's copy is the handle's. */
static int sb_capture(struct fw_backend *b, const struct fw_snapshot *s, struct fw_backend_copy **out,
		      struct fw_diag *d)
{
	struct fw_slurm_copy *c = NULL;
	int rc = fw_slurm_capture(b->h, s, &c, d);

	if (rc == FW_OK)
		budget_log(b);
	*out = (struct fw_backend_copy *)c;
	return rc;
}

static int sb_build(const struct fw_backend_copy *c, struct fw_snapshot *s, struct fw_backend_world *w,
		    struct fw_diag *d)
{
	return fw_slurm_build((const struct fw_slurm_copy *)c, s, w, d);
}

static bool sb_adopt(struct fw_backend *b, struct fw_backend_copy *c)
{
	bool ok = fw_slurm_adopt(b->h, (struct fw_slurm_copy *)c);

	if (ok)
		setup_warn(b);
	return ok;
}

static void sb_discard(struct fw_backend_copy *c)
{
	fw_slurm_discard((struct fw_slurm_copy *)c);
}

static int sb_apply(struct fw_backend *b, uint64_t gen,
		    const struct fw_backend_action *acts, int32_t n,
		    struct fw_backend_result *r)
{
	return fw_slurm_apply(b->h, gen, acts, n, r);
}

static int sb_health(struct fw_backend *b, struct fw_node_health *out, int cap)
{
	return fw_slurm_health(b->h, out, cap);
}

/* Waiting reasons into comments: fw_slurm_annotate writes only those that
 * changed, at most its comment budget per call. */
static void sb_explain(struct fw_backend *b, const struct fw_backend_note *notes,
		       int32_t n)
{
	struct fw_slurm_note *t = calloc(n > 0 ? (size_t)n : 1, sizeof *t);

	if (!t)
		return;
	for (int32_t i = 0; i < n; i++) {
		snprintf(t[i].job, sizeof t[i].job, "%s", notes[i].job);
		fw_slurm_note_text(&notes[i], t[i].text, sizeof t[i].text);
	}
	fw_slurm_annotate(b->h, t, n);
	free(t);
}

static int sb_windows(struct fw_backend *b, const struct fw_backend_window *w,
		      int32_t n, fw_time now, struct fw_diag *d)
{
	return fw_slurm_windows(b->h, w, n, now, d);
}

static int sb_release(struct fw_backend *b, const char (*nodes)[FW_NAME_MAX], int32_t n,
		      struct fw_diag *d)
{
	return fw_slurm_release(b->h, nodes, n, d);
}

static int sb_reservations(struct fw_backend *b, struct fw_backend_rsv *out, int cap)
{
	return fw_slurm_reservations(b->h, out, cap);
}

static int sb_aside(struct fw_backend *b, struct fw_backend_aside *out, int32_t cap)
{
	return fw_slurm_aside(b->h, out, cap);
}

static int sb_ended(struct fw_backend *b, struct fw_backend_ended *out, int32_t cap, char (*names)[FW_NAME_MAX],
		    int32_t ncap, int32_t *nnames)
{
	return fw_slurm_ended(b->h, out, cap, names, ncap, nnames);
}

static void sb_close(struct fw_backend *b)
{
	if (!b)
		return;
	fw_slurm_close(b->h);
	free(b->use);
	free(b->fetched.rows);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Is a read of Slurm's usage due (one per FW_SLURM_USAGE_PERIOD_S)?  A
 * true answer claims the period. */
static bool use_due(struct fw_backend *b)
{
	double now = mono_ms();
	bool due;

	pthread_mutex_lock(&b->mu);
	if ((due = now >= b->use_next_ms))
		b->use_next_ms = now + FW_SLURM_USAGE_PERIOD_S * 1e3;
	pthread_mutex_unlock(&b->mu);
	return due;
}

/* The RPC alone, into r: touches nothing of b's but the handle's
 * configuration. */
static void use_ask(struct fw_backend *b, struct use_read *r)
{
	struct fw_diag dg;
	double hl = 0;

	memset(r, 0, sizeof *r);
	memset(&dg, 0, sizeof dg);
	r->rc = fw_slurm_usage_fetch(b->h, &r->rows, &r->n, &hl, &dg);
	if (r->rc != FW_OK)
		fw_diag_format(&dg, r->msg, sizeof r->msg);
	r->ready = true;
}

/* A read made b's (under the daemon's lock): its rows when it succeeded
 * (r keeps none), its outcome logged once per change. */
static void use_take(struct fw_backend *b, struct use_read *r, fw_time now)
{
	char every[FW_SPAN_MAX];

	if (r->rc != b->use_rc && r->rc == FW_OK)
		fprintf(stderr, "fairway serve: fair share reads Slurm's decayed GPU usage every %s\n",
			fw_span_format(FW_SLURM_USAGE_PERIOD_S, every, sizeof every));
	else if (r->rc != b->use_rc)
		fprintf(stderr, "fairway serve: Slurm's usage not read (%.400s): the daemon's own usage stands\n",
			r->msg);
	if (r->rc == FW_OK) {
		free(b->use);
		b->use = r->rows;
		b->nuse = r->n;
		b->use_at = now;
		r->rows = NULL;
	}
	if (r->rc == FW_OK || r->rc == FW_ENOENT)
		b->use_rc = r->rc; /* FW_EIO: the last read stands */
	free(r->rows);
	r->rows = NULL;
}

/* Slurm's decayed usage (usage.c) over s's: read at the first call and
 * then every FW_SLURM_USAGE_PERIOD_S, by the fetch ahead when the daemon
 * calls it (sb_fetch), else here; a failed read keeps the last one
 * (FW_ENOENT until one succeeds); FW_ENOENT with usage=own or where Slurm
 * keeps none, and the daemon accrues its own.  A change of outcome is
 * logged once. */
static int sb_usage(struct fw_backend *b, struct fw_snapshot *s, struct fw_diag *d)
{
	struct use_read r;
	int32_t unmatched = 0;

	if (b->usage_own)
		return fw_diag_set(d, FW_ENOENT, "--backend-opt", 0, 0, "usage", "usage=own");
	pthread_mutex_lock(&b->mu);
	r = b->fetched;
	memset(&b->fetched, 0, sizeof b->fetched);
	pthread_mutex_unlock(&b->mu);
	if (!r.ready && use_due(b))
		use_ask(b, &r);
	if (r.ready)
		use_take(b, &r, s->now);
	if (b->use_rc != FW_OK)
		return FW_ENOENT;
	return fw_slurm_usage_apply(s, b->use, b->nuse, b->use_at, &unmatched);
}

/* slurm_ping(0): one connect to the primary controller, no state of h */
static int sb_reachable(struct fw_backend *b, struct fw_diag *d)
{
	return fw_slurm_ping(b->h, d);
}

/* The read's RPCs, without the daemon's lock (fwslurm.h fw_slurm_fetch),
 * and Slurm's usage when due (for sb_usage; a read no usage() took yet
 * is replaced, its rows let go). */
static int sb_fetch(struct fw_backend *b, struct fw_diag *d)
{
	struct use_read r, old;
	int rc = fw_slurm_fetch(b->h, d);

	if (rc != FW_OK || b->usage_own || !use_due(b))
		return rc;
	use_ask(b, &r);
	pthread_mutex_lock(&b->mu);
	old = b->fetched;
	b->fetched = r;
	pthread_mutex_unlock(&b->mu);
	free(old.rows);
	return FW_OK;
}

/* slurm.conf's MinJobAge against the daemon's period (warn.c): from the
 * cycle thread without the daemon's lock; only the handle's own config
 * figures are touched. */
static int sb_ended_keep(struct fw_backend *b, double period_s, int64_t *keep_s, char *warn, size_t n,
			 struct fw_diag *d)
{
	int rc = fw_slurm_min_job_age(b->h, keep_s, d);

	if (rc == FW_OK)
		fw_slurm_age_warning(period_s, *keep_s, warn, n);
	return rc;
}

const struct fw_backend_ops fw_backend_slurm = {
	.name = "slurm",
	.summary = "a live slurmctld through libslurm (jobs from sbatch, held until fairway starts them)",
	.open = sb_open,
	.read = sb_read,
	.apply = sb_apply,
	.health = sb_health,
	.close = sb_close,
	.explain = sb_explain,
	.windows = sb_windows,
	.release = sb_release,
	.usage = sb_usage,
	.reservations = sb_reservations,
	.aside = sb_aside,
	.aside_reasons = fw_slurm_aside_reasons,
	.ended = sb_ended,
	.ended_after = "Slurm lists an ended job only for MinJobAge seconds after its end (scontrol show config | "
		       "grep MinJobAge); sacct -j ID -o JobID,State,ExitCode,NodeList shows it after",
	.ended_keep = sb_ended_keep,
	.reachable = sb_reachable,
	.fetch = sb_fetch,
	.capture = sb_capture,
	.build = sb_build,
	.adopt = sb_adopt,
	.discard = sb_discard,
};
