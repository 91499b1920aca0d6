/*
 * test_serve_reason.c — the daemon's reason texts (connectors/serve/
 * reason.c): the indices a reason carries become the names of the jobs,
 * queues and nodes of the snapshot; every other reason reads as the
 * core's text; an over-quota amount is written in full; a job a GPU-hour
 * budget holds names the queue over it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "backend.h"
#include "builder.h"
#include "reason.h"

/* nodes n0 n1; queues root, llm (under root), cv; jobs train-7 (llm),
 * eval-1 (cv). */
/* The longest texts: queue name[0] (a root) over name[1], both of
 * FW_NAME_MAX - 1 bytes, with job "j" of name[1] on one node. */
static struct fw_snapshot *longest_names(char name[2][FW_NAME_MAX])
{
	struct fw_snapshot *s = fw_snapshot_new();

	for (int i = 0; i < 2; i++) {
		memset(name[i], "pq"[i], FW_NAME_MAX - 1);
		name[i][FW_NAME_MAX - 1] = 0;
	}
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, name[0], -1, 8, -1, 1);
	tb_queue(s, name[1], 0, 8, -1, 1);
	tb_job(s, "j", 1, 1, 8, 1000, 0);
	return s;
}

static struct fw_snapshot *world(void)
{
	struct fw_snapshot *s = fw_snapshot_new();

	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "h100-014", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "root", -1, 16, -1, 1);
	tb_queue(s, "llm", 0, 8, -1, 1);
	tb_queue(s, "cv", 0, 8, 4, 1);
	tb_job(s, "train-7", 1, 2, 8, 1000, 0);
	tb_job(s, "eval-1", 2, 1, 1, 1000, 0);
	return s;
}

static const char *text(const struct fw_snapshot *s, enum fw_reason r, int64_t a, int64_t b)
{
	static char buf[512];
	return fw_serve_reason_text(s, r, a, b, buf, sizeof buf);
}

TEST(evictions_name_the_job_and_its_queue)
{
	struct fw_snapshot *s = world();

	ASSERT_STR_EQ(text(s, FW_REASON_RECLAIMED, 0, 1),
		      "evicted: its queue is above its fair share and job \"train-7\" of the starving queue \"llm\" "
		      "takes its GPUs");
	ASSERT_STR_EQ(text(s, FW_REASON_PREEMPTED, 1, 2),
		      "evicted: job \"eval-1\" of higher priority in the same queue (\"cv\") takes its GPUs");
	ASSERT_STR_EQ(text(s, FW_REASON_MOVED, 0, 1),
		      "moved: evicted and restarted on other nodes in this plan, to free a domain for gang job "
		      "\"train-7\" (queue \"llm\")");
	ASSERT_STR_EQ(text(s, FW_REASON_MODEL_RECLAIMED, 0, 1),
		      "evicted: its queue holds more GPUs of a model than it deserves, and job \"train-7\" of queue "
		      "\"llm\", below the GPUs of that model it deserves, takes them");
	fw_snapshot_free(s);
}

TEST(waiting_reasons_name_the_job_ahead)
{
	struct fw_snapshot *s = world();

	ASSERT_STR_EQ(text(s, FW_REASON_RESERVED, 1, 1700000000),
		      "it fits now but would delay the reservation of job \"eval-1\" (due at t=1700000000); it waits "
		      "rather than push a reserved job back");
	ASSERT_STR_EQ(text(s, FW_REASON_HEAD_OF_LINE, 0, 3),
		      "blocked behind job \"train-7\" (strict order; 3 jobs ahead in its line)");
	ASSERT_STR_EQ(text(s, FW_REASON_CHECKPOINT_WAIT, 0, 40300),
		      "it takes the GPUs of job \"train-7\", which saves a checkpoint at t=40300: it waits for it "
		      "rather than throw that job's work away");
	/* an index out of range: the core's template, not a wrong name */
	ASSERT_STR_EQ(text(s, FW_REASON_CHECKPOINT_WAIT, 9, 40300),
		      "it takes the GPUs of job #9, which saves a checkpoint at t=40300: it waits for it rather than "
		      "throw that job's work away");
	fw_snapshot_free(s);
}

