/*
 * fgd_cli.c — `fairway-fgd` (later `fairway sim fgd`): argument parsing,
 * the results table, the published-numbers comparison and the JSON file.
 *
 * Everything the experiment *means* is in fgd.c; this file only moves data
 * between the command line, the files and the terminal.  It is the one place
 * that reads the clock (to report the runtime) and the environment
 * (FAIRWAY_TRACES, to find the published summary).
 *
 * The published summary (traces/published/fgd_atc23_default_summary.csv)
 * has one row per (workload, sc_policy, metric) with columns
 * arrived_<X>pct_mean/std.  The workload is the pod file's base name
 * without ".csv"; sc_policy is "NN-<paper name>".  A summary whose header
 * lacks workload, sc_policy, metric or any arrived_<X>pct_mean is an error;
 * one without the columns of this --tune, or without a row for this workload and these scorers,
 * compares nothing, and --check fails when nothing was compared (a check
 * that checked nothing must not pass).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cliword.h"
#include "fgd.h"
#include "outfile.h"

#define MAX_SCORERS 16
#define MAX_SEEDS 10000
#define SUMMARY_REL "published/fgd_atc23_default_summary.csv"

struct cli {
	const char *prog, *pods, *nodes, *json, *published;
	uint64_t seed_lo, seed_hi;
	const struct fw_scorer_ops *sc[MAX_SCORERS];
	size_t nsc;
	double tune, tol;
	bool skip_bad, check, no_cache, help;
};

/* Published mean/std per scorer; NaN when unknown. */
struct published {
	char file[512];            /* "" when the default file is absent */
	double mean[MAX_SCORERS], std[MAX_SCORERS];
	double fgd_mean;
	bool tune_cols;            /* the header has this --tune's columns */
};

/* Per scorer: the runs and their summary. */
struct result {
	const struct fw_scorer_ops *ops;
	struct fw_fgd_run *runs;
	size_t nruns;
	double mean, std, pub_mean, pub_std;
	bool ok, compared;         /* compared: a published number was used */
};

static void help(const char *prog)
{
	size_t n;
	const struct fw_scorer_ops *const *v = fw_scorer_list(&n);
	printf(
"usage: %s --pods FILE --nodes FILE [options]\n"
"\n"
"Re-runs the openb experiment of the FGD paper (Weng et al., USENIX ATC '23:\n"
"GPU allocation at 130%% arrived workload) for each scorer and seed, and puts\n"
"the mean over the seeds next to the published mean.\n"
"\n"
"One run: sort the pods by name, shuffle them with the seed, append random\n"
"copies until the GPU requests reach TUNE x the cluster's GPUs, rank the nodes\n"
"at random, then place every pod once on the best-scoring node that fits\n"
"(ties: lowest rank).  A pod that fits nowhere is dropped.  The number is the\n"
"allocated share of GPU capacity (a GPU shared at 300 milli counts 0.3),\n"
"averaged over the arrivals at the last whole percent.\n"
"\n"
"Options:\n"
"  --pods FILE        pod list CSV (openb_pod_list_*.csv)\n"
"  --nodes FILE       node list CSV (openb_node_list_gpu_node.csv)\n"
"  --seeds A-B | A    seeds to run, inclusive (default 42-51, as published)\n"
"  --scorers LIST     comma-separated scorer names (default: all of them)\n"
"  --tune X           arrived GPU work as a multiple of capacity (default 1.3)\n"
"  --json OUT         also write every run, with its whole curve, to OUT\n"
"                     (checked before the runs; replaced only when whole)\n"
"  --published FILE   published summary CSV; default\n"
"                     $FAIRWAY_TRACES/" SUMMARY_REL ",\n"
"                     used when present (FAIRWAY_TRACES defaults to\n"
"                     ../shared/traces)\n"
"  --tolerance PP     allowed distance from a published mean (default 1.0)\n"
"  --check            exit 1 unless every scorer with a published mean is\n"
"                     within the tolerance and fairway >= published FGD;\n"
"                     also exit 1 when nothing could be compared\n"
"  --skip-bad         skip malformed CSV rows (and say how many) instead of\n"
"                     stopping at the first\n"
"  --no-cache         score every feasible node for every pod (slow; the\n"
"                     results must be identical)\n"
"  -h, --help         show this text\n"
"\n"
"Scorers:\n", prog);
	for (size_t i = 0; i < n; i++)
		printf("  %-11s %-14s %s\n", v[i]->name,
		       v[i]->paper_name ? v[i]->paper_name : "(ours)",
		       v[i]->summary);
	printf(
"\n"
"Example, from the repository root (about 5 s for all 7 scorers x 10 seeds):\n"
"  %s --pods ../shared/traces/alibaba-openb/openb_pod_list_default.csv \\\n"
"      --nodes ../shared/traces/alibaba-openb/openb_node_list_gpu_node.csv\n"
"\n"
"Exit status: 0 done; 1 unreadable or bad input, or a failed --check;\n"
"2 bad usage.  Method and results: docs/fgd.md.\n", prog);
}

