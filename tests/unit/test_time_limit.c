/* test_time_limit.c — run-time limits (snapshot.h fw_queue.max_runtime_s,
 * fw_job.max_runtime_s, fw_job_limit; lib/cycle.c "limits"): a running
 * job that has run its own or its queue's limit ends in the plan (EVICT, reason TIME_LIMIT), its GPUs go
 * to waiting jobs in the same plan, and planning assumes no job runs
 * longer. */
#include <stdlib.h>

#include "builder.h"
#include "harness.h"

static struct fw_arena A;

static const char *const POLICIES[] = { "fairway", "kai", "slurm", "fifo" };

/* A running job of one 8-GPU task on node n, started at t. */
static int running(struct fw_snapshot *s, const char *name, int q, int n, fw_time t)
{
	int j = tb_job(s, name, q, 1, 8, 1000, t);
	tb_run(s, j, 1, &n, 0xff);
	s->jobs[j].start_time = t;
	return j;
}

/* One 8-GPU node; queue Q with a limit of `limit` s; r runs on it since
 * now - ran; w (8 GPUs) waits. */
struct world {
	struct fw_snapshot *s;
	int q, r, w;
};

static struct world world(fw_time limit, fw_time ran)
{
	struct world x;
	x.s = fw_snapshot_new();
	int n = tb_node(x.s, "n0", 8, "H100", NULL, NULL, NULL);
	x.q = tb_queue(x.s, "Q", -1, 8, -1, 1);
	x.s->queues[x.q].max_runtime_s = limit;
	x.s->now = 100000;
	x.r = running(x.s, "r", x.q, n, x.s->now - ran);
	x.w = tb_job(x.s, "w", x.q, 1, 8, 1000, 50);
	return x;
}

/* At its limit the job ends, first in the plan, with the time it ran and
 * the limit; the waiting job starts on its GPUs in the same plan, under
 * every policy. */
TEST(a_job_at_its_limit_ends_and_its_gpus_start_a_waiting_job)
{
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct world x = world(3600, 3600);
		struct fw_plan *p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT(p->ndecisions >= 2);
		const struct fw_decision *e = &p->decisions[0];
		ASSERT_EQ(e->kind, FW_DECIDE_EVICT);
		ASSERT_EQ(e->reason, FW_REASON_TIME_LIMIT);
		ASSERT_EQ(e->job, x.r);
		ASSERT_EQ(e->a, 3600);
		ASSERT_EQ(e->b, 3600);
		ASSERT_EQ(e->alloc_count, 1);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		ASSERT_EQ(p->queues[x.q].allocated.v[FW_RES_GPU], 8000);
		fw_snapshot_free(x.s);
	}
}

/* One second short of it, the job runs on; the waiting job's estimate is
 * that second (planning assumes the limit as its runtime: the job gave
 * none). */
TEST(a_job_short_of_its_limit_runs_on_and_planning_assumes_the_limit)
{
	struct world x = world(3600, 3599);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), 0);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) == NULL);
	const struct fw_pending *pw = fw_plan_pending_for(p, x.w);
	ASSERT(pw != NULL);
	ASSERT_EQ(pw->expected_start, x.s->now + 1);
	/* without the limit, the running job has no known end */
	x.s->queues[x.q].max_runtime_s = 0;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	pw = fw_plan_pending_for(p, x.w);
	ASSERT_EQ(pw->expected_start, FW_TIME_UNKNOWN);
	ASSERT_EQ(pw->unknown_why, FW_REASON_UNKNOWN_RUNTIME);
	fw_snapshot_free(x.s);
}

/* A job that announces a longer runtime is planned to end at the limit;
 * a shorter one keeps its own. */
TEST(the_limit_caps_an_announced_runtime)
{
	struct world x = world(3600, 600);
	x.s->jobs[x.r].expected_runtime = 10 * 3600;
	ASSERT_EQ(fw_job_runtime(x.s, &x.s->jobs[x.r]), 3600);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->expected_start, x.s->now + 3000);
	x.s->jobs[x.r].expected_runtime = 1200;
	ASSERT_EQ(fw_job_runtime(x.s, &x.s->jobs[x.r]), 1200);
	p = tb_plan(x.s, "fairway", &A);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->expected_start, x.s->now + 600);
	fw_snapshot_free(x.s);
}

/* The smallest limit on the way to the root binds; a queue without one
 * inherits its parent's. */
