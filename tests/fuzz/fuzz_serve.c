/*
 * fuzz_serve.c — libFuzzer target for `fairway serve` as a whole: any
 * bytes become a session of API requests, cycles, clock steps and
 * restarts against a daemon on the local backend, and the daemon must
 * keep the promises docs/serve.md makes about its model and its store.
 *
 * Each input opens a daemon (fw_serve_open: the real start-up path, a
 * fresh state directory, a three-node config with two GPU models, racks,
 * node labels and a queue tree) and plays
 * up to 24 steps, one byte choosing each: submit (now and then a job
 * array, POST /v1/jobs with "array", or a job named as an array's task,
 * jN_1) or cancel a job; put, patch, create or delete a queue (its GPU
 * model limit now and then in another case than the fleet's, h100); create or delete a reservation; report
 * a node's health; read a listing, /metrics or /v1/fairshare; run a cycle
 * (fw_serve_cycle_once); move the clock; send a body of raw bytes to a
 * route; or restart (close, reopen on the same directory), cleanly or as
 * after a crash, on the same fleet or on the other one (config_b_yaml:
 * n1 gone, n2 relabelled; and back).  Values come
 * from the stream, one read per statement (as in fuzz_cycle).  Then:
 *   - no answer is a 5xx (but 503 EAGAIN before the first cycle's view,
 *     for what needs one), and every answer is JSON (text for /metrics);
 *   - a refused request (4xx) says why: an error object with a code and a
 *     message;
 *   - a refused write changes nothing: the queues, jobs, reservations and
 *     nodes read the same before and after it, byte for byte (nothing
 *     half-applied; the backend reads at that time first, which ends the
 *     jobs whose runtime has passed, as any read does); nor does a dry
 *     run of a submission (POST /v1/jobs?dryRun=true, one submission in
 *     eleven or so), whose 200 shows the job waiting with a reason or
 *     starting on nodes;
 *   - a restart loses nothing: the model read back after it equals the
 *     model before it (the last cycle's view aside: a restarted daemon
 *     has not planned yet, so each job's reason, estimate and the like
 *     are left out of that comparison; docs/serve.md, The store); after a
 *     crash (no clean stop), all but the usage accrued since its last
 *     save (every 10 s) is there;
 *   - a restart onto the other fleet loses nothing either: every job is
 *     still there and reads the same, but for a job that was running on
 *     a node the new fleet lacks, which is pending again or ended at a
 *     limit that passed (docs/serve.md, The store); queues, reservations,
 *     health reports and usage read the same.
 * Inputs of odd size run the local backend with min-job-age=600 (clock
 * steps are 30 s to 2 h): a read may forget the jobs that ended 10 min
 * ago, from memory and store alike, so a restart (which reads nothing
 * until its first cycle) still loses nothing, and a forgotten job's name
 * may be submitted again.  Inputs whose size leaves 2 or 3 over 4 run
 * with --log-keep 3600: every cycle deletes the decision-log and usage
 * history rows older than an hour, so a job's decisions may thin out
 * between two cycles, never across a restart.
 * Every reading also checks the filtered listings against the whole
 * ones: the job list by a queue, a user, a reason or an array (?queue=,
 * ?user=, ?reason=, ?array=), the node list by a health state, by degraded or by lemon
 * (?health=), the last plan by each kind and each job, queue and node it
 * names (?kind=, ?job=, ?queue=, ?node=) and cut at one (?limit=1); and GET
 * /v1/decisions for a job (?job=, ?since= its submission) against the
 * decisions GET /v1/jobs/{name} shows.  After every cycle, what the local
 * backend runs fits the fleet: no GPU given twice, none a node lacks;
 * and /metrics' per-queue counters agree with the totals: every start is
 * in one queue's and one job size's time-to-start histogram, the
 * requeued list is in name order with none of its jobs running, and the
 * GPU-hours never fall.
 * Inputs whose size leaves 2 over 7 send one request between a cycle's
 * plan and its apply (a cancel most often, a submission, a health
 * report, a delete), as the API's threads may: the plan is applied only
 * when it still fits (plan_holds, local.c) and the check above holds.
 * Any failure aborts with both readings on stderr.  Replayed as
 * fuzz_replay_serve over tests/fuzz/corpus/serve in every test run; each
 * input makes and removes its own directory under $TMPDIR (default /tmp).
 * FUZZ_SERVE_VERBOSE=1 prints every write with its answer, each cycle and
 * each restart on stderr.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "backend.h"
#include "codec.h"
#include "local.h"
#include "serve.h"
#include "serve_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char config_yaml[] =
	"now: 0\n"
	"topology:\n  levels: [rack]\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}, labels: {zone: a}}\n"
	"  - {name: n1, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}, labels: {zone: b}}\n"
	"  - {name: n2, gpus: 4, gpuModel: A100, cpu: 64, memory: 512Gi, topology: {rack: r1}, labels: {ib: \"\"}}\n"
	"queues:\n"
	"  - {name: org, resources: {gpu: {quota: 16}}}\n"
	"  - {name: a, parent: org, resources: {gpu: {quota: 8}}}\n"
	"  - {name: b, parent: org, resources: {gpu: {quota: 8, limit: 12}}}\n"
	"  - {name: c, resources: {gpu: {quota: 4}}}\n";

/* The fleet a restart may change to, and back: n1 gone (a running job
 * with a task there is requeued, or ends at a limit that passed), n2
 * relabelled (its ib label gone: a waiting job that asks for it is left
 * out of the plans, not lost). */