/* A usage error, as every fairway command reports one (tools/fairway.c,
 * fw_cli_usage_error): "PROG: error: WHY", the hint line, exit status 2. */
__attribute__((format(printf, 2, 3))) static int usage_error(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nrun `%s --help` for usage\n", c->prog);
	return 2;
}

/* ---- argument parsing ------------------------------------------------------ */

static bool parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

static bool parse_seeds(struct cli *c, const char *s)
{
	const char *dash = strchr(s, '-'), *end = s + strlen(s);
	if (!dash) {
		if (!parse_u64(s, end, &c->seed_lo))
			return false;
		c->seed_hi = c->seed_lo;
		return true;
	}
	return parse_u64(s, dash, &c->seed_lo) &&
	       parse_u64(dash + 1, end, &c->seed_hi) &&
	       c->seed_lo <= c->seed_hi &&
	       c->seed_hi - c->seed_lo < MAX_SEEDS;
}

/* A plain decimal, all of s (fw_cli_decimal: no '+', exponent, hex,
 * inf or nan). */
static bool parse_num(const char *s, double *out)
{
	const char *end;

	return fw_cli_decimal(s, out, &end) && *end == '\0' && isfinite(*out);
}

/* A name --scorers does not know, and the names it does. */
static int unknown_scorer(const struct cli *c, const char *list, size_t n)
{
	size_t k;
	const struct fw_scorer_ops *const *v = fw_scorer_list(&k);
	char names[256] = "";

	for (size_t i = 0; i < k; i++)
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
			 v[i]->name);
	return usage_error(c, "--scorers: unknown scorer '%.*s'; give a comma-separated list of: %s",
			   (int)(n < 64 ? n : 64), list, names);
}

static int parse_scorers(struct cli *c, const char *list)
{
	char name[64];
	c->nsc = 0;
	while (*list) {
		size_t n = strcspn(list, ",");
		const struct fw_scorer_ops *ops = NULL;
		if (n > 0 && n < sizeof name) {
			memcpy(name, list, n);
			name[n] = '\0';
			ops = fw_scorer_find(name);
		}
		if (!ops)
			return unknown_scorer(c, list, n);
		for (size_t k = 0; k < c->nsc; k++)
			if (c->sc[k] == ops)
				return usage_error(c, "--scorers names '%s' "
						   "twice; name each scorer once",
						   ops->name);
		if (c->nsc == MAX_SCORERS)
			return usage_error(c, "too many scorers: %s", list);
		c->sc[c->nsc++] = ops;
		list += n + (list[n] == ',');
	}
	return c->nsc ? 0 : usage_error(c, "--scorers %s names no scorer",
					"''");
}

/* Apply one option that takes a value. */
static int set_value(struct cli *c, const char *opt, const char *val)
{
	if (!strcmp(opt, "--pods"))
		c->pods = val;
	else if (!strcmp(opt, "--nodes"))
		c->nodes = val;
	else if (!strcmp(opt, "--json"))
		c->json = val;
	else if (!strcmp(opt, "--published"))
		c->published = val;
	else if (!strcmp(opt, "--scorers"))
		return parse_scorers(c, val);
	else if (!strcmp(opt, "--seeds")) {
		if (!parse_seeds(c, val))
			return usage_error(c, "--seeds wants A-B or A (whole "
					   "numbers, A <= B, at most 10000 "
					   "seeds), not '%s'", val);
	} else if (!strcmp(opt, "--tune")) {
		if (!parse_num(val, &c->tune) || c->tune <= 0 ||
		    c->tune > FW_FGD_MAX_TUNE)
			return usage_error(c, "--tune wants a number in "
					   "(0, 3], not '%s'", val);
	} else if (!strcmp(opt, "--tolerance")) {
		if (!parse_num(val, &c->tol) || c->tol < 0)
			return usage_error(c, "--tolerance wants a number of "
					   "percentage points >= 0, not '%s'",
					   val);
	}
	return 0;
}

