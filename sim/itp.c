/*
 * itp.c — the ITP trace reader (contract in itp.h).
 *
 * Shape.  The buffer is walked line by line with (pointer, length) pairs,
 * never assuming a NUL terminator, so the fuzz target can hand it any
 * bytes.  Each line is split at commas into `struct fields` (start, length,
 * 1-based column); the header maps the four column names to field
 * positions; each data row is converted by parse_row(), which fills a
 * fw_diag on the first bad value.  Numbers go through one strict decimal
 * parser (digits only, range-checked before overflow), so "-5", "1e3",
 * "12.5", " 7" and "99999999999999999999" are all errors with a reason.
 * Every refusal ends with what to do ("...; round it to a whole number of
 * GPUs, 1..4096"), as the generic reader's do (generic.c).
 *
 * Duplicate job ids are found with an open-addressing table of row
 * indices keyed by FNV-1a of the id (rows are then unique keys for the team
 * mapping and the decision log).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itp.h"

#define MAX_FIELDS 16

enum col { C_ID, C_SUBMIT, C_DUR, C_GPU, C_COUNT };

static const char *const col_name[C_COUNT] = {
	"job_id", "submission_time", "duration", "num_gpu",
};

/* Another name a column goes by: ElasticFlow's Philly subset
 * (philly-vc103959-elasticflow) says submit_time. */
static const char *const col_alias[C_COUNT] = {
	NULL, "submit_time", NULL, NULL,
};

/* What a number column counts, for the fix a refusal gives. */
static const char *const col_unit[C_COUNT] = {
	NULL, "seconds", "seconds", "GPUs",
};

/* The header an ITP trace starts with, for the refusals of a bad one. */
#define ITP_HEADER "job_id,submission_time,duration,num_gpu"

struct fields {
	int n;
	const char *p[MAX_FIELDS];
	size_t len[MAX_FIELDS];
	int col[MAX_FIELDS];
};

struct idset {
	uint32_t *slot; /* row index + 1; 0 = empty */
	size_t cap;
};

struct parser {
	const char *fname;
	unsigned flags;
	int pos[C_COUNT]; /* field index of each column */
	int nhdr;
	struct fw_itp_trace *out;
	size_t cap;
	struct idset ids;
};

/* ---- small helpers ------------------------------------------------------ */

/* Quote a field for a message: at most 40 bytes, non-printables as '?'. */
static void show(const char *p, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 4 < cap && i < 40; i++)
		buf[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	if (n > 40 && k + 4 < cap) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
}

static void split(const char *line, size_t n, struct fields *f)
{
	size_t start = 0;

	f->n = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && line[i] != ',')
			continue;
		if (f->n < MAX_FIELDS) {
			f->p[f->n] = line + start;
			f->len[f->n] = i - start;
			f->col[f->n] = (int)start + 1;
		}
		f->n++;
		start = i + 1;
	}
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* ---- numbers ------------------------------------------------------------ */

/* Strict non-negative decimal in [lo, hi] of `unit` (seconds, GPUs).
 * Returns NULL or the reason, ending with what to write instead (written
 * to why). */
static const char *parse_int(const char *p, size_t n, int64_t lo, int64_t hi,
			     const char *unit, int64_t *v, char *why, size_t cap)
{
	char s[64];
	size_t i = 0;
	int64_t x = 0;
	bool digits = true;

	if (n == 0) {
		snprintf(why, cap, "is empty; give a whole number of %s, %lld..%lld",
			 unit, (long long)lo, (long long)hi);
		return why;
	}
	show(p, n, s, sizeof s);
	for (size_t k = 0; k < n; k++)
		digits = digits && p[k] >= '0' && p[k] <= '9';
	if (digits) {
		for (i = 0; i < n && x <= hi; i++)
			x = x * 10 + (p[i] - '0');
		if (x >= lo && x <= hi) {
			*v = x;
			return NULL;
		}
	}
	bool neg = n > 1 && p[0] == '-' && p[1] >= '0' && p[1] <= '9';
	bool frac = memchr(p, '.', n) && p[0] >= '0' && p[0] <= '9';
	snprintf(why, cap,
		 digits ? "'%s' is out of range; give a whole number of %s, %lld..%lld"
		 : neg ? "'%s' is negative; give a whole number of %s, %lld..%lld"
		 : frac ? "'%s' is not a whole number; round it to a whole number of %s, %lld..%lld"
			: "'%s' is not a number; write a whole number of %s in decimal "
			  "digits (no spaces or units), %lld..%lld",
		 s, unit, (long long)lo, (long long)hi);
	return why;
}

