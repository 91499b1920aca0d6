/*
 * fairway.c — the `fairway` command: a thin dispatcher over subcommands.
 * Each subcommand lives in tools/cmd_<name>.c and parses its own flags.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_serve.h"
#include "fairway/policy.h"
#include "des.h"
#include "fgd.h"
#include "trace.h"

static const char usage[] =
	"fairway — the scheduling brain for GPU fleets\n"
	"\n"
	"usage: fairway <command> [options]\n"
	"\n"
	"commands:\n"
	"  plan        run one scheduling cycle on a snapshot and print the plan\n"
	"              (with --server URL: the last plan of a running daemon,\n"
	"              narrowed by --kind, --queue, --job, --node)\n"
	"  serve       run the scheduling service: JSON API, store, /metrics\n"
	"  queues      list / set / delete a daemon's queues\n"
	"  jobs        list / submit / cancel jobs; `jobs why ID` explains a wait\n"
	"  nodes       list nodes; report node health\n"
	"  reservations  maintenance windows and queue/job reservations (and the backend's own, read-only)\n"
	"  fairshare   each queue's deserved, fair share, allocation, usage;\n"
	"              `fairshare explain Q` shows where a queue's share comes from\n"
	"  decisions   what the daemon decided: starts, evictions, reservations,\n"
	"              drains, from its decision log (--since 1h --kind evict)\n"
	"  stats       the daemon's counters, as sdiag: cycles, decisions, time to\n"
	"              start by job size and per queue, GPU-hours per queue\n"
	"  policies    list the scheduling policies\n"
	"  sim run     replay a GPU-cluster trace through several policies\n"
	"  sim fgd     reproduce the FGD (ATC '23) fragmentation experiment\n"
	"  trace sacct2fairway [options] SACCT_FILE OUT.csv|-\n"
	"              convert `sacct --parsable2` output to fairway's trace format\n"
	"  help [CMD]  this help, or a command's: `fairway help sim run` is\n"
	"              `fairway sim run --help` (--help may go anywhere on the line:\n"
	"              `fairway jobs --help submit` is submit's help)\n"
	"\n"
	"The commands that talk to `fairway serve` (queues, jobs, nodes, reservations,\n"
	"fairshare, decisions, stats, plan --server) share --server URL, --token-file\n"
	"FILE and --json, before the command or after it:\n"
	"  fairway --server http://head:8642 jobs list\n"
	"  is  fairway jobs list --server http://head:8642\n"
	"\n"
	"Start here:  fairway plan          (runs on the built-in example cluster)\n"
	"Docs:        README.md, docs/ARCHITECTURE.md, docs/config.md\n";

/* A policy setting in seconds as the YAML writes it: "off", "24h",
 * "90m", "45s" (the largest unit it is a whole number of). */
static const char *policy_dur(char *buf, size_t n, int64_t s)
{
	if (s <= 0)
		snprintf(buf, n, "off");
	else if (s % 3600 == 0)
		snprintf(buf, n, "%lldh", (long long)(s / 3600));
	else if (s % 60 == 0)
		snprintf(buf, n, "%lldm", (long long)(s / 60));
	else
		snprintf(buf, n, "%llds", (long long)s);
	return buf;
}

/* How a policy orders the jobs inside a queue (docs/policies.md). */
static const char *policy_job_order(const struct fw_policy_ops *p)
{
	if (p->job_score)
		return "priority score";
	if (p->job_before)
		return "policy order";
	return p->xfactor_cap_s > 0 ? "expansion factor" : "submit time";
}

/* A policy under camelCase keys; a span in seconds carries its unit
 * (starveAfterS, xfactorCapS: 0 off), as `fairway sim run --json`'s keys
 * of those settings do. */