TEST(drains_name_the_node)
{
	struct fw_snapshot *s = world();

	ASSERT_STR_EQ(text(s, FW_REASON_DRAIN_REQUEUE, 1, 2),
		      "drain: node \"h100-014\" is unhealthy; its 2 running jobs are evicted and requeued");
	ASSERT_STR_EQ(text(s, FW_REASON_DRAIN_FINISH, 0, 0),
		      "drain: node \"n0\" is unhealthy or draining; nothing new lands and its 0 running jobs may finish");
	ASSERT_STR_EQ(text(s, FW_REASON_DRAINED, 1, 1),
		      "evicted: node \"h100-014\" it runs on is unhealthy and drained; the job is requeued (1 of its "
		      "tasks was there)");
	ASSERT_STR_EQ(text(s, FW_REASON_DRAINED, 1, 2),
		      "evicted: node \"h100-014\" it runs on is unhealthy and drained; the job is requeued (2 of its "
		      "tasks were there)");
	/* one job: the singular, and its verb */
	ASSERT_STR_EQ(text(s, FW_REASON_DRAIN_REQUEUE, 1, 1),
		      "drain: node \"h100-014\" is unhealthy; its 1 running job is evicted and requeued");
	ASSERT_STR_EQ(text(s, FW_REASON_DRAIN_FINISH, 0, 1),
		      "drain: node \"n0\" is unhealthy or draining; nothing new lands and its 1 running job may finish");
	/* the node's health says which of the two */
	s->nodes[0].health = FW_HEALTH_DRAINING;
	ASSERT_STR_EQ(text(s, FW_REASON_DRAIN_FINISH, 0, 1),
		      "drain: node \"n0\" is draining; nothing new lands and its 1 running job may finish");
	s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	ASSERT_STR_EQ(text(s, FW_REASON_DRAIN_FINISH, 0, 2),
		      "drain: node \"n0\" is unhealthy; nothing new lands and its 2 running jobs may finish");
	fw_snapshot_free(s);
}

/* STARTED's second argument is never set by the core: left out. */
TEST(started_says_the_gpus_only)
{
	struct fw_snapshot *s = world();

	ASSERT_STR_EQ(text(s, FW_REASON_STARTED, 16, 0), "started: 16 GPUs");
	fw_snapshot_free(s);
}

TEST(over_quota_amount_in_full)
{
	struct fw_snapshot *s = world();

	ASSERT_STR_EQ(text(s, FW_REASON_OVER_QUOTA, 800000000, FW_RES_GPU),
		      "over quota: starting it would put its queue (or a parent queue) 800000 GPUs over its GPU limit");
	ASSERT_STR_EQ(text(s, FW_REASON_OVER_QUOTA, 1234567, FW_RES_GPU),
		      "over quota: starting it would put its queue (or a parent queue) 1234.567 GPUs over its GPU limit");
	ASSERT_STR_EQ(text(s, FW_REASON_OVER_QUOTA, 500, FW_RES_GPU),
		      "over quota: starting it would put its queue (or a parent queue) 0.5 GPUs over its GPU limit");
	ASSERT_STR_EQ(text(s, FW_REASON_OVER_QUOTA, 2000, FW_RES_CPU),
		      "over quota: starting it would put its queue (or a parent queue) 2 cores over its CPU limit");
	ASSERT_STR_EQ(text(s, FW_REASON_OVER_QUOTA, 1536, FW_RES_MEM),
		      "over quota: starting it would put its queue (or a parent queue) 1.5 GiB over its memory limit");
	fw_snapshot_free(s);
}

/* A GPU model limit names its queue and model; an index the snapshot
 * does not have reads as the core's text. */
TEST(model_limits_name_the_queue_and_the_model)
{
	struct fw_snapshot *s = world();
	char core[512];

	struct fw_model_limit m = { .queue = 2, .model = "H100", .gpus = 2500 };
	ASSERT_EQ(fw_snapshot_add_model_limit(s, &m), 0);
	ASSERT_STR_EQ(text(s, FW_REASON_MODEL_LIMIT, 1000, 0),
		      "over a GPU model limit: starting it would put queue cv 1 GPU over its limit of 2.5 H100 GPUs");
	ASSERT_STR_EQ(text(s, FW_REASON_MODEL_LIMIT, 1000, 1),
		      fw_reason_format(FW_REASON_MODEL_LIMIT, 1000, 0, core, sizeof core));
	ASSERT_STR_CONTAINS(core, "1 GPU over its limit on a GPU model");
	fw_snapshot_free(s);
}

/* An index the snapshot does not have, and every reason without an
 * index: the core's own text. */
