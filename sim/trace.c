/*
 * trace.c — the trace model's helpers and the non-generic sources: ITP rows
 * (gang shaping) and openb pods (times from creation/deletion_time).  The
 * generic CSV/JSONL reader is in generic.c; contracts are in trace.h.
 *
 * openb pods are read by the openb reader (every resource value checked
 * there); this file then re-walks the same lines to take each surviving
 * pod's creation_time and deletion_time, which the FGD experiment ignores
 * and so openb.c does not keep.  Lines are matched by number, so skipped
 * rows stay skipped and counted once.
 *
 * fw_trace_warn_models() and fw_trace_warn_unfit() are checks across trace
 * and fleet: a job that asks for a GPU model no node has can never start
 * (the engine matches models exactly), nor can one with a task larger
 * than every node, a gang larger than the fleet, or more tasks than the
 * nodes can hold (2 tasks of 8 GPUs and one 8-GPU node), and a replay
 * would only show it waiting forever.  fw_trace_model_case() first gives
 * a job's model the fleet's spelling where the two differ only by case
 * (sacct's h100, a config's H100), by the core's rule
 * (fw_snapshot_gpu_model_spelling, as the daemon's intake): where two
 * fleet models differ from it only by case it refuses the trace rather
 * than guess.  The fleet's models are collected
 * once (a few names), so the model check is O(jobs x models); the size
 * check takes the fleet's largest node once, O(jobs), and counts the
 * nodes' room only for a job of several tasks or of a model,
 * O(nodes x groups) each.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cliword.h"
#include "openb.h"
#include "trace.h"

void fw_trace_free(struct fw_trace *t)
{
	if (!t)
		return;
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

int fw_trace_push(struct fw_trace *t, const struct fw_trace_job *j)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct fw_trace_job *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return FW_ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *j;
	return FW_OK;
}

int64_t fw_trace_job_gpus(const struct fw_trace_job *j)
{
	int64_t g = 0;

	for (int i = 0; i < j->ngroups; i++)
		g += (int64_t)j->groups[i].count * j->groups[i].gpus;
	return g;
}

double fw_trace_job_gpu_s(const struct fw_trace_job *j)
{
	int64_t milli = 0;

	for (int i = 0; i < j->ngroups; i++)
		milli += (int64_t)j->groups[i].count * j->groups[i].gpus *
			 j->groups[i].gpu_milli;
	return (double)milli / 1000.0 * (double)j->duration;
}

/* ---- ITP ---------------------------------------------------------------- */

/* n GPUs on G-GPU nodes: one task, or floor(n/G) tasks of G plus a rest. */
static void itp_shape(struct fw_trace_job *j, int32_t n, int32_t G)
{
	struct fw_trace_group *g = j->groups;

	j->ngroups = 1;
	g[0].count = 1;
	g[0].gpus = n;
	g[0].gpu_milli = 1000;
	if (n <= G)
		return;
	g[0].count = n / G;
	g[0].gpus = G;
	if (n % G) {
		j->ngroups = 2;
		g[1] = g[0];
		g[1].count = 1;
		g[1].gpus = n % G;
	}
}

int fw_trace_from_itp(const struct fw_itp_trace *in, int32_t G,
		      struct fw_trace *out, struct fw_diag *d)
{
	struct fw_trace_job j;

	memset(out, 0, sizeof *out);
	if (G < 1 || G > FW_MAX_GPUS_PER_NODE)
		return fw_diag_set(d, FW_EINVAL, in->file, 0, 0, "gpus_per_node",
				   "%d is not 1..%d; give the fleet nodes of 1..%d GPUs "
				   "(--nodes NxG)", (int)G, FW_MAX_GPUS_PER_NODE,
				   FW_MAX_GPUS_PER_NODE);
	snprintf(out->file, sizeof out->file, "%s", in->file);
	out->skipped = in->skipped;
	out->first_bad = in->first_bad;
	for (size_t i = 0; i < in->n; i++) {
		const struct fw_itp_job *r = &in->v[i];
		memset(&j, 0, sizeof j);
		snprintf(j.id, sizeof j.id, "%s", r->id);
		j.submit = r->submit;
		j.duration = j.expected = r->duration;
		j.line = r->line;
		itp_shape(&j, r->gpus, G);
		if (fw_trace_push(out, &j)) {
			fw_trace_free(out);
			return fw_diag_set(d, FW_ENOMEM, in->file, 0, 0, NULL, "out of memory");
		}
	}
	return FW_OK;
}

/* ---- openb pods --------------------------------------------------------- */

struct openb_times {
	int cpos, dpos;       /* field index of creation/deletion_time */
	int npos, gpos, spos; /* of name, num_gpu, gpu_spec (for messages) */
	size_t next;          /* next pod (file order) to match */
};

static int time_field(const struct fw_csv_rec *r, int pos, int lno,
		      const char *fname, const char *name, int64_t *v,
		      struct fw_diag *d)
{
	const char *s = (size_t)pos < r->nf ? r->f[pos] : "";
	char *end;
	long long x;

	if (!*s)
		return fw_diag_set(d, FW_EINVAL, fname, lno, (size_t)pos < r->nf ? r->col[pos] : 1,
				   name, "is empty: a pod needs creation_time and "
				   "deletion_time to be replayed as a trace; give both, "
				   "or leave the pod out");
	x = strtoll(s, &end, 10);
	if (*end || s[0] < '0' || s[0] > '9' || x < 0 || x > FW_TRACE_MAX_TIME)
		return fw_diag_set(d, FW_EINVAL, fname, lno, r->col[pos], name,
				   "'%.40s' is not a whole number of seconds in 0..%lld; "
				   "write it in decimal digits (no sign, spaces or units)",
				   s, (long long)FW_TRACE_MAX_TIME);
	*v = x;
	return FW_OK;
}

static int openb_header(struct openb_times *ot, const struct fw_csv_rec *r,
			const char *fname, int lno, struct fw_diag *d)
{
	ot->cpos = ot->dpos = ot->npos = ot->gpos = ot->spos = -1;
	for (size_t i = 0; i < r->nf; i++) {
		if (strcmp(r->f[i], "creation_time") == 0)
			ot->cpos = (int)i;
		if (strcmp(r->f[i], "deletion_time") == 0)
			ot->dpos = (int)i;
		if (strcmp(r->f[i], "name") == 0)
			ot->npos = (int)i;
		if (strcmp(r->f[i], "num_gpu") == 0)
			ot->gpos = (int)i;
		if (strcmp(r->f[i], "gpu_spec") == 0)
			ot->spos = (int)i;
	}
	if (ot->cpos < 0 || ot->dpos < 0)
		return fw_diag_set(d, FW_EINVAL, fname, lno, 1, "header",
				   "a pod list replayed as a trace needs the columns "
				   "creation_time and deletion_time; add them (a pod list "
				   "without them is for fairway sim fgd)");
	return FW_OK;
}

static int col_of(const struct fw_csv_rec *r, int pos)
{
	return pos >= 0 && (size_t)pos < r->nf ? r->col[pos] : 1;
}

