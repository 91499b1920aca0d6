/*
 * test_serve_reason.c — the daemon's reason texts (connectors/serve/
 * reason.c): the indices a reason carries become the names of the jobs,
 * queues and nodes of the snapshot; every other reason reads as the
 * core's text; an over-quota amount is written in full; a job a GPU-hour
 * budget holds names the queue over it.
 */
#include <stdio.h>
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
	for (int r = 0; r < FW_REASON_COUNT; r++) {
		if (r == FW_REASON_STARTED || r == FW_REASON_OVER_QUOTA || r == FW_REASON_RECLAIMED ||
		    r == FW_REASON_MODEL_RECLAIMED ||
		    r == FW_REASON_PREEMPTED || r == FW_REASON_MOVED || r == FW_REASON_RESERVED ||
		    r == FW_REASON_HEAD_OF_LINE || r == FW_REASON_DRAIN_REQUEUE || r == FW_REASON_DRAIN_FINISH ||
		    r == FW_REASON_DRAINED || r == FW_REASON_MODEL_LIMIT || r == FW_REASON_CHECKPOINT_WAIT)
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
	ASSERT_STR_EQ(buf, "ended: it has run 7230 s and the run-time limit (maxRuntime) of its queue \"llm\" is 7200 s; "
			   "it is stopped, not requeued");
	s->queues[0].max_runtime_s = 3600; /* root, above llm, is the smaller */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 3600, 3600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 3600 s and the run-time limit (maxRuntime) of queue \"root\", above its "
			   "queue \"llm\", is 3600 s; it is stopped, not requeued");
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
	static const char own[] = "ended: it has run 600 s and its own run-time limit (maxRuntime) is 600 s";

	s->jobs[0].max_runtime_s = 600; /* train-7, of llm; no queue sets one */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 600 s and its own run-time limit (maxRuntime) is 600 s; it is stopped, "
			   "not requeued");
	s->queues[1].max_runtime_s = 7200; /* llm's, larger: its own still binds */
	s->queues[0].max_runtime_s = 3600;
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 600 s and its own run-time limit (maxRuntime) is 600 s; it is stopped, "
			   "not requeued");
	s->queues[1].max_runtime_s = 600; /* llm sets the same */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 600 s and its own run-time limit (maxRuntime) is 600 s, as is that of "
			   "its queue \"llm\"; it is stopped, not requeued");
	s->queues[1].max_runtime_s = 0;
	s->queues[0].max_runtime_s = 600; /* root, above llm, sets the same */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 600, 600, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 600 s and its own run-time limit (maxRuntime) is 600 s, as is that of "
			   "queue \"root\", above its queue \"llm\"; it is stopped, not requeued");
	s->queues[0].max_runtime_s = 300; /* root's is smaller: root's ends it */
	fw_serve_evict_text(s, &s->jobs[0], FW_REASON_TIME_LIMIT, 300, 300, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "ended: it has run 300 s and the run-time limit (maxRuntime) of queue \"root\", above its "
			   "queue \"llm\", is 300 s; it is stopped, not requeued");
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
	const char *tail = "; it loses 1700000000 s of work (no checkpoint interval: the whole run)";
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
	char name[3][FW_NAME_MAX];
	s = fw_snapshot_new();
	for (int i = 0; i < 3; i++) {
		memset(name[i], "pqj"[i], FW_NAME_MAX - 1);
		name[i][FW_NAME_MAX - 1] = 0;
	}
	tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	tb_queue(s, name[0], -1, 8, -1, 1);
	tb_queue(s, name[1], 0, 8, -1, 1);
	tb_job(s, name[2], 1, 1, 8, 1000, 0);
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

TEST_MAIN(evictions_name_the_job_and_its_queue, waiting_reasons_name_the_job_ahead, drains_name_the_node,
	  started_says_the_gpus_only, over_quota_amount_in_full, the_rest_reads_as_the_core,
	  longest_names_arrive_whole, every_text_fits_its_bound, model_limits_name_the_queue_and_the_model,
	  time_limit_names_the_queue_that_sets_it, time_limit_says_when_it_is_the_jobs_own,
	  over_budget_names_the_queue)
