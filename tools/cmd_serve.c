/*
 * cmd_serve.c — `fairway serve`: parse the flags, hand them to
 * fw_serve_run() (connectors/serve).
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "cmd_serve.h"
#include "serve.h"

extern const unsigned char fw_example_cluster[];
extern const size_t fw_example_cluster_len;

static const char serve_usage[] =
	"usage: fairway serve [--config FILE] [--listen HOST:PORT] [--state DIR]\n"
	"                     [--token-file FILE] [--agent-token-file FILE]\n"
	"                     [--period DURATION] [--backend NAME]\n"
	"                     [--backend-opt KEY=VALUE]... [--policy NAME]\n"
	"                     [--sync normal|full] [--log-keep DURATION]\n"
	"                     [--port-file FILE] [--routes]\n"
	"\n"
	"Run fairway as a service: a scheduling cycle every period (and on\n"
	"POST /v1/cycle), a JSON API under /v1 (docs/openapi.yaml), Prometheus\n"
	"metrics at /metrics, and a crash-safe store (SQLite, WAL) in --state.\n"
	"\n"
	"  --config FILE       the fleet (nodes, topology) and the initial queues,\n"
	"                      YAML as in docs/config.md.  Default: the built-in\n"
	"                      example cluster (examples/cluster.yaml).  Queues\n"
	"                      are read from it on the first start only; after\n"
	"                      that the store is the truth (change them by API).\n"
	"  --listen HOST:PORT  default 127.0.0.1:8642 (port 0: any free port)\n"
	"  --state DIR         the store and the default tokens; default\n"
	"                      ./fairway-state\n"
	"  --token-file FILE   bearer token for mutating endpoints; the file must\n"
	"                      be mode 0600.  Default: DIR/token, created on\n"
	"                      first start.\n"
	"  --agent-token-file FILE  the token fairway-agent sends: it may only\n"
	"                      report node health (POST /v1/nodes/NAME/health),\n"
	"                      so the GPU nodes never hold the admin token.\n"
	"                      Mode 0600.  Default: DIR/agent-token, created on\n"
	"                      first start.\n"
	"  --period D          cycle period: 1s (default), 500ms, 2.5s, 1m; at\n"
	"                      most 1h.  slurm: keep it well below slurm.conf's\n"
	"                      MinJobAge (300s by default), at most half: a job\n"
	"                      that ends and is purged between two cycles is\n"
	"                      never seen ended (warned at start, and in GET\n"
	"                      /v1/health's warnings)\n"
	"  --backend NAME      the cluster behind the daemon (default: local, a\n"
	"                      virtual cluster where started jobs run for their\n"
	"                      runtime in wall-clock time)\n"
	"  --backend-opt K=V   an option for the backend's open, repeatable (or\n"
	"                      comma-separated).  slurm: conf=PATH (slurm.conf;\n"
	"                      else $SLURM_CONF), partitions=gpu:gpu2 (managed\n"
	"                      partitions, default gpu), comments=N (comment\n"
	"                      writes per cycle, default 256), usage=slurm|own\n"
	"                      (fair share from Slurm's decayed usage where\n"
	"                      Slurm keeps it, the default; or the daemon's\n"
	"                      own).  local: min-job-age=SECONDS (forget a\n"
	"                      job that ended this long ago, as Slurm's\n"
	"                      MinJobAge; default 0: keep every job)\n"
	"  --policy NAME       scheduling policy (`fairway policies`)\n"
	"  --sync full         fsync every commit (survives power loss; the\n"
	"                      default survives a crash of the process)\n"
	"  --log-keep D        delete decision-log and usage-history rows older\n"
	"                      than D: 30d, 12h, 90m, 3600s (as slurmdbd's\n"
	"                      PurgeEventAfter).  Default 0: keep every row.\n"
	"                      Jobs themselves: --backend-opt min-job-age\n"
	"  --port-file FILE    write the bound port here once listening\n"
	"  --routes            print the API's routes and exit\n"
	"\n"
	"Try it:\n"
	"  fairway serve --state /tmp/fw &\n"
	"  fairway jobs                      # the example cluster's jobs\n"
	"  fairway jobs submit --queue llm --gpus 8 --runtime 600 --token-file /tmp/fw/token\n"
	"  fairway fairshare\n"
	"  curl -s localhost:8642/metrics | grep fairway_queue\n"
	"Stop it with SIGINT or SIGTERM (it finishes its cycle and saves the usage).\n"
	"SIGHUP reloads nothing and stops nothing (one line on stderr): to apply a\n"
	"changed --config, restart it.  As a service: contrib/systemd/fairway.service.\n"
	"Docs: docs/serve.md\n";

/* "1s", "500ms", "2.5", "1m", "1h", "1m30s" -> seconds; < 0 when
 * invalid.  The duration grammar of every other flag (fw_cli_duration:
 * plain digits and a point, units s, m, h, d, one after another) and
 * milliseconds alone ("500ms"). */