static json_t *policy_json(const struct fw_policy_ops *p)
{
	return json_pack("{s:s,s:s,s:b,s:s,s:b,s:s,s:i,s:I,s:I,s:b,s:s?,s:i,s:i,s:b}", "name", p->name, "summary",
			 p->summary, "default", p == fw_policy_default(), "queueOrder",
			 p->queue_order == FW_QORDER_GLOBAL ? "global" : "fair_share", "strictOrder", p->strict_order,
			 "jobOrder", policy_job_order(p), "reserveDepth", p->reserve_depth, "starveAfterS",
			 (json_int_t)p->starve_after_s, "xfactorCapS", (json_int_t)p->xfactor_cap_s, "reclaim",
			 p->reclaim, "reclaimRule",
			 !p->reclaim ? NULL : p->reclaim_rule == FW_RECLAIM_NARROW ? "narrow" : "keep_share",
			 "maxEvictions", p->reclaim ? p->max_evictions : 0, "maxMoves", p->max_moves, "spread",
			 p->spread_default);
}

static void policy_row(const struct fw_policy_ops *p)
{
	char starve[24], xf[24], reclaim[32];

	if (p->reclaim)
		snprintf(reclaim, sizeof reclaim, "%s, %d", p->reclaim_rule == FW_RECLAIM_NARROW ? "narrow" : "keep-share",
			 p->max_evictions);
	else
		snprintf(reclaim, sizeof reclaim, "no");
	printf("%-8s %-10s %-7d %-7s %-7s %-14s %s%s\n", p->name,
	       p->strict_order ? "strict" : p->queue_order == FW_QORDER_GLOBAL ? "global" : "fair-share",
	       p->reserve_depth, policy_dur(starve, sizeof starve, p->starve_after_s),
	       policy_dur(xf, sizeof xf, p->job_score || p->job_before ? 0 : p->xfactor_cap_s), reclaim, p->summary,
	       p == fw_policy_default() ? " (default)" : "");
}

static const char policies_usage[] =
	"usage: fairway policies [--json]\n"
	"\n"
	"List the registered scheduling policies and their settings\n"
	"(docs/policies.md):\n"
	"  QUEUES   which queue goes next: fair-share (furthest below its share),\n"
	"           global (one line over all queues), strict (global, and a job\n"
	"           that does not fit blocks the ones behind it)\n"
	"  RESERVE  blocked jobs that get a reservation each cycle (EASY\n"
	"           backfill; YAML scheduler.reserveDepth, scheduler.backfill)\n"
	"  STARVE   gangs waiting this long are tried first (scheduler.starveAfter)\n"
	"  XF-CAP   jobs inside a queue by expansion factor, runtimes capped at\n"
	"           this (scheduler.xfactorCap); off: submit order, or the\n"
	"           policy's own priority\n"
	"  RECLAIM  the victim rule and the most evictions per cycle, or no\n"
	"\n"
	"--json  the same as JSON ({\"policies\": [...]}, an object as every\n"
	"        listing's --json), with the job order inside a queue, the\n"
	"        consolidation moves per cycle and the placement spread; the\n"
	"        spans in seconds, their keys ending in S as in `fairway sim run\n"
	"        --json` (starveAfterS, xfactorCapS; 0: off)\n"
	"\n"
	"A policy is chosen by name: `fairway plan --policy NAME`, `fairway\n"
	"serve --policy NAME` (default: fairway), `fairway sim run --policies\n"
	"A,B` (one replay each).\n"
	"\n"
	"examples:\n"
	"  fairway policies\n"
	"  fairway policies --json | jq '.policies[] | {name, reserveDepth}'\n";

int fw_cmd_policies(int argc, char **argv)
{
	const struct fw_policy_ops *const *l = fw_policy_list();
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (fw_cli_split_eq(argv[i]))
			return fw_cli_usage_error("policies", "%s takes no value", argv[i]);
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(policies_usage, stdout);
			return 0;
		} else if (argv[i][0] != '-' || !argv[i][1]) {
			return fw_cli_usage_error("policies", "unexpected argument '%s' (`fairway policies` takes only "
							      "flags)", argv[i]);
		} else
			return fw_cli_usage_error("policies", "unknown option '%s'", argv[i]);
	}
	if (json) { /* an object, as every listing's --json: {"policies": [...]} */
		json_t *a = json_array(), *o = json_pack("{s:o}", "policies", a);
		for (int i = 0; l[i]; i++)
			json_array_append_new(a, policy_json(l[i]));
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(o);
		return 0;
	}
	printf("%-8s %-10s %-7s %-7s %-7s %-14s %s\n", "POLICY", "QUEUES", "RESERVE", "STARVE", "XF-CAP", "RECLAIM",
	       "SUMMARY");
	for (int i = 0; l[i]; i++)
		policy_row(l[i]);
	return 0;
}

