/*
 * generic.c — fairway's own trace format, CSV and JSONL (contract in
 * trace.h, specification in docs/trace-format.md).
 *
 * Both syntaxes share one table of columns and one converter per value
 * (set_field), so a value means the same thing in either file: CSV gives
 * every value as text; JSONL numbers are printed back to decimal text and
 * go through the same strict integer parser, so "1e3", 2.5 and overflow
 * are rejected the same way.  JSON is parsed by jansson, one object per
 * line (duplicate keys rejected).  A JSONL value's column is the column of
 * its key's first occurrence on the line (jansson keeps no positions).
 *
 * After a row's fields are set, check_job() applies the cross-field rules
 * (fractions only on 1-GPU tasks, min_member <= tasks) and the job id must
 * be new (open-addressing table of row indices keyed by FNV-1a).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "openb.h"
#include "teams.h"
#include "trace.h"

enum gcol {
	G_ID, G_SUBMIT, G_DUR, G_EXP, G_QUEUE, G_USER, G_PRIO, G_TASKS,
	G_GPUS, G_MILLI, G_CPU, G_MEM, G_MIN, G_TREQ, G_TPREF, G_MODEL,
	G_MAXRT, G_COUNT
};

/* Every column, for a refusal of one that is not (the order of gname). */
#define ALL_COLUMNS                                                          \
	"job_id, submit_time, duration, expected_runtime, queue, user, "    \
	"priority, tasks, gpus_per_task, gpu_milli, cpu_milli, mem_mib, "    \
	"min_member, topology_required, topology_preferred, gpu_model, "     \
	"max_runtime"
/* The optional ones (every column but the four required()). */
#define OTHER_COLUMNS                                                        \
	"expected_runtime, queue, user, priority, tasks, gpu_milli, "        \
	"cpu_milli, mem_mib, min_member, topology_required, "                \
	"topology_preferred, gpu_model, max_runtime"

static const char *const gname[G_COUNT] = {
	"job_id", "submit_time", "duration", "expected_runtime", "queue",
	"user", "priority", "tasks", "gpus_per_task", "gpu_milli",
	"cpu_milli", "mem_mib", "min_member", "topology_required",
	"topology_preferred", "gpu_model", "max_runtime",
};

static bool required(int c)
{
	return c == G_ID || c == G_SUBMIT || c == G_DUR || c == G_GPUS;
}

static bool is_name_col(int c)
{
	return c == G_ID || c == G_QUEUE || c == G_USER || c == G_TREQ ||
	       c == G_TPREF || c == G_MODEL;
}

static int col_index(const char *p, size_t n)
{
	for (int c = 0; c < G_COUNT; c++)
		if (strlen(gname[c]) == n && memcmp(gname[c], p, n) == 0)
			return c;
	return -1;
}

struct idset {
	uint32_t *slot; /* row index + 1; 0 = empty */
	size_t cap;
};

struct gparser {
	const char *fname;
	unsigned flags;
	int pos[G_COUNT];   /* CSV: field index of each column, -1 = absent */
	int nhdr;
	struct fw_trace *out;
	struct idset ids;
};

/* ---- values ------------------------------------------------------------- */

static void show(const char *p, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < cap && k < 40; i++)
		buf[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	buf[k] = 0;
}

/* Strict decimal integer (optional '-') in [lo, hi]; NULL or the reason. */
static const char *parse_i64(const char *p, size_t n, int64_t lo, int64_t hi,
			     int64_t *v, char *why, size_t cap)
{
	char s[48];
	size_t i = (n > 0 && p[0] == '-') ? 1 : 0;
	bool neg = i == 1, ok = n > i;
	int64_t x = 0, lim = neg ? -lo : hi;

	show(p, n, s, sizeof s);
	for (size_t k = i; k < n; k++)
		ok = ok && p[k] >= '0' && p[k] <= '9';
	if (!ok) {
		bool frac = n && memchr(p, '.', n);
		snprintf(why, cap, "'%s' is not a whole number%s; %s", s,
			 frac ? "" : " (digits only)",
			 frac ? "round it: the columns take whole numbers only"
			      : "write it in decimal digits, e.g. 3600");
		return why;
	}
	for (; i < n && x <= lim; i++)
		x = x * 10 + (p[i] - '0');
	if (neg)
		x = -x;
	if (i == n && x >= lo && x <= hi && !(neg && lo >= 0)) { /* "-0": no sign */
		*v = x;
		return NULL;
	}
	snprintf(why, cap, "'%s' is out of range %lld..%lld; give a value in "
		 "that range (docs/trace-format.md, the column's row)", s,
		 (long long)lo, (long long)hi);
	return why;
}

