/*
 * cmd_plan.c — `fairway plan`: load a snapshot, run one cycle, check the
 * plan's invariants, print it.
 *
 * Exit codes: 0 plan printed; 2 bad input or usage (the message names the
 * file, line and field); 3 the invariant checker rejected the plan (a bug:
 * please report it); 1 anything else (out of memory, I/O).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fairway/fairway.h"
#include "fwconfig.h"
#include "render.h"

extern const unsigned char fw_example_cluster[];
extern const size_t fw_example_cluster_len;

static const char plan_usage[] =
	"usage: fairway plan [--config FILE] [--policy NAME] [--json] [--now T]\n"
	"       fairway plan --server URL [--json] [--kind K,...] [--queue Q] [--job NAME] [--node N]\n"
	"                    [--limit N]   (the last plan of a running daemon)\n"
	"\n"
	"Run one scheduling cycle on a cluster snapshot and print the plan: the\n"
	"jobs it starts (with their nodes and GPUs), a reason for every job that\n"
	"waits, and each queue's deserved quota, fair share (its guaranteed part\n"
	"and its over-quota part, with the weight that split it) and allocation.\n"
	"\n"
	"  --config FILE   YAML snapshot (nodes, topology, queues, jobs); see\n"
	"                  docs/config.md.  Default: the built-in example\n"
	"                  cluster (examples/cluster.yaml).\n"
	"  --policy NAME   scheduling policy (`fairway policies` lists them);\n"
	"                  default: fairway\n"
	"  --json          print the plan as JSON instead of tables\n"
	"  --now T         override the snapshot's `now` (whole seconds, 0 to\n"
	"                  100000000000, as the config's `now:`, and checked\n"
	"                  the same way: no job submitted or started after it);\n"
	"                  not with --server: the daemon's plan is at its own clock\n"
	"  --server URL    print the last plan of a running `fairway serve`\n"
	"                  instead of running a cycle (docs/serve.md); with it:\n"
	"  --kind K,...    only these of start, evict, reserve, drain (decisions)\n"
	"                  and pending (waiting jobs), comma-separated\n"
	"  --queue Q       only the decisions and waiting jobs of queue Q's jobs\n"
	"  --job NAME      only job NAME's decisions, or its wait\n"
	"  --node N        only the decisions that name node N (no waiting job)\n"
	"  --limit N       at most N decisions and N waiting jobs (1 to 100000;\n"
	"                  stderr says when more match); the cycle and the fair\n"
	"                  share stay whole\n"
	"\n"
	"Times in the reasons: when the snapshot's now is a Unix time (1000000000\n"
	"or more: a date from 2001-09-09 on, as a snapshot of a live fleet has),\n"
	"as UTC dates, \"2026-12-06T16:42:05Z\", the way the daemon writes them;\n"
	"a smaller now counts virtual seconds (a simulation, the example), \"t=7300\".\n"
	"\n"
	"Examples:\n"
	"  fairway plan\n"
	"  fairway plan --config examples/cluster.yaml --json | jq '.pending'\n"
	"  fairway plan --config my.yaml --policy fifo\n"
	"  fairway plan --server http://127.0.0.1:8642 --kind evict,drain --node h100-003\n";

struct plan_args {
	const char *config;
	const char *policy;
	const char *now;
	bool json;
};

/* A flag that filters a daemon's plan (cmd_client.c), which a plan of
 * its own does not take. */
static bool server_only(const char *o)
{
	static const char *const flags[] = { "--kind", "--queue", "--job", "--node", "--limit", NULL };

	for (int k = 0; flags[k]; k++)
		if (!strcmp(o, flags[k]))
			return true;
	return false;
}