static double parse_period(const char *s)
{
	size_t n = strspn(s, "0123456789.");
	char num[32];
	double v;

	if (n > 0 && n < sizeof num && !strcmp(s + n, "ms")) { /* "500ms": the number, in milliseconds */
		memcpy(num, s, n);
		num[n] = '\0';
		return fw_cli_duration(num, &v) && v > 0 ? v / 1000 : -1;
	}
	return fw_cli_duration(s, &v) && v > 0 ? v : -1;
}

/* --log-keep: a whole number of seconds from 0 to 3650 days in the
 * duration syntax of `fairway jobs submit --runtime` (30d, 12h, 90m,
 * 3600s, 3600); -1 when not. */
static int64_t parse_keep(const char *s)
{
	double x;

	if (!fw_cli_duration(s, &x) || x != floor(x) || x < 0 || x > 3650.0 * 86400)
		return -1;
	return (int64_t)x;
}

static int parse_listen(const char *s, char *host, size_t n, int *port)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long p;

	if (!colon || (size_t)(colon - s) >= n || colon == s)
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1)) /* digits only: no sign, space or hex */
		return -1;
	p = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || p < 0 || p > 65535)
		return -1;
	*port = (int)p;
	return 0;
}

static void list_backends(FILE *f)
{
	const struct fw_backend_ops *const *l = fw_backend_list();
	for (int i = 0; l[i]; i++)
		fprintf(f, "  %-8s %s\n", l[i]->name, l[i]->summary);
}

/* Append one --backend-opt to the comma-joined list; -1 when it is not
 * KEY=VALUE or the list is full. */
static int add_backend_opt(char *all, size_t n, const char *kv)
{
	size_t used = strlen(all);
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv)
		return -1;
	if (used + strlen(kv) + 2 > n)
		return -1;
	snprintf(all + used, n - used, "%s%s", used ? "," : "", kv);
	return 0;
}

/* Every flag of `fairway serve`, for the hint on a mistyped one. */
static const char *const serve_flags[] = { "--help", "--routes", "--config", "--listen", "--state", "--token-file",
					   "--agent-token-file", "--period", "--backend", "--backend-opt", "--policy",
					   "--sync", "--log-keep", "--port-file", NULL };

/* Is a one of serve_flags? */
static bool known_flag(const char *a)
{
	for (const char *const *f = serve_flags; *f; f++)
		if (!strcmp(*f, a))
			return true;
	return false;
}

/* The listen address and the --backend-opt list the options point to. */
static char serve_host[256] = "127.0.0.1";
static char serve_bopts[2048];

/* --help, --routes and a word that is no flag: -1 to go on, else the
 * exit status. */
static int early_arg(const char *a, const char *eq)
{
	if (eq && (!strcmp(a, "--help") || !strcmp(a, "--routes")))
		return fw_cli_usage_error("serve", "%s takes no value", a);
	if (a[0] != '-' || !a[1])
		return fw_cli_usage_error("serve", "unexpected argument '%s' (`fairway serve` takes only flags)", a);
	if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		fputs(serve_usage, stdout);
		puts("\nbackends:");
		list_backends(stdout);
		return 0;
	}
	if (!strcmp(a, "--routes")) {
		fw_serve_print_routes(stdout);
		return 0;
	}
	return -1;
}

/* A flag without a value: the usage error's exit status; -1 when it has
 * one. */
static int no_value(const char *a, const char *eq, const char *v)
{
	char hint[96];

	if (v && *v)
		return -1;
	if (known_flag(a))
		return fw_cli_usage_error("serve", "%s needs a value (%s)", a,
					  eq ? "none after the =" : "none follows it");
	return fw_cli_usage_error("serve", "unknown option '%s'%s", a,
				  fw_cli_hint(a, serve_flags, hint, sizeof hint));
}

/* HOST:PORT whose PORT is all digits but past 65535 (127.0.0.1:99999):
 * a refusal that names the range, not "expected HOST:PORT". */
static bool port_past_range(const char *v)
{
	const char *colon = strrchr(v, ':');
	const char *p = colon ? colon + 1 : "";

	return colon && colon > v && *p && strspn(p, "0123456789") == strlen(p) && (strlen(p) > 5 || atol(p) > 65535);
}