/* ---- id set ------------------------------------------------------------- */

static int ids_grow(struct idset *t, const struct fw_itp_job *v, size_t n)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	uint32_t *s = calloc(cap, sizeof *s);

	if (!s)
		return FW_ENOMEM;
	for (size_t r = 0; r < n; r++) {
		size_t i = fnv1a(v[r].id, strlen(v[r].id)) & (cap - 1);
		while (s[i])
			i = (i + 1) & (cap - 1);
		s[i] = (uint32_t)r + 1;
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	return FW_OK;
}

/* Row index of an earlier job with this id, or -1. */
static long ids_find(const struct idset *t, const struct fw_itp_job *v, const char *id)
{
	size_t i;

	if (!t->cap)
		return -1;
	i = fnv1a(id, strlen(id)) & (t->cap - 1);
	for (; t->slot[i]; i = (i + 1) & (t->cap - 1))
		if (strcmp(v[t->slot[i] - 1].id, id) == 0)
			return (long)t->slot[i] - 1;
	return -1;
}

static void ids_put(struct idset *t, const struct fw_itp_job *v, size_t r)
{
	size_t i = fnv1a(v[r].id, strlen(v[r].id)) & (t->cap - 1);

	while (t->slot[i])
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = (uint32_t)r + 1;
}

/* ---- header ------------------------------------------------------------- */

/* Is the field (p, n) the column name nm (NULL: none)? */
static bool names(const char *p, size_t n, const char *nm)
{
	return nm && n == strlen(nm) && !memcmp(p, nm, n);
}

/* Is the header line a data row: no column found in it, and a field a
 * number?  So it reads when the file has no header line. */
static bool looks_like_a_row(const struct parser *ps, const struct fields *f)
{
	bool number = false;

	for (int c = 0; c < C_COUNT; c++)
		if (ps->pos[c] >= 0)
			return false;
	for (int i = 0; i < f->n; i++) {
		size_t k = 0;
		while (k < f->len[i] && f->p[i][k] >= '0' && f->p[i][k] <= '9')
			k++;
		number |= f->len[i] && k == f->len[i];
	}
	return number;
}

static int parse_header(struct parser *ps, const char *line, size_t n, int lno,
			struct fw_diag *d)
{
	struct fields f;

	split(line, n, &f);
	if (f.n > MAX_FIELDS)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, 1, "header",
				   "%d columns; at most %d are supported: remove the "
				   "columns the reader does not use (it reads " ITP_HEADER ")",
				   f.n, MAX_FIELDS);
	for (int c = 0; c < C_COUNT; c++)
		ps->pos[c] = -1;
	for (int i = 0; i < f.n; i++)
		for (int c = 0; c < C_COUNT; c++) {
			if (!names(f.p[i], f.len[i], col_name[c]) && !names(f.p[i], f.len[i], col_alias[c]))
				continue;
			if (ps->pos[c] >= 0)
				return fw_diag_set(d, FW_EINVAL, ps->fname, lno, f.col[i], "header",
						   "column '%s' appears twice%s%s%s; keep one", col_name[c],
						   col_alias[c] ? " (or as '" : "", col_alias[c] ? col_alias[c] : "",
						   col_alias[c] ? "')" : "");
			ps->pos[c] = i;
		}
	if (looks_like_a_row(ps, &f))
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, 1, "header",
				   "no column '%s': the first line is read as the header and "
				   "names no column; add a header line first: " ITP_HEADER
				   " (any order; docs/trace-format.md)", col_name[0]);
	for (int c = 0; c < C_COUNT; c++)
		if (ps->pos[c] < 0)
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, 1, "header",
					   "no column '%s'%s%s%s; add it: an ITP trace's header "
					   "names " ITP_HEADER " (any order; docs/trace-format.md)",
					   col_name[c], col_alias[c] ? " (or '" : "", col_alias[c] ? col_alias[c] : "",
					   col_alias[c] ? "')" : "");
	ps->nhdr = f.n;
	return FW_OK;
}

/* ---- rows --------------------------------------------------------------- */

static int check_id(struct parser *ps, const struct fields *f, int lno, struct fw_itp_job *j,
		    struct fw_diag *d)
{
	int i = ps->pos[C_ID];
	char s[64];