static int parse_plan_args(int argc, char **argv, struct plan_args *a)
{
	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		char *o = argv[i], *eq = fw_cli_split_eq(o);
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(plan_usage, stdout);
			return 1;
		} else if (!strcmp(o, "--json") && !eq) {
			a->json = true;
		} else if (!strcmp(o, "--json")) {
			return fw_cli_usage_error("plan", "--json takes no value");
		} else if (!strcmp(o, "--config") || !strcmp(o, "--policy") || !strcmp(o, "--now")) {
			const char *v = eq ? eq : i + 1 < argc ? argv[++i] : NULL;
			if (!v || !*v)
				return fw_cli_usage_error("plan", "%s needs a value", o);
			const char **dst = !strcmp(o, "--config") ? &a->config : !strcmp(o, "--policy") ? &a->policy : &a->now;
			*dst = v;
		} else if (o[0] != '-' || !o[1]) {
			return fw_cli_usage_error("plan", "unexpected argument '%s' (`fairway plan` takes only flags: "
							  "--config FILE for a snapshot of your own)", o);
		} else if (server_only(o)) {
			return fw_cli_usage_error("plan", "%s narrows a running daemon's plan: give --server URL too "
							  "(a plan of its own: fairway plan --json, then filter that)", o);
		} else {
			static const char *const known[] = { "--help", "--json", "--config", "--policy", "--now",
							     "--server", "--kind", "--queue", "--job", "--node",
							     "--limit", NULL };
			char hint[96];
			return fw_cli_usage_error("plan", "unknown option '%s'%s", o,
						  fw_cli_hint(o, known, hint, sizeof hint));
		}
	}
	return 0;
}

/* --now T: whole seconds 0..FW_CONFIG_MAX_SECONDS, as the YAML `now:`;
 * 0, or 2 with the reason on stderr. */
static int parse_now(const char *v, fw_time *t)
{
	size_t n = strspn(v, "0123456789");
	long long x = 0;

	if (n == 0 || v[n])
		return fw_cli_usage_error("plan", "--now: \"%s\" is not a whole number of seconds; write seconds "
					  "from 0 to %lld", v, FW_CONFIG_MAX_SECONDS);
	for (size_t i = 0; i < n && x <= FW_CONFIG_MAX_SECONDS; i++)
		x = x * 10 + (v[i] - '0');
	if (x > FW_CONFIG_MAX_SECONDS)
		return fw_cli_usage_error("plan", "--now: \"%s\" is too large; times are limited to %lld seconds", v,
					  FW_CONFIG_MAX_SECONDS);
	*t = (fw_time)x;
	return 0;
}

/* A trace given where the config goes (`fairway plan --config jobs.csv`)
 * fails somewhere as YAML; say what the file is for beside the YAML
 * reason.  "" when the file is not named as a trace (.csv, .jsonl). */
static const char *trace_hint(const char *path)
{
	static const char *const exts[] = { ".csv", ".jsonl", ".tsv" };
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
		size_t k = strlen(exts[i]);
		if (n > k && !strcasecmp(path + n - k, exts[i]))
			return " (this looks like a trace, not a config: `fairway plan --config` reads a cluster's "
			       "YAML, docs/config.md; replay a trace with `fairway sim run --trace FILE`)";
	}
	return "";
}

/* Load the snapshot: --config FILE or the built-in example, at --now T
 * when given (the loader checks submitTime and startTime against it, as
 * against the file's now:); 0, or 2 with the reason on stderr. */
static int load(const struct plan_args *a, struct fw_snapshot **s)
{
	static const char builtin[] = "<built-in examples/cluster.yaml>";
	const char *ex = (const char *)fw_example_cluster;
	struct fw_diag d;
	char msg[1024];
	fw_time now = 0;
	int rc;

	if (a->now && parse_now(a->now, &now) != 0)
		return 2;
	memset(&d, 0, sizeof d);
	if (a->config && a->now)
		rc = fw_config_load_file_now(a->config, now, "--now", s, &d);
	else if (a->config)
		rc = fw_config_load_file(a->config, s, &d);
	else if (a->now)
		rc = fw_config_load_buffer_now(builtin, ex, fw_example_cluster_len, now, "--now", s, &d);
	else
		rc = fw_config_load_buffer(builtin, ex, fw_example_cluster_len, s, &d);
	if (rc != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway plan: error: %s%s\n", msg, a->config ? trace_hint(a->config) : "");
		return 2;
	}
	return 0; /* a now that is a date set config.utc_times: its texts write UTC dates (fwconfig.h) */
}

