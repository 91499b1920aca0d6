/*
 * sacct.c — convert `sacct --parsable2` output to the generic trace CSV
 * (docs/trace-format.md, "From Slurm"); contract in trace.h.
 *
 * sacct prints '|'-separated fields under a header of column names; columns
 * are found by name, so any --format order works and unknown columns are
 * ignored.  One pass collects the jobs (job steps, whose JobID has a '.',
 * are skipped; jobs that never started, jobs not ended when sacct ran, and
 * jobs without GPUs, are counted in struct fw_sacct_counts); the parts of
 * a heterogeneous job (JobID 7+0, 7+1) are then joined into one gang when
 * the trace format can say so (same shape per node); the last pass writes
 * the jobs with submit times relative to the earliest kept submit.  Every
 * value is parsed strictly; a bad value is an error with file:line:column
 * and the column name.
 *
 * A job not ended when sacct ran (RUNNING, SUSPENDED, REQUEUED, ..., or End
 * Unknown) is left out rather than kept with its Elapsed so far: the trace
 * model has no "still running", and a row would be a job that ended at the
 * dump, short by however long it went on (docs/trace-format.md).  A
 * heterogeneous job with any part not ended is left out whole, its ended
 * parts too, and counted once: the count is of jobs.
 *
 *   JobID (or JobIDRaw)  -> job_id
 *   Submit               -> submit_time (ISO 8601, seconds after the first)
 *   Elapsed, or End-Start -> duration (Slurm's six duration forms)
 *   Timelimit            -> expected_runtime (UNLIMITED, Partition_Limit,
 *                           INVALID: left empty); with FW_SACCT_TIME_LIMITS
 *                           (--time-limits) also max_runtime, the limit
 *                           slurmctld ended the job at (0, or more than
 *                           FW_SPAN32_MAX seconds: left empty, no limit)
 *   Account (or Partition) -> queue;  User -> user;  Priority -> priority
 *   AllocTRES (or ReqTRES when empty): gres/gpu[:model]=N GPUs, cpu=N,
 *   mem=N[.F][KMGTP] (62.50G, as sacct prints it); NNodes (or node=N) -> tasks = nodes,
 *   gpus_per_task = GPUs / nodes (must divide), cpu and memory per node.
 *   A single GPU type (gres/gpu:h100=N) -> gpu_model, unless
 *   FW_SACCT_NO_MODEL (--no-gpu-model): Slurm's GRES type names rarely
 *   match the model names of a simulated fleet, and a job whose model no
 *   node has never starts.
 */
#define _XOPEN_SOURCE 700 /* realpath() (XSI); the build defines only POSIX 2008 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cliword.h"
#include "fairway/span.h"
#include "outfile.h"
#include "trace.h"

enum scol {
	S_JOBID, S_JOBIDRAW, S_USER, S_ACCOUNT, S_PARTITION, S_SUBMIT, S_START,
	S_END, S_ELAPSED, S_TIMELIMIT, S_ALLOC, S_REQ, S_NNODES, S_STATE,
	S_PRIO, S_COUNT
};

static const char *const sname[S_COUNT] = {
	"JobID", "JobIDRaw", "User", "Account", "Partition", "Submit", "Start",
	"End", "Elapsed", "Timelimit", "AllocTRES", "ReqTRES", "NNodes",
	"State", "Priority",
};

#define S_MAX_FIELDS 128

struct sfields {
	int n;
	char *f[S_MAX_FIELDS];
	int col[S_MAX_FIELDS];
};

struct sjob {
	char id[FW_NAME_MAX], queue[FW_NAME_MAX], user[FW_NAME_MAX];
	char model[FW_NAME_MAX];
	int64_t submit, duration, expected; /* expected -1 = not given */
	int64_t prio, tasks, gpt, cpu, mem;
	int line, col;                      /* of its JobID, for a repeat */
	int het;                            /* a het part: its leader's length */
	bool gone;                          /* joined into an earlier part */
	bool open;                          /* a het part not ended at the dump:
					     * only its id, so its job is left
					     * out whole (join_het) */
};

struct sconv {
	const char *fname;
	unsigned flags;
	int pos[S_COUNT];
	int nhdr;
	struct sjob *v;
	size_t n, cap;
	struct fw_sacct_counts cnt;
};

/* Why data_row left a row out (FW_OK: kept; errors are negative). */
enum { ROW_NEVER_RAN = 1, ROW_STEP, ROW_NO_GPU, ROW_UNFINISHED };

struct sctx {
	struct sconv *c;
	const struct sfields *f;
	int lno;
	struct fw_diag *d;
};

/* ---- values ------------------------------------------------------------- */

static int split(char *line, struct sfields *f)
{
	char *p = line;

	f->n = 0;
	for (;;) {
		if (f->n == S_MAX_FIELDS)
			return -1;
		f->f[f->n] = p;
		f->col[f->n++] = (int)(p - line) + 1;
		while (*p && *p != '|')
			p++;
		if (!*p)
			return 0;
		*p++ = 0;
	}
}

static const char *fld(const struct sctx *x, int c)
{
	int i = x->c->pos[c];
	return i >= 0 && i < x->f->n ? x->f->f[i] : "";
}

/* The 1-based column where column c's field starts (1 if none). */
static int col(const struct sctx *x, int c)
{
	int i = x->c->pos[c];
	return i >= 0 && i < x->f->n ? x->f->col[i] : 1;
}

static int bad(const struct sctx *x, int c, const char *fmt, const char *v)
{
	return fw_diag_set(x->d, FW_EINVAL, x->c->fname, x->lno, col(x, c), sname[c], fmt, v);
}

