/*
 * fairway.c — the `fairway` command: a thin dispatcher over subcommands.
 * Each subcommand lives in tools/cmd_<name>.c and parses its own flags.
 */
#include <stdarg.h>
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
	"              (with --server URL: the last plan of a running daemon)\n"
	"  serve       run the scheduling service: JSON API, store, /metrics\n"
	"  queues      list / set / delete a daemon's queues\n"
	"  jobs        list / submit / cancel jobs; `jobs why ID` explains a wait\n"
	"  nodes       list nodes; report node health\n"
	"  reservations  maintenance windows and queue/job reservations\n"
	"  fairshare   each queue's deserved, fair share, allocation, usage;\n"
	"              `fairshare explain Q` shows where a queue's share comes from\n"
	"  policies    list the scheduling policies\n"
	"  sim run     replay a GPU-cluster trace through several policies\n"
	"  sim fgd     reproduce the FGD (ATC '23) fragmentation experiment\n"
	"  trace sacct2fairway [--no-gpu-model] IN OUT\n"
	"              convert `sacct --parsable2` output to fairway's trace format\n"
	"  help [CMD]  this help, or a command's: `fairway help sim run` is\n"
	"              `fairway sim run --help`\n"
	"\n"
	"Start here:  fairway plan          (runs on the built-in example cluster)\n"
	"Docs:        README.md, docs/ARCHITECTURE.md, docs/config.md\n";

int fw_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fairway %s: error: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nrun `fairway %s --help` for usage\n", cmd);
	return 2;
}

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
			puts("usage: fairway policies [--json]\n\nList the registered scheduling policies.");
			return 0;
		} else
			return fw_cli_usage_error("policies", "unknown option '%s'", argv[i]);
	}
	if (json) {
		json_t *a = json_array();
		for (int i = 0; l[i]; i++)
			json_array_append_new(a, json_pack("{s:s,s:s,s:b}", "name", l[i]->name, "summary",
							   l[i]->summary, "default", l[i] == fw_policy_default()));
		json_dumpf(a, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(a);
		return 0;
	}
	printf("%-10s %s\n", "POLICY", "SUMMARY");
	for (int i = 0; l[i]; i++)
		printf("%-10s %s%s\n", l[i]->name, l[i]->summary, l[i] == fw_policy_default() ? " (default)" : "");
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
	"        results (`fairway sim fgd --help`)\n";

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

int fw_cmd_trace(int argc, char **argv)
{
	if (argc < 2)
		return fw_cli_usage_error("trace", "missing the subcommand: sacct2fairway");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		puts("usage: fairway trace sacct2fairway [--no-gpu-model] IN OUT\n\n"
		     "Convert Slurm accounting output (sacct --parsable2 --allusers\n"
		     "--format=JobID,User,Account,Submit,Start,End,Timelimit,AllocTRES,...)\n"
		     "into fairway's generic trace CSV (docs/trace-format.md), for\n"
		     "`fairway sim run --format fairway --trace OUT`.");
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

/* `fairway help CMD [SUB]` is `fairway CMD [SUB] --help`, as git does. */
static int help_for(int argc, char **argv)
{
	char *args[argc + 1], flag[] = "--help";

	args[0] = argv[0];
	for (int i = 2; i < argc; i++)
		args[i - 1] = argv[i];
	args[argc - 1] = flag;
	args[argc] = NULL;
	return dispatch(argc, args);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "help"))
		return help_for(argc, argv);
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
	static const char *const client_cmds[] = { "queues", "jobs", "nodes", "reservations", "fairshare", NULL };
	for (int i = 0; client_cmds[i]; i++)
		if (!strcmp(argv[1], client_cmds[i]))
			return fw_cmd_client(argv[1], argc - 1, argv + 1);
	if (!strcmp(argv[1], "policies"))
		return fw_cmd_policies(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sim"))
		return fw_cmd_sim(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return fw_cmd_trace(argc - 1, argv + 1);
	static const char *const commands[] = { "plan", "serve", "queues", "jobs", "nodes", "reservations",
						"fairshare", "policies", "sim", "trace", "help", NULL };
	char hint[96];
	fprintf(stderr, "fairway: error: unknown command '%s'%s\n\n%s", argv[1],
		fw_cli_hint(argv[1], commands, hint, sizeof hint), usage);
	return 2;
}