/* Build the job for pod p from its split line. */
static int openb_job(const struct fw_openb_pod *p, const struct fw_csv_rec *r,
		     const struct openb_times *ot, const char *fname,
		     struct fw_trace_job *j, struct fw_diag *d)
{
	int64_t c, e;
	int rc;

	memset(j, 0, sizeof *j);
	if ((rc = time_field(r, ot->cpos, p->line, fname, "creation_time", &c, d)) ||
	    (rc = time_field(r, ot->dpos, p->line, fname, "deletion_time", &e, d)))
		return rc;
	if (e < c)
		return fw_diag_set(d, FW_EINVAL, fname, p->line, r->col[ot->dpos],
				   "deletion_time", "%lld is before creation_time %lld; "
				   "fix the pod's times, or leave it out",
				   (long long)e, (long long)c);
	if (strlen(p->name) >= FW_NAME_MAX)
		return fw_diag_set(d, FW_EINVAL, fname, p->line, col_of(r, ot->npos), "name",
				   "'%.40s...' is longer than %d bytes, the longest job id; "
				   "give the pod a shorter name", p->name, FW_NAME_MAX - 1);
	if (p->num_gpu > FW_MAX_GPUS_PER_NODE)
		return fw_diag_set(d, FW_EINVAL, fname, p->line, col_of(r, ot->gpos), "num_gpu",
				   "pod '%.40s' asks for %d GPUs; a pod runs on one node, "
				   "which has at most %d: give it at most %d, or leave it "
				   "out", p->name, p->num_gpu, FW_MAX_GPUS_PER_NODE,
				   FW_MAX_GPUS_PER_NODE);
	if (!strchr(p->gpu_spec, '|') && strlen(p->gpu_spec) >= FW_NAME_MAX)
		return fw_diag_set(d, FW_EINVAL, fname, p->line, col_of(r, ot->spos), "gpu_spec",
				   "model '%.40s...' is longer than %d bytes; give the "
				   "model a shorter name (as the fleet's nodes name it)",
				   p->gpu_spec, FW_NAME_MAX - 1);
	snprintf(j->id, sizeof j->id, "%s", p->name);
	j->submit = c;
	j->duration = j->expected = e - c;
	j->ngroups = 1;
	j->groups[0] = (struct fw_trace_group){ 1, p->num_gpu,
		p->num_gpu ? p->gpu_milli : 1000, p->cpu_milli, p->memory_mib };
	if (!strchr(p->gpu_spec, '|'))
		snprintf(j->gpu_model, sizeof j->gpu_model, "%s", p->gpu_spec);
	j->line = p->line;
	return FW_OK;
}

/* One line of the pod file; pods[] are matched by line number. */
static int openb_line(struct openb_times *ot, const struct fw_openb_pods *pods,
		      char *line, int lno, unsigned flags, struct fw_trace *out,
		      struct fw_diag *d)
{
	struct fw_csv_rec r;
	struct fw_trace_job j;
	const char *why;
	int col, rc;

	if (ot->next >= pods->n || pods->v[ot->next].line != lno)
		return ot->cpos < 0 && !fw_csv_split(line, &r, &why, &col) && r.nf > 1
		       ? openb_header(ot, &r, out->file, lno, d) : FW_OK;
	const struct fw_openb_pod *p = &pods->v[ot->next++];
	if (fw_csv_split(line, &r, &why, &col))
		return fw_diag_set(d, FW_EINVAL, out->file, lno, col, "row", "%s", why);
	if ((rc = openb_job(p, &r, ot, out->file, &j, d)) == FW_OK)
		return fw_trace_push(out, &j);
	if (rc != FW_EINVAL || !(flags & FW_TRACE_SKIP_BAD))
		return rc;
	if (out->skipped++ == 0)
		out->first_bad = *d;
	return FW_OK;
}

static int openb_walk(const char *buf, size_t len, const struct fw_openb_pods *pods,
		      unsigned flags, struct fw_trace *out, struct fw_diag *d)
{
	struct openb_times ot = { -1, -1, -1, -1, -1, 0 };
	size_t at = 0;
	int lno = 0, rc = FW_OK;

	while (at < len && rc == FW_OK) {
		const char *p = buf + at, *nl = memchr(p, '\n', len - at);
		size_t n = nl ? (size_t)(nl - p) : len - at;
		char *line = malloc(n + 1);
		at += n + (nl ? 1 : 0);
		lno++;
		if (!line)
			return FW_ENOMEM;
		memcpy(line, p, n);
		line[n] = 0;
		if (n && line[n - 1] == '\r')
			line[n - 1] = 0;
		/* a UTF-8 byte-order mark, skipped as the pod reader does */
		rc = openb_line(&ot, pods, line + (lno == 1 && n >= 3 &&
				!memcmp(line, "\xEF\xBB\xBF", 3) ? 3 : 0), lno, flags, out, d);
		free(line);
	}
	return rc;
}

int fw_trace_parse_openb(const char *buf, size_t len, const char *fname,
			 unsigned flags, struct fw_trace *out, struct fw_diag *d)
{
	struct fw_openb_pods pods;
	int rc;

	memset(out, 0, sizeof *out);
	fname = fname ? fname : "<buffer>";
	snprintf(out->file, sizeof out->file, "%s", fname);
	rc = fw_openb_parse_pods(buf, len, fname,
				 (flags & FW_TRACE_SKIP_BAD) ? FW_OPENB_SKIP_BAD : 0, &pods, d);
	if (rc != FW_OK)
		return rc;
	out->skipped = pods.skipped;
	out->first_bad = pods.first_bad;
	rc = openb_walk(buf, len, &pods, flags, out, d);
	fw_openb_pods_free(&pods);
	if (rc != FW_OK)
		fw_trace_free(out);
	return rc;
}

/* ---- files -------------------------------------------------------------- */

/* The --format names, by enum fw_trace_format. */
static const char *const format_name[3] = { "itp", "openb", "fairway" };

int fw_trace_format_of(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (name && strcmp(name, format_name[i]) == 0)
			return i;
	return -1;
}

static int read_itp(const char *path, int32_t G, unsigned flags,
		    struct fw_trace *out, struct fw_diag *d)
{
	struct fw_itp_trace t;
	int rc = fw_itp_read(path, (flags & FW_TRACE_SKIP_BAD) ? FW_ITP_SKIP_BAD : 0, &t, d);

	if (rc != FW_OK)
		return rc;
	rc = fw_trace_from_itp(&t, G, out, d);
	fw_itp_free(&t);
	return rc;
}

