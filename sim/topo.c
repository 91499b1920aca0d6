/*
 * topo.c — the topology file reader (contract in topo.h).
 *
 * Two passes over the rows: the first splits and checks every line into
 * hosts with their tier values in file column order, counting the distinct
 * values per column (a sorted copy, so no hashing); the second reorders
 * each host's path into level order.  Duplicate hosts are found by sorting
 * pointers to the hosts by (name, line); the error names the host and both
 * lines of the first repeat in file order.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "itp.h"
#include "openb.h"
#include "topo.h"

struct tparser {
	const char *fname;
	int ntiers;                 /* columns after the host column */
	char tier[FW_MAX_LEVELS][FW_NAME_MAX];
	struct fw_topo *out;
	size_t cap;
};

void fw_topo_free(struct fw_topo *t)
{
	if (!t)
		return;
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

static bool bad_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return true;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f || s[i] == '"' || s[i] == '\\' || s[i] == ',')
			return true; /* a quoted "S,2" was taken, as topo.h forbids */
	return false;
}

static int header(struct tparser *ps, const struct fw_csv_rec *r, int lno,
		  struct fw_diag *d)
{
	if (r->nf < 2 || r->nf > FW_MAX_LEVELS + 1)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, 1, "header",
				   "needs a host column and 1..%d switch tiers, got %zu columns; "
				   "write the host's column, then a column per tier (e.g. "
				   "ip,DSW,PSW,ASW)", FW_MAX_LEVELS, r->nf);
	for (size_t i = 1; i < r->nf; i++) {
		size_t n = strlen(r->f[i]);
		if (bad_name(r->f[i], FW_NAME_MAX) || strcasecmp(r->f[i], "node") == 0) /* lowercased below */
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i], "header",
					   "tier name '%.40s' is empty, reserved or not a plain name; "
					   "name the tier in printable ASCII without spaces, quotes, "
					   "backslashes or commas (not 'node', the level every "
					   "fleet has)", r->f[i]);
		for (size_t k = 0; k <= n; k++)
			ps->tier[i - 1][k] = (char)((r->f[i][k] >= 'A' && r->f[i][k] <= 'Z')
						    ? r->f[i][k] + 32 : r->f[i][k]);
		for (size_t k = 1; k < i; k++)
			if (strcmp(ps->tier[k - 1], ps->tier[i - 1]) == 0)
				return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i],
						   "header", "tier '%s' appears twice (names are "
						   "compared in lower case); give each tier its own "
						   "name", ps->tier[i - 1]);
	}
	ps->ntiers = (int)r->nf - 1;
	return FW_OK;
}

static int row(struct tparser *ps, const struct fw_csv_rec *r, int lno,
	       struct fw_diag *d)
{
	struct fw_topo_host h;

	if ((int)r->nf != ps->ntiers + 1)
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[r->nf - 1], "row",
				   "has %zu fields, the header has %d; give each host one "
				   "switch per tier", r->nf, ps->ntiers + 1);
	memset(&h, 0, sizeof h);
	if (bad_name(r->f[0], FW_TOPO_HOST_MAX))
		return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[0], "host",
				   "'%.40s' is empty, longer than %d bytes or not a plain name; "
				   "name the host in printable ASCII without spaces, quotes, "
				   "backslashes or commas", r->f[0], FW_TOPO_HOST_MAX - 1);
	snprintf(h.host, sizeof h.host, "%s", r->f[0]);
	for (int i = 0; i < ps->ntiers; i++) {
		if (bad_name(r->f[i + 1], FW_NAME_MAX))
			return fw_diag_set(d, FW_EINVAL, ps->fname, lno, r->col[i + 1],
					   ps->tier[i], "switch '%.40s' is empty, longer than "
					   "%d bytes or not a plain name; name the switch in "
					   "printable ASCII without spaces, quotes, backslashes "
					   "or commas", r->f[i + 1], FW_NAME_MAX - 1);
		snprintf(h.path[i], FW_NAME_MAX, "%s", r->f[i + 1]);
	}
	h.line = lno;
	if (ps->out->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 256;
		struct fw_topo_host *v = realloc(ps->out->v, cap * sizeof *v);
		if (!v)
			return FW_ENOMEM;
		ps->out->v = v;
		ps->cap = cap;
	}
	ps->out->v[ps->out->n++] = h;
	return FW_OK;
}

static int one_line(struct tparser *ps, const char *p, size_t n, int lno,
		    struct fw_diag *d)
{
	struct fw_csv_rec r;
	char *line;
	int rc = fw_csv_line(p, n, ps->fname, lno, &line, &r, d);

	if (rc == FW_OK)
		rc = ps->ntiers ? row(ps, &r, lno, d) : header(ps, &r, lno, d);
	free(line);
	return rc;
}