static const char config_b_yaml[] =
	"now: 0\n"
	"topology:\n  levels: [rack]\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}, labels: {zone: a}}\n"
	"  - {name: n2, gpus: 4, gpuModel: A100, cpu: 64, memory: 512Gi, topology: {rack: r1}, labels: {zone: b}}\n"
	"queues:\n"
	"  - {name: org, resources: {gpu: {quota: 16}}}\n"
	"  - {name: a, parent: org, resources: {gpu: {quota: 8}}}\n"
	"  - {name: b, parent: org, resources: {gpu: {quota: 8, limit: 12}}}\n"
	"  - {name: c, resources: {gpu: {quota: 4}}}\n";

/* ---- the daemon ------------------------------------------------------------- */

static fw_time g_now;

static fw_time fuzz_clock(void)
{
	return g_now;
}

struct session {
	struct fw_serve d;
	struct fw_serve_opts o;
	struct fw_arena ar;
	char dir[256];
	char auth[300];
	bool up;
	bool interleave;              /* requests between plan and apply */
	double gpu_s;                 /* the GPU-seconds the per-queue counters
				       * held at the last cycle (this open's) */
};

static void die(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "fuzz_serve: %s\n--- before ---\n%s\n--- after ---\n%s\n", what, a ? a : "",
		b ? b : "");
	abort();
}

static void open_daemon(struct session *x)
{
	char err[1024] = "";

	if (fw_serve_open(&x->d, &x->o, err, sizeof err) != FW_OK)
		die("the daemon did not open", err, NULL);
	snprintf(x->auth, sizeof x->auth, "Bearer %s", x->d.token);
	x->up = true;
	x->gpu_s = 0; /* a new daemon counts from 0 */
}

/* clean: as SIGTERM stops it (the usage saved); else as a crash (what
 * the store committed stays, the usage since its last save is lost). */
static void close_daemon(struct session *x, bool clean)
{
	if (x->up && clean && fw_serve_save_usage_now(&x->d) != FW_OK)
		die("the usage was not saved", NULL, NULL);
	fw_serve_close(&x->d);
	x->up = false;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* ---- requests ------------------------------------------------------------------ */

struct answer {
	unsigned status;
	char *body;
};

static struct answer call_as(struct session *x, const char *method, const char *path, const char *state,
			     const char *body, size_t len, const char *const *args)
{
	struct fw_api_req rq = { method, path, state, NULL, x->auth, body ? body : "", body ? len : 0, args, NULL };
	struct fw_api_resp rs;

	fw_api_handle(&x->d, &rq, &rs);
	if (getenv("FUZZ_SERVE_VERBOSE") && strcmp(method, "GET"))
		fprintf(stderr, "%s %s %.*s -> %u %s\n", method, path, (int)len, body ? body : "", rs.status,
			rs.body ? rs.body : "");
	/* 503 EAGAIN: what needs a cycle's view before the first cycle */
	bool early = rs.status == 503 && rs.body && strstr(rs.body, "\"EAGAIN\"") && !x->d.view;
	if ((rs.status >= 500 && !early) || !rs.body)
		die("a 5xx answer (or none)", path, rs.body);
	if (strcmp(path, "/metrics")) {
		json_error_t je;
		json_t *o = json_loads(rs.body, 0, &je);
		if (!o)
			die("an answer that is not JSON", path, rs.body);
		json_t *e = json_object_get(o, "error");
		if (rs.status >= 400 && (!json_is_object(e) || !json_string_length(json_object_get(e, "code")) ||
					 !json_string_length(json_object_get(e, "message"))))
			die("a refusal that does not say why", path, rs.body);
		json_decref(o);
	}
	return (struct answer){ rs.status, rs.body };
}

static struct answer call(struct session *x, const char *method, const char *path, const char *body, size_t len)
{
	return call_as(x, method, path, NULL, body, len, NULL);
}

/* The job fields a cycle's view sets (reason, estimate, ...), and those
 * that follow the queues' limits as of the last cycle (timeLimit,
 * expectedEnd; a job no cycle saw gets them from the queues as they are
 * now): left out when a reading is compared across a restart. */
static const char *const VIEW_KEYS[] = { "reason", "reasonText", "expectedStart", "reservedAt", "unknownWhy",
					 "unknownWhyText", "ahead", "timeLimit", "expectedEnd", NULL };

/* An entry's name: "name", or a health report's "node". */
static const char *name_of(const json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "name"));
	return s ? s : json_string_value(json_object_get(o, "node"));
}

static int by_name(const void *a, const void *b)
{
	const char *x = name_of(*(json_t *const *)a), *y = name_of(*(json_t *const *)b);
	return strcmp(x ? x : "", y ? y : "");
}

/* A listing's order is the last plan's (jobs: the queue order it
 * planned in); a restarted daemon lists by name until it plans. */