TEST(the_rest_reads_as_the_core)
{
	struct fw_snapshot *s = world();
	char core[512];

	ASSERT_STR_EQ(text(s, FW_REASON_RECLAIMED, 9, 1), fw_reason_format(FW_REASON_RECLAIMED, 9, 1, core, sizeof core));
	ASSERT_STR_EQ(text(s, FW_REASON_RECLAIMED, 0, 7), fw_reason_format(FW_REASON_RECLAIMED, 0, 7, core, sizeof core));
	ASSERT_STR_EQ(text(s, FW_REASON_DRAINED, -1, 1), fw_reason_format(FW_REASON_DRAINED, -1, 1, core, sizeof core));
	ASSERT_STR_EQ(text(s, FW_REASON_HEAD_OF_LINE, 2, 1),
		      fw_reason_format(FW_REASON_HEAD_OF_LINE, 2, 1, core, sizeof core));
	/* MIN_RUNTIME names the queue (a) whose minimum runtime holds the room */
	ASSERT_STR_CONTAINS(text(s, FW_REASON_MIN_RUNTIME, 1, 1), "held by jobs of queue llm, above its fair share");
	/* NODES_OUT names the nodes out of the snapshot (none here: the count) */
	ASSERT_STR_CONTAINS(text(s, FW_REASON_NODES_OUT, 1, 1), "nodes out: the cluster could hold it only with its nodes out of service back: 1 node suspect");
	/* LIMIT_HELD names the starving gang (a) and the queue (b) */
	ASSERT_STR_CONTAINS(text(s, FW_REASON_LIMIT_HELD, 1, 1), "limit held: job eval-1, a gang waiting");
	ASSERT_STR_CONTAINS(text(s, FW_REASON_LIMIT_HELD, 1, 1), "under the limit of queue llm;");
	for (int r = 0; r < FW_REASON_COUNT; r++) {
		if (r == FW_REASON_STARTED || r == FW_REASON_OVER_QUOTA || r == FW_REASON_RECLAIMED ||
		    r == FW_REASON_MODEL_RECLAIMED ||
		    r == FW_REASON_PREEMPTED || r == FW_REASON_MOVED || r == FW_REASON_RESERVED ||
		    r == FW_REASON_HEAD_OF_LINE || r == FW_REASON_DRAIN_REQUEUE || r == FW_REASON_DRAIN_FINISH ||
		    r == FW_REASON_DRAINED || r == FW_REASON_MODEL_LIMIT || r == FW_REASON_CHECKPOINT_WAIT ||
		    r == FW_REASON_MIN_RUNTIME || r == FW_REASON_NODES_OUT || r == FW_REASON_LIMIT_HELD)
			continue; /* TIME_LIMIT: the core's text here; its queue only in fw_serve_evict_text */
		ASSERT_STR_EQ(text(s, (enum fw_reason)r, 1, 1), fw_reason_format((enum fw_reason)r, 1, 1, core, sizeof core));
		ASSERT(!strchr(core, '#')); /* no other reason carries an index */
	}
	fw_snapshot_free(s);
}

/* A job its queue's run-time limit ends: the eviction's text names the
 * queue whose maxRuntime it is (its own, or the ancestor whose limit is
 * the smaller), and has no work-lost tail (it is not requeued); a limit
 * no queue of its way up sets reads as the core's text. */
TEST(time_limit_names_the_queue_that_sets_it)
{
	struct fw_snapshot *s = world();
	char buf[FW_SERVE_EVICT_MAX], core[512];

	s->queues[1].max_runtime_s = 7200; /* llm */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 7230, 7200, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 2h00m30s and the run-time limit (maxRuntime) of its queue \"llm\" is 2h00m; "
			   "it is stopped, not requeued");
	s->queues[0].max_runtime_s = 3600; /* root, above llm, is the smaller */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 3600, 3600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 1h00m and the run-time limit (maxRuntime) of queue \"root\", above its "
			   "queue \"llm\", is 1h00m; it is stopped, not requeued");
	ASSERT(!strstr(buf, "loses"));
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 100, 99, buf, sizeof buf); /* no queue sets 99 */
	ASSERT_STR_EQ(buf, fw_reason_format(FW_REASON_TIME_LIMIT, 100, 99, core, sizeof core));
	ASSERT_STR_EQ(text(s, FW_REASON_TIME_LIMIT, 3600, 3600),
		      fw_reason_format(FW_REASON_TIME_LIMIT, 3600, 3600, core, sizeof core));
	fw_snapshot_free(s);

	/* the longest: two names of FW_NAME_MAX - 1 and the widest numbers */
	char name[2][FW_NAME_MAX];
	s = longest_names(name);
	s->queues[0].max_runtime_s = INT64_MAX;
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, INT64_MIN, INT64_MAX, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, name[0]);
	ASSERT_STR_CONTAINS(buf, name[1]);
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	fw_snapshot_free(s);
}

/* A job its own run-time limit (maxRuntime) ends: the text says its own
 * limit, not a queue's; its queues' limits above it change nothing, and
 * one equal to it is named beside it (either would have ended it); a
 * queue's smaller limit is the queue's, as before.  The longest such
 * text, with two names of FW_NAME_MAX - 1, fits its bound. */
