/*
 * test_serve_local.c — the local backend (connectors/serve/local.c)
 * through its ops table: the generation guards a stale plan, every action
 * is idempotent, jobs run for their runtime, the world survives a close
 * and reopen from the store, and jobs are found by name among thousands.
 * Jobs with a non-zero exit code fail, and health() attributes their
 * failures to the nodes they ran on (the 3rd within 24 h: suspect), also
 * after a reopen.  A queue's deserved GPUs of a model survive a reopen of
 * the store and become the snapshot's model_deserved entries.  A job the
 * core ends at its run-time limit, its queue's or its own (which the
 * store keeps with it), ends `timeout`, never requeued; one whose limit
 * passed while the daemon was down, or with its runtime up too, is ended
 * at its limit by the backend's read, or, on a node the fleet lost, by
 * its open rather than requeued.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../harness.h"
#include "backend.h"
#include "builder.h"
#include "fwconfig.h"
#include "local.h"
#include "serve_int.h"
#include "store.h"

static const char fleet_yaml[] =
	"now: 0\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"
	"  - {name: n1, gpus: 8, cpu: 64, memory: 512Gi}\n"
	"queues:\n"
	"  - name: q\n"
	"    resources: {gpu: {quota: 16}}\n";

static char dir[64];
static struct fw_snapshot *fleet;
static struct fw_serve_store *store;

/* A fresh store directory and the fleet of yaml (len bytes). */
static void fresh_store(const char *yaml, size_t len)
{
	snprintf(dir, sizeof dir, "/tmp/fw-local-test.XXXXXX");
	if (!mkdtemp(dir) || fw_config_load_buffer("fleet", yaml, len, &fleet, NULL) ||
	    fw_store_open(dir, false, &store, NULL))
		abort();
}

/* A fresh store and fleet from yaml, cfg pointed at them, its jobs seeded
 * into the store by the open of *b. */
static int open_seeded(const char *yaml, size_t len, struct fw_backend_config *cfg, struct fw_backend **b)
{
	fresh_store(yaml, len);
	cfg->fleet = fleet;
	cfg->store = store;
	cfg->seed_jobs = true;
	return fw_backend_local.open(cfg, b, NULL);
}

static void setup(struct fw_backend **b)
{
	struct fw_backend_config cfg;
	fresh_store(fleet_yaml, sizeof fleet_yaml - 1);
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = 1000;
	if (fw_backend_local.open(&cfg, b, NULL))
		abort();
}

/* Run SQL on the store's database through a connection of its own (as
 * an operator's sqlite3 would): a trigger that makes a write fail. */
static void sql(const char *stmt)
{
	char path[128];
	sqlite3 *db;

	snprintf(path, sizeof path, "%s/fairway.db", dir);
	if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, stmt, NULL, NULL, NULL) != SQLITE_OK)
		abort();
	sqlite3_close(db);
}

/* Store writes of a job document whose state is st fail ("the disk is
 * full"); drop_failing() ends that. */
static void fail_writes_of(const char *st)
{
	char stmt[512];

	snprintf(stmt, sizeof stmt,
		 "CREATE TRIGGER failing BEFORE INSERT ON jobs WHEN instr(NEW.doc, '\"state\":\"%s\"') > 0"
		 " BEGIN SELECT RAISE(ABORT, 'injected: the disk is full'); END;",
		 st);
	sql(stmt);
}

static void drop_failing(void)
{
	sql("DROP TRIGGER failing;");
}

static void teardown(struct fw_backend *b)
{
	char cmd[128];
	fw_backend_local.close(b);
	fw_store_close(store);
	fw_snapshot_free(fleet);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static struct fw_snapshot *world(struct fw_backend *b, fw_time now, struct fw_backend_world *w)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_queue q;
	fw_queue_init(&q);
	strcpy(q.name, "q");
	fw_snapshot_add_queue(s, &q);
	s->now = now;
	if (fw_backend_local.read(b, s, w, NULL) != FW_OK)
		abort();
	return s;
}

/* A job of queue q asking 4 GPUs, named name. */
static struct fw_backend_job job_named(const char *name)
{
	struct fw_backend_job j;
	memset(&j, 0, sizeof j);
	fw_job_init(&j.job);
	snprintf(j.job.name, sizeof j.job.name, "%s", name);
	strcpy(j.queue, "q");
	j.job.groups[0].gpus = 4;
	return j;
}

static int submit_exit(struct fw_backend *b, const char *name, fw_time runtime, int32_t exit_code)
{
	struct fw_backend_job j = job_named(name);
	j.job.expected_runtime = runtime;
	j.exit_code = exit_code;
	return fw_backend_local.submit(b, &j, 1000, NULL);
}

static int submit(struct fw_backend *b, const char *name, fw_time runtime)
{
	return submit_exit(b, name, runtime, 0);
}

static int act_on(struct fw_backend *b, uint64_t gen, enum fw_decision_kind k, const char *job, fw_time at,
		  const char *node)
{
	struct fw_backend_placement p = { "", 0, 0x0f, 1000 };
	struct fw_backend_action a;
	int status = -100;
	struct fw_backend_result r = { .status = &status };
	snprintf(p.node, sizeof p.node, "%s", node);
	memset(&a, 0, sizeof a);
	a.kind = k;
	snprintf(a.job, sizeof a.job, "%s", job);
	a.at = at;
	a.nplacements = k == FW_DECIDE_START ? 1 : 0;
	a.placements = &p;
	int rc = fw_backend_local.apply(b, gen, &a, 1, &r);
	return rc != FW_OK ? rc : status;
}

static int act(struct fw_backend *b, uint64_t gen, enum fw_decision_kind k, const char *job, fw_time at)
{
	return act_on(b, gen, k, job, at, "n1");
}

/* Read the world at now (finishing what is due), then apply one action
 * of kind k to job (a START places it on node). */
static int act_at(struct fw_backend *b, enum fw_decision_kind k, const char *job, fw_time now, const char *node)
{
	struct fw_backend_world w;
	fw_snapshot_free(world(b, now, &w));
	return act_on(b, w.generation, k, job, now, node);
}

static void start_on(struct fw_backend *b, const char *job, fw_time now, const char *node)
{
	if (act_at(b, FW_DECIDE_START, job, now, node) != FW_OK)
		abort();
}

/* health() entry of node: 0 none (healthy), 1 healthy, 2 suspect. */
static int health_of(struct fw_backend *b, const char *node, char *reason)
{
	struct fw_node_health h[4];
	int n = fw_backend_local.health(b, h, 4);
	if (n < 0)
		abort();
	for (int i = 0; i < n; i++)
		if (!strcmp(h[i].node, node)) {
			if (!h[i].healthy || h[i].bad_gpu_mask)
				abort(); /* failures only ever make a node suspect */
			if (reason)
				strcpy(reason, h[i].reason);
			return h[i].suspect ? 2 : 1;
		}
	return 0;
}

TEST(stale_generation_changes_nothing_and_actions_are_idempotent)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_snapshot *s;

	setup(&b);
	ASSERT_EQ(submit(b, "a", 60), FW_OK);
	ASSERT_EQ(submit(b, "a", 60), FW_EEXIST);
	s = world(b, 1000, &w);
	ASSERT_EQ(s->nnodes, 2);
	ASSERT_EQ(s->njobs, 1);
	ASSERT_EQ(s->jobs[0].state, FW_JOB_PENDING);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation + 1, FW_DECIDE_START, "a", 1000), FW_EAGAIN);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "a", 1000), FW_OK);
	s = world(b, 1010, &w);
	ASSERT_EQ(s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_EQ(s->jobs[0].alloc_count, 1);
	ASSERT_EQ(s->allocs[s->jobs[0].alloc_first].node, 1);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "a", 1010), FW_EEXIST); /* a replayed start */
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_EVICT, "a", 1010), FW_OK);
	s = world(b, 1010, &w);
	ASSERT_EQ(s->jobs[0].state, FW_JOB_PENDING);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_EVICT, "a", 1010), FW_EEXIST);
	ASSERT_EQ(fw_backend_local.cancel(b, "a", 1020), FW_OK);
	ASSERT_EQ(fw_backend_local.cancel(b, "a", 1020), FW_EEXIST);
	ASSERT_EQ(fw_backend_local.cancel(b, "zz", 1020), FW_ENOENT);
	s = world(b, 1030, &w);
	ASSERT_EQ(s->njobs, 0);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "a", 1030), FW_ENOENT);
	teardown(b);
}

TEST(jobs_run_for_their_runtime_and_survive_reopen)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *s;
	const char *state;
	fw_time sub, start, end;

	setup(&b);
	ASSERT_EQ(submit(b, "short", 60), FW_OK);
	ASSERT_EQ(submit(b, "forever", 0), FW_OK);
	s = world(b, 1000, &w);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "short", 1000), FW_OK);
	s = world(b, 1000, &w);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "forever", 1000), FW_OK);
	s = world(b, 1059, &w);
	ASSERT_EQ(s->njobs, 2);
	fw_snapshot_free(s);
	s = world(b, 1060, &w);
	ASSERT_EQ(s->njobs, 1); /* short ended at start + runtime */
	ASSERT_STR_EQ(s->jobs[0].name, "forever");
	fw_snapshot_free(s);
	ASSERT_EQ(fw_local_job_info(b, "short", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	ASSERT_EQ(end, 1060);

	fw_backend_local.close(b); /* reopen from the store alone */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "short", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	s = world(b, 5000, &w);
	ASSERT_EQ(s->njobs, 1);
	ASSERT_EQ(s->jobs[0].state, FW_JOB_RUNNING);
	ASSERT_EQ(s->jobs[0].start_time, 1000);
	ASSERT_EQ(s->allocs[s->jobs[0].alloc_first].gpu_mask, 0x0fu);
	fw_snapshot_free(s);
	teardown(b);
}

/* A job's slices become the snapshot's entries at each read, after a
 * reopen too, and stay while it runs (a move restarts it in slices). */
TEST(slices_become_snapshot_entries)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_backend_job j = job_named("pairs"), k = job_named("plain");
	struct fw_snapshot *s;

	setup(&b);
	j.job.groups[0].count = 4;
	j.job.groups[0].gpus = 2;
	j.slice[0] = 2;
	j.slice_level[0] = FW_LEVEL_NODE;
	ASSERT_EQ(fw_backend_local.submit(b, &k, 1000, NULL), FW_OK);
	ASSERT_EQ(fw_backend_local.submit(b, &j, 1000, NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(s->njobs, 2);
	ASSERT_EQ(s->nslices, 1);
	ASSERT_STR_EQ(s->jobs[s->slices[0].job].name, "pairs");
	ASSERT_EQ(s->slices[0].tasks, 2);
	ASSERT_EQ(s->slices[0].level, FW_LEVEL_NODE);
	fw_snapshot_free(s);
	fw_backend_local.close(b); /* reopen from the store alone */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(s->nslices, 1);
	ASSERT_EQ(s->slices[0].tasks, 2);
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "pairs", 1000), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(s->nslices, 1);
	ASSERT_EQ(s->jobs[s->slices[0].job].state, FW_JOB_RUNNING);
	fw_snapshot_free(s);
	teardown(b);
}

/* An evicted job keeps its whole checkpoints: runtime 3600 s, one every
 * 600 s, evicted 1300 s after its start keeps 1200 s; restarted, it runs
 * the remaining 2400 s, and the engine is told so; after a reopen too. */
TEST(an_evicted_job_resumes_from_its_last_checkpoint)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_backend_job j;
	struct fw_snapshot *s;
	const char *state;
	fw_time sub, start, end;

	setup(&b);
	memset(&j, 0, sizeof j);
	fw_job_init(&j.job);
	strcpy(j.job.name, "ckpt");
	strcpy(j.queue, "q");
	j.job.groups[0].gpus = 4;
	j.job.expected_runtime = 3600;
	j.job.checkpoint_s = 600;
	ASSERT_EQ(fw_backend_local.submit(b, &j, 1000, NULL), FW_OK);
	ASSERT_EQ(submit(b, "plain", 3600), FW_OK);
	start_on(b, "ckpt", 1000, "n0");
	start_on(b, "plain", 1000, "n1");
	ASSERT_EQ(act_at(b, FW_DECIDE_EVICT, "ckpt", 2300, ""), FW_OK);
	ASSERT_EQ(act_at(b, FW_DECIDE_EVICT, "plain", 2300, ""), FW_OK);

	fw_backend_local.close(b); /* what it kept is in the store */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	s = world(b, 3000, &w);
	ASSERT_EQ(s->njobs, 2);
	for (int32_t i = 0; i < s->njobs; i++) /* the rest, for estimates and backfill */
		ASSERT_EQ(s->jobs[i].expected_runtime, !strcmp(s->jobs[i].name, "ckpt") ? 2400 : 3600);
	fw_snapshot_free(s);
	start_on(b, "ckpt", 3000, "n0");
	start_on(b, "plain", 3000, "n1");
	s = world(b, 5399, &w);
	ASSERT_EQ(s->njobs, 2);
	fw_snapshot_free(s);
	s = world(b, 5400, &w);
	ASSERT_EQ(s->njobs, 1); /* ckpt ends at 3000 + 2400; plain runs 3600 again */
	ASSERT_STR_EQ(s->jobs[0].name, "plain");
	fw_snapshot_free(s);
	ASSERT_EQ(fw_local_job_info(b, "ckpt", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	ASSERT_EQ(end, 5400);
	fw_snapshot_free(world(b, 6600, &w));
	ASSERT_EQ(fw_local_job_info(b, "plain", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	ASSERT_EQ(end, 6600);
	teardown(b);
}

TEST(thousands_of_jobs_are_found_by_name)
{
	struct fw_backend *b;
	char name[32];
	const char *state;
	fw_time sub, start, end;

	setup(&b);
	ASSERT_EQ(fw_store_begin(store), FW_OK);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "j%d", i);
		ASSERT_EQ(submit(b, name, 60), FW_OK);
	}
	ASSERT_EQ(fw_store_commit(store), FW_OK);
	ASSERT_EQ(submit(b, "j4999", 60), FW_EEXIST);
	ASSERT_EQ(submit(b, "j0", 60), FW_EEXIST);
	ASSERT_EQ(fw_backend_local.cancel(b, "j2500", 1001), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "j2500", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "cancelled");
	ASSERT_EQ(fw_local_job_info(b, "j5000", &state, &sub, &start, &end, NULL, NULL), FW_ENOENT);
	ASSERT_EQ(submit(b, "j5000", 60), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "j5000", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "pending");
	teardown(b);
}

/* A job with a non-zero exit code ends failed at start + runtime, with
 * its code, also after a reopen; one exiting 0 is done; an evicted one
 * waits again and a cancelled one is cancelled, whatever their code. */
TEST(jobs_with_a_non_zero_exit_code_fail)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	const char *state;
	fw_time sub, start, end;
	int32_t code = -1;

	setup(&b);
	ASSERT_EQ(submit_exit(b, "bad", 60, 2), FW_OK);
	ASSERT_EQ(submit(b, "good", 60), FW_OK);
	ASSERT_EQ(submit_exit(b, "moved", 60, 1), FW_OK);
	ASSERT_EQ(submit_exit(b, "gone", 0, 1), FW_OK);
	start_on(b, "bad", 1000, "n0");
	start_on(b, "good", 1000, "n0");
	start_on(b, "moved", 1000, "n1");
	start_on(b, "gone", 1000, "n1");
	fw_snapshot_free(world(b, 1010, &w));
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_EVICT, "moved", 1010), FW_OK);
	ASSERT_EQ(fw_backend_local.cancel(b, "gone", 1020), FW_OK);
	fw_snapshot_free(world(b, 1059, &w));
	ASSERT_EQ(fw_local_job_info(b, "bad", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "running");
	fw_snapshot_free(world(b, 5000, &w));
	ASSERT_EQ(fw_local_job_info(b, "bad", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "failed");
	ASSERT_EQ(end, 1060);
	ASSERT_EQ(code, 2);
	ASSERT_EQ(fw_local_job_info(b, "good", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	ASSERT_EQ(code, 0);
	ASSERT_EQ(fw_local_job_info(b, "moved", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "pending");
	ASSERT_EQ(fw_local_job_info(b, "gone", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "cancelled");

	fw_backend_local.close(b); /* reopen from the store alone */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "bad", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "failed");
	ASSERT_EQ(code, 2);
	ASSERT_EQ(fw_backend_local.cancel(b, "bad", 5000), FW_EEXIST); /* it has ended */
	teardown(b);
}

/* Three jobs exiting 1 on n0, one after the other: failed, not done; n0
 * is suspect after the third and not before; a job exiting 0 and a
 * cancelled one count for nothing; n1 stays out of health(); a reopen
 * counts the same from the store. */
TEST(failed_jobs_make_their_node_suspect)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *s;
	const char *state;
	fw_time sub, start, end;
	int32_t code = -1;
	char why[128];

	setup(&b);
	ASSERT_EQ(submit_exit(b, "f1", 10, 1), FW_OK);
	ASSERT_EQ(submit_exit(b, "f2", 10, 1), FW_OK);
	ASSERT_EQ(submit_exit(b, "f3", 10, 7), FW_OK);
	ASSERT_EQ(submit(b, "ok", 10), FW_OK);
	ASSERT_EQ(submit_exit(b, "gone", 0, 1), FW_OK);
	ASSERT_EQ(health_of(b, "n0", NULL), 0);
	start_on(b, "ok", 1000, "n0");
	start_on(b, "gone", 1000, "n0");
	start_on(b, "f1", 1000, "n0");
	ASSERT_EQ(fw_backend_local.cancel(b, "gone", 1005), FW_OK);
	start_on(b, "f2", 1010, "n0"); /* the read at 1010 ends ok and f1 */
	ASSERT_EQ(fw_local_job_info(b, "ok", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	ASSERT_EQ(code, 0);
	ASSERT_EQ(fw_local_job_info(b, "f1", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "failed");
	ASSERT_EQ(end, 1010);
	ASSERT_EQ(code, 1);
	ASSERT_EQ(health_of(b, "n0", why), 1);
	ASSERT_STR_EQ(why, "fairway: 1 job failure within 24 h (3 make it suspect)");
	start_on(b, "f3", 1020, "n0");
	ASSERT_EQ(health_of(b, "n0", why), 1); /* two failures: not yet */
	ASSERT_STR_EQ(why, "fairway: 2 job failures within 24 h (3 make it suspect)");
	s = world(b, 1030, &w);
	ASSERT_EQ(s->njobs, 0); /* a failed job leaves the snapshot */
	fw_snapshot_free(s);
	ASSERT_EQ(health_of(b, "n0", why), 2);
	ASSERT_STR_EQ(why, "fairway: 3 job failures within 24 h (probation ends in 6 h 0 min)");
	ASSERT_EQ(health_of(b, "n1", NULL), 0);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "f3", 1030), FW_ENOENT); /* ended */
	ASSERT_EQ(fw_backend_local.cancel(b, "f3", 1030), FW_EEXIST);

	fw_backend_local.close(b); /* reopen from the store alone */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = 1040;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "f3", &state, &sub, &start, &end, &code, NULL), FW_OK);
	ASSERT_STR_EQ(state, "failed");
	ASSERT_EQ(code, 7);
	ASSERT_EQ(health_of(b, "n0", why), 2);
	ASSERT_STR_EQ(why, "fairway: 3 job failures within 24 h (probation ends in 6 h 0 min)");
	s = world(b, 22630, &w); /* probation (6 h) is over */
	fw_snapshot_free(s);
	ASSERT_EQ(health_of(b, "n0", why), 0);
	teardown(b);
}

/* A job on two nodes counts on both, once each however many of its
 * tasks a node held; the window is the model's (24 h from its first
 * failure), and a node whose window is over leaves health(). */
TEST(failures_count_per_node_within_the_window)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_placement p[3] = { { "n0", 0, 0x1, 1000 }, { "n1", 0, 0x1, 1000 }, { "n1", 0, 0x2, 1000 } };
	struct fw_backend_action a;
	int status[1];
	struct fw_backend_result r = { .status = status };
	char name[8], why[128];

	setup(&b);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "g%d", i);
		ASSERT_EQ(submit_exit(b, name, 10, 1), FW_OK);
		fw_snapshot_free(world(b, 1000 + i * 50000, &w)); /* 50000 s apart: never 3 in 24 h */
		memset(&a, 0, sizeof a);
		a.kind = FW_DECIDE_START;
		snprintf(a.job, sizeof a.job, "%s", name);
		a.at = 1000 + i * 50000;
		a.nplacements = i == 2 ? 3 : 2;
		a.placements = p;
		ASSERT_EQ(fw_backend_local.apply(b, w.generation, &a, 1, &r), FW_OK);
		ASSERT_EQ(status[0], FW_OK);
	}
	fw_snapshot_free(world(b, 101010, &w)); /* g2 ends: a new window */
	ASSERT_EQ(health_of(b, "n0", why), 1);
	ASSERT_STR_EQ(why, "fairway: 1 job failure within 24 h (3 make it suspect)");
	ASSERT_EQ(health_of(b, "n1", why), 1);
	ASSERT_STR_EQ(why, "fairway: 1 job failure within 24 h (3 make it suspect)");
	fw_snapshot_free(world(b, 101010 + 86400, &w));
	ASSERT_EQ(health_of(b, "n0", NULL), 0);
	ASSERT_EQ(health_of(b, "n1", NULL), 0);
	teardown(b);
}

