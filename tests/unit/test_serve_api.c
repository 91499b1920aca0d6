/*
 * test_serve_api.c — the API's queue changes (connectors/serve/api.c)
 * against the local backend, on a clock the test turns
 * (fw_serve_set_clock): a change is checked with one read of the jobs at
 * one time, over the queues in force, so a run-time limit it proposes
 * never reaches the backend, whose read ends jobs at their limit
 * (local.c), and a refused change ends no job.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../harness.h"
#include "backend.h"
#include "fwconfig.h"
#include "local.h"
#include "serve.h"
#include "serve_int.h"
#include "store.h"

static const char fleet_yaml[] = "now: 0\n"
				 "nodes:\n"
				 "  - {name: n0, gpus: 16, cpu: 64, memory: 512Gi}\n";

static const char token[] = "test-token-0123456789";
static char dir[64];
static fw_time tick;

/* A clock one second later at every reading. */
static fw_time ticking(void)
{
	return tick++;
}

/* A daemon as far as the queue endpoints need one: the fleet, a store,
 * the local backend opened at 1000, the token, and queues q and other
 * (both top-level leaves). */
static void daemon_up(struct fw_serve *d)
{
	static const char *const docs[] = { "{\"name\":\"q\"}", "{\"name\":\"other\"}" };
	struct fw_backend_config cfg;

	memset(d, 0, sizeof *d);
	snprintf(dir, sizeof dir, "/tmp/fw-api-test.XXXXXX");
	if (!mkdtemp(dir) || fw_config_load_buffer("fleet", fleet_yaml, sizeof fleet_yaml - 1, &d->fleet, NULL) ||
	    fw_store_open(dir, false, &d->store, NULL))
		abort();
	pthread_mutex_init(&d->mu, NULL);
	pthread_mutex_init(&d->pub_mu, NULL);
	pthread_cond_init(&d->wake, NULL);
	snprintf(d->token, sizeof d->token, "%s", token);
	d->queues = calloc(2, sizeof *d->queues);
	for (int i = 0; d->queues && i < 2; i++) {
		json_t *o = json_loads(docs[i], 0, NULL);
		if (!o || fw_codec_queue_parse(o, NULL, &d->queues[i], NULL) != FW_OK)
			abort();
		json_decref(o);
	}
	d->nqueues = d->capq = 2;
	if (!d->queues || fw_serve_queue_order(d->queues, 2) != FW_OK)
		abort();
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = d->fleet;
	cfg.store = d->store;
	cfg.now = 1000;
	d->bops = &fw_backend_local;
	if (fw_backend_local.open(&cfg, &d->be, NULL) != FW_OK)
		abort();
	fw_serve_publish_health(d);
}

static void daemon_down(struct fw_serve *d)
{
	char cmd[128];

	json_decref(d->view); /* a test's published view, if any */
	d->view = NULL;
	fw_serve_set_clock(NULL);
	fw_backend_local.close(d->be);
	fw_store_close(d->store);
	fw_snapshot_free(d->fleet);
	free(d->queues);
	pthread_mutex_destroy(&d->mu);
	pthread_mutex_destroy(&d->pub_mu);
	pthread_cond_destroy(&d->wake);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* Job name (one GPU, runtime seconds) in queue, submitted at 1000;
 * started at 1000 when start. */
static void job(struct fw_serve *d, const char *name, const char *queue, fw_time runtime, uint32_t mask, bool start)
{
	struct fw_backend_job j;
	struct fw_backend_placement p = { "n0", 0, mask, 1000 };
	struct fw_backend_action a;
	struct fw_backend_world w;
	struct fw_snapshot *s;
	int status = -100;
	struct fw_backend_result r = { .status = &status };

	memset(&j, 0, sizeof j);
	fw_job_init(&j.job);
	snprintf(j.job.name, sizeof j.job.name, "%s", name);
	snprintf(j.queue, sizeof j.queue, "%s", queue);
	j.job.groups[0].gpus = 1;
	j.job.expected_runtime = runtime;
	if (fw_backend_local.submit(d->be, &j, 1000, NULL) != FW_OK)
		abort();
	if (!start)
		return;
	if (!(s = fw_serve_skeleton(d, d->queues, d->nqueues, 1000)) || fw_backend_local.read(d->be, s, &w, NULL))
		abort();
	fw_snapshot_free(s);
	memset(&a, 0, sizeof a);
	a.kind = FW_DECIDE_START;
	snprintf(a.job, sizeof a.job, "%s", name);
	a.at = 1000;
	a.nplacements = 1;
	a.placements = &p;
	if (fw_backend_local.apply(d->be, w.generation, &a, 1, &r) != FW_OK || status != FW_OK)
		abort();
}

/* An authorised request: its status, its body into out (n bytes). */
static unsigned request(struct fw_serve *d, const char *method, const char *path, const char *body, char *out,
			size_t n)
{
	char auth[64];
	struct fw_api_req rq = { method, path, NULL, NULL, auth, body, strlen(body), NULL, NULL };
	struct fw_api_resp rs;

	snprintf(auth, sizeof auth, "Bearer %s", token);
	fw_api_handle(d, &rq, &rs);
	snprintf(out, n, "%s", rs.body ? rs.body : "");
	free(rs.body);
	return rs.status;
}

static const char *state_of(struct fw_serve *d, const char *name)
{
	const char *state = "?";
	fw_time sub, start, end;

	fw_local_job_info(d->be, name, &state, &sub, &start, &end, NULL, NULL);
	return state;
}

/* Jobs run-1 .. run-12 of queue q (runtime k: their runtimes end at
 * 1001 .. 1012) and one waiting in queue other.  The clock ticks a
 * second at every reading from 1000 on, so the check of a change, made
 * from several readings, spans seconds in which some runtime ends.  A
 * PATCH of q with maxRuntime 1, putting q under other (so other's job
 * would lose its leaf queue), is refused (409) and ends no job
 * `timeout`: a job whose runtime ended by the check's one read ends
 * `done`, under the limits in force.  (Checked with a read at each
 * reading, as it was, the second read, over the proposed queues, ended
 * the runtimes that ended in between at the proposed 1 s: `timeout`.)
 * The same limit without the move is made (200). */
TEST(a_refused_queue_change_ends_no_job)
{
	struct fw_serve d;
	char body[1024], name[16];
	unsigned st;
	int done = 0;

	daemon_up(&d);
	for (int k = 1; k <= 12; k++) {
		snprintf(name, sizeof name, "run-%d", k);
		job(&d, name, "q", k, 1u << k, true);
	}
	job(&d, "waiting", "other", 3600, 0, false);
	tick = 1000;
	fw_serve_set_clock(ticking);

	st = request(&d, "PATCH", "/v1/queues/q", "{\"maxRuntime\":1,\"parent\":\"other\"}", body, sizeof body);
	ASSERT_EQ(st, 409);
	ASSERT_STR_CONTAINS(body, "1 waiting or running job(s) would lose their leaf queue (in queue other, which would "
			    "get a child queue, and a queue with child queues holds no jobs); put the queue under "
			    "another parent, or cancel those jobs first (`fairway jobs list --queue other` lists them)");
	ASSERT(strstr(body, "move them") == NULL); /* the API moves no job */
	st = request(&d, "DELETE", "/v1/queues/other", "", body, sizeof body);
	ASSERT_EQ(st, 409);
	ASSERT_STR_CONTAINS(body, "1 waiting or running job(s) would lose their queue (in queue other, which this change "
			    "removes), and the API cannot move a job to another queue; cancel them first");
	ASSERT(tick > 1000); /* the request read the clock */
	for (int k = 1; k <= 12; k++) {
		snprintf(name, sizeof name, "run-%d", k);
		const char *state = state_of(&d, name);
		if (strcmp(state, "running") && strcmp(state, "done"))
			FW_TEST__FAIL("%s is %s after a refused change (running or done)", name, state);
		done += !strcmp(state, "done");
	}
	ASSERT_EQ(fw_local_timed_out(d.be), 0);
	ASSERT(done < 12); /* some still ran: the refused limit could have ended them */
	int q = fw_serve_queue_index(&d, "q");
	ASSERT(q >= 0);
	ASSERT_STR_EQ(d.queues[q].parent, ""); /* nothing applied */
	ASSERT_EQ(d.queues[q].max_runtime_s, 0);

	st = request(&d, "PATCH", "/v1/queues/q", "{\"maxRuntime\":1}", body, sizeof body);
	ASSERT_EQ(st, 200);
	ASSERT_STR_CONTAINS(body, "\"maxRuntime\":1,");
	ASSERT_EQ(d.queues[fw_serve_queue_index(&d, "q")].max_runtime_s, 1);
	daemon_down(&d);
}

/* ---- budgets as the cycle saw them: /v1/fairshare, /metrics, /v1/health ---- */

/* tests/scenario/gpu_budget_safe.yaml's world: vision's budget of 100
 * GPU-hours has 80 used; its running train (8 GPUs, a 2 h maxRuntime,
 * 1 h run) may still use 8, crop's start (4 GPUs, 2 h) 8: 4 are left.
 * nlp has no budget.  `safe` and `train` are spliced in: budgetSafe, and
 * train's limit ("" leaves it without a bound). */
static const char budget_fmt[] =
	"now: 100000\n"
	"scheduler: {usageHalfLife: 7d, budgetSafe: %s}\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi}\n"
	"  - {name: n1, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi}\n"
	"queues:\n"
	"  - {name: vision, gpuHourBudget: 100, usage: {gpuHours: 80}, resources: {gpu: {quota: 8}}}\n"
	"  - {name: nlp, resources: {gpu: {quota: 8}}}\n"
	"jobs:\n"
	"  - {name: train, queue: vision, state: running, startTime: 96400, submitTime: 96000, %s\n"
	"     tasks: [{count: 1, gpus: 8, cpu: 8, memory: 64Gi}], allocation: [{node: n1, gpus: [0, 1, 2, 3, 4, 5, "
	"6, 7]}]}\n"
	"  - {name: crop, queue: vision, submitTime: 97000, maxRuntime: 2h,\n"
	"     tasks: [{count: 1, gpus: 4, cpu: 8, memory: 64Gi}]}\n"
	"  - {name: tok, queue: nlp, submitTime: 98000, expectedRuntime: 1h,\n"
	"     tasks: [{count: 1, gpus: 4, cpu: 8, memory: 64Gi}]}\n";

/* The daemon's view of one plan of that world (budgetSafe safe, train
 * with its limit when bounded), as the cycle publishes it: the daemon's
 * own queues (q, other) have no budget, so whatever budget the answers
 * show comes from the snapshot, as a Slurm account's GrpTRESMins does. */
static void publish_yaml_view(struct fw_serve *d, const char *yaml, int n)
{
	struct fw_snapshot *s = NULL;
	struct fw_plan *p = NULL;
	struct fw_arena ar;

	fw_arena_init(&ar, 0);
	if (n <= 0 || fw_config_load_buffer("view", yaml, (size_t)n, &s, NULL) || fw_cycle_run(s, NULL, &ar, &p) != FW_OK)
		abort();
	json_decref(d->view);
	d->view = fw_serve_build_view(s, p, NULL, NULL, 0, NULL, 0, &d->hcfg, 1, 1, 0.0, 0);
	if (!d->view)
		abort();
	fw_serve_publish_health(d); /* as the cycle does with its view */
	fw_arena_release(&ar);
	fw_snapshot_free(s);
}

static void publish_budget_view(struct fw_serve *d, bool safe, bool bounded)
{
	char yaml[2048];
	int n = snprintf(yaml, sizeof yaml, budget_fmt, safe ? "true" : "false", bounded ? "maxRuntime: 2h," : "");

	publish_yaml_view(d, yaml, n > 0 && (size_t)n < sizeof yaml ? n : -1);
}

/* A GET's answer parsed; aborts on a status other than 200. */
static json_t *get_json(struct fw_serve *d, const char *path)
{
	char body[65536];
	json_t *j;

	if (request(d, "GET", path, "", body, sizeof body) != 200 || !(j = json_loads(body, 0, NULL)))
		abort();
	return j;
}

/* The fairshare entry of queue name in /v1/fairshare's answer a. */
static json_t *entry(json_t *a, const char *name)
{
	json_t *q;
	size_t i;

	json_array_foreach(json_object_get(a, "queues"), i, q)
		if (!strcmp(json_string_value(json_object_get(q, "queue")), name))
			return q;
	return NULL;
}

/* Under budgetSafe, GET /v1/fairshare gives vision's gpuHoursLeft (4:
 * 100 - 80 used - 8 train may still use - 8 crop's start) beside its
 * gpuHourBudget, nlp (no budget) none; /metrics has the budget, though
 * the daemon's own queues have none (it is the snapshot's), and
 * fairway_queue_gpu_hours_left for vision only; /v1/health says
 * budgetSafe true, though the daemon's config has it off. */
TEST(budget_safe_left_in_fairshare_metrics_and_health)
{
	struct fw_serve d;
	char body[65536];
	json_t *a, *x;

	daemon_up(&d);
	ASSERT(!d.fleet->config.budget_safe);
	publish_budget_view(&d, true, true);
	a = get_json(&d, "/v1/fairshare");
	x = json_object_get(entry(a, "vision"), "gpuHoursLeft");
	ASSERT(json_is_number(x));
	ASSERT_NEAR(json_number_value(x), 4.0, 1e-6);
	ASSERT_NEAR(json_number_value(json_object_get(entry(a, "vision"), "gpuHourBudget")), 100.0, 1e-9);
	ASSERT(entry(a, "nlp") != NULL);
	ASSERT(json_object_get(entry(a, "nlp"), "gpuHoursLeft") == NULL);
	json_decref(a);

	ASSERT_EQ(request(&d, "GET", "/metrics", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\nfairway_queue_gpu_hour_budget{queue=\"vision\"} 100\n");
	ASSERT_STR_CONTAINS(body, "# TYPE fairway_queue_gpu_hours_left gauge\n");
	ASSERT_STR_CONTAINS(body, "\nfairway_queue_gpu_hours_left{queue=\"vision\"} 4.000000\n");
	ASSERT(!strstr(body, "fairway_queue_gpu_hours_left{queue=\"nlp\"}"));
	ASSERT(!strstr(body, "fairway_queue_gpu_hour_budget{queue=\"nlp\"}"));

	a = get_json(&d, "/v1/health");
	ASSERT(json_is_true(json_object_get(a, "budgetSafe")));
	json_decref(a);
	daemon_down(&d);
}

/* A running job without a bound under vision makes what its budget has
 * left unknown: gpuHoursLeft null, and no sample for it in /metrics,
 * whose help says why; the budget itself still shows. */
TEST(an_unbounded_running_job_makes_left_unknown)
{
	struct fw_serve d;
	char body[65536];
	json_t *a, *x;

	daemon_up(&d);
	publish_budget_view(&d, true, false);
	a = get_json(&d, "/v1/fairshare");
	x = entry(a, "vision");
	ASSERT(x != NULL);
	ASSERT(json_object_get(x, "gpuHoursLeft") != NULL);
	ASSERT(json_is_null(json_object_get(x, "gpuHoursLeft")));
	json_decref(a);

	ASSERT_EQ(request(&d, "GET", "/metrics", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "# HELP fairway_queue_gpu_hours_left ");
	ASSERT_STR_CONTAINS(body, "has no run-time limit or runtime (so what is left is unknown) has no sample");
	ASSERT(!strstr(body, "\nfairway_queue_gpu_hours_left{"));
	ASSERT_STR_CONTAINS(body, "\nfairway_queue_gpu_hour_budget{queue=\"vision\"} 100\n");
	daemon_down(&d);
}

/* With budgetSafe off: no gpuHoursLeft anywhere, no
 * fairway_queue_gpu_hours_left at all, the budget still shown, and
 * /v1/health says budgetSafe false; before any plan, the config's. */
TEST(no_left_without_budget_safe)
{
	struct fw_serve d;
	char body[65536];
	json_t *a, *q;
	size_t i;

	daemon_up(&d);
	a = get_json(&d, "/v1/health");
	ASSERT(json_is_false(json_object_get(a, "budgetSafe"))); /* no view yet: the config's */
	json_decref(a);
	ASSERT_EQ(request(&d, "GET", "/metrics", "", body, sizeof body), 200);
	ASSERT(!strstr(body, "fairway_queue_gpu_hour_budget")); /* no plan yet, no budget */

	publish_budget_view(&d, false, true);
	a = get_json(&d, "/v1/fairshare");
	json_array_foreach(json_object_get(a, "queues"), i, q)
		ASSERT(json_object_get(q, "gpuHoursLeft") == NULL);
	ASSERT(json_object_size(entry(a, "vision")) > 0);
	json_decref(a);
	ASSERT_EQ(request(&d, "GET", "/metrics", "", body, sizeof body), 200);
	ASSERT(!strstr(body, "fairway_queue_gpu_hours_left"));
	ASSERT_STR_CONTAINS(body, "\nfairway_queue_gpu_hour_budget{queue=\"vision\"} 100\n");
	a = get_json(&d, "/v1/health");
	ASSERT(json_is_false(json_object_get(a, "budgetSafe")));
	json_decref(a);
	daemon_down(&d);
}

/* ---- before the first cycle (a restarted daemon) ---------------------------- */

/* With no view yet, the job list is the local backend's: it must say what
 * the view would, priority and a running job's nodes and expected end
 * included (fuzz_serve found a restart dropping them from the list), and
 * the nodes, which only a view has, answer 503 EAGAIN, not an empty fleet
 * or "no node named n0". */
TEST(before_the_first_cycle_jobs_are_whole_and_nodes_wait)
{
	struct fw_serve d;
	char body[8192];
	json_t *a, *j;
	size_t i;
	int seen = 0;

	daemon_up(&d);
	job(&d, "run", "q", 3600, 1u << 2, true); /* started at 1000 on n0 */
	ASSERT_EQ(request(&d, "POST", "/v1/jobs",
			  "{\"name\":\"later\",\"queue\":\"q\",\"priority\":3,\"tasks\":[{\"gpus\":1}]}", body,
			  sizeof body),
		  201);
	ASSERT(d.view == NULL);
	a = get_json(&d, "/v1/jobs");
	json_array_foreach(json_object_get(a, "jobs"), i, j) {
		const char *name = json_string_value(json_object_get(j, "name"));
		if (!strcmp(name, "later")) {
			ASSERT_EQ(json_integer_value(json_object_get(j, "priority")), 3);
			seen++;
		} else if (!strcmp(name, "run")) {
			ASSERT_STR_EQ(json_string_value(json_object_get(j, "state")), "running");
			ASSERT_EQ(json_array_size(json_object_get(j, "nodes")), 1);
			ASSERT_STR_EQ(json_string_value(json_array_get(json_object_get(j, "nodes"), 0)), "n0");
			ASSERT_EQ(json_integer_value(json_object_get(j, "expectedEnd")), 4600);
			ASSERT_EQ(json_integer_value(json_object_get(j, "priority")), 0);
			seen++;
		}
	}
	ASSERT_EQ(seen, 2);
	json_decref(a);
	ASSERT_EQ(request(&d, "GET", "/v1/nodes", "", body, sizeof body), 503);
	ASSERT_STR_CONTAINS(body, "\"EAGAIN\"");
	ASSERT_EQ(request(&d, "GET", "/v1/nodes/n0", "", body, sizeof body), 503);
	ASSERT_STR_CONTAINS(body, "no cycle has completed yet");
	daemon_down(&d);
}

/* A daemon opened as `fairway serve` opens one (fw_serve_open: config,
 * store, tokens, local backend) in a fresh directory, on the clock. */
static const char serve_yaml[] = "now: 0\n"
				 "nodes:\n"
				 "  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"
				 "queues:\n"
				 "  - {name: q, resources: {gpu: {quota: 8}}}\n";
static fw_time fixed_now;
static fw_time fixed(void)
{
	return fixed_now;
}

/* Two empty 8-GPU nodes and one queue of 16 GPUs: the scene of the tests
 * of drains, sub-cycles and windows. */
static const char two_nodes_yaml[] = "now: 0\n"
				     "nodes:\n"
				     "  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"
				     "  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi}\n"
				     "queues:\n"
				     "  - {name: q, resources: {gpu: {quota: 16}}}\n";

/* The embedded default the next serve_up opens (NULL: serve_yaml). */
static const char *up_yaml;
/* serve_yaml with q limited to 4 GPUs: a job of 8 waits (over_quota)
 * while the limit stands (the API refuses a job no node could ever hold). */
static const char limited_yaml[] = "now: 0\n"
				   "nodes:\n"
				   "  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"
				   "queues:\n"
				   "  - {name: q, resources: {gpu: {quota: 4, limit: 4}}}\n";

static void serve_up(struct fw_serve *d, struct fw_serve_opts *o)
{
	char err[512];

	snprintf(dir, sizeof dir, "/tmp/fw-api-test.XXXXXX");
	memset(o, 0, sizeof *o);
	o->embedded_yaml = up_yaml ? up_yaml : serve_yaml;
	o->embedded_len = strlen(o->embedded_yaml);
	o->state_dir = mkdtemp(dir);
	o->period_s = 1;
	o->backend = &fw_backend_local;
	fixed_now = 5000;
	fw_serve_set_clock(fixed);
	if (!o->state_dir || fw_serve_open(d, o, err, sizeof err) != FW_OK) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
}

static void serve_down(struct fw_serve *d)
{
	char cmd[128];

	fw_serve_close(d);
	fw_serve_set_clock(NULL);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* A daemon as `fairway serve` opens one (serve_up) and an arena for its
 * cycles: the tests below start with served_up and end with served_down. */
struct served {
	struct fw_serve d;
	struct fw_serve_opts o;
	struct fw_arena ar;
};

static void served_up(struct served *f)
{
	serve_up(&f->d, &f->o);
	fw_arena_init(&f->ar, 0);
}

static void served_down(struct served *f)
{
	fw_arena_release(&f->ar);
	serve_down(&f->d);
}

/* served_up on two_nodes_yaml. */
static void two_nodes_up(struct served *f)
{
	up_yaml = two_nodes_yaml;
	served_up(f);
	up_yaml = NULL;
}

/* The job list after a cancel, before the next cycle: the plan's view
 * still says "pending", the local backend "cancelled"; the list must say
 * what GET /v1/jobs/{name} says (fuzz_serve found the list keeping the
 * view's word until the next cycle). */
static unsigned get_as(struct fw_serve *d, const char *path, const char *state, char *out, size_t n)
{
	char auth[300];
	struct fw_api_req rq = { "GET", path, state, NULL, auth, "", 0, NULL, NULL };
	struct fw_api_resp rs;

	snprintf(auth, sizeof auth, "Bearer %s", d->token);
	fw_api_handle(d, &rq, &rs);
	snprintf(out, n, "%s", rs.body ? rs.body : "");
	free(rs.body);
	return rs.status;
}

TEST(a_cancelled_job_leaves_the_list_before_the_next_cycle)
{
	struct fw_serve d;
	struct fw_serve_opts o;
	struct fw_arena ar;
	struct fw_api_req rq;
	struct fw_api_resp rs;
	char body[8192], auth[300];

	up_yaml = limited_yaml;
	serve_up(&d, &o);
	up_yaml = NULL;
	fw_arena_init(&ar, 0);
	snprintf(auth, sizeof auth, "Bearer %s", d.token);
	const char *big = "{\"name\":\"big\",\"queue\":\"q\",\"tasks\":[{\"gpus\":8}]}"; /* over the limit */
	rq = (struct fw_api_req){ "POST", "/v1/jobs", NULL, NULL, auth, big, strlen(big), NULL, NULL };
	fw_api_handle(&d, &rq, &rs);
	ASSERT_EQ(rs.status, 201);
	free(rs.body);
	ASSERT_OK(fw_serve_cycle_once(&d, &ar));
	ASSERT_EQ(get_as(&d, "/v1/jobs", NULL, body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"name\":\"big\"");
	ASSERT_STR_CONTAINS(body, "\"state\":\"pending\"");
	rq = (struct fw_api_req){ "DELETE", "/v1/jobs/big", NULL, NULL, auth, "", 0, NULL, NULL };
	fw_api_handle(&d, &rq, &rs);
	ASSERT_EQ(rs.status, 200);
	free(rs.body);
	ASSERT_EQ(get_as(&d, "/v1/jobs", NULL, body, sizeof body), 200);
	ASSERT_STR_EQ(body, "{\"jobs\":[]}");
	ASSERT_EQ(get_as(&d, "/v1/jobs", "all", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"state\":\"cancelled\"");
	ASSERT(!strstr(body, "pending"));
	ASSERT_EQ(get_as(&d, "/v1/jobs/big", NULL, body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"state\":\"cancelled\"");
	fw_arena_release(&ar);
	serve_down(&d);
}

static int count_decision(void *ctx, const struct fw_store_decision *dec)
{
	(void)dec;
	(*(int *)ctx)++;
	return 0;
}

static int decisions_of(struct fw_serve *d, const char *job)
{
	int n = 0;

	if (fw_store_job_decisions(d->store, job, INT64_MIN, 100, count_decision, &n) != FW_OK)
		return -1;
	return n;
}

/* method path with body and the daemon's own token: the status. */
static unsigned send_as(struct fw_serve *d, const char *method, const char *path, const char *body)
{
	char auth[300];
	struct fw_api_req rq = { method, path, NULL, NULL, auth, body, strlen(body), NULL, NULL };
	struct fw_api_resp rs;

	snprintf(auth, sizeof auth, "Bearer %s", d->token);
	fw_api_handle(d, &rq, &rs);
	if (rs.status >= 300)
		fprintf(stderr, "%s %s: %u %s\n", method, path, rs.status, rs.body ? rs.body : "");
	free(rs.body);
	return rs.status;
}

static unsigned post(struct fw_serve *d, const char *path, const char *body)
{
	return send_as(d, "POST", path, body);
}

static void submit(struct fw_serve *d, const char *body)
{
	post(d, "/v1/jobs", body);
}

/* --log-keep: every applied cycle deletes the log rows older than the
 * option, and counts them once its transaction commits; 0 keeps every
 * row however old; newer rows stay. */
TEST(log_rows_older_than_log_keep_are_deleted_by_the_cycle)
{
	struct served f;

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* a starts at 5000: one row */
	ASSERT_EQ(decisions_of(&f.d, "a"), 1);
	fixed_now = 5000 + 86400;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* the default, 0: kept a day on */
	ASSERT_EQ(decisions_of(&f.d, "a"), 1);
	ASSERT_EQ(f.d.m.log_trimmed[0], 0);
	ASSERT_EQ(f.d.m.log_trimmed[1], 0);

	f.o.log_keep_s = 3600; /* read at every cycle */
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	fixed_now += 5;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(decisions_of(&f.d, "a"), 0); /* a day old */
	ASSERT_EQ(decisions_of(&f.d, "b"), 1); /* just made */
	ASSERT_EQ(f.d.m.log_trimmed[0], 1);
	ASSERT(f.d.m.log_trimmed[1] >= 1); /* the history row of the first cycle */
	uint64_t hist = f.d.m.log_trimmed[1];
	fixed_now += 3599;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(decisions_of(&f.d, "b"), 1); /* 3,599 s old: kept */
	fixed_now += 2;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(decisions_of(&f.d, "b"), 0); /* 3,601 s */
	ASSERT_EQ(f.d.m.log_trimmed[0], 2);
	ASSERT(f.d.m.log_trimmed[1] > hist); /* the rows a day on and after it */
	served_down(&f);
}

/* The query arguments k1=v1, k2=v2 (a NULL value: not given) in args
 * (room for 5), as struct fw_api_req's args. */
static const char *const *query(const char **args, const char *k1, const char *v1, const char *k2, const char *v2)
{
	int n = 0;

	if (v1)
		args[n++] = k1, args[n++] = v1;
	if (v2)
		args[n++] = k2, args[n++] = v2;
	args[n] = NULL;
	return args;
}

/* GET /v1/jobs?state=&limit=&queue=&user= (NULL: not given): the names
 * it lists, comma-joined in list order, then " truncated=true" when the
 * answer says so; "STATUS BODY" when it is not a 200. */
static const char *listed(struct fw_serve *d, const char *state, const char *limit, const char *queue,
			  const char *user)
{
	static char out[8192];
	const char *args[5];
	struct fw_api_req rq = { "GET", "/v1/jobs", state, limit, "", "", 0, query(args, "queue", queue, "user", user), NULL };
	struct fw_api_resp rs;
	json_t *o, *j;
	size_t i, k = 0;

	fw_api_handle(d, &rq, &rs);
	out[0] = 0;
	if (rs.status == 200 && (o = json_loads(rs.body, 0, NULL))) {
		json_array_foreach(json_object_get(o, "jobs"), i, j)
			k += (size_t)snprintf(out + k, sizeof out - k, "%s%s", k ? "," : "",
					      json_string_value(json_object_get(j, "name")));
		if (json_object_get(o, "truncated"))
			snprintf(out + k, sizeof out - k, " truncated=%s",
				 json_is_true(json_object_get(o, "truncated")) ? "true" : "?");
		json_decref(o);
	} else {
		snprintf(out, sizeof out, "%u %s", rs.status, rs.body ? rs.body : "");
	}
	free(rs.body);
	return out;
}

/* GET /v1/fairshare's pendingJobs/runningJobs per queue: "q:0/2,r:1/1". */
static const char *queue_jobs(struct fw_serve *d)
{
	static char out[256];
	char body[8192];
	json_t *o, *q;
	size_t i, k = 0;

	out[0] = 0;
	if (get_as(d, "/v1/fairshare", NULL, body, sizeof body) != 200 || !(o = json_loads(body, 0, NULL)))
		return "(error)";
	json_array_foreach(json_object_get(o, "queues"), i, q)
		k += (size_t)snprintf(out + k, sizeof out - k, "%s%s:%lld/%lld", k ? "," : "",
				      json_string_value(json_object_get(q, "queue")),
				      (long long)json_integer_value(json_object_get(q, "pendingJobs")),
				      (long long)json_integer_value(json_object_get(q, "runningJobs")));
	json_decref(o);
	return out;
}

/* ?queue= and ?user= keep a queue's (exactly that queue's) or a user's
 * jobs, both ways a job is listed: from the last plan and from the local
 * backend (newer than the plan, or ended); a queue that is not (or no
 * longer) the daemon's is no error.  And each queue's jobs waiting and
 * running in GET /v1/fairshare. */
TEST(the_job_list_filters_by_queue_and_user)
{
	struct served f;

	served_up(&f);
	ASSERT_EQ(post(&f.d, "/v1/queues", "{\"name\":\"r\"}"), 201);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"user\":\"alice\",\"tasks\":[{\"gpus\":1}]}");
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"user\":\"bob\",\"tasks\":[{\"gpus\":1}]}");
	submit(&f.d, "{\"name\":\"c\",\"queue\":\"r\",\"user\":\"alice\",\"runtime\":10,\"tasks\":[{\"gpus\":1}]}");
	for (int pass = 0; pass < 2; pass++) { /* before the first plan, then from it */
		ASSERT_STR_EQ(listed(&f.d, NULL, NULL, NULL, NULL), "a,b,c");
		ASSERT_STR_EQ(listed(&f.d, NULL, NULL, "q", NULL), "a,b");
		ASSERT_STR_EQ(listed(&f.d, NULL, NULL, "r", NULL), "c");
		ASSERT_STR_EQ(listed(&f.d, NULL, NULL, NULL, "alice"), "a,c");
		ASSERT_STR_EQ(listed(&f.d, NULL, NULL, "q", "alice"), "a");
		ASSERT_STR_EQ(listed(&f.d, "running", NULL, "r", "alice"), pass ? "c" : "");
		ASSERT_STR_EQ(listed(&f.d, NULL, NULL, NULL, "carol"), "");
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	}
	ASSERT_STR_EQ(queue_jobs(&f.d), "q:0/2,r:0/1"); /* pending/running per queue */
	submit(&f.d, "{\"name\":\"big\",\"queue\":\"r\",\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(queue_jobs(&f.d), "q:0/2,r:1/1");
	fixed_now += 20; /* c ended (done): listed by the backend, with state=all only */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(listed(&f.d, NULL, NULL, "r", NULL), "big");
	ASSERT_STR_EQ(listed(&f.d, "all", NULL, "r", NULL), "big,c");
	ASSERT_STR_EQ(queue_jobs(&f.d), "q:0/2,r:1/0");
	ASSERT_STR_EQ(listed(&f.d, "all", NULL, NULL, "alice"), "a,c");
	ASSERT_STR_EQ(listed(&f.d, "done", NULL, NULL, "alice"), "c");
	ASSERT_STR_EQ(listed(&f.d, "done", NULL, "q", "alice"), "");
	ASSERT_STR_EQ(listed(&f.d, "all", NULL, "nosuch", NULL), "");
	/* a deleted queue's ended jobs are still its */
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/jobs/big", ""), 200);
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/queues/r", ""), 200);
	ASSERT_STR_EQ(listed(&f.d, "all", NULL, "r", NULL), "c,big");
	served_down(&f);
}

/* ?limit= cuts the list and says so ("truncated": true) only when a job
 * that would be listed is left out: from the plan's part of the list,
 * from the backend's (newer than the plan, or ended), and not when the
 * jobs left are ones the filters leave out anyway. */
TEST(a_cut_job_list_says_it_is_truncated)
{
	struct served f;

	served_up(&f);
	ASSERT_EQ(post(&f.d, "/v1/queues", "{\"name\":\"r\"}"), 201);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}");
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"runtime\":10,\"tasks\":[{\"gpus\":1}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	submit(&f.d, "{\"name\":\"c\",\"queue\":\"r\",\"tasks\":[{\"gpus\":1}]}"); /* after the plan */
	ASSERT_STR_EQ(listed(&f.d, NULL, NULL, NULL, NULL), "a,b,c");
	ASSERT_STR_EQ(listed(&f.d, NULL, "3", NULL, NULL), "a,b,c");
	ASSERT_STR_EQ(listed(&f.d, NULL, "2", NULL, NULL), "a,b truncated=true"); /* c, the backend's, left out */
	ASSERT_STR_EQ(listed(&f.d, NULL, "1", NULL, NULL), "a truncated=true");   /* b, the plan's */
	ASSERT_STR_EQ(listed(&f.d, NULL, "2", "q", NULL), "a,b");                 /* c is not q's */
	ASSERT_STR_EQ(listed(&f.d, NULL, "1", "r", NULL), "c");
	fixed_now += 20; /* b ends */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(listed(&f.d, NULL, "2", NULL, NULL), "a,c"); /* b ended: not listed by default */
	ASSERT_STR_EQ(listed(&f.d, "all", "2", NULL, NULL), "a,c truncated=true");
	ASSERT_STR_EQ(listed(&f.d, "all", "3", NULL, NULL), "a,c,b");
	ASSERT_STR_EQ(listed(&f.d, NULL, "0", NULL, NULL),
		      "400 {\"error\":{\"status\":400,\"code\":\"ERANGE\",\"field\":\"limit\",\"message\":\"must be a "
		      "whole number from 1 to 100000\"}}");
	served_down(&f);
}

/* rq's answer on one line: the status, then each entry of its array arr
 * as its member k1 (and ":k2" when k2), comma-joined, then " of N GPUs"
 * when it has the fleet's figures and " truncated" when it says so; or
 * the status and the body when it is not a 200. */
static const char *answer_line(struct fw_serve *d, const struct fw_api_req *rq, const char *arr, const char *k1,
			       const char *k2)
{
	static char out[2048];
	struct fw_api_resp rs;
	json_t *o, *e, *fig;
	size_t i, k;

	fw_api_handle(d, rq, &rs);
	k = (size_t)snprintf(out, sizeof out, "%u", rs.status);
	if (rs.status == 200 && (o = json_loads(rs.body, 0, NULL))) {
		json_array_foreach(json_object_get(o, arr), i, e) {
			const char *v1 = json_string_value(json_object_get(e, k1));
			const char *v2 = k2 ? json_string_value(json_object_get(e, k2)) : "";
			k += (size_t)snprintf(out + k, sizeof out - k, "%s%s%s%s", i ? "," : " ", v1 ? v1 : "",
					      k2 ? ":" : "", v2 ? v2 : ""); /* a drain names no job */
		}
		if ((fig = json_object_get(o, "figures")))
			k += (size_t)snprintf(out + k, sizeof out - k, " of %lld GPUs",
					      (long long)json_number_value(json_object_get(fig, "gpusTotal")));
		if (json_is_true(json_object_get(o, "truncated")))
			snprintf(out + k, sizeof out - k, " truncated");
		json_decref(o);
	} else {
		snprintf(out + k, sizeof out - k, " %s", rs.body ? rs.body : "");
	}
	free(rs.body);
	return out;
}

/* GET /v1/nodes?health=LIST: "STATUS node,... of N GPUs". */
static const char *nodes_in(struct fw_serve *d, const char *health)
{
	const char *args[5];
	struct fw_api_req rq = { "GET", "/v1/nodes", NULL, NULL, "", "", 0, query(args, "health", health, NULL, NULL), NULL };

	return answer_line(d, &rq, "nodes", "name", NULL);
}

/* A job the backend keeps out of the plan (backend.h aside: Slurm's held
 * jobs, those its reservation filter keeps out) is listed after the
 * plan's, pending with the backend's reason, "planned" false and no
 * expected start, filtered like the others, and GET /v1/jobs/NAME
 * answers for it (before, it was in no list and that answered 404); a
 * name the plan has stays the plan's job. */
TEST(jobs_the_backend_keeps_aside_are_listed_with_their_reason)
{
	struct fw_serve d;
	struct fw_backend_ops remote;
	struct fw_backend_aside a[2];
	json_t *j;

	daemon_up(&d);
	remote = fw_backend_local; /* not the local backend: the view's jobs are the list */
	remote.name = "remote";
	d.bops = &remote;
	publish_budget_view(&d, false, true);
	memset(a, 0, sizeof a);
	snprintf(a[0].job, sizeof a[0].job, "17");
	snprintf(a[0].queue, sizeof a[0].queue, "acct");
	snprintf(a[0].user, sizeof a[0].user, "ann");
	a[0].gpus = 2;
	a[0].submitted = 99000;
	snprintf(a[0].reason, sizeof a[0].reason, "held");
	snprintf(a[0].text, sizeof a[0].text, "held by its user: scontrol release 17 lets fairway plan it");
	a[1] = a[0];
	snprintf(a[1].job, sizeof a[1].job, "crop");
	snprintf(a[1].reason, sizeof a[1].reason, "not_plannable");
	ASSERT_STR_EQ(listed(&d, "pending", NULL, NULL, NULL), "crop,tok");
	fw_serve_view_aside(d.view, a, 2);
	ASSERT_STR_EQ(listed(&d, "pending", NULL, NULL, NULL), "crop,tok,17");
	ASSERT_STR_EQ(listed(&d, "running", NULL, NULL, NULL), "train");
	ASSERT_STR_EQ(listed(&d, NULL, NULL, "acct", NULL), "17");
	ASSERT_STR_EQ(listed(&d, NULL, NULL, NULL, "ann"), "17");
	/* ?reason= takes the backend's own reasons, this backend's only, but
	 * held on every backend (here one whose list lacks it) */
	static const char *const own[] = { "held", "not_plannable", NULL };
	const char *args[3] = { "reason", "not_plannable", NULL };
	struct fw_api_req rq = { "GET", "/v1/jobs", NULL, NULL, "", "", 0, args, NULL };
	ASSERT_STR_CONTAINS(answer_line(&d, &rq, "jobs", "name", NULL), "400 {\"error\"");
	args[1] = "held";
	ASSERT_STR_EQ(answer_line(&d, &rq, "jobs", "name", NULL), "200 17");
	remote.aside_reasons = own;
	ASSERT_STR_EQ(answer_line(&d, &rq, "jobs", "name", NULL), "200 17");
	args[1] = "held,not_plannable";
	ASSERT_STR_EQ(answer_line(&d, &rq, "jobs", "name", NULL), "200 17");
	args[1] = "hold";
	ASSERT_STR_CONTAINS(answer_line(&d, &rq, "jobs", "name", NULL), "(did you mean \\\"held\\\"?)");
	j = get_json(&d, "/v1/jobs/17");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "state")), "pending");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "reason")), "held");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "reasonText")), a[0].text);
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "unknownWhy")), "held");
	ASSERT(json_is_false(json_object_get(j, "planned")));
	ASSERT(json_is_null(json_object_get(j, "expectedStart")));
	ASSERT_EQ(json_integer_value(json_object_get(j, "gpus")), 2);
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "queue")), "acct");
	json_decref(j);
	j = get_json(&d, "/v1/jobs/crop"); /* the plan's, not the backend's namesake */
	ASSERT(!json_object_get(j, "planned"));
	ASSERT(!json_object_get(j, "reason") || strcmp(json_string_value(json_object_get(j, "reason")), "not_plannable"));
	json_decref(j);
	d.bops = &fw_backend_local;
	daemon_down(&d);
}

