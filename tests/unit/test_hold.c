/* test_hold.c — a starving gang holds its queues' limits (lib/allocate.c
 * hold_limits, limit_held; lib/estimate.c after_holder, held_floor).
 * Under a policy with a starvation age (fairway: 24 h), a gang that has
 * waited that long and does not start counts its request under every
 * limit on its way up for the rest of the cycle: a later job of such a
 * queue starts only where it passes the limit beside it, or ends before
 * the gang's reservation (LIMIT_HELD, a = the gang, b = the queue), and
 * is expected no sooner than the gang.  Without it, at a limit near the
 * quota, smaller jobs of the queue take each bit of room that frees and
 * pass the gang for ever. */
#include <stdlib.h>

#include "builder.h"
#include "harness.h"

static struct fw_arena A;

#define NOW 200000 /* past the 24 h starvation age of a job sent at 0 */

static struct fw_plan *run(const struct fw_snapshot *s, const char *policy)
{
	return tb_plan(s, policy, &A);
}

static bool started(const struct fw_plan *p, int job)
{
	const struct fw_decision *d = tb_decision(p, job);
	return d && d->kind == FW_DECIDE_START;
}

/* Job j runs on node n (GPUs of mask) since NOW - 100 and is expected
 * to end at NOW + left. */
static void running(struct fw_snapshot *s, int j, int n, uint32_t mask, fw_time left)
{
	tb_run(s, j, 1, &n, mask);
	s->jobs[j].start_time = NOW - 100;
	s->jobs[j].expected_runtime = 100 + left;
}

/* Four 8-GPU nodes; queue "capped" (quota and limit 16 GPUs) runs r8 (8
 * GPUs, ends at NOW + 1000) and r4 (4 GPUs, ends at NOW + 3000); queue
 * "other" has no limit.  g (2 x 8 GPUs, sent at 0) starves; sm (4 GPUs)
 * and o (8 GPUs, in "other") were sent just now. */
struct world {
	struct fw_snapshot *s;
	int capped, other, g, sm, o;
};

static struct world world(void)
{
	struct world x;
	struct fw_snapshot *s = x.s = fw_snapshot_new();
	int n0 = tb_node(s, "n0", 8, NULL, NULL, NULL, NULL);
	int n1 = tb_node(s, "n1", 8, NULL, NULL, NULL, NULL);

	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	tb_node(s, "n3", 8, NULL, NULL, NULL, NULL);
	x.capped = tb_queue(s, "capped", -1, 16, 16, 1);
	x.other = tb_queue(s, "other", -1, 16, -1, 1);
	s->now = NOW;
	running(s, tb_job(s, "r8", x.capped, 1, 8, 1000, 0), n0, 0xff, 1000);
	running(s, tb_job(s, "r4", x.capped, 1, 4, 1000, 0), n1, 0x0f, 3000);
	x.g = tb_job(s, "g", x.capped, 2, 8, 1000, 0);
	s->jobs[x.g].expected_runtime = 5000;
	x.sm = tb_job(s, "sm", x.capped, 1, 4, 1000, NOW - 10);
	s->jobs[x.sm].expected_runtime = 600;
	x.o = tb_job(s, "o", x.other, 1, 8, 1000, NOW - 10);
	s->jobs[x.o].expected_runtime = 600;
	return x;
}

/* g needs the queue empty (16 of 16); sm would fit the 4 GPUs of room
 * the limit leaves now, and takes them only once g has started. */
TEST(a_starving_gang_holds_its_queues_limit)
{
	struct world x = world();
	struct fw_plan *p = run(x.s, "fairway");
	ASSERT(p != NULL);
	const struct fw_pending *pg = fw_plan_pending_for(p, x.g), *ps = fw_plan_pending_for(p, x.sm);
	ASSERT(pg != NULL && ps != NULL);
	ASSERT_EQ(pg->reason, FW_REASON_OVER_QUOTA);
	ASSERT_EQ(ps->reason, FW_REASON_LIMIT_HELD);
	ASSERT_EQ(ps->a, x.g);
	ASSERT_EQ(ps->b, x.capped);
	ASSERT(started(p, x.o)); /* another queue's job is not held */
	/* g gets in when r4 ends (the queue empty) and fills the limit
	 * until its end: sm after it (lib/estimate.c holder_from) */
	ASSERT_EQ(pg->expected_start, NOW + 3000);
	ASSERT_EQ(ps->expected_start, NOW + 8000);
	char buf[512];
	fw_pending_format(x.s, ps, buf, sizeof buf);
	ASSERT(strstr(buf, "limit held: job g,") != NULL);
	ASSERT(strstr(buf, "queue capped") != NULL);
	fw_snapshot_free(x.s);
}

/* The same world with no starvation age (off in the config) or with g
 * sent just now: nothing holds the limit, and sm takes the room. */
TEST(without_a_starving_gang_the_room_goes_to_the_next_job)
{
	struct world x = world();
	x.s->config.starve_after_s = -1; /* off */
	struct fw_plan *p = run(x.s, "fairway");
	ASSERT(p != NULL);
	ASSERT(started(p, x.sm));
	fw_snapshot_free(x.s);

	x = world();
	x.s->jobs[x.g].submit_time = NOW - 20;
	p = run(x.s, "fairway");
	ASSERT(p != NULL);
	ASSERT(started(p, x.sm));
	fw_snapshot_free(x.s);
}

/* A gang that the limit never lets in alone (32 GPUs under a limit of
 * 16) holds nothing: it could never use the room. */