/* A job whose end the store refuses to record has not ended: it still
 * runs, in memory as in the store, the generation is the same, and read()
 * fails saying why; once the store takes it, it ends at start + runtime,
 * also after a reopen. */
TEST(a_finish_the_store_refuses_changes_nothing)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *s;
	struct fw_diag d;
	const char *state;
	fw_time sub, start, end;
	uint64_t gen;

	setup(&b);
	ASSERT_EQ(submit(b, "short", 60), FW_OK);
	start_on(b, "short", 1000, "n0");
	fw_snapshot_free(world(b, 1010, &w));
	gen = w.generation;
	fail_writes_of("done");
	s = fw_snapshot_new();
	s->now = 1060;
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_backend_local.read(b, s, &w, &d), FW_EIO);
	fw_snapshot_free(s);
	ASSERT_STR_EQ(d.field, "store");
	ASSERT(strstr(d.msg, "cannot record the 1 job(s) that finished: injected: the disk is full") != NULL);
	ASSERT_EQ(fw_local_job_info(b, "short", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "running");
	s = world(b, 1059, &w); /* not due: the read needs no write */
	ASSERT_EQ(w.generation, gen);
	ASSERT_EQ(s->njobs, 1);
	fw_snapshot_free(s);

	drop_failing();
	s = world(b, 1070, &w);
	ASSERT_EQ(s->njobs, 0);
	fw_snapshot_free(s);
	ASSERT(w.generation != gen);
	ASSERT_EQ(fw_local_job_info(b, "short", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	ASSERT_EQ(end, 1060);
	fw_backend_local.close(b); /* the store says the same */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "short", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "done");
	teardown(b);
}

static int drain(struct fw_backend *b, uint64_t gen, const char *node)
{
	struct fw_backend_action a;
	int status = -100;
	struct fw_backend_result r = { .status = &status };

	memset(&a, 0, sizeof a);
	a.kind = FW_DECIDE_DRAIN;
	snprintf(a.node, sizeof a.node, "%s", node);
	int rc = fw_backend_local.apply(b, gen, &a, 1, &r);
	return rc != FW_OK ? rc : status;
}

/* A job's state ("?" when unknown), and its end in *end when given (-1
 * when unknown). */
static const char *job_at(struct fw_backend *b, const char *job, fw_time *end)
{
	const char *state = "?";
	fw_time sub, start, e = -1;

	fw_local_job_info(b, job, &state, &sub, &start, &e, NULL, NULL);
	if (end)
		*end = e;
	return state;
}

static const char *state_of(struct fw_backend *b, const char *job)
{
	return job_at(b, job, NULL);
}

/* The daemon rolled back a transaction the backend wrote into (a start,
 * a drain, a cancel, a submission): reload() brings the world back to
 * what the store holds, with a new generation, and the world is whole
 * (found by name, startable again).  An action whose own write the store
 * refuses changes nothing, transaction or not. */
TEST(reload_after_a_rollback_restores_the_committed_world)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_snapshot *s;
	uint64_t gen;

	setup(&b);
	ASSERT_EQ(submit(b, "a", 0), FW_OK);
	ASSERT_EQ(submit(b, "kept", 0), FW_OK);
	fw_snapshot_free(world(b, 1000, &w));
	ASSERT_EQ(fw_store_begin(store), FW_OK);
	ASSERT_EQ(act_on(b, w.generation, FW_DECIDE_START, "a", 1000, "n0"), FW_OK);
	ASSERT_EQ(fw_backend_local.cancel(b, "kept", 1000), FW_OK);
	ASSERT_EQ(submit(b, "new", 0), FW_OK);
	fw_snapshot_free(world(b, 1000, &w));
	ASSERT_EQ(drain(b, w.generation, "n1"), FW_OK);
	gen = w.generation;
	fw_store_rollback(store);
	ASSERT_STR_EQ(state_of(b, "a"), "running"); /* what the rollback alone leaves */
	ASSERT_EQ(fw_backend_local.reload(b, NULL), FW_OK);
	ASSERT_STR_EQ(state_of(b, "a"), "pending");
	ASSERT_STR_EQ(state_of(b, "kept"), "pending");
	ASSERT_STR_EQ(state_of(b, "new"), "?"); /* never committed */
	s = world(b, 1010, &w);
	ASSERT(w.generation > gen);
	ASSERT_EQ(s->njobs, 2);
	ASSERT(s->nodes[0].schedulable && s->nodes[1].schedulable);
	fw_snapshot_free(s);
	start_on(b, "a", 1010, "n0");
	ASSERT_EQ(submit(b, "new", 0), FW_OK);
	ASSERT_EQ(submit(b, "a", 0), FW_EEXIST);

	fail_writes_of("cancelled"); /* a write of its own the store refuses */
	ASSERT_EQ(fw_backend_local.cancel(b, "a", 1020), FW_EIO);
	ASSERT_STR_EQ(state_of(b, "a"), "running");
	drop_failing();
	fail_writes_of("pending");
	ASSERT_EQ(act_at(b, FW_DECIDE_EVICT, "a", 1030, ""), FW_EIO);
	ASSERT_STR_EQ(state_of(b, "a"), "running");
	drop_failing();
	fail_writes_of("running");
	ASSERT_EQ(act_at(b, FW_DECIDE_START, "kept", 1040, "n1"), FW_EIO);
	ASSERT_STR_EQ(state_of(b, "kept"), "pending");
	drop_failing();
	teardown(b);
}

/* The action the daemon makes of the plan's decision about job (cycle.c
 * add_actions: kind, reason, its arguments, the plan's time). */
static struct fw_backend_action action_of(const struct fw_snapshot *s, const struct fw_plan *p, const char *job)
{
	struct fw_backend_action a;

	memset(&a, 0, sizeof a);
	for (int32_t i = 0; i < p->ndecisions; i++) {
		const struct fw_decision *d = &p->decisions[i];
		if (d->job < 0 || strcmp(s->jobs[d->job].name, job))
			continue;
		a.kind = d->kind;
		a.reason = d->reason;
		a.a = d->a;
		a.b = d->b;
		a.at = d->at;
		snprintf(a.job, sizeof a.job, "%s", job);
		return a;
	}
	a.kind = FW_DECIDE_COUNT; /* none */
	return a;
}

static int apply_one(struct fw_backend *b, uint64_t gen, const struct fw_backend_action *a)
{
	int status = -100;
	struct fw_backend_result r = { .status = &status };
	int rc = fw_backend_local.apply(b, gen, a, 1, &r);
	return rc != FW_OK ? rc : status;
}

/* A queue's run-time limit of 100 s: at 1100 the core ends "long" (run
 * 100 s of its 3600) with an EVICT, reason TIME_LIMIT, and the local
 * backend makes it `timeout` at the plan's time: final (not in the next
 * snapshot, not startable, not cancellable, a replay changes nothing), and
 * so after a reopen of the store.  "young" (run 50 s) runs on; evicted for
 * another reason (reclaim) it is requeued, pending, as before. */