static const char sim_usage[] =
	"usage: fairway sim <experiment> [options]\n"
	"\n"
	"experiments:\n"
	"  run   replay a trace (e.g. Microsoft ITP) through the engine under\n"
	"        several policies and compare occupancy, time to start, JCT\n"
	"        (`fairway sim run --help`)\n"
	"  fgd   place openb pods once each under every scorer and compare GPU\n"
	"        allocation at 130%% arrived workload with the published FGD\n"
	"        results (`fairway sim fgd --help`)\n"
	"\n"
	"examples:\n"
	"  fairway sim run --trace synthetic --policies fifo,fairway\n"
	"  fairway sim fgd --help      (its data files and the run that uses them)\n";

int fw_cmd_sim(int argc, char **argv)
{
	if (argc < 2)
		return fw_cli_usage_error("sim", "missing the experiment: run or fgd");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf(sim_usage);
		return 0;
	}
	if (!strcmp(argv[1], "fgd")) {
		char *args[argc];
		args[0] = (char *)"fairway sim fgd";
		for (int i = 2; i < argc; i++)
			args[i - 1] = argv[i];
		return fw_fgd_cli(argc - 1, args);
	}
	if (!strcmp(argv[1], "run"))
		return fw_sim_cli(argc, argv);
	static const char *const experiments[] = { "run", "fgd", NULL };
	char hint[96];
	return fw_cli_usage_error("sim", "unknown experiment '%s'%s", argv[1],
				  fw_cli_hint(argv[1], experiments, hint, sizeof hint));
}

static const char trace_usage[] =
	"usage: fairway trace <subcommand> [options]\n"
	"\n"
	"Bring a cluster's own history to the simulator: turn it into fairway's\n"
	"trace format (docs/trace-format.md), which `fairway sim run --format\n"
	"fairway` replays through every policy.\n"
	"\n"
	"subcommands:\n"
	"  sacct2fairway [options] SACCT_FILE OUT.csv|-\n"
	"                convert Slurm's accounting records (sacct --parsable2) into\n"
	"                a trace CSV, and count the jobs written and left out\n"
	"                (`fairway trace sacct2fairway --help`: the sacct command to\n"
	"                run, the options --no-gpu-model, --time-limits and --json)\n"
	"\n"
	"examples:\n"
	"  fairway trace sacct2fairway --help\n"
	"  fairway trace sacct2fairway sacct.txt jobs.csv\n"
	"  fairway sim run --format fairway --trace jobs.csv --policies slurm,fairway\n";

int fw_cmd_trace(int argc, char **argv)
{
	if (argc < 2)
		return fw_cli_usage_error("trace", "missing the subcommand: sacct2fairway");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(trace_usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "sacct2fairway")) {
		char name[] = "fairway trace sacct2fairway"; /* for its usage lines */
		argv[1] = name;
		return fw_sacct_convert_cli(argc - 1, argv + 1);
	}
	static const char *const subs[] = { "sacct2fairway", NULL };
	char hint[96];
	return fw_cli_usage_error("trace", "unknown subcommand '%s'%s", argv[1],
				  fw_cli_hint(argv[1], subs, hint, sizeof hint));
}

static int dispatch(int argc, char **argv);

/* The commands that talk to `fairway serve` (tools/cmd_client.c), and
 * every command, for the hint after an unknown one. */
static const char *const client_cmds[] = { "queues", "jobs", "nodes", "reservations", "fairshare", "decisions",
					   "stats", NULL };
static const char *const commands[] = { "plan", "serve", "queues", "jobs", "nodes", "reservations", "fairshare",
					"decisions", "stats", "policies", "sim", "trace", "help", NULL };

static bool one_of(const char *w, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(w, *set))
			return true;
	return false;
}

/* --- the client's shared flags before the command ---------------------------------------------------
 * `fairway --server URL jobs list` is `fairway jobs --server URL list`,
 * as kubectl and git take their global flags: the flags every client
 * command shares (--server URL, --token-file FILE, --json; cmd_client.c)
 * may come before the command, and are moved to just after it.  Any
 * other flag there is refused, saying that it goes after the command. */