/* Digits only, at most 15 of them. */
static bool digits(const char *s, size_t n, int64_t *v)
{
	*v = 0;
	if (n == 0 || n > 15)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

static bool leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int64_t month_days(int64_t y, int64_t m)
{
	static const int64_t days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return days[m - 1] + (m == 2 && leap_year(y));
}

enum { ISO_OK, ISO_FORM, ISO_NO_DAY, ISO_RANGE };

/* The parts of "YYYY-MM-DDTHH:MM:SS" and the range each must be in (a
 * day past its month's end is ISO_NO_DAY, the leap second 60 is kept). */
static const char *const iso_part[6] = { "year", "month", "day", "hour", "minute", "second" };
static const int64_t iso_lo[6] = { 0, 1, 1, 0, 0, 0 }, iso_hi[6] = { 9999, 12, 31, 23, 59, 60 };

/* "YYYY-MM-DDTHH:MM:SS" -> seconds since 1970 (no zone); ISO_FORM if the
 * text is not of that form, ISO_RANGE if a part is out of its range
 * (month 13, hour 25: its index in *part), ISO_NO_DAY if the day is not
 * in the calendar (2024-02-30, 2023-02-29, 2024-04-31). */
static int iso_time(const char *s, int64_t *t, int *part)
{
	static const int at[6] = { 0, 5, 8, 11, 14, 17 }, len[6] = { 4, 2, 2, 2, 2, 2 };
	static const char sep[6] = { '-', '-', 'T', ':', ':', 0 };
	int64_t v[6];

	if (strlen(s) != 19)
		return ISO_FORM;
	for (int i = 0; i < 6; i++)
		if (!digits(s + at[i], (size_t)len[i], &v[i]) || s[at[i] + len[i]] != sep[i])
			return ISO_FORM;
	for (*part = 1; *part < 6; ++*part) /* any 4 digits are a year */
		if (v[*part] < iso_lo[*part] || v[*part] > iso_hi[*part])
			return ISO_RANGE;
	if (v[2] > month_days(v[0], v[1]))
		return ISO_NO_DAY;
	*t = fw_days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
	return ISO_OK;
}

/* "a[:b[:c]][.fff]" -> the number of parts (0 if malformed); *frac is set
 * when a fraction (digits after a '.') ends the text. */
static int time_parts(const char *p, int64_t part[3], bool *frac)
{
	int np = 0;

	*frac = false;
	for (;;) {
		size_t n = strcspn(p, ":.");
		if (np == 3 || !digits(p, n, &part[np]))
			return 0;
		np++;
		p += n;
		if (*p == '.') {
			*frac = true;
			return p[1] && strspn(p + 1, "0123456789") == strlen(p + 1) ? np : 0;
		}
		if (!*p)
			return np;
		p++;
	}
}

/*
 * Slurm's duration forms (sbatch(1) --time; sacct prints the last and
 * HH:MM:SS, and MM:SS.mmm for CPU times) -> seconds, fraction dropped:
 *   MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
 * The first part is unbounded (up to 10^8), minutes and seconds after it
 * are below 60, hours after a day below 24; a fraction only follows seconds.
 */
static bool slurm_duration(const char *s, int64_t *t)
{
	static const int64_t unit[2][3][3] = {
		{ { 60 }, { 60, 1 }, { 3600, 60, 1 } },      /* MM, MM:SS, HH:MM:SS */
		{ { 3600 }, { 3600, 60 }, { 3600, 60, 1 } }, /* D-HH, D-HH:MM, D-HH:MM:SS */
	};
	const char *dash = strchr(s, '-');
	const int64_t *u;
	int64_t day = 0, part[3];
	int np, dd = dash != NULL;
	bool frac;

	if (dash && !digits(s, (size_t)(dash - s), &day))
		return false;
	np = time_parts(dash ? dash + 1 : s, part, &frac);
	if (np == 0 || day > 100000000 || part[0] > 100000000)
		return false; /* the bound keeps the sum far from overflow */
	u = unit[dd][np - 1];
	if (frac && u[np - 1] != 1)
		return false;
	*t = day * 86400;
	for (int i = 0; i < np; i++) {
		if ((i > 0 && part[i] >= 60) || (dd && u[i] == 3600 && part[i] >= 24))
			return false;
		*t += part[i] * u[i];
	}
	return *t <= FW_TRACE_MAX_TIME;
}

/* Slurm's words for "no time limit" / "no value" (sacct prints them). */
static bool no_duration(const char *s)
{
	return !*s || !strcmp(s, "UNLIMITED") || !strcmp(s, "Partition_Limit") ||
	       !strcmp(s, "INVALID");
}

/* mem=N[.F][KMGTP] -> MiB, rounded up; false if bad.  sacct prints
 * sizes with two decimals (mem=62.50G); no unit is M, Slurm's default.
 * At most 6 decimals; a size past any node saturates (the caller's
 * range check refuses it). */
static bool tres_mem(const char *s, size_t n, int64_t *mib)
{
	static const char unit[] = "KMGTP";
	const char *u = n ? memchr(unit, s[n - 1], sizeof unit - 1) : NULL;
	size_t num = u ? n - 1 : n, whole = strcspn(s, ".") < num ? strcspn(s, ".") : num;
	size_t nfrac = whole < num ? num - whole - 1 : 0;
	int64_t w, f = 0, scale = 1, kib = u ? INT64_C(1) << (10 * (u - unit)) : 1024;

	if (!digits(s, whole, &w) || nfrac > 6 ||
	    (whole < num && !digits(s + whole + 1, nfrac, &f)))
		return false;
	for (size_t i = 0; i < nfrac; i++)
		scale *= 10;
	if (w > INT64_MAX / 4 / kib) {
		*mib = INT64_MAX / 4;
		return true;
	}
	*mib = (w * kib + (f * kib + scale - 1) / scale + 1023) / 1024;
	return true;
}

#define TRES_GPU_CAP INT64_C(1000000000000000) /* 10^15: above any real count */

struct tres {
	int64_t gpus, typed, cpu, mem, nodes;
	char model[2 * FW_NAME_MAX]; /* the first GPU type, cut past 127 bytes */
	int nmodels;
};

/* One "key=value" item of a TRES list. */
static bool tres_item(struct tres *t, const char *k, size_t kn, const char *v, size_t vn)
{
	int64_t x;

	if (kn == 8 && memcmp(k, "gres/gpu", 8) == 0)
		return digits(v, vn, &t->gpus);
	if (kn > 9 && memcmp(k, "gres/gpu:", 9) == 0) {
		if (!digits(v, vn, &x))
			return false;
		/* saturate: each count is below 10^15, so the sum of thousands
		 * of them could overflow; any sum this large is refused later
		 * (more than 16 GPUs per node) */
		t->typed = t->typed > TRES_GPU_CAP - x ? TRES_GPU_CAP : t->typed + x;
		if (t->nmodels++ == 0)
			snprintf(t->model, sizeof t->model, "%.*s",
				 (int)(kn - 9 < sizeof t->model ? kn - 9 : sizeof t->model - 1),
				 k + 9);
		return true;
	}
	if (kn == 3 && memcmp(k, "cpu", 3) == 0)
		return digits(v, vn, &t->cpu);
	if (kn == 3 && memcmp(k, "mem", 3) == 0)
		return tres_mem(v, vn, &t->mem);
	if (kn == 4 && memcmp(k, "node", 4) == 0)
		return digits(v, vn, &t->nodes);
	return true; /* billing, energy, licenses, ...: ignored */
}

/* Parse a TRES list into *t; 0, or the 1-based offset of the first
 * item that is not key=value or whose value is bad for its key. */
static size_t parse_tres(const char *s, struct tres *t)
{
	const char *l = s;

	memset(t, 0, sizeof *t);
	while (*s) {
		size_t n = strcspn(s, ","), kn = strcspn(s, "=");
		if (kn >= n || !tres_item(t, s, kn, s + kn + 1, n - kn - 1))
			return (size_t)(s - l) + 1;
		s += n + (s[n] == ',');
	}
	if (!t->gpus)
		t->gpus = t->typed;
	if (t->nmodels != 1)
		t->model[0] = 0;
	return 0;
}

static bool plain_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= FW_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f || s[i] == '"' || s[i] == '\\' || s[i] == ',')
			return false;
	return true;
}