/* The ended jobs a backend's cluster still lists (backend.h ended:
 * Slurm's, for MinJobAge) answer GET /v1/jobs/NAME as the local
 * backend's ended jobs do: state, times, exit code and the nodes they ran
 * on (none for one that never ran); the list has them only when asked
 * for a state, after the plan's, and a name the plan has stays the plan's
 * job.  A name the cluster no longer lists is a 404 that says how long it
 * lists them and where to look, and points at the decision log when that
 * has rows for the name. */
static const char *answer(struct fw_serve *d, const char *method, const char *path, const char *body);

TEST(ended_jobs_the_backend_lists_say_where_they_ran)
{
	struct fw_serve d;
	struct fw_backend_ops remote;
	struct fw_backend_ended e[3];
	const char names[3][FW_NAME_MAX] = { "n0", "n1", "n9" };
	json_t *j;

	daemon_up(&d);
	remote = fw_backend_local; /* not the local backend: the view answers */
	remote.name = "remote";
	d.bops = &remote;
	publish_budget_view(&d, false, true);
	memset(e, 0, sizeof e);
	snprintf(e[0].job, sizeof e[0].job, "41");
	snprintf(e[0].queue, sizeof e[0].queue, "acct");
	snprintf(e[0].user, sizeof e[0].user, "ann");
	snprintf(e[0].state, sizeof e[0].state, "done");
	e[0].gpus = 2;
	e[0].submitted = 98000;
	e[0].started = 98100;
	e[0].ended = 98700;
	e[0].exit_code = 0;
	e[0].nnodes = 2;
	e[1] = e[0];
	snprintf(e[1].job, sizeof e[1].job, "42");
	snprintf(e[1].state, sizeof e[1].state, "cancelled");
	e[1].started = 0;
	e[1].exit_code = -1;
	e[1].nnodes = 0;
	e[2] = e[0];
	snprintf(e[2].job, sizeof e[2].job, "crop"); /* a namesake of the plan's */
	e[2].node_first = 2;
	e[2].nnodes = 1;
	const char *before = strdup(listed(&d, NULL, NULL, NULL, NULL));
	fw_serve_view_ended(d.view, e, 3, names);
	ASSERT_STR_EQ(listed(&d, NULL, NULL, NULL, NULL), before); /* ended jobs only on request */
	free((void *)before);
	ASSERT_STR_EQ(listed(&d, "done", NULL, NULL, NULL), "41");
	ASSERT_STR_EQ(listed(&d, "cancelled", NULL, NULL, NULL), "42");
	ASSERT_STR_EQ(listed(&d, "running", NULL, NULL, NULL), "train");
	ASSERT_STR_CONTAINS(listed(&d, "all", NULL, NULL, NULL), ",41,42");
	ASSERT_STR_EQ(listed(&d, "all", NULL, "acct", "ann"), "41,42");
	j = get_json(&d, "/v1/jobs/41");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "state")), "done");
	ASSERT_EQ(json_array_size(json_object_get(j, "nodes")), 2);
	ASSERT_STR_EQ(json_string_value(json_array_get(json_object_get(j, "nodes"), 0)), "n0");
	ASSERT_STR_EQ(json_string_value(json_array_get(json_object_get(j, "nodes"), 1)), "n1");
	ASSERT_EQ(json_integer_value(json_object_get(j, "exitCode")), 0);
	ASSERT_EQ(json_integer_value(json_object_get(j, "startTime")), 98100);
	ASSERT_EQ(json_integer_value(json_object_get(j, "endTime")), 98700);
	ASSERT_EQ(json_integer_value(json_object_get(j, "gpus")), 2);
	ASSERT(json_is_array(json_object_get(j, "decisions")));
	json_decref(j);
	j = get_json(&d, "/v1/jobs/42"); /* cancelled while it waited: nowhere */
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "state")), "cancelled");
	ASSERT(!json_object_get(j, "nodes") && !json_object_get(j, "startTime") && !json_object_get(j, "exitCode"));
	json_decref(j);
	j = get_json(&d, "/v1/jobs/crop"); /* the plan's job */
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "state")), "pending");
	json_decref(j);
	ASSERT_STR_CONTAINS(answer(&d, "GET", "/v1/jobs/43", ""), "404 {\"error\"");
	ASSERT_STR_CONTAINS(answer(&d, "GET", "/v1/jobs/43", ""), "no job or job array named \\\"43\\\"\"");
	remote.ended_after = "the cluster lists an ended job for an hour";
	ASSERT_STR_CONTAINS(answer(&d, "GET", "/v1/jobs/43", ""),
			    "named \\\"43\\\" in remote now: the cluster lists an ended job for an hour\"");
	struct fw_store_decision dec = { 1, 98100, 1, "start", "43", "", "started", "started: 2 GPUs" };
	ASSERT_EQ(fw_store_log_decision(d.store, &dec), FW_OK);
	ASSERT_STR_CONTAINS(answer(&d, "GET", "/v1/jobs/43", ""),
			    "for an hour; fairway's log keeps its decisions about it: fairway decisions --job 43 (GET "
			    "/v1/decisions?job=43)");
	d.bops = &fw_backend_local;
	daemon_down(&d);
}

/* One node, all of it running train until 106200 (a 2 h run from 99000):
 * wait and late each expected then, soon (1 GPU) started now. */
/* Unix time t as the daemon's texts write it, by libc (not the core's
 * writer the daemon uses): "2026-12-06T16:42:05Z". */
static const char *gm(json_int_t t, char *buf, size_t n)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, n, "?");
	return buf;
}

static const char waiting_yaml[] =
	"now: 100000\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi}\n"
	"queues:\n"
	"  - {name: q, resources: {gpu: {quota: 8}}}\n"
	"jobs:\n"
	"  - {name: train, queue: q, state: running, startTime: 99000, submitTime: 98000, expectedRuntime: 2h,\n"
	"     tasks: [{count: 1, gpus: 8, cpu: 8, memory: 64Gi}], allocation: [{node: n0, gpus: [0, 1, 2, 3, 4, 5, "
	"6, 7]}]}\n"
	"  - {name: wait, queue: q, submitTime: 98500, expectedRuntime: 1h,\n"
	"     tasks: [{count: 1, gpus: 8, cpu: 8, memory: 64Gi}]}\n"
	"  - {name: late, queue: q, submitTime: 98600, expectedRuntime: 1h,\n"
	"     tasks: [{count: 1, gpus: 8, cpu: 8, memory: 64Gi}]}\n";

/* A job the backend keeps aside until a time it knows (Slurm: a requeued
 * job's begin time, its --begin) has that time as its expected start
 * (before, null with unknownWhy begin_time, though `fairway jobs` named
 * the time in its words); a job the plan has too, whose estimate is
 * sooner than that time, is expected at that time, its reasonText saying
 * why; a later estimate stays the plan's. */