TEST(a_gang_the_limit_never_lets_in_holds_nothing)
{
	struct world x = world();
	x.s->jobs[x.g].groups[0].count = 4;
	struct fw_plan *p = run(x.s, "fairway");
	ASSERT(p != NULL);
	ASSERT(started(p, x.sm));
	const struct fw_pending *pg = fw_plan_pending_for(p, x.g);
	ASSERT(pg != NULL && pg->reason == FW_REASON_OVER_QUOTA);
	fw_snapshot_free(x.s);
}

/* A starving gang with the limit's room but not the nodes (a
 * reservation) holds the room from its reservation on: a job of its
 * queue that ends before then starts (backfill), one that runs past it
 * waits.  Three 8-GPU nodes; "other" runs o16 on n0 and n1 until NOW +
 * 5000; "capped" (limit 20) runs nothing; g (16 GPUs) is reserved at
 * NOW + 5000; s1 (4 GPUs, 1000 s) and s2 (4 GPUs, 10,000 s) wait. */
TEST(a_reserved_starving_gang_holds_the_room_from_its_reservation)
{
	struct fw_snapshot *s = fw_snapshot_new();
	int nn[2] = { tb_node(s, "n0", 8, NULL, NULL, NULL, NULL), tb_node(s, "n1", 8, NULL, NULL, NULL, NULL) };
	tb_node(s, "n2", 8, NULL, NULL, NULL, NULL);
	int capped = tb_queue(s, "capped", -1, 16, 20, 1), other = tb_queue(s, "other", -1, 16, -1, 1);
	s->now = NOW;
	int o16 = tb_job(s, "o16", other, 2, 8, 1000, 0);
	tb_run(s, o16, 2, nn, 0xff);
	s->jobs[o16].start_time = NOW - 100;
	s->jobs[o16].expected_runtime = 5100;
	int g = tb_job(s, "g", capped, 2, 8, 1000, 0);
	s->jobs[g].expected_runtime = 5000;
	int s1 = tb_job(s, "s1", capped, 1, 4, 1000, NOW - 20);
	s->jobs[s1].expected_runtime = 1000;
	int s2 = tb_job(s, "s2", capped, 1, 4, 1000, NOW - 10);
	s->jobs[s2].expected_runtime = 10000;
	struct fw_plan *p = run(s, "fairway");
	ASSERT(p != NULL);
	const struct fw_pending *pg = fw_plan_pending_for(p, g), *p2 = fw_plan_pending_for(p, s2);
	ASSERT(pg != NULL && p2 != NULL);
	ASSERT_EQ(pg->reason, FW_REASON_HAS_RESERVATION);
	ASSERT_EQ(pg->a, NOW + 5000);
	ASSERT(started(p, s1));
	ASSERT_EQ(p2->reason, FW_REASON_LIMIT_HELD);
	ASSERT_EQ(p2->a, g);
	ASSERT(p2->expected_start >= NOW + 5000);
	fw_snapshot_free(s);
}

/* Only the first-tried starving gang names itself: a second starving
 * gang of the same queue is held behind the first. */
TEST(an_older_starving_gang_holds_before_a_younger_one)
{
	struct world x = world();
	int g2 = tb_job(x.s, "g2", x.capped, 2, 4, 1000, 10);
	x.s->jobs[g2].expected_runtime = 100;
	struct fw_plan *p = run(x.s, "fairway");
	ASSERT(p != NULL);
	const struct fw_pending *p2 = fw_plan_pending_for(p, g2);
	ASSERT(p2 != NULL);
	ASSERT_EQ(p2->reason, FW_REASON_LIMIT_HELD);
	ASSERT_EQ(p2->a, x.g);
	fw_snapshot_free(x.s);
}

/* The checker (lib/check.c check_limit_held) refuses a held job expected
 * before its gang, held for a job that is no waiting gang, or under a
 * queue with no limit over both. */
static struct fw_pending *entry(struct fw_plan *p, int job)
{
	for (int32_t i = 0; i < p->npending; i++)
		if (p->pending[i].job == job)
			return &p->pending[i];
	return NULL;
}

TEST(the_checker_refuses_a_held_job_that_breaks_the_hold)
{
	struct world x = world();
	struct fw_diag d;
	struct fw_plan *p = run(x.s, "fairway");
	ASSERT(p != NULL);
	struct fw_pending *ps = entry(p, x.sm), keep;
	ASSERT(ps != NULL && ps->reason == FW_REASON_LIMIT_HELD);
	keep = *ps;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_OK);
	ps->expected_start = NOW + 2999;
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job sm is expected before job g, which holds its queue's limit");
	*ps = keep;
	ps->a = x.o; /* started, and no gang */
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job sm is held for a job that is no waiting gang over a limit or reserved");
	*ps = keep;
	ps->b = x.other; /* no limit, and not over sm */
	ASSERT_EQ(fw_plan_check(x.s, p, &A, &d), FW_EINVARIANT);
	ASSERT_STR_CONTAINS(d.msg, "job sm is held under a queue with no limit over both it and job g");
	fw_snapshot_free(x.s);
}

static void setup(void)
{
	fw_arena_init(&A, 1 << 20);
}

static void teardown(void)
{
	fw_arena_release(&A);
}

#define TESTS \
	a_starving_gang_holds_its_queues_limit, without_a_starving_gang_the_room_goes_to_the_next_job, \
	a_gang_the_limit_never_lets_in_holds_nothing, a_reserved_starving_gang_holds_the_room_from_its_reservation, \
	an_older_starving_gang_holds_before_a_younger_one, the_checker_refuses_a_held_job_that_breaks_the_hold

int main(void)
{
	fw_test_fn fns[] = { TESTS };
	int rc;
	setup();
	rc = fw_test_main(FW_TEST__STR(TESTS), fns, (int)(sizeof fns / sizeof fns[0]));
	teardown();
	return rc;
}