/* ---- rows --------------------------------------------------------------- */

/* Copy a name column (optional: "" stays ""). */
static int name_col(const struct sctx *x, int c, char *dst, bool req)
{
	const char *v = fld(x, c);

	if (!*v && !req)
		return FW_OK;
	if (!*v)
		return bad(x, c, "is empty; every job needs a %s (is the row cut "
			   "short? export it again with sacct --parsable2)", sname[c]);
	if (!plain_name(v))
		return bad(x, c, req ? "'%.40s' is not a plain name (1..63 printable "
			   "bytes, no space, quote, backslash or comma); edit it in the file"
			   : "'%.40s' is not a plain name (1..63 printable bytes, no space, "
			   "quote, backslash or comma); edit it in the file, or leave the "
			   "column out of sacct --format", v);
	snprintf(dst, FW_NAME_MAX, "%s", v);
	return FW_OK;
}

static bool never_ran(const struct sctx *x)
{
	const char *st = fld(x, S_START), *state = fld(x, S_STATE);

	return strncmp(state, "PENDING", 7) == 0 || !*st ||
	       strcmp(st, "Unknown") == 0 || strcmp(st, "None") == 0;
}

/* Started but not ended when sacct ran: a state of a job slurmctld still
 * holds (running, or waiting again after a requeue or a resize), or End
 * Unknown.  Its Elapsed is only the time so far. */
static bool unfinished(const struct sctx *x)
{
	static const char *const live[] = {
		"RUNNING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
		"SPECIAL_EXIT", "RESIZING", "CONFIGURING", "STOPPED",
	};
	const char *state = fld(x, S_STATE);
	size_t n = strcspn(state, " "); /* "CANCELLED by 1000" */

	for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
		if (strlen(live[i]) == n && !strncmp(state, live[i], n))
			return true;
	return !strcmp(fld(x, S_END), "Unknown");
}

/* An ISO time column -> seconds; an impossible date, or a part out of
 * its range, is named as such (the export's format is right then). */
static int time_col(const struct sctx *x, int c, int64_t *t)
{
	const char *v = fld(x, c);
	char what[32];
	int part = 0;

	switch (iso_time(v, t, &part)) {
	case ISO_OK:
		return FW_OK;
	case ISO_NO_DAY:
		return bad(x, c, "'%.40s' is not a calendar date (that month has no "
			   "such day); fix the date, or drop the row", v);
	case ISO_RANGE: /* the part's digits: v + 0, 5, 8, 11, 14, 17 */
		snprintf(what, sizeof what, "%s %.2s", iso_part[part], v + 2 + 3 * part);
		return fw_diag_set(x->d, FW_EINVAL, x->c->fname, x->lno, col(x, c), sname[c],
				   "'%.40s': %s is out of range (%lld..%lld); fix the "
				   "time, or drop the row", v, what, (long long)iso_lo[part],
				   (long long)iso_hi[part]);
	default:
		if (!strcmp(v, "Unknown") || !strcmp(v, "None") || !*v)
			return bad(x, c, "'%.40s': Slurm's accounting has no such time for this "
				   "job, so it cannot be replayed; drop the row", v);
		return bad(x, c, "'%.40s' is not YYYY-MM-DDTHH:MM:SS; export with "
			   "SLURM_TIME_FORMAT=standard in sacct's environment, so it "
			   "prints e.g. 2024-03-01T10:00:00", v);
	}
}

#define DURATION_FORMS "a Slurm duration (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS)"
/* The fix for a duration that is none of them. */
#define DURATION_FIX "; give it as sacct prints it, e.g. 1-02:03:04 or 02:03:04"

static int times(const struct sctx *x, struct sjob *j)
{
	int64_t s, e;
	const char *el = fld(x, S_ELAPSED), *tl = fld(x, S_TIMELIMIT);
	int rc;

	if ((rc = time_col(x, S_SUBMIT, &j->submit)) || (rc = time_col(x, S_START, &s)))
		return rc;
	if (s < j->submit) /* Slurm resets Submit at a requeue, Start after it */
		return bad(x, S_START, "'%.40s' is before Submit (a job starts after it is "
			   "submitted, a requeued one after its new Submit); fix Submit "
			   "or Start, or drop the row", fld(x, S_START));
	/* an empty Elapsed beside an End: End - Start, as without Elapsed */
	if (x->c->pos[S_ELAPSED] >= 0 && !(!*el && x->c->pos[S_END] >= 0)) {
		if (no_duration(el))
			return bad(x, S_ELAPSED, "'%.40s': the job has no elapsed time; "
				   "fix the row or leave it out", el);
		if (!slurm_duration(el, &j->duration))
			return bad(x, S_ELAPSED, "'%.40s' is not " DURATION_FORMS DURATION_FIX, el);
	} else if ((rc = time_col(x, S_END, &e))) {
		return rc;
	} else if (e < s) {
		return bad(x, S_END, "'%.40s' is before Start; fix Start or End, or "
			   "drop the row", fld(x, S_END));
	} else {
		j->duration = e - s;
	}
	j->expected = -1;
	if (!no_duration(tl) && !slurm_duration(tl, &j->expected))
		return bad(x, S_TIMELIMIT, "'%.40s' is not " DURATION_FORMS
			   " or UNLIMITED, Partition_Limit, INVALID" DURATION_FIX
			   ", or leave it empty", tl);
	return FW_OK;
}

