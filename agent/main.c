/*
 * main.c — `fairway-agent`: a node's GPU health, from NVML, as JSON.
 *
 * Modes (see usage()):
 *   one-shot  (default) load NVML, read every GPU once, wait --wait ms for
 *             XID events, fold the report into health (agent/report.h),
 *             print one JSON report, exit;
 *   --watch   keep NVML and the XID event set open; every --interval
 *             seconds print one compact JSON line; health records persist
 *             across reports, so probation and damping play out over time;
 *             --count N stops after N reports; SIGINT/SIGTERM stop cleanly;
 *   --assess FILE  read a report (from any machine) and fold it into fresh
 *             health records: the node's state and GPU masks, as JSON.
 * With --server URL (and --token-file), every report of the first two
 * modes is also sent to `fairway serve` as POST /v1/nodes/{node}/health
 * (agent/post.h maps the agent's health to that body).  A report that
 * cannot be sent is an error in one-shot (exit 1); in --watch it is logged
 * and the next report, one interval later, is the retry.  --quiet drops
 * the JSON on stdout.
 * Without NVML (no library, no driver, no GPUs) the agent prints a report
 * with "available": false and the reason, says so on stderr, and exits 0:
 * a node without NVIDIA GPUs is not an error; with --server it sends
 * nothing (the daemon's view of the node is left as it is).  But a library
 * named with --nvml PATH that cannot be loaded (missing, not a library,
 * not NVML) is the operator's mistake: exit 2, naming it and dlopen's or
 * dlsym's reason.  A driver not loaded (nvmlInit fails) is the machine's
 * state either way: exit 0.
 *
 * Exit status: 0 ok (also: no NVIDIA GPUs here), 1 runtime error (also: a
 * report not delivered; in --watch, the last one), 2 usage (also: the
 * token file cannot be read, the --nvml library cannot be loaded).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cliword.h"
#include "fairway/err.h"
#include "fairway/span.h"
#include "post.h"
#include "report.h"

struct opts {
	const char *nvml;
	const char *assess;
	char node[64];
	bool watch;
	unsigned wait_ms;
	long interval_s;
	long count;
	long nvlinks;
	struct fw_health_config health; /* --probation, --flap-*: the damping */
	bool pretty;
	bool quiet;
	struct fw_agent_server server; /* url NULL: print only */
	const char *watch_flag;  /* the last of --interval, --count given */
	const char *report_flag; /* the last flag given that takes a report here */
};