/* The words shared flag w takes (2: w and its value), 0 when w is none. */
static int shared_words(const char *w)
{
	if (!strcmp(w, "--json") || !strncmp(w, "--server=", 9) || !strncmp(w, "--token-file=", 13))
		return 1;
	return !strcmp(w, "--server") || !strcmp(w, "--token-file") ? 2 : 0;
}

/* 2: flag w came before the command, where only the shared flags go:
 * a near miss of one of them is named, any other flag goes after the
 * command (the first word of the line that is one, if any). */
static int misplaced(const char *w, int argc, char **argv)
{
	static const char *const shared[] = { "--server", "--token-file", "--json", "--help", "--version", NULL };
	const char *cmd = "COMMAND";
	char hint[96];

	for (int i = 1; i < argc; i++)
		if (one_of(argv[i], commands)) {
			cmd = argv[i];
			break;
		}
	if (*fw_cli_hint(w, shared, hint, sizeof hint))
		fprintf(stderr, "fairway: error: unknown option '%s' before the command%s\n", w, hint);
	else
		fprintf(stderr, "fairway: error: option '%s' before the command: only the flags every client command "
				"takes (--server URL, --token-file FILE, --json) may come before it; a command's own "
				"flags go after it: fairway %s %s ...\n", w, cmd, w);
	fputs("run `fairway --help` for the commands\n", stderr);
	return 2;
}

/* How many words of shared flags open the line (argv[1]...); -1 after
 * an error (another flag there, or one without its value). */
static int leading_flags(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--help") && strcmp(argv[i], "-h") &&
	       strcmp(argv[i], "--version")) {
		int k = shared_words(argv[i]);
		if (!k)
			return misplaced(argv[i], argc, argv), -1;
		if (i + k > argc) {
			fprintf(stderr, "fairway: error: %s needs a value, then the command: fairway %s VALUE COMMAND ...\n",
				argv[i], argv[i]);
			return -1;
		}
		i += k;
	}
	return i - 1;
}

/* The line with its lead words of shared flags moved after the command;
 * refused for a command that is not a client's (fairway policies
 * --server would be no less wrong). */
static int flags_after(int argc, char **argv, int lead)
{
	char *args[argc + 1], *cmd = lead + 1 < argc ? argv[lead + 1] : NULL;
	int k = 0;

	if (cmd && one_of(cmd, commands) && !one_of(cmd, client_cmds) && strcmp(cmd, "plan")) {
		fprintf(stderr, "fairway: error: %s before `%s`: only the client commands (%s, plan) take --server, "
				"--token-file and --json before the command; put it after: fairway %s %s ...\n"
				"run `fairway %s --help` for its options\n",
			argv[1], cmd, "queues, jobs, nodes, reservations, fairshare, decisions, stats", cmd, argv[1], cmd);
		return 2;
	}
	args[k++] = argv[0];
	if (cmd)
		args[k++] = cmd;
	for (int i = 1; i <= lead; i++)
		args[k++] = argv[i];
	for (int i = lead + 2; i < argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	if (!cmd) {
		fprintf(stderr, "fairway: error: missing the command after the flags: fairway [--server URL] "
				"[--token-file FILE] [--json] COMMAND ...\n\n%s", usage);
		return 2;
	}
	return dispatch(argc, args);
}

/* --- --help anywhere ------------------------------------------------------------------------------
 * `fairway --help jobs submit`, `fairway jobs --help submit`, `fairway
 * jobs submit --help` and `fairway help jobs submit` (as git's) all print
 * `jobs submit`'s help: the deepest command the line names, wherever the
 * --help (or -h) is; the words after it are its own (`fairway help trace
 * sacct2fairway IN` is sacct2fairway's help, `fairway stats --help x`
 * stats', exit 0, as a command without subcommands ignores what follows
 * it).  An unknown command, or an unknown subcommand of one that has
 * some, is refused, exit 2, naming the nearest one (cmd_client.c). */

static bool is_help(const char *w)
{
	return !strcmp(w, "--help") || !strcmp(w, "-h");
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (is_help(argv[i]))
			return true;
	return argc > 1 && !strcmp(argv[1], "help");
}

/* Gather phase: the line's words into w (n), without "help" before the
 * command, --help and -h; *lead: how many shared flags' words open it.
 * 2 after an error (a flag before the command that is no shared one). */
static int help_words(int argc, char **argv, char **w, int *n, int *lead)
{
	int i = 1, k;

	*n = 0;
	while (i < argc && (!strcmp(argv[i], "help") || is_help(argv[i])))
		i++;
	for (; i < argc; i++)
		if (!is_help(argv[i]))
			w[(*n)++] = argv[i];
	for (*lead = 0; *lead < *n && w[*lead][0] == '-'; *lead += k)
		if (!(k = shared_words(w[*lead])))
			return misplaced(w[*lead], argc, argv);
	if (*lead > *n)
		*lead = *n; /* `fairway --server --help`: no command */
	return 0;
}

/* Does the line give --server (plan's help is then the client's)? */
static bool gives_server(char **w, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(w[i], "--server") || !strncmp(w[i], "--server=", 9))
			return true;
	return false;
}