/* The bad item at 1-based offset `at` of TRES column c: its column, its
 * key and what that key takes (mem=62.50G, cpu=16, ...). */
static int bad_tres(const struct sctx *x, int c, size_t at)
{
	const char *item = fld(x, c) + at - 1;
	size_t n = strcspn(item, ","), kn = strcspn(item, "=");
	int i = x->c->pos[c];
	char field[48];

	if (kn >= n)
		return fw_diag_set(x->d, FW_EINVAL, x->c->fname, x->lno, x->f->col[i] + (int)at - 1, sname[c],
				   "'%.*s' is not key=value; write the list as sacct prints it, "
				   "key=value items split by commas (e.g. cpu=16,gres/gpu=4,mem=62.50G)",
				   (int)(n < 60 ? n : 60), item);
	snprintf(field, sizeof field, "%s %.*s=", sname[c], (int)(kn < 20 ? kn : 20), item);
	return fw_diag_set(x->d, FW_EINVAL, x->c->fname, x->lno, x->f->col[i] + (int)at - 1, field,
			   "'%.*s' is not %s", (int)(n - kn - 1 < 40 ? n - kn - 1 : 40), item + kn + 1,
			   kn == 3 && !memcmp(item, "mem", 3)
				   ? "a size; give N or N.N (at most 6 decimals) with K, M, G, T or P, "
				     "as sacct prints it: mem=62.50G"
				   : "a whole number; write it in decimal digits only (at most 15)");
}

/* TRES and NNodes -> tasks x gpus_per_task; ROW_NO_GPU: no GPUs (skip). */
static int shape(const struct sctx *x, struct sjob *j)
{
	int c = *fld(x, S_ALLOC) || x->c->pos[S_REQ] < 0 ? S_ALLOC : S_REQ;
	const char *nn = fld(x, S_NNODES);
	struct tres t;
	size_t at = parse_tres(fld(x, c), &t);

	if (at)
		return bad_tres(x, c, at);
	if (!t.gpus)
		return ROW_NO_GPU;
	j->tasks = t.nodes ? t.nodes : 1;
	if ((*nn && !digits(nn, strlen(nn), &j->tasks)) || j->tasks < 1 ||
	    j->tasks > FW_TRACE_MAX_TASKS)
		return bad(x, S_NNODES, "'%.40s' is not a node count 1..65536; give the "
			   "job's nodes as a whole number in that range", nn);
	if (t.gpus % j->tasks)
		return bad(x, c, "'%.60s': the GPUs do not split evenly over the nodes "
			   "(fairway gives every task of a job the same GPU count); fix "
			   "NNodes or the GPU count, or drop the row", fld(x, c));
	if (t.gpus / j->tasks > FW_MAX_GPUS_PER_NODE)
		return bad(x, c, "'%.60s': more than 16 GPUs per node (a node has at most "
			   "16); check NNodes against the GPU count, or drop the row", fld(x, c));
	if (t.cpu / j->tasks > FW_TRACE_MAX_CPU / 1000 || t.mem / j->tasks > FW_TRACE_MAX_MEM)
		return fw_diag_set(x->d, FW_EINVAL, x->c->fname, x->lno, x->f->col[x->c->pos[c]],
				   sname[c], "'%.60s': cpu or mem per node out of range (at most "
				   "%lld CPUs and %lld MiB per node); check cpu=, mem= and "
				   "NNodes, or drop the row", fld(x, c),
				   (long long)(FW_TRACE_MAX_CPU / 1000), (long long)FW_TRACE_MAX_MEM);
	j->gpt = t.gpus / j->tasks;
	j->cpu = t.cpu * 1000 / j->tasks;
	j->mem = t.mem / j->tasks;
	if ((x->c->flags & FW_SACCT_NO_MODEL) || !t.model[0])
		return FW_OK;
	if (!plain_name(t.model)) /* was left out silently */
		return bad(x, c, "GPU type '%.40s' is not a plain name (1..63 printable "
			   "bytes, no space, quote, backslash or comma); pass --no-gpu-model "
			   "to leave GPU types out", t.model);
	memcpy(j->model, t.model, strlen(t.model) + 1); /* plain_name: < FW_NAME_MAX bytes */
	return FW_OK;
}

static int prio(const struct sctx *x, struct sjob *j)
{
	const char *p = fld(x, S_PRIO);

	j->prio = 0;
	if (*p && (!digits(p, strlen(p), &j->prio) || j->prio > UINT32_MAX))
		return bad(x, S_PRIO, "'%.40s' is not a whole number 0..4294967295 (Slurm's "
			   "priorities); give one in that range, or leave it empty (priority 0)", p);
	if (j->prio > FW_TRACE_MAX_PRIO) { /* a trace's range: cut, counted, said */
		j->prio = FW_TRACE_MAX_PRIO;
		x->c->cnt.prio_cut++;
	}
	return FW_OK;
}

/* One data row: FW_OK (kept), a ROW_ reason it is left out, or an error. */
static int data_row(const struct sctx *x, struct sjob *j)
{
	int idc = x->c->pos[S_JOBID] >= 0 ? S_JOBID : S_JOBIDRAW, rc;

	if (x->f->n != x->c->nhdr)
		return fw_diag_set(x->d, FW_EINVAL, x->c->fname, x->lno, 1, "row",
				   "has %d fields, the header has %d; give each row one field "
				   "per header column (was the file cut or edited? export it "
				   "again with sacct --parsable2)", x->f->n, x->c->nhdr);
	if (strchr(fld(x, idc), '.'))
		return ROW_STEP;
	memset(j, 0, sizeof *j);
	if (never_ran(x))
		return ROW_NEVER_RAN;
	if (unfinished(x))
		return ROW_UNFINISHED;
	if ((rc = name_col(x, idc, j->id, true)) || (rc = name_col(x, S_USER, j->user, false)) ||
	    (rc = name_col(x, x->c->pos[S_ACCOUNT] >= 0 && *fld(x, S_ACCOUNT) ? S_ACCOUNT
			   : S_PARTITION, j->queue, false)) ||
	    (rc = times(x, j)) || (rc = prio(x, j)))
		return rc;
	return shape(x, j);
}