/* 1..63 printable bytes, no space, quote, backslash or comma. */
static const char *parse_name(const char *p, size_t n, char *dst, char *why,
			      size_t cap)
{
	char s[48];

	show(p, n, s, sizeof s);
	if (n >= FW_NAME_MAX) {
		snprintf(why, cap, "'%s...' is longer than %d bytes; shorten it", s,
			 FW_NAME_MAX - 1);
		return why;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i] <= 0x20 || p[i] >= 0x7f || p[i] == '"' ||
		    p[i] == '\\' || p[i] == ',') {
			snprintf(why, cap, "'%s' has a space, quote, backslash,"
				 " comma, control or non-ASCII byte; names are "
				 "printable ASCII, so rename it without them", s);
			return why;
		}
	memcpy(dst, p, n);
	dst[n] = 0;
	return NULL;
}

static int64_t col_hi(int c)
{
	switch (c) {
	case G_SUBMIT: case G_DUR: case G_EXP: return FW_TRACE_MAX_TIME;
	/* fw_job.max_runtime_s is 32-bit: the smaller bound */
	case G_MAXRT: return FW_TRACE_MAX_TIME < FW_SPAN32_MAX ? FW_TRACE_MAX_TIME : FW_SPAN32_MAX;
	case G_PRIO: return FW_TRACE_MAX_PRIO;
	case G_TASKS: case G_MIN: return FW_TRACE_MAX_TASKS;
	case G_GPUS: return FW_MAX_GPUS_PER_NODE;
	case G_MILLI: return 1000;
	case G_CPU: return FW_TRACE_MAX_CPU;
	default: return FW_TRACE_MAX_MEM;
	}
}

static int64_t col_lo(int c)
{
	return c == G_PRIO ? -FW_TRACE_MAX_PRIO : (c == G_TASKS || c == G_MILLI) ? 1 : 0;
}

static void store_num(struct fw_trace_job *j, int c, int64_t v)
{
	struct fw_trace_group *g = &j->groups[0];

	switch (c) {
	case G_SUBMIT: j->submit = v; break;
	case G_DUR: j->duration = v; break;
	case G_EXP: j->expected = v; break;
	case G_MAXRT: j->max_runtime = (int32_t)v; break;
	case G_PRIO: j->priority = (int32_t)v; break;
	case G_TASKS: g->count = (int32_t)v; break;
	case G_GPUS: g->gpus = (int32_t)v; break;
	case G_MILLI: g->gpu_milli = (int32_t)v; break;
	case G_CPU: g->cpu_milli = v; break;
	case G_MEM: g->mem_mib = v; break;
	default: j->min_member = (int32_t)v; break;
	}
}

static char *name_dst(struct fw_trace_job *j, int c)
{
	switch (c) {
	case G_ID: return j->id;
	case G_QUEUE: return j->queue;
	case G_USER: return j->user;
	case G_TREQ: return j->topo_required;
	case G_TPREF: return j->topo_preferred;
	default: return j->gpu_model;
	}
}

/* Set column c from text; an empty optional value keeps the default. */
static const char *set_field(struct fw_trace_job *j, int c, const char *p,
			     size_t n, char *why, size_t cap)
{
	int64_t v;

	if (n == 0) {
		if (!required(c))
			return NULL;
		snprintf(why, cap, "is empty (the column is required); give "
			 "a value");
		return why;
	}
	if (is_name_col(c))
		return parse_name(p, n, name_dst(j, c), why, cap);
	if (parse_i64(p, n, col_lo(c), col_hi(c), &v, why, cap))
		return why;
	store_num(j, c, v);
	return NULL;
}

static void job_defaults(struct fw_trace_job *j, int lno)
{
	memset(j, 0, sizeof *j);
	j->expected = -1;
	j->ngroups = 1;
	j->groups[0].count = 1;
	j->groups[0].gpu_milli = 1000;
	j->line = lno;
}