static void sort_by_name(json_t *arr)
{
	size_t n = json_array_size(arr);
	json_t **v = calloc(n + 1, sizeof *v);

	if (!v)
		die("out of memory", NULL, NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof *v, by_name);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

/* What a reading holds: everything; what a clean restart keeps; what a
 * crash keeps (all but the usage since its last save, every 10 s). */
enum scope { ALL, MODEL, COMMITTED };

static const char *const USAGE_KEYS[] = { "usage", "usageAt", "usageGpuHours", NULL };

/* The health reports and users' usage the daemon holds (the store's
 * documents; `received` is not stored), in its order. */
static void add_model(struct session *x, json_t *all, enum scope sc)
{
	json_t *h = json_array(), *u = json_array();

	for (int32_t i = 0; i < x->d.nhealth; i++)
		json_array_append_new(h, fw_codec_health_dump(&x->d.health[i]));
	for (int32_t i = 0; sc != COMMITTED && i < x->d.nusers; i++)
		json_array_append_new(u, fw_codec_user_use_dump(&x->d.users[i]));
	sort_by_name(h);
	json_object_set_new(all, "health", h);
	json_object_set_new(all, "users", u);
}

/* Queues, jobs, reservations and nodes as the API lists them, and the
 * health reports and usage held, as one JSON text (malloc'd).  Past ALL,
 * what must outlive a restart: no node listing (it is the last cycle's
 * view, which a restarted daemon has yet to make). */
/* The entries of list whose member key is v, in its order (new array). */
static json_t *entries_of(const json_t *list, const char *key, const char *v)
{
	json_t *out = json_array(), *e;
	size_t i;

	json_array_foreach(list, i, e) {
		const char *w = json_string_value(json_object_get(e, key));
		if (w && !strcmp(w, v))
			json_array_append(out, e);
	}
	return out;
}

/* Is e the first entry of list whose member key is v? */
static bool first_of(const json_t *list, const char *key, const char *v, const json_t *e)
{
	json_t *earlier = entries_of(list, key, v);
	bool first = json_array_get(earlier, 0) == e;

	json_decref(earlier);
	return first;
}

/* rq (a listing with one filter, v) answers exactly want (the entries
 * of the whole listing it should keep, in its order; taken) as its array
 * arr. */
static void filter_agrees(struct session *x, const struct fw_api_req *rq, const char *arr, const char *v, json_t *want)
{
	struct fw_api_resp rs;
	json_t *got = NULL;

	fw_api_handle(&x->d, rq, &rs);
	if (rs.status == 200)
		got = json_loads(rs.body, 0, NULL);
	if (!got || !json_equal(json_object_get(got, arr), want))
		die("a filtered listing is not the whole listing's entries of its filter", v, rs.body);
	json_decref(got);
	json_decref(want);
	free(rs.body);
}

/* GET /v1/jobs?state=all filtered by queue, by user, by reason or by
 * array (its tasks' arrayOf), and GET /v1/nodes filtered by health, list
 * exactly the whole list's entries (all, just read from path) of that
 * queue, user, reason, array or state:
 * checked for each one the list names, once. */
static void filters_agree(struct session *x, const char *path, const json_t *all)
{
	bool jobs = !strcmp(path, "/v1/jobs");
	size_t i;
	json_t *e;

	static const char *const JOB_KEYS[][2] = { { "queue", "queue" }, { "user", "user" }, { "reason", "reason" },
						   { "arrayOf", "array" } };

	for (int k = 0; k < (jobs ? 4 : 1); k++) {
		const char *key = jobs ? JOB_KEYS[k][0] : "health", *param = jobs ? JOB_KEYS[k][1] : "health";
		json_array_foreach(all, i, e) {
			const char *v = json_string_value(json_object_get(e, key));
			const char *const args[] = { param, v, NULL };
			struct fw_api_req rq = { "GET", path, jobs ? "all" : NULL, NULL, x->auth, "", 0, args, NULL };
			if (v && first_of(all, key, v, e))
				filter_agrees(x, &rq, jobs ? "jobs" : "nodes", v, entries_of(all, key, v));
		}
	}
	for (int k = 0; !jobs && k < 2; k++) { /* the words beyond the states */
		const char *v = k ? "lemon" : "degraded";
		const char *const args[] = { "health", v, NULL };
		struct fw_api_req rq = { "GET", path, NULL, NULL, x->auth, "", 0, args, NULL };
		json_t *want = json_array();
		json_array_foreach(all, i, e)
			if (k ? json_is_true(json_object_get(e, "lemon")) : json_array_size(json_object_get(e, "badGpus")) > 0)
				json_array_append(want, e);
		filter_agrees(x, &rq, "nodes", v, want);
	}
}

/* ---- the plan narrowed ---- */

/* A member of a plan entry e as GET /v1/plan's filter key reads it: a
 * decision's kind, job, or its job's queue (the view's), a waiting
 * job's "pending", name or queue; NULL: none (a drain's job and queue). */
static const char *plan_member(struct session *x, const json_t *e, bool decision, const char *key)
{
	const char *job = json_string_value(json_object_get(e, decision ? "job" : "name"));
	const json_t *j = json_object_get(json_object_get(x->d.view, "jobs"), job ? job : "");

	if (!strcmp(key, "kind"))
		return decision ? json_string_value(json_object_get(e, "kind")) : "pending";
	if (!strcmp(key, "job"))
		return job && *job ? job : NULL;
	return json_string_value(json_object_get(decision ? j : e, "queue"));
}

/* Does decision e name node v (a drain's node, a task's)? */
static bool names_node(const json_t *e, const char *v)
{
	size_t i;
	json_t *n;

	if (!strcmp(json_string_value(json_object_get(e, "node")) ?: "", v))
		return true;
	json_array_foreach(json_object_get(e, "nodes"), i, n)
		if (!strcmp(json_string_value(n) ?: "", v))
			return true;
	return false;
}

/* The whole plan's entries that pass ?key=v (a waiting job names no
 * node), cut at limit (0: none): {"decisions", "pending"[, "truncated"]}. */
static json_t *plan_entries(struct session *x, const json_t *plan, const char *key, const char *v, size_t limit)
{
	json_t *want = json_pack("{s:[],s:[]}", "decisions", "pending"), *e;
	const char *part[2] = { "decisions", "pending" };

	for (int d = 0; d < 2; d++) {
		size_t i;
		json_t *out = json_object_get(want, part[d]);
		json_array_foreach(json_object_get(plan, part[d]), i, e) {
			const char *m = !key ? NULL : strcmp(key, "node") ? plan_member(x, e, !d, key) : NULL;
			if (key && !(m ? !strcmp(m, v) : !d && !strcmp(key, "node") && names_node(e, v)))
				continue;
			if (limit && json_array_size(out) == limit) {
				json_object_set_new(want, "truncated", json_true());
				break;
			}
			json_array_append(out, e);
		}
	}
	return want;
}

/* GET /v1/plan?key=v (and ?limit=limit) answers want (taken): its
 * decisions, pending and truncated, and the whole plan's fair share. */
static void plan_agrees(struct session *x, const json_t *plan, const char *key, const char *v, const char *limit,
			json_t *want)
{
	static const char *const WHOLE[] = { "cycle", "at", "generation", "seconds", "fairshare" };
	const char *const args[] = { key, v, NULL };
	struct fw_api_req rq = { "GET", "/v1/plan", NULL, limit, x->auth, "", 0, key ? args : NULL, NULL };
	struct fw_api_resp rs;
	json_t *got = NULL;

	fw_api_handle(&x->d, &rq, &rs);
	if (rs.status == 200)
		got = json_loads(rs.body, 0, NULL);
	for (int k = 0; k < 5; k++) /* the plan's own figures stay whole */
		json_object_set(want, WHOLE[k], json_object_get(plan, WHOLE[k]));
	if (!got || !json_equal(got, want))
		die("a narrowed plan is not the whole plan's entries of its filter", v ? v : limit, rs.body);
	json_decref(got);
	json_decref(want);
	free(rs.body);
}

/* GET /v1/plan narrowed by each kind, and by each job, queue and node
 * the whole plan names (once each), and cut at 1, lists exactly the
 * whole plan's entries that pass. */
static void plan_filters_agree(struct session *x)
{
	static const char *const KINDS[] = { "start", "evict", "reserve", "drain", "pending" };
	static const char *const KEYS[] = { "job", "queue" };
	struct answer a = call(x, "GET", "/v1/plan", NULL, 0);
	json_t *plan = a.status == 200 ? json_loads(a.body, 0, NULL) : NULL, *seen = json_object(), *e;

	free(a.body);
	for (size_t k = 0; plan && k < sizeof KINDS / sizeof KINDS[0]; k++)
		plan_agrees(x, plan, "kind", KINDS[k], NULL, plan_entries(x, plan, "kind", KINDS[k], 0));
	for (int d = 0; plan && d < 2; d++) {
		size_t i, n;
		json_t *nd;
		json_array_foreach(json_object_get(plan, d ? "pending" : "decisions"), i, e) {
			for (size_t k = 0; k < 2; k++) {
				const char *v = plan_member(x, e, !d, KEYS[k]);
				char key[160];
				snprintf(key, sizeof key, "%s=%s", KEYS[k], v ? v : "");
				if (v && !json_object_get(seen, key) && !json_object_set_new(seen, key, json_true()))
					plan_agrees(x, plan, KEYS[k], v, NULL, plan_entries(x, plan, KEYS[k], v, 0));
			}
			json_array_foreach(json_object_get(e, "nodes"), n, nd) {
				char key[160];
				snprintf(key, sizeof key, "node=%s", json_string_value(nd));
				if (!json_object_get(seen, key) && !json_object_set_new(seen, key, json_true()))
					plan_agrees(x, plan, "node", json_string_value(nd), NULL,
						    plan_entries(x, plan, "node", json_string_value(nd), 0));
			}
		}
	}
	if (plan)
		plan_agrees(x, plan, NULL, NULL, "1", plan_entries(x, plan, NULL, NULL, 1));
	json_decref(seen);
	json_decref(plan);
}

/* GET /v1/decisions?job=NAME&since=SUBMIT&limit=10 gives the rows GET
 * /v1/jobs/NAME shows as the job's decisions (the log's last ten since
 * its submission), member for member: checked for each job of the whole
 * list (all, just read). */
static void decisions_agree(struct session *x, const json_t *all)
{
	static const char *const MEMBERS[] = { "kind", "at", "cycle", "reason", "text" };
	size_t i, k;
	json_t *e, *d;

	json_array_foreach(all, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		char path[128], since[32];
		if (!name || snprintf(path, sizeof path, "/v1/jobs/%s", name) >= (int)sizeof path)
			continue;
		struct answer a = call_as(x, "GET", path, NULL, NULL, 0, NULL);
		json_t *job = a.status == 200 ? json_loads(a.body, 0, NULL) : NULL;
		free(a.body);
		if (!job)
			continue;
		snprintf(since, sizeof since, "%lld", (long long)json_integer_value(json_object_get(job, "submitTime")));
		const char *const args[] = { "job", name, "since", since, NULL };
		struct fw_api_req rq = { "GET", "/v1/decisions", NULL, "10", x->auth, "", 0, args, NULL };
		struct fw_api_resp rs;
		fw_api_handle(&x->d, &rq, &rs);
		json_t *log = rs.status == 200 ? json_loads(rs.body, 0, NULL) : NULL;
		json_t *want = json_object_get(job, "decisions"), *got = json_object_get(log, "decisions");
		bool same = log && json_array_size(want) == json_array_size(got);
		json_array_foreach(want, k, d)
			for (size_t m = 0; same && m < sizeof MEMBERS / sizeof MEMBERS[0]; m++)
				same = json_equal(json_object_get(d, MEMBERS[m]),
						  json_object_get(json_array_get(got, k), MEMBERS[m]));
		if (!same)
			die("GET /v1/decisions for a job is not what GET /v1/jobs/{name} shows", name, rs.body);
		json_decref(log);
		json_decref(job);
		free(rs.body);
	}
}

static char *reading(struct session *x, enum scope sc)
{
	bool model_only = sc != ALL;

	static const char *const PATHS[] = { "/v1/queues", "/v1/jobs", "/v1/reservations", "/v1/nodes" };
	json_t *all = json_object();

	for (size_t i = 0; i < sizeof PATHS / sizeof PATHS[0] - model_only; i++) {
		/* every job and reservation, ended ones too: the default list
		 * shows a job the last plan timed out only until the next plan,
		 * a reservation only until its end */
		struct answer a = call_as(x, "GET", PATHS[i], i == 1 || i == 2 ? "all" : NULL, NULL, 0, NULL);
		json_t *o = json_loads(a.body, 0, NULL);
		if ((a.status != 200 && a.status != 503) || !o)
			die("a listing failed", PATHS[i], a.body);
		free(a.body);
		json_t *v, *arr = NULL;
		const char *k;
		json_object_foreach(o, k, v) /* {"jobs": [...]} and the like */
			if (json_is_array(v))
				arr = v;
		if ((i == 1 || i == 3) && a.status == 200)
			filters_agree(x, PATHS[i], arr);
		if (i == 1 && a.status == 200)
			decisions_agree(x, arr);
		if (i == 3 && a.status == 200)
			plan_filters_agree(x);
		size_t j;
		json_t *it;
		json_array_foreach(arr, j, it)
			for (int q = 0; model_only && VIEW_KEYS[q] && json_is_object(it); q++)
				json_object_del(it, VIEW_KEYS[q]);
		json_array_foreach(arr, j, it)
			for (int q = 0; sc == COMMITTED && i == 0 && USAGE_KEYS[q]; q++)
				json_object_del(it, USAGE_KEYS[q]);
		if (model_only && arr)
			sort_by_name(arr);
		json_object_set_new(all, PATHS[i], o);
	}
	add_model(x, all, sc);
	char *s = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(all);
	if (!s)
		die("out of memory", NULL, NULL);
	return s;
}

/* One read of the backend at now, as every cycle and several checks
 * make: the local backend ends there the jobs whose runtime or limit has
 * passed (local.c).  Time's doing, not a request's: made before a write's
 * first reading, so that a refused write's own read finds nothing more. */
static void catch_up(struct session *x)
{
	struct fw_snapshot *s = fw_serve_skeleton(&x->d, x->d.queues, x->d.nqueues, g_now);
	struct fw_backend_world w = { 0, 0 };

	if (!s || x->d.bops->read(x->d.be, s, &w, NULL) != FW_OK)
		die("the backend's read failed", NULL, NULL);
	fw_snapshot_free(s);
}

/* A write: refused, it must leave every reading as it was. */
static void write_req(struct session *x, const char *method, const char *path, const char *body, size_t len)
{
	catch_up(x);
	char *before = reading(x, ALL);
	struct answer a = call(x, method, path, body, len);

	if (a.status >= 400) {
		char *after = reading(x, ALL);
		if (strcmp(before, after)) {
			fprintf(stderr, "fuzz_serve: %s %s -> %u %s\nbody: %.*s\n", method, path, a.status, a.body,
				(int)len, body ? body : "");
			die("a refused write changed the model", before, after);
		}
		free(after);
	}
	free(before);
	free(a.body);
}

/* A dry run of a submission (POST /v1/jobs?dryRun=true, sbatch
 * --test-only): whatever it answers, the model reads the same after it
 * (nothing kept, no name used up), and a 200 shows the job, waiting or
 * starting now on nodes. */
static void dry_submit(struct session *x, const char *body, size_t len)
{
	static const char *const dry[] = { "dryRun", "true", NULL };

	catch_up(x);
	char *before = reading(x, ALL);
	struct answer a = call_as(x, "POST", "/v1/jobs", NULL, body, len, dry);
	char *after = reading(x, ALL);

	if (strcmp(before, after))
		die("a dry run changed the model", before, after);
	if (a.status == 200) {
		json_t *o = json_loads(a.body, 0, NULL), *j = json_object_get(o, "job");
		const char *state = json_string_value(json_object_get(j, "state"));
		if (!json_is_true(json_object_get(o, "dryRun")) || !state ||
		    (strcmp(state, "pending") && strcmp(state, "running")) ||
		    (!strcmp(state, "running") && !json_array_size(json_object_get(j, "nodes"))) ||
		    (!strcmp(state, "pending") && !json_object_get(j, "reason")))
			die("a dry run's answer is not a waiting or starting job", body, a.body);
		json_decref(o);
	}
	free(before);
	free(after);
	free(a.body);
}

/* ---- the steps ------------------------------------------------------------------ */

static const char *const QUEUES[] = { "a", "b", "c", "org", "d" };
static const char *const NODES[] = { "n0", "n1", "n2", "n9" };

static void submit(struct session *x, struct bytes *b)
{
	char body[512];
	unsigned f = u8(b), g = u8(b), count = 1 + pick(b, 3), gpus = pick(b, 9), runtime = 60 * pick(b, 120);
	unsigned name = pick(b, 8);
	const char *queue = QUEUES[pick(b, 5)];
	const char *task = g % 17 == 9 ? "_1" : ""; /* jN_1: array jN's task 1's name, refused while jN is remembered */

	snprintf(body, sizeof body,
		 "{\"name\":\"j%u%s\",\"queue\":\"%s\",\"user\":\"u%u\",\"priority\":%d,\"runtime\":%u,"
		 "\"maxRuntime\":%u,\"checkpointInterval\":%u,\"preemptible\":%s,\"exitCode\":%u,%s%s"
		 "\"tasks\":[{\"count\":%u,\"gpus\":%u%s}]}",
		 name, task, queue, f % 3, (int)(f >> 2 & 3) - 1, runtime, g % 4 == 0 ? 600 * (g >> 4) : 0,
		 g % 3 == 0 ? 300u : 0u, f >> 4 & 1 ? "false" : "true", g % 7 == 0 ? 1u : 0u,
		 f >> 5 & 1 ? "\"requiredLevel\":\"rack\"," : "", f % 5 == 0 ? "\"minMember\":1," : "", count, gpus,
		 f >> 6 == 1 ? ",\"gpuModel\":\"A100\"" : f >> 6 == 2 ? ",\"gpuFraction\":0.5" :
		 f >> 6 == 3 && g & 2 ? ",\"nodeSelector\":{\"zone\":\"b\"}" : "");
	if (g % 5 == 1) { /* a job-wide selector: a zone, the ib label, or one no node meets */
		static const char *const SEL[] = { "{\"zone\":\"a\"}", "{\"ib\":null}", "{\"zone\":\"c\"}" };
		size_t at = strlen(body) - 1; /* before the closing brace */
		snprintf(body + at, sizeof body - at, ",\"nodeSelector\":%s}", SEL[g / 5 % 3]);
	}
	if (g % 13 == 5) { /* a job array: its tasks jN_<index>, all or none; a throttle is refused */
		static const char *const ARR[] = { "0-2", "1,3", "0-4:2", "0-1%2" };
		size_t at = strlen(body) - 1;
		snprintf(body + at, sizeof body - at, ",\"array\":\"%s\"}", ARR[g / 13 % 4]);
	}
	if (g % 11 == 3)
		dry_submit(x, body, strlen(body));
	else
		write_req(x, "POST", "/v1/jobs", body, strlen(body));
}

static void queue_put(struct session *x, struct bytes *b, const char *method)
{
	char body[512], path[64], lim[16] = "null";
	unsigned f = u8(b), deserved = pick(b, 24), limit = pick(b, 24), up = pick(b, 4);
	const char *name = QUEUES[pick(b, 5)];
	/* h100: the fleet's H100, as the daemon spells it */
	const char *model_limit = deserved & 1 ? ",\"gpuModelLimits\":{\"h100\":8}" : ",\"gpuModelLimits\":{\"H100\":8}";

	snprintf(path, sizeof path, "/v1/queues/%s", name);
	if (!strcmp(method, "PATCH"))
		snprintf(body, sizeof body, "{%s\"deserved\":{\"gpu\":%u}%s}",
			 f & 1 ? "\"limit\":{\"gpu\":null}," : "", deserved,
			 f & 2 ? ",\"gpuHourBudget\":null" : f & 4 ? ",\"maxRuntime\":3600" : "");
	else if (!(f & 1))
		snprintf(lim, sizeof lim, "%u", limit);
	if (strcmp(method, "PATCH"))
		snprintf(body, sizeof body,
			 "{%s%s%s\"deserved\":{\"gpu\":%u},\"limit\":{\"gpu\":%s},\"priority\":%d,\"minRuntime\":%u,"
			 "\"maxRuntime\":%u,\"gpuHourBudget\":%u,\"preemptible\":%s%s}",
			 up ? "\"parent\":\"" : "", up ? QUEUES[up - 1] : "", up ? "\"," : "", deserved,
			 lim, (int)(f >> 2 & 1), f >> 3 & 1 ? 600u : 0u,
			 f >> 4 & 1 ? 1800u : 0u, f >> 5 & 1 ? 2u : 0u, f >> 6 & 1 ? "false" : "true",
			 f >> 7 ? model_limit : up == 2 ? ",\"gpuModelDeserved\":{\"A100\":2}" : "");
	if (!strcmp(method, "POST")) { /* the name in the body */
		char named[600];
		snprintf(named, sizeof named, "{\"name\":\"%s\",%s", name, body + 1);
		write_req(x, "POST", "/v1/queues", named, strlen(named));
		return;
	}
	write_req(x, method, path, body, strlen(body));
}

static void reservation(struct session *x, struct bytes *b)
{
	static const char *const KIND[] = { "maintenance", "queue", "job", "bogus" };
	char body[512];
	unsigned f = u8(b), start = 60 * pick(b, 200), len = 60 * pick(b, 200);
	const char *node = NODES[pick(b, 4)];

	snprintf(body, sizeof body, "{\"kind\":\"%s\",\"nodes\":[\"%s\"],\"start\":%lld,\"end\":%lld%s%s}",
		 KIND[f % 4], node, (long long)g_now + start - 3000, (long long)g_now + start - 3000 + len,
		 f % 4 == 1 ? ",\"queue\":\"a\"" : "", f % 4 == 2 ? ",\"job\":\"j1\"" : "");
	write_req(x, "POST", "/v1/reservations", body, strlen(body));
}

static void health(struct session *x, struct bytes *b)
{
	char body[256], path[64];
	unsigned f = u8(b), gpu = pick(b, 10);

	snprintf(path, sizeof path, "/v1/nodes/%s/health", NODES[pick(b, 4)]);
	snprintf(body, sizeof body, "{\"healthy\":%s,\"suspect\":%s%s%u%s,\"reason\":\"r%u\"}",
		 f & 1 ? "true" : "false", f & 2 ? "true" : "false", f & 4 ? ",\"badGpus\":[" : ",\"at\":",
		 f & 4 ? gpu : (unsigned)g_now + gpu, f & 4 ? "]" : "", f >> 4);
	write_req(x, "POST", path, body, strlen(body));
}

static void del(struct session *x, struct bytes *b)
{
	char path[64];
	unsigned f = u8(b);

	if (f % 3 == 0)
		snprintf(path, sizeof path, "/v1/jobs/j%u", pick(b, 8));
	else if (f % 3 == 1)
		snprintf(path, sizeof path, "/v1/queues/%s", QUEUES[pick(b, 5)]);
	else
		snprintf(path, sizeof path, "/v1/reservations/rsv-%u", 1 + pick(b, 4));
	write_req(x, "DELETE", path, NULL, 0);
}

/* A body of raw bytes from the stream to a write route. */
static void raw(struct session *x, struct bytes *b)
{
	static const char *const ROUTE[][2] = {
		{ "POST", "/v1/jobs" }, { "POST", "/v1/queues" }, { "PUT", "/v1/queues/a" },
		{ "PATCH", "/v1/queues/b" }, { "POST", "/v1/reservations" }, { "POST", "/v1/nodes/n1/health" },
	};
	char body[96];
	unsigned r = pick(b, 6), n = pick(b, sizeof body);

	for (unsigned i = 0; i < n; i++)
		body[i] = (char)u8(b);
	write_req(x, ROUTE[r][0], ROUTE[r][1], body, n);
}

static void read_some(struct session *x, struct bytes *b)
{
	static const char *const PATHS[] = { "/metrics", "/v1/fairshare", "/v1/plan", "/v1/health",
					     "/v1/jobs/j1", "/v1/nodes/n0", "/v1/queues/a", "/v1/stats" };
	struct answer a = call(x, "GET", PATHS[pick(b, 8)], NULL, 0);
	free(a.body);
}

static void restart(struct session *x, bool clean)
{
	if (clean && fw_serve_save_usage_now(&x->d) != FW_OK) /* a clean stop's save first: it prunes */
		die("the usage was not saved", NULL, NULL);
	char *before = reading(x, clean ? MODEL : COMMITTED);

	close_daemon(x, clean);
	open_daemon(x);
	char *after = reading(x, clean ? MODEL : COMMITTED);
	if (strcmp(before, after))
		die("a restart changed the model", before, after);
	free(before);
	free(after);
}

/* The job listing of a reading (its "/v1/jobs" answer's array). */
static json_t *jobs_of(json_t *r)
{
	return json_object_get(json_object_get(r, "/v1/jobs"), "jobs");
}

static bool ran_on(const json_t *job, const char *node)
{
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(job, "nodes"), i, n)
		if (!strcmp(json_string_value(n), node))
			return true;
	return false;
}