/* The sacct command whose output the converter reads (the usage's). */
#define SACCT_EXPORT                                                           \
	"sacct --parsable2 --format JobID,JobIDRaw,User,Account,Partition,"    \
	"Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,NNodes,State,"   \
	"Priority"

/* The first column the conversion needs that the header lacks, or NULL. */
static const char *missing(const struct sconv *c)
{
	if (c->pos[S_SUBMIT] < 0)
		return "Submit";
	if (c->pos[S_START] < 0)
		return "Start";
	if (c->pos[S_ELAPSED] < 0 && c->pos[S_END] < 0)
		return "Elapsed (or End)";
	if (c->pos[S_ALLOC] < 0 && c->pos[S_REQ] < 0)
		return "AllocTRES (or ReqTRES)";
	return NULL;
}

static int header(struct sconv *c, const struct sfields *f, int lno, struct fw_diag *d)
{
	for (int k = 0; k < S_COUNT; k++)
		c->pos[k] = -1;
	for (int i = 0; i < f->n; i++)
		for (int k = 0; k < S_COUNT; k++)
			if (strcmp(f->f[i], sname[k]) == 0) {
				if (c->pos[k] >= 0)
					return fw_diag_set(d, FW_EINVAL, c->fname, lno, f->col[i],
							   "header", "column '%s' appears twice; keep one "
							   "(name it once in sacct --format)", sname[k]);
				c->pos[k] = i;
			}
	if (c->pos[S_JOBID] < 0 && c->pos[S_JOBIDRAW] < 0)
		return fw_diag_set(d, FW_EINVAL, c->fname, lno, 1, "header",
				   "no column JobID or JobIDRaw (is this sacct --parsable2 "
				   "output?); export it with " SACCT_EXPORT " (docs/trace-format.md)");
	if (missing(c))
		return fw_diag_set(d, FW_EINVAL, c->fname, lno, 1, "header",
				   "no column %s; the header needs Submit, Start, Elapsed "
				   "(or End) and AllocTRES or ReqTRES: export it with "
				   SACCT_EXPORT " (docs/trace-format.md)", missing(c));
	c->nhdr = f->n;
	return FW_OK;
}

static int keep(struct sconv *c, const struct sjob *j)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct sjob *v = realloc(c->v, cap * sizeof *v);
		if (!v)
			return FW_ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *j;
	return FW_OK;
}

/* "7+1", a part of heterogeneous job 7 -> 1, the length of "7"; 0 for
 * any other id. */
static int het_leader(const char *id)
{
	size_t n = strspn(id, "0123456789");

	if (!n || id[n] != '+' || !id[n + 1] || strspn(id + n + 1, "0123456789") != strlen(id + n + 1))
		return 0;
	return (int)n;
}

/* A part of a heterogeneous job not ended at the dump (5+0 RUNNING): kept
 * as its id alone, so that join_het leaves the whole job out and counts
 * it once, rather than writing its ended parts as a job that finished. */
static int keep_open_part(struct sconv *c, const char *id, int lno)
{
	struct sjob j;

	memset(&j, 0, sizeof j);
	snprintf(j.id, sizeof j.id, "%s", id);
	j.het = het_leader(j.id);
	j.line = lno;
	j.open = true;
	return keep(c, &j);
}

static int line(struct sconv *c, char *text, int lno, struct fw_diag *d)
{
	struct sfields f;
	struct sjob j;
	struct sctx x = { c, &f, lno, d };
	int rc;

	if (split(text, &f))
		return fw_diag_set(d, FW_EINVAL, c->fname, lno, 1, "row",
				   "more than %d fields; is this sacct --parsable2 output? "
				   "export it with " SACCT_EXPORT, S_MAX_FIELDS);
	if (!c->nhdr)
		return header(c, &f, lno, d);
	c->cnt.rows++;
	rc = data_row(&x, &j);
	if (rc == FW_OK) {
		j.line = lno;
		j.col = f.col[c->pos[c->pos[S_JOBID] >= 0 ? S_JOBID : S_JOBIDRAW]];
		j.het = het_leader(j.id);
		return keep(c, &j);
	}
	const char *id = fld(&x, c->pos[S_JOBID] >= 0 ? S_JOBID : S_JOBIDRAW);
	if (rc == ROW_UNFINISHED && het_leader(id)) /* counted once for its job, in join_het */
		return keep_open_part(c, id, lno);
	c->cnt.never_ran += rc == ROW_NEVER_RAN;
	c->cnt.steps += rc == ROW_STEP;
	c->cnt.no_gpu += rc == ROW_NO_GPU;
	c->cnt.unfinished += rc == ROW_UNFINISHED;
	return rc > 0 ? FW_OK : rc;
}

static int walk(struct sconv *c, const char *buf, size_t len, struct fw_diag *d)
{
	size_t at = 0;
	int lno = 0, rc = FW_OK;

	while (at < len && rc == FW_OK) {
		const char *p = buf + at, *nl = memchr(p, '\n', len - at);
		size_t n = nl ? (size_t)(nl - p) : len - at;
		char *text;
		at += n + (nl ? 1 : 0);
		lno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (lno == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
			p += 3; /* a UTF-8 byte-order mark */
			n -= 3;
		}
		if (n == 0)
			continue;
		if (memchr(p, 0, n))
			return fw_diag_set(d, FW_EINVAL, c->fname, lno, 1, "row",
					   "contains a NUL byte: this is not a text file; give "
					   "sacct --parsable2's text output (decompress it first "
					   "if it is compressed)");
		if (!(text = malloc(n + 1)))
			return FW_ENOMEM;
		memcpy(text, p, n);
		text[n] = 0;
		rc = line(c, text, lno, d);
		free(text);
	}
	if (rc == FW_OK && !c->nhdr)
		return fw_diag_set(d, FW_EINVAL, c->fname, 1, 1, "header",
				   "the file is empty; save sacct's output into it: "
				   SACCT_EXPORT " > FILE");
	return rc;
}

/* A trace without jobs cannot be replayed: an error once the parts of
 * heterogeneous jobs are joined or left out (join_het). */
static int no_jobs(const struct sconv *c, struct fw_diag *d)
{
	if (c->n)
		return FW_OK;
	return fw_diag_set(d, FW_EINVAL, c->fname, 0, 0, NULL,
			   "no job to convert: %zu never started, %zu not ended "
			   "when sacct ran, %zu without GPUs, %zu job steps; check "
			   "sacct's --starttime, --endtime and --allusers, or export "
			   "again once the jobs have ended", c->cnt.never_ran,
			   c->cnt.unfinished, c->cnt.no_gpu, c->cnt.steps);
}