TEST(time_limit_says_when_it_is_the_jobs_own)
{
	struct fw_snapshot *s = world();
	char buf[FW_SERVE_EVICT_MAX];
	static const char own[] = "ended: it has run 10m and its own run-time limit (maxRuntime) is 10m";

	s->jobs[0].max_runtime_s = 600; /* train-7, of llm; no queue sets one */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 10m and its own run-time limit (maxRuntime) is 10m; it is stopped, "
			   "not requeued");
	s->queues[1].max_runtime_s = 7200; /* llm's, larger: its own still binds */
	s->queues[0].max_runtime_s = 3600;
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 10m and its own run-time limit (maxRuntime) is 10m; it is stopped, "
			   "not requeued");
	s->queues[1].max_runtime_s = 600; /* llm sets the same */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 10m and its own run-time limit (maxRuntime) is 10m, as is that of "
			   "its queue \"llm\"; it is stopped, not requeued");
	s->queues[1].max_runtime_s = 0;
	s->queues[0].max_runtime_s = 600; /* root, above llm, sets the same */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 10m and its own run-time limit (maxRuntime) is 10m, as is that of "
			   "queue \"root\", above its queue \"llm\"; it is stopped, not requeued");
	s->queues[0].max_runtime_s = 300; /* root's is smaller: root's ends it */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 300, 300, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 5m and the run-time limit (maxRuntime) of queue \"root\", above its "
			   "queue \"llm\", is 5m; it is stopped, not requeued");
	ASSERT(!strstr(buf, own));
	s->jobs[1].max_runtime_s = 0; /* eval-1, of cv: no own limit, none of 600 s anywhere */
	fw_serve_evict_text(s, &s->jobs[1], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT(!strstr(buf, "its own"));
	fw_snapshot_free(s);

	char name[2][FW_NAME_MAX];
	s = longest_names(name);
	s->queues[0].max_runtime_s = INT32_MAX;
	s->jobs[0].max_runtime_s = INT32_MAX;
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, INT64_MIN, INT32_MAX, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "its own run-time limit");
	ASSERT_STR_CONTAINS(buf, name[0]);
	ASSERT_STR_CONTAINS(buf, name[1]);
	ASSERT_STR_CONTAINS(buf, "; it is stopped, not requeued"); /* whole, not cut */
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	fw_snapshot_free(s);
}

/* Names of FW_NAME_MAX - 1 characters: job 0 "jjj...j" in queue 0
 * "qqq...q", on node 0 "nnn...n"; job 0 ran from t=0 to now, without a
 * checkpoint interval. */
static struct fw_snapshot *long_names(void)
{
	struct fw_snapshot *s = fw_snapshot_new();
	char name[3][FW_NAME_MAX];

	for (int i = 0; i < 3; i++) {
		memset(name[i], "jqn"[i], FW_NAME_MAX - 1);
		name[i][FW_NAME_MAX - 1] = 0;
	}
	tb_node(s, name[2], 8, NULL, NULL, NULL, NULL);
	tb_queue(s, name[1], -1, 8, -1, 1);
	tb_job(s, name[0], 0, 1, 8, 1000, 0);
	struct fw_model_limit m = { .queue = 0, .gpus = INT64_MAX }; /* MODEL_LIMIT's b = 0 and 1: its names, and none */
	memset(m.model, 'm', FW_NAME_MAX - 1);
	fw_snapshot_add_model_limit(s, &m);
	s->jobs[0].start_time = 0;
	s->now = 1700000000;
	return s;
}

static bool ends_with(const char *text, const char *tail)
{
	size_t n = strlen(text), k = strlen(tail);
	return n >= k && !strcmp(text + n - k, tail);
}

/* The daemon's decision text (struct fw_backend_action.why) holds an
 * eviction's whole text with the longest job and queue names. */
TEST(longest_names_arrive_whole)
{
	struct fw_snapshot *s = long_names();
	const char *tail = "; it loses 472222h13m20s of work (no checkpoint interval: the whole run)";
	char why[sizeof ((struct fw_backend_action *)0)->why];

	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_RECLAIMED, 0, 0, why, sizeof why);
	ASSERT_STR_CONTAINS(why, s->jobs[0].name);
	ASSERT_STR_CONTAINS(why, s->queues[0].name);
	ASSERT(ends_with(why, tail));
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_MOVED, 0, 0, why, sizeof why);
	ASSERT(ends_with(why, tail));
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_PREEMPTED, 0, 0, why, sizeof why);
	ASSERT(ends_with(why, tail));
	fw_snapshot_free(s);
}

/* Every reason, with the longest names and the widest numbers, fits
 * the bounds the buffers are sized by (plan.h, reason.h). */
TEST(every_text_fits_its_bound)
{
	static const int64_t v[] = { 0, 1, INT64_MIN, INT64_MAX };
	struct fw_snapshot *s = long_names();
	char big[2048];

	s->now = INT64_MAX; /* the work lost: 19 digits */
	for (int r = 0; r < FW_REASON_COUNT; r++)
		for (int i = 0; i < 16; i++) {
			int64_t a = v[i / 4], b = v[i % 4];
			ASSERT(strlen(fw_reason_format((enum fw_reason)r, a, b, big, sizeof big)) < FW_REASON_TEXT_MAX);
			ASSERT(strlen(fw_serve_reason_text(s, (enum fw_reason)r, a, b, big, sizeof big)) <
			       FW_SERVE_REASON_MAX);
			ASSERT(strlen(fw_serve_evict_text(s, &s->jobs[0], (enum fw_reason)r, a, b, big, sizeof big)) <
			       FW_SERVE_EVICT_MAX);
		}
	fw_snapshot_free(s);
}