/* Does the header line h (n bytes) name column `col`? */
static bool names_col(const char *h, size_t n, const char *col)
{
	size_t k = strlen(col), i = 0;

	while (i < n) {
		size_t j = i;
		while (j < n && h[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && (h[a] == ' ' || h[a] == '"'))
			a++;
		while (b > a && (h[b - 1] == ' ' || h[b - 1] == '"' || h[b - 1] == '\r'))
			b--;
		if (b - a == k && !memcmp(h + a, col, k))
			return true;
		i = j + 1;
	}
	return false;
}

int fw_trace_sniff(const char *buf, size_t len)
{
	static const char *const need[3][4] = {
		[FW_TRACE_ITP] = { "job_id", "submission_time", "duration", "num_gpu" },
		[FW_TRACE_OPENB] = { "name", "num_gpu", "gpu_milli", "creation_time" },
		[FW_TRACE_FAIRWAY] = { "job_id", "submit_time", "duration", "gpus_per_task" },
	};
	size_t n = 0;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		buf += 3, len -= 3;
	while (n < len && buf[n] != '\n')
		n++;
	if (n > 0 && buf[0] == '{')
		return FW_TRACE_FAIRWAY;
	for (int f = 0; f < 3; f++) {
		int k = 0;
		while (k < 4 && names_col(buf, n, need[f][k]))
			k++;
		if (k == 4)
			return f;
	}
	return -1;
}

/* Is the first line of buf sacct --parsable2's header (a '|'-separated
 * field JobID or JobIDRaw)?  Such a file is converted, not replayed. */
static bool sacct_header(const char *buf, size_t len)
{
	size_t i = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
	bool bar = false;

	while (i < len && buf[i] != '\n' && buf[i] != '\r') {
		size_t k = i;
		while (k < len && buf[k] != '|' && buf[k] != '\n' && buf[k] != '\r')
			k++;
		if ((k - i == 5 && !memcmp(buf + i, "JobID", 5)) ||
		    (k - i == 8 && !memcmp(buf + i, "JobIDRaw", 8)))
			return bar || (k < len && buf[k] == '|');
		bar = bar || (k < len && buf[k] == '|');
		i = k < len && buf[k] == '|' ? k + 1 : k;
	}
	return false;
}

/* A header error of the wrong --format: name the one the header is (or,
 * for sacct output, say so in place of the reader's error, with the
 * converter to run). */
static void hint_format(const char *path, enum fw_trace_format fmt, struct fw_diag *d)
{
	static const char *const what[3] = { "an ITP trace", "an openb pod list",
					     "a fairway trace" };
	char line[4096];
	size_t len, used;
	FILE *f;
	int s;

	if (!d || d->line != 1 || !(f = fopen(path, "rb")))
		return;
	len = fread(line, 1, sizeof line, f);
	fclose(f);
	used = strlen(d->msg);
	if (sacct_header(line, len)) { /* the column the reader missed is beside the point */
		snprintf(d->field, sizeof d->field, "header");
		d->col = 1;
		snprintf(d->msg, sizeof d->msg, "the file looks like sacct --parsable2 output, not "
			 "a trace: convert it first (fairway trace sacct2fairway %s jobs.csv), then "
			 "replay --trace jobs.csv --format fairway", strlen(path) <= 60 ? path : "FILE");
		return;
	}
	if ((s = fw_trace_sniff(line, len)) < 0 || s == (int)fmt)
		return;
	snprintf(d->msg + used, sizeof d->msg - used, "; the file looks like %s: use --format %s",
		 what[s], format_name[s]);
}

int fw_trace_read(const char *path, enum fw_trace_format fmt, int32_t G,
		  unsigned flags, struct fw_trace *out, struct fw_diag *d)
{
	char *buf;
	size_t len;
	int rc;

	memset(out, 0, sizeof *out);
	if (fmt == FW_TRACE_ITP) {
		rc = read_itp(path, G, flags, out, d);
	} else {
		if ((rc = fw_itp_slurp(path, &buf, &len, d)) != FW_OK)
			return rc;
		if (fmt == FW_TRACE_OPENB)
			rc = fw_trace_parse_openb(buf, len, path, flags, out, d);
		else
			rc = fw_trace_parse_generic(buf, len, path, flags, out, d);
		free(buf);
	}
	if (rc == FW_EINVAL)
		hint_format(path, fmt, d);
	return rc;
}

/* ---- for the simulator -------------------------------------------------- */

/* Split total over weights w[n] by largest remainder (ties: lower index);
 * equal weights when they sum to 0. */
static void lr_split(const double *w, int n, int64_t total, int64_t *out)
{
	double sum = 0, frac[FW_TEAMS_MAX + 1];
	int64_t given = 0;

	for (int i = 0; i < n; i++)
		sum += w[i];
	for (int i = 0; i < n; i++) {
		double x = sum > 0 ? (double)total * w[i] / sum : (double)total / n;
		out[i] = (int64_t)x;
		frac[i] = x - (double)out[i];
		given += out[i];
	}
	while (given < total) {
		int best = 0;
		for (int i = 1; i < n; i++)
			best = frac[i] > frac[best] ? i : best;
		out[best]++;
		frac[best] = -1;
		given++;
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Distinct queue names of the trace, sorted, after q->n team queues. */
static int named_queues(const struct fw_trace *t, struct fw_trace_queues *q,
			struct fw_diag *d)
{
	int first = q->n;

	for (size_t i = 0; i < t->n; i++) {
		const char *nm = t->v[i].queue;
		bool seen = false;
		for (int k = first; k < q->n && !seen; k++)
			seen = strcmp(q->name[k], nm) == 0;
		if (!nm[0] || seen)
			continue;
		for (int k = 0; k < first; k++)
			if (strcmp(q->name[k], nm) == 0)
				return fw_diag_set(d, FW_EEXIST, t->file, t->v[i].line, 0, "queue",
						   "'%s' is also a team queue's name", nm);
		if (q->n == FW_TEAMS_MAX)
			return fw_diag_set(d, FW_ERANGE, t->file, t->v[i].line, 0, "queue",
					   "more than %d queues", FW_TEAMS_MAX);
		snprintf(q->name[q->n++], FW_NAME_MAX, "%s", nm);
	}
	qsort(q->name[first], (size_t)(q->n - first), FW_NAME_MAX, cmp_name);
	return FW_OK;
}

static int find_queue(const struct fw_trace_queues *q, int from, const char *nm)
{
	int lo = from, hi = q->n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(q->name[mid], nm);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Deserved shares: [named queues..., team block] by demand. */
static void queue_shares(const struct fw_trace *t, const struct fw_teams *teams,
			 int nteam, int64_t total, struct fw_trace_queues *q)
{
	double w[FW_TEAMS_MAX + 1] = { 0 };
	int64_t share[FW_TEAMS_MAX + 1];
	int nn = q->n - nteam;

	for (size_t i = 0; i < t->n; i++) {
		int k = q->of_job[i];
		w[k >= nteam ? k - nteam : nn] += fw_trace_job_gpu_s(&t->v[i]);
	}
	lr_split(w, nn + (nteam > 0), total, share);
	for (int k = 0; k < nn; k++)
		q->deserved_milli[nteam + k] = share[k];
	for (int k = 0; k < nteam; k++)
		w[k] = (double)teams->v[k].weight;
	if (nteam)
		lr_split(w, nteam, share[nn], q->deserved_milli);
}

int fw_trace_queues(const struct fw_trace *t, const struct fw_teams *teams,
		    bool force_teams, int64_t cluster_gpus,
		    struct fw_trace_queues *q, struct fw_diag *d)
{
	bool any_named = false, any_team = false;
	int nteam = 0, rc;

	memset(q->name, 0, sizeof q->name);
	q->n = 0;
	for (size_t i = 0; i < t->n; i++) {
		any_named |= !force_teams && t->v[i].queue[0];
		any_team |= force_teams || !t->v[i].queue[0];
	}
	if (any_team || !any_named)
		for (nteam = 0; nteam < teams->n; nteam++)
			snprintf(q->name[nteam], FW_NAME_MAX, "vc-%s", teams->v[nteam].name);
	q->n = q->nteam = nteam;
	if (any_named && (rc = named_queues(t, q, d)) != FW_OK)
		return rc;
	if (!(q->of_job = malloc((t->n ? t->n : 1) * sizeof *q->of_job)))
		return fw_diag_set(d, FW_ENOMEM, t->file, 0, 0, NULL, "out of memory");
	for (size_t i = 0; i < t->n; i++)
		q->of_job[i] = any_named && t->v[i].queue[0]
			       ? find_queue(q, nteam, t->v[i].queue)
			       : fw_team_of(teams, t->v[i].id);
	if (!any_named)
		fw_teams_quota(teams, cluster_gpus, q->deserved_milli);
	else
		queue_shares(t, teams, nteam, cluster_gpus * 1000, q);
	return FW_OK;
}

/* ---- a config's queues (--config) ----------------------------------------- */

#define LEAVES_LISTED 6 /* leaf queues an error lists before "and N more" */

static bool has_children(const struct fw_snapshot *s, int32_t q)
{
	for (int32_t k = 0; k < s->nqueues; k++)
		if (s->queues[k].parent == q)
			return true;
	return false;
}

/* "a, b, c" (the first LEAVES_LISTED leaves in config order, then "and
 * N more"): what an error offers instead of a bad queue name. */
static void list_leaves(const struct fw_snapshot *s, char *out, size_t n)
{
	size_t k = 0;
	int listed = 0, more = 0;

	out[0] = '\0';
	for (int32_t q = 0; q < s->nqueues; q++) {
		if (has_children(s, q))
			continue;
		if (listed == LEAVES_LISTED) {
			more++;
			continue;
		}
		k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s%s", listed ? ", " : "", s->queues[q].name);
		k = k < n ? k : n;
		listed++;
	}
	if (more && k < n)
		snprintf(out + k, n - k, " and %d more", more);
}

/* " (did you mean 'llm'?)" for a queue name that is a leaf's but for
 * case, or a leaf's within a typo (fw_cli_nearest), else "". */
static const char *leaf_hint(const struct fw_snapshot *s, const char *name, char *buf, size_t n)
{
	const char *cand[FW_TEAMS_MAX + 1], *near = NULL;
	int k = 0;

	for (int32_t q = 0; q < s->nqueues && k < FW_TEAMS_MAX; q++)
		if (!has_children(s, q))
			cand[k++] = s->queues[q].name;
	cand[k] = NULL;
	for (int i = 0; i < k && !near; i++)
		near = !strcasecmp(cand[i], name) ? cand[i] : NULL;
	if (!near)
		near = fw_cli_nearest(name, cand);
	buf[0] = '\0';
	if (near)
		snprintf(buf, n, " (did you mean '%s'?)", near);
	return buf;
}

int fw_trace_config_queue(const struct fw_trace *t, size_t row, const struct fw_snapshot *cfg,
			  struct fw_diag *d)
{
	const struct fw_trace_job *j = &t->v[row];
	char leaves[400], hint[FW_NAME_MAX + 32];
	int32_t q = 0;

	while (q < cfg->nqueues && strcmp(cfg->queues[q].name, j->queue))
		q++;
	if (q < cfg->nqueues && j->queue[0] && !has_children(cfg, q))
		return q;
	list_leaves(cfg, leaves, sizeof leaves);
	if (!j->queue[0])
		return fw_diag_set(d, FW_EINVAL, t->file, j->line, j->queue_col, "queue",
				   "job '%s' names no queue; with a config each job names one of its leaf "
				   "queues (%s)", j->id, leaves);
	if (q == cfg->nqueues)
		return fw_diag_set(d, FW_EINVAL, t->file, j->line, j->queue_col, "queue",
				   "job '%s': the config has no queue '%s'%s; name one of its leaf queues (%s)",
				   j->id, j->queue, leaf_hint(cfg, j->queue, hint, sizeof hint), leaves);
	return fw_diag_set(d, FW_EINVAL, t->file, j->line, j->queue_col, "queue",
			   "job '%s': '%s' is a parent queue (it has child queues), and jobs go to leaf "
			   "queues; name a leaf queue of the config (%s)", j->id, j->queue, leaves);
}

/* A trace none of whose jobs has a queue field (no queue column, or an
 * ITP trace) cannot go to a config's queues: one error at its first line,
 * never skipped. */
static int needs_queue_column(const struct fw_trace *t, const struct fw_snapshot *cfg,
			      struct fw_diag *d)
{
	char leaves[400];

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].queue_col > 0 || t->v[i].queue[0])
			return FW_OK;
	list_leaves(cfg, leaves, sizeof leaves);
	return fw_diag_set(d, FW_EINVAL, t->file, 1, 1, "queue",
			   "--config needs a queue column: the trace names no job's queue; add a queue "
			   "column (a CSV header's, a JSONL row's key) naming each job's leaf queue of "
			   "the config (%s)", leaves);
}

int fw_trace_bind_config(struct fw_trace *t, const struct fw_snapshot *cfg, unsigned flags,
			 struct fw_diag *d)
{
	struct fw_diag e;
	size_t w = 0;
	int rc = t->n ? needs_queue_column(t, cfg, &e) : FW_OK;

	if (rc != FW_OK) {
		if (d)
			*d = e;
		return rc;
	}
	for (size_t i = 0; i < t->n; i++) {
		rc = fw_trace_config_queue(t, i, cfg, &e);
		if (rc >= 0) {
			if (w != i)
				t->v[w] = t->v[i];
			w++;
			continue;
		}
		if (!(flags & FW_TRACE_SKIP_BAD)) {
			if (d)
				*d = e;
			return rc;
		}
		if (!t->skipped)
			t->first_bad = e;
		t->skipped++;
	}
	t->n = w;
	return FW_OK;
}

/* A job's level the fleet lacks: the fleet's levels (node is always
 * one), a near name, and the two ways out. */
static int level_error(const struct fw_trace *t, const struct fw_trace_job *tj,
		       const struct fw_topology *topo, const char *name, const char *field,
		       struct fw_diag *d)
{
	const char *names[FW_MAX_LEVELS + 2], *near;
	char list[FW_MAX_LEVELS * 66 + 8] = "", hint[96] = "";

	for (int l = 0; l < topo->nlevels; l++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s, ", topo->level[l]);
	fw_topology_level_names(topo, names);
	if ((near = fw_cli_nearest_name(name, names)))
		snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
	return fw_diag_set(d, FW_EINVAL, t->file, tj->line, 0, field,
			   "job '%s': '%s' is not a topology level of the fleet%s (its levels: %snode); "
			   "name one of them, or give the fleet that level (--racks, --blocks, --topo, --fleet)",
			   tj->id, name, hint, list);
}

static int level_of(const struct fw_trace *t, const struct fw_trace_job *tj,
		    const struct fw_topology *topo, const char *name,
		    const char *field, int8_t *out, struct fw_diag *d)
{
	if (!name[0])
		return FW_OK;
	if (strcmp(name, "node") == 0) {
		*out = FW_LEVEL_NODE;
		return FW_OK;
	}
	for (int l = 0; l < topo->nlevels; l++)
		if (strcmp(topo->level[l], name) == 0) {
			*out = (int8_t)l;
			return FW_OK;
		}
	return level_error(t, tj, topo, name, field, d);
}

int fw_trace_make_job(const struct fw_trace *t, size_t row,
		      const struct fw_topology *topo, struct fw_job *j,
		      struct fw_diag *d)
{
	const struct fw_trace_job *tj = &t->v[row];
	int32_t tasks = 0;
	int rc;

	fw_job_init(j);
	j->priority = tj->priority;
	j->submit_time = tj->submit;
	j->expected_runtime = tj->expected;
	j->max_runtime_s = tj->max_runtime;
	j->min_member = tj->min_member;
	j->ngroups = tj->ngroups;
	for (int g = 0; g < tj->ngroups; g++) {
		struct fw_task_group *G = &j->groups[g];
		memset(G, 0, sizeof *G);
		G->count = tj->groups[g].count;
		G->gpus = tj->groups[g].gpus;
		G->gpu_milli = tj->groups[g].gpu_milli;
		G->cpu_milli = tj->groups[g].cpu_milli;
		G->mem_mib = tj->groups[g].mem_mib;
		snprintf(G->gpu_model, sizeof G->gpu_model, "%s", tj->gpu_model);
		tasks += G->count;
	}
	if ((rc = level_of(t, tj, topo, tj->topo_required, "topology_required",
			   &j->required_level, d)) ||
	    (rc = level_of(t, tj, topo, tj->topo_preferred, "topology_preferred",
			   &j->preferred_level, d)))
		return rc;
	if (!tj->topo_preferred[0] && tasks > 1 && topo->nlevels > 0)
		j->preferred_level = (int8_t)(topo->nlevels - 1);
	return FW_OK;
}

bool fw_trace_itp_shaped(const struct fw_trace_job *j, int32_t G)
{
	struct fw_trace_job s;
	int64_t n = fw_trace_job_gpus(j);

	if (n < 1 || n > FW_ITP_MAX_GPUS || j->gpu_model[0] || j->min_member ||
	    j->topo_required[0] || j->topo_preferred[0])
		return false;
	memset(&s, 0, sizeof s);
	itp_shape(&s, (int32_t)n, G);
	if (s.ngroups != j->ngroups)
		return false;
	for (int g = 0; g < j->ngroups; g++)
		if (j->groups[g].count != s.groups[g].count ||
		    j->groups[g].gpus != s.groups[g].gpus ||
		    j->groups[g].gpu_milli != 1000 || j->groups[g].cpu_milli ||
		    j->groups[g].mem_mib)
			return false;
	return true;
}

/* ---- GPU models the fleet lacks ------------------------------------------ */

#define MODELS_KEPT 64

struct models {
	const char *name[MODELS_KEPT]; /* distinct models of nodes with GPUs */
	int n;
	bool more;                     /* more than MODELS_KEPT: scan the nodes */
};

static bool model_in(const struct models *m, const struct fw_snapshot *s, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->name[i], name))
			return true;
	for (int32_t i = 0; m->more && i < s->nnodes; i++)
		if (s->nodes[i].gpu_count > 0 && !strcmp(s->nodes[i].gpu_model, name))
			return true;
	return false;
}

static void models_of(const struct fw_snapshot *s, struct models *m)
{
	memset(m, 0, sizeof *m);
	for (int32_t i = 0; i < s->nnodes; i++) {
		const char *name = s->nodes[i].gpu_model;
		if (s->nodes[i].gpu_count <= 0 || model_in(m, s, name))
			continue;
		if (m->n == MODELS_KEPT)
			m->more = true;
		else
			m->name[m->n++] = name;
	}
}

/* Append name to a sep-separated list; "sep..." once it is full. */
static void list_add_sep(char *list, size_t n, const char *name, const char *sep)
{
	size_t len = strlen(list);

	if (len >= 3 && !strcmp(list + len - 3, "..."))
		return;
	if (len + strlen(name) + 2 * strlen(sep) + 5 < n)
		snprintf(list + len, n - len, "%s%s", len ? sep : "", name);
	else
		snprintf(list + len, n - len, "%s...", len ? sep : "");
}

/* Append name to a ", "-separated list; ", ..." once it is full. */
static void list_add(char *list, size_t n, const char *name)
{
	list_add_sep(list, n, name, ", ");
}

size_t fw_trace_unknown_models(const struct fw_trace *t, const struct fw_snapshot *fleet,
			       char *want, size_t wn, char *have, size_t hn)
{
	struct models m, missing;
	size_t jobs = 0;

	want[0] = have[0] = 0;
	models_of(fleet, &m);
	for (int i = 0; i < m.n; i++)
		list_add(have, hn, m.name[i]);
	memset(&missing, 0, sizeof missing);
	for (size_t i = 0; i < t->n; i++) {
		const char *name = t->v[i].gpu_model;
		if (!name[0] || !fw_trace_job_gpus(&t->v[i]) || model_in(&m, fleet, name))
			continue;
		jobs++;
		if (missing.n < MODELS_KEPT && !model_in(&missing, fleet, name)) {
			missing.name[missing.n++] = name;
			list_add(want, wn, name);
		}
	}
	return jobs;
}

/* Two of the fleet's models that differ from name only by case, into
 * a and b (the daemon's and the core's rule, fw_snapshot_gpu_model_spelling,
 * takes neither: a guess).  The first two distinct such spellings in
 * node order. */
static void models_alike(const struct fw_snapshot *s, const char *name, const char **a, const char **b)
{
	*a = *b = "";
	for (int32_t i = 0; i < s->nnodes && !(*b)[0]; i++) {
		const char *m = s->nodes[i].gpu_model;
		if (s->nodes[i].gpu_count <= 0 || strcasecmp(m, name))
			continue;
		if (!(*a)[0])
			*a = m;
		else if (strcmp(*a, m))
			*b = m;
	}
}

/* Job i's model has no exact match and two case-alike ones: refused,
 * naming its line, both spellings and the fix. */
static int model_ambiguous(const struct fw_trace *t, size_t i, const struct fw_snapshot *fleet, struct fw_diag *d)
{
	const char *a, *b;

	models_alike(fleet, t->v[i].gpu_model, &a, &b);
	return fw_diag_set(d, FW_EINVAL, t->file, t->v[i].line, 0, "gpu_model",
			   "job %s asks GPU model \"%s\", and the fleet has both \"%s\" and \"%s\", which differ from it "
			   "only by case: spell it exactly as the one it means (or give those nodes one spelling)",
			   t->v[i].id, t->v[i].gpu_model, a, b);
}

/* The core's spelling of a name (fw_snapshot_gpu_model_spelling,
 * O(nodes)) and whether two fleet models are alike it (so the core
 * takes neither), worked out once per distinct name: a trace's jobs name
 * a few models, each many times.  Past MODELS_KEPT names, each is worked
 * out again. */
struct spellings {
	char asked[MODELS_KEPT][FW_NAME_MAX];
	const char *as[MODELS_KEPT];
	bool twice[MODELS_KEPT];
	int n;
};

static const char *spelled(struct spellings *c, const struct fw_snapshot *fleet, const char *name, bool *twice)
{
	const char *as, *a = "", *b = "";

	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->asked[i], name)) {
			*twice = c->twice[i];
			return c->as[i];
		}
	as = fw_snapshot_gpu_model_spelling(fleet, name);
	if (!as)
		models_alike(fleet, name, &a, &b);
	*twice = !as && b[0];
	if (c->n < MODELS_KEPT) {
		snprintf(c->asked[c->n], sizeof c->asked[c->n], "%s", name);
		c->twice[c->n] = *twice;
		c->as[c->n++] = as;
	}
	return as;
}