TEST(a_job_past_its_queues_limit_ends_as_timeout)
{
	static struct fw_arena ar;
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_backend_action a;
	struct fw_snapshot *s;
	struct fw_plan *p;
	const char *state;
	fw_time sub, start, end;

	setup(&b);
	ASSERT_EQ(submit(b, "long", 3600), FW_OK);
	ASSERT_EQ(submit(b, "young", 3600), FW_OK);
	start_on(b, "long", 1000, "n0");
	start_on(b, "young", 1050, "n1");
	s = world(b, 1100, &w);
	s->queues[0].max_runtime_s = 100; /* the daemon's skeleton: the queue's maxRuntime */
	ASSERT((p = tb_plan(s, NULL, &ar)) != NULL);
	a = action_of(s, p, "long");
	ASSERT_EQ(a.kind, FW_DECIDE_EVICT);
	ASSERT_EQ(a.reason, FW_REASON_TIME_LIMIT);
	ASSERT_EQ(a.a, 100);
	ASSERT_EQ(a.b, 100);
	ASSERT_EQ(action_of(s, p, "young").kind, FW_DECIDE_COUNT); /* 50 s: runs on */
	fw_snapshot_free(s);
	ASSERT_EQ(apply_one(b, w.generation, &a), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "long", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "timeout");
	ASSERT_EQ(start, 1000);
	ASSERT_EQ(end, 1100);
	ASSERT_EQ(apply_one(b, w.generation + 1, &a), FW_EEXIST); /* a replay: ended already */
	ASSERT_EQ(fw_backend_local.cancel(b, "long", 1101), FW_EEXIST);

	fw_backend_local.close(b); /* the store keeps it */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_STR_EQ(state_of(b, "long"), "timeout");
	ASSERT_EQ(fw_local_job_info(b, "long", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_EQ(end, 1100);
	s = world(b, 1200, &w);
	ASSERT_EQ(s->njobs, 1); /* not requeued: only young is left */
	ASSERT_STR_EQ(s->jobs[0].name, "young");
	fw_snapshot_free(s);
	ASSERT_EQ(act(b, w.generation, FW_DECIDE_START, "long", 1200), FW_ENOENT);
	a.reason = FW_REASON_RECLAIMED; /* any other eviction requeues */
	snprintf(a.job, sizeof a.job, "young");
	ASSERT_EQ(apply_one(b, w.generation, &a), FW_OK);
	ASSERT_STR_EQ(state_of(b, "young"), "pending");
	fw_arena_release(&ar);
	teardown(b);
}

static int32_t job_index(const struct fw_snapshot *s, const char *name)
{
	for (int32_t i = 0; i < s->njobs; i++)
		if (!strcmp(s->jobs[i].name, name))
			return i;
	return -1;
}

/* A job's own run-time limit (maxRuntime 100 s) in queue q, which sets
 * none: the store keeps it (after a reopen the snapshot has it, and it
 * binds: fw_job_limit 100), at 99 s of running nothing happens, at 100 s
 * the core ends it with an EVICT, reason TIME_LIMIT, b = its own limit,
 * and the local backend makes it `timeout` at the plan's time, not
 * requeued.  "plain", of the same queue without a limit of its own, runs
 * on. */
TEST(a_job_past_its_own_limit_ends_as_timeout)
{
	static struct fw_arena ar;
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_backend_job j = job_named("capped");
	struct fw_backend_action a;
	struct fw_snapshot *s;
	struct fw_plan *p;
	const char *state;
	fw_time sub, start, end;
	int32_t k;

	setup(&b);
	j.job.expected_runtime = 3600;
	j.job.max_runtime_s = 100;
	ASSERT_EQ(fw_backend_local.submit(b, &j, 1000, NULL), FW_OK);
	ASSERT_EQ(submit(b, "plain", 3600), FW_OK);
	start_on(b, "capped", 1000, "n0");
	start_on(b, "plain", 1000, "n1");
	fw_backend_local.close(b); /* the store keeps its limit */
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);

	s = world(b, 1099, &w);
	ASSERT((k = job_index(s, "capped")) >= 0);
	ASSERT_EQ(s->jobs[k].max_runtime_s, 100);
	ASSERT_EQ(s->queues[0].max_runtime_s, 0); /* the queue sets none */
	ASSERT_EQ(fw_job_limit(s, &s->jobs[k]), 100);
	ASSERT_EQ(s->jobs[job_index(s, "plain")].max_runtime_s, 0);
	ASSERT((p = tb_plan(s, NULL, &ar)) != NULL);
	ASSERT_EQ(action_of(s, p, "capped").kind, FW_DECIDE_COUNT); /* 99 s: under its limit */
	fw_snapshot_free(s);

	s = world(b, 1100, &w);
	ASSERT((p = tb_plan(s, NULL, &ar)) != NULL);
	a = action_of(s, p, "capped");
	ASSERT_EQ(a.kind, FW_DECIDE_EVICT);
	ASSERT_EQ(a.reason, FW_REASON_TIME_LIMIT);
	ASSERT_EQ(a.a, 100);
	ASSERT_EQ(a.b, 100);
	ASSERT_EQ(action_of(s, p, "plain").kind, FW_DECIDE_COUNT); /* no limit: runs on */
	fw_snapshot_free(s);
	ASSERT_EQ(apply_one(b, w.generation, &a), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "capped", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "timeout");
	ASSERT_EQ(start, 1000);
	ASSERT_EQ(end, 1100);
	ASSERT_STR_EQ(state_of(b, "plain"), "running");
	s = world(b, 1200, &w);
	ASSERT_EQ(s->njobs, 1); /* not requeued: only plain is left */
	ASSERT_STR_EQ(s->jobs[0].name, "plain");
	fw_snapshot_free(s);
	fw_arena_release(&ar);
	teardown(b);
}

/* A --config job's own maxRuntime (2h) seeds the store with the job and
 * comes back at a reopen; one the YAML takes but the API's range does not
 * (400 days, past 365) is refused at the seed, naming the job and
 * maxRuntime: stored, it could not be read back, and every restart would
 * fail. */
TEST(a_config_jobs_own_limit_is_seeded_or_refused)
{
#define LIMITED_FLEET(LIMIT)                                                  \
	"now: 0\n"                                                            \
	"nodes:\n"                                                            \
	"  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n"                   \
	"queues:\n"                                                           \
	"  - {name: q, resources: {gpu: {quota: 8}}}\n"                       \
	"jobs:\n"                                                             \
	"  - {name: cfg-capped, queue: q, expectedRuntime: 3600, maxRuntime: " \
	LIMIT ", tasks: [{gpus: 1}]}\n"
	static const char two_hours[] = LIMITED_FLEET("2h"), too_long[] = LIMITED_FLEET("400d");
#undef LIMITED_FLEET
	struct fw_backend *b = NULL;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *s;
	struct fw_diag d;
	char cmd[128];

	memset(&cfg, 0, sizeof cfg);
	ASSERT_EQ(open_seeded(two_hours, sizeof two_hours - 1, &cfg, &b), FW_OK);
	fw_backend_local.close(b);
	cfg.seed_jobs = false; /* a restart: from the store alone */
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(s->njobs, 1);
	ASSERT_EQ(s->jobs[0].max_runtime_s, 7200);
	fw_snapshot_free(s);
	teardown(b);

	memset(&cfg, 0, sizeof cfg);
	memset(&d, 0, sizeof d);
	fresh_store(too_long, sizeof too_long - 1);
	ASSERT_EQ(fleet->jobs[0].max_runtime_s, 400 * 86400); /* the YAML takes it */
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.seed_jobs = true;
	ASSERT(fw_backend_local.open(&cfg, &b, &d) != FW_OK);
	ASSERT_STR_EQ(d.field, "store.jobs");
	ASSERT_STR_CONTAINS(d.msg, "job cfg-capped: maxRuntime: must be between 0 and 31536000");
	fw_store_close(store);
	fw_snapshot_free(fleet);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ASSERT_EQ(system(cmd), 0);
}

static int last_decision(void *ctx, const struct fw_store_decision *dec)
{
	snprintf(ctx, 256, "%s %s %lld | %s", dec->kind, dec->reason, (long long)dec->cycle, dec->text);
	return 0;
}

static int count_decisions(void *ctx, const struct fw_store_decision *dec)
{
	(void)dec;
	++*(int *)ctx;
	return 0;
}

/* The store's decision rows of job: its last is text ("" for none), or
 * there are n of them.  Macros, so a failure names the caller's line. */
#define ASSERT_LAST_ROW(job, text)									\
	do {												\
		char last_[256] = "";									\
		ASSERT_EQ(fw_store_job_decisions(store, (job), INT64_MIN, 10, last_decision, last_), FW_OK);	\
		ASSERT_STR_EQ(last_, (text));								\
	} while (0)
#define ASSERT_ROWS(job, n)										\
	do {												\
		int rows_ = 0;										\
		ASSERT_EQ(fw_store_job_decisions(store, (job), INT64_MIN, 10, count_decisions, &rows_), FW_OK);	\
		ASSERT_EQ(rows_, (n));									\
	} while (0)

/* The fleet of one node n0, as a restart on a fleet without n1 reads it. */
static const char n0_only[] = "now: 0\n"
			      "nodes:\n"
			      "  - {name: n0, gpus: 8, cpu: 64, memory: 512Gi}\n";

/* Close *b (the daemon stops) and open it again at now on the fleet of
 * YAML `yaml` (*small, the caller's to free), with the daemon's queues
 * (cfg->queues; NULL: none): *cfg is as it opened, to open again. */
static void reopen_on(struct fw_backend **b, const char *yaml, fw_time now, struct fw_snapshot *queues,
		      struct fw_backend_config *cfg, struct fw_snapshot **small)
{
	fw_backend_local.close(*b);
	ASSERT_EQ(fw_config_load_buffer("fleet", yaml, strlen(yaml), small, NULL), FW_OK);
	memset(cfg, 0, sizeof *cfg);
	cfg->fleet = *small;
	cfg->store = store;
	cfg->now = now;
	cfg->queues = queues;
	ASSERT_EQ(fw_backend_local.open(cfg, b, NULL), FW_OK);
}

/* Reopened on a fleet without the node a job ran on: the job is pending
 * again, and its decision history says so, naming the node; a job on a
 * node kept runs on with no new row. */
TEST(a_job_requeued_by_a_fleet_change_has_a_decision)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *small, *s;
	const char *state;
	fw_time sub, start, end;

	setup(&b);
	ASSERT_EQ(submit(b, "on-n0", 0), FW_OK);
	ASSERT_EQ(submit(b, "on-n1", 0), FW_OK);
	start_on(b, "on-n0", 1000, "n0");
	start_on(b, "on-n1", 1000, "n1");
	reopen_on(&b, n0_only, 2000, NULL, &cfg, &small);
	ASSERT_EQ(fw_local_job_info(b, "on-n1", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "pending");
	ASSERT_LAST_ROW("on-n1",
			"requeue fleet_change 0 | requeued: it was running on node n1, which the fleet no longer has");
	ASSERT_LAST_ROW("on-n0", "");
	s = world(b, 2000, &w);
	ASSERT_EQ(s->njobs, 2);
	fw_snapshot_free(s);
	fw_backend_local.close(b);
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK); /* once: the job is no longer running */
	ASSERT_ROWS("on-n1", 1);
	teardown(b);
	fw_snapshot_free(small);
}

/* Reopened on a fleet whose node n0 has fewer cores than the job running
 * there asks: the job is requeued like one on a node that is gone (the
 * snapshot would otherwise overbook n0, which fw_snapshot_validate
 * refuses, and every cycle would fail); n1 kept exactly the memory its
 * job asks, so that job runs on. */
TEST(a_job_on_a_node_the_fleet_shrank_is_requeued)
{
	static const char shrunk[] = "now: 0\n"
				     "nodes:\n"
				     "  - {name: n0, gpus: 8, cpu: 32, memory: 512Gi}\n"
				     "  - {name: n1, gpus: 8, cpu: 64, memory: 256Gi}\n";
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *small, *s;
	struct fw_diag d;
	const char *state;
	fw_time sub, start, end;

	setup(&b);
	for (int i = 0; i < 2; i++) {
		struct fw_backend_job j;
		memset(&j, 0, sizeof j);
		fw_job_init(&j.job);
		snprintf(j.job.name, sizeof j.job.name, "%s", i ? "mem-job" : "cpu-job");
		strcpy(j.queue, "q");
		j.job.groups[0].gpus = 4;
		j.job.groups[0].cpu_milli = i ? 8000 : 48000;
		j.job.groups[0].mem_mib = i ? 256 * 1024 : 1024;
		ASSERT_EQ(fw_backend_local.submit(b, &j, 1000, NULL), FW_OK);
	}
	start_on(b, "cpu-job", 1000, "n0");
	start_on(b, "mem-job", 1000, "n1");
	reopen_on(&b, shrunk, 2000, NULL, &cfg, &small);
	ASSERT_EQ(fw_local_job_info(b, "cpu-job", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "pending");
	ASSERT_LAST_ROW("cpu-job", "requeue fleet_change 0 | requeued: it was running on node n0, which the fleet now has "
			"with too little CPU or memory for it");
	ASSERT_EQ(fw_local_job_info(b, "mem-job", &state, &sub, &start, &end, NULL, NULL), FW_OK);
	ASSERT_STR_EQ(state, "running");
	s = world(b, 2000, &w);
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_OK);
	fw_snapshot_free(s);
	teardown(b);
	fw_snapshot_free(small);
}

/* --- run-time limits no cycle could apply (local.c: read() applies them) --- */
/* The daemon's skeleton at now when queue q's parent "top" has a
 * run-time limit of limit seconds (0: none). */
static struct fw_snapshot *limited_skeleton(fw_time now, fw_time limit)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_queue top, q;

	fw_queue_init(&top);
	fw_queue_init(&q);
	strcpy(top.name, "top");
	top.max_runtime_s = limit;
	strcpy(q.name, "q");
	q.parent = 0;
	if (fw_snapshot_add_queue(s, &top) != 0 || fw_snapshot_add_queue(s, &q) != 1)
		abort();
	s->now = now;
	return s;
}

/* The world read into it. */
static struct fw_snapshot *limited_world(struct fw_backend *b, fw_time now, fw_time limit,
					 struct fw_backend_world *w)
{
	struct fw_snapshot *s = limited_skeleton(now, limit);

	if (fw_backend_local.read(b, s, w, NULL) != FW_OK)
		abort();
	return s;
}

/* Start job at now on the GPUs mask of node (after a read at now). */
static void start_masked(struct fw_backend *b, const char *job, fw_time now, const char *node, uint32_t mask)
{
	struct fw_backend_placement p = { "", 0, mask, 1000 };
	struct fw_backend_action a;
	struct fw_backend_world w;
	int status = -100;
	struct fw_backend_result r = { .status = &status };

	fw_snapshot_free(world(b, now, &w));
	snprintf(p.node, sizeof p.node, "%s", node);
	memset(&a, 0, sizeof a);
	a.kind = FW_DECIDE_START;
	snprintf(a.job, sizeof a.job, "%s", job);
	a.at = now;
	a.nplacements = 1;
	a.placements = &p;
	if (fw_backend_local.apply(b, w.generation, &a, 1, &r) != FW_OK || status != FW_OK)
		abort();
}

static int submit_limited(struct fw_backend *b, const char *name, fw_time runtime, int32_t limit)
{
	struct fw_backend_job j = job_named(name);
	j.job.expected_runtime = runtime;
	j.job.max_runtime_s = limit;
	return fw_backend_local.submit(b, &j, 1000, NULL);
}

/* Close *b (the daemon stops) and open it again from the store alone at
 * now (its restart). */
static void reopen_at(struct fw_backend **b, fw_time now)
{
	struct fw_backend_config cfg;

	fw_backend_local.close(*b);
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = now;
	if (fw_backend_local.open(&cfg, b, NULL))
		abort();
}

static fw_time end_of(struct fw_backend *b, const char *job)
{
	fw_time end;

	job_at(b, job, &end);
	return end;
}

/* Job `job` of b is in state st and ended at `end`: a macro, so a failure
 * names the caller's line. */
#define ASSERT_ENDED(b, job, st, end)					\
	do {								\
		ASSERT_STR_EQ(state_of((b), (job)), (st));		\
		ASSERT_EQ(end_of((b), (job)), (end));			\
	} while (0)

/* The row of a job that queue "top"'s limit of 100 s ended (the read's). */
static const char top_limited_row[] = "timeout time_limit 0 | ended: it has run 1m40s and the run-time limit "
				      "(maxRuntime) of queue \"top\", above its queue \"q\", is 1m40s; it is "
				      "stopped, not requeued";

/* Queue q's parent "top" limits its jobs to 100 s; the daemon is down
 * from 1050 to 1500.  "long" (runtime 300, started at 1000) reached its
 * limit at 1100, before its runtime's end at 1300: the first read after
 * the reopen ends it `timeout` at 1100, not `done` at 1300, with the row
 * the cycle logs (evict, time_limit, its text; cycle 0: the backend's
 * own), and counts it.  "forever" (runtime 0: until cancelled) ends
 * `timeout` at 1100 too.  "short" (runtime 50) was done at 1050, before
 * its limit: `done` there, no row.  A store that refuses the timeouts
 * changes nothing and the next read catches up all the same; the store
 * keeps what it did. */
TEST(a_queue_limit_passed_while_the_daemon_was_down_ends_jobs_at_it)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_snapshot *s;
	struct fw_diag d;

	setup(&b);
	ASSERT_EQ(submit(b, "long", 300), FW_OK);
	ASSERT_EQ(submit(b, "short", 50), FW_OK);
	ASSERT_EQ(submit(b, "forever", 0), FW_OK);
	start_masked(b, "long", 1000, "n0", 0x0f);
	start_masked(b, "short", 1000, "n0", 0xf0);
	start_masked(b, "forever", 1000, "n1", 0x0f);
	s = limited_world(b, 1040, 100, &w);
	ASSERT_EQ(s->njobs, 3); /* all under their limit */
	fw_snapshot_free(s);
	reopen_at(&b, 1500);

	fail_writes_of("timeout");
	s = limited_skeleton(1500, 100);
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_backend_local.read(b, s, &w, &d), FW_EIO);
	fw_snapshot_free(s);
	ASSERT_STR_CONTAINS(d.msg, "cannot record the 3 job(s) that finished");
	ASSERT_STR_EQ(state_of(b, "long"), "running");
	ASSERT_STR_EQ(state_of(b, "short"), "running");
	ASSERT_ROWS("long", 0);
	ASSERT_EQ(fw_local_timed_out(b), 0);
	drop_failing();

	s = limited_world(b, 1510, 100, &w);
	ASSERT_EQ(s->njobs, 0);
	fw_snapshot_free(s);
	ASSERT_ENDED(b, "long", "timeout", 1100);
	ASSERT_ENDED(b, "forever", "timeout", 1100);
	ASSERT_ENDED(b, "short", "done", 1050);
	ASSERT_EQ(fw_local_timed_out(b), 2);
	ASSERT_LAST_ROW("long", top_limited_row);
	ASSERT_ROWS("long", 1);
	ASSERT_ROWS("short", 0);

	reopen_at(&b, 1600); /* the store keeps it */
	ASSERT_ENDED(b, "long", "timeout", 1100);
	ASSERT_STR_EQ(state_of(b, "short"), "done");
	s = limited_world(b, 1600, 100, &w);
	ASSERT_EQ(s->njobs, 0);
	fw_snapshot_free(s);
	ASSERT_ROWS("long", 1); /* once */
	teardown(b);
}

/* The same with jobs' own limits, queue q setting none: "capped" (runtime
 * 300, maxRuntime 100) ends `timeout` at 1100 with its own limit's text,
 * "forever" (runtime 0, maxRuntime 200) at 1200, each at its own. */
TEST(a_jobs_own_limit_passed_while_the_daemon_was_down_ends_it_at_it)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_snapshot *s;
	char last[256] = "";

	setup(&b);
	ASSERT_EQ(submit_limited(b, "capped", 300, 100), FW_OK);
	ASSERT_EQ(submit_limited(b, "forever", 0, 200), FW_OK);
	start_masked(b, "capped", 1000, "n0", 0x0f);
	start_masked(b, "forever", 1000, "n1", 0x0f);
	reopen_at(&b, 1500);
	s = world(b, 1500, &w);
	ASSERT_EQ(s->njobs, 0);
	fw_snapshot_free(s);
	ASSERT_ENDED(b, "capped", "timeout", 1100);
	ASSERT_ENDED(b, "forever", "timeout", 1200);
	ASSERT_LAST_ROW("capped", "timeout time_limit 0 | ended: it has run 1m40s and its own run-time limit (maxRuntime) "
			"is 1m40s; it is stopped, not requeued");
	ASSERT_EQ(fw_store_job_decisions(store, "forever", INT64_MIN, 10, last_decision, last), FW_OK);
	ASSERT_STR_CONTAINS(last, "it has run 3m20s and its own run-time limit (maxRuntime) is 3m20s");
	teardown(b);
}

/* What read() leaves to the cycle, and the instant both fall on (queue
 * limit 100 s, all started at 1000 by a daemon up since then).  "tie"
 * (runtime 100) ends `done` at 1100: its runtime ends at its limit's very
 * instant, and a running daemon's read() finishes it before the cycle
 * looks.  "missed" (runtime 150), next read at 1200 (no cycle between:
 * a long period), ends `timeout` at 1100: its runtime is up too.  "long"
 * (runtime 3600) runs on at 1200, past its limit: the daemon was up when
 * it was reached, so the cycle ends it (at its plan's time).  Down from
 * 1250 to 1290: at the first read after the reopen "long" (its limit
 * reached at 1100, before the reopen) ends `timeout` at 1100, and "late"
 * (started at 1200: its limit at 1300, after the reopen) runs on, the
 * cycle's; and still when its limit is lowered to 50 s at 1500, though
 * 1250 is before the reopen: that limit was not in force then. */