static volatile sig_atomic_t stop, repaired;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		repaired = 1;
	else
		stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fairway-agent [--watch [--interval S] [--count N]] [--wait MS]\n"
		"                     [--nvml PATH] [--nvlinks N] [--node NAME] [--pretty]\n"
		"                     [--probation S] [--flap-threshold N --flap-window S --flap-hold S]\n"
		"                     [--server URL --token-file FILE [--quiet]]\n"
		"       fairway-agent --assess REPORT.json\n"
		"                     [--probation S] [--flap-threshold N --flap-window S --flap-hold S]\n"
		"\n"
		"Report this node's NVIDIA GPU health as JSON: per GPU its temperature,\n"
		"uncorrectable ECC errors, row remapping, NVLink links up and down, and\n"
		"the XID errors NVML delivers; then the health fairway's scheduler\n"
		"derives from them (docs/health.md): \"node_health\" healthy | suspect |\n"
		"unhealthy | draining, \"bad_gpus\" (excluded from placement) and\n"
		"\"suspect_gpus\" (kept away from big gangs).  XID 79, an uncorrectable\n"
		"ECC error or a failed row remap makes a GPU unhealthy; most other XIDs,\n"
		"a row remap pending (until a GPU reset) and a link down make it\n"
		"suspect; application XIDs (13, 31, 43, 45) are ignored.\n"
		"\n"
		"An NVLink link that is not up is \"down\" (a fault) only when it should\n"
		"be up: the same link is up on another GPU of this node, this agent saw\n"
		"it up before (--watch), or --nvlinks says so; otherwise it is listed\n"
		"as \"inactive\" (a PCIe card without bridges, one GPU in a VM).\n"
		"A GPU that has fallen off the bus (NVML: GPU is lost) is \"lost\" and\n"
		"unhealthy; one this process may not open (another container's) is\n"
		"\"unread\" and not judged.  An unhealthy GPU goes on probation\n"
		"(suspect) when it is seen reset (it answers again, or its volatile\n"
		"ECC count is back to 0, or its pending remap was applied) or, in\n"
		"--watch, on SIGUSR1 (the operator's \"repaired\"); a fault still\n"
		"there makes it unhealthy again.\n"
		"\n"
		"NVML is loaded at run time (dlopen), so the agent runs anywhere: on a\n"
		"machine without NVIDIA GPUs or driver it says so and exits 0.  A library\n"
		"named with --nvml that cannot be loaded (no such file, not a library,\n"
		"not NVML) is an error, exit 2.\n"
		"\n"
		"With --server, every report is also sent to `fairway serve` as\n"
		"POST /v1/nodes/NODE/health: healthy false when the node is unhealthy,\n"
		"badGpus = bad_gpus, and a reason naming the state and the events\n"
		"(\"suspect: suspect GPUs 1; GPU 1 XID 62\"); a clean report is the\n"
		"heartbeat.  NODE (--node) must be a node the daemon knows.  A report\n"
		"that cannot be sent (server down, token refused, 4xx) exits 1 in\n"
		"one-shot; --watch logs it on stderr and sends the next report at the\n"
		"next interval.  Without NVML nothing is sent (exit 0).\n"
		"\n"
		"  --watch        keep running; one compact JSON line per report\n"
		"  --interval S   seconds between reports in --watch (default 60; only with --watch)\n"
		"  --count N      stop after N reports in --watch (default: until a signal;\n"
		"                 only with --watch)\n"
		"  --wait MS      how long to listen for XID events per report\n"
		"                 (default 500 one-shot; the interval in --watch)\n"
		"  --nvml PATH    the NVML library (default libnvidia-ml.so.1, searched\n"
		"                 as dlopen does; a PATH that cannot be loaded: exit 2)\n"
		"  --nvlinks N    every GPU has links 0..N-1 up (e.g. 18 on HGX H100/H200);\n"
		"                 fewer is a fault even when every GPU lost them at once\n"
		"                 (default 0: learn from the node's GPUs and earlier reports)\n"
		"  --probation S  seconds a GPU stays suspect after a fault or a repair\n"
		"                 (default 21600, 6 h)\n"
		"  --flap-threshold N, --flap-window S, --flap-hold S\n"
		"                 damping: N faults within S seconds (default 2 in 7 days)\n"
		"                 hold the GPU suspect for the flap hold instead (default\n"
		"                 3 days); a fleet with many flapping links may want less\n"
		"                 (docs/results-health.md, \"NVLink flaps\")\n"
		"  --node NAME    the node name in the report (default: the host name):\n"
		"                 1..63 letters, digits, '.', '-' or '_', not \".\" or \"..\"\n"
		"                 (the daemon's rule; anything else is refused, exit 2)\n"
		"  --pretty       indented JSON\n"
		"  --server URL   also send each report to the daemon at URL\n"
		"                 (e.g. http://127.0.0.1:8642, fairway serve's default;\n"
		"                 a trailing / or /v1 is dropped, as by fairway --server)\n"
		"  --token-file FILE  the daemon's agent token (its --agent-token-file,\n"
		"                 default STATE_DIR/agent-token: it may only report\n"
		"                 node health; the admin token works too; or\n"
		"                 $FAIRWAY_TOKEN_FILE)\n"
		"  --quiet        with --server: do not print the JSON on stdout\n"
		"  --assess FILE  fold a saved report into health and print the verdict\n"
		"                 (compact JSON); of the other flags only --probation and\n"
		"                 the --flap-* settings go with it, the rest (they take a\n"
		"                 report here) are refused, exit 2\n"
		"  --help         this text\n"
		"A value may follow its flag or be joined to it: --node gpu-017 or --node=gpu-017.\n"
		"\n"
		"Examples:\n"
		"  fairway-agent                      # one report now\n"
		"  fairway-agent --watch --interval 30 >> /var/log/gpu-health.jsonl\n"
		"  fairway-agent > r.json && fairway-agent --assess r.json\n"
		"  fairway-agent --watch --interval 30 --quiet --node gpu-017 \\\n"
		"      --server http://10.0.0.5:8642 --token-file /etc/fairway/agent-token\n"
		"As a service on every GPU node: contrib/systemd/fairway-agent.service.\n");
}