/* ---- heterogeneous jobs ------------------------------------------------ */

/* Parts first, by leader; other jobs after them.  0: same leader. */
static int by_leader(const struct sjob *x, const struct sjob *y)
{
	int k = (y->het > 0) - (x->het > 0);

	if (!k && x->het)
		k = x->het != y->het ? x->het - y->het : strncmp(x->id, y->id, (size_t)x->het);
	return k;
}

static int by_leader_then_line(const void *a, const void *b)
{
	const struct sjob *x = *(const struct sjob *const *)a, *y = *(const struct sjob *const *)b;
	int k = by_leader(x, y);

	return k ? k : (x->line > y->line) - (x->line < y->line);
}

/* Parts one gang can stand for: the trace gives a job one task shape,
 * one queue and one submit time. */
static bool same_shape(const struct sjob *a, const struct sjob *b)
{
	return a->submit == b->submit && a->gpt == b->gpt && a->cpu == b->cpu && a->mem == b->mem &&
	       !strcmp(a->model, b->model) && !strcmp(a->queue, b->queue);
}

/* The n parts g[0..n) (by line) of one job: one gang named by the leader,
 * its tasks the parts' nodes, running as long as its longest part, when
 * they agree; else each stays a job of its own, counted. */
static void join_parts(struct sconv *c, struct sjob **g, size_t n)
{
	int64_t tasks = 0;

	for (size_t i = 0; i < n; i++)
		tasks += same_shape(g[0], g[i]) ? g[i]->tasks : FW_TRACE_MAX_TASKS + 1;
	if (tasks > FW_TRACE_MAX_TASKS) {
		c->cnt.het_split++;
		return;
	}
	g[0]->id[g[0]->het] = 0;
	g[0]->tasks = tasks;
	for (size_t i = 1; i < n; i++) {
		g[0]->duration = g[i]->duration > g[0]->duration ? g[i]->duration : g[0]->duration;
		g[0]->expected = g[i]->expected > g[0]->expected ? g[i]->expected : g[0]->expected;
		g[0]->prio = g[i]->prio > g[0]->prio ? g[i]->prio : g[0]->prio;
		g[i]->gone = true;
	}
	c->cnt.het_joined++;
}

static bool any_open(struct sjob *const *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (g[i]->open)
			return true;
	return false;
}

/* A heterogeneous job with a part not ended at the dump: left out whole,
 * its ended parts too (Slurm runs the parts together), and counted once
 * as a job not ended. */
static void drop_open_job(struct sconv *c, struct sjob **g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		g[i]->gone = true;
	c->cnt.unfinished++;
}

/* Join each heterogeneous job's parts (a job of one part kept stays as
 * it is; a job with a part not ended is left out, drop_open_job), then drop the joined rows, the order of the others kept. */
static int join_het(struct sconv *c)
{
	struct sjob **v = malloc((c->n + 1) * sizeof *v);
	size_t i, k, m = 0;

	if (!v)
		return FW_ENOMEM;
	for (i = 0; i < c->n; i++)
		v[i] = &c->v[i];
	qsort(v, c->n, sizeof *v, by_leader_then_line);
	for (i = 0; i < c->n && v[i]->het; i = k) {
		for (k = i + 1; k < c->n && v[k]->het && !by_leader(v[i], v[k]); k++)
			;
		if (any_open(v + i, k - i))
			drop_open_job(c, v + i, k - i);
		else if (k - i > 1)
			join_parts(c, v + i, k - i);
	}
	free(v);
	for (i = 0; i < c->n; i++)
		if (!c->v[i].gone)
			c->v[m++] = c->v[i];
	c->n = m;
	return FW_OK;
}

/* Write the kept jobs as generic CSV into a memory stream; a max_runtime
 * column last with FW_SACCT_TIME_LIMITS (so the output without it is
 * what it always was). */
static int emit(const struct sconv *c, char **out, size_t *out_len)
{
	FILE *f = open_memstream(out, out_len);
	int64_t t0 = INT64_MAX;
	bool lim = c->flags & FW_SACCT_TIME_LIMITS;

	if (!f)
		return FW_ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		t0 = c->v[i].submit < t0 ? c->v[i].submit : t0;
	fprintf(f, "job_id,submit_time,duration,expected_runtime,queue,user,priority,"
		   "tasks,gpus_per_task,cpu_milli,mem_mib,gpu_model%s\n", lim ? ",max_runtime" : "");
	for (size_t i = 0; i < c->n; i++) {
		const struct sjob *j = &c->v[i];
		char exp[24] = "";
		if (j->expected >= 0)
			snprintf(exp, sizeof exp, "%lld", (long long)j->expected);
		fprintf(f, "%s,%lld,%lld,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%s", j->id,
			(long long)(j->submit - t0), (long long)j->duration, exp, j->queue,
			j->user, (long long)j->prio, (long long)j->tasks, (long long)j->gpt,
			(long long)j->cpu, (long long)j->mem, j->model);
		if (lim && j->expected > 0 && j->expected <= FW_SPAN32_MAX)
			fprintf(f, ",%s\n", exp);
		else
			fputs(lim ? ",\n" : "\n", f);
	}
	return fclose(f) == 0 ? FW_OK : FW_ENOMEM;
}

static int by_id_then_line(const void *a, const void *b)
{
	const struct sjob *x = *(const struct sjob *const *)a, *y = *(const struct sjob *const *)b;
	int k = strcmp(x->id, y->id);

	return k ? k : (x->line > y->line) - (x->line < y->line);
}

/* Each kept job's JobID once: the generic reader (and so the simulator)
 * refuses a repeated job_id, so the converter refuses it first, at the
 * sacct line that repeats it.  O(n log n). */
static int check_repeats(const struct sconv *c, struct fw_diag *d)
{
	const struct sjob **v = malloc((c->n + 1) * sizeof *v), *bad = NULL, *first = NULL;

	if (!v)
		return FW_ENOMEM;
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].open) /* its job is left out (join_het) */
			v[n++] = &c->v[i];
	qsort(v, n, sizeof *v, by_id_then_line);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[i]->id, v[i - 1]->id) && (!bad || v[i]->line < bad->line))
			bad = v[i], first = v[i - 1];
	free(v);
	if (!bad)
		return FW_OK;
	return fw_diag_set(d, FW_EINVAL, c->fname, bad->line, bad->col, "JobID",
			   "'%s' repeats the job on line %d (sacct --duplicates lists a requeued job "
			   "once per run, or the file joins two exports); drop the repeated rows, or "
			   "run sacct without --duplicates",
			   bad->id, first->line);
}