/* Cross-field rules; returns the offending column or -1. */
static int check_job(struct fw_trace_job *j, char *why, size_t cap)
{
	const struct fw_trace_group *g = &j->groups[0];

	if (j->expected < 0)
		j->expected = j->duration;
	if (g->gpu_milli < 1000 && g->gpus != 1) {
		snprintf(why, cap, "%d is a fraction of a GPU, allowed only "
			 "with gpus_per_task = 1 (got %d); give gpus_per_task 1, "
			 "or leave gpu_milli empty (1000, whole GPUs)", g->gpu_milli, g->gpus);
		return G_MILLI;
	}
	if (j->min_member > g->count) {
		snprintf(why, cap, "%d is more than the job's %d tasks; give "
			 "at most %d (or 0 or empty: all of them)",
			 j->min_member, g->count, g->count);
		return G_MIN;
	}
	if (g->gpus == 0 && g->cpu_milli == 0 && g->mem_mib == 0) {
		snprintf(why, cap, "0 with no cpu_milli or mem_mib: the task "
			 "asks for nothing, and would hold its place for ever; "
			 "give gpus_per_task, cpu_milli or mem_mib above 0");
		return G_GPUS;
	}
	return -1;
}

/* ---- duplicate ids ------------------------------------------------------ */

static size_t ids_home(const struct idset *t, const char *id)
{
	return (size_t)fw_fnv1a64(id, strlen(id)) & (t->cap - 1);
}

static int ids_grow(struct idset *t, const struct fw_trace *tr)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	uint32_t *s = calloc(cap, sizeof *s);

	if (!s)
		return FW_ENOMEM;
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	for (size_t r = 0; r < tr->n; r++) {
		size_t h = ids_home(t, tr->v[r].id);
		while (t->slot[h])
			h = (h + 1) & (cap - 1);
		t->slot[h] = (uint32_t)r + 1;
	}
	return FW_OK;
}

/* Line of an earlier job with this id, or 0. */
static int ids_seen(const struct idset *t, const struct fw_trace *tr, const char *id)
{
	for (size_t h = ids_home(t, id); t->slot[h]; h = (h + 1) & (t->cap - 1))
		if (strcmp(tr->v[t->slot[h] - 1].id, id) == 0)
			return tr->v[t->slot[h] - 1].line;
	return 0;
}

/* Append a checked job (id new); FW_EINVAL with *d on a duplicate. */
static int add_job(struct gparser *ps, const struct fw_trace_job *j, int col,
		   struct fw_diag *d)
{
	int prev;

	if ((ps->out->n + 1) * 2 > ps->ids.cap && ids_grow(&ps->ids, ps->out))
		return FW_ENOMEM;
	if ((prev = ids_seen(&ps->ids, ps->out, j->id)))
		return fw_diag_set(d, FW_EINVAL, ps->fname, j->line, col, "job_id",
				   "'%s' repeats the job on line %d; give each "
				   "job its own job_id", j->id, prev);
	if (fw_trace_push(ps->out, j))
		return FW_ENOMEM;
	size_t h = ids_home(&ps->ids, j->id);
	while (ps->ids.slot[h])
		h = (h + 1) & (ps->ids.cap - 1);
	ps->ids.slot[h] = (uint32_t)ps->out->n;
	return FW_OK;
}

/* A bad row: keep going under SKIP_BAD (count it), else fail. */
static int bad_row(struct gparser *ps, int rc, struct fw_diag *d)
{
	if (rc != FW_EINVAL || !(ps->flags & FW_TRACE_SKIP_BAD))
		return rc;
	if (ps->out->skipped++ == 0)
		ps->out->first_bad = *d;
	return FW_OK;
}

/* ---- CSV ---------------------------------------------------------------- */

/* Is the header line a data row: no field names a column, and one is a
 * number?  So it reads when the file has no header line, its first row
 * taken for one (a header of another format names no number). */
static bool looks_like_a_row(const struct fw_csv_rec *r)
{
	bool number = false;

	for (size_t i = 0; i < r->nf; i++) {
		size_t n = strlen(r->f[i]);
		if (col_index(r->f[i], n) >= 0)
			return false;
		number |= n && strspn(r->f[i], "0123456789") == n;
	}
	return number;
}

static int csv_header(struct gparser *ps, const struct fw_csv_rec *r, int lno,
		      struct fw_diag *d)
{
	char first[48];