TEST(limits_reached_while_the_daemon_runs_are_the_cycles)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_snapshot *s;

	setup(&b);
	ASSERT_EQ(submit(b, "tie", 100), FW_OK);
	ASSERT_EQ(submit(b, "missed", 150), FW_OK);
	ASSERT_EQ(submit(b, "long", 3600), FW_OK);
	ASSERT_EQ(submit(b, "late", 3600), FW_OK);
	start_masked(b, "tie", 1000, "n0", 0x0f);
	start_masked(b, "missed", 1000, "n0", 0xf0);
	start_masked(b, "long", 1000, "n1", 0x0f);
	fw_snapshot_free(limited_world(b, 1050, 100, &w));
	s = limited_world(b, 1200, 100, &w);
	ASSERT_EQ(s->njobs, 2); /* long, late (pending) */
	ASSERT_EQ(s->jobs[job_index(s, "long")].state, FW_JOB_RUNNING);
	fw_snapshot_free(s);
	ASSERT_ENDED(b, "tie", "done", 1100);
	ASSERT_ENDED(b, "missed", "timeout", 1100);
	ASSERT_EQ(fw_local_timed_out(b), 1);
	start_masked(b, "late", 1200, "n1", 0xf0);
	fw_snapshot_free(limited_world(b, 1250, 100, &w));
	ASSERT_STR_EQ(state_of(b, "long"), "running");

	reopen_at(&b, 1290);
	s = limited_world(b, 1400, 100, &w);
	ASSERT_EQ(s->njobs, 1);
	ASSERT_STR_EQ(s->jobs[0].name, "late");
	ASSERT_EQ(s->jobs[0].state, FW_JOB_RUNNING);
	fw_snapshot_free(s);
	ASSERT_ENDED(b, "long", "timeout", 1100);
	ASSERT_STR_EQ(state_of(b, "late"), "running");
	s = limited_world(b, 1500, 50, &w); /* lowered: its limit now at 1250, before the reopen */
	ASSERT_EQ(s->njobs, 1);             /* not applied to the past: the cycle's, at its plan's time */
	ASSERT_EQ(s->jobs[0].state, FW_JOB_RUNNING);
	fw_snapshot_free(s);
	ASSERT_STR_EQ(state_of(b, "late"), "running");
	teardown(b);
}

/* Job name of queue q asking one GPU, runtime 3600, its own limit
 * (0: none), started at start on the GPU mask of node. */
static void run_one_gpu(struct fw_backend *b, const char *name, int32_t limit, fw_time start, const char *node,
			uint32_t mask)
{
	struct fw_backend_job j = job_named(name);

	j.job.groups[0].gpus = 1;
	j.job.expected_runtime = 3600;
	j.job.max_runtime_s = limit;
	if (fw_backend_local.submit(b, &j, 1000, NULL) != FW_OK)
		abort();
	start_masked(b, name, start, node, mask);
}

/* A fleet change meets a limit that passed while the daemon was down.
 * Jobs (runtime 3600) ran on n1 since 1000, and the daemon's queues give
 * q's parent "top" a limit of 100 s; the daemon reopens at 1500 on a
 * fleet without n1, with those queues (cfg->queues).  "q-limited" (its
 * queue's limit: 1100) and "own-limited" (its own 50 s: 1050) had passed
 * their limits before the open: they end `timeout` there, with the row
 * read() writes (evict, time_limit, cycle 0, the same text), counted in
 * fw_local_timed_out, and are not requeued.  "edge" (started 1400: its
 * limit at the open's very second) and "late" (1450: at 1550) are
 * requeued, as before.  "kept", on n0, past its limit too, is the first
 * read's (its catch-up), which agrees. */
TEST(a_job_a_fleet_change_would_requeue_ends_at_a_limit_that_passed)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *small, *queues = limited_skeleton(1500, 100), *s;

	setup(&b);
	run_one_gpu(b, "q-limited", 0, 1000, "n1", 0x01);
	run_one_gpu(b, "own-limited", 50, 1000, "n1", 0x02);
	run_one_gpu(b, "kept", 0, 1000, "n0", 0x01);
	run_one_gpu(b, "edge", 0, 1400, "n1", 0x04);
	run_one_gpu(b, "late", 0, 1450, "n1", 0x08);
	reopen_on(&b, n0_only, 1500, queues, &cfg, &small);

	ASSERT_ENDED(b, "q-limited", "timeout", 1100);
	ASSERT_ENDED(b, "own-limited", "timeout", 1050);
	ASSERT_EQ(fw_local_timed_out(b), 2);
	ASSERT_LAST_ROW("q-limited", top_limited_row);
	ASSERT_ROWS("q-limited", 1); /* no requeue row */
	ASSERT_LAST_ROW("own-limited", "timeout time_limit 0 | ended: it has run 50s and its own run-time limit "
					"(maxRuntime) is 50s; it is stopped, not requeued");
	for (int k = 0; k < 2; k++) {
		const char *job = k ? "late" : "edge";
		ASSERT_STR_EQ(state_of(b, job), "pending");
		ASSERT_LAST_ROW(job, "requeue fleet_change 0 | requeued: it was running on node n1, which the fleet no "
				"longer has");
	}
	ASSERT_STR_EQ(state_of(b, "kept"), "running");

	s = limited_world(b, 1500, 100, &w); /* the first read: kept's catch-up; nothing more of the others */
	ASSERT_EQ(s->njobs, 2);              /* edge, late: pending */
	fw_snapshot_free(s);
	ASSERT_ENDED(b, "kept", "timeout", 1100);
	ASSERT_EQ(fw_local_timed_out(b), 3);
	ASSERT_ROWS("q-limited", 1);

	fw_backend_local.close(b); /* the store keeps them */
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_STR_EQ(state_of(b, "q-limited"), "timeout");
	ASSERT_EQ(end_of(b, "own-limited"), 1050);
	ASSERT_STR_EQ(state_of(b, "late"), "pending");
	ASSERT_EQ(fw_local_timed_out(b), 0);
	teardown(b);
	fw_snapshot_free(small);
	fw_snapshot_free(queues);
}

static const char labelled_yaml[] =
	"now: 0\n"
	"nodes:\n"
	"  - {name: n0, gpus: 8, labels: {gpu: a}}\n"
	"  - {name: n1, gpus: 8, labels: {gpu: b, ib: null}}\n"
	"  - {name: n2, gpus: 8, labels: {gpu: b}}\n"
	"queues:\n"
	"  - {name: q}\n";

/* A fresh store and a local backend on labelled_yaml's fleet at t=1000. */
static int open_labelled(struct fw_backend_config *cfg, struct fw_backend **b)
{
	fresh_store(labelled_yaml, sizeof labelled_yaml - 1);
	memset(cfg, 0, sizeof *cfg);
	cfg->fleet = fleet;
	cfg->store = store;
	cfg->now = 1000;
	return fw_backend_local.open(cfg, b, NULL);
}

static int submit_sel(struct fw_backend *b, const char *name, const char *key, const char *value,
		      const char *key2)
{
	struct fw_backend_job j = job_named(name);
	struct fw_label pairs[FW_BACKEND_SEL_MAX];

	j.sel = pairs;
	if (key) {
		snprintf(j.sel[j.nsel].key, FW_NAME_MAX, "%s", key);
		snprintf(j.sel[j.nsel++].value, FW_NAME_MAX, "%s", value);
	}
	if (key2) { /* a label without a value; after key in key order */
		snprintf(j.sel[j.nsel].key, FW_NAME_MAX, "%s", key2);
		j.sel[j.nsel++].value[0] = '\0';
	}
	return fw_backend_local.submit(b, &j, 1000, NULL);
}

/* The node list of the job named name in s ("" when it may use any node,
 * "-" when s lacks it): node indices, comma-separated. */
static const char *filter_of(const struct fw_snapshot *s, const char *name)
{
	static char out[64];
	const int32_t *nodes;
	int32_t j = 0, n;

	while (j < s->njobs && strcmp(s->jobs[j].name, name))
		j++;
	if (j == s->njobs)
		return "-";
	out[0] = '\0';
	n = fw_snapshot_job_nodes(s, j, &nodes);
	for (int32_t k = 0; n >= 0 && k < s->nnodes; k++) /* the nodes it may use, whichever list says so */
		if (fw_snapshot_job_may_use(s, j, k))
			snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", out[0] ? "," : "", k);
	return out;
}

/* "+N": job's entry lists the N nodes it may use; "-N": the N it may
 * not (an except entry); "" without one. */
static const char *form_of(const struct fw_snapshot *s, const char *name)
{
	static char out[16];
	int32_t j = 0, e;

	while (j < s->njobs && strcmp(s->jobs[j].name, name))
		j++;
	if (j == s->njobs || (e = fw_snapshot_job_nodes_entry(s, j)) < 0)
		return "";
	snprintf(out, sizeof out, "%c%d", s->job_nodes[e].except ? '-' : '+', s->job_nodes[e].count);
	return out;
}

static int32_t entry_of(const struct fw_snapshot *s, int32_t job)
{
	return fw_snapshot_job_nodes_entry(s, job) < 0 ? -1 : s->job_nodes[fw_snapshot_job_nodes_entry(s, job)].first;
}

/* An empty snapshot with queue q at now, as the daemon's skeleton. */
static struct fw_snapshot *skeleton(fw_time now)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_queue q;

	fw_queue_init(&q);
	strcpy(q.name, "q");
	fw_snapshot_add_queue(s, &q);
	s->now = now;
	return s;
}

#define SAME_ARRAY(a, b, n) ((n) == 0 || memcmp((a), (b), (size_t)(n) * sizeof *(a)) == 0)

/* The same allocations, field by field (fw_task_alloc has padding after
 * its group, which memcmp would read uninitialised: valgrind). */
static bool same_allocs(const struct fw_task_alloc *a, const struct fw_task_alloc *b, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		if (a[i].node != b[i].node || a[i].group != b[i].group || a[i].gpu_mask != b[i].gpu_mask ||
		    a[i].gpu_milli != b[i].gpu_milli)
			return false;
	return true;
}

/* Do a and b hold the same world: nodes, jobs, allocations, filters? */
static bool same_world(const struct fw_snapshot *a, const struct fw_snapshot *b)
{
	if (a->nnodes != b->nnodes || a->njobs != b->njobs || a->nallocs != b->nallocs ||
	    a->njob_nodes != b->njob_nodes || a->ngroup_nodes != b->ngroup_nodes || a->nslices != b->nslices ||
	    a->nnode_refs != b->nnode_refs)
		return false;
	for (int32_t i = 0; i < a->nnodes; i++)
		if (strcmp(a->nodes[i].name, b->nodes[i].name) || a->nodes[i].schedulable != b->nodes[i].schedulable)
			return false;
	for (int32_t j = 0; j < a->njobs; j++) {
		const struct fw_job *x = &a->jobs[j], *y = &b->jobs[j];
		if (strcmp(x->name, y->name) || x->state != y->state || x->submit_time != y->submit_time ||
		    x->start_time != y->start_time || x->expected_runtime != y->expected_runtime ||
		    x->alloc_first != y->alloc_first || x->alloc_count != y->alloc_count)
			return false;
	}
	return same_allocs(a->allocs, b->allocs, a->nallocs) && SAME_ARRAY(a->job_nodes, b->job_nodes, a->njob_nodes) &&
	       SAME_ARRAY(a->group_nodes, b->group_nodes, a->ngroup_nodes) &&
	       SAME_ARRAY(a->slices, b->slices, a->nslices) && SAME_ARRAY(a->node_refs, b->node_refs, a->nnode_refs);
}

/* The read in two halves (backend.h capture, build): what build() makes
 * from a capture is what read() gives at the capture's time, selectors,
 * a running job's placements and a drained node included, however the
 * backend changed between the two (a running job cancelled, its
 * placements freed; a pending one started; a hundred submissions, the
 * job table moved by its growth): the copy is the capture's own.  The
 * generation is the capture's, older than the one the changes made, so a
 * plan made from the copy that names a changed job is stale. */
TEST(a_capture_builds_what_a_read_reads_whatever_changes_after_it)
{
	struct fw_backend *b;
	struct fw_backend_config cfg;
	struct fw_backend_world w, wc;
	struct fw_backend_copy *c;
	struct fw_snapshot *s, *read, *built;
	struct fw_diag d;
	char name[32];

	ASSERT_EQ(open_labelled(&cfg, &b), FW_OK);
	ASSERT_EQ(submit_sel(b, "any", NULL, NULL, NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "b1", "gpu", "b", NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "b-ib", "gpu", "b", "ib"), FW_OK);
	ASSERT_EQ(submit_sel(b, "none", "gpu", "c", NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "a", "gpu", "a", NULL), FW_OK);
	s = world(b, 1000, &w);
	fw_snapshot_free(s);
	ASSERT_EQ(act_on(b, w.generation, FW_DECIDE_START, "b1", 1000, "n1"), FW_OK);
	s = world(b, 1000, &w);
	fw_snapshot_free(s);
	ASSERT_EQ(drain(b, w.generation, "n2"), FW_OK);
	read = world(b, 1000, &w);
	ASSERT_EQ(read->nallocs, 1);
	ASSERT(!read->nodes[2].schedulable);
	built = skeleton(1000);
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_backend_local.capture(b, built, &c, &d), FW_OK);
	ASSERT_EQ(fw_backend_local.cancel(b, "b1", 1000), FW_OK);       /* frees its GPUs */
	ASSERT_EQ(act_on(b, w.generation, FW_DECIDE_START, "a", 1000, "n0"), FW_OK);
	for (int i = 0; i < 100; i++) {                                     /* the table grows */
		snprintf(name, sizeof name, "late-%d", i);
		ASSERT_EQ(submit(b, name, 0), FW_OK);
	}
	ASSERT_EQ(fw_backend_local.build(c, built, &wc, &d), FW_OK);
	fw_backend_local.discard(c);
	ASSERT(same_world(read, built));
	ASSERT_EQ(built->njobs, 5);
	ASSERT_EQ(wc.generation, w.generation);
	ASSERT_EQ(wc.skipped_jobs, w.skipped_jobs);
	ASSERT_STR_EQ(filter_of(built, "b-ib"), "1");
	ASSERT_STR_EQ(form_of(built, "none"), "-3");
	ASSERT_EQ(fw_snapshot_validate(built, &d), FW_OK);
	ASSERT_EQ(act_on(b, wc.generation, FW_DECIDE_START, "b1", 1000, "n1"), FW_EAGAIN); /* cancelled since */
	fw_snapshot_free(read);
	fw_snapshot_free(built);
	fw_backend_local.discard(NULL);
	teardown(b);
}

/* --- where a job ran: kept when it ends, holding nothing ------------------- */
/* Job `job`'s nodes as fw_local_job_ran gives them, "n0,n1" (consecutive
 * placements on one node once), "" for none; "?" when FW_ENOENT (not
 * known, or not ended). */
static const char *ran_on(struct fw_backend *b, const char *job)
{
	static char buf[256];
	const struct fw_backend_placement *p;
	int32_t n;
	size_t at = 0;

	if (fw_local_job_ran(b, job, &p, &n) != FW_OK)
		return "?";
	buf[0] = '\0';
	for (int32_t k = 0; k < n; k++)
		if (k == 0 || strcmp(p[k].node, p[k - 1].node))
			at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", at ? "," : "", p[k].node);
	return buf;
}

static int grab_stop(void *ctx, const char *key, const char *doc)
{
	if (!strcmp(key, "stop"))
		snprintf(ctx, 4096, "%s", doc);
	return 0;
}

/* Evict job at `at` (after a read at at) for reason r: TIME_LIMIT ends
 * it, any other requeues it. */
static int evict_for(struct fw_backend *b, const char *job, fw_time at, enum fw_reason r)
{
	struct fw_backend_world w;
	struct fw_backend_action a;

	fw_snapshot_free(world(b, at, &w));
	memset(&a, 0, sizeof a);
	a.kind = FW_DECIDE_EVICT;
	a.reason = r;
	a.at = at;
	snprintf(a.job, sizeof a.job, "%s", job);
	return apply_one(b, w.generation, &a);
}

/* The snapshot the core is given (a whole read at now, and a capture's
 * build, which must agree) holds the GPUs of the running jobs alone:
 * nallocs in all, and each job's own count in one string, "name=allocs"
 * in snapshot order. */
static const char *held_by(struct fw_backend *b, fw_time now, int32_t *nallocs)
{
	static char buf[512];
	struct fw_backend_world w, wc;
	struct fw_backend_copy *c;
	struct fw_snapshot *s = world(b, now, &w), *built = skeleton(now);
	size_t at = 0;

	ASSERT_EQ(fw_backend_local.capture(b, built, &c, NULL), FW_OK);
	ASSERT_EQ(fw_backend_local.build(c, built, &wc, NULL), FW_OK);
	fw_backend_local.discard(c);
	ASSERT(same_world(s, built));
	ASSERT_EQ(fw_snapshot_validate(s, NULL), FW_OK);
	*nallocs = s->nallocs;
	buf[0] = '\0';
	for (int32_t i = 0; i < s->njobs; i++)
		at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s=%d", i ? " " : "", s->jobs[i].name,
				       (int)s->jobs[i].alloc_count);
	fw_snapshot_free(s);
	fw_snapshot_free(built);
	return buf;
}