TEST(the_smallest_limit_on_the_path_binds)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	int n2 = tb_node(s, "n2", 8, "H100", NULL, NULL, NULL);
	int org = tb_queue(s, "org", -1, 24, -1, 1);
	int fast = tb_queue(s, "fast", org, 8, -1, 1);
	int slow = tb_queue(s, "slow", org, 8, -1, 1);
	int none = tb_queue(s, "none", org, 8, -1, 1);
	s->queues[org].max_runtime_s = 7200;
	s->queues[fast].max_runtime_s = 3600;
	s->queues[slow].max_runtime_s = 86400;
	s->now = 100000;
	int a = running(s, "a", fast, n0, s->now - 3600);
	int b = running(s, "b", slow, n1, s->now - 5000);
	int c = running(s, "c", none, n2, s->now - 7200);
	ASSERT_EQ(fw_job_limit(s, &s->jobs[a]), 3600);
	ASSERT_EQ(fw_job_limit(s, &s->jobs[b]), 7200);
	ASSERT_EQ(fw_job_limit(s, &s->jobs[c]), 7200);
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, a, FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, b, FW_DECIDE_EVICT) == NULL);
	ASSERT(tb_find(p, c, FW_DECIDE_EVICT) != NULL);
	ASSERT_EQ(tb_find(p, c, FW_DECIDE_EVICT)->b, 7200);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), 2);
	/* in job order */
	ASSERT_EQ(p->decisions[0].job, a);
	ASSERT_EQ(p->decisions[1].job, c);
	fw_snapshot_free(s);
}

/* A job's own limit ends it under a queue without one, under every
 * policy; the decision carries the job's limit. */
TEST(a_job_ends_at_its_own_limit)
{
	for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
		struct world x = world(0, 1800);
		x.s->jobs[x.r].max_runtime_s = 1800;
		ASSERT_EQ(fw_job_limit(x.s, &x.s->jobs[x.r]), 1800);
		struct fw_plan *p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		const struct fw_decision *e = &p->decisions[0];
		ASSERT_EQ(e->kind, FW_DECIDE_EVICT);
		ASSERT_EQ(e->reason, FW_REASON_TIME_LIMIT);
		ASSERT_EQ(e->job, x.r);
		ASSERT_EQ(e->a, 1800);
		ASSERT_EQ(e->b, 1800);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
		/* one second short: it runs on, and the waiting job's
		 * estimate is that second */
		x.s->jobs[x.r].max_runtime_s = 1801;
		p = tb_plan(x.s, POLICIES[i], &A);
		ASSERT(p != NULL);
		ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), 0);
		ASSERT(tb_find(p, x.w, FW_DECIDE_START) == NULL);
		if (i == 0)
			ASSERT_EQ(fw_plan_pending_for(p, x.w)->expected_start, x.s->now + 1);
		fw_snapshot_free(x.s);
	}
}

/* The smaller of the job's and its queue's limits binds, either way. */
TEST(the_smaller_of_the_job_and_queue_limits_binds)
{
	struct world x = world(3600, 3600);
	struct fw_job *r = &x.s->jobs[x.r];
	r->max_runtime_s = 7200; /* the queue's binds */
	ASSERT_EQ(fw_job_limit(x.s, r), 3600);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, x.r, FW_DECIDE_EVICT)->b, 3600);
	r->max_runtime_s = 1800; /* the job's binds */
	r->start_time = x.s->now - 2000;
	ASSERT_EQ(fw_job_limit(x.s, r), 1800);
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, x.r, FW_DECIDE_EVICT)->a, 2000);
	ASSERT_EQ(tb_find(p, x.r, FW_DECIDE_EVICT)->b, 1800);
	/* planning: an announced 5 h is capped at the job's own limit */
	r->start_time = x.s->now - 600;
	r->expected_runtime = 5 * 3600;
	ASSERT_EQ(fw_job_runtime(x.s, r), 1800);
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->expected_start, x.s->now + 1200);
	fw_snapshot_free(x.s);
}

/* A waiting job that announces no runtime but sets its own limit has a
 * known end, so it may backfill ahead of a reservation it ends before;
 * without the limit its end is unknown and it waits. */
TEST(a_waiting_jobs_own_limit_lets_it_backfill)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	int q = tb_queue(s, "Q", -1, 16, -1, 1);
	s->now = 100000;
	int r = running(s, "r", q, n0, s->now - 100);
	s->jobs[r].expected_runtime = 3700; /* ends at now + 3600 */
	int big = tb_job(s, "big", q, 2, 8, 1000, 10);
	int small = tb_job(s, "small", q, 1, 8, 1000, 20);
	s->jobs[small].max_runtime_s = 1800;
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	const struct fw_decision *rv = tb_find(p, big, FW_DECIDE_RESERVE);
	ASSERT(rv != NULL);
	ASSERT_EQ(rv->at, s->now + 3600);
	ASSERT(tb_find(p, small, FW_DECIDE_START) != NULL);
	s->jobs[small].max_runtime_s = 0;
	p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, small, FW_DECIDE_START) == NULL);
	s->jobs[small].max_runtime_s = 3601; /* ends after the reservation */
	p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, small, FW_DECIDE_START) == NULL);
	fw_snapshot_free(s);
}