	show(r->f[0], strlen(r->f[0]), first, sizeof first);
	if (r->f[0][0] && looks_like_a_row(r))
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[0], "header",
				   "unknown column '%.20s': the first line is read as the "
				   "header and names no column; add a header line first. "
				   "The columns: %s (the first 4 required; "
				   "docs/trace-format.md)", first,
				   "job_id, submit_time, duration, gpus_per_task, " OTHER_COLUMNS);
	for (int c = 0; c < G_COUNT; c++)
		ps->pos[c] = -1;
	for (size_t i = 0; i < r->nf; i++) {
		int c = col_index(r->f[i], strlen(r->f[i]));
		char s[48];
		show(r->f[i], strlen(r->f[i]), s, sizeof s);
		if (c < 0 && !r->f[i][0])
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i], "header",
					   "column %zu has no name (a trailing or doubled "
					   "comma?); see docs/trace-format.md", i + 1);
		if (c < 0)
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i], "header",
					   "unknown column '%s'; the columns are %s "
					   "(docs/trace-format.md): rename it or "
					   "remove it", s, ALL_COLUMNS);
		if (ps->pos[c] >= 0)
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i], "header",
					   "column '%s' appears twice; keep one", s);
		ps->pos[c] = (int)i;
	}
	for (int c = 0; c < G_COUNT; c++)
		if (required(c) && ps->pos[c] < 0)
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, 1, "header",
					   "missing required column '%s'; add it "
					   "to the header, and a value to each row "
					   "(docs/trace-format.md)", gname[c]);
	ps->nhdr = (int)r->nf;
	return FW_OK;
}

static int csv_row(struct gparser *ps, const struct fw_csv_rec *r, int lno,
		   struct fw_diag *d)
{
	struct fw_trace_job j;
	char why[256];
	int c;

	if ((int)r->nf != ps->nhdr)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[r->nf - 1], "row",
				   "has %zu fields, the header has %d; give each "
				   "row one field per column (an empty field "
				   "takes an optional column's default: a,,b), "
				   "and quote a value holding a comma", r->nf, ps->nhdr);
	job_defaults(&j, lno);
	for (c = 0; c < G_COUNT; c++) {
		int i = ps->pos[c];
		if (i >= 0 && set_field(&j, c, r->f[i], strlen(r->f[i]), why, sizeof why))
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i],
					   gname[c], "%s", why);
	}
	if (ps->pos[G_QUEUE] >= 0) /* where a --config's queue error points */
		j.queue_col = r->col[ps->pos[G_QUEUE]];
	if ((c = check_job(&j, why, sizeof why)) >= 0)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno,
				   ps->pos[c] >= 0 ? r->col[ps->pos[c]] : 1, gname[c], "%s", why);
	return add_job(ps, &j, r->col[ps->pos[G_ID]], d);
}

/* One CSV line (no terminator) into a scratch copy, then split. */
static int csv_line(struct gparser *ps, const char *p, size_t n, int lno,
		    struct fw_diag *d)
{
	struct fw_csv_rec r;
	char *line;
	int rc = fw_csv_line(p, n, ps->fname, lno, &line, &r, d);

	if (rc == FW_OK)
		rc = ps->nhdr ? csv_row(ps, &r, lno, d) : csv_header(ps, &r, lno, d);
	free(line);
	return rc;
}

typedef int (*line_fn)(struct gparser *ps, const char *p, size_t n, int lno,
		       struct fw_diag *d);

/* Length of the prefix of p[0..n) made of bytes in set. */
static size_t strspn_n(const char *p, size_t n, const char *set)
{
	size_t i = 0;

	while (i < n && p[i] && strchr(set, p[i]))
		i++;
	return i;
}