static bool set_flag(struct cli *c, const char *opt)
{
	if (!strcmp(opt, "--skip-bad"))
		c->skip_bad = true;
	else if (!strcmp(opt, "--check"))
		c->check = true;
	else if (!strcmp(opt, "--no-cache"))
		c->no_cache = true;
	else if (!strcmp(opt, "--help") || !strcmp(opt, "-h"))
		c->help = true;
	else
		return false;
	return true;
}

static const char *const value_opts[] = {
	"--pods", "--nodes", "--json", "--published", "--scorers",
	"--seeds", "--tune", "--tolerance",
};

/* Every flag, for the hint on a mistyped one. */
static const char *const all_opts[] = {
	"--pods", "--nodes", "--json", "--published", "--scorers", "--seeds", "--tune", "--tolerance",
	"--skip-bad", "--check", "--no-cache", "--help", NULL,
};

/* "--opt=value" or "--opt value"; returns 0 or the exit status 2. */
static int parse_one(struct cli *c, int argc, char **argv, int *i)
{
	char opt[32];
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (n >= sizeof opt)
		return usage_error(c, "unknown option '%s'", arg);
	memcpy(opt, arg, n);
	opt[n] = '\0';
	for (size_t k = 0; k < sizeof value_opts / sizeof *value_opts; k++) {
		if (strcmp(opt, value_opts[k]) != 0)
			continue;
		if (eq)
			return set_value(c, opt, eq + 1);
		if (*i + 1 >= argc)
			return usage_error(c, "%s needs a value", opt);
		return set_value(c, opt, argv[++*i]);
	}
	if (!eq && set_flag(c, opt))
		return 0;
	if (arg[0] != '-')
		return usage_error(c, "unexpected argument '%s' (every input "
				   "is given with an option)", arg);
	char hint[96];
	return usage_error(c, "unknown option '%s'%s", arg, fw_cli_hint(opt, all_opts, hint, sizeof hint));
}

static int parse_args(struct cli *c, int argc, char **argv)
{
	size_t n;
	const struct fw_scorer_ops *const *all = fw_scorer_list(&n);
	const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
	memset(c, 0, sizeof *c);
	c->prog = argc > 0 ? (slash ? slash + 1 : argv[0]) : "fairway-fgd";
	c->seed_lo = 42;
	c->seed_hi = 51;
	c->tune = 1.3;
	c->tol = 1.0;
	for (size_t i = 0; i < n && i < MAX_SCORERS; i++)
		c->sc[c->nsc++] = all[i];
	for (int i = 1; i < argc; i++) {
		int rc = parse_one(c, argc, argv, &i);
		if (rc)
			return rc;
	}
	if (c->help)
		return 0;
	if (!c->pods || !c->nodes)
		return usage_error(c, "%s", "both --pods FILE and --nodes FILE "
				   "are required");
	return 0;
}

/* ---- the published summary ------------------------------------------------- */

static const char *traces_dir(void)
{
	const char *t = getenv("FAIRWAY_TRACES");
	return t && *t ? t : "../shared/traces";
}

/* "dir/openb_pod_list_default.csv" -> "openb_pod_list_default" */
static void workload_name(const char *pods, char *out, size_t n)
{
	const char *b = strrchr(pods, '/');
	size_t k;
	snprintf(out, n, "%s", b ? b + 1 : pods);
	k = strlen(out);
	if (k > 4 && strcmp(out + k - 4, ".csv") == 0)
		out[k - 4] = '\0';
}

/* Column indices of one header, or -1. */
struct sumcols {
	int workload, policy, metric, mean, std;
	bool any_mean; /* some arrived_<P>pct_mean column, for any P */
};

static int find_col(const struct fw_csv_rec *r, const char *name)
{
	for (size_t i = 0; i < r->nf; i++)
		if (strcmp(r->f[i], name) == 0)
			return (int)i;
	return -1;
}

static void summary_header(const struct fw_csv_rec *r, double tune,
			   struct sumcols *k)
{
	char mean[64], std[64];
	long x = lrint(tune * 100);
	snprintf(mean, sizeof mean, "arrived_%ldpct_mean", x);
	snprintf(std, sizeof std, "arrived_%ldpct_std", x);
	k->workload = find_col(r, "workload");
	k->policy = find_col(r, "sc_policy");
	k->metric = find_col(r, "metric");
	k->mean = find_col(r, mean);
	k->std = find_col(r, std);
	for (size_t i = 0; i < r->nf; i++) {
		size_t n = strlen(r->f[i]);
		k->any_mean |= !strncmp(r->f[i], "arrived_", 8) && n > 16 &&
			       !strcmp(r->f[i] + n - 8, "pct_mean");
	}
}