/* A job a GPU-hour budget holds (OVER_BUDGET, as a cycle gives it): the
 * text names the queue over its budget, the nearest on the way up by the
 * plan's sums, and says both amounts as they are (the core's rounds a
 * budget of 0.5 up to 1); with no queue over a budget, or no plan, the
 * core's text; with the longest names, whole and within its bound. */
TEST(over_budget_names_the_queue)
{
	static struct fw_arena A;
	struct fw_snapshot *s = world();
	const struct fw_pending *pe;
	struct fw_plan *p;
	char buf[512], core[512];

	fw_arena_init(&A, 1 << 16);
	s->now = 1000000;
	for (int32_t q = 0; q < s->nqueues; q++)
		s->queues[q].usage_at = s->now;
	s->queues[1].usage = 12.5 * 3600; /* llm: 12.5 GPU-hours */
	s->queues[1].gpu_hour_budget = 10;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL); /* train-7, of llm, waits */
	ASSERT_EQ(pe->reason, FW_REASON_OVER_BUDGET);
	ASSERT(fw_plan_pending_for(p, 1) == NULL);        /* eval-1, of cv, starts */
	ASSERT_STR_EQ(fw_serve_budget_text(s, p, 0, pe->a, pe->b, buf, sizeof buf),
		      "over budget: its queue \"llm\" has used 12.5 GPU-hours, its decayed usage, of its budget of 10 "
		      "(gpuHourBudget); it starts once usage decays below it");

	s->queues[1].gpu_hour_budget = 0; /* root's budget, 0.5: llm's usage counts in it */
	s->queues[0].gpu_hour_budget = 0.5;
	s->queues[2].usage = 0.25 * 3600;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 1)) != NULL); /* now eval-1, of cv, waits too */
	ASSERT_EQ(pe->reason, FW_REASON_OVER_BUDGET);
	ASSERT_STR_EQ(fw_serve_budget_text(s, p, 1, pe->a, pe->b, buf, sizeof buf),
		      "over budget: queue \"root\", above its queue \"cv\", has used 12.8 GPU-hours, its decayed "
		      "usage, of its budget of 0.5 (gpuHourBudget); it starts once usage decays below it");
	ASSERT_STR_CONTAINS(fw_reason_format(FW_REASON_OVER_BUDGET, pe->a, pe->b, core, sizeof core),
			    "of its budget of 1 (gpuHourBudget)"); /* what the names replace */

	s->queues[1].gpu_hour_budget = 1; /* llm's own, nearer than root's: named first */
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL);
	ASSERT_STR_CONTAINS(fw_serve_budget_text(s, p, 0, pe->a, pe->b, buf, sizeof buf),
			    "its queue \"llm\" has used 12.5 GPU-hours, its decayed usage, of its budget of 1 ");
	s->queues[2].usage = 0; /* GPU-hours under 0.01: not "0" */
	s->queues[1].usage = 0.00153 * 3600;
	s->queues[1].gpu_hour_budget = 0.0001;
	s->queues[0].gpu_hour_budget = 0;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL);
	ASSERT_STR_CONTAINS(fw_serve_budget_text(s, p, 0, pe->a, pe->b, buf, sizeof buf),
			    "its queue \"llm\" has used 0.00153 GPU-hours, its decayed usage, of its budget of "
			    "0.0001 ");

	/* no queue over a budget by the plan's sums, no plan, no such job: the core's */
	s->queues[1].gpu_hour_budget = 1;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT(fw_plan_pending_for(p, 0) == NULL); /* under it: it starts */
	fw_reason_format(FW_REASON_OVER_BUDGET, 3, 4, core, sizeof core);
	ASSERT_STR_EQ(fw_serve_budget_text(s, p, 0, 3, 4, buf, sizeof buf), core);
	ASSERT_STR_EQ(fw_serve_budget_text(s, NULL, 0, 3, 4, buf, sizeof buf), core);
	ASSERT_STR_EQ(fw_serve_budget_text(s, p, 7, 3, 4, buf, sizeof buf), core);
	fw_snapshot_free(s);

	/* the longest names, both, and the widest amounts: whole, within bound */
	char name[2][FW_NAME_MAX];
	s = longest_names(name);
	s->now = 1000000;
	s->queues[1].usage = 1e18;
	s->queues[1].usage_at = s->now;
	s->queues[0].gpu_hour_budget = 0.000123456789012345; /* 15 digits, the widest */
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL);
	fw_serve_budget_text(s, p, 0, pe->a, pe->b, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, name[0]);
	ASSERT_STR_CONTAINS(buf, name[1]);
	ASSERT_STR_CONTAINS(buf, "has used 2.78e+14 GPU-hours");
	ASSERT_STR_CONTAINS(buf, "of its budget of 0.000123456789012345 (gpuHourBudget); it starts once usage decays "
				 "below it"); /* whole, not cut */
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	fw_snapshot_free(s);
	fw_arena_release(&A);
}