/* The first word of w (n) that is no flag: a subcommand, or NULL. */
static char *first_word(char **w, int n)
{
	for (int i = 0; i < n; i++)
		if (w[i][0] != '-')
			return w[i];
	return NULL;
}

/* Print phase: the help of command cmd (lead: the shared flags before
 * it, rest: the words after it). */
static int help_of(char *cmd, char **lead, int nlead, char **rest, int n)
{
	char *args[nlead + n + 4], flag[] = "--help", *sub = first_word(rest, n);
	int k = 0;

	if (one_of(cmd, client_cmds) || (!strcmp(cmd, "plan") && (gives_server(lead, nlead) || gives_server(rest, n)))) {
		args[k++] = cmd;
		for (int i = 0; i < nlead; i++)
			args[k++] = lead[i];
		for (int i = 0; i < n; i++)
			args[k++] = rest[i];
		args[k++] = flag;
		args[k] = NULL;
		return fw_cmd_client(cmd, k, args);
	}
	args[k++] = (char *)"fairway";
	args[k++] = cmd;
	if (sub && (!strcmp(cmd, "sim") || !strcmp(cmd, "trace")))
		args[k++] = sub; /* the subcommand: run, fgd, sacct2fairway, or a near miss refused */
	args[k++] = flag;
	args[k] = NULL;
	return dispatch(k, args);
}

static int help_line(int argc, char **argv)
{
	char *w[argc + 1], hint[96];
	int n, lead, rc;

	if ((rc = help_words(argc, argv, w, &n, &lead)))
		return rc;
	if (lead == n) {
		fputs(usage, stdout);
		return 0;
	}
	if (!one_of(w[lead], commands) || !strcmp(w[lead], "help")) {
		fprintf(stderr, "fairway: error: unknown command '%s'%s\nrun `fairway --help` for the commands\n", w[lead],
			fw_cli_hint(w[lead], commands, hint, sizeof hint));
		return 2;
	}
	return help_of(w[lead], w, lead, w + lead + 1, n - lead - 1);
}

int main(int argc, char **argv)
{
	int lead;

	if (wants_help(argc, argv))
		return help_line(argc, argv);
	if ((lead = leading_flags(argc, argv)) < 0)
		return 2;
	if (lead > 0)
		return flags_after(argc, argv, lead);
	return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "fairway: error: missing the command\n\n%s", usage);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("fairway 0.1.0");
		return 0;
	}
	if (!strcmp(argv[1], "plan")) {
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--server") || !strncmp(argv[i], "--server=", 9))
				return fw_cmd_client("plan", argc - 1, argv + 1);
		return fw_cmd_plan(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "serve"))
		return fw_cmd_serve(argc - 1, argv + 1);
	if (one_of(argv[1], client_cmds))
		return fw_cmd_client(argv[1], argc - 1, argv + 1);
	if (!strcmp(argv[1], "policies"))
		return fw_cmd_policies(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sim"))
		return fw_cmd_sim(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return fw_cmd_trace(argc - 1, argv + 1);
	char hint[96];
	fprintf(stderr, "fairway: error: unknown command '%s'%s\nrun `fairway --help` for the commands\n", argv[1],
		fw_cli_hint(argv[1], commands, hint, sizeof hint));
	return 2;
}