int fw_sacct_convert(const char *buf, size_t len, const char *fname, unsigned flags,
		     char **out, size_t *out_len, struct fw_sacct_counts *cnt,
		     struct fw_diag *d)
{
	struct sconv c;
	int rc;

	memset(&c, 0, sizeof c);
	c.fname = fname ? fname : "<buffer>";
	c.flags = flags;
	*out = NULL;
	*out_len = 0;
	rc = walk(&c, buf, len, d);
	if (rc == FW_OK) /* a part twice (7+0, 7+0) is a repeat, not a bigger gang */
		rc = check_repeats(&c, d);
	if (rc == FW_OK)
		rc = join_het(&c);
	if (rc == FW_OK) /* a joined 7 beside a row 7 */
		rc = check_repeats(&c, d);
	if (rc == FW_OK)
		rc = no_jobs(&c, d);
	if (rc == FW_OK && (rc = emit(&c, out, out_len)) != FW_OK) {
		free(*out);
		*out = NULL;
	}
	if (rc == FW_ENOMEM)
		fw_diag_set(d, rc, c.fname, 0, 0, NULL, "out of memory");
	*cnt = c.cnt;
	free(c.v);
	return rc;
}

/* The output, whole or not at all (outfile.h): a file is written beside
 * PATH and renamed over it, so a failed write keeps an earlier one; "-"
 * is our stdout, written through.  0, or -1 with errno. */
static int write_all(const char *path, const char *buf, size_t n)
{
	struct fw_outfile o;
	int err;

	if (fw_outfile_open(&o, "OUT", strcmp(path, "-") ? path : "/dev/stdout"))
		return -1;
	err = fwrite(buf, 1, n, o.f) != n ? errno : 0;
	if (fw_outfile_close(&o) && !err)
		err = errno;
	if (!err && fw_outfile_commit(&o))
		err = errno;
	if (err) {
		fw_outfile_abort(&o);
		errno = err;
		return -1;
	}
	return 0;
}

#define SACCT_USAGE "[--no-gpu-model] [--time-limits] [--json] SACCT_FILE OUT.csv|-"

static const char sacct_help[] =
	"usage: %s " SACCT_USAGE "\n"
	"\n"
	"Convert Slurm's accounting records into fairway's trace format, so that\n"
	"`fairway sim run --format fairway` replays your own cluster's history\n"
	"through every policy.  OUT.csv '-' writes to stdout.\n"
	"\n"
	"SACCT_FILE is what this prints (columns are found by name, any order):\n"
	"  sacct --allusers --parsable2 --starttime 2024-03-01 \\\n"
	"        --format JobID,JobIDRaw,User,Account,Partition,Submit,Start,End,Elapsed,\\\n"
	"Timelimit,AllocTRES,ReqTRES,NNodes,State,Priority > sacct.txt\n"
	"\n"
	"Each job becomes one row: its Account is the queue, AllocTRES gives GPUs,\n"
	"CPUs and memory, NNodes the tasks, Timelimit the expected runtime.  Job\n"
	"steps, jobs that never started, jobs not ended when sacct ran (RUNNING,\n"
	"SUSPENDED, REQUEUED, ...: no end time) and jobs without GPUs are left out\n"
	"and counted on stderr; the parts of a heterogeneous job (7+0, 7+1) become\n"
	"one gang when they have the same shape.  Any other bad value stops with\n"
	"FILE:LINE:COLUMN.\n"
	"A single GPU type (gres/gpu:h100=8) becomes the job's gpu_model, and\n"
	"such a job starts only on nodes of exactly that model (case included;\n"
	"the nodes of --nodes are 'itp-gpu').  --no-gpu-model leaves it out, so\n"
	"the job runs on any GPU.\n"
	"--time-limits also writes each job's Timelimit as its max_runtime, so the\n"
	"replay ends a job at its limit as slurmctld did (TIMEOUT); without it\n"
	"Timelimit is only the runtime the job announced.\n"
	"--json prints the summary as one JSON object on stdout instead of the\n"
	"text on stderr: rows read, jobs written, left out (neverStarted,\n"
	"notEnded, withoutGpus), jobSteps, heterogeneous jobs joined or split,\n"
	"priorityCut (the warnings stay on stderr).  With OUT '-' stdout is the\n"
	"CSV, so --json is refused there: give OUT a file.\n"
	"The mapping, field by field, and the JSON's keys: docs/trace-format.md.\n"
	"\n"
	"Example:\n"
	"  %s sacct.txt jobs.csv          # typed GPUs (gres/gpu:h100): add --no-gpu-model\n"
	"  %s --json sacct.txt jobs.csv | jq .leftOut\n"
	"  fairway sim run --trace jobs.csv --format fairway --nodes 16x8 --policies slurm,fairway\n";

/* [--no-gpu-model] [--time-limits] [--json] SACCT_FILE OUT: NULL and the
 * names, or why it is a usage error. */
static const char *sacct_args(int argc, char **argv, unsigned *flags, bool *json, const char **in,
			      const char **out, char *why, size_t n)
{
	int npos = 0;

	*flags = 0;
	*json = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-gpu-model")) {
			*flags |= FW_SACCT_NO_MODEL;
		} else if (!strcmp(a, "--time-limits")) {
			*flags |= FW_SACCT_TIME_LIMITS;
		} else if (!strcmp(a, "--json")) {
			*json = true;
		} else if (a[0] == '-' && a[1]) {
			static const char *const known[] = { "--no-gpu-model", "--time-limits", "--json",
							     "--help", NULL };
			char hint[96];
			snprintf(why, n, "unknown option '%s'%s", a, fw_cli_hint(a, known, hint, sizeof hint));
			return why;
		} else if (a[0] == '-' && npos == 0) {
			return "SACCT_FILE cannot be '-': save sacct's output to a file first";
		} else if (npos < 2) {
			*(npos++ ? out : in) = a;
		} else {
			snprintf(why, n, "unexpected argument '%s': give SACCT_FILE and OUT", a);
			return why;
		}
	}
	if (npos < 2)
		return npos ? "missing OUT (a file, or - for stdout)" : "missing SACCT_FILE and OUT";
	if (*json && !strcmp(*out, "-"))
		return "--json prints the summary on stdout, and OUT - writes the CSV there; "
		       "give OUT a file (e.g. jobs.csv), or leave --json out (the summary is then text on stderr)";
	return NULL;
}