/* Neither preemptibility nor minRuntime protects a job from its limit:
 * they are about evictions for other jobs, and this is its own end. */
TEST(nonpreemptible_and_protected_jobs_end_at_their_limit_too)
{
	struct world x = world(3600, 4000);
	x.s->queues[x.q].nonpreemptible = true;
	x.s->queues[x.q].min_runtime_s = 86400;
	x.s->jobs[x.r].preemptible = false;
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.r, FW_DECIDE_EVICT) != NULL);
	ASSERT_EQ(tb_find(p, x.r, FW_DECIDE_EVICT)->a, 4000);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	fw_snapshot_free(x.s);
}

/* A job past its limit on an unhealthy node is ended once, by its limit,
 * not drained as well; the node is still drained. */
TEST(an_ended_job_is_not_drained_too)
{
	struct world x = world(3600, 4000);
	x.s->nodes[0].health = FW_HEALTH_UNHEALTHY;
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), 1);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_DRAINED), 0);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) == NULL);
	fw_snapshot_free(x.s);
}

/* A preemptible job of an over-share queue past its limit ends by its
 * limit, and is no reclaim victim besides: the starving queue's job
 * takes its GPUs without an eviction of its own. */
TEST(an_ended_job_is_no_reclaim_victim)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	int qa = tb_queue(s, "A", -1, 8, -1, 1);
	int qb = tb_queue(s, "B", -1, 8, -1, 1);
	s->queues[qa].max_runtime_s = 3600;
	s->now = 100000;
	int a0 = running(s, "a0", qa, n0, s->now - 100);
	int a1 = running(s, "a1", qa, n1, s->now - 3600);
	s->jobs[a0].preemptible = s->jobs[a1].preemptible = true;
	int w = tb_job(s, "w", qb, 1, 8, 1000, 50);
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), 1);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_RECLAIMED), 0);
	ASSERT(tb_find(p, a1, FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, a0, FW_DECIDE_EVICT) == NULL);
	ASSERT(tb_find(p, w, FW_DECIDE_START) != NULL);
	ASSERT_EQ(p->allocs[tb_find(p, w, FW_DECIDE_START)->alloc_first].node, n1);
	fw_snapshot_free(s);
}

/* The same where the fair-share reclaim must still run: A runs three
 * jobs on three nodes and deserves 8 GPUs, B deserves 16 and waits with
 * two.  a1, of A's child queue with a 1 h limit, ends by it; it saved a
 * checkpoint at 3600 s, so it would lose the least work of A's jobs, but
 * it is no victim: w1 starts on its node, and a0 (100 s of work; A's
 * other child has no limit, so a0 and a2 have no known end and w2 no
 * reservation) is reclaimed for w2. */
TEST(an_ended_job_is_never_the_victim_it_would_be_cheapest_as)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n[3];
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "n%d", i);
		n[i] = tb_node(s, name, 8, "H100", NULL, NULL, NULL);
	}
	int qa = tb_queue(s, "A", -1, 8, -1, 1);
	int qs = tb_queue(s, "A-short", qa, 4, -1, 1);
	int ql = tb_queue(s, "A-long", qa, 4, -1, 1);
	int qb = tb_queue(s, "B", -1, 16, -1, 1);
	s->queues[qs].max_runtime_s = 3600;
	s->now = 100000;
	int a0 = running(s, "a0", ql, n[0], s->now - 100);
	int a1 = running(s, "a1", qs, n[1], s->now - 3600);
	int a2 = running(s, "a2", ql, n[2], s->now - 200);
	s->jobs[a1].checkpoint_s = 1800;
	s->jobs[a0].preemptible = s->jobs[a1].preemptible = s->jobs[a2].preemptible = true;
	ASSERT_EQ(fw_job_lost_work(s, &s->jobs[a1], s->now), 0);
	int w1 = tb_job(s, "w1", qb, 1, 8, 1000, 50);
	int w2 = tb_job(s, "w2", qb, 1, 8, 1000, 60);
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, a1, FW_DECIDE_EVICT)->reason, FW_REASON_TIME_LIMIT);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_RECLAIMED), 1);
	ASSERT(tb_find(p, a0, FW_DECIDE_EVICT) != NULL);
	ASSERT(tb_find(p, a2, FW_DECIDE_EVICT) == NULL);
	ASSERT(tb_find(p, w1, FW_DECIDE_START) != NULL);
	ASSERT(tb_find(p, w2, FW_DECIDE_START) != NULL);
	fw_snapshot_free(s);
}