static int number(const char *flag, const char *v, long lo, long hi, long *out)
{
	char *end;
	long x;

	errno = 0;
	x = v ? strtol(v, &end, 10) : 0;
	/* digits only: strtol reads "" as 0 and skips blanks and a sign (" 3", "+3") */
	if (!v || !(*v >= '0' && *v <= '9') || errno || *end || x < lo || x > hi) {
		fprintf(stderr, "fairway-agent: %s needs a whole number from %ld to %ld (got \"%s\")\n", flag,
			lo, hi, v ? v : "");
		return 2;
	}
	*out = x;
	return 0;
}

/* The node name: --node NAME, checked as the daemon checks a name (exit
 * 2 when it is not one), or the host name, checked when it is sent
 * (--server).  Either way what is sent is exactly one URL path segment:
 * "--node .." would have posted to /v1/health. */
static int set_node(struct opts *o, const char *arg)
{
	char host[256] = "", why[512];

	if (!arg && gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown");
	if ((arg || o->server.url) &&
	    fw_agent_node_check(arg ? arg : host, arg ? "--node" : "the host name", why, sizeof why) != FW_OK) {
		fprintf(stderr, "fairway-agent: %s%s; see --help\n", why,
			arg ? "" : ": give the daemon's name for this node with --node NAME");
		return 2;
	}
	/* only a host name without --server can be longer (the check above
	 * refused any other): it names this node's output, cut to 63 bytes */
	if (snprintf(o->node, sizeof o->node, "%s", arg ? arg : host) >= (int)sizeof o->node) {
		/* cut: it only labels local output */
	}
	return 0;
}

/* --server goes without --assess (which only prints) and needs a readable
 * token; --token-file and --quiet need --server. */
static int check_server(struct opts *o)
{
	char tok[FW_TOKEN_MAX], why[512];
	const char *msg = NULL;

	if (o->server.url && !o->server.token_file && getenv("FAIRWAY_TOKEN_FILE") && *getenv("FAIRWAY_TOKEN_FILE"))
		o->server.token_file = getenv("FAIRWAY_TOKEN_FILE"); /* empty: unset */
	if (o->server.url && o->assess) /* first: a token would not make it send */
		msg = "--assess prints a verdict; it does not send one (drop --server)";
	else if (o->server.url && !o->server.token_file)
		msg = "--server needs --token-file FILE (the daemon's bearer token) or FAIRWAY_TOKEN_FILE";
	else if (!o->server.url && (o->server.token_file || o->quiet))
		msg = "--token-file and --quiet go with --server URL";
	if (msg) {
		fprintf(stderr, "fairway-agent: %s; see --help\n", msg);
		return 2;
	}
	if (o->server.url && fw_agent_read_token(o->server.token_file, tok, why, sizeof why) != FW_OK) {
		fprintf(stderr, "fairway-agent: %s\n", why);
		return 2;
	}
	return 0;
}

/* Flags that do nothing in this mode are refused, not ignored: --interval
 * and --count pace --watch; --assess reads a saved report, so no flag that
 * takes or prints one here (--watch, --pretty, --node, --nvml, --nvlinks,
 * --wait, --interval, --count) goes with it.  0 or the exit status 2. */
static int check_modes(const struct opts *o)
{
	if (o->assess && o->report_flag) {
		fprintf(stderr, "fairway-agent: %s goes with a report taken on this node, not with --assess "
				"(drop it); see --help\n", o->report_flag);
		return 2;
	}
	if (!o->watch && o->watch_flag) {
		fprintf(stderr, "fairway-agent: %s goes with --watch (it paces the reports --watch sends); "
				"add --watch or drop it; see --help\n", o->watch_flag);
		return 2;
	}
	return 0;
}

/* A value joined with '=' (cliword.h): refused on a flag that takes none,
 * and when empty.  Returns 0 or the exit status 2. */
static int joined_value(const char *flag, const char *value)
{
	static const char *const bare[] = { "--help", "-h", "--watch", "--pretty", "--quiet", NULL };
	char why[256];

	if (fw_cli_joined_ok(flag, value, bare, why, sizeof why) == 0)
		return 0;
	fprintf(stderr, "fairway-agent: %s; see --help\n", why);
	return 2;
}

/* Every flag, for the hint on a mistyped one. */
static const char *const agent_flags[] = { "--help", "--watch", "--pretty", "--quiet", "--server", "--token-file",
					   "--nvml", "--assess", "--node", "--interval", "--count", "--nvlinks",
					   "--probation", "--flap-window", "--flap-hold", "--flap-threshold", "--wait",
					   NULL };

static int parse(int argc, char **argv, struct opts *o)
{
	long x = -1, y = 0;
	const char *node = NULL;
	int rc = 0;

	memset(o, 0, sizeof *o);
	fw_health_config_default(&o->health);
	o->interval_s = 60;
	o->wait_ms = 500;
	for (int i = 1; i < argc && !rc; i++) {
		char *eq = fw_cli_split_eq(argv[i]);
		const char *a = argv[i], *v = eq ? eq : i + 1 < argc ? argv[i + 1] : NULL;
		int take = eq ? 0 : 1; /* words the value uses after the flag */
		if ((rc = joined_value(a, eq)) != 0)
			break;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--watch")) {
			o->watch = true, o->report_flag = a;
		} else if (!strcmp(a, "--pretty")) {
			o->pretty = true, o->report_flag = a;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = true;
		} else if (!strcmp(a, "--server") && v) {
			o->server.url = v, i += take;
		} else if (!strcmp(a, "--token-file") && v) {
			o->server.token_file = v, i += take;
		} else if (!strcmp(a, "--nvml") && v) {
			o->nvml = v, o->report_flag = a, i += take;
		} else if (!strcmp(a, "--assess") && v) {
			o->assess = v, i += take;
		} else if (!strcmp(a, "--node") && v) {
			node = v, o->report_flag = a, i += take;
		} else if (!strcmp(a, "--interval")) {
			rc = number(a, v, 1, 86400, &o->interval_s), o->watch_flag = o->report_flag = a, i += take;
		} else if (!strcmp(a, "--count")) {
			rc = number(a, v, 1, 1000000000, &o->count), o->watch_flag = o->report_flag = a, i += take;
		} else if (!strcmp(a, "--nvlinks")) {
			rc = number(a, v, 0, NVML_NVLINK_MAX_LINKS, &o->nvlinks), o->report_flag = a, i += take;
		} else if (!strcmp(a, "--probation")) {
			rc = number(a, v, 1, 365 * 86400L, &y), o->health.probation_s = y, i += take;
		} else if (!strcmp(a, "--flap-window")) {
			rc = number(a, v, 1, 365 * 86400L, &y), o->health.flap_window_s = y, i += take;
		} else if (!strcmp(a, "--flap-hold")) {
			rc = number(a, v, 1, 365 * 86400L, &y), o->health.flap_hold_s = y, i += take;
		} else if (!strcmp(a, "--flap-threshold")) {
			rc = number(a, v, 1, 100, &y), o->health.flap_threshold = (int32_t)y, i += take;
		} else if (!strcmp(a, "--wait")) {
			rc = number(a, v, 0, 3600000, &x), o->report_flag = a, i += take;
			o->wait_ms = (unsigned)x;
		} else {
			char hint[96];
			fprintf(stderr, "fairway-agent: unknown or incomplete option \"%s\"%s; see --help\n", a,
				fw_cli_hint(a, agent_flags, hint, sizeof hint));
			rc = 2;
		}
	}
	if (!rc && o->watch && x < 0)
		o->wait_ms = (unsigned)o->interval_s * 1000u;
	if (!rc)
		rc = check_modes(o);
	if (!rc)
		rc = set_node(o, node);
	return rc ? rc : check_server(o);
}