/* OUT naming SACCT_FILE would replace the input with the output: refuse
 * before reading it; 0, or 2 with the reason on stderr. */
static int check_paths(const char *prog, const char *src, const char *dst)
{
	const struct fw_path_use v[] = { { "SACCT_FILE", src, false },
					 { "OUT", strcmp(dst, "-") ? dst : NULL, true } };
	int first;

	if (fw_outfile_clash(v, 2, &first) < 0)
		return 0;
	fprintf(stderr, "%s: error: OUT %s is SACCT_FILE %s, and writing it would replace the input; "
		"write the output to another file (or - for stdout)\n", prog, dst, src);
	return 2;
}

/* "fairway trace sacct2fairway" as given, or the program's file name. */
static const char *prog_name(int argc, char **argv)
{
	const char *p = argc > 0 && argv[0][0] ? argv[0] : "fairway-sacct2fairway";
	const char *slash = strrchr(p, '/');

	return slash && !strchr(p, ' ') ? slash + 1 : p;
}

/* The summary on stderr: jobs written, those left out by reason, and the
 * heterogeneous jobs joined. */
static void summary(const char *prog, size_t jobs, const struct fw_sacct_counts *k)
{
	size_t out = k->never_ran + k->unfinished + k->no_gpu;

	fprintf(stderr, "%s: %zu job%s written; %zu left out: %zu never started, %zu not ended "
		"at the dump (running, suspended or requeued: no end time), %zu without GPUs\n",
		prog, jobs, jobs == 1 ? "" : "s", out, k->never_ran, k->unfinished, k->no_gpu);
	if (k->het_joined)
		fprintf(stderr, "%s: %zu heterogeneous job%s (JobID N+K) each joined into one gang\n",
			prog, k->het_joined, k->het_joined == 1 ? "" : "s");
}

/* The summary's warnings on stderr, with --json too: what the trace could
 * not keep, and what to do about it. */
static void warnings(const char *prog, const struct fw_sacct_counts *k)
{
	if (k->het_split)
		fprintf(stderr, "%s: warning: %zu heterogeneous job%s written as a job per part: "
			"the parts differ in shape, queue or submit time, which one trace row cannot "
			"say, so the replay may start one part without the others\n",
			prog, k->het_split, k->het_split == 1 ? "" : "s");
	if (k->prio_cut)
		fprintf(stderr, "%s: warning: %zu job%s with a Priority above 1000000000 (a trace's "
			"highest) written as 1000000000: their order among themselves is lost; "
			"if it matters, rescale the column (e.g. divide it by 5) before converting\n",
			prog, k->prio_cut, k->prio_cut == 1 ? "" : "s");
}

/* --json: the summary's counts as one object on stdout, camelCase keys
 * (docs/trace-format.md, "The summary as JSON"); 0, or -1 when stdout
 * cannot take it. */
static int summary_json(const char *src, const char *dst, unsigned flags, size_t jobs,
			const struct fw_sacct_counts *k)
{
	json_t *o = json_pack("{s:s,s:s,s:b,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "sacctFile", src,
			      "out", dst, "gpuModels", !(flags & FW_SACCT_NO_MODEL), "timeLimits",
			      (flags & FW_SACCT_TIME_LIMITS) != 0, "rows", (json_int_t)k->rows, "jobsWritten",
			      (json_int_t)jobs, "leftOut", (json_int_t)(k->never_ran + k->unfinished + k->no_gpu),
			      "neverStarted", (json_int_t)k->never_ran, "notEnded", (json_int_t)k->unfinished,
			      "withoutGpus", (json_int_t)k->no_gpu, "jobSteps", (json_int_t)k->steps,
			      "heterogeneousJoined", (json_int_t)k->het_joined, "heterogeneousSplit",
			      (json_int_t)k->het_split, "priorityCut", (json_int_t)k->prio_cut);
	int rc = o && json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', stdout) != EOF &&
		 fflush(stdout) == 0 ? 0 : -1;

	json_decref(o);
	return rc;
}

int fw_sacct_convert_cli(int argc, char **argv)
{
	const char *prog = prog_name(argc, argv), *src, *dst, *usage;
	struct fw_diag d;
	char *in, *out, msg[1024], why[256];
	size_t len, olen, jobs = 0;
	struct fw_sacct_counts cnt;
	unsigned flags;
	bool json;
	int rc;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf(sacct_help, prog, prog, prog);
		return 0;
	}
	if ((usage = sacct_args(argc, argv, &flags, &json, &src, &dst, why, sizeof why))) {
		fprintf(stderr, "%s: error: %s\n"
			"usage: %s " SACCT_USAGE "\n"
			"  SACCT_FILE: sacct --parsable2 output (see docs/trace-format.md)\n"
			"  (--help shows the sacct command to run)\n",
			prog, usage, prog);
		return 2;
	}
	if (check_paths(prog, src, dst))
		return 2;
	memset(&d, 0, sizeof d);
	if ((rc = fw_itp_slurp(src, &in, &len, &d)) == FW_OK) {
		rc = fw_sacct_convert(in, len, src, flags, &out, &olen, &cnt, &d);
		free(in);
	}
	if (rc != FW_OK) {
		fw_itp_diag_str(&d, msg, sizeof msg);
		fprintf(stderr, "%s: error: %s%s\n", prog, msg, rc == FW_EIO ?
			"; give SACCT_FILE as the path of a file holding sacct's output" : "");
		return 1;
	}
	for (size_t i = 0; i < olen; i++)
		jobs += out[i] == '\n';
	rc = write_all(dst, out, olen);
	free(out);
	if (rc) {
		fprintf(stderr, "%s: error: cannot write %s: %s; give OUT a path you may "
			"write, on a disk with room\n", prog, dst, strerror(errno));
		return 1;
	}
	if (!json)
		summary(prog, jobs - 1, &cnt);
	warnings(prog, &cnt);
	if (json && summary_json(src, dst, flags, jobs - 1, &cnt)) {
		fprintf(stderr, "%s: error: cannot write the --json summary to stdout: %s; %s is written\n", prog,
			strerror(errno), dst);
		return 1;
	}
	return 0;
}