int fw_trace_model_case(struct fw_trace *t, const struct fw_snapshot *fleet, size_t *changed, struct fw_diag *d)
{
	struct models m;
	struct spellings c; /* 5 KiB */
	bool twice;

	*changed = 0;
	c.n = 0;
	models_of(fleet, &m);
	for (size_t i = 0; i < t->n; i++) {
		char *name = t->v[i].gpu_model;
		if (!name[0] || model_in(&m, fleet, name))
			continue;
		const char *as = spelled(&c, fleet, name, &twice);
		if (twice)
			return model_ambiguous(t, i, fleet, d);
		if (as) {
			snprintf(name, sizeof t->v[i].gpu_model, "%s", as);
			++*changed;
		}
	}
	return FW_OK;
}

/* ---- jobs too big for the fleet ----------------------------------------- */

struct fleet_max {
	const struct fw_snapshot *s;
	int32_t gpus;          /* of the largest node, and so on */
	int64_t cpu, mem;
	int64_t total_milli;   /* the fleet's milli-GPUs */
	int32_t closed;        /* nodes left out: they never take work */
	int32_t bad;           /* GPUs left out of the nodes counted */
};

static bool node_closed(const struct fw_node *n)
{
	return !n->schedulable || n->health == FW_HEALTH_UNHEALTHY || n->health == FW_HEALTH_DRAINING;
}