/* Walk lines; data rows that fail go through bad_row (never the header). */
static int walk(struct gparser *ps, const char *buf, size_t len, line_fn fn,
		bool header, struct fw_diag *d)
{
	size_t at = 0;
	int lno = 0, rc;

	while (at < len) {
		const char *p = buf + at, *nl = memchr(p, '\n', len - at);
		size_t n = nl ? (size_t)(nl - p) : len - at;
		at += n + (nl ? 1 : 0);
		if (++lno == INT32_MAX)
			return fw_diag_set(d, FW_ERANGE, ps->fname, lno, 0, NULL, "too many lines");
		if (n && p[n - 1] == '\r')
			n--;
		if (lno == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
			p += 3; /* a UTF-8 byte-order mark (Excel, Notepad) */
			n -= 3;
		}
		if (strspn_n(p, n, " \t") == n)
			continue; /* blank: empty or only spaces and tabs */
		bool is_header = header && ps->nhdr == 0;
		size_t lead = strspn_n(p, n, " \t");
		if (p[lead] == '#') /* no comments: a line the reader would misread */
			rc = fw_diag_set(d, FW_EINVAL, ps->fname, lno, (int)lead + 1, is_header ? "header" : "row",
					 "a comment line: the trace format has no comments; "
					 "delete the line%s", is_header ? " (the header must be the first line)" : "");
		else
			rc = fn(ps, p, n, lno, d);
		if (rc != FW_OK &&
		    (is_header || (rc = bad_row(ps, rc, d)) != FW_OK))
			return rc;
	}
	if (header && ps->nhdr == 0)
		return fw_diag_set(d, FW_EINVAL, ps->fname, 1, 1, "header",
				   "the file is empty (no header line); give a CSV "
				   "header (job_id,submit_time,duration,gpus_per_task,...) "
				   "and a row per job, or a JSON object per line "
				   "(docs/trace-format.md)");
	return FW_OK;
}

static int run_parser(const char *buf, size_t len, const char *fname,
		      unsigned flags, struct fw_trace *out, line_fn fn,
		      bool header, struct fw_diag *d)
{
	struct gparser ps;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&ps, 0, sizeof ps);
	ps.fname = fname ? fname : "<buffer>";
	ps.flags = flags;
	ps.out = out;
	snprintf(out->file, sizeof out->file, "%s", ps.fname);
	rc = walk(&ps, buf, len, fn, header, d);
	free(ps.ids.slot);
	if (rc != FW_OK) {
		if (rc == FW_ENOMEM)
			fw_diag_set(d, rc, ps.fname, 0, 0, NULL, "out of memory");
		fw_trace_free(out);
	}
	return rc;
}

int fw_trace_parse_csv(const char *buf, size_t len, const char *fname,
		       unsigned flags, struct fw_trace *out, struct fw_diag *d)
{
	return run_parser(buf, len, fname, flags, out, csv_line, true, d);
}

/* ---- JSONL -------------------------------------------------------------- */

/* Column of "key" on the line (1 when not found). */
static int key_col(const char *p, size_t n, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k + 2 <= n; i++)
		if (p[i] == '"' && memcmp(p + i + 1, key, k) == 0 && p[i + k + 1] == '"')
			return (int)i + 1;
	return 1;
}

/* A JSON value as text for set_field; NULL (why set) on a wrong type. */
static const char *json_text(int c, json_t *v, char *tmp, size_t cap,
			     size_t *n, char *why, size_t wcap)
{
	if (json_is_null(v)) {
		*n = 0;
		return "";
	}
	if (json_is_string(v) && (is_name_col(c))) {
		*n = json_string_length(v);
		return json_string_value(v);
	}
	if (json_is_integer(v) && (!is_name_col(c) || c == G_ID)) {
		*n = (size_t)snprintf(tmp, cap, "%lld", (long long)json_integer_value(v));
		return tmp;
	}
	snprintf(why, wcap, "must be %s", c == G_ID ? "a string or a whole number; quote it (\"name\")" :
		 is_name_col(c) ? "a string; quote it (\"name\")" :
		 json_is_real(v) ? "a whole number; round it (JSON integers only)" :
		 "a number; write it without quotes (a JSON integer)");
	return NULL;
}

static int json_fields(struct gparser *ps, json_t *o, const char *p, size_t n,
		       struct fw_trace_job *j, struct fw_diag *d)
{
	const char *key, *s;
	char why[256], tmp[32];
	json_t *v;
	size_t len;
	bool seen[G_COUNT] = { false };

	json_object_foreach(o, key, v) {
		int c = col_index(key, strlen(key)), col = key_col(p, n, key);
		char shown[48];
		show(key, strlen(key), shown, sizeof shown); /* any bytes: "\u001b" */
		if (c < 0)
			return fw_diag_set(d, FW_EINVAL, ps->fname, j->line, col, shown,
					   "unknown key; the keys are %s "
					   "(docs/trace-format.md): rename it or "
					   "remove it", ALL_COLUMNS);
		if (!(s = json_text(c, v, tmp, sizeof tmp, &len, why, sizeof why)) ||
		    set_field(j, c, s, len, why, sizeof why))
			return fw_diag_set(d, FW_EINVAL, ps->fname, j->line, col, key, "%s", why);
		seen[c] = len > 0;
		if (c == G_QUEUE)
			j->queue_col = col;
	}
	for (int c = 0; c < G_COUNT; c++)
		if (required(c) && !seen[c])
			return fw_diag_set(d, FW_EINVAL, ps->fname, j->line, 1, gname[c],
					   "missing required key; add \"%s\": "
					   "with a value", gname[c]);
	return FW_OK;
}