/* One data row: if it is this workload's allocation row, note it. */
static void summary_row(const struct cli *c, const struct fw_csv_rec *r,
			const struct sumcols *k, const char *workload,
			struct published *pub)
{
	const char *pol;
	int need = k->workload > k->policy ? k->workload : k->policy;
	need = need > k->metric ? need : k->metric;
	need = need > k->mean ? need : k->mean;
	need = need > k->std ? need : k->std;
	if ((size_t)need >= r->nf || strcmp(r->f[k->workload], workload) ||
	    strcmp(r->f[k->metric], "gpu_alloc_pct"))
		return;
	pol = strchr(r->f[k->policy], '-');
	pol = pol ? pol + 1 : r->f[k->policy];
	if (strcmp(pol, "FGD") == 0)
		parse_num(r->f[k->mean], &pub->fgd_mean);
	for (size_t i = 0; i < c->nsc; i++) {
		if (!c->sc[i]->paper_name || strcmp(c->sc[i]->paper_name, pol))
			continue;
		if (!parse_num(r->f[k->mean], &pub->mean[i]) ||
		    !parse_num(r->f[k->std], &pub->std[i]))
			pub->mean[i] = pub->std[i] = NAN;
	}
}

/* A header without workload, sc_policy, metric and some arrived_<P>pct_mean
 * is not a summary: 1. */
static int summary_bad_header(const struct cli *c, const struct published *pub,
			      const struct sumcols *k)
{
	if (k->workload >= 0 && k->policy >= 0 && k->metric >= 0 && k->any_mean)
		return 0;
	fprintf(stderr, "%s: error: %s:1: header: this is not a published summary; "
		"expected the columns workload, sc_policy, metric, "
		"arrived_<P>pct_mean and arrived_<P>pct_std (P = 100 x --tune, "
		"here %ld), as in $FAIRWAY_TRACES/" SUMMARY_REL "\n", c->prog,
		pub->file, lrint(c->tune * 100));
	return 1;
}

/* 0, or 1 when the header is not a summary's (said on stderr). */
static int summary_parse(const struct cli *c, char *text,
			 struct published *pub)
{
	char workload[256];
	struct sumcols k = { -1, -1, -1, -1, -1, false };
	bool header = true;
	workload_name(c->pods, workload, sizeof workload);
	for (char *line = text, *next; line && *line; line = next) {
		struct fw_csv_rec r;
		const char *why;
		int col;
		size_t n;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if (fw_csv_split(line, &r, &why, &col) != 0)
			continue;
		if (header) {
			summary_header(&r, c->tune, &k);
			if (summary_bad_header(c, pub, &k))
				return 1;
			pub->tune_cols = k.mean >= 0 && k.std >= 0;
		} else if (pub->tune_cols) {
			summary_row(c, &r, &k, workload, pub);
		}
		header = false;
	}
	return header ? summary_bad_header(c, pub, &k) : 0;
}

/* 0, or 1 when an explicitly named file cannot be read, or a summary's
 * header is wrong. */
static int load_published(const struct cli *c, struct published *pub)
{
	struct fw_diag d;
	char *text;
	size_t len;
	int rc;
	pub->fgd_mean = NAN;
	pub->tune_cols = false;
	for (size_t i = 0; i < MAX_SCORERS; i++)
		pub->mean[i] = pub->std[i] = NAN;
	if (c->published)
		snprintf(pub->file, sizeof pub->file, "%s", c->published);
	else
		snprintf(pub->file, sizeof pub->file, "%s/%s", traces_dir(),
			 SUMMARY_REL);
	if (fw_openb_slurp(pub->file, &text, &len, &d) != FW_OK) {
		if (!c->published) {
			pub->file[0] = '\0';
			return 0;
		}
		fprintf(stderr, "%s: error: %s: %s\n", c->prog, d.file, d.msg);
		return 1;
	}
	rc = summary_parse(c, text, pub);
	free(text);
	return rc;
}

/* ---- inputs ---------------------------------------------------------------- */

/* Bad rows --skip-bad would skip in a file that failed without it; 0 when
 * it would fail anyway (a header error, an empty file, a NUL byte). */
static size_t skippable(const char *path, bool pods)
{
	struct fw_openb_nodes nl = { 0 };
	struct fw_openb_pods pl = { 0 };
	struct fw_diag d;
	size_t n = 0;

	if (pods && fw_openb_read_pods(path, FW_OPENB_SKIP_BAD, &pl, &d) == FW_OK)
		n = pl.skipped;
	else if (!pods && fw_openb_read_nodes(path, FW_OPENB_SKIP_BAD, &nl, &d) == FW_OK)
		n = nl.skipped;
	fw_openb_pods_free(&pl);
	fw_openb_nodes_free(&nl);
	return n;
}

