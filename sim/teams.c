/*
 * teams.c — job -> team mapping and team quotas (contract in teams.h).
 *
 * The Philly VC table is two columns, "vc,node num".  It is parsed with
 * the same strictness as the traces: a name of 1..47 printable bytes,
 * unique, and a whole number of nodes 1..1,000,000; the first problem is
 * an error naming file:line:column.  The hash is splitmix64 (Steele, Lea,
 * Flood 2014) over FNV-1a 64 of the id bytes: both are fixed integer
 * functions, so the mapping is the same on every platform and run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itp.h"
#include "teams.h"

static const struct fw_team builtin[] = {
	{ "6214e9", 64 }, { "7f04ca", 32 }, { "11cb48", 16 }, { "b436b2", 64 },
	{ "ee9e8c", 64 }, { "e13805", 16 }, { "6c71a0", 32 }, { "2869ce", 16 },
	{ "ed69ec", 8 },  { "103959", 8 },  { "0e4a51", 32 },
};

uint64_t fw_splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t fw_fnv1a64(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

void fw_teams_builtin(struct fw_teams *t)
{
	memset(t, 0, sizeof *t);
	t->n = (int)(sizeof builtin / sizeof builtin[0]);
	for (int i = 0; i < t->n; i++) {
		t->v[i] = builtin[i];
		t->total += builtin[i].weight;
	}
	snprintf(t->source, sizeof t->source, "built-in");
	t->fallback = true;
}

/* ---- parsing ------------------------------------------------------------ */

static int parse_weight(const char *p, size_t n, int64_t *w)
{
	int64_t x = 0;

	if (n == 0 || n > 7)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		x = x * 10 + (p[i] - '0');
	}
	if (x < 1 || x > 1000000)
		return -1;
	*w = x;
	return 0;
}

static int parse_team(struct fw_teams *t, const char *p, size_t n, const char *fname,
		      int lno, struct fw_diag *d)
{
	const char *comma = memchr(p, ',', n);
	size_t nl = comma ? (size_t)(comma - p) : n;
	struct fw_team *m = &t->v[t->n];

	if (!comma || memchr(comma + 1, ',', n - nl - 1))
		return fw_diag_set(d, FW_EINVAL, fname, lno, 1, "row",
				   "expected two fields: vc,node num");
	if (nl == 0 || nl >= FW_TEAM_NAME_MAX)
		return fw_diag_set(d, FW_EINVAL, fname, lno, 1, "vc",
				   "the name must be 1..%d bytes", FW_TEAM_NAME_MAX - 1);
	for (size_t i = 0; i < nl; i++)
		if (p[i] <= 0x20 || p[i] >= 0x7f || p[i] == '"' || p[i] == '\\')
			return fw_diag_set(d, FW_EINVAL, fname, lno, (int)i + 1, "vc",
					   "names are printable ASCII without spaces or quotes");
	if (t->n == FW_TEAMS_MAX)
		return fw_diag_set(d, FW_EINVAL, fname, lno, 1, "vc", "more than %d teams",
				   FW_TEAMS_MAX);
	memcpy(m->name, p, nl);
	m->name[nl] = 0;
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, m->name) == 0)
			return fw_diag_set(d, FW_EINVAL, fname, lno, 1, "vc",
					   "'%s' appears twice", m->name);
	if (parse_weight(comma + 1, n - nl - 1, &m->weight))
		return fw_diag_set(d, FW_EINVAL, fname, lno, (int)nl + 2, "node num",
				   "expected a whole number of nodes 1..1000000");
	t->total += m->weight;
	t->n++;
	return FW_OK;
}

int fw_teams_parse(const char *buf, size_t len, const char *fname, struct fw_teams *t,
		   struct fw_diag *d)
{
	size_t i = 0;
	int lno = 0, rc = FW_OK;
	bool header = true;

	memset(t, 0, sizeof *t);
	snprintf(t->source, sizeof t->source, "%s", fname);
	while (i < len && rc == FW_OK) {
		const char *p = buf + i, *nl = memchr(p, '\n', len - i);
		size_t n = nl ? (size_t)(nl - p) : len - i;
		i += n + 1;
		lno++;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (lno == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
			p += 3; /* a UTF-8 byte-order mark */
			n -= 3;
		}
		if (n == 0)
			continue;
		if (header && (n < 3 || memcmp(p, "vc,", 3) != 0))
			return fw_diag_set(d, FW_EINVAL, fname, lno, 1, "header",
					   "expected the header 'vc,node num'");
		if (!header)
			rc = parse_team(t, p, n, fname, lno, d);
		header = false;
	}
	if (rc == FW_OK && t->n == 0)
		rc = fw_diag_set(d, FW_EINVAL, fname, 0, 0, NULL, "no teams in the file");
	return rc;
}

int fw_teams_read(const char *path, struct fw_teams *t, struct fw_diag *d)
{
	char *buf;
	size_t len;
	int rc = fw_itp_slurp(path, &buf, &len, d);

	if (rc != FW_OK)
		return rc;
	rc = fw_teams_parse(buf, len, path, t, d);
	free(buf);
	return rc;
}

int fw_teams_load(const char *path, struct fw_teams *t, char *note, size_t nnote,
		  struct fw_diag *d)
{
	char def[512];
	const char *root = getenv("FAIRWAY_TRACES");
	int rc;

	if (note && nnote)
		note[0] = 0;
	if (path)
		return fw_teams_read(path, t, d);
	snprintf(def, sizeof def, "%s/philly-vc-config/philly_vc.csv",
		 root && root[0] ? root : "../shared/traces");
	rc = fw_teams_read(def, t, d);
	if (rc != FW_EIO)
		return rc;
	fw_teams_builtin(t);
	if (note && nnote) /* where it looked, and the variable that moves it */
		snprintf(note, nnote, "teams: %s not found (%s); using the built-in copy of the "
			 "11 Philly VCs (same weights); to read the file, set FAIRWAY_TRACES to the "
			 "traces folder that holds philly-vc-config/", def, root && root[0] ?
			 "from FAIRWAY_TRACES" : "FAIRWAY_TRACES is not set: the default "
			 "../shared/traces is relative to the current directory");
	return FW_OK;
}

/* ---- mapping and quotas ------------------------------------------------- */

int fw_team_of(const struct fw_teams *t, const char *job_id)
{
	uint64_t r = fw_splitmix64(fw_fnv1a64(job_id, strlen(job_id))) % (uint64_t)t->total;

	for (int i = 0; i < t->n; i++) {
		if (r < (uint64_t)t->v[i].weight)
			return i;
		r -= (uint64_t)t->v[i].weight;
	}
	return t->n - 1; /* unreachable: r < total */
}

void fw_teams_quota(const struct fw_teams *t, int64_t cluster_gpus, int64_t *quota)
{
	int64_t milli = cluster_gpus * 1000, given = 0;
	int64_t rem[FW_TEAMS_MAX];

	for (int i = 0; i < t->n; i++) {
		quota[i] = milli * t->v[i].weight / t->total;
		rem[i] = milli * t->v[i].weight % t->total;
		given += quota[i];
	}
	while (given < milli) { /* largest remainder, ties to the lower index */
		int best = 0;
		for (int i = 1; i < t->n; i++)
			if (rem[i] > rem[best])
				best = i;
		quota[best]++;
		rem[best] = -1;
		given++;
	}
}