/* The GPUs of node n outside its badGpus. */
static int32_t good_gpus(const struct fw_node *n)
{
	uint32_t all = n->gpu_count >= 32 ? UINT32_MAX : (UINT32_C(1) << n->gpu_count) - 1;

	return (int32_t)__builtin_popcount(all & ~n->bad_gpu_mask);
}

/* The maxima of the nodes that take work.  A node the fleet file closes
 * (schedulable: false, unhealthy, draining) stays closed for the whole
 * replay (a failed node's repair restores the file's state, sim/des.c),
 * and a GPU in its badGpus stays bad: neither can ever run a job. */
static void fleet_max(const struct fw_snapshot *s, struct fleet_max *m)
{
	memset(m, 0, sizeof *m);
	m->s = s;
	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		int32_t good = good_gpus(n);
		if (node_closed(n)) {
			m->closed++;
			continue;
		}
		m->bad += n->gpu_count - good;
		m->gpus = good > m->gpus ? good : m->gpus;
		m->cpu = n->cpu_milli > m->cpu ? n->cpu_milli : m->cpu;
		m->mem = n->mem_mib > m->mem ? n->mem_mib : m->mem;
		m->total_milli += (int64_t)good * 1000;
	}
}

/* What the job needs at the least: the tasks of a group (an elastic job's
 * min_member when it is one group). */