/* A header the other list reads (--pods and --nodes swapped): the hint,
 * as sim run's "looks like" for a wrong --format; "" when none. */
static const char *swapped(const struct fw_diag *d, int rc, const char *path, bool pods)
{
	struct fw_openb_nodes nl = { 0 };
	struct fw_openb_pods pl = { 0 };
	struct fw_diag o;
	bool other;

	if (rc != FW_EINVAL || !path || d->line > 1)
		return "";
	other = pods ? fw_openb_read_nodes(path, FW_OPENB_SKIP_BAD, &nl, &o) == FW_OK
		     : fw_openb_read_pods(path, FW_OPENB_SKIP_BAD, &pl, &o) == FW_OK;
	fw_openb_pods_free(&pl);
	fw_openb_nodes_free(&nl);
	if (!other)
		return "";
	return pods ? "; the file looks like a node list: give it to --nodes (--pods and --nodes swapped?)"
		    : "; the file looks like a pod list: give it to --pods (--pods and --nodes swapped?)";
}

/* A file that cannot be opened: the flag it came from and the file it
 * wants; a --nodes of sim run's NxG shape says that this --nodes is a
 * file ("" when the read failed otherwise). */
static const char *open_hint(int rc, const char *path, bool pods, char *buf, size_t n)
{
	unsigned a, b;
	char x, end;

	buf[0] = '\0';
	if (rc != FW_EIO || !path)
		return buf;
	snprintf(buf, n, "; check the path given to %s, the openb %s list CSV (e.g. %s/alibaba-openb/%s)%s",
		 pods ? "--pods" : "--nodes", pods ? "pod" : "node", traces_dir(),
		 pods ? "openb_pod_list_default.csv" : "openb_node_list_gpu_node.csv",
		 !pods && sscanf(path, "%u%c%u%c", &a, &x, &b, &end) == 3 && (x == 'x' || x == 'X')
			 ? "; --nodes here is a file, not NxG as in sim run" : "");
	return buf;
}

/* The error of a failed read; the --skip-bad hint only where it helps. */
static int input_error(const struct cli *c, const struct fw_diag *d, int rc,
		       const char *path, bool pods)
{
	char msg[1024], hint[600], *add;
	const char *sw = swapped(d, rc, path, pods);
	size_t n;

	fw_openb_diag_str(d, msg, sizeof msg);
	if (*sw && (add = strstr(msg, "; add it: ")))
		*add = '\0'; /* the fix is the other flag, not the column */
	fprintf(stderr, "%s: error: %s%s%s\n", c->prog, msg, sw,
		open_hint(rc, path, pods, hint, sizeof hint));
	if ((rc == FW_EINVAL || rc == FW_ERANGE) && path && !c->skip_bad && (n = skippable(path, pods)))
		fprintf(stderr, "%s: (--skip-bad would skip %zu bad row(s) of "
			"%s and count them)\n", c->prog, n, path);
	return 1;
}

static int load_inputs(const struct cli *c, struct fw_openb_nodes *nl,
		       struct fw_openb_pods *pl, struct fw_fgd_world *w)
{
	unsigned fl = c->skip_bad ? FW_OPENB_SKIP_BAD : 0;
	struct fw_diag d;
	char msg[1024];
	int rc;

	if ((rc = fw_openb_read_nodes(c->nodes, fl, nl, &d)) != FW_OK)
		return input_error(c, &d, rc, c->nodes, false);
	if ((rc = fw_openb_read_pods(c->pods, fl, pl, &d)) != FW_OK)
		return input_error(c, &d, rc, c->pods, true);
	if ((rc = fw_fgd_world_build(nl, pl, w, &d)) != FW_OK)
		return input_error(c, &d, rc, NULL, false);
	if (nl->skipped || pl->skipped) {
		const struct fw_diag *f = nl->skipped ? &nl->first_bad
						      : &pl->first_bad;
		fw_openb_diag_str(f, msg, sizeof msg);
		fprintf(stderr, "%s: skipped %zu bad node row(s) and %zu bad "
			"pod row(s); the first: %s\n", c->prog, nl->skipped,
			pl->skipped, msg);
	}
	return 0;
}

/* ---- running and judging ----------------------------------------------------- */

static void summarise(struct result *r)
{
	double sum = 0, sq = 0;
	for (size_t i = 0; i < r->nruns; i++)
		sum += r->runs[i].headline;
	r->mean = sum / (double)r->nruns;
	for (size_t i = 0; i < r->nruns; i++)
		sq += (r->runs[i].headline - r->mean) *
		      (r->runs[i].headline - r->mean);
	r->std = sqrt(sq / (double)r->nruns); /* ddof = 0, as published */
}