/* A job that ends keeps the nodes of its last run (done at its runtime,
 * cancelled while running, timeout at its limit), as history that holds
 * nothing: the snapshot has only the running jobs' GPUs, new jobs start
 * on the same GPUs, and a reopen (whose check refuses a GPU held twice)
 * keeps both.  A requeued job shows none while it waits (fw_local_job_ran:
 * not ended; fw_local_job_run: not running), its current run's once it
 * runs again, and, cancelled, its last run's: the one it lost if it never
 * ran again.  A job cancelled before it ever ran has none.  A store an
 * older fairway wrote (a cancelled job's alloc empty) still opens. */
TEST(an_ended_job_keeps_the_nodes_it_ran_on_and_holds_none)
{
	struct fw_backend *b;
	const struct fw_backend_placement *p;
	int32_t n;
	fw_time kept;
	char doc[4096];

	setup(&b);
	ASSERT_EQ(submit(b, "fin", 60), FW_OK);
	ASSERT_EQ(submit(b, "stop", 0), FW_OK);
	ASSERT_EQ(submit(b, "cap", 0), FW_OK);
	ASSERT_EQ(submit(b, "moved", 0), FW_OK);
	ASSERT_EQ(submit(b, "lost", 0), FW_OK);
	ASSERT_EQ(submit(b, "never", 0), FW_OK);
	start_masked(b, "fin", 1000, "n0", 0x0f);
	start_masked(b, "stop", 1000, "n1", 0x0f);
	start_masked(b, "cap", 1000, "n1", 0xf0);
	start_masked(b, "moved", 1000, "n0", 0xf0);
	ASSERT_STR_EQ(held_by(b, 1000, &n), "fin=1 stop=1 cap=1 moved=1 lost=0 never=0");
	ASSERT_EQ(n, 4);
	ASSERT_STR_EQ(ran_on(b, "fin"), "?"); /* running: fw_local_job_run's */
	ASSERT_EQ(fw_local_job_run(b, "fin", &p, &n, &kept), FW_OK);

	/* each way to end: done, cancelled, timeout; and a requeue */
	ASSERT_STR_EQ(held_by(b, 1060, &n), "stop=1 cap=1 moved=1 lost=0 never=0"); /* fin is done */
	ASSERT_EQ(fw_backend_local.cancel(b, "stop", 1070), FW_OK);
	ASSERT_EQ(evict_for(b, "cap", 1080, FW_REASON_TIME_LIMIT), FW_OK);
	ASSERT_EQ(evict_for(b, "moved", 1080, FW_REASON_RECLAIMED), FW_OK);
	ASSERT_STR_EQ(state_of(b, "fin"), "done");
	ASSERT_STR_EQ(state_of(b, "stop"), "cancelled");
	ASSERT_STR_EQ(state_of(b, "cap"), "timeout");
	ASSERT_STR_EQ(state_of(b, "moved"), "pending");
	ASSERT_STR_EQ(ran_on(b, "fin"), "n0");
	ASSERT_STR_EQ(ran_on(b, "stop"), "n1");
	ASSERT_STR_EQ(ran_on(b, "cap"), "n1");
	ASSERT_STR_EQ(ran_on(b, "moved"), "?"); /* waiting again: no current run */
	ASSERT_EQ(fw_local_job_run(b, "fin", &p, &n, &kept), FW_ENOENT);
	ASSERT_EQ(fw_local_job_run(b, "moved", &p, &n, &kept), FW_ENOENT);
	ASSERT_STR_EQ(held_by(b, 1090, &n), "moved=0 lost=0 never=0"); /* nothing held */
	ASSERT_EQ(n, 0);

	/* the same GPUs are free: new runs take them */
	start_masked(b, "moved", 1100, "n1", 0x0f); /* where stop ran */
	start_masked(b, "lost", 1100, "n0", 0x0f);  /* where fin ran */
	ASSERT_STR_EQ(held_by(b, 1100, &n), "moved=1 lost=1 never=0");
	ASSERT_EQ(n, 2);
	ASSERT_EQ(evict_for(b, "lost", 1120, FW_REASON_RECLAIMED), FW_OK);
	ASSERT_EQ(fw_backend_local.cancel(b, "lost", 1130), FW_OK);  /* cancelled while it waited again */
	ASSERT_EQ(fw_backend_local.cancel(b, "moved", 1130), FW_OK); /* cancelled in its second run */
	ASSERT_EQ(fw_backend_local.cancel(b, "never", 1130), FW_OK);
	ASSERT_STR_EQ(ran_on(b, "lost"), "n0");  /* the run it lost, its last */
	ASSERT_STR_EQ(ran_on(b, "moved"), "n1"); /* its last run's, not its first's (n0) */
	ASSERT_STR_EQ(ran_on(b, "never"), "");

	/* running jobs on every GPU the ended ones ran on; a reopen (its
	 * check: no GPU held twice by running jobs) keeps it all */
	ASSERT_EQ(submit(b, "n0a", 0), FW_OK);
	ASSERT_EQ(submit(b, "n1a", 0), FW_OK);
	ASSERT_EQ(submit(b, "n1b", 0), FW_OK);
	start_masked(b, "n0a", 1140, "n0", 0x0f);
	start_masked(b, "n1a", 1140, "n1", 0x0f);
	start_masked(b, "n1b", 1140, "n1", 0xf0);
	reopen_at(&b, 2000);
	ASSERT_STR_EQ(held_by(b, 2000, &n), "n0a=1 n1a=1 n1b=1");
	ASSERT_STR_EQ(ran_on(b, "fin"), "n0");
	ASSERT_STR_EQ(ran_on(b, "stop"), "n1");
	ASSERT_STR_EQ(ran_on(b, "cap"), "n1");
	ASSERT_STR_EQ(ran_on(b, "lost"), "n0");
	ASSERT_STR_EQ(ran_on(b, "moved"), "n1");
	ASSERT_STR_EQ(ran_on(b, "never"), "");

	/* kept in the store as the job's alloc; a document without them (an
	 * older fairway's cancelled job) opens, its nodes unknown */
	ASSERT_EQ(fw_store_each(store, FW_STORE_JOBS, grab_stop, doc), FW_OK);
	json_t *o = json_loads(doc, 0, NULL);
	ASSERT(o != NULL);
	ASSERT_STR_EQ(json_string_value(json_object_get(json_array_get(json_object_get(o, "alloc"), 0), "node")), "n1");
	json_object_set_new(o, "alloc", json_array());
	char *older = json_dumps(o, JSON_COMPACT);
	ASSERT(older != NULL);
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "stop", older), FW_OK);
	free(older);
	json_decref(o);
	reopen_at(&b, 2000);
	ASSERT_STR_EQ(state_of(b, "stop"), "cancelled");
	ASSERT_STR_EQ(ran_on(b, "stop"), "");
	ASSERT_STR_EQ(ran_on(b, "cap"), "n1");
	teardown(b);
}

/* Three labelled nodes and a queue, the start of the seeding tests'
 * configs (their jobs follow). */
#define ZONED_FLEET                                                  \
	"now: 100\n"                                                 \
	"nodes:\n"                                                   \
	"  - {name: n0, gpus: 8, labels: {gpu: a, zone: x}}\n"        \
	"  - {name: n1, gpus: 8, labels: {gpu: b, zone: x}}\n"        \
	"  - {name: n2, gpus: 8, labels: {gpu: b, zone: y}}\n"        \
	"queues:\n"                                                  \
	"  - {name: q}\n"                                            \
	"jobs:\n"

/* A job's nodeSelector becomes its node filter at every read: alike
 * selectors share one list, a label without a value is matched as such,
 * a running job is where it is, a selector no node meets leaves the job
 * out (skipped), and the selectors survive a reopen and follow the
 * labels of a changed fleet.  A seeded fleet job keeps its filter. */
TEST(node_selectors_become_node_filters)
{
	static const char relabelled[] = "now: 0\n"
					 "nodes:\n"
					 "  - {name: n0, gpus: 8, labels: {gpu: b}}\n"
					 "  - {name: n1, gpus: 8, labels: {gpu: b, ib: null}}\n"
					 "  - {name: n2, gpus: 8, labels: {gpu: c}}\n";
	static const char uniform[] = "now: 0\n"
				      "nodes:\n"
				      "  - {name: n0, gpus: 8, labels: {gpu: b}}\n"
				      "  - {name: n1, gpus: 8, labels: {gpu: b}}\n"
				      "  - {name: n2, gpus: 8, labels: {gpu: b}}\n";
	static const char seeded[] = ZONED_FLEET
				     "  - {name: s, queue: q, tasks: [{gpus: 1}], nodeSelector: {zone: x}}\n"
				     "  - {name: t, queue: q, tasks: [{gpus: 1}], nodeSelector: {gpu: b}}\n"
				     "  - {name: u, queue: q, tasks: [{gpus: 1}]}\n"
				     "  - {name: v, queue: q, tasks: [{gpus: 1}], nodeSelector: {zone: y}}\n";
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *other, *s;
	struct fw_diag d;
	const struct fw_backend_job *bj;
	const char *state;
	fw_time sub, start, end;

	ASSERT_EQ(open_labelled(&cfg, &b), FW_OK);
	ASSERT_EQ(submit_sel(b, "any", NULL, NULL, NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "b1", "gpu", "b", NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "b-ib", "gpu", "b", "ib"), FW_OK);
	ASSERT_EQ(submit_sel(b, "b2", "gpu", "b", NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "none", "gpu", "c", NULL), FW_OK);
	ASSERT_EQ(submit_sel(b, "a", "gpu", "a", NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(s->njobs, 6);
	ASSERT_EQ(w.skipped_jobs, 0); /* "none": no node has gpu: c, so it may use none, never lost */
	ASSERT_STR_EQ(filter_of(s, "none"), "");
	ASSERT_STR_EQ(form_of(s, "none"), "-3"); /* every node left out */
	ASSERT_STR_EQ(filter_of(s, "any"), "");
	ASSERT_STR_EQ(filter_of(s, "b1"), "1,2");
	ASSERT_STR_EQ(filter_of(s, "b-ib"), "1");
	ASSERT_STR_EQ(filter_of(s, "b2"), "1,2");
	ASSERT_STR_EQ(filter_of(s, "a"), "0");
	ASSERT_EQ(entry_of(s, 1), entry_of(s, 3)); /* b1 and b2 share one list */
	ASSERT(entry_of(s, 1) != entry_of(s, 2));
	ASSERT_STR_EQ(form_of(s, "b1"), "-1"); /* 2 of 3 nodes: the one left out is the shorter list */
	ASSERT_STR_EQ(form_of(s, "b-ib"), "+1");
	ASSERT_STR_EQ(form_of(s, "a"), "+1");
	ASSERT_EQ(s->nnode_refs, 6);
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_OK);
	fw_snapshot_free(s);
	ASSERT_EQ(act_on(b, w.generation, FW_DECIDE_START, "b1", 1000, "n1"), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_STR_EQ(filter_of(s, "b1"), ""); /* running: where it is */
	ASSERT_STR_EQ(filter_of(s, "b2"), "1,2");
	fw_snapshot_free(s);

	fw_backend_local.close(b); /* the selectors come back from the store... */
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "b-ib", &state, &sub, &start, &end, NULL, &bj), FW_OK);
	ASSERT_EQ(bj->nsel, 2);
	ASSERT_STR_EQ(bj->sel[1].key, "ib");
	s = world(b, 1000, &w);
	ASSERT_STR_EQ(filter_of(s, "b-ib"), "1");
	ASSERT_STR_EQ(filter_of(s, "b2"), "1,2");
	fw_snapshot_free(s);
	fw_backend_local.close(b); /* ...and follow a relabelled fleet */
	ASSERT_EQ(fw_config_load_buffer("fleet", relabelled, sizeof relabelled - 1, &other, NULL), FW_OK);
	cfg.fleet = other;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(w.skipped_jobs, 0); /* "a" may use no node now; "none" may again */
	ASSERT_STR_EQ(form_of(s, "a"), "-3");
	ASSERT_STR_EQ(filter_of(s, "none"), "2");
	ASSERT_STR_EQ(filter_of(s, "b2"), "0,1");
	ASSERT_STR_EQ(filter_of(s, "b-ib"), "1");
	fw_snapshot_free(s);
	fw_backend_local.close(b); /* a fleet where every node meets a selector: no filter at all */
	fw_snapshot_free(other);
	ASSERT_EQ(fw_config_load_buffer("fleet", uniform, sizeof uniform - 1, &other, NULL), FW_OK);
	cfg.fleet = other;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(w.skipped_jobs, 0); /* a, none, b-ib held: no node for them */
	ASSERT_STR_EQ(form_of(s, "b-ib"), "-3");
	ASSERT_STR_EQ(form_of(s, "b2"), "");
	ASSERT_STR_EQ(filter_of(s, "b2"), ""); /* in, and unfiltered */
	ASSERT_EQ(s->njob_nodes, 3); /* a's, none's and b-ib's alone */
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_OK);
	fw_snapshot_free(s);
	teardown(b);
	fw_snapshot_free(other);

	/* seeded from a config's jobs: the same nodes, kept in the store */
	ASSERT_EQ(open_seeded(seeded, sizeof seeded - 1, &cfg, &b), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_STR_EQ(filter_of(s, "s"), "0,1");
	ASSERT_STR_EQ(filter_of(s, "t"), "1,2");
	ASSERT_STR_EQ(filter_of(s, "u"), "");
	ASSERT_STR_EQ(filter_of(s, "v"), "2");
	fw_snapshot_free(s);
	/* n2's labels are {gpu: b, zone: y}; the kept selector is the minimal {zone: y} */
	ASSERT_EQ(fw_local_job_info(b, "v", &state, &sub, &start, &end, NULL, &bj), FW_OK);
	ASSERT_EQ(bj->nsel, 1);
	ASSERT_STR_EQ(bj->sel[0].key, "zone");
	ASSERT_STR_EQ(bj->sel[0].value, "y");
	fw_backend_local.close(b);
	cfg.seed_jobs = false;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_STR_EQ(filter_of(s, "s"), "0,1");
	ASSERT_STR_EQ(filter_of(s, "t"), "1,2");
	fw_snapshot_free(s);
	teardown(b);
}

/* A job of two task groups, group g asking gsel[g] (key=value, or NULL:
 * none), the job itself job_sel (or NULL). */
static int submit_groups(struct fw_backend *b, const char *name, const char *job_sel, const char *g0,
			 const char *g1)
{
	struct fw_backend_job j = job_named(name);
	struct fw_label pairs[FW_BACKEND_SEL_MAX];

	j.sel = pairs;
	const char *sel[3] = { job_sel, g0, g1 };

	j.job.ngroups = 2;
	j.job.groups[1] = j.job.groups[0];
	for (int i = 0, at = 0; i < 3; i++) {
		const char *eq = sel[i] ? strchr(sel[i], '=') : NULL;
		if (!eq)
			continue;
		snprintf(j.sel[at].key, FW_NAME_MAX, "%.*s", (int)(eq - sel[i]), sel[i]);
		snprintf(j.sel[at++].value, FW_NAME_MAX, "%s", eq + 1);
		if (i == 0)
			j.nsel = 1;
		else
			j.ngsel[i - 1] = 1;
	}
	return fw_backend_local.submit(b, &j, 1000, NULL);
}

/* The nodes task group g of the job named name may use (its job's
 * filter and its own), as filter_of writes them; "-" when s lacks it. */
static const char *group_filter_of(const struct fw_snapshot *s, const char *name, int g)
{
	static char out[64];
	int32_t j = 0;

	while (j < s->njobs && strcmp(s->jobs[j].name, name))
		j++;
	if (j == s->njobs)
		return "-";
	out[0] = '\0';
	for (int32_t k = 0; k < s->nnodes; k++)
		if (fw_snapshot_group_may_use(s, j, g, k))
			snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", out[0] ? "," : "", k);
	return out;
}

/* The group_nodes entry of job name's group g, -1 when none. */
static int32_t gentry_of(const struct fw_snapshot *s, const char *name, int g)
{
	for (int32_t i = 0; i < s->ngroup_nodes; i++)
		if (!strcmp(s->jobs[s->group_nodes[i].job].name, name) && s->group_nodes[i].group == g)
			return i;
	return -1;
}

/* The backend keeps its own copy of a job's selector pairs, exactly as
 * many as the job has: the room a submitter parsed them into may be
 * reused at once (the API's is on its stack). */