TEST(a_job_aside_until_a_known_time_is_expected_then)
{
	struct fw_serve d;
	struct fw_backend_ops remote;
	struct fw_backend_aside a[3];
	json_t *j, *late;
	json_int_t at;
	char want[200], w1[32], w2[32];

	daemon_up(&d);
	remote = fw_backend_local; /* not the local backend: the view's jobs are the list */
	remote.name = "remote";
	d.bops = &remote;
	publish_yaml_view(&d, waiting_yaml, (int)sizeof waiting_yaml - 1);
	j = get_json(&d, "/v1/jobs/wait");
	ASSERT(json_is_integer(json_object_get(j, "expectedStart")));
	at = json_integer_value(json_object_get(j, "expectedStart"));
	ASSERT(at >= 106200);
	json_decref(j);
	late = get_json(&d, "/v1/jobs/late");
	ASSERT(json_is_integer(json_object_get(late, "expectedStart")));
	memset(a, 0, sizeof a);
	snprintf(a[0].job, sizeof a[0].job, "840");
	snprintf(a[0].queue, sizeof a[0].queue, "acct");
	snprintf(a[0].reason, sizeof a[0].reason, "begin_time");
	snprintf(a[0].text, sizeof a[0].text, "requeued (2 times): its begin time ..., its expected start at the earliest");
	a[0].gpus = 8;
	a[0].submitted = 99000;
	a[0].earliest = 100121;
	a[1] = a[0];
	snprintf(a[1].job, sizeof a[1].job, "wait"); /* read after the plan's read: requeued since */
	a[1].earliest = at + 600;
	a[2] = a[0];
	snprintf(a[2].job, sizeof a[2].job, "late"); /* the plan's estimate is the later */
	a[2].earliest = 100121;
	fw_serve_view_aside(d.view, a, 3);
	ASSERT_STR_EQ(listed(&d, "pending", NULL, NULL, NULL), "wait,late,840");
	j = get_json(&d, "/v1/jobs/840");
	ASSERT(json_is_false(json_object_get(j, "planned")));
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "reason")), "begin_time");
	ASSERT_EQ(json_integer_value(json_object_get(j, "expectedStart")), 100121);
	ASSERT(!json_object_get(j, "unknownWhy"));
	ASSERT(!json_object_get(j, "unknownWhyText"));
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "reasonText")), a[0].text);
	json_decref(j);
	j = get_json(&d, "/v1/jobs/wait");
	ASSERT(!json_object_get(j, "planned"));
	ASSERT_EQ(json_integer_value(json_object_get(j, "expectedStart")), at + 600);
	snprintf(want, sizeof want, "; not before %s, when the cluster starts it at the earliest (begin_time), "
		 "later than the plan's %s", gm(at + 600, w1, sizeof w1), gm(at, w2, sizeof w2)); /* UTC dates */
	ASSERT_STR_CONTAINS(json_string_value(json_object_get(j, "reasonText")), want);
	json_decref(j);
	j = get_json(&d, "/v1/jobs/late");
	ASSERT(json_equal(j, late));
	json_decref(j);
	json_decref(late);
	d.bops = &fw_backend_local;
	daemon_down(&d);
}

/* ?health= keeps the nodes in the states it names, and degraded (bad
 * GPUs) or lemon ones (the figures stay the fleet's); a word that is
 * none of those, an empty word or list: 400. */
TEST(the_node_list_filters_by_health)
{
	struct served f;

	served_up(&f);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(nodes_in(&f.d, NULL), "200 n0 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "healthy"), "200 n0 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "unhealthy,draining"), "200 of 8 GPUs");
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/nodes/n0/health", "{\"healthy\":false,\"reason\":\"XID 79\"}"), 200);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(nodes_in(&f.d, "unhealthy,draining"), "200 n0 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "draining,unhealthy"), "200 n0 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "healthy,suspect"), "200 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "degraded,lemon"), "200 of 8 GPUs");
	/* healthy with a bad GPU: degraded (as `fairway nodes` says), not a lemon */
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/nodes/n0/health", "{\"healthy\":true,\"reason\":\"ok\",\"badGpus\":[2]}"),
		  200);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(nodes_in(&f.d, "degraded"), "200 n0 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "lemon,unhealthy"), "200 of 8 GPUs");
	ASSERT_STR_EQ(nodes_in(&f.d, "healthy"), "200 n0 of 8 GPUs");
	static const char *const bad[] = { "", "sick", "unhealthy,", ",unhealthy", "unhealthy,,draining", "Healthy",
					   "unhealth", "Degraded", "lemons", "degradedxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ASSERT_STR_CONTAINS(nodes_in(&f.d, bad[i]), "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"health\"");
	served_down(&f);
}

/* A report with every GPU of the node in badGpus is unhealthy, whatever
 * its "healthy" says: the node takes no work, the reason says why before
 * the sender's; one GPU short of all stays a healthy report (degraded). */
TEST(a_report_with_every_gpu_bad_makes_the_node_unhealthy)
{
	struct served f;
	json_t *n;

	served_up(&f);
	ASSERT_EQ(post(&f.d, "/v1/nodes/n0/health", "{\"healthy\":true,\"reason\":\"XID 79\",\"badGpus\":[0,1,2,3,4,5,6]}"),
		  200);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(nodes_in(&f.d, "degraded"), "200 n0 of 8 GPUs");
	ASSERT_EQ(post(&f.d, "/v1/nodes/n0/health",
		       "{\"healthy\":true,\"reason\":\"XID 79\",\"badGpus\":[0,1,2,3,4,5,6,7]}"),
		  200);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(nodes_in(&f.d, "unhealthy"), "200 n0 of 8 GPUs");
	n = get_json(&f.d, "/v1/nodes/n0");
	ASSERT(!json_is_true(json_object_get(n, "healthy")));
	ASSERT(!json_is_true(json_object_get(n, "schedulable")));
	ASSERT_STR_EQ(json_string_value(json_object_get(n, "healthReason")), "every GPU bad (8 of 8): XID 79");
	json_decref(n);
	served_down(&f);
}

/* GET /v1/decisions with query arguments args (NULL-ended pairs) and
 * ?limit=: "STATUS kind:job,... [truncated]", or "STATUS body". */
static const char *log_rows(struct fw_serve *d, const char *limit, const char *const *args)
{
	struct fw_api_req rq = { "GET", "/v1/decisions", NULL, limit, "", "", 0, args, NULL };

	return answer_line(d, &rq, "decisions", "kind", "job");
}

/* GET /v1/decisions: the log's last rows, oldest first, by job, kind and
 * time, "truncated" when more match; bad arguments name themselves. */
TEST(the_decision_log_is_served_with_its_filters)
{
	struct served f;
	char since[32];

	served_up(&f);
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200");
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* a starts at 5000, b is reserved from 5100 */
	fixed_now += 200;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* b starts at 5200 */
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a,reserve:b,start:b");
	ASSERT_STR_EQ(log_rows(&f.d, "2", NULL), "200 reserve:b,start:b truncated");
	ASSERT_STR_EQ(log_rows(&f.d, "3", NULL), "200 start:a,reserve:b,start:b");
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "job", "b", NULL }), "200 reserve:b,start:b");
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "kind", "start", NULL }), "200 start:a,start:b");
	snprintf(since, sizeof since, "%lld", (long long)fixed_now);
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "since", since, NULL }), "200 start:b");
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "kind", "start", "job", "a", "since", "0", NULL }),
		      "200 start:a");
	ASSERT_STR_CONTAINS(log_rows(&f.d, NULL, (const char *const[]){ "kind", "begin", NULL }),
			    "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"kind\"");
	/* -N: the last N seconds by the daemon's clock (fixed_now is 5200) */
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "since", "-199", NULL }), "200 start:b");
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "since", "-200", NULL }),
		      "200 start:a,reserve:b,start:b");
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "since", "-0", NULL }), "200 start:b");
	ASSERT_STR_EQ(log_rows(&f.d, NULL, (const char *const[]){ "since", "-99999", NULL }),
		      "200 start:a,reserve:b,start:b");
	static const char *const bad_since[] = { "-", "--1", "-x", "- 1", "", "1e3", "12x", "99999999999999999999",
						 "-99999999999999999999", " 5", "+5" };
	for (size_t i = 0; i < sizeof bad_since / sizeof bad_since[0]; i++)
		ASSERT_STR_CONTAINS(log_rows(&f.d, NULL, (const char *const[]){ "since", bad_since[i], NULL }),
				    "\"field\":\"since\"");
	ASSERT_STR_CONTAINS(log_rows(&f.d, "0", NULL), "\"field\":\"limit\"");
	ASSERT_STR_CONTAINS(log_rows(&f.d, "100001", NULL), "\"field\":\"limit\"");
	served_down(&f);
}

/* GET /v1/plan with query arguments args (NULL-ended pairs, or NULL) and
 * ?limit=: "STATUS kind:job-or-node,... | pending,...", then " truncated"
 * when the answer says so; "STATUS BODY" when it is not a 200. */
static const char *plan_rows(struct fw_serve *d, const char *limit, const char *const *args)
{
	static char out[4096];
	struct fw_api_req rq = { "GET", "/v1/plan", NULL, limit, "", "", 0, args, NULL };
	struct fw_api_resp rs;
	json_t *o, *e;
	size_t i, k;

	fw_api_handle(d, &rq, &rs);
	k = (size_t)snprintf(out, sizeof out, "%u", rs.status);
	if (rs.status == 200 && (o = json_loads(rs.body, 0, NULL))) {
		json_array_foreach(json_object_get(o, "decisions"), i, e) {
			const char *job = json_string_value(json_object_get(e, "job"));
			k += (size_t)snprintf(out + k, sizeof out - k, "%s%s:%s", i ? "," : " ",
					      json_string_value(json_object_get(e, "kind")),
					      job && *job ? job : json_string_value(json_object_get(e, "node")));
		}
		k += (size_t)snprintf(out + k, sizeof out - k, " |");
		json_array_foreach(json_object_get(o, "pending"), i, e)
			k += (size_t)snprintf(out + k, sizeof out - k, "%s%s", i ? "," : " ",
					      json_string_value(json_object_get(e, "name")));
		if (json_is_true(json_object_get(o, "truncated")))
			k += (size_t)snprintf(out + k, sizeof out - k, " truncated");
		if (json_integer_value(json_object_get(o, "cycle")) < 1 || json_array_size(json_object_get(o, "fairshare")) < 2)
			snprintf(out + k, sizeof out - k, " (no cycle or fair share)");
		json_decref(o);
	} else {
		snprintf(out + k, sizeof out - k, " %s", rs.body ? rs.body : "");
	}
	free(rs.body);
	return out;
}

/* Two queues, four jobs on two nodes of 8 GPUs: a and b (8 GPUs each,
 * q) start, c (q) is reserved for the first node free; d (r) waits.
 * The plan of the cycle after n1 is reported unhealthy: n1 drained, the
 * job on it evicted. */
static void plan_scene(struct served *f)
{
	two_nodes_up(f);
	ASSERT_EQ(post(&f->d, "/v1/queues", "{\"name\":\"r\"}"), 201);
	submit(&f->d, "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	submit(&f->d, "{\"name\":\"b\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	submit(&f->d, "{\"name\":\"c\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	submit(&f->d, "{\"name\":\"d\",\"queue\":\"r\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f->d, &f->ar));
}

/* GET /v1/plan's filters: ?kind= (decision kinds and pending), ?queue=,
 * ?job=, ?node= (the decisions naming it; no waiting job) and ?limit=
 * (each list, "truncated" when one is cut), together; the cycle and the
 * fair share stay whole; bad words are 400 naming the argument, with the
 * nearest kind when it is a typo. */
TEST(the_plan_filters_by_kind_queue_job_node_and_limit)
{
	struct served f;

	plan_scene(&f);
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, NULL), "200 start:a,start:b,reserve:c,reserve:d | c,d");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "start", NULL }), "200 start:a,start:b |");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "pending", NULL }), "200 | c,d");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "pending,reserve", NULL }),
		      "200 reserve:c,reserve:d | c,d");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "queue", "r", NULL }), "200 reserve:d | d");
	ASSERT_STR_CONTAINS(plan_rows(&f.d, NULL, (const char *const[]){ "queue", "nosuch", NULL }),
			    "400 {\"error\":{\"status\":400,\"code\":\"ENOENT\",\"field\":\"queue\"");
	ASSERT_STR_CONTAINS(plan_rows(&f.d, NULL, (const char *const[]){ "node", "n9", NULL }), "\"field\":\"node\"");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "job", "c", NULL }), "200 reserve:c | c");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "job", "b", "kind", "pending", NULL }), "200 |");
	/* a started on n0, b on n1; c is reserved on n0 (a ends first), d on n1 */
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "node", "n0", NULL }), "200 start:a,reserve:c |");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "node", "n1", "queue", "q", NULL }),
		      "200 start:b |");
	/* ?limit=: the first of each list, "truncated" only when one is cut */
	ASSERT_STR_EQ(plan_rows(&f.d, "1", NULL), "200 start:a | c truncated");
	ASSERT_STR_EQ(plan_rows(&f.d, "2", (const char *const[]){ "kind", "start,pending", NULL }),
		      "200 start:a,start:b | c,d");
	ASSERT_STR_EQ(plan_rows(&f.d, "1", (const char *const[]){ "kind", "pending", NULL }), "200 | c truncated");
	ASSERT_STR_EQ(plan_rows(&f.d, "1", (const char *const[]){ "job", "c", NULL }), "200 reserve:c | c");
	/* n1 unhealthy: drained, b evicted and waiting again, d now on n0 after c */
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/nodes/n1/health", "{\"healthy\":false,\"reason\":\"XID 79\"}"), 200);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, NULL), "200 drain:n1,evict:b,reserve:c,reserve:d | b,c,d");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "node", "n1", NULL }), "200 drain:n1,evict:b |");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "drain", NULL }), "200 drain:n1 |");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "drain,evict", "queue", "q", NULL }),
		      "200 evict:b |"); /* a drain is no queue's */
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "job", "b", NULL }), "200 evict:b | b");
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "node", "n0", "kind", "reserve,pending", NULL }),
		      "200 reserve:c,reserve:d |"); /* a waiting job names no node */
	/* bad arguments: 400 naming them, a typo's nearest kind */
	ASSERT_STR_EQ(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "strat", NULL }),
		      "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"kind\",\"message\":\"\\\"strat\\\" is "
		      "not a kind (did you mean \\\"start\\\"?); give a comma-separated list of start, evict, reserve, "
		      "drain, timeout, pending\"}}");
	static const char *const bad[] = { "", ",", "start,", ",start", "start,,evict", "Start", "requeue", "starts" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ASSERT_STR_CONTAINS(plan_rows(&f.d, NULL, (const char *const[]){ "kind", bad[i], NULL }),
				    "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"kind\"");
	ASSERT_STR_CONTAINS(plan_rows(&f.d, NULL, (const char *const[]){ "kind", "start,,evict", NULL }),
			    "has an empty word");
	static const char *const bad_limit[] = { "0", "100001", "x", "-1", "" };
	for (size_t i = 0; i < sizeof bad_limit / sizeof bad_limit[0]; i++)
		ASSERT_STR_CONTAINS(plan_rows(&f.d, bad_limit[i], NULL), "400 {\"error\":{\"status\":400,\"code\":\"ERANGE\","
									 "\"field\":\"limit\"");
	ASSERT_STR_CONTAINS(plan_rows(&f.d, NULL, (const char *const[]){ "reason", "drained", NULL }),
			    "\"field\":\"reason\",\"message\":\"unknown query parameter; GET /v1/plan takes only kind,queue,"
			    "job,node,limit");
	served_down(&f);
}

/* GET /v1/jobs?reason=R,...: the jobs whose reason is one of them, as
 * listed from the plan and from the local backend (not_yet_considered),
 * with the other filters; a word that is no reason: 400 naming reason
 * with the nearest one and every one (a backend's own only where it is
 * that backend: jobs_the_backend_keeps_aside_are_listed_with_their_reason). */
static const char *by_reason(struct fw_serve *d, const char *state, const char *reason, const char *queue)
{
	const char *args[5];
	struct fw_api_req rq = { "GET", "/v1/jobs", state, NULL, "", "", 0, query(args, "reason", reason, "queue", queue),
				 NULL };

	return answer_line(d, &rq, "jobs", "name", "reason");
}

TEST(the_job_list_filters_by_reason)
{
	struct served f;

	plan_scene(&f);
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/nodes/n1/health", "{\"healthy\":false,\"reason\":\"XID 79\"}"), 200);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	submit(&f.d, "{\"name\":\"e\",\"queue\":\"r\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}"); /* after the plan */
	ASSERT_STR_EQ(by_reason(&f.d, NULL, NULL, NULL), "200 a:,b:drained,c:has_reservation,d:has_reservation,"
							 "e:not_yet_considered");
	ASSERT_STR_EQ(by_reason(&f.d, NULL, "has_reservation", NULL), "200 c:has_reservation,d:has_reservation");
	ASSERT_STR_EQ(by_reason(&f.d, NULL, "drained,not_yet_considered", NULL), "200 b:drained,e:not_yet_considered");
	ASSERT_STR_EQ(by_reason(&f.d, NULL, "has_reservation,not_yet_considered", "r"),
		      "200 d:has_reservation,e:not_yet_considered");
	ASSERT_STR_EQ(by_reason(&f.d, "running", "has_reservation", NULL), "200");
	ASSERT_STR_EQ(by_reason(&f.d, NULL, "gpu_model", NULL), "200"); /* a reason no job has: none */
	ASSERT_STR_CONTAINS(by_reason(&f.d, NULL, "gpu_modle", NULL),
			    "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"reason\",\"message\":\"\\\""
			    "gpu_modle\\\" is not a reason (did you mean \\\"gpu_model\\\"?); give a comma-separated list "
			    "of fairshare_order, over_quota, ");
	ASSERT_STR_CONTAINS(by_reason(&f.d, NULL, "gpu_modle", NULL), ", leaving, gpus_busy, queue_limit, unknown_reserved, min_runtime, gpu_share, nodes_out, limit_held, not_yet_considered, held\"}}");
	ASSERT_STR_EQ(by_reason(&f.d, NULL, "held", NULL), "200"); /* Slurm's, on every backend: none held here */
	static const char *const bad[] = { "", "drained,", "none", "started", "hold", "Drained", "drained,,moved" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ASSERT_STR_CONTAINS(by_reason(&f.d, NULL, bad[i], NULL), "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\","
									 "\"field\":\"reason\"");
	served_down(&f);
}

/* GET /v1/jobs?array=NAME[&state=S]: "STATUS name:arrayOf,...". */
static const char *by_array(struct fw_serve *d, const char *state, const char *array)
{
	const char *args[3] = { "array", array, NULL };
	struct fw_api_req rq = { "GET", "/v1/jobs", state, NULL, "", "", 0, args, NULL };

	return answer_line(d, &rq, "jobs", "name", "arrayOf");
}

/* A job array as a whole (GET /v1/jobs/NAME of an array's NAME): its
 * tasks by state, the waiting ones by reason and the range of their
 * expected starts, as the tasks themselves say; ?array= lists its tasks,
 * each with arrayOf, with the other filters; an unknown name lists
 * nothing, with a hint, and is 404 as a job. */
TEST(a_job_array_is_shown_whole_and_its_tasks_listed)
{
	struct served f;
	char body[4096];

	two_nodes_up(&f);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"sw\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}],"
			 "\"array\":\"0-3\"}"), 201);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(by_array(&f.d, NULL, "sw"), "200 sw_0:sw,sw_1:sw,sw_2:sw,sw_3:sw");
	ASSERT_STR_EQ(by_array(&f.d, "running", "sw"), "200 sw_0:sw,sw_1:sw");
	json_t *a = get_json(&f.d, "/v1/jobs/sw"), *s2 = get_json(&f.d, "/v1/jobs/sw_2"), *s3 = get_json(&f.d, "/v1/jobs/sw_3");
	ASSERT_STR_EQ(json_string_value(json_object_get(a, "kind")), "array");
	ASSERT_STR_EQ(json_string_value(json_object_get(a, "indices")), "0-3");
	ASSERT_EQ(json_integer_value(json_object_get(a, "count")), 4);
	ASSERT_EQ(json_integer_value(json_object_get(a, "gpus")), 8);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "states"), "running")), 2);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "states"), "pending")), 2);
	const char *r2 = json_string_value(json_object_get(s2, "reason")), *r3 = json_string_value(json_object_get(s3, "reason"));
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "reasons"), r2)), strcmp(r2, r3) ? 1 : 2);
	ASSERT_EQ(json_object_size(json_object_get(a, "reasons")), strcmp(r2, r3) ? 2 : 1);
	json_int_t t2 = json_integer_value(json_object_get(s2, "expectedStart")),
		   t3 = json_integer_value(json_object_get(s3, "expectedStart"));
	ASSERT(t2 > 0 && t3 > 0);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "expectedStart"), "earliest")), t2 < t3 ? t2 : t3);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "expectedStart"), "latest")), t2 < t3 ? t3 : t2);
	ASSERT_EQ(json_integer_value(json_object_get(a, "unknownStarts")), 0);
	ASSERT_STR_EQ(json_string_value(json_object_get(s2, "arrayOf")), "sw");
	json_decref(a), json_decref(s2), json_decref(s3);
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/jobs/sw_3", ""), 200);
	a = get_json(&f.d, "/v1/jobs/sw");
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "states"), "cancelled")), 1);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(a, "states"), "pending")), 1);
	ASSERT_EQ(json_object_size(json_object_get(a, "reasons")), 1);
	json_decref(a);
	ASSERT_STR_EQ(by_array(&f.d, NULL, "sw"), "200 sw_0:sw,sw_1:sw,sw_2:sw");
	ASSERT_STR_EQ(by_array(&f.d, "cancelled", "sw"), "200 sw_3:sw");
	ASSERT_STR_EQ(by_array(&f.d, NULL, "nope"), "200");
	const char *args[3] = { "array", "nope", NULL };
	struct fw_api_req rq = { "GET", "/v1/jobs", NULL, NULL, "", "", 0, args, NULL };
	struct fw_api_resp rs;
	fw_api_handle(&f.d, &rq, &rs);
	ASSERT_STR_CONTAINS(rs.body, "\"hint\":\"no job array named \\\"nope\\\" is remembered");
	free(rs.body);
	ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/nope", "", body, sizeof body), 404);
	ASSERT_STR_CONTAINS(body, "no job or job array named \\\"nope\\\"");
	served_down(&f);
}

/* The value of one /metrics sample (the line "NAME VALUE"), or -1. */
static double sample(struct fw_serve *d, const char *name)
{
	char body[65536], *at;
	size_t n = strlen(name);

	if (request(d, "GET", "/metrics", "", body, sizeof body) != 200)
		return -2;
	for (at = body; (at = strstr(at, name)); at += n)
		if ((at == body || at[-1] == '\n') && at[n] == ' ')
			return strtod(at + n + 1, NULL);
	return -1;
}

/* Time to start counts from submission, and for a job the daemon evicted
 * from its requeue; GPU-hours are the running jobs' GPUs x the time
 * between cycles, and an ended job's to its end (b's last 100 s, which
 * no cycle saw it run).  a (4 GPUs) starts at 5000, b (8 GPUs, higher
 * priority) preempts it at 5100 and runs 300 s; a starts again at 5400:
 * waits 0, 0 and 300 (400 had it counted from a's submission). */