static void judge(const struct cli *c, const struct published *pub,
		  size_t i, struct result *r)
{
	r->pub_mean = pub->mean[i];
	r->pub_std = pub->std[i];
	r->compared = true;
	if (!isnan(r->pub_mean))
		r->ok = fabs(r->mean - r->pub_mean) <= c->tol + 1e-9;
	else if (!strcmp(r->ops->name, "fairway") && !isnan(pub->fgd_mean))
		r->ok = r->mean >= pub->fgd_mean;
	else {
		r->ok = true; /* nothing to compare with */
		r->compared = false;
	}
}

static int run_scorer(const struct cli *c, const struct fw_fgd_world *w,
		      struct result *r)
{
	size_t n = (size_t)(c->seed_hi - c->seed_lo + 1);
	unsigned fl = c->no_cache ? FW_FGD_NO_CACHE : 0;
	if (!(r->runs = calloc(n, sizeof *r->runs)))
		return FW_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		int rc = fw_fgd_run(w, r->ops, c->seed_lo + k, c->tune, fl,
				    &r->runs[k]);
		if (rc)
			return rc;
		r->nruns++;
	}
	summarise(r);
	return FW_OK;
}

/* ---- the table --------------------------------------------------------------- */

/* Print s left-aligned in width display columns (UTF-8 aware: "±"). */
static void cell(const char *s, int width)
{
	int cols = 0;
	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xC0) != 0x80;
	fputs(s, stdout);
	while (cols++ < width)
		putchar(' ');
}

static void print_intro(const struct cli *c, const struct fw_fgd_world *w,
			const struct published *pub)
{
	char workload[256];
	workload_name(c->pods, workload, sizeof workload);
	printf("FGD openb experiment: %s, %zu pod%s; %zu node%s, %lld GPUs\n",
	       workload, w->npods, w->npods == 1 ? "" : "s", w->nnodes, w->nnodes == 1 ? "" : "s",
	       (long long)w->total_gpus);
	printf("tune %.0f%%, seeds %llu-%llu; typical pods: %zu of %zu "
	       "kinds cover %.2f%%\n", c->tune * 100,
	       (unsigned long long)c->seed_lo, (unsigned long long)c->seed_hi,
	       w->typical.n, w->typical_keys_total, w->typical_cover * 100);
	printf("published: %s\n\n", pub->file[0] ? pub->file
						  : "(not found; no comparison)");
	cell("scorer", 12);
	cell("paper", 15);
	cell("GPU alloc %", 20);
	cell("published %", 20);
	cell("diff (pp)", 12);
	printf("verdict\n");
	fflush(stdout); /* out before a failed run's error on stderr, through a pipe too */
}

static void print_row(const struct cli *c, const struct published *pub,
		      const struct result *r)
{
	char mine[32], theirs[32] = "-", diff[32] = "-", verdict[48] = "-";
	if (isnan(r->mean)) /* a run had no arrivals near the column */
		snprintf(mine, sizeof mine, "n/a");
	else
		snprintf(mine, sizeof mine, "%.3f ± %.3f", r->mean, r->std);
	if (!isnan(r->pub_mean)) {
		snprintf(theirs, sizeof theirs, "%.3f ± %.3f", r->pub_mean,
			 r->pub_std);
		snprintf(diff, sizeof diff, "%+.3f", r->mean - r->pub_mean);
		snprintf(verdict, sizeof verdict, "%s (within ±%.1f)",
			 r->ok ? "ok" : "FAIL", c->tol);
	} else if (!strcmp(r->ops->name, "fairway") &&
		   !isnan(pub->fgd_mean)) {
		snprintf(theirs, sizeof theirs, "FGD %.3f", pub->fgd_mean);
		snprintf(diff, sizeof diff, "%+.3f", r->mean - pub->fgd_mean);
		snprintf(verdict, sizeof verdict, "%s (>= published FGD)",
			 r->ok ? "ok" : "FAIL");
	}
	cell(r->ops->name, 12);
	cell(r->ops->paper_name ? r->ops->paper_name : "(ours)", 15);
	cell(mine, 20);
	cell(theirs, 20);
	cell(diff, 12);
	printf("%s\n", verdict);
	fflush(stdout);
}