/* ---- budget_short (budgetSafe) -------------------------------------- */

/* Queues org (a root), tight and other under it; nodes n0, n1 of 8 GPUs;
 * "long" (tight: 8 GPUs, its own maxRuntime 2 h: 16 GPU-h) and "short"
 * (tight: 1 GPU, runtime 1 h), submitted in that order; budgetSafe on,
 * no usage, no budget yet. */
static struct fw_snapshot *safe_world(void)
{
	struct fw_snapshot *s = fw_snapshot_new();

	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, "org", -1, 16, -1, 1);
	tb_queue(s, "tight", 0, 8, -1, 1);
	tb_queue(s, "other", 0, 8, -1, 1);
	tb_job(s, "long", 1, 1, 8, 1000, 10);
	tb_job(s, "short", 1, 1, 1, 1000, 20);
	s->jobs[0].max_runtime_s = 7200;
	s->jobs[1].expected_runtime = 3600;
	s->now = 1000000;
	for (int32_t q = 0; q < s->nqueues; q++)
		s->queues[q].usage_at = s->now;
	s->config.budget_safe = true;
	return s;
}

/* Job j's pending text in plan p of s as the view renders it: its
 * reasonText when `why` is false, else its unknownWhyText. */
static const char *short_text(const struct fw_snapshot *s, const struct fw_plan *p, int32_t j, bool why, char *buf,
			      size_t n)
{
	const struct fw_pending *pe = fw_plan_pending_for(p, j);
	struct fw_serve_left *l = fw_serve_budget_left(s, p);

	if (!pe || pe->reason != FW_REASON_BUDGET_SHORT || (why && pe->unknown_why != FW_REASON_BUDGET_SHORT))
		snprintf(buf, n, "(not budget_short)");
	else if (why)
		fw_serve_short_text(s, l, j, pe->why_a, pe->why_b, buf, n);
	else
		fw_serve_short_text(s, l, j, pe->a, pe->b, buf, n);
	free(l);
	return buf;
}

/* A job whose whole run does not fit what its budget has left (as a
 * cycle gives it): the text names the queue whose budget is short, the
 * first on its way up that cannot hold the run (not merely the nearest
 * with a budget), with the core's numbers, the run as GPUs × the bound
 * that counts, and what a start in the same plan took off. */