	show(f->p[i], f->len[i], s, sizeof s);
	if (f->len[i] == 0)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, f->col[i], "job_id",
				   "is empty; give each job an id of 1..%d printable "
				   "ASCII bytes", FW_ITP_ID_MAX - 1);
	if (f->len[i] >= FW_ITP_ID_MAX)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, f->col[i], "job_id",
				   "'%s' is longer than %d bytes; shorten it", s,
				   FW_ITP_ID_MAX - 1);
	for (size_t k = 0; k < f->len[i]; k++) {
		unsigned char c = (unsigned char)f->p[i][k];
		/* ids reach JSON and CSV outputs: printable ASCII only */
		if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, f->col[i] + (int)k, "job_id",
					   "'%s' has a space, quote, backslash, control or "
					   "non-ASCII byte; ids are printable ASCII, so "
					   "rename it without them", s);
	}
	memcpy(j->id, f->p[i], f->len[i]);
	j->id[f->len[i]] = 0;
	long prev = ids_find(&ps->ids, ps->out->v, j->id);
	if (prev >= 0)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, f->col[i], "job_id",
				   "'%s' already appeared on line %d; give each job "
				   "its own job_id", s, (int)ps->out->v[prev].line);
	return FW_OK;
}

static int number(struct parser *ps, const struct fields *f, int c, int lno, int64_t lo,
		  int64_t hi, int64_t *v, struct fw_diag *d)
{
	char why[256];
	int i = ps->pos[c];

	if (!parse_int(f->p[i], f->len[i], lo, hi, col_unit[c], v, why, sizeof why))
		return FW_OK;
	return fw_diag_set(d, FW_EINVAL, ps->fname, lno, f->col[i], col_name[c], "%s", why);
}

static int parse_row(struct parser *ps, const char *line, size_t n, int lno,
		     struct fw_itp_job *j, struct fw_diag *d)
{
	struct fields f;
	int64_t g = 0;
	int rc;

	split(line, n, &f);
	if (f.n != ps->nhdr)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno,
				   f.n > ps->nhdr && f.n <= MAX_FIELDS ? f.col[ps->nhdr] : 1, "row",
				   "has %d fields, the header has %d; give each row one "
				   "field per header column (ITP fields are never quoted, "
				   "so no value may hold a comma)", f.n, ps->nhdr);
	memset(j, 0, sizeof *j);
	j->line = lno;
	if ((rc = check_id(ps, &f, lno, j, d)) != FW_OK ||
	    (rc = number(ps, &f, C_SUBMIT, lno, 0, FW_ITP_MAX_TIME, &j->submit, d)) != FW_OK ||
	    (rc = number(ps, &f, C_DUR, lno, 0, FW_ITP_MAX_TIME, &j->duration, d)) != FW_OK ||
	    (rc = number(ps, &f, C_GPU, lno, 1, FW_ITP_MAX_GPUS, &g, d)) != FW_OK)
		return rc;
	j->gpus = (int32_t)g;
	return FW_OK;
}

/* Append a parsed row (growing the array and the id set). */
static int push(struct parser *ps, const struct fw_itp_job *j)
{
	struct fw_itp_trace *t = ps->out;

	if (t->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 256;
		struct fw_itp_job *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return FW_ENOMEM;
		t->v = v;
		ps->cap = cap;
	}
	t->v[t->n] = *j;
	if (2 * (t->n + 1) > ps->ids.cap) {
		if (ids_grow(&ps->ids, t->v, t->n + 1) != FW_OK)
			return FW_ENOMEM;
	} else {
		ids_put(&ps->ids, t->v, t->n);
	}
	t->n++;
	return FW_OK;
}

/* One data row: parse, then keep, skip (and count) or fail. */
static int data_row(struct parser *ps, const char *line, size_t n, int lno, struct fw_diag *d)
{
	struct fw_itp_job j;
	struct fw_diag why;
	int rc = parse_row(ps, line, n, lno, &j, &why);

	if (rc == FW_OK)
		return push(ps, &j);
	if (!(ps->flags & FW_ITP_SKIP_BAD)) {
		if (d)
			*d = why;
		return rc;
	}
	if (ps->out->skipped++ == 0)
		ps->out->first_bad = why;
	return FW_OK;
}