static int walk(struct tparser *ps, const char *buf, size_t len, struct fw_diag *d)
{
	size_t at = 0;
	int lno = 0, rc;

	while (at < len) {
		const char *p = buf + at, *nl = memchr(p, '\n', len - at);
		size_t n = nl ? (size_t)(nl - p) : len - at;
		at += n + (nl ? 1 : 0);
		lno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n && (rc = one_line(ps, p, n, lno, d)) != FW_OK)
			return rc;
	}
	if (!ps->ntiers || !ps->out->n)
		return fw_diag_set(d, FW_EINVAL, ps->fname, ps->ntiers ? lno : 0, 0,
				   ps->ntiers ? "host" : "header",
				   "no %s; a topology file is a header (the host's column, "
				   "then one per switch tier: ip,DSW,PSW,ASW) and one line "
				   "per host (HOST,SWITCH,...)", ps->ntiers ? "hosts" : "header");
	return FW_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct values of column c (sorted copy); -1 on no memory. */
static long distinct(const struct fw_topo *t, int c)
{
	const char **v = malloc(t->n * sizeof *v);
	long k = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < t->n; i++)
		v[i] = t->v[i].path[c];
	qsort(v, t->n, sizeof *v, cmp_str);
	for (size_t i = 0; i < t->n; i++)
		k += i == 0 || strcmp(v[i], v[i - 1]) != 0;
	free(v);
	return k;
}

static int cmp_host(const void *a, const void *b)
{
	const struct fw_topo_host *x = *(const struct fw_topo_host *const *)a;
	const struct fw_topo_host *y = *(const struct fw_topo_host *const *)b;
	int c = strcmp(x->host, y->host);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* FW_EINVAL naming the host and both lines of the first repeated host (in
 * file order), FW_OK when every host is on one line, or FW_ENOMEM. */
static int dup_hosts(const struct tparser *ps, struct fw_diag *d)
{
	const struct fw_topo *t = ps->out;
	const struct fw_topo_host **v = malloc(t->n * sizeof *v), *first = NULL, *again = NULL;

	if (!v)
		return FW_ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		v[i] = &t->v[i];
	qsort(v, t->n, sizeof *v, cmp_host);
	for (size_t i = 1; i < t->n; i++)
		if (!strcmp(v[i]->host, v[i - 1]->host) && (!again || v[i]->line < again->line)) {
			first = v[i - 1];
			again = v[i];
		}
	free(v);
	if (!again)
		return FW_OK;
	return fw_diag_set(d, FW_EINVAL, ps->fname, again->line, 1, "host",
			   "'%s' is already on line %d; list each host once", again->host,
			   first->line);
}

/* Order tiers by distinct count (stable) and permute every path. */
static int order_levels(struct tparser *ps, struct fw_diag *d)
{
	struct fw_topo *t = ps->out;
	long cnt[FW_MAX_LEVELS];
	int ord[FW_MAX_LEVELS];
	int rc;

	if ((rc = dup_hosts(ps, d)) != FW_OK)
		return rc;
	for (int i = 0; i < ps->ntiers; i++) {
		if ((cnt[i] = distinct(t, i)) < 0)
			return FW_ENOMEM;
		int k = i;
		while (k > 0 && cnt[ord[k - 1]] > cnt[i]) {
			ord[k] = ord[k - 1];
			k--;
		}
		ord[k] = i;
	}
	t->levels.nlevels = ps->ntiers;
	for (int l = 0; l < ps->ntiers; l++)
		memcpy(t->levels.level[l], ps->tier[ord[l]], FW_NAME_MAX);
	for (size_t h = 0; h < t->n; h++) {
		char p[FW_MAX_LEVELS][FW_NAME_MAX];
		memcpy(p, t->v[h].path, sizeof p);
		for (int l = 0; l < ps->ntiers; l++)
			memcpy(t->v[h].path[l], p[ord[l]], FW_NAME_MAX);
	}
	return FW_OK;
}

int fw_topo_parse(const char *buf, size_t len, const char *fname,
		  struct fw_topo *out, struct fw_diag *d)
{
	struct tparser ps;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&ps, 0, sizeof ps);
	ps.fname = fname ? fname : "<buffer>";
	ps.out = out;
	snprintf(out->file, sizeof out->file, "%s", ps.fname);
	if ((rc = walk(&ps, buf, len, d)) == FW_OK)
		rc = order_levels(&ps, d);
	if (rc != FW_OK) {
		if (rc == FW_ENOMEM)
			fw_diag_set(d, rc, ps.fname, 0, 0, NULL, "out of memory");
		fw_topo_free(out);
	}
	return rc;
}

int fw_topo_read(const char *path, struct fw_topo *out, struct fw_diag *d)
{
	char *buf;
	size_t len;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = fw_itp_slurp(path, &buf, &len, d)) != FW_OK)
		return rc;
	rc = fw_topo_parse(buf, len, path, out, d);
	free(buf);
	return rc;
}