/* gpuModelDeserved acts in reclaim only: under a policy without it,
 * say that the setting changes nothing, and which policies it acts in. */
static void note_inert_deserved(const struct fw_policy_ops *pol)
{
	const struct fw_policy_ops *const *l = fw_policy_list();
	char with[128] = "";

	for (int i = 0; l[i]; i++)
		if (l[i]->reclaim)
			snprintf(with + strlen(with), sizeof with - strlen(with), "%s%s", with[0] ? ", " : "", l[i]->name);
	fprintf(stderr, "fairway plan: note: policy %s does not reclaim, so the queues' gpuModelDeserved change nothing "
			"in this plan (policies that reclaim: %s)\n", pol->name, with);
}

/* A job that announces a longer run than its run-time limit (its own or
 * its queue's) will be ended at the limit (docs/policies.md, "Run-time
 * limits"): say so for the first few, as Slurm's PartitionTimeLimit
 * would, but plan them. */
static void note_over_limit(const struct fw_snapshot *s)
{
	char run[32], lim[32];
	int32_t n = 0;

	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		fw_time m = fw_job_limit(s, job);
		if (m <= 0 || job->expected_runtime <= m)
			continue;
		if (++n <= 3)
			fprintf(stderr, "fairway plan: note: job %s announces a run of %s, but %s run-time limit "
					"(maxRuntime) ends it after %s; lower its runtime or raise the limit\n",
				job->name, fw_span_format(job->expected_runtime, run, sizeof run),
				job->max_runtime_s == m ? "its own" : "its queue's",
				fw_span_format(m, lim, sizeof lim));
	}
	if (n > 3)
		fprintf(stderr, "fairway plan: note: %d more jobs announce runs past their run-time limit\n", (int)(n - 3));
}

static int output(const struct fw_snapshot *s, const struct fw_plan *p, const struct fw_policy_ops *pol, bool json)
{
	if (!json) {
		fw_render_table(stdout, s, p, pol);
		return 0;
	}
	json_t *o = fw_render_json(s, p, pol);
	int rc = o ? json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
	json_decref(o);
	fputc('\n', stdout);
	return rc ? 1 : 0;
}

int fw_cmd_plan(int argc, char **argv)
{
	struct plan_args a;
	struct fw_snapshot *s = NULL;
	struct fw_plan *p = NULL;
	struct fw_arena arena;
	struct fw_diag d;
	const struct fw_policy_ops *pol;
	char msg[1024];
	int rc = parse_plan_args(argc, argv, &a);

	if (rc)
		return rc == 1 ? 0 : rc;
	pol = a.policy ? fw_policy_find(a.policy) : fw_policy_default();
	if (!pol) {
		char hint[96];
		return fw_cli_usage_error("plan", "unknown policy '%s'%s (try `fairway policies`)", a.policy,
					  fw_cli_hint(a.policy, fw_policy_names(), hint, sizeof hint));
	}
	if ((rc = load(&a, &s)) != 0)
		return rc;
	if (s->nmodel_deserved > 0 && !pol->reclaim)
		note_inert_deserved(pol);
	note_over_limit(s);
	fw_arena_init(&arena, 0);
	rc = fw_cycle_run(s, pol, &arena, &p);
	if (rc != FW_OK) {
		fprintf(stderr, "fairway plan: error: the cycle failed: %s\n", fw_strerror(rc));
		rc = 1;
	} else if (fw_plan_check(s, p, &arena, &d) != FW_OK) {
		fw_diag_format(&d, msg, sizeof msg);
		fprintf(stderr, "fairway plan: BUG: the plan breaks an invariant: %s\n", msg);
		rc = 3;
	} else {
		rc = output(s, p, pol, a.json);
	}
	fw_arena_release(&arena);
	fw_snapshot_free(s);
	return rc;
}