TEST(a_job_keeps_its_selectors_not_the_submitters_room)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_backend_job_room room;
	struct fw_backend_job *j = fw_backend_job_room(&room);
	const struct fw_backend_job *bj;
	const char *state;
	fw_time sub, start, end;
	struct fw_snapshot *s;

	ASSERT_EQ(open_labelled(&cfg, &b), FW_OK);
	*j = job_named("g-b");
	j->sel = room.pairs;
	snprintf(j->sel[0].key, FW_NAME_MAX, "gpu");
	snprintf(j->sel[0].value, FW_NAME_MAX, "b");
	j->nsel = 1;
	ASSERT_EQ(fw_backend_local.submit(b, j, 1000, NULL), FW_OK);
	memset(room.pairs, 'x', sizeof room.pairs); /* the next request's */
	ASSERT_EQ(fw_local_job_info(b, "g-b", &state, &sub, &start, &end, NULL, &bj), FW_OK);
	ASSERT(bj->sel != room.pairs);
	ASSERT_EQ(fw_backend_npairs(bj), 1);
	ASSERT_STR_EQ(bj->sel[0].key, "gpu");
	ASSERT_STR_EQ(bj->sel[0].value, "b");
	*j = job_named("plain"); /* none: nothing kept */
	ASSERT_EQ(fw_backend_local.submit(b, j, 1000, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "plain", &state, &sub, &start, &end, NULL, &bj), FW_OK);
	ASSERT(bj->sel == NULL);
	s = world(b, 1000, &w);
	ASSERT_STR_EQ(filter_of(s, "g-b"), "1,2");
	ASSERT_STR_EQ(filter_of(s, "plain"), "");
	fw_snapshot_free(s);
	teardown(b);
}

/* A task group's own nodeSelector becomes its group filter at every read
 * (the job's still holds for every group): groups of alike selectors
 * share one list, and share a job filter's of the same labels; a group
 * its selector and the job's leave without a node keeps the job out
 * (skipped); the selectors survive a reopen; a seeded fleet job keeps
 * its groups' filters as minimal selectors. */
TEST(task_group_selectors_become_group_filters)
{
	static const char grouped[] = ZONED_FLEET
				      "  - {name: g, queue: q, tasks: [{gpus: 1, nodeSelector: {gpu: a}},\n"
				      "                               {gpus: 1, nodeSelector: {zone: y, gpu: b}}]}\n";
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_backend_config cfg;
	struct fw_snapshot *s;
	struct fw_diag d;
	const struct fw_backend_job *bj;
	const char *state;
	fw_time sub, start, end;
	int n;

	ASSERT_EQ(open_labelled(&cfg, &b), FW_OK); /* n0 gpu: a; n1 gpu: b, ib; n2 gpu: b */
	ASSERT_EQ(submit_groups(b, "on-b", "gpu=b", NULL, NULL), FW_OK);
	ASSERT_EQ(submit_groups(b, "lead-a", NULL, "gpu=a", "gpu=b"), FW_OK);
	ASSERT_EQ(submit_groups(b, "lead-a2", NULL, "gpu=a", NULL), FW_OK);
	ASSERT_EQ(submit_groups(b, "b-then-b", NULL, "gpu=b", NULL), FW_OK);
	ASSERT_EQ(submit_groups(b, "both", "gpu=b", NULL, "ib="), FW_OK);
	ASSERT_EQ(submit_groups(b, "apart", "gpu=b", "gpu=a", NULL), FW_OK); /* no node has gpu a and b */
	ASSERT_EQ(submit_groups(b, "nowhere", NULL, NULL, "gpu=c"), FW_OK);
	s = world(b, 1000, &w);
	ASSERT_EQ(w.skipped_jobs, 0); /* apart, nowhere: in, their groups on no node */
	ASSERT_STR_EQ(group_filter_of(s, "apart", 0), "");
	ASSERT_STR_EQ(group_filter_of(s, "nowhere", 1), "");
	ASSERT_STR_EQ(group_filter_of(s, "nowhere", 0), "0,1,2");
	ASSERT_STR_EQ(filter_of(s, "lead-a"), ""); /* no job filter: each group its own */
	ASSERT_STR_EQ(group_filter_of(s, "lead-a", 0), "0");
	ASSERT_STR_EQ(group_filter_of(s, "lead-a", 1), "1,2");
	ASSERT_STR_EQ(group_filter_of(s, "lead-a2", 0), "0");
	ASSERT_STR_EQ(group_filter_of(s, "lead-a2", 1), "0,1,2");
	ASSERT_STR_EQ(group_filter_of(s, "both", 0), "1,2");
	ASSERT_STR_EQ(group_filter_of(s, "both", 1), "1"); /* the job's and its own */
	ASSERT(gentry_of(s, "lead-a2", 1) < 0);
	/* alike selectors, one list: lead-a's and lead-a2's group 0 */
	ASSERT_EQ(s->group_nodes[gentry_of(s, "lead-a", 0)].first, s->group_nodes[gentry_of(s, "lead-a2", 0)].first);
	/* lead-a's group 1 and b-then-b's group 0 ask on-b's job selector: its list */
	ASSERT_EQ(s->group_nodes[gentry_of(s, "lead-a", 1)].first, entry_of(s, 0));
	ASSERT_EQ(s->group_nodes[gentry_of(s, "b-then-b", 0)].first, entry_of(s, 0));
	ASSERT_EQ(s->group_nodes[gentry_of(s, "b-then-b", 0)].except, 1); /* 2 of 3 nodes: the one left out */
	ASSERT(s->group_nodes[gentry_of(s, "lead-a", 0)].first != entry_of(s, 0));
	ASSERT_EQ(fw_snapshot_validate(s, &d), FW_OK);
	fw_snapshot_free(s);

	fw_backend_local.close(b); /* the selectors come back from the store */
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "both", &state, &sub, &start, &end, NULL, &bj), FW_OK);
	ASSERT_EQ(bj->nsel, 1);
	ASSERT_EQ(bj->ngsel[0], 0);
	ASSERT_STR_EQ(fw_backend_group_sel(bj, 1, &n)->key, "ib");
	ASSERT_EQ(n, 1);
	s = world(b, 1000, &w);
	ASSERT_EQ(w.skipped_jobs, 0);
	ASSERT_STR_EQ(group_filter_of(s, "lead-a", 1), "1,2");
	ASSERT_STR_EQ(group_filter_of(s, "both", 1), "1");
	fw_snapshot_free(s);
	teardown(b);

	/* seeded from a config's jobs: each group's nodes, as minimal selectors */
	ASSERT_EQ(open_seeded(grouped, sizeof grouped - 1, &cfg, &b), FW_OK);
	ASSERT_EQ(fw_local_job_info(b, "g", &state, &sub, &start, &end, NULL, &bj), FW_OK);
	ASSERT_EQ(bj->nsel, 0);
	ASSERT_STR_EQ(fw_backend_group_sel(bj, 0, &n)->value, "a");
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(fw_backend_group_sel(bj, 1, &n)->key, "zone"); /* n2 alone: {zone: y} will do */
	ASSERT_EQ(n, 1);
	s = world(b, 1000, &w);
	ASSERT_STR_EQ(group_filter_of(s, "g", 0), "0");
	ASSERT_STR_EQ(group_filter_of(s, "g", 1), "2");
	fw_snapshot_free(s);
	teardown(b);
}

/* Parse queue document doc into q (codec.c, as the API does). */
static void queue_of(const char *doc, struct fw_queue_spec *q)
{
	json_t *o = json_loads(doc, 0, NULL);
	if (!o || fw_codec_queue_parse(o, NULL, q, NULL) != FW_OK)
		abort();
	json_decref(o);
}

struct restored {
	struct fw_queue_spec q[2];
	int n;
};

static int restore_cb(void *ctx, const char *key, const char *doc)
{
	struct restored *r = ctx;
	json_t *o = json_loads(doc, 0, NULL);
	int rc = o && r->n < 2 ? fw_codec_queue_parse(o, key, &r->q[r->n++], NULL) : FW_EINVAL;
	json_decref(o);
	return rc;
}

/* Save queues qs[0..1] as the daemon does (fw_serve_save_queue), close
 * and reopen the store, and read them back into r. */
static int save_and_reopen(struct fw_serve *d, const struct fw_queue_spec *qs, struct restored *r)
{
	int rc = fw_store_begin(store);

	for (int i = 0; i < 2 && rc == FW_OK; i++)
		rc = fw_serve_save_queue(d, &qs[i]);
	if (rc != FW_OK || (rc = fw_store_commit(store)) != FW_OK)
		return rc;
	fw_store_close(store);
	if ((rc = fw_store_open(dir, false, &store, NULL)) != FW_OK)
		return rc;
	d->store = store;
	return fw_store_each(store, FW_STORE_QUEUES, restore_cb, r);
}

/* A queue's deserved GPUs of a model (gpuModelDeserved) survive the store's
 * close and reopen as the daemon keeps them (fw_serve_save_queue), beside
 * its limits, and become the snapshot's model_deserved entries, each with
 * its queue's index (fw_serve_skeleton); entries over the queue's
 * deserved GPUs are what the core's validation refuses. */