/* The key whose number ends just before byte end of the line (jansson
 * reports a number past 64 bits there, "too big integer" or "too big
 * negative integer"), into key; false when the text
 * before it is not `"KEY": DIGITS` with KEY of [a-z_]. */
static bool key_of_number(const char *p, size_t end, char *key, size_t cap)
{
	size_t i = end, k;

	while (i > 0 && ((p[i - 1] >= '0' && p[i - 1] <= '9') || p[i - 1] == '-'))
		i--;
	while (i > 0 && (p[i - 1] == ' ' || p[i - 1] == '\t'))
		i--;
	if (i == 0 || p[--i] != ':')
		return false;
	while (i > 0 && (p[i - 1] == ' ' || p[i - 1] == '\t'))
		i--;
	if (i < 2 || p[--i] != '"')
		return false;
	for (k = i; k > 0 && ((p[k - 1] >= 'a' && p[k - 1] <= 'z') || p[k - 1] == '_'); k--)
		; /* a column's name: lower case and '_' (an odd key keeps "row") */
	if (k == 0 || p[k - 1] != '"' || i - k == 0 || i - k >= cap)
		return false;
	memcpy(key, p + k, i - k);
	key[i - k] = '\0';
	return true;
}

/* A line jansson refused: a number past 64 bits names its key and the
 * range to give (it is JSON, just too big to hold); anything else is
 * jansson's reason. */
static int not_json(const struct gparser *ps, const char *p, size_t n, int lno,
		    const json_error_t *err, struct fw_diag *d)
{
	int col = err->column > 0 ? err->column : 1;
	char key[64];

	if (strncmp(err->text, "too big ", 8) == 0 && strstr(err->text, "integer") && err->position > 0 &&
	    (size_t)err->position <= n && key_of_number(p, (size_t)err->position, key, sizeof key))
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, col, key,
				   "the number is too big (past 2^63); give a value in the "
				   "key's range (docs/trace-format.md, the column's row)");
	return fw_diag_set(d, FW_EINVAL, ps->fname, lno, col, "row",
			   "not JSON: %s; write each row as one JSON object on its own line",
			   err->text);
}

static int json_line(struct gparser *ps, const char *p, size_t n, int lno,
		     struct fw_diag *d)
{
	struct fw_trace_job j;
	json_error_t err;
	char why[256];
	json_t *o = json_loadb(p, n, JSON_REJECT_DUPLICATES, &err);
	int rc, c;

	if (!o)
		return not_json(ps, p, n, lno, &err, d);
	job_defaults(&j, lno);
	if (!json_is_object(o))
		rc = fw_diag_set(d, FW_EINVAL, ps->fname, lno, 1, "row",
				 "must be a JSON object; write the row as "
				 "{\"job_id\": ..., ...}");
	else if ((rc = json_fields(ps, o, p, n, &j, d)) == FW_OK) {
		if ((c = check_job(&j, why, sizeof why)) >= 0)
			rc = fw_diag_set(d, FW_EINVAL, ps->fname, lno,
					 key_col(p, n, gname[c]), gname[c], "%s", why);
		else
			rc = add_job(ps, &j, key_col(p, n, "job_id"), d);
	}
	json_decref(o);
	return rc;
}

int fw_trace_parse_jsonl(const char *buf, size_t len, const char *fname,
			 unsigned flags, struct fw_trace *out, struct fw_diag *d)
{
	return run_parser(buf, len, fname, flags, out, json_line, false, d);
}

int fw_trace_parse_generic(const char *buf, size_t len, const char *fname,
			   unsigned flags, struct fw_trace *out, struct fw_diag *d)
{
	size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' ||
			   buf[i] == '\n'))
		i++;
	if (i < len && buf[i] == '{')
		return fw_trace_parse_jsonl(buf, len, fname, flags, out, d);
	return fw_trace_parse_csv(buf, len, fname, flags, out, d);
}