TEST(budget_short_names_the_queue)
{
	static struct fw_arena A;
	struct fw_snapshot *s = safe_world();
	const struct fw_pending *pe;
	struct fw_plan *p;
	char buf[FW_SERVE_REASON_MAX], core[FW_REASON_TEXT_MAX];

	fw_arena_init(&A, 1 << 16);
	s->queues[1].gpu_hour_budget = 10; /* tight: short (1 GPU-h) starts, 9 left */
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT(fw_plan_pending_for(p, 1) == NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL);
	ASSERT_EQ(pe->a, 16);
	ASSERT_EQ(pe->b, 9);
	ASSERT_STR_EQ(short_text(s, p, 0, false, buf, sizeof buf),
		      "budget short: its whole run may use 16 GPU-hours (8 GPUs × its 2h00m maxRuntime) and its queue "
		      "\"tight\" has 9 GPU-hours left of its budget of 10 after its usage and what its running jobs "
		      "may still use (budgetSafe)");
	ASSERT_STR_EQ(short_text(s, p, 0, true, buf, sizeof buf), /* unknownWhyText: the same */
		      "budget short: its whole run may use 16 GPU-hours (8 GPUs × its 2h00m maxRuntime) and its queue "
		      "\"tight\" has 9 GPU-hours left of its budget of 10 after its usage and what its running jobs "
		      "may still use (budgetSafe)");

	/* tight's 20 holds it; org's 10, less other's 0.5 used and short's
	 * 1, does not: org is named, though tight is nearer */
	s->queues[1].gpu_hour_budget = 20;
	s->queues[0].gpu_hour_budget = 10;
	s->queues[2].usage = 0.5 * 3600;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL);
	ASSERT_EQ(pe->b, 8);
	ASSERT_STR_EQ(short_text(s, p, 0, false, buf, sizeof buf),
		      "budget short: its whole run may use 16 GPU-hours (8 GPUs × its 2h00m maxRuntime) and queue "
		      "\"org\", above its queue \"tight\", has 8 GPU-hours left of its budget of 10 after its usage and "
		      "what its running jobs may still use (budgetSafe)");

	/* the bound that counts: its queue's limit, else its runtime, else
	 * its queue's default; a run of 1.5 GPU-hours is said rounded up */
	s->jobs[0].max_runtime_s = 0;
	s->queues[1].max_runtime_s = 7200;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT_STR_CONTAINS(short_text(s, p, 0, false, buf, sizeof buf),
			    "may use 16 GPU-hours (8 GPUs × its queue's 2h00m maxRuntime) and queue \"org\"");
	s->queues[1].max_runtime_s = 0;
	s->queues[0].max_runtime_s = 7200;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT_STR_CONTAINS(short_text(s, p, 0, false, buf, sizeof buf), "(8 GPUs × a parent queue's 2h00m maxRuntime)");
	s->queues[0].max_runtime_s = 0;
	s->jobs[0].expected_runtime = 5400;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT_STR_CONTAINS(short_text(s, p, 0, false, buf, sizeof buf),
			    "may use 12 GPU-hours (8 GPUs × its 1h30m runtime)");
	s->jobs[0].expected_runtime = 0;
	s->queues[1].default_runtime_s = 4000;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT_STR_CONTAINS(short_text(s, p, 0, false, buf, sizeof buf),
			    "may use 9 GPU-hours (8 GPUs × its queue's 1h06m40s defaultRuntime, rounded up) and queue "
			    "\"org\", above its queue \"tight\", has 8 GPU-hours left");

	/* no l, a b no queue has left, no such job: the core's text */
	fw_reason_format(FW_REASON_BUDGET_SHORT, 9, 8, core, sizeof core);
	ASSERT_STR_EQ(fw_serve_short_text(s, NULL, 0, 9, 8, buf, sizeof buf), core);
	struct fw_serve_left *l = fw_serve_budget_left(s, p);
	ASSERT(l != NULL);
	fw_reason_format(FW_REASON_BUDGET_SHORT, 9, 7, core, sizeof core);
	ASSERT_STR_EQ(fw_serve_short_text(s, l, 0, 9, 7, buf, sizeof buf), core);
	fw_reason_format(FW_REASON_BUDGET_SHORT, 10, 8, core, sizeof core); /* not its run */
	ASSERT_STR_EQ(fw_serve_short_text(s, l, 0, 10, 8, buf, sizeof buf), core);
	fw_reason_format(FW_REASON_BUDGET_SHORT, 9, 8, core, sizeof core);
	ASSERT_STR_EQ(fw_serve_short_text(s, l, 7, 9, 8, buf, sizeof buf), core);
	free(l);
	s->config.budget_safe = false; /* off: no table */
	ASSERT(fw_serve_budget_left(s, p) == NULL);
	fw_snapshot_free(s);
	fw_arena_release(&A);
}

/* Without a bound: a job with none waits (a = -1), the text naming the
 * nearest queue with a budget; a running job with none under a budget
 * makes what is left unknown (b = -1), and the text names that queue and
 * that job.  A job its run-time limit ends in this plan holds nothing. */
TEST(budget_short_without_a_bound_names_the_queue_and_the_job)
{
	static struct fw_arena A;
	struct fw_snapshot *s = safe_world();
	const struct fw_pending *pe;
	struct fw_plan *p;
	char buf[FW_SERVE_REASON_MAX];
	int n1 = 1;

	fw_arena_init(&A, 1 << 16);
	s->queues[1].gpu_hour_budget = 20;
	s->queues[0].gpu_hour_budget = 30;
	s->jobs[1].expected_runtime = 0; /* short: no bound */
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 1)) != NULL);
	ASSERT_EQ(pe->a, -1);
	ASSERT_STR_EQ(short_text(s, p, 1, false, buf, sizeof buf),
		      "budget short: its queue \"tight\" has a GPU-hour budget of 20 and budgetSafe is on, so a job "
		      "starts only when its whole run fits what is left, and this job has no bound: give it a run-time "
		      "limit (maxRuntime) or a runtime");
	s->queues[1].gpu_hour_budget = 0;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT_STR_CONTAINS(short_text(s, p, 1, false, buf, sizeof buf),
			    "budget short: queue \"org\", above its queue \"tight\", has a GPU-hour budget of 30 and");
	ASSERT(fw_plan_pending_for(p, 0) == NULL); /* long fits org's 30 */

	/* "forever", running in other with no bound: org's left is unknown */
	s->jobs[1].expected_runtime = 3600;
	s->queues[1].gpu_hour_budget = 20;
	int r = tb_job(s, "forever", 2, 1, 4, 1000, 5);
	tb_run(s, r, 1, &n1, 0x0f);
	s->jobs[r].start_time = s->now - 60;
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT((pe = fw_plan_pending_for(p, 0)) != NULL);
	ASSERT_EQ(pe->b, -1);
	ASSERT_STR_EQ(short_text(s, p, 0, false, buf, sizeof buf),
		      "budget short: its whole run may use 16 GPU-hours (8 GPUs × its 2h00m maxRuntime), and what is left "
		      "of the budget of 30 of queue \"org\", above its queue \"tight\", is unknown: job \"forever\" "
		      "running under it has no run-time limit (maxRuntime) or runtime (budgetSafe)");
	s->queues[2].max_runtime_s = 60; /* other's limit ends forever in this plan: its run holds nothing */
	ASSERT((p = tb_plan(s, NULL, &A)) != NULL);
	ASSERT(fw_plan_pending_for(p, 0) == NULL);
	ASSERT(fw_plan_pending_for(p, 1) == NULL);
	fw_snapshot_free(s);
	fw_arena_release(&A);
}