TEST(model_deserved_survives_reopen_and_becomes_snapshot_entries)
{
	static const char yaml[] = "now: 0\n"
				   "nodes:\n"
				   "  - {name: h0, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: H100}\n"
				   "  - {name: a0, gpus: 8, cpu: 64, memory: 512Gi, gpuModel: A100}\n"
				   "queues:\n"
				   "  - {name: b, resources: {gpu: {quota: 16}}}\n";
	struct fw_serve *d = calloc(1, sizeof *d);
	struct fw_queue_spec qs[2];
	struct restored r = { .n = 0 };
	struct fw_snapshot *s;
	struct fw_diag dg;
	char cmd[128];

	fresh_store(yaml, sizeof yaml - 1);
	ASSERT(d != NULL);
	d->fleet = fleet;
	d->store = store;
	queue_of("{\"name\":\"a\",\"deserved\":{\"gpu\":16},\"gpuModelLimits\":{\"A100\":8},"
		 "\"gpuModelDeserved\":{\"H100\":12,\"A100\":3.5}}", &qs[0]);
	queue_of("{\"name\":\"b\",\"deserved\":{\"gpu\":16}}", &qs[1]);
	ASSERT_OK(save_and_reopen(d, qs, &r));
	ASSERT_EQ(r.n, 2); /* in key order: a, b */
	ASSERT_STR_EQ(r.q[0].name, "a");
	ASSERT_EQ(r.q[0].nmodel_deserved, 2); /* by model: the store sorts a document's keys */
	ASSERT_STR_EQ(r.q[0].model_deserved[0].model, "A100");
	ASSERT_EQ(r.q[0].model_deserved[0].gpus, 3500);
	ASSERT_STR_EQ(r.q[0].model_deserved[1].model, "H100");
	ASSERT_EQ(r.q[0].model_deserved[1].gpus, 12000);
	ASSERT_EQ(r.q[0].nmodel_limits, 1);
	ASSERT_EQ(r.q[0].model_limits[0].gpus, 8000);
	ASSERT_EQ(r.q[1].nmodel_deserved, 0);

	/* b first: the entries name a by its index in the snapshot, 1 */
	qs[0] = r.q[1];
	qs[1] = r.q[0];
	ASSERT((s = fw_serve_skeleton(d, qs, 2, 1000)) != NULL);
	ASSERT_EQ(s->nmodel_deserved, 2);
	ASSERT_EQ(s->model_deserved[0].queue, 1);
	ASSERT_STR_EQ(s->model_deserved[0].model, "A100");
	ASSERT_EQ(s->model_deserved[0].gpus, 3500);
	ASSERT_EQ(s->model_deserved[1].queue, 1);
	ASSERT_STR_EQ(s->model_deserved[1].model, "H100");
	ASSERT_EQ(s->model_deserved[1].gpus, 12000);
	ASSERT_EQ(s->nmodel_limits, 1); /* the limits stay in their own table */
	ASSERT_EQ(s->model_limits[0].queue, 1);
	memset(&dg, 0, sizeof dg);
	ASSERT_OK(fw_snapshot_validate(s, &dg));
	fw_snapshot_free(s);
	qs[1].model_deserved[1].gpus = 13000; /* 16.5 of 16: refused by the core */
	ASSERT((s = fw_serve_skeleton(d, qs, 2, 1000)) != NULL);
	ASSERT_EQ(fw_snapshot_validate(s, &dg), FW_ERANGE);
	ASSERT_STR_EQ(dg.field, "model_deserved[0]");
	fw_snapshot_free(s);

	fw_store_close(store);
	fw_snapshot_free(fleet);
	free(d);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* A queue's GPU-hour budget survives the store's close and reopen as the
 * daemon keeps it (fw_serve_save_queue), exactly, and reaches the
 * snapshot (fw_serve_skeleton), where the cycle holds the queue's jobs
 * while its decayed usage is at or above it; a queue without one stays
 * without. */
TEST(gpu_hour_budget_survives_reopen_and_reaches_the_snapshot)
{
	struct fw_serve *d = calloc(1, sizeof *d);
	struct fw_queue_spec qs[2];
	struct restored r = { .n = 0 };
	struct fw_snapshot *s;
	struct fw_arena A;
	struct fw_plan *p;
	const struct fw_pending *pe;
	char cmd[128];

	fresh_store(fleet_yaml, sizeof fleet_yaml - 1);
	ASSERT(d != NULL);
	d->fleet = fleet;
	d->store = store;
	queue_of("{\"name\":\"a\",\"deserved\":{\"gpu\":8},\"gpuHourBudget\":0.3}", &qs[0]);
	queue_of("{\"name\":\"b\",\"deserved\":{\"gpu\":8}}", &qs[1]);
	qs[0].usage = qs[1].usage = 0.3 * 3600; /* both at a's budget */
	qs[0].usage_at = qs[1].usage_at = 1000;
	ASSERT_OK(save_and_reopen(d, qs, &r));
	ASSERT_EQ(r.n, 2);
	ASSERT_STR_EQ(r.q[0].name, "a");
	ASSERT(r.q[0].gpu_hour_budget == 0.3); /* exactly, not 0.30000000000000004 */
	ASSERT(r.q[1].gpu_hour_budget == 0);

	ASSERT((s = fw_serve_skeleton(d, r.q, 2, 1000)) != NULL);
	ASSERT(s->queues[0].gpu_hour_budget == 0.3);
	ASSERT(s->queues[1].gpu_hour_budget == 0);
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_job(s, "ja", 0, 1, 1, 1000, 0);
	tb_job(s, "jb", 1, 1, 1, 1000, 0);
	fw_arena_init(&A, 1 << 16);
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL); /* a's job: held by a's budget */
	ASSERT_EQ(pe->reason, FW_REASON_OVER_BUDGET);
	ASSERT(fw_plan_pending_for(p, 1) == NULL); /* b's, the same usage, no budget: it starts */
	s->queues[0].gpu_hour_budget = 0.31;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT(fw_plan_pending_for(p, 0) == NULL); /* a budget above the usage: it starts */
	fw_arena_release(&A);
	fw_snapshot_free(s);

	fw_store_close(store);
	fw_snapshot_free(fleet);
	free(d);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* One 8-GPU node and two queues named as given, in the snapshot and as
 * the daemon's specs, their usage last aged at `at`. */
static struct fw_snapshot *usage_world(struct fw_queue_spec qs[2], const char *const names[2], fw_time at)
{
	struct fw_snapshot *s = fw_snapshot_new();
	struct fw_node nd;

	memset(qs, 0, 2 * sizeof *qs);
	fw_node_init(&nd);
	snprintf(nd.name, sizeof nd.name, "n0");
	nd.gpu_count = 8;
	nd.cpu_milli = 64000;
	nd.mem_mib = 1 << 20;
	fw_snapshot_add_node(s, &nd);
	for (int i = 0; i < 2; i++) {
		struct fw_queue q;
		fw_queue_init(&q);
		snprintf(q.name, sizeof q.name, "%s", names[i]);
		snprintf(qs[i].name, sizeof qs[i].name, "%s", names[i]);
		qs[i].usage_at = at;
		fw_snapshot_add_queue(s, &q);
	}
	return s;
}

/* A running one-task job of `user` in queue q on the GPUs of mask. */
static void running(struct fw_snapshot *s, const char *user, int32_t q, uint32_t mask, fw_time start)
{
	struct fw_job j;
	struct fw_task_alloc a = { .node = 0, .gpu_mask = mask, .gpu_milli = 1000 };

	fw_job_init(&j);
	snprintf(j.name, sizeof j.name, "j%d", (int)s->njobs);
	snprintf(j.user, sizeof j.user, "%s", user);
	j.queue = q;
	j.groups[0].count = 1;
	j.groups[0].gpus = __builtin_popcount(mask);
	j.groups[0].gpu_milli = 1000;
	j.state = FW_JOB_RUNNING;
	j.start_time = start;
	j.alloc_first = s->nallocs;
	j.alloc_count = 1;
	fw_snapshot_add_alloc(s, &a);
	fw_snapshot_add_job(s, &j);
}

/* g GPUs held from a to b, as a decayed usage at now (half-life h): each
 * second decayed from its own time, what the daemon accrues (cycle.c
 * held_for), worked out here from the closed form of the integral. */
static double held(double g, double a, double b, double now, double h)
{
	return g * h / log(2.0) * (exp2(-(now - b) / h) - exp2(-(now - a) / h));
}

/* The daemon's queue usage: one decay per queue and pass, whatever the
 * number of its running jobs, plus their GPU-seconds since the last pass
 * (from a job's start when it started since), each second decayed from
 * its own time. */
TEST(queue_usage_decays_once_per_pass)
{
	static const char *const names[] = { "q0", "q1" };
	struct fw_queue_spec qs[2];
	struct fw_snapshot *s = usage_world(qs, names, 10000);

	qs[0].usage = 7200;
	s->now = 13600;
	for (int k = 0; k < 3; k++) /* three 1-GPU jobs in q0; the last started 600 s ago */
		running(s, "", 0, 1u << k, k == 2 ? 13000 : 0);
	ASSERT_EQ(s->njobs, 3);
	ASSERT_OK(fw_serve_accrue_usage(qs, 2, s, NULL, 0));
	double h = s->config.usage_half_life_s;
	double want = 7200 * exp2(-3600 / h) + 2 * held(1, 10000, 13600, 13600, h) + held(1, 13000, 13600, 13600, h);
	ASSERT(want < 7200 * exp2(-3600 / h) + 3600 + 3600 + 600); /* decayed: under the plain sum */
	ASSERT(want > 7200 * exp2(-3600 / h) + (3600 + 3600 + 600) * exp2(-3600 / h));
	ASSERT(fabs(qs[0].usage - want) < 1e-6);
	ASSERT(fabs(s->queues[0].usage - want) < 1e-6);
	ASSERT_EQ(qs[0].usage_at, 13600);
	ASSERT_EQ(s->queues[1].usage_at, 13600);
	ASSERT(qs[1].usage == 0);
	fw_snapshot_free(s);
}

/* Users' usage per queue: an entry at a user's first running job, from
 * the queue's last pass; one decay per pass; the snapshot gets each
 * entry with its queue's index (queues in tree order, not by name). */
TEST(users_usage_is_kept_per_queue)
{
	static const char *const names[] = { "zeta", "alpha" };
	struct fw_queue_spec qs[2];
	struct fw_snapshot *s = usage_world(qs, names, 1000);
	struct fw_user_use *u = NULL;
	int32_t n = 0, cap = 0;

	running(s, "bob", 0, 0x3, 0); /* bob 2 GPUs in zeta and 1 in alpha, alice 1 in zeta */
	running(s, "alice", 0, 0x8, 0);
	running(s, "bob", 1, 0x10, 0);
	ASSERT_EQ(s->njobs, 3);
	s->now = 1600;
	ASSERT_OK(fw_serve_accrue_users(&u, &n, &cap, qs, 2, s, NULL, 0));
	ASSERT_EQ(n, 3); /* (alpha, bob), (zeta, alice), (zeta, bob) */
	ASSERT_STR_EQ(u[0].queue, "alpha");
	ASSERT_STR_EQ(u[1].user, "alice");
	ASSERT_STR_EQ(u[2].user, "bob");
	double h = s->config.usage_half_life_s, one = held(1, 1000, 1600, 1600, h);
	ASSERT(one < 600 && one > 600 * exp2(-600 / h));
	ASSERT(fabs(u[2].usage - 2 * one) < 1e-9 && fabs(u[1].usage - one) < 1e-9 && fabs(u[0].usage - one) < 1e-9);
	ASSERT_EQ(s->nuser_usage, 3);
	ASSERT_EQ(s->user_usage[0].queue, 1); /* alpha is queue 1 */
	ASSERT_EQ(s->user_usage[2].queue, 0);
	ASSERT(fabs(s->user_usage[2].usage - 2 * one) < 1e-9);
	s->now = 2200; /* a second pass: one decay, 600 s more each */
	s->nuser_usage = 0;
	ASSERT_OK(fw_serve_accrue_users(&u, &n, &cap, qs, 2, s, NULL, 0));
	ASSERT(fabs(u[2].usage - (2 * one * exp2(-600 / h) + 2 * one)) < 1e-6);
	ASSERT(fabs(u[2].usage - held(2, 1000, 2200, 2200, h)) < 1e-6); /* as one pass over both */
	ASSERT_EQ(u[2].usage_at, 2200);
	free(u);
	fw_snapshot_free(s);
}

/* A backend's usage (Slurm's, written into the snapshot by its usage op)
 * becomes the daemon's: each queue's usage decayed to now, and the users'
 * table replaced by the snapshot's entries (two of one user and queue add
 * up), sorted by queue and user as the cycle looks them up. */
TEST(a_backends_usage_becomes_the_daemons)
{
	static const char *const names[] = { "zeta", "alpha" };
	struct fw_queue_spec qs[2];
	struct fw_snapshot *s = usage_world(qs, names, 1000);
	struct fw_user_use *u = NULL;
	int32_t n = 0, cap = 0;
	struct fw_user_usage x = { .queue = 0, .usage = 3600, .usage_at = 1000 };
	double h = s->config.usage_half_life_s;

	qs[0].usage = 99999; /* the daemon's own: replaced */
	running(s, "carol", 0, 0x1, 0);
	ASSERT_OK(fw_serve_accrue_users(&u, &n, &cap, qs, 2, s, NULL, 0)); /* carol: an entry of the daemon's */
	ASSERT_EQ(n, 1);
	s->nuser_usage = 0;
	s->now = 1000 + (fw_time)h; /* one half-life after the backend's read */
	s->queues[0].usage = 5400;
	s->queues[0].usage_at = 1000;
	s->queues[1].usage = 0;
	snprintf(x.user, sizeof x.user, "bob");
	fw_snapshot_add_user_usage(s, &x);
	x.usage = 1800;
	fw_snapshot_add_user_usage(s, &x); /* bob again (another partition) */
	x.queue = 1;
	snprintf(x.user, sizeof x.user, "alice");
	fw_snapshot_add_user_usage(s, &x);
	ASSERT_OK(fw_serve_adopt_usage(&u, &n, &cap, qs, 2, s));
	ASSERT(fabs(qs[0].usage - 2700) < 1e-6);
	ASSERT_EQ(qs[0].usage_at, s->now);
	ASSERT(fabs(s->queues[0].usage - 2700) < 1e-6);
	ASSERT_EQ(s->queues[0].usage_at, s->now);
	ASSERT(qs[1].usage == 0);
	ASSERT_EQ(n, 2); /* carol is gone: Slurm's rows are the truth */
	ASSERT_STR_EQ(u[0].queue, "alpha");
	ASSERT_STR_EQ(u[0].user, "alice");
	ASSERT(fabs(u[0].usage - 900) < 1e-6);
	ASSERT_STR_EQ(u[1].queue, "zeta");
	ASSERT_STR_EQ(u[1].user, "bob");
	ASSERT(fabs(u[1].usage - 2700) < 1e-6);
	ASSERT_EQ(u[1].usage_at, s->now);
	free(u);
	fw_snapshot_free(s);
}

/* Passes every period seconds from 1000 to 1030 over one 2-GPU job of
 * bob's in zeta that runs from 1000 to 1029 (0.9 periods after the pass
 * at 1020 when the period is 10): running in the snapshots before its
 * end, an ended run after it (at every pass, as Slurm lists one for
 * MinJobAge: a run already counted must add nothing).  The usage of
 * zeta, and bob's in it, at 1030 into *queue and *user. */
static void passes(fw_time period, double half_life, double *queue, double *user)
{
	static const char *const names[] = { "zeta", "alpha" };
	struct fw_queue_spec qs[2];
	struct fw_user_use *u = NULL;
	int32_t n = 0, cap = 0;
	struct fw_backend_run run = { "zeta", "bob", 2, 1000, 1029 };

	struct fw_queue_spec scratch[2];

	fw_snapshot_free(usage_world(qs, names, 1000)); /* zeta and alpha: usage 0 as of 1000 */
	for (fw_time t = 1000 + period; t <= 1030; t += period) {
		struct fw_snapshot *s = usage_world(scratch, names, 1000);
		s->config.usage_half_life_s = half_life;
		s->now = t;
		if (t < 1029) /* the local backend ends it at the read at its end or after */
			running(s, "bob", 0, 0x3, 1000);
		ASSERT_OK(fw_serve_accrue_users(&u, &n, &cap, qs, 2, s, &run, t < 1029 ? 0 : 1));
		ASSERT_OK(fw_serve_accrue_usage(qs, 2, s, &run, t < 1029 ? 0 : 1));
		fw_snapshot_free(s);
	}
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(u[0].user, "bob");
	ASSERT_EQ(u[0].usage_at, 1030);
	*queue = qs[0].usage;
	*user = u[0].usage;
	free(u);
}

/* A run that ends between two passes counts to its end: its whole
 * runtime x GPUs, whatever the period (before, a pass counted only the
 * jobs running at it, so with a 10 s period the job's last 9 s were
 * lost); with decay, each second decayed from its own time, so 1 s and
 * 10 s passes give one figure. */
TEST(a_run_that_ends_between_passes_counts_to_its_end)
{
	double q1, u1, q10, u10, h = 7.0 * 24 * 3600;

	passes(1, 0, &q1, &u1); /* undecayed: GPU-seconds exactly */
	passes(10, 0, &q10, &u10);
	ASSERT(q1 == 58 && u1 == 58 && q10 == 58 && u10 == 58);
	passes(1, h, &q1, &u1);
	passes(10, h, &q10, &u10);
	ASSERT(fabs(q10 - held(2, 1000, 1029, 1030, h)) < 1e-6);
	ASSERT(fabs(q1 - q10) < 1e-9 && fabs(u1 - u10) < 1e-9 && fabs(q10 - u10) < 1e-9);
	ASSERT(q10 < 58 && q10 > 57.99);
	passes(30, h, &q1, &u1); /* one pass after its end: the run alone */
	ASSERT(fabs(q1 - q10) < 1e-9 && fabs(u1 - u10) < 1e-9);
}

/* Open the backend of the test's store and fleet at now with options. */
static int open_with(struct fw_backend **b, fw_time now, const char *options)
{
	struct fw_backend_config cfg;

	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = now;
	cfg.options = options;
	return fw_backend_local.open(&cfg, b, NULL);
}

static int name_into(void *ctx, const struct fw_backend_job *j, const char *state, fw_time submit, fw_time start,
		     fw_time end)
{
	(void)state, (void)submit, (void)start, (void)end;
	strcat(strcat(ctx, j->job.name), " ");
	return 0;
}

/* The names of the jobs the backend knows, in its order. */
static const char *names_of(struct fw_backend *b)
{
	static char buf[256];

	buf[0] = '\0';
	fw_local_each_job(b, name_into, buf);
	return buf;
}

static bool known(struct fw_backend *b, const char *job)
{
	const char *state;
	fw_time t0, t1, t2;

	return fw_local_job_info(b, job, &state, &t0, &t1, &t2, NULL, NULL) == FW_OK;
}

/* min-job-age=100: done and cancelled jobs are forgotten, in memory and
 * in the store, at the first purge 100 s after their end (purges at most
 * every 10 s); a failed job outlives it (the node tally's memory), waiting
 * and running jobs are never touched; a store that refuses the deletes
 * forgets nothing until it takes them (a job whose document is already
 * gone is forgotten with the rest); a forgotten name may be used again;
 * bad values are refused naming the option. */
TEST(ended_jobs_are_forgotten_after_min_job_age)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	struct fw_diag dg;
	struct fw_backend_config cfg;
	uint64_t gen;
	FILE *tmp = tmpfile(); /* the refused purge's line on stderr */
	char err[1024];
	int keep;

	setup(&b);
	fw_backend_local.close(b);
	ASSERT_EQ(open_with(&b, 1000, "min-job-age=100"), FW_OK);
	ASSERT_EQ(submit(b, "a", 10), FW_OK);
	ASSERT_EQ(submit_exit(b, "bad", 10, 1), FW_OK);
	ASSERT_EQ(submit(b, "c", 0), FW_OK);
	ASSERT_EQ(submit(b, "wait", 10), FW_OK);
	ASSERT_EQ(submit(b, "long", 5000), FW_OK);
	start_on(b, "a", 1000, "n0");
	start_on(b, "bad", 1000, "n1");
	start_on(b, "long", 1000, "n1");
	ASSERT_EQ(fw_backend_local.cancel(b, "c", 1005), FW_OK);
	fw_snapshot_free(world(b, 1050, &w)); /* a and bad end at 1010 */
	ASSERT_STR_EQ(names_of(b), "a bad c wait long ");
	fw_snapshot_free(world(b, 1104, &w)); /* c is 99 s old: kept */
	ASSERT_STR_EQ(names_of(b), "a bad c wait long ");
	fw_snapshot_free(world(b, 1110, &w)); /* c is 105 s old, but the last purge was 6 s ago */
	ASSERT(known(b, "c"));
	ASSERT_EQ(fw_local_purged(b), 0);

	sql("CREATE TRIGGER failing BEFORE DELETE ON jobs BEGIN SELECT RAISE(ABORT, 'injected: read-only'); END;");
	fflush(stderr);
	keep = dup(2);
	ASSERT(tmp != NULL && keep >= 0);
	dup2(fileno(tmp), 2);
	fw_snapshot_free(world(b, 1114, &w));
	fflush(stderr);
	dup2(keep, 2);
	close(keep);
	rewind(tmp);
	err[fread(err, 1, sizeof err - 1, tmp)] = '\0';
	fclose(tmp);
	ASSERT_STR_EQ(names_of(b), "a bad c wait long "); /* refused: nothing forgotten */
	/* said once, min-job-age in the span words of every text (1m40s, not 100 s) */
	ASSERT(strstr(err, "fairway serve: cannot purge the jobs that ended 1m40s ago or more: ") != NULL);
	ASSERT(strstr(err, "(retrying)\n") != NULL);
	drop_failing();
	sql("DELETE FROM jobs WHERE key = 'c';"); /* an operator's sqlite3: c has no document left */
	fw_snapshot_free(world(b, 1120, &w)); /* too soon after the refused purge */
	ASSERT(known(b, "a"));
	gen = w.generation;
	fw_snapshot_free(world(b, 1124, &w));
	ASSERT_STR_EQ(names_of(b), "bad wait long ");
	ASSERT_EQ(fw_local_purged(b), 2);
	ASSERT(!known(b, "a"));
	ASSERT_EQ(w.generation, gen); /* a plan in flight names none of them */
	ASSERT_EQ(fw_backend_local.cancel(b, "c", 1124), FW_ENOENT);
	ASSERT_EQ(submit(b, "a", 10), FW_OK); /* the name is free again */
	ASSERT_STR_EQ(names_of(b), "bad wait long a ");

	fw_backend_local.close(b); /* the store forgot them too */
	ASSERT_EQ(open_with(&b, 1130, NULL), FW_OK);
	ASSERT_STR_EQ(names_of(b), "bad wait long a "); /* as before: the order of submission, not of name */
	fw_backend_local.close(b);

	ASSERT_EQ(open_with(&b, 1010 + 120 * 86400 - 1, "min-job-age=100"), FW_OK);
	fw_snapshot_free(world(b, 1010 + 120 * 86400 - 1, &w)); /* long ended at 6000 */
	ASSERT_STR_EQ(names_of(b), "bad wait a "); /* a, never started, waits */
	fw_snapshot_free(world(b, 1010 + 120 * 86400 + 60, &w)); /* the failure is 120 days old */
	ASSERT_STR_EQ(names_of(b), "wait a ");
	fw_backend_local.close(b);

	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	memset(&dg, 0, sizeof dg);
	cfg.options = "min-job-age=1h";
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, &dg), FW_EINVAL);
	ASSERT_STR_EQ(dg.field, "min-job-age");
	cfg.options = "min-job-age=100,keep=1";
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, &dg), FW_EINVAL);
	ASSERT_STR_EQ(dg.field, "keep");
	ASSERT_EQ(open_with(&b, 1000, NULL), FW_OK);
	teardown(b);
}

/* A plan made before a change still holds when the change only freed
 * room (a cancel, a finish, a node released) and none of its actions
 * names the changed job; it is stale when one does, or after a start, an
 * evict or a drain (which may take what it placed on). */