/* Before and after a restart onto the other fleet: the same but for the
 * jobs that ran on a node the new one lacks, each pending again or ended
 * at its limit (docs/serve.md, The store: the fleet may change between
 * two starts).  Every job is still there. */
static void same_but_requeued(const char *before, const char *after, const char *gone)
{
	json_t *a = json_loads(before, 0, NULL), *b = json_loads(after, 0, NULL);
	json_t *ja = jobs_of(a), *jb = jobs_of(b);

	if (!a || !b || !ja || !jb)
		die("a reading without its jobs", before, after);
	if (json_array_size(ja) != json_array_size(jb))
		die("a fleet change lost or made jobs", before, after);
	for (size_t i = 0; i < json_array_size(ja); i++) {
		json_t *x = json_array_get(ja, i), *y = json_array_get(jb, i);
		const char *sx = json_string_value(json_object_get(x, "state"));
		const char *sy = json_string_value(json_object_get(y, "state"));
		if (strcmp(name_of(x), name_of(y)))
			die("a fleet change lost or renamed a job", before, after);
		bool moved = gone && sx && !strcmp(sx, "running") && ran_on(x, gone);
		if (moved && sy && (!strcmp(sy, "pending") || !strcmp(sy, "timeout")))
			continue;
		if (moved || !json_equal(x, y)) {
			fprintf(stderr, "fuzz_serve: job %s\n", name_of(x));
			die(moved ? "a job on a node the fleet lost was not requeued" : "a fleet change changed a job",
			    before, after);
		}
	}
	json_object_del(a, "/v1/jobs");
	json_object_del(b, "/v1/jobs");
	char *ra = json_dumps(a, JSON_SORT_KEYS | JSON_COMPACT), *rb = json_dumps(b, JSON_SORT_KEYS | JSON_COMPACT);
	if (!ra || !rb || strcmp(ra, rb))
		die("a fleet change changed queues, reservations, health or usage", ra, rb);
	free(ra);
	free(rb);
	json_decref(a);
	json_decref(b);
}