static void print(const struct opts *o, const struct fw_agent_report *r)
{
	json_t *j;

	if (o->quiet)
		return;
	j = fw_agent_to_json(r);
	json_dumpf(j, stdout, (o->pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(j);
}

/* The saved report of --assess, parsed; NULL after saying why: a file
 * that cannot be read (named with the flag and the OS reason), or the
 * line where its JSON breaks. */
static json_t *load_report(const char *path)
{
	struct stat st;
	json_error_t je;
	json_t *j;
	FILE *f = fopen(path, "r");

	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
		fclose(f), f = NULL, errno = EISDIR;
	if (!f) {
		fprintf(stderr, "fairway-agent: --assess %s: cannot read: %s\n", path, strerror(errno));
		return NULL;
	}
	j = json_loadf(f, 0, &je);
	fclose(f);
	if (!j)
		fprintf(stderr, "fairway-agent: %s:%d: %s\n", path, je.line, je.text);
	return j;
}

static int assess(const struct opts *o)
{
	struct fw_agent_report r;
	struct fw_health_config c;
	struct fw_health_rec node, gpu[FW_AGENT_MAX_GPUS];
	char why[256];
	json_t *j = load_report(o->assess);

	if (!j)
		return 1;
	if (fw_agent_from_json(j, &r, why, sizeof why) != FW_OK) {
		fprintf(stderr, "fairway-agent: %s: %s\n", o->assess, why);
		json_decref(j);
		return 1;
	}
	json_decref(j);
	c = o->health;
	fw_health_rec_init(&node);
	for (int i = 0; i < FW_AGENT_MAX_GPUS; i++)
		fw_health_rec_init(&gpu[i]);
	fw_agent_fold(&c, &node, gpu, &r);
	j = json_pack("{s:s,s:I,s:s,s:o,s:o}", "node", r.node, "time", (json_int_t)r.time, "node_health",
		      fw_health_name(r.node_health), "bad_gpus", json_array(), "suspect_gpus", json_array());
	for (int g = 0; g < r.ngpus; g++) {
		if (r.bad_mask & (1u << g))
			json_array_append_new(json_object_get(j, "bad_gpus"), json_integer(g));
		if (r.suspect_mask & (1u << g))
			json_array_append_new(json_object_get(j, "suspect_gpus"), json_integer(g));
	}
	json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(j);
	return 0;
}

/* No NVML here: say so (stderr and the report) and succeed. */
static int no_nvml(const struct opts *o, const char *why)
{
	struct fw_agent_report r;

	memset(&r, 0, sizeof r);
	snprintf(r.node, sizeof r.node, "%s", o->node);
	snprintf(r.why, sizeof r.why, "%s", why);
	r.time = (int64_t)time(NULL);
	fprintf(stderr, "fairway-agent: no NVIDIA GPUs to report on this machine (%s)%s%s\n", why,
		o->server.url ? "; nothing sent to " : "", o->server.url ? o->server.url : "");
	print(o, &r);
	return 0;
}

/* --nvml PATH that is not NVML (missing, not a library, lacking a
 * symbol): the operator's mistake, not a machine without GPUs.  A unit
 * with Restart=always would otherwise report "no GPUs" forever. */
static int bad_nvml(const struct opts *o, const char *why)
{
	fprintf(stderr, "fairway-agent: --nvml %s: %s; give the path of the driver's libnvidia-ml.so.1 "
			"(ldconfig -p | grep libnvidia-ml), or drop --nvml to load it from the library path\n",
		o->nvml, why);
	return 2;
}

/* --watch: sleep out the rest of the interval (an XID ends the wait for
 * events early), unless this was the last report. */
static void pace(const struct opts *o, int64_t started, long k)
{
	int64_t left = started + o->interval_s - (int64_t)time(NULL);
	struct timespec ts = { 0, 0 };

	if (stop || (o->count && k + 1 >= o->count) || left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	while (nanosleep(&ts, &ts) != 0 && !stop)
		;
}

/* --server: send one folded report.  0, or 1 with the reason on stderr;
 * in --watch it announces the next try unless this was the last report
 * (--count reached, or a signal). */
static int deliver(const struct opts *o, const struct fw_agent_report *r, bool last)
{
	char why[1024], at[FW_TIME_TEXT_MAX], next[FW_SPAN_MAX];
	json_t *body;
	int rc;

	if (!o->server.url)
		return 0;
	body = fw_agent_health_body(r);
	rc = fw_agent_post(&o->server, r->node, body, why, sizeof why);
	json_decref(body);
	if (rc == FW_OK)
		return 0;
	if (o->watch && !last)
		fprintf(stderr, "fairway-agent: report of %s not sent: %s; next try in %s\n",
			fw_utc_format(r->time, at, sizeof at), why, fw_span_format(o->interval_s, next, sizeof next));
	else if (o->watch)
		fprintf(stderr, "fairway-agent: report of %s not sent: %s; that was the last report\n",
			fw_utc_format(r->time, at, sizeof at), why);
	else
		fprintf(stderr, "fairway-agent: report not sent: %s\n", why);
	return 1;
}

static int run(const struct opts *o, struct fw_nvml *n)
{
	struct fw_health_config c;
	struct fw_health_rec node, gpu[FW_AGENT_MAX_GPUS];
	struct fw_agent_events ev;
	struct fw_agent_report r;
	unsigned count = 0;
	int rc = 0;

	c = o->health;
	fw_health_rec_init(&node);
	for (int i = 0; i < FW_AGENT_MAX_GPUS; i++)
		fw_health_rec_init(&gpu[i]);
	if (n->count(&count) != NVML_SUCCESS || fw_agent_events_open(n, &ev, (int)count) != FW_OK)
		memset(&ev, 0, sizeof ev);
	ev.nvlinks = (int)o->nvlinks;
	for (long k = 0; !stop && (!o->watch || !o->count || k < o->count); k++) {
		memset(&r, 0, sizeof r);
		snprintf(r.node, sizeof r.node, "%s", o->node);
		r.time = (int64_t)time(NULL);
		ev.repaired = repaired;
		repaired = 0;
		if (fw_agent_collect(n, &ev, o->wait_ms, &r) != FW_OK) {
			fprintf(stderr, "fairway-agent: %s\n", r.why);
			rc = 1;
			break;
		}
		fw_agent_fold(&c, &node, gpu, &r);
		print(o, &r);
		rc = deliver(o, &r, stop || (o->count && k + 1 >= o->count)); /* --watch: the last one's outcome */
		if (!o->watch)
			break;
		pace(o, r.time, k);
	}
	fw_agent_events_close(n, &ev);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct fw_nvml n;
	char why[512];
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc;
	if (o.assess)
		return assess(&o);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	if ((rc = fw_nvml_open(&n, o.nvml, why, sizeof why)) != FW_OK)
		return rc == FW_ENOENT && o.nvml ? bad_nvml(&o, why) : no_nvml(&o, why);
	if (o.server.url)
		curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = run(&o, &n);
	fw_nvml_close(&n);
	if (o.server.url)
		curl_global_cleanup();
	return rc;
}
