/*
 * fuzz_query.c — libFuzzer target for the daemon's reading of a raw
 * query string (connectors/serve/api.c: each route's parameters,
 * ?state= ?limit= ?offset= ?reason= ?health= ?kind= ?since= ?dryRun= ...,
 * and the refusal of one a route does not take).  fuzz_serve sends only
 * the values it knows; here any bytes are the query.
 *
 * One daemon (fw_serve_open on the local backend, the real start-up) is
 * opened per process, given jobs (some waiting, some running), a
 * reservation and two cycles, then never changed: every request sent is
 * a GET, or a POST /v1/jobs whose job the daemon refuses after its
 * query is read (its queue does not exist).  Each input: the first byte
 * picks a route (ROUTES), the rest is the query string as it follows the
 * '?', split as the HTTP layer splits it (http.c over libmicrohttpd: '&'
 * between parameters, the first '=' between a name and its value, %XX
 * decoded, a parameter named twice or past the 16th refused there, state
 * and limit handed over apart).  Then:
 *   - the answer is never a 5xx, and is JSON: on a 4xx, an error object
 *     with a code, a message and the field (the parameter) it refuses;
 *   - asked twice, the same query gets the same answer, byte for byte;
 *   - a listing answered 200 with ?limit=N holds at most N entries, and N
 *     was a whole number in plain digits, 1 to 100000 (" 5" or "+5" is
 *     refused, as every other number parameter refuses it).
 * Built with -fsanitize=fuzzer under clang, and as fuzz_replay_query with
 * replay.c over tests/fuzz/corpus/query in every test run; the daemon's
 * state directory is made under $TMPDIR (default /tmp) and removed at
 * exit.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local.h"
#include "serve_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char config_yaml[] =
	"now: 0\n"
	"topology:\n  levels: [rack]\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}}\n"
	"  - {name: n1, gpus: 4, gpuModel: A100, cpu: 64, memory: 512Gi, topology: {rack: r1}}\n"
	"queues:\n"
	"  - {name: a, resources: {gpu: {quota: 8}}}\n"
	"  - {name: b, resources: {gpu: {quota: 4, limit: 4}}}\n";

/* Each route and the list a 200 holds (NULL: none checked). */
static const struct route {
	const char *method, *path, *list;
} ROUTES[] = {
	{ "GET", "/v1/jobs", "jobs" },
	{ "GET", "/v1/nodes", "nodes" },
	{ "GET", "/v1/reservations", "reservations" },
	{ "GET", "/v1/plan", "decisions" },
	{ "GET", "/v1/decisions", "decisions" },
	{ "POST", "/v1/jobs", NULL },
	{ "GET", "/v1/queues", "queues" },
	{ "GET", "/v1/jobs/j0", NULL },
};
#define NROUTES (sizeof ROUTES / sizeof ROUTES[0])

/* A job the daemon refuses after reading the query: no queue "nosuch". */
static const char REFUSED_JOB[] = "{\"name\":\"probe\",\"queue\":\"nosuch\",\"tasks\":[{\"count\":1,\"gpus\":1}]}";

static fw_time g_now = 1000000;

static fw_time fuzz_clock(void)
{
	return g_now;
}

static struct fw_serve g_d;
static struct fw_serve_opts g_o;
static char g_dir[256], g_auth[300];

static void die(const char *what, const char *query, const char *body)
{
	fprintf(stderr, "fuzz_query: %s\n--- query ---\n%s\n--- answer ---\n%s\n", what, query ? query : "",
		body ? body : "");
	abort();
}