/* A restart onto the other fleet (config_b_yaml, or back). */
static void refleet(struct session *x, bool clean)
{
	bool to_b = x->o.embedded_yaml != config_b_yaml;

	if (clean && fw_serve_save_usage_now(&x->d) != FW_OK)
		die("the usage was not saved", NULL, NULL);
	catch_up(x); /* what time ended is not the fleet's doing */
	char *before = reading(x, clean ? MODEL : COMMITTED);

	close_daemon(x, clean);
	x->o.embedded_yaml = to_b ? config_b_yaml : config_yaml;
	x->o.embedded_len = to_b ? sizeof config_b_yaml - 1 : sizeof config_yaml - 1;
	open_daemon(x);
	char *after = reading(x, clean ? MODEL : COMMITTED);
	same_but_requeued(before, after, to_b ? "n1" : NULL);
	free(before);
	free(after);
}

/* What the local backend runs must fit its fleet: every placement on a
 * node the fleet has, on GPUs it has, and no GPU given more than all of
 * it (1000 milli) — above all after a cycle whose plan outlived requests
 * made while it was planned (plan_holds, local.c). */
struct use_check {
	struct session *x;
	int32_t *milli;               /* per node and GPU: node * 32 + gpu */
};

static int check_run(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		     fw_time end)
{
	struct use_check *u = ctx;
	const struct fw_backend_placement *pl;
	int32_t n;
	fw_time kept;

	(void)submit, (void)start, (void)end;
	if (strcmp(state, "running"))
		return 0;
	if (fw_local_job_run(u->x->d.be, j->job.name, &pl, &n, &kept) != FW_OK)
		die("a running job has no run", j->job.name, NULL);
	for (int32_t k = 0; k < n; k++) {
		int32_t node = fw_snapshot_find_node(u->x->d.fleet, pl[k].node);
		if (node < 0)
			die("a job runs on a node the fleet lacks", j->job.name, pl[k].node);
		for (int g = 0; g < 32; g++) {
			if (!(pl[k].gpu_mask >> g & 1))
				continue;
			if (g >= u->x->d.fleet->nodes[node].gpu_count)
				die("a job runs on a GPU its node lacks", j->job.name, pl[k].node);
			if ((u->milli[node * 32 + g] += pl[k].gpu_milli) > 1000)
				die("a GPU is given to more jobs than it holds", j->job.name, pl[k].node);
		}
	}
	return 0;
}