/* Inside one queue (no reservations, so priority preemption runs): the
 * ended job, with nothing to lose since its checkpoint, would be the
 * first victim; r1 is preempted for h2 instead. */
TEST(an_ended_job_is_no_preemption_victim)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, "H100", NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, "H100", NULL, NULL, NULL);
	int q = tb_queue(s, "Q", -1, 16, -1, 1);
	s->queues[q].max_runtime_s = 3600;
	s->config.reserve_depth = -1;
	s->now = 100000;
	int r0 = running(s, "r0", q, n0, s->now - 3600);
	int r1 = running(s, "r1", q, n1, s->now - 100);
	s->jobs[r0].checkpoint_s = 1800;
	s->jobs[r0].preemptible = s->jobs[r1].preemptible = true;
	int h1 = tb_job(s, "h1", q, 1, 8, 1000, 50);
	int h2 = tb_job(s, "h2", q, 1, 8, 1000, 60);
	s->jobs[h1].priority = s->jobs[h2].priority = 10;
	struct fw_plan *p = tb_plan(s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_find(p, r0, FW_DECIDE_EVICT)->reason, FW_REASON_TIME_LIMIT);
	ASSERT(tb_find(p, r1, FW_DECIDE_EVICT) != NULL);
	ASSERT_EQ(tb_find(p, r1, FW_DECIDE_EVICT)->reason, FW_REASON_PREEMPTED);
	ASSERT(tb_find(p, h1, FW_DECIDE_START) != NULL);
	ASSERT(tb_find(p, h2, FW_DECIDE_START) != NULL);
	fw_snapshot_free(s);
}

/* An ended job's GPUs no longer count against its queue's GPU model
 * limit: the queue may hold 8 H100s, the ended job held them, and its
 * waiting H100 job starts. */
TEST(an_ended_job_holds_nothing_under_a_model_limit)
{
	struct world x = world(3600, 3600);
	tb_named(x.s, x.w, "H100");
	struct fw_model_limit m = tb_model_entry(x.q, "H100", 8);
	ASSERT(fw_snapshot_add_model_limit(x.s, &m) >= 0);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT(tb_find(p, x.w, FW_DECIDE_START) != NULL);
	x.s->queues[x.q].max_runtime_s = 0; /* without the end: over the limit */
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_pending_for(p, x.w)->reason, FW_REASON_MODEL_LIMIT);
	fw_snapshot_free(x.s);
}

/* The checker recounts the limits itself: a plan that leaves a job past
 * its limit running fails, and so does an end short of the limit. */
TEST(the_checker_catches_a_missed_end_and_an_early_one)
{
	struct fw_diag d;
	struct world x = world(0, 4000);
	struct fw_plan *p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), 0);
	x.s->queues[x.q].max_runtime_s = 3600; /* now the plan misses it */
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "past its run-time limit");

	x.s->queues[x.q].max_runtime_s = 3600;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	x.s->queues[x.q].max_runtime_s = 5000; /* now the end is early */
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "short of its run-time limit");

	/* the job's own limit, recounted the same way */
	x.s->queues[x.q].max_runtime_s = 0;
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	x.s->jobs[x.r].max_runtime_s = 3000;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "past its run-time limit of 3000 s");
	p = tb_plan(x.s, "fairway", &A);
	ASSERT(p != NULL);
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_OK);
	x.s->jobs[x.r].max_runtime_s = 5000;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "short of its run-time limit");
	fw_snapshot_free(x.s);
}