static unsigned send(const char *method, const char *path, const char *body, const char *state, const char *limit,
		     const char *const *args, char **answer)
{
	struct fw_api_req rq = { method, path, state, limit, g_auth, body ? body : "", body ? strlen(body) : 0,
				 args, body ? "application/json" : NULL };
	struct fw_api_resp rs;

	fw_api_handle(&g_d, &rq, &rs);
	*answer = rs.body;
	return rs.status;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

static void close_daemon(void)
{
	fw_serve_close(&g_d);
	fw_serve_set_clock(NULL);
	nftw(g_dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* The daemon, its jobs (some that fit, some that wait), a reservation to
 * come, and two cycles' plans and decisions. */
static void open_daemon(void)
{
	static const char *const jobs[] = {
		"{\"name\":\"j0\",\"queue\":\"a\",\"user\":\"ann\",\"runtime\":3600,\"tasks\":[{\"count\":1,\"gpus\":4}]}",
		"{\"name\":\"j1\",\"queue\":\"a\",\"user\":\"bob\",\"runtime\":600,\"tasks\":[{\"count\":1,\"gpus\":2}]}",
		"{\"name\":\"j2\",\"queue\":\"b\",\"user\":\"ann\",\"runtime\":600,\"tasks\":[{\"count\":1,\"gpus\":4}]}",
		"{\"name\":\"j3\",\"queue\":\"b\",\"user\":\"cy\",\"runtime\":600,\"tasks\":[{\"count\":1,\"gpus\":4}]}",
		"{\"name\":\"j4\",\"queue\":\"a\",\"runtime\":600,\"array\":\"0-2\",\"tasks\":[{\"count\":1,\"gpus\":1}]}",
		"{\"name\":\"j5\",\"queue\":\"a\",\"runtime\":60,\"tasks\":[{\"count\":1,\"gpus\":8}]}",
	};
	const char *tmp = getenv("TMPDIR");
	struct fw_arena ar;
	char err[1024] = "", *answer, rsv[160];

	snprintf(g_dir, sizeof g_dir, "%s/fw-fuzz-query.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_dir))
		die("mkdtemp failed", g_dir, NULL);
	fw_serve_set_clock(fuzz_clock);
	g_o.embedded_yaml = config_yaml;
	g_o.embedded_len = sizeof config_yaml - 1;
	g_o.listen_host = "127.0.0.1";
	g_o.state_dir = g_dir;
	g_o.period_s = 1;
	g_o.backend = &fw_backend_local;
	if (fw_serve_open(&g_d, &g_o, err, sizeof err) != FW_OK)
		die("the daemon did not open", err, NULL);
	snprintf(g_auth, sizeof g_auth, "Bearer %s", g_d.token);
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		if (send("POST", "/v1/jobs", jobs[i], NULL, NULL, NULL, &answer) / 100 != 2)
			die("a job of the setup was refused", jobs[i], answer);
		free(answer);
	}
	snprintf(rsv, sizeof rsv, "{\"kind\":\"maintenance\",\"nodes\":[\"n1\"],\"start\":%lld,\"end\":%lld}",
		 (long long)g_now + 7200, (long long)g_now + 10800);
	if (send("POST", "/v1/reservations", rsv, NULL, NULL, NULL, &answer) / 100 != 2)
		die("the setup's reservation was refused", rsv, answer);
	free(answer);
	fw_arena_init(&ar, 0);
	for (int i = 0; i < 2; i++, g_now += 30)
		fw_serve_cycle_once(&g_d, &ar);
	fw_arena_release(&ar);
	atexit(close_daemon);
}

/* ---- the query, split as http.c and libmicrohttpd split it ---- */

#define MAX_ARGS 16 /* http.c FW_HTTP_ARGS */

struct query {
	char buf[1024];
	const char *kv[2 * MAX_ARGS + 1]; /* the parameters but state and limit */
	const char *state, *limit;
	int n;
};

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* %XX decoded in place (a NUL decoded ends the string, as MHD's C
 * strings end there). */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++)
		if (*s == '%' && hex(s[1]) >= 0 && hex(s[2]) >= 0) {
			*w++ = (char)(hex(s[1]) << 4 | hex(s[2]));
			s += 2;
		} else {
			*w++ = *s;
		}
	*w = '\0';
}

/* false: the HTTP layer answers 400 itself (a name twice, over 16). */
static bool split(struct query *q, const uint8_t *p, size_t n)
{
	const char *seen[MAX_ARGS];
	int nseen = 0;
	char *save = NULL;

	if (n >= sizeof q->buf)
		n = sizeof q->buf - 1;
	memcpy(q->buf, p, n);
	q->buf[n] = '\0';
	q->state = q->limit = NULL;
	q->n = 0;
	for (char *t = strtok_r(q->buf, "&", &save); t; t = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(t, '=');
		const char *v = "";
		if (eq) {
			*eq = '\0';
			v = eq + 1;
			unescape(eq + 1);
		}
		unescape(t);
		for (int i = 0; i < nseen; i++)
			if (!strcmp(seen[i], t))
				return false;
		if (nseen == MAX_ARGS)
			return false;
		seen[nseen++] = t;
		if (!strcmp(t, "state"))
			q->state = v;
		else if (!strcmp(t, "limit"))
			q->limit = v;
		else {
			q->kv[2 * q->n] = t;
			q->kv[2 * q->n + 1] = v;
			q->n++;
		}
	}
	q->kv[2 * q->n] = NULL;
	return true;
}

/* ---- the checks ---- */

static bool plain_whole(const char *v, long lo, long hi)
{
	long x = 0;

	if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 9)
		return false;
	x = strtol(v, NULL, 10);
	return x >= lo && x <= hi;
}

static void check(const struct route *r, const struct query *q, const char *text, unsigned status, const char *body)
{
	json_error_t je;
	json_t *o = json_loads(body ? body : "", 0, &je), *e = json_object_get(o, "error");

	if (status >= 500)
		die("a 5xx answer", text, body);
	if (!json_is_object(o))
		die("an answer that is not a JSON object", text, body);
	if (status >= 400 && (!json_string_length(json_object_get(e, "code")) ||
			      !json_string_length(json_object_get(e, "message")) ||
			      !json_is_string(json_object_get(e, "field"))))
		die("a refusal without a code, a message and a field", text, body);
	if (status == 200 && r->list && q->limit) {
		if (!plain_whole(q->limit, 1, 100000))
			die("a limit taken that is not a whole number from 1 to 100000 in plain digits", text, body);
		if (json_array_size(json_object_get(o, r->list)) > (size_t)strtol(q->limit, NULL, 10))
			die("a listing longer than its limit", text, body);
	}
	json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct query q;
	const struct route *r;
	char text[1024], *a1 = NULL, *a2 = NULL;
	unsigned s1, s2;

	if (!g_dir[0])
		open_daemon();
	if (size == 0)
		return 0;
	r = &ROUTES[data[0] % NROUTES];
	snprintf(text, sizeof text, "%s %s?%.*s", r->method, r->path, (int)(size - 1 > 900 ? 900 : size - 1),
		 (const char *)data + 1);
	if (!split(&q, data + 1, size - 1))
		return 0;
	const char *body = strcmp(r->method, "GET") ? REFUSED_JOB : NULL;
	s1 = send(r->method, r->path, body, q.state, q.limit, q.n ? q.kv : NULL, &a1);
	s2 = send(r->method, r->path, body, q.state, q.limit, q.n ? q.kv : NULL, &a2);
	check(r, &q, text, s1, a1);
	if (s1 != s2 || strcmp(a1 ? a1 : "", a2 ? a2 : ""))
		die("the same query answered twice differently", text, a2);
	free(a1);
	free(a2);
	return 0;
}