/* ---- JSON -------------------------------------------------------------------- */

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *json_run(const struct fw_fgd_run *r)
{
	json_t *o = json_object(), *curve = json_array();
	for (int x = 0; x < r->ncol; x++)
		json_array_append_new(curve, jnum(r->col[x]));
	json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
	json_object_set_new(o, "pods", json_integer((json_int_t)r->pods));
	json_object_set_new(o, "placed", json_integer((json_int_t)r->placed));
	json_object_set_new(o, "failed", json_integer((json_int_t)r->failed));
	json_object_set_new(o, "allocPct", jnum(r->headline));
	json_object_set_new(o, "finalAllocPct", jnum(r->final_alloc));
	json_object_set_new(o, "curveAllocPctByArrivedPct", curve);
	return o;
}

static json_t *json_result(const struct result *r)
{
	json_t *o = json_object(), *runs = json_array();
	const char *paper = r->ops->paper_name;
	for (size_t i = 0; i < r->nruns; i++)
		json_array_append_new(runs, json_run(&r->runs[i]));
	json_object_set_new(o, "name", json_string(r->ops->name));
	json_object_set_new(o, "paperName", paper ? json_string(paper)
						   : json_null());
	json_object_set_new(o, "mean", jnum(r->mean));
	json_object_set_new(o, "std", jnum(r->std));
	json_object_set_new(o, "publishedMean", jnum(r->pub_mean));
	json_object_set_new(o, "publishedStd", jnum(r->pub_std));
	json_object_set_new(o, "diffPp", jnum(r->mean - r->pub_mean));
	json_object_set_new(o, "ok", json_boolean(r->ok));
	json_object_set_new(o, "runs", runs);
	return o;
}

/* "--json x/r.json: cannot write: No such file or directory" (errno),
 * as `fairway sim run` says it; drops what was written.  1. */
static int out_error(const struct cli *c, struct fw_outfile *out)
{
	int err = errno ? errno : EIO;

	fprintf(stderr, "%s: error: %s %s: cannot write: %s\n", c->prog, out->flag, out->path, strerror(err));
	fw_outfile_abort(out);
	return 1;
}

/* --json naming an input would replace it with the results, and --json -
 * would be a file named '-': refuse before any work (exit 2); outfile.h
 * decides what one file is. */
static int check_paths(const struct cli *c)
{
	const struct fw_path_use v[] = { { "--pods", c->pods, false }, { "--nodes", c->nodes, false },
					 { "--published", c->published, false }, { "--json", c->json, true } };
	int i, j = fw_outfile_clash(v, (int)(sizeof v / sizeof v[0]), &i);

	if (fw_outfile_dash(v, (int)(sizeof v / sizeof v[0])) >= 0)
		return usage_error(c, "--json -: the summary goes to stdout, so '-' would be a file named '-' "
				   "here; give --json a path (e.g. --json fgd.json), or /dev/stdout to write it "
				   "after the summary");
	if (j < 0)
		return 0;
	return usage_error(c, "%s %s is the %s input, and writing it would replace it; write the output "
			   "to another file", v[j].flag, v[j].path, v[i].flag);
}

/* --json OUT, opened before the experiment, as `fairway sim run` opens
 * its outputs: a path that cannot be written fails at once.  0 or 1. */
static int open_json(const struct cli *c, struct fw_outfile *out)
{
	memset(out, 0, sizeof *out);
	if (!c->json || fw_outfile_open(out, "--json", c->json) == 0)
		return 0;
	return out_error(c, out); /* open set the flag and path */
}

/* The JSON into out, opened before the runs; published when whole
 * (outfile.h), else dropped.  0 or 1. */