static void check_allocations(struct session *x)
{
	struct use_check u = { x, calloc((size_t)x->d.fleet->nnodes * 32 + 1, sizeof(int32_t)) };

	if (!u.milli)
		die("out of memory", NULL, NULL);
	fw_local_each_job(x->d.be, check_run, &u);
	free(u.milli);
}

/* The per-queue counters of /metrics agree with the totals: every start
 * is in one queue's wait histogram and in one size class's; the requeued
 * list is in name order, and none of its jobs runs (a start takes its
 * job off); GPU-hours never go down. */
static uint64_t waits_n(const struct fw_serve_waits *w)
{
	uint64_t n = 0;

	for (int i = 0; i <= FW_NWAIT; i++)
		n += w->n[i];
	return n;
}

static void check_counters(struct session *x, double *gpu_s)
{
	const struct fw_serve_metrics *m = &x->d.m;
	uint64_t by_queue = 0, by_size = 0;
	double sum = 0;

	for (int32_t i = 0; i < m->nqstat; i++) {
		by_queue += waits_n(&m->qstat[i].wait);
		sum += m->qstat[i].gpu_s;
		if (i > 0 && strcmp(m->qstat[i - 1].queue, m->qstat[i].queue) >= 0)
			die("the per-queue counters are out of order", m->qstat[i - 1].queue, m->qstat[i].queue);
	}
	for (int k = 0; k < FW_NWAIT_SIZES; k++)
		by_size += waits_n(&m->size_wait[k]);
	if (by_queue != m->starts || by_size != m->starts)
		die("a start is missing from the time-to-start histograms", NULL, NULL);
	if (sum < *gpu_s)
		die("fairway_queue_gpu_hours_total went down", NULL, NULL);
	*gpu_s = sum;
	for (int32_t i = 0; i < m->nrequeued; i++) {
		const char *state = "";
		fw_time t0, t1, t2;
		if (i > 0 && strcmp(m->requeued[i - 1].job, m->requeued[i].job) >= 0)
			die("the requeued jobs are out of order", m->requeued[i - 1].job, m->requeued[i].job);
		if (fw_local_job_info(x->d.be, m->requeued[i].job, &state, &t0, &t1, &t2, NULL, NULL) == FW_OK &&
		    !strcmp(state, "running"))
			die("a running job is still listed as requeued", m->requeued[i].job, NULL);
	}
}