static int listen_flag(struct fw_serve_opts *o, const char *v)
{
	struct in_addr ip;

	if (parse_listen(v, serve_host, sizeof serve_host, &o->port)) {
		if (port_past_range(v))
			return fw_cli_usage_error("serve", "--listen '%s': port %s is out of range: give a port "
						  "from 1 to 65535 (or 0: any free port, see --port-file)", v,
						  strrchr(v, ':') + 1);
		return fw_cli_usage_error("serve", "--listen '%s': expected HOST:PORT, e.g. 127.0.0.1:8642", v);
	}
	if (inet_pton(AF_INET, serve_host, &ip) != 1)
		return fw_cli_usage_error("serve", "--listen '%s': '%s' is not an IPv4 address (e.g. 127.0.0.1)",
					  v, serve_host);
	return 0;
}

static int backend_flag(struct fw_serve_opts *o, const char *v)
{
	const struct fw_backend_ops *const *l = fw_backend_list();
	const char *names[16];
	char hint[96];
	int n = 0;

	if (!(o->backend = fw_backend_find(v))) {
		while (l[n] && n < 15) {
			names[n] = l[n]->name;
			n++;
		}
		names[n] = NULL;
		fprintf(stderr, "fairway serve: error: --backend '%s': unknown backend%s; these are built in:\n", v,
			fw_cli_hint(v, names, hint, sizeof hint));
		list_backends(stderr);
		fputs("run `fairway serve --help` for usage\n", stderr);
		return 2;
	}
	return 0;
}

/* The flags whose value is checked: 0, 2 (usage error) or -1 (not one). */
static int checked_flag(struct fw_serve_opts *o, const char *a, const char *v)
{
	char hint[96];

	if (!strcmp(a, "--listen"))
		return listen_flag(o, v);
	if (!strcmp(a, "--backend"))
		return backend_flag(o, v);
	if (!strcmp(a, "--period")) {
		if ((o->period_s = parse_period(v)) <= 0 || o->period_s > 3600)
			return fw_cli_usage_error("serve", "--period '%s': expected a duration above 0 and at most 1h, "
						  "like 1s, 500ms or 1m", v);
	} else if (!strcmp(a, "--backend-opt")) {
		if (add_backend_opt(serve_bopts, sizeof serve_bopts, v))
			return fw_cli_usage_error("serve", "--backend-opt '%s': expected KEY=VALUE (at most %zu bytes in all)",
						  v, sizeof serve_bopts - 1);
		o->backend_opts = serve_bopts;
	} else if (!strcmp(a, "--policy")) {
		if (!fw_policy_find(v))
			return fw_cli_usage_error("serve", "--policy '%s': unknown policy%s (try `fairway policies`)", v,
						  fw_cli_hint(v, fw_policy_names(), hint, sizeof hint));
		o->policy = v;
	} else if (!strcmp(a, "--sync")) {
		if (strcmp(v, "full") && strcmp(v, "normal"))
			return fw_cli_usage_error("serve", "--sync '%s': expected normal or full", v);
		o->sync_full = !strcmp(v, "full");
	} else if (!strcmp(a, "--log-keep")) {
		if ((o->log_keep_s = parse_keep(v)) < 0)
			return fw_cli_usage_error("serve",
						  "--log-keep '%s': expected a whole number of seconds or a "
						  "DURATION like 30d, 12h or 90m, at most 3650d (0 keeps every row)",
						  v);
	} else {
		return -1;
	}
	return 0;
}

/* One flag with its value: 0 or the usage error's exit status. */
static int value_flag(struct fw_serve_opts *o, const char *a, const char *v)
{
	char hint[96];
	int rc;

	if (!strcmp(a, "--config"))
		o->config_path = v;
	else if (!strcmp(a, "--state"))
		o->state_dir = v;
	else if (!strcmp(a, "--token-file"))
		o->token_file = v;
	else if (!strcmp(a, "--agent-token-file"))
		o->agent_token_file = v;
	else if (!strcmp(a, "--port-file"))
		o->port_file = v;
	else if ((rc = checked_flag(o, a, v)) >= 0)
		return rc;
	else
		return fw_cli_usage_error("serve", "unknown option '%s'%s", a,
					  fw_cli_hint(a, serve_flags, hint, sizeof hint));
	return 0;
}

int fw_cmd_serve(int argc, char **argv)
{
	struct fw_serve_opts o = {
		.embedded_yaml = (const char *)fw_example_cluster,
		.embedded_len = fw_example_cluster_len,
		.listen_host = serve_host,
		.port = 8642,
		.state_dir = "fairway-state",
		.period_s = 1.0,
		.backend = fw_backend_find("local"),
	};
	int rc;

	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *eq = fw_cli_split_eq(a);
		const char *v = eq ? eq : i + 1 < argc ? argv[i + 1] : NULL;
		if ((rc = early_arg(a, eq)) >= 0 || (rc = no_value(a, eq, v)) >= 0)
			return rc;
		if (!eq)
			i++;
		if ((rc = value_flag(&o, a, v)) != 0)
			return rc;
	}
	return fw_serve_run(&o);
}