/* The longest budget_short texts: three names of FW_NAME_MAX - 1 (the
 * queue over the job's queue, a running job), the widest GPUs, bound and
 * budget, and the core's a and b as wide as they come for them (l made
 * by hand to agree): whole, within FW_SERVE_REASON_MAX. */
TEST(budget_short_texts_fit_their_bound)
{
	char name[2][FW_NAME_MAX], job[FW_NAME_MAX], buf[2048];
	struct fw_snapshot *s = longest_names(name);
	struct fw_serve_left l[2];

	memset(job, 'r', FW_NAME_MAX - 1);
	job[FW_NAME_MAX - 1] = 0;
	tb_job(s, job, 1, 1, 1, 1000, 0);
	s->jobs[0].groups[0].count = INT32_MAX; /* wider than any valid job */
	s->jobs[0].groups[0].gpus = 32;
	s->jobs[0].groups[0].gpu_milli = 999;
	s->queues[0].gpu_hour_budget = 0.000123456789012345; /* 15 digits */
	s->jobs[0].max_runtime_s = INT32_MAX;                 /* "596523h14m07s" */
	double need = (double)fw_job_request(&s->jobs[0]).v[FW_RES_GPU] / 1000.0 * INT32_MAX;
	int64_t a = (int64_t)ceil(need / 3600.0);
	l[0] = (struct fw_serve_left){ need - 1e6, -1 };
	l[1] = (struct fw_serve_left){ 0, -1 };
	int64_t b = (int64_t)floor(l[0].gpu_s / 3600.0);

	fw_serve_short_text(s, l, 0, a, b, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, name[0]);
	ASSERT_STR_CONTAINS(buf, name[1]);
	ASSERT_STR_CONTAINS(buf, "(68650757227.296 GPUs × its 596523h14m07s maxRuntime)");
	ASSERT_STR_CONTAINS(buf, "of its budget of 0.000123456789012345 after its usage and what its running jobs may "
				 "still use (budgetSafe)");
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	s->jobs[0].max_runtime_s = 0;
	s->queues[0].max_runtime_s = INT32_MAX;
	l[0] = (struct fw_serve_left){ -INFINITY, 1 };
	fw_serve_short_text(s, l, 0, a, -1, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "× a parent queue's 596523h14m07s maxRuntime), and what is left");
	ASSERT_STR_CONTAINS(buf, job);
	ASSERT_STR_CONTAINS(buf, "has no run-time limit (maxRuntime) or runtime (budgetSafe)");
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	s->queues[0].max_runtime_s = 0; /* the longest bound: a parent's default runtime, in s */
	s->queues[0].default_runtime_s = INT64_MAX;
	s->jobs[0].groups[0].count = 1;
	s->jobs[0].groups[0].gpus = 1;
	s->jobs[0].groups[0].gpu_milli = 7; /* 0.007 GPUs */
	need = 0.007 * (double)INT64_MAX;
	fw_serve_short_text(s, l, 0, (int64_t)ceil(need / 3600.0), -1, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "(0.007 GPUs × a parent queue's 2562047788015215h30m07s defaultRuntime, rounded up)");
	ASSERT_STR_CONTAINS(buf, job);
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	fw_serve_short_text(s, l, 1, -1, -1, buf, sizeof buf);
	ASSERT_STR_CONTAINS(buf, "give it a run-time limit (maxRuntime) or a runtime");
	ASSERT(strlen(buf) < FW_SERVE_REASON_MAX);
	fw_snapshot_free(s);
}

TEST_MAIN(evictions_name_the_job_and_its_queue, waiting_reasons_name_the_job_ahead, drains_name_the_node,
	  started_says_the_gpus_only, over_quota_amount_in_full, the_rest_reads_as_the_core,
	  longest_names_arrive_whole, every_text_fits_its_bound, model_limits_name_the_queue_and_the_model,
	  time_limit_names_the_queue_that_sets_it, time_limit_says_when_it_is_the_jobs_own,
	  over_budget_names_the_queue, budget_short_names_the_queue,
	  budget_short_without_a_bound_names_the_queue_and_the_job, budget_short_texts_fit_their_bound)