/* Inputs whose size leaves 2 over 7: each cycle attempt gets one request
 * between its plan and its apply, as the API's threads may send: a
 * cancel most often (the plan may start that job, or outlive it), a
 * submission, a health report or another delete. */
struct between {
	struct session *x;
	struct bytes *b;
};

static void between_plan_and_apply(void *ctx)
{
	struct between *w = ctx;
	char path[64];

	if (w->b->at >= w->b->n)
		return;
	switch (pick(w->b, 5)) {
	case 0: case 1:
		snprintf(path, sizeof path, "/v1/jobs/j%u", pick(w->b, 8));
		write_req(w->x, "DELETE", path, NULL, 0);
		break;
	case 2: submit(w->x, w->b); break;
	case 3: health(w->x, w->b); break;
	default: del(w->x, w->b); break;
	}
}

static void step(struct session *x, struct bytes *b)
{
	struct between w = { x, b };

	switch (pick(b, 12)) {
	case 0: case 1: submit(x, b); break;
	case 2: queue_put(x, b, "PUT"); break;
	case 3: queue_put(x, b, u8(b) & 1 ? "PATCH" : "POST"); break;
	case 4: reservation(x, b); break;
	case 5: health(x, b); break;
	case 6: del(x, b); break;
	case 7: raw(x, b); break;
	case 8: read_some(x, b); break;
	case 9:
		x->d.between = x->interleave ? between_plan_and_apply : NULL;
		x->d.between_ctx = &w;
		fw_serve_cycle_once(&x->d, &x->ar);
		x->d.between = NULL;
		check_allocations(x);
		check_counters(x, &x->gpu_s);
		if (getenv("FUZZ_SERVE_VERBOSE"))
			fprintf(stderr, "cycle at %lld: %s\n", (long long)g_now, x->d.cycle_err);
		break;
	case 10: g_now += 30 * (fw_time)(1 + pick(b, 240)); break;
	default: {
		unsigned f = u8(b);
		bool clean = f & 1, refl = (f & 6) == 6;
		if (getenv("FUZZ_SERVE_VERBOSE"))
			fprintf(stderr, "%s%s at %lld\n", clean ? "restart" : "crash", refl ? " onto the other fleet" : "",
				(long long)g_now);
		if (refl)
			refleet(x, clean);
		else
			restart(x, clean);
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct session x; /* big: not on the stack */
	struct bytes b = { data, size, 0 };
	const char *tmp = getenv("TMPDIR");

	memset(&x, 0, sizeof x);
	snprintf(x.dir, sizeof x.dir, "%s/fw-fuzz-serve.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(x.dir))
		die("mkdtemp failed", x.dir, NULL);
	g_now = 1000000;
	fw_serve_set_clock(fuzz_clock);
	x.o.embedded_yaml = config_yaml;
	x.o.embedded_len = sizeof config_yaml - 1;
	x.o.listen_host = "127.0.0.1";
	x.o.state_dir = x.dir;
	x.o.period_s = 1;
	x.o.backend = &fw_backend_local;
	x.o.backend_opts = size & 1 ? "min-job-age=600" : NULL; /* odd sizes: ended jobs forgotten */
	x.o.log_keep_s = size & 2 ? 3600 : 0;                     /* old log rows trimmed */
	x.interleave = size % 7 == 2;
	fw_arena_init(&x.ar, 0);
	open_daemon(&x);
	for (int i = 0; i < 24 && b.at < b.n; i++)
		step(&x, &b);
	restart(&x, true);
	close_daemon(&x, true);
	fw_arena_release(&x.ar);
	fw_serve_set_clock(NULL);
	nftw(x.dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}