TEST(a_negative_limit_is_refused)
{
	struct fw_diag d;
	struct world x = world(-1, 10);
	ASSERT_EQ(fw_snapshot_validate(x.s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "maxRuntime");
	ASSERT_STR_EQ(d.field, "queues[0]");
	x.s->queues[x.q].max_runtime_s = 0;
	x.s->jobs[x.w].max_runtime_s = -5;
	ASSERT_EQ(fw_snapshot_validate(x.s, &d), FW_ERANGE);
	ASSERT_STR_CONTAINS(d.msg, "run-time limit -5 s is negative");
	ASSERT_STR_EQ(d.field, "jobs[1]");
	fw_snapshot_free(x.s);
}

/* Random fleets with random limits: every plan passes the checker
 * (which recounts every end), is the same when run again, and ends
 * exactly the jobs past their limit. */
TEST(random_fleets_end_exactly_the_jobs_past_their_limits)
{
	uint32_t seed = 12345;
	int ended = 0;
	for (int round = 0; round < 60; round++) {
		struct fw_snapshot *s = fw_snapshot_new();
		int nn = 2 + (int)(tb_xs32(&seed) % 6), nq = 1 + (int)(tb_xs32(&seed) % 3);
		for (int n = 0; n < nn; n++) {
			char name[16];
			snprintf(name, sizeof name, "n%d", n);
			tb_node(s, name, 8, "H100", NULL, NULL, NULL);
		}
		int root = tb_queue(s, "root", -1, 8.0 * nn, -1, 1);
		s->queues[root].max_runtime_s = tb_xs32(&seed) % 2 ? 20000 : 0;
		for (int q = 0; q < nq; q++) {
			char name[16];
			snprintf(name, sizeof name, "q%d", q);
			int k = tb_queue(s, name, root, 8.0 * nn / nq, -1, 1);
			s->queues[k].max_runtime_s = (fw_time)(tb_xs32(&seed) % 3) * 5000;
		}
		s->now = 50000;
		for (int n = 0; n < nn; n++) {
			char name[16];
			snprintf(name, sizeof name, "r%d", n);
			if (tb_xs32(&seed) % 4)
				running(s, name, 1 + (int)(tb_xs32(&seed) % (uint32_t)nq), n,
					s->now - (fw_time)(tb_xs32(&seed) % 30000));
		}
		for (int k = 0; k < 6; k++) {
			char name[16];
			snprintf(name, sizeof name, "w%d", k);
			tb_job(s, name, 1 + (int)(tb_xs32(&seed) % (uint32_t)nq), 1 + (int)(tb_xs32(&seed) % 2), 8, 1000,
			       k);
		}
		for (int j = 0; j < s->njobs; j++) /* some jobs set their own */
			if (tb_xs32(&seed) % 3 == 0)
				s->jobs[j].max_runtime_s = 1000 + (int32_t)(tb_xs32(&seed) % 25000);
		const char *pol = POLICIES[round % 4];
		struct fw_plan *p = tb_plan(s, pol, &A);
		ASSERT(p != NULL);
		int want = 0;
		for (int j = 0; j < s->njobs; j++) {
			const struct fw_job *job = &s->jobs[j];
			fw_time m = fw_job_limit(s, job);
			bool past = job->state == FW_JOB_RUNNING && m > 0 && s->now - job->start_time >= m;
			want += past;
			const struct fw_decision *e = tb_find(p, j, FW_DECIDE_EVICT);
			ASSERT_EQ(past, e != NULL && e->reason == FW_REASON_TIME_LIMIT);
		}
		ASSERT_EQ(tb_count(p, FW_DECIDE_EVICT, FW_REASON_TIME_LIMIT), want);
		ended += want;
		ASSERT(tb_replans_same(s, pol, p, &A));
		fw_snapshot_free(s);
	}
	ASSERT(ended >= 20); /* the rounds did end jobs */
}

static void setup(void)
{
	fw_arena_init(&A, 1 << 16);
}

static void teardown(void)
{
	fw_arena_release(&A);
}

#define TESTS \
	a_job_at_its_limit_ends_and_its_gpus_start_a_waiting_job, \
	a_job_short_of_its_limit_runs_on_and_planning_assumes_the_limit, the_limit_caps_an_announced_runtime, \
	the_smallest_limit_on_the_path_binds, a_job_ends_at_its_own_limit, \
	the_smaller_of_the_job_and_queue_limits_binds, a_waiting_jobs_own_limit_lets_it_backfill, nonpreemptible_and_protected_jobs_end_at_their_limit_too, \
	an_ended_job_is_not_drained_too, an_ended_job_is_no_reclaim_victim, \
	an_ended_job_is_never_the_victim_it_would_be_cheapest_as, an_ended_job_holds_nothing_under_a_model_limit, \
	an_ended_job_is_no_preemption_victim, \
	the_checker_catches_a_missed_end_and_an_early_one, a_negative_limit_is_refused, \
	random_fleets_end_exactly_the_jobs_past_their_limits

int main(void)
{
	fw_test_fn fns[] = { TESTS };
	int rc;
	setup();
	rc = fw_test_main(FW_TEST__STR(TESTS), fns, (int)(sizeof fns / sizeof fns[0]));
	teardown();
	return rc;
}
