/*
 * openb.c — the openb node/pod list readers (see openb.h for the contract).
 *
 * Shape.  Both lists go through one table-driven loop: a `struct table`
 * says which header names to find, how to parse each (string, or integer
 * with an inclusive range) and where to store it in the record, plus a
 * per-row check for rules that involve two fields (a multi-GPU pod takes
 * whole GPUs, a GPU node names its model).  The whole file is copied once
 * and each line is split in place, so a row costs no allocation beyond its
 * two strings.
 *
 * Errors.  Each message says what the field holds, what was expected and
 * where: "pods.csv:17:23: field gpu_milli: \"4x0\" is not a decimal integer".
 * Columns are 1-based byte offsets of the field's first character.
 *
 * Names.  The string columns (sn, model, name, gpu_spec) are printable
 * ASCII without spaces, quotes, backslashes or commas, since they reach
 * JSON and CSV outputs unescaped.  A table's first column (sn, name) is a
 * key: a row that repeats an
 * earlier row's name is a bad row naming the line it first appeared on, as
 * the ITP and generic trace readers treat a repeated job id.  Kept rows'
 * names sit in an open-addressing hash set of row indices, so the check is
 * O(1) a row.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openb.h"

/* ---- diagnostics -------------------------------------------------------- */

__attribute__((format(printf, 7, 8))) static int
diag(struct fw_diag *d, int err, const char *file, int line, int col,
     const char *field, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return err;
	snprintf(d->file, sizeof d->file, "%s", file ? file : "");
	d->line = line;
	d->col = col;
	snprintf(d->field, sizeof d->field, "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return err;
}

void fw_openb_diag_str(const struct fw_diag *d, char *buf, size_t n)
{
	char where[320] = "";
	size_t k = 0;
	if (d->file[0])
		k += (size_t)snprintf(where, sizeof where, "%s:", d->file);
	if (d->line > 0 && k < sizeof where)
		k += (size_t)snprintf(where + k, sizeof where - k, "%d:",
				      d->line);
	if (d->col > 0 && k < sizeof where)
		snprintf(where + k, sizeof where - k, "%d:", d->col);
	snprintf(buf, n, "%s%s%s%s%s", where, where[0] ? " " : "",
		 d->field[0] ? "field " : "", d->field,
		 d->field[0] ? ": " : "");
	k = strlen(buf);
	if (k < n)
		snprintf(buf + k, n - k, "%s", d->msg);
	/* a value quoted from the file must not bring control bytes (ESC),
	 * or bytes that may not be UTF-8, to the terminal; the file name is
	 * the user's own */
	for (char *p = buf + (strlen(where) < strlen(buf) ? strlen(where) : 0); *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
}

/* ---- CSV splitting ------------------------------------------------------ */

/* Unquote a field that starts at *p (the opening quote) in place; returns
 * the character after the closing quote, or NULL if it never closes. */
static char *unquote(char *p, char **end_of_value)
{
	char *w = p, *r = p + 1;
	for (;;) {
		if (*r == '\0')
			return NULL;
		if (*r == '"' && r[1] == '"') {
			*w++ = '"';
			r += 2;
		} else if (*r == '"') {
			*end_of_value = w;
			return r + 1;
		} else {
			*w++ = *r++;
		}
	}
}

int fw_csv_line(const char *p, size_t n, const char *fname, int lno,
		char **line, struct fw_csv_rec *r, struct fw_diag *d)
{
	const char *nul = memchr(p, 0, n), *why;
	int col;

	*line = NULL;
	if (nul)
		return fw_diag_set(d, FW_EINVAL, fname, lno, (int)(nul - p) + 1, "row",
				   "contains a NUL byte");
	if (!(*line = malloc(n + 1)))
		return FW_ENOMEM;
	memcpy(*line, p, n);
	(*line)[n] = 0;
	if (fw_csv_split(*line, r, &why, &col))
		return fw_diag_set(d, FW_EINVAL, fname, lno, col, "row", "%s", why);
	return FW_OK;
}

int fw_csv_split(char *line, struct fw_csv_rec *r, const char **why, int *col)
{
	char *p = line;
	r->nf = 0;
	for (;;) {
		char *start = p, *end;
		if (r->nf == FW_CSV_MAX_FIELDS) {
			*why = "too many fields (at most 64); give each row "
			       "the format's columns only";
			*col = (int)(p - line) + 1;
			return -1;
		}
		r->f[r->nf] = start;
		r->col[r->nf] = (int)(p - line) + 1;
		if (*p == '"') {
			p = unquote(p, &end);
			if (!p) {
				*why = "quoted field is not closed on this line "
				       "(multi-line fields are not supported); close "
				       "the quote, or write the value without it";
				*col = r->col[r->nf];
				return -1;
			}
			if (*p != ',' && *p != '\0') {
				*why = "characters after a closing quote; quote "
				       "the whole value, doubling a quote inside it "
				       "(\"a\"\"b\")";
				*col = (int)(p - line) + 1;
				return -1;
			}
		} else {
			while (*p != ',' && *p != '\0')
				p++;
			end = p;
		}
		r->nf++;
		if (*p == '\0') {
			*end = '\0';
			return 0;
		}
		p++;
		*end = '\0';
	}
}

/* ---- reading a file ----------------------------------------------------- */

int fw_openb_slurp(const char *path, char **buf, size_t *len,
		   struct fw_diag *d)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b;
	if (!f)
		return diag(d, FW_EIO, path, 0, 0, NULL, "cannot open: %s",
			    strerror(errno));
	b = malloc(cap);
	while (b) {
		n += fread(b + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		char *nb = cap > (SIZE_MAX >> 2) ? NULL : realloc(b, cap * 2);
		if (!nb) {
			free(b);
			b = NULL;
			break;
		}
		b = nb;
		cap *= 2;
	}
	if (!b || ferror(f)) {
		int err = b ? FW_EIO : FW_ENOMEM;
		const char *why = b ? strerror(errno) : "out of memory";
		free(b);
		fclose(f);
		return diag(d, err, path, 0, 0, NULL, "cannot read: %s", why);
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return FW_OK;
}

/* ---- the table-driven row parser ---------------------------------------- */

enum ckind { K_STR, K_STR_NONEMPTY, K_I64, K_INT };

struct colspec {
	const char *name;
	enum ckind kind;
	int64_t lo, hi; /* integers: inclusive range */
	size_t off;     /* where the value goes in the record */
};

struct table {
	const struct colspec *cols;
	size_t ncols;
	size_t recsize, line_off;
	/* Cross-field rules: returns the index of the blamed column and fills
	 * msg, or -1 when the record is fine. */
	int (*check)(const void *rec, char *msg, size_t n);
	void (*free_rec)(void *rec);
	const char *key_what; /* "pod name": column 0 is unique */
	const char *what;     /* "an openb pod list": for messages */
};

/* The growing result and the parse's context. */
struct parse {
	const struct table *t;
	const char *fname;
	unsigned flags;
	int map[16];  /* colspec index -> field index in the file */
	size_t nhdr;  /* fields in the header */
	char *v;
	size_t n, cap, skipped;
	struct fw_diag first_bad;
	uint32_t *slot;  /* kept row index + 1 by key hash; 0 = empty */
	size_t nslot;    /* a power of two, or 0 */
};

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

/* 0: ok; -1: not a decimal integer; -2: too large to hold. */
static int parse_i64(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	int64_t v = 0;
	s += neg;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (INT64_MAX - 9) / 10)
			return -2;
		v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

static int parse_field(const struct parse *ps, const struct colspec *c,
		       const char *s, int line, int col, char *rec,
		       struct fw_diag *d)
{
	int64_t v = 0;
	int rc;
	if (c->kind == K_STR || c->kind == K_STR_NONEMPTY) {
		char *dup;
		if (c->kind == K_STR_NONEMPTY && *s == '\0')
			return diag(d, FW_EINVAL, ps->fname, line, col, c->name,
				    "is empty; give the row its %s",
				    ps->t->key_what);
		/* names and models reach JSON and CSV outputs as they are */
		for (const char *p = s; *p; p++)
			if (*p <= 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' ||
			    *p == ',')
				return diag(d, FW_EINVAL, ps->fname, line, col, c->name,
					    "\"%.40s\" has a space, quote, backslash, "
					    "comma, control or non-ASCII byte; names "
					    "are printable ASCII, so rename it without "
					    "them", s);
		if (!(dup = dupstr(s)))
			return diag(d, FW_ENOMEM, ps->fname, line, col, c->name,
				    "out of memory");
		memcpy(rec + c->off, &dup, sizeof dup);
		return FW_OK;
	}
	rc = parse_i64(s, &v);
	if (rc == -1)
		return diag(d, FW_EINVAL, ps->fname, line, col, c->name,
			    "\"%.40s\" is not a decimal integer; write a whole "
			    "number %lld..%lld in decimal digits (no sign, "
			    "spaces or units)", s, (long long)c->lo,
			    (long long)c->hi);
	if (rc == -2 || v < c->lo || v > c->hi)
		return diag(d, FW_ERANGE, ps->fname, line, col, c->name,
			    "%.40s is out of range %lld..%lld; give a value in "
			    "that range", s, (long long)c->lo, (long long)c->hi);
	if (c->kind == K_I64)
		memcpy(rec + c->off, &v, sizeof v);
	else
		memcpy(rec + c->off, &(int){ (int)v }, sizeof(int));
	return FW_OK;
}

/* Parse the fields of one data row into rec (zeroed by the caller). */
static int parse_row(const struct parse *ps, const struct fw_csv_rec *r,
		     int line, char *rec, struct fw_diag *d)
{
	const struct table *t = ps->t;
	char msg[256];
	int rc, bad;
	for (size_t i = 0; i < t->ncols; i++) {
		int k = ps->map[i];
		rc = parse_field(ps, &t->cols[i], r->f[k], line, r->col[k],
				 rec, d);
		if (rc)
			return rc;
	}
	memcpy(rec + t->line_off, &line, sizeof line);
	bad = t->check(rec, msg, sizeof msg);
	if (bad >= 0)
		return diag(d, FW_EINVAL, ps->fname, line, r->col[ps->map[bad]],
			    t->cols[bad].name, "%s", msg);
	return FW_OK;
}

/* The table's column names, comma-separated, into buf. */
static const char *col_list(const struct table *t, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->ncols && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? "," : "",
				      t->cols[i].name);
	return buf;
}

static int map_header(struct parse *ps, const struct fw_csv_rec *r, int line,
		      struct fw_diag *d)
{
	const struct table *t = ps->t;
	ps->nhdr = r->nf;
	for (size_t i = 0; i < t->ncols; i++) {
		ps->map[i] = -1;
		for (size_t k = 0; k < r->nf; k++) {
			if (strcmp(r->f[k], t->cols[i].name) != 0)
				continue;
			if (ps->map[i] >= 0)
				return diag(d, FW_EINVAL, ps->fname, line,
					    r->col[k], t->cols[i].name,
					    "column appears twice in the header; "
					    "keep one");
			ps->map[i] = (int)k;
		}
		if (ps->map[i] < 0) {
			char cols[160];
			return diag(d, FW_EINVAL, ps->fname, line, 1,
				    t->cols[i].name,
				    "missing from the header (is this the "
				    "right kind of file?); add it: %s names %s "
				    "(any order, more columns allowed)", t->what,
				    col_list(t, cols, sizeof cols));
		}
	}
	return FW_OK;
}

/* ---- the key column ------------------------------------------------------ */

static const char *key_of(const struct parse *ps, const char *rec)
{
	const char *k;

	memcpy(&k, rec + ps->t->cols[0].off, sizeof k);
	return k;
}

static size_t key_hash(const char *s) /* FNV-1a */
{
	uint64_t h = UINT64_C(14695981039346656037);

	while (*s)
		h = (h ^ (unsigned char)*s++) * UINT64_C(1099511628211);
	return (size_t)h;
}

/* Put kept row i in the set (which has room). */
static void key_put(struct parse *ps, size_t i)
{
	size_t h = key_hash(key_of(ps, ps->v + i * ps->t->recsize)) & (ps->nslot - 1);

	while (ps->slot[h])
		h = (h + 1) & (ps->nslot - 1);
	ps->slot[h] = (uint32_t)(i + 1);
}

/* Room for one more kept row at load <= 1/2; FW_ENOMEM. */
static int key_room(struct parse *ps)
{
	size_t n = ps->nslot ? ps->nslot : 1024;

	while ((ps->n + 1) * 2 > n)
		n *= 2;
	if (n == ps->nslot)
		return FW_OK;
	uint32_t *s = calloc(n, sizeof *s);
	if (!s || ps->n >= UINT32_MAX) {
		free(s);
		return FW_ENOMEM;
	}
	free(ps->slot);
	ps->slot = s;
	ps->nslot = n;
	for (size_t i = 0; i < ps->n; i++)
		key_put(ps, i);
	return FW_OK;
}

/* The line of a kept row with this row's key, or 0. */
static int key_seen(const struct parse *ps, const char *rec)
{
	const char *k = key_of(ps, rec);
	size_t h = key_hash(k) & (ps->nslot - 1);
	int line;

	for (; ps->slot[h]; h = (h + 1) & (ps->nslot - 1)) {
		const char *kept = ps->v + (ps->slot[h] - 1) * ps->t->recsize;
		if (strcmp(key_of(ps, kept), k) == 0) {
			memcpy(&line, kept + ps->t->line_off, sizeof line);
			return line;
		}
	}
	return 0;
}

/* FW_OK when the row's key is new (or the table has none). */
static int key_check(struct parse *ps, const struct fw_csv_rec *r, int line,
		     const char *rec, struct fw_diag *d)
{
	int first, rc;

	if (!ps->t->key_what)
		return FW_OK;
	if ((rc = key_room(ps)) != FW_OK)
		return rc;
	if ((first = key_seen(ps, rec)))
		return diag(d, FW_EINVAL, ps->fname, line, r->col[ps->map[0]],
			    ps->t->cols[0].name, "duplicate %s \"%s\": it already "
			    "appeared on line %d; give each row its own %s, or "
			    "drop the repeated row", ps->t->key_what,
			    key_of(ps, rec), first, ps->t->key_what);
	return FW_OK;
}

static int push_rec(struct parse *ps, const char *rec)
{
	size_t sz = ps->t->recsize;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 256;
		char *v = realloc(ps->v, cap * sz);
		if (!v)
			return FW_ENOMEM;
		ps->v = v;
		ps->cap = cap;
	}
	memcpy(ps->v + ps->n++ * sz, rec, sz);
	return FW_OK;
}

/* One data row: split, parse, then keep it, skip it or fail. */
static int handle_row(struct parse *ps, char *text, int line,
		      struct fw_diag *d)
{
	struct fw_csv_rec r;
	_Alignas(max_align_t) char rec[128];
	const char *why;
	int col, rc, end = (int)strlen(text) + 1; /* before the split */
	memset(rec, 0, sizeof rec);
	if (fw_csv_split(text, &r, &why, &col) != 0)
		rc = diag(d, FW_EINVAL, ps->fname, line, col, "row", "%s", why);
	else if (r.nf != ps->nhdr)
		rc = diag(d, FW_EINVAL, ps->fname, line,
			  r.nf > ps->nhdr ? r.col[ps->nhdr] : end,
			  "row", "%zu fields, but the header has %zu; give "
			  "each row one field per header column (an empty "
			  "field is ,,), and quote a value holding a comma",
			  r.nf, ps->nhdr);
	else
		rc = parse_row(ps, &r, line, rec, d);
	if (rc == FW_OK)
		rc = key_check(ps, &r, line, rec, d);
	if (rc == FW_OK && (rc = push_rec(ps, rec)) == FW_OK) {
		if (ps->t->key_what)
			key_put(ps, ps->n - 1);
		return FW_OK;
	}
	ps->t->free_rec(rec);
	if (rc == FW_ENOMEM)
		return diag(d, rc, ps->fname, line, 0, NULL, "out of memory");
	if (!(ps->flags & FW_OPENB_SKIP_BAD))
		return rc;
	if (ps->skipped++ == 0)
		ps->first_bad = *d;
	return FW_OK;
}

/* Cut the next line out of [*p, end) in place; returns its length. */
static size_t next_line(char **p, char *end, char **text)
{
	char *nl = memchr(*p, '\n', (size_t)(end - *p));
	char *e = nl ? nl : end;
	size_t n = (size_t)(e - *p);
	*text = *p;
	if (n && (*p)[n - 1] == '\r')
		n--;
	*p = nl ? nl + 1 : end;
	return n;
}

static int parse_lines(struct parse *ps, char *p, char *end,
		       struct fw_diag *d)
{
	bool header = true;
	int line = 0, rc;
	while (p < end) {
		char *text, *nul;
		size_t n = next_line(&p, end, &text);
		line++;
		if ((nul = memchr(text, '\0', n)))
			return diag(d, FW_EINVAL, ps->fname, line,
				    (int)(nul - text) + 1, NULL,
				    "NUL byte: this is not a text file");
		text[n] = '\0';
		if (line == 1 && n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
			text += 3; /* UTF-8 byte order mark */
		if (text[0] == '\0')
			continue;
		if (header) {
			struct fw_csv_rec r;
			const char *why;
			int col;
			if (fw_csv_split(text, &r, &why, &col) != 0)
				return diag(d, FW_EINVAL, ps->fname, line, col,
					    "header", "%s", why);
			if ((rc = map_header(ps, &r, line, d)))
				return rc;
			header = false;
		} else if ((rc = handle_row(ps, text, line, d))) {
			return rc;
		}
	}
	if (header) {
		char cols[160];
		return diag(d, FW_EINVAL, ps->fname, 0, 0, "header",
			    "the file is empty; %s is a header line (%s) "
			    "and a row per %.*s", ps->t->what,
			    col_list(ps->t, cols, sizeof cols),
			    (int)strcspn(ps->t->key_what, " "), ps->t->key_what);
	}
	return FW_OK;
}

static void free_recs(const struct table *t, char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t->free_rec(v + i * t->recsize);
	free(v);
}

static int parse_table(const struct table *t, const char *buf, size_t len,
		       const char *fname, unsigned flags, struct parse *ps,
		       struct fw_diag *d)
{
	char *copy = malloc(len + 1);
	struct fw_diag mine; /* *d is written only on failure */
	int rc;
	_Static_assert(sizeof(struct fw_openb_pod) <= 128 &&
			       sizeof(struct fw_openb_node) <= 128,
		       "handle_row's record buffer is too small");
	memset(ps, 0, sizeof *ps);
	ps->t = t;
	ps->fname = fname ? fname : "<input>";
	ps->flags = flags;
	if (!copy)
		return diag(d, FW_ENOMEM, ps->fname, 0, 0, NULL,
			    "out of memory");
	if (len)
		memcpy(copy, buf, len);
	memset(&mine, 0, sizeof mine);
	rc = parse_lines(ps, copy, copy + len, &mine);
	free(copy);
	free(ps->slot);
	ps->slot = NULL;
	ps->nslot = 0;
	if (rc) {
		if (d)
			*d = mine;
		free_recs(t, ps->v, ps->n);
		ps->v = NULL;
		ps->n = 0;
	}
	return rc;
}

/* parse_table on the bytes of the file at path. */
static int read_table(const struct table *t, const char *path, unsigned flags,
		      struct parse *ps, struct fw_diag *d)
{
	char *buf;
	size_t len;
	int rc = fw_openb_slurp(path, &buf, &len, d);

	if (rc)
		return rc;
	rc = parse_table(t, buf, len, path, flags, ps, d);
	free(buf);
	return rc;
}

/* A successful parse's rows, for a list's v; the fields that
 * fw_openb_nodes and fw_openb_pods share are filled here. */
static void *take_rows(const struct parse *ps, char *file, size_t nfile,
		       size_t *n, size_t *skipped, struct fw_diag *first_bad)
{
	snprintf(file, nfile, "%s", ps->fname);
	*n = ps->n;
	*skipped = ps->skipped;
	*first_bad = ps->first_bad;
	return ps->v;
}

/* ---- nodes -------------------------------------------------------------- */

#define NODE_OFF(f) offsetof(struct fw_openb_node, f)
static const struct colspec node_cols[] = {
	{ "sn", K_STR_NONEMPTY, 0, 0, NODE_OFF(sn) },
	{ "cpu_milli", K_I64, 0, FW_OPENB_MAX_CPU, NODE_OFF(cpu_milli) },
	{ "memory_mib", K_I64, 0, FW_OPENB_MAX_MEM, NODE_OFF(memory_mib) },
	{ "gpu", K_INT, 0, FW_OPENB_MAX_NODE_GPUS, NODE_OFF(gpu) },
	{ "model", K_STR, 0, 0, NODE_OFF(model) },
};

static int node_check(const void *rec, char *msg, size_t n)
{
	const struct fw_openb_node *x = rec;
	if (x->gpu > 0 && x->model[0] == '\0') {
		snprintf(msg, n, "is empty, but the node has %d GPU(s); "
			 "give their model", x->gpu);
		return 4;
	}
	if (strchr(x->model, '|')) {
		snprintf(msg, n, "\"%.40s\" contains '|', which separates "
			 "models in a pod's gpu_spec; give the node's one "
			 "model", x->model);
		return 4;
	}
	return -1;
}

static void node_free(void *rec)
{
	struct fw_openb_node *x = rec;
	free(x->sn);
	free(x->model);
}

static const struct table node_table = {
	node_cols, sizeof node_cols / sizeof node_cols[0],
	sizeof(struct fw_openb_node), NODE_OFF(line), node_check, node_free,
	"node name", "an openb node list",
};

/* The result rc of parsing or reading the node table into *out, which is
 * left empty on failure. */
static int nodes_out(int rc, const struct parse *ps, struct fw_openb_nodes *out)
{
	memset(out, 0, sizeof *out);
	if (!rc)
		out->v = take_rows(ps, out->file, sizeof out->file, &out->n,
				   &out->skipped, &out->first_bad);
	return rc;
}

int fw_openb_parse_nodes(const char *buf, size_t len, const char *fname,
			 unsigned flags, struct fw_openb_nodes *out,
			 struct fw_diag *d)
{
	struct parse ps;
	int rc = parse_table(&node_table, buf, len, fname, flags, &ps, d);

	return nodes_out(rc, &ps, out);
}

void fw_openb_nodes_free(struct fw_openb_nodes *l)
{
	free_recs(&node_table, (char *)l->v, l->n);
	memset(l, 0, sizeof *l);
}

/* ---- pods --------------------------------------------------------------- */

#define POD_OFF(f) offsetof(struct fw_openb_pod, f)
static const struct colspec pod_cols[] = {
	{ "name", K_STR_NONEMPTY, 0, 0, POD_OFF(name) },
	{ "cpu_milli", K_I64, 0, FW_OPENB_MAX_CPU, POD_OFF(cpu_milli) },
	{ "memory_mib", K_I64, 0, FW_OPENB_MAX_MEM, POD_OFF(memory_mib) },
	{ "num_gpu", K_INT, 0, FW_OPENB_MAX_POD_GPUS, POD_OFF(num_gpu) },
	{ "gpu_milli", K_INT, 0, 1000, POD_OFF(gpu_milli) },
	{ "gpu_spec", K_STR, 0, 0, POD_OFF(gpu_spec) },
};

static int pod_check(const void *rec, char *msg, size_t n)
{
	const struct fw_openb_pod *x = rec;
	if (x->num_gpu == 0 && x->gpu_milli != 0) {
		snprintf(msg, n, "%d with num_gpu 0: a CPU-only pod asks for "
			 "no GPU share; give gpu_milli 0", x->gpu_milli);
		return 4;
	}
	if (x->num_gpu > 0 && x->gpu_milli == 0) {
		snprintf(msg, n, "0 with num_gpu %d: a GPU pod needs "
			 "1..1000 milli-GPU per GPU; give 1000 for whole "
			 "GPUs", x->num_gpu);
		return 4;
	}
	if (x->num_gpu > 1 && x->gpu_milli != 1000) {
		snprintf(msg, n, "%d with num_gpu %d: a multi-GPU pod takes "
			 "whole GPUs (1000); give gpu_milli 1000, or num_gpu 1 "
			 "for a share of one GPU", x->gpu_milli, x->num_gpu);
		return 4;
	}
	return -1;
}

static void pod_free(void *rec)
{
	struct fw_openb_pod *x = rec;
	free(x->name);
	free(x->gpu_spec);
}

static const struct table pod_table = {
	pod_cols, sizeof pod_cols / sizeof pod_cols[0],
	sizeof(struct fw_openb_pod), POD_OFF(line), pod_check, pod_free,
	"pod name", "an openb pod list",
};

/* The result rc of parsing or reading the pod table into *out, which is
 * left empty on failure. */
static int pods_out(int rc, const struct parse *ps, struct fw_openb_pods *out)
{
	memset(out, 0, sizeof *out);
	if (!rc)
		out->v = take_rows(ps, out->file, sizeof out->file, &out->n,
				   &out->skipped, &out->first_bad);
	return rc;
}

int fw_openb_parse_pods(const char *buf, size_t len, const char *fname,
			unsigned flags, struct fw_openb_pods *out,
			struct fw_diag *d)
{
	struct parse ps;
	int rc = parse_table(&pod_table, buf, len, fname, flags, &ps, d);

	return pods_out(rc, &ps, out);
}

void fw_openb_pods_free(struct fw_openb_pods *l)
{
	free_recs(&pod_table, (char *)l->v, l->n);
	memset(l, 0, sizeof *l);
}

/* ---- files -------------------------------------------------------------- */

int fw_openb_read_nodes(const char *path, unsigned flags,
			struct fw_openb_nodes *out, struct fw_diag *d)
{
	struct parse ps;
	int rc = read_table(&node_table, path, flags, &ps, d);

	return nodes_out(rc, &ps, out);
}

int fw_openb_read_pods(const char *path, unsigned flags,
		       struct fw_openb_pods *out, struct fw_diag *d)
{
	struct parse ps;
	int rc = read_table(&pod_table, path, flags, &ps, d);

	return pods_out(rc, &ps, out);
}