static int write_json(const struct cli *c, struct fw_outfile *out, const struct fw_fgd_world *w,
		      const struct published *pub, const struct result *res,
		      size_t nres, double seconds)
{
	json_t *o = json_object(), *sc = json_array();
	int rc;
	for (size_t i = 0; i < nres; i++)
		json_array_append_new(sc, json_result(&res[i]));
	json_object_set_new(o, "experiment", json_string("fgd-openb"));
	json_object_set_new(o, "podsFile", json_string(c->pods));
	json_object_set_new(o, "nodesFile", json_string(c->nodes));
	json_object_set_new(o, "publishedFile", pub->file[0]
				    ? json_string(pub->file) : json_null());
	json_object_set_new(o, "pods", json_integer((json_int_t)w->npods));
	json_object_set_new(o, "nodes", json_integer((json_int_t)w->nnodes));
	json_object_set_new(o, "gpus", json_integer(w->total_gpus));
	json_object_set_new(o, "tune", json_real(c->tune));
	json_object_set_new(o, "seedFirst", json_integer((json_int_t)c->seed_lo));
	json_object_set_new(o, "seedLast", json_integer((json_int_t)c->seed_hi));
	json_object_set_new(o, "typicalPods", json_integer((json_int_t)w->typical.n));
	json_object_set_new(o, "publishedFgdMean", jnum(pub->fgd_mean));
	json_object_set_new(o, "seconds", json_real(seconds));
	json_object_set_new(o, "scorers", sc);
	rc = json_dumpf(o, out->f, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (!rc && fputc('\n', out->f) == EOF)
		rc = -1;
	if (!rc && fw_outfile_close(out) == 0 && fw_outfile_commit(out) == 0)
		return 0;
	return out_error(c, out);
}

/* ---- the command ------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run every scorer, print its row as it finishes; 0 or 1. */
static int run_all(const struct cli *c, const struct fw_fgd_world *w,
		   const struct published *pub, struct result *res)
{
	for (size_t i = 0; i < c->nsc; i++) {
		res[i].ops = c->sc[i];
		int rc = run_scorer(c, w, &res[i]);
		if (rc != FW_OK) {
			fprintf(stderr, "%s: error: run of %s failed: %s\n", c->prog,
				c->sc[i]->name,
				rc == FW_EINVAL ? "the pods request no GPU; give --pods a pod list "
						  "with num_gpu above 0 (the experiment allocates GPUs)"
				: rc == FW_ERANGE ? "tuning would make more "
						    "than 16 M pods"
						  : "out of memory");
			return 1;
		}
		judge(c, pub, i, &res[i]);
		print_row(c, pub, &res[i]);
	}
	return 0;
}

/* Why no published number matched (for the last line and --check). */
static void nothing_why(const struct cli *c, const struct published *pub,
			char *buf, size_t n)
{
	char workload[256];

	workload_name(c->pods, workload, sizeof workload);
	if (!pub->file[0])
		snprintf(buf, n, "no published summary at %s/" SUMMARY_REL
			 " (set FAIRWAY_TRACES or give --published FILE)",
			 traces_dir());
	else if (!pub->tune_cols)
		snprintf(buf, n, "%s has no column arrived_%ldpct_mean/std "
			 "for --tune %g", pub->file, lrint(c->tune * 100), c->tune);
	else
		snprintf(buf, n, "%s has no gpu_alloc_pct row for workload %s "
			 "and these scorers", pub->file, workload);
}

static int finish(const struct cli *c, const struct published *pub,
		  const struct result *res, double seconds)
{
	bool all_ok = true;
	size_t compared = 0;
	char why[900];
	for (size_t i = 0; i < c->nsc; i++) {
		all_ok &= res[i].ok;
		compared += res[i].compared;
	}
	if (!compared)
		nothing_why(c, pub, why, sizeof why);
	printf("\n%zu scorers x %llu seeds in %.1f s; %s%s\n", c->nsc,
	       (unsigned long long)(c->seed_hi - c->seed_lo + 1), seconds,
	       !compared ? "nothing compared: " : all_ok ? "every comparison holds"
		      : "SOME COMPARISONS FAIL (see verdict)", !compared ? why : "");
	if (c->check && !compared)
		fprintf(stderr, "%s: error: --check fails: nothing was compared: %s\n",
			c->prog, why);
	return c->check && (!all_ok || !compared) ? 1 : 0;
}

int fw_fgd_cli(int argc, char **argv)
{
	struct cli c;
	struct fw_openb_nodes nl = { 0 };
	struct fw_openb_pods pl = { 0 };
	struct fw_fgd_world w = { 0 };
	struct fw_outfile out;
	struct published pub;
	struct result res[MAX_SCORERS];
	double t0 = now_s();
	int rc = parse_args(&c, argc, argv);
	if (rc || c.help) {
		if (c.help)
			help(c.prog);
		return rc;
	}
	if ((rc = check_paths(&c)) || (rc = open_json(&c, &out)))
		return rc;
	memset(res, 0, sizeof res);
	rc = load_inputs(&c, &nl, &pl, &w);
	if (!rc && !(rc = load_published(&c, &pub))) {
		print_intro(&c, &w, &pub);
		rc = run_all(&c, &w, &pub, res);
	}
	if (!rc && c.json)
		rc = write_json(&c, &out, &w, &pub, res, c.nsc, now_s() - t0);
	fw_outfile_abort(&out); /* a failed run leaves the path as it was */
	if (!rc)
		rc = finish(&c, &pub, res, now_s() - t0);
	for (size_t i = 0; i < MAX_SCORERS; i++)
		free(res[i].runs);
	fw_fgd_world_free(&w);
	fw_openb_pods_free(&pl);
	fw_openb_nodes_free(&nl);
	return rc;
}