static int parse_lines(struct parser *ps, const char *buf, size_t len, struct fw_diag *d)
{
	size_t i = 0;
	int lno = 0, rc = FW_OK;
	bool header = true;

	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3; /* UTF-8 byte-order mark */
	while (i < len && rc == FW_OK) {
		const char *p = buf + i, *nl = memchr(p, '\n', len - i);
		size_t n = nl ? (size_t)(nl - p) : len - i;
		i += n + 1;
		lno++;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		size_t blank = 0;
		while (blank < n && (p[blank] == ' ' || p[blank] == '\t'))
			blank++;
		if (blank == n)
			continue; /* empty, or only spaces and tabs */
		if (memchr(p, 0, n)) {
			struct fw_diag why;
			const char *z = memchr(p, 0, n);
			fw_diag_set(&why, FW_EINVAL, ps->fname, lno, (int)(z - p) + 1, "row",
				    "contains a NUL byte: this is not a text file; give "
				    "the trace as CSV text (decompress it first if it is "
				    "compressed)");
			if (header || !(ps->flags & FW_ITP_SKIP_BAD)) {
				if (d)
					*d = why;
				rc = FW_EINVAL;
			} else if (ps->out->skipped++ == 0) {
				ps->out->first_bad = why;
			}
			header = false;
			continue;
		}
		if (header)
			rc = parse_header(ps, p, n, lno, d);
		else
			rc = data_row(ps, p, n, lno, d);
		header = false;
	}
	if (rc == FW_OK && header)
		rc = fw_diag_set(d, FW_EINVAL, ps->fname, 0, 0, "header",
				 "the file is empty; an ITP trace is the header "
				 ITP_HEADER " and a row per job (docs/trace-format.md)");
	return rc;
}

int fw_itp_parse(const char *buf, size_t len, const char *fname, unsigned flags,
		 struct fw_itp_trace *out, struct fw_diag *d)
{
	struct parser ps;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&ps, 0, sizeof ps);
	ps.fname = fname ? fname : "<input>";
	ps.flags = flags;
	ps.out = out;
	snprintf(out->file, sizeof out->file, "%s", ps.fname);
	rc = parse_lines(&ps, buf, len, d);
	free(ps.ids.slot);
	if (rc == FW_ENOMEM)
		fw_diag_set(d, FW_ENOMEM, ps.fname, 0, 0, NULL, "out of memory");
	if (rc != FW_OK) {
		fw_itp_free(out);
		snprintf(out->file, sizeof out->file, "%s", ps.fname);
	}
	return rc;
}

/* ---- files -------------------------------------------------------------- */

int fw_itp_slurp(const char *path, char **buf, size_t *len, struct fw_diag *d)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b;

	if (!f)
		return fw_diag_set(d, FW_EIO, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
	b = malloc(cap);
	while (b) {
		n += fread(b + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		char *nb = realloc(b, cap * 2);
		if (!nb) {
			free(b);
			b = NULL;
			break;
		}
		b = nb;
		cap *= 2;
	}
	int bad = ferror(f) ? errno : 0;
	fclose(f);
	if (!b || bad) {
		free(b);
		return fw_diag_set(d, b ? FW_EIO : FW_ENOMEM, path, 0, 0, NULL,
				   b ? "cannot read: %s" : "out of memory",
				   b ? strerror(bad) : "");
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return FW_OK;
}

int fw_itp_read(const char *path, unsigned flags, struct fw_itp_trace *out, struct fw_diag *d)
{
	char *buf;
	size_t len;
	int rc = fw_itp_slurp(path, &buf, &len, d);

	memset(out, 0, sizeof *out);
	if (rc != FW_OK)
		return rc;
	rc = fw_itp_parse(buf, len, path, flags, out, d);
	free(buf);
	return rc;
}

void fw_itp_free(struct fw_itp_trace *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* Control bytes (ESC, CR, ...) quoted from a hostile file must not reach
 * the terminal, nor bytes that may not be UTF-8 (trace names are ASCII):
 * each becomes '?' (the file name is the user's own). */
static void mask_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

void fw_itp_diag_str(const struct fw_diag *d, char *buf, size_t n)
{
	char where[300] = "";
	size_t k = 0;

	if (d->file[0])
		k += (size_t)snprintf(where, sizeof where, "%s:", d->file);
	if (d->line > 0 && k < sizeof where)
		k += (size_t)snprintf(where + k, sizeof where - k, "%d:", d->line);
	if (d->col > 0 && k < sizeof where)
		snprintf(where + k, sizeof where - k, "%d:", d->col);
	snprintf(buf, n, "%s%s%s%s%s", where, where[0] ? " " : "", d->field,
		 d->field[0] ? ": " : "", d->msg);
	k = strlen(where) + (where[0] ? 1 : 0);
	if (k < n && k < strlen(buf))
		mask_controls(buf + k);
}