TEST(time_to_start_counts_from_the_last_requeue_and_gpu_hours_accrue)
{
	struct served f;

	served_up(&f);
	ASSERT_EQ(sample(&f.d, "fairway_wait_seconds_count{gpus=\"1-8\"}"), 0);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_count{queue=\"q\"}"), -1); /* no start yet */
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}"); /* no runtime: b gets no reservation, and preempts */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	fixed_now = 5100;
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"priority\":10,\"runtime\":300,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a,evict:a,start:b");
	ASSERT_EQ(f.d.m.nrequeued, 1);
	ASSERT_STR_EQ(f.d.m.requeued[0].job, "a");
	fixed_now = 5300;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	fixed_now = 5400;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a,evict:a,start:b,reserve:a,start:a");
	ASSERT_EQ(f.d.m.nrequeued, 0); /* a's start took it off the requeued list */
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_count{queue=\"q\"}"), 3);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_sum{queue=\"q\"}"), 300);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_bucket{queue=\"q\",le=\"60\"}"), 2);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_bucket{queue=\"q\",le=\"300\"}"), 3);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_bucket{queue=\"q\",le=\"+Inf\"}"), 3);
	ASSERT_EQ(sample(&f.d, "fairway_wait_seconds_count{gpus=\"1-8\"}"), 3);
	ASSERT_EQ(sample(&f.d, "fairway_wait_seconds_count{gpus=\"9-32\"}"), 0);
	ASSERT_EQ(sample(&f.d, "fairway_queue_evictions_total{queue=\"q\"}"), 1);
	/* GET /v1/stats (fairway stats) says the same: waits 0, 0, 300 */
	char body[8192];
	ASSERT_EQ(request(&f.d, "GET", "/v1/stats", "", body, sizeof body), 200);
	json_t *st = json_loads(body, 0, NULL), *w = json_array_get(json_object_get(st, "waits"), 0);
	json_t *q = json_array_get(json_object_get(st, "queues"), 0);
	ASSERT_STR_EQ(json_string_value(json_object_get(w, "gpus")), "1-8");
	ASSERT_EQ(json_integer_value(json_object_get(w, "starts")), 3);
	ASSERT_EQ(json_real_value(json_object_get(w, "meanSeconds")), 100);
	ASSERT_EQ(json_integer_value(json_object_get(w, "p50AtMost")), 10);
	ASSERT_EQ(json_integer_value(json_object_get(w, "p95AtMost")), 300);
	ASSERT(json_is_null(json_object_get(json_array_get(json_object_get(st, "waits"), 2), "p50AtMost")));
	ASSERT_STR_EQ(json_string_value(json_object_get(q, "queue")), "q");
	ASSERT_EQ(json_integer_value(json_object_get(q, "evictions")), 1);
	ASSERT(fabs(json_real_value(json_object_get(q, "gpuHours")) - 2800.0 / 3600) < 1e-6); /* below */
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(st, "cycles"), "applied")), 4);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(st, "decisions"), "starts")), 3);
	ASSERT_EQ(json_integer_value(json_object_get(json_object_get(st, "decisions"), "evictions")), 1);
	ASSERT_EQ(json_integer_value(json_object_get(st, "uptimeSeconds")), 400); /* opened at 5000, now 5400 */
	json_decref(st);
	/* a 4 GPUs x 100 s, then b 8 x 300 s: 200 s seen running, and the
	 * last 100 s to its end at 5400, which the 5400 cycle's read ended
	 * (an ended run counts to its end, not to the cycle before it) */
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 2800.0 / 3600) < 1e-6);
	fixed_now = 5400; /* the clock standing still adds nothing */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 2800.0 / 3600) < 1e-6);
	fixed_now = 5460;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 3040.0 / 3600) < 1e-6);
	served_down(&f);
}

/* The daemon stops and starts again on its state directory. */
static void served_restart(struct served *f)
{
	char err[512];

	fw_serve_close(&f->d);
	if (fw_serve_open(&f->d, &f->o, err, sizeof err) != FW_OK) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
}

/* A config without queues (a fleet alone: queues come later through the
 * API) opens, cycles, restarts and takes its first queue: the queue
 * order of no queues copies nothing (it passed memcpy a NULL: UBSan's
 * "null pointer passed as argument 1" at every `fairway serve` start on
 * such a config). */
TEST(a_config_without_queues_opens_cycles_and_takes_its_first_queue)
{
	static const char fleet_only[] = "nodes:\n  - {name: n0, gpus: 8}\n";
	struct served f;

	up_yaml = fleet_only;
	served_up(&f);
	up_yaml = NULL;
	ASSERT_EQ(f.d.nqueues, 0);
	ASSERT_OK(fw_serve_queue_order(f.d.queues, f.d.nqueues));
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	served_restart(&f); /* a store with no queues restored */
	ASSERT_EQ(f.d.nqueues, 0);
	ASSERT_EQ(send_as(&f.d, "PUT", "/v1/queues/first", "{\"deserved\":{\"gpu\":8}}"), 201);
	ASSERT_EQ(f.d.nqueues, 1);
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/jobs", "{\"name\":\"j\",\"queue\":\"first\",\"tasks\":[{\"gpus\":8}]}"),
		  201);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/jobs/j", ""), 200);
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/queues/first", ""), 200);
	served_restart(&f); /* every queue deleted: none again */
	ASSERT_EQ(f.d.nqueues, 0);
	served_down(&f);
}

/* A wrong method's 405 names the methods the path takes in its message
 * as in its Allow header (curl without -i, and most clients' errors,
 * show the body only). */
TEST(a_wrong_method_says_which_methods_the_path_takes)
{
	struct served f;
	char out[512];
	struct fw_api_req rq = { "PATCH", "/v1/queues", NULL, NULL, NULL, "", 0, NULL, NULL };
	struct fw_api_resp rs;

	served_up(&f);
	ASSERT_EQ(request(&f.d, "PATCH", "/v1/queues", "", out, sizeof out), 405);
	ASSERT(strstr(out, "\"message\":\"PATCH is not allowed on /v1/queues; it takes GET, HEAD, POST "
			   "(docs/openapi.yaml)\"") != NULL);
	ASSERT_EQ(request(&f.d, "PUT", "/v1/jobs/x", "", out, sizeof out), 405);
	ASSERT(strstr(out, "PUT is not allowed on /v1/jobs/x; it takes GET, HEAD, DELETE (docs/openapi.yaml)") != NULL);
	fw_api_handle(&f.d, &rq, &rs); /* the header's list is the message's */
	ASSERT_EQ(rs.status, 405);
	ASSERT_STR_EQ(rs.allow, "GET, HEAD, POST");
	free(rs.body);
	served_down(&f);
}

/* A queue a store written before the API became strict holds with more
 * than 6 decimals (its overQuotaWeight, its gpuHourBudget) is restored,
 * rounded to 6, with one warning line on stderr naming the queue and the
 * fields; the API still refuses such a value. */
TEST(a_stored_queue_with_seven_decimals_is_restored_rounded)
{
	struct served f;
	char err[4096];
	FILE *tmp = tmpfile();
	size_t got;
	int keep;

	ASSERT(tmp != NULL);
	served_up(&f);
	ASSERT_OK(fw_store_put(f.d.store, FW_STORE_QUEUES, "old",
			       "{\"name\":\"old\",\"deserved\":{\"gpu\":1},\"overQuotaWeight\":{\"gpu\":1.2345678},"
			       "\"gpuHourBudget\":50.0000004}"));
	fflush(stderr);
	keep = dup(2);
	dup2(fileno(tmp), 2);
	served_restart(&f);
	fflush(stderr);
	dup2(keep, 2);
	close(keep);
	rewind(tmp);
	got = fread(err, 1, sizeof err - 1, tmp);
	err[got] = '\0';
	fclose(tmp);
	ASSERT(strstr(err, "fairway serve: warning: queue \"old\" in the store has more than 6 decimals: "
			   "overQuotaWeight.gpu 1.2345678 -> 1.234568; gpuHourBudget 50.0000004 -> 50; restored rounded") != NULL);
	int i = fw_serve_queue_index(&f.d, "old");
	ASSERT(i >= 0);
	ASSERT(f.d.queues[i].weight[FW_RES_GPU] == 1.234568);
	ASSERT(f.d.queues[i].gpu_hour_budget == 50);
	/* the API stays strict: a seventh decimal is refused, nothing changed */
	ASSERT_EQ(send_as(&f.d, "PATCH", "/v1/queues/old", "{\"overQuotaWeight\":{\"gpu\":2.1234567}}"), 400);
	ASSERT(f.d.queues[fw_serve_queue_index(&f.d, "old")].weight[FW_RES_GPU] == 1.234568);
	served_down(&f);
}

/* A restart on a config whose queues or jobs are not the store's: the
 * store wins, and fw_serve_config_drift names each difference (what
 * `fairway serve` warns of): a queue only the config has, one only the
 * store has (made by the API), a queue whose settings differ (by the
 * API's member names), a config job the store never held.  The same
 * config again, or a first start, has none. */
static const char drift_yaml[] = "now: 0\n"
				 "nodes:\n"
				 "  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"
				 "queues:\n"
				 "  - {name: q, resources: {gpu: {quota: 4, limit: 6}}}\n"
				 "  - {name: r, resources: {gpu: {quota: 4}}}\n"
				 "jobs:\n"
				 "  - {name: late, queue: q, submitTime: 0, tasks: [{gpus: 1}]}\n";

TEST(a_restart_names_what_the_config_says_and_the_store_overrides)
{
	struct served f;
	char line[1024], body[4096];

	served_up(&f);
	ASSERT_EQ(fw_serve_config_drift(&f.d, line, sizeof line), 0); /* a first start: nothing to compare */
	served_restart(&f);
	ASSERT_EQ(fw_serve_config_drift(&f.d, line, sizeof line), 0); /* the same config */
	ASSERT_STR_EQ(line, "");
	ASSERT_EQ(send_as(&f.d, "PUT", "/v1/queues/api", "{\"deserved\":{\"gpu\":1}}"), 201);
	f.o.embedded_yaml = drift_yaml;
	f.o.embedded_len = strlen(drift_yaml);
	served_restart(&f);
	ASSERT_EQ(fw_serve_config_drift(&f.d, line, sizeof line), 4);
	ASSERT_STR_EQ(line, "queue \"q\" has other deserved, limit in the config; queue \"r\" is in the config, not "
			    "the store; queue \"api\" is in the store, not the config; job \"late\" is in the config, "
			    "not the store");
	ASSERT_EQ(fw_serve_queue_index(&f.d, "r"), -1); /* the store won: nothing changed */
	ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/late", "", body, sizeof body), 404);
	/* a cut line counts the rest */
	ASSERT_EQ(fw_serve_config_drift(&f.d, line, 80), 4);
	ASSERT_STR_EQ(line, "queue \"q\" has other deserved, limit in the config; and 3 more");
	f.o.embedded_yaml = NULL;
	served_down(&f);
}

/* A restarted daemon finds the jobs that wait again after an eviction in
 * its decision log: a, evicted at 5100, restarted daemon at 5200, starts
 * at 5400 and waited 300 s (400 had the restart forgotten the eviction).
 * Once a has started again, a second restart finds nothing. */
TEST(requeue_times_survive_a_restart)
{
	struct served f;

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	fixed_now = 5100;
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"priority\":10,\"runtime\":300,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a,evict:a,start:b");
	fixed_now = 5200;
	served_restart(&f);
	ASSERT_EQ(f.d.m.nrequeued, 1);
	ASSERT_STR_EQ(f.d.m.requeued[0].job, "a");
	ASSERT_EQ(f.d.m.requeued[0].at, 5100);
	fixed_now = 5400;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_CONTAINS(log_rows(&f.d, NULL, NULL), ",start:a");
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_count{queue=\"q\"}"), 1);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_sum{queue=\"q\"}"), 300);
	served_restart(&f);
	ASSERT_EQ(f.d.m.nrequeued, 0);
	served_down(&f);
}

/* Two nodes of 8 GPUs (two_nodes_yaml) and job a, 8 GPUs, started on n0
 * by one cycle. */
static void a_job_on_n0(struct served *f, char *body, size_t n)
{
	two_nodes_up(f);
	submit(&f->d, "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":1000,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f->d, &f->ar));
	ASSERT_EQ(get_as(&f->d, "/v1/jobs/a", NULL, body, n), 200);
	ASSERT_STR_CONTAINS(body, "\"n0\"");
}

/* A node reported unhealthy under a running job: the next cycle drains
 * it, requeues the job and starts it again on the healthy node, all in
 * one plan that the local backend applies in order (the drain, the
 * eviction, the start).  The job runs on n1 at once; its second start
 * waited 0 s (from its requeue). */
TEST(a_drained_job_restarts_on_a_healthy_node_in_the_same_cycle)
{
	struct served f;
	char body[8192];

	a_job_on_n0(&f, body, sizeof body);
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/nodes/n0/health", "{\"healthy\":false,\"reason\":\"XID 79\"}"), 200);
	fixed_now = 5060;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a,drain:,evict:a,start:a");
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/a", NULL, body, sizeof body), 200);
	json_t *j = json_loads(body, 0, NULL);
	ASSERT(j != NULL);
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "state")), "running");
	ASSERT(strstr(body, "\"n0\"") == NULL);
	ASSERT_STR_CONTAINS(body, "\"n1\"");
	json_decref(j);
	ASSERT_EQ(sample(&f.d, "fairway_evictions_total"), 1);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_count{queue=\"q\"}"), 2);
	ASSERT_EQ(sample(&f.d, "fairway_queue_wait_seconds_sum{queue=\"q\"}"), 0);
	ASSERT_EQ(f.d.m.nrequeued, 0);
	served_down(&f);
}

/* A job restarted after an eviction that kept checkpoints is planned
 * with the rest of its runtime (local.c add_job), but the view says the
 * runtime it was submitted with: 6960 s, 3 checkpoints of 600 s kept
 * (1800 s) when n0's drain evicted it, 5160 s planned.  The view takes
 * that word from the list the cycle took with the read (cycle.c
 * submitted_runtimes), without the state lock. */
TEST(a_restarted_job_keeps_its_submitted_runtime_in_the_view)
{
	struct served f;
	char body[8192];

	two_nodes_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":6960,\"checkpointInterval\":600,"
		     "\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(send_as(&f.d, "POST", "/v1/nodes/n0/health", "{\"healthy\":false,\"reason\":\"XID 79\"}"), 200);
	fixed_now = 7200;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a,drain:,evict:a,start:a");
	fixed_now = 7201;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* its first plan since the restart */
	ASSERT_EQ(get_as(&f.d, "/v1/jobs", NULL, body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"name\":\"a\"");
	ASSERT_STR_CONTAINS(body, "\"runtime\":6960");
	ASSERT(strstr(body, "\"runtime\":5160") == NULL);
	served_down(&f);
}

/* The requeued list forgets jobs that left the world once it has grown
 * past twice what the last prune kept (and 16): a waiting job's entry
 * stays. */
TEST(requeue_times_of_jobs_gone_are_pruned)
{
	struct served f;

	up_yaml = limited_yaml;
	served_up(&f);
	up_yaml = NULL;
	submit(&f.d, "{\"name\":\"c\",\"queue\":\"q\",\"tasks\":[{\"gpus\":8}]}"); /* over the limit: waits */
	for (int i = 0; i < 17; i++) {
		struct fw_serve_requeued *r =
			fw_serve_grow(&f.d.m.requeued, &f.d.m.nrequeued, &f.d.m.cap_requeued, sizeof *r);
		ASSERT(r != NULL);
		snprintf(r->job, sizeof r->job, i == 0 ? "c" : "gone%02d", i); /* "c" < "gone..." */
		r->at = 4000;
	}
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(f.d.m.nrequeued, 1);
	ASSERT_STR_EQ(f.d.m.requeued[0].job, "c");
	ASSERT_EQ(f.d.m.requeued_kept, 1);
	served_down(&f);
}

/* GET /v1/decisions reads the log with the state lock let go: while its
 * read waits (the test holds the reader's lock), a cycle runs and other
 * requests are answered; then it answers in full. */
struct log_read {
	struct fw_serve *d;
	_Atomic int done;
	const char *line;
};

static void *log_read_thread(void *arg)
{
	struct log_read *r = arg;

	r->line = log_rows(r->d, NULL, NULL);
	r->done = 1;
	return NULL;
}