TEST(a_plan_outlives_changes_that_only_free_room)
{
	struct fw_backend *b;
	struct fw_backend_world w;
	uint64_t g;

	setup(&b);
	for (const char *const *n = (const char *const[]){ "a", "b", "c", "d", "e", NULL }; *n; n++)
		ASSERT_EQ(submit(b, *n, 100), FW_OK);
	start_on(b, "e", 1000, "n0"); /* runs until 1100 */
	fw_snapshot_free(world(b, 1000, &w));
	g = w.generation;
	ASSERT_EQ(fw_backend_local.cancel(b, "c", 1001), FW_OK);
	ASSERT_EQ(act(b, g, FW_DECIDE_START, "a", 1000), FW_OK); /* a untouched: holds */
	fw_snapshot_free(world(b, 1002, &w));
	g = w.generation;
	ASSERT_EQ(fw_backend_local.cancel(b, "b", 1003), FW_OK);
	ASSERT_EQ(act(b, g, FW_DECIDE_START, "b", 1002), FW_EAGAIN); /* names the cancelled job */
	ASSERT_EQ(act(b, g, FW_DECIDE_RESERVE, "b", 1002), FW_EAGAIN);
	ASSERT_EQ(act(b, g, FW_DECIDE_START, "nobody", 1002), FW_EAGAIN); /* a job it no longer knows */
	ASSERT_EQ(act(b, g + 5, FW_DECIDE_START, "d", 1002), FW_EAGAIN); /* a generation not yet made */

	fw_snapshot_free(world(b, 1004, &w));
	g = w.generation;
	fw_snapshot_free(world(b, 1100, &w)); /* e finishes: soft */
	ASSERT(w.generation > g);
	ASSERT_EQ(act(b, g, FW_DECIDE_EVICT, "e", 1004), FW_EAGAIN); /* names it */
	ASSERT_EQ(drain(b, g, "n0"), FW_OK); /* names no job: holds, and is hard */
	ASSERT_EQ(act(b, g, FW_DECIDE_START, "d", 1004), FW_EAGAIN); /* after the drain */
	fw_snapshot_free(world(b, 1101, &w));
	g = w.generation;
	ASSERT_EQ(act(b, g, FW_DECIDE_START, "d", 1101), FW_OK); /* a start is hard too */
	ASSERT_EQ(act(b, g, FW_DECIDE_RESERVE, "a", 1101), FW_EAGAIN);
	ASSERT_EQ(act(b, g + 1, FW_DECIDE_EVICT, "d", 1101), FW_OK); /* and an evict */
	ASSERT_EQ(act(b, g + 1, FW_DECIDE_START, "d", 1101), FW_EAGAIN);
	ASSERT_STR_EQ(state_of(b, "d"), "pending");
	teardown(b);
}

/* --- a stored job the restore refuses ------------------------------------- */
static int grab_doc(void *ctx, const char *key, const char *doc)
{
	if (!strcmp(key, "bad"))
		snprintf(ctx, 4096, "%s", doc);
	return 0;
}

/* A store holding job "bad" running on n0 (its document, as the backend
 * wrote it, in good: 4096 bytes), the backend closed. */
static void store_with_bad_running(char *good)
{
	struct fw_backend *b;

	setup(&b);
	ASSERT_EQ(submit(b, "bad", 0), FW_OK);
	start_on(b, "bad", 1000, "n0");
	fw_backend_local.close(b);
	good[0] = '\0';
	ASSERT_EQ(fw_store_each(store, FW_STORE_JOBS, grab_doc, good), FW_OK);
	ASSERT(good[0] != '\0');
}

/* good with member key of its alloc[1] (a copy of alloc[0]; alloc: "" for
 * the document itself) set to the JSON v (NULL: deleted), stored as job
 * "bad". */
static void store_edited(const char *good, const char *alloc_key, const char *key, const char *v)
{
	json_t *o = json_loads(good, 0, NULL), *at = o, *val = v ? json_loads(v, JSON_DECODE_ANY, NULL) : NULL;
	char *s;

	ASSERT(o != NULL && (!v || val));
	if (alloc_key) {
		json_t *alloc = json_object_get(o, "alloc");
		json_array_append_new(alloc, json_deep_copy(json_array_get(alloc, 0)));
		at = json_array_get(alloc, 1);
	}
	if (val)
		json_object_set_new(at, key, val);
	else
		json_object_del(at, key);
	ASSERT((s = json_dumps(o, JSON_COMPACT)) != NULL);
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", s), FW_OK);
	free(s);
	json_decref(o);
}

/* The open of the store as it is now is refused, naming the store file,
 * the job, the field and what to do, in words: msg. */
#define ASSERT_OPEN_REFUSED(words)									\
	do {												\
		struct fw_backend_config cfg_;								\
		struct fw_backend *nb_ = NULL;								\
		struct fw_diag d_;									\
		memset(&cfg_, 0, sizeof cfg_);								\
		memset(&d_, 0, sizeof d_);								\
		cfg_.fleet = fleet;									\
		cfg_.store = store;									\
		cfg_.now = 2000;									\
		ASSERT_EQ(fw_backend_local.open(&cfg_, &nb_, &d_), FW_EINVAL);				\
		ASSERT(nb_ == NULL);									\
		ASSERT_STR_EQ(d_.field, "store.jobs");							\
		ASSERT_STR_CONTAINS(d_.file, dir);							\
		ASSERT_STR_CONTAINS(d_.file, "/fairway.db");						\
		ASSERT_STR_CONTAINS(d_.msg, "cannot restore the local backend's jobs: job bad: ");	\
		ASSERT_STR_CONTAINS(d_.msg, (words));							\
		ASSERT_STR_CONTAINS(d_.msg, "delete its row from the store's jobs table");		\
	} while (0)

/* The store as it is now opens, job "bad" running on n0. */
static void opens_running(void)
{
	struct fw_backend_config cfg;
	struct fw_backend *b = NULL;

	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = 2000;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	ASSERT_STR_EQ(state_of(b, "bad"), "running");
	teardown(b);
}

/* An unknown state, or none, is refused (it used to restore as pending). */
TEST(a_stored_job_with_an_unknown_state_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, NULL, "state", "\"paused\"");
	ASSERT_OPEN_REFUSED("state: must be one of pending, running, done, cancelled, failed, timeout");
	store_edited(good, NULL, "state", "7");
	ASSERT_OPEN_REFUSED("state: must be one of");
	store_edited(good, NULL, "state", NULL);
	ASSERT_OPEN_REFUSED("state: must be one of");
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", good), FW_OK);
	opens_running(); /* the good document still opens: the refusals changed nothing */
}

/* submitTime, startTime, endTime: whole numbers, within the API's times. */
TEST(a_stored_job_with_a_bad_time_is_refused)
{
	static const char *const keys[] = { "submitTime", "startTime", "endTime" };
	char good[4096], words[128];

	store_with_bad_running(good);
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		snprintf(words, sizeof words, "%s: must be a whole number from -1099511627776 to 1099511627776", keys[i]);
		store_edited(good, NULL, keys[i], "\"1000\"");
		ASSERT_OPEN_REFUSED(words);
		store_edited(good, NULL, keys[i], "1.5");
		ASSERT_OPEN_REFUSED(words);
		store_edited(good, NULL, keys[i], "9223372036854775807");
		ASSERT_OPEN_REFUSED(words);
	}
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", good), FW_OK);
	opens_running();
}

/* starts (it used to be cast to 32 bits) and kept. */
TEST(a_stored_job_with_bad_starts_or_kept_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, NULL, "starts", "4294967297");
	ASSERT_OPEN_REFUSED("starts: must be a whole number from 0 to 2147483647");
	store_edited(good, NULL, "starts", "-1");
	ASSERT_OPEN_REFUSED("starts: must be a whole number from 0 to 2147483647");
	store_edited(good, NULL, "kept", "-5");
	ASSERT_OPEN_REFUSED("kept: must be a whole number from 0 to 1099511627776");
	store_edited(good, NULL, "kept", "true");
	ASSERT_OPEN_REFUSED("kept: must be a whole number");
	store_edited(good, NULL, "kept", NULL); /* absent: 0, as older documents */
	opens_running();
}

/* alloc: a list of placements, each an object. */
TEST(a_stored_job_with_a_bad_alloc_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, NULL, "alloc", "{\"node\": \"n0\"}");
	ASSERT_OPEN_REFUSED("alloc: must be a list of placements");
	store_edited(good, NULL, "alloc", "[\"n0\"]");
	ASSERT_OPEN_REFUSED("alloc[0]: must be an object {node, group, gpuMask, gpuMilli}");
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", good), FW_OK);
	opens_running();
}

/* alloc[i].node: a node name (one the fleet lacks is a fleet change: the
 * job is requeued, a_job_requeued_by_a_fleet_change_has_a_decision). */
TEST(a_stored_placement_without_a_node_name_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, "alloc", "node", NULL);
	ASSERT_OPEN_REFUSED("alloc[1].node: must be a node name (1 to 63 bytes)");
	store_edited(good, "alloc", "node", "\"\"");
	ASSERT_OPEN_REFUSED("alloc[1].node: must be a node name");
	store_edited(good, "alloc", "node", "3");
	ASSERT_OPEN_REFUSED("alloc[1].node: must be a node name");
	store_edited(good, "alloc", "node",
		     "\"a-node-name-much-longer-than-the-sixty-three-bytes-that-fairway-keeps-for-one\"");
	ASSERT_OPEN_REFUSED("alloc[1].node: must be a node name");
	teardown(NULL);
}

/* alloc[i].group: one of the job's task groups (it used to be cast to 16
 * bits, and index past the groups). */
TEST(a_stored_placement_of_a_group_the_job_lacks_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, "alloc", "group", "1");
	ASSERT_OPEN_REFUSED("alloc[1].group: must be a whole number from 0 to 0");
	store_edited(good, "alloc", "group", "65536");
	ASSERT_OPEN_REFUSED("alloc[1].group: must be a whole number from 0 to 0");
	store_edited(good, "alloc", "group", "-1");
	ASSERT_OPEN_REFUSED("alloc[1].group: must be a whole number from 0 to 0");
	store_edited(good, "alloc", "group", NULL);
	ASSERT_OPEN_REFUSED("alloc[1].group: is required (a task group of the job, 0 to 0)");
	store_edited(good, "alloc", "node", "\"n1\""); /* a second task of group 0, on n1: fine */
	opens_running();
}

/* alloc[i].gpuMask: GPUs a node may have (FW_MAX_GPUS_PER_NODE bits; it
 * used to be cast to 32 bits); alloc[i].gpuMilli: 0 to 1000. */
TEST(a_stored_placement_with_a_bad_gpu_mask_or_share_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, "alloc", "gpuMask", "4294967311");
	ASSERT_OPEN_REFUSED("alloc[1].gpuMask: must be a whole number from 0 to 65535");
	store_edited(good, "alloc", "gpuMask", "65536");
	ASSERT_OPEN_REFUSED("alloc[1].gpuMask: must be a whole number from 0 to 65535");
	store_edited(good, "alloc", "gpuMask", NULL);
	ASSERT_OPEN_REFUSED("alloc[1].gpuMask: is required");
	store_edited(good, "alloc", "gpuMask", "7");
	ASSERT_OPEN_REFUSED("alloc[1].gpuMask: holds 3 GPUs, and its task group 0 asks 4");
	store_edited(good, "alloc", "gpuMilli", "1001");
	ASSERT_OPEN_REFUSED("alloc[1].gpuMilli: must be a whole number from 1 to 1000");
	store_edited(good, "alloc", "gpuMilli", "0"); /* GPUs held, none of them used */
	ASSERT_OPEN_REFUSED("alloc[1].gpuMilli: must be a whole number from 1 to 1000");
	store_edited(good, "alloc", "gpuMilli", NULL);
	ASSERT_OPEN_REFUSED("alloc[1].gpuMilli: is required");
	teardown(NULL);
}

/* Two running tasks on one GPU (here alloc[1], a copy of alloc[0]: the
 * same 4 GPUs of n0) are refused, naming the GPU: the core would refuse
 * every snapshot of that world.  A running job with no placement too. */
TEST(a_gpu_held_twice_or_a_running_job_without_placements_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, "alloc", "group", "0");
	ASSERT_OPEN_REFUSED("alloc[1].gpuMask: GPU 0 of node n0 is held by running tasks stored before this one too "
			    "(2000 milli of 1000 in all)");
	store_edited(good, NULL, "alloc", "[]");
	ASSERT_OPEN_REFUSED("alloc: a running job holds at least one placement");
	store_edited(good, "alloc", "gpuMask", "240"); /* GPUs 4 to 7 of n0: fine */
	opens_running();
}

/* A document whose name is not its key in the store (two keys naming one
 * job would be one job twice), and one that is no JSON object. */
TEST(a_stored_job_not_named_by_its_key_or_not_an_object_is_refused)
{
	char good[4096];

	store_with_bad_running(good);
	store_edited(good, NULL, "name", "\"other\"");
	ASSERT_OPEN_REFUSED("name: must be the job's key in the store (\"bad\"), not \"other\"");
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", "[1, 2]"), FW_OK);
	ASSERT_OPEN_REFUSED("(document): is not a JSON object");
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", "{\"state\": "), FW_OK);
	ASSERT_OPEN_REFUSED("(document): is not a JSON object");
	ASSERT_EQ(fw_store_put(store, FW_STORE_JOBS, "bad", good), FW_OK);
	opens_running();
}

/* reload() of a store holding a document the restore refuses fails,
 * saying why, and changes nothing in memory: the job runs on. */
TEST(a_reload_of_a_refused_document_changes_nothing)
{
	struct fw_backend *b;
	struct fw_backend_config cfg;
	struct fw_diag d;
	char good[4096];

	store_with_bad_running(good);
	memset(&cfg, 0, sizeof cfg);
	cfg.fleet = fleet;
	cfg.store = store;
	cfg.now = 2000;
	ASSERT_EQ(fw_backend_local.open(&cfg, &b, NULL), FW_OK);
	store_edited(good, "alloc", "group", "3");
	memset(&d, 0, sizeof d);
	ASSERT_EQ(fw_backend_local.reload(b, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "store.jobs");
	ASSERT_STR_CONTAINS(d.msg, "cannot re-read the local backend's jobs: job bad: alloc[1].group: must be");
	ASSERT_STR_EQ(state_of(b, "bad"), "running");
	teardown(b);
}

TEST_MAIN(stale_generation_changes_nothing_and_actions_are_idempotent, slices_become_snapshot_entries,
	  model_deserved_survives_reopen_and_becomes_snapshot_entries, jobs_run_for_their_runtime_and_survive_reopen,
	  gpu_hour_budget_survives_reopen_and_reaches_the_snapshot,
	  an_evicted_job_resumes_from_its_last_checkpoint, a_job_past_its_queues_limit_ends_as_timeout,
	  a_job_past_its_own_limit_ends_as_timeout, a_config_jobs_own_limit_is_seeded_or_refused,
	  thousands_of_jobs_are_found_by_name, jobs_with_a_non_zero_exit_code_fail, failed_jobs_make_their_node_suspect,
	  failures_count_per_node_within_the_window, a_job_requeued_by_a_fleet_change_has_a_decision,
	  a_job_on_a_node_the_fleet_shrank_is_requeued, a_queue_limit_passed_while_the_daemon_was_down_ends_jobs_at_it,
	  a_jobs_own_limit_passed_while_the_daemon_was_down_ends_it_at_it, limits_reached_while_the_daemon_runs_are_the_cycles,
	  a_job_a_fleet_change_would_requeue_ends_at_a_limit_that_passed,
	  a_finish_the_store_refuses_changes_nothing,
	  reload_after_a_rollback_restores_the_committed_world, node_selectors_become_node_filters,
	  a_capture_builds_what_a_read_reads_whatever_changes_after_it,
	  an_ended_job_keeps_the_nodes_it_ran_on_and_holds_none,
	  a_job_keeps_its_selectors_not_the_submitters_room, task_group_selectors_become_group_filters, queue_usage_decays_once_per_pass,
	  users_usage_is_kept_per_queue, a_backends_usage_becomes_the_daemons,
	  a_run_that_ends_between_passes_counts_to_its_end,
	  ended_jobs_are_forgotten_after_min_job_age, a_plan_outlives_changes_that_only_free_room,
	  a_stored_job_with_an_unknown_state_is_refused, a_stored_job_with_a_bad_time_is_refused,
	  a_stored_job_with_bad_starts_or_kept_is_refused, a_stored_job_with_a_bad_alloc_is_refused,
	  a_stored_placement_without_a_node_name_is_refused, a_stored_placement_of_a_group_the_job_lacks_is_refused,
	  a_stored_placement_with_a_bad_gpu_mask_or_share_is_refused,
	  a_stored_job_not_named_by_its_key_or_not_an_object_is_refused, a_reload_of_a_refused_document_changes_nothing,
	  a_gpu_held_twice_or_a_running_job_without_placements_is_refused)