static int32_t tasks_needed(const struct fw_trace_job *j, const struct fw_trace_group *g)
{
	return j->min_member && j->ngroups == 1 ? j->min_member : g->count;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Tasks of group g (of a job asking for model, "" = any) that node n can
 * hold at once, alone on it: by its good GPUs (a fraction: tasks per GPU
 * times its GPUs), CPU and memory; 0 when it is closed or has another
 * model.  FW_TRACE_MAX_TASKS stands for "any number". */
static int64_t node_holds(const struct fw_node *n, const struct fw_trace_group *g, const char *model)
{
	int64_t k = FW_TRACE_MAX_TASKS, good = good_gpus(n);

	if (node_closed(n) || (g->gpus > 0 && model[0] && strcmp(n->gpu_model, model)))
		return 0;
	if (g->gpus > 0)
		k = g->gpu_milli < 1000 ? good * (1000 / g->gpu_milli) : good / g->gpus;
	if (g->cpu_milli > 0)
		k = min64(k, n->cpu_milli / g->cpu_milli);
	if (g->mem_mib > 0)
		k = min64(k, n->mem_mib / g->mem_mib);
	return k;
}

/* Tasks of group g the whole fleet holds at once, counted up to need. */
static int64_t fleet_holds(const struct fw_snapshot *s, const struct fw_trace_group *g, const char *model,
			   int64_t need)
{
	int64_t k = 0;

	for (int32_t i = 0; i < s->nnodes && k < need; i++)
		k += node_holds(&s->nodes[i], g, model);
	return k;
}

/* A job of more than one task (or of a GPU model): do the group's tasks
 * fit on the fleet's nodes, each node holding what it can of them (two
 * tasks of 8 GPUs need two nodes of 8)?  Each group is counted alone, so
 * the answer errs towards "may start".  A model no node has is left to the
 * model warning (fw_trace_unknown_models). */
static const char *unplaced(const struct fw_trace_job *j, const struct fleet_max *m, char *why, size_t n)
{
	struct models have;

	if (j->gpu_model[0]) {
		models_of(m->s, &have);
		if (!model_in(&have, m->s, j->gpu_model))
			return NULL;
	}
	for (int i = 0; i < j->ngroups; i++) {
		const struct fw_trace_group *g = &j->groups[i];
		int32_t need = tasks_needed(j, g);
		int64_t k;
		if ((need < 2 && !j->gpu_model[0]) || (k = fleet_holds(m->s, g, j->gpu_model, need)) >= need)
			continue;
		return snprintf(why, n, "%d task%s of %d GPU%s%s%s at once, and the fleet's nodes "
				"hold %lld such task%s", need, need == 1 ? "" : "s", g->gpus,
				g->gpus == 1 ? "" : "s", j->gpu_model[0] ? " of model " : "",
				j->gpu_model, (long long)k, k == 1 ? "" : "s"), why;
	}
	return NULL;
}

/* Why job j can never start on a fleet of maxima m (a task no node can
 * hold, a gang larger than the fleet, or tasks more than the nodes can
 * hold), or NULL.  Only what no placement can change is named, so the
 * answer errs towards "may start". */
static const char *unfit(const struct fw_trace_job *j, const struct fleet_max *m, char *why,
			 size_t n)
{
	int64_t milli = 0;

	for (int i = 0; i < j->ngroups; i++) {
		const struct fw_trace_group *g = &j->groups[i];
		if (g->gpus > m->gpus)
			return snprintf(why, n, "a task of %d GPUs, and the largest node has %d",
					g->gpus, m->gpus), why;
		if (g->cpu_milli > m->cpu)
			return snprintf(why, n, "a task of %lld milli-CPU, and the largest node "
					"has %lld", (long long)g->cpu_milli, (long long)m->cpu), why;
		if (g->mem_mib > m->mem)
			return snprintf(why, n, "a task of %lld MiB, and the largest node has %lld",
					(long long)g->mem_mib, (long long)m->mem), why;
		milli += (int64_t)tasks_needed(j, g) * g->gpus * g->gpu_milli;
	}
	if (milli > m->total_milli)
		return snprintf(why, n, "%lld GPUs at once, and the fleet has %lld",
				(long long)((milli + 999) / 1000),
				(long long)(m->total_milli / 1000)), why;
	return unplaced(j, m, why, n);
}

size_t fw_trace_unfit_jobs(const struct fw_trace *t, const struct fw_snapshot *fleet,
			   char *first, size_t n)
{
	struct fleet_max m;
	size_t jobs = 0;
	char why[200];

	first[0] = 0;
	fleet_max(fleet, &m);
	for (size_t i = 0; i < t->n; i++) {
		if (!unfit(&t->v[i], &m, why, sizeof why))
			continue;
		if (jobs++ == 0)
			snprintf(first, n, "'%s' (line %d) needs %s%s", t->v[i].id, (int)t->v[i].line, why,
				 m.closed || m.bad ? " in service (nodes schedulable: false, unhealthy or draining in the "
					    "fleet file never take work; bad GPUs are left out)" : "");
	}
	return jobs;
}

size_t fw_trace_unfit_mark(const struct fw_trace *t, const struct fw_snapshot *fleet, bool *never)
{
	struct fleet_max m;
	size_t jobs = 0;
	char why[200];

	fleet_max(fleet, &m);
	for (size_t i = 0; i < t->n; i++) {
		never[i] = unfit(&t->v[i], &m, why, sizeof why) != NULL;
		jobs += never[i];
	}
	return jobs;
}

void fw_trace_warn_unfit(const struct fw_trace *t, const struct fw_snapshot *fleet, bool config,
			 FILE *err)
{
	char first[400];
	size_t jobs = fw_trace_unfit_jobs(t, fleet, first, sizeof first);

	if (!jobs)
		return;
	fprintf(err, "fairway: warning: %zu job%s of %s can never start on this fleet (the first, "
		"%s); %s counted as never started. Give the fleet more or bigger nodes (%s) or leave "
		"such jobs out of the trace\n",
		jobs, jobs == 1 ? "" : "s", t->file, first, jobs == 1 ? "it is" : "they are",
		config ? "the config's nodes or nodeGroups" : "--nodes NxG, --fleet, --fleet-openb");
}

/* ---- jobs over their queue's limit --------------------------------------- */

/* Job j's least need of resource r (an fw_res kind): every task, or an
 * elastic job's min_member tasks; GPUs in milli-GPUs. */
static int64_t least_need(const struct fw_trace_job *j, int r)
{
	int64_t v = 0;

	for (int i = 0; i < j->ngroups; i++) {
		const struct fw_trace_group *g = &j->groups[i];
		int64_t per = r == FW_RES_GPU ? (int64_t)g->gpus * g->gpu_milli
			      : r == FW_RES_CPU ? g->cpu_milli : g->mem_mib;
		v += (int64_t)tasks_needed(j, g) * per;
	}
	return v;
}

static int32_t queue_named(const struct fw_snapshot *s, const char *name)
{
	for (int32_t q = 0; name[0] && q < s->nqueues; q++)
		if (!strcmp(s->queues[q].name, name))
			return q;
	return -1;
}

/* The queue on the way from q to the root with the smallest limit of
 * resource r, or -1 when none sets one (a negative limit is none). */
static int32_t binding_limit(const struct fw_snapshot *s, int32_t q, int r)
{
	int32_t at = -1;

	for (int32_t k = 0; q >= 0 && q < s->nqueues && k <= s->nqueues; q = s->queues[q].parent, k++) {
		int64_t l = s->queues[q].limit.v[r];
		if (l >= 0 && (at < 0 || l < s->queues[at].limit.v[r]))
			at = q;
	}
	return at;
}

/* Why job j can never start under its queue's limits in s, or NULL. */
static const char *over_limit(const struct fw_trace_job *j, const struct fw_snapshot *s, char *why,
			      size_t n)
{
	static const char *const unit[FW_RES_COUNT] = { "GPUs", "milli-CPU", "MiB" };
	int32_t q = queue_named(s, j->queue);

	for (int r = 0; q >= 0 && r < FW_RES_COUNT; r++) {
		int32_t at = binding_limit(s, q, r);
		int64_t need = least_need(j, r), lim = at < 0 ? 0 : s->queues[at].limit.v[r];
		if (at < 0 || need <= lim)
			continue;
		if (r == FW_RES_GPU)
			need = (need + 999) / 1000, lim /= 1000;
		return snprintf(why, n, "%lld %s at once, and queue %s may hold at most %lld (%s%s%s)",
				(long long)need, unit[r], j->queue, (long long)lim,
				at == q ? "its limit" : "the limit of ", at == q ? "" : s->queues[at].name,
				at == q ? "" : ", above it"), why;
	}
	return NULL;
}

/* ---- jobs over their queue's GPU model limits (gpuModelLimits) ---------- */

/* Job j's GPUs, every task (milli-GPUs): lib/modellimit.c counts a job's
 * whole shape against a model limit, an elastic job's every task too. */
static int64_t all_milli(const struct fw_trace_job *j)
{
	int64_t v = 0;

	for (int i = 0; i < j->ngroups; i++)
		v += (int64_t)j->groups[i].count * j->groups[i].gpus * j->groups[i].gpu_milli;
	return v;
}

/* Is queue a on the way from q to the root (q itself included)? */
static bool on_line(const struct fw_snapshot *s, int32_t a, int32_t q)
{
	for (int32_t k = 0; q >= 0 && q < s->nqueues && k <= s->nqueues; q = s->queues[q].parent, k++)
		if (q == a)
			return true;
	return false;
}

/* The smallest gpuModelLimits entry on model on the way from q to the
 * root (an index of s->model_limits), or -1 when none caps it. */
static int32_t binding_model_limit(const struct fw_snapshot *s, int32_t q, const char *model)
{
	int32_t at = -1;

	for (int32_t k = 0; k < s->nmodel_limits; k++) {
		const struct fw_model_limit *e = &s->model_limits[k];
		if (!strcmp(e->model, model) && on_line(s, e->queue, q) &&
		    (at < 0 || e->gpus < s->model_limits[at].gpus))
			at = k;
	}
	return at;
}

/* "at most C, its limit" or "..., the limit of P, above it", for limit k. */
static void model_cap_str(const struct fw_snapshot *s, int32_t q, int32_t k, char *out, size_t n)
{
	int32_t at = s->model_limits[k].queue;

	snprintf(out, n, "at most %.10g, %s%s%s", (double)s->model_limits[k].gpus / 1000.0,
		 at == q ? "its limit" : "the limit of ", at == q ? "" : s->queues[at].name,
		 at == q ? "" : ", above it");
}

/* A job naming model: over a limit on it, whatever the queue holds. */
static const char *over_named_model(const struct fw_trace_job *j, const struct fw_snapshot *s, int32_t q,
				    char *why, size_t n)
{
	int32_t k = binding_model_limit(s, q, j->gpu_model);
	int64_t need = all_milli(j);
	char cap[160];

	if (k < 0 || need <= s->model_limits[k].gpus)
		return NULL;
	model_cap_str(s, q, k, cap, sizeof cap);
	return snprintf(why, n, "%lld GPUs of model %s at once, and queue %s may hold %s (gpuModelLimits)",
			(long long)((need + 999) / 1000), j->gpu_model, j->queue, cap), why;
}

/* A job naming no model goes, when a limit closes some model to it, on
 * one open model (lib/modellimit.c): it can never start when every model
 * is closed to it or too small for it.  why lists each model's reason. */
static const char *over_open_models(const struct fw_trace_job *j, const struct fw_snapshot *s, int32_t q,
				    char *why, size_t n)
{
	struct models have;
	struct fw_trace_job on = *j;
	struct fleet_max m;
	char list[300] = "", item[200], cap[160], unused[200];
	int64_t need = all_milli(j);
	bool closed = false;

	models_of(s, &have);
	fleet_max(s, &m);
	for (int i = 0; i < have.n; i++) {
		int32_t k = binding_model_limit(s, q, have.name[i]);
		if (k >= 0 && need > s->model_limits[k].gpus) {
			closed = true;
			model_cap_str(s, q, k, cap, sizeof cap);
			snprintf(item, sizeof item, "%s: %s", have.name[i], cap);
		} else {
			snprintf(on.gpu_model, sizeof on.gpu_model, "%s", have.name[i]);
			if (!unfit(&on, &m, unused, sizeof unused))
				return NULL; /* an open model that may hold it */
			snprintf(item, sizeof item, "%s: its nodes cannot hold it", have.name[i]);
		}
		list_add_sep(list, sizeof list, item, "; ");
	}
	if (!closed) /* no limit restricts it: the fleet check's to judge */
		return NULL;
	return snprintf(why, n, "%lld GPUs of one model at once, and queue %s's gpuModelLimits leave it "
			"no model that can hold it (%s)", (long long)((need + 999) / 1000), j->queue, list), why;
}

/* Why job j can never start under its queue's GPU model limits in s (the
 * queue holding nothing), or NULL: the engine's rule (lib/modellimit.c). */
static const char *over_model_limit(const struct fw_trace_job *j, const struct fw_snapshot *s, char *why,
				    size_t n)
{
	int32_t q = queue_named(s, j->queue);
	struct models have;

	if (q < 0 || s->nmodel_limits == 0 || all_milli(j) == 0)
		return NULL;
	if (!j->gpu_model[0])
		return over_open_models(j, s, q, why, n);
	models_of(s, &have);
	if (!model_in(&have, s, j->gpu_model)) /* fw_trace_warn_models's */
		return NULL;
	return over_named_model(j, s, q, why, n);
}

/* Over a limit of its queue's: a resource's, else a GPU model's. */
static const char *over_any_limit(const struct fw_trace_job *j, const struct fw_snapshot *s, char *why,
				  size_t n, bool *model)
{
	*model = false;
	if (over_limit(j, s, why, n))
		return why;
	*model = over_model_limit(j, s, why, n) != NULL;
	return *model ? why : NULL;
}

bool fw_trace_over_limit(const struct fw_trace *t, size_t row, const struct fw_snapshot *cfg)
{
	char why[600];
	bool model;

	return over_any_limit(&t->v[row], cfg, why, sizeof why, &model) != NULL;
}

size_t fw_trace_over_limit_mark(const struct fw_trace *t, const struct fw_snapshot *cfg, bool *never)
{
	size_t jobs = 0;

	for (size_t i = 0; i < t->n; i++)
		if (fw_trace_over_limit(t, i, cfg)) {
			never[i] = true;
			jobs++;
		}
	return jobs;
}

/* Which limits a warning's fix names: a resource's, a model's or both. */
static const char *limit_fix(bool res, bool model)
{
	return !model ? "resources.gpu.limit, or the parent's" :
	       !res ? "gpuModelLimits, or the parent's" : "resources.gpu.limit or gpuModelLimits, or the parent's";
}

void fw_trace_warn_over_limit(const struct fw_trace *t, const struct fw_snapshot *cfg, FILE *err)
{
	char why[600], first[800] = "", queues[256] = "";
	struct models seen = { .n = 0 }; /* the queues named, as a list of names */
	size_t jobs = 0;
	bool model, any_res = false, any_model = false;

	for (size_t i = 0; i < t->n; i++) {
		if (!over_any_limit(&t->v[i], cfg, why, sizeof why, &model))
			continue;
		any_model |= model;
		any_res |= !model;
		if (jobs++ == 0)
			snprintf(first, sizeof first, "'%s' (line %d) needs %s", t->v[i].id,
				 (int)t->v[i].line, why);
		if (seen.n < MODELS_KEPT && !model_in(&seen, cfg, t->v[i].queue)) {
			seen.name[seen.n++] = t->v[i].queue;
			list_add(queues, sizeof queues, t->v[i].queue);
		}
	}
	if (!jobs)
		return;
	fprintf(err, "fairway: warning: %zu job%s of %s ask%s more than %s queue's limit allows (queue%s "
		"%s; the first, %s), so %s never start; %s counted as never started and left out of the "
		"waiting figures and the queues' demand. Raise the limit (%s) in the config or leave such "
		"jobs out of the trace\n",
		jobs, jobs == 1 ? "" : "s", t->file, jobs == 1 ? "s" : "", jobs == 1 ? "its" : "their",
		seen.n == 1 ? "" : "s", queues, first, jobs == 1 ? "it can" : "they can",
		jobs == 1 ? "it is" : "they are", limit_fix(any_res, any_model));
}

void fw_trace_warn_models(const struct fw_trace *t, const struct fw_snapshot *fleet, bool config,
			  FILE *err)
{
	char want[512], have[512];
	size_t jobs = fw_trace_unknown_models(t, fleet, want, sizeof want, have, sizeof have);

	if (!jobs)
		return;
	fprintf(err, "fairway: warning: %zu job%s of %s ask%s for a GPU model no node has (%s; "
		"the fleet has %s), so %s never start. Models match by name, case aside: give "
		"%s that model or drop it from the trace (fairway trace sacct2fairway "
		"--no-gpu-model)\n",
		jobs, jobs == 1 ? "" : "s", t->file, jobs == 1 ? "s" : "", want,
		have[0] ? have : "no GPUs", jobs == 1 ? "it can" : "they can",
		config ? "the config's nodes (gpuModel)" : "the nodes (--fleet, --fleet-openb)");
}