TEST(a_log_read_lets_the_state_lock_go)
{
	struct served f;
	struct log_read r;
	pthread_t th;
	bool let_go = false;

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	r = (struct log_read){ &f.d, 0, NULL };
	uint64_t before = f.d.m.http_requests;
	pthread_mutex_lock(&f.d.read_mu);
	ASSERT_EQ(pthread_create(&th, NULL, log_read_thread, &r), 0);
	for (int i = 0; i < 500 && !let_go; i++) { /* the request came in, has not answered, and mu is free */
		if (pthread_mutex_trylock(&f.d.mu) == 0) {
			let_go = f.d.m.http_requests > before && !r.done;
			pthread_mutex_unlock(&f.d.mu);
		}
		if (!let_go)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	int cycled = let_go ? fw_serve_cycle_once(&f.d, &f.ar) : -1;
	char jobs[4096] = "";
	unsigned jobs_status = let_go ? get_as(&f.d, "/v1/jobs", NULL, jobs, sizeof jobs) : 0;
	bool waited = !r.done;
	pthread_mutex_unlock(&f.d.read_mu);
	pthread_join(th, NULL);
	ASSERT(let_go);
	ASSERT_EQ(cycled, FW_OK);
	ASSERT_EQ(jobs_status, 200);
	ASSERT_STR_CONTAINS(jobs, "\"name\":\"a\"");
	ASSERT(waited);
	ASSERT_STR_EQ(r.line, "200 start:a");
	served_down(&f);
}

/* GET /v1/health does not wait for the state lock: while a cycle holds
 * it (the holding hook, just before its apply), health answers with what
 * the last cycle published, and GET /v1/queues, which reads the model,
 * waits until the cycle lets the lock go; after it, health says the new
 * cycle's number. */
struct held_get {
	struct fw_serve *d;
	const char *path;
	_Atomic int done;
	unsigned status;
	char body[2048];
};

static void *held_get_thread(void *arg)
{
	struct held_get *g = arg;

	g->status = request(g->d, "GET", g->path, "", g->body, sizeof g->body);
	g->done = 1;
	return NULL;
}

struct while_held {
	struct held_get health, queues;
	pthread_t th[2];
	bool health_answered, queues_waited;
};

/* Inside the cycle, lock held: both requests sent; health's answer is
 * waited for (5 s at most), then queues' a little. */
static void while_held(void *ctx)
{
	struct while_held *w = ctx;

	if (pthread_create(&w->th[0], NULL, held_get_thread, &w->health) ||
	    pthread_create(&w->th[1], NULL, held_get_thread, &w->queues))
		abort();
	for (int i = 0; i < 500 && !w->health.done; i++)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	w->health_answered = w->health.done;
	w->queues_waited = !w->queues.done;
}

TEST(health_answers_while_a_cycle_holds_the_state_lock)
{
	struct served f;
	struct while_held w;
	char body[2048];

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	memset(&w, 0, sizeof w);
	w.health = (struct held_get){ .d = &f.d, .path = "/v1/health" };
	w.queues = (struct held_get){ .d = &f.d, .path = "/v1/queues" };
	f.d.holding = while_held;
	f.d.holding_ctx = &w;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	f.d.holding = NULL;
	pthread_join(w.th[0], NULL);
	pthread_join(w.th[1], NULL);
	ASSERT(w.health_answered);
	ASSERT_EQ(w.health.status, 200);
	ASSERT_STR_CONTAINS(w.health.body, "\"ok\":true");
	ASSERT_STR_CONTAINS(w.health.body, "\"cycles\":1,");
	ASSERT_STR_CONTAINS(w.health.body, "\"viewReady\":true");
	ASSERT(w.queues_waited);
	ASSERT_EQ(w.queues.status, 200);
	ASSERT_STR_CONTAINS(w.queues.body, "\"name\":\"q\"");
	ASSERT_EQ(request(&f.d, "GET", "/v1/health", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"cycles\":2,");
	/* the local backend has no ended_keep: no figure, no warning */
	ASSERT_STR_CONTAINS(body, "\"warnings\":[]");
	ASSERT(!strstr(body, "minJobAgeS"));
	/* what cycle.c check_keep publishes (a backend's MinJobAge, its warning) */
	pthread_mutex_lock(&f.d.pub_mu);
	f.d.pub.keep_s = 60;
	snprintf(f.d.pub.keep_warn, sizeof f.d.pub.keep_warn, "raise MinJobAge");
	pthread_mutex_unlock(&f.d.pub_mu);
	ASSERT_EQ(request(&f.d, "GET", "/v1/health", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"minJobAgeS\":60");
	ASSERT_STR_CONTAINS(body, "\"warnings\":[\"raise MinJobAge\"]");
	pthread_mutex_lock(&f.d.mu);
	fw_serve_publish_health(&f.d); /* a cycle's publish leaves them */
	pthread_mutex_unlock(&f.d.mu);
	ASSERT_EQ(request(&f.d, "GET", "/v1/health", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"minJobAgeS\":60");
	served_down(&f);
}

/* The cycle reads the local backend in two halves (backend.h "A read
 * in two halves"): a copy under the state lock, the world built from it
 * after the lock is let go (the captured hook runs there).  A job
 * cancelled meanwhile is in that world and the plan starts it, but the
 * apply finds the plan stale (the job changed since its generation:
 * local.c plan_holds) and the cycle plans again without it: never
 * started.  The usage accrued on copies after the lock becomes the
 * model's once: the queue counts a running job's 100 s once, whatever
 * the attempts.  A job
 * submitted meanwhile is not in that world: the plan applies without it
 * and the next cycle starts it. */
struct mid_cycle {
	struct fw_serve *d;
	const char *method, *path, *body;
	int calls;
	bool lock_free;         /* the state lock was free at the first call */
	unsigned status;        /* the request's, sent at the first call */
};

static void while_built(void *ctx)
{
	struct mid_cycle *m = ctx;

	if (m->calls++ > 0)
		return;
	m->lock_free = pthread_mutex_trylock(&m->d->mu) == 0;
	if (m->lock_free)
		pthread_mutex_unlock(&m->d->mu);
	m->status = send_as(m->d, m->method, m->path, m->body);
}

static int count_start(void *ctx, const struct fw_store_decision *dec)
{
	*(int *)ctx += !strcmp(dec->kind, "start");
	return 0;
}

static int starts_of(struct fw_serve *d, const char *job)
{
	int n = 0;

	if (fw_store_job_decisions(d->store, job, INT64_MIN, 100, count_start, &n) != FW_OK)
		return -1;
	return n;
}

/* One cycle of f with m's request sent while its world is built. */
static int cycle_with(struct served *f, struct mid_cycle *m)
{
	int rc;

	m->d = &f->d;
	f->d.captured = while_built;
	f->d.captured_ctx = m;
	rc = fw_serve_cycle_once(&f->d, &f->ar);
	f->d.captured = NULL;
	return rc;
}

/* g GPUs held from a to b, as a decayed usage at now (half-life h): the
 * integral the daemon accrues (cycle.c held_for), in closed form. */
static double held(double g, double a, double b, double now, double h)
{
	return g * h / log(2.0) * (exp2(-(now - b) / h) - exp2(-(now - a) / h));
}

TEST(a_job_cancelled_while_the_world_is_built_is_never_started)
{
	struct served f;
	struct mid_cycle m = { .method = "DELETE", .path = "/v1/jobs/a", .body = "" };
	int q;

	served_up(&f);
	submit(&f.d, "{\"name\":\"r\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* r runs from 5000 */
	ASSERT_STR_EQ(state_of(&f.d, "r"), "running");
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	fixed_now = 5100;
	ASSERT_OK(cycle_with(&f, &m));
	ASSERT(m.lock_free);
	ASSERT_EQ(m.status, 200);
	ASSERT_EQ(m.calls, 2); /* planned again */
	ASSERT_EQ(f.d.m.stale, 1); /* the first plan started a */
	ASSERT_STR_EQ(state_of(&f.d, "a"), "cancelled");
	ASSERT_EQ(starts_of(&f.d, "a"), 0);
	ASSERT_EQ(starts_of(&f.d, "r"), 1);
	ASSERT((q = fw_serve_queue_index(&f.d, "q")) >= 0);
	ASSERT(fabs(f.d.queues[q].usage - held(4, 5000, 5100, 5100, 7.0 * 24 * 3600)) < 1e-6); /* 4 GPUs x 100 s, once */
	ASSERT(f.d.queues[q].usage > 399.9 && f.d.queues[q].usage < 400);
	ASSERT_EQ(f.d.queues[q].usage_at, 5100);
	served_down(&f);
}

/* The daemon stopped at `at` as SIGTERM stops it (daemon.c: the usage
 * saved, fw_serve_save_usage_now) and started again on its store. */
static void served_stopped_at(struct served *f, fw_time at)
{
	fixed_now = at;
	ASSERT_OK(fw_serve_save_usage_now(&f->d));
	served_restart(f);
}

/* A daemon (served_up: the local backend on the clock fixed_now) whose
 * 2-GPU job of ann's starts at 5000 with runtime seconds, cancelled at
 * cancel_at (0: never), stopped and started again `stops` times at
 * stop_at, stop_at + 1, ... (after the cancel when both fall between the
 * same two cycles), cycled every period seconds to 5030: queue q's usage
 * then into *queue, ann's in it into *user. */
static void usage_cycled(fw_time period, fw_time runtime, fw_time cancel_at, fw_time stop_at, int stops,
			 double *queue, double *user)
{
	struct served f;
	char body[160];
	int q = -1;

	served_up(&f);
	snprintf(body, sizeof body,
		 "{\"name\":\"a\",\"queue\":\"q\",\"user\":\"ann\",\"runtime\":%lld,\"tasks\":[{\"gpus\":2}]}",
		 (long long)runtime);
	submit(&f.d, body);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* a starts at 5000 */
	ASSERT_STR_EQ(state_of(&f.d, "a"), "running");
	for (fw_time t = 5000 + period; t <= 5030; t += period) {
		if (cancel_at > t - period && cancel_at <= t) {
			fixed_now = cancel_at;
			ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/jobs/a", ""), 200);
		}
		for (int k = 0; k < stops; k++)
			if (stop_at + k > t - period && stop_at + k < t)
				served_stopped_at(&f, stop_at + k);
		fixed_now = t;
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	}
	ASSERT_STR_EQ(state_of(&f.d, "a"), cancel_at ? "cancelled" : "done");
	ASSERT((q = fw_serve_queue_index(&f.d, "q")) >= 0);
	ASSERT_EQ(f.d.queues[q].usage_at, 5030);
	*queue = f.d.queues[q].usage;
	*user = -1;
	for (int32_t k = 0; k < f.d.nusers; k++)
		if (!strcmp(f.d.users[k].queue, "q") && !strcmp(f.d.users[k].user, "ann"))
			*user = f.d.users[k].usage;
	served_down(&f);
}

/* A job that ends between two cycles counts to its end, in its queue's
 * usage and its user's: its runtime x GPUs (decayed second by second),
 * the same with a 1 s and a 10 s period.  Before, a 10 s daemon counted
 * the job only to the cycle before its end, 0.9 periods short (40 of
 * its 58 GPU-seconds), and a cancel 0.5 periods after a cycle lost
 * those 5 s. */
TEST(a_job_that_ends_between_cycles_counts_to_its_end)
{
	double h = 7.0 * 24 * 3600, q1, u1, q10, u10;

	usage_cycled(1, 29, 0, 0, 0, &q1, &u1);
	usage_cycled(10, 29, 0, 0, 0, &q10, &u10); /* ends at 5029, 0.9 periods after 5020 */
	ASSERT(fabs(q10 - held(2, 5000, 5029, 5030, h)) < 1e-6);
	ASSERT(fabs(q1 - q10) < 1e-9 && fabs(u1 - u10) < 1e-9 && fabs(u10 - q10) < 1e-9);
	ASSERT(q10 > 57.99); /* not 40 */
	usage_cycled(10, 0, 5015, 0, 0, &q10, &u10); /* no runtime: runs until its cancel */
	ASSERT(fabs(q10 - held(2, 5000, 5015, 5030, h)) < 1e-6 && fabs(u10 - q10) < 1e-9);
	ASSERT(q10 > 29.99);
	usage_cycled(1, 0, 5015, 0, 0, &q1, &u1);
	ASSERT(fabs(q1 - q10) < 1e-9 && fabs(u1 - u10) < 1e-9);
}

/* A stop and a start lose no GPU-second and count none twice: the
 * usage (the queue's, the user's) after cycles to 5030 with a stop
 * (SIGTERM: the usage saved) and a restart on the same store between
 * two cycles is the uninterrupted daemon's.  Cancelled at 5015 and
 * stopped at 5018, after the 5010 cycle: before, the stop saved the
 * usage as of 5010 and the run's end, noted in memory only (local.c),
 * died with the daemon: 5010 to 5015 was lost (20 of 30 GPU-seconds).
 * Running through the stop (to its runtime's end at 5029, or at 5022,
 * before the stop at 5025: the stop's read ends it), and stopped twice
 * with no cycle between, it counts the same. */
TEST(a_stop_and_a_restart_lose_no_usage_and_count_none_twice)
{
	double h = 7.0 * 24 * 3600, q0, u0, q1, u1;

	usage_cycled(10, 0, 5015, 0, 0, &q0, &u0);
	usage_cycled(10, 0, 5015, 5018, 1, &q1, &u1);
	ASSERT(fabs(q1 - held(2, 5000, 5015, 5030, h)) < 1e-6); /* not 5000 to 5010 */
	ASSERT(fabs(q1 - q0) < 1e-9 && fabs(u1 - u0) < 1e-9);
	usage_cycled(10, 0, 5015, 5018, 2, &q1, &u1); /* stopped at 5018 and at 5019 */
	ASSERT(fabs(q1 - q0) < 1e-9 && fabs(u1 - u0) < 1e-9);
	usage_cycled(10, 29, 0, 0, 0, &q0, &u0);
	usage_cycled(10, 29, 0, 5025, 2, &q1, &u1);
	ASSERT(fabs(q1 - held(2, 5000, 5029, 5030, h)) < 1e-6);
	ASSERT(fabs(q1 - q0) < 1e-9 && fabs(u1 - u0) < 1e-9);
	usage_cycled(10, 22, 0, 0, 0, &q0, &u0);
	usage_cycled(10, 22, 0, 5025, 1, &q1, &u1);
	ASSERT(fabs(q1 - held(2, 5000, 5022, 5030, h)) < 1e-6);
	ASSERT(fabs(q1 - q0) < 1e-9 && fabs(u1 - u0) < 1e-9);
}

/* /metrics' GPU-hours count a run that ended before a stale attempt: r
 * (4 GPUs, runtime 50) runs from 5000 and its runtime is up at 5050; at
 * 5100 the cycle's capture ends it, its plan starts a, cancelled while
 * the world was built, so the backend's apply finds the plan stale,
 * after the attempt's usage (copies, to 5100) became the daemon's
 * (adopt_copies).  The next attempt took the runs since that usage:
 * none, and r's 200 GPU-seconds never reached the GPU-hours.  They are
 * counted once: a later cycle adds nothing. */
TEST(gpu_hours_keep_a_run_that_ended_before_a_stale_attempt)
{
	struct served f;
	struct mid_cycle m = { .method = "DELETE", .path = "/v1/jobs/a", .body = "" };
	int q;

	served_up(&f);
	submit(&f.d, "{\"name\":\"r\",\"queue\":\"q\",\"runtime\":50,\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* r runs from 5000: the GPU-hours' mark */
	ASSERT_STR_EQ(state_of(&f.d, "r"), "running");
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	fixed_now = 5100;
	ASSERT_OK(cycle_with(&f, &m));
	ASSERT_EQ(m.status, 200);
	ASSERT_EQ(f.d.m.stale, 1);
	ASSERT_STR_EQ(state_of(&f.d, "r"), "done");
	ASSERT((q = fw_serve_queue_index(&f.d, "q")) >= 0);
	ASSERT(fabs(f.d.queues[q].usage - held(4, 5000, 5050, 5100, 7.0 * 24 * 3600)) < 1e-6); /* once */
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 200.0 / 3600) < 1e-6);
	fixed_now = 5200;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 200.0 / 3600) < 1e-6);
	served_down(&f);
}

/* An ended job reads the same whichever backend ended it: a local job
 * done (GET /v1/jobs/a, api.c) and a cluster's ended job of the same
 * facts (backend.h fw_backend_ended, view.c) share one record and one
 * builder, so every member the cluster's has, the local one has too,
 * with the same value, in the same order. */
TEST(an_ended_job_has_one_shape_whichever_backend_ended_it)
{
	struct served f;
	struct fw_backend_ended e;
	const char names[1][FW_NAME_MAX] = { "n0" };
	char body[8192];
	json_t *local, *view = json_pack("{s:{}}", "jobs"), *ended, *v;
	const char *key;
	void *it;
	int n = 0;

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"user\":\"ann\",\"runtime\":10,\"tasks\":[{\"gpus\":2}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* a runs from 5000 */
	fixed_now = 5020;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* done at 5010 */
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/a", NULL, body, sizeof body), 200);
	ASSERT((local = json_loads(body, 0, NULL)) != NULL);
	ASSERT_STR_EQ(json_string_value(json_object_get(local, "state")), "done");
	memset(&e, 0, sizeof e);
	snprintf(e.job, sizeof e.job, "a");
	snprintf(e.queue, sizeof e.queue, "q");
	snprintf(e.user, sizeof e.user, "ann");
	snprintf(e.state, sizeof e.state, "done");
	e.gpus = 2;
	e.submitted = e.started = 5000;
	e.ended = 5010;
	e.exit_code = 0;
	e.nnodes = 1;
	fw_serve_view_ended(view, &e, 1, names);
	ASSERT((ended = json_object_get(json_object_get(view, "ended"), "a")) != NULL);
	it = json_object_iter(local);
	json_object_foreach(ended, key, v) { /* in the local job's order, a subsequence of it */
		while (it && strcmp(json_object_iter_key(it), key))
			it = json_object_iter_next(local, it);
		if (!it)
			FW_TEST__FAIL("member %s of the cluster's ended job: not in the local job's, or out of order (%s)",
				      key, body);
		if (!json_equal(json_object_iter_value(it), v))
			FW_TEST__FAIL("member %s differs: the local job's %s", key, body);
		n++;
	}
	ASSERT_EQ(n, 10); /* name queue user state gpus submitTime startTime nodes endTime exitCode */
	json_decref(local);
	json_decref(view);
	served_down(&f);
}

/* A cluster's ended jobs (backend.h ended, as Slurm lists them for
 * MinJobAge): x (bob, 3 GPUs) ran from 4990 to 5005; y never ran; z's
 * queue is none of the daemon's; w's GPUs are unknown. */
static int listed_ended(struct fw_backend *b, struct fw_backend_ended *out, int32_t cap, char (*names)[FW_NAME_MAX],
			int32_t ncap, int32_t *nnames)
{
	static const struct { const char *job, *queue; int64_t gpus; fw_time started; } e[] = {
		{ "x", "q", 3, 4990 }, { "y", "q", 3, 0 }, { "z", "nope", 3, 4990 }, { "w", "q", -1, 4990 },
	};
	(void)b, (void)names, (void)ncap;
	for (int32_t i = 0; i < 4 && i < cap; i++) {
		memset(&out[i], 0, sizeof out[i]);
		snprintf(out[i].job, sizeof out[i].job, "%s", e[i].job);
		snprintf(out[i].queue, sizeof out[i].queue, "%s", e[i].queue);
		snprintf(out[i].user, sizeof out[i].user, "bob");
		snprintf(out[i].state, sizeof out[i].state, "done");
		out[i].gpus = e[i].gpus;
		out[i].submitted = 4980;
		out[i].started = e[i].started;
		out[i].ended = 5005;
		out[i].exit_code = 0;
	}
	*nnames = 0;
	return 4;
}

/* The daemon's own usage (no usage op, as Slurm's with usage=own) counts
 * the ended jobs the cluster still lists to their end: x's 3 GPUs from
 * the usage's start (5000, the daemon's open) to 5005, in q and bob's in
 * it, once however many cycles list it; y, z and w add nothing. */
TEST(a_clusters_ended_jobs_count_to_their_end_in_the_daemons_usage)
{
	struct served f;
	struct fw_backend_ops ops;
	double h = 7.0 * 24 * 3600, want = held(3, 5000, 5005, 5010, h), bob = -1;
	int q;

	served_up(&f);
	ops = fw_backend_local;
	ops.name = "remote";
	ops.ended = listed_ended;
	f.d.bops = &ops;
	fixed_now = 5010;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT((q = fw_serve_queue_index(&f.d, "q")) >= 0);
	ASSERT(fabs(f.d.queues[q].usage - want) < 1e-6 && want > 14.99);
	for (int32_t k = 0; k < f.d.nusers; k++)
		if (!strcmp(f.d.users[k].queue, "q") && !strcmp(f.d.users[k].user, "bob"))
			bob = f.d.users[k].usage;
	ASSERT(fabs(bob - want) < 1e-9);
	ASSERT_EQ(f.d.nusers, 1);
	fixed_now = 5020; /* listed again: only the decay */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT(fabs(f.d.queues[q].usage - want * exp2(-10 / h)) < 1e-9);
	f.d.bops = &fw_backend_local;
	served_down(&f);
}

/* The same after a stale attempt of a whole read (a backend without
 * capture), whose take accrues the model's usage itself: the 5010
 * cycle's first plan is stale (a queue changed while it was planned),
 * after its take accrued the usage to 5010; the next attempt took the
 * ended jobs listed since that usage, which x (ended at 5005) is not, and
 * dropped x's last 3 s (3 GPUs) from the GPU-hours counted since the
 * 5002 cycle.  The usage counts x once. */
TEST(gpu_hours_keep_a_listed_run_after_a_stale_whole_read)
{
	struct served f;
	struct fw_backend_ops ops;
	struct mid_cycle m = { .method = "PATCH", .path = "/v1/queues/q", .body = "{\"maxRuntime\":600}" };
	double h = 7.0 * 24 * 3600;
	int q;

	served_up(&f);
	ops = fw_backend_local;
	ops.name = "remote";
	ops.ended = listed_ended;
	ops.capture = NULL, ops.build = NULL, ops.discard = NULL; /* a whole read */
	f.d.bops = &ops;
	fixed_now = 5002;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* the GPU-hours' mark */
	fixed_now = 5010;
	m.d = &f.d;
	f.d.between = while_built;
	f.d.between_ctx = &m;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	f.d.between = NULL;
	ASSERT_EQ(m.status, 200);
	ASSERT_EQ(f.d.m.stale, 1);
	ASSERT((q = fw_serve_queue_index(&f.d, "q")) >= 0);
	ASSERT(fabs(f.d.queues[q].usage - held(3, 5000, 5005, 5010, h)) < 1e-6);
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 9.0 / 3600) < 1e-6);
	fixed_now = 5020; /* listed again: counted once */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT(fabs(sample(&f.d, "fairway_queue_gpu_hours_total{queue=\"q\"}") - 9.0 / 3600) < 1e-6);
	f.d.bops = &fw_backend_local;
	served_down(&f);
}

TEST(a_job_submitted_while_the_world_is_built_starts_in_the_next_cycle)
{
	struct served f;
	struct mid_cycle m = { .method = "POST", .path = "/v1/jobs",
			       .body = "{\"name\":\"b\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}" };

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(cycle_with(&f, &m));
	ASSERT(m.lock_free);
	ASSERT_EQ(m.status, 201);
	ASSERT_EQ(m.calls, 1); /* the plan held: a submission frees nothing it used */
	ASSERT_EQ(f.d.m.stale, 0);
	ASSERT_STR_EQ(state_of(&f.d, "a"), "running");
	ASSERT_STR_EQ(state_of(&f.d, "b"), "pending");
	ASSERT_EQ(starts_of(&f.d, "b"), 0);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(state_of(&f.d, "b"), "running");
	ASSERT_EQ(starts_of(&f.d, "b"), 1);
	served_down(&f);
}

/* A backend whose cluster manager does not answer (backend.h reachable,
 * Slurm's ping) fails the cycle before read(), which would hold the
 * state lock through the manager's connect retries: no read, the cycle
 * counted failed, health not ok with the backend's words; once it
 * answers, the next cycle reads and applies. */
static int reach_rc = FW_EIO, reads;

static int down_reachable(struct fw_backend *b, struct fw_diag *d)
{
	(void)b;
	if (reach_rc != FW_OK)
		fw_diag_set(d, reach_rc, "", 0, 0, "", "cannot reach the manager (test)");
	return reach_rc;
}

static int counted_read(struct fw_backend *b, struct fw_snapshot *s, struct fw_backend_world *w, struct fw_diag *d)
{
	reads++;
	return fw_backend_local.read(b, s, w, d);
}

static int counted_capture(struct fw_backend *b, const struct fw_snapshot *s, struct fw_backend_copy **out,
			   struct fw_diag *d)
{
	reads++;
	return fw_backend_local.capture(b, s, out, d);
}

TEST(a_cycle_whose_backend_does_not_answer_fails_before_the_read)
{
	struct served f;
	struct fw_backend_ops ops;
	char body[2048];

	served_up(&f);
	ops = fw_backend_local;
	ops.reachable = down_reachable;
	ops.read = counted_read;
	ops.capture = counted_capture; /* the cycle's read, in two halves */
	f.d.bops = &ops;
	reach_rc = FW_EIO;
	reads = 0;
	ASSERT_EQ(fw_serve_cycle_once(&f.d, &f.ar), FW_EIO);
	ASSERT_EQ(reads, 0);
	ASSERT_EQ(f.d.m.failed, 1);
	ASSERT_EQ(request(&f.d, "GET", "/v1/health", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"ok\":false");
	ASSERT_STR_CONTAINS(body, "cannot reach the manager (test)");
	reach_rc = FW_OK;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT(reads >= 1);
	ASSERT_EQ(request(&f.d, "GET", "/v1/health", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"ok\":true");
	f.d.bops = &fw_backend_local;
	served_down(&f);
}

/* A backend that fetches its read ahead (backend.h "A read fetched
 * ahead", Slurm's four loads) is asked without the state lock, before
 * the take: while its fetch runs the lock is free and GET /v1/jobs
 * answers from the last view (a fetch that waits on slurmctld no longer
 * holds up the API); the read then comes under the lock.  A failed
 * fetch fails the cycle before the read, with the backend's words. */
struct fetching {
	struct fw_serve *d;
	int rc, calls, reads_before;
	bool lock_free;
	unsigned status;
	char body[4096];
};
static struct fetching fetching;

static int watched_fetch(struct fw_backend *b, struct fw_diag *d)
{
	struct fetching *f = &fetching;

	(void)b;
	if (f->calls++ == 0) {
		f->reads_before = reads;
		f->lock_free = pthread_mutex_trylock(&f->d->mu) == 0;
		if (f->lock_free) {
			pthread_mutex_unlock(&f->d->mu);
			f->status = request(f->d, "GET", "/v1/jobs", "", f->body, sizeof f->body);
		}
	}
	if (f->rc != FW_OK)
		fw_diag_set(d, f->rc, "slurmctld", 0, 0, "", "slurm_load_jobs: timed out (test)");
	return f->rc;
}

TEST(a_cycle_fetches_its_read_without_the_state_lock)
{
	struct served f;
	struct fw_backend_ops ops;
	char body[2048];

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* the view: a running */
	ops = fw_backend_local;
	ops.fetch = watched_fetch;
	ops.read = counted_read;
	ops.capture = counted_capture;
	f.d.bops = &ops;
	memset(&fetching, 0, sizeof fetching);
	fetching.d = &f.d;
	reads = 0;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(fetching.calls, 1);
	ASSERT_EQ(fetching.reads_before, 0); /* before the take */
	ASSERT(fetching.lock_free);
	ASSERT_EQ(fetching.status, 200);
	ASSERT_STR_CONTAINS(fetching.body, "\"name\":\"a\"");
	ASSERT(reads >= 1);
	memset(&fetching, 0, sizeof fetching);
	fetching.d = &f.d;
	fetching.rc = FW_EIO;
	reads = 0;
	ASSERT_EQ(fw_serve_cycle_once(&f.d, &f.ar), FW_EIO);
	ASSERT_EQ(reads, 0);
	ASSERT_EQ(f.d.m.failed, 1);
	ASSERT_EQ(request(&f.d, "GET", "/v1/health", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"ok\":false");
	ASSERT_STR_CONTAINS(body, "slurm_load_jobs: timed out (test)");
	f.d.bops = &fw_backend_local;
	served_down(&f);
}

/* A backend's health op may know more nodes than the fleet's config
 * (Slurm: every node of its cluster, other partitions too), and a
 * capture's snapshot has none yet: the cycle takes all it reports, so a
 * node of the fleet reported after others is still overlaid (the cap was
 * the fleet's node count: n1, after three others, was cut and stayed
 * healthy, as gpu016 in slurm_serve.sh serve_job_failures_suspect). */
static int many_health(struct fw_backend *b, struct fw_node_health *out, int cap)
{
	static const char *const names[] = { "other1", "other2", "other3", "n0", "n1" };
	int n = 0;

	(void)b;
	for (; n < 5 && n < cap; n++) {
		memset(&out[n], 0, sizeof out[n]);
		snprintf(out[n].node, sizeof out[n].node, "%s", names[n]);
		out[n].healthy = true;
		out[n].suspect = !strcmp(names[n], "n1"); /* on probation: jobs failed there */
		snprintf(out[n].reason, sizeof out[n].reason, "%s", out[n].suspect ? "3 jobs failed (test)" : "");
	}
	return n;
}

TEST(every_node_the_backend_reports_is_overlaid_past_the_fleets_count)
{
	struct served f;
	struct fw_backend_ops ops;
	json_t *j;

	two_nodes_up(&f);
	ops = fw_backend_local;
	ops.health = many_health;
	f.d.bops = &ops;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	j = get_json(&f.d, "/v1/nodes/n1");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "health")), "suspect");
	json_decref(j);
	j = get_json(&f.d, "/v1/nodes/n0");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "health")), "healthy");
	json_decref(j);
	f.d.bops = &fw_backend_local;
	served_down(&f);
}

/* A backend whose build finds what its other ops use after it (backend.h
 * adopt: Slurm's jobs left out, for apply, aside and explain) keeps its
 * copy until the apply, which adopts it once the daemon's generation
 * held, before apply(): a backend that says its world moved since the
 * capture makes the plan stale (nothing started; planned again), and
 * aside() is asked after the adopt, never after the capture (it would
 * answer from the read before).  Its usage op, where it keeps usage
 * (Slurm's associations), still makes the model's usage in a split
 * read, not the daemon's accrual. */
static struct adopting {
	int adopts, refusals, asides, asides_unadopted;
	const struct fw_backend_copy *seen;
} adopting;

static bool watched_adopt(struct fw_backend *b, struct fw_backend_copy *c)
{
	(void)b;
	adopting.seen = c;
	if (adopting.refusals > 0) {
		adopting.refusals--;
		return false;
	}
	adopting.adopts++;
	return true;
}

static int watched_aside(struct fw_backend *b, struct fw_backend_aside *out, int32_t cap)
{
	(void)b;
	adopting.asides += cap > 0; /* the daemon counts first (cap 0) */
	adopting.asides_unadopted += !adopting.adopts;
	if (cap > 0) {
		memset(out, 0, sizeof *out);
		snprintf(out->job, sizeof out->job, "held1");
		snprintf(out->queue, sizeof out->queue, "q");
		snprintf(out->reason, sizeof out->reason, "held");
		snprintf(out->text, sizeof out->text, "held by its user (test)");
	}
	return 1;
}

static int managers_usage(struct fw_backend *b, struct fw_snapshot *s, struct fw_diag *d)
{
	(void)b;
	(void)d;
	for (int32_t q = 0; q < s->nqueues; q++) {
		s->queues[q].usage = 777;
		s->queues[q].usage_at = s->now;
	}
	return FW_OK;
}

TEST(a_backend_adopts_its_build_at_the_apply_or_the_plan_is_stale)
{
	struct served f;
	struct fw_backend_ops ops;
	json_t *j;
	int q;

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ops = fw_backend_local;
	ops.name = "remote";
	ops.adopt = watched_adopt;
	ops.aside = watched_aside;
	ops.usage = managers_usage;
	f.d.bops = &ops;
	memset(&adopting, 0, sizeof adopting);
	adopting.refusals = 1;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(f.d.m.stale, 1); /* the first plan: its world moved */
	ASSERT_EQ(adopting.adopts, 1);
	ASSERT(adopting.seen != NULL);
	ASSERT_EQ(adopting.asides, 1); /* once, after the adopt */
	ASSERT_EQ(adopting.asides_unadopted, 0);
	ASSERT_STR_EQ(state_of(&f.d, "a"), "running");
	ASSERT_EQ(starts_of(&f.d, "a"), 1);
	ASSERT((q = fw_serve_queue_index(&f.d, "q")) >= 0);
	ASSERT(fabs(f.d.queues[q].usage - 777.0) < 1e-6); /* the manager's, not accrued */
	j = get_json(&f.d, "/v1/jobs/held1");
	ASSERT_STR_EQ(json_string_value(json_object_get(j, "reason")), "held");
	json_decref(j);
	adopting.refusals = 4; /* every attempt stale: nothing applied */
	submit(&f.d, "{\"name\":\"b\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT_EQ(fw_serve_cycle_once(&f.d, &f.ar), FW_EAGAIN);
	ASSERT_EQ(starts_of(&f.d, "b"), 0);
	ASSERT_STR_EQ(state_of(&f.d, "b"), "pending");
	f.d.bops = &fw_backend_local;
	served_down(&f);
}

/* POST /v1/jobs?dryRun=VAL with body: "STATUS state expectedStart-or-nodes",
 * or "STATUS body" when it is not a 200. */
static const char *dry_run(struct fw_serve *d, const char *val, const char *body)
{
	static char out[1024];
	char auth[300];
	const char *const args[] = { "dryRun", val, NULL };
	struct fw_api_req rq = { "POST", "/v1/jobs", NULL, NULL, auth, body, strlen(body), args, NULL };
	struct fw_api_resp rs;
	json_t *o, *j;

	snprintf(auth, sizeof auth, "Bearer %s", d->token);
	fw_api_handle(d, &rq, &rs);
	if (rs.status == 200 && (o = json_loads(rs.body, 0, NULL)) && json_is_true(json_object_get(o, "dryRun"))) {
		j = json_object_get(o, "job");
		if (!strcmp(json_string_value(json_object_get(j, "state")), "running"))
			snprintf(out, sizeof out, "200 running on %s",
				 json_string_value(json_array_get(json_object_get(j, "nodes"), 0)));
		else
			snprintf(out, sizeof out, "200 %s %s from %lld", json_string_value(json_object_get(j, "state")),
				 json_string_value(json_object_get(j, "reason")),
				 (long long)json_integer_value(json_object_get(j, "expectedStart")));
		json_decref(o);
	} else {
		snprintf(out, sizeof out, "%u %s", rs.status, rs.body ? rs.body : "");
	}
	free(rs.body);
	return out;
}

/* A dry run (sbatch --test-only) answers what the next cycle would do
 * with the job, and keeps nothing: no job, no log row, no name used up;
 * the same job submitted for real then gets the same expected start. */
TEST(a_dry_run_plans_the_job_and_keeps_nothing)
{
	struct served f;
	char body[4096];
	const char *b = "{\"name\":\"b\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":8}]}";

	served_up(&f);
	submit(&f.d, "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":600,\"tasks\":[{\"gpus\":4}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* a runs from 5000 to 5600 on half of n0 */
	fixed_now = 5100;
	int64_t next = f.d.next_job;
	ASSERT_STR_EQ(dry_run(&f.d, "true", "{\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}"), "200 running on n0");
	ASSERT_STR_EQ(dry_run(&f.d, "true", b), "200 pending has_reservation from 5600");
	ASSERT_EQ(f.d.next_job, next);
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/b", NULL, body, sizeof body), 404);
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:a");
	ASSERT_STR_CONTAINS(dry_run(&f.d, "yes", b), "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"dryRun\"");
	ASSERT_STR_CONTAINS(dry_run(&f.d, "true", "{\"name\":\"a\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"),
			    "409 ");
	ASSERT_STR_CONTAINS(dry_run(&f.d, "true", "{\"queue\":\"nope\",\"tasks\":[{\"gpus\":1}]}"), "\"field\":\"queue\"");
	ASSERT_EQ(get_as(&f.d, "/v1/jobs", "all", body, sizeof body), 200);
	ASSERT(strstr(body, "\"name\":\"b\"") == NULL);
	/* for real now: the cycle gives b the start the dry run said */
	ASSERT_STR_CONTAINS(dry_run(&f.d, "false", b), "201 {\"name\":\"b\""); /* dryRun=false submits */
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/b", NULL, body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"expectedStart\":5600");
	ASSERT_STR_CONTAINS(body, "\"reason\":\"has_reservation\"");
	served_down(&f);
}

/* A body the fleet could never hold, the field its refusal names, and
 * what the refusal says. */
struct fit_case {
	const char *body, *field, *says;
};

/* On a daemon of yaml: each bad body is refused, submitted and as a dry
 * run (400 ERANGE naming its field, saying its text), nothing is kept,
 * and each good body passes a dry run. */
static void judge_fits(const char *yaml, const struct fit_case *bad, size_t nbad, const char *const *good,
		       size_t ngood)
{
	struct served f;
	char body[4096], want[512];

	up_yaml = yaml;
	served_up(&f);
	up_yaml = NULL;
	for (size_t i = 0; i < nbad; i++)
		for (int dry = 0; dry < 2; dry++) {
			snprintf(body, sizeof body, "{\"name\":\"x\",\"queue\":\"q\",%s}", bad[i].body);
			const char *got = dry_run(&f.d, dry ? "true" : "false", body);
			snprintf(want, sizeof want, "400 {\"error\":{\"status\":400,\"code\":\"ERANGE\",\"field\":\"%s\"",
				 bad[i].field);
			ASSERT_STR_CONTAINS(got, want);
			ASSERT_STR_CONTAINS(got, bad[i].says);
		}
	ASSERT_EQ(get_as(&f.d, "/v1/jobs", "all", body, sizeof body), 200);
	ASSERT_STR_EQ(body, "{\"jobs\":[]}");
	for (size_t i = 0; i < ngood; i++) {
		snprintf(body, sizeof body, "{\"queue\":\"q\",%s}", good[i]);
		ASSERT_STR_CONTAINS(dry_run(&f.d, "true", body), "200 ");
	}
	served_down(&f);
}

/* A job the fleet could never hold is refused when it is submitted (or
 * dry-run), naming the field to change, as a nodeSelector no node
 * matches is: a task bigger than every node (GPUs, model, CPU, memory),
 * more tasks than the fleet or one domain of its required level holds.
 * An elastic job that can start smaller passes, and nothing is kept. */
TEST(a_job_the_fleet_could_never_hold_is_refused)
{
	static const char racks[] = "now: 0\n"
				    "topology: {levels: [rack]}\n"
				    "nodes:\n"
				    "  - {name: a0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}}\n"
				    "  - {name: a1, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}}\n"
				    "  - {name: b0, gpus: 4, gpuModel: A100, cpu: 32, memory: 256Gi, topology: {rack: r1}}\n"
				    "queues:\n"
				    "  - {name: q, resources: {gpu: {quota: 20}}}\n";
	static const struct fit_case bad[] = {
		{ "\"tasks\":[{\"gpus\":16}]", "tasks[0].gpus", "a task of 16 GPUs fits on no node: the largest has 8" },
		{ "\"tasks\":[{\"gpus\":8,\"gpuModel\":\"A100\"}]", "tasks[0].gpus",
		  "the largest has 4 of model A100" },
		{ "\"tasks\":[{\"gpus\":8,\"gpuModel\":\"B300\"}]", "tasks[0].gpuModel",
		  "no node has GPUs of model B300, so the job could never start; the fleet's models: H100, A100" },
		{ "\"tasks\":[{\"count\":3,\"gpus\":8}]", "tasks[0].count",
		  "the job needs 3 tasks of 8 GPUs all at once and the fleet holds at most 2 of them" },
		{ "\"requiredLevel\":\"rack\",\"tasks\":[{\"count\":5,\"gpus\":4}]", "requiredLevel",
		  "the job's 5 tasks must fit inside one rack, and the largest rack holds 4 of them" },
		{ "\"tasks\":[{\"gpus\":4,\"gpuModel\":\"A100\",\"cpu\":33}]", "tasks[0].cpu",
		  "a task asks 33 CPUs and no node with its GPUs has more than 32" },
		{ "\"tasks\":[{\"gpus\":0,\"memory\":600000}]", "tasks[0].memory",
		  "a task asks 600000 MiB of memory and no node with its GPUs has more than 524288" },
		{ "\"tasks\":[{\"gpus\":1},{\"count\":2,\"gpus\":4,\"gpuModel\":\"A100\"}]", "tasks[1].count",
		  "the job needs 2 tasks of 4 GPUs of model A100 all at once and the fleet holds at most 1" },
	};
	static const char *const good[] = {
		"\"tasks\":[{\"count\":5,\"gpus\":4}]",                 /* two on each H100 node, one on b0 */
		"\"minMember\":2,\"tasks\":[{\"count\":6,\"gpus\":4}]", /* elastic: 5 of 6 fit */
		"\"minMember\":1,\"tasks\":[{\"gpus\":1},{\"count\":2,\"gpus\":4,\"gpuModel\":\"A100\"}]",
		"\"tasks\":[{\"gpus\":4,\"gpuModel\":\"A100\",\"cpu\":32,\"memory\":262144}]",
	};
	judge_fits(racks, bad, sizeof bad / sizeof bad[0], good, sizeof good / sizeof good[0]);
}

/* The submission check keeps to the nodes a job's (or a group's)
 * nodeSelector meets, and tests the job's groups together too. */
TEST(the_fit_check_reads_selectors_and_groups_together)
{
	static const char zones[] =
		"now: 0\n"
		"topology: {levels: [rack]}\n"
		"nodes:\n"
		"  - {name: a0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}, labels: {zone: east}}\n"
		"  - {name: a1, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}, labels: {zone: east}}\n"
		"  - {name: b0, gpus: 4, gpuModel: A100, cpu: 32, memory: 256Gi, topology: {rack: r1}, labels: {zone: west}}\n"
		"  - {name: c0, gpus: 8, gpuModel: H100, cpu: 16, memory: 128Gi, topology: {rack: r1}, labels: {zone: west}}\n"
		"queues:\n"
		"  - {name: q, resources: {gpu: {quota: 28}}}\n";
	static const struct fit_case bad[] = {
		{ "\"nodeSelector\":{\"zone\":\"west\"},\"tasks\":[{\"count\":2,\"gpus\":8}]", "tasks[0].count",
		  "the job needs 2 tasks of 8 GPUs all at once and the 2 nodes that its nodeSelector meets hold at most 1 "
		  "of them, so it could never start; lower count (or minMember), or widen the nodeSelector" },
		{ "\"tasks\":[{\"count\":3,\"gpus\":8,\"nodeSelector\":{\"zone\":\"east\"}}]", "tasks[0].count",
		  "and the 2 nodes that its nodeSelector meets hold at most 2 of them" },
		{ "\"nodeSelector\":{\"zone\":\"east\"},\"tasks\":[{\"gpus\":4,\"gpuModel\":\"A100\"}]",
		  "tasks[0].gpuModel", "no node that its nodeSelector meets has GPUs of model A100" },
		{ "\"nodeSelector\":{\"zone\":\"west\"},\"tasks\":[{\"gpus\":8,\"cpu\":20}]", "tasks[0].cpu",
		  "no node with its GPUs that its nodeSelector meets has more than 16" },
		{ "\"nodeSelector\":{\"zone\":\"west\"},\"tasks\":[{\"gpus\":8,\"gpuModel\":\"A100\"}]",
		  "tasks[0].gpus", "fits on no node that its nodeSelector meets: the largest has 4 of model A100" },
		{ "\"nodeSelector\":{\"zone\":\"west\"},\"requiredLevel\":\"node\",\"tasks\":[{\"count\":3,\"gpus\":4}]",
		  "requiredLevel", "the largest node holds 2 of them on the nodes its nodeSelector meets" },
		{ "\"nodeSelector\":{\"zone\":\"west\"},"
		  "\"tasks\":[{\"count\":4,\"gpus\":4,\"slice\":{\"size\":4,\"required\":\"rack\"}}]",
		  "tasks[0].slice.size", "the largest rack holds 3 of these tasks (by its GPUs) of the nodes its "
					 "nodeSelector meets; lower size or name a larger level (or widen the nodeSelector)" },
		{ "\"tasks\":[{\"count\":2,\"gpus\":8,\"gpuModel\":\"H100\"},{\"count\":2,\"gpus\":8,\"gpuModel\":\"H100\"}]",
		  "tasks", "the job's task groups need 32 GPUs all at once and the nodes they may take (by their models "
			   "and nodeSelectors) have 24, so it could never start" },
		{ "\"tasks\":[{\"gpus\":8,\"nodeSelector\":{\"zone\":\"west\"}},{\"count\":2,\"gpus\":4,\"nodeSelector\":{\"zone\":\"west\"}}]",
		  "tasks", "need 16 GPUs all at once and the nodes they may take (by their models and nodeSelectors) have 12" },
		{ "\"requiredLevel\":\"rack\",\"tasks\":[{\"gpus\":8},{\"count\":3,\"gpus\":4}]", "requiredLevel",
		  "the job's task groups need 20 GPUs all at once inside one rack, and the largest rack has 16" },
	};
	static const char *const good[] = {
		"\"nodeSelector\":{\"zone\":\"east\"},\"tasks\":[{\"count\":2,\"gpus\":8}]",
		"\"tasks\":[{\"count\":2,\"gpus\":8,\"gpuModel\":\"H100\"},{\"gpus\":8,\"gpuModel\":\"H100\"}]",
		"\"requiredLevel\":\"rack\",\"tasks\":[{\"gpus\":8},{\"count\":2,\"gpus\":4}]",
		"\"tasks\":[{\"gpus\":4,\"nodeSelector\":{\"zone\":\"west\"}},{\"count\":2,\"gpus\":8}]",
		"\"minMember\":1,\"tasks\":[{\"count\":3,\"gpus\":8},{\"count\":3,\"gpus\":8}]", /* elastic */
	};
	judge_fits(zones, bad, sizeof bad / sizeof bad[0], good, sizeof good / sizeof good[0]);
}

/* Sub-cycles (a maintenance window to come, a queue reservation) log no
 * reservation for a job that starts in the same cycle, and a window's
 * sub-cycle none at all: its clock does not know the window opens. */
TEST(a_sub_cycle_reserves_no_job_the_cycle_starts)
{
	struct served f;
	char body[4096];

	two_nodes_up(&f);
	submit(&f.d, "{\"name\":\"busy\",\"queue\":\"q\",\"runtime\":36000,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/busy", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"nodes\":[\"n0\"]");
	/* a window on n0 from 5000 + 1 h: a 60 s job would end before it opens,
	 * but n0 is full; it starts on n1 */
	ASSERT_EQ(post(&f.d, "/v1/reservations",
		       "{\"id\":\"mw\",\"kind\":\"maintenance\",\"nodes\":[\"n0\"],\"start\":8600,\"end\":12200}"),
		  201);
	submit(&f.d, "{\"name\":\"small\",\"queue\":\"q\",\"runtime\":60,\"tasks\":[{\"gpus\":1}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:busy,start:small");
	ASSERT_EQ(f.d.m.reserves, 0);
	/* a queue reservation of n0 for q: its sub-cycle cannot start the job
	 * there (n0 is full) and would reserve it; the main cycle starts it */
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/reservations/mw", ""), 200);
	ASSERT_EQ(post(&f.d, "/v1/reservations",
		       "{\"id\":\"qr\",\"kind\":\"queue\",\"queue\":\"q\",\"nodes\":[\"n0\"],\"start\":4000,"
		       "\"end\":90000}"),
		  201);
	submit(&f.d, "{\"name\":\"small2\",\"queue\":\"q\",\"runtime\":60,\"tasks\":[{\"gpus\":1}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_STR_EQ(log_rows(&f.d, NULL, NULL), "200 start:busy,start:small,start:small2");
	ASSERT_EQ(f.d.m.reserves, 0);
	served_down(&f);
}

/* A request with query arguments (key, value, ..., NULL) and limit:
 * "STATUS field" for a refusal (its error's field), "STATUS" otherwise. */
static const char *with_query(struct fw_serve *d, const char *method, const char *path, const char *limit,
			      const char *body, const char *const *args)
{
	static char out[256];
	char auth[300];
	struct fw_api_req rq = { method, path, NULL, limit, auth, body, strlen(body), args, NULL };
	struct fw_api_resp rs;
	json_t *o;

	snprintf(auth, sizeof auth, "Bearer %s", d->token);
	fw_api_handle(d, &rq, &rs);
	o = rs.body ? json_loads(rs.body, 0, NULL) : NULL;
	if (!o)
		snprintf(out, sizeof out, "%u (not JSON)", rs.status);
	else if (rs.status >= 400)
		snprintf(out, sizeof out, "%u %s", rs.status,
			 json_string_value(json_object_get(json_object_get(o, "error"), "field")));
	else
		snprintf(out, sizeof out, "%u", rs.status);
	json_decref(o);
	free(rs.body);
	return out;
}

/* A query parameter the route does not take (a misspelt dryRun, a filter
 * the route does not have) is refused, naming it, before anything is done:
 * POST /v1/jobs?dryrun=true submits nothing. */
TEST(an_unknown_query_parameter_is_refused)
{
	static const char *const dryrun[] = { "dryrun", "true", NULL }, *const bogus[] = { "bogus", "1", NULL };
	static const char *const jobs[] = { "jobs", "a", NULL }, *const odd[] = { "\xff\n", "1", NULL };
	static const char *const dry[] = { "dryRun", "true", NULL }, *const kind[] = { "kind", "start", NULL };
	const char *b = "{\"name\":\"a\",\"queue\":\"q\",\"runtime\":100,\"tasks\":[{\"gpus\":1}]}";
	struct served f;
	char body[4096];

	served_up(&f);
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", NULL, b, dryrun), "400 dryrun");
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", NULL, b, bogus), "400 bogus");
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", "5", b, NULL), "400 limit");
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/a", NULL, body, sizeof body), 404);
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", NULL, b, dry), "200");
	ASSERT_STR_EQ(with_query(&f.d, "GET", "/v1/decisions", NULL, "", jobs), "400 jobs");
	ASSERT_STR_EQ(with_query(&f.d, "GET", "/v1/decisions", "5", "", kind), "200");
	ASSERT_STR_EQ(with_query(&f.d, "GET", "/v1/queues", "5", "", NULL), "400 limit");
	ASSERT_STR_EQ(with_query(&f.d, "DELETE", "/v1/queues/q", NULL, "", bogus), "400 bogus");
	ASSERT_STR_EQ(with_query(&f.d, "PATCH", "/v1/queues/q", NULL, "{}", odd), "400 ??");
	ASSERT_STR_EQ(with_query(&f.d, "GET", "/v1/queues/q", NULL, "", NULL), "200");
	served_down(&f);
}

/* PATCH /v1/queues/q with body: "STATUS gpuModelLimits gpuModelDeserved"
 * of the queue it answers (each as JSON, "-" when absent), or "STATUS
 * field" for a refusal. */
static const char *patch_models(struct fw_serve *d, const char *body)
{
	static char out[512];
	char auth[300];
	struct fw_api_req rq = { "PATCH", "/v1/queues/q", NULL, NULL, auth, body, strlen(body), NULL, NULL };
	struct fw_api_resp rs;
	json_t *o;

	snprintf(auth, sizeof auth, "Bearer %s", d->token);
	fw_api_handle(d, &rq, &rs);
	o = rs.body ? json_loads(rs.body, 0, NULL) : NULL;
	if (rs.status == 200) {
		char *lim = json_dumps(json_object_get(o, "gpuModelLimits"), JSON_COMPACT | JSON_SORT_KEYS);
		char *des = json_dumps(json_object_get(o, "gpuModelDeserved"), JSON_COMPACT | JSON_SORT_KEYS);
		snprintf(out, sizeof out, "200 %s %s", lim ? lim : "-", des ? des : "-");
		free(lim);
		free(des);
	} else {
		snprintf(out, sizeof out, "%u %s", rs.status,
			 json_string_value(json_object_get(json_object_get(o, "error"), "field")));
	}
	json_decref(o);
	free(rs.body);
	return out;
}

/* A merge patch (RFC 7396) null for a model a queue's table does not
 * have is a no-op, whether the queue has a table or not: the same body
 * succeeds on both (it was "gpuModelLimits.A100: must be a number" on a
 * queue without one). */
TEST(a_merge_patch_null_for_an_absent_model_is_a_no_op)
{
	static const char models[] = "now: 0\n"
				     "nodes:\n"
				     "  - {name: h0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi}\n"
				     "  - {name: a0, gpus: 8, gpuModel: A100, cpu: 64, memory: 512Gi}\n"
				     "queues:\n"
				     "  - {name: q, resources: {gpu: {quota: 8}}}\n";
	struct served f;

	up_yaml = models;
	served_up(&f);
	up_yaml = NULL;
	ASSERT_STR_EQ(patch_models(&f.d, "{\"gpuModelLimits\":{\"H100\":8,\"A100\":null}}"), "200 {\"H100\":8.0} -");
	ASSERT_STR_EQ(patch_models(&f.d, "{\"gpuModelLimits\":{\"H100\":8,\"A100\":null}}"), "200 {\"H100\":8.0} -");
	ASSERT_STR_EQ(patch_models(&f.d, "{\"gpuModelLimits\":{\"H100\":null}}"), "200 - -");
	ASSERT_STR_EQ(patch_models(&f.d, "{\"gpuModelDeserved\":{\"H100\":4,\"A100\":null}}"),
		      "200 - {\"H100\":4.0}");
	ASSERT_STR_EQ(patch_models(&f.d, "{\"gpuModelDeserved\":{\"A100\":2,\"H100\":null}}"),
		      "200 - {\"A100\":2.0}");
	ASSERT_STR_EQ(patch_models(&f.d, "{\"gpuModelLimits\":{\"A100\":\"x\"}}"), "400 gpuModelLimits.A100");
	served_down(&f);
}

/* A job's user and a reservation's or a health report's reason are shown
 * in table lines: a user with a tab or a newline (or a space), a reason
 * with a newline, is refused naming the member, and nothing is kept. */
TEST(free_text_that_would_break_a_table_line_is_refused)
{
	static const char *const none[] = { NULL };
	struct served f;
	char body[4096];

	served_up(&f);
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", NULL,
				 "{\"name\":\"t\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"user\":\"x\\ty\\nz\"}",
				 none),
		      "400 user");
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", NULL,
				 "{\"name\":\"t\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"user\":\"a b\"}", none),
		      "400 user");
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/t", NULL, body, sizeof body), 404);
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/jobs", NULL,
				 "{\"name\":\"t\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"user\":\"alice\"}", none),
		      "201");
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/reservations", NULL,
				 "{\"id\":\"r\",\"kind\":\"maintenance\",\"nodes\":[\"n0\"],\"start\":9000,\"end\":9100,"
				 "\"reason\":\"power\\nwork\"}",
				 none),
		      "400 reason");
	ASSERT_EQ(get_as(&f.d, "/v1/reservations/r", NULL, body, sizeof body), 404);
	ASSERT_STR_EQ(with_query(&f.d, "POST", "/v1/nodes/n0/health", NULL,
				 "{\"healthy\":false,\"reason\":\"XID 79\\r\\nok\"}", none),
		      "400 reason");
	served_down(&f);
}

/* GET path's member key, as a whole number; -1 when absent. */
static long long member(struct fw_serve *d, const char *path, const char *key)
{
	json_t *o = get_json(d, path);
	json_t *v = json_object_get(o, key);
	long long n = v ? (long long)json_integer_value(v) : -1;

	json_decref(o);
	return n;
}

/* A running job with no runtime, bounded only by a run-time limit (its
 * queue's maxRuntime), is expected to end when the limit ends it: start +
 * timeLimit, in the view after a cycle as in the local backend's answer
 * before one. */
TEST(a_job_bounded_only_by_its_limit_is_expected_to_end_at_it)
{
	struct served f;
	struct fw_serve d;
	char body[4096];

	served_up(&f);
	ASSERT_EQ(send_as(&f.d, "PATCH", "/v1/queues/q", "{\"maxRuntime\":60}"), 200);
	submit(&f.d, "{\"name\":\"inf\",\"queue\":\"q\",\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/inf", NULL, body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"state\":\"running\"");
	ASSERT_EQ(member(&f.d, "/v1/jobs/inf", "timeLimit"), 60);
	ASSERT_EQ(member(&f.d, "/v1/jobs/inf", "expectedEnd"), member(&f.d, "/v1/jobs/inf", "startTime") + 60);
	served_down(&f);

	daemon_up(&d); /* no cycle yet: the local backend's answer */
	job(&d, "inf", "q", 0, 1u << 1, true);
	tick = 1000;
	fw_serve_set_clock(ticking);
	ASSERT_EQ(request(&d, "PATCH", "/v1/queues/q", "{\"maxRuntime\":600}", body, sizeof body), 200);
	ASSERT_EQ(member(&d, "/v1/jobs/inf", "expectedEnd"), member(&d, "/v1/jobs/inf", "startTime") + 600);
	daemon_down(&d);
}

/* A name in the URL path that is not UTF-8 (/v1/jobs/%FF) is refused as
 * any bad name is, its bytes shown as '?': JSON cannot carry them, and
 * the answer was a 500 "out of memory". */
TEST(a_path_that_is_not_utf8_is_refused_not_failed)
{
	static const char *const paths[] = { "/v1/jobs/\xff", "/v1/queues/\xff", "/v1/nodes/\xc3\x28",
					     "/v1/reservations/\xff" };
	struct fw_serve d;
	char body[4096];

	daemon_up(&d);
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		ASSERT_EQ(request(&d, "GET", paths[i], "", body, sizeof body), 400);
		ASSERT_STR_CONTAINS(body, "\"code\":\"EINVAL\"");
		ASSERT_STR_CONTAINS(body, "in the URL path is not a name");
	}
	ASSERT_EQ(request(&d, "DELETE", "/v1/jobs/\xff", "", body, sizeof body), 400);
	daemon_down(&d);
}

/* An authorised request with a Content-Type (NULL: none): its status,
 * and "STATUS field" into out for a refusal. */
static unsigned typed(struct fw_serve *d, const char *method, const char *path, const char *ctype, const char *body,
		      char *out, size_t n)
{
	char auth[64];
	struct fw_api_req rq = { method, path, NULL, NULL, auth, body, strlen(body), NULL, ctype };
	struct fw_api_resp rs;
	json_t *o;

	snprintf(auth, sizeof auth, "Bearer %s", token);
	fw_api_handle(d, &rq, &rs);
	o = rs.body ? json_loads(rs.body, 0, NULL) : NULL;
	snprintf(out, n, "%u %s", rs.status,
		 rs.status >= 400 ? json_string_value(json_object_get(json_object_get(o, "error"), "field")) : "");
	json_decref(o);
	free(rs.body);
	return rs.status;
}

/* An endpoint that reads no body refuses one (a client that sends
 * {"force":true} to DELETE /v1/jobs/X, or garbage to POST /v1/cycle,
 * means something the daemon would not do): 400 naming body, nothing
 * done.  A body's Content-Type, when given, is JSON's (or curl -d's
 * form type, read as JSON; a PATCH may say merge-patch+json): any other
 * is 415 naming Content-Type, nothing done. */
TEST(a_body_the_endpoint_does_not_read_is_refused_and_a_body_must_be_json)
{
	struct fw_serve d;
	char out[256];

	daemon_up(&d);
	job(&d, "keep", "q", 0, 0, false);
	ASSERT_EQ(typed(&d, "DELETE", "/v1/jobs/keep", "application/json", "{\"force\":true}", out, sizeof out), 400);
	ASSERT_STR_EQ(out, "400 body");
	ASSERT_STR_EQ(state_of(&d, "keep"), "pending");
	ASSERT_EQ(typed(&d, "POST", "/v1/cycle", NULL, "garbage{", out, sizeof out), 400);
	ASSERT_STR_EQ(out, "400 body");
	ASSERT_EQ(typed(&d, "GET", "/v1/jobs", NULL, "x", out, sizeof out), 400);
	ASSERT_EQ(typed(&d, "DELETE", "/v1/queues/other", NULL, "{}", out, sizeof out), 400);
	ASSERT_EQ(typed(&d, "GET", "/v1/queues/other", "application/json", "", out, sizeof out), 200);

	ASSERT_EQ(typed(&d, "POST", "/v1/queues", "text/plain", "{\"name\":\"t1\"}", out, sizeof out), 415);
	ASSERT_STR_EQ(out, "415 Content-Type");
	ASSERT_EQ(typed(&d, "GET", "/v1/queues/t1", NULL, "", out, sizeof out), 404);
	ASSERT_EQ(typed(&d, "POST", "/v1/queues", "multipart/form-data; boundary=x", "{\"name\":\"t1\"}", out,
			sizeof out), 415);
	ASSERT_EQ(typed(&d, "PUT", "/v1/queues/t1", "application/merge-patch+json", "{}", out, sizeof out), 415);
	ASSERT_EQ(typed(&d, "POST", "/v1/queues", "Application/JSON; charset=utf-8", "{\"name\":\"t1\"}", out,
			sizeof out), 201);
	ASSERT_EQ(typed(&d, "POST", "/v1/queues", "application/x-www-form-urlencoded", "{\"name\":\"t2\"}", out,
			sizeof out), 201); /* curl -d's own */
	ASSERT_EQ(typed(&d, "POST", "/v1/queues", NULL, "{\"name\":\"t3\"}", out, sizeof out), 201);
	ASSERT_EQ(typed(&d, "PATCH", "/v1/queues/t1", "application/merge-patch+json", "{\"priority\":2}", out,
			sizeof out), 200);
	ASSERT_EQ(typed(&d, "PATCH", "/v1/queues/t1", "application/json", "{\"priority\":3}", out, sizeof out), 200);
	ASSERT_EQ(typed(&d, "PATCH", "/v1/queues/t1", "text/plain", "{\"priority\":4}", out, sizeof out), 415);
	ASSERT_EQ(member(&d, "/v1/queues/t1", "priority"), 3);
	daemon_down(&d);
}

/* A node held out by a maintenance window (to come, then open) is counted
 * on from the window's end (fw_node.back_at): the waiting job is expected
 * then, not when the busy node frees (41000, as it was), and starts once
 * the node is released.  Also in the cycles after the window's drain has
 * landed in the backend (before, those lost the return: a node the
 * backend holds counted as out for its own sake). */
TEST(a_window_s_end_is_a_start_time)
{
	struct served f;
	char body[8192];

	two_nodes_up(&f);
	submit(&f.d, "{\"name\":\"busy\",\"queue\":\"q\",\"runtime\":36000,\"tasks\":[{\"gpus\":8}]}");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* on n0 until 41000 */
	ASSERT_EQ(post(&f.d, "/v1/reservations",
		       "{\"id\":\"mw\",\"kind\":\"maintenance\",\"nodes\":[\"n1\"],\"start\":5020,\"end\":5040}"),
		  201);
	submit(&f.d, "{\"name\":\"w\",\"queue\":\"q\",\"runtime\":60,\"tasks\":[{\"gpus\":8}]}");
	/* the window to come, then open: the first open cycle drains n1 in
	 * the backend, and the later ones still count on its return (the
	 * backend's hold is fairway's own drain: backend.h, ours) */
	static const fw_time at[] = { 5000, 5025, 5030, 5035 };
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
		fixed_now = at[k];
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
		ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/w", "", body, sizeof body), 200);
		ASSERT_STR_CONTAINS(body, "\"state\":\"pending\"");
		ASSERT_STR_CONTAINS(body, "\"expectedStart\":5040");
		ASSERT_EQ(request(&f.d, "GET", "/v1/nodes/n1", "", body, sizeof body), 200);
		ASSERT_STR_CONTAINS(body, "\"backAt\":5040");
	}
	/* the window is over: this cycle releases n1 (the backend drained it),
	 * counting on it from the next second, and the next starts w there */
	fixed_now = 5040;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/w", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"expectedStart\":5041");
	fixed_now = 5041;
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/w", "", body, sizeof body), 200);
	ASSERT_STR_CONTAINS(body, "\"state\":\"running\"");
	ASSERT_STR_CONTAINS(body, "\"nodes\":[\"n1\"]");
	served_down(&f);
}

/* A node in two maintenance windows to come is out for the first only
 * (the core knows one departure a node): it leaves when the first opens
 * and is back when it ends, not when the second (a day later) does, so
 * the waiting job is expected at the first window's end (before, 41000:
 * the busy node's end, the node being out until 95000); a window that
 * opens as the first ends extends the stay (windows on a node never
 * overlap: 409).
 * The windows are made latest first, so their order is leave_all's. */
TEST(a_node_in_two_windows_is_back_after_the_first)
{
	static const struct {
		const char *second; /* the second window's start and end */
		fw_time back;
	} cases[] = { { "\"start\":90000,\"end\":95000", 5040 }, { "\"start\":5040,\"end\":5100", 5100 } };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct served f;
		char body[8192], rq[256], want[64];
		two_nodes_up(&f);
		submit(&f.d, "{\"name\":\"busy\",\"queue\":\"q\",\"runtime\":36000,\"tasks\":[{\"gpus\":8}]}");
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* on n0 until 41000 */
		snprintf(rq, sizeof rq, "{\"id\":\"mw2\",\"kind\":\"maintenance\",\"nodes\":[\"n1\"],%s}", cases[c].second);
		ASSERT_EQ(post(&f.d, "/v1/reservations", rq), 201);
		ASSERT_EQ(post(&f.d, "/v1/reservations",
			       "{\"id\":\"mw1\",\"kind\":\"maintenance\",\"nodes\":[\"n1\"],\"start\":5020,\"end\":5040}"),
			  201);
		submit(&f.d, "{\"name\":\"w\",\"queue\":\"q\",\"runtime\":60,\"tasks\":[{\"gpus\":8}]}");
		fixed_now = 5000;
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
		ASSERT_EQ(request(&f.d, "GET", "/v1/nodes/n1", "", body, sizeof body), 200);
		ASSERT_STR_CONTAINS(body, "\"leavesAt\":5020");
		snprintf(want, sizeof want, "\"backAt\":%lld", (long long)cases[c].back);
		ASSERT_STR_CONTAINS(body, want);
		ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/w", "", body, sizeof body), 200);
		snprintf(want, sizeof want, "\"expectedStart\":%lld", (long long)cases[c].back);
		ASSERT_STR_CONTAINS(body, want);
		served_down(&f);
	}
}

/* A backend that gives node n1 a departure of its own (Slurm: an
 * admin's reservation to come, build.c) at 90000, back at 95000. */
static int later_departure_build(const struct fw_backend_copy *c, struct fw_snapshot *s, struct fw_backend_world *w,
				 struct fw_diag *d)
{
	int rc = fw_backend_local.build(c, s, w, d);
	int n = fw_snapshot_find_node(s, "n1");

	if (rc == FW_OK && n >= 0) {
		s->nodes[n].away_at = 90000;
		s->nodes[n].back_at = 95000;
	}
	return rc;
}

/* A daemon window that opens before the departure the backend gave the
 * node (Slurm: the window's mirror is made at this cycle's apply, so the
 * build sees only the admin's later reservation) is the node's stay: it
 * leaves when the window opens and a job that would run into the window
 * does not start there.  Before, leave_for skipped a node the backend
 * had sent away: the node read as leaving at 90000 and w (60 s from
 * 5000) started on n1 across the window at 5020.  A window that runs
 * into the later departure merges with it. */
TEST(a_window_before_the_backends_departure_is_the_nodes_stay)
{
	static const struct {
		const char *window;
		fw_time leaves, back;
	} cases[] = { { "\"start\":5020,\"end\":5040", 5020, 5040 }, { "\"start\":5020,\"end\":90000", 5020, 95000 } };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct served f;
		struct fw_backend_ops ops;
		char body[8192], rq[256], want[64];

		two_nodes_up(&f);
		ops = fw_backend_local;
		ops.build = later_departure_build;
		f.d.bops = &ops;
		submit(&f.d, "{\"name\":\"busy\",\"queue\":\"q\",\"runtime\":36000,\"tasks\":[{\"gpus\":8}]}");
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* on one node until 41000 */
		snprintf(rq, sizeof rq, "{\"id\":\"mw\",\"kind\":\"maintenance\",\"nodes\":[\"n1\"],%s}", cases[c].window);
		ASSERT_EQ(post(&f.d, "/v1/reservations", rq), 201);
		submit(&f.d, "{\"name\":\"w\",\"queue\":\"q\",\"runtime\":60,\"tasks\":[{\"gpus\":8}]}");
		fixed_now = 5000;
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
		ASSERT_EQ(request(&f.d, "GET", "/v1/nodes/n1", "", body, sizeof body), 200);
		snprintf(want, sizeof want, "\"leavesAt\":%lld", (long long)cases[c].leaves);
		ASSERT_STR_CONTAINS(body, want);
		snprintf(want, sizeof want, "\"backAt\":%lld", (long long)cases[c].back);
		ASSERT_STR_CONTAINS(body, want);
		ASSERT_EQ(request(&f.d, "GET", "/v1/jobs/w", "", body, sizeof body), 200);
		ASSERT_STR_CONTAINS(body, "\"state\":\"pending\"");
		f.d.bops = &fw_backend_local;
		served_down(&f);
	}
}

/* ---- answers a QA pass found misleading ------------------------------------ */

/* method path body on a served daemon: "STATUS BODY" (a static buffer). */
static const char *answer(struct fw_serve *d, const char *method, const char *path, const char *body)
{
	static char out[2048];
	char auth[300];
	struct fw_api_req rq = { method, path, NULL, NULL, auth, body, strlen(body), NULL, NULL };
	struct fw_api_resp rs;

	snprintf(auth, sizeof auth, "Bearer %s", d->token);
	fw_api_handle(d, &rq, &rs);
	snprintf(out, sizeof out, "%u %s", rs.status, rs.body ? rs.body : "");
	free(rs.body);
	return out;
}

/* The members a POST /v1/jobs body may give that GET shows back. */
static const char *const post_members[] = { "name", "queue", "user", "priority", "preemptible", "spread", "runtime",
					    "minMember", "requiredLevel", "preferredLevel", "tasks", "exitCode",
					    "checkpointInterval", "maxRuntime", "nodeSelector", NULL };

/* A job's answer (GET /v1/jobs/NAME, or its row of GET /v1/jobs) holds
 * each member it was submitted with, and equal to the body's. */
static void shows_body(json_t *got, json_t *body)
{
	for (int i = 0; post_members[i]; i++) {
		json_t *want = json_object_get(body, post_members[i]);
		if (want && !json_equal(want, json_object_get(got, post_members[i]))) {
			char *g = json_dumps(got, JSON_COMPACT);
			fprintf(stderr, "member %s differs: %s\n", post_members[i], g);
			free(g);
		}
		ASSERT(!want || json_equal(want, json_object_get(got, post_members[i])));
	}
}

/* Two racks of one node each, an H100 node and an A100 node, and one
 * queue q: the fleet of the gpuModel and topology level tests below. */
static const char two_racks_yaml[] = "now: 0\n"
				     "topology: {levels: [rack]}\n"
				     "nodes:\n"
				     "  - {name: a0, gpus: 8, gpuModel: H100, cpu: 64, memory: 512Gi, topology: {rack: r0}}\n"
				     "  - {name: b0, gpus: 4, gpuModel: A100, cpu: 32, memory: 256Gi, topology: {rack: r1}}\n"
				     "queues:\n"
				     "  - {name: q, resources: {gpu: {quota: 12}}}\n";

/* GET /v1/jobs/NAME and the job's row of GET /v1/jobs show every member
 * the job was submitted with, under the body's names, before the first
 * cycle (the local backend's copy), once planned (the view) and once
 * ended: its tasks with their gpuModel (in the fleet's spelling),
 * preemptible, spread, minMember, the levels, priority, runtime,
 * checkpointInterval, maxRuntime, exitCode; so the answer's members
 * post back as a new job. */
TEST(a_job_shows_every_member_it_was_submitted_with)
{
	static const char sent[] = "{\"name\":\"full\",\"queue\":\"q\",\"user\":\"ann\",\"priority\":3,\"preemptible\":false,"
				   "\"spread\":true,\"runtime\":600,\"minMember\":1,\"preferredLevel\":\"rack\","
				   "\"checkpointInterval\":60,\"maxRuntime\":3600,\"exitCode\":2,"
				   "\"tasks\":[{\"count\":2,\"gpus\":1,\"cpu\":2.5,\"memory\":1024,\"gpuModel\":\"h100\"}]}";
	struct served f;
	json_t *body = json_loads(sent, 0, NULL), *got, *list, *row;
	static char out[65536];
	size_t i;

	json_object_set_new(json_array_get(json_object_get(body, "tasks"), 0), "gpuModel", json_string("H100"));
	up_yaml = two_racks_yaml;
	served_up(&f);
	up_yaml = NULL;
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", sent), "201 ");
	for (int pass = 0; pass < 3; pass++) { /* unplanned, planned, ended */
		got = get_json(&f.d, "/v1/jobs/full");
		shows_body(got, body);
		ASSERT_EQ(json_integer_value(json_object_get(got, "timeLimit")), pass < 2 ? 3600 : 0); /* ended: none */
		json_decref(got);
		ASSERT_EQ(get_as(&f.d, "/v1/jobs", pass == 2 ? "all" : NULL, out, sizeof out), 200);
		list = json_loads(out, 0, NULL);
		row = NULL;
		json_array_foreach(json_object_get(list, "jobs"), i, got)
			if (!strcmp(json_string_value(json_object_get(got, "name")), "full"))
				row = got;
		ASSERT(row != NULL);
		shows_body(row, body);
		json_decref(list);
		ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
		if (pass == 1)
			ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/jobs/full", ""), 200);
	}
	got = get_json(&f.d, "/v1/jobs/full");
	json_t *again = json_object();
	for (int k = 0; post_members[k]; k++)
		if (json_object_get(got, post_members[k]))
			json_object_set(again, post_members[k], json_object_get(got, post_members[k]));
	ASSERT_EQ(json_object_size(again), json_object_size(body)); /* requiredLevel: none, left out */
	json_object_set_new(again, "name", json_string("full-again"));
	char *re = json_dumps(again, JSON_COMPACT);
	ASSERT_EQ(post(&f.d, "/v1/jobs", re), 201);
	free(re);
	json_decref(got);
	got = get_json(&f.d, "/v1/jobs/full-again");
	json_object_set_new(body, "name", json_string("full-again"));
	shows_body(got, body);
	json_decref(got), json_decref(again), json_decref(body);
	served_down(&f);
}

/* A name longer than a name may be is 400 naming the field name and the
 * limit on every path that takes one (never a 404: the route is there),
 * and in a POST body. */
TEST(an_over_long_name_is_refused_on_every_path)
{
	static const char *const paths[][2] = {
		{ "GET", "/v1/jobs/%s" },         { "DELETE", "/v1/jobs/%s" },          { "GET", "/v1/queues/%s" },
		{ "PUT", "/v1/queues/%s" },       { "PATCH", "/v1/queues/%s" },         { "DELETE", "/v1/queues/%s" },
		{ "GET", "/v1/reservations/%s" }, { "DELETE", "/v1/reservations/%s" }, { "GET", "/v1/nodes/%s" },
		{ "POST", "/v1/nodes/%s/health" },
	};
	static char name[5001], path[5100], body[5200];
	struct served f;
	static const size_t lens[] = { 64, 300, 5000 };
	char want[64];

	served_up(&f);
	for (size_t l = 0; l < 3; l++) {
		memset(name, 'a', lens[l]);
		name[lens[l]] = '\0';
		snprintf(want, sizeof want, "longer than 63 characters (it has %zu)", lens[l]);
		for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
			snprintf(path, sizeof path, paths[i][1], name);
			const char *got = answer(&f.d, paths[i][0], path, !strcmp(paths[i][0], "GET") ||
					!strcmp(paths[i][0], "DELETE") ? "" : "{\"healthy\":true}");
			ASSERT_STR_CONTAINS(got, "400 {\"error\":{\"status\":400,\"code\":\"ERANGE\",\"field\":\"name\"");
			ASSERT_STR_CONTAINS(got, want);
		}
	}
	snprintf(body, sizeof body, "{\"name\":\"%s\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}", name);
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", body),
			    "400 {\"error\":{\"status\":400,\"code\":\"ERANGE\",\"field\":\"name\",\"message\":\"is longer "
			    "than 63 bytes (it has ");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", body), "); shorten it\"");
	snprintf(body, sizeof body, "{\"name\":\"%s\"}", name);
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/queues", body), "\"field\":\"name\",\"message\":\"is longer than 63");
	served_down(&f);
}

/* A job of its own may not take the name NAME_<index> of a task of a job
 * array the daemon remembers, whether that task is pending, ended or
 * never was (GET /v1/jobs/NAME and ?array=NAME must mean the array's
 * tasks): 409 naming the array and the task; another name is free. */
TEST(a_job_may_not_take_an_array_tasks_name)
{
	struct served f;

	two_nodes_up(&f);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"fa\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"array\":\"0-3\"}"), 201);
	ASSERT_EQ(send_as(&f.d, "DELETE", "/v1/jobs/fa_3", ""), 200);
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"fa_3\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"),
			    "409 {\"error\":{\"status\":409,\"code\":\"EEXIST\",\"field\":\"name\",\"message\":\"\\\"fa_3\\\" "
			    "is the name of task 3 of job array \\\"fa\\\", which the daemon remembers (`fairway jobs show fa`, "
			    "GET /v1/jobs/fa)");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"fa_0\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"),
			    "409 {\"error\":{\"status\":409,\"code\":\"EEXIST\",\"field\":\"name\",\"message\":\"\\\"fa_0\\\" "
			    "is the name of task 0 of job array \\\"fa\\\"");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"fa_7\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"),
			    "is the name of task 7 of job array \\\"fa\\\"");
	ASSERT_STR_CONTAINS(dry_run(&f.d, "true", "{\"name\":\"fa_3\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"), "409 ");
	json_t *a = get_json(&f.d, "/v1/jobs/fa");
	ASSERT_EQ(json_integer_value(json_object_get(a, "count")), 4); /* unchanged */
	json_decref(a);
	/* a leading zero reads through, as Slurm reads 12_03 as task 3 */
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"fa_03\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"),
			    "409 {\"error\":{\"status\":409,\"code\":\"EEXIST\",\"field\":\"name\",\"message\":\"\\\"fa_03\\\" "
			    "reads as task 3 of job array \\\"fa\\\" (named \\\"fa_3\\\"), which the daemon remembers");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"fa_0007\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"),
			    "\"fa_0007\\\" reads as task 7 of job array \\\"fa\\\" (named \\\"fa_7\\\")");
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"fa_1001\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"), 201);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"fa_3x\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"), 201);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"fb_3\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"), 201);
	served_down(&f);
}

/* The reverse: no array may be named BASE while a job of its own reads
 * as one of its tasks, BASE_<index> (leading zeros read through), whether
 * the array would have that index or not: 409 naming the job; nothing of
 * the array is submitted.  An unnamed array skips such a job-N. */
TEST(an_array_may_not_be_named_as_a_jobs_base)
{
	struct served f;
	char body[256];

	two_nodes_up(&f);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"ga_7\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"), 201);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"hb_07\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}"), 201);
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"ga\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],"
				   "\"array\":\"0-3\"}"),
			    "409 {\"error\":{\"status\":409,\"code\":\"EEXIST\",\"field\":\"name\",\"message\":\"job "
			    "\\\"ga_7\\\" exists and reads as task 7 of an array named \\\"ga\\\"");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"hb\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],"
				   "\"array\":\"0-9\"}"),
			    "job \\\"hb_07\\\" exists and reads as task 7 of an array named \\\"hb\\\"");
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/ga_0", NULL, body, sizeof body), 404);
	ASSERT_EQ(get_as(&f.d, "/v1/jobs/hb_0", NULL, body, sizeof body), 404);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"name\":\"ga_7x\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"array\":\"0-1\"}"),
		  201);
	/* job-N while job-N_5 is a job of its own: skipped */
	snprintf(body, sizeof body, "{\"name\":\"job-%lld_5\",\"queue\":\"q\",\"tasks\":[{\"gpus\":1}]}",
		 (long long)f.d.next_job);
	int64_t n = f.d.next_job;
	ASSERT_EQ(post(&f.d, "/v1/jobs", body), 201);
	ASSERT_EQ(post(&f.d, "/v1/jobs", "{\"queue\":\"q\",\"tasks\":[{\"gpus\":1}],\"array\":\"0-1\"}"), 201);
	snprintf(body, sizeof body, "/v1/jobs/job-%lld", (long long)n + 1);
	json_t *a = get_json(&f.d, body);
	ASSERT_STR_EQ(json_string_value(json_object_get(a, "kind")), "array");
	json_decref(a);
	served_down(&f);
}

/* A queue's gpuModelLimits and gpuModelDeserved keys are taken in the
 * fleet's spelling ("h100" is H100, as a job's gpuModel), by POST, PUT
 * and PATCH ({"h100": null} lifts H100's); a model no node has is refused
 * naming the model it is a typo of, when one is close; two spellings of
 * one model are refused.  A topology level typo names the level. */
TEST(queue_model_keys_take_the_fleets_spelling_and_typos_are_named)
{
	struct served f;
	json_t *q;

	up_yaml = two_racks_yaml;
	served_up(&f);
	up_yaml = NULL;
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/queues", "{\"name\":\"m\",\"deserved\":{\"gpu\":2},"
				   "\"gpuModelLimits\":{\"h100\":4},\"gpuModelDeserved\":{\"a100\":2}}"), "201 ");
	q = get_json(&f.d, "/v1/queues/m");
	ASSERT_EQ(json_number_value(json_object_get(json_object_get(q, "gpuModelLimits"), "H100")), 4);
	ASSERT(json_object_get(json_object_get(q, "gpuModelLimits"), "h100") == NULL);
	ASSERT_EQ(json_number_value(json_object_get(json_object_get(q, "gpuModelDeserved"), "A100")), 2);
	json_decref(q);
	ASSERT_STR_EQ(f.d.queues[fw_serve_queue_index(&f.d, "m")].model_limits[0].model, "H100");
	ASSERT_STR_CONTAINS(answer(&f.d, "PATCH", "/v1/queues/m", "{\"gpuModelLimits\":{\"h100\":6}}"), "200 ");
	ASSERT_EQ(f.d.queues[fw_serve_queue_index(&f.d, "m")].nmodel_limits, 1);
	ASSERT_EQ(f.d.queues[fw_serve_queue_index(&f.d, "m")].model_limits[0].gpus, 6000);
	ASSERT_STR_CONTAINS(answer(&f.d, "PATCH", "/v1/queues/m", "{\"gpuModelLimits\":{\"h100\":null}}"), "200 ");
	ASSERT_EQ(f.d.queues[fw_serve_queue_index(&f.d, "m")].nmodel_limits, 0);
	ASSERT_STR_CONTAINS(answer(&f.d, "PUT", "/v1/queues/m", "{\"gpuModelLimits\":{\"H10\":4}}"),
			    "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"gpuModelLimits.H10\",\"message\":"
			    "\"no node has GPU model \\\"H10\\\" (did you mean \\\"H100\\\"?), so this limit would limit "
			    "nothing (the nodes' models: H100, A100)\"");
	ASSERT_STR_CONTAINS(answer(&f.d, "PUT", "/v1/queues/m", "{\"deserved\":{\"gpu\":1},\"gpuModelDeserved\":{\"B300\":1}}"),
			    "\"field\":\"gpuModelDeserved.B300\",\"message\":\"no node has GPU model \\\"B300\\\", so no job");
	ASSERT_STR_CONTAINS(answer(&f.d, "PUT", "/v1/queues/m", "{\"gpuModelLimits\":{\"H100\":4,\"h100\":2}}"),
			    "\"field\":\"gpuModelLimits.h100\",\"message\":\"GPU model H100 is given twice");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"queue\":\"q\",\"requiredLevel\":\"Rack\",\"tasks\":[{\"gpus\":1}]}"),
			    "\"field\":\"requiredLevel\",\"message\":\"\\\"Rack\\\" is not a topology level of this cluster "
			    "(did you mean \\\"rack\\\"?) (its levels: rack)");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"queue\":\"q\",\"preferredLevel\":\"nod\",\"tasks\":[{\"gpus\":1}]}"),
			    "(did you mean \\\"node\\\"?)");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"queue\":\"q\",\"tasks\":[{\"count\":2,\"gpus\":1,"
				   "\"slice\":{\"size\":2,\"required\":\"rakc\"}}]}"),
			    "\"field\":\"tasks[0].slice.required\",\"message\":\"\\\"rakc\\\" is not a topology level of this "
			    "cluster (did you mean \\\"rack\\\"?)");
	served_down(&f);
}

/* A job bigger than its queue's GPU limit is accepted (a limit can be
 * raised) with a warning that it never starts while the limit holds; a
 * dry run and the waiting job's reason name the queue and its limit (the
 * QA pass read "over quota ... its queue (or a parent queue) 12 GPUs over
 * its GPU limit", start unknown).  A job within the limit gets no
 * warning. */
TEST(a_job_over_its_queue_limit_is_warned_and_told_why)
{
	struct served f;
	const char *a;

	up_yaml = limited_yaml;
	served_up(&f);
	up_yaml = NULL;
	a = answer(&f.d, "POST", "/v1/jobs", "{\"name\":\"ok\",\"queue\":\"q\",\"tasks\":[{\"gpus\":4}]}");
	ASSERT(!strncmp(a, "201 ", 4) && !strstr(a, "warning"));
	const char *big = "{\"name\":\"big\",\"queue\":\"q\",\"tasks\":[{\"gpus\":8}]}";
	const char *const args[] = { "dryRun", "true", NULL };
	char auth[300];
	struct fw_api_req rq = { "POST", "/v1/jobs", NULL, NULL, auth, big, strlen(big), args, NULL };
	struct fw_api_resp rs;
	snprintf(auth, sizeof auth, "Bearer %s", f.d.token);
	fw_api_handle(&f.d, &rq, &rs);
	ASSERT_EQ(rs.status, 200);
	ASSERT_STR_CONTAINS(rs.body, "it needs 8 GPUs and its queue q has a GPU limit of 4 GPUs: it can never start "
				     "while that limit holds");
	ASSERT_STR_CONTAINS(rs.body, "\"unknownWhy\":\"queue_limit\"");
	free(rs.body);
	a = answer(&f.d, "POST", "/v1/jobs", big);
	ASSERT(!strncmp(a, "201 ", 4));
	ASSERT_STR_CONTAINS(a, "\"warning\":\"it needs 8 GPUs and queue \\\"q\\\" has a GPU limit of 4 GPUs: it can "
			       "never start while that limit holds");
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	a = answer(&f.d, "GET", "/v1/jobs/big", "");
	ASSERT_STR_CONTAINS(a, "\"reason\":\"over_quota\"");
	ASSERT_STR_CONTAINS(a, "its queue q has a GPU limit of 4 GPUs: it can never start");
	ASSERT_STR_CONTAINS(a, "\"unknownWhy\":\"queue_limit\"");
	served_down(&f);
}

/* A parent that would make a cycle is refused (400, field parent) told
 * from the queue the request changes, whichever queue of the cycle the
 * core's validation meets first, with the path and what to do; nothing
 * changes. */
TEST(a_parent_cycle_is_told_from_the_queue_changed)
{
	static const char tree[] = "now: 0\n"
				   "nodes:\n"
				   "  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"
				   "queues:\n"
				   "  - {name: leaf, parent: mid}\n"
				   "  - {name: mid, parent: top}\n"
				   "  - {name: top}\n";
	struct served f;

	up_yaml = tree;
	served_up(&f);
	up_yaml = NULL;
	ASSERT_STR_CONTAINS(answer(&f.d, "PATCH", "/v1/queues/top", "{\"parent\":\"leaf\"}"),
			    "400 {\"error\":{\"status\":400,\"code\":\"ELOOP\",\"field\":\"parent\",\"message\":\"queue "
			    "\\\"top\\\" would be its own ancestor (top -> leaf -> mid -> top); give it another parent "
			    "(or none: top-level), or first move \\\"leaf\\\" out from under it\"");
	ASSERT_STR_CONTAINS(answer(&f.d, "PATCH", "/v1/queues/mid", "{\"parent\":\"leaf\"}"),
			    "queue \\\"mid\\\" would be its own ancestor (mid -> leaf -> mid); give it another parent");
	ASSERT_STR_CONTAINS(answer(&f.d, "PUT", "/v1/queues/mid", "{\"parent\":\"leaf\"}"),
			    "queue \\\"mid\\\" would be its own ancestor (mid -> leaf -> mid)");
	ASSERT_STR_EQ(f.d.queues[fw_serve_queue_index(&f.d, "top")].parent, "");
	ASSERT_STR_EQ(f.d.queues[fw_serve_queue_index(&f.d, "mid")].parent, "top");
	served_down(&f);
}

/* A job's gpuModel in another case than the fleet's is taken in the
 * fleet's spelling (kept, answered and planned so); a model no node has
 * is still refused.  A topology level the cluster lacks is refused
 * listing the cluster's levels. */
TEST(a_model_in_another_case_is_the_fleets_and_a_bad_level_lists_the_levels)
{
	struct served f;
	char body[512];

	up_yaml = two_racks_yaml;
	served_up(&f);
	up_yaml = NULL;
	const char *got = answer(&f.d, "POST", "/v1/jobs",
				 "{\"name\":\"lc\",\"queue\":\"q\",\"tasks\":[{\"gpus\":8,\"gpuModel\":\"h100\"}]}");
	ASSERT_STR_CONTAINS(got, "201 ");
	ASSERT_STR_CONTAINS(got, "\"gpuModel\":\"H100\"");
	ASSERT_EQ(fw_serve_cycle_once(&f.d, &f.ar), FW_OK); /* planned as H100: it starts on a0 */
	ASSERT_STR_CONTAINS(answer(&f.d, "GET", "/v1/jobs/lc", ""), "\"nodes\":[\"a0\"]");
	ASSERT_STR_CONTAINS(dry_run(&f.d, "true", "{\"queue\":\"q\",\"tasks\":[{\"gpus\":4,\"gpuModel\":\"a100\"}]}"),
			    "200 running on b0");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"queue\":\"q\",\"tasks\":[{\"gpus\":1,\"gpuModel\":\"h10\"}]}"),
			    "no node has GPUs of model h10, so the job could never start; the fleet's models: H100, A100");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"queue\":\"q\",\"requiredLevel\":\"galaxy\",\"tasks\":[{\"gpus\":1}]}"),
			    "400 {\"error\":{\"status\":400,\"code\":\"EINVAL\",\"field\":\"requiredLevel\",\"message\":"
			    "\"\\\"galaxy\\\" is not a topology level of this cluster (its levels: rack); use one of them "
			    "or \\\"node\\\"\"");
	snprintf(body, sizeof body, "{\"queue\":\"q\",\"tasks\":[{\"count\":2,\"gpus\":1,\"slice\":{\"size\":2,"
				    "\"required\":\"galaxy\"}}]}");
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", body),
			    "\"field\":\"tasks[0].slice.required\",\"message\":\"\\\"galaxy\\\" is not a topology level "
			    "of this cluster (its levels: rack)");
	served_down(&f);
	served_up(&f); /* serve_yaml: no levels */
	ASSERT_STR_CONTAINS(answer(&f.d, "POST", "/v1/jobs", "{\"queue\":\"q\",\"requiredLevel\":\"rack\",\"tasks\":[{\"gpus\":1}]}"),
			    "\\\"rack\\\" is not a topology level of this cluster: it has none (topology.levels of its "
			    "--config); use \\\"node\\\" or leave it out");
	served_down(&f);
}

/* A restart after doc was stored under key in table t (the store API,
 * as a hand edit or another version would leave it) is refused, in
 * words naming the store file, the row, the field (words) and what to
 * do; the daemon opens nothing (served_down frees what it opened). */
static void restart_refused(struct served *f, enum fw_store_doc t, const char *key, const char *doc,
			    const char *table, const char *words)
{
	char err[1024], fix[128];

	if (t != FW_STORE_NDOCS)
		ASSERT_EQ(fw_store_put(f->d.store, t, key, doc), FW_OK);
	fw_serve_close(&f->d);
	ASSERT(fw_serve_open(&f->d, &f->o, err, sizeof err) != FW_OK);
	ASSERT_STR_CONTAINS(err, dir);
	ASSERT_STR_CONTAINS(err, "/fairway.db: cannot restore the model from the store: ");
	ASSERT_STR_CONTAINS(err, words);
	snprintf(fix, sizeof fix, "with the daemon stopped, delete it from the store's %s table", table);
	ASSERT_STR_CONTAINS(err, fix);
}

/* Each table of the model refuses a row its parser refuses, naming it:
 * a queue, a reservation, a node's health, a user's usage. */
TEST(a_stored_model_row_out_of_range_stops_the_start_in_words)
{
	static const struct {
		enum fw_store_doc t;
		const char *key, *doc, *table, *words;
	} bad[] = {
		{ FW_STORE_QUEUES, "q", "{\"name\": \"q\", \"priority\": \"high\"}", "queues", "queue q: priority: must be" },
		{ FW_STORE_QUEUES, "q", "[]", "queues", "queue q: not a JSON object" },
		{ FW_STORE_RESERVATIONS, "r1",
		  "{\"id\": \"r1\", \"kind\": \"maintenance\", \"nodes\": [\"n0\"], \"start\": 10, \"end\": 5}",
		  "reservations", "reservation r1: end: must be after start" },
		{ FW_STORE_HEALTH, "n0", "{\"healthy\": true, \"incidents\": [-1]}", "health",
		  "node n0: incidents[0]: must be a time in Unix seconds" },
		{ FW_STORE_USERS, "q/alice", "{\"queue\": \"q\", \"user\": \"alice\", \"usage\": -1, \"usageAt\": 0}",
		  "users", "user usage q/alice: usage: must be between 0 and" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct served f;
		served_up(&f);
		restart_refused(&f, bad[i].t, bad[i].key, bad[i].doc, bad[i].table, bad[i].words);
		served_down(&f);
	}
}

/* A job's last eviction in the decision log at a time no clock gives (a
 * hand edit) stops the start too, naming the job and the log's table. */
TEST(a_logged_eviction_at_a_bad_time_stops_the_start_in_words)
{
	struct served f;
	struct fw_store_decision dec = { 1, -5, 1, "evict", "gone", "", "preempted", "evicted" };

	served_up(&f);
	ASSERT_EQ(fw_store_log_decision(f.d.store, &dec), FW_OK);
	restart_refused(&f, FW_STORE_NDOCS, "", "", "decisions",
			"job gone: its last eviction's at: must be a time in Unix seconds from 0 to 1099511627776, not -5");
	served_down(&f);
}

/* The daemon's threads at once, as `fairway serve` runs them: API
 * threads submitting jobs and reading every listing (the view's parts
 * shared with the cycle that replaces it, health without the state lock,
 * /metrics) while the cycle thread runs cycle after cycle.  Every answer
 * is the one a quiet daemon gives (201 for a submission, 200 for a
 * read), and every job submitted is in the list afterwards, once.  Under
 * ThreadSanitizer (docs/serve.md "Testing") this is the workload that
 * shows a race between the API and the cycle. */
#define BUSY_THREADS 3
#define BUSY_JOBS 12
struct busy {
	struct fw_serve *d;
	int id;
	_Atomic int *running;           /* API threads not yet done */
	int wrong;                      /* answers not as expected */
	char why[160];                  /* the first of them */
};

static void *busy_thread(void *arg)
{
	static const char *const reads[] = { "/v1/jobs", "/v1/queues", "/v1/health", "/v1/nodes",
					     "/v1/fairshare", "/v1/plan", "/metrics", "/v1/stats" };
	struct busy *b = arg;
	char name[32], body[160];

	for (int i = 0; i < BUSY_JOBS; i++) {
		snprintf(name, sizeof name, "busy-%d-%d", b->id, i);
		snprintf(body, sizeof body, "{\"name\":\"%s\",\"queue\":\"q\",\"runtime\":600,\"tasks\":[{\"gpus\":1}]}",
			 name);
		unsigned st = send_as(b->d, "POST", "/v1/jobs", body);
		if (st != 201 && !b->wrong++)
			snprintf(b->why, sizeof b->why, "POST /v1/jobs %s: %u", name, st);
		for (size_t k = 0; k < sizeof reads / sizeof *reads; k++)
			if ((st = send_as(b->d, "GET", reads[k], "")) != 200 && !b->wrong++)
				snprintf(b->why, sizeof b->why, "GET %s: %u", reads[k], st);
	}
	(*b->running)--;
	return NULL;
}

/* Occurrences of needle in hay. */
static int occurrences(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

TEST(requests_and_cycles_at_once_answer_as_alone)
{
	struct served f;
	struct busy b[BUSY_THREADS];
	pthread_t th[BUSY_THREADS];
	_Atomic int running = BUSY_THREADS;
	int cycles = 0, failed = 0;
	static char list[65536];

	served_up(&f);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar)); /* a view: /v1/nodes answers 200 */
	for (int i = 0; i < BUSY_THREADS; i++) {
		b[i] = (struct busy){ .d = &f.d, .id = i, .running = &running };
		if (pthread_create(&th[i], NULL, busy_thread, &b[i]) != 0)
			abort();
	}
	while (running > 0 || cycles < 3) {
		failed += fw_serve_cycle_once(&f.d, &f.ar) != FW_OK;
		cycles++;
	}
	for (int i = 0; i < BUSY_THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < BUSY_THREADS; i++)
		if (b[i].wrong)
			FW_TEST__FAIL("thread %d: %d answer(s) not as alone, the first: %s", i, b[i].wrong, b[i].why);
	ASSERT_EQ(failed, 0);
	ASSERT_OK(fw_serve_cycle_once(&f.d, &f.ar));
	ASSERT_EQ(get_as(&f.d, "/v1/jobs", NULL, list, sizeof list), 200);
	ASSERT_EQ(occurrences(list, "\"name\":\"busy-"), BUSY_THREADS * BUSY_JOBS);
	ASSERT_EQ(occurrences(list, "\"state\":\"running\""), 8); /* n0's 8 GPUs, one job each */
	served_down(&f);
}

TEST_MAIN(a_stored_model_row_out_of_range_stops_the_start_in_words, a_logged_eviction_at_a_bad_time_stops_the_start_in_words, the_plan_filters_by_kind_queue_job_node_and_limit, every_node_the_backend_reports_is_overlaid_past_the_fleets_count, a_backend_adopts_its_build_at_the_apply_or_the_plan_is_stale, a_report_with_every_gpu_bad_makes_the_node_unhealthy, the_job_list_filters_by_reason, a_job_array_is_shown_whole_and_its_tasks_listed, a_job_the_fleet_could_never_hold_is_refused, jobs_the_backend_keeps_aside_are_listed_with_their_reason, ended_jobs_the_backend_lists_say_where_they_ran, a_job_aside_until_a_known_time_is_expected_then, a_body_the_endpoint_does_not_read_is_refused_and_a_body_must_be_json, a_window_s_end_is_a_start_time, a_node_in_two_windows_is_back_after_the_first, a_window_before_the_backends_departure_is_the_nodes_stay, a_job_over_its_queue_limit_is_warned_and_told_why, a_path_that_is_not_utf8_is_refused_not_failed, a_sub_cycle_reserves_no_job_the_cycle_starts, the_fit_check_reads_selectors_and_groups_together, a_refused_queue_change_ends_no_job, budget_safe_left_in_fairshare_metrics_and_health,
	  an_unbounded_running_job_makes_left_unknown, no_left_without_budget_safe,
	  before_the_first_cycle_jobs_are_whole_and_nodes_wait, a_cancelled_job_leaves_the_list_before_the_next_cycle,
	  log_rows_older_than_log_keep_are_deleted_by_the_cycle, the_job_list_filters_by_queue_and_user,
	  a_cut_job_list_says_it_is_truncated, the_node_list_filters_by_health,
	  the_decision_log_is_served_with_its_filters, time_to_start_counts_from_the_last_requeue_and_gpu_hours_accrue,
	  a_drained_job_restarts_on_a_healthy_node_in_the_same_cycle, requeue_times_survive_a_restart, a_stored_queue_with_seven_decimals_is_restored_rounded, a_config_without_queues_opens_cycles_and_takes_its_first_queue, a_wrong_method_says_which_methods_the_path_takes, a_restart_names_what_the_config_says_and_the_store_overrides, requeue_times_of_jobs_gone_are_pruned, a_log_read_lets_the_state_lock_go,
	  a_restarted_job_keeps_its_submitted_runtime_in_the_view, health_answers_while_a_cycle_holds_the_state_lock,
	  a_cycle_whose_backend_does_not_answer_fails_before_the_read, a_cycle_fetches_its_read_without_the_state_lock,
	  a_job_cancelled_while_the_world_is_built_is_never_started, a_job_that_ends_between_cycles_counts_to_its_end,
	  a_stop_and_a_restart_lose_no_usage_and_count_none_twice, gpu_hours_keep_a_run_that_ended_before_a_stale_attempt,
	  gpu_hours_keep_a_listed_run_after_a_stale_whole_read,
	  an_ended_job_has_one_shape_whichever_backend_ended_it, a_clusters_ended_jobs_count_to_their_end_in_the_daemons_usage,
	  a_job_submitted_while_the_world_is_built_starts_in_the_next_cycle, a_dry_run_plans_the_job_and_keeps_nothing, an_unknown_query_parameter_is_refused,
	  a_merge_patch_null_for_an_absent_model_is_a_no_op, free_text_that_would_break_a_table_line_is_refused,
	  a_job_bounded_only_by_its_limit_is_expected_to_end_at_it,
	  a_parent_cycle_is_told_from_the_queue_changed,
	  a_model_in_another_case_is_the_fleets_and_a_bad_level_lists_the_levels,
	  a_job_shows_every_member_it_was_submitted_with, an_over_long_name_is_refused_on_every_path,
	  a_job_may_not_take_an_array_tasks_name, an_array_may_not_be_named_as_a_jobs_base, queue_model_keys_take_the_fleets_spelling_and_typos_are_named,
	  requests_and_cycles_at_once_answer_as_alone)
